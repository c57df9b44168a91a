//! The A5 8-bit float tiles (`float8_e4m3_t` = E4M3FN, `float8_e5m2_t`, `hifloat8_t`,
//! `float8_e8m0_t`): TCVT to and from f32 (and half -> hifloat8), TLOAD / TSTORE with padding,
//! against plain scalar models written here:
//! - decoding: the bit fields of each format read by hand (IEEE-like sign/exponent/mantissa;
//!   HiFloat8's dot field, sign-magnitude exponent and denormal mode as the paper lays them out);
//! - encoding: a search over every code's value (nearest, ties to the even code; hifloat8
//!   ties away from zero as the A5 always rounds into it), directed modes as "the nearest
//!   value on the right side", overflow and specials per the crate docs.

use npusim_pto::*;
use proptest::prelude::*;

const E4M3: ElemType = ElemType::F8E4M3FN;
const E5M2: ElemType = ElemType::F8E5M2;
const H8: ElemType = ElemType::HiF8;
const E8M0: ElemType = ElemType::F8E8M0;

/// The value of a code, read from its bit fields.
fn model_decode(t: ElemType, c: u8) -> f64 {
    let neg = c & 0x80 != 0;
    let sgn = if neg { -1.0 } else { 1.0 };
    let p = c & 0x7f;
    match t {
        E4M3 | E5M2 => {
            let (eb, mb, bias) = if t == E4M3 { (4, 3, 7) } else { (5, 2, 15) };
            let e = (p >> mb) as i32;
            let m = (p & ((1 << mb) - 1)) as f64;
            let top = (1 << eb) - 1;
            if t == E4M3 && e == top && m as u8 == 7 {
                return f64::NAN;
            }
            if t == E5M2 && e == top {
                return if m == 0.0 {
                    sgn * f64::INFINITY
                } else {
                    f64::NAN
                };
            }
            if e == 0 {
                sgn * m / (1 << mb) as f64 * 2f64.powi(1 - bias)
            } else {
                sgn * (1.0 + m / (1 << mb) as f64) * 2f64.powi(e - bias)
            }
        }
        E8M0 => {
            if c == 0xff {
                f64::NAN
            } else {
                2f64.powi(c as i32 - 127)
            }
        }
        H8 => {
            if c == 0x80 {
                return f64::NAN;
            }
            // (prefix, its length, exponent width D): the rest is the mantissa.
            let dots = [
                (0b11u8, 2u32, 4u32),
                (0b10, 2, 3),
                (0b01, 2, 2),
                (0b001, 3, 1),
                (0b0001, 4, 0),
            ];
            for (prefix, len, d) in dots {
                if p >> (7 - len) != prefix {
                    continue;
                }
                let rest = p & ((1 << (7 - len)) - 1);
                let mb = 7 - len - d;
                let m = (rest & ((1 << mb) - 1)) as f64;
                let ef = (rest >> mb) as i32;
                let e = if d == 0 {
                    0
                } else {
                    let mag = (1 << (d - 1)) | (ef & ((1 << (d - 1)) - 1));
                    if ef >> (d - 1) == 1 { -mag } else { mag }
                };
                if d == 4 && e == 15 && m == 1.0 {
                    return sgn * f64::INFINITY;
                }
                return sgn * (1.0 + m / (1 << mb) as f64) * 2f64.powi(e);
            }
            // 0.0000.mmm: 2^(m - 23), m = 0 zero.
            let m = (p & 7) as i32;
            if m == 0 { 0.0 } else { sgn * 2f64.powi(m - 23) }
        }
        _ => unreachable!("not an 8-bit float"),
    }
}

/// Positive finite values with their codes, ascending, plus one virtual value past the
/// largest (one more step of the top spacing): reaching it is an overflow.
fn ladder(t: ElemType) -> Vec<(f64, Option<u8>)> {
    let mut v: Vec<(f64, Option<u8>)> = (0..=0x7fu8)
        .map(|c| (model_decode(t, c), Some(c)))
        .filter(|(x, _)| x.is_finite())
        .collect();
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    let n = v.len();
    // HiF8's largest value, 2^15, opens its binade (one mantissa bit): the next step is 2^14.
    let next = if t == H8 {
        49152.0
    } else {
        2.0 * v[n - 1].0 - v[n - 2].0
    };
    v.push((next, None));
    v
}

