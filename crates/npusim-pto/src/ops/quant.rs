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
//!   0, as TCVT's float-to-integer conversion defines it.
//!
//! ## MX forms (A5; `docs/isa/TQUANT.md` "MX formats", `docs/isa/TQUANT_DN.md`)
//!
//! [`TileCore::tquant_mx`]: MXFP8 (E4M3FN data, one E8M0 exponent per group of 32 elements)
//! with the OCP or the NV scale algorithm, groups along the columns (ND, `grp_axis = 1`) or
//! the rows (DN, `grp_axis = 0`). Per group ([`mx_group`]):
//! 1. `m` = the largest `|x|` of the group in f32 (a NaN element makes `m` NaN under the
//!    hardware profiles' [`npusim_core::NanMinMaxPolicy::Propagate`]; `CppStd` skips it as the
//!    pto-isa CPU simulator's `std::max` does);
//! 2. the exponent from `m`'s bits, no arithmetic: OCP `e = max(biasedExp(m) - 8, 0)`
//!    (`emax` of E4M3 is 8), NV `e = biasedExp(m / 448)` rounded up when its fraction is not
//!    zero (`m = 0` gives 0, an infinite quotient 0xFE); a NaN `m` gives 0xFF. The scaling is
//!    the f32 with biased exponent `254 - e` (that is `2^(127 - e)`; a zero field becomes
//!    `2^-127`, and NV's 0xFE also gives `2^-127`); for 0xFF it is `m` itself (NaN);
//! 3. `q = E4M3FN(f32(x) * scaling)`, round to nearest even with saturation to ±448 (±inf to
//!    ±448, NaN stays NaN with its sign, zeros keep their sign).
//!
//! Decisions where the sources differ (the page is the spec, the CPU simulator a reading of
//! it): the page says stage 3 uses the hardware cast "with stochastic rounding"; stochastic
//! rounding is not reproducible from the page, so npusim rounds to nearest even (what the
//! CPU simulator and `ml_dtypes` do). The CPU simulator's E4M3 encoder loses the sign of a
//! zero result under OCP and writes every NaN as 0x7F; npusim keeps the sign (the TCVT
//! conversion of `npusim_core::f8`, as `ml_dtypes` does). The `max` and `scaling` scratch
//! tiles receive each group's `m` and scaling converted to the source type (round to
//! nearest even), as the CPU simulator writes them. Each group's 32 elements must lie in the
//! valid region (ND: valid columns a multiple of 32; DN: valid rows a multiple of 32): the
//! page's zero padding of a b16 tail to the static columns is not modelled, so a tail group
//! is a typed error.
//!
//! ### MXFP4 (`OcpMxFp4E2M1`, `NvMxFp4E2M1`)
//!
//! The page restricts MXFP4 to f16/bf16 sources; dst is `float4_e2m1x2_t` (npusim counts its
//! columns in packed pairs, first code in the low nibble, so dst's valid shape is
//! `rows x cols/2`). Stage 1: NV takes the f32 max of `|x|`, OCP the max of the magnitudes
//! truncated to bf16 (the A5 path reduces bf16 bit patterns, the CPU simulator truncates);
//! a NaN always makes the max NaN (both sources). Stage 2: `emax` is 2 for E2M1 (6 = 1.5 *
//! 2^2; the A5 header's `kFp4E2M1MaxExp` and the CPU simulator; the page's table says 1,
//! which contradicts its own `V_max = 6`), NV divides by 6. Stage 3 ([`e2m1_code`]): `x *
//! scaling` in f32 (for a bf16 source rounded to bf16, as the CPU simulator does), then the
//! nearest E2M1 code, ties to even, saturating to ±6; a NaN product or a NaN scaling gives
//! code 0x7. Where the A5 header differs from the CPU simulator in the rounding of an f16
//! magnitude to bf16 for the OCP max (a hardware conversion the page does not name), npusim
//! follows the CPU simulator.
//!
//! ### Exponent orders
//!
//! - [`MxAxis::DnInterleave`] (TQUANT_DN.md `interleave = true`): the DN exponents of row
//!   groups `2p` and `2p + 1` side by side, `exp(p, 2c + d) = E_DN(2p + d, c)`; the exp tile
//!   is `rows/64 x 2*cols` and the valid rows a multiple of 64 (the page's alignment rule).
//!   max and scaling keep the DN shape.
//! - The ZZ store mode ([`TileCore::tquant_mx_zz`], the ND MXFP8 overload with `exp_zz`):
//!   the ND form, then a second exponent tile in the ZZ box order ([`zz_order`]); valid rows
//!   a multiple of 16 and valid cols of 64 (the page's "ND MX + ZZ" constraints). Only the
//!   CPU simulator implements it; its overload has no scale-algorithm parameter (OCP).

