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

    /// TCONCAT: `dst(i, 0..c0) = src0(i, 0..c0)`, `dst(i, c0..c0+c1) = src1(i, 0..c1)`.
    pub fn tconcat(&mut self, dst: &Tile, src0: &Tile, src1: &Tile) -> Result<(), PtoError> {
        let op = OpCode::Tconcat;
        for (n, t) in [("dst", dst), ("src0", src0), ("src1", src1)] {
            self.vec_operand(op, n, t)?;
            need_row_major(op, n, t)?;
        }
        same_type(op, "src0", src0, "dst", dst)?;
        same_type(op, "src1", src1, "dst", dst)?;
        let rows = dst.valid_row();
        for (n, s) in [("src0", src0), ("src1", src1)] {
            if s.valid_row() != rows {
                return Err(vr_err(
                    op,
                    n,
                    "valid rows must equal dst's",
                    format!("{} vs {}", s.valid_row(), rows),
                ));
            }
        }
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
}
