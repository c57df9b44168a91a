//! The vector instructions: each a validated argument record plus an `execute` over a core.
//!
//! Construction checks everything that is known statically (ranges, element types per chip,
//! scopes, alignment, tensor bounds, overlap), so a program is decoded and checked once;
//! `execute` only resolves the run-time mask and moves bytes through the shared
//! [`geometry`](crate::geometry) engine and the [`kernels`].

use crate::core::{Operand, VectorCore, check};
use crate::error::{AscendError, Result};
use crate::geometry::{BLOCK_BYTES, REPEAT_BYTES, Walk, overlaps};
use crate::isa::CastRound;
use crate::isa::Instr;
use crate::kernels::{self, CmpMode, VecFloat};
use crate::mask::{self, LaneMask, MaskArg, MaskRegister};
use crate::vector::{Face, MaskSource, VecArgs, VecOp};
use half::f16;
use npusim_core::{ChipProfile, ElemType, MaskedGroupPolicy, MemSpace};

/// Lanes of one 256-byte repeat for an element type.
pub const fn lanes_for(t: ElemType) -> u32 {
    (REPEAT_BYTES / t.size() as u64) as u32
}

// ---------------------------------------------------------------------------------------------
// vec_cmpv_xx / Compare

/// `vec_cmpv_xx(dst, src0, src1, repeat_times, src0_rep_stride, src1_rep_stride)`.
///
/// Implements seed 000: no mask; every repeat compares all 128 (f16) or 64 (f32) lanes and
/// writes one bit per lane; dst is a packed little-endian bit stream that advances by exactly
/// one repeat's bits per repeat, whatever dst's element type; source rep strides in 32-byte
/// blocks; with one repeat src and dst may overlap, with several they may not.
#[derive(Clone, Debug, PartialEq)]
pub struct Vcmpv {
    pub mode: CmpMode,
    pub dst: Operand,
    pub src0: Operand,
    pub src1: Operand,
    pub repeat: u32,
    pub src0_rep_stride: u32,
    pub src1_rep_stride: u32,
    /// Block strides in 32-byte blocks (1 for `vec_cmpv_xx`; the legacy `vcmpv_xx` and
    /// `vcmpvs_xx` take them).
    pub src0_blk_stride: u32,
    pub src1_blk_stride: u32,
    /// `vcmpvs_xx` / CompareScalar: src1 is this scalar (bits of src0's type) in every lane.
    pub scalar: Option<u64>,
    /// The spelling used in messages.
    pub name: &'static str,
}

impl Vcmpv {
    /// The table entry of a comparison.
    pub const fn instr(mode: CmpMode) -> Instr {
        match mode {
            CmpMode::Lt => Instr::VcmpvLt,
            CmpMode::Gt => Instr::VcmpvGt,
            CmpMode::Ge => Instr::VcmpvGe,
            CmpMode::Eq => Instr::VcmpvEq,
            CmpMode::Ne => Instr::VcmpvNe,
            CmpMode::Le => Instr::VcmpvLe,
        }
    }

