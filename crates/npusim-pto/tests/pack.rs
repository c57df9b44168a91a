//! TPACK (pto-isa `docs/isa/TPACK.md`, PTOAS `docs/PTO_IR_manual.md` "pto.tpack") against a
//! plain model written here: each valid element keeps its low-order bits (`bits & mask` of the
//! destination width), over a scrambled memory so a write outside the valid region shows; then
//! the restrictions (A5 only, size pairs, equal valid shapes, Vec row-major) as typed errors.

mod common;

use common::{all_bits, scramble};
use npusim_pto::*;
use proptest::prelude::*;

const PAIRS: [(ElemType, ElemType); 8] = [
    (ElemType::I32, ElemType::I16),
    (ElemType::U32, ElemType::U16),
    (ElemType::F32, ElemType::F16),
    (ElemType::I32, ElemType::I8),
    (ElemType::U32, ElemType::U8),
    (ElemType::I16, ElemType::I8),
    (ElemType::U16, ElemType::U8),
    (ElemType::F16, ElemType::U8),
];

fn a5() -> TileCore {
    TileCore::by_name("a5").unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn tpack_keeps_the_low_bits(
        pair in 0usize..PAIRS.len(),
        rows in 1usize..6,
        vr_cut in 0usize..3,
        vc in 1usize..40,
        seed in any::<u64>(),
    ) {
        let (st, dt) = PAIRS[pair];
        let mut c = a5();
        scramble(&mut c, 1 << 16, seed);
        let vr = rows.saturating_sub(vr_cut).max(1);
        // 32-byte rows for both tiles.
        let scols = (vc * st.size()).div_ceil(32) * 32 / st.size();
        let dcols = (vc * dt.size()).div_ceil(32) * 32 / dt.size();
        let src = c.alloc(TileDesc::vec(st, rows, scols).valid(vr, vc).at(0)).unwrap();
        let dst = c
            .alloc(TileDesc::vec(dt, rows, dcols).valid(vr, vc).at(0x4000))
            .unwrap();
        let s = all_bits(&c, &src);
        let before = all_bits(&c, &dst);
        c.tpack(&dst, &src).unwrap();
        let after = all_bits(&c, &dst);
        let mask = (1u64 << (8 * dt.size())) - 1;
        for r in 0..rows {
            for k in 0..dcols {
                let want = if r < vr && k < vc { s[r][k] & mask } else { before[r][k] };
                prop_assert_eq!(after[r][k], want, "({}, {}) {:?} -> {:?}", r, k, st, dt);
            }
        }
    }
}

#[test]
fn tpack_through_exec_and_the_restrictions() {
    let mut c = a5();
    let src = c.alloc(TileDesc::vec(ElemType::I32, 2, 8).at(0)).unwrap();
    let dst = c
        .alloc(TileDesc::vec(ElemType::I16, 2, 16).valid(2, 8).at(0x400))
        .unwrap();
    for r in 0..2 {
        for k in 0..8 {
            c.set_bits(&src, r, k, 0x1234_0000 + (r * 8 + k) as u64 * 0x0101)
                .unwrap();
        }
    }
    c.exec(&TileOp {
        op: OpCode::Tpack,
        args: Args::Unary { dst, src },
    })
    .unwrap();
    assert_eq!(c.get_bits(&dst, 1, 3).unwrap(), 11 * 0x0101);
    // A2A3 has no TPACK.
    let mut a2 = TileCore::by_name("a2a3").unwrap();
    let s2 = a2.alloc(TileDesc::vec(ElemType::I32, 2, 8).at(0)).unwrap();
    let d2 = a2
        .alloc(TileDesc::vec(ElemType::I16, 2, 16).valid(2, 8).at(0x400))
        .unwrap();
    let e = a2.tpack(&d2, &s2).unwrap_err().to_string();
    assert!(e.contains("TPACK") && e.contains("a2a3"), "{e}");
    // Same size, or widening: refused.
    let d32 = c
        .alloc(TileDesc::vec(ElemType::U32, 2, 8).at(0x800))
        .unwrap();
    let e = c.tpack(&d32, &src).unwrap_err().to_string();
    assert!(e.contains("TPACK") && e.contains("4 -> 2"), "{e}");
    // Valid shapes differ.
    let d = c
        .alloc(TileDesc::vec(ElemType::I16, 2, 16).valid(1, 8).at(0x400))
        .unwrap();
    let e = c.tpack(&d, &src).unwrap_err();
    assert!(
        matches!(e, PtoError::ValidRegion { op: "TPACK", .. }),
        "{e}"
    );
    // A source type off the list (8-byte).
    let s64 = c
        .alloc(TileDesc::vec(ElemType::I64, 2, 4).at(0x800))
        .unwrap();
    assert!(c.tpack(&dst, &s64).is_err());
}
