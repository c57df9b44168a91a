//! Building and running an Ascend C kernel source on the host.
//!
//! [`build`] compiles `KERNEL.cpp` with the host C++ compiler (`$CXX`, default `g++`) into a
//! shared object against the header-only face (`kernel_operator.h` and `npusim.h`, embedded in
//! this crate and written next to the cache); the object is cached under the cache directory by
//! a content hash of the source, the headers, the compiler and its flags. [`run`] loads it
//! (`libloading`), hands it this library's function table (`npusim_face_attach`), and runs the
//! kernel's `extern "C"` entry once per block, blocks in order 0..N, through the face's
//! `npusim_face_run` trampoline, which catches the face's C++ exception so nothing unwinds
//! across the ABI. GM arguments are 32-byte aligned regions; the kernel receives them as
//! `__gm__ uint8_t*` values `NPUSIM_GM_VBASE + address` (never dereferenced by the face).

use crate::abi::{self, API, Api};
use crate::device::{CapiError, Device};
use npusim_core::npy::NpyArray;
use npusim_core::{ElemType, MemSpace};
use std::ffi::c_void;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The C ABI header.
pub const NPUSIM_H: &str = include_str!("../../../include/npusim.h");
/// The header-only Ascend C face.
pub const KERNEL_OPERATOR_H: &str = include_str!("../../../cpp/include/kernel_operator.h");
/// `NPUSIM_GM_VBASE`: the value a GM address 0 has as a kernel pointer.
pub const GM_VBASE: u64 = 0x1000_0000_0000;
/// The most `__gm__` parameters a kernel entry may take (the face's trampoline).
pub const MAX_ARGS: usize = 16;
/// Flags of the kernel build (part of the cache key).
pub const CXXFLAGS: &[&str] = &["-std=c++17", "-O1", "-g0", "-shared", "-fPIC", "-w"];

/// A failure to build or run a kernel.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// No host C++ compiler.
    #[error(
        "the host C++ compiler `{0}` was not found: install g++ (Debian/Ubuntu: apt-get install g++) or set CXX"
    )]
    NoCompiler(String),
    /// The compiler rejected the kernel.
    #[error("compiling {file} with {cxx} failed:\n{stderr}")]
    Compile {
        file: String,
        cxx: String,
        stderr: String,
    },
    /// Reading or writing a file.
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    /// Loading the built object or finding a symbol in it.
    #[error("loading {path}: {msg}")]
    Load { path: String, msg: String },
    /// A bad launch argument.
    #[error("{0}")]
    Arg(String),
    /// The kernel failed on the device; `block` is the failing block.
    #[error("kernel `{kernel}` block {block} of {blocks}: {message}")]
    Kernel {
        kernel: String,
        block: u32,
        blocks: u32,
        message: String,
    },
    /// A device error outside the kernel.
    #[error(transparent)]
    Device(#[from] CapiError),
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> RunError + '_ {
    move |source| RunError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// FNV-1a, 64 bit: a stable content hash for the build cache.
fn fnv(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for b in p.iter().chain(&[0xff]) {
            h ^= *b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// The host C++ compiler: `$CXX` or `g++`, checked to run.
pub fn compiler() -> Result<String, RunError> {
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "g++".to_string());
    match Command::new(&cxx).arg("--version").output() {
        Ok(o) if o.status.success() => Ok(cxx),
        _ => Err(RunError::NoCompiler(cxx)),
    }
}

/// The default build cache: `$NPUSIM_CACHE_DIR`, else `$XDG_CACHE_HOME/npusim/ascendc`, else
/// `$HOME/.cache/npusim/ascendc`, else the temp directory.
pub fn default_cache_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("NPUSIM_CACHE_DIR") {
        return PathBuf::from(d);
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME") {
        return PathBuf::from(d).join("npusim/ascendc");
    }
    if let Some(d) = std::env::var_os("HOME") {
        return PathBuf::from(d).join(".cache/npusim/ascendc");
    }
    std::env::temp_dir().join("npusim-ascendc")
}

/// Writes the face headers into `dir/include` (when they differ) and returns that directory.
pub fn install_headers(dir: &Path) -> Result<PathBuf, RunError> {
    let inc = dir.join("include");
    std::fs::create_dir_all(&inc).map_err(io(&inc))?;
    for (name, text) in [
        ("npusim.h", NPUSIM_H),
        ("kernel_operator.h", KERNEL_OPERATOR_H),
    ] {
        let p = inc.join(name);
        if std::fs::read_to_string(&p).ok().as_deref() != Some(text) {
            let tmp = inc.join(format!("{name}.{}.tmp", std::process::id()));
            std::fs::write(&tmp, text).map_err(io(&tmp))?;
            std::fs::rename(&tmp, &p).map_err(io(&p))?;
        }
    }
    Ok(inc)
}

/// Compiles `source` into a cached shared object; returns its path.
pub fn build(source: &Path, cache_dir: &Path) -> Result<PathBuf, RunError> {
    let cxx = compiler()?;
    let text = std::fs::read(source).map_err(io(source))?;
    let flags = CXXFLAGS.join(" ");
    let key = fnv(&[
        &text,
        NPUSIM_H.as_bytes(),
        KERNEL_OPERATOR_H.as_bytes(),
        cxx.as_bytes(),
        flags.as_bytes(),
    ]);
    let inc = install_headers(cache_dir)?;
    let so = cache_dir.join(format!("kernel-{key:016x}.so"));
    if so.is_file() {
        return Ok(so);
    }
    // The source is compiled from a copy so `#include` of the kernel's own directory still
    // works through -I.
    let tmp = cache_dir.join(format!("kernel-{key:016x}.{}.tmp.so", std::process::id()));
    let mut cmd = Command::new(&cxx);
    cmd.args(CXXFLAGS).arg("-I").arg(&inc);
    if let Some(dir) = source.parent().filter(|d| !d.as_os_str().is_empty()) {
        cmd.arg("-I").arg(dir);
    }
    let out = cmd
        .arg("-o")
        .arg(&tmp)
        .arg(source)
        .output()
        .map_err(|_| RunError::NoCompiler(cxx.clone()))?;
    if !out.status.success() {
        let _ = std::fs::remove_file(&tmp);
        return Err(RunError::Compile {
            file: source.display().to_string(),
            cxx,
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        });
    }
    std::fs::rename(&tmp, &so).map_err(io(&so))?;
    Ok(so)
}

/// The parameter names of the `extern "C"` entry `kernel` in `source` (the identifier ending
/// each comma-separated parameter), in order.
pub fn kernel_params(source: &str, kernel: &str) -> Result<Vec<String>, RunError> {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut from = 0;
    while let Some(pos) = source[from..].find(kernel) {
        let at = from + pos;
        from = at + kernel.len();
        let before_ok = source[..at].chars().next_back().is_none_or(|c| !ident(c));
        let rest = source[from..].trim_start();
        if !before_ok || !rest.starts_with('(') {
            continue;
        }
        let Some(close) = rest.find(')') else { break };
        let params = &rest[1..close];
        let names: Vec<String> = params
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty() && *p != "void")
            .map(|p| {
                let p = p.trim_end_matches(|c: char| !ident(c));
                let start = p.rfind(|c: char| !ident(c)).map_or(0, |i| i + 1);
                p[start..].to_string()
            })
            .collect();
        return Ok(names);
    }
    Err(RunError::Arg(format!(
        "kernel `{kernel}`: no function of that name in the source"
    )))
}

