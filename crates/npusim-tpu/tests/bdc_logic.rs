//! Issue #16, BDC compares and bitwise instructions: a plain model written here (aligned
//! layout, lane `(s + c) % 64`) against the simulator, and one test per C-model assert.
//! Bit-exactness against the C-model is in tests/golden.rs (golden/tpu/cmp.json, bit.json).

use npusim_tpu::{DataType, Dim4, HostSimd, Scalar, TpuChip, TpuCore, TpuError};
use proptest::prelude::*;

fn core() -> TpuCore {
    TpuCore::with_gm_size(TpuChip::Bm1684x, 1 << 20).unwrap()
}

/// Byte address of element (n, c, h, w) of an aligned i16 tensor.
fn addr16(addr: u32, s: Dim4, n: usize, c: usize, h: usize, w: usize) -> usize {
    let start = (addr >> 18) as usize;
    let cs = (s.h as usize * s.w as usize).div_ceil(32) * 32;
    let ns = cs * (start + s.c as usize).div_ceil(64);
    let (lane, slot) = ((start + c) % 64, (start + c) / 64);
    // Lanes lie `store_pitch` apart in the flat store.
    let pitch = TpuChip::Bm1684x.local().store_pitch() as usize;
    lane * pitch + (addr as usize & 0x3ffff) + 2 * (n * ns + slot * cs + h * s.w as usize + w)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn i16_greater_xor_equal_plain_model(
        start in 0u32..64, c in 1i32..70, h in 1i32..3, w in 1i32..9,
        vals in prop::collection::vec(any::<i16>(), 64), k in any::<i16>(),
    ) {
        let s = Dim4::new(1, c, h, w);
        let mut core = core();
        let (a, d, e) = (start << 18, (start << 18) + 0x10000, (start << 18) + 0x20000);
        let mut idx = Vec::new();
        for ci in 0..c as usize {
            for hi in 0..h as usize {
                for wi in 0..w as usize {
                    idx.push((ci, hi, wi));
                }
            }
        }
        for (j, &(ci, hi, wi)) in idx.iter().enumerate() {
            let p = addr16(a, s, 0, ci, hi, wi);
            core.local_store_mut()[p..p + 2].copy_from_slice(&vals[j % 64].to_le_bytes());
        }
        let kk = Scalar::from_i32(i32::from(k));
        core.tpu_bdc_greater_C(d, a, kk, Scalar::from_i32(7), &s, None, None, DataType::Int16,
            DataType::Int16).unwrap();
        core.tpu_bdc_xor_C(e, a, kk, &s, None, None, DataType::Int16).unwrap();
        for (j, &(ci, hi, wi)) in idx.iter().enumerate() {
            let v = vals[j % 64];
            let (p, q) = (addr16(d, s, 0, ci, hi, wi), addr16(e, s, 0, ci, hi, wi));
            let st = core.local_store();
            prop_assert_eq!(i16::from_le_bytes([st[p], st[p + 1]]), if v > k { 7 } else { 0 });
            prop_assert_eq!(i16::from_le_bytes([st[q], st[q + 1]]), v ^ k);
        }
    }
}

#[test]
fn restriction_compare_dst_not_wider_than_src() {
    let mut c = core();
    let s = Dim4::new(1, 2, 1, 4);
    assert_eq!(
        c.tpu_bdc_equal(
            0,
            0x10000,
            0x20000,
            Scalar::from_i32(1),
            &s,
            None,
            None,
            None,
            DataType::Int32,
            DataType::Int8
        ),
        Err(TpuError::UnsupportedDtype {
            op: "tpu_bdc_equal",
            dtype: DataType::Int32,
            rule: "dst_dtype must not be wider than src_dtype"
        })
    );
}

