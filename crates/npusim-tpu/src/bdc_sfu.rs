//! The f32 exponential, reciprocal square root and square root of the TPU-Kernel API (issue
//! #16): `tpu_bdc_load_fp32_exp_coeff`,
//! `tpu_bdc_load_fp32_exp_table`, `tpu_bdc_fp32_exp(dst, src, work0, work1, coeff, table,
//! shape)` as declared in `tpu_kernel.h` ("SFU" section), and the C-model's f32 reciprocal
//! that `tpu_bdc_fp_div` and its `_C` forms run on ([`cmodel_div`]; its branch-free form on
//! bit patterns, [`cmodel_div_bits`], is the element function of their small-call path and of
//! the generic driver's division rows in `crate::bdc`, held equal to it by
//! `tests::div_bits_equal_cmodel_div`).
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
//! Not pinned: the payload of a NaN result when a coefficient in local memory is itself a NaN
//! (the loads write none; the golden files have none). Two NaN operands meet in a Horner
//! addition then, and which one an f32 addition returns follows its operand order, which the
//! compiler may swap (Rust does not fix NaN payloads): the scalar element functions and the
//! row kernels can differ there, and the small-call path (below) recomputes such chunks by the
//! element functions.
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
//! Small-call paths (issue #16, acceptance 4), each with the general path as its scalar twin
//! and taken only at [`crate::HostSimd::Avx512`]: exp and log by 16-lane AVX-512 chunks
//! (section comment above `mod avx512`), the reciprocal square root and the square root by a
//! constant chip profile per instantiation and masked 16-lane vectors, the lanes outside the
//! vector form's proven domain recomputed by the element functions (section comment above
//! `mod root`).
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
use crate::chip::{BdcDenormals, TpuChip};
use crate::device::{HostSimd, TpuCore};
use crate::dtype::DataType;
use crate::error::TpuError;
use crate::local::{
    AlignedPlace, Dim4, LocalAddr, LocalView, aligned_place, for_each_row, row_indices,
};

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

