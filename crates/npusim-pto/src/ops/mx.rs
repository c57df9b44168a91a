//! The A5 microscaling (MX) cube forms: TMATMUL_MX, TMATMUL_MX_ACC, TMATMUL_MX_BIAS, TGEMV_MX,
//! TGEMV_MX_ACC, TGEMV_MX_BIAS, and TGET_SCALE_ADDR.
//!
//! Implements pto-isa `docs/isa/TMATMUL_MX.md`, `docs/isa/TGEMV_MX.md` and
//! `docs/isa/TGET_SCALE_ADDR.md`, with the MX model of `docs/isa/cube/ops/mad/mad-mx.md` (K in
//! groups of 32 elements, one scale per group and row of A, per group and column of B):
//!
//! `C[i, j] = seed[i, j] + Σ_k (A[i, k] · 2^(sa[i, k/32] - 127)) · (B[k, j] · 2^(sb[k/32, j] - 127))`
//!
//! over `M = A.validRow`, `K = A.validCol`, `N = B.validCol`; the seed is 0, the old
//! accumulator (`_ACC`, `c_in`) or the bias row (`_BIAS`). The scales are E8M0 codes
//! (`float8_e8m0_t`); code `0xff` is NaN (OCP MX), the others `2^(code - 127)`.
//!
//! Checked, each a typed error:
//! - A5 only (every MX form is an A5 instruction; A2A3 has no scale buffers);
//! - the `(C, A, B)` triple: C float, and A and B either each `float8_e4m3_t` (E4M3FN) or
//!   `float8_e5m2_t` (E5M2), or each `float4_e2m1x2_t` or `float4_e1m2x2_t` (the page's four
//!   FP4 triples; see "FP4 inputs" below). fp8 with fp4, and the unpacked `float4_e2m1fn`, are
//!   refused;
//! - A's declared Cols a multiple of 64 values (`CheckMadMxValid`'s BASEK: the cube consumes
//!   K in 64-value steps, two scale groups; for fp4, 32 bytes of pairs);
//! - roles and fractals as TMATMUL on A5 (A Left Nz, B Right Zn, C Acc Nz); `m`, `k`, `n` in
//!   `[1, 4095]` (`k` in values: for fp4 twice A's valid byte columns); B's valid rows = A's
//!   valid columns; C's valid region `M x N`; TGEMV_MX: `m = 1`;
//! - the scale tiles: A's in `ScaleLeft` and B's in `ScaleRight` (pto-isa's `TileLeftScale` /
//!   `TileRightScale` locations: the A5 L0A_MX / L0B_MX buffers, 4 KiB each), or either in
//!   `Scaling` (PTOAS's only address space for them, `loc=scaling`; see "Where the scales
//!   live" below), element type
//!   `float8_e8m0_t`, pto-isa's `TileLeftScale` layout for A's scales (outer row-major, inner
//!   row-major, 32-byte MX boxes of 16 x 2: [`crate::tile::MX_FRACTAL`]) and `TileRightScale`'s
//!   for B's (outer col-major, inner col-major, boxes of 2 x 16); their valid regions cover
//!   `M x ceil(K/32)` and `ceil(K/32) x N`;
//! - the bias (`_BIAS`): a float `Bias` tile of one row covering N; `c_in` (`_ACC`): a float Acc
//!   tile with C's valid region; every tile's address inside its memory.
//!
//! ## Numeric policy (`MxScaling`)
//!
//! Scaling is a power of two, so it is exact except where it leaves f32's range. The order
//! follows [`npusim_core::MatmulOrder`] of the tile policy:
//! - **`FractalKBlocks` (hardware profiles).** The accumulator starts from the seed. For each
//!   32-element K group `g` in K order, the group's dot product `Σ_{k in g} A[i,k]·B[k,j]` is
//!   formed exactly (fp8 products are exact and the cube's group adder is treated as exact),
//!   multiplied by `2^(sa - 127 + sb - 127)` and rounded once to f32 (nearest even, overflow
//!   to ±inf, gradual underflow); the accumulator then adds it with one f32 rounding. The
//!   fractal K-block of a 1-byte type is 32 elements, so group and K-block coincide (OCP MX's
//!   `X_A · X_B · Σ P_i Q_i` per block). NaN inputs, `0 · inf`, `+inf + -inf` in a group, or a
//!   NaN (`0xff`) scale make that group NaN; an infinite product makes it ±inf. An exact zero
//!   group is -0 only when every product in it is -0.
//! - **`AccAfterK` (`pto_cpu_sim`).** As pto-isa's CPU simulator (`TMatmulMX`): one f32
//!   accumulator from 0 over all of K, each step `acc = f32(f64(acc) + a·b·2^(ea)·2^(eb))` with
//!   the product formed in f64 (exact), then the old value or the bias added once in f32. The
//!   element decoding stays OCP (E4M3FN `0x7f`/`0xff` NaN, E5M2 inf/NaN, E8M0 `0xff` NaN),
//!   where the CPU simulator's decoder has no special codes (it reads E8M0 `0xff` as 2^128 and
//!   the f8 all-ones exponents as normal numbers): inputs with those codes differ from it.
//!
//! ## FP4 inputs (`float4_e2m1x2_t`, `float4_e1m2x2_t`)
//!
//! A packed element is one byte holding two 4-bit codes ([`ElemType::F4E2M1X2`],
//! [`ElemType::F4E1M2X2`]). npusim's tiles count bytes, so a packed A (`M x K`) is a Left Nz
//! tile of `M x K/2` bytes whose byte `(i, c)` holds `A[i, 2c]` in its low nibble and
//! `A[i, 2c + 1]` in its high nibble, and a packed B (`K x N`) a Right Zn tile of `K/2 x N`
//! bytes whose byte `(r, j)` holds `B[2r, j]` (low) and `B[2r + 1, j]` (high): the pairs run
//! along K in both (pto-isa's mxfp4 kernel loads A from an ND and B from a DN tensor, K
//! contiguous in both). K counts values, as pto-isa does (`K = 2 x` A's valid byte columns,
//! a multiple of 64 values in A's declared shape, scale groups of 32 values = 16 bytes).
//! The boxes are the 1-byte ones (Nz 16 rows x 32 bytes = 64 values, Zn 32 bytes x 16
//! columns), the NPU's (`a5/TExtract.hpp`: `c0Size = 32 * KHALF / sizeof(T)` = 64 values per
//! 32-byte block row).
//!
//! Nibble order (decision): the first value of a pair (even K) is in the low nibble, as
//! npusim's TCVT packing ([`super::fp4`]), as pto-isa's A5 mxfp4 kernel packs its GM inputs
//! (`kernels/manual/a5/matmul_mxfp4_performance/scripts/gen_data.py`, `pack_two_fp4`: element
//! `2k` of each row of A and of Bᵀ low, `2k + 1` high; GM -> L1 -> L0 moves bytes), and as the
//! CPU simulator's packed element access (`MXTypes.hpp` `GetProperDataPart`: element offset
//! `o` is nibble `o % 2` of byte `o / 2`, low first, used by `Tile::GetElement`); the NPU's L0
//! load builtins (`load_cbuf_to_ca_s4`) document none. E2M1 and E1M2 have no inf or NaN (every code is a
//! number: E2M1 up to ±6, E1M2 up to ±1.75), so only a `0xff` scale makes a group NaN.
//!
//! The CPU simulator stores the pairs packed too (`Tile::GetSizeInUnits` = `Numel / 2`) but
//! its fp4 box is `32 / sizeof(T)` = 32 values wide (16 bytes), where the NPU's is 64
//! values: the byte layout of a boxed fp4 tile differs between the two, which shows only in
//! programs that alias fp4 tile bytes or move NZ-format fp4 tensors; ND/DN loads, moves and
//! the product give the same values. npusim keeps the NPU's geometry under every policy (no
//! `pto_cpu_sim` variant; see `docs/pto-cube-audit.md` §7).
//!
//! Where the scales come from: on the hardware the cube reads the MX payload associated with
//! A's and B's L0 addresses (`mad_mx` has no scale operands; `TGET_SCALE_ADDR` binds a scale
//! tile to `address >> SHIFT_MX_ADDR`). This model reads the scale tiles given as operands,
//! as the CPU simulator does.
//!
//! ## Where the scales live (session 17)
//!
//! pto-isa has two scale memories (`buffer_limits.hpp`: `PTO_SCALELEFT_SIZE_BYTES` and
//! `PTO_SCALERIGHT_SIZE_BYTES`, 4 KiB on A5, 0 on A2A3); its CPU simulator has them too
//! (`NPUMemoryModel.hpp`: `L0A_MX` and `L0B_MX`, 4 KiB each, a `ScaleLeft` / `ScaleRight`
//! tile's pointer resolved there), so no policy separates the two targets. npusim models them
//! as [`TileLoc::ScaleLeft`] / [`TileLoc::ScaleRight`] (declared on A5 only, in
//! `TileLeftScale`'s Zz / `TileRightScale`'s Nn layout, fractal 32, 32-byte aligned), filled
//! by TMOV / TEXTRACT from Mat (`TileCore::check_scale_move`) and bound by TGET_SCALE_ADDR
//! (Left -> ScaleLeft, Right -> ScaleRight: L0A's 64 KiB shifted right by 4 is L0A_MX's 4 KiB).
//! `Scaling` stays accepted for the scale operands: PTOAS's dialect has no other address space
//! for them (its verifier, `verifyScaleTileMatchesOperand`, requires `scaling`), so a PTO-AS
//! kernel keeps its scales in the Scaling memory (FB, 4 KiB on A5), both A's and B's in the
//! one memory where the hardware has two. npusim's PTO-AS also accepts its own spellings
//! `loc=scale_left` / `loc=scale_right` for the pto-isa locations.
//!
//! The CPU simulator's TGET_SCALE_ADDR differs (noted, not a policy): it copies `src`'s
//! pointer into `dst` (`cpu/TGetScaleAddr.hpp`) instead of shifting an address, so there the
//! scale tile aliases the data tile's own L0A/L0B bytes; its manual form (`TASSIGN(scaleA,
//! GetScaleAddr(a.data()))`, `NPUMemoryModel.hpp`) shifts by 4 as the NPU does. npusim
//! follows the NPU and the manual form.

