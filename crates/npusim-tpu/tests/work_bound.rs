//! The per-call work bound and the C-model's zero-destination-stride rule (issue #16, item
//! "a huge call must not hang"): a 65535 x 65535 `tpu_bdc_set_C` is refused at once, every
//! GDMA/BDC family counts its work, the bound is exact (a call at the bound runs, one element
//! more is refused), and a refused call writes nothing.

use std::time::{Duration, Instant};

use npusim_tpu::bdc_data::RoundingMode;
use npusim_tpu::bdc_pool::{Dim2, Padding};
use npusim_tpu::{DataType, Dim4, Scalar, TpuChip, TpuCore, TpuError};

/// Generous: a refused call does no element work, so it takes microseconds; the point is
/// that it does not take the hours 4.3e9 element writes would.
const QUICK: Duration = Duration::from_secs(2);

fn core() -> TpuCore {
    TpuCore::new(TpuChip::Bm1684x)
}

#[test]
fn profile_bound_is_documented_value() {
    for chip in [TpuChip::Bm1684x, TpuChip::Bm1688] {
        assert_eq!(chip.local().max_call_elems, 1 << 28);
        assert_eq!(TpuCore::new(chip).work_bound(), 1 << 28);
    }
    // 16 times the BM1684X local memory in bytes, as the profile documents.
    assert_eq!(
        TpuChip::Bm1684x.local().max_call_elems,
        16 * TpuChip::Bm1684x.local().local_space()
    );
}

#[test]
fn huge_set_c_zero_stride_refused_quickly() {
    let mut c = core();
    let t = Instant::now();
    let r = c.tpu_bdc_set_C(
        0,
        Scalar::from_f32(1.0),
        &Dim4::new(65535, 65535, 1, 1),
        Some(&Dim4::new(0, 0, 0, 0)),
        DataType::Fp32,
    );
    assert!(t.elapsed() < QUICK, "took {:?}", t.elapsed());
    // The C-model asserts `dst_shape[0] == 1` for this call (probed: tpu-mlir 1.30.2).
    assert_eq!(
        r,
        Err(TpuError::DstStrideZero {
            op: "tpu_bdc_set_C",
            field: "n",
            dim: 65535
        })
    );
    assert!(c.local_store().iter().all(|&b| b == 0));
}

#[test]
fn huge_overlapping_strides_hit_work_bound() {
    // Accepted by the C-model (footprint 131070 bytes on one lane), 4.3e9 writes.
    let mut c = core();
    let t = Instant::now();
    let r = c.tpu_bdc_set_C(
        0,
        Scalar::from_bits8(7),
        &Dim4::new(1, 1, 65535, 65535),
        Some(&Dim4::new(0, 0, 1, 1)),
        DataType::Int8,
    );
    assert!(t.elapsed() < QUICK, "took {:?}", t.elapsed());
    assert_eq!(
        r,
        Err(TpuError::WorkBound {
            op: "tpu_bdc_set_C",
            param: "shape",
            value: 65535 * 65535,
            limit: 1 << 28
        })
    );
    let msg = r.unwrap_err().to_string();
    assert!(
        msg.contains("tpu_bdc_set_C") && msg.contains("4294836225"),
        "{msg}"
    );
    assert!(c.local_store().iter().all(|&b| b == 0));
}

#[test]
fn bound_is_exact() {
    let mut c = core();
    c.set_work_bound(1000);
    let dst = Some(Dim4::new(0, 0, 1, 1));
    // 1000 elements on overlapping strides: runs; the last write of each byte wins.
    c.tpu_bdc_set_C(
        0,
        Scalar::from_bits8(9),
        &Dim4::new(1, 1, 10, 100),
        dst.as_ref(),
        DataType::Int8,
    )
    .unwrap();
    let got = c.read_local(0, 110).unwrap();
    assert!(got[..109].iter().all(|&b| b == 9) && got[109] == 0);
    let r = c.tpu_bdc_set_C(
        0,
        Scalar::from_bits8(9),
        &Dim4::new(1, 1, 7, 143),
        dst.as_ref(),
        DataType::Int8,
    );
    assert_eq!(
        r,
        Err(TpuError::WorkBound {
            op: "tpu_bdc_set_C",
            param: "shape",
            value: 1001,
            limit: 1000
        })
    );
}

