//! MrgSort (asc-devkit `排序组合（ISASI）/MrgSort.md`, `GetMrgSortResult.md`): the page's call
//! (8 sorted lists of 32, repeatTimes 2) fed with the Sort32 page's printed data, suspension and
//! GetMrgSortResult, a proptest against a plain model written here (a stable sort of the
//! concatenated lists, cut where the first list runs out), and the restrictions.

mod common;
use common::{CHIPS, SORT32_PAGE_INPUT, SORT32_PAGE_OUTPUT, info, parse};

use half::f16;
use npusim_ascend::AscendError;
use npusim_ascend::ascendc::AscendC;
use npusim_core::{ChipId, ElemType};
use proptest::prelude::*;

#[test]
fn page_call_merges_8_lists_of_32_in_2_repeats() {
    // The page's call: lists at work[0], work[64], work[128], work[192] (floats), lengths 32,
    // validBit 0b1111, repeatTimes 2. Each repeat's 4 lists are the Sort32 page's printed
    // output; the merge of a repeat must be the page's 128 scores sorted descending.
    let sorted32 = parse(SORT32_PAGE_OUTPUT);
    let mut want: Vec<f32> = parse(SORT32_PAGE_INPUT);
    want.sort_by(|a, b| b.partial_cmp(a).unwrap());
    let mut asc = AscendC::new(ChipId::Ascend910B, 0);
    let work = asc.AllocTensor::<f32>("work", 512).unwrap();
    let dst = asc.AllocTensor::<f32>("dst", 512).unwrap();
    let mut w = sorted32.clone();
    w.extend_from_slice(&sorted32);
    asc.write(&work, &w).unwrap();
    let (a, b, c, d) = (
        work.offset(0),
        work.offset(64),
        work.offset(128),
        work.offset(192),
    );
    asc.MrgSort::<f32>(&dst, [&a, &b, &c, &d], info([32; 4], false, 0b1111, 2))
        .unwrap();
    let got = asc.read::<f32>(&dst).unwrap();
    let mut exact = 0;
    for r in 0..2 {
        for k in 0..128 {
            let (s, i) = (got[r * 256 + 2 * k], got[r * 256 + 2 * k + 1]);
            if s.to_bits() == want[k].to_bits() && i.to_bits() == 0 {
                exact += 1;
            }
        }
    }
    assert_eq!(exact, 256);
    assert_eq!(asc.GetMrgSortResult(), [32; 4]);
}

fn entries(v: &[(f32, u32)]) -> Vec<f32> {
    v.iter()
        .flat_map(|&(s, i)| [s, f32::from_bits(i)])
        .collect()
}

#[test]
fn suspension_stops_at_the_first_used_up_list() {
    for (stop, want_idx, counts) in [
        (true, vec![10u32, 30, 20], [1u16, 1, 1, 0]),
        (false, vec![10, 30, 20, 11, 31, 12], [3, 1, 2, 0]),
    ] {
        let mut asc = AscendC::new(ChipId::Ascend950, 0);
        let l1 = asc.AllocTensor::<f32>("l1", 8).unwrap();
        let l2 = asc.AllocTensor::<f32>("l2", 8).unwrap();
        let l3 = asc.AllocTensor::<f32>("l3", 8).unwrap();
        let dst = asc.AllocTensor::<f32>("dst", 16).unwrap();
        asc.write(&l1, &entries(&[(9.0, 10), (5.0, 11), (1.0, 12)]))
            .unwrap();
        asc.write(&l2, &entries(&[(7.0, 20)])).unwrap();
        asc.write(&l3, &entries(&[(8.0, 30), (2.0, 31)])).unwrap();
        asc.MrgSort::<f32>(&dst, [&l1, &l2, &l3, &l3], info([3, 1, 2, 0], stop, 7, 1))
            .unwrap();
        let got = asc.read::<f32>(&dst).unwrap();
        let idx: Vec<u32> = (0..want_idx.len())
            .map(|k| got[2 * k + 1].to_bits())
            .collect();
        assert_eq!(idx, want_idx, "stop {stop}");
        assert_eq!(asc.GetMrgSortResult(), counts, "stop {stop}");
    }
}

