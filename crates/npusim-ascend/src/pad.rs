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
//!   paddings at most 32 bytes each; a count or length of 0 is a NOP on A2/A3 and 950 (an
//!   error on Atlas 200I/500 A2, where the page is silent: named policy).
//! - Available on A2/A3, Atlas 200I/500 A2 and Ascend 950 (the page lists no other product);
//!   64-bit types on A2/A3 and 950 only, whose `paddingValue` must be 0.
//! - Ascend 950: GM → UB `srcStride` in [-blockLen, 2^40 - 1] (`-blockLen` moves the same
//!   block again) and `dstStride` in [0, 65535]; UB → GM `srcStride` in [0, 65535] and
//!   `dstStride` in [0, 2^40 - 1]; `PaddingMode::Compact` packs the blocks back to
//!   back in UB and pads once after the last one (`rightPadding`, then filler to 32 bytes;
//!   `leftPadding` and `dstStride` are ignored).
//! - SetPadValue (A2/A3, 950) sets the value a move without `isPad` pads with (policy: when set,
//!   it also replaces the first-element filler).
//! - Loop mode (Ascend 950; asc-devkit `SetLoopModePara.md`, `ResetLoopModePara.md`, the
//!   DataCopyPad example's scenarios 4-6): `SetLoopModePara(LoopModeParams, DataCopyMVType)`
//!   arms, per path (GM -> UB `OUT_TO_UB`, UB -> GM `UB_TO_OUT`), two hardware loops around
//!   every DataCopyPad of that path until `ResetLoopModePara`: iteration `(i2, i1)` (`i1` inner,
//!   `i1 < loop1Size`, `i2 < loop2Size`) is the whole move with source and destination advanced
//!   by `i1 * loop1*Stride + i2 * loop2*Stride` bytes (start to start). Sizes in [0, 2^21) (a 0
//!   moves nothing); strides on the UB side in [0, 2^21) and multiples of 32, on the GM side in
//!   [0, 2^40). The page says overlapping destination data is not detected by the hardware and
//!   its result not guaranteed (iterations may interleave): this model refuses a call whose
//!   iterations write any byte twice (`IllegalOverlap`), and one that reaches past a tensor.
//!   The page names DataCopy too: a GM <-> UB DataCopy on the 950 is this move with `blockLen`
//!   and the gaps in 32-byte units and no padding, and loops the same way
//!   (`AscendC::DataCopy`, `AscendC::DataCopyParams`).

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
    /// GM → UB: bytes (negative down to `-blockLen` on Ascend 950); UB → GM: 32-byte blocks.
    pub src_stride: i64,
    pub dst_stride: u64,
    pub left: u64,
    pub right: u64,
    /// The padding value's bits when `isPad`.
    pub pad: Option<u64>,
    /// `PaddingMode::Compact` (Ascend 950).
    pub compact: bool,
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
        compact: bool,
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
        if size == 8 && chip.id == ChipId::Ascend310B {
            return Err(AscendError::IllegalType {
                instr: name,
                param: "T",
                dtype: src.dtype,
                chip: chip.id,
                legal:
                    "int8_t, uint8_t, int16_t, uint16_t, half, bfloat16_t, int32_t, uint32_t, float"
                        .into(),
            });
        }
        let a5 = chip.id == ChipId::Ascend950;
        if compact && !(a5 && dst.space == MemSpace::Ub) {
            return Err(AscendError::Rule {
                instr: name,
                param: "mode",
                value: "PaddingMode::Compact".into(),
                rule: "Compact mode is an Ascend 950 GM -> UB mode",
            });
        }
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
        // Validated here, kept as i64 (the 950 ranges are signed or wider than 32 bits).
        let to_ub = dst.space == MemSpace::Ub;
        let (src_range, dst_range): ((i64, i64, &'static str), (i64, i64, &'static str)) =
            match (a5, to_ub) {
                (true, true) => (
                    (-(block_len as i64), (1 << 40) - 1, "[-blockLen, 2^40 - 1]"),
                    (0, 65535, "[0, 65535]"),
                ),
                (true, false) => (
                    (0, 65535, "[0, 65535]"),
                    (0, (1 << 40) - 1, "[0, 2^40 - 1]"),
                ),
                _ => (
                    (0, u32::MAX as i64, "[0, 2^32)"),
                    (0, u32::MAX as i64, "[0, 2^32)"),
                ),
            };
        check::range(
            name,
            "srcStride",
            src_stride,
            src_range.0,
            src_range.1,
            src_range.2,
        )?;
        check::range(
            name,
            "dstStride",
            dst_stride,
            dst_range.0,
            dst_range.1,
            dst_range.2,
        )?;
        let dst_stride = dst_stride as u64;
        if (block_count == 0 || block_len == 0)
            && !matches!(chip.id, ChipId::Ascend910B | ChipId::Ascend950)
        {
            return Err(AscendError::Rule {
                instr: name,
                param: if block_count == 0 {
                    "blockCount"
                } else {
                    "blockLen"
                },
                value: "0".into(),
                rule: "a blockCount or blockLen of 0 is a NOP only on A2/A3 and Ascend 950; elsewhere it is rejected",
            });
        }
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
        if size == 8 && pad.is_some_and(|p| p != 0) {
            return Err(AscendError::Rule {
                instr: name,
                param: "paddingValue",
                value: format!("{:#x}", pad.unwrap_or(0)),
                rule: "for 64-bit types paddingValue must be 0",
            });
        }
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
            compact,
        };
        if block_count > 0 && block_len > 0 {
            let (ub_span, gm_span) = op.spans();
            let gm_name = if ub_name == "dst" { "src" } else { "dst" };
            check::within(name, ub_name, ub, Some((ub.addr(), ub.addr() + ub_span)))?;
            check::within(name, gm_name, gm, Some((gm.addr(), gm.addr() + gm_span)))?;
        }
        Ok(op)
    }

    /// Bytes one move spans on the UB side and on the GM side (from the operand's start).
    fn spans(&self) -> (u64, u64) {
        let n = (self.block_count as u64).saturating_sub(1);
        let (ub_step, gm_step) = self.steps();
        let ub_span = if self.compact {
            self.compact_bytes()
        } else {
            n * ub_step + self.row_bytes()
        };
        (ub_span, n * gm_step + self.block_len)
    }

    /// The path of this move (which loop-mode register applies).
    pub fn path(&self) -> DataCopyMVType {
        if self.dst.space == MemSpace::Ub {
            DataCopyMVType::OutToUb
        } else {
            DataCopyMVType::UbToOut
        }
    }

    /// The byte ranges one move writes, relative to the destination's start.
    fn written(&self) -> Vec<(u64, u64)> {
        let (ub_step, gm_step) = self.steps();
        let n = self.block_count as u64;
        match self.path() {
            DataCopyMVType::OutToUb if self.compact => vec![(0, self.compact_bytes())],
            DataCopyMVType::OutToUb => (0..n)
                .map(|i| (i * ub_step, i * ub_step + self.row_bytes()))
                .collect(),
            DataCopyMVType::UbToOut => (0..n)
                .map(|i| (i * gm_step, i * gm_step + self.block_len))
                .collect(),
        }
    }

    /// Checks a looped move: every iteration inside both tensors, no destination byte written
    /// twice.
    fn check_loops(&self, l: &LoopModeParams) -> Result<()> {
        let name = self.name;
        let (l1, l2) = (u64::from(l.loop1_size), u64::from(l.loop2_size));
        let (ub_span, gm_span) = self.spans();
        let (src_span, dst_span) = match self.path() {
            DataCopyMVType::OutToUb => (gm_span, ub_span),
            DataCopyMVType::UbToOut => (ub_span, gm_span),
        };
        // Strides are below 2^40 and sizes below 2^21: no overflow in u64.
        let last = |s1: u64, s2: u64| (l1 - 1) * s1 + (l2 - 1) * s2;
        let src_end = self.src.addr() + last(l.loop1_src_stride, l.loop2_src_stride) + src_span;
        let dst_end = self.dst.addr() + last(l.loop1_dst_stride, l.loop2_dst_stride) + dst_span;
        check::within(name, "src", &self.src, Some((self.src.addr(), src_end)))?;
        check::within(name, "dst", &self.dst, Some((self.dst.addr(), dst_end)))?;
        let overlap = AscendError::IllegalOverlap {
            instr: name,
            dst: "dst",
            src: "dst",
            rule: "loop mode: the iterations' destination data must not overlap (SetLoopModePara)",
        };
        let one = self.written();
        // Every range holds at least one byte and lies inside the tensor: more ranges than
        // bytes must overlap (and bounds the list built below).
        let count = l1 * l2 * one.len() as u64;
        if count > self.dst.tensor_bytes {
            return Err(overlap);
        }
        let mut all = Vec::with_capacity(count as usize);
        for i2 in 0..l2 {
            for i1 in 0..l1 {
                let off = i1 * l.loop1_dst_stride + i2 * l.loop2_dst_stride;
                all.extend(one.iter().map(|&(a, b)| (a + off, b + off)));
            }
        }
        all.sort_unstable();
        if all.windows(2).any(|w| w[1].0 < w[0].1) {
            return Err(overlap);
        }
        Ok(())
    }

    /// Bytes of one UB row: paddings, data, filler to 32 bytes.
    fn row_bytes(&self) -> u64 {
        let size = self.src.dtype.size() as u64;
        (self.left * size + self.block_len + self.right * size).div_ceil(32) * 32
    }

    /// Compact mode: the packed blocks, the right padding, filler to 32 bytes.
    fn compact_bytes(&self) -> u64 {
        let size = self.src.dtype.size() as u64;
        (self.block_count as u64 * self.block_len + self.right * size).div_ceil(32) * 32
    }

    /// Bytes from one block to the next on the UB side and on the GM side.
    fn steps(&self) -> (u64, u64) {
        if self.dst.space == MemSpace::Ub {
            let ub = if self.compact {
                self.block_len
            } else {
                self.row_bytes() + self.dst_stride * 32
            };
            // srcStride >= -blockLen was checked.
            let gm = (self.block_len as i64 + self.src_stride).max(0) as u64;
            (ub, gm)
        } else {
            (
                self.row_bytes() + self.src_stride.max(0) as u64 * 32,
                self.block_len + self.dst_stride,
            )
        }
    }

    /// Runs the move (looped when the core's loop-mode register of its path is armed).
    pub fn execute(&self, core: &mut VectorCore) -> Result<()> {
        if self.block_count == 0 || self.block_len == 0 {
            return Ok(());
        }
        let Some(l) = core.loop_mode[self.path() as usize] else {
            return self.run_once(core, 0, 0);
        };
        if l.loop1_size == 0 || l.loop2_size == 0 {
            return Ok(());
        }
        self.check_loops(&l)?;
        for i2 in 0..u64::from(l.loop2_size) {
            for i1 in 0..u64::from(l.loop1_size) {
                self.run_once(
                    core,
                    i1 * l.loop1_src_stride + i2 * l.loop2_src_stride,
                    i1 * l.loop1_dst_stride + i2 * l.loop2_dst_stride,
                )?;
            }
        }
        Ok(())
    }

    /// One move with the source and destination advanced by `src_off` / `dst_off` bytes.
    fn run_once(&self, core: &mut VectorCore, src_off: u64, dst_off: u64) -> Result<()> {
        let size = self.src.dtype.size();
        let (ub_step, gm_step) = self.steps();
        let (src0, dst0) = (self.src.addr() + src_off, self.dst.addr() + dst_off);
        if self.dst.space != MemSpace::Ub {
            for i in 0..self.block_count as u64 {
                let s = src0 + i * ub_step;
                let d = dst0 + i * gm_step;
                let data = core.ub().bytes(s, self.block_len)?.to_vec();
                core.store(MemSpace::Gm, d, &data)?;
            }
            return Ok(());
        }
        // The value paddings and filler take: isPad's value, else SetPadValue's register.
        let value = self.pad.or(core.pad_value);
        let fill_bytes = |v: u64| v.to_le_bytes()[..size].to_vec();
        let lead = if self.compact {
            0
        } else {
            self.left * size as u64
        };
        let mut first = Vec::new();
        for i in 0..self.block_count as u64 {
            let s = src0 + i * gm_step;
            let d = dst0 + i * ub_step;
            let data = core
                .memory(MemSpace::Gm)?
                .bytes(s, self.block_len)?
                .to_vec();
            // Filler without a value: the block's first element (the page's dummy), when there
            // are no paddings; otherwise unspecified (left unchanged).
            let fill: Option<Vec<u8>> = match value {
                Some(v) => Some(fill_bytes(v)),
                None if self.left == 0 && self.right == 0 => Some(data[..size].to_vec()),
                None => None,
            };
            core.ub_mut().write(d + lead, &data)?;
            if self.compact {
                first = fill.unwrap_or_default();
                continue;
            }
            if let Some(f) = fill {
                let row = self.row_bytes();
                pad_range(core, &f, d, lead)?;
                pad_range(
                    core,
                    &f,
                    d + lead + self.block_len,
                    row - lead - self.block_len,
                )?;
            }
        }
        if self.compact && !first.is_empty() {
            let tail = self.block_count as u64 * self.block_len;
            pad_range(core, &first, dst0 + tail, self.compact_bytes() - tail)?;
        }
        Ok(())
    }
}

