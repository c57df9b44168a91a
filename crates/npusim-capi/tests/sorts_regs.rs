//! Sort32, MrgSort + GetMrgSortResult, ProposalConcat / RpSort16 / ProposalExtract,
//! TransDataTo5HD, the reduction registers (GetAccVal, GetReduceMaxMinCount /
//! GetReduceRepeatMaxMinSpr), DataCopy with slices and the mixed-precision MulAddDst / Axpy
//! through the C++ face: `tests/kernels/sorts_regs.cpp` compiled with the host C++ compiler,
//! checked against plain models of the pages' formulas written here.

use half::f16;
use npusim_core::npy::NpyArray;

mod common;
use common::arr;

fn launch(
    chip: &str,
    kernel: &str,
    args: Vec<(&str, NpyArray)>,
) -> Result<Vec<(String, NpyArray)>, String> {
    common::launch("sorts_regs.cpp", chip, kernel, args)
}

/// (score, index) pairs sorted by score, descending (distinct scores).
fn sorted(pairs: &mut [(f32, u32)]) {
    pairs.sort_by(|a, b| b.0.total_cmp(&a.0));
}

#[test]
fn cpp_sort32_mrgsort_and_the_merge_counts() {
    let s: Vec<f32> = (0..64u32)
        .map(|i| ((i * 37 + 11) % 64) as f32 - 20.5)
        .collect();
    let ix: Vec<u32> = (0..64).collect();
    for chip in ["ascend910b", "ascend950"] {
        let out = launch(
            chip,
            "sorts",
            vec![
                ("s", arr(&s)),
                ("ix", arr(&ix)),
                ("o", arr(&[0f32; 128])),
                ("m", arr(&[0f32; 128])),
                ("n", arr(&[0i32; 8])),
            ],
        )
        .unwrap_or_else(|e| panic!("{chip}: {e}"));
        let pairs = |a: &NpyArray| -> Vec<(f32, u32)> {
            let v = a.to_elems::<f32>().expect("float");
            v.chunks(2).map(|c| (c[0], c[1].to_bits())).collect()
        };
        // Sort32: each repeat's 32 (score, index) pairs, descending.
        let mut want: Vec<(f32, u32)> = s.iter().copied().zip(ix.iter().copied()).collect();
        sorted(&mut want[..32]);
        sorted(&mut want[32..]);
        assert_eq!(pairs(&out[2].1), want, "{chip} Sort32");
        // MrgSort of the two sorted lists: all 64 descending; every entry of both lists used.
        sorted(&mut want);
        assert_eq!(pairs(&out[3].1), want, "{chip} MrgSort");
        let n = out[4].1.to_elems::<i32>().expect("int32");
        assert_eq!(&n[..4], &[32, 32, 0, 0], "{chip} GetMrgSortResult");
    }
    // Sort32 is not on Atlas training: a typed refusal naming the call.
    let e = launch(
        "ascend910",
        "sorts",
        vec![
            ("s", arr(&s)),
            ("ix", arr(&ix)),
            ("o", arr(&[0f32; 128])),
            ("m", arr(&[0f32; 128])),
            ("n", arr(&[0i32; 8])),
        ],
    )
    .unwrap_err();
    assert!(e.contains("Sort32") && e.contains("not supported"), "{e}");
}

#[test]
fn cpp_proposals_concat_sort_extract() {
    let a: Vec<f16> = (0..16u32)
        .map(|i| f16::from_f32(((i * 7 + 3) % 16) as f32 * 0.25 - 1.0))
        .collect();
    let p0: Vec<f16> = (0..128u32).map(|i| f16::from_f32(i as f32)).collect();
    let out = launch(
        "ascend310p",
        "proposal_ops",
        vec![
            ("a", arr(&a)),
            ("p", arr(&p0)),
            ("q", arr(&[f16::ZERO; 128])),
            ("e", arr(&[f16::ZERO; 16])),
        ],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    // ProposalConcat: a[k] into element 4 of proposal k (8 elements each), the rest kept.
    let mut p = p0.clone();
    for k in 0..16 {
        p[8 * k + 4] = a[k];
    }
    assert_eq!(out[1].1.to_elems::<f16>().unwrap(), p, "ProposalConcat");
    // RpSort16: the 16 proposals ordered by score (element 4), descending, moved whole.
    let mut order: Vec<usize> = (0..16).collect();
    order.sort_by(|&x, &y| p[8 * y + 4].total_cmp(&p[8 * x + 4]));
    let q: Vec<f16> = order
        .iter()
        .flat_map(|&k| p[8 * k..8 * k + 8].to_vec())
        .collect();
    assert_eq!(out[2].1.to_elems::<f16>().unwrap(), q, "RpSort16");
    // ProposalExtract: element 4 of each sorted proposal.
    let e: Vec<f16> = order.iter().map(|&k| p[8 * k + 4]).collect();
    assert_eq!(out[3].1.to_elems::<f16>().unwrap(), e, "ProposalExtract");
}

#[test]
fn cpp_trans_data_to_5hd_is_the_16x16_transpose() {
    let x: Vec<u16> = (0..256u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 16) as u16)
        .collect();
    for chip in ["ascend910b", "ascend310p", "ascend950"] {
        let out = launch(
            chip,
            "trans5hd",
            vec![("x", arr(&x)), ("y", arr(&[0u16; 256]))],
        )
        .unwrap_or_else(|e| panic!("{chip}: {e}"));
        let y = out[1].1.to_elems::<u16>().unwrap();
        // dstList[j] element i = srcList[i] element j.
        for j in 0..16 {
            for i in 0..16 {
                assert_eq!(y[16 * j + i], x[16 * i + j], "{chip} ({j}, {i})");
            }
        }
    }
}

