//! ReduceMax / ReduceMin in their high-dimension forms (ReduceMax.md / ReduceMin.md
//! "tensor高维切分计算": a continuous or bit-wise mask, repeatTime, srcRepStride) and with
//! `calIndex = false` (the value alone), through the Ascend C face (`ReduceMaxRepeat` /
//! `ReduceMinRepeat`), against a plain model written here; the page's three example calls (8320
//! halves as mask 128 x 65 repeats, as mask[2] all ones x 65, as count 8320) agree; the
//! restrictions give typed errors.

mod common;

use half::f16;
use npusim_ascend::AscendError;
use npusim_ascend::ascendc::AscendC;
use npusim_ascend::isa::Instr;
use npusim_core::{ChipId, ElemType};
use proptest::prelude::*;

/// The plain model: the active elements in repeat order, each with its index, the element's
/// offset from src `r * srcRepStride * (32 / sizeof(T)) + e` (the vendor implementations'
/// formula); with a NaN among them the first NaN wins, else the first element (in repeat order)
/// with the best value (`>` / `<`, so +0 and -0 tie).
fn model(elems: &[(f32, usize)], is_max: bool) -> (f32, usize) {
    if let Some(nan) = elems.iter().find(|(v, _)| v.is_nan()) {
        return *nan;
    }
    let best = elems.iter().map(|(v, _)| *v).fold(elems[0].0, |b, v| {
        if (is_max && v > b) || (!is_max && v < b) {
            v
        } else {
            b
        }
    });
    *elems.iter().find(|(v, _)| *v == best).unwrap()
}

