//! Compare, select and convert.
//!
//! Implements pto-isa `docs/isa/{TCMP,TCMPS,TSEL,TSELS,TCVT}.md`. The pages leave the mask
//! layout "target-defined"; this crate uses the public CPU simulator's: per row of the
//! iteration domain, bit `j` lives in word `j / W` of the mask tile's row, bit `j % W`
//! (LSB first), where `W` is the mask word width (uint8 on A2A3, uint32 on A5). Unused bits of
//! a row's last word are written as 0. TSEL/TSELS read masks of any unsigned word type the
//! same way.
//!
//! TCVT converts each element with `npusim_core::convert::convert_bits` (the exact reference
//! conversion) under the given round mode and saturation; the pairs are the page's table. The
//! A5 8-bit floats (`npusim_core::f8`: f32 <-> float8_e4m3_t (E4M3FN), float8_e5m2_t,
//! hifloat8_t, and half -> hifloat8_t) follow that module's rules; a conversion into hifloat8
//! rounds half away from zero whatever the mode (pto-isa A5 `TCvt.hpp` issues `ROUND_A` for
//! every H8 destination). The packed fp4 pairs (bf16 <-> float4_e2m1x2_t / float4_e1m2x2_t, two
//! codes a byte) are [`super::fp4`]'s ([`super::fp4::FP4_PAIRS`]; they are not in
//! [`cvt_targets`], whose pairs convert one element into one element).

use super::{CmpMode, Scalar, ScalarElem, covers, need_loc, need_row_major, same_type, vr_err};
use crate::core::TileCore;
use crate::dispatch;
use crate::engine::memory;
use crate::error::PtoError;
use crate::num::Elem;
use crate::table::{OpCode, arch_name};
use crate::tile::{Tile, TileLoc};
use npusim_core::Element;
use npusim_core::convert::{RoundMode, Saturation, convert_bits};
use npusim_core::{ElemType, TileArch};

use ElemType::{Bf16 as BF, F16 as H, F32 as F, I8, I16, I32, I64, U8, U16, U32};
use ElemType::{F8E4M3FN as E4M3, F8E5M2 as E5M2, HiF8 as H8};

/// The TCVT pairs of the page's "Supported Conversions" table.
pub fn cvt_targets(arch: TileArch, src: ElemType) -> &'static [ElemType] {
    match (arch, src) {
        (TileArch::A2A3, F) => &[H, F, BF, I16, I32, I64],
        (TileArch::A5, F) => &[H, F, BF, I16, I32, I64, E4M3, E5M2, H8],
        (TileArch::A2A3, H) => &[F, I32, I16, I8, U8],
        (TileArch::A5, H) => &[F, I32, I16, I8, U8, H8],
        (TileArch::A2A3, BF) => &[F, I32],
        (TileArch::A5, BF) => &[F, I32, H],
        (TileArch::A2A3, I16) => &[H, F],
        (TileArch::A5, I16) => &[U8, H, F, U32, I32],
        (TileArch::A2A3, I32) => &[F, I16, I64, H],
        (TileArch::A5, I32) => &[F, I16, U16, I64, U8],
        (_, I64) => &[F, I32],
        (TileArch::A2A3, U8) => &[H],
        (TileArch::A5, U8) => &[H, U16],
        (TileArch::A2A3, I8) => &[H],
        (TileArch::A5, I8) => &[H, I16, I32],
        (TileArch::A5, U32) => &[U8, U16, I16],
        (TileArch::A5, E4M3 | E5M2 | H8) => &[F],
        _ => &[],
    }
}

fn mask_word(arch: TileArch) -> ElemType {
    match arch {
        TileArch::A2A3 => ElemType::U8,
        TileArch::A5 => ElemType::U32,
    }
}

impl TileCore {
    fn mask_checks(
        &self,
        op: OpCode,
        mask: &Tile,
        rows: usize,
        cols: usize,
        write: bool,
    ) -> Result<usize, PtoError> {
        need_loc(op, "mask", mask, TileLoc::Vec)?;
        let w = mask.dtype();
        // A mask that is read is a raw bit container: the A2A3 implementation copies each
        // row's bytes into CMPMASK whatever the tile's element type (no type assertion in
        // `TSel.hpp`/`TSels.hpp`), so any 1-, 2- or 4-byte type is accepted and read as its
        // bit pattern (PTOAS's Sel sample packs its predicate into an int8 tile).
        let ok = if write {
            w == mask_word(self.arch())
        } else {
            matches!(w.size(), 1 | 2 | 4)
        };
        if !ok {
            let legal = if write {
                vec![mask_word(self.arch())]
            } else {
                vec![
                    ElemType::U8,
                    ElemType::I8,
                    ElemType::U16,
                    ElemType::I16,
                    ElemType::F16,
                    ElemType::U32,
                    ElemType::I32,
                    ElemType::F32,
                ]
            };
            return Err(PtoError::IllegalType {
                op: op.name(),
                operand: "mask",
                dtype: w,
                arch: arch_name(self.arch()),
                legal: crate::error::type_list(&legal),
            });
        }
        let bits = w.bits() as usize;
        covers(op, "mask", mask, rows, cols.div_ceil(bits))?;
        Ok(bits)
    }

