//! TSTORE_FP (pto-isa `docs/isa/TSTORE_FP.md`): an Acc tile stored through the fixpipe with a
//! Scaling tile of per-column quant words, against a model written here: `out(i, j) =
//! narrow(relu?(acc(i, j)) * m1_j)` with `m1_j` bits 31:13 of word j as a (1, 8, 10) float (the
//! single without its low 13 bits, asc-devkit `随路量化.md`), the int8 modes rounding half to
//! even within [-256, 255] (NaN to 0), adding the offset of bits 45:37 and saturating to int8
//! when bit 46 is set, else to uint8; f16 by round-to-nearest.
//! The Acc tile is written here in its Nz layout (16x16 boxes, boxes down the columns).

use npusim_pto::*;
use proptest::prelude::*;

/// The fixpipe's half / bfloat16 output in its saturating mode (CTRL[48] = 0, the reset value;
/// asc-devkit `SetCtrlSpr(ISASI).md` and the Fixpipe pages): the value clipped to the type's
/// largest finite value, then rounded to nearest even; NaN gives 0.
fn sat_half(x: f32) -> u64 {
    if x.is_nan() {
        0
    } else {
        half::f16::from_f32(x.clamp(-65504.0, 65504.0)).to_bits() as u64
    }
}

/// Nz element offset of (r, c) in a rows x cols f32 Acc tile (16x16 boxes).
fn nz(r: usize, c: usize, rows: usize) -> usize {
    (c / 16) * rows * 16 + (r / 16) * 256 + (r % 16) * 16 + c % 16
}

fn b8_model(x: f32, word: u64) -> u8 {
    let q = if x.is_nan() {
        0
    } else {
        x.clamp(-256.0, 255.0).round_ties_even() as i32
    };
    let v = q + ((word >> 37) & 0x1ff) as i32;
    if (word >> 46) & 1 == 1 {
        v.clamp(-128, 127) as i8 as u8
    } else {
        v.clamp(0, 255) as u8
    }
}

/// Word j: the scale's single, junk in bits 48..63, bit 46 on odd columns, an offset on every
/// third column.
fn word_of(j: usize, scale: f32) -> u64 {
    let offset = if j.is_multiple_of(3) {
        (j as u64 * 37) & 0x1ff
    } else {
        0
    };
    0xdead_0000_0000_0000 | (j as u64 % 2) << 46 | offset << 37 | scale.to_bits() as u64
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]
    #[test]
    fn store_fp_matches_the_model(
        to_half in any::<bool>(),
        relu in any::<bool>(),
        vr in 1usize..=32,
        vc_blocks in 1usize..=2,
        vals in prop::collection::vec(prop_oneof![
            8 => -500.0f32..500.0,
            1 => Just(f32::NAN),
            1 => Just(-0.0f32),
            1 => Just(f32::INFINITY),
            1 => Just(f32::NEG_INFINITY),
            1 => Just(1.0e-40f32),
            1 => Just(-3.0e38f32),
        ], 32 * 32),
        scales in prop::collection::vec(0.01f32..2.0, 32),
        arch in prop::sample::select(vec!["a2a3", "a5"]),
    ) {
        let (rows, cols, vc) = (32, 32, vc_blocks * 16);
        let mut c = TileCore::by_name(arch).unwrap();
        let acc = c
            .alloc(TileDesc::new(TileLoc::Acc, ElemType::F32, rows, cols)
                .layout(BLayout::ColMajor, SLayout::RowMajor).fractal(1024).valid(vr, vc))
            .unwrap();
        let mut raw = vec![0u8; rows * cols * 4];
        for r in 0..rows {
            for k in 0..cols {
                let o = nz(r, k, rows) * 4;
                raw[o..o + 4].copy_from_slice(&vals[r * cols + k].to_le_bytes());
            }
        }
        c.mem_mut(TileLoc::Acc)[..raw.len()].copy_from_slice(&raw);
        let fp = c.alloc(TileDesc::new(TileLoc::Scaling, ElemType::U64, 1, 32)).unwrap();
        for (j, s) in scales.iter().enumerate() {
            c.set_bits(&fp, 0, j, word_of(j, *s)).unwrap();
        }
        // float -> half with fp words is an A5 pair only (A2A3's CheckAcc2gm: int8/uint8).
        let out_t = if to_half && arch == "a5" { ElemType::F16 } else { ElemType::I8 };
        let gm = c.gm_bind(&vec![0u8; vr * vc * out_t.size()]);
        let g = GlobalTensor::nd_2d_strided(gm, out_t, vr, vc, vc);
        c.exec(&TileOp { op: OpCode::TstoreFp, args: Args::StoreFp { dst: g, src: acc, fp, relu } }).unwrap();
        let got = c.gm().bytes(gm, (vr * vc * out_t.size()) as u64).unwrap().to_vec();
        for i in 0..vr {
            for j in 0..vc {
                let mut x = vals[i * cols + j];
                if relu && x < 0.0 {
                    x = 0.0;
                }
                let w = word_of(j, scales[j]);
                let m = x * f32::from_bits(w as u32 & 0xffff_e000);
                let k = i * vc + j;
                if out_t == ElemType::F16 {
                    let want = sat_half(m);
                    let g = u16::from_le_bytes([got[2 * k], got[2 * k + 1]]) as u64;
                    prop_assert_eq!(g, want, "({}, {}): {:#x} vs {:#x}", i, j, g, want);
                } else {
                    prop_assert_eq!(got[k], b8_model(m, w), "({}, {})", i, j);
                }
            }
        }
    }
}

