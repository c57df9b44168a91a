//! The element-type layer: storage types, their compute types, and each instruction's meaning
//! on one element as a small pure function.
//!
//! Every storage type ([`Elem`]) names a compute type [`Elem::C`]: f16, bf16 and f32 compute in
//! f32 (exact widening; the result is rounded once to nearest even when stored), integers compute
//! in themselves with wrap-around. The functions here implement the "Math Interpretation"
//! sections of pto-isa `docs/isa/<OP>.md`; the numeric choices are the crate-level policy.

use half::{bf16, f16};
use npusim_core::fastconv;
use npusim_core::{Element, NanMinMaxPolicy};

/// A compute type: f32 (for every float element) or an integer type.
pub trait Num:
    Copy + Default + PartialEq + PartialOrd + std::fmt::Debug + Send + Sync + 'static
{
    /// f32, as opposed to an integer.
    const FLOAT: bool;
    fn zero() -> Self;
    fn one() -> Self;
    /// `a + b` (integers wrap).
    fn add(self, o: Self) -> Self;
    /// `a - b` (integers wrap).
    fn sub(self, o: Self) -> Self;
    /// `a * b` (integers wrap).
    fn mul(self, o: Self) -> Self;
    /// `a / b`: IEEE for floats; integers truncate toward zero (MIN / -1 wraps). Integer division
    /// by zero is the caller's error: this returns 0 for it.
    fn div(self, o: Self) -> Self;
    /// TREM: `a - floor(a / b) * b`, result takes the divisor's sign.
    fn rem_floor(self, o: Self) -> Self;
    /// TFMOD: C `fmod`, result takes the dividend's sign.
    fn fmod(self, o: Self) -> Self;
    /// Absolute value (integers wrap: |MIN| = MIN).
    fn abs(self) -> Self;
    /// Negation (integers wrap).
    fn neg(self) -> Self;
    /// Power; integers by repeated squaring with wrap-around, negative exponents give 0 except
    /// for bases 1 and -1.
    fn pow(self, e: Self) -> Self;
    /// Zero test (for integer division checks).
    fn is_zero(self) -> bool;
    /// NaN test (false for integers).
    fn is_nan(self) -> bool;
    /// Sign bit set (negative or -0.0).
    fn sign_neg(self) -> bool;
    /// The value as f64.
    fn to_f64(self) -> f64;
    /// From an f64 value: floats round to nearest even, integers truncate and wrap.
    fn from_f64(v: f64) -> Self;
    /// From an index (argmax results).
    fn from_index(i: usize) -> Self;
}

/// min under a NaN policy (integers ignore the policy).
#[inline]
pub fn min_p<N: Num>(a: N, b: N, p: NanMinMaxPolicy) -> N {
    if N::FLOAT {
        match p {
            NanMinMaxPolicy::Propagate => {
                if a.is_nan() {
                    return a;
                }
                if b.is_nan() {
                    return b;
                }
            }
            NanMinMaxPolicy::ReturnOther => {
                if a.is_nan() {
                    return b;
                }
                if b.is_nan() {
                    return a;
                }
            }
            NanMinMaxPolicy::CppStd => return if b < a { b } else { a },
        }
        if a == b {
            // Only ±0 compare equal with different bits: min prefers -0.
            return if b.sign_neg() { b } else { a };
        }
    }
    if b < a { b } else { a }
}

/// max under a NaN policy (integers ignore the policy).
#[inline]
pub fn max_p<N: Num>(a: N, b: N, p: NanMinMaxPolicy) -> N {
    if N::FLOAT {
        match p {
            NanMinMaxPolicy::Propagate => {
                if a.is_nan() {
                    return a;
                }
                if b.is_nan() {
                    return b;
                }
            }
            NanMinMaxPolicy::ReturnOther => {
                if a.is_nan() {
                    return b;
                }
                if b.is_nan() {
                    return a;
                }
            }
            NanMinMaxPolicy::CppStd => return if a < b { b } else { a },
        }
        if a == b {
            // max prefers +0; of two equal values the left one.
            return if a.sign_neg() && !b.sign_neg() { b } else { a };
        }
    }
    if a < b { b } else { a }
}

