//! TQUANT (INT8 forms) and TDEQUANT (pto-isa `docs/isa/TQUANT.md`, `docs/isa/TDEQUANT.md`)
//! against plain models written here from the pages' formulas: dequantisation is
//! `(f32(q) - offset_r) * scale_r`; quantisation is `clamp(round_half_even(x * scale_r
//! [+ offset_r]))` into i8 / u8, NaN to 0. Parameters are per row: element `(r, 0)` of a
//! col-major parameter tile; of a row-major one, for TQUANT the vector unit's block broadcast
//! (row `r`, column `c` reads flat element `8 r + c mod 8` of the tile, as PTOAS's Quant
//! goldens model it), for TDEQUANT the row's first element `(r, 0)` (its scalar form, as
//! PTOAS's Dequant goldens model it). Plus one test per restriction.

use npusim_pto::ops::quant::QuantKind;
use npusim_pto::*;
use proptest::prelude::*;

fn core() -> TileCore {
    TileCore::by_name("a2a3").unwrap()
}

fn put_f32(c: &mut TileCore, t: &Tile, vals: &[f32], cols: usize) {
    for (k, v) in vals.iter().enumerate() {
        c.set_bits(t, k / cols, k % cols, v.to_bits() as u64)
            .unwrap();
    }
}

fn special_f32() -> impl Strategy<Value = f32> {
    prop_oneof![
        6 => -300.0f32..300.0,
        1 => prop::sample::select(vec![0.0f32, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, 127.5, -128.5, 255.5, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 1e-40, 3e9]),
    ]
}

