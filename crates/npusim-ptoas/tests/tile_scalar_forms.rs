//! `pto.tgetval` / `pto.tsetval` (one tile element at a linear offset) and `pto.trap` (PTO IR
//! manual, "pto.tgetval", "pto.tsetval", "pto.trap"). Expected values are computed in the test.

use npusim_core::NpyArray;
use npusim_ptoas::interp::{
    HostArg, LowerOptions, Program, RunConfig, RunError, RunErrorKind, RunOutcome, lower,
};
use npusim_ptoas::parse_module;

fn try_prog(src: &str) -> Result<Program, String> {
    let m = parse_module(src, "t.pto").map_err(|d| npusim_ptoas::render_all(&d, "t.pto", src))?;
    lower(&m, LowerOptions::default()).map_err(|d| npusim_ptoas::render_all(&d, "t.pto", src))
}

const KERNEL: &str = r#"
module {
  func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>, %i: index, %j: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c2 = arith.constant 2.0 : f32
    %xv = pto.make_tensor_view %x, shape = [%c8, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
    %yv = pto.make_tensor_view %y, shape = [%c8, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
    %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c8, %c8] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<8x8xf32>
    %yp = pto.partition_view %yv, offsets = [%c0, %c0], sizes = [%c8, %c8] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<8x8xf32>
    %t = pto.alloc_tile : !pto.tile_buf<vec, 8x8xf32>
    pto.tload ins(%xp : !pto.partition_tensor_view<8x8xf32>) outs(%t : !pto.tile_buf<vec, 8x8xf32>)
    %v = pto.tgetval ins(%t, %i : !pto.tile_buf<vec, 8x8xf32>, index) outs : f32
    %w = arith.mulf %v, %c2 : f32
    pto.tsetval ins(%j, %w : index, f32) outs(%t : !pto.tile_buf<vec, 8x8xf32>)
    pto.tstore ins(%t : !pto.tile_buf<vec, 8x8xf32>) outs(%yp : !pto.partition_tensor_view<8x8xf32>)
    return
  }
}
"#;

fn run(p: &Program, x: &[f32], i: usize, j: usize) -> Result<RunOutcome, RunError> {
    let args: Vec<(String, HostArg)> = vec![
        (
            "x".into(),
            HostArg::Buffer(NpyArray::from_elems(vec![64], x)),
        ),
        (
            "y".into(),
            HostArg::Buffer(NpyArray::from_elems(vec![64], &[0f32; 64])),
        ),
        ("i".into(), HostArg::Scalar(i.to_string())),
        ("j".into(), HostArg::Scalar(j.to_string())),
    ];
    p.run(None, &args, &RunConfig::default())
}

/// y = x, except y[j] = 2 * x[i] (the offset is the element's row-major position).
#[test]
fn get_then_set_one_element() {
    let p = try_prog(KERNEL).unwrap_or_else(|e| panic!("{e}"));
    let x: Vec<f32> = (0..64).map(|k| k as f32 * 1.25 - 30.0).collect();
    for (i, j) in [(0usize, 0usize), (9, 63), (63, 17), (42, 42)] {
        let o = run(&p, &x, i, j).unwrap();
        let y = o.buffer("y").unwrap().to_elems::<f32>().unwrap();
        let mut want = x.clone();
        want[j] = x[i] * 2.0;
        assert_eq!(y, want, "i={i} j={j}");
    }
}

/// An offset past the tile is a typed bounds error naming the op and the offset.
#[test]
fn offset_past_the_tile_is_an_error() {
    let p = try_prog(KERNEL).unwrap_or_else(|e| panic!("{e}"));
    let x = vec![1f32; 64];
    for (i, j, op) in [(64usize, 0usize, "pto.tgetval"), (0, 1000, "pto.tsetval")] {
        let e = run(&p, &x, i, j).unwrap_err();
        assert_eq!(e.kind(), RunErrorKind::Bounds, "{e}");
        let s = e.to_string();
        assert!(
            s.contains(op) && s.contains(&format!("offset {}", i.max(j))),
            "{s}"
        );
    }
}

/// The value's type must be the tile's element type.
#[test]
fn value_type_must_match_the_tile() {
    let bad = KERNEL
        .replace("outs : f32", "outs : i32")
        .replace("arith.mulf %v, %c2 : f32", "arith.sitofp %v : i32 to f32");
    let e = try_prog(&bad).unwrap_err();
    assert!(e.contains("[tile-scalar-type]") && e.contains("i32"), "{e}");
}

/// `pto.trap` stops the kernel with a typed error at its line; the stores before it do not
/// reach the caller (no outcome is returned).
#[test]
fn trap_stops_the_kernel() {
    let src = KERNEL.replace("    return\n", "    pto.trap\n    return\n");
    let p = try_prog(&src).unwrap_or_else(|e| panic!("{e}"));
    let e = run(&p, &[1f32; 64], 0, 0).unwrap_err();
    assert_eq!(e.kind(), RunErrorKind::Trap, "{e}");
    assert!(e.render("t.pto", &src).contains("pto.trap"));
}