impl Num for f32 {
    const FLOAT: bool = true;
    #[inline]
    fn zero() -> Self {
        0.0
    }
    #[inline]
    fn one() -> Self {
        1.0
    }
    #[inline]
    fn add(self, o: Self) -> Self {
        self + o
    }
    #[inline]
    fn sub(self, o: Self) -> Self {
        self - o
    }
    #[inline]
    fn mul(self, o: Self) -> Self {
        self * o
    }
    #[inline]
    fn div(self, o: Self) -> Self {
        self / o
    }
    #[inline]
    fn rem_floor(self, o: Self) -> Self {
        // fmod is exact; adding the divisor once fixes the sign (one rounding).
        let r = self % o;
        if r != 0.0 && (r < 0.0) != (o < 0.0) {
            r + o
        } else {
            r
        }
    }
    #[inline]
    fn fmod(self, o: Self) -> Self {
        self % o
    }
    #[inline]
    fn abs(self) -> Self {
        f32::abs(self)
    }
    #[inline]
    fn neg(self) -> Self {
        -self
    }
    #[inline]
    fn pow(self, e: Self) -> Self {
        (self as f64).powf(e as f64) as f32
    }
    #[inline]
    fn is_zero(self) -> bool {
        self == 0.0
    }
    #[inline]
    fn is_nan(self) -> bool {
        f32::is_nan(self)
    }
    #[inline]
    fn sign_neg(self) -> bool {
        self.is_sign_negative()
    }
    #[inline]
    fn to_f64(self) -> f64 {
        self as f64
    }
    #[inline]
    fn from_f64(v: f64) -> Self {
        v as f32
    }
    #[inline]
    fn from_index(i: usize) -> Self {
        i as f32
    }
}

macro_rules! int_num {
    ($($t:ty),*) => {$(
        impl Num for $t {
            const FLOAT: bool = false;
            #[inline] fn zero() -> Self { 0 }
            #[inline] fn one() -> Self { 1 }
            #[inline] fn add(self, o: Self) -> Self { self.wrapping_add(o) }
            #[inline] fn sub(self, o: Self) -> Self { self.wrapping_sub(o) }
            #[inline] fn mul(self, o: Self) -> Self { self.wrapping_mul(o) }
            #[inline] fn div(self, o: Self) -> Self { if o == 0 { 0 } else { self.wrapping_div(o) } }
            #[inline] fn rem_floor(self, o: Self) -> Self {
                if o == 0 { return 0; }
                let r = self.wrapping_rem(o);
                #[allow(unused_comparisons)]
                if r != 0 && ((r < 0) != (o < 0)) { r.wrapping_add(o) } else { r }
            }
            #[inline] fn fmod(self, o: Self) -> Self { if o == 0 { 0 } else { self.wrapping_rem(o) } }
            #[inline] #[allow(unused_comparisons)] fn abs(self) -> Self { if self < 0 { (0 as $t).wrapping_sub(self) } else { self } }
            #[inline] fn neg(self) -> Self { (0 as $t).wrapping_sub(self) }
            #[inline] #[allow(unused_comparisons)] fn pow(self, e: Self) -> Self {
                if e < 0 {
                    return if self == 1 { 1 } else if (0 as $t).wrapping_sub(1) == self && self != <$t>::MAX {
                        // base -1 (signed only): ±1 by parity.
                        if e & 1 == 0 { 1 } else { self }
                    } else { 0 };
                }
                let (mut acc, mut b, mut e) = (1 as $t, self, e);
                while e != 0 {
                    if e & 1 == 1 { acc = acc.wrapping_mul(b); }
                    b = b.wrapping_mul(b);
                    e >>= 1;
                }
                acc
            }
            #[inline] fn is_zero(self) -> bool { self == 0 }
            #[inline] fn is_nan(self) -> bool { false }
            #[inline] #[allow(unused_comparisons)] fn sign_neg(self) -> bool { self < 0 }
            #[inline] fn to_f64(self) -> f64 { self as f64 }
            #[inline] fn from_f64(v: f64) -> Self { v as i128 as $t }
            #[inline] fn from_index(i: usize) -> Self { i as $t }
        }
    )*};
}
int_num!(u8, i8, u16, i16, u32, i32, u64, i64);

