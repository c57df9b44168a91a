//! Per-repeat and per-block reductions: WholeReduceSum/Max/Min (`vcadd`/`vcmax`/`vcmin`,
//! Ascend C `ReduceRepeat`) and BlockReduceSum/Max/Min (`vcgadd`/`vcgmax`/`vcgmin`,
//! `ReduceDataBlock`).
//!
//! Sources: asc-devkit `归约计算/ReduceRepeat.md`, `ReduceDataBlock.md` (old names
//! WholeReduce*/BlockReduce*); `shared/research/ascend-vector.md` §1.2, §1.4, §4.
//! - Sums add adjacent pairs as a binary tree, every partial sum rounded to the element type
//!   (and saturated in saturating mode): inside a 32-byte block, then over the 8 block results.
//!   Masked-off lanes count as 0.
//! - Max/Min ignore masked-off lanes; ties go to the lowest index; a NaN wins (policy).
//! - WholeReduceMax/Min write `[value, index]` (ORDER_VALUE_INDEX), the index relative to the
//!   repeat stored as raw integer bits in T; dstRepStride in units of that pair (2·sizeof(T)),
//!   of sizeof(T) for WholeReduceSum; dst aligned to those units.
//! - BlockReduce writes 8 results per repeat, dstRepStride in units of 8·sizeof(T) (16 B half,
//!   32 B float), dst 16/32-byte aligned. A block with no active lane keeps its dst on chips
//!   whose profile keeps masked groups (A2/A3, 310P, 910); elsewhere it is filled: 0 for sums,
//!   −65504/+65504 (half) or −inf/+inf (float) for Max/Min (ReduceDataBlock.md).
//! - A repeat with no active lane in WholeReduce writes nothing (policy; mask 0 is a NOP).
//! - Overlap of dst and src is not checked (BlockReduceSum allows aliasing).
//!
//! The whole-tensor reductions (`reduce_all_lanes`: Ascend C ReduceSum / ReduceMax / ReduceMin,
//! asc-devkit `ReduceSum.md`, `ReduceMax.md`, `ReduceMin.md`; TIK `vec_reduce_add` /
//! `vec_reduce_max` / `vec_reduce_min`, atlastikapi pages, via `tik_reduce_all`): sums in the
//! chip's and form's order (`RepeatOrder`; ReduceSum.md method 1 for the high-dimension forms,
//! method 2 for the A2/A3 count form), max/min as `[value, index]` with `calIndex` /
//! `cal_index`.

use crate::core::{Operand, VectorCore, check};
use crate::error::{AscendError, Result};
use crate::geometry::{BLOCK_BYTES, Walk};
use crate::isa::{Instr, Shape};
use crate::mask::{self, LaneMask, MaskArg, MaskRegister};
use crate::vector::{F16Io, F32Io, FloatIo, MaskSource};
use npusim_core::{ChipProfile, ElemType, MaskedGroupPolicy, MemSpace, OverflowMode};

/// How partial results combine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Combine {
    Sum,
    Max,
    Min,
}

impl Instr {
    /// The combination of a reduction row, from its element function (`add`, `max`, `min`).
    pub fn combine(self) -> Option<Combine> {
        if !matches!(
            self.shape(),
            Shape::WholeReduce | Shape::RepeatReduce | Shape::BlockReduce | Shape::ReduceAll
        ) {
            return None;
        }
        match self.element_fn() {
            "add" => Some(Combine::Sum),
            "max" => Some(Combine::Max),
            "min" => Some(Combine::Min),
            _ => None,
        }
    }
}

/// A checked reduction.
#[derive(Clone, Debug, PartialEq)]
pub struct ReduceOp {
    pub instr: Instr,
    pub name: &'static str,
    pub dst: Operand,
    pub src: Operand,
    pub repeat: u32,
    pub mask: MaskSource,
    pub dst_rep_stride: u32,
    pub src_blk_stride: u32,
    pub src_rep_stride: u32,
}

