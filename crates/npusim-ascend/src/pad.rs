//! DataCopyPad / `data_move_pad`: byte-granular moves between GM and UB with padding
//! (asc-devkit `GM与UB数据搬运/GMToUB非对齐数据搬运(DataCopyPad).md`,
//! `UBToGM非对齐数据搬运(DataCopyPad).md`; Normal padding mode).
//!
//! - GM → UB: `blockCount` blocks of `blockLen` bytes; GM blocks are `srcStride` bytes apart
//!   (end to start); each lands in UB as `leftPadding` elements, the data, `rightPadding`
//!   elements, then filler up to a 32-byte boundary; UB rows are `dstStride` 32-byte blocks
//!   apart (end to start). With `isPad` the paddings and the filler take `paddingValue`;
//!   without it and without paddings the filler repeats the block's first element (the page's
//!   "dummy"); without `isPad` but with paddings the hardware writes unspecified values: this
//!   model leaves those bytes unchanged (named policy).
//! - UB → GM: the same blocks read from 32-byte-aligned UB rows (`srcStride` in 32-byte
//!   blocks) and written to GM `dstStride` bytes apart; SetAtomicAdd accumulates.
//! - `blockCount` in [0, 4095], `blockLen` in [0, 2097151] and a multiple of sizeof(T);
//!   paddings at most 32 bytes each; a count or length of 0 is a NOP (A2/A3).
//! - Available on A2/A3, Atlas 200I/500 A2 and Ascend 950 (the page lists no other product).

use crate::core::{Operand, VectorCore, check};
use crate::error::{AscendError, Result};
use crate::ops::ScalarBits;
use npusim_core::{ChipId, ChipProfile, MemSpace};

/// A checked padded move.
#[derive(Clone, Debug, PartialEq)]
pub struct MovePad {
    pub name: &'static str,
    pub dst: Operand,
    pub src: Operand,
    pub block_count: u32,
    pub block_len: u64,
    pub src_stride: u64,
    pub dst_stride: u64,
    pub left: u64,
    pub right: u64,
    /// The padding value's bits when `isPad`.
    pub pad: Option<u64>,
}

