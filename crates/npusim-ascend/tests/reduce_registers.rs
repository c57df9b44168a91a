//! The reduction registers: GetReduceRepeatSumSpr / GetAccVal after the count form of
//! ReduceSum, GetReduceRepeatMaxMinSpr / GetReduceMaxMinCount after WholeReduceMax/Min and
//! ReduceMax/Min (asc-devkit `归约计算/寄存器辅助接口/*.md`): the pages' examples, a proptest
//! against a plain model written here, and the restrictions.

mod common;

use half::f16;
use npusim_ascend::AscendError;
use npusim_ascend::ascendc::{AscendC, MASK_PLACEHOLDER};
use npusim_core::ChipId;
use proptest::prelude::*;

#[test]
fn sum_register_after_reduce_sum_of_128() {
    // GetReduceRepeatSumSpr.md: ReduceSum(dst, src, work, 128); the register returns the sum.
    for chip in [ChipId::Ascend910B, ChipId::Ascend950] {
        let mut asc = AscendC::new(chip, 0);
        let src = asc.AllocTensor::<f32>("src", 128).unwrap();
        let work = asc.AllocTensor::<f32>("work", 128).unwrap();
        let dst = asc.AllocTensor::<f32>("dst", 8).unwrap();
        asc.write(&src, &(1..=128).map(|i| i as f32).collect::<Vec<_>>())
            .unwrap();
        asc.ReduceSum(&dst, &src, &work, 128).unwrap();
        let res = asc.GetReduceRepeatSumSpr::<f32>().unwrap();
        assert_eq!(res, 8256.0);
        assert_eq!(res, asc.read::<f32>(&dst).unwrap()[0]);
        assert_eq!(asc.GetAccVal::<f32>().unwrap(), 8256.0);
    }
}

#[test]
fn max_register_after_the_reduce_repeat_page_example() {
    // ReduceRepeat.md MAX example (first, second and last repeats as printed): 1s with 11 at 52,
    // 2s with 12 at 100, 3s with 13 at 19; dst [11 0x0034 12 0x0064 13 0x0013]. The register
    // holds the best of all repeats, 13, at element 2 * 128 + 19 (policy: counted over repeats).
    let mut asc = AscendC::new(ChipId::Ascend910B, 0);
    let src = asc.AllocTensor::<f16>("src", 384).unwrap();
    let dst = asc.AllocTensor::<f16>("dst", 16).unwrap();
    let mut x = vec![f16::from_f32(1.0); 128];
    x.extend(vec![f16::from_f32(2.0); 128]);
    x.extend(vec![f16::from_f32(3.0); 128]);
    x[52] = f16::from_f32(11.0);
    x[128 + 100] = f16::from_f32(12.0);
    x[256 + 19] = f16::from_f32(13.0);
    asc.write(&src, &x).unwrap();
    asc.WholeReduceMax::<f16, true>(&dst, &src, [u64::MAX, u64::MAX], 3, 1, 1, 8)
        .unwrap();
    let d = asc.read::<f16>(&dst).unwrap();
    let printed = [11.0f32, 3.09944e-06, 12.0, 5.96046e-06, 13.0, 1.13249e-06];
    let bits = [0x4980u16, 0x0034, 0x4a00, 0x0064, 0x4a80, 0x0013];
    for k in 0..6 {
        assert_eq!(d[k].to_bits(), bits[k], "{k}");
        assert!(
            (d[k].to_f32() - printed[k]).abs() <= printed[k] * 1e-5,
            "{k}"
        );
    }
    let (v, i) = asc.GetReduceRepeatMaxMinSpr::<f16>().unwrap();
    assert_eq!((v.to_f32(), i.to_bits()), (13.0, 275));
    assert_eq!(asc.GetReduceMaxMinCount::<f16>().unwrap(), (v, i));
    assert_eq!(asc.GetReduceRepeatMaxMinSprValue::<f16>().unwrap(), v);
}

