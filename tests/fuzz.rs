//! Issue 12, acceptance 2: a no-panic, bounded-time fuzz test of the command line, through the
//! real binary.
//!
//! Four families, each a `#[test]`: mutated PTO-AS kernels (from `examples/pto`) through
//! `check` and `run`; mutated `.npy` headers and payloads through `run`; mutated golden JSON
//! (cases cut from `golden/hau` and `golden/tpu`) through `tpu check` / `hau check`; random
//! argument lists. Every run gets small budgets (`--max-steps`, `--max-work`, `--timeout`,
//! `--max-memory`) and the harness kills it after [`KILL_AFTER`]. Each run must end with exit
//! code 0, 1 or 2 (clap's usage error), by itself (no signal), with no `panicked` or
//! `RUST_BACKTRACE` on stderr; when it fails, none of its `--out` files may exist, and no
//! temporary file may be left behind.
//!
//! Deterministic: a seeded xorshift generator and a case count, not a time. The count per
//! family defaults to a CI-sized number; `NPUSIM_FUZZ_CASES=N` sets it, `NPUSIM_FUZZ_SECS=S`
//! runs each family for S seconds instead (for long sessions), `NPUSIM_FUZZ_SEED=N` changes
//! the seed, `NPUSIM_FUZZ_KEEP_GOING=1` reports every failure instead of stopping at the
//! first, `NPUSIM_FUZZ_DEBUG=1` prints the usage errors of the argument-list family. A failing input is saved under the cargo target's tmp folder and named in the
//! panic message.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Failures seen with `NPUSIM_FUZZ_KEEP_GOING` set (then a failure is printed and the family
/// goes on; the test fails at its end).
static FAILURES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn assert_no_failures() {
    let n = FAILURES.load(std::sync::atomic::Ordering::Relaxed);
    assert_eq!(n, 0, "{n} fuzz failure(s), printed above as FUZZ FAILURE");
}

/// A run still alive after this long is a hang.
const KILL_AFTER: Duration = Duration::from_secs(60);

/// xorshift64*.
struct Rng(u64);

impl Rng {
    fn new(family: u64) -> Rng {
        let seed = std::env::var("NPUSIM_FUZZ_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0x1234_5678_9abc_def1u64);
        let mut r = Rng((seed ^ family.wrapping_mul(0x9e37_79b9_7f4a_7c15)) | 1);
        r.next();
        r
    }
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
    fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len())]
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

/// How many cases a family runs, or for how long.
enum Budget {
    Cases(usize),
    Until(Instant),
}

impl Budget {
    fn new(ci_cases: usize) -> Budget {
        if let Some(s) = std::env::var("NPUSIM_FUZZ_SECS")
            .ok()
            .and_then(|s| s.parse::<u64>().ok())
        {
            return Budget::Until(Instant::now() + Duration::from_secs(s));
        }
        let n = std::env::var("NPUSIM_FUZZ_CASES")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(ci_cases);
        Budget::Cases(n)
    }
    fn more(&self, done: usize) -> bool {
        match self {
            Budget::Cases(n) => done < *n,
            Budget::Until(t) => Instant::now() < *t,
        }
    }
}

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// One fuzz case: the arguments, the `--out` files it names, and a file to save on failure.
struct Case<'a> {
    family: &'static str,
    n: usize,
    args: Vec<OsString>,
    outs: Vec<PathBuf>,
    input: Option<(&'a str, &'a [u8])>,
}

