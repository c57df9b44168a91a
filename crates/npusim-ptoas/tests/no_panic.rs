//! The parser never panics: mutated versions of the example kernels (byte and token deletions,
//! insertions, duplications and swaps) either parse or produce diagnostics that render.

use npusim_ptoas::lexer::tokenize;
use npusim_ptoas::{ParseOptions, PtoLevel, parse_module, parse_module_with, parse_type};
use proptest::prelude::*;

/// PTOAS's printed forms beyond the DPS tile ops (issue 10): memrefs, reserved buffers and
/// pipes, dynamic event ids, SSA forms, `dense` constants, symbol attributes.
const FORMS: &str = r#"module attributes {pto.target_arch = "a5"} {
  func.func @cube(%g: memref<256xf32, #pto.address_space<gm>>, %pre: i64) attributes {pto.kernel_kind = #pto.kernel_kind<cube>} {
    %r = pto.reserve_buffer {name = "fifo", size = 4096, location = #pto.address_space<mat>, auto = true} -> i32
    %pipe = pto.initialize_l2l_pipe {dir_mask = 1, slot_size = 1024, slot_num = 8}(%r : i32) -> !pto.pipe
    %v = arith.constant dense<[1, 2, 3, 4]> : vector<4xi16>
    %arr = pto.declare_eventid_array -> !pto.eventid_array<4>
    %c0 = arith.constant 0 : index
    %eid = pto.eventid_array_get %arr[%c0] : !pto.eventid_array<4>
    pto.set_flag_dyn [#pto.pipe<PIPE_MTE2>, #pto.pipe<PIPE_V>, %eid]
    pto.wait_flag_dyn [#pto.pipe<PIPE_MTE2>, #pto.pipe<PIPE_V>, %eid]
    pto.section.cube {
      %acc = pto.alloc_tile : !pto.tile_buf<acc, 16x16xf32, blayout=col_major, slayout=row_major, fractal=1024>
      pto.tpush(%acc, %pipe : !pto.tile_buf<acc, 16x16xf32, blayout=col_major, slayout=row_major, fractal=1024>, !pto.pipe) {split = 0}
    }
    return
  }
  func.func @vec(%x: memref<4x16x16xf16, #pto.address_space<gm>>) attributes {pto.kernel_kind = #pto.kernel_kind<vector>} {
    %i = pto.import_reserved_buffer {name = "fifo", peer_func = @cube} -> i32
    %pipe = pto.initialize_l2l_pipe {dir_mask = 1, slot_size = 1024, slot_num = 8}(%i : i32) -> !pto.pipe
    %t = memref.alloc() : memref<4x16x16xf16, #pto.address_space<vec>>
    pto.tload ins(%x : memref<4x16x16xf16, #pto.address_space<gm>>) outs(%t : memref<4x16x16xf16, #pto.address_space<vec>>)
    %e = pto.texp %t : (!pto.tile_buf<vec, 64x16xf16>) -> !pto.tile_buf<vec, 64x16xf16>
    %p = pto.tpop_from_aic {split = 1} -> !pto.tile_buf<vec, 8x16xf32>
    pto.tfree_from_aic {split = 1}
    return
  }
}"#;

/// More of PTOAS's forms (issue 10): `pto.tassign` as an op, `pto.treshape`, `pto.subset` of
/// a memref, `pto.addptr`, SSA tile ops, f8 element types, grouped DPS operands with a mask
/// pattern, `pto.get_buf`-style scalar results, `pto.tget_scale_addr` inside `scf.if`, the
/// vector section with `pto.get_subblock_idx`.
const FORMS2: &str = r#"module attributes {pto.target_arch = "a5"} {
  func.func @k(%p: !pto.ptr<f32>, %v: memref<32x64xf32, #pto.address_space<vec>>, %x: !pto.ptr<f8E4M3FN>, %pre: i64, %flag: i1) {
    %a = arith.constant 0 : i64
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %t = pto.alloc_tile : !pto.tile_buf<vec, 16x1xf32, blayout=col_major>
    %u = pto.tassign %t, %a
      : !pto.tile_buf<vec, 16x1xf32, blayout=col_major>
      -> !pto.tile_buf<vec, 16x1xf32, blayout=col_major>
    %r = pto.treshape %u : !pto.tile_buf<vec, 16x1xf32, blayout=col_major> -> !pto.tile_buf<vec, 1x16xf32>
    %s = pto.subset %v[%c0, %c0] sizes [32, 32] : <32x64xf32, #pto.address_space<vec>>
    pto.tadd ins(%s, %s : !pto.tile_buf<32x32xf32, strided<[64, 1], offset: [?, ?]>, #pto.address_space<vec>>, !pto.tile_buf<32x32xf32, strided<[64, 1], offset: [?, ?]>, #pto.address_space<vec>>) outs(%s : !pto.tile_buf<32x32xf32, strided<[64, 1], offset: [?, ?]>, #pto.address_space<vec>>)
    %q = pto.addptr %p, %c8 : <f32> -> <f32>
    %d = pto.texp %r : (!pto.tile_buf<vec, 1x16xf32>) -> !pto.tile_buf<vec, 1x16xf32>
    %tv = pto.make_tensor_view %x, shape = [%c16, %c16], strides = [%c16, %c1] : !pto.tensor_view<16x16xf8E4M3FN>
    %pv = pto.partition_view %tv, offsets = [%c1, %c0], sizes = [%c1, %c16] : !pto.tensor_view<16x16xf8E4M3FN> -> !pto.partition_tensor_view<1x16xf8E4M3FN>
    %g0 = pto.alloc_tile : !pto.tile_buf<vec, 1x32xf8E5M2>
    %g = pto.alloc_tile : !pto.tile_buf<vec, 1x32xf8E5M2>
    pto.tgather ins(%g0, {maskPattern = #pto.mask_pattern<P1111>} : !pto.tile_buf<vec, 1x32xf8E5M2>) outs(%g : !pto.tile_buf<vec, 1x32xf8E5M2>)
    %sv = pto.alloc_tile : !pto.tile_buf<vec, 1x16xf32>
    pto.tsetval ins(%sv : !pto.tile_buf<vec, 1x16xf32>, %pre : i64) outs(%sv : !pto.tile_buf<vec, 1x16xf32>)
    %l = pto.alloc_tile : !pto.tile_buf<loc=left, dtype=f8E4M3FN, rows=16, cols=128, v_row=16, v_col=128, blayout=col_major, slayout=row_major, fractal=512, pad=0>
    %sc = pto.alloc_tile : !pto.tile_buf<loc=scaling, dtype=f8E8M0FNU, rows=16, cols=4, v_row=16, v_col=4, blayout=row_major, slayout=row_major, fractal=32, pad=0>
    scf.if %flag {
      pto.tget_scale_addr ins(%l : !pto.tile_buf<loc=left, dtype=f8E4M3FN, rows=16, cols=128, v_row=16, v_col=128, blayout=col_major, slayout=row_major, fractal=512, pad=0>) outs(%sc : !pto.tile_buf<loc=scaling, dtype=f8E8M0FNU, rows=16, cols=4, v_row=16, v_col=4, blayout=row_major, slayout=row_major, fractal=32, pad=0>)
    }
    pto.section.vector {
      %sb = pto.get_subblock_idx
      %w = pto.alloc_tile : !pto.tile_buf<vec, 8x16xf32>
      pto.tadd ins(%w, %w : !pto.tile_buf<vec, 8x16xf32>, !pto.tile_buf<vec, 8x16xf32>) outs(%w : !pto.tile_buf<vec, 8x16xf32>)
    }
    return
  }
}"#;

/// The MLIR generic op form (session 16): `pto.tmov` with each operand-segment layout of PTOAS's
/// `tmov_forms_emitc.pto`, properties `<{...}>` and an attribute dictionary, ops without
/// segment sizes (`tadd`, `tstore` with its optional pre-quant scalar), the mask-pattern
/// `tgather`, and tiles with addresses (checked at each `--pto-level` by `check`).
const FORMS3: &str = r#"module attributes {"pto.device-spec" = "Ascend950"} {
  func.func @k(%p: !pto.ptr<f32>) attributes {pto.entry} {
    %a0 = arith.constant 0 : i64
    %a1 = arith.constant 8192 : i64
    %src = pto.alloc_tile addr = %a0 : !pto.tile_buf<loc=acc, dtype=f32, rows=32, cols=32, v_row=32, v_col=32, blayout=col_major, slayout=row_major, fractal=512, pad=0>
    %fp = pto.alloc_tile : !pto.tile_buf<loc=scaling, dtype=f16, rows=1, cols=32, v_row=1, v_col=32, blayout=row_major, slayout=none_box, fractal=512, pad=0>
    %q = pto.alloc_tile : !pto.tile_buf<loc=mat, dtype=i8, rows=32, cols=32, v_row=32, v_col=32, blayout=row_major, slayout=none_box, fractal=512, pad=0>
    %v = pto.alloc_tile addr = %a1 : !pto.tile_buf<vec, 16x16xf32>
    %pre = arith.constant 7 : i64
    "pto.tmov"(%src, %q, %pre) <{operandSegmentSizes = array<i32: 1, 1, 0, 1>,
                                 reluPreMode = #pto<relu_pre_mode normal_relu>}> :
        (!pto.tile_buf<loc=acc, dtype=f32, rows=32, cols=32, v_row=32, v_col=32, blayout=col_major, slayout=row_major, fractal=512, pad=0>,
         !pto.tile_buf<loc=mat, dtype=i8, rows=32, cols=32, v_row=32, v_col=32, blayout=row_major, slayout=none_box, fractal=512, pad=0>, i64) -> ()
    "pto.tmov"(%src, %q, %fp) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> {reluPreMode = #pto<relu_pre_mode normal_relu>} : (!pto.tile_buf<loc=acc, dtype=f32, rows=32, cols=32, v_row=32, v_col=32, blayout=col_major, slayout=row_major, fractal=512, pad=0>, !pto.tile_buf<loc=mat, dtype=i8, rows=32, cols=32, v_row=32, v_col=32, blayout=row_major, slayout=none_box, fractal=512, pad=0>, !pto.tile_buf<loc=scaling, dtype=f16, rows=1, cols=32, v_row=1, v_col=32, blayout=row_major, slayout=none_box, fractal=512, pad=0>) -> ()
    "pto.tadd"(%v, %v, %v) : (!pto.tile_buf<vec, 16x16xf32>, !pto.tile_buf<vec, 16x16xf32>, !pto.tile_buf<vec, 16x16xf32>) -> ()
    "pto.tgather"(%v, %v) <{operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0>, maskPattern = #pto.mask_pattern<P0101>}> : (!pto.tile_buf<vec, 16x16xf32>, !pto.tile_buf<vec, 16x16xf32>) -> ()
    return
  }
}"#;

const KERNELS: [&str; 8] = [
    FORMS,
    FORMS2,
    FORMS3,
    include_str!("../../../examples/pto/vector_add.pto"),
    include_str!("../../../examples/pto/row_softmax.pto"),
    include_str!("../../../examples/pto/rmsnorm.pto"),
    include_str!("../../../examples/pto/online_softmax_step.pto"),
    include_str!("../../../examples/pto/multicore_split.pto"),
];

/// Snippets inserted by the mutator: tokens that open or close constructs, odd literals and
/// non-ASCII text.
const SNIPPETS: [&str; 28] = [
    "memref<",
    "#pto.address_space<",
    "dense<",
    "-> !pto.pipe",
    "{",
    "}",
    "(",
    ")",
    "<",
    ">",
    "[",
    "]",
    ",",
    ":",
    "=",
    "->",
    "%",
    "%x#9",
    "^bb1:",
    "\"",
    "0x",
    "99999999999999999999999",
    "?",
    "é",
    "!pto.tile_buf<",
    "scf.yield",
    "-",
    "#pto<",
];

#[derive(Clone, Debug)]
enum Mutation {
    DeleteBytes { at: usize, len: usize },
    InsertSnippet { at: usize, snippet: usize },
    DeleteToken { index: usize },
    DuplicateToken { index: usize },
    SwapTokens { a: usize, b: usize },
    MoveToken { from: usize, to: usize },
}

fn arb_mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 1usize..12).prop_map(|(at, len)| Mutation::DeleteBytes { at, len }),
        (any::<usize>(), 0..SNIPPETS.len())
            .prop_map(|(at, snippet)| Mutation::InsertSnippet { at, snippet }),
        any::<usize>().prop_map(|index| Mutation::DeleteToken { index }),
        any::<usize>().prop_map(|index| Mutation::DuplicateToken { index }),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::SwapTokens { a, b }),
        (any::<usize>(), any::<usize>()).prop_map(|(from, to)| Mutation::MoveToken { from, to }),
    ]
}

fn floor_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn apply(src: &str, m: &Mutation) -> String {
    let toks = tokenize(src);
    let tok_text = |i: usize| {
        let t = toks[i % toks.len()];
        (t.span.start, t.span.end)
    };
    match *m {
        Mutation::DeleteBytes { at, len } => {
            let a = floor_boundary(src, at % (src.len() + 1));
            let b = floor_boundary(src, a + len);
            format!("{}{}", &src[..a], &src[b..])
        }
        Mutation::InsertSnippet { at, snippet } => {
            let a = floor_boundary(src, at % (src.len() + 1));
            format!("{}{}{}", &src[..a], SNIPPETS[snippet], &src[a..])
        }
        _ if toks.is_empty() => src.to_string(),
        Mutation::DeleteToken { index } => {
            let (a, b) = tok_text(index);
            format!("{}{}", &src[..a], &src[b..])
        }
        Mutation::DuplicateToken { index } => {
            let (a, b) = tok_text(index);
            format!("{}{} {}", &src[..b], " ", &src[a..])
        }
        Mutation::SwapTokens { a, b } => {
            let (mut x, mut y) = (tok_text(a), tok_text(b));
            if x.0 > y.0 {
                std::mem::swap(&mut x, &mut y);
            }
            if x == y || x.1 > y.0 {
                return src.to_string();
            }
            format!(
                "{}{}{}{}{}",
                &src[..x.0],
                &src[y.0..y.1],
                &src[x.1..y.0],
                &src[x.0..x.1],
                &src[y.1..]
            )
        }
        Mutation::MoveToken { from, to } => {
            let (a, b) = tok_text(from);
            let word = src[a..b].to_string();
            let rest = format!("{}{}", &src[..a], &src[b..]);
            let at = floor_boundary(&rest, to % (rest.len() + 1));
            format!("{}{} {}", &rest[..at], word, &rest[at..])
        }
    }
}

fn check(src: &str) {
    // The `--pto-level` rules too (they add diagnostics, never a panic).
    for level in [PtoLevel::Level1, PtoLevel::Level3] {
        let opts = ParseOptions {
            pto_level: Some(level),
            ..ParseOptions::default()
        };
        if let Err(diags) = parse_module_with(src, opts) {
            for d in &diags {
                assert!(
                    d.span.start <= d.span.end && d.span.end <= src.len(),
                    "{d:?}"
                );
                let _ = d.render("mutant.pto", src);
            }
        }
    }
    match parse_module(src, "mutant.pto") {
        Ok(m) => {
            // Whatever parsed must be well-formed enough to walk.
            for f in &m.funcs {
                for p in &f.params {
                    let _ = f.ty(*p);
                }
            }
        }
        Err(diags) => {
            assert!(!diags.is_empty());
            for d in &diags {
                assert!(
                    d.span.start <= d.span.end && d.span.end <= src.len(),
                    "{d:?} in {} bytes",
                    src.len()
                );
                let text = d.render("mutant.pto", src);
                assert!(text.starts_with("error: "), "{text}");
                assert!(text.contains("--> mutant.pto:"), "{text}");
            }
        }
    }
}

#[test]
fn unmutated_kernels_parse() {
    for k in KERNELS {
        if let Err(d) = parse_module(k, "k.pto") {
            panic!("{}", npusim_ptoas::render_all(&d, "k.pto", k));
        }
    }
}

#[test]
fn degenerate_inputs() {
    for src in [
        "",
        " ",
        "module",
        "module {",
        "}",
        "func.func",
        "%",
        "\"",
        "é",
        "{{{{{{{{",
        "<<<<",
    ] {
        check(src);
    }
    check(&"{".repeat(10_000));
    // Deep nesting stops at the depth limit with a diagnostic, not a stack overflow.
    let deep = format!("func.func @k() {{{}", "pto.section.vector {".repeat(5000));
    let diags = parse_module(&deep, "deep.pto").expect_err("too deep");
    assert!(
        diags.iter().any(|d| d.message == "nesting too deep"),
        "{diags:?}"
    );
    check(&format!("module attributes {{a = {}}}", "[".repeat(5000)));
    let _ = parse_type(&"!pto.tile_buf<".repeat(1000));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn mutated_kernels_never_panic(
        kernel in 0..KERNELS.len(),
        mutations in prop::collection::vec(arb_mutation(), 1..4),
    ) {
        let mut src = KERNELS[kernel].to_string();
        for m in &mutations {
            src = apply(&src, m);
        }
        check(&src);
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        check(&String::from_utf8_lossy(&bytes));
    }
}
