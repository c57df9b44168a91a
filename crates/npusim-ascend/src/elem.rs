//! The element functions: one pure function per computation, named by the instruction table
//! ([`crate::isa`]).
//!
//! Domains: floating-point instructions compute on `f32` (f16 and bf16 operands are widened
//! exactly and the result is rounded once, to nearest even, to the element type; for add, sub,
//! mul, div and sqrt that is the correctly rounded f16 result, since f32 has more than
//! 2·11 + 2 bits); integer instructions compute on the element's value as a wrapping `i64`
//! (the driver truncates to the element width, so add/sub/mul wrap); `bits` functions see the
//! raw bit pattern.
//!
//! Numeric policies (the pages print no case that pins them; each is a named choice):
//! - Max/Min propagate NaN; on equal values (±0) the first operand is returned.
//! - Relu passes NaN and −0 through (`x < 0 ? 0 : x`); LeakyRelu likewise (`x < 0 ? x·s : x`).
//! - Exp, Ln and Rsqrt are computed in f64 and rounded to f32 (the hardware's approximations
//!   are not public: asc-devkit Exp.md / Rsqrt.md give accuracy bounds only); Reciprocal and
//!   Sqrt are the correctly rounded f32 operations.
//! - Axpy rounds the product to f32 and then the sum (two f32 roundings, then one to the
//!   element type).
//! - The ternary fused forms (MulAddDst, FusedMulAdd, MulAddRelu) round the product to the
//!   element type first, then the sum (f32, then the element type): policy
//!   `product-in-element-type`. The pages' worked examples pin it: FusedMulAdd.md and
//!   MulAddRelu.md (half) match it in 256 of 256 outputs and a single rounding in only 186
//!   and 218 (tests/worked_examples.rs `fused_pages_round_the_half_product_first`). `narrow`
//!   rounds a value to the element type (the identity on f32).
//! - The mixed-precision forms of MulAddDst and Axpy (half sources, float destination; the
//!   rows' `widen` column) keep the product in f32, where the product of two halves is exact,
//!   and round once at the sum: MulAddDst.md's half -> float example matches this in 256 of
//!   256 printed float outputs and a half-rounded product in none
//!   (`muladddst_page_half_sources_float_destination`).

