//! Issue #16, BDC elementwise instructions: a plain per-element model written here (lane
//! `(s + c) % 64`, slot `(s + c) / 64`, aligned strides, flush-to-zero of f32 denormals) against
//! the simulator, and one test per restriction. Bit-exactness against the C-model is in
//! tests/golden.rs (golden/tpu/bdc.json).

use npusim_tpu::{DataType, Dim4, HostSimd, Scalar, TpuChip, TpuCore, TpuError};
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

/// Local address (`local_addr_t`) of element (n, c, h, w) of an aligned f32 tensor.
fn plain_addr(addr: u32, s: Dim4, n: usize, c: usize, h: usize, w: usize) -> usize {
    let start = (addr >> 18) as usize;
    let cs = (s.h as usize * s.w as usize).div_ceil(16) * 16;
    let ns = cs * (start + s.c as usize).div_ceil(64);
    let lane = (start + c) % 64;
    let slot = (start + c) / 64;
    lane * (1 << 18) + (addr as usize & 0x3ffff) + 4 * (n * ns + slot * cs + h * s.w as usize + w)
}

type Op = fn(&mut TpuCore, u32, u32, u32, &Dim4) -> Result<(), TpuError>;
type Model = fn(f32, f32) -> f32;

fn daz(x: f32) -> f32 {
    if x.is_subnormal() {
        0.0f32.copysign(x)
    } else {
        x
    }
}

