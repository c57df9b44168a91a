//! The TIK face: `tik.Tik()` kernels transcribed line by line.
//!
//! Names and parameter order follow TIK (`tik_instance.data_move(dst, src, sid, nburst, burst,
//! src_stride, dst_stride)`, `vector_dup(mask, dst, scalar, repeat_times, dst_blk_stride,
//! dst_rep_stride)`, `vec_cmpv_xx(dst, src0, src1, repeat_times, src0_rep_stride,
//! src1_rep_stride)`); tensors are declared in `scope_gm` or `scope_ubuf`. Each statement is
//! checked when it is written and recorded once; [`Tik::start_debug`] then runs the recorded
//! program on a fresh core with inputs fed by tensor name and returns the outputs by name, as
//! TIK's debugger (`tikdb.start_debug(feed_dict)`) does. Mask lists use TIK's `[mask_h, mask_l]`
//! order.

use crate::core::{Operand, VectorCore};
use crate::error::{AscendError, Result};
use crate::isa::{CastRound, Instr};
use crate::kernels::CmpMode;
use crate::mask::MaskArg;
use crate::ops::{DataMove, Op, PairReduceSum, Scalar, Vcmpv};
use crate::vector::{Face, VecArgs, VecOp};
use npusim_core::{ChipId, ChipProfile, ElemType, MemSpace, NpyArray};
use std::sync::Arc;

/// Where a TIK tensor lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// `tik.scope_gm`
    Gm,
    /// `tik.scope_ubuf`
    Ubuf,
}

/// TIK's mask argument: an int (continuous) or a list `[mask_h, mask_l]`, and the
/// instruction's `mask_mode` (`true` for `"counter"`: the int is the element count of the whole
/// instruction and `repeat_times` is ignored; ascend-vector.md §1.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TikMask(pub MaskArg, pub bool);

impl TikMask {
    /// `mask=count, mask_mode="counter"`.
    pub const fn counter(count: u64) -> TikMask {
        TikMask(MaskArg::Count(count), true)
    }

    /// The mask of an instruction that runs in normal mode only here: a counter-mode mask is a
    /// typed error on the chips that have counter mode (Atlas 200/300/500 and Atlas training
    /// treat counter mode as normal mode).
    fn normal(self, chip: &ChipProfile, instr: &'static str) -> Result<MaskArg> {
        if self.1 && chip.vector.counter_mode {
            return Err(AscendError::Rule {
                instr,
                param: "mask_mode",
                value: "counter".into(),
                rule: "counter mode is modelled for the element-wise instructions only",
            });
        }
        Ok(self.0)
    }
}

impl From<u64> for TikMask {
    fn from(n: u64) -> Self {
        TikMask(MaskArg::Count(n), false)
    }
}
impl From<i32> for TikMask {
    fn from(n: i32) -> Self {
        TikMask(MaskArg::Count(n.max(0) as u64), false)
    }
}
impl From<[u64; 2]> for TikMask {
    /// `[mask_h, mask_l]`, TIK's order.
    fn from(l: [u64; 2]) -> Self {
        TikMask(MaskArg::tik_list(l[0], l[1]), false)
    }
}

#[derive(Clone, Debug)]
struct Decl {
    op: Operand,
    shape: Vec<usize>,
}

