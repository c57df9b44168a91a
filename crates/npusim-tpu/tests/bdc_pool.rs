//! Issue #16, BDC pooling: plain models written here against the simulator, and one test per
//! restriction. Bit-exactness against the C-model is in tests/golden.rs (golden/tpu/pool.json).

use npusim_tpu::bdc_pool::{Dim2, Padding};
use npusim_tpu::{DataType, Dim4, Scalar, TpuChip, TpuCore, TpuError};
use proptest::prelude::*;

fn core() -> TpuCore {
    TpuCore::with_gm_size(TpuChip::Bm1684x, 1 << 20).unwrap()
}

/// Writes an f32 plane (one channel on lane 0, aligned layout: h stride = w) at `addr`.
fn put(c: &mut TpuCore, addr: usize, v: &[f32]) {
    for (i, x) in v.iter().enumerate() {
        c.local_store_mut()[addr + 4 * i..addr + 4 * i + 4].copy_from_slice(&x.to_le_bytes());
    }
}

fn get(c: &TpuCore, addr: usize, n: usize) -> Vec<f32> {
    let s = c.local_store();
    (0..n)
        .map(|i| f32::from_le_bytes(s[addr + 4 * i..addr + 4 * i + 4].try_into().unwrap()))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Small integers times a power-of-two scale: every sum is exact, so any order gives the
    /// plain mean; max against the plain maximum with -inf padding.
    #[test]
    fn pools_plain_model(
        h in 2i32..7, w in 2i32..7, kh in 1i32..3, kw in 1i32..3, pad in 0i32..2,
        vals in prop::collection::vec(-50i32..50, 36),
    ) {
        let mut c = core();
        let x: Vec<f32> = (0..(h * w) as usize).map(|i| vals[i % 36] as f32).collect();
        put(&mut c, 0x10000, &x);
        let s = Dim4::new(1, 1, h, w);
        let p = Padding { top: pad, bottom: pad, left: pad, right: pad };
        let (k, one) = (Dim2::new(kh, kw), Dim2::new(1, 1));
        c.tpu_bdc_fp_max_pool2d(0, 0x10000, &s, &k, &p, &one, &one, DataType::Fp32,
            Scalar::from_f32(f32::NEG_INFINITY)).unwrap();
        c.tpu_bdc_fp_avg_pool2d(0x20000, 0x10000, &s, &k, &p, &one, &one, DataType::Fp32,
            Scalar::from_f32(0.25)).unwrap();
        let (oh, ow) = (h + 2 * pad - kh + 1, w + 2 * pad - kw + 1);
        let (mx, av) = (get(&c, 0, (oh * ow) as usize), get(&c, 0x20000, (oh * ow) as usize));
        for y in 0..oh {
            for xo in 0..ow {
                let (mut m, mut sum, mut any) = (f32::NEG_INFINITY, 0.0f32, false);
                for i in 0..kh {
                    for j in 0..kw {
                        let (yy, xx) = (y + i - pad, xo + j - pad);
                        let inside = (0..h).contains(&yy) && (0..w).contains(&xx);
                        any |= inside;
                        // padding: -inf for max (pad_val), 0 for avg
                        let v = if inside { x[(yy * w + xx) as usize] } else { 0.0 };
                        m = m.max(if inside { v } else { f32::NEG_INFINITY });
                        sum += v * 0.25;
                    }
                }
                // a window of padding only: the -inf pad comes out as -FLT_MAX
                let m = if any { m } else { f32::MIN };
                prop_assert_eq!(mx[(y * ow + xo) as usize], m);
                prop_assert_eq!(av[(y * ow + xo) as usize], sum);
            }
        }
    }
}

#[test]
fn restriction_pool_params() {
    let mut c = core();
    let s = Dim4::new(1, 2, 4, 4);
    let one = Dim2::new(1, 1);
    let p = Padding::default();
    let k = Scalar::from_f32(1.0);
    let f32t = DataType::Fp32;
    assert!(matches!(
        c.tpu_bdc_fp_max_pool2d(0, 0x10000, &s, &Dim2::new(0, 2), &p, &one, &one, f32t, k),
        Err(TpuError::PoolParam {
            param: "kernel.h",
            value: 0,
            ..
        })
    ));
    assert!(matches!(
        c.tpu_bdc_fp_avg_pool2d(0, 0x10000, &s, &one, &p, &Dim2::new(1, 0), &one, f32t, k),
        Err(TpuError::PoolParam {
            param: "stride.w",
            value: 0,
            ..
        })
    ));
    assert!(matches!(
        c.tpu_bdc_fp_avg_pool2d(0, 0x10000, &s, &one, &p, &one, &Dim2::new(-1, 1), f32t, k),
        Err(TpuError::PoolParam {
            param: "dilation.h",
            ..
        })
    ));
    let neg = Padding {
        top: 0,
        bottom: 0,
        left: -1,
        right: 0,
    };
    assert!(matches!(
        c.tpu_bdc_fp_max_pool2d(0, 0x10000, &s, &one, &neg, &one, &one, f32t, k),
        Err(TpuError::PoolParam {
            param: "padding.left",
            value: -1,
            ..
        })
    ));
    assert!(matches!(
        c.tpu_bdc_fp_max_pool2d(0, 0x10000, &s, &Dim2::new(5, 1), &p, &one, &one, f32t, k),
        Err(TpuError::PoolParam {
            param: "kernel.h",
            value: 5,
            ..
        })
    ));
    assert!(matches!(
        c.tpu_bdc_fp_max_pool2d(0, 0x10000, &s, &one, &p, &one, &one, DataType::Int32, k),
        Err(TpuError::UnsupportedDtype {
            op: "tpu_bdc_fp_max_pool2d",
            ..
        })
    ));
    assert!(matches!(
        c.tpu_bdc_fp_avg_pool2d(0, 0x10004, &s, &one, &p, &one, &one, f32t, k),
        Err(TpuError::Misaligned {
            param: "input_addr",
            addr: 0x10004,
            ..
        })
    ));
}
