//! BilinearInterpolation / TIK vbi (asc-devkit `基础算术/BilinearInterpolation(ISASI).md`): the
//! page's printed example, a proptest against a plain scalar model written here (the A2/A3
//! vendor emulation's order: each product rounded to half, the products of a vertical repeat
//! added one after the other in half, then `+ 0`) on every chip (absent ones refuse), and one
//! test per restriction class (typed errors, nothing written).

mod common;
use common::{CHIPS, ub, ub_bytes};

use half::f16;
use npusim_ascend::AscendError;
use npusim_ascend::ascendc::AscendC;
use npusim_ascend::bilinear::{Bilinear, bilinear_interpolation};
use npusim_ascend::core::{Operand, VectorCore};
use npusim_ascend::mask::MaskArg;
use npusim_ascend::tik::{Scope, Tik};
use npusim_core::{ChipId, ElemType, NpyArray};
use proptest::prelude::*;

fn h(x: f32) -> f16 {
    f16::from_f32(x)
}

#[test]
fn page_example_both_mask_forms_and_tik() {
    // src0 = [1 .. 512] half, src1 = [2 .. 17], src0Offset = [0, 32, .., 992], mask 128,
    // hRepeat 2, repeatMode false, dstBlkStride 1, vROffset 128, vRepeat 2 -> printed
    // dst [389, 394, 399, 404, ..., 4096].
    let src0: Vec<f16> = (1..=512).map(|v| h(v as f32)).collect();
    let src1: Vec<f16> = (2..=17).map(|v| h(v as f32)).collect();
    let offs: Vec<u32> = (0..32).map(|k| 32 * k).collect();
    let run = |mask: MaskArg| -> Vec<f16> {
        let mut asc = AscendC::new(ChipId::Ascend910B, 0);
        let d = asc.AllocTensor::<f16>("dst", 256).unwrap();
        let s0 = asc.AllocTensor::<f16>("src0", 512).unwrap();
        let o = asc.AllocTensor::<u32>("src0Offset", 32).unwrap();
        let s1 = asc.AllocTensor::<f16>("src1", 16).unwrap();
        let tmp = asc.AllocTensor::<u8>("tmp", 512 * 32 + 16 * 32).unwrap();
        asc.write(&s0, &src0).unwrap();
        asc.write(&s1, &src1).unwrap();
        asc.write(&o, &offs).unwrap();
        asc.BilinearInterpolation(
            &d,
            &s0,
            &o,
            &s1,
            npusim_ascend::ascendc::AscMask(mask),
            2,
            false,
            1,
            128,
            2,
            &tmp,
        )
        .unwrap();
        asc.read::<f16>(&d).unwrap()
    };
    let got = run(MaskArg::Count(128));
    let printed = [
        (0, 389.0),
        (1, 394.0),
        (2, 399.0),
        (3, 404.0),
        (255, 4096.0),
    ];
    let exact = printed
        .iter()
        .filter(|(i, v)| got[*i].to_bits() == h(*v).to_bits())
        .count();
    assert_eq!(exact, 5, "printed outputs bit-exact");
    // The elided outputs, by hand: dst[e] = 2·(e+1) + 3·(129+e) = 389 + 5e (exact in half);
    // dst[128 + e] = 4·(257+e) + 5·(385+e) = 2953 + 9e, each product rounded to half (5·(385+e)
    // is odd and above 2048 for some e), then the sum (step 2 above 2048): dst[128] = 2953 ->
    // 2952 (ties to even), dst[129] = 2962 exact.
    for e in 0..128 {
        assert_eq!(got[e], h(389.0 + 5.0 * e as f32), "dst[{e}]");
        let p = h(4.0 * (257 + e) as f32);
        let q = h(5.0 * (385 + e) as f32);
        assert_eq!(got[128 + e], h(p.to_f32() + q.to_f32()), "dst[{}]", 128 + e);
    }
    assert_eq!(got[128], h(2952.0));
    assert_eq!(got[129], h(2962.0));
    // The bit-wise form with every bit set gives the same.
    assert_eq!(
        run(MaskArg::ascendc_array([u64::MAX, u64::MAX])),
        got,
        "mask[2] form"
    );
    // TIK vbi runs the same call.
    let mut t = Tik::new(ChipId::Ascend910B);
    let g0 = t.tensor("float16", &[512], "g0", Scope::Gm).unwrap();
    let g1 = t.tensor("float16", &[16], "g1", Scope::Gm).unwrap();
    let go = t.tensor("uint32", &[32], "go", Scope::Gm).unwrap();
    let out = t.tensor("float16", &[256], "out", Scope::Gm).unwrap();
    let u0 = t.tensor("float16", &[512], "u0", Scope::Ubuf).unwrap();
    let u1 = t.tensor("float16", &[16], "u1", Scope::Ubuf).unwrap();
    let uo = t.tensor("uint32", &[32], "uo", Scope::Ubuf).unwrap();
    let ud = t.tensor("float16", &[256], "ud", Scope::Ubuf).unwrap();
    t.data_move(&u0, &g0, 0, 1, 32, 0, 0).unwrap();
    t.data_move(&u1, &g1, 0, 1, 1, 0, 0).unwrap();
    t.data_move(&uo, &go, 0, 1, 4, 0, 0).unwrap();
    t.vbi(128, &ud, &u0, &u1, &uo, 1, 2, 2, false, 128).unwrap();
    t.data_move(&out, &ud, 0, 1, 16, 0, 0).unwrap();
    t.build_cce("k", &[&g0, &g1, &go], &[&out]).unwrap();
    let res = t
        .start_debug(&[
            ("g0", &NpyArray::from_elems(vec![512], &src0)),
            ("g1", &NpyArray::from_elems(vec![16], &src1)),
            ("go", &NpyArray::from_elems(vec![32], &offs)),
        ])
        .unwrap();
    assert_eq!(res[0].1.to_elems::<f16>().unwrap(), got, "TIK vbi");
}