/// Arithmetic shared by the float (`f32`) and integer (wrapping `i64`) domains.
pub trait Num: Copy + PartialOrd {
    const ZERO: Self;
    fn add(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    fn is_nan(self) -> bool;
}

impl Num for f32 {
    const ZERO: f32 = 0.0;
    #[inline(always)]
    fn add(self, o: f32) -> f32 {
        self + o
    }
    #[inline(always)]
    fn sub(self, o: f32) -> f32 {
        self - o
    }
    #[inline(always)]
    fn mul(self, o: f32) -> f32 {
        self * o
    }
    #[inline(always)]
    fn is_nan(self) -> bool {
        f32::is_nan(self)
    }
}

impl Num for i64 {
    const ZERO: i64 = 0;
    #[inline(always)]
    fn add(self, o: i64) -> i64 {
        self.wrapping_add(o)
    }
    #[inline(always)]
    fn sub(self, o: i64) -> i64 {
        self.wrapping_sub(o)
    }
    #[inline(always)]
    fn mul(self, o: i64) -> i64 {
        self.wrapping_mul(o)
    }
    #[inline(always)]
    fn is_nan(self) -> bool {
        false
    }
}

#[inline(always)]
pub fn add<T: Num>(a: T, b: T) -> T {
    a.add(b)
}
/// TIK `viou`: the intersection area of two region proposals `[x1, y1, x2, y2]`, with the
/// RPN offset added to each side length: `max(0, min(x2) - max(x1) + offset) ·
/// max(0, min(y2) - max(y1) + offset)`, in f32 (each step rounded to f32; the caller rounds once
/// to the element type). Each side is clamped before the product: a side that is not positive
/// (including -0) counts as +0, so disjoint proposals give +0 (the NMS kernels compare the
/// result with a fraction of the summed areas); a NaN side stays NaN.
#[inline(always)]
pub fn proposal_intersection(a: [f32; 4], b: [f32; 4], offset: f32) -> f32 {
    let side = |lo: f32, hi: f32| {
        let s = hi - lo + offset;
        if s > 0.0 || s.is_nan() { s } else { 0.0 }
    };
    let w = side(max(a[0], b[0]), min(a[2], b[2]));
    let h = side(max(a[1], b[1]), min(a[3], b[3]));
    w * h
}

#[inline(always)]
pub fn sub<T: Num>(a: T, b: T) -> T {
    a.sub(b)
}
#[inline(always)]
pub fn mul<T: Num>(a: T, b: T) -> T {
    a.mul(b)
}
#[inline(always)]
pub fn max<T: Num>(a: T, b: T) -> T {
    if b.is_nan() || b > a { b } else { a }
}
#[inline(always)]
pub fn min<T: Num>(a: T, b: T) -> T {
    if b.is_nan() || b < a { b } else { a }
}
#[inline(always)]
pub fn relu<T: Num>(a: T) -> T {
    if a < T::ZERO { T::ZERO } else { a }
}
#[inline(always)]
pub fn add_relu<T: Num>(a: T, b: T) -> T {
    relu(a.add(b))
}
#[inline(always)]
pub fn sub_relu<T: Num>(a: T, b: T) -> T {
    relu(a.sub(b))
}
#[inline(always)]
pub fn div(a: f32, b: f32) -> f32 {
    a / b
}
#[inline(always)]
pub fn exp(a: f32) -> f32 {
    (a as f64).exp() as f32
}
#[inline(always)]
pub fn ln(a: f32) -> f32 {
    (a as f64).ln() as f32
}
#[inline(always)]
pub fn abs(a: f32) -> f32 {
    a.abs()
}
#[inline(always)]
pub fn sqrt(a: f32) -> f32 {
    a.sqrt()
}
#[inline(always)]
pub fn rsqrt(a: f32) -> f32 {
    (1.0 / (a as f64).sqrt()) as f32
}
#[inline(always)]
pub fn reciprocal(a: f32) -> f32 {
    1.0 / a
}
#[inline(always)]
pub fn leaky_relu(a: f32, s: f32) -> f32 {
    if a < 0.0 { a * s } else { a }
}
/// Axpy: `dst = scalar · src + dst`.
#[inline(always)]
pub fn axpy(src: f32, s: f32, dst: f32) -> f32 {
    s * src + dst
}
/// MulAddDst / vmla: `dst = src0 · src1 + dst` (product rounded by `narrow` first).
#[inline(always)]
pub fn mul_add_dst(a: f32, b: f32, dst: f32, narrow: impl Fn(f32) -> f32) -> f32 {
    narrow(a * b) + dst
}
/// FusedMulAdd / vmadd: `dst = src0 · dst + src1` (product rounded by `narrow` first).
#[inline(always)]
pub fn fused_mul_add(a: f32, b: f32, dst: f32, narrow: impl Fn(f32) -> f32) -> f32 {
    narrow(a * dst) + b
}
/// MulAddRelu / vmaddrelu: `dst = relu(src0 · dst + src1)` (product rounded by `narrow`
/// first).
#[inline(always)]
pub fn mul_add_relu(a: f32, b: f32, dst: f32, narrow: impl Fn(f32) -> f32) -> f32 {
    relu(narrow(a * dst) + b)
}
#[inline(always)]
pub fn and(a: i64, b: i64) -> i64 {
    a & b
}
#[inline(always)]
pub fn or(a: i64, b: i64) -> i64 {
    a | b
}
#[inline(always)]
pub fn not(a: i64) -> i64 {
    !a
}
/// Left shift (arithmetic and logical agree once truncated to the width).
#[inline(always)]
pub fn shl(a: i64, s: i64) -> i64 {
    if (0..64).contains(&s) { a << s } else { 0 }
}
/// Right shift: arithmetic for signed types (the value is sign-extended), logical for unsigned
/// ones (zero-extended).
#[inline(always)]
pub fn shr(a: i64, s: i64) -> i64 {
    if (0..64).contains(&s) {
        a >> s
    } else if a < 0 {
        -1
    } else {
        0
    }
}
#[inline(always)]
pub fn copy(a: i64) -> i64 {
    a
}
/// Duplicate: every lane takes the scalar's bits.
#[inline(always)]
pub fn dup(_a: i64, s: i64) -> i64 {
    s
}

/// Slice forms of the unary float element functions, used by the driver's fast kernel on
/// contiguous f32 chunks. Each equals the element function applied lane by lane (held equal by
/// `tests/exp_fast.rs`: a proptest and an `#[ignore]` sweep over every f32 input).
pub mod chunk {
    macro_rules! plain {
        ($($f:ident),*) => {$(
            #[inline(always)]
            pub fn $f(x: &mut [f32]) {
                for v in x.iter_mut() {
                    *v = super::$f(*v);
                }
            }
        )*};
    }
    plain!(ln, abs, sqrt, rsqrt, reciprocal);

