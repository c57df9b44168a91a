//! Shared instruction vocabulary: the operand kinds and modes that several instruction families
//! and their front ends name the same way, declared once.
//!
//! - [`Scalar`]: a scalar operand as a front end resolved it (integer or float constant);
//! - [`CmpMode`]: the six comparisons of TCMP/TCMPS (pto-isa `docs/isa/TCMP.md`), TIK
//!   `vec_cmpv_xx` and Ascend C `Compare`;
//! - [`PadValue`]: what TLOAD writes outside a tile's valid region (pto-isa `docs/isa/TLOAD.md`,
//!   PTOAS `pad=`);
//! - [`TileLoc`]: where a tile lives (pto-isa `TileType`, PTOAS `loc=`), each location one
//!   on-chip [`MemSpace`];
//! - [`RoundMode`]: re-exported from [`crate::convert`]. PTOAS spells it `NONE`, `RINT`,
//!   `CAST_RINT`, `ROUND`, `FLOOR`, `CEIL`, `TRUNC`, `ODD`: `NONE` and `CAST_RINT` are
//!   [`RoundMode::Rint`] (`RoundMode::CastRint` is that alias), as [`RoundMode::parse`] reads them.

use crate::memory::MemSpace;
use half::{bf16, f16};

pub use crate::convert::RoundMode;

/// A scalar operand: an integer or a float constant. Each family converts it to the element
/// type of the instruction (see its crate docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    Int(i64),
    Float(f64),
}

impl Scalar {
    /// The value as f64 (integers beyond 2^53 round).
    pub fn as_f64(self) -> f64 {
        match self {
            Scalar::Int(i) => i as f64,
            Scalar::Float(v) => v,
        }
    }
}

impl From<f32> for Scalar {
    fn from(v: f32) -> Scalar {
        Scalar::Float(v as f64)
    }
}
impl From<f64> for Scalar {
    fn from(v: f64) -> Scalar {
        Scalar::Float(v)
    }
}
impl From<f16> for Scalar {
    fn from(v: f16) -> Scalar {
        Scalar::Float(v.to_f64())
    }
}
impl From<bf16> for Scalar {
    fn from(v: bf16) -> Scalar {
        Scalar::Float(v.to_f64())
    }
}
impl From<i64> for Scalar {
    fn from(v: i64) -> Scalar {
        Scalar::Int(v)
    }
}
macro_rules! scalar_from_int {
    ($($t:ty),*) => {$(
        impl From<$t> for Scalar {
            fn from(v: $t) -> Scalar {
                Scalar::Int(v as i64)
            }
        }
    )*};
}
scalar_from_int!(i8, u8, i16, u16, i32, u32);

/// A comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpMode {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpMode {
    /// Every mode.
    pub const ALL: [CmpMode; 6] = [
        CmpMode::Eq,
        CmpMode::Ne,
        CmpMode::Lt,
        CmpMode::Le,
        CmpMode::Gt,
        CmpMode::Ge,
    ];

    /// The lower-case spelling (`eq`, `lt`, ...), as TIK suffixes (`vec_cmpv_lt`) use it.
    pub const fn name(self) -> &'static str {
        match self {
            CmpMode::Eq => "eq",
            CmpMode::Ne => "ne",
            CmpMode::Lt => "lt",
            CmpMode::Le => "le",
            CmpMode::Gt => "gt",
            CmpMode::Ge => "ge",
        }
    }

    /// Parses `EQ`/`equal`, `NE`/`not_equal`, `LT`/`less_than`, `LE`/`less_equal`,
    /// `GT`/`greater_than`, `GE`/`greater_equal` (any case).
    pub fn parse(s: &str) -> Option<CmpMode> {
        Some(match s.to_ascii_lowercase().as_str() {
            "eq" | "equal" => CmpMode::Eq,
            "ne" | "not_equal" => CmpMode::Ne,
            "lt" | "less_than" => CmpMode::Lt,
            "le" | "less_equal" => CmpMode::Le,
            "gt" | "greater_than" => CmpMode::Gt,
            "ge" | "greater_equal" => CmpMode::Ge,
            _ => return None,
        })
    }

    /// Applies the comparison with IEEE semantics: every comparison with a NaN is false except
    /// `Ne`.
    #[inline]
    pub fn test<T: PartialOrd>(self, a: T, b: T) -> bool {
        match self {
            CmpMode::Eq => a == b,
            CmpMode::Ne => a != b,
            CmpMode::Lt => a < b,
            CmpMode::Le => a <= b,
            CmpMode::Gt => a > b,
            CmpMode::Ge => a >= b,
        }
    }

    /// [`CmpMode::test`] on f64 values.
    #[inline]
    pub fn holds(self, a: f64, b: f64) -> bool {
        self.test(a, b)
    }
}

/// The value TLOAD writes outside the valid region.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PadValue {
    /// No padding defined (the CPU simulator writes 0; see [`crate::TilePolicy`]).
    Null,
    Zero,
    /// +inf for floats, the largest value for integers.
    Max,
    /// -inf for floats, the smallest value for integers.
    Min,
    /// A custom value given as f32 bits (`PadCustom`), converted to the element type.
    Custom(u32),
}