use super::cube::Seed;
use super::vr_err;
use crate::core::TileCore;
use crate::error::PtoError;
use crate::table::{OpCode, arch_name};
use crate::tile::{BLayout, MX_FRACTAL, SLayout, Tile, TileLoc};
use npusim_core::convert::{Exact, FloatFormat, RoundMode, Saturation, round_to_format};
use npusim_core::f8::{F8Format, unpack_pair};
use npusim_core::{ElemType, MatmulOrder, TileArch};

/// Elements of K that share one scale.
pub const MX_GROUP: usize = 32;
/// A's declared columns must be a multiple of this (`CheckMadMxValid`'s BASEK).
pub const MX_BASE_K: usize = 64;
/// `SHIFT_MX_ADDR` of pto-isa `include/pto/npu/a5/utils.hpp` (and of the CPU simulator's
/// `GetScaleAddr`): a scale tile sits at its data tile's address shifted right by 4. (The
/// `get-scale-addr` page says "currently 2"; the code of both targets says 4.)
pub const SHIFT_MX_ADDR: u32 = 4;

/// TMATMUL_MX and its variants.
pub fn is_mx(op: OpCode) -> bool {
    matches!(
        op,
        OpCode::TmatmulMx
            | OpCode::TmatmulMxAcc
            | OpCode::TmatmulMxBias
            | OpCode::TgemvMx
            | OpCode::TgemvMxAcc
            | OpCode::TgemvMxBias
    )
}

