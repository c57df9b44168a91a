//! The 8-bit and 4-bit float element types of the A5 pages, with exact conversions.
//!
//! pto-isa `docs/isa/state-and-types/type-system.md` lists the A5-only element types
//! `float8_e4m3_t`, `float8_e5m2_t`, `hifloat8_t`, `float8_e8m0_t` (the MX scales of
//! `TMATMUL_MX` / `TGEMV_MX`) and the packed 4-bit `float4_e2m1x2_t` / `float4_e1m2x2_t`;
//! `docs/isa/TCVT.md` gives the conversions per arch. PTOAS spells them as MLIR does
//! (`f8E4M3FN`, `f8E5M2`, `f8E4M3`, `f8E8M0FNU`, `f4E2M1FN`); the numeric definitions and the
//! `.npy` encodings are those of `ml_dtypes` (and of `en_dtypes` for HiFloat8, which
//! `ml_dtypes` lacks). One [`F8Format`] per type; every code decodes exactly to an f32.
//!
//! | type | bits | bias | inf | NaN | largest | smallest > 0 |
//! |---|---|---|---|---|---|---|
//! | E4M3FN (`float8_e4m3fn`, A5 `float8_e4m3_t`) | s.4.3 | 7 | none | `s.1111.111` | 448 | 2^-9 |
//! | E5M2 (`float8_e5m2`) | s.5.2 | 15 | `s.11111.00` | `s.11111.xx` | 57344 | 2^-16 |
//! | E4M3 (`float8_e4m3`, IEEE-like) | s.4.3 | 7 | `s.1111.000` | `s.1111.xxx` | 240 | 2^-9 |
//! | HiF8 (`hifloat8`) | tapered | — | `s.11.0111.1` | `0x80` | 32768 | 2^-22 |
//! | E8M0FNU (`float8_e8m0fnu`) | 8.0, no sign | 127 | none | `0xff` | 2^127 | 2^-127 |
//! | E2M1FN (`float4_e2m1fn`, one code per byte) | s.2.1 | 1 | none | none | 6 | 0.5 |
//! | E1M2 (the codes of `float4_e1m2x2_t`) | s.1.2 | 1 | none | none | 1.75 | 0.25 |
//!
//! The A5's 4-bit types are packed: `float4_e2m1x2_t` and `float4_e1m2x2_t`
//! ([`ElemType::F4E2M1X2`], [`ElemType::F4E1M2X2`]) hold two codes a byte, the first in the
//! low nibble ([`unpack_pair`], [`pack_pair`]); `ml_dtypes` has neither packed type (nor
//! E1M2), so their `.npy` form is the raw pair bytes (`<V1`). E1M2 rounds like E2M1FN: to
//! nearest even (or the given mode), overflow and ±inf to ±max, and a NaN gives E2M1FN's
//! `ml_dtypes` code (`-0` for +NaN, `+0` for -NaN), one rule for both 4-bit formats.
//!
//! HiFloat8 ("Ascend HiFloat8 Format for Deep Learning"): after the sign a prefix-coded dot
//! field gives the exponent width D (`11` D=4, `10` D=3, `01` D=2, `001` D=1, `0001` D=0,
//! `0000` the denormal mode), the exponent is sign-magnitude with an implicit leading 1
//! (|e| in 2^(D-1) .. 2^D - 1), and the mantissa gets what is left of the 7 bits (1, 2, 3, 3,
//! 3 bits). The denormal codes `0.0000.mmm` are 2^(m-23), so the binades 2^-22 .. 2^-16 hold
//! one value each. Zero is `0x00` only; `0x80` is NaN. (The public CPU simulator's
//! `Hifloat8.hpp` decodes D=1 and D=0 with 4 and 5 mantissa bits, which this crate does not
//! follow: `en_dtypes`, the paper and the 3-bit width agree.)
//!
//! ## Rounding policies
//! - **Into E4M3FN, E5M2, E4M3, E2M1FN** with round-to-nearest-even ([`F8Format::from_f32`])
//!   the result equals `ml_dtypes`' `astype` for every f32 (the ignored test
//!   `f8_full_sweep` checks all 2^32 inputs against per-chunk digests of `ml_dtypes`'
//!   output). Overflow without saturation gives ±inf where the format has one, NaN for
//!   E4M3FN and ±6 for E2M1FN (`ml_dtypes`); with saturation ±max. NaN keeps its sign where
//!   the format has a signed NaN; E2M1FN has no NaN and gives `ml_dtypes`' code (`-0` for a
//!   positive NaN, `+0` for a negative one).
//! - **Into HiF8** the hardware rounds half away from zero (pto-isa A5 `TCvt.hpp` uses
//!   `ROUND_A` for every conversion into `hifloat8_t`, whatever the requested mode;
//!   asc-devkit's `asc_float2hif8` offers only `_rna` and `_rh`): [`F8Format::from_f32`] does
//!   that, equal to `en_dtypes` for every f32. A value that rounds to 1.5·2^15 or more
//!   overflows to ±inf (±32768 saturated); a value under 2^-23 becomes +0 (HiF8 has one zero).
//! - **Into E8M0FNU** (no sign, no zero): zero, negatives, inf and NaN give NaN (`0xff`);
//!   values round to the nearest power of two with ties up (`ml_dtypes`: the only mantissa
//!   bit is the implicit one). `ml_dtypes` treats f32 subnormals specially: those above
//!   2^-127 give 2^-126 and the rest 2^-127; [`F8Format::from_f32`] reproduces that
//!   (policy `MlDtypes`), [`F8Format::round_exact`] rounds them correctly.
//! - **Other rounding modes** (TRUNC, FLOOR, CEIL, ROUND, ODD) go through
//!   [`F8Format::round_exact`], which rounds the exact value once into the format's value set.