impl ReduceOp {
    /// Checks a call for `chip`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        chip: &ChipProfile,
        instr: Instr,
        name: &'static str,
        dst: &Operand,
        src: &Operand,
        mask: MaskArg,
        is_set_mask: bool,
        repeat: i64,
        dst_rep_stride: i64,
        src_blk_stride: i64,
        src_rep_stride: i64,
    ) -> Result<ReduceOp> {
        instr.check_type(name, chip.id, "src", src.dtype)?;
        check::same_type(name, "dst", dst, "src", src.dtype)?;
        let repeat = check::range(name, "repeatTime", repeat, 0, 255, "[0, 255]")?;
        let dst_rep = check::range(name, "dstRepStride", dst_rep_stride, 0, 65535, "[0, 65535]")?;
        let src_blk = check::range(name, "srcBlkStride", src_blk_stride, 0, 65535, "[0, 65535]")?;
        let src_rep = check::range(name, "srcRepStride", src_rep_stride, 0, 65535, "[0, 65535]")?;
        check::scope(name, "dst", dst, MemSpace::Ub)?;
        check::scope(name, "src", src, MemSpace::Ub)?;
        check::align(chip, name, "src", src)?;
        let op = ReduceOp {
            instr,
            name,
            dst: dst.clone(),
            src: src.clone(),
            repeat,
            mask: MaskSource::Register,
            dst_rep_stride: dst_rep,
            src_blk_stride: src_blk,
            src_rep_stride: src_rep,
        };
        let unit = op.dst_unit();
        if !dst.addr().is_multiple_of(unit.min(32)) {
            return Err(AscendError::Misaligned {
                instr: name,
                param: "dst",
                space: MemSpace::Ub,
                addr: dst.addr(),
                align: unit.min(32),
            });
        }
        let lanes = op.lanes();
        if instr.shape() == Shape::RepeatReduce && is_set_mask {
            // RepeatReduceSum.md: the continuous form only, mask in [1, 128] (16-bit) or
            // [1, 64] (32-bit).
            match mask {
                MaskArg::Count(n) if (1..=lanes as u64).contains(&n) => {}
                MaskArg::Count(n) => {
                    return Err(AscendError::BadMask {
                        instr: name,
                        value: n.to_string(),
                        rule: "RepeatReduceSum takes a continuous mask in [1, 128] for 16-bit types or [1, 64] for 32-bit types",
                    });
                }
                other => {
                    return Err(AscendError::BadMask {
                        instr: name,
                        value: format!("{other:?}"),
                        rule: "RepeatReduceSum has no bit-wise mask form (continuous mask only)",
                    });
                }
            }
        }
        let mask = if is_set_mask {
            MaskSource::Fixed(mask::resolve(
                name,
                mask,
                lanes,
                true,
                MaskRegister::default(),
            )?)
        } else {
            mask::resolve(name, mask, lanes, false, MaskRegister::default())?;
            MaskSource::Register
        };
        let op = ReduceOp { mask, ..op };
        if let MaskSource::Fixed(m) = mask {
            op.check_bounds(m)?;
        }
        Ok(op)
    }

    fn lanes(&self) -> u32 {
        256 / self.src.dtype.size() as u32
    }

    fn is_block(&self) -> bool {
        self.instr.shape() == Shape::BlockReduce
    }

    /// Bytes of one repeat's output, the dstRepStride unit.
    fn dst_unit(&self) -> u64 {
        let s = self.src.dtype.size() as u64;
        match (self.is_block(), self.instr.combine()) {
            (true, _) => 8 * s,
            (false, Some(Combine::Sum)) => s,
            (false, _) => 2 * s,
        }
    }

    fn src_walk(&self) -> Walk {
        Walk {
            base: self.src.addr(),
            blk_stride: self.src_blk_stride as u64 * BLOCK_BYTES,
            rep_stride: self.src_rep_stride as u64 * BLOCK_BYTES,
            elem_size: self.src.dtype.size() as u64,
        }
    }

    fn check_bounds(&self, m: LaneMask) -> Result<()> {
        let lanes = self.lanes();
        let n = m.iterations(self.repeat, lanes);
        if n == 0 {
            return Ok(());
        }
        check::within(
            self.name,
            "src",
            &self.src,
            self.src_walk().span(n, |r| m.lanes_of(r, lanes)),
        )?;
        let d = self.dst.addr();
        let last = d + (n as u64 - 1) * self.dst_rep_stride as u64 * self.dst_unit();
        check::within(
            self.name,
            "dst",
            &self.dst,
            Some((d, last.max(d) + self.dst_unit())),
        )
    }

    /// Runs the reduction with the core's current mask state.
    pub fn execute(&self, core: &mut VectorCore) -> Result<()> {
        let m = match self.mask {
            MaskSource::Fixed(m) => m,
            MaskSource::Register => {
                let m = mask::resolve(
                    self.name,
                    MaskArg::Placeholder,
                    self.lanes(),
                    false,
                    core.mask,
                )?;
                self.check_bounds(m)?;
                m
            }
        };
        match self.src.dtype {
            ElemType::F16 => self.run::<F16Io>(core, m),
            ElemType::F32 => self.run::<F32Io>(core, m),
            other => Err(AscendError::IllegalType {
                instr: self.name,
                param: "src",
                dtype: other,
                chip: core.chip().id,
                legal: "half, float".into(),
            }),
        }
    }

    fn run<IO: FloatIo>(&self, core: &mut VectorCore, m: LaneMask) -> Result<()> {
        let lanes = self.lanes();
        let n = m.iterations(self.repeat, lanes);
        let chip = core.chip();
        let mode = chip.vector.overflow_mode;
        let comb = self.instr.combine().unwrap_or(Combine::Sum);
        let lpb = (32 / IO::SIZE) as u32;
        let w = self.src_walk();
        let size = IO::SIZE;
        // Rounds a partial result to T and applies the overflow mode.
        let round = |v: f32| -> f32 {
            let mut b = [0u8; 4];
            IO::store_one(v, &mut b);
            let r = IO::load_one(&b);
            if mode == OverflowMode::Saturate && (r.is_nan() || r.is_infinite()) {
                if r.is_nan() {
                    0.0
                } else {
                    r.signum() * IO::MAX
                }
            } else {
                r
            }
        };
        let fill = match comb {
            Combine::Sum => 0.0,
            Combine::Max if IO::IS_F16 => -IO::MAX,
            Combine::Max => f32::NEG_INFINITY,
            Combine::Min if IO::IS_F16 => IO::MAX,
            Combine::Min => f32::INFINITY,
        };
        let keep_empty = chip.vector.pair_reduce_masked_pair == MaskedGroupPolicy::KeepDst;
        let mut vals = [0f32; 128];
        // The best (value, global index) over every repeat, for the max/min register.
        let mut overall: Option<(f32, u64)> = None;
        for r in 0..n {
            let active = m.lanes_of(r, lanes);
            for b in 0..8u32 {
                if (active >> (b * lpb)) & mask::prefix(lpb) == 0 {
                    continue;
                }
                let bytes = core.ub().bytes(w.block_addr(r, b), BLOCK_BYTES)?;
                for e in 0..lpb as usize {
                    vals[b as usize * lpb as usize + e] = IO::load_one(&bytes[e * size..]);
                }
            }
            let lane = |e: u32| active >> e & 1 == 1;
            // (value, index, any lane active) over lanes [lo, hi).
            let reduce = |lo: u32, hi: u32| -> Option<(f32, u32)> {
                match comb {
                    Combine::Sum => {
                        if !(lo..hi).any(lane) {
                            return None;
                        }
                        let mut level: Vec<f32> = (lo..hi)
                            .map(|e| if lane(e) { vals[e as usize] } else { 0.0 })
                            .collect();
                        while level.len() > 1 {
                            level = level.chunks(2).map(|p| round(p[0] + p[1])).collect();
                        }
                        Some((level[0], 0))
                    }
                    Combine::Max | Combine::Min => {
                        let mut best: Option<(f32, u32)> = None;
                        for e in (lo..hi).filter(|e| lane(*e)) {
                            let v = vals[e as usize];
                            best = Some(match best {
                                None => (v, e),
                                Some((bv, bi)) => {
                                    let better = if bv.is_nan() {
                                        false
                                    } else if v.is_nan() {
                                        true
                                    } else if comb == Combine::Max {
                                        v > bv
                                    } else {
                                        v < bv
                                    };
                                    if better { (v, e) } else { (bv, bi) }
                                }
                            });
                        }
                        best
                    }
                }
            };
            let base = self.dst.addr() + r as u64 * self.dst_rep_stride as u64 * self.dst_unit();
            let ub = core.ub_mut();
            if self.is_block() {
                for b in 0..8u32 {
                    let v = match reduce(b * lpb, (b + 1) * lpb) {
                        Some((v, _)) => v,
                        None if keep_empty => continue,
                        None => fill,
                    };
                    let mut o = [0u8; 4];
                    IO::store_one(v, &mut o);
                    ub.write(base + (b as usize * size) as u64, &o[..size])?;
                }
            } else {
                // For sums the tree over all lanes is the tree over the 8 block sums.
                let Some((v, idx)) = reduce(0, lanes) else {
                    continue;
                };
                if comb != Combine::Sum {
                    let better = match overall {
                        None => true,
                        Some((b, _)) => {
                            !b.is_nan()
                                && (v.is_nan() || if comb == Combine::Max { v > b } else { v < b })
                        }
                    };
                    if better {
                        overall = Some((v, r as u64 * lanes as u64 + idx as u64));
                    }
                }
                let mut o = [0u8; 8];
                IO::store_one(v, &mut o);
                if comb != Combine::Sum {
                    o[size..2 * size].copy_from_slice(&(idx as u64).to_le_bytes()[..size]);
                }
                ub.write(base, &o[..self.dst_unit() as usize])?;
            }
        }
        if !self.is_block() && comb != Combine::Sum {
            // GetReduceRepeatMaxMinSpr.md: readable only after a contiguous call
            // (srcBlkStride 1, srcRepStride 8) in normal mask mode.
            let contiguous = self.src_blk_stride == 1 && self.src_rep_stride == 8;
            let counter = matches!(self.mask, MaskSource::Register)
                && core.mask.mode == crate::mask::MaskMode::Counter;
            core.max_min = match overall {
                Some((v, i)) if contiguous && !counter => {
                    let mut o = [0u8; 8];
                    IO::store_one(v, &mut o);
                    Some((self.src.dtype, u64::from_le_bytes(o), i))
                }
                _ => None,
            };
        }
        Ok(())
    }
}

