//! Printer for PTO-AS types.
//!
//! Prints types the way PTOAS does (hw-native-sys/PTOAS `docs/PTO_IR_manual.md` §2 and the
//! compact `!pto.tile_buf` printer introduced in PTOAS PRs #381/#387). `!pto.tile_buf` has two
//! spellings and both are available:
//!
//! * long: `!pto.tile_buf<loc=vec, dtype=f32, rows=32, cols=32, v_row=32, v_col=?,
//!   blayout=row_major, slayout=none_box, fractal=512, pad=0>` (plus `, compact=N` when not 0);
//! * compact: `!pto.tile_buf<vec, 16x128xf32, valid=16x1, blayout=col_major>`, where keys equal
//!   to their default (full valid region, `row_major`, `none_box`, 512, pad 0, compact 0) are
//!   left out.
//!
//! `Display` for [`Type`] uses the long spelling, which every PTOAS version parses.

use std::fmt;

use crate::ast::{
    AddrSpace, BLayout, CompactMode, DType, Dim, Mnemonic, PadCode, PadValue, PtrType, SLayout,
    ScalarType, TileBufType, Type, ViewType,
};

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Display for ScalarType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Display for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dim::Static(n) => write!(f, "{n}"),
            Dim::Dynamic => f.write_str("?"),
        }
    }
}

/// Which `!pto.tile_buf` spelling to print.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TileBufStyle {
    /// `loc=..., dtype=..., rows=..., ...`
    Long,
    /// `vec, 16x128xf32, valid=16x1, ...`
    Compact,
}

/// Prints a tile buffer type (with the `!pto.tile_buf` prefix) in the given spelling.
pub fn tile_buf_to_string(t: &TileBufType, style: TileBufStyle) -> String {
    match style {
        TileBufStyle::Long => {
            let mut s = format!(
                "!pto.tile_buf<loc={}, dtype={}, rows={}, cols={}, v_row={}, v_col={}, blayout={}, slayout={}, fractal={}, pad={}",
                t.loc.name(),
                t.dtype,
                t.rows,
                t.cols,
                t.valid_row,
                t.valid_col,
                t.blayout.name(),
                t.slayout.name(),
                t.fractal,
                t.pad.code()
            );
            if t.compact != CompactMode::Null {
                s += &format!(", compact={}", t.compact.code());
            }
            s.push('>');
            s
        }
        TileBufStyle::Compact => {
            let mut s = format!(
                "!pto.tile_buf<{}, {}x{}x{}",
                t.loc.name(),
                t.rows,
                t.cols,
                t.dtype
            );
            if t.valid_row != Dim::Static(t.rows) || t.valid_col != Dim::Static(t.cols) {
                s += &format!(", valid={}x{}", t.valid_row, t.valid_col);
            }
            if t.blayout != BLayout::RowMajor {
                s += &format!(", blayout={}", t.blayout.name());
            }
            if t.slayout != SLayout::NoneBox {
                s += &format!(", slayout={}", t.slayout.name());
            }
            if t.fractal != 512 {
                s += &format!(", fractal={}", t.fractal);
            }
            if t.pad != PadValue::Null {
                s += &format!(", pad={}", t.pad.code());
            }
            if t.compact != CompactMode::Null {
                s += &format!(", compact={}", t.compact.code());
            }
            s.push('>');
            s
        }
    }
}

impl TileBufType {
    /// The long spelling.
    pub fn to_long_string(&self) -> String {
        tile_buf_to_string(self, TileBufStyle::Long)
    }

    /// The compact spelling.
    pub fn to_compact_string(&self) -> String {
        tile_buf_to_string(self, TileBufStyle::Compact)
    }
}

impl fmt::Display for TileBufType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_long_string())
    }
}

fn write_shape(f: &mut fmt::Formatter<'_>, v: &ViewType) -> fmt::Result {
    for d in &v.shape {
        write!(f, "{d}x")?;
    }
    write!(f, "{}", v.elem)
}

impl fmt::Display for PtrType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.space {
            None => write!(f, "!pto.ptr<{}>", self.elem),
            Some(AddrSpace::Gm) => write!(f, "!pto.ptr<{}, gm>", self.elem),
            Some(AddrSpace::Local(l)) => write!(f, "!pto.ptr<{}, {}>", self.elem, l.name()),
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Scalar(s) => write!(f, "{s}"),
            Type::Ptr(p) => write!(f, "{p}"),
            Type::TensorView(v) => {
                f.write_str("!pto.tensor_view<")?;
                write_shape(f, v)?;
                f.write_str(">")
            }
            Type::PartitionView(v) => {
                f.write_str("!pto.partition_tensor_view<")?;
                write_shape(f, v)?;
                f.write_str(">")
            }
            Type::TileBuf(t) => write!(f, "{t}"),
            Type::GmMemRef(v) => {
                f.write_str("memref<")?;
                write_shape(f, v)?;
                f.write_str(", #pto.address_space<gm>>")
            }
            Type::Opaque(text) => f.write_str(text),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::Loc;

    #[test]
    fn both_spellings() {
        let mut t = TileBufType::new(Loc::Vec, DType::F32, 16, 128);
        assert_eq!(t.to_compact_string(), "!pto.tile_buf<vec, 16x128xf32>");
        t.valid_col = Dim::Static(1);
        t.blayout = BLayout::ColMajor;
        assert_eq!(
            t.to_compact_string(),
            "!pto.tile_buf<vec, 16x128xf32, valid=16x1, blayout=col_major>"
        );
        t.valid_row = Dim::Dynamic;
        assert_eq!(
            t.to_long_string(),
            "!pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=128, v_row=?, v_col=1, blayout=col_major, slayout=none_box, fractal=512, pad=0>"
        );
    }
}
