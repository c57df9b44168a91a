//! # npusim-ascend: the Ascend vector unit
//!
//! A bit-exact functional model of the Ascend AI Core vector unit, with its two API faces:
//!
//! - [`tik`]: TIK (`tik_instance.vec_cmpv_eq(...)`, `vector_dup`, `data_move`), recorded once
//!   and run by a debugger-like `start_debug(feed)`;
//! - [`ascendc`]: Ascend C (`PairReduceSum<T, isSetMask>`, `Duplicate`, `DataCopy`,
//!   `SetVectorMask`, `Compare`), executed call by call.
//!
//! Both faces build the same checked instruction records ([`ops::Op`]) from the one
//! instruction table ([`isa::for_each_vector_instr!`](crate::for_each_vector_instr)): a row
//! gives an instruction's operand shape ([`isa::Shape`]), its TIK names (`vec_*` and the legacy
//! `v*` name with block strides), its Ascend C names, its element function ([`elem`]) and its
//! per-chip type lists. From the table come the [`isa::Instr`] enum, the kernel dispatch
//! ([`vector::kernels`]) and the TIK / Ascend C methods of every shape; other front ends (the
//! Python TIK and C++ Ascend C faces) list the same methods with `Instr::ALL` and
//! `shape()` / `tik_name()` / `tik_legacy_name()` / `ascendc_name()`.
//!
//! Execution:
//! - every element-wise shape (binary, unary, scalar, fused, convert, duplicate) runs on the
//!   one driver in [`vector`]: repeats, blocks, strides, masks (normal and counter mode,
//!   `isSetMask`; TIK's `mask_mode="counter"` is [`tik::TikMask::counter`]), the General Restrictions checked once, contiguous lane runs handed to fast
//!   kernels with a plain twin ([`vector::VecOp::execute_reference`]);
//! - compare-to-bits ([`ops::Vcmpv`], also with a scalar), pair/whole/block/whole-tensor
//!   reductions ([`ops::PairReduceSum`], [`reduce`]), Select ([`select`]), Brcb, Gather,
//!   Transpose, CreateVecIndex and the CMPMASK register ([`misc`]), the sort family (Sort32,
//!   MrgSort, MrgSort4, RpSort16, ProposalConcat/Extract: [`sort`]), TransDataTo5HD /
//!   vnchwconv ([`nchwconv`]), CastDequant int16 -> b8 and the DEQSCALE register ([`deq`]), moves with padding and atomic accumulation ([`pad`],
//!   [`core::VectorCore::store`]), DataCopy's slice form ([`slice`](mod@slice)) have their
//!   own records, as do the TIK-only rows: viou / vaadd ([`sort`]) and v4dtrans ([`trans4d`]);
//!   RepeatReduceSum runs on the WholeReduce record, and the reduction registers
//!   (GetAccVal, GetReduceMaxMinCount) are kept in [`core::VectorCore`].
//!
//! Chip differences come from `npusim_core::ChipProfile` and the table's type rules; numeric
//! policies are written in [`elem`], [`vector`] and [`reduce`]. Documents implemented: seeds 000
//! and 001, the asc-devkit `Memory矢量计算` pages named in each row, and
//! `shared/research/ascend-vector.md`.

pub mod access;
pub mod ascendc;
pub mod bilinear;
pub mod core;
pub mod demo;
pub mod deq;
pub mod elem;
pub mod error;
pub mod geometry;
pub mod isa;
pub mod kernels;
pub mod mask;
pub mod misc;
pub mod nchwconv;
pub mod ops;
pub mod pad;
pub mod reduce;
pub mod select;
pub mod slice;
pub mod sort;
pub mod tik;
pub mod trans4d;
pub mod vector;

pub use error::{AscendError, Result};
pub mod print;
