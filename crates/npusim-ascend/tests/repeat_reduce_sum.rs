//! RepeatReduceSum (asc-devkit `docs/api/context/RepeatReduceSum.md`, successor
//! `ReduceRepeat.md` SUM): the page's worked example, its saturation illustration, a proptest
//! against a plain adjacent-pair tree model written here, and the page's restrictions.

mod common;
use common::CHIPS;

use half::f16;
use npusim_ascend::AscendError;
use npusim_ascend::ascendc::{AscendC, MASK_PLACEHOLDER};
use npusim_ascend::isa::Instr;
use npusim_core::{ChipId, ChipProfile, ElemType, OverflowMode};
use proptest::prelude::*;

#[test]
fn page_example_2048_ones_give_16_sums_of_128() {
    // 完整样例: srcDataSize 2048 half ones, mask 128, repeat 2048 / 128 = 16,
    // RepeatReduceSum<half>(dst, src, repeat, mask, 0, 1, 1, 8); printed output 16 × 128.
    let mut asc = AscendC::new(ChipId::Ascend910B, 0);
    let src = asc.AllocTensor::<f16>("src", 2048).unwrap();
    let dst = asc.AllocTensor::<f16>("dst", 16).unwrap();
    asc.write(&src, &vec![f16::ONE; 2048]).unwrap();
    asc.RepeatReduceSum::<f16, true>(&dst, &src, 16, 128, 0, 1, 1, 8)
        .unwrap();
    let got = asc.read::<f16>(&dst).unwrap();
    let printed = [128.0f32; 16];
    let exact = got
        .iter()
        .zip(printed)
        .filter(|(g, p)| g.to_bits() == f16::from_f32(*p).to_bits())
        .count();
    assert_eq!(exact, 16, "{got:?}");
}

#[test]
fn page_saturation_illustration_on_saturating_chips() {
    // 约束说明: [60000, 60000, -30000, 100] → 60000+60000 saturates to 65504, -30000+100 =
    // -29900, then 65504 - 29900 = 35604 (the page's decimal arithmetic). In half, -29900 is
    // -29904 and 65504 - 29904 = 35600 rounds (ties to even) to 35584, within one half ulp
    // (32) of the printed 35604. The A2 profile runs in IEEE (inf/nan) mode (profile policy),
    // where the first pair overflows to +inf.
    for (chip, want) in [
        (ChipId::Ascend910, 35584.0f32),
        (ChipId::Ascend310P, 35584.0),
        (ChipId::Ascend910B, f32::INFINITY),
    ] {
        let mut asc = AscendC::new(chip, 0);
        let src = asc.AllocTensor::<f16>("src", 128).unwrap();
        let dst = asc.AllocTensor::<f16>("dst", 16).unwrap();
        let x = [60000.0f32, 60000.0, -30000.0, 100.0].map(f16::from_f32);
        asc.write(&src, &x).unwrap();
        asc.RepeatReduceSum::<f16, true>(&dst, &src, 1, 4, 0, 1, 1, 8)
            .unwrap();
        let got = asc.read::<f16>(&dst).unwrap()[0].to_f32();
        assert_eq!(got, want, "{chip:?}");
        if want.is_finite() {
            assert!((got - 35604.0).abs() <= 32.0);
        }
    }
}

