//! Generators and rearrangements: TCI, TTRI, TTRANS, TCONCAT.
//!
//! Implements pto-isa `docs/isa/TCI.md`, `docs/isa/TTRI.md`, `docs/isa/TTRANS.md` and
//! `docs/isa/TCONCAT.md`, with the PTOAS manual (`docs/PTO_IR_manual.md`: `pto.tci`,
//! `pto.ttri`, `pto.ttrans`, `pto.tconcat`) where the pages leave a rule to the implementation:
//! - TCI writes `start ± j` (wrapping in the element type) to row 0's valid columns; the tile
//!   has one row (the A2A3 and A5 implementations assert it).
//! - TTRI writes 1 / 0 of the element type over dst's valid region: lower keeps `j <= i + d`,
//!   upper keeps `j >= i + d`.
//! - TTRANS: `dst(j, i) = src(i, j)` over src's valid region on A2A3 and over src's static
//!   shape on A5 (the manual: A5 "does not consult the valid region").
//! - TCONCAT (basic form): each row of dst is src0's valid columns then src1's.
//! - TTRANS with its `tmp` operand ([`TileCore::ttrans_tmp`], the C++ intrinsic's form): the
//!   page calls tmp an implementation-defined scratch tile and gives its size. On A2A3 the
//!   2-D transpose goes through tmp (pto-isa `a2a3/TTrans.hpp` `TTransOperation`) when dst's
//!   row stride is a multiple of the row block (32 elements for b8, 16 for b16/b32) and src's
//!   a multiple of 32 bytes (and src's stride at most 255 blocks, the page): then tmp must be a
//!   Vec tile of at least `validCol * ceil(validRow / block) * block * sizeof(T)` bytes (the
//!   page's formula) and must not overlap src or dst (it is written before dst is). Otherwise
//!   (scalar copy) and on A5 (the 2-D path never touches tmp) tmp is not used. tmp's contents
//!   after the instruction are not part of the result: npusim leaves them unchanged.
//! - TCONCAT indexed forms ([`TileCore::tconcat_idx`], the C++ intrinsic's 5- and 6-operand
//!   overloads; the page only says "per-row index tiles specify dynamic column counts"):
//!   pto-isa's A2A3 and A5 implementations (`TConcatIdx`) agree: for each valid row `i` of dst,
//!   `n0 = src0Idx(i, 0) / sizeof(idx)`, `n1 = src1Idx(i, 0) / sizeof(idx)` (the index holds a
//!   byte count divided by the index type's size, as the code and the CPU simulator do), then
//!   `c0 = min(n0, dst.validCol)`, `c1 = min(n1, dst.validCol - c0)`; dst(i, 0..c0) =
//!   src0(i, 0..c0), dst(i, c0..c0+c1) = src1(i, 0..c1), the rest of the row untouched; the
//!   6-operand form also writes `dstIdx(i, 0) = min(n0 + n1, dst.validCol) * sizeof(idx)` (in
//!   the index type). Checked: every tile Vec and row-major; data types equal and in the
//!   TCONCAT list; index types equal and integer (int8..uint32); valid rows equal; index tiles
//!   with at least dst's valid rows; dstIdx's valid columns 1 (pto-isa's assert; the page says
//!   rows); negative counts and counts reading past a source's columns are typed errors (the
//!   hardware would read outside the tile).
//!
//! Elements move as bit patterns, so every element type of the same size behaves alike.

use super::{Scalar, ScalarElem, need_loc, need_row_major, same_type, vr_err};
use crate::core::TileCore;
use crate::dispatch;
use crate::error::PtoError;
use crate::num::Elem;
use crate::table::OpCode;
use crate::tile::{Tile, TileLoc};
use npusim_core::TileArch;

/// TCONCAT's valid-row rule (both forms): src0's and src1's valid rows equal dst's, which are
/// returned.
fn concat_rows(dst: &Tile, src0: &Tile, src1: &Tile) -> Result<usize, PtoError> {
    let rows = dst.valid_row();
    for (n, s) in [("src0", src0), ("src1", src1)] {
        if s.valid_row() != rows {
            return Err(vr_err(
                OpCode::Tconcat,
                n,
                "valid rows must equal dst's",
                format!("{} vs {}", s.valid_row(), rows),
            ));
        }
    }
    Ok(rows)
}

/// The bits of the integer `v` in `T` (floats convert the value, integers wrap).
fn bits_of<T: Elem>(v: i64) -> u64 {
    T::narrow(Scalar::Int(v).to_c::<T>()).to_bits_u64()
}

