//! The typed program produced by the PTO-AS parser.
//!
//! Implements the data model of hw-native-sys/PTOAS `docs/PTO_IR_manual.md` §2 (types: element
//! types, `!pto.ptr`, `!pto.tensor_view`, `!pto.partition_tensor_view`, `!pto.tile_buf`) and §3
//! (the `loc`, `blayout`, `slayout`, `pad`, `cmp`, `round_mode` and `layout` enums), plus the
//! `func`/`arith`/`scf` subset that PTOAS accepts (manual §4 preamble).
//!
//! A [`Module`] is parsed once: every SSA name is resolved to a [`ValueId`] (an index into the
//! function's value table), every op name to an [`OpCode`], every callee to a [`FuncId`], every
//! attribute to a typed enum. An interpreter walks [`Block`]s of [`Op`]s and never looks anything
//! up by name.

use crate::diag::Span;
use crate::ops::OpCode;
/// Tile layouts (`blayout=`/`slayout=`) and `#pto<cmp ...>` modes are the ISA's own enums.
pub use npusim_core::CmpMode;
use npusim_core::{ChipId, ChipProfile};
pub use npusim_pto::{BLayout, SLayout};

/// Element type of tiles, pointers and views (the PTOAS dtype names).
///
/// Kept separate from `npusim_core::ElemType` because PTOAS also has `i1`, which the core
/// crate has no counterpart for; [`DType::elem_type`] maps the others.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    /// `i1` (stored as one byte per element).
    I1,
    /// `i8`
    I8,
    /// `ui8` (also accepted as `u8`)
    U8,
    /// `i16`
    I16,
    /// `ui16`
    U16,
    /// `i32`
    I32,
    /// `ui32`
    U32,
    /// `i64`
    I64,
    /// `ui64`
    U64,
    /// `f16`
    F16,
    /// `bf16`
    Bf16,
    /// `f32`
    F32,
    /// `f8E4M3` (MLIR's IEEE-like E4M3). PTOAS lowers it, like `f8E4M3FN`, to the A5
    /// `float8_e4m3_t`, whose encoding is E4M3FN: [`DType::elem_type`] gives
    /// `ElemType::F8E4M3FN` (the hardware's numerics).
    F8E4M3,
    /// `f8E4M3FN` (FP8 E4M3, finite and NaN only).
    F8E4M3FN,
    /// `f8E5M2` (FP8 E5M2).
    F8E5M2,
    /// `f8E8M0FNU` (MX scale exponent).
    F8E8M0,
    /// `hifloat8`: the A5 `hifloat8_t`. MLIR has no builtin for it and PTOAS does not spell
    /// it; this is npusim's spelling (also accepted: `hif8`).
    HiF8,
    /// `f4E2M1FN` (one code per byte).
    F4E2M1,
    /// `f4E2M1x2`: the A5's packed `float4_e2m1x2_t`, two codes a byte (one element is the
    /// pair). MLIR and PTOAS have no packed fp4 type; this is npusim's spelling.
    F4E2M1X2,
    /// `f4E1M2x2`: the A5's packed `float4_e1m2x2_t` (npusim's spelling).
    F4E1M2X2,
}

impl DType {
    /// Every dtype, in declaration order.
    pub const ALL: [DType; 20] = [
        DType::I1,
        DType::I8,
        DType::U8,
        DType::I16,
        DType::U16,
        DType::I32,
        DType::U32,
        DType::I64,
        DType::U64,
        DType::F16,
        DType::Bf16,
        DType::F32,
        DType::F8E4M3,
        DType::F8E4M3FN,
        DType::F8E5M2,
        DType::F8E8M0,
        DType::HiF8,
        DType::F4E2M1,
        DType::F4E2M1X2,
        DType::F4E1M2X2,
    ];

