//! Acceptance (c): misuse of the Ascend C face stops the kernel with a clear error naming the
//! call, the rule and the kernel source line of the call.

use npusim_capi::runner::{self, Launch, RunError};
use npusim_core::npy::NpyArray;
use std::path::PathBuf;

fn kernel(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/kernels")
        .join(name)
}

/// Runs a misuse kernel (params x, y: 256 floats each) and returns the error message, checking
/// that it carries `file:line` of the line marked `// ERROR HERE`.
fn misuse(file: &str, entry: &str, chip: &str) -> String {
    if let Err(e) = runner::compiler() {
        panic!("these tests compile Ascend C kernels with the host C++ compiler: {e}");
    }
    let cache = tempfile::tempdir().expect("temp dir");
    let src = kernel(file);
    let text = std::fs::read_to_string(&src).expect("kernel source");
    let line = text
        .lines()
        .position(|l| l.contains("// ERROR HERE"))
        .expect("marked line")
        + 1;
    let l = Launch {
        source: src.clone(),
        kernel: entry.into(),
        blocks: 2,
        chip: chip.into(),
        args: vec![
            ("x".into(), NpyArray::from_elems(vec![256], &[1.0f32; 256])),
            ("y".into(), NpyArray::from_elems(vec![256], &[0.0f32; 256])),
        ],
        cache_dir: cache.path().to_path_buf(),
    };
    let err = runner::run(&l).expect_err("misuse must fail");
    let RunError::Kernel { block, message, .. } = &err else {
        panic!("not a kernel error: {err}");
    };
    assert_eq!(*block, 0, "the first block fails");
    let at = format!("{}:{line}: ", src.display());
    assert!(
        message.starts_with(&at),
        "`{message}` does not start with `{at}`"
    );
    let full = err.to_string();
    println!("{full}");
    full
}

#[test]
fn deque_of_an_empty_queue() {
    let m = misuse("misuse_deque_empty.cpp", "deque_empty", "ascend910b");
    assert!(
        m.contains("DeQue: queue = 0 tensors queued: the queue is empty"),
        "{m}"
    );
}

#[test]
fn ub_overflow_in_init_buffer() {
    let m = misuse("misuse_ub_overflow.cpp", "ub_overflow", "ascend910b");
    assert!(
        m.contains("TPipe::InitBuffer: UB overflow: 262144 bytes requested"),
        "{m}"
    );
    assert!(m.contains("of 196608 bytes"), "{m}");
}

#[test]
fn unaligned_data_copy() {
    let m = misuse("misuse_unaligned_copy.cpp", "unaligned_copy", "ascend910b");
    assert!(
        m.contains("DataCopy: dst address 0x6 in UB is not 32-byte aligned"),
        "{m}"
    );
}

#[test]
fn a_type_the_chip_does_not_take() {
    let m = misuse(
        "misuse_float_pair_reduce.cpp",
        "float_pair_reduce",
        "ascend910",
    );
    assert!(
        m.contains(
            "PairReduceSum: srcLocal has element type float32, which ascend910 does not support"
        ),
        "{m}"
    );
    let m = misuse("misuse_exp_int.cpp", "exp_int", "ascend910b");
    assert!(
        m.contains("Exp: dst has element type int32") && m.contains("legal: float16, float32"),
        "{m}"
    );
}

#[test]
fn double_free_and_depth_overflow() {
    let m = misuse("misuse_double_free.cpp", "double_free", "ascend910b");
    assert!(m.contains("FreeTensor") && m.contains("double free"), "{m}");
    let m = misuse("misuse_depth_overflow.cpp", "depth_overflow", "ascend910b");
    assert!(
        m.contains("EnQue: depth = 1 of 1 queued: the queue is full"),
        "{m}"
    );
}
