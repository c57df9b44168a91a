//! Smaller shapes: Brcb, CreateVecIndex, and the CMPMASK register (Compare into the register,
//! SetCmpMask / GetCmpMask).
//!
//! - Brcb (asc-devkit `Brcb.md`; ascend-vector.md §3): each repeat takes 8 consecutive source
//!   elements and fills one 32-byte destination block with each; the block stride (where 0
//!   means one block) and the repeat stride count 32-byte blocks; the source advances 8
//!   elements per repeat. Absent on Atlas training, Atlas 200I/500 A2 and, by the same lists,
//!   Atlas 200/300/500 inference.
//! - CreateVecIndex (`CreateVecIndex.md`): `dst[i] = firstValue + i` for the first `count`
//!   elements, computed in the element type (f16 rounds each value once).
//! - vcmp_xx / Compare(src0, src1, cmpMode, mask, repeatParams): one repeat, one bit per active
//!   lane into CMPMASK; masked-off bits keep their value (cceapi vcmp). SetCmpMask loads 128
//!   bits from UB (16 bytes), GetCmpMask stores them.

use crate::core::{Operand, VectorCore, check};
use crate::error::Result;
use crate::geometry::{BLOCK_BYTES, Walk};
use crate::isa::Instr;
use crate::kernels::CmpMode;
use crate::mask::{self, LaneMask, MaskArg, MaskRegister};
use crate::ops::Scalar;
use npusim_core::{ChipProfile, ElemType, MemSpace};

/// A checked Brcb.
#[derive(Clone, Debug, PartialEq)]
pub struct BrcbOp {
    pub dst: Operand,
    pub src: Operand,
    pub repeat: u32,
    pub dst_blk_stride: u32,
    pub dst_rep_stride: u32,
}

impl BrcbOp {
    /// `Brcb(dst, src, repeatTime, {dstBlkStride, dstRepStride})`.
    pub fn new(
        chip: &ChipProfile,
        name: &'static str,
        dst: &Operand,
        src: &Operand,
        repeat: i64,
        dst_blk_stride: i64,
        dst_rep_stride: i64,
    ) -> Result<BrcbOp> {
        Instr::Brcb.check_type(name, chip.id, "dst", dst.dtype)?;
        check::same_type(name, "src", src, "dst", dst.dtype)?;
        let repeat = check::range(name, "repeatTime", repeat, 0, 255, "[0, 255]")?;
        let blk =
            check::range(name, "dstBlkStride", dst_blk_stride, 0, 65535, "[0, 65535]")?.max(1);
        let rep = check::range(name, "dstRepStride", dst_rep_stride, 0, 65535, "[0, 65535]")?;
        for (p, op) in [("dst", dst), ("src", src)] {
            check::scope(name, p, op, MemSpace::Ub)?;
            check::align(chip, name, p, op)?;
        }
        let op = BrcbOp {
            dst: dst.clone(),
            src: src.clone(),
            repeat,
            dst_blk_stride: blk,
            dst_rep_stride: rep,
        };
        if repeat > 0 {
            let s = src.addr();
            check::within(
                name,
                "src",
                src,
                Some((s, s + repeat as u64 * 8 * src.dtype.size() as u64)),
            )?;
            check::within(
                name,
                "dst",
                dst,
                op.walk().span(repeat, |_| {
                    u128::MAX >> (128 - 8 * (32 / dst.dtype.size() as u32))
                }),
            )?;
        }
        Ok(op)
    }

    fn walk(&self) -> Walk {
        Walk {
            base: self.dst.addr(),
            blk_stride: self.dst_blk_stride as u64 * BLOCK_BYTES,
            rep_stride: self.dst_rep_stride as u64 * BLOCK_BYTES,
            elem_size: self.dst.dtype.size() as u64,
        }
    }

    /// Runs the broadcast.
    pub fn execute(&self, core: &mut VectorCore) -> Result<()> {
        let size = self.dst.dtype.size();
        let w = self.walk();
        for r in 0..self.repeat {
            let src = core
                .ub()
                .bytes(
                    self.src.addr() + (r as u64 * 8) * size as u64,
                    8 * size as u64,
                )?
                .to_vec();
            for b in 0..8usize {
                let mut block = [0u8; 32];
                for c in block.chunks_exact_mut(size) {
                    c.copy_from_slice(&src[b * size..(b + 1) * size]);
                }
                core.ub_mut().write(w.block_addr(r, b as u32), &block)?;
            }
        }
        Ok(())
    }
}

