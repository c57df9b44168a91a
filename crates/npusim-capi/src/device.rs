//! The safe Rust device behind the C ABI: one Ascend vector core (Unified Buffer, mask
//! registers) and one global memory shared by every block of a launch.
//!
//! Blocks run one after another on the same [`VectorCore`]: [`Device::block_begin`] zeroes the
//! UB, frees every UB region and resets the mask state, so each block sees a fresh AI Core as
//! on the chip, while GM persists across blocks (the order is block 0, 1, 2, ...; kernels whose
//! blocks write disjoint GM, as Ascend C kernels do, give the same result in any order).

use npusim_ascend::core::{Operand, VectorCore};
use npusim_ascend::isa::{CastRound, Instr, Shape};
use npusim_ascend::mask::{MaskArg, MaskRegister};
use npusim_ascend::ops::{DataMove, PairReduceSum, Scalar, ScalarBits, Vcmpv};
use npusim_ascend::reduce::RepeatOrder;
use npusim_ascend::select::{SelectOp, Src1};
use npusim_ascend::vector::{Face, VecArgs, VecOp};
use npusim_ascend::{AscendError, mask};
use npusim_core::{ChipId, ChipProfile, CmpMode, ElemType, MemSpace, MemoryError};
use std::sync::Arc;

/// Alignment of every region handed out by [`Device::gm_alloc`] and [`Device::ub_alloc`]
/// (the 32-byte block of the Ascend C general restrictions).
pub const REGION_ALIGN: u64 = 32;

/// An error of the C ABI layer. Every variant names the API call (`instr`) and, where there is
/// one, the parameter, the rule and the offending value.
#[derive(Debug, thiserror::Error)]
pub enum CapiError {
    /// An error of the vector unit model (restriction, type, alignment, bounds).
    #[error(transparent)]
    Ascend(#[from] AscendError),
    /// A memory access outside the memory.
    #[error(transparent)]
    Memory(#[from] MemoryError),
    /// A rule of this layer or of the C++ face (queue discipline, arguments).
    #[error("{instr}: {param} = {value}: {rule}")]
    Rule {
        instr: String,
        param: String,
        rule: String,
        value: String,
    },
    /// UB or GM capacity exhausted by an allocation.
    #[error(
        "{instr}: {space} overflow: {bytes} bytes requested with {used} of {capacity} bytes in use"
    )]
    Capacity {
        instr: &'static str,
        space: MemSpace,
        bytes: u64,
        used: u64,
        capacity: u64,
    },
    /// A panic inside the library, caught at the ABI boundary.
    #[error("internal error (caught panic): {0}")]
    Panic(String),
}

impl CapiError {
    /// A [`CapiError::Rule`].
    pub fn rule(instr: &str, param: &str, rule: &str, value: impl ToString) -> CapiError {
        CapiError::Rule {
            instr: instr.into(),
            param: param.into(),
            rule: rule.into(),
            value: value.to_string(),
        }
    }

    /// The C status code (`NPUSIM_E_*` in `npusim.h`).
    pub fn code(&self) -> i32 {
        match self {
            CapiError::Ascend(AscendError::IllegalType { .. })
            | CapiError::Ascend(AscendError::TypeMismatch { .. }) => crate::abi::NPUSIM_E_TYPE,
            CapiError::Ascend(AscendError::Misaligned { .. }) => crate::abi::NPUSIM_E_ALIGN,
            CapiError::Ascend(AscendError::OutOfMemory { .. })
            | CapiError::Ascend(AscendError::TensorOverflow { .. })
            | CapiError::Ascend(AscendError::Memory(_))
            | CapiError::Memory(_)
            | CapiError::Capacity { .. } => crate::abi::NPUSIM_E_MEMORY,
            CapiError::Ascend(_) => crate::abi::NPUSIM_E_RULE,
            CapiError::Rule { .. } => crate::abi::NPUSIM_E_RULE,
            CapiError::Panic(_) => crate::abi::NPUSIM_E_PANIC,
        }
    }
}

/// Result of this crate.
pub type Result<T> = std::result::Result<T, CapiError>;

/// CastDequant's mask/repeat form as the C ABI passes it: mask, isSetMask, repeatTime, and the
/// (dst, src) block and repeat strides.
pub type DeqRepeat<'a> = (&'a CMask, bool, i32, [i64; 2], [i64; 2]);

/// A tensor operand as the C ABI passes it (`npusim_tensor`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tensor {
    /// `NPUSIM_GM` (0) or `NPUSIM_UB` (1).
    pub space: u32,
    /// `NPUSIM_DT_*`: the index in [`ElemType::ARITH`].
    pub dtype: u32,
    /// Byte address of the tensor's first element.
    pub base: u64,
    /// The tensor's size in bytes.
    pub bytes: u64,
    /// The view's start, in elements from `base`.
    pub offset: u64,
}

impl Tensor {
    /// The element type.
    pub fn elem_type(&self, instr: &str, param: &str) -> Result<ElemType> {
        ElemType::ARITH
            .get(self.dtype as usize)
            .copied()
            .ok_or_else(|| CapiError::rule(instr, param, "unknown NPUSIM_DT_* code", self.dtype))
    }

    /// The memory space.
    pub fn mem_space(&self, instr: &str, param: &str) -> Result<MemSpace> {
        match self.space {
            0 => Ok(MemSpace::Gm),
            1 => Ok(MemSpace::Ub),
            s => Err(CapiError::rule(
                instr,
                param,
                "space must be NPUSIM_GM (0) or NPUSIM_UB (1)",
                s,
            )),
        }
    }

    /// The npusim-ascend operand.
    pub fn operand(&self, instr: &str, param: &str) -> Result<Operand> {
        let space = self.mem_space(instr, param)?;
        let dtype = self.elem_type(instr, param)?;
        let name = format!(
            "{}@{:#x}",
            if space == MemSpace::Gm {
                "GlobalTensor"
            } else {
                "LocalTensor"
            },
            self.base
        );
        Ok(Operand {
            tensor: Arc::from(name.as_str()),
            space,
            dtype,
            tensor_base: self.base,
            tensor_bytes: self.bytes,
            offset: self.offset,
        })
    }
}

/// A scalar argument (`npusim_scalar`): `kind` 0 an integer in `i`, 1 a float in `f`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CScalar {
    pub kind: u32,
    pub i: i64,
    pub f: f64,
}

impl CScalar {
    fn scalar(&self) -> Scalar {
        if self.kind == 0 {
            Scalar::Int(self.i)
        } else {
            Scalar::Float(self.f)
        }
    }
}

/// A mask argument (`npusim_mask`): `kind` 0 bit-wise (`lo`, `hi`), 1 continuous (`count`),
/// 2 `MASK_PLACEHOLDER`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CMask {
    pub kind: u32,
    pub lo: u64,
    pub hi: u64,
    pub count: u64,
}

