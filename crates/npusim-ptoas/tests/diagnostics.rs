//! One test per diagnostic class: the full rendered message, with file:line:col, the source
//! line and the carets under the offending span.

use npusim_ptoas::{DiagKind, parse_module};

/// Parses `src`, expects exactly one diagnostic of `kind`, and returns its rendering.
fn render_one(src: &str, kind: DiagKind) -> String {
    let diags = match parse_module(src, "k.pto") {
        Ok(_) => panic!("expected a {kind:?} error, but the kernel parsed"),
        Err(d) => d,
    };
    assert_eq!(
        diags.len(),
        1,
        "{}",
        npusim_ptoas::render_all(&diags, "k.pto", src)
    );
    assert_eq!(diags[0].kind, kind, "{}", diags[0].render("k.pto", src));
    diags[0].render("k.pto", src)
}

const TILE: &str = "!pto.tile_buf<vec, 16x16xf32>";

fn kernel(body: &str) -> String {
    format!(
        "module {{\n  func.func @k(%p: !pto.ptr<f32>, %s: f32) {{\n    %a = pto.alloc_tile : {TILE}\n    %b = pto.alloc_tile : {TILE}\n{body}    return\n  }}\n}}\n"
    )
}

#[test]
fn unknown_op_with_did_you_mean() {
    let src = kernel(&format!(
        "    pto.tadf ins(%a, %b : {TILE}, {TILE}) outs(%a : {TILE})\n"
    ));
    assert_eq!(
        render_one(&src, DiagKind::UnknownOp),
        "error: unknown op `pto.tadf`\n --> k.pto:5:5\n  |\n5 |     pto.tadf ins(%a, %b : !pto.tile_buf<vec, 16x16xf32>, !pto.tile_buf<vec, 16x16xf32>) outs(%a : !pto.tile_buf<vec, 16x16xf32>)\n  |     ^^^^^^^^ not a known PTO-AS op\n  |\n  = help: did you mean `pto.tadd`?\n"
    );
}

#[test]
fn unknown_op_without_suggestion() {
    let src = kernel("    pto.frobnicate_everything\n");
    let text = render_one(&src, DiagKind::UnknownOp);
    assert_eq!(
        text,
        "error: unknown op `pto.frobnicate_everything`\n --> k.pto:5:5\n  |\n5 |     pto.frobnicate_everything\n  |     ^^^^^^^^^^^^^^^^^^^^^^^^^ not a known PTO-AS op\n"
    );
}

#[test]
fn type_mismatch_between_value_and_annotation() {
    let src = kernel(&format!(
        "    pto.tadds ins(%a, %s : {TILE}, f16) outs(%b : {TILE})\n"
    ));
    assert_eq!(
        render_one(&src, DiagKind::TypeMismatch),
        "error: type mismatch: `%s` has type `f32` but is used as `f16`\n --> k.pto:5:23\n  |\n5 |     pto.tadds ins(%a, %s : !pto.tile_buf<vec, 16x16xf32>, f16) outs(%b : !pto.tile_buf<vec, 16x16xf32>)\n  |                       ^^ this is `f32`\n  |\n  = help: `%s` is defined at 2:35\n"
    );
}

#[test]
fn type_mismatch_between_tile_element_types() {
    let src = kernel(
        "    %h = pto.alloc_tile : !pto.tile_buf<vec, 16x16xf16>\n    pto.tadd ins(%a, %h : !pto.tile_buf<vec, 16x16xf32>, !pto.tile_buf<vec, 16x16xf16>) outs(%b : !pto.tile_buf<vec, 16x16xf32>)\n",
    );
    assert_eq!(
        render_one(&src, DiagKind::TypeMismatch),
        "error: type mismatch: `pto.tadd` needs one element type, but `%h` is `f16` and `%b` is `f32`\n --> k.pto:6:22\n  |\n6 |     pto.tadd ins(%a, %h : !pto.tile_buf<vec, 16x16xf32>, !pto.tile_buf<vec, 16x16xf16>) outs(%b : !pto.tile_buf<vec, 16x16xf32>)\n  |                      ^^ this tile is `f16`\n"
    );
}

