//! Regression tests for issue 12's table (rows named in each test), through the real binary.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn npusim(args: &[&str]) -> Output {
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
    let a = npusim_core::NpyArray::from_elems(shape.to_vec(), &vec![1.0f32; n]);
    npusim_core::npy::write_npy(path, &a).unwrap();
}

/// vector_add inputs of (64, 256) in `dir`; returns the `--arg`s.
fn vector_add_args(dir: &Path) -> Vec<String> {
    for n in ["x", "y", "z"] {
        write_f32(&dir.join(format!("{n}.npy")), &[64, 256]);
    }
    ["x", "y", "z"]
        .iter()
        .map(|n| format!("--arg={n}={}", dir.join(format!("{n}.npy")).display()))
        .chain(["--arg=n_rows=64".to_string()])
        .collect()
}

fn run_va(dir: &Path, extra: &[&str]) -> Output {
    let mut a: Vec<String> = vec!["run".into(), "examples/pto/vector_add.pto".into()];
    a.extend(vector_add_args(dir));
    a.extend(extra.iter().map(|s| s.to_string()));
    npusim(&a.iter().map(String::as_str).collect::<Vec<_>>())
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    v
}

#[test]
fn row2_step_budget_counts_blocks() {
    let d = tempfile::tempdir().unwrap();
    let t = std::time::Instant::now();
    let o = run_va(d.path(), &["--blocks", "4294967295", "--max-steps", "10"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("step limit exceeded"), "{}", stderr(&o));
    assert!(t.elapsed().as_secs() < 20);
}

#[test]
fn row5_outputs_checked_before_the_run_and_all_or_nothing() {
    let d = tempfile::tempdir().unwrap();
    let a = d.path().join("a.npy");
    let a_s = format!("z={}", a.display());
    let o = run_va(
        d.path(),
        &["--out", &a_s, "--out", "x=/nonexistent/dir/p.npy"],
    );
    assert_eq!(o.status.code(), Some(1));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(!out.contains("ran "), "the run started: {out}");
    assert!(stderr(&o).contains("/nonexistent/dir"), "{}", stderr(&o));
    assert!(!a.exists());
    // A run that fails leaves neither outputs nor temporary files.
    let before = files(d.path());
    let o = run_va(d.path(), &["--out", &a_s, "--max-steps", "3"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(files(d.path()), before);
    // Two outputs to one file are refused.
    let o = run_va(
        d.path(),
        &["--out", &a_s, "--out", &a_s.replace("z=", "x=")],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("both write"), "{}", stderr(&o));
}

#[test]
fn outputs_go_through_symlinks_and_to_stdout() {
    let d = tempfile::tempdir().unwrap();
    let target = d.path().join("target.npy");
    let link = d.path().join("link.npy");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let o = run_va(d.path(), &["--out", &format!("z={}", link.display())]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let z = npusim_core::npy::read_npy(&target).unwrap();
    assert_eq!(z.to_elems::<f32>().unwrap(), vec![2.0f32; 64 * 256]);
    let o = run_va(d.path(), &["--out", "z=-"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let z = npusim_core::npy::parse_npy(&o.stdout).unwrap();
    assert_eq!(z.to_elems::<f32>().unwrap(), vec![2.0f32; 64 * 256]);
    assert!(stderr(&o).contains("wrote %z to stdout"));
}

#[test]
fn row4_output_numpy_cannot_read_is_refused_before_the_run() {
    let d = tempfile::tempdir().unwrap();
    let args = vector_add_args(d.path());
    // A 65-dimension f32 array of 64x256 elements, header written by hand (numpy writes none).
    let dims = format!("64, 256{}", ", 1".repeat(63));
    let mut h = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': ({dims}), }}");
    h.push_str(&" ".repeat(63 - (10 + h.len()) % 64));
    h.push('\n');
    let mut img = b"\x93NUMPY\x01\x00".to_vec();
    img.extend_from_slice(&(h.len() as u16).to_le_bytes());
    img.extend_from_slice(h.as_bytes());
    img.extend(std::iter::repeat_n(0u8, 64 * 256 * 4));
    std::fs::write(d.path().join("z.npy"), img).unwrap();
    let out = d.path().join("out.npy");
    let mut a: Vec<String> = vec!["run".into(), "examples/pto/vector_add.pto".into()];
    a.extend(args);
    a.push(format!("--out=z={}", out.display()));
    let o = npusim(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("numpy reads at most 64"),
        "{}",
        stderr(&o)
    );
    assert!(!out.exists());
}

#[test]
fn row6_memory_budget_is_an_error() {
    let d = tempfile::tempdir().unwrap();
    let o = run_va(d.path(), &["--max-memory", "100K"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("memory budget exceeded"),
        "{}",
        stderr(&o)
    );
    let o = run_va(d.path(), &["--max-memory", "1M"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn row10_io_error_text_printed_once() {
    let o = npusim(&["tpu", "check", "/nonexistent/notjson.json"]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert_eq!(e.matches("No such file").count(), 1, "{e}");
    let d = tempfile::tempdir().unwrap();
    let o = run_va(d.path(), &["--arg", "x=/nonexistent/x.npy"]);
    assert_eq!(
        stderr(&o).matches("No such file").count(),
        1,
        "{}",
        stderr(&o)
    );
}

#[test]
fn row12_target_aliases_and_blocks_zero() {
    let d = tempfile::tempdir().unwrap();
    for t in ["a2a3", "a2", "a3", "910b", "ascend910b", "a5", "950"] {
        let o = run_va(d.path(), &["--target", t]);
        assert!(o.status.success(), "{t}: {}", stderr(&o));
    }
    let o = run_va(d.path(), &["--target", "310"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no PTO tile target"), "{}", stderr(&o));
    let o = run_va(d.path(), &["--blocks", "0"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(!stderr(&o).contains("-->"), "{}", stderr(&o));
}

#[test]
fn row13_gm_alloc_fails_with_an_error() {
    let mut c = npusim_pto::TileCore::by_name("a2a3").unwrap();
    assert!(c.gm_alloc(u64::MAX - 8).is_err());
    assert!(c.gm_reserve(1 << 62).is_err());
    assert!(c.gm_alloc(64).is_ok());
}

/// A call tree without loops or recursion (PTO-AS rejects recursion, `[no-recursion]`):
/// `@rec0`..`@rec60`, each calling the next twice while its `%n` is positive, with `%n - 1`, so
/// a run makes 2^min(n, 60) - 1 calls below the entry.
fn call_tree() -> String {
    let mut s = String::from("module {\n");
    for i in 0..=60 {
        s += &format!(
            "  func.func @rec{i}(%n: index) {{\n    %c0 = arith.constant 0 : index\n    %c1 = arith.constant 1 : index\n    %p = arith.cmpi sgt, %n, %c0 : index\n    scf.if %p {{\n      %m = arith.subi %n, %c1 : index\n"
        );
        if i < 60 {
            let j = i + 1;
            s += &format!(
                "      func.call @rec{j}(%m) : (index) -> ()\n      func.call @rec{j}(%m) : (index) -> ()\n"
            );
        }
        s += "    }\n    return\n  }\n";
    }
    s + "}\n"
}

#[test]
fn row1_step_budget_counts_calls_without_loops() {
    let d = tempfile::tempdir().unwrap();
    let k = d.path().join("rec.pto");
    std::fs::write(&k, call_tree()).unwrap();
    let k = k.to_str().unwrap();
    let o = npusim(&["run", k, "--arg", "n=40", "--max-steps", "1000"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("step limit exceeded at `func.call`"), "{e}");
    assert!(e.contains("rec.pto:"), "{e}");
    // 2^5 - 1 calls of a few instructions each fit a budget of 1000.
    let o = npusim(&["run", k, "--arg", "n=5", "--max-steps", "1000"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn row7_check_reports_ops_run_cannot_execute() {
    let d = tempfile::tempdir().unwrap();
    let k = d.path().join("ext.pto");
    std::fs::write(
        &k,
        "module {\n  func.func private @ext(%a: index)\n  func.func @f(%n: index) {\n    func.call @ext(%n) : (index) -> ()\n    return\n  }\n}\n",
    )
    .unwrap();
    let k = k.to_str().unwrap();
    let o = npusim(&["check", k]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(
        e.contains("cannot be executed by `npusim run`") && e.contains("ext.pto:4"),
        "{e}"
    );
    let o = npusim(&["check", k, "--allow-unsupported"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("warning:"));
}

#[test]
fn row3_work_and_time_budgets() {
    let d = tempfile::tempdir().unwrap();
    let o = run_va(d.path(), &["--max-work", "1000"]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(e.contains("work limit exceeded at `pto.t"), "{e}");
    let k = d.path().join("rec.pto");
    std::fs::write(&k, call_tree()).unwrap();
    let t = std::time::Instant::now();
    let o = npusim(&[
        "run",
        k.to_str().unwrap(),
        "--arg",
        "n=60",
        "--max-steps",
        "18446744073709551615",
        "--timeout",
        "0.3",
    ]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(e.contains("time limit exceeded at `"), "{e}");
    assert!(t.elapsed().as_secs() < 10);
}

/// A kernel with one parameter of each scalar type the range check covers.
const SCALARS: &str = "module {
  func.func @s(%k: i32, %i: index, %b: i8, %h: f16, %w: bf16, %e: f32) {
    return
  }
}
";

fn run_scalars(dir: &Path, over: &[(&str, &str)]) -> Output {
    let k = dir.join("scalars.pto");
    std::fs::write(&k, SCALARS).unwrap();
    let mut vals = [
        ("k", "1"),
        ("i", "1"),
        ("b", "1"),
        ("h", "1"),
        ("w", "1"),
        ("e", "1"),
    ];
    for (n, v) in over {
        vals.iter_mut().find(|(m, _)| m == n).unwrap().1 = v;
    }
    let mut a = vec!["run".to_string(), k.display().to_string()];
    a.extend(vals.iter().map(|(n, v)| format!("--arg={n}={v}")));
    npusim(&a.iter().map(String::as_str).collect::<Vec<_>>())
}

#[test]
fn row11_scalar_args_range_checked_against_the_parameter_type() {
    let d = tempfile::tempdir().unwrap();
    // Overflowing floats are command-line errors naming parameter, type and value.
    for (n, v, t) in [
        ("e", "1e999", "f32"),
        ("e", "-1e39", "f32"),
        ("h", "70000", "f16"),
        ("w", "1e39", "bf16"),
    ] {
        let o = run_scalars(d.path(), &[(n, v)]);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{n}={v}: {e}");
        assert!(
            e.contains(&format!("--arg {n}={v}")) && e.contains("overflows") && e.contains(t),
            "{e}"
        );
        assert!(!String::from_utf8_lossy(&o.stdout).contains("ran "));
    }
    // NaN and infinities written as such run, with a warning.
    for v in ["nan", "inf", "-inf", "NaN", "infinity"] {
        let o = run_scalars(d.path(), &[("e", v)]);
        let e = stderr(&o);
        assert!(o.status.success(), "{v}: {e}");
        assert!(
            e.contains("warning:") && e.contains(&format!("--arg e={v}")),
            "{e}"
        );
    }
    // Integers: the signed range of the type; hex gives a bit pattern of the type's width.
    for (n, v, range) in [
        (
            "i",
            "18446744073709551615",
            "-9223372036854775808..=9223372036854775807",
        ),
        (
            "i",
            "99999999999999999999999999999999999999999",
            "..=9223372036854775807",
        ),
        ("k", "2147483648", "-2147483648..=2147483647"),
        ("k", "-2147483649", "-2147483648..=2147483647"),
        ("k", "0x100000000", "0xffffffff"),
        ("b", "128", "-128..=127"),
    ] {
        let o = run_scalars(d.path(), &[(n, v)]);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{n}={v}: {e}");
        assert!(
            e.contains(&format!("--arg {n}={v}: out of range for `%{n}`")) && e.contains(range),
            "{e}"
        );
    }
    for (n, v) in [
        ("i", "9223372036854775807"),
        ("i", "-9223372036854775808"),
        ("i", "0xffffffffffffffff"),
        ("k", "-2147483648"),
        ("k", "0xffffffff"),
        ("b", "-128"),
        ("h", "65504"),
        ("e", "3.4028235e38"),
        ("e", "1e-50"),
    ] {
        let o = run_scalars(d.path(), &[(n, v)]);
        assert!(o.status.success(), "{n}={v}: {}", stderr(&o));
        assert!(!stderr(&o).contains("warning"), "{}", stderr(&o));
    }
}

#[test]
fn row11_input_shape_checked_against_the_tensor_view() {
    let d = tempfile::tempdir().unwrap();
    let va = |x_shape: &[usize]| {
        write_f32(&d.path().join("x.npy"), x_shape);
        write_f32(&d.path().join("y.npy"), &[64, 256]);
        write_f32(&d.path().join("z.npy"), &[64, 256]);
        let a: Vec<String> = ["x", "y", "z"]
            .iter()
            .map(|n| format!("--arg={n}={}", d.path().join(format!("{n}.npy")).display()))
            .collect();
        let mut v = vec!["run", "examples/pto/vector_add.pto", "--arg", "n_rows=64"];
        v.extend(a.iter().map(String::as_str));
        npusim(&v)
    };
    // vector_add views %x as ?x256 with row-major strides: the byte count of a 1-D or 3-D
    // array would fit, the shape does not.
    for (shape, shown) in [
        (&[4, 16, 256][..], "(4, 16, 256) (3-D)"),
        (&[64, 128, 2][..], "(64, 128, 2) (3-D)"),
        (&[128, 128][..], "(128, 128) (2-D)"),
    ] {
        let o = va(shape);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{shape:?}: {e}");
        assert!(
            e.contains(&format!("--arg x: the array's shape {shown}"))
                && e.contains(
                    "expected shape (?, 256) (2-D, !pto.tensor_view<?x256xf32>, line 12)"
                ),
            "{e}"
        );
    }
    // Compatible: leading 1s, more rows than the run uses, and a flat 1-D buffer (as
    // PTOAS's validation passes `.bin` files).
    for shape in [
        &[64 * 256][..],
        &[64, 256][..],
        &[1, 64, 256][..],
        &[1, 1, 64, 256][..],
        &[80, 256][..],
    ] {
        let o = va(shape);
        assert!(o.status.success(), "{shape:?}: {}", stderr(&o));
    }
}

const TWO_ENTRIES: &str = "module {
  func.func @first(%n: index) attributes {pto.entry} {
    return
  }
  func.func @helper(%n: index) {
    return
  }
  func.func @second(%n: index) attributes {pto.entry} {
    func.call @helper(%n) : (index) -> ()
    return
  }
}
";

#[test]
fn row11_ambiguous_entry_functions_are_an_error() {
    let d = tempfile::tempdir().unwrap();
    let k = d.path().join("two.pto");
    std::fs::write(&k, TWO_ENTRIES).unwrap();
    let k = k.to_str().unwrap();
    let o = npusim(&["run", k, "--arg", "n=1"]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(
        e.contains("2 functions could be the kernel to run: @first, @second")
            && e.contains("--func"),
        "{e}"
    );
    for f in ["first", "@second", "helper"] {
        let o = npusim(&["run", k, "--func", f, "--arg", "n=1"]);
        assert!(o.status.success(), "{f}: {}", stderr(&o));
    }
    // One uncalled function among several is still the default.
    let one = TWO_ENTRIES.replace(
        "func.call @helper(%n)",
        "func.call @first(%n) : (index) -> ()\n    func.call @helper(%n)",
    );
    let k1 = d.path().join("one.pto");
    std::fs::write(&k1, one).unwrap();
    let o = npusim(&["run", k1.to_str().unwrap(), "--arg", "n=1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("6 instructions executed"));
}

#[test]
fn row11_pto_entry_names_the_kernel_among_uncalled_functions() {
    let d = tempfile::tempdir().unwrap();
    let k = d.path().join("marked.pto");
    let body = |name: &str, attr: &str| {
        format!("  func.func @{name}(%n: index){attr} {{\n    return\n  }}\n")
    };
    std::fs::write(
        &k,
        format!("module {{\n{}{}}}\n", body("first", ""), body("second", "")),
    )
    .unwrap();
    let ks = k.to_str().unwrap();
    let o = npusim(&["run", ks, "--arg=n=1"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("@first, @second"), "{}", stderr(&o));
    // `attributes {pto.entry}` on one of them makes it the kernel.
    std::fs::write(
        &k,
        format!(
            "module {{\n{}{}}}\n",
            body("first", ""),
            body("second", " attributes {pto.entry}")
        ),
    )
    .unwrap();
    let o = npusim(&["run", ks, "--arg=n=1"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn kernel_prints_reach_stdout_in_order_even_when_the_kernel_then_traps() {
    let d = tempfile::tempdir().unwrap();
    let k = d.path().join("p.pto");
    std::fs::write(
        &k,
        "module {\n  func.func @f(%n: index) {\n    pto.print ins(\"n = %d\", %n : index)\n    pto.print ins(\"again %04d\\n\", %n : index)\n    pto.trap\n    return\n  }\n}\n",
    )
    .unwrap();
    let o = npusim(&["run", k.to_str().unwrap(), "--arg", "n=7"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    let f = k.display();
    assert_eq!(
        out,
        format!("[block 0 {f}:3] n = 7\n[block 0 {f}:4] again 0007\n")
    );
    assert!(stderr(&o).contains("pto.trap"), "{}", stderr(&o));
}
