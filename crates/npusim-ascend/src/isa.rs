//! The Ascend vector instruction set, declared once.
//!
//! [`for_each_vector_instr!`](crate::for_each_vector_instr) lists every instruction this crate implements, one row each: its
//! identifier, its operand shape ([`Shape`]), its TIK names (`vec_*` and the legacy `v*` name
//! with block strides), its Ascend C names (count form and mask/repeat form), its element
//! function (a pure function in [`crate::elem`], by domain), the document it implements, and the
//! element types each chip accepts. The [`Instr`] enum, the name lookups, the type check, the
//! kernel dispatch ([`crate::vector`]) and the TIK / Ascend C method lists ([`crate::tik`],
//! [`crate::ascendc`]) are all derived from that one table: adding an element-wise instruction
//! is one row here plus one element function.
//!
//! Type lists: asc-devkit `docs/zh/api/SIMD-API/基础API/Memory矢量计算/**` (数据类型 sections,
//! per product), seeds 000/001; `shared/research/ascend-vector.md`. Ascend 310 (Atlas
//! 200/300/500 inference) is not listed by the Ascend C pages; it takes the Atlas training (910)
//! lists, a named policy (`TIK` documents the same instructions on both).

use crate::error::{AscendError, Result};
use npusim_core::{ChipId, ElemType};

use ChipId::{Ascend310, Ascend310B, Ascend310P, Ascend910, Ascend910B, Ascend950};
use ElemType::{Bf16, F16, F32, I8, I16, I32, I64, U8, U16, U32, U64};

/// Every chip.
const ALL_CHIPS: [ChipId; 6] = [
    Ascend310, Ascend910, Ascend310P, Ascend910B, Ascend310B, Ascend950,
];
/// Every chip but the Atlas training/inference classics (310, 910).
const NEWER: [ChipId; 4] = [Ascend310P, Ascend910B, Ascend310B, Ascend950];
/// Atlas 200/300/500 inference and Atlas training.
const CLASSIC: [ChipId; 2] = [Ascend310, Ascend910];

/// Element types legal on a set of chips.
pub type TypeRule = (&'static [ChipId], &'static [ElemType]);

/// The operand shape of an instruction: which operands it has and how the driver walks them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Shape {
    /// `dst[i] = f(src0[i], src1[i])`.
    Binary,
    /// Binary, and dst may alias src1 with zero rep strides (the accumulate exception of the
    /// overlap rules: Add/Sub/Mul/Max/Min/And/Or/AddRelu/SubRelu).
    BinaryAcc,
    /// `dst[i] = f(src0[i], src1[i], dst[i])` (MulAddDst, FusedMulAdd, MulAddRelu).
    Ternary,
    /// `dst[i] = f(src[i])`.
    Unary,
    /// `dst[i] = f(src[i], scalar)`.
    Scalar,
    /// `dst[i] = f(src[i], scalar, dst[i])` (Axpy).
    ScalarDst,
    /// `dst[i] = convert(src[i])` with a round mode; lanes follow the wider type.
    Convert,
    /// `dst[i] = scalar`.
    Dup,
    /// One bit per lane into a packed bit stream, no mask (vec_cmpv_xx / Compare).
    CmpBits,
    /// One bit per lane comparing with a scalar (vcmpvs_xx / CompareScalar).
    CmpBitsScalar,
    /// Per-lane choice by a bit mask (Select / vec_sel, modes 0/1/2).
    Select,
    /// Each of 8 source elements per repeat fills one 32-byte block (Brcb).
    Brcb,
    /// `dst[i] = src[(base + offset[i]) / sizeof(T)]` (Gather / vgather).
    Gather,
    /// 8 whole 32-byte blocks per repeat gathered by byte offsets (Gatherb / vgatherb).
    GatherBlock,
    /// Selected elements packed contiguously (GatherMask / vreduce).
    GatherMask,
    /// 16×16 transpose of 2-byte elements per repeat (Transpose / vec_trans).
    Transpose,
    /// `dst[i] = first + i` (CreateVecIndex / vci).
    Index,
    /// One repeat compared into the CMPMASK register (vcmp_xx / Compare to register).
    CmpMask,
    /// `dst[j] = src[2j] + src[2j+1]` (PairReduceSum / vcpadd).
    PairReduce,
    /// One result per repeat (value, or value and index) (WholeReduce* / vcadd, vcmax, vcmin).
    WholeReduce,
    /// One sum per repeat with a continuous mask only and an ignored dstBlkStride
    /// (RepeatReduceSum; the hardware `vcadd`).
    RepeatReduce,
    /// One result per 32-byte block (BlockReduce* / vcgadd, vcgmax, vcgmin).
    BlockReduce,
    /// One result for the whole tensor (ReduceSum / vec_reduce_add).
    ReduceAll,
    /// Burst copies between memories (data_move / DataCopy).
    Move,
    /// 32 scores sorted descending per repeat into (score, index) pairs (Sort32 / vsort32).
    Sort32,
    /// Up to 4 sorted lists of (score, index) pairs merged into one (MrgSort).
    MrgSort,
    /// 16 elements per repeat into / out of one field of 16 region proposals
    /// (ProposalConcat / ProposalExtract).
    ProposalField,
    /// 16 region proposals sorted by score per repeat (RpSort16 / vrpsort16).
    ProposalSort,
    /// 16 source and 16 destination block addresses transposed per repeat (TransDataTo5HD /
    /// vnchwconv).
    AddrListTranspose,
    /// Weighted sums of gathered 32-byte blocks over horizontal and vertical repeats
    /// (BilinearInterpolation / vbi).
    Bilinear,
    /// 16 x 16 pairwise results per repeat: each of 16 proposals (or areas) of `src0` against
    /// each of the 16 of `src1` (TIK `viou` / `vaadd`; TIK only).
    ProposalPair,
    /// A `channels x m_len` matrix transposed to `m_len x channels` or back (TIK `v4dtrans`,
    /// CHW <-> HWC; TIK only).
    Trans4d,
}

