//! Element types of the simulated machines.
//!
//! One enum, [`ElemType`], names every element type an instruction can take (u8 … i64, f16, bf16,
//! f32, and the narrow floats of [`crate::f8`]: f8 E4M3FN / E5M2 / E4M3, HiFloat8, E8M0, f4
//! E2M1), with the spellings of the three API faces (numpy / TIK `"float16"`, Ascend C `half`,
//! PTO-AS `f16`). The [`Element`] trait ties each type to its Rust storage type so that
//! instruction kernels can be written once, generic over the element, and monomorphised:
//! no per-element dispatch on the enum.

use half::{bf16, f16};
use std::fmt;

/// An element type, as stored in simulated memory (little-endian).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ElemType {
    U8,
    I8,
    U16,
    I16,
    U32,
    I32,
    U64,
    I64,
    F16,
    Bf16,
    F32,
    /// `float8_e4m3fn` / MLIR `f8E4M3FN` (the A5 `float8_e4m3_t`).
    F8E4M3FN,
    /// `float8_e5m2` / MLIR `f8E5M2`.
    F8E5M2,
    /// `float8_e4m3` / MLIR `f8E4M3` (IEEE-like, with infinities).
    F8E4M3,
    /// `hifloat8_t`.
    HiF8,
    /// `float8_e8m0fnu` / MLIR `f8E8M0FNU` (MX scales).
    F8E8M0,
    /// `float4_e2m1fn` / MLIR `f4E2M1FN`, one code per byte (as `ml_dtypes` stores it).
    F4E2M1,
    /// `float4_e2m1x2_t`: a byte holding two E2M1 codes, the first in the low nibble (see
    /// [`crate::f8::unpack_pair`]). One element is the pair.
    F4E2M1X2,
    /// `float4_e1m2x2_t`: a byte holding two E1M2 codes ([`crate::f8::F8Format::E1M2`]), the
    /// first in the low nibble. One element is the pair.
    F4E1M2X2,
}

impl ElemType {
    /// Every element type, in declaration order.
    pub const ALL: [ElemType; 19] = [
        ElemType::U8,
        ElemType::I8,
        ElemType::U16,
        ElemType::I16,
        ElemType::U32,
        ElemType::I32,
        ElemType::U64,
        ElemType::I64,
        ElemType::F16,
        ElemType::Bf16,
        ElemType::F32,
        ElemType::F8E4M3FN,
        ElemType::F8E5M2,
        ElemType::F8E4M3,
        ElemType::HiF8,
        ElemType::F8E8M0,
        ElemType::F4E2M1,
        ElemType::F4E2M1X2,
        ElemType::F4E1M2X2,
    ];

    /// The 11 types with arithmetic (integers, f16, bf16, f32): [`ElemType::ALL`] without the
    /// narrow floats.
    pub const ARITH: [ElemType; 11] = [
        ElemType::U8,
        ElemType::I8,
        ElemType::U16,
        ElemType::I16,
        ElemType::U32,
        ElemType::I32,
        ElemType::U64,
        ElemType::I64,
        ElemType::F16,
        ElemType::Bf16,
        ElemType::F32,
    ];

    /// The narrow float types of [`crate::f8`].
    pub const NARROW_FLOATS: [ElemType; 6] = [
        ElemType::F8E4M3FN,
        ElemType::F8E5M2,
        ElemType::F8E4M3,
        ElemType::HiF8,
        ElemType::F8E8M0,
        ElemType::F4E2M1,
    ];

    /// Size of one element in bytes.
    pub const fn size(self) -> usize {
        match self {
            ElemType::U8
            | ElemType::I8
            | ElemType::F8E4M3FN
            | ElemType::F8E5M2
            | ElemType::F8E4M3
            | ElemType::HiF8
            | ElemType::F8E8M0
            | ElemType::F4E2M1
            | ElemType::F4E2M1X2
            | ElemType::F4E1M2X2 => 1,
            ElemType::U16 | ElemType::I16 | ElemType::F16 | ElemType::Bf16 => 2,
            ElemType::U32 | ElemType::I32 | ElemType::F32 => 4,
            ElemType::U64 | ElemType::I64 => 8,
        }
    }

    /// Width in bits.
    pub const fn bits(self) -> u32 {
        self.size() as u32 * 8
    }