#[test]
fn restrictions_give_typed_errors() {
    let mut asc = AscendC::new(ChipId::Ascend910B, 0);
    let src = asc.AllocTensor::<f16>("src", 256).unwrap();
    let dst = asc.AllocTensor::<f16>("dst", 16).unwrap();
    let srcf = asc.AllocTensor::<f32>("srcf", 128).unwrap();
    let dstf = asc.AllocTensor::<f32>("dstf", 16).unwrap();
    let srci = asc.AllocTensor::<i32>("srci", 128).unwrap();
    let dsti = asc.AllocTensor::<i32>("dsti", 16).unwrap();
    // mask: continuous only, [1, 128] for half, [1, 64] for float.
    for m in [0i32, 129] {
        let e = asc
            .RepeatReduceSum::<f16, true>(&dst, &src, 1, m, 0, 1, 1, 8)
            .unwrap_err();
        assert!(
            matches!(e, AscendError::BadMask { instr: "RepeatReduceSum", ref value, .. } if *value == m.to_string()),
            "{e}"
        );
    }
    let e = asc
        .RepeatReduceSum::<f32, true>(&dstf, &srcf, 1, 65, 0, 1, 1, 8)
        .unwrap_err();
    assert!(
        matches!(e, AscendError::BadMask { ref value, .. } if value == "65"),
        "{e}"
    );
    let e = asc
        .RepeatReduceSum::<f16, true>(&dst, &src, 1, [u64::MAX, 0], 0, 1, 1, 8)
        .unwrap_err();
    assert!(
        matches!(e, AscendError::BadMask { rule, .. } if rule.contains("bit-wise")),
        "{e}"
    );
    // repeatTime in [0, 255].
    let e = asc
        .RepeatReduceSum::<f16, true>(&dst, &src, 256, 128, 0, 1, 1, 8)
        .unwrap_err();
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
    // Strides in [0, 65535].
    let e = asc
        .RepeatReduceSum::<f16, true>(&dst, &src, 1, 128, 0, -1, 1, 8)
        .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::OutOfRange {
                param: "srcBlkStride",
                ..
            }
        ),
        "{e}"
    );
    // dst 2-byte aligned for half, src 32-byte aligned.
    let e = asc
        .RepeatReduceSum::<f32, true>(&dstf, &srcf.offset(1), 1, 64, 0, 1, 1, 8)
        .unwrap_err();
    assert!(
        matches!(e, AscendError::Misaligned { param: "src", .. }),
        "{e}"
    );
    // half / float only.
    let e = asc
        .RepeatReduceSum::<i32, true>(&dsti, &srci, 1, 64, 0, 1, 1, 8)
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
    // Past the end of the tensor: 3 repeats of 256 bytes from a 512-byte src.
    let e = asc
        .RepeatReduceSum::<f16, true>(&dst, &src, 3, 128, 0, 1, 1, 8)
        .unwrap_err();
    assert!(
        matches!(e, AscendError::TensorOverflow { param: "src", .. }),
        "{e}"
    );
    // Atlas training: half only.
    let mut t = AscendC::new(ChipId::Ascend910, 0);
    let s = t.AllocTensor::<f32>("s", 64).unwrap();
    let d = t.AllocTensor::<f32>("d", 8).unwrap();
    let e = t
        .RepeatReduceSum::<f32, true>(&d, &s, 1, 64, 0, 1, 1, 8)
        .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::IllegalType {
                chip: ChipId::Ascend910,
                ..
            }
        ),
        "{e}"
    );
}

