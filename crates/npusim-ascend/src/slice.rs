//! DataCopy's slice form: `DataCopy(dst, src, dstSliceInfo[], srcSliceInfo[], dimValue)`
//! (asc-devkit `GM与UB数据搬运/GM与UB切片数据搬运(DataCopy).md`), GM → UB and UB → GM.
//!
//! Each side is a tensor of `dimValue` dimensions (dimension 0 innermost, `shapeValue`
//! elements long; dimension d's index steps by the product of the lower shapes). Along each
//! dimension a [`SliceInfo`] picks `N` runs between `startIndex` and `endIndex` (inclusive),
//! `stride` elements apart, where `endIndex - startIndex + 1 = (N - 1)·stride + N·len`: on
//! dimension 0 a run is `burstLen` 32-byte blocks (`burstLen·32/sizeof(T)` elements), on the
//! others one index (`burstLen` must be 1). The runs of every dimension, outermost first, give
//! the bursts of a side; the source's bursts go, in order, to the destination's.
//!
//! Checked: the products the page lists (Ascend 950, A2/A3, Atlas inference AI Core) and
//! their types; `dimValue` in [1, 8] and both arrays that long; equal `burstLen` on both
//! sides; `burstLen` 1 beyond dimension 0 and at least 1 on it; `startIndex < endIndex <=
//! shapeValue`; the run equation with a whole `N >= 1`; equal burst counts on both sides; the UB
//! side 32-byte aligned; every burst inside its tensor.

use crate::core::{Operand, VectorCore, check};
use crate::error::{AscendError, Result};
use npusim_core::{ChipId, ChipProfile, ElemType, MemSpace};

/// `SliceInfo{startIndex, endIndex, stride, burstLen, shapeValue}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SliceInfo {
    pub start_index: u32,
    pub end_index: u32,
    pub stride: u32,
    pub burst_len: u32,
    pub shape_value: u32,
}

impl SliceInfo {
    /// The page's brace order: `{startIndex, endIndex, stride, burstLen, shapeValue}`.
    pub const fn new(start: u32, end: u32, stride: u32, burst_len: u32, shape: u32) -> Self {
        SliceInfo {
            start_index: start,
            end_index: end,
            stride,
            burst_len,
            shape_value: shape,
        }
    }
}

/// A checked slice move: the bursts' element offsets on each side, and the burst length.
#[derive(Clone, Debug, PartialEq)]
pub struct SliceMove {
    pub dst: Operand,
    pub src: Operand,
    /// Element offsets of the bursts, (destination, source) pairs in order.
    pub bursts: Vec<(u64, u64)>,
    /// Elements per burst.
    pub burst_elems: u64,
}

const NAME: &str = "DataCopy";

fn rule(param: &'static str, value: String, rule: &'static str) -> AscendError {
    AscendError::Rule {
        instr: NAME,
        param,
        value,
        rule,
    }
}

/// The element offsets of one side's bursts (outermost dimension first).
fn bursts(side: &'static str, s: &[SliceInfo], size: u64) -> Result<(Vec<u64>, u64)> {
    let mut offsets = vec![0u64];
    let mut dim_step = 1u64;
    let mut steps = Vec::with_capacity(s.len());
    for (d, info) in s.iter().enumerate() {
        let unit = if d == 0 {
            info.burst_len as u64 * 32 / size
        } else {
            1
        };
        if d == 0 && info.burst_len == 0 {
            return Err(rule(
                side,
                "dimension 0: burstLen 0".to_string(),
                "burstLen counts 32-byte blocks and must be at least 1",
            ));
        }
        if d > 0 && info.burst_len != 1 {
            return Err(rule(
                side,
                format!("dimension {d}: burstLen {}", info.burst_len),
                "burstLen must be 1 beyond the first dimension",
            ));
        }
        if !(info.start_index < info.end_index && info.end_index <= info.shape_value) {
            return Err(rule(
                side,
                format!(
                    "dimension {d}: startIndex {}, endIndex {}, shapeValue {}",
                    info.start_index, info.end_index, info.shape_value
                ),
                "startIndex < endIndex <= shapeValue",
            ));
        }
        let span = (info.end_index - info.start_index) as u64 + 1;
        let per = unit + info.stride as u64;
        let n = (span + info.stride as u64) / per;
        if n == 0 || (n - 1) * info.stride as u64 + n * unit != span {
            return Err(rule(
                side,
                format!(
                    "dimension {d}: startIndex {}, endIndex {}, stride {}, burstLen {}",
                    info.start_index, info.end_index, info.stride, info.burst_len
                ),
                "endIndex - startIndex + 1 must equal (N - 1) * stride + N * burstLen * 32 / sizeof(T) for a whole N >= 1 (burstLen * 32 / sizeof(T) is 1 beyond the first dimension)",
            ));
        }
        steps.push((info.start_index as u64, per, n, dim_step));
        dim_step *= info.shape_value as u64;
    }
    // Outermost dimension first: expand from the top down.
    for &(start, per, n, step) in steps.iter().rev() {
        let mut next = Vec::with_capacity(offsets.len() * n as usize);
        for o in &offsets {
            for k in 0..n {
                next.push(o + (start + k * per) * step);
            }
        }
        offsets = next;
    }
    let elems = steps
        .first()
        .map(|_| s[0].burst_len as u64 * 32 / size)
        .unwrap_or(0);
    Ok((offsets, elems))
}