/// [`cmodel_div`]`(a, b, true)` on bit patterns, branch-free (every flush and the NaN rule a
/// select, the NaN cases decided last), so that a loop of it vectorises: the element function
/// of the `fp_div` small-call path and of the generic driver's f32 division rows
/// (`crate::bdc`). Bit for bit `cmodel_div` with flushing (`tests::div_bits_equal_cmodel_div`).
#[inline(always)]
pub fn cmodel_div_bits(a: u32, b: u32) -> u32 {
    let f = |v: f32| fz(v, true);
    let babs = b & 0x7fff_ffff;
    let bf = f(f32::from_bits(babs));
    let mut y = f(f32::from_bits(
        0x5f37_59df_u32.wrapping_sub(bf.to_bits() >> 1),
    ));
    let h = f(0.5 * bf);
    for _ in 0..3 {
        y = f(y * f(1.5 - f(f(h * y) * y)));
    }
    let rec = f(y * y);
    let m = f(f(f32::from_bits(a & 0x7fff_ffff)) * rec).to_bits();
    let sign = (a ^ b) & 0x8000_0000;
    let r = if m & 0x7fff_ffff > 0x7f80_0000 {
        0xffc0_0000
    } else {
        (m & 0x7fff_ffff) | sign
    };
    let r = if a & 0x7fff_ffff > 0x7f80_0000 {
        ((a | 0x0040_0000) & 0x7fff_ffff) | sign
    } else {
        r
    };
    if babs > 0x7f80_0000 {
        (b | 0x0040_0000) & 0x7fff_ffff
    } else {
        r
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
        if self.root_small::<false>(dst_addr, src_addr, shape) {
            return Ok(());
        }
        self.rsqrt_general(dst_addr, src_addr, shape)
    }

    /// [`Self::tpu_bdc_fp32_rsqrt`] through the views and the row driver (every call the
    /// small-call path turns down; it names any error). The twin of that path.
    #[inline(never)]
    pub(crate) fn rsqrt_general(
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
        if self.root_small::<true>(dst_addr, src_addr, shape) {
            return Ok(());
        }
        self.sqrt_general(dst_addr, src_addr, shape)
    }

    /// The small-call path of `tpu_bdc_fp32_rsqrt` (`SQRT` false) and `tpu_bdc_fp32_sqrt`
    /// (section comment above `mod root`): `true` when it ran the call, `false` (nothing
    /// written) when the host level is below [`HostSimd::Avx512`], the dims fail their check,
    /// the store is not allocated yet, or `root::call` turns the operands down.
    #[inline(always)]
    pub(crate) fn root_small<const SQRT: bool>(
        &mut self,
        dst_addr: LocalAddr,
        src_addr: LocalAddr,
        shape: &Dim4,
    ) -> bool {
        #[cfg(target_arch = "x86_64")]
        if self.host_simd() == HostSimd::Avx512
            && self.dims_ok_fast(shape)
            && !self.local_store().is_empty()
        {
            let chip = self.chip();
            let store = self.local_store_mut();
            // SAFETY: `HostSimd::Avx512` is only ever a detected level (AVX-512 F/DQ/VL/BW).
            return unsafe {
                match chip {
                    TpuChip::Bm1684x => root::call::<0, SQRT>(store, dst_addr, src_addr, shape),
                    TpuChip::Bm1688 => root::call::<1, SQRT>(store, dst_addr, src_addr, shape),
                }
            };
        }
        let _ = (dst_addr, src_addr, shape);
        false
    }

    /// [`Self::tpu_bdc_fp32_sqrt`] through the views and the row driver (every call the
    /// small-call path turns down; it names any error). The twin of that path.
    #[inline(never)]
    pub(crate) fn sqrt_general(
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
        self.check_dims("tpu_bdc_fp32_log", shape)?;
        #[cfg(target_arch = "x86_64")]
        if let Some(plan) = self.log_plan(dst_addr, src_addr, work_addr, coeff_addr, shape) {
            let in_place = dst_addr == src_addr;
            let zero_test = !in_place && work_addr != src_addr;
            let [d, s, w] = plan.places;
            // SAFETY: `log_plan` checked the host's AVX-512 F/DQ, every operand's footprint
            // inside its lanes and the store's size; `d` is the destination (the coefficients'
            // lane), the outputs are the source itself or apart from it, from each other and from
            // the coefficients.
            unsafe {
                avx512::log_call(
                    self.local_store_mut().as_mut_ptr(),
                    &plan.geometry,
                    s,
                    [d, w],
                    coeff_addr as usize,
                    in_place,
                    zero_test,
                )
            };
            return Ok(());
        }
        self.log_general(dst_addr, src_addr, work_addr, coeff_addr, shape)
    }

    /// [`Self::tpu_bdc_fp32_log`] through the views and the row driver (every call the
    /// small-call path turns down; it names any error). The twin of that path.
    pub(crate) fn log_general(
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
        let _ = table_addr;
        self.check_dims("tpu_bdc_fp32_exp", shape)?;
        #[cfg(target_arch = "x86_64")]
        if let Some(plan) = self.exp_plan(
            dst_addr, src_addr, work0_addr, work1_addr, coeff_addr, shape,
        ) {
            let [d, s, w0, w1] = plan.places;
            // SAFETY: `exp_plan` checked the host's AVX-512 F/DQ, every operand's footprint
            // inside its lanes and the store's size; `d` is the destination (the coefficients'
            // lane), the outputs are the source itself or apart from it, from each other and from
            // the coefficients.
            unsafe {
                avx512::exp_call(
                    self.local_store_mut().as_mut_ptr(),
                    &plan.geometry,
                    s,
                    [d, w0, w1],
                    coeff_addr as usize,
                    dst_addr == src_addr,
                )
            };
            return Ok(());
        }
        self.exp_general(
            dst_addr, src_addr, work0_addr, work1_addr, coeff_addr, shape,
        )
    }

    /// [`Self::tpu_bdc_fp32_exp`] through the views and the row driver (every call the
    /// small-call path turns down; it names any error). The twin of that path.
    pub(crate) fn exp_general(
        &mut self,
        dst_addr: LocalAddr,
        src_addr: LocalAddr,
        work0_addr: LocalAddr,
        work1_addr: LocalAddr,
        coeff_addr: LocalAddr,
        shape: &Dim4,
    ) -> Result<(), TpuError> {
        const OP: &str = "tpu_bdc_fp32_exp";
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

// The small-call path of `tpu_bdc_fp32_exp` and `tpu_bdc_fp32_log` (issue #16, acceptance 4).
//
// Where the time of a small call went (`perf` over a loop of (1,1,1,8) exps, session 18): 61% in
// the row driver (the gather into blocks of 64, the per-step passes, zeroing and copying the
// stack blocks), 16% in the four `LocalView`s and 11% in the overlap test of the gather; of a
// (1,4,1,16) log, 77% in the row driver and 15% in `memcpy` of the blocks. This path makes one
// pass of the layout checks (`crate::local::aligned_place` per operand, no views), then runs
// each channel in 16-lane AVX-512 vectors, up to four of them at once so that their Horner
// chains (9 dependent steps for exp, 15 for log) overlap, reading each lane's coefficients
// straight from the store.
//
// The flushes: the input of exp is flushed (`fz(x)`) and so is its destination (a product
// `2^n * p` below `FLT_MIN` is common); every other value the scalar element function flushes
// before the polynomial is computed unflushed and tested for a denormal (`vfpclassps`, off the
// dependency chain); the Horner steps run as a plain multiply and add when the lane's
// coefficients are tame (`avx512::tame`: then no flush inside the polynomial can change
// anything but a denormal final value, which is tested). A chunk where a tested value is a
// denormal, the coefficients are not tame, or the polynomial is a NaN (whose payload follows
// the operand order, which the compiler may swap) is recomputed lane by lane by the scalar
// element function ([`exp_elem`], [`log_elem`]), so the two paths agree bit for bit.

/// The walk of a fast SFU call: `n` batches of `c` channels of `hw` elements each, in the
/// aligned layout with f32 elements, lanes `pitch` bytes apart in the store.
#[derive(Clone, Copy, Debug)]
struct SfuGeometry {
    n: u64,
    c: u64,
    hw: u64,
    npu_shift: u32,
    lane_mask: u64,
    pitch: usize,
}

/// What the checks of a fast SFU call resolved: the walk and each operand's place
/// (destination first, then the source, then the work tensors).
#[derive(Clone, Copy, Debug)]
struct SfuPlan<const K: usize> {
    geometry: SfuGeometry,
    places: [AlignedPlace; K],
}

/// Whether two operands in the aligned layout are the very same tensor (same lane and
/// offset, so the same strides) or apart inside every lane.
fn same_or_apart(a: &AlignedPlace, b: &AlignedPlace) -> bool {
    (a.start == b.start && a.offset == b.offset)
        || a.end <= u64::from(b.offset)
        || b.end <= u64::from(a.offset)
}

impl TpuCore {
    /// The checks of the small-call path of an SFU call whose operands are `addrs`
    /// (destination first, then the source, then the work tensors) and whose coefficients are
    /// `len` f32 at `coeff` on NPU 0 (read on the destination's lanes): `None` (and the general
    /// path, which names any error) unless the core's host level is [`HostSimd::Avx512`]
    /// (AVX-512 F, DQ, VL and BW; a lower level takes the general path), the profile flushes
    /// denormals, every operand is in the aligned layout (EU-aligned, inside local memory, its
    /// footprint inside the lane: `aligned_place`), the coefficients lie on NPU 0 on the
    /// 64-byte grid, `same_start` (operand indices) starts on the destination's NPU, and each
    /// output is the source itself or apart from it, the same as or apart from every other
    /// output, and apart from the coefficients. The dims are checked by the caller.
    #[cfg(target_arch = "x86_64")]
    #[inline]
    fn sfu_plan<const K: usize>(
        &self,
        addrs: [LocalAddr; K],
        same_start: usize,
        coeff: LocalAddr,
        len: usize,
        shape: &Dim4,
    ) -> Option<SfuPlan<K>> {
        if self.chip().bdc_denormals() != BdcDenormals::FlushToZero
            || self.host_simd() != HostSimd::Avx512
        {
            return None;
        }
        let p = self.chip().local();
        let mut places = [AlignedPlace {
            start: 0,
            offset: 0,
            cs: 0,
            ns: 0,
            end: 0,
        }; K];
        for (o, &a) in places.iter_mut().zip(&addrs) {
            *o = aligned_place(&p, a, shape, 2, p.eu_bytes, false)?;
        }
        let (d, s) = (places[0], places[1]);
        let coeffs = u64::from(coeff)..u64::from(coeff) + 4 * len as u64;
        if places[same_start].start != d.start
            || !coeff.is_multiple_of(COEFF_ALIGN)
            || coeffs.end > u64::from(p.local_mem_per_npu)
            || (self.local_store().len() as u64) < p.store_size()
        {
            return None;
        }
        // Every output (all but the source, index 1): off the coefficients, the source itself
        // or apart from it, the same as or apart from each earlier output.
        let mut ok = true;
        for i in (0..K).filter(|&i| i != 1) {
            let o = &places[i];
            ok &= o.end <= coeffs.start || coeffs.end <= u64::from(o.offset);
            ok &= same_or_apart(o, &s);
            for (j, q) in places[..i].iter().enumerate() {
                ok &= j == 1 || same_or_apart(o, q);
            }
        }
        if !ok {
            return None;
        }
        Some(SfuPlan {
            geometry: SfuGeometry {
                n: shape.n as u64,
                c: shape.c as u64,
                hw: shape.h as u64 * shape.w as u64,
                npu_shift: p.npu_num.trailing_zeros(),
                lane_mask: u64::from(p.npu_num - 1),
                pitch: p.store_pitch() as usize,
            },
            places,
        })
    }

    /// [`Self::sfu_plan`] of `tpu_bdc_fp32_exp` (`work1` on the destination's NPU).
    #[cfg(target_arch = "x86_64")]
    #[inline]
    fn exp_plan(
        &self,
        dst: LocalAddr,
        src: LocalAddr,
        work0: LocalAddr,
        work1: LocalAddr,
        coeff: LocalAddr,
        shape: &Dim4,
    ) -> Option<SfuPlan<4>> {
        self.sfu_plan([dst, src, work0, work1], 3, coeff, EXP_COEFF_LEN, shape)
    }

    /// [`Self::sfu_plan`] of `tpu_bdc_fp32_log` (`work` on the destination's NPU and not the
    /// destination).
    #[cfg(target_arch = "x86_64")]
    #[inline]
    fn log_plan(
        &self,
        dst: LocalAddr,
        src: LocalAddr,
        work: LocalAddr,
        coeff: LocalAddr,
        shape: &Dim4,
    ) -> Option<SfuPlan<3>> {
        if work == dst {
            return None;
        }
        self.sfu_plan([dst, src, work], 2, coeff, LOG_COEFF_LEN, shape)
    }
}

/// The AVX-512 kernels of the small-call path (section comment above).
#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::*;

    use super::{
        EXP_COEFF_LEN, FLT_MIN, LN2, LOG_COEFF_LEN, LOG2E, R_LIMIT, SfuGeometry, exp_elem,
        exp_poly, log_elem,
    };
    use crate::local::AlignedPlace;

    /// Up to 16 consecutive elements of one channel: byte indices in the store of the source,
    /// of the outputs (destination first) and of the destination lane's coefficients; `mask`
    /// has a bit per element.
    #[derive(Clone, Copy)]
    struct Chunk<const O: usize> {
        src: usize,
        out: [usize; O],
        coeff: usize,
        mask: u16,
    }

    /// The chunks of a call in NCHW order (each channel's `hw` elements in chunks of 16, the
    /// last one partial).
    struct Chunks<const O: usize> {
        g: SfuGeometry,
        src: AlignedPlace,
        outs: [AlignedPlace; O],
        coeff: usize,
        n: u64,
        c: u64,
        e: u64,
        row: Chunk<O>,
    }

    impl<const O: usize> Chunks<O> {
        fn new(g: &SfuGeometry, src: AlignedPlace, outs: [AlignedPlace; O], coeff: usize) -> Self {
            let row = Chunk {
                src: 0,
                out: [0; O],
                coeff: 0,
                mask: 0,
            };
            Chunks {
                g: *g,
                src,
                outs,
                coeff,
                n: 0,
                c: 0,
                e: 0,
                row,
            }
        }

        /// Byte index in the store of channel `c` of batch `n` of `o`: lane `(start + c) %
        /// NPU`, slot `(start + c) / NPU`.
        #[inline(always)]
        fn at(&self, o: &AlignedPlace, n: u64, c: u64) -> usize {
            let lane_c = u64::from(o.start) + c;
            let (lane, slot) = (lane_c & self.g.lane_mask, lane_c >> self.g.npu_shift);
            lane as usize * self.g.pitch + o.offset as usize + 4 * (n * o.ns + slot * o.cs) as usize
        }

        /// Fills `buf` with the next chunks; how many (0 at the end).
        #[inline(always)]
        fn fill(&mut self, buf: &mut [Chunk<O>; 4]) -> usize {
            let mut k = 0;
            while k < 4 && self.n < self.g.n {
                if self.e == 0 {
                    let (n, c) = (self.n, self.c);
                    // The coefficients on the destination's lane of this channel.
                    let lane = (u64::from(self.outs[0].start) + c) & self.g.lane_mask;
                    self.row = Chunk {
                        src: self.at(&self.src, n, c),
                        out: self.outs.map(|o| self.at(&o, n, c)),
                        coeff: lane as usize * self.g.pitch + self.coeff,
                        mask: 0,
                    };
                }
                let m = (self.g.hw - self.e).min(16);
                let b = 4 * self.e as usize;
                buf[k] = Chunk {
                    src: self.row.src + b,
                    out: self.row.out.map(|o| o + b),
                    coeff: self.row.coeff,
                    mask: (((1u32 << m) - 1) & 0xffff) as u16,
                };
                k += 1;
                self.e += m;
                if self.e == self.g.hw {
                    self.e = 0;
                    self.c += 1;
                    if self.c == self.g.c {
                        self.c = 0;
                        self.n += 1;
                    }
                }
            }
            k
        }
    }

    /// The lanes of `v` holding a denormal.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    fn den(v: __m512) -> __mmask16 {
        _mm512_fpclass_ps_mask::<0x20>(v)
    }

    /// The lanes of `v` holding a NaN.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    fn nan(v: __m512) -> __mmask16 {
        _mm512_fpclass_ps_mask::<0x81>(v)
    }

    /// Flush-to-zero: a denormal becomes the zero of its sign.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    fn fz(v: __m512i) -> __m512i {
        let normal = _mm512_test_epi32_mask(v, _mm512_set1_epi32(0x7f80_0000));
        _mm512_mask_blend_epi32(normal, _mm512_and_si512(v, _mm512_set1_epi32(i32::MIN)), v)
    }

    /// Whether the Horner steps with the coefficients `co` (lowest first) may run unflushed:
    /// every coefficient added (all but the highest) is non-finite or at least `2^-100` in
    /// magnitude, the lowest may also be zero. Then, for a running value `p * x` computed
    /// alike by both paths:
    /// * a denormal `p * x` changes nothing: the scalar path adds `c` to its flushed zero, this
    ///   path to the denormal, less than half the spacing of the floats around `|c| >= 2^-100`
    ///   (at least `2^-124`), so both sums round to `c`; a non-finite `c` absorbs it as well;
    /// * a normal or zero `p * x` plus `c` is never a denormal (the sum is zero or at least
    ///   `2^-124`: a cancellation below `2^-126` needs `|p * x| > 2^-101`, and both addends
    ///   are then multiples of `2^-124`), so the flush of the sum changes nothing;
    /// * a zero lowest coefficient (the logarithm's) passes the last product through: a
    ///   denormal result is caught by the test of the final value.
    ///
    /// The highest coefficient is the start value, the same on both paths.
    #[inline(always)]
    fn tame<const K: usize>(co: &[f32; K]) -> bool {
        const TAME: f32 = f32::from_bits(0x0d80_0000);
        co[..K - 1]
            .iter()
            .enumerate()
            .all(|(k, &c)| c.abs() >= TAME || c.is_nan() || (k == 0 && c == 0.0))
    }

    /// The coefficients at `at` in the store.
    ///
    /// # Safety
    ///
    /// `K` f32 at byte `at` of the store at `base`.
    #[inline(always)]
    unsafe fn coeffs<const K: usize>(base: *const u8, at: usize) -> [f32; K] {
        // SAFETY: as this function's contract.
        std::array::from_fn(|k| unsafe { (base.add(at + 4 * k) as *const f32).read_unaligned() })
    }

    /// Writes `vals` (the outputs' values, destination first) to the chunk's outputs, in the
    /// order of the general path: the work tensors first, the destination last.
    ///
    /// # Safety
    ///
    /// AVX-512 F; the chunk's elements of every output inside the store at `base`.
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn store_chunk<const O: usize>(base: *mut u8, ch: &Chunk<O>, vals: [__m512; O]) {
        for k in (1..O).chain(0..1) {
            // SAFETY: as this function's contract (masked-off lanes are not touched).
            unsafe { _mm512_mask_storeu_ps(base.add(ch.out[k]) as *mut f32, ch.mask, vals[k]) };
        }
    }

    /// `tpu_bdc_fp32_exp` over the call's chunks; `outs` are dst, work0, work1.
    ///
    /// # Safety
    ///
    /// AVX-512 F and DQ; every operand's footprint inside its lanes of the store at `base`,
    /// the coefficients (`coeff`, on every destination lane) inside the store; every output the
    /// source itself or apart from it, the same as or apart from the other outputs, apart from
    /// the coefficients.
    #[target_feature(enable = "avx512f,avx512dq")]
    pub(super) unsafe fn exp_call(
        base: *mut u8,
        g: &SfuGeometry,
        src: AlignedPlace,
        outs: [AlignedPlace; 3],
        coeff: usize,
        in_place: bool,
    ) {
        let mut it = Chunks::new(g, src, outs, coeff);
        let mut buf = [it.row; 4];
        loop {
            let k = it.fill(&mut buf);
            // SAFETY: as this function's contract; the chunks are the call's.
            unsafe {
                match k {
                    4 => exp_group::<4>(base, &buf, in_place),
                    3 => exp_group::<3>(base, &buf, in_place),
                    2 => exp_group::<2>(base, &buf, in_place),
                    1 => exp_group::<1>(base, &buf, in_place),
                    _ => break,
                }
            }
        }
    }

    /// The first `G` chunks of `ch` through the exponential (module docs of `bdc_sfu`), every
    /// source read before any output is written (the outputs are the source itself or apart
    /// from it, so each chunk's writes touch no other chunk's source).
    ///
    /// # Safety
    ///
    /// As [`exp_call`].
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    unsafe fn exp_group<const G: usize>(base: *mut u8, ch: &[Chunk<3>; 4], in_place: bool) {
        let z = _mm512_setzero_ps();
        let (mut xs, mut r, mut w0, mut acc) =
            ([_mm512_setzero_si512(); G], [z; G], [z; G], [z; G]);
        let (mut bad, mut big) = ([0u16; G], [0u16; G]);
        // SAFETY: as this function's contract.
        let co: [[f32; EXP_COEFF_LEN]; G] =
            std::array::from_fn(|i| unsafe { coeffs(base, ch[i].coeff) });
        for i in 0..G {
            // SAFETY: the chunk's source elements lie inside the store (masked-off lanes are not
            // read).
            xs[i] =
                unsafe { _mm512_maskz_loadu_epi32(ch[i].mask, base.add(ch[i].src) as *const i32) };
            // The input unflushed: a denormal one is recomputed by the scalar path.
            let x = _mm512_castsi512_ps(xs[i]);
            let t = _mm512_mul_ps(x, _mm512_set1_ps(LOG2E));
            let n = _mm512_roundscale_ps::<{ _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC }>(t);
            let nl = _mm512_mul_ps(n, _mm512_set1_ps(LN2));
            let rr = _mm512_sub_ps(x, nl);
            bad[i] = den(x) | den(t) | den(nl) | den(rr);
            // Lanes whose `r` the C-model replaces by 0 (`|r| >= 2^95` or not finite): the
            // polynomial runs on `rr` there (off the chain) and is replaced below.
            big[i] = !_mm512_cmp_ps_mask::<_CMP_LT_OQ>(_mm512_abs_ps(rr), _mm512_set1_ps(R_LIMIT));
            r[i] = rr;
            // `clamp(n + 127, 0, 254)`, 0 for a NaN `n` (`max` returns its second operand then).
            let e = _mm512_max_ps(_mm512_add_ps(n, _mm512_set1_ps(127.0)), z);
            let e = _mm512_min_ps(e, _mm512_set1_ps(254.0));
            w0[i] = _mm512_castsi512_ps(_mm512_slli_epi32::<23>(_mm512_cvttps_epi32(e)));
            acc[i] = _mm512_set1_ps(co[i][EXP_COEFF_LEN - 1]);
        }
        for k in (0..EXP_COEFF_LEN - 1).rev() {
            for i in 0..G {
                let pr = _mm512_mul_ps(acc[i], r[i]);
                acc[i] = _mm512_add_ps(pr, _mm512_set1_ps(co[i][k]));
            }
        }
        for i in 0..G {
            let c = &ch[i];
            let (mut p, mut r1) = (acc[i], r[i]);
            if big[i] & c.mask != 0 {
                // The polynomial at `r = +0`, as the scalar path computes it.
                let mut p0 = co[i][EXP_COEFF_LEN - 1];
                for &ck in co[i][..EXP_COEFF_LEN - 1].iter().rev() {
                    p0 = super::fz(super::fz(p0 * 0.0, true) + ck, true);
                }
                p = _mm512_mask_mov_ps(p, big[i], _mm512_set1_ps(p0));
                r1 = _mm512_maskz_mov_ps(!big[i], r1);
            }
            bad[i] |= den(p) | nan(p) | if tame(&co[i]) { 0 } else { !0 };
            if bad[i] & c.mask == 0 {
                let d = _mm512_castsi512_ps(fz(_mm512_castps_si512(_mm512_mul_ps(w0[i], p))));
                let work0 = if in_place { p } else { w0[i] };
                // SAFETY: as this function's contract.
                unsafe { store_chunk(base, c, [d, work0, r1]) };
            } else {
                // A denormal or NaN on the way: the scalar element function, lane by lane.
                let mut x = [0f32; 16];
                // SAFETY: 16 f32 into a 16-element array.
                unsafe { _mm512_storeu_ps(x.as_mut_ptr(), _mm512_castsi512_ps(xs[i])) };
                let mut o = [[0f32; 16]; 3];
                for (j, &x) in x.iter().enumerate() {
                    let (d, a, b) = exp_elem(x, &co[i], true);
                    let a = if in_place {
                        exp_poly(x, &co[i], true)
                    } else {
                        a
                    };
                    [o[0][j], o[1][j], o[2][j]] = [d, a, b];
                }
                // SAFETY: as this function's contract; each array holds 16 f32.
                let vals = o.map(|v| unsafe { _mm512_loadu_ps(v.as_ptr()) });
                // SAFETY: as this function's contract.
                unsafe { store_chunk(base, c, vals) };
            }
        }
    }

    /// `tpu_bdc_fp32_log` over the call's chunks; `outs` are dst and work.
    ///
    /// # Safety
    ///
    /// As [`exp_call`].
    #[target_feature(enable = "avx512f,avx512dq")]
    pub(super) unsafe fn log_call(
        base: *mut u8,
        g: &SfuGeometry,
        src: AlignedPlace,
        outs: [AlignedPlace; 2],
        coeff: usize,
        in_place: bool,
        zero_test: bool,
    ) {
        let mut it = Chunks::new(g, src, outs, coeff);
        let mut buf = [it.row; 4];
        loop {
            let k = it.fill(&mut buf);
            // SAFETY: as this function's contract; the chunks are the call's.
            unsafe {
                match k {
                    4 => log_group::<4>(base, &buf, in_place, zero_test),
                    3 => log_group::<3>(base, &buf, in_place, zero_test),
                    2 => log_group::<2>(base, &buf, in_place, zero_test),
                    1 => log_group::<1>(base, &buf, in_place, zero_test),
                    _ => break,
                }
            }
        }
    }

    /// The first `G` chunks of `ch` through the logarithm (module docs of `bdc_sfu`), as
    /// [`exp_group`].
    ///
    /// # Safety
    ///
    /// As [`exp_call`].
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    unsafe fn log_group<const G: usize>(
        base: *mut u8,
        ch: &[Chunk<2>; 4],
        in_place: bool,
        zero_test: bool,
    ) {
        let z = _mm512_setzero_ps();
        let (mut xs, mut eln2, mut acc) = ([_mm512_setzero_si512(); G], [z; G], [z; G]);
        let mut t = [z; G];
        let mut bad = [0u16; G];
        // SAFETY: as this function's contract.
        let co: [[f32; LOG_COEFF_LEN]; G] =
            std::array::from_fn(|i| unsafe { coeffs(base, ch[i].coeff) });
        for i in 0..G {
            // SAFETY: the chunk's source elements lie inside the store (masked-off lanes are not
            // read).
            xs[i] =
                unsafe { _mm512_maskz_loadu_epi32(ch[i].mask, base.add(ch[i].src) as *const i32) };
            // `x > FLT_MIN ? x : FLT_MIN` (a denormal, zero or NaN `x` gives FLT_MIN, as its
            // flushed value does).
            let w = _mm512_max_ps(_mm512_castsi512_ps(xs[i]), _mm512_set1_ps(FLT_MIN));
            let e = _mm512_srli_epi32::<23>(_mm512_add_epi32(
                _mm512_castps_si512(w),
                _mm512_set1_epi32(0x0055_5554),
            ));
            let scale = _mm512_slli_epi32::<23>(_mm512_sub_epi32(_mm512_set1_epi32(254), e));
            let ws = _mm512_mul_ps(w, _mm512_castsi512_ps(scale));
            t[i] = _mm512_sub_ps(ws, _mm512_set1_ps(1.0));
            let el = _mm512_cvtepi32_ps(_mm512_sub_epi32(e, _mm512_set1_epi32(127)));
            eln2[i] = _mm512_mul_ps(el, _mm512_set1_ps(LN2));
            bad[i] = den(ws) | den(t[i]) | den(eln2[i]);
            acc[i] = _mm512_set1_ps(co[i][LOG_COEFF_LEN - 1]);
        }
        for k in (0..LOG_COEFF_LEN - 1).rev() {
            for i in 0..G {
                let pr = _mm512_mul_ps(acc[i], t[i]);
                acc[i] = _mm512_add_ps(pr, _mm512_set1_ps(co[i][k]));
            }
        }
        for i in 0..G {
            let c = &ch[i];
            let inf = _mm512_cmpeq_epi32_mask(xs[i], _mm512_set1_epi32(0x7f80_0000));
            let p = _mm512_mask_mov_ps(acc[i], inf, _mm512_set1_ps(f32::INFINITY));
            let zero = _mm512_cmpeq_epi32_mask(xs[i], _mm512_setzero_si512());
            let zero = if zero_test { zero } else { 0 };
            let p = _mm512_mask_mov_ps(p, zero, _mm512_set1_ps(f32::NEG_INFINITY));
            let d = _mm512_add_ps(p, eln2[i]);
            bad[i] |= den(acc[i]) | nan(acc[i]) | den(d) | if tame(&co[i]) { 0 } else { !0 };
            if bad[i] & c.mask == 0 {
                let work = if in_place { p } else { eln2[i] };
                // SAFETY: as this function's contract.
                unsafe { store_chunk(base, c, [d, work]) };
            } else {
                // A denormal or NaN on the way: the scalar element function, lane by lane.
                let mut x = [0u32; 16];
                // SAFETY: 16 u32 into a 16-element array.
                unsafe { _mm512_storeu_si512(x.as_mut_ptr() as *mut __m512i, xs[i]) };
                let mut o = [[0f32; 16]; 2];
                for (j, &x) in x.iter().enumerate() {
                    let (d, p, e) = log_elem(x, &co[i], true, zero_test);
                    [o[0][j], o[1][j]] = [d, if in_place { p } else { e }];
                }
                // SAFETY: as this function's contract; each array holds 16 f32.
                let vals = o.map(|v| unsafe { _mm512_loadu_ps(v.as_ptr()) });
                // SAFETY: as this function's contract.
                unsafe { store_chunk(base, c, vals) };
            }
        }
    }
}

