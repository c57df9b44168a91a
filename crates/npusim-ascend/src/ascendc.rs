//! The Ascend C face: `LocalTensor`, `GlobalTensor` and the basic APIs, called as in a kernel.
//!
//! Calls execute immediately on one [`VectorCore`], which keeps the persistent state the
//! documents describe (the mask register and the normal/counter mode bit), so `isSetMask =
//! false` with `MASK_PLACEHOLDER` reads whatever `SetVectorMask` left. Function names are the
//! Ascend C names (`DataCopy`, `Duplicate`, `SetVectorMask`, `PairReduceSum`, `Compare`) so a
//! kernel transcribes line by line; C++ overloads become separately named functions.
//! Sources: seed 001 (PairReduceSum) and asc-devkit `docs/zh/api/SIMD-API/基础API`
//! (`shared/research/ascend-vector.md` §3).

#![allow(non_snake_case)]

use crate::core::{Operand, VectorCore, check};
use crate::error::{AscendError, Result};
use crate::isa::{CastRound, Instr};
use crate::kernels::CmpMode;
use crate::mask::{MaskArg, MaskMode, MaskRegister};
use crate::ops::{DataMove, PairReduceSum, Scalar, ScalarBits, Vcmpv};
pub use crate::slice::SliceInfo;
use crate::vector::{Face, VecArgs, VecOp};
use npusim_core::{ChipId, ChipProfile, Element, MemSpace};
use std::marker::PhantomData;

/// `MASK_PLACEHOLDER`: pass with `isSetMask = false`.
pub const MASK_PLACEHOLDER: AscMask = AscMask(MaskArg::Placeholder);

/// An Ascend C mask argument: `uint64_t mask[2] = {low, high}` or a continuous `maskCount`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AscMask(pub MaskArg);

impl From<[u64; 2]> for AscMask {
    fn from(m: [u64; 2]) -> Self {
        AscMask(MaskArg::ascendc_array(m))
    }
}
impl From<u64> for AscMask {
    fn from(n: u64) -> Self {
        AscMask(MaskArg::Count(n))
    }
}
impl From<i32> for AscMask {
    fn from(n: i32) -> Self {
        AscMask(MaskArg::Count(n.max(0) as u64))
    }
}

/// Ascend C's `CMPMODE`.
pub type CMPMODE = CmpMode;

/// Ascend C's `SELMODE`.
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum SELMODE {
    VSEL_CMPMASK_SPR = 0,
    VSEL_TENSOR_SCALAR_MODE = 1,
    VSEL_TENSOR_TENSOR_MODE = 2,
}

/// Select's src1: `&LocalTensor<T>` or a scalar `T`.
#[derive(Clone, Copy, Debug)]
pub struct AscSrc1<'a, T>(pub crate::select::Src1<'a>, PhantomData<T>);

impl<'a, T> From<&'a LocalTensor<T>> for AscSrc1<'a, T> {
    fn from(t: &'a LocalTensor<T>) -> Self {
        AscSrc1(crate::select::Src1::Tensor(&t.op), PhantomData)
    }
}
impl<T: Element + Into<Scalar>> From<T> for AscSrc1<'_, T> {
    fn from(v: T) -> Self {
        AscSrc1(crate::select::Src1::Scalar(v.into()), PhantomData)
    }
}

/// Ascend C's `RoundMode` (`RoundMode::CAST_RINT` is `RoundMode::Rint`).
pub type RoundMode = CastRound;

/// `BinaryRepeatParams{dstBlkStride, src0BlkStride, src1BlkStride, dstRepStride, src0RepStride,
/// src1RepStride}` (uint8 fields; default `{1, 1, 1, 8, 8, 8}`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BinaryRepeatParams {
    pub dst_blk_stride: u8,
    pub src0_blk_stride: u8,
    pub src1_blk_stride: u8,
    pub dst_rep_stride: u8,
    pub src0_rep_stride: u8,
    pub src1_rep_stride: u8,
}

impl BinaryRepeatParams {
    /// `{ dstBlk, src0Blk, src1Blk, dstRep, src0Rep, src1Rep }` as a brace initialiser lists them.
    pub const fn new(d_blk: u8, s0_blk: u8, s1_blk: u8, d_rep: u8, s0_rep: u8, s1_rep: u8) -> Self {
        BinaryRepeatParams {
            dst_blk_stride: d_blk,
            src0_blk_stride: s0_blk,
            src1_blk_stride: s1_blk,
            dst_rep_stride: d_rep,
            src0_rep_stride: s0_rep,
            src1_rep_stride: s1_rep,
        }
    }
}

impl Default for BinaryRepeatParams {
    fn default() -> Self {
        BinaryRepeatParams::new(1, 1, 1, 8, 8, 8)
    }
}

/// `UnaryRepeatParams{dstBlkStride, srcBlkStride, dstRepStride, srcRepStride}` (uint16 block
/// strides, uint8 repeat strides; default `{1, 1, 8, 8}`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnaryRepeatParams {
    pub dst_blk_stride: u16,
    pub src_blk_stride: u16,
    pub dst_rep_stride: u8,
    pub src_rep_stride: u8,
}

impl UnaryRepeatParams {
    /// `{ dstBlk, srcBlk, dstRep, srcRep }`.
    pub const fn new(d_blk: u16, s_blk: u16, d_rep: u8, s_rep: u8) -> Self {
        UnaryRepeatParams {
            dst_blk_stride: d_blk,
            src_blk_stride: s_blk,
            dst_rep_stride: d_rep,
            src_rep_stride: s_rep,
        }
    }
}

impl Default for UnaryRepeatParams {
    fn default() -> Self {
        UnaryRepeatParams::new(1, 1, 8, 8)
    }
}

