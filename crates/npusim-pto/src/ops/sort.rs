//! Sorting: TSORT32 and TMRGSORT over 8-byte value-index records.
//!
//! Implements pto-isa `docs/isa/TSORT32.md` and `docs/isa/TMRGSORT.md`, with the PTOAS manual
//! (`docs/PTO_IR_manual.md`: `pto.tsort32`, `pto.tmrgsort`) for the operand forms.
//!
//! A **record** is 8 bytes: the value in the low bytes (a float fills 4 bytes; a half fills 2,
//! then 2 zero bytes) and a `uint32` index in bytes 4..8. A float tile holds 2 elements per
//! record, a half tile 4 ([`coef`]).
//!
//! - TSORT32 sorts each 32-element block of every valid row of `src` (the last block of a row
//!   may be shorter, the 4-operand form) together with `idx`, descending by value, and writes
//!   the block's records to `dst` at the block's record position. Only the block's own records
//!   are written (the page's "Math Interpretation"; the hardware's -inf padding records of a
//!   short tail block are not modelled).
//! - TMRGSORT single-list form merges, per group of `4 * blockLen` elements of `src`, the four
//!   sorted blocks of `blockLen` elements into one descending run written to the same columns
//!   of `dst`. The multi-list form merges 2-4 sorted lists (each `src`'s valid columns) into
//!   `dst` (and `tmp`, the hardware's staging buffer) up to `dst`'s valid columns; with
//!   `exhausted` it stops after the record that empties any list. It returns the records taken
//!   from each list (`MrgSortExecutedNumList`).
//!
//! **Order** ([`key`]): descending by value; a NaN value sorts before every number (the policy
//! the Ascend vector unit's Sort32 of this project follows; the pages are silent); +0 and -0 are
//! equal. TSORT32 breaks ties by the smaller index (the page), then by position; a merge takes
//! the lower-numbered list (block) on a tie (the pto-isa CPU simulator picks a later list only
//! when its value is strictly greater).

use super::{Scalar, need_loc, need_row_major, same_type, vr_err};
use crate::core::TileCore;
use crate::error::PtoError;
use crate::table::OpCode;
use crate::tile::{Tile, TileLoc};
use npusim_core::{ElemType, TileArch};

/// Elements of `t` per 8-byte record: 2 for float, 4 for half.
pub fn coef(t: ElemType) -> usize {
    8 / t.size()
}

/// The sort key of a record's value bits (f32 or f16 in the low bytes): larger sorts first.
/// NaN is above every number, ±0 are equal, otherwise the numeric order.
pub fn key(record: u64, t: ElemType) -> i64 {
    let v = match t {
        ElemType::F16 => half::f16::from_bits(record as u16).to_f32(),
        _ => f32::from_bits(record as u32),
    };
    if v.is_nan() {
        return i64::MAX;
    }
    let b = v.to_bits() as i32;
    if b >= 0 {
        b as i64
    } else {
        -((b & 0x7fff_ffff) as i64)
    }
}

/// The pure meaning of one TSORT32 block: records sorted descending by [`key`], ties by the
/// smaller index (bits 32..64), then by position (stable).
pub fn sort_block(records: &mut [u64], t: ElemType) {
    records.sort_by_key(|r| (std::cmp::Reverse(key(*r, t)), (*r >> 32) as u32));
}

/// [`sort_block`] for a block of up to 32 records, as TSORT32 runs it: each record's order
/// (key descending, index, position) packed once into one `u128` (the negated key offset to
/// unsigned in the high 64 bits, the index above the 8-bit position below), then an unstable
/// sort on that word, which orders exactly as the stable sort does (every word is distinct).
/// One comparison of a `u128` replaces a three-field tuple comparison (about 12% less time
/// for 256 blocks). Held equal to [`sort_block`] by the tests.
pub fn sort_block32(records: &mut [u64], t: ElemType) {
    if records.len() > 32 {
        return sort_block(records, t);
    }
    let mut keyed = [(0u128, 0u64); 32];
    let n = records.len();
    for (p, (slot, r)) in keyed.iter_mut().zip(records.iter()).enumerate() {
        let k = (key(*r, t).wrapping_neg() as u64) ^ (1 << 63);
        *slot = (
            ((k as u128) << 64) | (((*r >> 32) as u128) << 8) | p as u128,
            *r,
        );
    }
    keyed[..n].sort_unstable_by_key(|k| k.0);
    for (r, k) in records.iter_mut().zip(&keyed[..n]) {
        *r = k.1;
    }
}

