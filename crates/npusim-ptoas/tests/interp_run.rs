//! The interpreter: control flow, calls, dynamic tiles, multi-block runs, and every class of
//! run-time diagnostic (argument binding, tile-ISA errors, bounds, step limit, recursion,
//! unsupported ops), rendered against the source.

use npusim_core::NpyArray;
use npusim_core::f16;
use npusim_ptoas::interp::{
    HostArg, LowerOptions, Program, RunConfig, RunError, RunErrorKind, RunOutcome, lower,
};
use npusim_ptoas::parse_module;

fn prog(src: &str) -> Program {
    let m = match parse_module(src, "t.pto") {
        Ok(m) => m,
        Err(d) => panic!("{}", npusim_ptoas::render_all(&d, "t.pto", src)),
    };
    lower(&m, LowerOptions::default()).expect("lowers")
}

fn f32s(shape: &[usize], v: &[f32]) -> HostArg {
    HostArg::Buffer(NpyArray::from_elems(shape.to_vec(), v))
}

fn s(v: &str) -> HostArg {
    HostArg::Scalar(v.into())
}

fn run(p: &Program, args: Vec<(&str, HostArg)>, blocks: u32) -> Result<RunOutcome, RunError> {
    let args: Vec<(String, HostArg)> = args.into_iter().map(|(k, v)| (k.into(), v)).collect();
    let cfg = RunConfig {
        blocks,
        max_steps: 100_000,
        ..RunConfig::default()
    };
    p.run(None, &args, &cfg)
}

fn run_func(p: &Program, f: &str, args: Vec<(&str, HostArg)>) -> Result<RunOutcome, RunError> {
    let args: Vec<(String, HostArg)> = args.into_iter().map(|(k, v)| (k.into(), v)).collect();
    p.run(Some(f), &args, &RunConfig::default())
}

fn out_f32(o: &RunOutcome, name: &str) -> Vec<f32> {
    o.buffer(name).unwrap().to_elems::<f32>().unwrap()
}

/// A `scf.while` in a called function sums 0..n; the caller branches on the sum with a
/// result-carrying `scf.if`, converts it to f32 and fills a tile with it.
const CONTROL: &str = r#"
module {
  func.func @tri(%n: index) -> index {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %r:2 = scf.while (%i = %c0, %acc = %c0) : (index, index) -> (index, index) {
      %go = arith.cmpi slt, %i, %n : index
      scf.condition(%go) %i, %acc : index, index
    } do {
    ^bb0(%i2: index, %acc2: index):
      %a = arith.addi %acc2, %i2 : index
      %j = arith.addi %i2, %c1 : index
      scf.yield %j, %a : index, index
    }
    return %r#1 : index
  }

  func.func @main(%out: !pto.ptr<f32>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c10 = arith.constant 10 : index
    %sum = func.call @tri(%n) : (index) -> index
    %si = arith.index_cast %sum : index to i32
    %sf = arith.sitofp %si : i32 to f32
    %big = arith.cmpi sgt, %sum, %c10 : index
    %v = scf.if %big -> (f32) {
      scf.yield %sf : f32
    } else {
      %neg = arith.negf %sf : f32
      scf.yield %neg : f32
    }
    %ov = pto.make_tensor_view %out, shape = [%c1, %c8], strides = [%c8, %c1] : !pto.tensor_view<1x8xf32>
    %op = pto.partition_view %ov, offsets = [%c0, %c0], sizes = [%c1, %c8] : !pto.tensor_view<1x8xf32> -> !pto.partition_tensor_view<1x8xf32>
    %t = pto.alloc_tile : !pto.tile_buf<vec, 1x8xf32>
    pto.texpands ins(%v : f32) outs(%t : !pto.tile_buf<vec, 1x8xf32>)
    pto.tstore ins(%t : !pto.tile_buf<vec, 1x8xf32>) outs(%op : !pto.partition_tensor_view<1x8xf32>)
    return
  }
}
"#;

