//! TIK `v4dtrans(chw2hwc, dst, src, m_len, channels)` (usage row 53; TIK only): hand-computed
//! cases through the TIK face (no source prints an example; the callers' shapes are used:
//! DeePMD's `v4dtrans(False, net, trans, 256, 4)` turning (256, 4) into (4, 256)), a proptest
//! against a plain index model written here on every chip, and a typed-error test per
//! restriction (TIK's own `check_addr_overlap_v4dtrans` rule among them).

mod common;
use common::{CHIPS, ub};

use npusim_ascend::AscendError;
use npusim_ascend::core::{Operand, VectorCore};
use npusim_ascend::isa::Instr;
use npusim_ascend::tik::{Scope, Tik};
use npusim_ascend::trans4d::v4dtrans;
use npusim_core::npy::NpyArray;
use npusim_core::{ChipId, ElemType, MemSpace};
use proptest::prelude::*;

/// Runs `v4dtrans(chw2hwc, dst, src, m, c)` on 310P through the TIK face over `u16` data.
fn tik_run(chw2hwc: bool, src: &[u16], m: i64, c: i64) -> Vec<u16> {
    let n = src.len();
    let mut t = Tik::new(ChipId::Ascend310P);
    let g = t.tensor("uint16", &[n], "g", Scope::Gm).unwrap();
    let o = t.tensor("uint16", &[n], "o", Scope::Gm).unwrap();
    let us = t.tensor("uint16", &[n], "us", Scope::Ubuf).unwrap();
    let ud = t.tensor("uint16", &[n], "ud", Scope::Ubuf).unwrap();
    let blocks = (n as i64 * 2).div_euclid(32).max(1);
    t.data_move(&us, &g, 0, 1, blocks, 0, 0).unwrap();
    t.v4dtrans(chw2hwc, &ud, &us, m, c).unwrap();
    t.data_move(&o, &ud, 0, 1, blocks, 0, 0).unwrap();
    t.build_cce("k", &[&g], &[&o]).unwrap();
    let out = t
        .start_debug(&[("g", &NpyArray::from_elems(vec![n], src))])
        .unwrap();
    out[0].1.to_elems::<u16>().unwrap()
}

/// By hand, C = 2 channels of M = 8 (16 uint16, one 32-byte block): CHW [c0: 1..=8,
/// c1: 11..=18] becomes HWC [1, 11, 2, 12, .., 8, 18]; HWC -> CHW takes it back.
#[test]
fn hand_computed_chw_hwc_round_trip() {
    let chw: Vec<u16> = (1..=8).chain(11..=18).collect();
    let hwc = tik_run(true, &chw, 8, 2);
    assert_eq!(
        hwc,
        vec![1, 11, 2, 12, 3, 13, 4, 14, 5, 15, 6, 16, 7, 17, 8, 18]
    );
    assert_eq!(tik_run(false, &hwc, 8, 2), chw);
}

/// The DeePMD caller's shape: `v4dtrans(False, net, trans, 256, 4)`, a (256, 4) tensor
/// (HWC, M = 256, C = 4) into (4, 256): element (m, c) = 4m + c goes to c·256 + m. By hand:
/// dst[0..4] = src (0,0), (1,0), (2,0), (3,0) = 0, 4, 8, 12; dst[256] = src (0,1) = 1;
/// dst[1023] = src (255, 3) = 1023.
#[test]
fn deepmd_caller_shape_256_by_4() {
    let src: Vec<u16> = (0..1024).collect();
    let d = tik_run(false, &src, 256, 4);
    assert_eq!(&d[0..4], &[0, 4, 8, 12]);
    assert_eq!((d[256], d[513], d[1023]), (1, 6, 1023));
}

