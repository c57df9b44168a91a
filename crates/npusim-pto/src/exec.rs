//! The data-driven entry point: one [`TileOp`] value per instruction instance, executed by
//! [`TileCore::exec`].
//!
//! An interpreter resolves operands once (tiles validated at allocation, scalars as
//! [`Scalar`], modes as enums) and builds `TileOp { op, args }`; `exec` checks that the
//! arguments fit the op's [`Class`] from the table and calls the per-family entry point.
//!
//! A program that runs the same instruction many times prepares it once instead
//! ([`TileCore::prepare`]): the static checks (location, layout, element type on the arch,
//! address and capacity, valid-region rules) run at preparation, and [`TileCore::run`] of the
//! [`PreparedOp`] goes straight to the element engine while the core's policy and memories are
//! the ones it was checked against. `run` always behaves exactly as `exec` of the same op: an
//! op whose checks failed, or which is run on a core it was not checked for, simply takes the
//! `exec` path and reports its error there, at execution, as `exec` would. The data-dependent
//! checks (integer division by zero) run on every execution. An elementwise op with no such
//! check is also compiled at preparation: its element function (the same one `exec` uses, see
//! [`crate::ops::elementwise`]) is bound to its operands' row plan, so `run` is one call into
//! the row engine.

use crate::core::TileCore;
use crate::engine::CompiledRows;
use crate::error::PtoError;
use crate::ops::elementwise::{
    Compile, binary_meaning, tdivs_scalar_tile_meaning, ternary_meaning, tile_scalar_meaning,
    tile_scalar_tile_meaning, unary_meaning,
};
use crate::ops::memory::GlobalTensor;
use crate::ops::{CmpMode, Scalar, StaticChecks};
use crate::table::{Class, OpCode};
use crate::tile::Tile;
use npusim_core::TilePolicy;
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

/// What a preparation's static checks depend on: the numeric policy (arch, type lists) and the
/// capacity of every on-chip memory (address checks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CheckContext {
    pub(crate) policy: TilePolicy,
    pub(crate) capacities: [usize; 7],
}

/// A [`TileOp`] together with the outcome of its static checks on one core, and, when its
/// execution depends on nothing but its operands' bytes, its element function bound to their
/// footprint (see [`TileCore::prepare`]).
#[derive(Clone, Debug)]
pub struct PreparedOp {
    op: TileOp,
    compiled: Option<CompiledRows>,
    /// The context (and its epoch) the static checks passed in; `None` when they failed or when
    /// the op's class has no separate static checks (it then runs through [`TileCore::exec`]).
    passed_in: Option<(CheckContext, u64)>,
}

impl PreparedOp {
    /// The instruction.
    pub fn op(&self) -> &TileOp {
        &self.op
    }
    /// Whether the static checks passed at preparation (so `run` skips them on that core).
    pub fn prechecked(&self) -> bool {
        self.passed_in.is_some()
    }
    /// Whether `run` goes straight to the bound element function (no checks, no dispatch).
    pub fn compiled(&self) -> bool {
        self.compiled.is_some()
    }
}

/// The operands of the forms whose static checks are exactly `check_elementwise`, named as
/// the family entry points name them: `(dst, sources, count)`.
type ElementwiseForm<'a> = (&'a Tile, [(&'static str, &'a Tile); 3], usize);

fn elementwise_form(i: &TileOp) -> Option<ElementwiseForm<'_>> {
    let class = i.op.info().class;
    Some(match (&i.args, class) {
        (Args::Unary { dst, src }, Class::Unary) => (dst, [("src", src); 3], 1),
        (Args::Binary { dst, src0, src1 }, Class::Binary) => {
            (dst, [("src0", src0), ("src1", src1), ("src1", src1)], 2)
        }
        (
            Args::Ternary {
                dst,
                src0,
                src1,
                src2,
            },
            Class::Ternary,
        ) => (dst, [("src0", src0), ("src1", src1), ("src2", src2)], 3),
        (Args::TileScalar { dst, src, .. }, Class::TileScalar) if i.op != OpCode::Taxpy => {
            (dst, [("src", src); 3], 1)
        }
        (Args::ScalarTile { dst, src, .. }, Class::TileScalar) if i.op == OpCode::Tdivs => {
            (dst, [("src", src); 3], 1)
        }
        (
            Args::TileScalarTile {
                dst, src0, src1, ..
            },
            Class::TileScalarTile,
        ) => (dst, [("src0", src0), ("src1", src1), ("src1", src1)], 2),
        _ => return None,
    })
}