#[test]
fn while_call_if_and_casts() {
    let p = prog(CONTROL);
    for (n, want) in [("5", -10.0f32), ("6", 15.0), ("0", 0.0)] {
        let o = run(&p, vec![("out", f32s(&[8], &[7.0; 8])), ("n", s(n))], 1).unwrap();
        assert_eq!(out_f32(&o, "out"), vec![want; 8], "n = {n}");
    }
    let o = run(&p, vec![("%out", f32s(&[8], &[0.0; 8])), ("%n", s("4"))], 1).unwrap();
    let ops: Vec<&str> = o.stats.per_op.iter().map(|(n, _)| *n).collect();
    assert!(
        ops.contains(&"scf.while") && ops.contains(&"func.call"),
        "{ops:?}"
    );
    assert_eq!(o.stats.chip_to_gm, 32);
}

/// Valid shapes from run-time values: `alloc_tile valid_col = %n`, a partition of size
/// `[1, %n]`, and `pto.set_validshape`.
const DYNAMIC: &str = r#"
module {
  func.func @dyn(%x: !pto.ptr<f32>, %n: index, %m: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %one = arith.constant 1.0 : f32
    %xv = pto.make_tensor_view %x, shape = [%c1, %c8], strides = [%c8, %c1] : !pto.tensor_view<1x8xf32>
    %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c1, %n] : !pto.tensor_view<1x8xf32> -> !pto.partition_tensor_view<1x?xf32>
    %t = pto.alloc_tile valid_row = %c1 valid_col = %n : !pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=8, v_row=?, v_col=?, blayout=row_major, slayout=none_box, fractal=512, pad=0>
    pto.tload ins(%xp : !pto.partition_tensor_view<1x?xf32>) outs(%t : !pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=8, v_row=?, v_col=?, blayout=row_major, slayout=none_box, fractal=512, pad=0>)
    pto.set_validshape %t, %c1, %m : !pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=8, v_row=?, v_col=?, blayout=row_major, slayout=none_box, fractal=512, pad=0>
    pto.tadds ins(%t, %one : !pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=8, v_row=?, v_col=?, blayout=row_major, slayout=none_box, fractal=512, pad=0>, f32) outs(%t : !pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=8, v_row=?, v_col=?, blayout=row_major, slayout=none_box, fractal=512, pad=0>)
    %xq = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c1, %m] : !pto.tensor_view<1x8xf32> -> !pto.partition_tensor_view<1x?xf32>
    pto.tstore ins(%t : !pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=8, v_row=?, v_col=?, blayout=row_major, slayout=none_box, fractal=512, pad=0>) outs(%xq : !pto.partition_tensor_view<1x?xf32>)
    return
  }
}
"#;

#[test]
fn run_time_valid_shapes() {
    let p = prog(DYNAMIC);
    let x: Vec<f32> = (0..8).map(|i| i as f32).collect();
    // Load 5 elements, shrink the valid region to 3 columns and add 1 to those.
    let o = run(
        &p,
        vec![("x", f32s(&[8], &x)), ("n", s("5")), ("m", s("3"))],
        1,
    )
    .unwrap();
    assert_eq!(
        out_f32(&o, "x"),
        vec![1.0, 2.0, 3.0, 3.0, 4.0, 5.0, 6.0, 7.0]
    );
    // A valid column count past the tile's 8 columns is a tile-ISA error at alloc_tile.
    let e = run(
        &p,
        vec![("x", f32s(&[8], &x)), ("n", s("9")), ("m", s("3"))],
        1,
    )
    .unwrap_err();
    assert!(
        matches!(e.kind(), RunErrorKind::Pto | RunErrorKind::Bounds),
        "{e}"
    );
    // The partition of 9 columns reaches past its 8-column view, which alone is allowed; the
    // tile's 9 valid columns are not.
    let text = e.render("d.pto", DYNAMIC);
    assert!(text.contains("d.pto:10:"), "{text}");
}

