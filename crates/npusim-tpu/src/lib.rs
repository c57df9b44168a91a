//! Sophgo TPU HAU unit: the sort family and `line_gather`, bit-exact against the vendor's
//! BM1684X C-model.
//!
//! Implements seed 003 (the "HAU 操作" page of Sophgo's TPU-Kernel reference: `tpu_hau_sort`,
//! `tpu_hau_sort_natural_index`, `tpu_hau_sort_specific_index`, `tpu_hau_line_gather`) with the
//! exact C-model behaviour recorded in the research note `shared/research/sophgo-hau.md` (§0, §1
//! for the API and restrictions, §2 for the sort models, §1.5 and §3.1 for the memory map), and
//! is checked against the C-model golden vectors committed in `golden/hau/` (issues #5, #19;
//! `scripts/gen_hau_golden.py` regenerates `denormals.json`).
//!
//! `f32` denormal keys follow the chip profile's [`DenormalPolicy`]: the C-model compares them
//! as zero and moves their bits untouched ([`DenormalPolicy::CompareAsZero`], the default).
//!
//! Layout:
//! * [`chip`], [`memory`]: chip profiles and the simulated `system_addr_t` space (global memory,
//!   L2 SRAM);
//! * [`dtype`]: `data_type_t` with the vendor's codes;
//! * [`sort`], [`gather`]: the models as pure functions on slices, each with a plain reference
//!   twin;
//! * [`device`]: [`TpuCore`], the vendor-named instructions over simulated memory;
//! * [`local`]: the 64-lane local memory, `local_addr_t`, layouts and the `tpu_*` helpers;
//!   [`gdma`]: `tpu_gdma_cpy_S2L/L2S/S2S/L2L`; [`trans`]: GDMA matrix, compact and cw-transposing
//!   moves and the BDC cw/wc transposes; [`bdc`]: elementwise float instructions (issue #16);
//!   [`bdc_logic`], [`bdc_data`]: compares, bitwise ops, casts and moves, all run by the one
//!   bit-pattern lane/row driver of `bdc_elem` (an instruction = one row + one element function);
//!   [`bdc_sfu`]: the f32 exponential, logarithm, reciprocal square root, square root and the
//!   C-model's division;
//! * [`error`]: [`HauError`], one variant per restriction;
//! * [`golden`]: replay of C-model golden files (`npusim hau check`); every BDC case goes through
//!   one driver and one dispatch row per vendor function (`golden_bdc`);
//! * [`kernels`]: kernels written against the API (softmax over the channel axis);
//! * [`demo`]: the top-K example of `npusim demo`.

#[macro_use]
mod simd;
mod avx2;
mod avx512;
pub mod bdc;
mod bdc_avx2;
pub mod bdc_data;
mod bdc_elem;
pub mod bdc_int;
pub mod bdc_logic;
pub mod bdc_pool;
pub mod bdc_sfu;
pub mod chip;
pub mod demo;
pub mod device;
pub mod dtype;
pub mod error;
pub mod gather;
pub mod gdma;
pub mod golden;
mod golden_bdc;
mod golden_trans;
pub mod kernels;
pub mod local;
pub mod memory;
pub mod sort;
pub mod trans;
mod trans_matrix;

pub use chip::{AddrRange, BdcDenormals, DenormalPolicy, LocalProfile, TpuChip};
pub use device::{Device, HostSimd, LINE_GATHER_ADDR_ALIGN, SORT_ADDR_ALIGN, Scalar, TpuCore};
pub use dtype::{DataType, UnknownDataType};
pub use error::{CoreError, HauError, HauOp, MemError, TpuError};
pub use golden::{CaseRefusal, GoldenError, GoldenReport, replay_file, replay_str};
pub use local::{Dim4, Layout, LocalAddr};
pub use memory::{MAX_GM_SIZE, SystemAddr, SystemMemory};
pub use sort::KeyType;
pub mod print;
