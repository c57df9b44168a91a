//! Acceptance (b) of issue 17: three Ascend C kernels of the usual shape (CopyIn / Compute /
//! CopyOut, double-buffered queues, several blocks) run through `npusim ascendc run`, each
//! checked against a plain Rust model written here. Needs the host C++ compiler (g++).

use half::f16;
use npusim_core::npy::{NpyArray, read_npy, write_npy};
use std::path::{Path, PathBuf};
use std::process::Command;

fn require_gxx() {
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "g++".into());
    let ok = Command::new(&cxx)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        ok,
        "`npusim ascendc run` tests need the host C++ compiler `{cxx}`: install g++ (apt-get install g++) or set CXX"
    );
}

fn example(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("examples/ascendc")
        .join(name)
}

/// A small deterministic generator (xorshift), values in [-4, 4).
fn values(seed: u64, n: usize) -> Vec<f32> {
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            ((s >> 40) as f32 / (1u64 << 24) as f32) * 8.0 - 4.0
        })
        .collect()
}

fn npusim(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_npusim"))
        .current_dir(dir)
        .args(["ascendc", "run"])
        .args(args)
        .args(["--cache-dir", "cache"])
        .output()
        .expect("npusim runs")
}

fn ok(out: &std::process::Output) {
    assert!(
        out.status.success(),
        "npusim failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn elementwise_add_matches_the_model() {
    require_gxx();
    let d = tempfile::tempdir().unwrap();
    let x: Vec<f16> = values(1, 16384).into_iter().map(f16::from_f32).collect();
    let y: Vec<f16> = values(2, 16384).into_iter().map(f16::from_f32).collect();
    write_npy(
        &d.path().join("x.npy"),
        &NpyArray::from_elems(vec![16384], &x),
    )
    .unwrap();
    write_npy(
        &d.path().join("y.npy"),
        &NpyArray::from_elems(vec![16384], &y),
    )
    .unwrap();
    let src = example("add.cpp");
    let out = npusim(
        d.path(),
        &[
            src.to_str().unwrap(),
            "--kernel",
            "add_custom",
            "--blocks",
            "8",
            "--arg",
            "x=x.npy",
            "--arg",
            "y=y.npy",
            "--out",
            "z:float16[16384]=z.npy",
        ],
    );
    ok(&out);
    let z = read_npy(&d.path().join("z.npy"))
        .unwrap()
        .to_elems::<f16>()
        .unwrap();
    assert_eq!(z.len(), 16384);
    for i in 0..z.len() {
        // The model: the exact sum rounded once to half (numpy's float16 add).
        let want = f16::from_f64(x[i].to_f64() + y[i].to_f64());
        assert_eq!(z[i].to_bits(), want.to_bits(), "z[{i}]");
    }
}

#[test]
fn softmax_over_rows_matches_the_model() {
    require_gxx();
    let d = tempfile::tempdir().unwrap();
    let x = values(3, 32 * 128);
    write_npy(
        &d.path().join("x.npy"),
        &NpyArray::from_elems(vec![32, 128], &x),
    )
    .unwrap();
    let src = example("softmax.cpp");
    let out = npusim(
        d.path(),
        &[
            src.to_str().unwrap(),
            "--kernel",
            "softmax_rows",
            "--blocks",
            "4",
            "--arg",
            "x=x.npy",
            "--out",
            "y:float32[32,128]=y.npy",
        ],
    );
    ok(&out);
    let a = read_npy(&d.path().join("y.npy")).unwrap();
    assert_eq!(a.shape, vec![32, 128]);
    let y = a.to_elems::<f32>().unwrap();
    let mut worst = 0f64;
    for r in 0..32 {
        let row = &x[r * 128..(r + 1) * 128];
        let m = row.iter().fold(f64::NEG_INFINITY, |a, &v| a.max(v as f64));
        let e: Vec<f64> = row.iter().map(|&v| (v as f64 - m).exp()).collect();
        let s: f64 = e.iter().sum();
        for c in 0..128 {
            worst = worst.max((y[r * 128 + c] as f64 - e[c] / s).abs());
        }
        let sum: f64 = y[r * 128..(r + 1) * 128].iter().map(|v| *v as f64).sum();
        assert!((sum - 1.0).abs() < 1e-5, "row {r} sums to {sum}");
    }
    println!("softmax: max |npusim - f64 model| = {worst:e}");
    assert!(worst < 1e-6, "max error {worst}");
}

#[test]
fn compare_and_select_matches_the_model() {
    require_gxx();
    let d = tempfile::tempdir().unwrap();
    let x = values(4, 8192);
    let mut y = values(5, 8192);
    // Some ties: x > y is false there, so Select takes y (equal value, same bits).
    for i in (0..8192).step_by(97) {
        y[i] = x[i];
    }
    write_npy(
        &d.path().join("x.npy"),
        &NpyArray::from_elems(vec![8192], &x),
    )
    .unwrap();
    write_npy(
        &d.path().join("y.npy"),
        &NpyArray::from_elems(vec![8192], &y),
    )
    .unwrap();
    let src = example("cmp_select.cpp");
    let out = npusim(
        d.path(),
        &[
            src.to_str().unwrap(),
            "--kernel",
            "cmp_select",
            "--blocks",
            "4",
            "--arg",
            "x=x.npy",
            "--arg",
            "y=y.npy",
            "--out",
            "z:float32[8192]=z.npy",
        ],
    );
    ok(&out);
    let z = read_npy(&d.path().join("z.npy"))
        .unwrap()
        .to_elems::<f32>()
        .unwrap();
    for i in 0..8192 {
        let want = if x[i] > y[i] { x[i] } else { y[i] };
        assert_eq!(z[i].to_bits(), want.to_bits(), "z[{i}]");
    }
}

#[test]
fn a_kernel_error_names_the_call_and_writes_no_output() {
    require_gxx();
    let d = tempfile::tempdir().unwrap();
    write_npy(
        &d.path().join("x.npy"),
        &NpyArray::from_elems(vec![100], &[0f32; 100]),
    )
    .unwrap();
    let src = example("softmax.cpp");
    // x and y hold 100 floats each, but block 0 takes 8 rows of 128: its GlobalTensor would
    // leave GM.
    let out = npusim(
        d.path(),
        &[
            src.to_str().unwrap(),
            "--kernel",
            "softmax_rows",
            "--blocks",
            "4",
            "--arg",
            "x=x.npy",
            "--out",
            "y:float32[100]=y.npy",
        ],
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("softmax.cpp:18: SetGlobalBuffer: bufferSize = 1024: must lie inside GM"),
        "{err}"
    );
    assert!(!d.path().join("y.npy").exists(), "no partial output");
}

#[test]
fn a_compile_error_is_reported_with_the_compiler_message() {
    require_gxx();
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("bad.cpp"),
        "#include \"kernel_operator.h\"\nextern \"C\" void k(GM_ADDR x) { undeclared(); }\n",
    )
    .unwrap();
    write_npy(
        &d.path().join("x.npy"),
        &NpyArray::from_elems(vec![8], &[0f32; 8]),
    )
    .unwrap();
    let out = npusim(d.path(), &["bad.cpp", "--kernel", "k", "--arg", "x=x.npy"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("compiling bad.cpp") && err.contains("undeclared"),
        "{err}"
    );
}

/// The CMake path of issue 17 ("the same works from CMake for users with their own build"):
/// `examples/ascendc/CMakeLists.txt` links a host program of the user's (`main_linked.cpp`,
/// which includes `add.cpp`) against `libnpusim_capi.a`, with no npusim binary involved.
/// Skipped, with a message, where cmake is not installed.
#[test]
fn a_user_cmake_build_links_the_static_library_and_runs_the_kernel() {
    require_gxx();
    if !Command::new("cmake")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        eprintln!("skipped: cmake is not installed (apt-get install cmake)");
        return;
    }
    // target/<profile>/deps/ascendc-<hash> -> target/<profile>
    let exe = std::env::current_exe().unwrap();
    let prof = exe.parent().and_then(Path::parent).unwrap().to_path_buf();
    let target = prof.parent().unwrap().to_path_buf();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut build = Command::new(env!("CARGO"));
    build
        .current_dir(&root)
        .args(["build", "-p", "npusim-capi"])
        .env("CARGO_TARGET_DIR", &target);
    if prof.file_name().is_some_and(|n| n == "release") {
        build.arg("--release");
    }
    assert!(
        build.status().unwrap().success(),
        "cargo build -p npusim-capi"
    );
    let lib = prof.join("libnpusim_capi.a");
    assert!(lib.exists(), "{} was not built", lib.display());

    let d = tempfile::tempdir().unwrap();
    let bin = d.path().join("build");
    let run = |args: &[&str]| {
        let out = Command::new("cmake").args(args).output().unwrap();
        assert!(
            out.status.success(),
            "cmake {args:?}:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let lib_arg = format!("-DNPUSIM_LIB={}", lib.display());
    run(&[
        "-S",
        root.join("examples/ascendc").to_str().unwrap(),
        "-B",
        bin.to_str().unwrap(),
        &lib_arg,
    ]);
    run(&["--build", bin.to_str().unwrap()]);
    let out = Command::new(bin.join("add_linked")).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // z = x + y with x[i] = (i % 64) / 2 and y = 1.25, all exact in f16.
    for (i, want) in ["1.25", "1.75", "2.25", "2.75"].iter().enumerate() {
        assert!(text.contains(&format!("z[{i}] = {want}\n")), "{text}");
    }
    assert!(text.contains("checked 16384 elements, 0 wrong"), "{text}");
}