#[test]
fn blocks_share_gm_and_do_not_change_results() {
    let src = include_str!("../../../examples/pto/multicore_split.pto");
    let p = prog(src);
    let x: Vec<f32> = (0..64 * 256)
        .map(|i| ((i * 37 % 101) as f32 - 50.0) / 7.0)
        .collect();
    let want: Vec<f32> = x.iter().map(|v| (v * 1.5 - 0.25).max(0.0)).collect();
    for blocks in [1, 2, 3, 4, 7] {
        let o = run(
            &p,
            vec![
                ("x", f32s(&[64, 256], &x)),
                ("y", f32s(&[64, 256], &vec![-9.0; 64 * 256])),
                ("n_rows", s("64")),
                ("alpha", s("1.5")),
                ("beta", s("-0.25")),
            ],
            blocks,
        )
        .unwrap();
        assert_eq!(out_f32(&o, "y"), want, "blocks = {blocks}");
        assert_eq!(o.stats.blocks, blocks);
        assert_eq!(o.stats.gm_to_chip, 64 * 256 * 4);
    }
    assert!(run(&p, vec![], 0).is_err());
}

fn vector_add_args(x_rows: usize, dtype_f16: bool) -> Vec<(&'static str, HostArg)> {
    let n = x_rows * 256;
    let x = if dtype_f16 {
        HostArg::Buffer(NpyArray::from_elems(vec![x_rows, 256], &vec![f16::ONE; n]))
    } else {
        f32s(&[x_rows, 256], &vec![1.0; n])
    };
    vec![
        ("x", x),
        ("y", f32s(&[64, 256], &vec![2.0; 64 * 256])),
        ("z", f32s(&[64, 256], &vec![0.0; 64 * 256])),
        ("n_rows", s("64")),
    ]
}

const VADD: &str = include_str!("../../../examples/pto/vector_add.pto");

fn line_col_of(src: &str, needle: &str) -> (usize, usize) {
    let at = src.find(needle).unwrap();
    let line = src[..at].matches('\n').count() + 1;
    let col = at - src[..at].rfind('\n').map_or(0, |i| i + 1) + 1;
    (line, col)
}

#[test]
fn binding_errors_point_at_the_parameter() {
    let p = prog(VADD);
    let (line, col) = line_col_of(VADD, "%x: !pto.ptr");
    // .npy element type differs from the pointer's.
    let e = run(&p, vector_add_args(64, true), 1).unwrap_err();
    assert_eq!(e.kind(), RunErrorKind::Binding);
    let text = e.render("vector_add.pto", VADD);
    assert!(text.starts_with("error: element type mismatch"), "{text}");
    assert!(
        text.contains(&format!("vector_add.pto:{line}:{col}")),
        "{text}"
    );
    assert!(text.contains("^^ expects f32"), "{text}");
    // Missing argument.
    let mut a = vector_add_args(64, false);
    a.retain(|(k, _)| *k != "y");
    let text = run(&p, a, 1).unwrap_err().render("v.pto", VADD);
    assert!(
        text.contains("missing argument for parameter `%y`"),
        "{text}"
    );
    assert!(text.contains("--arg y=FILE.npy"), "{text}");
    // Unknown argument: points at the function, lists the parameters.
    let mut a = vector_add_args(64, false);
    a.push(("w", s("1")));
    let e = run(&p, a, 1).unwrap_err();
    let text = e.render("v.pto", VADD);
    assert!(text.contains("unknown argument `--arg w`"), "{text}");
    assert!(text.contains("n_rows=VALUE (index)"), "{text}");
    // A literal that does not parse for the parameter's type.
    let mut a = vector_add_args(64, false);
    a[3].1 = s("sixty-four");
    let text = run(&p, a, 1).unwrap_err().render("v.pto", VADD);
    assert!(text.contains("bad value for `--arg n_rows`"), "{text}");
    assert!(text.contains("this parameter is index"), "{text}");
    // A buffer smaller than the windows the kernel loads: the first load past its end fails,
    // naming the op and its line.
    let e = run(&p, vector_add_args(32, false), 1).unwrap_err();
    assert_eq!(e.kind(), RunErrorKind::Bounds);
    let text = e.render("v.pto", VADD);
    assert!(text.contains("buffer of 8192 elements"), "{text}");
    assert!(text.contains("pto.tload"), "{text}");
}