    /// 1 / ln 2.
    const INV_LN2: f64 = std::f64::consts::LOG2_E;
    /// ln 2 split so that `n · LN2_HI` is exact for |n| < 2^20 (fdlibm's constants).
    const LN2_HI: f64 = 6.931_471_803_691_238e-1;
    const LN2_LO: f64 = 1.908_214_929_270_587_7e-10;
    /// 1.5 · 2^52: adding it rounds to an integer held in the low mantissa bits.
    const MAGIC: f64 = 6_755_399_441_055_744.0;
    /// 1/k! for k = 11 down to 2 (Horner order).
    const TAYLOR: [f64; 10] = [
        1.0 / 39_916_800.0,
        1.0 / 3_628_800.0,
        1.0 / 362_880.0,
        1.0 / 40_320.0,
        1.0 / 5_040.0,
        1.0 / 720.0,
        1.0 / 120.0,
        1.0 / 24.0,
        1.0 / 6.0,
        0.5,
    ];
    /// Lanes whose fast f64 result lies within this many f64 ulps (2^13, about 1e-12
    /// relative) of an f32 rounding midpoint take the exact path. The fast result's error: the
    /// degree-11 Taylor remainder below 7e-15 relative (about 2^-47) on |r| <= ln2/2, the
    /// evaluation's rounding a few ulps; libm's `exp` is within 1 ulp. Outside this band both
    /// round to the same f32; about one lane in 2^15 takes the exact path.
    const GUARD: i64 = 1 << 13;
    /// The AVX-512 form's band (its polynomial is shorter; see [`exp_avx512`]).
    #[cfg(target_arch = "x86_64")]
    const GUARD_512: i64 = 1 << 16;

    /// exp in f64 without branches or tables: (result rounded to f32, whether it is certainly
    /// equal to `super::exp`). x = n·ln2 + r; e^x = 2^n · e^r, e^r by its Taylor series.
    #[inline(always)]
    fn exp_fast<const FMA: bool>(a: f32) -> (f32, bool) {
        let x = a as f64;
        let fma = |a: f64, b: f64, c: f64| if FMA { a.mul_add(b, c) } else { a * b + c };
        let t = fma(x, INV_LN2, MAGIC);
        let n = t - MAGIC;
        let ni = (t.to_bits() as i64).wrapping_sub(MAGIC.to_bits() as i64);
        let r = fma(-n, LN2_LO, fma(-n, LN2_HI, x));
        let mut p = TAYLOR[0];
        for c in &TAYLOR[1..] {
            p = fma(p, r, *c);
        }
        let p = fma(fma(p, r, 1.0), r, 1.0);
        let scale = f64::from_bits((ni.wrapping_add(1023) as u64) << 52);
        let y = p * scale;
        let low = (y.to_bits() & ((1 << 29) - 1)) as i64;
        let d = (low - (1 << 28)).abs();
        // Normal f32 results only (exp(-87) > f32::MIN_POSITIVE, exp(88) < f32::MAX); NaN
        // fails both comparisons.
        let ok = (x > -87.0) & (x < 88.0) & (d > GUARD);
        (y as f32, ok)
    }