impl Shape {
    /// The TIK parameter names of a call of this shape, in TIK's order (positional and keyword
    /// arguments): the `vec_*` form, or with `legacy` the form with block strides (`vadd`...).
    /// `None` for a shape whose call is not an element-wise, select or compare form.
    pub fn tik_params(self, legacy: bool) -> Option<Vec<&'static str>> {
        let l = |legacy_blk: &[&'static str], rep: &[&'static str]| -> Vec<&'static str> {
            if legacy {
                legacy_blk.iter().chain(rep).copied().collect()
            } else {
                rep.to_vec()
            }
        };
        let mut v: Vec<&'static str> = match self {
            Shape::Binary | Shape::BinaryAcc | Shape::Ternary => {
                vec!["mask", "dst", "src0", "src1"]
            }
            Shape::Unary => vec!["mask", "dst", "src"],
            Shape::Convert => vec!["mask", "round_mode", "dst", "src"],
            Shape::Scalar | Shape::ScalarDst => vec!["mask", "dst", "src", "scalar"],
            Shape::Dup => vec!["mask", "dst", "scalar"],
            Shape::Select => vec!["mask", "mode", "dst", "sel", "src0", "src1"],
            Shape::CmpBits => vec!["dst", "src0", "src1"],
            Shape::CmpBitsScalar => vec!["dst", "src", "scalar"],
            _ => return None,
        };
        v.push("repeat_times");
        v.extend(match self {
            Shape::Binary | Shape::BinaryAcc | Shape::Ternary | Shape::Select => l(
                &["dst_blk_stride", "src0_blk_stride", "src1_blk_stride"],
                &["dst_rep_stride", "src0_rep_stride", "src1_rep_stride"],
            ),
            Shape::Unary | Shape::Convert | Shape::Scalar | Shape::ScalarDst => l(
                &["dst_blk_stride", "src_blk_stride"],
                &["dst_rep_stride", "src_rep_stride"],
            ),
            Shape::Dup => l(&["dst_blk_stride"], &["dst_rep_stride"]),
            Shape::CmpBits => l(
                &["src0_blk_stride", "src1_blk_stride"],
                &["src0_rep_stride", "src1_rep_stride"],
            ),
            _ => vec!["src_blk_stride", "src_rep_stride"],
        });
        Some(v)
    }

    /// Whether the driver runs this shape lane by lane through an element function.
    pub const fn is_elementwise(self) -> bool {
        !matches!(
            self,
            Shape::CmpBits
                | Shape::CmpBitsScalar
                | Shape::Select
                | Shape::Brcb
                | Shape::Gather
                | Shape::GatherBlock
                | Shape::GatherMask
                | Shape::Transpose
                | Shape::Index
                | Shape::CmpMask
                | Shape::PairReduce
                | Shape::WholeReduce
                | Shape::RepeatReduce
                | Shape::BlockReduce
                | Shape::ReduceAll
                | Shape::Move
                | Shape::Sort32
                | Shape::MrgSort
                | Shape::ProposalField
                | Shape::ProposalSort
                | Shape::AddrListTranspose
                | Shape::Bilinear
                | Shape::ProposalPair
                | Shape::Trans4d
        )
    }

    /// Whether the shape has an Ascend C face (the TIK-only shapes have none: their rows'
    /// Ascend C columns hold the placeholder `TikOnly`).
    pub const fn has_ascendc(self) -> bool {
        !matches!(self, Shape::ProposalPair | Shape::Trans4d)
    }
    /// Number of tensor sources.
    pub const fn tensor_sources(self) -> usize {
        match self {
            Shape::Binary
            | Shape::BinaryAcc
            | Shape::Ternary
            | Shape::CmpBits
            | Shape::Select
            | Shape::CmpMask
            | Shape::Sort32
            | Shape::Gather
            | Shape::GatherBlock
            | Shape::ProposalPair => 2,
            Shape::Unary
            | Shape::Scalar
            | Shape::ScalarDst
            | Shape::Convert
            | Shape::PairReduce
            | Shape::CmpBitsScalar
            | Shape::Brcb
            | Shape::GatherMask
            | Shape::Transpose
            | Shape::WholeReduce
            | Shape::RepeatReduce
            | Shape::BlockReduce
            | Shape::ReduceAll
            | Shape::ProposalField
            | Shape::ProposalSort
            | Shape::Trans4d
            | Shape::Move => 1,
            Shape::MrgSort => 4,
            Shape::Bilinear => 3,
            Shape::AddrListTranspose => 16,
            Shape::Dup | Shape::Index => 0,
        }
    }
    /// Whether the destination is also read.
    pub const fn reads_dst(self) -> bool {
        matches!(self, Shape::Ternary | Shape::ScalarDst)
    }
    /// Whether a scalar operand is taken.
    pub const fn has_scalar(self) -> bool {
        matches!(self, Shape::Scalar | Shape::ScalarDst | Shape::Dup)
    }
}

/// The computation domain of an element function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Domain {
    /// Defined on every numeric type: floats compute in f32, integers in wrapping i64.
    Num,
    /// Floats only (f32 computation).
    Float,
    /// Integers only (wrapping i64 on the element's value).
    Int,
    /// Raw bits of any type (copies).
    Bits,
    /// No element function (the shape's own kernel).
    None,
}