/// The Ascend C functions of every element-wise row of the instruction table: the count form
/// (`Add(dst, src0, src1, count)`) and the mask/repeat form (`AddRepeat::<T, isSetMask>(dst,
/// src0, src1, mask, repeatTime, params)`).
macro_rules! ascendc_methods {
    ($( $id:ident, $shape:ident, $tik:ident, $legacy:ident, $asc:ident, $asc_rep:ident,
        $dom:ident($elem:ident), $doc:literal, $([$chips:expr => $types:expr]),+ $(=> widen $w:expr)? ; )*) => {
        impl AscendC {
            $( ascendc_methods!(@m $shape, $id, $asc, $asc_rep $(, $w)?); )*
        }
    };
    // The rows with a mixed-precision form: `template <typename T, typename U>` (dst T,
    // sources and scalar U; MulAddDst.md, Axpy.md).
    (@m Ternary, $id:ident, $asc:ident, $rep:ident, $w:expr) => {
        #[doc = concat!("`", stringify!($asc), "<T, U>(dst, src0, src1, count)`: the first `count` elements (T = float with U = half on the chips of the row's `widen` column).")]
        pub fn $asc<T: Element, U: Element>(&mut self, dst: &LocalTensor<T>, src0: &LocalTensor<U>, src1: &LocalTensor<U>, count: i32) -> Result<()> {
            self.count_op(Instr::$id, stringify!($asc), &dst.op, &[&src0.op, &src1.op], None, CastRound::None, count)
        }
        #[doc = concat!("`", stringify!($asc), "<T, U, isSetMask>(dst, src0, src1, mask, repeatTime, BinaryRepeatParams)`.")]
        pub fn $rep<T: Element, U: Element, const IS_SET_MASK: bool>(&mut self, dst: &LocalTensor<T>, src0: &LocalTensor<U>, src1: &LocalTensor<U>,
                    mask: impl Into<AscMask>, repeat: i32, p: BinaryRepeatParams) -> Result<()> {
            self.repeat_op(Instr::$id, stringify!($asc), &dst.op, &[&src0.op, &src1.op], None, CastRound::None,
                mask.into(), IS_SET_MASK, repeat,
                [p.dst_blk_stride as i64, p.src0_blk_stride as i64, p.src1_blk_stride as i64],
                [p.dst_rep_stride as i64, p.src0_rep_stride as i64, p.src1_rep_stride as i64], 255)
        }
    };
    (@m ScalarDst, $id:ident, $asc:ident, $rep:ident, $w:expr) => {
        #[doc = concat!("`", stringify!($asc), "<T, U>(dst, src, scalarValue, count)` (T = float with U = half on the chips of the row's `widen` column).")]
        pub fn $asc<T: Element, U: Element + Into<Scalar>>(&mut self, dst: &LocalTensor<T>, src: &LocalTensor<U>, scalar: U, count: i32) -> Result<()> {
            self.count_op(Instr::$id, stringify!($asc), &dst.op, &[&src.op], Some(scalar.into()), CastRound::None, count)
        }
        #[doc = concat!("`", stringify!($asc), "<T, U, isSetMask>(dst, src, scalarValue, mask, repeatTime, UnaryRepeatParams)`.")]
        #[allow(clippy::too_many_arguments)]
        pub fn $rep<T: Element, U: Element + Into<Scalar>, const IS_SET_MASK: bool>(&mut self, dst: &LocalTensor<T>, src: &LocalTensor<U>,
                    scalar: U, mask: impl Into<AscMask>, repeat: i32, p: UnaryRepeatParams) -> Result<()> {
            self.repeat_op(Instr::$id, stringify!($asc), &dst.op, &[&src.op], Some(scalar.into()), CastRound::None,
                mask.into(), IS_SET_MASK, repeat,
                [p.dst_blk_stride as i64, p.src_blk_stride as i64, 1],
                [p.dst_rep_stride as i64, p.src_rep_stride as i64, 0], 65535)
        }
    };
    (@m Binary, $id:ident, $asc:ident, $rep:ident) => { ascendc_methods!(@bin $id, $asc, $rep); };
    (@m BinaryAcc, $id:ident, $asc:ident, $rep:ident) => { ascendc_methods!(@bin $id, $asc, $rep); };
    (@m Ternary, $id:ident, $asc:ident, $rep:ident) => { ascendc_methods!(@bin $id, $asc, $rep); };
    (@bin $id:ident, $asc:ident, $rep:ident) => {
        #[doc = concat!("`", stringify!($asc), "(dst, src0, src1, count)`: the first `count` elements.")]
        pub fn $asc<T: Element>(&mut self, dst: &LocalTensor<T>, src0: &LocalTensor<T>, src1: &LocalTensor<T>, count: i32) -> Result<()> {
            self.count_op(Instr::$id, stringify!($asc), &dst.op, &[&src0.op, &src1.op], None, CastRound::None, count)
        }
        #[doc = concat!("`", stringify!($asc), "<T, isSetMask>(dst, src0, src1, mask, repeatTime, BinaryRepeatParams)`.")]
        pub fn $rep<T: Element, const IS_SET_MASK: bool>(&mut self, dst: &LocalTensor<T>, src0: &LocalTensor<T>, src1: &LocalTensor<T>,
                    mask: impl Into<AscMask>, repeat: i32, p: BinaryRepeatParams) -> Result<()> {
            self.repeat_op(Instr::$id, stringify!($asc), &dst.op, &[&src0.op, &src1.op], None, CastRound::None,
                mask.into(), IS_SET_MASK, repeat,
                [p.dst_blk_stride as i64, p.src0_blk_stride as i64, p.src1_blk_stride as i64],
                [p.dst_rep_stride as i64, p.src0_rep_stride as i64, p.src1_rep_stride as i64], 255)
        }
    };
    (@m Unary, $id:ident, $asc:ident, $rep:ident) => {
        #[doc = concat!("`", stringify!($asc), "(dst, src, count)`.")]
        pub fn $asc<T: Element>(&mut self, dst: &LocalTensor<T>, src: &LocalTensor<T>, count: i32) -> Result<()> {
            self.count_op(Instr::$id, stringify!($asc), &dst.op, &[&src.op], None, CastRound::None, count)
        }
        #[doc = concat!("`", stringify!($asc), "<T, isSetMask>(dst, src, mask, repeatTime, UnaryRepeatParams)`.")]
        pub fn $rep<T: Element, const IS_SET_MASK: bool>(&mut self, dst: &LocalTensor<T>, src: &LocalTensor<T>,
                    mask: impl Into<AscMask>, repeat: i32, p: UnaryRepeatParams) -> Result<()> {
            self.repeat_op(Instr::$id, stringify!($asc), &dst.op, &[&src.op], None, CastRound::None,
                mask.into(), IS_SET_MASK, repeat,
                [p.dst_blk_stride as i64, p.src_blk_stride as i64, 1],
                [p.dst_rep_stride as i64, p.src_rep_stride as i64, 0], 65535)
        }
    };
    (@m Scalar, $id:ident, $asc:ident, $rep:ident) => { ascendc_methods!(@sc $id, $asc, $rep); };
    (@m ScalarDst, $id:ident, $asc:ident, $rep:ident) => { ascendc_methods!(@sc $id, $asc, $rep); };
    (@sc $id:ident, $asc:ident, $rep:ident) => {
        #[doc = concat!("`", stringify!($asc), "(dst, src, scalarValue, count)`.")]
        pub fn $asc<T: Element + Into<Scalar>>(&mut self, dst: &LocalTensor<T>, src: &LocalTensor<T>, scalar: T, count: i32) -> Result<()> {
            self.count_op(Instr::$id, stringify!($asc), &dst.op, &[&src.op], Some(scalar.into()), CastRound::None, count)
        }
        #[doc = concat!("`", stringify!($asc), "<T, isSetMask>(dst, src, scalarValue, mask, repeatTime, UnaryRepeatParams)`.")]
        #[allow(clippy::too_many_arguments)]
        pub fn $rep<T: Element + Into<Scalar>, const IS_SET_MASK: bool>(&mut self, dst: &LocalTensor<T>, src: &LocalTensor<T>,
                    scalar: T, mask: impl Into<AscMask>, repeat: i32, p: UnaryRepeatParams) -> Result<()> {
            self.repeat_op(Instr::$id, stringify!($asc), &dst.op, &[&src.op], Some(scalar.into()), CastRound::None,
                mask.into(), IS_SET_MASK, repeat,
                [p.dst_blk_stride as i64, p.src_blk_stride as i64, 1],
                [p.dst_rep_stride as i64, p.src_rep_stride as i64, 0], 65535)
        }
    };
    (@m Convert, $id:ident, $asc:ident, $rep:ident) => {
        #[doc = concat!("`", stringify!($asc), "(dst, src, roundMode, count)`.")]
        pub fn $asc<D: Element, S: Element>(&mut self, dst: &LocalTensor<D>, src: &LocalTensor<S>, round: RoundMode, count: u32) -> Result<()> {
            self.count_op(Instr::$id, stringify!($asc), &dst.op, &[&src.op], None, round, count as i64)
        }
        #[doc = concat!("`", stringify!($asc), "<D, S, isSetMask>(dst, src, roundMode, mask, repeatTime, UnaryRepeatParams)`.")]
        #[allow(clippy::too_many_arguments)]
        pub fn $rep<D: Element, S: Element, const IS_SET_MASK: bool>(&mut self, dst: &LocalTensor<D>, src: &LocalTensor<S>,
                    round: RoundMode, mask: impl Into<AscMask>, repeat: i32, p: UnaryRepeatParams) -> Result<()> {
            self.repeat_op(Instr::$id, stringify!($asc), &dst.op, &[&src.op], None, round,
                mask.into(), IS_SET_MASK, repeat,
                [p.dst_blk_stride as i64, p.src_blk_stride as i64, 1],
                [p.dst_rep_stride as i64, p.src_rep_stride as i64, 0], 65535)
        }
    };
    (@m Dup, $id:ident, $asc:ident, $rep:ident) => {
        #[doc = concat!("`", stringify!($asc), "(dst, scalarValue, count)`: the first `count` elements.")]
        pub fn $asc<T: Element + Into<Scalar>>(&mut self, dst: &LocalTensor<T>, scalar: T, count: i32) -> Result<()> {
            self.count_op(Instr::$id, stringify!($asc), &dst.op, &[], Some(scalar.into()), CastRound::None, count as i64)
        }
        #[doc = concat!("`", stringify!($asc), "<T, isSetMask>(dst, scalarValue, mask, repeatTime, dstBlockStride, dstRepeatStride)`.")]
        pub fn $rep<T: Element + Into<Scalar>, const IS_SET_MASK: bool>(&mut self, dst: &LocalTensor<T>, scalar: T,
                    mask: impl Into<AscMask>, repeat: i32, dst_blk_stride: i32, dst_rep_stride: i32) -> Result<()> {
            self.repeat_op(Instr::$id, stringify!($asc), &dst.op, &[], Some(scalar.into()), CastRound::None,
                mask.into(), IS_SET_MASK, repeat, [dst_blk_stride as i64, 1, 1], [dst_rep_stride as i64, 0, 0], 255)
        }
    };
    (@m Select, $id:ident, $asc:ident, $rep:ident) => {
        #[doc = concat!("`", stringify!($asc), "(dst, selMask, src0, src1, selMode, count)`; src1 a tensor (modes 0, 2) or a scalar (mode 1).")]
        pub fn $asc<'s, T: Element, U: Element>(&mut self, dst: &LocalTensor<T>, sel: &LocalTensor<U>, src0: &LocalTensor<T>,
                    src1: impl Into<AscSrc1<'s, T>>, mode: SELMODE, count: u32) -> Result<()> {
            let lanes = 256 / std::mem::size_of::<T>() as u64;
            let count = count as u64;
            // Full repeats, then one with a prefix mask (normal mode, as the count form does).
            let full = count / lanes;
            let src1 = src1.into().0;
            let mut done = 0u64;
            while done < full {
                let rep = (full - done).min(255);
                let (d, s0) = (dst.op.at(done * lanes), src0.op.at(done * lanes));
                let s1 = match src1 { crate::select::Src1::Tensor(t) => crate::select::Src1::Tensor(t), s => s };
                let s1_owned;
                let s1 = match s1 { crate::select::Src1::Tensor(t) => { s1_owned = t.at(done * lanes); crate::select::Src1::Tensor(&s1_owned) } s => s };
                let selop = if mode as u8 == 0 { sel.op.clone() } else { sel.op.at(done * lanes / 8 / std::mem::size_of::<U>() as u64) };
                crate::select::SelectOp::new(self.chip(), stringify!($asc), mode as i64, &d, &selop, &s0, s1,
                    MaskArg::Count(lanes), true, rep as i64, [1, 1, 1], [8, 8, 8])?.execute(&mut self.core)?;
                done += rep;
            }
            let tail = count - full * lanes;
            if tail > 0 {
                let (d, s0) = (dst.op.at(full * lanes), src0.op.at(full * lanes));
                let s1_owned;
                let s1 = match src1 { crate::select::Src1::Tensor(t) => { s1_owned = t.at(full * lanes); crate::select::Src1::Tensor(&s1_owned) } s => s };
                let selop = if mode as u8 == 0 { sel.op.clone() } else { sel.op.at(full * lanes / 8 / std::mem::size_of::<U>() as u64) };
                crate::select::SelectOp::new(self.chip(), stringify!($asc), mode as i64, &d, &selop, &s0, s1,
                    MaskArg::Count(tail), true, 1, [1, 1, 1], [8, 8, 8])?.execute(&mut self.core)?;
            }
            Ok(())
        }
        #[doc = concat!("`", stringify!($asc), "<T, U, isSetMask>(dst, selMask, src0, src1, selMode, mask, repeatTime, BinaryRepeatParams)`.")]
        #[allow(clippy::too_many_arguments)]
        pub fn $rep<'s, T: Element, U: Element, const IS_SET_MASK: bool>(&mut self, dst: &LocalTensor<T>, sel: &LocalTensor<U>,
                    src0: &LocalTensor<T>, src1: impl Into<AscSrc1<'s, T>>, mode: SELMODE, mask: impl Into<AscMask>,
                    repeat: i32, p: BinaryRepeatParams) -> Result<()> {
            crate::select::SelectOp::new(self.chip(), stringify!($asc), mode as i64, &dst.op, &sel.op, &src0.op, src1.into().0,
                mask.into().0, IS_SET_MASK, repeat as i64,
                [p.dst_blk_stride as i64, p.src0_blk_stride as i64, p.src1_blk_stride as i64],
                [p.dst_rep_stride as i64, p.src0_rep_stride as i64, p.src1_rep_stride as i64])?
                .execute(&mut self.core)
        }
    };
    (@m ReduceAll, $id:ident, $asc:ident, $rep:ident) => {
        #[doc = concat!("`", stringify!($asc), "(dst, src, sharedTmpBuffer, count)`: sums in method 2 (sequential across repeats) on A2/A3 and 950, method 1 (trees) elsewhere (ReduceSum page; named policy where sources differ); max/min write [value, index] (calIndex = true).")]
        pub fn $asc<T: Element>(&mut self, dst: &LocalTensor<T>, src: &LocalTensor<T>, _tmp: &LocalTensor<T>, count: i32) -> Result<()> {
            let order = match self.chip().id {
                ChipId::Ascend910B | ChipId::Ascend950 => crate::reduce::RepeatOrder::Sequential255,
                _ => crate::reduce::RepeatOrder::Tree,
            };
            crate::reduce::reduce_all(&mut self.core, Instr::$id, stringify!($asc), &dst.op, &src.op, count as i64, 8, order)
        }
        #[doc = concat!("`", stringify!($asc), "(dst, src, sharedTmpBuffer, mask / mask[2], repeatTime, srcRepStride, calIndex)`: the high-dimension forms (continuous or bit-wise mask, normal mode); sums in method 1 (a tree within each repeat, masked-off lanes as 0, then trees over the repeat sums) on every chip (ReduceSum.md: A2/A3 use method 1 for this form, method 2 only for the count form; the other chips method 1 throughout; 950, not listed, as A2/A3: policy); max/min write [value, index] when `cal_index`, the value alone otherwise (the count form with calIndex is `", stringify!($asc), "` with `cal_index` true, or this form with the count's repeats); sums ignore `cal_index`.")]
        #[allow(clippy::too_many_arguments)]
        pub fn $rep<T: Element>(&mut self, dst: &LocalTensor<T>, src: &LocalTensor<T>, _tmp: &LocalTensor<T>,
                    mask: impl Into<AscMask>, repeat: i32, src_rep_stride: i32, cal_index: bool) -> Result<()> {
            crate::reduce::reduce_all_lanes(&mut self.core, Instr::$id, stringify!($asc), &dst.op, &src.op,
                crate::reduce::ReduceLanes::Masked { mask: mask.into().0, repeat: repeat as i64 },
                src_rep_stride as i64, crate::reduce::RepeatOrder::Tree, cal_index)
        }
    };
    (@m GatherMask, $id:ident, $asc:ident, $rep:ident) => {
        #[doc = concat!("`", stringify!($asc), "(dst, src0, src1Pattern (1..=7), reduceMode, mask, {src0BlockStride, repeatTimes, src0RepeatStride, src1RepeatStride}, rsvdCnt)`; returns rsvdCnt.")]
        #[allow(clippy::too_many_arguments)]
        pub fn $asc<T: Element>(&mut self, dst: &LocalTensor<T>, src0: &LocalTensor<T>, src1_pattern: u8, reduce_mode: bool,
                    mask: u32, params: [u16; 4]) -> Result<u64> {
            crate::misc::gather_mask(&mut self.core, stringify!($asc), &dst.op, &src0.op, crate::misc::GatherPattern::Fixed(src1_pattern),
                reduce_mode, mask as u64, params.map(|p| p as i64))
        }
        #[doc = concat!("`", stringify!($asc), "(dst, src0, src1Pattern (a bit tensor), reduceMode, mask, params, rsvdCnt)`; returns rsvdCnt.")]
        #[allow(clippy::too_many_arguments)]
        pub fn $rep<T: Element, U: Element>(&mut self, dst: &LocalTensor<T>, src0: &LocalTensor<T>, src1_pattern: &LocalTensor<U>,
                    reduce_mode: bool, mask: u32, params: [u16; 4]) -> Result<u64> {
            crate::misc::gather_mask(&mut self.core, stringify!($asc), &dst.op, &src0.op, crate::misc::GatherPattern::Tensor(&src1_pattern.op),
                reduce_mode, mask as u64, params.map(|p| p as i64))
        }
    };
    (@m Gather, $id:ident, $asc:ident, $rep:ident) => {
        #[doc = concat!("`", stringify!($asc), "(dst, src, srcOffset, srcBaseAddr, count)`: `dst[i] = src[(srcBaseAddr + srcOffset[i]) / sizeof(T)]`.")]
        pub fn $asc<T: Element>(&mut self, dst: &LocalTensor<T>, src: &LocalTensor<T>, src_offset: &LocalTensor<u32>, src_base_addr: u32, count: u32) -> Result<()> {
            crate::misc::gather(&mut self.core, stringify!($asc), &dst.op, &src.op, &src_offset.op, src_base_addr, count as i64)
        }
    };
    (@m GatherBlock, $id:ident, $asc:ident, $rep:ident) => {
        #[doc = concat!("`", stringify!($asc), "<T>(dst, src, offset, repeatTime, GatherRepeatParams{dstBlkStride, dstRepStride})`: 8 blocks of 32 bytes per repeat from `src + offset[k]`.")]
        pub fn $asc<T: Element>(&mut self, dst: &LocalTensor<T>, src: &LocalTensor<T>, offset: &LocalTensor<u32>, repeat: i32,
                    dst_blk_stride: u8, dst_rep_stride: u16) -> Result<()> {
            crate::misc::gatherb(&mut self.core, stringify!($asc), &dst.op, &src.op, &offset.op, repeat as i64,
                dst_blk_stride as i64, dst_rep_stride as i64)
        }
    };
    (@m Bilinear, $id:ident, $asc:ident, $rep:ident) => {
        #[doc = concat!("`", stringify!($asc), "<half>(dst, src0, src0Offset, src1, mask / mask[2], hRepeat, repeatMode, dstBlkStride, vROffset, vRepeat, sharedTmpBuffer)`: bilinear interpolation ([`crate::bilinear`]).")]
        #[allow(clippy::too_many_arguments)]
        pub fn $asc<T: Element>(&mut self, dst: &LocalTensor<T>, src0: &LocalTensor<T>, src0_offset: &LocalTensor<u32>,
                    src1: &LocalTensor<T>, mask: impl Into<AscMask>, h_repeat: u8, repeat_mode: bool, dst_blk_stride: u16,
                    v_r_offset: u16, v_repeat: u8, shared_tmp_buffer: &LocalTensor<u8>) -> Result<()> {
            crate::bilinear::bilinear_interpolation(&mut self.core, stringify!($asc), &crate::bilinear::Bilinear {
                dst: dst.op.clone(), src0: src0.op.clone(), src0_offset: src0_offset.op.clone(), src1: src1.op.clone(),
                mask: mask.into().0, h_repeat: h_repeat as i64, repeat_mode, dst_blk_stride: dst_blk_stride as i64,
                v_r_offset: v_r_offset as i64, v_repeat: v_repeat as i64, tmp: Some(shared_tmp_buffer.op.clone()),
            })
        }
    };
    (@m Transpose, $id:ident, $asc:ident, $rep:ident) => {
        #[doc = concat!("`", stringify!($asc), "(dst, src)`: one 16×16 transpose of 2-byte elements.")]
        pub fn $asc<T: Element>(&mut self, dst: &LocalTensor<T>, src: &LocalTensor<T>) -> Result<()> {
            crate::misc::transpose(&mut self.core, stringify!($asc), &dst.op, &src.op, 1, 0, 0)
        }
    };
    (@m Brcb, $id:ident, $asc:ident, $rep:ident) => {
        #[doc = concat!("`", stringify!($asc), "(dst, src, repeatTime, BrcbRepeatParams{dstBlkStride, dstRepStride})`.")]
        pub fn $asc<T: Element>(&mut self, dst: &LocalTensor<T>, src: &LocalTensor<T>, repeat: i32, dst_blk_stride: u16, dst_rep_stride: u16) -> Result<()> {
            crate::misc::BrcbOp::new(self.chip(), stringify!($asc), &dst.op, &src.op, repeat as i64, dst_blk_stride as i64, dst_rep_stride as i64)?
                .execute(&mut self.core)
        }
    };
    (@m Index, $id:ident, $asc:ident, $rep:ident) => {
        #[doc = concat!("`", stringify!($asc), "(dst, firstValue, count)`: `dst[i] = firstValue + i`.")]
        pub fn $asc<T: Element + Into<Scalar>>(&mut self, dst: &LocalTensor<T>, first_value: T, count: u32) -> Result<()> {
            crate::misc::create_vec_index(&mut self.core, stringify!($asc), &dst.op, first_value.into(), count as i64)
        }
        #[doc = concat!("`", stringify!($asc), "(dst, firstValue, mask / mask[2], repeatTime, dstBlkStride, dstRepStride)`: active lane e of repeat r gets `firstValue + r·lanes + e`.")]
        pub fn $rep<T: Element + Into<Scalar>>(&mut self, dst: &LocalTensor<T>, first_value: T, mask: impl Into<AscMask>,
                    repeat: u8, dst_blk_stride: u16, dst_rep_stride: u8) -> Result<()> {
            crate::misc::create_vec_index_masked(&mut self.core, stringify!($asc), &dst.op, first_value.into(), mask.into().0,
                repeat as i64, dst_blk_stride as i64, dst_rep_stride as i64)
        }
    };
    (@m CmpMask, $id:ident, $asc:ident, $rep:ident) => {};
    // TIK-only rows (viou, vaadd, v4dtrans): no Ascend C method.
    (@m ProposalPair, $id:ident, $asc:ident, $rep:ident) => {};
    (@m Trans4d, $id:ident, $asc:ident, $rep:ident) => {};
    (@m AddrListTranspose, $id:ident, $asc:ident, $rep:ident) => {
        #[doc = concat!("`", stringify!($asc), "<T>(dstList[16], srcList[16], TransDataTo5HDParams)` with LocalTensor lists.")]
        pub fn $asc<T: Element>(&mut self, dst: [&LocalTensor<T>; 16], src: [&LocalTensor<T>; 16],
                    params: crate::nchwconv::TransDataTo5HDParams) -> Result<()> {
            crate::nchwconv::TransOp::new(self.chip(), stringify!($asc), &dst.map(|t| &t.op), &src.map(|t| &t.op), params)?
                .execute(&mut self.core)
        }
    };
    (@m ProposalField, $id:ident, $asc:ident, $rep:ident) => {
        #[doc = concat!("`", stringify!($asc), "<T>(dst, src, repeatTime, modeNumber)`: 16 elements per repeat and field `modeNumber` of 16 region proposals.")]
        pub fn $asc<T: Element>(&mut self, dst: &LocalTensor<T>, src: &LocalTensor<T>, repeat: i32, mode_number: i32) -> Result<()> {
            crate::sort::proposal_move(&mut self.core, Instr::$id, stringify!($asc), &dst.op, &src.op, repeat as i64, mode_number as i64)
        }
    };
    (@m ProposalSort, $id:ident, $asc:ident, $rep:ident) => {
        #[doc = concat!("`", stringify!($asc), "<T>(dst, src, repeatTime)`: 16 region proposals sorted by score per repeat.")]
        pub fn $asc<T: Element>(&mut self, dst: &LocalTensor<T>, src: &LocalTensor<T>, repeat: i32) -> Result<()> {
            crate::sort::rp_sort16(&mut self.core, stringify!($asc), &dst.op, &src.op, repeat as i64)
        }
    };
    (@m MrgSort, $id:ident, $asc:ident, $rep:ident) => {
        #[doc = concat!("`", stringify!($asc), "<T>(dst, MrgSortSrcList{src1, src2, src3, src4}, MrgSort4Info)`: merges up to 4 sorted (score, index) lists; `GetMrgSortResult` reads the consumed counts.")]
        pub fn $asc<T: Element>(&mut self, dst: &LocalTensor<T>, src: [&LocalTensor<T>; 4], params: crate::sort::MrgSort4Info) -> Result<()> {
            if Instr::$id == Instr::MrgSort4 {
                crate::sort::mrg_sort4(&mut self.core, stringify!($asc), &dst.op, src.map(|t| &t.op), &params)
            } else {
                crate::sort::mrg_sort(&mut self.core, stringify!($asc), &dst.op, src.map(|t| &t.op), &params)
            }
        }
    };
    (@m Sort32, $id:ident, $asc:ident, $rep:ident) => {
        #[doc = concat!("`", stringify!($asc), "<T>(dst, src0, src1, repeatTime)`: 32 scores per repeat sorted descending into 8-byte (score, uint32 index) entries.")]
        pub fn $asc<T: Element>(&mut self, dst: &LocalTensor<T>, src0: &LocalTensor<T>, src1: &LocalTensor<u32>, repeat: i32) -> Result<()> {
            crate::sort::sort32(&mut self.core, stringify!($asc), &dst.op, &src0.op, &src1.op, repeat as i64)
        }
    };
    (@m WholeReduce, $id:ident, $asc:ident, $rep:ident) => {
        #[doc = concat!("`", stringify!($asc), "<T, isSetMask>(dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride)` (value and index for Max/Min: ORDER_VALUE_INDEX).")]
        #[allow(clippy::too_many_arguments)]
        pub fn $asc<T: Element, const IS_SET_MASK: bool>(&mut self, dst: &LocalTensor<T>, src: &LocalTensor<T>,
                    mask: impl Into<AscMask>, repeat: i32, dst_rep_stride: i32, src_blk_stride: i32, src_rep_stride: i32) -> Result<()> {
            crate::reduce::ReduceOp::new(self.chip(), Instr::$id, stringify!($asc), &dst.op, &src.op, mask.into().0, IS_SET_MASK,
                repeat as i64, dst_rep_stride as i64, src_blk_stride as i64, src_rep_stride as i64)?
                .execute(&mut self.core)
        }
    };
    (@m RepeatReduce, $id:ident, $asc:ident, $rep:ident) => {
        #[doc = concat!("`", stringify!($asc), "<T, isSetMask>(dst, src, repeatTime, mask, dstBlkStride, srcBlkStride, dstRepStride, srcRepStride)`: one binary-tree sum per repeat; `mask` continuous only (or `MASK_PLACEHOLDER` with `isSetMask = false`), `dstBlkStride` ignored (RepeatReduceSum.md), `dstRepStride` in units of sizeof(T).")]
        #[allow(clippy::too_many_arguments)]
        pub fn $asc<T: Element, const IS_SET_MASK: bool>(&mut self, dst: &LocalTensor<T>, src: &LocalTensor<T>,
                    repeat: i32, mask: impl Into<AscMask>, _dst_blk_stride: i32, src_blk_stride: i32, dst_rep_stride: i32,
                    src_rep_stride: i32) -> Result<()> {
            crate::reduce::ReduceOp::new(self.chip(), Instr::$id, stringify!($asc), &dst.op, &src.op, mask.into().0, IS_SET_MASK,
                repeat as i64, dst_rep_stride as i64, src_blk_stride as i64, src_rep_stride as i64)?
                .execute(&mut self.core)
        }
    };
    (@m BlockReduce, $id:ident, $asc:ident, $rep:ident) => {
        #[doc = concat!("`", stringify!($asc), "<T, isSetMask>(dst, src, repeatTime, mask, dstRepStride, srcBlkStride, srcRepStride)`.")]
        #[allow(clippy::too_many_arguments)]
        pub fn $asc<T: Element, const IS_SET_MASK: bool>(&mut self, dst: &LocalTensor<T>, src: &LocalTensor<T>,
                    repeat: i32, mask: impl Into<AscMask>, dst_rep_stride: i32, src_blk_stride: i32, src_rep_stride: i32) -> Result<()> {
            crate::reduce::ReduceOp::new(self.chip(), Instr::$id, stringify!($asc), &dst.op, &src.op, mask.into().0, IS_SET_MASK,
                repeat as i64, dst_rep_stride as i64, src_blk_stride as i64, src_rep_stride as i64)?
                .execute(&mut self.core)
        }
    };
    (@m $other:ident, $id:ident, $asc:ident, $rep:ident) => {};
}

