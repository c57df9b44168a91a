//! `npusim run` and `npusim check`: PTO-AS kernels from the command line, and the PTO-AS part of
//! `npusim demo`.
//!
//! A kernel is parsed and verified once, lowered once into a flat program
//! (`npusim_ptoas::interp`), then run on `npusim-pto`'s tile core. Problems in the kernel or in
//! the arguments are printed rustc-style against the source, and the command fails without
//! writing any output file.

use anyhow::{Context, Result, bail};
use clap::Args;
use npusim_core::npy::{npy_header_bytes, read_npy_header};
use npusim_core::{NpyArray, PolicyName};
use npusim_ptoas::interp::{
    HostArg, LowerOptions, ParamInfo, PrintRec, Program, Progress, RunConfig, RunError, RunOutcome,
    lower,
};
use npusim_ptoas::{
    Block, Dim, Func, GmLayout, Module, OpKind, ParseOptions, PtoLevel, ScalarType, TargetArch,
    Type, parse_module_with, render_all,
};
use std::fs::File;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// `npusim run KERNEL.pto [--func NAME] [--target a2a3|a5] [--blocks N] --arg NAME=FILE.npy ...`
#[derive(Args, Debug)]
#[command(after_help = "Examples:\n  \
npusim run examples/pto/vector_add.pto --arg x=x.npy --arg y=y.npy --arg z=z.npy \\\n      \
--arg n_rows=64 --out z=out.npy\n  \
npusim run examples/pto/multicore_split.pto --blocks 3 --arg x=x.npy --arg y=y.npy \\\n      \
--arg n_rows=64 --arg alpha=1.5 --arg beta=-0.25 --out y=out.npy\n  \
npusim run kernel.pto --func my_kernel --target a5 --arg a=a.npy --arg %n=16\n  \
npusim run kernel.pto --policy pto-cpu-sim --arg x=x.npy --out y=y.npy   # as the pto-isa CPU sim\n\n\
Pointer parameters take .npy files whose element type must match the pointer's (bf16 as <V2, as\n\
ml_dtypes writes it) and whose shape must fit the tensor view the kernel makes of it where the
kernel fixes its sizes (dimensions of size 1 ignored); scalar parameters take literals checked
against the parameter's type (integers in the type's signed range or as 0x bit patterns; floats
that overflow are errors, `nan`/`inf` run with a warning). `--out NAME=FILE.npy` writes the final\n\
contents of a pointer parameter's buffer (`--out NAME=-`: to stdout, the summary then goes to\n\
stderr). Output paths are checked before the run; outputs are written to temporary files beside\n\
their destinations and renamed into place only when every one was written (all or nothing);\n\
a symlink is written through, as numpy does.\n\n\
Budgets: --max-steps (instructions, counted in every call, loop and block), --max-work (tile\n\
elements processed), --timeout (seconds of wall clock), --max-memory (global memory for the\n\
buffer arguments; default 8G). Exceeding one is an error naming the budget, the op and the line.\n\
On a terminal, long runs show progress on stderr.")]
pub struct RunArgs {
    /// The kernel file (PTOAS MLIR text).
    pub kernel: PathBuf,
    /// The function to run (default: the module's only function that no other calls; with
    /// several such functions, `--func` is required).
    #[arg(long, value_name = "NAME")]
    pub func: Option<String>,
    /// Target: a chip name or alias from `npusim chips` with a PTO tile unit (a2a3, a2, a3,
    /// 910b, ascend910b, a5, 950, ...); overrides the module's `pto.target_arch`.
    #[arg(long, value_parser = parse_target, value_name = "CHIP")]
    pub target: Option<TargetArch>,
    /// ptoas's build level (`level1`, `level2` or `level3`, as `ptoas --pto-level`; ptoas's
    /// default is level2): checks that level's rules (level3: every `pto.alloc_tile` gives
    /// `addr`; level1/2: no `addr`, no `pto.tassign`). Without it no level rule is checked.
    #[arg(long, value_parser = parse_level, value_name = "LEVEL")]
    pub pto_level: Option<PtoLevel>,
    /// Run the function for block indices 0..N (each block on fresh on-chip memories, one
    /// shared global memory).
    #[arg(long, default_value_t = 1, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..))]
    pub blocks: u32,
    /// Runs the blocks on N host threads, with outputs byte for byte those of `--threads 1`.
    /// Blocks share global memory, so this holds when no block writes GM bytes another block
    /// reads or writes: the blocks write the one GM in place, each first claiming the byte
    /// ranges its TLOAD/TSTORE, scalar loads/stores and prints of global tensors touch; a claim
    /// that breaks the rule is refused before the access, the arguments are read again, the
    /// blocks run again in order on one thread, and a note on stderr names the two blocks and
    /// the byte range. Traced runs (--trace/--stats), runs with
    /// an explicit --hazards check and mixed cube + vector kernels always run in order; with
    /// N > 1 the default hazard check is off. Kernel prints come out in block order.
    #[arg(long, default_value_t = 1, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..))]
    pub threads: u32,
    /// Binds a parameter: `NAME=FILE.npy` for a pointer, `NAME=VALUE` for a scalar.
    #[arg(long = "arg", value_name = "NAME=VALUE")]
    pub args: Vec<String>,
    /// Writes a pointer parameter's final buffer: `NAME=FILE.npy`.
    #[arg(long = "out", value_name = "NAME=FILE.npy")]
    pub outs: Vec<String>,
    /// A PTOAS sample case directory (`main.cpp`, `outputs.txt`, `v1.bin`, ...): parameter K
    /// takes `vK.bin` (or its `main.cpp` scalar), and the buffers `outputs.txt` names are
    /// written back to `vK.bin` for the sample's compare script. `--arg` overrides a parameter.
    #[arg(long, value_name = "DIR")]
    pub case: Option<PathBuf>,
    /// Step budget: fail when more than this many instructions have run (every call, loop
    /// iteration and block counts).
    #[arg(long, default_value_t = 100_000_000, value_name = "N")]
    pub max_steps: u64,
    /// Work budget: fail when more than this many tile elements have been processed.
    #[arg(long, default_value_t = 100_000_000_000, value_name = "N")]
    pub max_work: u64,
    /// Wall-clock budget in seconds (default: none).
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub timeout: Option<Duration>,
    /// Memory budget for global memory (the buffer arguments): bytes, or with a K/M/G/T
    /// suffix (powers of 1024).
    #[arg(long, default_value = "8G", value_name = "SIZE", value_parser = parse_size)]
    pub max_memory: u64,
    /// Numeric policy: `hw` (the chip's own numerics) or `pto-cpu-sim` (the public pto-isa
    /// CPU simulator as its CMake builds it: C++ min/max, TROWSUM in 4 lanes x 2 interleaved
    /// partial sums, matmul accumulator added after the K loop, TDIVS as a real division).
    #[arg(long, default_value = "hw", value_name = "POLICY", value_parser = parse_policy)]
    pub policy: PolicyName,
    /// Writes a Chrome / Perfetto trace-event JSON file of the run: one track per core and
    /// pipe, one slice per executed instruction, arrows from each set_flag/record_event to its
    /// wait. Times are an ESTIMATE from a simple cost model, not cycles.
    #[arg(long, value_name = "FILE.json")]
    pub trace: Option<PathBuf>,
    /// Prints per-op counts, bytes and estimated time (the trace's cost model) to stderr.
    #[arg(long)]
    pub stats: bool,
    /// Writes the `--stats` table as JSON to FILE.
    #[arg(long, value_name = "FILE.json")]
    pub stats_json: Option<PathBuf>,
    /// Sync-hazard checker (default warn): reports reads and writes of one on-chip byte range
    /// by two pipes with no set/wait flag or barrier between them (they race on the chip
    /// though npusim, running in order, gets them right). `warn` prints and runs on, `error`
    /// fails the run without writing outputs. Kernels without sync ops (PTOAS auto-sync input)
    /// are not checked.
    #[arg(long, value_enum, value_name = "MODE")]
    pub hazards: Option<HazardMode>,
    /// Writes an SVG access diagram of each of the first K executed tile instructions
    /// (`--svg-count`) to DIR: every tile operand with its run-time address, shape and valid
    /// region, read or written (`npusim explain` draws single instructions element by element).
    #[arg(long, value_name = "DIR")]
    pub svg: Option<PathBuf>,
    /// How many tile instructions `--svg` draws (at most 256).
    #[arg(long, value_name = "K", default_value_t = 8,
          value_parser = clap::value_parser!(u16).range(1..=256))]
    pub svg_count: u16,
}