use crate::convert::{Exact, RoundMode, Saturation};
use crate::dtype::ElemType;

/// One of the narrow float formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum F8Format {
    /// 4 exponent bits (bias 7), 3 mantissa bits, no infinities, NaN = `S.1111.111`, largest
    /// finite 448 (`float8_e4m3fn`, MLIR `f8E4M3FN`; the A5 `float8_e4m3_t`).
    E4M3FN,
    /// IEEE-like: 5 exponent bits (bias 15), 2 mantissa bits, ±inf, NaN; largest 57344
    /// (`float8_e5m2`, MLIR `f8E5M2`).
    E5M2,
    /// IEEE-like: 4 exponent bits (bias 7), 3 mantissa bits, ±inf, NaN; largest 240
    /// (`float8_e4m3`, MLIR `f8E4M3`).
    E4M3,
    /// Huawei's tapered HiFloat8 (`hifloat8_t`).
    HiF8,
    /// The MX scale: an unsigned power of two 2^(code-127), `0xff` NaN (`float8_e8m0fnu`,
    /// MLIR `f8E8M0FNU`).
    E8M0,
    /// OCP MX FP4: 2 exponent bits (bias 1), 1 mantissa bit, no inf or NaN, largest 6; one code
    /// in the low nibble of a byte, as `ml_dtypes`' `float4_e2m1fn` stores it (MLIR
    /// `f4E2M1FN`).
    E2M1,
    /// 1 exponent bit (bias 1), 2 mantissa bits, no inf or NaN, largest 1.75: the codes of
    /// the A5's packed `float4_e1m2x2_t` (pto-isa CPU simulator `MXTypes.hpp`). `ml_dtypes`
    /// has no such type; it exists here only packed ([`ElemType::F4E1M2X2`]).
    E1M2,
}

impl F8Format {
    /// Every format.
    pub const ALL: [F8Format; 6] = [
        F8Format::E4M3FN,
        F8Format::E5M2,
        F8Format::E4M3,
        F8Format::HiF8,
        F8Format::E8M0,
        F8Format::E2M1,
    ];

    /// The format of an element type.
    pub const fn of(t: ElemType) -> Option<F8Format> {
        Some(match t {
            ElemType::F8E4M3FN => F8Format::E4M3FN,
            ElemType::F8E5M2 => F8Format::E5M2,
            ElemType::F8E4M3 => F8Format::E4M3,
            ElemType::HiF8 => F8Format::HiF8,
            ElemType::F8E8M0 => F8Format::E8M0,
            ElemType::F4E2M1 => F8Format::E2M1,
            _ => return None,
        })
    }

