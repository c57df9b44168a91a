//! TPRINT (pto-isa `docs/isa/TPRINT.md`; PTOAS `pto.tprint`): the text a Vec tile prints.
//!
//! The text is what the device prints through `cce::printf` (the A2/A3 and A5 paths share
//! it): a header naming the element type, the layout and the tile type, the static and valid
//! shapes, then every element of the static shape, row by row, each in the print format's
//! width, one space apart. When the valid region is partial, a `|` follows the last valid
//! column and a row of dashes follows the last valid row. (The CPU simulator prints only the
//! valid region under a shorter header; npusim prints what the chip prints.)
//!
//! A global tensor prints under its own header: ND and DN tensors as their five-dimensional
//! shape, one `Batch [i0, i1, i2]:` block of `shape[3]` rows per outer index; NZ tensors as
//! their logical rows and columns.
//!
//! Restrictions (the page and PTOAS's verifier): a Vec tile or a global tensor of f32, f16,
//! i8, i16, i32, u8, u16 or u32.

use crate::core::TileCore;
use crate::engine::memory;
use crate::error::PtoError;
use crate::ops::memory::{GlobalTensor, GmLayout};
use crate::table::OpCode;
use crate::tile::{BLayout, SLayout, Tile, TileLoc};
use npusim_core::ElemType;
use npusim_core::cfmt::{CArg, format};

use super::{illegal, need_loc};

/// TPRINT's `PrintFormat` template argument: the printf width and precision.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum PrintFormat {
    /// `%8.4f` / `%8d` (the default; what PTOAS's `TPRINT(src)` prints).
    #[default]
    Width8Precision4,
    /// `%8.2f` / `%8d`.
    Width8Precision2,
    /// `%10.6f` / `%10d`.
    Width10Precision6,
}

impl PrintFormat {
    fn spec(self, float: bool, signed: bool) -> &'static str {
        match (self, float, signed) {
            (PrintFormat::Width8Precision4, true, _) => "%8.4f",
            (PrintFormat::Width8Precision2, true, _) => "%8.2f",
            (PrintFormat::Width10Precision6, true, _) => "%10.6f",
            (PrintFormat::Width10Precision6, false, true) => "%10d",
            (PrintFormat::Width10Precision6, false, false) => "%10u",
            (_, false, true) => "%8d",
            (_, false, false) => "%8u",
        }
    }
    fn width(self) -> usize {
        match self {
            PrintFormat::Width10Precision6 => 10,
            _ => 8,
        }
    }
}

/// The element types TPRINT prints, with the names its header uses.
const PRINTABLE: [(ElemType, &str); 8] = [
    (ElemType::F32, "float32"),
    (ElemType::F16, "float16"),
    (ElemType::I8, "int8"),
    (ElemType::U8, "uint8"),
    (ElemType::I16, "int16"),
    (ElemType::U16, "uint16"),
    (ElemType::I32, "int32"),
    (ElemType::U32, "uint32"),
];

fn layout_name(t: &Tile) -> &'static str {
    let row = t.desc().blayout == BLayout::RowMajor;
    match (t.desc().slayout, row) {
        (SLayout::NoneBox, true) => "ND",
        (SLayout::NoneBox, false) => "DN",
        (SLayout::RowMajor, true) => "Zz",
        (SLayout::RowMajor, false) => "Nz",
        (SLayout::ColMajor, true) => "Zn",
        (SLayout::ColMajor, false) => "Nn",
    }
}

/// One element's bytes as a printf argument.
fn arg(dtype: ElemType, e: &[u8]) -> CArg {
    let b = |n: usize| e.get(n).copied().unwrap_or(0);
    match dtype {
        ElemType::F32 => CArg::Float(f64::from(f32::from_le_bytes([b(0), b(1), b(2), b(3)]))),
        ElemType::F16 => CArg::Float(f64::from(half::f16::from_le_bytes([b(0), b(1)]).to_f32())),
        ElemType::I8 => CArg::Int(i64::from(b(0) as i8)),
        ElemType::U8 => CArg::Int(i64::from(b(0))),
        ElemType::I16 => CArg::Int(i64::from(i16::from_le_bytes([b(0), b(1)]))),
        ElemType::U16 => CArg::Int(i64::from(u16::from_le_bytes([b(0), b(1)]))),
        ElemType::I32 => CArg::Int(i64::from(i32::from_le_bytes([b(0), b(1), b(2), b(3)]))),
        _ => CArg::Int(i64::from(u32::from_le_bytes([b(0), b(1), b(2), b(3)]))),
    }
}

fn type_name(
    op: OpCode,
    arch: npusim_core::TileArch,
    dtype: ElemType,
) -> Result<&'static str, PtoError> {
    match PRINTABLE.iter().find(|(t, _)| *t == dtype) {
        Some((_, name)) => Ok(name),
        None => {
            let legal: Vec<ElemType> = PRINTABLE.iter().map(|p| p.0).collect();
            Err(illegal(op, arch, "src", dtype, &legal))
        }
    }
}