fn is_gemv_mx(op: OpCode) -> bool {
    matches!(
        op,
        OpCode::TgemvMx | OpCode::TgemvMxAcc | OpCode::TgemvMxBias
    )
}

/// The element types A and B may have (each; all four pairs are legal).
pub const MX_INPUTS: &[ElemType] = &[ElemType::F8E4M3FN, ElemType::F8E5M2];
/// The packed FP4 element types A and B may have instead (each; all four pairs are legal).
pub const MX_FP4_INPUTS: &[ElemType] = &[ElemType::F4E2M1X2, ElemType::F4E1M2X2];

/// Unpacks a packed fp4 A (`m x kb` bytes, row-major) into `m x 2kb` codes: byte `(i, c)`
/// gives `A[i, 2c]` (low nibble) and `A[i, 2c + 1]` (high nibble).
pub fn unpack_fp4_rows(bytes: &[u8], m: usize, kb: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(m * kb * 2);
    for &b in &bytes[..m * kb] {
        out.extend_from_slice(&unpack_pair(b));
    }
    out
}

/// Unpacks a packed fp4 B (`kb x n` bytes, row-major) into `2kb x n` codes: byte `(r, j)`
/// gives `B[2r, j]` (low nibble) and `B[2r + 1, j]` (high nibble).
pub fn unpack_fp4_cols(bytes: &[u8], kb: usize, n: usize) -> Vec<u8> {
    let mut out = vec![0u8; 2 * kb * n];
    for r in 0..kb {
        for j in 0..n {
            let [lo, hi] = unpack_pair(bytes[r * n + j]);
            out[2 * r * n + j] = lo;
            out[(2 * r + 1) * n + j] = hi;
        }
    }
    out
}

