//! One simulated AI Vector core: its memories, its mask state, and operand checks.
//!
//! Both API faces (TIK and Ascend C) drive the same [`VectorCore`]; an instruction operand is an
//! [`Operand`]: an element offset into a declared tensor, so that bounds are checked against the
//! tensor the user declared (as TIK's `check_tensor_overflow` does), not just against the memory.

use crate::error::{AscendError, Result};
use crate::mask::MaskRegister;
use npusim_core::{ChipId, ChipProfile, ElemType, MemSpace, Memory};
use std::sync::Arc;

/// A vector instruction operand: element `offset` of a tensor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Operand {
    /// The tensor's name, for messages.
    pub tensor: Arc<str>,
    /// Where the tensor lives.
    pub space: MemSpace,
    /// Its element type.
    pub dtype: ElemType,
    /// Byte address of the tensor's first element.
    pub tensor_base: u64,
    /// The tensor's size in bytes.
    pub tensor_bytes: u64,
    /// The operand's start, in elements from the tensor's first element.
    pub offset: u64,
}

impl Operand {
    /// Byte address of the operand's start.
    pub fn addr(&self) -> u64 {
        self.tensor_base + self.offset * self.dtype.size() as u64
    }

    /// The same tensor, starting `elems` elements further.
    pub fn at(&self, elems: u64) -> Operand {
        Operand {
            offset: self.offset + elems,
            ..self.clone()
        }
    }
}

/// One vector core: Unified Buffer, global memory, and the mask register.
#[derive(Debug, Clone)]
pub struct VectorCore {
    chip: &'static ChipProfile,
    ub: Memory,
    gm: Memory,
    /// The MASK register and the counter-mode bit.
    pub mask: MaskRegister,
    /// The 128-bit CMPMASK register (written by `vcmp_xx` / Compare-to-register and
    /// SetCmpMask, read by GetCmpMask).
    pub cmpmask: u128,
    /// SetAtomicAdd's accumulation type: moves into GM add to what is there.
    pub atomic: Option<ElemType>,
    /// SetDeqScale's scale (a half value) for int32 -> half Cast.
    pub deq_scale: f32,
    /// What the DEQSCALE register holds for CastDequant int16 -> b8 ([`crate::deq`]).
    pub deq_form: crate::deq::DeqForm,
    /// SetPadValue's value (bits), used by DataCopyPad without `isPad`.
    pub pad_value: Option<u64>,
    /// How many entries of each of the 4 lists the last MrgSort consumed (GetMrgSortResult).
    pub mrg_sort_result: [u16; 4],
    /// The sum register the count form of ReduceSum leaves (GetAccVal / GetReduceRepeatSumSpr):
    /// element type and raw bits.
    pub acc_val: Option<(ElemType, u64)>,
    /// The max/min register WholeReduceMax/Min, ReduceMax/ReduceMin leave
    /// (GetReduceMaxMinCount / GetReduceRepeatMaxMinSpr): type, value bits, index bits; `None`
    /// after a non-contiguous or counter-mode reduction (the page does not support reading it).
    pub max_min: Option<(ElemType, u64, u64)>,
    /// The loop-mode registers of DataCopyPad, by path (`DataCopyMVType as usize`: UB -> GM,
    /// GM -> UB), armed by SetLoopModePara and cleared by ResetLoopModePara.
    pub loop_mode: [Option<crate::pad::LoopModeParams>; 2],
    /// The RPN offset TIK `viou` adds to each side of an intersection (TIK `set_rpn_offset`;
    /// 1.0 until set, the value Ascend 310 has fixed: see [`crate::sort`]).
    pub rpn_offset: f32,
}

impl VectorCore {
    /// A core of `chip` with a zeroed UB and `gm_bytes` of zeroed global memory.
    pub fn new(chip: ChipId, gm_bytes: usize) -> VectorCore {
        let profile = ChipProfile::get(chip);
        VectorCore {
            chip: profile,
            ub: Memory::new(MemSpace::Ub, profile.capacity(MemSpace::Ub).unwrap_or(0)),
            gm: Memory::new(MemSpace::Gm, gm_bytes),
            mask: MaskRegister::default(),
            cmpmask: 0,
            mrg_sort_result: [0; 4],
            acc_val: None,
            max_min: None,
            atomic: None,
            deq_scale: 1.0,
            deq_form: crate::deq::DeqForm::Half,
            pad_value: None,
            loop_mode: [None; 2],
            rpn_offset: 1.0,
        }
    }

