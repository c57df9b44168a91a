//! TADDRELUCONV and TADDDEQRELU against plain models written here from the pages' formulas
//! (pto-isa `docs/isa/TADDRELUCONV.md`, `docs/isa/TADDDEQRELU.md`), on both archs and every
//! NaN min/max policy, with special values; then one test per restriction class.

mod common;

use common::special;
use npusim_core::NanMinMaxPolicy;
use npusim_pto::*;
use proptest::prelude::*;

/// `max(x, 0)` as each NaN policy defines it (f64 stands for the f32 value).
fn relu(x: f64, p: NanMinMaxPolicy) -> f64 {
    match p {
        NanMinMaxPolicy::Propagate if x.is_nan() => x,
        NanMinMaxPolicy::ReturnOther if x.is_nan() => 0.0,
        NanMinMaxPolicy::CppStd => {
            if x < 0.0 {
                0.0
            } else {
                x
            }
        }
        _ => {
            if x > 0.0 {
                x
            } else {
                0.0
            }
        }
    }
}

/// f64 to half bits: nearest even, overflow to ±65504, NaN to a quiet NaN.
fn to_half_sat(x: f64) -> u16 {
    if x.is_nan() {
        return 0x7e00 | if x.is_sign_negative() { 0x8000 } else { 0 };
    }
    let h = half::f16::from_f64(x);
    if h.is_infinite() {
        return if x < 0.0 { 0xfbff } else { 0x7bff };
    }
    h.to_bits()
}

/// f64 to int8: nearest even, clamped, NaN to 0.
fn to_i8_sat(x: f64) -> u8 {
    if x.is_nan() {
        return 0;
    }
    x.round_ties_even().clamp(-128.0, 127.0) as i8 as u8
}

fn model_relu_conv(a: u64, b: u64, src: ElemType, p: NanMinMaxPolicy) -> u64 {
    match src {
        ElemType::F32 => {
            // The f32 sum is exact in f64; round it once to f32.
            let s = (f32::from_bits(a as u32) as f64 + f32::from_bits(b as u32) as f64) as f32;
            to_half_sat(relu(s as f64, p)) as u64
        }
        ElemType::F16 => {
            let x =
                half::f16::from_bits(a as u16).to_f64() + half::f16::from_bits(b as u16).to_f64();
            let s = half::f16::from_f64(x).to_f64();
            to_i8_sat(relu(s, p)) as u64
        }
        _ => {
            let s = (a as u16 as i16).wrapping_add(b as u16 as i16);
            s.clamp(0, 127) as u8 as u64
        }
    }
}

fn model_deq(a: i32, b: i32, scale: f32, p: NanMinMaxPolicy) -> u16 {
    let x = a.wrapping_add(b) as f64;
    // i32 -> f32 nearest even; the powers of two are exact; the scale product rounds once.
    let f = x as f32 as f64 / 131072.0;
    let v = ((f * scale as f64) as f32) as f64 * 131072.0;
    let v = v as f32 as f64; // overflow to inf as f32 does
    let r = relu(v, p);
    let r = if r.is_nan() { r } else { r as f32 as f64 };
    to_half_sat(r)
}

const POLICIES: [NanMinMaxPolicy; 3] = [
    NanMinMaxPolicy::Propagate,
    NanMinMaxPolicy::ReturnOther,
    NanMinMaxPolicy::CppStd,
];

fn core(a5: bool, p: usize) -> TileCore {
    let mut c = TileCore::by_name(if a5 { "a5" } else { "a2a3" }).unwrap();
    let mut pol = c.policy();
    pol.nan_min_max = POLICIES[p];
    c.set_policy(pol);
    c
}

