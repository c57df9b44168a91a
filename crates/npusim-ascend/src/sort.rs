//! The region-proposal sort family: Sort32 (`vsort32`) and MrgSort.
//!
//! Sources: asc-devkit `docs/zh/api/SIMD-API/基础API/Memory矢量计算/排序组合（ISASI）/Sort32.md`
//! (and the older `docs/api/context/Sort32.md` with its printed example).
//! - Each repeat sorts 32 scores of `src0` (half or float) descending, carrying the uint32 index
//!   of `src1` at the same position, into 32 eight-byte `(score, index)` entries: float score in
//!   the low 4 bytes, index in the high 4; half score in the low 2 bytes, 2 reserved bytes, index
//!   in the high 4. The next repeat reads 32 further elements of each source and writes 256
//!   bytes further on. Repeats are not merged with each other.
//! - Equal scores keep source order (`score[j]` before `score[i]` when j < i).
//! - Alignment (the current page): src0 128 B (float) / 64 B (half), src1 128 B, dst 256 B.
//! - Availability: Atlas A2/A3, Atlas 200I/500 A2 inference, Ascend 950; not Atlas training or
//!   Atlas inference (310P); Ascend 310 follows Atlas training (policy).
//! - MrgSort (`MrgSort.md`, `GetMrgSortResult.md`): merges up to 4 sorted lists of 8-byte
//!   entries (`validBit` 3, 7 or 15: the first 2, 3 or 4 lists) into one, scores descending;
//!   `elementLengths` in entries, each in [0, 4095]; with `ifExhaustedSuspension` the merge
//!   stops as soon as one valid list is used up, and GetMrgSortResult reports how many entries
//!   of each list went out. `repeatTimes` in [0, 255] repeats the merge over the next lists
//!   when the 4 lists are valid, equally long and contiguous and suspension is off; any other
//!   repeatTimes above 1 is rejected (policy: the page says it then does not take effect).
//!   dst 32-byte aligned, sources 8-byte aligned, no source may overlap dst. Equal scores come
//!   from the lower-numbered list first (the page's "j before i" rule read across lists).
//! - MrgSort4 (`MrgSort4.md`): MrgSort over region proposals on Atlas training (half) and 310P
//!   (half/float); see [`mrg_sort4`].
//! - ProposalConcat / ProposalExtract (`ProposalConcat.md`, `ProposalExtract.md`; TIK
//!   `vconcat` / `vextract`): region proposals of 8 elements `[x1, y1, x2, y2, score, label,
//!   reserved, reserved]`; each repeat moves 16 consecutive elements into (or out of) field
//!   `modeNumber` (0..=5) of 16 proposals; the other fields are kept. Atlas training (and 310,
//!   policy) half; 310P AI Core half/float; not on A2/A3, 310B, 950. Addresses 32-byte aligned,
//!   repeatTime in [0, 255].
//! - RpSort16 (`RpSort16.md`; TIK `vrpsort16`): each repeat sorts 16 region proposals by their
//!   score field (element 4) descending, whole proposals moving; equal scores keep source
//!   order; dst may be src (the page's example sorts in place). Same chips and types as
//!   ProposalConcat.
//! - Viou / Vaadd (TIK `viou(dst, src0, src1, repeat_times)`, `vaadd(...)`; TIK only, no
//!   Ascend C form). Sources: TIK's own API (`tik_proposal_api.py`: the docstrings "find the
//!   intersection area of two proposals" / "find the sum of the two proposal areas", the
//!   checks, the extents: per repeat 16 proposals of src0 against the same 16 of src1 into 256
//!   results) and the NMS kernels that call them. Each repeat r takes the next 16 proposals
//!   (viou: 8 elements each) or areas (vaadd: 1 element each) of src0 and the 16 of src1 and
//!   writes `dst[(16r + i)·16 + j] = f(src0[16r + i], src1[j])`, 256 elements further per
//!   repeat. viou's f is [`crate::elem::proposal_intersection`] with the core's RPN offset;
//!   vaadd's f is the sum; both in f32, rounded once to the element type.
//!   - Layout (policy from the callers): row = src0 proposal, column = src1 proposal. The NMS
//!     kernels declare dst as `[16·repeat, 16]`, place the next call `16·repeat` rows further,
//!     compare viou's and vaadd's outputs lane by lane (`vcmpv_gt`) and hand the 16-bit rows
//!     to `rpn_cor` as the suppression rows of the src0 proposals; no source prints a result.
//!   - RPN offset (policy): `set_rpn_offset(x)` sets it (TIK refuses it on Ascend 310; x in
//!     [-65504, 65504], kept as a half); it is 1.0 until set on every chip: the Ascend 310
//!     kernels add 1 to x1 and y1 "to resist rpn_offset in viou/vrpac", and the others set 0.0
//!     before calling viou. vaadd adds the two areas as given (its docstring; no offset).
//!   - Checks (TIK's): repeat_times [0, 255], dst and sources in UB, src0/src1 of dst's type,
//!     the type per chip, and the extents (dst 256·repeat elements, src0 16·repeat proposals or
//!     areas, src1 16). Policies: 32-byte alignment (the general rule), dst may not overlap a
//!     source (the result would depend on the order the hardware writes).
//!   - Chips (policy): the proposal family's, as RpSort16: Ascend 310 and Atlas training half,
//!     Atlas inference (310P) half and float (TIK's own debugger accepts float16 and float32);
//!     not on A2/A3, 310B or 950 (one NMS kernel names 310B beside 310 for the offset
//!     workaround; not verified, so not added).
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

