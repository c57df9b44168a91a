//! The row-softmax workload the interpreter benches share: the example kernel and its inputs
//! (32x1024 f32, deterministic values).

use npusim_core::NpyArray;
use npusim_ptoas::interp::HostArg;

/// `examples/pto/row_softmax.pto`.
pub const SRC: &str = include_str!("../../../../examples/pto/row_softmax.pto");

/// The kernel's arguments: `x`, a zeroed `y`, and `n_rows = 32`.
pub fn args() -> Vec<(String, HostArg)> {
    args_rows(32)
}

/// `x` and a zeroed `y` of `rows` x 1024, and `n_rows = rows`.
#[allow(dead_code)]
pub fn args_rows(rows: usize) -> Vec<(String, HostArg)> {
    let x: Vec<f32> = (0..rows * 1024)
        .map(|i| ((i * 7919 % 2003) as f32 - 1000.0) / 300.0)
        .collect();
    vec![
        (
            "x".into(),
            HostArg::Buffer(NpyArray::from_elems(vec![rows, 1024], &x)),
        ),
        (
            "y".into(),
            HostArg::Buffer(NpyArray::from_elems(
                vec![rows, 1024],
                &vec![0f32; rows * 1024],
            )),
        ),
        ("n_rows".into(), HostArg::Scalar(rows.to_string())),
    ]
}