/// `--hazards`: what the sync-hazard checker does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum HazardMode {
    /// No check.
    Off,
    /// Print hazards as warnings and run on (the default).
    Warn,
    /// Print hazards as errors and fail the run (no output written).
    Error,
}

fn parse_policy(s: &str) -> Result<PolicyName, String> {
    PolicyName::parse(s).ok_or_else(|| {
        format!(
            "unknown policy `{s}`; policies: {}",
            PolicyName::NAMES.join(", ")
        )
    })
}

fn parse_target(s: &str) -> Result<TargetArch, String> {
    let pto = [TargetArch::A2A3, TargetArch::A5];
    let names = || {
        npusim_core::chip::PROFILES
            .iter()
            .filter(|p| pto.iter().any(|t| t.chip() == p.id))
            .flat_map(|p| std::iter::once(p.name).chain(p.aliases.iter().copied()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match npusim_core::ChipProfile::by_name(s) {
        Some(p) => pto.into_iter().find(|t| t.chip() == p.id).ok_or_else(|| {
            format!(
                "chip `{}` has no PTO tile target; PTO targets: {}",
                p.name,
                names()
            )
        }),
        None => Err(format!("unknown chip `{s}`; PTO targets: {}", names())),
    }
}

fn parse_level(s: &str) -> Result<PtoLevel, String> {
    PtoLevel::from_name(s).ok_or_else(|| {
        format!(
            "invalid --pto-level `{s}`: expected {}",
            PtoLevel::NAMES.join(", ")
        )
    })
}

fn parse_seconds(s: &str) -> Result<Duration, String> {
    let v: f64 = s
        .parse()
        .map_err(|_| format!("`{s}` is not a number of seconds"))?;
    Duration::try_from_secs_f64(v).map_err(|_| format!("`{s}` is not a valid duration"))
}

fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (num, shift) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let sh = match c.to_ascii_uppercase() {
                'K' => 10,
                'M' => 20,
                'G' => 30,
                'T' => 40,
                'B' => 0,
                _ => return Err(format!("`{s}`: unknown size suffix (use K, M, G or T)")),
            };
            (&t[..i], sh)
        }
        _ => (t, 0),
    };
    num.parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(1u64 << shift))
        .ok_or_else(|| format!("`{s}` is not a size (e.g. 512M, 8G)"))
}

/// `npusim check KERNEL.pto`
#[derive(Args, Debug)]
#[command(after_help = "Examples:\n  \
npusim check examples/pto/row_softmax.pto\n  \
npusim check kernel.pto --target a5\n\n\
Parses, verifies and lowers the kernel without running it; errors are printed rustc-style with\n\
file:line:col. Ops that `npusim run` cannot execute are errors (warnings with\n\
--allow-unsupported).")]
pub struct CheckArgs {
    /// The kernel file (PTOAS MLIR text).
    pub kernel: PathBuf,
    /// Target: a chip name or alias from `npusim chips` with a PTO tile unit.
    #[arg(long, value_parser = parse_target, value_name = "CHIP")]
    pub target: Option<TargetArch>,
    /// ptoas's build level (`level1`, `level2` or `level3`, as `ptoas --pto-level`; ptoas's
    /// default is level2): checks that level's rules (level3: every `pto.alloc_tile` gives
    /// `addr`; level1/2: no `addr`, no `pto.tassign`). Without it no level rule is checked.
    #[arg(long, value_parser = parse_level, value_name = "LEVEL")]
    pub pto_level: Option<PtoLevel>,
    /// Report ops that `run` cannot execute as warnings instead of errors.
    #[arg(long)]
    pub allow_unsupported: bool,
}

/// Parses and lowers; on failure prints the diagnostics and returns `None`.
fn load(
    src: &str,
    file: &str,
    target: Option<TargetArch>,
    pto_level: Option<PtoLevel>,
    policy: PolicyName,
) -> Option<(Module, Program, Duration, Duration)> {
    let t0 = Instant::now();
    let module = match parse_module_with(src, ParseOptions { target, pto_level }) {
        Ok(m) => m,
        Err(d) => {
            eprint!("{}", render_all(&d, file, src));
            eprintln!("\n{file}: {} error(s)", d.len());
            return None;
        }
    };
    let t1 = Instant::now();
    let prog = match lower(&module, LowerOptions { target, policy }) {
        Ok(p) => p,
        Err(d) => {
            eprint!("{}", render_all(&d, file, src));
            eprintln!("\n{file}: {} error(s)", d.len());
            return None;
        }
    };
    Some((module, prog, t1 - t0, t1.elapsed()))
}

