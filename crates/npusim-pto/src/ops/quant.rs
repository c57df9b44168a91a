//! Integer quantisation: TQUANT's INT8 forms and TDEQUANT (pto-isa `docs/isa/TQUANT.md`,
//! `docs/isa/TDEQUANT.md`; PTO IR manual "pto.tquant").
//!
//! Both take their parameters per row, as the vector unit broadcasts them (the per-row operand
//! rule of TROWEXPAND, which both pages build on). A col-major parameter tile has one valid
//! column and the data's valid rows; row `r` uses its element `(r, 0)`. A row-major one is
//! read as each implementation reads it; the pages' shape rule (the data's valid rows, 8 valid
//! columns) is a typed error only under [`RowParamRule::Documented`] (see there: the hardware
//! default reads any tile that holds the values, as PTOAS's samples expect):
//! - TQUANT multiplies with `vmul`, src1 block stride 0 and repeat stride 1: row `r` uses the
//!   tile's 32-byte block `r`, column `c` its element `c mod 8` (PTOAS Quant goldens:
//!   `fp_flat[r * 8 + c % 8]`).
//! - TDEQUANT reads one scalar per row, at the row's start (A2/A3 `TDequant.hpp`: the element
//!   at `r * RowStride`, then `vadds`/`vmuls`; A5 a one-element broadcast load): row `r` uses
//!   element `(r, 0)` for every column (PTOAS Dequant goldens: `scale.reshape(rows, 8)[:, 0]`).
//!   For the documented 8-column tile both reads agree when a row repeats one value.
//!
//! - TDEQUANT: `dst = (f32(src) - offset_r) * scale_r`, one f32 subtraction then one f32
//!   multiplication, as the page's implementation notes order them.
//! - TQUANT INT8 (A2/A3 implementation, `TQuant.hpp`): `m = src * scale_r` (the parameter is
//!   a multiplier), plus `offset_r` for the asymmetric form, each an f32 operation; then the
//!   page's cast chain f32 -> s32 -> f16 -> int8 with round-to-nearest-even at each step and
//!   saturation at the end. The chain's intermediate roundings are kept (they only matter
//!   outside the int8 range). Symmetric output is `i8`, asymmetric `u8`. A NaN product becomes
//!   0, as TCVT's float-to-integer conversion defines it. The MX forms are not modelled.

use crate::core::TileCore;
use crate::error::PtoError;
use crate::table::OpCode;
use crate::tile::{Tile, TileLoc};
use npusim_core::convert::{RoundMode, Saturation, convert_bits};
use npusim_core::{ElemType, RowParamRule};

use super::{need_loc, need_row_major, need_type, vr_err};

/// Which INT8 quantisation TQUANT performs (`#pto<quant_type ...>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum QuantKind {
    /// `INT8_SYM`: `i8 = sat(round(x * scale))`.
    Int8Sym,
    /// `INT8_ASYM`: `u8 = sat(round(x * scale + offset))`.
    Int8Asym,
}

impl TileCore {
    fn quant_operand(&self, op: OpCode, name: &'static str, t: &Tile) -> Result<(), PtoError> {
        need_loc(op, name, t, TileLoc::Vec)?;
        self.check_addr(t, op.name(), name)
    }

