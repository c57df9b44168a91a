//! Type printer/parser round trips: both `!pto.tile_buf` spellings print and parse back to the
//! same type, and the other PTO types survive `parse -> print -> parse`.

use npusim_ptoas::{
    BLayout, CompactMode, DType, Dim, Loc, PadValue, SLayout, TileBufType, Type, parse_type,
};
use proptest::prelude::*;

fn tile(src: &str) -> TileBufType {
    match parse_type(src) {
        Ok(Type::TileBuf(t)) => t,
        other => panic!("{src}: {other:?}"),
    }
}

fn assert_round_trips(t: &TileBufType) {
    let long = t.to_long_string();
    let compact = t.to_compact_string();
    assert_eq!(&tile(&long), t, "long: {long}");
    assert_eq!(&tile(&compact), t, "compact: {compact}");
    assert_eq!(tile(&long).to_compact_string(), compact);
    assert_eq!(tile(&compact).to_long_string(), long);
}

#[test]
fn long_and_compact_spellings_denote_the_same_type() {
    let pairs = [
        (
            "!pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=128, v_row=16, v_col=1, blayout=col_major, slayout=none_box, fractal=512, pad=0>",
            "!pto.tile_buf<vec, 16x128xf32, valid=16x1, blayout=col_major>",
        ),
        (
            "!pto.tile_buf<loc=vec, dtype=f32, rows=32, cols=32, v_row=32, v_col=?, blayout=row_major, slayout=none_box, fractal=512, pad=0>",
            "!pto.tile_buf<vec, 32x32xf32, valid=32x?>",
        ),
        (
            "!pto.tile_buf<loc=vec, dtype=f16, rows=1, cols=16, v_row=1, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=0>",
            "!pto.tile_buf<vec, 1x16xf16>",
        ),
        (
            "!pto.tile_buf<loc=acc, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=col_major, slayout=row_major, fractal=1024, pad=0>",
            "!pto.tile_buf<acc, 16x16xf32, blayout=col_major, slayout=row_major, fractal=1024>",
        ),
        (
            "!pto.tile_buf<loc=vec, dtype=ui16, rows=8, cols=8, v_row=?, v_col=?, blayout=col_major, slayout=row_major, fractal=1024, pad=1, compact=2>",
            "!pto.tile_buf<vec, 8x8xui16, valid=?x?, blayout=col_major, slayout=row_major, fractal=1024, pad=1, compact=2>",
        ),
    ];
    for (long, compact) in pairs {
        let a = tile(long);
        let b = tile(compact);
        assert_eq!(a, b, "{long} vs {compact}");
        assert_eq!(a.to_long_string(), long);
        assert_eq!(a.to_compact_string(), compact);
        assert_round_trips(&a);
    }
}

#[test]
fn accepted_variants_of_the_spellings() {
    let want = tile("!pto.tile_buf<vec, 16x16xf32, valid=16x?>");
    // keys in another order, `-1` for dynamic, legacy `valid=`, the `ub` name, pad mnemonics
    for src in [
        "!pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=16, v_row=16, v_col=-1, blayout=row_major, slayout=none_box, fractal=512, pad=0>",
        "!pto.tile_buf<loc=ub, dtype=f32, rows=16, cols=16, valid=16x?>",
        "!pto.tile_buf<vec, 16x16xf32, pad=null, valid=16x?>",
        "!pto.tile_buf<loc=vec,dtype=f32,rows=16,cols=16,v_row=16,v_col=?,blayout=row_major,slayout=none_box,fractal=512,pad=0>",
        "!pto.tile_buf<loc=vec, dtype=f32,\n   rows=16, cols=16, v_row=16, v_col=?, // comment\n   blayout=row_major, slayout=none_box, fractal=512, pad=0>",
    ] {
        assert_eq!(tile(src), want, "{src}");
    }
    // The SSA `!pto.tile` spellings of the ISA pages map to vec tile buffers.
    let t = tile("!pto.tile<16x16xf32>");
    assert_eq!(t, TileBufType::new(Loc::Vec, DType::F32, 16, 16));
    assert_eq!(tile("!pto.tile<f32, 16, 16>"), t);
    let z = tile("!pto.tile<loc=vec, f32, 16, 16, RowMajor, NoneBox, None, Zero>");
    assert_eq!(z.pad, PadValue::Zero);
}