    /// The MLIR spelling (`f32`, `ui8`, ...).
    pub fn name(self) -> &'static str {
        match self {
            DType::I1 => "i1",
            DType::I8 => "i8",
            DType::U8 => "ui8",
            DType::I16 => "i16",
            DType::U16 => "ui16",
            DType::I32 => "i32",
            DType::U32 => "ui32",
            DType::I64 => "i64",
            DType::U64 => "ui64",
            DType::F16 => "f16",
            DType::Bf16 => "bf16",
            DType::F32 => "f32",
            DType::F8E4M3 => "f8E4M3",
            DType::F8E4M3FN => "f8E4M3FN",
            DType::F8E5M2 => "f8E5M2",
            DType::F8E8M0 => "f8E8M0FNU",
            DType::HiF8 => "hifloat8",
            DType::F4E2M1 => "f4E2M1FN",
            DType::F4E2M1X2 => "f4E2M1x2",
            DType::F4E1M2X2 => "f4E1M2x2",
        }
    }

    /// Parses an MLIR element type name; `u8`-style names are accepted too.
    pub fn from_name(s: &str) -> Option<DType> {
        Some(match s {
            "i1" => DType::I1,
            "i8" | "si8" => DType::I8,
            "ui8" | "u8" => DType::U8,
            "i16" | "si16" => DType::I16,
            "ui16" | "u16" => DType::U16,
            "i32" | "si32" => DType::I32,
            "ui32" | "u32" => DType::U32,
            "i64" | "si64" => DType::I64,
            "ui64" | "u64" => DType::U64,
            "f16" => DType::F16,
            "bf16" => DType::Bf16,
            "f32" => DType::F32,
            "f8E4M3" => DType::F8E4M3,
            "f8E4M3FN" => DType::F8E4M3FN,
            "f8E5M2" => DType::F8E5M2,
            "f8E8M0FNU" => DType::F8E8M0,
            "hifloat8" | "hif8" => DType::HiF8,
            "f4E2M1FN" => DType::F4E2M1,
            "f4E2M1x2" => DType::F4E2M1X2,
            "f4E1M2x2" => DType::F4E1M2X2,
            _ => return None,
        })
    }

    /// Width in bits (1 for `i1`).
    pub fn bits(self) -> u32 {
        match self {
            DType::I1 => 1,
            DType::I8
            | DType::U8
            | DType::F8E4M3
            | DType::F8E4M3FN
            | DType::F8E5M2
            | DType::F8E8M0
            | DType::HiF8
            | DType::F4E2M1
            | DType::F4E2M1X2
            | DType::F4E1M2X2 => 8,
            DType::I16 | DType::U16 | DType::F16 | DType::Bf16 => 16,
            DType::I32 | DType::U32 | DType::F32 => 32,
            DType::I64 | DType::U64 => 64,
        }
    }

    /// Storage size of one element in bytes (`i1` takes one byte).
    pub fn bytes(self) -> u64 {
        u64::from(self.bits().div_ceil(8))
    }

    /// Whether this is a floating-point type.
    pub fn is_float(self) -> bool {
        matches!(
            self,
            DType::F16
                | DType::Bf16
                | DType::F32
                | DType::F8E4M3
                | DType::F8E4M3FN
                | DType::F8E5M2
                | DType::F8E8M0
                | DType::HiF8
                | DType::F4E2M1
                | DType::F4E2M1X2
                | DType::F4E1M2X2
        )
    }

    /// Whether this is one of the 8- and 4-bit float types (storage and conversion types:
    /// the simulator has no arithmetic on them).
    pub fn is_f8(self) -> bool {
        matches!(
            self,
            DType::F8E4M3
                | DType::F8E4M3FN
                | DType::F8E5M2
                | DType::F8E8M0
                | DType::HiF8
                | DType::F4E2M1
                | DType::F4E2M1X2
                | DType::F4E1M2X2
        )
    }

    /// The simulator's element type; `None` for `i1`. `f8E4M3` maps to the hardware's
    /// `float8_e4m3_t` = `ElemType::F8E4M3FN` (see [`DType::F8E4M3`]).
    pub fn elem_type(self) -> Option<npusim_core::ElemType> {
        use npusim_core::ElemType as E;
        Some(match self {
            DType::I1 => return None,
            DType::F8E4M3 | DType::F8E4M3FN => E::F8E4M3FN,
            DType::F8E5M2 => E::F8E5M2,
            DType::F8E8M0 => E::F8E8M0,
            DType::HiF8 => E::HiF8,
            DType::F4E2M1 => E::F4E2M1,
            DType::F4E2M1X2 => E::F4E2M1X2,
            DType::F4E1M2X2 => E::F4E1M2X2,
            DType::I8 => E::I8,
            DType::U8 => E::U8,
            DType::I16 => E::I16,
            DType::U16 => E::U16,
            DType::I32 => E::I32,
            DType::U32 => E::U32,
            DType::I64 => E::I64,
            DType::U64 => E::U64,
            DType::F16 => E::F16,
            DType::Bf16 => E::Bf16,
            DType::F32 => E::F32,
        })
    }

    /// Inverse of [`DType::elem_type`].
    pub fn from_elem_type(e: npusim_core::ElemType) -> DType {
        use npusim_core::ElemType as E;
        match e {
            E::I8 => DType::I8,
            E::U8 => DType::U8,
            E::I16 => DType::I16,
            E::U16 => DType::U16,
            E::I32 => DType::I32,
            E::U32 => DType::U32,
            E::I64 => DType::I64,
            E::U64 => DType::U64,
            E::F16 => DType::F16,
            E::Bf16 => DType::Bf16,
            E::F32 => DType::F32,
            E::F8E4M3FN => DType::F8E4M3FN,
            E::F8E5M2 => DType::F8E5M2,
            E::F8E4M3 => DType::F8E4M3,
            E::HiF8 => DType::HiF8,
            E::F8E8M0 => DType::F8E8M0,
            E::F4E2M1 => DType::F4E2M1,
            E::F4E2M1X2 => DType::F4E2M1X2,
            E::F4E1M2X2 => DType::F4E1M2X2,
        }
    }
}

/// Type of a scalar SSA value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScalarType {
    /// `i1`
    I1,
    /// `i8`
    I8,
    /// `i16`
    I16,
    /// `i32`
    I32,
    /// `i64`
    I64,
    /// `index` (64-bit on this simulator)
    Index,
    /// `f16`
    F16,
    /// `bf16`
    Bf16,
    /// `f32`
    F32,
}

