//! BDC integer arithmetic on local memory (issue #16): `tpu_bdc_int_add/sub/mul` and the
//! scalar forms `tpu_bdc_int_add_C/sub_C/C_sub/mul_C`, `tpu_bdc_int_max_C/min_C`.
//!
//! Signatures as declared in `tpu_kernel.h` of `tpu_6_0` ("BDC INTEGER BINARY FUNCTIONS");
//! parameter names and order are the vendor's:
//! - `tpu_bdc_int_<op>(dst_addr, src0_addr, src1_addr, shape, dst_stride, src0_stride,
//!   src1_stride, dst_dtype, src0_dtype, src1_dtype, shift, rounding_mode, saturation)`,
//! - `tpu_bdc_int_<op>_C(dst_addr, src_addr, C, shape, dst_stride, src_stride, dst_dtype,
//!   src_dtype, C_dtype, shift, rounding_mode, saturation)` (and `tpu_bdc_int_C_sub`, `C - src`),
//! - `tpu_bdc_int_max_C/min_C(dst_addr, src_addr, C, shape, dst_stride, src_stride, dtype,
//!   shift, rounding_mode)`.
//!
//! Numerics (pinned by `golden/tpu/int.json` from the BM1684X C-model): each operand is read
//! as the exact integer its own dtype holds (`C` as its low 8/16/32 bits under `C_dtype`); the
//! operation is exact; a positive `shift` shifts the result left by `shift mod 32`, a negative
//! one shifts it right rounding with `rounding_mode` (any of the seven `rounding_mode_t`
//! values); then it is saturated to `dst_dtype` when `saturation` is set, else cut to
//! `dst_dtype`'s width. With an unsigned destination (all operands unsigned) the intermediate
//! is a 64-bit word: it wraps, and saturation reads its top bit as a sign (`(2^32 + 255) << 31`
//! saturates to 0 in u8, while a signed `(-2^31 + 1) * 32767 << 31` saturates to the minimum). `max_C`/`min_C` take the larger /
//! smaller value and ignore `shift` and `rounding_mode` (the C-model does).
//!
//! Restrictions, each a [`TpuError`] (the C-model asserts them): every dtype an 8/16/32-bit
//! integer type; `add`/`mul`: `dst_dtype` signed exactly when a source is; `sub` forms:
//! `dst_dtype` signed; dims in `[1, 65535]`; operands inside their lanes. Unlike the float
//! instructions, the C-model takes operand addresses off the 64-byte grid here.

use crate::bdc_data::RoundingMode;
use crate::bdc_elem::{Aligned, Src, map_elems, run_small};
use crate::chip::TpuChip;
use crate::device::{HostSimd, Scalar, TpuCore};
use crate::dtype::DataType;
use crate::error::TpuError;
use crate::local::{Dim4, LocalAddr};

/// An integer BDC operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntOp {
    /// `a + b`.
    Add,
    /// `a - b`.
    Sub,
    /// `b - a` (`tpu_bdc_int_C_sub`: `C - src`).
    RSub,
    /// `a * b`.
    Mul,
    /// `max(a, b)`.
    Max,
    /// `min(a, b)`.
    Min,
}

impl IntOp {
    /// The exact result.
    #[inline(always)]
    pub fn apply(self, a: i64, b: i64) -> i128 {
        let (a, b) = (i128::from(a), i128::from(b));
        match self {
            IntOp::Add => a + b,
            IntOp::Sub => a - b,
            IntOp::RSub => b - a,
            IntOp::Mul => a * b,
            IntOp::Max => a.max(b),
            IntOp::Min => a.min(b),
        }
    }

    /// Whether `shift` applies (the C-model ignores it for `int_max_C`/`int_min_C`).
    pub const fn shifts(self) -> bool {
        !matches!(self, IntOp::Max | IntOp::Min)
    }
}

/// An 8/16/32-bit integer type: width and signedness.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntType {
    /// Width in bits.
    pub bits: u32,
    /// Signed.
    pub signed: bool,
}

impl IntType {
    /// The integer type of `dtype`, if it is one.
    pub fn of(dtype: DataType) -> Option<IntType> {
        let (bits, signed) = match dtype {
            DataType::Uint8 => (8, false),
            DataType::Int8 => (8, true),
            DataType::Uint16 => (16, false),
            DataType::Int16 => (16, true),
            DataType::Uint32 => (32, false),
            DataType::Int32 => (32, true),
            _ => return None,
        };
        Some(IntType { bits, signed })
    }