#[test]
fn cpp_reduction_registers() {
    // x[i] = (i * 37) mod 128: 0..127 once each (one maximum, 127), small integers (every
    // partial sum of x[0..100) is exact in float, whatever the order).
    let x: Vec<f32> = (0..128u32).map(|i| ((i * 37) % 128) as f32).collect();
    let at = x.iter().position(|v| *v == 127.0).unwrap();
    let sum: f32 = x[..100].iter().sum();
    let out = launch(
        "ascend910b",
        "regs",
        vec![("x", arr(&x)), ("r", arr(&[0f32; 8]))],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let r = out[1].1.to_elems::<f32>().unwrap();
    assert_eq!(r[0], sum, "ReduceSum");
    assert_eq!(r[1], sum, "GetAccVal after the count-form ReduceSum");
    assert_eq!(r[2], 127.0, "GetReduceMaxMinCount value");
    assert_eq!(r[3].to_bits() as usize, at, "GetReduceMaxMinCount index");
    assert_eq!(r[4], 127.0, "GetReduceRepeatMaxMinSpr value only");
    // GetAccVal is A2/A3 and 950 only.
    let e = launch(
        "ascend310p",
        "regs",
        vec![("x", arr(&x)), ("r", arr(&[0f32; 8]))],
    )
    .unwrap_err();
    assert!(
        e.contains("GetAccVal") && e.contains("not supported"),
        "{e}"
    );
}

#[test]
fn cpp_data_copy_slices() {
    let x: Vec<u16> = (0..256u16).map(|i| i.wrapping_mul(31)).collect();
    let out = launch(
        "ascend910b",
        "slice",
        vec![("x", arr(&x)), ("y", arr(&[0u16; 64]))],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let y = out[1].1.to_elems::<u16>().unwrap();
    // Rows 0 and 2 (64 elements each), columns 0..31.
    let mut want = x[0..32].to_vec();
    want.extend_from_slice(&x[128..160]);
    assert_eq!(y, want);
}

#[test]
fn cpp_mixed_precision_muladddst_and_axpy() {
    let a: Vec<f16> = (0..256u32)
        .map(|i| f16::from_f32(((i * 53) % 97) as f32 * 0.37 - 15.0))
        .collect();
    let b: Vec<f16> = (0..256u32)
        .map(|i| f16::from_f32(((i * 29) % 89) as f32 * 0.61 - 20.0))
        .collect();
    let d: Vec<f32> = (0..256u32).map(|i| i as f32 * 0.1 - 7.0).collect();
    for chip in ["ascend910b", "ascend310p", "ascend950"] {
        let out = launch(
            chip,
            "mixed",
            vec![
                ("a", arr(&a)),
                ("b", arr(&b)),
                ("d", arr(&d)),
                ("e", arr(&d)),
            ],
        )
        .unwrap_or_else(|e| panic!("{chip}: {e}"));
        // The product of two halves is exact in float; one rounding at the sum.
        let want_d: Vec<u32> = (0..256)
            .map(|i| (a[i].to_f32() * b[i].to_f32() + d[i]).to_bits())
            .collect();
        let want_e: Vec<u32> = (0..256)
            .map(|i| (2.0 * a[i].to_f32() + d[i]).to_bits())
            .collect();
        let got = |k: usize| -> Vec<u32> {
            out[k]
                .1
                .to_elems::<f32>()
                .unwrap()
                .iter()
                .map(|v| v.to_bits())
                .collect()
        };
        assert_eq!(got(2), want_d, "{chip} MulAddDst");
        assert_eq!(got(3), want_e, "{chip} Axpy");
    }
    // MulAddDst's mixed form is not on Atlas 200I/500 A2 (310B).
    let e = launch(
        "ascend310b",
        "mixed",
        vec![
            ("a", arr(&a)),
            ("b", arr(&b)),
            ("d", arr(&d)),
            ("e", arr(&d)),
        ],
    )
    .unwrap_err();
    assert!(e.contains("MulAddDst"), "{e}");
}

#[test]
fn cpp_gatherb_reverses_blocks() {
    let x: Vec<u16> = (0..128).map(|i| i * 3 + 1).collect();
    let off: Vec<u32> = vec![32, 0, 224, 96, 64, 160, 128, 192];
    for chip in ["ascend910b", "ascend950"] {
        let out = launch(
            chip,
            "gatherb",
            vec![("x", arr(&x)), ("off", arr(&off)), ("y", arr(&[0u16; 128]))],
        )
        .unwrap_or_else(|e| panic!("{chip}: {e}"));
        // Block j of y = the 16 elements of x at byte offset off[j].
        let want: Vec<u16> = off
            .iter()
            .flat_map(|o| x[*o as usize / 2..*o as usize / 2 + 16].to_vec())
            .collect();
        assert_eq!(out[2].1.to_elems::<u16>().unwrap(), want, "{chip}");
    }
    let e = launch(
        "ascend310p",
        "gatherb",
        vec![("x", arr(&x)), ("off", arr(&off)), ("y", arr(&[0u16; 128]))],
    )
    .unwrap_err();
    assert!(e.contains("Gatherb") && e.contains("not supported"), "{e}");
}

#[test]
fn cpp_bilinear_interpolation_page_example() {
    // BilinearInterpolation(ISASI).md: src0 [1 .. 512], src1 [2 .. 17], src0Offset [0, 32, ..,
    // 992], mask 128, hRepeat 2, repeatMode false, dstBlkStride 1, vROffset 128, vRepeat 2 ->
    // printed dst [389, 394, 399, 404, ..., 4096].
    let h = f16::from_f32;
    let x0: Vec<f16> = (1..=512).map(|v| h(v as f32)).collect();
    let x1: Vec<f16> = (2..=17).map(|v| h(v as f32)).collect();
    let off: Vec<u32> = (0..32).map(|k| 32 * k).collect();
    let z0: Vec<f16> = (0..256).map(|i| h(-(i as f32))).collect();
    let args = || {
        vec![
            ("x0", arr(&x0)),
            ("x1", arr(&x1)),
            ("off", arr(&off)),
            ("y", arr(&[f16::ZERO; 256])),
            ("z", arr(&z0)),
        ]
    };
    let out = launch("ascend910b", "bilinear", args()).unwrap();
    let y = out[3].1.to_elems::<f16>().unwrap();
    let z = out[4].1.to_elems::<f16>().unwrap();
    for (i, v) in [
        (0, 389.0),
        (1, 394.0),
        (2, 399.0),
        (3, 404.0),
        (255, 4096.0),
    ] {
        assert_eq!(y[i], h(v), "printed dst[{i}]");
    }
    // By hand: dst[e] = 389 + 5e (exact); dst[128 + e] = 4·(257+e) + 5·(385+e) with each
    // product rounded to half (5·(385+e) is odd and above 2048 for some e) and then the sum.
    for e in 0..128 {
        let want = [
            h(389.0 + 5.0 * e as f32),
            h(h((4 * (257 + e)) as f32).to_f32() + h((5 * (385 + e)) as f32).to_f32()),
        ];
        for (v, w) in want.iter().enumerate() {
            let i = 128 * v + e;
            assert_eq!(y[i], *w, "y[{i}]");
            assert_eq!(z[i], if e < 64 { *w } else { z0[i] }, "z[{i}]");
        }
    }
    let e = launch("ascend310p", "bilinear", args()).unwrap_err();
    assert!(
        e.contains("BilinearInterpolation") && e.contains("not supported"),
        "{e}"
    );
}

#[test]
fn cpp_compare_high_dimension_forms() {
    // Compare(dst, a, b, LT, mask, repeat 2, {1, 1, 2, 8, 8, 16}): lane l of repeat r compares
    // a[64 r + l] with b at block 16 r + 2 (l / 8), element l % 8; CompareScalar(a, 0.5, GT,
    // repeat 2, {1, 1, 8, 8}) into dst + 32 bytes: a[64 r + l] > 0.5. One bit per lane, packed, low bit first.
    let a: Vec<f32> = (0..128)
        .map(|i| ((i * 37 % 101) as f32 - 50.0) / 10.0)
        .collect();
    let b: Vec<f32> = (0..256)
        .map(|i| ((i * 53 % 97) as f32 - 48.0) / 10.0)
        .collect();
    let mut want = [0u8; 64];
    for r in 0..2 {
        for l in 0..64 {
            let k = 64 * r + l;
            let bi = (16 * r + 2 * (l / 8)) * 8 + l % 8;
            if a[k] < b[bi] {
                want[k / 8] |= 1 << (k % 8);
            }
            if a[k] > 0.5 {
                want[32 + k / 8] |= 1 << (k % 8);
            }
        }
    }
    let out = launch(
        "ascend910b",
        "cmp_repeat",
        vec![("a", arr(&a)), ("b", arr(&b)), ("y", arr(&[0u8; 64]))],
    )
    .unwrap();
    assert_eq!(out[2].1.to_elems::<u8>().unwrap(), want.to_vec());
}
