//! TCVT's packed 4-bit pairs (A5): bfloat16 <-> `float4_e2m1x2_t` / `float4_e1m2x2_t`.
//!
//! pto-isa `docs/isa/TCVT.md` lists, on A5 only, BF16 -> FP4_E2M1X2 and FP4_E1M2X2 and both
//! back to BF16. A packed element ([`ElemType::F4E2M1X2`], [`ElemType::F4E1M2X2`]) is one
//! byte holding two 4-bit codes, the first in the low nibble ([`npusim_core::f8::unpack_pair`],
//! as the pto-isa CPU simulator reads element `2k` and `2k + 1`). npusim counts a packed tile's
//! columns in pairs (one byte each), so every byte-moving instruction takes it unchanged;
//! pto-isa counts them in 4-bit values (a `Tile<.., float4_e2m1x2_t, R, C>` holds `R * C / 2`
//! bytes), so its `C` is twice npusim's.
//!
//! **Offsets count the same units as the shape (decision, session 17).** The project keeps one
//! convention per tile, so TEXTRACT / TINSERT offsets of a packed tile count bytes along the
//! packed dimension too, as its shape and valid region do: a window that a pto-isa program
//! starts at K value `2b` starts at byte `b` here, and an odd value offset (half a byte) has no
//! spelling. TEXTRACT Mat -> Left/Right of the pairs (A5, `ops::movement`
//! `fp4_extract_offsets`) also requires the hardware's load steps: K offsets in multiples of
//! 32 bytes (64 values; `a5/TExtract.hpp` shifts `indexCol * sizeof(T)` right by 5 and
//! halves it), M / N offsets in multiples of 16; other offsets are typed errors, not
//! truncated. A PTO-AS program cannot hold fp4 tiles (PTOAS has no fp4 element type), so only
//! the Rust API meets this rule.
//! - **bf16 -> fp4:** the domain is dst's valid region in pairs; `dst(i, j)` packs
//!   `convert(src(i, 2j))` and `convert(src(i, 2j + 1))`, each rounded once from the exact
//!   bf16 value with the given mode ([`F8Format::round_exact`]). Neither format has inf or
//!   NaN: overflow and ±inf give ±max (±6, ±1.75) whatever the saturation flag (`ml_dtypes`'
//!   rule for `float4_e2m1fn`), and a NaN gives `ml_dtypes`' E2M1 code (-0 for +NaN, +0 for
//!   -NaN) in both formats.
//! - **fp4 -> bf16:** the domain is dst's valid region; `dst(i, j)` is nibble `j % 2` of
//!   `src(i, j / 2)`, exact (every fp4 value is a bf16 value).
//!
//! Everything else involving a packed type is a typed error: another pair, or any on A2A3.

use super::need_loc;
use crate::core::TileCore;
use crate::engine::memory;
use crate::error::{PtoError, type_name};
use crate::table::{OpCode, arch_name};
use crate::tile::{Tile, TileLoc};
use npusim_core::convert::{Exact, FloatFormat, RoundMode, Saturation};
use npusim_core::f8::{F8Format, pack_pair, unpack_pair};
use npusim_core::{ElemType, TileArch};

/// The packed pairs of the TCVT page, `(src, dst)`, A5 only.
pub const FP4_PAIRS: [(ElemType, ElemType); 4] = [
    (ElemType::Bf16, ElemType::F4E2M1X2),
    (ElemType::Bf16, ElemType::F4E1M2X2),
    (ElemType::F4E2M1X2, ElemType::Bf16),
    (ElemType::F4E1M2X2, ElemType::Bf16),
];

/// The 4-bit code of a bf16 bit pattern in `f` (see the module docs).
pub fn bf16_to_fp4(bits: u16, f: F8Format, mode: RoundMode, sat: Saturation) -> u8 {
    let x = Exact::from_float_bits(u64::from(bits), FloatFormat::BF16);
    f.round_exact(x, mode, sat) & 0x0f
}

/// The bf16 bit pattern of a 4-bit code of `f` (exact).
pub fn fp4_to_bf16(code: u8, f: F8Format) -> u16 {
    (f.to_f32(code & 0x0f).to_bits() >> 16) as u16
}

impl TileCore {
    /// TCVT with a packed 4-bit operand (called by [`TileCore::tcvt`]).
    pub(crate) fn tcvt_fp4(
        &mut self,
        dst: &Tile,
        src: &Tile,
        mode: RoundMode,
        sat: Saturation,
    ) -> Result<(), PtoError> {
        let op = OpCode::Tcvt;
        let n = op.name();
        let arch = self.arch();
        let (st, dt) = (src.dtype(), dst.dtype());
        if arch != TileArch::A5 || !FP4_PAIRS.contains(&(st, dt)) {
            return Err(PtoError::Unsupported {
                op: n,
                what: format!("conversion {} -> {}", type_name(st), type_name(dt)),
                arch: arch_name(arch),
            });
        }
        need_loc(op, "dst", dst, TileLoc::Vec)?;
        need_loc(op, "src", src, TileLoc::Vec)?;
        self.check_addr(dst, n, "dst")?;
        self.check_addr(src, n, "src")?;
        let (vr, vc) = (dst.valid_row(), dst.valid_col());
        if let Some(f) = F8Format::of_packed(dt) {
            super::covers(op, "src", src, vr, 2 * vc)?;
            for r in 0..vr {
                for c in 0..vc {
                    let mut code = [0u8; 2];
                    for (h, k) in code.iter_mut().enumerate() {
                        let b = self.get_bits(src, r, 2 * c + h).map_err(memory(n, "src"))?;
                        *k = bf16_to_fp4(b as u16, f, mode, sat);
                    }
                    let v = u64::from(pack_pair(code[0], code[1]));
                    self.set_bits(dst, r, c, v).map_err(memory(n, "dst"))?;
                }
            }
        } else if let Some(f) = F8Format::of_packed(st) {
            super::covers(op, "src", src, vr, vc.div_ceil(2))?;
            for r in 0..vr {
                for c in 0..vc {
                    let b = self.get_bits(src, r, c / 2).map_err(memory(n, "src"))?;
                    let code = unpack_pair(b as u8)[c % 2];
                    let v = u64::from(fp4_to_bf16(code, f));
                    self.set_bits(dst, r, c, v).map_err(memory(n, "dst"))?;
                }
            }
        }
        Ok(())
    }
}
