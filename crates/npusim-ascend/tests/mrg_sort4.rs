//! MrgSort4 (asc-devkit `排序组合（ISASI）/MrgSort4.md`): the page's example (ProposalConcat,
//! RpSort16 and a 4-list merge of 64 proposals), a proptest against a plain model written here
//! (a stable sort of the concatenated lists by score, cut where a list runs out under
//! suspension), and the restrictions.

mod common;
use common::{halves, info};

use half::f16;
use npusim_ascend::AscendError;
use npusim_ascend::ascendc::AscendC;
use npusim_core::{ChipId, ElemType};
use proptest::prelude::*;

const PAGE_INPUT: &str = "-38.1 82.7 -40.75 -54.62 21.67 -58.53 25.94 -79.5 -61.44 26.7 -27.45
    48.78 86.75 -18.1 -58.8 62.38 46.38 -78.94 -87.7 -13.81 -13.25 46.94 -47.8 -50.44 34.16
    20.3 80.1 -94.1 52.4 -42.75 83.4 80.44 -66.8 -82.7 -91.44 -95.6 66.2 -30.97 -36.53 61.66
    24.92 -45.1 38.97 -34.62 -69.8 59.1 34.22 11.695 -33.47 52.1 -4.832 46.88 56.78 71.4
    13.29 -35.78 52.44 -46.03 83.8 83.56 71.3 -9.086 -65.06 46.25";

/// The non-zero values of the page's printed dst, in order. (The page prints them 7 elements
/// apart, not 8; we read that as a print artifact: a half proposal is 8 elements, score at 4.)
const PAGE_SCORES_OUT: &str = "86.75 83.8 83.56 83.4 82.7 80.44 80.1 71.4 71.3 66.2 62.38 61.66
    59.1 56.78 52.44 52.4 52.1 48.78 46.94 46.88 46.38 46.25 38.97 34.22 34.16 26.7 25.94 24.92
    21.67 20.3 13.29 11.695 -4.832 -9.086 -13.25 -13.81 -18.1 -27.45 -30.97 -33.47 -34.62 -35.78
    -36.53 -38.1 -40.75 -42.75 -45.1 -46.03 -47.8 -50.44 -54.62 -58.53 -58.8 -61.44 -65.06 -66.8
    -69.8 -78.94 -79.5 -82.7 -87.7 -91.44 -94.1 -95.6";

#[test]
fn page_example_merges_four_sorted_proposal_lists() {
    let x = halves(PAGE_INPUT);
    let want = halves(PAGE_SCORES_OUT);
    assert_eq!((x.len(), want.len()), (64, 64));
    let mut asc = AscendC::new(ChipId::Ascend910, 0);
    let src = asc.AllocTensor::<f16>("src", 64).unwrap();
    let work = asc.AllocTensor::<f16>("work", 512).unwrap();
    let dst = asc.AllocTensor::<f16>("dst", 512).unwrap();
    asc.write(&src, &x).unwrap();
    asc.ProposalConcat::<f16>(&work, &src, 4, 4).unwrap();
    asc.RpSort16::<f16>(&work, &work, 4).unwrap();
    let l: Vec<_> = (0..4).map(|k| work.offset(128 * k)).collect();
    asc.MrgSort4::<f16>(
        &dst,
        [&l[0], &l[1], &l[2], &l[3]],
        info([16; 4], false, 15, 1),
    )
    .unwrap();
    let got = asc.read::<f16>(&dst).unwrap();
    let mut exact = 0;
    for k in 0..64 {
        exact += usize::from(got[8 * k + 4].to_bits() == want[k].to_bits());
        exact += (0..8)
            .filter(|&f| f != 4 && got[8 * k + f].to_bits() == 0)
            .count();
    }
    assert_eq!(exact, 512);
    assert_eq!(asc.GetMrgSortResult(), [16; 4]);
}