/// Integer bit operations (TAND ... TSHR). Shift amounts are masked to the element width.
pub trait Bits: Num {
    fn and(self, o: Self) -> Self;
    fn or(self, o: Self) -> Self;
    fn xor(self, o: Self) -> Self;
    fn not(self) -> Self;
    /// `a << (b mod width)`.
    fn shl(self, b: Self) -> Self;
    /// `a >> (b mod width)`: arithmetic for signed types, logical for unsigned.
    fn shr(self, b: Self) -> Self;
}

macro_rules! int_bits {
    ($($t:ty),*) => {$(
        impl Bits for $t {
            #[inline] fn and(self, o: Self) -> Self { self & o }
            #[inline] fn or(self, o: Self) -> Self { self | o }
            #[inline] fn xor(self, o: Self) -> Self { self ^ o }
            #[inline] fn not(self) -> Self { !self }
            #[inline] fn shl(self, b: Self) -> Self { self.wrapping_shl(b as u32) }
            #[inline] fn shr(self, b: Self) -> Self { self.wrapping_shr(b as u32) }
        }
    )*};
}
int_bits!(u8, i8, u16, i16, u32, i32, u64, i64);

/// A storage element type with its compute type and row (de)serialisation.
pub trait Elem: Element {
    /// The type arithmetic happens in.
    type C: Num;
    /// Whether the storage bytes are the compute type's own bytes (every bit pattern of the
    /// storage is a compute value, same size and alignment): the row engine then computes in
    /// place in memory.
    const STORED_AS_COMPUTE: bool = false;
    /// Exact widening.
    fn widen(self) -> Self::C;
    /// Narrowing with round-to-nearest-even (identity for integers and f32).
    fn narrow(c: Self::C) -> Self;
    /// Widens little-endian bytes (`2 * out.len()` etc.) into compute values.
    fn load(bytes: &[u8], out: &mut [Self::C]);
    /// Narrows compute values into little-endian bytes.
    fn store(vals: &[Self::C], bytes: &mut [u8]);
    /// The bytes as compute values without copying, when the compute type is the storage type
    /// and the bytes are aligned for it (`None` otherwise: use [`Elem::load`]).
    #[inline]
    fn view(bytes: &[u8]) -> Option<&[Self::C]> {
        let _ = bytes;
        None
    }
    /// Rounds an exact-or-odd-rounded f64 result once to this type and widens it back
    /// (floats: round to nearest even; integers: truncate and wrap).
    #[inline]
    fn from_f64_once(v: f64) -> Self::C {
        Self::C::from_f64(v)
    }
}

macro_rules! ident_elem {
    ($($t:ty),*) => {$(
        impl Elem for $t {
            type C = $t;
            const STORED_AS_COMPUTE: bool = true;
            #[inline] fn widen(self) -> $t { self }
            #[inline] fn narrow(c: $t) -> $t { c }
            #[inline] fn load(bytes: &[u8], out: &mut [$t]) {
                let n = out.len().min(bytes.len() / std::mem::size_of::<$t>());
                bytemuck::cast_slice_mut::<$t, u8>(&mut out[..n]).copy_from_slice(&bytes[..n * std::mem::size_of::<$t>()]);
            }
            #[inline] fn view(bytes: &[u8]) -> Option<&[$t]> { bytemuck::try_cast_slice(bytes).ok() }
            #[inline] fn store(vals: &[$t], bytes: &mut [u8]) {
                let n = vals.len().min(bytes.len() / std::mem::size_of::<$t>());
                bytes[..n * std::mem::size_of::<$t>()].copy_from_slice(bytemuck::cast_slice(&vals[..n]));
            }
        }
    )*};
}
ident_elem!(u8, i8, u16, i16, u32, i32, u64, i64, f32);

impl Elem for f16 {
    type C = f32;
    #[inline]
    fn widen(self) -> f32 {
        self.to_f32()
    }
    #[inline]
    fn narrow(c: f32) -> f16 {
        f16::from_f32(c)
    }
    #[inline]
    fn load(bytes: &[u8], out: &mut [f32]) {
        fastconv::f16_bytes_to_f32(bytes, out)
    }
    #[inline]
    fn store(vals: &[f32], bytes: &mut [u8]) {
        fastconv::f32_to_f16_bytes(vals, bytes)
    }
    #[inline]
    fn from_f64_once(v: f64) -> f32 {
        f16::from_bits(npusim_core::convert::f64_to_f16_bits(
            v,
            npusim_core::RoundMode::Rint,
        ))
        .to_f32()
    }
}