impl CMask {
    fn arg(&self, instr: &str) -> Result<MaskArg> {
        match self.kind {
            0 => Ok(MaskArg::Bits {
                lo: self.lo,
                hi: self.hi,
            }),
            1 => Ok(MaskArg::Count(self.count)),
            2 => Ok(MaskArg::Placeholder),
            k => Err(CapiError::rule(
                instr,
                "mask.kind",
                "must be 0 (bits), 1 (count) or 2 (placeholder)",
                k,
            )),
        }
    }
}

/// Ascend C's `CMPMODE` numbering: LT, GT, EQ, LE, GE, NE.
pub fn cmp_mode(instr: &str, mode: u32) -> Result<CmpMode> {
    const MODES: [CmpMode; 6] = [
        CmpMode::Lt,
        CmpMode::Gt,
        CmpMode::Eq,
        CmpMode::Le,
        CmpMode::Ge,
        CmpMode::Ne,
    ];
    MODES.get(mode as usize).copied().ok_or_else(|| {
        CapiError::rule(
            instr,
            "cmpMode",
            "must be LT, GT, EQ, LE, GE or NE (0..=5)",
            mode,
        )
    })
}

/// One simulated device: a vector core and its allocators.
#[derive(Debug)]
pub struct Device {
    core: VectorCore,
    gm_used: u64,
    ub_used: u64,
    block_idx: u32,
    block_num: u32,
}

impl Device {
    /// A device of the chip named `chip` (a profile name or alias: `ascend910b`, `910b`,
    /// `a2`, ...) with `gm_bytes` of global memory.
    pub fn new(chip: &str, gm_bytes: u64) -> Result<Device> {
        let profile = ChipProfile::by_name(chip).ok_or_else(|| {
            let names: Vec<&str> = [
                ChipId::Ascend310,
                ChipId::Ascend910,
                ChipId::Ascend310P,
                ChipId::Ascend910B,
                ChipId::Ascend310B,
                ChipId::Ascend950,
            ]
            .iter()
            .map(|c| ChipProfile::get(*c).name)
            .collect();
            CapiError::rule(
                "npusim_device_new",
                "chip",
                &format!("must name a chip profile ({})", names.join(", ")),
                chip,
            )
        })?;
        if gm_bytes > (1 << 34) {
            return Err(CapiError::rule(
                "npusim_device_new",
                "gm_bytes",
                "must be at most 16 GiB",
                gm_bytes,
            ));
        }
        Ok(Device {
            core: VectorCore::new(profile.id, gm_bytes as usize),
            gm_used: 0,
            ub_used: 0,
            block_idx: 0,
            block_num: 1,
        })
    }