    /// True for f16, bf16 and f32: the float types with arithmetic. The narrow floats answer
    /// false here (see [`ElemType::is_narrow_float`]).
    pub const fn is_float(self) -> bool {
        matches!(self, ElemType::F16 | ElemType::Bf16 | ElemType::F32)
    }

    /// True for the 8- and 4-bit floats of [`crate::f8`] (storage and conversion types).
    pub const fn is_narrow_float(self) -> bool {
        matches!(
            self,
            ElemType::F8E4M3FN
                | ElemType::F8E5M2
                | ElemType::F8E4M3
                | ElemType::HiF8
                | ElemType::F8E8M0
                | ElemType::F4E2M1
        )
    }

    /// True for the packed pairs of 4-bit floats (`float4_e2m1x2_t`, `float4_e1m2x2_t`):
    /// storage types whose element is two codes (not narrow floats of one code).
    pub const fn is_packed_fp4(self) -> bool {
        matches!(self, ElemType::F4E2M1X2 | ElemType::F4E1M2X2)
    }

    /// True for the signed integer types.
    pub const fn is_signed_int(self) -> bool {
        matches!(
            self,
            ElemType::I8 | ElemType::I16 | ElemType::I32 | ElemType::I64
        )
    }

    /// True for the unsigned integer types.
    pub const fn is_unsigned_int(self) -> bool {
        matches!(
            self,
            ElemType::U8 | ElemType::U16 | ElemType::U32 | ElemType::U64
        )
    }

