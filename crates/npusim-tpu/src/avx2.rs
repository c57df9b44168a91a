//! AVX2 small-call paths (issue #16, acceptance 4: at least 100x the C-model per call on small
//! tensors) for hosts without AVX-512 ([`crate::HostSimd::Avx2`]): the common case of
//! `crate::avx512`'s paths, with 8-lane vectors.
//!
//! * [`small_f32`]: `tpu_bdc_fp_add/sub/mul` and their `_C` forms on f32 (the element function
//!   of `crate::bdc`, `fz(fz(a) op fz(b))`, a NaN result recomputed by the scalar `exact`
//!   function, which applies the x86 NaN rule);
//! * [`small_elem`]: the element-wise calls of `crate::bdc_elem::run_small` (integer
//!   arithmetic, compares, selects, bitwise), the element function applied to the 8 lanes of a
//!   vector of words (the compiler vectorises it), the element width a constant of the
//!   instantiation.
//!
//! Both take one case only, the one small calls are made of: one batch (`n == 1`) whose
//! channels all lie below the last lane, every operand in the aligned layout (NULL strides).
//! Its checks are [`crate::local::one_batch_place`] (a shift, two masks and three compares with
//! the chip profile a constant of the instantiation) and, for each source, being the
//! destination itself or apart from it inside its lane; channel `ch` of every operand then lies
//! `ch` lane pitches from its channel 0. A row (`h * w` elements) goes in vectors of 8, its last
//! partial vector through a masked load and store (f32) or a 32-byte stack buffer (words).
//! Anything else returns `false` (nothing written) and runs through the general AVX2 paths
//! (`crate::bdc_avx2::aligned_f32`, `crate::bdc_elem`'s `AlignedCall`), and past them the
//! checked paths, which name any error.
//!
//! Scalar twins: the checked paths over views. `tests/bdc.rs`
//! `aligned_small_calls_equal_strided_calls` (f32) and the
//! `aligned_small_*_calls_equal_strided_calls` tests of `tests/bdc_int.rs` and
//! `tests/bdc_logic.rs` run the same call with its aligned strides written out (which takes the
//! checked path) and compare the stores, at every host SIMD level.

use crate::bdc::BinOp;
use crate::bdc_elem::Aligned;
use crate::chip::TpuChip;
use crate::local::{Dim4, LocalAddr};

/// The f32 small-call path (see the module docs); `false` (nothing written) when the call is
/// not one it takes. The caller has checked the dtype (f32), the op (add, sub, mul), the dims
/// (`1..=65535`, the work bound) and the flush policy.
///
/// # Safety
///
/// The host has AVX2 ([`crate::HostSimd::Avx2`] or above).
#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) unsafe fn small_f32<E: Fn(f32, f32) -> f32>(
    store: &mut [u8],
    chip: TpuChip,
    f: BinOp,
    dst: LocalAddr,
    a: LocalAddr,
    b: Option<LocalAddr>,
    shape: &Dim4,
    c: f32,
    exact: &E,
) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        if (store.len() as u64) < chip.local().store_size() || shape.n != 1 {
            return false;
        }
        let base = store.as_mut_ptr();
        let x = x86::F32Call {
            dst,
            a,
            b: b.unwrap_or(a),
            shape: *shape,
            c,
        };
        macro_rules! go {
            ($($chip:ident => $k:literal),*) => {
                match (chip, f, b.is_some()) {
                    $(
                        (TpuChip::$chip, BinOp::Sub, true) => x86::call::<E, $k, 1, true>(base, &x, exact),
                        (TpuChip::$chip, BinOp::Sub, false) => x86::call::<E, $k, 1, false>(base, &x, exact),
                        (TpuChip::$chip, BinOp::Mul, true) => x86::call::<E, $k, 2, true>(base, &x, exact),
                        (TpuChip::$chip, BinOp::Mul, false) => x86::call::<E, $k, 2, false>(base, &x, exact),
                        (TpuChip::$chip, _, true) => x86::call::<E, $k, 0, true>(base, &x, exact),
                        (TpuChip::$chip, _, false) => x86::call::<E, $k, 0, false>(base, &x, exact),
                    )*
                }
            };
        }
        // SAFETY: the host has AVX2 (this function's contract) and the store holds every lane
        // of the chip (`store_size`, checked above).
        unsafe { go!(Bm1684x => 0, Bm1688 => 1) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (store, chip, f, dst, a, b, shape, c, exact);
        false
    }
}