crate::for_each_vector_instr!(ascendc_methods);

/// The bits of the ACC_VAL register (`GetReduceRepeatSumSpr` / `GetAccVal`) read as `want`:
/// A2/A3 and 950 only, after the count form of ReduceSum, in the type it summed.
pub fn acc_val_bits(
    core: &VectorCore,
    name: &'static str,
    want: npusim_core::ElemType,
) -> Result<u64> {
    let chip = core.chip().id;
    if !matches!(chip, ChipId::Ascend910B | ChipId::Ascend950) {
        return Err(AscendError::NotSupported { instr: name, chip });
    }
    let Some((t, bits)) = core.acc_val else {
        return Err(AscendError::Rule {
            instr: name,
            param: "ACC_VAL",
            value: "unset".into(),
            rule: "only readable after the count form of ReduceSum",
        });
    };
    reg_type(name, t, want)?;
    Ok(bits)
}

/// The bits of the max/min register (`GetReduceRepeatMaxMinSpr` / `GetReduceMaxMinCount`):
/// (value, index) read as `want`, on `chips`, after a contiguous normal-mode
/// WholeReduceMax/Min or ReduceMax/Min.
pub fn max_min_bits(
    core: &VectorCore,
    name: &'static str,
    chips: &[ChipId],
    want: npusim_core::ElemType,
) -> Result<(u64, u64)> {
    let chip = core.chip().id;
    if !chips.contains(&chip) {
        return Err(AscendError::NotSupported { instr: name, chip });
    }
    let Some((t, v, i)) = core.max_min else {
        return Err(AscendError::Rule {
            instr: name,
            param: "MAX_MIN",
            value: "unset".into(),
            rule: "only readable after a contiguous (srcBlkStride 1, srcRepStride 8), normal-mode WholeReduceMax/Min or ReduceMax/Min",
        });
    };
    reg_type(name, t, want)?;
    Ok((v, i))
}

