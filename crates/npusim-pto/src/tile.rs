//! The tile model: typed, shaped views of the core's byte-addressed on-chip memories.
//!
//! Implements pto-isa `docs/isa/programming-model/tiles-and-valid-regions.md`, the `Tile` rules of
//! `docs/coding/Tile.md` and `docs/isa/TASSIGN.md`, and the element-offset function of the
//! public CPU simulator (`include/pto/cpu/tile_offsets.hpp`): plain row- and col-major and the
//! boxed (fractal) layouts Nz, Zn, Zz and Nn. A tile owns no data: several tiles may alias the
//! same bytes, as generated kernels do (`alloc_tile addr = ...` twice at one address).
//! Views of part of a tile ([`Tile::subset`] for `pto.subset`, [`Tile::subview`] for TSUBVIEW)
//! keep their parent's line stride ([`TileDesc::stride`]), so a column range is a strided tile.

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

/// The fractal size of the MX scale tiles (`TileConfig::fractalMxSize`): boxes of 16 x 2
/// (inner row-major, a TMATMUL_MX left scale: Zz) or 2 x 16 (inner col-major, a right scale:
/// Nn) one-byte scales, 32 bytes each.
pub const MX_FRACTAL: usize = 32;

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
    /// Fractal (box) size in bytes: 512 (A/B operands), 1024 (Acc) or [`MX_FRACTAL`] (MX
    /// scales).
    pub fractal: usize,
    pub valid_row: usize,
    pub valid_col: usize,
    pub pad: PadValue,
    /// Byte offset inside the location's memory.
    pub addr: u64,
    /// Elements from one row (row-major) or column (col-major) of a plain tile to the next;
    /// `None` for a dense tile (`cols` or `rows`). A `pto.subset` view of a wider tile keeps
    /// its parent's distance (see [`Tile::subset`]). Boxed tiles are always dense.
    pub stride: Option<usize>,
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
            stride: None,
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
    /// Elements between rows (row-major) or columns (col-major) of a plain tile.
    pitch: usize,
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
                    // The MX scale box (`fractalMxSize`): 16 x 2 inner row-major, 2 x 16
                    // inner col-major, whatever the element size.
                    MX_FRACTAL => (16, 2),
                    f => {
                        return Err(st(
                            op,
                            operand,
                            "fractal size must be 512 or 1024 bytes (or 32: the MX scale box)",
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
                let dense = match d.blayout {
                    BLayout::RowMajor => d.cols,
                    BLayout::ColMajor => d.rows,
                };
                // A strided view (`pto.subset`) keeps its parent's line length, which is what
                // the memory layout rule is about.
                let line = match d.stride {
                    Some(p) if p < dense => {
                        return Err(st(
                            op,
                            operand,
                            "a view's line stride must be at least its line length",
                            format!("stride {p} for {dense} elements"),
                        ));
                    }
                    Some(p) => p,
                    None => dense,
                };
                if !(line * size).is_multiple_of(32) {
                    return Err(st(
                        op,
                        operand,
                        if d.blayout == BLayout::RowMajor {
                            "row-major Cols*sizeof(T) must be a multiple of 32 bytes"
                        } else {
                            "col-major Rows*sizeof(T) must be a multiple of 32 bytes"
                        },
                        match d.stride {
                            Some(_) => format!("{} bytes (the view's line stride)", line * size),
                            None => format!("{} bytes", line * size),
                        },
                    ));
                }
            }
            _ => {
                if d.stride.is_some() {
                    return Err(st(
                        op,
                        operand,
                        "a boxed tile has no line stride",
                        format!("{:?}", d.stride),
                    ));
                }
                // An MX box tile with outer row-major boxes may have fewer rows than a box
                // (a TGEMV_MX scale row): `Tile` exempts `fractalMxSize` from the row rule.
                // Its boxes then run one box of rows apart ([`Tile::size_bytes`] counts them).
                // Outer col-major MX boxes (a right scale) need whole boxes of rows.
                let exempt = if d.fractal == MX_FRACTAL {
                    d.blayout == BLayout::RowMajor
                } else {
                    d.loc == TileLoc::Vec || d.rows == 1
                };
                if !d.rows.is_multiple_of(inner_rows) && !exempt {
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
        let pitch = d.stride.unwrap_or(match d.blayout {
            BLayout::RowMajor => d.cols,
            BLayout::ColMajor => d.rows,
        });
        let t = Tile {
            d,
            inner_rows,
            inner_cols,
            pitch,
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

    /// `pto.subset` (PTO IR manual, "pto.subset - Subview Tile View"): the `rows x cols` view of
    /// this tile whose element `(0, 0)` is this tile's `(r0, c0)`, over the same bytes.
    ///
    /// - A plain tile's view keeps the parent's line stride ([`TileDesc::stride`]), so a
    ///   column range of a row-major tile is a strided tile.
    /// - A boxed tile's view must be whole boxes, and stay dense: a boxed row-major (Zz/Zn)
    ///   tile's view keeps every column (`c0 = 0`), a boxed col-major (Nz/Nn) one every row
    ///   (`r0 = 0`), as the manual's verifier requires.
    /// - The view's valid extent in each dimension follows PTOAS's subset type inference
    ///   (`SubsetOp::inferReturnTypes`, also applied to run-time offsets when it lowers views):
    ///   the parent's valid extent `v` is a period, so the view at offset `o` keeps
    ///   `min(size, v - o mod v)` (0 when `v` is 0). A ping/pong workspace of 32x64 with
    ///   valid 32x32 thus gives a fully valid 32x32 view at column 32.
    pub fn subset(&self, r0: usize, c0: usize, rows: usize, cols: usize) -> Result<Tile, PtoError> {
        const OP: &str = "pto.subset";
        let d = &self.d;
        if rows == 0 || cols == 0 {
            return Err(st(
                OP,
                "sizes",
                "subset sizes must be positive",
                format!("[{rows}, {cols}]"),
            ));
        }
        let fits = r0.checked_add(rows).is_some_and(|e| e <= d.rows)
            && c0.checked_add(cols).is_some_and(|e| e <= d.cols);
        if !fits {
            return Err(st(
                OP,
                "offsets",
                "the subset must lie inside the source tile",
                format!(
                    "[{r0}, {c0}] + [{rows}, {cols}] in a {}x{} tile",
                    d.rows, d.cols
                ),
            ));
        }
        let mut nd = TileDesc {
            rows,
            cols,
            valid_row: periodic_valid(d.valid_row, r0, rows),
            valid_col: periodic_valid(d.valid_col, c0, cols),
            addr: self.byte_addr(r0, c0),
            ..*d
        };
        if d.slayout == SLayout::NoneBox {
            let dense = match d.blayout {
                BLayout::RowMajor => cols,
                BLayout::ColMajor => rows,
            };
            nd.stride = (self.pitch != dense).then_some(self.pitch);
        } else {
            let (ir, ic) = (self.inner_rows, self.inner_cols);
            let whole = |v: usize, b: usize| v.is_multiple_of(b);
            if !(whole(rows, ir) && whole(cols, ic) && whole(r0, ir) && whole(c0, ic)) {
                return Err(st(
                    OP,
                    "sizes",
                    "a boxed tile's subset sizes and offsets must be multiples of its box",
                    format!("[{r0}, {c0}] + [{rows}, {cols}] with {ir}x{ic} boxes"),
                ));
            }
            let (keeps, what) = match d.blayout {
                BLayout::RowMajor => (cols == d.cols && c0 == 0, "columns"),
                BLayout::ColMajor => (rows == d.rows && r0 == 0, "rows"),
            };
            if !keeps {
                return Err(st(
                    OP,
                    "offsets",
                    "a boxed tile's subset must keep the source's full extent across its boxes",
                    format!(
                        "[{r0}, {c0}] + [{rows}, {cols}] of a {}x{} tile (all {what} needed)",
                        d.rows, d.cols
                    ),
                ));
            }
        }
        Tile::validate(nd, OP, "result")
    }

    /// TSUBVIEW (pto-isa `docs/isa/TSUBVIEW.md`): `dst` (its own declared shape and valid
    /// region) placed over this tile so that `dst(i, j) = src(row + i, col + j)` for every
    /// element of dst's valid region. dst keeps this tile's line stride, so the page's formula
    /// holds whatever dst's declared columns are.
    ///
    /// Rules: the same location (the page's "tile type must match") and element type, the
    /// same layouts, and dst's valid region inside this tile's valid region at the offset.
    /// Only plain (unboxed) tiles take a non-zero offset.
    pub fn subview(&self, dst: TileDesc, row: usize, col: usize) -> Result<Tile, PtoError> {
        const OP: &str = "TSUBVIEW";
        let d = &self.d;
        if dst.loc != d.loc || dst.dtype != d.dtype {
            return Err(st(
                OP,
                "dst",
                "dst must have src's location and element type",
                format!("{:?} {} over {:?} {}", dst.loc, dst.dtype, d.loc, d.dtype),
            ));
        }
        if (dst.blayout, dst.slayout) != (d.blayout, d.slayout) {
            return Err(st(
                OP,
                "dst",
                "dst must have src's layout",
                format!(
                    "{:?}/{:?} over {:?}/{:?}",
                    dst.blayout, dst.slayout, d.blayout, d.slayout
                ),
            ));
        }
        let fits = row
            .checked_add(dst.valid_row)
            .is_some_and(|e| e <= d.valid_row)
            && col
                .checked_add(dst.valid_col)
                .is_some_and(|e| e <= d.valid_col);
        if !fits {
            return Err(PtoError::ValidRegion {
                op: OP,
                operand: "dst",
                rule: "dst's valid region at (rowIdx, colIdx) must lie in src's valid region",
                value: format!(
                    "valid {}x{} at ({row}, {col}) in valid {}x{}",
                    dst.valid_row, dst.valid_col, d.valid_row, d.valid_col
                ),
            });
        }
        let plain = d.slayout == SLayout::NoneBox;
        if !plain && (row, col) != (0, 0) {
            return Err(PtoError::Unsupported {
                op: OP,
                what: format!("a boxed TSUBVIEW at ({row}, {col})"),
                arch: "any",
            });
        }
        let dense = match dst.blayout {
            BLayout::RowMajor => dst.cols,
            BLayout::ColMajor => dst.rows,
        };
        let stride = (plain && self.pitch != dense).then_some(self.pitch);
        let t = TileDesc {
            addr: self.byte_addr(row, col),
            stride,
            ..dst
        };
        Tile::validate(t, OP, "dst")
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
    /// Bytes from the tile's first element to just past its last one: `rows * cols` elements
    /// for a dense tile, more for a strided view.
    pub fn size_bytes(&self) -> u64 {
        let d = &self.d;
        let elems = match (d.slayout, d.blayout) {
            (SLayout::NoneBox, BLayout::RowMajor) if d.rows > 0 => {
                (d.rows - 1) * self.pitch + d.cols
            }
            (SLayout::NoneBox, BLayout::ColMajor) if d.cols > 0 => {
                (d.cols - 1) * self.pitch + d.rows
            }
            _ if d.fractal == MX_FRACTAL => {
                d.rows.div_ceil(self.inner_rows) * self.inner_rows * d.cols
            }
            _ => d.rows * d.cols,
        };
        (elems * d.dtype.size()) as u64
    }
    /// Whether the tile's elements are one contiguous block (not a strided view).
    pub fn is_dense(&self) -> bool {
        self.d.stride.is_none_or(|p| match self.d.blayout {
            BLayout::RowMajor => p == self.d.cols || self.d.rows <= 1,
            BLayout::ColMajor => p == self.d.rows || self.d.cols <= 1,
        })
    }
    /// Elements from one row to the next of a plain row-major tile (from one column to the next
    /// of a plain col-major one).
    pub fn pitch(&self) -> usize {
        self.pitch
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
    /// `r < rows` and `c < cols` are the caller's duty; the result is then below
    /// [`Tile::size_bytes`] in elements.
    #[inline]
    pub fn elem_offset(&self, r: usize, c: usize) -> usize {
        let d = &self.d;
        match d.slayout {
            SLayout::NoneBox => match d.blayout {
                BLayout::RowMajor => r * self.pitch + c,
                BLayout::ColMajor => c * self.pitch + r,
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

/// One dimension of a subset's valid extent (see [`Tile::subset`]).
fn periodic_valid(parent_valid: usize, offset: usize, size: usize) -> usize {
    match parent_valid {
        0 => 0,
        v => size.min(v - offset % v),
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
