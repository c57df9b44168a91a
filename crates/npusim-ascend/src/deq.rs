//! CastDequant and the DEQSCALE register (asc-devkit `复合计算/CastDequant.md`,
//! `类型转换/寄存器配置说明/SetDeqScale.md`, `附录/Memory矢量计算接口边界值汇总.md` table 29).
//!
//! The register is 64 bits; what it holds depends on the `SetDeqScale` form that wrote it:
//! - `SetDeqScale(half scale)` (s32 -> f16): the half in bits 0..15 ([`VectorCore::deq_scale`]);
//! - `SetDeqScale(float scale, int16_t offset, bool signMode)` (s16 -> b8, per tensor): the
//!   float's bits in 0..31, `offset & 0x1ff` in 37..45, `signMode` in bit 46
//!   ([`deq_config`]);
//! - `SetDeqScale(LocalTensor<uint64_t> vdeq, VdeqInfo)` (s16 -> b8, per block position): the
//!   16 configurations above written into the 128-byte `vdeq` tensor, and the register pointing
//!   at it. CastDequant reads the tensor when it runs (it is UB the hardware reads).
//!
//! CastDequant s16 -> b8 (Ascend 950, A2/A3, Atlas inference AI Core): each 32-byte source
//! block (16 int16) gives 16 bytes written into the destination block of the same position,
//! in its upper half (`halfBlock = false`, bytes 0..15) or lower half (`halfBlock = true`,
//! bytes 16..31). The page's example shows `halfBlock = true` filling bytes 16..31; the page's
//! odd/even recipe for contiguous output (two calls, one per half) needs the other half left
//! as it is, so it is (policy **half-block-keeps-other-half**). In the vector form, element
//! `j` of a block (j = 0..15) uses configuration `j`.
//!
//! Per element, in the order the Ascend 950 implementation of the API computes it (the page
//! gives only `Cast(src * scale + offset)` with saturation; named policy **s9-pipeline**):
//! 1. the scale as the hardware sees it: sign, 8 exponent bits and the top 10 mantissa bits of
//!    the float (the register's (1, 8, 10) format: the low 13 mantissa bits dropped);
//! 2. `f32(src) * scale` in f32 (round to nearest even), converted to int16 with round to
//!    nearest even, saturating (NaN -> 0, as Cast float -> int16);
//! 3. clamped to the signed 9-bit range [-256, 255];
//! 4. plus the offset: the register's 9-bit field read as a two's-complement number, as the
//!    SetDeqScale page defines it ("一个有符号的9位整数"; `offset` keeps its low 9 bits). The
//!    Ascend 950 compatibility code reads the field as unsigned 0..511; the two agree for
//!    offsets 0..255 (policy **offset-signed-9**, the documented register);
//! 5. saturated to int8 (`signMode`) or uint8.
//!
//! Table 29 (scale 1, offset 0): int16 0 -> 0, 32767 -> 127, -32768 -> -128; tests pin it.
//!
//! CastDequant int32 -> half is Cast's SetDeqScale form (`half(src * scale)`, [`crate::vector`]).
//!
//! Restrictions checked: the chips and type pairs of the page's tables; UB operands 32-byte
//! aligned and in bounds; `repeatTime` in [0, 255] (0 is a NOP); the b8 destination type must
//! match `signMode` (int8_t for true, uint8_t for false; in the vector form every one of the 16
//! configurations); `isVecDeq` must be true exactly when the register was set from a tensor
//! (and the s16 form needs a `SetDeqScale` of the s16 kind first); the `vdeq` tensor holds at
//! least 128 bytes of uint64_t. Overlap (general rule): the bytes written may not overlap the
//! bytes read unless `dst` and `src` start at the same address with the same strides (each
//! repeat is read before it is written).

use crate::core::{Operand, VectorCore, check};
use crate::error::{AscendError, Result};
use crate::geometry::{BLOCK_BYTES, overlaps};
use crate::mask::{self, LaneMask, MaskArg};
use npusim_core::{ChipId, ElemType, MemSpace};

/// What the DEQSCALE register holds for the s16 -> b8 forms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum DeqForm {
    /// Never set for s16 -> b8 (or last set by `SetDeqScale(half)`).
    #[default]
    Half,
    /// `SetDeqScale(float, int16_t, bool)`: the 64-bit configuration.
    Scalar(u64),
    /// `SetDeqScale(vdeq, VdeqInfo)`: the UB byte address of the 16 configurations.
    Vector(u64),
}

