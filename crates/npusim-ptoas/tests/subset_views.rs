//! `pto.subset` in PTO-AS kernels (PTO IR manual, "pto.subset - Subview Tile View"): ping/pong
//! halves of one workspace tile, with constant and loop-carried offsets, written as PTOAS
//! prints them (the result type comes from the first use). Expected outputs are computed in
//! the test from the inputs.

use npusim_core::NpyArray;
use npusim_ptoas::interp::{
    HostArg, LowerOptions, Program, RunConfig, RunError, RunOutcome, lower,
};
use npusim_ptoas::parse_module;

fn try_prog(src: &str) -> Result<Program, String> {
    let m = parse_module(src, "t.pto").map_err(|d| npusim_ptoas::render_all(&d, "t.pto", src))?;
    lower(&m, LowerOptions::default()).map_err(|d| npusim_ptoas::render_all(&d, "t.pto", src))
}

fn run(p: &Program, args: Vec<(&str, HostArg)>) -> Result<RunOutcome, RunError> {
    let args: Vec<(String, HostArg)> = args.into_iter().map(|(k, v)| (k.into(), v)).collect();
    p.run(None, &args, &RunConfig::default())
}

fn buf(n: usize, v: &[f32]) -> HostArg {
    assert_eq!(v.len(), n);
    HostArg::Buffer(NpyArray::from_elems(vec![n], v))
}

/// PTOAS's own ping/pong sample, with a second output: x is loaded into the right half of a
/// 32x64 workspace (valid 32x32, so both halves are fully valid views), the left half gets
/// x + x, and both halves are stored.
const PINGPONG: &str = r#"
module {
  func.func @pingpong(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>, %z: !pto.ptr<f32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %0 = pto.alloc_tile : !pto.tile_buf<vec, 32x64xf32, valid=32x32>
    %1 = pto.make_tensor_view %x, shape = [%c32, %c32], strides = [%c32, %c1] : !pto.tensor_view<?x?xf32>
    %2 = pto.make_tensor_view %y, shape = [%c32, %c32], strides = [%c32, %c1] : !pto.tensor_view<?x?xf32>
    %9 = pto.make_tensor_view %z, shape = [%c32, %c32], strides = [%c32, %c1] : !pto.tensor_view<?x?xf32>
    %3 = pto.partition_view %1, offsets = [%c0, %c0], sizes = [%c32, %c32] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<32x32xf32>
    %4 = pto.partition_view %2, offsets = [%c0, %c0], sizes = [%c32, %c32] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<32x32xf32>
    %8 = pto.partition_view %9, offsets = [%c0, %c0], sizes = [%c32, %c32] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<32x32xf32>
    %5 = pto.subset %0[%c0, %c0] sizes [32, 32] : !pto.tile_buf<vec, 32x64xf32, valid=32x32>
    %6 = pto.subset %0[%c0, %c32] sizes [32, 32] : !pto.tile_buf<vec, 32x64xf32, valid=32x32>
    pto.tload ins(%3 : !pto.partition_tensor_view<32x32xf32>) outs(%6 : !pto.tile_buf<vec, 32x32xf32>)
    pto.tadd ins(%6, %6 : !pto.tile_buf<vec, 32x32xf32>, !pto.tile_buf<vec, 32x32xf32>) outs(%5 : !pto.tile_buf<vec, 32x32xf32>)
    pto.tstore ins(%5 : !pto.tile_buf<vec, 32x32xf32>) outs(%4 : !pto.partition_tensor_view<32x32xf32>)
    pto.tstore ins(%6 : !pto.tile_buf<vec, 32x32xf32>) outs(%8 : !pto.partition_tensor_view<32x32xf32>)
    return
  }
}
"#;

#[test]
fn pingpong_halves_are_separate_views() {
    let p = try_prog(PINGPONG).unwrap_or_else(|e| panic!("{e}"));
    let x: Vec<f32> = (0..1024).map(|i| (i as f32) * 0.37 - 100.0).collect();
    let o = run(
        &p,
        vec![
            ("x", buf(1024, &x)),
            ("y", buf(1024, &[0.0; 1024])),
            ("z", buf(1024, &[0.0; 1024])),
        ],
    )
    .unwrap();
    let y = o.buffer("y").unwrap().to_elems::<f32>().unwrap();
    let z = o.buffer("z").unwrap().to_elems::<f32>().unwrap();
    let bits = |v: &[f32]| v.iter().map(|a| a.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&z), bits(&x));
    let want: Vec<f32> = x.iter().map(|a| a + a).collect();
    assert_eq!(bits(&y), bits(&want));
}