/// The MX operands besides C and the seed.
#[derive(Clone, Copy, Debug)]
pub struct MxOperands<'a> {
    pub a: &'a Tile,
    pub a_scale: &'a Tile,
    pub b: &'a Tile,
    pub b_scale: &'a Tile,
}

fn st(op: OpCode, operand: &'static str, rule: &'static str, value: String) -> PtoError {
    PtoError::Static {
        op: op.name(),
        operand,
        rule,
        value,
    }
}

/// One element of A or B: its value as an exact fixed-point integer (units of 2^-16, which
/// every finite E4M3FN and E5M2 value is a whole multiple of), or a special.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Fx {
    Finite { v: i64, neg_zero: bool },
    Special(f64),
}

/// LSB of [`Fx::Finite`]: 2^-16 (the smallest E5M2 subnormal; E4M3FN's is 2^-9).
const FX_EXP: i32 = -16;

fn decode(fmt: F8Format, code: u8) -> Fx {
    let v = fmt.to_f32(code);
    if !v.is_finite() {
        return Fx::Special(v as f64);
    }
    match Exact::from_float_bits(v.to_bits() as u64, FloatFormat::F32) {
        Exact::Finite { neg, mant, exp } => {
            // A nonzero fp8 value has exp >= -16 - 23 (units of 2^-16 lose no bits).
            let sh = exp - FX_EXP;
            let m = if mant == 0 {
                0
            } else if sh >= 0 {
                (mant as i64) << sh
            } else {
                (mant >> (-sh)) as i64
            };
            Fx::Finite {
                v: if neg { -m } else { m },
                neg_zero: neg && mant == 0,
            }
        }
        _ => Fx::Special(v as f64),
    }
}

/// The 256-entry decoding table of a format.
fn table(fmt: F8Format) -> Vec<Fx> {
    (0..=255u8).map(|c| decode(fmt, c)).collect()
}

/// A scale code's exponent (`code - 127`), `None` for the NaN code `0xff`.
fn scale_exp(code: u8) -> Option<i32> {
    (code != 0xff).then_some(code as i32 - 127)
}

/// `Σ p · 2^(2·FX_EXP + e)` rounded once to f32, nearest even: `s` is an exact i128 sum of
/// products in units of 2^-32. Mantissas above 63 bits keep a sticky bit, which leaves a
/// round-to-nearest result to 24 bits unchanged.
fn round_sum(s: i128, e: i32, neg_zero: bool) -> f32 {
    if s == 0 {
        return if neg_zero { -0.0 } else { 0.0 };
    }
    let neg = s < 0;
    let mut mag = s.unsigned_abs();
    let mut exp = 2 * FX_EXP + e;
    let bits = 128 - mag.leading_zeros() as i32;
    if bits > 63 {
        let sh = bits - 63;
        let sticky = mag & ((1u128 << sh) - 1) != 0;
        mag = (mag >> sh) | sticky as u128;
        exp += sh;
    }
    let x = Exact::Finite {
        neg,
        mant: mag as u64,
        exp,
    };
    f32::from_bits(round_to_format(x, FloatFormat::F32, RoundMode::Rint, Saturation::Off) as u32)
}

/// The shapes and policy of one MX product.
#[derive(Clone, Copy, Debug)]
pub struct MxShape {
    pub m: usize,
    pub k: usize,
    pub n: usize,
    pub order: MatmulOrder,
    /// Whether `out` holds a seed (old accumulator or bias) rather than zeros.
    pub seeded: bool,
}

