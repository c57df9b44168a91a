//! One test per restriction class (and per family where the rule differs): the exact
//! [`PtoError`] variant, and a message that names the instruction, the operand, the rule and the
//! offending value. Each test also shows the legal neighbour of the broken case where the rule
//! depends on the chip, and that a rejected instruction leaves its destination untouched.

use npusim_pto::*;

use ElemType::{F16, F32, I8, I32, U8, U16, U32};

fn core(name: &str) -> TileCore {
    TileCore::by_name(name).unwrap()
}

/// The message contains every part, in any order.
#[track_caller]
fn says(e: &PtoError, parts: &[&str]) {
    let s = e.to_string();
    for p in parts {
        assert!(s.contains(p), "message {s:?} does not name {p:?}");
    }
}

fn vec_tile(c: &TileCore, t: ElemType, rows: usize, cols: usize, addr: u64) -> Tile {
    c.alloc(TileDesc::vec(t, rows, cols).at(addr)).unwrap()
}

/// A DN (col-major) one-column tile, the row-reduction destination.
fn dn_col(c: &TileCore, t: ElemType, rows: usize, addr: u64) -> Tile {
    c.alloc(
        TileDesc::vec(t, rows, 1)
            .layout(BLayout::ColMajor, SLayout::NoneBox)
            .at(addr),
    )
    .unwrap()
}

/// Fills a tile's whole shape with a byte pattern and returns a snapshot of its bytes.
fn stamp(c: &mut TileCore, t: &Tile, byte: u8) -> Vec<u8> {
    let (a, n) = (t.addr() as usize, t.size_bytes() as usize);
    let m = c.mem_mut(t.loc());
    m[a..a + n].fill(byte);
    m[a..a + n].to_vec()
}

fn bytes_of(c: &TileCore, t: &Tile) -> Vec<u8> {
    let (a, n) = (t.addr() as usize, t.size_bytes() as usize);
    c.mem(t.loc()).as_slice()[a..a + n].to_vec()
}

// ---------------------------------------------------------------- element type not legal

#[test]
fn illegal_type_elementwise_depends_on_chip() {
    let mut c = core("a2a3");
    let (d, a, b) = (
        vec_tile(&c, I8, 2, 32, 0),
        vec_tile(&c, I8, 2, 32, 64),
        vec_tile(&c, I8, 2, 32, 128),
    );
    let before = stamp(&mut c, &d, 0x5a);
    let e = c.tadd(&d, &a, &b).unwrap_err();
    assert_eq!(
        e,
        PtoError::IllegalType {
            op: "TADD",
            operand: "dst",
            dtype: I8,
            arch: "a2a3",
            legal: "int32, int16, half, float".into()
        }
    );
    says(
        &e,
        &[
            "TADD",
            "dst",
            "int8",
            "is not legal on a2a3",
            "legal: int32",
        ],
    );
    assert_eq!(bytes_of(&c, &d), before);
    // The same instruction is legal on a5.
    let mut c5 = core("a5");
    let (d, a, b) = (
        vec_tile(&c5, I8, 2, 32, 0),
        vec_tile(&c5, I8, 2, 32, 64),
        vec_tile(&c5, I8, 2, 32, 128),
    );
    c5.tadd(&d, &a, &b).unwrap();
}

#[test]
fn illegal_type_tile_scalar() {
    // TMULS has no 8-bit types on either chip.
    for name in ["a2a3", "a5"] {
        let mut c = core(name);
        let (d, s) = (vec_tile(&c, U8, 2, 32, 0), vec_tile(&c, U8, 2, 32, 64));
        let e = c.tmuls(&d, &s, Scalar::Int(3)).unwrap_err();
        assert!(
            matches!(
                e,
                PtoError::IllegalType {
                    op: "TMULS",
                    operand: "dst",
                    dtype: U8,
                    ..
                }
            ),
            "{e:?}"
        );
        says(
            &e,
            &["TMULS", "dst", "uint8", &format!("is not legal on {name}")],
        );
    }
    // A mixed-type source names the source and both types.
    let mut c = core("a2a3");
    let d = vec_tile(&c, F32, 2, 8, 0);
    let s = vec_tile(&c, F16, 2, 16, 64);
    let e = c.tadds(&d, &s, 1.0f32).unwrap_err();
    assert!(
        matches!(
            e,
            PtoError::TypeMismatch {
                op: "TADDS",
                operand: "src",
                dtype: F16,
                other: "dst",
                expected: F32
            }
        ),
        "{e:?}"
    );
    says(&e, &["TADDS", "src", "half", "must equal dst's", "float"]);
}