#[test]
fn undefined_value() {
    let src = kernel(&format!(
        "    pto.texp ins(%c : {TILE}) outs(%a : {TILE})\n"
    ));
    assert_eq!(
        render_one(&src, DiagKind::UndefinedValue),
        "error: use of undefined value `%c`\n --> k.pto:5:18\n  |\n5 |     pto.texp ins(%c : !pto.tile_buf<vec, 16x16xf32>) outs(%a : !pto.tile_buf<vec, 16x16xf32>)\n  |                  ^^ not defined before this use\n  |\n  = help: a value with a similar name exists: `%a`\n"
    );
}

#[test]
fn value_from_a_closed_region_is_undefined() {
    let src = "func.func @k() {\n  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n  scf.for %i = %c0 to %c1 step %c1 {\n    %inner = arith.addi %i, %c1 : index\n  }\n  %o = arith.addi %inner, %c1 : index\n  return\n}\n";
    let text = render_one(src, DiagKind::UndefinedValue);
    assert!(
        text.starts_with("error: use of undefined value `%inner`\n --> k.pto:7:19\n"),
        "{text}"
    );
}

#[test]
fn tile_larger_than_its_memory() {
    let src = kernel("    %big = pto.alloc_tile : !pto.tile_buf<vec, 256x256xf32>\n");
    assert_eq!(
        render_one(&src, DiagKind::TileDoesNotFit),
        "error: tile does not fit its memory: it needs 262144 bytes\n --> k.pto:5:29\n  |\n5 |     %big = pto.alloc_tile : !pto.tile_buf<vec, 256x256xf32>\n  |                             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ 256 x 256 x 4 bytes\n  |\n  = help: `vec` memory on a2a3 has 196608 bytes\n"
    );
}

#[test]
fn tile_placed_past_the_end_of_its_memory() {
    // a5 UB has 262144 bytes; a 32x64 f32 tile takes 8192.
    let src = "module attributes {pto.target_arch = \"a5\"} {\n  func.func @k() {\n    %addr = arith.constant 254976 : i64\n    %t = pto.alloc_tile addr = %addr : !pto.tile_buf<vec, 32x64xf32>\n    return\n  }\n}\n";
    assert_eq!(
        render_one(src, DiagKind::TileDoesNotFit),
        "error: tile does not fit its memory: bytes [254976, 263168) exceed 262144\n --> k.pto:4:32\n  |\n4 |     %t = pto.alloc_tile addr = %addr : !pto.tile_buf<vec, 32x64xf32>\n  |                                ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ this tile needs 8192 bytes at address 254976\n  |\n  = help: `vec` memory on a5 has 262144 bytes\n"
    );
    // Ending exactly at the last byte fits; on a2a3 (192 KiB) the same address does not.
    let exact = src.replace("254976", "253952");
    assert!(parse_module(&exact, "k.pto").is_ok());
    let a2 = exact.replace("\"a5\"", "\"a2a3\"");
    let diags = parse_module(&a2, "k.pto").expect_err("past 192 KiB");
    assert_eq!(diags[0].kind, DiagKind::TileDoesNotFit);
    // The CLI's --target overrides the module attribute.
    let opts = npusim_ptoas::ParseOptions {
        target: Some(npusim_ptoas::TargetArch::A5),
        ..npusim_ptoas::ParseOptions::default()
    };
    assert!(npusim_ptoas::parse_module_with(&a2, opts).is_ok());
}

#[test]
fn misaligned_tile_address() {
    let src = "func.func @k() {\n  %addr = arith.constant 100 : i64\n  %t = pto.alloc_tile addr = %addr : !pto.tile_buf<vec, 1x16xf32>\n  return\n}\n";
    assert_eq!(
        render_one(src, DiagKind::TileDoesNotFit),
        "error: tile address 100 is not 32-byte aligned\n --> k.pto:3:30\n  |\n3 |   %t = pto.alloc_tile addr = %addr : !pto.tile_buf<vec, 1x16xf32>\n  |                              ^^^^^ misaligned address\n  |\n  = help: tile addresses must be non-negative multiples of 32\n"
    );
}