    /// The chip's profile.
    pub fn chip(&self) -> &'static ChipProfile {
        self.chip
    }

    /// A memory of the core.
    pub fn memory(&self, space: MemSpace) -> Result<&Memory> {
        match space {
            MemSpace::Ub => Ok(&self.ub),
            MemSpace::Gm => Ok(&self.gm),
            _ => Err(npusim_core::MemoryError::NoSuchSpace { space }.into()),
        }
    }

    /// A memory of the core, writable.
    pub fn memory_mut(&mut self, space: MemSpace) -> Result<&mut Memory> {
        match space {
            MemSpace::Ub => Ok(&mut self.ub),
            MemSpace::Gm => Ok(&mut self.gm),
            _ => Err(npusim_core::MemoryError::NoSuchSpace { space }.into()),
        }
    }

    /// Writes `data` to `addr` of `space`; a GM write under SetAtomicAdd adds each element
    /// of the atomic type to what memory holds (floats rounded once to the type, integers
    /// wrapping).
    pub fn store(&mut self, space: MemSpace, addr: u64, data: &[u8]) -> Result<()> {
        let Some(t) = self.atomic.filter(|_| space == MemSpace::Gm) else {
            self.memory_mut(space)?.write(addr, data)?;
            return Ok(());
        };
        let size = t.size();
        let old = self.gm.bytes(addr, data.len() as u64)?.to_vec();
        let mut out = Vec::with_capacity(data.len());
        for (o, n) in old.chunks(size).zip(data.chunks(size)) {
            if o.len() < size {
                out.extend_from_slice(n);
                continue;
            }
            let mut a = [0u8; 8];
            let mut b = [0u8; 8];
            a[..size].copy_from_slice(o);
            b[..size].copy_from_slice(n);
            let (x, y) = (u64::from_le_bytes(a), u64::from_le_bytes(b));
            let r: u64 = match t {
                ElemType::F16 => {
                    let s = half::f16::from_bits(x as u16).to_f64()
                        + half::f16::from_bits(y as u16).to_f64();
                    half::f16::from_f64(s).to_bits() as u64
                }
                ElemType::Bf16 => {
                    let s = half::bf16::from_bits(x as u16).to_f64()
                        + half::bf16::from_bits(y as u16).to_f64();
                    half::bf16::from_f64(s).to_bits() as u64
                }
                ElemType::F32 => {
                    (f32::from_bits(x as u32) + f32::from_bits(y as u32)).to_bits() as u64
                }
                _ => x.wrapping_add(y),
            };
            out.extend_from_slice(&r.to_le_bytes()[..size]);
        }
        self.gm.write(addr, &out)?;
        Ok(())
    }

    /// The Unified Buffer.
    pub fn ub(&self) -> &Memory {
        &self.ub
    }

    /// The Unified Buffer, writable.
    pub fn ub_mut(&mut self) -> &mut Memory {
        &mut self.ub
    }
}

/// Operand checks shared by all instructions.
pub(crate) mod check {
    use super::*;

    /// The operand must be in `space`.
    pub fn scope(
        instr: &'static str,
        param: &'static str,
        op: &Operand,
        space: MemSpace,
    ) -> Result<()> {
        if op.space == space {
            Ok(())
        } else {
            Err(AscendError::WrongScope {
                instr,
                param,
                tensor: op.tensor.to_string(),
                got: op.space,
                want: space.name(),
            })
        }
    }

    /// The operand's address must meet its memory's alignment rule on this chip.
    pub fn align(
        chip: &ChipProfile,
        instr: &'static str,
        param: &'static str,
        op: &Operand,
    ) -> Result<()> {
        let align = chip.align(op.space);
        if align > 1 && !op.addr().is_multiple_of(align) {
            return Err(AscendError::Misaligned {
                instr,
                param,
                space: op.space,
                addr: op.addr(),
                align,
            });
        }
        Ok(())
    }

    /// The touched byte range must lie inside the operand's tensor.
    pub fn within(
        instr: &'static str,
        param: &'static str,
        op: &Operand,
        span: Option<(u64, u64)>,
    ) -> Result<()> {
        let Some((lo, hi)) = span else { return Ok(()) };
        let end = op.tensor_base + op.tensor_bytes;
        if lo < op.tensor_base || hi > end {
            return Err(AscendError::TensorOverflow {
                instr,
                param,
                tensor: op.tensor.to_string(),
                start: lo.saturating_sub(op.tensor_base),
                end: hi.saturating_sub(op.tensor_base),
                size: op.tensor_bytes,
            });
        }
        Ok(())
    }

    /// An integer parameter must lie in `lo..=hi`.
    pub fn range(
        instr: &'static str,
        param: &'static str,
        value: i64,
        lo: i64,
        hi: i64,
        text: &'static str,
    ) -> Result<u32> {
        if value < lo || value > hi {
            return Err(AscendError::OutOfRange {
                instr,
                param,
                value,
                range: text,
            });
        }
        Ok(value as u32)
    }

    /// Two operands must share an element type.
    pub fn same_type(
        instr: &'static str,
        param: &'static str,
        op: &Operand,
        other: &'static str,
        want: ElemType,
    ) -> Result<()> {
        if op.dtype == want {
            Ok(())
        } else {
            Err(AscendError::TypeMismatch {
                instr,
                param,
                got: op.dtype,
                other,
                want,
            })
        }
    }
}