fn split_kv<'a>(s: &'a str, flag: &str) -> Result<(&'a str, &'a str)> {
    match s.split_once('=') {
        Some((k, v)) if !k.is_empty() => Ok((k.trim_start_matches('%'), v)),
        _ => bail!("`{flag} {s}`: expected NAME=VALUE"),
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Where one `--out` goes.
enum Dest {
    Stdout,
    File(PendingFile),
}

/// A temporary file beside its destination; removed on drop unless committed.
struct PendingFile {
    final_path: PathBuf,
    tmp: PathBuf,
    file: Option<File>,
}

impl Drop for PendingFile {
    fn drop(&mut self) {
        if self.file.is_some() {
            self.file = None;
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// Follows symlinks to the file they name (numpy's `open` writes through them).
fn resolve_symlinks(p: &Path) -> Result<PathBuf> {
    let mut p = p.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let t = std::fs::read_link(&p)
                    .with_context(|| format!("cannot read link {}", p.display()))?;
                p = match p.parent() {
                    Some(d) if t.is_relative() => d.join(t),
                    _ => t,
                };
            }
            _ => return Ok(p),
        }
    }
    bail!("{}: too many levels of symbolic links", p.display())
}

/// Checks an output path and opens its temporary file (before the run).
fn prepare_output(path: &Path) -> Result<PendingFile> {
    let final_path = resolve_symlinks(path)?;
    if final_path.is_dir() {
        bail!("{} is a directory", final_path.display());
    }
    let name = final_path
        .file_name()
        .with_context(|| format!("{} names no file", final_path.display()))?;
    let dir = match final_path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if !dir.is_dir() {
        bail!("folder {} does not exist", dir.display());
    }
    static SEQ: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = dir.join(format!(
        ".{}.{}.{n}.npusim-tmp",
        name.to_string_lossy(),
        std::process::id()
    ));
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .with_context(|| format!("cannot create a file in {}", dir.display()))?;
    Ok(PendingFile {
        final_path,
        tmp,
        file: Some(file),
    })
}

/// Progress on stderr, at most 10 times a second.
fn show_progress(p: &Progress) {
    use std::sync::atomic::{AtomicU64, Ordering};
    static LAST_MS: AtomicU64 = AtomicU64::new(0);
    let ms = p.elapsed.as_millis() as u64;
    if ms < 500 || ms < LAST_MS.load(Ordering::Relaxed) + 100 {
        return;
    }
    LAST_MS.store(ms, Ordering::Relaxed);
    eprint!(
        "\r{} steps, block {}/{} done, {:.1} s elapsed ",
        p.steps,
        p.blocks_done,
        p.blocks,
        p.elapsed.as_secs_f64()
    );
}

/// Whether array dimensions `a` (1s removed) are the view dimensions `v` (static 1s removed)
/// in order, each `None` (`?`) taking one dimension of any size or none (a 1).
fn dims_fit(v: &[Option<u64>], a: &[u64]) -> bool {
    match v.split_first() {
        None => a.is_empty(),
        Some((None, rest)) => dims_fit(rest, a) || (!a.is_empty() && dims_fit(rest, &a[1..])),
        Some((Some(d), rest)) => a.first() == Some(d) && dims_fit(rest, &a[1..]),
    }
}

/// Calls `f` on every op of `block` and of the regions nested in it.
fn for_each_op<'a>(block: &'a Block, f: &mut impl FnMut(&'a npusim_ptoas::Op)) {
    for op in &block.ops {
        f(op);
        match &op.kind {
            OpKind::For { body, .. } | OpKind::Section { body, .. } => for_each_op(body, f),
            OpKind::If {
                then_body,
                else_body,
                ..
            } => {
                for_each_op(then_body, f);
                for_each_op(else_body, f);
            }
            OpKind::While { before, after, .. } => {
                for_each_op(before, f);
                for_each_op(after, f);
            }
            _ => {}
        }
    }
}

/// The functions that could be the kernel (`Module::entry_candidates`: the functions marked
/// `pto.entry`, else the only defined one, else every defined function that no function calls).
/// More than one without `--func` is an error (the module does not say which to run).
fn entry_candidates(m: &Module) -> Vec<&Func> {
    m.entry_candidates()
        .into_iter()
        .map(|id| m.func(id))
        .collect()
}

/// The function `run` will run, if the module has it.
fn run_func<'a>(m: &'a Module, func: Option<&str>) -> Option<&'a Func> {
    let id = match func {
        Some(n) => m.func_by_name(n.trim_start_matches('@'))?,
        None => m.entry()?,
    };
    m.funcs.get(id.0 as usize)
}

/// Range check of a scalar `--arg` against its parameter's type, before the run.
///
/// Floats: a value that rounds to infinity in the parameter's type (`1e999`, or `1e39` for
/// f32) is an error; NaN and infinities are accepted when written as such (`nan`, `inf`,
/// `-inf`), with a warning (returned). Integers: decimal literals must lie in the type's
/// signed range (`index` is 64-bit; MLIR's loop bounds and `index` arithmetic are signed), a
/// hexadecimal literal (`0x...`) gives a bit pattern of at most the type's width. Text that is
/// not a number at all is left to the binding, which reports it.
fn check_scalar(name: &str, t: ScalarType, text: &str) -> Result<Option<String>> {
    let s = text.trim();
    let tn = t.name();
    if t.is_float() {
        let Ok(v) = s.parse::<f64>() else {
            return Ok(None);
        };
        let word = s.to_ascii_lowercase();
        let word = word.trim_start_matches(['+', '-']);
        let named = word == "nan" || word == "inf" || word == "infinity";
        if v.is_nan() || (v.is_infinite() && named) {
            return Ok(Some(format!(
                "--arg {name}={s}: `%{name}` ({tn}) gets {}; the kernel computes with it as given",
                if v.is_nan() {
                    "NaN"
                } else if v > 0.0 {
                    "+infinity"
                } else {
                    "-infinity"
                }
            )));
        }
        let (overflows, max) = match t {
            ScalarType::F16 => (
                half::f16::from_f64(v).is_infinite(),
                f32::from(half::f16::MAX),
            ),
            ScalarType::Bf16 => (
                half::bf16::from_f64(v).is_infinite(),
                f32::from(half::bf16::MAX),
            ),
            _ => ((v as f32).is_infinite(), f32::MAX),
        };
        if overflows {
            bail!(
                "--arg {name}={s}: the value overflows `%{name}`'s type {tn} (finite range \
                 -{max:e}..={max:e}); write `inf` or `-inf` to pass an infinity on purpose"
            );
        }
        return Ok(None);
    }
    let width = match t {
        ScalarType::I8 => 8u32,
        ScalarType::I16 => 16,
        ScalarType::I32 => 32,
        ScalarType::I64 | ScalarType::Index => 64,
        _ => return Ok(None),
    };
    let (lo, hi) = (-(1i128 << (width - 1)), (1i128 << (width - 1)) - 1);
    let range = || {
        format!(
            "{lo}..={hi} (or a bit pattern 0x0..=0x{:x})",
            (1u128 << width) - 1
        )
    };
    let hex = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X"));
    let digits = |d: &str, hex: bool| {
        !d.is_empty()
            && d.chars().all(|c| {
                if hex {
                    c.is_ascii_hexdigit()
                } else {
                    c.is_ascii_digit()
                }
            })
    };
    let in_range = match hex {
        Some(h) if digits(h, true) => {
            u128::from_str_radix(h, 16).is_ok_and(|v| v < (1u128 << width))
        }
        Some(_) => return Ok(None),
        None => {
            let d = s.strip_prefix(['+', '-']).unwrap_or(s);
            if !digits(d, false) {
                return Ok(None);
            }
            s.parse::<i128>().is_ok_and(|v| (lo..=hi).contains(&v))
        }
    };
    if !in_range {
        bail!(
            "--arg {name}={s}: out of range for `%{name}` ({tn}): decimal values must lie in {}",
            range()
        );
    }
    Ok(None)
}