fn value(r: u64) -> f32 {
    match r % 64 {
        0 => f32::NAN,
        1 => f32::INFINITY,
        2 => f32::NEG_INFINITY,
        3 => -0.0,
        4 => 0.0,
        5..=20 => (r % 7) as f32 - 3.0, // many ties
        _ => ((r >> 8) % 20000) as f32 / 100.0 - 100.0,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(96)))]
    /// Random chips, types, masks (continuous and bit-wise), repeats, strides (0 included:
    /// every repeat rereads the same lanes) and calIndex; dst[1] keeps its old bits when
    /// calIndex is false.
    #[test]
    fn masked_forms_match_the_model(chip_i in 0usize..6, is_f16 in any::<bool>(), is_max in any::<bool>(),
                                    bitwise in any::<bool>(), count_mask in 1u64..=128, lo in any::<u64>(), hi in any::<u64>(),
                                    repeat in 1i32..24, stride in 0i32..12, cal_index in any::<bool>(), seed in any::<u64>()) {
        let chip = common::CHIPS[chip_i];
        let instr = if is_max { Instr::ReduceMax } else { Instr::ReduceMin };
        let t = if is_f16 { ElemType::F16 } else { ElemType::F32 };
        let legal = instr.legal_types(chip).is_some_and(|l| l.contains(&t));
        let lanes = if is_f16 { 128u64 } else { 64 };
        let bits: u128 = if bitwise {
            let b = (hi as u128) << 64 | lo as u128;
            let b = if lanes == 64 { b & u64::MAX as u128 } else { b };
            if b == 0 { 1 } else { b }
        } else {
            // The low `n` bits, n in 1..=128 (a 128-bit shift by 128 would overflow).
            u128::MAX >> (128 - count_mask.min(lanes))
        };
        let elems_total = ((repeat as u64 - 1) * stride as u64 * 32 / t.size() as u64 + lanes) as usize;
        let mut x = seed;
        let mut next = move || { x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407); x >> 20 };
        let vals: Vec<f32> = (0..elems_total).map(|_| value(next())).collect();
        // The active elements, in repeat order, with their positions.
        let mut active = Vec::new();
        for r in 0..repeat as usize {
            for e in 0..lanes as usize {
                if bits >> e & 1 == 1 {
                    let at = r * stride as usize * 32 / t.size() + e;
                    active.push((r, e, at));
                }
            }
        }
        let mut asc = AscendC::new(chip, 0);
        macro_rules! case {
            ($T:ty, $from:expr, $to:expr) => {{
                let xs: Vec<$T> = vals.iter().map(|v| $from(*v)).collect();
                let s = asc.AllocTensor::<$T>("src", elems_total as u64).unwrap();
                let tmp = asc.AllocTensor::<$T>("tmp", 64).unwrap();
                let d = asc.AllocTensor::<$T>("dst", 16).unwrap();
                asc.write(&s, &xs).unwrap();
                let sentinel: Vec<$T> = (0..16).map(|_| $from(1234.0)).collect();
                asc.write(&d, &sentinel).unwrap();
                let mask: npusim_ascend::ascendc::AscMask = if bitwise {
                    [bits as u64, (bits >> 64) as u64].into()
                } else {
                    count_mask.min(lanes).into()
                };
                let r = if is_max {
                    asc.ReduceMaxRepeat(&d, &s, &tmp, mask, repeat, stride, cal_index)
                } else {
                    asc.ReduceMinRepeat(&d, &s, &tmp, mask, repeat, stride, cal_index)
                };
                if !legal {
                    prop_assert!(r.is_err(), "{chip:?} should refuse {instr:?} on {t:?}");
                } else {
                    r.unwrap();
                    let elems: Vec<(f32, usize)> = active.iter()
                        .map(|&(_r, _e, at)| ($to(xs[at]), at))
                        .collect();
                    let (v, i) = model(&elems, is_max);
                    let out = asc.read::<$T>(&d).unwrap();
                    let got = $to(out[0]);
                    prop_assert!(got.to_bits() == v.to_bits() || (got.is_nan() && v.is_nan()), "value {} vs {}", got, v);
                    if cal_index {
                        prop_assert_eq!(out[1].to_bits() as usize, i, "index");
                    } else {
                        prop_assert_eq!(out[1].to_bits(), sentinel[1].to_bits(), "dst[1] written without calIndex");
                    }
                    prop_assert_eq!(out[2].to_bits(), sentinel[2].to_bits(), "dst[2] written");
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

/// ReduceMax.md's three example calls on 8320 contiguous halves (calIndex true): mask 128 with
/// 65 repeats and srcRepStride 8, mask[2] all ones with the same, and count 8320 read the same
/// elements and give the same [value, index]; on ReduceMin too; the value is the model's.
#[test]
fn page_calls_agree_on_8320_halves() {
    for chip in common::CHIPS {
        for instr in [Instr::ReduceMax, Instr::ReduceMin] {
            if !instr
                .legal_types(chip)
                .is_some_and(|l| l.contains(&ElemType::F16))
            {
                continue;
            }
            let is_max = instr == Instr::ReduceMax;
            let xs: Vec<f16> = (0..8320u32)
                .map(|i| f16::from_f32((i.wrapping_mul(2654435761) % 5000) as f32 / 100.0 - 25.0))
                .collect();
            let mut outs = Vec::new();
            for form in 0..3 {
                let mut asc = AscendC::new(chip, 0);
                let s = asc.AllocTensor::<f16>("src", 8320).unwrap();
                let tmp = asc.AllocTensor::<f16>("tmp", 176).unwrap();
                let d = asc.AllocTensor::<f16>("dst", 16).unwrap();
                asc.write(&s, &xs).unwrap();
                match (form, is_max) {
                    (0, true) => asc.ReduceMaxRepeat(&d, &s, &tmp, 128i32, 65, 8, true),
                    (1, true) => {
                        asc.ReduceMaxRepeat(&d, &s, &tmp, [u64::MAX, u64::MAX], 65, 8, true)
                    }
                    (_, true) => asc.ReduceMax(&d, &s, &tmp, 8320),
                    (0, false) => asc.ReduceMinRepeat(&d, &s, &tmp, 128i32, 65, 8, true),
                    (1, false) => {
                        asc.ReduceMinRepeat(&d, &s, &tmp, [u64::MAX, u64::MAX], 65, 8, true)
                    }
                    (_, false) => asc.ReduceMin(&d, &s, &tmp, 8320),
                }
                .unwrap();
                let o = asc.read::<f16>(&d).unwrap();
                outs.push((o[0].to_bits(), o[1].to_bits()));
            }
            assert!(
                outs.iter().all(|o| *o == outs[0]),
                "{chip:?} {instr:?}: {outs:?}"
            );
            let elems: Vec<(f32, usize)> = xs.iter().map(|v| v.to_f32()).zip(0..).collect();
            let (v, i) = model(&elems, is_max);
            assert_eq!(
                outs[0],
                (f16::from_f32(v).to_bits(), i as u16),
                "{chip:?} {instr:?}"
            );
        }
    }
}

/// Restrictions of the high-dimension forms, each a typed error naming the parameter.
#[test]
fn masked_form_restrictions() {
    let chip = npusim_core::ChipId::Ascend910B;
    let mut asc = AscendC::new(chip, 0);
    // 513 repeats of 128 halves: 65,664 elements (the UB holds them).
    let s = asc.AllocTensor::<f16>("src", 513 * 128).unwrap();
    let tmp = asc.AllocTensor::<f16>("tmp", 64).unwrap();
    let d = asc.AllocTensor::<f16>("dst", 16).unwrap();
    // On half the index must fit 16 bits (at most 65535) when calIndex is set...
    let e = asc
        .ReduceMaxRepeat(&d, &s, &tmp, 128i32, 513, 8, true)
        .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::Rule {
                param: "calIndex",
                ..
            }
        ),
        "{e}"
    );
    // ...and the same call without the index runs; 512 repeats (largest index 65535) too.
    asc.ReduceMaxRepeat(&d, &s, &tmp, 128i32, 513, 8, false)
        .unwrap();
    asc.ReduceMaxRepeat(&d, &s, &tmp, 128i32, 512, 8, true)
        .unwrap();
    // The count form has the same rule.
    let e = asc.ReduceMin(&d, &s, &tmp, 65537).unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::Rule {
                param: "calIndex",
                ..
            }
        ),
        "{e}"
    );
    // repeatTime in [0, 2^31 - 1]; srcRepStride in [0, 65535].
    let e = asc
        .ReduceMaxRepeat(&d, &s, &tmp, 128i32, -1, 8, true)
        .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::OutOfRange {
                param: "repeat",
                ..
            }
        ),
        "{e}"
    );
    let e = asc
        .ReduceMaxRepeat(&d, &s, &tmp, 128i32, 1, 65536, true)
        .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::OutOfRange {
                param: "src_rep_stride",
                ..
            }
        ),
        "{e}"
    );
    // The continuous mask in [1, 128] for half; a zero bit-wise mask is refused.
    for m in [0i32, 129] {
        let e = asc
            .ReduceMaxRepeat(&d, &s, &tmp, m, 1, 8, true)
            .unwrap_err();
        assert!(matches!(e, AscendError::BadMask { .. }), "mask {m}: {e}");
    }
    // Reads past the source tensor are refused.
    let e = asc
        .ReduceMaxRepeat(&d, &s, &tmp, 128i32, 514, 8, false)
        .unwrap_err();
    assert!(matches!(e, AscendError::TensorOverflow { .. }), "{e}");
    // repeatTime 0 is a NOP: dst keeps its bits.
    asc.write(&d, &[f16::from_f32(7.0); 16]).unwrap();
    asc.ReduceMaxRepeat(&d, &s, &tmp, 128i32, 0, 8, true)
        .unwrap();
    assert_eq!(asc.read::<f16>(&d).unwrap()[0], f16::from_f32(7.0));
}