/// The pure meaning of a merge: takes from `lists` (each sorted) the record with the largest
/// [`key`] (the lowest list on a tie) until `out_len` records are out, every list is empty, or
/// (`exhausted`) some list has just been emptied. Returns the records taken from each list.
pub fn merge(
    lists: &[&[u64]],
    t: ElemType,
    out_len: usize,
    exhausted: bool,
    out: &mut Vec<u64>,
) -> [usize; 4] {
    // The key of each list's next record; `EMPTY` (below every key, which is at least
    // -(2^31 - 1)) once the list is used up.
    const EMPTY: i64 = i64::MIN;
    let n = lists.len().min(4);
    let mut pos = [0usize; 4];
    let mut head = [EMPTY; 4];
    for (h, l) in head.iter_mut().zip(&lists[..n]) {
        if let Some(r) = l.first() {
            *h = key(*r, t);
        }
    }
    out.reserve(out_len.saturating_sub(out.len()));
    while out.len() < out_len {
        // The largest head, the lowest list on a tie.
        let mut k = 0;
        for j in 1..n {
            if head[j] > head[k] {
                k = j;
            }
        }
        if head[k] == EMPTY {
            break;
        }
        let l = lists[k];
        out.push(l[pos[k]]);
        pos[k] += 1;
        head[k] = l.get(pos[k]).map_or(EMPTY, |r| key(*r, t));
        if exhausted && pos[k] == l.len() {
            break;
        }
    }
    pos
}

/// Record `i` of a row of element bytes.
fn record_at(bytes: &[u8], i: usize) -> u64 {
    let mut b = [0u8; 8];
    if let Some(s) = bytes.get(i * 8..i * 8 + 8) {
        b.copy_from_slice(s);
    }
    u64::from_le_bytes(b)
}

fn records_of(bytes: &[u8], n: usize) -> Vec<u64> {
    let whole = (bytes.len() / 8).min(n);
    let mut out: Vec<u64> = bytes[..whole * 8]
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
        .collect();
    out.extend((whole..n).map(|i| record_at(bytes, i)));
    out
}

fn bytes_of(records: &[u64]) -> Vec<u8> {
    let mut out = Vec::with_capacity(records.len() * 8);
    for r in records {
        out.extend_from_slice(&r.to_le_bytes());
    }
    out
}

fn static_err(op: OpCode, operand: &'static str, rule: &'static str, value: String) -> PtoError {
    PtoError::Static {
        op: op.name(),
        operand,
        rule,
        value,
    }
}

/// The merge operand form: 2-4 lists and whether the merge stops at the first empty list.
#[derive(Clone, Copy, Debug)]
pub struct MergeLists<'a> {
    pub srcs: &'a [Tile],
    pub exhausted: bool,
}

impl TileCore {
    /// A Vec, row-major tile of a legal type that fits its memory.
    fn sort_operand(&self, op: OpCode, name: &'static str, t: &Tile) -> Result<(), PtoError> {
        need_loc(op, name, t, TileLoc::Vec)?;
        need_row_major(op, name, t)?;
        op.check_type(self.arch(), name, t.dtype())?;
        self.check_addr(t, op.name(), name)
    }