/// The element-wise small-call path (see the module docs) of `crate::bdc_elem::run_small`:
/// elements of `1 << shift` bytes, every tensor address a multiple of `align`; `false`
/// (nothing written) when the call is not one it takes. Instantiated for the BM1684X only
/// (`false` on other chips), as the AVX-512 path is.
///
/// # Safety
///
/// The host has AVX2 ([`crate::HostSimd::Avx2`] or above).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) unsafe fn small_elem<const N: usize, F: Fn([u32; N]) -> u32 + Copy>(
    store: &mut [u8],
    chip: TpuChip,
    shape: &Dim4,
    shift: u32,
    align: u32,
    dst: LocalAddr,
    srcs: [Aligned; N],
    f: F,
) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        if (store.len() as u64) < chip.local().store_size() || shape.n != 1 {
            return false;
        }
        let base = store.as_mut_ptr();
        // SAFETY: this function's contract; the store holds every lane of the chip (above).
        unsafe {
            match (chip, shift) {
                (TpuChip::Bm1684x, 0) => x86::elem::<0, N, 0, F>(base, shape, align, dst, srcs, f),
                (TpuChip::Bm1684x, 1) => x86::elem::<0, N, 1, F>(base, shape, align, dst, srcs, f),
                (TpuChip::Bm1684x, 2) => x86::elem::<0, N, 2, F>(base, shape, align, dst, srcs, f),
                _ => false,
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (store, chip, shape, shift, align, dst, srcs, f);
        false
    }
}