/// The TIK methods of every element-wise row of the instruction table: `vec_*` (block stride
/// 1) and the legacy name with block strides.
macro_rules! tik_methods {
    ($( $id:ident, $shape:ident, $tik:ident, $legacy:ident, $asc:ident, $asc_rep:ident,
        $dom:ident($elem:ident), $doc:literal, $([$chips:expr => $types:expr]),+ $(=> widen $w:expr)? ; )*) => {
        impl Tik {
            $( tik_methods!(@m $shape, $id, $tik, $legacy); )*
        }
    };
    (@m Binary, $id:ident, $tik:ident, $legacy:ident) => { tik_methods!(@bin $id, $tik, $legacy); };
    (@m BinaryAcc, $id:ident, $tik:ident, $legacy:ident) => { tik_methods!(@bin $id, $tik, $legacy); };
    (@m Ternary, $id:ident, $tik:ident, $legacy:ident) => { tik_methods!(@bin $id, $tik, $legacy); };
    (@bin $id:ident, $tik:ident, $legacy:ident) => {
        #[doc = concat!("`", stringify!($tik), "(mask, dst, src0, src1, repeat_times, dst_rep_stride, src0_rep_stride, src1_rep_stride)`.")]
        #[allow(clippy::too_many_arguments)]
        pub fn $tik(&mut self, mask: impl Into<TikMask>, dst: &Operand, src0: &Operand, src1: &Operand,
                    repeat_times: i64, dst_rep_stride: i64, src0_rep_stride: i64, src1_rep_stride: i64) -> Result<()> {
            self.vector(Instr::$id, stringify!($tik), dst, &[src0, src1], None, CastRound::None, mask.into(),
                        repeat_times, [1, 1, 1], [dst_rep_stride, src0_rep_stride, src1_rep_stride])
        }
        #[doc = concat!("`", stringify!($legacy), "(mask, dst, src0, src1, repeat_times, dst_blk_stride, src0_blk_stride, src1_blk_stride, dst_rep_stride, src0_rep_stride, src1_rep_stride)`.")]
        #[allow(clippy::too_many_arguments)]
        pub fn $legacy(&mut self, mask: impl Into<TikMask>, dst: &Operand, src0: &Operand, src1: &Operand,
                       repeat_times: i64, dst_blk_stride: i64, src0_blk_stride: i64, src1_blk_stride: i64,
                       dst_rep_stride: i64, src0_rep_stride: i64, src1_rep_stride: i64) -> Result<()> {
            self.vector(Instr::$id, stringify!($legacy), dst, &[src0, src1], None, CastRound::None, mask.into(),
                        repeat_times, [dst_blk_stride, src0_blk_stride, src1_blk_stride],
                        [dst_rep_stride, src0_rep_stride, src1_rep_stride])
        }
    };
    (@m Unary, $id:ident, $tik:ident, $legacy:ident) => {
        #[doc = concat!("`", stringify!($tik), "(mask, dst, src, repeat_times, dst_rep_stride, src_rep_stride)`.")]
        #[allow(clippy::too_many_arguments)]
        pub fn $tik(&mut self, mask: impl Into<TikMask>, dst: &Operand, src: &Operand,
                    repeat_times: i64, dst_rep_stride: i64, src_rep_stride: i64) -> Result<()> {
            self.vector(Instr::$id, stringify!($tik), dst, &[src], None, CastRound::None, mask.into(),
                        repeat_times, [1, 1, 1], [dst_rep_stride, src_rep_stride, 0])
        }
        #[doc = concat!("`", stringify!($legacy), "(mask, dst, src, repeat_times, dst_blk_stride, src_blk_stride, dst_rep_stride, src_rep_stride)`.")]
        #[allow(clippy::too_many_arguments)]
        pub fn $legacy(&mut self, mask: impl Into<TikMask>, dst: &Operand, src: &Operand, repeat_times: i64,
                       dst_blk_stride: i64, src_blk_stride: i64, dst_rep_stride: i64, src_rep_stride: i64) -> Result<()> {
            self.vector(Instr::$id, stringify!($legacy), dst, &[src], None, CastRound::None, mask.into(),
                        repeat_times, [dst_blk_stride, src_blk_stride, 1], [dst_rep_stride, src_rep_stride, 0])
        }
    };
    (@m Scalar, $id:ident, $tik:ident, $legacy:ident) => { tik_methods!(@sc $id, $tik, $legacy); };
    (@m ScalarDst, $id:ident, $tik:ident, $legacy:ident) => { tik_methods!(@sc $id, $tik, $legacy); };
    (@sc $id:ident, $tik:ident, $legacy:ident) => {
        #[doc = concat!("`", stringify!($tik), "(mask, dst, src, scalar, repeat_times, dst_rep_stride, src_rep_stride)`.")]
        #[allow(clippy::too_many_arguments)]
        pub fn $tik(&mut self, mask: impl Into<TikMask>, dst: &Operand, src: &Operand, scalar: impl Into<Scalar>,
                    repeat_times: i64, dst_rep_stride: i64, src_rep_stride: i64) -> Result<()> {
            self.vector(Instr::$id, stringify!($tik), dst, &[src], Some(scalar.into()), CastRound::None, mask.into(),
                        repeat_times, [1, 1, 1], [dst_rep_stride, src_rep_stride, 0])
        }
        #[doc = concat!("`", stringify!($legacy), "(mask, dst, src, scalar, repeat_times, dst_blk_stride, src_blk_stride, dst_rep_stride, src_rep_stride)`.")]
        #[allow(clippy::too_many_arguments)]
        pub fn $legacy(&mut self, mask: impl Into<TikMask>, dst: &Operand, src: &Operand, scalar: impl Into<Scalar>,
                       repeat_times: i64, dst_blk_stride: i64, src_blk_stride: i64, dst_rep_stride: i64,
                       src_rep_stride: i64) -> Result<()> {
            self.vector(Instr::$id, stringify!($legacy), dst, &[src], Some(scalar.into()), CastRound::None, mask.into(),
                        repeat_times, [dst_blk_stride, src_blk_stride, 1], [dst_rep_stride, src_rep_stride, 0])
        }
    };
    (@m Convert, $id:ident, $tik:ident, $legacy:ident) => {
        #[doc = concat!("`", stringify!($tik), "(mask, round_mode, dst, src, repeat_times, dst_rep_stride, src_rep_stride)`; `round_mode` is a TIK string (`''`, `none`, `round`, `floor`, `ceil`, `away-zero`, `to-zero`, `odd`).")]
        #[allow(clippy::too_many_arguments)]
        pub fn $tik(&mut self, mask: impl Into<TikMask>, round_mode: &str, dst: &Operand, src: &Operand,
                    repeat_times: i64, dst_rep_stride: i64, src_rep_stride: i64) -> Result<()> {
            let round = tik_round(stringify!($tik), round_mode)?;
            self.vector(Instr::$id, stringify!($tik), dst, &[src], None, round, mask.into(),
                        repeat_times, [1, 1, 1], [dst_rep_stride, src_rep_stride, 0])
        }
        #[doc = concat!("`", stringify!($legacy), "(mask, round_mode, dst, src, repeat_times, dst_blk_stride, src_blk_stride, dst_rep_stride, src_rep_stride)`.")]
        #[allow(clippy::too_many_arguments)]
        pub fn $legacy(&mut self, mask: impl Into<TikMask>, round_mode: &str, dst: &Operand, src: &Operand,
                       repeat_times: i64, dst_blk_stride: i64, src_blk_stride: i64, dst_rep_stride: i64,
                       src_rep_stride: i64) -> Result<()> {
            let round = tik_round(stringify!($legacy), round_mode)?;
            self.vector(Instr::$id, stringify!($legacy), dst, &[src], None, round, mask.into(),
                        repeat_times, [dst_blk_stride, src_blk_stride, 1], [dst_rep_stride, src_rep_stride, 0])
        }
    };
    (@m Dup, $id:ident, $tik:ident, $legacy:ident) => {
        #[doc = concat!("`", stringify!($tik), "(mask, dst, scalar, repeat_times, dst_rep_stride)`: block stride 1.")]
        pub fn $tik(&mut self, mask: impl Into<TikMask>, dst: &Operand, scalar: impl Into<Scalar>,
                    repeat_times: i64, dst_rep_stride: i64) -> Result<()> {
            self.vector(Instr::$id, stringify!($tik), dst, &[], Some(scalar.into()), CastRound::None, mask.into(),
                        repeat_times, [1, 1, 1], [dst_rep_stride, 0, 0])
        }
        #[doc = concat!("`", stringify!($legacy), "(mask, dst, scalar, repeat_times, dst_blk_stride, dst_rep_stride)`.")]
        pub fn $legacy(&mut self, mask: impl Into<TikMask>, dst: &Operand, scalar: impl Into<Scalar>,
                       repeat_times: i64, dst_blk_stride: i64, dst_rep_stride: i64) -> Result<()> {
            self.vector(Instr::$id, stringify!($legacy), dst, &[], Some(scalar.into()), CastRound::None, mask.into(),
                        repeat_times, [dst_blk_stride, 1, 1], [dst_rep_stride, 0, 0])
        }
    };
    (@m CmpBits, $id:ident, $tik:ident, $legacy:ident) => {
        #[doc = concat!("`", stringify!($tik), "(dst, src0, src1, repeat_times, src0_rep_stride, src1_rep_stride)`: no mask, one bit per lane.")]
        pub fn $tik(&mut self, dst: &Operand, src0: &Operand, src1: &Operand, repeat_times: i64,
                    src0_rep_stride: i64, src1_rep_stride: i64) -> Result<()> {
            self.cmp(Instr::$id, stringify!($tik), dst, src0, Some(src1), None, repeat_times, [1, 1], [src0_rep_stride, src1_rep_stride])
        }
        #[doc = concat!("`", stringify!($legacy), "(dst, src0, src1, repeat_times, src0_blk_stride, src1_blk_stride, src0_rep_stride, src1_rep_stride)`.")]
        #[allow(clippy::too_many_arguments)]
        pub fn $legacy(&mut self, dst: &Operand, src0: &Operand, src1: &Operand, repeat_times: i64,
                       src0_blk_stride: i64, src1_blk_stride: i64, src0_rep_stride: i64, src1_rep_stride: i64) -> Result<()> {
            self.cmp(Instr::$id, stringify!($legacy), dst, src0, Some(src1), None, repeat_times,
                     [src0_blk_stride, src1_blk_stride], [src0_rep_stride, src1_rep_stride])
        }
    };
    (@m CmpBitsScalar, $id:ident, $tik:ident, $legacy:ident) => {
        #[doc = concat!("`", stringify!($tik), "(dst, src, scalar, repeat_times, src_blk_stride, src_rep_stride)`: no mask, one bit per lane.")]
        #[allow(clippy::too_many_arguments)]
        pub fn $tik(&mut self, dst: &Operand, src: &Operand, scalar: impl Into<Scalar>, repeat_times: i64,
                    src_blk_stride: i64, src_rep_stride: i64) -> Result<()> {
            self.cmp(Instr::$id, stringify!($tik), dst, src, None, Some(scalar.into()), repeat_times,
                     [src_blk_stride, 1], [src_rep_stride, 0])
        }
    };
    (@m Select, $id:ident, $tik:ident, $legacy:ident) => {
        #[doc = concat!("`", stringify!($tik), "(mask, mode, dst, sel, src0, src1, repeat_times, dst_rep_stride, src0_rep_stride, src1_rep_stride)`; src1 a tensor (modes 0, 2) or a scalar (mode 1).")]
        #[allow(clippy::too_many_arguments)]
        pub fn $tik<'s>(&mut self, mask: impl Into<TikMask>, mode: i64, dst: &Operand, sel: &Operand, src0: &Operand,
                    src1: impl Into<crate::select::Src1<'s>>, repeat_times: i64, dst_rep_stride: i64,
                    src0_rep_stride: i64, src1_rep_stride: i64) -> Result<()> {
            let op = crate::select::SelectOp::new(self.chip, stringify!($tik), mode, dst, sel, src0, src1.into(), mask.into().normal(self.chip, stringify!($tik))?, true,
                repeat_times, [1, 1, 1], [dst_rep_stride, src0_rep_stride, src1_rep_stride])?;
            self.program.push(Op::Select(op));
            Ok(())
        }
        #[doc = concat!("`", stringify!($legacy), "(mask, mode, dst, sel, src0, src1, repeat_times, dst_blk_stride, src0_blk_stride, src1_blk_stride, dst_rep_stride, src0_rep_stride, src1_rep_stride)`.")]
        #[allow(clippy::too_many_arguments)]
        pub fn $legacy<'s>(&mut self, mask: impl Into<TikMask>, mode: i64, dst: &Operand, sel: &Operand, src0: &Operand,
                    src1: impl Into<crate::select::Src1<'s>>, repeat_times: i64, dst_blk_stride: i64, src0_blk_stride: i64,
                    src1_blk_stride: i64, dst_rep_stride: i64, src0_rep_stride: i64, src1_rep_stride: i64) -> Result<()> {
            let op = crate::select::SelectOp::new(self.chip, stringify!($legacy), mode, dst, sel, src0, src1.into(), mask.into().normal(self.chip, stringify!($legacy))?, true,
                repeat_times, [dst_blk_stride, src0_blk_stride, src1_blk_stride], [dst_rep_stride, src0_rep_stride, src1_rep_stride])?;
            self.program.push(Op::Select(op));
            Ok(())
        }
    };
    (@m ReduceAll, ReduceSum, $tik:ident, $legacy:ident) => {
        #[doc = concat!("`", stringify!($tik), "(mask, dst, src, work_tensor, repeat_times, src_rep_stride)`: the sum of `repeat_times` repeats of `mask` lanes (masked-off lanes as 0) in the chip's order (`reduce::RepeatOrder::tik`); rules in `reduce::tik_reduce_all`.")]
        #[allow(clippy::too_many_arguments)]
        pub fn $tik(&mut self, mask: impl Into<TikMask>, dst: &Operand, src: &Operand, work_tensor: &Operand, repeat_times: i64, src_rep_stride: i64) -> Result<()> {
            let name = stringify!($tik);
            let mask = mask.into().normal(self.chip, name)?;
            let op = crate::reduce::tik_reduce_all(self.chip, Instr::ReduceSum, name, mask, dst, src, work_tensor, repeat_times, src_rep_stride, false)?;
            self.program.push(op);
            Ok(())
        }
    };
    (@m ReduceAll, $id:ident, $tik:ident, $legacy:ident) => {
        #[doc = concat!("`", stringify!($tik), "(mask, dst, src, work_tensor, repeat_times, src_rep_stride, cal_index)`: the max/min of `repeat_times` repeats of `mask` lanes; `dst = [value, index]` with `cal_index` (the index as raw integer bits in the type, counted in repeat order, ties to the lowest), `dst = [value]` without (TIK's default); rules in `reduce::tik_reduce_all`.")]
        #[allow(clippy::too_many_arguments)]
        pub fn $tik(&mut self, mask: impl Into<TikMask>, dst: &Operand, src: &Operand, work_tensor: &Operand, repeat_times: i64, src_rep_stride: i64, cal_index: bool) -> Result<()> {
            let name = stringify!($tik);
            let mask = mask.into().normal(self.chip, name)?;
            let op = crate::reduce::tik_reduce_all(self.chip, Instr::$id, name, mask, dst, src, work_tensor, repeat_times, src_rep_stride, cal_index)?;
            self.program.push(op);
            Ok(())
        }
    };
    (@m GatherMask, $id:ident, $tik:ident, $legacy:ident) => {
        #[doc = concat!("`", stringify!($tik), "(mask, dst, src0, src1_pattern, repeat_times, src0_blk_stride, src0_rep_stride, src1_rep_stride)` with a built-in pattern (1..=7) in normal mode; the kept count is not returned (no TIK Scalar here).")]
        #[allow(clippy::too_many_arguments)]
        pub fn $tik(&mut self, _mask: u64, dst: &Operand, src0: &Operand, src1_pattern: u8, repeat_times: i64,
                    src0_blk_stride: i64, src0_rep_stride: i64, src1_rep_stride: i64) -> Result<()> {
            Instr::$id.check_type(stringify!($tik), self.chip.id, "dst", dst.dtype)?;
            self.program.push(Op::GatherMask(dst.clone(), src0.clone(), src1_pattern,
                [src0_blk_stride, repeat_times, src0_rep_stride, src1_rep_stride]));
            Ok(())
        }
    };
    (@m Gather, $id:ident, $tik:ident, $legacy:ident) => {
        #[doc = concat!("`", stringify!($tik), "(dst, src, src_offset, src_base_addr, count)`: gather by byte offsets (uint32).")]
        pub fn $tik(&mut self, dst: &Operand, src: &Operand, src_offset: &Operand, src_base_addr: u32, count: i64) -> Result<()> {
            Instr::$id.check_type(stringify!($tik), self.chip.id, "dst", dst.dtype)?;
            self.program.push(Op::Gather(dst.clone(), src.clone(), src_offset.clone(), src_base_addr, count));
            Ok(())
        }
    };
    (@m GatherBlock, $id:ident, $tik:ident, $legacy:ident) => {
        #[doc = concat!("`", stringify!($tik), "(dst, src, offset, repeat_times, dst_blk_stride, dst_rep_stride)`: 8 blocks of 32 bytes per repeat from `src + offset[k]` (uint32 byte offsets).")]
        #[allow(clippy::too_many_arguments)]
        pub fn $tik(&mut self, dst: &Operand, src: &Operand, offset: &Operand, repeat_times: i64, dst_blk_stride: i64,
                    dst_rep_stride: i64) -> Result<()> {
            Instr::$id.check_type(stringify!($tik), self.chip.id, "dst", dst.dtype)?;
            self.program.push(Op::Gatherb(dst.clone(), src.clone(), offset.clone(), repeat_times, dst_blk_stride, dst_rep_stride));
            Ok(())
        }
    };
    (@m Bilinear, $id:ident, $tik:ident, $legacy:ident) => {
        #[doc = concat!("`", stringify!($tik), "(mask, dst, src0, src1, src0_offset, dst_blk_stride, vertical_repeat_times, horizontal_repeat_times, repeat_mode, vertical_repeat_offset)`: bilinear interpolation ([`crate::bilinear`]); the mask is the per-repeat (normal) mask.")]
        #[allow(clippy::too_many_arguments)]
        pub fn $tik(&mut self, mask: impl Into<TikMask>, dst: &Operand, src0: &Operand, src1: &Operand, src0_offset: &Operand,
                    dst_blk_stride: i64, vertical_repeat_times: i64, horizontal_repeat_times: i64, repeat_mode: bool,
                    vertical_repeat_offset: i64) -> Result<()> {
            Instr::$id.check_type(stringify!($tik), self.chip.id, "dst", dst.dtype)?;
            self.program.push(Op::Bilinear(Box::new(crate::bilinear::Bilinear {
                dst: dst.clone(), src0: src0.clone(), src0_offset: src0_offset.clone(), src1: src1.clone(),
                mask: mask.into().0, h_repeat: horizontal_repeat_times, repeat_mode, dst_blk_stride,
                v_r_offset: vertical_repeat_offset, v_repeat: vertical_repeat_times, tmp: None,
            })));
            Ok(())
        }
    };
    (@m Transpose, $id:ident, $tik:ident, $legacy:ident) => {
        #[doc = concat!("`", stringify!($tik), "(dst, src, repeat_times, dst_rep_stride, src_rep_stride)`: 16×16 transpose per repeat, strides in 512 bytes.")]
        pub fn $tik(&mut self, dst: &Operand, src: &Operand, repeat_times: i64, dst_rep_stride: i64, src_rep_stride: i64) -> Result<()> {
            Instr::$id.check_type(stringify!($tik), self.chip.id, "dst", dst.dtype)?;
            self.program.push(Op::Transpose(dst.clone(), src.clone(), repeat_times, dst_rep_stride, src_rep_stride));
            Ok(())
        }
    };
    (@m Brcb, $id:ident, $tik:ident, $legacy:ident) => {
        #[doc = concat!("`", stringify!($tik), "(dst, src, repeat_times, dst_blk_stride, dst_rep_stride)`: each of 8 source elements per repeat fills a 32-byte block.")]
        pub fn $tik(&mut self, dst: &Operand, src: &Operand, repeat_times: i64, dst_blk_stride: i64, dst_rep_stride: i64) -> Result<()> {
            let op = crate::misc::BrcbOp::new(self.chip, stringify!($tik), dst, src, repeat_times, dst_blk_stride, dst_rep_stride)?;
            self.program.push(Op::Brcb(op));
            Ok(())
        }
    };
    (@m Index, $id:ident, $tik:ident, $legacy:ident) => {
        #[doc = concat!("`", stringify!($tik), "(dst, first_value, count)`: `dst[i] = first_value + i`.")]
        pub fn $tik(&mut self, dst: &Operand, first_value: impl Into<Scalar>, count: i64) -> Result<()> {
            Instr::$id.check_type(stringify!($tik), self.chip.id, "dst", dst.dtype)?;
            self.program.push(Op::Index(dst.clone(), first_value.into(), count));
            Ok(())
        }
    };
    (@m CmpMask, $id:ident, $tik:ident, $legacy:ident) => {
        #[doc = concat!("`", stringify!($tik), "(mask, src0, src1, src0_stride, src1_stride)`: one repeat into CMPMASK.")]
        pub fn $tik(&mut self, mask: impl Into<TikMask>, src0: &Operand, src1: &Operand, src0_stride: i64, src1_stride: i64) -> Result<()> {
            let mode = Instr::$id.cmp_mode().unwrap_or(crate::kernels::CmpMode::Eq);
            let op = crate::misc::CmpMaskOp::new(self.chip, stringify!($tik), mode, src0, src1, mask.into().normal(self.chip, stringify!($tik))?, src0_stride, src1_stride)?;
            self.program.push(Op::CmpMask(op));
            Ok(())
        }
    };
    (@m AddrListTranspose, $id:ident, $tik:ident, $legacy:ident) => {
        tik_methods!(@nchw $id, $tik);
        tik_methods!(@nchw $id, $legacy);
    };
    (@nchw $id:ident, $name:ident) => {
        #[doc = concat!("`", stringify!($name), "(dst_high_half, src_high_half, dst_list, src_list, repeat_times, dst_rep_stride, src_rep_stride)`: 16 block addresses each side.")]
        #[allow(clippy::too_many_arguments)]
        pub fn $name(&mut self, dst_high_half: bool, src_high_half: bool, dst_list: [&Operand; 16], src_list: [&Operand; 16],
                    repeat_times: i64, dst_rep_stride: i64, src_rep_stride: i64) -> Result<()> {
            let params = crate::nchwconv::TransDataTo5HDParams { dst_high_half, src_high_half, repeat_times, dst_rep_stride, src_rep_stride };
            let op = crate::nchwconv::TransOp::new(self.chip, stringify!($name), &dst_list, &src_list, params)?;
            self.program.push(Op::Trans5Hd(op));
            Ok(())
        }
    };
    (@m ProposalField, $id:ident, $tik:ident, $legacy:ident) => {
        #[doc = concat!("`", stringify!($tik), "(dst, src, repeat_times, mode_number)`: 16 elements per repeat and one field of 16 region proposals.")]
        pub fn $tik(&mut self, dst: &Operand, src: &Operand, repeat_times: i64, mode_number: i64) -> Result<()> {
            Instr::$id.check_type(stringify!($tik), self.chip.id, "src", src.dtype)?;
            self.program.push(Op::Proposal(Instr::$id, dst.clone(), src.clone(), repeat_times, mode_number));
            Ok(())
        }
    };
    (@m ProposalSort, $id:ident, $tik:ident, $legacy:ident) => {
        #[doc = concat!("`", stringify!($tik), "(dst, src, repeat_times)`: 16 region proposals sorted by score per repeat.")]
        pub fn $tik(&mut self, dst: &Operand, src: &Operand, repeat_times: i64) -> Result<()> {
            Instr::$id.check_type(stringify!($tik), self.chip.id, "src", src.dtype)?;
            self.program.push(Op::RpSort16(dst.clone(), src.clone(), repeat_times));
            Ok(())
        }
    };
    (@m ProposalPair, $id:ident, $tik:ident, $legacy:ident) => {
        #[doc = concat!("`", stringify!($tik), "(dst, src0, src1, repeat_times)`: 16 x 16 results per repeat (row: src0 proposal, column: src1 proposal; see [`crate::sort`]).")]
        pub fn $tik(&mut self, dst: &Operand, src0: &Operand, src1: &Operand, repeat_times: i64) -> Result<()> {
            Instr::$id.check_type(stringify!($tik), self.chip.id, "dst", dst.dtype)?;
            self.program.push(Op::ProposalPair(Instr::$id, dst.clone(), src0.clone(), src1.clone(), repeat_times));
            Ok(())
        }
    };
    (@m Trans4d, $id:ident, $tik:ident, $legacy:ident) => {
        #[doc = concat!("`", stringify!($tik), "(chw2hwc, dst, src, m_len, channels)`: CHW <-> HWC transpose of one image ([`crate::trans4d`]).")]
        pub fn $tik(&mut self, chw2hwc: bool, dst: &Operand, src: &Operand, m_len: i64, channels: i64) -> Result<()> {
            Instr::$id.check_type(stringify!($tik), self.chip.id, "src", src.dtype)?;
            self.program.push(Op::Trans4d(chw2hwc, dst.clone(), src.clone(), m_len, channels));
            Ok(())
        }
    };
    (@m Sort32, $id:ident, $tik:ident, $legacy:ident) => {
        #[doc = concat!("`", stringify!($tik), "(dst, src0, src1, repeat_times)`: 32 scores per repeat sorted descending into (score, uint32 index) entries.")]
        pub fn $tik(&mut self, dst: &Operand, src0: &Operand, src1: &Operand, repeat_times: i64) -> Result<()> {
            Instr::$id.check_type(stringify!($tik), self.chip.id, "src0", src0.dtype)?;
            self.program.push(Op::Sort32(dst.clone(), src0.clone(), src1.clone(), repeat_times));
            Ok(())
        }
    };
    (@m MrgSort, $id:ident, $tik:ident, $legacy:ident) => {
        #[doc = concat!("`", stringify!($tik), "(dst, src_list, element_count_list, if_exhausted_suspension, valid_bit, repeat_times)`: merges up to 4 sorted lists (the Ascend C MrgSort4Info fields); the consumed counts are left for GetMrgSortResult.")]
        #[allow(clippy::too_many_arguments)]
        pub fn $tik(&mut self, dst: &Operand, src_list: [&Operand; 4], element_count_list: [u16; 4],
                    if_exhausted_suspension: bool, valid_bit: u16, repeat_times: u16) -> Result<()> {
            Instr::$id.check_type(stringify!($tik), self.chip.id, "dst", dst.dtype)?;
            let p = crate::sort::MrgSort4Info {
                element_lengths: element_count_list,
                if_exhausted_suspension,
                valid_bit,
                repeat_times,
            };
            self.program.push(Op::MrgSort(Instr::$id, dst.clone(), Box::new(src_list.map(|o| o.clone())), p));
            Ok(())
        }
    };
    (@m WholeReduce, $id:ident, $tik:ident, $legacy:ident) => { tik_methods!(@red $id, $tik); };
    (@m BlockReduce, $id:ident, $tik:ident, $legacy:ident) => { tik_methods!(@red $id, $tik); };
    (@red $id:ident, $tik:ident) => {
        #[doc = concat!("`", stringify!($tik), "(mask, dst, src, repeat_times, dst_rep_stride, src_blk_stride, src_rep_stride)`.")]
        #[allow(clippy::too_many_arguments)]
        pub fn $tik(&mut self, mask: impl Into<TikMask>, dst: &Operand, src: &Operand, repeat_times: i64,
                    dst_rep_stride: i64, src_blk_stride: i64, src_rep_stride: i64) -> Result<()> {
            let op = crate::reduce::ReduceOp::new(self.chip, Instr::$id, stringify!($tik), dst, src, mask.into().normal(self.chip, stringify!($tik))?, true,
                repeat_times, dst_rep_stride, src_blk_stride, src_rep_stride)?;
            self.program.push(Op::Reduce(op));
            Ok(())
        }
    };
    (@m $other:ident, $id:ident, $tik:ident, $legacy:ident) => {};
}