/// `MrgSort4Info{elementLengths, ifExhaustedSuspension, validBit, repeatTimes}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MrgSort4Info {
    pub element_lengths: [u16; 4],
    pub if_exhausted_suspension: bool,
    pub valid_bit: u16,
    pub repeat_times: u16,
}

impl Default for MrgSort4Info {
    fn default() -> Self {
        MrgSort4Info {
            element_lengths: [0; 4],
            if_exhausted_suspension: false,
            valid_bit: 15,
            repeat_times: 1,
        }
    }
}

/// `MrgSort<T>(dst, MrgSortSrcList{src1..src4}, MrgSort4Info)`.
pub fn mrg_sort(
    core: &mut VectorCore,
    name: &'static str,
    dst: &Operand,
    src: [&Operand; 4],
    p: &MrgSort4Info,
) -> Result<()> {
    merge(core, Instr::MrgSort, name, dst, src, p)
}

/// `MrgSort4<T>(dst, MrgSortSrcList{src1..src4}, MrgSort4Info)`: the region-proposal form
/// (`MrgSort4.md`): entries are whole proposals (8 elements, score at element 4),
/// `elementLengths` in proposals, `repeatTimes` in [1, 255], every address 16-byte (half) or
/// 32-byte (float) aligned; otherwise as MrgSort.
pub fn mrg_sort4(
    core: &mut VectorCore,
    name: &'static str,
    dst: &Operand,
    src: [&Operand; 4],
    p: &MrgSort4Info,
) -> Result<()> {
    merge(core, Instr::MrgSort4, name, dst, src, p)
}

