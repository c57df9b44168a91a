//! ReduceSum in its high-dimension forms (`ReduceSumRepeat`: ReduceSum.md "tensor高维切分计算",
//! a continuous or bit-wise mask, repeatTime, srcRepStride) through the Ascend C face: the
//! page's worked example (8320 ones in 65 repeats, both mask forms; and its count-form example,
//! 288 ones) and a proptest against a plain model of the page's method 1, written here: a
//! pairwise tree inside each repeat (masked-off lanes as 0), then pairwise trees over the repeat
//! sums a repeat's worth of lanes at a time, every partial sum rounded to the type and, on
//! saturating chips, clamped (the page's 60000 + 60000 = 65504 example). ReduceSum.md gives
//! method 1 to this form on A2/A3 (method 2, sequential across repeats, only to the count form)
//! and method 1 throughout on the other chips it lists.

mod common;

use half::f16;
use npusim_ascend::ascendc::{AscMask, AscendC};
use npusim_ascend::isa::Instr;
use npusim_core::{ChipId, ChipProfile, ElemType, OverflowMode};
use proptest::prelude::*;

/// One partial sum rounded to the type (`half` when `is_f16`), clamped on saturating chips
/// (a NaN becomes 0 there, the chips' saturation policy).
fn round(chip: ChipId, is_f16: bool, v: f32) -> f32 {
    let (r, max) = if is_f16 {
        (f16::from_f32(v).to_f32(), 65504.0)
    } else {
        (v, f32::MAX)
    };
    if ChipProfile::get(chip).vector.overflow_mode == OverflowMode::Saturate && !r.is_finite() {
        if r.is_nan() { 0.0 } else { r.signum() * max }
    } else {
        r
    }
}

/// Pairwise (adjacent pairs) tree, every sum rounded.
fn tree(chip: ChipId, is_f16: bool, v: &[f32]) -> f32 {
    let mut l = v.to_vec();
    while l.len() > 1 {
        l = l
            .chunks(2)
            .map(|p| {
                if p.len() == 2 {
                    round(chip, is_f16, p[0] + p[1])
                } else {
                    p[0]
                }
            })
            .collect();
    }
    l[0]
}

/// Method 1 over `rows` (each `lanes` long, masked-off lanes already 0).
fn method1(chip: ChipId, is_f16: bool, lanes: usize, rows: &[Vec<f32>]) -> f32 {
    let mut level: Vec<f32> = rows.iter().map(|r| tree(chip, is_f16, r)).collect();
    while level.len() > 1 {
        level = level
            .chunks(lanes)
            .map(|c| {
                let mut c = c.to_vec();
                c.resize(lanes, 0.0);
                tree(chip, is_f16, &c)
            })
            .collect();
    }
    level[0]
}

fn legal(chip: ChipId, t: ElemType) -> bool {
    Instr::ReduceSum
        .legal_types(chip)
        .is_some_and(|l| l.contains(&t))
}

/// ReduceSum.md's examples: 8320 halves of 1 summed by the mask-continuous call (mask 128,
/// repeatTime 65, srcRepStride 8) and by the mask-bit-wise call (both words all ones) print
/// 8320; the count-form example (288 halves of 1) prints 288. Only dst[0] is written (the
/// page's other 15 printed zeros are the untouched rest of its output buffer).
#[test]
fn page_examples_8320_and_288_ones() {
    let mut ran = 0;
    for chip in common::CHIPS {
        if !legal(chip, ElemType::F16) {
            continue;
        }
        for form in 0..3 {
            let mut asc = AscendC::new(chip, 0);
            let n = if form == 2 { 288 } else { 8320 };
            let s = asc.AllocTensor::<f16>("src", n).unwrap();
            let tmp = asc.AllocTensor::<f16>("tmp", 80).unwrap();
            let d = asc.AllocTensor::<f16>("dst", 16).unwrap();
            asc.write(&s, &vec![f16::ONE; n as usize]).unwrap();
            asc.write(&d, &[f16::from_f32(-7.0); 16]).unwrap();
            match form {
                0 => asc.ReduceSumRepeat(&d, &s, &tmp, 128i32, 65, 8, false),
                1 => asc.ReduceSumRepeat(&d, &s, &tmp, [u64::MAX, u64::MAX], 65, 8, false),
                _ => asc.ReduceSum(&d, &s, &tmp, 288),
            }
            .unwrap();
            let o = asc.read::<f16>(&d).unwrap();
            assert_eq!(o[0].to_f32(), n as f32, "{chip:?} form {form}");
            assert!(
                o[1..].iter().all(|v| v.to_f32() == -7.0),
                "{chip:?} form {form}: dst[1..] written"
            );
            ran += 1;
        }
    }
    assert!(ran >= 9, "ran on {} chip-forms", ran);
}