    /// Packs `pred(r, c)` over `rows x cols` into the mask tile.
    fn write_mask(
        &mut self,
        op: OpCode,
        mask: &Tile,
        rows: usize,
        cols: usize,
        bits: usize,
        pred: &[bool],
    ) -> Result<(), PtoError> {
        for r in 0..rows {
            for w in 0..cols.div_ceil(bits) {
                let mut word = 0u64;
                for b in 0..bits {
                    let c = w * bits + b;
                    if c < cols && pred[r * cols + c] {
                        word |= 1 << b;
                    }
                }
                self.set_bits(mask, r, w, word)
                    .map_err(memory(op.name(), "dst"))?;
            }
        }
        Ok(())
    }

    fn mask_bit(
        &self,
        op: OpCode,
        mask: &Tile,
        bits: usize,
        r: usize,
        c: usize,
    ) -> Result<bool, PtoError> {
        let w = self
            .get_bits(mask, r, c / bits)
            .map_err(memory(op.name(), "mask"))?;
        Ok((w >> (c % bits)) & 1 == 1)
    }

    /// TCMP: `dst` (a packed mask) bit `(i, j)` = `src0(i, j) cmp src1(i, j)` over src0's valid
    /// region. On A2A3 an int32 source compares with EQ whatever the mode (the page's note).
    pub fn tcmp(
        &mut self,
        dst: &Tile,
        src0: &Tile,
        src1: &Tile,
        mode: CmpMode,
    ) -> Result<(), PtoError> {
        let op = OpCode::Tcmp;
        for (n, t) in [("src0", src0), ("src1", src1)] {
            need_loc(op, n, t, TileLoc::Vec)?;
            op.check_type(self.arch(), n, t.dtype())?;
        }
        same_type(op, "src1", src1, "src0", src0)?;
        let (vr, vc) = (src0.valid_row(), src0.valid_col());
        if dst.valid_row() != vr {
            return Err(vr_err(
                op,
                "dst",
                "valid rows must equal src0's",
                format!("{} vs {}", dst.valid_row(), vr),
            ));
        }
        covers(op, "src1", src1, vr, vc)?;
        let bits = self.mask_checks(op, dst, vr, vc, true)?;
        let mode = if self.arch() == TileArch::A2A3 && src0.dtype() == ElemType::I32 {
            CmpMode::Eq
        } else {
            mode
        };
        let t = src0.dtype();
        let n = op.name();
        let pred = dispatch!(all t, T => {
            let mut pred = Vec::with_capacity(vr * vc);
            for r in 0..vr {
                for c in 0..vc {
                    pred.push(mode.test(self.getc::<T>(n, "src0", src0, r, c)?, self.getc::<T>(n, "src1", src1, r, c)?));
                }
            }
            pred
        }, else Vec::new());
        self.write_mask(op, dst, vr, vc, bits, &pred)
    }

    /// TCMPS (scalar form): mask bit `(i, j)` = `src(i, j) cmp scalar`.
    pub fn tcmps(
        &mut self,
        dst: &Tile,
        src: &Tile,
        scalar: Scalar,
        mode: CmpMode,
    ) -> Result<(), PtoError> {
        let op = OpCode::Tcmps;
        need_loc(op, "src", src, TileLoc::Vec)?;
        need_row_major(op, "src", src)?;
        op.check_type(self.arch(), "src", src.dtype())?;
        let (vr, vc) = (src.valid_row(), src.valid_col());
        if dst.valid_row() != vr {
            return Err(vr_err(
                op,
                "dst",
                "valid rows must equal src's",
                format!("{} vs {}", dst.valid_row(), vr),
            ));
        }
        let bits = self.mask_checks(op, dst, vr, vc, true)?;
        let mode = if self.arch() == TileArch::A2A3 && src.dtype() == ElemType::I32 {
            CmpMode::Eq
        } else {
            mode
        };
        let t = src.dtype();
        let n = op.name();
        let pred = dispatch!(all t, T => {
            let k = scalar.to_c::<T>();
            let mut pred = Vec::with_capacity(vr * vc);
            for r in 0..vr {
                for c in 0..vc {
                    pred.push(mode.test(self.getc::<T>(n, "src", src, r, c)?, k));
                }
            }
            pred
        }, else Vec::new());
        self.write_mask(op, dst, vr, vc, bits, &pred)
    }

