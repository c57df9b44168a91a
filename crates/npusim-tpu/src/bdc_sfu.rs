//! The f32 exponential, reciprocal square root and square root of the TPU-Kernel API (issue
//! #16): `tpu_bdc_load_fp32_exp_coeff`,
//! `tpu_bdc_load_fp32_exp_table`, `tpu_bdc_fp32_exp(dst, src, work0, work1, coeff, table,
//! shape)` as declared in `tpu_kernel.h` ("SFU" section), and the C-model's f32 reciprocal
//! that `tpu_bdc_fp_div` and its `_C` forms run on ([`cmodel_div`]).
//!
//! The algorithms were read off the BM1684X C-model (`libcmodel_bm1684x.so`, tpu-mlir 1.30.2)
//! with probes; `golden/tpu/sfu.json` and `golden/tpu/bdc_div.json` pin them bit for bit and
//! `golden/tpu/README.md` records the facts. They are not the correctly rounded results.
//!
//! Exponential, per element, every f32 operation rounded to nearest and (policy
//! [`BdcDenormals::FlushToZero`], the C-model's) flushed to a signed zero on input and output:
//! * `n = floor(x * LOG2E)`; `work0 = 2^n` built from the exponent field
//!   `clamp(n + 127, 0, 254)` (0 for a NaN `n`: `2^128` and beyond are written as `2^127`,
//!   `2^-127` and below as 0);
//! * `r = x - n * LN2`, replaced by 0 when `|r| >= 2^95` or not finite (read off at the
//!   binade boundary: `r` is one ulp of `x` there, so this is also `|x| >= 2^118`);
//!   `work1 = r`;
//! * `p` = the degree-9 Taylor polynomial of `e^r` by Horner's rule from the highest term, with
//!   the ten coefficients `1/k!` that `tpu_bdc_load_fp32_exp_coeff` writes, read from the lane
//!   of the destination channel at `coeff_addr` (no fused multiply-add);
//! * `dst = work0 * p` (x86 NaN rule).
//!
//! In place (`dst == src`) the C-model leaves `p` in `work0` instead of `2^n`; `work0 == src`
//! is exact as well; other overlaps are not modelled (each row of the source is read whole
//! before `work0`, `work1` and `dst` are written). The alignment padding of `dst` and `work0`
//! is scratch on the C-model (it holds intermediate values); npusim leaves it untouched.
//!
//! `tpu_bdc_load_fp32_exp_table` writes nothing on the C-model and `table_addr` is not read:
//! both are accepted and ignored.
//!
//! Reciprocal square root (`tpu_bdc_fp32_rsqrt(dst, src, shape)`), per element, read off the
//! C-model ([`rsqrt_elem`]): a NaN is returned quieted; otherwise `y0 = bits(0x5f3759df -
//! bits(x) / 2)` on the raw bit pattern, sign bit and denormal included, wrapping (for negative
//! `x` below about `-0.233` the estimate is negative: a NaN pattern gives that NaN quieted with
//! the sign bit flipped, a finite one gives `+0`), then three Newton steps
//! `y = y * (1.5 - ((0.5 * x) * y) * y)` with `x` and every result flushed, and the sign bit of
//! `x` XORed into the result (so `+inf` gives `-inf`, `-0` a negative finite value).
//! Square root (`tpu_bdc_fp32_sqrt`, [`sqrt_elem`]): `±0` unchanged, else `x * rsqrt(x)` with
//! the x86 NaN rule and flushed operands and result.
//!
//! Restrictions of those two: dims in `[1, 65535]`; `dst` 64-byte aligned, `src` too for
//! the square root (the C-model reads `src` of the reciprocal square root at any element
//! address); `src` on the start NPU of `dst`; for the square root `dst != src` (the C-model
//! rejects the in-place call).
//!
//! Restrictions (C-model asserts), each a [`TpuError`]: dims in `[1, 65535]`; `dst`, `src`,
//! `work0`, `work1` 64-byte aligned; `work1` on the start NPU of `dst`; `coeff_addr` (also of
//! the load) 64-byte aligned and on NPU 0.
//!
//! Natural logarithm (`tpu_bdc_load_fp32_log_coeff(coeff_addr)` writes the 16 coefficients
//! `(-1)^(k+1)/k`, `k = 0..15` (the first 0) on every NPU; `tpu_bdc_fp32_log(dst, src, work,
//! coeff_addr, shape)`), per element, read off the C-model's call sequence and probes
//! ([`log_elem`]): `w = x > FLT_MIN ? x : FLT_MIN` (NaN, negatives, zeros and denormals give
//! `FLT_MIN`); a rounded exponent `E = (bits(w) + 0x555554) >> 23` (the biased exponent, plus
//! one when the mantissa field exceeds `0x2aaaab`, so the mantissa lies in `[2/3, 4/3)`);
//! `t = w * bits((254 - E) << 23) - 1` (for `E = 254` the scale is `+0` and `t = -1`; for
//! `E = 255`, `-inf`); `p` = the degree-15 Taylor polynomial of `ln(1 + t)` by Horner's rule
//! from the highest term; `p` is replaced by `-inf` where the source's bits are `+0` (only
//! `+0`: `-0` and denormals are not) and by `+inf` where they are `+inf`; `dst = p + (E - 127)
//! * LN2`, every operation rounded to nearest and flushed. So `log(x)` of a NaN or negative
//! `x` is `log(FLT_MIN) = -87.34`; from `2^126 * 4/3` up (`E = 254`) the polynomial is taken
//! at `t = -1` (`p = -3.318`) and the result is about 84.7, and from `2^127 * 4/3` up it is
//! `-inf`.
//! `work` is left holding `(E - 127) * LN2`. In place (`dst == src`) the C-model computes `p`
//! in `work` and overwrites the source with `w` first, so the `+0` test never hits (`log(+0)`
//! is `-87.34`) and `work` is left holding `p`; `work == src` drops the `+0` test the same way.
//! Restrictions: dims in `[1, 65535]`; `dst`, `src`, `work` 64-byte aligned; `work` on the
//! start NPU of `dst` and `work != dst`; `coeff_addr` as for the exponential.

use crate::bdc::x86;
use crate::chip::BdcDenormals;
use crate::device::TpuCore;
use crate::dtype::DataType;
use crate::error::TpuError;
use crate::local::{Dim4, LocalAddr, LocalView, for_each_row, row_indices};