/// A register read must use the type the reduction wrote.
fn reg_type(
    name: &'static str,
    have: npusim_core::ElemType,
    want: npusim_core::ElemType,
) -> Result<()> {
    if have == want {
        Ok(())
    } else {
        Err(AscendError::TypeMismatch {
            instr: name,
            param: "T",
            got: want,
            other: "the reduction's dst",
            want: have,
        })
    }
}

/// A tensor in the Unified Buffer (`LocalTensor<T>`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocalTensor<T> {
    op: Operand,
    _t: PhantomData<T>,
}

/// `VdeqInfo`: the 16 configurations of CastDequant's vector quantization form.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VdeqInfo {
    pub vdeq_scale: [f32; 16],
    pub vdeq_offset: [i16; 16],
    pub vdeq_sign_mode: [bool; 16],
}

impl VdeqInfo {
    /// `VdeqInfo(vdeqScale, vdeqOffset, vdeqSignMode)`.
    pub const fn new(scale: [f32; 16], offset: [i16; 16], sign_mode: [bool; 16]) -> VdeqInfo {
        VdeqInfo {
            vdeq_scale: scale,
            vdeq_offset: offset,
            vdeq_sign_mode: sign_mode,
        }
    }
}

/// A tensor in global memory (`GlobalTensor<T>`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GlobalTensor<T> {
    op: Operand,
    _t: PhantomData<T>,
}

