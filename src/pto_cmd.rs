//! `npusim run` and `npusim check`: PTO-AS kernels from the command line, and the PTO-AS part of
//! `npusim demo`.
//!
//! A kernel is parsed and verified once, lowered once into a flat program
//! (`npusim_ptoas::interp`), then run on `npusim-pto`'s tile core. Problems in the kernel or in
//! the arguments are printed rustc-style against the source, and the command fails without
//! writing any output file.

use anyhow::{Context, Result, bail};
use clap::Args;
use npusim_core::NpyArray;
use npusim_core::npy::{read_npy, write_npy};
use npusim_ptoas::interp::{
    HostArg, LowerOptions, ParamInfo, Program, RunConfig, RunError, RunOutcome, lower,
};
use npusim_ptoas::{ParseOptions, TargetArch, parse_module_with, render_all};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// `npusim run KERNEL.pto [--func NAME] [--target a2a3|a5] [--blocks N] --arg NAME=FILE.npy ...`
#[derive(Args, Debug)]
#[command(after_help = "Examples:\n  \
npusim run examples/pto/vector_add.pto --arg x=x.npy --arg y=y.npy --arg z=z.npy \\\n      \
--arg n_rows=64 --out z=out.npy\n  \
npusim run examples/pto/multicore_split.pto --blocks 3 --arg x=x.npy --arg y=y.npy \\\n      \
--arg n_rows=64 --arg alpha=1.5 --arg beta=-0.25 --out y=out.npy\n  \
npusim run kernel.pto --func my_kernel --target a5 --arg a=a.npy --arg %n=16\n\n\
Pointer parameters take .npy files whose element type must match the pointer's (bf16 as <V2, as\n\
ml_dtypes writes it); scalar parameters take literals. `--out NAME=FILE.npy` writes the final\n\
contents of a pointer parameter's buffer, only after a successful run.")]
pub struct RunArgs {
    /// The kernel file (PTOAS MLIR text).
    pub kernel: PathBuf,
    /// The function to run (default: the module's only or outermost function).
    #[arg(long, value_name = "NAME")]
    pub func: Option<String>,
    /// Target architecture; overrides the module's `pto.target_arch` (default a2a3).
    #[arg(long, value_parser = ["a2a3", "a5"])]
    pub target: Option<String>,
    /// Run the function for block indices 0..N (each block on fresh on-chip memories, one
    /// shared global memory).
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub blocks: u32,
    /// Binds a parameter: `NAME=FILE.npy` for a pointer, `NAME=VALUE` for a scalar.
    #[arg(long = "arg", value_name = "NAME=VALUE")]
    pub args: Vec<String>,
    /// Writes a pointer parameter's final buffer: `NAME=FILE.npy`.
    #[arg(long = "out", value_name = "NAME=FILE.npy")]
    pub outs: Vec<String>,
    /// Fail when more than this many instructions have run (guards against endless loops).
    #[arg(long, default_value_t = 100_000_000, value_name = "N")]
    pub max_steps: u64,
}

/// `npusim check KERNEL.pto`
#[derive(Args, Debug)]
#[command(after_help = "Examples:\n  \
npusim check examples/pto/row_softmax.pto\n  \
npusim check kernel.pto --target a5\n\n\
Parses, verifies and lowers the kernel without running it; errors are printed rustc-style with\n\
file:line:col. Ops the simulator does not implement yet are listed as warnings.")]
pub struct CheckArgs {
    /// The kernel file (PTOAS MLIR text).
    pub kernel: PathBuf,
    /// Target architecture; overrides the module's `pto.target_arch` (default a2a3).
    #[arg(long, value_parser = ["a2a3", "a5"])]
    pub target: Option<String>,
}

fn target_of(t: &Option<String>) -> Option<TargetArch> {
    t.as_deref().and_then(TargetArch::from_name)
}

