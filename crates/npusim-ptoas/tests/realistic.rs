//! Realistic kernels (written for these tests) exercising control flow, both tile_buf
//! spellings, multi-result ops, calls and the resolved, typed program the parser returns.

use npusim_ptoas::{
    Block, CmpIPredicate, ConstValue, DType, Dim, OpCode, OpKind, RoundMode, ScalarType, Type,
    parse_module,
};

fn parse(src: &str) -> npusim_ptoas::Module {
    parse_module(src, "t.pto")
        .unwrap_or_else(|d| panic!("{}", npusim_ptoas::render_all(&d, "t.pto", src)))
}

/// Row-block reduction with a loop-carried accumulator tile count, an `scf.if` that yields a
/// value, mixed tile_buf spellings for the same type, a dynamic valid column and `tcvt`.
const ACCUMULATE: &str = r#"// RUN: this line is a comment
module attributes {pto.target_arch = "a5"} {
  func.func @accumulate(%src: !pto.ptr<bf16>, %dst: !pto.ptr<f32>, %n: index, %vcols: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %zero = arith.constant 0.000000e+00 : f32
    %sv = pto.make_tensor_view %src, shape = [%n, %c64], strides = [%c64, %c1] {layout = #pto.layout<nd>} : !pto.tensor_view<?x?xbf16>
    %dv = pto.make_tensor_view %dst, shape = [%c16, %c1], strides = [%c1, %c1] : !pto.tensor_view<?x?xf32>
    %raw = pto.alloc_tile valid_col = %vcols : !pto.tile_buf<loc=vec, dtype=bf16, rows=16, cols=64, v_row=16, v_col=?, blayout=row_major, slayout=none_box, fractal=512, pad=0>
    %wide = pto.alloc_tile : !pto.tile_buf<vec, 16x64xf32>
    %tmp = pto.alloc_tile : !pto.tile_buf<vec, 16x64xf32>
    %part = pto.alloc_tile : !pto.tile_buf<vec, 16x1xf32, blayout=col_major>
    %acc = pto.alloc_tile : !pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=1, v_row=16, v_col=1, blayout=col_major, slayout=none_box, fractal=512, pad=0>
    pto.texpands ins(%zero : f32) outs(%acc : !pto.tile_buf<vec, 16x1xf32, blayout=col_major>)
    %blocks, %last = scf.for %i = %c0 to %n step %c16 iter_args(%count = %c0, %prev = %c0) -> (index, index) {
      %pv = pto.partition_view %sv, offsets = [%i, %c0], sizes = [%c16, %c64] : !pto.tensor_view<?x?xbf16> -> !pto.partition_tensor_view<16x64xbf16>
      pto.tload ins(%pv : !pto.partition_tensor_view<16x64xbf16>) outs(%raw : !pto.tile_buf<vec, 16x64xbf16, valid=16x?>)
      pto.tcvt ins(%raw{rmode = #pto<round_mode CAST_RINT>} : !pto.tile_buf<vec, 16x64xbf16, valid=16x?>) outs(%wide : !pto.tile_buf<vec, 16x64xf32>)
      pto.trowsum ins(%wide, %tmp : !pto.tile_buf<vec, 16x64xf32>, !pto.tile_buf<vec, 16x64xf32>) outs(%part : !pto.tile_buf<vec, 16x1xf32, blayout=col_major>)
      %is_first = arith.cmpi eq, %i, %c0 : index
      %step = scf.if %is_first -> (index) {
        pto.tmov ins(%part : !pto.tile_buf<vec, 16x1xf32, blayout=col_major>) outs(%acc : !pto.tile_buf<vec, 16x1xf32, blayout=col_major>)
        scf.yield %c0 : index
      } else {
        pto.tadd ins(%acc, %part : !pto.tile_buf<vec, 16x1xf32, blayout=col_major>, !pto.tile_buf<vec, 16x1xf32, blayout=col_major>) outs(%acc : !pto.tile_buf<vec, 16x1xf32, blayout=col_major>)
        scf.yield %c1 : index
      }
      %next = arith.addi %count, %c1 : index
      scf.yield %next, %i : index, index
    }
    %dp = pto.partition_view %dv, offsets = [%c0, %c0], sizes = [%c16, %c1] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<16x1xf32>
    pto.tstore ins(%acc : !pto.tile_buf<vec, 16x1xf32, blayout=col_major>) outs(%dp : !pto.partition_tensor_view<16x1xf32>)
    return
  }
}
"#;

#[test]
fn for_with_iter_args_and_if_with_yield() {
    let m = parse(ACCUMULATE);
    assert_eq!(m.target_arch, Some(npusim_ptoas::TargetArch::A5));
    let f = &m.funcs[0];
    let body = f.body.as_ref().unwrap();
    let (results, inits, loop_body) = body
        .ops
        .iter()
        .find_map(|op| match &op.kind {
            OpKind::For {
                results,
                inits,
                body,
                ..
            } => Some((results, inits, body)),
            _ => None,
        })
        .expect("scf.for");
    assert_eq!(results.len(), 2);
    assert_eq!(f.value(results[0]).name, "blocks");
    assert_eq!(f.value(results[1]).name, "last");
    assert_eq!(inits.len(), 2);
    // body args: iv, count, prev
    let arg_names: Vec<&str> = loop_body
        .args
        .iter()
        .map(|a| f.value(*a).name.as_str())
        .collect();
    assert_eq!(arg_names, ["i", "count", "prev"]);
    let OpKind::Yield { values } = &loop_body.ops.last().unwrap().kind else {
        panic!("loop must end in yield")
    };
    assert_eq!(f.value(values[1]).name, "i");
    let (if_results, then_body, else_body) = loop_body
        .ops
        .iter()
        .find_map(|op| match &op.kind {
            OpKind::If {
                results,
                then_body,
                else_body,
                ..
            } => Some((results, then_body, else_body)),
            _ => None,
        })
        .expect("scf.if");
    assert_eq!(if_results.len(), 1);
    assert_eq!(f.ty(if_results[0]), &Type::Scalar(ScalarType::Index));
    assert!(matches!(
        then_body.ops.last().unwrap().kind,
        OpKind::Yield { .. }
    ));
    assert!(matches!(
        else_body.ops[0].kind,
        OpKind::Tile {
            op: OpCode::TAdd,
            ..
        }
    ));
    // cmpi predicate and tcvt rounding mode are typed
    assert!(loop_body.ops.iter().any(|o| matches!(
        o.kind,
        OpKind::CmpI {
            pred: CmpIPredicate::Eq,
            ..
        }
    )));
    let rmode = loop_body.ops.iter().find_map(|o| match &o.kind {
        OpKind::Tile {
            op: OpCode::TCvt,
            attrs,
            ..
        } => attrs.rmode,
        _ => None,
    });
    assert_eq!(rmode, Some(RoundMode::CastRint));
    // %acc was declared in the long spelling and used in the compact one: same type.
    let acc = f.values.iter().find(|v| v.name == "acc").unwrap();
    let t = acc.ty.as_tile().unwrap();
    assert_eq!((t.rows, t.cols, t.dtype), (16, 1, DType::F32));
    let raw = f
        .values
        .iter()
        .find(|v| v.name == "raw")
        .unwrap()
        .ty
        .as_tile()
        .unwrap();
    assert_eq!(raw.valid_col, Dim::Dynamic);
}

/// `scf.while` with two loop-carried values, a block label on the `do` region, multi-result
/// binding `%final:2`, result numbers `%final#1`, `arith.constant true`, `arith.select`.
const WHILE: &str = r#"
module {
  func.func @countdown(%t: !pto.ptr<f32>) -> index {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %true = arith.constant true
    %false = arith.constant false
    %one = arith.constant 1.0 : f32
    %tile = pto.alloc_tile
      : !pto.tile_buf<loc=vec, dtype=f32, rows=32, cols=32, v_row=32, v_col=32,
                      blayout=row_major, slayout=none_box, fractal=512, pad=0>
    %final:2 = scf.while (%i = %c0, %alive = %true) : (index, i1) -> (index, i1) {
      %lt = arith.cmpi slt, %i, %c4 : index
      %go = arith.andi %lt, %alive : i1
      scf.condition(%go) %i, %alive : index, i1
    } do {
    ^bb0(%i2: index, %alive2: i1):
      pto.tadds ins(%tile, %one : !pto.tile_buf<vec, 32x32xf32>, f32) outs(%tile : !pto.tile_buf<vec, 32x32xf32>)
      %stop = arith.cmpi eq, %i2, %c2 : index
      %next = arith.addi %i2, %c1 : index
      %still = arith.select %stop, %false, %alive2 : i1
      scf.yield %next, %still : index, i1
    }
    %r = arith.select %final#1, %final#0, %c4 : index
    return %r : index
  }

  func.func @main(%t: !pto.ptr<f32>) {
    %n = func.call @countdown(%t) : (!pto.ptr<f32>) -> index
    return
  }
}
"#;

#[test]
fn while_loop_and_calls() {
    let m = parse(WHILE);
    assert_eq!(m.funcs.len(), 2);
    let f = &m.funcs[0];
    assert_eq!(f.results, [Type::Scalar(ScalarType::Index)]);
    let body = f.body.as_ref().unwrap();
    let OpKind::While {
        results,
        inits,
        before,
        after,
    } = &body
        .ops
        .iter()
        .find(|o| matches!(o.kind, OpKind::While { .. }))
        .unwrap()
        .kind
    else {
        unreachable!()
    };
    assert_eq!(results.len(), 2);
    assert_eq!(f.value(results[1]).name, "final#1");
    assert_eq!(inits.len(), 2);
    assert_eq!(before.args.len(), 2);
    assert!(matches!(
        before.ops.last().unwrap().kind,
        OpKind::Condition { .. }
    ));
    let names: Vec<&str> = after
        .args
        .iter()
        .map(|a| f.value(*a).name.as_str())
        .collect();
    assert_eq!(names, ["i2", "alive2"]);
    // `%true` is an i1 constant 1
    let t = f.values.iter().find(|v| v.name == "true").unwrap();
    assert_eq!(
        (t.ty.clone(), t.const_int),
        (Type::Scalar(ScalarType::I1), Some(1))
    );
    // the select after the loop uses the loop's results by number
    let OpKind::Select { cond, on_true, .. } = body.ops[body.ops.len() - 2].kind else {
        panic!()
    };
    assert_eq!((cond, on_true), (results[1], results[0]));
    // main calls countdown, resolved to its id; main is the entry
    let main = &m.funcs[1];
    let call = main
        .body
        .as_ref()
        .unwrap()
        .ops
        .iter()
        .find_map(|o| match &o.kind {
            OpKind::Call { callee, .. } => Some(*callee),
            _ => None,
        });
    assert_eq!(call, m.func_by_name("countdown"));
    assert_eq!(m.entry(), m.func_by_name("main"));
}

#[test]
fn constants_keep_their_values() {
    let src = "func.func @k() {\n  %a = arith.constant -1 : i8\n  %b = arith.constant 255 : i8\n  %c = arith.constant 0x10 : index\n  %d = arith.constant 0x7FC00000 : f32\n  %e = arith.constant -2.5e-01 : f16\n  %f = arith.constant 3 : f32\n  return\n}\n";
    let m = parse(src);
    let f = &m.funcs[0];
    let consts: Vec<ConstValue> = f
        .body
        .as_ref()
        .unwrap()
        .ops
        .iter()
        .filter_map(|o| match o.kind {
            OpKind::Constant { value, .. } => Some(value),
            _ => None,
        })
        .collect();
    assert_eq!(
        consts,
        [
            ConstValue::Int(-1),
            ConstValue::Int(-1),
            ConstValue::Int(16),
            ConstValue::FloatBits(0x7FC0_0000),
            ConstValue::Float(-0.25),
            ConstValue::Float(3.0)
        ]
    );
}

/// Sync ops in both spellings, the subblock queries, a cube section, 5-D partitions.
#[test]
fn sync_sections_and_five_d_views() {
    let src = r#"
module attributes {pto.target_arch = "a2a3"} {
  func.func @k(%p: !pto.ptr<f16, gm>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %tv = pto.make_tensor_view %p, shape = [%c1, %c2, %c2, %c16, %c16], strides = [%c32, %c16, %c16, %c16, %c1] : !pto.tensor_view<1x2x2x16x16xf16>
    %pv = pto.partition_view %tv, offsets = [%c0, %c1, %c0, %c0, %c0], sizes = [%c1, %c1, %c2, %c16, %c16] : !pto.tensor_view<1x2x2x16x16xf16> -> !pto.partition_tensor_view<1x1x2x16x16xf16>
    %sb = pto.get_subblock_idx
    %sn = pto.get_subblock_num
    pto.set_flag[<PIPE_MTE2>, <PIPE_V>, <EVENT_ID0>]
    pto.wait_flag[<PIPE_MTE2>, <PIPE_V>, <EVENT_ID0>]
    pto.barrier <PIPE_ALL>
    pto.sync.set #pto.pipe<PIPE_M>, 0
    pto.section.cube {
      pto.barrier #pto.pipe<PIPE_M>
    }
    return
  }
}
"#;
    let m = parse(src);
    let f = &m.funcs[0];
    let body: &Block = f.body.as_ref().unwrap();
    let syncs: Vec<Vec<String>> = body
        .ops
        .iter()
        .filter_map(|o| match &o.kind {
            OpKind::Sync(s) => Some(s.args.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(syncs[0], ["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]);
    assert_eq!(syncs[2], ["PIPE_ALL"]);
    assert_eq!(syncs[3], ["PIPE_M", "0"]);
    assert!(
        body.ops
            .iter()
            .any(|o| matches!(o.kind, OpKind::Section { vector: false, .. }))
    );
    let pv = f.values.iter().find(|v| v.name == "pv").unwrap();
    assert!(matches!(&pv.ty, Type::PartitionView(v) if v.shape.len() == 5));
}

#[test]
fn tdivs_accepts_both_operand_orders_and_tcmp_takes_its_mode() {
    let t = "!pto.tile_buf<vec, 16x16xf32>";
    let m8 = "!pto.tile_buf<vec, 16x16xi8>";
    let src = format!(
        "func.func @k(%s: f32) {{\n  %a = pto.alloc_tile : {t}\n  %b = pto.alloc_tile : {t}\n  %m = pto.alloc_tile : {m8}\n  pto.tdivs ins(%a, %s : {t}, f32) outs(%b : {t})\n  pto.tdivs ins(%s, %a : f32, {t}) outs(%b : {t})\n  pto.tcmp ins(%a, %b {{cmpMode = #pto<cmp greater_equal>}} : {t}, {t}) outs(%m : {m8})\n  pto.tsel ins(%m, %a, %b : {m8}, {t}, {t}) outs(%b : {t})\n  return\n}}\n"
    );
    let m = parse(&src);
    let ops = &m.funcs[0].body.as_ref().unwrap().ops;
    let cmp = ops.iter().find_map(|o| match &o.kind {
        OpKind::Tile {
            op: OpCode::TCmp,
            attrs,
            ..
        } => attrs.cmp,
        _ => None,
    });
    assert_eq!(cmp, Some(npusim_ptoas::CmpMode::Ge));
    let bad = src.replace("greater_equal", "bigger");
    let d = parse_module(&bad, "t.pto").unwrap_err();
    assert!(
        d[0].message.contains("unknown cmp `bigger`"),
        "{}",
        d[0].message
    );
}

#[test]
fn set_validshape_on_a_dynamic_tile() {
    let t = "!pto.tile_buf<loc=vec, dtype=f32, rows=8, cols=64, v_row=?, v_col=?, blayout=row_major, slayout=none_box, fractal=512, pad=0>";
    let src = format!(
        "func.func @k(%r: index, %c: index) {{\n  %t = pto.alloc_tile valid_row = %r valid_col = %c : {t}\n  pto.set_validshape %t, %c, %r : {t}\n  return\n}}\n"
    );
    let m = parse(&src);
    let ops = &m.funcs[0].body.as_ref().unwrap().ops;
    assert!(matches!(ops[1].kind, OpKind::SetValidShape { .. }));
    let fixed = "!pto.tile_buf<vec, 8x64xf32>";
    let bad = format!(
        "func.func @k(%r: index, %c: index) {{\n  %t = pto.alloc_tile : {fixed}\n  pto.set_validshape %t, %c, %r : {fixed}\n  return\n}}\n"
    );
    let d = parse_module(&bad, "t.pto").unwrap_err();
    assert!(
        d[0].message
            .contains("needs a tile with `v_row=?, v_col=?`"),
        "{}",
        d[0].message
    );
}

#[test]
fn mlir_type_aliases_stand_for_their_types() {
    let src = r#"
!tile = !pto.tile_buf<vec, 16x16xf32>
!row = !pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=16, v_row=1, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=0>
module {
  func.func @k() {
    %a = pto.alloc_tile : !tile
    %b = pto.alloc_tile : !tile
    %r = pto.alloc_tile : !row
    pto.tadd ins(%a, %a : !tile, !tile) outs(%b : !tile)
    return
  }
}
"#;
    let m = npusim_ptoas::parse_module(src, "alias.pto")
        .unwrap_or_else(|d| panic!("{}", npusim_ptoas::render_all(&d, "alias.pto", src)));
    let f = &m.funcs[0];
    let tiles: Vec<String> = f
        .values
        .iter()
        .filter_map(|v| match &v.ty {
            npusim_ptoas::Type::TileBuf(t) => Some(t.to_compact_string()),
            _ => None,
        })
        .collect();
    assert_eq!(tiles.len(), 3, "{tiles:?}");
    assert!(tiles[0].contains("16x16xf32"), "{tiles:?}");
    assert!(tiles[2].contains("1x16xf32"), "{tiles:?}");

    let unknown = "!t = !pto.tile_buf<vec, 16x16xf32>\nfunc.func @k() {\n  %a = pto.alloc_tile : !u\n  return\n}\n";
    let d = npusim_ptoas::parse_module(unknown, "u.pto").unwrap_err();
    assert!(
        d[0].message.contains("unknown type `!u`"),
        "{}",
        d[0].message
    );
}
