//! TINTERLEAVE, TDEINTERLEAVE, TPAIRREDUCESUM, TADDRELUCONV, TADDDEQRELU and TPREFETCH in
//! their DPS forms (pto-isa pages' "AS Level 2"), lowered and run on A5; expected values
//! computed here from the inputs with the pages' formulas.

use npusim_core::NpyArray;
use npusim_ptoas::interp::{HostArg, LowerOptions, RunConfig, lower};
use npusim_ptoas::parse_module;

fn run(src: &str, args: Vec<(&str, HostArg)>) -> npusim_ptoas::interp::RunOutcome {
    let m = parse_module(src, "t.pto")
        .unwrap_or_else(|d| panic!("{}", npusim_ptoas::render_all(&d, "t.pto", src)));
    let p = lower(&m, LowerOptions::default())
        .unwrap_or_else(|d| panic!("{}", npusim_ptoas::render_all(&d, "t.pto", src)));
    let args: Vec<(String, HostArg)> = args.into_iter().map(|(k, v)| (k.into(), v)).collect();
    p.run(None, &args, &RunConfig::default())
        .unwrap_or_else(|e| panic!("{}", e.render("t.pto", src)))
}

const KERNEL: &str = r#"
module attributes {pto.target_arch = "a5"} {
  func.func @k(%a: !pto.ptr<f32>, %b: !pto.ptr<f32>, %i0: !pto.ptr<f32>, %i1: !pto.ptr<f32>,
               %e0: !pto.ptr<f32>, %p: !pto.ptr<f32>, %h: !pto.ptr<f16>,
               %x: !pto.ptr<i32>, %y: !pto.ptr<i32>, %q: !pto.ptr<f16>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %s = arith.constant 0.25 : f32
    %av = pto.make_tensor_view %a, shape = [%c4, %c16], strides = [%c16, %c1] : !pto.tensor_view<4x16xf32>
    %bv = pto.make_tensor_view %b, shape = [%c4, %c16], strides = [%c16, %c1] : !pto.tensor_view<4x16xf32>
    %i0v = pto.make_tensor_view %i0, shape = [%c4, %c16], strides = [%c16, %c1] : !pto.tensor_view<4x16xf32>
    %i1v = pto.make_tensor_view %i1, shape = [%c4, %c16], strides = [%c16, %c1] : !pto.tensor_view<4x16xf32>
    %e0v = pto.make_tensor_view %e0, shape = [%c4, %c8], strides = [%c8, %c1] : !pto.tensor_view<4x8xf32>
    %pv = pto.make_tensor_view %p, shape = [%c4, %c16], strides = [%c16, %c1] : !pto.tensor_view<4x16xf32>
    %hv = pto.make_tensor_view %h, shape = [%c4, %c16], strides = [%c16, %c1] : !pto.tensor_view<4x16xf16>
    %xv = pto.make_tensor_view %x, shape = [%c4, %c16], strides = [%c16, %c1] : !pto.tensor_view<4x16xi32>
    %yv = pto.make_tensor_view %y, shape = [%c4, %c16], strides = [%c16, %c1] : !pto.tensor_view<4x16xi32>
    %qv = pto.make_tensor_view %q, shape = [%c4, %c16], strides = [%c16, %c1] : !pto.tensor_view<4x16xf16>
    %ap = pto.partition_view %av, offsets = [%c0, %c0], sizes = [%c4, %c16] : !pto.tensor_view<4x16xf32> -> !pto.partition_tensor_view<4x16xf32>
    %bp = pto.partition_view %bv, offsets = [%c0, %c0], sizes = [%c4, %c16] : !pto.tensor_view<4x16xf32> -> !pto.partition_tensor_view<4x16xf32>
    %i0p = pto.partition_view %i0v, offsets = [%c0, %c0], sizes = [%c4, %c16] : !pto.tensor_view<4x16xf32> -> !pto.partition_tensor_view<4x16xf32>
    %i1p = pto.partition_view %i1v, offsets = [%c0, %c0], sizes = [%c4, %c16] : !pto.tensor_view<4x16xf32> -> !pto.partition_tensor_view<4x16xf32>
    %e0p = pto.partition_view %e0v, offsets = [%c0, %c0], sizes = [%c4, %c8] : !pto.tensor_view<4x8xf32> -> !pto.partition_tensor_view<4x8xf32>
    %pp = pto.partition_view %pv, offsets = [%c0, %c0], sizes = [%c4, %c16] : !pto.tensor_view<4x16xf32> -> !pto.partition_tensor_view<4x16xf32>
    %hp = pto.partition_view %hv, offsets = [%c0, %c0], sizes = [%c4, %c16] : !pto.tensor_view<4x16xf16> -> !pto.partition_tensor_view<4x16xf16>
    %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c4, %c16] : !pto.tensor_view<4x16xi32> -> !pto.partition_tensor_view<4x16xi32>
    %yp = pto.partition_view %yv, offsets = [%c0, %c0], sizes = [%c4, %c16] : !pto.tensor_view<4x16xi32> -> !pto.partition_tensor_view<4x16xi32>
    %qp = pto.partition_view %qv, offsets = [%c0, %c0], sizes = [%c4, %c16] : !pto.tensor_view<4x16xf16> -> !pto.partition_tensor_view<4x16xf16>
    %ta = pto.alloc_tile : !pto.tile_buf<vec, 4x16xf32>
    %tb = pto.alloc_tile : !pto.tile_buf<vec, 4x16xf32>
    %t0 = pto.alloc_tile : !pto.tile_buf<vec, 4x16xf32>
    %t1 = pto.alloc_tile : !pto.tile_buf<vec, 4x16xf32>
    %d0 = pto.alloc_tile : !pto.tile_buf<vec, 4x8xf32>
    %d1 = pto.alloc_tile : !pto.tile_buf<vec, 4x8xf32>
    %tp = pto.alloc_tile : !pto.tile_buf<vec, 4x16xf32>
    %th = pto.alloc_tile : !pto.tile_buf<vec, 4x16xf16>
    %tx = pto.alloc_tile : !pto.tile_buf<vec, 4x16xi32>
    %ty = pto.alloc_tile : !pto.tile_buf<vec, 4x16xi32>
    %tt = pto.alloc_tile : !pto.tile_buf<vec, 4x16xi32>
    %tq = pto.alloc_tile : !pto.tile_buf<vec, 4x16xf16>
    pto.tprefetch ins(%ap : !pto.partition_tensor_view<4x16xf32>) outs(%ta : !pto.tile_buf<vec, 4x16xf32>)
    pto.tload ins(%ap : !pto.partition_tensor_view<4x16xf32>) outs(%ta : !pto.tile_buf<vec, 4x16xf32>)
    pto.tload ins(%bp : !pto.partition_tensor_view<4x16xf32>) outs(%tb : !pto.tile_buf<vec, 4x16xf32>)
    pto.tload ins(%xp : !pto.partition_tensor_view<4x16xi32>) outs(%tx : !pto.tile_buf<vec, 4x16xi32>)
    pto.tload ins(%yp : !pto.partition_tensor_view<4x16xi32>) outs(%ty : !pto.tile_buf<vec, 4x16xi32>)
    pto.tinterleave ins(%ta, %tb : !pto.tile_buf<vec, 4x16xf32>, !pto.tile_buf<vec, 4x16xf32>) outs(%t0, %t1 : !pto.tile_buf<vec, 4x16xf32>, !pto.tile_buf<vec, 4x16xf32>)
    pto.tdeinterleave ins(%ta : !pto.tile_buf<vec, 4x16xf32>) outs(%d0, %d1 : !pto.tile_buf<vec, 4x8xf32>, !pto.tile_buf<vec, 4x8xf32>)
    pto.tpairreducesum ins(%ta : !pto.tile_buf<vec, 4x16xf32>) outs(%tp : !pto.tile_buf<vec, 4x16xf32>)
    pto.taddreluconv ins(%ta, %tb : !pto.tile_buf<vec, 4x16xf32>, !pto.tile_buf<vec, 4x16xf32>) outs(%th : !pto.tile_buf<vec, 4x16xf16>)
    pto.tadddeqrelu ins(%tx, %ty, %s, %tt : !pto.tile_buf<vec, 4x16xi32>, !pto.tile_buf<vec, 4x16xi32>, f32, !pto.tile_buf<vec, 4x16xi32>) outs(%tq : !pto.tile_buf<vec, 4x16xf16>)
    pto.tstore ins(%t0 : !pto.tile_buf<vec, 4x16xf32>) outs(%i0p : !pto.partition_tensor_view<4x16xf32>)
    pto.tstore ins(%t1 : !pto.tile_buf<vec, 4x16xf32>) outs(%i1p : !pto.partition_tensor_view<4x16xf32>)
    pto.tstore ins(%d0 : !pto.tile_buf<vec, 4x8xf32>) outs(%e0p : !pto.partition_tensor_view<4x8xf32>)
    pto.tstore ins(%tp : !pto.tile_buf<vec, 4x16xf32>) outs(%pp : !pto.partition_tensor_view<4x16xf32>)
    pto.tstore ins(%th : !pto.tile_buf<vec, 4x16xf16>) outs(%hp : !pto.partition_tensor_view<4x16xf16>)
    pto.tstore ins(%tq : !pto.tile_buf<vec, 4x16xf16>) outs(%qp : !pto.partition_tensor_view<4x16xf16>)
    return
  }
}
"#;