const TDIV_I32: &str = r#"
module {
  func.func @k(%x: !pto.ptr<i32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %v = pto.make_tensor_view %x, shape = [%c1, %c8], strides = [%c8, %c1] : !pto.tensor_view<1x8xi32>
    %p = pto.partition_view %v, offsets = [%c0, %c0], sizes = [%c1, %c8] : !pto.tensor_view<1x8xi32> -> !pto.partition_tensor_view<1x8xi32>
    %t = pto.alloc_tile : !pto.tile_buf<vec, 1x8xi32>
    pto.tload ins(%p : !pto.partition_tensor_view<1x8xi32>) outs(%t : !pto.tile_buf<vec, 1x8xi32>)
    pto.tdiv ins(%t, %t : !pto.tile_buf<vec, 1x8xi32>, !pto.tile_buf<vec, 1x8xi32>) outs(%t : !pto.tile_buf<vec, 1x8xi32>)
    return
  }
}
"#;

#[test]
fn tile_isa_errors_carry_the_op_span() {
    let p = prog(TDIV_I32);
    let x = HostArg::Buffer(NpyArray::from_elems(vec![8], &[3i32; 8]));
    let e = run(&p, vec![("x", x)], 1).unwrap_err();
    assert_eq!(e.kind(), RunErrorKind::Pto);
    assert!(e.pto_error().is_some());
    let text = e.render("k.pto", TDIV_I32);
    let (line, col) = line_col_of(TDIV_I32, "pto.tdiv");
    assert!(text.contains(&format!("k.pto:{line}:{col}")), "{text}");
    assert!(text.contains("TDIV"), "{text}");
    assert!(text.contains("^^^^^^^^ failed here"), "{text}");
}

#[test]
fn endless_while_hits_the_step_limit() {
    let src = r#"
module {
  func.func @spin(%n: index) {
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %r = scf.while (%i = %n) : (index) -> (index) {
      scf.condition(%true) %i : index
    } do {
    ^bb0(%j: index):
      %k = arith.addi %j, %c1 : index
      scf.yield %k : index
    }
    return
  }
}
"#;
    let p = prog(src);
    let e = run(&p, vec![("n", s("0"))], 1).unwrap_err();
    assert_eq!(e.kind(), RunErrorKind::StepLimit);
    let text = e.render("spin.pto", src);
    assert!(text.contains("step limit exceeded"), "{text}");
    // The error names the op of the loop that was running when the budget ran out.
    assert!(
        ["scf.while", "scf.condition", "arith.addi", "scf.yield"]
            .iter()
            .any(|o| text.contains(&format!("`{o}`"))),
        "{text}"
    );
    // A for loop with a non-positive step is an error, not a hang.
    let src2 = "module {\n  func.func @f(%s: index) {\n    %c0 = arith.constant 0 : index\n    %c9 = arith.constant 9 : index\n    scf.for %i = %c0 to %c9 step %s {\n    }\n    return\n  }\n}\n";
    let p = prog(src2);
    let e = run(&p, vec![("s", s("0"))], 1).unwrap_err();
    assert!(e.to_string().contains("step must be positive"), "{e}");
}

#[test]
fn unbounded_recursion_is_an_error() {
    // Recursion is PTOAS's `no-recursion` rule, found before the run.
    let src = "module {\n  func.func @r(%n: index) {\n    func.call @r(%n) : (index) -> ()\n    return\n  }\n}\n";
    let d = npusim_ptoas::parse_module(src, "r.pto").expect_err("recursion");
    assert!(
        d[0].message.starts_with("[no-recursion]"),
        "{}",
        d[0].message
    );
    // A call chain deeper than the interpreter's limit (70 distinct functions) is a typed
    // run-time error.
    let mut src = String::from("module {\n");
    for i in 0..70 {
        src += &format!(
            "  func.func @f{i}(%n: index) {{\n    func.call @f{}(%n) : (index) -> ()\n    return\n  }}\n",
            i + 1
        );
    }
    src += "  func.func @f70(%n: index) {\n    return\n  }\n}\n";
    let p = prog(&src);
    let e = run_func(&p, "f0", vec![("n", s("1"))]).unwrap_err();
    assert_eq!(e.kind(), RunErrorKind::CallDepth);
    assert!(run_func(&p, "f10", vec![("n", s("1"))]).is_ok());
}