    /// Validates the call for `chip`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        chip: &ChipProfile,
        mode: CmpMode,
        dst: &Operand,
        src0: &Operand,
        src1: &Operand,
        repeat_times: i64,
        src0_rep_stride: i64,
        src1_rep_stride: i64,
    ) -> Result<Vcmpv> {
        let instr = Self::instr(mode);
        let name = instr.tik_name();
        instr.check_type(name, chip.id, "src0", src0.dtype)?;
        check::same_type(name, "src1", src1, "src0", src0.dtype)?;
        if !dst.dtype.is_unsigned_int() {
            return Err(AscendError::IllegalType {
                instr: name,
                param: "dst",
                dtype: dst.dtype,
                chip: chip.id,
                legal: "uint8, uint16, uint32, uint64".into(),
            });
        }
        let repeat = check::range(name, "repeat_times", repeat_times, 0, 255, "[0, 255]")?;
        let s0 = check::range(name, "src0_rep_stride", src0_rep_stride, 0, 255, "[0, 255]")?;
        let s1 = check::range(name, "src1_rep_stride", src1_rep_stride, 0, 255, "[0, 255]")?;
        for (param, op) in [("dst", dst), ("src0", src0), ("src1", src1)] {
            check::scope(name, param, op, MemSpace::Ub)?;
            check::align(chip, name, param, op)?;
        }
        let op = Vcmpv {
            mode,
            dst: dst.clone(),
            src0: src0.clone(),
            src1: src1.clone(),
            repeat,
            src0_rep_stride: s0,
            src1_rep_stride: s1,
            src0_blk_stride: 1,
            src1_blk_stride: 1,
            scalar: None,
            name,
        };
        let lanes = lanes_for(src0.dtype);
        let full = mask::prefix(lanes);
        let dst_span = op.dst_span();
        check::within(name, "dst", dst, dst_span)?;
        for (param, walk, src) in [("src0", op.walk0(), src0), ("src1", op.walk1(), src1)] {
            check::within(name, param, src, walk.span(repeat, |_| full))?;
            if let Some(d) = dst_span.filter(|_| repeat > 1) {
                for r in 0..repeat {
                    if walk.iteration_blocks(r, full).any(|b| overlaps(b, d)) {
                        return Err(AscendError::IllegalOverlap {
                            instr: name,
                            dst: "dst",
                            src: param,
                            rule: "with repeat_times > 1 the source and destination must not overlap",
                        });
                    }
                }
            }
        }
        Ok(op)
    }

    /// The same comparison with block strides (legacy `vcmpv_xx(dst, src0, src1, repeat_times,
    /// src0_blk_stride, src1_blk_stride, src0_rep_stride, src1_rep_stride)`), or with src1 a
    /// scalar (`vcmpvs_xx(dst, src, scalar, repeat_times, src_blk_stride, src_rep_stride)`,
    /// Ascend C CompareScalar) when `scalar` is given.
    #[allow(clippy::too_many_arguments)]
    pub fn strided(
        chip: &ChipProfile,
        name: &'static str,
        mode: CmpMode,
        dst: &Operand,
        src0: &Operand,
        src1: Option<&Operand>,
        scalar: Option<Scalar>,
        repeat_times: i64,
        blk: [i64; 2],
        rep: [i64; 2],
    ) -> Result<Vcmpv> {
        let b0 = check::range(name, "src0_blk_stride", blk[0], 0, 255, "[0, 255]")?;
        let b1 = check::range(name, "src1_blk_stride", blk[1], 0, 255, "[0, 255]")?;
        let mut op = Vcmpv::new(
            chip,
            mode,
            dst,
            src0,
            src1.unwrap_or(src0),
            repeat_times,
            rep[0],
            rep[1],
        )
        .map_err(|e| rename(e, name))?;
        op.name = name;
        op.src0_blk_stride = b0;
        op.src1_blk_stride = b1;
        if let Some(s) = scalar {
            op.scalar = Some(s.to_bits(name, "scalar", src0.dtype)?);
        }
        let full = mask::prefix(lanes_for(src0.dtype));
        check::within(name, "src0", src0, op.walk0().span(op.repeat, |_| full))?;
        if op.scalar.is_none() {
            check::within(name, "src1", &op.src1, op.walk1().span(op.repeat, |_| full))?;
        }
        Ok(op)
    }

    fn walk(op: &Operand, blk_stride: u32, rep_stride: u32) -> Walk {
        Walk {
            base: op.addr(),
            blk_stride: blk_stride as u64 * BLOCK_BYTES,
            rep_stride: rep_stride as u64 * BLOCK_BYTES,
            elem_size: op.dtype.size() as u64,
        }
    }
    pub(crate) fn walk0(&self) -> Walk {
        Self::walk(&self.src0, self.src0_blk_stride, self.src0_rep_stride)
    }
    pub(crate) fn walk1(&self) -> Walk {
        Self::walk(&self.src1, self.src1_blk_stride, self.src1_rep_stride)
    }
    pub(crate) fn bytes_per_repeat(&self) -> u64 {
        lanes_for(self.src0.dtype) as u64 / 8
    }
    fn dst_span(&self) -> Option<(u64, u64)> {
        (self.repeat > 0).then(|| {
            let a = self.dst.addr();
            (a, a + self.repeat as u64 * self.bytes_per_repeat())
        })
    }

    /// Runs the comparison.
    pub fn execute(&self, core: &mut VectorCore) -> Result<()> {
        if self.repeat == 0 {
            return Ok(());
        }
        let per = self.bytes_per_repeat() as usize;
        let mut bits = vec![0u8; self.repeat as usize * per];
        let (w0, w1) = (self.walk0(), self.walk1());
        let ub = core.ub();
        let size = self.src0.dtype.size();
        let mut splat = [0u8; REPEAT_BYTES as usize];
        if let Some(s) = self.scalar {
            for c in splat.chunks_exact_mut(size) {
                c.copy_from_slice(&s.to_le_bytes()[..size]);
            }
        }
        // One repeat's 8 blocks, contiguous in memory or gathered.
        fn repeat_bytes<'a>(
            ub: &'a npusim_core::Memory,
            w: &Walk,
            r: u32,
            buf: &'a mut [u8; REPEAT_BYTES as usize],
        ) -> Result<&'a [u8]> {
            if w.blk_stride == BLOCK_BYTES {
                return Ok(ub.bytes(w.block_addr(r, 0), REPEAT_BYTES)?);
            }
            for b in 0..8u32 {
                buf[b as usize * 32..(b as usize + 1) * 32]
                    .copy_from_slice(ub.bytes(w.block_addr(r, b), BLOCK_BYTES)?);
            }
            Ok(&buf[..])
        }
        let (mut ba, mut bb) = ([0u8; REPEAT_BYTES as usize], [0u8; REPEAT_BYTES as usize]);
        for (r, out) in bits.chunks_exact_mut(per).enumerate() {
            let a = repeat_bytes(ub, &w0, r as u32, &mut ba)?;
            let b = if self.scalar.is_some() {
                &splat[..]
            } else {
                repeat_bytes(ub, &w1, r as u32, &mut bb)?
            };
            kernels::compare_pack(self.mode, self.src0.dtype, a, b, out);
        }
        core.ub_mut().write(self.dst.addr(), &bits)?;
        Ok(())
    }
}

