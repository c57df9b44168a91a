//! The MLIR generic op form of the DPS tile ops (`"pto.tmov"(%src, %dst, %pre)
//! <{operandSegmentSizes = array<i32: 1, 1, 0, 1>, ...}> : (...) -> ()`), as PTOAS's
//! `test/basic/tmov_forms_emitc.pto` writes it: one reduced kernel of our own per op and
//! segment layout, each parsed in both forms; both must give the same typed op and lower to the
//! same program. Segment layouts come from the op's ODS definition (hw-native-sys/PTOAS
//! `include/PTO/IR/PTOOps.td`); a generic form whose segments npusim does not know is a
//! `[generic-form]` error naming the op.

use npusim_ptoas::interp::{LowerOptions, lower};
use npusim_ptoas::{Module, OpKind, TargetArch, parse_module, render_all};

const ACC: &str = "!pto.tile_buf<loc=acc, dtype=f32, rows=32, cols=32, v_row=32, v_col=32, blayout=col_major, slayout=row_major, fractal=512, pad=0>";
const FP: &str = "!pto.tile_buf<loc=scaling, dtype=f16, rows=1, cols=32, v_row=1, v_col=32, blayout=row_major, slayout=none_box, fractal=512, pad=0>";
const MAT_F32: &str = "!pto.tile_buf<loc=mat, dtype=f32, rows=32, cols=32, v_row=32, v_col=32, blayout=row_major, slayout=none_box, fractal=512, pad=0>";
const MAT_I8: &str = "!pto.tile_buf<loc=mat, dtype=i8, rows=32, cols=32, v_row=32, v_col=32, blayout=row_major, slayout=none_box, fractal=512, pad=0>";
const VEC_F32: &str = "!pto.tile_buf<loc=vec, dtype=f32, rows=32, cols=32, v_row=32, v_col=32, blayout=row_major, slayout=none_box, fractal=512, pad=0>";
const VEC_I8: &str = "!pto.tile_buf<loc=vec, dtype=i8, rows=32, cols=32, v_row=32, v_col=32, blayout=row_major, slayout=none_box, fractal=512, pad=0>";

/// An A5 kernel with an acc source, a scaling tile, mat/vec destinations (f32 and i8) and a
/// pre-quant scalar, around one op `body`.
fn tmov_kernel(body: &str) -> String {
    format!(
        r#"module attributes {{"pto.device-spec" = "Ascend950"}} {{
  func.func @k() {{
    %src = pto.alloc_tile : {ACC}
    %fp = pto.alloc_tile : {FP}
    %dst_mat = pto.alloc_tile : {MAT_F32}
    %dst_vec = pto.alloc_tile : {VEC_F32}
    %dst_mat_q = pto.alloc_tile : {MAT_I8}
    %dst_vec_q = pto.alloc_tile : {VEC_I8}
    %pre = arith.constant 7 : i64
    {body}
    return
  }}
}}"#
    )
}

fn parse(src: &str) -> Module {
    match parse_module(src, "t.pto") {
        Ok(m) => m,
        Err(d) => panic!("{}\n{src}", render_all(&d, "t.pto", src)),
    }
}