#[test]
fn integer_division_by_zero_is_reported() {
    let src = "module {\n  func.func @d(%a: index, %b: index) {\n    %q = arith.divsi %a, %b : index\n    return\n  }\n}\n";
    let p = prog(src);
    assert!(run(&p, vec![("a", s("7")), ("b", s("2"))], 1).is_ok());
    let e = run(&p, vec![("a", s("7")), ("b", s("0"))], 1).unwrap_err();
    assert_eq!(e.kind(), RunErrorKind::Arith);
    assert!(e.render("d.pto", src).contains("d.pto:3:10"));
}

#[test]
fn unsupported_ops_fail_only_when_reached() {
    let src = r#"
module {
  func.func private @ext(%n: index)
  func.func @m(%go: i1) {
    %c1 = arith.constant 1 : index
    scf.if %go {
      func.call @ext(%c1) : (index) -> ()
    }
    return
  }
}
"#;
    let p = prog(src);
    assert_eq!(p.unsupported().len(), 1);
    assert!(run(&p, vec![("go", s("false"))], 1).is_ok());
    let e = run(&p, vec![("go", s("true"))], 1).unwrap_err();
    assert_eq!(e.kind(), RunErrorKind::Unsupported);
    assert!(e.to_string().contains("func.call"), "{e}");
}

#[test]
fn vector_add_is_bit_exact() {
    let p = prog(VADD);
    let x: Vec<f32> = (0..64 * 256).map(|i| (i as f32).sin() * 1e3).collect();
    let y: Vec<f32> = (0..64 * 256).map(|i| (i as f32 * 0.37).cos()).collect();
    let o = run(
        &p,
        vec![
            ("x", f32s(&[64, 256], &x)),
            ("y", f32s(&[64, 256], &y)),
            ("z", f32s(&[64, 256], &vec![0.0; 64 * 256])),
            ("n_rows", s("64")),
        ],
        1,
    )
    .unwrap();
    let z = out_f32(&o, "z");
    for i in 0..x.len() {
        assert_eq!(z[i].to_bits(), (x[i] + y[i]).to_bits(), "element {i}");
    }
    // Inputs come back unchanged.
    assert_eq!(out_f32(&o, "x"), x);
    assert_eq!(o.stats.gm_to_chip, 2 * 64 * 256 * 4);
    assert_eq!(o.stats.chip_to_gm, 64 * 256 * 4);
    let tadd = o
        .stats
        .per_op
        .iter()
        .find(|(n, _)| *n == "pto.tadd")
        .unwrap();
    assert_eq!(tadd.1, 4);
}

