//! TSTORE_FP (pto-isa `docs/isa/TSTORE_FP.md`): an Acc tile stored through the fixpipe with a
//! Scaling tile of per-column quant words, against a model written here: `out(i, j) =
//! narrow(relu?(acc(i, j)) * scale_j)` with `scale_j` the low 32 bits of word j as an f32, and
//! int8 narrowing by round-half-even with saturation (NaN to 0), f16 by round-to-nearest.
//! The Acc tile is written here in its Nz layout (16x16 boxes, boxes down the columns).

use npusim_pto::*;
use proptest::prelude::*;

/// Nz element offset of (r, c) in a rows x cols f32 Acc tile (16x16 boxes).
fn nz(r: usize, c: usize, rows: usize) -> usize {
    (c / 16) * rows * 16 + (r / 16) * 256 + (r % 16) * 16 + c % 16
}

fn i8_model(x: f32) -> i8 {
    if x.is_nan() {
        0
    } else {
        x.round_ties_even().clamp(-128.0, 127.0) as i8
    }
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
            c.set_bits(&fp, 0, j, 0xdead_0000_0000_0000 | s.to_bits() as u64).unwrap();
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
                let m = x * scales[j];
                let k = i * vc + j;
                if out_t == ElemType::F16 {
                    let want = half::f16::from_f32(m).to_bits();
                    let g = u16::from_le_bytes([got[2 * k], got[2 * k + 1]]);
                    prop_assert!(g == want || (m.is_nan() && half::f16::from_bits(g).is_nan()), "({}, {}): {:#x} vs {:#x}", i, j, g, want);
                } else {
                    prop_assert_eq!(got[k] as i8, i8_model(m), "({}, {})", i, j);
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
