//! Gather and scatter inside the tile memory: TGATHER (index and mask-pattern forms),
//! TGATHERB and TSCATTER.
//!
//! Implements pto-isa `docs/isa/TGATHER.md`, `docs/isa/TGATHERB.md` and `docs/isa/TSCATTER.md`
//! with the PTOAS manual (`pto.tgather`, `pto.tgatherb`, `pto.tscatter`) for operand forms:
//! - TGATHER index form: `dst(i, j) = src[idx(i, j)]` over dst's valid region, the index a flat
//!   element number of src's static `rows x cols` (row-major).
//! - TGATHER mask form: for every valid row of src, the columns the pattern selects, packed one
//!   after another into dst (whose valid columns are its columns, so dst is contiguous).
//! - TGATHERB: for every 32-byte block `c` of dst's valid row `i`, the 32 bytes of src at byte
//!   offset `offset(i, c)` (a `uint32`).
//! - TSCATTER: dst is first cleared (the A2A3 implementation's `InitUBBuffer` zeroes the whole
//!   tile), then `dst(idx(i, j), j) = src(i, j)` over idx's valid region (the page's math; the
//!   last writer wins).
//!
//! The pages leave out-of-range indices "implementation-defined" and their implementations do
//! not check them; here an index or offset outside its tile is a typed error
//! ([`PtoError::Index`]) raised before anything is written, never a read or write past a tile.
//! Elements move as bit patterns.

use super::{covers, illegal, need_loc, need_row_major, need_type, vr_err};
use crate::core::TileCore;
use crate::error::PtoError;
use crate::table::OpCode;
use crate::tile::{Tile, TileLoc};
use npusim_core::{ElemType, TileArch};

/// The compile-time mask patterns of TGATHER's mask form (`#pto.mask_pattern<P0101>`): which
/// columns of each group of 2 or 4 are kept, read right to left (`P0101` keeps even columns).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MaskPattern {
    P0101,
    P1010,
    P0001,
    P0010,
    P0100,
    P1000,
    P1111,
}

impl MaskPattern {
    /// Whether column `c` is kept.
    pub fn keeps(self, c: usize) -> bool {
        match self {
            MaskPattern::P0101 => c.is_multiple_of(2),
            MaskPattern::P1010 => c % 2 == 1,
            MaskPattern::P0001 => c.is_multiple_of(4),
            MaskPattern::P0010 => c % 4 == 1,
            MaskPattern::P0100 => c % 4 == 2,
            MaskPattern::P1000 => c % 4 == 3,
            MaskPattern::P1111 => true,
        }
    }
    /// `P0101`, `p0101`, or `#pto.mask_pattern<P0101>`.
    pub fn parse(s: &str) -> Option<MaskPattern> {
        let s = s
            .trim()
            .trim_start_matches("#pto.mask_pattern<")
            .trim_end_matches('>');
        Some(match s.to_ascii_uppercase().as_str() {
            "P0101" => MaskPattern::P0101,
            "P1010" => MaskPattern::P1010,
            "P0001" => MaskPattern::P0001,
            "P0010" => MaskPattern::P0010,
            "P0100" => MaskPattern::P0100,
            "P1000" => MaskPattern::P1000,
            "P1111" => MaskPattern::P1111,
            _ => return None,
        })
    }
}

/// An index element (its bits in the tile's type) as a signed number.
fn index_value(bits: &[u8], t: ElemType) -> i64 {
    let mut b = [0u8; 8];
    b[..bits.len()].copy_from_slice(bits);
    let u = u64::from_le_bytes(b);
    match t {
        ElemType::I8 => u as u8 as i8 as i64,
        ElemType::I16 => u as u16 as i16 as i64,
        ElemType::I32 => u as u32 as i32 as i64,
        _ => u as i64,
    }
}

/// A tile of index elements as numbers (one match on the type, then a tight loop).
fn indices(bytes: &[u8], t: ElemType) -> Vec<i64> {
    match t.size() {
        2 => bytes.chunks_exact(2).map(|e| index_value(e, t)).collect(),
        _ if t == ElemType::I32 => bytes
            .chunks_exact(4)
            .map(|e| i32::from_le_bytes([e[0], e[1], e[2], e[3]]) as i64)
            .collect(),
        _ => bytes
            .chunks_exact(4)
            .map(|e| u32::from_le_bytes([e[0], e[1], e[2], e[3]]) as i64)
            .collect(),
    }
}

/// `out[k] = src[idx[k]]` over `N`-byte elements (indices already checked).
fn gather_fixed<const N: usize>(src: &[u8], idx: &[i64], out: &mut [u8]) {
    for (o, &i) in out.chunks_exact_mut(N).zip(idx) {
        let s = i as usize * N;
        if let Some(v) = src.get(s..s + N) {
            o.copy_from_slice(v);
        }
    }
}