#[test]
fn every_family_counts_work() {
    let mut c = core();
    c.set_work_bound(63);
    let s = Dim4::new(1, 64, 1, 1); // 64 elements, one more than the bound
    let f32t = DataType::Fp32;
    let i32t = DataType::Int32;
    let results: Vec<(&str, Result<(), TpuError>)> = vec![
        (
            "tpu_bdc_fp_add",
            c.tpu_bdc_fp_add(0, 0x100, 0x200, &s, None, None, None, f32t),
        ),
        (
            "tpu_bdc_int_add",
            c.tpu_bdc_int_add(
                0,
                0x100,
                0x200,
                &s,
                None,
                None,
                None,
                i32t,
                i32t,
                i32t,
                0,
                RoundingMode::HalfToEven,
                false,
            ),
        ),
        (
            "tpu_bdc_cast",
            c.tpu_bdc_cast(
                0,
                0x100,
                &s,
                None,
                None,
                f32t,
                i32t,
                RoundingMode::HalfToEven,
            ),
        ),
        ("tpu_bdc_cpy", c.tpu_bdc_cpy(0, 0x100, &s, None, None, f32t)),
        (
            "tpu_bdc_and",
            c.tpu_bdc_and(0, 0x100, 0x200, &s, None, None, None, i32t),
        ),
        ("tpu_bdc_fp32_rsqrt", c.tpu_bdc_fp32_rsqrt(0, 0x100, &s)),
        (
            "tpu_gdma_cpy_S2L",
            c.tpu_gdma_cpy_S2L(0, c.gm_base(), &s, None, None, f32t),
        ),
        (
            "tpu_gdma_cpy_L2L",
            c.tpu_gdma_cpy_L2L(0, 0x100, &s, None, None, f32t),
        ),
    ];
    for (op, r) in results {
        assert_eq!(
            r,
            Err(TpuError::WorkBound {
                op,
                param: "shape",
                value: 64,
                limit: 63
            }),
            "{op}"
        );
    }
    c.set_work_bound(64);
    c.tpu_bdc_fp_add(0, 0x100, 0x200, &s, None, None, None, f32t)
        .unwrap();
    c.tpu_gdma_cpy_S2L(0, c.gm_base(), &s, None, None, f32t)
        .unwrap();
}

#[test]
fn pool_counts_kernel_taps() {
    let mut c = core();
    // Input (1, 1, 8, 8), kernel 3x3, stride 1: 6x6 outputs x 9 taps = 324 operations.
    let shape = Dim4::new(1, 1, 8, 8);
    let k = Dim2::new(3, 3);
    let one = Dim2::new(1, 1);
    let pad = Padding::default();
    c.set_work_bound(323);
    let r = c.tpu_bdc_fp_max_pool2d(
        0x1000,
        0,
        &shape,
        &k,
        &pad,
        &one,
        &one,
        DataType::Fp32,
        Scalar::from_f32(0.0),
    );
    assert_eq!(
        r,
        Err(TpuError::WorkBound {
            op: "tpu_bdc_fp_max_pool2d",
            param: "shape x kernel",
            value: 324,
            limit: 323
        })
    );
    c.set_work_bound(324);
    c.tpu_bdc_fp_max_pool2d(
        0x1000,
        0,
        &shape,
        &k,
        &pad,
        &one,
        &one,
        DataType::Fp32,
        Scalar::from_f32(0.0),
    )
    .unwrap();
}

#[test]
fn huge_pool_refused_quickly() {
    // 64 channels of 128x128 f32 (64 KiB per lane), kernel 64x64, stride 1: 65x65 outputs
    // x 4096 taps x 64 channels = 1.1e9 operations > 2^28.
    let mut c = core();
    let t = Instant::now();
    let r = c.tpu_bdc_fp_max_pool2d(
        0x20000,
        0,
        &Dim4::new(1, 64, 128, 128),
        &Dim2::new(64, 64),
        &Padding::default(),
        &Dim2::new(1, 1),
        &Dim2::new(1, 1),
        DataType::Fp32,
        Scalar::from_f32(0.0),
    );
    assert!(t.elapsed() < QUICK, "took {:?}", t.elapsed());
    assert!(
        matches!(
            r,
            Err(TpuError::WorkBound {
                value: 1_107_558_400,
                ..
            })
        ),
        "{r:?}"
    );
}

