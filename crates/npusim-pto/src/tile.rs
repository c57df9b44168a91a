//! The tile model: typed, shaped views of the core's byte-addressed on-chip memories.
//!
//! Implements pto-isa `docs/isa/programming-model/tiles-and-valid-regions.md`, the `Tile` rules of
//! `docs/coding/Tile.md` and `docs/isa/TASSIGN.md`, and the element-offset function of the
//! public CPU simulator (`include/pto/cpu/tile_offsets.hpp`): plain row- and col-major and the
//! boxed (fractal) layouts Nz, Zn, Zz and Nn. A tile owns no data: several tiles may alias the
//! same bytes, as generated kernels do (`alloc_tile addr = ...` twice at one address).

use crate::error::PtoError;
use npusim_core::ElemType;
use std::fmt;

pub use npusim_core::vocab::TileLoc;

/// Outer (block) layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BLayout {
    RowMajor,
    ColMajor,
}

/// Inner (box / fractal) layout; `NoneBox` means a plain tile.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SLayout {
    NoneBox,
    RowMajor,
    ColMajor,
}

pub use npusim_core::vocab::PadValue;

/// A tile's description as an interpreter resolves it: everything `!pto.tile_buf<...>` says,
/// plus the byte address inside its location's memory.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TileDesc {
    pub loc: TileLoc,
    pub dtype: ElemType,
    pub rows: usize,
    pub cols: usize,
    pub blayout: BLayout,
    pub slayout: SLayout,
    /// Fractal (box) size in bytes: 512 (A/B operands) or 1024 (Acc).
    pub fractal: usize,
    pub valid_row: usize,
    pub valid_col: usize,
    pub pad: PadValue,
    /// Byte offset inside the location's memory.
    pub addr: u64,
}

impl TileDesc {
    /// A plain row-major tile, fully valid, at address 0.
    pub fn new(loc: TileLoc, dtype: ElemType, rows: usize, cols: usize) -> TileDesc {
        TileDesc {
            loc,
            dtype,
            rows,
            cols,
            blayout: BLayout::RowMajor,
            slayout: SLayout::NoneBox,
            fractal: 512,
            valid_row: rows,
            valid_col: cols,
            pad: PadValue::Null,
            addr: 0,
        }
    }
    /// A row-major Vec tile (the common case).
    pub fn vec(dtype: ElemType, rows: usize, cols: usize) -> TileDesc {
        TileDesc::new(TileLoc::Vec, dtype, rows, cols)
    }
    /// Sets the layouts.
    pub fn layout(mut self, b: BLayout, s: SLayout) -> TileDesc {
        self.blayout = b;
        self.slayout = s;
        self
    }
    /// Sets the valid region.
    pub fn valid(mut self, valid_row: usize, valid_col: usize) -> TileDesc {
        self.valid_row = valid_row;
        self.valid_col = valid_col;
        self
    }
    /// Sets the byte address.
    pub fn at(mut self, addr: u64) -> TileDesc {
        self.addr = addr;
        self
    }
    /// Sets the pad value.
    pub fn pad(mut self, pad: PadValue) -> TileDesc {
        self.pad = pad;
        self
    }
    /// Sets the fractal size.
    pub fn fractal(mut self, bytes: usize) -> TileDesc {
        self.fractal = bytes;
        self
    }
}

/// A validated tile: a [`TileDesc`] whose static rules hold, with its box shape precomputed.
/// Build one with [`crate::TileCore::alloc`] (which also checks the address) or
/// [`Tile::validate`]. Copy it freely; set its valid region at run time with
/// [`Tile::set_valid`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tile {
    d: TileDesc,
    inner_rows: usize,
    inner_cols: usize,
}

fn st(op: &'static str, operand: &'static str, rule: &'static str, value: String) -> PtoError {
    PtoError::Static {
        op,
        operand,
        rule,
        value,
    }
}

