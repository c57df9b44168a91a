//! RpSort16 (asc-devkit `排序组合（ISASI）/RpSort16.md`; TIK vrpsort16): the page's printed
//! example (ProposalConcat then an in-place RpSort16), a proptest against a plain stable-sort
//! model written here, and the restrictions.

mod common;
use common::{CHIPS, halves};

use half::f16;
use npusim_ascend::AscendError;
use npusim_ascend::ascendc::AscendC;
use npusim_ascend::isa::Instr;
use npusim_core::{ChipId, ElemType};
use proptest::prelude::*;

const PAGE_INPUT: &str =
    "-1.624 -42.3 -54.12 91.25 -99.4 36.72 67.44 -66.3 -52.53 3.377 -62.47 -15.85
    -31.47 3.143 58.47 -83.75 21.58 63.47 7.234 35.16 -39.72 37.8 73.06 -98.7 44.1 -77.2 67.2
    19.62 -87.9 -14.875 15.86 -77.75";

/// The printed dst score fields, in order (every other printed value is 0).
const PAGE_SCORES_OUT: &str = "91.25 67.44 58.47 36.72 3.377 3.143 -1.624 -15.85 -31.47 -42.3
    -52.53 -54.12 -62.47 -66.3 -83.75 -99.4 73.06 67.2 63.47 44.1 37.8 35.16 21.58 19.62 15.86
    7.234 -14.875 -39.72 -77.2 -77.75 -87.9 -98.7";

#[test]
fn page_example_concat_then_sort_in_place() {
    let x = halves(PAGE_INPUT);
    let want_scores = halves(PAGE_SCORES_OUT);
    assert_eq!((x.len(), want_scores.len()), (32, 32));
    let mut asc = AscendC::new(ChipId::Ascend910, 0);
    let src = asc.AllocTensor::<f16>("src", 32).unwrap();
    let dst = asc.AllocTensor::<f16>("dst", 256).unwrap();
    asc.write(&src, &x).unwrap();
    asc.ProposalConcat::<f16>(&dst, &src, 2, 4).unwrap();
    asc.RpSort16::<f16>(&dst, &dst, 2).unwrap();
    let got = asc.read::<f16>(&dst).unwrap();
    let mut printed = vec![f16::ZERO; 256];
    for (k, v) in want_scores.iter().enumerate() {
        printed[8 * k + 4] = *v;
    }
    let exact = got
        .iter()
        .zip(&printed)
        .filter(|(a, b)| a.to_bits() == b.to_bits())
        .count();
    assert_eq!(exact, 256);
}

#[test]
fn restrictions_give_typed_errors() {
    let mut asc = AscendC::new(ChipId::Ascend310P, 0);
    let p = asc.AllocTensor::<f32>("p", 256).unwrap();
    let e = asc.RpSort16::<f32>(&p, &p, 256).unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::OutOfRange {
                param: "repeatTime",
                value: 256,
                ..
            }
        ),
        "{e}"
    );
    let e = asc.RpSort16::<f32>(&p, &p, 3).unwrap_err();
    assert!(matches!(e, AscendError::TensorOverflow { .. }), "{e}");
    let e = asc.RpSort16::<f32>(&p.offset(4), &p, 1).unwrap_err();
    assert!(
        matches!(e, AscendError::Misaligned { param: "dst", .. }),
        "{e}"
    );
    let mut t = AscendC::new(ChipId::Ascend910, 0);
    let q = t.AllocTensor::<f32>("q", 128).unwrap();
    let e = t.RpSort16::<f32>(&q, &q, 1).unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::IllegalType {
                dtype: ElemType::F32,
                ..
            }
        ),
        "{e}"
    );
    for chip in [ChipId::Ascend910B, ChipId::Ascend310B, ChipId::Ascend950] {
        let mut a = AscendC::new(chip, 0);
        let q = a.AllocTensor::<f16>("q", 128).unwrap();
        let e = a.RpSort16::<f16>(&q, &q, 1).unwrap_err();
        assert!(
            matches!(
                e,
                AscendError::NotSupported {
                    instr: "RpSort16",
                    ..
                }
            ),
            "{e}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(64)))]

    /// Random chips, types, repeats, scores from a small set (ties, ±0, ±inf) with random other
    /// fields, in place or not, against the model: per group of 16, proposals moved whole, by
    /// score descending, equal scores in source order.
    #[test]
    fn rp_sort16_matches_the_model(chip_i in 0usize..6, is_f16 in any::<bool>(), repeat in 0i32..4, in_place in any::<bool>(), seed in any::<u64>()) {
        let chip = CHIPS[chip_i];
        let t = if is_f16 { ElemType::F16 } else { ElemType::F32 };
        let legal = Instr::RpSort16.legal_types(chip).is_some_and(|l| l.contains(&t));
        let mut x = seed;
        let mut next = || { x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407); (x >> 33) as u32 };
        let n = 64usize;
        let mut fields: Vec<f32> = (0..n * 8).map(|_| (next() % 1000) as f32 / 8.0).collect();
        for k in 0..n { fields[8 * k + 4] = match next() % 8 { 0 => f32::INFINITY, 1 => f32::NEG_INFINITY, 2 => 0.0, 3 => -0.0, v => v as f32 }; }
        let mut asc = AscendC::new(chip, 0);
        macro_rules! run {
            ($T:ty, $conv:expr, $back:expr) => {{
                let src = asc.AllocTensor::<$T>("src", (n * 8) as u64).unwrap();
                let other = asc.AllocTensor::<$T>("dst", (n * 8) as u64).unwrap();
                let v: Vec<$T> = fields.iter().map(|&f| $conv(f)).collect();
                asc.write(&src, &v).unwrap();
                asc.write(&other, &v).unwrap();
                let dst = if in_place { src.clone() } else { other };
                let r = asc.RpSort16::<$T>(&dst, &src, repeat);
                prop_assert_eq!(r.is_ok(), legal, "{:?}", r);
                let mut want = v.clone();
                if legal {
                    for g in 0..repeat as usize {
                        let mut idx: Vec<usize> = (g * 16..g * 16 + 16).collect();
                        for i in 1..16 {
                            let mut j = i;
                            while j > 0 && $back(v[8 * idx[j - 1] + 4]) < $back(v[8 * idx[j] + 4]) { idx.swap(j - 1, j); j -= 1; }
                        }
                        for (k, &e) in idx.iter().enumerate() {
                            want[8 * (g * 16 + k)..8 * (g * 16 + k) + 8].copy_from_slice(&v[8 * e..8 * e + 8]);
                        }
                    }
                }
                let got = asc.read::<$T>(&dst).unwrap();
                prop_assert_eq!(bytemuck::cast_slice::<$T, u8>(&got), bytemuck::cast_slice::<$T, u8>(&want));
            }};
        }
        if is_f16 { run!(f16, f16::from_f32, |h: f16| h.to_f32()) } else { run!(f32, |f: f32| f, |f: f32| f) }
    }
}
