//! TFILLPAD, TFILLPAD_INPLACE and TFILLPAD_EXPAND (pto-isa `docs/isa/TFILLPAD.md`) against a
//! plain model written here: dst's whole static shape holds src inside src's valid region and
//! the pad value's bit pattern elsewhere; plus one test per restriction.

use npusim_pto::*;
use proptest::prelude::*;

fn core(name: &str) -> TileCore {
    TileCore::by_name(name).unwrap()
}

/// The pad value's bits per type, from the page (+/-inf for floats, the type's extremes for
/// integers), spelled out independently of the crate.
fn pad_bits(t: ElemType, p: PadValue) -> u64 {
    use ElemType::*;
    match (p, t) {
        (PadValue::Zero, _) => 0,
        (PadValue::Max, F32) => 0x7f80_0000,
        (PadValue::Min, F32) => 0xff80_0000,
        (PadValue::Max, F16) => 0x7c00,
        (PadValue::Min, F16) => 0xfc00,
        (PadValue::Max, Bf16) => 0x7f80,
        (PadValue::Min, Bf16) => 0xff80,
        (PadValue::Max, I32) => 0x7fff_ffff,
        (PadValue::Min, I32) => 0x8000_0000,
        (PadValue::Max, I16) => 0x7fff,
        (PadValue::Min, I16) => 0x8000,
        (PadValue::Max, U8) => 0xff,
        (PadValue::Min, U8) => 0,
        (PadValue::Max, I8) => 0x7f,
        (PadValue::Min, I8) => 0x80,
        other => panic!("no model for {other:?}"),
    }
}

#[derive(Clone, Copy, Debug)]
enum Mode {
    Normal,
    InPlace,
    Expand,
}

fn case() -> impl Strategy<Value = (ElemType, usize, usize, usize, usize, PadValue, Mode, u64)> {
    use ElemType::*;
    (
        prop::sample::select(vec![F32, F16, Bf16, I32, I16, U8, I8]),
        1usize..6,
        1usize..3,
        prop::sample::select(vec![PadValue::Zero, PadValue::Max, PadValue::Min]),
        prop::sample::select(vec![Mode::Normal, Mode::InPlace, Mode::Expand]),
        any::<u64>(),
    )
        .prop_flat_map(|(t, rows, blocks, pad, mode, seed)| {
            let cols = blocks * 32 / t.size();
            (
                Just(t),
                Just(rows),
                Just(cols),
                0..=rows,
                0..=cols,
                Just(pad),
                Just(mode),
                Just(seed),
            )
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]
    #[test]
    fn fillpad_matches_the_model(
        (t, rows, cols, vr, vc, pad, mode, seed) in case(),
        arch in prop::sample::select(vec!["a2a3", "a5"]),
    ) {
        let mut c = core(arch);
        let src = c.alloc(TileDesc::vec(t, rows, cols).valid(vr, vc).at(0)).unwrap();
        let (drows, dcols) = match mode {
            Mode::Expand => (rows + 2, cols + 32 / t.size()),
            _ => (rows, cols),
        };
        let dst = match mode {
            Mode::InPlace => c.alloc(TileDesc::vec(t, rows, cols).pad(pad).at(0)).unwrap(),
            _ => c.alloc(TileDesc::vec(t, drows, dcols).pad(pad).at(4096)).unwrap(),
        };
        // Random bytes everywhere both tiles live.
        let mut x = seed | 1;
        for b in c.mem_mut(TileLoc::Vec)[..8192].iter_mut() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            *b = x as u8;
        }
        let before: Vec<u64> = (0..rows)
            .flat_map(|r| (0..cols).map(move |k| (r, k)))
            .map(|(r, k)| c.get_bits(&src, r, k).unwrap())
            .collect();
        let op = match mode {
            Mode::Normal => OpCode::Tfillpad,
            Mode::InPlace => OpCode::TfillpadInplace,
            Mode::Expand => OpCode::TfillpadExpand,
        };
        c.tfillpad(op, &dst, &src).unwrap();
        let p = pad_bits(t, pad);
        for r in 0..dst.rows() {
            for k in 0..dst.cols() {
                let want = if r < vr && k < vc { before[r * cols + k] } else { p };
                prop_assert_eq!(c.get_bits(&dst, r, k).unwrap(), want, "({}, {})", r, k);
            }
        }
    }
}

#[test]
fn fillpad_restrictions() {
    use ElemType::*;
    let mut c = core("a2a3");
    let src = c.alloc(TileDesc::vec(F32, 4, 16).at(0)).unwrap();
    let says = |e: PtoError, parts: &[&str]| {
        let s = e.to_string();
        for p in parts {
            assert!(s.contains(p), "{s:?} does not name {p:?}");
        }
    };
    // A Null pad value.
    let d = c.alloc(TileDesc::vec(F32, 4, 16).at(1024)).unwrap();
    says(
        c.tfillpad(OpCode::Tfillpad, &d, &src).unwrap_err(),
        &["TFILLPAD", "dst", "must not be Null"],
    );
    // Shapes: TFILLPAD needs equal shapes, TFILLPAD_EXPAND a larger dst.
    let big = c
        .alloc(TileDesc::vec(F32, 8, 16).pad(PadValue::Max).at(1024))
        .unwrap();
    says(
        c.tfillpad(OpCode::Tfillpad, &big, &src).unwrap_err(),
        &["TFILLPAD", "same static shape", "dst 8x16, src 4x16"],
    );
    c.tfillpad(OpCode::TfillpadExpand, &big, &src).unwrap();
    says(
        c.tfillpad(OpCode::TfillpadExpand, &src_pad(&c), &big)
            .unwrap_err(),
        &["TFILLPAD_EXPAND", "at least src's", "dst 4x16, src 8x16"],
    );
    // Element types: equal, and of 1, 2 or 4 bytes.
    let h = c
        .alloc(TileDesc::vec(F16, 4, 32).pad(PadValue::Max).at(1024))
        .unwrap();
    let hs = c.alloc(TileDesc::vec(I16, 4, 32).at(0)).unwrap();
    says(
        c.tfillpad(OpCode::Tfillpad, &h, &hs).unwrap_err(),
        &["TFILLPAD", "src", "int16"],
    );
    let l = c
        .alloc(TileDesc::vec(I64, 4, 4).pad(PadValue::Max).at(1024))
        .unwrap();
    let ls = c.alloc(TileDesc::vec(I64, 4, 4).at(0)).unwrap();
    says(
        c.tfillpad(OpCode::Tfillpad, &l, &ls).unwrap_err(),
        &["TFILLPAD", "int64", "not legal"],
    );
}

fn src_pad(c: &TileCore) -> Tile {
    c.alloc(
        TileDesc::vec(ElemType::F32, 4, 16)
            .pad(PadValue::Max)
            .at(2048),
    )
    .unwrap()
}
