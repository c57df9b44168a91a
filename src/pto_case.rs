//! `npusim run KERNEL.pto --case DIR`: a PTOAS sample case directory, run as a board runs it.
//!
//! PTOAS validates each sample (hw-native-sys/PTOAS `test/samples/<Op>/`) in a directory holding
//! the kernel's inputs as raw `.bin` files, a generated `main.cpp` and `outputs.txt`; its golden
//! and compare scripts (through `test/samples/validation_runtime.py`) read the same files. The
//! facts used here, all from that runtime's reading of `main.cpp`:
//! - `size_t elemCount_vK = N;` and `size_t fileSize_vK = elemCount_vK * sizeof(T);` give the
//!   element count and host type of buffer `vK`;
//! - `ReadFile("./vK.bin", ...)` lines name the buffers the host reads, in kernel parameter order;
//! - `T vK = LITERAL;` gives a scalar argument;
//! - `outputs.txt` lists the buffers written back after the run, one name a line.
//!
//! Parameter `K` (1-based) of the kernel is `vK`, as PTOAS's EmitC output names them. A buffer
//! parameter takes `DIR/vK.bin` (raw little-endian elements of the pointer's type); a scalar
//! takes its `main.cpp` literal. After the run each output buffer is written back to
//! `DIR/vK.bin` (through a temporary file and a rename), where the compare script reads it.

use anyhow::{Context, Result, bail};
use npusim_core::NpyArray;
use npusim_ptoas::interp::{HostArg, ParamInfo, RunOutcome};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// What a case directory's `main.cpp` and `outputs.txt` say.
#[derive(Debug, Default)]
pub struct Case {
    /// The directory.
    pub dir: PathBuf,
    /// `elemCount_vK` per buffer name.
    pub counts: HashMap<String, u64>,
    /// `sizeof(T)` host type per buffer name.
    pub host_types: HashMap<String, String>,
    /// Buffers the host reads, in order.
    pub reads: Vec<String>,
    /// Scalar literals per name.
    pub scalars: HashMap<String, String>,
    /// Buffers written back after the run.
    pub outputs: Vec<String>,
}

/// Size in bytes of a host C type PTOAS's runtime knows.
fn host_size(t: &str) -> Option<u64> {
    Some(match t.trim() {
        "bool" | "int8_t" | "uint8_t" => 1,
        "aclFloat16" | "half" | "bfloat16_t" | "int16_t" | "uint16_t" => 2,
        "float" | "int" | "int32_t" | "uint32_t" | "unsigned" => 4,
        "double" | "int64_t" | "uint64_t" | "size_t" => 8,
        _ => return None,
    })
}

/// The word after `prefix` up to the first character not in `[A-Za-z0-9_]`.
fn ident_after<'a>(s: &'a str, prefix: &str) -> Option<(&'a str, &'a str)> {
    let rest = s.strip_prefix(prefix)?;
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    if end == 0 {
        return None;
    }
    Some((&rest[..end], &rest[end..]))
}

impl Case {
    /// Reads `DIR/main.cpp` and `DIR/outputs.txt` (which may be absent: no outputs).
    pub fn read(dir: &Path) -> Result<Case> {
        let main = dir.join("main.cpp");
        let text = std::fs::read_to_string(&main)
            .with_context(|| format!("--case: cannot read {}", main.display()))?;
        let mut c = Case {
            dir: dir.to_path_buf(),
            ..Case::default()
        };
        for raw in text.lines() {
            let line = raw.trim();
            if let Some((name, rest)) = ident_after(line, "size_t elemCount_") {
                let n = rest
                    .trim()
                    .strip_prefix('=')
                    .and_then(|r| r.trim().strip_suffix(';'))
                    .and_then(|r| r.trim().parse::<u64>().ok());
                if let Some(n) = n {
                    c.counts.insert(name.to_string(), n);
                }
            } else if let Some((name, rest)) = ident_after(line, "size_t fileSize_") {
                if let Some(t) = rest
                    .split_once("sizeof(")
                    .and_then(|(_, r)| r.split_once(')'))
                    .map(|(t, _)| t.trim().to_string())
                {
                    c.host_types.insert(name.to_string(), t);
                }
            } else if let Some(rest) = line.strip_prefix("ReadFile(\"./") {
                if let Some((file, _)) = rest.split_once(".bin\"") {
                    c.reads.push(file.to_string());
                }
            } else if let Some((ty, rest)) = line.split_once(' ') {
                // `T vK = LITERAL;`
                if host_size(ty).is_some()
                    && let Some((name, value)) = rest.split_once('=')
                    && let Some(lit) = value.trim().strip_suffix(';')
                {
                    let name = name.trim();
                    if name.starts_with('v') && name[1..].bytes().all(|b| b.is_ascii_digit()) {
                        c.scalars.insert(name.to_string(), lit.trim().to_string());
                    }
                }
            }
        }
        let outs = dir.join("outputs.txt");
        if outs.is_file() {
            let t = std::fs::read_to_string(&outs)
                .with_context(|| format!("--case: cannot read {}", outs.display()))?;
            c.outputs = t
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(String::from)
                .collect();
        }
        Ok(c)
    }