#[test]
fn illegal_type_reduce_value_and_index() {
    let mut c = core("a2a3");
    let s = vec_tile(&c, U32, 8, 8, 0);
    let d = dn_col(&c, U32, 8, 256);
    let e = c.trowsum(&d, &s).unwrap_err();
    assert!(
        matches!(
            e,
            PtoError::IllegalType {
                op: "TROWSUM",
                operand: "src",
                dtype: U32,
                arch: "a2a3",
                ..
            }
        ),
        "{e:?}"
    );
    says(&e, &["TROWSUM", "src", "uint32", "not legal on a2a3"]);
    // The index destination of TROWARGMAX must be a 32-bit integer.
    let s = vec_tile(&c, F32, 8, 8, 0);
    let idx = dn_col(&c, F32, 8, 256);
    let e = c
        .exec(&TileOp {
            op: OpCode::Trowargmax,
            args: Args::ArgReduce {
                dst_idx: idx,
                src: s,
                dst_val: None,
            },
        })
        .unwrap_err();
    assert_eq!(
        e,
        PtoError::IllegalType {
            op: "TROWARGMAX",
            operand: "dst",
            dtype: F32,
            arch: "a2a3",
            legal: "uint32, int32".into()
        }
    );
    says(&e, &["TROWARGMAX", "dst", "float", "legal: uint32, int32"]);
}

#[test]
fn illegal_type_compare_and_mask_word() {
    let mut c = core("a2a3");
    let (a, b) = (vec_tile(&c, U8, 2, 32, 0), vec_tile(&c, U8, 2, 32, 64));
    let m = vec_tile(&c, U8, 2, 32, 128);
    let e = c.tcmp(&m, &a, &b, CmpMode::Eq).unwrap_err();
    assert!(
        matches!(
            e,
            PtoError::IllegalType {
                op: "TCMP",
                operand: "src0",
                dtype: U8,
                ..
            }
        ),
        "{e:?}"
    );
    says(&e, &["TCMP", "src0", "uint8", "not legal on a2a3"]);
    // The mask word is uint8 on a2a3, uint32 on a5.
    let (a, b) = (vec_tile(&c, F32, 2, 8, 0), vec_tile(&c, F32, 2, 8, 64));
    let m32 = vec_tile(&c, U32, 2, 8, 128);
    let e = c.tcmp(&m32, &a, &b, CmpMode::Lt).unwrap_err();
    assert_eq!(
        e,
        PtoError::IllegalType {
            op: "TCMP",
            operand: "mask",
            dtype: U32,
            arch: "a2a3",
            legal: "uint8".into()
        }
    );
    says(&e, &["TCMP", "mask", "uint32", "legal: uint8"]);
    let mut c5 = core("a5");
    let (a, b) = (vec_tile(&c5, F32, 2, 8, 0), vec_tile(&c5, F32, 2, 8, 64));
    c5.tcmp(&vec_tile(&c5, U32, 2, 8, 128), &a, &b, CmpMode::Lt)
        .unwrap();
    let e = c5
        .tcmp(&vec_tile(&c5, U8, 2, 32, 128), &a, &b, CmpMode::Lt)
        .unwrap_err();
    says(&e, &["TCMP", "mask", "uint8", "legal: uint32"]);
}