impl Tile {
    /// Checks the static rules of `Tile` (shape, alignment of plain rows/columns to 32 bytes,
    /// box divisibility, `valid <= shape`) and precomputes the box shape.
    pub fn validate(
        d: TileDesc,
        op: &'static str,
        operand: &'static str,
    ) -> Result<Tile, PtoError> {
        let size = d.dtype.size();
        if d.rows == 0 || d.cols == 0 {
            return Err(st(
                op,
                operand,
                "Rows and Cols must be at least 1",
                format!("{}x{}", d.rows, d.cols),
            ));
        }
        let (inner_rows, inner_cols) = match d.slayout {
            SLayout::NoneBox => (1, 1),
            s => {
                let (r, c) = match d.fractal {
                    512 => (16, 32 / size),
                    1024 => (16, 16),
                    f => {
                        return Err(st(
                            op,
                            operand,
                            "fractal size must be 512 or 1024 bytes",
                            f.to_string(),
                        ));
                    }
                };
                if s == SLayout::ColMajor {
                    (c, r)
                } else {
                    (r, c)
                }
            }
        };
        match d.slayout {
            SLayout::NoneBox => {
                if d.blayout == BLayout::RowMajor && !(d.cols * size).is_multiple_of(32) {
                    return Err(st(
                        op,
                        operand,
                        "row-major Cols*sizeof(T) must be a multiple of 32 bytes",
                        format!("{} bytes", d.cols * size),
                    ));
                }
                if d.blayout == BLayout::ColMajor && !(d.rows * size).is_multiple_of(32) {
                    return Err(st(
                        op,
                        operand,
                        "col-major Rows*sizeof(T) must be a multiple of 32 bytes",
                        format!("{} bytes", d.rows * size),
                    ));
                }
            }
            _ => {
                if !d.rows.is_multiple_of(inner_rows) && d.loc != TileLoc::Vec && d.rows != 1 {
                    return Err(st(
                        op,
                        operand,
                        "boxed Rows must be a multiple of the box rows",
                        format!("{} % {}", d.rows, inner_rows),
                    ));
                }
                if !d.cols.is_multiple_of(inner_cols) {
                    return Err(st(
                        op,
                        operand,
                        "boxed Cols must be a multiple of the box cols",
                        format!("{} % {}", d.cols, inner_cols),
                    ));
                }
            }
        }
        let t = Tile {
            d,
            inner_rows,
            inner_cols,
        };
        t.check_valid(op, operand, d.valid_row, d.valid_col)?;
        Ok(t)
    }

    fn check_valid(
        &self,
        op: &'static str,
        operand: &'static str,
        vr: usize,
        vc: usize,
    ) -> Result<(), PtoError> {
        if vr > self.d.rows || vc > self.d.cols {
            return Err(PtoError::ValidRegion {
                op,
                operand,
                rule: "ValidRow <= Rows and ValidCol <= Cols",
                value: format!(
                    "valid {}x{} in a {}x{} tile",
                    vr, vc, self.d.rows, self.d.cols
                ),
            });
        }
        Ok(())
    }

    /// Sets the valid region at run time (`set_validshape`); it must fit the shape.
    pub fn set_valid(&mut self, valid_row: usize, valid_col: usize) -> Result<(), PtoError> {
        self.check_valid("set_validshape", "tile", valid_row, valid_col)?;
        self.d.valid_row = valid_row;
        self.d.valid_col = valid_col;
        Ok(())
    }

    /// The same tile with another valid region.
    pub fn with_valid(mut self, valid_row: usize, valid_col: usize) -> Result<Tile, PtoError> {
        self.set_valid(valid_row, valid_col)?;
        Ok(self)
    }

    /// Row `r` of a plain row-major tile as a one-row tile over the same bytes (valid columns
    /// kept); `None` for other layouts or a row outside the tile.
    pub fn row_view(&self, r: usize) -> Option<Tile> {
        if !self.is_row_major_plain() || r >= self.d.rows {
            return None;
        }
        let d = TileDesc {
            rows: 1,
            valid_row: 1,
            addr: self.byte_addr(r, 0),
            ..self.d
        };
        Tile::validate(d, "row view", "tile").ok()
    }