/// Values: small integers (exact sums) and fractions k/7 (rounding matters, and the order
/// decides the result), sized so that sums of up to 300 repeats stay finite; with `specials`,
/// about one element in 2000 is an infinity, a NaN or -0.
fn value(r: u64, is_f16: bool, specials: bool) -> f32 {
    let span = if is_f16 { 700.0 } else { 7.0e6 };
    match r % 2003 {
        0 if specials => f32::INFINITY,
        1 if specials => f32::NEG_INFINITY,
        2 if specials => f32::NAN,
        3 => -0.0,
        4..=400 => (r % 9) as f32 - 4.0,
        _ => ((r >> 12) % 10_001) as f32 / 10_000.0 * 2.0 * span / 7.0 - span / 7.0,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(96)))]
    /// Random chips, types, masks (continuous 1..=lanes and bit-wise), repeats (up to 300:
    /// more than one repeat's worth of repeat sums, so the second tree level runs), strides (0:
    /// every repeat rereads the same lanes) and values (specials in a fifth of the cases); dst[1]
    /// keeps its bits.
    #[test]
    fn reduce_sum_repeat_matches_method_1(chip_i in 0usize..6, is_f16 in any::<bool>(),
                                          bitwise in any::<bool>(), count_mask in 1u64..=128,
                                          lo in any::<u64>(), hi in any::<u64>(),
                                          repeat in 1i32..300, stride in 0i32..10, specials in proptest::bool::weighted(0.2),
                                          seed in any::<u64>()) {
        let chip = common::CHIPS[chip_i];
        let t = if is_f16 { ElemType::F16 } else { ElemType::F32 };
        let lanes = if is_f16 { 128usize } else { 64 };
        let bits: u128 = if bitwise {
            let b = (hi as u128) << 64 | lo as u128;
            let b = if lanes == 64 { b & u64::MAX as u128 } else { b };
            if b == 0 { 1 } else { b }
        } else {
            // The low n bits, n in 1..=lanes (no shift by 128).
            u128::MAX >> (128 - count_mask.min(lanes as u64))
        };
        let per_block = 32 / t.size();
        let total = (repeat as usize - 1) * stride as usize * per_block + lanes;
        let mut x = seed;
        let mut next = move || { x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407); x >> 16 };
        let vals: Vec<f32> = (0..total).map(|_| value(next(), is_f16, specials)).collect();
        let mut asc = AscendC::new(chip, 0);
        let mask: AscMask = if bitwise {
            [bits as u64, (bits >> 64) as u64].into()
        } else {
            count_mask.min(lanes as u64).into()
        };
        macro_rules! case {
            ($T:ty, $from:expr, $to:expr) => {{
                let xs: Vec<$T> = vals.iter().map(|v| $from(*v)).collect();
                let s = asc.AllocTensor::<$T>("src", total as u64).unwrap();
                let tmp = asc.AllocTensor::<$T>("tmp", 64).unwrap();
                let d = asc.AllocTensor::<$T>("dst", 16).unwrap();
                asc.write(&s, &xs).unwrap();
                let sentinel: Vec<$T> = (0..16).map(|_| $from(1234.0)).collect();
                asc.write(&d, &sentinel).unwrap();
                let r = asc.ReduceSumRepeat(&d, &s, &tmp, mask, repeat, stride, false);
                if !legal(chip, t) {
                    prop_assert!(r.is_err(), "{chip:?} should refuse ReduceSum on {t:?}");
                } else {
                    r.unwrap();
                    let rows: Vec<Vec<f32>> = (0..repeat as usize)
                        .map(|r| (0..lanes)
                            .map(|e| if bits >> e & 1 == 1 { $to(xs[r * stride as usize * per_block + e]) } else { 0.0 })
                            .collect())
                        .collect();
                    let want = method1(chip, is_f16, lanes, &rows);
                    let out = asc.read::<$T>(&d).unwrap();
                    let got = $to(out[0]);
                    prop_assert!(got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                        "{chip:?} {t:?}: {} vs model {}", got, want);
                    prop_assert_eq!(out[1].to_bits(), sentinel[1].to_bits(), "dst[1] written");
                }
            }};
        }
        if is_f16 {
            case!(f16, f16::from_f32, |v: f16| v.to_f32())
        } else {
            case!(f32, |v: f32| v, |v: f32| v)
        }
    }
}