    /// The value of a bit pattern (its low `bits` bits).
    #[inline(always)]
    pub fn value(self, bits: u32) -> i64 {
        let s = 32 - self.bits;
        if self.signed {
            i64::from(((bits << s) as i32) >> s)
        } else {
            i64::from((bits << s) >> s)
        }
    }

    /// The smallest and largest value.
    pub fn range(self) -> (i128, i128) {
        if self.signed {
            (-(1i128 << (self.bits - 1)), (1i128 << (self.bits - 1)) - 1)
        } else {
            (0, (1i128 << self.bits) - 1)
        }
    }
}

/// `v / 2^s` rounded with `mode` (`s >= 1`).
#[inline(always)]
pub fn round_shift(v: i128, s: u32, mode: RoundingMode) -> i128 {
    // Every intermediate is below 2^64 in magnitude, so shifts past 100 round like 100.
    let s = s.min(100);
    let q = v >> s;
    let r = v - (q << s);
    let half = 1i128 << (s - 1);
    let up = match mode {
        RoundingMode::Down => false,
        RoundingMode::Up => r != 0,
        RoundingMode::TowardsZero => r != 0 && v < 0,
        RoundingMode::HalfToEven => r > half || (r == half && q & 1 == 1),
        RoundingMode::HalfAwayFromZero => r > half || (r == half && v >= 0),
        RoundingMode::HalfUp => r >= half,
        RoundingMode::HalfDown => r > half,
    };
    q + i128::from(up)
}

/// A checked integer call: the operation and how its result is written.
#[derive(Clone, Copy, Debug)]
pub struct IntPlan {
    /// The operation.
    pub op: IntOp,
    /// First operand type.
    pub a: IntType,
    /// Second operand type.
    pub b: IntType,
    /// Destination type.
    pub dst: IntType,
    /// Positive: left shift; negative: rounded right shift.
    pub shift: i8,
    /// Rounding of a right shift.
    pub mode: RoundingMode,
    /// Saturate to `dst` (else wrap).
    pub saturation: bool,
}

impl IntPlan {
    /// The element function over bit patterns.
    #[inline(always)]
    pub fn apply(&self, x: u32, y: u32) -> u32 {
        let r = self.op.apply(self.a.value(x), self.b.value(y));
        let shift = if self.op.shifts() { self.shift } else { 0 };
        // A left shift counts modulo 32.
        let left = u32::from(shift.unsigned_abs()) & 31;
        let right = u32::from(shift.unsigned_abs());
        let r = if self.dst.signed {
            // Signed: exact (|r| < 2^64, so `r << 31` fits an i128).
            match shift {
                0 => r,
                s if s > 0 => r << left,
                _ => round_shift(r, right, self.mode),
            }
        } else {
            // Unsigned: a 64-bit word, wrapping, rounded as unsigned, then saturated as if it
            // were signed (`(2^32 + 255) << 31` has its top bit set and saturates to 0).
            let u = r as u64;
            let u = match shift {
                0 => u,
                s if s > 0 => u.wrapping_shl(left),
                _ => round_shift(i128::from(u), right, self.mode) as u64,
            };
            i128::from(u as i64)
        };
        if self.saturation {
            let (lo, hi) = self.dst.range();
            r.clamp(lo, hi) as u32
        } else {
            r as u32
        }
    }
}

macro_rules! fast64_go {
    ($k:ident, $f:ident, $body:expr, $op:expr, $sh:expr, $m:expr) => {{
        // The constants are copied into the closure, so the loop keeps them in registers.
        let kk = $k;
        if kk.w32 {
            // 32-bit lanes (twice as many per vector, and AVX2 has their shifts).
            let $f = move |x: u32, y: u32| kk.apply32::<{ $op }, { $sh }, { $m }>(x, y);
            $body
        } else {
            let $f = move |x: u32, y: u32| kk.apply::<{ $op }, { $sh }, { $m }>(x, y);
            $body
        }
    }};
}