/// The order in which a whole-tensor sum combines its per-repeat sums.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RepeatOrder {
    /// Pairwise trees over the repeat sums, a repeat's worth of lanes at a time
    /// (310/910/310P `vec_reduce_add`; Ascend C ReduceSum method 1).
    Tree,
    /// Sequential within chunks of 255 repeats, chunk sums then pairwise (A2/A3
    /// `vec_reduce_add`; Ascend C ReduceSum method 2).
    Sequential255,
    /// Atlas 200I/500 A2 `vec_reduce_add`: lane-wise sequential sums of the odd repeats (A) and
    /// the even ones (B), the last repeat (C) apart when the count is odd; D = (A + B) + C lane
    /// by lane; then one pairwise tree over D's lanes.
    Parity,
}

impl RepeatOrder {
    /// The order a chip's TIK `vec_reduce_add` uses (atlastikapi vec_reduce_add page via
    /// ascend-vector.md §4). Ascend 950 is not listed there: it follows A2/A3 (policy).
    pub fn tik(chip: npusim_core::ChipId) -> RepeatOrder {
        use npusim_core::ChipId::*;
        match chip {
            Ascend310 | Ascend910 | Ascend310P => RepeatOrder::Tree,
            Ascend910B | Ascend950 => RepeatOrder::Sequential255,
            Ascend310B => RepeatOrder::Parity,
        }
    }
}

