//! PTOAS verifier rules for `pto.tinsert` / `pto.textract` (PTOAS `TInsertOp::verify`,
//! `TExtractOp::verify`): each broken rule is a named `[rule]` error at check time, and the
//! legal neighbour of each broken case parses. The kernels are our own reductions.

use npusim_ptoas::parse_module;

fn tile(loc: &str, dtype: &str, layout: &str) -> String {
    format!(
        "!pto.tile_buf<loc={loc}, dtype={dtype}, rows=32, cols=32, v_row=32, v_col=32, {layout}, fractal=512, pad=0>"
    )
}

const NZ: &str = "blayout=col_major, slayout=row_major";
const ND: &str = "blayout=row_major, slayout=none_box";

fn kernel(arch: &str, op: &str, src: &str, dst: &str) -> String {
    format!(
        r#"module attributes {{"pto.target_arch" = "{arch}"}} {{
  func.func @k() {{
    %c0 = arith.constant 0 : index
    %s = pto.alloc_tile : {src}
    %d = pto.alloc_tile : {dst}
    pto.{op} ins(%s, %c0, %c0 : {src}, index, index) outs(%d : {dst})
    return
  }}
}}
"#
    )
}

/// The first error's message, or `None` when the kernel parses.
fn first_error(src: &str) -> Option<String> {
    parse_module(src, "t.pto")
        .err()
        .map(|d| d.first().map(|x| x.message.clone()).unwrap_or_default())
}

#[test]
fn tinsert_a2a3_needs_acc_f32_to_mat_half() {
    let acc = tile("acc", "f32", NZ);
    // Legal: acc f32 -> mat f16 / bf16.
    for d in ["f16", "bf16"] {
        let k = kernel("a3", "tinsert", &acc, &tile("mat", d, NZ));
        assert_eq!(first_error(&k), None, "{d}");
    }
    let e = first_error(&kernel("a3", "tinsert", &acc, &tile("mat", "f32", NZ))).unwrap();
    assert!(
        e.starts_with("[tinsert-a2a3-dtype]") && e.contains("dst=f32"),
        "{e}"
    );
    let e = first_error(&kernel(
        "a3",
        "tinsert",
        &tile("vec", "f32", ND),
        &tile("vec", "f32", ND),
    ))
    .unwrap();
    assert!(e.starts_with("[tinsert-a2a3-loc]"), "{e}");
    let e = first_error(&kernel(
        "a3",
        "tinsert",
        &tile("acc", "f32", "blayout=col_major, slayout=col_major"),
        &tile("mat", "f16", NZ),
    ));
    // A col_major/col_major acc tile is refused either by the tile rules or by this one.
    assert!(e.is_some());
}

#[test]
fn tinsert_a5_loc_pairs_layouts_and_types() {
    let ok = [
        (tile("acc", "f32", NZ), tile("mat", "f32", NZ)),
        (tile("acc", "i32", NZ), tile("mat", "i32", NZ)),
        (tile("vec", "f16", ND), tile("mat", "f16", NZ)),
        (tile("vec", "i8", ND), tile("vec", "i8", ND)),
    ];
    for (s, d) in &ok {
        assert_eq!(
            first_error(&kernel("a5", "tinsert", s, d)),
            None,
            "{s} -> {d}"
        );
    }
    let bad = [
        (
            tile("vec", "f32", ND),
            tile("acc", "f32", NZ),
            "[tinsert-a5-loc]",
        ),
        (
            tile("acc", "i32", NZ),
            tile("mat", "f32", NZ),
            "[tinsert-a5-dtype]",
        ),
        (
            tile("vec", "i16", ND),
            tile("vec", "i16", ND),
            "[tinsert-a5-dtype]",
        ),
        (
            tile("vec", "f32", NZ),
            tile("vec", "f32", ND),
            "[tinsert-vec-layout]",
        ),
    ];
    for (s, d, rule) in &bad {
        let e = first_error(&kernel("a5", "tinsert", s, d)).unwrap_or_default();
        assert!(e.starts_with(rule), "{s} -> {d}: {e}");
    }
}

#[test]
fn textract_a5_vec_to_vec_is_nd() {
    let s = tile("vec", "f16", ND);
    let d = tile("vec", "f16", ND).replace(
        "rows=32, cols=32, v_row=32, v_col=32",
        "rows=16, cols=16, v_row=16, v_col=16",
    );
    assert_eq!(first_error(&kernel("a5", "textract", &s, &d)), None);
    let e = first_error(&kernel("a5", "textract", &tile("vec", "f16", NZ), &d)).unwrap();
    assert!(e.starts_with("[textract-vec-layout]"), "{e}");
    let e = first_error(&kernel("a5", "textract", &s, &tile("acc", "f32", NZ))).unwrap();
    assert!(e.starts_with("[textract-a5-loc]"), "{e}");
}

/// `pto.bitcast` changes the element type; the same type is PTOAS's error (use treshape).
#[test]
fn bitcast_needs_another_element_type() {
    let k = |to: &str| {
        format!(
            r#"module {{
  func.func @k() {{
    %t = pto.alloc_tile : !pto.tile_buf<vec, 32x32xf32>
    %b = pto.bitcast %t : !pto.tile_buf<vec, 32x32xf32> -> !pto.tile_buf<vec, 32x32x{to}>
    return
  }}
}}
"#
        )
    };
    assert_eq!(first_error(&k("i32")), None);
    let e = first_error(&k("f32")).unwrap();
    assert!(e.starts_with("[bitcast-dtype]"), "{e}");
}

/// `pto.tprelu`'s third input is its tmp tile, the comparison mask (TPRELU page, Temporary
/// Space): `ui8` on A2A3 (PTOAS's Prelu sample), any type on A5 where it is unused; it is not
/// held to the data operands' element type, while src0/src1/dst still are.
#[test]
fn tprelu_tmp_is_a_ui8_mask_not_a_data_operand() {
    let k = |arch: &str, s1: &str, tmp: &str| {
        let t = |d: &str| format!("!pto.tile_buf<vec, 32x32x{d}>");
        format!(
            r#"module attributes {{"pto.target_arch" = "{arch}"}} {{
  func.func @k() {{
    %a = pto.alloc_tile : {f}
    %b = pto.alloc_tile : {s1t}
    %m = pto.alloc_tile : {tmpt}
    %d = pto.alloc_tile : {f}
    pto.tprelu ins(%a, %b, %m : {f}, {s1t}, {tmpt}) outs(%d : {f})
    return
  }}
}}
"#,
            f = t("f32"),
            s1t = t(s1),
            tmpt = t(tmp)
        )
    };
    assert_eq!(first_error(&k("a2a3", "f32", "ui8")), None);
    assert_eq!(first_error(&k("a5", "f32", "f32")), None);
    let e = first_error(&k("a2a3", "f32", "f32")).expect("f32 mask on a2a3");
    assert!(
        e.contains("needs a `ui8` tmp tile") && e.contains("`%m` is `f32`"),
        "{e}"
    );
    let e = first_error(&k("a2a3", "f16", "ui8")).expect("mixed data types");
    assert!(e.contains("needs one element type"), "{e}");
}