fn same(t: ElemType, a: u64, b: u64) -> bool {
    common::same(t, a, b)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn addreluconv_matches_the_model(
        a5 in any::<bool>(),
        pol in 0usize..3,
        pair in 0usize..3,
        vr in 1usize..5,
        vc in 1usize..40,
        seed in prop::collection::vec(any::<u64>(), 64),
        sel in prop::collection::vec(0u8..8, 64),
    ) {
        let mut c = core(a5, pol);
        let (st, dt) = npusim_pto::ops::fused::ADDRELUCONV_PAIRS[pair];
        let cols = 64;
        let s0 = c.alloc(TileDesc::vec(st, vr, cols).valid(vr, vc).at(0)).unwrap();
        let s1 = c.alloc(TileDesc::vec(st, vr, cols).valid(vr, vc).at(0x1000)).unwrap();
        let d = c.alloc(TileDesc::vec(dt, vr, cols).valid(vr, vc).at(0x2000)).unwrap();
        let mut want = vec![];
        for r in 0..vr {
            for k in 0..vc {
                let i = (r * vc + k) % 64;
                let a = special(st, seed[i], sel[i]);
                let b = special(st, seed[(i + 17) % 64].rotate_left(7), sel[(i + 5) % 64]);
                c.set_bits(&s0, r, k, a).unwrap();
                c.set_bits(&s1, r, k, b).unwrap();
                want.push(model_relu_conv(a, b, st, POLICIES[pol]));
            }
        }
        c.exec(&TileOp { op: OpCode::Taddreluconv, args: Args::Binary { dst: d, src0: s0, src1: s1 } }).unwrap();
        for r in 0..vr {
            for k in 0..vc {
                let got = c.get_bits(&d, r, k).unwrap();
                prop_assert!(same(dt, got, want[r * vc + k]), "{:?}->{:?} ({}, {}): got {:#x} want {:#x}", st, dt, r, k, got, want[r * vc + k]);
            }
        }
    }

    #[test]
    fn adddeqrelu_matches_the_model(
        a5 in any::<bool>(),
        pol in 0usize..3,
        vr in 1usize..5,
        vc in 1usize..20,
        a in prop::collection::vec(any::<i32>(), 80),
        b in prop::collection::vec(any::<i32>(), 80),
        small in any::<bool>(),
        scale_pick in 0usize..8,
    ) {
        let mut c = core(a5, pol);
        let scale = [1.0f32, 0.5, -0.25, 3.0e-5, 1.0e-3, f32::NAN, 7.5, 1.0e6][scale_pick];
        let s0 = c.alloc(TileDesc::vec(ElemType::I32, vr, 32).valid(vr, vc).at(0)).unwrap();
        let s1 = c.alloc(TileDesc::vec(ElemType::I32, vr, 32).valid(vr, vc).at(0x1000)).unwrap();
        let tmp = c.alloc(TileDesc::vec(ElemType::I32, vr, 32).at(0x2000)).unwrap();
        let d = c.alloc(TileDesc::vec(ElemType::F16, vr, 32).valid(vr, vc).at(0x3000)).unwrap();
        let before: Vec<i32> = c.read_valid(&tmp).unwrap();
        let v = |x: i32| if small { x >> 16 } else { x };
        for r in 0..vr {
            for k in 0..vc {
                c.set_bits(&s0, r, k, v(a[r * vc + k]) as u32 as u64).unwrap();
                c.set_bits(&s1, r, k, v(b[r * vc + k]) as u32 as u64).unwrap();
            }
        }
        c.exec(&TileOp { op: OpCode::Tadddeqrelu, args: Args::AddDeqRelu { dst: d, src0: s0, src1: s1, scale: Scalar::Float(scale as f64), tmp } }).unwrap();
        let after: Vec<i32> = c.read_valid(&tmp).unwrap();
        for r in 0..vr {
            for k in 0..vc {
                let (x, y) = (v(a[r * vc + k]), v(b[r * vc + k]));
                let want = model_deq(x, y, scale, POLICIES[pol]) as u64;
                let got = c.get_bits(&d, r, k).unwrap();
                prop_assert!(same(ElemType::F16, got, want), "({}, {}) {} + {} by {}: got {:#x} want {:#x}", r, k, x, y, scale, got, want);
                let staged = after[r * 32 + k];
                if a5 {
                    prop_assert_eq!(staged, before[r * 32 + k]);
                } else {
                    prop_assert_eq!(staged, x.wrapping_add(y));
                }
            }
        }
    }
}

#[test]
fn fused_worked_values() {
    // 1.5 + 2.25 -> 3.75 half; -1 + 0.5 -> 0; 65504 + 65504 -> 65504 (saturating).
    let mut c = TileCore::by_name("a2a3").unwrap();
    let s0 = c
        .alloc(TileDesc::vec(ElemType::F32, 1, 8).valid(1, 3).at(0))
        .unwrap();
    let s1 = c
        .alloc(TileDesc::vec(ElemType::F32, 1, 8).valid(1, 3).at(0x100))
        .unwrap();
    let d = c
        .alloc(TileDesc::vec(ElemType::F16, 1, 16).valid(1, 3).at(0x200))
        .unwrap();
    for (k, (x, y)) in [(1.5f32, 2.25f32), (-1.0, 0.5), (65504.0, 65504.0)]
        .iter()
        .enumerate()
    {
        c.set_bits(&s0, 0, k, x.to_bits() as u64).unwrap();
        c.set_bits(&s1, 0, k, y.to_bits() as u64).unwrap();
    }
    c.taddreluconv(&d, &s0, &s1).unwrap();
    let got: Vec<u64> = (0..3).map(|k| c.get_bits(&d, 0, k).unwrap()).collect();
    assert_eq!(got, vec![0x4380, 0, 0x7bff]);
    // TADDDEQRELU: (100 + 28) * 0.5 = 64; (-5 + 1) * 2 -> 0.
    let a = c
        .alloc(TileDesc::vec(ElemType::I32, 1, 8).valid(1, 2).at(0x300))
        .unwrap();
    let b = c
        .alloc(TileDesc::vec(ElemType::I32, 1, 8).valid(1, 2).at(0x400))
        .unwrap();
    let tmp = c
        .alloc(TileDesc::vec(ElemType::I32, 1, 8).at(0x500))
        .unwrap();
    let h = c
        .alloc(TileDesc::vec(ElemType::F16, 1, 16).valid(1, 2).at(0x600))
        .unwrap();
    c.set_bits(&a, 0, 0, 100).unwrap();
    c.set_bits(&b, 0, 0, 28).unwrap();
    c.set_bits(&a, 0, 1, (-5i32) as u32 as u64).unwrap();
    c.set_bits(&b, 0, 1, 1).unwrap();
    c.tadddeqrelu(&h, &a, &b, 0.5, &tmp).unwrap();
    assert_eq!(c.get_bits(&h, 0, 0).unwrap(), 0x5400); // 64.0
    c.tadddeqrelu(&h, &a, &b, 2.0, &tmp).unwrap();
    assert_eq!(c.get_bits(&h, 0, 1).unwrap(), 0);
}