/// Checks a `.npy` input's shape against the tensor views the kernel makes directly from its
/// pointer parameter, where the kernel fixes the shape.
///
/// The rule: a `pto.make_tensor_view` of the parameter itself, in row-major (`nd` or no)
/// layout, whose strides are the contiguous row-major strides of its shape (all known), and
/// which has at least one fixed size (a static dimension in its type, or a constant size
/// operand) other than 1s, describes the whole array. Dimensions of size 1 are ignored on
/// both sides (they do not change a row-major layout); then the array's dimensions must be
/// the view's, in order: a fixed size exactly, a `?` any size (or 1, i.e. absent). So a view
/// `?x256` takes (64, 256), (1, 64, 256), (1, 256) and (64, 256, 1), not (4, 16, 256) or
/// (128, 128). A 1-D array is a flat buffer and always taken (PTOAS's validation flow hands
/// kernels flat `.bin` files). With several such views, one must fit. Views of offset pointers, strided or column-major views, fully dynamic views and
/// views made in called functions are not checked (the kernel's bounds checks still apply
/// when it runs).
fn check_shape(f: &Func, name: &str, shape: &[usize], src: &str) -> Result<()> {
    // A 1-D array is a flat buffer, as PTOAS's own validation hands kernels their `.bin`
    // inputs: always taken (its byte count is checked at binding).
    if shape.len() <= 1 {
        return Ok(());
    }
    let Some(pid) = f.params.iter().copied().find(|&p| f.value(p).name == name) else {
        return Ok(());
    };
    let Some(body) = &f.body else {
        return Ok(());
    };
    let known = |v: &npusim_ptoas::ValueId| {
        f.values
            .get(v.index())
            .and_then(|i| i.const_int)
            .and_then(|c| u64::try_from(c).ok())
    };
    // (fixed sizes per dimension, the view's type, the op's span)
    let mut views: Vec<(Vec<Option<u64>>, String, npusim_ptoas::Span)> = Vec::new();
    for_each_op(body, &mut |op| {
        let OpKind::MakeTensorView {
            result,
            ptr,
            shape: sizes,
            strides,
            layout,
        } = &op.kind
        else {
            return;
        };
        if *ptr != pid || !matches!(layout, None | Some(GmLayout::Nd)) {
            return;
        }
        let Some(Type::TensorView(vt)) = f.values.get(result.index()).map(|v| &v.ty) else {
            return;
        };
        let dims: Vec<Option<u64>> = vt
            .shape
            .iter()
            .enumerate()
            .map(|(i, d)| match d {
                Dim::Static(n) => Some(*n),
                Dim::Dynamic => sizes.get(i).and_then(known),
            })
            .collect();
        if strides.len() != dims.len() || dims.is_empty() {
            return;
        }
        let mut expect = Some(1u64);
        for i in (0..dims.len()).rev() {
            if strides.get(i).and_then(known) != expect || expect.is_none() {
                return;
            }
            expect = dims[i].and_then(|d| expect.and_then(|e| e.checked_mul(d)));
        }
        if dims.iter().filter(|d| **d != Some(1)).all(Option::is_none) {
            return;
        }
        views.push((dims, format!("{}", Type::TensorView(vt.clone())), op.span));
    });
    if views.is_empty() {
        return Ok(());
    }
    let got: Vec<u64> = shape
        .iter()
        .map(|&d| d as u64)
        .filter(|&d| d != 1)
        .collect();
    let fits = |dims: &[Option<u64>]| {
        let want: Vec<Option<u64>> = dims.iter().copied().filter(|d| *d != Some(1)).collect();
        dims_fit(&want, &got)
    };
    if views.iter().any(|(d, _, _)| fits(d)) {
        return Ok(());
    }
    let show = |dims: &[Option<u64>]| {
        let parts: Vec<String> = dims
            .iter()
            .map(|d| d.map_or_else(|| "?".to_string(), |n| n.to_string()))
            .collect();
        format!(
            "({}{})",
            parts.join(", "),
            if parts.len() == 1 { "," } else { "" }
        )
    };
    let actual = format!(
        "({}{})",
        shape
            .iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join(", "),
        if shape.len() == 1 { "," } else { "" }
    );
    let expected = views
        .iter()
        .map(|(d, ty, span)| {
            let line = src
                .get(..span.start)
                .map_or(0, |p| p.matches('\n').count() + 1);
            format!("{} ({}-D, {ty}, line {line})", show(d), d.len())
        })
        .collect::<Vec<_>>()
        .join(" or ");
    bail!(
        "--arg {name}: the array's shape {actual} ({}-D) does not fit the kernel's view of `%{name}`: expected shape {expected}; `?` takes any size, dimensions of size 1 are ignored",
        shape.len()
    )
}