    /// The per-row parameter rule ([`RowParamRule`] of the tile policy); returns, per row,
    /// the eight f32 values its columns cycle through (`c mod 8`). A row-major tile is read
    /// by 32-byte blocks (TQUANT) or, with `first_of_row`, as its rows' first elements
    /// (TDEQUANT; see the module docs).
    fn row_params(
        &self,
        op: OpCode,
        name: &'static str,
        p: &Tile,
        rows: usize,
        first_of_row: bool,
    ) -> Result<Vec<[f32; 8]>, PtoError> {
        self.quant_operand(op, name, p)?;
        need_type(op, self.arch(), name, p, &[ElemType::F32])?;
        let mem_err = |e| PtoError::Memory {
            op: op.name(),
            operand: name,
            source: e,
        };
        if !p.is_row_major() {
            // Col-major: one valid column, the data's valid rows; row r uses (r, 0).
            if p.valid_row() != rows || p.valid_col() != 1 {
                return Err(vr_err(
                    op,
                    name,
                    "a col-major per-row parameter tile must have the data's valid rows and 1 valid col",
                    format!("{}x{} for {rows} rows", p.valid_row(), p.valid_col()),
                ));
            }
            return (0..rows)
                .map(|r| {
                    self.get_bits(p, r, 0)
                        .map(|b| [f32::from_bits(b as u32); 8])
                        .map_err(mem_err)
                })
                .collect();
        }
        let documented = p.valid_row() == rows && p.valid_col() == 8;
        if self.policy().row_params == RowParamRule::Documented && !documented {
            return Err(vr_err(
                op,
                name,
                "a row-major per-row parameter tile must have the data's valid rows and 32/sizeof(T) valid cols",
                format!("{}x{} for {rows} rows", p.valid_row(), p.valid_col()),
            ));
        }
        if first_of_row {
            // Row r reads the element at the start of the tile's row r.
            if p.rows() < rows || p.valid_col() == 0 {
                return Err(vr_err(
                    op,
                    name,
                    "a row-major per-row parameter tile must have a row per data row",
                    format!("{}x{} for {rows} rows", p.rows(), p.valid_col()),
                ));
            }
            let whole = p.with_valid(p.rows(), p.cols())?;
            return (0..rows)
                .map(|r| {
                    self.get_bits(&whole, r, 0)
                        .map(|b| [f32::from_bits(b as u32); 8])
                        .map_err(mem_err)
                })
                .collect();
        }
        // Row r reads the tile's 32-byte block r (vmul src1: block stride 0, repeat stride 1).
        let need = rows as u64 * 32;
        if p.size_bytes() < need {
            return Err(vr_err(
                op,
                name,
                "a row-major per-row parameter tile must hold one 32-byte block per data row",
                format!("{} bytes for {rows} rows", p.size_bytes()),
            ));
        }
        let b = self.mem(p.loc()).bytes(p.addr(), need).map_err(mem_err)?;
        Ok(b.chunks_exact(32)
            .map(|blk| {
                let mut v = [0f32; 8];
                for (x, e) in v.iter_mut().zip(blk.chunks_exact(4)) {
                    *x = f32::from_le_bytes([e[0], e[1], e[2], e[3]]);
                }
                v
            })
            .collect())
    }

    /// The data operands' shared rules: Vec, row-major, one valid shape; returns it.
    fn quant_data(&self, op: OpCode, dst: &Tile, src: &Tile) -> Result<(usize, usize), PtoError> {
        for (n, t) in [("dst", dst), ("src", src)] {
            self.quant_operand(op, n, t)?;
            need_row_major(op, n, t)?;
        }
        let (vr, vc) = (dst.valid_row(), dst.valid_col());
        if (src.valid_row(), src.valid_col()) != (vr, vc) {
            return Err(vr_err(
                op,
                "src",
                "src and dst must share the valid shape",
                format!("{}x{} vs {vr}x{vc}", src.valid_row(), src.valid_col()),
            ));
        }
        Ok((vr, vc))
    }

    /// TDEQUANT (`dst, src, scale, offset`).
    pub fn tdequant(
        &mut self,
        dst: &Tile,
        src: &Tile,
        scale: &Tile,
        offset: &Tile,
    ) -> Result<(), PtoError> {
        let op = OpCode::Tdequant;
        let arch = self.arch();
        let (vr, vc) = self.quant_data(op, dst, src)?;
        need_type(op, arch, "dst", dst, &[ElemType::F32])?;
        need_type(op, arch, "src", src, &[ElemType::I8, ElemType::I16])?;
        let s = self.row_params(op, "scale", scale, vr, true)?;
        let o = self.row_params(op, "offset", offset, vr, true)?;
        let size = src.dtype().size();
        let codes = self.read_bytes(src, (0, 0), vr, vc, size);
        let mut out = Vec::with_capacity(vr * vc * 4);
        for (k, e) in codes.chunks_exact(size).enumerate() {
            let q = match size {
                1 => e[0] as i8 as f32,
                _ => i16::from_le_bytes([e[0], e[1]]) as f32,
            };
            let (r, c) = (k / vc.max(1), k % vc.max(1) % 8);
            out.extend_from_slice(&((q - o[r][c]) * s[r][c]).to_le_bytes());
        }
        self.write_bytes(dst, (0, 0), vr, vc, 4, &out);
        Ok(())
    }