fn merge(
    core: &mut VectorCore,
    instr: Instr,
    name: &'static str,
    dst: &Operand,
    src: [&Operand; 4],
    p: &MrgSort4Info,
) -> Result<()> {
    const SRC: [&str; 4] = ["src1", "src2", "src3", "src4"];
    let chip = core.chip();
    instr.check_type(name, chip.id, "dst", dst.dtype)?;
    check::scope(name, "dst", dst, MemSpace::Ub)?;
    let size = dst.dtype.size() as u64;
    let proposals = instr == Instr::MrgSort4;
    // Entry bytes, score offset, dst and src alignment.
    let (entry, score_at, dst_align, src_align) = if proposals {
        (8 * size, 4 * size as usize, 16 * size / 2, 16 * size / 2)
    } else {
        (PAIR_BYTES, 0, 32, PAIR_BYTES)
    };
    need_align(name, "dst", dst, dst_align)?;
    let lists = match p.valid_bit {
        3 => 2,
        7 => 3,
        15 => 4,
        v => {
            return Err(AscendError::Rule {
                instr: name,
                param: "validBit",
                value: v.to_string(),
                rule: "must be 3, 7 or 15 (the first 2, 3 or 4 lists)",
            });
        }
    };
    let (lo, text) = if proposals {
        (1, "[1, 255]")
    } else {
        (0, "[0, 255]")
    };
    let repeat = check::range(name, "repeatTimes", p.repeat_times as i64, lo, 255, text)? as u64;
    for (k, &len) in p.element_lengths.iter().enumerate().take(lists) {
        check::range(name, "elementLengths", len as i64, 0, 4095, "[0, 4095]")?;
        let s = src[k];
        check::same_type(name, SRC[k], s, "dst", dst.dtype)?;
        check::scope(name, SRC[k], s, MemSpace::Ub)?;
        need_align(name, SRC[k], s, src_align)?;
    }
    let lens: Vec<u64> = p.element_lengths[..lists]
        .iter()
        .map(|&l| l as u64)
        .collect();
    let total: u64 = lens.iter().sum();
    if repeat > 1 {
        let contiguous = (1..4).all(|k| {
            src[k].tensor == src[0].tensor
                && src[k].addr() == src[0].addr() + k as u64 * lens[0] * entry
        });
        let equal = lens.iter().all(|&l| l == lens[0]);
        if lists != 4 || !equal || !contiguous || p.if_exhausted_suspension {
            return Err(AscendError::Rule {
                instr: name,
                param: "repeatTimes",
                value: repeat.to_string(),
                rule: "repeatTimes > 1 needs 4 valid lists (validBit 15) of equal length stored contiguously and ifExhaustedSuspension = false",
            });
        }
    }
    if repeat == 0 {
        return Ok(());
    }
    // Bounds and overlap over every repeat.
    let dst_span = (dst.addr(), dst.addr() + repeat * total * entry);
    check::within(name, "dst", dst, Some(dst_span))?;
    for k in 0..lists {
        let s = src[k];
        let lo = s.addr();
        let hi = lo + ((repeat - 1) * total + lens[k]) * entry;
        check::within(name, SRC[k], s, Some((lo, hi)))?;
        if lens[k] > 0 && lo < dst_span.1 && dst_span.0 < hi {
            return Err(AscendError::IllegalOverlap {
                instr: name,
                dst: "dst",
                src: SRC[k],
                rule: "MrgSort sources and destination must not overlap",
            });
        }
    }
    let is_f16 = size == 2;
    let score = |e: &[u8]| -> f32 {
        let e = &e[score_at..];
        if is_f16 {
            half::f16::from_le_bytes([e[0], e[1]]).to_f32()
        } else {
            f32::from_le_bytes([e[0], e[1], e[2], e[3]])
        }
    };
    let mut consumed = [0u16; 4];
    for r in 0..repeat {
        let data: Vec<Vec<u8>> = (0..lists)
            .map(|k| {
                core.ub()
                    .bytes(src[k].addr() + r * total * entry, lens[k] * entry)
                    .map(|b| b.to_vec())
            })
            .collect::<std::result::Result<_, _>>()?;
        let mut head = vec![0usize; lists];
        let mut out = Vec::with_capacity((total * entry) as usize);
        loop {
            if p.if_exhausted_suspension && (0..lists).any(|k| head[k] as u64 == lens[k]) {
                break;
            }
            let mut best: Option<usize> = None;
            for k in 0..lists {
                if head[k] as u64 == lens[k] {
                    continue;
                }
                let at = head[k] * entry as usize;
                let v = score(&data[k][at..]);
                best = match best {
                    Some(b) => {
                        let bv = score(&data[b][head[b] * entry as usize..]);
                        if score_order(v, bv) == Ordering::Less {
                            Some(k)
                        } else {
                            Some(b)
                        }
                    }
                    None => Some(k),
                };
            }
            let Some(k) = best else { break };
            let at = head[k] * entry as usize;
            out.extend_from_slice(&data[k][at..at + entry as usize]);
            head[k] += 1;
        }
        core.ub_mut().write(dst.addr() + r * total * entry, &out)?;
        for k in 0..lists {
            consumed[k] = head[k] as u16;
        }
    }
    core.mrg_sort_result = consumed;
    Ok(())
}

