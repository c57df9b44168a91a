//! End-to-end tests of the `npusim` binary: the README's demo, the HAU golden replay, and the
//! help text's examples.

use std::path::PathBuf;
use std::process::Command;

fn npusim() -> Command {
    Command::new(env!("CARGO_BIN_EXE_npusim"))
}

fn golden_hau() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("golden/hau/bm1684x-cmodel.json")
}

/// The CLI replayed all 382 cases of the vendor golden file, every one passed, and it exited 0.
fn assert_replayed_all(out: &std::process::Output) {
    assert_passed_all(out, 382);
}

/// The last line is "N passed, 0 failed" with N = `cases`, and the exit status is success.
fn assert_passed_all(out: &std::process::Output, cases: usize) {
    let text = String::from_utf8_lossy(&out.stdout);
    let last = text.lines().last().unwrap_or_default();
    let nums: Vec<usize> = last
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|w| w.parse().ok())
        .collect();
    assert_eq!(nums.len(), 2, "{text}");
    assert_eq!((nums[0], nums[1]), (cases, 0), "{text}");
    assert!(out.status.success(), "{text}");
}

#[test]
fn tpu_check_passes_every_committed_golden_file() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    // bdc_div.json is left out on purpose: the C-model's f32 division is not modelled yet
    // (npusim-tpu keeps it behind an ignored test).
    for (file, cases) in [
        ("golden/hau/denormals.json", 427),
        ("golden/tpu/gdma.json", 99),
    ] {
        let out = npusim()
            .args(["tpu", "check", file])
            .current_dir(&root)
            .output()
            .unwrap();
        assert_passed_all(&out, cases);
    }
}

#[test]
fn demo_runs_every_example_and_they_match() {
    let out = npusim().arg("demo").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("dst_gm  = [2, 0, 0, 0, 0, 0, 0, 0, 5, 5, 5, 5, 5, 5, 5, 5]"),
        "{text}"
    );
    assert!(text.contains("PairReduceSum"));
    assert!(text.contains("HAU top-"));
    assert!(!text.contains(": NO"), "{text}");
    assert!(text.contains("all examples match their documented results"));
}

#[test]
fn hau_check_replays_the_vendor_golden_file() {
    let path = golden_hau();
    assert!(path.exists(), "golden file missing: {}", path.display());
    let out = npusim().args(["hau", "check"]).arg(&path).output().unwrap();
    assert_replayed_all(&out);
}

#[test]
fn hau_check_fails_loudly_on_a_bad_file() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, r#"{"cases":[{"op":"sort","dtype":"f32","len":2,"k":2,"descended":true,"input":[1065353216,1073741824],"out_fill_byte":0,"out_data":[1065353216,1073741824]}]}"#).unwrap();
    let out = npusim().args(["hau", "check"]).arg(&bad).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success());
    assert!(text.contains("0 passed, 1 failed"), "{text}");
    let out = npusim()
        .args(["hau", "check", "/nonexistent.json"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("error:"));
}

#[test]
fn help_shows_examples() {
    let out = npusim().arg("--help").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Examples:") && text.contains("npusim demo"),
        "{text}"
    );
    let out = npusim().args(["hau", "check", "--help"]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("Example:"));
}

/// Row 8 of issue 12: the repository is self-contained. No root test or CLI source refers to
/// `../shared`, and every file path in the help examples exists relative to the repository root.
#[test]
fn repository_is_self_contained_and_help_paths_exist() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut dirs = vec![root.join("tests"), root.join("src")];
    while let Some(dir) = dirs.pop() {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&p) else {
                continue; // not text
            };
            let needle = ["..", "/shared/"].concat();
            assert!(
                !text.contains(&needle),
                "{} reads outside the repository",
                p.display()
            );
        }
    }
    for args in [
        &["--help"][..],
        &["hau", "check", "--help"],
        &["tpu", "check", "--help"],
    ] {
        let out = npusim().args(args).current_dir(&root).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{args:?}: {text}");
        for word in text.split_whitespace() {
            if word.ends_with(".json") || word.ends_with(".pto") {
                assert!(
                    root.join(word).exists(),
                    "{args:?}: help names {word}, missing"
                );
            }
        }
    }
}

#[test]
fn tpu_check_replays_the_golden_file_and_hau_check_is_an_alias() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    for cmd in ["tpu", "hau"] {
        let out = npusim()
            .args([cmd, "check", "golden/hau/bm1684x-cmodel.json"])
            .current_dir(&root)
            .output()
            .unwrap();
        assert_replayed_all(&out);
    }
}