fn f32s(v: &[f32], cols: usize) -> HostArg {
    HostArg::Buffer(NpyArray::from_elems(vec![v.len() / cols, cols], v))
}

#[test]
fn pair_and_fused_ops_run_as_the_pages_say() {
    let a: Vec<f32> = (0..64).map(|k| k as f32 * 0.5 - 10.0).collect();
    let b: Vec<f32> = (0..64).map(|k| 3.0 - k as f32 * 0.25).collect();
    let x: Vec<i32> = (0..64).map(|k| k * 1000 - 20000).collect();
    let y: Vec<i32> = (0..64).map(|k| 7 - k * 3).collect();
    let out = run(
        KERNEL,
        vec![
            ("a", f32s(&a, 16)),
            ("b", f32s(&b, 16)),
            ("i0", f32s(&[0.0; 64], 16)),
            ("i1", f32s(&[0.0; 64], 16)),
            ("e0", f32s(&[0.0; 32], 8)),
            ("p", f32s(&[9.0; 64], 16)),
            (
                "h",
                HostArg::Buffer(NpyArray::from_elems(
                    vec![4, 16],
                    &[npusim_core::f16::ZERO; 64],
                )),
            ),
            ("x", HostArg::Buffer(NpyArray::from_elems(vec![4, 16], &x))),
            ("y", HostArg::Buffer(NpyArray::from_elems(vec![4, 16], &y))),
            (
                "q",
                HostArg::Buffer(NpyArray::from_elems(
                    vec![4, 16],
                    &[npusim_core::f16::ZERO; 64],
                )),
            ),
        ],
    );
    let got = |n: &str| out.buffer(n).unwrap().to_elems::<f32>().unwrap();
    let (i0, i1, e0, p) = (got("i0"), got("i1"), got("e0"), got("p"));
    for r in 0..4 {
        let stream: Vec<f32> = (0..16)
            .flat_map(|k| [a[r * 16 + k], b[r * 16 + k]])
            .collect();
        assert_eq!(&i0[r * 16..r * 16 + 16], &stream[..16]);
        assert_eq!(&i1[r * 16..r * 16 + 16], &stream[16..]);
        for k in 0..8 {
            assert_eq!(e0[r * 8 + k], a[r * 16 + 2 * k]);
            assert_eq!(p[r * 16 + k], a[r * 16 + 2 * k] + a[r * 16 + 2 * k + 1]);
            assert_eq!(p[r * 16 + 8 + k], 0.0);
        }
    }
    let h = out
        .buffer("h")
        .unwrap()
        .to_elems::<npusim_core::f16>()
        .unwrap();
    let q = out
        .buffer("q")
        .unwrap()
        .to_elems::<npusim_core::f16>()
        .unwrap();
    for k in 0..64 {
        // The sums here are exact in f32 and in half.
        assert_eq!(h[k].to_f32(), (a[k] + b[k]).max(0.0), "h[{k}]");
        let want = ((x[k] + y[k]) as f32 * 0.25).max(0.0);
        assert_eq!(q[k], npusim_core::f16::from_f32(want), "q[{k}]");
    }
}

