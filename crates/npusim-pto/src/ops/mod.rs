//! The instruction families, each a thin layer of checks and element functions over the shared
//! engine ([`crate::engine`]).
//!
//! - [`elementwise`]: tile-tile, unary, fused and tile-scalar instructions;
//! - [`partial`]: TPART* over mismatched valid regions;
//! - [`reduce`]: row and column reductions and the expand (broadcast) family;
//! - [`select`]: TCMP/TCMPS packed masks, TSEL/TSELS, and TCVT;
//! - [`fp4`]: TCVT's packed 4-bit pairs (A5 bf16 <-> float4_e2m1x2_t / float4_e1m2x2_t);
//! - [`memory`]: GlobalTensor, TLOAD and TSTORE;
//! - [`cube`]: TMATMUL, TMATMUL_ACC, TMATMUL_BIAS;
//! - [`mx`]: the A5 MX forms TMATMUL_MX, TGEMV_MX (and their ACC/BIAS forms), TGET_SCALE_ADDR;
//! - [`movement`]: TMOV (with the fixpipe modes), TEXTRACT, TINSERT and the per-location
//!   layout rules checked at declaration;
//! - [`arrange`]: the generators TCI and TTRI, TTRANS and TCONCAT;
//! - [`conv_trans`]: TTRANS on ConvTiles (NCHW <-> NC1HWC0, FRACTAL_Z, FRACTAL_Z_3D);
//! - [`sort`]: TSORT32 and TMRGSORT over value-index records;
//! - [`gather`]: TGATHER, TGATHERB and TSCATTER;
//! - [`gm_index`]: MGATHER and MSCATTER (indexed global memory);
//! - [`quant`]: TQUANT (INT8) and TDEQUANT;
//! - [`histogram`]: THISTOGRAM (A5);
//! - [`print`]: TPRINT's text;
//! - [`random`]: TRANDOM (A5);
//! - [`alias`]: TALIAS, a view of a tile's storage;
//! - [`interleave`]: TINTERLEAVE, TDEINTERLEAVE and TPAIRREDUCESUM;
//! - [`fused`]: TADDRELUCONV and TADDDEQRELU;
//! - [`prefetch`]: TPREFETCH (a hint: operand checks only);
//! - [`img2col`]: TIMG2COL (the convolution gather into a Left tile).

pub mod alias;
pub mod arrange;
pub mod config;
pub mod conv_trans;
pub mod cube;
#[cfg(target_arch = "x86_64")]
mod cube_avx512;
pub mod elementwise;
pub mod fp4;
pub mod fused;
pub mod gather;
pub mod gm_index;
pub mod histogram;
pub mod img2col;
pub mod interleave;
pub mod memory;
pub mod movement;
pub mod mx;
pub mod pack;
pub mod partial;
pub mod prefetch;
pub mod print;
pub mod quant;
pub mod random;
pub mod reduce;
pub mod select;
pub mod sort;

use crate::core::TileCore;
use crate::error::PtoError;
use crate::num::{Elem, Num};
use crate::table::{OpCode, ValidRule};
use crate::tile::{Tile, TileLoc};
use npusim_core::TileArch;
use npusim_core::convert::{Exact, FloatFormat, RoundMode, Saturation, round_to_format};

pub use npusim_core::vocab::{CmpMode, Scalar};

/// A scalar operand as an element of the tile's type: converted to the element type (floats
/// round to nearest even, integers wrap, a float given for an integer tile truncates toward
/// zero), then widened to the compute type.
pub(crate) trait ScalarElem {
    fn to_c<T: Elem>(self) -> T::C;
}

impl ScalarElem for Scalar {
    fn to_c<T: Elem>(self) -> T::C {
        match FloatFormat::of(T::TYPE) {
            Some(fmt) => {
                let exact = match self {
                    Scalar::Int(i) => Exact::from_int(i as i128),
                    Scalar::Float(v) => Exact::from_f64(v),
                };
                T::from_bits_u64(round_to_format(
                    exact,
                    fmt,
                    RoundMode::Rint,
                    Saturation::Off,
                ))
                .widen()
            }
            None => match self {
                Scalar::Int(i) => T::from_bits_u64(i as u64).widen(),
                Scalar::Float(v) => T::C::from_f64(v.trunc()),
            },
        }
    }
}

// ---- shared checks ----

/// Whether an instruction entry runs its static checks (location, layout, element type on the
/// arch, address, valid-region rules), or skips them because they already passed for exactly
/// these operands on this core ([`crate::PreparedOp`]). Data-dependent checks (integer division
/// by zero, memory bounds of the fast path) always run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StaticChecks {
    Run,
    AlreadyPassed,
}

pub(crate) fn need_loc(
    op: OpCode,
    operand: &'static str,
    t: &Tile,
    loc: TileLoc,
) -> Result<(), PtoError> {
    if t.loc() != loc {
        return Err(PtoError::Static {
            op: op.name(),
            operand,
            rule: "tile location must be Vec",
            value: format!("{:?}", t.loc()),
        });
    }
    Ok(())
}