    /// TSORT32 (`dst, src, idx [, tmp]`).
    pub fn tsort32(
        &mut self,
        dst: &Tile,
        src: &Tile,
        idx: &Tile,
        tmp: Option<&Tile>,
    ) -> Result<(), PtoError> {
        let op = OpCode::Tsort32;
        self.sort_operand(op, "dst", dst)?;
        self.sort_operand(op, "src", src)?;
        same_type(op, "src", src, "dst", dst)?;
        need_loc(op, "idx", idx, TileLoc::Vec)?;
        need_row_major(op, "idx", idx)?;
        if idx.dtype() != ElemType::U32 {
            return Err(PtoError::IllegalType {
                op: op.name(),
                operand: "idx",
                dtype: idx.dtype(),
                arch: crate::table::arch_name(self.arch()),
                legal: "uint32".into(),
            });
        }
        self.check_addr(idx, op.name(), "idx")?;
        let t = src.dtype();
        let (rows, cols) = (src.valid_row(), src.valid_col());
        if idx.valid_col() != cols || (idx.valid_row() != rows && idx.valid_row() != 1) {
            return Err(vr_err(
                op,
                "idx",
                "must be src's valid region (or one row of src's valid columns)",
                format!(
                    "{}x{} for src {}x{}",
                    idx.valid_row(),
                    idx.valid_col(),
                    rows,
                    cols
                ),
            ));
        }
        match tmp {
            None if !cols.is_multiple_of(32) => {
                return Err(vr_err(
                    op,
                    "src",
                    "without tmp, the valid columns must be a multiple of 32",
                    cols.to_string(),
                ));
            }
            None => {}
            Some(tmp) => {
                self.sort_operand(op, "tmp", tmp)?;
                same_type(op, "tmp", tmp, "src", src)?;
                let whole_row = match self.arch() {
                    TileArch::A5 => cols * t.size() <= 8160,
                    TileArch::A2A3 => cols <= 8160,
                };
                let need = if whole_row {
                    cols.div_ceil(32) * 32
                } else {
                    32
                };
                if tmp.rows() * tmp.cols() < need {
                    return Err(static_err(
                        op,
                        "tmp",
                        "the tile must hold tmpSize elements (the row rounded up to 32, or 32 for a long row)",
                        format!("{} elements for {need}", tmp.rows() * tmp.cols()),
                    ));
                }
            }
        }
        let k = coef(t);
        if dst.rows() < rows || dst.cols() < cols * k {
            return Err(static_err(
                op,
                "dst",
                "the tile must hold src's valid rows of records (2 float or 4 half columns per src column)",
                format!(
                    "shape {}x{} for {}x{}",
                    dst.rows(),
                    dst.cols(),
                    rows,
                    cols * k
                ),
            ));
        }
        let size = t.size();
        let vals = self.read_bytes(src, (0, 0), rows, cols, size);
        let ids = self.read_bytes(idx, (0, 0), idx.valid_row(), cols, 4);
        let mut out = vec![0u64; rows * cols];
        for r in 0..rows {
            let ir = if idx.valid_row() == 1 { 0 } else { r };
            let row = &mut out[r * cols..(r + 1) * cols];
            for (c, rec) in row.iter_mut().enumerate() {
                let at = (r * cols + c) * size;
                let mut v = [0u8; 4];
                v[..size].copy_from_slice(&vals[at..at + size]);
                let i = (ir * cols + c) * 4;
                let mut ib = [0u8; 4];
                ib.copy_from_slice(&ids[i..i + 4]);
                *rec = u32::from_le_bytes(v) as u64 | ((u32::from_le_bytes(ib) as u64) << 32);
            }
            for block in row.chunks_mut(32) {
                sort_block32(block, t);
            }
        }
        self.write_bytes(dst, (0, 0), rows, cols * k, size, &bytes_of(&out));
        Ok(())
    }

    /// The single-row, same-type checks of every TMRGSORT tile.
    fn mrgsort_operand(
        &self,
        op: OpCode,
        name: &'static str,
        t: &Tile,
        like: &Tile,
    ) -> Result<(), PtoError> {
        self.sort_operand(op, name, t)?;
        same_type(op, name, t, "dst", like)?;
        if t.rows() != 1 {
            return Err(static_err(
                op,
                name,
                "the tile must have exactly one row",
                format!("{}x{}", t.rows(), t.cols()),
            ));
        }
        Ok(())
    }

    /// The UB budget rule of TMRGSORT: the tiles' columns together below the UB size.
    fn mrgsort_budget(&self, op: OpCode, tiles: &[&Tile]) -> Result<(), PtoError> {
        let ub = self.mem(TileLoc::Vec).capacity();
        let bytes: usize = tiles.iter().map(|t| t.cols() * t.dtype().size()).sum();
        if bytes >= ub {
            return Err(static_err(
                op,
                "dst",
                "the tiles' columns together must stay below the UB size",
                format!("{bytes} bytes for UB {ub}"),
            ));
        }
        Ok(())
    }