impl SliceMove {
    /// Checks a call (see the module docs for the rules).
    pub fn new(
        chip: &ChipProfile,
        dst: &Operand,
        src: &Operand,
        dst_slice: &[SliceInfo],
        src_slice: &[SliceInfo],
        dim_value: u32,
    ) -> Result<SliceMove> {
        use ElemType::*;
        let legal: &[ElemType] = match chip.id {
            ChipId::Ascend950 => &ElemType::ARITH,
            ChipId::Ascend910B => &[I8, U8, I16, U16, F16, Bf16, I32, U32, F32],
            ChipId::Ascend310P => &[I8, U8, I16, U16, F16, I32, U32, F32],
            _ => {
                return Err(AscendError::NotSupported {
                    instr: NAME,
                    chip: chip.id,
                });
            }
        };
        if !legal.contains(&src.dtype) {
            return Err(AscendError::IllegalType {
                instr: NAME,
                param: "T",
                dtype: src.dtype,
                chip: chip.id,
                legal: legal
                    .iter()
                    .map(|t| t.cpp_name())
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
        if dst.dtype != src.dtype {
            return Err(AscendError::TypeMismatch {
                instr: NAME,
                param: "dst",
                got: dst.dtype,
                other: "src",
                want: src.dtype,
            });
        }
        let ub_side = match (dst.space, src.space) {
            (MemSpace::Ub, MemSpace::Gm) => ("dst", dst),
            (MemSpace::Gm, MemSpace::Ub) => ("src", src),
            _ => {
                return Err(AscendError::WrongScope {
                    instr: NAME,
                    param: "dst",
                    tensor: dst.tensor.to_string(),
                    got: dst.space,
                    want: "GM -> UB or UB -> GM",
                });
            }
        };
        check::align(chip, NAME, ub_side.0, ub_side.1)?;
        let dim = check::range(NAME, "dimValue", dim_value as i64, 1, 8, "[1, 8]")? as usize;
        for (param, s) in [("dstSliceInfo", dst_slice), ("srcSliceInfo", src_slice)] {
            if s.len() != dim {
                return Err(rule(
                    param,
                    format!("{} entries, dimValue {dim}", s.len()),
                    "the SliceInfo array must hold dimValue entries",
                ));
            }
        }
        for (d, (a, b)) in dst_slice.iter().zip(src_slice).enumerate() {
            if a.burst_len != b.burst_len {
                return Err(rule(
                    "burstLen",
                    format!("dimension {d}: dst {}, src {}", a.burst_len, b.burst_len),
                    "srcSliceInfo[i].burstLen must equal dstSliceInfo[i].burstLen",
                ));
            }
        }
        let size = src.dtype.size() as u64;
        let (d_off, elems) = bursts("dstSliceInfo", dst_slice, size)?;
        let (s_off, _) = bursts("srcSliceInfo", src_slice, size)?;
        if d_off.len() != s_off.len() {
            return Err(rule(
                "srcSliceInfo",
                format!(
                    "{} source bursts, {} destination bursts",
                    s_off.len(),
                    d_off.len()
                ),
                "the source and destination slices must hold the same number of bursts",
            ));
        }
        for (param, op, offs) in [("dst", dst, &d_off), ("src", src, &s_off)] {
            let lo = offs.iter().min().copied().unwrap_or(0);
            let hi = offs.iter().max().copied().unwrap_or(0) + elems;
            check::within(
                NAME,
                param,
                op,
                Some((op.addr() + lo * size, op.addr() + hi * size)),
            )?;
        }
        Ok(SliceMove {
            dst: dst.clone(),
            src: src.clone(),
            bursts: d_off.into_iter().zip(s_off).collect(),
            burst_elems: elems,
        })
    }

    /// Runs the move (a GM destination under SetAtomicAdd accumulates).
    pub fn execute(&self, core: &mut VectorCore) -> Result<()> {
        let size = self.src.dtype.size() as u64;
        let len = self.burst_elems * size;
        let mut tmp = vec![0u8; len as usize];
        for (d, s) in &self.bursts {
            tmp.copy_from_slice(
                core.memory(self.src.space)?
                    .bytes(self.src.addr() + s * size, len)?,
            );
            core.store(self.dst.space, self.dst.addr() + d * size, &tmp)?;
        }
        Ok(())
    }
}