#[test]
fn restriction_alignment_and_dtype() {
    let mut c = core();
    let s = Dim4::new(1, 2, 1, 4);
    assert!(matches!(
        c.tpu_bdc_greater(
            0,
            0x10000,
            0x20004,
            Scalar::from_i32(1),
            &s,
            None,
            None,
            None,
            DataType::Fp32,
            DataType::Fp32
        ),
        Err(TpuError::Misaligned {
            param: "src1_addr",
            addr: 0x20004,
            ..
        })
    ));
    assert!(matches!(
        c.tpu_bdc_and(0, 0x10000, 0x20000, &s, None, None, None, DataType::Int4),
        Err(TpuError::UnsupportedDtype {
            op: "tpu_bdc_and",
            ..
        })
    ));
    assert!(matches!(
        c.tpu_bdc_or_C(
            0,
            0x10000,
            Scalar::from_i32(1),
            &Dim4::new(1, 0, 1, 1),
            None,
            None,
            DataType::Int8
        ),
        Err(TpuError::DimOutOfRange { .. })
    ));
}

#[test]
fn restriction_select_dtype_widths_and_alignment() {
    use npusim_tpu::bdc_logic::Variable;
    let mut c = core();
    let s = Dim4::new(1, 2, 1, 4);
    let t = |a| Variable::Tensor(a);
    let k = Variable::Scalar(Scalar::from_i32(3));
    // dst narrower than the compared type
    assert_eq!(
        c.tpu_bdc_greater_select(
            0,
            &t(0x10000),
            &k,
            &t(0x20000),
            &k,
            &s,
            DataType::Int16,
            DataType::Int8
        ),
        Err(TpuError::UnsupportedDtype {
            op: "tpu_bdc_greater_select",
            dtype: DataType::Int8,
            rule: "dst_dtype must not be narrower than src0_src1_dtype",
        })
    );
    // a float compare into another width
    assert!(matches!(
        c.tpu_bdc_equal_select(
            0,
            &t(0x10000),
            &t(0x20000),
            &k,
            &k,
            &s,
            DataType::Fp16,
            DataType::Fp32
        ),
        Err(TpuError::UnsupportedDtype {
            rule: "dst_dtype must have the width of a float src0_src1_dtype",
            ..
        })
    ));
    // an integer compare may widen
    c.tpu_bdc_less_select(
        0,
        &t(0x10000),
        &k,
        &k,
        &k,
        &s,
        DataType::Uint8,
        DataType::Int32,
    )
    .unwrap();
    // misaligned tensor operand
    assert!(matches!(
        c.tpu_bdc_less_select(
            0,
            &t(0x10000),
            &t(0x20004),
            &k,
            &k,
            &s,
            DataType::Fp32,
            DataType::Fp32
        ),
        Err(TpuError::Misaligned {
            param: "src1",
            addr: 0x20004,
            ..
        })
    ));
}

/// `greater_select` against the plain formula, scalars in positions 1 and 3.
#[test]
fn select_plain_model_i8_to_i16() {
    use npusim_tpu::bdc_logic::Variable;
    let mut c = core();
    let s = Dim4::new(1, 1, 1, 16);
    let a: Vec<i8> = (0..16).map(|i| (i * 17 - 128) as i8).collect();
    for (i, v) in a.iter().enumerate() {
        c.local_store_mut()[0x10000 + i] = *v as u8;
    }
    for i in 0..16usize {
        let v = (1000 + i as i16).to_le_bytes();
        c.local_store_mut()[0x20000 + 2 * i..0x20000 + 2 * i + 2].copy_from_slice(&v);
    }
    c.tpu_bdc_greater_select(
        0,
        &Variable::Tensor(0x10000),
        &Variable::Scalar(Scalar::from_i32(-5)),
        &Variable::Tensor(0x20000),
        &Variable::Scalar(Scalar::from_i32(-7)),
        &s,
        DataType::Int8,
        DataType::Int16,
    )
    .unwrap();
    for (i, v) in a.iter().enumerate() {
        let st = c.local_store();
        let got = i16::from_le_bytes([st[2 * i], st[2 * i + 1]]);
        assert_eq!(
            got,
            if *v > -5 { 1000 + i as i16 } else { -7 },
            "element {i}"
        );
    }
}

