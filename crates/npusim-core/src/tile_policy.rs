//! Numeric and behavioural policy of the PTO tile ISA, per chip.
//!
//! The sources disagree on NaN in min/max, on reduction order and on denormals
//! (`shared/research/pto-isa.md` §5), so each chip profile names its choice here. The hardware
//! profiles are the defaults; [`TilePolicy::pto_cpu_sim`] reproduces the public pto-isa CPU
//! simulator so that users can cross-check against it.

/// Which tile ISA generation the chip implements (its instruction pages' A2A3 / A5 lists).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TileArch {
    A2A3,
    A5,
}

/// What min/max do with NaN operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NanMinMaxPolicy {
    /// Either operand NaN gives NaN (the vector ISA pages vmax/vmin).
    Propagate,
    /// One NaN gives the other operand (IEEE minNum/maxNum; pto-spec minmax.md).
    ReturnOther,
    /// C++ `std::max(a, b)` = `a < b ? b : a` and `std::min(a, b)` = `b < a ? b : a`, as the
    /// pto-isa CPU simulator computes.
    CppStd,
}

/// The order in which sums and products over a row or column are accumulated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReductionOrder {
    /// Left to right, accumulating in the element type's compute type (f32 for floats).
    Sequential,
    /// Adjacent-pair binary tree.
    Tree,
}

/// The order of a matmul's K-sum and where the accumulator's old value (TMATMUL_ACC) or the
/// bias (TMATMUL_BIAS) enters it (float accumulators; integer sums wrap and do not depend on
/// it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MatmulOrder {
    /// Hardware: the accumulator is seeded with the old value (or the bias, or 0) and receives
    /// one partial sum per fractal K-block (32 bytes of the input type: 16 f16/bf16, 8 f32,
    /// 32 int8), each partial an FMA chain over its block in K order, rounded to f32 once per
    /// block. The rounding inside a block of the real cube is not public; this is the model.
    FractalKBlocks,
    /// The public pto-isa CPU simulator: one FMA chain over all of K from 0, the old value or
    /// bias added after the loop (`C0 + Σ`; pto-isa issue #280).
    AccAfterK,
}

/// The PTO tile ISA's per-chip policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TilePolicy {
    /// Instruction-page generation.
    pub arch: TileArch,
    /// NaN in TMIN/TMAX and their scalar/partial/reduce forms.
    pub nan_min_max: NanMinMaxPolicy,
    /// Row/column reduction order.
    pub reduction_order: ReductionOrder,
    /// TDIVS tile/scalar as a multiply by the reciprocal (A5).
    pub divs_by_reciprocal: bool,
    /// Whether TLOAD with `PadValue::Null` fills the tile with zeros first (the CPU simulator
    /// does); on hardware Null means "no padding", so the bytes outside the valid region keep
    /// their old contents.
    pub pad_null_fills_zero: bool,
    /// Matmul K-sum order.
    pub matmul_order: MatmulOrder,
}

impl TilePolicy {
    /// Ascend 910B/910C hardware.
    pub const A2A3_HW: TilePolicy = TilePolicy {
        arch: TileArch::A2A3,
        nan_min_max: NanMinMaxPolicy::Propagate,
        reduction_order: ReductionOrder::Tree,
        divs_by_reciprocal: false,
        pad_null_fills_zero: false,
        matmul_order: MatmulOrder::FractalKBlocks,
    };
    /// Ascend 950 hardware.
    pub const A5_HW: TilePolicy = TilePolicy {
        arch: TileArch::A5,
        nan_min_max: NanMinMaxPolicy::Propagate,
        reduction_order: ReductionOrder::Tree,
        divs_by_reciprocal: true,
        pad_null_fills_zero: false,
        matmul_order: MatmulOrder::FractalKBlocks,
    };

    /// The public pto-isa CPU simulator's numerics for the same arch.
    pub const fn pto_cpu_sim(arch: TileArch) -> TilePolicy {
        TilePolicy {
            arch,
            nan_min_max: NanMinMaxPolicy::CppStd,
            reduction_order: ReductionOrder::Sequential,
            divs_by_reciprocal: false,
            pad_null_fills_zero: true,
            matmul_order: MatmulOrder::AccAfterK,
        }
    }
}
