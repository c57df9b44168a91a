//! DataCopyPad (GM <-> UB with padding, byte-granular) and SetAtomicAdd / SetAtomicNone,
//! checked against plain models of the pages' rules (asc-devkit DataCopyPad pages,
//! SetAtomicAdd; the asc_set_atomic_add example: 1 + 2 = 3 per int8 element).

use half::f16;
use npusim_ascend::AscendError;
use npusim_ascend::ascendc::AscendC;
use npusim_core::ChipId;

#[test]
fn atomic_add_accumulates_moves_into_gm() {
    let mut asc = AscendC::new(ChipId::Ascend910B, 4096);
    let g = asc.GmAlloc::<i8>("dst", &[0; 256]).unwrap();
    let a = asc.AllocTensor::<i8>("src0", 256).unwrap();
    let b = asc.AllocTensor::<i8>("src1", 256).unwrap();
    asc.write(&a, &[1i8; 256]).unwrap();
    asc.write(&b, &[2i8; 256]).unwrap();
    asc.DataCopy::<i8>(&g, &a, 256).unwrap();
    asc.SetAtomicAdd::<i8>().unwrap();
    asc.DataCopy::<i8>(&g, &b, 256).unwrap();
    asc.SetAtomicNone();
    assert_eq!(asc.read::<i8>(&g).unwrap(), vec![3i8; 256]);
    asc.DataCopy::<i8>(&g, &b, 256).unwrap();
    assert_eq!(asc.read::<i8>(&g).unwrap(), vec![2i8; 256]);
    // Half accumulates rounded to half.
    let gh = asc
        .GmAlloc::<f16>("gh", &[f16::from_f32(2048.0); 16])
        .unwrap();
    let h = asc.AllocTensor::<f16>("h", 16).unwrap();
    asc.write(&h, &[f16::from_f32(1.0); 16]).unwrap();
    asc.SetAtomicAdd::<f16>().unwrap();
    asc.DataCopy::<f16>(&gh, &h, 16).unwrap();
    // 2048 + 1 = 2049 is a tie between 2048 and 2050 in half: even wins.
    assert!(
        asc.read::<f16>(&gh)
            .unwrap()
            .iter()
            .all(|v| v.to_f32() == 2048.0)
    );
    // Atlas training accumulates float only.
    let mut asc = AscendC::new(ChipId::Ascend910, 0);
    assert!(matches!(
        asc.SetAtomicAdd::<f16>(),
        Err(AscendError::IllegalType {
            instr: "SetAtomicAdd",
            ..
        })
    ));
}

#[test]
fn data_copy_pad_round_trip() {
    let mut asc = AscendC::new(ChipId::Ascend910B, 4096);
    let x: Vec<f16> = (0..64).map(|i| f16::from_f32(i as f32 + 1.0)).collect();
    let g = asc.GmAlloc::<f16>("g", &x).unwrap();
    let u = asc.AllocTensor::<f16>("u", 128).unwrap();
    asc.write(&u, &[f16::from_f32(-9.0); 128]).unwrap();
    // 2 blocks of 23 halves (46 bytes), 1 half skipped between them in GM, rows 1 block apart.
    asc.DataCopyPad::<f16>(&u, &g, 2, 46, 2, 1, Some((false, 0, 0, f16::ZERO)))
        .unwrap();
    let ub = asc.read::<f16>(&u).unwrap();
    // Model: row r starts at r * (32 + 32) elements... rows are 64 bytes (32 halves), 1 block gap.
    let mut want = vec![f16::from_f32(-9.0); 128];
    for r in 0..2 {
        let row = r * (32 + 16);
        let src = r * 24;
        want[row..row + 23].copy_from_slice(&x[src..src + 23]);
        for e in 23..32 {
            want[row + e] = x[src]; // filler: the block's first element
        }
    }
    assert_eq!(ub, want);
    // With isPad: 2 left, 3 right, value 7.
    asc.write(&u, &[f16::from_f32(-9.0); 128]).unwrap();
    asc.DataCopyPad::<f16>(&u, &g, 1, 46, 0, 0, Some((true, 2, 3, f16::from_f32(7.0))))
        .unwrap();
    let ub = asc.read::<f16>(&u).unwrap();
    let seven = f16::from_f32(7.0);
    assert_eq!(&ub[..2], &[seven, seven]);
    assert_eq!(&ub[2..25], &x[..23]);
    assert!(ub[25..32].iter().all(|v| *v == seven));
    assert_eq!(ub[32], f16::from_f32(-9.0));
    // UB -> GM: the rows back, compact, 2 bytes apart in GM.
    let back = asc.GmAlloc::<f16>("back", &[f16::ZERO; 64]).unwrap();
    asc.write(&u, &x).unwrap();
    asc.DataCopyPad::<f16>(&back, &u, 2, 46, 0, 2, None)
        .unwrap();
    let out = asc.read::<f16>(&back).unwrap();
    assert_eq!(&out[..23], &x[..23]);
    assert_eq!(out[23], f16::ZERO);
    // Rows are 46 bytes rounded up to 64 in UB: row 1 starts at element 32.
    assert_eq!(&out[24..47], &x[32..55]);
}

#[test]
fn data_copy_pad_rules() {
    let mut asc = AscendC::new(ChipId::Ascend910B, 4096);
    let g = asc.GmAlloc::<f16>("g", &[f16::ZERO; 64]).unwrap();
    let u = asc.AllocTensor::<f16>("u", 64).unwrap();
    let e = asc
        .DataCopyPad::<f16>(&u, &g, 1, 45, 0, 0, None)
        .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::Rule {
                instr: "DataCopyPad",
                param: "blockLen",
                ..
            }
        ),
        "{e}"
    );
    let e = asc
        .DataCopyPad::<f16>(&u, &g, 4096, 32, 0, 0, None)
        .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::OutOfRange {
                instr: "DataCopyPad",
                param: "blockCount",
                value: 4096,
                ..
            }
        ),
        "{e}"
    );
    let e = asc
        .DataCopyPad::<f16>(&u, &g, 1, 32, 0, 0, Some((true, 17, 0, f16::ZERO)))
        .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::OutOfRange {
                instr: "DataCopyPad",
                param: "leftPadding",
                ..
            }
        ),
        "{e}"
    );
    let e = asc
        .DataCopyPad::<f16>(&u, &g, 3, 64, 0, 0, None)
        .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::TensorOverflow {
                instr: "DataCopyPad",
                ..
            }
        ),
        "{e}"
    );
    let mut asc = AscendC::new(ChipId::Ascend910, 4096);
    let g = asc.GmAlloc::<f16>("g", &[f16::ZERO; 64]).unwrap();
    let u = asc.AllocTensor::<f16>("u", 64).unwrap();
    let e = asc
        .DataCopyPad::<f16>(&u, &g, 1, 32, 0, 0, None)
        .unwrap_err();
    assert_eq!(
        e,
        AscendError::NotSupported {
            instr: "DataCopyPad",
            chip: ChipId::Ascend910
        }
    );
}