/// Renames the instruction in an error raised under the `vec_cmpv_xx` spelling.
fn rename(e: AscendError, name: &'static str) -> AscendError {
    match e {
        AscendError::OutOfRange {
            param,
            value,
            range,
            ..
        } => AscendError::OutOfRange {
            instr: name,
            param,
            value,
            range,
        },
        AscendError::IllegalType {
            param,
            dtype,
            chip,
            legal,
            ..
        } => AscendError::IllegalType {
            instr: name,
            param,
            dtype,
            chip,
            legal,
        },
        AscendError::TypeMismatch {
            param,
            got,
            other,
            want,
            ..
        } => AscendError::TypeMismatch {
            instr: name,
            param,
            got,
            other,
            want,
        },
        AscendError::NotSupported { chip, .. } => AscendError::NotSupported { instr: name, chip },
        AscendError::Misaligned {
            param,
            space,
            addr,
            align,
            ..
        } => AscendError::Misaligned {
            instr: name,
            param,
            space,
            addr,
            align,
        },
        AscendError::WrongScope {
            param,
            tensor,
            got,
            want,
            ..
        } => AscendError::WrongScope {
            instr: name,
            param,
            tensor,
            got,
            want,
        },
        AscendError::TensorOverflow {
            param,
            tensor,
            start,
            end,
            size,
            ..
        } => AscendError::TensorOverflow {
            instr: name,
            param,
            tensor,
            start,
            end,
            size,
        },
        AscendError::IllegalOverlap { dst, src, rule, .. } => AscendError::IllegalOverlap {
            instr: name,
            dst,
            src,
            rule,
        },
        other => other,
    }
}

// ---------------------------------------------------------------------------------------------
// PairReduceSum / vcpadd

/// `PairReduceSum<T, isSetMask>(dst, src, repeat, mask, dstRepStride, srcBlkStride, srcRepStride)`.
///
/// Implements seed 001: `dst[j] = src[2j] + src[2j+1]` per repeat (64 results for half, 32 for
/// float); dstRepStride in 128-byte units, source strides in 32-byte blocks; masked-off lanes
/// count as 0; a pair whose two lanes are both masked off keeps its old dst value, or becomes 0
/// on chips whose profile says so (Atlas 200/500 A2). Results are rounded once to T and pass the
/// chip's overflow mode.
#[derive(Clone, Debug, PartialEq)]
pub struct PairReduceSum {
    pub dst: Operand,
    pub src: Operand,
    pub repeat: u32,
    pub mask: MaskArg,
    pub is_set_mask: bool,
    pub dst_rep_stride: u32,
    pub src_blk_stride: u32,
    pub src_rep_stride: u32,
    /// The lanes, when the call fixed them (`isSetMask = true`); checked once at construction.
    fixed: Option<LaneMask>,
}

/// The output lanes (one per pair) that have at least one active input lane: bit j is set when
/// bit 2j or bit 2j+1 of `lanes` is.
#[inline]
pub fn pair_lanes(lanes: u128) -> u128 {
    fn compact_even_bits(x: u64) -> u64 {
        let mut x = x & 0x5555_5555_5555_5555;
        x = (x | x >> 1) & 0x3333_3333_3333_3333;
        x = (x | x >> 2) & 0x0f0f_0f0f_0f0f_0f0f;
        x = (x | x >> 4) & 0x00ff_00ff_00ff_00ff;
        x = (x | x >> 8) & 0x0000_ffff_0000_ffff;
        (x | x >> 16) & 0x0000_0000_ffff_ffff
    }
    let either = lanes | lanes >> 1;
    (compact_even_bits(either as u64) | compact_even_bits((either >> 64) as u64) << 32) as u128
}

const PAIR_NAME: &str = "PairReduceSum";