impl ScalarType {
    /// The MLIR spelling.
    pub fn name(self) -> &'static str {
        match self {
            ScalarType::I1 => "i1",
            ScalarType::I8 => "i8",
            ScalarType::I16 => "i16",
            ScalarType::I32 => "i32",
            ScalarType::I64 => "i64",
            ScalarType::Index => "index",
            ScalarType::F16 => "f16",
            ScalarType::Bf16 => "bf16",
            ScalarType::F32 => "f32",
        }
    }

    /// Parses an MLIR scalar type name.
    pub fn from_name(s: &str) -> Option<ScalarType> {
        Some(match s {
            "i1" => ScalarType::I1,
            "i8" => ScalarType::I8,
            "i16" => ScalarType::I16,
            "i32" => ScalarType::I32,
            "i64" => ScalarType::I64,
            "index" => ScalarType::Index,
            "f16" => ScalarType::F16,
            "bf16" => ScalarType::Bf16,
            "f32" => ScalarType::F32,
            _ => return None,
        })
    }

    /// Whether this is `index` or an integer type.
    pub fn is_integer_like(self) -> bool {
        !self.is_float()
    }

    /// Whether this is a floating-point type.
    pub fn is_float(self) -> bool {
        matches!(self, ScalarType::F16 | ScalarType::Bf16 | ScalarType::F32)
    }

    /// Width in bits (`index` counts as 64).
    pub fn bits(self) -> u32 {
        match self {
            ScalarType::I1 => 1,
            ScalarType::I8 => 8,
            ScalarType::I16 | ScalarType::F16 | ScalarType::Bf16 => 16,
            ScalarType::I32 | ScalarType::F32 => 32,
            ScalarType::I64 | ScalarType::Index => 64,
        }
    }
}

/// A dimension that is either known statically or `?`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dim {
    /// A fixed size.
    Static(u64),
    /// `?`: known only at run time.
    Dynamic,
}

impl Dim {
    /// The static size, if any.
    pub fn as_static(self) -> Option<u64> {
        match self {
            Dim::Static(n) => Some(n),
            Dim::Dynamic => None,
        }
    }
}

/// Target architecture (`pto.target_arch`), which fixes on-chip memory sizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TargetArch {
    /// Ascend A2/A3 (`"a2a3"`, also `"a2"`, `"a3"`).
    A2A3,
    /// Ascend A5 (`"a5"`).
    A5,
}

impl TargetArch {
    /// Parses the `pto.target_arch` string.
    pub fn from_name(s: &str) -> Option<TargetArch> {
        match s {
            "a2a3" | "a2" | "a3" => Some(TargetArch::A2A3),
            "a5" => Some(TargetArch::A5),
            _ => None,
        }
    }

    /// The chip whose profile holds this arch's capacities and policies.
    pub fn chip(self) -> ChipId {
        match self {
            TargetArch::A2A3 => ChipId::Ascend910B,
            TargetArch::A5 => ChipId::Ascend950,
        }
    }

    /// Canonical name.
    pub fn name(self) -> &'static str {
        match self {
            TargetArch::A2A3 => "a2a3",
            TargetArch::A5 => "a5",
        }
    }
}

/// On-chip memory of a tile buffer (`loc=` of `!pto.tile_buf`; manual §3.1): the ISA's tile
/// location, shared vocabulary from `npusim_core::vocab`.
pub use npusim_core::TileLoc as Loc;

/// PTO-AS's reading of a tile location: its mnemonics and the capacity on a target.
pub trait LocExt: Sized {
    /// Parses a mnemonic (`ub` is an old spelling of `vec`).
    fn from_name(s: &str) -> Option<Self>;
    /// Capacity in bytes of this memory on `arch`, from the chip profile (pto-isa `TASSIGN`
    /// table).
    fn capacity(self, arch: TargetArch) -> u64;
}

impl LocExt for Loc {
    fn from_name(s: &str) -> Option<Loc> {
        Some(match s {
            "vec" | "ub" => Loc::Vec,
            "mat" => Loc::Mat,
            "left" => Loc::Left,
            "right" => Loc::Right,
            "acc" => Loc::Acc,
            "bias" => Loc::Bias,
            "scaling" => Loc::Scaling,
            // npusim's spellings of pto-isa's MX scale memories (A5 L0A_MX / L0B_MX); PTOAS
            // has no address space for them (its MX scale tiles are `scaling`).
            "scale_left" => Loc::ScaleLeft,
            "scale_right" => Loc::ScaleRight,
            _ => return None,
        })
    }

    fn capacity(self, arch: TargetArch) -> u64 {
        ChipProfile::get(arch.chip())
            .capacity(self.space())
            .unwrap_or(0) as u64
    }
}

/// Pad value policy (`pad=`; manual §3.4): the ISA's pad value, shared vocabulary from
/// `npusim_core::vocab` (PTO-AS spells `null`, `zero`, `max`, `min`; codes 0..3).
pub use npusim_core::PadValue;

/// PTO-AS's integer codes of `pad=N`.
pub trait PadCode: Sized {
    /// The integer code used by `pad=N` (0 null, 1 zero, 2 max, 3 min; a custom value, which
    /// PTO-AS cannot spell, prints as 0).
    fn code(self) -> u64;
}

impl PadCode for PadValue {
    fn code(self) -> u64 {
        self.as_code().unwrap_or(0)
    }
}

/// Compact mode (`compact=`), default `Null`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CompactMode {
    /// 0
    Null,
    /// 1
    Normal,
    /// 2
    RowPlusOne,
}