    /// TSEL: `dst(i, j) = mask(i, j) ? src0(i, j) : src1(i, j)` over dst's valid region.
    pub fn tsel(
        &mut self,
        dst: &Tile,
        mask: &Tile,
        src0: &Tile,
        src1: &Tile,
    ) -> Result<(), PtoError> {
        let op = OpCode::Tsel;
        self.sel_checks(op, dst, &[("src0", src0), ("src1", src1)])?;
        let bits = self.mask_checks(op, mask, dst.valid_row(), dst.valid_col(), false)?;
        let n = op.name();
        for r in 0..dst.valid_row() {
            for c in 0..dst.valid_col() {
                let s = if self.mask_bit(op, mask, bits, r, c)? {
                    src0
                } else {
                    src1
                };
                let v = self.get_bits(s, r, c).map_err(memory(n, "src"))?;
                self.set_bits(dst, r, c, v).map_err(memory(n, "dst"))?;
            }
        }
        Ok(())
    }

    /// TSELS: `dst(i, j) = mask(i, j) ? src(i, j) : scalar`.
    pub fn tsels(
        &mut self,
        dst: &Tile,
        mask: &Tile,
        src: &Tile,
        scalar: Scalar,
    ) -> Result<(), PtoError> {
        let op = OpCode::Tsels;
        self.sel_checks(op, dst, &[("src", src)])?;
        super::same_valid(op, "src", src, dst, true)?;
        let bits = self.mask_checks(op, mask, dst.valid_row(), dst.valid_col(), false)?;
        let n = op.name();
        let t = dst.dtype();
        let k = dispatch!(all t, T => T::narrow(scalar.to_c::<T>()).to_bits_u64(), else 0);
        for r in 0..dst.valid_row() {
            for c in 0..dst.valid_col() {
                let v = if self.mask_bit(op, mask, bits, r, c)? {
                    self.get_bits(src, r, c).map_err(memory(n, "src"))?
                } else {
                    k
                };
                self.set_bits(dst, r, c, v).map_err(memory(n, "dst"))?;
            }
        }
        Ok(())
    }

    fn sel_checks(
        &self,
        op: OpCode,
        dst: &Tile,
        srcs: &[(&'static str, &Tile)],
    ) -> Result<(), PtoError> {
        need_loc(op, "dst", dst, TileLoc::Vec)?;
        need_row_major(op, "dst", dst)?;
        op.check_type(self.arch(), "dst", dst.dtype())?;
        for (n, s) in srcs {
            need_loc(op, n, s, TileLoc::Vec)?;
            need_row_major(op, n, s)?;
            same_type(op, n, s, "dst", dst)?;
            covers(op, n, s, dst.valid_row(), dst.valid_col())?;
        }
        Ok(())
    }

    /// TCVT: `dst(i, j) = convert(src(i, j))` with a round mode and saturation, over dst's
    /// valid region (src must cover it).
    pub fn tcvt(
        &mut self,
        dst: &Tile,
        src: &Tile,
        mode: RoundMode,
        sat: Saturation,
    ) -> Result<(), PtoError> {
        if src.dtype().is_packed_fp4() || dst.dtype().is_packed_fp4() {
            return self.tcvt_fp4(dst, src, mode, sat);
        }
        let op = OpCode::Tcvt;
        let n = op.name();
        let arch = self.arch();
        need_loc(op, "dst", dst, TileLoc::Vec)?;
        need_loc(op, "src", src, TileLoc::Vec)?;
        op.check_type(arch, "src", src.dtype())?;
        let (st, dt) = (src.dtype(), dst.dtype());
        if !cvt_targets(arch, st).contains(&dt) {
            return Err(PtoError::Unsupported {
                op: n,
                what: format!(
                    "conversion {} -> {}",
                    crate::error::type_name(st),
                    crate::error::type_name(dt)
                ),
                arch: arch_name(arch),
            });
        }
        covers(op, "src", src, dst.valid_row(), dst.valid_col())?;
        if mode == RoundMode::Odd && !dt.is_float() && !dt.is_narrow_float() && st.is_float() {
            return Err(PtoError::Unsupported {
                op: n,
                what: "round mode ODD with an integer destination".into(),
                arch: arch_name(arch),
            });
        }
        // The A5 rounds into hifloat8 half away from zero whatever the mode.
        let mode = if dt == ElemType::HiF8 {
            RoundMode::Round
        } else {
            mode
        };
        for r in 0..dst.valid_row() {
            for c in 0..dst.valid_col() {
                let b = self.get_bits(src, r, c).map_err(memory(n, "src"))?;
                let v = convert_bits(b, st, dt, mode, sat).map_err(|e| PtoError::Unsupported {
                    op: n,
                    what: e.to_string(),
                    arch: arch_name(arch),
                })?;
                self.set_bits(dst, r, c, v).map_err(memory(n, "dst"))?;
            }
        }
        Ok(())
    }
}
