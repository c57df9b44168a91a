//! DataCopyPad GM -> UB (asc-devkit `GMToUB非对齐数据搬运(DataCopyPad).md`, `SetPadValue`):
//! the page's scenarios 1-3 and its mode / negative-stride examples, a property test against a
//! plain model of the row layout written here, and one test per restriction class.

mod common;

use half::f16;
use npusim_ascend::AscendError;
use npusim_ascend::ascendc::AscendC;
use npusim_core::ChipId;
use proptest::prelude::*;

fn h(v: f32) -> f16 {
    f16::from_f32(v)
}

/// Scenario 1: SetPadValue(1) with isPad false, 20 halves, rightPadding 12: one 64-byte row
/// of the data then twelve 1s.
#[test]
fn scenario_1_set_pad_value() {
    for chip in [ChipId::Ascend910B, ChipId::Ascend950] {
        let mut asc = AscendC::new(chip, 4096);
        let x: Vec<f16> = (0..20).map(|i| h(i as f32 + 10.0)).collect();
        let g = asc.GmAlloc::<f16>("srcGlobal", &x).unwrap();
        let u = asc.AllocTensor::<f16>("srcLocal", 32).unwrap();
        asc.SetPadValue(h(1.0)).unwrap();
        asc.DataCopyPad::<f16>(&u, &g, 1, 40, 0, 0, Some((false, 0, 12, f16::ZERO)))
            .unwrap();
        let mut want = x.clone();
        want.extend([h(1.0); 12]);
        assert_eq!(asc.read::<f16>(&u).unwrap(), want, "{chip:?}");
    }
    // SetPadValue is not on Atlas inference or Atlas 200I/500 A2.
    for chip in [ChipId::Ascend310P, ChipId::Ascend310B] {
        let mut asc = AscendC::new(chip, 0);
        assert_eq!(
            asc.SetPadValue(h(1.0)),
            Err(AscendError::NotSupported {
                instr: "SetPadValue",
                chip
            })
        );
    }
}

/// Scenario 2: 32 rows of 59 floats, isPad with value 0 and rightPadding 5: rows of 64 floats.
#[test]
fn scenario_2_right_padding() {
    let mut asc = AscendC::new(ChipId::Ascend910B, 1 << 14);
    let x: Vec<f32> = (0..32 * 59).map(|i| i as f32 + 0.25).collect();
    let g = asc.GmAlloc::<f32>("srcGlobal", &x).unwrap();
    let u = asc.AllocTensor::<f32>("srcLocal", 32 * 64).unwrap();
    asc.write(&u, &vec![-7.0f32; 32 * 64]).unwrap();
    asc.DataCopyPad::<f32>(&u, &g, 32, 59 * 4, 0, 0, Some((true, 0, 5, 0.0)))
        .unwrap();
    let mut want = Vec::new();
    for r in 0..32 {
        want.extend_from_slice(&x[r * 59..(r + 1) * 59]);
        want.extend([0.0f32; 5]);
    }
    assert_eq!(asc.read::<f32>(&u).unwrap(), want);
}

/// Scenario 3 and the mode example (Ascend 950): 3 rows of 24 halves; Compact packs them into
/// 72 halves then 8 of padding (160 bytes); Normal gives 3 rows of 32 halves (192 bytes).
#[test]
fn scenario_3_compact_and_normal_modes() {
    let mut asc = AscendC::new(ChipId::Ascend950, 4096);
    let x: Vec<f16> = (0..72).map(|i| h(i as f32 - 30.0)).collect();
    let g = asc.GmAlloc::<f16>("srcGlobal", &x).unwrap();
    let u = asc.AllocTensor::<f16>("compact", 96).unwrap();
    asc.write(&u, &[h(-1.0); 96]).unwrap();
    asc.DataCopyPadCompact::<f16>(&u, &g, 3, 48, 0, (true, 0, 8, f16::ZERO))
        .unwrap();
    let got = asc.read::<f16>(&u).unwrap();
    assert_eq!(&got[..72], &x[..]);
    assert_eq!(&got[72..80], &[f16::ZERO; 8]);
    assert_eq!(&got[80..], &[h(-1.0); 16], "nothing past 160 bytes");
    let n = asc.AllocTensor::<f16>("normal", 96).unwrap();
    asc.DataCopyPad::<f16>(&n, &g, 3, 48, 0, 0, Some((true, 0, 8, f16::ZERO)))
        .unwrap();
    let got = asc.read::<f16>(&n).unwrap();
    for r in 0..3 {
        assert_eq!(&got[r * 32..r * 32 + 24], &x[r * 24..(r + 1) * 24]);
        assert_eq!(&got[r * 32 + 24..r * 32 + 32], &[f16::ZERO; 8]);
    }
}