impl TileCore {
    /// Runs `i`'s static checks once on this core. Never fails: an op whose checks fail is
    /// still prepared, and [`TileCore::run`] reports the error when it is executed.
    pub fn prepare(&self, i: TileOp) -> PreparedOp {
        let passed_in = elementwise_form(&i).and_then(|(dst, srcs, n)| {
            self.check_elementwise(i.op, dst, &srcs[..n])
                .ok()
                .map(|()| self.check_context())
        });
        let compiled = passed_in.and_then(|_| self.compile(&i));
        PreparedOp {
            op: i,
            compiled,
            passed_in,
        }
    }

    /// Binds a checked elementwise op's element function to its operands (see
    /// [`crate::ops::elementwise::Sink`]); `None` when it needs the checked path at run time
    /// (a data check such as integer division, a scalar the op rejects, or operands the fast
    /// engine does not take).
    fn compile(&self, i: &TileOp) -> Option<CompiledRows> {
        let mut sink = Compile {
            core: self,
            data_dependent: false,
        };
        let op = i.op;
        let out = match &i.args {
            Args::Unary { dst, src } => unary_meaning(&mut sink, op, dst, src),
            Args::Binary { dst, src0, src1 } => binary_meaning(&mut sink, op, dst, src0, src1),
            Args::Ternary {
                dst,
                src0,
                src1,
                src2,
            } => ternary_meaning(&mut sink, op, dst, src0, src1, src2),
            Args::TileScalar { dst, src, scalar } => {
                tile_scalar_meaning(&mut sink, op, dst, src, *scalar)
            }
            Args::ScalarTile { dst, scalar, src } => {
                tdivs_scalar_tile_meaning(&mut sink, dst, *scalar, src)
            }
            Args::TileScalarTile {
                dst,
                src0,
                scalar,
                src1,
            } => tile_scalar_tile_meaning(&mut sink, op, dst, src0, *scalar, src1),
            _ => return None,
        };
        if sink.data_dependent {
            return None;
        }
        out.ok().flatten()
    }

    /// Executes a prepared instruction: the same effect and result as `exec(p.op())`, without
    /// repeating the static checks when they passed on a core like this one.
    pub fn run(&mut self, p: &PreparedOp) -> Result<(), PtoError> {
        let (context, epoch) = self.check_context();
        let passed = p.passed_in.is_some_and(|(c, e)| e == epoch || c == context);
        if !passed || self.reference() {
            return self.exec_with(&p.op, StaticChecks::Run);
        }
        match &p.compiled {
            Some(rows) => {
                self.run_compiled(rows);
                Ok(())
            }
            None => self.exec_with(&p.op, StaticChecks::AlreadyPassed),
        }
    }

    /// Executes one instruction.
    pub fn exec(&mut self, i: &TileOp) -> Result<(), PtoError> {
        self.exec_with(i, StaticChecks::Run)
    }

    fn exec_with(&mut self, i: &TileOp, checks: StaticChecks) -> Result<(), PtoError> {
        let op = i.op;
        let class = op.info().class;
        let bad = || PtoError::Operands {
            op: op.name(),
            expected: class_str(class),
        };
        match (&i.args, class) {
            (Args::Unary { dst, src }, Class::Unary) => self.unary_with(checks, op, dst, src),
            (Args::Binary { dst, src0, src1 }, Class::Binary) => {
                self.binary_with(checks, op, dst, src0, src1)
            }
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
            ) => self.ternary_with(checks, op, dst, src0, src1, src2),
            (Args::TileScalar { dst, src, scalar }, Class::TileScalar) => {
                self.tile_scalar_with(checks, op, dst, src, *scalar)
            }
            (Args::ScalarTile { dst, scalar, src }, Class::TileScalar) if op == OpCode::Tdivs => {
                self.tdivs_scalar_tile_with(checks, dst, *scalar, src)
            }
            (
                Args::TileScalarTile {
                    dst,
                    src0,
                    scalar,
                    src1,
                },
                Class::TileScalarTile,
            ) => self.tile_scalar_tile_with(checks, op, dst, src0, *scalar, src1),
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
