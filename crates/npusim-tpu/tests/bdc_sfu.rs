//! Issue #16, `tpu_bdc_fp32_exp` and the division: one test per restriction the C-model
//! asserts on, and a plain f64 check that the C-model's algorithms stay close to the true
//! results (bit-exactness against the C-model is in tests/golden.rs: golden/tpu/sfu.json,
//! golden/tpu/bdc_div.json).

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