    /// The chip's profile.
    pub fn chip(&self) -> &'static ChipProfile {
        self.core.chip()
    }

    /// The core, for inspection.
    pub fn core(&self) -> &VectorCore {
        &self.core
    }

    /// GM size in bytes.
    pub fn gm_size(&self) -> u64 {
        self.core
            .memory(MemSpace::Gm)
            .map_or(0, |m| m.capacity() as u64)
    }

    /// UB capacity in bytes.
    pub fn ub_size(&self) -> u64 {
        self.core.ub().capacity() as u64
    }

    /// `(GetBlockIdx(), GetBlockNum())`.
    pub fn block(&self) -> (u32, u32) {
        (self.block_idx, self.block_num)
    }

    fn alloc(&mut self, instr: &'static str, space: MemSpace, bytes: u64) -> Result<u64> {
        let capacity = match space {
            MemSpace::Ub => self.ub_size(),
            _ => self.gm_size(),
        };
        let used = if space == MemSpace::Ub {
            &mut self.ub_used
        } else {
            &mut self.gm_used
        };
        let base = used.div_ceil(REGION_ALIGN) * REGION_ALIGN;
        if bytes > capacity || base > capacity - bytes {
            return Err(CapiError::Capacity {
                instr,
                space,
                bytes,
                used: base,
                capacity,
            });
        }
        *used = base + bytes;
        Ok(base)
    }

    /// A GM region of `bytes`, 32-byte aligned.
    pub fn gm_alloc(&mut self, bytes: u64) -> Result<u64> {
        self.alloc("GmAlloc", MemSpace::Gm, bytes)
    }

    /// A UB region of `bytes`, 32-byte aligned, within the chip's UB capacity
    /// (`TPipe::InitBuffer`).
    pub fn ub_alloc(&mut self, bytes: u64) -> Result<u64> {
        self.alloc("TPipe::InitBuffer", MemSpace::Ub, bytes)
    }

    /// Starts block `idx` of `num`: a fresh UB (zeroed, nothing allocated) and mask state.
    pub fn block_begin(&mut self, idx: u32, num: u32) -> Result<()> {
        if num == 0 || idx >= num {
            return Err(CapiError::rule(
                "npusim_block_begin",
                "idx",
                "must be below the block count",
                format!("{idx} of {num}"),
            ));
        }
        self.block_idx = idx;
        self.block_num = num;
        self.ub_used = 0;
        self.core.ub_mut().as_mut_slice().fill(0);
        self.core.mask = MaskRegister::default();
        self.core.cmpmask = 0;
        self.core.atomic = None;
        self.core.deq_scale = 1.0;
        self.core.deq_form = Default::default();
        // InitSocState resets the loop-mode parameters too (InitSocState.md).
        self.core.loop_mode = [None; 2];
        Ok(())
    }

    /// Writes raw bytes at `addr` of a space.
    pub fn write(&mut self, space: MemSpace, addr: u64, data: &[u8]) -> Result<()> {
        self.core.memory_mut(space)?.write(addr, data)?;
        Ok(())
    }

    /// Reads `len` raw bytes at `addr` of a space.
    pub fn read(&self, space: MemSpace, addr: u64, len: u64) -> Result<Vec<u8>> {
        Ok(self.core.memory(space)?.bytes(addr, len)?.to_vec())
    }

    /// The byte address of element `index` of a tensor view, checked against the tensor.
    fn element_addr(
        &self,
        instr: &'static str,
        t: &Tensor,
        index: u64,
    ) -> Result<(MemSpace, u64, usize)> {
        let op = t.operand(instr, "tensor")?;
        let size = op.dtype.size() as u64;
        let elems = op.tensor_bytes / size;
        let at = op.offset.checked_add(index).filter(|i| *i < elems);
        let Some(at) = at else {
            return Err(CapiError::rule(
                instr,
                "index",
                &format!("must lie inside the tensor ({elems} elements)"),
                op.offset.saturating_add(index),
            ));
        };
        Ok((op.space, op.tensor_base + at * size, size as usize))
    }

    /// `GetValue(index)`: the element's bytes (little-endian, zero-extended to 8 bytes).
    pub fn get_value(&self, t: &Tensor, index: u64) -> Result<u64> {
        let (space, addr, size) = self.element_addr("GetValue", t, index)?;
        let b = self.core.memory(space)?.bytes(addr, size as u64)?;
        let mut v = [0u8; 8];
        v[..size].copy_from_slice(b);
        Ok(u64::from_le_bytes(v))
    }

    /// `SetValue(index, value)`: the element's bytes (the low `sizeof(T)` bytes of `bits`).
    pub fn set_value(&mut self, t: &Tensor, index: u64, bits: u64) -> Result<()> {
        let (space, addr, size) = self.element_addr("SetValue", t, index)?;
        self.core
            .memory_mut(space)?
            .write(addr, &bits.to_le_bytes()[..size])?;
        Ok(())
    }

    /// The element-wise instruction of the table row whose Ascend C name is `name`.
    pub fn elementwise(name: &str) -> Result<Instr> {
        Instr::ALL
            .iter()
            .copied()
            .find(|i| {
                i.ascendc_name() == name
                    && matches!(
                        i.shape(),
                        Shape::Binary
                            | Shape::BinaryAcc
                            | Shape::Ternary
                            | Shape::Unary
                            | Shape::Scalar
                            | Shape::ScalarDst
                            | Shape::Convert
                            | Shape::Dup
                    )
            })
            .ok_or_else(|| {
                CapiError::rule(
                    "npusim_vec",
                    "instr",
                    "must be the Ascend C name of an element-wise row of the instruction table",
                    name,
                )
            })
    }

    fn round(instr: &str, round: u32) -> Result<CastRound> {
        CastRound::ALL.get(round as usize).copied().ok_or_else(|| {
            CapiError::rule(instr, "roundMode", "must be a RoundMode (0..=6)", round)
        })
    }

    /// The count form of an element-wise instruction (`Add(dst, src0, src1, count)`).
    pub fn vec_count(
        &mut self,
        name: &str,
        dst: &Tensor,
        srcs: &[Tensor],
        scalar: Option<CScalar>,
        round: u32,
        count: i64,
    ) -> Result<()> {
        let instr = Self::elementwise(name)?;
        let n = instr.ascendc_name();
        let d = dst.operand(n, "dst")?;
        let s: Vec<Operand> = srcs
            .iter()
            .map(|t| t.operand(n, "src"))
            .collect::<Result<_>>()?;
        let refs: Vec<&Operand> = s.iter().collect();
        let round = Self::round(n, round)?;
        VecOp::count(
            self.core.chip(),
            instr,
            n,
            &d,
            &refs,
            scalar.map(|s| s.scalar()),
            round,
            count,
        )?
        .execute(&mut self.core)?;
        Ok(())
    }

    /// The mask/repeat form of an element-wise instruction.
    #[allow(clippy::too_many_arguments)]
    pub fn vec_repeat(
        &mut self,
        name: &str,
        dst: &Tensor,
        srcs: &[Tensor],
        scalar: Option<CScalar>,
        round: u32,
        mask: &CMask,
        is_set_mask: bool,
        repeat: i32,
        blk: [i64; 3],
        rep: [i64; 3],
    ) -> Result<()> {
        let instr = Self::elementwise(name)?;
        let n = instr.ascendc_name();
        let d = dst.operand(n, "dst")?;
        let s: Vec<Operand> = srcs
            .iter()
            .map(|t| t.operand(n, "src"))
            .collect::<Result<_>>()?;
        let refs: Vec<&Operand> = s.iter().collect();
        let blk_max = match instr.shape() {
            Shape::Binary | Shape::BinaryAcc | Shape::Ternary | Shape::Dup => 255,
            _ => 65535,
        };
        VecOp::new(
            self.core.chip(),
            &VecArgs {
                instr,
                name: n,
                face: Face::AscendC,
                dst: &d,
                srcs: &refs,
                scalar: scalar.map(|s| s.scalar()),
                round: Self::round(n, round)?,
                mask: mask.arg(n)?,
                is_set_mask,
                repeat: repeat as i64,
                blk,
                rep,
                blk_max,
            },
        )?
        .execute(&mut self.core)?;
        Ok(())
    }

    /// `DataCopy(dst, src, count)`: GM↔UB or UB→UB; `count * sizeof(T)` must be a whole number
    /// of 32-byte blocks (the DataCopy page: the length is counted in 32-byte blocks; this layer
    /// reports a remainder instead of dropping it silently).
    pub fn data_copy(&mut self, dst: &Tensor, src: &Tensor, count: u32) -> Result<()> {
        let d = dst.operand("DataCopy", "dst")?;
        let s = src.operand("DataCopy", "src")?;
        let bytes = count as u64 * s.dtype.size() as u64;
        if !bytes.is_multiple_of(32) {
            return Err(CapiError::rule(
                "DataCopy",
                "count",
                &format!(
                    "count * sizeof({}) must be a multiple of 32 bytes",
                    s.dtype.cpp_name()
                ),
                count,
            ));
        }
        if bytes == 0 {
            return Ok(());
        }
        if npusim_ascend::pad::data_copy_looped(&mut self.core, &d, &s, 1, bytes / 32, 0, 0)? {
            return Ok(());
        }
        DataMove::new(
            self.core.chip(),
            "DataCopy",
            &d,
            &s,
            0,
            1,
            (bytes / 32) as i64,
            0,
            0,
        )?
        .execute(&mut self.core)?;
        Ok(())
    }

    /// `DataCopy(dst, src, DataCopyParams{blockCount, blockLen, srcStride, dstStride})`.
    pub fn data_copy_params(&mut self, dst: &Tensor, src: &Tensor, params: [u16; 4]) -> Result<()> {
        let d = dst.operand("DataCopy", "dst")?;
        let s = src.operand("DataCopy", "src")?;
        let [count, len, src_gap, dst_gap] = params;
        if count > 0
            && len > 0
            && npusim_ascend::pad::data_copy_looped(
                &mut self.core,
                &d,
                &s,
                count,
                len as u64,
                src_gap,
                dst_gap,
            )?
        {
            return Ok(());
        }
        let [bc, bl, ss, ds] = params.map(|p| p as i64);
        DataMove::new(self.core.chip(), "DataCopy", &d, &s, 0, bc, bl, ss, ds)?
            .execute(&mut self.core)?;
        Ok(())
    }

    /// `WholeReduceSum/Max/Min`, `RepeatReduceSum`, `BlockReduceSum/Max/Min` by Ascend C name
    /// ([`npusim_ascend::reduce`]; strides as the pages give them).
    #[allow(clippy::too_many_arguments)]
    pub fn reduce(
        &mut self,
        name: &str,
        dst: &Tensor,
        src: &Tensor,
        mask: &CMask,
        is_set_mask: bool,
        repeat: i32,
        strides: [i32; 3],
    ) -> Result<()> {
        let instr = Instr::ALL
            .iter()
            .copied()
            .find(|i| {
                i.ascendc_name() == name
                    && matches!(
                        i.shape(),
                        Shape::WholeReduce | Shape::RepeatReduce | Shape::BlockReduce
                    )
            })
            .ok_or_else(|| {
                CapiError::rule(
                    "reduce",
                    "instr",
                    "must be WholeReduceSum/Max/Min, RepeatReduceSum or BlockReduceSum/Max/Min",
                    name,
                )
            })?;
        let n = instr.ascendc_name();
        let d = dst.operand(n, "dst")?;
        let s = src.operand(n, "src")?;
        let [dst_rep, src_blk, src_rep] = strides.map(|v| v as i64);
        npusim_ascend::reduce::ReduceOp::new(
            self.core.chip(),
            instr,
            n,
            &d,
            &s,
            mask.arg(n)?,
            is_set_mask,
            repeat as i64,
            dst_rep,
            src_blk,
            src_rep,
        )?
        .execute(&mut self.core)?;
        Ok(())
    }

    /// The data-rearrangement and CMPMASK calls by Ascend C name (`npusim_rearrange`); `t` the
    /// tensor operands and `v` the integer parameters in the order npusim.h gives; returns
    /// GatherMask's `rsvdCnt` (0 for the others).
    pub fn rearrange(
        &mut self,
        name: &str,
        t: &[Tensor],
        v: &[i64],
        scalar: Option<CScalar>,
    ) -> Result<u64> {
        use npusim_ascend::{misc, sort};
        let rule = |p: &str, need: &str| {
            CapiError::rule(
                "rearrange",
                p,
                "wrong number of operands for the instruction",
                format!("{name} needs {need}"),
            )
        };
        let instr: &'static str = match name {
            "Brcb" => "Brcb",
            "CreateVecIndex" => "CreateVecIndex",
            "Gather" => "Gather",
            "GatherMask" => "GatherMask",
            "Transpose" => "Transpose",
            "Compare" => "Compare",
            "SetCmpMask" => "SetCmpMask",
            "GetCmpMask" => "GetCmpMask",
            "Sort32" => "Sort32",
            "RpSort16" => "RpSort16",
            "ProposalConcat" => "ProposalConcat",
            "ProposalExtract" => "ProposalExtract",
            "MrgSort" => "MrgSort",
            "MrgSort4" => "MrgSort4",
            "GetMrgSortResult" => "GetMrgSortResult",
            "TransDataTo5HD" => "TransDataTo5HD",
            "GetAccVal" => "GetAccVal",
            "GetReduceRepeatSumSpr" => "GetReduceRepeatSumSpr",
            "GetReduceMaxMinCount" => "GetReduceMaxMinCount",
            "GetReduceRepeatMaxMinSpr" => "GetReduceRepeatMaxMinSpr",
            "DataCopySlice" => "DataCopySlice",
            "Gatherb" => "Gatherb",
            "BilinearInterpolation" => "BilinearInterpolation",
            "CompareRepeat" => "CompareRepeat",
            "CompareScalarRepeat" => "CompareScalarRepeat",
            other => {
                return Err(CapiError::rule(
                    "rearrange",
                    "instr",
                    "must be Brcb, CreateVecIndex, Gather, GatherMask, Transpose, Compare, SetCmpMask, GetCmpMask, Sort32, RpSort16, ProposalConcat, ProposalExtract, MrgSort, MrgSort4, GetMrgSortResult, TransDataTo5HD, GetAccVal, GetReduceRepeatSumSpr, GetReduceMaxMinCount, GetReduceRepeatMaxMinSpr, DataCopySlice, Gatherb, BilinearInterpolation, CompareRepeat or CompareScalarRepeat",
                    other,
                ));
            }
        };
        let op = |k: usize, p: &str| -> Result<Operand> {
            t.get(k)
                .ok_or_else(|| rule(p, "more tensors"))?
                .operand(instr, p)
        };
        let int = |k: usize, p: &str| -> Result<i64> {
            v.get(k).copied().ok_or_else(|| rule(p, "more integers"))
        };
        match instr {
            "Brcb" => {
                let (d, s) = (op(0, "dst")?, op(1, "src")?);
                misc::BrcbOp::new(
                    self.core.chip(),
                    instr,
                    &d,
                    &s,
                    int(0, "repeatTime")?,
                    int(1, "dstBlkStride")?,
                    int(2, "dstRepStride")?,
                )?
                .execute(&mut self.core)?;
            }
            "CreateVecIndex" => {
                let d = op(0, "dst")?;
                let first = scalar.ok_or_else(|| rule("firstValue", "a scalar"))?;
                misc::create_vec_index(
                    &mut self.core,
                    instr,
                    &d,
                    first.scalar(),
                    int(0, "count")?,
                )?;
            }
            "Gather" => {
                let (d, s, o) = (op(0, "dst")?, op(1, "src")?, op(2, "srcOffset")?);
                let base = u32::try_from(int(0, "srcBaseAddr")?).map_err(|_| {
                    CapiError::rule(instr, "srcBaseAddr", "must fit uint32_t", v[0])
                })?;
                misc::gather(&mut self.core, instr, &d, &s, &o, base, int(1, "count")?)?;
            }
            "GatherMask" => {
                let (d, s) = (op(0, "dst")?, op(1, "src0")?);
                let pattern_tensor = if t.len() > 2 {
                    Some(op(2, "src1Pattern")?)
                } else {
                    None
                };
                let pattern = match &pattern_tensor {
                    Some(p) => misc::GatherPattern::Tensor(p),
                    None => misc::GatherPattern::Fixed(
                        u8::try_from(int(0, "src1Pattern")?).unwrap_or(0),
                    ),
                };
                let mask = u64::try_from(int(2, "mask")?)
                    .map_err(|_| CapiError::rule(instr, "mask", "must not be negative", v[2]))?;
                return Ok(misc::gather_mask(
                    &mut self.core,
                    instr,
                    &d,
                    &s,
                    pattern,
                    int(1, "reduceMode")? != 0,
                    mask,
                    [
                        int(3, "src0BlockStride")?,
                        int(4, "repeatTimes")?,
                        int(5, "src0RepeatStride")?,
                        int(6, "src1RepeatStride")?,
                    ],
                )?);
            }
            "Transpose" => {
                let (d, s) = (op(0, "dst")?, op(1, "src")?);
                misc::transpose(&mut self.core, instr, &d, &s, 1, 0, 0)?;
            }
            "Compare" => {
                let (a, b) = (op(0, "src0")?, op(1, "src1")?);
                let mode = cmp_mode(instr, int(0, "cmpMode")? as u32)?;
                let mask = CMask {
                    kind: int(1, "mask.kind")? as u32,
                    lo: int(2, "mask.lo")? as u64,
                    hi: int(3, "mask.hi")? as u64,
                    count: int(2, "mask.count")? as u64,
                };
                // isSetMask (a 7th integer; 1 when absent).
                let is_set = v.get(6).is_none_or(|x| *x != 0);
                let arg = if is_set {
                    mask.arg(instr)?
                } else {
                    MaskArg::Placeholder
                };
                misc::CmpMaskOp::new_masked(
                    self.core.chip(),
                    instr,
                    mode,
                    &a,
                    &b,
                    arg,
                    is_set,
                    int(4, "src0BlkStride")?,
                    int(5, "src1BlkStride")?,
                )?
                .execute(&mut self.core)?;
            }
            "SetCmpMask" => misc::set_cmp_mask(&mut self.core, instr, &op(0, "src")?)?,
            "GetCmpMask" => misc::get_cmp_mask(&mut self.core, instr, &op(0, "dst")?)?,
            "Sort32" => {
                let (d, a, b) = (op(0, "dst")?, op(1, "src0")?, op(2, "src1")?);
                sort::sort32(&mut self.core, instr, &d, &a, &b, int(0, "repeatTime")?)?;
            }
            "RpSort16" => {
                let (d, a) = (op(0, "dst")?, op(1, "src")?);
                sort::rp_sort16(&mut self.core, instr, &d, &a, int(0, "repeatTime")?)?;
            }
            "ProposalConcat" | "ProposalExtract" => {
                let (d, a) = (op(0, "dst")?, op(1, "src")?);
                let row = if instr == "ProposalConcat" {
                    Instr::ProposalConcat
                } else {
                    Instr::ProposalExtract
                };
                sort::proposal_move(
                    &mut self.core,
                    row,
                    instr,
                    &d,
                    &a,
                    int(0, "repeatTime")?,
                    int(1, "modeNumber")?,
                )?;
            }
            "MrgSort" | "MrgSort4" => {
                let d = op(0, "dst")?;
                let l = [
                    op(1, "src1")?,
                    op(2, "src2")?,
                    op(3, "src3")?,
                    op(4, "src4")?,
                ];
                let u16_of = |k: usize, p: &'static str| -> Result<u16> {
                    let x = int(k, p)?;
                    u16::try_from(x).map_err(|_| CapiError::rule(instr, p, "must fit uint16_t", x))
                };
                let p = sort::MrgSort4Info {
                    element_lengths: [
                        u16_of(0, "elementLengths[0]")?,
                        u16_of(1, "elementLengths[1]")?,
                        u16_of(2, "elementLengths[2]")?,
                        u16_of(3, "elementLengths[3]")?,
                    ],
                    if_exhausted_suspension: int(4, "ifExhaustedSuspension")? != 0,
                    valid_bit: u16_of(5, "validBit")?,
                    repeat_times: u16_of(6, "repeatTimes")?,
                };
                let src = [&l[0], &l[1], &l[2], &l[3]];
                if instr == "MrgSort" {
                    sort::mrg_sort(&mut self.core, instr, &d, src, &p)?;
                } else {
                    sort::mrg_sort4(&mut self.core, instr, &d, src, &p)?;
                }
                return Ok(self.mrg_sort_result());
            }
            "GetMrgSortResult" => return Ok(self.mrg_sort_result()),
            "Gatherb" => {
                let (d, a, o) = (op(0, "dst")?, op(1, "src")?, op(2, "offset")?);
                misc::gatherb(
                    &mut self.core,
                    instr,
                    &d,
                    &a,
                    &o,
                    int(0, "repeatTime")?,
                    int(1, "dstBlkStride")?,
                    int(2, "dstRepStride")?,
                )?;
            }
            // The high-dimension Compare / CompareScalar forms (Compare.md, CompareScalar.md; as
            // `AscendC::CompareRepeat` / `CompareScalarRepeat`): `mask` is reserved (ignored by
            // the face), the destination strides are not used, the bit stream is packed.
            "CompareRepeat" | "CompareScalarRepeat" => {
                let scalar_form = instr == "CompareScalarRepeat";
                let name = if scalar_form {
                    "CompareScalar"
                } else {
                    "Compare"
                };
                let mode = cmp_mode(name, int(0, "cmpMode")? as u32)?;
                let mut d = op(0, "dst")?;
                match d.dtype {
                    ElemType::U8 | ElemType::I8 => d.dtype = ElemType::U8,
                    other => {
                        return Err(CapiError::from(AscendError::Rule {
                            instr: name,
                            param: "dst",
                            value: other.cpp_name().to_string(),
                            rule: "the destination holds one bit per element: int8_t or uint8_t",
                        }));
                    }
                }
                let a = op(1, "src0")?;
                let repeat = int(1, "repeatTime")?;
                let (b, blk, rep) = if scalar_form {
                    let i = Instr::ALL
                        .iter()
                        .copied()
                        .find(|i| i.shape() == Shape::CmpBitsScalar && i.cmp_mode() == Some(mode))
                        .unwrap_or(Instr::VcmpvsEq);
                    i.check_type(name, self.core.chip().id, "src0", a.dtype)?;
                    (
                        None,
                        [int(2, "srcBlkStride")?, 1],
                        [int(3, "srcRepStride")?, 0],
                    )
                } else {
                    (
                        Some(op(2, "src1")?),
                        [int(2, "src0BlkStride")?, int(3, "src1BlkStride")?],
                        [int(4, "src0RepStride")?, int(5, "src1RepStride")?],
                    )
                };
                let s = if scalar_form {
                    Some(
                        scalar
                            .ok_or_else(|| rule("src1Scalar", "a scalar"))?
                            .scalar(),
                    )
                } else {
                    None
                };
                Vcmpv::strided(
                    self.core.chip(),
                    name,
                    mode,
                    &d,
                    &a,
                    b.as_ref(),
                    s,
                    repeat,
                    blk,
                    rep,
                )?
                .execute(&mut self.core)?;
            }
            "BilinearInterpolation" => {
                let mask = match int(0, "maskMode")? {
                    0 => npusim_ascend::mask::MaskArg::Count(int(1, "mask")? as u64),
                    _ => npusim_ascend::mask::MaskArg::ascendc_array([
                        int(1, "mask[0]")? as u64,
                        int(2, "mask[1]")? as u64,
                    ]),
                };
                let b = npusim_ascend::bilinear::Bilinear {
                    dst: op(0, "dst")?,
                    src0: op(1, "src0")?,
                    src0_offset: op(2, "src0Offset")?,
                    src1: op(3, "src1")?,
                    mask,
                    h_repeat: int(3, "hRepeat")?,
                    repeat_mode: int(4, "repeatMode")? != 0,
                    dst_blk_stride: int(5, "dstBlkStride")?,
                    v_r_offset: int(6, "vROffset")?,
                    v_repeat: int(7, "vRepeat")?,
                    tmp: Some(op(4, "sharedTmpBuffer")?),
                };
                npusim_ascend::bilinear::bilinear_interpolation(&mut self.core, instr, &b)?;
            }
            "TransDataTo5HD" => {
                let mut d = Vec::with_capacity(16);
                let mut s = Vec::with_capacity(16);
                for k in 0..16 {
                    d.push(op(k, "dstList")?);
                    s.push(op(16 + k, "srcList")?);
                }
                let dl: [&Operand; 16] = std::array::from_fn(|k| &d[k]);
                let sl: [&Operand; 16] = std::array::from_fn(|k| &s[k]);
                let params = npusim_ascend::nchwconv::TransDataTo5HDParams {
                    dst_high_half: int(0, "dstHighHalf")? != 0,
                    src_high_half: int(1, "srcHighHalf")? != 0,
                    repeat_times: int(2, "repeatTimes")?,
                    dst_rep_stride: int(3, "dstRepStride")?,
                    src_rep_stride: int(4, "srcRepStride")?,
                };
                npusim_ascend::nchwconv::TransOp::new(self.core.chip(), instr, &dl, &sl, params)?
                    .execute(&mut self.core)?;
            }
            "GetAccVal" | "GetReduceRepeatSumSpr" => {
                let t = self.dtype_arg(instr, int(0, "T")?)?;
                return Ok(npusim_ascend::ascendc::acc_val_bits(&self.core, instr, t)?);
            }
            "GetReduceMaxMinCount" | "GetReduceRepeatMaxMinSpr" => {
                let t = self.dtype_arg(instr, int(0, "T")?)?;
                // With the index: A2/A3 only; the value-only form also on 310P AI Core.
                let chips: &[npusim_core::ChipId] = if int(1, "withIndex")? != 0 {
                    &[npusim_core::ChipId::Ascend910B]
                } else {
                    &[
                        npusim_core::ChipId::Ascend910B,
                        npusim_core::ChipId::Ascend310P,
                    ]
                };
                let (v, i) = npusim_ascend::ascendc::max_min_bits(&self.core, instr, chips, t)?;
                return Ok((v & 0xffff_ffff) | (i & 0xffff_ffff) << 32);
            }
            _ => {
                // DataCopySlice: dimValue, then dimValue {startIndex, endIndex, stride,
                // burstLen, shapeValue} of dst, then of src.
                let (d, a) = (op(0, "dst")?, op(1, "src")?);
                let dim = int(0, "dimValue")?;
                let dim_u = u32::try_from(dim)
                    .map_err(|_| CapiError::rule(instr, "dimValue", "must fit uint32_t", dim))?;
                let slice = |from: usize| -> Result<Vec<npusim_ascend::ascendc::SliceInfo>> {
                    (0..dim_u as usize)
                        .map(|k| {
                            let f = |j: usize, p: &'static str| -> Result<u32> {
                                let x = int(from + 5 * k + j, p)?;
                                u32::try_from(x)
                                    .map_err(|_| CapiError::rule(instr, p, "must fit uint32_t", x))
                            };
                            Ok(npusim_ascend::ascendc::SliceInfo::new(
                                f(0, "startIndex")?,
                                f(1, "endIndex")?,
                                f(2, "stride")?,
                                f(3, "burstLen")?,
                                f(4, "shapeValue")?,
                            ))
                        })
                        .collect()
                };
                let (ds, ss) = (slice(1)?, slice(1 + 5 * dim_u as usize)?);
                npusim_ascend::slice::SliceMove::new(self.core.chip(), &d, &a, &ds, &ss, dim_u)?
                    .execute(&mut self.core)?;
            }
        }
        Ok(0)
    }

    /// GetMrgSortResult's four counts, 16 bits each, list 1 lowest.
    fn mrg_sort_result(&self) -> u64 {
        self.core
            .mrg_sort_result
            .iter()
            .enumerate()
            .fold(0u64, |a, (k, n)| a | (*n as u64) << (16 * k))
    }

    /// An element type given by its `NPUSIM_DT_*` code.
    fn dtype_arg(&self, instr: &str, code: i64) -> Result<npusim_core::ElemType> {
        Tensor {
            dtype: u32::try_from(code).unwrap_or(u32::MAX),
            ..Tensor::default()
        }
        .elem_type(instr, "T")
    }

    /// `SetAtomicAdd<T>()` with T's `NPUSIM_DT_*` code, or with `None` `SetAtomicNone()`.
    pub fn set_atomic(&mut self, dtype: Option<u32>) -> Result<()> {
        match dtype {
            None => self.core.atomic = None,
            Some(code) => {
                let t = Tensor {
                    dtype: code,
                    ..Tensor::default()
                }
                .elem_type("SetAtomicAdd", "T")?;
                npusim_ascend::ascendc::set_atomic_add(&mut self.core, t)?;
            }
        }
        Ok(())
    }

    /// `SetDeqScale`: `form` 0 `SetDeqScale(half scale)` (`scale` rounded to half), 1
    /// `SetDeqScale(float scale, int16_t offset, bool signMode)` ([`npusim_ascend::deq`]).
    pub fn set_deq_scale(
        &mut self,
        form: u32,
        scale: f32,
        offset: i32,
        sign_mode: bool,
    ) -> Result<()> {
        match form {
            0 => {
                npusim_ascend::deq::set_deq_scale_half(&mut self.core, half::f16::from_f32(scale))?
            }
            1 => {
                let off = i16::try_from(offset).map_err(|_| {
                    CapiError::rule("SetDeqScale", "offset", "must fit int16_t", offset)
                })?;
                npusim_ascend::deq::set_deq_scale_config(&mut self.core, scale, off, sign_mode)?
            }
            other => {
                return Err(CapiError::rule(
                    "SetDeqScale",
                    "form",
                    "must be 0 (half scale) or 1 (float scale, offset, signMode)",
                    other,
                ));
            }
        }
        Ok(())
    }

    /// `SetDeqScale<uint64_t>(vdeq, VdeqInfo{scale[16], offset[16], signMode[16]})`.
    pub fn set_deq_scale_vdeq(
        &mut self,
        vdeq: &Tensor,
        scale: &[f32; 16],
        offset: &[i16; 16],
        sign_mode: &[bool; 16],
    ) -> Result<()> {
        let v = vdeq.operand("SetDeqScale", "vdeq")?;
        npusim_ascend::deq::set_deq_scale_vdeq(&mut self.core, &v, scale, offset, sign_mode)?;
        Ok(())
    }

    /// `CastDequant<T, U, [isSetMask,] isVecDeq, halfBlock>`: the count form (`repeat` =
    /// `None`) or the mask/repeat form (`(mask, isSetMask, repeatTime, blk, rep)`, strides of
    /// dst and src).
    pub fn cast_dequant(
        &mut self,
        dst: &Tensor,
        src: &Tensor,
        vec_deq: bool,
        half_block: bool,
        repeat: Option<DeqRepeat<'_>>,
        count: u32,
    ) -> Result<()> {
        use npusim_ascend::deq::DeqCall;
        const N: &str = "CastDequant";
        let d = dst.operand(N, "dst")?;
        let s = src.operand(N, "src")?;
        let call = match repeat {
            None => DeqCall::Count(count),
            Some((m, is_set_mask, repeat, blk, rep)) => DeqCall::Repeat {
                mask: m.arg(N)?,
                is_set_mask,
                repeat,
                blk: (blk[0], blk[1]),
                rep: (rep[0], rep[1]),
            },
        };
        npusim_ascend::deq::cast_dequant(&mut self.core, &d, &s, call, vec_deq, half_block)?;
        Ok(())
    }

    /// `DataCopyPad(dst, src, DataCopyExtParams, [DataCopyPadExtParams])`, GM -> UB or
    /// UB -> GM ([`npusim_ascend::pad`]). `pad` is `Some((isPad, left, right, value))` for the
    /// GM -> UB forms; `compact` is `PaddingMode::Compact`.
    #[allow(clippy::too_many_arguments)]
    pub fn data_copy_pad(
        &mut self,
        dst: &Tensor,
        src: &Tensor,
        block_count: u16,
        block_len: u32,
        src_stride: i64,
        dst_stride: u32,
        pad: Option<(bool, u8, u8, Option<CScalar>)>,
        compact: bool,
    ) -> Result<()> {
        const N: &str = "DataCopyPad";
        let d = dst.operand(N, "dst")?;
        let s = src.operand(N, "src")?;
        let (left, right, value) = match pad {
            Some((is_pad, l, r, v)) => {
                let v = match (is_pad, v) {
                    (true, Some(v)) => Some(v.scalar()),
                    (true, None) => {
                        return Err(CapiError::rule(
                            N,
                            "paddingValue",
                            "must not be null when isPad is true",
                            "NULL",
                        ));
                    }
                    (false, _) => None,
                };
                (l as i64, r as i64, v)
            }
            None => (0, 0, None),
        };
        npusim_ascend::pad::MovePad::new(
            self.core.chip(),
            N,
            &d,
            &s,
            block_count as i64,
            block_len as i64,
            src_stride,
            dst_stride as i64,
            left,
            right,
            value,
            compact,
        )?
        .execute(&mut self.core)?;
        Ok(())
    }

    /// `SetPadValue<T>(paddingValue)` (A2/A3 and Ascend 950), `dtype` the `NPUSIM_DT_*` of T.
    pub fn set_pad_value(&mut self, dtype: u32, value: CScalar) -> Result<()> {
        const N: &str = "SetPadValue";
        if !matches!(self.core.chip().id, ChipId::Ascend910B | ChipId::Ascend950) {
            return Err(AscendError::NotSupported {
                instr: N,
                chip: self.core.chip().id,
            }
            .into());
        }
        let t = Tensor {
            dtype,
            ..Tensor::default()
        }
        .elem_type(N, "T")?;
        let bits = value.scalar().to_bits(N, "paddingValue", t)?;
        self.core.pad_value = Some(bits);
        Ok(())
    }

    /// `SetLoopModePara(LoopModeParams, DataCopyMVType)` (`params` = loop1Size, loop2Size,
    /// loop1SrcStride, loop1DstStride, loop2SrcStride, loop2DstStride), or with `None`
    /// `ResetLoopModePara(type)`: Ascend 950 ([`npusim_ascend::pad`]).
    pub fn set_loop_mode(&mut self, path: u32, params: Option<[u64; 6]>) -> Result<()> {
        use npusim_ascend::pad::{DataCopyMVType, LoopModeParams};
        let instr = if params.is_some() {
            "SetLoopModePara"
        } else {
            "ResetLoopModePara"
        };
        let path = match path {
            0 => DataCopyMVType::UbToOut,
            1 => DataCopyMVType::OutToUb,
            other => {
                return Err(CapiError::rule(
                    instr,
                    "type",
                    "must be DataCopyMVType UB_TO_OUT (0) or OUT_TO_UB (1)",
                    other,
                ));
            }
        };
        if self.core.chip().id != ChipId::Ascend950 {
            return Err(AscendError::NotSupported {
                instr,
                chip: self.core.chip().id,
            }
            .into());
        }
        self.core.loop_mode[path as usize] = match params {
            None => None,
            Some([l1, l2, s1, d1, s2, d2]) => {
                let size = |v: u64, p: &str| {
                    u32::try_from(v)
                        .map_err(|_| CapiError::rule(instr, p, "must be in [0, 2^21)", v))
                };
                let p = LoopModeParams {
                    loop1_size: size(l1, "loop1Size")?,
                    loop2_size: size(l2, "loop2Size")?,
                    loop1_src_stride: s1,
                    loop1_dst_stride: d1,
                    loop2_src_stride: s2,
                    loop2_dst_stride: d2,
                };
                p.check(self.core.chip(), path)?;
                Some(p)
            }
        };
        Ok(())
    }

    /// `PairReduceSum<T, isSetMask>(dst, src, repeat, mask, dstRepStride, srcBlkStride,
    /// srcRepStride)`.
    #[allow(clippy::too_many_arguments)]
    pub fn pair_reduce_sum(
        &mut self,
        dst: &Tensor,
        src: &Tensor,
        repeat: i32,
        mask: &CMask,
        is_set_mask: bool,
        strides: [i32; 3],
    ) -> Result<()> {
        let d = dst.operand("PairReduceSum", "dstLocal")?;
        let s = src.operand("PairReduceSum", "srcLocal")?;
        PairReduceSum::new(
            self.core.chip(),
            &d,
            &s,
            repeat as i64,
            mask.arg("PairReduceSum")?,
            is_set_mask,
            strides[0] as i64,
            strides[1] as i64,
            strides[2] as i64,
        )?
        .execute(&mut self.core)?;
        Ok(())
    }

    /// `ReduceSum / ReduceMax / ReduceMin(dst, src, tmp, count)`: sums in the chip's order as
    /// npusim-ascend's Ascend C face (sequential repeats on 910B/950, trees elsewhere).
    pub fn reduce_all(&mut self, name: &str, dst: &Tensor, src: &Tensor, count: i32) -> Result<()> {
        let instr = Instr::ALL
            .iter()
            .copied()
            .find(|i| i.shape() == Shape::ReduceAll && i.ascendc_name() == name)
            .ok_or_else(|| {
                CapiError::rule(
                    "npusim_reduce_all",
                    "instr",
                    "must be ReduceSum, ReduceMax or ReduceMin",
                    name,
                )
            })?;
        let n = instr.ascendc_name();
        let order = match self.core.chip().id {
            ChipId::Ascend910B | ChipId::Ascend950 => RepeatOrder::Sequential255,
            _ => RepeatOrder::Tree,
        };
        let d = dst.operand(n, "dst")?;
        let s = src.operand(n, "src")?;
        npusim_ascend::reduce::reduce_all(
            &mut self.core,
            instr,
            n,
            &d,
            &s,
            count as i64,
            8,
            order,
        )?;
        Ok(())
    }

    /// `Compare(dst, src0, src1, cmpMode, count)` (tensor src1) or `CompareScalar(dst, src0,
    /// scalar, cmpMode, count)`: one bit per element into a `uint8_t` tensor; `count *
    /// sizeof(T)` must be a multiple of 256 bytes.
    pub fn compare(
        &mut self,
        mode: u32,
        dst: &Tensor,
        src0: &Tensor,
        src1: Option<&Tensor>,
        scalar: Option<CScalar>,
        count: u32,
    ) -> Result<()> {
        let name = if src1.is_some() {
            "Compare"
        } else {
            "CompareScalar"
        };
        let mode = cmp_mode(name, mode)?;
        let d = dst.operand(name, "dst")?;
        let s0 = src0.operand(name, "src0")?;
        let s1 = src1.map(|t| t.operand(name, "src1")).transpose()?;
        let size = s0.dtype.size() as u64;
        let bytes = count as u64 * size;
        if !bytes.is_multiple_of(256) {
            return Err(CapiError::rule(
                name,
                "count",
                "count * sizeof(T) must be a multiple of 256 bytes",
                count,
            ));
        }
        if s1.is_none() {
            let instr = Instr::ALL
                .iter()
                .copied()
                .find(|i| i.shape() == Shape::CmpBitsScalar && i.cmp_mode() == Some(mode))
                .unwrap_or(Instr::VcmpvsEq);
            instr.check_type(name, self.core.chip().id, "src0", s0.dtype)?;
        }
        let lanes = 256 / size;
        let mut done = 0u64;
        while done < bytes / 256 {
            let rep = (bytes / 256 - done).min(255);
            let dd = d.at(done * lanes / 8);
            let a = s0.at(done * lanes);
            let op = match &s1 {
                Some(b) => Vcmpv::new(
                    self.core.chip(),
                    mode,
                    &dd,
                    &a,
                    &b.at(done * lanes),
                    rep as i64,
                    8,
                    8,
                )?,
                None => Vcmpv::strided(
                    self.core.chip(),
                    "CompareScalar",
                    mode,
                    &dd,
                    &a,
                    None,
                    scalar.map(|s| s.scalar()),
                    rep as i64,
                    [1, 1],
                    [8, 8],
                )?,
            };
            op.execute(&mut self.core)?;
            done += rep;
        }
        Ok(())
    }

    /// `Select(dst, selMask, src0, src1, selMode, count)`: src1 a tensor (modes 0, 2) or a
    /// scalar (mode 1); full repeats, then a tail repeat with a prefix mask.
    #[allow(clippy::too_many_arguments)]
    pub fn select(
        &mut self,
        mode: u32,
        dst: &Tensor,
        sel: &Tensor,
        src0: &Tensor,
        src1: Option<&Tensor>,
        scalar: Option<CScalar>,
        count: u32,
    ) -> Result<()> {
        let d = dst.operand("Select", "dst")?;
        let m = sel.operand("Select", "selMask")?;
        let s0 = src0.operand("Select", "src0")?;
        let s1 = src1.map(|t| t.operand("Select", "src1")).transpose()?;
        let sc = match (&s1, scalar) {
            (None, Some(s)) => Some(s.scalar()),
            (None, None) => {
                return Err(CapiError::rule(
                    "Select",
                    "src1",
                    "a tensor or a scalar must be given",
                    "none",
                ));
            }
            _ => None,
        };
        let size = d.dtype.size() as u64;
        let lanes = 256 / size;
        let count = count as u64;
        let full = count / lanes;
        let sel_size = m.dtype.size() as u64;
        let mut done = 0u64;
        let step = |done: u64, rep: u64, mask: u64, core: &mut VectorCore| -> Result<()> {
            let dd = d.at(done * lanes);
            let a = s0.at(done * lanes);
            let b_owned = s1.as_ref().map(|b| b.at(done * lanes));
            let b = match (&b_owned, sc) {
                (Some(b), _) => Src1::Tensor(b),
                (None, Some(s)) => Src1::Scalar(s),
                (None, None) => Src1::Scalar(Scalar::Int(0)),
            };
            let mm = if mode == 0 {
                m.clone()
            } else {
                m.at(done * lanes / 8 / sel_size)
            };
            SelectOp::new(
                core.chip(),
                "Select",
                mode as i64,
                &dd,
                &mm,
                &a,
                b,
                MaskArg::Count(mask),
                true,
                rep as i64,
                [1, 1, 1],
                [8, 8, 8],
            )?
            .execute(core)?;
            Ok(())
        };
        while done < full {
            let rep = (full - done).min(255);
            step(done, rep, lanes, &mut self.core)?;
            done += rep;
        }
        let tail = count - full * lanes;
        if tail > 0 {
            step(full, 1, tail, &mut self.core)?;
        }
        Ok(())
    }

    /// `SetVectorMask<T>(maskHigh, maskLow)`.
    pub fn set_vector_mask(&mut self, hi: u64, lo: u64) {
        self.core.mask.bits = (hi as u128) << 64 | lo as u128;
    }

    /// `SetVectorMask<T>(len)`: the low `len` bits in normal mode, the count in counter mode.
    pub fn set_vector_mask_len(&mut self, len: u64) {
        self.core.mask.bits = match self.core.mask.mode {
            mask::MaskMode::Counter => len as u128,
            mask::MaskMode::Normal => {
                let n = len.min(128) as u32;
                if n == 128 {
                    u128::MAX
                } else {
                    (1u128 << n) - 1
                }
            }
        };
    }

    /// `SetMaskCount()` (`true`) / `SetMaskNorm()` (`false`).
    pub fn set_mask_mode(&mut self, counter: bool) -> Result<()> {
        if counter && !self.core.chip().vector.counter_mode {
            return Err(AscendError::NotSupported {
                instr: "SetMaskCount",
                chip: self.core.chip().id,
            }
            .into());
        }
        self.core.mask.mode = if counter {
            mask::MaskMode::Counter
        } else {
            mask::MaskMode::Normal
        };
        Ok(())
    }

    /// `ResetMask()`: all lanes.
    pub fn reset_mask(&mut self) {
        self.core.mask.bits = MaskRegister::default().bits;
    }
}