fn contiguous(op: OpCode, operand: &'static str, t: &Tile) -> Result<(), PtoError> {
    if t.valid_col() != t.cols() {
        return Err(vr_err(
            op,
            operand,
            "the valid columns must equal the tile's columns (contiguous storage)",
            format!("{} of {}", t.valid_col(), t.cols()),
        ));
    }
    Ok(())
}

impl TileCore {
    fn gather_operand(&self, op: OpCode, name: &'static str, t: &Tile) -> Result<(), PtoError> {
        need_loc(op, name, t, TileLoc::Vec)?;
        need_row_major(op, name, t)?;
        self.check_addr(t, op.name(), name)
    }

    /// TGATHER index form (`dst, src, idx [, tmp]`).
    pub fn tgather(
        &mut self,
        dst: &Tile,
        src: &Tile,
        idx: &Tile,
        tmp: Option<&Tile>,
    ) -> Result<(), PtoError> {
        use ElemType::*;
        let op = OpCode::Tgather;
        let arch = self.arch();
        for (n, t) in [("dst", dst), ("src", src), ("idx", idx)] {
            self.gather_operand(op, n, t)?;
        }
        op.check_type(arch, "dst", dst.dtype())?;
        super::same_type(op, "src", src, "dst", dst)?;
        let idx_types: &[ElemType] = match arch {
            TileArch::A2A3 => &[I32, U32],
            TileArch::A5 => &[I16, U16, I32, U32],
        };
        need_type(op, arch, "idx", idx, idx_types)?;
        contiguous(op, "dst", dst)?;
        match (arch, tmp) {
            (TileArch::A2A3, None) => {
                return Err(PtoError::Operands {
                    op: op.name(),
                    expected: "a tmp tile on a2a3 (dst, src, idx, tmp)",
                });
            }
            (TileArch::A2A3, Some(tmp)) => {
                self.gather_operand(op, "tmp", tmp)?;
                super::same_type(op, "tmp", tmp, "idx", idx)?;
                if tmp.rows() != idx.valid_row() || tmp.cols() != idx.valid_col() {
                    return Err(vr_err(
                        op,
                        "tmp",
                        "the tile's shape must equal idx's valid region",
                        format!(
                            "{}x{} for {}x{}",
                            tmp.rows(),
                            tmp.cols(),
                            idx.valid_row(),
                            idx.valid_col()
                        ),
                    ));
                }
            }
            (TileArch::A5, _) => contiguous(op, "idx", idx)?,
        }
        let (rows, cols) = (dst.valid_row(), dst.valid_col());
        covers(op, "idx", idx, rows, cols)?;
        let (isz, size) = (idx.dtype().size(), dst.dtype().size());
        let ib = self.read_bytes(idx, (0, 0), rows, cols, isz);
        let limit = src.rows() * src.cols();
        let idxs = indices(&ib, idx.dtype());
        if let Some(k) = idxs.iter().position(|&v| v < 0 || v as u64 >= limit as u64) {
            return Err(PtoError::Index {
                op: op.name(),
                operand: "idx",
                row: k / cols,
                col: k % cols,
                value: idxs[k],
                rule: "an element index must be below src's rows * cols",
                limit: limit as u64,
            });
        }
        let flat = self.read_bytes(src, (0, 0), src.rows(), src.cols(), size);
        let mut out = vec![0u8; rows * cols * size];
        match size {
            1 => gather_fixed::<1>(&flat, &idxs, &mut out),
            2 => gather_fixed::<2>(&flat, &idxs, &mut out),
            4 => gather_fixed::<4>(&flat, &idxs, &mut out),
            _ => gather_fixed::<8>(&flat, &idxs, &mut out),
        }
        self.write_bytes(dst, (0, 0), rows, cols, size, &out);
        Ok(())
    }

    /// TGATHER mask-pattern form (`dst, src`, pattern).
    pub fn tgather_mask(
        &mut self,
        dst: &Tile,
        src: &Tile,
        pattern: MaskPattern,
    ) -> Result<(), PtoError> {
        let op = OpCode::Tgather;
        let arch = self.arch();
        for (n, t) in [("dst", dst), ("src", src)] {
            self.gather_operand(op, n, t)?;
            op.check_type(arch, n, t.dtype())?;
        }
        let size = src.dtype().size();
        if dst.dtype().size() != size {
            return Err(PtoError::TypeMismatch {
                op: op.name(),
                operand: "dst",
                dtype: dst.dtype(),
                other: "src (element size)",
                expected: src.dtype(),
            });
        }
        if arch == TileArch::A2A3 && size == 1 {
            return Err(illegal(op, arch, "src", src.dtype(), &[]));
        }
        contiguous(op, "dst", dst)?;
        let (rows, cols) = (src.valid_row(), src.valid_col());
        let kept: Vec<usize> = (0..cols).filter(|c| pattern.keeps(*c)).collect();
        let total = rows * kept.len();
        if total > dst.rows() * dst.cols() {
            return Err(vr_err(
                op,
                "dst",
                "the tile must hold every selected element",
                format!("{} elements for {total}", dst.rows() * dst.cols()),
            ));
        }
        let v = self.read_bytes(src, (0, 0), rows, cols, size);
        let mut out = Vec::with_capacity(total * size);
        for r in 0..rows {
            for c in &kept {
                let at = (r * cols + c) * size;
                out.extend_from_slice(&v[at..at + size]);
            }
        }
        let dc = dst.cols().max(1);
        let full = total / dc;
        self.write_bytes(dst, (0, 0), full, dc, size, &out[..full * dc * size]);
        if !total.is_multiple_of(dc) {
            self.write_bytes(
                dst,
                (full, 0),
                1,
                total % dc,
                size,
                &out[full * dc * size..],
            );
        }
        Ok(())
    }