/// The MX product on raw codes, row-major: `a` is `m x k` codes of `fa`, `b` `k x n` codes of
/// `fb`, `sa` `m x ceil(k/32)` and `sb` `ceil(k/32) x n` E8M0 codes; `out` (`m x n`) holds the
/// seed (zeros when there is none) and receives C. The [`MxScaling`](self) policy.
#[allow(clippy::too_many_arguments)]
pub fn matmul_mx_codes(
    fa: F8Format,
    a: &[u8],
    fb: F8Format,
    b: &[u8],
    sa: &[u8],
    sb: &[u8],
    out: &mut [f32],
    s: MxShape,
) {
    let MxShape { m, k, n, .. } = s;
    let groups = k.div_ceil(MX_GROUP);
    let (ta, tb) = (table(fa), table(fb));
    let ad: Vec<Fx> = a.iter().map(|&c| ta[c as usize]).collect();
    // B transposed (column j's K run contiguous).
    let mut bd = vec![
        Fx::Finite {
            v: 0,
            neg_zero: false
        };
        k * n
    ];
    for kk in 0..k {
        for j in 0..n {
            bd[j * k + kk] = tb[b[kk * n + j] as usize];
        }
    }
    let fa_f = |c: &Fx| match *c {
        Fx::Finite { v, neg_zero } => {
            if neg_zero {
                -0.0
            } else {
                v as f64 * (FX_EXP as f64).exp2()
            }
        }
        Fx::Special(x) => x,
    };
    match s.order {
        MatmulOrder::FractalKBlocks => {
            for i in 0..m {
                let arow = &ad[i * k..(i + 1) * k];
                for j in 0..n {
                    let bcol = &bd[j * k..(j + 1) * k];
                    let mut c = out[i * n + j];
                    for g in 0..groups {
                        let (k0, k1) = (g * MX_GROUP, ((g + 1) * MX_GROUP).min(k));
                        let ea = scale_exp(sa[i * groups + g]);
                        let eb = scale_exp(sb[g * n + j]);
                        let gv = match (ea, eb) {
                            (Some(ea), Some(eb)) => {
                                group(&arow[k0..k1], &bcol[k0..k1], ea + eb, &fa_f)
                            }
                            _ => f32::NAN,
                        };
                        c += gv;
                    }
                    out[i * n + j] = c;
                }
            }
        }
        MatmulOrder::AccAfterK => {
            for i in 0..m {
                let arow = &ad[i * k..(i + 1) * k];
                for j in 0..n {
                    let bcol = &bd[j * k..(j + 1) * k];
                    let mut acc = 0f32;
                    for kk in 0..k {
                        let g = kk / MX_GROUP;
                        let scale = match (scale_exp(sa[i * groups + g]), scale_exp(sb[g * n + j]))
                        {
                            (Some(ea), Some(eb)) => (ea as f64).exp2() * (eb as f64).exp2(),
                            _ => f64::NAN,
                        };
                        let t = fa_f(&arow[kk]) * fa_f(&bcol[kk]) * scale;
                        acc = (acc as f64 + t) as f32;
                    }
                    let o = &mut out[i * n + j];
                    *o = if s.seeded { *o + acc } else { acc };
                }
            }
        }
    }
}

/// One group's scaled dot product, rounded once to f32.
fn group(a: &[Fx], b: &[Fx], e: i32, val: &dyn Fn(&Fx) -> f64) -> f32 {
    let mut sum: i128 = 0;
    let mut all_neg_zero = true;
    let mut special = false;
    for (x, y) in a.iter().zip(b) {
        match (*x, *y) {
            (
                Fx::Finite {
                    v: xv,
                    neg_zero: xn,
                },
                Fx::Finite {
                    v: yv,
                    neg_zero: yn,
                },
            ) => {
                let p = xv as i128 * yv as i128;
                sum += p;
                // A zero product is -0 when exactly one factor is negative (a -0, or a
                // negative value times +0).
                let neg_zero = p == 0 && ((xn || xv < 0) != (yn || yv < 0));
                all_neg_zero &= neg_zero;
            }
            _ => special = true,
        }
    }
    if special {
        // NaN, inf or 0·inf somewhere in the group: f64 arithmetic classifies it (finite
        // products are far inside f64's range, so they cannot overflow it).
        let mut t = 0f64;
        for (x, y) in a.iter().zip(b) {
            t += val(x) * val(y);
        }
        if !t.is_finite() {
            return t as f32;
        }
    }
    round_sum(sum, e, all_neg_zero)
}