    /// TQUANT's INT8 forms (`dst, src, scale [, offset]`).
    pub fn tquant(
        &mut self,
        dst: &Tile,
        src: &Tile,
        scale: &Tile,
        offset: Option<&Tile>,
        kind: QuantKind,
    ) -> Result<(), PtoError> {
        let op = OpCode::Tquant;
        let arch = self.arch();
        let (vr, vc) = self.quant_data(op, dst, src)?;
        need_type(op, arch, "src", src, &[ElemType::F32])?;
        let out_t = match kind {
            QuantKind::Int8Sym => ElemType::I8,
            QuantKind::Int8Asym => ElemType::U8,
        };
        need_type(op, arch, "dst", dst, &[out_t])?;
        let s = self.row_params(op, "scale", scale, vr, false)?;
        let o = match (kind, offset) {
            (QuantKind::Int8Asym, Some(t)) => Some(self.row_params(op, "offset", t, vr, false)?),
            (QuantKind::Int8Asym, None) => {
                return Err(PtoError::Static {
                    op: op.name(),
                    operand: "offset",
                    rule: "INT8_ASYM needs an offset tile",
                    value: "none".into(),
                });
            }
            (QuantKind::Int8Sym, Some(_)) => {
                return Err(PtoError::Static {
                    op: op.name(),
                    operand: "offset",
                    rule: "INT8_SYM takes no offset tile",
                    value: "an offset tile".into(),
                });
            }
            (QuantKind::Int8Sym, None) => None,
        };
        let xs = self.read_bytes(src, (0, 0), vr, vc, 4);
        let mut out = Vec::with_capacity(vr * vc);
        for (k, e) in xs.chunks_exact(4).enumerate() {
            let (r, c) = (k / vc.max(1), k % vc.max(1) % 8);
            let mut m = f32::from_le_bytes([e[0], e[1], e[2], e[3]]) * s[r][c];
            if let Some(o) = &o {
                m += o[r][c];
            }
            out.push(quantize_chain(m, out_t) as u8);
        }
        self.write_bytes(dst, (0, 0), vr, vc, 1, &out);
        Ok(())
    }
}

/// The A2/A3 cast chain f32 -> s32 -> f16 -> `out` (i8 or u8), round-to-nearest-even at each
/// step, saturating; returns the output's bits.
fn quantize_chain(m: f32, out: ElemType) -> u64 {
    let step = |bits: u64, from: ElemType, to: ElemType| {
        convert_bits(bits, from, to, RoundMode::Rint, Saturation::On).unwrap_or(0)
    };
    let s32 = step(m.to_bits() as u64, ElemType::F32, ElemType::I32);
    let f16 = step(s32, ElemType::I32, ElemType::F16);
    step(f16, ElemType::F16, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The chain rounds half to even and saturates; NaN becomes 0.
    #[test]
    fn chain_rounds_and_saturates() {
        let q = |m: f32| quantize_chain(m, ElemType::I8) as u8 as i8;
        assert_eq!(
            [q(2.5), q(3.5), q(-2.5), q(-0.5), q(126.6)],
            [2, 4, -2, 0, 127]
        );
        assert_eq!(
            [q(1e9), q(-1e9), q(f32::INFINITY), q(f32::NAN)],
            [127, -128, 127, 0]
        );
        let u = |m: f32| quantize_chain(m, ElemType::U8) as u8;
        assert_eq!([u(-3.0), u(254.5), u(255.5), u(1e30)], [0, 254, 255, 255]);
    }
}