#[test]
fn restrictions_give_typed_errors() {
    // Chips without the registers.
    for chip in [ChipId::Ascend910, ChipId::Ascend310B, ChipId::Ascend310P] {
        let asc = AscendC::new(chip, 0);
        let e = asc.GetReduceRepeatSumSpr::<f32>().unwrap_err();
        assert!(
            matches!(
                e,
                AscendError::NotSupported {
                    instr: "GetReduceRepeatSumSpr",
                    ..
                }
            ),
            "{e}"
        );
    }
    for chip in [
        ChipId::Ascend910,
        ChipId::Ascend310B,
        ChipId::Ascend950,
        ChipId::Ascend310P,
    ] {
        let asc = AscendC::new(chip, 0);
        let e = asc.GetReduceRepeatMaxMinSpr::<f32>().unwrap_err();
        assert!(matches!(e, AscendError::NotSupported { .. }), "{e}");
    }
    let asc = AscendC::new(ChipId::Ascend310P, 0);
    assert!(matches!(
        asc.GetReduceRepeatMaxMinSprValue::<f32>(),
        Err(AscendError::Rule {
            param: "MAX_MIN",
            ..
        })
    ));
    // Nothing written yet.
    let mut asc = AscendC::new(ChipId::Ascend910B, 0);
    let e = asc.GetAccVal::<f32>().unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::Rule {
                param: "ACC_VAL",
                ..
            }
        ),
        "{e}"
    );
    let src = asc.AllocTensor::<f32>("src", 256).unwrap();
    let dst = asc.AllocTensor::<f32>("dst", 16).unwrap();
    asc.write(&src, &vec![1.0f32; 256]).unwrap();
    // Not contiguous (srcRepStride 16): unreadable.
    asc.WholeReduceMin::<f32, true>(&dst, &src, 64, 2, 1, 1, 16)
        .unwrap();
    let e = asc.GetReduceRepeatMaxMinSpr::<f32>().unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::Rule {
                param: "MAX_MIN",
                ..
            }
        ),
        "{e}"
    );
    // Counter mode: unreadable.
    asc.SetMaskCount().unwrap();
    asc.SetVectorMaskLen(100);
    asc.WholeReduceMin::<f32, false>(&dst, &src, MASK_PLACEHOLDER, 2, 1, 1, 8)
        .unwrap();
    assert!(asc.GetReduceRepeatMaxMinSpr::<f32>().is_err());
    asc.SetMaskNorm();
    asc.WholeReduceMin::<f32, true>(&dst, &src, 64, 2, 1, 1, 8)
        .unwrap();
    assert_eq!(asc.GetReduceRepeatMaxMinSpr::<f32>().unwrap().0, 1.0);
    // T must be the reduction's type.
    let e = asc.GetReduceRepeatMaxMinSpr::<f16>().unwrap_err();
    assert!(
        matches!(e, AscendError::TypeMismatch { param: "T", .. }),
        "{e}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(64)))]

    /// Random repeats, bit masks and values (with ±inf, ties) on A2: the max/min register
    /// against the plain model (best over the active lanes of every repeat, ties to the lowest
    /// element counted over repeats); the sum register equals the ReduceSum result.
    #[test]
    fn registers_match_the_model(is_max in any::<bool>(), repeat in 1i32..5, lo in any::<u64>(), count in 1i32..500, seed in any::<u64>()) {
        let mut asc = AscendC::new(ChipId::Ascend910B, 0);
        let src = asc.AllocTensor::<f32>("src", 512).unwrap();
        let work = asc.AllocTensor::<f32>("work", 512).unwrap();
        let dst = asc.AllocTensor::<f32>("dst", 16).unwrap();
        let mut x = seed;
        let vals: Vec<f32> = (0..512).map(|_| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            match (x >> 33) % 9 { 0 => f32::INFINITY, 1 => f32::NEG_INFINITY, k => k as f32 * 0.5 }
        }).collect();
        asc.write(&src, &vals).unwrap();
        let mask = lo | 1;
        if is_max {
            asc.WholeReduceMax::<f32, true>(&dst, &src, [mask, 0], repeat, 1, 1, 8).unwrap();
        } else {
            asc.WholeReduceMin::<f32, true>(&dst, &src, [mask, 0], repeat, 1, 1, 8).unwrap();
        }
        let mut best: Option<(f32, u32)> = None;
        for r in 0..repeat as usize {
            for e in (0..64).filter(|e| mask >> e & 1 == 1) {
                let v = vals[r * 64 + e];
                let take = match best { None => true, Some((b, _)) => if is_max { v > b } else { v < b } };
                if take { best = Some((v, (r * 64 + e) as u32)); }
            }
        }
        let (v, i) = asc.GetReduceRepeatMaxMinSpr::<f32>().unwrap();
        let (bv, bi) = best.unwrap();
        prop_assert_eq!((v, i.to_bits()), (bv, bi));
        asc.ReduceSum(&dst, &src, &work, count).unwrap();
        let s = asc.GetAccVal::<f32>().unwrap();
        prop_assert_eq!(s.to_bits(), asc.read::<f32>(&dst).unwrap()[0].to_bits());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(96)))]

    /// Every chip, every mask form: after WholeReduceMax/Min with a bit-wise (`mask[]`) or a
    /// continuous (`mask`) mask in normal mode, the max/min register holds the plain model's
    /// best over the active lanes of every repeat (ties to the lowest element, counted over
    /// repeats) on A2/A3, its value on 310P (the value-only form), and is refused as
    /// `NotSupported` on the other chips; after counter mode (SetMaskCount, isSetMask = false)
    /// it is unreadable (typed `Rule`) where it exists. The sum register after the count form
    /// of ReduceSum equals the result on A2/A3 and 950 and is `NotSupported` elsewhere.
    #[test]
    fn registers_on_every_chip_match_the_model(chip_i in 0usize..6, is_max in any::<bool>(), repeat in 1i32..5,
                                               form in 0u8..3, lo in any::<u64>(), cont in 1u64..=64,
                                               count in 1i32..500, seed in any::<u64>()) {
        let chip = common::CHIPS[chip_i];
        let mut asc = AscendC::new(chip, 0);
        let src = asc.AllocTensor::<f32>("src", 512).unwrap();
        let work = asc.AllocTensor::<f32>("work", 512).unwrap();
        let dst = asc.AllocTensor::<f32>("dst", 16).unwrap();
        let mut x = seed;
        let vals: Vec<f32> = (0..512).map(|_| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            match (x >> 33) % 11 { 0 => f32::INFINITY, 1 => f32::NEG_INFINITY, 2 => -0.0, 3 => f32::MIN_POSITIVE / 4.0, k => k as f32 * -0.5 }
        }).collect();
        asc.write(&src, &vals).unwrap();
        let active: Box<dyn Fn(usize) -> bool> = match form {
            0 => { let m = lo | 1; Box::new(move |e| m >> e & 1 == 1) }
            _ => Box::new(move |e| (e as u64) < cont),
        };
        match (form, is_max) {
            (0, true) => asc.WholeReduceMax::<f32, true>(&dst, &src, [lo | 1, 0], repeat, 1, 1, 8).unwrap(),
            (0, false) => asc.WholeReduceMin::<f32, true>(&dst, &src, [lo | 1, 0], repeat, 1, 1, 8).unwrap(),
            (1, true) => asc.WholeReduceMax::<f32, true>(&dst, &src, cont, repeat, 1, 1, 8).unwrap(),
            (1, false) => asc.WholeReduceMin::<f32, true>(&dst, &src, cont, repeat, 1, 1, 8).unwrap(),
            _ => {
                if let Err(e) = asc.SetMaskCount() {
                    // No counter mode on the two oldest chips (SetMaskCount's page).
                    prop_assert!(matches!(chip, ChipId::Ascend310 | ChipId::Ascend910), "{:?}", e);
                    prop_assert!(matches!(e, AscendError::NotSupported { instr: "SetMaskCount", .. }), "{:?}", e);
                    return Ok(());
                }
                asc.SetVectorMaskLen(cont * repeat as u64);
                if is_max {
                    asc.WholeReduceMax::<f32, false>(&dst, &src, MASK_PLACEHOLDER, repeat, 1, 1, 8).unwrap();
                } else {
                    asc.WholeReduceMin::<f32, false>(&dst, &src, MASK_PLACEHOLDER, repeat, 1, 1, 8).unwrap();
                }
                asc.SetMaskNorm();
            }
        }
        let mut best: Option<(f32, u32)> = None;
        for r in 0..repeat as usize {
            for e in (0..64).filter(|&e| active(e)) {
                let v = vals[r * 64 + e];
                let take = match best { None => true, Some((b, _)) => if is_max { v > b } else { v < b } };
                if take { best = Some((v, (r * 64 + e) as u32)); }
            }
        }
        let (bv, bi) = best.unwrap();
        let full = asc.GetReduceRepeatMaxMinSpr::<f32>();
        let value = asc.GetReduceRepeatMaxMinSprValue::<f32>();
        match (chip, form) {
            (ChipId::Ascend910B, 0 | 1) => {
                let (v, i) = full.unwrap();
                prop_assert_eq!((v.to_bits(), i.to_bits()), (bv.to_bits(), bi));
                prop_assert_eq!(value.unwrap().to_bits(), bv.to_bits());
            }
            (ChipId::Ascend310P, 0 | 1) => {
                prop_assert!(matches!(full, Err(AscendError::NotSupported { .. })), "{:?}", full);
                prop_assert_eq!(value.unwrap().to_bits(), bv.to_bits());
            }
            (ChipId::Ascend910B, _) => {
                prop_assert!(matches!(full, Err(AscendError::Rule { param: "MAX_MIN", .. })), "{:?}", full);
                prop_assert!(matches!(value, Err(AscendError::Rule { param: "MAX_MIN", .. })), "{:?}", value);
            }
            (ChipId::Ascend310P, _) => {
                prop_assert!(matches!(value, Err(AscendError::Rule { param: "MAX_MIN", .. })), "{:?}", value);
            }
            _ => {
                prop_assert!(matches!(full, Err(AscendError::NotSupported { .. })), "{:?}", full);
                prop_assert!(matches!(value, Err(AscendError::NotSupported { .. })), "{:?}", value);
            }
        }
        // The sum register.
        let sum = if matches!(chip, ChipId::Ascend310 | ChipId::Ascend910) {
            asc.GetAccVal::<f32>()
        } else {
            asc.ReduceSum(&dst, &src, &work, count).unwrap();
            asc.GetAccVal::<f32>()
        };
        if matches!(chip, ChipId::Ascend910B | ChipId::Ascend950) {
            prop_assert_eq!(sum.unwrap().to_bits(), asc.read::<f32>(&dst).unwrap()[0].to_bits());
        } else {
            prop_assert!(matches!(sum, Err(AscendError::NotSupported { instr: "GetReduceRepeatSumSpr", .. })), "{:?}", sum);
        }
    }
}