impl TileCore {
    /// TMATMUL_MX: `c = (a · 2^sa) (b · 2^sb)`.
    pub fn tmatmul_mx(&mut self, c: &Tile, x: MxOperands<'_>) -> Result<(), PtoError> {
        self.matmul_mx(OpCode::TmatmulMx, c, Seed::Zero, x)
    }
    /// TMATMUL_MX_ACC: `c = c_in + (a · 2^sa) (b · 2^sb)`.
    pub fn tmatmul_mx_acc(
        &mut self,
        c: &Tile,
        c_in: &Tile,
        x: MxOperands<'_>,
    ) -> Result<(), PtoError> {
        self.matmul_mx(OpCode::TmatmulMxAcc, c, Seed::Acc(c_in), x)
    }
    /// TMATMUL_MX_BIAS: `c = (a · 2^sa) (b · 2^sb) + bias`.
    pub fn tmatmul_mx_bias(
        &mut self,
        c: &Tile,
        x: MxOperands<'_>,
        bias: &Tile,
    ) -> Result<(), PtoError> {
        self.matmul_mx(OpCode::TmatmulMxBias, c, Seed::Bias(bias), x)
    }
    /// TGEMV_MX: TMATMUL_MX with `m = 1`.
    pub fn tgemv_mx(&mut self, c: &Tile, x: MxOperands<'_>) -> Result<(), PtoError> {
        self.matmul_mx(OpCode::TgemvMx, c, Seed::Zero, x)
    }

    /// The static checks of the MX family; returns `(m, k, n)` with `k` in values (for fp4
    /// inputs twice A's valid byte columns).
    pub(crate) fn check_matmul_mx(
        &self,
        op: OpCode,
        c: &Tile,
        seed: Seed<'_>,
        x: MxOperands<'_>,
    ) -> Result<(usize, usize, usize), PtoError> {
        let name = op.name();
        let arch = self.arch();
        if arch != TileArch::A5 {
            return Err(PtoError::Unsupported {
                op: name,
                what: format!("{name} (the MX forms are A5 only)"),
                arch: arch_name(arch),
            });
        }
        let MxOperands {
            a,
            a_scale,
            b,
            b_scale,
        } = x;
        let (m, kb, n) = self.check_mkn(op, c, a, b, is_gemv_mx(op))?;
        let fp8_pair = MX_INPUTS.contains(&a.dtype()) && MX_INPUTS.contains(&b.dtype());
        let fp4_pair = MX_FP4_INPUTS.contains(&a.dtype()) && MX_FP4_INPUTS.contains(&b.dtype());
        if c.dtype() != ElemType::F32 || !(fp8_pair || fp4_pair) {
            return Err(PtoError::Unsupported {
                op: name,
                what: format!(
                    "the type triple (C, A, B) = ({}, {}, {}) (legal: C float, A and B each float8_e4m3_t or float8_e5m2_t, or each float4_e2m1x2_t or float4_e1m2x2_t)",
                    c.dtype(),
                    a.dtype(),
                    b.dtype()
                ),
                arch: arch_name(arch),
            });
        }
        // K and A's declared columns in values: two per byte for the packed fp4 pairs.
        let per_byte = if fp4_pair { 2 } else { 1 };
        let k = kb * per_byte;
        if k > super::cube::MAX_MKN {
            return Err(vr_err(
                op,
                "k",
                "m, k and n must lie in [1, 4095] (k counts fp4 values, two per byte)",
                format!("{k} values ({kb} bytes)"),
            ));
        }
        if !(a.cols() * per_byte).is_multiple_of(MX_BASE_K) {
            return Err(st(
                op,
                "aMatrix",
                "aMatrix Cols must be a multiple of 64 values (MX K steps; fp4: 32 bytes of pairs)",
                format!("{} values", a.cols() * per_byte),
            ));
        }
        let groups = k.div_ceil(MX_GROUP);
        for (nm, t, outer_row, inner, rule, rows, cols) in [
            (
                "aScaleMatrix",
                a_scale,
                BLayout::RowMajor,
                SLayout::RowMajor,
                "a left scale tile must be TileLeftScale's layout: outer row-major, inner row-major, fractal 32 (16 x 2 boxes)",
                m,
                groups,
            ),
            (
                "bScaleMatrix",
                b_scale,
                BLayout::ColMajor,
                SLayout::ColMajor,
                "a right scale tile must be TileRightScale's layout: outer col-major, inner col-major, fractal 32 (2 x 16 boxes)",
                groups,
                n,
            ),
        ] {
            let own = if nm == "aScaleMatrix" {
                TileLoc::ScaleLeft
            } else {
                TileLoc::ScaleRight
            };
            if t.loc() != own && t.loc() != TileLoc::Scaling {
                return Err(st(
                    op,
                    nm,
                    if own == TileLoc::ScaleLeft {
                        "aScaleMatrix location must be ScaleLeft (or Scaling, PTOAS's spelling)"
                    } else {
                        "bScaleMatrix location must be ScaleRight (or Scaling, PTOAS's spelling)"
                    },
                    format!("{:?}", t.loc()),
                ));
            }
            if t.dtype() != ElemType::F8E8M0 {
                return Err(PtoError::IllegalType {
                    op: name,
                    operand: nm,
                    dtype: t.dtype(),
                    arch: arch_name(arch),
                    legal: "float8_e8m0".to_string(),
                });
            }
            let d = t.desc();
            if d.blayout != outer_row || d.slayout != inner || d.fractal != MX_FRACTAL {
                return Err(st(
                    op,
                    nm,
                    rule,
                    format!("{:?}/{:?} fractal {}", d.blayout, d.slayout, d.fractal),
                ));
            }
            if t.valid_row() < rows || t.valid_col() < cols {
                return Err(vr_err(
                    op,
                    nm,
                    "a scale tile's valid region must cover M x ceil(K/32) (A) or ceil(K/32) x N (B)",
                    format!("{}x{} vs {rows}x{cols}", t.valid_row(), t.valid_col()),
                ));
            }
        }
        self.check_seed(op, c, seed, m, n)?;
        self.check_addr(c, name, "cMatrix")?;
        self.check_addr(a, name, "aMatrix")?;
        self.check_addr(b, name, "bMatrix")?;
        self.check_addr(a_scale, name, "aScaleMatrix")?;
        self.check_addr(b_scale, name, "bScaleMatrix")?;
        Ok((m, k, n))
    }