/// `log2(e)` as the C-model's f32 (`0x3fb8aa3b`).
const LOG2E: f32 = f32::from_bits(0x3fb8_aa3b);
/// `ln(2)` as the C-model's f32 (`0x3f317218`).
const LN2: f32 = f32::from_bits(0x3f31_7218);
/// The smallest `|r|` the C-model replaces by 0 (`2^95`).
const R_LIMIT: f32 = f32::from_bits(0x6f00_0000);
/// Number of Taylor coefficients of the exponential.
pub const EXP_COEFF_LEN: usize = 10;
/// Number of Taylor coefficients of the logarithm (`sfu_taylor_log_len(DT_FP32)`).
pub const LOG_COEFF_LEN: usize = 16;
/// `FLT_MIN`, the floor the logarithm puts under its input.
const FLT_MIN: f32 = f32::from_bits(0x0080_0000);
/// The rule named when the exponential's coefficient address is off NPU 0.
const EXP_COEFF_RULE: &str = "must lie on NPU 0 with room for the 10 coefficients";
/// The rule named when the logarithm's coefficient address is off NPU 0.
const LOG_COEFF_RULE: &str = "must lie on NPU 0 with room for the 16 coefficients";
/// The alignment (bytes) of the coefficient area.
const COEFF_ALIGN: u32 = 64;

/// The coefficients `tpu_bdc_load_fp32_exp_coeff` writes: `1/k!` rounded to f32, `k = 0..9`.
pub fn exp_coeff() -> [f32; EXP_COEFF_LEN] {
    let mut c = [0f32; EXP_COEFF_LEN];
    let mut fact = 1f64;
    for (k, o) in c.iter_mut().enumerate() {
        if k > 0 {
            fact *= k as f64;
        }
        *o = (1.0 / fact) as f32;
    }
    c
}

/// The coefficients `tpu_bdc_load_fp32_log_coeff` writes: `0`, then `(-1)^(k+1)/k` rounded to
/// f32, `k = 1..15` (the Taylor series of `ln(1 + t)`).
pub fn log_coeff() -> [f32; LOG_COEFF_LEN] {
    let mut c = [0f32; LOG_COEFF_LEN];
    for (k, o) in c.iter_mut().enumerate().skip(1) {
        let v = (1.0 / k as f64) as f32;
        *o = if k % 2 == 0 { -v } else { v };
    }
    c
}

/// Flush-to-zero of an f32 when `flush`.
#[inline(always)]
fn fz(x: f32, flush: bool) -> f32 {
    let b = x.to_bits();
    if flush && b & 0x7f80_0000 == 0 {
        f32::from_bits(b & 0x8000_0000)
    } else {
        x
    }
}

/// `v.floor()` without a libm call and without a float-to-int conversion (so a loop of it
/// vectorises): `|v|` is rounded to an integer by adding and subtracting `2^23`, the sign put
/// back, and 1 taken off where that rounded up. Exact for every f32, `-0.0` and NaN included
/// (checked against `f32::floor` by a unit test).
#[inline(always)]
pub fn floor(v: f32) -> f32 {
    const BIG: f32 = 8_388_608.0;
    let a = v.abs();
    let t = ((a + BIG) - BIG).copysign(v);
    let t = if t > v { t - 1.0 } else { t };
    // NaN, infinities, zeros and |v| >= 2^23 (already whole) are returned as they are.
    if a < BIG && v != 0.0 { t } else { v }
}

/// One element of `tpu_bdc_fp32_exp`: `(dst, work0, work1)` for the input `x` (module docs).
#[inline(always)]
pub fn exp_elem(x: f32, c: &[f32; EXP_COEFF_LEN], flush: bool) -> (f32, f32, f32) {
    let x = fz(x, flush);
    let n = fz(floor(fz(x * LOG2E, flush)), flush);
    let e = if n.is_nan() {
        0
    } else {
        (n.clamp(-1000.0, 1000.0) + 127.0).clamp(0.0, 254.0) as u32
    };
    let w0 = f32::from_bits(e << 23);
    let r = fz(x - fz(n * LN2, flush), flush);
    // The C-model zeroes `r` from 2^95 up (that is, for |x| >= 2^118) and when not finite.
    let r = if r.abs() < R_LIMIT { r } else { 0.0 };
    let mut acc = c[EXP_COEFF_LEN - 1];
    for &ck in c[..EXP_COEFF_LEN - 1].iter().rev() {
        acc = fz(fz(acc * r, flush) + ck, flush);
    }
    (fz(x86(w0, acc, w0 * acc), flush), w0, r)
}

/// The polynomial `p` of [`exp_elem`] (what an in-place call leaves in `work0`).
#[inline(always)]
pub fn exp_poly(x: f32, c: &[f32; EXP_COEFF_LEN], flush: bool) -> f32 {
    let r = exp_elem(x, c, flush).2;
    let mut acc = c[EXP_COEFF_LEN - 1];
    for &ck in c[..EXP_COEFF_LEN - 1].iter().rev() {
        acc = fz(fz(acc * r, flush) + ck, flush);
    }
    acc
}

/// One element of `tpu_bdc_fp32_log`: `(dst, p, e_ln2)` for the source bits `x` (module docs);
/// `zero_test` is false when the source is overwritten first (`dst == src` or `work == src`).
#[inline(always)]
pub fn log_elem(x: u32, c: &[f32; LOG_COEFF_LEN], flush: bool, zero_test: bool) -> (f32, f32, f32) {
    let xf = fz(f32::from_bits(x), flush);
    let w = if xf > FLT_MIN { xf } else { FLT_MIN };
    // `w` is positive and at most +inf: `e` lies in 1..=255.
    let e = (w.to_bits() + 0x0055_5554) >> 23;
    let scale = f32::from_bits(((254 - e as i32) << 23) as u32);
    let t = fz(fz(w * scale, flush) - 1.0, flush);
    let mut p = c[LOG_COEFF_LEN - 1];
    for &ck in c[..LOG_COEFF_LEN - 1].iter().rev() {
        p = fz(fz(p * t, flush) + ck, flush);
    }
    if x == 0x7f80_0000 {
        p = f32::INFINITY;
    } else if x == 0 && zero_test {
        p = f32::NEG_INFINITY;
    }
    let eln2 = fz((e as i32 - 127) as f32 * LN2, flush);
    (fz(p + eln2, flush), p, eln2)
}

/// Elements per block of the batched kernels ([`exp_block`], [`log_block`]).
pub const BLOCK: usize = 64;