/// The index with srcRepStride other than 8 is the element's offset from src, `lane + repeat ·
/// srcRepStride · (32 / sizeof(T))` (the vendor implementations' `offsetNumPerRep`), hand
/// computed: float, 2 repeats, srcRepStride 16 (repeat 1 starts 128 elements in), the maximum at
/// repeat 1 lane 3 = element 131 (repeat · lanes + lane would say 67); srcRepStride 0 reads
/// repeat 0 twice and the tie goes to repeat 0: lane 3 = 3.
#[test]
fn index_counts_the_repeat_stride() {
    for chip in [
        ChipId::Ascend910B,
        ChipId::Ascend310P,
        ChipId::Ascend310B,
        ChipId::Ascend950,
    ] {
        let mut asc = AscendC::new(chip, 0);
        let s = asc.AllocTensor::<f32>("src", 256).unwrap();
        let tmp = asc.AllocTensor::<f32>("tmp", 64).unwrap();
        let d = asc.AllocTensor::<f32>("dst", 8).unwrap();
        let mut x = vec![1.0f32; 256];
        x[131] = 9.0;
        x[3] = 5.0;
        asc.write(&s, &x).unwrap();
        asc.ReduceMaxRepeat(&d, &s, &tmp, 64u64, 2, 16, true)
            .unwrap();
        let o = asc.read::<f32>(&d).unwrap();
        assert_eq!((o[0], o[1].to_bits()), (9.0, 131), "{chip:?} stride 16");
        asc.ReduceMaxRepeat(&d, &s, &tmp, 64u64, 2, 0, true)
            .unwrap();
        let o = asc.read::<f32>(&d).unwrap();
        assert_eq!((o[0], o[1].to_bits()), (5.0, 3), "{chip:?} stride 0");
    }
}