impl Elem for bf16 {
    type C = f32;
    #[inline]
    fn widen(self) -> f32 {
        self.to_f32()
    }
    #[inline]
    fn narrow(c: f32) -> bf16 {
        bf16::from_f32(c)
    }
    #[inline]
    fn load(bytes: &[u8], out: &mut [f32]) {
        fastconv::bf16_bytes_to_f32(bytes, out)
    }
    #[inline]
    fn store(vals: &[f32], bytes: &mut [u8]) {
        fastconv::f32_to_bf16_bytes(vals, bytes)
    }
    #[inline]
    fn from_f64_once(v: f64) -> f32 {
        bf16::from_bits(npusim_core::convert::f64_to_bf16_bits(
            v,
            npusim_core::RoundMode::Rint,
        ))
        .to_f32()
    }
}

// ---- transcendental and fused float helpers (compute type f32) ----

/// TEXP: exp evaluated in f64 and rounded to f32 (then once more to the element type).
/// A correctly-rounded model, not bit-exact to hardware.
#[inline]
pub fn exp_f(a: f32) -> f32 {
    (a as f64).exp() as f32
}
/// [`exp_f`] of eight inputs at once, for the row engine: writes `exp_f(x[i])` to `out[i]`
/// for every lane and returns `true`, or returns `false` (lanes unspecified) when any lane
/// must be computed by [`exp_f`] itself.
///
/// Branch-free f64 arithmetic the compiler vectorises: `k = round(x / ln 2)` with a shifter
/// constant, a two-part `ln 2` reduction to `|r| <= ln 2 / 2`, the degree-11 Taylor polynomial of
/// `exp(r)` (truncation below 7e-15 relative, about 30 f64 ulps; evaluation a few ulps more),
/// and `2^k` built in the exponent bits. Every lane must then (a) have its input in
/// `[-87, 88.5]`, where `exp` is a normal f32, and (b) lie more than 2^12 f64 ulps away from
/// the nearest midpoint between two f32 values. Under (b) the exact value and the libm value
/// that [`exp_f`] rounds (within 1 ulp of exact) sit on the same side of every midpoint, so
/// both round to the same f32: the fast lanes equal `exp_f` bit for bit, by construction. (b)
/// fails for about one input in 65 000; NaN, infinities and out-of-range inputs fail (a).
#[inline(always)]
pub fn exp_f_lanes(x: &[f32; 8], out: &mut [f32; 8]) -> bool {
    const SHIFT: f64 = 6_755_399_441_055_744.0; // 1.5 * 2^52: adding it rounds to an integer
    const LN2_HI: f64 = f64::from_bits(0x3FE6_2E42_FEE0_0000); // 32 significant bits
    const LN2_LO: f64 = f64::from_bits(0x3DEA_39EF_3579_3C76);
    const GUARD: i64 = 1 << 12;
    const C: [f64; 12] = [
        1.0,
        1.0,
        1.0 / 2.0,
        1.0 / 6.0,
        1.0 / 24.0,
        1.0 / 120.0,
        1.0 / 720.0,
        1.0 / 5040.0,
        1.0 / 40320.0,
        1.0 / 362880.0,
        1.0 / 3628800.0,
        1.0 / 39916800.0,
    ];
    // Each step runs over all eight lanes (structure of arrays), so that every loop below is
    // one or two vector instructions.
    let xd: [f64; 8] = x.map(|v| v as f64);
    let in_range: [bool; 8] = xd.map(|v| (-87.0..=88.5).contains(&v));
    let mut xc = [0f64; 8];
    for i in 0..8 {
        xc[i] = if in_range[i] { xd[i] } else { 0.0 };
    }
    let mut t = [0f64; 8];
    let mut r = [0f64; 8];
    for i in 0..8 {
        t[i] = xc[i] * std::f64::consts::LOG2_E + SHIFT;
        let kf = t[i] - SHIFT;
        r[i] = (xc[i] - kf * LN2_HI) - kf * LN2_LO;
    }
    let mut p = [C[11]; 8];
    for c in C[..11].iter().rev() {
        for i in 0..8 {
            p[i] = p[i] * r[i] + c;
        }
    }
    let mut far = [true; 8];
    for i in 0..8 {
        let k = (t[i].to_bits() as i64).wrapping_sub(SHIFT.to_bits() as i64);
        let y = p[i] * f64::from_bits(((k + 1023) as u64) << 52);
        let from_midpoint = (y.to_bits() & ((1 << 29) - 1)) as i64 - (1 << 28);
        far[i] = !(-GUARD..=GUARD).contains(&from_midpoint);
        out[i] = y as f32;
    }
    let mut ok = true;
    for i in 0..8 {
        ok &= in_range[i] & far[i];
    }
    ok
}