/// Loop mode for DataCopy (Ascend 950): `SetLoopModePara` names DataCopy and DataCopyPad,
/// on the paths GM -> UB and UB -> GM. The 950 runs a GM <-> UB DataCopy as the move
/// DataCopyPad uses (asc-devkit `impl/basic_api/dav_3510`: `blockLen` and the gaps in
/// 32-byte units, no padding), so while its path is armed a DataCopy (`block_count` blocks of
/// `blocks` 32-byte units, gaps in 32-byte units) is that move, looped as the module docs
/// describe. Returns false (nothing done) when no loop mode applies. Both faces call it.
pub fn data_copy_looped(
    core: &mut VectorCore,
    dst: &Operand,
    src: &Operand,
    block_count: u16,
    blocks: u64,
    src_gap: u16,
    dst_gap: u16,
) -> Result<bool> {
    if core.chip().id != ChipId::Ascend950 {
        return Ok(false);
    }
    let path = match (dst.space, src.space) {
        (MemSpace::Ub, MemSpace::Gm) => DataCopyMVType::OutToUb,
        (MemSpace::Gm, MemSpace::Ub) => DataCopyMVType::UbToOut,
        _ => return Ok(false),
    };
    if core.loop_mode[path as usize].is_none() {
        return Ok(false);
    }
    // GM side strides in bytes, UB side in 32-byte blocks (DataCopyPad's units).
    let (src_stride, dst_stride) = match path {
        DataCopyMVType::OutToUb => (src_gap as i64 * 32, dst_gap as i64),
        DataCopyMVType::UbToOut => (src_gap as i64, dst_gap as i64 * 32),
    };
    MovePad::new(
        core.chip(),
        "DataCopy",
        dst,
        src,
        block_count as i64,
        blocks.saturating_mul(32).min(i64::MAX as u64) as i64,
        src_stride,
        dst_stride,
        0,
        0,
        None,
        false,
    )?
    .execute(core)?;
    Ok(true)
}

