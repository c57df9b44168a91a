//! Gatherb (asc-devkit `离散与聚合/Gatherb(ISASI).md`; TIK `vgatherb`): the page's example, a
//! proptest against a plain model of the page's reference code written here (repeat i, block j:
//! `dst[(i·dstRepStride + j·dstBlkStride)·32 ..] = src[offset[8i+j] ..]`, 32 bytes, a block
//! stride of 0 counting as 1) on every chip (absent ones refuse), and one test per restriction
//! class (typed errors, nothing written).

mod common;
use common::{CHIPS, ub};

use npusim_ascend::AscendError;
use npusim_ascend::ascendc::AscendC;
use npusim_ascend::core::{Operand, VectorCore};
use npusim_ascend::isa::Instr;
use npusim_ascend::misc::gatherb;
use npusim_ascend::tik::{Scope, Tik};
use npusim_core::{ChipId, ElemType, MemSpace, NpyArray};
use proptest::prelude::*;

#[test]
fn gatherb_page_example() {
    // offset [224 192 160 128 96 64 32 0], src uint16 [0 .. 127], repeatTime 1, {1, 8}: the
    // printed output is src's blocks in reverse order (the first two and the last printed,
    // 48 of 48 exact; the elided middle follows the same reference code).
    let mut asc = AscendC::new(ChipId::Ascend910B, 0);
    let x = asc.AllocTensor::<u16>("x", 128).unwrap();
    let y = asc.AllocTensor::<u16>("y", 128).unwrap();
    let off = asc.AllocTensor::<u32>("offset", 8).unwrap();
    asc.write(&x, &(0..128).collect::<Vec<u16>>()).unwrap();
    asc.write(&off, &[224, 192, 160, 128, 96, 64, 32, 0])
        .unwrap();
    asc.Gatherb(&y, &x, &off, 1, 1, 8).unwrap();
    let got = asc.read::<u16>(&y).unwrap();
    let printed: Vec<(usize, u16)> = (0..16)
        .map(|k| (k, 112 + k as u16))
        .chain((0..16).map(|k| (16 + k, 96 + k as u16)))
        .chain((0..16).map(|k| (112 + k, k as u16)))
        .collect();
    let exact = printed.iter().filter(|(i, v)| got[*i] == *v).count();
    assert_eq!(exact, 48);
    let want: Vec<u16> = (0..8)
        .flat_map(|j| (0..16).map(move |k| (7 - j) * 16 + k))
        .collect();
    assert_eq!(got, want);
    // The TIK spelling runs the same call.
    let mut t = Tik::new(ChipId::Ascend910B);
    let g = t.tensor("uint16", &[128], "g", Scope::Gm).unwrap();
    let go = t.tensor("uint32", &[8], "go", Scope::Gm).unwrap();
    let o = t.tensor("uint16", &[128], "o", Scope::Gm).unwrap();
    let xs = t.tensor("uint16", &[128], "xs", Scope::Ubuf).unwrap();
    let os = t.tensor("uint32", &[8], "os", Scope::Ubuf).unwrap();
    let ys = t.tensor("uint16", &[128], "ys", Scope::Ubuf).unwrap();
    t.data_move(&xs, &g, 0, 1, 8, 0, 0).unwrap();
    t.data_move(&os, &go, 0, 1, 1, 0, 0).unwrap();
    t.vgatherb(&ys, &xs, &os, 1, 1, 8).unwrap();
    t.data_move(&o, &ys, 0, 1, 8, 0, 0).unwrap();
    t.build_cce("k", &[&g, &go], &[&o]).unwrap();
    let out = t
        .start_debug(&[
            (
                "g",
                &NpyArray::from_elems(vec![128], &(0..128).collect::<Vec<u16>>()),
            ),
            (
                "go",
                &NpyArray::from_elems(vec![8], &[224u32, 192, 160, 128, 96, 64, 32, 0]),
            ),
        ])
        .unwrap();
    assert_eq!(out[0].1.to_elems::<u16>().unwrap(), want);
}

fn gm(name: &str, t: ElemType, elems: u64) -> Operand {
    Operand {
        space: MemSpace::Gm,
        ..ub(name, t, 0, elems)
    }
}

