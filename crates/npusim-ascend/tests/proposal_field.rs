//! ProposalConcat / ProposalExtract (asc-devkit `排序组合（ISASI）/ProposalConcat.md`,
//! `ProposalExtract.md`; TIK vconcat / vextract): the pages' printed example, a proptest against
//! a plain model written here, and the restrictions.

mod common;
use common::CHIPS;

use half::f16;
use npusim_ascend::AscendError;
use npusim_ascend::ascendc::AscendC;
use npusim_ascend::isa::Instr;
use npusim_core::{ChipId, ElemType};
use proptest::prelude::*;

/// The pages' 32 half scores, as printed.
const PAGE_SCORES: &str =
    "33.3 67.56 68.5 -11.914 25.19 -72.8 11.79 -49.47 49.44 84.4 -14.36 45.97 52.47
    -5.387 -13.12 -88.9 54. -51.62 -20.67 59.56 35.72 -6.12 -39.4 -11.46 -7.066 30.23 -11.18
    -35.84 -40.88 60.9 -73.3 38.47";

#[test]
fn page_example_concat_then_extract_the_score_field() {
    // ProposalConcat(dst, src, 2, 4): 32 halves into the score field (element 4 of 8) of 32
    // proposals of a zeroed dst; the printed dst is the score every 8 elements from element 4,
    // zeros elsewhere. ProposalExtract(dst, src, 2, 4) prints the 32 scores back.
    let x: Vec<f16> = PAGE_SCORES
        .split_whitespace()
        .map(|w| f16::from_f32(w.parse().unwrap()))
        .collect();
    assert_eq!(x.len(), 32);
    let mut asc = AscendC::new(ChipId::Ascend910, 0);
    let src = asc.AllocTensor::<f16>("src", 32).unwrap();
    let props = asc.AllocTensor::<f16>("props", 256).unwrap();
    let back = asc.AllocTensor::<f16>("back", 32).unwrap();
    asc.write(&src, &x).unwrap();
    asc.ProposalConcat::<f16>(&props, &src, 2, 4).unwrap();
    let p = asc.read::<f16>(&props).unwrap();
    let mut printed = vec![f16::ZERO; 256];
    for (k, v) in x.iter().enumerate() {
        printed[8 * k + 4] = *v;
    }
    let exact = p
        .iter()
        .zip(&printed)
        .filter(|(a, b)| a.to_bits() == b.to_bits())
        .count();
    assert_eq!(exact, 256);
    asc.ProposalExtract::<f16>(&back, &props, 2, 4).unwrap();
    let b = asc.read::<f16>(&back).unwrap();
    assert_eq!(
        b.iter()
            .zip(&x)
            .filter(|(a, b)| a.to_bits() == b.to_bits())
            .count(),
        32
    );
}

#[test]
fn restrictions_give_typed_errors() {
    let mut asc = AscendC::new(ChipId::Ascend310P, 0);
    let src = asc.AllocTensor::<f32>("src", 32).unwrap();
    let props = asc.AllocTensor::<f32>("props", 256).unwrap();
    let e = asc.ProposalConcat::<f32>(&props, &src, 2, 6).unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::OutOfRange {
                param: "modeNumber",
                value: 6,
                ..
            }
        ),
        "{e}"
    );
    let e = asc.ProposalConcat::<f32>(&props, &src, 256, 0).unwrap_err();
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
    let e = asc.ProposalConcat::<f32>(&props, &src, 3, 0).unwrap_err();
    assert!(matches!(e, AscendError::TensorOverflow { .. }), "{e}");
    let e = asc
        .ProposalExtract::<f32>(&src, &props.offset(1), 1, 0)
        .unwrap_err();
    assert!(
        matches!(e, AscendError::Misaligned { param: "src", .. }),
        "{e}"
    );
    // Atlas training: half only; A2/A3, 310B, 950: none.
    let mut t = AscendC::new(ChipId::Ascend910, 0);
    let s = t.AllocTensor::<f32>("s", 16).unwrap();
    let d = t.AllocTensor::<f32>("d", 128).unwrap();
    let e = t.ProposalConcat::<f32>(&d, &s, 1, 4).unwrap_err();
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
        let s = a.AllocTensor::<f16>("s", 16).unwrap();
        let d = a.AllocTensor::<f16>("d", 128).unwrap();
        let e = a.ProposalExtract::<f16>(&s, &d, 1, 4).unwrap_err();
        assert!(
            matches!(
                e,
                AscendError::NotSupported {
                    instr: "ProposalExtract",
                    ..
                }
            ),
            "{e}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(64)))]

    /// Random chips, types, repeats, fields and raw bit patterns (NaNs included: the moves are
    /// bit copies) against the model: element k <-> proposal k, field modeNumber; everything
    /// else kept.
    #[test]
    fn proposal_moves_match_the_model(chip_i in 0usize..6, is_f16 in any::<bool>(), concat in any::<bool>(),
                                      repeat in 0i32..4, field in 0i32..6, seed in any::<u64>()) {
        let chip = CHIPS[chip_i];
        let t = if is_f16 { ElemType::F16 } else { ElemType::F32 };
        let instr = if concat { Instr::ProposalConcat } else { Instr::ProposalExtract };
        let legal = instr.legal_types(chip).is_some_and(|l| l.contains(&t));
        let mut x = seed;
        let mut next = || { x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407); (x >> 32) as u32 };
        let flat0: Vec<u32> = (0..64).map(|_| next()).collect();
        let props0: Vec<u32> = (0..512).map(|_| next()).collect();
        let mut asc = AscendC::new(chip, 0);
        macro_rules! run {
            ($T:ty, $conv:expr) => {{
                let conv = $conv;
                let flat = asc.AllocTensor::<$T>("flat", 64).unwrap();
                let props = asc.AllocTensor::<$T>("props", 512).unwrap();
                let f0: Vec<$T> = flat0.iter().map(|&b| conv(b)).collect();
                let p0: Vec<$T> = props0.iter().map(|&b| conv(b)).collect();
                asc.write(&flat, &f0).unwrap();
                asc.write(&props, &p0).unwrap();
                let r = if concat { asc.ProposalConcat::<$T>(&props, &flat, repeat, field) } else { asc.ProposalExtract::<$T>(&flat, &props, repeat, field) };
                prop_assert_eq!(r.is_ok(), legal, "{:?}", r);
                let (mut wf, mut wp) = (f0.clone(), p0.clone());
                if legal {
                    for k in 0..(repeat * 16) as usize {
                        let at = 8 * k + field as usize;
                        if concat { wp[at] = f0[k] } else { wf[k] = p0[at] }
                    }
                }
                let (gf, gp) = (asc.read::<$T>(&flat).unwrap(), asc.read::<$T>(&props).unwrap());
                let bits = |v: &[$T]| bytemuck::cast_slice::<$T, u8>(v).to_vec();
                prop_assert_eq!(bits(&gf), bits(&wf));
                prop_assert_eq!(bits(&gp), bits(&wp));
            }};
        }
        if is_f16 { run!(f16, |b: u32| f16::from_bits(b as u16)) } else { run!(f32, f32::from_bits) }
    }
}
