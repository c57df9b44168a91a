//! The slice forms of Exp (`elem::chunk::exp` in place and `elem::chunk::from::exp` from a
//! source slice, AVX-512 where present; `elem::chunk::exp_fma`, the AVX2+FMA form; and
//! `elem::chunk::exp_portable`: vectorised f64 evaluations with a midpoint guard)
//! against the exact model of the documented policy (Exp computed in f64, rounded once to f32),
//! written here independently of the crate.

mod common;

use npusim_ascend::elem::chunk;
use proptest::prelude::*;

fn model(a: f32) -> f32 {
    (a as f64).exp() as f32
}

fn check(xs: &[f32]) -> Result<(), String> {
    fn from(x: &mut [f32]) {
        let src = x.to_vec();
        chunk::from::exp(&src, x);
    }
    for (form, f) in [
        ("exp", chunk::exp as fn(&mut [f32])),
        ("from::exp", from),
        ("exp_fma", chunk::exp_fma),
        ("exp_portable", chunk::exp_portable),
    ] {
        let mut v = xs.to_vec();
        f(&mut v);
        for (x, y) in xs.iter().zip(&v) {
            let m = model(*x);
            if m.to_bits() != y.to_bits() && !(m.is_nan() && y.is_nan()) {
                return Err(format!("{form}({x:e}) = {y:e}, model {m:e}"));
            }
        }
    }
    Ok(())
}

fn special() -> impl Strategy<Value = f32> {
    prop_oneof![
        Just(f32::NAN),
        Just(f32::INFINITY),
        Just(f32::NEG_INFINITY),
        Just(0.0f32),
        Just(-0.0f32),
        Just(88.72283f32),
        Just(88.72284f32),
        Just(-87.33655f32),
        Just(-103.97208f32),
        Just(-104.0f32),
        Just(f32::MIN_POSITIVE),
        -110.0f32..90.0,
        -1.0f32..1.0,
        any::<u32>().prop_map(f32::from_bits),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(256)))]
    #[test]
    fn exp_chunk_equals_model(xs in proptest::collection::vec(special(), 0..600)) {
        prop_assert_eq!(check(&xs), Ok(()));
    }
}

/// Every input whose result is a normal f32 near 1 (|x| < 1, 2^24-ish values) plus the
/// boundary region, cheap enough for CI.
#[test]
fn exp_chunk_dense_ranges() {
    let mut xs = Vec::new();
    for b in (0u32..=u32::MAX).step_by(4099) {
        xs.push(f32::from_bits(b));
    }
    let mut x = -88.0f32;
    while x < 89.0 {
        xs.push(x);
        x = f32::from_bits(x.to_bits().wrapping_add(if x < 0.0 { 997 } else { 1009 }));
        if x.is_nan() || x == 0.0 {
            break;
        }
    }
    assert_eq!(check(&xs), Ok(()));
}

/// Exhaustive: all 2^32 f32 inputs.
#[test]
#[ignore]
fn exp_chunk_exhaustive() {
    let mut buf = Vec::with_capacity(1 << 20);
    for hi in 0u32..4096 {
        buf.clear();
        buf.extend((0..1u32 << 20).map(|lo| f32::from_bits(hi << 20 | lo)));
        assert_eq!(check(&buf), Ok(()), "block {hi}");
    }
}

/// Exp on every f16 input, on every chip: the fast kernel (the vectorised f16 form, the table
/// for the lanes it does not certify) equals the plain twin and the model `f16(f32(e^x))`
/// wherever that result is a finite f16 (the overflow policies differ only on the rest).
#[test]
fn exp_f16_every_input() {
    use half::f16;
    use npusim_ascend::core::{Operand, VectorCore};
    use npusim_ascend::isa::{CastRound, Instr};
    use npusim_ascend::vector::VecOp;
    use npusim_core::{ChipProfile, ElemType, MemSpace};
    let op = |name: &str, base: u64| Operand {
        tensor: name.into(),
        space: MemSpace::Ub,
        dtype: ElemType::F16,
        tensor_base: base,
        tensor_bytes: 65536,
        offset: 0,
    };
    for chip in common::CHIPS {
        let profile = ChipProfile::get(chip);
        let (src, dst) = (op("src", 0), op("dst", 65536));
        let exp = VecOp::count(
            profile,
            Instr::Exp,
            "Exp",
            &dst,
            &[&src],
            None,
            CastRound::None,
            32768,
        )
        .unwrap();
        for half_range in [0u32, 1] {
            let bits: Vec<u16> = (0..32768u32)
                .map(|k| (half_range << 15 | k) as u16)
                .collect();
            let mut fast = VectorCore::new(chip, 0);
            fast.ub_mut().write_elems(0, &bits).unwrap();
            let mut plain = fast.clone();
            exp.execute(&mut fast).unwrap();
            exp.execute_reference(&mut plain).unwrap();
            let got: Vec<u16> = fast.ub().read_elems(65536, 32768).unwrap();
            let twin: Vec<u16> = plain.ub().read_elems(65536, 32768).unwrap();
            for (k, b) in bits.iter().enumerate() {
                let x = f16::from_bits(*b);
                assert_eq!(got[k], twin[k], "{chip:?} exp({x}) [{b:#06x}]");
                let m = f16::from_f32(model(x.to_f32()));
                if m.is_finite() && !x.is_nan() {
                    assert_eq!(got[k], m.to_bits(), "{chip:?} exp({x}) [{b:#06x}]");
                }
            }
        }
    }
}
