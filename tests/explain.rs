//! `npusim explain`: the SVG access diagrams of seed 000 example 2 (`vec_cmpv_gt` with
//! `src1_rep_stride = 7`) and of seed 002's TPARTMIN with mismatched valid regions.
//!
//! - Snapshots: the exact SVG text is checked in (`tests/explain_data/*.svg`; regenerate with
//!   `UPDATE_SNAPSHOTS=1 cargo test --test explain` after a deliberate change and look at them).
//! - The highlighted cells (read back from the SVG's `data-*` attributes) are checked against
//!   an independent computation from the seeds' documented numbers, and, for seed 000, against
//!   the documented output: comparing the elements the picture says each lane reads gives the
//!   page's `dst_gm`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn npusim() -> Command {
    Command::new(env!("CARGO_BIN_EXE_npusim"))
}

fn repo(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(p)
}

const SEED000_EX2: [&str; 10] = [
    "explain",
    "ascend",
    "vec_cmpv_gt(dst_ub, src0_ub, src1_ub, 2, 8, 7)",
    "--tensor",
    "src0_ub=float16[2,128]",
    "--tensor",
    "src1_ub=float16[2,128]",
    "--tensor",
    "dst_ub=uint16[16]",
    "--chip=ascend910",
];

fn run_ok(args: &[&str]) -> (String, String) {
    let out = npusim().args(args).output().expect("run npusim");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "npusim {args:?} failed:\n{stderr}\n{stdout}"
    );
    (stdout, stderr)
}

fn seed000_svg() -> String {
    run_ok(&SEED000_EX2).0
}

fn seed002_svg() -> String {
    run_ok(&[
        "explain",
        "pto",
        repo("tests/explain_data/tpartmin_mismatched.pto")
            .to_str()
            .unwrap(),
        "--line",
        "28",
    ])
    .0
}

fn snapshot(name: &str, svg: &str) {
    let path = repo(&format!("tests/explain_data/{name}"));
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, svg).unwrap();
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (UPDATE_SNAPSHOTS=1 writes it)", path.display()));
    if svg != want {
        let line = svg
            .lines()
            .zip(want.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(0);
        panic!(
            "{name} differs from the snapshot at line {}:\n got: {}\nwant: {}",
            line + 1,
            svg.lines().nth(line).unwrap_or(""),
            want.lines().nth(line).unwrap_or("")
        );
    }
}

/// The `data-*` attributes of every cell of the SVG.
fn cells(svg: &str) -> Vec<BTreeMap<String, String>> {
    let mut out = Vec::new();
    for part in svg.split("<g class=\"cell\"").skip(1) {
        let head = &part[..part.find('>').unwrap()];
        let mut m = BTreeMap::new();
        for a in head.split(" data-").skip(1) {
            let (k, v) = a.split_once("=\"").unwrap();
            m.insert(k.to_string(), v[..v.find('"').unwrap()].to_string());
        }
        out.push(m);
    }
    out
}

fn list(v: Option<&String>) -> Vec<u32> {
    v.map(|s| {
        s.split(',')
            .filter(|x| !x.is_empty())
            .map(|x| x.parse().unwrap())
            .collect()
    })
    .unwrap_or_default()
}

#[test]
fn seed000_example2_snapshot() {
    snapshot("seed000_example2.svg", &seed000_svg());
}

#[test]
fn seed002_tpartmin_snapshot() {
    snapshot("seed002_tpartmin.svg", &seed002_svg());
}

/// Seed 000 example 2 from the page's own numbers: 2 repeats of 128 float16 lanes (8 blocks
/// of 16); src0 advances 8 blocks per repeat, src1 7 blocks; dst is packed bits, 128 bits =
/// 8 uint16 per repeat.
#[test]
fn seed000_example2_cells_are_the_documented_accesses() {
    let svg = seed000_svg();
    let cells = cells(&svg);
    let lanes = 128u64;
    let per_block = 32 / 2;
    for (op, stride_blocks) in [("src0", 8u64), ("src1", 7u64)] {
        for e in 0..256u64 {
            let want: Vec<u32> = (0..2u64)
                .filter(|r| {
                    let start = r * stride_blocks * per_block;
                    (start..start + lanes).contains(&e)
                })
                .map(|r| r as u32)
                .collect();
            let c = cells
                .iter()
                .find(|c| c["op"] == op && c["elem"] == e.to_string())
                .unwrap_or_else(|| panic!("no cell for {op}[{e}]"));
            assert_eq!(list(c.get("read")), want, "{op}[{e}]");
            assert!(!c.contains_key("write"), "{op} is only read");
        }
    }
    // The overlap the page's comment describes: src1 elements 112..127 are read by both
    // repeats, 240..255 by none.
    let both = cells
        .iter()
        .filter(|c| c["op"] == "src1" && list(c.get("read")) == [0, 1])
        .count();
    assert_eq!(both, 16);
    for e in 0..16u64 {
        let c = cells
            .iter()
            .find(|c| c["op"] == "dst" && c["elem"] == e.to_string())
            .unwrap();
        assert_eq!(list(c.get("write")), vec![(e / 8) as u32], "dst[{e}]");
    }
}