impl TileCore {
    fn vec_operand(&self, op: OpCode, operand: &'static str, t: &Tile) -> Result<(), PtoError> {
        need_loc(op, operand, t, TileLoc::Vec)?;
        op.check_type(self.arch(), operand, t.dtype())?;
        self.check_addr(t, op.name(), operand)
    }

    /// TCI: `dst(0, j) = start + j` (or `start - j` when `descending`) for `j` below dst's
    /// valid columns, wrapping in the element type.
    pub fn tci(&mut self, dst: &Tile, start: Scalar, descending: bool) -> Result<(), PtoError> {
        let op = OpCode::Tci;
        self.vec_operand(op, "dst", dst)?;
        need_row_major(op, "dst", dst)?;
        if dst.rows() != 1 {
            return Err(PtoError::Static {
                op: op.name(),
                operand: "dst",
                rule: "the tile must have exactly one row",
                value: format!("{}x{}", dst.rows(), dst.cols()),
            });
        }
        let s = match start {
            Scalar::Int(i) => i,
            Scalar::Float(f) => {
                return Err(PtoError::Static {
                    op: op.name(),
                    operand: "start",
                    rule: "the start value must be an integer of the tile's type",
                    value: format!("{f}"),
                });
            }
        };
        let t = dst.dtype();
        let size = t.size();
        let vc = dst.valid_col();
        let mut row = vec![0u8; vc * size];
        for (j, e) in row.chunks_exact_mut(size).enumerate() {
            let v = if descending {
                s.wrapping_sub(j as i64)
            } else {
                s.wrapping_add(j as i64)
            };
            let bits = dispatch!(int t, T => bits_of::<T>(v), else v as u64);
            e.copy_from_slice(&bits.to_le_bytes()[..size]);
        }
        self.write_bytes(dst, (0, 0), 1, vc, size, &row);
        Ok(())
    }

    /// TTRI: 1 where `j <= i + diagonal` (lower) or `j >= i + diagonal` (upper), else 0, over
    /// dst's valid region.
    pub fn ttri(&mut self, dst: &Tile, diagonal: i64, upper: bool) -> Result<(), PtoError> {
        let op = OpCode::Ttri;
        self.vec_operand(op, "dst", dst)?;
        need_row_major(op, "dst", dst)?;
        let t = dst.dtype();
        let one = dispatch!(all t, T => bits_of::<T>(1), else 1).to_le_bytes();
        let size = t.size();
        let (vr, vc) = (dst.valid_row(), dst.valid_col());
        let mut out = vec![0u8; vr * vc * size];
        for (k, e) in out.chunks_exact_mut(size).enumerate() {
            let (i, j) = ((k / vc) as i64, (k % vc) as i64);
            let set = if upper {
                j >= i + diagonal
            } else {
                j <= i + diagonal
            };
            if set {
                e.copy_from_slice(&one[..size]);
            }
        }
        self.write_bytes(dst, (0, 0), vr, vc, size, &out);
        Ok(())
    }

    /// TTRANS: `dst(j, i) = src(i, j)`.
    pub fn ttrans(&mut self, dst: &Tile, src: &Tile) -> Result<(), PtoError> {
        let op = OpCode::Ttrans;
        self.vec_operand(op, "dst", dst)?;
        self.vec_operand(op, "src", src)?;
        same_type(op, "dst", dst, "src", src)?;
        need_row_major(op, "src", src)?;
        let (rows, cols) = match self.arch() {
            TileArch::A5 => (src.rows(), src.cols()),
            _ => (src.valid_row(), src.valid_col()),
        };
        if dst.rows() < cols || dst.cols() < rows {
            return Err(vr_err(
                op,
                "dst",
                "the tile shape must hold the transposed domain",
                format!("shape {}x{} for {}x{}", dst.rows(), dst.cols(), cols, rows),
            ));
        }
        let size = src.dtype().size();
        let v = self.read_bytes(src, (0, 0), rows, cols, size);
        let mut out = vec![0u8; rows * cols * size];
        for i in 0..rows {
            for j in 0..cols {
                let (from, to) = ((i * cols + j) * size, (j * rows + i) * size);
                out[to..to + size].copy_from_slice(&v[from..from + size]);
            }
        }
        self.write_bytes(dst, (0, 0), cols, rows, size, &out);
        Ok(())
    }

    /// TCONCAT's operand rules shared by its plain and indexed forms: three row-major Vec
    /// tiles of one element type.
    fn concat_operands(&self, dst: &Tile, src0: &Tile, src1: &Tile) -> Result<(), PtoError> {
        let op = OpCode::Tconcat;
        for (n, t) in [("dst", dst), ("src0", src0), ("src1", src1)] {
            self.vec_operand(op, n, t)?;
            need_row_major(op, n, t)?;
        }
        same_type(op, "src0", src0, "dst", dst)?;
        same_type(op, "src1", src1, "dst", dst)?;
        Ok(())
    }