/// Runs a kernel.
pub fn run(args: RunArgs) -> Result<bool> {
    let path = &args.kernel;
    let src = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read kernel {}", path.display()))?;
    let file = path.display().to_string();
    let Some((module, prog, t_parse, t_lower)) =
        load(&src, &file, args.target, args.pto_level, args.policy)
    else {
        return Ok(false);
    };
    let report = |e: RunError| {
        eprint!("{}", e.render(&file, &src));
        false
    };
    let func = args.func.as_deref();
    if func.is_none() {
        let entries = entry_candidates(&module);
        if entries.len() > 1 {
            bail!(
                "{file}: {} functions could be the kernel to run: {}; pick one with `--func NAME`",
                entries.len(),
                entries
                    .iter()
                    .map(|f| format!("@{}", f.name))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
    }
    let params = match prog.params(func) {
        Ok(p) => p,
        Err(e) => return Ok(report(e)),
    };
    let kind = |n: &str| params.iter().find(|(p, _)| p == n).map(|(_, k)| k.clone());
    let mut host = Vec::new();
    for a in &args.args {
        let (name, value) = split_kv(a, "--arg")?;
        let v = match kind(name) {
            Some(ParamInfo::Pointer(_)) if !value.is_empty() => {
                let p = PathBuf::from(value);
                let header =
                    read_npy_header(&p).with_context(|| format!("--arg {name}: cannot read"))?;
                if let Some(f) = run_func(&module, func) {
                    check_shape(f, name, &header.shape, &src)?;
                }
                HostArg::NpyFile { path: p, header }
            }
            Some(ParamInfo::Scalar(t)) => {
                if let Some(w) = check_scalar(name, t, value)? {
                    eprintln!("warning: {w}");
                }
                HostArg::Scalar(value.to_string())
            }
            _ => HostArg::Scalar(value.to_string()),
        };
        host.push((name.to_string(), v));
    }
    let case = match &args.case {
        Some(dir) => {
            let c = crate::pto_case::Case::read(dir)?;
            let given: Vec<String> = host.iter().map(|(k, _)| k.clone()).collect();
            host.extend(c.bind(&params, &given)?);
            Some(c)
        }
        None => None,
    };
    // Every output is checked, and its temporary file created, before the run.
    let mut outs: Vec<(String, Dest)> = Vec::new();
    for o in &args.outs {
        let (name, file) = split_kv(o, "--out")?;
        match kind(name) {
            Some(ParamInfo::Pointer(_)) => {}
            Some(_) => bail!("--out {name}: `%{name}` is not a pointer parameter"),
            None => bail!(
                "--out {name}: the function has no parameter `%{name}` (parameters: {})",
                params
                    .iter()
                    .map(|(p, _)| p.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
        let Some(input) = host
            .iter()
            .find(|(k, _)| k == name)
            .and_then(|(_, a)| match a {
                HostArg::NpyFile { header, .. } => Some(header),
                _ => None,
            })
        else {
            bail!("--out {name}: give the buffer's input with `--arg {name}=FILE.npy` too");
        };
        npy_header_bytes(input.dtype, &input.shape).with_context(|| format!("--out {name}"))?;
        let dest = if file == "-" {
            if outs.iter().any(|(_, d)| matches!(d, Dest::Stdout)) {
                bail!("--out {name}=-: only one output can go to stdout");
            }
            Dest::Stdout
        } else {
            let pf = prepare_output(Path::new(file))
                .with_context(|| format!("--out {name}: cannot write {file}"))?;
            for (other, d) in &outs {
                if let Dest::File(q) = d
                    && q.final_path == pf.final_path
                {
                    bail!(
                        "--out {name} and --out {other} both write {}",
                        pf.final_path.display()
                    );
                }
            }
            Dest::File(pf)
        };
        outs.push((name.to_string(), dest));
    }
    let cfg = RunConfig {
        blocks: args.blocks,
        max_steps: args.max_steps,
        max_work: args.max_work,
        timeout: args.timeout,
        max_memory: args.max_memory,
        progress: std::io::stderr()
            .is_terminal()
            .then_some(show_progress as fn(&Progress)),
        trace: args.trace.is_some()
            || args.stats
            || args.stats_json.is_some()
            || args.svg.is_some(),
        // Prints go to stdout as they happen, or to stderr when an output goes to stdout.
        on_print: Some(if outs.iter().any(|(_, d)| matches!(d, Dest::Stdout)) {
            print_to_stderr as fn(&PrintRec)
        } else {
            print_to_stdout
        }),
        threads: args.threads,
    };
    let _ = PRINT_SOURCE.set((file.clone(), src.clone()));
    let t2 = Instant::now();
    // The hazard check records every block in order, so a multi-threaded run turns the
    // default check off (an explicit `--hazards` keeps it and runs the blocks in order).
    let hazards = args.hazards.unwrap_or(if args.threads > 1 {
        HazardMode::Off
    } else {
        HazardMode::Warn
    });
    let result = match hazards {
        HazardMode::Off => prog.run(func, &host, &cfg),
        _ => prog.run_checked(func, &host, &cfg, &src),
    };
    if cfg.progress.is_some() && t2.elapsed() > Duration::from_millis(500) {
        eprint!("\r\x1b[K");
    }
    let outcome = match result {
        Ok(o) => o,
        Err(e) => return Ok(report(e)),
    };
    let t_exec = t2.elapsed();
    if let Some(why) = &outcome.schedule.fallback {
        eprintln!(
            "note: --threads {}: {why}; the blocks ran in order on one thread",
            args.threads
        );
    }
    if let Some(h) = &outcome.hazards {
        if let (Some(why), Some(_)) = (&h.skipped, args.hazards) {
            eprintln!("note: sync-hazard check skipped: {why}");
        }
        if !h.is_clean() {
            let error = hazards == HazardMode::Error;
            let sev = if error { "error" } else { "warning" };
            eprint!("{}", h.render(&file, &src, sev));
            eprintln!(
                "\n{sev}: {file}: {} sync hazard(s): the kernel can race or hang on the chip (npusim runs it in order){}",
                h.hazards.len(),
                if error {
                    "; no output written"
                } else {
                    "; `--hazards=error` fails on them"
                }
            );
            if error {
                return Ok(false);
            }
        }
    }
    if let (Some(tp), Some(rec)) = (&args.trace, &outcome.trace) {
        std::fs::write(tp, rec.chrome_json(&prog, &file, &src))
            .with_context(|| format!("--trace: cannot write {}", tp.display()))?;
        eprintln!("wrote trace {} (times are estimates)", tp.display());
    }
    if let (Some(dir), Some(rec)) = (&args.svg, &outcome.trace) {
        let files =
            crate::run_svg::write_all(dir, usize::from(args.svg_count), &prog, rec, &file, &src)?;
        eprintln!(
            "wrote {} access diagram(s) to {}",
            files.len(),
            dir.display()
        );
    }
    if let Some(rec) = outcome
        .trace
        .as_ref()
        .filter(|_| args.stats || args.stats_json.is_some())
    {
        let st = rec.op_stats(&prog, &src);
        if args.stats {
            eprint!("{}", npusim_ptoas::interp::trace::stats_table(&st));
        }
        if let Some(sp) = &args.stats_json {
            std::fs::write(sp, npusim_ptoas::interp::trace::stats_json(&st))
                .with_context(|| format!("--stats-json: cannot write {}", sp.display()))?;
        }
    }
    write_outputs(&outcome, &mut outs, args.threads)?;
    if let Some(c) = &case {
        for f in c.write_outputs(&params, &outcome)? {
            eprintln!("wrote {}", f.display());
        }
    }
    let to_stdout = outs.iter().any(|(_, d)| matches!(d, Dest::Stdout));
    let summary = summary(&args, &prog, &outcome, [t_parse, t_lower, t_exec], &outs);
    if to_stdout {
        eprint!("{summary}");
    } else {
        print!("{summary}");
    }
    Ok(true)
}

/// Writes every output into its temporary file, then renames them all; on any failure the
/// temporary files are removed and no destination is touched. A large output is written in
/// parts on `threads` threads (see [`write_file`]).
fn write_outputs(o: &RunOutcome, outs: &mut [(String, Dest)], threads: u32) -> Result<()> {
    let mut stdout_img: Option<(Vec<u8>, &[u8])> = None;
    for (name, dest) in outs.iter_mut() {
        let v = o
            .buffer_view(name)
            .with_context(|| format!("--out {name}: no buffer"))?;
        let header = npy_header_bytes(v.dtype, v.shape).with_context(|| format!("--out {name}"))?;
        match dest {
            Dest::Stdout => stdout_img = Some((header, v.data)),
            Dest::File(pf) => {
                let f = pf.file.as_mut().context("output already written")?;
                // No fsync: the rename makes the set of outputs all or nothing for readers and
                // against a failed run; durability across a power loss is left to the file
                // system, as numpy's `np.save` does (an fsync cost up to several ms a file).
                let r = write_file(f, &header, v.data, threads);
                r.with_context(|| format!("--out {name}: cannot write {}", pf.tmp.display()))?;
            }
        }
    }
    for (name, dest) in outs.iter_mut() {
        if let Dest::File(pf) = dest {
            // An existing file is removed first: see `npusim_core::npy::replace_file` for why.
            npusim_core::npy::replace_file(&pf.tmp, &pf.final_path).with_context(|| {
                format!(
                    "--out {name}: cannot rename into {}",
                    pf.final_path.display()
                )
            })?;
            pf.file = None;
        }
    }
    if let Some((h, d)) = stdout_img {
        let mut out = std::io::stdout().lock();
        out.write_all(&h)
            .and_then(|_| out.write_all(d))
            .and_then(|_| out.flush())
            .context("cannot write to stdout")?;
    }
    Ok(())
}

/// Writes `header` then `data` at the start of the new, empty file `f`. With several threads
/// and a large `data` (Unix), the parts of `data` are written at their offsets on up to
/// `threads` threads: copying 4 MiB into the page cache took about 1 ms on one thread here,
/// as long as half the blocks of the softmax benchmark that `--threads 2` runs in parallel.
fn write_file(f: &mut File, header: &[u8], data: &[u8], threads: u32) -> std::io::Result<()> {
    /// Below this many data bytes, one `write` on the calling thread.
    const SPLIT_MIN: usize = 2 << 20;
    #[cfg(unix)]
    if threads > 1 && data.len() >= SPLIT_MIN {
        use std::os::unix::fs::FileExt;
        let f = &*f;
        f.write_all_at(header, 0)?;
        // Parts of whole 4 KiB pages (of the data), one per thread.
        let part = data.len().div_ceil(threads as usize).next_multiple_of(4096);
        let at = header.len() as u64;
        return std::thread::scope(|s| {
            let mut parts = data.chunks(part).enumerate();
            let first = parts.next();
            let hs: Vec<_> = parts
                .map(|(i, c)| s.spawn(move || f.write_all_at(c, at + (i * part) as u64)))
                .collect();
            let mine = first.map_or(Ok(()), |(_, c)| f.write_all_at(c, at));
            hs.into_iter().fold(mine, |acc, h| {
                let r = h.join().unwrap_or_else(|_| {
                    Err(std::io::Error::other("a thread writing the output stopped"))
                });
                acc.and(r)
            })
        });
    }
    let _ = threads;
    f.write_all(header)?;
    f.write_all(data)
}

fn summary(
    args: &RunArgs,
    prog: &Program,
    o: &RunOutcome,
    [tp, tl, te]: [Duration; 3],
    outs: &[(String, Dest)],
) -> String {
    use std::fmt::Write as _;
    let mut w = String::new();
    let s = &o.stats;
    let _ = writeln!(
        w,
        "ran {} on {}{}: {} block(s), {} instructions executed",
        args.kernel.display(),
        prog.target().name(),
        match args.policy {
            PolicyName::Hw => String::new(),
            p => format!(" (policy {})", p.name()),
        },
        s.blocks,
        s.steps
    );
    for (name, n) in &s.per_op {
        let _ = writeln!(w, "  {name:<24} {n:>10}");
    }
    let _ = writeln!(
        w,
        "GM -> on-chip: {} bytes, on-chip -> GM: {} bytes",
        s.gm_to_chip, s.chip_to_gm
    );
    let total = tp + tl + te;
    let _ = writeln!(
        w,
        "time: parse+verify {:.3} ms, lower {:.3} ms, execute {:.3} ms, total {:.3} ms (execute {:.0}%)",
        ms(tp),
        ms(tl),
        ms(te),
        ms(total),
        100.0 * te.as_secs_f64() / total.as_secs_f64().max(1e-12)
    );
    for (name, dest) in outs {
        if let Some(a) = o.buffer_view(name) {
            let to = match dest {
                Dest::Stdout => "stdout".to_string(),
                Dest::File(pf) => pf.final_path.display().to_string(),
            };
            let _ = writeln!(
                w,
                "wrote %{name} to {to} ({:?} {})",
                a.shape,
                a.dtype.numpy_name()
            );
        }
    }
    w
}

/// Parses and verifies a kernel.
pub fn check(args: CheckArgs) -> Result<bool> {
    let path = &args.kernel;
    let src = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read kernel {}", path.display()))?;
    let file = path.display().to_string();
    let Some((_, prog, tp, tl)) = load(&src, &file, args.target, args.pto_level, PolicyName::Hw)
    else {
        return Ok(false);
    };
    for (span, what) in prog.unsupported() {
        let op = src.get(span.start..span.end).unwrap_or("this op");
        let d = npusim_ptoas::Diagnostic::new(
            npusim_ptoas::DiagKind::UnknownOp,
            format!(
                "`{op}` cannot be executed by `npusim run` (not supported by the simulator yet)"
            ),
            *span,
        )
        .with_label("the run fails when it reaches this op")
        .with_help(*what);
        let text = d.render(&file, &src);
        if args.allow_unsupported {
            eprint!("{}", text.replacen("error:", "warning:", 1));
        } else {
            eprint!("{text}");
        }
    }
    if !prog.unsupported().is_empty() && !args.allow_unsupported {
        eprintln!(
            "\n{file}: {} op(s) that `npusim run` cannot execute (--allow-unsupported makes them warnings)",
            prog.unsupported().len()
        );
        return Ok(false);
    }
    println!(
        "{file}: ok ({} on {}, functions: {}; {} instructions after lowering; {:.3} ms parse+verify, {:.3} ms lower)",
        if prog.unsupported().is_empty() {
            "runs".to_string()
        } else {
            format!("{} unsupported op(s)", prog.unsupported().len())
        },
        prog.target().name(),
        prog.func_names()
            .iter()
            .map(|n| format!("@{n}"))
            .collect::<Vec<_>>()
            .join(", "),
        prog.instruction_count(),
        ms(tp),
        ms(tl)
    );
    Ok(true)
}

// ---------------------------------------------------------------------------------------------
// demo

/// A deterministic generator (xorshift64*), so the demo needs no input files.
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in [lo, hi), rounded to f32.
    fn uniform(&mut self, lo: f64, hi: f64) -> f32 {
        let u = (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        (lo + (hi - lo) * u) as f32
    }
    /// Roughly standard normal (Irwin-Hall of 12 uniforms), rounded to f32.
    fn normal(&mut self, scale: f64) -> f32 {
        let s: f64 = (0..12).map(|_| self.uniform(0.0, 1.0) as f64).sum();
        ((s - 6.0) * scale) as f32
    }
    fn vec(&mut self, n: usize, f: impl Fn(&mut Rng) -> f32) -> Vec<f32> {
        (0..n).map(|_| f(self)).collect()
    }
}

fn buf(shape: &[usize], v: &[f32]) -> HostArg {
    HostArg::Buffer(NpyArray::from_elems(shape.to_vec(), v))
}

fn sarg(name: &str, a: HostArg) -> (String, HostArg) {
    (name.to_string(), a)
}

/// Compares with `|got - want| <= atol + rtol * |want|`; returns (ok, max abs error).
fn compare(got: &[f32], want: &[f64], rtol: f64, atol: f64) -> (bool, f64) {
    let mut ok = got.len() == want.len();
    let mut worst = 0.0f64;
    for (g, w) in got.iter().zip(want) {
        let e = (*g as f64 - w).abs();
        worst = worst.max(if e.is_nan() { f64::INFINITY } else { e });
        ok &= e <= atol + rtol * w.abs();
    }
    (ok, worst)
}

struct DemoCase {
    name: &'static str,
    src: &'static str,
    blocks: u32,
    args: Vec<(String, HostArg)>,
    /// (output parameter, expected values)
    expect: Vec<(&'static str, Vec<f64>)>,
    rtol: f64,
    atol: f64,
    why: &'static str,
}

fn softmax_rows(x: &[f32], cols: usize) -> Vec<f64> {
    let mut out = Vec::with_capacity(x.len());
    for row in x.chunks(cols) {
        let m = row.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b as f64));
        let e: Vec<f64> = row.iter().map(|&v| (v as f64 - m).exp()).collect();
        let s: f64 = e.iter().sum();
        out.extend(e.iter().map(|v| v / s));
    }
    out
}

fn demo_cases() -> Vec<DemoCase> {
    let mut rng = Rng(0x5eed_0004_c0de_d00d);
    let mut cases = Vec::new();

    // vector_add: z = x + y, (64, 256).
    let (x, y) = (
        rng.vec(64 * 256, |r| r.normal(1.0)),
        rng.vec(64 * 256, |r| r.normal(1.0)),
    );
    let z: Vec<f64> = x
        .iter()
        .zip(&y)
        .map(|(a, b)| (*a as f64 + *b as f64) as f32 as f64)
        .collect();
    cases.push(DemoCase {
        name: "vector_add",
        src: include_str!("../examples/pto/vector_add.pto"),
        blocks: 1,
        args: vec![
            sarg("x", buf(&[64, 256], &x)),
            sarg("y", buf(&[64, 256], &y)),
            sarg("z", buf(&[64, 256], &vec![0.0; 64 * 256])),
            sarg("n_rows", HostArg::Scalar("64".into())),
        ],
        expect: vec![("z", z)],
        rtol: 0.0,
        atol: 0.0,
        why: "exact: one correctly rounded f32 add per element",
    });

    // row_softmax, (32, 1024).
    let x = rng.vec(32 * 1024, |r| r.normal(3.0));
    cases.push(DemoCase {
        name: "row_softmax",
        src: include_str!("../examples/pto/row_softmax.pto"),
        blocks: 1,
        expect: vec![("y", softmax_rows(&x, 1024))],
        args: vec![
            sarg("x", buf(&[32, 1024], &x)),
            sarg("y", buf(&[32, 1024], &vec![0.0; 32 * 1024])),
            sarg("n_rows", HostArg::Scalar("32".into())),
        ],
        rtol: 1e-5,
        atol: 1e-7,
        why: "f64 reference; the kernel rounds exp and the 1024-term sum to f32 (tree order)",
    });

    // rmsnorm, (32, 512).
    let x = rng.vec(32 * 512, |r| r.normal(1.0));
    let g = rng.vec(512, |r| r.uniform(0.5, 1.5));
    let eps = 1e-6f32;
    let mut want = Vec::with_capacity(x.len());
    for row in x.chunks(512) {
        let ms = row.iter().map(|v| (*v as f64).powi(2)).sum::<f64>() / 512.0;
        let inv = 1.0 / (ms + eps as f64).sqrt();
        want.extend(
            row.iter()
                .zip(&g)
                .map(|(v, gg)| *v as f64 * inv * *gg as f64),
        );
    }
    cases.push(DemoCase {
        name: "rmsnorm",
        src: include_str!("../examples/pto/rmsnorm.pto"),
        blocks: 1,
        args: vec![
            sarg("x", buf(&[32, 512], &x)),
            sarg("gamma", buf(&[1, 512], &g)),
            sarg("y", buf(&[32, 512], &vec![0.0; 32 * 512])),
            sarg("n_rows", HostArg::Scalar("32".into())),
            sarg("eps", HostArg::Scalar("1e-6".into())),
        ],
        expect: vec![("y", want)],
        rtol: 1e-5,
        atol: 1e-6,
        why: "f64 reference; the kernel sums 512 squares in f32 and rounds sqrt, recip, products",
    });

    // online_softmax_step.
    let scale = 0.125f64;
    let scores = rng.vec(16 * 128, |r| r.normal(4.0));
    let m_prev: Vec<f32> = scores
        .chunks(128)
        .map(|row| {
            let m = row.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b as f64));
            (scale * m + rng.uniform(-1.0, 1.0) as f64) as f32
        })
        .collect();
    let l_prev = rng.vec(16, |r| r.uniform(1.0, 50.0));
    let o_prev = rng.vec(16 * 64, |r| r.normal(1.0));
    let (mut p, mut m_new, mut l_new, mut o_out) = (vec![], vec![], vec![], vec![]);
    for (i, row) in scores.chunks(128).enumerate() {
        let s: Vec<f64> = row.iter().map(|v| scale * *v as f64).collect();
        let mn = s.iter().fold(m_prev[i] as f64, |a, &b| a.max(b));
        let pr: Vec<f64> = s.iter().map(|v| (v - mn).exp()).collect();
        let alpha = (m_prev[i] as f64 - mn).exp();
        l_new.push(alpha * l_prev[i] as f64 + pr.iter().sum::<f64>());
        m_new.push(mn);
        p.extend(pr);
        o_out.extend(
            o_prev[i * 64..(i + 1) * 64]
                .iter()
                .map(|v| alpha * *v as f64),
        );
    }
    cases.push(DemoCase {
        name: "online_softmax_step",
        src: include_str!("../examples/pto/online_softmax_step.pto"),
        blocks: 1,
        args: vec![
            sarg("scores", buf(&[16, 128], &scores)),
            sarg("m_prev", buf(&[16, 1], &m_prev)),
            sarg("l_prev", buf(&[16, 1], &l_prev)),
            sarg("o_prev", buf(&[16, 64], &o_prev)),
            sarg("p", buf(&[16, 128], &vec![0.0; 16 * 128])),
            sarg("m_new", buf(&[16, 1], &[0.0; 16])),
            sarg("l_new", buf(&[16, 1], &[0.0; 16])),
            sarg("o_out", buf(&[16, 64], &vec![0.0; 16 * 64])),
            sarg("scale", HostArg::Scalar("0.125".into())),
        ],
        expect: vec![
            ("p", p),
            ("m_new", m_new),
            ("l_new", l_new),
            ("o_out", o_out),
        ],
        rtol: 1e-5,
        atol: 1e-6,
        why: "f64 reference; the kernel rounds each exp and the row sums to f32",
    });

    // multicore_split over 3 blocks: y = relu(alpha * x + beta).
    let x = rng.vec(64 * 256, |r| r.normal(1.0));
    let (alpha, beta) = (1.5f32, -0.25f32);
    let want: Vec<f64> = x
        .iter()
        .map(|v| {
            let t = (*v as f64 * alpha as f64) as f32;
            ((t as f64 + beta as f64) as f32).max(0.0) as f64
        })
        .collect();
    cases.push(DemoCase {
        name: "multicore_split",
        src: include_str!("../examples/pto/multicore_split.pto"),
        blocks: 3,
        args: vec![
            sarg("x", buf(&[64, 256], &x)),
            sarg("y", buf(&[64, 256], &vec![0.0; 64 * 256])),
            sarg("n_rows", HostArg::Scalar("64".into())),
            sarg("alpha", HostArg::Scalar("1.5".into())),
            sarg("beta", HostArg::Scalar("-0.25".into())),
        ],
        expect: vec![("y", want)],
        rtol: 0.0,
        atol: 0.0,
        why: "exact: two correctly rounded f32 ops and a max per element",
    });
    cases
}

/// The PTO-AS part of `npusim demo`: runs every example kernel on generated inputs and
/// compares with a Rust f64 reference of its math.
pub fn demo() -> Result<bool> {
    let mut all = true;
    for c in demo_cases() {
        let file = format!("examples/pto/{}.pto", c.name);
        let Some((_, prog, _, _)) = load(c.src, &file, None, None, PolicyName::Hw) else {
            all = false;
            continue;
        };
        let cfg = RunConfig {
            blocks: c.blocks,
            ..RunConfig::default()
        };
        let t = Instant::now();
        let out = match prog.run(None, &c.args, &cfg) {
            Ok(o) => o,
            Err(e) => {
                eprint!("{}", e.render(&file, c.src));
                all = false;
                continue;
            }
        };
        let dt = t.elapsed();
        println!(
            "{} ({} block(s), {} instructions, {:.2} ms)",
            c.name,
            c.blocks,
            out.stats.steps,
            ms(dt)
        );
        let mut ok_all = true;
        for (name, want) in &c.expect {
            let got = out
                .buffer(name)
                .and_then(|a| a.to_elems::<f32>())
                .unwrap_or_default();
            let (ok, worst) = compare(&got, want, c.rtol, c.atol);
            println!(
                "  {name}: {} elements, max abs error {worst:.3e} (tolerance rtol {:e}, atol {:e})",
                want.len(),
                c.rtol,
                c.atol
            );
            ok_all &= ok;
        }
        println!("  tolerance: {}", c.why);
        println!(
            "  matches the Rust reference: {}",
            if ok_all { "yes" } else { "NO" }
        );
        all &= ok_all;
    }
    Ok(all)
}

/// The kernel file name and source the print callbacks tag prints with (one kernel per run).
static PRINT_SOURCE: std::sync::OnceLock<(String, String)> = std::sync::OnceLock::new();

/// A kernel print as the CLI shows it: `[block B file:line] text`.
fn print_line(p: &PrintRec) -> String {
    let tag = PRINT_SOURCE
        .get()
        .map_or_else(|| format!("[block {}]", p.block), |(f, s)| p.tag(f, s));
    let nl = if p.text.ends_with('\n') { "" } else { "\n" };
    format!("{tag} {}{nl}", p.text)
}

fn print_to_stdout(p: &PrintRec) {
    print!("{}", print_line(p));
}

fn print_to_stderr(p: &PrintRec) {
    eprint!("{}", print_line(p));
}
