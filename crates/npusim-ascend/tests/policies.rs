//! Per-chip policies that the seeds and research fix, each shown on a small example: overflow
//! mode (saturating vs IEEE), TIK's vec_cpadd dst_rep_stride 0 on chips without it, int32 EQ
//! only where the table allows it.

use half::f16;
use npusim_ascend::AscendError;
use npusim_ascend::ascendc::AscendC;
use npusim_ascend::tik::{Scope, Tik};
use npusim_core::{ChipId, NpyArray};

fn pair_sum_of(chip: ChipId, a: f32, b: f32) -> f16 {
    let mut k = AscendC::new(chip, 1024);
    let mut v = vec![f16::ZERO; 128];
    v[0] = f16::from_f32(a);
    v[1] = f16::from_f32(b);
    let g = k.GmAlloc("g", &v).unwrap();
    let s = k.AllocTensor::<f16>("s", 128).unwrap();
    let d = k.AllocTensor::<f16>("d", 64).unwrap();
    k.DataCopy::<f16>(&s, &g, 128).unwrap();
    k.PairReduceSum::<f16, true>(&d, &s, 1, 128u64, 1, 1, 8)
        .unwrap();
    k.read::<f16>(&d).unwrap()[0]
}

#[test]
fn overflow_mode_saturates_on_training_chips_and_not_on_a2() {
    // "60000 + 60000 -> 65504" (saturation mode, the old reduction docs).
    assert_eq!(pair_sum_of(ChipId::Ascend910, 60000.0, 60000.0), f16::MAX);
    assert_eq!(pair_sum_of(ChipId::Ascend910, -60000.0, -60000.0), f16::MIN);
    assert_eq!(
        pair_sum_of(ChipId::Ascend910B, 60000.0, 60000.0),
        f16::INFINITY
    );
    // Saturation also turns NaN into 0.
    assert_eq!(pair_sum_of(ChipId::Ascend310P, f32::NAN, 1.0).to_bits(), 0);
    assert!(pair_sum_of(ChipId::Ascend910B, f32::NAN, 1.0).is_nan());
    // Ordinary sums round to nearest even: 2048 + 1 is a tie between 2048 and 2050.
    assert_eq!(
        pair_sum_of(ChipId::Ascend910B, 2048.0, 1.0).to_f32(),
        2048.0
    );
    assert_eq!(
        pair_sum_of(ChipId::Ascend910B, 2050.0, 1.0).to_f32(),
        2052.0
    );
}

#[test]
fn tik_vec_cpadd_treats_dst_rep_stride_zero_as_one_on_atlas_training() {
    let mut tik = Tik::new(ChipId::Ascend910);
    let g = tik.tensor("float16", &[256], "g", Scope::Gm).unwrap();
    let o = tik.tensor("float16", &[128], "o", Scope::Gm).unwrap();
    let s = tik.tensor("float16", &[256], "s", Scope::Ubuf).unwrap();
    let d = tik.tensor("float16", &[128], "d", Scope::Ubuf).unwrap();
    tik.data_move(&s, &g, 0, 1, 16, 0, 0).unwrap();
    tik.vec_cpadd(128, &d, &s, 2, 0, 8).unwrap();
    tik.data_move(&o, &d, 0, 1, 8, 0, 0).unwrap();
    let input: Vec<f16> = (0..256).map(|i| f16::from_f32(i as f32)).collect();
    let out = tik
        .start_debug(&[("g", &NpyArray::from_elems(vec![256], &input))])
        .unwrap();
    let got = out
        .iter()
        .find(|(n, _)| n == "o")
        .unwrap()
        .1
        .to_elems::<f16>()
        .unwrap();
    // Stride 1 (128 bytes): repeat 1's 64 sums follow repeat 0's.
    for (j, v) in got.iter().enumerate() {
        assert_eq!(v.to_f32(), (4 * j + 1) as f32, "pair {j}");
    }
}

#[test]
fn int32_equality_only_on_a2() {
    for (chip, ok) in [(ChipId::Ascend910B, true), (ChipId::Ascend910, false)] {
        let mut tik = Tik::new(chip);
        let a = tik.tensor("int32", &[64], "a", Scope::Ubuf).unwrap();
        let d = tik.tensor("uint8", &[32], "d", Scope::Ubuf).unwrap();
        assert_eq!(tik.vec_cmpv_eq(&d, &a, &a, 1, 8, 8).is_ok(), ok, "{chip}");
        let lt = tik.vec_cmpv_lt(&d, &a, &a, 1, 8, 8);
        assert!(
            matches!(lt, Err(AscendError::IllegalType { .. })),
            "{chip}: {lt:?}"
        );
    }
}