    /// The description.
    pub fn desc(&self) -> &TileDesc {
        &self.d
    }
    pub fn dtype(&self) -> ElemType {
        self.d.dtype
    }
    pub fn loc(&self) -> TileLoc {
        self.d.loc
    }
    pub fn rows(&self) -> usize {
        self.d.rows
    }
    pub fn cols(&self) -> usize {
        self.d.cols
    }
    pub fn valid_row(&self) -> usize {
        self.d.valid_row
    }
    pub fn valid_col(&self) -> usize {
        self.d.valid_col
    }
    /// The inner box in elements, `(rows, cols)` (`(1, 1)` for unboxed layouts).
    pub fn inner(&self) -> (usize, usize) {
        (self.inner_rows, self.inner_cols)
    }

    pub fn addr(&self) -> u64 {
        self.d.addr
    }
    /// Bytes the whole tile occupies.
    pub fn size_bytes(&self) -> u64 {
        (self.d.rows * self.d.cols * self.d.dtype.size()) as u64
    }
    /// Row-major and unboxed: each row is a contiguous run of `cols` elements.
    pub fn is_row_major_plain(&self) -> bool {
        self.d.blayout == BLayout::RowMajor && self.d.slayout == SLayout::NoneBox
    }
    /// The outer layout is row-major (`isRowMajor`).
    pub fn is_row_major(&self) -> bool {
        self.d.blayout == BLayout::RowMajor
    }

    /// Element offset of `(r, c)` from the tile's start, in elements (`GetTileElementOffset`).
    /// `r < rows` and `c < cols` are the caller's duty; the result is then `< rows * cols`.
    #[inline]
    pub fn elem_offset(&self, r: usize, c: usize) -> usize {
        let d = &self.d;
        match d.slayout {
            SLayout::NoneBox => match d.blayout {
                BLayout::RowMajor => r * d.cols + c,
                BLayout::ColMajor => c * d.rows + r,
            },
            s => {
                let (ir, ic) = (self.inner_rows, self.inner_cols);
                let (sr, inr, sc, inc) = (r / ir, r % ir, c / ic, c % ic);
                let box_numel = ir * ic;
                let in_box = match s {
                    SLayout::RowMajor => inr * ic + inc,
                    _ => inc * ir + inr,
                };
                match d.blayout {
                    // Nz (inner row-major) and Nn (inner col-major): boxes run down the columns.
                    BLayout::ColMajor => sc * d.rows * ic + sr * box_numel + in_box,
                    // Zz (inner row-major) and Zn (inner col-major): boxes run along the rows.
                    BLayout::RowMajor => sr * d.cols * ir + sc * box_numel + in_box,
                }
            }
        }
    }

    /// How many elements from `(r, c)` along the row are contiguous in memory (at least 1).
    pub fn row_run(&self, r: usize, c: usize) -> usize {
        let _ = r;
        let d = &self.d;
        match (d.slayout, d.blayout) {
            (SLayout::NoneBox, BLayout::RowMajor) => d.cols.saturating_sub(c).max(1),
            (SLayout::NoneBox, BLayout::ColMajor) | (SLayout::ColMajor, _) => 1,
            (SLayout::RowMajor, _) => (self.inner_cols - c % self.inner_cols)
                .min(d.cols - c.min(d.cols))
                .max(1),
        }
    }

    /// How many elements from `(r, c)` down the column are contiguous in memory (at least 1).
    pub fn col_run(&self, r: usize, c: usize) -> usize {
        let _ = c;
        let d = &self.d;
        match (d.slayout, d.blayout) {
            (SLayout::NoneBox, BLayout::ColMajor) => d.rows.saturating_sub(r).max(1),
            (SLayout::NoneBox, BLayout::RowMajor) | (SLayout::RowMajor, _) => 1,
            (SLayout::ColMajor, _) => (self.inner_rows - r % self.inner_rows)
                .min(d.rows - r.min(d.rows))
                .max(1),
        }
    }