/// Invokes `$m!` with the instruction table.
///
/// Columns: identifier, shape, TIK name, TIK legacy name, Ascend C name, Ascend C mask/repeat
/// form name, element domain and function (`num(add)`, `float(exp)`, `int(not)`, `bits(copy)`,
/// `none(none)`), document, then `[chips] => [types]` rules (a chip not named in any rule does
/// not have the instruction), and for the fused rows with a mixed-precision form
/// (MulAddDst.md, Axpy.md: half sources, float destination) `=> widen chips`, the chips whose
/// page lists that form. Rows are grouped by shape, most used first
/// (`shared/research/ascend-usage.md`).
#[macro_export]
macro_rules! for_each_vector_instr {
    ($m:ident) => {
        $m! {
            // Binary (dst may accumulate into src1).
            Add, BinaryAcc, vec_add, vadd, Add, AddRepeat, num(add), "Add.md; TIK vec_add/vadd",
                [&CLASSIC => &[F16, I32, F32]], [&NEWER => &[I16, F16, I32, F32]];
            Mul, BinaryAcc, vec_mul, vmul, Mul, MulRepeat, num(mul), "Mul.md; TIK vec_mul/vmul",
                [&CLASSIC => &[F16, I32, F32]], [&NEWER => &[I16, F16, I32, F32]];
            Sub, BinaryAcc, vec_sub, vsub, Sub, SubRepeat, num(sub), "Sub.md; TIK vec_sub/vsub",
                [&CLASSIC => &[F16, I32, F32]], [&NEWER => &[I16, F16, I32, F32]];
            Div, Binary, vec_div, vdiv, Div, DivRepeat, float(div), "Div.md; TIK vdiv",
                [&ALL_CHIPS => &[F16, F32]];
            Max, BinaryAcc, vec_max, vmax, Max, MaxRepeat, num(max), "Max.md; TIK vec_max/vmax",
                [&CLASSIC => &[F16, I32, F32]], [&NEWER => &[I16, F16, I32, F32]];
            Min, BinaryAcc, vec_min, vmin, Min, MinRepeat, num(min), "Min.md; TIK vec_min/vmin",
                [&CLASSIC => &[F16, I32, F32]], [&NEWER => &[I16, F16, I32, F32]];
            And, BinaryAcc, vec_and, vand, And, AndRepeat, int(and), "And.md; TIK vec_and/vand",
                [&ALL_CHIPS => &[I16, U16]];
            Or, BinaryAcc, vec_or, vor, Or, OrRepeat, int(or), "Or.md; TIK vec_or/vor",
                [&ALL_CHIPS => &[I16, U16]];
            AddRelu, BinaryAcc, vec_addrelu, vaddrelu, AddRelu, AddReluRepeat, num(add_relu), "AddRelu.md; TIK vaddrelu",
                [&[Ascend310P, Ascend910B, Ascend950] => &[I16, F16, F32]], [&[Ascend310B] => &[F16, F32]];
            SubRelu, BinaryAcc, vec_subrelu, vsubrelu, SubRelu, SubReluRepeat, num(sub_relu), "SubRelu.md; TIK vsubrelu",
                [&[Ascend310P, Ascend910B, Ascend950] => &[I16, F16, F32]], [&[Ascend310B] => &[F16, F32]];
            // Ternary: dst is read.
            MulAddDst, Ternary, vec_mla, vmla, MulAddDst, MulAddDstRepeat, float(mul_add_dst), "MulAddDst.md; TIK vmla",
                [&ALL_CHIPS => &[F16, F32]] => widen &[Ascend310P, Ascend910B, Ascend950];
            FusedMulAdd, Ternary, vec_madd, vmadd, FusedMulAdd, FusedMulAddRepeat, float(fused_mul_add), "FusedMulAdd.md; TIK vmadd",
                [&ALL_CHIPS => &[F16, F32]];
            MulAddRelu, Ternary, vec_maddrelu, vmaddrelu, MulAddRelu, MulAddReluRepeat, float(mul_add_relu), "MulAddRelu.md; TIK vmaddrelu",
                [&ALL_CHIPS => &[F16, F32]];
            // Scalar.
            Muls, Scalar, vec_muls, vmuls, Muls, MulsRepeat, num(mul), "Muls.md; TIK vec_muls/vmuls",
                [&CLASSIC => &[F16, I32, F32]], [&NEWER => &[I16, F16, I32, F32]];
            Adds, Scalar, vec_adds, vadds, Adds, AddsRepeat, num(add), "Adds.md; TIK vec_adds/vadds",
                [&CLASSIC => &[F16, I32, F32]], [&NEWER => &[I16, F16, I32, F32]];
            Maxs, Scalar, vec_maxs, vmaxs, Maxs, MaxsRepeat, num(max), "Maxs.md; TIK vmaxs",
                [&CLASSIC => &[F16, I32, F32]], [&NEWER => &[I16, F16, I32, F32]];
            Mins, Scalar, vec_mins, vmins, Mins, MinsRepeat, num(min), "Mins.md; TIK vmins",
                [&CLASSIC => &[F16, I32, F32]], [&NEWER => &[I16, F16, I32, F32]];
            LeakyRelu, Scalar, vec_lrelu, vlrelu, LeakyRelu, LeakyReluRepeat, float(leaky_relu), "LeakyRelu.md; TIK vlrelu",
                [&ALL_CHIPS => &[F16, F32]];
            ShiftLeft, Scalar, vec_shl, vshl, ShiftLeft, ShiftLeftRepeat, int(shl), "ShiftLeft.md; TIK vshl",
                [&ALL_CHIPS => &[I16, U16, I32, U32]];
            ShiftRight, Scalar, vec_shr, vshr, ShiftRight, ShiftRightRepeat, int(shr), "ShiftRight.md; TIK vshr",
                [&ALL_CHIPS => &[I16, U16, I32, U32]];
            Axpy, ScalarDst, vec_axpy, vaxpy, Axpy, AxpyRepeat, float(axpy), "Axpy.md; TIK vec_axpy/vaxpy",
                [&ALL_CHIPS => &[F16, F32]] => widen &ALL_CHIPS;
            // Unary.
            Exp, Unary, vec_exp, vexp, Exp, ExpRepeat, float(exp), "Exp.md; TIK vec_exp/vexp",
                [&ALL_CHIPS => &[F16, F32]];
            Abs, Unary, vec_abs, vabs, Abs, AbsRepeat, float(abs), "Abs.md; TIK vec_abs/vabs",
                [&ALL_CHIPS => &[F16, F32]];
            Sqrt, Unary, vec_sqrt, vsqrt, Sqrt, SqrtRepeat, float(sqrt), "Sqrt.md; TIK vsqrt",
                [&ALL_CHIPS => &[F16, F32]];
            Reciprocal, Unary, vec_rec, vrec, Reciprocal, ReciprocalRepeat, float(reciprocal), "Reciprocal.md; TIK vec_rec/vrec",
                [&ALL_CHIPS => &[F16, F32]];
            Ln, Unary, vec_ln, vln, Ln, LnRepeat, float(ln), "Ln.md; TIK vec_ln/vln",
                [&ALL_CHIPS => &[F16, F32]];
            Not, Unary, vec_not, vnot, Not, NotRepeat, int(not), "Not.md; TIK vec_not/vnot",
                [&ALL_CHIPS => &[I16, U16]];
            Relu, Unary, vec_relu, vrelu, Relu, ReluRepeat, num(relu), "Relu.md; TIK vec_relu/vrelu",
                [&[Ascend910] => &[F16]], [&[Ascend310, Ascend310P, Ascend910B, Ascend310B, Ascend950] => &[F16, I32, F32]];
            Rsqrt, Unary, vec_rsqrt, vrsqrt, Rsqrt, RsqrtRepeat, float(rsqrt), "Rsqrt.md; TIK vec_rsqrt/vrsqrt",
                [&ALL_CHIPS => &[F16, F32]];
            Copy, Unary, vec_copy, vcopy, Copy, CopyRepeat, bits(copy), "UBToUB掩码式高维数据搬运(Copy).md; TIK vcopy",
                [&ALL_CHIPS => &[I16, U16, F16, I32, U32, F32]];
            // Convert: the legal (src, dst, round mode) triples are in `CAST_RULES`.
            Cast, Convert, vec_conv, vconv, Cast, CastRepeat, none(none), "Cast.md, precision_conversion.md; TIK vec_conv/vconv",
                [&ALL_CHIPS => &[I8, U8, I16, U16, F16, Bf16, I32, U32, F32, I64]];
            // Address-list transpose (NCHW -> NC1HWC0).
            TransDataTo5HD, AddrListTranspose, vec_trans_scatter, vnchwconv, TransDataTo5HD, TransDataTo5HDRepeat, none(none), "数据排布转换/TransDataTo5HD.md; TIK vnchwconv / vec_trans_scatter",
                [&CLASSIC => &[I8, U8, I16, U16, F16]], [&[Ascend310P, Ascend910B, Ascend310B] => &[I8, U8, I16, U16, F16, I32, U32, F32]],
                [&[Ascend950] => &[I8, U8, I16, U16, F16, Bf16, I32, U32, F32]];
            // Duplicate.
            Duplicate, Dup, vec_dup, vector_dup, Duplicate, DuplicateRepeat, bits(dup), "TIK vector_dup / vec_dup; Ascend C Duplicate",
                [&ALL_CHIPS => &[U16, I16, F16, U32, I32, F32]];
            // Compare into a bit stream.
            VcmpvLt, CmpBits, vec_cmpv_lt, vcmpv_lt, Compare, CompareRepeat, none(lt), "TIK vec_cmpv_xx (seed 000); Ascend C Compare",
                [&[Ascend310] => &[F16]], [&[Ascend910, Ascend310P, Ascend910B, Ascend310B, Ascend950] => &[F16, F32]];
            VcmpvGt, CmpBits, vec_cmpv_gt, vcmpv_gt, Compare, CompareRepeat, none(gt), "TIK vec_cmpv_xx (seed 000); Ascend C Compare",
                [&[Ascend310] => &[F16]], [&[Ascend910, Ascend310P, Ascend910B, Ascend310B, Ascend950] => &[F16, F32]];
            VcmpvGe, CmpBits, vec_cmpv_ge, vcmpv_ge, Compare, CompareRepeat, none(ge), "TIK vec_cmpv_xx (seed 000); Ascend C Compare",
                [&[Ascend310] => &[F16]], [&[Ascend910, Ascend310P, Ascend910B, Ascend310B, Ascend950] => &[F16, F32]];
            VcmpvEq, CmpBits, vec_cmpv_eq, vcmpv_eq, Compare, CompareRepeat, none(eq), "TIK vec_cmpv_xx (seed 000); Ascend C Compare; int32 EQ on A2/A3 (pypto PR #2809)",
                [&[Ascend310] => &[F16]], [&[Ascend910, Ascend310P, Ascend310B, Ascend950] => &[F16, F32]], [&[Ascend910B] => &[F16, F32, I32]];
            VcmpvNe, CmpBits, vec_cmpv_ne, vcmpv_ne, Compare, CompareRepeat, none(ne), "TIK vec_cmpv_xx (seed 000); Ascend C Compare",
                [&[Ascend310] => &[F16]], [&[Ascend910, Ascend310P, Ascend910B, Ascend310B, Ascend950] => &[F16, F32]];
            VcmpvLe, CmpBits, vec_cmpv_le, vcmpv_le, Compare, CompareRepeat, none(le), "TIK vec_cmpv_xx (seed 000); Ascend C Compare",
                [&[Ascend310] => &[F16]], [&[Ascend910, Ascend310P, Ascend910B, Ascend310B, Ascend950] => &[F16, F32]];
            // Select by a bit mask (modes 0, 1, 2).
            Select, Select, vec_sel, vsel, Select, SelectRepeat, none(none), "Select.md; TIK vec_sel/vsel",
                [&ALL_CHIPS => &[F16, F32]];
            // Compare a tensor with a scalar into a bit stream.
            VcmpvsLt, CmpBitsScalar, vcmpvs_lt, vcmpvs_lt, CompareScalar, CompareScalarRepeat, none(lt), "TIK vcmpvs_xx; Ascend C CompareScalar (Compares.md)",
                [&[Ascend310] => &[F16]], [&[Ascend910, Ascend310P, Ascend910B, Ascend310B, Ascend950] => &[F16, F32]];
            VcmpvsGt, CmpBitsScalar, vcmpvs_gt, vcmpvs_gt, CompareScalar, CompareScalarRepeat, none(gt), "TIK vcmpvs_xx; Ascend C CompareScalar (Compares.md)",
                [&[Ascend310] => &[F16]], [&[Ascend910, Ascend310P, Ascend910B, Ascend310B, Ascend950] => &[F16, F32]];
            VcmpvsGe, CmpBitsScalar, vcmpvs_ge, vcmpvs_ge, CompareScalar, CompareScalarRepeat, none(ge), "TIK vcmpvs_xx; Ascend C CompareScalar (Compares.md)",
                [&[Ascend310] => &[F16]], [&[Ascend910, Ascend310P, Ascend910B, Ascend310B, Ascend950] => &[F16, F32]];
            VcmpvsEq, CmpBitsScalar, vcmpvs_eq, vcmpvs_eq, CompareScalar, CompareScalarRepeat, none(eq), "TIK vcmpvs_xx; Ascend C CompareScalar (Compares.md)",
                [&[Ascend310] => &[F16]], [&[Ascend910, Ascend310P, Ascend910B, Ascend310B, Ascend950] => &[F16, F32]];
            VcmpvsNe, CmpBitsScalar, vcmpvs_ne, vcmpvs_ne, CompareScalar, CompareScalarRepeat, none(ne), "TIK vcmpvs_xx; Ascend C CompareScalar (Compares.md)",
                [&[Ascend310] => &[F16]], [&[Ascend910, Ascend310P, Ascend910B, Ascend310B, Ascend950] => &[F16, F32]];
            VcmpvsLe, CmpBitsScalar, vcmpvs_le, vcmpvs_le, CompareScalar, CompareScalarRepeat, none(le), "TIK vcmpvs_xx; Ascend C CompareScalar (Compares.md)",
                [&[Ascend310] => &[F16]], [&[Ascend910, Ascend310P, Ascend910B, Ascend310B, Ascend950] => &[F16, F32]];
            // Reductions.
            PairReduceSum, PairReduce, vec_cpadd, vcpadd, PairReduceSum, PairReduceSumRepeat, none(none), "Ascend C PairReduceSum (seed 001)",
                [&[Ascend910] => &[F16]], [&[Ascend310P, Ascend910B, Ascend310B, Ascend950] => &[F16, F32]];
            // Compaction by a bit pattern (rsvdCnt = kept elements).
            GatherMask, GatherMask, vreduce, vreduce, GatherMask, GatherMaskRepeat, none(none), "GatherMask.md; TIK vreduce",
                [&[Ascend310P, Ascend910B, Ascend310B, Ascend950] => &[I16, U16, F16, I32, U32, F32]];
            // Gather by byte offsets; 16x16 transpose of 2-byte elements.
            Gather, Gather, vgather, vgather, Gather, GatherRepeat, none(none), "Gather.md; TIK vgather",
                [&[Ascend310P] => &[I16, U16, F16, I32, U32, F32]], [&[Ascend910B, Ascend950] => &[I16, U16, F16, Bf16, I32, U32, F32]],
                [&[Ascend310B] => &[I8, U8, I16, U16, F16, I32, U32, F32]];
            Gatherb, GatherBlock, vgatherb, vgatherb, Gatherb, GatherbRepeat, none(none), "离散与聚合/Gatherb(ISASI).md",
                [&[Ascend910B] => &[U16, U32]], [&[Ascend310B] => &[I8, U8, I16, U16, F16, Bf16, I32, U32, F32, I64]],
                [&[Ascend950] => &[I8, U8, I16, U16, F16, Bf16, I32, U32, F32, I64, U64]];
            Transpose, Transpose, vec_trans, vtranspose, Transpose, TransposeRepeat, none(none), "Transpose.md; TIK vec_trans / vtranspose",
                [&ALL_CHIPS => &[I16, U16, F16]];
            // Broadcast, index vector, compare into CMPMASK.
            Brcb, Brcb, vbcb, vbcb, Brcb, BrcbRepeat, none(none), "Brcb.md; TIK vbcb",
                [&[Ascend310P] => &[I16, U16, F16, I32, U32, F32]], [&[Ascend910B, Ascend950] => &[I16, U16, F16, Bf16, I32, U32, F32]];
            CreateVecIndex, Index, vci, vci, CreateVecIndex, CreateVecIndexRepeat, none(none), "CreateVecIndex.md; TIK vci",
                [&[Ascend310P, Ascend910B, Ascend310B, Ascend950] => &[I16, F16, I32, F32]];
            VcmpLt, CmpMask, vcmp_lt, vcmp_lt, Compare, CompareCmpMask, none(lt), "TIK vcmp_xx; Ascend C Compare (结果存入寄存器)",
                [&[Ascend310] => &[F16]], [&[Ascend910, Ascend310P, Ascend910B, Ascend310B, Ascend950] => &[F16, F32]];
            VcmpGt, CmpMask, vcmp_gt, vcmp_gt, Compare, CompareCmpMask, none(gt), "TIK vcmp_xx; Ascend C Compare (结果存入寄存器)",
                [&[Ascend310] => &[F16]], [&[Ascend910, Ascend310P, Ascend910B, Ascend310B, Ascend950] => &[F16, F32]];
            VcmpGe, CmpMask, vcmp_ge, vcmp_ge, Compare, CompareCmpMask, none(ge), "TIK vcmp_xx; Ascend C Compare (结果存入寄存器)",
                [&[Ascend310] => &[F16]], [&[Ascend910, Ascend310P, Ascend910B, Ascend310B, Ascend950] => &[F16, F32]];
            VcmpEq, CmpMask, vcmp_eq, vcmp_eq, Compare, CompareCmpMask, none(eq), "TIK vcmp_xx; Ascend C Compare (结果存入寄存器)",
                [&[Ascend310] => &[F16]], [&[Ascend910, Ascend310P, Ascend910B, Ascend310B, Ascend950] => &[F16, F32]];
            VcmpNe, CmpMask, vcmp_ne, vcmp_ne, Compare, CompareCmpMask, none(ne), "TIK vcmp_xx; Ascend C Compare (结果存入寄存器)",
                [&[Ascend310] => &[F16]], [&[Ascend910, Ascend310P, Ascend910B, Ascend310B, Ascend950] => &[F16, F32]];
            VcmpLe, CmpMask, vcmp_le, vcmp_le, Compare, CompareCmpMask, none(le), "TIK vcmp_xx; Ascend C Compare (结果存入寄存器)",
                [&[Ascend310] => &[F16]], [&[Ascend910, Ascend310P, Ascend910B, Ascend310B, Ascend950] => &[F16, F32]];
            // Reductions per repeat / per block; the element function combines partial results.
            WholeReduceSum, WholeReduce, vcadd, vcadd, WholeReduceSum, WholeReduceSumRepeat, float(add), "ReduceRepeat.md (WholeReduceSum); TIK vcadd",
                [&ALL_CHIPS => &[F16, F32]];
            WholeReduceMax, WholeReduce, vcmax, vcmax, WholeReduceMax, WholeReduceMaxRepeat, float(max), "ReduceRepeat.md (WholeReduceMax); TIK vcmax",
                [&ALL_CHIPS => &[F16, F32]];
            WholeReduceMin, WholeReduce, vcmin, vcmin, WholeReduceMin, WholeReduceMinRepeat, float(min), "ReduceRepeat.md (WholeReduceMin); TIK vcmin",
                [&ALL_CHIPS => &[F16, F32]];
            // RepeatReduceSum (docs/api/context/RepeatReduceSum.md: Atlas A2 only there; its
            // successor ReduceRepeat.md lists every chip, half only on Atlas training).
            RepeatReduceSum, RepeatReduce, vcadd, vcadd, RepeatReduceSum, RepeatReduceSumRepeat, float(add), "RepeatReduceSum.md; ReduceRepeat.md (SUM)",
                [&CLASSIC => &[F16]], [&NEWER => &[F16, F32]];
            BlockReduceSum, BlockReduce, vcgadd, vcgadd, BlockReduceSum, BlockReduceSumRepeat, float(add), "ReduceDataBlock.md (BlockReduceSum); TIK vcgadd",
                [&ALL_CHIPS => &[F16, F32]];
            BlockReduceMax, BlockReduce, vcgmax, vcgmax, BlockReduceMax, BlockReduceMaxRepeat, float(max), "ReduceDataBlock.md (BlockReduceMax); TIK vcgmax",
                [&ALL_CHIPS => &[F16, F32]];
            BlockReduceMin, BlockReduce, vcgmin, vcgmin, BlockReduceMin, BlockReduceMinRepeat, float(min), "ReduceDataBlock.md (BlockReduceMin); TIK vcgmin",
                [&ALL_CHIPS => &[F16, F32]];
            // Whole-tensor sum (a multi-instruction macro on the hardware; order per chip).
            ReduceSum, ReduceAll, vec_reduce_add, vec_reduce_add, ReduceSum, ReduceSumRepeat, float(add), "ReduceSum.md; TIK vec_reduce_add",
                [&[Ascend310, Ascend910] => &[F16]], [&NEWER => &[F16, F32]];
            ReduceMax, ReduceAll, vec_reduce_max, vec_reduce_max, ReduceMax, ReduceMaxRepeat, float(max), "ReduceMax.md; TIK vec_reduce_max",
                [&[Ascend310, Ascend910] => &[F16]], [&NEWER => &[F16, F32]];
            ReduceMin, ReduceAll, vec_reduce_min, vec_reduce_min, ReduceMin, ReduceMinRepeat, float(min), "ReduceMin.md; TIK vec_reduce_min",
                [&[Ascend310, Ascend910] => &[F16]], [&NEWER => &[F16, F32]];
            // Region-proposal sorting.
            Sort32, Sort32, vsort32, vsort32, Sort32, Sort32Repeat, none(none), "排序组合（ISASI）/Sort32.md; TIK vsort32",
                [&[Ascend910B, Ascend310B, Ascend950] => &[F16, F32]];
            MrgSort, MrgSort, vmrgsort, vmrgsort, MrgSort, MrgSortRepeat, none(none), "排序组合（ISASI）/MrgSort.md, GetMrgSortResult.md",
                [&[Ascend910B, Ascend310B, Ascend950] => &[F16, F32]];
            ProposalConcat, ProposalField, vconcat, vconcat, ProposalConcat, ProposalConcatRepeat, none(concat), "排序组合（ISASI）/ProposalConcat.md; TIK vconcat",
                [&CLASSIC => &[F16]], [&[Ascend310P] => &[F16, F32]];
            ProposalExtract, ProposalField, vextract, vextract, ProposalExtract, ProposalExtractRepeat, none(extract), "排序组合（ISASI）/ProposalExtract.md; TIK vextract",
                [&CLASSIC => &[F16]], [&[Ascend310P] => &[F16, F32]];
            MrgSort4, MrgSort, vmrgsort4, vmrgsort4, MrgSort4, MrgSort4Repeat, none(proposals), "排序组合（ISASI）/MrgSort4.md; TIK vmrgsort4",
                [&CLASSIC => &[F16]], [&[Ascend310P] => &[F16, F32]];
            RpSort16, ProposalSort, vrpsort16, vrpsort16, RpSort16, RpSort16Repeat, none(none), "排序组合（ISASI）/RpSort16.md; TIK vrpsort16",
                [&CLASSIC => &[F16]], [&[Ascend310P] => &[F16, F32]];
            // Data movement.
            DataMove, Move, data_move, data_move, DataCopy, DataCopyParams, none(none), "TIK data_move; Ascend C DataCopy (GM<->UB, UB->UB)",
                [&ALL_CHIPS => &ElemType::ARITH];
            // Bilinear interpolation (the A2/A3 vendor emulation's order; see crate::bilinear).
            BilinearInterpolation, Bilinear, vbi, vbi, BilinearInterpolation, BilinearInterpolationMask, none(none), "基础算术/BilinearInterpolation(ISASI).md; TIK vbi",
                [&[Ascend910B] => &[F16]];
            // Region-proposal pairs, 16 x 16 per repeat (TIK only; see crate::sort): the
            // intersection area of two proposals, the sum of two areas. Chips: the proposal
            // family's (RpSort16), a named policy.
            Viou, ProposalPair, viou, viou, TikOnly, TikOnly, none(proposal_intersection), "TIK viou (tik_proposal_api: checks; NMS kernels: layout and rpn offset)",
                [&CLASSIC => &[F16]], [&[Ascend310P] => &[F16, F32]];
            Vaadd, ProposalPair, vaadd, vaadd, TikOnly, TikOnly, none(add), "TIK vaadd (tik_proposal_api: checks; NMS kernels: layout)",
                [&CLASSIC => &[F16]], [&[Ascend310P] => &[F16, F32]];
            // CHW <-> HWC transpose of one image (TIK only; see crate::trans4d).
            V4dtrans, Trans4d, v4dtrans, v4dtrans, TikOnly, TikOnly, none(trans4d_index), "TIK v4dtrans (common_util check_addr_overlap_v4dtrans; kernels' calls)",
                [&[Ascend310P] => &[I8, U8, I16, U16, F16, I32, U32, F32]];
        }
    };
}

