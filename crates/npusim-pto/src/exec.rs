//! The data-driven entry point: one [`TileOp`] value per instruction instance, executed by
//! [`TileCore::exec`].
//!
//! An interpreter resolves operands once (tiles validated at allocation, scalars as
//! [`Scalar`], modes as enums) and builds `TileOp { op, args }`; `exec` checks that the
//! arguments fit the op's [`Class`] from the table and calls the per-family entry point.

use crate::core::TileCore;
use crate::error::PtoError;
use crate::ops::memory::GlobalTensor;
use crate::ops::{CmpMode, Scalar};
use crate::table::{Class, OpCode};
use crate::tile::Tile;
use npusim_core::convert::{RoundMode, Saturation};

/// Resolved operands, one shape per operand class.
#[derive(Clone, Debug, PartialEq)]
pub enum Args {
    Unary {
        dst: Tile,
        src: Tile,
    },
    Binary {
        dst: Tile,
        src0: Tile,
        src1: Tile,
    },
    Ternary {
        dst: Tile,
        src0: Tile,
        src1: Tile,
        src2: Tile,
    },
    TileScalar {
        dst: Tile,
        src: Tile,
        scalar: Scalar,
    },
    /// TDIVS scalar/tile form.
    ScalarTile {
        dst: Tile,
        scalar: Scalar,
        src: Tile,
    },
    TileScalarTile {
        dst: Tile,
        src0: Tile,
        scalar: Scalar,
        src1: Tile,
    },
    Fill {
        dst: Tile,
        scalar: Scalar,
    },
    PartialArg {
        dst_val: Tile,
        dst_idx: Tile,
        src0_val: Tile,
        src0_idx: Tile,
        src1_val: Tile,
        src1_idx: Tile,
    },
    ArgReduce {
        dst_idx: Tile,
        src: Tile,
        dst_val: Option<Tile>,
    },
    Compare {
        dst: Tile,
        src0: Tile,
        src1: Tile,
        mode: CmpMode,
    },
    CompareScalar {
        dst: Tile,
        src: Tile,
        scalar: Scalar,
        mode: CmpMode,
    },
    Select {
        dst: Tile,
        mask: Tile,
        src0: Tile,
        src1: Tile,
    },
    SelectScalar {
        dst: Tile,
        mask: Tile,
        src: Tile,
        scalar: Scalar,
    },
    Convert {
        dst: Tile,
        src: Tile,
        mode: RoundMode,
        sat: Saturation,
    },
    Load {
        dst: Tile,
        src: GlobalTensor,
    },
    Store {
        dst: GlobalTensor,
        src: Tile,
    },
}

/// One instruction instance.
#[derive(Clone, Debug, PartialEq)]
pub struct TileOp {
    pub op: OpCode,
    pub args: Args,
}

impl TileCore {
    /// Executes one instruction.
    pub fn exec(&mut self, i: &TileOp) -> Result<(), PtoError> {
        let op = i.op;
        let class = op.info().class;
        let bad = || PtoError::Operands {
            op: op.name(),
            expected: class_str(class),
        };
        match (&i.args, class) {
            (Args::Unary { dst, src }, Class::Unary) => self.unary(op, dst, src),
            (Args::Binary { dst, src0, src1 }, Class::Binary) => self.binary(op, dst, src0, src1),
            (Args::Binary { dst, src0, src1 }, Class::Partial) => self.partial(op, dst, src0, src1),
            (Args::Binary { dst, src0, src1 }, Class::ExpandBinary) => {
                self.expand_binary(op, dst, src0, src1)
            }
            (Args::Unary { dst, src }, Class::RowReduce) => self.row_reduce(op, dst, src),
            (Args::Unary { dst, src }, Class::ColReduce) => self.col_reduce(op, dst, src),
            (Args::Unary { dst, src }, Class::Expand) => self.expand(op, dst, src),
            (
                Args::Ternary {
                    dst,
                    src0,
                    src1,
                    src2,
                },
                Class::Ternary,
            ) => self.ternary(op, dst, src0, src1, src2),
            (Args::TileScalar { dst, src, scalar }, Class::TileScalar) => {
                self.tile_scalar(op, dst, src, *scalar)
            }
            (Args::ScalarTile { dst, scalar, src }, Class::TileScalar) if op == OpCode::Tdivs => {
                self.tdivs_scalar_tile(dst, *scalar, src)
            }
            (
                Args::TileScalarTile {
                    dst,
                    src0,
                    scalar,
                    src1,
                },
                Class::TileScalarTile,
            ) => self.tile_scalar_tile(op, dst, src0, *scalar, src1),
            (Args::Fill { dst, scalar }, Class::Fill) => self.texpands(dst, *scalar),
            (
                Args::PartialArg {
                    dst_val,
                    dst_idx,
                    src0_val,
                    src0_idx,
                    src1_val,
                    src1_idx,
                },
                Class::PartialArg,
            ) => self.partial_arg(op, dst_val, dst_idx, src0_val, src0_idx, src1_val, src1_idx),
            (
                Args::ArgReduce {
                    dst_idx,
                    src,
                    dst_val,
                },
                Class::RowArgReduce,
            ) => self.row_arg_reduce(op, dst_idx, src, dst_val.as_ref()),
            (
                Args::ArgReduce {
                    dst_idx,
                    src,
                    dst_val,
                },
                Class::ColArgReduce,
            ) => self.col_arg_reduce(op, dst_idx, src, dst_val.as_ref()),
            (
                Args::Compare {
                    dst,
                    src0,
                    src1,
                    mode,
                },
                Class::Compare,
            ) => self.tcmp(dst, src0, src1, *mode),
            (
                Args::CompareScalar {
                    dst,
                    src,
                    scalar,
                    mode,
                },
                Class::CompareScalar,
            ) => self.tcmps(dst, src, *scalar, *mode),
            (
                Args::Select {
                    dst,
                    mask,
                    src0,
                    src1,
                },
                Class::Select,
            ) => self.tsel(dst, mask, src0, src1),
            (
                Args::SelectScalar {
                    dst,
                    mask,
                    src,
                    scalar,
                },
                Class::SelectScalar,
            ) => self.tsels(dst, mask, src, *scalar),
            (
                Args::Convert {
                    dst,
                    src,
                    mode,
                    sat,
                },
                Class::Convert,
            ) => self.tcvt(dst, src, *mode, *sat),
            (Args::Load { dst, src }, Class::Load) => self.tload(dst, src),
            (Args::Store { dst, src }, Class::Store) => self.tstore(dst, src),
            _ => Err(bad()),
        }
    }
}

fn class_str(c: Class) -> &'static str {
    match c {
        Class::Unary | Class::RowReduce | Class::ColReduce | Class::Expand => {
            "Args::Unary { dst, src }"
        }
        Class::Binary | Class::Partial | Class::ExpandBinary => "Args::Binary { dst, src0, src1 }",
        Class::Ternary => "Args::Ternary",
        Class::TileScalar => "Args::TileScalar (or ScalarTile for TDIVS)",
        Class::TileScalarTile => "Args::TileScalarTile",
        Class::Fill => "Args::Fill",
        Class::PartialArg => "Args::PartialArg",
        Class::RowArgReduce | Class::ColArgReduce => "Args::ArgReduce",
        Class::Compare => "Args::Compare",
        Class::CompareScalar => "Args::CompareScalar",
        Class::Select => "Args::Select",
        Class::SelectScalar => "Args::SelectScalar",
        Class::Convert => "Args::Convert",
        Class::Load => "Args::Load",
        Class::Store => "Args::Store",
    }
}