/// [`exp_elem`] over a block of up to [`BLOCK`] elements, one pass per step over the whole
/// block (no dependency chain from one element to the next, so the loops vectorise): `d`,
/// `w0`, `w1` as [`exp_elem`]'s three results and `p` the polynomial ([`exp_poly`]). Held equal
/// to the scalar twin by a unit test.
#[inline(always)]
pub fn exp_block(
    xs: &[f32],
    c: &[f32; EXP_COEFF_LEN],
    flush: bool,
    [d, w0, w1, p]: [&mut [f32]; 4],
) {
    let m = xs.len();
    let (d, w0, r, acc) = (&mut d[..m], &mut w0[..m], &mut w1[..m], &mut p[..m]);
    let mut nb = [0f32; BLOCK];
    let n = &mut nb[..m];
    for ((n, r), &x) in n.iter_mut().zip(r.iter_mut()).zip(xs) {
        let x = fz(x, flush);
        let k = fz(floor(fz(x * LOG2E, flush)), flush);
        let rr = fz(x - fz(k * LN2, flush), flush);
        *r = if rr.abs() < R_LIMIT { rr } else { 0.0 };
        *n = k;
    }
    for (w, &k) in w0.iter_mut().zip(n.iter()) {
        // The biased exponent as an exact small integer in f32, its bits taken by adding 2^23.
        let e = if k.is_nan() {
            0.0
        } else {
            (k.clamp(-1000.0, 1000.0) + 127.0).clamp(0.0, 254.0)
        };
        let bits = (e + 8_388_608.0).to_bits() - 0x4b00_0000;
        *w = f32::from_bits(bits << 23);
    }
    if m <= 16 {
        horner(acc, r, c, flush);
    } else {
        // Longer blocks (gathered rows): a pass per step over the block measured faster here
        // ((1,4,1,16): 342-347 ns against 381-406 ns by groups).
        acc.fill(c[EXP_COEFF_LEN - 1]);
        for &ck in c[..EXP_COEFF_LEN - 1].iter().rev() {
            for (a, &r) in acc.iter_mut().zip(r.iter()) {
                *a = fz(fz(*a * r, flush) + ck, flush);
            }
        }
    }
    let mut any_nan = false;
    for ((o, &w), &a) in d.iter_mut().zip(w0.iter()).zip(acc.iter()) {
        let v = w * a;
        any_nan |= v.is_nan();
        *o = fz(v, flush);
    }
    if any_nan {
        for ((o, &w), &a) in d.iter_mut().zip(w0.iter()).zip(acc.iter()) {
            *o = fz(x86(w, a, w * a), flush);
        }
    }
}

/// `out[i]` = the polynomial with coefficients `c` (lowest first) at `x[i]` by Horner's rule
/// from the highest term, `a = fz(fz(a * x) + c_k)` per step, as [`exp_elem`] / [`log_elem`]
/// do per element. By groups of 16 elements (blocks of up to 16) or 32 whose running values
/// stay in registers over all the steps (a pass per step over the whole block kept them in
/// memory: a store and a reload per element and step on the dependency chain).
#[inline(always)]
fn horner<const K: usize>(out: &mut [f32], x: &[f32], c: &[f32; K], flush: bool) {
    if x.len() <= 16 {
        horner_groups::<K, 16>(out, x, c, flush)
    } else {
        horner_groups::<K, 32>(out, x, c, flush)
    }
}

/// [`horner`] by groups of `G` elements; lanes past the block's end compute on zeros and are
/// not written.
#[inline(always)]
fn horner_groups<const K: usize, const G: usize>(
    out: &mut [f32],
    x: &[f32],
    c: &[f32; K],
    flush: bool,
) {
    for (oc, xc) in out.chunks_mut(G).zip(x.chunks(G)) {
        let mut xs = [0f32; G];
        xs[..xc.len()].copy_from_slice(xc);
        let mut a = [c[K - 1]; G];
        for &ck in c[..K - 1].iter().rev() {
            for (a, &x) in a.iter_mut().zip(xs.iter()) {
                *a = fz(fz(*a * x, flush) + ck, flush);
            }
        }
        let m = oc.len().min(G);
        oc[..m].copy_from_slice(&a[..m]);
    }
}

/// [`log_elem`] over a block of up to [`BLOCK`] bit patterns, one pass per step: `d`, `p`,
/// `eln2` as [`log_elem`]'s three results. Held equal to the scalar twin by a unit test.
#[inline(always)]
pub fn log_block(
    xs: &[u32],
    c: &[f32; LOG_COEFF_LEN],
    flush: bool,
    zero_test: bool,
    [d, p, eln2]: [&mut [f32]; 3],
) {
    let m = xs.len();
    let (d, p, eln2) = (&mut d[..m], &mut p[..m], &mut eln2[..m]);
    let mut tb = [0f32; BLOCK];
    let t = &mut tb[..m];
    for ((t, e), &x) in t.iter_mut().zip(eln2.iter_mut()).zip(xs) {
        let xf = fz(f32::from_bits(x), flush);
        let w = if xf > FLT_MIN { xf } else { FLT_MIN };
        let ex = (w.to_bits() + 0x0055_5554) >> 23;
        let scale = f32::from_bits(((254 - ex as i32) << 23) as u32);
        *t = fz(fz(w * scale, flush) - 1.0, flush);
        *e = fz((ex as i32 - 127) as f32 * LN2, flush);
    }
    horner(p, t, c, flush);
    for (((o, a), &e), &x) in d.iter_mut().zip(p.iter_mut()).zip(eln2.iter()).zip(xs) {
        if x == 0x7f80_0000 {
            *a = f32::INFINITY;
        } else if x == 0 && zero_test {
            *a = f32::NEG_INFINITY;
        }
        *o = fz(*a + e, flush);
    }
}

/// The C-model's f32 reciprocal of a non-negative `b`: the square of `1/sqrt(b)` after three
/// Newton steps `y = y * (1.5 - ((0.5 * b) * y) * y)` from `y0 = bits(0x5f3759df - bits(b) / 2)`.
#[inline(always)]
pub fn cmodel_recip(b: f32, flush: bool) -> f32 {
    let b = fz(b, flush);
    let mut y = fz(
        f32::from_bits(0x5f37_59df_u32.wrapping_sub(b.to_bits() >> 1)),
        flush,
    );
    let h = fz(0.5 * b, flush);
    for _ in 0..3 {
        y = fz(y * fz(1.5 - fz(fz(h * y, flush) * y, flush), flush), flush);
    }
    fz(y * y, flush)
}

