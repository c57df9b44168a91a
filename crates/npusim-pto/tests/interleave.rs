//! TINTERLEAVE, TDEINTERLEAVE and TPAIRREDUCESUM against plain models written here from the
//! pages' formulas (pto-isa `docs/isa/TINTERLEAVE.md`, `TDEINTERLEAVE.md`,
//! `TPAIRREDUCESUM.md`), on every legal type with special values (NaN payloads, ±0, ±inf,
//! denormals), over a scrambled memory so that a write outside the valid region shows; then one
//! test per restriction class.

mod common;

use common::{V, all_bits, decode, encode, same, scramble, special};
use npusim_pto::*;
use proptest::prelude::*;

const TYPES: [ElemType; 9] = [
    ElemType::I32,
    ElemType::U32,
    ElemType::F32,
    ElemType::I16,
    ElemType::U16,
    ElemType::F16,
    ElemType::Bf16,
    ElemType::U8,
    ElemType::I8,
];

fn tile(
    c: &TileCore,
    t: ElemType,
    rows: usize,
    cols: usize,
    vr: usize,
    vc: usize,
    at: u64,
) -> Tile {
    c.alloc(TileDesc::vec(t, rows, cols).valid(vr, vc).at(at))
        .unwrap()
}

fn fill(c: &mut TileCore, t: &Tile, seed: &[u64], sel: &[u8]) -> Vec<Vec<u64>> {
    let (vr, vc) = (t.valid_row(), t.valid_col());
    let mut out = vec![vec![0; vc]; vr];
    for (r, row) in out.iter_mut().enumerate() {
        for (k, v) in row.iter_mut().enumerate() {
            let i = (r * vc + k) % seed.len();
            *v = special(t.dtype(), seed[i].rotate_left(r as u32), sel[i]);
            c.set_bits(t, r, k, *v).unwrap();
        }
    }
    out
}

