//! The region-proposal sort family: Sort32 (`vsort32`).
//!
//! Source: asc-devkit `docs/zh/api/SIMD-API/基础API/Memory矢量计算/排序组合（ISASI）/Sort32.md`
//! (and the older `docs/api/context/Sort32.md` with its printed example).
//! - Each repeat sorts 32 scores of `src0` (half or float) descending, carrying the uint32 index
//!   of `src1` at the same position, into 32 eight-byte `(score, index)` entries: float score in
//!   the low 4 bytes, index in the high 4; half score in the low 2 bytes, 2 reserved bytes, index
//!   in the high 4. The next repeat reads 32 further elements of each source and writes 256
//!   bytes further on. Repeats are not merged with each other.
//! - Equal scores keep source order (score[j] before score[i] when j < i).
//! - Alignment (the current page): src0 128 B (float) / 64 B (half), src1 128 B, dst 256 B.
//! - Availability: Atlas A2/A3, Atlas 200I/500 A2 inference, Ascend 950; not Atlas training or
//!   Atlas inference (310P); Ascend 310 follows Atlas training (policy).
//! - Policies where the page is silent: the 2 reserved bytes of a half entry are written as 0;
//!   a NaN score sorts before every number (as the largest); -0 and +0 are equal (IEEE), so
//!   they keep source order.

use crate::core::{Operand, VectorCore, check};
use crate::error::{AscendError, Result};
use crate::isa::Instr;
use npusim_core::{ElemType, MemSpace};
use std::cmp::Ordering;

/// Elements sorted by one Sort32 repeat.
pub const SORT32_LANES: u64 = 32;

/// Bytes of one `(score, index)` entry.
pub const PAIR_BYTES: u64 = 8;

/// The descending order of scores: NaN first, then larger values; equal values compare equal.
pub fn score_order(a: f32, b: f32) -> Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        _ => b.partial_cmp(&a).unwrap_or(Ordering::Equal),
    }
}

fn need_align(name: &'static str, param: &'static str, op: &Operand, align: u64) -> Result<()> {
    if op.addr().is_multiple_of(align) {
        Ok(())
    } else {
        Err(AscendError::Misaligned {
            instr: name,
            param,
            space: op.space,
            addr: op.addr(),
            align,
        })
    }
}

/// `Sort32<T>(dst, src0, src1, repeatTime)`: checks the call, then sorts `repeat` groups of 32.
pub fn sort32(
    core: &mut VectorCore,
    name: &'static str,
    dst: &Operand,
    src0: &Operand,
    src1: &Operand,
    repeat: i64,
) -> Result<()> {
    let chip = core.chip();
    Instr::Sort32.check_type(name, chip.id, "src0", src0.dtype)?;
    check::same_type(name, "dst", dst, "src0", src0.dtype)?;
    check::same_type(name, "src1", src1, "uint32_t", ElemType::U32)?;
    for (p, op) in [("dst", dst), ("src0", src0), ("src1", src1)] {
        check::scope(name, p, op, MemSpace::Ub)?;
    }
    let repeat = check::range(name, "repeatTime", repeat, 0, 255, "[0, 255]")? as u64;
    let size = src0.dtype.size() as u64;
    need_align(name, "src0", src0, SORT32_LANES * size)?;
    need_align(name, "src1", src1, SORT32_LANES * 4)?;
    need_align(name, "dst", dst, SORT32_LANES * PAIR_BYTES)?;
    if repeat == 0 {
        return Ok(());
    }
    let span =
        |op: &Operand, unit: u64| Some((op.addr(), op.addr() + repeat * SORT32_LANES * unit));
    check::within(name, "src0", src0, span(src0, size))?;
    check::within(name, "src1", src1, span(src1, 4))?;
    check::within(name, "dst", dst, span(dst, PAIR_BYTES))?;
    let n = (repeat * SORT32_LANES) as usize;
    let scores: Vec<f32> = {
        let b = core.ub().bytes(src0.addr(), n as u64 * size)?;
        if size == 2 {
            b.chunks_exact(2)
                .map(|c| half::f16::from_le_bytes([c[0], c[1]]).to_f32())
                .collect()
        } else {
            b.chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect()
        }
    };
    let raw0 = core.ub().bytes(src0.addr(), n as u64 * size)?.to_vec();
    let idx = core.ub().bytes(src1.addr(), n as u64 * 4)?.to_vec();
    let mut out = vec![0u8; n * PAIR_BYTES as usize];
    let s = size as usize;
    let mut order: Vec<usize> = Vec::with_capacity(SORT32_LANES as usize);
    for r in 0..repeat as usize {
        let base = r * SORT32_LANES as usize;
        order.clear();
        order.extend(base..base + SORT32_LANES as usize);
        // A stable sort keeps equal scores in source order.
        order.sort_by(|&a, &b| score_order(scores[a], scores[b]));
        for (k, &e) in order.iter().enumerate() {
            let o = (base + k) * PAIR_BYTES as usize;
            out[o..o + s].copy_from_slice(&raw0[e * s..(e + 1) * s]);
            out[o + 4..o + 8].copy_from_slice(&idx[e * 4..e * 4 + 4]);
        }
    }
    core.ub_mut().write(dst.addr(), &out)?;
    Ok(())
}