/// `!pto.tile_buf<...>`: a tile buffer in on-chip memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TileBufType {
    /// Memory.
    pub loc: Loc,
    /// Element type.
    pub dtype: DType,
    /// Physical rows.
    pub rows: u64,
    /// Physical columns.
    pub cols: u64,
    /// Valid rows (`v_row`), `?` if given at run time.
    pub valid_row: Dim,
    /// Valid columns (`v_col`).
    pub valid_col: Dim,
    /// Outer layout.
    pub blayout: BLayout,
    /// Inner (box) layout.
    pub slayout: SLayout,
    /// Box size in bytes (512 by default; 1024 for acc).
    pub fractal: u64,
    /// Pad value.
    pub pad: PadValue,
    /// Compact mode.
    pub compact: CompactMode,
}

impl TileBufType {
    /// A tile with the PTOAS default config (`row_major`, `none_box`, 512, pad 0) and a
    /// full valid region.
    pub fn new(loc: Loc, dtype: DType, rows: u64, cols: u64) -> Self {
        TileBufType {
            loc,
            dtype,
            rows,
            cols,
            valid_row: Dim::Static(rows),
            valid_col: Dim::Static(cols),
            blayout: BLayout::RowMajor,
            slayout: SLayout::NoneBox,
            fractal: 512,
            pad: PadValue::Null,
            compact: CompactMode::Null,
        }
    }

    /// Bytes the tile occupies in its memory: `rows * cols * elem bytes` (for `i1` one byte
    /// per element). [`CompactMode::RowPlusOne`] adds one element per row.
    pub fn size_bytes(&self) -> u64 {
        let cols = match self.compact {
            CompactMode::RowPlusOne => self.cols.saturating_add(1),
            _ => self.cols,
        };
        self.rows
            .saturating_mul(cols)
            .saturating_mul(self.dtype.bytes())
    }

    /// Whether the tile is boxed (fractal) rather than plain.
    pub fn is_boxed(&self) -> bool {
        self.slayout != SLayout::NoneBox
    }

    /// Shape `(rows, cols)` of one inner box for a boxed tile: a 512-byte box is 16 rows of
    /// 32 bytes when the box is row-major, its transpose when col-major; a 1024-byte box is
    /// 16×16. `None` for unboxed tiles.
    pub fn inner_box(&self) -> Option<(u64, u64)> {
        let elem = self.dtype.bytes();
        match (self.slayout, self.fractal) {
            (SLayout::NoneBox, _) => None,
            (_, 1024) => Some((16, 16)),
            (SLayout::RowMajor, f) => Some((16, (f / 16 / elem).max(1))),
            (SLayout::ColMajor, f) => Some(((f / 16 / elem).max(1), 16)),
        }
    }
}

/// Address space of a `!pto.ptr` (`!pto.ptr<f32, gm>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AddrSpace {
    /// `gm`: global memory.
    Gm,
    /// An on-chip memory.
    Local(Loc),
}

/// `!pto.ptr<T>` or `!pto.ptr<T, space>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PtrType {
    /// Pointee element type.
    pub elem: DType,
    /// Address space if written.
    pub space: Option<AddrSpace>,
}

/// Shape and element type of a `!pto.tensor_view` or `!pto.partition_tensor_view`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ViewType {
    /// Dimensions (rank 1 to 5).
    pub shape: Vec<Dim>,
    /// Element type.
    pub elem: DType,
}

/// The type of an SSA value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    /// `i1..i64`, `index`, `f16`, `bf16`, `f32`.
    Scalar(ScalarType),
    /// `!pto.ptr<T>`.
    Ptr(PtrType),
    /// `!pto.tensor_view<...>`.
    TensorView(ViewType),
    /// `!pto.partition_tensor_view<...>`.
    PartitionView(ViewType),
    /// `!pto.tile_buf<...>` (also the SSA `!pto.tile<...>` spellings and
    /// `memref<...xT, #pto.address_space<vec|mat|...>>` of an on-chip space, mapped to a tile
    /// buffer).
    TileBuf(TileBufType),
    /// `memref<...xT, #pto.address_space<gm>>` (or a memref without address space): a
    /// global-memory buffer used directly as a `pto.tload`/`pto.tstore` operand.
    GmMemRef(ViewType),
    /// A dialect type the simulator only carries (`!pto.pipe`, `!pto.eventid_array<...>`,
    /// `!pto.async_session`, `vector<...>`, ...): its text, spaces normalised.
    Opaque(String),
}

impl Type {
    /// The tile buffer type, if this is one.
    pub fn as_tile(&self) -> Option<&TileBufType> {
        match self {
            Type::TileBuf(t) => Some(t),
            _ => None,
        }
    }

    /// The scalar type, if this is one.
    pub fn as_scalar(&self) -> Option<ScalarType> {
        match self {
            Type::Scalar(s) => Some(*s),
            _ => None,
        }
    }
}

/// Index of a value in its function's value table ([`Func::values`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ValueId(pub u32);

impl ValueId {
    /// As a `usize` index.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Index of a function in [`Module::funcs`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FuncId(pub u32);

/// What the parser knows about one SSA value.
#[derive(Clone, Debug, PartialEq)]
pub struct ValueInfo {
    /// Source name without `%` (`arg0`, `c16`, `final#1` for the second result of `%final:2`).
    pub name: String,
    /// Its type.
    pub ty: Type,
    /// Where it is defined.
    pub span: Span,
    /// The value, if it is an integer or `index` `arith.constant`.
    pub const_int: Option<i64>,
}

/// Value of an `arith.constant`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ConstValue {
    /// Integer, `index` or `i1` (`true` = 1) constant, sign-extended to 64 bits.
    Int(i64),
    /// Float constant written in decimal; the interpreter rounds it to the result type.
    Float(f64),
    /// Float constant written as hexadecimal bits (`0x7FC00000 : f32`).
    FloatBits(u64),
}

