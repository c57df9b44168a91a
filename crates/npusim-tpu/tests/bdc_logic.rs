//! Issue #16, BDC compares and bitwise instructions: a plain model written here (aligned
//! layout, lane `(s + c) % 64`) against the simulator, and one test per C-model assert.
//! Bit-exactness against the C-model is in tests/golden.rs (golden/tpu/cmp.json, bit.json).

use npusim_tpu::{DataType, Dim4, Scalar, TpuChip, TpuCore, TpuError};
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