fn err(src: &str) -> String {
    match parse_module(src, "t.pto") {
        Ok(_) => panic!("accepted:\n{src}"),
        Err(d) => d
            .iter()
            .map(|d| d.message.clone())
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

/// The op kinds of the first function (no spans: these must be equal for both forms).
fn op_kinds(m: &Module) -> Vec<String> {
    m.funcs[0]
        .body
        .as_ref()
        .expect("body")
        .ops
        .iter()
        .map(|op| format!("{:?}", op.kind))
        .collect()
}

fn listing(m: &Module, target: TargetArch) -> String {
    let p = lower(
        m,
        LowerOptions {
            target: Some(target),
            ..LowerOptions::default()
        },
    )
    .unwrap_or_else(|d| panic!("lowering failed: {d:?}"));
    p.listing()
}

/// Both forms parse to the same op and lower to the same program, and the op is the DPS tile
/// op `name` with the given operand counts.
fn same(
    generic: &str,
    pretty: &str,
    build: fn(&str) -> String,
    name: &str,
    counts: (usize, usize),
) {
    let g = parse(&build(generic));
    let p = parse(&build(pretty));
    assert_eq!(op_kinds(&g), op_kinds(&p), "{generic}");
    let target = TargetArch::A5;
    let lg = listing(&g, target);
    assert_eq!(lg, listing(&p, target), "{generic}");
    assert!(lg.contains(name), "{name} not in the listing:\n{lg}");
    let tile = g.funcs[0]
        .body
        .as_ref()
        .expect("body")
        .ops
        .iter()
        .find_map(|op| match &op.kind {
            OpKind::Tile { op, ins, outs, .. } if op.name() == name => {
                Some((ins.len(), outs.len()))
            }
            // An op npusim parses but does not execute keeps ins then outs as its operands.
            OpKind::Opaque { op, operands, .. } if op.name() == name => {
                Some((operands.len() - counts.1, counts.1))
            }
            _ => None,
        })
        .unwrap_or_else(|| panic!("no {name}"));
    assert_eq!(tile, counts, "{generic}");
}

#[test]
fn tmov_acc_to_mat_with_a_pre_quant_scalar() {
    same(
        &format!(
            r#""pto.tmov"(%src, %dst_mat_q, %pre) <{{operandSegmentSizes = array<i32: 1, 1, 0, 1>,
                                          reluPreMode = #pto<relu_pre_mode normal_relu>}}> :
        ({ACC},
         {MAT_I8}, i64) -> ()"#
        ),
        &format!(
            "pto.tmov ins(%src : {ACC}, %pre : i64) outs(%dst_mat_q : {MAT_I8}) {{reluPreMode = #pto<relu_pre_mode normal_relu>}}"
        ),
        tmov_kernel,
        "pto.tmov",
        (2, 1),
    );
}

#[test]
fn tmov_acc_to_vec_with_a_mode_and_a_pre_quant_scalar() {
    same(
        &format!(
            r#""pto.tmov"(%src, %dst_vec_q, %pre) <{{operandSegmentSizes = array<i32: 1, 1, 0, 1>,
                                          accToVecMode = #pto.acc_to_vec_mode<single_mode_vec1>,
                                          reluPreMode = #pto<relu_pre_mode normal_relu>}}> :
        ({ACC}, {VEC_I8}, i64) -> ()"#
        ),
        &format!(
            "pto.tmov ins(%src : {ACC}, %pre : i64) outs(%dst_vec_q : {VEC_I8}) {{accToVecMode = #pto.acc_to_vec_mode<single_mode_vec1>, reluPreMode = #pto<relu_pre_mode normal_relu>}}"
        ),
        tmov_kernel,
        "pto.tmov",
        (2, 1),
    );
}

#[test]
fn tmov_with_a_scaling_tile() {
    same(
        &format!(
            r#""pto.tmov"(%src, %dst_mat_q, %fp) <{{operandSegmentSizes = array<i32: 1, 1, 1, 0>}}> {{reluPreMode = #pto<relu_pre_mode normal_relu>}} : ({ACC}, {MAT_I8}, {FP}) -> ()"#
        ),
        &format!(
            "pto.tmov ins(%src : {ACC}, %fp : {FP}) outs(%dst_mat_q : {MAT_I8}) {{reluPreMode = #pto<relu_pre_mode normal_relu>}}"
        ),
        tmov_kernel,
        "pto.tmov",
        (2, 1),
    );
}

#[test]
fn tmov_plain() {
    same(
        &format!(
            r#""pto.tmov"(%src, %dst_mat) <{{operandSegmentSizes = array<i32: 1, 1, 0, 0>}}> : ({ACC}, {MAT_F32}) -> ()"#
        ),
        &format!("pto.tmov ins(%src : {ACC}) outs(%dst_mat : {MAT_F32})"),
        tmov_kernel,
        "pto.tmov",
        (1, 1),
    );
}

/// A vector kernel (A5) with three f32 tiles, an i32 index tile and an f32 scalar.
fn vec_kernel(body: &str) -> String {
    format!(
        r#"module attributes {{pto.target_arch = "a5"}} {{
  func.func @k(%s: f32) {{
    %a = pto.alloc_tile : !pto.tile_buf<vec, 16x16xf32>
    %b = pto.alloc_tile : !pto.tile_buf<vec, 16x16xf32>
    %c = pto.alloc_tile : !pto.tile_buf<vec, 16x16xf32>
    %d = pto.alloc_tile : !pto.tile_buf<vec, 16x16xf32>
    %i = pto.alloc_tile : !pto.tile_buf<vec, 16x16xi32>
    {body}
    return
  }}
}}"#
    )
}