/// The C-model's f32 division `a / b` (`tpu_bdc_fp_div` and its `_C` forms): `|a|` times
/// [`cmodel_recip`]`(|b|)` with the sign `sign(a) ^ sign(b)`; a NaN `b` gives `|b|` quieted, a
/// NaN `a` gives `a` quieted with that sign, any other NaN the default `0xffc00000`.
#[inline(always)]
pub fn cmodel_div(a: f32, b: f32, flush: bool) -> f32 {
    let (ab, bb) = (a.to_bits(), b.to_bits());
    if b.is_nan() {
        return f32::from_bits((bb | 0x0040_0000) & 0x7fff_ffff);
    }
    let sign = (ab ^ bb) & 0x8000_0000;
    if a.is_nan() {
        return f32::from_bits(((ab | 0x0040_0000) & 0x7fff_ffff) | sign);
    }
    let m = fz(
        fz(f32::from_bits(ab & 0x7fff_ffff), flush)
            * cmodel_recip(f32::from_bits(bb & 0x7fff_ffff), flush),
        flush,
    );
    if m.is_nan() {
        f32::from_bits(0xffc0_0000)
    } else {
        f32::from_bits((m.to_bits() & 0x7fff_ffff) | sign)
    }
}

/// One element of `tpu_bdc_fp32_rsqrt` (module docs).
#[inline(always)]
pub fn rsqrt_elem(x: f32, flush: bool) -> f32 {
    let bits = x.to_bits();
    if x.is_nan() {
        return f32::from_bits(bits | 0x0040_0000);
    }
    let sign = bits & 0x8000_0000;
    let y0 = 0x5f37_59df_u32.wrapping_sub(bits >> 1);
    if y0 & 0x8000_0000 != 0 {
        // Wrapped (negative x below about -0.233): a NaN estimate stays a quiet NaN, a
        // negative finite one gives +0.
        return if y0 & 0x7f80_0000 == 0x7f80_0000 && y0 & 0x007f_ffff != 0 {
            f32::from_bits((y0 | 0x0040_0000) ^ sign)
        } else {
            0.0
        };
    }
    let mut y = fz(f32::from_bits(y0), flush);
    let h = fz(0.5 * fz(x, flush), flush);
    for _ in 0..3 {
        let t = fz(fz(h * y, flush) * y, flush);
        let m = fz(1.5 - t, flush);
        y = fz(x86(y, m, y * m), flush);
    }
    f32::from_bits(y.to_bits() ^ sign)
}

/// One element of `tpu_bdc_fp32_sqrt` (module docs).
#[inline(always)]
pub fn sqrt_elem(x: f32, flush: bool) -> f32 {
    if x.to_bits() & 0x7fff_ffff == 0 {
        return x;
    }
    let r = rsqrt_elem(x, flush);
    let a = fz(x, flush);
    fz(x86(a, r, a * r), flush)
}

impl TpuCore {
    /// The shared driver of `tpu_bdc_fp32_rsqrt` and `_sqrt`: checks, then `dst = f(src)` row
    /// by row (each source row read whole first).
    fn sfu_unary(
        &mut self,
        op: &'static str,
        dst_addr: LocalAddr,
        src_addr: LocalAddr,
        shape: &Dim4,
        src_aligned: bool,
        f: fn(f32, bool) -> f32,
    ) -> Result<(), TpuError> {
        self.check_dims(op, shape)?;
        let dt = DataType::Fp32;
        let d = self.bdc_view(op, "dst_addr", dst_addr, shape, None, dt)?;
        let s = if src_aligned {
            self.bdc_view(op, "src_addr", src_addr, shape, None, dt)?
        } else {
            self.bdc_view_any(op, "src_addr", src_addr, shape, None, dt)?
        };
        if s.start != d.start {
            return Err(TpuError::StartNpuMismatch {
                op,
                param: "src_addr",
                start: s.start,
                dst_start: d.start,
            });
        }
        let flush = self.chip().bdc_denormals() == BdcDenormals::FlushToZero;
        let store = self.local_store_mut();
        let w = shape.w as usize;
        let mut row = vec![0f32; w];
        for_each_row(&d.shape, |_, n, c, h| {
            let sr = s.row(n, c, h);
            for (o, b) in row.iter_mut().zip(store[sr..sr + 4 * w].chunks_exact(4)) {
                *o = f(f32::from_le_bytes([b[0], b[1], b[2], b[3]]), flush);
            }
            let dr = d.row(n, c, h);
            for (b, v) in store[dr..dr + 4 * w].chunks_exact_mut(4).zip(&row) {
                b.copy_from_slice(&v.to_le_bytes());
            }
        });
        Ok(())
    }

    /// `tpu_bdc_fp32_rsqrt(dst_addr, src_addr, shape)`: `dst = 1/sqrt(src)` by the C-model's
    /// algorithm ([`rsqrt_elem`]); both tensors f32 in the aligned layout.
    pub fn tpu_bdc_fp32_rsqrt(
        &mut self,
        dst_addr: LocalAddr,
        src_addr: LocalAddr,
        shape: &Dim4,
    ) -> Result<(), TpuError> {
        self.sfu_unary(
            "tpu_bdc_fp32_rsqrt",
            dst_addr,
            src_addr,
            shape,
            false,
            rsqrt_elem,
        )
    }

    /// `tpu_bdc_fp32_sqrt(dst_addr, src_addr, shape)`: `dst = sqrt(src)` by the C-model's
    /// algorithm ([`sqrt_elem`]); both tensors f32 in the aligned layout, `dst != src`.
    pub fn tpu_bdc_fp32_sqrt(
        &mut self,
        dst_addr: LocalAddr,
        src_addr: LocalAddr,
        shape: &Dim4,
    ) -> Result<(), TpuError> {
        const OP: &str = "tpu_bdc_fp32_sqrt";
        if dst_addr == src_addr {
            return Err(TpuError::SameAddress {
                op: OP,
                param: "dst_addr",
                addr: dst_addr,
                other: "src_addr",
                rule: "the C-model rejects the in-place square root",
            });
        }
        self.sfu_unary(OP, dst_addr, src_addr, shape, true, sqrt_elem)
    }