/// The 64-bit configuration `SetDeqScale(scale, offset, signMode)` writes.
pub fn deq_config(scale: f32, offset: i16, sign_mode: bool) -> u64 {
    (u64::from(sign_mode) << 46) | ((offset as u64 & 0x1ff) << 37) | u64::from(scale.to_bits())
}

/// One configuration, decoded as the hardware reads it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DeqParams {
    /// The scale in the register's (1, 8, 10) format.
    pub scale: f32,
    /// The signed 9-bit offset.
    pub offset: i16,
    /// Signed (int8) result.
    pub sign_mode: bool,
}

impl DeqParams {
    /// Decodes a 64-bit configuration.
    pub fn from_bits(bits: u64) -> DeqParams {
        let field = ((bits >> 37) & 0x1ff) as i16;
        DeqParams {
            scale: f32::from_bits(bits as u32 & 0xffff_e000),
            offset: (field << 7) >> 7,
            sign_mode: (bits >> 46) & 1 == 1,
        }
    }
}

/// The element function: one int16 to its b8 bits.
pub fn s16_to_b8(x: i16, p: DeqParams) -> u8 {
    let v = f32::from(x) * p.scale;
    // f32 -> int16, round to nearest even, saturating, NaN -> 0.
    let s = if v.is_nan() {
        0
    } else {
        v.round_ties_even().clamp(-32768.0, 32767.0) as i32
    };
    let s = s.clamp(-256, 255) + i32::from(p.offset);
    if p.sign_mode {
        s.clamp(-128, 127) as i8 as u8
    } else {
        s.clamp(0, 255) as u8
    }
}

/// A checked CastDequant (s16 -> b8).
#[derive(Clone, Debug, PartialEq)]
pub struct CastDequant {
    pub dst: Operand,
    pub src: Operand,
    pub mask: LaneMask,
    pub repeat: u32,
    /// Block and repeat strides in bytes: (dst, src).
    pub blk: (u64, u64),
    pub rep: (u64, u64),
    pub half_block: bool,
    pub vec_deq: bool,
}

const NAME: &str = "CastDequant";
/// int16 lanes of one repeat.
const LANES: u32 = 128;
/// int16 lanes of one block.
const LPB: u32 = 16;

/// Chips with CastDequant, and whether they take int32 -> half.
pub fn check_chip(chip: ChipId) -> Result<bool> {
    match chip {
        ChipId::Ascend950 | ChipId::Ascend910B => Ok(true),
        ChipId::Ascend310P => Ok(false),
        _ => Err(AscendError::NotSupported { instr: NAME, chip }),
    }
}