/// bf16 in GM, f32 compute, bf16 out: `pto.tcvt` both ways (with a round mode) and a scalar
/// f32 parameter.
const BF16: &str = r#"
module {
  func.func @k(%x: !pto.ptr<bf16>, %s: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %v = pto.make_tensor_view %x, shape = [%c1, %c16], strides = [%c16, %c1] : !pto.tensor_view<1x16xbf16>
    %p = pto.partition_view %v, offsets = [%c0, %c0], sizes = [%c1, %c16] : !pto.tensor_view<1x16xbf16> -> !pto.partition_tensor_view<1x16xbf16>
    %h = pto.alloc_tile : !pto.tile_buf<vec, 1x16xbf16>
    %f = pto.alloc_tile : !pto.tile_buf<vec, 1x16xf32>
    pto.tload ins(%p : !pto.partition_tensor_view<1x16xbf16>) outs(%h : !pto.tile_buf<vec, 1x16xbf16>)
    pto.tcvt ins(%h : !pto.tile_buf<vec, 1x16xbf16>) outs(%f : !pto.tile_buf<vec, 1x16xf32>)
    pto.tmuls ins(%f, %s : !pto.tile_buf<vec, 1x16xf32>, f32) outs(%f : !pto.tile_buf<vec, 1x16xf32>)
    pto.tcvt ins(%f {rmode = #pto<round_mode TRUNC>} : !pto.tile_buf<vec, 1x16xf32>) outs(%h : !pto.tile_buf<vec, 1x16xbf16>)
    pto.tstore ins(%h : !pto.tile_buf<vec, 1x16xbf16>) outs(%p : !pto.partition_tensor_view<1x16xbf16>)
    return
  }
}
"#;

#[test]
fn bf16_round_trip_through_f32() {
    use npusim_core::bf16;
    let p = prog(BF16);
    let x: Vec<bf16> = (0..16)
        .map(|i| bf16::from_f32(1.0 + (8 * i + 1) as f32 / 128.0))
        .collect();
    let a = HostArg::Buffer(NpyArray::from_elems(vec![16], &x));
    // 3 * x needs more than bf16's 8 bits for most x: TRUNC rounds toward zero.
    let o = run(&p, vec![("x", a), ("s", s("3"))], 1).unwrap();
    let got = o.buffer("x").unwrap().to_elems::<bf16>().unwrap();
    let mut differs_from_nearest = 0;
    for (g, x) in got.iter().zip(&x) {
        let exact = 3.0 * x.to_f32();
        let trunc = f32::from_bits(exact.to_bits() & 0xFFFF_0000);
        assert_eq!(g.to_f32(), trunc, "x = {x}");
        differs_from_nearest += usize::from(bf16::from_f32(exact).to_f32() != trunc);
    }
    assert!(differs_from_nearest > 0);
    // A float32 file for a bf16 pointer is rejected.
    let a = f32s(&[16], &[1.0; 16]);
    let e = run(&p, vec![("x", a), ("s", s("3"))], 1).unwrap_err();
    assert!(e.to_string().contains("points to bf16"), "{e}");
}

/// Each block stores two tiles it never wrote (one placed at lowering, one at a run-time
/// address far up in UB), then loads the input into both. Every block must see zeros: a later
/// block starts on cleared on-chip memories wherever an earlier block could have written.
const UNWRITTEN: &str = r#"
module {
  func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>, %hi: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %bid_i64 = pto.get_block_idx
    %bid = arith.index_cast %bid_i64 : i64 to index
    %row = arith.muli %bid, %c2 : index
    %row1 = arith.addi %row, %c1 : index
    %xv = pto.make_tensor_view %x, shape = [%c8, %c16], strides = [%c16, %c1] : !pto.tensor_view<8x16xf32>
    %yv = pto.make_tensor_view %y, shape = [%c8, %c16], strides = [%c16, %c1] : !pto.tensor_view<8x16xf32>
    %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c1, %c16] : !pto.tensor_view<8x16xf32> -> !pto.partition_tensor_view<1x16xf32>
    %ya = pto.partition_view %yv, offsets = [%row, %c0], sizes = [%c1, %c16] : !pto.tensor_view<8x16xf32> -> !pto.partition_tensor_view<1x16xf32>
    %yb = pto.partition_view %yv, offsets = [%row1, %c0], sizes = [%c1, %c16] : !pto.tensor_view<8x16xf32> -> !pto.partition_tensor_view<1x16xf32>
    %t = pto.alloc_tile : !pto.tile_buf<vec, 1x16xf32>
    %u = pto.alloc_tile addr = %hi : !pto.tile_buf<vec, 1x16xf32>
    pto.tstore ins(%t : !pto.tile_buf<vec, 1x16xf32>) outs(%ya : !pto.partition_tensor_view<1x16xf32>)
    pto.tstore ins(%u : !pto.tile_buf<vec, 1x16xf32>) outs(%yb : !pto.partition_tensor_view<1x16xf32>)
    pto.tload ins(%xp : !pto.partition_tensor_view<1x16xf32>) outs(%t : !pto.tile_buf<vec, 1x16xf32>)
    pto.tload ins(%xp : !pto.partition_tensor_view<1x16xf32>) outs(%u : !pto.tile_buf<vec, 1x16xf32>)
    return
  }
}
"#;

