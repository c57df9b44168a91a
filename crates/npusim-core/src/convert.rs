//! Numeric conversion between element types: rounding modes and saturation.
//!
//! This is the one place where values change type. It implements the rounding modes that Ascend
//! C `RoundMode` and PTO `TCVT` name (CAST_RINT, CAST_ROUND, CAST_FLOOR, CAST_CEIL, CAST_TRUNC,
//! CAST_ODD; CAST_NONE is RINT for a lossy conversion), following asc-devkit
//! `数据结构/precision_conversion.md` and pto-isa `docs/isa/TCVT.md` (see
//! `shared/research/ascend-vector.md` §1.7 and `pto-isa.md` §5).
//!
//! The reference path is exact: every source value is decomposed into `sign · mant · 2^exp`
//! with an integer mantissa, and [`round_to_format`] rounds that exact value once into the
//! target format. Callers with hot loops use typed fast paths (e.g. `half`'s RNE f32→f16) and
//! hold them equal to this path in property tests.
//!
//! Policies, written down:
//! - float → float overflow gives ±inf under RINT/ROUND (and under FLOOR/CEIL in the direction
//!   of the rounding), ±max otherwise; with saturation on, ±max always. inf and NaN inputs keep
//!   their class (a NaN becomes the target's canonical quiet NaN with the input's sign).
//! - float → int: NaN gives 0; with saturation on, out-of-range values clamp to the integer's
//!   range; with saturation off, the rounded value wraps modulo 2^bits (what a C cast does on
//!   the CPU simulators) and ±inf clamp.
//! - int → int: saturation clamps, otherwise the value wraps (two's complement truncation).
//! - int → float: rounded by the mode; overflow as for float → float.
//! - CAST_ODD is defined for float targets only.
//! - The narrow floats of [`crate::f8`] convert through [`F8Format::round_exact`] (their
//!   special values and overflow rules are in that module's docs).

use crate::dtype::ElemType;
pub use crate::f8::F8Format;
use thiserror::Error;

/// A rounding mode, as Ascend C `RoundMode` / PTO `RoundMode` name them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RoundMode {
    /// Nearest, ties to even (CAST_RINT; also CAST_NONE for lossy conversions).
    Rint,
    /// Nearest, ties away from zero (CAST_ROUND, C `round`).
    Round,
    /// Toward −∞ (CAST_FLOOR).
    Floor,
    /// Toward +∞ (CAST_CEIL).
    Ceil,
    /// Toward zero (CAST_TRUNC).
    Trunc,
    /// Von Neumann rounding: truncate, then set the last bit if anything was lost (CAST_ODD).
    Odd,
}

impl RoundMode {
    /// PTOAS `CAST_RINT`: the same mode as [`RoundMode::Rint`], under the dialect's name.
    #[allow(non_upper_case_globals)]
    pub const CastRint: RoundMode = RoundMode::Rint;

    /// Every mode.
    pub const ALL: [RoundMode; 6] = [
        RoundMode::Rint,
        RoundMode::Round,
        RoundMode::Floor,
        RoundMode::Ceil,
        RoundMode::Trunc,
        RoundMode::Odd,
    ];

    /// Parses `NONE`, `RINT`, `ROUND`, `FLOOR`, `CEIL`, `TRUNC`, `ODD` (any case, with or
    /// without a `CAST_` prefix) and TIK's strings (`none`, `round` = RINT in TIK!, `away-zero`,
    /// `to-zero`, `ceiling`). TIK's `round` is ties-to-even, so use [`RoundMode::parse_tik`] for
    /// TIK strings.
    pub fn parse(name: &str) -> Option<RoundMode> {
        let upper = name.trim().to_ascii_uppercase();
        let bare = upper.strip_prefix("CAST_").unwrap_or(&upper);
        Some(match bare {
            "NONE" | "RINT" => RoundMode::Rint,
            "ROUND" => RoundMode::Round,
            "FLOOR" => RoundMode::Floor,
            "CEIL" | "CEILING" => RoundMode::Ceil,
            "TRUNC" => RoundMode::Trunc,
            "ODD" => RoundMode::Odd,
            _ => return None,
        })
    }