    /// The MX family (`op` one of the six MX rows; the seed per its form).
    pub fn matmul_mx(
        &mut self,
        op: OpCode,
        c: &Tile,
        seed: Seed<'_>,
        x: MxOperands<'_>,
    ) -> Result<(), PtoError> {
        let (m, k, n) = self.check_matmul_mx(op, c, seed, x)?;
        let groups = k.div_ceil(MX_GROUP);
        let fmt = |t: &Tile| {
            F8Format::of_packed(t.dtype())
                .or(F8Format::of(t.dtype()))
                .unwrap_or(F8Format::E4M3FN)
        };
        let (a, b) = if MX_FP4_INPUTS.contains(&x.a.dtype()) {
            let kb = k / 2;
            let a = self.read_rect::<u8>(x.a, m, kb);
            let b = self.read_rect::<u8>(x.b, kb, n);
            (unpack_fp4_rows(&a, m, kb), unpack_fp4_cols(&b, kb, n))
        } else {
            (
                self.read_rect::<u8>(x.a, m, k),
                self.read_rect::<u8>(x.b, k, n),
            )
        };
        let sa = self.read_rect::<u8>(x.a_scale, m, groups);
        let sb = self.read_rect::<u8>(x.b_scale, groups, n);
        let mut out = self.read_seed::<f32>(seed, m, n);
        let shape = MxShape {
            m,
            k,
            n,
            order: self.policy().matmul_order,
            seeded: !matches!(seed, Seed::Zero),
        };
        matmul_mx_codes(fmt(x.a), &a, fmt(x.b), &b, &sa, &sb, &mut out, shape);
        self.write_rect::<f32>(c, m, n, &out);
        Ok(())
    }

    /// TGET_SCALE_ADDR: `dst` rebound to `src`'s address shifted right by [`SHIFT_MX_ADDR`]
    /// (A5 only). `src` is a Left tile and `dst` a ScaleLeft tile, or `src` Right and `dst`
    /// ScaleRight (pto-isa `TileType`s; L0A's scales live in L0A_MX, L0B's in L0B_MX); a
    /// Scaling `dst` (PTOAS's `loc=scaling`) is accepted too. The rebound tile keeps `dst`'s
    /// shape, type and layout and must fit its memory (as TASSIGN checks: 32-byte aligned, so
    /// `src`'s address a multiple of 512). Returns the rebound `dst`.
    pub fn tget_scale_addr(&self, dst: &Tile, src: &Tile) -> Result<Tile, PtoError> {
        let op = OpCode::TgetScaleAddr;
        let arch = self.arch();
        if arch != TileArch::A5 {
            return Err(PtoError::Unsupported {
                op: op.name(),
                what: "TGET_SCALE_ADDR (A5 only)".to_string(),
                arch: arch_name(arch),
            });
        }
        if !matches!(src.loc(), TileLoc::Left | TileLoc::Right) {
            return Err(st(
                op,
                "src",
                "tile location must be Left or Right",
                format!("{:?}", src.loc()),
            ));
        }
        let own = if src.loc() == TileLoc::Left {
            TileLoc::ScaleLeft
        } else {
            TileLoc::ScaleRight
        };
        if dst.loc() != own && dst.loc() != TileLoc::Scaling {
            return Err(st(
                op,
                "dst",
                if own == TileLoc::ScaleLeft {
                    "a Left src binds a ScaleLeft dst (or Scaling, PTOAS's spelling)"
                } else {
                    "a Right src binds a ScaleRight dst (or Scaling, PTOAS's spelling)"
                },
                format!("{:?} for a {:?} src", dst.loc(), src.loc()),
            ));
        }
        let mut d = *dst.desc();
        d.addr = src.addr() >> SHIFT_MX_ADDR;
        let t = Tile::validate(d, op.name(), "dst")?;
        self.check_addr(&t, op.name(), "dst")?;
        Ok(t)
    }