/// A core whose UB holds a pattern, the offsets written at byte 8192; runs `f`, returns its
/// error and checks the UB is unchanged.
fn refused(
    chip: ChipId,
    offs: &[u32],
    f: impl FnOnce(&mut VectorCore) -> npusim_ascend::Result<()>,
) -> AscendError {
    let mut core = VectorCore::new(chip, 0);
    let mut pattern: Vec<u8> = (0..16384u32).map(|i| (i * 11 + 1) as u8).collect();
    for (k, o) in offs.iter().enumerate() {
        pattern[8192 + 4 * k..8192 + 4 * k + 4].copy_from_slice(&o.to_le_bytes());
    }
    core.ub_mut().write(0, &pattern).unwrap();
    let e = f(&mut core).unwrap_err();
    assert_eq!(
        core.ub().bytes(0, 16384).unwrap(),
        &pattern[..],
        "{e}: nothing written"
    );
    e
}

#[test]
fn gatherb_restrictions() {
    let offs: Vec<u32> = (0..16).map(|k| 32 * (15 - k)).collect();
    let (d, s, o) = (
        ub("dst", ElemType::U16, 0, 2048),
        ub("src", ElemType::U16, 4096, 256),
        ub("offset", ElemType::U32, 8192, 16),
    );
    let e = refused(ChipId::Ascend910, &offs, |c| {
        gatherb(c, "Gatherb", &d, &s, &o, 1, 1, 8)
    });
    assert_eq!(
        e,
        AscendError::NotSupported {
            instr: "Gatherb",
            chip: ChipId::Ascend910
        }
    );
    let e = refused(ChipId::Ascend910B, &offs, |c| {
        gatherb(
            c,
            "Gatherb",
            &ub("dst", ElemType::F16, 0, 2048),
            &ub("src", ElemType::F16, 4096, 256),
            &o,
            1,
            1,
            8,
        )
    });
    assert!(
        matches!(
            e,
            AscendError::IllegalType {
                instr: "Gatherb",
                param: "dst",
                dtype: ElemType::F16,
                ..
            }
        ),
        "{e}"
    );
    let e = refused(ChipId::Ascend910B, &offs, |c| {
        gatherb(
            c,
            "Gatherb",
            &d,
            &ub("src", ElemType::U32, 4096, 128),
            &o,
            1,
            1,
            8,
        )
    });
    assert!(
        matches!(
            e,
            AscendError::TypeMismatch {
                instr: "Gatherb",
                param: "src",
                ..
            }
        ),
        "{e}"
    );
    let e = refused(ChipId::Ascend910B, &offs, |c| {
        gatherb(
            c,
            "Gatherb",
            &d,
            &s,
            &ub("offset", ElemType::I32, 8192, 16),
            1,
            1,
            8,
        )
    });
    assert!(
        matches!(
            e,
            AscendError::IllegalType {
                instr: "Gatherb",
                param: "offset",
                dtype: ElemType::I32,
                ..
            }
        ),
        "{e}"
    );
    for (param, r, b, rs, value) in [
        ("repeatTime", 256, 1, 8, 256),
        ("dstBlkStride", 1, 256, 8, 256),
        ("dstRepStride", 1, 1, 65536, 65536),
    ] {
        let e = refused(ChipId::Ascend910B, &offs, |c| {
            gatherb(c, "Gatherb", &d, &s, &o, r, b, rs)
        });
        assert!(
            matches!(e, AscendError::OutOfRange { instr: "Gatherb", param: p, value: v, .. } if p == param && v == value),
            "{e}"
        );
    }
    let e = refused(ChipId::Ascend910B, &offs, |c| {
        gatherb(
            c,
            "Gatherb",
            &d,
            &gm("src", ElemType::U16, 256),
            &o,
            1,
            1,
            8,
        )
    });
    assert!(
        matches!(
            e,
            AscendError::WrongScope {
                instr: "Gatherb",
                param: "src",
                ..
            }
        ),
        "{e}"
    );
    let e = refused(ChipId::Ascend910B, &offs, |c| {
        gatherb(c, "Gatherb", &d.at(1), &s, &o, 1, 1, 8)
    });
    assert!(
        matches!(
            e,
            AscendError::Misaligned {
                instr: "Gatherb",
                param: "dst",
                ..
            }
        ),
        "{e}"
    );
    // Two repeats 200 blocks apart need 6656 bytes of dst; it has 4096.
    let e = refused(ChipId::Ascend910B, &offs, |c| {
        gatherb(c, "Gatherb", &d, &s, &o, 2, 1, 200)
    });
    assert!(
        matches!(
            e,
            AscendError::TensorOverflow {
                instr: "Gatherb",
                param: "dst",
                ..
            }
        ),
        "{e}"
    );
    // 3 repeats read 24 offsets; the tensor holds 16.
    let e = refused(ChipId::Ascend910B, &offs, |c| {
        gatherb(c, "Gatherb", &d, &s, &o, 3, 1, 8)
    });
    assert!(
        matches!(
            e,
            AscendError::TensorOverflow {
                instr: "Gatherb",
                param: "offset",
                ..
            }
        ),
        "{e}"
    );
    // An offset off the 32-byte grid, and a block past src (512 bytes).
    for (bad, at) in [(48u32, 3usize), (512, 5)] {
        let mut o2 = offs.clone();
        o2[at] = bad;
        let e = refused(ChipId::Ascend910B, &o2, |c| {
            gatherb(c, "Gatherb", &d, &s, &o, 1, 1, 8)
        });
        assert!(
            matches!(&e, AscendError::Rule { instr: "Gatherb", param: "offset", value, .. } if *value == format!("offset[{at}] = {bad}")),
            "{e}"
        );
    }
    // src and dst in the same memory.
    let e = refused(ChipId::Ascend910B, &offs, |c| {
        gatherb(c, "Gatherb", &s, &s, &o, 1, 1, 8)
    });
    assert!(
        matches!(
            e,
            AscendError::IllegalOverlap {
                instr: "Gatherb",
                ..
            }
        ),
        "{e}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(96)))]

    #[test]
    fn gatherb_matches_the_model(chip_i in 0usize..6, ty in 0usize..4, repeat in 0i64..4, blk in 0i64..3, rep in 0i64..20,
                                 seed in any::<u64>()) {
        let chip = CHIPS[chip_i];
        let t = [ElemType::U16, ElemType::U32, ElemType::F16, ElemType::I8][ty];
        let legal = Instr::Gatherb.legal_types(chip).is_some_and(|l| l.contains(&t));
        let src_blocks = 24u64;
        let mut x = seed;
        let mut next = move || { x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407); x >> 17 };
        let n = (repeat.max(1) * 8) as usize;
        let offs: Vec<u32> = (0..n).map(|_| (next() % src_blocks) as u32 * 32).collect();
        let dst_bytes = ((repeat.max(1) - 1) * rep + 7 * blk.max(1) + 1) as u64 * 32;
        let (sb, ob, db) = (0u64, src_blocks * 32, src_blocks * 32 + 1024);
        let s = Operand { tensor_bytes: src_blocks * 32, ..ub("src", t, sb, 0) };
        let o = ub("offset", ElemType::U32, ob, n as u64);
        let d = Operand { tensor_bytes: dst_bytes, ..ub("dst", t, db, 0) };
        let mut core = VectorCore::new(chip, 0);
        let mem: Vec<u8> = (0..db + dst_bytes).map(|_| next() as u8).collect();
        core.ub_mut().write(0, &mem).unwrap();
        let ob_bytes: Vec<u8> = offs.iter().flat_map(|o| o.to_le_bytes()).collect();
        core.ub_mut().write(ob, &ob_bytes).unwrap();
        let before = core.ub().bytes(0, db + dst_bytes).unwrap().to_vec();
        let r = gatherb(&mut core, "Gatherb", &d, &s, &o, repeat, blk, rep);
        if !legal {
            prop_assert!(matches!(r, Err(AscendError::NotSupported { .. } | AscendError::IllegalType { .. })), "{:?}", r);
        } else {
            r.unwrap();
            let mut want = before.clone();
            let b = blk.max(1) as u64;
            for i in 0..repeat as u64 {
                for j in 0..8u64 {
                    let from = (sb + offs[(i * 8 + j) as usize] as u64) as usize;
                    let to = (db + (i * rep as u64 + j * b) * 32) as usize;
                    want[to..to + 32].copy_from_slice(&before[from..from + 32]);
                }
            }
            prop_assert_eq!(core.ub().bytes(0, db + dst_bytes).unwrap(), &want[..]);
        }
    }
}
