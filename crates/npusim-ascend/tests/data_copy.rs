//! DataCopy in its parameter forms (asc-devkit `GM与UB数据搬运`: 连续 / 高维切分 / 切片
//! DataCopy pages): the pages' examples, property tests against plain models written here,
//! and one test per restriction class.

mod common;

use half::f16;
use npusim_ascend::AscendError;
use npusim_ascend::ascendc::{AscendC, SliceInfo};
use npusim_core::ChipId;
use proptest::prelude::*;

/// The slice page's example (its figure 1): float, source 3 × 87 in GM, slices
/// `{{16, 70, 7, 3, 87}, {0, 2, 1, 1, 3}}` into a 2 × 48 UB tensor `{{0, 47, 0, 3, 48},
/// {0, 1, 0, 1, 2}}`, then back out to GM with the destination slices on both sides.
#[test]
fn slice_page_example() {
    for chip in [ChipId::Ascend910B, ChipId::Ascend950, ChipId::Ascend310P] {
        let mut asc = AscendC::new(chip, 8192);
        let x: Vec<f32> = (0..3 * 87).map(|i| i as f32 + 0.5).collect();
        let g = asc.GmAlloc::<f32>("srcGlobal", &x).unwrap();
        let out = asc.GmAlloc::<f32>("dstGlobal", &[0.0; 96]).unwrap();
        let u = asc.AllocTensor::<f32>("srcLocal", 96).unwrap();
        let src = [
            SliceInfo::new(16, 70, 7, 3, 87),
            SliceInfo::new(0, 2, 1, 1, 3),
        ];
        let dst = [
            SliceInfo::new(0, 47, 0, 3, 48),
            SliceInfo::new(0, 1, 0, 1, 2),
        ];
        asc.DataCopySlice::<f32>(&u, &g, &dst, &src, 2).unwrap();
        // Model from the figure: rows 0 and 2; in each, two runs of 3 blocks (24 floats)
        // starting at 16 and 16 + 24 + 7 = 47.
        let mut want = vec![0f32; 96];
        for (r, src_row) in [0usize, 2].into_iter().enumerate() {
            for (k, start) in [16usize, 47].into_iter().enumerate() {
                for e in 0..24 {
                    want[r * 48 + k * 24 + e] = x[src_row * 87 + start + e];
                }
            }
        }
        assert_eq!(asc.read::<f32>(&u).unwrap(), want, "{chip:?}");
        asc.DataCopySlice::<f32>(&out, &u, &dst, &dst, 2).unwrap();
        assert_eq!(asc.read::<f32>(&out).unwrap(), want, "{chip:?}");
    }
}

/// The high-dimension page's two examples, half: 1 × 128 moved whole with {1, 8, 0, 0};
/// 1 × 112 with {2, 3, 1, 2}: two runs of 3 blocks, one block skipped in the source, two in
/// the destination.
#[test]
fn data_copy_params_page_examples() {
    let mut asc = AscendC::new(ChipId::Ascend910B, 4096);
    let x: Vec<f16> = (0..128).map(|i| f16::from_f32(i as f32)).collect();
    let g = asc.GmAlloc::<f16>("src", &x).unwrap();
    let u = asc.AllocTensor::<f16>("dst", 128).unwrap();
    asc.DataCopyParams(&u, &g, 1, 8, 0, 0).unwrap();
    assert_eq!(asc.read::<f16>(&u).unwrap(), x);
    let g2 = asc.GmAlloc::<f16>("src2", &x[..112]).unwrap();
    let u2 = asc.AllocTensor::<f16>("dst2", 128).unwrap();
    let fill = f16::from_f32(-1.0);
    asc.write(&u2, &[fill; 128]).unwrap();
    asc.DataCopyParams(&u2, &g2, 2, 3, 1, 2).unwrap();
    let mut want = vec![fill; 128];
    want[..48].copy_from_slice(&x[..48]);
    want[80..128].copy_from_slice(&x[64..112]);
    assert_eq!(asc.read::<f16>(&u2).unwrap(), want);
}