    #[inline(always)]
    fn exp_body<const FMA: bool>(x: &mut [f32]) {
        const B: usize = 64;
        let mut out = [0f32; B];
        for blk in x.chunks_mut(B) {
            let m = blk.len();
            let mut bad = false;
            for (o, a) in out.iter_mut().zip(blk.iter()) {
                let (y, g) = exp_fast::<FMA>(*a);
                *o = y;
                bad |= !g;
            }
            if bad {
                for (o, a) in out.iter_mut().zip(blk.iter()) {
                    if !exp_fast::<FMA>(*a).1 {
                        *o = super::exp(*a);
                    }
                }
            }
            blk.copy_from_slice(&out[..m]);
        }
    }

    /// The one-lane form of the fast path (the AVX-512 kernel's tail).
    #[inline(always)]
    fn exp_lane<const FMA: bool>(a: f32) -> f32 {
        let (y, ok) = exp_fast::<FMA>(a);
        if ok { y } else { super::exp(a) }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    fn exp_avx2(x: &mut [f32]) {
        exp_body::<true>(x)
    }

    /// 2^(j/16) for j in 0..16, each correctly rounded to f64.
    #[cfg(target_arch = "x86_64")]
    const EXP2_16: [f64; 16] = [
        1.0,
        1.044_273_782_427_413_8,
        1.090_507_732_665_257_7,
        1.138_788_634_756_691_6,
        1.189_207_115_002_721,
        1.241_857_812_073_484,
        1.296_839_554_651_009_6,
        1.354_255_546_936_892_7,
        std::f64::consts::SQRT_2,
        1.476_826_145_939_499_3,
        1.542_210_825_407_940_7,
        1.610_490_331_949_254_3,
        1.681_792_830_507_429,
        1.756_252_160_373_299_5,
        1.834_008_086_409_342_4,
        1.915_206_561_397_147_4,
    ];

    /// [`EXP2_16`] with j·2^48 taken off entry j's bits (the AVX-512 form adds n·2^48 back).
    #[cfg(target_arch = "x86_64")]
    static EXP2_16_BIASED: [f64; 16] = {
        let mut t = [0f64; 16];
        let mut j = 0;
        while j < 16 {
            t[j] = f64::from_bits(EXP2_16[j].to_bits() - ((j as u64) << 48));
            j += 1;
        }
        t
    };

    /// The AVX-512 form: 8 lanes in f64 per step, x = (16k + j)·ln2/16 + r,
    /// e^x = 2^k · 2^(j/16) · e^r with the 16-entry table held in two registers (a permute,
    /// no gather), e^r - 1 = r + r²·(C2 + C3·r + C4·r²) (a minimax fit, relative error of e^r
    /// below 2^-37.4 on |r| <= ln2/32, i.e. below 2^15.6 ulps of the f64 result) and 2^k added
    /// to the exponent field; lanes within [`GUARD_512`] f64 ulps of an f32 rounding midpoint,
    /// and results outside the normal f32 range, take the exact path (about one lane in 2^12).
    /// Reads `n` lanes at `src`, writes them at `dst` (which may equal `src`).
    ///
    /// # Safety
    /// `src` and `dst` must be valid for `n` f32 reads / writes, and either equal or not
    /// overlapping.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512dq,avx512vl,fma")]
    unsafe fn exp_avx512(src: *const f32, dst: *mut f32, n: usize) {
        use std::arch::x86_64::*;
        const INV_LN2_16: f64 = 16.0 * std::f64::consts::LOG2_E;
        const LN2_16: f64 = std::f64::consts::LN_2 / 16.0;
        // The minimax coefficients (Remez on |r| <= ln2/32, relative error of e^r).
        const C2: f64 = 0.500_000_000_797_116_3;
        const C3: f64 = 0.166_670_064_758_274_6;
        const C4: f64 = 0.041_665_107_605_070_01;
        // The guard as a bit test: a lane fails when its low 29 bits lie in
        // [2^28 - GUARD_512, 2^28 + GUARD_512), i.e. when adding GUARD_512 + 2^28 clears
        // bits log2(2·GUARD_512)..=28.
        const GUARD_ADD: i64 = GUARD_512 + (1 << 28);
        const GUARD_BITS: i64 = ((1 << 29) - 1) & !(2 * GUARD_512 - 1);
        // SAFETY: every access below is to a whole 8-lane chunk inside the `n` lanes or to
        // the 16-entry table (unaligned accesses); the features were enabled by the caller's
        // detection. Each chunk is read before it is written, so `dst == src` is fine.
        unsafe {
            let t0 = _mm512_loadu_pd(EXP2_16_BIASED.as_ptr());
            let t1 = _mm512_loadu_pd(EXP2_16_BIASED.as_ptr().add(8));
            let c = _mm512_set1_pd;
            // 8 lanes: the f32 result and the guard's verdict (before the range check).
            let lanes8 = |xf: __m256| -> (__m256, u8) {
                let xd = _mm512_cvtps_pd(xf);
                let t = _mm512_fmadd_pd(xd, c(INV_LN2_16), c(MAGIC));
                let nf = _mm512_sub_pd(t, c(MAGIC));
                // The low bits of t hold n = 16k + j (two's complement): j indexes the table.
                let tb = _mm512_castpd_si512(t);
                // One reduction step with ln2/16 rounded to f64: the error, |n|·2^-53·ln2/16
                // below 1e-14, is far inside the guard (and the sweep checks every input).
                let r = _mm512_fnmadd_pd(nf, c(LN2_16), xd);
                let r2 = _mm512_mul_pd(r, r);
                let q = _mm512_fmadd_pd(c(C4), r2, _mm512_fmadd_pd(c(C3), r, c(C2)));
                // e^r - 1; the table entry is then multiplied in as tab + tab·(e^r - 1).
                let em1 = _mm512_fmadd_pd(q, r2, r);
                // 2^k · 2^(j/16) as integer bits: the table holds bits(2^(j/16)) - j·2^48, so
                // adding n·2^48 = k·2^52 + j·2^48 (t's bits shifted: MAGIC's low 16 bits are
                // zero) gives k in the exponent field; exact for the normal results the
                // lanes kept below have.
                let tab = _mm512_castsi512_pd(_mm512_add_epi64(
                    _mm512_castpd_si512(_mm512_permutex2var_pd(t0, tb, t1)),
                    _mm512_slli_epi64::<48>(tb),
                ));
                let y = _mm512_fmadd_pd(em1, tab, tab);
                let ok = _mm512_test_epi64_mask(
                    _mm512_add_epi64(_mm512_castpd_si512(y), _mm512_set1_epi64(GUARD_ADD)),
                    _mm512_set1_epi64(GUARD_BITS),
                );
                (_mm512_cvtpd_ps(y), ok)
            };
            // Lanes [i, end) (whole 8-lane chunks) from `sp` into `dst`: every chunk is
            // stored and its failing lanes noted in `bad` (one byte per chunk); `check` adds
            // the per-chunk range check, which a block whose every lane is in range goes
            // without. No call inside (so the constants stay in registers); the exact path
            // runs after the block.
            let run = |sp: *const f32, i: usize, end: usize, check: bool, bad: &mut [u8; 32]| {
                let mut any = 0u8;
                let mut v = 0;
                while i + 8 * v < end {
                    let x = _mm256_loadu_ps(sp.add(8 * v));
                    let (y, ok) = lanes8(x);
                    let ok = if check {
                        // Normal f32 results only: -87 < x < 88 (NaN fails).
                        ok & _mm256_mask_cmp_ps_mask::<_CMP_LT_OQ>(
                            _mm256_cmp_ps_mask::<_CMP_GT_OQ>(x, _mm256_set1_ps(-87.0)),
                            x,
                            _mm256_set1_ps(88.0),
                        )
                    } else {
                        ok
                    };
                    _mm256_storeu_ps(dst.add(i + 8 * v), y);
                    bad[v] = !ok;
                    any |= !ok;
                    v += 1;
                }
                any != 0
            };
            // Blocks of 256 lanes: one pass of |x| as integers (the f32 bits rotated left by
            // one put the sign at bit 0, so the order is |x|'s and NaNs come above every
            // number) decides whether every lane has |x| < 87; in place, the pass also keeps
            // a copy of the block for the exact path.
            const BLOCK: usize = 256;
            let limit = _mm512_set1_epi32((87f32.to_bits() << 1) as i32);
            let in_place = std::ptr::eq(src, dst);
            let mut copy = [0f32; BLOCK];
            let mut bad = [0u8; 32];
            let n8 = n / 8 * 8;
            let mut i = 0;
            while i < n8 {
                let end = (i + BLOCK).min(n8);
                let sp = if in_place {
                    std::ptr::copy_nonoverlapping(src.add(i), copy.as_mut_ptr(), end - i);
                    copy.as_ptr()
                } else {
                    src.add(i)
                };
                let mut check = true;
                if end - i == BLOCK {
                    let mut m = _mm512_setzero_si512();
                    for k in (0..BLOCK).step_by(16) {
                        let b = _mm512_castps_si512(_mm512_loadu_ps(sp.add(k)));
                        m = _mm512_max_epu32(m, _mm512_rol_epi32::<1>(b));
                    }
                    check = _mm512_cmpge_epu32_mask(m, limit) != 0;
                }
                let any = if check {
                    run(sp, i, end, true, &mut bad)
                } else {
                    run(sp, i, end, false, &mut bad)
                };
                if any {
                    for (v, b) in bad.iter().enumerate().take((end - i) / 8) {
                        let mut b = *b;
                        while b != 0 {
                            let j = 8 * v + b.trailing_zeros() as usize;
                            *dst.add(i + j) = super::exp(*sp.add(j));
                            b &= b - 1;
                        }
                    }
                }
                i = end;
            }
            for j in n8..n {
                *dst.add(j) = exp_lane::<true>(*src.add(j));
            }
        }
    }

    /// A vectorised f16 form of a unary element function: `o[k] = table[i[k]]` over f16 bit
    /// patterns (the table holds the plain kernel's result for every input), computing the
    /// lanes it can certify and looking the others up; returns how many lanes it did (the
    /// caller looks up the rest). `None` when the function has none (a table lookup is used).
    pub type F16Form = fn(table: &[u16], o: &mut [u16], i: &[u16]) -> usize;

    /// The f16 form of the unary element function `name`, if it has one.
    pub const fn f16_form(name: &str) -> Option<F16Form> {
        match name.as_bytes() {
            b"exp" => Some(exp_f16),
            _ => None,
        }
    }

    /// 2^(j/16) for j in 0..16, rounded to f32.
    #[cfg(target_arch = "x86_64")]
    const EXP2_16_F32: [f32; 16] = [
        1.0,
        1.044_273_8,
        1.090_507_7,
        1.138_788_6,
        1.189_207_1,
        1.241_857_8,
        1.296_839_6,
        1.354_255_6,
        std::f32::consts::SQRT_2,
        1.476_826_1,
        1.542_210_8,
        1.610_490_3,
        1.681_792_9,
        1.756_252_2,
        1.834_008_1,
        1.915_206_6,
    ];

    /// [`EXP2_16_F32`] with j·2^19 taken off entry j's bits (the f16 form adds n·2^19 back).
    #[cfg(target_arch = "x86_64")]
    static EXP2_16_F32_BIASED: [f32; 16] = {
        let mut t = [0f32; 16];
        let mut j = 0;
        while j < 16 {
            t[j] = f32::from_bits(EXP2_16_F32[j].to_bits() - ((j as u32) << 19));
            j += 1;
        }
        t
    };

    /// Exp on f16: the result is `f16(f32(e^x))` (the policy of [`super::exp`], then the
    /// f16 rounding). For inputs in [-9.5, 11] (results normal f16 values) it is computed in f32:
    /// e^x = 2^k · 2^(j/16) · e^r, |r| <= ln2/32, e^r by its degree-3 Taylor series (remainder
    /// below 1e-8, a sixth of an f32 ulp) and 2^k · 2^(j/16) built as integer bits, a few f32
    /// ulps from e^x; a lane is certified when that value lies at least 8 f32 ulps from an f16
    /// rounding midpoint (then it and `f32(e^x)` round to the same f16; `exp_f16_every_input`
    /// checks every input). Other lanes (about one in 512, and every input outside the range)
    /// come from the table.
    fn exp_f16(table: &[u16], o: &mut [u16], i: &[u16]) -> usize {
        #[cfg(target_arch = "x86_64")]
        if table.len() >= 65536
            && std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("fma")
        {
            // SAFETY: the features were detected at run time.
            return unsafe { exp_f16_avx512(table, o, i) };
        }
        let _ = (table, o, i);
        0
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,fma")]
    fn exp_f16_avx512(table: &[u16], o: &mut [u16], i: &[u16]) -> usize {
        use std::arch::x86_64::*;
        const INV_LN2_16: f32 = 16.0 * std::f32::consts::LOG2_E;
        /// ln2/16 split: the high part has 15 significant bits (n·HI exact for |n| < 512).
        const HI: f32 = 0.693_145_75 / 16.0;
        const LO: f32 = 1.428_606_8e-6 / 16.0;
        const MAGIC32: f32 = 12_582_912.0;
        /// The certification band, in f32 ulps either side of an f16 rounding midpoint.
        const F16_GUARD: i32 = 8;
        const F16_GUARD_BITS: i32 = 0x1fff & !(2 * F16_GUARD - 1);
        let n = o.len().min(i.len()) / 16 * 16;
        // SAFETY: every pointer is to a whole 16-lane chunk or to the 16-entry table
        // (unaligned accesses); the features were enabled by the caller's detection.
        unsafe {
            let tab = _mm512_loadu_ps(EXP2_16_F32_BIASED.as_ptr());
            let c = _mm512_set1_ps;
            for (oc, ic) in o[..n].chunks_exact_mut(16).zip(i.chunks_exact(16)) {
                let x = _mm512_cvtph_ps(_mm256_loadu_si256(ic.as_ptr().cast()));
                let t = _mm512_fmadd_ps(x, c(INV_LN2_16), c(MAGIC32));
                let nf = _mm512_sub_ps(t, c(MAGIC32));
                // The low bits of t hold n = 16k + j (two's complement; MAGIC32's low 13 bits
                // are zero): j indexes the table, n·2^19 = k·2^23 + j·2^19.
                let tb = _mm512_castps_si512(t);
                let r = _mm512_fnmadd_ps(nf, c(LO), _mm512_fnmadd_ps(nf, c(HI), x));
                let mut p = _mm512_fmadd_ps(c(1.0 / 6.0), r, c(0.5));
                p = _mm512_fmadd_ps(p, r, c(1.0));
                p = _mm512_fmadd_ps(p, r, c(1.0));
                // 2^k · 2^(j/16) as integer bits (the table holds bits(2^(j/16)) - j·2^19):
                // exact for the normal results the lanes kept below have.
                let tabk = _mm512_castsi512_ps(_mm512_add_epi32(
                    _mm512_castps_si512(_mm512_permutexvar_ps(tb, tab)),
                    _mm512_slli_epi32::<19>(tb),
                ));
                let y = _mm512_mul_ps(p, tabk);
                // In range (NaN fails), and the low 13 bits outside
                // [0x1000 - F16_GUARD, 0x1000 + F16_GUARD): adding F16_GUARD + 0x1000 leaves
                // a bit of F16_GUARD_BITS set.
                let in_range = _mm512_mask_cmp_ps_mask::<_CMP_LE_OQ>(
                    _mm512_cmp_ps_mask::<_CMP_GE_OQ>(x, c(-9.5)),
                    x,
                    c(11.0),
                );
                let ok = _mm512_mask_test_epi32_mask(
                    in_range,
                    _mm512_add_epi32(
                        _mm512_castps_si512(y),
                        _mm512_set1_epi32(F16_GUARD + 0x1000),
                    ),
                    _mm512_set1_epi32(F16_GUARD_BITS),
                );
                let h = _mm512_cvtps_ph::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(y);
                _mm256_storeu_si256(oc.as_mut_ptr().cast(), h);
                let mut bad = !ok;
                while bad != 0 {
                    let j = bad.trailing_zeros() as usize;
                    oc[j] = table.get(ic[j] as usize).copied().unwrap_or(0);
                    bad &= bad - 1;
                }
            }
        }
        n
    }

    /// The portable form of [`exp`] (no AVX-512), for the tests that hold both forms equal to
    /// the model.
    #[doc(hidden)]
    pub fn exp_portable(x: &mut [f32]) {
        exp_body::<false>(x)
    }

    /// `super::exp` over a slice: a vectorised f64 evaluation, with the exact path for lanes
    /// near an f32 rounding midpoint and for results outside the normal f32 range.
    pub fn exp(x: &mut [f32]) {
        #[cfg(target_arch = "x86_64")]
        if avx512() {
            // SAFETY: the features were detected at run time; in place (src == dst).
            unsafe { exp_avx512(x.as_ptr(), x.as_mut_ptr(), x.len()) };
            return;
        }
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            // SAFETY: the features were detected at run time.
            unsafe { exp_avx2(x) };
            return;
        }
        exp_body::<false>(x)
    }

    /// The FMA form of [`exp`] (what a machine with AVX2 and FMA but no AVX-512 runs), for the
    /// tests that hold every form equal to the model; the portable form without FMA.
    #[doc(hidden)]
    pub fn exp_fma(x: &mut [f32]) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            // SAFETY: the features were detected at run time.
            unsafe { exp_avx2(x) };
            return;
        }
        exp_body::<false>(x)
    }