use crate::core::TileCore;
use crate::error::PtoError;
use crate::table::OpCode;
use crate::tile::{Tile, TileLoc};
use npusim_core::convert::{RoundMode, Saturation, convert_bits};
use npusim_core::{ElemType, RowParamRule};

use super::{need_loc, need_row_major, need_type, vr_err};
use npusim_core::f8::{F8Format, pack_pair};
use npusim_core::{NanMinMaxPolicy, TileArch};

/// Which INT8 quantisation TQUANT performs (`#pto<quant_type ...>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum QuantKind {
    /// `INT8_SYM`: `i8 = sat(round(x * scale))`.
    Int8Sym,
    /// `INT8_ASYM`: `u8 = sat(round(x * scale + offset))`.
    Int8Asym,
}

/// The MX format and scale algorithm (`MxQuantAlg` of the pages).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MxQuantAlg {
    /// `OcpMxFp8E4M3`: `e = biasedExp(max) - 8`.
    OcpMxFp8E4M3,
    /// `NvMxFp8E4M3`: `e = ceil(log2(max / 448))` from the quotient's bits.
    NvMxFp8E4M3,
    /// `OcpMxFp4E2M1`: `e = biasedExp(bf16(max)) - 2`; packed E2M1 data.
    OcpMxFp4E2M1,
    /// `NvMxFp4E2M1`: `e = ceil(log2(max / 6))` from the quotient's bits; packed E2M1 data.
    NvMxFp4E2M1,
}

impl MxQuantAlg {
    /// The MXFP4 (packed E2M1) forms.
    pub fn is_fp4(self) -> bool {
        matches!(self, MxQuantAlg::OcpMxFp4E2M1 | MxQuantAlg::NvMxFp4E2M1)
    }
    /// The NV scale algorithm.
    pub fn is_nv(self) -> bool {
        matches!(self, MxQuantAlg::NvMxFp8E4M3 | MxQuantAlg::NvMxFp4E2M1)
    }
}

/// The MX group axis (`grp_axis`) and exponent order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MxAxis {
    /// `grp_axis = 0`: groups of 32 rows (TQUANT_DN); exponent tile `rows/32 x cols`.
    Dn,
    /// `grp_axis = 1`: groups of 32 columns; exponent tile `rows x cols/32`.
    Nd,
    /// `grp_axis = 0` with `interleave = true` (TQUANT_DN.md): the DN groups, the exponent
    /// tile `rows/64 x 2*cols` holding row-group pairs side by side,
    /// `exp(p, 2c + d) = E_DN(2p + d, c)`; valid rows a multiple of 64.
    DnInterleave,
}