    fn coeff_check(
        &self,
        op: &'static str,
        addr: LocalAddr,
        len: usize,
        rule: &'static str,
    ) -> Result<(), TpuError> {
        let p = self.chip().local();
        if !addr.is_multiple_of(COEFF_ALIGN) {
            return Err(TpuError::Misaligned {
                op,
                param: "coeff_addr",
                addr,
                align: COEFF_ALIGN,
            });
        }
        let npu = p.tpu_npu_index(addr);
        if npu != 0 || u64::from(addr) + 4 * len as u64 > u64::from(p.local_mem_per_npu) {
            return Err(TpuError::NpuRequired {
                op,
                param: "coeff_addr",
                addr,
                npu,
                rule,
            });
        }
        Ok(())
    }

    /// `tpu_bdc_load_fp32_exp_coeff(coeff_addr)`: writes the ten Taylor coefficients
    /// ([`exp_coeff`]) at `coeff_addr` on every NPU.
    pub fn tpu_bdc_load_fp32_exp_coeff(&mut self, coeff_addr: LocalAddr) -> Result<(), TpuError> {
        self.coeff_check(
            "tpu_bdc_load_fp32_exp_coeff",
            coeff_addr,
            EXP_COEFF_LEN,
            EXP_COEFF_RULE,
        )?;
        self.bcast_coeff(coeff_addr, &exp_coeff());
        Ok(())
    }

    /// Writes `coeff` at `coeff_addr` (checked) on every NPU.
    fn bcast_coeff(&mut self, coeff_addr: LocalAddr, coeff: &[f32]) {
        let p = self.chip().local();
        let bytes: Vec<u8> = coeff.iter().flat_map(|c| c.to_le_bytes()).collect();
        let store = self.local_store_mut();
        for lane in 0..p.npu_num as usize {
            let at = lane * p.store_pitch() as usize + coeff_addr as usize;
            store[at..at + bytes.len()].copy_from_slice(&bytes);
        }
    }

    /// `tpu_bdc_load_fp32_log_coeff(coeff_addr)`: writes the sixteen Taylor coefficients of
    /// `ln(1 + t)` ([`log_coeff`]) at `coeff_addr` on every NPU.
    pub fn tpu_bdc_load_fp32_log_coeff(&mut self, coeff_addr: LocalAddr) -> Result<(), TpuError> {
        self.coeff_check(
            "tpu_bdc_load_fp32_log_coeff",
            coeff_addr,
            LOG_COEFF_LEN,
            LOG_COEFF_RULE,
        )?;
        self.bcast_coeff(coeff_addr, &log_coeff());
        Ok(())
    }

    /// `tpu_bdc_fp32_log(dst_addr, src_addr, work_addr, coeff_addr, shape)`: `dst = ln(src)` by
    /// the C-model's algorithm ([`log_elem`], module docs); every tensor f32 in the aligned
    /// layout; `work` is left holding `(E - 127) * LN2` (in place: the polynomial).
    pub fn tpu_bdc_fp32_log(
        &mut self,
        dst_addr: LocalAddr,
        src_addr: LocalAddr,
        work_addr: LocalAddr,
        coeff_addr: LocalAddr,
        shape: &Dim4,
    ) -> Result<(), TpuError> {
        const OP: &str = "tpu_bdc_fp32_log";
        self.check_dims(OP, shape)?;
        let f = DataType::Fp32;
        let d = self.bdc_view(OP, "dst_addr", dst_addr, shape, None, f)?;
        let s = self.bdc_view(OP, "src_addr", src_addr, shape, None, f)?;
        let w = self.bdc_view(OP, "work_addr", work_addr, shape, None, f)?;
        if work_addr == dst_addr {
            return Err(TpuError::SameAddress {
                op: OP,
                param: "work_addr",
                addr: work_addr,
                other: "dst_addr",
                rule: "the C-model asserts dst != work",
            });
        }
        if w.start != d.start {
            return Err(TpuError::StartNpuMismatch {
                op: OP,
                param: "work_addr",
                start: w.start,
                dst_start: d.start,
            });
        }
        self.coeff_check(OP, coeff_addr, LOG_COEFF_LEN, LOG_COEFF_RULE)?;
        let flush = self.chip().bdc_denormals() == BdcDenormals::FlushToZero;
        let lmem = self.chip().local().store_pitch() as usize;
        let in_place = dst_addr == src_addr;
        let zero_test = !in_place && work_addr != src_addr;
        log_rows(
            self.local_store_mut(),
            [&d, &s, &w],
            coeff_addr as usize,
            lmem,
            flush,
            in_place,
            zero_test,
        );
        Ok(())
    }

    /// `tpu_bdc_load_fp32_exp_table(table_addr)`: the C-model writes nothing (module docs); the
    /// call is accepted and does nothing.
    pub fn tpu_bdc_load_fp32_exp_table(&mut self, table_addr: LocalAddr) -> Result<(), TpuError> {
        let _ = table_addr;
        Ok(())
    }

    /// `tpu_bdc_fp32_exp(dst_addr, src_addr, work0_addr, work1_addr, coeff_addr, table_addr,
    /// shape)`: `dst = e^src` by the C-model's algorithm (module docs); every tensor in the
    /// aligned layout; `work0`/`work1` are left holding `2^n` and `r`.
    #[allow(clippy::too_many_arguments)]
    pub fn tpu_bdc_fp32_exp(
        &mut self,
        dst_addr: LocalAddr,
        src_addr: LocalAddr,
        work0_addr: LocalAddr,
        work1_addr: LocalAddr,
        coeff_addr: LocalAddr,
        table_addr: LocalAddr,
        shape: &Dim4,
    ) -> Result<(), TpuError> {
        const OP: &str = "tpu_bdc_fp32_exp";
        let _ = table_addr;
        self.check_dims(OP, shape)?;
        let f = DataType::Fp32;
        let d = self.bdc_view(OP, "dst_addr", dst_addr, shape, None, f)?;
        let s = self.bdc_view(OP, "src_addr", src_addr, shape, None, f)?;
        let w0 = self.bdc_view(OP, "work0_addr", work0_addr, shape, None, f)?;
        let w1 = self.bdc_view(OP, "work1_addr", work1_addr, shape, None, f)?;
        if w1.start != d.start {
            return Err(TpuError::StartNpuMismatch {
                op: OP,
                param: "work1_addr",
                start: w1.start,
                dst_start: d.start,
            });
        }
        self.coeff_check(OP, coeff_addr, EXP_COEFF_LEN, EXP_COEFF_RULE)?;
        let flush = self.chip().bdc_denormals() == BdcDenormals::FlushToZero;
        let lmem = self.chip().local().store_pitch() as usize;
        exp_rows(
            self.local_store_mut(),
            [&d, &s, &w0, &w1],
            coeff_addr as usize,
            lmem,
            flush,
            dst_addr == src_addr,
        );
        Ok(())
    }
}