/// Comparing the elements the picture says each lane reads reproduces the page's output:
/// src0_gm = src1_gm = 0..255 and dst_gm = eight 0s then eight 65535s.
#[test]
fn seed000_example2_cells_explain_the_documented_output() {
    let svg = seed000_svg();
    let cells = cells(&svg);
    // repeat -> elements read, in lane order (ascending addresses: block stride 1).
    let reads = |op: &str, r: u32| -> Vec<u64> {
        let mut v: Vec<u64> = cells
            .iter()
            .filter(|c| c["op"] == op && list(c.get("read")).contains(&r))
            .map(|c| c["elem"].parse().unwrap())
            .collect();
        v.sort_unstable();
        v
    };
    let input: Vec<f32> = (0..256).map(|i| i as f32).collect(); // both inputs, from the page
    let mut dst = Vec::new();
    for r in 0..2 {
        let (a, b) = (reads("src0", r), reads("src1", r));
        assert_eq!((a.len(), b.len()), (128, 128));
        for chunk in 0..8 {
            let mut word = 0u16;
            for bit in 0..16 {
                let lane = chunk * 16 + bit;
                if input[a[lane] as usize] > input[b[lane] as usize] {
                    word |= 1 << bit;
                }
            }
            dst.push(word);
        }
    }
    let documented: [u16; 16] = [
        0, 0, 0, 0, 0, 0, 0, 0, 65535, 65535, 65535, 65535, 65535, 65535, 65535, 65535,
    ];
    assert_eq!(dst, documented);
}

/// Seed 002's rule over dst's valid region: min where both sources are defined, the one
/// defined source elsewhere. The kernel's tiles: dst and src0 valid 16x16, src1 valid 8x12.
#[test]
fn seed002_tpartmin_cells_follow_the_documented_rule() {
    let svg = seed002_svg();
    let cells = cells(&svg);
    let (dst_v, s0_v, s1_v) = ((16usize, 16usize), (16usize, 16usize), (8usize, 12usize));
    let inside = |v: (usize, usize), r: usize, c: usize| r < v.0 && c < v.1;
    let mut seen = 0;
    for c in &cells {
        let (r, col): (usize, usize) = (c["r"].parse().unwrap(), c["c"].parse().unwrap());
        match c["op"].as_str() {
            "dst" => {
                let want = match (
                    inside(dst_v, r, col),
                    inside(s0_v, r, col),
                    inside(s1_v, r, col),
                ) {
                    (false, _, _) => "none",
                    (true, true, true) => "both",
                    (true, true, false) => "src0",
                    (true, false, true) => "src1",
                    (true, false, false) => "neither",
                };
                assert_eq!(c["src"], want, "dst[{r},{col}]");
            }
            "src0" | "src1" => {
                let v = if c["op"] == "src0" { s0_v } else { s1_v };
                let valid = inside(v, r, col);
                assert_eq!(c["valid"], (valid as u8).to_string());
                // Every valid source element inside dst's valid region is read.
                let read = valid && inside(dst_v, r, col);
                assert_eq!(
                    c["read"],
                    (read as u8).to_string(),
                    "{}[{r},{col}]",
                    c["op"]
                );
            }
            o => panic!("unexpected operand {o}"),
        }
        seen += 1;
    }
    assert_eq!(seen, 3 * 256);
    assert_eq!(
        cells
            .iter()
            .filter(|c| c.get("src").map(|s| s.as_str()) == Some("both"))
            .count(),
        96
    );
}

/// The kernel the TPARTMIN picture is drawn from computes what the page says: running it on
/// inputs gives min(a, b) on the top-left 8x12 and a elsewhere.
#[test]
fn seed002_tpartmin_kernel_runs_as_drawn() {
    use npusim_core::npy::{NpyArray, read_npy, write_npy};
    let dir = tempfile::tempdir().unwrap();
    let a: Vec<f32> = (0..256).map(|i| ((i * 37) % 101) as f32 - 50.0).collect();
    let b: Vec<f32> = (0..96).map(|i| ((i * 53) % 89) as f32 - 44.0).collect();
    let (pa, pb, pd) = (
        dir.path().join("a.npy"),
        dir.path().join("b.npy"),
        dir.path().join("d.npy"),
    );
    write_npy(&pa, &NpyArray::from_elems(vec![16, 16], &a)).unwrap();
    write_npy(&pb, &NpyArray::from_elems(vec![8, 12], &b)).unwrap();
    write_npy(&pd, &NpyArray::from_elems(vec![16, 16], &[0f32; 256])).unwrap();
    let arg = |n: &str, p: &Path| format!("{n}={}", p.display());
    run_ok(&[
        "run",
        repo("tests/explain_data/tpartmin_mismatched.pto")
            .to_str()
            .unwrap(),
        "--arg",
        &arg("a", &pa),
        "--arg",
        &arg("b", &pb),
        "--arg",
        &arg("d", &pd),
        "--out",
        &arg("d", &pd),
    ]);
    let d: Vec<f32> = read_npy(&pd).unwrap().to_elems().unwrap();
    for r in 0..16 {
        for c in 0..16 {
            let want = if r < 8 && c < 12 {
                a[r * 16 + c].min(b[r * 12 + c])
            } else {
                a[r * 16 + c]
            };
            assert_eq!(d[r * 16 + c], want, "d[{r},{c}]");
        }
    }
}

