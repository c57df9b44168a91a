//! TCONCAT's indexed forms and TTRANS's tmp operand (pto-isa `docs/isa/TCONCAT.md`,
//! `docs/isa/TTRANS.md`, and the A2A3/A5 implementations the pages leave the rules to) against
//! a plain model written here, on both archs, plus one test per restriction.
//!
//! TCONCAT indexed, per valid row i of dst (written out from pto-isa's `TConcatIdx`):
//! n0 = src0Idx(i, 0) / sizeof(idx), n1 = src1Idx(i, 0) / sizeof(idx); c0 = min(n0, dst valid
//! cols), c1 = min(n1, dst valid cols - c0); dst(i, j) = src0(i, j) for j < c0, src1(i, j - c0)
//! for c0 <= j < c0 + c1, untouched after; dstIdx(i, 0) = min(n0 + n1, dst valid cols) *
//! sizeof(idx). Row-major tiles: element (r, c) at r * cols + c, read with `get_bits`.
//!
//! TTRANS with tmp: dst(j, i) = src(i, j) as without tmp (A2A3 over src's valid region, A5 over
//! its static shape); tmp is unchanged; on A2A3, where the transpose goes through tmp (dst
//! stride a multiple of 32 (b8) / 16 elements, src stride of 32 bytes), tmp must hold
//! validCol * ceil(validRow / b) * b * sizeof(T) bytes and not overlap src or dst.

mod common;

use npusim_pto::*;
use proptest::prelude::*;

/// 64 cases in CI; `PROPTEST_CASES` overrides.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64)
}

use ElemType::{F16, F32, I8, I16, I32, U8, U16, U32};

fn core(arch: &str) -> TileCore {
    TileCore::by_name(arch).unwrap()
}

fn says(e: PtoError, parts: &[&str]) {
    let s = e.to_string();
    for p in parts {
        assert!(s.contains(p), "{s:?} does not name {p:?}");
    }
}