/// One MX group's exponent (E8M0 code) and scaling from its largest magnitude `m` (stage 2
/// of the module docs).
pub fn mx_group(alg: MxQuantAlg, m: f32) -> (u8, f32) {
    let bits = m.to_bits();
    let (exp, frac) = ((bits >> 23) & 0xff, bits & 0x7f_ffff);
    if exp == 0xff && frac != 0 {
        return (0xff, m);
    }
    let e = if alg.is_nv() {
        if m == 0.0 {
            0
        } else {
            let descale = if alg.is_fp4() {
                1.0f32 / 6.0
            } else {
                1.0f32 / 448.0
            };
            let d = (m * descale).to_bits();
            let (de, df) = ((d >> 23) & 0xff, d & 0x7f_ffff);
            if de == 0xff {
                if df == 0 { 0xfe } else { 0xff }
            } else {
                let up = df > 0 && de != 0xfe && !(de == 0 && df <= 0x40_0000);
                de + u32::from(up)
            }
        }
    } else {
        // emax of the element format: 8 for E4M3 (448 = 1.75 * 2^8), 2 for E2M1 (6 = 1.5 * 2^2).
        exp.saturating_sub(if alg.is_fp4() { 2 } else { 8 })
    };
    if e == 0xff {
        return (0xff, m);
    }
    let scaling = if alg.is_nv() && e == 0xfe {
        f32::from_bits(1 << 22)
    } else {
        let v = f32::from_bits((254 - e) << 23);
        if v == 0.0 { f32::from_bits(1 << 22) } else { v }
    };
    (e as u8, scaling)
}

/// The E2M1 code (low nibble) of a scaled MXFP4 value (stage 3): round to nearest even,
/// saturating at ±6 (±inf too), zeros and underflows keep their sign; a NaN gives 0x7 (+6),
/// as the A5 path (`CalcE2M1SignedCodeI32`: the magnitude code without its sign) and the CPU
/// simulator write it.
pub fn e2m1_code(v: f32) -> u8 {
    if v.is_nan() {
        return 0x07;
    }
    F8Format::E2M1.from_f32(v, Saturation::On) & 0x0f
}

/// The ZZ exponent order of the MXFP8 ND store mode: 16-row by 2-group boxes, box by box
/// (row blocks outer, group pairs inner), each box row by row. `exp` is the `rows x groups`
/// row-major exponent tile; rows a multiple of 16, groups of 2.
pub fn zz_order(exp: &[u8], rows: usize, groups: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(rows * groups);
    for rb in 0..rows / 16 {
        for gb in 0..groups / 2 {
            for ir in 0..16 {
                for ig in 0..2 {
                    out.push(exp[(rb * 16 + ir) * groups + gb * 2 + ig]);
                }
            }
        }
    }
    out
}

