//! The mask state calls (usage table row 10: SetVectorMask, SetMaskNorm, SetMaskCount,
//! ResetMask; SetVectorMask.md): the page's two call sequences run on every chip that has them
//! and checked against a plain model (the page prints no values), ResetMask restoring every
//! lane, and the page's per-type ranges of SetVectorMask as typed errors.

mod common;

use half::f16;
use npusim_ascend::AscendError;
use npusim_ascend::ascendc::{AscendC, BinaryRepeatParams, MASK_PLACEHOLDER};
use npusim_core::ChipId;

fn inputs() -> (Vec<f16>, Vec<f16>) {
    let a = (0..256)
        .map(|i| f16::from_f32(((i * 37) % 61) as f32 * 0.25 - 7.0))
        .collect();
    let b = (0..256)
        .map(|i| f16::from_f32(((i * 11) % 53) as f32 * 0.5 - 13.0))
        .collect();
    (a, b)
}

/// The page's sequence dst = src0 + src1; src0 = dst - src1; src1 = dst * src0 on the lanes
/// `active`, each result rounded to half once (half::f16 arithmetic: exact in f32, then one
/// rounding); other elements keep their values (dst starts as `d0`).
fn model(active: &[usize], a: &[f16], b: &[f16], d0: &[f16]) -> [Vec<f16>; 3] {
    let (mut a, mut b, mut d) = (a.to_vec(), b.to_vec(), d0.to_vec());
    for &i in active {
        d[i] = a[i] + b[i];
    }
    for &i in active {
        a[i] = d[i] - b[i];
    }
    for &i in active {
        b[i] = d[i] * a[i];
    }
    [d, a, b]
}

