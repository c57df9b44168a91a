//! The quantised Acc conversions (TMOV / TMOV_FP with preQuantScalar or an fp tile, TSTORE_FP)
//! against pto-isa's lists, written out here from its NPU code: A2A3 `CheckTMovAccToMat<..,
//! false>` and `CheckAcc2gm<.., true>` (float -> int8/uint8, int32 -> int8/uint8/half, moves also
//! int32 -> int16), A5 `CheckTMovAccValid<.., true>` (float -> int8/uint8/hifloat8/half/
//! bfloat16/float8_e4m3/float, int32 -> int8/uint8/half/bfloat16) and the same list for the A5
//! store (`docs/isa/TSTORE.md`); A5's `GetScalarPreQuantMode` / `GetVectorPreQuantMode` give
//! NoQuant for float -> float at the moves (the scale is ignored) while the store's `..Gm`
//! variants give QF322F32_PRE / VQF322F32_PRE (applied). Every listed pair runs (the uint8,
//! int16, hifloat8 and float8_e4m3 outputs too since session 16; their values are checked in
//! `fixpipe_word.rs`); everything else is a typed `Static` error. Also the FPC rule: the fp
//! tile's address is a multiple of 128 bytes.

use npusim_pto::ops::movement::MovMode;
use npusim_pto::*;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Want {
    Applied,
    Ignored,
    Illegal,
}

fn want(a5: bool, store: bool, s: ElemType, d: ElemType) -> Want {
    use ElemType::*;
    use Want::*;
    let legal: &[ElemType] = match (a5, s, store) {
        (false, F32, _) => &[I8, U8],
        (false, I32, false) => &[I8, U8, F16, I16],
        (false, I32, true) => &[I8, U8, F16],
        (true, F32, _) => &[I8, U8, HiF8, F16, Bf16, F8E4M3FN, F32],
        (true, I32, _) => &[I8, U8, F16, Bf16],
        _ => &[],
    };
    if !legal.contains(&d) {
        Illegal
    } else if a5 && !store && s == F32 && d == F32 {
        Ignored
    } else {
        Applied
    }
}

const OUTS: [ElemType; 10] = [
    ElemType::F32,
    ElemType::F16,
    ElemType::Bf16,
    ElemType::I8,
    ElemType::U8,
    ElemType::I16,
    ElemType::I32,
    ElemType::HiF8,
    ElemType::F8E4M3FN,
    ElemType::F8E5M2,
];

fn nz(loc: TileLoc, t: ElemType, rows: usize, cols: usize) -> TileDesc {
    TileDesc::new(loc, t, rows, cols)
        .layout(BLayout::ColMajor, SLayout::RowMajor)
        .fractal(if loc == TileLoc::Acc { 1024 } else { 512 })
}

fn classify(r: Result<(), PtoError>) -> Want {
    match r {
        Ok(()) => Want::Applied, // Applied or Ignored: told apart by the value test below
        Err(e @ PtoError::Static { .. }) if e.to_string().contains("quantised Acc") => {
            Want::Illegal
        }
        Err(e) => panic!("unexpected error {e}"),
    }
}

fn norm(w: Want) -> Want {
    if w == Want::Ignored { Want::Applied } else { w }
}