/// Sums `count` elements of `src` (16-bit or 32-bit float) in repeats of 256 bytes the way the
/// chip's order says, every partial sum rounded to T (and saturated on saturating chips);
/// writes the result to `dst[0]`. Masked-off lanes of the last repeat count as 0.
#[allow(clippy::too_many_arguments)]
pub fn reduce_sum(
    core: &mut VectorCore,
    name: &'static str,
    dst: &Operand,
    src: &Operand,
    count: i64,
    src_rep_stride: i64,
    order: RepeatOrder,
) -> Result<()> {
    reduce_all(
        core,
        Instr::ReduceSum,
        name,
        dst,
        src,
        count,
        src_rep_stride,
        order,
    )
}

/// A whole-tensor reduction of `instr` (ReduceSum, ReduceMax, ReduceMin) over the first
/// `count` elements (the count form): sums in the chip's order; max/min write
/// `[value, index]` (index as raw integer bits in T, ties to the lowest index, a NaN wins), the
/// index counting elements in repeat order.
#[allow(clippy::too_many_arguments)]
pub fn reduce_all(
    core: &mut VectorCore,
    instr: Instr,
    name: &'static str,
    dst: &Operand,
    src: &Operand,
    count: i64,
    src_rep_stride: i64,
    order: RepeatOrder,
) -> Result<()> {
    let count = check::range(name, "count", count, 0, u32::MAX as i64, "[0, 2^32)")? as u64;
    reduce_all_lanes(
        core,
        instr,
        name,
        dst,
        src,
        ReduceLanes::Count(count),
        src_rep_stride,
        order,
        true,
    )
}