/// The contiguous page: `count * sizeof(T)` not a multiple of 32 bytes is rounded down.
#[test]
fn data_copy_count_rounds_down() {
    let mut asc = AscendC::new(ChipId::Ascend310P, 4096);
    let x: Vec<f16> = (0..64).map(|i| f16::from_f32(i as f32 + 1.0)).collect();
    let g = asc.GmAlloc::<f16>("src", &x).unwrap();
    let u = asc.AllocTensor::<f16>("dst", 64).unwrap();
    asc.DataCopy::<f16>(&u, &g, 40).unwrap(); // 80 bytes -> 64 bytes = 32 halves
    let got = asc.read::<f16>(&u).unwrap();
    assert_eq!(&got[..32], &x[..32]);
    assert!(got[32..].iter().all(|v| *v == f16::ZERO));
}

/// Restriction classes of the DataCopy forms, each a typed error naming the parameter.
#[test]
fn data_copy_restrictions() {
    // A zero blockCount / blockLen is a NOP on A2/A3 and 950, rejected elsewhere.
    for (chip, nop) in [
        (ChipId::Ascend910B, true),
        (ChipId::Ascend950, true),
        (ChipId::Ascend910, false),
        (ChipId::Ascend310P, false),
    ] {
        let mut asc = AscendC::new(chip, 4096);
        let g = asc.GmAlloc::<f16>("src", &[f16::ONE; 64]).unwrap();
        let u = asc.AllocTensor::<f16>("dst", 64).unwrap();
        for (count, len, param) in [(0u16, 2u16, "blockCount"), (2, 0, "blockLen")] {
            let r = asc.DataCopyParams(&u, &g, count, len, 0, 0);
            if nop {
                assert_eq!(r, Ok(()), "{chip:?}");
                assert!(asc.read::<f16>(&u).unwrap().iter().all(|v| *v == f16::ZERO));
            } else {
                assert!(
                    matches!(r, Err(AscendError::Rule { instr: "DataCopy", param: p, .. }) if p == param),
                    "{chip:?}: {r:?}"
                );
            }
        }
    }
    let mut asc = AscendC::new(ChipId::Ascend910B, 4096);
    let g = asc.GmAlloc::<f16>("src", &[f16::ONE; 64]).unwrap();
    let u = asc.AllocTensor::<f16>("dst", 64).unwrap();
    // Range.
    let e = asc.DataCopyParams(&u, &g, 4096, 1, 0, 0).unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::OutOfRange {
                instr: "DataCopy",
                param: "blockCount",
                value: 4096,
                ..
            }
        ),
        "{e}"
    );
    // Bounds.
    let e = asc.DataCopyParams(&u, &g, 2, 4, 1, 0).unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::TensorOverflow {
                instr: "DataCopy",
                ..
            }
        ),
        "{e}"
    );
    // UB alignment.
    let e = asc.DataCopy::<f16>(&u.offset(1), &g, 16).unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::Misaligned {
                instr: "DataCopy",
                param: "dst",
                ..
            }
        ),
        "{e}"
    );
    // Types per chip: no bfloat16_t on Atlas training.
    let mut asc = AscendC::new(ChipId::Ascend910, 4096);
    let g = asc
        .GmAlloc::<half::bf16>("src", &[half::bf16::ONE; 16])
        .unwrap();
    let u = asc.AllocTensor::<half::bf16>("dst", 16).unwrap();
    let e = asc.DataCopy::<half::bf16>(&u, &g, 16).unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::IllegalType {
                instr: "DataCopy",
                param: "T",
                ..
            }
        ),
        "{e}"
    );
}