#[test]
fn ops_without_segment_sizes_take_their_ods_order() {
    // tadd: (src0, src1, dst); ins(src0, src1) outs(dst).
    same(
        r#""pto.tadd"(%a, %b, %c) : (!pto.tile_buf<vec, 16x16xf32>, !pto.tile_buf<vec, 16x16xf32>, !pto.tile_buf<vec, 16x16xf32>) -> ()"#,
        "pto.tadd ins(%a, %b : !pto.tile_buf<vec, 16x16xf32>, !pto.tile_buf<vec, 16x16xf32>) outs(%c : !pto.tile_buf<vec, 16x16xf32>)",
        vec_kernel,
        "pto.tadd",
        (2, 1),
    );
    // tadds: (src, scalar, dst).
    same(
        r#""pto.tadds"(%a, %s, %c) : (!pto.tile_buf<vec, 16x16xf32>, f32, !pto.tile_buf<vec, 16x16xf32>) -> ()"#,
        "pto.tadds ins(%a, %s : !pto.tile_buf<vec, 16x16xf32>, f32) outs(%c : !pto.tile_buf<vec, 16x16xf32>)",
        vec_kernel,
        "pto.tadds",
        (2, 1),
    );
    // tsetval: (dst, offset, val): the destination comes first in ODS, last in the DPS form.
    same(
        r#"%o = arith.constant 3 : index
    "pto.tsetval"(%c, %o, %s) : (!pto.tile_buf<vec, 16x16xf32>, index, f32) -> ()"#,
        "%o = arith.constant 3 : index\n    pto.tsetval ins(%o, %s : index, f32) outs(%c : !pto.tile_buf<vec, 16x16xf32>)",
        vec_kernel,
        "pto.tsetval",
        (2, 1),
    );
}

#[test]
fn one_optional_segment_is_inferred_from_the_operand_count() {
    // trowexpanddiv: (src0, src1, tmp?, dst): with and without the tmp tile.
    for (generic, pretty, n) in [
        (
            r#""pto.trowexpanddiv"(%a, %b, %c) : (!pto.tile_buf<vec, 16x16xf32>, !pto.tile_buf<vec, 16x16xf32>, !pto.tile_buf<vec, 16x16xf32>) -> ()"#,
            "pto.trowexpanddiv ins(%a, %b : !pto.tile_buf<vec, 16x16xf32>, !pto.tile_buf<vec, 16x16xf32>) outs(%c : !pto.tile_buf<vec, 16x16xf32>)",
            2,
        ),
        (
            r#""pto.trowexpanddiv"(%a, %b, %d, %c) : (!pto.tile_buf<vec, 16x16xf32>, !pto.tile_buf<vec, 16x16xf32>, !pto.tile_buf<vec, 16x16xf32>, !pto.tile_buf<vec, 16x16xf32>) -> ()"#,
            "pto.trowexpanddiv ins(%a, %b, %d : !pto.tile_buf<vec, 16x16xf32>, !pto.tile_buf<vec, 16x16xf32>, !pto.tile_buf<vec, 16x16xf32>) outs(%c : !pto.tile_buf<vec, 16x16xf32>)",
            3,
        ),
    ] {
        let g = parse(&vec_kernel(generic));
        let p = parse(&vec_kernel(pretty));
        assert_eq!(op_kinds(&g), op_kinds(&p), "{generic}");
        let ins = g.funcs[0]
            .body
            .as_ref()
            .expect("body")
            .ops
            .iter()
            .find_map(|op| match &op.kind {
                OpKind::Tile { ins, .. } => Some(ins.len()),
                _ => None,
            });
        assert_eq!(ins, Some(n));
    }
}

