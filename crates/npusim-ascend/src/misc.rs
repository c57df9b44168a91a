//! Smaller shapes: Brcb, CreateVecIndex, and the CMPMASK register (Compare into the register,
//! SetCmpMask / GetCmpMask).
//!
//! - Brcb (asc-devkit `Brcb.md`; ascend-vector.md §3): each repeat takes 8 consecutive source
//!   elements and fills one 32-byte destination block with each; the block stride (where 0
//!   means one block) and the repeat stride count 32-byte blocks; the source advances 8
//!   elements per repeat. Absent on Atlas training, Atlas 200I/500 A2 and, by the same lists,
//!   Atlas 200/300/500 inference.
//! - CreateVecIndex (`CreateVecIndex.md`): `dst[i] = firstValue + i` for the first `count`
//!   elements, computed in the element type: rounded once, or on Atlas A2/A3, 310P and 310B by
//!   the vendor's chains of Adds ([`IndexValues`]).
//! - vcmp_xx / Compare(src0, src1, cmpMode, mask, repeatParams): one repeat, one bit per active
//!   lane into CMPMASK; masked-off bits keep their value (cceapi vcmp). SetCmpMask loads 128
//!   bits from UB (16 bytes), GetCmpMask stores them.
//! - Gatherb (`离散与聚合/Gatherb(ISASI).md`): repeat i, block j copies the 32-byte block at
//!   `src + offset[8i + j]` (uint32 byte offsets) to dst block `i·dstRepStride + j·dstBlkStride`
//!   (a block stride of 0 counts as 1, the page's reference code). Checked: the chip's types,
//!   the offsets (a multiple of 32, the block inside src), ranges (repeatTime [0, 255],
//!   dstBlkStride uint8, dstRepStride uint16), scope, alignment, bounds, and no overlap: the
//!   span dst is written in must not meet src from its start to its tensor's end (policy for
//!   the page's "not the same memory"). Every offset is checked before anything is written.

use crate::core::{Operand, VectorCore, check};
use crate::error::Result;
use crate::geometry::{BLOCK_BYTES, Walk};
use crate::isa::Instr;
use crate::kernels::CmpMode;
use crate::mask::{self, LaneMask, MaskArg, MaskRegister};
use crate::ops::Scalar;
use crate::ops::ScalarBits;
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

/// How a chip's CreateVecIndex computes floating-point values (per chip, from the vendor's
/// implementation for that chip in asc-devkit `impl/basic_api/`).
///
/// - [`IndexValues::ChainedAdds`] (Atlas A2/A3 and Atlas inference 310P): the vendor's
///   implementations for these chips (`dav_c220/` and `dav_m200/`
///   `kernel_operator_vec_createvecindex_impl.h`, the same algorithm) write the first data
///   block (count and continuous-mask forms) or the first repeat (bit-wise form) with scalar
///   stores of `T(float(firstValue) + i)`, then build every later block from the one before by
///   `Adds(.., T(elements per block))` and every later repeat from the one before by
///   `Adds(.., T(elements per repeat))`: each step rounds to `T` again. Element
///   `r·lanes + b·per_block + e` is therefore `v0` plus `per_block` b times plus `lanes` r
///   times, rounding after each addition, with `v0 = T(firstValue + e)` (or `+ b·per_block + e`
///   in the bit-wise form, whose first repeat is stored whole). On half this differs from one
///   rounding of `firstValue + i` when a step ties (e.g. firstValue 0.3 from element 512,
///   firstValue 30000 from element 24).
/// - [`IndexValues::RepeatAdds`] (Atlas 200I/500 A2, 310B): its implementation (`dav_m300/`)
///   fills one 256-byte register with the `vci` instruction (`firstValue + e`, taken as rounded
///   once) and adds the lanes per repeat (128 half / 64 float) with `vadds` before each later
///   repeat, in every form: the first repeat rounded once, each later repeat one more rounding.
/// - [`IndexValues::Direct`] (Ascend 950, and 310/910 which lack the instruction):
///   `T(firstValue + i)`, rounded once. The 950 implementation computes the index in registers
///   with its `vci` instruction.
///
/// Integer types give the same values under all three (the additions are exact in range).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexValues {
    Direct,
    ChainedAdds,
    RepeatAdds,
}

