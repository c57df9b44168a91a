//! SetLoopModePara / ResetLoopModePara through the C++ face (`kernel_operator.h`, the C ABI's
//! `npusim_set_loop_mode`): a kernel compiled with the host C++ compiler moves a 4-D block with
//! DataCopy in loop mode on Ascend 950, checked against a plain byte model; on a chip without
//! loop mode the call stops the kernel with the typed error.

use npusim_capi::runner::{self, Launch};
use npusim_core::npy::NpyArray;
use std::path::PathBuf;

fn launch(chip: &str) -> Result<Vec<(String, NpyArray)>, String> {
    if let Err(e) = runner::compiler() {
        panic!("these tests compile Ascend C kernels with the host C++ compiler: {e}");
    }
    let cache = tempfile::tempdir().expect("temp dir");
    let x: Vec<i8> = (0..2 * 3 * 16 * 128).map(|i| (i % 251) as i8).collect();
    let l = Launch {
        source: PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/kernels/loop_mode_copy.cpp"),
        kernel: "loop_mode_copy".into(),
        blocks: 1,
        chip: chip.into(),
        args: vec![
            ("x".into(), NpyArray::from_elems(vec![x.len()], &x)),
            ("y".into(), NpyArray::from_elems(vec![8192], &[0i8; 8192])),
        ],
        cache_dir: cache.path().to_path_buf(),
    };
    runner::run(&l).map_err(|e| e.to_string())
}

#[test]
fn cpp_loop_mode_moves_the_outer_dimensions() {
    let out = launch("ascend950").unwrap_or_else(|e| panic!("{e}"));
    let got = out[1].1.to_elems::<i8>().expect("int8 output");
    let x: Vec<i8> = (0..2 * 3 * 16 * 128).map(|i| (i % 251) as i8).collect();
    let row = 16 * 128;
    let mut want = vec![0i8; 8192];
    for i2 in 0..2 {
        for i1 in 0..2 {
            let (s, d) = (i2 * 3 * row + i1 * row, (i2 * 2 + i1) * row);
            want[d..d + row].copy_from_slice(&x[s..s + row]);
        }
    }
    assert_eq!(got, want);
}

#[test]
fn cpp_loop_mode_is_refused_where_the_chip_lacks_it() {
    let e = launch("ascend910b").unwrap_err();
    assert!(
        e.contains("loop_mode_copy.cpp:") && e.contains("SetLoopModePara is not supported"),
        "{e}"
    );
}