#[test]
fn restrictions_give_typed_errors() {
    let mut asc = AscendC::new(ChipId::Ascend910B, 0);
    let w = asc.AllocTensor::<f32>("work", 512).unwrap();
    let dst = asc.AllocTensor::<f32>("dst", 512).unwrap();
    let (a, b, c, d) = (w.offset(0), w.offset(64), w.offset(128), w.offset(192));
    let l = [&a, &b, &c, &d];
    let e = asc
        .MrgSort::<f32>(&dst, l, info([32; 4], false, 5, 1))
        .unwrap_err();
    assert!(
        matches!(e, AscendError::Rule { param: "validBit", ref value, .. } if value == "5"),
        "{e}"
    );
    let e = asc
        .MrgSort::<f32>(&dst, l, info([4096, 1, 1, 1], false, 15, 1))
        .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::OutOfRange {
                param: "elementLengths",
                value: 4096,
                ..
            }
        ),
        "{e}"
    );
    let e = asc
        .MrgSort::<f32>(&dst, l, info([32; 4], false, 15, 256))
        .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::OutOfRange {
                param: "repeatTimes",
                value: 256,
                ..
            }
        ),
        "{e}"
    );
    // repeatTimes > 1 only with 4 equal, contiguous lists and no suspension.
    for p in [
        info([32, 32, 32, 16], false, 15, 2),
        info([32; 4], true, 15, 2),
        info([32; 4], false, 7, 2),
    ] {
        let e = asc.MrgSort::<f32>(&dst, l, p).unwrap_err();
        assert!(
            matches!(
                e,
                AscendError::Rule {
                    param: "repeatTimes",
                    ..
                }
            ),
            "{e}"
        );
    }
    let e = asc
        .MrgSort::<f32>(&dst, [&a, &c, &b, &d], info([32; 4], false, 15, 2))
        .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::Rule {
                param: "repeatTimes",
                ..
            }
        ),
        "{e}"
    );
    // dst 32-byte aligned, sources 8-byte aligned.
    let e = asc
        .MrgSort::<f32>(&dst.offset(2), l, info([32; 4], false, 15, 1))
        .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::Misaligned {
                param: "dst",
                align: 32,
                ..
            }
        ),
        "{e}"
    );
    let odd = w.offset(1);
    let e = asc
        .MrgSort::<f32>(&dst, [&a, &odd, &c, &d], info([32; 4], false, 15, 1))
        .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::Misaligned {
                param: "src2",
                align: 8,
                ..
            }
        ),
        "{e}"
    );
    // No overlap of a source with dst.
    let e = asc
        .MrgSort::<f32>(&w.offset(128), l, info([32; 4], false, 15, 1))
        .unwrap_err();
    assert!(
        matches!(e, AscendError::IllegalOverlap { src: "src3", .. }),
        "{e}"
    );
    // Tensor bounds.
    let e = asc
        .MrgSort::<f32>(&dst, l, info([32, 32, 32, 200], false, 15, 1))
        .unwrap_err();
    assert!(matches!(e, AscendError::TensorOverflow { .. }), "{e}");
    // Not on Atlas training / 310P / 310; half or float only.
    for chip in [ChipId::Ascend910, ChipId::Ascend310P, ChipId::Ascend310] {
        let mut a = AscendC::new(chip, 0);
        let s = a.AllocTensor::<f16>("s", 64).unwrap();
        let d = a.AllocTensor::<f16>("d", 64).unwrap();
        let e = a
            .MrgSort::<f16>(&d, [&s, &s, &s, &s], info([1; 4], false, 15, 1))
            .unwrap_err();
        assert!(
            matches!(
                e,
                AscendError::NotSupported {
                    instr: "MrgSort",
                    ..
                }
            ),
            "{e}"
        );
    }
    let s = asc.AllocTensor::<i32>("si", 64).unwrap();
    let d = asc.AllocTensor::<i32>("di", 64).unwrap();
    let e = asc
        .MrgSort::<i32>(&d, [&s, &s, &s, &s], info([1; 4], false, 15, 1))
        .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::IllegalType {
                dtype: ElemType::I32,
                ..
            }
        ),
        "{e}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(64)))]

    /// Random chips, types, list lengths (0..40), validBit, suspension, scores from a small set
    /// with ±0 and ±inf (ties across and within lists) against the model: the valid lists
    /// concatenated in list order, stably sorted by score descending, and with suspension cut
    /// just after the entry that uses up the first list (or empty when a list is empty).
    #[test]
    fn mrg_sort_matches_the_model(chip_i in 0usize..6, is_f16 in any::<bool>(), lens in prop::array::uniform4(0u16..40),
                                  valid_i in 0usize..3, stop in any::<bool>(), seed in any::<u64>()) {
        let chip = CHIPS[chip_i];
        let valid = [3u16, 7, 15][valid_i];
        let lists = [2usize, 3, 4][valid_i];
        let mut x = seed;
        let mut next = || { x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407); x >> 33 };
        // (score, index) lists, each sorted descending.
        let mut data: Vec<Vec<(f32, u32)>> = Vec::new();
        for &len in &lens {
            let mut l: Vec<(f32, u32)> = (0..len).map(|_| {
                let s = match next() % 10 { 0 => f32::INFINITY, 1 => f32::NEG_INFINITY, 2 => 0.0, 3 => -0.0, k => k as f32 - 6.5 };
                (s, next() as u32)
            }).collect();
            l.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap());
            data.push(l);
        }
        let mut asc = AscendC::new(chip, 0);
        let entry = |s: f32, i: u32| -> [u8; 8] {
            let mut e = [0u8; 8];
            if is_f16 { e[..2].copy_from_slice(&f16::from_f32(s).to_le_bytes()) } else { e[..4].copy_from_slice(&s.to_le_bytes()) }
            e[4..].copy_from_slice(&i.to_le_bytes());
            e
        };
        let p = info(lens, stop, valid, 1);
        macro_rules! run {
            ($T:ty) => {{
                let per = 8 / std::mem::size_of::<$T>() as u64;
                let srcs: Vec<_> = (0..4).map(|k| asc.AllocTensor::<$T>(&format!("l{k}"), 40 * per).unwrap()).collect();
                let dst = asc.AllocTensor::<$T>("dst", 170 * per).unwrap();
                for k in 0..4 {
                    let b: Vec<u8> = data[k].iter().flat_map(|&(s, i)| entry(s, i)).collect();
                    let v: Vec<$T> = bytemuck::pod_collect_to_vec(&b);
                    asc.write(&srcs[k], &v).unwrap();
                }
                let init: Vec<u8> = (0..170 * 8).map(|i| (i * 11 + 1) as u8).collect();
                asc.write(&dst, &bytemuck::pod_collect_to_vec::<u8, $T>(&init)).unwrap();
                let r = asc.MrgSort::<$T>(&dst, [&srcs[0], &srcs[1], &srcs[2], &srcs[3]], p);
                (r, bytemuck::pod_collect_to_vec::<$T, u8>(&asc.read::<$T>(&dst).unwrap()), init)
            }};
        }
        let (r, got, init) = if is_f16 { run!(f16) } else { run!(f32) };
        let has = matches!(chip, ChipId::Ascend910B | ChipId::Ascend310B | ChipId::Ascend950);
        prop_assert_eq!(r.is_ok(), has, "{:?}", r);
        if !has { return Ok(()); }
        // The model.
        let mut all: Vec<(usize, f32, u32)> = Vec::new();
        for (k, l) in data.iter().enumerate().take(lists) {
            all.extend(l.iter().map(|&(s, i)| (k, if is_f16 { f16::from_f32(s).to_f32() } else { s }, i)));
        }
        all.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap());
        let mut used = [0u16; 4];
        let mut out = Vec::new();
        for &(k, s, i) in &all {
            if stop && (0..lists).any(|j| used[j] == lens[j]) { break; }
            used[k] += 1;
            out.extend_from_slice(&entry(s, i));
        }
        if stop && (0..lists).any(|j| lens[j] == 0) { out.clear(); used = [0; 4]; }
        let mut want = init.clone();
        want[..out.len()].copy_from_slice(&out);
        prop_assert_eq!(&got[..], &want[..]);
        prop_assert_eq!(asc.GetMrgSortResult(), used);
    }
}