// The small-call path of `tpu_bdc_fp32_rsqrt` and `tpu_bdc_fp32_sqrt` (issue #16, acceptance 4;
// session 19). Before it, a (1,1,1,8) call took 129-132 ns and a (1,4,1,16) one 666-797 ns
// through `sfu_unary` (two `LocalView`s, a row buffer on the heap, the element function called
// through a pointer per element). This path is the technique of `crate::avx512`: each chip's
// profile a constant of its own instantiation (`root::call::<CHIP, SQRT>`, so the layout checks
// of `crate::local::aligned_place` are shifts and masks by constants), the checks and the rows
// in one AVX-512 function, each channel's row in masked 16-lane vectors.
//
// The element functions in vector form, without the flushes: [`rsqrt_elem`]'s seed
// `0x5f3759df - bits(x) / 2` as an integer subtraction, `h = 0.5 * x`, three Newton steps
// `y = y * (1.5 - ((h * y) * y))` in the scalar function's operation order (no fused
// multiply-add), the sign bit of `x` XORed in; [`sqrt_elem`]: `x * rsqrt(x)`, `±0` kept. That
// is bit for bit the scalar function, flushes included, on the lanes whose `x` is `±0`, `+inf`
// or a positive normal of at least `2^-125` (bits in `0x01000000..=0x7f800000`):
// * `±0`: `h = ±0`, every step `t = ±0`, `m = 1.5`, `y` grows from `2^63`-ish (`+0`) or
//   `2^-64`-ish (`-0`) by `1.5^3`: no denormal, no NaN;
// * `+inf`: `h = +inf`, `y` goes `-inf`, `+inf`, `-inf` (`inf` times a non-zero value): no NaN;
// * `x >= 2^-125` normal: `h = x / 2` is normal, the seed is within 3.5% of `x^-1/2`, so in
//   every step `t` lies in `[0.46, 0.54]`, `m` in `[0.96, 1.04]`, `h * y` near `sqrt(x) / 2` and
//   `y` near `x^-1/2` (both in `[2^-64, 2^63]`), the square root near `sqrt(x)`: nothing
//   denormal or NaN, so no flush changes a value.
// `root::tests::kernel_equals_elements_sampled` holds this over a stride of all bit patterns
// and the boundaries (`kernel_equals_elements_exhaustive`, ignored, over all 2^32). Every other
// lane (NaN, negative, `-inf`, denormal, `x < 2^-125`: the seed wraps, `h` or the seed is a
// denormal, or the x86 NaN rule decides) is recomputed by the scalar element function in a
// cold fix (`root::fix`). The source may be the destination itself (the reciprocal square
// root; each vector is loaded before it is stored over) or apart from it inside every lane;
// anything else the path turns down, and the general path (`sfu_unary`, the twin) runs the
// call and names any error.