    /// TCONCAT: `dst(i, 0..c0) = src0(i, 0..c0)`, `dst(i, c0..c0+c1) = src1(i, 0..c1)`.
    pub fn tconcat(&mut self, dst: &Tile, src0: &Tile, src1: &Tile) -> Result<(), PtoError> {
        let op = OpCode::Tconcat;
        self.concat_operands(dst, src0, src1)?;
        let rows = concat_rows(dst, src0, src1)?;
        let (c0, c1) = (src0.valid_col(), src1.valid_col());
        let fits = match self.arch() {
            TileArch::A5 => dst.valid_col() == c0 + c1,
            _ => c0 + c1 <= dst.cols(),
        };
        if !fits {
            return Err(vr_err(
                op,
                "dst",
                match self.arch() {
                    TileArch::A5 => "dst's valid columns must equal src0's plus src1's",
                    _ => "src0's plus src1's valid columns must fit dst's columns",
                },
                format!(
                    "{c0} + {c1} for dst {}x{} (valid {}x{})",
                    dst.rows(),
                    dst.cols(),
                    dst.valid_row(),
                    dst.valid_col()
                ),
            ));
        }
        // Both sources are read before dst is written (dst may alias one of them).
        let size = dst.dtype().size();
        let a = self.read_bytes(src0, (0, 0), rows, c0, size);
        let b = self.read_bytes(src1, (0, 0), rows, c1, size);
        self.write_bytes(dst, (0, 0), rows, c0, size, &a);
        self.write_bytes(dst, (0, c0), rows, c1, size, &b);
        Ok(())
    }

    /// TTRANS with its tmp operand (see the module docs): the transpose of [`TileCore::ttrans`]
    /// plus the tmp rules of the A2A3 path that uses it.
    pub fn ttrans_tmp(&mut self, dst: &Tile, src: &Tile, tmp: &Tile) -> Result<(), PtoError> {
        let op = OpCode::Ttrans;
        self.check_addr(tmp, op.name(), "tmp")?;
        if self.arch() == TileArch::A2A3 {
            self.vec_operand(op, "dst", dst)?;
            self.vec_operand(op, "src", src)?;
            let size = src.dtype().size();
            let block = if size == 1 { 32 } else { 16 };
            let per_block = 32 / size.max(1);
            let uses_tmp = dst.pitch().is_multiple_of(block)
                && src.pitch().is_multiple_of(per_block)
                && src.pitch() / per_block <= 255;
            if uses_tmp {
                need_loc(op, "tmp", tmp, TileLoc::Vec)?;
                let (h, w) = (src.valid_row(), src.valid_col());
                let need = (w * h.div_ceil(block) * block * size) as u64;
                if tmp.size_bytes() < need {
                    return Err(vr_err(
                        op,
                        "tmp",
                        "tmp must hold validCol * ceil(validRow / b) * b * sizeof(T) bytes (b = 32 for b8, 16 otherwise) when the a2a3 transpose goes through it",
                        format!("{} bytes for {need}", tmp.size_bytes()),
                    ));
                }
                let span = |t: &Tile| (t.addr(), t.addr() + t.size_bytes());
                let (t0, t1) = (tmp.addr(), tmp.addr() + need);
                for (n, t) in [("src", src), ("dst", dst)] {
                    let (a0, a1) = span(t);
                    if t0 < a1 && a0 < t1 {
                        return Err(vr_err(
                            op,
                            "tmp",
                            "tmp must not overlap src or dst (the a2a3 transpose writes tmp before dst)",
                            format!("tmp [{t0:#x}, {t1:#x}) and {n} [{a0:#x}, {a1:#x})"),
                        ));
                    }
                }
            }
        }
        self.ttrans(dst, src)
    }

