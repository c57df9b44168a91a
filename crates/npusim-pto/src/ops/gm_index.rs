//! Indexed global-memory access: MGATHER and MSCATTER (pto-isa `docs/isa/MGATHER.md`,
//! `docs/isa/MSCATTER.md`; PTOAS manual `pto.mgather`, `pto.mscatter`).
//!
//! A Vec tile of `i32` indices addresses a table in GM (a global tensor in ND layout):
//! - **Row mode** (the index tile has one valid column, dst/src more than one): row `r` of the
//!   tile is row `idx(r, 0)` of the table (`rows = shape[0..4]` product, row stride
//!   `stride[3]`).
//! - **Element mode** (the index tile's valid region is the data tile's): element `(r, c)` is
//!   element `idx(r, c)` of the table read as a flat row-major array of all its elements
//!   (the flat number unravels over the table's shape, so a strided partition view works).
//!
//! The mode is not an operand in PTO-AS: PTOAS's verifier allows exactly these two index
//! shapes and prints `MGATHER(dst, mem, idx)`; npusim derives the mode from the index tile.
//! A data tile of one column takes element mode (the manual's `dst[i, j] = mem[idx[i, j]]`).
//!
//! Indices are read as unsigned 32-bit numbers (a negative `i32` is out of range). Out of
//! range means `idx >= capacity` (table rows in row mode, table elements in element mode):
//! - `undefined` (the default): the pages leave this to the caller; npusim reports it as a
//!   typed error ([`PtoError::Index`]) before anything is written.
//! - MGATHER `clamp` / `wrap` / `zero`: `min(idx, cap - 1)`, `idx % cap`, or zeros.
//! - MSCATTER `skip` / `clamp` / `wrap`: no write, `min(idx, cap - 1)`, `idx % cap`.
//!
//! MSCATTER walks row-major, so when two elements or rows hit one slot the later one wins
//! (A2/A3, the CPU simulator, and A5's `Conflict::Last`); the atomic forms (`add`, `max`,
//! `min`) combine in that order: `add` rounds to nearest even in the element type after each
//! addition, `max`/`min` keep the table value on a NaN comparison (`a > b ? a : b`).
//!
//! Restrictions (manual): data tile and table of one element type, `i8`/`i16`/`i32`/`f16`/
//! `bf16`/`f32` (the manual adds the 8-bit floats on A5, which npusim's tiles do not hold yet); indices `i32`; both tiles Vec, row-major,
//! unboxed; index rows equal data rows; index columns 1 or the data columns; the table ND;
//! `add` on `i32`/`f16`/`f32`, `max`/`min` on `i32`/`f32`; modes other than `undefined` and
//! the atomic forms only on A5.

use super::{illegal, need_loc, vr_err};
use crate::core::TileCore;
use crate::engine::memory;
use crate::error::PtoError;
use crate::ops::memory::{GlobalTensor, GmLayout};
use crate::table::OpCode;
use crate::tile::{SLayout, Tile, TileLoc};
use npusim_core::{ElemType, TileArch};

/// What an out-of-range index does (`#pto<gather_oob ...>`, `#pto<scatter_oob ...>`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum IndexOob {
    /// The caller guarantees indices in range; npusim reports one that is not.
    #[default]
    Undefined,
    /// `min(idx, capacity - 1)`.
    Clamp,
    /// `idx % capacity`.
    Wrap,
    /// MGATHER: the element (row) reads as zero.
    Zero,
    /// MSCATTER: the write is dropped.
    Skip,
}

/// How MSCATTER combines with the table (`#pto<scatter_atomic_op ...>`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ScatterAtomic {
    /// A plain store (the last writer wins).
    #[default]
    None,
    Add,
    Max,
    Min,
}

/// The data types both archs take (the manual adds the 8-bit floats on A5; npusim's tiles do
/// not hold 8-bit floats yet).
const DATA: &[ElemType] = &[
    ElemType::I8,
    ElemType::I16,
    ElemType::I32,
    ElemType::F16,
    ElemType::Bf16,
    ElemType::F32,
];

/// The checked geometry of one MGATHER / MSCATTER.
struct Plan {
    rows: usize,
    cols: usize,
    /// Row mode (one index per row).
    row_mode: bool,
    /// The flat indices after the OOB rule: `None` = zero (gather) or skip (scatter).
    slots: Vec<Option<u64>>,
}

