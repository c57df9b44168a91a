//! Typed errors for the HAU instructions and the simulated memory.
//!
//! Every restriction of seed 003 (the HAU page of the TPU-Kernel reference) and every assert the
//! research note (`shared/research/sophgo-hau.md` §1.3, §1.4, §0.5) reports from the C-model is
//! one variant of [`HauError`]; each message names the instruction, the parameter, the value
//! and the rule it breaks. The C-model prints and exits on these; the simulator returns them.

use std::fmt;

use crate::chip::AddrRange;
use crate::dtype::DataType;

/// The HAU instruction an error or a command belongs to (displayed as the vendor function name).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HauOp {
    /// `tpu_hau_sort`
    Sort,
    /// `tpu_hau_sort_natural_index`
    SortNaturalIndex,
    /// `tpu_hau_sort_specific_index`
    SortSpecificIndex,
    /// `tpu_hau_line_gather`
    LineGather,
}

impl HauOp {
    /// The vendor function name.
    pub const fn vendor_name(self) -> &'static str {
        match self {
            HauOp::Sort => "tpu_hau_sort",
            HauOp::SortNaturalIndex => "tpu_hau_sort_natural_index",
            HauOp::SortSpecificIndex => "tpu_hau_sort_specific_index",
            HauOp::LineGather => "tpu_hau_line_gather",
        }
    }
}

impl fmt::Display for HauOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.vendor_name())
    }
}

/// A HAU instruction refused because a parameter breaks one of its restrictions.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HauError {
    /// `K` must satisfy `1 <= K <= len`.
    #[error("K out of range: {op}: K = {k}, must be in 1..=len (len = {len})")]
    KOutOfRange {
        /// Instruction.
        op: HauOp,
        /// The `K` passed.
        k: i32,
        /// The `len` passed.
        len: i32,
    },
    /// `len` must be positive.
    #[error("len out of range: {op}: len = {len}, must be >= 1")]
    LenOutOfRange {
        /// Instruction.
        op: HauOp,
        /// The `len` passed.
        len: i32,
    },
    /// The element type is not one the instruction takes.
    #[error("unsupported dtype: {op}: dtype = {dtype}, must be one of {allowed}")]
    UnsupportedDtype {
        /// Instruction.
        op: HauOp,
        /// The `dtype` passed.
        dtype: DataType,
        /// The accepted types, as text.
        allowed: &'static str,
    },
    /// An address is not a multiple of the instruction's alignment.
    #[error("misaligned address: {op}: {param} = {addr:#x}, must be a multiple of {align}")]
    Misaligned {
        /// Instruction.
        op: HauOp,
        /// Parameter name (`input_addr`, `output_idx_addr`, ...).
        param: &'static str,
        /// The address passed.
        addr: u64,
        /// Required alignment in bytes.
        align: u64,
    },
    /// A buffer does not lie wholly inside global memory or inside L2 SRAM.
    #[error(
        "address out of range: {op}: {param} = {addr:#x} with {bytes} bytes, \
         must lie inside global memory {gm} or L2 SRAM {l2}"
    )]
    AddressOutOfRange {
        /// Instruction.
        op: HauOp,
        /// Parameter name.
        param: &'static str,
        /// The address passed.
        addr: u64,
        /// Bytes the instruction accesses from `addr`.
        bytes: u64,
        /// Global memory of the simulated core.
        gm: AddrRange,
        /// L2 SRAM of the simulated core (`none` when the chip profile has none).
        l2: MaybeRange,
    },
    /// A count parameter of `line_gather` (`line_len`, `index_len`) must be positive.
    #[error("{param} out of range: {op}: {param} = {value}, must be >= 1")]
    CountOutOfRange {
        /// Instruction.
        op: HauOp,
        /// Parameter name.
        param: &'static str,
        /// The value passed.
        value: i32,
    },
    /// `line_gather`: `start` must be `>= 0`.
    #[error("start out of range: {op}: start = {start}, must be >= 0")]
    StartNegative {
        /// Instruction.
        op: HauOp,
        /// The `start` passed.
        start: i32,
    },
    /// `line_gather`: `start` must not exceed `end`.
    #[error("start after end: {op}: start = {start}, end = {end}, must have start <= end")]
    StartAfterEnd {
        /// Instruction.
        op: HauOp,
        /// The `start` passed.
        start: i32,
        /// The `end` passed.
        end: i32,
    },
    /// `line_gather`: `end` must be below `line_num`.
    #[error("end out of range: {op}: end = {end}, must be < line_num (line_num = {line_num})")]
    EndOutOfRange {
        /// Instruction.
        op: HauOp,
        /// The `end` passed.
        end: i32,
        /// The `line_num` passed.
        line_num: i32,
    },
    /// A buffer's byte size does not fit the 64-bit address space.
    #[error("size overflow: {op}: {param} needs more than 2^64 bytes")]
    SizeOverflow {
        /// Instruction.
        op: HauOp,
        /// Parameter name.
        param: &'static str,
    },
}