impl TileCore {
    /// TPRINT of a global tensor: the text (see the module docs), ending in a newline.
    pub fn tprint_global(&self, g: &GlobalTensor, fmt: PrintFormat) -> Result<String, PtoError> {
        let op = OpCode::Tprint;
        let name = type_name(op, self.arch(), g.dtype)?;
        let size = g.dtype.size();
        let spec = fmt.spec(
            g.dtype.is_float(),
            g.dtype.is_signed_int() || g.dtype.is_float(),
        );
        let [n0, n1, n2, n3, n4] = g.shape;
        let [s0, s1, s2, s3, s4] = g.stride;
        let elem = |off: usize| -> Result<String, PtoError> {
            let a = g.addr + (off * size) as u64;
            let b = self
                .gm()
                .bytes(a, size as u64)
                .map_err(memory(op.name(), "src"))?;
            Ok(format(spec, &[arg(g.dtype, b)]).unwrap_or_default())
        };
        let mut out;
        let row =
            |out: &mut String, offs: &mut dyn Iterator<Item = usize>| -> Result<(), PtoError> {
                for (c, off) in offs.enumerate() {
                    if c > 0 {
                        out.push(' ');
                    }
                    out.push_str(&elem(off)?);
                }
                out.push('\n');
                Ok(())
            };
        match g.layout {
            GmLayout::Nd | GmLayout::Dn => {
                let l = if g.layout == GmLayout::Nd { "ND" } else { "DN" };
                out = format!(
                    "=== [TPRINT GlobalTensor] Data Type: {name}, Layout: {l} ===\n  Shape: [{n0}, {n1}, {n2}, {n3}, {n4}]\n"
                );
                for i0 in 0..n0 {
                    for i1 in 0..n1 {
                        for i2 in 0..n2 {
                            out.push_str(&format!("  Batch [{i0}, {i1}, {i2}]:\n"));
                            let base = i0 * s0 + i1 * s1 + i2 * s2;
                            for r in 0..n3 {
                                row(&mut out, &mut (0..n4).map(|c| base + r * s3 + c * s4))?;
                            }
                        }
                    }
                }
            }
            GmLayout::Nz => {
                let (rows, cols) = (n2 * n3, n1 * n4);
                out = format!(
                    "=== [TPRINT GlobalTensor] Data Type: {name}, Layout: NZ ===\n  Logical Shape: [{rows}, {cols}]\n"
                );
                let (d3, d4) = (n3.max(1), n4.max(1));
                for r in 0..rows {
                    row(
                        &mut out,
                        &mut (0..cols)
                            .map(|c| (r / d3) * s2 + (c / d4) * s1 + (r % d3) * s3 + (c % d4) * s4),
                    )?;
                }
            }
        }
        Ok(out)
    }

    /// TPRINT: the text printing `src` produces (see the module docs), ending in a newline.
    pub fn tprint(&self, src: &Tile, fmt: PrintFormat) -> Result<String, PtoError> {
        let op = OpCode::Tprint;
        need_loc(op, "src", src, TileLoc::Vec)?;
        let dtype = src.dtype();
        let name = type_name(op, self.arch(), dtype)?;
        self.check_addr(src, op.name(), "src")?;
        let (rows, cols) = (src.rows(), src.cols());
        let (vr, vc) = (src.valid_row(), src.valid_col());
        let size = dtype.size();
        let bytes = self.read_bytes(src, (0, 0), rows, cols, size);
        let spec = fmt.spec(dtype.is_float(), dtype.is_signed_int() || dtype.is_float());
        let mut out = format!(
            "=== [TPRINT Tile] Data Type: {name}, Layout: {}, TileType: Vec ===\n  Shape: [{rows}, {cols}], Valid Shape: [{vr}, {vc}]\n",
            layout_name(src)
        );
        let mark_col = vc > 0 && vc < cols;
        for (r, row) in bytes
            .chunks_exact((cols * size).max(1))
            .take(rows)
            .enumerate()
        {
            for (c, e) in row.chunks_exact(size).enumerate() {
                if c > 0 {
                    out.push(' ');
                }
                // The spec is fixed and matches the argument, so this cannot fail.
                out.push_str(&format(spec, &[arg(dtype, e)]).unwrap_or_default());
                if mark_col && c + 1 == vc {
                    out.push('|');
                }
            }
            out.push('\n');
            if vr > 0 && vr < rows && r + 1 == vr {
                for c in 0..cols {
                    if c > 0 {
                        out.push(' ');
                    }
                    out.extend(std::iter::repeat_n('-', fmt.width()));
                    if mark_col && c + 1 == vc {
                        out.push('|');
                    }
                }
                out.push('\n');
            }
        }
        Ok(out)
    }
}
