//! Issue #16 acceptance 3: the softmax kernel written against the API, checked against a plain
//! f64 softmax written here (bit-exactness against the C-model is in tests/golden.rs:
//! golden/tpu/kernel.json), and its typed error when the buffers do not fit a lane.

use npusim_tpu::kernels::{SoftmaxPlan, softmax_last_axis};
use npusim_tpu::{TpuChip, TpuCore, TpuError};

#[test]
fn softmax_matches_a_plain_model() {
    let mut core = TpuCore::with_gm_size(TpuChip::Bm1684x, 1 << 20).unwrap();
    let (n, rows, c) = (2, 67, 23);
    let total = (n * rows * c) as usize;
    let x: Vec<f32> = (0..total)
        .map(|i| ((i * 7919 % 1000) as f32 / 100.0) - 5.0)
        .collect();
    let gm = core.gm_base();
    core.write_f32s(gm, &x).unwrap();
    softmax_last_axis(&mut core, gm + 0x40000, gm, n, rows, c).unwrap();
    let y = core.read_f32s(gm + 0x40000, total).unwrap();
    for r in 0..(n * rows) as usize {
        let row = &x[r * c as usize..(r + 1) * c as usize];
        let m = row.iter().fold(f64::NEG_INFINITY, |a, &v| a.max(v as f64));
        let s: f64 = row.iter().map(|&v| (v as f64 - m).exp()).sum();
        for (j, &v) in row.iter().enumerate() {
            let want = (v as f64 - m).exp() / s;
            let got = y[r * c as usize + j] as f64;
            assert!(
                (got - want).abs() < 1e-6,
                "row {r} col {j}: {got} vs {want}"
            );
        }
    }
}

#[test]
fn softmax_buffers_past_a_lane_are_a_typed_error() {
    let core = TpuCore::with_gm_size(TpuChip::Bm1684x, 1 << 20).unwrap();
    let e = SoftmaxPlan::new(&core, 4, 640, 1024).unwrap_err();
    assert!(
        matches!(
            e,
            TpuError::LocalFootprint {
                op: "softmax_last_axis",
                limit: 262144,
                ..
            }
        ),
        "{e}"
    );
    let e = SoftmaxPlan::new(&core, 1, 64, 0).unwrap_err();
    assert!(matches!(e, TpuError::DimOutOfRange { .. }), "{e}");
}