/// TLOG: natural log in f64 (log of a negative is NaN, of ±0 is -inf).
#[inline]
pub fn log_f(a: f32) -> f32 {
    (a as f64).ln() as f32
}
/// TSQRT: correctly rounded in f32 (and, by the double-rounding rule, for f16/bf16).
#[inline]
pub fn sqrt_f(a: f32) -> f32 {
    a.sqrt()
}
/// TRSQRT: 1/sqrt in f64, rounded once.
#[inline]
pub fn rsqrt_f(a: f32) -> f32 {
    (1.0 / (a as f64).sqrt()) as f32
}
/// TRECIP for floats: `1 / a` in f32 (correctly rounded).
#[inline]
pub fn recip_f(a: f32) -> f32 {
    1.0 / a
}

/// `fl_odd(x + y)` in f64: the sum rounded to odd (truncate, then set the last bit when
/// anything was lost), computed with TwoSum. Rounding to odd at 53 bits and then to nearest
/// even at <= 24 bits equals one direct rounding of the exact sum.
#[inline]
pub fn add_odd(x: f64, y: f64) -> f64 {
    let s = x + y;
    if !s.is_finite() {
        return s;
    }
    let bb = s - x;
    let err = (x - (s - bb)) + (y - bb);
    if err == 0.0 || s.to_bits() & 1 == 1 {
        return s;
    }
    // s was rounded to nearest with an even last bit: step one ulp toward the exact value.
    let toward_up = (err > 0.0) == (s > 0.0);
    let bits = s.to_bits();
    f64::from_bits(if toward_up { bits + 1 } else { bits - 1 })
}

/// Fused multiply-add `a * b + c`, rounded once: the product of two f32-representable values is
/// exact in f64, the sum is rounded to odd, and the caller rounds to the element type once.
#[inline]
pub fn fma_odd(a: f32, b: f32, c: f32) -> f64 {
    add_odd(a as f64 * b as f64, c as f64)
}

/// Knuth's TwoSum: `s + e == x + y` exactly (for finite results).
#[inline]
fn two_sum(x: f64, y: f64) -> (f64, f64) {
    let s = x + y;
    let bb = s - x;
    (s, (x - (s - bb)) + (y - bb))
}

/// `a + b + c` of f32-representable values (TADDC, TSUBC with b negated, TADDSC, TSUBSC),
/// rounded to odd in f64 from the exact sum (an error-free expansion built with TwoSum), so
/// that one more rounding to the element type is the correctly rounded sum.
#[inline]
pub fn sum3_odd(a: f32, b: f32, c: f32) -> f64 {
    let (a, b, c) = (a as f64, b as f64, c as f64);
    let naive = a + b + c;
    if !naive.is_finite() {
        return naive;
    }
    let (s1, e1) = two_sum(a, b);
    let (s2, e2) = two_sum(s1, c);
    let (e, e3) = two_sum(e1, e2);
    // (skip a zero e: adding +0 would turn a -0 sum into +0)
    let (s, ep) = if e == 0.0 { (s2, 0.0) } else { two_sum(s2, e) };
    // The exact sum is s + ep + e3 with |ep| <= ulp(s)/2 and e3 far below ep's last bit.
    let rem = if ep != 0.0 { ep } else { e3 };
    if rem == 0.0 || s.to_bits() & 1 == 1 || s == 0.0 {
        return if s == 0.0 && rem != 0.0 { rem } else { s };
    }
    let up = (rem > 0.0) == (s > 0.0);
    let bits = s.to_bits();
    f64::from_bits(if up { bits + 1 } else { bits - 1 })
}