/// The issue-11 benchmark kernels (examples/pto/bench) run and compute what they say: TADD
/// loop against a scalar f32 model, TEXP loop against an f64 exp (relative 1e-6), the
/// block-split softmax against an f64 softmax.
#[test]
fn bench_kernels_compute_their_workloads() {
    use npusim_core::NpyArray;
    use npusim_core::npy::{read_npy, write_npy};
    let d = tempfile::tempdir().unwrap();
    let p = |n: &str| d.path().join(n);
    let save = |n: &str, shape: &[usize], v: &[f32]| {
        write_npy(&p(n), &NpyArray::from_elems(shape.to_vec(), v)).unwrap()
    };
    let run = |args: &[String]| {
        let o = npusim()
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(args)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    let s = |x: &str| x.to_string();
    let arg = |n: &str, f: &str| format!("--arg={n}={}", p(f).display());
    // TADD: a += b, 37 times.
    let a: Vec<f32> = (0..256).map(|i| i as f32 * 0.37 - 20.0).collect();
    let b: Vec<f32> = (0..256).map(|i| (i % 7) as f32 * 0.011 + 1e-3).collect();
    save("a.npy", &[16, 16], &a);
    save("b.npy", &[16, 16], &b);
    run(&[
        s("run"),
        s("examples/pto/bench/tadd_loop.pto"),
        arg("a", "a.npy"),
        arg("b", "b.npy"),
        arg("c", "a.npy"),
        s("--arg=iters=37"),
        format!("--out=c={}", p("c.npy").display()),
    ]);
    let got = read_npy(&p("c.npy")).unwrap().to_elems::<f32>().unwrap();
    let want: Vec<f32> = a
        .iter()
        .zip(&b)
        .map(|(x, y)| (0..37).fold(*x, |acc, _| acc + y))
        .collect();
    assert_eq!(got, want);
    // TEXP: a = exp(b), 3 times.
    let e: Vec<f32> = (0..64 * 128)
        .map(|i| (i % 97) as f32 * 0.01 - 0.5)
        .collect();
    save("e.npy", &[64, 128], &e);
    save("z.npy", &[64, 128], &[0.0; 64 * 128]);
    run(&[
        s("run"),
        s("examples/pto/bench/texp_loop.pto"),
        arg("a", "z.npy"),
        arg("b", "e.npy"),
        arg("c", "z.npy"),
        s("--arg=iters=3"),
        format!("--out=c={}", p("ce.npy").display()),
    ]);
    let got = read_npy(&p("ce.npy")).unwrap().to_elems::<f32>().unwrap();
    for (g, x) in got.iter().zip(&e) {
        let w = (*x as f64).exp();
        assert!(
            ((*g as f64) - w).abs() <= 1e-6 * w,
            "exp({x}) = {w}, got {g}"
        );
    }
    // Softmax over 64 rows split over 3 blocks (8-row tiles round-robin).
    let x: Vec<f32> = (0..64 * 1024)
        .map(|i| ((i * 7919) % 1000) as f32 * 0.01 - 5.0)
        .collect();
    save("x.npy", &[64, 1024], &x);
    run(&[
        s("run"),
        s("examples/pto/bench/row_softmax_blocks.pto"),
        s("--blocks=3"),
        arg("x", "x.npy"),
        arg("y", "x.npy"),
        s("--arg=n_rows=64"),
        format!("--out=y={}", p("y.npy").display()),
    ]);
    let got = read_npy(&p("y.npy")).unwrap().to_elems::<f32>().unwrap();
    for (row, g) in x.chunks(1024).zip(got.chunks(1024)) {
        let m = row.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b as f64));
        let s: f64 = row.iter().map(|v| (*v as f64 - m).exp()).sum();
        for (v, gv) in row.iter().zip(g) {
            let w = (*v as f64 - m).exp() / s;
            assert!(((*gv as f64) - w).abs() <= 1e-5 * w + 1e-9, "{gv} vs {w}");
        }
    }
}

/// Issue #16: the BDC cast/move/compare/bitwise C-model vectors replay with 0 failed through
/// `npusim tpu check` (the one command for HAU and TPU golden files).
#[test]
fn tpu_check_passes_the_bdc_cast_move_cmp_bit_files() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    for (file, cases) in [
        ("golden/tpu/bdc.json", 103),
        ("golden/tpu/cast.json", 519),
        ("golden/tpu/move.json", 111),
        ("golden/tpu/cmp.json", 116),
        ("golden/tpu/bit.json", 108),
    ] {
        let out = npusim()
            .args(["tpu", "check", file])
            .current_dir(&root)
            .output()
            .unwrap();
        assert_passed_all(&out, cases);
    }
}

/// Writing into a closed pipe ends `npusim` quietly (SIGPIPE), never with a panic message.
#[cfg(unix)]
#[test]
fn closed_stdout_pipe_is_not_a_panic() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut child = npusim()
        .args(["tpu", "check", "golden/tpu/cast.json"])
        .current_dir(&root)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take()); // the reader goes away, as `| head` does
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
}
