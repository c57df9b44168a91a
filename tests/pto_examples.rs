//! Every kernel in `examples/pto/` through the CLI against its numpy reference:
//! `python3 NAME_ref.py gen DIR`, `npusim run ... --out ...`, `python3 NAME_ref.py check DIR OUT`.
//! Tolerances live in the reference scripts (and `examples/pto/README.md`): exact for
//! vector_add and multicore_split (chains of correctly rounded f32 ops), rtol 1e-5 with a small
//! atol for the kernels that reduce in a different order than numpy's float64 reference.
//! Also: `npusim check`, the help texts, and CLI diagnostics that must not leave output files.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn examples() -> PathBuf {
    root().join("examples/pto")
}

fn ensure_python() {
    let st = Command::new("bash")
        .arg(root().join("scripts/ensure-python-deps.sh"))
        .status()
        .expect("bash");
    assert!(st.success(), "could not install numpy/ml_dtypes");
}

fn python(script: &str, args: &[&str]) -> Output {
    Command::new("python3")
        .current_dir(examples())
        .arg(script)
        .args(args)
        .output()
        .expect("python3")
}

fn npusim(args: &[String]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_npusim"))
        .args(args)
        .output()
        .expect("npusim")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Runs one example: gen, run, check. `args` uses `{D}` for the data directory.
fn example(name: &str, run_args: &[&str], outs: &[&str]) -> String {
    ensure_python();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap().to_string();
    let script = format!("{name}_ref.py");
    let g = python(&script, &["gen", &d]);
    assert!(g.status.success(), "{}", text(&g));
    let mut args = vec![
        "run".to_string(),
        examples()
            .join(format!("{name}.pto"))
            .to_str()
            .unwrap()
            .to_string(),
    ];
    args.extend(run_args.iter().map(|a| a.replace("{D}", &d)));
    let r = npusim(&args);
    let run_text = text(&r);
    assert!(r.status.success(), "{run_text}");
    let mut check = vec!["check".to_string(), d.clone()];
    check.extend(outs.iter().map(|o| o.replace("{D}", &d)));
    let check_refs: Vec<&str> = check.iter().map(String::as_str).collect();
    let c = python(&script, &check_refs);
    assert!(
        c.status.success(),
        "numpy check failed:\n{}\nrun output:\n{run_text}",
        text(&c)
    );
    let ct = text(&c);
    assert!(ct.contains(": ok:"), "{ct}");
    run_text
}

#[test]
fn vector_add_matches_numpy_exactly() {
    let out = example(
        "vector_add",
        &[
            "--arg",
            "x={D}/x.npy",
            "--arg",
            "y={D}/y.npy",
            "--arg",
            "z={D}/z.npy",
            "--arg",
            "n_rows=64",
            "--out",
            "z={D}/out.npy",
        ],
        &["{D}/out.npy"],
    );
    assert!(out.contains("pto.tadd"), "{out}");
    assert!(out.contains("GM -> on-chip: 131072 bytes"), "{out}");
}

#[test]
fn row_softmax_matches_numpy() {
    example(
        "row_softmax",
        &[
            "--arg",
            "x={D}/x.npy",
            "--arg",
            "y={D}/y.npy",
            "--arg",
            "n_rows=32",
            "--out",
            "y={D}/out.npy",
        ],
        &["{D}/out.npy"],
    );
}

#[test]
fn rmsnorm_matches_numpy() {
    example(
        "rmsnorm",
        &[
            "--arg",
            "x={D}/x.npy",
            "--arg",
            "gamma={D}/gamma.npy",
            "--arg",
            "y={D}/y.npy",
            "--arg",
            "n_rows=32",
            "--arg",
            "eps=1e-6",
            "--out",
            "y={D}/out.npy",
        ],
        &["{D}/out.npy"],
    );
}

#[test]
fn online_softmax_step_matches_numpy() {
    let mut a = Vec::new();
    for n in [
        "scores", "m_prev", "l_prev", "o_prev", "p", "m_new", "l_new", "o_out",
    ] {
        a.push("--arg".to_string());
        a.push(format!("{n}={{D}}/{n}.npy"));
    }
    a.extend(["--arg".to_string(), "scale=0.125".to_string()]);
    for n in ["p", "m_new", "l_new", "o_out"] {
        a.push("--out".to_string());
        a.push(format!("{n}={{D}}/{n}_out.npy"));
    }
    let refs: Vec<&str> = a.iter().map(String::as_str).collect();
    example(
        "online_softmax_step",
        &refs,
        &[
            "{D}/p_out.npy",
            "{D}/m_new_out.npy",
            "{D}/l_new_out.npy",
            "{D}/o_out_out.npy",
        ],
    );
}

#[test]
fn multicore_split_matches_numpy_for_any_block_count() {
    for blocks in ["1", "3", "8"] {
        let out = example(
            "multicore_split",
            &[
                "--blocks",
                blocks,
                "--arg",
                "x={D}/x.npy",
                "--arg",
                "y={D}/y.npy",
                "--arg",
                "n_rows=64",
                "--arg",
                "alpha=1.5",
                "--arg",
                "beta=-0.25",
                "--out",
                "y={D}/out.npy",
            ],
            &["{D}/out.npy"],
        );
        assert!(out.contains(&format!("{blocks} block(s)")), "{out}");
    }
}

/// The numpy check is not vacuous: a one-ulp change to a correct output fails it.
#[test]
fn numpy_check_rejects_a_perturbed_output() {
    ensure_python();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    assert!(python("vector_add_ref.py", &["gen", d]).status.success());
    let x = npusim_core::npy::read_npy(&dir.path().join("x.npy")).unwrap();
    let y = npusim_core::npy::read_npy(&dir.path().join("y.npy")).unwrap();
    let mut z: Vec<f32> = x
        .to_elems::<f32>()
        .unwrap()
        .iter()
        .zip(y.to_elems::<f32>().unwrap())
        .map(|(a, b)| a + b)
        .collect();
    let good = dir.path().join("good.npy");
    let arr = npusim_core::NpyArray::from_elems(x.shape.clone(), &z);
    npusim_core::npy::write_npy(&good, &arr).unwrap();
    assert!(
        python("vector_add_ref.py", &["check", d, good.to_str().unwrap()])
            .status
            .success()
    );
    z[100] = f32::from_bits(z[100].to_bits() + 1);
    let bad = dir.path().join("bad.npy");
    let arr = npusim_core::NpyArray::from_elems(x.shape.clone(), &z);
    npusim_core::npy::write_npy(&bad, &arr).unwrap();
    let c = python("vector_add_ref.py", &["check", d, bad.to_str().unwrap()]);
    assert!(!c.status.success(), "{}", text(&c));
}

#[test]
fn check_accepts_every_example() {
    for name in [
        "vector_add",
        "row_softmax",
        "rmsnorm",
        "online_softmax_step",
        "multicore_split",
    ] {
        let p = examples().join(format!("{name}.pto"));
        let o = npusim(&["check".into(), p.to_str().unwrap().into()]);
        let t = text(&o);
        assert!(o.status.success(), "{t}");
        assert!(t.contains(": ok (runs on a2a3"), "{t}");
    }
}

#[test]
fn help_shows_examples() {
    for cmd in ["run", "check"] {
        let o = npusim(&[cmd.into(), "--help".into()]);
        let t = text(&o);
        assert!(o.status.success(), "{t}");
        assert!(t.contains("Examples:"), "{t}");
        assert!(t.contains(&format!("npusim {cmd} ")), "{t}");
    }
}

fn write_f16(path: &Path, n: usize) {
    let v = vec![npusim_core::f16::ONE; n];
    let a = npusim_core::NpyArray::from_elems(vec![64, 256], &v);
    npusim_core::npy::write_npy(path, &a).unwrap();
}

#[test]
fn cli_errors_are_rendered_and_leave_no_output() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let f32s = npusim_core::NpyArray::from_elems(vec![64, 256], &vec![1.0f32; 64 * 256]);
    npusim_core::npy::write_npy(&d.join("y.npy"), &f32s).unwrap();
    npusim_core::npy::write_npy(&d.join("z.npy"), &f32s).unwrap();
    write_f16(&d.join("x16.npy"), 64 * 256);
    let kernel = examples().join("vector_add.pto");
    let out = d.join("out.npy");
    let base = |x: &str, rows: &str| -> Vec<String> {
        vec![
            "run".into(),
            kernel.to_str().unwrap().into(),
            "--arg".into(),
            format!("x={}", d.join(x).display()),
            "--arg".into(),
            format!("%y={}", d.join("y.npy").display()),
            "--arg".into(),
            format!("z={}", d.join("z.npy").display()),
            "--arg".into(),
            format!("n_rows={rows}"),
            "--out".into(),
            format!("z={}", out.display()),
        ]
    };
    // Element type mismatch: points at `%x` in the signature (line 6).
    let o = npusim(&base("x16.npy", "64"));
    let t = text(&o);
    assert!(!o.status.success());
    assert!(t.contains("error: element type mismatch"), "{t}");
    assert!(t.contains("vector_add.pto:6:25"), "{t}");
    assert!(!out.exists());
    // A scalar that does not parse.
    let o = npusim(&base("y.npy", "6.5"));
    let t = text(&o);
    assert!(!o.status.success());
    assert!(t.contains("bad value for `--arg n_rows`"), "{t}");
    assert!(!out.exists());
    // A kernel that fails at run time: the view is larger than the buffer.
    let o = npusim(&base("y.npy", "128"));
    let t = text(&o);
    assert!(!o.status.success());
    assert!(t.contains("buffer of 16384 elements"), "{t}");
    assert!(!out.exists());
    // And the same command with good arguments writes the output.
    let o = npusim(&base("y.npy", "64"));
    assert!(o.status.success(), "{}", text(&o));
    let z = npusim_core::npy::read_npy(&out).unwrap();
    assert_eq!(z.to_elems::<f32>().unwrap(), vec![2.0f32; 64 * 256]);
    // Parse errors are rendered too.
    let bad = d.join("bad.pto");
    std::fs::write(
        &bad,
        "module {\n  func.func @k() {\n    pto.tadf\n    return\n  }\n}\n",
    )
    .unwrap();
    let o = npusim(&["check".into(), bad.to_str().unwrap().into()]);
    let t = text(&o);
    assert!(!o.status.success());
    assert!(
        t.contains("unknown op `pto.tadf`") && t.contains("bad.pto:3:5"),
        "{t}"
    );
}