// ---- element functions: one pure function per per-element rule ----
//
// The instruction table names these (`(e2 all add)` is `num::add`); one function serves every
// instruction with that rule (TADD and TADDS are both `add`). Each takes the element type `T`
// (the rounding target of the fused rules), its operands in `T::C`, and the policy bits an
// element rule may read ([`Cx`]).

/// The policy bits an element function may read, fixed per instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cx {
    /// NaN in min/max.
    pub nan: NanMinMaxPolicy,
    /// TDIVS as a multiply by the reciprocal.
    pub divs_by_reciprocal: bool,
}

/// `a + b` (floats rounded once, integers wrap).
#[inline(always)]
pub fn add<T: Elem>(a: T::C, b: T::C, _: Cx) -> T::C {
    a.add(b)
}
/// `a - b`
#[inline(always)]
pub fn sub<T: Elem>(a: T::C, b: T::C, _: Cx) -> T::C {
    a.sub(b)
}
/// `a * b`
#[inline(always)]
pub fn mul<T: Elem>(a: T::C, b: T::C, _: Cx) -> T::C {
    a.mul(b)
}
/// `a / b`: floats IEEE, integers truncate toward zero (`MIN / -1` wraps).
#[inline(always)]
pub fn div<T: Elem>(a: T::C, b: T::C, _: Cx) -> T::C {
    a.div(b)
}
/// TDIVS `a / k`: on A5 floats multiply by the reciprocal rounded to the element type (a zero
/// scalar gives ±inf); otherwise [`div`].
#[inline(always)]
pub fn divs<T: Elem>(a: T::C, k: T::C, cx: Cx) -> T::C {
    if T::C::FLOAT && cx.divs_by_reciprocal {
        a.mul(T::narrow(T::C::one().div(k)).widen())
    } else {
        a.div(k)
    }
}
/// `min(a, b)` under the NaN policy.
#[inline(always)]
pub fn min<T: Elem>(a: T::C, b: T::C, cx: Cx) -> T::C {
    min_p(a, b, cx.nan)
}
/// `max(a, b)` under the NaN policy.
#[inline(always)]
pub fn max<T: Elem>(a: T::C, b: T::C, cx: Cx) -> T::C {
    max_p(a, b, cx.nan)
}
/// Remainder with the divisor's sign.
#[inline(always)]
pub fn rem<T: Elem>(a: T::C, b: T::C, _: Cx) -> T::C {
    a.rem_floor(b)
}
/// Remainder with the dividend's sign.
#[inline(always)]
pub fn fmod<T: Elem>(a: T::C, b: T::C, _: Cx) -> T::C {
    a.fmod(b)
}
/// `a ^ b`
#[inline(always)]
pub fn pow<T: Elem>(a: T::C, b: T::C, _: Cx) -> T::C {
    a.pow(b)
}
/// `a + b + c` rounded once (floats via f64 with round-to-odd steps; integers wrap).
#[inline(always)]
pub fn add3<T: Elem>(a: T::C, b: T::C, c: T::C, _: Cx) -> T::C {
    if T::C::FLOAT {
        T::from_f64_once(sum3_odd(
            a.to_f64() as f32,
            b.to_f64() as f32,
            c.to_f64() as f32,
        ))
    } else {
        a.add(b).add(c)
    }
}
/// `a - b + c` rounded once.
#[inline(always)]
pub fn sub3<T: Elem>(a: T::C, b: T::C, c: T::C, cx: Cx) -> T::C {
    add3::<T>(a, b.neg(), c, cx)
}
/// `|a|`
#[inline(always)]
pub fn abs<T: Elem>(a: T::C, _: Cx) -> T::C {
    a.abs()
}
/// `-a`
#[inline(always)]
pub fn neg<T: Elem>(a: T::C, _: Cx) -> T::C {
    a.neg()
}
/// `max(a, 0)` under the NaN policy.
#[inline(always)]
pub fn relu<T: Elem>(a: T::C, cx: Cx) -> T::C {
    max_p(a, T::C::zero(), cx.nan)
}
/// `1 / a`: floats rounded once; integers truncate.
#[inline(always)]
pub fn recip<T: Elem>(a: T::C, _: Cx) -> T::C {
    T::C::one().div(a)
}
/// [`exp_f`]
#[inline(always)]
pub fn exp<T: Elem<C = f32>>(a: f32, _: Cx) -> f32 {
    exp_f(a)
}
/// [`log_f`]
#[inline(always)]
pub fn log<T: Elem<C = f32>>(a: f32, _: Cx) -> f32 {
    log_f(a)
}
/// [`sqrt_f`]
#[inline(always)]
pub fn sqrt<T: Elem<C = f32>>(a: f32, _: Cx) -> f32 {
    sqrt_f(a)
}
/// [`rsqrt_f`]
#[inline(always)]
pub fn rsqrt<T: Elem<C = f32>>(a: f32, _: Cx) -> f32 {
    rsqrt_f(a)
}
/// `!a`
#[inline(always)]
pub fn not<T: Elem>(a: T::C, _: Cx) -> T::C
where
    T::C: Bits,
{
    a.not()
}
/// `a & b`
#[inline(always)]
pub fn and<T: Elem>(a: T::C, b: T::C, _: Cx) -> T::C
where
    T::C: Bits,
{
    a.and(b)
}
/// `a | b`
#[inline(always)]
pub fn or<T: Elem>(a: T::C, b: T::C, _: Cx) -> T::C
where
    T::C: Bits,
{
    a.or(b)
}
/// `a ^ b`
#[inline(always)]
pub fn xor<T: Elem>(a: T::C, b: T::C, _: Cx) -> T::C
where
    T::C: Bits,
{
    a.xor(b)
}
/// `a << b`, the amount masked to the element width.
#[inline(always)]
pub fn shl<T: Elem>(a: T::C, b: T::C, _: Cx) -> T::C
where
    T::C: Bits,
{
    a.shl(b)
}
/// `a >> b` (arithmetic for signed types), the amount masked to the element width.
#[inline(always)]
pub fn shr<T: Elem>(a: T::C, b: T::C, _: Cx) -> T::C
where
    T::C: Bits,
{
    a.shr(b)
}
/// `a > 0 ? a : a * b` (TPRELU with a slope tile, TLRELU with a slope scalar).
#[inline(always)]
pub fn lrelu<T: Elem<C = f32>>(a: f32, b: f32, _: Cx) -> f32 {
    if a > 0.0 { a } else { a * b }
}
/// `a * b + c` rounded once to `T`.
#[inline(always)]
pub fn fma_once<T: Elem<C = f32>>(a: f32, b: f32, c: f32) -> f32 {
    T::from_f64_once(fma_odd(a, b, c))
}
/// TMULADDDST `a * b + dst`, rounded once.
#[inline(always)]
pub fn muladd<T: Elem<C = f32>>(a: f32, b: f32, d: f32, _: Cx) -> f32 {
    fma_once::<T>(a, b, d)
}
/// TFUSEDMULADD `a * dst + b`, rounded once.
#[inline(always)]
pub fn mul_dst_add<T: Elem<C = f32>>(a: f32, b: f32, d: f32, _: Cx) -> f32 {
    fma_once::<T>(a, d, b)
}
/// TFUSEDMULADDRELU `max(a * dst + b, 0)`.
#[inline(always)]
pub fn mul_dst_add_relu<T: Elem<C = f32>>(a: f32, b: f32, d: f32, cx: Cx) -> f32 {
    max_p(fma_once::<T>(a, d, b), 0.0, cx.nan)
}
/// TSUBRELU `max(a - b, 0)`.
#[inline(always)]
pub fn subrelu<T: Elem<C = f32>>(a: f32, b: f32, cx: Cx) -> f32 {
    max_p(a - b, 0.0, cx.nan)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rem_and_fmod_signs() {
        assert_eq!(7i32.rem_floor(-3), -2);
        assert_eq!((-7i32).rem_floor(3), 2);
        assert_eq!((-7i32).fmod(3), -1);
        assert_eq!(i32::MIN.rem_floor(-1), 0);
        assert_eq!(7.5f32.rem_floor(-2.0), -0.5);
        assert_eq!((-7.5f32).fmod(2.0), -1.5);
        assert_eq!(i32::MIN.div(-1), i32::MIN);
        assert_eq!((-7i32).div(2), -3);
    }

    #[test]
    fn shifts_mask_and_pow() {
        assert_eq!(1u8.shl(9), 2);
        assert_eq!((-16i16).shr(2), -4);
        assert_eq!(0x80u8.shr(7), 1);
        assert_eq!(Num::pow(3i32, 4), 81);
        assert_eq!(Num::pow(-1i32, -3), -1);
        assert_eq!(Num::pow(2i32, -1), 0);
    }

    #[test]
    fn min_max_policies() {
        let n = f32::NAN;
        assert!(max_p(n, 1.0, NanMinMaxPolicy::Propagate).is_nan());
        assert_eq!(max_p(n, 1.0, NanMinMaxPolicy::ReturnOther), 1.0);
        assert!(max_p(n, 1.0, NanMinMaxPolicy::CppStd).is_nan());
        assert_eq!(max_p(1.0, n, NanMinMaxPolicy::CppStd), 1.0);
        assert!(min_p(-0.0f32, 0.0, NanMinMaxPolicy::Propagate).is_sign_negative());
        assert!(max_p(-0.0f32, 0.0, NanMinMaxPolicy::Propagate).is_sign_positive());
    }

    #[test]
    fn add_odd_is_sticky() {
        // 1 + 2^-60: nearest gives 1.0; odd gives the next value above 1.
        let r = add_odd(1.0, 2f64.powi(-60));
        assert_eq!(r.to_bits(), 1f64.to_bits() + 1);
        assert_eq!(add_odd(1.0, 2.0), 3.0);
        // f16: 1 + 2^-11 + 2^-30 must round up to 1 + 2^-10.
        let v = fma_odd(1.0, 1.0, 2f32.powi(-11) + 2f32.powi(-30));
        assert_eq!(
            f16::from_f32(<f16 as Elem>::from_f64_once(v)).to_bits(),
            0x3c01
        );
    }

    /// Runs `exp_f_lanes` over the f32 bit patterns `start, start + step, ...` (eight at a
    /// time) and checks every accepted group against `exp_f`. Returns (accepted, in range).
    fn sweep_exp_lanes(start: u64, step: u64) -> (u64, u64) {
        let (mut accepted, mut in_range) = (0, 0);
        let mut bits = start;
        while bits + 7 * step <= u32::MAX as u64 {
            let x: [f32; 8] =
                std::array::from_fn(|i| f32::from_bits((bits + i as u64 * step) as u32));
            let mut out = [0f32; 8];
            if exp_f_lanes(&x, &mut out) {
                accepted += 8;
                for (o, x) in out.iter().zip(x) {
                    assert_eq!(
                        o.to_bits(),
                        exp_f(x).to_bits(),
                        "exp({x:e}) [{:#010x}]",
                        x.to_bits()
                    );
                }
            }
            in_range += x.iter().filter(|v| (-87.0..=88.5).contains(*v)).count() as u64;
            bits += 8 * step;
        }
        (accepted, in_range)
    }

    #[test]
    fn exp_lanes_equal_exp_f_where_they_accept() {
        // About 2.6 million inputs spread over every exponent and sign.
        let (accepted, in_range) = sweep_exp_lanes(12345, 1637);
        assert!(in_range > 1_000_000);
        // Groups of eight consecutive sampled inputs mostly straddle the range limits only at
        // the ends; nearly every in-range group is accepted.
        assert!(
            accepted * 100 > in_range * 98,
            "accepted {accepted} of {in_range}"
        );
        // Inputs that must be declined.
        for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 89.0, -88.0] {
            let mut x = [0.5f32; 8];
            x[3] = bad;
            assert!(!exp_f_lanes(&x, &mut [0.0; 8]), "{bad}");
        }
        let mut out = [0f32; 8];
        assert!(exp_f_lanes(
            &[0.0, -0.0, 1.0, -1.0, 88.0, -86.5, 1e-30, -1e-30],
            &mut out
        ));
        assert_eq!(
            out[..4],
            [1.0, 1.0, std::f32::consts::E, 1.0 / std::f32::consts::E]
        );
    }

    /// Every f32 input (about a minute in release): `cargo test -p npusim-pto --release --lib
    /// exp_lanes_exhaustive -- --ignored`.
    #[test]
    #[ignore]
    fn exp_lanes_exhaustive() {
        let (accepted, in_range) = sweep_exp_lanes(0, 1);
        eprintln!("accepted {accepted} of {in_range} in-range inputs");
    }
}
