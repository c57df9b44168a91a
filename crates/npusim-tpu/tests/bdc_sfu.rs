//! Issue #16, `tpu_bdc_fp32_exp`, `_log`, the division, `tpu_bdc_fp32_rsqrt` and `_sqrt`: one
//! test per restriction the C-model
//! asserts on, and a plain f64 check that the C-model's algorithms stay close to the true
//! results (bit-exactness against the C-model is in tests/golden.rs: golden/tpu/sfu.json,
//! golden/tpu/sfu_log.json, golden/tpu/bdc_div.json).

use npusim_tpu::{DataType, Dim4, Scalar, TpuChip, TpuCore, TpuError};

fn core() -> TpuCore {
    TpuCore::with_gm_size(TpuChip::Bm1684x, 1 << 20).unwrap()
}

const LM: u32 = 1 << 18;

fn exp(c: &mut TpuCore, a: [u32; 6], s: Dim4) -> Result<(), TpuError> {
    c.tpu_bdc_fp32_exp(a[0], a[1], a[2], a[3], a[4], a[5], &s)
}

const OK: [u32; 6] = [0x10000, 0x1000, 0x20000, 0x30000, 0x0, 0x40];

#[test]
fn exp_accepts_operands_the_cmodel_accepts() {
    let mut c = core();
    let s = Dim4::new(1, 4, 1, 4);
    c.tpu_bdc_load_fp32_exp_coeff(0).unwrap();
    c.tpu_bdc_load_fp32_exp_table(0x40).unwrap();
    exp(&mut c, OK, s).unwrap();
    // src and work0 may start on other NPUs; work1 only with dst; table_addr is not read.
    exp(
        &mut c,
        [0x10000, LM + 0x1000, 3 * LM + 0x20000, 0x30000, 0, 3],
        s,
    )
    .unwrap();
    exp(
        &mut c,
        [LM + 0x10000, 0x1000, 0x20000, LM + 0x30000, 0, 0],
        s,
    )
    .unwrap();
}

#[test]
fn exp_misaligned_operands_are_refused() {
    let s = Dim4::new(1, 4, 1, 4);
    for (i, param) in ["dst_addr", "src_addr", "work0_addr", "work1_addr"]
        .into_iter()
        .enumerate()
    {
        let mut a = OK;
        a[i] += 4;
        let e = exp(&mut core(), a, s).unwrap_err();
        assert!(
            matches!(e, TpuError::Misaligned { op: "tpu_bdc_fp32_exp", param: p, align: 64, .. } if p == param),
            "{e}"
        );
    }
}