/// Restriction classes of the slice form.
#[test]
fn data_copy_slice_restrictions() {
    let setup = |chip| {
        let mut asc = AscendC::new(chip, 8192);
        let g = asc.GmAlloc::<f32>("g", &[1.0; 3 * 87]).unwrap();
        let u = asc.AllocTensor::<f32>("u", 96).unwrap();
        (asc, g, u)
    };
    let src = [
        SliceInfo::new(16, 70, 7, 3, 87),
        SliceInfo::new(0, 2, 1, 1, 3),
    ];
    let dst = [
        SliceInfo::new(0, 47, 0, 3, 48),
        SliceInfo::new(0, 1, 0, 1, 2),
    ];
    // Products: not on Atlas training or Atlas 200I/500 A2.
    for chip in [ChipId::Ascend910, ChipId::Ascend310B] {
        let (mut asc, g, u) = setup(chip);
        assert_eq!(
            asc.DataCopySlice::<f32>(&u, &g, &dst, &src, 2),
            Err(AscendError::NotSupported {
                instr: "DataCopy",
                chip
            })
        );
    }
    let (mut asc, g, u) = setup(ChipId::Ascend910B);
    let rule = |r: Result<(), AscendError>, want: &str| match r {
        Err(AscendError::Rule {
            instr: "DataCopy",
            param,
            ..
        }) => assert_eq!(param, want),
        other => panic!("want a rule on {want}, got {other:?}"),
    };
    // dimValue range and array lengths.
    let e = asc.DataCopySlice::<f32>(&u, &g, &dst, &src, 9).unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::OutOfRange {
                param: "dimValue",
                value: 9,
                ..
            }
        ),
        "{e}"
    );
    rule(
        asc.DataCopySlice::<f32>(&u, &g, &dst, &src[..1], 2),
        "srcSliceInfo",
    );
    // burstLen equal on both sides.
    let d2 = [SliceInfo::new(0, 47, 0, 2, 48), dst[1]];
    rule(asc.DataCopySlice::<f32>(&u, &g, &d2, &src, 2), "burstLen");
    // burstLen 1 beyond dimension 0.
    let s2 = [src[0], SliceInfo::new(0, 2, 1, 2, 3)];
    let d3 = [dst[0], SliceInfo::new(0, 1, 0, 2, 2)];
    rule(
        asc.DataCopySlice::<f32>(&u, &g, &d3, &s2, 2),
        "dstSliceInfo",
    );
    // startIndex < endIndex <= shapeValue.
    let s3 = [SliceInfo::new(16, 90, 7, 3, 87), src[1]];
    rule(
        asc.DataCopySlice::<f32>(&u, &g, &dst, &s3, 2),
        "srcSliceInfo",
    );
    // The run equation: 16..=71 is 56 elements, not (N - 1)·7 + N·24.
    let s4 = [SliceInfo::new(16, 71, 7, 3, 87), src[1]];
    rule(
        asc.DataCopySlice::<f32>(&u, &g, &dst, &s4, 2),
        "srcSliceInfo",
    );
    // Equal burst counts: rows 0..=2 without a gap are 3 rows against 2.
    let s5 = [src[0], SliceInfo::new(0, 2, 0, 1, 3)];
    rule(
        asc.DataCopySlice::<f32>(&u, &g, &dst, &s5, 2),
        "srcSliceInfo",
    );
    // Bounds: a 2 × 48 destination slice needs 96 floats; this UB tensor has 64.
    let small = asc.AllocTensor::<f32>("small", 64).unwrap();
    let e = asc
        .DataCopySlice::<f32>(&small, &g, &dst, &src, 2)
        .unwrap_err();
    assert!(
        matches!(e, AscendError::TensorOverflow { param: "dst", .. }),
        "{e}"
    );
    // UB alignment.
    let e = asc
        .DataCopySlice::<f32>(&u.offset(1), &g, &dst, &src, 2)
        .unwrap_err();
    assert!(
        matches!(e, AscendError::Misaligned { param: "dst", .. }),
        "{e}"
    );
}