#[test]
fn illegal_type_select() {
    let mut c = core("a2a3");
    let (d, a, b) = (
        vec_tile(&c, I8, 2, 32, 0),
        vec_tile(&c, I8, 2, 32, 64),
        vec_tile(&c, I8, 2, 32, 128),
    );
    let m = vec_tile(&c, U8, 2, 32, 192);
    let e = c.tsel(&d, &m, &a, &b).unwrap_err();
    assert!(
        matches!(
            e,
            PtoError::IllegalType {
                op: "TSEL",
                operand: "dst",
                dtype: I8,
                arch: "a2a3",
                ..
            }
        ),
        "{e:?}"
    );
    says(&e, &["TSEL", "dst", "int8", "not legal on a2a3"]);
    // A read mask is a raw bit container of 1, 2 or 4 bytes (A2A3 copies its bytes into
    // CMPMASK); an 8-byte one is refused.
    let (d, a, b) = (
        vec_tile(&c, F32, 2, 8, 0),
        vec_tile(&c, F32, 2, 8, 64),
        vec_tile(&c, F32, 2, 8, 128),
    );
    let e = c
        .tsel(&d, &vec_tile(&c, ElemType::I64, 2, 4, 192), &a, &b)
        .unwrap_err();
    says(&e, &["TSEL", "mask", "int64", "legal: uint8, int8"]);
    // An int8 mask selects by its bits, exactly as a uint8 one with the same bytes.
    for (k, mt) in [I8, U8].into_iter().enumerate() {
        let m = vec_tile(&c, mt, 2, 32, 192);
        for r in 0..2 {
            for col in 0..8 {
                c.set(&a, r, col, 1.0f32).unwrap();
                c.set(&b, r, col, 2.0f32).unwrap();
            }
            // bits 0, 2, 7 of row r's first byte (0x85), bit 1 of row 1 too.
            let byte = if r == 0 { 0x85u64 } else { 0x87 };
            c.set_bits(&m, r, 0, byte).unwrap();
        }
        c.tsel(&d, &m, &a, &b).unwrap();
        let got: Vec<f32> = (0..2)
            .flat_map(|r| (0..8).map(move |col| (r, col)))
            .map(|(r, col)| c.get::<f32>(&d, r, col).unwrap())
            .collect();
        let want: Vec<f32> = (0..2)
            .flat_map(|r| {
                let byte: u32 = if r == 0 { 0x85 } else { 0x87 };
                (0..8).map(move |col| if byte >> col & 1 == 1 { 1.0 } else { 2.0 })
            })
            .collect();
        assert_eq!(got, want, "mask type #{k}");
    }
}

#[test]
fn illegal_type_and_pair_convert() {
    let mut c = core("a2a3");
    let s = vec_tile(&c, U16, 2, 16, 0);
    let d = vec_tile(&c, F32, 2, 8, 64);
    let e = c
        .tcvt(&d, &s, RoundMode::Rint, Saturation::Off)
        .unwrap_err();
    assert!(
        matches!(
            e,
            PtoError::IllegalType {
                op: "TCVT",
                operand: "src",
                dtype: U16,
                ..
            }
        ),
        "{e:?}"
    );
    says(&e, &["TCVT", "src", "uint16", "not legal on a2a3"]);
    // half -> bfloat16 is an a5-only pair.
    let s = vec_tile(&c, F16, 2, 16, 0);
    let d = vec_tile(&c, ElemType::Bf16, 2, 16, 64);
    let e = c
        .tcvt(&d, &s, RoundMode::Rint, Saturation::Off)
        .unwrap_err();
    assert_eq!(
        e,
        PtoError::Unsupported {
            op: "TCVT",
            what: "conversion half -> bfloat16".into(),
            arch: "a2a3"
        }
    );
    says(
        &e,
        &["TCVT", "half -> bfloat16", "is not supported on a2a3"],
    );
    let mut c5 = core("a5");
    let (s5, d5) = (
        vec_tile(&c5, ElemType::Bf16, 2, 16, 0),
        vec_tile(&c5, F16, 2, 16, 64),
    );
    c5.tcvt(&d5, &s5, RoundMode::Rint, Saturation::Off).unwrap();
    // Round-to-odd has no meaning for an integer destination.
    let (s, d) = (vec_tile(&c, F32, 2, 8, 0), vec_tile(&c, I32, 2, 8, 64));
    let e = c.tcvt(&d, &s, RoundMode::Odd, Saturation::On).unwrap_err();
    assert!(
        matches!(e, PtoError::Unsupported { op: "TCVT", .. }),
        "{e:?}"
    );
    says(&e, &["TCVT", "ODD", "integer destination"]);
}