/// Which lanes of which repeats a whole-tensor reduction reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduceLanes {
    /// The count form: the first `count` elements (whole repeats, then a prefix).
    Count(u64),
    /// The high-dimension forms (ReduceMax.md "tensor高维切分计算"): `repeat` repeats of the
    /// mask (continuous or bit-wise, normal mode).
    Masked { mask: MaskArg, repeat: i64 },
}

/// The whole-tensor reduction in any of its forms. `cal_index` (ReduceMax/ReduceMin's
/// `calIndex`) writes `[value, index]` when true and only the value when false; sums ignore it.
/// The index is `lane + repeat · srcRepStride · (32 / sizeof(T))`, the element's offset from
/// `src` (with srcRepStride 8, repeat · lanes + lane, the pages' contiguous examples): the
/// vendor implementations compute it so, Ascend C (asc-devkit `impl/basic_api/dav_c220` and
/// `dav_m200` `kernel_operator_vec_reduce_impl.h`: `offsetNumPerRep = ONE_BLK_SIZE /
/// sizeof(T) * srcRepStride`, index = in-repeat index + offsetNumPerRep · repeat) and TIK
/// (`tik_reduce_api.py`: `offset_num_per_rep = ONE_BLK_SIZE // dtype_size * src_rep_stride`).
/// Ties go to the first repeat (then the lowest lane). On half the index must fit 16 bits
/// (ReduceMax.md: at most 65535), checked before anything runs.
#[allow(clippy::too_many_arguments)]
pub fn reduce_all_lanes(
    core: &mut VectorCore,
    instr: Instr,
    name: &'static str,
    dst: &Operand,
    src: &Operand,
    lanes_arg: ReduceLanes,
    src_rep_stride: i64,
    order: RepeatOrder,
    cal_index: bool,
) -> Result<()> {
    let chip = core.chip();
    instr.check_type(name, chip.id, "src", src.dtype)?;
    check::same_type(name, "dst", dst, "src", src.dtype)?;
    check::scope(name, "dst", dst, MemSpace::Ub)?;
    check::scope(name, "src", src, MemSpace::Ub)?;
    check::align(chip, name, "src", src)?;
    let rep = check::range(
        name,
        "src_rep_stride",
        src_rep_stride,
        0,
        65535,
        "[0, 65535]",
    )? as u64;
    let size = src.dtype.size() as u64;
    let lanes = 256 / size;
    // (number of repeats, the lanes of repeat r)
    let (n, lane_mask) = match lanes_arg {
        ReduceLanes::Count(count) => (count.div_ceil(lanes), LaneMask::Counter(count)),
        ReduceLanes::Masked { mask, repeat } => {
            let repeat =
                check::range(name, "repeat", repeat, 0, i32::MAX as i64, "[0, 2^31 - 1]")? as u64;
            if matches!(mask, MaskArg::Placeholder) {
                return Err(AscendError::BadMask {
                    instr: name,
                    value: "MASK_PLACEHOLDER".into(),
                    rule: "the whole-tensor reductions take a continuous or bit-wise mask",
                });
            }
            let m = mask::resolve(name, mask, lanes as u32, true, MaskRegister::default())?;
            (repeat, m)
        }
    };
    let lanes_of = |r: u64| -> u128 {
        match lane_mask {
            LaneMask::Counter(c) => mask::prefix(c.saturating_sub(r * lanes).min(lanes) as u32),
            LaneMask::Normal(b) => b,
        }
    };
    if n == 0 || lanes_of(0) == 0 {
        return Ok(());
    }
    let last = lanes_of(n - 1);
    let top = 127 - u64::from(last.leading_zeros()); // highest active lane of the last repeat
    check::within(
        name,
        "src",
        src,
        Some((
            src.addr(),
            src.addr() + (n - 1) * rep * 32 + (top + 1) * size,
        )),
    )?;
    let comb = instr.combine().unwrap_or(Combine::Sum);
    let with_index = comb != Combine::Sum && cal_index;
    if with_index && src.dtype == ElemType::F16 {
        // The largest index the run can produce.
        let max_index = (n - 1) * rep * (32 / size) + top;
        if max_index > 65535 {
            return Err(AscendError::Rule {
                instr: name,
                param: "calIndex",
                value: format!("true with indices up to {max_index}"),
                rule: "on half the index must not exceed 65535 (uint16_t)",
            });
        }
    }
    let out_elems = if with_index { 2 } else { 1 };
    check::within(
        name,
        "dst",
        dst,
        Some((dst.addr(), dst.addr() + out_elems * size)),
    )?;
    let run = RunShape {
        n,
        rep,
        lanes_of: &lanes_of,
        with_index,
    };
    match src.dtype {
        ElemType::F16 => reduce_sum_t::<F16Io>(core, dst, src, &run, order, comb),
        _ => reduce_sum_t::<F32Io>(core, dst, src, &run, order, comb),
    }
}