/// `CreateVecIndex(dst, firstValue, count)`: `dst[i] = firstValue + i`.
pub fn create_vec_index(
    core: &mut VectorCore,
    name: &'static str,
    dst: &Operand,
    first: Scalar,
    count: i64,
) -> Result<()> {
    let chip = core.chip();
    Instr::CreateVecIndex.check_type(name, chip.id, "dst", dst.dtype)?;
    check::scope(name, "dst", dst, MemSpace::Ub)?;
    check::align(chip, name, "dst", dst)?;
    let count = check::range(name, "count", count, 0, u32::MAX as i64, "[0, 2^32)")? as u64;
    let size = dst.dtype.size() as u64;
    check::within(
        name,
        "dst",
        dst,
        Some((dst.addr(), dst.addr() + count * size)),
    )?;
    let start = match first {
        Scalar::Int(i) => i as f64,
        Scalar::Float(f) => f,
    };
    let mut out = Vec::with_capacity((count * size) as usize);
    for i in 0..count {
        let v = start + i as f64;
        let bits = if dst.dtype.is_float() {
            Scalar::Float(v).to_bits(name, "firstValue", dst.dtype)?
        } else {
            Scalar::Int(v as i64).to_bits(name, "firstValue", dst.dtype)?
        };
        out.extend_from_slice(&bits.to_le_bytes()[..size as usize]);
    }
    core.ub_mut().write(dst.addr(), &out)?;
    Ok(())
}

/// A checked compare into CMPMASK (`vcmp_xx` / Compare to the register).
#[derive(Clone, Debug, PartialEq)]
pub struct CmpMaskOp {
    pub name: &'static str,
    pub mode: CmpMode,
    pub src0: Operand,
    pub src1: Operand,
    pub lanes: LaneMask,
    pub blk: [u32; 2],
}

impl CmpMaskOp {
    /// `vcmp_xx(mask, src0, src1, src0_stride, src1_stride)`: one repeat; strides are block
    /// strides.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        chip: &ChipProfile,
        name: &'static str,
        mode: CmpMode,
        src0: &Operand,
        src1: &Operand,
        mask: MaskArg,
        src0_blk_stride: i64,
        src1_blk_stride: i64,
    ) -> Result<CmpMaskOp> {
        Instr::VcmpEq.check_type(name, chip.id, "src0", src0.dtype)?;
        check::same_type(name, "src1", src1, "src0", src0.dtype)?;
        let b0 = check::range(name, "src0_stride", src0_blk_stride, 0, 255, "[0, 255]")?;
        let b1 = check::range(name, "src1_stride", src1_blk_stride, 0, 255, "[0, 255]")?;
        for (p, op) in [("src0", src0), ("src1", src1)] {
            check::scope(name, p, op, MemSpace::Ub)?;
            check::align(chip, name, p, op)?;
        }
        let lanes_n = 256 / src0.dtype.size() as u32;
        let lanes = mask::resolve(name, mask, lanes_n, true, MaskRegister::default())?;
        let op = CmpMaskOp {
            name,
            mode,
            src0: src0.clone(),
            src1: src1.clone(),
            lanes,
            blk: [b0, b1],
        };
        for (k, (p, o)) in [("src0", src0), ("src1", src1)].into_iter().enumerate() {
            check::within(
                name,
                p,
                o,
                op.walk(k).span(1, |r| lanes.lanes_of(r, lanes_n)),
            )?;
        }
        Ok(op)
    }

    fn walk(&self, k: usize) -> Walk {
        let op = if k == 0 { &self.src0 } else { &self.src1 };
        Walk {
            base: op.addr(),
            blk_stride: self.blk[k] as u64 * BLOCK_BYTES,
            rep_stride: 0,
            elem_size: op.dtype.size() as u64,
        }
    }

    /// Runs the comparison into the core's CMPMASK.
    pub fn execute(&self, core: &mut VectorCore) -> Result<()> {
        let n = 256 / self.src0.dtype.size() as u32;
        let active = self.lanes.lanes_of(0, n);
        let size = self.src0.dtype.size();
        let value = |b: &[u8]| -> f64 {
            match self.src0.dtype {
                ElemType::F16 => half::f16::from_le_bytes([b[0], b[1]]).to_f64(),
                ElemType::F32 => f32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64,
                _ => i32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64,
            }
        };
        let mut reg = core.cmpmask;
        for e in 0..n {
            if active >> e & 1 == 0 {
                continue;
            }
            let a = value(core.ub().bytes(self.walk(0).lane_addr(0, e), size as u64)?);
            let b = value(core.ub().bytes(self.walk(1).lane_addr(0, e), size as u64)?);
            if self.mode.holds(a, b) {
                reg |= 1 << e;
            } else {
                reg &= !(1u128 << e);
            }
        }
        core.cmpmask = reg;
        Ok(())
    }
}

/// `SetCmpMask(src)` / `mov_tensor_to_cmpmask`: loads 16 bytes of UB into CMPMASK.
pub fn set_cmp_mask(core: &mut VectorCore, name: &'static str, src: &Operand) -> Result<()> {
    check::scope(name, "src", src, MemSpace::Ub)?;
    check::align(core.chip(), name, "src", src)?;
    check::within(name, "src", src, Some((src.addr(), src.addr() + 16)))?;
    let mut b = [0u8; 16];
    b.copy_from_slice(core.ub().bytes(src.addr(), 16)?);
    core.cmpmask = u128::from_le_bytes(b);
    Ok(())
}