impl TileCore {
    /// TQUANT's MX forms (`dst, src, exp, max, scaling`; A5): see the module docs.
    #[allow(clippy::too_many_arguments)]
    pub fn tquant_mx(
        &mut self,
        dst: &Tile,
        src: &Tile,
        exp: &Tile,
        max: &Tile,
        scaling: &Tile,
        axis: MxAxis,
        alg: MxQuantAlg,
    ) -> Result<(), PtoError> {
        let op = OpCode::Tquant;
        let arch = self.arch();
        if arch != TileArch::A5 {
            return Err(PtoError::Static {
                op: op.name(),
                operand: "dst",
                rule: "the MX forms are A5 only",
                value: format!("{arch:?}"),
            });
        }
        for (n, t) in [("dst", dst), ("src", src)] {
            self.quant_operand(op, n, t)?;
            need_row_major(op, n, t)?;
        }
        let (vr, vc) = (src.valid_row(), src.valid_col());
        let st = src.dtype();
        let fp4 = alg.is_fp4();
        if fp4 {
            need_type(op, arch, "src", src, &[ElemType::F16, ElemType::Bf16])?;
            need_type(op, arch, "dst", dst, &[ElemType::F4E2M1X2])?;
            if vc % 2 != 0 || (dst.valid_row(), dst.valid_col()) != (vr, vc / 2) {
                return Err(vr_err(
                    op,
                    "dst",
                    "an MXFP4 dst holds the src's valid shape in packed pairs (valid cols / 2, src valid cols even)",
                    format!("{}x{} for src {vr}x{vc}", dst.valid_row(), dst.valid_col()),
                ));
            }
        } else {
            need_type(
                op,
                arch,
                "src",
                src,
                &[ElemType::F32, ElemType::F16, ElemType::Bf16],
            )?;
            need_type(op, arch, "dst", dst, &[ElemType::F8E4M3FN, ElemType::I8])?;
            if (dst.valid_row(), dst.valid_col()) != (vr, vc) {
                return Err(vr_err(
                    op,
                    "src",
                    "src and dst must share the valid shape",
                    format!("{vr}x{vc} vs {}x{}", dst.valid_row(), dst.valid_col()),
                ));
            }
        }
        let (gr, gc) = match axis {
            MxAxis::Nd if vc % 32 != 0 => {
                return Err(vr_err(
                    op,
                    "src",
                    "ND MX groups need valid cols that are a multiple of 32",
                    format!("{vr}x{vc}"),
                ));
            }
            MxAxis::Dn if vr % 32 != 0 => {
                return Err(vr_err(
                    op,
                    "src",
                    "DN MX groups need valid rows that are a multiple of 32",
                    format!("{vr}x{vc}"),
                ));
            }
            MxAxis::DnInterleave if vr % 64 != 0 => {
                return Err(vr_err(
                    op,
                    "src",
                    "the DN interleaved exponent order needs valid rows that are a multiple of 64",
                    format!("{vr}x{vc}"),
                ));
            }
            MxAxis::Nd => (vr, vc / 32),
            MxAxis::Dn | MxAxis::DnInterleave => (vr / 32, vc),
        };
        let exp_shape = match axis {
            MxAxis::DnInterleave => (gr / 2, 2 * gc),
            _ => (gr, gc),
        };
        for (n, t) in [("exp", exp), ("max", max), ("scaling", scaling)] {
            self.quant_operand(op, n, t)?;
            need_row_major(op, n, t)?;
            let want = if n == "exp" { exp_shape } else { (gr, gc) };
            if (t.valid_row(), t.valid_col()) != want {
                return Err(vr_err(
                    op,
                    n,
                    "the per-group tiles have one element per group (ND rows x cols/32, DN rows/32 x cols; an interleaved DN exp rows/64 x 2*cols)",
                    format!(
                        "{}x{} for {}x{}",
                        t.valid_row(),
                        t.valid_col(),
                        want.0,
                        want.1
                    ),
                ));
            }
        }
        need_type(op, arch, "exp", exp, &[ElemType::U8, ElemType::F8E8M0])?;
        need_type(op, arch, "max", max, &[st])?;
        need_type(op, arch, "scaling", scaling, &[st])?;
        let size = st.size();
        let raw = self.read_bytes(src, (0, 0), vr, vc, size);
        let to_f32 = |e: &[u8]| -> f32 {
            match size {
                4 => f32::from_le_bytes([e[0], e[1], e[2], e[3]]),
                _ => {
                    let b = u16::from_le_bytes([e[0], e[1]]) as u64;
                    let f = convert_bits(b, st, ElemType::F32, RoundMode::Rint, Saturation::Off)
                        .unwrap_or(0);
                    f32::from_bits(f as u32)
                }
            }
        };
        let xs: Vec<f32> = raw.chunks_exact(size).map(to_f32).collect();
        // MXFP4 propagates a NaN into the group max on every path (the A5 bf16 bit max and
        // the CPU simulator's early return); MXFP8 follows the NaN policy.
        let propagate = fp4 || self.policy().nan_min_max != NanMinMaxPolicy::CppStd;
        let narrow = |v: f32, to: ElemType| {
            convert_bits(
                v.to_bits() as u64,
                ElemType::F32,
                to,
                RoundMode::Rint,
                Saturation::Off,
            )
            .unwrap_or(0)
        };
        let mut q = vec![0u8; vr * vc];
        let (mut es, mut ms, mut ss) = (Vec::new(), Vec::new(), Vec::new());
        for g in 0..gr * gc {
            let (r0, c0) = (g / gc, g % gc);
            let at = |i: usize| match axis {
                MxAxis::Nd => r0 * vc + c0 * 32 + i,
                MxAxis::Dn | MxAxis::DnInterleave => (r0 * 32 + i) * vc + c0,
            };
            let mut m = 0f32;
            for i in 0..32 {
                let mut a = xs[at(i)].abs();
                if alg == MxQuantAlg::OcpMxFp4E2M1 && !a.is_nan() {
                    // OCP MXFP4 takes the max over bf16 magnitudes (truncated).
                    a = f32::from_bits(a.to_bits() & 0xffff_0000);
                }
                if a.is_nan() {
                    if propagate {
                        m = a;
                        break;
                    }
                } else if a > m {
                    m = a;
                }
            }
            let (e, s) = mx_group(alg, m);
            for i in 0..32 {
                let k = at(i);
                q[k] = if !fp4 {
                    F8Format::E4M3FN.from_f32(xs[k] * s, Saturation::On)
                } else if s.is_nan() {
                    0x07
                } else {
                    let mut v = xs[k] * s;
                    if st == ElemType::Bf16 {
                        // A bf16 source's product is a bf16 (rounded to nearest even).
                        let b = narrow(v, ElemType::Bf16);
                        v = f32::from_bits((b as u32) << 16);
                    }
                    e2m1_code(v)
                };
            }
            es.push(e);
            ms.extend_from_slice(&narrow(m, st).to_le_bytes()[..size]);
            ss.extend_from_slice(&narrow(s, st).to_le_bytes()[..size]);
        }
        if fp4 {
            let packed: Vec<u8> = q.chunks_exact(2).map(|p| pack_pair(p[0], p[1])).collect();
            self.write_bytes(dst, (0, 0), vr, vc / 2, 1, &packed);
        } else {
            self.write_bytes(dst, (0, 0), vr, vc, 1, &q);
        }
        if axis == MxAxis::DnInterleave {
            let mut il = vec![0u8; gr * gc];
            for (g, &e) in es.iter().enumerate() {
                let (r, c) = (g / gc, g % gc);
                il[(r / 2) * 2 * gc + 2 * c + r % 2] = e;
            }
            es = il;
        }
        self.write_bytes(exp, (0, 0), exp_shape.0, exp_shape.1, 1, &es);
        self.write_bytes(max, (0, 0), gr, gc, size, &ms);
        self.write_bytes(scaling, (0, 0), gr, gc, size, &ss);
        Ok(())
    }