/// The repeats a whole-tensor reduction reads.
struct RunShape<'a> {
    n: u64,
    rep: u64,
    lanes_of: &'a dyn Fn(u64) -> u128,
    with_index: bool,
}

fn reduce_sum_t<IO: FloatIo>(
    core: &mut VectorCore,
    dst: &Operand,
    src: &Operand,
    run: &RunShape<'_>,
    order: RepeatOrder,
    comb: Combine,
) -> Result<()> {
    let mode = core.chip().vector.overflow_mode;
    let size = IO::SIZE as u64;
    let lanes = 256 / size;
    let (n, rep) = (run.n, run.rep);
    let round = |v: f32| -> f32 {
        let mut b = [0u8; 4];
        IO::store_one(v, &mut b);
        let r = IO::load_one(&b);
        if mode == OverflowMode::Saturate && !r.is_finite() {
            if r.is_nan() {
                0.0
            } else {
                r.signum() * IO::MAX
            }
        } else {
            r
        }
    };
    let tree = |v: &[f32]| -> f32 {
        let mut level = v.to_vec();
        while level.len() > 1 {
            level = level
                .chunks(2)
                .map(|p| {
                    if p.len() == 2 {
                        round(p[0] + p[1])
                    } else {
                        p[0]
                    }
                })
                .collect();
        }
        level.first().copied().unwrap_or(0.0)
    };
    // Lane values of repeat r (masked-off lanes are 0), padded to `lanes`.
    let mut rows: Vec<Vec<f32>> = Vec::with_capacity(n as usize);
    for r in 0..n {
        let bits = (run.lanes_of)(r);
        let m = 128 - u64::from(bits.leading_zeros());
        let bytes = core.ub().bytes(src.addr() + r * rep * 32, m * size)?;
        let mut row: Vec<f32> = bytes.chunks_exact(IO::SIZE).map(IO::load_one).collect();
        for (e, v) in row.iter_mut().enumerate() {
            if bits >> e & 1 == 0 {
                *v = 0.0;
            }
        }
        row.resize(lanes as usize, 0.0);
        rows.push(row);
    }
    if comb != Combine::Sum {
        let mut best: Option<(f32, u64)> = None;
        for (r, row) in rows.iter().enumerate() {
            let bits = (run.lanes_of)(r as u64);
            for (e, &v) in row.iter().enumerate() {
                if bits >> e & 1 == 0 {
                    continue;
                }
                let better = match best {
                    None => true,
                    Some((b, _)) => {
                        !b.is_nan()
                            && (v.is_nan() || if comb == Combine::Max { v > b } else { v < b })
                    }
                };
                if better {
                    best = Some((v, r as u64 * rep * (32 / size) + e as u64));
                }
            }
        }
        let (v, i) = best.unwrap_or((0.0, 0));
        let mut o = [0u8; 16];
        IO::store_one(v, &mut o);
        o[IO::SIZE..2 * IO::SIZE].copy_from_slice(&i.to_le_bytes()[..IO::SIZE]);
        let out = if run.with_index { 2 } else { 1 };
        core.ub_mut().write(dst.addr(), &o[..out * IO::SIZE])?;
        let mut vb = [0u8; 8];
        vb[..IO::SIZE].copy_from_slice(&o[..IO::SIZE]);
        core.max_min = Some((src.dtype, u64::from_le_bytes(vb), i));
        return Ok(());
    }
    let result = match order {
        RepeatOrder::Tree | RepeatOrder::Sequential255 => {
            let sums: Vec<f32> = rows.iter().map(|row| tree(row)).collect();
            if order == RepeatOrder::Tree {
                // vcadd over the repeat sums, a repeat of lanes at a time, until one is left.
                let mut level = sums;
                while level.len() > 1 {
                    level = level
                        .chunks(lanes as usize)
                        .map(|c| {
                            let mut c = c.to_vec();
                            c.resize(lanes as usize, 0.0);
                            tree(&c)
                        })
                        .collect();
                }
                level[0]
            } else {
                let chunk_sums: Vec<f32> = sums
                    .chunks(255)
                    .map(|c| c[1..].iter().fold(c[0], |acc, x| round(acc + x)))
                    .collect();
                tree(&chunk_sums)
            }
        }
        RepeatOrder::Parity => {
            let lane_seq = |idx: &mut dyn Iterator<Item = usize>| -> Option<Vec<f32>> {
                let first = idx.next()?;
                let mut acc = rows[first].clone();
                for r in idx {
                    for (a, x) in acc.iter_mut().zip(&rows[r]) {
                        *a = round(*a + x);
                    }
                }
                Some(acc)
            };
            let nn = n as usize;
            let last_apart = nn % 2 == 1 && nn > 1;
            let body = if last_apart { nn - 1 } else { nn };
            let a = lane_seq(&mut (1..body).step_by(2));
            let b = lane_seq(&mut (0..body).step_by(2));
            let mut d = match (b, a) {
                (Some(b), Some(a)) => a.iter().zip(&b).map(|(x, y)| round(x + y)).collect(),
                (Some(b), None) => b,
                _ => vec![0.0; lanes as usize],
            };
            if last_apart {
                for (x, c) in d.iter_mut().zip(&rows[nn - 1]) {
                    *x = round(*x + c);
                }
            }
            tree(&d)
        }
    };
    let mut o = [0u8; 4];
    IO::store_one(result, &mut o);
    core.ub_mut().write(dst.addr(), &o[..IO::SIZE])?;
    let mut vb = [0u8; 8];
    vb[..IO::SIZE].copy_from_slice(&o[..IO::SIZE]);
    core.acc_val = Some((src.dtype, u64::from_le_bytes(vb)));
    Ok(())
}