#[test]
fn tgather_segments_follow_its_custom_printer() {
    // (src, dst, cdst?, indices?, tmp?, kValue?): the index form puts `indices` in ins and
    // `dst` in outs.
    same(
        r#""pto.tgather"(%a, %c, %i) <{operandSegmentSizes = array<i32: 1, 1, 0, 1, 0, 0>}> : (!pto.tile_buf<vec, 16x16xf32>, !pto.tile_buf<vec, 16x16xf32>, !pto.tile_buf<vec, 16x16xi32>) -> ()"#,
        "pto.tgather ins(%a, %i : !pto.tile_buf<vec, 16x16xf32>, !pto.tile_buf<vec, 16x16xi32>) outs(%c : !pto.tile_buf<vec, 16x16xf32>)",
        vec_kernel,
        "pto.tgather",
        (2, 1),
    );
}

#[test]
fn generic_forms_npusim_cannot_map_are_errors_naming_the_op() {
    let k = tmov_kernel;
    // An op whose segments are not known (not a DPS tile op).
    let e = err(&k(r#""pto.tfree_from_aic"() {split = 0 : i8} : () -> ()"#));
    assert!(
        e.contains("[generic-form]") && e.contains("`pto.tfree_from_aic`"),
        "{e}"
    );
    // An unknown op.
    let e = err(&k(
        r#""pto.tmovx"(%src, %dst_mat) : ({ACC}, {MAT_F32}) -> ()"#
            .replace("{ACC}", ACC)
            .replace("{MAT_F32}", MAT_F32)
            .as_str(),
    ));
    assert!(e.contains("unknown op `pto.tmovx`"), "{e}");
    // Two optional segments and no operandSegmentSizes.
    let e = err(&k(&format!(
        r#""pto.tmov"(%src, %dst_mat_q, %pre) : ({ACC}, {MAT_I8}, i64) -> ()"#
    )));
    assert!(
        e.contains("[generic-segments]") && e.contains("`pto.tmov`"),
        "{e}"
    );
    // Sizes that do not add up to the operands.
    let e = err(&k(&format!(
        r#""pto.tmov"(%src, %dst_mat_q, %pre) <{{operandSegmentSizes = array<i32: 1, 1, 0, 0>}}> : ({ACC}, {MAT_I8}, i64) -> ()"#
    )));
    assert!(
        e.contains("[generic-segments]") && e.contains("add up to 2"),
        "{e}"
    );
    // A required segment left empty.
    let e = err(&k(&format!(
        r#""pto.tmov"(%src, %pre) <{{operandSegmentSizes = array<i32: 1, 0, 0, 1>}}> : ({ACC}, i64) -> ()"#
    )));
    assert!(
        e.contains("[generic-segments]") && e.contains("`dst`"),
        "{e}"
    );
    // Sizes that are not i32 values.
    let e = err(&k(&format!(
        r#""pto.tmov"(%src, %dst_mat) <{{operandSegmentSizes = array<i32: 18446744073709551615, 1, 0, 0>}}> : ({ACC}, {MAT_F32}) -> ()"#
    )));
    assert!(e.contains("`operandSegmentSizes` must be"), "{e}");
    // Wrong number of segments.
    let e = err(&k(&format!(
        r#""pto.tmov"(%src, %dst_mat) <{{operandSegmentSizes = array<i32: 1, 1>}}> : ({ACC}, {MAT_F32}) -> ()"#
    )));
    assert!(
        e.contains("[generic-segments]") && e.contains("4 operand segments"),
        "{e}"
    );
    // The function type must match the operands.
    let e = err(&k(&format!(
        r#""pto.tmov"(%src, %dst_mat) <{{operandSegmentSizes = array<i32: 1, 1, 0, 0>}}> : ({ACC}, {MAT_I8}) -> ()"#
    )));
    assert!(e.contains("type mismatch"), "{e}");
    // The generic form is verified like the custom one: an i64 where a tile is expected.
    let e = err(&k(&format!(
        r#""pto.tmov"(%src, %pre) <{{operandSegmentSizes = array<i32: 1, 0, 0, 1>}}> : ({ACC}, i64) -> ()"#
    )));
    assert!(e.contains("[generic-segments]"), "{e}");
    let e = err(&k(&format!(
        r#""pto.tmov"(%pre, %dst_mat) <{{operandSegmentSizes = array<i32: 1, 1, 0, 0>}}> : (i64, {MAT_F32}) -> ()"#
    )));
    assert!(e.contains("`pto.tmov` expects ins"), "{e}");
}
