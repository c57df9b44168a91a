//! Acceptance (1) of issue #5: the simulator reproduces every case of the BM1684X C-model golden
//! file bit for bit.

use std::path::PathBuf;

use npusim_tpu::golden::replay_file;

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/golden/hau")
}

#[test]
fn bm1684x_cmodel_golden_all_pass() {
    let path = golden_dir().join("bm1684x-cmodel.json");
    assert!(
        path.is_file(),
        "golden file missing: {} (it is shipped in ../shared/golden/hau/)",
        path.display()
    );
    let report = replay_file(&path).unwrap_or_else(|e| panic!("{e}"));
    println!("{report}");
    assert_eq!(report.failed, 0, "{report}");
    assert_eq!(report.passed, 382, "{report}");
    assert!(report.to_string().ends_with("382 passed, 0 failed"));
}

#[test]
fn every_golden_file_in_the_directory_passes() {
    let dir = golden_dir();
    let entries =
        std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()));
    let mut files = 0;
    for entry in entries {
        let path = entry.expect("directory entry").path();
        if path.extension().is_some_and(|e| e == "json") {
            files += 1;
            let report = replay_file(&path).unwrap_or_else(|e| panic!("{e}"));
            assert!(
                report.failed == 0 && report.passed > 0,
                "{}: {report}",
                path.display()
            );
        }
    }
    assert!(files >= 1, "no golden files in {}", dir.display());
}