fn overflow_code(t: ElemType, sat: Saturation) -> u8 {
    match (t, sat) {
        (E4M3, Saturation::On) => 0x7e,
        (E5M2, Saturation::On) => 0x7b,
        (H8, Saturation::On) => 0x6e,
        (E4M3, Saturation::Off) => 0x7f, // NaN: no infinity
        (E5M2, Saturation::Off) => 0x7c,
        (H8, Saturation::Off) => 0x6f,
        _ => unreachable!(),
    }
}

/// f64 (an f32 or half value) into `t` by search.
fn model_encode(t: ElemType, x: f64, mode: RoundMode, sat: Saturation) -> Option<u8> {
    let mode = if t == H8 { RoundMode::Round } else { mode };
    let neg = x.is_sign_negative();
    let sign = |c: u8| {
        if neg && !(t == H8 && c == 0) {
            c | 0x80
        } else {
            c
        }
    };
    if x.is_nan() {
        return Some(match t {
            H8 => 0x80,
            E4M3 => sign(0x7f),
            _ => sign(0x7e),
        });
    }
    if x.is_infinite() {
        return Some(sign(overflow_code(t, sat)));
    }
    let a = x.abs();
    let lad = ladder(t);
    let max = lad[lad.len() - 2].0;
    let max_code = lad[lad.len() - 2].1.unwrap();
    // Index of the first ladder value >= a.
    let hi = lad.partition_point(|(v, _)| *v < a);
    let pick = if hi < lad.len() && lad[hi].0 == a {
        hi
    } else if hi == lad.len() {
        lad.len() - 1 // beyond the virtual value: overflow
    } else {
        let lo = hi - 1;
        let (dl, dh) = (a - lad[lo].0, lad[hi].0 - a);
        let away = match mode {
            RoundMode::Rint => dh < dl || (dl == dh && lad[lo].1.is_some_and(|c| c & 1 == 1)),
            RoundMode::Round => dh <= dl,
            RoundMode::Floor => neg,
            RoundMode::Ceil => !neg,
            RoundMode::Trunc => false,
            RoundMode::Odd => {
                if a > max {
                    return None; // not modelled past the largest value
                }
                lad[lo].1.is_some_and(|c| c & 1 == 0)
            }
        };
        if away { hi } else { lo }
    };
    Some(match lad[pick].1 {
        Some(c) => sign(c),
        None => {
            let far = sat == Saturation::Off
                && match mode {
                    RoundMode::Rint | RoundMode::Round => true,
                    RoundMode::Floor => neg,
                    RoundMode::Ceil => !neg,
                    _ => false,
                };
            sign(if far { overflow_code(t, sat) } else { max_code })
        }
    })
}

fn a5() -> TileCore {
    TileCore::by_name("a5").unwrap()
}

/// f32 inputs: specials, values near the formats' ranges, random patterns.
fn f32_input() -> impl Strategy<Value = f32> {
    prop_oneof![
        prop::sample::select(vec![
            0.0f32,
            -0.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            448.0,
            464.0,
            480.0,
            57344.0,
            61440.0,
            32768.0,
            40960.0,
            49152.0,
            1.0625,
            2f32.powi(-23),
            2f32.powi(-10),
            1e-45,
        ]),
        (-20.0f64..20.0).prop_map(|e| (2f64.powf(e)) as f32),
        (-20.0f64..20.0).prop_map(|e| -(2f64.powf(e)) as f32),
        any::<u32>().prop_map(f32::from_bits),
    ]
}