    /// TQUANT's MXFP8 ND form with the ZZ exponent store mode (`TQUANT<MXFP8, NZ>`: `dst,
    /// src, exp, max, scaling, exp_zz`; A5, OCP scale): the ND form, then `exp_zz` receives
    /// the exponents in [`zz_order`] (row-major over its valid region, which holds one
    /// element per group). Valid rows a multiple of 16, valid cols of 64.
    #[allow(clippy::too_many_arguments)]
    pub fn tquant_mx_zz(
        &mut self,
        dst: &Tile,
        src: &Tile,
        exp: &Tile,
        max: &Tile,
        scaling: &Tile,
        exp_zz: &Tile,
    ) -> Result<(), PtoError> {
        let op = OpCode::Tquant;
        let (vr, vc) = (src.valid_row(), src.valid_col());
        if vr % 16 != 0 || vc % 64 != 0 {
            return Err(vr_err(
                op,
                "src",
                "the ZZ exponent store mode needs valid rows a multiple of 16 and valid cols a multiple of 64",
                format!("{vr}x{vc}"),
            ));
        }
        self.quant_operand(op, "exp_zz", exp_zz)?;
        need_row_major(op, "exp_zz", exp_zz)?;
        need_type(
            op,
            self.arch(),
            "exp_zz",
            exp_zz,
            &[ElemType::U8, ElemType::F8E8M0],
        )?;
        let groups = vc / 32;
        let (zr, zc) = (exp_zz.valid_row(), exp_zz.valid_col());
        if zr * zc != vr * groups {
            return Err(vr_err(
                op,
                "exp_zz",
                "the ZZ exponent tile holds one element per group",
                format!("{zr}x{zc} for {} groups", vr * groups),
            ));
        }
        self.tquant_mx(
            dst,
            src,
            exp,
            max,
            scaling,
            MxAxis::Nd,
            MxQuantAlg::OcpMxFp8E4M3,
        )?;
        let es = self.read_bytes(exp, (0, 0), vr, groups, 1);
        let zz = zz_order(&es, vr, groups);
        self.write_bytes(exp_zz, (0, 0), zr, zc, 1, &zz);
        Ok(())
    }

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