#[test]
fn fused_restrictions() {
    let mut c = TileCore::by_name("a5").unwrap();
    let t = |c: &TileCore, ty, vr, vc, at| {
        c.alloc(TileDesc::vec(ty, 4, 32).valid(vr, vc).at(at))
            .unwrap()
    };
    let f = ElemType::F32;
    let (a, b) = (t(&c, f, 4, 32, 0), t(&c, f, 4, 32, 0x1000));
    let h = t(&c, ElemType::F16, 4, 32, 0x2000);
    let conv = |c: &mut TileCore, d, a, b| c.taddreluconv(&d, &a, &b).unwrap_err().to_string();
    // Pair outside the page's list (float -> int8).
    let i8t = t(&c, ElemType::I8, 4, 32, 0x3000);
    let e = conv(&mut c, i8t, a, b);
    assert!(
        e.contains("float -> int8") && e.contains("legal: float -> half"),
        "{e}"
    );
    // Source type outside the list (int32).
    let (i0, i1) = (
        t(&c, ElemType::I32, 4, 32, 0x4000),
        t(&c, ElemType::I32, 4, 32, 0x5000),
    );
    let e = conv(&mut c, h, i0, i1);
    assert!(e.contains("src0 element type int32 is not legal"), "{e}");
    // Sources of different types.
    let hs = t(&c, ElemType::F16, 4, 32, 0x6000);
    let e = conv(&mut c, h, a, hs);
    assert!(e.contains("src1") && e.contains("must equal"), "{e}");
    // Valid shapes differ.
    let small = t(&c, f, 3, 32, 0x7000);
    let e = conv(&mut c, h, a, small);
    assert!(e.contains("src1 valid region") && e.contains("3x32"), "{e}");
    // Empty valid region.
    let (z0, z1, zd) = (
        t(&c, f, 0, 32, 0x8000),
        t(&c, f, 0, 32, 0x9000),
        t(&c, ElemType::F16, 0, 32, 0xa000),
    );
    let e = conv(&mut c, zd, z0, z1);
    assert!(e.contains("must be positive"), "{e}");
    // Column-major, non-Vec.
    let cm = c
        .alloc(
            TileDesc::vec(f, 32, 32)
                .layout(BLayout::ColMajor, SLayout::NoneBox)
                .valid(4, 32)
                .at(0xb000),
        )
        .unwrap();
    let e = conv(&mut c, h, a, cm);
    assert!(e.contains("row-major"), "{e}");
    let m = c
        .alloc(TileDesc::new(TileLoc::Mat, ElemType::F16, 16, 32).at(0))
        .unwrap();
    let e = conv(&mut c, m, a, b);
    assert!(e.contains("dst") && e.contains("Vec"), "{e}");
    // TADDDEQRELU: dst half, tmp int32 and large enough.
    let tmp = t(&c, ElemType::I32, 4, 32, 0xc000);
    let e = c
        .tadddeqrelu(&a, &i0, &i1, 1.0, &tmp)
        .unwrap_err()
        .to_string();
    assert!(e.contains("dst element type float is not legal"), "{e}");
    let e = c
        .tadddeqrelu(&h, &i0, &i1, 1.0, &hs)
        .unwrap_err()
        .to_string();
    assert!(e.contains("tmp element type half is not legal"), "{e}");
    let short = c
        .alloc(TileDesc::vec(ElemType::I32, 2, 32).at(0xd000))
        .unwrap();
    let e = c
        .tadddeqrelu(&h, &i0, &i1, 1.0, &short)
        .unwrap_err()
        .to_string();
    assert!(e.contains("tmp") && e.contains("at least as large"), "{e}");
    let e = c
        .tadddeqrelu(&h, &a, &b, 1.0, &tmp)
        .unwrap_err()
        .to_string();
    assert!(e.contains("src0 element type float is not legal"), "{e}");
}