/// One kernel launch.
#[derive(Clone, Debug)]
pub struct Launch {
    /// The kernel source.
    pub source: PathBuf,
    /// The `extern "C"` entry.
    pub kernel: String,
    /// `blockDim`.
    pub blocks: u32,
    /// The chip profile name.
    pub chip: String,
    /// The GM buffer of each kernel parameter, by name (inputs and outputs).
    pub args: Vec<(String, NpyArray)>,
    /// The build cache directory.
    pub cache_dir: PathBuf,
}

type FaceAttach = unsafe extern "C" fn(*const Api, *mut Device) -> i32;
type FaceRun = unsafe extern "C" fn(*const c_void, u32, *const u64, u32, u32) -> i32;

/// Builds and runs a launch; returns every parameter's GM buffer after the run (same order,
/// dtypes and shapes as given).
pub fn run(l: &Launch) -> Result<Vec<(String, NpyArray)>, RunError> {
    if l.blocks == 0 || l.blocks > 65535 {
        return Err(RunError::Arg(format!(
            "--blocks {}: must be in [1, 65535]",
            l.blocks
        )));
    }
    let text = std::fs::read_to_string(&l.source).map_err(io(&l.source))?;
    let params = kernel_params(&text, &l.kernel)?;
    if params.len() > MAX_ARGS {
        return Err(RunError::Arg(format!(
            "kernel `{}` takes {} parameters; at most {MAX_ARGS} are supported",
            l.kernel,
            params.len()
        )));
    }
    for (n, _) in &l.args {
        if !params.contains(n) {
            return Err(RunError::Arg(format!(
                "`{n}` is not a parameter of kernel `{}` (its parameters: {})",
                l.kernel,
                params.join(", ")
            )));
        }
    }
    let mut order = Vec::with_capacity(params.len());
    for p in &params {
        let i = l.args.iter().position(|(n, _)| n == p).ok_or_else(|| {
            RunError::Arg(format!(
                "kernel `{}` parameter `{p}` has no buffer: give it with --arg {p}=FILE.npy or --out",
                l.kernel
            ))
        })?;
        order.push(i);
    }
    let gm: u64 = l
        .args
        .iter()
        .map(|(_, a)| (a.data.len() as u64).div_ceil(32) * 32)
        .sum::<u64>()
        .max(32);
    let mut dev = Box::new(Device::new(&l.chip, gm)?);
    let mut addrs = vec![0u64; l.args.len()];
    for (i, (_, a)) in l.args.iter().enumerate() {
        addrs[i] = dev.gm_alloc(a.data.len() as u64)?;
        dev.write(MemSpace::Gm, addrs[i], &a.data)?;
    }
    let so = build(&l.source, &l.cache_dir)?;
    let load = |msg: String| RunError::Load {
        path: so.display().to_string(),
        msg,
    };
    // SAFETY: the object was built from the user's kernel against our face; loading runs its
    // static constructors, as running any kernel does.
    let lib = unsafe { libloading::Library::new(&so) }.map_err(|e| load(e.to_string()))?;
    // SAFETY: the face defines these symbols with exactly these signatures.
    let (attach, face_run, entry) = unsafe {
        let a: libloading::Symbol<FaceAttach> = lib
            .get(b"npusim_face_attach\0")
            .map_err(|e| load(format!("{e} (does the kernel include kernel_operator.h?)")))?;
        let r: libloading::Symbol<FaceRun> = lib
            .get(b"npusim_face_run\0")
            .map_err(|e| load(e.to_string()))?;
        let mut name = l.kernel.clone().into_bytes();
        name.push(0);
        let k: libloading::Symbol<*const c_void> = lib
            .get(&name)
            .map_err(|e| load(format!("{e} (is `{}` declared extern \"C\"?)", l.kernel)))?;
        (*a, *r, *k)
    };
    let ptrs: Vec<u64> = order.iter().map(|&i| GM_VBASE + addrs[i]).collect();
    let raw: *mut Device = &mut *dev;
    // SAFETY: `raw` stays valid for the whole run (the box outlives it) and is used only
    // through the face during these calls.
    let status = unsafe { attach(&API, raw) };
    if status != 0 {
        return Err(load(abi::last_error()));
    }
    for b in 0..l.blocks {
        // SAFETY: no face call is running; `raw` is valid.
        unsafe { (*raw).block_begin(b, l.blocks) }?;
        // SAFETY: entry is the kernel's address; the trampoline calls it with `ptrs.len()`
        // pointer arguments, catching every C++ exception.
        let s = unsafe { face_run(entry, ptrs.len() as u32, ptrs.as_ptr(), b, l.blocks) };
        if s != 0 {
            return Err(RunError::Kernel {
                kernel: l.kernel.clone(),
                block: b,
                blocks: l.blocks,
                message: abi::last_error(),
            });
        }
    }
    // SAFETY: detaching: the face forgets the device.
    unsafe { attach(std::ptr::null(), std::ptr::null_mut()) };
    drop(lib);
    let mut out = Vec::with_capacity(l.args.len());
    for (i, (n, a)) in l.args.iter().enumerate() {
        let data = dev.read(MemSpace::Gm, addrs[i], a.data.len() as u64)?;
        out.push((
            n.clone(),
            NpyArray {
                dtype: a.dtype,
                shape: a.shape.clone(),
                data,
            },
        ));
    }
    Ok(out)
}