/// A loop walks four 16-column views of one 8x64 tile with a loop-carried offset; each view is
/// loaded from its own column block of x, scaled by (k + 1), and the whole tile is stored once.
const WALK: &str = r#"
module {
  func.func @walk(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %t = pto.alloc_tile : !pto.tile_buf<vec, 8x64xf32>
    %xv = pto.make_tensor_view %x, shape = [%c8, %c64], strides = [%c64, %c1] : !pto.tensor_view<?x?xf32>
    %yv = pto.make_tensor_view %y, shape = [%c8, %c64], strides = [%c64, %c1] : !pto.tensor_view<?x?xf32>
    scf.for %k = %c0 to %c4 step %c1 {
      %off = arith.muli %k, %c16 : index
      %s = pto.subset %t[%c0, %off] sizes [8, 16] : !pto.tile_buf<vec, 8x64xf32>
      %p = pto.partition_view %xv, offsets = [%c0, %off], sizes = [%c8, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<8x16xf32>
      pto.tload ins(%p : !pto.partition_tensor_view<8x16xf32>) outs(%s : !pto.tile_buf<vec, 8x16xf32>)
      %k1 = arith.addi %k, %c1 : index
      %ki = arith.index_cast %k1 : index to i32
      %kf = arith.sitofp %ki : i32 to f32
      pto.tmuls ins(%s, %kf : !pto.tile_buf<vec, 8x16xf32>, f32) outs(%s : !pto.tile_buf<vec, 8x16xf32>)
    }
    %q = pto.partition_view %yv, offsets = [%c0, %c0], sizes = [%c8, %c64] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<8x64xf32>
    pto.tstore ins(%t : !pto.tile_buf<vec, 8x64xf32>) outs(%q : !pto.partition_tensor_view<8x64xf32>)
    return
  }
}
"#;

#[test]
fn loop_carried_offsets_walk_the_tile() {
    let p = try_prog(WALK).unwrap_or_else(|e| panic!("{e}"));
    let x: Vec<f32> = (0..512)
        .map(|i| ((i * 7919) % 1000) as f32 / 8.0 - 60.0)
        .collect();
    let o = run(&p, vec![("x", buf(512, &x)), ("y", buf(512, &[0.0; 512]))]).unwrap();
    let y = o.buffer("y").unwrap().to_elems::<f32>().unwrap();
    for r in 0..8 {
        for c in 0..64 {
            let k = (c / 16 + 1) as f32;
            let want = x[r * 64 + c] * k;
            assert_eq!(y[r * 64 + c].to_bits(), want.to_bits(), "({r}, {c})");
        }
    }
}

/// A view past its tile is a typed error naming the subset and the rule; so is a `sizes`
/// that disagrees with the result's annotated type.
#[test]
fn bad_views_are_errors() {
    let oob = WALK.replace("%c0 to %c4", "%c0 to %c8");
    let p = try_prog(&oob).unwrap_or_else(|e| panic!("{e}"));
    let x = vec![1.0f32; 512];
    let e = run(&p, vec![("x", buf(512, &x)), ("y", buf(512, &[0.0; 512]))]).unwrap_err();
    let s = e.to_string();
    for part in ["pto.subset", "inside the source tile", "[0, 64] + [8, 16]"] {
        assert!(s.contains(part), "{s:?} does not name {part:?}");
    }
    let bad = WALK.replace("sizes [8, 16]", "sizes [8, 32]");
    let e = try_prog(&bad).unwrap_err();
    assert!(
        e.contains("[subset-sizes]") && e.contains("8x16") && e.contains("8x32"),
        "{e}"
    );
}

/// A partition of another rank than its tensor view (`sizes = [%n]` read as `1xN`), which
/// PTOAS's verifier accepts: it loads and stores like the same-rank partition.
#[test]
fn partition_of_another_rank() {
    let src = r#"
module {
  func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %xv = pto.make_tensor_view %x, shape = [%c64], strides = [%c1] : !pto.tensor_view<?xf32>
    %yv = pto.make_tensor_view %y, shape = [%c64], strides = [%c1] : !pto.tensor_view<?xf32>
    %xp = pto.partition_view %xv, offsets = [%c0], sizes = [%c64] : !pto.tensor_view<?xf32> -> !pto.partition_tensor_view<1x64xf32>
    %yp = pto.partition_view %yv, offsets = [%c0], sizes = [%c64] : !pto.tensor_view<?xf32> -> !pto.partition_tensor_view<1x64xf32>
    %t = pto.alloc_tile : !pto.tile_buf<vec, 1x64xf32>
    pto.tload ins(%xp : !pto.partition_tensor_view<1x64xf32>) outs(%t : !pto.tile_buf<vec, 1x64xf32>)
    pto.tadd ins(%t, %t : !pto.tile_buf<vec, 1x64xf32>, !pto.tile_buf<vec, 1x64xf32>) outs(%t : !pto.tile_buf<vec, 1x64xf32>)
    pto.tstore ins(%t : !pto.tile_buf<vec, 1x64xf32>) outs(%yp : !pto.partition_tensor_view<1x64xf32>)
    return
  }
}
"#;
    let p = try_prog(src).unwrap_or_else(|e| panic!("{e}"));
    let x: Vec<f32> = (0..64).map(|i| i as f32 - 20.5).collect();
    let o = run(&p, vec![("x", buf(64, &x)), ("y", buf(64, &[0.0; 64]))]).unwrap();
    let y = o.buffer("y").unwrap().to_elems::<f32>().unwrap();
    assert_eq!(y, x.iter().map(|v| v + v).collect::<Vec<_>>());
    // A same-rank result still has to agree with `sizes`.
    let bad = src.replacen(
        "-> !pto.partition_tensor_view<1x64xf32>",
        "-> !pto.partition_tensor_view<32xf32>",
        1,
    );
    assert!(
        try_prog(&bad)
            .unwrap_err()
            .contains("sizes[0] is 64 but the result type says 32")
    );
}