/// The plain model: for each vertical repeat and active lane, products rounded to half, summed
/// in half one after the other, `+ 0`, written at `v·vROffset + j·blk·16 + e` (last block wins).
#[allow(clippy::too_many_arguments)]
fn model(
    dst: &mut [f16],
    src0: &[f16],
    offs: &[u32],
    src1: &[f16],
    lanes: u128,
    hr: usize,
    mode: bool,
    blk: usize,
    vro: usize,
    vr: usize,
) {
    for v in 0..vr {
        for j in 0..8 {
            for e in 0..16 {
                let lane = 16 * j + e;
                if lanes >> lane & 1 == 0 {
                    continue;
                }
                let mut acc = f16::ZERO;
                for k in 0..hr {
                    let i = v * hr + k;
                    let x = src0[offs[8 * i + j] as usize / 2 + e];
                    let w = if mode { src1[8 * i + j] } else { src1[i] };
                    let p = h(x.to_f32() * w.to_f32());
                    acc = if k == 0 {
                        p
                    } else {
                        h(p.to_f32() + acc.to_f32())
                    };
                }
                dst[v * vro + j * blk * 16 + e] = h(acc.to_f32() + 0.0);
            }
        }
    }
}

const SPECIALS: [u16; 8] = [
    0x7c00, // +inf
    0xfc00, // -inf
    0x7e00, // NaN
    0x8000, // -0
    0x7bff, // max
    0x0001, // smallest subnormal
    0x3c00, // 1
    0xbc00, // -1
];

fn half_value() -> impl Strategy<Value = f16> {
    prop_oneof![
        6 => (-64.0f32..64.0).prop_map(h),
        1 => proptest::sample::select(SPECIALS.to_vec()).prop_map(f16::from_bits),
        1 => any::<u16>().prop_map(f16::from_bits),
    ]
}