/// ProposalConcat (`true`: elements into proposals) or ProposalExtract (`false`).
#[allow(clippy::too_many_arguments)]
pub fn proposal_move(
    core: &mut VectorCore,
    instr: Instr,
    name: &'static str,
    dst: &Operand,
    src: &Operand,
    repeat: i64,
    mode_number: i64,
) -> Result<()> {
    let chip = core.chip();
    instr.check_type(name, chip.id, "src", src.dtype)?;
    check::same_type(name, "dst", dst, "src", src.dtype)?;
    check::scope(name, "dst", dst, MemSpace::Ub)?;
    check::scope(name, "src", src, MemSpace::Ub)?;
    check::align(chip, name, "dst", dst)?;
    check::align(chip, name, "src", src)?;
    let repeat = check::range(name, "repeatTime", repeat, 0, 255, "[0, 255]")? as u64;
    let field = check::range(
        name,
        "modeNumber",
        mode_number,
        0,
        5,
        "[0, 5] (x1, y1, x2, y2, score, label)",
    )? as u64;
    if repeat == 0 {
        return Ok(());
    }
    let size = src.dtype.size() as u64;
    let concat = instr == Instr::ProposalConcat;
    let n = repeat * 16;
    let (props, flat) = if concat { (dst, src) } else { (src, dst) };
    // The last proposal is touched up to its field; the flat side fully.
    check::within(
        name,
        if concat { "dst" } else { "src" },
        props,
        Some((
            props.addr(),
            props.addr() + ((n - 1) * 8 + field + 1) * size,
        )),
    )?;
    check::within(
        name,
        if concat { "src" } else { "dst" },
        flat,
        Some((flat.addr(), flat.addr() + n * size)),
    )?;
    let s = size as usize;
    for k in 0..n {
        let p = props.addr() + (k * 8 + field) * size;
        let f = flat.addr() + k * size;
        let (from, to) = if concat { (f, p) } else { (p, f) };
        let mut v = [0u8; 4];
        v[..s].copy_from_slice(core.ub().bytes(from, size)?);
        core.ub_mut().write(to, &v[..s])?;
    }
    Ok(())
}

/// `RpSort16<T>(dst, src, repeatTime)`: 16 proposals sorted by score per repeat.
pub fn rp_sort16(
    core: &mut VectorCore,
    name: &'static str,
    dst: &Operand,
    src: &Operand,
    repeat: i64,
) -> Result<()> {
    let chip = core.chip();
    Instr::RpSort16.check_type(name, chip.id, "src", src.dtype)?;
    check::same_type(name, "dst", dst, "src", src.dtype)?;
    check::scope(name, "dst", dst, MemSpace::Ub)?;
    check::scope(name, "src", src, MemSpace::Ub)?;
    check::align(chip, name, "dst", dst)?;
    check::align(chip, name, "src", src)?;
    let repeat = check::range(name, "repeatTime", repeat, 0, 255, "[0, 255]")? as u64;
    if repeat == 0 {
        return Ok(());
    }
    let size = src.dtype.size() as u64;
    let prop = 8 * size;
    let bytes = repeat * 16 * prop;
    check::within(name, "src", src, Some((src.addr(), src.addr() + bytes)))?;
    check::within(name, "dst", dst, Some((dst.addr(), dst.addr() + bytes)))?;
    let data = core.ub().bytes(src.addr(), bytes)?.to_vec();
    let p = prop as usize;
    let score = |k: usize| -> f32 {
        let b = &data[k * p + 4 * size as usize..];
        if size == 2 {
            half::f16::from_le_bytes([b[0], b[1]]).to_f32()
        } else {
            f32::from_le_bytes([b[0], b[1], b[2], b[3]])
        }
    };
    let mut out = vec![0u8; bytes as usize];
    for r in 0..repeat as usize {
        let mut order: Vec<usize> = (r * 16..r * 16 + 16).collect();
        order.sort_by(|&a, &b| score_order(score(a), score(b)));
        for (k, &e) in order.iter().enumerate() {
            let o = (r * 16 + k) * p;
            out[o..o + p].copy_from_slice(&data[e * p..(e + 1) * p]);
        }
    }
    core.ub_mut().write(dst.addr(), &out)?;
    Ok(())
}

