//! The worked examples of seed 000 (TIK vec_cmpv_xx) and seed 001 (Ascend C PairReduceSum),
//! transcribed line by line and checked against the outputs the documents print.

use half::f16;
use npusim_ascend::ascendc::{AscendC, MASK_PLACEHOLDER};
use npusim_ascend::tik::{Scope, Tik};
use npusim_core::{ChipId, NpyArray};

fn f16s(v: impl IntoIterator<Item = f32>) -> Vec<f16> {
    v.into_iter().map(f16::from_f32).collect()
}

#[test]
fn seed000_example1_vec_cmpv_eq() {
    for chip in [ChipId::Ascend310, ChipId::Ascend910] {
        let mut tik = Tik::new(chip);
        let src0_gm = tik.tensor("float16", &[128], "src0_gm", Scope::Gm).unwrap();
        let src1_gm = tik.tensor("float16", &[128], "src1_gm", Scope::Gm).unwrap();
        let src0_ub = tik
            .tensor("float16", &[128], "src0_ub", Scope::Ubuf)
            .unwrap();
        let src1_ub = tik
            .tensor("float16", &[128], "src1_ub", Scope::Ubuf)
            .unwrap();
        let dst_gm = tik.tensor("uint16", &[16], "dst_gm", Scope::Gm).unwrap();
        let dst_ub = tik.tensor("uint16", &[16], "dst_ub", Scope::Ubuf).unwrap();
        tik.data_move(&src0_ub, &src0_gm, 0, 1, 8, 0, 0).unwrap();
        tik.data_move(&src1_ub, &src1_gm, 0, 1, 8, 0, 0).unwrap();
        tik.vector_dup(16, &dst_ub, 5, 1, 1, 1).unwrap();
        tik.vec_cmpv_eq(&dst_ub, &src0_ub, &src1_ub, 1, 8, 8)
            .unwrap();
        tik.data_move(&dst_gm, &dst_ub, 0, 1, 1, 0, 0).unwrap();
        tik.build_cce("vec_cmpv_eq", &[&src0_gm, &src1_gm], &[&dst_gm])
            .unwrap();

        let src0 = NpyArray::from_elems(vec![128], &f16s((1..=128).map(|i| i as f32)));
        let src1 = NpyArray::from_elems(vec![128], &f16s([2.0; 128]));
        let out = tik
            .start_debug(&[("src0_gm", &src0), ("src1_gm", &src1)])
            .unwrap();
        assert_eq!(out[0].0, "dst_gm");
        assert_eq!(
            out[0].1.to_elems::<u16>().unwrap(),
            vec![2, 0, 0, 0, 0, 0, 0, 0, 5, 5, 5, 5, 5, 5, 5, 5],
            "{chip}"
        );
    }
}

#[test]
fn seed000_example2_vec_cmpv_gt_with_src1_rep_stride_7() {
    let mut tik = Tik::new(ChipId::Ascend910);
    let src0_gm = tik
        .tensor("float16", &[2, 128], "src0_gm", Scope::Gm)
        .unwrap();
    let src1_gm = tik
        .tensor("float16", &[2, 128], "src1_gm", Scope::Gm)
        .unwrap();
    let dst_gm = tik.tensor("uint16", &[16], "dst_gm", Scope::Gm).unwrap();
    let src0_ub = tik
        .tensor("float16", &[2, 128], "src0_ub", Scope::Ubuf)
        .unwrap();
    let src1_ub = tik
        .tensor("float16", &[2, 128], "src1_ub", Scope::Ubuf)
        .unwrap();
    let dst_ub = tik.tensor("uint16", &[16], "dst_ub", Scope::Ubuf).unwrap();
    let (nburst, elements, size) = (1, 2 * 128, 2);
    let burst = elements * size / 32 / nburst;
    tik.data_move(&src0_ub, &src0_gm, 0, nburst, burst, 0, 0)
        .unwrap();
    tik.data_move(&src1_ub, &src1_gm, 0, nburst, burst, 0, 0)
        .unwrap();
    tik.vec_cmpv_gt(&dst_ub, &src0_ub, &src1_ub, 2, 8, 7)
        .unwrap();
    tik.data_move(&dst_gm, &dst_ub, 0, nburst, 1, 0, 0).unwrap();
    tik.build_cce("vec_cmpv_gt", &[&src0_gm, &src1_gm], &[&dst_gm])
        .unwrap();

    // The seed prints src0_gm = src1_gm = 0..255 as a (2, 128) array.
    let data = NpyArray::from_elems(vec![2, 128], &f16s((0..256).map(|i| i as f32)));
    let out = tik
        .start_debug(&[("src0_gm", &data), ("src1_gm", &data)])
        .unwrap();
    let mut want = vec![0u16; 8];
    want.extend([65535u16; 8]);
    assert_eq!(out[0].1.to_elems::<u16>().unwrap(), want);
}

// The printed inputs and outputs of seed 001.
use npusim_ascend::demo::{SEED001_INPUT, SEED001_OUTPUT};

/// Rounds to 4 significant digits, as the document prints.
fn sig4(x: f32) -> String {
    format!("{:.3e}", x)
}

/// Half a unit of the 4th significant digit of a printed value.
fn half_digit(x: f32) -> f32 {
    if x == 0.0 {
        return 0.0;
    }
    0.5 * 10f32.powi(x.abs().log10().floor() as i32 - 3)
}

/// One f16 ulp at `x`.
fn ulp(x: f16) -> f32 {
    (f16::from_bits(x.to_bits() + 1).to_f32() - x.to_f32()).abs()
}