/// One dimension of a random valid slice: (start, stride, runs); at least `min_runs` runs
/// (startIndex < endIndex needs two one-row runs beyond dimension 0).
fn dim(min_runs: u32) -> impl Strategy<Value = (u32, u32, u32)> {
    (0u32..20, 0u32..9, min_runs..4)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(48)))]

    /// Random 2-D slices (int16, 16 elements per block) against a plain model: enumerate the
    /// source runs row by row, lay them out in the destination's runs in order. Every chip:
    /// the slice form exists on 910B, 950 and 310P (the page's products), a typed
    /// NotSupported elsewhere.
    #[test]
    fn slice_matches_model(
        burst in 1u32..3,
        s0 in dim(1), s1 in dim(2), d0_stride in 0u32..5, d1_stride in 0u32..3, chip_i in 0usize..6,
    ) {
        let chip = common::CHIPS[chip_i];
        let has = matches!(chip, ChipId::Ascend910B | ChipId::Ascend950 | ChipId::Ascend310P);
        let unit = burst * 16;
        let (s0_start, s0_stride, n0) = s0;
        let (s1_start, s1_stride, n1) = s1;
        let span = |start: u32, stride: u32, n: u32, u: u32| (start, start + (n - 1) * stride + n * u - 1);
        let (a0, b0) = span(s0_start, s0_stride, n0, unit);
        let (a1, b1) = span(s1_start, s1_stride, n1, 1);
        let (shape0, shape1) = (b0 + 3, b1 + 2);
        let (c0, e0) = span(0, d0_stride, n0, unit);
        let (c1, e1) = span(0, d1_stride, n1, 1);
        let (dshape0, dshape1) = (e0 + 1, e1 + 1);
        let src = [SliceInfo::new(a0, b0, s0_stride, burst, shape0), SliceInfo::new(a1, b1, s1_stride, 1, shape1)];
        let dst = [SliceInfo::new(c0, e0, d0_stride, burst, dshape0), SliceInfo::new(c1, e1, d1_stride, 1, dshape1)];
        let mut asc = AscendC::new(chip, 1 << 16);
        let x: Vec<i16> = (0..shape0 * shape1).map(|i| i as i16 + 1).collect();
        let g = asc.GmAlloc::<i16>("g", &x).unwrap();
        let n_dst = (dshape0 * dshape1) as u64;
        let u = asc.AllocTensor::<i16>("u", n_dst.div_ceil(16) * 16).unwrap();
        let r = asc.DataCopySlice::<i16>(&u, &g, &dst, &src, 2);
        if !has {
            prop_assert_eq!(r, Err(AscendError::NotSupported { instr: "DataCopy", chip }));
            return Ok(());
        }
        r.unwrap();
        let mut want = vec![0i16; (n_dst.div_ceil(16) * 16) as usize];
        for r in 0..n1 {
            for k in 0..n0 {
                for e in 0..unit {
                    let s = (a1 + r * (1 + s1_stride)) * shape0 + a0 + k * (unit + s0_stride) + e;
                    let d = (r * (1 + d1_stride)) * dshape0 + k * (unit + d0_stride) + e;
                    want[d as usize] = x[s as usize];
                }
            }
        }
        prop_assert_eq!(asc.read::<i16>(&u).unwrap(), want);
    }

    /// DataCopyParams against a plain model of bursts and gaps, both directions, every chip.
    #[test]
    fn data_copy_params_matches_model(count in 1u16..5, len in 1u16..4, sgap in 0u16..3, dgap in 0u16..3, out in any::<bool>(),
                                      chip_i in 0usize..6) {
        let mut asc = AscendC::new(common::CHIPS[chip_i], 1 << 14);
        let blocks = |gap: u16| (count as usize - 1) * (len + gap) as usize + len as usize;
        let (sn, dn) = (blocks(sgap) * 8, blocks(dgap) * 8);
        let x: Vec<f32> = (0..sn).map(|i| i as f32).collect();
        let mut want = vec![-1f32; dn];
        for b in 0..count as usize {
            for e in 0..len as usize * 8 {
                want[b * (len + dgap) as usize * 8 + e] = x[b * (len + sgap) as usize * 8 + e];
            }
        }
        if out {
            let u = asc.AllocTensor::<f32>("u", sn as u64).unwrap();
            asc.write(&u, &x).unwrap();
            let g = asc.GmAlloc::<f32>("g", &vec![-1f32; dn]).unwrap();
            asc.DataCopyParams(&g, &u, count, len, sgap, dgap).unwrap();
            prop_assert_eq!(asc.read::<f32>(&g).unwrap(), want);
        } else {
            let g = asc.GmAlloc::<f32>("g", &x).unwrap();
            let u = asc.AllocTensor::<f32>("u", dn as u64).unwrap();
            asc.write(&u, &vec![-1f32; dn]).unwrap();
            asc.DataCopyParams(&u, &g, count, len, sgap, dgap).unwrap();
            prop_assert_eq!(asc.read::<f32>(&u).unwrap(), want);
        }
    }
}