#[test]
fn illegal_type_load_size_mismatch() {
    let mut c = core("a5");
    let t = vec_tile(&c, F32, 2, 8, 0);
    let gm = c.gm_bind(&[0u16; 16]);
    let g = GlobalTensor::nd_2d(gm, F16, 2, 8);
    let e = c.tload(&t, &g).unwrap_err();
    assert_eq!(
        e,
        PtoError::TypeMismatch {
            op: "TLOAD",
            operand: "global",
            dtype: F16,
            other: "dst",
            expected: F32
        }
    );
    says(
        &e,
        &["TLOAD", "global", "half", "must equal dst's", "float"],
    );
}

// ---------------------------------------------------------------- address

#[test]
fn misaligned_address() {
    let c = core("a2a3");
    let d = TileDesc::vec(F32, 4, 8);
    let e = c.alloc(d.at(0x1010)).unwrap_err();
    assert_eq!(
        e,
        PtoError::Misaligned {
            op: "alloc_tile",
            operand: "tile",
            addr: 0x1010,
            align: 32
        }
    );
    says(&e, &["alloc_tile", "tile", "0x1010", "32-byte aligned"]);
    let mut t = c.alloc(d.at(0x1000)).unwrap();
    let e = c.tassign(&mut t, 0x1004, "src1").unwrap_err();
    says(&e, &["TASSIGN", "src1", "0x1004", "32-byte aligned"]);
    assert_eq!(t.addr(), 0x1000, "a failed TASSIGN keeps the old address");
    // A tile validated without its address (Tile::validate) is checked when it is used.
    let mut c = core("a2a3");
    let good = vec_tile(&c, F32, 4, 8, 0);
    let bad = Tile::validate(d.at(0x208), "x", "y").unwrap();
    let before = stamp(&mut c, &good, 0x11);
    let e = c.tadd(&good, &good, &bad).unwrap_err();
    assert_eq!(
        e,
        PtoError::Misaligned {
            op: "TADD",
            operand: "src1",
            addr: 0x208,
            align: 32
        }
    );
    says(&e, &["TADD", "src1", "0x208", "32-byte aligned"]);
    assert_eq!(bytes_of(&c, &good), before);
    let e = c.trowsum(&dn_col(&c, F32, 8, 0x400), &bad).unwrap_err();
    assert!(
        matches!(
            e,
            PtoError::Misaligned {
                op: "TROWSUM",
                operand: "src",
                ..
            }
        ),
        "{e:?}"
    );
}

#[test]
fn out_of_capacity_address() {
    // 192 KiB of UB on a2a3, 256 KiB on a5.
    let c = core("a2a3");
    let d = TileDesc::vec(F32, 16, 16);
    let e = c.alloc(d.at(192 * 1024 - 512)).unwrap_err();
    assert_eq!(
        e,
        PtoError::OutOfCapacity {
            op: "alloc_tile",
            operand: "tile",
            space: npusim_core::MemSpace::Ub,
            addr: 192 * 1024 - 512,
            size: 1024,
            capacity: 192 * 1024
        }
    );
    says(
        &e,
        &[
            "alloc_tile",
            "tile",
            "0x2fe00",
            "1024 bytes",
            "does not fit",
            "capacity 0x30000",
        ],
    );
    assert!(core("a5").alloc(d.at(192 * 1024 - 512)).is_ok());
    // Checked again at use for a tile that bypassed allocation.
    let mut c = core("a2a3");
    let far = Tile::validate(d.at(192 * 1024), "x", "y").unwrap();
    let dst = vec_tile(&c, F32, 16, 16, 0);
    let e = c.tmuls(&dst, &far, 2.0f32).unwrap_err();
    assert!(
        matches!(
            e,
            PtoError::OutOfCapacity {
                op: "TMULS",
                operand: "src",
                addr: 0x30000,
                ..
            }
        ),
        "{e:?}"
    );
    says(&e, &["TMULS", "src", "0x30000", "does not fit"]);
    // GM reads past the bound buffer fail as a memory fault naming the operand.
    let t = vec_tile(&c, F32, 16, 16, 0);
    let gm = c.gm_bind(&[0f32; 16]);
    let g = GlobalTensor::nd_2d(gm, F32, 16, 16);
    let e = c.tload(&t, &g).unwrap_err();
    assert!(
        matches!(
            e,
            PtoError::Memory {
                op: "TLOAD",
                operand: "src",
                ..
            }
        ),
        "{e:?}"
    );
    says(&e, &["TLOAD", "src", "out of bounds"]);
}

// ---------------------------------------------------------------- valid region vs shape