    /// Parses TIK `vec_conv` round-mode strings.
    pub fn parse_tik(name: &str) -> Option<RoundMode> {
        Some(match name {
            "" | "none" | "round" => RoundMode::Rint,
            "away-zero" => RoundMode::Round,
            "floor" => RoundMode::Floor,
            "ceil" | "ceiling" => RoundMode::Ceil,
            "to-zero" => RoundMode::Trunc,
            "odd" => RoundMode::Odd,
            _ => return None,
        })
    }

    /// The PTO spelling (`RINT`, `ROUND`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            RoundMode::Rint => "RINT",
            RoundMode::Round => "ROUND",
            RoundMode::Floor => "FLOOR",
            RoundMode::Ceil => "CEIL",
            RoundMode::Trunc => "TRUNC",
            RoundMode::Odd => "ODD",
        }
    }
}

/// What a conversion does with values outside the target's range.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Saturation {
    /// Clamp to the target's finite range (and NaN → 0 for integer targets).
    On,
    /// IEEE overflow for floats (inf), wrap-around for integers.
    Off,
}

/// A conversion the rules do not define.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ConvertError {
    /// CAST_ODD asked for an integer target.
    #[error("round mode {mode:?} is not defined for a conversion from {src} to {dst}")]
    RoundModeNotDefined {
        mode: RoundMode,
        src: ElemType,
        dst: ElemType,
    },
}

/// A binary floating-point format: exponent and stored-mantissa widths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FloatFormat {
    pub exp_bits: u32,
    pub man_bits: u32,
}

impl FloatFormat {
    pub const F16: FloatFormat = FloatFormat {
        exp_bits: 5,
        man_bits: 10,
    };
    pub const BF16: FloatFormat = FloatFormat {
        exp_bits: 8,
        man_bits: 7,
    };
    pub const F32: FloatFormat = FloatFormat {
        exp_bits: 8,
        man_bits: 23,
    };
    pub const F64: FloatFormat = FloatFormat {
        exp_bits: 11,
        man_bits: 52,
    };

    /// The format of a float element type.
    pub const fn of(t: ElemType) -> Option<FloatFormat> {
        match t {
            ElemType::F16 => Some(Self::F16),
            ElemType::Bf16 => Some(Self::BF16),
            ElemType::F32 => Some(Self::F32),
            _ => None,
        }
    }

    const fn bias(self) -> i32 {
        (1 << (self.exp_bits - 1)) - 1
    }
    const fn exp_all_ones(self) -> u64 {
        (1 << self.exp_bits) - 1
    }
    const fn sign_bit(self) -> u64 {
        1 << (self.exp_bits + self.man_bits)
    }
    /// Bits of +inf.
    pub const fn inf(self, neg: bool) -> u64 {
        let b = self.exp_all_ones() << self.man_bits;
        if neg { b | self.sign_bit() } else { b }
    }
    /// Bits of the largest finite magnitude.
    pub const fn max_finite(self, neg: bool) -> u64 {
        let b = ((self.exp_all_ones() - 1) << self.man_bits) | ((1 << self.man_bits) - 1);
        if neg { b | self.sign_bit() } else { b }
    }
    /// Bits of the canonical quiet NaN (top mantissa bit set).
    pub const fn quiet_nan(self, neg: bool) -> u64 {
        self.inf(neg) | (1 << (self.man_bits - 1))
    }
}

/// A value decomposed exactly: `(-1)^neg · mant · 2^exp`, or a special.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Exact {
    Finite { neg: bool, mant: u64, exp: i32 },
    Inf { neg: bool },
    NaN { neg: bool },
}

