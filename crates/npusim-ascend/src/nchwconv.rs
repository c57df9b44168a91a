//! TransDataTo5HD / `vnchwconv` (`vec_trans_scatter`): 16 source and 16 destination 32-byte
//! blocks, each by its own address, transposed per repeat.
//!
//! Source: asc-devkit `docs/zh/api/SIMD-API/基础API/Memory矢量计算/数据排布转换/TransDataTo5HD.md`
//! (and the transpose example's `gen_data.py` scenario 3, NCHW -> NC1HWC0).
//! - 16-bit: destination block j, element i = source block i, element j (a 16×16 transpose).
//! - 32-bit: source blocks hold 8 elements; column c of the 16 source blocks fills destination
//!   blocks 2c (source blocks 0..7) and 2c+1 (source blocks 8..15).
//! - 8-bit: source blocks hold 32 elements; destination block j gets, in its low (or with
//!   `dstHighHalf` its high) 16 bytes, byte `j` (or with `srcHighHalf` byte `j + 16`) of the 16
//!   source blocks. The other half of the destination block is kept. The flags only apply to
//!   8-bit types (ignored otherwise, as the page says they are only supported there).
//! - Repeats: every address moves by `repeat_index * RepStride` blocks; with `repeatTimes` = 1
//!   the page says the effective start is the list address plus the RepStride (modelled).
//! - repeatTimes in [0, 255] (0 is a NOP); RepStrides are uint16; every address 32-byte
//!   aligned, in UB and inside its tensor. All 16 source blocks of a repeat are read before its
//!   destination blocks are written.
//! - Types: Atlas training (and 310, policy) int8/uint8/int16/uint16/half; 310P, A2/A3, 310B
//!   add int32/uint32/float; 950 adds bfloat16.

use crate::core::{Operand, VectorCore, check};
use crate::error::{AscendError, Result};
use crate::geometry::BLOCK_BYTES;
use crate::isa::Instr;
use npusim_core::MemSpace;

/// Entries in each address list (`NCHW_CONV_ADDR_LIST_SIZE`).
pub const ADDR_LIST_SIZE: usize = 16;

/// `TransDataTo5HDParams{dstHighHalf, srcHighHalf, repeatTimes, dstRepStride, srcRepStride}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct TransDataTo5HDParams {
    pub dst_high_half: bool,
    pub src_high_half: bool,
    pub repeat_times: i64,
    pub dst_rep_stride: i64,
    pub src_rep_stride: i64,
}

/// A checked TransDataTo5HD.
#[derive(Clone, Debug, PartialEq)]
pub struct TransOp {
    pub name: &'static str,
    pub dst: Vec<Operand>,
    pub src: Vec<Operand>,
    pub params: TransDataTo5HDParams,
}

const DST: [&str; 16] = [
    "dstList[0]",
    "dstList[1]",
    "dstList[2]",
    "dstList[3]",
    "dstList[4]",
    "dstList[5]",
    "dstList[6]",
    "dstList[7]",
    "dstList[8]",
    "dstList[9]",
    "dstList[10]",
    "dstList[11]",
    "dstList[12]",
    "dstList[13]",
    "dstList[14]",
    "dstList[15]",
];
const SRC: [&str; 16] = [
    "srcList[0]",
    "srcList[1]",
    "srcList[2]",
    "srcList[3]",
    "srcList[4]",
    "srcList[5]",
    "srcList[6]",
    "srcList[7]",
    "srcList[8]",
    "srcList[9]",
    "srcList[10]",
    "srcList[11]",
    "srcList[12]",
    "srcList[13]",
    "srcList[14]",
    "srcList[15]",
];