/// Runs the binary with a kill timeout and checks the outcome; returns the exit code.
fn exec(dir: &Path, c: &Case) -> i32 {
    for o in &c.outs {
        let _ = std::fs::remove_file(o);
    }
    let so = dir.join("stdout.txt");
    let se = dir.join("stderr.txt");
    let mut child = Command::new(env!("CARGO_BIN_EXE_npusim"))
        .args(&c.args)
        .current_dir(repo())
        .env_remove("RUST_BACKTRACE")
        .env_remove("RUST_LIB_BACKTRACE")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&so).unwrap())
        .stderr(std::fs::File::create(&se).unwrap())
        .spawn()
        .unwrap();
    let t = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break Some(s);
        }
        if t.elapsed() > KILL_AFTER {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let err = std::fs::read(&se).unwrap_or_default();
    let err = String::from_utf8_lossy(&err);
    let mut problems = Vec::new();
    let code = match status {
        None => {
            problems.push(format!("still running after {KILL_AFTER:?} (killed)"));
            -1
        }
        Some(s) => match s.code() {
            Some(c @ 0..=2) => c,
            Some(c) => {
                problems.push(format!("exit code {c}"));
                c
            }
            None => {
                problems.push(format!("ended by a signal ({s:?})"));
                -1
            }
        },
    };
    if err.contains("panicked") || err.contains("RUST_BACKTRACE") {
        problems.push("panicked".to_string());
    }
    if code != 0 {
        for o in &c.outs {
            if o.exists() {
                problems.push(format!("failed run left output {}", o.display()));
            }
        }
    }
    for e in std::fs::read_dir(dir).unwrap() {
        let name = e.unwrap().file_name();
        if name.to_string_lossy().contains("npusim-tmp") {
            problems.push(format!("temporary file left: {}", name.to_string_lossy()));
        }
    }
    if !problems.is_empty() {
        let saved = c.input.map(|(ext, bytes)| {
            let p = Path::new(env!("CARGO_TARGET_TMPDIR"))
                .join(format!("fuzz-{}-{}.{ext}", c.family, c.n));
            std::fs::write(&p, bytes).unwrap();
            p
        });
        let tail: String = err
            .chars()
            .rev()
            .take(3000)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        let msg = format!(
            "fuzz {} case {}: {}\nargs: {:?}\ninput saved as {saved:?}\nstderr (end):\n{tail}",
            c.family,
            c.n,
            problems.join("; "),
            c.args
        );
        if std::env::var_os("NPUSIM_FUZZ_KEEP_GOING").is_none() {
            panic!("{msg}");
        }
        eprintln!("FUZZ FAILURE {msg}");
        FAILURES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
    code
}

fn os(v: &[&str]) -> Vec<OsString> {
    v.iter().map(OsString::from).collect()
}

/// The budgets every `run` gets.
const BUDGET: [&str; 8] = [
    "--max-steps",
    "200000",
    "--max-work",
    "20000000",
    "--timeout",
    "3",
    "--max-memory",
    "64M",
];

fn write_f32(path: &Path, shape: &[usize], v: f32) {
    let n: usize = shape.iter().product();
    let a = npusim_core::NpyArray::from_elems(shape.to_vec(), &vec![v; n]);
    npusim_core::npy::write_npy(path, &a).unwrap();
}

/// An example kernel with arguments that make it run: (file, pointer args with shapes,
/// scalar args, the output parameter, blocks).
type Example = (
    &'static str,
    &'static [(&'static str, &'static [usize])],
    &'static [(&'static str, &'static str)],
    &'static str,
    u32,
);

const EXAMPLES: &[Example] = &[
    (
        "vector_add",
        &[("x", &[16, 256]), ("y", &[16, 256]), ("z", &[16, 256])],
        &[("n_rows", "16")],
        "z",
        1,
    ),
    (
        "row_softmax",
        &[("x", &[8, 1024]), ("y", &[8, 1024])],
        &[("n_rows", "8")],
        "y",
        2,
    ),
    (
        "rmsnorm",
        &[("x", &[8, 512]), ("gamma", &[1, 512]), ("y", &[8, 512])],
        &[("n_rows", "8"), ("eps", "1e-6")],
        "y",
        1,
    ),
    (
        "online_softmax_step",
        &[
            ("scores", &[16, 128]),
            ("m_prev", &[16, 1]),
            ("l_prev", &[16, 1]),
            ("o_prev", &[16, 64]),
            ("p", &[16, 128]),
            ("m_new", &[16, 1]),
            ("l_new", &[16, 1]),
            ("o_out", &[16, 64]),
        ],
        &[("scale", "0.125")],
        "o_out",
        1,
    ),
    (
        "multicore_split",
        &[("x", &[48, 256]), ("y", &[48, 256])],
        &[("n_rows", "48"), ("alpha", "1.5"), ("beta", "-0.25")],
        "y",
        3,
    ),
];

/// Writes each example's inputs into `dir` (as `NAME_PARAM.npy`).
fn example_inputs(dir: &Path) {
    for (name, ptrs, _, _, _) in EXAMPLES {
        for (p, shape) in *ptrs {
            write_f32(&dir.join(format!("{name}_{p}.npy")), shape, 0.5);
        }
    }
}

/// `run` arguments for an example, with `kernel` as the kernel file and `out` as its output.
fn example_run_args(dir: &Path, ex: &Example, kernel: &Path, out: &Path) -> Vec<OsString> {
    let (name, ptrs, scalars, out_param, blocks) = ex;
    let mut a = os(&["run"]);
    a.push(kernel.into());
    for (p, _) in *ptrs {
        a.push(
            format!(
                "--arg={p}={}",
                dir.join(format!("{name}_{p}.npy")).display()
            )
            .into(),
        );
    }
    for (p, v) in *scalars {
        a.push(format!("--arg={p}={v}").into());
    }
    a.push(format!("--blocks={blocks}").into());
    a.push(format!("--out={out_param}={}", out.display()).into());
    a.extend(os(&BUDGET));
    a
}

const NUMBERS: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "3",
    "15",
    "16",
    "17",
    "31",
    "32",
    "255",
    "256",
    "257",
    "1024",
    "4096",
    "65535",
    "65536",
    "2147483647",
    "2147483648",
    "-2147483648",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "18446744073709551615",
    "99999999999999999999999999",
    "1e999",
    "-0",
    "0x10",
    "0.5",
    "nan",
    "inf",
];