    /// The element type of this format.
    pub const fn elem_type(self) -> ElemType {
        match self {
            F8Format::E4M3FN => ElemType::F8E4M3FN,
            F8Format::E5M2 => ElemType::F8E5M2,
            F8Format::E4M3 => ElemType::F8E4M3,
            F8Format::HiF8 => ElemType::HiF8,
            F8Format::E8M0 => ElemType::F8E8M0,
            F8Format::E2M1 => ElemType::F4E2M1,
            // No unpacked element type: the packed pair.
            F8Format::E1M2 => ElemType::F4E1M2X2,
        }
    }

    /// The 4-bit format of a packed pair type (`float4_e2m1x2_t` -> E2M1,
    /// `float4_e1m2x2_t` -> E1M2).
    pub const fn of_packed(t: ElemType) -> Option<F8Format> {
        match t {
            ElemType::F4E2M1X2 => Some(F8Format::E2M1),
            ElemType::F4E1M2X2 => Some(F8Format::E1M2),
            _ => None,
        }
    }

    /// True for the 4-bit formats (a code in the low nibble).
    pub const fn is_fp4(self) -> bool {
        matches!(self, F8Format::E2M1 | F8Format::E1M2)
    }

    /// The MLIR spelling.
    pub const fn mlir_name(self) -> &'static str {
        self.elem_type().mlir_name()
    }

    /// Looks up an MLIR, `ml_dtypes` or C++ spelling (`f8E4M3FN`, `float8_e4m3fn`, ...).
    pub fn parse(name: &str) -> Option<F8Format> {
        ElemType::parse(name).and_then(F8Format::of)
    }

    /// Mantissa bits, exponent bias and the bit of the sign (IEEE-like formats).
    const fn ieee(self) -> (i32, i32, u8) {
        match self {
            F8Format::E4M3FN | F8Format::E4M3 => (3, 7, 0x80),
            F8Format::E5M2 => (2, 15, 0x80),
            F8Format::E2M1 => (1, 1, 0x08),
            F8Format::E1M2 => (2, 1, 0x08),
            F8Format::E8M0 => (0, 127, 0),
            F8Format::HiF8 => (3, 0, 0x80),
        }
    }

    /// The sign bit of a code (0 for E8M0).
    pub const fn sign_bit(self) -> u8 {
        self.ieee().2
    }

    /// The code of the NaN a conversion produces from a positive NaN (`None` for E2M1FN).
    pub const fn nan(self) -> Option<u8> {
        Some(match self {
            F8Format::E4M3FN => 0x7f,
            F8Format::E5M2 => 0x7e,
            F8Format::E4M3 => 0x7c,
            F8Format::HiF8 => 0x80,
            F8Format::E8M0 => 0xff,
            F8Format::E2M1 | F8Format::E1M2 => return None,
        })
    }

    /// The code of +inf, if the format has one.
    pub const fn inf(self) -> Option<u8> {
        match self {
            F8Format::E5M2 => Some(0x7c),
            F8Format::E4M3 => Some(0x78),
            F8Format::HiF8 => Some(0x6f),
            _ => None,
        }
    }

    /// The code of the largest finite value.
    pub const fn max_code(self) -> u8 {
        match self {
            F8Format::E4M3FN => 0x7e,
            F8Format::E5M2 => 0x7b,
            F8Format::E4M3 => 0x77,
            F8Format::HiF8 => 0x6e,
            F8Format::E8M0 => 0xfe,
            F8Format::E2M1 | F8Format::E1M2 => 0x07,
        }
    }

    /// How many codes the format has (16 for E2M1FN, whose byte keeps its code in the low
    /// nibble).
    pub const fn codes(self) -> u32 {
        match self {
            F8Format::E2M1 | F8Format::E1M2 => 16,
            _ => 256,
        }
    }

    /// True if `code` is a NaN.
    pub fn is_nan(self, code: u8) -> bool {
        self.to_f32(code).is_nan()
    }

    /// The value of a code (exact in f32). For E2M1FN only the low nibble counts.
    pub fn to_f32(self, code: u8) -> f32 {
        match self {
            F8Format::HiF8 => hif8_to_f32(code),
            F8Format::E8M0 => {
                if code == 0xff {
                    f32::NAN
                } else {
                    pow2(code as i32 - 127)
                }
            }
            _ => {
                let (m, bias, sbit) = self.ieee();
                let code = if self.is_fp4() { code & 0x0f } else { code };
                let neg = code & sbit != 0;
                let mag = code & !sbit;
                let e = (mag >> m) as i32;
                let f = (mag & ((1 << m) - 1)) as i32;
                let emax = (sbit >> m) as i32 - 1; // all-ones exponent field
                let v = match self {
                    F8Format::E4M3FN if e == emax && f == (1 << m) - 1 => f32::NAN,
                    F8Format::E5M2 | F8Format::E4M3 if e == emax => {
                        if f == 0 {
                            f32::INFINITY
                        } else {
                            f32::NAN
                        }
                    }
                    _ if e == 0 => f as f32 * pow2(1 - bias - m),
                    _ => (f + (1 << m)) as f32 * pow2(e - bias - m),
                };
                if neg { -v } else { v }
            }
        }
    }

    /// The exact value of a code, for the reference conversion.
    pub fn to_exact(self, code: u8) -> Exact {
        Exact::from_float_bits(
            self.to_f32(code).to_bits() as u64,
            crate::convert::FloatFormat::F32,
        )
    }

    /// f32 to this format as `ml_dtypes` (`en_dtypes` for HiF8) converts: round to nearest
    /// even (half away from zero for HiF8, as the A5 hardware), the overflow, NaN and zero
    /// rules of the module docs; `Saturation::On` clamps overflow and ±inf to ±max.
    pub fn from_f32(self, v: f32, sat: Saturation) -> u8 {
        if self == F8Format::E8M0 && v > 0.0 && v.is_subnormal() {
            // ml_dtypes' subnormal-source path (policy `MlDtypes`): the f32 fraction rounds
            // to 0 or 1 ulp of 2^-126.
            return u8::from(v > pow2(-127));
        }
        let mode = if self == F8Format::HiF8 {
            RoundMode::Round
        } else {
            RoundMode::Rint
        };
        self.round_exact(
            Exact::from_float_bits(v.to_bits() as u64, crate::convert::FloatFormat::F32),
            mode,
            sat,
        )
    }

    /// Rounds an exact value once into the format with `mode`; the special-value rules of
    /// the module docs. Overflow under RINT/ROUND (and FLOOR/CEIL in their direction) gives
    /// the format's overflow code (inf, NaN or max); under TRUNC, ODD and the other
    /// direction ±max; with saturation always ±max.
    pub fn round_exact(self, x: Exact, mode: RoundMode, sat: Saturation) -> u8 {
        let sbit = self.sign_bit();
        let nan = self.nan();
        // Overflow code, without sign.
        let overflow_code = |sat: Saturation| -> u8 {
            match (sat, self.inf(), nan) {
                (Saturation::On, _, _) => self.max_code(),
                (Saturation::Off, Some(inf), _) => inf,
                (Saturation::Off, None, Some(n)) => n,
                _ => self.max_code(),
            }
        };
        let (neg, mant, exp) = match x {
            Exact::NaN { neg } => {
                return match (self, nan) {
                    (F8Format::E2M1 | F8Format::E1M2, _) => {
                        if neg {
                            0x00
                        } else {
                            0x08
                        }
                    }
                    (F8Format::HiF8 | F8Format::E8M0, Some(n)) => n,
                    (_, Some(n)) => n | if neg { sbit } else { 0 },
                    (_, None) => 0,
                };
            }
            Exact::Inf { neg } => {
                if self == F8Format::E8M0 {
                    return if sat == Saturation::On && !neg {
                        self.max_code()
                    } else {
                        0xff
                    };
                }
                let c = overflow_code(sat);
                return if neg { c | sbit } else { c };
            }
            Exact::Finite { neg, mant, exp } => (neg, mant, exp),
        };
        let sign = if neg { sbit } else { 0 };
        if self == F8Format::E8M0 && (neg || mant == 0) {
            return 0xff;
        }
        if mant == 0 {
            return if self == F8Format::HiF8 { 0 } else { sign };
        }
        // The binade of the exact value.
        let msb = 63 - mant.leading_zeros() as i32;
        let e = msb + exp;
        let (emin, emax) = self.binades();
        if e > emax + 1 {
            return self.overflow(neg, mode, sat, overflow_code(sat));
        }
        let eb = e.max(emin);
        let q = eb - self.precision(eb); // exponent of one quantum
        let shift = q - exp;
        let k = crate::convert::round_scaled(mant, shift, neg, mode);
        if k == 0 {
            return match self {
                F8Format::HiF8 => 0,
                // No zero: the smallest value.
                F8Format::E8M0 => 0,
                _ => sign,
            };
        }
        // Normalise k·2^q to (binade, fraction).
        let kb = 127 - k.leading_zeros() as i32;
        let e2 = kb + q;
        if e2 > emax || self.above_max(e2, k, q) {
            return self.overflow(neg, mode, sat, overflow_code(sat));
        }
        if e2 < emin {
            // Subnormal (IEEE-like) / below the smallest binade.
            return match self {
                F8Format::HiF8 | F8Format::E8M0 => 0, // unreachable: q is the last binade's
                _ => sign | k as u8,
            };
        }
        let p = self.precision(e2);
        // Drop the leading bit; keep p fraction bits.
        let frac = if kb >= p {
            (k >> (kb - p)) as u32 & ((1u32 << p) - 1)
        } else {
            ((k << (p - kb)) as u32) & ((1u32 << p) - 1)
        };
        self.encode(neg, e2, frac)
    }

    /// The binades the format's normal values span (for HiF8: every code).
    const fn binades(self) -> (i32, i32) {
        match self {
            F8Format::E4M3FN => (-6, 8),
            F8Format::E4M3 => (-6, 7),
            F8Format::E5M2 => (-14, 15),
            F8Format::E2M1 => (0, 2),
            F8Format::E1M2 => (0, 0),
            F8Format::E8M0 => (-127, 127),
            F8Format::HiF8 => (-22, 15),
        }
    }

    /// Fraction bits of the values in binade `e` (within [`Self::binades`]).
    const fn precision(self, e: i32) -> i32 {
        match self {
            F8Format::HiF8 => {
                let a = e.abs();
                if e < -15 {
                    0
                } else if a <= 3 {
                    3
                } else if a <= 7 {
                    2
                } else {
                    1
                }
            }
            _ => self.ieee().0,
        }
    }

    /// True if `k·2^q` in the top binade lies above the largest finite value.
    fn above_max(self, e2: i32, k: u128, q: i32) -> bool {
        let (_, emax) = self.binades();
        if e2 < emax {
            return false;
        }
        let max = self.to_f32(self.max_code()) as f64;
        let v = k as f64 * 2f64.powi(q);
        v > max
    }

    fn overflow(self, neg: bool, mode: RoundMode, sat: Saturation, code: u8) -> u8 {
        let to_far = sat == Saturation::Off
            && match mode {
                RoundMode::Rint | RoundMode::Round => true,
                RoundMode::Floor => neg,
                RoundMode::Ceil => !neg,
                RoundMode::Trunc | RoundMode::Odd => false,
            };
        let c = if to_far { code } else { self.max_code() };
        if neg { c | self.sign_bit() } else { c }
    }

    /// The code of `±2^e · 1.frac` (frac has `precision(e)` bits).
    fn encode(self, neg: bool, e: i32, frac: u32) -> u8 {
        let sign = if neg { self.sign_bit() } else { 0 };
        match self {
            F8Format::E8M0 => (e + 127) as u8,
            F8Format::HiF8 => {
                let f = frac as u8;
                let es = u8::from(e < 0);
                let a = e.unsigned_abs() as u8;
                let payload = if e < -15 {
                    (e + 23) as u8 // denormal mode 2^(m-23)
                } else if a == 0 {
                    0x08 | f // 0.0001.mmm
                } else if a == 1 {
                    0x10 | (es << 3) | f // 0.001.e.mmm
                } else if a <= 3 {
                    0x20 | (es << 4) | ((a - 2) << 3) | f // 0.01.ee.mmm
                } else if a <= 7 {
                    0x40 | (es << 4) | ((a - 4) << 2) | f // 0.10.eee.mm
                } else {
                    0x60 | (es << 4) | ((a - 8) << 1) | f // 0.11.eeee.m
                };
                sign | payload
            }
            _ => {
                let (m, bias, _) = self.ieee();
                sign | (((e + bias) as u8) << m) | frac as u8
            }
        }
    }
}