pub(crate) fn need_row_major(op: OpCode, operand: &'static str, t: &Tile) -> Result<(), PtoError> {
    if !t.is_row_major() {
        return Err(PtoError::Static {
            op: op.name(),
            operand,
            rule: "tile layout must be row-major",
            value: "col-major".into(),
        });
    }
    Ok(())
}

/// The typed error for an element type outside `legal`.
pub(crate) fn illegal(
    op: OpCode,
    arch: TileArch,
    operand: &'static str,
    t: npusim_core::ElemType,
    legal: &[npusim_core::ElemType],
) -> PtoError {
    PtoError::IllegalType {
        op: op.name(),
        operand,
        dtype: t,
        arch: crate::table::arch_name(arch),
        legal: crate::error::type_list(legal),
    }
}

/// `t`'s element type must be one of `legal` (operands whose types the table row does not
/// list: indices, parameters, outputs of another type).
pub(crate) fn need_type(
    op: OpCode,
    arch: TileArch,
    operand: &'static str,
    t: &Tile,
    legal: &[npusim_core::ElemType],
) -> Result<(), PtoError> {
    if legal.contains(&t.dtype()) {
        Ok(())
    } else {
        Err(illegal(op, arch, operand, t.dtype(), legal))
    }
}

pub(crate) fn need_nd(op: OpCode, operand: &'static str, t: &Tile) -> Result<(), PtoError> {
    if !t.is_row_major_plain() {
        return Err(PtoError::Static {
            op: op.name(),
            operand,
            rule: "tile must be ND (row-major, no box)",
            value: format!("{:?}/{:?}", t.desc().blayout, t.desc().slayout),
        });
    }
    Ok(())
}

pub(crate) fn same_type(
    op: OpCode,
    operand: &'static str,
    t: &Tile,
    other: &'static str,
    o: &Tile,
) -> Result<(), PtoError> {
    if t.dtype() != o.dtype() {
        return Err(PtoError::TypeMismatch {
            op: op.name(),
            operand,
            dtype: t.dtype(),
            other,
            expected: o.dtype(),
        });
    }
    Ok(())
}

pub(crate) fn vr_err(
    op: OpCode,
    operand: &'static str,
    rule: &'static str,
    value: String,
) -> PtoError {
    PtoError::ValidRegion {
        op: op.name(),
        operand,
        rule,
        value,
    }
}

/// The source's shape covers `rows x cols` (reads stay inside the tile).
pub(crate) fn covers(
    op: OpCode,
    operand: &'static str,
    s: &Tile,
    rows: usize,
    cols: usize,
) -> Result<(), PtoError> {
    if s.rows() < rows || s.cols() < cols {
        return Err(vr_err(
            op,
            operand,
            "the tile shape must cover the iteration domain",
            format!(
                "shape {}x{} for domain {}x{}",
                s.rows(),
                s.cols(),
                rows,
                cols
            ),
        ));
    }
    Ok(())
}

/// The source's valid region equals dst's.
pub(crate) fn same_valid(
    op: OpCode,
    operand: &'static str,
    s: &Tile,
    d: &Tile,
    rows: bool,
) -> Result<(), PtoError> {
    if (rows && s.valid_row() != d.valid_row()) || s.valid_col() != d.valid_col() {
        return Err(vr_err(
            op,
            operand,
            if rows {
                "must equal dst's valid rows and cols"
            } else {
                "must equal dst's valid cols"
            },
            format!(
                "{}x{} vs dst {}x{}",
                s.valid_row(),
                s.valid_col(),
                d.valid_row(),
                d.valid_col()
            ),
        ));
    }
    Ok(())
}

impl TileCore {
    /// The common checks of the elementwise families: Vec location, row-major, one element
    /// type, legal on the arch, and the table's valid-region rule.
    pub(crate) fn check_elementwise(
        &self,
        op: OpCode,
        dst: &Tile,
        srcs: &[(&'static str, &Tile)],
    ) -> Result<(), PtoError> {
        let arch = self.arch();
        need_loc(op, "dst", dst, TileLoc::Vec)?;
        need_row_major(op, "dst", dst)?;
        op.check_type(arch, "dst", dst.dtype())?;
        self.check_addr(dst, op.name(), "dst")?;
        let rule = op.info().valid;
        for (name, s) in srcs {
            need_loc(op, name, s, TileLoc::Vec)?;
            need_row_major(op, name, s)?;
            // (a source of dst's type is legal since dst is)
            if s.dtype() != dst.dtype() {
                op.check_type(arch, name, s.dtype())?;
                same_type(op, name, s, "dst", dst)?;
            }
            self.check_addr(s, op.name(), name)?;
            match rule {
                ValidRule::Same => same_valid(op, name, s, dst, true)?,
                ValidRule::SameColsOnA5 => same_valid(op, name, s, dst, arch == TileArch::A2A3)?,
                ValidRule::Dst | ValidRule::Own => {}
            }
            covers(op, name, s, dst.valid_row(), dst.valid_col())?;
        }
        Ok(())
    }
}