#[test]
fn valid_region_larger_than_shape() {
    let c = core("a2a3");
    let e = c.alloc(TileDesc::vec(F32, 4, 8).valid(5, 8)).unwrap_err();
    assert_eq!(
        e,
        PtoError::ValidRegion {
            op: "alloc_tile",
            operand: "tile",
            rule: "ValidRow <= Rows and ValidCol <= Cols",
            value: "valid 5x8 in a 4x8 tile".into()
        }
    );
    says(
        &e,
        &[
            "alloc_tile",
            "tile",
            "ValidRow <= Rows",
            "valid 5x8 in a 4x8",
        ],
    );
    let e = c
        .alloc_named(TileDesc::vec(F32, 4, 8).valid(4, 9), "TASSIGN", "src0")
        .unwrap_err();
    says(
        &e,
        &["TASSIGN", "src0", "ValidCol <= Cols", "valid 4x9 in a 4x8"],
    );
    let mut t = vec_tile(&c, F32, 4, 8, 0);
    let e = t.set_valid(4, 9).unwrap_err();
    says(&e, &["set_validshape", "tile", "valid 4x9 in a 4x8"]);
    assert_eq!((t.valid_row(), t.valid_col()), (4, 8), "unchanged on error");
}

// ---------------------------------------------------------------- mismatched valid regions

#[test]
fn mismatched_valid_elementwise_same_rule() {
    // TSUB: every source's valid region must equal dst's (both chips).
    for name in ["a2a3", "a5"] {
        let mut c = core(name);
        let d = vec_tile(&c, F32, 4, 8, 0);
        let a = vec_tile(&c, F32, 4, 8, 256);
        let b = vec_tile(&c, F32, 4, 8, 512).with_valid(4, 5).unwrap();
        let before = stamp(&mut c, &d, 0x22);
        let e = c.tsub(&d, &a, &b).unwrap_err();
        assert_eq!(
            e,
            PtoError::ValidRegion {
                op: "TSUB",
                operand: "src1",
                rule: "must equal dst's valid rows and cols",
                value: "4x5 vs dst 4x8".into()
            }
        );
        says(&e, &["TSUB", "src1", "must equal dst's", "4x5 vs dst 4x8"]);
        assert_eq!(bytes_of(&c, &d), before);
    }
}

#[test]
fn mismatched_valid_tile_scalar_rows_legal_only_on_a5() {
    // TADDS: A2A3 needs equal regions; A5 only equal valid columns.
    let mut c = core("a2a3");
    let d = vec_tile(&c, F32, 4, 8, 0);
    let s = vec_tile(&c, F32, 4, 8, 256).with_valid(3, 8).unwrap();
    let e = c.tadds(&d, &s, 1.0f32).unwrap_err();
    assert!(
        matches!(
            e,
            PtoError::ValidRegion {
                op: "TADDS",
                operand: "src",
                rule: "must equal dst's valid rows and cols",
                ..
            }
        ),
        "{e:?}"
    );
    says(&e, &["TADDS", "src", "3x8 vs dst 4x8"]);
    // A5: rows may differ only while src covers dst's rows in shape.
    let mut c5 = core("a5");
    let d5 = vec_tile(&c5, F32, 4, 8, 0).with_valid(3, 8).unwrap();
    let s5 = vec_tile(&c5, F32, 4, 8, 256).with_valid(2, 8).unwrap();
    c5.tadds(&d5, &s5, 1.0f32).unwrap();
    let s5c = s5.with_valid(3, 4).unwrap();
    let e = c5.tadds(&d5, &s5c, 1.0f32).unwrap_err();
    assert!(
        matches!(
            e,
            PtoError::ValidRegion {
                op: "TADDS",
                operand: "src",
                rule: "must equal dst's valid cols",
                ..
            }
        ),
        "{e:?}"
    );
    says(&e, &["TADDS", "src", "valid cols", "3x4 vs dst 3x8"]);
}