macro_rules! declare_instrs {
    ($( $id:ident, $shape:ident, $tik:ident, $legacy:ident, $asc:ident, $asc_rep:ident,
        $dom:ident($elem:ident), $doc:literal, $([$chips:expr => $types:expr]),+ $(=> widen $w:expr)? ; )*) => {
        /// One vector instruction.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Instr { $( $id, )* }

        impl Instr {
            /// Every instruction, in table order.
            pub const ALL: &'static [Instr] = &[ $( Instr::$id, )* ];

            /// The operand shape.
            pub const fn shape(self) -> Shape {
                match self { $( Instr::$id => Shape::$shape, )* }
            }

            /// The TIK `vec_*` spelling.
            pub const fn tik_name(self) -> &'static str {
                match self { $( Instr::$id => stringify!($tik), )* }
            }

            /// The TIK legacy spelling (with block strides): `vadd`, `vconv`, ...
            pub const fn tik_legacy_name(self) -> &'static str {
                match self { $( Instr::$id => stringify!($legacy), )* }
            }

            /// The Ascend C spelling.
            pub const fn ascendc_name(self) -> &'static str {
                match self { $( Instr::$id => stringify!($asc), )* }
            }

            /// The Rust name of the Ascend C mask/repeat form in [`crate::ascendc`].
            pub const fn ascendc_repeat_name(self) -> &'static str {
                match self { $( Instr::$id => stringify!($asc_rep), )* }
            }

            /// The element function's domain.
            pub const fn domain(self) -> Domain {
                match self { $( Instr::$id => declare_instrs!(@dom $dom), )* }
            }

            /// The name of the element function in [`crate::elem`].
            pub const fn element_fn(self) -> &'static str {
                match self { $( Instr::$id => stringify!($elem), )* }
            }

            /// The document the instruction implements.
            pub const fn doc(self) -> &'static str {
                match self { $( Instr::$id => $doc, )* }
            }

            /// The per-chip element-type rules.
            pub fn type_rules(self) -> &'static [TypeRule] {
                match self { $( Instr::$id => &[ $( ($chips, $types) ),+ ], )* }
            }

            /// The chips with the mixed-precision form (half sources, float destination, 64
            /// lanes per repeat, the product kept in float): the row's `=> widen` column.
            pub fn widen_chips(self) -> &'static [ChipId] {
                match self { $( Instr::$id => declare_instrs!(@w $($w)?), )* }
            }
        }
    };
    (@w) => { &[] };
    (@w $w:expr) => { $w };
    (@dom num) => { Domain::Num };
    (@dom float) => { Domain::Float };
    (@dom int) => { Domain::Int };
    (@dom bits) => { Domain::Bits };
    (@dom none) => { Domain::None };
}