#[test]
fn every_block_starts_on_cleared_on_chip_memories() {
    let p = prog(UNWRITTEN);
    let x: Vec<f32> = (0..128).map(|i| i as f32 + 1.0).collect();
    let o = run(
        &p,
        vec![
            ("x", f32s(&[8, 16], &x)),
            ("y", f32s(&[8, 16], &[7.0; 128])),
            // 128 KiB up in UB: far beyond the tiles placed at lowering.
            ("hi", s("131072")),
        ],
        4,
    )
    .unwrap();
    let y = out_f32(&o, "y");
    assert_eq!(
        y,
        vec![0.0; 128],
        "a block saw an earlier block's tile data"
    );
}

/// A 64x16 view over a buffer that holds only the 16x16 window the kernel touches.
const WINDOW: &str = r#"module {
  func.func @k(%x: !pto.ptr<f32>, %z: !pto.ptr<f32>, %r: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %xv = pto.make_tensor_view %x, shape = [%c64, %c16], strides = [%c16, %c1] : !pto.tensor_view<64x16xf32>
    %zv = pto.make_tensor_view %z, shape = [%c64, %c16], strides = [%c16, %c1] : !pto.tensor_view<64x16xf32>
    %xp = pto.partition_view %xv, offsets = [%r, %c0], sizes = [%c16, %c16] : !pto.tensor_view<64x16xf32> -> !pto.partition_tensor_view<16x16xf32>
    %zp = pto.partition_view %zv, offsets = [%c0, %c0], sizes = [%c16, %c16] : !pto.tensor_view<64x16xf32> -> !pto.partition_tensor_view<16x16xf32>
    %t = pto.alloc_tile : !pto.tile_buf<vec, 16x16xf32>
    pto.tload ins(%xp : !pto.partition_tensor_view<16x16xf32>) outs(%t : !pto.tile_buf<vec, 16x16xf32>)
    pto.tadd ins(%t, %t : !pto.tile_buf<vec, 16x16xf32>, !pto.tile_buf<vec, 16x16xf32>) outs(%t : !pto.tile_buf<vec, 16x16xf32>)
    pto.tstore ins(%t : !pto.tile_buf<vec, 16x16xf32>) outs(%zp : !pto.partition_tensor_view<16x16xf32>)
    return
  }
}"#;

#[test]
fn bounds_check_the_touched_window_not_the_declared_view() {
    let p = prog(WINDOW);
    let x: Vec<f32> = (0..256).map(|i| i as f32 * 0.5).collect();
    let args = |r: &str| {
        vec![
            ("x", f32s(&[256], &x)),
            ("z", f32s(&[256], &[0.0; 256])),
            ("r", s(r)),
        ]
    };
    // The declared view (64x16) is four times the buffer; the load touches rows 0..16 only.
    let o = run(&p, args("0"), 1).expect("window inside the buffer");
    let want: Vec<f32> = x.iter().map(|v| v + v).collect();
    assert_eq!(out_f32(&o, "z"), want);
    // Rows 1..17 leave the 256-element buffer: the load fails, naming itself and its line.
    let e = run(&p, args("1"), 1).unwrap_err();
    assert_eq!(e.kind(), RunErrorKind::Bounds);
    let text = e.render("w.pto", WINDOW);
    let (line, _) = line_col_of(WINDOW, "pto.tload");
    assert!(text.contains(&format!("w.pto:{line}:")), "{text}");
    assert!(text.contains("pto.tload"), "{text}");
    assert!(text.contains("elements [16, 272)"), "{text}");
    assert!(text.contains("buffer of 256 elements"), "{text}");
    // A partition past its (16-row) tensor view but inside a 512-element buffer runs: what
    // is touched decides, as on the board.
    let small = WINDOW
        .replace("%c64, %c16]", "%c16, %c16]")
        .replace("64x16xf32", "16x16xf32");
    let p = prog(&small);
    let x2: Vec<f32> = (0..512).map(|i| i as f32).collect();
    let o = run(
        &p,
        vec![
            ("x", f32s(&[512], &x2)),
            ("z", f32s(&[256], &[0.0; 256])),
            ("r", s("16")),
        ],
        1,
    )
    .expect("partition past the view, inside the buffer");
    let want: Vec<f32> = x2[256..].iter().map(|v| v + v).collect();
    assert_eq!(out_f32(&o, "z"), want);
}

