//! Built-in examples: the worked examples of seeds 000 and 001, run on the simulator and
//! compared with the results the documents print. `npusim demo` prints these reports.

use crate::ascendc::AscendC;
use crate::error::Result;
use crate::tik::{Scope, Tik};
use half::f16;
use npusim_core::{ChipId, NpyArray};
use std::fmt::Write;

/// One example's printable report.
#[derive(Clone, Debug)]
pub struct DemoReport {
    /// What was run.
    pub title: String,
    /// Inputs, outputs and the comparison, one line each.
    pub lines: Vec<String>,
    /// Whether the output matches the documented result.
    pub matches: bool,
}

fn list<T: std::fmt::Display>(v: &[T]) -> String {
    let mut s = String::from("[");
    for (i, x) in v.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        let _ = write!(s, "{x}");
    }
    s.push(']');
    s
}

/// Seed 000, example 1: `vec_cmpv_eq` of 1..128 against 2, dst pre-filled with 5.
pub fn vec_cmpv_eq_example() -> Result<DemoReport> {
    let mut tik = Tik::new(ChipId::Ascend910);
    let src0_gm = tik.tensor("float16", &[128], "src0_gm", Scope::Gm)?;
    let src1_gm = tik.tensor("float16", &[128], "src1_gm", Scope::Gm)?;
    let src0_ub = tik.tensor("float16", &[128], "src0_ub", Scope::Ubuf)?;
    let src1_ub = tik.tensor("float16", &[128], "src1_ub", Scope::Ubuf)?;
    let dst_gm = tik.tensor("uint16", &[16], "dst_gm", Scope::Gm)?;
    let dst_ub = tik.tensor("uint16", &[16], "dst_ub", Scope::Ubuf)?;
    tik.data_move(&src0_ub, &src0_gm, 0, 1, 8, 0, 0)?;
    tik.data_move(&src1_ub, &src1_gm, 0, 1, 8, 0, 0)?;
    tik.vector_dup(16, &dst_ub, 5, 1, 1, 1)?;
    tik.vec_cmpv_eq(&dst_ub, &src0_ub, &src1_ub, 1, 8, 8)?;
    tik.data_move(&dst_gm, &dst_ub, 0, 1, 1, 0, 0)?;
    tik.build_cce("vec_cmpv_eq", &[&src0_gm, &src1_gm], &[&dst_gm])?;
    let src0: Vec<f16> = (1..=128).map(|i| f16::from_f32(i as f32)).collect();
    let src1 = vec![f16::from_f32(2.0); 128];
    let out = tik.start_debug(&[
        ("src0_gm", &NpyArray::from_elems(vec![128], &src0)),
        ("src1_gm", &NpyArray::from_elems(vec![128], &src1)),
    ])?;
    let got = out[0].1.to_elems::<u16>().unwrap_or_default();
    let want: [u16; 16] = [2, 0, 0, 0, 0, 0, 0, 0, 5, 5, 5, 5, 5, 5, 5, 5];
    Ok(DemoReport {
        title: "TIK vec_cmpv_eq (seed 000, example 1) on ascend910".into(),
        lines: vec![
            "src0_gm = {1, 2, 3, ..., 128} (float16)".into(),
            "src1_gm = {2, 2, 2, ..., 2} (float16)".into(),
            format!("dst_gm  = {}", list(&got)),
            format!("documented {}", list(&want)),
        ],
        matches: got == want,
    })
}