impl IndexValues {
    /// The chip's policy.
    pub fn of(chip: npusim_core::ChipId) -> IndexValues {
        match chip {
            npusim_core::ChipId::Ascend910B | npusim_core::ChipId::Ascend310P => {
                IndexValues::ChainedAdds
            }
            npusim_core::ChipId::Ascend310B => IndexValues::RepeatAdds,
            _ => IndexValues::Direct,
        }
    }

    /// The value of lane `e` (within its block) of block `b` of repeat `r`; `bitwise` is the
    /// `mask[]` form (its first repeat stored whole). Floats come back rounded to `dtype`.
    #[allow(clippy::too_many_arguments)]
    pub fn value(
        self,
        name: &'static str,
        dtype: ElemType,
        start: f64,
        r: u64,
        b: u64,
        e: u64,
        bitwise: bool,
    ) -> Result<f64> {
        let (lanes, per_block) = (256 / dtype.size() as u64, BLOCK_BYTES / dtype.size() as u64);
        if self == IndexValues::Direct || !dtype.is_float() {
            return Ok(start + (r * lanes + b * per_block + e) as f64);
        }
        let round = |v: f64| -> Result<f64> {
            let bits = Scalar::Float(v).to_bits(name, "firstValue", dtype)?;
            Ok(match dtype {
                ElemType::F16 => half::f16::from_bits(bits as u16).to_f64(),
                ElemType::Bf16 => half::bf16::from_bits(bits as u16).to_f64(),
                _ => f32::from_bits(bits as u32) as f64,
            })
        };
        // RepeatAdds stores its first repeat whole in every form, as the bit-wise form of
        // ChainedAdds does.
        let mut x = if bitwise || self == IndexValues::RepeatAdds {
            round(start + (b * per_block + e) as f64)?
        } else {
            let mut x = round(start + e as f64)?;
            for _ in 0..b {
                x = round(x + per_block as f64)?;
            }
            x
        };
        for _ in 0..r {
            x = round(x + lanes as f64)?;
        }
        Ok(x)
    }
}