/// `arith.cmpi` predicates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpIPredicate {
    /// `eq`
    Eq,
    /// `ne`
    Ne,
    /// `slt`
    Slt,
    /// `sle`
    Sle,
    /// `sgt`
    Sgt,
    /// `sge`
    Sge,
    /// `ult`
    Ult,
    /// `ule`
    Ule,
    /// `ugt`
    Ugt,
    /// `uge`
    Uge,
}

/// `arith.cmpf` predicates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpFPredicate {
    /// `false`
    False,
    /// `oeq`
    Oeq,
    /// `ogt`
    Ogt,
    /// `oge`
    Oge,
    /// `olt`
    Olt,
    /// `ole`
    Ole,
    /// `one`
    One,
    /// `ord`
    Ord,
    /// `ueq`
    Ueq,
    /// `ugt`
    Ugt,
    /// `uge`
    Uge,
    /// `ult`
    Ult,
    /// `ule`
    Ule,
    /// `une`
    Une,
    /// `uno`
    Uno,
    /// `true`
    True,
}

/// `#pto<round_mode ...>` rounding modes of `pto.tcvt` (manual §4.12): the shared
/// `npusim_core::RoundMode`; `NONE`, `RINT` and `CAST_RINT` all read as `Rint`.
pub use npusim_core::RoundMode;

/// Global-tensor layout hint (`#pto.layout<nd>`; manual §3.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GmLayout {
    /// `nd`: row-major.
    Nd,
    /// `dn`: column-major.
    Dn,
    /// `nz`: fractal.
    Nz,
}

/// A generic attribute value, kept for attributes without a typed field.
#[derive(Clone, Debug, PartialEq)]
pub enum Attr {
    /// Integer (with optional `: type`, dropped).
    Int(i64),
    /// Float.
    Float(f64),
    /// `true` / `false`.
    Bool(bool),
    /// String literal.
    Str(String),
    /// Attribute without a value (`{foo}`) or `unit`.
    Unit,
    /// Bare keyword such as `PIPE_V`.
    Keyword(String),
    /// `#dialect<body>` or `<body>`; `body` is the inner tokens joined by single spaces.
    Opaque {
        /// `pto`, `pto.layout`, ... (empty for a bare `<...>`).
        dialect: String,
        /// The text between the angle brackets.
        body: String,
    },
    /// `[a, b, ...]`.
    Array(Vec<Attr>),
    /// A type used as an attribute.
    Type(Type),
}

/// Typed attributes of a DPS tile op.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TileAttrs {
    /// `cmpMode` of `pto.tcmp`/`pto.tcmps` (default `Eq` when absent is the op's business).
    pub cmp: Option<CmpMode>,
    /// `rmode` of `pto.tcvt`.
    pub rmode: Option<RoundMode>,
    /// Any other attribute, by name.
    pub other: Vec<(String, Attr)>,
}

/// `pto.get_block_idx` and friends (manual §4.19); each returns `i64`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RuntimeQuery {
    /// `pto.get_block_idx`
    BlockIdx,
    /// `pto.get_block_num`
    BlockNum,
    /// `pto.get_subblock_idx`
    SubblockIdx,
    /// `pto.get_subblock_num`
    SubblockNum,
}

/// A synchronisation op. The functional simulator runs ops in order, so these are no-ops at
/// run time; the parser checks that every wait has a matching record/set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyncOp {
    /// `pto.record_event`, `pto.wait_event`, `pto.set_flag`, `pto.wait_flag`, `pto.barrier`,
    /// `pto.barrier_sync`, `pto.sync.set` or `pto.sync.wait`.
    pub op: OpCode,
    /// The attribute arguments as mnemonics, e.g. `["TLOAD", "TVEC", "EVENT_ID0"]` or
    /// `["PIPE_V"]`.
    pub args: Vec<String>,
}

/// A straight-line list of ops with block arguments. Regions of `scf.*`, `pto.section.*` and
/// `func.func` have exactly one block.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Block {
    /// Block arguments: for an `scf.for` body the induction variable then the iter_args; for
    /// the `do` region of `scf.while` the values passed by `scf.condition`.
    pub args: Vec<ValueId>,
    /// The ops. Bodies of `scf.for`, `scf.if` and the `do` region of `scf.while` always end
    /// with [`OpKind::Yield`] (inserted if the source left it implicit); the `before` region of
    /// `scf.while` ends with [`OpKind::Condition`]; a function body ends with
    /// [`OpKind::Return`].
    pub ops: Vec<Op>,
}

/// One op and where it is in the source.
#[derive(Clone, Debug, PartialEq)]
pub struct Op {
    /// What it does.
    pub kind: OpKind,
    /// Span of the op name (used for run-time error messages).
    pub span: Span,
}