for_each_vector_instr!(declare_instrs);

impl Instr {
    /// The comparison of a compare row (its element function: `lt`, `gt`, ...).
    pub fn cmp_mode(self) -> Option<crate::kernels::CmpMode> {
        use crate::kernels::CmpMode;
        if !matches!(
            self.shape(),
            Shape::CmpBits | Shape::CmpBitsScalar | Shape::CmpMask
        ) {
            return None;
        }
        CmpMode::ALL
            .into_iter()
            .find(|m| m.name() == self.element_fn())
    }

    /// The element types `chip` accepts, or `None` when the chip lacks the instruction.
    pub fn legal_types(self, chip: ChipId) -> Option<&'static [ElemType]> {
        self.type_rules()
            .iter()
            .find(|(chips, _)| chips.contains(&chip))
            .map(|(_, types)| *types)
    }

    /// Looks an instruction up by its TIK (either spelling) or Ascend C name; an Ascend C name
    /// shared by several rows (`Compare`) gives the first. TIK-only rows answer to their TIK
    /// names only.
    pub fn by_name(name: &str) -> Option<Instr> {
        Instr::ALL.iter().copied().find(|i| {
            i.tik_name() == name
                || i.tik_legacy_name() == name
                || (i.has_ascendc() && i.ascendc_name() == name)
        })
    }

    /// Whether the row has an Ascend C face ([`Shape::has_ascendc`]).
    pub const fn has_ascendc(self) -> bool {
        self.shape().has_ascendc()
    }

    /// Checks that `dtype` is legal for operand `param` on `chip`.
    pub fn check_type(
        self,
        name: &'static str,
        chip: ChipId,
        param: &'static str,
        dtype: ElemType,
    ) -> Result<()> {
        let legal = self
            .legal_types(chip)
            .ok_or(AscendError::NotSupported { instr: name, chip })?;
        if legal.contains(&dtype) {
            Ok(())
        } else {
            Err(AscendError::IllegalType {
                instr: name,
                param,
                dtype,
                chip,
                legal: legal
                    .iter()
                    .map(|t| t.numpy_name())
                    .collect::<Vec<_>>()
                    .join(", "),
            })
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Cast: legal (src, dst, round mode) triples per chip.

/// Ascend C `RoundMode` as the Cast tables name it (CAST_NONE kept apart from CAST_RINT because
/// the tables list them separately).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CastRound {
    /// CAST_NONE: RINT when the conversion loses precision, exact otherwise.
    None,
    Rint,
    Floor,
    Ceil,
    Round,
    Trunc,
    Odd,
}

impl CastRound {
    /// Every mode.
    pub const ALL: [CastRound; 7] = [
        CastRound::None,
        CastRound::Rint,
        CastRound::Floor,
        CastRound::Ceil,
        CastRound::Round,
        CastRound::Trunc,
        CastRound::Odd,
    ];

    /// The letter the tables below use.
    const fn letter(self) -> char {
        match self {
            CastRound::None => 'N',
            CastRound::Rint => 'R',
            CastRound::Floor => 'F',
            CastRound::Ceil => 'C',
            CastRound::Round => 'A',
            CastRound::Trunc => 'Z',
            CastRound::Odd => 'O',
        }
    }

    /// The Ascend C spelling.
    pub const fn name(self) -> &'static str {
        match self {
            CastRound::None => "CAST_NONE",
            CastRound::Rint => "CAST_RINT",
            CastRound::Floor => "CAST_FLOOR",
            CastRound::Ceil => "CAST_CEIL",
            CastRound::Round => "CAST_ROUND",
            CastRound::Trunc => "CAST_TRUNC",
            CastRound::Odd => "CAST_ODD",
        }
    }

    /// The rounding applied (CAST_NONE rounds to nearest even where anything is lost).
    pub const fn mode(self) -> npusim_core::RoundMode {
        use npusim_core::RoundMode as R;
        match self {
            CastRound::None | CastRound::Rint => R::Rint,
            CastRound::Floor => R::Floor,
            CastRound::Ceil => R::Ceil,
            CastRound::Round => R::Round,
            CastRound::Trunc => R::Trunc,
            CastRound::Odd => R::Odd,
        }
    }

    /// Parses TIK `vec_conv` strings: `''`/`none`, `round` (ties to even in TIK), `floor`,
    /// `ceil`/`ceiling`, `away-zero`, `to-zero`, `odd`; and the Ascend C names.
    pub fn parse(name: &str) -> Option<CastRound> {
        Some(match name {
            "" | "none" | "CAST_NONE" => CastRound::None,
            "round" | "rint" | "CAST_RINT" => CastRound::Rint,
            "floor" | "CAST_FLOOR" => CastRound::Floor,
            "ceil" | "ceiling" | "CAST_CEIL" => CastRound::Ceil,
            "away-zero" | "CAST_ROUND" => CastRound::Round,
            "to-zero" | "CAST_TRUNC" => CastRound::Trunc,
            "odd" | "CAST_ODD" => CastRound::Odd,
            _ => return None,
        })
    }
}