fn to_f32(t: ElemType, b: &[u8]) -> f32 {
    if t == ElemType::F16 {
        f16::from_le_bytes([b[0], b[1]]).to_f32()
    } else {
        f32::from_le_bytes([b[0], b[1], b[2], b[3]])
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(64)))]

    /// Random chips, types, repeats, strides, continuous masks, register masks in normal and
    /// counter mode (`isSetMask = false`), values with specials, against the plain model:
    /// per repeat, a tree of adjacent pairs over all lanes (masked lanes 0), every partial sum
    /// rounded to T and saturated on saturating chips; a repeat with no lane writes nothing.
    #[test]
    fn repeat_reduce_sum_matches_the_model(chip_i in 0usize..6, is_f16 in any::<bool>(), repeat in 0u32..6,
                                           dst_rep in 0u32..4, blk in 0u32..3, rep in 0u32..12, kind in 0u8..3,
                                           lo in any::<u64>(), hi in any::<u64>(), count in 1u64..600, seed in any::<u64>()) {
        let chip = CHIPS[chip_i];
        let profile = ChipProfile::get(chip);
        let t = if is_f16 { ElemType::F16 } else { ElemType::F32 };
        if Instr::RepeatReduceSum.legal_types(chip).is_none_or(|l| !l.contains(&t)) {
            return Ok(());
        }
        if kind == 2 && !profile.vector.counter_mode {
            return Ok(());
        }
        let size = t.size() as u64;
        let lanes = 256 / size;
        let lpb = 32 / size;
        let iters = if kind == 2 { count.div_ceil(lanes) } else { repeat as u64 };
        let src_elems = (iters.max(1) * rep as u64 * 32 + 8 * blk.max(1) as u64 * 32 + 256) / size;
        let dst_elems = iters.max(1) * dst_rep.max(1) as u64 + 16;
        let mut x = seed;
        let vals: Vec<f32> = (0..src_elems).map(|_| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let r = x >> 33;
            match r % 23 { 0 => f32::NAN, 1 => f32::INFINITY, 2 => -60000.0, 3 => 60000.0, 4 => -0.0, _ => ((r >> 5) % 2000) as f32 / 8.0 - 125.0 }
        }).collect();
        let mut bytes = Vec::new();
        for v in &vals {
            if is_f16 { bytes.extend_from_slice(&f16::from_f32(*v).to_le_bytes()) } else { bytes.extend_from_slice(&v.to_le_bytes()) }
        }
        let init: Vec<u8> = (0..dst_elems * size).map(|i| (i * 7 + 3) as u8).collect();
        let mut asc = AscendC::new(chip, 0);
        let active_of: Box<dyn Fn(u64) -> u128>;
        macro_rules! run {
            ($T:ty) => {{
                let src = asc.AllocTensor::<$T>("src", src_elems).unwrap();
                let dst = asc.AllocTensor::<$T>("dst", dst_elems).unwrap();
                asc.write(&src, bytemuck::cast_slice::<u8, $T>(&bytes)).unwrap();
                asc.write(&dst, bytemuck::cast_slice::<u8, $T>(&init)).unwrap();
                let n = 1 + count % lanes;
                let r = match kind {
                    0 => {
                        active_of = Box::new(move |_| if n >= 128 { u128::MAX } else { (1u128 << n) - 1 });
                        asc.RepeatReduceSum::<$T, true>(&dst, &src, repeat as i32, n as i32, 0, blk as i32, dst_rep as i32, rep as i32)
                    }
                    1 => {
                        let full = if lanes == 128 { u128::MAX } else { (1u128 << lanes) - 1 };
                        let bits = ((hi as u128) << 64 | lo as u128) & full;
                        asc.SetVectorMask((bits >> 64) as u64, bits as u64);
                        active_of = Box::new(move |_| bits);
                        asc.RepeatReduceSum::<$T, false>(&dst, &src, repeat as i32, MASK_PLACEHOLDER, 0, blk as i32, dst_rep as i32, rep as i32)
                    }
                    _ => {
                        asc.SetMaskCount().unwrap();
                        asc.SetVectorMaskLen(count);
                        active_of = Box::new(move |r| {
                            let left = count.saturating_sub(r * lanes).min(lanes);
                            if left >= 128 { u128::MAX } else { (1u128 << left) - 1 }
                        });
                        asc.RepeatReduceSum::<$T, false>(&dst, &src, repeat as i32, MASK_PLACEHOLDER, 0, blk as i32, dst_rep as i32, rep as i32)
                    }
                };
                if let Err(e) = r { return Err(TestCaseError::fail(format!("{e}"))); }
                let out = asc.read::<$T>(&dst).unwrap();
                bytemuck::cast_slice::<$T, u8>(&out).to_vec()
            }};
        }
        let got = if is_f16 { run!(f16) } else { run!(f32) };

        // The model.
        let max = if is_f16 { 65504.0 } else { f32::MAX };
        let mode = profile.vector.overflow_mode;
        let round = |v: f32| -> f32 {
            let r = if is_f16 { f16::from_f32(v).to_f32() } else { v };
            if mode == OverflowMode::Saturate && !r.is_finite() { if r.is_nan() { 0.0 } else { r.signum() * max } } else { r }
        };
        let mut want = init.clone();
        for r in 0..iters {
            let active = active_of(r);
            if active == 0 { continue; }
            let elem = |e: u64| -> f32 {
                let at = (r * rep as u64 * 32 + (e / lpb) * blk as u64 * 32 + (e % lpb) * size) as usize;
                to_f32(t, &bytes[at..])
            };
            let mut level: Vec<f32> = (0..lanes).map(|e| if active >> e & 1 == 1 { elem(e) } else { 0.0 }).collect();
            while level.len() > 1 { level = level.chunks(2).map(|p| round(p[0] + p[1])).collect(); }
            let at = (r * dst_rep as u64 * size) as usize;
            if is_f16 { want[at..at + 2].copy_from_slice(&f16::from_f32(level[0]).to_le_bytes()) } else { want[at..at + 4].copy_from_slice(&level[0].to_le_bytes()) }
        }
        for k in 0..dst_elems as usize {
            let s = size as usize;
            let (g, w) = (&got[k * s..(k + 1) * s], &want[k * s..(k + 1) * s]);
            if g != w {
                prop_assert!(to_f32(t, g).is_nan() && to_f32(t, w).is_nan(), "{chip:?} {t:?} elem {k}: got {g:?} want {w:?}");
            }
        }
    }
}