/// Anything that names an operand.
pub trait AsOperand {
    fn operand(&self) -> &Operand;
}
impl<T> AsOperand for LocalTensor<T> {
    fn operand(&self) -> &Operand {
        &self.op
    }
}
impl<T> AsOperand for GlobalTensor<T> {
    fn operand(&self) -> &Operand {
        &self.op
    }
}

impl<T: Element> GlobalTensor<T> {
    /// `tensor[offset]`: the same global tensor starting `offset` elements later.
    pub fn offset(&self, elems: u64) -> GlobalTensor<T> {
        GlobalTensor {
            op: self.op.at(elems),
            _t: PhantomData,
        }
    }
}

impl<T: Element> LocalTensor<T> {
    /// `tensor[offset]`: the same tensor starting `offset` elements later.
    pub fn offset(&self, elems: u64) -> LocalTensor<T> {
        LocalTensor {
            op: self.op.at(elems),
            _t: PhantomData,
        }
    }
    /// `GetSize()`: elements from the start to the end of the tensor.
    pub fn GetSize(&self) -> u64 {
        self.op.tensor_bytes / std::mem::size_of::<T>() as u64 - self.op.offset
    }
    /// `ReinterpretCast<U>()`: the same bytes viewed as `U` (the start must be a whole number
    /// of `U` elements from the tensor's first byte; it is rounded down otherwise).
    pub fn ReinterpretCast<U: Element>(&self) -> LocalTensor<U> {
        let start = self.op.offset * std::mem::size_of::<T>() as u64;
        LocalTensor {
            op: Operand {
                dtype: U::TYPE,
                offset: start / std::mem::size_of::<U>() as u64,
                ..self.op.clone()
            },
            _t: PhantomData,
        }
    }
}

/// One AI Vector core running Ascend C calls.
#[derive(Debug, Clone)]
pub struct AscendC {
    core: VectorCore,
    ub_used: u64,
    gm_used: u64,
}

impl AscendC {
    /// A core of `chip` with `gm_bytes` of global memory.
    pub fn new(chip: ChipId, gm_bytes: usize) -> AscendC {
        AscendC {
            core: VectorCore::new(chip, gm_bytes),
            ub_used: 0,
            gm_used: 0,
        }
    }