macro_rules! fast64_modes {
    ($k:ident, $mode:expr, $f:ident, $body:expr, $op:expr) => {
        match ($k.shift_class(), $mode) {
            (0, _) => fast64_go!($k, $f, $body, $op, 0, 0),
            (1, _) => fast64_go!($k, $f, $body, $op, 1, 0),
            (_, RoundingMode::HalfToEven) => fast64_go!($k, $f, $body, $op, 2, 0),
            (_, RoundingMode::HalfAwayFromZero) => fast64_go!($k, $f, $body, $op, 2, 1),
            (_, RoundingMode::TowardsZero) => fast64_go!($k, $f, $body, $op, 2, 2),
            (_, RoundingMode::Down) => fast64_go!($k, $f, $body, $op, 2, 3),
            (_, RoundingMode::Up) => fast64_go!($k, $f, $body, $op, 2, 4),
            (_, RoundingMode::HalfUp) => fast64_go!($k, $f, $body, $op, 2, 5),
            (_, RoundingMode::HalfDown) => fast64_go!($k, $f, $body, $op, 2, 6),
        }
    };
}

/// Runs `$body` with `$f` bound to the element function of the plan `$plan` monomorphised
/// for its operation, shift direction and rounding mode (`$k` its [`Fast64`] constants).
macro_rules! with_fast64 {
    ($k:ident, $plan:expr, |$f:ident| $body:expr) => {
        match $plan.op {
            IntOp::Add => fast64_modes!($k, $plan.mode, $f, $body, 0),
            IntOp::Sub => fast64_modes!($k, $plan.mode, $f, $body, 1),
            IntOp::RSub => fast64_modes!($k, $plan.mode, $f, $body, 2),
            IntOp::Mul => fast64_modes!($k, $plan.mode, $f, $body, 3),
            IntOp::Max => fast64_modes!($k, $plan.mode, $f, $body, 4),
            IntOp::Min => fast64_modes!($k, $plan.mode, $f, $body, 5),
        }
    };
}

impl IntPlan {
    /// Whether [`Self::apply64`] gives the same results as [`Self::apply`]: the exact result
    /// and its left shift stay below 2^61 in magnitude, and an unsigned destination only sees
    /// non-negative results.
    #[inline(always)]
    pub fn fits_i64(&self) -> bool {
        let (a, b) = (self.a.bits, self.b.bits);
        let rbits = match self.op {
            IntOp::Add | IntOp::Sub | IntOp::RSub => a.max(b) + 1,
            IntOp::Mul => a + b,
            IntOp::Max | IntOp::Min => a.max(b),
        };
        let shift = if self.op.shifts() { self.shift } else { 0 };
        let left = if shift > 0 {
            u32::from(shift.unsigned_abs()) & 31
        } else {
            0
        };
        let non_negative = !self.a.signed
            && !self.b.signed
            && matches!(self.op, IntOp::Add | IntOp::Mul | IntOp::Max | IntOp::Min);
        rbits + left <= 61 && (self.dst.signed || non_negative)
    }

    /// Whether [`Fast64::apply32`] gives the same results as [`Fast64::apply`]: 8/16-bit
    /// sources, the exact result and its left shift below 2^28 in magnitude (so a right shift
    /// by 30 or more rounds as one by 62 does) or, with no shift, a product of at most 2^30 in
    /// magnitude, and a destination range that fits `i32` (`apply64_equals_apply` holds the
    /// two paths equal on every plan shape).
    #[inline]
    fn fits_i32(&self) -> bool {
        let (a, b) = (self.a.bits, self.b.bits);
        let rbits = match self.op {
            IntOp::Add | IntOp::Sub | IntOp::RSub => a.max(b) + 1,
            IntOp::Mul => a + b,
            IntOp::Max | IntOp::Min => a.max(b),
        };
        let left = match self.shift {
            s if s > 0 && self.op.shifts() => u32::from(s.unsigned_abs()) & 31,
            _ => 0,
        };
        // With no shift, a product only has to fit `i32` itself: magnitudes below
        // `2^(bits - signed)` each, so `2^30` at most for 8/16-bit sources (i16 x i16).
        let unshifted = self.shift == 0 || !self.op.shifts();
        let mag = |t: IntType| t.bits - u32::from(t.signed);
        let product_fits = matches!(self.op, IntOp::Mul) && mag(self.a) + mag(self.b) <= 30;
        a <= 16
            && b <= 16
            && (rbits + left <= 29 || (unshifted && product_fits))
            && self.fits_i64()
            && (self.dst.signed || self.dst.bits < 32)
    }

