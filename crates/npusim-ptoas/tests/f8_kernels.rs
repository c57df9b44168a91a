//! A5 PTO-AS kernels on 8-bit float tiles, end to end: `pto.tcvt` f32 -> f8E4M3FN / f8E5M2 /
//! hifloat8 and back, with the f8 buffers passed as `.npy` arrays the way ml_dtypes writes
//! them (`<V1` for e4m3fn and hifloat8, `<f1` for e5m2). Expected codes come from a plain
//! nearest-value search over every code's value written here (ties to the even code; hifloat8
//! ties away from zero, as the A5 rounds into it).

use npusim_core::{ElemType, NpyArray, f8::F8Format};
use npusim_ptoas::interp::{HostArg, LowerOptions, Program, RunConfig, lower};
use npusim_ptoas::parse_module;

fn prog(src: &str) -> Program {
    let m = parse_module(src, "t.pto")
        .unwrap_or_else(|d| panic!("{}", npusim_ptoas::render_all(&d, "t.pto", src)));
    lower(&m, LowerOptions::default())
        .unwrap_or_else(|d| panic!("{}", npusim_ptoas::render_all(&d, "t.pto", src)))
}

/// x (f32) -> q (f8, stored) and q -> y (f32).
fn kernel(ty: &str) -> String {
    format!(
        r#"module attributes {{pto.target_arch = "a5"}} {{
  func.func @k(%x: !pto.ptr<f32>, %q: !pto.ptr<{ty}>, %y: !pto.ptr<f32>) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c32 = arith.constant 32 : index
    %xv = pto.make_tensor_view %x, shape = [%c4, %c32], strides = [%c32, %c1] : !pto.tensor_view<?x?xf32>
    %qv = pto.make_tensor_view %q, shape = [%c4, %c32], strides = [%c32, %c1] : !pto.tensor_view<?x?x{ty}>
    %yv = pto.make_tensor_view %y, shape = [%c4, %c32], strides = [%c32, %c1] : !pto.tensor_view<?x?xf32>
    %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c4, %c32] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<4x32xf32>
    %qp = pto.partition_view %qv, offsets = [%c0, %c0], sizes = [%c4, %c32] : !pto.tensor_view<?x?x{ty}> -> !pto.partition_tensor_view<4x32x{ty}>
    %yp = pto.partition_view %yv, offsets = [%c0, %c0], sizes = [%c4, %c32] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<4x32xf32>
    %xt = pto.alloc_tile : !pto.tile_buf<vec, 4x32xf32>
    %qt = pto.alloc_tile : !pto.tile_buf<vec, 4x32x{ty}>
    %yt = pto.alloc_tile : !pto.tile_buf<vec, 4x32xf32>
    pto.tload ins(%xp : !pto.partition_tensor_view<4x32xf32>) outs(%xt : !pto.tile_buf<vec, 4x32xf32>)
    pto.tcvt ins(%xt {{rmode = #pto<round_mode CAST_RINT>}} : !pto.tile_buf<vec, 4x32xf32>) outs(%qt : !pto.tile_buf<vec, 4x32x{ty}>)
    pto.tstore ins(%qt : !pto.tile_buf<vec, 4x32x{ty}>) outs(%qp : !pto.partition_tensor_view<4x32x{ty}>)
    pto.tcvt ins(%qt {{rmode = #pto<round_mode CAST_RINT>}} : !pto.tile_buf<vec, 4x32x{ty}>) outs(%yt : !pto.tile_buf<vec, 4x32xf32>)
    pto.tstore ins(%yt : !pto.tile_buf<vec, 4x32xf32>) outs(%yp : !pto.partition_tensor_view<4x32xf32>)
    return
  }}
}}
"#
    )
}

/// The nearest code by search (positive values; the sign is applied after).
fn nearest(f: F8Format, x: f32) -> u8 {
    let mut best: Option<(f64, u8)> = None;
    let a = (x as f64).abs();
    for c in 0..=0x7fu8 {
        let v = f.to_f32(c) as f64;
        if !v.is_finite() {
            continue;
        }
        let d = (v - a).abs();
        let better = match best {
            None => true,
            Some((bd, bc)) => {
                d < bd
                    || (d == bd
                        && if f == F8Format::HiF8 {
                            v > f.to_f32(bc) as f64
                        } else {
                            c & 1 == 0
                        })
            }
        };
        if better {
            best = Some((d, c));
        }
    }
    let c = best.map_or(0, |b| b.1);
    if x.is_sign_negative() && !(f == F8Format::HiF8 && c == 0) {
        c | 0x80
    } else {
        c
    }
}

#[test]
fn f32_to_f8_and_back_through_npy_buffers() {
    for (ty, t) in [
        ("f8E4M3FN", ElemType::F8E4M3FN),
        ("f8E5M2", ElemType::F8E5M2),
        ("hifloat8", ElemType::HiF8),
    ] {
        let f = F8Format::of(t).unwrap();
        // In range for every format (|x| <= 240), with ties and tiny values.
        let x: Vec<f32> = (0..128)
            .map(|i| {
                let s = if i % 3 == 0 { -1.0 } else { 1.0 };
                s * ((i * 7919 % 251) as f32 * 0.9375 + (i % 5) as f32 * 0.0625) / 2f32.powi(i % 9)
            })
            .collect();
        let p = prog(&kernel(ty));
        // The f8 output buffer goes in as ml_dtypes writes it (read back as e4m3fn when <V1).
        let q0 = npusim_core::npy::parse_npy(
            &npusim_core::npy::to_npy_bytes(&NpyArray {
                dtype: t,
                shape: vec![4, 32],
                data: vec![0; 128],
            })
            .unwrap(),
        )
        .unwrap();
        let args: Vec<(String, HostArg)> = vec![
            (
                "x".into(),
                HostArg::Buffer(NpyArray::from_elems(vec![4, 32], &x)),
            ),
            ("q".into(), HostArg::Buffer(q0)),
            (
                "y".into(),
                HostArg::Buffer(NpyArray::from_elems(vec![4, 32], &[0f32; 128])),
            ),
        ];
        let out = p.run(None, &args, &RunConfig::default()).unwrap();
        let q = out.buffer("q").unwrap();
        assert_eq!(q.dtype, t, "{ty}: the output keeps the parameter's type");
        let y = out.buffer("y").unwrap().to_elems::<f32>().unwrap();
        for (i, &v) in x.iter().enumerate() {
            let want = nearest(f, v);
            assert_eq!(q.data[i], want, "{ty} of {v:e}");
            assert_eq!(y[i], f.to_f32(want), "{ty} back from {want:#x}");
        }
    }
}