/// TIK `vec_reduce_add(mask, dst, src, work_tensor, repeat_times, src_rep_stride)` and
/// `vec_reduce_max` / `vec_reduce_min(..., src_rep_stride, cal_index=False)` (TIK pages
/// atlastikapi vec_reduce_add/max/min; ascend-vector.md §2): checks what the TIK pages add to
/// the Ascend C forms and returns the recorded instruction. `mask` is TIK's (continuous or
/// `[mask_h, mask_l]`, normal mode); masked-off lanes count as 0 in sums (as the Ascend C
/// form) and are skipped by max/min. `cal_index` (max/min only; ignored by sums, which have
/// no such parameter): `dst = [value, index]` with the index as raw integer bits in the type,
/// else `dst = [value]` and `dst[1]` keeps its bits. Rules: `dst`, `src`, `work_tensor` of one
/// type in UB, `dst` 4-byte aligned; `repeat_times` in [1, 4095], with `cal_index` in [1, 511]
/// on float16 (every index must fit 16 bits) and [1, 4095] on float32; work_tensor of at least
/// `repeat_times` elements (vec_reduce_add) or `tik_reduce_work_elems` (max/min), apart from
/// dst.
#[allow(clippy::too_many_arguments)]
pub fn tik_reduce_all(
    chip: &ChipProfile,
    instr: Instr,
    name: &'static str,
    mask: MaskArg,
    dst: &Operand,
    src: &Operand,
    work_tensor: &Operand,
    repeat_times: i64,
    src_rep_stride: i64,
    cal_index: bool,
) -> Result<crate::ops::Op> {
    instr.check_type(name, chip.id, "src", src.dtype)?;
    check::same_type(name, "dst", dst, "src", src.dtype)?;
    check::same_type(name, "work_tensor", work_tensor, "src", src.dtype)?;
    for (param, op) in [("dst", dst), ("src", src), ("work_tensor", work_tensor)] {
        check::scope(name, param, op, MemSpace::Ub)?;
    }
    if !dst.addr().is_multiple_of(4) {
        return Err(AscendError::Misaligned {
            instr: name,
            param: "dst",
            space: dst.space,
            addr: dst.addr(),
            align: 4,
        });
    }
    let with_index = cal_index && instr != Instr::ReduceSum;
    let (hi, text) = if with_index && src.dtype == ElemType::F16 {
        (
            511,
            "[1, 511] (cal_index = True on float16: the index must fit 16 bits)",
        )
    } else {
        (4095, "[1, 4095]")
    };
    let repeat = check::range(name, "repeat_times", repeat_times, 1, hi, text)? as u64;
    // work_tensor: elements from its start element to the end of its tensor.
    let size = src.dtype.size() as u64;
    let have = (work_tensor.tensor_base + work_tensor.tensor_bytes)
        .saturating_sub(work_tensor.addr())
        / size;
    let need = if instr == Instr::ReduceSum {
        repeat // vec_reduce_add: at least repeat_times elements
    } else {
        tik_reduce_work_elems(src.dtype, repeat, with_index)
    };
    if have < need {
        return Err(AscendError::Rule {
            instr: name,
            param: "work_tensor",
            value: format!("{have} elements"),
            rule: if instr == Instr::ReduceSum {
                "must hold at least repeat_times elements (vec_reduce_add)"
            } else if with_index {
                "must hold the page's final_work_tensor_need_size (cal_index = True)"
            } else {
                "must hold at least repeat_times x 2 elements (cal_index = False)"
            },
        });
    }
    let out = if with_index { 2 } else { 1 };
    let dst_span = (dst.addr(), dst.addr() + out * size);
    let work_span = (work_tensor.addr(), work_tensor.addr() + need.max(1) * size);
    let overlap = |a: (u64, u64), b: (u64, u64)| a.0 < b.1 && b.0 < a.1;
    if overlap(dst_span, work_span) {
        return Err(AscendError::IllegalOverlap {
            instr: name,
            dst: "dst",
            src: "work_tensor",
            rule: "dst and work_tensor must not overlap",
        });
    }
    if instr == Instr::ReduceSum {
        // vec_reduce_add: "address overlapping among src, dst and work_tensor is not allowed";
        // src spans its repeats up to the last active lane of the last one.
        let lanes = 256 / size as u32;
        if let LaneMask::Normal(bits) =
            mask::resolve(name, mask, lanes, true, MaskRegister::default())?
        {
            let top = 127 - u64::from(bits.leading_zeros());
            let rep = src_rep_stride.max(0) as u64;
            let src_span = (
                src.addr(),
                src.addr() + (repeat - 1) * rep * 32 + (top + 1) * size,
            );
            for (what, span) in [("dst", dst_span), ("work_tensor", work_span)] {
                if overlap(src_span, span) {
                    return Err(AscendError::IllegalOverlap {
                        instr: name,
                        dst: what,
                        src: "src",
                        rule: "src, dst and work_tensor must not overlap (vec_reduce_add)",
                    });
                }
            }
        }
    }
    Ok(crate::ops::Op::ReduceAll {
        instr,
        dst: dst.clone(),
        src: src.clone(),
        lanes: ReduceLanes::Masked {
            mask,
            repeat: repeat as i64,
        },
        src_rep_stride,
        cal_index: with_index,
    })
}