/// One legal conversion: source, destination, the modes it takes (letters of [`CastRound`];
/// `DEQ` for the SetDeqScale form).
pub type CastRule = (ElemType, ElemType, &'static str);

/// The conversion table of a chip.
pub fn cast_rules(chip: ChipId) -> &'static [CastRule] {
    match chip {
        Ascend950 => CAST_950,
        Ascend910B => CAST_A2,
        Ascend310B => CAST_310B,
        Ascend310P => CAST_310P,
        Ascend910 | Ascend310 => CAST_910,
    }
}

/// Checks a conversion against the chip's table.
pub fn check_cast(
    name: &'static str,
    chip: ChipId,
    src: ElemType,
    dst: ElemType,
    round: CastRound,
) -> Result<()> {
    let rules = cast_rules(chip);
    let Some((_, _, modes)) = rules.iter().find(|(s, d, _)| *s == src && *d == dst) else {
        let legal: Vec<String> = rules
            .iter()
            .filter(|(s, _, _)| *s == src)
            .map(|(_, d, _)| d.numpy_name().to_string())
            .collect();
        return Err(AscendError::IllegalType {
            instr: name,
            param: "dst",
            dtype: dst,
            chip,
            legal: if legal.is_empty() {
                format!("no conversion from {src}")
            } else {
                format!("from {src} to: {}", legal.join(", "))
            },
        });
    };
    if *modes == "DEQ" {
        // The SetDeqScale form: the round mode has no effect (Cast.md).
        return Ok(());
    }
    if modes.contains(round.letter()) {
        Ok(())
    } else {
        Err(AscendError::Rule {
            instr: name,
            param: "round_mode",
            value: format!("{} ({src} -> {dst} on {chip} takes {modes})", round.name()),
            rule: "the chip's Cast table does not list this round mode for the pair (N none, R rint, F floor, C ceil, A round, Z trunc, O odd)",
        })
    }
}