/// Every element outside the valid region kept its scrambled bits.
fn outside_kept(before: &[Vec<u64>], after: &[Vec<u64>], vr: usize, vc: usize) {
    for (r, (b, a)) in before.iter().zip(after).enumerate() {
        for (k, (x, y)) in b.iter().zip(a).enumerate() {
            if r >= vr || k >= vc {
                assert_eq!(x, y, "({r}, {k}) outside the valid region was written");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn interleave_and_deinterleave_match_the_model(
        ti in 0usize..9,
        vr in 1usize..5,
        half in 1usize..40,
        extra in 0usize..2,
        seed in prop::collection::vec(any::<u64>(), 64),
        sel in prop::collection::vec(0u8..8, 64),
    ) {
        let t = TYPES[ti];
        let mut c = TileCore::by_name("a5").unwrap();
        scramble(&mut c, 0x10000, seed[0]);
        let vc = 2 * half;
        let cols = (vc + extra * 32).div_ceil(32 / t.size()) * (32 / t.size());
        let rows = vr + extra;
        let [s0, s1, d0, d1] = [0u64, 0x2000, 0x4000, 0x6000].map(|a| tile(&c, t, rows, cols, vr, vc, a));
        let a = fill(&mut c, &s0, &seed, &sel);
        let b = fill(&mut c, &s1, &seed[7..], &sel[3..]);
        let before = all_bits(&c, &d0);
        c.exec(&TileOp { op: OpCode::Tinterleave, args: Args::Interleave { dst0: d0, dst1: d1, src0: s0, src1: Some(s1) } }).unwrap();
        let (g0, g1) = (all_bits(&c, &d0), all_bits(&c, &d1));
        for r in 0..vr {
            let stream: Vec<u64> = (0..vc).flat_map(|k| [a[r][k], b[r][k]]).collect();
            prop_assert_eq!(&g0[r][..vc], &stream[..vc]);
            prop_assert_eq!(&g1[r][..vc], &stream[vc..]);
        }
        outside_kept(&before, &g0, vr, vc);
        // Two-source TDEINTERLEAVE undoes it.
        let [e0, e1] = [0x8000u64, 0xa000].map(|a| tile(&c, t, rows, cols, vr, vc, a));
        c.exec(&TileOp { op: OpCode::Tdeinterleave, args: Args::Interleave { dst0: e0, dst1: e1, src0: d0, src1: Some(d1) } }).unwrap();
        let (h0, h1) = (all_bits(&c, &e0), all_bits(&c, &e1));
        for r in 0..vr {
            prop_assert_eq!(&h0[r][..vc], &a[r][..]);
            prop_assert_eq!(&h1[r][..vc], &b[r][..]);
        }
        // Single-source: the even and odd columns of s0.
        let [f0, f1] = [0xc000u64, 0xe000].map(|x| tile(&c, t, rows, cols, vr, half, x));
        let before = all_bits(&c, &f1);
        c.exec(&TileOp { op: OpCode::Tdeinterleave, args: Args::Interleave { dst0: f0, dst1: f1, src0: s0, src1: None } }).unwrap();
        let (k0, k1) = (all_bits(&c, &f0), all_bits(&c, &f1));
        for r in 0..vr {
            let even: Vec<u64> = a[r].iter().step_by(2).copied().collect();
            let odd: Vec<u64> = a[r].iter().skip(1).step_by(2).copied().collect();
            prop_assert_eq!(&k0[r][..half], &even[..]);
            prop_assert_eq!(&k1[r][..half], &odd[..]);
        }
        outside_kept(&before, &k1, vr, half);
    }

    #[test]
    fn pairreducesum_matches_the_model(
        a5 in any::<bool>(),
        f16 in any::<bool>(),
        vr in 1usize..5,
        vc in 1usize..70,
        seed in prop::collection::vec(any::<u64>(), 64),
        sel in prop::collection::vec(0u8..8, 64),
    ) {
        let t = if f16 { ElemType::F16 } else { ElemType::F32 };
        let mut c = TileCore::by_name(if a5 { "a5" } else { "a2a3" }).unwrap();
        scramble(&mut c, 0x8000, seed[1]);
        let cols = vc.div_ceil(32 / t.size()) * (32 / t.size());
        let src = tile(&c, t, vr + 1, cols, vr, vc, 0);
        let dst = tile(&c, t, vr + 1, cols, vr, vc, 0x2000);
        let a = fill(&mut c, &src, &seed, &sel);
        let before = all_bits(&c, &dst);
        c.exec(&TileOp { op: OpCode::Tpairreducesum, args: Args::Unary { dst, src } }).unwrap();
        let got = all_bits(&c, &dst);
        let zero = 0u64; // +0 of both types
        for r in 0..vr {
            for k in 0..vc {
                let want = if k < vc.div_ceil(2) {
                    let x = match decode(t, a[r][2 * k]) { V::F(x) => x, V::I(_) => unreachable!() };
                    let y = if 2 * k + 1 < vc {
                        match decode(t, a[r][2 * k + 1]) { V::F(y) => y, V::I(_) => unreachable!() }
                    } else {
                        0.0
                    };
                    // A sum of two f32 (or f16) values is exact in f64 unless it overflows
                    // f64, which these magnitudes cannot: one rounding to t.
                    encode(t, V::F(x + y))
                } else {
                    zero
                };
                prop_assert!(same(t, got[r][k], want), "({}, {}): got {:#x} want {:#x}", r, k, got[r][k], want);
            }
        }
        outside_kept(&before, &got, vr, vc);
    }
}

fn err(c: &mut TileCore, op: OpCode, args: Args) -> String {
    c.exec(&TileOp { op, args }).unwrap_err().to_string()
}

#[test]
fn interleave_restrictions() {
    let mut c = TileCore::by_name("a5").unwrap();
    let v = |c: &TileCore, t, r, k, at| tile(c, t, r, 32, r, k, at);
    let f = ElemType::F32;
    let [a, b, d0, d1] = [0u64, 0x1000, 0x2000, 0x3000].map(|x| v(&c, f, 4, 32, x));
    let il = |dst0, dst1, src0, src1| Args::Interleave {
        dst0,
        dst1,
        src0,
        src1,
    };
    // A2A3: the pages define A5 only.
    let mut a2 = TileCore::by_name("a2a3").unwrap();
    let e = err(&mut a2, OpCode::Tinterleave, il(d0, d1, a, Some(b)));
    assert!(e.contains("TINTERLEAVE") && e.contains("a2a3"), "{e}");
    // Type outside the list (i64).
    let [x, y, z, w] = [0x4000u64, 0x5000, 0x6000, 0x7000].map(|at| v(&c, ElemType::I64, 4, 4, at));
    let e = err(&mut c, OpCode::Tinterleave, il(z, w, x, Some(y)));
    assert!(e.contains("int64") && e.contains("not legal"), "{e}");
    // Mixed types.
    let h = v(&c, ElemType::F16, 4, 32, 0x8000);
    let e = err(&mut c, OpCode::Tinterleave, il(d0, d1, a, Some(h)));
    assert!(e.contains("src1") && e.contains("must equal"), "{e}");
    // Valid shapes differ.
    let small = v(&c, f, 4, 16, 0x9000);
    let e = err(&mut c, OpCode::Tinterleave, il(d0, d1, a, Some(small)));
    assert!(
        e.contains("src1 valid region") && e.contains("dst0's valid shape"),
        "{e}"
    );
    // Odd validCol.
    let [o0, o1, o2, o3] = [0xa000u64, 0xb000, 0xc000, 0xd000].map(|x| v(&c, f, 4, 31, x));
    let e = err(&mut c, OpCode::Tinterleave, il(o0, o1, o2, Some(o3)));
    assert!(
        e.contains("validCol must be even") && e.contains("31"),
        "{e}"
    );
    let e = err(&mut c, OpCode::Tdeinterleave, il(o0, o1, o2, Some(o3)));
    assert!(e.contains("validCol must be even"), "{e}");
    // Single source: destinations not half as wide.
    let e = err(&mut c, OpCode::Tdeinterleave, il(d0, d1, a, None));
    assert!(
        e.contains("half its valid columns") && e.contains("4x32"),
        "{e}"
    );
    // Column-major and non-Vec tiles.
    let cm = c
        .alloc(
            TileDesc::vec(f, 32, 32)
                .layout(BLayout::ColMajor, SLayout::NoneBox)
                .valid(4, 32)
                .at(0xe000),
        )
        .unwrap();
    let e = err(&mut c, OpCode::Tinterleave, il(d0, d1, a, Some(cm)));
    assert!(e.contains("row-major"), "{e}");
    let m = c
        .alloc(TileDesc::new(TileLoc::Mat, f, 16, 32).at(0))
        .unwrap();
    let e = err(&mut c, OpCode::Tinterleave, il(m, d1, a, Some(b)));
    assert!(e.contains("dst0") && e.contains("Vec"), "{e}");
    // TINTERLEAVE needs two sources.
    let e = err(&mut c, OpCode::Tinterleave, il(d0, d1, a, None));
    assert!(e.contains("wrong operands"), "{e}");
}

#[test]
fn pairreducesum_restrictions() {
    let mut c = TileCore::by_name("a2a3").unwrap();
    let t = |c: &TileCore, ty, vr, vc, at| tile(c, ty, 4, 32, vr, vc, at);
    let f = ElemType::F32;
    let d = t(&c, f, 4, 32, 0);
    // bf16 / i32: not on the page's list.
    let (bd, bs) = (
        t(&c, ElemType::Bf16, 4, 32, 0x2000),
        t(&c, ElemType::Bf16, 4, 32, 0x3000),
    );
    let e = err(
        &mut c,
        OpCode::Tpairreducesum,
        Args::Unary { dst: bd, src: bs },
    );
    assert!(
        e.contains("bfloat16") && e.contains("not legal on a2a3"),
        "{e}"
    );
    // Mixed types.
    let h = t(&c, ElemType::F16, 4, 32, 0x4000);
    let e = err(
        &mut c,
        OpCode::Tpairreducesum,
        Args::Unary { dst: d, src: h },
    );
    assert!(e.contains("must equal"), "{e}");
    // Valid shapes differ.
    let s2 = t(&c, f, 3, 32, 0x5000);
    let e = err(
        &mut c,
        OpCode::Tpairreducesum,
        Args::Unary { dst: d, src: s2 },
    );
    assert!(e.contains("src valid region") && e.contains("3x32"), "{e}");
    // Column-major.
    let cm = c
        .alloc(
            TileDesc::vec(f, 32, 32)
                .layout(BLayout::ColMajor, SLayout::NoneBox)
                .valid(4, 32)
                .at(0x6000),
        )
        .unwrap();
    let e = err(
        &mut c,
        OpCode::Tpairreducesum,
        Args::Unary { dst: d, src: cm },
    );
    assert!(e.contains("row-major"), "{e}");
    // The page's worked shape: an all-ones 16x32 f32 row gives 2.0 in the first 16 columns and
    // 0 in the rest.
    let ones = vec![1f32; 16 * 32];
    let (d, s) = (
        c.alloc(TileDesc::vec(f, 16, 32).at(0x8000)).unwrap(),
        c.alloc(TileDesc::vec(f, 16, 32).at(0xa000)).unwrap(),
    );
    c.write_valid(&s, &ones).unwrap();
    c.exec(&TileOp {
        op: OpCode::Tpairreducesum,
        args: Args::Unary { dst: d, src: s },
    })
    .unwrap();
    let out: Vec<f32> = c.read_valid(&d).unwrap();
    for r in 0..16 {
        assert_eq!(&out[r * 32..r * 32 + 16], &[2.0; 16]);
        assert_eq!(&out[r * 32 + 16..r * 32 + 32], &[0.0; 16]);
    }
    let _ = s;
}