#[test]
fn gdma_zero_dst_stride_is_legal_but_bounded() {
    // The C-model accepts a zero n/c/h destination stride on GDMA (probed: S2L, L2S, S2S,
    // L2L with dst_stride (64, 16, 0, 1) and h = 2), so only the work bound stops a huge one.
    let mut c = core();
    let src = c.gm_base();
    c.write_bytes(src, &[1, 2, 3, 4, 5, 6, 7, 8]).unwrap();
    c.tpu_gdma_cpy_S2L(
        0,
        src,
        &Dim4::new(1, 1, 2, 4),
        Some(&Dim4::new(64, 16, 0, 1)),
        None,
        DataType::Int8,
    )
    .unwrap();
    // Row 1 overwrote row 0.
    assert_eq!(c.read_local(0, 4).unwrap(), [5, 6, 7, 8]);
    let r = c.tpu_gdma_cpy_S2L(
        0,
        src,
        &Dim4::new(65535, 1, 65535, 1),
        Some(&Dim4::new(0, 16, 0, 1)),
        Some(&Dim4::new(0, 0, 0, 1)),
        DataType::Int8,
    );
    assert!(matches!(r, Err(TpuError::WorkBound { .. })), "{r:?}");
}

#[test]
fn zero_dst_stride_rule_per_family() {
    let mut c = core();
    let s = Dim4::new(1, 1, 2, 16);
    let z = Dim4::new(32, 32, 0, 1);
    let f32t = DataType::Fp32;
    let i32t = DataType::Int32;
    let rm = RoundingMode::HalfToEven;
    let results: Vec<(&str, Result<(), TpuError>)> = vec![
        (
            "tpu_bdc_fp_add",
            c.tpu_bdc_fp_add(0, 0x100, 0x200, &s, Some(&z), None, None, f32t),
        ),
        (
            "tpu_bdc_fp_add_C",
            c.tpu_bdc_fp_add_C(0, 0x100, Scalar::from_f32(1.0), &s, Some(&z), None, f32t),
        ),
        (
            "tpu_bdc_int_add",
            c.tpu_bdc_int_add(
                0,
                0x100,
                0x200,
                &s,
                Some(&z),
                None,
                None,
                i32t,
                i32t,
                i32t,
                0,
                rm,
                false,
            ),
        ),
        (
            "tpu_bdc_cast",
            c.tpu_bdc_cast(0, 0x100, &s, Some(&z), None, f32t, i32t, rm),
        ),
        (
            "tpu_bdc_cpy",
            c.tpu_bdc_cpy(0, 0x100, &s, Some(&z), None, f32t),
        ),
        (
            "tpu_bdc_set_C",
            c.tpu_bdc_set_C(0, Scalar::from_f32(1.0), &s, Some(&z), f32t),
        ),
        (
            "tpu_bdc_and",
            c.tpu_bdc_and(0, 0x100, 0x200, &s, Some(&z), None, None, i32t),
        ),
        (
            "tpu_bdc_greater",
            c.tpu_bdc_greater(
                0,
                0x100,
                0x200,
                Scalar::from_f32(1.0),
                &s,
                Some(&z),
                None,
                None,
                f32t,
                f32t,
            ),
        ),
    ];
    for (op, r) in results {
        assert_eq!(
            r,
            Err(TpuError::DstStrideZero {
                op,
                field: "h",
                dim: 2
            }),
            "{op}"
        );
    }
    // A zero stride on a dimension of size 1 is fine (the C-model accepts it).
    c.tpu_bdc_set_C(
        0,
        Scalar::from_f32(1.0),
        &Dim4::new(1, 1, 1, 16),
        Some(&Dim4::new(0, 0, 0, 1)),
        f32t,
    )
    .unwrap();
    // Source zero strides broadcast and stay legal.
    c.tpu_bdc_fp_add(
        0x1000,
        0x100,
        0x200,
        &s,
        None,
        Some(&Dim4::new(0, 0, 0, 1)),
        None,
        f32t,
    )
    .unwrap();
}