impl Exact {
    /// Decomposes the bits of a value of `fmt`.
    pub fn from_float_bits(bits: u64, fmt: FloatFormat) -> Exact {
        let neg = bits & fmt.sign_bit() != 0;
        let e = (bits >> fmt.man_bits) & fmt.exp_all_ones();
        let m = bits & ((1 << fmt.man_bits) - 1);
        if e == fmt.exp_all_ones() {
            return if m == 0 {
                Exact::Inf { neg }
            } else {
                Exact::NaN { neg }
            };
        }
        let (mant, exp) = if e == 0 {
            (m, 1 - fmt.bias() - fmt.man_bits as i32)
        } else {
            (
                m | (1 << fmt.man_bits),
                e as i32 - fmt.bias() - fmt.man_bits as i32,
            )
        };
        Exact::Finite { neg, mant, exp }
    }

    /// Decomposes an f64.
    pub fn from_f64(v: f64) -> Exact {
        Exact::from_float_bits(v.to_bits(), FloatFormat::F64)
    }

    /// Decomposes an integer given as i128 (covers every integer element type).
    pub fn from_int(v: i128) -> Exact {
        Exact::Finite {
            neg: v < 0,
            mant: v.unsigned_abs() as u64,
            exp: 0,
        }
    }
}

/// Rounds an exact value into `fmt` with `mode`; returns the bit pattern.
pub fn round_to_format(x: Exact, fmt: FloatFormat, mode: RoundMode, sat: Saturation) -> u64 {
    let (neg, mant, exp) = match x {
        Exact::Inf { neg } => {
            return if sat == Saturation::On {
                fmt.max_finite(neg)
            } else {
                fmt.inf(neg)
            };
        }
        Exact::NaN { neg } => return fmt.quiet_nan(neg),
        Exact::Finite { neg, mant, exp } => (neg, mant, exp),
    };
    let sign = if neg { fmt.sign_bit() } else { 0 };
    if mant == 0 {
        return sign;
    }
    let mb = fmt.man_bits as i32;
    let emin = 1 - fmt.bias();
    let msb = 63 - mant.leading_zeros() as i32;
    let e = msb + exp; // unbiased exponent of the leading bit
    let mut q = e.max(emin) - mb; // exponent of one unit in the last place
    let shift = q - exp;
    let mut m = round_scaled(mant, shift, neg, mode);
    if m >> (mb + 1) != 0 {
        // Carry out of the significand.
        m >>= 1;
        q += 1;
    }
    let (biased, frac) = if m >> mb == 0 {
        (0u64, m as u64)
    } else {
        ((q + mb + fmt.bias()) as u64, (m as u64) & ((1 << mb) - 1))
    };
    if biased >= fmt.exp_all_ones() {
        let to_inf = sat == Saturation::Off
            && match mode {
                RoundMode::Rint | RoundMode::Round => true,
                RoundMode::Floor => neg,
                RoundMode::Ceil => !neg,
                RoundMode::Trunc | RoundMode::Odd => false,
            };
        return if to_inf {
            fmt.inf(neg)
        } else {
            fmt.max_finite(neg)
        };
    }
    sign | (biased << mb) | frac
}

/// Rounds an f64 to f16 bits, correctly (no double rounding through f32).
pub fn f64_to_f16_bits(v: f64, mode: RoundMode) -> u16 {
    round_to_format(Exact::from_f64(v), FloatFormat::F16, mode, Saturation::Off) as u16
}

/// Rounds an f64 to bf16 bits, correctly.
pub fn f64_to_bf16_bits(v: f64, mode: RoundMode) -> u16 {
    round_to_format(Exact::from_f64(v), FloatFormat::BF16, mode, Saturation::Off) as u16
}

/// Rounds an f64 to f32 with a rounding mode.
pub fn f64_to_f32(v: f64, mode: RoundMode) -> f32 {
    f32::from_bits(
        round_to_format(Exact::from_f64(v), FloatFormat::F32, mode, Saturation::Off) as u32,
    )
}