impl CastDequant {
    /// Checks a call. `blk`/`rep` are UnaryRepeatParams' (dst, src) strides in 32-byte blocks.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        core: &VectorCore,
        dst: &Operand,
        src: &Operand,
        mask: LaneMask,
        repeat: i64,
        blk: (i64, i64),
        rep: (i64, i64),
        half_block: bool,
        vec_deq: bool,
    ) -> Result<CastDequant> {
        let chip = core.chip();
        check_chip(chip.id)?;
        if src.dtype != ElemType::I16 || !matches!(dst.dtype, ElemType::I8 | ElemType::U8) {
            return Err(AscendError::IllegalType {
                instr: NAME,
                param: "dst",
                dtype: dst.dtype,
                chip: chip.id,
                legal: format!(
                    "src int16_t -> dst int8_t / uint8_t (src is {}){}",
                    src.dtype.cpp_name(),
                    if chip.id == ChipId::Ascend310P {
                        ""
                    } else {
                        "; src int32_t -> dst half"
                    }
                ),
            });
        }
        let repeat = check::range(NAME, "repeatTime", repeat, 0, 255, "[0, 255]")?;
        let b = |p, v| check::range(NAME, p, v, 0, 65535, "[0, 65535]").map(u64::from);
        let r = |p, v| check::range(NAME, p, v, 0, 255, "[0, 255]").map(u64::from);
        let blk = (
            b("dstBlkStride", blk.0)? * BLOCK_BYTES,
            b("srcBlkStride", blk.1)? * BLOCK_BYTES,
        );
        let rep = (
            r("dstRepStride", rep.0)? * BLOCK_BYTES,
            r("srcRepStride", rep.1)? * BLOCK_BYTES,
        );
        for (p, op) in [("dst", dst), ("src", src)] {
            check::scope(NAME, p, op, MemSpace::Ub)?;
            check::align(chip, NAME, p, op)?;
        }
        let want_sign = dst.dtype == ElemType::I8;
        match (core.deq_form, vec_deq) {
            (crate::deq::DeqForm::Vector(_), false) => {
                return Err(AscendError::Rule {
                    instr: NAME,
                    param: "isVecDeq",
                    value: "false".into(),
                    rule: "isVecDeq must be true when SetDeqScale was given a tensor (vdeq)",
                });
            }
            (crate::deq::DeqForm::Scalar(_) | crate::deq::DeqForm::Half, true) => {
                return Err(AscendError::Rule {
                    instr: NAME,
                    param: "isVecDeq",
                    value: "true".into(),
                    rule: "the vector quantization form needs SetDeqScale(vdeq, vdeqInfo) first",
                });
            }
            (crate::deq::DeqForm::Half, false) => {
                return Err(AscendError::Rule {
                    instr: NAME,
                    param: "SetDeqScale",
                    value: "SetDeqScale(half)".into(),
                    rule: "int16_t -> b8 needs SetDeqScale(float scale, int16_t offset, bool signMode) first",
                });
            }
            (crate::deq::DeqForm::Scalar(bits), false) => {
                if DeqParams::from_bits(bits).sign_mode != want_sign {
                    return Err(sign_error(dst.dtype, None));
                }
            }
            (crate::deq::DeqForm::Vector(_), true) => {}
        }
        let op = CastDequant {
            dst: dst.clone(),
            src: src.clone(),
            mask,
            repeat,
            blk,
            rep,
            half_block,
            vec_deq,
        };
        let n = mask.iterations(repeat, LANES);
        if n > 0 && !mask.is_empty() {
            check::within(NAME, "src", src, op.span(n, false))?;
            check::within(NAME, "dst", dst, op.span(n, true))?;
            let same = dst.addr() == src.addr() && blk.0 == blk.1 && rep.0 == rep.1;
            if !same {
                let w = op.ranges(n, true);
                let rd = op.ranges(n, false);
                if w.iter().any(|a| rd.iter().any(|b| overlaps(*a, *b))) {
                    return Err(AscendError::IllegalOverlap {
                        instr: NAME,
                        dst: "dst",
                        src: "src",
                        rule: "the bytes written may not overlap the bytes read unless dst and src start at the same address with the same strides",
                    });
                }
            }
        }
        Ok(op)
    }

    /// The byte ranges one operand touches (merged per block), over `n` iterations.
    fn ranges(&self, n: u32, dst: bool) -> Vec<(u64, u64)> {
        let mut out = Vec::new();
        for r in 0..n {
            let lanes = self.mask.lanes_of(r, LANES);
            for b in 0..8u32 {
                let bl = (lanes >> (b * LPB)) & mask::prefix(LPB);
                if bl == 0 {
                    continue;
                }
                let (lo_lane, hi_lane) =
                    (bl.trailing_zeros() as u64, 128 - bl.leading_zeros() as u64);
                if dst {
                    let a = self.dst.addr()
                        + r as u64 * self.rep.0
                        + b as u64 * self.blk.0
                        + self.half();
                    out.push((a + lo_lane, a + hi_lane));
                } else {
                    let a = self.src.addr() + r as u64 * self.rep.1 + b as u64 * self.blk.1;
                    out.push((a + 2 * lo_lane, a + 2 * hi_lane));
                }
            }
        }
        out
    }

    fn span(&self, n: u32, dst: bool) -> Option<(u64, u64)> {
        // Strides are non-negative: the first, second-to-last and last iterations bound it.
        let mut lo = u64::MAX;
        let mut hi = 0;
        for r in [0, n.saturating_sub(2), n - 1] {
            let one = CastDequant {
                mask: LaneMask::Normal(self.mask.lanes_of(r, LANES)),
                ..self.clone()
            };
            for (a, b) in one.ranges(1, dst) {
                let off = r as u64 * if dst { self.rep.0 } else { self.rep.1 };
                lo = lo.min(a + off);
                hi = hi.max(b + off);
            }
        }
        (lo < hi).then_some((lo, hi))
    }

    fn half(&self) -> u64 {
        if self.half_block { 16 } else { 0 }
    }

    /// Runs the conversion.
    pub fn execute(&self, core: &mut VectorCore) -> Result<()> {
        let params: [DeqParams; 16] = match core.deq_form {
            DeqForm::Scalar(bits) => [DeqParams::from_bits(bits); 16],
            DeqForm::Vector(addr) => {
                let raw = core.ub().bytes(addr, 128)?;
                let mut p = [DeqParams::from_bits(0); 16];
                for (j, c) in raw.chunks_exact(8).enumerate() {
                    let mut w = [0u8; 8];
                    w.copy_from_slice(c);
                    p[j] = DeqParams::from_bits(u64::from_le_bytes(w));
                }
                let want = self.dst.dtype == ElemType::I8;
                if let Some(j) = p.iter().position(|q| q.sign_mode != want) {
                    return Err(sign_error(self.dst.dtype, Some(j)));
                }
                p
            }
            DeqForm::Half => {
                return Err(AscendError::Rule {
                    instr: NAME,
                    param: "SetDeqScale",
                    value: "SetDeqScale(half)".into(),
                    rule: "int16_t -> b8 needs SetDeqScale(float scale, int16_t offset, bool signMode) first",
                });
            }
        };
        let n = self.mask.iterations(self.repeat, LANES);
        for r in 0..n {
            let lanes = self.mask.lanes_of(r, LANES);
            // The whole repeat is read before any of it is written (in-place form).
            let mut outs: Vec<(u64, [u8; 16], u32)> = Vec::with_capacity(8);
            for b in 0..8u32 {
                let bl = ((lanes >> (b * LPB)) & mask::prefix(LPB)) as u32;
                if bl == 0 {
                    continue;
                }
                let s = self.src.addr() + r as u64 * self.rep.1 + b as u64 * self.blk.1;
                let src = core.ub().bytes(s, BLOCK_BYTES)?;
                let mut out = [0u8; 16];
                for (j, o) in out.iter_mut().enumerate() {
                    let x = i16::from_le_bytes([src[2 * j], src[2 * j + 1]]);
                    *o = s16_to_b8(x, params[j]);
                }
                let d =
                    self.dst.addr() + r as u64 * self.rep.0 + b as u64 * self.blk.0 + self.half();
                outs.push((d, out, bl));
            }
            for (d, out, bl) in outs {
                if bl == 0xffff {
                    core.ub_mut().write(d, &out)?;
                } else {
                    for (j, &o) in out.iter().enumerate() {
                        if bl >> j & 1 == 1 {
                            core.ub_mut().write(d + j as u64, &[o])?;
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

fn sign_error(dtype: ElemType, j: Option<usize>) -> AscendError {
    AscendError::Rule {
        instr: NAME,
        param: if j.is_some() {
            "vdeqSignMode"
        } else {
            "signMode"
        },
        value: match j {
            Some(j) => format!(
                "configuration {j} is {} for dst {}",
                dtype != ElemType::I8,
                dtype.cpp_name()
            ),
            None => format!("{} for dst {}", dtype != ElemType::I8, dtype.cpp_name()),
        },
        rule: "the b8 destination must match SetDeqScale's signMode: int8_t for true, uint8_t for false",
    }
}

/// Resolves CastDequant's mask for int16 lanes (the wider of the two types).
pub fn resolve_mask(arg: MaskArg, is_set_mask: bool, core: &VectorCore) -> Result<LaneMask> {
    mask::resolve(NAME, arg, LANES, is_set_mask, core.mask)
}

// ---------------------------------------------------------------------------------------------
// The calls, shared by the Ascend C faces (Rust [`crate::ascendc`], C++ through npusim-capi).

/// How a CastDequant call walks its lanes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DeqCall {
    /// `CastDequant(dst, src, count)`: the first `count` elements (counter mode, default
    /// strides).
    Count(u32),
    /// `CastDequant<.., isSetMask, ..>(dst, src, mask, repeatTime, UnaryRepeatParams)`:
    /// `blk`/`rep` are the (dst, src) block and repeat strides.
    Repeat {
        mask: MaskArg,
        is_set_mask: bool,
        repeat: i32,
        blk: (i64, i64),
        rep: (i64, i64),
    },
}

/// `SetDeqScale(half scale)`: the half scale of Cast int32 -> half (Ascend 950, A2/A3, Atlas
/// inference AI Core).
pub fn set_deq_scale_half(core: &mut VectorCore, scale: half::f16) -> Result<()> {
    if !matches!(
        core.chip().id,
        ChipId::Ascend950 | ChipId::Ascend910B | ChipId::Ascend310P
    ) {
        return Err(AscendError::NotSupported {
            instr: "SetDeqScale",
            chip: core.chip().id,
        });
    }
    core.deq_scale = scale.to_f32();
    core.deq_form = DeqForm::Half;
    Ok(())
}

fn deq_chip(core: &VectorCore) -> Result<()> {
    check_chip(core.chip().id)
        .map(|_| ())
        .map_err(|_| AscendError::NotSupported {
            instr: "SetDeqScale",
            chip: core.chip().id,
        })
}

/// `SetDeqScale(float scale, int16_t offset, bool signMode)`: the DEQSCALE configuration of
/// CastDequant int16 -> b8 without vector quantization (`offset` keeps its low 9 bits). The
/// register is one: its bits 0..15 are also what an int32 -> half Cast reads as its scale.
pub fn set_deq_scale_config(
    core: &mut VectorCore,
    scale: f32,
    offset: i16,
    sign_mode: bool,
) -> Result<()> {
    deq_chip(core)?;
    let bits = deq_config(scale, offset, sign_mode);
    core.deq_form = DeqForm::Scalar(bits);
    core.deq_scale = half::f16::from_bits(bits as u16).to_f32();
    Ok(())
}

/// `SetDeqScale<uint64_t>(vdeq, VdeqInfo)`: writes the 16 configurations into `vdeq` (UB,
/// 32-byte aligned, at least 128 bytes) and points the DEQSCALE register at it.
pub fn set_deq_scale_vdeq(
    core: &mut VectorCore,
    vdeq: &Operand,
    scale: &[f32; 16],
    offset: &[i16; 16],
    sign_mode: &[bool; 16],
) -> Result<()> {
    const NAME: &str = "SetDeqScale";
    deq_chip(core)?;
    check::scope(NAME, "vdeq", vdeq, MemSpace::Ub)?;
    check::align(core.chip(), NAME, "vdeq", vdeq)?;
    let end = vdeq.tensor_base + vdeq.tensor_bytes;
    if vdeq.addr() + 128 > end {
        return Err(AscendError::Rule {
            instr: NAME,
            param: "vdeq",
            value: format!("{} bytes", end.saturating_sub(vdeq.addr())),
            rule: "the vector quantization tensor needs at least 128 bytes (16 uint64_t)",
        });
    }
    let mut bytes = Vec::with_capacity(128);
    for j in 0..16 {
        bytes.extend_from_slice(&deq_config(scale[j], offset[j], sign_mode[j]).to_le_bytes());
    }
    core.ub_mut().write(vdeq.addr(), &bytes)?;
    core.deq_form = DeqForm::Vector(vdeq.addr());
    // The register holds the address in 32-byte units (bits 0..13).
    core.deq_scale = half::f16::from_bits((vdeq.addr() >> 5) as u16 & 0x3fff).to_f32();
    Ok(())
}

/// `CastDequant<T, U, [isSetMask,] isVecDeq, halfBlock>(dst, src, ...)`: int16 -> int8/uint8
/// through the DEQSCALE register, or int32 -> half (Cast's SetDeqScale form, round to
/// nearest even).
pub fn cast_dequant(
    core: &mut VectorCore,
    dst: &Operand,
    src: &Operand,
    call: DeqCall,
    vec_deq: bool,
    half_block: bool,
) -> Result<()> {
    use crate::isa::{CastRound, Instr};
    use crate::vector::{Face, VecArgs, VecOp};
    let chip = core.chip();
    let s32 = check_chip(chip.id)?;
    if src.dtype == ElemType::I32 {
        if !s32 || dst.dtype != ElemType::F16 {
            return Err(AscendError::IllegalType {
                instr: NAME,
                param: "dst",
                dtype: dst.dtype,
                chip: chip.id,
                legal: if s32 {
                    "src int32_t -> dst half; src int16_t -> dst int8_t / uint8_t".into()
                } else {
                    "src int16_t -> dst int8_t / uint8_t".into()
                },
            });
        }
        let op = match call {
            DeqCall::Count(n) => VecOp::count(
                chip,
                Instr::Cast,
                NAME,
                dst,
                &[src],
                None,
                CastRound::Rint,
                n as i64,
            )?,
            DeqCall::Repeat {
                mask,
                is_set_mask,
                repeat,
                blk,
                rep,
            } => VecOp::new(
                chip,
                &VecArgs {
                    instr: Instr::Cast,
                    name: NAME,
                    face: Face::AscendC,
                    dst,
                    srcs: &[src],
                    scalar: None,
                    round: CastRound::Rint,
                    mask,
                    is_set_mask,
                    repeat: repeat as i64,
                    blk: [blk.0, blk.1, 1],
                    rep: [rep.0, rep.1, 0],
                    blk_max: 65535,
                },
            )?,
        };
        return op.execute(core);
    }
    let (lanes, repeat, blk, rep) = match call {
        DeqCall::Count(n) => (LaneMask::Counter(n as u64), 0, (1, 1), (8, 8)),
        DeqCall::Repeat {
            mask,
            is_set_mask,
            repeat,
            blk,
            rep,
        } => (
            resolve_mask(mask, is_set_mask, core)?,
            repeat as i64,
            blk,
            rep,
        ),
    };
    CastDequant::new(core, dst, src, lanes, repeat, blk, rep, half_block, vec_deq)?.execute(core)
}