/// Splits text into tokens (runs of word characters, runs of spaces, single other bytes).
fn tokens(s: &[u8]) -> Vec<std::ops::Range<usize>> {
    let class = |b: u8| {
        if b.is_ascii_alphanumeric() || b == b'_' || b == b'.' {
            0
        } else if b == b' ' || b == b'\t' {
            1
        } else {
            2
        }
    };
    let mut v = Vec::new();
    let mut i = 0;
    while i < s.len() {
        let c = class(s[i]);
        let mut j = i + 1;
        if c != 2 {
            while j < s.len() && class(s[j]) == c {
                j += 1;
            }
        }
        v.push(i..j);
        i = j;
    }
    v
}

/// Applies 1 to 4 text mutations: byte changes, token deletion and duplication, number
/// replacement, line deletion and duplication, a swap of two tokens.
fn mutate_text(r: &mut Rng, src: &[u8]) -> Vec<u8> {
    let mut s = src.to_vec();
    let count = if r.chance(50) { 1 } else { 1 + r.below(4) };
    for _ in 0..count {
        if s.is_empty() {
            break;
        }
        let t = tokens(&s);
        match r.below(8) {
            0 => {
                let i = r.below(s.len());
                s[i] = if r.chance(80) {
                    *r.pick(b"0123456789%@!#<>()[]{}=:,.?x-+\"\\ \n\x1b\x00")
                } else {
                    r.next() as u8
                };
            }
            1 | 2 => {
                let k = r.pick(&t).clone();
                s.drain(k);
            }
            3 => {
                let k = r.pick(&t).clone();
                let dup = s[k.clone()].to_vec();
                s.splice(k.start..k.start, dup);
            }
            4 | 5 => {
                let nums: Vec<_> = t
                    .iter()
                    .filter(|k| s[k.start].is_ascii_digit())
                    .cloned()
                    .collect();
                if let Some(k) = (!nums.is_empty()).then(|| r.pick(&nums).clone()) {
                    s.splice(k, r.pick(NUMBERS).bytes());
                }
            }
            6 => {
                let lines: Vec<usize> = std::iter::once(0)
                    .chain(
                        s.iter()
                            .enumerate()
                            .filter(|(_, b)| **b == b'\n')
                            .map(|(i, _)| i + 1),
                    )
                    .filter(|&i| i < s.len())
                    .collect();
                let a = *r.pick(&lines);
                let b = s[a..]
                    .iter()
                    .position(|&c| c == b'\n')
                    .map_or(s.len(), |p| a + p + 1);
                if r.chance(50) {
                    s.drain(a..b);
                } else {
                    let l = s[a..b].to_vec();
                    s.splice(a..a, l);
                }
            }
            _ => {
                let (a, b) = (r.pick(&t).clone(), r.pick(&t).clone());
                if a.end <= b.start {
                    let (ta, tb) = (s[a.clone()].to_vec(), s[b.clone()].to_vec());
                    s.splice(b, ta);
                    s.splice(a, tb);
                }
            }
        }
    }
    s
}