fn same(a: f16, b: f16) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

#[derive(Debug, Clone)]
struct Case {
    chip: usize,
    hr: usize,
    vr: usize,
    mode: bool,
    blk: usize,
    extra: usize,
    mask: MaskArg,
    src0: Vec<f16>,
    src1: Vec<f16>,
    blocks: Vec<u32>,
}

const SRC0_BLOCKS: u32 = 40;

fn case() -> impl Strategy<Value = Case> {
    (
        prop_oneof![Just(3usize), 0..6usize],
        1..5usize,
        1..4usize,
        any::<bool>(),
        0..4usize,
        0..3usize,
    )
        .prop_flat_map(|(chip, hr, vr, mode, blk, extra)| {
            let iters = hr * vr;
            let mask = prop_oneof![
                (1u64..=128).prop_map(MaskArg::Count),
                (any::<u64>(), any::<u64>())
                    .prop_filter("not both 0", |(l, h)| *l != 0 || *h != 0)
                    .prop_map(|(lo, hi)| MaskArg::Bits { lo, hi }),
            ];
            (
                Just((chip, hr, vr, mode, blk, extra)),
                mask,
                proptest::collection::vec(half_value(), (SRC0_BLOCKS * 16) as usize),
                proptest::collection::vec(half_value(), iters * 8),
                proptest::collection::vec(0..SRC0_BLOCKS, iters * 8),
            )
        })
        .prop_map(
            |((chip, hr, vr, mode, blk, extra), mask, src0, src1, blocks)| Case {
                chip,
                hr,
                vr,
                mode,
                blk,
                extra,
                mask,
                src0,
                src1,
                blocks,
            },
        )
}

fn write_halves(core: &mut VectorCore, at: u64, v: &[f16]) {
    let b: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    core.ub_mut().write(at, &b).unwrap();
}

fn read_halves(core: &VectorCore, at: u64, n: usize) -> Vec<f16> {
    core.ub()
        .bytes(at, n as u64 * 2)
        .unwrap()
        .chunks_exact(2)
        .map(|c| f16::from_le_bytes([c[0], c[1]]))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]
    #[test]
    fn bilinear_matches_the_model(c in case()) {
        let chip = CHIPS[c.chip];
        // vROffset: the smallest legal value for the block stride (at least 128), plus 16·extra.
        let span = (7 * c.blk + 1) * 16;
        let vro = span.max(128) + 16 * c.extra;
        let dst_elems = (c.vr - 1) * vro + span + 64;
        let iters = c.hr * c.vr;
        let (dst_at, s0_at, off_at, s1_at) = (0u64, 32768u64, 49152u64, 53248u64);
        let dst = ub("dst", ElemType::F16, dst_at, dst_elems as u64);
        let src0 = ub("src0", ElemType::F16, s0_at, SRC0_BLOCKS as u64 * 16);
        let off = ub("src0Offset", ElemType::U32, off_at, iters as u64 * 8);
        let n_w = if c.mode { iters * 8 } else { iters };
        let src1 = ub("src1", ElemType::F16, s1_at, n_w as u64);
        let offs: Vec<u32> = c.blocks.iter().map(|b| b * 32).collect();
        let mut core = VectorCore::new(chip, 0);
        let before: Vec<f16> = (0..dst_elems).map(|i| h(-(i as f32) - 0.5)).collect();
        write_halves(&mut core, dst_at, &before);
        write_halves(&mut core, s0_at, &c.src0);
        write_halves(&mut core, s1_at, &c.src1[..n_w]);
        let ob: Vec<u8> = offs.iter().flat_map(|o| o.to_le_bytes()).collect();
        core.ub_mut().write(off_at, &ob).unwrap();
        let call = Bilinear {
            dst, src0, src0_offset: off, src1, mask: c.mask, h_repeat: c.hr as i64,
            repeat_mode: c.mode, dst_blk_stride: c.blk as i64, v_r_offset: vro as i64,
            v_repeat: c.vr as i64, tmp: None,
        };
        let r = bilinear_interpolation(&mut core, "vbi", &call);
        if chip != ChipId::Ascend910B {
            prop_assert_eq!(r, Err(AscendError::NotSupported { instr: "vbi", chip }));
            return Ok(());
        }
        prop_assert!(r.is_ok(), "{:?}", r);
        let lanes = match c.mask {
            MaskArg::Count(n) => if n >= 128 { u128::MAX } else { (1u128 << n) - 1 },
            MaskArg::Bits { lo, hi } => (hi as u128) << 64 | lo as u128,
            MaskArg::Placeholder => unreachable!(),
        };
        let mut want = before.clone();
        model(&mut want, &c.src0, &offs, &c.src1[..n_w], lanes, c.hr, c.mode, c.blk, vro, c.vr);
        let got = read_halves(&core, dst_at, dst_elems);
        for i in 0..dst_elems {
            prop_assert!(same(got[i], want[i]), "dst[{}]: got {:?} want {:?}", i, got[i], want[i]);
        }
    }
}