fn quant_model(m: f32, unsigned: bool) -> u8 {
    if m.is_nan() {
        return 0;
    }
    let r = m.round_ties_even();
    if unsigned {
        r.clamp(0.0, 255.0) as u8
    } else {
        r.clamp(-128.0, 127.0) as i8 as u8
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn dequant_matches_the_formula(
        arch in prop::sample::select(vec!["a2a3", "a5"]),
        wide in any::<bool>(),
        rows in 1usize..5,
        blocks in 1usize..3,
        codes in prop::collection::vec(any::<i16>(), 4 * 64),
        scale in prop::collection::vec(special_f32(), 32),
        offset in prop::collection::vec(special_f32(), 32),
        col_major_params in any::<bool>(),
    ) {
        let (st, size) = if wide { (ElemType::I16, 2) } else { (ElemType::I8, 1) };
        let cols = blocks * 32 / size;
        let mut c = TileCore::by_name(arch).unwrap();
        let src = c.alloc(TileDesc::vec(st, rows, cols).at(0)).unwrap();
        let dst = c.alloc(TileDesc::vec(ElemType::F32, rows, cols).at(0x1000)).unwrap();
        let param = |addr: u64| {
            if col_major_params {
                TileDesc::vec(ElemType::F32, 8, 1).layout(BLayout::ColMajor, SLayout::NoneBox).valid(rows, 1).at(addr)
            } else {
                TileDesc::vec(ElemType::F32, rows, 8).at(addr)
            }
        };
        let (s_t, o_t) = (c.alloc(param(0x2000)).unwrap(), c.alloc(param(0x2400)).unwrap());
        let q: Vec<i64> = (0..rows * cols).map(|k| if wide { codes[k] as i64 } else { (codes[k] as i8) as i64 }).collect();
        for (k, v) in q.iter().enumerate() {
            c.set_bits(&src, k / cols, k % cols, (*v as u64) & if wide { 0xffff } else { 0xff }).unwrap();
        }
        // Col-major: (r, 0) = element 8 r of the list; row-major: the whole row r, of which
        // TDEQUANT reads (r, 0) only (the other seven values must not show).
        for r in 0..rows {
            for j in 0..if col_major_params { 1 } else { 8 } {
                c.set_bits(&s_t, r, j, scale[8 * r + j].to_bits() as u64).unwrap();
                c.set_bits(&o_t, r, j, offset[8 * r + j].to_bits() as u64).unwrap();
            }
        }
        c.exec(&TileOp { op: OpCode::Tdequant, args: Args::Ternary { dst, src0: src, src1: s_t, src2: o_t } }).unwrap();
        for r in 0..rows {
            for k in 0..cols {
                let j = 8 * r;
                let want = (q[r * cols + k] as f32 - offset[j]) * scale[j];
                let got = f32::from_bits(c.get_bits(&dst, r, k).unwrap() as u32);
                prop_assert!(got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()), "({}, {}): {} vs {}", r, k, got, want);
            }
        }
    }

    #[test]
    fn quant_matches_the_formula(
        arch in prop::sample::select(vec!["a2a3", "a5"]),
        asym in any::<bool>(),
        rows in 1usize..5,
        blocks in 1usize..3,
        xs in prop::collection::vec(special_f32(), 4 * 64),
        scale in prop::collection::vec(special_f32(), 32),
        offset in prop::collection::vec(-200.0f32..200.0, 32),
    ) {
        let cols = blocks * 32;
        let mut c = TileCore::by_name(arch).unwrap();
        let src = c.alloc(TileDesc::vec(ElemType::F32, rows, cols).at(0)).unwrap();
        let out_t = if asym { ElemType::U8 } else { ElemType::I8 };
        let dst = c.alloc(TileDesc::vec(out_t, rows, cols).at(0x2000)).unwrap();
        let s_t = c.alloc(TileDesc::vec(ElemType::F32, rows, 8).at(0x3000)).unwrap();
        let o_t = c.alloc(TileDesc::vec(ElemType::F32, rows, 8).at(0x3400)).unwrap();
        put_f32(&mut c, &src, &xs[..rows * cols], cols);
        for r in 0..rows {
            for j in 0..8 {
                c.set_bits(&s_t, r, j, scale[8 * r + j].to_bits() as u64).unwrap();
                c.set_bits(&o_t, r, j, offset[8 * r + j].to_bits() as u64).unwrap();
            }
        }
        let kind = if asym { QuantKind::Int8Asym } else { QuantKind::Int8Sym };
        let offset_tile = asym.then_some(o_t);
        c.exec(&TileOp { op: OpCode::Tquant, args: Args::Quant { dst, src, scale: s_t, offset: offset_tile, kind } }).unwrap();
        for r in 0..rows {
            for k in 0..cols {
                let j = 8 * r + k % 8;
                let mut m = xs[r * cols + k] * scale[j];
                if asym {
                    m += offset[j];
                }
                let want = quant_model(m, asym);
                prop_assert_eq!(c.get_bits(&dst, r, k).unwrap() as u8, want, "({}, {}) m = {}", r, k, m);
            }
        }
    }
}