impl PairReduceSum {
    /// Validates the call for `chip`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        chip: &ChipProfile,
        dst: &Operand,
        src: &Operand,
        repeat: i64,
        mask: MaskArg,
        is_set_mask: bool,
        dst_rep_stride: i64,
        src_blk_stride: i64,
        src_rep_stride: i64,
    ) -> Result<PairReduceSum> {
        let name = PAIR_NAME;
        Instr::PairReduceSum.check_type(name, chip.id, "srcLocal", src.dtype)?;
        check::same_type(name, "dstLocal", dst, "srcLocal", src.dtype)?;
        let repeat = check::range(name, "repeat", repeat, 0, 255, "[0, 255]")?;
        let dst_rep = check::range(name, "dstRepStride", dst_rep_stride, 0, 65535, "[0, 65535]")?;
        if dst_rep == 0 && !chip.vector.pair_reduce_dst_rep_stride_zero {
            return Err(AscendError::Rule {
                instr: name,
                param: "dstRepStride",
                value: "0".into(),
                rule: "this chip does not support dstRepStride = 0",
            });
        }
        let src_blk = check::range(name, "srcBlkStride", src_blk_stride, 0, 65535, "[0, 65535]")?;
        let src_rep = check::range(name, "srcRepStride", src_rep_stride, 0, 65535, "[0, 65535]")?;
        for (param, op) in [("dstLocal", dst), ("srcLocal", src)] {
            check::scope(name, param, op, MemSpace::Ub)?;
            check::align(chip, name, param, op)?;
        }
        let lanes = lanes_for(src.dtype);
        // A mask given in the call is resolved and checked now; a placeholder at run time.
        let fixed = if is_set_mask {
            Some(mask::resolve(
                name,
                mask,
                lanes,
                true,
                MaskRegister::default(),
            )?)
        } else {
            mask::resolve(name, mask, lanes, false, MaskRegister::default())?;
            None
        };
        let op = PairReduceSum {
            dst: dst.clone(),
            src: src.clone(),
            repeat,
            mask,
            is_set_mask,
            dst_rep_stride: dst_rep,
            src_blk_stride: src_blk,
            src_rep_stride: src_rep,
            fixed,
        };
        if let Some(m) = fixed {
            op.check_lanes(chip, m)?;
        }
        Ok(op)
    }

    fn src_walk(&self) -> Walk {
        Walk {
            base: self.src.addr(),
            blk_stride: self.src_blk_stride as u64 * BLOCK_BYTES,
            rep_stride: self.src_rep_stride as u64 * BLOCK_BYTES,
            elem_size: self.src.dtype.size() as u64,
        }
    }

    fn dst_walk(&self) -> Walk {
        Walk {
            base: self.dst.addr(),
            blk_stride: BLOCK_BYTES,
            rep_stride: self.dst_rep_stride as u64 * 128,
            elem_size: self.dst.dtype.size() as u64,
        }
    }

    /// The dst lanes written for a set of input lanes under the chip's masked-pair policy.
    fn written_lanes(chip: &ChipProfile, lanes: u32, active: u128) -> u128 {
        match chip.vector.pair_reduce_masked_pair {
            MaskedGroupPolicy::WriteZero => mask::prefix(lanes / 2),
            MaskedGroupPolicy::KeepDst => pair_lanes(active),
        }
    }

    /// Bounds and overlap checks for a resolved mask.
    ///
    /// Lane offsets within an iteration do not depend on the iteration, so each iteration's
    /// spans are iteration 0's shifted by `r · rep_stride`; lane sets differ only in the last
    /// iteration (counter mode). That keeps the check O(repeat).
    fn check_lanes(&self, chip: &ChipProfile, m: LaneMask) -> Result<()> {
        let name = PAIR_NAME;
        let lanes = lanes_for(self.src.dtype);
        let n = m.iterations(self.repeat, lanes);
        if n == 0 {
            return Ok(());
        }
        let (sw, dw) = (self.src_walk(), self.dst_walk());
        let written = |r: u32| Self::written_lanes(chip, lanes, m.lanes_of(r, lanes));
        check::within(
            name,
            "srcLocal",
            &self.src,
            sw.span(n, |r| m.lanes_of(r, lanes)),
        )?;
        check::within(name, "dstLocal", &self.dst, dw.span(n, written))?;

        let overlap = |rule| AscendError::IllegalOverlap {
            instr: name,
            dst: "dstLocal",
            src: "srcLocal",
            rule,
        };
        if n == 1 {
            let d = dw.iteration_span(0, written(0));
            let s = sw.iteration_span(0, m.lanes_of(0, lanes));
            if let (Some(d), Some(s)) = (d, s)
                && overlaps(d, s)
                && self.dst.addr() != self.src.addr()
            {
                return Err(overlap(
                    "within one repeat the source and destination must overlap completely (same start) or not at all",
                ));
            }
            return Ok(());
        }
        let shift = |(lo, hi): (u64, u64), by: u64| (lo + by, hi + by);
        let (first, last) = (m.lanes_of(0, lanes), m.lanes_of(n - 1, lanes));
        // Iterations 0..n-1 that feed a next one all have the first iteration's lanes.
        let dst_span = dw.iteration_span(0, written(0));
        let src_blocks: [Vec<(u64, u64)>; 2] = [
            sw.iteration_blocks(0, first).collect(),
            sw.iteration_blocks(0, last).collect(),
        ];
        for r in 0..n - 1 {
            let Some(d) = dst_span else { continue };
            let d = shift(d, r as u64 * dw.rep_stride);
            let next = if r + 1 == n - 1 {
                &src_blocks[1]
            } else {
                &src_blocks[0]
            };
            let by = (r + 1) as u64 * sw.rep_stride;
            if next.iter().any(|b| overlaps(shift(*b, by), d)) {
                return Err(overlap(
                    "the destination of repeat N must not be a source of repeat N+1",
                ));
            }
        }
        Ok(())
    }

    /// Runs the reduction with the core's current mask state.
    pub fn execute(&self, core: &mut VectorCore) -> Result<()> {
        let lanes = lanes_for(self.src.dtype);
        let m = match self.fixed {
            Some(m) => m,
            None => {
                let m = mask::resolve(PAIR_NAME, MaskArg::Placeholder, lanes, false, core.mask)?;
                self.check_lanes(core.chip(), m)?;
                m
            }
        };
        match self.src.dtype {
            ElemType::F16 => self.run::<f16>(core, m),
            ElemType::F32 => self.run::<f32>(core, m),
            other => Err(AscendError::IllegalType {
                instr: PAIR_NAME,
                param: "srcLocal",
                dtype: other,
                chip: core.chip().id,
                legal: "half, float".into(),
            }),
        }
    }

    fn run<T: VecFloat>(&self, core: &mut VectorCore, m: LaneMask) -> Result<()> {
        let lanes = lanes_for(self.src.dtype);
        let iterations = m.iterations(self.repeat, lanes);
        let chip = core.chip();
        let mode = chip.vector.overflow_mode;
        let (src_walk, dst_walk) = (self.src_walk(), self.dst_walk());
        let size = self.src.dtype.size();
        let lpb = (BLOCK_BYTES as usize / size) as u32;
        let out_bytes = lanes as usize / 2 * size;
        let all_out = mask::prefix(lanes / 2);
        let contiguous = src_walk.blk_stride == BLOCK_BYTES;
        let mut buf = [0u8; REPEAT_BYTES as usize];
        let mut out = [0u8; 128];
        for r in 0..iterations {
            let active = m.lanes_of(r, lanes);
            let written = Self::written_lanes(chip, lanes, active);
            if written == 0 {
                continue;
            }
            if contiguous && active == mask::prefix(lanes) {
                // The 8 blocks are one 256-byte run: compute straight from memory.
                let src = core.ub().bytes(src_walk.block_addr(r, 0), REPEAT_BYTES)?;
                kernels::pair_sum::<T>(src, active, mode, &mut out[..out_bytes]);
            } else {
                // Read every block that has an active lane; the others contribute zeros.
                for b in 0..8u32 {
                    let chunk = &mut buf[b as usize * 32..(b as usize + 1) * 32];
                    if (active >> (b * lpb)) & mask::prefix(lpb) != 0 {
                        chunk.copy_from_slice(
                            core.ub().bytes(src_walk.block_addr(r, b), BLOCK_BYTES)?,
                        );
                    } else {
                        chunk.fill(0);
                    }
                }
                kernels::pair_sum::<T>(&buf, active, mode, &mut out[..out_bytes]);
            }
            let base = dst_walk.block_addr(r, 0);
            let ub = core.ub_mut();
            if written == all_out {
                // Pairs with no active lane (WriteZero policy) are written as zero.
                let mut empty = !pair_lanes(active) & all_out;
                while empty != 0 {
                    let j = empty.trailing_zeros() as usize;
                    empty &= empty - 1;
                    out[j * size..(j + 1) * size].fill(0);
                }
                ub.write(base, &out[..out_bytes])?;
            } else {
                let mut w = written;
                while w != 0 {
                    let j = w.trailing_zeros() as usize;
                    w &= w - 1;
                    ub.write(base + (j * size) as u64, &out[j * size..(j + 1) * size])?;
                }
            }
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// vector_dup / Duplicate

/// Where an instruction's lanes come from (the driver's [`MaskSource`]).
pub type LaneMaskSource = MaskSource;

/// A scalar operand as written in the kernel: the shared vocabulary's
/// [`npusim_core::vocab::Scalar`].
pub use npusim_core::vocab::Scalar;

/// A scalar's bit pattern in a tensor's element type.
pub trait ScalarBits {
    /// The scalar's bit pattern in `dtype`: floats round to nearest even; integers must be
    /// whole and in range.
    fn to_bits(self, instr: &'static str, param: &'static str, dtype: ElemType) -> Result<u64>;
}

impl ScalarBits for Scalar {
    fn to_bits(self, instr: &'static str, param: &'static str, dtype: ElemType) -> Result<u64> {
        use npusim_core::convert::{Exact, FloatFormat, RoundMode, Saturation, round_to_format};
        if let Some(fmt) = FloatFormat::of(dtype) {
            let exact = match self {
                Scalar::Int(i) => Exact::from_int(i as i128),
                Scalar::Float(f) => Exact::from_f64(f),
            };
            return Ok(round_to_format(
                exact,
                fmt,
                RoundMode::Rint,
                Saturation::Off,
            ));
        }
        let v: i128 = match self {
            Scalar::Int(i) => i as i128,
            Scalar::Float(f) if f.fract() == 0.0 && f.abs() < 1e19 => f as i128,
            Scalar::Float(f) => {
                return Err(AscendError::Rule {
                    instr,
                    param,
                    value: f.to_string(),
                    rule: "an integer tensor takes a whole-number scalar",
                });
            }
        };
        let bits = dtype.bits();
        let (lo, hi) = if dtype.is_signed_int() {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        } else {
            (0, (1i128 << bits) - 1)
        };
        if v < lo || v > hi {
            return Err(AscendError::Rule {
                instr,
                param,
                value: v.to_string(),
                rule: "the scalar does not fit the tensor's element type",
            });
        }
        Ok(v as u64
            & if bits == 64 {
                u64::MAX
            } else {
                (1u64 << bits) - 1
            })
    }
}

/// `vector_dup(mask, dst, scalar, repeat_times, dst_blk_stride, dst_rep_stride)` and Ascend C
/// `Duplicate`: write `scalar` to every active lane; masked-off lanes keep their value. An
/// instruction of the shared driver ([`VecOp`], table row `Duplicate`).
#[derive(Clone, Debug, PartialEq)]
pub struct Duplicate(pub VecOp);

impl Duplicate {
    /// Validates the call for `chip`. `name` is the API spelling used in messages.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        chip: &ChipProfile,
        name: &'static str,
        dst: &Operand,
        scalar: Scalar,
        mask: MaskArg,
        is_set_mask: bool,
        repeat_times: i64,
        dst_blk_stride: i64,
        dst_rep_stride: i64,
    ) -> Result<Duplicate> {
        Ok(Duplicate(VecOp::new(
            chip,
            &VecArgs {
                instr: Instr::Duplicate,
                name,
                face: Face::Tik,
                dst,
                srcs: &[],
                scalar: Some(scalar),
                round: CastRound::None,
                mask,
                is_set_mask,
                repeat: repeat_times,
                blk: [dst_blk_stride, 1, 1],
                rep: [dst_rep_stride, 0, 0],
                blk_max: 255,
            },
        )?))
    }

    /// A duplicate over a counter-mode element count (Ascend C's `Duplicate(dst, scalar, count)`).
    pub fn count(
        chip: &ChipProfile,
        dst: &Operand,
        scalar: Scalar,
        count: i64,
    ) -> Result<Duplicate> {
        Ok(Duplicate(VecOp::count(
            chip,
            Instr::Duplicate,
            "Duplicate",
            dst,
            &[],
            Some(scalar),
            CastRound::None,
            count,
        )?))
    }

    /// Runs the duplicate.
    pub fn execute(&self, core: &mut VectorCore) -> Result<()> {
        self.0.execute(core)
    }
}

// ---------------------------------------------------------------------------------------------
// data_move / DataCopy

/// `data_move(dst, src, sid, nburst, burst, src_stride, dst_stride)` and Ascend C `DataCopy`:
/// `nburst` bursts of `burst` 32-byte blocks; strides are the gaps between bursts, in 32-byte
/// blocks. Moves GM→UB, UB→GM and UB→UB.
#[derive(Clone, Debug, PartialEq)]
pub struct DataMove {
    pub dst: Operand,
    pub src: Operand,
    pub nburst: u32,
    pub burst: u32,
    pub src_gap: u32,
    pub dst_gap: u32,
}

impl DataMove {
    /// Validates the call for `chip`. `name` is the API spelling used in messages.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        chip: &ChipProfile,
        name: &'static str,
        dst: &Operand,
        src: &Operand,
        sid: i64,
        nburst: i64,
        burst: i64,
        src_stride: i64,
        dst_stride: i64,
    ) -> Result<DataMove> {
        check::range(name, "sid", sid, 0, 15, "[0, 15]")?;
        let nburst = check::range(name, "nburst", nburst, 1, 4095, "[1, 4095]")?;
        let burst = check::range(name, "burst", burst, 1, 65535, "[1, 65535]")?;
        let src_gap = check::range(name, "src_stride", src_stride, 0, 65535, "[0, 65535]")?;
        let dst_gap = check::range(name, "dst_stride", dst_stride, 0, 65535, "[0, 65535]")?;
        if dst.dtype.size() != src.dtype.size() {
            return Err(AscendError::TypeMismatch {
                instr: name,
                param: "dst",
                got: dst.dtype,
                other: "src",
                want: src.dtype,
            });
        }
        if dst.space == MemSpace::Gm && src.space == MemSpace::Gm {
            return Err(AscendError::Rule {
                instr: name,
                param: "dst",
                value: format!("{} (GM) <- {} (GM)", dst.tensor, src.tensor),
                rule: "moves between two global-memory tensors are not supported; one side must be UB",
            });
        }
        for (param, op) in [("dst", dst), ("src", src)] {
            if !matches!(op.space, MemSpace::Gm | MemSpace::Ub) {
                return Err(AscendError::WrongScope {
                    instr: name,
                    param,
                    tensor: op.tensor.to_string(),
                    got: op.space,
                    want: "GM or UB",
                });
            }
            check::align(chip, name, param, op)?;
        }
        let mv = DataMove {
            dst: dst.clone(),
            src: src.clone(),
            nburst,
            burst,
            src_gap,
            dst_gap,
        };
        check::within(name, "src", src, Some(mv.span(src.addr(), src_gap)))?;
        check::within(name, "dst", dst, Some(mv.span(dst.addr(), dst_gap)))?;
        Ok(mv)
    }

    fn span(&self, base: u64, gap: u32) -> (u64, u64) {
        let step = (self.burst as u64 + gap as u64) * BLOCK_BYTES;
        (
            base,
            base + (self.nburst as u64 - 1) * step + self.burst as u64 * BLOCK_BYTES,
        )
    }

    /// Runs the move.
    pub fn execute(&self, core: &mut VectorCore) -> Result<()> {
        let len = self.burst as u64 * BLOCK_BYTES;
        let mut tmp = vec![0u8; len as usize];
        for i in 0..self.nburst as u64 {
            let s = self.src.addr() + i * (self.burst as u64 + self.src_gap as u64) * BLOCK_BYTES;
            let d = self.dst.addr() + i * (self.burst as u64 + self.dst_gap as u64) * BLOCK_BYTES;
            tmp.copy_from_slice(core.memory(self.src.space)?.bytes(s, len)?);
            core.store(self.dst.space, d, &tmp)?;
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// One recorded instruction of any shape

/// One checked instruction of any shape, as a recorded program (TIK) holds it. The variants are
/// the driver shapes, not the instructions: every element-wise instruction is a [`VecOp`].
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    /// Any element-wise instruction (binary, unary, scalar, fused, convert, duplicate...).
    Vector(VecOp),
    /// vec_cmpv_xx / Compare.
    Cmpv(Vcmpv),
    /// vec_cpadd / PairReduceSum.
    PairReduce(PairReduceSum),
    /// data_move / DataCopy.
    Move(DataMove),
    /// WholeReduce* / BlockReduce*.
    Reduce(crate::reduce::ReduceOp),
    /// Select / vec_sel.
    Select(crate::select::SelectOp),
    /// Brcb / vbcb.
    Brcb(crate::misc::BrcbOp),
    /// vcmp_xx into CMPMASK.
    CmpMask(crate::misc::CmpMaskOp),
    /// CreateVecIndex / vci: (dst, first value, count).
    Index(Operand, Scalar, i64),
    /// mov_tensor_to_cmpmask (`true`) / mov_cmpmask_to_tensor (`false`).
    MovCmpMask(Operand, bool),
    /// vreduce (GatherMask, normal mode, built-in pattern): dst, src0, pattern, [blk, repeat,
    /// src0 rep, src1 rep].
    GatherMask(Operand, Operand, u8, [i64; 4]),
    /// vgather: dst, src, offsets, base, count.
    Gather(Operand, Operand, Operand, u32, i64),
    /// vgatherb: dst, src, block offsets, repeat, dst block stride, dst repeat stride.
    Gatherb(Operand, Operand, Operand, i64, i64, i64),
    /// vbi: the call ([`crate::bilinear`]).
    Bilinear(Box<crate::bilinear::Bilinear>),
    /// vec_trans: dst, src, repeat, dst rep stride, src rep stride.
    Transpose(Operand, Operand, i64, i64, i64),
    /// vec_reduce_add / _max / _min (built by `reduce::tik_reduce_all`): the lanes read, the
    /// source repeat stride and, for max/min, whether `[value, index]` is written.
    ReduceAll {
        instr: Instr,
        dst: Operand,
        src: Operand,
        lanes: crate::reduce::ReduceLanes,
        src_rep_stride: i64,
        cal_index: bool,
    },
    /// set_atomic_add: the accumulation type, or none.
    Atomic(Option<ElemType>),
    /// data_move_pad / DataCopyPad.
    MovePad(crate::pad::MovePad),
    /// vsort32: dst, src0 (scores), src1 (uint32 indices), repeat.
    Sort32(Operand, Operand, Operand, i64),
    /// vconcat / vextract: instruction, dst, src, repeat, mode number.
    Proposal(Instr, Operand, Operand, i64, i64),
    /// vrpsort16: dst, src, repeat.
    RpSort16(Operand, Operand, i64),
    /// vnchwconv / vec_trans_scatter.
    Trans5Hd(crate::nchwconv::TransOp),
    /// vmrgsort / vmrgsort4: instruction, dst, the 4 source lists, parameters.
    MrgSort(Instr, Operand, Box<[Operand; 4]>, crate::sort::MrgSort4Info),
    /// viou / vaadd: instruction, dst, src0, src1, repeat.
    ProposalPair(Instr, Operand, Operand, Operand, i64),
    /// set_rpn_offset: the offset.
    RpnOffset(f64),
    /// v4dtrans: chw2hwc, dst, src, m_len, channels.
    Trans4d(bool, Operand, Operand, i64, i64),
}

impl Op {
    /// Runs the instruction.
    pub fn execute(&self, core: &mut VectorCore) -> Result<()> {
        match self {
            Op::Vector(o) => o.execute(core),
            Op::Cmpv(o) => o.execute(core),
            Op::PairReduce(o) => o.execute(core),
            Op::Move(o) => o.execute(core),
            Op::Reduce(o) => o.execute(core),
            Op::Select(o) => o.execute(core),
            Op::Brcb(o) => o.execute(core),
            Op::CmpMask(o) => o.execute(core),
            Op::Index(d, s, n) => crate::misc::create_vec_index(core, "vci", d, *s, *n),
            Op::MovCmpMask(t, true) => crate::misc::set_cmp_mask(core, "mov_tensor_to_cmpmask", t),
            Op::Atomic(t) => {
                core.atomic = *t;
                Ok(())
            }
            Op::MovePad(o) => o.execute(core),
            Op::GatherMask(d, s, p, params) => crate::misc::gather_mask(
                core,
                "vreduce",
                d,
                s,
                crate::misc::GatherPattern::Fixed(*p),
                false,
                0,
                *params,
            )
            .map(|_| ()),
            Op::ReduceAll {
                instr,
                dst,
                src,
                lanes,
                src_rep_stride,
                cal_index,
            } => {
                let order = crate::reduce::RepeatOrder::tik(core.chip().id);
                crate::reduce::reduce_all_lanes(
                    core,
                    *instr,
                    instr.tik_name(),
                    dst,
                    src,
                    *lanes,
                    *src_rep_stride,
                    order,
                    *cal_index,
                )
            }
            Op::Gather(d, s, off, base, n) => {
                crate::misc::gather(core, "vgather", d, s, off, *base, *n)
            }
            Op::Gatherb(d, s, off, r, b, rs) => {
                crate::misc::gatherb(core, "vgatherb", d, s, off, *r, *b, *rs)
            }
            Op::Bilinear(b) => crate::bilinear::bilinear_interpolation(core, "vbi", b),
            Op::Transpose(d, s, r, dr, sr) => {
                crate::misc::transpose(core, "vec_trans", d, s, *r, *dr, *sr)
            }
            Op::MovCmpMask(t, false) => crate::misc::get_cmp_mask(core, "mov_cmpmask_to_tensor", t),
            Op::Trans5Hd(o) => o.execute(core),
            Op::RpSort16(d, s, r) => crate::sort::rp_sort16(core, "vrpsort16", d, s, *r),
            Op::Proposal(i, d, s, r, m) => {
                crate::sort::proposal_move(core, *i, i.tik_name(), d, s, *r, *m)
            }
            Op::Sort32(d, s0, s1, r) => crate::sort::sort32(core, "vsort32", d, s0, s1, *r),
            Op::ProposalPair(i, d, s0, s1, r) => {
                crate::sort::proposal_pair(core, *i, i.tik_name(), d, s0, s1, *r)
            }
            Op::RpnOffset(x) => crate::sort::set_rpn_offset(core, "set_rpn_offset", *x),
            Op::Trans4d(f, d, s, m, c) => {
                crate::trans4d::v4dtrans(core, "v4dtrans", *f, d, s, *m, *c)
            }
            Op::MrgSort(i, d, s, p) => {
                let src = [&s[0], &s[1], &s[2], &s[3]];
                if *i == Instr::MrgSort4 {
                    crate::sort::mrg_sort4(core, i.tik_name(), d, src, p)
                } else {
                    crate::sort::mrg_sort(core, i.tik_name(), d, src, p)
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pair_lanes_compacts_pairs() {
        for m in [
            0u128,
            1,
            2,
            3,
            0b1100,
            u128::MAX,
            1 << 127,
            1 << 126,
            0x5555_0000_ffff_0001 << 37,
        ] {
            let mut want = 0u128;
            for j in 0..64 {
                if (m >> (2 * j)) & 3 != 0 {
                    want |= 1 << j;
                }
            }
            assert_eq!(pair_lanes(m), want, "{m:#x}");
        }
    }
}