#[test]
fn tsync_is_satisfied_in_order() {
    // PTOAS test/basic/tsync_emitc.pto's form: `pto.tsync ins(%a, %b : ...)` between a load
    // and a store; the kernel runs and copies.
    let src = r#"
module {
  func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %xv = pto.make_tensor_view %x, shape = [%c1, %c8], strides = [%c8, %c1] : !pto.tensor_view<1x8xf32>
    %yv = pto.make_tensor_view %y, shape = [%c1, %c8], strides = [%c8, %c1] : !pto.tensor_view<1x8xf32>
    %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c1, %c8] : !pto.tensor_view<1x8xf32> -> !pto.partition_tensor_view<1x8xf32>
    %yp = pto.partition_view %yv, offsets = [%c0, %c0], sizes = [%c1, %c8] : !pto.tensor_view<1x8xf32> -> !pto.partition_tensor_view<1x8xf32>
    %t = pto.alloc_tile : !pto.tile_buf<vec, 1x8xf32>
    pto.tload ins(%xp : !pto.partition_tensor_view<1x8xf32>) outs(%t : !pto.tile_buf<vec, 1x8xf32>)
    pto.tsync ins(%t : !pto.tile_buf<vec, 1x8xf32>)
    pto.tstore ins(%t : !pto.tile_buf<vec, 1x8xf32>) outs(%yp : !pto.partition_tensor_view<1x8xf32>)
    return
  }
}
"#;
    let x: Vec<f32> = (0..8).map(|k| k as f32 + 0.5).collect();
    let out = run(src, vec![("x", f32s(&x, 8)), ("y", f32s(&[0.0; 8], 8))]);
    assert_eq!(out.buffer("y").unwrap().to_elems::<f32>().unwrap(), x);
}