#[test]
fn mismatched_valid_elementwise_dst_rule_needs_cover() {
    // TADD: the domain is dst's valid region; a source only needs to cover it in shape.
    let mut c = core("a2a3");
    let d = vec_tile(&c, F32, 8, 8, 0);
    let a = vec_tile(&c, F32, 8, 8, 256).with_valid(2, 2).unwrap();
    let small = vec_tile(&c, F32, 4, 8, 512);
    c.tadd(&d, &a, &a).unwrap();
    let e = c.tadd(&d, &a, &small).unwrap_err();
    assert_eq!(
        e,
        PtoError::ValidRegion {
            op: "TADD",
            operand: "src1",
            rule: "the tile shape must cover the iteration domain",
            value: "shape 4x8 for domain 8x8".into()
        }
    );
    says(
        &e,
        &["TADD", "src1", "must cover", "shape 4x8 for domain 8x8"],
    );
}

#[test]
fn mismatched_valid_partial_differs_per_chip() {
    // A2A3: one source must equal dst, the other not exceed it.
    let mut c = core("a2a3");
    let d = vec_tile(&c, F32, 8, 8, 0);
    let a = vec_tile(&c, F32, 8, 8, 256).with_valid(8, 4).unwrap();
    let b = vec_tile(&c, F32, 8, 8, 512).with_valid(4, 8).unwrap();
    let e = c.tpartadd(&d, &a, &b).unwrap_err();
    assert_eq!(
        e,
        PtoError::ValidRegion {
            op: "TPARTADD",
            operand: "src0/src1",
            rule: "one source must equal dst's valid region and the other must not exceed it",
            value: "src0 8x4, src1 4x8, dst 8x8".into()
        }
    );
    says(
        &e,
        &["TPARTADD", "src0/src1", "src0 8x4, src1 4x8, dst 8x8"],
    );
    // A5 accepts that, but not a source larger than dst.
    let mut c5 = core("a5");
    let d = vec_tile(&c5, F32, 8, 8, 0);
    let a = vec_tile(&c5, F32, 8, 8, 256).with_valid(8, 4).unwrap();
    let b = vec_tile(&c5, F32, 8, 8, 512).with_valid(4, 8).unwrap();
    c5.tpartadd(&d, &a, &b).unwrap();
    let e = c5
        .tpartadd(&d.with_valid(4, 4).unwrap(), &a, &b)
        .unwrap_err();
    assert_eq!(
        e,
        PtoError::ValidRegion {
            op: "TPARTADD",
            operand: "src0",
            rule: "must not exceed dst's valid region",
            value: "8x4 vs dst 4x4".into()
        }
    );
    says(
        &e,
        &["TPARTADD", "src0", "must not exceed", "8x4 vs dst 4x4"],
    );
}

#[test]
fn mismatched_valid_reductions() {
    let mut c = core("a2a3");
    let s = vec_tile(&c, F32, 8, 8, 0);
    let d = dn_col(&c, F32, 8, 256).with_valid(4, 1).unwrap();
    let e = c.trowsum(&d, &s).unwrap_err();
    assert_eq!(
        e,
        PtoError::ValidRegion {
            op: "TROWSUM",
            operand: "dst",
            rule: "valid rows must equal src's",
            value: "4 vs 8".into()
        }
    );
    says(
        &e,
        &["TROWSUM", "dst", "valid rows must equal src's", "4 vs 8"],
    );
    // Empty source row.
    let e = c
        .trowmax(&dn_col(&c, F32, 8, 256), &s.with_valid(8, 0).unwrap())
        .unwrap_err();
    says(&e, &["TROWMAX", "src", "non-zero", "8x0"]);
    // Column reductions: valid cols must match.
    let dc = vec_tile(&c, F32, 1, 8, 512).with_valid(1, 4).unwrap();
    let e = c.tcolsum(&dc, &s).unwrap_err();
    assert_eq!(
        e,
        PtoError::ValidRegion {
            op: "TCOLSUM",
            operand: "dst",
            rule: "valid cols must equal src's",
            value: "4 vs 8".into()
        }
    );
    says(&e, &["TCOLSUM", "dst", "valid cols", "4 vs 8"]);
}