    /// The numpy / TIK name: `"float16"`, `"uint8"`, `"bfloat16"`, ...
    pub const fn numpy_name(self) -> &'static str {
        match self {
            ElemType::U8 => "uint8",
            ElemType::I8 => "int8",
            ElemType::U16 => "uint16",
            ElemType::I16 => "int16",
            ElemType::U32 => "uint32",
            ElemType::I32 => "int32",
            ElemType::U64 => "uint64",
            ElemType::I64 => "int64",
            ElemType::F16 => "float16",
            ElemType::Bf16 => "bfloat16",
            ElemType::F32 => "float32",
            ElemType::F8E4M3FN => "float8_e4m3fn",
            ElemType::F8E5M2 => "float8_e5m2",
            ElemType::F8E4M3 => "float8_e4m3",
            ElemType::HiF8 => "hifloat8",
            ElemType::F8E8M0 => "float8_e8m0fnu",
            ElemType::F4E2M1 => "float4_e2m1fn",
            // ml_dtypes has no packed types: the pto-isa names.
            ElemType::F4E2M1X2 => "float4_e2m1x2",
            ElemType::F4E1M2X2 => "float4_e1m2x2",
        }
    }

    /// The MLIR / PTO-AS name: `f16`, `bf16`, `f32`, `i8`, `ui8`, ...
    pub const fn mlir_name(self) -> &'static str {
        match self {
            ElemType::U8 => "ui8",
            ElemType::I8 => "i8",
            ElemType::U16 => "ui16",
            ElemType::I16 => "i16",
            ElemType::U32 => "ui32",
            ElemType::I32 => "i32",
            ElemType::U64 => "ui64",
            ElemType::I64 => "i64",
            ElemType::F16 => "f16",
            ElemType::Bf16 => "bf16",
            ElemType::F32 => "f32",
            ElemType::F8E4M3FN => "f8E4M3FN",
            ElemType::F8E5M2 => "f8E5M2",
            ElemType::F8E4M3 => "f8E4M3",
            // MLIR has no HiFloat8 type; PTO-AS text here spells it `hifloat8`.
            ElemType::HiF8 => "hifloat8",
            ElemType::F8E8M0 => "f8E8M0FNU",
            ElemType::F4E2M1 => "f4E2M1FN",
            // MLIR and PTOAS have no packed fp4 types; npusim's spelling.
            ElemType::F4E2M1X2 => "f4E2M1x2",
            ElemType::F4E1M2X2 => "f4E1M2x2",
        }
    }

    /// The Ascend C / C++ name: `half`, `float`, `bfloat16_t`, `int32_t`, ...
    pub const fn cpp_name(self) -> &'static str {
        match self {
            ElemType::U8 => "uint8_t",
            ElemType::I8 => "int8_t",
            ElemType::U16 => "uint16_t",
            ElemType::I16 => "int16_t",
            ElemType::U32 => "uint32_t",
            ElemType::I32 => "int32_t",
            ElemType::U64 => "uint64_t",
            ElemType::I64 => "int64_t",
            ElemType::F16 => "half",
            ElemType::Bf16 => "bfloat16_t",
            ElemType::F32 => "float",
            ElemType::F8E4M3FN => "float8_e4m3_t",
            ElemType::F8E5M2 => "float8_e5m2_t",
            // No Ascend C type: the hardware's float8_e4m3_t is E4M3FN.
            ElemType::F8E4M3 => "float8_e4m3",
            ElemType::HiF8 => "hifloat8_t",
            ElemType::F8E8M0 => "float8_e8m0_t",
            // The C++ type is the packed float4_e2m1x2_t; this one holds one code per byte.
            ElemType::F4E2M1 => "float4_e2m1fn",
            ElemType::F4E2M1X2 => "float4_e2m1x2_t",
            ElemType::F4E1M2X2 => "float4_e1m2x2_t",
        }
    }

    /// Parses any of the spellings above (and the common aliases `half`, `float`, `fp16`,
    /// `fp32`, `u8`…`u64`, `float32_t`, `int`).
    pub fn parse(name: &str) -> Option<ElemType> {
        let t = match name {
            "uint8" | "u8" | "ui8" | "uint8_t" => ElemType::U8,
            "int8" | "i8" | "si8" | "int8_t" => ElemType::I8,
            "uint16" | "u16" | "ui16" | "uint16_t" => ElemType::U16,
            "int16" | "i16" | "si16" | "int16_t" => ElemType::I16,
            "uint32" | "u32" | "ui32" | "uint32_t" => ElemType::U32,
            "int32" | "i32" | "si32" | "int32_t" | "int" => ElemType::I32,
            "uint64" | "u64" | "ui64" | "uint64_t" => ElemType::U64,
            "int64" | "i64" | "si64" | "int64_t" => ElemType::I64,
            "float16" | "f16" | "half" | "fp16" | "float16_t" => ElemType::F16,
            "bfloat16" | "bf16" | "bfloat16_t" => ElemType::Bf16,
            "float32" | "f32" | "float" | "fp32" | "float32_t" => ElemType::F32,
            "float8_e4m3fn" | "f8E4M3FN" | "float8_e4m3_t" | "fp8_e4m3fn_t" => ElemType::F8E4M3FN,
            "float8_e5m2" | "f8E5M2" | "float8_e5m2_t" | "fp8_e5m2_t" => ElemType::F8E5M2,
            "float8_e4m3" | "f8E4M3" => ElemType::F8E4M3,
            "hifloat8" | "hifloat8_t" => ElemType::HiF8,
            "float8_e8m0fnu" | "f8E8M0FNU" | "float8_e8m0_t" | "fp8_e8m0_t" => ElemType::F8E8M0,
            "float4_e2m1fn" | "f4E2M1FN" => ElemType::F4E2M1,
            "float4_e2m1x2" | "float4_e2m1x2_t" | "f4E2M1x2" => ElemType::F4E2M1X2,
            "float4_e1m2x2" | "float4_e1m2x2_t" | "f4E1M2x2" => ElemType::F4E1M2X2,
            _ => return None,
        };
        Some(t)
    }
}

impl fmt::Display for ElemType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.numpy_name())
    }
}

/// A Rust storage type for one [`ElemType`].
///
/// `to_f64` is exact for every type except u64/i64 beyond 2^53 (which only integer paths use).
pub trait Element:
    Copy + Default + PartialEq + bytemuck::Pod + fmt::Debug + Send + Sync + 'static
{
    /// The element type this storage type represents.
    const TYPE: ElemType;
    /// The value as f64 (exact for all floats and for integers up to 2^53).
    fn to_f64(self) -> f64;
    /// The raw bit pattern, zero-extended.
    fn to_bits_u64(self) -> u64;
    /// Rebuilds a value from the low bits of a pattern.
    fn from_bits_u64(bits: u64) -> Self;
}

