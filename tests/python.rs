//! The Python face's tests (`crates/npusim-py/tests`, pytest), run by `cargo test`.
//!
//! Builds the extension module with the same cargo, profile and target directory as this test,
//! lays out the `npusim` package (the Python sources plus `_native.abi3.so`) in a temporary
//! directory, and runs pytest on it. numpy, ml_dtypes and pytest are installed by
//! `scripts/ensure-python-deps.sh` when missing.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `target/<profile>` of this test binary (`target/<profile>/deps/python-<hash>`).
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("current_exe");
    exe.parent()
        .and_then(Path::parent)
        .expect("test binary lives in target/<profile>/deps")
        .to_path_buf()
}

/// Copies the `.py` files of a package directory tree.
fn copy_py_tree(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst).unwrap();
    for e in std::fs::read_dir(src).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap();
        if p.is_dir() {
            if name != "__pycache__" {
                copy_py_tree(&p, &dst.join(name));
            }
        } else if p.extension().is_some_and(|x| x == "py") {
            std::fs::copy(&p, dst.join(name)).unwrap();
        }
    }
}

#[test]
fn pytest_suite_of_the_python_package() {
    let st = Command::new("bash")
        .arg(root().join("scripts/ensure-python-deps.sh"))
        .status()
        .expect("bash");
    assert!(st.success(), "could not install numpy/ml_dtypes/pytest");

    let prof = profile_dir();
    let target = prof.parent().expect("target dir").to_path_buf();
    let mut build = Command::new(env!("CARGO"));
    build
        .current_dir(root())
        .args(["build", "-p", "npusim-py"])
        .env("CARGO_TARGET_DIR", &target);
    if prof.file_name().is_some_and(|n| n == "release") {
        build.arg("--release");
    }
    let st = build.status().expect("cargo build -p npusim-py");
    assert!(st.success(), "building the Python extension failed");

    let pkg = tempfile::tempdir().unwrap();
    let dst = pkg.path().join("npusim");
    copy_py_tree(&root().join("crates/npusim-py/python/npusim"), &dst);
    std::fs::copy(prof.join("lib_native.so"), dst.join("_native.abi3.so"))
        .expect("the built extension module");

    let out = Command::new("python3")
        .current_dir(root())
        .env("PYTHONPATH", pkg.path())
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .arg(root().join("crates/npusim-py/tests"))
        .output()
        .expect("python3 -m pytest");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    println!("{text}");
    assert!(out.status.success(), "pytest failed:\n{text}");
    assert!(text.contains(" passed"), "{text}");
}

/// `pip install <repository root>` in a fresh venv, then `crates/npusim-py/scripts/wheel_smoke.py`
/// (a PTO-AS and a TIK kernel from the installed package against numpy). Ignored: it fetches
/// maturin, numpy and ml_dtypes from PyPI and builds the extension in release mode (about 8
/// minutes on 2 cores from scratch; seconds when `CARGO_TARGET_DIR` already holds the build).
/// Run with `cargo test --test python -- --ignored`.
#[test]
#[ignore]
fn wheel_installs_and_runs() {
    let venv = tempfile::tempdir().unwrap();
    let st = Command::new("python3")
        .args(["-m", "venv"])
        .arg(venv.path())
        .status()
        .expect("python3 -m venv");
    assert!(st.success(), "python3 -m venv failed");
    let py = venv.path().join("bin/python");
    let st = Command::new(&py)
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
        ])
        .arg(root())
        .status()
        .expect("pip install");
    assert!(st.success(), "pip install <repo root> failed");
    // Run from outside the repository so `import npusim` can only find the installed package.
    let out = Command::new(&py)
        .current_dir(venv.path())
        .arg(root().join("crates/npusim-py/scripts/wheel_smoke.py"))
        .arg(root())
        .output()
        .expect("wheel_smoke.py");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    println!("{text}");
    assert!(out.status.success(), "wheel smoke test failed:\n{text}");
    assert!(text.contains("wheel ok:"), "{text}");
}