#[test]
fn rejected_tile_bufs() {
    for (src, needle) in [
        ("!pto.tile_buf<vec, 16x16x16xf32>", "two static dims"),
        ("!pto.tile_buf<vec, ?x16xf32>", "two static dims"),
        (
            "!pto.tile_buf<vec, 16x16xf64>",
            "unknown element type `f64`",
        ),
        ("!pto.tile_buf<vram, 16x16xf32>", "unknown memory `vram`"),
        (
            "!pto.tile_buf<vec, 16x16xf32, valid=32x16>",
            "valid rows (32) exceed",
        ),
        ("!pto.tile_buf<vec, 16x16xf32, pad=7>", "unknown pad `7`"),
        (
            "!pto.tile_buf<vec, 16x16xf32, blayout=diagonal>",
            "unknown blayout `diagonal`",
        ),
        (
            "!pto.tile_buf<vec, 16x16xf32, valid=16x1, valid=16x2>",
            "duplicate `valid`",
        ),
        (
            "!pto.tile_buf<loc=vec, dtype=f32, cols=16>",
            "lacks `rows=`",
        ),
        (
            "!pto.tile_buf<vec, 16x16xf32, valid=16x1x2>",
            "exactly two dims",
        ),
    ] {
        match parse_type(src) {
            Ok(t) => panic!("{src} parsed as {t}"),
            Err(d) => assert!(d.message.contains(needle), "{src}: {}", d.message),
        }
    }
}

#[test]
fn other_types_round_trip() {
    for src in [
        "f32",
        "bf16",
        "index",
        "i1",
        "!pto.ptr<f16>",
        "!pto.ptr<f32, gm>",
        "!pto.tensor_view<?x?xbf16>",
        "!pto.tensor_view<1x2x?x16x512xf32>",
        "!pto.partition_tensor_view<16x512xbf16>",
        "!pto.partition_tensor_view<1x1x2x16x64xi8>",
    ] {
        let t = parse_type(src).unwrap_or_else(|d| panic!("{src}: {}", d.message));
        assert_eq!(t.to_string(), src);
        assert_eq!(parse_type(&t.to_string()).ok(), Some(t));
    }
    assert!(
        parse_type("!pto.tensor_view<1x1x1x1x1x1xf32>").is_err(),
        "rank 6"
    );
}

fn arb_tile() -> impl Strategy<Value = TileBufType> {
    let loc = prop::sample::select(vec![
        Loc::Vec,
        Loc::Mat,
        Loc::Left,
        Loc::Right,
        Loc::Acc,
        Loc::Bias,
        Loc::Scaling,
    ]);
    let dtype = prop::sample::select(DType::ALL.to_vec());
    let bl = prop::sample::select(vec![BLayout::RowMajor, BLayout::ColMajor]);
    let sl = prop::sample::select(vec![SLayout::NoneBox, SLayout::RowMajor, SLayout::ColMajor]);
    let pad = prop::sample::select(vec![
        PadValue::Null,
        PadValue::Zero,
        PadValue::Max,
        PadValue::Min,
    ]);
    let compact = prop::sample::select(vec![
        CompactMode::Null,
        CompactMode::Normal,
        CompactMode::RowPlusOne,
    ]);
    let fractal = prop::sample::select(vec![32u64, 512, 1024]);
    (
        loc,
        dtype,
        1u64..5000,
        1u64..5000,
        any::<(bool, bool, u64, u64)>(),
        bl,
        sl,
        fractal,
        pad,
        compact,
    )
        .prop_map(
            |(loc, dtype, rows, cols, (dr, dc, vr, vc), bl, sl, fractal, pad, compact)| {
                let mut t = TileBufType::new(loc, dtype, rows, cols);
                t.valid_row = if dr {
                    Dim::Dynamic
                } else {
                    Dim::Static(vr % (rows + 1))
                };
                t.valid_col = if dc {
                    Dim::Dynamic
                } else {
                    Dim::Static(vc % (cols + 1))
                };
                t.blayout = bl;
                t.slayout = sl;
                t.fractal = fractal;
                t.pad = pad;
                t.compact = compact;
                t
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn any_tile_buf_round_trips_in_both_spellings(t in arb_tile()) {
        let long = t.to_long_string();
        let compact = t.to_compact_string();
        prop_assert_eq!(tile(&long), t);
        prop_assert_eq!(tile(&compact), t);
    }
}