#[test]
fn restrictions_give_typed_errors() {
    let mut asc = AscendC::new(ChipId::Ascend310P, 0);
    let w = asc.AllocTensor::<f32>("w", 512).unwrap();
    let d = asc.AllocTensor::<f32>("d", 512).unwrap();
    let l: Vec<_> = (0..4).map(|k| w.offset(128 * k)).collect();
    let ls = [&l[0], &l[1], &l[2], &l[3]];
    let e = asc
        .MrgSort4::<f32>(&d, ls, info([16; 4], false, 15, 0))
        .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::OutOfRange {
                param: "repeatTimes",
                value: 0,
                ..
            }
        ),
        "{e}"
    );
    let e = asc
        .MrgSort4::<f32>(&d, ls, info([16; 4], false, 1, 1))
        .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::Rule {
                param: "validBit",
                ..
            }
        ),
        "{e}"
    );
    // float proposals: 32-byte aligned addresses.
    let odd = w.offset(4);
    let e = asc
        .MrgSort4::<f32>(&d, [&odd, &l[1], &l[2], &l[3]], info([1; 4], false, 15, 1))
        .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::Misaligned {
                param: "src1",
                align: 32,
                ..
            }
        ),
        "{e}"
    );
    let e = asc
        .MrgSort4::<f32>(&w.offset(128), ls, info([16, 16, 0, 0], false, 3, 1))
        .unwrap_err();
    assert!(
        matches!(e, AscendError::IllegalOverlap { src: "src2", .. }),
        "{e}"
    );
    let e = asc
        .MrgSort4::<f32>(&d, ls, info([16, 16, 16, 60], false, 15, 1))
        .unwrap_err();
    assert!(
        matches!(e, AscendError::TensorOverflow { param: "dst", .. }),
        "{e}"
    );
    for chip in [ChipId::Ascend910B, ChipId::Ascend310B, ChipId::Ascend950] {
        let mut a = AscendC::new(chip, 0);
        let s = a.AllocTensor::<f16>("s", 128).unwrap();
        let d = a.AllocTensor::<f16>("d", 128).unwrap();
        let e = a
            .MrgSort4::<f16>(&d, [&s, &s, &s, &s], info([1; 4], false, 15, 1))
            .unwrap_err();
        assert!(
            matches!(
                e,
                AscendError::NotSupported {
                    instr: "MrgSort4",
                    ..
                }
            ),
            "{e}"
        );
    }
    let mut t = AscendC::new(ChipId::Ascend910, 0);
    let s = t.AllocTensor::<f32>("s", 64).unwrap();
    let d = t.AllocTensor::<f32>("d", 64).unwrap();
    let e = t
        .MrgSort4::<f32>(&d, [&s, &s, &s, &s], info([1; 4], false, 15, 1))
        .unwrap_err();
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
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(64)))]

    /// Every chip (a typed refusal where the row or the type is absent: float only on 310P,
    /// nothing on 910B/310B/950), half or float proposals, random list lengths (0..20),
    /// validBit, suspension and scores with ties: the merge against the stable-sort model,
    /// whole proposals moved.
    #[test]
    fn mrg_sort4_matches_the_model(chip_i in 0usize..6, is_f16 in any::<bool>(), lens in prop::array::uniform4(0u16..20),
                                   valid_i in 0usize..3, stop in any::<bool>(), seed in any::<u64>()) {
        let chip = common::CHIPS[chip_i];
        let t = if is_f16 { ElemType::F16 } else { ElemType::F32 };
        let legal = npusim_ascend::isa::Instr::MrgSort4.legal_types(chip).is_some_and(|l| l.contains(&t));
        let valid = [3u16, 7, 15][valid_i];
        let lists = [2usize, 3, 4][valid_i];
        let mut x = seed;
        let mut next = || { x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407); (x >> 33) as u32 };
        // Each list: proposals of 8 fields, sorted by field 4 descending.
        let data: Vec<Vec<[f32; 8]>> = lens.iter().map(|&n| {
            let mut l: Vec<[f32; 8]> = (0..n).map(|_| {
                let mut p = [0f32; 8];
                for f in &mut p { *f = (next() % 64) as f32; }
                p[4] = (next() % 6) as f32 - 2.0;
                p
            }).collect();
            l.sort_by(|a, b| b[4].partial_cmp(&a[4]).unwrap());
            l
        }).collect();
        let mut asc = AscendC::new(chip, 0);
        macro_rules! run {
            ($T:ty, $conv:expr) => {{
                let srcs: Vec<_> = (0..4).map(|k| asc.AllocTensor::<$T>(&format!("l{k}"), 160).unwrap()).collect();
                let dst = asc.AllocTensor::<$T>("dst", 640).unwrap();
                for k in 0..4 {
                    let v: Vec<$T> = data[k].iter().flat_map(|p| p.map($conv)).collect();
                    if !v.is_empty() { asc.write(&srcs[k], &v).unwrap(); }
                }
                let r = asc.MrgSort4::<$T>(&dst, [&srcs[0], &srcs[1], &srcs[2], &srcs[3]], info(lens, stop, valid, 1));
                if !legal {
                    prop_assert!(r.is_err(), "{:?} should refuse MrgSort4 on {:?}", chip, t);
                    return Ok(());
                }
                r.unwrap();
                let mut all: Vec<(usize, [f32; 8])> = Vec::new();
                for (k, l) in data.iter().enumerate().take(lists) { all.extend(l.iter().map(|p| (k, *p))); }
                all.sort_by(|a, b| b.1[4].partial_cmp(&a.1[4]).unwrap());
                let mut used = [0u16; 4];
                let mut want: Vec<$T> = Vec::new();
                for (k, p) in &all {
                    if stop && (0..lists).any(|j| used[j] == lens[j]) { break; }
                    used[*k] += 1;
                    want.extend(p.map($conv));
                }
                if stop && (0..lists).any(|j| lens[j] == 0) { want.clear(); used = [0; 4]; }
                let got = asc.read::<$T>(&dst).unwrap();
                prop_assert_eq!(bytemuck::cast_slice::<$T, u8>(&got[..want.len()]), bytemuck::cast_slice::<$T, u8>(&want));
                prop_assert_eq!(asc.GetMrgSortResult(), used);
            }};
        }
        if is_f16 { run!(f16, f16::from_f32) } else { run!(f32, |f: f32| f) }
    }
}
