//! Kernels written against the TPU-Kernel API, as a kernel author would write them (issue #16,
//! acceptance 3): only vendor-named calls on a [`TpuCore`].
//!
//! [`softmax_last_axis`]: softmax over the channel axis of a channels-last f32 tensor
//! `(N, ROWS, C)` in global memory (each of the `N * ROWS` positions holds its `C` channel values
//! next to each other). The positions go to the 64 lanes and the channels to the `w` axis:
//! 1. `tpu_gdma_cpy_S2L` of shape `(N, ROWS, 1, C)` (aligned local layout);
//! 2. `tpu_bdc_fp_max_pool2d` with kernel `(1, C)` and pad value `-inf`: the row maximum;
//! 3. `tpu_bdc_fp_sub` of the maximum broadcast along `w` (a source stride of 0);
//! 4. `tpu_bdc_load_fp32_exp_coeff/table` and `tpu_bdc_fp32_exp`;
//! 5. `tpu_bdc_fp_avg_pool2d` with kernel `(1, C)` and scale 1.0: the row sum;
//! 6. `tpu_bdc_fp_div` by the sum broadcast along `w`;
//! 7. `tpu_gdma_cpy_L2S` back.
//!
//! Its local buffers are laid out one after the other on NPU 0's offsets, 64-byte aligned, in
//! the order in, max, shifted, exp, work0, work1, sum, out, coefficients;
//! `scripts/gen_tpu_golden.py --kind kernel` runs the same call sequence on the vendor C-model
//! (`golden/tpu/kernel.json`, replayed bit for bit).

use crate::bdc_pool::{Dim2, Padding};
use crate::device::{Scalar, TpuCore};
use crate::dtype::DataType;
use crate::error::TpuError;
use crate::local::{Dim4, LocalAddr};
use crate::memory::SystemAddr;

const OP: &str = "softmax_last_axis";

/// The local buffers of [`softmax_last_axis`] (offsets on NPU 0 = local addresses).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SoftmaxPlan {
    /// Input `(N, ROWS, 1, C)`.
    pub input: LocalAddr,
    /// Row maxima `(N, ROWS, 1, 1)`.
    pub max: LocalAddr,
    /// `input - max`.
    pub shifted: LocalAddr,
    /// `exp(input - max)`.
    pub exp: LocalAddr,
    /// Work buffers of `tpu_bdc_fp32_exp`.
    pub work: [LocalAddr; 2],
    /// Row sums `(N, ROWS, 1, 1)`.
    pub sum: LocalAddr,
    /// Result `(N, ROWS, 1, C)`.
    pub out: LocalAddr,
    /// Exponential coefficients.
    pub coeff: LocalAddr,
}

impl SoftmaxPlan {
    /// Lays the buffers out for `(n, rows, c)` on a BM1684X-like lane (16 f32 per EU, 64 lanes);
    /// a typed error when they do not fit in one lane's memory.
    pub fn new(core: &TpuCore, n: i32, rows: i32, c: i32) -> Result<SoftmaxPlan, TpuError> {
        let p = core.chip().local();
        crate::local::check_shape(OP, &Dim4::new(n, rows, 1, c))?;
        let eu = u64::from(p.eu_bytes) / 4;
        let slots = (rows as u64).div_ceil(u64::from(p.npu_num));
        let big = n as u64 * slots * (c as u64).div_ceil(eu) * eu * 4;
        let small = n as u64 * slots * eu * 4;
        let mut at = 0u64;
        let mut take = |bytes: u64| {
            let a = at;
            at += bytes.div_ceil(64) * 64;
            a as LocalAddr
        };
        let plan = SoftmaxPlan {
            input: take(big),
            max: take(small),
            shifted: take(big),
            exp: take(big),
            work: [take(big), take(big)],
            sum: take(small),
            out: take(big),
            coeff: take(64),
        };
        if at > u64::from(p.local_mem_per_npu) {
            return Err(TpuError::LocalFootprint {
                op: OP,
                param: "local buffers",
                addr: 0,
                end: at as i64,
                limit: p.local_mem_per_npu,
            });
        }
        Ok(plan)
    }
}

/// Softmax over the last axis of the f32 tensor `(n, rows, c)` at `src` in global memory into
/// `dst` (module docs); returns the plan it used.
pub fn softmax_last_axis(
    core: &mut TpuCore,
    dst: SystemAddr,
    src: SystemAddr,
    n: i32,
    rows: i32,
    c: i32,
) -> Result<SoftmaxPlan, TpuError> {
    let b = SoftmaxPlan::new(core, n, rows, c)?;
    let f32_ = DataType::Fp32;
    let shape = Dim4::new(n, rows, 1, c);
    let global = Dim4::new(rows * c, c, c, 1);
    let p = core.chip().local();
    let slots = (rows as u32).div_ceil(p.npu_num) as i32;
    let eu = (p.eu_bytes / 4) as i32;
    // The (N, ROWS, 1, 1) row statistics, broadcast along w by a zero w stride.
    let bcast = Dim4::new(slots * eu, eu, 0, 0);
    let row = Dim2::new(1, c);
    let (one, no_pad) = (Dim2::new(1, 1), Padding::default());
    core.tpu_gdma_cpy_S2L(b.input, src, &shape, None, Some(&global), f32_)?;
    core.tpu_bdc_fp_max_pool2d(
        b.max,
        b.input,
        &shape,
        &row,
        &no_pad,
        &one,
        &one,
        f32_,
        Scalar::from_f32(f32::NEG_INFINITY),
    )?;
    core.tpu_bdc_fp_sub(
        b.shifted,
        b.input,
        b.max,
        &shape,
        None,
        None,
        Some(&bcast),
        f32_,
    )?;
    core.tpu_bdc_load_fp32_exp_coeff(b.coeff)?;
    core.tpu_bdc_load_fp32_exp_table(b.coeff)?;
    core.tpu_bdc_fp32_exp(
        b.exp, b.shifted, b.work[0], b.work[1], b.coeff, b.coeff, &shape,
    )?;
    core.tpu_bdc_fp_avg_pool2d(
        b.sum,
        b.exp,
        &shape,
        &row,
        &no_pad,
        &one,
        &one,
        f32_,
        Scalar::from_f32(1.0),
    )?;
    core.tpu_bdc_fp_div(b.out, b.exp, b.sum, &shape, None, None, Some(&bcast), f32_)?;
    core.tpu_gdma_cpy_L2S(dst, b.out, &shape, Some(&global), None, f32_)?;
    core.tpu_poll();
    Ok(b)
}
