//! `npusim run KERNEL.pto --case DIR` on a case directory laid out as PTOAS's sample runtime
//! reads it (`main.cpp` lines, `outputs.txt`, raw `vK.bin` files); written here, numbers only.

use std::path::Path;
use std::process::{Command, Output};

fn npusim(args: &[&str]) -> Output {
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

fn f32s(p: &Path) -> Vec<f32> {
    std::fs::read(p)
        .unwrap()
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn write_f32s(p: &Path, v: &[f32]) {
    let b: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    std::fs::write(p, b).unwrap();
}

const MAIN_CPP: &str = "\
    size_t elemCount_v1 = 4096;
    size_t fileSize_v1 = elemCount_v1 * sizeof(float);
    size_t elemCount_v2 = 4096;
    size_t fileSize_v2 = elemCount_v2 * sizeof(float);
    size_t elemCount_v3 = 4096;
    size_t fileSize_v3 = elemCount_v3 * sizeof(float);
    int64_t v4 = 16;
    ReadFile(\"./v1.bin\", fileSize_v1, v1Host, fileSize_v1);
    ReadFile(\"./v2.bin\", fileSize_v2, v2Host, fileSize_v2);
    ReadFile(\"./v3.bin\", fileSize_v3, v3Host, fileSize_v3);
";

#[test]
fn case_directory_in_and_out() {
    let kernel = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/pto/vector_add.pto");
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    std::fs::write(dir.join("main.cpp"), MAIN_CPP).unwrap();
    std::fs::write(dir.join("outputs.txt"), "v3\n").unwrap();
    let x: Vec<f32> = (0..4096).map(|i| (i % 97) as f32 * 0.25).collect();
    let y: Vec<f32> = (0..4096).map(|i| -((i % 13) as f32)).collect();
    write_f32s(&dir.join("v1.bin"), &x);
    write_f32s(&dir.join("v2.bin"), &y);
    write_f32s(&dir.join("v3.bin"), &[0.0; 4096]);
    let o = npusim(&["run", kernel, "--case", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o));
    let z = f32s(&dir.join("v3.bin"));
    let want: Vec<f32> = x.iter().zip(&y).map(|(a, b)| a + b).collect();
    assert_eq!(z, want);
    // Inputs are untouched.
    assert_eq!(f32s(&dir.join("v1.bin")), x);

    // A missing input names the file; nothing is written.
    std::fs::remove_file(dir.join("v2.bin")).unwrap();
    write_f32s(&dir.join("v3.bin"), &[7.0; 4096]);
    let o = npusim(&["run", kernel, "--case", dir.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(text(&o).contains("v2.bin is missing"), "{}", text(&o));
    assert_eq!(f32s(&dir.join("v3.bin")), vec![7.0; 4096]);

    // A file whose size disagrees with main.cpp's element count.
    write_f32s(&dir.join("v2.bin"), &y[..100]);
    let o = npusim(&["run", kernel, "--case", dir.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(
        text(&o).contains("holds 100 elements but main.cpp says elemCount_v2 = 4096"),
        "{}",
        text(&o)
    );
}
