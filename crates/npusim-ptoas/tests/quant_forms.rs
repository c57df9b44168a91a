//! `pto.tquant` (INT8 forms) and `pto.tdequant` as PTOAS prints them (PTO IR manual
//! "pto.tquant"; pto-isa `docs/isa/TDEQUANT.md`), run on inputs made here and checked against
//! the pages' formulas computed in the test (per-row parameters: the 32-byte block of row `r`).

use npusim_core::NpyArray;
use npusim_ptoas::interp::{HostArg, LowerOptions, Program, RunConfig, lower};
use npusim_ptoas::parse_module;

fn prog(src: &str) -> Program {
    let m = parse_module(src, "t.pto")
        .unwrap_or_else(|d| panic!("{}", npusim_ptoas::render_all(&d, "t.pto", src)));
    lower(&m, LowerOptions::default())
        .unwrap_or_else(|d| panic!("{}", npusim_ptoas::render_all(&d, "t.pto", src)))
}

const KERNEL: &str = r#"
module {
  func.func @k(%x: !pto.ptr<f32>, %s: !pto.ptr<f32>, %o: !pto.ptr<f32>, %q: !pto.ptr<i8>, %y: !pto.ptr<f32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %xv = pto.make_tensor_view %x, shape = [%c16, %c32], strides = [%c32, %c1] : !pto.tensor_view<?x?xf32>
    %sv = pto.make_tensor_view %s, shape = [%c16, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
    %ov = pto.make_tensor_view %o, shape = [%c16, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
    %qv = pto.make_tensor_view %q, shape = [%c16, %c32], strides = [%c32, %c1] : !pto.tensor_view<?x?xi8>
    %yv = pto.make_tensor_view %y, shape = [%c16, %c32], strides = [%c32, %c1] : !pto.tensor_view<?x?xf32>
    %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c16, %c32] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<16x32xf32>
    %sp = pto.partition_view %sv, offsets = [%c0, %c0], sizes = [%c16, %c8] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<16x8xf32>
    %op = pto.partition_view %ov, offsets = [%c0, %c0], sizes = [%c16, %c8] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<16x8xf32>
    %qp = pto.partition_view %qv, offsets = [%c0, %c0], sizes = [%c16, %c32] : !pto.tensor_view<?x?xi8> -> !pto.partition_tensor_view<16x32xi8>
    %yp = pto.partition_view %yv, offsets = [%c0, %c0], sizes = [%c16, %c32] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<16x32xf32>
    %xt = pto.alloc_tile : !pto.tile_buf<vec, 16x32xf32>
    %st = pto.alloc_tile : !pto.tile_buf<vec, 16x8xf32>
    %ot = pto.alloc_tile : !pto.tile_buf<vec, 16x8xf32>
    %qt = pto.alloc_tile : !pto.tile_buf<vec, 16x32xi8>
    %yt = pto.alloc_tile : !pto.tile_buf<vec, 16x32xf32>
    pto.tload ins(%xp : !pto.partition_tensor_view<16x32xf32>) outs(%xt : !pto.tile_buf<vec, 16x32xf32>)
    pto.tload ins(%sp : !pto.partition_tensor_view<16x8xf32>) outs(%st : !pto.tile_buf<vec, 16x8xf32>)
    pto.tload ins(%op : !pto.partition_tensor_view<16x8xf32>) outs(%ot : !pto.tile_buf<vec, 16x8xf32>)
    pto.tquant ins(%xt, %st : !pto.tile_buf<vec, 16x32xf32>, !pto.tile_buf<vec, 16x8xf32>) outs(%qt : !pto.tile_buf<vec, 16x32xi8>) {quant_type = #pto<quant_type INT8_SYM>}
    pto.tstore ins(%qt : !pto.tile_buf<vec, 16x32xi8>) outs(%qp : !pto.partition_tensor_view<16x32xi8>)
    pto.tdequant ins(%qt, %st, %ot : !pto.tile_buf<vec, 16x32xi8>, !pto.tile_buf<vec, 16x8xf32>, !pto.tile_buf<vec, 16x8xf32>) outs(%yt : !pto.tile_buf<vec, 16x32xf32>)
    pto.tstore ins(%yt : !pto.tile_buf<vec, 16x32xf32>) outs(%yp : !pto.partition_tensor_view<16x32xf32>)
    return
  }
}
"#;

/// Symmetric quantisation to i8, then the codes dequantised with the scale and an offset
/// (offset first, then scale, as the page orders it).
#[test]
fn quantise_then_dequantise() {
    let p = prog(KERNEL);
    let x: Vec<f32> = (0..512)
        .map(|i| ((i * 37) % 401) as f32 * 0.61 - 120.0)
        .collect();
    let s: Vec<f32> = (0..128).map(|i| 0.25 + (i / 8) as f32 * 0.125).collect();
    let o: Vec<f32> = (0..128).map(|i| 100.0 + (i / 8) as f32).collect();
    let args: Vec<(String, HostArg)> = vec![
        (
            "x".into(),
            HostArg::Buffer(NpyArray::from_elems(vec![512], &x)),
        ),
        (
            "s".into(),
            HostArg::Buffer(NpyArray::from_elems(vec![128], &s)),
        ),
        (
            "o".into(),
            HostArg::Buffer(NpyArray::from_elems(vec![128], &o)),
        ),
        (
            "q".into(),
            HostArg::Buffer(NpyArray::from_elems(vec![512], &[0i8; 512])),
        ),
        (
            "y".into(),
            HostArg::Buffer(NpyArray::from_elems(vec![512], &[0f32; 512])),
        ),
    ];
    let out = p.run(None, &args, &RunConfig::default()).unwrap();
    let q = out.buffer("q").unwrap().to_elems::<i8>().unwrap();
    let y = out.buffer("y").unwrap().to_elems::<f32>().unwrap();
    for r in 0..16 {
        let (sr, or) = (s[r * 8], o[r * 8]);
        for c in 0..32 {
            let k = r * 32 + c;
            let want = (x[k] * sr).round_ties_even().clamp(-128.0, 127.0) as i8;
            assert_eq!(q[k], want, "q({r}, {c})");
            let back = (want as f32 - or) * sr;
            assert_eq!(y[k].to_bits(), back.to_bits(), "y({r}, {c})");
        }
    }
}

/// The PTOAS samples' full-width scale tile (16x32 here, not the documented 16x8) runs as the
/// vector unit reads it under the hardware policy: row `r`, column `c` takes flat element
/// `8 r + c % 8` of the tile (the 32-byte block `r`, broadcast along the row), as PTOAS's
/// Quant goldens compute it.
#[test]
fn full_width_scale_is_read_by_block_broadcast() {
    let load_y = "    pto.tload ins(%yp : !pto.partition_tensor_view<16x32xf32>) outs(%yt : !pto.tile_buf<vec, 16x32xf32>)\n";
    let bad = KERNEL
        .replace(
            "!pto.tile_buf<vec, 16x8xf32>) outs(%qt",
            "!pto.tile_buf<vec, 16x32xf32>) outs(%qt",
        )
        .replace("pto.tquant ins(%xt, %st :", "pto.tquant ins(%xt, %yt :")
        .replace("    pto.tquant ins", &format!("{load_y}    pto.tquant ins"));
    assert_ne!(bad, KERNEL);
    let p = prog(&bad);
    let x: Vec<f32> = (0..512)
        .map(|i| ((i * 37) % 401) as f32 * 0.61 - 120.0)
        .collect();
    let y: Vec<f32> = (0..512)
        .map(|i| 0.05 + ((i * 11) % 31) as f32 * 0.07)
        .collect();
    let buf = |v: &[f32]| HostArg::Buffer(NpyArray::from_elems(vec![512], v));
    let args: Vec<(String, HostArg)> = vec![
        ("x".into(), buf(&x)),
        ("s".into(), buf(&[1f32; 512])),
        ("o".into(), buf(&[0f32; 512])),
        (
            "q".into(),
            HostArg::Buffer(NpyArray::from_elems(vec![512], &[0i8; 512])),
        ),
        ("y".into(), buf(&y)),
    ];
    let out = p.run(None, &args, &RunConfig::default()).unwrap();
    let q = out.buffer("q").unwrap().to_elems::<i8>().unwrap();
    for r in 0..16 {
        for c in 0..32 {
            let k = r * 32 + c;
            let want = (x[k] * y[8 * r + c % 8])
                .round_ties_even()
                .clamp(-128.0, 127.0) as i8;
            assert_eq!(q[k], want, "q({r}, {c})");
        }
    }
}