const MODES: [RoundMode; 6] = RoundMode::ALL;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn tcvt_f32_to_f8_matches_the_model(
        vals in prop::collection::vec(f32_input(), 4 * 32),
        vr in 1usize..=4, vc in 1usize..=32, which in 0usize..3, mode in 0usize..6, sat in any::<bool>(),
    ) {
        let dt = [E4M3, E5M2, H8][which];
        let mode = MODES[mode];
        let sat = if sat { Saturation::On } else { Saturation::Off };
        let mut core = a5();
        let src = core.alloc(TileDesc::vec(ElemType::F32, 4, 32).valid(vr, vc).at(0)).unwrap();
        let dst = core.alloc(TileDesc::vec(dt, 4, 32).valid(vr, vc).at(0x1000)).unwrap();
        let whole = dst.with_valid(4, 32).unwrap();
        core.write_valid(&whole, &[0x5au8; 128]).unwrap();
        core.write_valid(&src, &vals).unwrap();
        core.tcvt(&dst, &src, mode, sat).unwrap();
        let got: Vec<u8> = core.read_valid(&whole).unwrap();
        for r in 0..4 {
            for c in 0..32 {
                let g = got[r * 32 + c];
                if r >= vr || c >= vc {
                    prop_assert_eq!(g, 0x5a, "outside the valid region");
                    continue;
                }
                let x = vals[r * vc + c];
                if let Some(w) = model_encode(dt, x as f64, mode, sat) {
                    prop_assert_eq!(g, w, "{} of {:e} ({:#x}) {:?} {:?}", dt, x, x.to_bits(), mode, sat);
                }
            }
        }
    }

    #[test]
    fn tcvt_half_to_hifloat8_rounds_half_away(bits in prop::collection::vec(any::<u16>(), 64), mode in 0usize..6) {
        let mut core = a5();
        let src = core.alloc(TileDesc::vec(ElemType::F16, 2, 32).at(0)).unwrap();
        let dst = core.alloc(TileDesc::vec(H8, 2, 32).at(0x1000)).unwrap();
        let h: Vec<half::f16> = bits.iter().map(|b| half::f16::from_bits(*b)).collect();
        core.write_valid(&src, &h).unwrap();
        core.tcvt(&dst, &src, MODES[mode], Saturation::Off).unwrap();
        let got: Vec<u8> = core.read_valid(&dst).unwrap();
        for (g, x) in got.iter().zip(&h) {
            let w = model_encode(H8, x.to_f64(), RoundMode::Round, Saturation::Off).unwrap();
            prop_assert_eq!(*g, w, "{:e}", x.to_f64());
        }
    }

    #[test]
    fn tload_tstore_f8_with_padding(
        bytes in prop::collection::vec(any::<u8>(), 8 * 32),
        vr in 1usize..=8, vc in 1usize..=32, which in 0usize..4, pad in 0usize..4,
    ) {
        let t = [E4M3, E5M2, H8, E8M0][which];
        let pad = [PadValue::Zero, PadValue::Max, PadValue::Min, PadValue::Custom(2.0f32.to_bits())][pad];
        let mut core = a5();
        let gin = core.gm_bind(&bytes[..vr * vc]);
        let gout = core.gm_bind(&vec![0u8; vr * vc]);
        let tile = core.alloc(TileDesc::vec(t, 8, 32).valid(vr, vc).pad(pad).at(0x200)).unwrap();
        core.tload(&tile, &GlobalTensor::nd_2d(gin, t, vr, vc)).unwrap();
        let whole: Vec<u8> = core.read_valid(&tile.with_valid(8, 32).unwrap()).unwrap();
        // The pad code, from the format's values.
        let pad_code = match pad {
            PadValue::Zero => 0u8,
            PadValue::Max => match t { E4M3 => 0x7e, E5M2 => 0x7c, H8 => 0x6f, _ => 0xfe },
            PadValue::Min => match t { E4M3 => 0xfe, E5M2 => 0xfc, H8 => 0xef, _ => 0x00 },
            _ => (0..=255u8).find(|c| model_decode(t, *c) == 2.0).unwrap(),
        };
        for r in 0..8 {
            for c in 0..32 {
                let w = if r < vr && c < vc { bytes[r * vc + c] } else { pad_code };
                prop_assert_eq!(whole[r * 32 + c], w, "{} ({}, {}) {:?}", t, r, c, pad);
            }
        }
        core.tstore(&GlobalTensor::nd_2d(gout, t, vr, vc), &tile).unwrap();
        prop_assert_eq!(core.gm_read::<u8>(gout, vr * vc).unwrap(), bytes[..vr * vc].to_vec());
    }
}