/// The two codes of a packed 4-bit pair byte: `[low nibble, high nibble]` (the first element
/// of the pair is the low nibble, as the pto-isa CPU simulator's `GetProperDataPart` reads
/// element `2k` and `2k + 1` of a `float4_e2m1x2_t` buffer).
pub const fn unpack_pair(b: u8) -> [u8; 2] {
    [b & 0x0f, b >> 4]
}

/// The byte of a packed 4-bit pair (inverse of [`unpack_pair`]; only the low nibbles count).
pub const fn pack_pair(first: u8, second: u8) -> u8 {
    (first & 0x0f) | (second << 4)
}

/// 2^e as an f32 (exact for -149 <= e <= 127).
fn pow2(e: i32) -> f32 {
    (2f64).powi(e) as f32
}

fn hif8_to_f32(code: u8) -> f32 {
    if code == 0x80 {
        return f32::NAN;
    }
    let neg = code & 0x80 != 0;
    let p = code & 0x7f;
    let (e, frac, m) = if p >> 5 == 0b11 {
        let es = (p >> 4) & 1;
        let a = 8 + ((p >> 1) & 0x7) as i32;
        if es == 0 && a == 15 && p & 1 == 1 {
            return if neg {
                f32::NEG_INFINITY
            } else {
                f32::INFINITY
            };
        }
        (if es == 1 { -a } else { a }, (p & 1) as i32, 1)
    } else if p >> 5 == 0b10 {
        let a = 4 + ((p >> 2) & 0x3) as i32;
        (if (p >> 4) & 1 == 1 { -a } else { a }, (p & 3) as i32, 2)
    } else if p >> 5 == 0b01 {
        let a = 2 + ((p >> 3) & 1) as i32;
        (if (p >> 4) & 1 == 1 { -a } else { a }, (p & 7) as i32, 3)
    } else if p >> 4 == 0b001 {
        (if (p >> 3) & 1 == 1 { -1 } else { 1 }, (p & 7) as i32, 3)
    } else if p >> 3 == 0b0001 {
        (0, (p & 7) as i32, 3)
    } else {
        // Denormal mode: 2^(m - 23); m = 0 is zero.
        let m = (p & 7) as i32;
        let v = if m == 0 { 0.0 } else { pow2(m - 23) };
        return if neg { -v } else { v };
    };
    let v = ((1 << m) + frac) as f32 * pow2(e - m);
    if neg { -v } else { v }
}

