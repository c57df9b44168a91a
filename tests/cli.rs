//! End-to-end tests of the `npusim` binary: the README's demo, the HAU golden replay, and the
//! help text's examples.

use std::path::PathBuf;
use std::process::Command;

fn npusim() -> Command {
    Command::new(env!("CARGO_BIN_EXE_npusim"))
}

fn golden_hau() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/golden/hau/bm1684x-cmodel.json")
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
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert_eq!(text.lines().last(), Some("382 passed, 0 failed"));
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