/// Checks TIK `set_rpn_offset(number)` on `chip` and gives the offset as stored (a half):
/// refused on Ascend 310 (TIK's own check); `number` must lie in [-65504, 65504].
pub fn rpn_offset_value(chip: npusim_core::ChipId, name: &'static str, number: f64) -> Result<f32> {
    if chip == npusim_core::ChipId::Ascend310 {
        return Err(AscendError::NotSupported { instr: name, chip });
    }
    if !(-65504.0..=65504.0).contains(&number) {
        return Err(AscendError::Rule {
            instr: name,
            param: "number",
            value: format!("{number}"),
            rule: "the offset must lie in [-65504, 65504] (a half value)",
        });
    }
    Ok(half::f16::from_f64(number).to_f32())
}

/// TIK `set_rpn_offset(number)`: the offset `viou` adds to each intersection side.
pub fn set_rpn_offset(core: &mut VectorCore, name: &'static str, number: f64) -> Result<()> {
    core.rpn_offset = rpn_offset_value(core.chip().id, name, number)?;
    Ok(())
}

/// TIK `viou` / `vaadd` (`instr`): 16 x 16 results per repeat, row = src0, column = src1.
pub fn proposal_pair(
    core: &mut VectorCore,
    instr: Instr,
    name: &'static str,
    dst: &Operand,
    src0: &Operand,
    src1: &Operand,
    repeat: i64,
) -> Result<()> {
    let chip = core.chip();
    instr.check_type(name, chip.id, "dst", dst.dtype)?;
    check::same_type(name, "src0", src0, "dst", dst.dtype)?;
    check::same_type(name, "src1", src1, "dst", dst.dtype)?;
    for (p, op) in [("dst", dst), ("src0", src0), ("src1", src1)] {
        check::scope(name, p, op, MemSpace::Ub)?;
        check::align(chip, name, p, op)?;
    }
    let repeat = check::range(name, "repeat_times", repeat, 0, 255, "[0, 255]")? as u64;
    if repeat == 0 {
        return Ok(());
    }
    let size = dst.dtype.size() as u64;
    // Elements per proposal read: 8 for viou (x1, y1, x2, y2, ...), 1 area for vaadd.
    let per = if instr == Instr::Viou { 8 } else { 1 };
    let d_span = (dst.addr(), dst.addr() + repeat * 256 * size);
    let s0_span = (src0.addr(), src0.addr() + repeat * 16 * per * size);
    let s1_span = (src1.addr(), src1.addr() + 16 * per * size);
    check::within(name, "dst", dst, Some(d_span))?;
    check::within(name, "src0", src0, Some(s0_span))?;
    check::within(name, "src1", src1, Some(s1_span))?;
    for (p, s) in [("src0", s0_span), ("src1", s1_span)] {
        if d_span.0 < s.1 && s.0 < d_span.1 {
            return Err(AscendError::IllegalOverlap {
                instr: name,
                dst: "dst",
                src: p,
                rule: "dst may not overlap a source (policy: the TIK source names no order of the 256 writes)",
            });
        }
    }
    let read = |core: &VectorCore, op: &Operand, n: u64| -> Result<Vec<f32>> {
        let b = core.ub().bytes(op.addr(), n * size)?;
        Ok(if size == 2 {
            b.chunks_exact(2)
                .map(|c| half::f16::from_le_bytes([c[0], c[1]]).to_f32())
                .collect()
        } else {
            b.chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect()
        })
    };
    let a = read(core, src0, repeat * 16 * per)?;
    let b = read(core, src1, 16 * per)?;
    let p = per as usize;
    let coords = |v: &[f32], k: usize| [v[k * p], v[k * p + 1], v[k * p + 2], v[k * p + 3]];
    let offset = core.rpn_offset;
    let mut out = Vec::with_capacity((repeat * 256 * size) as usize);
    for i in 0..(repeat * 16) as usize {
        for j in 0..16 {
            let v = if instr == Instr::Viou {
                crate::elem::proposal_intersection(coords(&a, i), coords(&b, j), offset)
            } else {
                crate::elem::add(a[i], b[j])
            };
            if size == 2 {
                out.extend_from_slice(&half::f16::from_f32(v).to_le_bytes());
            } else {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
    }
    core.ub_mut().write(dst.addr(), &out)?;
    Ok(())
}