    /// Byte address of `(r, c)` inside the location's memory.
    #[inline]
    pub fn byte_addr(&self, r: usize, c: usize) -> u64 {
        self.d.addr + (self.elem_offset(r, c) * self.d.dtype.size()) as u64
    }
}

impl fmt::Display for Tile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} {} {}x{} valid {}x{} @ {:#x}",
            self.d.loc,
            self.d.dtype,
            self.d.rows,
            self.d.cols,
            self.d.valid_row,
            self.d.valid_col,
            self.d.addr
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(b: BLayout, s: SLayout, dt: ElemType, rows: usize, cols: usize) -> Tile {
        Tile::validate(
            TileDesc::new(TileLoc::Mat, dt, rows, cols).layout(b, s),
            "t",
            "t",
        )
        .unwrap()
    }

    /// Every layout's offset map is a bijection onto 0..rows*cols.
    #[test]
    fn offsets_are_bijections() {
        for (b, s) in [
            (BLayout::RowMajor, SLayout::NoneBox),
            (BLayout::ColMajor, SLayout::NoneBox),
            (BLayout::ColMajor, SLayout::RowMajor),
            (BLayout::RowMajor, SLayout::ColMajor),
            (BLayout::RowMajor, SLayout::RowMajor),
            (BLayout::ColMajor, SLayout::ColMajor),
        ] {
            for dt in [ElemType::F16, ElemType::F32, ElemType::I8] {
                let tile = t(b, s, dt, 32, 64);
                let mut seen = vec![false; 32 * 64];
                for r in 0..32 {
                    for c in 0..64 {
                        let o = tile.elem_offset(r, c);
                        assert!(!seen[o], "{b:?} {s:?} {dt} ({r},{c})");
                        seen[o] = true;
                    }
                }
            }
        }
    }

    /// Hand-computed Nz and Zn positions for f16 (box 16x16).
    #[test]
    fn nz_and_zn_examples() {
        let nz = t(BLayout::ColMajor, SLayout::RowMajor, ElemType::F16, 32, 32);
        // (17, 3): box row 1, box col 0 -> after one 256-element box; inner (1, 3).
        assert_eq!(nz.elem_offset(17, 3), 256 + 16 + 3);
        // (0, 16): box col 1 -> after a whole column of boxes (32 rows x 16 cols).
        assert_eq!(nz.elem_offset(0, 16), 512);
        let zn = t(BLayout::RowMajor, SLayout::ColMajor, ElemType::F16, 32, 32);
        // (3, 17): box row 0, box col 1 -> one box in; inner col 1, row 3 -> 1*16 + 3.
        assert_eq!(zn.elem_offset(3, 17), 256 + 16 + 3);
        // f32 Nz box is 16x8.
        let nz32 = t(BLayout::ColMajor, SLayout::RowMajor, ElemType::F32, 16, 16);
        assert_eq!(nz32.elem_offset(1, 9), 16 * 8 + 8 + 1);
    }

    #[test]
    fn static_rules_are_errors() {
        let bad = Tile::validate(TileDesc::vec(ElemType::F32, 4, 4), "TASSIGN", "src0");
        assert!(matches!(bad, Err(PtoError::Static { .. })), "{bad:?}");
        let v = Tile::validate(
            TileDesc::vec(ElemType::F32, 4, 8).valid(5, 8),
            "TASSIGN",
            "src0",
        );
        assert!(matches!(v, Err(PtoError::ValidRegion { .. })));
        let mut ok = Tile::validate(TileDesc::vec(ElemType::F32, 4, 8), "x", "y").unwrap();
        assert!(ok.set_valid(4, 9).is_err());
        assert!(ok.set_valid(0, 3).is_ok());
        let cm = Tile::validate(
            TileDesc::vec(ElemType::F32, 16, 1).layout(BLayout::ColMajor, SLayout::NoneBox),
            "x",
            "y",
        );
        assert!(cm.is_ok());
    }
}