fn concat_op(
    dst: Tile,
    src0: Tile,
    src1: Tile,
    src0_idx: Tile,
    src1_idx: Tile,
    dst_idx: Option<Tile>,
) -> TileOp {
    TileOp {
        op: OpCode::Tconcat,
        args: Args::ConcatIdx {
            dst,
            src0,
            src1,
            src0_idx,
            src1_idx,
            dst_idx,
        },
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn tconcat_indexed_matches_the_model(
        t in prop::sample::select(vec![I8, I16, I32, F16, F32, U16]),
        it in prop::sample::select(vec![I8, U8, I16, U16, I32, U32]),
        rows in 1usize..6,
        dcut in 0usize..8,
        six in any::<bool>(),
        counts in prop::collection::vec((0usize..40, 0usize..40), 6),
        arch in prop::sample::select(vec!["a2a3", "a5"]),
        seed in any::<u64>(),
    ) {
        let mut c = core(arch);
        common::scramble(&mut c, 16384, seed);
        // Sources 32 columns wide, dst 64 with some valid columns cut.
        let (scols, dcols) = (32usize, 64usize);
        let dvc = dcols - dcut * 4;
        let s0 = c.alloc(TileDesc::vec(t, rows, scols).at(0)).unwrap();
        let s1 = c.alloc(TileDesc::vec(t, rows, scols).at(2048)).unwrap();
        let d = c.alloc(TileDesc::vec(t, rows, dcols).valid(rows, dvc).at(4096)).unwrap();
        let icols = 32 / it.size();
        let i0 = c.alloc(TileDesc::vec(it, rows, icols).valid(rows, 1).at(8192)).unwrap();
        let i1 = c.alloc(TileDesc::vec(it, rows, icols).valid(rows, 1).at(8192 + 256)).unwrap();
        let di = c.alloc(TileDesc::vec(it, rows, icols).valid(rows, 1).at(8192 + 512)).unwrap();
        // Byte counts: a multiple of the index size plus a remainder the division drops;
        // capped so the counts never read past 32 source columns.
        let isz = it.size();
        let max_n = if isz == 1 { 32.min(i8::MAX as usize) } else { 32 };
        let mut want_n = vec![];
        for (r, &(a, b)) in counts.iter().enumerate().take(rows) {
            let (n0, n1) = (a.min(max_n), b.min(max_n));
            let extra = (a + b) % isz;
            c.set_bits(&i0, r, 0, (n0 * isz + extra) as u64).unwrap();
            c.set_bits(&i1, r, 0, (n1 * isz) as u64).unwrap();
            want_n.push((n0, n1));
        }
        let src0 = common::all_bits(&c, &s0);
        let src1 = common::all_bits(&c, &s1);
        let before = common::all_bits(&c, &d);
        let before_di = common::all_bits(&c, &di);
        c.exec(&concat_op(d, s0, s1, i0, i1, six.then_some(di))).unwrap();
        let after = common::all_bits(&c, &d);
        let after_di = common::all_bits(&c, &di);
        for r in 0..rows {
            let (n0, n1) = want_n[r];
            let c0 = n0.min(dvc);
            let c1 = n1.min(dvc - c0);
            for j in 0..dcols {
                let want = if j < c0 {
                    src0[r][j]
                } else if j < c0 + c1 {
                    src1[r][j - c0]
                } else {
                    before[r][j]
                };
                prop_assert_eq!(after[r][j], want, "({}, {}) n0 {} n1 {}", r, j, n0, n1);
            }
            for j in 0..icols {
                let want = if six && j == 0 {
                    ((n0 + n1).min(dvc) * isz) as u64 & ((1u64 << (8 * isz)) - 1)
                } else {
                    before_di[r][j]
                };
                prop_assert_eq!(after_di[r][j], want, "dstIdx ({}, {})", r, j);
            }
        }
    }

    #[test]
    fn ttrans_with_tmp_transposes_and_leaves_tmp(
        t in prop::sample::select(vec![I32, F32, I16, F16, I8]),
        n in 1usize..3,
        vr_cut in 0usize..5,
        vc_cut in 0usize..5,
        arch in prop::sample::select(vec!["a2a3", "a5"]),
        seed in any::<u64>(),
    ) {
        let mut c = core(arch);
        common::scramble(&mut c, 32768, seed);
        let side = n * 32 / t.size();
        let (vr, vc) = (side - vr_cut.min(side - 1), side - vc_cut.min(side - 1));
        let s = c.alloc(TileDesc::vec(t, side, side).valid(vr, vc).at(0)).unwrap();
        let d = c.alloc(TileDesc::vec(t, side, side).at(8192)).unwrap();
        let tmp = c.alloc(TileDesc::vec(t, side, side).at(16384)).unwrap();
        let src = common::all_bits(&c, &s);
        let before = common::all_bits(&c, &d);
        let tmp_before = common::all_bits(&c, &tmp);
        c.exec(&TileOp { op: OpCode::Ttrans, args: Args::TransposeTmp { dst: d, src: s, tmp } }).unwrap();
        let after = common::all_bits(&c, &d);
        let (r, k) = if arch == "a5" { (side, side) } else { (vr, vc) };
        for i in 0..side {
            for j in 0..side {
                let want = if i < k && j < r { src[j][i] } else { before[i][j] };
                prop_assert_eq!(after[i][j], want, "({}, {})", i, j);
            }
        }
        prop_assert_eq!(common::all_bits(&c, &tmp), tmp_before);
    }
}

#[test]
fn tconcat_indexed_worked_example() {
    // One row, int32 indices: src0 gives 12 bytes = 3 columns, src1 9 bytes = 2 columns (the
    // division drops the remainder); dst has 4 valid columns, so src1 gets 1; dstIdx = 4 * 4.
    for arch in ["a2a3", "a5"] {
        let mut c = core(arch);
        let s0 = c.alloc(TileDesc::vec(I32, 1, 8).at(0)).unwrap();
        let s1 = c.alloc(TileDesc::vec(I32, 1, 8).at(64)).unwrap();
        let d = c
            .alloc(TileDesc::vec(I32, 1, 8).valid(1, 4).at(128))
            .unwrap();
        let i0 = c
            .alloc(TileDesc::vec(I32, 1, 8).valid(1, 1).at(192))
            .unwrap();
        let i1 = c
            .alloc(TileDesc::vec(I32, 1, 8).valid(1, 1).at(256))
            .unwrap();
        let di = c
            .alloc(TileDesc::vec(I32, 1, 8).valid(1, 1).at(320))
            .unwrap();
        for j in 0..8 {
            c.set_bits(&s0, 0, j, 10 + j as u64).unwrap();
            c.set_bits(&s1, 0, j, 20 + j as u64).unwrap();
            c.set_bits(&d, 0, j, 99).unwrap();
        }
        c.set_bits(&i0, 0, 0, 12).unwrap();
        c.set_bits(&i1, 0, 0, 9).unwrap();
        c.exec(&concat_op(d, s0, s1, i0, i1, Some(di))).unwrap();
        let got: Vec<u64> = (0..8).map(|j| c.get_bits(&d, 0, j).unwrap()).collect();
        assert_eq!(got, vec![10, 11, 12, 20, 99, 99, 99, 99], "{arch}");
        assert_eq!(c.get_bits(&di, 0, 0).unwrap(), 16, "{arch}");
    }
}

#[test]
fn tconcat_indexed_restrictions() {
    let mut c = core("a2a3");
    let s0 = c.alloc(TileDesc::vec(I32, 2, 8).at(0)).unwrap();
    let s1 = c.alloc(TileDesc::vec(I32, 2, 8).at(64)).unwrap();
    let d = c.alloc(TileDesc::vec(I32, 2, 16).at(128)).unwrap();
    let i0 = c
        .alloc(TileDesc::vec(I32, 2, 8).valid(2, 1).at(256))
        .unwrap();
    let i1 = c
        .alloc(TileDesc::vec(I32, 2, 8).valid(2, 1).at(320))
        .unwrap();
    let run = |c: &mut TileCore, op: TileOp| c.exec(&op).unwrap_err();
    // Index tiles must be integer.
    let fi = c
        .alloc(TileDesc::vec(F32, 2, 8).valid(2, 1).at(384))
        .unwrap();
    says(
        run(&mut c, concat_op(d, s0, s1, fi, i1, None)),
        &["TCONCAT", "src0Idx", "int32", "float"],
    );
    // Index types must agree.
    let h = c
        .alloc(TileDesc::vec(I16, 2, 16).valid(2, 1).at(384))
        .unwrap();
    says(
        run(&mut c, concat_op(d, s0, s1, i0, h, None)),
        &["TCONCAT", "src1Idx"],
    );
    // Data types must agree.
    let f = c.alloc(TileDesc::vec(F32, 2, 8).at(448)).unwrap();
    says(
        run(&mut c, concat_op(d, s0, f, i0, i1, None)),
        &["TCONCAT", "src1"],
    );
    // Valid rows.
    let s1r = c
        .alloc(TileDesc::vec(I32, 2, 8).valid(1, 8).at(64))
        .unwrap();
    says(
        run(&mut c, concat_op(d, s0, s1r, i0, i1, None)),
        &["TCONCAT", "src1", "valid rows"],
    );
    // Index tiles with fewer rows than dst's valid rows.
    let short = c
        .alloc(TileDesc::vec(I32, 1, 8).valid(1, 1).at(256))
        .unwrap();
    says(
        run(&mut c, concat_op(d, s0, s1, short, i1, None)),
        &["TCONCAT", "src0Idx", "a row for each"],
    );
    // dstIdx has one valid column.
    let wide = c
        .alloc(TileDesc::vec(I32, 2, 8).valid(2, 2).at(448))
        .unwrap();
    says(
        run(&mut c, concat_op(d, s0, s1, i0, i1, Some(wide))),
        &["TCONCAT", "dstIdx", "one valid column", "2"],
    );
    // Negative counts.
    c.set_bits(&i0, 1, 0, (-4i32) as u32 as u64).unwrap();
    says(
        run(&mut c, concat_op(d, s0, s1, i0, i1, None)),
        &["TCONCAT", "src0Idx", "negative", "row 1: -4"],
    );
    // A count reading past the source's 8 columns (dst has 16 valid columns).
    c.set_bits(&i0, 1, 0, 9 * 4).unwrap();
    says(
        run(&mut c, concat_op(d, s0, s1, i0, i1, None)),
        &[
            "TCONCAT",
            "src0Idx",
            "past the source",
            "9 columns of a 8-column",
        ],
    );
    // Location and layout.
    let m = c
        .alloc(TileDesc::new(TileLoc::Mat, I32, 2, 8).at(0))
        .unwrap();
    c.set_bits(&i0, 1, 0, 0).unwrap();
    says(
        run(&mut c, concat_op(d, s0, s1, m, i1, None)),
        &["TCONCAT", "src0Idx", "Vec"],
    );
    let cm = c
        .alloc(
            TileDesc::vec(I32, 8, 8)
                .layout(BLayout::ColMajor, SLayout::NoneBox)
                .valid(2, 1)
                .at(512),
        )
        .unwrap();
    says(
        run(&mut c, concat_op(d, s0, s1, i0, cm, None)),
        &["TCONCAT", "src1Idx", "row-major"],
    );
}

#[test]
fn ttrans_tmp_restrictions() {
    let mut c = core("a2a3");
    // f32 16 x 16: strides 16 elements (a multiple of 16 and of 8 per block): tmp is used and
    // needs 16 * ceil(16 / 16) * 16 * 4 = 1024 bytes.
    let s = c.alloc(TileDesc::vec(F32, 16, 16).at(0)).unwrap();
    let d = c.alloc(TileDesc::vec(F32, 16, 16).at(1024)).unwrap();
    let op = |tmp: Tile| TileOp {
        op: OpCode::Ttrans,
        args: Args::TransposeTmp {
            dst: d,
            src: s,
            tmp,
        },
    };
    let small = c.alloc(TileDesc::vec(F32, 8, 16).at(4096)).unwrap();
    says(
        c.exec(&op(small)).unwrap_err(),
        &["TTRANS", "tmp", "512 bytes for 1024"],
    );
    let over = c.alloc(TileDesc::vec(F32, 16, 16).at(512)).unwrap();
    says(
        c.exec(&op(over)).unwrap_err(),
        &["TTRANS", "tmp", "overlap", "src"],
    );
    let over_d = c.alloc(TileDesc::vec(F32, 16, 16).at(1536)).unwrap();
    says(
        c.exec(&op(over_d)).unwrap_err(),
        &["TTRANS", "tmp", "overlap", "dst"],
    );
    let mat = c
        .alloc(TileDesc::new(TileLoc::Mat, F32, 16, 16).at(0))
        .unwrap();
    says(c.exec(&op(mat)).unwrap_err(), &["TTRANS", "tmp", "Vec"]);
    let ok = c.alloc(TileDesc::vec(F32, 16, 16).at(4096)).unwrap();
    c.exec(&op(ok)).unwrap();
    // A valid region of 5 rows: ceil(5 / 16) * 16 = 16 rows of tmp per column still.
    let s5 = c
        .alloc(TileDesc::vec(F32, 16, 16).valid(5, 16).at(0))
        .unwrap();
    let op5 = |tmp: Tile| TileOp {
        op: OpCode::Ttrans,
        args: Args::TransposeTmp {
            dst: d,
            src: s5,
            tmp,
        },
    };
    says(
        c.exec(&op5(small)).unwrap_err(),
        &["TTRANS", "tmp", "512 bytes for 1024"],
    );
    // dst stride 8 (not a multiple of 16): the scalar path, tmp unused, any tmp accepted.
    let s8 = c.alloc(TileDesc::vec(F32, 8, 8).at(0)).unwrap();
    let d8 = c.alloc(TileDesc::vec(F32, 8, 8).at(1024)).unwrap();
    let tiny = c.alloc(TileDesc::vec(F32, 1, 8).at(256)).unwrap();
    c.exec(&TileOp {
        op: OpCode::Ttrans,
        args: Args::TransposeTmp {
            dst: d8,
            src: s8,
            tmp: tiny,
        },
    })
    .unwrap();
    // A5: the 2-D transpose never uses tmp.
    let mut c5 = core("a5");
    let small5 = c5.alloc(TileDesc::vec(F32, 8, 16).at(512)).unwrap();
    c5.exec(&TileOp {
        op: OpCode::Ttrans,
        args: Args::TransposeTmp {
            dst: d,
            src: s,
            tmp: small5,
        },
    })
    .unwrap();
}