    /// TCONCAT, indexed forms (see the module docs): per row `i`, `src0`'s first `c0` and
    /// `src1`'s first `c1` columns, counts from `src0_idx(i, 0)` and `src1_idx(i, 0)`; with
    /// `dst_idx` also the concatenated count per row.
    pub fn tconcat_idx(
        &mut self,
        dst: &Tile,
        src0: &Tile,
        src1: &Tile,
        src0_idx: &Tile,
        src1_idx: &Tile,
        dst_idx: Option<&Tile>,
    ) -> Result<(), PtoError> {
        use npusim_core::ElemType::*;
        let op = OpCode::Tconcat;
        self.concat_operands(dst, src0, src1)?;
        let idx_t = src0_idx.dtype();
        let mut idx_tiles = vec![("src0Idx", src0_idx), ("src1Idx", src1_idx)];
        if let Some(d) = dst_idx {
            idx_tiles.push(("dstIdx", d));
        }
        for &(n, t) in &idx_tiles {
            need_loc(op, n, t, TileLoc::Vec)?;
            need_row_major(op, n, t)?;
            self.check_addr(t, op.name(), n)?;
            if !matches!(t.dtype(), I8 | U8 | I16 | U16 | I32 | U32) {
                return Err(PtoError::Static {
                    op: op.name(),
                    operand: n,
                    rule: "index tiles must be int8, uint8, int16, uint16, int32 or uint32",
                    value: t.dtype().to_string(),
                });
            }
            same_type(op, n, t, "src0Idx", src0_idx)?;
        }
        let rows = concat_rows(dst, src0, src1)?;
        for &(n, t) in &idx_tiles {
            if t.rows() < rows {
                return Err(vr_err(
                    op,
                    n,
                    "index tiles need a row for each of dst's valid rows",
                    format!("{} rows for {rows}", t.rows()),
                ));
            }
        }
        if let Some(d) = dst_idx
            && d.valid_col() != 1
        {
            return Err(vr_err(
                op,
                "dstIdx",
                "dstIdx must have one valid column",
                d.valid_col().to_string(),
            ));
        }
        let isz = idx_t.size();
        let read_idx = |c: &TileCore, t: &Tile, r: usize| -> i64 {
            let b = c.read_bytes(t, (r, 0), 1, 1, isz);
            let mut w = [0u8; 8];
            w[..isz].copy_from_slice(&b);
            let u = u64::from_le_bytes(w);
            match idx_t {
                I8 => u as u8 as i8 as i64,
                I16 => u as u16 as i16 as i64,
                I32 => u as u32 as i32 as i64,
                _ => u as i64,
            }
        };
        let dcols = dst.valid_col();
        let size = dst.dtype().size();
        // All counts are checked before anything is written.
        let mut plan = Vec::with_capacity(rows);
        for r in 0..rows {
            let (b0, b1) = (read_idx(self, src0_idx, r), read_idx(self, src1_idx, r));
            for (n, b) in [("src0Idx", b0), ("src1Idx", b1)] {
                if b < 0 {
                    return Err(vr_err(
                        op,
                        n,
                        "index values are byte counts and must not be negative",
                        format!("row {r}: {b}"),
                    ));
                }
            }
            let (n0, n1) = ((b0 as usize) / isz, (b1 as usize) / isz);
            let c0 = n0.min(dcols);
            let c1 = n1.min(dcols - c0);
            for (n, t, c) in [("src0Idx", src0, c0), ("src1Idx", src1, c1)] {
                if c > t.cols() {
                    return Err(vr_err(
                        op,
                        n,
                        "the row's count must not read past the source tile's columns",
                        format!("row {r}: {c} columns of a {}-column tile", t.cols()),
                    ));
                }
            }
            plan.push((n0, n1, c0, c1));
        }
        let mut rows_out = Vec::with_capacity(rows);
        for (r, &(_, _, c0, c1)) in plan.iter().enumerate() {
            let a = self.read_bytes(src0, (r, 0), 1, c0, size);
            let b = self.read_bytes(src1, (r, 0), 1, c1, size);
            rows_out.push((a, b));
        }
        for (r, ((a, b), &(n0, n1, c0, c1))) in rows_out.iter().zip(&plan).enumerate() {
            self.write_bytes(dst, (r, 0), 1, c0, size, a);
            self.write_bytes(dst, (r, c0), 1, c1, size, b);
            if let Some(d) = dst_idx {
                // In the index type: the sum wraps, then the clamp to dst's valid columns.
                let wrap = |v: u64| -> i64 {
                    match idx_t {
                        I8 => v as u8 as i8 as i64,
                        U8 => v as u8 as i64,
                        I16 => v as u16 as i16 as i64,
                        U16 => v as u16 as i64,
                        I32 => v as u32 as i32 as i64,
                        _ => v as u32 as i64,
                    }
                };
                let sum = wrap((n0 + n1) as u64);
                let lim = wrap(dcols as u64);
                let cnt = sum.min(lim);
                let out = wrap((cnt as u64).wrapping_mul(isz as u64));
                let bytes = (out as u64).to_le_bytes();
                self.write_bytes(d, (r, 0), 1, 1, isz, &bytes[..isz]);
            }
        }
        Ok(())
    }
}