macro_rules! f8_storage {
    ($(#[$doc:meta])* $name:ident, $t:ident) => {
        $(#[$doc])*
        #[repr(transparent)]
        #[derive(
            Clone, Copy, Default, PartialEq, Eq, Hash, Debug, bytemuck::Pod, bytemuck::Zeroable,
        )]
        pub struct $name(pub u8);

        impl $name {
            /// The format.
            pub const FORMAT: F8Format = F8Format::$t;
            /// The value (exact).
            pub fn to_f32(self) -> f32 {
                F8Format::$t.to_f32(self.0)
            }
            /// From f32, as `ml_dtypes` converts (see [`F8Format::from_f32`]).
            pub fn from_f32(v: f32) -> Self {
                $name(F8Format::$t.from_f32(v, Saturation::Off))
            }
        }

        impl crate::dtype::Element for $name {
            const TYPE: ElemType = F8Format::$t.elem_type();
            #[inline]
            fn to_f64(self) -> f64 {
                self.to_f32() as f64
            }
            #[inline]
            fn to_bits_u64(self) -> u64 {
                self.0 as u64
            }
            #[inline]
            fn from_bits_u64(bits: u64) -> Self {
                $name(bits as u8)
            }
        }
    };
}

f8_storage!(
    /// A `float8_e4m3fn` element (MLIR `f8E4M3FN`).
    F8E4M3FN,
    E4M3FN
);
f8_storage!(
    /// A `float8_e5m2` element (MLIR `f8E5M2`).
    F8E5M2,
    E5M2
);
f8_storage!(
    /// A `float8_e4m3` element (MLIR `f8E4M3`, IEEE-like).
    F8E4M3,
    E4M3
);
f8_storage!(
    /// A `hifloat8_t` element.
    HiF8,
    HiF8
);
f8_storage!(
    /// A `float8_e8m0fnu` element (MLIR `f8E8M0FNU`).
    F8E8M0,
    E8M0
);
f8_storage!(
    /// A `float4_e2m1fn` element, one per byte (MLIR `f4E2M1FN`).
    F4E2M1,
    E2M1
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_round_trips() {
        for f in F8Format::ALL {
            for c in 0..f.codes() {
                let c = c as u8;
                let v = f.to_f32(c);
                let back = f.from_f32(v, Saturation::Off);
                if v.is_nan() {
                    assert!(f.to_f32(back).is_nan(), "{f:?} {c:#x}");
                } else if f == F8Format::HiF8 || v != 0.0 {
                    assert_eq!(back, c, "{f:?} {c:#x} = {v}");
                } else {
                    assert_eq!(f.to_f32(back).to_bits(), v.to_bits(), "{f:?} {c:#x}");
                }
                // Every mode leaves a representable value alone.
                if !v.is_nan() {
                    for m in RoundMode::ALL {
                        let r = f.round_exact(f.to_exact(c), m, Saturation::Off);
                        assert_eq!(f.to_f32(r).to_bits(), v.to_bits(), "{f:?} {c:#x} {m:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn named_values() {
        assert_eq!(F8Format::E4M3FN.to_f32(0x7e), 448.0);
        assert_eq!(F8Format::E5M2.to_f32(0x7b), 57344.0);
        assert_eq!(F8Format::E4M3.to_f32(0x77), 240.0);
        assert_eq!(F8Format::HiF8.to_f32(0x6e), 32768.0);
        assert_eq!(F8Format::HiF8.to_f32(0x01), pow2(-22));
        assert_eq!(F8Format::HiF8.to_f32(0x7e), pow2(-15));
        assert_eq!(F8Format::HiF8.to_f32(0x6f), f32::INFINITY);
        assert_eq!(F8Format::E8M0.to_f32(0x7f), 1.0);
        assert_eq!(F8Format::E8M0.to_f32(0x00), pow2(-127));
        assert_eq!(F8Format::E2M1.to_f32(0x07), 6.0);
        assert_eq!(F8Format::E2M1.to_f32(0x01), 0.5);
        assert_eq!(F8Format::E4M3FN.from_f32(464.0, Saturation::Off), 0x7e);
        assert_eq!(F8Format::E4M3FN.from_f32(465.0, Saturation::Off), 0x7f);
        assert_eq!(F8Format::E4M3FN.from_f32(1e9, Saturation::On), 0x7e);
        assert_eq!(F8Format::E5M2.from_f32(61440.0, Saturation::Off), 0x7c);
        assert_eq!(
            F8Format::E5M2.from_f32(-f32::INFINITY, Saturation::On),
            0xfb
        );
        // HiF8 ties away: 1.0625 lies between 1.0 and 1.125.
        assert_eq!(F8Format::HiF8.from_f32(1.0625, Saturation::Off), 0x09);
        assert_eq!(F8Format::HiF8.from_f32(40960.0, Saturation::Off), 0x6f);
        assert_eq!(F8Format::HiF8.from_f32(40959.0, Saturation::Off), 0x6e);
        assert_eq!(F8Format::HiF8.from_f32(40960.0, Saturation::On), 0x6e);
        assert_eq!(F8Format::parse("f8E4M3FN"), Some(F8Format::E4M3FN));
        assert_eq!(F8Format::parse("float8_e8m0fnu"), Some(F8Format::E8M0));
    }

    #[test]
    fn e1m2_codes_and_pairs() {
        let f = F8Format::E1M2;
        let mags = [0.0f32, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75];
        for c in 0..16u8 {
            let v = mags[usize::from(c & 7)];
            let v = if c & 8 != 0 { -v } else { v };
            assert_eq!(f.to_f32(c).to_bits(), v.to_bits(), "{c:#x}");
            assert_eq!(f.from_f32(v, Saturation::Off), c, "{c:#x}");
            for m in RoundMode::ALL {
                assert_eq!(f.round_exact(f.to_exact(c), m, Saturation::Off), c, "{m:?}");
            }
        }
        // Ties to the even code, overflow and inf to max, NaN as E2M1FN.
        assert_eq!(f.from_f32(0.125, Saturation::Off), 0x00);
        assert_eq!(f.from_f32(0.375, Saturation::Off), 0x02);
        assert_eq!(f.from_f32(1.125, Saturation::Off), 0x04);
        assert_eq!(f.from_f32(1.875, Saturation::Off), 0x07);
        assert_eq!(f.from_f32(-100.0, Saturation::Off), 0x0f);
        assert_eq!(f.from_f32(f32::INFINITY, Saturation::Off), 0x07);
        assert_eq!(f.from_f32(f32::NAN, Saturation::Off), 0x08);
        assert_eq!(f.from_f32(-f32::NAN, Saturation::Off), 0x00);
        assert_eq!(f.codes(), 16);
        // Pairs: the first code in the low nibble.
        assert_eq!(unpack_pair(0x9f), [0x0f, 0x09]);
        assert_eq!(pack_pair(0x0f, 0x09), 0x9f);
        for b in 0..=255u8 {
            let [lo, hi] = unpack_pair(b);
            assert_eq!(pack_pair(lo, hi), b);
        }
        assert_eq!(
            F8Format::of_packed(ElemType::F4E2M1X2),
            Some(F8Format::E2M1)
        );
        assert_eq!(
            F8Format::of_packed(ElemType::F4E1M2X2),
            Some(F8Format::E1M2)
        );
        assert_eq!(F8Format::of_packed(ElemType::F4E2M1), None);
        assert_eq!(F8Format::of(ElemType::F4E2M1X2), None);
    }

    #[test]
    fn directed_modes() {
        let f = F8Format::E4M3FN;
        let x = Exact::from_f64(1.0 + 1.0 / 32.0); // between 1.0 and 1.125, nearer 1.0
        assert_eq!(f.round_exact(x, RoundMode::Rint, Saturation::Off), 0x38);
        assert_eq!(f.round_exact(x, RoundMode::Ceil, Saturation::Off), 0x39);
        assert_eq!(f.round_exact(x, RoundMode::Odd, Saturation::Off), 0x39);
        let y = Exact::from_f64(-(1.0 + 1.0 / 32.0));
        assert_eq!(f.round_exact(y, RoundMode::Floor, Saturation::Off), 0xb9);
        assert_eq!(f.round_exact(y, RoundMode::Trunc, Saturation::Off), 0xb8);
        // Overflow: TRUNC gives max, RINT NaN (E4M3FN has no inf), saturation max.
        let big = Exact::from_f64(1000.0);
        assert_eq!(f.round_exact(big, RoundMode::Trunc, Saturation::Off), 0x7e);
        assert_eq!(f.round_exact(big, RoundMode::Rint, Saturation::Off), 0x7f);
        assert_eq!(
            F8Format::E5M2.round_exact(big, RoundMode::Rint, Saturation::Off),
            0x64 // 1024: 1000 lies nearer 1024 than 896
        );
    }
}