/// The work_tensor elements TIK `vec_reduce_max` / `vec_reduce_min` need for `repeat`
/// immediate repeats: `2 · repeat` without the index; with it, the page's formula
/// (`it2_align_start + it3_align_start + it3_output_count`, one more round when the second
/// pass leaves more than a repeat): each pass writes a [value, index] pair per repeat of the
/// previous pass's output, every pass starting on a 32-byte block. The page's examples: 18
/// (float16, 2 repeats), 162 (float16, 65), 146 (float32, 65).
pub fn tik_reduce_work_elems(t: ElemType, repeat: u64, cal_index: bool) -> u64 {
    let pairs = 2 * repeat;
    if !cal_index {
        return pairs;
    }
    let size = t.size() as u64;
    let (per_block, per_repeat) = (32 / size, 256 / size);
    let align = |n: u64| n.div_ceil(per_block) * per_block;
    let it2_start = align(pairs);
    let it2_out = 2 * pairs.div_ceil(per_repeat);
    if it2_out == 2 {
        return it2_start + 2;
    }
    let it3_start = it2_start + align(it2_out);
    if it2_out <= per_repeat {
        return it3_start + 2;
    }
    let it3_out = 2 * it2_out.div_ceil(per_repeat);
    it3_start + align(it3_out) + 2
}
