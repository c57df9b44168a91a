//! # npusim-ascend: the Ascend vector unit
//!
//! A bit-exact functional model of the Ascend AI Core vector unit, with its two API faces:
//!
//! - [`tik`]: TIK (`tik_instance.vec_cmpv_eq(...)`, `vector_dup`, `data_move`), recorded once
//!   and run by a debugger-like `start_debug(feed)`;
//! - [`ascendc`]: Ascend C (`PairReduceSum<T, isSetMask>`, `Duplicate`, `DataCopy`,
//!   `SetVectorMask`, `Compare`), executed call by call.
//!
//! Both faces build the same validated instruction records ([`ops`]) from the one instruction
//! table ([`isa`]), which run on a [`core::VectorCore`] through the shared repeat/block/stride
//! engine ([`geometry`]), the mask layer ([`mask`]) and per-repeat kernels ([`kernels`]). Chip
//! differences come from `npusim_core::ChipProfile`.
//!
//! Documents implemented: seed 000 (TIK `vec_cmpv_xx`), seed 001 (Ascend C `PairReduceSum`),
//! and the general rules collected in `shared/research/ascend-vector.md`.

pub mod ascendc;
pub mod core;
pub mod demo;
pub mod error;
pub mod geometry;
pub mod isa;
pub mod kernels;
pub mod mask;
pub mod ops;
pub mod tik;

pub use error::{AscendError, Result};