    /// [`Self::apply`] in 64-bit arithmetic, for plans where [`Self::fits_i64`] holds (the
    /// scalar twin `apply` is held equal to it by a test over every plan shape).
    /// It runs the monomorphised element function the driver uses (`Fast64::apply`), picked
    /// by the same dispatch.
    pub fn apply64(&self, x: u32, y: u32) -> u32 {
        let k = Fast64::new(self);
        with_fast64!(k, self, |f| f(x, y))
    }
}

/// The constants of an [`IntPlan`] that fits 64 bits, for the monomorphised element function
/// [`Fast64::apply`] (operation, shift direction and rounding mode as const parameters).
#[derive(Clone, Copy, Debug)]
struct Fast64 {
    a_shift: u32,
    a_signed: bool,
    b_shift: u32,
    b_signed: bool,
    shift: i8,
    lo: i64,
    hi: i64,
    saturation: bool,
    /// Whether the 32-bit element function applies ([`IntPlan::fits_i32`]).
    w32: bool,
    lo32: i32,
    hi32: i32,
}

const MODES: [RoundingMode; 7] = [
    RoundingMode::HalfToEven,
    RoundingMode::HalfAwayFromZero,
    RoundingMode::TowardsZero,
    RoundingMode::Down,
    RoundingMode::Up,
    RoundingMode::HalfUp,
    RoundingMode::HalfDown,
];

impl Fast64 {
    #[inline(always)]
    fn new(p: &IntPlan) -> Fast64 {
        // `IntType::range` in 64 bits (a width of at most 32 bits): this runs on every call of
        // the small-call path.
        let top = 1i64 << (p.dst.bits - u32::from(p.dst.signed));
        let (lo, hi) = if p.dst.signed {
            (-top, top - 1)
        } else {
            (0, top - 1)
        };
        Fast64 {
            a_shift: 32 - p.a.bits,
            a_signed: p.a.signed,
            b_shift: 32 - p.b.bits,
            b_signed: p.b.signed,
            shift: if p.op.shifts() { p.shift } else { 0 },
            lo,
            hi,
            saturation: p.saturation,
            w32: p.fits_i32(),
            lo32: lo.max(i32::MIN.into()) as i32,
            hi32: hi.min(i32::MAX.into()) as i32,
        }
    }

    /// 0: no shift, 1: left, 2: rounded right.
    fn shift_class(&self) -> u8 {
        match self.shift {
            0 => 0,
            s if s > 0 => 1,
            _ => 2,
        }
    }

    #[inline(always)]
    fn value(bits: u32, shift: u32, signed: bool) -> i64 {
        let s = i64::from(((bits << shift) as i32) >> shift);
        let u = i64::from((bits << shift) >> shift);
        if signed { s } else { u }
    }

    /// [`IntPlan::apply64`] with `OP` (Add, Sub, RSub, Mul, Max, Min), `SH` (none, left,
    /// right) and `MODE` (index in [`MODES`]) fixed.
    #[inline(always)]
    fn apply<const OP: u8, const SH: u8, const MODE: u8>(&self, x: u32, y: u32) -> u32 {
        let a = Self::value(x, self.a_shift, self.a_signed);
        let b = Self::value(y, self.b_shift, self.b_signed);
        let r = match OP {
            0 => a + b,
            1 => a - b,
            2 => b - a,
            3 => a * b,
            4 => a.max(b),
            _ => a.min(b),
        };
        let amount = u32::from(self.shift.unsigned_abs());
        let r = match SH {
            0 => r,
            1 => r << (amount & 31),
            _ => round_shift64(r, amount, MODES[MODE as usize]),
        };
        // max/min, not clamp: clamp's `lo <= hi` assert is a branch that stops vectorising.
        let c = r.max(self.lo).min(self.hi);
        (if self.saturation { c } else { r }) as u32
    }
}

impl Fast64 {
    #[inline(always)]
    fn value32(bits: u32, shift: u32, signed: bool) -> i32 {
        let s = ((bits << shift) as i32) >> shift;
        let u = ((bits << shift) >> shift) as i32;
        if signed { s } else { u }
    }