#[test]
fn mismatched_valid_expand() {
    let mut c = core("a2a3");
    let d = vec_tile(&c, F32, 8, 8, 0);
    let full = vec_tile(&c, F32, 8, 8, 256).with_valid(8, 4).unwrap();
    let per_row = dn_col(&c, F32, 8, 512);
    let e = c
        .expand_binary(OpCode::Trowexpandadd, &d, &full, &per_row)
        .unwrap_err();
    assert!(
        matches!(
            e,
            PtoError::ValidRegion {
                op: "TROWEXPANDADD",
                operand: "src0/src1",
                ..
            }
        ),
        "{e:?}"
    );
    says(
        &e,
        &[
            "TROWEXPANDADD",
            "src0/src1",
            "must equal dst's",
            "src0 8x4, src1 8x1, dst 8x8",
        ],
    );
    // The per-row operand must have dst's valid rows.
    let full = full.with_valid(8, 8).unwrap();
    let short = per_row.with_valid(4, 1).unwrap();
    let e = c
        .expand_binary(OpCode::Trowexpandmul, &d, &full, &short)
        .unwrap_err();
    says(&e, &["TROWEXPANDMUL", "src1", "per-row operand", "4x1"]);
    // A5 TROWEXPAND needs src's valid rows equal to dst's.
    let mut c5 = core("a5");
    let d5 = vec_tile(&c5, F32, 8, 8, 0);
    let s5 = vec_tile(&c5, F32, 8, 8, 256).with_valid(4, 1).unwrap();
    let e = c5.trowexpand(&d5, &s5).unwrap_err();
    says(
        &e,
        &[
            "TROWEXPAND",
            "src",
            "valid rows must equal dst's",
            "src 4x1, dst 8x8",
        ],
    );
    let mut c = core("a2a3");
    let (d, s) = (vec_tile(&c, F32, 8, 8, 0), vec_tile(&c, F32, 8, 8, 256));
    c.trowexpand(&d, &s.with_valid(4, 1).unwrap()).unwrap();
}

#[test]
fn mismatched_valid_compare_select_load() {
    let mut c = core("a5");
    let (a, b) = (vec_tile(&c, F32, 4, 8, 0), vec_tile(&c, F32, 4, 8, 256));
    let m = vec_tile(&c, U32, 4, 8, 512).with_valid(3, 1).unwrap();
    let e = c.tcmp(&m, &a, &b, CmpMode::Gt).unwrap_err();
    assert_eq!(
        e,
        PtoError::ValidRegion {
            op: "TCMP",
            operand: "dst",
            rule: "valid rows must equal src0's",
            value: "3 vs 4".into()
        }
    );
    says(&e, &["TCMP", "dst", "valid rows", "3 vs 4"]);
    // TSELS: src must equal dst's region.
    let d = vec_tile(&c, F32, 4, 8, 768);
    let m = vec_tile(&c, U32, 4, 8, 512);
    let e = c
        .tsels(&d, &m, &a.with_valid(4, 7).unwrap(), Scalar::Float(1.0))
        .unwrap_err();
    says(&e, &["TSELS", "src", "must equal dst's", "4x7 vs dst 4x8"]);
    // TLOAD: the tile's valid region (the transfer size) must fit the global shape.
    let gm = c.gm_bind(&[1f32; 32]);
    let g = GlobalTensor::nd_2d(gm, F32, 2, 8);
    let e = c.tload(&d, &g).unwrap_err();
    assert!(
        matches!(
            e,
            PtoError::ValidRegion {
                op: "TLOAD",
                operand: "dst",
                rule: "must fit within the global shape for the layout (the valid region is the transfer size)",
                ..
            }
        ),
        "{e:?}"
    );
    says(
        &e,
        &[
            "TLOAD",
            "dst",
            "global shape",
            "valid 4x8",
            "[1, 1, 1, 2, 8]",
        ],
    );
    c.tload(&d.with_valid(2, 8).unwrap(), &g).unwrap();
}

// ---------------------------------------------------------------- integer division by zero

