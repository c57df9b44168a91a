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