/// Seed 000, example 2: `vec_cmpv_gt` with `src1_rep_stride = 7`.
pub fn vec_cmpv_gt_example() -> Result<DemoReport> {
    let mut tik = Tik::new(ChipId::Ascend910);
    let src0_gm = tik.tensor("float16", &[2, 128], "src0_gm", Scope::Gm)?;
    let src1_gm = tik.tensor("float16", &[2, 128], "src1_gm", Scope::Gm)?;
    let dst_gm = tik.tensor("uint16", &[16], "dst_gm", Scope::Gm)?;
    let src0_ub = tik.tensor("float16", &[2, 128], "src0_ub", Scope::Ubuf)?;
    let src1_ub = tik.tensor("float16", &[2, 128], "src1_ub", Scope::Ubuf)?;
    let dst_ub = tik.tensor("uint16", &[16], "dst_ub", Scope::Ubuf)?;
    tik.data_move(&src0_ub, &src0_gm, 0, 1, 16, 0, 0)?;
    tik.data_move(&src1_ub, &src1_gm, 0, 1, 16, 0, 0)?;
    tik.vec_cmpv_gt(&dst_ub, &src0_ub, &src1_ub, 2, 8, 7)?;
    tik.data_move(&dst_gm, &dst_ub, 0, 1, 1, 0, 0)?;
    tik.build_cce("vec_cmpv_gt", &[&src0_gm, &src1_gm], &[&dst_gm])?;
    let data: Vec<f16> = (0..256).map(|i| f16::from_f32(i as f32)).collect();
    let arr = NpyArray::from_elems(vec![2, 128], &data);
    let out = tik.start_debug(&[("src0_gm", &arr), ("src1_gm", &arr)])?;
    let got = out[0].1.to_elems::<u16>().unwrap_or_default();
    let mut want = vec![0u16; 8];
    want.extend([65535u16; 8]);
    Ok(DemoReport {
        title: "TIK vec_cmpv_gt, src1_rep_stride = 7 (seed 000, example 2) on ascend910".into(),
        lines: vec![
            "src0_gm = src1_gm = [[0, 1, ..., 127], [128, ..., 255]] (float16)".into(),
            "repeat 1 compares src0[128..256] with src1[112..240]: every lane is greater".into(),
            format!("dst_gm  = {}", list(&got)),
            format!("documented {}", list(&want)),
        ],
        matches: got == want,
    })
}

/// The 128 inputs seed 001 prints (4 significant digits).
pub const SEED001_INPUT: [f32; 128] = [
    -3.441, 7.246, -0.02759, -6.324, 3.693, -7.984, -4.246, 6.332, -3.734, -2.699, -6.91, 7.887,
    -3.631, 5.219, 6.539, 8.688, 6.523, -6.789, -8.547, 4.258, 1.344, -8.469, -0.9253, -3.914,
    3.293, -9.828, 7.082, 5.961, 2.133, 1.959, 3.928, -1.062, 9.18, -1.725, -3.645, 1.457, -2.328,
    -0.9487, -0.2849, -2.998, -9.281, 3.137, 0.4028, 5.961, -6.25, 2.406, -6.203, -2.699, 4.914,
    1.653, -6.383, 6.855, 9.164, 0.6646, -2.854, 3.18, -0.5884, 0.4258, -5.773, -2.152, 4.258,
    4.129, -8.719, -8.828, 6.145, 7.387, 1.386, -4.684, 6.324, -1.275, -1.816, 3.357, 6.832,
    -1.059, -9.852, -8.539, 2.938, -2.002, 9.625, -4.387, -1.309, 8.289, 2.906, -1.035, 7.723,
    4.727, -6.477, 2.389, 6.75, -6.688, -0.04248, -6.613, -3.424, 7.145, 4.836, -5.617, -5.855,
    -5.234, -9.422, -9.852, -8.531, 2.115, 5.109, -8.094, -6.238, 9.898, -6.848, -6.051, 7.109,
    4.227, -0.6187, -3.492, -4.352, 1.344, 1.526, 2.572, 2.16, -1.135, 9.812, 1.426, -8.0, 3.291,
    -2.039, 5.93, -5.52, -5.156, -9.422, 0.2236,
];