/// A 910B core whose UB holds a pattern with `offs` at byte 8192; runs `f`, returns its error
/// and checks the UB is unchanged.
fn refused(
    chip: ChipId,
    offs: &[u32],
    f: impl FnOnce(&mut VectorCore) -> npusim_ascend::Result<()>,
) -> AscendError {
    let mut core = VectorCore::new(chip, 0);
    let mut pattern: Vec<u8> = (0..65536u32).map(|i| (i * 7 + 3) as u8).collect();
    for (k, o) in offs.iter().enumerate() {
        pattern[8192 + 4 * k..8192 + 4 * k + 4].copy_from_slice(&o.to_le_bytes());
    }
    core.ub_mut().write(0, &pattern).unwrap();
    let e = f(&mut core).unwrap_err();
    assert_eq!(
        core.ub().bytes(0, 65536).unwrap(),
        &pattern[..],
        "{e}: nothing written"
    );
    e
}

/// The page's call shape: dst at 0 (256 halves), src0 at 4096 (512 halves: 1024 bytes would
/// reach 5120), src0Offset at 8192 (32), src1 at 12288 (16), tmp at 16384.
fn base() -> Bilinear {
    Bilinear {
        dst: ub("dst", ElemType::F16, 0, 256),
        src0: ub("src0", ElemType::F16, 4096, 512),
        src0_offset: ub("src0Offset", ElemType::U32, 8192, 32),
        src1: ub("src1", ElemType::F16, 12288, 16),
        mask: MaskArg::Count(128),
        h_repeat: 2,
        repeat_mode: false,
        dst_blk_stride: 1,
        v_r_offset: 128,
        v_repeat: 2,
        tmp: Some(ub_bytes("tmp", ElemType::U8, 16384, 512 * 32 + 16 * 32)),
    }
}

fn err(b: &Bilinear) -> AscendError {
    let offs: Vec<u32> = (0..32).map(|k| 32 * k).collect();
    refused(ChipId::Ascend910B, &offs, |c| {
        bilinear_interpolation(c, "BilinearInterpolation", b)
    })
}

const N: &str = "BilinearInterpolation";

#[test]
fn the_base_call_runs() {
    let offs: Vec<u32> = (0..32).map(|k| 32 * k).collect();
    let mut core = VectorCore::new(ChipId::Ascend910B, 0);
    let ob: Vec<u8> = offs.iter().flat_map(|o| o.to_le_bytes()).collect();
    core.ub_mut().write(8192, &ob).unwrap();
    bilinear_interpolation(&mut core, N, &base()).unwrap();
}