#[test]
fn store_fp_restrictions() {
    let mut c = TileCore::by_name("a2a3").unwrap();
    let says = |e: PtoError, parts: &[&str]| {
        let s = e.to_string();
        for p in parts {
            assert!(s.contains(p), "{s:?} does not name {p:?}");
        }
    };
    let fp = c
        .alloc(TileDesc::new(TileLoc::Scaling, ElemType::U64, 1, 16))
        .unwrap();
    let vec_src = c.alloc(TileDesc::vec(ElemType::F32, 16, 16)).unwrap();
    let gm = c.gm_bind(&[0u8; 256]);
    let g = GlobalTensor::nd_2d_strided(gm, ElemType::I8, 16, 16, 16);
    let e = c
        .exec(&TileOp {
            op: OpCode::TstoreFp,
            args: Args::StoreFp {
                dst: g,
                src: vec_src,
                fp,
                relu: false,
            },
        })
        .unwrap_err();
    says(e, &["TSTORE_FP", "src", "Acc"]);
    // Valid columns below the tensor's Shape4: the fixpipe gets validCol / Shape4 = 0 ND
    // matrices, a NOP on the hardware (Ascend C Fixpipe page; tests/mat_load_extent.rs):
    // nothing is written.
    let narrow = c
        .alloc(
            TileDesc::new(TileLoc::Acc, ElemType::F32, 16, 16)
                .layout(BLayout::ColMajor, SLayout::RowMajor)
                .fractal(1024)
                .valid(16, 8),
        )
        .unwrap();
    c.gm_mut().write(gm, &[0x5Au8; 256]).unwrap();
    c.exec(&TileOp {
        op: OpCode::TstoreFp,
        args: Args::StoreFp {
            dst: g,
            src: narrow,
            fp,
            relu: false,
        },
    })
    .unwrap();
    assert_eq!(c.gm().bytes(gm, 256).unwrap(), &[0x5Au8; 256][..]);
    // More valid columns than the tensor's (valid rows alone may differ under the hardware
    // policy `AccStoreRows::ValidRows`, see tests/mat_load_extent.rs): a typed error.
    let acc = c
        .alloc(
            TileDesc::new(TileLoc::Acc, ElemType::F32, 16, 16)
                .layout(BLayout::ColMajor, SLayout::RowMajor)
                .fractal(1024)
                .valid(16, 16),
        )
        .unwrap();
    let g8 = GlobalTensor::nd_2d_strided(gm, ElemType::I8, 16, 8, 8);
    let e = c
        .exec(&TileOp {
            op: OpCode::TstoreFp,
            args: Args::StoreFp {
                dst: g8,
                src: acc,
                fp,
                relu: false,
            },
        })
        .unwrap_err();
    says(
        e,
        &["TSTORE_FP", "must match the global shape", "valid 16x16"],
    );
}
