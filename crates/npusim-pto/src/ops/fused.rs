//! The fused add-and-narrow instructions: TADDRELUCONV (pto-isa `docs/isa/TADDRELUCONV.md`) and
//! TADDDEQRELU (`docs/isa/TADDDEQRELU.md`), A2A3 and A5.
//!
//! - TADDRELUCONV (`dst, src0, src1`): `dst = convert(max(0, src0 + src1))` for the pairs
//!   `float -> half`, `half -> int8`, `int16 -> int8`. The sum is the source type's add (floats
//!   rounded once to nearest even, as TADD; int16 wraps, as TADD), the ReLU is TRELU's `max(s,
//!   0)` under the chip's NaN min/max policy, and the narrowing rounds to nearest even and
//!   saturates (the page: "saturating behavior"; [`convert_bits`] with [`Saturation::On`]:
//!   half overflow gives ±65504, an int8 target clamps to [-128, 127], a NaN stays NaN for a
//!   half target and becomes 0 for int8).
//! - TADDDEQRELU (`dst, src0, src1, deqScale, tmp`): `x = src0 + src1` in int32 (wrapping), then
//!   the page's precision-compensated sequence in f32, each step rounded to nearest even:
//!   `((float(x) * 2^-17) * deqScale) * 2^17`, then `max(., 0)` under the NaN policy, then
//!   `half` rounded to nearest even, saturating. On A2A3 the int32 sum is staged in `tmp` (the
//!   page: "adds into the int32_t temporary tile"), so tmp's first `validRow x validCol`
//!   elements hold it afterwards; A5 keeps it in registers and leaves tmp alone.
//!
//! Restrictions (typed errors): Vec tiles, row-major; the pages' type pairs (src0 and src1 one
//! type); non-empty valid regions with src0's and src1's valid shapes equal to dst's; tmp
//! `int32` and at least dst's valid region in each dimension.

use super::{need_loc, need_row_major, same_type, vr_err};
use crate::core::TileCore;
use crate::error::{PtoError, type_name};
use crate::num::{Cx, Elem, max_p};
use crate::table::{OpCode, arch_name};
use crate::tile::{Tile, TileLoc};
use half::f16;
use npusim_core::convert::{RoundMode, Saturation, convert_bits};
use npusim_core::{ElemType, TileArch};

/// TADDRELUCONV's `(source, destination)` pairs.
pub const ADDRELUCONV_PAIRS: [(ElemType, ElemType); 3] = [
    (ElemType::F32, ElemType::F16),
    (ElemType::F16, ElemType::I8),
    (ElemType::I16, ElemType::I8),
];

/// One TADDRELUCONV element from the source bit patterns: the destination bits.
pub fn add_relu_conv(a: u64, b: u64, src: ElemType, dst: ElemType, cx: Cx) -> u64 {
    let relu_bits = match src {
        ElemType::F32 => {
            let s = f32::from_bits(a as u32) + f32::from_bits(b as u32);
            max_p(s, 0.0, cx.nan).to_bits() as u64
        }
        ElemType::F16 => {
            let s =
                f16::narrow(f16::from_bits(a as u16).widen() + f16::from_bits(b as u16).widen());
            f16::narrow(max_p(s.widen(), 0.0, cx.nan)).to_bits() as u64
        }
        _ => {
            let s = (a as u16 as i16).wrapping_add(b as u16 as i16);
            s.max(0) as u16 as u64
        }
    };
    convert_bits(relu_bits, src, dst, RoundMode::Rint, Saturation::On).unwrap_or(0)
}

/// One TADDDEQRELU element: the half bits of `max(0, (a + b) * scale)` by the page's sequence.
pub fn add_deq_relu(a: i32, b: i32, scale: f32, cx: Cx) -> u16 {
    let x = a.wrapping_add(b);
    let v = ((x as f32 * 2f32.powi(-17)) * scale) * 2f32.powi(17);
    let r = max_p(v, 0.0, cx.nan);
    convert_bits(
        r.to_bits() as u64,
        ElemType::F32,
        ElemType::F16,
        RoundMode::Rint,
        Saturation::On,
    )
    .unwrap_or(0) as u16
}

impl TileCore {
    fn fused_cx(&self) -> Cx {
        let p = self.policy();
        Cx {
            nan: p.nan_min_max,
            divs_by_reciprocal: p.divs_by_reciprocal,
        }
    }