/// The AVX-512 kernels of the small-call path of the reciprocal square root and the square
/// root (section comment above).
#[cfg(target_arch = "x86_64")]
mod root {
    use std::arch::x86_64::*;

    use super::{rsqrt_elem, sqrt_elem};
    use crate::chip::{BdcDenormals, LocalProfile, TpuChip};
    use crate::local::{Dim4, LocalAddr, aligned_place};

    /// The chips by the index of [`call`]'s `CHIP`.
    const CHIPS: [TpuChip; 2] = [TpuChip::Bm1684x, TpuChip::Bm1688];

    /// `tpu_bdc_fp32_rsqrt` (`SQRT` false) or `_sqrt` on chip `CHIPS[CHIP]`: the checks, then
    /// the rows; `false` (nothing written) when the call is not one this path takes: the
    /// profile does not flush, the store does not hold every lane, a square root in place,
    /// an operand fails `aligned_place` (`dst` EU-aligned, `src` EU-aligned for the square root
    /// and f32-aligned for the reciprocal square root, in local memory, the footprint inside
    /// the lanes), `src` on another start NPU, or `src` neither the destination itself (the
    /// reciprocal square root) nor apart from it inside every lane. The dims are the caller's.
    ///
    /// # Safety
    ///
    /// The host has AVX-512 F, DQ and VL.
    #[target_feature(enable = "avx512f,avx512dq,avx512vl")]
    pub(super) unsafe fn call<const CHIP: usize, const SQRT: bool>(
        store: &mut [u8],
        dst: LocalAddr,
        src: LocalAddr,
        shape: &Dim4,
    ) -> bool {
        let p: LocalProfile = const { CHIPS[CHIP].local() };
        let flush = const { matches!(CHIPS[CHIP].bdc_denormals(), BdcDenormals::FlushToZero) };
        if !flush || (store.len() as u64) < p.store_size() || (SQRT && dst == src) {
            return false;
        }
        let src_align = if SQRT { p.eu_bytes } else { 4 };
        let (Some(d), Some(s)) = (
            aligned_place(&p, dst, shape, 2, p.eu_bytes, false),
            aligned_place(&p, src, shape, 2, src_align, false),
        ) else {
            return false;
        };
        let same = !SQRT && s.offset == d.offset;
        let apart = d.end <= u64::from(s.offset) || s.end <= u64::from(d.offset);
        if s.start != d.start || !(same || apart) {
            return false;
        }
        // Same start NPU and shape: the same strides, so the source of each element lies a
        // fixed distance from its destination in the store.
        let delta = s.offset as isize - d.offset as isize;
        let hw = shape.h as usize * shape.w as usize;
        let npu = p.npu_num as usize;
        let pitch = p.store_pitch() as usize;
        let first = d.start as usize * pitch + d.offset as usize;
        let base = store.as_mut_ptr();
        let (n, c) = (shape.n as usize, shape.c as usize);
        // Each row of the destination and of the source lies inside the store (`aligned_place`
        // put both footprints inside the lanes, the store holds every lane, checked above).
        if n == 1 && d.start as usize + c <= npu {
            // One batch, no channel past the last lane.
            for ch in 0..c {
                let at = first + ch * pitch;
                // SAFETY: both rows inside the store (above), the same or apart.
                unsafe { row::<SQRT>(base, at, at.wrapping_add_signed(delta), hw) };
            }
            return true;
        }
        let (cs, ns) = ((d.cs as usize) << 2, (d.ns as usize) << 2);
        for i in 0..n {
            let (mut at, mut lane) = (first + i * ns, d.start as usize);
            for _ in 0..c {
                // SAFETY: both rows inside the store (above), the same or apart.
                unsafe { row::<SQRT>(base, at, at.wrapping_add_signed(delta), hw) };
                // The next lane, or lane 0 of the next slot.
                if lane + 1 == npu {
                    (at, lane) = (at + cs - (npu - 1) * pitch, 0);
                } else {
                    (at, lane) = (at + pitch, lane + 1);
                }
            }
        }
        true
    }

