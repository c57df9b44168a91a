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
    /// What a loop vectorizer makes of a sum marked for vectorisation: `lanes * accumulators`
    /// partial sums, partial `k` taking elements `j ≡ k (mod lanes * accumulators)` of the
    /// leading whole groups, each from 0 in order; the accumulator vectors are added lane-wise
    /// (the second onto the first, then the third onto that, ...), their lanes are added left
    /// to right from 0, and the elements after the last whole group follow one by one. The
    /// pto-isa CPU simulator's TROWSUM built with clang -O2 as its CMake does sums so, with
    /// 4 lanes and 2 accumulators. Products are not vectorised there and stay sequential.
    Interleaved {
        /// Lanes of a vector accumulator (4: SSE f32).
        lanes: u8,
        /// Vector accumulators (the vectorizer's interleave count).
        accumulators: u8,
    },
}

impl ReductionOrder {
    /// The sum of `v` in this order, with `add` the compute type's rounding addition and `zero`
    /// its zero. The tree and the sequential forms serve as the reference for faster twins.
    pub fn sum<N: Copy>(self, v: &[N], zero: N, add: impl Fn(N, N) -> N) -> N {
        match self {
            ReductionOrder::Sequential => v.iter().fold(zero, |a, b| add(a, *b)),
            ReductionOrder::Tree => {
                let mut cur = v.to_vec();
                while cur.len() > 1 {
                    cur = cur
                        .chunks(2)
                        .map(|c| if c.len() == 2 { add(c[0], c[1]) } else { c[0] })
                        .collect();
                }
                cur.first().copied().unwrap_or(zero)
            }
            ReductionOrder::Interleaved {
                lanes,
                accumulators,
            } => {
                let (l, w) = (
                    usize::from(lanes.max(1)),
                    usize::from(lanes.max(1)) * usize::from(accumulators.max(1)),
                );
                let whole = v.len() / w * w;
                let mut part = vec![zero; w];
                for group in v[..whole].chunks_exact(w) {
                    for (p, x) in part.iter_mut().zip(group) {
                        *p = add(*p, *x);
                    }
                }
                let mut lanes_sum = part[..l].to_vec();
                for acc in part[l..].chunks_exact(l) {
                    for (s, x) in lanes_sum.iter_mut().zip(acc) {
                        *s = add(*x, *s);
                    }
                }
                let folded = lanes_sum.iter().fold(zero, |a, b| add(a, *b));
                v[whole..].iter().fold(folded, |a, b| add(a, *b))
            }
        }
    }
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

/// How TQUANT / TDEQUANT read a row-major per-row parameter tile (scale, offset).
///
/// The pages allow a row-major parameter tile of exactly `32 / sizeof(T)` valid columns and the
/// data's valid rows. pto-isa's NPU implementation checks that only with `PTO_ASSERT`, which a
/// release build compiles to nothing (`include/pto/common/debug.h`; `_DEBUG` builds trap), and
/// multiplies with `vmul` at src1 block stride 0, repeat stride 1: row `r` uses the tile's
/// 32-byte block `r`, element `c mod (32 / sizeof(T))` for column `c`, whatever the tile's
/// declared shape. PTOAS's own Quant samples pass a full 32x32 scale tile and their goldens
/// follow exactly that (`fp_flat[r * 8 + c % 8]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RowParamRule {
    /// Hardware with a release build of the library: the block read above; the tile must hold
    /// `rows` 32-byte blocks (a typed error otherwise). For a tile of the documented shape
    /// whose block repeats one value this is the documented per-row broadcast.
    BlockBroadcast,
    /// The pages' rule (and a `_DEBUG` build's trap): any other valid shape is a typed error;
    /// row `r` uses the block as above.
    Documented,
}

/// How TLOAD into a boxed Mat tile from a 2-D global tensor sizes the move in the two boxing
/// conversions, ND → Nz and DN → Zn, when the tile's valid region differs from the global
/// shape.
///
/// The TLOAD page says the transfer size is the tile's valid region; the public CPU simulator
/// `assert`s that it equals the global shape. pto-isa's NPU code for these two conversions reads
/// neither in any build: on A2A3 (`TLoadGm2L1Nd2nz` / `TLoadGm2L1Dn2zn`) it programs the nd2nz
/// DMA with the global tensor's rows and columns (nValue, dValue = Shape3, Shape4; swapped for
/// DN); on A5 (`TLoadCubeND2NZ` / `TLoadCubeDN2ZN`) the DMA's n count comes from the global
/// tensor (Shape3 rows for ND, Shape4 columns for DN) and its d length from the valid region
/// (valid columns for ND, valid rows for DN). Every other TLOAD form keeps the page's rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MatLoadExtent {
    /// A2A3 hardware: the global tensor's rows x columns are moved.
    GlobalShape,
    /// A5 hardware: ND → Nz moves the global rows x the valid columns, DN → Zn the valid rows x
    /// the global columns.
    GlobalOuterValidInner,
    /// The page and the CPU simulator: a valid region different from the global shape is a
    /// typed error.
    Documented,
}

