//! # npusim-pto: the PTO tile ISA
//!
//! A functional model of the PTO ("Parallel Tile Operation") tile instructions as the pages of
//! hw-native-sys/pto-isa `docs/isa/*.md` define them, for the A2A3 (Ascend 910B/910C) and A5
//! (Ascend 950) generations.
//!
//! - [`tile`]: tiles as typed views (location, element type, shape, layouts, valid region, pad,
//!   byte address) of the core's memories, with the layout offset function;
//! - [`core`]: [`TileCore`], one core's memories sized by its [`npusim_core::ChipProfile`],
//!   global memory, allocation with the TASSIGN checks;
//! - [`table`]: the instruction set as data ([`for_each_tile_op!`](crate::for_each_tile_op), [`OpCode`], [`OPS`]);
//! - [`num`]: element types, their compute types, and each instruction's meaning per element;
//! - [`engine`]: the shared row-slice engine and its plain element-by-element twin;
//! - [`ops`]: the families (elementwise and tile-scalar, partial, reduce/expand,
//!   compare/select/convert, TLOAD/TSTORE, the cube's TMATMUL family, the layout moves);
//! - [`exec`]: [`TileOp`] and [`TileCore::exec`], the data-driven entry point.
//!
//! ## Using it from an interpreter
//!
//! ```
//! use npusim_pto::{TileCore, TileDesc, GlobalTensor, ElemType};
//! let mut core = TileCore::by_name("a2a3").unwrap();
//! let a = core.alloc(TileDesc::vec(ElemType::F32, 16, 16).at(0x1000)).unwrap();
//! let b = core.alloc(TileDesc::vec(ElemType::F32, 16, 16).at(0x2000)).unwrap();
//! let gm = core.gm_bind(&vec![1.5f32; 256]);
//! let g = GlobalTensor::nd_2d(gm, ElemType::F32, 16, 16);
//! core.tload(&a, &g).unwrap();
//! core.tadds(&b, &a, 1.0f32).unwrap();
//! core.tstore(&g, &b).unwrap();
//! assert_eq!(core.gm_read::<f32>(gm, 1).unwrap(), vec![2.5]);
//! ```
//!
//! ## Numeric policy
//!
//! - **Rounding.** f16 and bf16 compute in f32 and round once per instruction to nearest even;
//!   f32 computes natively. For + − × ÷ and √ this is the correctly rounded result (f32 has
//!   more than twice their precision plus two bits). Fused instructions (TMULADDDST,
//!   TFUSEDMULADD, TFUSEDMULADDRELU, TAXPY) and the three-operand sums (TADDC, TSUBC, TADDSC,
//!   TSUBSC) compute in f64 with each step rounded to odd, then round once to the element type:
//!   the fused ones are exactly `round(a·b + c)`, the sums are exact for f16.
//! - **Integers** wrap (two's complement). Division truncates toward zero (`MIN / -1` wraps);
//!   TREM's result takes the divisor's sign, TFMOD's the dividend's. Integer division or
//!   remainder by zero is [`PtoError::DivByZero`], never a crash. Shift amounts are masked to
//!   the element width; SHR is arithmetic for signed types; TSHLS/TSHRS reject a negative
//!   scalar.
//! - **TDIVS** tile/scalar on A5 (`TilePolicy::divs_by_reciprocal`) multiplies by the
//!   reciprocal, itself rounded to the element type: a zero scalar gives ±inf. Float division by
//!   zero is IEEE everywhere else.
//! - **Transcendentals** (TEXP, TLOG, TRSQRT, TPOW, and EXPDIF) evaluate in f64 with Rust's
//!   libm and round to f32 and then to the element type. This is a correctly-rounded-style
//!   model, **not bit-exact to hardware** (whose algorithms are not public). TSQRT and TRECIP
//!   are correctly rounded.
//! - **NaN in min/max** (TMIN, TMAX, TMINS, TMAXS, TRELU, the partial, reduce and expand forms)
//!   follows [`npusim_core::NanMinMaxPolicy`] of the chip profile's tile policy: hardware
//!   profiles propagate NaN; `pto_cpu_sim` reproduces C++ `std::max/min`. ±0: min prefers −0,
//!   max +0 (except under `CppStd`).
//! - **Reduction order** follows [`npusim_core::ReductionOrder`]: hardware profiles use an
//!   adjacent-pair tree; `pto_cpu_sim` sums rows in an f32 accumulator the way the public CPU
//!   simulator's vectorised TROWSUM loop does when built with clang -O2 as its CMake does
//!   (`ReductionOrder::Interleaved { lanes: 4, accumulators: 2 }`; products and column sums
//!   left to right). `npusim run --policy pto-cpu-sim` selects it. Use
//!   `profile.with_tile_policy(TilePolicy::pto_cpu_sim(arch))` (or [`TileCore::set_policy`])
//!   to cross-check against that simulator.
//! - **Denormals** are kept (no flush to zero), like the CPU simulator; the hardware FTZ is not
//!   modelled.
//! - **TLOAD padding**: the whole tile is filled with the pad value before the valid region is
//!   copied; `PadValue::Null` fills zeros only under `pad_null_fills_zero` (the CPU simulator).
//! - **Partial ops** write 0 where neither source is valid (the CPU simulator's choice).
//! - **Matmul** ([`ops::cube`]): the accumulator is f32 for half, bfloat16 and float inputs and
//!   int32 for int8 (which wraps; its order does not matter). Products of half/bfloat16 are
//!   exact in f32; every accumulation step rounds once to f32 (an FMA for float inputs). The
//!   K-sum order is [`npusim_core::MatmulOrder`] of the tile policy: hardware profiles seed the
//!   accumulator with the old value (TMATMUL_ACC), the bias (TMATMUL_BIAS) or 0 and add one
//!   partial sum per fractal K-block of 32 bytes (16 half, 8 float, 32 int8 elements), each an
//!   FMA chain in K order; `pto_cpu_sim` runs one chain over all of K from 0 and adds the old
//!   value or bias after the loop, as the public CPU simulator does (pto-isa issue #280).
//!   Within a K-block the real cube's rounding is not public: this is the documented model,
//!   bit-exact to the CPU simulator under `pto_cpu_sim`.
//! - **MX matmul** ([`ops::mx`], A5 TMATMUL_MX / TGEMV_MX and their ACC/BIAS forms; policy
//!   `MxScaling`): fp8 inputs (E4M3FN, E5M2) with one E8M0 scale per 32 K elements per row of
//!   A and per column of B (`0xff` is NaN). Under hardware profiles each 32-element group's
//!   dot product is exact, is multiplied by both scales (a power of two) and rounded once to
//!   f32; the groups are added to the seed in K order, one f32 rounding each (the 32-element
//!   group is the fractal K-block of a 1-byte type). Under `pto_cpu_sim` the CPU simulator's
//!   loop is reproduced: `acc = f32(f64(acc) + a·b·2^ea·2^eb)` from 0 over K, then the old
//!   value or the bias added in f32. The elements decode as OCP formats under both.
//! - **Moves out of Acc** ([`ops::movement`], TMOV Acc→Mat/Vec, TSTORE from Acc): ReLU first,
//!   then the pre-quantisation scale (an IEEE single in the low 32 bits of the uint64 scalar or
//!   of each Scaling-tile word) multiplied in f32 (int32 converts to f32 first), then the
//!   narrowing: to half/bfloat16 nearest even, to int8 nearest even with saturation (NaN → 0).
//!   Moves between equal types without a mode carry bits. Every cube-side location's layout
//!   (Left, Right, Acc, Bias, Scaling) is checked when the tile is declared.

pub mod core;
pub mod engine;
pub mod error;
pub mod exec;
pub mod num;
pub mod ops;
pub mod table;
pub mod tile;

pub use crate::core::{TILE_ALIGN, TileCore};
pub use error::PtoError;
pub use exec::{Args, Operand, OperandMap, PreparedOp, TileOp};
pub use npusim_core::convert::{RoundMode, Saturation};
pub use npusim_core::{ChipProfile, ElemType, RowParamRule, TilePolicy};
pub use ops::gm_index::{IndexOob, ScatterAtomic};
pub use ops::memory::{GlobalTensor, GmLayout};
pub use ops::print::PrintFormat;
pub use ops::select::cvt_targets;
pub use ops::{CmpMode, Scalar};
pub use table::{Class, Elem, Extra, OPS, OpCode, OpInfo, ValidRule};
pub use tile::{BLayout, PadValue, SLayout, Tile, TileDesc, TileLoc};
