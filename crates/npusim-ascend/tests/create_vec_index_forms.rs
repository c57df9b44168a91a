//! CreateVecIndex in its high-dimension forms (CreateVecIndex.md "tensor高维切分计算": a
//! continuous or bit-wise mask, repeatTime, dstBlkStride, dstRepStride) through the Ascend C
//! face (`CreateVecIndexRepeat`): the page's two examples (int16, firstValue 0, 128 lanes, one
//! repeat, strides 1 and 8: "[0 1 2 ... 127]"), a proptest against a plain model, restrictions.

mod common;

use half::f16;
use npusim_ascend::AscendError;
use npusim_ascend::ascendc::AscendC;
use npusim_ascend::isa::Instr;
use npusim_ascend::mask::MaskArg;
use npusim_ascend::ops::Scalar;
use npusim_core::{ChipId, ElemType};
use proptest::prelude::*;

#[test]
fn page_examples_continuous_and_bitwise() {
    for form in 0..2 {
        let mut asc = AscendC::new(ChipId::Ascend910B, 0);
        let d = asc.AllocTensor::<i16>("dst", 128).unwrap();
        if form == 0 {
            asc.CreateVecIndexRepeat(&d, 0i16, 128u64, 1, 1, 8).unwrap();
        } else {
            asc.CreateVecIndexRepeat(&d, 0i16, [u64::MAX, u64::MAX], 1, 1, 8)
                .unwrap();
        }
        assert_eq!(
            asc.read::<i16>(&d).unwrap(),
            (0..128).collect::<Vec<i16>>(),
            "form {form}"
        );
    }
}

/// The plain model over the destination's bytes: for r in repeats, e in lanes (in that
/// order), an active lane writes firstValue + r·lanes + e at its address.
#[allow(clippy::too_many_arguments)]
fn model(
    image: &mut [u8],
    size: usize,
    bits: u128,
    repeat: usize,
    blk: usize,
    rep: usize,
    first: f64,
    enc: impl Fn(f64) -> Vec<u8>,
) {
    let lanes = 256 / size;
    for r in 0..repeat {
        for e in 0..lanes {
            if bits >> e & 1 == 1 {
                let at = r * rep * 32 + (e * size / 32) * blk * 32 + (e * size) % 32;
                image[at..at + size].copy_from_slice(&enc(first + (r * lanes + e) as f64));
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(96)))]
    #[test]
    fn masked_forms_match_the_model(chip_i in 0usize..6, t_i in 0usize..4, bitwise in any::<bool>(), count in 1u64..=128,
                                    lo in any::<u64>(), hi in any::<u64>(), repeat in 0u8..6, blk in 0u16..3, rep in 0u8..12,
                                    first in -100i32..100) {
        let chip = common::CHIPS[chip_i];
        let t = [ElemType::I16, ElemType::F16, ElemType::I32, ElemType::F32][t_i];
        let legal = Instr::CreateVecIndex.legal_types(chip).is_some_and(|l| l.contains(&t));
        let size = t.size();
        let lanes = 256 / size as u64;
        let bits: u128 = if bitwise {
            let b = (hi as u128) << 64 | lo as u128;
            let b = if lanes == 64 { b & u64::MAX as u128 } else { b };
            if b == 0 { 1 } else { b }
        } else {
            // The low `n` bits, n in 1..=128 (a 128-bit shift by 128 would overflow).
            u128::MAX >> (128 - count.min(lanes))
        };
        let mask: npusim_ascend::ascendc::AscMask = if bitwise {
            [bits as u64, (bits >> 64) as u64].into()
        } else {
            count.min(lanes).into()
        };
        // Room for the farthest lane: repeats x rep stride, 8 blocks x block stride.
        let bytes = (repeat as usize).max(1) * (rep as usize).max(1) * 32 + 8 * (blk as usize).max(1) * 32 + 256;
        let elems = (bytes / size) as u64;
        let mut asc = AscendC::new(chip, 0);
        let mut image = vec![0xA5u8; (elems as usize) * size];
        macro_rules! case {
            ($T:ty, $first:expr, $enc:expr) => {{
                let d = asc.AllocTensor::<$T>("dst", elems).unwrap();
                asc.write(&d, bytemuck::cast_slice::<u8, $T>(&image)).unwrap();
                let r = asc.CreateVecIndexRepeat(&d, $first, mask, repeat, blk, rep);
                if !legal {
                    prop_assert!(r.is_err(), "{chip:?} should refuse {t:?}");
                } else {
                    r.unwrap();
                    model(&mut image, size, bits, repeat as usize, blk as usize, rep as usize, first as f64, $enc);
                    let got = asc.read::<$T>(&d).unwrap();
                    prop_assert_eq!(bytemuck::cast_slice::<$T, u8>(&got), &image[..]);
                }
            }};
        }
        match t {
            ElemType::I16 => case!(i16, first as i16, |v: f64| (v as i16).to_le_bytes().to_vec()),
            ElemType::F16 => case!(f16, f16::from_f32(first as f32), |v: f64| f16::from_f64(v).to_le_bytes().to_vec()),
            ElemType::I32 => case!(i32, first, |v: f64| (v as i32).to_le_bytes().to_vec()),
            _ => case!(f32, first as f32, |v: f64| (v as f32).to_le_bytes().to_vec()),
        }
    }
}