    /// The chip's profile.
    pub fn chip(&self) -> &'static ChipProfile {
        self.core.chip()
    }

    /// The core, for inspection.
    pub fn core(&self) -> &VectorCore {
        &self.core
    }

    fn alloc(
        &mut self,
        name: &str,
        space: MemSpace,
        dtype: npusim_core::ElemType,
        len: u64,
    ) -> Result<Operand> {
        let bytes = len * dtype.size() as u64;
        let (used, cap) = match space {
            MemSpace::Ub => (&mut self.ub_used, self.core.ub().capacity() as u64),
            _ => (
                &mut self.gm_used,
                self.core.memory(MemSpace::Gm)?.capacity() as u64,
            ),
        };
        let base = used.div_ceil(32) * 32;
        if base + bytes > cap {
            return Err(AscendError::OutOfMemory {
                tensor: name.to_string(),
                space,
                bytes,
                used: base,
                capacity: cap,
            });
        }
        *used = base + bytes;
        Ok(Operand {
            tensor: name.into(),
            space,
            dtype,
            tensor_base: base,
            tensor_bytes: bytes,
            offset: 0,
        })
    }

    /// `pipe.InitBuffer(que, 1, len * sizeof(T))` + `AllocTensor<T>()`: a UB tensor of `len`
    /// elements, 32-byte aligned.
    pub fn AllocTensor<T: Element>(&mut self, name: &str, len: u64) -> Result<LocalTensor<T>> {
        Ok(LocalTensor {
            op: self.alloc(name, MemSpace::Ub, T::TYPE, len)?,
            _t: PhantomData,
        })
    }

    /// `GmAlloc` + `SetGlobalBuffer`: a GM tensor holding `data`.
    pub fn GmAlloc<T: Element>(&mut self, name: &str, data: &[T]) -> Result<GlobalTensor<T>> {
        let op = self.alloc(name, MemSpace::Gm, T::TYPE, data.len() as u64)?;
        self.core
            .memory_mut(MemSpace::Gm)?
            .write_elems(op.tensor_base, data)?;
        Ok(GlobalTensor {
            op,
            _t: PhantomData,
        })
    }

    /// Writes `data` at the start of a tensor (`SetValue` in bulk; for feeding examples).
    pub fn write<T: Element>(&mut self, t: &impl AsOperand, data: &[T]) -> Result<()> {
        let op = t.operand();
        let bytes = std::mem::size_of_val(data) as u64;
        check::within("write", "data", op, Some((op.addr(), op.addr() + bytes)))?;
        Ok(self
            .core
            .memory_mut(op.space)?
            .write_elems(op.addr(), data)?)
    }

    /// Reads a whole tensor back (for checking results).
    pub fn read<T: Element>(&self, t: &impl AsOperand) -> Result<Vec<T>> {
        let op = t.operand();
        Ok(self.core.memory(op.space)?.read_elems::<T>(
            op.addr(),
            ((op.tensor_bytes - (op.addr() - op.tensor_base)) / std::mem::size_of::<T>() as u64)
                as usize,
        )?)
    }

    /// The element types DataCopy moves on this chip (GM与UB连续/高维切分数据搬运 pages: no
    /// bfloat16_t on Atlas training, Atlas inference and the Ascend 310 profile).
    fn data_copy_type(&self, t: npusim_core::ElemType) -> Result<()> {
        let chip = self.chip().id;
        let no_bf16 = matches!(
            chip,
            ChipId::Ascend910 | ChipId::Ascend310P | ChipId::Ascend310
        );
        if no_bf16 && t == npusim_core::ElemType::Bf16 {
            return Err(AscendError::IllegalType {
                instr: "DataCopy",
                param: "T",
                dtype: t,
                chip,
                legal: "int8_t, uint8_t, int16_t, uint16_t, half, int32_t, uint32_t, float, int64_t, uint64_t, double".into(),
            });
        }
        Ok(())
    }

    /// `DataCopy(dst, src, count)`: GM↔UB or UB→UB, `count` elements. As documented, a
    /// `count * sizeof(T)` that is not a multiple of 32 bytes is rounded down to one.
    pub fn DataCopy<T: Element>(
        &mut self,
        dst: &impl AsOperand,
        src: &impl AsOperand,
        count: u32,
    ) -> Result<()> {
        self.data_copy_type(T::TYPE)?;
        let blocks = count as u64 * std::mem::size_of::<T>() as u64 / 32;
        if blocks == 0 {
            return Ok(());
        }
        if crate::pad::data_copy_looped(
            &mut self.core,
            dst.operand(),
            src.operand(),
            1,
            blocks,
            0,
            0,
        )? {
            return Ok(());
        }
        let mv = DataMove::new(
            self.chip(),
            "DataCopy",
            dst.operand(),
            src.operand(),
            0,
            1,
            blocks as i64,
            0,
            0,
        )?;
        mv.execute(&mut self.core)
    }

    /// `DataCopy(dst, src, DataCopyParams{blockCount, blockLen, srcGap, dstGap})`
    /// (GM与UB高维切分数据搬运): `blockCount` in [0, 4095]; a `blockCount` or `blockLen` of 0 is
    /// a NOP on A2/A3 and Ascend 950, and an error elsewhere (the page gives no behaviour:
    /// named policy).
    pub fn DataCopyParams(
        &mut self,
        dst: &impl AsOperand,
        src: &impl AsOperand,
        block_count: u16,
        block_len: u16,
        src_stride: u16,
        dst_stride: u16,
    ) -> Result<()> {
        self.data_copy_type(src.operand().dtype)?;
        check::range(
            "DataCopy",
            "blockCount",
            block_count as i64,
            0,
            4095,
            "[0, 4095]",
        )?;
        if block_count == 0 || block_len == 0 {
            if matches!(self.chip().id, ChipId::Ascend910B | ChipId::Ascend950) {
                return Ok(());
            }
            return Err(AscendError::Rule {
                instr: "DataCopy",
                param: if block_count == 0 {
                    "blockCount"
                } else {
                    "blockLen"
                },
                value: "0".into(),
                rule: "a blockCount or blockLen of 0 is a NOP only on A2/A3 and Ascend 950; elsewhere it is rejected",
            });
        }
        if crate::pad::data_copy_looped(
            &mut self.core,
            dst.operand(),
            src.operand(),
            block_count,
            block_len as u64,
            src_stride,
            dst_stride,
        )? {
            return Ok(());
        }
        let mv = DataMove::new(
            self.chip(),
            "DataCopy",
            dst.operand(),
            src.operand(),
            0,
            block_count as i64,
            block_len as i64,
            src_stride as i64,
            dst_stride as i64,
        )?;
        mv.execute(&mut self.core)
    }

    /// `DataCopy(dst, src, dstSliceInfo, srcSliceInfo, dimValue)`: the slice form
    /// (GM与UB切片数据搬运; rules in [`crate::slice`]).
    pub fn DataCopySlice<T: Element>(
        &mut self,
        dst: &impl AsOperand,
        src: &impl AsOperand,
        dst_slice: &[SliceInfo],
        src_slice: &[SliceInfo],
        dim_value: u32,
    ) -> Result<()> {
        crate::slice::SliceMove::new(
            self.chip(),
            dst.operand(),
            src.operand(),
            dst_slice,
            src_slice,
            dim_value,
        )?
        .execute(&mut self.core)
    }

    /// Runs an element-wise instruction in its count form.
    #[allow(clippy::too_many_arguments)]
    pub fn count_op(
        &mut self,
        instr: Instr,
        name: &'static str,
        dst: &Operand,
        srcs: &[&Operand],
        scalar: Option<Scalar>,
        round: CastRound,
        count: impl Into<i64>,
    ) -> Result<()> {
        VecOp::count(
            self.chip(),
            instr,
            name,
            dst,
            srcs,
            scalar,
            round,
            count.into(),
        )?
        .execute(&mut self.core)
    }

    /// Runs an element-wise instruction in its mask/repeat form.
    #[allow(clippy::too_many_arguments)]
    pub fn repeat_op(
        &mut self,
        instr: Instr,
        name: &'static str,
        dst: &Operand,
        srcs: &[&Operand],
        scalar: Option<Scalar>,
        round: CastRound,
        mask: AscMask,
        is_set_mask: bool,
        repeat: i32,
        blk: [i64; 3],
        rep: [i64; 3],
        blk_max: i64,
    ) -> Result<()> {
        VecOp::new(
            self.chip(),
            &VecArgs {
                instr,
                name,
                face: Face::AscendC,
                dst,
                srcs,
                scalar,
                round,
                mask: mask.0,
                is_set_mask,
                repeat: repeat as i64,
                blk,
                rep,
                blk_max,
            },
        )?
        .execute(&mut self.core)
    }

    /// `Compare(src0, src1, cmpMode, mask, repeatParams)`: one repeat into CMPMASK
    /// (Compare（结果存入寄存器）); block strides from the params.
    pub fn CompareToCmpMask<T: Element>(
        &mut self,
        src0: &LocalTensor<T>,
        src1: &LocalTensor<T>,
        mode: CMPMODE,
        mask: impl Into<AscMask>,
        p: BinaryRepeatParams,
    ) -> Result<()> {
        crate::misc::CmpMaskOp::new(
            self.chip(),
            "Compare",
            mode,
            &src0.op,
            &src1.op,
            mask.into().0,
            p.src0_blk_stride as i64,
            p.src1_blk_stride as i64,
        )?
        .execute(&mut self.core)
    }

    /// `Compare<T, isSetMask>(src0, src1, cmpMode, mask, repeatParams)` into CMPMASK: with
    /// `isSetMask = false` pass `MASK_PLACEHOLDER`; the lanes then come from the mask register
    /// (`SetVectorMask`, normal or counter mode).
    pub fn CompareToCmpMaskIsSet<T: Element, const IS_SET_MASK: bool>(
        &mut self,
        src0: &LocalTensor<T>,
        src1: &LocalTensor<T>,
        mode: CMPMODE,
        mask: impl Into<AscMask>,
        p: BinaryRepeatParams,
    ) -> Result<()> {
        crate::misc::CmpMaskOp::new_masked(
            self.chip(),
            "Compare",
            mode,
            &src0.op,
            &src1.op,
            mask.into().0,
            IS_SET_MASK,
            p.src0_blk_stride as i64,
            p.src1_blk_stride as i64,
        )?
        .execute(&mut self.core)
    }

    /// `SetCmpMask(src)`: CMPMASK = 128 bits at `src`.
    pub fn SetCmpMask<T: Element>(&mut self, src: &LocalTensor<T>) -> Result<()> {
        crate::misc::set_cmp_mask(&mut self.core, "SetCmpMask", &src.op)
    }

    /// `GetCmpMask(dst)`: 128 bits of CMPMASK into `dst`.
    pub fn GetCmpMask<T: Element>(&mut self, dst: &LocalTensor<T>) -> Result<()> {
        crate::misc::get_cmp_mask(&mut self.core, "GetCmpMask", &dst.op)
    }

    /// `SetAtomicAdd<T>()`: later moves into GM add elements of T (types per chip: SetAtomicAdd
    /// page).
    pub fn SetAtomicAdd<T: Element>(&mut self) -> Result<()> {
        set_atomic_add(&mut self.core, T::TYPE)
    }

    /// `SetDeqScale(half scale)`: the DEQSCALE register's half scale (bits 0..15), read by the
    /// int32 -> half Cast and CastDequant (`dst = half(src * scale)`). The page lists Ascend
    /// 950, A2/A3 and Atlas inference AI Core; elsewhere it is NotSupported. The
    /// float/offset/signMode and vdeq forms are [`AscendC::SetDeqScaleConfig`] and
    /// [`AscendC::SetDeqScaleVdeq`].
    pub fn SetDeqScale(&mut self, scale: half::f16) -> Result<()> {
        crate::deq::set_deq_scale_half(&mut self.core, scale)
    }

    /// `SetDeqScale(float scale, int16_t offset, bool signMode)`: the DEQSCALE configuration
    /// of CastDequant int16 -> b8 without vector quantization (`offset` keeps its low 9 bits;
    /// [`crate::deq`]). The register is one: its bits 0..15 are also what an int32 -> half
    /// Cast reads as its half scale.
    pub fn SetDeqScaleConfig(&mut self, scale: f32, offset: i16, sign_mode: bool) -> Result<()> {
        crate::deq::set_deq_scale_config(&mut self.core, scale, offset, sign_mode)
    }

    /// `SetDeqScale<uint64_t>(vdeq, VdeqInfo)`: writes the 16 configurations into `vdeq` (UB,
    /// 32-byte aligned, at least 128 bytes) and points the DEQSCALE register at it, for
    /// CastDequant with `isVecDeq = true` (which reads the tensor when it runs).
    pub fn SetDeqScaleVdeq(&mut self, vdeq: &LocalTensor<u64>, info: &VdeqInfo) -> Result<()> {
        crate::deq::set_deq_scale_vdeq(
            &mut self.core,
            &vdeq.op,
            &info.vdeq_scale,
            &info.vdeq_offset,
            &info.vdeq_sign_mode,
        )
    }

    /// `CastDequant<T, U, isVecDeq, halfBlock>(dst, src, count)`: int16 -> int8/uint8 through
    /// the DEQSCALE register ([`crate::deq`]; counter mode over `count` elements, default
    /// strides), or int32 -> half (Cast's SetDeqScale form, round to nearest even).
    pub fn CastDequant<T: Element, U: Element, const IS_VEC_DEQ: bool, const HALF_BLOCK: bool>(
        &mut self,
        dst: &LocalTensor<T>,
        src: &LocalTensor<U>,
        count: u32,
    ) -> Result<()> {
        crate::deq::cast_dequant(
            &mut self.core,
            &dst.op,
            &src.op,
            crate::deq::DeqCall::Count(count),
            IS_VEC_DEQ,
            HALF_BLOCK,
        )
    }

    /// `CastDequant<T, U, isSetMask, isVecDeq, halfBlock>(dst, src, mask, repeatTime,
    /// UnaryRepeatParams)`.
    pub fn CastDequantRepeat<
        T: Element,
        U: Element,
        const IS_SET_MASK: bool,
        const IS_VEC_DEQ: bool,
        const HALF_BLOCK: bool,
    >(
        &mut self,
        dst: &LocalTensor<T>,
        src: &LocalTensor<U>,
        mask: impl Into<AscMask>,
        repeat: i32,
        p: UnaryRepeatParams,
    ) -> Result<()> {
        crate::deq::cast_dequant(
            &mut self.core,
            &dst.op,
            &src.op,
            crate::deq::DeqCall::Repeat {
                mask: mask.into().0,
                is_set_mask: IS_SET_MASK,
                repeat,
                blk: (p.dst_blk_stride as i64, p.src_blk_stride as i64),
                rep: (p.dst_rep_stride as i64, p.src_rep_stride as i64),
            },
            IS_VEC_DEQ,
            HALF_BLOCK,
        )
    }

    /// `SetAtomicNone()`.
    pub fn SetAtomicNone(&mut self) {
        self.core.atomic = None;
    }

    /// `DisableDmaAtomic()`: the same as SetAtomicNone (the SetAtomicAdd page's example).
    pub fn DisableDmaAtomic(&mut self) {
        self.core.atomic = None;
    }

    /// `DataCopyPad(dst, src, DataCopyExtParams{blockCount, blockLen, srcStride, dstStride},
    /// DataCopyPadExtParams{isPad, leftPadding, rightPadding, paddingValue})`, GM -> UB or
    /// UB -> GM (`pad` is `Some((isPad, left, right, value))` for GM -> UB); Normal mode.
    #[allow(clippy::too_many_arguments)]
    pub fn DataCopyPad<T: Element + Into<Scalar>>(
        &mut self,
        dst: &impl AsOperand,
        src: &impl AsOperand,
        block_count: u16,
        block_len: u32,
        src_stride: i64,
        dst_stride: u32,
        pad: Option<(bool, u8, u8, T)>,
    ) -> Result<()> {
        self.data_copy_pad(
            dst,
            src,
            block_count,
            block_len,
            src_stride,
            dst_stride,
            pad,
            false,
        )
    }

    /// `DataCopyPad<T, PaddingMode::Compact>(...)` (Ascend 950, GM -> UB): the blocks packed
    /// back to back, `rightPadding` and the filler after the last one.
    #[allow(clippy::too_many_arguments)]
    pub fn DataCopyPadCompact<T: Element + Into<Scalar>>(
        &mut self,
        dst: &impl AsOperand,
        src: &impl AsOperand,
        block_count: u16,
        block_len: u32,
        src_stride: i64,
        pad: (bool, u8, u8, T),
    ) -> Result<()> {
        self.data_copy_pad(
            dst,
            src,
            block_count,
            block_len,
            src_stride,
            0,
            Some(pad),
            true,
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn data_copy_pad<T: Element + Into<Scalar>>(
        &mut self,
        dst: &impl AsOperand,
        src: &impl AsOperand,
        block_count: u16,
        block_len: u32,
        src_stride: i64,
        dst_stride: u32,
        pad: Option<(bool, u8, u8, T)>,
        compact: bool,
    ) -> Result<()> {
        let (left, right, value) = match pad {
            Some((is_pad, l, r, v)) => (l as i64, r as i64, is_pad.then(|| v.into())),
            None => (0, 0, None),
        };
        crate::pad::MovePad::new(
            self.chip(),
            "DataCopyPad",
            dst.operand(),
            src.operand(),
            block_count as i64,
            block_len as i64,
            src_stride,
            dst_stride as i64,
            left,
            right,
            value,
            compact,
        )?
        .execute(&mut self.core)
    }

    /// `SetLoopModePara(loopParams, type)` (Ascend 950): arms the loop mode of DataCopyPad on
    /// the path `type` until `ResetLoopModePara(type)` (`crate::pad` module docs).
    pub fn SetLoopModePara(
        &mut self,
        params: crate::pad::LoopModeParams,
        path: crate::pad::DataCopyMVType,
    ) -> Result<()> {
        params.check(self.chip(), path)?;
        self.core.loop_mode[path as usize] = Some(params);
        Ok(())
    }

    /// `ResetLoopModePara(type)` (Ascend 950): DataCopyPad on the path `type` moves once again.
    pub fn ResetLoopModePara(&mut self, path: crate::pad::DataCopyMVType) -> Result<()> {
        if self.chip().id != ChipId::Ascend950 {
            return Err(AscendError::NotSupported {
                instr: "ResetLoopModePara",
                chip: self.chip().id,
            });
        }
        self.core.loop_mode[path as usize] = None;
        Ok(())
    }

    /// `SetPadValue<T>(paddingValue)` (A2/A3 and Ascend 950): the value DataCopyPad pads with
    /// when `isPad` is false.
    pub fn SetPadValue<T: Element + Into<Scalar>>(&mut self, value: T) -> Result<()> {
        if !matches!(self.chip().id, ChipId::Ascend910B | ChipId::Ascend950) {
            return Err(AscendError::NotSupported {
                instr: "SetPadValue",
                chip: self.chip().id,
            });
        }
        let bits = value
            .into()
            .to_bits("SetPadValue", "paddingValue", T::TYPE)?;
        self.core.pad_value = Some(bits);
        Ok(())
    }

    /// `SetMaskCount()`: counter mode.
    pub fn SetMaskCount(&mut self) -> Result<()> {
        if !self.chip().vector.counter_mode {
            return Err(AscendError::NotSupported {
                instr: "SetMaskCount",
                chip: self.chip().id,
            });
        }
        self.core.mask.mode = MaskMode::Counter;
        Ok(())
    }

    /// `GetMrgSortResult(mrgSortList1, ..., mrgSortList4)`: how many entries of each list the
    /// last MrgSort wrote out.
    pub fn GetMrgSortResult(&self) -> [u16; 4] {
        self.core.mrg_sort_result
    }

    /// `GetReduceRepeatSumSpr<T>()` (old name `GetAccVal`): the sum the last count-form
    /// ReduceSum left in its register (A2/A3 and 950 only).
    pub fn GetReduceRepeatSumSpr<T: Element>(&self) -> Result<T> {
        acc_val_bits(&self.core, "GetReduceRepeatSumSpr", T::TYPE).map(T::from_bits_u64)
    }

    /// `GetAccVal<T>()`: the old name of [`AscendC::GetReduceRepeatSumSpr`].
    pub fn GetAccVal<T: Element>(&self) -> Result<T> {
        self.GetReduceRepeatSumSpr::<T>()
    }

    /// `GetReduceRepeatMaxMinSpr<T>(maxMinValue, maxMinIndex)` (old name
    /// `GetReduceMaxMinCount`): the best value over every repeat of the last contiguous
    /// WholeReduceMax/Min (or ReduceMax/Min) and its index, counted in elements over the repeats
    /// (policy; the page gives no formula, and after ReduceMax/Min it calls the index inexact).
    /// Atlas A2/A3 only; [`AscendC::GetReduceRepeatMaxMinSprValue`] is the 310P form.
    pub fn GetReduceRepeatMaxMinSpr<T: Element>(&self) -> Result<(T, T)> {
        self.max_min_reg::<T>("GetReduceRepeatMaxMinSpr", &[ChipId::Ascend910B])
    }

    /// `GetReduceMaxMinCount<T>(...)`: the old name of
    /// [`AscendC::GetReduceRepeatMaxMinSpr`].
    pub fn GetReduceMaxMinCount<T: Element>(&self) -> Result<(T, T)> {
        self.max_min_reg::<T>("GetReduceMaxMinCount", &[ChipId::Ascend910B])
    }

    /// `GetReduceRepeatMaxMinSpr<T>(maxMinValue)`: the value only (Atlas A2/A3 and 310P AI Core).
    pub fn GetReduceRepeatMaxMinSprValue<T: Element>(&self) -> Result<T> {
        self.max_min_reg::<T>(
            "GetReduceRepeatMaxMinSpr",
            &[ChipId::Ascend910B, ChipId::Ascend310P],
        )
        .map(|(v, _)| v)
    }

    fn max_min_reg<T: Element>(&self, name: &'static str, chips: &[ChipId]) -> Result<(T, T)> {
        max_min_bits(&self.core, name, chips, T::TYPE)
            .map(|(v, i)| (T::from_bits_u64(v), T::from_bits_u64(i)))
    }

    /// `SetMaskNorm()`: normal mode.
    pub fn SetMaskNorm(&mut self) {
        self.core.mask.mode = MaskMode::Normal;
    }

    /// `SetVectorMask<T>(maskHigh, maskLow)`.
    pub fn SetVectorMask(&mut self, mask_high: u64, mask_low: u64) {
        self.core.mask.bits = (mask_high as u128) << 64 | mask_low as u128;
    }

    /// `SetVectorMask<T>(len)`: the low `len` bits in normal mode, the count in counter mode.
    pub fn SetVectorMaskLen(&mut self, len: u64) {
        self.core.mask.bits = match self.core.mask.mode {
            MaskMode::Counter => len as u128,
            MaskMode::Normal => crate::mask::prefix(len.min(128) as u32),
        };
    }

    /// `SetVectorMask<T>(maskHigh, maskLow)` with the page's ranges for `T` checked
    /// (SetVectorMask.md): in normal mode 16-bit operands take any bits but not both words 0,
    /// 32-bit ones need `maskHigh = 0` and `maskLow > 0`, 64-bit ones `maskHigh = 0` and `maskLow`
    /// in (0, 2^32 - 1]; in counter mode `maskLow` is the element count and `maskHigh` must be 0.
    /// [`AscendC::SetVectorMask`] is the unchecked form (no `T`).
    pub fn SetVectorMaskOf<T: Element>(&mut self, mask_high: u64, mask_low: u64) -> Result<()> {
        let bad = |param: &'static str, value: u64, rule: &'static str| {
            Err(AscendError::Rule {
                instr: "SetVectorMask",
                param,
                value: format!("{value:#x}"),
                rule,
            })
        };
        match (self.core.mask.mode, T::TYPE.size()) {
            (MaskMode::Counter, _) if mask_high != 0 => {
                return bad("maskHigh", mask_high, "must be 0 in counter mode");
            }
            (MaskMode::Counter, _) => {}
            (MaskMode::Normal, 2) if mask_high == 0 && mask_low == 0 => {
                return bad(
                    "maskLow",
                    0,
                    "maskHigh and maskLow must not both be 0 for 16-bit operands",
                );
            }
            (MaskMode::Normal, 2) => {}
            (MaskMode::Normal, 4 | 8) if mask_high != 0 => {
                return bad(
                    "maskHigh",
                    mask_high,
                    "must be 0 for 32-bit and 64-bit operands",
                );
            }
            (MaskMode::Normal, 4) if mask_low == 0 => {
                return bad("maskLow", 0, "must be in (0, 2^64 - 1] for 32-bit operands");
            }
            (MaskMode::Normal, 8) if mask_low == 0 || mask_low > u32::MAX as u64 => {
                return bad(
                    "maskLow",
                    mask_low,
                    "must be in (0, 2^32 - 1] for 64-bit operands",
                );
            }
            (MaskMode::Normal, 4 | 8) => {}
            (MaskMode::Normal, _) => return Err(Self::mask_type::<T>()),
        }
        self.SetVectorMask(mask_high, mask_low);
        Ok(())
    }

    /// `SetVectorMask<T>(len)` with the page's ranges for `T` checked: in normal mode `len` is in
    /// [1, 128] for 16-bit operands, [1, 64] for 32-bit, [1, 32] for 64-bit; in counter mode it
    /// is the element count (an `int32_t`, not negative). [`AscendC::SetVectorMaskLen`] is the
    /// unchecked form.
    pub fn SetVectorMaskLenOf<T: Element>(&mut self, len: i32) -> Result<()> {
        let (rule, lanes): (&'static str, i32) = match T::TYPE.size() {
            2 => ("must be in [1, 128] for 16-bit operands", 128),
            4 => ("must be in [1, 64] for 32-bit operands", 64),
            8 => ("must be in [1, 32] for 64-bit operands", 32),
            _ if self.core.mask.mode == MaskMode::Counter => ("", i32::MAX),
            _ => return Err(Self::mask_type::<T>()),
        };
        let (ok, rule) = match self.core.mask.mode {
            MaskMode::Normal => ((1..=lanes).contains(&len), rule),
            MaskMode::Counter => (
                len >= 0,
                "the element count of counter mode cannot be negative",
            ),
        };
        if !ok {
            return Err(AscendError::Rule {
                instr: "SetVectorMask",
                param: "len",
                value: len.to_string(),
                rule,
            });
        }
        self.SetVectorMaskLen(len as u64);
        Ok(())
    }

    fn mask_type<T: Element>() -> AscendError {
        AscendError::Rule {
            instr: "SetVectorMask",
            param: "T",
            value: T::TYPE.cpp_name().to_string(),
            rule: "a normal-mode mask is defined for 16-, 32- and 64-bit operands",
        }
    }

    /// `ResetMask()`: all lanes.
    pub fn ResetMask(&mut self) {
        self.core.mask.bits = MaskRegister::default().bits;
    }

    /// `PairReduceSum<T, isSetMask>(dst, src, repeat, mask, dstRepStride, srcBlkStride,
    /// srcRepStride)`, both mask forms (`[u64; 2]` or a count).
    #[allow(clippy::too_many_arguments)]
    pub fn PairReduceSum<T: Element, const IS_SET_MASK: bool>(
        &mut self,
        dst: &LocalTensor<T>,
        src: &LocalTensor<T>,
        repeat: i32,
        mask: impl Into<AscMask>,
        dst_rep_stride: i32,
        src_blk_stride: i32,
        src_rep_stride: i32,
    ) -> Result<()> {
        PairReduceSum::new(
            self.chip(),
            &dst.op,
            &src.op,
            repeat as i64,
            mask.into().0,
            IS_SET_MASK,
            dst_rep_stride as i64,
            src_blk_stride as i64,
            src_rep_stride as i64,
        )?
        .execute(&mut self.core)
    }

    /// `CompareScalar(dst, src0, src1Scalar, cmpMode, count)` (Compares.md): one bit per
    /// element into a `uint8_t` tensor; `count * sizeof(T)` must be a multiple of 256 bytes.
    pub fn CompareScalar<T: Element + Into<Scalar>>(
        &mut self,
        dst: &LocalTensor<u8>,
        src0: &LocalTensor<T>,
        scalar: T,
        mode: CMPMODE,
        count: u32,
    ) -> Result<()> {
        let bytes = count as u64 * std::mem::size_of::<T>() as u64;
        if !bytes.is_multiple_of(256) {
            return Err(AscendError::Rule {
                instr: "CompareScalar",
                param: "count",
                value: count.to_string(),
                rule: "count * sizeof(T) must be a multiple of 256 bytes",
            });
        }
        let instr = Instr::ALL
            .iter()
            .copied()
            .find(|i| i.shape() == crate::isa::Shape::CmpBitsScalar && i.cmp_mode() == Some(mode))
            .unwrap_or(Instr::VcmpvsEq);
        instr.check_type("CompareScalar", self.chip().id, "src0", T::TYPE)?;
        let s: Scalar = scalar.into();
        let lanes = 256 / std::mem::size_of::<T>() as u64;
        let mut done = 0u64;
        while done < bytes / 256 {
            let rep = (bytes / 256 - done).min(255);
            Vcmpv::strided(
                self.chip(),
                "CompareScalar",
                mode,
                &dst.op.at(done * lanes / 8),
                &src0.op.at(done * lanes),
                None,
                Some(s),
                rep as i64,
                [1, 1],
                [8, 8],
            )?
            .execute(&mut self.core)?;
            done += rep;
        }
        Ok(())
    }

    /// `Compare(dst, src0, src1, cmpMode, count)`: one bit per element into a `uint8_t` tensor.
    /// `count * sizeof(T)` must be a multiple of 256 bytes.
    pub fn Compare<T: Element>(
        &mut self,
        dst: &LocalTensor<u8>,
        src0: &LocalTensor<T>,
        src1: &LocalTensor<T>,
        mode: CMPMODE,
        count: u32,
    ) -> Result<()> {
        let bytes = count as u64 * std::mem::size_of::<T>() as u64;
        if !bytes.is_multiple_of(256) {
            return Err(AscendError::Rule {
                instr: "Compare",
                param: "count",
                value: count.to_string(),
                rule: "count * sizeof(T) must be a multiple of 256 bytes",
            });
        }
        let mut done = 0u64;
        // The hardware form takes at most 255 repeats; longer counts run in chunks.
        while done < bytes / 256 {
            let rep = (bytes / 256 - done).min(255);
            let lanes = 256 / std::mem::size_of::<T>() as u64;
            let op = Vcmpv::new(
                self.chip(),
                mode,
                &dst.op.at(done * lanes / 8),
                &src0.op.at(done * lanes),
                &src1.op.at(done * lanes),
                rep as i64,
                8,
                8,
            )?;
            op.execute(&mut self.core)?;
            done += rep;
        }
        Ok(())
    }
}

impl AscendC {
    /// The destination of Compare / CompareScalar: `int8_t` or `uint8_t` (Compare.md and
    /// CompareScalar.md, template parameter `U`).
    /// The bits are written as bytes whichever of the two it is.
    fn bit_dst<U: Element>(dst: &LocalTensor<U>, name: &'static str) -> Result<Operand> {
        use npusim_core::ElemType::{I8, U8};
        if matches!(U::TYPE, I8 | U8) {
            let mut op = dst.op.clone();
            op.dtype = U8;
            return Ok(op);
        }
        Err(AscendError::Rule {
            instr: name,
            param: "dst",
            value: U::TYPE.cpp_name().to_string(),
            rule: "the destination holds one bit per element: int8_t or uint8_t",
        })
    }

    /// `Compare<T, U, isSetMask>(dst, src0, src1, cmpMode, mask / mask[], repeatTime,
    /// BinaryRepeatParams)` (Compare.md, "Tensor高维切分计算", both mask forms): `repeatTime`
    /// repeats of 256 source bytes each, the sources walked with their block and repeat
    /// strides; one bit per lane, each repeat's `lanes / 8` bytes packed after the previous
    /// repeat's.
    ///
    /// `mask` and `isSetMask` have no effect: the page calls `mask` a reserved parameter whose
    /// setting is ignored (保留参数，设置无效), so every lane of every repeat is compared (the
    /// vendor's implementation discards it too). The destination block and repeat strides are
    /// not used (policy, the same hardware call as the count form, whose vendor implementation
    /// runs 252 repeats with the default strides and advances `dst` by exactly
    /// `252 · lanes / 8` bytes: the bit stream is packed).
    #[allow(clippy::too_many_arguments)]
    pub fn CompareRepeat<T: Element, U: Element, const IS_SET_MASK: bool>(
        &mut self,
        dst: &LocalTensor<U>,
        src0: &LocalTensor<T>,
        src1: &LocalTensor<T>,
        mode: CMPMODE,
        mask: impl Into<AscMask>,
        repeat: i32,
        p: BinaryRepeatParams,
    ) -> Result<()> {
        let _ignored = mask.into();
        let dst = Self::bit_dst(dst, "Compare")?;
        Vcmpv::strided(
            self.chip(),
            "Compare",
            mode,
            &dst,
            &src0.op,
            Some(&src1.op),
            None,
            repeat as i64,
            [p.src0_blk_stride as i64, p.src1_blk_stride as i64],
            [p.src0_rep_stride as i64, p.src1_rep_stride as i64],
        )?
        .execute(&mut self.core)
    }

    /// `CompareScalar<T, U, isSetMask>(dst, src0, src1Scalar, cmpMode, mask / mask[],
    /// repeatTime, UnaryRepeatParams)` (CompareScalar.md, both mask forms): as
    /// [`AscendC::CompareRepeat`] with a scalar for `src1`; `mask` is reserved there too.
    #[allow(clippy::too_many_arguments)]
    pub fn CompareScalarRepeat<T: Element + Into<Scalar>, U: Element, const IS_SET_MASK: bool>(
        &mut self,
        dst: &LocalTensor<U>,
        src0: &LocalTensor<T>,
        scalar: T,
        mode: CMPMODE,
        mask: impl Into<AscMask>,
        repeat: i32,
        p: UnaryRepeatParams,
    ) -> Result<()> {
        let _ignored = mask.into();
        let dst = Self::bit_dst(dst, "CompareScalar")?;
        let instr = Instr::ALL
            .iter()
            .copied()
            .find(|i| i.shape() == crate::isa::Shape::CmpBitsScalar && i.cmp_mode() == Some(mode))
            .unwrap_or(Instr::VcmpvsEq);
        instr.check_type("CompareScalar", self.chip().id, "src0", T::TYPE)?;
        Vcmpv::strided(
            self.chip(),
            "CompareScalar",
            mode,
            &dst,
            &src0.op,
            None,
            Some(scalar.into()),
            repeat as i64,
            [p.src_blk_stride as i64, 1],
            [p.src_rep_stride as i64, 0],
        )?
        .execute(&mut self.core)
    }
}

/// `SetAtomicAdd<T>()` on a core (both Ascend C faces): later moves into GM add elements of
/// `t` (types per chip: the SetAtomicAdd page).
pub fn set_atomic_add(core: &mut VectorCore, t: npusim_core::ElemType) -> Result<()> {
    use npusim_core::ElemType::*;
    let legal: &[npusim_core::ElemType] = match core.chip().id {
        ChipId::Ascend910 | ChipId::Ascend310 => &[F32],
        ChipId::Ascend310P => &[I16, F16, F32],
        ChipId::Ascend310B => &[I16, F16, I32, F32],
        ChipId::Ascend910B | ChipId::Ascend950 => &[I8, I16, F16, Bf16, I32, F32],
    };
    if !legal.contains(&t) {
        return Err(AscendError::IllegalType {
            instr: "SetAtomicAdd",
            param: "T",
            dtype: t,
            chip: core.chip().id,
            legal: legal
                .iter()
                .map(|t| t.cpp_name())
                .collect::<Vec<_>>()
                .join(", "),
        });
    }
    core.atomic = Some(t);
    Ok(())
}