/// Ascend 950PR/Ascend 950DT (Cast.md).
pub const CAST_950: &[CastRule] = &[
    (I8, I16, "N"),
    (I8, F16, "N"),
    (I8, I32, "N"),
    (U8, U16, "N"),
    (U8, F16, "N"),
    (U8, U32, "N"),
    (I16, U8, "N"),
    (I16, F16, "R|F|C|A|Z"),
    (I16, I32, "N"),
    (I16, U32, "N"),
    (I16, F32, "N"),
    (U16, U8, "N"),
    (U16, U32, "N"),
    (F16, I8, "R|F|C|A|Z"),
    (F16, U8, "R|F|C|A|Z"),
    (F16, I16, "R|F|C|A|Z"),
    (F16, Bf16, "R|F|C|A|Z"),
    (F16, I32, "R|F|C|A|Z"),
    (F16, F32, "N"),
    (Bf16, F16, "R|F|C|A|Z"),
    (Bf16, I32, "R|F|C|A|Z"),
    (Bf16, F32, "N"),
    (I32, U8, "N"),
    (I32, I16, "N"),
    (I32, U16, "N"),
    (I32, F16, "DEQ"),
    (I32, F32, "R|F|C|A|Z"),
    (I32, I64, "N"),
    (U32, U8, "N"),
    (U32, I16, "N"),
    (U32, U16, "N"),
    (F32, I16, "R|F|C|A|Z"),
    (F32, F16, "R|F|C|A|Z|O|N"),
    (F32, Bf16, "R|F|C|A|Z"),
    (F32, I32, "R|F|C|A|Z"),
    (F32, F32, "R|F|C|A|Z"),
    (F32, I64, "R|F|C|A|Z"),
    (I64, I32, "N"),
    (I64, F32, "R|F|C|A|Z"),
];