#[test]
fn restriction_two_output_select_widths() {
    use npusim_tpu::bdc_logic::Variable;
    let mut c = core();
    let s = Dim4::new(1, 2, 1, 4);
    let (t0, t1) = (Variable::Tensor(0x10000), Variable::Tensor(0x20000));
    let k = Variable::Scalar(Scalar::from_i32(1));
    assert_eq!(
        c.tpu_bdc_maximum_greater_select(
            0,
            0x30000,
            &t0,
            &t1,
            &k,
            &k,
            &s,
            DataType::Int32,
            DataType::Int8
        ),
        Err(TpuError::UnsupportedDtype {
            op: "tpu_bdc_maximum_greater_select",
            dtype: DataType::Int8,
            rule: "dst1_dtype must have the width of dst0_dtype",
        })
    );
    // same width, other type: accepted; dst0 = min, dst1 = selected
    let a: [i32; 4] = [5, -3, 7, 0];
    let b: [i32; 4] = [2, -1, 7, 9];
    for i in 0..4 {
        c.local_store_mut()[0x10000 + 4 * i..0x10000 + 4 * i + 4]
            .copy_from_slice(&a[i].to_le_bytes());
        c.local_store_mut()[0x20000 + 4 * i..0x20000 + 4 * i + 4]
            .copy_from_slice(&b[i].to_le_bytes());
    }
    let one = Dim4::new(1, 1, 1, 4);
    c.tpu_bdc_minimum_less_select(
        0,
        0x30000,
        &t0,
        &t1,
        &Variable::Scalar(Scalar::from_f32(1.0)),
        &Variable::Scalar(Scalar::from_f32(2.0)),
        &one,
        DataType::Int32,
        DataType::Fp32,
    )
    .unwrap();
    for i in 0..4 {
        let st = c.local_store();
        let m = i32::from_le_bytes(st[4 * i..4 * i + 4].try_into().unwrap());
        let sel = f32::from_le_bytes(st[0x30000 + 4 * i..0x30000 + 4 * i + 4].try_into().unwrap());
        assert_eq!(m, a[i].min(b[i]), "element {i}");
        assert_eq!(sel, if a[i] < b[i] { 1.0 } else { 2.0 }, "element {i}");
    }
}