impl PadValue {
    /// The integer code of PTOAS `pad=N` (0 null, 1 zero, 2 max, 3 min); `None` for a custom
    /// value, which has no code.
    pub fn as_code(self) -> Option<u64> {
        Some(match self {
            PadValue::Null => 0,
            PadValue::Zero => 1,
            PadValue::Max => 2,
            PadValue::Min => 3,
            PadValue::Custom(_) => return None,
        })
    }

    /// Inverse of [`PadValue::as_code`].
    pub fn from_code(n: u64) -> Option<PadValue> {
        Some(match n {
            0 => PadValue::Null,
            1 => PadValue::Zero,
            2 => PadValue::Max,
            3 => PadValue::Min,
            _ => return None,
        })
    }
}

/// Where a tile lives (`TileType`): each location is one on-chip memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TileLoc {
    /// Vector tile in the Unified Buffer.
    Vec,
    /// Matrix tile in L1.
    Mat,
    /// Left matrix operand in L0A.
    Left,
    /// Right matrix operand in L0B.
    Right,
    /// Accumulator in L0C.
    Acc,
    /// Bias table.
    Bias,
    /// Scaling (fixpipe) buffer.
    Scaling,
    /// MX scales of a Left operand (pto-isa `TileType::ScaleLeft`, `TileLeftScale`): the A5
    /// L0A scale buffer ([`MemSpace::L0aMx`], 4 KiB; none on A2A3).
    ScaleLeft,
    /// MX scales of a Right operand (`TileType::ScaleRight`, `TileRightScale`): the A5 L0B
    /// scale buffer ([`MemSpace::L0bMx`], 4 KiB; none on A2A3).
    ScaleRight,
}

impl TileLoc {
    /// Every location.
    pub const ALL: [TileLoc; TileLoc::COUNT] = [
        TileLoc::Vec,
        TileLoc::Mat,
        TileLoc::Left,
        TileLoc::Right,
        TileLoc::Acc,
        TileLoc::Bias,
        TileLoc::Scaling,
        TileLoc::ScaleLeft,
        TileLoc::ScaleRight,
    ];

    /// How many locations there are (`loc as usize` indexes arrays of this length).
    pub const COUNT: usize = 9;

    /// The memory space backing the location.
    pub const fn space(self) -> MemSpace {
        match self {
            TileLoc::Vec => MemSpace::Ub,
            TileLoc::Mat => MemSpace::L1,
            TileLoc::Left => MemSpace::L0a,
            TileLoc::Right => MemSpace::L0b,
            TileLoc::Acc => MemSpace::L0c,
            TileLoc::Bias => MemSpace::Bias,
            TileLoc::Scaling => MemSpace::Fb,
            TileLoc::ScaleLeft => MemSpace::L0aMx,
            TileLoc::ScaleRight => MemSpace::L0bMx,
        }
    }

    /// The PTO-AS mnemonic (`vec`, `mat`, `left`, `right`, `acc`, `bias`, `scaling`; the two MX
    /// scale locations `scale_left` / `scale_right` are npusim's spelling: PTOAS's dialect has no
    /// address space for them and writes MX scale tiles `loc=scaling`).
    pub const fn name(self) -> &'static str {
        match self {
            TileLoc::Vec => "vec",
            TileLoc::Mat => "mat",
            TileLoc::Left => "left",
            TileLoc::Right => "right",
            TileLoc::Acc => "acc",
            TileLoc::Bias => "bias",
            TileLoc::Scaling => "scaling",
            TileLoc::ScaleLeft => "scale_left",
            TileLoc::ScaleRight => "scale_right",
        }
    }

    /// Parses the PTO-AS spelling (`vec`, `ub`, `mat`, `left`, `right`, `acc`, `bias`, `scaling`,
    /// and npusim's `scale_left` / `scale_right`).
    pub fn parse(s: &str) -> Option<TileLoc> {
        Some(match s.to_ascii_lowercase().as_str() {
            "vec" | "ub" => TileLoc::Vec,
            "mat" | "l1" => TileLoc::Mat,
            "left" | "l0a" => TileLoc::Left,
            "right" | "l0b" => TileLoc::Right,
            "acc" | "l0c" => TileLoc::Acc,
            "bias" => TileLoc::Bias,
            "scaling" | "fb" => TileLoc::Scaling,
            "scale_left" | "l0a_mx" => TileLoc::ScaleLeft,
            "scale_right" | "l0b_mx" => TileLoc::ScaleRight,
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cmp_nan_is_false_except_ne() {
        for m in CmpMode::ALL {
            assert_eq!(m.holds(f64::NAN, 1.0), m == CmpMode::Ne, "{m:?}");
            assert_eq!(CmpMode::parse(&format!("{m:?}")), Some(m));
        }
        assert!(CmpMode::Le.test(-0.0f32, 0.0));
        assert!(CmpMode::Lt.test(-3i64, 2));
    }

    #[test]
    fn pad_codes_and_locations_round_trip() {
        for n in 0..4 {
            assert_eq!(PadValue::from_code(n).and_then(PadValue::as_code), Some(n));
        }
        assert_eq!(PadValue::Custom(0).as_code(), None);
        for l in TileLoc::ALL {
            assert_eq!(TileLoc::parse(l.name()), Some(l));
        }
        assert_eq!(RoundMode::parse("CAST_RINT"), Some(RoundMode::CastRint));
        assert_eq!(RoundMode::parse("NONE"), Some(RoundMode::Rint));
    }
}