#[test]
fn fuzz_mutated_kernels() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    example_inputs(dir);
    let sources: Vec<Vec<u8>> = EXAMPLES
        .iter()
        .map(|e| std::fs::read(repo().join(format!("examples/pto/{}.pto", e.0))).unwrap())
        .collect();
    let mut r = Rng::new(1);
    let budget = Budget::new(1000);
    let kernel = dir.join("k.pto");
    let out = dir.join("out.npy");
    let (mut n, mut ran_ok) = (0, 0);
    while budget.more(n) {
        let which = r.below(EXAMPLES.len());
        let m = mutate_text(&mut r, &sources[which]);
        std::fs::write(&kernel, &m).unwrap();
        let mut check = os(&["check"]);
        check.push(kernel.clone().into());
        if r.chance(30) {
            check.push("--allow-unsupported".into());
        }
        let case = |args, outs| Case {
            family: "kernel",
            n,
            args,
            outs,
            input: Some(("pto", &m)),
        };
        exec(dir, &case(check, vec![]));
        let args = example_run_args(dir, &EXAMPLES[which], &kernel, &out);
        if exec(dir, &case(args, vec![out.clone()])) == 0 {
            ran_ok += 1;
        }
        n += 1;
    }
    eprintln!("fuzz kernel: {n} cases, {ran_ok} mutated kernels ran to completion");
    assert_no_failures();
}

/// A `.npy` image with a chosen header dict (format 1.0, or 2.0 with a 4-byte length).
fn npy_image(version: u8, dict: &[u8], payload: &[u8]) -> Vec<u8> {
    let mut v = b"\x93NUMPY".to_vec();
    v.push(version);
    v.push(0);
    let pre = if version == 1 { 10 } else { 12 };
    let mut h = dict.to_vec();
    while !(pre + h.len() + 1).is_multiple_of(64) {
        h.push(b' ');
    }
    h.push(b'\n');
    if version == 1 {
        v.extend((h.len() as u16).to_le_bytes());
    } else {
        v.extend((h.len() as u32).to_le_bytes());
    }
    v.extend(h);
    v.extend(payload);
    v
}

fn mutate_npy(r: &mut Rng) -> Vec<u8> {
    let descrs = [
        "<f4",
        ">f4",
        "<f8",
        "<f2",
        "|u1",
        "<V2",
        "|b1",
        "<c8",
        "O",
        "<U3",
        "<i4",
        ">i8",
        "f4",
        "",
        "<f4<f4",
        "<f99999999999999999999",
    ];
    let shapes = [
        "(16, 256)",
        "(4096,)",
        "(16, 256, 1)",
        "(1, 16, 256)",
        "(4, 4, 256)",
        "(16, 0)",
        "()",
        "(0,)",
        "(16,256,)",
        "(-1, 256)",
        "(16, 256",
        "(18446744073709551615, 256)",
        "(4294967296, 4294967296)",
        "(16, 256.0)",
        "[16, 256]",
        "(1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,16,256)",
    ];
    let descr = if r.chance(60) { "<f4" } else { r.pick(&descrs) };
    let shape = if r.chance(40) {
        "(16, 256)"
    } else {
        r.pick(&shapes)
    };
    let fortran = if r.chance(85) {
        "False"
    } else {
        *r.pick(&["True", "0", "None", "'x'"])
    };
    let mut dict =
        format!("{{'descr': '{descr}', 'fortran_order': {fortran}, 'shape': {shape}, }}");
    if r.chance(10) {
        dict = dict.replacen("'shape'", "'shap'", 1);
    }
    if r.chance(5) {
        dict.push_str(&"x".repeat(70_000));
    }
    let mut payload = vec![0u8; 16 * 256 * 4];
    for (i, b) in payload.iter_mut().enumerate() {
        *b = (i * 7) as u8;
    }
    match r.below(6) {
        0 => payload.truncate(r.below(payload.len())),
        1 => payload.extend(std::iter::repeat_n(0xab, 1 + r.below(100))),
        _ => {}
    }
    let version = *r.pick(&[1, 1, 1, 2, 3, 0, 9]);
    let mut img = npy_image(
        if version == 2 || version == 3 { 2 } else { 1 },
        dict.as_bytes(),
        &payload,
    );
    img[6] = version;
    // Raw damage to the header bytes.
    let hlen = img.len() - payload.len();
    for _ in 0..r.below(3) {
        let i = r.below(hlen.max(1));
        img[i] = r.next() as u8;
    }
    if r.chance(5) {
        img.truncate(r.below(hlen + 1));
    }
    img
}

