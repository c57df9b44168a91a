//! TCI, TTRI, TTRANS and TCONCAT against plain models written here (pto-isa `docs/isa` pages
//! and the PTOAS manual), on both archs, plus one test per restriction.

mod common;

use npusim_pto::*;
use proptest::prelude::*;

use ElemType::{Bf16, F16, F32, I8, I16, I32, U16, U32};

fn core(arch: &str) -> TileCore {
    TileCore::by_name(arch).unwrap()
}

/// The bit pattern of 1 in each type, spelled out.
fn one(t: ElemType) -> u64 {
    match t {
        F32 => 0x3f80_0000,
        F16 => 0x3c00,
        Bf16 => 0x3f80,
        _ => 1,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn tci_writes_the_sequence_in_row_zero(
        t in prop::sample::select(vec![I32, I16, U32, U16]),
        blocks in 1usize..4,
        vc_frac in 0.0f64..=1.0,
        start in any::<i32>(),
        desc in any::<bool>(),
        arch in prop::sample::select(vec!["a2a3", "a5"]),
        seed in any::<u64>(),
    ) {
        let mut c = core(arch);
        common::scramble(&mut c, 16384, seed);
        let cols = blocks * 32 / t.size();
        let vc = ((cols as f64) * vc_frac) as usize;
        let d = c.alloc(TileDesc::vec(t, 1, cols).valid(1, vc).at(0)).unwrap();
        let before = common::all_bits(&c, &d);
        c.tci(&d, Scalar::Int(start as i64), desc).unwrap();
        let after = common::all_bits(&c, &d);
        let mask = if t.size() == 4 { 0xffff_ffffu64 } else { 0xffff };
        for j in 0..cols {
            let want = if j < vc {
                let v = if desc { start as i64 - j as i64 } else { start as i64 + j as i64 };
                (v as u64) & mask
            } else {
                before[0][j]
            };
            prop_assert_eq!(after[0][j], want, "column {}", j);
        }
    }

    #[test]
    fn ttri_is_the_triangle(
        t in prop::sample::select(vec![I32, I16, U32, U16, F16, F32]),
        rows in 1usize..9,
        blocks in 1usize..3,
        diag in -10i64..10,
        upper in any::<bool>(),
        arch in prop::sample::select(vec!["a2a3", "a5"]),
        seed in any::<u64>(),
    ) {
        let mut c = core(arch);
        common::scramble(&mut c, 16384, seed);
        let cols = blocks * 32 / t.size();
        let (vr, vc) = (rows.max(1) - rows / 3, cols - cols / 4);
        let d = c.alloc(TileDesc::vec(t, rows, cols).valid(vr, vc).at(0)).unwrap();
        let before = common::all_bits(&c, &d);
        c.ttri(&d, diag, upper).unwrap();
        let after = common::all_bits(&c, &d);
        for i in 0..rows {
            for j in 0..cols {
                let want = if i < vr && j < vc {
                    let keep = if upper { j as i64 >= i as i64 + diag } else { j as i64 <= i as i64 + diag };
                    if keep { one(t) } else { 0 }
                } else {
                    before[i][j]
                };
                prop_assert_eq!(after[i][j], want, "({}, {})", i, j);
            }
        }
    }

    #[test]
    fn ttrans_transposes(
        t in prop::sample::select(vec![I32, F32, I16, F16, Bf16, I8]),
        n in 1usize..3,
        vr_cut in 0usize..5,
        vc_cut in 0usize..5,
        arch in prop::sample::select(vec!["a2a3", "a5"]),
        seed in any::<u64>(),
    ) {
        let mut c = core(arch);
        common::scramble(&mut c, 16384, seed);
        // Square tiles whose rows and columns are both 32-byte aligned.
        let side = n * 32 / t.size();
        let (vr, vc) = (side - vr_cut.min(side - 1), side - vc_cut.min(side - 1));
        let s = c.alloc(TileDesc::vec(t, side, side).valid(vr, vc).at(0)).unwrap();
        let d = c.alloc(TileDesc::vec(t, side, side).at(8192)).unwrap();
        let src = common::all_bits(&c, &s);
        let before = common::all_bits(&c, &d);
        c.ttrans(&d, &s).unwrap();
        let after = common::all_bits(&c, &d);
        // A2A3 transposes src's valid region, A5 its static shape.
        let (r, k) = if arch == "a5" { (side, side) } else { (vr, vc) };
        for i in 0..side {
            for j in 0..side {
                let want = if i < k && j < r { src[j][i] } else { before[i][j] };
                prop_assert_eq!(after[i][j], want, "({}, {})", i, j);
            }
        }
    }

    #[test]
    fn tconcat_joins_rows(
        t in prop::sample::select(vec![I8, I16, I32, F16, F32, U16]),
        rows in 1usize..6,
        b0 in 1usize..3,
        b1 in 1usize..3,
        cut0 in 0usize..4,
        cut1 in 0usize..4,
        arch in prop::sample::select(vec!["a2a3", "a5"]),
        seed in any::<u64>(),
    ) {
        let mut c = core(arch);
        common::scramble(&mut c, 16384, seed);
        let per = 32 / t.size();
        let (w0, w1) = (b0 * per, b1 * per);
        let (c0, c1) = (w0 - cut0.min(w0 - 1), w1 - cut1.min(w1 - 1));
        let s0 = c.alloc(TileDesc::vec(t, rows, w0).valid(rows, c0).at(0)).unwrap();
        let s1 = c.alloc(TileDesc::vec(t, rows, w1).valid(rows, c1).at(4096)).unwrap();
        let d = c
            .alloc(TileDesc::vec(t, rows, w0 + w1).valid(rows, c0 + c1).at(8192))
            .unwrap();
        let (a, b, before) = (common::all_bits(&c, &s0), common::all_bits(&c, &s1), common::all_bits(&c, &d));
        c.tconcat(&d, &s0, &s1).unwrap();
        let after = common::all_bits(&c, &d);
        for i in 0..rows {
            for j in 0..w0 + w1 {
                let want = if j < c0 {
                    a[i][j]
                } else if j < c0 + c1 {
                    b[i][j - c0]
                } else {
                    before[i][j]
                };
                prop_assert_eq!(after[i][j], want, "({}, {})", i, j);
            }
        }
    }
}

#[track_caller]
fn says(e: PtoError, parts: &[&str]) {
    let s = e.to_string();
    for p in parts {
        assert!(s.contains(p), "{s:?} does not name {p:?}");
    }
}

#[test]
fn restrictions() {
    let mut c = core("a2a3");
    // TCI: one row, integer types, an integer start.
    let two = c.alloc(TileDesc::vec(I32, 2, 8).at(0)).unwrap();
    says(
        c.tci(&two, Scalar::Int(0), false).unwrap_err(),
        &["TCI", "dst", "exactly one row", "2x8"],
    );
    let f = c.alloc(TileDesc::vec(F32, 1, 8).at(0)).unwrap();
    says(
        c.tci(&f, Scalar::Int(0), false).unwrap_err(),
        &["TCI", "dst", "float", "not legal"],
    );
    let i = c.alloc(TileDesc::vec(I32, 1, 8).at(0)).unwrap();
    says(
        c.tci(&i, Scalar::Float(1.5), false).unwrap_err(),
        &["TCI", "start", "integer", "1.5"],
    );
    // TTRI: row-major, the arch's types (bf16 only on A5).
    let bf = c.alloc(TileDesc::vec(Bf16, 2, 16).at(0)).unwrap();
    says(
        c.ttri(&bf, 0, false).unwrap_err(),
        &["TTRI", "dst", "bfloat16", "a2a3"],
    );
    core("a5").ttri(&bf, 0, false).unwrap();
    let cm = c
        .alloc(
            TileDesc::vec(F32, 8, 8)
                .layout(BLayout::ColMajor, SLayout::NoneBox)
                .at(0),
        )
        .unwrap();
    says(
        c.ttri(&cm, 0, true).unwrap_err(),
        &["TTRI", "dst", "row-major"],
    );
    // TTRANS: equal types, a dst that holds the transposed domain.
    let s = c.alloc(TileDesc::vec(F32, 16, 8).at(0)).unwrap();
    let d_small = c.alloc(TileDesc::vec(F32, 8, 8).at(4096)).unwrap();
    says(
        c.ttrans(&d_small, &s).unwrap_err(),
        &["TTRANS", "dst", "transposed domain", "8x8 for 8x16"],
    );
    let d_i = c.alloc(TileDesc::vec(I32, 8, 16).at(4096)).unwrap();
    says(
        c.ttrans(&d_i, &s).unwrap_err(),
        &["TTRANS", "dst", "int32", "float"],
    );
    // TCONCAT: equal valid rows, columns that fit (A2A3) or match (A5).
    let a = c.alloc(TileDesc::vec(F32, 4, 8).at(0)).unwrap();
    let b = c
        .alloc(TileDesc::vec(F32, 4, 8).valid(3, 8).at(1024))
        .unwrap();
    let d = c.alloc(TileDesc::vec(F32, 4, 16).at(2048)).unwrap();
    says(
        c.tconcat(&d, &a, &b).unwrap_err(),
        &["TCONCAT", "src1", "valid rows", "3 vs 4"],
    );
    let d8 = c.alloc(TileDesc::vec(F32, 4, 8).at(2048)).unwrap();
    says(
        c.tconcat(&d8, &a, &a).unwrap_err(),
        &["TCONCAT", "dst", "fit", "8 + 8"],
    );
    let mut a5 = core("a5");
    let d24 = a5.alloc(TileDesc::vec(F32, 4, 24).at(2048)).unwrap();
    says(
        a5.tconcat(&d24, &a, &a).unwrap_err(),
        &["TCONCAT", "dst", "equal", "8 + 8"],
    );
    c.tconcat(&d24, &a, &a).unwrap();
    // A tile placed past its memory (built without `alloc`'s address check) is refused, not
    // read as zeros.
    let far = Tile::validate(TileDesc::vec(F32, 4, 8).at(1 << 30), "test", "tile").unwrap();
    assert!(matches!(
        c.tconcat(&d, &far, &a).unwrap_err(),
        PtoError::OutOfCapacity {
            op: "TCONCAT",
            operand: "src0",
            ..
        }
    ));
    assert!(c.ttrans(&d, &far).is_err() && c.tci(&far, Scalar::Int(0), false).is_err());
}