#[test]
fn quant_pairs_follow_pto_isa_lists() {
    let mut checked = 0;
    for a5 in [false, true] {
        for s in [ElemType::F32, ElemType::I32] {
            for d in OUTS {
                // Moves: Acc -> Mat Nz with a scalar and with fp words.
                for with_fp in [false, true] {
                    let mut c = TileCore::by_name(if a5 { "a5" } else { "a2a3" }).unwrap();
                    let acc = c.alloc(nz(TileLoc::Acc, s, 16, 32).at(0)).unwrap();
                    let dst = c.alloc(nz(TileLoc::Mat, d, 16, 32).at(0)).unwrap();
                    let fp = c
                        .alloc(TileDesc::new(TileLoc::Scaling, ElemType::U64, 1, 32).at(0))
                        .unwrap();
                    let mode = MovMode {
                        relu: false,
                        scalar: (!with_fp).then_some(2.0f32.to_bits() as u64),
                        fp: with_fp.then_some(&fp),
                    };
                    let got = classify(c.tmov(&dst, &acc, mode));
                    assert_eq!(
                        got,
                        norm(want(a5, false, s, d)),
                        "TMOV a5={a5} fp={with_fp} {s:?} -> {d:?}"
                    );
                    checked += 1;
                }
                // Store: TSTORE_FP into an ND tensor of d.
                let mut c = TileCore::by_name(if a5 { "a5" } else { "a2a3" }).unwrap();
                let acc = c.alloc(nz(TileLoc::Acc, s, 16, 32).at(0)).unwrap();
                let fp = c
                    .alloc(TileDesc::new(TileLoc::Scaling, ElemType::U64, 1, 32).at(0))
                    .unwrap();
                let gm = c.gm_bind(&vec![0u8; 16 * 32 * d.size()]);
                let g = GlobalTensor::nd_2d_strided(gm, d, 16, 32, 32);
                let r = c.exec(&TileOp {
                    op: OpCode::TstoreFp,
                    args: Args::StoreFp {
                        dst: g,
                        src: acc,
                        fp,
                        relu: false,
                    },
                });
                assert_eq!(
                    classify(r),
                    norm(want(a5, true, s, d)),
                    "TSTORE_FP a5={a5} {s:?} -> {d:?}"
                );
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 2 * 2 * 10 * 3);
}

/// A5 float -> float: the moves ignore the scale (NoQuant), the store applies it.
#[test]
fn a5_float_to_float_ignores_the_scale_at_the_moves_only() {
    let vals: Vec<f32> = (0..16 * 32)
        .map(|i| (i as f32 - 200.0) * 0.37 + 1.0e-41)
        .collect();
    let setup = |c: &mut TileCore| {
        let acc = c
            .alloc(nz(TileLoc::Acc, ElemType::F32, 16, 32).at(0))
            .unwrap();
        c.write_valid(&acc, &vals).unwrap();
        let fp = c
            .alloc(TileDesc::new(TileLoc::Scaling, ElemType::U64, 1, 32).at(0))
            .unwrap();
        let words = vec![0.5f32.to_bits() as u64; 32];
        c.write_valid(&fp, &words).unwrap();
        (acc, fp)
    };
    for with_fp in [false, true] {
        let mut c = TileCore::by_name("a5").unwrap();
        let (acc, fp) = setup(&mut c);
        let dst = c
            .alloc(nz(TileLoc::Mat, ElemType::F32, 16, 32).at(0))
            .unwrap();
        let mode = MovMode {
            relu: false,
            scalar: (!with_fp).then_some(0.5f32.to_bits() as u64),
            fp: with_fp.then_some(&fp),
        };
        c.tmov(&dst, &acc, mode).unwrap();
        let got: Vec<f32> = c.read_valid(&dst).unwrap();
        assert!(
            got.iter()
                .zip(&vals)
                .all(|(g, v)| g.to_bits() == v.to_bits()),
            "fp={with_fp}: the move must ignore the scale"
        );
    }
    let mut c = TileCore::by_name("a5").unwrap();
    let (acc, fp) = setup(&mut c);
    let gm = c.gm_bind(&vec![0u8; 16 * 32 * 4]);
    let g = GlobalTensor::nd_2d_strided(gm, ElemType::F32, 16, 32, 32);
    c.exec(&TileOp {
        op: OpCode::TstoreFp,
        args: Args::StoreFp {
            dst: g,
            src: acc,
            fp,
            relu: false,
        },
    })
    .unwrap();
    let bytes = c.gm().bytes(gm, 16 * 32 * 4).unwrap().to_vec();
    for (k, v) in vals.iter().enumerate() {
        let g = f32::from_le_bytes(bytes[4 * k..4 * k + 4].try_into().unwrap());
        assert_eq!(g.to_bits(), (v * 0.5).to_bits(), "store element {k}");
    }
}

/// FPC holds the words' address in 128-byte units: TMOV_FP and TSTORE_FP refuse an fp tile
/// at an address that is not a multiple of 128 bytes, and accept one that is.
#[test]
fn fp_words_need_a_128_byte_address() {
    for arch in ["a2a3", "a5"] {
        for addr in [64u64, 128, 160, 256] {
            let mut c = TileCore::by_name(arch).unwrap();
            let acc = c
                .alloc(nz(TileLoc::Acc, ElemType::F32, 16, 32).at(0))
                .unwrap();
            let dst = c
                .alloc(nz(TileLoc::Mat, ElemType::I8, 16, 32).at(0))
                .unwrap();
            let fp = c
                .alloc(TileDesc::new(TileLoc::Scaling, ElemType::U64, 1, 32).at(addr))
                .unwrap();
            let r = c.tmov(
                &dst,
                &acc,
                MovMode {
                    fp: Some(&fp),
                    ..MovMode::default()
                },
            );
            let gm = c.gm_bind(&[0u8; 16 * 32]);
            let g = GlobalTensor::nd_2d_strided(gm, ElemType::I8, 16, 32, 32);
            let s = c.exec(&TileOp {
                op: OpCode::TstoreFp,
                args: Args::StoreFp {
                    dst: g,
                    src: acc,
                    fp,
                    relu: false,
                },
            });
            for (name, r) in [("TMOV", r), ("TSTORE_FP", s)] {
                if addr % 128 == 0 {
                    assert!(r.is_ok(), "{arch} {name} at {addr}: {r:?}");
                } else {
                    let e = r.unwrap_err().to_string();
                    assert!(
                        e.contains("multiple of 128 bytes") && e.contains(&format!("{addr:#x}")),
                        "{arch} {name} at {addr}: {e}"
                    );
                }
            }
        }
    }
}