    /// TGATHERB (`dst, src, offset`): 32-byte blocks at byte offsets.
    pub fn tgatherb(&mut self, dst: &Tile, src: &Tile, offset: &Tile) -> Result<(), PtoError> {
        use ElemType::*;
        let op = OpCode::Tgatherb;
        let arch = self.arch();
        for (n, t) in [("dst", dst), ("src", src), ("offset", offset)] {
            self.gather_operand(op, n, t)?;
        }
        op.check_type(arch, "dst", dst.dtype())?;
        op.check_type(arch, "src", src.dtype())?;
        need_type(op, arch, "offset", offset, &[U32, I32])?;
        let size = dst.dtype().size();
        let (rows, vc) = (dst.valid_row(), dst.valid_col());
        if !(vc * size).is_multiple_of(32) {
            return Err(vr_err(
                op,
                "dst",
                "the valid columns must fill whole 32-byte blocks",
                format!("{vc} columns of {size} bytes"),
            ));
        }
        let blocks = vc * size / 32;
        covers(op, "offset", offset, rows, blocks)?;
        let ob = self.read_bytes(offset, (0, 0), rows, blocks, 4);
        let ssize = src.dtype().size();
        let src_bytes = self.read_bytes(src, (0, 0), src.rows(), src.cols(), ssize);
        let mut out = vec![0u8; rows * vc * size];
        for (k, e) in ob.chunks_exact(4).enumerate() {
            let off = u32::from_le_bytes([e[0], e[1], e[2], e[3]]) as usize;
            let Some(block) = src_bytes.get(off..off + 32) else {
                return Err(PtoError::Index {
                    op: op.name(),
                    operand: "offset",
                    row: k / blocks,
                    col: k % blocks,
                    value: off as i64,
                    rule: "a byte offset plus 32 must stay within src's bytes",
                    limit: src_bytes.len() as u64,
                });
            };
            out[k * 32..k * 32 + 32].copy_from_slice(block);
        }
        self.write_bytes(dst, (0, 0), rows, vc, size, &out);
        Ok(())
    }

    /// TSCATTER index form (`dst, src, idx`): `dst(idx(i, j), j) = src(i, j)`.
    pub fn tscatter(&mut self, dst: &Tile, src: &Tile, idx: &Tile) -> Result<(), PtoError> {
        let op = OpCode::Tscatter;
        let arch = self.arch();
        for (n, t) in [("dst", dst), ("src", src), ("idx", idx)] {
            self.gather_operand(op, n, t)?;
        }
        op.check_type(arch, "dst", dst.dtype())?;
        super::same_type(op, "src", src, "dst", dst)?;
        let size = dst.dtype().size();
        let legal: &[ElemType] = match size {
            4 => &[ElemType::I32, ElemType::U32],
            _ => &[ElemType::I16, ElemType::U16],
        };
        need_type(op, arch, "idx", idx, legal)?;
        let (rows, cols) = (idx.valid_row(), idx.valid_col());
        covers(op, "src", src, rows, cols)?;
        if cols > dst.cols() {
            return Err(vr_err(
                op,
                "dst",
                "the tile must have idx's valid columns",
                format!("{} columns for {cols}", dst.cols()),
            ));
        }
        let isz = idx.dtype().size();
        let ib = self.read_bytes(idx, (0, 0), rows, cols, isz);
        let v = self.read_bytes(src, (0, 0), rows, cols, size);
        let mut out = vec![0u8; dst.rows() * dst.cols() * size];
        let dc = dst.cols();
        for (k, e) in ib.chunks_exact(isz).enumerate() {
            let r = index_value(e, idx.dtype());
            if r < 0 || r as u64 >= dst.rows() as u64 {
                return Err(PtoError::Index {
                    op: op.name(),
                    operand: "idx",
                    row: k / cols,
                    col: k % cols,
                    value: r,
                    rule: "a row index must be below dst's rows",
                    limit: dst.rows() as u64,
                });
            }
            let at = (r as usize * dc + k % cols) * size;
            out[at..at + size].copy_from_slice(&v[k * size..(k + 1) * size]);
        }
        self.write_bytes(dst, (0, 0), dst.rows(), dc, size, &out);
        Ok(())
    }
}