fn f32_any() -> impl Strategy<Value = u32> {
    prop_oneof![
        3 => (0x3c00_0000u32..0x4300_0000, any::<bool>()).prop_map(|(m, s)| m | (u32::from(s) << 31)),
        1 => (1u32..0x80_0000, any::<bool>()).prop_map(|(m, s)| m | (u32::from(s) << 31)),
        1 => prop::sample::select(vec![0u32, 0x8000_0000, 0x7f80_0000, 0xff80_0000, 0x7fc0_0000, 0x0080_0000]),
        1 => any::<u32>(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn f32_add_mul_max_equal_plain_model(
        start in 0u32..64, n in 1i32..3, c in 1i32..80, h in 1i32..3, w in 1i32..9,
        seed in any::<u64>(), k in f32_any(), vals in prop::collection::vec(f32_any(), 64),
    ) {
        let shape = Dim4::new(n, c, h, w);
        let mut core = core();
        let (a, b, d) = (start << 18, (start << 18) + 0x10000, (start << 18) + 0x20000);
        // Fill both inputs element by element at the plain model's addresses.
        let mut idx = 0usize;
        let mut next = || { idx += 1; vals[(idx + seed as usize) % vals.len()] ^ if idx.is_multiple_of(7) { 0x8000_0000 } else { 0 } };
        let mut inputs = Vec::new();
        for ni in 0..n as usize { for ci in 0..c as usize { for hi in 0..h as usize { for wi in 0..w as usize {
            let (x, y) = (next(), next());
            core.write_local(plain_addr(a, shape, ni, ci, hi, wi) as u32, &x.to_le_bytes()).unwrap();
            core.write_local(plain_addr(b, shape, ni, ci, hi, wi) as u32, &y.to_le_bytes()).unwrap();
            inputs.push((ni, ci, hi, wi, x, y));
        }}}}
        let ops: [(Op, Model); 4] = [
            (|t, d, a, b, s| t.tpu_bdc_fp_add(d, a, b, s, None, None, None, DataType::Fp32), |x, y| x + y),
            (|t, d, a, b, s| t.tpu_bdc_fp_mul(d, a, b, s, None, None, None, DataType::Fp32), |x, y| x * y),
            (|t, d, a, b, s| t.tpu_bdc_max(d, a, b, s, None, None, None, DataType::Fp32), |x, y| if x > y { x } else { y }),
            (|t, d, a, b, s| t.tpu_bdc_min(d, a, b, s, None, None, None, DataType::Fp32), |x, y| if x >= y { y } else { x }),
        ];
        for (i, (run, model)) in ops.iter().enumerate() {
            run(&mut core, d, a, b, &shape).unwrap();
            for &(ni, ci, hi, wi, x, y) in &inputs {
                let got = core.read_local(plain_addr(d, shape, ni, ci, hi, wi) as u32, 4).unwrap();
                let got = u32::from_le_bytes([got[0], got[1], got[2], got[3]]);
                let (fx, fy) = (daz(f32::from_bits(x)), daz(f32::from_bits(y)));
                let r = daz(model(fx, fy));
                if i >= 2 {
                    // Selects move the chosen operand's bits (flushed if denormal).
                    let pick_y = if i == 2 { fx.partial_cmp(&fy) != Some(std::cmp::Ordering::Greater) } else { fx >= fy };
                    let bits = if pick_y { y } else { x };
                    let want = if f32::from_bits(bits).is_subnormal() { bits & 0x8000_0000 } else { bits };
                    prop_assert_eq!(got, want, "op {} x {:#x} y {:#x}", i, x, y);
                } else if r.is_nan() {
                    prop_assert!(f32::from_bits(got).is_nan());
                } else {
                    prop_assert_eq!(got, r.to_bits(), "op {} x {:#x} y {:#x}", i, x, y);
                }
            }
        }
        // The scalar form equals the tensor form with a broadcast constant.
        core.tpu_bdc_fp_add_C(d, a, Scalar::from_bits(k), &shape, None, None, DataType::Fp32).unwrap();
        for &(ni, ci, hi, wi, x, _) in &inputs {
            let got = core.read_local(plain_addr(d, shape, ni, ci, hi, wi) as u32, 4).unwrap();
            let got = f32::from_le_bytes([got[0], got[1], got[2], got[3]]);
            let r = daz(daz(f32::from_bits(x)) + daz(f32::from_bits(k)));
            prop_assert!(got.to_bits() == r.to_bits() || (got.is_nan() && r.is_nan()));
        }
    }
}

/// The x86 result the C-model writes for `fz(x) op fz(y)`: the flushed IEEE result, or for a
/// NaN the first NaN operand quieted, else the second, else the default NaN `0xffc00000`.
fn x86_model(x: u32, y: u32, op: fn(f32, f32) -> f32) -> u32 {
    let (fx, fy) = (daz(f32::from_bits(x)), daz(f32::from_bits(y)));
    let r = daz(op(fx, fy));
    if !r.is_nan() {
        r.to_bits()
    } else if fx.is_nan() {
        x | 0x0040_0000
    } else if fy.is_nan() {
        y | 0x0040_0000
    } else {
        0xffc0_0000
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    /// f32 add/sub/mul (+ `_C`) in place (dst = src0, dst = src1) and apart, on rows of up to
    /// 120 elements (blocks of 32 and 8 and a masked tail in the AVX2 kernel), every element
    /// equal to the plain model with the C-model's NaN rule, bit for bit.
    #[test]
    fn f32_arith_in_place_and_apart_equal_plain_model(
        start in 0u32..64, n in 1i32..3, c in 1i32..70, h in 1i32..4, w in 1i32..41,
        seed in any::<u64>(), k in f32_any(), vals in prop::collection::vec(f32_any(), 97),
        which in 0usize..3,
    ) {
        let shape = Dim4::new(n, c, h, w);
        let mut core = core();
        let (a, b, apart) = (start << 18, (start << 18) + 0x10000, (start << 18) + 0x20000);
        let mut idx = 0usize;
        let mut next = || { idx += 1; vals[(idx + seed as usize) % vals.len()] };
        let mut inputs = Vec::new();
        for ni in 0..n as usize { for ci in 0..c as usize { for hi in 0..h as usize { for wi in 0..w as usize {
            inputs.push(((ni, ci, hi, wi), next(), next()));
        }}}}
        let load = |core: &mut TpuCore| {
            for &((ni, ci, hi, wi), x, y) in &inputs {
                core.write_local(plain_addr(a, shape, ni, ci, hi, wi) as u32, &x.to_le_bytes()).unwrap();
                core.write_local(plain_addr(b, shape, ni, ci, hi, wi) as u32, &y.to_le_bytes()).unwrap();
            }
        };
        let d = [a, b, apart][which];
        let f = DataType::Fp32;
        let ops: [(Op, Model, bool); 6] = [
            (|t, d, a, b, s| t.tpu_bdc_fp_add(d, a, b, s, None, None, None, DataType::Fp32), |x, y| x + y, true),
            (|t, d, a, b, s| t.tpu_bdc_fp_sub(d, a, b, s, None, None, None, DataType::Fp32), |x, y| x - y, true),
            (|t, d, a, b, s| t.tpu_bdc_fp_mul(d, a, b, s, None, None, None, DataType::Fp32), |x, y| x * y, true),
            (|_, _, _, _, _| Ok(()), |x, y| x + y, false),
            (|_, _, _, _, _| Ok(()), |x, y| x - y, false),
            (|_, _, _, _, _| Ok(()), |x, y| x * y, false),
        ];
        for (i, (run, model, tensor)) in ops.iter().enumerate() {
            load(&mut core);
            if *tensor {
                run(&mut core, d, a, b, &shape).unwrap();
            } else {
                // The `_C` forms read src0 only: in place means dst = src0.
                let d = if which == 1 { a } else { d };
                let c = Scalar::from_bits(k);
                match i {
                    3 => core.tpu_bdc_fp_add_C(d, a, c, &shape, None, None, f),
                    4 => core.tpu_bdc_fp_sub_C(d, a, c, &shape, None, None, f),
                    _ => core.tpu_bdc_fp_mul_C(d, a, c, &shape, None, None, f),
                }.unwrap();
            }
            let d = if !*tensor && which == 1 { a } else { d };
            for &((ni, ci, hi, wi), x, y) in &inputs {
                let y = if *tensor { y } else { k };
                let got = core.read_local(plain_addr(d, shape, ni, ci, hi, wi) as u32, 4).unwrap();
                let got = u32::from_le_bytes([got[0], got[1], got[2], got[3]]);
                prop_assert_eq!(got, x86_model(x, y, *model), "op {} x {:#x} y {:#x} at {:?}", i, x, y, (ni, ci, hi, wi));
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    /// f32 add/sub (+ `_C`) on long rows (channels of up to 2,400 elements: the AVX2 kernel's
    /// hardware flush-to-zero blocks of 32, then blocks of 8 and the masked tail), in place and
    /// apart, and mul (the generic driver on long rows): every element equal to the plain model
    /// (`x86_model`: flushed operands, flushed result, the C-model's NaN rule), bit for bit.
    #[test]
    fn f32_long_rows_equal_plain_model(
        start in 0u32..64, c in 1i32..4, h in 1i32..5, w in 1i32..600,
        seed in any::<u64>(), k in f32_any(), vals in prop::collection::vec(f32_any(), 101),
        which in 0usize..3,
    ) {
        let shape = Dim4::new(1, c, h, w);
        let mut core = core();
        let (a, b, apart) = (start << 18, (start << 18) + 0x10000, (start << 18) + 0x20000);
        let mut idx = 0usize;
        let mut next = || { idx += 1; vals[(idx + seed as usize) % vals.len()] };
        let mut inputs = Vec::new();
        for ci in 0..c as usize { for hi in 0..h as usize { for wi in 0..w as usize {
            inputs.push(((ci, hi, wi), next(), next()));
        }}}
        let load = |core: &mut TpuCore| {
            for &((ci, hi, wi), x, y) in &inputs {
                core.write_local(plain_addr(a, shape, 0, ci, hi, wi) as u32, &x.to_le_bytes()).unwrap();
                core.write_local(plain_addr(b, shape, 0, ci, hi, wi) as u32, &y.to_le_bytes()).unwrap();
            }
        };
        let d = [a, b, apart][which];
        let f = DataType::Fp32;
        let models: [Model; 5] = [|x, y| x + y, |x, y| x - y, |x, y| x * y, |x, y| x + y, |x, y| x - y];
        for (i, model) in models.iter().enumerate() {
            load(&mut core);
            let cst = Scalar::from_bits(k);
            // The `_C` forms read src0 only: in place means dst = src0.
            let dd = if i >= 3 && which == 1 { a } else { d };
            match i {
                0 => core.tpu_bdc_fp_add(dd, a, b, &shape, None, None, None, f),
                1 => core.tpu_bdc_fp_sub(dd, a, b, &shape, None, None, None, f),
                2 => core.tpu_bdc_fp_mul(dd, a, b, &shape, None, None, None, f),
                3 => core.tpu_bdc_fp_add_C(dd, a, cst, &shape, None, None, f),
                _ => core.tpu_bdc_fp_sub_C(dd, a, cst, &shape, None, None, f),
            }.unwrap();
            for &((ci, hi, wi), x, y) in &inputs {
                let y = if i >= 3 { k } else { y };
                let got = core.read_local(plain_addr(dd, shape, 0, ci, hi, wi) as u32, 4).unwrap();
                let got = u32::from_le_bytes([got[0], got[1], got[2], got[3]]);
                prop_assert_eq!(got, x86_model(x, y, *model), "op {} x {:#x} y {:#x} at {:?}", i, x, y, (ci, hi, wi));
            }
        }
    }
}

#[test]
fn restriction_operand_alignment() {
    let mut c = core();
    let s = Dim4::new(1, 3, 1, 4);
    assert_eq!(
        c.tpu_bdc_fp_add(0, 0x10004, 0x20000, &s, None, None, None, DataType::Fp32),
        Err(TpuError::Misaligned {
            op: "tpu_bdc_fp_add",
            param: "src0_addr",
            addr: 0x10004,
            align: 64
        })
    );
}

#[test]
fn restriction_dtypes() {
    let mut c = core();
    let s = Dim4::new(1, 3, 1, 4);
    assert!(matches!(
        c.tpu_bdc_fp_add(0, 0x10000, 0x20000, &s, None, None, None, DataType::Int32),
        Err(TpuError::UnsupportedDtype {
            op: "tpu_bdc_fp_add",
            dtype: DataType::Int32,
            ..
        })
    ));
    // The fp_div family takes DT_FP32 only (the C-model asserts "dtype == DT_FP32").
    assert!(matches!(
        c.tpu_bdc_fp_div(0, 0x10000, 0x20000, &s, None, None, None, DataType::Fp16),
        Err(TpuError::UnsupportedDtype {
            op: "tpu_bdc_fp_div",
            rule: "must be DT_FP32",
            ..
        })
    ));
    assert!(matches!(
        c.tpu_bdc_fp_C_div(
            0,
            0x10000,
            Scalar::from_f32(1.0),
            &s,
            None,
            None,
            DataType::Bfp16
        ),
        Err(TpuError::UnsupportedDtype {
            op: "tpu_bdc_fp_C_div",
            ..
        })
    ));
}

#[test]
fn restriction_shape_and_footprint() {
    let mut c = core();
    assert!(matches!(
        c.tpu_bdc_fp_mul(
            0,
            0x10000,
            0x20000,
            &Dim4::new(1, 0, 1, 1),
            None,
            None,
            None,
            DataType::Fp32
        ),
        Err(TpuError::DimOutOfRange {
            op: "tpu_bdc_fp_mul",
            param: "shape.c",
            value: 0
        })
    ));
    assert!(matches!(
        c.tpu_bdc_fp_sub(
            0x3ffc0,
            0,
            0,
            &Dim4::new(1, 1, 1, 32),
            None,
            None,
            None,
            DataType::Fp32
        ),
        Err(TpuError::LocalFootprint {
            op: "tpu_bdc_fp_sub",
            param: "dst_addr",
            ..
        })
    ));
    assert!(matches!(
        c.tpu_bdc_max(
            0,
            0,
            0,
            &Dim4::new(1, 1, 1, 4),
            None,
            Some(&Dim4::new(4, 4, 4, -1)),
            None,
            DataType::Fp32
        ),
        Err(TpuError::StrideNegative {
            op: "tpu_bdc_max",
            param: "src0_addr",
            field: "w",
            value: -1
        })
    ));
}

proptest! {
    // Four times the file's default: the AVX-512 f32 path sees about a sixth of the draws.
    #![proptest_config(ProptestConfig::with_cases(4 * cases()))]

    /// The small-call paths of f32, f16 and bf16 add/sub/mul (every operand with NULL strides: one pass of
    /// the layout checks, then the AVX-512 or AVX2 rows, or none: each `HostSimd` level the
    /// host has) against their twin, the same call with the aligned strides written out
    /// (`tpu_aligned_stride`), which runs the generic driver: operands on
    /// different start lanes or the destination's, at offsets that meet the destination partly, wholly or not at
    /// all, misaligned or out of range now and then. Both cores start from the same bytes; the
    /// results (accepted or refused, and the whole local store) must be equal.
    #[test]
    fn aligned_small_calls_equal_strided_calls(
        lanes in prop::array::uniform3(0u32..64), same in prop::array::uniform2(any::<bool>()),
        offs in prop::array::uniform3(0u32..8),
        skew in prop::array::uniform3(prop::sample::select(vec![0u32, 0, 0, 0, 4, 0x3_ffc0])),
        n in 1i32..3, c in 1i32..70, h in 1i32..5, w in 1i32..20,
        op in 0usize..6, k in f32_any(), vals in prop::collection::vec(f32_any(), 61),
        simd in prop::sample::select(vec![HostSimd::Avx512, HostSimd::Avx512, HostSimd::Avx2,
            HostSimd::Baseline]),
        dt in prop::sample::select(vec![DataType::Fp32, DataType::Fp32, DataType::Fp16, DataType::Bfp16]),
    ) {
        let shape = Dim4::new(n, c, h, w);
        // f16 / bf16 read each f32 pattern as two halves: the high one a bf16 of the f32's
        // class (specials included), the low one any pattern (f16 NaN, inf, denormals).
        let f = dt;
        let p = TpuChip::Bm1684x.local();
        // Offsets in steps of 64 bytes (the EU alignment), so that rows meet; a skew of 4
        // misaligns the address, 0x3ffc0 pushes the tensor past its lanes.
        // Sources on the destination's start lane half of the time (rows then meet inside
        // one channel).
        let starts = [lanes[0], if same[0] { lanes[0] } else { lanes[1] }, if same[1] { lanes[0] } else { lanes[2] }];
        let addr = |i: usize| (starts[i] << 18) + offs[i] * 64 + skew[i];
        let (d, a, b) = (addr(0), addr(1), addr(2));
        let mut fast = core();
        // Each small-call path of the host (a level above the host's is capped).
        fast.set_host_simd(simd);
        // Every row of an accepted call lies in the first 8 KiB of its lanes: fill those.
        for lane in 0..64u32 {
            let bytes: Vec<u8> = (0..2048usize)
                .flat_map(|i| vals[(i + lane as usize) % vals.len()].to_le_bytes())
                .collect();
            fast.write_local(lane << 18, &bytes).unwrap();
        }
        let mut twin = fast.clone();
        let st = |addr: u32| p.tpu_aligned_stride((addr >> 18) as i32, &shape, f).unwrap();
        let (sd, sa, sb) = (st(d), st(a), st(b));
        let cst = Scalar::from_bits(k);
        let (got, want) = match op {
            0 => (fast.tpu_bdc_fp_add(d, a, b, &shape, None, None, None, f),
                  twin.tpu_bdc_fp_add(d, a, b, &shape, Some(&sd), Some(&sa), Some(&sb), f)),
            1 => (fast.tpu_bdc_fp_sub(d, a, b, &shape, None, None, None, f),
                  twin.tpu_bdc_fp_sub(d, a, b, &shape, Some(&sd), Some(&sa), Some(&sb), f)),
            2 => (fast.tpu_bdc_fp_mul(d, a, b, &shape, None, None, None, f),
                  twin.tpu_bdc_fp_mul(d, a, b, &shape, Some(&sd), Some(&sa), Some(&sb), f)),
            3 => (fast.tpu_bdc_fp_add_C(d, a, cst, &shape, None, None, f),
                  twin.tpu_bdc_fp_add_C(d, a, cst, &shape, Some(&sd), Some(&sa), f)),
            4 => (fast.tpu_bdc_fp_sub_C(d, a, cst, &shape, None, None, f),
                  twin.tpu_bdc_fp_sub_C(d, a, cst, &shape, Some(&sd), Some(&sa), f)),
            _ => (fast.tpu_bdc_fp_mul_C(d, a, cst, &shape, None, None, f),
                  twin.tpu_bdc_fp_mul_C(d, a, cst, &shape, Some(&sd), Some(&sa), f)),
        };
        prop_assert_eq!(got.is_ok(), want.is_ok(), "{:?} / {:?}", got, want);
        prop_assert!(fast.local_store() == twin.local_store(), "op {} stores differ", op);
    }
}

proptest! {
    // Four times the file's default.
    #![proptest_config(ProptestConfig::with_cases(4 * cases()))]

    /// The small-call paths of `fp_div` (+ `fp_div_C`, `fp_C_div`) and `max`/`min` (+ `_C`)
    /// on f32, f16, bf16 and the integer types (NULL strides: `bdc_elem::run_small` with the
    /// element functions `cmodel_div_bits`, `sel_bits` and the typed integer compares, at each
    /// level the host has) against their twin, the same call with the aligned strides written
    /// out on a core held at `HostSimd::Baseline` (the generic driver, which names every
    /// error); the strided call at the fast core's level too (the generic driver's division
    /// rows through `cmodel_div_bits`). Both chips, operands on different start lanes or the
    /// destination's, at offsets that meet the destination partly, wholly or not at all,
    /// misaligned or past their lanes now and then, rows of up to 156 elements (past the
    /// driver's 128-element chunks). All three cores start from the same bytes; the results
    /// (accepted or refused, and the whole local store) must be equal.
    #[test]
    fn aligned_small_div_max_min_equal_strided_calls(
        lanes in prop::array::uniform3(0u32..64), same in prop::array::uniform2(any::<bool>()),
        offs in prop::array::uniform3(0u32..8),
        skew in prop::array::uniform3(prop::sample::select(vec![0u32, 0, 0, 0, 4, 1])),
        n in 1i32..3, c in 1i32..70, h in 1i32..5, w in 1i32..40,
        op in 0usize..7, k in f32_any(), vals in prop::collection::vec(f32_any(), 61),
        simd in prop::sample::select(vec![HostSimd::Avx512, HostSimd::Avx512, HostSimd::Avx2,
            HostSimd::Baseline]),
        dt in prop::sample::select(vec![DataType::Fp32, DataType::Fp32, DataType::Fp32,
            DataType::Fp16, DataType::Bfp16, DataType::Int8, DataType::Uint8, DataType::Int16,
            DataType::Uint16, DataType::Int32, DataType::Uint32]),
        chip in prop::sample::select(vec![TpuChip::Bm1684x, TpuChip::Bm1684x, TpuChip::Bm1688]),
    ) {
        let shape = Dim4::new(n, c, h, w);
        let f = dt;
        let p = chip.local();
        let (npu, lmem) = (p.npu_num, p.local_mem_per_npu);
        let lane_bits = lmem.trailing_zeros();
        // Offsets in steps of 64 bytes (a multiple of every EU alignment), so that rows meet;
        // a skew of 4 misaligns the address, the other pushes the tensor past its lanes.
        let starts = [lanes[0], if same[0] { lanes[0] } else { lanes[1] }, if same[1] { lanes[0] } else { lanes[2] }]
            .map(|l| l % npu);
        let skew = skew.map(|s| match s { 1 => lmem - 64, s => s });
        let addr = |i: usize| (starts[i] << lane_bits) + offs[i] * 64 + skew[i];
        let (d, a, b) = (addr(0), addr(1), addr(2));
        let mut fast = TpuCore::with_gm_size(chip, 1 << 20).unwrap();
        // Each small-call path of the host (a level above the host's is capped).
        fast.set_host_simd(simd);
        // Every row of an accepted call lies in the first 8 KiB of its lanes: fill those.
        for lane in 0..npu {
            let bytes: Vec<u8> = (0..2048usize)
                .flat_map(|i| vals[(i + lane as usize) % vals.len()].to_le_bytes())
                .collect();
            fast.write_local(lane << lane_bits, &bytes).unwrap();
        }
        let mut twin = fast.clone();
        twin.set_host_simd(HostSimd::Baseline);
        // The strided call at the fast core's level too (the generic driver's vector rows).
        let mut wide = fast.clone();
        let st = |addr: u32| p.tpu_aligned_stride((addr >> lane_bits) as i32, &shape, f).unwrap();
        let (sd, sa, sb) = (st(d), st(a), st(b));
        let cst = Scalar::from_bits(k);
        let run = |t: &mut TpuCore, strided: bool| {
            let (sd, sa, sb) = if strided { (Some(&sd), Some(&sa), Some(&sb)) } else { (None, None, None) };
            match op {
                0 => t.tpu_bdc_fp_div(d, a, b, &shape, sd, sa, sb, f),
                1 => t.tpu_bdc_fp_div_C(d, a, cst, &shape, sd, sa, f),
                2 => t.tpu_bdc_fp_C_div(d, a, cst, &shape, sd, sa, f),
                3 => t.tpu_bdc_max(d, a, b, &shape, sd, sa, sb, f),
                4 => t.tpu_bdc_min(d, a, b, &shape, sd, sa, sb, f),
                5 => t.tpu_bdc_max_C(d, a, cst, &shape, sd, sa, f),
                _ => t.tpu_bdc_min_C(d, a, cst, &shape, sd, sa, f),
            }
        };
        let (got, mid, want) = (run(&mut fast, false), run(&mut wide, true), run(&mut twin, true));
        prop_assert_eq!(got.is_ok(), want.is_ok(), "{:?} / {:?}", got, want);
        prop_assert_eq!(&mid, &want);
        prop_assert!(fast.local_store() == twin.local_store(), "op {} {:?} stores differ", op, f);
        prop_assert!(wide.local_store() == twin.local_store(), "op {} {:?} strided stores differ", op, f);
    }
}
