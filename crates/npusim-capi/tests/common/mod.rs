//! What the g++-compiled kernel tests share: launching one kernel of a `tests/kernels/*.cpp`
//! file on a chip, and one-dimensional `.npy` arrays.

use npusim_capi::runner::{self, Launch};
use npusim_core::npy::NpyArray;
use std::path::PathBuf;

/// Compiles `tests/kernels/<file>` with the host C++ compiler (panicking when there is none:
/// these tests need one) and runs `kernel` on one block of `chip` with `args`; returns the
/// outputs, or the run's error text.
pub fn launch(
    file: &str,
    chip: &str,
    kernel: &str,
    args: Vec<(&str, NpyArray)>,
) -> Result<Vec<(String, NpyArray)>, String> {
    if let Err(e) = runner::compiler() {
        panic!("these tests compile Ascend C kernels with the host C++ compiler: {e}");
    }
    let cache = tempfile::tempdir().expect("temp dir");
    let l = Launch {
        source: PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/kernels")
            .join(file),
        kernel: kernel.into(),
        blocks: 1,
        chip: chip.into(),
        args: args.into_iter().map(|(n, a)| (n.to_string(), a)).collect(),
        cache_dir: cache.path().to_path_buf(),
    };
    runner::run(&l).map_err(|e| e.to_string())
}

/// A one-dimensional array of `v`.
pub fn arr<T: npusim_core::Element>(v: &[T]) -> NpyArray {
    NpyArray::from_elems(vec![v.len()], v)
}