fn int_range(t: ElemType) -> (i128, i128) {
    let bits = t.bits();
    if t.is_signed_int() {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

/// Reads an integer element's bit pattern as its value.
fn int_value(bits: u64, t: ElemType) -> i128 {
    let w = t.bits();
    let masked = if w == 64 {
        bits
    } else {
        bits & ((1u64 << w) - 1)
    };
    if t.is_signed_int() && w < 128 {
        let shift = 64 - w;
        ((masked << shift) as i64 >> shift) as i128
    } else {
        masked as i128
    }
}

/// Encodes an integer value into `t`, clamping (saturation on) or wrapping.
fn int_encode(v: i128, t: ElemType, sat: Saturation) -> u64 {
    let (lo, hi) = int_range(t);
    let v = if sat == Saturation::On {
        v.clamp(lo, hi)
    } else {
        v
    };
    let w = t.bits();
    let raw = v as u128 as u64;
    if w == 64 {
        raw
    } else {
        raw & ((1u64 << w) - 1)
    }
}

/// Rounds an f64 to an integral f64 with `mode` (ODD is not defined here).
fn round_integral(v: f64, mode: RoundMode) -> f64 {
    match mode {
        RoundMode::Rint | RoundMode::Odd => v.round_ties_even(),
        RoundMode::Round => v.round(),
        RoundMode::Floor => v.floor(),
        RoundMode::Ceil => v.ceil(),
        RoundMode::Trunc => v.trunc(),
    }
}

/// Converts one element's bit pattern from `src` to `dst`: the reference conversion.
pub fn convert_bits(
    bits: u64,
    src: ElemType,
    dst: ElemType,
    mode: RoundMode,
    sat: Saturation,
) -> Result<u64, ConvertError> {
    let src_float = src.is_float() || src.is_narrow_float();
    let exact = match (FloatFormat::of(src), F8Format::of(src)) {
        (Some(f), _) => Exact::from_float_bits(bits, f),
        (None, Some(f)) => f.to_exact(bits as u8),
        (None, None) => Exact::from_int(int_value(bits, src)),
    };
    if let Some(f) = FloatFormat::of(dst) {
        return Ok(round_to_format(exact, f, mode, sat));
    }
    if let Some(f) = F8Format::of(dst) {
        return Ok(f.round_exact(exact, mode, sat) as u64);
    }
    if mode == RoundMode::Odd && src_float {
        return Err(ConvertError::RoundModeNotDefined { mode, src, dst });
    }
    let (lo, hi) = int_range(dst);
    let v: i128 = match exact {
        Exact::NaN { .. } => 0,
        Exact::Inf { neg } => {
            if neg {
                lo
            } else {
                hi
            }
        }
        Exact::Finite { neg, mant, exp } => {
            if !src_float {
                let m = mant as i128;
                if neg { -m } else { m }
            } else {
                // Float sources are at most f32: exact in f64.
                let mag = mant as f64 * 2f64.powi(exp);
                let r = round_integral(if neg { -mag } else { mag }, mode);
                if r >= 1.7e38 {
                    i128::MAX
                } else if r <= -1.7e38 {
                    i128::MIN
                } else {
                    r as i128
                }
            }
        }
    };
    Ok(int_encode(v, dst, sat))
}

/// The Ascend vector unit's float overflow mode (CTRL[48]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OverflowMode {
    /// Saturating: ±inf results become ±max and NaN becomes 0.
    Saturate,
    /// IEEE: inf and NaN pass through.
    Ieee,
}

impl OverflowMode {
    /// Applies the mode to one f32 result about to be rounded to a float of `fmt` width.
    /// Returns the value to store.
    #[inline]
    pub fn apply_f32(self, v: f32, max: f32) -> f32 {
        match self {
            OverflowMode::Ieee => v,
            OverflowMode::Saturate => {
                if v.is_nan() {
                    0.0
                } else {
                    v.clamp(-max, max)
                }
            }
        }
    }
}

/// `mant · 2^-shift` rounded to an integer in `mode` (`neg` is the sign of the value, for floor
/// and ceil; round-to-odd sets the last bit when anything was dropped). A non-positive shift is
/// exact.
pub(crate) fn round_scaled(mant: u64, shift: i32, neg: bool, mode: RoundMode) -> u128 {
    let mant = mant as u128;
    if shift <= 0 {
        return mant << (-shift) as u32;
    }
    let (mut m, rem, half) = if shift >= 127 {
        (0u128, mant, u128::MAX)
    } else {
        let s = shift as u32;
        (mant >> s, mant & ((1u128 << s) - 1), 1u128 << (s - 1))
    };
    let up = match mode {
        RoundMode::Rint => rem > half || (rem == half && m & 1 == 1),
        RoundMode::Round => rem >= half,
        RoundMode::Floor => rem != 0 && neg,
        RoundMode::Ceil => rem != 0 && !neg,
        RoundMode::Trunc => false,
        RoundMode::Odd => {
            if rem != 0 {
                m |= 1;
            }
            false
        }
    };
    if up {
        m += 1;
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use half::{bf16, f16};

    #[test]
    fn exhaustive_f16_to_f32_and_back_is_identity() {
        for b in 0..=u16::MAX {
            let x = f16::from_bits(b);
            let up = convert_bits(
                b as u64,
                ElemType::F16,
                ElemType::F32,
                RoundMode::Rint,
                Saturation::Off,
            )
            .unwrap();
            if x.is_nan() {
                assert!(f32::from_bits(up as u32).is_nan());
                continue;
            }
            assert_eq!(f32::from_bits(up as u32), x.to_f32(), "{b:#x}");
            let down = convert_bits(
                up,
                ElemType::F32,
                ElemType::F16,
                RoundMode::Rint,
                Saturation::Off,
            )
            .unwrap();
            assert_eq!(down as u16, b);
        }
    }

    #[test]
    fn rne_matches_half_on_a_sweep_of_f32() {
        // Every 97th f32 pattern over the whole range, against half's RNE (F16C or software).
        let mut b: u32 = 0;
        while b < u32::MAX - 97 {
            let v = f32::from_bits(b);
            if !v.is_nan() {
                let want16 = f16::from_f32(v).to_bits();
                let want_b = bf16::from_f32(v).to_bits();
                let got16 = convert_bits(
                    b as u64,
                    ElemType::F32,
                    ElemType::F16,
                    RoundMode::Rint,
                    Saturation::Off,
                )
                .unwrap();
                let got_b = convert_bits(
                    b as u64,
                    ElemType::F32,
                    ElemType::Bf16,
                    RoundMode::Rint,
                    Saturation::Off,
                )
                .unwrap();
                assert_eq!(got16 as u16, want16, "f16 of {v:e} ({b:#x})");
                assert_eq!(got_b as u16, want_b, "bf16 of {v:e} ({b:#x})");
            }
            b += 97;
        }
    }

    #[test]
    fn f64_narrowing_avoids_double_rounding() {
        // The two cases half-rs gets wrong (rust-ecosystem.md §1.1).
        assert_eq!(f64_to_f16_bits(2047.4999999850988, RoundMode::Rint), 0x67ff);
        assert_eq!(
            f64_to_f16_bits(1.0 + 2f64.powi(-11) + 2f64.powi(-22), RoundMode::Rint),
            0x3c01
        );
    }

    #[test]
    fn directed_modes_on_f16() {
        let one_third = 1.0f64 / 3.0;
        let down = f64_to_f16_bits(one_third, RoundMode::Floor);
        let up = f64_to_f16_bits(one_third, RoundMode::Ceil);
        assert_eq!(up, down + 1);
        assert_eq!(f64_to_f16_bits(one_third, RoundMode::Trunc), down);
        // Odd: truncation with the sticky bit; 1/3 truncated is 0x3555 (odd already).
        assert_eq!(down, 0x3555);
        assert_eq!(f64_to_f16_bits(one_third, RoundMode::Odd), 0x3555);
        // Exactly representable values are untouched by every mode.
        for m in RoundMode::ALL {
            assert_eq!(f64_to_f16_bits(1.5, m), 0x3e00);
        }
        // Overflow: RINT → inf, TRUNC → max, saturation → max.
        assert_eq!(f64_to_f16_bits(70000.0, RoundMode::Rint), 0x7c00);
        assert_eq!(f64_to_f16_bits(70000.0, RoundMode::Trunc), 0x7bff);
        assert_eq!(f64_to_f16_bits(-70000.0, RoundMode::Floor), 0xfc00);
        assert_eq!(f64_to_f16_bits(-70000.0, RoundMode::Ceil), 0xfbff);
        assert_eq!(
            round_to_format(
                Exact::from_f64(1e9),
                FloatFormat::F16,
                RoundMode::Rint,
                Saturation::On
            ),
            0x7bff
        );
        // Ties: 2.5 in integers.
        let t = |v: f32, m| {
            convert_bits(
                v.to_bits() as u64,
                ElemType::F32,
                ElemType::I32,
                m,
                Saturation::On,
            )
            .unwrap() as u32 as i32
        };
        assert_eq!(t(2.5, RoundMode::Rint), 2);
        assert_eq!(t(2.5, RoundMode::Round), 3);
        assert_eq!(t(-2.5, RoundMode::Round), -3);
        assert_eq!(t(-2.5, RoundMode::Floor), -3);
        assert_eq!(t(-2.5, RoundMode::Ceil), -2);
        assert_eq!(t(-2.5, RoundMode::Trunc), -2);
    }

    #[test]
    fn integer_saturation_and_wrap() {
        let c = |v: u64, s, d, sat| convert_bits(v, s, d, RoundMode::Rint, sat).unwrap();
        assert_eq!(c(300, ElemType::I16, ElemType::U8, Saturation::On), 255);
        assert_eq!(
            c(300, ElemType::I16, ElemType::U8, Saturation::Off),
            300 & 0xff
        );
        assert_eq!(
            c(
                (-5i16) as u16 as u64,
                ElemType::I16,
                ElemType::U32,
                Saturation::On
            ),
            0
        );
        assert_eq!(
            c(
                (-5i16) as u16 as u64,
                ElemType::I16,
                ElemType::I32,
                Saturation::On
            ),
            (-5i32) as u32 as u64
        );
        let nan = f32::NAN.to_bits() as u64;
        assert_eq!(c(nan, ElemType::F32, ElemType::I32, Saturation::On), 0);
        let big = 3e9f32.to_bits() as u64;
        assert_eq!(
            c(big, ElemType::F32, ElemType::I32, Saturation::On),
            i32::MAX as u64
        );
        assert_eq!(
            c(big, ElemType::F32, ElemType::I32, Saturation::Off),
            3_000_000_000u64
        );
        // int → float rounding: 2^24 + 1 does not fit f32.
        assert_eq!(
            c((1 << 24) + 1, ElemType::I32, ElemType::F32, Saturation::Off),
            16777216f32.to_bits() as u64
        );
        assert_eq!(
            convert_bits(
                (1 << 24) + 1,
                ElemType::I32,
                ElemType::F32,
                RoundMode::Ceil,
                Saturation::Off
            )
            .unwrap(),
            16777218f32.to_bits() as u64
        );
        assert!(
            convert_bits(
                0,
                ElemType::F32,
                ElemType::I8,
                RoundMode::Odd,
                Saturation::On
            )
            .is_err()
        );
    }
}
