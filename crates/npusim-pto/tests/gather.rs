//! TGATHER (index and mask-pattern forms), TGATHERB and TSCATTER (pto-isa `docs/isa/TGATHER.md`,
//! `TGATHERB.md`, `TSCATTER.md`; PTOAS manual) against plain models written here, on both
//! archs, plus one test per restriction class. Out-of-range indices are typed errors and leave
//! dst untouched.

mod common;

use npusim_pto::ops::gather::MaskPattern;
use npusim_pto::*;
use proptest::prelude::*;

use ElemType::{F16, F32, I8, I16, I32, U8, U16, U32};

fn core(arch: &str) -> TileCore {
    TileCore::by_name(arch).unwrap()
}

/// Fills `t` (all rows and columns) with values of its type, five in eight special (±0, ±inf,
/// NaN, denormals, ±max, ±1: `common::special`), so the gathers must move their bits unchanged.
fn specials(c: &mut TileCore, t: &Tile, seed: u64) {
    let mut x = seed | 1;
    for r in 0..t.desc().rows {
        for j in 0..t.desc().cols {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let v = common::special(t.dtype(), x, (x >> 61) as u8);
            c.set_bits(t, r, j, v).unwrap();
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn tgather_index_reads_flat_src_elements(
        arch in prop::sample::select(vec!["a2a3", "a5"]),
        t in prop::sample::select(vec![F32, F16, I16, U32]),
        it in prop::sample::select(vec![I32, U32, I16]),
        srows in 1usize..5,
        drows in 1usize..5,
        seed in any::<u64>(),
        picks in prop::collection::vec(any::<prop::sample::Index>(), 4 * 64),
    ) {
        let it = if arch == "a2a3" && it == I16 { I32 } else { it };
        let mut c = core(arch);
        common::scramble(&mut c, 0x10000, seed);
        let scols = 64 / t.size() * 2;
        let dcols = 16;
        let src = c.alloc(TileDesc::vec(t, srows, scols).at(0)).unwrap();
        specials(&mut c, &src, seed);
        let idx = c.alloc(TileDesc::vec(it, drows, dcols).at(0x2000)).unwrap();
        let tmp = c.alloc(TileDesc::vec(it, drows, dcols).at(0x3000)).unwrap();
        let dst = c.alloc(TileDesc::vec(t, drows, dcols).at(0x4000)).unwrap();
        let n = srows * scols;
        let mut want = vec![];
        let s = common::all_bits(&c, &src);
        for r in 0..drows {
            let mut row = vec![];
            for j in 0..dcols {
                let k = picks[r * dcols + j].index(n.min(if it == I16 { 32767 } else { n }));
                c.set_bits(&idx, r, j, k as u64).unwrap();
                row.push(s[k / scols][k % scols]);
            }
            want.push(row);
        }
        c.tgather(&dst, &src, &idx, Some(&tmp)).unwrap();
        prop_assert_eq!(common::all_bits(&c, &dst), want);
    }

    #[test]
    fn tgather_mask_packs_the_selected_columns(
        arch in prop::sample::select(vec!["a2a3", "a5"]),
        t in prop::sample::select(vec![F32, F16, I16, U32, U8]),
        p in prop::sample::select(vec![
            MaskPattern::P0101, MaskPattern::P1010, MaskPattern::P0001, MaskPattern::P0010,
            MaskPattern::P0100, MaskPattern::P1000, MaskPattern::P1111,
        ]),
        rows in 1usize..5,
        vc_frac in 0.0f64..=1.0,
        seed in any::<u64>(),
    ) {
        let t = if arch == "a2a3" && t == U8 { I16 } else { t };
        let mut c = core(arch);
        common::scramble(&mut c, 0x10000, seed);
        let cols = 64 / t.size();
        let vc = ((cols as f64) * vc_frac) as usize;
        let src = c.alloc(TileDesc::vec(t, rows, cols).valid(rows, vc).at(0)).unwrap();
        specials(&mut c, &src, seed);
        let dst = c.alloc(TileDesc::vec(t, rows, cols).at(0x2000)).unwrap();
        let s = common::all_bits(&c, &src);
        let mut flat: Vec<u64> = common::all_bits(&c, &dst).concat();
        let keep = |j: usize| match p {
            MaskPattern::P0101 => j.is_multiple_of(2),
            MaskPattern::P1010 => j % 2 == 1,
            MaskPattern::P0001 => j.is_multiple_of(4),
            MaskPattern::P0010 => j % 4 == 1,
            MaskPattern::P0100 => j % 4 == 2,
            MaskPattern::P1000 => j % 4 == 3,
            MaskPattern::P1111 => true,
        };
        let mut k = 0;
        for row in s.iter().take(rows) {
            for (j, v) in row.iter().enumerate().take(vc) {
                if keep(j) {
                    flat[k] = *v;
                    k += 1;
                }
            }
        }
        c.tgather_mask(&dst, &src, p).unwrap();
        prop_assert_eq!(common::all_bits(&c, &dst).concat(), flat);
    }

    #[test]
    fn tgatherb_copies_32_byte_blocks(
        arch in prop::sample::select(vec!["a2a3", "a5"]),
        t in prop::sample::select(vec![F32, F16, I8]),
        rows in 1usize..4,
        blocks in 1usize..4,
        seed in any::<u64>(),
        offs in prop::collection::vec(0usize..(2048 - 32), 16),
    ) {
        let mut c = core(arch);
        common::scramble(&mut c, 0x10000, seed);
        let src = c.alloc(TileDesc::vec(U8, 8, 256).at(0)).unwrap();
        let cols = blocks * 32 / t.size();
        let dst = c.alloc(TileDesc::vec(t, rows, cols).at(0x1000)).unwrap();
        let off = c.alloc(TileDesc::vec(U32, rows, 8).at(0x2000)).unwrap();
        let bytes: Vec<u8> = common::all_bits(&c, &src).concat().iter().map(|b| *b as u8).collect();
        let mut want = vec![];
        for r in 0..rows {
            let mut row = vec![];
            for b in 0..blocks {
                let o = offs[r * 4 + b];
                c.set_bits(&off, r, b, o as u64).unwrap();
                row.extend_from_slice(&bytes[o..o + 32]);
            }
            want.push(row);
        }
        c.tgatherb(&dst, &src, &off).unwrap();
        let got = common::all_bits(&c, &dst);
        for r in 0..rows {
            let gb: Vec<u8> = got[r]
                .iter()
                .flat_map(|v| v.to_le_bytes()[..t.size()].to_vec())
                .collect();
            prop_assert_eq!(&gb, &want[r]);
        }
    }

    #[test]
    fn tscatter_writes_rows_by_index(
        arch in prop::sample::select(vec!["a2a3", "a5"]),
        t in prop::sample::select(vec![F32, I16, I8]),
        rows in 1usize..5,
        drows in 1usize..6,
        seed in any::<u64>(),
        picks in prop::collection::vec(any::<prop::sample::Index>(), 5 * 32),
    ) {
        let mut c = core(arch);
        common::scramble(&mut c, 0x10000, seed);
        let it = if t.size() == 4 { U32 } else { I16 };
        let cols = 32 / t.size();
        let src = c.alloc(TileDesc::vec(t, rows, cols).at(0)).unwrap();
        let idx = c.alloc(TileDesc::vec(it, rows, cols).at(0x1000)).unwrap();
        let dst = c.alloc(TileDesc::vec(t, drows, cols).at(0x2000)).unwrap();
        let s = common::all_bits(&c, &src);
        let mut want = vec![vec![0u64; cols]; drows];
        for i in 0..rows {
            for j in 0..cols {
                let r = picks[i * cols + j].index(drows);
                c.set_bits(&idx, i, j, r as u64).unwrap();
                want[r][j] = s[i][j];
            }
        }
        c.tscatter(&dst, &src, &idx).unwrap();
        prop_assert_eq!(common::all_bits(&c, &dst), want);
    }
}

// ---- restrictions ----

#[test]
fn out_of_range_indices_are_typed_errors_and_write_nothing() {
    for arch in ["a2a3", "a5"] {
        let mut c = core(arch);
        let src = c.alloc(TileDesc::vec(F32, 2, 8).at(0)).unwrap();
        let idx = c.alloc(TileDesc::vec(I32, 1, 8).at(0x100)).unwrap();
        let tmp = c.alloc(TileDesc::vec(I32, 1, 8).at(0x200)).unwrap();
        let dst = c.alloc(TileDesc::vec(F32, 1, 8).at(0x300)).unwrap();
        c.write_valid(&dst, &[7.0f32; 8]).unwrap();
        for bad in [16i32, -1, i32::MAX] {
            c.write_valid(&idx, &[0, 1, 2, bad, 4, 5, 6, 7]).unwrap();
            let e = c.tgather(&dst, &src, &idx, Some(&tmp)).unwrap_err();
            assert!(
                matches!(
                    e,
                    PtoError::Index {
                        operand: "idx",
                        row: 0,
                        col: 3,
                        ..
                    }
                ),
                "{e}"
            );
            assert_eq!(c.read_valid::<f32>(&dst).unwrap(), vec![7.0; 8]);
        }
        // TGATHERB: an offset whose 32 bytes pass src's 64 bytes
        let off = c.alloc(TileDesc::vec(U32, 1, 8).at(0x400)).unwrap();
        c.write_valid(&off, &[33u32]).unwrap();
        let e = c.tgatherb(&dst, &src, &off).unwrap_err();
        assert!(
            matches!(
                e,
                PtoError::Index {
                    operand: "offset",
                    ..
                }
            ),
            "{e}"
        );
        // TSCATTER: a row past dst
        let sidx = c.alloc(TileDesc::vec(U32, 1, 8).at(0x500)).unwrap();
        c.write_valid(&sidx, &[0u32, 0, 1, 0, 0, 0, 0, 0]).unwrap();
        let e = c.tscatter(&dst, &dst, &sidx).unwrap_err();
        assert!(
            matches!(
                e,
                PtoError::Index {
                    operand: "idx",
                    col: 2,
                    ..
                }
            ),
            "{e}"
        );
        assert_eq!(c.read_valid::<f32>(&dst).unwrap(), vec![7.0; 8]);
    }
}

#[test]
fn gather_family_rejects_types() {
    let mut c = core("a2a3");
    let s8 = c.alloc(TileDesc::vec(I8, 1, 32).at(0)).unwrap();
    let idx = c.alloc(TileDesc::vec(I32, 1, 32).at(0x100)).unwrap();
    let e = c.tgather(&s8, &s8, &idx, Some(&idx)).unwrap_err();
    assert!(
        matches!(e, PtoError::IllegalType { operand: "dst", .. }),
        "{e}"
    );
    let f = c.alloc(TileDesc::vec(F32, 1, 32).at(0x200)).unwrap();
    let i16x = c.alloc(TileDesc::vec(I16, 1, 32).at(0x300)).unwrap();
    // a2a3 index tiles are 4-byte
    let e = c.tgather(&f, &f, &i16x, Some(&i16x)).unwrap_err();
    assert!(
        matches!(e, PtoError::IllegalType { operand: "idx", .. }),
        "{e}"
    );
    // a5 takes them
    let mut c5 = core("a5");
    c5.tgather(&f, &f, &i16x, None).unwrap();
    // dst and src types
    let h = c.alloc(TileDesc::vec(F16, 1, 32).at(0x400)).unwrap();
    let e = c.tgather(&f, &h, &idx, Some(&idx)).unwrap_err();
    assert!(matches!(e, PtoError::TypeMismatch { .. }), "{e}");
    // TSCATTER: index width follows the data width
    let e = c.tscatter(&f, &f, &i16x).unwrap_err();
    assert!(
        matches!(e, PtoError::IllegalType { operand: "idx", .. }),
        "{e}"
    );
    // TGATHERB offsets are 32-bit
    let e = c.tgatherb(&f, &f, &i16x).unwrap_err();
    assert!(
        matches!(
            e,
            PtoError::IllegalType {
                operand: "offset",
                ..
            }
        ),
        "{e}"
    );
    // the mask form: 1-byte elements only on a5
    let u = c.alloc(TileDesc::vec(U8, 1, 32).at(0x500)).unwrap();
    assert!(c.tgather_mask(&u, &u, MaskPattern::P0101).is_err());
    c5.tgather_mask(&u, &u, MaskPattern::P0101).unwrap();
    let _ = U16;
}

#[test]
fn gather_family_rejects_shapes_and_operands() {
    let mut c = core("a2a3");
    let src = c.alloc(TileDesc::vec(F32, 2, 16).at(0)).unwrap();
    let idx = c.alloc(TileDesc::vec(I32, 2, 16).at(0x200)).unwrap();
    let dst = c.alloc(TileDesc::vec(F32, 2, 16).at(0x400)).unwrap();
    // a2a3 needs tmp, shaped as idx's valid region
    let e = c.tgather(&dst, &src, &idx, None).unwrap_err();
    assert!(matches!(e, PtoError::Operands { .. }), "{e}");
    let tmp = c.alloc(TileDesc::vec(I32, 1, 16).at(0x600)).unwrap();
    let e = c.tgather(&dst, &src, &idx, Some(&tmp)).unwrap_err();
    assert!(
        matches!(e, PtoError::ValidRegion { operand: "tmp", .. }),
        "{e}"
    );
    // dst must be contiguous (valid columns = columns)
    let part = dst.with_valid(2, 8).unwrap();
    let e = c.tgather(&part, &src, &idx, Some(&idx)).unwrap_err();
    assert!(
        matches!(e, PtoError::ValidRegion { operand: "dst", .. }),
        "{e}"
    );
    let e = c.tgather_mask(&part, &src, MaskPattern::P1111).unwrap_err();
    assert!(
        matches!(e, PtoError::ValidRegion { operand: "dst", .. }),
        "{e}"
    );
    // the mask form needs room for the selected elements
    let one = c.alloc(TileDesc::vec(F32, 1, 8).at(0x800)).unwrap();
    let e = c.tgather_mask(&one, &src, MaskPattern::P1111).unwrap_err();
    assert!(
        matches!(e, PtoError::ValidRegion { operand: "dst", .. }),
        "{e}"
    );
    c.tgather_mask(&one, &src, MaskPattern::P0001).unwrap();
    // TGATHERB: dst's valid columns fill whole 32-byte blocks
    let odd = c
        .alloc(TileDesc::vec(F32, 1, 16).valid(1, 12).at(0xa00))
        .unwrap();
    let off = c.alloc(TileDesc::vec(U32, 1, 8).at(0xc00)).unwrap();
    let e = c.tgatherb(&odd, &src, &off).unwrap_err();
    assert!(
        matches!(e, PtoError::ValidRegion { operand: "dst", .. }),
        "{e}"
    );
    // layout and location
    let cm = c
        .alloc(
            TileDesc::vec(F32, 16, 2)
                .layout(BLayout::ColMajor, SLayout::NoneBox)
                .at(0xe00),
        )
        .unwrap();
    let e = c.tscatter(&cm, &src, &idx).unwrap_err();
    assert!(matches!(e, PtoError::Static { operand: "dst", .. }), "{e}");
    let mat = c
        .alloc(TileDesc::new(TileLoc::Mat, F32, 2, 16).at(0))
        .unwrap();
    let e = c.tgatherb(&dst, &mat, &off).unwrap_err();
    assert!(matches!(e, PtoError::Static { operand: "src", .. }), "{e}");
    // exec: the forms each class takes
    let e = c
        .exec(&TileOp {
            op: OpCode::Tscatter,
            args: Args::Binary {
                dst,
                src0: src,
                src1: idx,
            },
        })
        .unwrap_err();
    assert!(matches!(e, PtoError::Operands { .. }), "{e}");
    c.write_valid(&idx, &[0i32; 32]).unwrap();
    c.exec(&TileOp {
        op: OpCode::Tgather,
        args: Args::Indexed {
            dst,
            src,
            idx,
            tmp: Some(idx),
        },
    })
    .unwrap();
    c.exec(&TileOp {
        op: OpCode::Tgather,
        args: Args::GatherMask {
            dst: one,
            src,
            pattern: MaskPattern::P0001,
        },
    })
    .unwrap();
}

#[test]
fn mask_pattern_names() {
    assert_eq!(
        MaskPattern::parse("#pto.mask_pattern<P0101>"),
        Some(MaskPattern::P0101)
    );
    assert_eq!(MaskPattern::parse("p1000"), Some(MaskPattern::P1000));
    assert_eq!(MaskPattern::parse("P2222"), None);
}