#[test]
fn fuzz_mutated_npy_files() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    example_inputs(dir);
    let kernel = repo().join("examples/pto/vector_add.pto");
    let bad = dir.join("m.npy");
    let out = dir.join("out.npy");
    let mut r = Rng::new(2);
    let budget = Budget::new(1000);
    let (mut n, mut ok) = (0, 0);
    while budget.more(n) {
        let img = mutate_npy(&mut r);
        std::fs::write(&bad, &img).unwrap();
        // The mutated file as x (input) or as z (input and output).
        let param = *r.pick(&["x", "z"]);
        let mut args = example_run_args(dir, &EXAMPLES[0], &kernel, &out);
        for a in args.iter_mut() {
            if a.to_string_lossy().starts_with(&format!("--arg={param}=")) {
                *a = format!("--arg={param}={}", bad.display()).into();
            }
        }
        if param == "x" && r.chance(50) {
            args.push(format!("--out=x={}", dir.join("out_x.npy").display()).into());
        }
        let outs = vec![out.clone(), dir.join("out_x.npy")];
        let c = Case {
            family: "npy",
            n,
            args,
            outs,
            input: Some(("npy", &img)),
        };
        if exec(dir, &c) == 0 {
            ok += 1;
        }
        n += 1;
    }
    eprintln!("fuzz npy: {n} cases, {ok} ran");
    assert_no_failures();
}

/// The first `k` cases of a golden file, as a small golden file of the same format.
fn golden_excerpt(text: &str, k: usize) -> String {
    let Some(start) = text.find("\"cases\":[") else {
        return text.chars().take(4000).collect();
    };
    let body = start + "\"cases\":[".len();
    let b = text.as_bytes();
    let (mut depth, mut in_str, mut esc, mut count) = (0i32, false, false, 0);
    let mut end = body;
    for (i, &c) in b.iter().enumerate().skip(body) {
        if in_str {
            match (esc, c) {
                (true, _) => esc = false,
                (false, b'\\') => esc = true,
                (false, b'"') => in_str = false,
                _ => {}
            }
            continue;
        }
        match c {
            b'"' => in_str = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth -= 1;
                if depth == 0 && c == b'}' {
                    count += 1;
                    end = i + 1;
                    if count == k {
                        break;
                    }
                }
                if depth < 0 {
                    break;
                }
            }
            _ => {}
        }
    }
    format!("{}]}}", &text[..end])
}

#[test]
fn fuzz_mutated_golden_json() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    let mut seeds = Vec::new();
    for f in [
        "golden/hau/bm1684x-cmodel.json",
        "golden/hau/denormals.json",
        "golden/tpu/bdc.json",
        "golden/tpu/bdc_div.json",
        "golden/tpu/gdma.json",
    ] {
        let text = std::fs::read_to_string(repo().join(f)).unwrap();
        // Cases of different ops: skip ahead through the file.
        for k in [1, 3, 8] {
            seeds.push(golden_excerpt(&text, k).into_bytes());
        }
    }
    let file = dir.join("g.json");
    let mut r = Rng::new(3);
    let budget = Budget::new(1000);
    let (mut n, mut passed) = (0, 0);
    while budget.more(n) {
        let seed = r.pick(&seeds);
        let m = mutate_text(&mut r, seed);
        std::fs::write(&file, &m).unwrap();
        let mut args = os(&[*r.pick(&["tpu", "hau"]), "check"]);
        args.push(file.clone().into());
        let c = Case {
            family: "json",
            n,
            args,
            outs: vec![],
            input: Some(("json", &m)),
        };
        if exec(dir, &c) == 0 {
            passed += 1;
        }
        n += 1;
    }
    eprintln!("fuzz json: {n} cases, {passed} replayed with 0 failed");
    assert_no_failures();
}