    /// [`Fast64::apply`] in 32-bit arithmetic, for plans where [`IntPlan::fits_i32`] holds
    /// (held equal to the scalar `IntPlan::apply` by the same test, through
    /// [`IntPlan::apply64`]).
    #[inline(always)]
    fn apply32<const OP: u8, const SH: u8, const MODE: u8>(&self, x: u32, y: u32) -> u32 {
        let a = Self::value32(x, self.a_shift, self.a_signed);
        let b = Self::value32(y, self.b_shift, self.b_signed);
        let r = match OP {
            0 => a + b,
            1 => a - b,
            2 => b - a,
            3 => a * b,
            4 => a.max(b),
            _ => a.min(b),
        };
        let amount = u32::from(self.shift.unsigned_abs());
        let r = match SH {
            0 => r,
            1 => r << (amount & 31),
            _ => round_shift32(r, amount, MODES[MODE as usize]),
        };
        let c = r.max(self.lo32).min(self.hi32);
        (if self.saturation { c } else { r }) as u32
    }
}

/// [`round_shift64`] for `|v| < 2^28` (shifts past 30 round like 30, and so like 62).
#[inline(always)]
pub fn round_shift32(v: i32, s: u32, mode: RoundingMode) -> i32 {
    let s = s.min(30);
    if mode == RoundingMode::HalfToEven {
        // `q + (r > half || r == half && q odd)` as one add and shift: adding `half - 1 + (q &
        // 1)` carries into the quotient exactly then (the sum stays below 2^(s+1) past `q << s`,
        // and `|v| + half` fits the width).
        let half = 1i32 << (s - 1);
        return (v + (half - 1) + ((v >> s) & 1)) >> s;
    }
    let q = v >> s;
    let r = v - (q << s);
    let half = 1i32 << (s - 1);
    let up = match mode {
        RoundingMode::Down => false,
        RoundingMode::Up => r != 0,
        RoundingMode::TowardsZero => r != 0 && v < 0,
        RoundingMode::HalfToEven => r > half || (r == half && q & 1 == 1),
        RoundingMode::HalfAwayFromZero => r > half || (r == half && v >= 0),
        RoundingMode::HalfUp => r >= half,
        RoundingMode::HalfDown => r > half,
    };
    q + i32::from(up)
}

/// [`round_shift`] for `|v| < 2^61` (shifts past 62 round like 62).
#[inline(always)]
pub fn round_shift64(v: i64, s: u32, mode: RoundingMode) -> i64 {
    let s = s.min(62);
    if mode == RoundingMode::HalfToEven {
        // `q + (r > half || r == half && q odd)` as one add and shift: adding `half - 1 + (q &
        // 1)` carries into the quotient exactly then (the sum stays below 2^(s+1) past `q << s`,
        // and `|v| + half` fits the width).
        let half = 1i64 << (s - 1);
        return (v + (half - 1) + ((v >> s) & 1)) >> s;
    }
    let q = v >> s;
    let r = v - (q << s);
    let half = 1i64 << (s - 1);
    let up = match mode {
        RoundingMode::Down => false,
        RoundingMode::Up => r != 0,
        RoundingMode::TowardsZero => r != 0 && v < 0,
        RoundingMode::HalfToEven => r > half || (r == half && q & 1 == 1),
        RoundingMode::HalfAwayFromZero => r > half || (r == half && v >= 0),
        RoundingMode::HalfUp => r >= half,
        RoundingMode::HalfDown => r > half,
    };
    q + i64::from(up)
}

const INT_RULE: &str = "must be DT_INT8, DT_UINT8, DT_INT16, DT_UINT16, DT_INT32 or DT_UINT32";

fn int_type(op: &'static str, dtype: DataType) -> Result<IntType, TpuError> {
    IntType::of(dtype).ok_or(TpuError::UnsupportedDtype {
        op,
        dtype,
        rule: INT_RULE,
    })
}