#[test]
fn explain_writes_the_file_and_the_per_repeat_lists() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.svg");
    let mut args: Vec<&str> = SEED000_EX2.to_vec();
    let o = out.to_str().unwrap().to_string();
    args.extend(["-o", &o]);
    let (stdout, _) = run_ok(&args);
    assert!(
        stdout.contains("src1 (src1_ub): repeat 1 read elements 112-239"),
        "{stdout}"
    );
    assert!(
        stdout.contains("dst (dst_ub): repeat 1 written elements 8-15"),
        "{stdout}"
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap(), seed000_svg());
}

fn run_err(args: &[&str]) -> String {
    let out = npusim().args(args).output().expect("run npusim");
    assert!(!out.status.success(), "npusim {args:?} should fail");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn explain_reports_bad_calls_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.svg");
    let o = out.to_str().unwrap();
    // A stride past the documented range: the simulator's own typed error.
    let e = run_err(&[
        "explain",
        "ascend",
        "vec_cmpv_gt(dst_ub, src0_ub, src1_ub, 2, 8, 300)",
        "--tensor",
        "src0_ub=float16[2,128]",
        "--tensor",
        "src1_ub=float16[2,128]",
        "--tensor",
        "dst_ub=uint16[16]",
        "-o",
        o,
    ]);
    assert!(e.contains("src1_rep_stride") && e.contains("300"), "{e}");
    // Reading past the tensor.
    let e = run_err(&[
        "explain",
        "ascend",
        "vec_cmpv_gt(dst_ub, src0_ub, src1_ub, 3, 8, 7)",
        "--tensor",
        "src0_ub=float16[2,128]",
        "--tensor",
        "src1_ub=float16[2,128]",
        "--tensor",
        "dst_ub=uint16[16]",
        "-o",
        o,
    ]);
    assert!(e.contains("vec_cmpv_gt"), "{e}");
    // An undeclared tensor.
    let e = run_err(&[
        "explain",
        "ascend",
        "vec_add(128, z, x, y, 1, 8, 8, 8)",
        "--tensor",
        "x=float16[128]",
        "--tensor",
        "z=float16[128]",
        "-o",
        o,
    ]);
    assert!(e.contains("`y`") && e.contains("--tensor"), "{e}");
    // A line without a tile op.
    let e = run_err(&[
        "explain",
        "pto",
        repo("tests/explain_data/tpartmin_mismatched.pto")
            .to_str()
            .unwrap(),
        "--line",
        "3",
        "-o",
        o,
    ]);
    assert!(e.contains(":3") && e.contains("no tile instruction"), "{e}");
    assert!(!out.exists(), "no output file after an error");
}

/// A masked, block-strided call: the cells drawn are the lanes the mask selects at the
/// documented addresses (an independent scalar model of the address formula).
#[test]
fn masked_strided_vec_add_cells_follow_the_address_formula() {
    // mask [h, l]: lanes 0..7 and 64..71 (f16: 128 lanes); y starts at element 16.
    let (stdout, _) = run_ok(&[
        "explain",
        "ascend",
        "vadd([0xff, 0xff], z, x, y[16], 2, 1, 2, 1, 8, 16, 4)",
        "--tensor",
        "x=float16[1024]",
        "--tensor",
        "y=float16[512]",
        "--tensor",
        "z=float16[256]",
    ]);
    let cells = cells(&stdout);
    let lanes: Vec<u64> = (0..8).chain(64..72).collect();
    // (operand, start element, blk stride in blocks, rep stride in blocks)
    for (op, start, blk, rep) in [
        ("dst", 0u64, 1u64, 8u64),
        ("src0", 0, 2, 16),
        ("src1", 16, 1, 4),
    ] {
        let mut want: BTreeMap<u64, Vec<u32>> = BTreeMap::new();
        for r in 0..2u64 {
            for &e in &lanes {
                let elem = start + r * rep * 16 + (e / 16) * blk * 16 + e % 16;
                want.entry(elem).or_default().push(r as u32);
            }
        }
        let key = if op == "dst" { "write" } else { "read" };
        let got: BTreeMap<u64, Vec<u32>> = cells
            .iter()
            .filter(|c| c["op"] == op && !list(c.get(key)).is_empty())
            .map(|c| (c["elem"].parse().unwrap(), list(c.get(key))))
            .collect();
        assert_eq!(got, want, "{op}");
    }
}