    #[cfg(target_arch = "x86_64")]
    fn avx512() -> bool {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512dq")
            && std::arch::is_x86_feature_detected!("avx512vl")
            && std::arch::is_x86_feature_detected!("fma")
    }

    /// The unary slice forms from a source slice into a destination of the same length
    /// (the driver's fast kernel reads memory and writes memory without a staging copy).
    pub mod from {
        macro_rules! plain {
            ($($f:ident),*) => {$(
                #[inline(always)]
                pub fn $f(x: &[f32], o: &mut [f32]) {
                    for (o, v) in o.iter_mut().zip(x) {
                        *o = super::super::$f(*v);
                    }
                }
            )*};
        }
        plain!(ln, abs, sqrt, rsqrt, reciprocal);

        /// [`super::exp`] from `x` into `o` (the first `min(x.len(), o.len())` lanes).
        pub fn exp(x: &[f32], o: &mut [f32]) {
            let n = x.len().min(o.len());
            #[cfg(target_arch = "x86_64")]
            if super::avx512() {
                // SAFETY: the features were detected at run time; two distinct slices of
                // at least `n` lanes.
                unsafe { super::exp_avx512(x.as_ptr(), o.as_mut_ptr(), n) };
                return;
            }
            o[..n].copy_from_slice(&x[..n]);
            super::exp(&mut o[..n]);
        }
    }
}
