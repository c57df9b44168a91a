//! Issue #16, `tpu_bdc_cast` / `set_C` / `cpy` / `npu_bcast`: plain models written here (lane
//! `(s + c) % 64`, slot `(s + c) / 64`, aligned strides; a float -> int cast as f64 rounding and
//! clamping) against the simulator, and one test per C-model assert. Bit-exactness against
//! the C-model is in tests/golden.rs (golden/tpu/cast.json, golden/tpu/move.json).

use npusim_tpu::bdc_data::RoundingMode;
use npusim_tpu::{DataType, Dim4, Scalar, TpuChip, TpuCore, TpuError};
use proptest::prelude::*;

fn cases() -> u32 {
    std::env::var("NPUSIM_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64)
}

fn core() -> TpuCore {
    TpuCore::with_gm_size(TpuChip::Bm1684x, 1 << 20).unwrap()
}

/// Byte address of element (n, c, h, w) of an aligned tensor with `es`-byte elements.
fn plain_addr(addr: u32, s: Dim4, es: usize, n: usize, c: usize, h: usize, w: usize) -> usize {
    let start = (addr >> 18) as usize;
    let eu = 64 / es;
    let cs = (s.h as usize * s.w as usize).div_ceil(eu) * eu;
    let ns = cs * (start + s.c as usize).div_ceil(64);
    let lane = (start + c) % 64;
    let slot = (start + c) / 64;
    lane * npusim_tpu::TpuChip::Bm1684x.local().store_pitch() as usize
        + (addr as usize & 0x3ffff)
        + es * (n * ns + slot * cs + h * s.w as usize + w)
}

fn each(s: Dim4, mut f: impl FnMut(usize, usize, usize, usize)) {
    for n in 0..s.n as usize {
        for c in 0..s.c as usize {
            for h in 0..s.h as usize {
                for w in 0..s.w as usize {
                    f(n, c, h, w);
                }
            }
        }
    }
}

/// The plain model of an f32 -> i16 cast: round the value as f64 with the mode, clamp, NaN 0.
fn plain_f32_to_i16(bits: u32, mode: RoundingMode) -> u16 {
    let v = f64::from(f32::from_bits(bits));
    if v.is_nan() {
        return 0;
    }
    let r = match mode {
        RoundingMode::HalfToEven => v.round_ties_even(),
        RoundingMode::HalfAwayFromZero => v.round(),
        RoundingMode::TowardsZero => v.trunc(),
        RoundingMode::Down => v.floor(),
        _ => v.ceil(),
    };
    r.clamp(-32768.0, 32767.0) as i16 as u16
}

fn f32_any() -> impl Strategy<Value = u32> {
    prop_oneof![
        3 => (-70000i32..70000, 0u32..4).prop_map(|(k, q)| (k as f32 + q as f32 * 0.25).to_bits()),
        1 => (1u32..0x80_0000, any::<bool>()).prop_map(|(m, s)| m | (u32::from(s) << 31)),
        1 => prop::sample::select(vec![0u32, 0x8000_0000, 0x7f80_0000, 0xff80_0000, 0x7fc0_0000]),
        1 => any::<u32>(),
    ]
}

const MODES: [RoundingMode; 5] = [
    RoundingMode::HalfToEven,
    RoundingMode::HalfAwayFromZero,
    RoundingMode::TowardsZero,
    RoundingMode::Down,
    RoundingMode::Up,
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn cast_f32_to_i16_equals_plain_model(
        start in 0u32..64, n in 1i32..3, c in 1i32..80, h in 1i32..3, w in 1i32..9,
        m in 0usize..5, vals in prop::collection::vec(f32_any(), 64),
    ) {
        let s = Dim4::new(n, c, h, w);
        let mode = MODES[m];
        let mut core = core();
        let (src, dst) = (start << 18, (start << 18) + 0x10000);
        let mut k = 0;
        each(s, |n, c, h, w| {
            let a = plain_addr(src, s, 4, n, c, h, w);
            core.local_store_mut()[a..a + 4].copy_from_slice(&vals[k % 64].to_le_bytes());
            k += 1;
        });
        core.tpu_bdc_cast(dst, src, &s, None, None, DataType::Int16, DataType::Fp32, mode)
            .unwrap();
        let mut k = 0;
        each(s, |n, c, h, w| {
            let a = plain_addr(dst, s, 2, n, c, h, w);
            let got = u16::from_le_bytes([core.local_store()[a], core.local_store()[a + 1]]);
            assert_eq!(got, plain_f32_to_i16(vals[k % 64], mode), "{:#x} {mode:?}", vals[k % 64]);
            k += 1;
        });
    }

    #[test]
    fn npu_bcast_and_cpy_equal_plain_model(
        start in 0u32..64, n in 1i32..3, c in 1i32..65, h in 1i32..3, w in 1i32..9,
        src_lane in 0u32..64, seed in any::<u8>(),
    ) {
        let c = c.min(64 - start as i32).max(1);
        let s = Dim4::new(n, c, h, w);
        let one = Dim4::new(n, 1, h, w);
        let mut core = core();
        let src = (src_lane << 18) + 0x200;
        let dst = (start << 18) + 0x20000;
        for (i, b) in core.local_store_mut().iter_mut().enumerate() {
            *b = (i as u8).wrapping_mul(31).wrapping_add(seed);
        }
        let before = core.local_store().to_vec();
        core.tpu_bdc_npu_bcast(dst, src, &s, DataType::Int16).unwrap();
        each(s, |n, c, h, w| {
            let d = plain_addr(dst, s, 2, n, c, h, w);
            let a = plain_addr(src, one, 2, n, 0, h, w);
            assert_eq!(&core.local_store()[d..d + 2], &before[a..a + 2]);
        });
        // cpy from the broadcast back to a third place on the same start NPU.
        let third = (start << 18) + 0x30000;
        core.tpu_bdc_cpy(third, dst, &s, None, None, DataType::Int16).unwrap();
        each(s, |n, c, h, w| {
            let d = plain_addr(third, s, 2, n, c, h, w);
            let a = plain_addr(src, one, 2, n, 0, h, w);
            assert_eq!(&core.local_store()[d..d + 2], &before[a..a + 2]);
        });
    }
}

#[test]
fn set_c_writes_the_low_bits_of_the_scalar() {
    let mut core = core();
    let s = Dim4::new(1, 70, 1, 3);
    core.tpu_bdc_set_C(
        5 << 18,
        Scalar::from_bits(0xdead_beef),
        &s,
        None,
        DataType::Int8,
    )
    .unwrap();
    each(s, |n, c, h, w| {
        assert_eq!(
            core.local_store()[plain_addr(5 << 18, s, 1, n, c, h, w)],
            0xef
        );
    });
}

#[test]
fn restriction_cast_rounding_mode() {
    let mut c = core();
    let s = Dim4::new(1, 2, 1, 4);
    for mode in [RoundingMode::HalfUp, RoundingMode::HalfDown] {
        assert_eq!(
            c.tpu_bdc_cast(
                0x10000,
                0,
                &s,
                None,
                None,
                DataType::Fp16,
                DataType::Fp32,
                mode
            ),
            Err(TpuError::UnsupportedRoundingMode {
                op: "tpu_bdc_cast",
                mode: mode.vendor_name()
            })
        );
    }
}

#[test]
fn restriction_cast_dtype_pairs() {
    let mut c = core();
    let s = Dim4::new(1, 2, 1, 4);
    let m = RoundingMode::HalfToEven;
    for (d, src) in [
        (DataType::Bfp16, DataType::Fp16),
        (DataType::Fp16, DataType::Bfp16),
        (DataType::Fp32, DataType::Fp32),
        (DataType::Int4, DataType::Fp32),
    ] {
        assert!(
            matches!(
                c.tpu_bdc_cast(0x10000, 0, &s, None, None, d, src, m),
                Err(TpuError::UnsupportedDtype {
                    op: "tpu_bdc_cast",
                    ..
                })
            ),
            "{d:?} <- {src:?}"
        );
    }
}

#[test]
fn restriction_alignment() {
    let mut c = core();
    let s = Dim4::new(1, 2, 1, 4);
    assert_eq!(
        c.tpu_bdc_cpy(0x10004, 0, &s, None, None, DataType::Fp32),
        Err(TpuError::Misaligned {
            op: "tpu_bdc_cpy",
            param: "dst_addr",
            addr: 0x10004,
            align: 64
        })
    );
    assert!(matches!(
        c.tpu_bdc_cast(
            0x10000,
            0x20,
            &s,
            None,
            None,
            DataType::Fp16,
            DataType::Fp32,
            RoundingMode::Up
        ),
        Err(TpuError::Misaligned {
            param: "src_addr",
            ..
        })
    ));
    assert!(matches!(
        c.tpu_bdc_set_C(0x10010, Scalar::from_i32(1), &s, None, DataType::Int8),
        Err(TpuError::Misaligned {
            param: "dst_addr",
            ..
        })
    ));
}

#[test]
fn restriction_cpy_same_start_npu() {
    let mut c = core();
    let s = Dim4::new(1, 1, 1, 5);
    assert_eq!(
        c.tpu_bdc_cpy(0x10000, (57 << 18) + 0x200, &s, None, None, DataType::Fp16),
        Err(TpuError::StartNpuMismatch {
            op: "tpu_bdc_cpy",
            param: "src_addr",
            start: 57,
            dst_start: 0
        })
    );
}

#[test]
fn restriction_npu_bcast_channels_fit() {
    let mut c = core();
    assert_eq!(
        c.tpu_bdc_npu_bcast(0x10000, 0x200, &Dim4::new(1, 65, 1, 4), DataType::Fp32),
        Err(TpuError::ChannelsPastLanes {
            op: "tpu_bdc_npu_bcast",
            start: 0,
            c: 65,
            npu_num: 64
        })
    );
    assert!(matches!(
        c.tpu_bdc_npu_bcast(5 << 18, 0, &Dim4::new(1, 60, 1, 4), DataType::Fp32),
        Err(TpuError::ChannelsPastLanes { start: 5, .. })
    ));
}

#[test]
fn restriction_dims() {
    let mut c = core();
    for bad in [Dim4::new(0, 1, 1, 1), Dim4::new(1, 1, 65536, 1)] {
        assert!(matches!(
            c.tpu_bdc_set_C(0, Scalar::from_i32(0), &bad, None, DataType::Int8),
            Err(TpuError::DimOutOfRange { .. })
        ));
    }
}