#[inline(always)]
fn read_f32(store: &[u8], at: usize) -> f32 {
    f32::from_le_bytes([store[at], store[at + 1], store[at + 2], store[at + 3]])
}

crate::simd::avx2_dispatch!(
    /// [`exp_rows_body`], AVX2-compiled where the host has it.
    fn exp_rows['a](
        store: &mut [u8],
        views: [&'a LocalView; 4],
        coeff: usize,
        lmem: usize,
        flush: bool,
        in_place: bool,
    ) => exp_rows_body
);

crate::simd::avx2_dispatch!(
    /// [`log_rows_body`], AVX2-compiled where the host has it.
    fn log_rows['a](
        store: &mut [u8],
        views: [&'a LocalView; 3],
        coeff: usize,
        lmem: usize,
        flush: bool,
        in_place: bool,
        zero_test: bool,
    ) => log_rows_body
);

/// The row driver of the logarithm: each block of a row of the source is read whole, then
/// `work` and `dst` are written.
#[inline(always)]
fn log_rows_body(
    store: &mut [u8],
    [d, s, w]: [&LocalView; 3],
    coeff: usize,
    lmem: usize,
    flush: bool,
    in_place: bool,
    zero_test: bool,
) {
    let wn = d.shape.w as usize;
    let mut xb = [0u32; BLOCK];
    let mut outs = [[0f32; BLOCK]; 3];
    // Plain loops, not `for_each_row`'s closure: the whole body must inline into the AVX2 copy.
    for (n, c, h) in row_indices(&d.shape) {
        let dr = d.row(n, c, h);
        let lane_base = dr - dr % lmem;
        let mut co = [0f32; LOG_COEFF_LEN];
        for (k, o) in co.iter_mut().enumerate() {
            *o = read_f32(store, lane_base + coeff + 4 * k);
        }
        let (sr, wr) = (s.row(n, c, h), w.row(n, c, h));
        let mut done = 0;
        while done < wn {
            let m = (wn - done).min(BLOCK);
            load_words(store, sr + 4 * done, &mut xb[..m]);
            let [od, op, oe] = &mut outs;
            log_block(&xb[..m], &co, flush, zero_test, [od, op, oe]);
            // In place the C-model computes `p` in work (module docs).
            let work = if in_place { &op[..m] } else { &oe[..m] };
            store_f32s(store, wr + 4 * done, work);
            store_f32s(store, dr + 4 * done, &od[..m]);
            done += m;
        }
    }
}

/// Reads `out.len()` little-endian f32 bit patterns from `store` at byte `at`.
#[inline(always)]
fn load_words(store: &[u8], at: usize, out: &mut [u32]) {
    let m = out.len();
    for (o, b) in out.iter_mut().zip(store[at..at + 4 * m].chunks_exact(4)) {
        *o = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    }
}

/// Writes `vals` as little-endian f32s into `store` at byte `at`.
#[inline(always)]
fn store_f32s(store: &mut [u8], at: usize, vals: &[f32]) {
    for (b, v) in store[at..at + 4 * vals.len()].chunks_exact_mut(4).zip(vals) {
        b.copy_from_slice(&v.to_le_bytes());
    }
}

/// The row driver of the exponential: each block of a row of the source is read whole, then
/// `work0`, `work1` and `dst` are written (an operand equal to the source is exact).
#[inline(always)]
fn exp_rows_body(
    store: &mut [u8],
    [d, s, w0, w1]: [&LocalView; 4],
    coeff: usize,
    lmem: usize,
    flush: bool,
    in_place: bool,
) {
    let w = d.shape.w as usize;
    if 2 * w <= BLOCK && exp_gather_safe([d, s, w0, w1], coeff) {
        exp_rows_gathered(store, [d, s, w0, w1], coeff, lmem, flush, in_place);
        return;
    }
    let (mut xb, mut xs) = ([0u32; BLOCK], [0f32; BLOCK]);
    let mut outs = [[0f32; BLOCK]; 4];
    for (n, c, h) in row_indices(&d.shape) {
        let dr = d.row(n, c, h);
        let lane_base = dr - dr % lmem;
        let mut co = [0f32; EXP_COEFF_LEN];
        for (k, o) in co.iter_mut().enumerate() {
            *o = read_f32(store, lane_base + coeff + 4 * k);
        }
        let (sr, r0, r1) = (s.row(n, c, h), w0.row(n, c, h), w1.row(n, c, h));
        let mut done = 0;
        while done < w {
            let m = (w - done).min(BLOCK);
            load_words(store, sr + 4 * done, &mut xb[..m]);
            for (x, &b) in xs.iter_mut().zip(&xb[..m]) {
                *x = f32::from_bits(b);
            }
            let [od, o0, o1, op] = &mut outs;
            exp_block(&xs[..m], &co, flush, [od, o0, o1, op]);
            // In place, work0 keeps the polynomial `p` (module docs).
            let work0 = if in_place { &op[..m] } else { &o0[..m] };
            store_f32s(store, r0 + 4 * done, work0);
            store_f32s(store, r1 + 4 * done, &o1[..m]);
            store_f32s(store, dr + 4 * done, &od[..m]);
            done += m;
        }
    }
}

/// Whether [`exp_rows_gathered`] gives what the row-by-row driver gives: no output (dst,
/// work0, work1) overlaps the source other than as the very same tensor, or the coefficients.
/// (Gathering reads several rows of the source, and their lanes' coefficients, before it writes
/// the first of them; the row-by-row driver reads each row just before writing it.)
fn exp_gather_safe([d, s, w0, w1]: [&LocalView; 4], coeff: usize) -> bool {
    let (s0, s1) = s.lane_span();
    let coeffs = (coeff, coeff + 4 * EXP_COEFF_LEN);
    let apart = |a: (usize, usize), b: (usize, usize)| a.1 <= b.0 || b.1 <= a.0;
    [d, w0, w1].iter().all(|o| {
        let span = o.lane_span();
        let same = o.start == s.start && o.offset == s.offset && o.stride == s.stride;
        (same || apart(span, (s0, s1))) && apart(span, coeffs)
    })
}

/// [`exp_rows_body`] for short rows: whole rows of lanes holding the same coefficients are
/// gathered into one block (so a call of a few short rows runs each step of the element
/// function once over all of them), computed, and written back row by row in NCHW order (work0,
/// work1, dst per row, as the row-by-row driver writes them). Only when [`exp_gather_safe`].
#[inline(always)]
fn exp_rows_gathered(
    store: &mut [u8],
    [d, s, w0, w1]: [&LocalView; 4],
    coeff: usize,
    lmem: usize,
    flush: bool,
    in_place: bool,
) {
    let w = d.shape.w as usize;
    let per = BLOCK / w;
    let mut xs = [0f32; BLOCK];
    let mut outs = [[0f32; BLOCK]; 4];
    let mut co = [0f32; EXP_COEFF_LEN];
    let mut k = 0;
    // The rows gathered so far are written back in the order they were read: a second walk
    // over the same rows, `k` behind the first.
    let mut back = row_indices(&d.shape);
    for (n, c, h) in row_indices(&d.shape) {
        let dr = d.row(n, c, h);
        let lane_base = dr - dr % lmem;
        let mut rc = [0f32; EXP_COEFF_LEN];
        for (j, o) in rc.iter_mut().enumerate() {
            *o = read_f32(store, lane_base + coeff + 4 * j);
        }
        let same = rc.iter().zip(&co).all(|(a, b)| a.to_bits() == b.to_bits());
        if k > 0 && (k == per || !same) {
            exp_gathered_block(
                store,
                [d, w0, w1],
                &mut back,
                k,
                &co,
                &xs,
                &mut outs,
                flush,
                in_place,
            );
            k = 0;
        }
        if k == 0 {
            co = rc;
        }
        let sr = s.row(n, c, h);
        for (x, b) in xs[k * w..(k + 1) * w]
            .iter_mut()
            .zip(store[sr..sr + 4 * w].chunks_exact(4))
        {
            *x = f32::from_bits(u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        }
        k += 1;
    }
    if k > 0 {
        exp_gathered_block(
            store,
            [d, w0, w1],
            &mut back,
            k,
            &co,
            &xs,
            &mut outs,
            flush,
            in_place,
        );
    }
}

/// One block of [`exp_rows_gathered`]: `k` whole rows in `xs`, computed, then written back to
/// the next `k` rows of `back` (work0, work1, dst per row).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn exp_gathered_block(
    store: &mut [u8],
    [d, w0, w1]: [&LocalView; 3],
    back: &mut impl Iterator<Item = (usize, usize, usize)>,
    k: usize,
    co: &[f32; EXP_COEFF_LEN],
    xs: &[f32; BLOCK],
    outs: &mut [[f32; BLOCK]; 4],
    flush: bool,
    in_place: bool,
) {
    let w = d.shape.w as usize;
    let m = k * w;
    let [od, o0, o1, op] = outs;
    exp_block(&xs[..m], co, flush, [od, o0, o1, op]);
    let work0: &[f32] = if in_place { &op[..m] } else { &o0[..m] };
    for (i, (n, c, h)) in back.take(k).enumerate() {
        let at = i * w;
        store_f32s(store, w0.row(n, c, h), &work0[at..at + w]);
        store_f32s(store, w1.row(n, c, h), &o1[at..at + w]);
        store_f32s(store, d.row(n, c, h), &od[at..at + w]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The coefficients read back from the C-model after `tpu_bdc_load_fp32_exp_coeff`.
    #[test]
    fn coefficients_are_inverse_factorials() {
        let want = [
            0x3f80_0000u32,
            0x3f80_0000,
            0x3f00_0000,
            0x3e2a_aaab,
            0x3d2a_aaab,
            0x3c08_8889,
            0x3ab6_0b61,
            0x3950_0d01,
            0x37d0_0d01,
            0x3638_ef1d,
        ];
        let got: Vec<u32> = exp_coeff().iter().map(|c| c.to_bits()).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn floor_equals_libm_floor() {
        let mut bits = 0u32;
        for _ in 0..2_000_000 {
            bits = bits.wrapping_mul(747_796_405).wrapping_add(2_891_336_453);
            let v = f32::from_bits(bits);
            let (a, b) = (floor(v), v.floor());
            assert!(
                a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
                "{v}"
            );
        }
        for v in [
            -0.0f32,
            0.0,
            -0.5,
            0.5,
            -1.0,
            1.0,
            -8_388_607.5,
            8_388_607.5,
            -1e-45,
        ] {
            assert_eq!(floor(v).to_bits(), v.floor().to_bits(), "{v}");
        }
    }

    /// Values the C-model printed for single `tpu_bdc_fp32_rsqrt` / `_sqrt` calls (session 8).
    #[test]
    fn rsqrt_and_sqrt_probe_values() {
        let r = |x: u32| rsqrt_elem(f32::from_bits(x), true).to_bits();
        let q = |x: u32| sqrt_elem(f32::from_bits(x), true).to_bits();
        for (x, want) in [
            (0x3f80_0000, 0x3f7f_ffff),
            (0x4000_0000, 0x3f35_04f4),
            (0, 0x601a_b3d4),
            (0x8000_0000, 0xa01a_b3d4),
            (0x007f_ffff, 0x5fd0_b3d5),
            (0x7f80_0000, 0xff80_0000),
            (0xbf80_0000, 0),
            (0x8d00_0000, 0x999a_b3d4),
            (0xbe6e_b3c0, 0x7fff_ffff),
            (0x7f80_0001, 0x7fc0_0001),
        ] {
            assert_eq!(r(x), want, "rsqrt {x:#x}");
        }
        for (x, want) in [
            (0x4000_0000, 0x3fb5_04f4),
            (0x8000_0000, 0x8000_0000),
            (0x8000_0001, 0),
            (0x0080_0000, 0x20d0_b3d4),
            (0x7f80_0000, 0xff80_0000),
            (0xff80_0000, 0xffc0_0000),
            (0xbf80_0000, 0x8000_0000),
        ] {
            assert_eq!(q(x), want, "sqrt {x:#x}");
        }
    }

    /// Random bit patterns mixed with the special values of both functions.
    fn block_inputs(seed: u32) -> Vec<u32> {
        let specials = [
            0u32,
            0x8000_0000,
            1,
            0x8000_0001,
            0x007f_ffff,
            0x0080_0000,
            0x3f80_0000,
            0xbf80_0000,
            0x7f7f_ffff,
            0xff7f_ffff,
            0x7f80_0000,
            0xff80_0000,
            0x7fc0_0000,
            0xffc0_0000,
            0x7f80_0001,
            0x42b1_7219,
            0xc2ce_8ed0,
            0x3faa_aaab,
            0x3faa_aaac,
            0x7f2a_aaac,
            0x4b00_0000,
            0xcb00_0001,
        ];
        let mut bits = seed;
        (0..4096)
            .map(|i| {
                bits = bits.wrapping_mul(747_796_405).wrapping_add(2_891_336_453);
                match i % 4 {
                    0 => specials[(bits >> 8) as usize % specials.len()],
                    1 => ((bits % 0x0600_0000) + 0x3c00_0000) | (bits & 0x8000_0000),
                    _ => bits,
                }
            })
            .collect()
    }

    /// The batched kernels equal their scalar twins bit for bit, on every block length.
    #[test]
    fn blocks_equal_scalar_twins() {
        let (ce, cl) = (exp_coeff(), log_coeff());
        for flush in [true, false] {
            for (seed, m) in [(1u32, BLOCK), (2, 1), (3, 7), (4, 33)] {
                for xs in block_inputs(seed).chunks(m) {
                    let fs: Vec<f32> = xs.iter().map(|&b| f32::from_bits(b)).collect();
                    let mut o = [[0f32; BLOCK]; 4];
                    let [a, b, c, d] = &mut o;
                    exp_block(&fs, &ce, flush, [a, b, c, d]);
                    for (i, &x) in fs.iter().enumerate() {
                        let (e0, e1, e2) = exp_elem(x, &ce, flush);
                        let want = [e0, e1, e2, exp_poly(x, &ce, flush)].map(f32::to_bits);
                        assert_eq!(o.map(|r| r[i].to_bits()), want, "exp {:#x}", xs[i]);
                    }
                    for zero_test in [true, false] {
                        let mut o = [[0f32; BLOCK]; 3];
                        let [a, b, c] = &mut o;
                        log_block(xs, &cl, flush, zero_test, [a, b, c]);
                        for (i, &x) in xs.iter().enumerate() {
                            let (l0, l1, l2) = log_elem(x, &cl, flush, zero_test);
                            let want = [l0, l1, l2].map(f32::to_bits);
                            assert_eq!(o.map(|r| r[i].to_bits()), want, "log {x:#x}");
                        }
                    }
                }
            }
        }
    }

    /// The coefficients read back from the C-model after `tpu_bdc_load_fp32_log_coeff`.
    #[test]
    fn log_coefficients_are_alternating_inverses() {
        let want = [
            0u32,
            0x3f80_0000,
            0xbf00_0000,
            0x3eaa_aaab,
            0xbe80_0000,
            0x3e4c_cccd,
            0xbe2a_aaab,
            0x3e12_4925,
            0xbe00_0000,
            0x3de3_8e39,
            0xbdcc_cccd,
            0x3dba_2e8c,
            0xbdaa_aaab,
            0x3d9d_89d9,
            0xbd92_4925,
            0x3d88_8889,
        ];
        let got: Vec<u32> = log_coeff().iter().map(|c| c.to_bits()).collect();
        assert_eq!(got, want);
    }

    /// `(dst, work)` the C-model printed for single `tpu_bdc_fp32_log` calls (session 9), out
    /// of place and in place.
    #[test]
    fn log_probe_values() {
        let c = log_coeff();
        let l = |x: u32, zero_test: bool| {
            let (o, p, e) = log_elem(x, &c, true, zero_test);
            (o.to_bits(), p.to_bits(), e.to_bits())
        };
        for (x, out, work) in [
            (0u32, 0xff80_0000u32, 0xc2ae_ac50u32),
            (0x8000_0000, 0xc2ae_ac50, 0xc2ae_ac50),
            (0x7f80_0000, 0x7f80_0000, 0x42b1_7218),
            (0x7fc0_0000, 0xc2ae_ac50, 0xc2ae_ac50),
            (0xbf80_0000, 0xc2ae_ac50, 0xc2ae_ac50),
            (0x0000_0001, 0xc2ae_ac50, 0xc2ae_ac50),
            (0x3f80_0000, 0, 0),
            (0x3f80_0001, 0x33ff_ffff, 0),
            (0x4000_0000, 0x3f31_7218, 0x3f31_7218),
            (0x7f7f_ffff, 0xff80_0000, 0x42b1_7218),
            (0x7f2a_aaab, 0x42a9_6c45, 0x42b0_0f34),
            (0x3faa_aaab, 0x3e93_4b12, 0),
            (0x3faa_aaac, 0x3e93_4b15, 0x3f31_7218),
        ] {
            let (o, _, e) = l(x, true);
            assert_eq!((o, e), (out, work), "log {x:#x}");
        }
        // In place the source is overwritten by max(x, FLT_MIN) before the +0 test; work
        // keeps the polynomial.
        for (x, out, work) in [
            (0u32, 0xc2ae_ac50u32, 0u32),
            (0x7f80_0000, 0x7f80_0000, 0x7f80_0000),
            (0x4049_0fdb, 0x3f92_8682, 0xbe77_5cac),
            (0x7f7f_ffff, 0xff80_0000, 0xff80_0000),
        ] {
            let (o, p, _) = l(x, false);
            assert_eq!((o, p), (out, work), "in-place log {x:#x}");
        }
    }

    /// Values the C-model printed for single calls (probe of this session).
    #[test]
    fn exp_and_div_probe_values() {
        let c = exp_coeff();
        let e = |x: u32| {
            let (o, a, b) = exp_elem(f32::from_bits(x), &c, true);
            (o.to_bits(), a.to_bits(), b.to_bits())
        };
        assert_eq!(e(0x3f80_0000), (0x402d_f854, 0x4000_0000, 0x3e9d_1bd0));
        assert_eq!(e(0x7f80_0000), (0x7f00_0000, 0x7f00_0000, 0));
        assert_eq!(e(0x42b1_7219), (0x7f00_0040, 0x7f00_0000, 0x3700_0000));
        assert_eq!(e(0x7fc0_0000), (0, 0, 0));
        let d = |a: u32, b: u32| cmodel_div(f32::from_bits(a), f32::from_bits(b), true).to_bits();
        assert_eq!(cmodel_recip(1.0, true).to_bits(), 0x3f7f_fffe);
        assert_eq!(d(0x3f80_0000, 0x4000_0000), 0x3f00_0001);
        assert_eq!(d(0, 0), 0xffc0_0000);
        assert_eq!(d(0xffc1_2345, 0x3f80_0000), 0xffc1_2345);
        assert_eq!(d(0x3f80_0000, 0xffc1_2345), 0x7fc1_2345);
    }
}