crate::for_each_vector_instr!(tik_methods);

fn tik_round(instr: &'static str, mode: &str) -> Result<CastRound> {
    CastRound::parse(mode).ok_or_else(|| AscendError::Rule {
        instr,
        param: "round_mode",
        value: mode.to_string(),
        rule: "not a TIK round mode ('', none, round, floor, ceil, ceiling, away-zero, to-zero, odd)",
    })
}

/// A TIK kernel under construction (`tik.Tik()`), and its debugger.
#[derive(Clone, Debug)]
pub struct Tik {
    chip: &'static ChipProfile,
    decls: Vec<Decl>,
    ub_used: u64,
    gm_used: u64,
    program: Vec<Op>,
    inputs: Option<Vec<Arc<str>>>,
    outputs: Option<Vec<Arc<str>>>,
}

impl Tik {
    /// `tik.Tik()` for a chip.
    pub fn new(chip: ChipId) -> Tik {
        Tik {
            chip: ChipProfile::get(chip),
            decls: Vec::new(),
            ub_used: 0,
            gm_used: 0,
            program: Vec::new(),
            inputs: None,
            outputs: None,
        }
    }

    /// The chip this kernel targets.
    pub fn chip(&self) -> &'static ChipProfile {
        self.chip
    }

    /// `tik_instance.Tensor(dtype, shape, name=..., scope=...)`; `dtype` is a TIK name such as
    /// `"float16"`. Tensors are placed 32-byte aligned, one after another.
    pub fn tensor(
        &mut self,
        dtype: &str,
        shape: &[usize],
        name: &str,
        scope: Scope,
    ) -> Result<Operand> {
        let dtype = ElemType::parse(dtype).ok_or_else(|| AscendError::Rule {
            instr: "Tensor",
            param: "dtype",
            value: dtype.to_string(),
            rule: "not a TIK element type",
        })?;
        if self.decls.iter().any(|d| &*d.op.tensor == name) {
            return Err(AscendError::DuplicateTensor(name.to_string()));
        }
        let bytes = shape.iter().product::<usize>() as u64 * dtype.size() as u64;
        let (space, used) = match scope {
            Scope::Gm => (MemSpace::Gm, &mut self.gm_used),
            Scope::Ubuf => (MemSpace::Ub, &mut self.ub_used),
        };
        let base = used.div_ceil(32) * 32;
        if space == MemSpace::Ub {
            let cap = self.chip.capacity(MemSpace::Ub).unwrap_or(0) as u64;
            if base + bytes > cap {
                return Err(AscendError::OutOfMemory {
                    tensor: name.to_string(),
                    space,
                    bytes,
                    used: base,
                    capacity: cap,
                });
            }
        }
        *used = base + bytes;
        let op = Operand {
            tensor: name.into(),
            space,
            dtype,
            tensor_base: base,
            tensor_bytes: bytes,
            offset: 0,
        };
        self.decls.push(Decl {
            op: op.clone(),
            shape: shape.to_vec(),
        });
        Ok(op)
    }

    /// `data_move(dst, src, sid, nburst, burst, src_stride, dst_stride)`.
    #[allow(clippy::too_many_arguments)]
    pub fn data_move(
        &mut self,
        dst: &Operand,
        src: &Operand,
        sid: i64,
        nburst: i64,
        burst: i64,
        src_stride: i64,
        dst_stride: i64,
    ) -> Result<()> {
        let s = DataMove::new(
            self.chip,
            "data_move",
            dst,
            src,
            sid,
            nburst,
            burst,
            src_stride,
            dst_stride,
        )?;
        self.program.push(Op::Move(s));
        Ok(())
    }

    /// Checks and records one element-wise instruction (every generated method lands here).
    #[allow(clippy::too_many_arguments)]
    pub fn vector(
        &mut self,
        instr: Instr,
        name: &'static str,
        dst: &Operand,
        srcs: &[&Operand],
        scalar: Option<Scalar>,
        round: CastRound,
        mask: TikMask,
        repeat_times: i64,
        blk: [i64; 3],
        rep: [i64; 3],
    ) -> Result<()> {
        // Counter mode (on the chips that have it): the mask is the element count, the
        // repeat count is ignored (checked with one full repeat).
        let counter = match mask {
            TikMask(MaskArg::Count(n), true) if self.chip.vector.counter_mode => Some(n),
            TikMask(other, true) if self.chip.vector.counter_mode => {
                return Err(AscendError::BadMask {
                    instr: name,
                    value: format!("{other:?}"),
                    rule: "in counter mode the mask is an element count (an int)",
                });
            }
            _ => None,
        };
        let op = VecOp::new(
            self.chip,
            &VecArgs {
                instr,
                name,
                face: Face::Tik,
                dst,
                srcs,
                scalar,
                round,
                mask: if counter.is_some() {
                    MaskArg::Count(1)
                } else {
                    mask.0
                },
                is_set_mask: true,
                repeat: if counter.is_some() { 1 } else { repeat_times },
                blk,
                rep,
                blk_max: 255,
            },
        )?;
        let op = match counter {
            Some(n) => op.into_counter(n as i64)?,
            None => op,
        };
        self.program.push(Op::Vector(op));
        Ok(())
    }

    /// `vec_cpadd(mask, dst, src, repeat_times, dst_rep_stride, src_rep_stride)`: pair-add.
    /// TIK treats dst_rep_stride 0 as 1 on the chips that do not support 0.
    pub fn vec_cpadd(
        &mut self,
        mask: impl Into<TikMask>,
        dst: &Operand,
        src: &Operand,
        repeat_times: i64,
        dst_rep_stride: i64,
        src_rep_stride: i64,
    ) -> Result<()> {
        let dst_rep = if dst_rep_stride == 0 && !self.chip.vector.pair_reduce_dst_rep_stride_zero {
            1
        } else {
            dst_rep_stride
        };
        let s = PairReduceSum::new(
            self.chip,
            dst,
            src,
            repeat_times,
            mask.into().normal(self.chip, "vec_cpadd")?,
            true,
            dst_rep,
            1,
            src_rep_stride,
        )?;
        self.program.push(Op::PairReduce(s));
        Ok(())
    }

    /// `vec_cmpv_xx` for any comparison.
    #[allow(clippy::too_many_arguments)]
    pub fn vec_cmpv(
        &mut self,
        mode: CmpMode,
        dst: &Operand,
        src0: &Operand,
        src1: &Operand,
        repeat_times: i64,
        src0_rep_stride: i64,
        src1_rep_stride: i64,
    ) -> Result<()> {
        let s = Vcmpv::new(
            self.chip,
            mode,
            dst,
            src0,
            src1,
            repeat_times,
            src0_rep_stride,
            src1_rep_stride,
        )?;
        self.program.push(Op::Cmpv(s));
        Ok(())
    }

    /// Checks and records one compare-to-bits instruction.
    #[allow(clippy::too_many_arguments)]
    fn cmp(
        &mut self,
        instr: Instr,
        name: &'static str,
        dst: &Operand,
        src0: &Operand,
        src1: Option<&Operand>,
        scalar: Option<Scalar>,
        repeat_times: i64,
        blk: [i64; 2],
        rep: [i64; 2],
    ) -> Result<()> {
        let mode = instr.cmp_mode().ok_or(AscendError::NotSupported {
            instr: name,
            chip: self.chip.id,
        })?;
        instr.check_type(name, self.chip.id, "src0", src0.dtype)?;
        let s = Vcmpv::strided(
            self.chip,
            name,
            mode,
            dst,
            src0,
            src1,
            scalar,
            repeat_times,
            blk,
            rep,
        )?;
        self.program.push(Op::Cmpv(s));
        Ok(())
    }

    /// `mov_tensor_to_cmpmask(src)`: CMPMASK = 128 bits of `src`.
    pub fn mov_tensor_to_cmpmask(&mut self, src: &Operand) -> Result<()> {
        crate::misc::cmp_mask_operand(self.chip, "mov_tensor_to_cmpmask", "src", src)?;
        self.program.push(Op::MovCmpMask(src.clone(), true));
        Ok(())
    }

    /// `mov_cmpmask_to_tensor(dst)`: 128 bits of CMPMASK into `dst`.
    pub fn mov_cmpmask_to_tensor(&mut self, dst: &Operand) -> Result<()> {
        crate::misc::cmp_mask_operand(self.chip, "mov_cmpmask_to_tensor", "dst", dst)?;
        self.program.push(Op::MovCmpMask(dst.clone(), false));
        Ok(())
    }

    /// `set_rpn_offset(number)`: the offset `viou` adds to each intersection side (refused on
    /// Ascend 310; [-65504, 65504]; see [`crate::sort`]).
    pub fn set_rpn_offset(&mut self, number: f64) -> Result<()> {
        crate::sort::rpn_offset_value(self.chip.id, "set_rpn_offset", number)?;
        self.program.push(Op::RpnOffset(number));
        Ok(())
    }

    /// `set_atomic_add(mode)`: 0 none, 1 float32, 2 float16 accumulation of later moves into GM.
    pub fn set_atomic_add(&mut self, mode: i64) -> Result<()> {
        let t = match mode {
            0 => None,
            1 => Some(ElemType::F32),
            2 => Some(ElemType::F16),
            _ => {
                return Err(AscendError::OutOfRange {
                    instr: "set_atomic_add",
                    param: "mode",
                    value: mode,
                    range: "0 (none), 1 (float32), 2 (float16)",
                });
            }
        };
        self.program.push(Op::Atomic(t));
        Ok(())
    }

    /// `data_move_pad(dst, src, nburst, burst, dst_gap, src_gap, right_padding, left_padding,
    /// padding_value)`: `burst` in bytes; gaps in bytes on the GM side and 32-byte blocks on
    /// the UB side (DataCopyPad's rules).
    #[allow(clippy::too_many_arguments)]
    pub fn data_move_pad(
        &mut self,
        dst: &Operand,
        src: &Operand,
        nburst: i64,
        burst: i64,
        dst_gap: i64,
        src_gap: i64,
        right_padding: i64,
        left_padding: i64,
        padding_value: Option<Scalar>,
    ) -> Result<()> {
        let op = crate::pad::MovePad::new(
            self.chip,
            "data_move_pad",
            dst,
            src,
            nburst,
            burst,
            src_gap,
            dst_gap,
            left_padding,
            right_padding,
            padding_value,
            false,
        )?;
        self.program.push(Op::MovePad(op));
        Ok(())
    }

    /// `BuildCCE(kernel_name, inputs, outputs)`: fixes which GM tensors are fed and fetched.
    pub fn build_cce(
        &mut self,
        _kernel_name: &str,
        inputs: &[&Operand],
        outputs: &[&Operand],
    ) -> Result<()> {
        for t in inputs.iter().chain(outputs) {
            if t.space != MemSpace::Gm {
                return Err(AscendError::WrongScope {
                    instr: "BuildCCE",
                    param: "inputs/outputs",
                    tensor: t.tensor.to_string(),
                    got: t.space,
                    want: "GM",
                });
            }
        }
        self.inputs = Some(inputs.iter().map(|t| t.tensor.clone()).collect());
        self.outputs = Some(outputs.iter().map(|t| t.tensor.clone()).collect());
        Ok(())
    }

    fn decl(&self, name: &str) -> Result<&Decl> {
        self.decls
            .iter()
            .find(|d| &*d.op.tensor == name)
            .ok_or_else(|| AscendError::UnknownTensor(name.to_string()))
    }

    /// Runs the kernel (`tikdb.start_debug(feed_dict)`): writes each fed array into its GM
    /// tensor, executes every statement in order, and returns the output tensors (those named
    /// in [`Tik::build_cce`], or every GM tensor) with their declared shapes.
    pub fn start_debug(&self, feed: &[(&str, &NpyArray)]) -> Result<Vec<(String, NpyArray)>> {
        let mut core = VectorCore::new(self.chip.id, self.gm_used.div_ceil(32) as usize * 32);
        for (name, array) in feed {
            let d = self.decl(name)?;
            if d.op.space != MemSpace::Gm
                || self
                    .inputs
                    .as_ref()
                    .is_some_and(|i| !i.iter().any(|n| &**n == *name))
            {
                return Err(AscendError::FeedMismatch {
                    tensor: name.to_string(),
                    got: "a feed".into(),
                    want: "a kernel input in GM".into(),
                });
            }
            if array.dtype != d.op.dtype || array.len() != d.shape.iter().product::<usize>() {
                return Err(AscendError::FeedMismatch {
                    tensor: name.to_string(),
                    got: format!("{} {:?}", array.dtype, array.shape),
                    want: format!("{} {:?}", d.op.dtype, d.shape),
                });
            }
            core.memory_mut(MemSpace::Gm)?
                .write(d.op.tensor_base, &array.data)?;
        }
        if let Some(missing) = self
            .inputs
            .iter()
            .flatten()
            .find(|n| !feed.iter().any(|(f, _)| *f == &***n))
        {
            return Err(AscendError::FeedMismatch {
                tensor: missing.to_string(),
                got: "nothing".into(),
                want: "an array for every BuildCCE input".into(),
            });
        }
        for op in &self.program {
            op.execute(&mut core)?;
        }
        let names: Vec<Arc<str>> = match &self.outputs {
            Some(o) => o.clone(),
            None => self
                .decls
                .iter()
                .filter(|d| d.op.space == MemSpace::Gm)
                .map(|d| d.op.tensor.clone())
                .collect(),
        };
        names
            .iter()
            .map(|n| {
                let d = self.decl(n)?;
                let data = core
                    .memory(MemSpace::Gm)?
                    .bytes(d.op.tensor_base, d.op.tensor_bytes)?
                    .to_vec();
                Ok((
                    n.to_string(),
                    NpyArray {
                        dtype: d.op.dtype,
                        shape: d.shape.clone(),
                        data,
                    },
                ))
            })
            .collect()
    }
}