/// `scf.for` trip counts and final induction values against a plain model, on `index` and
/// `i32` (including bounds next to `i32::MAX`, where `iv + step` overflows the type and the
/// loop must end), zero-trip loops and steps larger than the range. The latch checks the
/// bound itself (the head's check runs once), so this pins what the fused latch does.
#[test]
fn for_loop_trip_counts_match_a_plain_model() {
    fn kernel(ty: &str) -> Program {
        let ext = if ty == "index" {
            "arith.index_cast"
        } else {
            "arith.extsi"
        };
        prog(&format!(
            "module {{\n  func.func @f(%lo: {ty}, %hi: {ty}, %st: {ty}, %o: !pto.ptr<i64>) {{\n    %c0 = arith.constant 0 : index\n    %c1 = arith.constant 1 : index\n    %z = arith.constant 0 : i64\n    %one = arith.constant 1 : i64\n    %n, %last = scf.for %i = %lo to %hi step %st iter_args(%k = %z, %p = %lo) -> (i64, {ty}) : {ty} {{\n      %k2 = arith.addi %k, %one : i64\n      scf.yield %k2, %i : i64, {ty}\n    }}\n    %l64 = {ext} %last : {ty} to i64\n    pto.store_scalar %n, %o[%c0] : !pto.ptr<i64>, i64\n    pto.store_scalar %l64, %o[%c1] : !pto.ptr<i64>, i64\n    return\n  }}\n}}\n"
        ))
    }
    // The plain model: iterate while iv < hi; stop when iv + step leaves the type.
    fn model(lo: i64, hi: i64, st: i64, max: i64) -> (i64, i64) {
        let (mut iv, mut n, mut last) = (lo, 0i64, lo);
        while iv < hi {
            n += 1;
            last = iv;
            match iv.checked_add(st) {
                Some(v) if v <= max => iv = v,
                _ => break,
            }
        }
        (n, last)
    }
    let idx = kernel("index");
    let i32k = kernel("i32");
    let mut cases = Vec::new();
    for lo in -3i64..4 {
        for hi in -3i64..7 {
            for st in 1i64..5 {
                cases.push((lo, hi, st));
            }
        }
    }
    let m = i64::from(i32::MAX);
    let near_max = [
        (m - 5, m, 4),
        (m - 5, m, 2),
        (m - 1, m, 1),
        (m - 7, m, 8),
        (m - 9, m, 3),
    ];
    for (ty, p, max, extra) in [
        ("index", &idx, i64::MAX, &[][..]),
        ("i32", &i32k, m, &near_max[..]),
    ] {
        for &(lo, hi, st) in cases.iter().chain(extra) {
            let o = vec![0i64; 2];
            let out = run(
                p,
                vec![
                    ("lo", s(&lo.to_string())),
                    ("hi", s(&hi.to_string())),
                    ("st", s(&st.to_string())),
                    ("o", HostArg::Buffer(NpyArray::from_elems(vec![2], &o))),
                ],
                1,
            )
            .unwrap_or_else(|e| panic!("{ty} {lo}..{hi} step {st}: {e}"));
            let got = out.buffer("o").unwrap().to_elems::<i64>().unwrap();
            let (n, last) = model(lo, hi, st, max);
            assert_eq!(
                (got[0], got[1]),
                (n, last),
                "{ty} loop {lo}..{hi} step {st}: (trips, last iv)"
            );
        }
    }
}
