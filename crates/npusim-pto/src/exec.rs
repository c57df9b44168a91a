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

use crate::core::{CheckContext, TileCore};
use crate::engine::CompiledRows;
use crate::error::PtoError;
use crate::ops::config::{FmatrixMode, Img2colRepeat};
use crate::ops::cube::Seed;
use crate::ops::elementwise::{
    Compile, binary_meaning, tdivs_scalar_tile_meaning, ternary_meaning, tile_scalar_meaning,
    tile_scalar_tile_meaning, unary_meaning,
};
use crate::ops::gather::MaskPattern;
use crate::ops::gm_index::{IndexOob, ScatterAtomic};
use crate::ops::img2col::Img2colConfig;
use crate::ops::memory::GlobalTensor;
use crate::ops::movement::MovMode;
use crate::ops::quant::{MxAxis, MxQuantAlg, QuantKind};
use crate::ops::sort::MergeLists;
use crate::ops::{CmpMode, Scalar, StaticChecks};
use crate::table::{Class, OpCode};
use crate::tile::Tile;
use npusim_core::convert::{RoundMode, Saturation};

/// What an operand form is generic over: the tile operand `Self`, and what stands for a scalar
/// and for a global tensor beside it. [`Tile`] is the resolved operand
/// (`Args<Tile>`, what [`TileCore::exec`] runs); `u32` is a slot index of a front end's frame
/// (`Args<u32>`: the same form with every operand still to be read, see [`Args::try_map`]).
pub trait Operand: Clone + std::fmt::Debug + PartialEq {
    type Scalar: Clone + std::fmt::Debug + PartialEq;
    type Global: Clone + std::fmt::Debug + PartialEq;
}

impl Operand for Tile {
    type Scalar = Scalar;
    type Global = GlobalTensor;
}

impl Operand for u32 {
    type Scalar = u32;
    type Global = u32;
}

/// Turns the operands of one [`Operand`] kind into another's (a front end resolving slots).
pub trait OperandMap<A: Operand, B: Operand> {
    type Error;
    fn tile(&mut self, a: &A) -> Result<B, Self::Error>;
    fn scalar(&mut self, s: &A::Scalar) -> Result<B::Scalar, Self::Error>;
    fn global(&mut self, g: &A::Global) -> Result<B::Global, Self::Error>;
}

macro_rules! field_map {
    (tile, $m:ident, $x:expr) => {
        $m.tile($x)?
    };
    (opt_tile, $m:ident, $x:expr) => {
        match $x {
            Some(t) => Some($m.tile(t)?),
            None => None,
        }
    };
    (scalar, $m:ident, $x:expr) => {
        $m.scalar($x)?
    };
    (global, $m:ident, $x:expr) => {
        $m.global($x)?
    };
    (opt_scalar, $m:ident, $x:expr) => {
        match $x {
            Some(s) => Some($m.scalar(s)?),
            None => None,
        }
    };
    (plain, $m:ident, $x:expr) => {
        *$x
    };
    (cmp, $m:ident, $x:expr) => {
        *$x
    };
    (round, $m:ident, $x:expr) => {
        *$x
    };
    (sat, $m:ident, $x:expr) => {
        *$x
    };
}