macro_rules! int_element {
    ($t:ty, $e:ident) => {
        impl Element for $t {
            const TYPE: ElemType = ElemType::$e;
            #[inline]
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline]
            fn to_bits_u64(self) -> u64 {
                self as u64 & (u64::MAX >> (64 - 8 * std::mem::size_of::<$t>()))
            }
            #[inline]
            fn from_bits_u64(bits: u64) -> Self {
                bits as $t
            }
        }
    };
}
int_element!(u8, U8);
int_element!(i8, I8);
int_element!(u16, U16);
int_element!(i16, I16);
int_element!(u32, U32);
int_element!(i32, I32);
int_element!(u64, U64);
int_element!(i64, I64);

impl Element for f16 {
    const TYPE: ElemType = ElemType::F16;
    #[inline]
    fn to_f64(self) -> f64 {
        self.to_f64()
    }
    #[inline]
    fn to_bits_u64(self) -> u64 {
        self.to_bits() as u64
    }
    #[inline]
    fn from_bits_u64(bits: u64) -> Self {
        f16::from_bits(bits as u16)
    }
}

impl Element for bf16 {
    const TYPE: ElemType = ElemType::Bf16;
    #[inline]
    fn to_f64(self) -> f64 {
        self.to_f64()
    }
    #[inline]
    fn to_bits_u64(self) -> u64 {
        self.to_bits() as u64
    }
    #[inline]
    fn from_bits_u64(bits: u64) -> Self {
        bf16::from_bits(bits as u16)
    }
}

impl Element for f32 {
    const TYPE: ElemType = ElemType::F32;
    #[inline]
    fn to_f64(self) -> f64 {
        self as f64
    }
    #[inline]
    fn to_bits_u64(self) -> u64 {
        self.to_bits() as u64
    }
    #[inline]
    fn from_bits_u64(bits: u64) -> Self {
        f32::from_bits(bits as u32)
    }
}

/// Float element types whose arithmetic is "compute in f32, round once to nearest even".
///
/// For f16 and bf16 this double rounding (exact op in f32, then RNE) is exact for + − × ÷ √
/// because f32 carries more than twice their precision plus two bits; for f32 it is the native
/// operation.
pub trait FloatElement: Element + PartialOrd {
    /// Widens to f32 (exact).
    fn to_f32(self) -> f32;
    /// Narrows from f32 with round-to-nearest-even.
    fn from_f32_rne(v: f32) -> Self;
    /// Largest finite value.
    const MAX: Self;
    /// Smallest (most negative) finite value.
    const MIN: Self;
    /// Positive zero.
    const ZERO: Self;
}

impl FloatElement for f16 {
    #[inline]
    fn to_f32(self) -> f32 {
        f16::to_f32(self)
    }
    #[inline]
    fn from_f32_rne(v: f32) -> Self {
        f16::from_f32(v)
    }
    const MAX: Self = f16::MAX;
    const MIN: Self = f16::MIN;
    const ZERO: Self = f16::ZERO;
}

impl FloatElement for bf16 {
    #[inline]
    fn to_f32(self) -> f32 {
        bf16::to_f32(self)
    }
    #[inline]
    fn from_f32_rne(v: f32) -> Self {
        bf16::from_f32(v)
    }
    const MAX: Self = bf16::MAX;
    const MIN: Self = bf16::MIN;
    const ZERO: Self = bf16::ZERO;
}

impl FloatElement for f32 {
    #[inline]
    fn to_f32(self) -> f32 {
        self
    }
    #[inline]
    fn from_f32_rne(v: f32) -> Self {
        v
    }
    const MAX: Self = f32::MAX;
    const MIN: Self = f32::MIN;
    const ZERO: Self = 0.0;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for t in ElemType::ALL {
            assert_eq!(ElemType::parse(t.numpy_name()), Some(t));
            assert_eq!(ElemType::parse(t.mlir_name()), Some(t));
            assert_eq!(ElemType::parse(t.cpp_name()), Some(t));
        }
        assert_eq!(ElemType::parse("float64"), None);
    }

    #[test]
    fn sizes_match_storage() {
        assert_eq!(ElemType::F16.size(), std::mem::size_of::<f16>());
        assert_eq!(ElemType::Bf16.size(), std::mem::size_of::<bf16>());
        assert_eq!(ElemType::I64.size(), 8);
        assert_eq!((-1i8).to_bits_u64(), 0xff);
        assert_eq!(i8::from_bits_u64(0xff), -1);
    }
}
