//! Issue 18, print calls through the binaries: `npusim ascendc run` of a kernel with
//! `AscendC::printf` / `PRINTF` / `DumpTensor` writes every print to stdout in execution order,
//! each line tagged `[block B FILE:LINE]` (the texts themselves are checked against the host C
//! library in `crates/npusim-capi/tests/print.rs`). Needs the host C++ compiler (g++).

use npusim_core::npy::{NpyArray, write_npy};
use std::path::PathBuf;
use std::process::Command;

#[test]
fn ascendc_run_writes_tagged_prints_in_block_and_call_order() {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("crates/npusim-capi/tests/kernels/print.cpp");
    let text = std::fs::read_to_string(&src).unwrap();
    let line = |m: &str| text.lines().position(|l| l.contains(m)).unwrap() + 1;
    let d = tempfile::tempdir().unwrap();
    let x: Vec<f32> = (0..256).map(|i| i as f32 * 0.5 - 1.25).collect();
    write_npy(
        &d.path().join("x.npy"),
        &NpyArray::from_elems(vec![256], &x),
    )
    .unwrap();
    write_npy(
        &d.path().join("y.npy"),
        &NpyArray::from_elems(vec![256], &[0f32; 256]),
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_npusim"))
        .current_dir(d.path())
        .args(["ascendc", "run"])
        .arg(&src)
        .args([
            "--kernel",
            "print_kernel",
            "--blocks",
            "3",
            "--arg",
            "x=x.npy",
            "--arg",
            "y=y.npy",
        ])
        .args(["--cache-dir", "cache"])
        .output()
        .expect("npusim runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}\n{}",
        stdout,
        String::from_utf8_lossy(&out.stderr)
    );
    let tagged: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("[block "))
        .collect();
    // Per block: P1..P5 one line each, P6 three lines, P7 two, P8 four, P9 two.
    let per_block = 5 + 3 + 2 + 4 + 2;
    assert_eq!(tagged.len(), 3 * per_block, "{stdout}");
    for b in 0..3 {
        let first = tagged[b * per_block];
        assert_eq!(
            first,
            format!("[block {b} print.cpp:{}] block {b} of 3", line("// P1"))
        );
        let dump = tagged[b * per_block + 8];
        assert!(
            dump.starts_with(&format!("[block {b} print.cpp:{}] DumpTensor: desc=7, addr=0, data_type=float32, position=UB, dump_size=8", line("// P7"))),
            "{dump}"
        );
        let x0 = tagged[b * per_block + 5];
        assert_eq!(
            x0,
            format!(
                "[block {b} print.cpp:{}] x[0] = {:.6}",
                line("// P6"),
                x[8 * b]
            )
        );
    }
}