#[test]
fn quant_restrictions() {
    let mut c = core();
    let says = |e: PtoError, parts: &[&str]| {
        let s = e.to_string();
        for p in parts {
            assert!(s.contains(p), "{s:?} does not name {p:?}");
        }
    };
    let x = c.alloc(TileDesc::vec(ElemType::F32, 4, 32).at(0)).unwrap();
    let q8 = c
        .alloc(TileDesc::vec(ElemType::I8, 4, 32).at(0x1000))
        .unwrap();
    let u8t = c
        .alloc(TileDesc::vec(ElemType::U8, 4, 32).at(0x1400))
        .unwrap();
    let p = c
        .alloc(TileDesc::vec(ElemType::F32, 4, 8).at(0x2000))
        .unwrap();
    let wide = c
        .alloc(TileDesc::vec(ElemType::F32, 4, 32).at(0x3000))
        .unwrap();
    let short = c
        .alloc(TileDesc::vec(ElemType::F32, 4, 8).valid(3, 8).at(0x2400))
        .unwrap();
    let quant = |c: &mut TileCore, dst, src, scale, offset, kind| {
        c.exec(&TileOp {
            op: OpCode::Tquant,
            args: Args::Quant {
                dst,
                src,
                scale,
                offset,
                kind,
            },
        })
        .unwrap_err()
    };
    // Under the pages' rule (a `_DEBUG` library build), the PTOAS samples' full scale tile and
    // a short one are refused; the hardware default reads their blocks (test below).
    let hw = c.policy();
    c.set_policy(TilePolicy {
        row_params: RowParamRule::Documented,
        ..hw
    });
    says(
        quant(&mut c, q8, x, wide, None, QuantKind::Int8Sym),
        &["TQUANT", "scale", "per-row parameter", "4x32 for 4 rows"],
    );
    says(
        quant(&mut c, q8, x, short, None, QuantKind::Int8Sym),
        &["TQUANT", "scale", "3x8 for 4 rows"],
    );
    c.set_policy(hw);
    // Either way a row-major parameter tile must hold one 32-byte block per data row.
    let tiny = c
        .alloc(TileDesc::vec(ElemType::F32, 2, 8).at(0x2800))
        .unwrap();
    says(
        quant(&mut c, q8, x, tiny, None, QuantKind::Int8Sym),
        &[
            "TQUANT",
            "scale",
            "one 32-byte block per data row",
            "64 bytes for 4 rows",
        ],
    );
    says(
        quant(&mut c, u8t, x, p, None, QuantKind::Int8Sym),
        &["TQUANT", "dst", "uint8", "legal: int8"],
    );
    says(
        quant(&mut c, q8, x, p, Some(p), QuantKind::Int8Sym),
        &["TQUANT", "offset", "INT8_SYM takes no offset"],
    );
    says(
        quant(&mut c, u8t, x, p, None, QuantKind::Int8Asym),
        &["TQUANT", "offset", "INT8_ASYM needs an offset"],
    );
    says(
        quant(&mut c, q8, q8, p, None, QuantKind::Int8Sym),
        &["TQUANT", "src", "int8"],
    );
    let x3 = c
        .alloc(TileDesc::vec(ElemType::F32, 4, 32).valid(4, 16).at(0x4000))
        .unwrap();
    says(
        quant(&mut c, q8, x3, p, None, QuantKind::Int8Sym),
        &["TQUANT", "src", "share the valid shape"],
    );
    // TDEQUANT: src i8/i16 only, dst f32, per-row parameters.
    let dq = |c: &mut TileCore, dst, src0, src1, src2| {
        c.exec(&TileOp {
            op: OpCode::Tdequant,
            args: Args::Ternary {
                dst,
                src0,
                src1,
                src2,
            },
        })
        .unwrap_err()
    };
    says(
        dq(&mut c, x, x, p, p),
        &["TDEQUANT", "src", "float", "legal: int8, int16"],
    );
    says(dq(&mut c, u8t, q8, p, p), &["TDEQUANT", "dst", "uint8"]);
    says(
        dq(&mut c, x, q8, p, tiny),
        &["TDEQUANT", "offset", "a row per data row", "2x8 for 4 rows"],
    );
    let cm = c.alloc(
        TileDesc::vec(ElemType::F32, 4, 8)
            .layout(BLayout::ColMajor, SLayout::NoneBox)
            .at(0x5000),
    );
    assert!(
        cm.is_err()
            || dq(&mut c, cm.unwrap(), q8, p, p)
                .to_string()
                .contains("row-major")
    );
}

