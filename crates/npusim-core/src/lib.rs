//! # npusim-core
//!
//! The bottom layer of npusim, shared by every instruction family:
//!
//! - [`cfmt`]: C `printf` formatting for the families' print calls;
//! - [`dtype`]: element types and their Rust storage types;
//! - [`convert`]: conversions with every rounding mode and saturation;
//! - [`f8`]: the 8- and 4-bit float formats (f8 E4M3FN / E5M2 / E4M3, HiFloat8, E8M0, f4
//!   E2M1) with exact conversions as `ml_dtypes` defines them;
//! - [`fastconv`]: fast f16/bf16 <-> f32 slice conversions (F16C when present);
//! - [`memory`]: memory spaces as bounds-checked byte arrays;
//! - [`chip`]: chip profiles, carrying every per-chip behaviour as data;
//! - [`tile_policy`]: the PTO tile ISA's numeric policies per chip;
//! - [`vocab`]: the shared operand vocabulary (`Scalar`, `CmpMode`, `PadValue`, `TileLoc`,
//!   `RoundMode`);
//! - [`npy`]: `.npy` input and output (bf16 as ml_dtypes writes it), with atomic writes.
//!
//! Nothing here knows about any instruction family; the family crates build on it.

pub mod cfmt;
pub mod chip;
pub mod convert;
pub mod dtype;
pub mod f8;
pub mod fastconv;
pub mod memory;
pub mod npy;
pub mod pipe;
pub mod tile_policy;
pub mod vocab;

pub use chip::{ChipId, ChipProfile, MaskedGroupPolicy, VectorPolicy};
pub use convert::{OverflowMode, RoundMode, Saturation};
pub use dtype::{ElemType, Element, FloatElement};
pub use half::{bf16, f16};
pub use memory::{MemSpace, Memory, MemoryError};
pub use npy::{NpyArray, NpyError};
pub use pipe::{CostModel, Pipe, PipeCost};
pub use tile_policy::{
    MatmulOrder, NanMinMaxPolicy, PolicyName, ReductionOrder, RowParamRule, TileArch, TilePolicy,
};
pub use vocab::{CmpMode, PadValue, Scalar, TileLoc};