/// The ops the parser produces.
#[derive(Clone, Debug, PartialEq)]
pub enum OpKind {
    /// `arith.constant`.
    Constant {
        /// Result.
        result: ValueId,
        /// Value.
        value: ConstValue,
    },
    /// Integer or float binary `arith` op (`addi`, `ceildivsi`, `maxnumf`, ...); operands and
    /// result share one scalar type.
    Binary {
        /// Which op.
        op: OpCode,
        /// Result.
        result: ValueId,
        /// Left operand.
        lhs: ValueId,
        /// Right operand.
        rhs: ValueId,
    },
    /// `arith.negf`.
    Unary {
        /// Which op.
        op: OpCode,
        /// Result.
        result: ValueId,
        /// Operand.
        operand: ValueId,
    },
    /// Casts: `arith.index_cast`, `extsi`, `sitofp`, `truncf`, ... (`%r = op %x : A to B`).
    Cast {
        /// Which op.
        op: OpCode,
        /// Result (type B).
        result: ValueId,
        /// Operand (type A).
        operand: ValueId,
    },
    /// `arith.cmpi`; result is `i1`.
    CmpI {
        /// Predicate.
        pred: CmpIPredicate,
        /// Result.
        result: ValueId,
        /// Left operand.
        lhs: ValueId,
        /// Right operand.
        rhs: ValueId,
    },
    /// `arith.cmpf`; result is `i1`.
    CmpF {
        /// Predicate.
        pred: CmpFPredicate,
        /// Result.
        result: ValueId,
        /// Left operand.
        lhs: ValueId,
        /// Right operand.
        rhs: ValueId,
    },
    /// `arith.select`.
    Select {
        /// Result.
        result: ValueId,
        /// `i1` condition.
        cond: ValueId,
        /// Value if true.
        on_true: ValueId,
        /// Value if false.
        on_false: ValueId,
    },
    /// `scf.for`: `body.args` is `[iv, iter_args...]`; the body ends with `scf.yield`.
    For {
        /// Loop results (one per iter_arg).
        results: Vec<ValueId>,
        /// Lower bound.
        lower: ValueId,
        /// Upper bound (exclusive).
        upper: ValueId,
        /// Step.
        step: ValueId,
        /// Initial values of the iter_args.
        inits: Vec<ValueId>,
        /// Body.
        body: Block,
    },
    /// `scf.if`; both bodies end with `scf.yield` (an absent `else` is an empty block).
    If {
        /// Results.
        results: Vec<ValueId>,
        /// `i1` condition.
        cond: ValueId,
        /// Then region.
        then_body: Block,
        /// Else region.
        else_body: Block,
    },
    /// `scf.while`: `before.args` receive `inits` (then each `scf.yield` of `after`); `before`
    /// ends with `scf.condition`, whose values become `after.args` or, on exit, `results`.
    While {
        /// Results.
        results: Vec<ValueId>,
        /// Initial values.
        inits: Vec<ValueId>,
        /// Condition region.
        before: Block,
        /// Body region.
        after: Block,
    },
    /// `scf.yield`.
    Yield {
        /// Yielded values.
        values: Vec<ValueId>,
    },
    /// `scf.condition(%c) %v...`.
    Condition {
        /// `i1` condition.
        cond: ValueId,
        /// Values forwarded.
        values: Vec<ValueId>,
    },
    /// `return` / `func.return`.
    Return {
        /// Returned values.
        values: Vec<ValueId>,
    },
    /// `func.call @f(...)`.
    Call {
        /// Callee.
        callee: FuncId,
        /// Arguments.
        args: Vec<ValueId>,
        /// Results.
        results: Vec<ValueId>,
    },
    /// `pto.make_tensor_view %ptr, shape = [...], strides = [...]`.
    MakeTensorView {
        /// Result (`!pto.tensor_view`).
        result: ValueId,
        /// Base pointer.
        ptr: ValueId,
        /// `index` sizes, one per dim.
        shape: Vec<ValueId>,
        /// `index` strides in elements, one per dim.
        strides: Vec<ValueId>,
        /// Layout hint, if given.
        layout: Option<GmLayout>,
    },
    /// `pto.partition_view %tv, offsets = [...], sizes = [...]`.
    PartitionView {
        /// Result (`!pto.partition_tensor_view`).
        result: ValueId,
        /// Source tensor view.
        source: ValueId,
        /// `index` offsets.
        offsets: Vec<ValueId>,
        /// `index` sizes.
        sizes: Vec<ValueId>,
    },
    /// `pto.alloc_tile [addr = %a] [valid_row = %r] [valid_col = %c]`.
    AllocTile {
        /// Result (`!pto.tile_buf`).
        result: ValueId,
        /// `i64` byte address in the tile's memory, if manual.
        addr: Option<ValueId>,
        /// `index` valid rows, present iff `v_row=?`.
        valid_row: Option<ValueId>,
        /// `index` valid columns, present iff `v_col=?`.
        valid_col: Option<ValueId>,
    },
    /// `pto.set_validshape %tile, %rows, %cols : type`: sets the run-time valid shape of a
    /// tile whose type has `v_row=?, v_col=?`.
    SetValidShape {
        /// The tile.
        tile: ValueId,
        /// `index` valid rows.
        valid_row: ValueId,
        /// `index` valid columns.
        valid_col: ValueId,
    },
    /// Any DPS op `pto.op ins(...) outs(...)`: every tile op, `pto.tload`, `pto.tstore`,
    /// `pto.tmov`, `pto.tprint`, the matmuls. Operand kinds match one of `op.ins_forms()`.
    Tile {
        /// Which op.
        op: OpCode,
        /// `ins(...)` operands (tiles, scalars, partition views).
        ins: Vec<ValueId>,
        /// `outs(...)` operands.
        outs: Vec<ValueId>,
        /// Attributes.
        attrs: TileAttrs,
    },
    /// `pto.get_block_idx` and friends.
    Runtime {
        /// Which query.
        query: RuntimeQuery,
        /// Result (`i64`).
        result: ValueId,
    },
    /// `pto.section.vector { ... }` / `pto.section.cube { ... }`.
    Section {
        /// `true` for vector, `false` for cube.
        vector: bool,
        /// Body.
        body: Block,
    },
    /// Synchronisation ops.
    Sync(SyncOp),
    /// An op of the PTOAS dialect parsed generically (operands defined, results typed):
    /// cross-core pipes, reserved buffers, dynamic event ids, `memref.alloc`, tile ops
    /// `npusim-pto` lacks. The interpreter executes `pto.addptr`, `pto.get_tensor_view_dim` and
    /// the SSA `pto.treshape` / `pto.bitcast` from this form; any other lowers to an instruction that fails with "not supported" when
    /// reached.
    Opaque {
        /// Which op.
        op: OpCode,
        /// Value operands, in source order.
        operands: Vec<ValueId>,
        /// Results.
        results: Vec<ValueId>,
        /// Attribute names given (`{split = 0}` gives `split`), for rule checks.
        attrs: Vec<(String, Attr)>,
    },
}