/// Atlas A2 训练系列产品/Atlas A2 推理系列产品 (Cast.md).
pub const CAST_A2: &[CastRule] = &[
    (I8, F16, "N"),
    (U8, F16, "N"),
    (I16, F16, "R|F|C|A|Z|N"),
    (I16, F32, "N"),
    (F16, I8, "R|F|C|A|Z|N"),
    (F16, U8, "R|F|C|A|Z|N"),
    (F16, I16, "R|F|C|A|Z"),
    (F16, I32, "R|F|C|A|Z"),
    (F16, F32, "N"),
    (Bf16, I32, "R|F|C|A|Z"),
    (Bf16, F32, "N"),
    (I32, I16, "N"),
    (I32, F16, "DEQ"),
    (I32, F32, "R|F|C|A|Z|N"),
    (I32, I64, "N"),
    (F32, I16, "R|F|C|A|Z"),
    (F32, F16, "R|F|C|A|Z|O|N"),
    (F32, Bf16, "R|F|C|A|Z"),
    (F32, I32, "R|F|C|A|Z"),
    (F32, F32, "R|F|C|A|Z"),
    (F32, I64, "R|F|C|A|Z"),
    (I64, I32, "N"),
    (I64, F32, "R|F|C|A|Z"),
];

/// Atlas 200I/500 A2 推理产品 (Cast.md).
pub const CAST_310B: &[CastRule] = &[
    (I8, F16, "N"),
    (U8, F16, "N"),
    (I16, F16, "R|F|C|A|Z|N"),
    (I16, F32, "N"),
    (F16, I8, "R|F|C|A|Z|N"),
    (F16, U8, "R|F|C|A|Z|N"),
    (F16, I16, "R|F|C|A|Z"),
    (F16, I32, "R|F|C|A|Z"),
    (F16, F32, "N"),
    (Bf16, I32, "R|F|C|A|Z"),
    (Bf16, F32, "N"),
    (I32, I16, "N"),
    (I32, F16, "N"),
    (I32, F32, "R|F|C|A|Z|N"),
    (I32, I64, "N"),
    (F32, I16, "R|F|C|A|Z"),
    (F32, F16, "R|F|C|A|Z|O|N"),
    (F32, Bf16, "R|F|C|A|Z"),
    (F32, I32, "R|F|C|A|Z"),
    (F32, F32, "R|F|C|A|Z"),
    (F32, I64, "R|F|C|A|Z"),
    (I64, I32, "N"),
    (I64, F32, "R|F|C|A|Z"),
];

/// Atlas 推理系列产品AI Core (Cast.md).
pub const CAST_310P: &[CastRule] = &[
    (I8, F16, "N"),
    (U8, F16, "N"),
    (I16, F16, "N"),
    (F16, I8, "F|C|A|Z|N"),
    (F16, U8, "F|C|A|Z|N"),
    (F16, I16, "R"),
    (F16, I32, "R|F|C|A|Z"),
    (F16, F32, "N"),
    (I32, I16, "N"),
    (I32, F16, "DEQ"),
    (I32, F32, "N"),
    (F32, F16, "O|N"),
    (F32, I64, "R|F|C|A|Z"),
];

/// Atlas 训练系列产品 (Cast.md).
pub const CAST_910: &[CastRule] = &[
    (I8, F16, "N"),
    (U8, F16, "N"),
    (I16, F16, "N"),
    (F16, I8, "F|C|A|Z|N"),
    (F16, U8, "F|C|A|Z|N"),
    (F16, I32, "R|F|C|A|Z"),
    (F16, F32, "N"),
    (I32, F32, "N"),
    (F32, F16, "O|N"),
    (F32, I64, "R|F|C|A|Z"),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_matches_seed_product_lists() {
        // Seed 000: float16 on Atlas 200/300/500 inference, float16/float32 on Atlas training.
        assert_eq!(Instr::VcmpvGt.legal_types(Ascend310), Some(&[F16][..]));
        assert_eq!(Instr::VcmpvGt.legal_types(Ascend910), Some(&[F16, F32][..]));
        // Seed 001: half only on Atlas training, half/float on 310P, A2 and 310B; absent on 310.
        assert_eq!(
            Instr::PairReduceSum.legal_types(Ascend910),
            Some(&[F16][..])
        );
        assert_eq!(
            Instr::PairReduceSum.legal_types(Ascend310B),
            Some(&[F16, F32][..])
        );
        assert_eq!(Instr::PairReduceSum.legal_types(Ascend310), None);
        assert_eq!(Instr::by_name("vec_cmpv_eq"), Some(Instr::VcmpvEq));
        assert_eq!(Instr::by_name("PairReduceSum"), Some(Instr::PairReduceSum));
        assert_eq!(Instr::by_name("vadd"), Some(Instr::Add));
        assert_eq!(Instr::Add.shape(), Shape::BinaryAcc);
    }

    #[test]
    fn cast_table_follows_the_page() {
        // A2: float -> half takes every mode including ODD; half -> int32 has no CAST_NONE.
        for r in CastRound::ALL {
            assert!(check_cast("Cast", Ascend910B, F32, F16, r).is_ok());
        }
        assert!(check_cast("Cast", Ascend910B, F16, I32, CastRound::None).is_err());
        assert!(check_cast("Cast", Ascend910B, F16, I32, CastRound::Ceil).is_ok());
        // Atlas training: float -> half only ODD / NONE.
        assert!(check_cast("Cast", Ascend910, F32, F16, CastRound::Rint).is_err());
        assert!(check_cast("Cast", Ascend910, F32, F16, CastRound::None).is_ok());
        assert!(check_cast("Cast", Ascend910, F32, Bf16, CastRound::Rint).is_err());
    }
}