/// TSTORE / TSTORE_FP from an Acc tile into a 2-D ND tensor whose row count (Shape3) differs
/// from the tile's valid rows.
///
/// The pages and the CPU simulator require the valid region to equal the global shape.
/// pto-isa's NPU code (`TStoreAccNz2nd`, A2A3 and A5) checks that only with `PTO_ASSERT`
/// (compiled out of a release build) and programs the fixpipe with the valid region: m = valid
/// rows, n = valid columns, the destination row stride Stride3, and validCol / Shape4 ND
/// matrices. With valid columns = Shape4 (one ND matrix) that writes the valid rows at the
/// tensor's row stride, whatever Shape3 is. Fewer valid columns than Shape4 give a count of
/// zero ND matrices, which the fixpipe takes as no transfer (the Ascend C Fixpipe page, A2/A3 and
/// 950): under `ValidRows` the store writes nothing. More valid columns than Shape4 (several ND
/// matrices) are not modelled: a typed error under both variants, as is every mismatch under
/// `Documented`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AccStoreRows {
    /// Hardware with a release build of the library: the valid rows are stored.
    ValidRows,
    /// The pages and the CPU simulator: valid rows must equal Shape3 (typed error otherwise).
    Documented,
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
    /// TQUANT / TDEQUANT row-major parameter tiles.
    pub row_params: RowParamRule,
    /// TLOAD ND → Nz / DN → Zn into Mat: the extent moved.
    pub mat_load_extent: MatLoadExtent,
    /// TSTORE / TSTORE_FP Acc -> ND: valid rows against the global rows.
    pub acc_store_rows: AccStoreRows,
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
        row_params: RowParamRule::BlockBroadcast,
        mat_load_extent: MatLoadExtent::GlobalShape,
        acc_store_rows: AccStoreRows::ValidRows,
    };
    /// Ascend 950 hardware.
    pub const A5_HW: TilePolicy = TilePolicy {
        arch: TileArch::A5,
        nan_min_max: NanMinMaxPolicy::Propagate,
        reduction_order: ReductionOrder::Tree,
        divs_by_reciprocal: true,
        pad_null_fills_zero: false,
        matmul_order: MatmulOrder::FractalKBlocks,
        row_params: RowParamRule::BlockBroadcast,
        mat_load_extent: MatLoadExtent::GlobalOuterValidInner,
        acc_store_rows: AccStoreRows::ValidRows,
    };

    /// The public pto-isa CPU simulator's numerics for the same arch.
    pub const fn pto_cpu_sim(arch: TileArch) -> TilePolicy {
        TilePolicy {
            arch,
            nan_min_max: NanMinMaxPolicy::CppStd,
            reduction_order: ReductionOrder::Interleaved {
                lanes: 4,
                accumulators: 2,
            },
            divs_by_reciprocal: false,
            pad_null_fills_zero: true,
            matmul_order: MatmulOrder::AccAfterK,
            row_params: RowParamRule::BlockBroadcast,
            mat_load_extent: MatLoadExtent::Documented,
            acc_store_rows: AccStoreRows::Documented,
        }
    }
}

/// The numeric policies a run can choose by name (`npusim run --policy`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum PolicyName {
    /// The chip's own numerics ([`TilePolicy`] of its profile): the default.
    #[default]
    Hw,
    /// The public pto-isa CPU simulator as its CMake builds it ([`TilePolicy::pto_cpu_sim`]).
    PtoCpuSim,
}

impl PolicyName {
    /// Every name, in the spelling the command line takes.
    pub const NAMES: [&'static str; 2] = ["hw", "pto-cpu-sim"];

    /// The policy called `name` (`hw`, `pto-cpu-sim`).
    pub fn parse(name: &str) -> Option<PolicyName> {
        match name {
            "hw" | "hardware" => Some(PolicyName::Hw),
            "pto-cpu-sim" | "pto_cpu_sim" => Some(PolicyName::PtoCpuSim),
            _ => None,
        }
    }

    /// The command-line spelling.
    pub fn name(self) -> &'static str {
        match self {
            PolicyName::Hw => "hw",
            PolicyName::PtoCpuSim => "pto-cpu-sim",
        }
    }

    /// The tile policy this name selects, given the chip's own.
    pub fn tile_policy(self, hw: TilePolicy) -> TilePolicy {
        match self {
            PolicyName::Hw => hw,
            PolicyName::PtoCpuSim => TilePolicy::pto_cpu_sim(hw.arch),
        }
    }
}