/// Copies fewer than 64 bytes by fixed-size pieces (`x86::copy_short`).
#[cfg(target_arch = "x86_64")]
pub(crate) use x86::copy_short;

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    use crate::bdc_elem::Aligned;
    use crate::chip::{LocalProfile, TpuChip};
    use crate::local::{Dim4, LocalAddr, one_batch_place};

    /// The chips by the index of the `CHIP` parameters.
    const CHIPS: [TpuChip; 2] = [TpuChip::Bm1684x, TpuChip::Bm1688];

    /// The operands of one f32 call.
    pub(super) struct F32Call {
        pub(super) dst: LocalAddr,
        pub(super) a: LocalAddr,
        /// `a` again for the `_C` forms.
        pub(super) b: LocalAddr,
        pub(super) shape: Dim4,
        pub(super) c: f32,
    }

    /// The one-batch places of a call's operands: each tensor's channel 0 as a byte index in
    /// the store, `None` unless every tensor passes [`one_batch_place`] (rows of `bytes`
    /// bytes, addresses multiples of `align`) and each source is the destination itself or
    /// apart from it inside its lane. A scalar's index is the destination's (its row is loaded,
    /// not used).
    #[inline(always)]
    fn places<const CHIP: usize, const N: usize>(
        c: u32,
        bytes: usize,
        align: u32,
        dst: u32,
        srcs: &[Aligned; N],
    ) -> Option<(usize, [usize; N])> {
        let p: LocalProfile = const { CHIPS[CHIP].local() };
        let pitch = p.store_pitch() as usize;
        let (ds, doff) = one_batch_place(&p, dst, c, bytes, align)?;
        let d0 = ds * pitch + doff;
        let mut at = [d0; N];
        for k in 0..N {
            if let Aligned::Tensor(addr) = srcs[k] {
                let (s, off) = one_batch_place(&p, addr, c, bytes, align)?;
                if !(addr == dst || off + bytes <= doff || doff + bytes <= off) {
                    return None;
                }
                at[k] = s * pitch + off;
            }
        }
        Some((d0, at))
    }

    /// A denormal lane of `v` as a zero of its sign (`exp` the exponent mask, `sign` the sign
    /// bit).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn ftz(v: __m256, exp: __m256, sign: __m256) -> __m256 {
        let e = _mm256_castps_si256(_mm256_and_ps(v, exp));
        let z = _mm256_castsi256_ps(_mm256_cmpeq_epi32(e, _mm256_setzero_si256()));
        _mm256_blendv_ps(v, _mm256_and_ps(v, sign), z)
    }

    /// The lanes of `r` that are NaN computed again by `exact`.
    #[cold]
    #[inline(never)]
    #[target_feature(enable = "avx2")]
    fn fix<E: Fn(f32, f32) -> f32>(x: __m256, y: __m256, r: __m256, exact: &E) -> __m256 {
        let (mut xs, mut ys, mut rs) = ([0f32; 8], [0f32; 8], [0f32; 8]);
        // SAFETY: unaligned stores of three registers into local arrays of 8 f32.
        unsafe {
            _mm256_storeu_ps(xs.as_mut_ptr(), x);
            _mm256_storeu_ps(ys.as_mut_ptr(), y);
            _mm256_storeu_ps(rs.as_mut_ptr(), r);
        }
        for k in 0..8 {
            if rs[k].is_nan() {
                rs[k] = exact(xs[k], ys[k]);
            }
        }
        // SAFETY: an unaligned load of a local array of 8 f32.
        unsafe { _mm256_loadu_ps(rs.as_ptr()) }
    }

    /// `fz(fz(x) op fz(y))` (`OP` 0 add, 1 sub, 2 mul), NaN lanes by `exact`.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn f32_op<E: Fn(f32, f32) -> f32, const OP: u8>(
        x: __m256,
        y: __m256,
        exp: __m256,
        sign: __m256,
        exact: &E,
    ) -> __m256 {
        let (fx, fy) = (ftz(x, exp, sign), ftz(y, exp, sign));
        let r = match OP {
            1 => _mm256_sub_ps(fx, fy),
            2 => _mm256_mul_ps(fx, fy),
            _ => _mm256_add_ps(fx, fy),
        };
        let r = ftz(r, exp, sign);
        if _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_UNORD_Q>(r, r)) != 0 {
            fix(x, y, r, exact)
        } else {
            r
        }
    }

    /// One f32 call on chip `CHIPS[CHIP]`, `OP` 0 add, 1 sub, 2 mul, `B` a second tensor (else
    /// the scalar `x.c`): the one-batch checks, then the rows, `full` vectors of 8 and a masked
    /// tail of `rem` lanes. `false` (nothing written) for any other call, and for rows of 64
    /// elements or more (the general path's hardware-flush loop is faster there).
    ///
    /// # Safety
    ///
    /// The host has AVX2 and `base` is a store holding every lane of the chip.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn call<
        E: Fn(f32, f32) -> f32,
        const CHIP: usize,
        const OP: u8,
        const B: bool,
    >(
        base: *mut u8,
        x: &F32Call,
        exact: &E,
    ) -> bool {
        let p: LocalProfile = const { CHIPS[CHIP].local() };
        let shape = &x.shape;
        let hw = shape.h as usize * shape.w as usize;
        if hw >= 64 {
            return false;
        }
        let srcs = [
            Aligned::Tensor(x.a),
            if B {
                Aligned::Tensor(x.b)
            } else {
                Aligned::Const(0)
            },
        ];
        let Some((d0, [a0, b0])) =
            places::<CHIP, 2>(shape.c as u32, hw * 4, p.eu_bytes, x.dst, &srcs)
        else {
            return false;
        };
        let exp = _mm256_castsi256_ps(_mm256_set1_epi32(0x7f80_0000));
        let sign = _mm256_castsi256_ps(_mm256_set1_epi32(i32::MIN));
        let cv = _mm256_set1_ps(x.c);
        let (full, rem) = (hw / 8, hw % 8);
        let tail = _mm256_cmpgt_epi32(
            _mm256_set1_epi32(rem as i32),
            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
        );
        let pitch = p.store_pitch() as usize;
        let at = |idx: usize| base.wrapping_add(idx).cast::<f32>();
        for ch in 0..shape.c as usize {
            let k = ch * pitch;
            let (pd, pa, pb) = (at(d0 + k), at(a0 + k), at(b0 + k));
            // SAFETY: channel `ch`'s row (`hw` elements from each pointer) lies inside the
            // store (`places`, the contract); the masked tail touches only its live lanes.
            unsafe {
                for v in 0..full {
                    let xa = _mm256_loadu_ps(pa.add(8 * v));
                    let yb = if B {
                        _mm256_loadu_ps(pb.add(8 * v))
                    } else {
                        cv
                    };
                    let r = f32_op::<E, OP>(xa, yb, exp, sign, exact);
                    _mm256_storeu_ps(pd.add(8 * v), r);
                }
                if rem != 0 {
                    let xa = _mm256_maskload_ps(pa.add(8 * full), tail);
                    let yb = if B {
                        _mm256_maskload_ps(pb.add(8 * full), tail)
                    } else {
                        cv
                    };
                    let r = f32_op::<E, OP>(xa, yb, exp, sign, exact);
                    _mm256_maskstore_ps(pd.add(8 * full), tail, r);
                }
            }
        }
        true
    }

    /// How a source's words come from what is loaded at its row: `(loaded & keep) | put` (a
    /// tensor keeps every bit and puts none; a scalar keeps none and puts its word). No branch
    /// in the rows (see `crate::avx512`'s `Words`).
    #[derive(Clone, Copy)]
    struct Words {
        keep: __m256i,
        put: __m256i,
    }

    /// The [`Words`] of each source (a plain loop: a closure here would compile its
    /// intrinsics as calls).
    #[inline(always)]
    fn words_of<const N: usize>(srcs: &[Aligned; N]) -> [Words; N] {
        // SAFETY: AVX2 (the callers' target features).
        let (all, none) = unsafe { (_mm256_set1_epi32(-1), _mm256_setzero_si256()) };
        let mut w = [Words {
            keep: all,
            put: none,
        }; N];
        for k in 0..N {
            if let Aligned::Const(c) = srcs[k] {
                // SAFETY: as above.
                let put = unsafe { _mm256_set1_epi32(c as i32) };
                w[k] = Words { keep: none, put };
            }
        }
        w
    }

    /// The words of 8 elements of `1 << S` bytes at `p`, zero-extended.
    ///
    /// # Safety
    ///
    /// The host has AVX2; the `8 << S` bytes at `p` are readable.
    #[inline(always)]
    unsafe fn load_words<const S: u32>(p: *const u8) -> __m256i {
        // SAFETY: the contract.
        unsafe {
            match S {
                0 => _mm256_cvtepu8_epi32(_mm_loadl_epi64(p.cast())),
                1 => _mm256_cvtepu16_epi32(_mm_loadu_si128(p.cast())),
                _ => _mm256_loadu_si256(p.cast()),
            }
        }
    }

    /// Writes the low `1 << S` bytes of the 8 words of `v` to the elements at `p`.
    ///
    /// # Safety
    ///
    /// The host has AVX2; the `8 << S` bytes at `p` are writable.
    #[inline(always)]
    unsafe fn store_words<const S: u32>(p: *mut u8, v: __m256i) {
        // SAFETY: the contract.
        unsafe {
            match S {
                0 => {
                    // Each word's low byte, packed without saturation (the words are masked
                    // to their low byte first).
                    let m = _mm256_and_si256(v, _mm256_set1_epi32(0xff));
                    let h = _mm_packus_epi32(
                        _mm256_castsi256_si128(m),
                        _mm256_extracti128_si256::<1>(m),
                    );
                    _mm_storel_epi64(p.cast(), _mm_packus_epi16(h, h));
                }
                1 => {
                    let m = _mm256_and_si256(v, _mm256_set1_epi32(0xffff));
                    let h = _mm_packus_epi32(
                        _mm256_castsi256_si128(m),
                        _mm256_extracti128_si256::<1>(m),
                    );
                    _mm_storeu_si128(p.cast(), h);
                }
                _ => _mm256_storeu_si256(p.cast(), v),
            }
        }
    }

    /// Copies `len < 64` bytes in pieces of 32, 16, 8, 4, 2 and 1 (fixed-size moves: a copy of
    /// variable length becomes a `memcpy` call); also the tails of `crate::bdc_data`'s AVX2
    /// rows.
    ///
    /// # Safety
    ///
    /// `len` bytes after each pointer are valid; the ranges are the same or do not meet.
    #[inline(always)]
    pub(crate) unsafe fn copy_short(dst: *mut u8, src: *const u8, len: usize) {
        let mut k = 0;
        macro_rules! piece {
            ($t:ty, $size:literal) => {
                if len & $size != 0 {
                    // SAFETY: bytes `k..k + $size` lie inside the `len` bytes (the contract).
                    unsafe {
                        let v = src.add(k).cast::<$t>().read_unaligned();
                        dst.add(k).cast::<$t>().write_unaligned(v);
                    }
                    k += $size;
                }
            };
        }
        piece!([u128; 2], 32);
        piece!(u128, 16);
        piece!(u64, 8);
        piece!(u32, 4);
        piece!(u16, 2);
        piece!(u8, 1);
        let _ = k;
    }

    /// The words of each source for vector `v` of a row (`at[k]`: byte index of source `k`'s
    /// row), `rem` lanes live when `rem != 0` (read through a stack buffer), else 8.
    ///
    /// # Safety
    ///
    /// As [`elem`]; the row's live elements lie inside the store.
    #[inline(always)]
    unsafe fn load_ins<const N: usize, const S: u32>(
        base: *mut u8,
        at: &[usize; N],
        words: &[Words; N],
        v: usize,
        rem: usize,
    ) -> [__m256i; N] {
        let mut ins = [words[0].put; N];
        for k in 0..N {
            let p = base.wrapping_add(at[k] + (v << (3 + S)));
            // SAFETY: the live elements lie inside the store (the contract); the buffer holds
            // 32 bytes.
            let x = unsafe {
                if rem == 0 {
                    load_words::<S>(p)
                } else {
                    let mut buf = [0u8; 32];
                    copy_short(buf.as_mut_ptr(), p, rem << S);
                    load_words::<S>(buf.as_ptr())
                }
            };
            // SAFETY: AVX2 (the callers' target features).
            ins[k] = unsafe { _mm256_or_si256(_mm256_and_si256(x, words[k].keep), words[k].put) };
        }
        ins
    }

    /// Writes vector `r` at `p`: 8 elements, or `rem` when `rem != 0` (through a stack
    /// buffer).
    ///
    /// # Safety
    ///
    /// As [`elem`]; the live elements lie inside the store.
    #[inline(always)]
    unsafe fn store_out<const S: u32>(p: *mut u8, r: __m256i, rem: usize) {
        // SAFETY: the live elements lie inside the store (the contract); the buffer holds 32
        // bytes.
        unsafe {
            if rem == 0 {
                store_words::<S>(p, r);
            } else {
                let mut buf = [0u8; 32];
                store_words::<S>(buf.as_mut_ptr(), r);
                copy_short(p, buf.as_ptr(), rem << S);
            }
        }
    }

    /// `f` over the 8 lanes of the sources' words (the compiler vectorises the lanes).
    #[inline(always)]
    fn apply<const N: usize, F: Fn([u32; N]) -> u32>(ins: [__m256i; N], f: F) -> __m256i {
        let mut words = [[0u32; 8]; N];
        for (w, v) in words.iter_mut().zip(ins) {
            // SAFETY: a vector of 8 words as an array of 8 words.
            *w = unsafe { std::mem::transmute::<__m256i, [u32; 8]>(v) };
        }
        let mut out = [0u32; 8];
        for (j, o) in out.iter_mut().enumerate() {
            *o = f(std::array::from_fn(|k| words[k][j]));
        }
        // SAFETY: an array of 8 words as a vector.
        unsafe { std::mem::transmute::<[u32; 8], __m256i>(out) }
    }

    /// The element-wise call on chip `CHIPS[CHIP]` (see [`super::small_elem`]): the one-batch
    /// checks, then the rows, `full` vectors of 8 elements and a tail of `rem`; rows of one
    /// vector four channels at a time (the four channels' loads before their stores).
    ///
    /// # Safety
    ///
    /// The host has AVX2, `base` is a store holding every lane of the chip and `S` (elements
    /// of `1 << S` bytes) is at most 2.
    #[allow(clippy::too_many_arguments)]
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn elem<
        const CHIP: usize,
        const N: usize,
        const S: u32,
        F: Fn([u32; N]) -> u32 + Copy,
    >(
        base: *mut u8,
        shape: &Dim4,
        align: u32,
        dst: u32,
        srcs: [Aligned; N],
        f: F,
    ) -> bool {
        let p: LocalProfile = const { CHIPS[CHIP].local() };
        let hw = shape.h as usize * shape.w as usize;
        let c = shape.c as usize;
        let Some((d0, at0)) = places::<CHIP, N>(c as u32, hw << S, align, dst, &srcs) else {
            return false;
        };
        let words = words_of(&srcs);
        let pitch = p.store_pitch() as usize;
        let (full, rem) = (hw / 8, hw % 8);
        let mut ch = 0;
        if full == 1 && rem == 0 {
            // Rows of one vector, four channels at a time, written out (an array `map` over
            // the four was compiled as a loop testing the element function's flags).
            while ch + 4 <= c {
                let at = |g: usize| at0.map(|a| a + (ch + g) * pitch);
                let out = |g: usize| base.wrapping_add(d0 + (ch + g) * pitch);
                // SAFETY: channels `ch..ch + 4` lie inside the store (`places`, the
                // contract).
                unsafe {
                    let i0 = load_ins::<N, S>(base, &at(0), &words, 0, 0);
                    let i1 = load_ins::<N, S>(base, &at(1), &words, 0, 0);
                    let i2 = load_ins::<N, S>(base, &at(2), &words, 0, 0);
                    let i3 = load_ins::<N, S>(base, &at(3), &words, 0, 0);
                    let (r0, r1, r2, r3) = (apply(i0, f), apply(i1, f), apply(i2, f), apply(i3, f));
                    store_words::<S>(out(0), r0);
                    store_words::<S>(out(1), r1);
                    store_words::<S>(out(2), r2);
                    store_words::<S>(out(3), r3);
                }
                ch += 4;
            }
        }
        for ch in ch..c {
            let kk = ch * pitch;
            let at = at0.map(|a| a + kk);
            let d = base.wrapping_add(d0 + kk);
            // SAFETY: channel `ch`'s row lies inside the store (`places`, the contract).
            unsafe {
                for v in 0..full {
                    let r = apply(load_ins::<N, S>(base, &at, &words, v, 0), f);
                    store_words::<S>(d.wrapping_add(v << (3 + S)), r);
                }
                if rem != 0 {
                    let r = apply(load_ins::<N, S>(base, &at, &words, full, rem), f);
                    store_out::<S>(d.wrapping_add(full << (3 + S)), r, rem);
                }
            }
        }
        true
    }
}