/// A function.
#[derive(Clone, Debug, PartialEq)]
pub struct Func {
    /// Name without `@`.
    pub name: String,
    /// Span of `@name`.
    pub span: Span,
    /// Parameters, in order (their names are `values[p].name`).
    pub params: Vec<ValueId>,
    /// Result types.
    pub results: Vec<Type>,
    /// Body; `None` for an external declaration.
    pub body: Option<Block>,
    /// The value table: every SSA value of the function.
    pub values: Vec<ValueInfo>,
    /// `pto.kernel_kind` (`vector` / `cube`), if given.
    pub kernel_kind: Option<String>,
    /// Marked `attributes {pto.entry}`: a kernel entry point.
    pub is_entry: bool,
}

impl Func {
    /// Information about a value of this function.
    ///
    /// Ids from the parser are always in range; an out-of-range id (from another function)
    /// would panic like any slice index.
    pub fn value(&self, id: ValueId) -> &ValueInfo {
        &self.values[id.index()]
    }

    /// Type of a value.
    pub fn ty(&self, id: ValueId) -> &Type {
        &self.value(id).ty
    }

    /// The parameter named `name` (without `%`), if any.
    pub fn param_by_name(&self, name: &str) -> Option<(usize, ValueId)> {
        self.params
            .iter()
            .enumerate()
            .find(|(_, v)| self.values[v.index()].name == name)
            .map(|(i, v)| (i, *v))
    }
}

/// A parsed, verified PTO-AS module.
#[derive(Clone, Debug, PartialEq)]
pub struct Module {
    /// `pto.target_arch`, if the module gives one.
    pub target_arch: Option<TargetArch>,
    /// Functions in source order.
    pub funcs: Vec<Func>,
}

impl Module {
    /// The function with this name (without `@`).
    pub fn func_by_name(&self, name: &str) -> Option<FuncId> {
        self.funcs
            .iter()
            .position(|f| f.name == name)
            .map(|i| FuncId(i as u32))
    }

    /// The function with this id.
    pub fn func(&self, id: FuncId) -> &Func {
        &self.funcs[id.0 as usize]
    }

    /// The function to run by default, when the module makes it unambiguous: the only
    /// function with a body; else the only defined function that no other function calls;
    /// else, among those, the only one marked `pto.entry`. `None` when there is no such
    /// function or when several qualify ([`Module::entry_candidates`] lists them).
    pub fn entry(&self) -> Option<FuncId> {
        match self.entry_candidates().as_slice() {
            [one] => Some(*one),
            _ => None,
        }
    }

    /// The functions that could be the default entry under the rule of [`Module::entry`], in
    /// source order: one element when the choice is clear, several when it is ambiguous.
    pub fn entry_candidates(&self) -> Vec<FuncId> {
        let id = |i: usize| FuncId(i as u32);
        let defined: Vec<usize> = (0..self.funcs.len())
            .filter(|&i| self.funcs[i].body.is_some())
            .collect();
        if defined.len() <= 1 {
            return defined.into_iter().map(id).collect();
        }
        let mut called = vec![false; self.funcs.len()];
        for f in &self.funcs {
            if let Some(b) = &f.body {
                mark_calls(b, &mut called);
            }
        }
        let uncalled: Vec<usize> = defined.into_iter().filter(|&i| !called[i]).collect();
        let marked: Vec<usize> = uncalled
            .iter()
            .copied()
            .filter(|&i| self.funcs[i].is_entry)
            .collect();
        if uncalled.len() > 1 && !marked.is_empty() {
            return marked.into_iter().map(id).collect();
        }
        uncalled.into_iter().map(id).collect()
    }
}