/// (dst_dtype, src_dtype) of the compares: one width (the small-call path) and narrower
/// destinations (declined); the bitwise instructions take the first.
const CMP_TYPES: [(DataType, DataType); 8] = [
    (DataType::Fp32, DataType::Fp32),
    (DataType::Int32, DataType::Int32),
    (DataType::Fp16, DataType::Fp16),
    (DataType::Bfp16, DataType::Bfp16),
    (DataType::Uint16, DataType::Uint16),
    (DataType::Int8, DataType::Int8),
    (DataType::Uint8, DataType::Uint8),
    (DataType::Int8, DataType::Fp32),
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The small-call paths of the compares and bitwise instructions (NULL strides, one width:
    /// `bdc_elem::run_small`, at each `HostSimd` level the host has) against their twin, the
    /// same call with the aligned strides written out (`tpu_aligned_stride`), which runs the generic driver over views: every compare and
    /// bitwise op in tensor and `_C` forms, float types with NaNs, infinities, denormals and
    /// signed zeros, integer types; operands on different start lanes or the destination's, at
    /// offsets that meet the destination partly, wholly or not at all, misaligned or past the
    /// lane now and then. Accepted or refused and the whole local store must be equal.
    #[test]
    fn aligned_small_compare_bitwise_calls_equal_strided_calls(
        lanes in prop::array::uniform3(0u32..64), same in prop::array::uniform2(any::<bool>()),
        offs in prop::array::uniform3(0u32..8),
        skew in prop::array::uniform3(prop::sample::select(vec![0u32, 0, 0, 0, 4, 0x3_ffc0])),
        n in 1i32..3, c in 1i32..70, h in 1i32..5, w in 1i32..20,
        op in 0usize..12, types in 0usize..CMP_TYPES.len(),
        cbits in any::<u32>(), tv in any::<u32>(), seed in any::<u64>(),
        simd in prop::sample::select(vec![HostSimd::Avx512, HostSimd::Avx2, HostSimd::Baseline]),
    ) {
        const SPECIALS: [u32; 8] = [0x7fc0_0000, 0x7f80_0001, 0xff80_0000, 0x7f80_0000,
            0x0000_0001, 0x807f_ffff, 0x8000_0000, 0x0001_8001];
        let shape = Dim4::new(n, c, h, w);
        let p = TpuChip::Bm1684x.local();
        let (dd, sd_t) = CMP_TYPES[types];
        let starts = [lanes[0], if same[0] { lanes[0] } else { lanes[1] },
            if same[1] { lanes[0] } else { lanes[2] }];
        let addr = |i: usize| (starts[i] << 18) + offs[i] * 64 + skew[i];
        let (d, a, b) = (addr(0), addr(1), addr(2));
        let mut fast = core();
        let mut x = seed | 1;
        for lane in 0..64u32 {
            let bytes: Vec<u8> = (0..3072)
                .flat_map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    let v = if x % 4 == 0 { SPECIALS[(x >> 8) as usize % 8] } else { (x >> 16) as u32 };
                    v.to_le_bytes()
                })
                .collect();
            fast.write_local(lane << 18, &bytes).unwrap();
        }
        let mut twin = fast.clone();
        fast.set_host_simd(simd);
        let st = |addr: u32, dt| p.tpu_aligned_stride((addr >> 18) as i32, &shape, dt).unwrap();
        let (cst, tv) = (Scalar::from_bits(cbits), Scalar::from_bits(tv));
        type Cmp = fn(&mut TpuCore, u32, u32, u32, Scalar, &Dim4, Option<&Dim4>, Option<&Dim4>,
            Option<&Dim4>, DataType, DataType) -> Result<(), TpuError>;
        type CmpC = fn(&mut TpuCore, u32, u32, Scalar, Scalar, &Dim4, Option<&Dim4>,
            Option<&Dim4>, DataType, DataType) -> Result<(), TpuError>;
        type Bit = fn(&mut TpuCore, u32, u32, u32, &Dim4, Option<&Dim4>, Option<&Dim4>,
            Option<&Dim4>, DataType) -> Result<(), TpuError>;
        type BitC = fn(&mut TpuCore, u32, u32, Scalar, &Dim4, Option<&Dim4>, Option<&Dim4>,
            DataType) -> Result<(), TpuError>;
        let (got, want) = match op {
            0..=2 => {
                let f: Cmp = [TpuCore::tpu_bdc_equal, TpuCore::tpu_bdc_greater,
                    TpuCore::tpu_bdc_less][op];
                let (s0, s1, s2) = (st(d, dd), st(a, sd_t), st(b, sd_t));
                (f(&mut fast, d, a, b, tv, &shape, None, None, None, dd, sd_t),
                 f(&mut twin, d, a, b, tv, &shape, Some(&s0), Some(&s1), Some(&s2), dd, sd_t))
            }
            3..=5 => {
                let f: CmpC = [TpuCore::tpu_bdc_equal_C, TpuCore::tpu_bdc_greater_C,
                    TpuCore::tpu_bdc_less_C][op - 3];
                let (s0, s1) = (st(d, dd), st(a, sd_t));
                (f(&mut fast, d, a, cst, tv, &shape, None, None, dd, sd_t),
                 f(&mut twin, d, a, cst, tv, &shape, Some(&s0), Some(&s1), dd, sd_t))
            }
            6..=8 => {
                let f: Bit = [TpuCore::tpu_bdc_and, TpuCore::tpu_bdc_or, TpuCore::tpu_bdc_xor][op - 6];
                let (s0, s1, s2) = (st(d, dd), st(a, dd), st(b, dd));
                (f(&mut fast, d, a, b, &shape, None, None, None, dd),
                 f(&mut twin, d, a, b, &shape, Some(&s0), Some(&s1), Some(&s2), dd))
            }
            _ => {
                let f: BitC = [TpuCore::tpu_bdc_and_C, TpuCore::tpu_bdc_or_C,
                    TpuCore::tpu_bdc_xor_C][op - 9];
                let (s0, s1) = (st(d, dd), st(a, dd));
                (f(&mut fast, d, a, cst, &shape, None, None, dd),
                 f(&mut twin, d, a, cst, &shape, Some(&s0), Some(&s1), dd))
            }
        };
        prop_assert_eq!(got.is_ok(), want.is_ok(), "{:?} / {:?}", got, want);
        prop_assert!(fast.local_store() == twin.local_store(), "op {} {:?} stores differ", op, CMP_TYPES[types]);
    }
}