/// Example 3 (Ascend 950): srcStride = -blockLen moves the first block every time; 48-byte
/// blocks without paddings are filled to 64 bytes with their first element.
#[test]
fn negative_src_stride_repeats_the_first_block() {
    let mut asc = AscendC::new(ChipId::Ascend950, 4096);
    let x: Vec<f16> = (0..24).map(|i| h(i as f32 + 1.0)).collect();
    let g = asc.GmAlloc::<f16>("src", &x).unwrap();
    let u = asc.AllocTensor::<f16>("dst", 96).unwrap();
    asc.DataCopyPad::<f16>(&u, &g, 3, 48, -48, 0, None).unwrap();
    let got = asc.read::<f16>(&u).unwrap();
    for r in 0..3 {
        assert_eq!(&got[r * 32..r * 32 + 24], &x[..]);
        assert_eq!(&got[r * 32 + 24..r * 32 + 32], &[x[0]; 8]);
    }
}

#[test]
fn data_copy_pad_restrictions() {
    let mut asc = AscendC::new(ChipId::Ascend910B, 4096);
    let g = asc.GmAlloc::<i64>("g", &[1; 16]).unwrap();
    let u = asc.AllocTensor::<i64>("u", 16).unwrap();
    // 64-bit types pad with 0 only.
    let e = asc
        .DataCopyPad::<i64>(&u, &g, 1, 24, 0, 0, Some((true, 0, 1, 5)))
        .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::Rule {
                param: "paddingValue",
                ..
            }
        ),
        "{e}"
    );
    asc.DataCopyPad::<i64>(&u, &g, 1, 24, 0, 0, Some((true, 0, 1, 0)))
        .unwrap();
    // A negative srcStride only on Ascend 950.
    let gh = asc.GmAlloc::<f16>("gh", &[f16::ONE; 64]).unwrap();
    let uh = asc.AllocTensor::<f16>("uh", 64).unwrap();
    let e = asc
        .DataCopyPad::<f16>(&uh, &gh, 2, 32, -32, 0, None)
        .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::OutOfRange {
                param: "srcStride",
                ..
            }
        ),
        "{e}"
    );
    // Compact mode only on Ascend 950.
    let e = asc
        .DataCopyPadCompact::<f16>(&uh, &gh, 2, 32, 0, (true, 0, 0, f16::ZERO))
        .unwrap_err();
    assert!(matches!(e, AscendError::Rule { param: "mode", .. }), "{e}");
    // No 64-bit types on Atlas 200I/500 A2.
    let mut asc = AscendC::new(ChipId::Ascend310B, 4096);
    let g = asc.GmAlloc::<i64>("g", &[1; 16]).unwrap();
    let u = asc.AllocTensor::<i64>("u", 16).unwrap();
    let e = asc
        .DataCopyPad::<i64>(&u, &g, 1, 32, 0, 0, None)
        .unwrap_err();
    assert!(
        matches!(e, AscendError::IllegalType { param: "T", .. }),
        "{e}"
    );
    // Ascend 950: srcStride >= -blockLen, dstStride <= 65535.
    let mut asc = AscendC::new(ChipId::Ascend950, 4096);
    let g = asc.GmAlloc::<f16>("g", &[f16::ONE; 64]).unwrap();
    let u = asc.AllocTensor::<f16>("u", 64).unwrap();
    let e = asc
        .DataCopyPad::<f16>(&u, &g, 2, 32, -34, 0, None)
        .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::OutOfRange {
                param: "srcStride",
                value: -34,
                ..
            }
        ),
        "{e}"
    );
    let e = asc
        .DataCopyPad::<f16>(&u, &g, 1, 32, 0, 65536, None)
        .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::OutOfRange {
                param: "dstStride",
                value: 65536,
                ..
            }
        ),
        "{e}"
    );
    // Ascend 950 UB -> GM (the UBToGM page): srcStride (UB blocks) at most 65535; a GM
    // dstStride past 2^32 - 1 is in range there (it overflows this small GM tensor instead).
    let e = asc
        .DataCopyPad::<f16>(&g, &u, 1, 32, 65536, 0, None)
        .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::OutOfRange {
                param: "srcStride",
                value: 65536,
                ..
            }
        ),
        "{e}"
    );
    let e = asc
        .DataCopyPad::<f16>(&g, &u, 2, 32, 0, u32::MAX, None)
        .unwrap_err();
    assert!(matches!(e, AscendError::TensorOverflow { .. }), "{e}");
    // A zero blockCount is a NOP on A2/A3 and 950, rejected on Atlas 200I/500 A2.
    asc.DataCopyPad::<f16>(&u, &g, 0, 32, 0, 0, None).unwrap();
    let mut asc = AscendC::new(ChipId::Ascend310B, 4096);
    let g = asc.GmAlloc::<f16>("g", &[f16::ONE; 64]).unwrap();
    let u = asc.AllocTensor::<f16>("u", 64).unwrap();
    let e = asc
        .DataCopyPad::<f16>(&u, &g, 0, 32, 0, 0, None)
        .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::Rule {
                param: "blockCount",
                ..
            }
        ),
        "{e}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(64)))]

    /// GM -> UB, Normal mode with isPad, against the plain row model: row r starts at
    /// r · (row bytes + dstStride · 32); it holds `left` padding values, the block, `right`
    /// padding values, then padding values up to 32 bytes.
    /// Every chip: DataCopyPad runs on 910B, 310B and 950 and is a typed NotSupported on
    /// 310, 910 and 310P.
    #[test]
    fn normal_mode_matches_model(count in 1u16..5, len in 1u32..40, sgap in 0i64..6, dgap in 0u32..3,
                                 left in 0u8..17, right in 0u8..17, chip_i in 0usize..6) {
        let chip = common::CHIPS[chip_i];
        let has = matches!(chip, ChipId::Ascend910B | ChipId::Ascend310B | ChipId::Ascend950);
        let mut asc = AscendC::new(chip, 1 << 14);
        let (n, l) = (count as usize, len as usize);
        let src_len = (n - 1) * (l + sgap as usize) + l;
        let x: Vec<i16> = (0..src_len).map(|i| i as i16 + 1).collect();
        let g = asc.GmAlloc::<i16>("g", &x).unwrap();
        let row = (left as usize + l + right as usize).div_ceil(16) * 16;
        let dst_len = (n - 1) * (row + dgap as usize * 16) + row;
        let u = asc.AllocTensor::<i16>("u", dst_len as u64).unwrap();
        asc.write(&u, &vec![-1i16; dst_len]).unwrap();
        let r = asc.DataCopyPad::<i16>(&u, &g, count, len * 2, sgap * 2, dgap, Some((true, left, right, 9)));
        if !has {
            prop_assert!(matches!(r, Err(AscendError::NotSupported { .. })), "{:?}: {:?}", chip, r);
            return Ok(());
        }
        r.unwrap();
        let mut want = vec![-1i16; dst_len];
        for r in 0..n {
            let base = r * (row + dgap as usize * 16);
            want[base..base + row].fill(9);
            for e in 0..l {
                want[base + left as usize + e] = x[r * (l + sgap as usize) + e];
            }
        }
        prop_assert_eq!(asc.read::<i16>(&u).unwrap(), want);
    }

    /// Compact mode (Ascend 950) against its model: the blocks back to back, then padding
    /// values for `right` elements and up to 32 bytes.
    #[test]
    fn compact_mode_matches_model(count in 1u16..5, len in 1u32..40, sgap in 0i64..6, right in 0u8..17) {
        let mut asc = AscendC::new(ChipId::Ascend950, 1 << 14);
        let (n, l) = (count as usize, len as usize);
        let src_len = (n - 1) * (l + sgap as usize) + l;
        let x: Vec<i16> = (0..src_len).map(|i| i as i16 + 1).collect();
        let g = asc.GmAlloc::<i16>("g", &x).unwrap();
        let total = (n * l + right as usize).div_ceil(16) * 16;
        let u = asc.AllocTensor::<i16>("u", total as u64 + 16).unwrap();
        asc.write(&u, &vec![-1i16; total + 16]).unwrap();
        asc.DataCopyPadCompact::<i16>(&u, &g, count, len * 2, sgap * 2, (true, 0, right, 9)).unwrap();
        let mut want = vec![-1i16; total + 16];
        want[..total].fill(9);
        for r in 0..n {
            for e in 0..l {
                want[r * l + e] = x[r * (l + sgap as usize) + e];
            }
        }
        prop_assert_eq!(asc.read::<i16>(&u).unwrap(), want);
    }
}