/// An optional address range that displays as `none` when absent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MaybeRange(pub Option<AddrRange>);

impl fmt::Display for MaybeRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(r) => r.fmt(f),
            None => f.write_str("(none on this chip)"),
        }
    }
}

/// A host-side memory access (read/write helper) outside the simulated memory.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "memory access out of range: {addr:#x} with {bytes} bytes is not inside \
     global memory {gm} or L2 SRAM {l2}"
)]
pub struct MemError {
    /// First address accessed.
    pub addr: u64,
    /// Number of bytes accessed.
    pub bytes: u64,
    /// Global memory of the simulated core.
    pub gm: AddrRange,
    /// L2 SRAM of the simulated core.
    pub l2: MaybeRange,
}

/// A simulated core that cannot be created.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CoreError {
    /// The requested global memory exceeds [`crate::memory::MAX_GM_SIZE`].
    #[error(
        "global memory too large: TpuCore::with_gm_size: gm_size = {requested} bytes, must be \
         <= {limit} bytes"
    )]
    GmSizeTooLarge {
        /// The size asked for.
        requested: u64,
        /// The simulator's limit.
        limit: u64,
    },
}

/// A refused local-memory, GDMA or BDC call (issue #16): names the function, the parameter,
/// the rule and the value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TpuError {
    /// The element type is not legal for the function.
    #[error("unsupported dtype: {op}: dtype = {dtype}, {rule}")]
    UnsupportedDtype {
        /// Function.
        op: &'static str,
        /// The dtype passed.
        dtype: crate::dtype::DataType,
        /// The rule.
        rule: &'static str,
    },
    /// A shape dimension outside `[1, 65535]` (`tpu_gdma_shape_limit`).
    #[error("{param} out of range: {op}: {param} = {value}, must be in [1, 65535]")]
    DimOutOfRange {
        /// Function.
        op: &'static str,
        /// Which dimension.
        param: &'static str,
        /// The value passed.
        value: i64,
    },
    /// A negative stride.
    #[error("negative stride: {op}: {param}.{field} = {value}, must be >= 0")]
    StrideNegative {
        /// Function.
        op: &'static str,
        /// Which stride argument.
        param: &'static str,
        /// Which field.
        field: &'static str,
        /// The value passed.
        value: i32,
    },
    /// A GDMA w stride wider than the engine moves (`tpu_gdma_move_max_wstride_byte_len`) or 0.
    #[error(
        "w stride out of range: {op}: {param}.w = {value} elements ({bytes} bytes), must be \
         in [1, {max_bytes}] bytes"
    )]
    WStrideOutOfRange {
        /// Function.
        op: &'static str,
        /// Which stride argument.
        param: &'static str,
        /// The stride in elements.
        value: i32,
        /// The stride in bytes.
        bytes: i64,
        /// The limit in bytes.
        max_bytes: u32,
    },
    /// A local operand address not a multiple of the EU width in bytes.
    #[error("misaligned local address: {op}: {param} = {addr:#x}, must be a multiple of {align}")]
    Misaligned {
        /// Function.
        op: &'static str,
        /// Which address.
        param: &'static str,
        /// The address passed.
        addr: u32,
        /// Required alignment in bytes.
        align: u32,
    },
    /// A local address beyond `NPU_NUM * LOCAL_MEM_SIZE`.
    #[error("local address out of range: {op}: {param} = {addr:#x}, must be < {limit:#x}")]
    LocalAddrOutOfRange {
        /// Function.
        op: &'static str,
        /// Which address.
        param: &'static str,
        /// The address passed.
        addr: u32,
        /// Size of the local address space.
        limit: u64,
    },
    /// A local tensor that runs past the end of its lanes' memory.
    #[error(
        "local tensor out of range: {op}: {param} = {addr:#x} with its shape and stride ends at \
         lane offset {end}, must be <= {limit}"
    )]
    LocalFootprint {
        /// Function.
        op: &'static str,
        /// Which address.
        param: &'static str,
        /// The address passed.
        addr: u32,
        /// One past the last byte, as an offset in the lane.
        end: i64,
        /// Local memory per lane.
        limit: u32,
    },
    /// A system-memory tensor outside global memory and L2 SRAM.
    #[error("system tensor out of range: {op}: {param}: {source}")]
    System {
        /// Function.
        op: &'static str,
        /// Which address.
        param: &'static str,
        /// The access.
        source: MemError,
    },
    /// A call out of order in the `tpu_parallel_start`/`tpu_parallel_end` state machine.
    #[error("sync state: {op}: {rule}")]
    SyncState {
        /// Function.
        op: &'static str,
        /// The rule broken.
        rule: &'static str,
    },
    /// A pooling parameter outside its range (kernel, stride, dilation, padding, output size).
    #[error("{param} out of range: {op}: {param} = {value}, {rule}")]
    PoolParam {
        /// Function.
        op: &'static str,
        /// Which parameter (`kernel.h`, `padding.top`, ...).
        param: &'static str,
        /// The value passed.
        value: i64,
        /// The rule.
        rule: &'static str,
    },
    /// A scalar argument (or one stride field) outside what the function takes: a matrix's
    /// `cols_per_channel` or `row_stride`, a transposing copy's `w` stride.
    #[error("{param} out of range: {op}: {param} = {value}, {rule}")]
    ArgOutOfRange {
        /// Function.
        op: &'static str,
        /// Which argument (`cols_per_channel`, `dst_stride.w`, ...).
        param: &'static str,
        /// The value passed.
        value: i64,
        /// The rule.
        rule: &'static str,
    },
    /// A system or local address that is not a multiple of the element size (the GDMA asserts
    /// `(start_offset & type_mask) == 0`).
    #[error(
        "address not element-aligned: {op}: {param} = {addr:#x}, must be a multiple of {esize}"
    )]
    ElemMisaligned {
        /// Function.
        op: &'static str,
        /// Which address.
        param: &'static str,
        /// The address passed (a system address or a `local_addr_t`).
        addr: u64,
        /// Element size in bytes.
        esize: u32,
    },
    /// A rounding mode the chip's BDC does not take.
    #[error(
        "unsupported rounding mode: {op}: mode = {mode}, must be RM_HALF_TO_EVEN, \
             RM_HALF_AWAY_FROM_ZERO, RM_TOWARDS_ZERO, RM_DOWN or RM_UP"
    )]
    UnsupportedRoundingMode {
        /// Function.
        op: &'static str,
        /// The mode passed (vendor name, or the code when it names none).
        mode: &'static str,
    },
    /// Operands that must start on the same NPU do not.
    #[error(
        "operands on different NPUs: {op}: {param} starts on NPU {start}, dst_addr on NPU \
         {dst_start}, must be the same"
    )]
    StartNpuMismatch {
        /// Function.
        op: &'static str,
        /// Which operand.
        param: &'static str,
        /// Its start NPU.
        start: u32,
        /// The destination's start NPU.
        dst_start: u32,
    },
    /// Channels that would run past the last NPU.
    #[error(
        "channels past the last NPU: {op}: dst_addr starts on NPU {start} with shape.c = {c}, \
         must satisfy start + c <= {npu_num}"
    )]
    ChannelsPastLanes {
        /// Function.
        op: &'static str,
        /// Start NPU of dst.
        start: u32,
        /// Channels.
        c: i32,
        /// NPU count.
        npu_num: u32,
    },
    /// An operand that must sit on a given NPU does not.
    #[error("operand on the wrong NPU: {op}: {param} = {addr:#x} is on NPU {npu}, {rule}")]
    NpuRequired {
        /// Function.
        op: &'static str,
        /// Which address.
        param: &'static str,
        /// The address passed.
        addr: u32,
        /// Its NPU.
        npu: u32,
        /// The rule.
        rule: &'static str,
    },
    /// Two operands that must not share an address do.
    #[error("operands overlap: {op}: {param} = {addr:#x} equals {other}, {rule}")]
    SameAddress {
        /// Function.
        op: &'static str,
        /// Which address.
        param: &'static str,
        /// The address passed.
        addr: u32,
        /// The operand it must differ from.
        other: &'static str,
        /// The rule.
        rule: &'static str,
    },
    /// A function the chip's vendor model does not run (it asserts on every call).
    #[error("not supported: {op} on {chip}: {rule}")]
    NotSupported {
        /// Function.
        op: &'static str,
        /// The chip profile.
        chip: &'static str,
        /// What the vendor model does.
        rule: &'static str,
    },
    /// A call that would do more element operations than the simulator's work bound
    /// ([`crate::LocalProfile::max_call_elems`], or [`crate::TpuCore::set_work_bound`]).
    #[error(
        "work bound exceeded: {op}: {param} = {value} element operations, must be <= {limit} \
         (the simulator's per-call work bound; split the call)"
    )]
    WorkBound {
        /// Function.
        op: &'static str,
        /// What was counted (`shape` = N*C*H*W; `shape x kernel` for pooling).
        param: &'static str,
        /// The count.
        value: u128,
        /// The bound.
        limit: u64,
    },
    /// A zero destination stride on a dimension of more than one element (the BDC would write
    /// every element of that dimension to one place; the C-model asserts
    /// `dst_shape[i] == 1` when `dst_stride[i] == 0`).
    #[error(
        "zero destination stride: {op}: dst_stride.{field} = 0 with shape.{field} = {dim}, a \
         zero destination stride needs shape.{field} == 1"
    )]
    DstStrideZero {
        /// Function.
        op: &'static str,
        /// Which field (`n`, `c`, `h`, `w`).
        field: &'static str,
        /// The shape's size on that dimension.
        dim: i32,
    },
}