impl TransOp {
    /// Checks a call for the core's chip.
    pub fn new(
        chip: &npusim_core::ChipProfile,
        name: &'static str,
        dst: &[&Operand; ADDR_LIST_SIZE],
        src: &[&Operand; ADDR_LIST_SIZE],
        params: TransDataTo5HDParams,
    ) -> Result<TransOp> {
        let t = src[0].dtype;
        Instr::TransDataTo5HD.check_type(name, chip.id, "srcList[0]", t)?;
        let repeat =
            check::range(name, "repeatTimes", params.repeat_times, 0, 255, "[0, 255]")? as u64;
        let dst_rep = check::range(
            name,
            "dstRepStride",
            params.dst_rep_stride,
            0,
            65535,
            "[0, 65535]",
        )? as u64;
        let src_rep = check::range(
            name,
            "srcRepStride",
            params.src_rep_stride,
            0,
            65535,
            "[0, 65535]",
        )? as u64;
        for (lists, names) in [(dst, &DST), (src, &SRC)] {
            for (k, op) in lists.iter().enumerate() {
                check::same_type(name, names[k], op, "srcList[0]", t)?;
                check::scope(name, names[k], op, MemSpace::Ub)?;
                if !op.addr().is_multiple_of(BLOCK_BYTES) {
                    return Err(AscendError::Misaligned {
                        instr: name,
                        param: names[k],
                        space: MemSpace::Ub,
                        addr: op.addr(),
                        align: BLOCK_BYTES,
                    });
                }
            }
        }
        let op = TransOp {
            name,
            dst: dst.iter().map(|o| (*o).clone()).collect(),
            src: src.iter().map(|o| (*o).clone()).collect(),
            params,
        };
        if repeat > 0 {
            let (first, last) = (op.offset(0), op.offset(repeat - 1));
            for (lists, names, stride) in [(&op.dst, &DST, dst_rep), (&op.src, &SRC, src_rep)] {
                for (k, o) in lists.iter().enumerate() {
                    let lo = o.addr() + first * stride * BLOCK_BYTES;
                    let hi = o.addr() + last * stride * BLOCK_BYTES + BLOCK_BYTES;
                    check::within(name, names[k], o, Some((lo, hi)))?;
                }
            }
        }
        Ok(op)
    }

    /// The RepStride multiple of repeat `r` (the page: with one repeat the stride applies once).
    fn offset(&self, r: u64) -> u64 {
        if self.params.repeat_times == 1 { 1 } else { r }
    }

    /// Runs the transposes.
    pub fn execute(&self, core: &mut VectorCore) -> Result<()> {
        let size = self.src[0].dtype.size();
        let repeat = self.params.repeat_times.max(0) as u64;
        let (dr, sr) = (
            self.params.dst_rep_stride as u64,
            self.params.src_rep_stride as u64,
        );
        let mut inb = [[0u8; 32]; ADDR_LIST_SIZE];
        for r in 0..repeat {
            let m = self.offset(r);
            for (k, o) in self.src.iter().enumerate() {
                inb[k].copy_from_slice(
                    core.ub()
                        .bytes(o.addr() + m * sr * BLOCK_BYTES, BLOCK_BYTES)?,
                );
            }
            for j in 0..ADDR_LIST_SIZE {
                let at = self.dst[j].addr() + m * dr * BLOCK_BYTES;
                let mut out = [0u8; 32];
                out.copy_from_slice(core.ub().bytes(at, BLOCK_BYTES)?);
                match size {
                    1 => {
                        let col = j + 16 * usize::from(self.params.src_high_half);
                        let half = 16 * usize::from(self.params.dst_high_half);
                        for (i, b) in inb.iter().enumerate() {
                            out[half + i] = b[col];
                        }
                    }
                    2 => {
                        for (i, b) in inb.iter().enumerate() {
                            out[2 * i..2 * i + 2].copy_from_slice(&b[2 * j..2 * j + 2]);
                        }
                    }
                    _ => {
                        let (col, rows) = (j / 2, 8 * (j % 2));
                        for i in 0..8 {
                            out[4 * i..4 * i + 4]
                                .copy_from_slice(&inb[rows + i][4 * col..4 * col + 4]);
                        }
                    }
                }
                core.ub_mut().write(at, &out)?;
            }
        }
        Ok(())
    }
}
