//! The row-softmax workload the interpreter benches share: the example kernel and its inputs
//! (32x1024 f32, deterministic values).

use npusim_core::NpyArray;
use npusim_ptoas::interp::HostArg;

/// `examples/pto/row_softmax.pto`.
pub const SRC: &str = include_str!("../../../../examples/pto/row_softmax.pto");

/// The kernel's arguments: `x`, a zeroed `y`, and `n_rows = 32`.
pub fn args() -> Vec<(String, HostArg)> {
    let x: Vec<f32> = (0..32 * 1024)
        .map(|i| ((i * 7919 % 2003) as f32 - 1000.0) / 300.0)
        .collect();
    vec![
        (
            "x".into(),
            HostArg::Buffer(NpyArray::from_elems(vec![32, 1024], &x)),
        ),
        (
            "y".into(),
            HostArg::Buffer(NpyArray::from_elems(vec![32, 1024], &vec![0f32; 32 * 1024])),
        ),
        ("n_rows".into(), HostArg::Scalar("32".into())),
    ]
}
