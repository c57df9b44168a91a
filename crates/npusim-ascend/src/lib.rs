//! # npusim-ascend: the Ascend vector unit
//!
//! A bit-exact functional model of the Ascend AI Core vector unit, with its two API faces:
//!
//! - [`tik`]: TIK (`tik_instance.vec_cmpv_eq(...)`, `vector_dup`, `data_move`), recorded once
//!   and run by a debugger-like `start_debug(feed)`;
//! - [`ascendc`]: Ascend C (`PairReduceSum<T, isSetMask>`, `Duplicate`, `DataCopy`,
//!   `SetVectorMask`, `Compare`), executed call by call.
//!
//! Both faces build the same validated instruction records ([`ops::Op`]) from the one
//! instruction table ([`isa`]): every element-wise instruction (binary, unary, scalar, fused,
//! convert, duplicate) is a [`vector::VecOp`] run by the one driver in [`vector`] (repeats,
//! blocks, strides, masks, General Restrictions) with a pure element function from [`elem`];
//! the compare-to-bits, pair-reduce and move shapes have their own records in [`ops`]. The
//! TIK and Ascend C method lists of the element-wise instructions are generated from the
//! table. Chip differences come from `npusim_core::ChipProfile` and the table's type rules.
//!
//! Documents implemented: seed 000 (TIK `vec_cmpv_xx`), seed 001 (Ascend C `PairReduceSum`),
//! and the general rules collected in `shared/research/ascend-vector.md`.

pub mod ascendc;
pub mod core;
pub mod demo;
pub mod elem;
pub mod error;
pub mod geometry;
pub mod isa;
pub mod kernels;
pub mod mask;
pub mod misc;
pub mod ops;
pub mod pad;
pub mod reduce;
pub mod select;
pub mod tik;
pub mod vector;

pub use error::{AscendError, Result};