/// Parses an output spec `NAME:DTYPE[D0,D1,...]` (or `NAME` alone) into the name and, when
/// given, a zeroed array of that type and shape.
pub fn parse_out_spec(spec: &str) -> Result<(String, Option<NpyArray>), RunError> {
    let Some((name, ty)) = spec.split_once(':') else {
        return Ok((spec.to_string(), None));
    };
    let bad = || {
        RunError::Arg(format!(
            "--out {spec}: expected NAME:DTYPE[D0,D1,...]=FILE.npy (e.g. z:float32[8,128])"
        ))
    };
    let (dt, shape) = ty.split_once('[').ok_or_else(bad)?;
    let dtype = ElemType::parse(dt).ok_or_else(bad)?;
    let shape: Vec<usize> = shape
        .strip_suffix(']')
        .ok_or_else(bad)?
        .split(',')
        .filter(|s| !s.trim().is_empty())
        .map(|s| s.trim().parse::<usize>().map_err(|_| bad()))
        .collect::<Result<_, _>>()?;
    let n = shape
        .iter()
        .try_fold(1usize, |a, d| a.checked_mul(*d))
        .and_then(|n| n.checked_mul(dtype.size()))
        .filter(|b| *b <= 1 << 32)
        .ok_or_else(bad)?;
    Ok((
        name.to_string(),
        Some(NpyArray {
            dtype,
            shape,
            data: vec![0; n],
        }),
    ))
}