fn bits(v: &[f16]) -> Vec<u16> {
    v.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn page_normal_mode_sequence() {
    // SetMaskNorm; SetVectorMask<half, NORMAL>(all ones); Add/Sub/Mul<half, false> with
    // MASK_PLACEHOLDER, 1 repeat, {2, 2, 2, 8, 8, 8}; ResetMask. Lane e reads and writes element
    // (e / 16) * 32 + e % 16 (block stride 2): the even blocks of 256 halves.
    for chip in common::CHIPS {
        let mut asc = AscendC::new(chip, 0);
        let (xa, xb) = inputs();
        let d0 = vec![f16::from_f32(99.0); 256];
        let a = asc.AllocTensor::<f16>("src0", 256).unwrap();
        let b = asc.AllocTensor::<f16>("src1", 256).unwrap();
        let d = asc.AllocTensor::<f16>("dst", 256).unwrap();
        asc.write(&a, &xa).unwrap();
        asc.write(&b, &xb).unwrap();
        asc.write(&d, &d0).unwrap();
        asc.SetMaskNorm();
        asc.SetVectorMaskOf::<f16>(u64::MAX, u64::MAX).unwrap();
        let p = BinaryRepeatParams::new(2, 2, 2, 8, 8, 8);
        asc.AddRepeat::<f16, false>(&d, &a, &b, MASK_PLACEHOLDER, 1, p)
            .unwrap();
        asc.SubRepeat::<f16, false>(&a, &d, &b, MASK_PLACEHOLDER, 1, p)
            .unwrap();
        asc.MulRepeat::<f16, false>(&b, &d, &a, MASK_PLACEHOLDER, 1, p)
            .unwrap();
        asc.ResetMask();
        let active: Vec<usize> = (0..128).map(|e| (e / 16) * 32 + e % 16).collect();
        let [wd, wa, wb] = model(&active, &xa, &xb, &d0);
        assert_eq!(
            bits(&asc.read::<f16>(&d).unwrap()),
            bits(&wd),
            "{chip:?} dst"
        );
        assert_eq!(
            bits(&asc.read::<f16>(&a).unwrap()),
            bits(&wa),
            "{chip:?} src0"
        );
        assert_eq!(
            bits(&asc.read::<f16>(&b).unwrap()),
            bits(&wb),
            "{chip:?} src1"
        );
    }
}

#[test]
fn page_counter_mode_sequence() {
    // SetMaskCount; SetVectorMask<half, COUNTER>(128); Add/Sub/Mul<half, false> with
    // {1, 1, 1, 8, 8, 8}; SetMaskNorm; ResetMask: the first 128 elements. Counter mode exists on
    // 310P, A2/A3, 310B and 950 (SetMaskCount is refused on 310 and 910).
    for chip in common::CHIPS {
        let mut asc = AscendC::new(chip, 0);
        if let Err(e) = asc.SetMaskCount() {
            assert!(matches!(chip, ChipId::Ascend310 | ChipId::Ascend910), "{e}");
            assert!(
                matches!(
                    e,
                    AscendError::NotSupported {
                        instr: "SetMaskCount",
                        ..
                    }
                ),
                "{e}"
            );
            continue;
        }
        let (xa, xb) = inputs();
        let d0 = vec![f16::from_f32(99.0); 256];
        let a = asc.AllocTensor::<f16>("src0", 256).unwrap();
        let b = asc.AllocTensor::<f16>("src1", 256).unwrap();
        let d = asc.AllocTensor::<f16>("dst", 256).unwrap();
        asc.write(&a, &xa).unwrap();
        asc.write(&b, &xb).unwrap();
        asc.write(&d, &d0).unwrap();
        asc.SetVectorMaskLenOf::<f16>(128).unwrap();
        let p = BinaryRepeatParams::default();
        asc.AddRepeat::<f16, false>(&d, &a, &b, MASK_PLACEHOLDER, 1, p)
            .unwrap();
        asc.SubRepeat::<f16, false>(&a, &d, &b, MASK_PLACEHOLDER, 1, p)
            .unwrap();
        asc.MulRepeat::<f16, false>(&b, &d, &a, MASK_PLACEHOLDER, 1, p)
            .unwrap();
        asc.SetMaskNorm();
        asc.ResetMask();
        let active: Vec<usize> = (0..128).collect();
        let [wd, wa, wb] = model(&active, &xa, &xb, &d0);
        assert_eq!(
            bits(&asc.read::<f16>(&d).unwrap()),
            bits(&wd),
            "{chip:?} dst"
        );
        assert_eq!(
            bits(&asc.read::<f16>(&a).unwrap()),
            bits(&wa),
            "{chip:?} src0"
        );
        assert_eq!(
            bits(&asc.read::<f16>(&b).unwrap()),
            bits(&wb),
            "{chip:?} src1"
        );
    }
}

#[test]
fn reset_mask_restores_every_lane() {
    for chip in common::CHIPS {
        let mut asc = AscendC::new(chip, 0);
        let (xa, xb) = inputs();
        let a = asc.AllocTensor::<f16>("src0", 128).unwrap();
        let b = asc.AllocTensor::<f16>("src1", 128).unwrap();
        let d = asc.AllocTensor::<f16>("dst", 128).unwrap();
        asc.write(&a, &xa[..128]).unwrap();
        asc.write(&b, &xb[..128]).unwrap();
        asc.write(&d, &[f16::ZERO; 128]).unwrap();
        asc.SetVectorMaskOf::<f16>(0, 1).unwrap();
        let p = BinaryRepeatParams::default();
        asc.AddRepeat::<f16, false>(&d, &a, &b, MASK_PLACEHOLDER, 1, p)
            .unwrap();
        let got = asc.read::<f16>(&d).unwrap();
        assert_eq!(got[0], xa[0] + xb[0]);
        assert!(
            got[1..].iter().all(|x| *x == f16::ZERO),
            "{chip:?}: only lane 0 is set"
        );
        asc.ResetMask();
        asc.AddRepeat::<f16, false>(&d, &a, &b, MASK_PLACEHOLDER, 1, p)
            .unwrap();
        let want: Vec<f16> = (0..128).map(|i| xa[i] + xb[i]).collect();
        assert_eq!(bits(&asc.read::<f16>(&d).unwrap()), bits(&want), "{chip:?}");
    }
}

/// SetVectorMask.md's ranges, each a typed error naming SetVectorMask, the parameter and value.
#[test]
fn set_vector_mask_ranges_per_type() {
    let mut asc = AscendC::new(ChipId::Ascend910B, 0);
    let rule = |e: AscendError| match e {
        AscendError::Rule {
            instr: "SetVectorMask",
            param,
            value,
            ..
        } => (param, value),
        other => panic!("{other}"),
    };
    // Normal mode, bit-wise.
    asc.SetVectorMaskOf::<f16>(1, 0).unwrap();
    asc.SetVectorMaskOf::<f16>(0, 1).unwrap();
    assert_eq!(
        rule(asc.SetVectorMaskOf::<f16>(0, 0).unwrap_err()),
        ("maskLow", "0x0".into())
    );
    asc.SetVectorMaskOf::<f32>(0, u64::MAX).unwrap();
    assert_eq!(
        rule(asc.SetVectorMaskOf::<f32>(2, 1).unwrap_err()),
        ("maskHigh", "0x2".into())
    );
    assert_eq!(
        rule(asc.SetVectorMaskOf::<f32>(0, 0).unwrap_err()),
        ("maskLow", "0x0".into())
    );
    asc.SetVectorMaskOf::<i64>(0, u32::MAX as u64).unwrap();
    assert_eq!(
        rule(asc.SetVectorMaskOf::<i64>(0, 1 << 32).unwrap_err()),
        ("maskLow", "0x100000000".into())
    );
    assert_eq!(rule(asc.SetVectorMaskOf::<u8>(0, 1).unwrap_err()).0, "T");
    // Normal mode, continuous.
    asc.SetVectorMaskLenOf::<f16>(128).unwrap();
    asc.SetVectorMaskLenOf::<f32>(64).unwrap();
    asc.SetVectorMaskLenOf::<u64>(32).unwrap();
    for (e, v) in [
        (asc.SetVectorMaskLenOf::<f16>(129).unwrap_err(), "129"),
        (asc.SetVectorMaskLenOf::<f16>(0).unwrap_err(), "0"),
        (asc.SetVectorMaskLenOf::<f32>(65).unwrap_err(), "65"),
        (asc.SetVectorMaskLenOf::<i64>(33).unwrap_err(), "33"),
    ] {
        assert_eq!(rule(e), ("len", v.to_string()));
    }
    // Counter mode: maskHigh 0, the count not negative.
    asc.SetMaskCount().unwrap();
    asc.SetVectorMaskOf::<f32>(0, 100_000).unwrap();
    asc.SetVectorMaskLenOf::<f32>(100_000).unwrap();
    assert_eq!(
        rule(asc.SetVectorMaskOf::<f32>(1, 5).unwrap_err()),
        ("maskHigh", "0x1".into())
    );
    assert_eq!(
        rule(asc.SetVectorMaskLenOf::<f16>(-1).unwrap_err()),
        ("len", "-1".into())
    );
}

/// SetCmpMask / GetCmpMask (usage table row 33; TIK mov_tensor_to_cmpmask /
/// mov_cmpmask_to_tensor): 16 bytes of UB in and out, bit for bit, on every chip; the operand
/// rules as typed errors: UB only, 32-byte aligned, 16 bytes inside the tensor.
#[test]
fn cmp_mask_round_trip_and_rules() {
    use npusim_ascend::tik::{Scope, Tik};
    for chip in common::CHIPS {
        let mut asc = AscendC::new(chip, 0);
        let s = asc.AllocTensor::<u8>("s", 32).unwrap();
        let d = asc.AllocTensor::<u8>("d", 32).unwrap();
        let pattern: Vec<u8> = (0..32u8).map(|i| i.wrapping_mul(73) ^ 0x5A).collect();
        asc.write(&s, &pattern).unwrap();
        asc.write(&d, &[0xEEu8; 32]).unwrap();
        asc.SetCmpMask(&s).unwrap();
        asc.GetCmpMask(&d).unwrap();
        let got = asc.read::<u8>(&d).unwrap();
        assert_eq!(got[..16], pattern[..16], "{chip:?}");
        assert!(
            got[16..].iter().all(|&b| b == 0xEE),
            "{chip:?}: only 16 bytes are written"
        );
        let small = asc.AllocTensor::<u8>("small", 8).unwrap();
        let e = asc.SetCmpMask(&small).unwrap_err();
        assert!(
            matches!(e, AscendError::TensorOverflow { param: "src", .. }),
            "{e}"
        );
        let e = asc.GetCmpMask(&small).unwrap_err();
        assert!(
            matches!(e, AscendError::TensorOverflow { param: "dst", .. }),
            "{e}"
        );
        let e = asc.GetCmpMask(&d.offset(1)).unwrap_err();
        assert!(
            matches!(e, AscendError::Misaligned { param: "dst", .. }),
            "{e}"
        );
        let mut t = Tik::new(chip);
        let g = t.tensor("uint8", &[32], "g", Scope::Gm).unwrap();
        let e = t.mov_tensor_to_cmpmask(&g).unwrap_err();
        assert!(
            matches!(
                e,
                AscendError::WrongScope {
                    instr: "mov_tensor_to_cmpmask",
                    param: "src",
                    ..
                }
            ),
            "{e}"
        );
        let u = t.tensor("uint8", &[8], "u", Scope::Ubuf).unwrap();
        let e = t.mov_cmpmask_to_tensor(&u).unwrap_err();
        assert!(
            matches!(
                e,
                AscendError::TensorOverflow {
                    instr: "mov_cmpmask_to_tensor",
                    param: "dst",
                    ..
                }
            ),
            "{e}"
        );
    }
}
