//! `npusim run --threads N`: the written outputs equal `--threads 1`'s byte for byte, and a
//! kernel whose blocks write the same GM bytes runs in order with a note on stderr naming the
//! two blocks and the range.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn examples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/pto")
}

/// A .npy file of `n` f32 values `f(i)`, shape (n,).
fn write_f32(path: &Path, n: usize, f: impl Fn(usize) -> f32) {
    let header = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': ({n},), }}");
    let pad = 64 - (10 + header.len() + 1) % 64;
    let mut b = b"\x93NUMPY\x01\x00".to_vec();
    b.extend_from_slice(&((header.len() + pad % 64 + 1) as u16).to_le_bytes());
    b.extend_from_slice(header.as_bytes());
    b.extend(std::iter::repeat_n(b' ', pad % 64));
    b.push(b'\n');
    for i in 0..n {
        b.extend_from_slice(&f(i).to_le_bytes());
    }
    std::fs::write(path, b).unwrap();
}

fn npusim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_npusim"))
        .args(args)
        .output()
        .unwrap()
}

fn run_ok(args: &[&str]) -> String {
    let o = npusim(args);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(
        o.status.success(),
        "{}\n{err}",
        String::from_utf8_lossy(&o.stdout)
    );
    err
}

#[test]
fn threads_give_the_same_output_files() {
    // 64 rows (64 KiB), and 2,560 rows (2.5 MiB: the output is written in parts on the
    // threads, `write_file`).
    for rows in [64usize, 2560] {
        let d = tempfile::tempdir().unwrap();
        let p = |n: &str| d.path().join(n).to_string_lossy().into_owned();
        let n = rows * 256;
        write_f32(&d.path().join("x.npy"), n, |i| {
            (i % 97) as f32 * 0.25 - 12.0
        });
        write_f32(&d.path().join("y.npy"), n, |_| 0.0);
        let k = examples().join("multicore_split.pto");
        let k = k.to_string_lossy();
        let mut outs = Vec::new();
        for t in ["1", "2", "3"] {
            let out = p(&format!("out{t}.npy"));
            let err = run_ok(&[
                "run",
                &k,
                "--blocks",
                "4",
                "--threads",
                t,
                "--arg",
                &format!("x={}", p("x.npy")),
                "--arg",
                &format!("y={}", p("y.npy")),
                "--arg",
                &format!("n_rows={rows}"),
                "--arg",
                "alpha=1.5",
                "--arg",
                "beta=-0.25",
                "--out",
                &format!("y={out}"),
            ]);
            assert!(!err.contains("note:"), "{err}");
            outs.push(std::fs::read(out).unwrap());
        }
        assert_eq!(outs[0], outs[1], "{rows} rows");
        assert_eq!(outs[0], outs[2], "{rows} rows");
        // The file is the input's header (same dtype and shape) and n values; every value is
        // relu(1.5 x - 0.25), checked in full against a plain model.
        let input = std::fs::read(p("x.npy")).unwrap();
        let h = input.len() - 4 * n;
        assert_eq!(outs[0].len(), input.len());
        assert_eq!(outs[0][..h], input[..h]);
        for (i, v) in outs[0][h..].chunks_exact(4).enumerate() {
            let x = (i % 97) as f32 * 0.25 - 12.0;
            let want = (1.5 * x - 0.25f32).max(0.0);
            assert_eq!(
                f32::from_le_bytes(v.try_into().unwrap()),
                want,
                "{rows} rows, {i}"
            );
        }
    }
}

#[test]
fn overlapping_blocks_run_in_order_with_a_note() {
    // vector_add ignores the block index: with 2 blocks both write all of z.
    let d = tempfile::tempdir().unwrap();
    let p = |n: &str| d.path().join(n).to_string_lossy().into_owned();
    for n in ["x", "y", "z"] {
        write_f32(&d.path().join(format!("{n}.npy")), 64 * 256, |i| i as f32);
    }
    let k = examples().join("vector_add.pto");
    let k = k.to_string_lossy();
    let mut outs = Vec::new();
    for t in ["1", "2"] {
        let out = p(&format!("out{t}.npy"));
        let err = run_ok(&[
            "run",
            &k,
            "--blocks",
            "2",
            "--threads",
            t,
            "--arg",
            &format!("x={}", p("x.npy")),
            "--arg",
            &format!("y={}", p("y.npy")),
            "--arg",
            &format!("z={}", p("z.npy")),
            "--arg",
            "n_rows=64",
            "--out",
            &format!("z={out}"),
        ]);
        if t == "2" {
            assert!(
                err.contains(
                    "note: --threads 2: blocks 0 and 1 both write bytes 0..65536 of `%z`; the blocks ran in order on one thread"
                ),
                "{err}"
            );
        } else {
            assert!(!err.contains("note:"), "{err}");
        }
        outs.push(std::fs::read(out).unwrap());
    }
    assert_eq!(outs[0], outs[1]);
}

#[test]
fn threads_zero_is_refused_and_the_help_states_the_rule() {
    let o = npusim(&["run", "k.pto", "--threads", "0"]);
    assert!(!o.status.success());
    let help = npusim(&["run", "--help"]);
    let text = String::from_utf8_lossy(&help.stdout);
    assert!(text.contains("--threads <N>"), "{text}");
    assert!(
        text.contains("no block writes GM bytes another block") && text.contains("reads or writes"),
        "{text}"
    );
}