/// PTOAS's Quant sample: a 32x32 f32 scale (and offset) tile, not the documented 32x8. Its
/// golden reads element `[r][c]`'s parameter at flat index `8 r + c % 8`; the hardware default
/// reproduces that, bit for bit, for both forms.
#[test]
fn full_scale_tile_is_read_by_block_broadcast_as_the_ptoas_golden_says() {
    let mut c = core();
    assert_eq!(c.policy().row_params, RowParamRule::BlockBroadcast);
    let x = c.alloc(TileDesc::vec(ElemType::F32, 32, 32).at(0)).unwrap();
    let fp = c
        .alloc(TileDesc::vec(ElemType::F32, 32, 32).at(0x1000))
        .unwrap();
    let off = c
        .alloc(TileDesc::vec(ElemType::F32, 32, 32).at(0x2000))
        .unwrap();
    let xs: Vec<f32> = (0..1024)
        .map(|k| ((k * 37 % 101) as f32 - 50.0) * 0.73)
        .collect();
    let fps: Vec<f32> = (0..1024)
        .map(|k| 0.05 + (k * 13 % 29) as f32 * 0.11)
        .collect();
    let offs: Vec<f32> = (0..1024).map(|k| (k * 7 % 23) as f32 - 11.0).collect();
    put_f32(&mut c, &x, &xs, 32);
    put_f32(&mut c, &fp, &fps, 32);
    put_f32(&mut c, &off, &offs, 32);
    for asym in [false, true] {
        let out_t = if asym { ElemType::U8 } else { ElemType::I8 };
        let dst = c.alloc(TileDesc::vec(out_t, 32, 32).at(0x3000)).unwrap();
        let kind = if asym {
            QuantKind::Int8Asym
        } else {
            QuantKind::Int8Sym
        };
        c.exec(&TileOp {
            op: OpCode::Tquant,
            args: Args::Quant {
                dst,
                src: x,
                scale: fp,
                offset: asym.then_some(off),
                kind,
            },
        })
        .unwrap();
        for r in 0..32 {
            for k in 0..32 {
                let j = r * 8 + k % 8;
                let mut m = xs[r * 32 + k] * fps[j];
                if asym {
                    m += offs[j];
                }
                let want = quant_model(m, asym);
                assert_eq!(c.get_bits(&dst, r, k).unwrap() as u8, want, "({r}, {k})");
            }
        }
    }
}

/// PTOAS's Dequant samples: 32x8 f32 scale and offset tiles whose rows hold eight different
/// values; the golden uses each row's first (`scale.reshape(32, 8)[:, 0]`), as pto-isa's
/// TDEQUANT reads one scalar per row. A full 32x32 parameter tile is read the same way: row
/// `r`'s first element, flat index `32 r`.
#[test]
fn dequant_reads_each_parameter_rows_first_element_as_the_ptoas_golden_says() {
    for pcols in [8usize, 32] {
        let mut c = core();
        let src = c.alloc(TileDesc::vec(ElemType::I16, 32, 32).at(0)).unwrap();
        let dst = c
            .alloc(TileDesc::vec(ElemType::F32, 32, 32).at(0x1000))
            .unwrap();
        let s_t = c
            .alloc(TileDesc::vec(ElemType::F32, 32, pcols).at(0x2000))
            .unwrap();
        let o_t = c
            .alloc(TileDesc::vec(ElemType::F32, 32, pcols).at(0x3000))
            .unwrap();
        let q: Vec<i16> = (0..1024).map(|k| ((k * 53 % 512) as i16) - 256).collect();
        let sc: Vec<f32> = (0..32 * pcols)
            .map(|k| 0.01 + (k % 97) as f32 * 0.013)
            .collect();
        let of: Vec<f32> = (0..32 * pcols)
            .map(|k| (k % 31) as f32 * 0.5 - 7.0)
            .collect();
        for (k, v) in q.iter().enumerate() {
            c.set_bits(&src, k / 32, k % 32, *v as u16 as u64).unwrap();
        }
        put_f32(&mut c, &s_t, &sc, pcols);
        put_f32(&mut c, &o_t, &of, pcols);
        c.exec(&TileOp {
            op: OpCode::Tdequant,
            args: Args::Ternary {
                dst,
                src0: src,
                src1: s_t,
                src2: o_t,
            },
        })
        .unwrap();
        for r in 0..32 {
            for k in 0..32 {
                let want = (q[r * 32 + k] as f32 - of[r * pcols]) * sc[r * pcols];
                let got = f32::from_bits(c.get_bits(&dst, r, k).unwrap() as u32);
                assert_eq!(got.to_bits(), want.to_bits(), "{pcols} cols: ({r}, {k})");
            }
        }
    }
}