    /// One channel's row of `hw` elements, the destination at byte `d` of the store at
    /// `base`, the source at byte `s`: vectors of 16, the last one masked.
    ///
    /// # Safety
    ///
    /// AVX-512 F/DQ/VL; both rows inside the store, the same or apart.
    #[inline(always)]
    unsafe fn row<const SQRT: bool>(base: *mut u8, d: usize, s: usize, hw: usize) {
        let mut k = 0;
        while k < hw {
            let left = hw - k;
            let m: __mmask16 = if left >= 16 {
                0xffff
            } else {
                ((1u32 << left) - 1) as u16
            };
            // SAFETY: the row's live elements lie inside the store (the contract); the masked
            // load and store touch only them.
            unsafe {
                let x = _mm512_maskz_loadu_epi32(m, base.add(s + 4 * k).cast());
                let r = elems::<SQRT>(x, m);
                _mm512_mask_storeu_ps(base.add(d + 4 * k).cast(), m, r);
            }
            k += 16;
        }
    }

    /// The reciprocal square root (`SQRT` false) or the square root of the 16 f32 bit
    /// patterns `x`, bit for bit [`rsqrt_elem`] / [`sqrt_elem`] (section comment above); the
    /// lanes of `live` outside the vector form's domain recomputed by [`fix`].
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq,avx512vl")]
    pub(super) fn elems<const SQRT: bool>(x: __m512i, live: __mmask16) -> __m512 {
        let xf = _mm512_castsi512_ps(x);
        let y0 = _mm512_sub_epi32(_mm512_set1_epi32(0x5f37_59df), _mm512_srli_epi32::<1>(x));
        let h = _mm512_mul_ps(xf, _mm512_set1_ps(0.5));
        let three_halves = _mm512_set1_ps(1.5);
        let mut y = _mm512_castsi512_ps(y0);
        for _ in 0..3 {
            let t = _mm512_mul_ps(_mm512_mul_ps(h, y), y);
            y = _mm512_mul_ps(y, _mm512_sub_ps(three_halves, t));
        }
        let sign = _mm512_and_si512(x, _mm512_set1_epi32(i32::MIN));
        let r = _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(y), sign));
        // The domain: `±0`, or bits in `0x01000000..=0x7f800000` (`+inf` and the positive
        // normals from `2^-125`).
        let zero = _mm512_testn_epi32_mask(x, _mm512_set1_epi32(0x7fff_ffff));
        let big = _mm512_sub_epi32(x, _mm512_set1_epi32(0x0100_0000));
        let ok = _mm512_cmple_epu32_mask(big, _mm512_set1_epi32(0x7e80_0000)) | zero;
        let r = if SQRT {
            // `±0` is returned as it is.
            _mm512_mask_mov_ps(_mm512_mul_ps(xf, r), zero, xf)
        } else {
            r
        };
        let odd = live & !ok;
        if odd != 0 { fix::<SQRT>(x, r, odd) } else { r }
    }

    /// The lanes `odd` of `r` recomputed by the scalar element function of `x`.
    #[cold]
    #[inline(never)]
    #[target_feature(enable = "avx512f")]
    fn fix<const SQRT: bool>(x: __m512i, r: __m512, odd: __mmask16) -> __m512 {
        let (mut xs, mut rs) = ([0u32; 16], [0f32; 16]);
        // SAFETY: unaligned stores of two registers into local arrays of 16 elements.
        unsafe {
            _mm512_storeu_si512(xs.as_mut_ptr().cast(), x);
            _mm512_storeu_ps(rs.as_mut_ptr(), r);
        }
        for (k, (o, &b)) in rs.iter_mut().zip(&xs).enumerate() {
            if odd & (1 << k) != 0 {
                let v = f32::from_bits(b);
                *o = if SQRT {
                    sqrt_elem(v, true)
                } else {
                    rsqrt_elem(v, true)
                };
            }
        }
        // SAFETY: an unaligned load of a local array of 16 f32.
        unsafe { _mm512_loadu_ps(rs.as_ptr()) }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        /// `elems` over 16 bit patterns (the host has AVX-512 F/DQ/VL: the caller checks).
        fn kernel<const SQRT: bool>(xs: &[u32; 16]) -> [u32; 16] {
            let mut out = [0u32; 16];
            // SAFETY: the caller checked the host's AVX-512 F/DQ/VL; local arrays of 16.
            unsafe {
                let x = _mm512_loadu_si512(xs.as_ptr().cast());
                let r = elems::<SQRT>(x, 0xffff);
                _mm512_storeu_si512(out.as_mut_ptr().cast(), _mm512_castps_si512(r));
            }
            out
        }

        fn avx512() -> bool {
            crate::HostSimd::detect() == crate::HostSimd::Avx512
        }

        /// Checks the kernel against the scalar element functions on the patterns `from ..=
        /// to` stepping by `step` (16 at a time); how many differ, and the first.
        fn sweep(from: u64, to: u64, step: u64) -> (u64, Option<(u32, bool)>) {
            let (mut bad, mut first) = (0, None);
            let mut v = from;
            while v <= to {
                let xs: [u32; 16] = std::array::from_fn(|k| (v + k as u64 * step).min(to) as u32);
                let (r, q) = (kernel::<false>(&xs), kernel::<true>(&xs));
                for k in 0..16 {
                    let x = f32::from_bits(xs[k]);
                    for (got, want, sq) in [
                        (r[k], rsqrt_elem(x, true).to_bits(), false),
                        (q[k], sqrt_elem(x, true).to_bits(), true),
                    ] {
                        if got != want {
                            bad += 1;
                            first.get_or_insert((xs[k], sq));
                        }
                    }
                }
                v += 16 * step;
            }
            (bad, first)
        }

        /// The vector form equals the scalar element functions (flushes, NaN rule, fix of the
        /// lanes outside its domain) on every 997th bit pattern and on every pattern near the
        /// bounds of its domain and of the seed's wrap.
        #[test]
        fn kernel_equals_elements_sampled() {
            if !avx512() {
                return;
            }
            assert_eq!(sweep(0, u32::MAX as u64, 997), (0, None));
            for edge in [
                0u64,
                0x0080_0000,
                0x0100_0000,
                0x7f80_0000,
                0x8000_0000,
                0x8080_0000,
                0xbe6e_b3be,
                0xbf6e_b3be,
                0xff80_0000,
            ] {
                let (lo, hi) = (
                    edge.saturating_sub(4096),
                    (edge + 4096).min(u32::MAX as u64),
                );
                assert_eq!(sweep(lo, hi, 1), (0, None), "near {edge:#x}");
            }
        }

        /// [`kernel_equals_elements_sampled`] over all 2^32 bit patterns (670 s under the test
        /// profile on the shared host of session 19).
        #[test]
        #[ignore]
        fn kernel_equals_elements_exhaustive() {
            if !avx512() {
                return;
            }
            assert_eq!(sweep(0, u32::MAX as u64, 1), (0, None));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`cmodel_div_bits`] equals [`cmodel_div`] with flushing, bit for bit: every pair of
    /// special patterns (zeros, denormals, the bounds where the reciprocal's steps meet
    /// denormals, normals, infinities, quiet and signalling NaNs, both signs), every 997th
    /// divisor pattern with pseudo-random and special dividends, and every divisor near those
    /// bounds.
    #[test]
    fn div_bits_equal_cmodel_div() {
        let base = [
            0u32,
            1,
            0x0000_0400,
            0x001f_dff2,
            0x001f_dff3,
            0x007f_ffff,
            0x0080_0000,
            0x00ff_ffff,
            0x0100_0000,
            0x0100_0001,
            0x0c00_0000,
            0x3f00_0000,
            0x3f80_0000,
            0x3fc0_0000,
            0x4049_0fdb,
            0x5f37_59df,
            0x7e7f_ffff,
            0x7e80_0000,
            0x7f00_0000,
            0x7f7f_ffff,
            0x7f80_0000,
            0x7f80_0001,
            0x7fa0_0000,
            0x7fc0_0000,
            0x7fff_ffff,
        ];
        let sp: Vec<u32> = base.iter().flat_map(|&b| [b, b | 0x8000_0000]).collect();
        let check = |x: u32, y: u32| {
            let want = cmodel_div(f32::from_bits(x), f32::from_bits(y), true).to_bits();
            assert_eq!(cmodel_div_bits(x, y), want, "{x:#x} / {y:#x}");
        };
        for &x in &sp {
            for &y in &sp {
                check(x, y);
            }
        }
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        let mut value = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let v = (s >> 16) as u32;
            if v.is_multiple_of(3) {
                (v & 0x80ff_ffff) | 0x3f00_0000
            } else {
                v
            }
        };
        for (i, y) in (0..=u32::MAX as u64).step_by(997).enumerate() {
            let x = if i.is_multiple_of(4) {
                sp[i / 4 % sp.len()]
            } else {
                value()
            };
            check(x, y as u32);
        }
        for edge in [0u32, 0x0020_0000, 0x0100_0000, 0x7e80_0000, 0x7f80_0000] {
            for sign in [0, 0x8000_0000] {
                for y in edge.saturating_sub(4096)..=edge.saturating_add(4096).min(0x7fff_ffff) {
                    check(value(), y | sign);
                }
            }
        }
    }

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

    /// The small-call path of exp and log (AVX-512) against its twin, the general path
    /// (`exp_general` / `log_general`: views, row driver, scalar element functions).
    mod fast_path {
        use super::super::*;
        use crate::chip::TpuChip;
        use proptest::prelude::*;

        const LM: u32 = 1 << 18;

        /// One operand drawn as (kind, start NPU, slot, delta): kind 0 a place of its own at
        /// `start * LM + 0x1000 * (k + 1) + delta` for operand `k` (the destination's start
        /// NPU unless `start` is drawn apart; a delta of 4 or 32 is misaligned, 64 or 0x440
        /// shifts it over a neighbour), kind 1 the address of an earlier operand, kind 2 near
        /// the end of the lane (the footprint may not fit), kind 3 an earlier operand's offset
        /// on a start NPU 1 or 2 lanes before or after it, kind 4 an earlier operand shifted by
        /// 64 or 128 bytes on its lanes (`slot` picks the earlier operand and the shift).
        type Operand = (u8, Option<u32>, u32, u32);

        const DELTAS: [u32; 16] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 64, 0x440, 4, 32];

        fn operand() -> impl Strategy<Value = Operand> {
            (
                prop_oneof![8 => Just(0u8), 2 => Just(1u8), 1 => Just(2u8), 2 => Just(3u8), 2 => Just(4u8)],
                prop_oneof![3 => Just(None), 1 => (0u32..64).prop_map(Some)],
                0u32..6,
                0u32..16,
            )
        }

        /// The operands' addresses (destination first); with `clean`, every operand a place of
        /// its own at delta 0 or an earlier operand's address, so that the small-call path
        /// takes most of those calls.
        fn addrs<const K: usize>(ops: [Operand; K], clean: bool) -> [u32; K] {
            let mut out = [0u32; K];
            let d_start = ops[0].1.unwrap_or(0);
            for k in 0..K {
                let (mut kind, start, slot, mut delta) = ops[k];
                if clean {
                    kind = kind.min(1);
                    delta = 0;
                }
                let start = start.unwrap_or(d_start);
                let delta = DELTAS[delta as usize];
                let earlier = out[..k].get(slot as usize % k.max(1)).copied();
                out[k] = match (kind, earlier) {
                    (1, Some(a)) => a,
                    (3, Some(a)) => (a / LM + [1, 2, 63, 62][slot as usize % 4]) % 64 * LM + a % LM,
                    (4, Some(a)) => a + 64 * (1 + slot % 2),
                    (2, _) => start * LM + LM - 0x400 + delta,
                    _ => start * LM + 0x1000 * (k as u32 + 1) + delta,
                };
            }
            out
        }

        /// The coefficient address: kind 0 apart (0x3f000), 1 on the slot of operand `slot`
        /// (over an output when that one is), 2 misaligned, 3 off NPU 0.
        fn coeff_addr<const K: usize>(kind: u8, slot: u32, addrs: &[u32; K]) -> u32 {
            match kind {
                1 => (addrs[slot as usize % K] % LM) & !63,
                2 => 0x3f020,
                3 => LM + 0x3f000,
                _ => 0x3f000,
            }
        }

        /// An input value: specials (NaN, infinities, zeros, denormals, the bounds of both
        /// functions), tiny normals (denormal products on the way), ordinary values, any bits.
        pub(super) fn value(x: &mut u64) -> u32 {
            *x ^= *x << 13;
            *x ^= *x >> 7;
            *x ^= *x << 17;
            let b = (*x >> 16) as u32;
            const SPECIALS: [u32; 16] = [
                0,
                0x8000_0000,
                1,
                0x8000_0001,
                0x007f_ffff,
                0x0080_0000,
                0x7f80_0000,
                0xff80_0000,
                0x7fc0_0000,
                0xffc1_2345,
                0x7f80_0001,
                0x7f7f_ffff,
                0x42b1_7219,
                0xc2ce_8ed0,
                0x7f2a_aaac,
                0x3faa_aaab,
            ];
            match *x % 8 {
                0 => SPECIALS[(b % 16) as usize],
                1 => (0x0080_0000 + b % 0x0d00_0000) | (b & 0x8000_0000),
                2..=4 => f32::to_bits((b % 20_000) as f32 / 100.0 - 100.0),
                _ => b,
            }
        }

        /// A core whose lanes hold drawn values (the first 0x7000 bytes and the last 0x800 of
        /// every lane) and the coefficients `coeff` at `at` on every lane; with `odd`, some
        /// lanes' coefficients are replaced by drawn values (denormals, tiny values, zeros and
        /// infinities among them, no NaN: which of two NaN operands an addition returns is the
        /// compiler's choice in the scalar twins as well, see the module docs).
        fn core_with(seed: u64, at: u32, coeff: &[f32], odd: bool) -> TpuCore {
            let mut core = TpuCore::with_gm_size(TpuChip::Bm1684x, 1 << 16).expect("core");
            let pitch = core.chip().local().store_pitch() as usize;
            let mut x = seed | 1;
            let store = core.local_store_mut();
            for lane in 0..64 {
                let base = lane * pitch;
                for r in [0..0x7000, LM as usize - 0x800..LM as usize] {
                    for w in store[base + r.start..base + r.end].chunks_exact_mut(4) {
                        w.copy_from_slice(&value(&mut x).to_le_bytes());
                    }
                }
                if (at as usize) < LM as usize - 64 {
                    for (k, c) in coeff.iter().enumerate() {
                        let v = if odd && value(&mut x).is_multiple_of(3) {
                            // A NaN drawn becomes the infinity of its sign (module docs).
                            let v = value(&mut x);
                            if f32::from_bits(v).is_nan() {
                                v & 0xff80_0000
                            } else {
                                v
                            }
                        } else {
                            c.to_bits()
                        };
                        let i = base + at as usize + 4 * k;
                        store[i..i + 4].copy_from_slice(&v.to_le_bytes());
                    }
                }
            }
            core
        }

        fn shape() -> impl Strategy<Value = (i32, i32, i32, i32)> {
            (
                1i32..3,
                prop_oneof![1i32..5, 1i32..70],
                1i32..4,
                prop_oneof![1i32..17, 1i32..40],
            )
        }

        /// The host level of the core under test: mostly AVX-512 (the small-call paths),
        /// sometimes a lower one (the general path; capped at the host's level anyway).
        pub(super) fn simd() -> impl Strategy<Value = HostSimd> {
            prop_oneof![
                6 => Just(HostSimd::Avx512),
                1 => Just(HostSimd::Avx2),
                1 => Just(HostSimd::Baseline)
            ]
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(96))]

            /// `tpu_bdc_fp32_exp` (the small-call path where it is taken) equals `exp_general`
            /// on two copies of one core: the same result or error, the same local memory.
            /// Drawn: shapes with partial chunks, start NPUs, in place and other shared
            /// addresses, shifted overlaps, misaligned and out-of-range operands, the
            /// coefficients apart, under an output, misaligned or off NPU 0, odd coefficients
            /// on some lanes, specials, denormals and tiny inputs.
            #[test]
            fn exp_fast_path_equals_general_path(
                (n, c, h, w) in shape(),
                ops in [operand(), operand(), operand(), operand()],
                (ck, cslot, odd, clean) in (0u8..4, 0u32..4, any::<bool>(), any::<bool>()),
                seed in any::<u64>(),
                simd in simd(),
            ) {
                let s = Dim4::new(n, c, h, w);
                let [d, src, w0, w1] = addrs(ops, clean);
                let ck = if clean { 0 } else { ck };
                let co = coeff_addr(ck, cslot, &[d, src, w0, w1]);
                let mut a = core_with(seed, co % LM, &exp_coeff(), odd);
                a.set_host_simd(simd);
                let mut b = a.clone();
                let ra = a.tpu_bdc_fp32_exp(d, src, w0, w1, co, 0, &s);
                let rb = b.exp_general(d, src, w0, w1, co, &s);
                prop_assert_eq!(&ra, &rb);
                prop_assert!(a.local_store() == b.local_store(), "stores differ");
            }

            /// `tpu_bdc_fp32_log` against `log_general`, drawn as for the exponential.
            #[test]
            fn log_fast_path_equals_general_path(
                (n, c, h, w) in shape(),
                ops in [operand(), operand(), operand()],
                (ck, cslot, odd, clean) in (0u8..4, 0u32..3, any::<bool>(), any::<bool>()),
                seed in any::<u64>(),
                simd in simd(),
            ) {
                let s = Dim4::new(n, c, h, w);
                let [d, src, wk] = addrs(ops, clean);
                let ck = if clean { 0 } else { ck };
                let co = coeff_addr(ck, cslot, &[d, src, wk]);
                let mut a = core_with(seed, co % LM, &log_coeff(), odd);
                a.set_host_simd(simd);
                let mut b = a.clone();
                let ra = a.tpu_bdc_fp32_log(d, src, wk, co, &s);
                let rb = b.log_general(d, src, wk, co, &s);
                prop_assert_eq!(&ra, &rb);
                prop_assert!(a.local_store() == b.local_store(), "stores differ");
            }
        }

        /// The small-call path takes the calls of the bench and the side-by-side (aligned,
        /// apart, in place) on an AVX-512 host, and turns down what it must: misaligned or
        /// out-of-range operands, `work1` / `work` off the destination's NPU, outputs partly
        /// over the source or each other or over the coefficients, misplaced coefficients, a
        /// host level below AVX-512.
        #[test]
        fn fast_path_takes_and_refuses() {
            if HostSimd::detect() != HostSimd::Avx512 {
                return;
            }
            let mut core = TpuCore::with_gm_size(TpuChip::Bm1684x, 1 << 16).expect("core");
            // Not before the store exists (the general path allocates it).
            let s = Dim4::new(1, 1, 1, 8);
            assert!(
                core.exp_plan(0x20000, 0, 0x10000, 0x30000, 0x3ff00, &s)
                    .is_none()
            );
            core.local_store_mut();
            for s in [
                Dim4::new(1, 1, 1, 8),
                Dim4::new(1, 4, 1, 16),
                Dim4::new(2, 70, 3, 33),
            ] {
                let e = |a: [u32; 5]| core.exp_plan(a[0], a[1], a[2], a[3], a[4], &s).is_some();
                let l = |a: [u32; 4]| core.log_plan(a[0], a[1], a[2], a[3], &s).is_some();
                assert!(e([0x20000, 0, 0x10000, 0x30000, 0x3ff00]));
                assert!(e([0, 0, 0x10000, 0x30000, 0x3ff00]));
                assert!(e([LM + 0x20000, 3 * LM, 0x10000, LM + 0x30000, 0x3ff00]));
                assert!(l([0x20000, 0, 0x30000, 0x3fe00]));
                assert!(l([0, 0, 0x30000, 0x3fe00]));
                assert!(l([0x20000, 0x30000, 0x30000, 0x3fe00]));
                for bad in [
                    [0x20004, 0, 0x10000, 0x30000, 0x3ff00],
                    [0x20000, 32, 0x10000, 0x30000, 0x3ff00],
                    [0x20000, 0, 0x10000, LM + 0x30000, 0x3ff00],
                    [0x20000, LM + 0x20000, 0x10000, 0x30000, 0x3ff00],
                    [0x20000, 0, LM + 0x20000, 0x30000, 0x3ff00],
                    [0x20000, 0, 0x10000, 0x30000, 0x20000],
                    [0x20000, 0, 0x10000, 0x30000, 0x3ff20],
                    [0x20000, 0, 0x10000, 0x30000, LM + 0x3ff00],
                    [0x20000, 0, 0x10000, 64 * LM, 0x3ff00],
                ] {
                    assert!(!e(bad), "{bad:x?}");
                }
                if s.h * s.w > 16 {
                    assert!(!e([0x20000, LM - 0x40, 0x10000, 0x30000, 0x3ff00]));
                    assert!(!e([0x20000, 0x20040, 0x10000, 0x30000, 0x3ff00]));
                    assert!(!l([0x20000, 0, 0x30000, 0x30040]));
                }
                for bad in [
                    [0x20000, 0, 0x20000, 0x3fe00],
                    [0x20000, 0, LM + 0x30000, 0x3fe00],
                    [0x20000, LM + 0x20000, 0x30000, 0x3fe00],
                    [0x20000, 0, 0x30000, 0x30000],
                    [0x20000, 0, 0x30000, 0x3fe04],
                ] {
                    assert!(!l(bad), "{bad:x?}");
                }
            }
            // A host level below AVX-512 takes the general path.
            let s = Dim4::new(1, 1, 1, 8);
            for level in [HostSimd::Avx2, HostSimd::Baseline] {
                core.set_host_simd(level);
                assert!(
                    core.exp_plan(0x20000, 0, 0x10000, 0x30000, 0x3ff00, &s)
                        .is_none()
                );
                assert!(core.log_plan(0x20000, 0, 0x30000, 0x3fe00, &s).is_none());
            }
        }
    }

    /// The small-call path of the reciprocal square root and the square root (AVX-512, the
    /// module `root`) against its twin, the general path (`rsqrt_general` / `sqrt_general`:
    /// views, row driver, scalar element functions).
    mod root_path {
        use super::super::*;
        use crate::chip::TpuChip;
        use proptest::prelude::*;

        /// Patterns at the bounds of the vector form's domain and of the seed's wrap.
        const EDGES: [u32; 12] = [
            0x00ff_ffff,
            0x0100_0000,
            0x0100_0001,
            0x0080_0000,
            0x7f7f_ffff,
            0x8080_0000,
            0xbe6e_b3be,
            0xbe6e_b3c0,
            0xbf6e_b3bd,
            0xbf6e_b3be,
            0x7fbf_ffff,
            0xff80_0001,
        ];

        /// A source value: the exp/log tests' draw (specials, tiny normals, ordinary values,
        /// any bits) or one of [`EDGES`].
        fn value(x: &mut u64) -> u32 {
            let v = super::fast_path::value(x);
            if v.is_multiple_of(8) {
                EDGES[(v / 8 % 12) as usize]
            } else {
                v
            }
        }

        /// A core of `chip` at host level `simd` whose lanes hold drawn values in their first
        /// 0x4000 bytes and their last 0x800.
        fn core_with(chip: TpuChip, simd: HostSimd, seed: u64) -> TpuCore {
            let mut core = TpuCore::with_gm_size(chip, 1 << 16).expect("core");
            core.set_host_simd(simd);
            let p = chip.local();
            let (pitch, lm) = (p.store_pitch() as usize, p.local_mem_per_npu as usize);
            let mut x = seed | 1;
            let store = core.local_store_mut();
            for lane in 0..p.npu_num as usize {
                let base = lane * pitch;
                for r in [0..0x4000, lm - 0x800..lm] {
                    for w in store[base + r.start..base + r.end].chunks_exact_mut(4) {
                        w.copy_from_slice(&value(&mut x).to_le_bytes());
                    }
                }
            }
            core
        }

        /// Byte offsets added to an operand: mostly none; element-aligned but not EU-aligned
        /// (4, 8, 32), not element-aligned (2), a neighbour's footprint (64, 0x440).
        const DELTAS: [u32; 12] = [0, 0, 0, 0, 0, 0, 4, 8, 32, 2, 64, 0x440];

        /// (dst, src) on a chip of `npu` lanes of `lm` bytes: `dst` at `0x1000` (kind 0) or
        /// near the end of its lane (kind 1, the footprint may not fit) or past local memory
        /// (kind 2) on start NPU `ds`; `src` (kind) 0 a place of its own at `0x2000` on start
        /// NPU `ss` (the destination's unless drawn), 1 the destination itself, 2 the
        /// destination's offset on another start NPU, 3 the destination shifted up by 4, 64 or
        /// 128 bytes, 4 shifted down by as much (partial overlaps: a source behind its
        /// destination is read after some of it was written); each plus a drawn delta.
        #[allow(clippy::too_many_arguments)]
        fn addrs(
            (npu, lm): (u32, u32),
            (dk, ds, dd): (u8, u32, usize),
            (sk, ss, sd): (u8, Option<u32>, usize),
            shift: u32,
        ) -> (u32, u32) {
            let ds = ds % npu;
            let dst = match dk {
                1 => ds * lm + lm - 0x400,
                2 => npu * lm + 0x1000,
                _ => ds * lm + 0x1000,
            } + DELTAS[dd];
            let src = match sk {
                1 => dst,
                2 => (dst / lm + [1, 2, npu - 1][shift as usize % 3]) % npu * lm + dst % lm,
                3 => dst + [4, 64, 128][shift as usize % 3],
                4 => dst - [4, 64, 128][shift as usize % 3],
                _ => ss.unwrap_or(ds) % npu * lm + 0x2000 + DELTAS[sd],
            };
            (dst, src)
        }

        fn shape() -> impl Strategy<Value = (i32, i32, i32, i32)> {
            (
                1i32..3,
                prop_oneof![1i32..5, 1i32..70],
                1i32..4,
                prop_oneof![8 => 1i32..17, 8 => 1i32..40, 1 => Just(0), 1 => Just(65536)],
            )
        }

        fn chip() -> impl Strategy<Value = TpuChip> {
            prop_oneof![3 => Just(TpuChip::Bm1684x), 1 => Just(TpuChip::Bm1688)]
        }

        type DstDraw = (u8, u32, usize);
        type SrcDraw = (u8, Option<u32>, usize);

        fn dst_draw() -> impl Strategy<Value = DstDraw> {
            (
                prop_oneof![12 => Just(0u8), 2 => Just(1u8), 1 => Just(2u8)],
                prop_oneof![2 => Just(0u32), 1 => 0u32..64],
                prop_oneof![6 => Just(0usize), 1 => 0usize..12],
            )
        }

        fn src_draw() -> impl Strategy<Value = SrcDraw> {
            (
                prop_oneof![
                    8 => Just(0u8),
                    3 => Just(1u8),
                    1 => Just(2u8),
                    1 => Just(3u8),
                    2 => Just(4u8)
                ],
                prop_oneof![6 => Just(None), 1 => (0u32..64).prop_map(Some)],
                prop_oneof![4 => Just(0usize), 1 => 0usize..12],
            )
        }

        /// One drawn call on two copies of one core: `tpu_bdc_fp32_rsqrt` / `_sqrt` (the
        /// small-call path where it is taken) on the first, the general path on the second;
        /// the same result or error and the same local memory.
        #[allow(clippy::too_many_arguments)]
        fn check(
            sqrt: bool,
            chip: TpuChip,
            simd: HostSimd,
            (n, c, h, w): (i32, i32, i32, i32),
            dst: DstDraw,
            src: SrcDraw,
            shift: u32,
            seed: u64,
        ) -> Result<(), TestCaseError> {
            let p = chip.local();
            let (d, sr) = addrs((p.npu_num, p.local_mem_per_npu), dst, src, shift);
            let s = Dim4::new(n, c, h, w);
            let mut a = core_with(chip, simd, seed);
            let mut b = a.clone();
            let (ra, rb) = if sqrt {
                (a.tpu_bdc_fp32_sqrt(d, sr, &s), b.sqrt_general(d, sr, &s))
            } else {
                (a.tpu_bdc_fp32_rsqrt(d, sr, &s), b.rsqrt_general(d, sr, &s))
            };
            prop_assert_eq!(&ra, &rb, "dst {:#x} src {:#x} {:?}", d, sr, s);
            prop_assert!(
                a.local_store() == b.local_store(),
                "stores differ: dst {:#x} src {:#x} {:?}",
                d,
                sr,
                s
            );
            Ok(())
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(128))]

            /// `tpu_bdc_fp32_rsqrt` equals `rsqrt_general`. Drawn: both chips, every host
            /// level, shapes with partial vectors and bad dims, start NPUs, in place, sources
            /// at any element address, misaligned, out of range, on another start NPU, partly
            /// over the destination; specials, negatives, denormals, tiny normals and the
            /// bounds of the vector form's domain among the values.
            #[test]
            fn rsqrt_fast_path_equals_general_path(
                chip in chip(), simd in super::fast_path::simd(), s in shape(), dst in dst_draw(),
                src in src_draw(), shift in 0u32..3, seed in any::<u64>(),
            ) {
                check(false, chip, simd, s, dst, src, shift, seed)?;
            }

            /// `tpu_bdc_fp32_sqrt` equals `sqrt_general` (`dst == src` among the calls drawn:
            /// both refuse it), drawn as for the reciprocal square root.
            #[test]
            fn sqrt_fast_path_equals_general_path(
                chip in chip(), simd in super::fast_path::simd(), s in shape(), dst in dst_draw(),
                src in src_draw(), shift in 0u32..3, seed in any::<u64>(),
            ) {
                check(true, chip, simd, s, dst, src, shift, seed)?;
            }
        }

        /// The small-call path takes the calls of the bench and the side-by-side (and in place
        /// for the reciprocal square root, its source at any element address) on an AVX-512
        /// host, and turns down what it must: a host level below AVX-512, a store not yet
        /// allocated, bad dims, a misaligned or out-of-range operand, the source on another
        /// start NPU or partly over the destination, the square root in place.
        #[test]
        fn root_fast_path_takes_and_refuses() {
            if HostSimd::detect() != HostSimd::Avx512 {
                return;
            }
            for chip in [TpuChip::Bm1684x, TpuChip::Bm1688] {
                let lm = chip.local().local_mem_per_npu;
                let eu = chip.local().eu_bytes;
                let mut core = TpuCore::with_gm_size(chip, 1 << 16).expect("core");
                let s = Dim4::new(1, 1, 1, 8);
                // Not before the store exists (the general path allocates it).
                assert!(!core.root_small::<false>(0x2000, 0, &s));
                core.local_store_mut();
                for s in [
                    Dim4::new(1, 1, 1, 8),
                    Dim4::new(1, 4, 1, 16),
                    Dim4::new(2, 70, 3, 33),
                ] {
                    let mut r = |d: u32, src: u32| core.root_small::<false>(d, src, &s);
                    assert!(r(0x4000, 0));
                    assert!(r(0x4000, 0x4000));
                    assert!(r(0x4000, 4));
                    assert!(r(lm + 0x4000, lm));
                    for (d, src) in [
                        (0x4000 + eu / 2, 0),
                        (0x4000, 2),
                        (0x4000, lm),
                        (0x4000, 64 * lm),
                        (0x4000, 0x4000 + 16),
                        (0x4000, 0x4000 - 16),
                    ] {
                        assert!(!r(d, src), "rsqrt {d:#x} {src:#x} {s:?}");
                    }
                    let mut q = |d: u32, src: u32| core.root_small::<true>(d, src, &s);
                    assert!(q(0x4000, 0));
                    assert!(q(lm + 0x4000, lm));
                    for (d, src) in [
                        (0x4000, 0x4000),
                        (0x4000, 4),
                        (0x4000 + eu / 2, 0),
                        (0x4000, lm),
                    ] {
                        assert!(!q(d, src), "sqrt {d:#x} {src:#x} {s:?}");
                    }
                    if s.h * s.w > 16 {
                        assert!(!q(0x4000, 0x4000 + 64));
                        assert!(!q(0x4000 + 64, 0x4000));
                    }
                }
                for bad in [Dim4::new(0, 1, 1, 8), Dim4::new(1, 1, 65536, 8)] {
                    assert!(!core.root_small::<false>(0x4000, 0, &bad));
                }
                for level in [HostSimd::Avx2, HostSimd::Baseline] {
                    core.set_host_simd(level);
                    assert!(!core.root_small::<false>(0x4000, 0, &s));
                    assert!(!core.root_small::<true>(0x4000, 0, &s));
                }
            }
        }
    }
}