fn mark_calls(block: &Block, called: &mut [bool]) {
    for op in &block.ops {
        match &op.kind {
            OpKind::Call { callee, .. } => {
                if let Some(c) = called.get_mut(callee.0 as usize) {
                    *c = true;
                }
            }
            OpKind::For { body, .. } | OpKind::Section { body, .. } => mark_calls(body, called),
            OpKind::If {
                then_body,
                else_body,
                ..
            } => {
                mark_calls(then_body, called);
                mark_calls(else_body, called);
            }
            OpKind::While { before, after, .. } => {
                mark_calls(before, called);
                mark_calls(after, called);
            }
            _ => {}
        }
    }
}

/// A keyword-valued attribute or type parameter: its PTOAS spelling, both ways. Implemented
/// for the dialect's own enums and for the `npusim-pto` enums the dialect spells directly
/// (tile layouts, compare modes).
pub trait Mnemonic: Sized + 'static {
    /// All mnemonics, for error messages.
    const NAMES: &'static [&'static str];
    /// The mnemonic as PTOAS prints it.
    fn name(self) -> &'static str;
    /// Parses a mnemonic.
    fn from_name(s: &str) -> Option<Self>;
}

macro_rules! mnemonics {
    ($ty:ident { $($variant:ident => $text:literal $(| $alt:literal)*),* $(,)? }) => {
        impl Mnemonic for $ty {
            const NAMES: &'static [&'static str] = &[$($text),*];

            fn name(self) -> &'static str {
                match self { $($ty::$variant => $text,)* }
            }

            fn from_name(s: &str) -> Option<Self> {
                match s { $($text $(| $alt)* => Some($ty::$variant),)* _ => None }
            }
        }
    };
}

mnemonics!(BLayout { RowMajor => "row_major" | "RowMajor", ColMajor => "col_major" | "ColMajor" });
mnemonics!(SLayout {
    NoneBox => "none_box" | "NoneBox",
    RowMajor => "row_major" | "RowMajor",
    ColMajor => "col_major" | "ColMajor",
});
impl Mnemonic for PadValue {
    const NAMES: &'static [&'static str] = &["null", "zero", "max", "min"];
    fn name(self) -> &'static str {
        match self {
            PadValue::Null | PadValue::Custom(_) => "null",
            PadValue::Zero => "zero",
            PadValue::Max => "max",
            PadValue::Min => "min",
        }
    }
    fn from_name(s: &str) -> Option<Self> {
        match s {
            "null" | "Null" => Some(PadValue::Null),
            "zero" | "Zero" => Some(PadValue::Zero),
            "max" | "Max" => Some(PadValue::Max),
            "min" | "Min" => Some(PadValue::Min),
            _ => None,
        }
    }
}
mnemonics!(CmpMode {
    Eq => "equal" | "eq",
    Ne => "not_equal" | "ne",
    Lt => "less_than" | "lt",
    Le => "less_equal" | "le",
    Gt => "greater_than" | "gt",
    Ge => "greater_equal" | "ge",
});
impl Mnemonic for RoundMode {
    const NAMES: &'static [&'static str] = &[
        "NONE",
        "RINT",
        "ROUND",
        "FLOOR",
        "CEIL",
        "TRUNC",
        "ODD",
        "CAST_RINT",
    ];
    fn name(self) -> &'static str {
        match self {
            RoundMode::Rint => "RINT",
            RoundMode::Round => "ROUND",
            RoundMode::Floor => "FLOOR",
            RoundMode::Ceil => "CEIL",
            RoundMode::Trunc => "TRUNC",
            RoundMode::Odd => "ODD",
        }
    }
    fn from_name(s: &str) -> Option<Self> {
        match s {
            "NONE" | "RINT" | "CAST_RINT" => Some(RoundMode::Rint),
            "ROUND" => Some(RoundMode::Round),
            "FLOOR" => Some(RoundMode::Floor),
            "CEIL" => Some(RoundMode::Ceil),
            "TRUNC" => Some(RoundMode::Trunc),
            "ODD" => Some(RoundMode::Odd),
            _ => None,
        }
    }
}
mnemonics!(GmLayout { Nd => "nd", Dn => "dn", Nz => "nz" });
mnemonics!(CmpIPredicate {
    Eq => "eq",
    Ne => "ne",
    Slt => "slt",
    Sle => "sle",
    Sgt => "sgt",
    Sge => "sge",
    Ult => "ult",
    Ule => "ule",
    Ugt => "ugt",
    Uge => "uge",
});
mnemonics!(CmpFPredicate {
    False => "false",
    Oeq => "oeq",
    Ogt => "ogt",
    Oge => "oge",
    Olt => "olt",
    Ole => "ole",
    One => "one",
    Ord => "ord",
    Ueq => "ueq",
    Ugt => "ugt",
    Uge => "uge",
    Ult => "ult",
    Ule => "ule",
    Une => "une",
    Uno => "uno",
    True => "true",
});

impl CompactMode {
    /// The integer code used by `compact=N`.
    pub fn code(self) -> u64 {
        match self {
            CompactMode::Null => 0,
            CompactMode::Normal => 1,
            CompactMode::RowPlusOne => 2,
        }
    }

    /// Inverse of [`CompactMode::code`].
    pub fn from_code(n: u64) -> Option<Self> {
        Some(match n {
            0 => CompactMode::Null,
            1 => CompactMode::Normal,
            2 => CompactMode::RowPlusOne,
            _ => return None,
        })
    }
}