    /// The A5 moves Mat -> ScaleLeft / ScaleRight (TMOV, TEXTRACT at `at`): pto-isa
    /// `a5/TMov.hpp` (`CommonCheckMX`, then `TExtractToAmx` / `TExtractToBmx` at offset 0)
    /// and `a5/TExtract.hpp` (the same two loads at `indexRow`, `indexCol`). Checked: A5;
    /// one element type on both sides, `float8_e8m0_t` (the scale type; `CommonCheckMX`'s
    /// message); the source a Mat tile in the destination's own MX layout (ScaleLeft: Zz,
    /// ScaleRight: Nn, fractal 32, the static asserts of the two loads; the MX TLOAD writes
    /// it); the offsets in whole load steps: the loads address the source in boxes of 16 along
    /// M (ScaleLeft rows, ScaleRight columns: `>> SHIFT_MX_ROW`) and in pairs of scales along
    /// K (`indexCol * 1 >> SHIFT_MX_COL` for ScaleLeft, `indexRow` for ScaleRight), so an
    /// offset between steps would be truncated by the hardware and is a typed error.
    pub(crate) fn check_scale_move(
        &self,
        op: OpCode,
        dst: &Tile,
        src: &Tile,
        (row, col): (usize, usize),
    ) -> Result<(), PtoError> {
        let arch = self.arch();
        if arch != TileArch::A5 {
            return Err(PtoError::Unsupported {
                op: op.name(),
                what: format!("a Mat->{:?} move (A5 only)", dst.loc()),
                arch: arch_name(arch),
            });
        }
        for (nm, t) in [("src", src), ("dst", dst)] {
            if t.dtype() != ElemType::F8E8M0 {
                return Err(PtoError::IllegalType {
                    op: op.name(),
                    operand: nm,
                    dtype: t.dtype(),
                    arch: arch_name(arch),
                    legal: "float8_e8m0".to_string(),
                });
            }
        }
        let left = dst.loc() == TileLoc::ScaleLeft;
        let (b, sl) = if left {
            (BLayout::RowMajor, SLayout::RowMajor)
        } else {
            (BLayout::ColMajor, SLayout::ColMajor)
        };
        let d = src.desc();
        if d.blayout != b || d.slayout != sl || d.fractal != MX_FRACTAL {
            return Err(st(
                op,
                "src",
                if left {
                    "a Mat->ScaleLeft source must be Zz (row-major boxes, row-major inside), fractal 32"
                } else {
                    "a Mat->ScaleRight source must be Nn (col-major boxes, col-major inside), fractal 32"
                },
                format!("{:?}/{:?} fractal {}", d.blayout, d.slayout, d.fractal),
            ));
        }
        let (m_name, m_off, k_name, k_off) = if left {
            ("indexRow", row, "indexCol", col)
        } else {
            ("indexCol", col, "indexRow", row)
        };
        if !m_off.is_multiple_of(16) {
            return Err(vr_err(
                op,
                m_name,
                "a scale move's M offset (ScaleLeft rows, ScaleRight columns) must be a multiple of 16 (SHIFT_MX_ROW)",
                m_off.to_string(),
            ));
        }
        if !k_off.is_multiple_of(2) {
            return Err(vr_err(
                op,
                k_name,
                "a scale move's K offset (ScaleLeft columns, ScaleRight rows) must be even (SHIFT_MX_COL: pairs of scales)",
                k_off.to_string(),
            ));
        }
        Ok(())
    }
}