#[test]
fn fuzz_random_argument_lists() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    example_inputs(dir);
    let va = |p: &str| format!("{p}={}", dir.join(format!("vector_add_{p}.npy")).display());
    let outs: Vec<PathBuf> = (0..3).map(|i| dir.join(format!("o{i}.npy"))).collect();
    let kernels = [
        "examples/pto/vector_add.pto",
        "examples/pto/row_softmax.pto",
        "examples/pto/multicore_split.pto",
        "golden/hau/README.md",
        "/nonexistent.pto",
        "",
        "-",
        ".",
    ];
    // Mostly options `run` knows, so that runs get past clap; a few usage errors.
    let flags = [
        "--arg",
        "--arg",
        "--arg",
        "--out",
        "--out",
        "--out",
        "--func",
        "--target",
        "--target",
        "--blocks",
        "--blocks",
        "--max-steps",
        "--max-work",
        "--max-memory",
        "--max-memory",
        "--allow-unsupported",
        "--help",
        "--bogus",
    ];
    let mut values: Vec<String> = [
        "x",
        "z",
        "n_rows=16",
        "n_rows=-5",
        "n_rows=17",
        "n_rows=1e3",
        "n_rows=",
        "=",
        "",
        "%n_rows=16",
        "x=",
        "z=-",
        "a2a3",
        "a5",
        "910b",
        "310",
        "0",
        "1",
        "3",
        "-1",
        "4294967295",
        "18446744073709551616",
        "1K",
        "1G",
        "9T",
        "99999999999999999999T",
        "nan",
        "@vector_add",
        "vector_add",
        "row_softmax",
        "alpha=1e999",
        "beta=nan",
        "n_rows=0x10",
        "x=/nonexistent/x.npy",
        "z=/nonexistent/dir/o.npy",
        "z=/",
        "\u{1b}[31m",
        "é=1",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for p in ["x", "y", "z"] {
        values.push(va(p));
    }
    for (i, o) in outs.iter().enumerate() {
        let p = ["z", "x", "y"][i];
        values.push(format!("{p}={}", o.display()));
    }
    values.push(format!("z={}", dir.display()));
    let mut r = Rng::new(4);
    let budget = Budget::new(1000);
    let mut n = 0;
    let mut codes = [0usize; 3];
    while budget.more(n) {
        let mut args: Vec<String> = Vec::new();
        let cmd = *r.pick(&[
            "run", "run", "run", "run", "run", "run", "check", "check", "tpu", "hau", "chips",
            "bogus",
        ]);
        args.push(cmd.into());
        if cmd == "tpu" || cmd == "hau" {
            args.push((*r.pick(&["check", "check", "check", "run"])).into());
        }
        if cmd != "chips" && r.chance(95) {
            args.push((*r.pick(&kernels)).into());
        }
        if cmd == "run" && r.chance(70) {
            // Mostly well-formed vector_add bindings, some left out.
            for p in ["x", "y", "z"] {
                if r.chance(85) {
                    args.push("--arg".into());
                    args.push(va(p));
                }
            }
            if r.chance(85) {
                args.push("--arg=n_rows=16".into());
            }
        }
        let extra = if cmd != "run" && r.chance(70) {
            0
        } else if r.chance(50) {
            r.below(3)
        } else {
            r.below(8)
        };
        for _ in 0..extra {
            let f = *r.pick(&flags);
            args.push(f.into());
            if r.chance(90) {
                args.push(r.pick(&values).clone());
            }
        }
        if cmd == "run" {
            // A wall-clock bound on every run; a repeated option is clap's error 2.
            args.extend(["--timeout".to_string(), "3".to_string()]);
        }
        let c = Case {
            family: "args",
            n,
            args: args.iter().map(OsString::from).collect(),
            outs: outs.clone(),
            input: None,
        };
        let code = exec(dir, &c);
        if code == 2 && std::env::var_os("NPUSIM_FUZZ_DEBUG").is_some() {
            let e = std::fs::read_to_string(dir.join("stderr.txt")).unwrap_or_default();
            eprintln!("2: {}", e.lines().next().unwrap_or(""));
        }
        codes[code as usize] += 1;
        n += 1;
    }
    eprintln!(
        "fuzz args: {n} cases, exit codes 0/1/2: {}/{}/{}",
        codes[0], codes[1], codes[2]
    );
    assert_no_failures();
}
