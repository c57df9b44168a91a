//! Errors of the Ascend vector unit.
//!
//! Every violated restriction is its own variant and names the instruction, the parameter, the
//! rule and the offending value, so that a kernel author can find the line to fix.

use npusim_core::{ChipId, ElemType, MemSpace, MemoryError};
use thiserror::Error;

/// A rejected instruction or API call.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum AscendError {
    /// A numeric parameter is outside its documented range.
    #[error("{instr}: {param} = {value} is out of range (must be in {range})")]
    OutOfRange {
        instr: &'static str,
        param: &'static str,
        value: i64,
        range: &'static str,
    },
    /// The element type is not one the chip supports for this instruction.
    #[error(
        "{instr}: {param} has element type {dtype}, which {chip} does not support here (legal: {legal})"
    )]
    IllegalType {
        instr: &'static str,
        param: &'static str,
        dtype: ElemType,
        chip: ChipId,
        legal: String,
    },
    /// Two operands must share an element type and do not.
    #[error("{instr}: {param} has element type {got} but must match {other} ({want})")]
    TypeMismatch {
        instr: &'static str,
        param: &'static str,
        got: ElemType,
        other: &'static str,
        want: ElemType,
    },
    /// The instruction does not exist on this chip at all.
    #[error("{instr} is not supported on {chip}")]
    NotSupported { instr: &'static str, chip: ChipId },
    /// An operand address breaks its memory's alignment rule.
    #[error(
        "{instr}: {param} address {addr:#x} in {space} is not {align}-byte aligned (General Restrictions)"
    )]
    Misaligned {
        instr: &'static str,
        param: &'static str,
        space: MemSpace,
        addr: u64,
        align: u64,
    },
    /// An operand is in the wrong memory.
    #[error("{instr}: {param} is tensor `{tensor}` in {got}, but must be in {want}")]
    WrongScope {
        instr: &'static str,
        param: &'static str,
        tensor: String,
        got: MemSpace,
        want: &'static str,
    },
    /// The instruction would read or write past the operand's tensor.
    #[error(
        "{instr}: {param} accesses bytes {start}..{end} of tensor `{tensor}`, which holds {size} bytes"
    )]
    TensorOverflow {
        instr: &'static str,
        param: &'static str,
        tensor: String,
        start: u64,
        end: u64,
        size: u64,
    },
    /// Source and destination overlap in a way the overlap rules forbid.
    #[error("{instr}: {dst} overlaps {src}: {rule}")]
    IllegalOverlap {
        instr: &'static str,
        dst: &'static str,
        src: &'static str,
        rule: &'static str,
    },
    /// The mask argument breaks a rule.
    #[error("{instr}: mask {value}: {rule}")]
    BadMask {
        instr: &'static str,
        value: String,
        rule: &'static str,
    },
    /// Any other documented parameter rule.
    #[error("{instr}: {param} = {value}: {rule}")]
    Rule {
        instr: &'static str,
        param: &'static str,
        value: String,
        rule: &'static str,
    },
    /// A tensor name that was never declared.
    #[error("no tensor named `{0}`")]
    UnknownTensor(String),
    /// A tensor name declared twice.
    #[error("tensor `{0}` is already declared")]
    DuplicateTensor(String),
    /// An allocation that does not fit its memory.
    #[error(
        "tensor `{tensor}` ({bytes} bytes) does not fit in {space}: {used} of {capacity} bytes already used"
    )]
    OutOfMemory {
        tensor: String,
        space: MemSpace,
        bytes: u64,
        used: u64,
        capacity: u64,
    },
    /// Data fed to a tensor does not match its declaration.
    #[error("tensor `{tensor}`: fed {got}, but it is declared as {want}")]
    FeedMismatch {
        tensor: String,
        got: String,
        want: String,
    },
    /// A raw memory access failed.
    #[error(transparent)]
    Memory(#[from] MemoryError),
}

/// Result alias of this crate.
pub type Result<T, E = AscendError> = std::result::Result<T, E>;