    /// TMRGSORT single-list form (`dst, src, blockLen`): four sorted blocks of `blockLen`
    /// elements per group merged into one run.
    pub fn tmrgsort(&mut self, dst: &Tile, src: &Tile, block_len: Scalar) -> Result<(), PtoError> {
        let op = OpCode::Tmrgsort;
        self.mrgsort_operand(op, "dst", dst, dst)?;
        self.mrgsort_operand(op, "src", src, dst)?;
        self.mrgsort_budget(op, &[src, dst])?;
        let bl = match block_len {
            Scalar::Int(b) if b > 0 && b % 64 == 0 => b as usize,
            other => {
                return Err(PtoError::Scalar {
                    op: op.name(),
                    rule: "blockLen must be a positive multiple of 64",
                    value: format!("{other:?}"),
                });
            }
        };
        let vc = src.valid_col();
        let group = bl.saturating_mul(4);
        if !vc.is_multiple_of(group) || !(1..=255).contains(&(vc / group)) {
            return Err(vr_err(
                op,
                "src",
                "the valid columns must be 1 to 255 times blockLen * 4",
                format!("{vc} for blockLen {bl}"),
            ));
        }
        if dst.cols() < vc {
            return Err(static_err(
                op,
                "dst",
                "the tile must hold src's valid columns",
                format!("{} columns for {vc}", dst.cols()),
            ));
        }
        let t = src.dtype();
        let size = t.size();
        let per_block = bl / coef(t);
        let recs = records_of(&self.read_bytes(src, (0, 0), 1, vc, size), vc * size / 8);
        let mut out = Vec::with_capacity(recs.len());
        for g in recs.chunks(per_block * 4) {
            let mut lists: [&[u64]; 4] = [&[]; 4];
            let mut n = 0;
            for (l, c) in lists.iter_mut().zip(g.chunks(per_block)) {
                *l = c;
                n += 1;
            }
            // `merge` stops at `out_len` records in all: the records out so far plus this group.
            let len = out.len() + g.len();
            merge(&lists[..n], t, len, false, &mut out);
        }
        self.write_bytes(dst, (0, 0), 1, vc, size, &bytes_of(&out));
        Ok(())
    }

    /// TMRGSORT multi-list form (`dst, tmp, src0, src1 [, src2 [, src3]]`, `exhausted`):
    /// returns the records taken from each list.
    pub fn tmrgsort_lists(
        &mut self,
        dst: &Tile,
        tmp: &Tile,
        lists: MergeLists<'_>,
    ) -> Result<[u16; 4], PtoError> {
        let op = OpCode::Tmrgsort;
        const NAMES: [&str; 4] = ["src0", "src1", "src2", "src3"];
        let srcs = lists.srcs;
        if !(2..=4).contains(&srcs.len()) {
            return Err(PtoError::Operands {
                op: op.name(),
                expected: "2 to 4 source lists",
            });
        }
        self.mrgsort_operand(op, "dst", dst, dst)?;
        self.mrgsort_operand(op, "tmp", tmp, dst)?;
        for (s, name) in srcs.iter().zip(NAMES) {
            self.mrgsort_operand(op, name, s, dst)?;
        }
        let src_cols: usize = srcs.iter().map(|s| s.cols()).sum();
        if tmp.cols() < src_cols {
            return Err(static_err(
                op,
                "tmp",
                "the tile's columns must be at least the sources' columns together",
                format!("{} for {src_cols}", tmp.cols()),
            ));
        }
        let mut budget: Vec<&Tile> = srcs.iter().collect();
        budget.push(tmp);
        self.mrgsort_budget(op, &budget)?;
        let t = dst.dtype();
        let (size, k) = (t.size(), coef(t));
        let data: Vec<Vec<u64>> = srcs
            .iter()
            .map(|s| {
                let n = s.valid_col() / k;
                records_of(&self.read_bytes(s, (0, 0), 1, n * k, size), n)
            })
            .collect();
        let views: Vec<&[u64]> = data.iter().map(|d| d.as_slice()).collect();
        let mut out = Vec::new();
        let taken = merge(&views, t, dst.valid_col() / k, lists.exhausted, &mut out);
        let bytes = bytes_of(&out);
        self.write_bytes(tmp, (0, 0), 1, out.len() * k, size, &bytes);
        self.write_bytes(dst, (0, 0), 1, out.len() * k, size, &bytes);
        Ok(taken.map(|n| n as u16))
    }
}