#[test]
fn restrictions_give_typed_errors() {
    // Chips without it, and the type.
    for chip in [
        ChipId::Ascend310,
        ChipId::Ascend910,
        ChipId::Ascend310P,
        ChipId::Ascend310B,
        ChipId::Ascend950,
    ] {
        let e = refused(chip, &[], |c| bilinear_interpolation(c, N, &base()));
        assert_eq!(e, AscendError::NotSupported { instr: N, chip });
    }
    let f32_dst = Bilinear {
        dst: ub("dst", ElemType::F32, 0, 256),
        ..base()
    };
    assert!(
        matches!(
            err(&f32_dst),
            AscendError::IllegalType {
                instr: N,
                param: "dst",
                dtype: ElemType::F32,
                ..
            }
        ),
        "{}",
        err(&f32_dst)
    );
    let bad_src1 = Bilinear {
        src1: ub("src1", ElemType::I16, 12288, 16),
        ..base()
    };
    assert!(matches!(
        err(&bad_src1),
        AscendError::TypeMismatch {
            instr: N,
            param: "src1",
            ..
        }
    ));
    let bad_off = Bilinear {
        src0_offset: ub("src0Offset", ElemType::I32, 8192, 32),
        ..base()
    };
    assert!(matches!(
        err(&bad_off),
        AscendError::IllegalType {
            instr: N,
            param: "src0Offset",
            dtype: ElemType::I32,
            ..
        }
    ));
    // Ranges.
    for (param, value, b) in [
        (
            "hRepeat",
            0,
            Bilinear {
                h_repeat: 0,
                ..base()
            },
        ),
        (
            "hRepeat",
            256,
            Bilinear {
                h_repeat: 256,
                ..base()
            },
        ),
        (
            "vRepeat",
            0,
            Bilinear {
                v_repeat: 0,
                ..base()
            },
        ),
        (
            "vRepeat",
            256,
            Bilinear {
                v_repeat: 256,
                ..base()
            },
        ),
        (
            "vROffset",
            112,
            Bilinear {
                v_r_offset: 112,
                ..base()
            },
        ),
        (
            "vROffset",
            65535,
            Bilinear {
                v_r_offset: 65535,
                ..base()
            },
        ),
        (
            "dstBlkStride",
            65536,
            Bilinear {
                dst_blk_stride: 65536,
                ..base()
            },
        ),
    ] {
        let e = err(&b);
        assert!(
            matches!(e, AscendError::OutOfRange { instr: N, param: p, value: v, .. } if p == param && v == value),
            "{e}"
        );
    }
    // vROffset·sizeof(T) on the 32-byte grid.
    let e = err(&Bilinear {
        v_r_offset: 136,
        ..base()
    });
    assert!(
        matches!(&e, AscendError::Rule { instr: N, param: "vROffset", value, .. } if value == "136"),
        "{e}"
    );
    // Masks.
    for m in [
        MaskArg::Count(0),
        MaskArg::Count(129),
        MaskArg::Bits { lo: 0, hi: 0 },
    ] {
        let e = err(&Bilinear { mask: m, ..base() });
        assert!(matches!(e, AscendError::BadMask { instr: N, .. }), "{e}");
    }
    // Scope and alignment.
    let gm = Bilinear {
        src1: Operand {
            space: npusim_core::MemSpace::Gm,
            ..ub("src1", ElemType::F16, 12288, 16)
        },
        ..base()
    };
    assert!(matches!(
        err(&gm),
        AscendError::WrongScope {
            instr: N,
            param: "src1",
            ..
        }
    ));
    let odd = Bilinear {
        src1: ub("src1", ElemType::F16, 12288 + 16, 16),
        ..base()
    };
    assert!(matches!(
        err(&odd),
        AscendError::Misaligned {
            instr: N,
            param: "src1",
            align: 32,
            ..
        }
    ));
    // Bounds: src0Offset, src1 (repeatMode true reads 8 per iteration), dst.
    let short_off = Bilinear {
        src0_offset: ub("src0Offset", ElemType::U32, 8192, 24),
        ..base()
    };
    assert!(matches!(
        err(&short_off),
        AscendError::TensorOverflow {
            instr: N,
            param: "src0Offset",
            ..
        }
    ));
    let e = err(&Bilinear {
        repeat_mode: true,
        ..base()
    });
    assert!(
        matches!(
            e,
            AscendError::TensorOverflow {
                instr: N,
                param: "src1",
                ..
            }
        ),
        "{e}"
    );
    let e = err(&Bilinear {
        v_r_offset: 144,
        ..base()
    });
    assert!(
        matches!(
            e,
            AscendError::TensorOverflow {
                instr: N,
                param: "dst",
                ..
            }
        ),
        "{e}"
    );
    // Offsets: off the 32-byte grid, and past src0.
    for (k, bad) in [(5usize, 48u32), (31, 1024)] {
        let mut offs: Vec<u32> = (0..32).map(|k| 32 * k).collect();
        offs[k] = bad;
        let e = refused(ChipId::Ascend910B, &offs, |c| {
            bilinear_interpolation(c, N, &base())
        });
        let want = format!("src0Offset[{k}] = {bad}");
        assert!(
            matches!(&e, AscendError::Rule { instr: N, param: "src0Offset", value, .. } if *value == want),
            "{e}"
        );
    }
    // Overlap: src0 / src1 / src0Offset.
    let e = err(&Bilinear {
        src1: ub("src1", ElemType::F16, 4096 + 992, 16),
        ..base()
    });
    assert!(
        matches!(
            e,
            AscendError::IllegalOverlap {
                instr: N,
                dst: "src0",
                src: "src1",
                ..
            }
        ),
        "{e}"
    );
    let e = err(&Bilinear {
        src1: ub("src1", ElemType::F16, 8192 + 64, 16),
        ..base()
    });
    assert!(
        matches!(
            e,
            AscendError::IllegalOverlap {
                instr: N,
                dst: "src1",
                src: "src0Offset",
                ..
            }
        ),
        "{e}"
    );
    // Two vertical repeats' dst overlap: dstBlkStride 2 spans 15 blocks (240 halves) > 128.
    let e = err(&Bilinear {
        dst: ub("dst", ElemType::F16, 0, 1024),
        dst_blk_stride: 2,
        ..base()
    });
    assert!(
        matches!(
            e,
            AscendError::Rule {
                instr: N,
                param: "vROffset",
                ..
            }
        ),
        "{e}"
    );
    // sharedTmpBuffer: type, size, overlap.
    let e = err(&Bilinear {
        tmp: Some(ub("tmp", ElemType::F16, 16384, 8448)),
        ..base()
    });
    assert!(
        matches!(
            e,
            AscendError::IllegalType {
                instr: N,
                param: "sharedTmpBuffer",
                ..
            }
        ),
        "{e}"
    );
    let e = err(&Bilinear {
        tmp: Some(ub_bytes(
            "tmp",
            ElemType::U8,
            16384,
            512 * 32 + 16 * 32 - 32,
        )),
        ..base()
    });
    assert!(
        matches!(&e, AscendError::Rule { instr: N, param: "sharedTmpBuffer", value, .. } if value == "16864 bytes"),
        "{e}"
    );
    let e = err(&Bilinear {
        tmp: Some(ub_bytes("tmp", ElemType::U8, 12288, 512 * 32 + 16 * 32)),
        ..base()
    });
    assert!(
        matches!(
            e,
            AscendError::IllegalOverlap {
                instr: N,
                dst: "sharedTmpBuffer",
                src: "src1",
                ..
            }
        ),
        "{e}"
    );
    // Messages name instruction, parameter, rule and value.
    let msg = err(&Bilinear {
        v_r_offset: 136,
        ..base()
    })
    .to_string();
    assert!(
        msg.contains(N) && msg.contains("vROffset") && msg.contains("136") && msg.contains("32"),
        "{msg}"
    );
}
