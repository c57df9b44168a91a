//! The one error type of the PTO tile ISA.
//!
//! Every variant names the instruction, the operand (`dst`, `src0`, ...), the rule that was broken
//! and the offending value, so that a front end can print it as is:
//! `TADD: src1 element type int8 is not legal on a2a3 (legal: int32, int16, half, float)`.

use npusim_core::memory::MemoryError;
use npusim_core::{ElemType, MemSpace};
use thiserror::Error;

/// Short, doc-style name of an element type (`half`, `float`, `int32`, ...).
pub fn type_name(t: ElemType) -> &'static str {
    match t {
        ElemType::F16 => "half",
        ElemType::F32 => "float",
        ElemType::Bf16 => "bfloat16",
        other => other.numpy_name(),
    }
}

/// Formats a list of element types for messages.
pub fn type_list(ts: &[ElemType]) -> String {
    ts.iter()
        .map(|t| type_name(*t))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A PTO tile-ISA error: a broken static rule, a broken run-time rule, or a memory fault.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum PtoError {
    /// The element type is not on the page's list for this arch.
    #[error("{op}: {operand} element type {} is not legal on {arch} (legal: {legal})", type_name(*.dtype))]
    IllegalType {
        op: &'static str,
        operand: &'static str,
        dtype: ElemType,
        arch: &'static str,
        legal: String,
    },
    /// Two operands that must share an element type do not.
    #[error("{op}: {operand} element type {} must equal {other}'s {}", type_name(*.dtype), type_name(*.expected))]
    TypeMismatch {
        op: &'static str,
        operand: &'static str,
        dtype: ElemType,
        other: &'static str,
        expected: ElemType,
    },
    /// A tile address is not 32-byte aligned (TASSIGN / alloc_tile).
    #[error("{op}: address {addr:#x} of tile {operand} is not {align}-byte aligned")]
    Misaligned {
        op: &'static str,
        operand: &'static str,
        addr: u64,
        align: u64,
    },
    /// A tile does not fit in its memory.
    #[error(
        "{op}: tile {operand} at {addr:#x} with {size} bytes does not fit in {space} (capacity {capacity:#x} bytes)"
    )]
    OutOfCapacity {
        op: &'static str,
        operand: &'static str,
        space: MemSpace,
        addr: u64,
        size: u64,
        capacity: u64,
    },
    /// A static tile rule (shape, layout, fractal) is broken.
    #[error("{op}: {operand}: {rule} (got {value})")]
    Static {
        op: &'static str,
        operand: &'static str,
        rule: &'static str,
        value: String,
    },
    /// A run-time valid-region rule is broken.
    #[error("{op}: {operand} valid region: {rule} (got {value})")]
    ValidRegion {
        op: &'static str,
        operand: &'static str,
        rule: &'static str,
        value: String,
    },
    /// Integer division (or remainder) by zero.
    #[error("{op}: integer division by zero: divisor {operand} is 0 at element ({row}, {col})")]
    DivByZero {
        op: &'static str,
        /// The divisor operand (`src1`, `src`, `scalar`, ...).
        operand: &'static str,
        row: usize,
        col: usize,
    },
    /// A scalar operand breaks the page's rule.
    #[error("{op}: scalar {rule} (got {value})")]
    Scalar {
        op: &'static str,
        rule: &'static str,
        value: String,
    },
    /// The operands given do not match the instruction's operand class.
    #[error("{op}: wrong operands: expected {expected}")]
    Operands {
        op: &'static str,
        expected: &'static str,
    },
    /// A mode or type pair the chip does not support (e.g. a TCVT pair).
    #[error("{op}: {what} is not supported on {arch}")]
    Unsupported {
        op: &'static str,
        what: String,
        arch: &'static str,
    },
    /// An index or offset read from a tile points outside the tile it selects in (TGATHER,
    /// TGATHERB, TSCATTER): raised before anything is written.
    #[error("{op}: {operand} at ({row}, {col}) is {value}: {rule} ({limit})")]
    Index {
        op: &'static str,
        operand: &'static str,
        row: usize,
        col: usize,
        value: i64,
        rule: &'static str,
        limit: u64,
    },
    /// A global-memory access fault (TLOAD / TSTORE).
    #[error("{op}: {operand}: {source}")]
    Memory {
        op: &'static str,
        operand: &'static str,
        source: MemoryError,
    },
}