#[test]
fn tcvt_f8_to_f32_is_exact_for_every_code() {
    let mut core = a5();
    for st in [E4M3, E5M2, H8] {
        let src = core.alloc(TileDesc::vec(st, 8, 32).at(0)).unwrap();
        let dst = core
            .alloc(TileDesc::vec(ElemType::F32, 8, 32).at(0x1000))
            .unwrap();
        let codes: Vec<u8> = (0..=255).collect();
        core.write_valid(&src, &codes).unwrap();
        for (mode, sat) in RoundMode::ALL
            .into_iter()
            .flat_map(|m| [(m, Saturation::Off), (m, Saturation::On)])
        {
            core.tcvt(&dst, &src, mode, sat).unwrap();
            let got: Vec<f32> = core.read_valid(&dst).unwrap();
            for (c, g) in codes.iter().zip(got) {
                let mut w = model_decode(st, *c);
                if w.is_infinite() && sat == Saturation::On {
                    // Saturation clamps an infinity to f32's largest value.
                    w = w.signum() * f32::MAX as f64;
                }
                if w.is_nan() {
                    assert!(g.is_nan(), "{st} {c:#x}");
                } else {
                    assert_eq!(g as f64, w, "{st} {c:#x}");
                    assert_eq!(g.is_sign_negative(), w.is_sign_negative(), "{st} {c:#x}");
                }
            }
        }
    }
}

#[test]
fn f8_restrictions() {
    // A2A3 has no 8-bit floats.
    let mut c = TileCore::by_name("a2a3").unwrap();
    let s = c.alloc(TileDesc::vec(ElemType::F32, 1, 32).at(0)).unwrap();
    let d = c.alloc(TileDesc::vec(E4M3, 1, 32).at(0x400)).unwrap();
    let e = c
        .tcvt(&d, &s, RoundMode::Rint, Saturation::Off)
        .unwrap_err();
    assert!(e.to_string().contains("TCVT"), "{e}");
    let g = c.gm_bind(&[0u8; 32]);
    let e = c
        .tload(&d, &GlobalTensor::nd_2d(g, E4M3, 1, 32))
        .unwrap_err();
    assert!(matches!(e, PtoError::IllegalType { .. }), "{e}");
    // A5: half -> float8_e4m3_t is not a pair (the page's note); e8m0 converts to nothing;
    // the IEEE-like f8E4M3 and the unpacked f4 are no A5 tile types.
    let mut c = a5();
    let h = c.alloc(TileDesc::vec(ElemType::F16, 1, 32).at(0)).unwrap();
    let d = c.alloc(TileDesc::vec(E4M3, 1, 32).at(0x400)).unwrap();
    let e = c
        .tcvt(&d, &h, RoundMode::Rint, Saturation::Off)
        .unwrap_err();
    assert!(matches!(e, PtoError::Unsupported { .. }), "{e}");
    assert!(e.to_string().contains("half -> "), "{e}");
    let s = c.alloc(TileDesc::vec(E8M0, 1, 32).at(0x800)).unwrap();
    let f = c
        .alloc(TileDesc::vec(ElemType::F32, 1, 32).at(0xc00))
        .unwrap();
    let e = c
        .tcvt(&f, &s, RoundMode::Rint, Saturation::Off)
        .unwrap_err();
    assert!(matches!(e, PtoError::IllegalType { .. }), "{e}");
    for t in [ElemType::F8E4M3, ElemType::F4E2M1] {
        let x = c.alloc(TileDesc::vec(t, 1, 32).at(0x1000)).unwrap();
        let g = c.gm_bind(&[0u8; 32]);
        let e = c.tload(&x, &GlobalTensor::nd_2d(g, t, 1, 32)).unwrap_err();
        assert!(matches!(e, PtoError::IllegalType { .. }), "{t}: {e}");
    }
    // No arithmetic on them: TADD of f8 tiles is a typed error.
    let a = c.alloc(TileDesc::vec(E4M3, 1, 32).at(0x1400)).unwrap();
    let e = c.tadd(&a, &a, &a).unwrap_err();
    assert!(matches!(e, PtoError::IllegalType { .. }), "{e}");
}

#[test]
fn model_spot_checks() {
    // The model itself, on values the pages and the paper name.
    assert_eq!(model_decode(E4M3, 0x7e), 448.0);
    assert_eq!(model_decode(E5M2, 0x7b), 57344.0);
    assert_eq!(model_decode(H8, 0x6e), 32768.0);
    assert_eq!(model_decode(H8, 0x08), 1.0);
    assert_eq!(model_decode(H8, 0x18), 0.5);
    assert_eq!(model_decode(H8, 0x01), 2f64.powi(-22));
    assert_eq!(model_decode(E8M0, 0x7f), 1.0);
    assert_eq!(ladder(H8).last().unwrap().0, 49152.0);
}