impl MovePad {
    /// Checks a call: strides as the page defines them (bytes on the GM side, 32-byte blocks
    /// on the UB side); `left`/`right` in elements.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        chip: &ChipProfile,
        name: &'static str,
        dst: &Operand,
        src: &Operand,
        block_count: i64,
        block_len: i64,
        src_stride: i64,
        dst_stride: i64,
        left: i64,
        right: i64,
        pad: Option<crate::ops::Scalar>,
    ) -> Result<MovePad> {
        if matches!(
            chip.id,
            ChipId::Ascend310 | ChipId::Ascend910 | ChipId::Ascend310P
        ) {
            return Err(AscendError::NotSupported {
                instr: name,
                chip: chip.id,
            });
        }
        if dst.dtype.size() != src.dtype.size() {
            return Err(AscendError::TypeMismatch {
                instr: name,
                param: "dst",
                got: dst.dtype,
                other: "src",
                want: src.dtype,
            });
        }
        let size = src.dtype.size() as i64;
        let block_count = check::range(name, "blockCount", block_count, 0, 4095, "[0, 4095]")?;
        let block_len =
            check::range(name, "blockLen", block_len, 0, 2_097_151, "[0, 2097151]")? as u64;
        if !block_len.is_multiple_of(size as u64) {
            return Err(AscendError::Rule {
                instr: name,
                param: "blockLen",
                value: block_len.to_string(),
                rule: "blockLen must be a multiple of sizeof(T)",
            });
        }
        let src_stride = check::range(
            name,
            "srcStride",
            src_stride,
            0,
            u32::MAX as i64,
            "[0, 2^32)",
        )? as u64;
        let dst_stride = check::range(
            name,
            "dstStride",
            dst_stride,
            0,
            u32::MAX as i64,
            "[0, 2^32)",
        )? as u64;
        let left =
            check::range(name, "leftPadding", left, 0, 32 / size, "at most 32 bytes")? as u64;
        let right = check::range(
            name,
            "rightPadding",
            right,
            0,
            32 / size,
            "at most 32 bytes",
        )? as u64;
        let (ub, gm, ub_name) = match (dst.space, src.space) {
            (MemSpace::Ub, MemSpace::Gm) => (dst, src, "dst"),
            (MemSpace::Gm, MemSpace::Ub) => (src, dst, "src"),
            _ => {
                return Err(AscendError::WrongScope {
                    instr: name,
                    param: "dst",
                    tensor: dst.tensor.to_string(),
                    got: dst.space,
                    want: "GM -> UB or UB -> GM",
                });
            }
        };
        check::align(chip, name, ub_name, ub)?;
        let pad = match pad {
            Some(s) => Some(s.to_bits(name, "paddingValue", src.dtype)?),
            None => None,
        };
        if src.space == MemSpace::Ub && (left > 0 || right > 0) {
            return Err(AscendError::Rule {
                instr: name,
                param: "padParams",
                value: format!("left {left}, right {right}"),
                rule: "padding applies to GM -> UB moves only",
            });
        }
        let op = MovePad {
            name,
            dst: dst.clone(),
            src: src.clone(),
            block_count,
            block_len,
            src_stride,
            dst_stride,
            left,
            right,
            pad,
        };
        if block_count > 0 && block_len > 0 {
            let n = block_count as u64 - 1;
            let row = op.row_bytes();
            let (ub_gap, gm_gap) = if dst.space == MemSpace::Ub {
                (dst_stride, src_stride)
            } else {
                (src_stride, dst_stride)
            };
            let ub_span = n * (row + ub_gap * 32) + row;
            let gm_span = n * (block_len + gm_gap) + block_len;
            let gm_name = if ub_name == "dst" { "src" } else { "dst" };
            check::within(name, ub_name, ub, Some((ub.addr(), ub.addr() + ub_span)))?;
            check::within(name, gm_name, gm, Some((gm.addr(), gm.addr() + gm_span)))?;
        }
        Ok(op)
    }

    /// Bytes of one UB row: paddings, data, filler to 32 bytes.
    fn row_bytes(&self) -> u64 {
        let size = self.src.dtype.size() as u64;
        (self.left * size + self.block_len + self.right * size).div_ceil(32) * 32
    }

    /// Runs the move.
    pub fn execute(&self, core: &mut VectorCore) -> Result<()> {
        if self.block_count == 0 || self.block_len == 0 {
            return Ok(());
        }
        let size = self.src.dtype.size();
        let row = self.row_bytes();
        for i in 0..self.block_count as u64 {
            if self.dst.space == MemSpace::Ub {
                let s = self.src.addr() + i * (self.block_len + self.src_stride);
                let d = self.dst.addr() + i * (row + self.dst_stride * 32);
                let data = core
                    .memory(MemSpace::Gm)?
                    .bytes(s, self.block_len)?
                    .to_vec();
                let lead = self.left * size as u64;
                let tail_start = lead + self.block_len;
                let fill: Option<Vec<u8>> = match self.pad {
                    Some(p) => Some(p.to_le_bytes()[..size].to_vec()),
                    None if self.left == 0 && self.right == 0 => Some(data[..size].to_vec()),
                    None => None,
                };
                let ub = core.ub_mut();
                ub.write(d + lead, &data)?;
                if let Some(f) = fill {
                    let mut pad = Vec::new();
                    while (pad.len() as u64) < lead {
                        pad.extend_from_slice(&f);
                    }
                    ub.write(d, &pad)?;
                    let mut tail = Vec::new();
                    while (tail.len() as u64) < row - tail_start {
                        tail.extend_from_slice(&f);
                    }
                    tail.truncate((row - tail_start) as usize);
                    ub.write(d + tail_start, &tail)?;
                }
            } else {
                let s = self.src.addr() + i * (row + self.src_stride * 32);
                let d = self.dst.addr() + i * (self.block_len + self.dst_stride);
                let data = core.ub().bytes(s, self.block_len)?.to_vec();
                core.store(MemSpace::Gm, d, &data)?;
            }
        }
        Ok(())
    }
}