/// `GetCmpMask(dst)` / `mov_cmpmask_to_tensor`: stores CMPMASK as 16 bytes of UB.
pub fn get_cmp_mask(core: &mut VectorCore, name: &'static str, dst: &Operand) -> Result<()> {
    check::scope(name, "dst", dst, MemSpace::Ub)?;
    check::align(core.chip(), name, "dst", dst)?;
    check::within(name, "dst", dst, Some((dst.addr(), dst.addr() + 16)))?;
    let bits = core.cmpmask.to_le_bytes();
    core.ub_mut().write(dst.addr(), &bits)?;
    Ok(())
}

/// `Gather(dst, src, srcOffset, srcBaseAddr, count)` (Gather.md): `dst[i] = src[(srcBaseAddr +
/// srcOffset[i]) / sizeof(T)]`, offsets in bytes (uint32). An offset that is not a multiple of
/// sizeof(T) or reaches past `src` is an error (the page calls it unexpected behaviour).
pub fn gather(
    core: &mut VectorCore,
    name: &'static str,
    dst: &Operand,
    src: &Operand,
    offsets: &Operand,
    base: u32,
    count: i64,
) -> Result<()> {
    let chip = core.chip();
    Instr::Gather.check_type(name, chip.id, "dst", dst.dtype)?;
    check::same_type(name, "src", src, "dst", dst.dtype)?;
    if offsets.dtype != ElemType::U32 {
        return Err(crate::error::AscendError::IllegalType {
            instr: name,
            param: "srcOffset",
            dtype: offsets.dtype,
            chip: chip.id,
            legal: "uint32".into(),
        });
    }
    for (p, op) in [("dst", dst), ("src", src), ("srcOffset", offsets)] {
        check::scope(name, p, op, MemSpace::Ub)?;
        check::align(chip, name, p, op)?;
    }
    let count = check::range(name, "count", count, 0, u32::MAX as i64, "[0, 2^32)")? as u64;
    let size = dst.dtype.size() as u64;
    check::within(
        name,
        "dst",
        dst,
        Some((dst.addr(), dst.addr() + count * size)),
    )?;
    check::within(
        name,
        "srcOffset",
        offsets,
        Some((offsets.addr(), offsets.addr() + count * 4)),
    )?;
    let offs = core
        .ub()
        .read_elems::<u32>(offsets.addr(), count as usize)?;
    let mut out = Vec::with_capacity((count * size) as usize);
    for o in offs {
        let byte = base as u64 + o as u64;
        if !byte.is_multiple_of(size) {
            return Err(crate::error::AscendError::Rule {
                instr: name,
                param: "srcOffset",
                value: byte.to_string(),
                rule: "srcBaseAddr + srcOffset[i] must be a multiple of sizeof(T)",
            });
        }
        let at = src.addr() + byte;
        check::within(name, "src", src, Some((at, at + size)))?;
        out.extend_from_slice(core.ub().bytes(at, size)?);
    }
    core.ub_mut().write(dst.addr(), &out)?;
    Ok(())
}

/// `Transpose(dst, src)` / `vec_trans(dst, src, repeat_times, dst_rep_stride, src_rep_stride)`:
/// each repeat transposes a 16×16 matrix of 2-byte elements (512 bytes); rep strides in
/// 512-byte units; repeat in [1, 4095] (TIK).
#[allow(clippy::too_many_arguments)]
pub fn transpose(
    core: &mut VectorCore,
    name: &'static str,
    dst: &Operand,
    src: &Operand,
    repeat: i64,
    dst_rep_stride: i64,
    src_rep_stride: i64,
) -> Result<()> {
    let chip = core.chip();
    Instr::Transpose.check_type(name, chip.id, "dst", dst.dtype)?;
    check::same_type(name, "src", src, "dst", dst.dtype)?;
    let repeat = check::range(name, "repeat_times", repeat, 1, 4095, "[1, 4095]")? as u64;
    let dr = check::range(name, "dst_rep_stride", dst_rep_stride, 0, 4095, "[0, 4095]")? as u64;
    let sr = check::range(name, "src_rep_stride", src_rep_stride, 0, 4095, "[0, 4095]")? as u64;
    for (p, op) in [("dst", dst), ("src", src)] {
        check::scope(name, p, op, MemSpace::Ub)?;
        check::align(chip, name, p, op)?;
    }
    check::within(
        name,
        "src",
        src,
        Some((src.addr(), src.addr() + (repeat - 1) * sr * 512 + 512)),
    )?;
    check::within(
        name,
        "dst",
        dst,
        Some((dst.addr(), dst.addr() + (repeat - 1) * dr * 512 + 512)),
    )?;
    for r in 0..repeat {
        let m = core.ub().bytes(src.addr() + r * sr * 512, 512)?.to_vec();
        let mut t = vec![0u8; 512];
        for i in 0..16 {
            for j in 0..16 {
                let (a, b) = ((i * 16 + j) * 2, (j * 16 + i) * 2);
                t[b..b + 2].copy_from_slice(&m[a..a + 2]);
            }
        }
        core.ub_mut().write(dst.addr() + r * dr * 512, &t)?;
    }
    Ok(())
}
