//! BilinearInterpolation / TIK `vbi` (asc-devkit `基础算术/BilinearInterpolation(ISASI).md`).
//!
//! Vertical repeat `v` (0..vRepeat) runs `hRepeat` horizontal iterations `i = v·hRepeat + h`.
//! Iteration `i` reads the 8 uint32 byte offsets `src0Offset[8i .. 8i+8]`, each the start of a
//! 32-byte block of `src0`, and multiplies block `j` by one weight: `src1[i]` for all 8 blocks
//! (`repeatMode = false`) or `src1[8i + j]` (`true`). The hRepeat products of a vertical repeat
//! are summed per lane (lane `16j + e` = element `e` of block `j`), and the sum is written to
//! `dst + v·vROffset` (elements), block `j` at `j·dstBlkStride` blocks, on the masked lanes.
//!
//! Arithmetic (the page's printed example is exact in every order, so it does not pin the
//! rounding): the Atlas A2/A3 vendor implementation (asc-devkit
//! `kernel_operator_vec_bilinearinterpalation_impl.h`, the form without the `vbi` instruction)
//! Gatherbs the blocks, Brcbs the weights, multiplies with one half `Mul` (one rounding to half
//! per product), adds the products of a vertical repeat with sequential half `Add`s
//! (`acc = p[h] + acc`, one rounding each, the first product taken as is) and copies out with
//! `Adds(dst, acc, 0)`: so a −0 sum is written +0, and masked-off lanes keep dst. That order is
//! this module's model, on Atlas A2/A3 (910B) only.
//!
//! Chips: the page lists Atlas A2/A3 (and, in some versions, Atlas inference AI Core (310P) and
//! Ascend 950), half only. 310P's implementation issues the hardware `vbi` and 950's a register
//! loop; neither rounding order is documented, so those chips refuse with `NotSupported`
//! (policy, open) rather than run an unverified order.
//!
//! Checked (typed errors, nothing written on error): the chip and type; src0/src1 of dst's
//! type; src0Offset uint32 (TIK also int32); scope UB and 32-byte alignment of every operand;
//! hRepeat and vRepeat in [1, 255], vROffset in [128, 65535) with vROffset·sizeof(T) a multiple
//! of 32, dstBlkStride in [0, 65535]; the mask (continuous [1, 128], bit-wise not both words 0;
//! always the normal per-repeat mask: policy, the page names no counter mode); each offset a
//! multiple of 32 with its block inside src0; bounds of src0Offset, src1 and dst; no overlap
//! between src0, src1 and src0Offset (src0 from its start to its tensor's end, where offsets
//! may reach) and none between two vertical repeats' dst spans; and for the Ascend C form the
//! sharedTmpBuffer: uint8 in UB, at least `src0.GetSize()·32 + src1.GetSize()·32` bytes, meeting
//! none of the other operands (the vendor form writes it). npusim does not write the temporary
//! buffer: its contents after the call are the vendor's scratch, not modelled.

use crate::core::{Operand, VectorCore, check};
use crate::error::{AscendError, Result};
use crate::geometry::BLOCK_BYTES;
use crate::isa::Instr;
use crate::mask::{self, LaneMask, MaskArg, MaskRegister};
use half::f16;
use npusim_core::{ElemType, MemSpace};

/// One BilinearInterpolation / vbi call.
#[derive(Clone, Debug, PartialEq)]
pub struct Bilinear {
    pub dst: Operand,
    pub src0: Operand,
    pub src0_offset: Operand,
    pub src1: Operand,
    pub mask: MaskArg,
    pub h_repeat: i64,
    pub repeat_mode: bool,
    pub dst_blk_stride: i64,
    pub v_r_offset: i64,
    pub v_repeat: i64,
    /// Ascend C's sharedTmpBuffer (`None` for TIK `vbi`, which has none).
    pub tmp: Option<Operand>,
}

/// The element computation of one lane over a vertical repeat: the products `src0 · w` rounded
/// to half, summed sequentially (`acc = p + acc`, rounded each time), then `+ 0` (Adds).
#[inline]
pub fn bilinear_lane(pairs: impl Iterator<Item = (f16, f16)>) -> f16 {
    let mut acc: Option<f16> = None;
    for (x, w) in pairs {
        let p = f16::from_f32(x.to_f32() * w.to_f32());
        acc = Some(match acc {
            None => p,
            Some(a) => f16::from_f32(p.to_f32() + a.to_f32()),
        });
    }
    let a = acc.unwrap_or(f16::ZERO);
    f16::from_f32(a.to_f32() + 0.0)
}

