//! THISTOGRAM (pto-isa `docs/isa/THISTOGRAM.md`; PTO IR manual "pto.thistogram"): the byte
//! histogram step of a radix sort, A5 only.
//!
//! For each valid source row, the 256 bins of the selected byte `k` of the elements that pass
//! the cascaded filter (their upper bytes equal the filter bytes):
//! - `uint16` source: byte 1 (MSB) unfiltered, or byte 0 filtered by `byte1 == idx(r, 0)`, one
//!   filter byte per row (a DN `uint8` column);
//! - `uint32` source: byte 3 unfiltered; byte 2 filtered by `byte3 == idx(0, 0)`; byte 1 also by
//!   `byte2 == idx(1, 0)`; byte 0 also by `byte1 == idx(2, 0)`: the filter bytes are idx rows,
//!   the same for every source row (the A5 implementation broadcasts each idx row's first
//!   element, as the CPU simulator reads it).
//!
//! Bin `b` of a row holds the number of passing elements whose byte is at most `b`: the
//! cumulative count, as the CPU simulator writes it and the A5 `chistv2` path produces (the
//! page's prose says "occurrence count"; the cumulative form is what runs, so it is the model).

use crate::core::TileCore;
use crate::error::PtoError;
use crate::table::{OpCode, arch_name};
use crate::tile::{Tile, TileLoc};
use npusim_core::{ElemType, TileArch};

use super::{need_loc, need_row_major, need_type, vr_err};

/// The cumulative 256-bin histogram of `bytes` (one row's selected bytes that passed).
pub fn cumulative_bins(bytes: impl Iterator<Item = u8>) -> [u32; 256] {
    let mut bins = [0u32; 256];
    for b in bytes {
        bins[b as usize] += 1;
    }
    let mut acc = 0u32;
    for b in bins.iter_mut() {
        acc += *b;
        *b = acc;
    }
    bins
}

impl TileCore {
    /// THISTOGRAM (`dst, src, idx`) of byte `byte` (0 = LSB).
    pub fn thistogram(
        &mut self,
        dst: &Tile,
        src: &Tile,
        idx: &Tile,
        byte: u8,
    ) -> Result<(), PtoError> {
        let op = OpCode::Thistogram;
        let arch = self.arch();
        if arch != TileArch::A5 {
            return Err(PtoError::Unsupported {
                op: op.name(),
                what: "THISTOGRAM (A5 only, per its page)".into(),
                arch: arch_name(arch),
            });
        }
        for (n, t) in [("dst", dst), ("src", src), ("idx", idx)] {
            need_loc(op, n, t, TileLoc::Vec)?;
            self.check_addr(t, op.name(), n)?;
        }
        need_row_major(op, "dst", dst)?;
        need_row_major(op, "src", src)?;
        need_type(op, arch, "dst", dst, &[ElemType::U32])?;
        need_type(op, arch, "src", src, &[ElemType::U16, ElemType::U32])?;
        need_type(op, arch, "idx", idx, &[ElemType::U8])?;
        let wide = src.dtype() == ElemType::U32;
        let top = if wide { 3 } else { 1 };
        if byte > top {
            return Err(PtoError::Static {
                op: op.name(),
                operand: "byte",
                rule: "the byte must be 0..=1 for a uint16 source, 0..=3 for uint32",
                value: format!("byte {byte} of {}", src.dtype()),
            });
        }
        let (rows, cols) = (src.valid_row(), src.valid_col());
        if dst.valid_row() != rows || dst.valid_col() < 256 {
            return Err(vr_err(
                op,
                "dst",
                "dst must have src's valid rows and at least 256 valid columns",
                format!("{}x{} for {rows} rows", dst.valid_row(), dst.valid_col()),
            ));
        }
        // The filter bytes: per row (uint16, byte 0) or per pass (uint32).
        let filters = (top - byte) as usize;
        let row_filter = !wide && byte == 0;
        let (need_rows, need_cols) = if row_filter { (rows, 1) } else { (filters, 1) };
        if filters > 0 && (idx.valid_row() < need_rows || idx.valid_col() < need_cols) {
            return Err(vr_err(
                op,
                "idx",
                "idx must hold one filter byte per row (uint16) or one row per filter byte (uint32)",
                format!(
                    "{}x{} for {need_rows}x{need_cols}",
                    idx.valid_row(),
                    idx.valid_col()
                ),
            ));
        }
        let mem = |e| PtoError::Memory {
            op: op.name(),
            operand: "idx",
            source: e,
        };
        let pass_filters: Vec<u8> = if row_filter {
            Vec::new()
        } else {
            (0..filters)
                .map(|k| self.get_bits(idx, k, 0).map(|b| b as u8).map_err(mem))
                .collect::<Result<_, _>>()?
        };
        let size = src.dtype().size();
        let data = self.read_bytes(src, (0, 0), rows, cols, size);
        let mut out = Vec::with_capacity(rows * 256 * 4);
        for r in 0..rows {
            let row_byte = if row_filter {
                Some(self.get_bits(idx, r, 0).map_err(mem)? as u8)
            } else {
                None
            };
            let vals = data[r * cols * size..(r + 1) * cols * size]
                .chunks_exact(size)
                .map(|e| {
                    let mut v = [0u8; 4];
                    v[..size].copy_from_slice(e);
                    u32::from_le_bytes(v)
                });
            let byte_of = |v: u32, k: u8| (v >> (8 * k as u32)) as u8;
            let passing = vals.filter(|&v| match row_byte {
                Some(f) => byte_of(v, 1) == f,
                None => pass_filters
                    .iter()
                    .enumerate()
                    .all(|(i, &f)| byte_of(v, top - i as u8) == f),
            });
            let bins = cumulative_bins(passing.map(|v| byte_of(v, byte)));
            out.extend(bins.iter().flat_map(|b| b.to_le_bytes()));
        }
        self.write_bytes(dst, (0, 0), rows, 256, 4, &out);
        Ok(())
    }
}