fn plain_model(chw2hwc: bool, src: &[u8], m: usize, c: usize, size: usize) -> Vec<u8> {
    let mut out = vec![0u8; src.len()];
    for mi in 0..m {
        for ci in 0..c {
            let (chw, hwc) = (ci * m + mi, mi * c + ci);
            let (from, to) = if chw2hwc { (chw, hwc) } else { (hwc, chw) };
            out[to * size..(to + 1) * size].copy_from_slice(&src[from * size..(from + 1) * size]);
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(96)))]

    /// Random chip, element type (every width, and types the row lacks), direction, M and C
    /// (1..=40), random bytes, in place when the image is 256 bytes or less and the draw asks,
    /// against the model; a typed refusal where the chip or type is absent. No mask: the
    /// instruction has none.
    #[test]
    fn v4dtrans_matches_the_model(chip_i in 0usize..6, t_i in 0usize..10, chw2hwc in any::<bool>(),
                                  m in 1usize..=40, c in 1usize..=40, in_place in any::<bool>(), seed in any::<u64>()) {
        let chip = CHIPS[chip_i];
        let types = [ElemType::I8, ElemType::U8, ElemType::I16, ElemType::U16, ElemType::F16,
                     ElemType::I32, ElemType::U32, ElemType::F32, ElemType::Bf16, ElemType::I64];
        let t = types[t_i];
        let legal = Instr::V4dtrans.legal_types(chip).is_some_and(|l| l.contains(&t));
        let size = t.size();
        let bytes = m * c * size;
        let mut x = seed;
        let src_bytes: Vec<u8> = (0..bytes).map(|_| { x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407); (x >> 56) as u8 }).collect();
        let in_place = in_place && bytes <= 256;
        let cap = (bytes as u64).div_ceil(32) * 32;
        let src = ub("src", t, 0, (m * c) as u64);
        let dst = if in_place { src.clone() } else { ub("dst", t, cap, (m * c) as u64) };
        let mut core = VectorCore::new(chip, 0);
        core.ub_mut().write(0, &src_bytes).unwrap();
        let r = v4dtrans(&mut core, "v4dtrans", chw2hwc, &dst, &src, m as i64, c as i64);
        if !legal {
            prop_assert!(matches!(r, Err(AscendError::NotSupported { .. }) | Err(AscendError::IllegalType { .. })), "{:?}", r);
            return Ok(());
        }
        r.unwrap();
        let got = core.ub().bytes(dst.addr(), bytes as u64).unwrap().to_vec();
        prop_assert_eq!(got, plain_model(chw2hwc, &src_bytes, m, c, size));
    }
}

#[test]
fn restrictions_give_typed_errors() {
    let h = ElemType::F16;
    let mut core = VectorCore::new(ChipId::Ascend310P, 0);
    let src = ub("src", h, 0, 1024);
    let dst = ub("dst", h, 4096, 1024);
    let run = |core: &mut VectorCore, d: &Operand, s: &Operand, m: i64, c: i64| {
        v4dtrans(core, "v4dtrans", true, d, s, m, c).unwrap_err()
    };
    // Parameter ranges (policy): m_len, channels in [1, 65535].
    for (m, c, p) in [
        (0, 4, "m_len"),
        (65536, 1, "m_len"),
        (4, 0, "channels"),
        (1, 65536, "channels"),
    ] {
        let e = run(&mut core, &dst, &src, m, c);
        assert!(
            matches!(e, AscendError::OutOfRange { instr: "v4dtrans", param, .. } if param == p),
            "{e}"
        );
    }
    // Extent: M·C elements of each.
    let e = run(&mut core, &dst, &src, 256, 5);
    assert!(
        matches!(e, AscendError::TensorOverflow { param: "src", .. }),
        "{e}"
    );
    // TIK's overlap rule: above 256 bytes no overlap, not even in place; at 256 bytes or less
    // only exactly in place.
    let e = run(&mut core, &src, &src, 256, 4);
    assert!(
        matches!(
            e,
            AscendError::IllegalOverlap {
                instr: "v4dtrans",
                ..
            }
        ),
        "{e}"
    );
    let e = run(&mut core, &src.at(16), &src, 16, 4);
    assert!(matches!(e, AscendError::IllegalOverlap { .. }), "{e}");
    v4dtrans(&mut core, "v4dtrans", true, &src, &src, 16, 8).unwrap();
    // Types: dst of another type, a type the row lacks, chips without the instruction.
    let e = run(&mut core, &ub("f", ElemType::F32, 4096, 1024), &src, 16, 4);
    assert!(
        matches!(e, AscendError::TypeMismatch { param: "dst", .. }),
        "{e}"
    );
    let e = run(
        &mut core,
        &ub("d", ElemType::I64, 8192, 64),
        &ub("s", ElemType::I64, 0, 64),
        8,
        8,
    );
    assert!(
        matches!(
            e,
            AscendError::IllegalType {
                dtype: ElemType::I64,
                ..
            }
        ),
        "{e}"
    );
    for c in [
        ChipId::Ascend310,
        ChipId::Ascend910,
        ChipId::Ascend910B,
        ChipId::Ascend310B,
        ChipId::Ascend950,
    ] {
        let mut other = VectorCore::new(c, 0);
        let e = run(&mut other, &dst, &src, 16, 4);
        assert!(
            matches!(
                e,
                AscendError::NotSupported {
                    instr: "v4dtrans",
                    ..
                }
            ),
            "{e}"
        );
    }
    // Scope and alignment.
    let mut gm = src.clone();
    gm.space = MemSpace::Gm;
    let e = run(&mut core, &dst, &gm, 16, 4);
    assert!(
        matches!(e, AscendError::WrongScope { param: "src", .. }),
        "{e}"
    );
    let e = run(&mut core, &dst.at(3), &src, 16, 4);
    assert!(
        matches!(e, AscendError::Misaligned { param: "dst", .. }),
        "{e}"
    );
}