impl TileCore {
    #[allow(clippy::too_many_arguments)]
    fn gm_index_plan(
        &self,
        op: OpCode,
        data_name: &'static str,
        data: &Tile,
        table: &GlobalTensor,
        idx: &Tile,
        oob: IndexOob,
        atomic: ScatterAtomic,
    ) -> Result<Plan, PtoError> {
        let arch = self.arch();
        let (attr, rule) = if op == OpCode::Mgather {
            (
                "gatherOob",
                "MGATHER's modes are undefined, clamp, wrap and zero",
            )
        } else {
            (
                "scatterOob",
                "MSCATTER's modes are undefined, skip, clamp and wrap",
            )
        };
        if matches!(
            (op, oob),
            (OpCode::Mgather, IndexOob::Skip) | (OpCode::Mscatter, IndexOob::Zero)
        ) {
            return Err(PtoError::Static {
                op: op.name(),
                operand: attr,
                rule,
                value: format!("{oob:?}"),
            });
        }
        if !DATA.contains(&data.dtype()) {
            return Err(illegal(op, arch, data_name, data.dtype(), DATA));
        }
        if idx.dtype() != ElemType::I32 {
            return Err(illegal(op, arch, "idx", idx.dtype(), &[ElemType::I32]));
        }
        if table.dtype != data.dtype() {
            return Err(PtoError::TypeMismatch {
                op: op.name(),
                operand: "table",
                dtype: table.dtype,
                other: data_name,
                expected: data.dtype(),
            });
        }
        for (name, t) in [(data_name, data), ("idx", idx)] {
            need_loc(op, name, t, TileLoc::Vec)?;
            if !t.is_row_major() || t.desc().slayout != SLayout::NoneBox {
                return Err(PtoError::Static {
                    op: op.name(),
                    operand: name,
                    rule: "tile layout must be row_major with slayout none_box",
                    value: format!("{:?}/{:?}", t.desc().blayout, t.desc().slayout),
                });
            }
            self.check_addr(t, op.name(), name)?;
        }
        if table.layout != GmLayout::Nd {
            return Err(PtoError::Static {
                op: op.name(),
                operand: "table",
                rule: "the global table must be ND",
                value: format!("{:?}", table.layout),
            });
        }
        let a5_only = match (oob, atomic) {
            (IndexOob::Undefined, ScatterAtomic::None) => None,
            (IndexOob::Undefined, a) => Some(format!("scatterAtomicOp {a:?}")),
            (o, _) => Some(format!("OOB mode {o:?}")),
        };
        if let (Some(what), false) = (a5_only, arch == TileArch::A5) {
            return Err(PtoError::Unsupported {
                op: op.name(),
                what: format!("{what} (A5 only)"),
                arch: crate::table::arch_name(arch),
            });
        }
        let (rows, cols) = (data.valid_row(), data.valid_col());
        if idx.valid_row() != rows {
            return Err(vr_err(
                op,
                "idx",
                "index rows must equal the data tile's valid rows",
                format!("idx {} rows, {data_name} {rows}", idx.valid_row()),
            ));
        }
        let row_mode = idx.valid_col() == 1 && cols > 1;
        if !row_mode && idx.valid_col() != cols {
            return Err(vr_err(
                op,
                "idx",
                "index columns must be 1 (row mode) or the data tile's valid columns (element mode)",
                format!("idx {} columns, {data_name} {cols}", idx.valid_col()),
            ));
        }
        let s = table.shape;
        let table_rows = s[..4].iter().fold(1u64, |a, &d| a.saturating_mul(d as u64));
        if row_mode && s[4] < cols {
            return Err(vr_err(
                op,
                "table",
                "a table row must hold the data tile's valid columns",
                format!("table row of {} elements, {cols} columns", s[4]),
            ));
        }
        let capacity = if row_mode {
            table_rows
        } else {
            table_rows.saturating_mul(s[4] as u64)
        };
        let n = if row_mode { rows } else { rows * cols };
        let mut slots = Vec::with_capacity(n);
        for k in 0..n {
            let (r, c) = if row_mode {
                (k, 0)
            } else {
                (k / cols, k % cols)
            };
            let raw = self.get_bits(idx, r, c).map_err(memory(op.name(), "idx"))? as u32;
            let i = u64::from(raw);
            let slot = if i < capacity {
                Some(i)
            } else {
                match oob {
                    IndexOob::Clamp => Some(capacity.saturating_sub(1)),
                    IndexOob::Wrap if capacity > 0 => Some(i % capacity),
                    IndexOob::Zero | IndexOob::Skip => None,
                    _ => {
                        return Err(PtoError::Index {
                            op: op.name(),
                            operand: "idx",
                            row: r,
                            col: c,
                            value: i64::from(raw as i32),
                            rule: "an index must address the table (the default OOB mode leaves this to the caller)",
                            limit: capacity,
                        });
                    }
                }
            };
            slots.push(slot);
        }
        Ok(Plan {
            rows,
            cols,
            row_mode,
            slots,
        })
    }

    /// The `size`-byte element at GM byte `a`, as bits.
    fn gm_bits(&self, op: OpCode, a: u64, size: usize) -> Result<u64, PtoError> {
        let b = self
            .gm()
            .bytes(a, size as u64)
            .map_err(memory(op.name(), "table"))?;
        let mut w = [0u8; 8];
        w[..size.min(8)].copy_from_slice(&b[..size.min(8)]);
        Ok(u64::from_le_bytes(w))
    }

    /// Byte address of table element `(row, col)` of the flattened ND table.
    fn table_addr(table: &GlobalTensor, flat_row: u64, col: usize) -> u64 {
        let size = table.dtype.size() as u64;
        table.addr + table.offset(flat_row as usize, col) as u64 * size
    }