#[test]
fn exp_work1_on_another_npu_than_dst_is_refused() {
    let mut a = OK;
    a[3] += LM;
    let e = exp(&mut core(), a, Dim4::new(1, 4, 1, 4)).unwrap_err();
    assert!(
        matches!(
            e,
            TpuError::StartNpuMismatch {
                param: "work1_addr",
                start: 1,
                dst_start: 0,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn exp_coeff_off_npu0_or_grid_is_refused() {
    let s = Dim4::new(1, 4, 1, 4);
    let mut a = OK;
    a[4] = 0x20;
    let e = exp(&mut core(), a, s).unwrap_err();
    assert!(
        matches!(
            e,
            TpuError::Misaligned {
                param: "coeff_addr",
                addr: 0x20,
                ..
            }
        ),
        "{e}"
    );
    a[4] = LM;
    let e = exp(&mut core(), a, s).unwrap_err();
    assert!(
        matches!(
            e,
            TpuError::NpuRequired {
                param: "coeff_addr",
                npu: 1,
                ..
            }
        ),
        "{e}"
    );
    let e = core().tpu_bdc_load_fp32_exp_coeff(0x20).unwrap_err();
    assert!(
        matches!(
            e,
            TpuError::Misaligned {
                op: "tpu_bdc_load_fp32_exp_coeff",
                ..
            }
        ),
        "{e}"
    );
    let e = core().tpu_bdc_load_fp32_exp_coeff(5 * LM).unwrap_err();
    assert!(matches!(e, TpuError::NpuRequired { npu: 5, .. }), "{e}");
}

#[test]
fn exp_dims_outside_range_are_refused_and_nothing_is_written() {
    let mut c = core();
    let before = c.read_local(0x10000, 64).unwrap();
    for s in [
        Dim4::new(1, 4, 1, 0),
        Dim4::new(1, 4, 1, 65536),
        Dim4::new(0, 4, 1, 1),
    ] {
        let e = exp(&mut c, OK, s).unwrap_err();
        assert!(matches!(e, TpuError::DimOutOfRange { .. }), "{e}");
    }
    assert_eq!(c.read_local(0x10000, 64).unwrap(), before);
}

/// The C-model's exponential is close to the true `e^x` over the normal range (a plain f64
/// model): relative error within 1e-6 plus the rounding of `r = x - n * ln2`, which grows with
/// `|x|` (about `|x| * 2^-24`).
#[test]
fn exp_is_close_to_the_true_exponential() {
    let mut c = core();
    c.tpu_bdc_load_fp32_exp_coeff(0).unwrap();
    let xs: Vec<f32> = (0..1024)
        .map(|i| -87.0 + i as f32 * (175.0 / 1024.0))
        .collect();
    let bytes: Vec<u8> = xs.iter().flat_map(|x| x.to_le_bytes()).collect();
    c.write_local(0x1000, &bytes).unwrap();
    exp(&mut c, OK, Dim4::new(1, 1, 1, 1024)).unwrap();
    let out = c.read_local(0x10000, 4096).unwrap();
    for (i, ch) in out.chunks_exact(4).enumerate() {
        let got = f32::from_le_bytes([ch[0], ch[1], ch[2], ch[3]]) as f64;
        let want = (xs[i] as f64).exp();
        assert!(
            ((got - want) / want).abs() < 1e-6 + (xs[i] as f64).abs() * 2f64.powi(-23),
            "x = {}: {got} vs {want}",
            xs[i]
        );
    }
}

/// fp_div is within a few ulp of the true quotient (a plain f64 model) and not always the
/// correctly rounded one (the C-model's reciprocal).
#[test]
fn div_is_close_to_the_true_quotient() {
    let mut c = core();
    let n = 2048usize;
    let a: Vec<f32> = (0..n).map(|i| 1.0 + i as f32 / n as f32).collect();
    let b: Vec<f32> = (0..n).map(|i| 2.0 - i as f32 / (2 * n) as f32).collect();
    let enc = |v: &[f32]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    c.write_local(0x0, &enc(&a)).unwrap();
    c.write_local(0x4000, &enc(&b)).unwrap();
    let s = Dim4::new(1, 1, 1, n as i32);
    c.tpu_bdc_fp_div(0x8000, 0x0, 0x4000, &s, None, None, None, DataType::Fp32)
        .unwrap();
    let out = c.read_local(0x8000, 4 * n).unwrap();
    let mut inexact = 0;
    for (i, ch) in out.chunks_exact(4).enumerate() {
        let got = f32::from_le_bytes([ch[0], ch[1], ch[2], ch[3]]);
        let want = a[i] as f64 / b[i] as f64;
        assert!(
            ((got as f64 - want) / want).abs() < 1e-6,
            "{} / {}",
            a[i],
            b[i]
        );
        inexact += usize::from(got != (a[i] / b[i]));
    }
    assert!(
        inexact > 0,
        "expected some results off the correctly rounded quotient"
    );
    // The scalar form goes through the same reciprocal.
    c.tpu_bdc_fp_C_div(
        0xc000,
        0x4000,
        Scalar::from_bits(1.0f32.to_bits()),
        &s,
        None,
        None,
        DataType::Fp32,
    )
    .unwrap();
}

#[test]
fn min_pool_is_not_supported_on_bm1684x() {
    use npusim_tpu::bdc_pool::{Dim2, Padding};
    let one = Dim2::new(1, 1);
    let e = core()
        .tpu_bdc_fp_min_pool2d(
            0,
            0x1000,
            &Dim4::new(1, 1, 4, 4),
            &Dim2::new(2, 2),
            &Padding::default(),
            &one,
            &one,
            DataType::Fp32,
            Scalar::from_f32(f32::INFINITY),
        )
        .unwrap_err();
    assert!(
        matches!(
            e,
            TpuError::NotSupported {
                op: "tpu_bdc_fp_min_pool2d",
                chip: "BM1684X",
                ..
            }
        ),
        "{e}"
    );
}

/// `tpu_bdc_fp32_rsqrt` / `_sqrt`: each call the C-model rejects is a typed error naming the
/// function and the parameter; the calls it accepts run.
#[test]
fn rsqrt_and_sqrt_restrictions() {
    let mut c = core();
    let s = Dim4::new(1, 4, 1, 4);
    c.tpu_bdc_fp32_rsqrt(0x10000, 0x1000, &s).unwrap();
    c.tpu_bdc_fp32_sqrt(0x10000, 0x1000, &s).unwrap();
    // rsqrt reads src at any element address (the C-model accepts it), sqrt does not.
    c.tpu_bdc_fp32_rsqrt(0x10000, 0x1004, &s).unwrap();
    let e = c.tpu_bdc_fp32_sqrt(0x10000, 0x1004, &s).unwrap_err();
    assert!(
        matches!(
            e,
            TpuError::Misaligned {
                op: "tpu_bdc_fp32_sqrt",
                param: "src_addr",
                ..
            }
        ),
        "{e}"
    );
    for op in ["tpu_bdc_fp32_rsqrt", "tpu_bdc_fp32_sqrt"] {
        let run = |c: &mut TpuCore, d: u32, src: u32, s: Dim4| {
            if op == "tpu_bdc_fp32_rsqrt" {
                c.tpu_bdc_fp32_rsqrt(d, src, &s)
            } else {
                c.tpu_bdc_fp32_sqrt(d, src, &s)
            }
        };
        let e = run(&mut c, 0x10004, 0x1000, s).unwrap_err();
        assert!(
            matches!(e, TpuError::Misaligned { op: o, param: "dst_addr", align: 64, .. } if o == op),
            "{e}"
        );
        let e = run(&mut c, 3 * LM + 0x10000, 0x1000, Dim4::new(1, 5, 1, 9)).unwrap_err();
        assert!(
            matches!(e, TpuError::StartNpuMismatch { op: o, param: "src_addr", start: 0, dst_start: 3 } if o == op),
            "{e}"
        );
        let e = run(&mut c, 0x10000, 0x1000, Dim4::new(1, 4, 1, 0)).unwrap_err();
        assert!(e.to_string().contains(op), "{e}");
    }
    let e = c
        .tpu_bdc_fp32_sqrt(5 * LM + 0x1000, 5 * LM + 0x1000, &s)
        .unwrap_err();
    assert!(
        matches!(
            e,
            TpuError::SameAddress {
                op: "tpu_bdc_fp32_sqrt",
                param: "dst_addr",
                ..
            }
        ),
        "{e}"
    );
}

/// The C-model's reciprocal square root and square root stay within 4 ulp of the true f64
/// results on positive normal inputs from 2^-125 up (below it `0.5 * x` is flushed and the
/// Newton steps do not refine; a plain scalar check, independent of the algorithm).
#[test]
fn rsqrt_and_sqrt_are_close_to_f64() {
    let mut c = core();
    let w = 64usize;
    let s = Dim4::new(1, 1, 1, w as i32);
    let mut bits = 0x1234_5678u32;
    for _ in 0..40 {
        let xs: Vec<f32> = (0..w)
            .map(|_| {
                bits = bits.wrapping_mul(747_796_405).wrapping_add(2_891_336_453);
                f32::from_bits(0x0100_0000 + bits % (0x7f00_0000 - 0x0100_0000))
            })
            .collect();
        let bytes: Vec<u8> = xs.iter().flat_map(|x| x.to_le_bytes()).collect();
        c.local_store_mut()[0x1000..0x1000 + 4 * w].copy_from_slice(&bytes);
        c.tpu_bdc_fp32_rsqrt(0x10000, 0x1000, &s).unwrap();
        c.tpu_bdc_fp32_sqrt(0x20000, 0x1000, &s).unwrap();
        let r = c.local_store()[0x10000..0x10000 + 4 * w].to_vec();
        let q = c.local_store()[0x20000..0x20000 + 4 * w].to_vec();
        for (i, &x) in xs.iter().enumerate() {
            let get =
                |v: &[u8]| f32::from_le_bytes([v[4 * i], v[4 * i + 1], v[4 * i + 2], v[4 * i + 3]]);
            for (got, want) in [
                (get(&r), 1.0 / (x as f64).sqrt()),
                (get(&q), (x as f64).sqrt()),
            ] {
                let ulp = (want as f32).to_bits().abs_diff(got.to_bits());
                assert!(ulp <= 4, "x = {x:e}: got {got:e}, want {want:e}");
            }
        }
    }
}

fn log(c: &mut TpuCore, a: [u32; 4], s: Dim4) -> Result<(), TpuError> {
    c.tpu_bdc_fp32_log(a[0], a[1], a[2], a[3], &s)
}

const LOG_OK: [u32; 4] = [0x10000, 0x1000, 0x20000, 0x0];

#[test]
fn log_accepts_operands_the_cmodel_accepts() {
    let mut c = core();
    let s = Dim4::new(1, 5, 1, 9);
    c.tpu_bdc_load_fp32_log_coeff(0).unwrap();
    log(&mut c, LOG_OK, s).unwrap();
    // src may start on another NPU; work only with dst; in place; work == src.
    log(&mut c, [3 * LM + 0x10000, 0x1000, 3 * LM + 0x20000, 0], s).unwrap();
    log(&mut c, [0x1000, 0x1000, 0x20000, 0], s).unwrap();
    log(&mut c, [0x10000, 0x1000, 0x1000, 0], s).unwrap();
}

#[test]
fn log_misaligned_operands_are_refused() {
    let s = Dim4::new(1, 4, 1, 4);
    for (i, param) in ["dst_addr", "src_addr", "work_addr"]
        .into_iter()
        .enumerate()
    {
        for delta in [4, 32] {
            let mut a = LOG_OK;
            a[i] += delta;
            let e = log(&mut core(), a, s).unwrap_err();
            assert!(
                matches!(e, TpuError::Misaligned { op: "tpu_bdc_fp32_log", param: p, align: 64, .. } if p == param),
                "{e}"
            );
        }
    }
}

#[test]
fn log_work_on_another_npu_or_equal_to_dst_is_refused() {
    let s = Dim4::new(1, 5, 1, 9);
    let e = log(
        &mut core(),
        [3 * LM + 0x10000, 3 * LM + 0x1000, 0x20000, 0],
        s,
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            TpuError::StartNpuMismatch {
                op: "tpu_bdc_fp32_log",
                param: "work_addr",
                start: 0,
                dst_start: 3,
            }
        ),
        "{e}"
    );
    let e = log(&mut core(), [0x10000, 0x1000, 0x10000, 0], s).unwrap_err();
    assert!(
        matches!(
            e,
            TpuError::SameAddress {
                op: "tpu_bdc_fp32_log",
                param: "work_addr",
                other: "dst_addr",
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn log_coeff_off_npu0_or_grid_is_refused() {
    let s = Dim4::new(1, 4, 1, 4);
    for (coeff, npu) in [(0x20, None), (0x4, None), (LM, Some(1))] {
        let mut a = LOG_OK;
        a[3] = coeff;
        for e in [
            log(&mut core(), a, s).unwrap_err(),
            core().tpu_bdc_load_fp32_log_coeff(coeff).unwrap_err(),
        ] {
            let ok = match npu {
                None => {
                    matches!(e, TpuError::Misaligned { param: "coeff_addr", addr, .. } if addr == coeff)
                }
                Some(n) => {
                    matches!(e, TpuError::NpuRequired { param: "coeff_addr", npu, .. } if npu == n)
                }
            };
            assert!(ok, "{e}");
        }
    }
    // The 16 coefficients (64 bytes) fit at the last 64-byte slot of NPU 0.
    core().tpu_bdc_load_fp32_log_coeff(LM - 64).unwrap();
}

#[test]
fn log_dims_outside_range_are_refused_and_nothing_is_written() {
    let mut c = core();
    let before = c.read_local(0x10000, 64).unwrap();
    for s in [
        Dim4::new(1, 4, 1, 0),
        Dim4::new(1, 4, 1, 65536),
        Dim4::new(0, 4, 1, 1),
    ] {
        let e = log(&mut c, LOG_OK, s).unwrap_err();
        assert!(matches!(e, TpuError::DimOutOfRange { .. }), "{e}");
    }
    assert_eq!(c.read_local(0x10000, 64).unwrap(), before);
}

/// The C-model's logarithm stays close to the true `ln x` for positive normal `x` below
/// `2^126 * 4/3` (a plain f64 model; from there on its rounded exponent reaches 254 and the
/// result is wrong, see the module docs of `bdc_sfu`): the Taylor series on `t` in
/// `[-1/3, 1/3)` truncated after 15 terms is off by at most `(1/3)^16 / 16 * 3/2`, about
/// 2.2e-9; with f32 rounding, within 4e-7 absolute plus 4 ulp of the result.
#[test]
fn log_is_close_to_f64() {
    let mut c = core();
    c.tpu_bdc_load_fp32_log_coeff(0).unwrap();
    let w = 64usize;
    let s = Dim4::new(1, 1, 1, w as i32);
    let mut bits = 12_345u32;
    for _ in 0..40 {
        let xs: Vec<f32> = (0..w)
            .map(|_| {
                bits = bits.wrapping_mul(747_796_405).wrapping_add(2_891_336_453);
                f32::from_bits(0x0080_0000 + bits % (0x7eaa_aaab - 0x0080_0000))
            })
            .collect();
        let bytes: Vec<u8> = xs.iter().flat_map(|x| x.to_le_bytes()).collect();
        c.local_store_mut()[0x1000..0x1000 + 4 * w].copy_from_slice(&bytes);
        log(&mut c, LOG_OK, s).unwrap();
        let out = c.local_store()[0x10000..0x10000 + 4 * w].to_vec();
        for (&x, o) in xs.iter().zip(out.chunks_exact(4)) {
            let got = f32::from_le_bytes([o[0], o[1], o[2], o[3]]) as f64;
            let want = (x as f64).ln();
            let r = (want.abs() as f32).max(f32::MIN_POSITIVE);
            let ulp = (f32::from_bits(r.to_bits() + 1) - r) as f64;
            assert!(
                (got - want).abs() <= 4e-7 + 4.0 * ulp,
                "ln({x:e}) = {got}, want {want}"
            );
        }
    }
}