/// `CreateVecIndex(dst, firstValue, count)`: `dst[i] = firstValue + i` (floats by the chip's
/// [`IndexValues`] policy).
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
    // "firstValue需保证不超出dst中元素数据类型对应的大小范围" (and a whole number for an
    // integer dst).
    first.to_bits(name, "firstValue", dst.dtype)?;
    let start = match first {
        Scalar::Int(i) => i as f64,
        Scalar::Float(f) => f,
    };
    let policy = IndexValues::of(chip.id);
    let (lanes, per_block) = (256 / size, BLOCK_BYTES / size);
    let mut out = Vec::with_capacity((count * size) as usize);
    for i in 0..count {
        let (r, b, e) = (i / lanes, i % lanes / per_block, i % per_block);
        let v = policy.value(name, dst.dtype, start, r, b, e, false)?;
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

/// `CreateVecIndex(dst, firstValue, mask / mask[2], repeatTime, dstBlkStride, dstRepStride)`
/// (the page's "tensor高维切分计算" forms): active lane e of repeat r is written at
/// `dst + r·dstRepStride·32 + (e / per_block)·dstBlkStride·32 + (e % per_block)·size` with
/// `firstValue + r·lanes + e` by the chip's [`IndexValues`] policy (rounded once, or the A2/A3
/// chain of Adds; the page prints only the contiguous case); masked-off lanes keep
/// their bytes. Checked: the chip's types (int8/int64 only in the count form), repeatTime
/// [0, 255], dstBlkStride [0, 65535], dstRepStride [0, 255], the mask, scope, alignment,
/// bounds, and every value inside the type (before anything is written).
#[allow(clippy::too_many_arguments)]
pub fn create_vec_index_masked(
    core: &mut VectorCore,
    name: &'static str,
    dst: &Operand,
    first: Scalar,
    mask_arg: MaskArg,
    repeat: i64,
    dst_blk_stride: i64,
    dst_rep_stride: i64,
) -> Result<()> {
    let chip = core.chip();
    Instr::CreateVecIndex.check_type(name, chip.id, "dst", dst.dtype)?;
    if matches!(dst.dtype, ElemType::I8 | ElemType::I64) {
        return Err(crate::error::AscendError::Rule {
            instr: name,
            param: "dst",
            value: format!("{:?}", dst.dtype),
            rule: "int8_t/int64_t only in the count form (CreateVecIndex(dst, firstValue, count))",
        });
    }
    check::scope(name, "dst", dst, MemSpace::Ub)?;
    check::align(chip, name, "dst", dst)?;
    let repeat = check::range(name, "repeat", repeat, 0, 255, "[0, 255]")? as u64;
    let blk = check::range(
        name,
        "dst_blk_stride",
        dst_blk_stride,
        0,
        65535,
        "[0, 65535]",
    )? as u64;
    let rep = check::range(name, "dst_rep_stride", dst_rep_stride, 0, 255, "[0, 255]")? as u64;
    let size = dst.dtype.size() as u64;
    let lanes = 256 / size;
    let per_block = BLOCK_BYTES / size;
    let bits = match mask::resolve(name, mask_arg, lanes as u32, true, MaskRegister::default())? {
        LaneMask::Normal(b) => b,
        LaneMask::Counter(c) => mask::prefix(c.min(lanes) as u32),
    };
    first.to_bits(name, "firstValue", dst.dtype)?;
    if repeat == 0 || bits == 0 {
        return Ok(());
    }
    let start = match first {
        Scalar::Int(i) => i as f64,
        Scalar::Float(f) => f,
    };
    let policy = IndexValues::of(chip.id);
    // Every (offset, bits) first, so that a bad value or address writes nothing.
    let mut writes = Vec::new();
    let mut hi = dst.addr();
    for r in 0..repeat {
        for e in 0..lanes {
            if bits >> e & 1 == 0 {
                continue;
            }
            let at = dst.addr()
                + r * rep * BLOCK_BYTES
                + (e / per_block) * blk * BLOCK_BYTES
                + (e % per_block) * size;
            let bitwise = matches!(mask_arg, MaskArg::Bits { .. });
            let v = policy.value(
                name,
                dst.dtype,
                start,
                r,
                e / per_block,
                e % per_block,
                bitwise,
            )?;
            let b = if dst.dtype.is_float() {
                Scalar::Float(v).to_bits(name, "firstValue", dst.dtype)?
            } else {
                Scalar::Int(v as i64).to_bits(name, "firstValue", dst.dtype)?
            };
            hi = hi.max(at + size);
            writes.push((at, b));
        }
    }
    check::within(name, "dst", dst, Some((dst.addr(), hi)))?;
    let ub = core.ub_mut();
    for (at, b) in writes {
        ub.write(at, &b.to_le_bytes()[..size as usize])?;
    }
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
    /// `isSetMask = false`: the lanes come from the mask register (normal or counter mode)
    /// when the instruction runs.
    pub from_register: bool,
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
        Self::new_masked(
            chip,
            name,
            mode,
            src0,
            src1,
            mask,
            true,
            src0_blk_stride,
            src1_blk_stride,
        )
    }

    /// [`CmpMaskOp::new`] with Ascend C's `isSetMask`: with `false` the mask argument must be
    /// `MASK_PLACEHOLDER` and the lanes are read from the mask register when the instruction
    /// runs (counter mode: the first `count` lanes of the one repeat).
    #[allow(clippy::too_many_arguments)]
    pub fn new_masked(
        chip: &ChipProfile,
        name: &'static str,
        mode: CmpMode,
        src0: &Operand,
        src1: &Operand,
        mask: MaskArg,
        is_set_mask: bool,
        src0_blk_stride: i64,
        src1_blk_stride: i64,
    ) -> Result<CmpMaskOp> {
        // The row of this comparison (int32 is legal for EQ only, on A2/A3).
        let row = Instr::ALL
            .iter()
            .copied()
            .find(|i| i.shape() == crate::isa::Shape::CmpMask && i.cmp_mode() == Some(mode))
            .unwrap_or(Instr::VcmpEq);
        row.check_type(name, chip.id, "src0", src0.dtype)?;
        check::same_type(name, "src1", src1, "src0", src0.dtype)?;
        let b0 = check::range(name, "src0_stride", src0_blk_stride, 0, 255, "[0, 255]")?;
        let b1 = check::range(name, "src1_stride", src1_blk_stride, 0, 255, "[0, 255]")?;
        for (p, op) in [("src0", src0), ("src1", src1)] {
            check::scope(name, p, op, MemSpace::Ub)?;
            check::align(chip, name, p, op)?;
        }
        let lanes_n = 256 / src0.dtype.size() as u32;
        let lanes = mask::resolve(name, mask, lanes_n, is_set_mask, MaskRegister::default())?;
        let op = CmpMaskOp {
            name,
            mode,
            src0: src0.clone(),
            src1: src1.clone(),
            lanes,
            blk: [b0, b1],
            from_register: !is_set_mask,
        };
        if is_set_mask {
            op.check_bounds(lanes)?;
        }
        Ok(op)
    }

    fn check_bounds(&self, lanes: LaneMask) -> Result<()> {
        let lanes_n = 256 / self.src0.dtype.size() as u32;
        for (k, (p, o)) in [("src0", &self.src0), ("src1", &self.src1)]
            .into_iter()
            .enumerate()
        {
            check::within(
                self.name,
                p,
                o,
                self.walk(k).span(1, |r| lanes.lanes_of(r, lanes_n)),
            )?;
        }
        Ok(())
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
        let lanes = if self.from_register {
            let m = mask::resolve(self.name, MaskArg::Placeholder, n, false, core.mask)?;
            self.check_bounds(m)?;
            m
        } else {
            self.lanes
        };
        let active = lanes.lanes_of(0, n);
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

/// The operand rules of SetCmpMask / GetCmpMask (and TIK's mov_*cmpmask*): a UB tensor,
/// 32-byte aligned, holding the register's 16 bytes.
pub fn cmp_mask_operand(
    chip: &npusim_core::ChipProfile,
    name: &'static str,
    param: &'static str,
    op: &Operand,
) -> Result<()> {
    check::scope(name, param, op, MemSpace::Ub)?;
    check::align(chip, name, param, op)?;
    check::within(name, param, op, Some((op.addr(), op.addr() + 16)))
}

/// `SetCmpMask(src)` / `mov_tensor_to_cmpmask`: loads 16 bytes of UB into CMPMASK.
pub fn set_cmp_mask(core: &mut VectorCore, name: &'static str, src: &Operand) -> Result<()> {
    cmp_mask_operand(core.chip(), name, "src", src)?;
    let mut b = [0u8; 16];
    b.copy_from_slice(core.ub().bytes(src.addr(), 16)?);
    core.cmpmask = u128::from_le_bytes(b);
    Ok(())
}

/// `GetCmpMask(dst)` / `mov_cmpmask_to_tensor`: stores CMPMASK as 16 bytes of UB.
pub fn get_cmp_mask(core: &mut VectorCore, name: &'static str, dst: &Operand) -> Result<()> {
    cmp_mask_operand(core.chip(), name, "dst", dst)?;
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

/// GatherMask's selection: a built-in pattern (1..=7) or a bit tensor.
#[derive(Clone, Copy, Debug)]
pub enum GatherPattern<'a> {
    /// 1 even elements, 2 odd, 3..=6 every fourth at offset 0..=3, 7 all.
    Fixed(u8),
    /// One bit per element, consumed continuously within a repeat; repeats `src1RepeatStride`
    /// blocks apart.
    Tensor(&'a Operand),
}

/// `GatherMask(dst, src0, src1Pattern, reduceMode, mask, {src0BlockStride, repeatTimes,
/// src0RepeatStride, src1RepeatStride}, rsvdCnt)` (GatherMask.md): the selected elements of
/// each repeat packed contiguously into dst; returns `rsvdCnt`. Normal mode (`reduceMode =
/// false`) takes every lane of `repeatTimes` repeats (mask ignored); counter mode takes `mask`
/// lanes per repeat with `repeatTimes` applying (A2/A3, 310B, 950) or `mask` lanes in total
/// with `repeatTimes` ignored (310P). The core is left in normal mask mode.
#[allow(clippy::too_many_arguments)]
pub fn gather_mask(
    core: &mut VectorCore,
    name: &'static str,
    dst: &Operand,
    src0: &Operand,
    pattern: GatherPattern<'_>,
    reduce_mode: bool,
    mask: u64,
    params: [i64; 4],
) -> Result<u64> {
    let chip = core.chip();
    Instr::GatherMask.check_type(name, chip.id, "dst", dst.dtype)?;
    check::same_type(name, "src0", src0, "dst", dst.dtype)?;
    for (p, op) in [("dst", dst), ("src0", src0)] {
        check::scope(name, p, op, MemSpace::Ub)?;
        check::align(chip, name, p, op)?;
    }
    let blk = check::range(name, "src0BlockStride", params[0], 0, 255, "[0, 255]")? as u64;
    let repeat = check::range(name, "repeatTimes", params[1], 0, 255, "[0, 255]")? as u64;
    let s0rep = check::range(name, "src0RepeatStride", params[2], 0, 255, "[0, 255]")? as u64;
    let s1rep = check::range(name, "src1RepeatStride", params[3], 0, 255, "[0, 255]")? as u64;
    let size = dst.dtype.size() as u64;
    let lanes = 256 / size;
    if let GatherPattern::Fixed(p) = pattern
        && !(1..=7).contains(&p)
    {
        return Err(crate::error::AscendError::OutOfRange {
            instr: name,
            param: "src1Pattern",
            value: p as i64,
            range: "[1, 7]",
        });
    }
    if let GatherPattern::Tensor(t) = pattern {
        check::scope(name, "src1Pattern", t, MemSpace::Ub)?;
        check::align(chip, name, "src1Pattern", t)?;
    }
    // (repeats, lanes of repeat r)
    let per_repeat: Vec<u64> = if !reduce_mode {
        vec![lanes; repeat as usize]
    } else if chip.id == npusim_core::ChipId::Ascend310P {
        let n = mask.div_ceil(lanes);
        (0..n).map(|r| (mask - r * lanes).min(lanes)).collect()
    } else {
        if mask == 0 || mask > lanes {
            return Err(crate::error::AscendError::BadMask {
                instr: name,
                value: mask.to_string(),
                rule: "in counter mode the mask is the element count of each repeat, in [1, 256 / sizeof(T)]",
            });
        }
        vec![mask; repeat as usize]
    };
    let w = Walk {
        base: src0.addr(),
        blk_stride: blk * BLOCK_BYTES,
        rep_stride: s0rep * BLOCK_BYTES,
        elem_size: size,
    };
    let mut out = Vec::new();
    for (r, &m) in per_repeat.iter().enumerate() {
        let r = r as u32;
        let bits: u128 = match pattern {
            GatherPattern::Fixed(p) => {
                let mut b = 0u128;
                for e in 0..lanes as u32 {
                    let keep = match p {
                        1 => e % 2 == 0,
                        2 => e % 2 == 1,
                        3..=6 => e % 4 == (p - 3) as u32,
                        _ => true,
                    };
                    b |= (keep as u128) << e;
                }
                b
            }
            GatherPattern::Tensor(t) => {
                let at = t.addr() + r as u64 * s1rep * BLOCK_BYTES;
                check::within(name, "src1Pattern", t, Some((at, at + lanes / 8)))?;
                let mut b = [0u8; 16];
                b[..(lanes / 8) as usize].copy_from_slice(core.ub().bytes(at, lanes / 8)?);
                u128::from_le_bytes(b)
            }
        };
        for e in 0..m as u32 {
            if bits >> e & 1 == 1 {
                let a = w.lane_addr(r, e);
                check::within(name, "src0", src0, Some((a, a + size)))?;
                out.extend_from_slice(core.ub().bytes(a, size)?);
            }
        }
    }
    check::within(
        name,
        "dst",
        dst,
        Some((dst.addr(), dst.addr() + out.len() as u64)),
    )?;
    core.ub_mut().write(dst.addr(), &out)?;
    core.mask.mode = crate::mask::MaskMode::Normal;
    Ok(out.len() as u64 / size)
}

/// `Gatherb(dst, src, offset, repeatTime, GatherRepeatParams{dstBlkStride, dstRepStride})`
/// (Gatherb(ISASI).md): 8 blocks of 32 bytes per repeat from `src + offset[k]`.
#[allow(clippy::too_many_arguments)]
pub fn gatherb(
    core: &mut VectorCore,
    name: &'static str,
    dst: &Operand,
    src: &Operand,
    offset: &Operand,
    repeat: i64,
    dst_blk_stride: i64,
    dst_rep_stride: i64,
) -> Result<()> {
    let chip = core.chip();
    Instr::Gatherb.check_type(name, chip.id, "dst", dst.dtype)?;
    check::same_type(name, "src", src, "dst", dst.dtype)?;
    if offset.dtype != ElemType::U32 {
        return Err(crate::error::AscendError::IllegalType {
            instr: name,
            param: "offset",
            dtype: offset.dtype,
            chip: chip.id,
            legal: "uint32".into(),
        });
    }
    let repeat = check::range(name, "repeatTime", repeat, 0, 255, "[0, 255]")? as u64;
    let blk = check::range(name, "dstBlkStride", dst_blk_stride, 0, 255, "[0, 255]")?.max(1) as u64;
    let rep = check::range(name, "dstRepStride", dst_rep_stride, 0, 65535, "[0, 65535]")? as u64;
    for (p, op) in [("dst", dst), ("src", src), ("offset", offset)] {
        check::scope(name, p, op, MemSpace::Ub)?;
        check::align(chip, name, p, op)?;
    }
    if repeat == 0 {
        return Ok(());
    }
    let n = repeat * 8;
    check::within(
        name,
        "offset",
        offset,
        Some((offset.addr(), offset.addr() + n * 4)),
    )?;
    let last = (repeat - 1) * rep * BLOCK_BYTES + 7 * blk * BLOCK_BYTES + BLOCK_BYTES;
    check::within(name, "dst", dst, Some((dst.addr(), dst.addr() + last)))?;
    let src_end = src.tensor_base + src.tensor_bytes;
    let offs: Vec<u64> = core
        .ub()
        .bytes(offset.addr(), n * 4)?
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as u64)
        .collect();
    for (k, &o) in offs.iter().enumerate() {
        let at = src.addr() + o;
        if o % BLOCK_BYTES != 0 || at + BLOCK_BYTES > src_end {
            return Err(crate::error::AscendError::Rule {
                instr: name,
                param: "offset",
                value: format!("offset[{k}] = {o}"),
                rule: "each offset must be a multiple of 32 bytes and its block must lie inside src",
            });
        }
    }
    // "不支持源操作数与目的操作数使用同一块内存地址": the span dst is written in must not
    // overlap src (from its start to the end of its tensor, where the offsets may reach).
    let dst_block = |k: u64| dst.addr() + (k / 8) * rep * BLOCK_BYTES + (k % 8) * blk * BLOCK_BYTES;
    if dst.addr() < src_end && src.addr() < dst.addr() + last {
        return Err(crate::error::AscendError::IllegalOverlap {
            instr: name,
            dst: "dst",
            src: "src",
            rule: "Gatherb does not support src and dst in the same memory",
        });
    }
    let blocks: Vec<u8> = offs
        .iter()
        .map(|&o| {
            core.ub()
                .bytes(src.addr() + o, BLOCK_BYTES)
                .map(|b| b.to_vec())
        })
        .collect::<std::result::Result<Vec<_>, _>>()?
        .concat();
    for k in 0..n {
        let b = (k * BLOCK_BYTES) as usize;
        core.ub_mut()
            .write(dst_block(k), &blocks[b..b + BLOCK_BYTES as usize])?;
    }
    Ok(())
}
