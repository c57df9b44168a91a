//! `data_type_t`: the element types of the TPU-Kernel API, with the vendor's numeric codes.
//!
//! The codes follow the layout described in the research note
//! (`shared/research/sophgo-hau.md` §1.2): bit 0 is the signed flag and bits 1..4 the precision
//! class, so e.g. `DT_FP32 = 5` and `DT_INT32 = 9`. Seed 003 (the HAU page of the TPU-Kernel
//! reference) names the types each HAU instruction accepts.

use std::fmt;

/// A TPU-Kernel element type (`data_type_t`), numbered as the vendor numbers it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(i32)]
pub enum DataType {
    /// `DT_UINT8`
    Uint8 = 0,
    /// `DT_INT8`
    Int8 = 1,
    /// `DT_FP16` (IEEE binary16)
    Fp16 = 3,
    /// `DT_FP32` (IEEE binary32)
    Fp32 = 5,
    /// `DT_UINT16`
    Uint16 = 6,
    /// `DT_INT16`
    Int16 = 7,
    /// `DT_UINT32`
    Uint32 = 8,
    /// `DT_INT32`
    Int32 = 9,
    /// `DT_BFP16` (bfloat16)
    Bfp16 = 11,
    /// `DT_UINT4`
    Uint4 = 12,
    /// `DT_INT4`
    Int4 = 13,
    /// `DT_FP8E5M2`
    Fp8E5M2 = 15,
    /// `DT_FP20`
    Fp20 = 17,
    /// `DT_FP8E4M3`
    Fp8E4M3 = 47,
}

/// Every `DataType`, in code order.
pub const ALL_DATA_TYPES: [DataType; 14] = [
    DataType::Uint8,
    DataType::Int8,
    DataType::Fp16,
    DataType::Fp32,
    DataType::Uint16,
    DataType::Int16,
    DataType::Uint32,
    DataType::Int32,
    DataType::Bfp16,
    DataType::Uint4,
    DataType::Int4,
    DataType::Fp8E5M2,
    DataType::Fp20,
    DataType::Fp8E4M3,
];

impl DataType {
    /// The vendor's numeric code (`data_type_t` value).
    pub const fn code(self) -> i32 {
        self as i32
    }

    /// The vendor's C name, e.g. `"DT_FP32"`.
    pub const fn vendor_name(self) -> &'static str {
        match self {
            DataType::Uint8 => "DT_UINT8",
            DataType::Int8 => "DT_INT8",
            DataType::Fp16 => "DT_FP16",
            DataType::Fp32 => "DT_FP32",
            DataType::Uint16 => "DT_UINT16",
            DataType::Int16 => "DT_INT16",
            DataType::Uint32 => "DT_UINT32",
            DataType::Int32 => "DT_INT32",
            DataType::Bfp16 => "DT_BFP16",
            DataType::Uint4 => "DT_UINT4",
            DataType::Int4 => "DT_INT4",
            DataType::Fp8E5M2 => "DT_FP8E5M2",
            DataType::Fp20 => "DT_FP20",
            DataType::Fp8E4M3 => "DT_FP8E4M3",
        }
    }

    /// Storage width in bits (4 for the nibble types, 20 for `DT_FP20`).
    pub const fn bits(self) -> u32 {
        match self {
            DataType::Uint4 | DataType::Int4 => 4,
            DataType::Uint8 | DataType::Int8 | DataType::Fp8E5M2 | DataType::Fp8E4M3 => 8,
            DataType::Fp16 | DataType::Uint16 | DataType::Int16 | DataType::Bfp16 => 16,
            DataType::Fp20 => 20,
            DataType::Fp32 | DataType::Uint32 | DataType::Int32 => 32,
        }
    }

    /// The short name used by the golden files (`f32`, `i32`, `u32`, `f16`, `bf16`, `i16`,
    /// `u16`, `i8`, `u8`, ...).
    pub const fn short_name(self) -> &'static str {
        match self {
            DataType::Uint8 => "u8",
            DataType::Int8 => "i8",
            DataType::Fp16 => "f16",
            DataType::Fp32 => "f32",
            DataType::Uint16 => "u16",
            DataType::Int16 => "i16",
            DataType::Uint32 => "u32",
            DataType::Int32 => "i32",
            DataType::Bfp16 => "bf16",
            DataType::Uint4 => "u4",
            DataType::Int4 => "i4",
            DataType::Fp8E5M2 => "f8e5m2",
            DataType::Fp20 => "f20",
            DataType::Fp8E4M3 => "f8e4m3",
        }
    }

    /// Parses a short name as produced by [`DataType::short_name`].
    pub fn from_short_name(name: &str) -> Option<DataType> {
        ALL_DATA_TYPES.into_iter().find(|d| d.short_name() == name)
    }
}

impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.vendor_name(), self.code())
    }
}

/// A numeric code that is not a `data_type_t` value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown data_type_t code {0}")]
pub struct UnknownDataType(pub i32);

impl TryFrom<i32> for DataType {
    type Error = UnknownDataType;

    fn try_from(code: i32) -> Result<Self, Self::Error> {
        ALL_DATA_TYPES
            .into_iter()
            .find(|d| d.code() == code)
            .ok_or(UnknownDataType(code))
    }
}

impl From<DataType> for i32 {
    fn from(d: DataType) -> i32 {
        d.code()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vendor_codes() {
        assert_eq!(DataType::Uint8.code(), 0);
        assert_eq!(DataType::Int8.code(), 1);
        assert_eq!(DataType::Fp16.code(), 3);
        assert_eq!(DataType::Fp32.code(), 5);
        assert_eq!(DataType::Uint16.code(), 6);
        assert_eq!(DataType::Int16.code(), 7);
        assert_eq!(DataType::Uint32.code(), 8);
        assert_eq!(DataType::Int32.code(), 9);
        assert_eq!(DataType::Bfp16.code(), 11);
        assert_eq!(DataType::Fp8E4M3.code(), 47);
    }

    #[test]
    fn try_from_round_trips_and_rejects() {
        for d in ALL_DATA_TYPES {
            assert_eq!(DataType::try_from(d.code()), Ok(d));
            assert_eq!(DataType::from_short_name(d.short_name()), Some(d));
        }
        for bad in [2, 4, 10, 14, 16, 18, 46, 48, -1] {
            assert_eq!(DataType::try_from(bad), Err(UnknownDataType(bad)));
        }
    }
}