#[test]
fn partition_out_of_bounds() {
    let src = "func.func @k(%p: !pto.ptr<f32>) {\n  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n  %c16 = arith.constant 16 : index\n  %c48 = arith.constant 48 : index\n  %c64 = arith.constant 64 : index\n  %tv = pto.make_tensor_view %p, shape = [%c64, %c64], strides = [%c64, %c1] : !pto.tensor_view<?x?xf32>\n  %pv = pto.partition_view %tv, offsets = [%c0, %c48], sizes = [%c16, %c48] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<16x48xf32>\n  return\n}\n";
    assert_eq!(
        render_one(src, DiagKind::PartitionOutOfBounds),
        "error: partition out of bounds: dim 1 covers [48, 96) but the tensor view has 64\n --> k.pto:8:49\n  |\n8 |   %pv = pto.partition_view %tv, offsets = [%c0, %c48], sizes = [%c16, %c48] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<16x48xf32>\n  |                                                 ^^^^^^^^^^^^^^^^^^^^^^^^^^ offset 48 + size 48 > 64\n"
    );
    // Offset 16 keeps the window inside.
    let ok = src.replace("offsets = [%c0, %c48]", "offsets = [%c0, %c16]");
    assert!(parse_module(&ok, "k.pto").is_ok());
}

#[test]
fn syntax_error_says_expected_and_found() {
    let src = kernel(&format!(
        "    pto.tadd ins(%a, %b : {TILE}, {TILE} outs(%a : {TILE})\n"
    ));
    assert_eq!(
        render_one(&src, DiagKind::Syntax),
        "error: expected `)` or `,` in `ins(...)`, found `outs`\n --> k.pto:5:88\n  |\n5 |     pto.tadd ins(%a, %b : !pto.tile_buf<vec, 16x16xf32>, !pto.tile_buf<vec, 16x16xf32> outs(%a : !pto.tile_buf<vec, 16x16xf32>)\n  |                                                                                        ^^^^ expected `)` or `,` in `ins(...)`\n"
    );
}

#[test]
fn bad_operand_kinds() {
    let src = kernel(&format!(
        "    pto.tadds ins(%a, %b : {TILE}, {TILE}) outs(%a : {TILE})\n"
    ));
    let text = render_one(&src, DiagKind::BadOperands);
    assert!(
        text.starts_with(
            "error: `pto.tadds` expects ins (tile, scalar) but found (tile, tile)\n --> k.pto:5:5\n"
        ),
        "{text}"
    );
}

#[test]
fn unpaired_wait_event() {
    let src = kernel(
        "    pto.wait_event [#pto.pipe_event_type<TLOAD>, #pto.pipe_event_type<TVEC>, #pto.event<EVENT_ID1>]\n",
    );
    assert_eq!(
        render_one(&src, DiagKind::UnpairedSync),
        "error: `pto.wait_event` [TLOAD, TVEC, EVENT_ID1] has no matching `pto.record_event`\n --> k.pto:5:5\n  |\n5 |     pto.wait_event [#pto.pipe_event_type<TLOAD>, #pto.pipe_event_type<TVEC>, #pto.event<EVENT_ID1>]\n  |     ^^^^^^^^^^^^^^ unpaired wait\n  |\n  = help: add `pto.record_event [TLOAD, TVEC, EVENT_ID1]` to this function\n"
    );
}

#[test]
fn bad_tile_buf_key() {
    let src =
        kernel("    %c = pto.alloc_tile : !pto.tile_buf<vec, 16x16xf32, blayuot=col_major>\n");
    assert_eq!(
        render_one(&src, DiagKind::BadType),
        "error: unknown key `blayuot` in `!pto.tile_buf`\n --> k.pto:5:57\n  |\n5 |     %c = pto.alloc_tile : !pto.tile_buf<vec, 16x16xf32, blayuot=col_major>\n  |                                                         ^^^^^^^\n  |\n  = help: keys after the shape are valid, blayout, slayout, fractal, pad, compact\n"
    );
}

#[test]
fn several_semantic_errors_are_reported_together_in_source_order() {
    let src = kernel(&format!(
        "    %big = pto.alloc_tile : !pto.tile_buf<vec, 512x512xf32>\n    pto.tadds ins(%a, %s : {TILE}, f16) outs(%b : {TILE})\n"
    ));
    let diags = parse_module(&src, "k.pto").expect_err("two errors");
    let kinds: Vec<DiagKind> = diags.iter().map(|d| d.kind).collect();
    assert_eq!(kinds, [DiagKind::TileDoesNotFit, DiagKind::TypeMismatch]);
}