impl TpuCore {
    /// The integer calls' common body. Inlined into each public call, so that the operation is
    /// a constant of the small-call path (`run_small_int`'s `OP`).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn bdc_int(
        &mut self,
        op: &'static str,
        f: IntOp,
        dst: LocalAddr,
        dst_stride: Option<&Dim4>,
        src: LocalAddr,
        src_stride: Option<&Dim4>,
        rhs: Option<(LocalAddr, Option<&Dim4>)>,
        c: Scalar,
        shape: &Dim4,
        dtypes: [DataType; 3],
        shift: i8,
        mode: RoundingMode,
        saturation: bool,
    ) -> Result<(), TpuError> {
        let [ddt, adt, bdt] = dtypes;
        let (d_t, a_t, b_t) = (int_type(op, ddt)?, int_type(op, adt)?, int_type(op, bdt)?);
        match f {
            IntOp::Sub | IntOp::RSub if !d_t.signed => {
                return Err(TpuError::UnsupportedDtype {
                    op,
                    dtype: ddt,
                    rule: "dst_dtype must be signed for a subtraction",
                });
            }
            IntOp::Add | IntOp::Mul if d_t.signed != (a_t.signed || b_t.signed) => {
                return Err(TpuError::UnsupportedDtype {
                    op,
                    dtype: ddt,
                    rule: "dst_dtype must be signed exactly when a source dtype is",
                });
            }
            _ => {}
        }
        let plan = IntPlan {
            op: f,
            a: a_t,
            b: b_t,
            dst: d_t,
            shift,
            mode,
            saturation,
        };
        // The small-call path: every operand in the aligned layout (NULL strides) and of one
        // width (`bdc_elem::run_small`); what it does not take runs below, which names any
        // error.
        if dst_stride.is_none()
            && src_stride.is_none()
            && a_t.bits == d_t.bits
            && rhs.is_none_or(|(_, s)| s.is_none() && b_t.bits == d_t.bits)
            && plan.fits_i64()
            && self.dims_ok_fast(shape)
        {
            let es = (d_t.bits / 8) as usize;
            let rhs = match rhs {
                Some((addr, _)) => Aligned::Tensor(addr),
                None => Aligned::Const(c.bits()),
            };
            let ops = [Aligned::Tensor(src), rhs];
            let chip = self.chip();
            let simd = self.host_simd();
            let store = self.local_store_mut();
            let go = match f {
                IntOp::Add => run_small_int::<0>,
                IntOp::Sub => run_small_int::<1>,
                IntOp::RSub => run_small_int::<2>,
                IntOp::Mul => run_small_int::<3>,
                IntOp::Max => run_small_int::<4>,
                IntOp::Min => run_small_int::<5>,
            };
            let taken = go(store, chip, simd, shape, es, dst, ops, &plan);
            if taken {
                return Ok(());
            }
        }
        self.bdc_int_views(
            op, &plan, dst, dst_stride, src, src_stride, rhs, c, shape, dtypes,
        )
    }

    /// [`Self::bdc_int`] through [`LocalView`](crate::local::LocalView)s and [`map_elems`] (strides, and every call the
    /// small-call path does not take: the layout checks here name the error). Out of line: the
    /// small-call path's frame stays small.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn bdc_int_views(
        &mut self,
        op: &'static str,
        plan: &IntPlan,
        dst: LocalAddr,
        dst_stride: Option<&Dim4>,
        src: LocalAddr,
        src_stride: Option<&Dim4>,
        rhs: Option<(LocalAddr, Option<&Dim4>)>,
        c: Scalar,
        shape: &Dim4,
        dtypes: [DataType; 3],
    ) -> Result<(), TpuError> {
        let [ddt, adt, bdt] = dtypes;
        let plan = *plan;
        self.check_dims_dst(op, shape, dst_stride)?;
        let (sname, rname) = if rhs.is_some() {
            ("src0_addr", "src1_addr")
        } else {
            ("src_addr", "C")
        };
        let d = self.bdc_view_any(op, "dst_addr", dst, shape, dst_stride, ddt)?;
        let a = self.bdc_view_any(op, sname, src, shape, src_stride, adt)?;
        let b = match rhs {
            Some((addr, s)) => Some(self.bdc_view_any(op, rname, addr, shape, s, bdt)?),
            None => None,
        };
        let rhs = match &b {
            Some(v) => Src::Tensor(v),
            None => Src::Const(c.bits()),
        };
        let store = self.local_store_mut();
        if plan.fits_i64() {
            let ops = [Src::Tensor(&a), rhs];
            let k = Fast64::new(&plan);
            // One instantiation per (operation, shift direction, rounding mode): the element
            // body has no per-element dispatch and its selects vectorise.
            with_fast64!(k, plan, |f| map_elems(store, &d, ops, |[x, y]| f(x, y)));
        } else {
            map_elems(store, &d, [Src::Tensor(&a), rhs], |[x, y]| plan.apply(x, y));
        }
        Ok(())
    }
}

