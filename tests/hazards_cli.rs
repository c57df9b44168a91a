//! `npusim run --hazards=off|warn|error` through the real binary: the seeded-bug kernels of
//! `crates/npusim-ptoas/tests/data/hazards/` are reported rustc-style with both source lines;
//! `error` fails the run and writes no output file, `warn` runs on and writes it, `off` says
//! nothing; the correct originals are silent.

use std::path::Path;
use std::process::{Command, Output};

const DATA: &str = "crates/npusim-ptoas/tests/data/hazards";

fn npusim(args: &[String]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_npusim"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn write_f32(path: &Path, shape: &[usize]) {
    let n: usize = shape.iter().product();
    let v: Vec<f32> = (0..n).map(|i| (i % 11) as f32).collect();
    let a = npusim_core::NpyArray::from_elems(shape.to_vec(), &v);
    npusim_core::npy::write_npy(path, &a).unwrap();
}

/// Runs a `(x, y, n_rows)` ping-pong kernel on 64 rows, `--out y=OUT`.
fn run_pp(dir: &Path, kernel: &str, extra: &[&str]) -> Output {
    for n in ["x", "y"] {
        write_f32(&dir.join(format!("{n}.npy")), &[64, 256]);
    }
    let mut a: Vec<String> = vec!["run".into(), format!("{DATA}/{kernel}")];
    for n in ["x", "y"] {
        a.push(format!(
            "--arg={n}={}",
            dir.join(format!("{n}.npy")).display()
        ));
    }
    a.push("--arg=n_rows=64".into());
    a.push(format!("--out=y={}", dir.join("out.npy").display()));
    a.extend(extra.iter().map(|s| s.to_string()));
    npusim(&a)
}

/// 1-based line of the only line of `kernel` after line `from` containing every needle.
fn line(kernel: &str, needles: &[&str], from: usize) -> usize {
    let src = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(DATA)
            .join(kernel),
    )
    .unwrap();
    let hits: Vec<usize> = src
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l))
        .filter(|(n, l)| *n > from && needles.iter().all(|k| l.contains(k)))
        .map(|(n, _)| n)
        .collect();
    hits[0]
}