/// The 64 outputs seed 001 prints.
pub const SEED001_OUTPUT: [f32; 64] = [
    3.805, -6.352, -4.289, 2.086, -6.434, 0.9766, 1.588, 15.23, -0.2656, -4.289, -7.125, -4.84,
    -6.535, 13.05, 4.094, 2.865, 7.453, -2.188, -3.277, -3.283, -6.145, 6.363, -3.844, -8.906,
    6.566, 0.4727, 9.828, 0.3262, -0.1626, -7.926, 8.391, -17.55, 13.53, -3.297, 5.047, 1.541,
    5.773, -18.39, 0.9355, 5.238, 6.98, 1.871, 12.45, -4.086, 0.0625, -6.656, 3.721, -0.7812,
    -11.09, -19.28, -6.414, -2.984, 3.66, -12.9, 11.34, -4.109, -3.008, 4.098, 1.025, 11.23,
    -4.711, 3.891, -10.67, -9.195,
];

/// Seed 001: PairReduceSum on the printed 128 half inputs, continuous mask 128.
pub fn pair_reduce_sum_example() -> Result<DemoReport> {
    let mut k = AscendC::new(ChipId::Ascend910B, 4096);
    let input: Vec<f16> = SEED001_INPUT.iter().map(|x| f16::from_f32(*x)).collect();
    let src_gm = k.GmAlloc("src_gm", &input)?;
    let dst_gm = k.GmAlloc("dst_gm", &[f16::ZERO; 64])?;
    let src = k.AllocTensor::<f16>("srcLocal", 128)?;
    let dst = k.AllocTensor::<f16>("dstLocal", 64)?;
    k.DataCopy::<f16>(&src, &src_gm, 128)?;
    k.Duplicate(&dst, f16::ZERO, 64)?;
    k.PairReduceSum::<f16, true>(&dst, &src, 1, 128u64, 1, 1, 8)?;
    k.DataCopy::<f16>(&dst_gm, &dst, 64)?;
    let got = k.read::<f16>(&dst_gm)?;
    let sig4 = |x: f32| format!("{x:.3e}");
    let printed = got
        .iter()
        .zip(SEED001_OUTPUT)
        .filter(|(g, w)| sig4(g.to_f32()) == sig4(*w))
        .count();
    let exact = got
        .iter()
        .zip(SEED001_OUTPUT)
        .filter(|(g, w)| g.to_bits() == f16::from_f32(*w).to_bits())
        .count();
    // Outputs that differ at 4 digits must be explained by the inputs' own 4-digit rounding.
    let explained = got.iter().enumerate().all(|(j, g)| {
        let half_digit = |x: f32| {
            if x == 0.0 {
                0.0
            } else {
                0.5 * 10f32.powi(x.abs().log10().floor() as i32 - 3)
            }
        };
        let ulp = (f16::from_bits(g.to_bits() + 1).to_f32() - g.to_f32()).abs();
        let tol = half_digit(SEED001_INPUT[2 * j])
            + half_digit(SEED001_INPUT[2 * j + 1])
            + half_digit(SEED001_OUTPUT[j])
            + ulp;
        (g.to_f32() - SEED001_OUTPUT[j]).abs() <= tol
    });
    let shown: Vec<String> = got
        .iter()
        .take(8)
        .map(|g| format!("{}", g.to_f32()))
        .collect();
    Ok(DemoReport {
        title: "Ascend C PairReduceSum<half> (seed 001), mask 128, on ascend910b".into(),
        lines: vec![
            format!(
                "src_gm  = [{}, ...] (128 half, as printed)",
                SEED001_INPUT[..8]
                    .iter()
                    .map(|x| x.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            format!("dst_gm  = [{}, ...] (64 half)", shown.join(", ")),
            format!(
                "documented [{}, ...]",
                SEED001_OUTPUT[..8]
                    .iter()
                    .map(|x| x.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            format!(
                "{printed}/64 equal at the printed 4 digits, {exact}/64 bit-exact; the rest lie within the printed inputs' rounding"
            ),
        ],
        matches: explained,
    })
}

/// Every Ascend example, in order.
pub fn all() -> Vec<Result<DemoReport>> {
    vec![
        vec_cmpv_eq_example(),
        vec_cmpv_gt_example(),
        pair_reduce_sum_example(),
    ]
}