/// Runs an integer call on the small-call path of host SIMD level `simd`
/// (`bdc_elem::run_small`) with the element function of `plan` (which fits 64 bits, and whose
/// operation is `OP`, numbered as in `with_fast64!`), one instantiation per (operation, shift
/// direction, rounding mode) as in the checked path; `false` (nothing written) when the path
/// does not take the call. Inlined into each public call (through `TpuCore::bdc_int`): the
/// plan's fields stay in registers, and the operation, the dtypes of a `_C`/select form and
/// the path's constants fold.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn run_small_int<const OP: u8>(
    store: &mut [u8],
    chip: TpuChip,
    simd: HostSimd,
    shape: &Dim4,
    es: usize,
    dst: LocalAddr,
    ops: [Aligned; 2],
    plan: &IntPlan,
) -> bool {
    let k = Fast64::new(plan);
    // Unlike the float instructions, the operands need only be element-aligned.
    fast64_modes!(
        k,
        plan.mode,
        f,
        run_small(
            store,
            chip,
            simd,
            shape,
            es,
            es as u32,
            dst,
            ops,
            move |[x, y]: [u32; 2]| f(x, y)
        ),
        OP
    )
}

macro_rules! int_tensor_ops {
    ($( $(#[$m:meta])* $name:ident => $op:expr ),* $(,)?) => {
        impl TpuCore {
            $(
                $(#[$m])*
                #[allow(clippy::too_many_arguments)]
                pub fn $name(
                    &mut self,
                    dst_addr: LocalAddr,
                    src0_addr: LocalAddr,
                    src1_addr: LocalAddr,
                    shape: &Dim4,
                    dst_stride: Option<&Dim4>,
                    src0_stride: Option<&Dim4>,
                    src1_stride: Option<&Dim4>,
                    dst_dtype: DataType,
                    src0_dtype: DataType,
                    src1_dtype: DataType,
                    shift: i8,
                    rounding_mode: RoundingMode,
                    saturation: bool,
                ) -> Result<(), TpuError> {
                    self.bdc_int(stringify!($name), $op, dst_addr, dst_stride, src0_addr,
                        src0_stride, Some((src1_addr, src1_stride)), Scalar(0), shape,
                        [dst_dtype, src0_dtype, src1_dtype], shift, rounding_mode, saturation)
                }
            )*
        }
    };
}

macro_rules! int_const_ops {
    ($( $(#[$m:meta])* $name:ident => $op:expr ),* $(,)?) => {
        impl TpuCore {
            $(
                $(#[$m])*
                #[allow(clippy::too_many_arguments, non_snake_case)]
                pub fn $name(
                    &mut self,
                    dst_addr: LocalAddr,
                    src_addr: LocalAddr,
                    C: Scalar,
                    shape: &Dim4,
                    dst_stride: Option<&Dim4>,
                    src_stride: Option<&Dim4>,
                    dst_dtype: DataType,
                    src_dtype: DataType,
                    C_dtype: DataType,
                    shift: i8,
                    rounding_mode: RoundingMode,
                    saturation: bool,
                ) -> Result<(), TpuError> {
                    self.bdc_int(stringify!($name), $op, dst_addr, dst_stride, src_addr,
                        src_stride, None, C, shape, [dst_dtype, src_dtype, C_dtype], shift,
                        rounding_mode, saturation)
                }
            )*
        }
    };
}

macro_rules! int_select_ops {
    ($( $(#[$m:meta])* $name:ident => $op:expr ),* $(,)?) => {
        impl TpuCore {
            $(
                $(#[$m])*
                #[allow(clippy::too_many_arguments, non_snake_case)]
                pub fn $name(
                    &mut self,
                    dst_addr: LocalAddr,
                    src_addr: LocalAddr,
                    C: Scalar,
                    shape: &Dim4,
                    dst_stride: Option<&Dim4>,
                    src_stride: Option<&Dim4>,
                    dtype: DataType,
                    shift: i8,
                    rounding_mode: RoundingMode,
                ) -> Result<(), TpuError> {
                    self.bdc_int(stringify!($name), $op, dst_addr, dst_stride, src_addr,
                        src_stride, None, C, shape, [dtype, dtype, dtype], shift,
                        rounding_mode, true)
                }
            )*
        }
    };
}

int_tensor_ops! {
    /// `tpu_bdc_int_add`: `dst = (src0 + src1) << shift` (rounded right shift when negative).
    tpu_bdc_int_add => IntOp::Add,
    /// `tpu_bdc_int_sub`: `dst = (src0 - src1) << shift`; `dst_dtype` signed.
    tpu_bdc_int_sub => IntOp::Sub,
    /// `tpu_bdc_int_mul`: `dst = (src0 * src1) << shift`.
    tpu_bdc_int_mul => IntOp::Mul,
}

int_const_ops! {
    /// `tpu_bdc_int_add_C`: `dst = (src + C) << shift`.
    tpu_bdc_int_add_C => IntOp::Add,
    /// `tpu_bdc_int_sub_C`: `dst = (src - C) << shift`; `dst_dtype` signed.
    tpu_bdc_int_sub_C => IntOp::Sub,
    /// `tpu_bdc_int_C_sub`: `dst = (C - src) << shift`; `dst_dtype` signed.
    tpu_bdc_int_C_sub => IntOp::RSub,
    /// `tpu_bdc_int_mul_C`: `dst = (src * C) << shift`.
    tpu_bdc_int_mul_C => IntOp::Mul,
}

int_select_ops! {
    /// `tpu_bdc_int_max_C`: `dst = max(src, C) << shift`.
    tpu_bdc_int_max_C => IntOp::Max,
    /// `tpu_bdc_int_min_C`: `dst = min(src, C) << shift`.
    tpu_bdc_int_min_C => IntOp::Min,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn apply64_equals_apply() {
        // Every operation, type triple, shift class and mode on edge and mixed operands.
        let types: Vec<IntType> = [8u32, 16, 32]
            .iter()
            .flat_map(|&bits| [false, true].map(|signed| IntType { bits, signed }))
            .collect();
        let ops = [
            IntOp::Add,
            IntOp::Sub,
            IntOp::RSub,
            IntOp::Mul,
            IntOp::Max,
            IntOp::Min,
        ];
        let modes = [
            RoundingMode::HalfToEven,
            RoundingMode::HalfAwayFromZero,
            RoundingMode::TowardsZero,
            RoundingMode::Down,
            RoundingMode::Up,
            RoundingMode::HalfUp,
            RoundingMode::HalfDown,
        ];
        let vals = [
            0u32,
            1,
            2,
            3,
            0x7f,
            0x80,
            0xff,
            0x7fff,
            0x8000,
            0xffff,
            0x7fff_ffff,
            0x8000_0000,
            0xffff_ffff,
            0x1234_5678,
            0xdead_beef,
            5,
            0xffff_fffd,
        ];
        let mut checked = 0;
        for op in ops {
            for &a in &types {
                for &b in &types {
                    for &dst in &types {
                        for shift in [0i8, 1, 5, 31, 40, -1, -3, -31, -62, -100, -128] {
                            for mode in modes {
                                for saturation in [false, true] {
                                    let p = IntPlan {
                                        op,
                                        a,
                                        b,
                                        dst,
                                        shift,
                                        mode,
                                        saturation,
                                    };
                                    if !p.fits_i64() {
                                        continue;
                                    }
                                    for &x in &vals {
                                        for &y in &vals {
                                            assert_eq!(
                                                p.apply64(x, y),
                                                p.apply(x, y),
                                                "{p:?} {x:#x} {y:#x}"
                                            );
                                            checked += 1;
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        assert!(checked > 1_000_000, "{checked}");
    }

    #[test]
    fn round_shift_modes() {
        use RoundingMode::*;
        // 5/2 = 2.5, -5/2 = -2.5, 7/4 = 1.75
        let cases = [
            (HalfToEven, [2, -2, 2]),
            (HalfAwayFromZero, [3, -3, 2]),
            (TowardsZero, [2, -2, 1]),
            (Down, [2, -3, 1]),
            (Up, [3, -2, 2]),
            (HalfUp, [3, -2, 2]),
            (HalfDown, [2, -3, 2]),
        ];
        for (m, want) in cases {
            assert_eq!(round_shift(5, 1, m), want[0], "{m:?}");
            assert_eq!(round_shift(-5, 1, m), want[1], "{m:?}");
            assert_eq!(round_shift(7, 2, m), want[2], "{m:?}");
        }
    }
}
