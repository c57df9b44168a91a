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
//! - Fused forms (Axpy, MulAddDst, FusedMulAdd, MulAddRelu) round the product to f32 and then
//!   the sum (two f32 roundings, then one to the element type).

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
/// MulAddDst / vmla: `dst = src0 · src1 + dst`.
#[inline(always)]
pub fn mul_add_dst(a: f32, b: f32, dst: f32) -> f32 {
    a * b + dst
}
/// FusedMulAdd / vmadd: `dst = src0 · dst + src1`.
#[inline(always)]
pub fn fused_mul_add(a: f32, b: f32, dst: f32) -> f32 {
    a * dst + b
}
/// MulAddRelu / vmaddrelu: `dst = relu(src0 · dst + src1)`.
#[inline(always)]
pub fn mul_add_relu(a: f32, b: f32, dst: f32) -> f32 {
    relu(a * dst + b)
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

    /// 16 / ln 2.
    const INV_LN2_16: f64 = 16.0 * std::f64::consts::LOG2_E;
    /// ln 2 / 16 split so that `n · LN2_16_HI` is exact for |n| < 2^32 (fdlibm's ln 2
    /// constants divided by 16, which is exact).
    const LN2_16_HI: f64 = 6.931_471_803_691_238e-1 / 16.0;
    const LN2_16_LO: f64 = 1.908_214_929_270_587_7e-10 / 16.0;
    /// 1.5 · 2^52: adding it rounds to an integer held in the low mantissa bits.
    const MAGIC: f64 = 6_755_399_441_055_744.0;
    /// 2^(j/16) for j in 0..16, each correctly rounded to f64.
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
    /// Lanes whose fast f64 result lies within this many f64 ulps (2^13, about 1e-12
    /// relative) of an f32 rounding midpoint take the exact path. The fast result's error: the
    /// degree-5 Taylor remainder below 1.5e-13 relative on |r| <= ln2/32, the table's and the
    /// evaluation's rounding a few ulps; libm's `exp` is within 1 ulp. Outside this band both
    /// round to the same f32; about one lane in 2^15 takes the exact path.
    const GUARD: i64 = 1 << 13;

    /// exp in f64 without branches: (result rounded to f32, whether it is certainly equal to
    /// `super::exp`). x = (16k + j)·ln2/16 + r; e^x = 2^k · 2^(j/16) · e^r.
    #[inline(always)]
    fn exp_fast<const FMA: bool>(a: f32) -> (f32, bool) {
        let x = a as f64;
        let fma = |a: f64, b: f64, c: f64| if FMA { a.mul_add(b, c) } else { a * b + c };
        let t = fma(x, INV_LN2_16, MAGIC);
        let n = t - MAGIC;
        let ni = (t.to_bits() as i64).wrapping_sub(MAGIC.to_bits() as i64);
        let r = fma(-n, LN2_16_LO, fma(-n, LN2_16_HI, x));
        // Taylor series of e^r to degree 5 by Estrin's scheme.
        let r2 = r * r;
        let q0 = fma(1.0, r, 1.0);
        let q1 = fma(1.0 / 6.0, r, 0.5);
        let q2 = fma(1.0 / 120.0, r, 1.0 / 24.0);
        let p = fma(fma(q2, r2, q1), r2, q0);
        let tab = EXP2_16[(ni & 15) as usize];
        let scale = f64::from_bits(((ni >> 4).wrapping_add(1023) as u64) << 52);
        let y = p * tab * scale;
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
        let mut ok = [false; B];
        for blk in x.chunks_mut(B) {
            let m = blk.len();
            let mut all = true;
            for k in 0..m {
                let (y, g) = exp_fast::<FMA>(blk[k]);
                out[k] = y;
                ok[k] = g;
                all &= g;
            }
            if !all {
                for k in 0..m {
                    if !ok[k] {
                        out[k] = super::exp(blk[k]);
                    }
                }
            }
            blk.copy_from_slice(&out[..m]);
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    fn exp_avx2(x: &mut [f32]) {
        exp_body::<true>(x)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx2,fma")]
    fn exp_avx512(x: &mut [f32]) {
        exp_body::<true>(x)
    }

    /// `super::exp` over a slice: a vectorised f64 evaluation, with the exact path for lanes
    /// near an f32 rounding midpoint and for results outside the normal f32 range.
    pub fn exp(x: &mut [f32]) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("fma")
        {
            // SAFETY: the features were detected at run time.
            unsafe { exp_avx512(x) };
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
}