/// Parses and lowers; on failure prints the diagnostics and returns `None`.
fn load(
    src: &str,
    file: &str,
    target: Option<TargetArch>,
) -> Option<(Program, Duration, Duration)> {
    let t0 = Instant::now();
    let module = match parse_module_with(src, ParseOptions { target }) {
        Ok(m) => m,
        Err(d) => {
            eprint!("{}", render_all(&d, file, src));
            eprintln!("\n{file}: {} error(s)", d.len());
            return None;
        }
    };
    let t1 = Instant::now();
    let prog = match lower(&module, LowerOptions { target }) {
        Ok(p) => p,
        Err(d) => {
            eprint!("{}", render_all(&d, file, src));
            eprintln!("\n{file}: {} error(s)", d.len());
            return None;
        }
    };
    Some((prog, t1 - t0, t1.elapsed()))
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

/// Runs a kernel.
pub fn run(args: RunArgs) -> Result<bool> {
    let path = &args.kernel;
    let src = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read kernel {}", path.display()))?;
    let file = path.display().to_string();
    let Some((prog, t_parse, t_lower)) = load(&src, &file, target_of(&args.target)) else {
        return Ok(false);
    };
    let report = |e: RunError| {
        eprint!("{}", e.render(&file, &src));
        false
    };
    let func = args.func.as_deref();
    let params = match prog.params(func) {
        Ok(p) => p,
        Err(e) => return Ok(report(e)),
    };
    let kind = |n: &str| params.iter().find(|(p, _)| p == n).map(|(_, k)| k.clone());
    let mut host = Vec::new();
    for a in &args.args {
        let (name, value) = split_kv(a, "--arg")?;
        let v = match kind(name) {
            Some(ParamInfo::Pointer(_)) if !value.is_empty() => HostArg::Buffer(
                read_npy(Path::new(value))
                    .with_context(|| format!("--arg {name}: cannot read {value}"))?,
            ),
            _ => HostArg::Scalar(value.to_string()),
        };
        host.push((name.to_string(), v));
    }
    let mut outs = Vec::new();
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
        if !args.args.iter().any(|a| {
            a.split_once('=')
                .is_some_and(|(k, _)| k.trim_start_matches('%') == name)
        }) {
            bail!("--out {name}: give the buffer's input with `--arg {name}=FILE.npy` too");
        }
        outs.push((name.to_string(), PathBuf::from(file)));
    }
    let cfg = RunConfig {
        blocks: args.blocks,
        max_steps: args.max_steps,
    };
    let t2 = Instant::now();
    let outcome = match prog.run(func, &host, &cfg) {
        Ok(o) => o,
        Err(e) => return Ok(report(e)),
    };
    let t_exec = t2.elapsed();
    for (name, file) in &outs {
        let arr = outcome
            .buffer(name)
            .with_context(|| format!("--out {name}: no buffer"))?;
        write_npy(file, arr).with_context(|| format!("cannot write {}", file.display()))?;
    }
    print_summary(&args, &prog, &outcome, [t_parse, t_lower, t_exec], &outs);
    Ok(true)
}

fn print_summary(
    args: &RunArgs,
    prog: &Program,
    o: &RunOutcome,
    [tp, tl, te]: [Duration; 3],
    outs: &[(String, PathBuf)],
) {
    let s = &o.stats;
    println!(
        "ran {} on {}: {} block(s), {} instructions executed",
        args.kernel.display(),
        prog.target().name(),
        s.blocks,
        s.steps
    );
    for (name, n) in &s.per_op {
        println!("  {name:<24} {n:>10}");
    }
    println!(
        "GM -> on-chip: {} bytes, on-chip -> GM: {} bytes",
        s.gm_to_chip, s.chip_to_gm
    );
    let total = tp + tl + te;
    println!(
        "time: parse+verify {:.3} ms, lower {:.3} ms, execute {:.3} ms, total {:.3} ms (execute {:.0}%)",
        ms(tp),
        ms(tl),
        ms(te),
        ms(total),
        100.0 * te.as_secs_f64() / total.as_secs_f64().max(1e-12)
    );
    for (name, file) in outs {
        if let Some(a) = o.buffer(name) {
            println!(
                "wrote %{name} to {} ({:?} {})",
                file.display(),
                a.shape,
                a.dtype.numpy_name()
            );
        }
    }
}

/// Parses and verifies a kernel.
pub fn check(args: CheckArgs) -> Result<bool> {
    let path = &args.kernel;
    let src = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read kernel {}", path.display()))?;
    let file = path.display().to_string();
    let Some((prog, tp, tl)) = load(&src, &file, target_of(&args.target)) else {
        return Ok(false);
    };
    for (span, what) in prog.unsupported() {
        let d = npusim_ptoas::Diagnostic::new(
            npusim_ptoas::DiagKind::UnknownOp,
            "this op is not supported by the simulator yet; the run fails if it is reached",
            *span,
        )
        .with_help(*what);
        let text = d.render(&file, &src);
        eprint!("{}", text.replacen("error:", "warning:", 1));
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
        let Some((prog, _, _)) = load(c.src, &file, None) else {
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