    /// The shared operand checks: Vec, row-major, in memory; src0/src1 with dst's valid shape.
    fn fused_checks(
        &self,
        op: OpCode,
        dst: &Tile,
        src0: &Tile,
        src1: &Tile,
    ) -> Result<(), PtoError> {
        for (n, t) in [("dst", dst), ("src0", src0), ("src1", src1)] {
            need_loc(op, n, t, TileLoc::Vec)?;
            need_row_major(op, n, t)?;
            self.check_addr(t, op.name(), n)?;
        }
        op.check_type(self.arch(), "src0", src0.dtype())?;
        same_type(op, "src1", src1, "src0", src0)?;
        let (vr, vc) = (dst.valid_row(), dst.valid_col());
        if vr == 0 || vc == 0 {
            return Err(vr_err(
                op,
                "dst",
                "validRow and validCol must be positive",
                format!("{vr}x{vc}"),
            ));
        }
        for (n, t) in [("src0", src0), ("src1", src1)] {
            if (t.valid_row(), t.valid_col()) != (vr, vc) {
                return Err(vr_err(
                    op,
                    n,
                    "the sources' valid shapes must equal dst's",
                    format!("{}x{} for {vr}x{vc}", t.valid_row(), t.valid_col()),
                ));
            }
        }
        Ok(())
    }

    /// TADDRELUCONV: `dst = convert(max(0, src0 + src1))`.
    pub fn taddreluconv(&mut self, dst: &Tile, src0: &Tile, src1: &Tile) -> Result<(), PtoError> {
        let op = OpCode::Taddreluconv;
        self.fused_checks(op, dst, src0, src1)?;
        let (st, dt) = (src0.dtype(), dst.dtype());
        if !ADDRELUCONV_PAIRS.contains(&(st, dt)) {
            return Err(PtoError::Unsupported {
                op: op.name(),
                what: format!(
                    "the type pair {} -> {} (legal: float -> half, half -> int8, int16 -> int8)",
                    type_name(st),
                    type_name(dt)
                ),
                arch: arch_name(self.arch()),
            });
        }
        let cx = self.fused_cx();
        let (vr, vc) = (dst.valid_row(), dst.valid_col());
        let (ss, ds) = (st.size(), dt.size());
        let a = self.read_bytes(src0, (0, 0), vr, vc, ss);
        let b = self.read_bytes(src1, (0, 0), vr, vc, ss);
        let word = |v: &[u8], i: usize| {
            let mut w = [0u8; 8];
            w[..ss].copy_from_slice(&v[i * ss..(i + 1) * ss]);
            u64::from_le_bytes(w)
        };
        let mut out = Vec::with_capacity(vr * vc * ds);
        for i in 0..vr * vc {
            let bits = add_relu_conv(word(&a, i), word(&b, i), st, dt, cx);
            out.extend_from_slice(&bits.to_le_bytes()[..ds]);
        }
        self.write_bytes(dst, (0, 0), vr, vc, ds, &out);
        Ok(())
    }

    /// TADDDEQRELU: `dst = half(max(0, (src0 + src1) * deqScale))` with the int32 scratch tile.
    pub fn tadddeqrelu(
        &mut self,
        dst: &Tile,
        src0: &Tile,
        src1: &Tile,
        deq_scale: f32,
        tmp: &Tile,
    ) -> Result<(), PtoError> {
        let op = OpCode::Tadddeqrelu;
        self.fused_checks(op, dst, src0, src1)?;
        let arch = self.arch();
        super::need_type(op, arch, "dst", dst, &[ElemType::F16])?;
        need_loc(op, "tmp", tmp, TileLoc::Vec)?;
        need_row_major(op, "tmp", tmp)?;
        self.check_addr(tmp, op.name(), "tmp")?;
        super::need_type(op, arch, "tmp", tmp, &[ElemType::I32])?;
        let (vr, vc) = (dst.valid_row(), dst.valid_col());
        if tmp.rows() < vr || tmp.cols() < vc {
            return Err(PtoError::Static {
                op: op.name(),
                operand: "tmp",
                rule: "the tile must be at least as large as dst's valid region",
                value: format!("{}x{} for {vr}x{vc}", tmp.rows(), tmp.cols()),
            });
        }
        let cx = self.fused_cx();
        let a = self.read_bytes(src0, (0, 0), vr, vc, 4);
        let b = self.read_bytes(src1, (0, 0), vr, vc, 4);
        let int = |v: &[u8], i: usize| {
            i32::from_le_bytes([v[4 * i], v[4 * i + 1], v[4 * i + 2], v[4 * i + 3]])
        };
        let mut out = Vec::with_capacity(vr * vc * 2);
        let mut sums = Vec::with_capacity(vr * vc * 4);
        for i in 0..vr * vc {
            let (x, y) = (int(&a, i), int(&b, i));
            sums.extend_from_slice(&x.wrapping_add(y).to_le_bytes());
            out.extend_from_slice(&add_deq_relu(x, y, deq_scale, cx).to_le_bytes());
        }
        if arch == TileArch::A2A3 {
            let staged = tmp.with_valid(vr, vc)?;
            self.write_bytes(&staged, (0, 0), vr, vc, 4, &sums);
        }
        self.write_bytes(dst, (0, 0), vr, vc, 2, &out);
        Ok(())
    }
}