fn overlaps(a: (u64, u64), b: (u64, u64)) -> bool {
    a.0 < b.1 && b.0 < a.1
}

/// Runs one BilinearInterpolation / vbi call on `core`.
pub fn bilinear_interpolation(
    core: &mut VectorCore,
    name: &'static str,
    b: &Bilinear,
) -> Result<()> {
    let chip = core.chip();
    Instr::BilinearInterpolation.check_type(name, chip.id, "dst", b.dst.dtype)?;
    check::same_type(name, "src0", &b.src0, "dst", b.dst.dtype)?;
    check::same_type(name, "src1", &b.src1, "dst", b.dst.dtype)?;
    let offset_ok = match b.tmp {
        Some(_) => b.src0_offset.dtype == ElemType::U32,
        None => matches!(b.src0_offset.dtype, ElemType::U32 | ElemType::I32),
    };
    if !offset_ok {
        return Err(AscendError::IllegalType {
            instr: name,
            param: "src0Offset",
            dtype: b.src0_offset.dtype,
            chip: chip.id,
            legal: if b.tmp.is_some() {
                "uint32"
            } else {
                "uint32, int32"
            }
            .into(),
        });
    }
    let h = check::range(name, "hRepeat", b.h_repeat, 1, 255, "[1, 255]")? as u64;
    let v = check::range(name, "vRepeat", b.v_repeat, 1, 255, "[1, 255]")? as u64;
    let vro = check::range(name, "vROffset", b.v_r_offset, 128, 65534, "[128, 65535)")? as u64;
    if !(vro * 2).is_multiple_of(BLOCK_BYTES) {
        return Err(AscendError::Rule {
            instr: name,
            param: "vROffset",
            value: vro.to_string(),
            rule: "vROffset * sizeof(T) must be a multiple of 32 bytes",
        });
    }
    let blk = check::range(
        name,
        "dstBlkStride",
        b.dst_blk_stride,
        0,
        65535,
        "[0, 65535]",
    )? as u64;
    if let MaskArg::Bits { lo: 0, hi: 0 } = b.mask {
        return Err(AscendError::BadMask {
            instr: name,
            value: "[0, 0]".into(),
            rule: "the bit-wise mask words must not both be 0",
        });
    }
    let lanes = match mask::resolve(name, b.mask, 128, true, MaskRegister::default())? {
        LaneMask::Normal(m) => m,
        LaneMask::Counter(_) => unreachable!("resolved against a normal-mode register"),
    };
    let mut ops: Vec<(&'static str, &Operand)> = vec![
        ("dst", &b.dst),
        ("src0", &b.src0),
        ("src0Offset", &b.src0_offset),
        ("src1", &b.src1),
    ];
    if let Some(t) = &b.tmp {
        ops.push(("sharedTmpBuffer", t));
    }
    for (p, op) in &ops {
        check::scope(name, p, op, MemSpace::Ub)?;
        if !op.addr().is_multiple_of(BLOCK_BYTES) {
            return Err(AscendError::Misaligned {
                instr: name,
                param: p,
                space: op.space,
                addr: op.addr(),
                align: BLOCK_BYTES,
            });
        }
    }
    // Bounds.
    let iters = v * h;
    let n_off = iters * 8;
    let off_span = (b.src0_offset.addr(), b.src0_offset.addr() + n_off * 4);
    check::within(name, "src0Offset", &b.src0_offset, Some(off_span))?;
    let n_w = if b.repeat_mode { iters * 8 } else { iters };
    let w_span = (b.src1.addr(), b.src1.addr() + n_w * 2);
    check::within(name, "src1", &b.src1, Some(w_span))?;
    let rep_bytes = 7 * blk * BLOCK_BYTES + BLOCK_BYTES;
    let dst_span = (b.dst.addr(), b.dst.addr() + (v - 1) * vro * 2 + rep_bytes);
    check::within(name, "dst", &b.dst, Some(dst_span))?;
    let src0_end = b.src0.tensor_base + b.src0.tensor_bytes;
    let src0_span = (b.src0.addr(), src0_end);
    // Overlap rules.
    for (x, sx, y, sy) in [
        ("src0", src0_span, "src1", w_span),
        ("src0", src0_span, "src0Offset", off_span),
        ("src1", w_span, "src0Offset", off_span),
    ] {
        if overlaps(sx, sy) {
            return Err(AscendError::IllegalOverlap {
                instr: name,
                dst: x,
                src: y,
                rule: "src0, src1 and src0Offset must not overlap",
            });
        }
    }
    if v > 1 && vro * 2 < rep_bytes {
        return Err(AscendError::Rule {
            instr: name,
            param: "vROffset",
            value: format!(
                "{vro} (a vertical repeat spans {rep_bytes} bytes with dstBlkStride {blk})"
            ),
            rule: "the dst of two vertical repeats must not overlap",
        });
    }
    if let Some(t) = &b.tmp {
        if t.dtype != ElemType::U8 {
            return Err(AscendError::IllegalType {
                instr: name,
                param: "sharedTmpBuffer",
                dtype: t.dtype,
                chip: chip.id,
                legal: "uint8".into(),
            });
        }
        let size = |o: &Operand| {
            (o.tensor_bytes - o.offset * o.dtype.size() as u64) / o.dtype.size() as u64
        };
        let need = size(&b.src0) * 32 + size(&b.src1) * 32;
        let have = t.tensor_bytes - t.offset;
        if have < need {
            return Err(AscendError::Rule {
                instr: name,
                param: "sharedTmpBuffer",
                value: format!("{have} bytes"),
                rule: "must hold at least src0.GetSize() * 32 + src1.GetSize() * 32 bytes",
            });
        }
        let t_span = (t.addr(), t.addr() + have);
        for (p, s) in [
            ("dst", dst_span),
            ("src0", src0_span),
            ("src0Offset", off_span),
            ("src1", w_span),
        ] {
            if overlaps(t_span, s) {
                return Err(AscendError::IllegalOverlap {
                    instr: name,
                    dst: "sharedTmpBuffer",
                    src: p,
                    rule: "the temporary buffer is written by the instruction and must not meet its operands",
                });
            }
        }
    }
    // Offsets: on the 32-byte grid, each block inside src0.
    let offs: Vec<u64> = core
        .ub()
        .bytes(off_span.0, n_off * 4)?
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as u64)
        .collect();
    for (k, &o) in offs.iter().enumerate() {
        let signed_bad = b.src0_offset.dtype == ElemType::I32 && o >= 1 << 31;
        if signed_bad
            || !o.is_multiple_of(BLOCK_BYTES)
            || b.src0.addr() + o + BLOCK_BYTES > src0_end
        {
            return Err(AscendError::Rule {
                instr: name,
                param: "src0Offset",
                value: format!("src0Offset[{k}] = {o}"),
                rule: "each offset must be a multiple of 32 bytes and its block must lie inside src0",
            });
        }
    }
    let half_at = |bytes: &[u8], i: usize| f16::from_le_bytes([bytes[2 * i], bytes[2 * i + 1]]);
    let w = core.ub().bytes(w_span.0, n_w * 2)?.to_vec();
    let src0 = core
        .ub()
        .bytes(b.src0.addr(), src0_end - b.src0.addr())?
        .to_vec();
    let mut writes: Vec<(u64, [u8; 2])> = Vec::new();
    for vr in 0..v {
        for lane in 0..128u64 {
            if lanes >> lane & 1 == 0 {
                continue;
            }
            let (j, e) = (lane / 16, lane % 16);
            let pairs = (0..h).map(|hh| {
                let i = vr * h + hh;
                let o = offs[(8 * i + j) as usize];
                let x = half_at(&src0, (o / 2 + e) as usize);
                let wi = if b.repeat_mode { 8 * i + j } else { i };
                (x, half_at(&w, wi as usize))
            });
            let r = bilinear_lane(pairs);
            let at = b.dst.addr() + vr * vro * 2 + j * blk * BLOCK_BYTES + e * 2;
            writes.push((at, r.to_le_bytes()));
        }
    }
    // Block order within a repeat: with dstBlkStride 0 the last block written wins.
    for (at, bytes) in writes {
        core.ub_mut().write(at, &bytes)?;
    }
    Ok(())
}