    /// Host arguments for the kernel's parameters (in signature order), skipping those in
    /// `given` (bound with `--arg`).
    pub fn bind(
        &self,
        params: &[(String, ParamInfo)],
        given: &[String],
    ) -> Result<Vec<(String, HostArg)>> {
        let mut out = Vec::new();
        for (i, (name, kind)) in params.iter().enumerate() {
            if given.iter().any(|g| g == name) {
                continue;
            }
            let cname = format!("v{}", i + 1);
            match kind {
                ParamInfo::Pointer(d) => {
                    let Some(elem) = d.elem_type() else {
                        bail!(
                            "--case: parameter `%{name}` ({cname}) is a pointer to `{d}`, which host buffers cannot hold"
                        );
                    };
                    let file = self.dir.join(format!("{cname}.bin"));
                    let data = if file.is_file() {
                        std::fs::read(&file)
                            .with_context(|| format!("--case: cannot read {}", file.display()))?
                    } else if self.reads.contains(&cname) {
                        bail!(
                            "--case: {} is missing (main.cpp reads it for parameter `%{name}`); run the sample's golden script first",
                            file.display()
                        );
                    } else {
                        // A buffer the host never fills (PTOAS's ffts workspace): zeros.
                        let n = self.counts.get(&cname).copied().unwrap_or(64);
                        let bytes = n.saturating_mul(elem.size() as u64);
                        vec![0u8; usize::try_from(bytes).context("--case: buffer too large")?]
                    };
                    let esize = elem.size();
                    if data.len() % esize != 0 {
                        bail!(
                            "--case: {} holds {} bytes, not a whole number of {d} elements ({esize} bytes each) for `%{name}`",
                            file.display(),
                            data.len()
                        );
                    }
                    let n = data.len() / esize;
                    if let Some(t) = self.host_types.get(&cname)
                        && let Some(hs) = host_size(t)
                        && hs != esize as u64
                    {
                        bail!(
                            "--case: main.cpp gives `{cname}` the host type `{t}` ({hs} bytes), but `%{name}` points to `{d}` ({esize} bytes)"
                        );
                    }
                    if let Some(&want) = self.counts.get(&cname)
                        && want != n as u64
                        && file.is_file()
                    {
                        bail!(
                            "--case: {} holds {n} elements but main.cpp says elemCount_{cname} = {want}",
                            file.display()
                        );
                    }
                    out.push((
                        name.clone(),
                        HostArg::Buffer(NpyArray {
                            dtype: elem,
                            shape: vec![n],
                            data,
                        }),
                    ));
                }
                ParamInfo::Scalar(_) => match self.scalars.get(&cname) {
                    Some(lit) => out.push((name.clone(), HostArg::Scalar(lit.clone()))),
                    None => bail!(
                        "--case: main.cpp gives no value for scalar parameter `%{name}` ({cname}); add `--arg {name}=VALUE`"
                    ),
                },
                ParamInfo::Other(t) => {
                    bail!("--case: parameter `%{name}` has type `{t}`, which cannot be bound")
                }
            }
        }
        Ok(out)
    }

    /// Writes every buffer of `outputs.txt` back to `DIR/vK.bin`; returns the files written.
    pub fn write_outputs(
        &self,
        params: &[(String, ParamInfo)],
        outcome: &RunOutcome,
    ) -> Result<Vec<PathBuf>> {
        // Check every name first, so that nothing is written when one is wrong.
        let mut plan = Vec::new();
        for o in &self.outputs {
            let k: Option<usize> = o.strip_prefix('v').and_then(|d| d.parse().ok());
            let Some((name, _)) = k.and_then(|k| k.checked_sub(1)).and_then(|i| params.get(i))
            else {
                bail!(
                    "--case: outputs.txt names `{o}`, but the kernel has {} parameters (v1..v{})",
                    params.len(),
                    params.len()
                );
            };
            let v = outcome
                .buffer_view(name)
                .with_context(|| format!("--case: output `{o}` (`%{name}`) is not a buffer"))?;
            plan.push((self.dir.join(format!("{o}.bin")), v.data));
        }
        let mut written = Vec::new();
        for (path, data) in plan {
            npusim_core::npy::write_atomic(&path, data)
                .with_context(|| format!("--case: cannot write {}", path.display()))?;
            written.push(path);
        }
        Ok(written)
    }
}