#[test]
fn masked_form_restrictions() {
    let chip = ChipId::Ascend910B;
    let mut asc = AscendC::new(chip, 0);
    let d = asc.AllocTensor::<i16>("dst", 4096).unwrap();
    // Values must stay inside the type: 32700 + 127 overflows int16; nothing is written.
    asc.write(&d, &[7i16; 4096]).unwrap();
    let e = asc
        .CreateVecIndexRepeat(&d, 32700i16, 128u64, 1, 1, 8)
        .unwrap_err();
    assert!(
        matches!(e, AscendError::OutOfRange { .. } | AscendError::Rule { .. }),
        "{e}"
    );
    assert!(asc.read::<i16>(&d).unwrap().iter().all(|v| *v == 7));
    // The continuous mask in [1, 128] for 16-bit elements.
    let e = asc
        .CreateVecIndexRepeat(&d, 0i16, 129u64, 1, 1, 8)
        .unwrap_err();
    assert!(matches!(e, AscendError::BadMask { .. }), "{e}");
    // Writes past the tensor are refused: 16 repeats of 8 blocks, strides 8, 4096 halves hold
    // 16 repeats exactly; 255 repeats do not.
    asc.CreateVecIndexRepeat(&d, 0i16, 128u64, 16, 1, 8)
        .unwrap();
    let e = asc
        .CreateVecIndexRepeat(&d, 0i16, 128u64, 255, 1, 8)
        .unwrap_err();
    assert!(matches!(e, AscendError::TensorOverflow { .. }), "{e}");
    // The ranges the face's integer types cannot exceed, through the checked function.
    let op = common::ub("dst", ElemType::I16, 0, 4096);
    let mut core = npusim_ascend::core::VectorCore::new(chip, 0);
    for (rep_t, blk, rep, param) in [
        (256i64, 1i64, 8i64, "repeat"),
        (1, 65536, 8, "dst_blk_stride"),
        (1, 1, 256, "dst_rep_stride"),
    ] {
        let e = npusim_ascend::misc::create_vec_index_masked(
            &mut core,
            "CreateVecIndex",
            &op,
            Scalar::Int(0),
            MaskArg::Count(128),
            rep_t,
            blk,
            rep,
        )
        .unwrap_err();
        assert!(
            matches!(e, AscendError::OutOfRange { param: p, .. } if p == param),
            "{param}: {e}"
        );
    }
}

/// The Atlas A2/A3 and 310P policy (`IndexValues::ChainedAdds`, the vendor's dav_c220 and
/// dav_m200 implementations: the first block stored as `T(firstValue + e)`, later blocks by
/// Adds of 16, later repeats by Adds of 128, each rounding to half), the 310B policy
/// (`IndexValues::RepeatAdds`, dav_m300: the first repeat by vci, later repeats by vadds of
/// 128) and one rounding on 950, on two hand checked half cases:
/// - firstValue 30000 (a multiple of 16, half's spacing there), element 24 = block 1, lane 8:
///   one rounding of 30024 ties between 30016 and 30032 and goes to the even 30016; the chain
///   rounds 30008 to 30016 (tie, even) and adds 16: 30032.
/// - firstValue 0.3 (half 0.2998046875), element 512 = repeat 4, lane 0: one rounding of
///   512.2998 gives 512.5 (spacing 0.5); the chain goes 0.2998 -> 128.25 -> 256.25 -> 384.25
///   -> 512.25, a tie between 512.0 and 512.5, to the even 512.0.
/// - 310B: element 24 is in the first repeat, rounded once: 30016; element 512 goes by
///   repeats as the chain does: 512.0.
#[test]
fn chained_adds_per_chip_against_one_rounding() {
    for (first, at, chain, by_repeat, once) in [
        (30000.0f32, 24usize, 30032.0f32, 30016.0f32, 30016.0f32),
        (0.3, 512, 512.0, 512.0, 512.5),
    ] {
        for chip in [
            ChipId::Ascend910B,
            ChipId::Ascend310P,
            ChipId::Ascend310B,
            ChipId::Ascend950,
        ] {
            let mut asc = AscendC::new(chip, 0);
            let d = asc.AllocTensor::<f16>("dst", 1024).unwrap();
            asc.CreateVecIndex(&d, f16::from_f32(first), 1024).unwrap();
            let got = asc.read::<f16>(&d).unwrap()[at].to_f32();
            let want = match chip {
                ChipId::Ascend910B | ChipId::Ascend310P => chain,
                ChipId::Ascend310B => by_repeat,
                _ => once,
            };
            assert_eq!(got, want, "{chip:?} firstValue {first} element {at}");
        }
    }
}