macro_rules! forms {
    ($($(#[$doc:meta])* $v:ident { $($f:ident: $k:ident($t:ty)),* $(,)? }),* $(,)?) => {
        /// An instruction's operands, one shape per operand form, declared once and generic over
        /// the operand ([`Operand`]): `Args` (= `Args<Tile>`) is what runs, `Args<u32>` the same
        /// form over a front end's slots.
        #[derive(Clone, Debug, PartialEq)]
        pub enum Args<O: Operand = Tile> {
            $($(#[$doc])* $v { $($f: $t),* }),*
        }

        impl<O: Operand> Args<O> {
            /// The same form over other operands (e.g. slots read from a frame into tiles).
            pub fn try_map<P: Operand, M: OperandMap<O, P>>(&self, m: &mut M) -> Result<Args<P>, M::Error> {
                Ok(match self {
                    $(Args::$v { $($f),* } => Args::$v { $($f: field_map!($k, m, $f)),* }),*
                })
            }
        }
    };
}

forms! {
    Unary { dst: tile(O), src: tile(O) },
    Binary { dst: tile(O), src0: tile(O), src1: tile(O) },
    Ternary { dst: tile(O), src0: tile(O), src1: tile(O), src2: tile(O) },
    TileScalar { dst: tile(O), src: tile(O), scalar: scalar(O::Scalar) },
    /// TDIVS scalar/tile form.
    ScalarTile { dst: tile(O), scalar: scalar(O::Scalar), src: tile(O) },
    TileScalarTile { dst: tile(O), src0: tile(O), scalar: scalar(O::Scalar), src1: tile(O) },
    Fill { dst: tile(O), scalar: scalar(O::Scalar) },
    PartialArg { dst_val: tile(O), dst_idx: tile(O), src0_val: tile(O), src0_idx: tile(O), src1_val: tile(O), src1_idx: tile(O) },
    ArgReduce { dst_idx: tile(O), src: tile(O), dst_val: opt_tile(Option<O>) },
    Compare { dst: tile(O), src0: tile(O), src1: tile(O), mode: cmp(CmpMode) },
    CompareScalar { dst: tile(O), src: tile(O), scalar: scalar(O::Scalar), mode: cmp(CmpMode) },
    Select { dst: tile(O), mask: tile(O), src0: tile(O), src1: tile(O) },
    SelectScalar { dst: tile(O), mask: tile(O), src: tile(O), scalar: scalar(O::Scalar) },
    Convert { dst: tile(O), src: tile(O), mode: round(RoundMode), sat: sat(Saturation) },
    Load { dst: tile(O), src: global(O::Global) },
    /// TMOV: an optional fp (Scaling) tile or pre-quant scalar, and ReLU.
    Move { dst: tile(O), src: tile(O), fp: opt_tile(Option<O>), scalar: opt_scalar(Option<O::Scalar>), relu: plain(bool) },
    /// TEXTRACT / TINSERT: a sub-tile at `(row, col)`.
    Window { dst: tile(O), src: tile(O), row: scalar(O::Scalar), col: scalar(O::Scalar) },
    Store { dst: global(O::Global), src: tile(O) },
    /// TCI: the start value and the direction.
    Iota { dst: tile(O), start: scalar(O::Scalar), descending: plain(bool) },
    /// TTRI: the diagonal and the triangle (`upper`, else lower).
    Tri { dst: tile(O), diagonal: scalar(O::Scalar), upper: plain(bool) },
    /// TSORT32, TGATHER (index form), TGATHERB, TSCATTER: a source and an index tile.
    Indexed { dst: tile(O), src: tile(O), idx: tile(O), tmp: opt_tile(Option<O>) },
    /// TGATHER mask-pattern form.
    GatherMask { dst: tile(O), src: tile(O), pattern: plain(MaskPattern) },
    /// TMRGSORT single-list form.
    MergeBlocks { dst: tile(O), src: tile(O), block_len: scalar(O::Scalar) },
    /// TMRGSORT 2-4 list form (the executed counts are returned by
    /// [`TileCore::tmrgsort_lists`]; `exec` drops them).
    MergeLists { dst: tile(O), tmp: tile(O), src0: tile(O), src1: tile(O), src2: opt_tile(Option<O>), src3: opt_tile(Option<O>), exhausted: plain(bool) },
    /// TSTORE_FP: an Acc tile through the fixpipe with per-column quant words.
    StoreFp { dst: global(O::Global), src: tile(O), fp: tile(O), relu: plain(bool) },
    /// THISTOGRAM: the source, the filter bytes and the histogrammed byte (0 = LSB).
    Histogram { dst: tile(O), src: tile(O), idx: tile(O), byte: plain(u8) },
    /// TQUANT INT8: per-row scale (and offset for the asymmetric kind).
    Quant { dst: tile(O), src: tile(O), scale: tile(O), offset: opt_tile(Option<O>), kind: plain(QuantKind) },
    /// MGATHER: a GM table read through an index tile.
    GmGather { dst: tile(O), table: global(O::Global), idx: tile(O), oob: plain(IndexOob) },
    /// MSCATTER: a GM table written through an index tile.
    GmScatter { table: global(O::Global), src: tile(O), idx: tile(O), atomic: plain(ScatterAtomic), oob: plain(IndexOob) },
    /// The MX cube forms: `c_in` for the `_ACC` rows, `bias` for the `_BIAS` rows.
    MatmulMx { dst: tile(O), c_in: opt_tile(Option<O>), a: tile(O), a_scale: tile(O), b: tile(O), b_scale: tile(O), bias: opt_tile(Option<O>) },
    /// TRANDOM: key words, counter words (word 0 least significant) and rounds.
    Random { dst: tile(O), key0: scalar(O::Scalar), key1: scalar(O::Scalar), counter0: scalar(O::Scalar), counter1: scalar(O::Scalar), counter2: scalar(O::Scalar), counter3: scalar(O::Scalar), rounds: plain(u32) },
    /// TINTERLEAVE (`src1` given), TDEINTERLEAVE (two-source with `src1`, single-source
    /// without).
    Interleave { dst0: tile(O), dst1: tile(O), src0: tile(O), src1: opt_tile(Option<O>) },
    /// TADDDEQRELU: two int32 sources, the f32 dequant scale and the int32 scratch tile.
    AddDeqRelu { dst: tile(O), src0: tile(O), src1: tile(O), scale: scalar(O::Scalar), tmp: tile(O) },
    /// TQUANT MX forms (A5): data, E8M0 exponents, and the per-group max and scaling tiles.
    QuantMx { dst: tile(O), src: tile(O), exp: tile(O), max: tile(O), scaling: tile(O), axis: plain(MxAxis), alg: plain(MxQuantAlg) },
    /// TIMG2COL: a Left tile gathered from a Mat feature map under a convolution config.
    Img2col { dst: tile(O), src: tile(O), cfg: plain(Img2colConfig), pos_m: plain(u16), pos_k: plain(u16) },
    /// TEXTRACT_FP / TINSERT_FP: a sub-tile at `(row, col)` through the fixpipe with the fp
    /// (Scaling) tile's per-column quant words, and ReLU.
    WindowFp { dst: tile(O), src: tile(O), fp: tile(O), row: scalar(O::Scalar), col: scalar(O::Scalar), relu: plain(bool) },
    /// SET_QUANT_SCALAR: the output type and the f32 pre-quant scale.
    QuantScalar { out: plain(npusim_core::ElemType), scale: scalar(O::Scalar) },
    /// SET_QUANT_VECTOR: the Scaling (fp) tile.
    QuantVector { fp: tile(O) },
    /// SETHF32MODE / SETTF32MODE: enable and the round mode (CAST_RINT / CAST_ROUND).
    F32Mode { enable: plain(bool), mode: plain(RoundMode) },
    /// SETFMATRIX / SET_IMG2COL_RPT / SET_IMG2COL_PADDING: the IMG2COL configuration (its
    /// feature map and pads, its repeat fields, its pad value of type `dtype`) and the mode.
    FmatrixSet { cfg: plain(Img2colConfig), rpt: plain(Img2colRepeat), dtype: plain(npusim_core::ElemType), mode: plain(FmatrixMode) },
    /// TIMG2COL with an explicit FMATRIX mode (manual modes read the registers).
    Img2colMode { dst: tile(O), src: tile(O), cfg: plain(Img2colConfig), pos_m: plain(u16), pos_k: plain(u16), mode: plain(FmatrixMode) },
    /// TTRANS with the C++ intrinsic's tmp operand.
    TransposeTmp { dst: tile(O), src: tile(O), tmp: tile(O) },
    /// TCONCAT's indexed forms: per-row counts from src0_idx / src1_idx; dst_idx (6-operand
    /// form) receives the concatenated count.
    ConcatIdx { dst: tile(O), src0: tile(O), src1: tile(O), src0_idx: tile(O), src1_idx: tile(O), dst_idx: opt_tile(Option<O>) },
    /// TTRANS on ConvTiles: src / dst tiles as buffers with their formats and dims, and tmp.
    TransposeConv { dst: tile(O), src: tile(O), tmp: tile(O), dst_shape: plain(crate::ops::conv_trans::ConvShape), src_shape: plain(crate::ops::conv_trans::ConvShape) },
}

/// One instruction instance.
#[derive(Clone, Debug, PartialEq)]
pub struct TileOp {
    pub op: OpCode,
    pub args: Args,
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
                .map(|()| {
                    let (c, e) = self.check_context();
                    (*c, e)
                })
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
        // Compared in place: copying the 70-byte context out (as a tuple) cost a store-forwarding
        // stall on every prepared op (about a quarter of a 16x16 TADD loop's time).
        let (context, epoch) = self.check_context();
        let passed = match &p.passed_in {
            Some((c, e)) => *e == epoch || c == context,
            None => false,
        };
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
}

/// One class's handler: matches the operand form the class takes and calls the family entry
/// point. Every [`Class`] has an arm here; a row of a class without one does not compile.
macro_rules! handle {
    (Unary, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match $a { Args::Unary { dst, src } => $c.unary_with($k, $op, dst, src), _ => Err(bad($op, "Args::Unary { dst, src }")) }
    };
    (Binary, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match $a { Args::Binary { dst, src0, src1 } => $c.binary_with($k, $op, dst, src0, src1), _ => Err(bad($op, "Args::Binary { dst, src0, src1 }")) }
    };
    (Partial, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match $a { Args::Binary { dst, src0, src1 } => $c.partial($op, dst, src0, src1), _ => Err(bad($op, "Args::Binary { dst, src0, src1 }")) }
    };
    (ExpandBinary, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match $a { Args::Binary { dst, src0, src1 } => $c.expand_binary($op, dst, src0, src1), _ => Err(bad($op, "Args::Binary { dst, src0, src1 }")) }
    };
    (RowReduce, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match $a { Args::Unary { dst, src } => $c.row_reduce($op, dst, src), _ => Err(bad($op, "Args::Unary { dst, src }")) }
    };
    (ColReduce, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match $a { Args::Unary { dst, src } => $c.col_reduce($op, dst, src), _ => Err(bad($op, "Args::Unary { dst, src }")) }
    };
    (Expand, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match $a { Args::Unary { dst, src } => $c.expand($op, dst, src), _ => Err(bad($op, "Args::Unary { dst, src }")) }
    };
    (Ternary, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match $a { Args::Ternary { dst, src0, src1, src2 } => $c.ternary_with($k, $op, dst, src0, src1, src2), _ => Err(bad($op, "Args::Ternary")) }
    };
    (TileScalar, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match $a {
            Args::TileScalar { dst, src, scalar } => $c.tile_scalar_with($k, $op, dst, src, *scalar),
            Args::ScalarTile { dst, scalar, src } if $op == OpCode::Tdivs => $c.tdivs_scalar_tile_with($k, dst, *scalar, src),
            _ => Err(bad($op, "Args::TileScalar (or ScalarTile for TDIVS)")),
        }
    };
    (TileScalarTile, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match $a {
            Args::TileScalarTile { dst, src0, scalar, src1 } => $c.tile_scalar_tile_with($k, $op, dst, src0, *scalar, src1),
            _ => Err(bad($op, "Args::TileScalarTile")),
        }
    };
    (Fill, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match $a { Args::Fill { dst, scalar } => $c.texpands(dst, *scalar), _ => Err(bad($op, "Args::Fill")) }
    };
    (PartialArg, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match $a {
            Args::PartialArg { dst_val, dst_idx, src0_val, src0_idx, src1_val, src1_idx } =>
                $c.partial_arg($op, dst_val, dst_idx, src0_val, src0_idx, src1_val, src1_idx),
            _ => Err(bad($op, "Args::PartialArg")),
        }
    };
    (RowArgReduce, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match $a { Args::ArgReduce { dst_idx, src, dst_val } => $c.row_arg_reduce($op, dst_idx, src, dst_val.as_ref()), _ => Err(bad($op, "Args::ArgReduce")) }
    };
    (ColArgReduce, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match $a { Args::ArgReduce { dst_idx, src, dst_val } => $c.col_arg_reduce($op, dst_idx, src, dst_val.as_ref()), _ => Err(bad($op, "Args::ArgReduce")) }
    };
    (Compare, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match $a { Args::Compare { dst, src0, src1, mode } => $c.tcmp(dst, src0, src1, *mode), _ => Err(bad($op, "Args::Compare")) }
    };
    (CompareScalar, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match $a { Args::CompareScalar { dst, src, scalar, mode } => $c.tcmps(dst, src, *scalar, *mode), _ => Err(bad($op, "Args::CompareScalar")) }
    };
    (Select, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match $a { Args::Select { dst, mask, src0, src1 } => $c.tsel(dst, mask, src0, src1), _ => Err(bad($op, "Args::Select")) }
    };
    (SelectScalar, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match $a { Args::SelectScalar { dst, mask, src, scalar } => $c.tsels(dst, mask, src, *scalar), _ => Err(bad($op, "Args::SelectScalar")) }
    };
    (Convert, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match $a { Args::Convert { dst, src, mode, sat } => $c.tcvt(dst, src, *mode, *sat), _ => Err(bad($op, "Args::Convert")) }
    };
    (Load, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match $a { Args::Load { dst, src } => $c.tload(dst, src), _ => Err(bad($op, "Args::Load")) }
    };
    (Store, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match $a { Args::Store { dst, src } => $c.tstore(dst, src), _ => Err(bad($op, "Args::Store")) }
    };
    (Prefetch, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match $a { Args::Load { dst, src } => $c.tprefetch(dst, src), _ => Err(bad($op, "Args::Load { dst, src }")) }
    };
    (Move, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match $a {
            Args::Move { dst, src, fp, scalar, relu } => $c.tmov(dst, src, MovMode { relu: *relu, scalar: scalar.map(scalar_word), fp: fp.as_ref() }),
            Args::Unary { dst, src } => $c.tmov(dst, src, MovMode::default()),
            _ => Err(bad($op, "Args::Move")),
        }
    };
    (Extract, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match $a { Args::Window { dst, src, row, col } => $c.textract(dst, src, scalar_i64(*row), scalar_i64(*col)), _ => Err(bad($op, "Args::Window")) }
    };
    (Insert, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match $a { Args::Window { dst, src, row, col } => $c.tinsert(dst, src, scalar_i64(*row), scalar_i64(*col)), _ => Err(bad($op, "Args::Window")) }
    };
    (Transpose, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match $a { Args::Unary { dst, src } => $c.ttrans(dst, src), Args::TransposeTmp { dst, src, tmp } => $c.ttrans_tmp(dst, src, tmp), Args::TransposeConv { dst, src, tmp, dst_shape, src_shape } => $c.ttrans_conv(dst, *dst_shape, src, *src_shape, tmp), _ => Err(bad($op, "Args::Unary, Args::TransposeTmp or Args::TransposeConv")) }
    };
    (Iota, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match $a { Args::Iota { dst, start, descending } => $c.tci(dst, *start, *descending), _ => Err(bad($op, "Args::Iota")) }
    };
    (Tri, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match $a { Args::Tri { dst, diagonal, upper } => $c.ttri(dst, scalar_i64(*diagonal), *upper), _ => Err(bad($op, "Args::Tri")) }
    };
    (Concat, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match $a { Args::Binary { dst, src0, src1 } => $c.tconcat(dst, src0, src1), Args::ConcatIdx { dst, src0, src1, src0_idx, src1_idx, dst_idx } => $c.tconcat_idx(dst, src0, src1, src0_idx, src1_idx, dst_idx.as_ref()), _ => Err(bad($op, "Args::Binary or Args::ConcatIdx")) }
    };
    (FillPad, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match $a { Args::Unary { dst, src } => $c.tfillpad($op, dst, src), _ => Err(bad($op, "Args::Unary")) }
    };
    (Matmul, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match $a { Args::Binary { dst, src0, src1 } => $c.matmul($op, dst, Seed::Zero, src0, src1), _ => Err(bad($op, "Args::Binary { dst: c, src0: a, src1: b }")) }
    };
    (MatmulAcc, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match $a { Args::Ternary { dst, src0, src1, src2 } => $c.matmul($op, dst, Seed::Acc(src0), src1, src2), _ => Err(bad($op, "Args::Ternary { dst: c, src0: c_in, src1: a, src2: b }")) }
    };
    (MatmulBias, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match $a { Args::Ternary { dst, src0, src1, src2 } => $c.matmul($op, dst, Seed::Bias(src2), src0, src1), _ => Err(bad($op, "Args::Ternary { dst: c, src0: a, src1: b, src2: bias }")) }
    };
    (MatmulMx, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match $a {
            Args::MatmulMx { dst, c_in, a, a_scale, b, b_scale, bias } => {
                let x = crate::ops::mx::MxOperands { a, a_scale, b, b_scale };
                let acc = matches!($op, OpCode::TmatmulMxAcc | OpCode::TgemvMxAcc);
                let with_bias = matches!($op, OpCode::TmatmulMxBias | OpCode::TgemvMxBias);
                match (c_in, bias) {
                    (None, None) if !acc && !with_bias => $c.matmul_mx($op, dst, Seed::Zero, x),
                    (Some(t), None) if acc => $c.matmul_mx($op, dst, Seed::Acc(t), x),
                    (None, Some(t)) if with_bias => $c.matmul_mx($op, dst, Seed::Bias(t), x),
                    _ => Err(bad($op, "Args::MatmulMx with c_in for the _ACC forms, bias for the _BIAS forms, neither otherwise")),
                }
            }
            _ => Err(bad($op, "Args::MatmulMx")),
        }
    };
    (ScaleAddr, $c:ident, $k:ident, $op:ident, $a:expr) => {
        Err(PtoError::Unsupported {
            op: $op.name(),
            what: "TGET_SCALE_ADDR through exec (it rebinds a tile: call TileCore::tget_scale_addr)".to_string(),
            arch: crate::table::arch_name($c.arch()),
        })
    };
    (Img2col, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match $a {
            Args::Img2col { dst, src, cfg, pos_m, pos_k } => $c.timg2col(dst, src, cfg, *pos_m, *pos_k),
            Args::Img2colMode { dst, src, cfg, pos_m, pos_k, mode } => $c.timg2col_mode(dst, src, cfg, *pos_m, *pos_k, *mode),
            _ => Err(bad($op, "Args::Img2col or Args::Img2colMode")),
        }
    };
    (Print, $c:ident, $k:ident, $op:ident, $a:expr) => {
        Err(PtoError::Unsupported {
            op: $op.name(),
            what: "TPRINT through exec (it produces text: call TileCore::tprint)".to_string(),
            arch: crate::table::arch_name($c.arch()),
        })
    };
    (Sort32, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match $a { Args::Indexed { dst, src, idx, tmp } => $c.tsort32(dst, src, idx, tmp.as_ref()), _ => Err(bad($op, "Args::Indexed { dst, src, idx, tmp }")) }
    };
    (MrgSort, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match $a {
            Args::MergeBlocks { dst, src, block_len } => $c.tmrgsort(dst, src, *block_len),
            Args::MergeLists { dst, tmp, src0, src1, src2, src3, exhausted } => {
                let srcs: Vec<Tile> = [Some(*src0), Some(*src1), *src2, *src3].into_iter().flatten().collect();
                $c.tmrgsort_lists(dst, tmp, MergeLists { srcs: &srcs, exhausted: *exhausted }).map(|_| ())
            }
            _ => Err(bad($op, "Args::MergeBlocks or Args::MergeLists")),
        }
    };
    (Gather, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match $a {
            Args::Indexed { dst, src, idx, tmp } => $c.tgather(dst, src, idx, tmp.as_ref()),
            Args::GatherMask { dst, src, pattern } => $c.tgather_mask(dst, src, *pattern),
            _ => Err(bad($op, "Args::Indexed or Args::GatherMask")),
        }
    };
    (GatherB, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match $a { Args::Indexed { dst, src, idx, tmp: None } => $c.tgatherb(dst, src, idx), _ => Err(bad($op, "Args::Indexed { dst, src, idx: offset, tmp: None }")) }
    };
    (Scatter, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match $a { Args::Indexed { dst, src, idx, tmp: None } => $c.tscatter(dst, src, idx), _ => Err(bad($op, "Args::Indexed { dst, src, idx, tmp: None }")) }
    };
    (Quant, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match $a {
            Args::Quant { dst, src, scale, offset, kind } => $c.tquant(dst, src, scale, offset.as_ref(), *kind),
            Args::QuantMx { dst, src, exp, max, scaling, axis, alg } => $c.tquant_mx(dst, src, exp, max, scaling, *axis, *alg),
            _ => Err(bad($op, "Args::Quant or Args::QuantMx")),
        }
    };
    (StoreFp, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match $a { Args::StoreFp { dst, src, fp, relu } => $c.tstore_fp(dst, src, fp, *relu), _ => Err(bad($op, "Args::StoreFp")) }
    };
    (Histogram, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match $a { Args::Histogram { dst, src, idx, byte } => $c.thistogram(dst, src, idx, *byte), _ => Err(bad($op, "Args::Histogram")) }
    };
    (Dequant, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match $a { Args::Ternary { dst, src0, src1, src2 } => $c.tdequant(dst, src0, src1, src2), _ => Err(bad($op, "Args::Ternary { dst, src0: src, src1: scale, src2: offset }")) }
    };
    (GmGather, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match $a { Args::GmGather { dst, table, idx, oob } => $c.mgather(dst, table, idx, *oob), _ => Err(bad($op, "Args::GmGather")) }
    };
    (GmScatter, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match $a { Args::GmScatter { table, src, idx, atomic, oob } => $c.mscatter(table, src, idx, *atomic, *oob), _ => Err(bad($op, "Args::GmScatter")) }
    };
    (Random, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match $a {
            Args::Random { dst, key0, key1, counter0, counter1, counter2, counter3, rounds } =>
                $c.trandom_scalars(dst, [*key0, *key1], [*counter0, *counter1, *counter2, *counter3], *rounds),
            _ => Err(bad($op, "Args::Random")),
        }
    };
    (Alias, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match $a { Args::Unary { dst, src } => $c.talias_check(dst, src), _ => Err(bad($op, "Args::Unary { dst, src }")) }
    };
    (Interleave, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match ($op, $a) {
            (OpCode::Tinterleave, Args::Interleave { dst0, dst1, src0, src1: Some(src1) }) => $c.tinterleave(dst0, dst1, src0, src1),
            (OpCode::Tdeinterleave, Args::Interleave { dst0, dst1, src0, src1 }) => {
                let src = match src1 {
                    Some(s1) => crate::ops::interleave::DeinterleaveSrc::Two(src0, s1),
                    None => crate::ops::interleave::DeinterleaveSrc::One(src0),
                };
                $c.tdeinterleave(dst0, dst1, src)
            }
            _ => Err(bad($op, "Args::Interleave { dst0, dst1, src0, src1 } (src1 required by TINTERLEAVE)")),
        }
    };
    (PairReduce, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match $a { Args::Unary { dst, src } => $c.tpairreducesum(dst, src), _ => Err(bad($op, "Args::Unary { dst, src }")) }
    };
    (AddReluConv, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match $a { Args::Binary { dst, src0, src1 } => $c.taddreluconv(dst, src0, src1), _ => Err(bad($op, "Args::Binary { dst, src0, src1 }")) }
    };
    (AddDeqRelu, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match $a {
            Args::AddDeqRelu { dst, src0, src1, scale, tmp } => $c.tadddeqrelu(dst, src0, src1, scalar_f32(*scale), tmp),
            _ => Err(bad($op, "Args::AddDeqRelu")),
        }
    };
    (Pack, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match $a { Args::Unary { dst, src } => $c.tpack(dst, src), _ => Err(bad($op, "Args::Unary")) }
    };
    (WindowFp, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match $a {
            Args::WindowFp { dst, src, fp, row, col, relu } => $c.twindow_fp($op, dst, src, fp, scalar_i64(*row), scalar_i64(*col), *relu),
            _ => Err(bad($op, "Args::WindowFp { dst, src, fp, row, col, relu }")),
        }
    };
    (Config, $c:ident, $k:ident, $op:ident, $a:expr) => {
        match ($op, $a) {
            (OpCode::SetQuantScalar, Args::QuantScalar { out, scale }) => $c.set_quant_scalar(*out, scalar_f32(*scale)),
            (OpCode::SetQuantVector, Args::QuantVector { fp }) => $c.set_quant_vector(fp),
            (OpCode::Sethf32mode, Args::F32Mode { enable, mode }) => $c.set_hf32_mode(*enable, *mode),
            (OpCode::Settf32mode, Args::F32Mode { enable, mode }) => $c.set_tf32_mode(*enable, *mode),
            (OpCode::Setfmatrix, Args::FmatrixSet { cfg, mode, .. }) => $c.set_fmatrix(cfg, *mode),
            (OpCode::SetImg2colRpt, Args::FmatrixSet { rpt, mode, .. }) => $c.set_img2col_rpt(rpt, *mode),
            (OpCode::SetImg2colPadding, Args::FmatrixSet { cfg, dtype, mode, .. }) => $c.set_img2col_padding(*dtype, cfg.pad_value, *mode),
            _ => Err(bad($op, "Args::QuantScalar, Args::QuantVector, Args::F32Mode or Args::FmatrixSet")),
        }
    };
    (@pending $class:ident, $c:ident, $op:ident) => {
        Err(PtoError::Unsupported {
            op: $op.name(),
            what: format!("{} (class {}: not modelled yet)", $op.name(), stringify!($class)),
            arch: crate::table::arch_name($c.arch()),
        })
    };
}

/// A scalar operand as an integer (offsets): floats truncate toward zero.
fn scalar_i64(s: Scalar) -> i64 {
    match s {
        Scalar::Int(i) => i,
        Scalar::Float(v) => v as i64,
    }
}

/// A scalar operand as f32 (an integer converts, rounding to nearest even).
fn scalar_f32(s: Scalar) -> f32 {
    match s {
        Scalar::Int(i) => i as f32,
        Scalar::Float(v) => v as f32,
    }
}

/// A pre-quant scalar as its uint64 word: an integer is the word itself; a float is taken as
/// the scale and stored as its f32 bits.
fn scalar_word(s: Scalar) -> u64 {
    match s {
        Scalar::Int(i) => i as u64,
        Scalar::Float(v) => (v as f32).to_bits() as u64,
    }
}

fn bad(op: OpCode, expected: &'static str) -> PtoError {
    PtoError::Operands {
        op: op.name(),
        expected,
    }
}

macro_rules! exec_dispatch {
    ($(($v:ident $alias:ident, $name:literal, $mlir:literal, $class:ident, $($rest:tt)*)),* $(,)?) => {
        impl TileCore {
            /// The dispatch, derived from the table: each row goes to its class's handler.
            fn exec_with(&mut self, i: &TileOp, checks: StaticChecks) -> Result<(), PtoError> {
                let op = i.op;
                match op {
                    $(OpCode::$v => handle!($class, self, checks, op, &i.args),)*
                }
            }
        }
    };
}
crate::for_each_tile_op!(exec_dispatch);