/// Writes `len` bytes at `addr` of UB, repeating the element `f`.
fn pad_range(core: &mut VectorCore, f: &[u8], addr: u64, len: u64) -> Result<()> {
    let bytes: Vec<u8> = f.iter().copied().cycle().take(len as usize).collect();
    core.ub_mut().write(addr, &bytes)?;
    Ok(())
}

/// `DataCopyMVType`: the path a loop mode applies to, numbered as the vendor numbers it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DataCopyMVType {
    /// `UB_TO_OUT`: UB -> GM.
    UbToOut = 0,
    /// `OUT_TO_UB`: GM -> UB.
    OutToUb = 1,
}

/// `LoopModeParams` (strides in bytes, start to start).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct LoopModeParams {
    /// Inner loop count, [0, 2^21).
    pub loop1_size: u32,
    /// Outer loop count, [0, 2^21).
    pub loop2_size: u32,
    /// Inner loop source advance.
    pub loop1_src_stride: u64,
    /// Inner loop destination advance.
    pub loop1_dst_stride: u64,
    /// Outer loop source advance.
    pub loop2_src_stride: u64,
    /// Outer loop destination advance.
    pub loop2_dst_stride: u64,
}

impl LoopModeParams {
    /// Checks the parameters for `path` on `chip` (`SetLoopModePara.md`, table 2).
    pub fn check(&self, chip: &ChipProfile, path: DataCopyMVType) -> Result<()> {
        const NAME: &str = "SetLoopModePara";
        if chip.id != ChipId::Ascend950 {
            return Err(AscendError::NotSupported {
                instr: NAME,
                chip: chip.id,
            });
        }
        let limit = (1i64 << 21) - 1;
        for (param, v) in [
            ("loop1Size", self.loop1_size),
            ("loop2Size", self.loop2_size),
        ] {
            check::range(NAME, param, i64::from(v), 0, limit, "[0, 2^21)")?;
        }
        let to_ub = path == DataCopyMVType::OutToUb;
        for (param, v, ub_side) in [
            ("loop1SrcStride", self.loop1_src_stride, !to_ub),
            ("loop1DstStride", self.loop1_dst_stride, to_ub),
            ("loop2SrcStride", self.loop2_src_stride, !to_ub),
            ("loop2DstStride", self.loop2_dst_stride, to_ub),
        ] {
            let value = i64::try_from(v).unwrap_or(i64::MAX);
            if ub_side {
                check::range(NAME, param, value, 0, limit, "[0, 2^21) on the UB side")?;
                if !v.is_multiple_of(32) {
                    return Err(AscendError::Rule {
                        instr: NAME,
                        param,
                        value: v.to_string(),
                        rule: "a UB-side loop stride must be a multiple of 32 bytes",
                    });
                }
            } else {
                check::range(
                    NAME,
                    param,
                    value,
                    0,
                    (1i64 << 40) - 1,
                    "[0, 2^40) on the GM side",
                )?;
            }
        }
        Ok(())
    }
}