    fn slot_addr(table: &GlobalTensor, p: &Plan, slot: u64, c: usize) -> u64 {
        if p.row_mode {
            Self::table_addr(table, slot, c)
        } else {
            let w = table.shape[4].max(1) as u64;
            Self::table_addr(table, slot / w, (slot % w) as usize)
        }
    }

    /// MGATHER (`dst, table, idx`) with its out-of-range mode.
    pub fn mgather(
        &mut self,
        dst: &Tile,
        table: &GlobalTensor,
        idx: &Tile,
        oob: IndexOob,
    ) -> Result<(), PtoError> {
        let op = OpCode::Mgather;
        let p = self.gm_index_plan(op, "dst", dst, table, idx, oob, ScatterAtomic::None)?;
        let size = dst.dtype().size();
        let mut vals = Vec::with_capacity(p.rows * p.cols);
        for r in 0..p.rows {
            for c in 0..p.cols {
                let k = if p.row_mode { r } else { r * p.cols + c };
                let bits = match p.slots[k] {
                    None => 0,
                    Some(slot) => self.gm_bits(op, Self::slot_addr(table, &p, slot, c), size)?,
                };
                vals.push(bits);
            }
        }
        for r in 0..p.rows {
            for c in 0..p.cols {
                self.set_bits(dst, r, c, vals[r * p.cols + c])
                    .map_err(memory(op.name(), "dst"))?;
            }
        }
        Ok(())
    }

    /// MSCATTER (`table, src, idx`) with its atomic and out-of-range modes.
    pub fn mscatter(
        &mut self,
        table: &GlobalTensor,
        src: &Tile,
        idx: &Tile,
        atomic: ScatterAtomic,
        oob: IndexOob,
    ) -> Result<(), PtoError> {
        let op = OpCode::Mscatter;
        let t = src.dtype();
        let ok = match atomic {
            ScatterAtomic::None => true,
            ScatterAtomic::Add => matches!(t, ElemType::I32 | ElemType::F16 | ElemType::F32),
            ScatterAtomic::Max | ScatterAtomic::Min => matches!(t, ElemType::I32 | ElemType::F32),
        };
        if !ok {
            let legal: &[ElemType] = if atomic == ScatterAtomic::Add {
                &[ElemType::I32, ElemType::F16, ElemType::F32]
            } else {
                &[ElemType::I32, ElemType::F32]
            };
            return Err(illegal(op, self.arch(), "src", t, legal));
        }
        let p = self.gm_index_plan(op, "src", src, table, idx, oob, atomic)?;
        let size = t.size();
        // Every address is checked before the first write: a fault leaves GM untouched.
        let mut writes = Vec::with_capacity(p.rows * p.cols);
        for r in 0..p.rows {
            for c in 0..p.cols {
                let k = if p.row_mode { r } else { r * p.cols + c };
                if let Some(slot) = p.slots[k] {
                    let a = Self::slot_addr(table, &p, slot, c);
                    self.gm()
                        .bytes(a, size as u64)
                        .map_err(memory(op.name(), "table"))?;
                    let v = self.get_bits(src, r, c).map_err(memory(op.name(), "src"))?;
                    writes.push((a, v));
                }
            }
        }
        for (a, v) in writes {
            let new = if atomic == ScatterAtomic::None {
                v
            } else {
                combine(t, atomic, self.gm_bits(op, a, size)?, v)
            };
            self.gm_mut()
                .write(a, &new.to_le_bytes()[..size])
                .map_err(memory(op.name(), "table"))?;
        }
        Ok(())
    }
}

/// `old (op) new` for the atomic forms, on raw bits of `t`.
fn combine(t: ElemType, atomic: ScatterAtomic, old: u64, new: u64) -> u64 {
    match t {
        ElemType::I32 => {
            let (a, b) = (old as u32 as i32, new as u32 as i32);
            let r = match atomic {
                ScatterAtomic::Add => a.wrapping_add(b),
                ScatterAtomic::Max => a.max(b),
                ScatterAtomic::Min => a.min(b),
                ScatterAtomic::None => b,
            };
            r as u32 as u64
        }
        ElemType::F32 => {
            let (a, b) = (f32::from_bits(old as u32), f32::from_bits(new as u32));
            let r = match atomic {
                ScatterAtomic::Add => a + b,
                ScatterAtomic::Max => {
                    if b > a {
                        b
                    } else {
                        a
                    }
                }
                ScatterAtomic::Min => {
                    if b < a {
                        b
                    } else {
                        a
                    }
                }
                ScatterAtomic::None => b,
            };
            r.to_bits() as u64
        }
        ElemType::F16 => {
            // f16 + f16 is exact in f32; one rounding to f16 is the correctly rounded sum.
            let (a, b) = (
                half::f16::from_bits(old as u16).to_f32(),
                half::f16::from_bits(new as u16).to_f32(),
            );
            half::f16::from_f32(a + b).to_bits() as u64
        }
        _ => new,
    }
}