/// Float values of every form on every chip against the test's own model of each chip's
/// policy: the A2/A3 and 310P chain (block adds, then repeat adds, each rounded; the bit-wise
/// form stores its first repeat whole), the 310B repeat chain (first repeat whole, repeat adds)
/// or one rounding (950), with firstValue fractional or large.
#[derive(Debug, Clone)]
struct FloatCase {
    chip: ChipId,
    wide: bool,
    form: u8,
    first: f64,
    count: u32,
    mask_n: u64,
    bits: u128,
    repeat: u8,
}

fn float_case() -> impl Strategy<Value = FloatCase> {
    (
        0usize..6,
        any::<bool>(),
        0u8..3,
        prop_oneof![
            (-2000i32..2000, 0u32..1024).prop_map(|(i, f)| i as f64 + f as f64 / 1024.0),
            (1000i32..2000).prop_map(|i| i as f64 * 16.0 + 3.0),
            (-3000i32..3000, 0u32..1024).prop_map(|(i, f)| i as f64 * 4096.0 + f as f64 / 1024.0),
        ],
        1u32..1100,
        1u64..=128,
        any::<u128>(),
        1u8..9,
    )
        .prop_map(
            |(c, wide, form, first, count, mask_n, bits, repeat)| FloatCase {
                chip: common::CHIPS[c],
                wide,
                form,
                first,
                count,
                mask_n,
                bits: bits | 1,
                repeat,
            },
        )
}

/// The model for element (r, b, e) with `first` already in the element type.
fn policy_model(
    c: &FloatCase,
    first: f64,
    r: usize,
    b: usize,
    e: usize,
    rnd: &dyn Fn(f64) -> f64,
) -> f64 {
    let (lanes, per_block) = if c.wide { (64, 8) } else { (128, 16) };
    let chained = matches!(c.chip, ChipId::Ascend910B | ChipId::Ascend310P);
    let by_repeat = c.chip == ChipId::Ascend310B;
    if !chained && !by_repeat {
        return rnd(first + (r * lanes + b * per_block + e) as f64);
    }
    let mut x = if c.form == 2 || by_repeat {
        rnd(first + (b * per_block + e) as f64)
    } else {
        (0..b).fold(rnd(first + e as f64), |x, _| rnd(x + per_block as f64))
    };
    for _ in 0..r {
        x = rnd(x + lanes as f64);
    }
    x
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(96)))]
    #[test]
    fn float_values_follow_each_chips_policy(c in float_case()) {
        let legal = Instr::CreateVecIndex.legal_types(c.chip).is_some();
        let (lanes, per_block) = if c.wide { (64usize, 8usize) } else { (128, 16) };
        let n = 1152usize;
        let mut asc = AscendC::new(c.chip, 0);
        let bits = if c.wide { c.bits & u64::MAX as u128 } else { c.bits };
        let active: Vec<bool> = (0..lanes).map(|l| match c.form { 1 => (l as u64) < c.mask_n.min(lanes as u64), 2 => bits >> l & 1 == 1, _ => true }).collect();
        macro_rules! run {
            ($T:ty, $to:expr, $from:expr) => {{
                let rnd = |v: f64| -> f64 { $from($to(v)) };
                let first = rnd(c.first);
                let d = asc.AllocTensor::<$T>("dst", n as u64).unwrap();
                let fill = $to(-7.0);
                asc.write(&d, &vec![fill; n]).unwrap();
                let r = match c.form {
                    0 => asc.CreateVecIndex(&d, $to(c.first), c.count).map(|_| ()),
                    1 => asc.CreateVecIndexRepeat(&d, $to(c.first), c.mask_n.min(lanes as u64), c.repeat, 1, 8),
                    _ => asc.CreateVecIndexRepeat(&d, $to(c.first), [bits as u64, (bits >> 64) as u64], c.repeat, 1, 8),
                };
                if !legal {
                    prop_assert!(r.is_err());
                    return Ok(());
                }
                r.unwrap();
                let got = asc.read::<$T>(&d).unwrap();
                for (i, g) in got.iter().enumerate() {
                    let (rr, b, e) = (i / lanes, i % lanes / per_block, i % per_block);
                    let written = match c.form { 0 => i < c.count as usize, _ => rr < c.repeat as usize && active[i % lanes] };
                    let want = if written { policy_model(&c, first, rr, b, e, &rnd) } else { -7.0 };
                    prop_assert_eq!($from(*g).to_bits(), want.to_bits(), "element {} of {:?}", i, c);
                }
            }};
        }
        if c.wide {
            run!(f32, |v: f64| v as f32, |x: f32| x as f64)
        } else {
            run!(f16, f16::from_f64, |x: f16| x.to_f64())
        }
    }
}