#[test]
fn error_mode_fails_names_both_lines_and_writes_nothing() {
    let d = tempfile::tempdir().unwrap();
    let k = "missing_wait.pto";
    let o = run_pp(d.path(), k, &["--hazards=error"]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{e}");
    let add = line(k, &["pto.tadd ins(%a0"], 0);
    let load = line(k, &["pto.tload", "outs(%a0"], 0);
    assert!(e.contains("error[hazard]: WAR write-after-read"), "{e}");
    assert!(e.contains(&format!("{DATA}/{k}:{load}:")), "{e}");
    assert!(e.contains(&format!("{DATA}/{k}:{add}:")), "{e}");
    assert!(
        e.contains(&format!("\n{add} |")) && e.contains(&format!("\n{load} |")),
        "{e}"
    );
    assert!(e.contains("PIPE_V") && e.contains("PIPE_MTE2"), "{e}");
    assert!(e.contains("vec[0x"), "{e}");
    assert!(e.contains("no output written"), "{e}");
    assert!(!d.path().join("out.npy").exists());
    // No temporary file left beside it either.
    let names: Vec<String> = std::fs::read_dir(d.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
}

#[test]
fn warn_is_the_default_and_runs_on() {
    let d = tempfile::tempdir().unwrap();
    let o = run_pp(d.path(), "reuse_before_store.pto", &[]);
    let e = stderr(&o);
    assert!(o.status.success(), "{e}");
    assert!(e.contains("warning[hazard]: WAR write-after-read"), "{e}");
    assert!(e.contains("`--hazards=error` fails on them"), "{e}");
    assert!(d.path().join("out.npy").exists());
    let o = run_pp(d.path(), "reuse_before_store.pto", &["--hazards=off"]);
    assert!(o.status.success());
    assert!(!stderr(&o).contains("hazard"), "{}", stderr(&o));
}

#[test]
fn every_seeded_bug_fails_under_error_and_the_original_passes() {
    for k in [
        "missing_wait.pto",
        "wrong_event_id.pto",
        "reuse_before_store.pto",
        "double_buffer_swapped.pto",
    ] {
        let d = tempfile::tempdir().unwrap();
        let o = run_pp(d.path(), k, &["--hazards=error"]);
        assert_eq!(o.status.code(), Some(1), "{k}: {}", stderr(&o));
        assert!(stderr(&o).contains("error[hazard]"), "{k}");
        assert!(!d.path().join("out.npy").exists(), "{k}");
    }
    let d = tempfile::tempdir().unwrap();
    let o = run_pp(d.path(), "vadd_pingpong.pto", &["--hazards=error"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stderr(&o).contains("hazard"), "{}", stderr(&o));
    assert!(d.path().join("out.npy").exists());
}

#[test]
fn an_explicit_flag_on_an_auto_sync_kernel_says_it_is_not_checked() {
    let d = tempfile::tempdir().unwrap();
    write_f32(&d.path().join("x.npy"), &[16, 1024]);
    write_f32(&d.path().join("y.npy"), &[16, 1024]);
    let args = |extra: &str| -> Vec<String> {
        let mut a = vec![
            "run".to_string(),
            "examples/pto/row_softmax.pto".into(),
            format!("--arg=x={}", d.path().join("x.npy").display()),
            format!("--arg=y={}", d.path().join("y.npy").display()),
            "--arg=n_rows=16".into(),
        ];
        if !extra.is_empty() {
            a.push(extra.into());
        }
        a
    };
    let o = npusim(&args("--hazards=error"));
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("sync-hazard check skipped")
            && stderr(&o).contains("no intra-core sync ops"),
        "{}",
        stderr(&o)
    );
    let o = npusim(&args(""));
    assert!(o.status.success());
    assert!(!stderr(&o).contains("hazard"), "{}", stderr(&o));
}

#[test]
fn svg_dir_draws_the_first_k_tile_instructions_with_their_run_time_tiles() {
    let d = tempfile::tempdir().unwrap();
    let k = "row_softmax_synced.pto";
    for n in ["x", "y"] {
        write_f32(&d.path().join(format!("{n}.npy")), &[16, 1024]);
    }
    let dir = d.path().join("svg");
    let mut a: Vec<String> = vec!["run".into(), format!("{DATA}/{k}")];
    for n in ["x", "y"] {
        a.push(format!(
            "--arg={n}={}",
            d.path().join(format!("{n}.npy")).display()
        ));
    }
    a.push("--arg=n_rows=16".into());
    a.push(format!("--svg={}", dir.display()));
    a.push("--svg-count=3".into());
    let o = npusim(&a);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("wrote 3 access diagram(s)"),
        "{}",
        stderr(&o)
    );
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    // The first three tile instructions in execution order: the load, then row max and the
    // row-expand subtract, at their source lines.
    let load = line(k, &["pto.tload ins(%xp"], 0);
    let max = line(k, &["pto.trowmax"], 0);
    let sub = line(k, &["pto.trowexpandsub"], 0);
    assert_eq!(
        names,
        [
            format!("000_tload_line{load}.svg"),
            format!("001_trowmax_line{max}.svg"),
            format!("002_trowexpandsub_line{sub}.svg")
        ]
    );
    let svg = std::fs::read_to_string(dir.join(&names[0])).unwrap();
    assert!(
        svg.starts_with("<svg") || svg.starts_with("<?xml"),
        "{svg:.80}"
    );
    // The load writes its 8x1024 tile (drawn: 8 rows x the first 64 columns) and names the
    // GM window it reads.
    assert!(svg.contains("valid 8x1024"), "{svg:.400}");
    assert!(svg.contains("global memory operand"));
    assert_eq!(svg.matches("data-access=\"written\"").count(), 8 * 64);
    assert_eq!(svg.matches("data-access=\"read\"").count(), 0);
    // TROWMAX reads the source tile and writes the 8x1 column.
    let svg = std::fs::read_to_string(dir.join(&names[1])).unwrap();
    assert_eq!(svg.matches("data-access=\"written\"").count(), 8);
    assert!(svg.matches("data-access=\"read\"").count() >= 8 * 64);
}