#[test]
fn integer_division_by_zero_tile_tile() {
    let mut c = core("a5");
    let (d, a, b) = (
        vec_tile(&c, I32, 4, 8, 0),
        vec_tile(&c, I32, 4, 8, 256),
        vec_tile(&c, I32, 4, 8, 512),
    );
    c.write_valid(&a, &[7i32; 32]).unwrap();
    let divisors: Vec<i32> = (0..32)
        .map(|i| if i == 2 * 8 + 5 { 0 } else { i - 40 })
        .collect();
    c.write_valid(&b, &divisors).unwrap();
    for op in [OpCode::Tdiv, OpCode::Trem, OpCode::Tfmod] {
        let before = stamp(&mut c, &d, 0x33);
        let e = c.binary(op, &d, &a, &b).unwrap_err();
        assert_eq!(
            e,
            PtoError::DivByZero {
                op: op.name(),
                operand: "src1",
                row: 2,
                col: 5
            }
        );
        says(
            &e,
            &[
                op.name(),
                "integer division by zero",
                "divisor src1",
                "(2, 5)",
            ],
        );
        assert_eq!(bytes_of(&c, &d), before, "{op:?} wrote before failing");
    }
    // Float division by zero is IEEE, not an error.
    let (fd, fa, fb) = (
        vec_tile(&c, F32, 4, 8, 1024),
        vec_tile(&c, F32, 4, 8, 1280),
        vec_tile(&c, F32, 4, 8, 1536),
    );
    c.write_valid(&fa, &[1f32; 32]).unwrap();
    c.tdiv(&fd, &fa, &fb).unwrap();
    assert!(
        c.read_valid::<f32>(&fd)
            .unwrap()
            .iter()
            .all(|v| *v == f32::INFINITY)
    );
}

#[test]
fn integer_division_by_zero_scalar_forms() {
    let mut c = core("a2a3");
    let (d, s) = (vec_tile(&c, I32, 4, 8, 0), vec_tile(&c, I32, 4, 8, 256));
    c.write_valid(&s, &(1..=32).collect::<Vec<i32>>()).unwrap();
    let e = c.tdivs(&d, &s, Scalar::Int(0)).unwrap_err();
    assert_eq!(
        e,
        PtoError::DivByZero {
            op: "TDIVS",
            operand: "scalar",
            row: 0,
            col: 0
        }
    );
    says(&e, &["TDIVS", "integer division by zero"]);
    let e = c.trems(&d, &s, Scalar::Int(0)).unwrap_err();
    assert!(
        matches!(e, PtoError::DivByZero { op: "TREMS", .. }),
        "{e:?}"
    );
    // scalar / tile and 1 / tile: the first zero element is reported.
    let mut v: Vec<i32> = (1..=32).collect();
    v[3 * 8 + 6] = 0;
    c.write_valid(&s, &v).unwrap();
    let e = c.tdivs_scalar_tile(&d, Scalar::Int(9), &s).unwrap_err();
    assert_eq!(
        e,
        PtoError::DivByZero {
            op: "TDIVS",
            operand: "src",
            row: 3,
            col: 6
        }
    );
    says(&e, &["TDIVS", "integer division by zero", "(3, 6)"]);
    let e = c.trecip(&d, &s).unwrap_err();
    assert_eq!(
        e,
        PtoError::DivByZero {
            op: "TRECIP",
            operand: "src",
            row: 3,
            col: 6
        }
    );
    // An empty domain divides nothing.
    c.tdivs(
        &d.with_valid(0, 8).unwrap(),
        &s.with_valid(0, 8).unwrap(),
        Scalar::Int(0),
    )
    .unwrap();
}

#[test]
fn integer_division_by_zero_expand() {
    let mut c = core("a5");
    let (d, a) = (vec_tile(&c, I32, 4, 8, 0), vec_tile(&c, I32, 4, 8, 256));
    let per_col = vec_tile(&c, I32, 1, 8, 512);
    c.write_valid(&per_col, &[1, 2, 3, 0, 5, 6, 7, 8]).unwrap();
    let e = c
        .expand_binary(OpCode::Tcolexpanddiv, &d, &a, &per_col)
        .unwrap_err();
    assert_eq!(
        e,
        PtoError::DivByZero {
            op: "TCOLEXPANDDIV",
            operand: "src1",
            row: 0,
            col: 3
        }
    );
    says(&e, &["TCOLEXPANDDIV", "integer division by zero", "(0, 3)"]);
    let per_row = vec_tile(&c, I32, 4, 8, 768).with_valid(4, 8).unwrap();
    c.write_valid(&per_row, &[[4i32; 8], [0; 8], [1; 8], [1; 8]].concat())
        .unwrap();
    let e = c
        .expand_binary(OpCode::Trowexpanddiv, &d, &a, &per_row)
        .unwrap_err();
    assert_eq!(
        e,
        PtoError::DivByZero {
            op: "TROWEXPANDDIV",
            operand: "src1",
            row: 1,
            col: 0
        }
    );
}