/// Runs the seed's kernel (Duplicate dst to 0, then PairReduceSum) in one mask form.
fn run_seed001(chip: ChipId, bitwise: bool) -> Vec<f16> {
    let mut k = AscendC::new(chip, 4096);
    let src_gm = k.GmAlloc("src_gm", &f16s(SEED001_INPUT)).unwrap();
    let dst_gm = k.GmAlloc("dst_gm", &[f16::from_f32(99.0); 64]).unwrap();
    let src_local = k.AllocTensor::<f16>("srcLocal", 128).unwrap();
    let dst_local = k.AllocTensor::<f16>("dstLocal", 64).unwrap();
    k.DataCopy::<f16>(&src_local, &src_gm, 128).unwrap();
    k.Duplicate(&dst_local, f16::ZERO, 64).unwrap();
    if bitwise {
        let mask = [u64::MAX, u64::MAX];
        k.PairReduceSum::<f16, true>(&dst_local, &src_local, 1, mask, 1, 1, 8)
            .unwrap();
    } else {
        let mask: u64 = 256 / 2;
        k.PairReduceSum::<f16, true>(&dst_local, &src_local, 1, mask, 1, 1, 8)
            .unwrap();
    }
    k.DataCopy::<f16>(&dst_gm, &dst_local, 64).unwrap();
    k.read::<f16>(&dst_gm).unwrap()
}

#[test]
fn seed001_pair_reduce_sum_both_mask_forms() {
    for chip in [
        ChipId::Ascend910,
        ChipId::Ascend310P,
        ChipId::Ascend910B,
        ChipId::Ascend310B,
    ] {
        for bitwise in [false, true] {
            let got = run_seed001(chip, bitwise);
            assert_eq!(got.len(), 64);
            // The document prints inputs and outputs to 4 significant digits, so the true
            // inputs are only known to half a unit of their 4th digit. Each output must lie
            // within that input uncertainty (two inputs), the output's own printing error, and
            // one f16 ulp of rounding.
            for (j, (g, w)) in got.iter().zip(SEED001_OUTPUT).enumerate() {
                let tol = half_digit(SEED001_INPUT[2 * j])
                    + half_digit(SEED001_INPUT[2 * j + 1])
                    + half_digit(w)
                    + ulp(*g);
                assert!(
                    (g.to_f32() - w).abs() <= tol,
                    "output {j} on {chip}: {g} vs printed {w} (tolerance {tol})"
                );
            }
            let printed_equal = got
                .iter()
                .zip(SEED001_OUTPUT)
                .filter(|(g, w)| sig4(g.to_f32()) == sig4(*w))
                .count();
            assert_eq!(
                printed_equal, 63,
                "outputs equal at the printed 4 digits on {chip}"
            );
            // Bit-exactly: a few sums land one f16 ulp away from the printed output's nearest
            // f16, because the printed inputs are themselves rounded. Count them.
            let exact = got
                .iter()
                .zip(SEED001_OUTPUT)
                .filter(|(g, w)| g.to_bits() == f16::from_f32(*w).to_bits())
                .count();
            assert_eq!(exact, 61, "bit-exact outputs on {chip}");
        }
    }
}

#[test]
fn seed001_masked_pair_policy_per_chip() {
    // float, 64 elements, maskCount 62: the last pair is masked off. Atlas 200/500 A2 (310B)
    // writes 0 there; the other chips leave the old value.
    for (chip, want_last) in [
        (ChipId::Ascend310B, 0.0f32),
        (ChipId::Ascend910B, 7.0),
        (ChipId::Ascend310P, 7.0),
    ] {
        let mut k = AscendC::new(chip, 1024);
        let src = k.AllocTensor::<f32>("src", 64).unwrap();
        let dst = k.AllocTensor::<f32>("dst", 32).unwrap();
        k.DuplicateRepeat::<f32, true>(&src, 1.5, 64u64, 1, 1, 8)
            .unwrap();
        k.DuplicateRepeat::<f32, true>(&dst, 7.0, 32u64, 1, 1, 8)
            .unwrap();
        k.PairReduceSum::<f32, true>(&dst, &src, 1, 62u64, 1, 1, 8)
            .unwrap();
        let out = k.read::<f32>(&dst).unwrap();
        assert!(out[..31].iter().all(|v| *v == 3.0), "{chip}: {out:?}");
        assert_eq!(out[31], want_last, "{chip}");
    }
}

#[test]
fn pair_reduce_sum_with_placeholder_reads_the_mask_register() {
    let mut k = AscendC::new(ChipId::Ascend910B, 1024);
    let src = k.AllocTensor::<f16>("src", 256).unwrap();
    let dst = k.AllocTensor::<f16>("dst", 128).unwrap();
    k.DuplicateRepeat::<f16, true>(&src, f16::from_f32(1.0), 128u64, 2, 1, 8)
        .unwrap();
    // Counter mode: 130 elements over two repeats of 128 lanes; the second repeat has one pair.
    k.SetMaskCount().unwrap();
    k.SetVectorMaskLen(130);
    k.PairReduceSum::<f16, false>(&dst, &src, 1, MASK_PLACEHOLDER, 1, 1, 8)
        .unwrap();
    k.SetMaskNorm();
    k.ResetMask();
    let out = k.read::<f16>(&dst).unwrap();
    assert!(
        out[..65].iter().all(|v| v.to_f32() == 2.0),
        "{:?}",
        &out[..70]
    );
    assert!(out[65..].iter().all(|v| v.to_f32() == 0.0));
}
