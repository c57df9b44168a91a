//! BDC compares and bitwise instructions on local memory (issue #16).
//!
//! Signatures as declared in `tpu_kernel.h` of `tpu_6_0`; parameter names and order are the
//! vendor's:
//! - `tpu_bdc_equal/greater/less(dst_addr, src0_addr, src1_addr, true_val, shape, dst_stride,
//!   src0_stride, src1_stride, dst_dtype, src_dtype)` and the `_C` forms `(dst_addr, src_addr,
//!   C, true_val, shape, dst_stride, src_stride, dst_dtype, src_dtype)`: `dst = cmp ? true_val :
//!   0`, written with `dst_dtype`'s width;
//! - `tpu_bdc_greater/less/equal_select(dst_addr, src0, src1, src2, src3, shape,
//!   src0_src1_dtype, dst_dtype)` with `variable_t` sources ([`Variable`]: a tensor in the
//!   aligned layout or a scalar): `dst = cmp(src0, src1) ? src2 : src3` (`golden/tpu/select.json`;
//!   asserts: `dst_dtype` no narrower than `src0_src1_dtype`, as wide when that is a float);
//! - `tpu_bdc_and/or/xor(dst_addr, src0_addr, src1_addr, shape, dst_stride, src0_stride,
//!   src1_stride, dtype)` and `_C(dst_addr, src_addr, C, shape, dst_stride, src_stride, dtype)`
//!   on the raw bits of any 8/16/32-bit type.
//!
//! One table row per instruction ([`CmpOp`], [`BitOp`], each with its pure element function)
//! and the shared lane/row driver [`crate::bdc_elem::map_elems`].
//!
//! Numerics (pinned by `golden/tpu/cmp.json`, `golden/tpu/bit.json` from the BM1684X C-model):
//! `equal` compares the raw bits (`+0 != -0`, a NaN equals its own pattern, a denormal is not
//! flushed); `greater` is `a > b` on the values, `less` is `x != y && !(a >= b)` (a NaN on either
//! side gives true unless both are the same pattern), with f32/bf16 denormals flushed to zero (f16 keeps them); integers compare as
//! their signed or unsigned values. A second operand on another start NPU is accepted (its
//! channel c is read from its own lane).
//!
//! Restrictions, each a [`TpuError`]: dims in `[1, 65535]`; every local address a multiple of
//! the EU width in bytes; compares: `dst_dtype` no wider than `src_dtype` (the C-model
//! asserts it); 8/16/32-bit types only.

use crate::bdc_elem::{Aligned, Src, map_elems, run_small};
use crate::chip::{BdcDenormals, TpuChip};
use crate::device::{HostSimd, Scalar, TpuCore};
use crate::dtype::DataType;
use crate::error::TpuError;
use crate::local::{Dim4, LocalAddr, LocalView};

/// A compare instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    /// `a == b`.
    Equal,
    /// `a > b`.
    Greater,
    /// `a < b`.
    Less,
}

impl CmpOp {
    /// The element function: raw bits `x`, `y` of the source width and their decoded values
    /// `a`, `b`. `equal` compares the bits (so `+0 != -0` and a NaN equals its own pattern);
    /// `greater` is `a > b`; `less` is `x != y && !(a >= b)` (a NaN on
    /// either side gives true unless both are the same pattern).
    #[inline(always)]
    pub fn holds(self, x: u32, y: u32, a: f64, b: f64) -> bool {
        match self {
            CmpOp::Equal => x == y,
            CmpOp::Greater => a > b,
            #[allow(clippy::neg_cmp_op_on_partial_ord)]
            CmpOp::Less => x != y && !(a >= b),
        }
    }
}

/// A bitwise instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BitOp {
    /// `a & b`.
    And,
    /// `a | b`.
    Or,
    /// `a ^ b`.
    Xor,
}

impl BitOp {
    /// The element function over raw bits.
    #[inline(always)]
    pub fn apply(self, a: u32, b: u32) -> u32 {
        match self {
            BitOp::And => a & b,
            BitOp::Or => a | b,
            BitOp::Xor => a ^ b,
        }
    }
}

/// How a compare reads its source elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Key {
    Signed(u32),
    Unsigned,
    F32 { flush: bool },
    F16,
    Bf16 { flush: bool },
}

/// A comparable value: integers exactly as i64, floats as f64 (exact for every source).
#[inline(always)]
fn key(k: Key, bits: u32) -> f64 {
    match k {
        Key::Signed(w) => {
            let s = 32 - w;
            f64::from(((bits << s) as i32) >> s)
        }
        Key::Unsigned => f64::from(bits),
        Key::F32 { flush } => {
            let b = if flush && bits & 0x7f80_0000 == 0 {
                0
            } else {
                bits
            };
            f64::from(f32::from_bits(b))
        }
        Key::F16 => f64::from(half::f16::from_bits(bits as u16).to_f32()),
        Key::Bf16 { flush } => {
            let b = if flush && bits & 0x7f80 == 0 { 0 } else { bits };
            f64::from(f32::from_bits(b << 16))
        }
    }
}

/// Runs `$body` with `$t` bound to the compare `|x, y| f.holds(x, y, key(k, x), key(k, y))`
/// monomorphised for the compare and the key (no per-element dispatch in the driver's loop).
macro_rules! with_test {
    ($f:expr, $k:expr, |$t:ident| $body:expr) => {{
        macro_rules! with_f {
            ($kk:expr) => {
                match $f {
                    CmpOp::Equal => {
                        let $t = |x: u32, y: u32| x == y;
                        $body
                    }
                    CmpOp::Greater => {
                        let $t =
                            |x: u32, y: u32| CmpOp::Greater.holds(x, y, key($kk, x), key($kk, y));
                        $body
                    }
                    CmpOp::Less => {
                        let $t = |x: u32, y: u32| CmpOp::Less.holds(x, y, key($kk, x), key($kk, y));
                        $body
                    }
                }
            };
        }
        match $k {
            Key::Signed(8) => with_f!(Key::Signed(8)),
            Key::Signed(16) => with_f!(Key::Signed(16)),
            Key::Signed(w) => with_f!(Key::Signed(w)),
            Key::Unsigned => with_f!(Key::Unsigned),
            Key::F32 { flush: true } => with_f!(Key::F32 { flush: true }),
            Key::F32 { flush: false } => with_f!(Key::F32 { flush: false }),
            Key::F16 => with_f!(Key::F16),
            Key::Bf16 { flush: true } => with_f!(Key::Bf16 { flush: true }),
            Key::Bf16 { flush: false } => with_f!(Key::Bf16 { flush: false }),
        }
    }};
}

fn esize(op: &'static str, dtype: DataType) -> Result<usize, TpuError> {
    match dtype {
        DataType::Uint8 | DataType::Int8 => Ok(1),
        DataType::Uint16 | DataType::Int16 | DataType::Fp16 | DataType::Bfp16 => Ok(2),
        DataType::Uint32 | DataType::Int32 | DataType::Fp32 => Ok(4),
        _ => Err(TpuError::UnsupportedDtype {
            op,
            dtype,
            rule: "must be an 8-, 16- or 32-bit integer type, DT_FP16, DT_BFP16 or DT_FP32",
        }),
    }
}

/// The low `es` bytes of a 32-bit pattern.
pub(crate) fn width_mask(es: usize) -> u32 {
    if es >= 4 {
        u32::MAX
    } else {
        (1u32 << (8 * es)) - 1
    }
}

impl TpuCore {
    /// How a compare reads `src_dtype` under the chip's denormal rule.
    fn cmp_key(&self, src_dtype: DataType) -> Key {
        let flush = self.chip().bdc_denormals() == BdcDenormals::FlushToZero;
        match src_dtype {
            DataType::Int8 => Key::Signed(8),
            DataType::Int16 => Key::Signed(16),
            DataType::Int32 => Key::Signed(32),
            DataType::Fp32 => Key::F32 { flush },
            DataType::Fp16 => Key::F16,
            DataType::Bfp16 => Key::Bf16 { flush },
            _ => Key::Unsigned,
        }
    }
}

/// A source of a select: a local tensor (aligned layout) or a scalar (`variable_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variable {
    /// `TENSOR`: a local tensor at this address, aligned layout.
    Tensor(LocalAddr),
    /// `SCALAR`: one value for every element (its low 8/16/32 bits).
    Scalar(Scalar),
}

impl TpuCore {
    /// `tpu_bdc_<cmp>_select`: `dst = cmp(src0, src1) ? src2 : src3`.
    #[allow(clippy::too_many_arguments)]
    fn bdc_select(
        &mut self,
        op: &'static str,
        f: CmpOp,
        dst: LocalAddr,
        srcs: [&Variable; 4],
        shape: &Dim4,
        src_dtype: DataType,
        dst_dtype: DataType,
    ) -> Result<(), TpuError> {
        let (des, ses) = (esize(op, dst_dtype)?, esize(op, src_dtype)?);
        if ses > des {
            return Err(TpuError::UnsupportedDtype {
                op,
                dtype: dst_dtype,
                rule: "dst_dtype must not be narrower than src0_src1_dtype",
            });
        }
        if matches!(src_dtype, DataType::Fp32 | DataType::Fp16 | DataType::Bfp16) && ses != des {
            return Err(TpuError::UnsupportedDtype {
                op,
                dtype: dst_dtype,
                rule: "dst_dtype must have the width of a float src0_src1_dtype",
            });
        }
        self.check_dims(op, shape)?;
        if ses == des {
            // The small-call path (`bdc_elem::run_small`): every tensor in the aligned
            // layout, as always here, and of one width; what it does not take runs below,
            // which names any error.
            let ops = srcs.map(|v| match *v {
                Variable::Tensor(addr) => Aligned::Tensor(addr),
                Variable::Scalar(c) => Aligned::Const(c.bits() & width_mask(des)),
            });
            let k = self.cmp_key(src_dtype);
            let (chip, simd) = (self.chip(), self.host_simd());
            let store = self.local_store_mut();
            if run_select(store, chip, simd, shape, des, dst, ops, f, k) {
                return Ok(());
            }
        }
        self.bdc_select_views(op, f, dst, srcs, shape, src_dtype, dst_dtype, ses, des)
    }

    /// [`Self::bdc_select`] through [`LocalView`]s and [`map_elems`] (every call the
    /// small-call path does not take: the layout checks here name the error), after the dtype
    /// and dims checks. Out of line: the small-call path's frame stays small.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn bdc_select_views(
        &mut self,
        op: &'static str,
        f: CmpOp,
        dst: LocalAddr,
        srcs: [&Variable; 4],
        shape: &Dim4,
        src_dtype: DataType,
        dst_dtype: DataType,
        ses: usize,
        des: usize,
    ) -> Result<(), TpuError> {
        let d = self.bdc_view(op, "dst_addr", dst, shape, None, dst_dtype)?;
        const NAMES: [&str; 4] = ["src0", "src1", "src2", "src3"];
        // A fixed array, not a Vec: no allocation on the call's path.
        let mut views: [Option<LocalView>; 4] = [None; 4];
        for (i, v) in srcs.iter().enumerate() {
            let dt = if i < 2 { src_dtype } else { dst_dtype };
            views[i] = match v {
                Variable::Tensor(addr) => {
                    Some(self.bdc_view(op, NAMES[i], *addr, shape, None, dt)?)
                }
                Variable::Scalar(_) => None,
            };
        }
        let operand = |i: usize| -> Src<'_> {
            match (&views[i], srcs[i]) {
                (Some(v), _) => Src::Tensor(v),
                (None, Variable::Scalar(c)) => {
                    Src::Const(c.bits() & width_mask(if i < 2 { ses } else { des }))
                }
                (None, Variable::Tensor(_)) => Src::Const(0),
            }
        };
        let ops = [operand(0), operand(1), operand(2), operand(3)];
        let k = self.cmp_key(src_dtype);
        let store = self.local_store_mut();
        with_test!(f, k, |test| map_elems(store, &d, ops, |[x, y, t, e]| {
            if test(x, y) { t } else { e }
        }));
        Ok(())
    }
}

/// Runs a compare on the small-call path of host SIMD level `simd` (`bdc_elem::run_small`):
/// `dst = f(src0, src1) ? tv : 0` with the sources read as `k` says (one instantiation per
/// compare and key, as in the checked path); `false` (nothing written) when the path does not
/// take the call. Out of line: the call's checks stay in a small frame.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn run_compare(
    store: &mut [u8],
    chip: TpuChip,
    simd: HostSimd,
    shape: &Dim4,
    es: usize,
    dst: LocalAddr,
    ops: [Aligned; 2],
    f: CmpOp,
    k: Key,
    tv: u32,
) -> bool {
    let eu = chip.local().eu_bytes;
    with_test!(f, k, |test| run_small(
        store,
        chip,
        simd,
        shape,
        es,
        eu,
        dst,
        ops,
        move |[x, y]: [u32; 2]| if test(x, y) { tv } else { 0 }
    ))
}

/// Runs a select on the small-call path of host SIMD level `simd` (`bdc_elem::run_small`):
/// `dst = f(src0, src1) ? src2 : src3` with the sources read as `k` says (one instantiation
/// per compare and key, as in the checked path); `false` (nothing written) when the path does
/// not take the call. Out of line: the call's checks stay in a small frame.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn run_select(
    store: &mut [u8],
    chip: TpuChip,
    simd: HostSimd,
    shape: &Dim4,
    es: usize,
    dst: LocalAddr,
    ops: [Aligned; 4],
    f: CmpOp,
    k: Key,
) -> bool {
    let eu = chip.local().eu_bytes;
    with_test!(f, k, |test| run_small(
        store,
        chip,
        simd,
        shape,
        es,
        eu,
        dst,
        ops,
        move |[x, y, t, e]: [u32; 4]| if test(x, y) { t } else { e }
    ))
}

impl TpuCore {
    /// `tpu_bdc_maximum_greater_select` / `minimum_less_select`: `dst0 = cmp(src0, src1) ?
    /// src0 : src1` (an f32/bf16 denormal written as a signed zero), `dst1 = cmp(src0, src1) ?
    /// src2 : src3` (bits moved); pinned by `golden/tpu/select2.json`.
    #[allow(clippy::too_many_arguments)]
    fn bdc_select2(
        &mut self,
        op: &'static str,
        f: CmpOp,
        dst0: LocalAddr,
        dst1: LocalAddr,
        srcs: [&Variable; 4],
        shape: &Dim4,
        dst0_dtype: DataType,
        dst1_dtype: DataType,
    ) -> Result<(), TpuError> {
        let (e0, e1) = (esize(op, dst0_dtype)?, esize(op, dst1_dtype)?);
        if e0 != e1 {
            return Err(TpuError::UnsupportedDtype {
                op,
                dtype: dst1_dtype,
                rule: "dst1_dtype must have the width of dst0_dtype",
            });
        }
        self.check_dims(op, shape)?;
        let d0 = self.bdc_view(op, "dst0_addr", dst0, shape, None, dst0_dtype)?;
        let d1 = self.bdc_view(op, "dst1_addr", dst1, shape, None, dst1_dtype)?;
        const NAMES: [&str; 4] = ["src0", "src1", "src2", "src3"];
        // A fixed array, not a Vec: no allocation on the call's path.
        let mut views: [Option<LocalView>; 4] = [None; 4];
        for (i, v) in srcs.iter().enumerate() {
            let dt = if i < 2 { dst0_dtype } else { dst1_dtype };
            views[i] = match v {
                Variable::Tensor(addr) => {
                    Some(self.bdc_view(op, NAMES[i], *addr, shape, None, dt)?)
                }
                Variable::Scalar(_) => None,
            };
        }
        let operand = |i: usize| -> Src<'_> {
            match (&views[i], srcs[i]) {
                (Some(v), _) => Src::Tensor(v),
                (None, Variable::Scalar(c)) => Src::Const(c.bits() & width_mask(e0)),
                (None, Variable::Tensor(_)) => Src::Const(0),
            }
        };
        let k = self.cmp_key(dst0_dtype);
        let store = self.local_store_mut();
        let ops = [operand(0), operand(1), operand(2), operand(3)];
        with_test!(f, k, |test| map_elems(store, &d1, ops, |[x, y, t, e]| {
            if test(x, y) { t } else { e }
        }));
        // The max/min output flushes an f32/bf16 denormal to a signed zero (as tpu_bdc_max).
        let denormal = match k {
            Key::F32 { flush: true } => Some((0x7f80_0000u32, 0x8000_0000u32)),
            Key::Bf16 { flush: true } => Some((0x7f80, 0x8000)),
            _ => None,
        };
        let ops = [operand(0), operand(1)];
        with_test!(f, k, |test| map_elems(store, &d0, ops, |[x, y]| {
            let r = if test(x, y) { x } else { y };
            match denormal {
                Some((exp, sign)) if r & exp == 0 => r & sign,
                _ => r,
            }
        }));
        Ok(())
    }

    /// `tpu_bdc_maximum_greater_select`: `dst0 = max(src0, src1)` (`src0 > src1 ? src0 :
    /// src1`), `dst1 = src0 > src1 ? src2 : src3`; src0/src1 in `dst0_dtype`, src2/src3 in
    /// `dst1_dtype`, both of one width.
    #[allow(clippy::too_many_arguments)]
    pub fn tpu_bdc_maximum_greater_select(
        &mut self,
        dst0_addr: LocalAddr,
        dst1_addr: LocalAddr,
        src0: &Variable,
        src1: &Variable,
        src2: &Variable,
        src3: &Variable,
        shape: &Dim4,
        dst0_dtype: DataType,
        dst1_dtype: DataType,
    ) -> Result<(), TpuError> {
        self.bdc_select2(
            "tpu_bdc_maximum_greater_select",
            CmpOp::Greater,
            dst0_addr,
            dst1_addr,
            [src0, src1, src2, src3],
            shape,
            dst0_dtype,
            dst1_dtype,
        )
    }

    /// `tpu_bdc_minimum_less_select`: `dst0 = src0 < src1 ? src0 : src1`, `dst1 = src0 < src1
    /// ? src2 : src3`.
    #[allow(clippy::too_many_arguments)]
    pub fn tpu_bdc_minimum_less_select(
        &mut self,
        dst0_addr: LocalAddr,
        dst1_addr: LocalAddr,
        src0: &Variable,
        src1: &Variable,
        src2: &Variable,
        src3: &Variable,
        shape: &Dim4,
        dst0_dtype: DataType,
        dst1_dtype: DataType,
    ) -> Result<(), TpuError> {
        self.bdc_select2(
            "tpu_bdc_minimum_less_select",
            CmpOp::Less,
            dst0_addr,
            dst1_addr,
            [src0, src1, src2, src3],
            shape,
            dst0_dtype,
            dst1_dtype,
        )
    }
}

macro_rules! select_ops {
    ($( $(#[$m:meta])* $name:ident => $op:expr ),* $(,)?) => {
        impl TpuCore {
            $(
                $(#[$m])*
                #[allow(clippy::too_many_arguments)]
                pub fn $name(
                    &mut self,
                    dst_addr: LocalAddr,
                    src0: &Variable,
                    src1: &Variable,
                    src2: &Variable,
                    src3: &Variable,
                    shape: &Dim4,
                    src0_src1_dtype: DataType,
                    dst_dtype: DataType,
                ) -> Result<(), TpuError> {
                    self.bdc_select(stringify!($name), $op, dst_addr, [src0, src1, src2, src3],
                        shape, src0_src1_dtype, dst_dtype)
                }
            )*
        }
    };
}

select_ops! {
    /// `tpu_bdc_greater_select`: `dst = src0 > src1 ? src2 : src3`.
    tpu_bdc_greater_select => CmpOp::Greater,
    /// `tpu_bdc_less_select`: `dst = src0 < src1 ? src2 : src3`.
    tpu_bdc_less_select => CmpOp::Less,
    /// `tpu_bdc_equal_select`: `dst = src0 == src1 ? src2 : src3`.
    tpu_bdc_equal_select => CmpOp::Equal,
}

/// The second operand: a tensor, or the scalar `C`.
fn rhs_src(b: Option<&LocalView>, c_bits: u32) -> Src<'_> {
    match b {
        Some(v) => Src::Tensor(v),
        None => Src::Const(c_bits),
    }
}

impl TpuCore {
    #[allow(clippy::too_many_arguments)]
    fn bdc_compare(
        &mut self,
        op: &'static str,
        f: CmpOp,
        dst: LocalAddr,
        dst_stride: Option<&Dim4>,
        src: LocalAddr,
        src_stride: Option<&Dim4>,
        rhs: Option<(LocalAddr, Option<&Dim4>)>,
        c_bits: u32,
        true_val: Scalar,
        shape: &Dim4,
        dst_dtype: DataType,
        src_dtype: DataType,
    ) -> Result<(), TpuError> {
        let (des, ses) = (esize(op, dst_dtype)?, esize(op, src_dtype)?);
        if des > ses {
            return Err(TpuError::UnsupportedDtype {
                op,
                dtype: dst_dtype,
                rule: "dst_dtype must not be wider than src_dtype",
            });
        }
        let k = self.cmp_key(src_dtype);
        let mask = width_mask(ses);
        let tv = true_val.bits();
        // The small-call path (`bdc_elem::run_small`): NULL strides, one width; what it does
        // not take runs below, which names any error.
        if des == ses
            && dst_stride.is_none()
            && src_stride.is_none()
            && rhs.is_none_or(|(_, s)| s.is_none())
            && self.dims_ok_fast(shape)
        {
            let rhs = match rhs {
                Some((addr, _)) => Aligned::Tensor(addr),
                None => Aligned::Const(c_bits & mask),
            };
            let (chip, simd) = (self.chip(), self.host_simd());
            let store = self.local_store_mut();
            let ops = [Aligned::Tensor(src), rhs];
            if run_compare(store, chip, simd, shape, des, dst, ops, f, k, tv) {
                return Ok(());
            }
        }
        self.check_dims_dst(op, shape, dst_stride)?;
        let (sname, rname) = if rhs.is_some() {
            ("src0_addr", "src1_addr")
        } else {
            ("src_addr", "C")
        };
        let d = self.bdc_view(op, "dst_addr", dst, shape, dst_stride, dst_dtype)?;
        let a = self.bdc_view(op, sname, src, shape, src_stride, src_dtype)?;
        let b = match rhs {
            Some((addr, s)) => Some(self.bdc_view(op, rname, addr, shape, s, src_dtype)?),
            None => None,
        };
        let store = self.local_store_mut();
        let ops = [Src::Tensor(&a), rhs_src(b.as_ref(), c_bits & mask)];
        with_test!(f, k, |test| map_elems(store, &d, ops, |[x, y]| {
            if test(x, y) { tv } else { 0 }
        }));
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn bdc_bitwise(
        &mut self,
        op: &'static str,
        f: BitOp,
        dst: LocalAddr,
        dst_stride: Option<&Dim4>,
        src: LocalAddr,
        src_stride: Option<&Dim4>,
        rhs: Option<(LocalAddr, Option<&Dim4>)>,
        c_bits: u32,
        shape: &Dim4,
        dtype: DataType,
    ) -> Result<(), TpuError> {
        let es = esize(op, dtype)?;
        // The small-call path (`bdc_elem::run_small`): NULL strides; what it does not take
        // runs below, which names any error.
        if dst_stride.is_none()
            && src_stride.is_none()
            && rhs.is_none_or(|(_, s)| s.is_none())
            && self.dims_ok_fast(shape)
        {
            let rhs = match rhs {
                Some((addr, _)) => Aligned::Tensor(addr),
                None => Aligned::Const(c_bits),
            };
            let (chip, simd) = (self.chip(), self.host_simd());
            let eu = chip.local().eu_bytes;
            let store = self.local_store_mut();
            let ops = [Aligned::Tensor(src), rhs];
            // One instantiation per operation (a closure each, not a function pointer).
            macro_rules! run {
                ($g:expr) => {
                    run_small(
                        store,
                        chip,
                        simd,
                        shape,
                        es,
                        eu,
                        dst,
                        ops,
                        |[x, y]: [u32; 2]| $g.apply(x, y),
                    )
                };
            }
            let taken = match f {
                BitOp::And => run!(BitOp::And),
                BitOp::Or => run!(BitOp::Or),
                BitOp::Xor => run!(BitOp::Xor),
            };
            if taken {
                return Ok(());
            }
        }
        self.check_dims_dst(op, shape, dst_stride)?;
        let (sname, rname) = if rhs.is_some() {
            ("src0_addr", "src1_addr")
        } else {
            ("src_addr", "C")
        };
        let d = self.bdc_view(op, "dst_addr", dst, shape, dst_stride, dtype)?;
        let a = self.bdc_view(op, sname, src, shape, src_stride, dtype)?;
        let b = match rhs {
            Some((addr, s)) => Some(self.bdc_view(op, rname, addr, shape, s, dtype)?),
            None => None,
        };
        let store = self.local_store_mut();
        map_elems(
            store,
            &d,
            [Src::Tensor(&a), rhs_src(b.as_ref(), c_bits)],
            |[x, y]| f.apply(x, y),
        );
        Ok(())
    }
}

macro_rules! cmp_ops {
    ($( $(#[$m:meta])* $name:ident, $cname:ident => $op:expr ),* $(,)?) => {
        impl TpuCore {
            $(
                $(#[$m])*
                #[allow(clippy::too_many_arguments)]
                pub fn $name(
                    &mut self,
                    dst_addr: LocalAddr,
                    src0_addr: LocalAddr,
                    src1_addr: LocalAddr,
                    true_val: Scalar,
                    shape: &Dim4,
                    dst_stride: Option<&Dim4>,
                    src0_stride: Option<&Dim4>,
                    src1_stride: Option<&Dim4>,
                    dst_dtype: DataType,
                    src_dtype: DataType,
                ) -> Result<(), TpuError> {
                    self.bdc_compare(stringify!($name), $op, dst_addr, dst_stride, src0_addr,
                        src0_stride, Some((src1_addr, src1_stride)), 0, true_val, shape,
                        dst_dtype, src_dtype)
                }

                $(#[$m])*
                /// (`_C` form: the second operand is the scalar `C`.)
                #[allow(clippy::too_many_arguments, non_snake_case)]
                pub fn $cname(
                    &mut self,
                    dst_addr: LocalAddr,
                    src_addr: LocalAddr,
                    C: Scalar,
                    true_val: Scalar,
                    shape: &Dim4,
                    dst_stride: Option<&Dim4>,
                    src_stride: Option<&Dim4>,
                    dst_dtype: DataType,
                    src_dtype: DataType,
                ) -> Result<(), TpuError> {
                    self.bdc_compare(stringify!($cname), $op, dst_addr, dst_stride, src_addr,
                        src_stride, None, C.bits(), true_val, shape, dst_dtype, src_dtype)
                }
            )*
        }
    };
}

cmp_ops! {
    /// `tpu_bdc_equal`: `dst = src0 == src1 ? true_val : 0`.
    tpu_bdc_equal, tpu_bdc_equal_C => CmpOp::Equal,
    /// `tpu_bdc_greater`: `dst = src0 > src1 ? true_val : 0`.
    tpu_bdc_greater, tpu_bdc_greater_C => CmpOp::Greater,
    /// `tpu_bdc_less`: `dst = src0 < src1 ? true_val : 0`.
    tpu_bdc_less, tpu_bdc_less_C => CmpOp::Less,
}

macro_rules! bit_ops {
    ($( $(#[$m:meta])* $name:ident, $cname:ident => $op:expr ),* $(,)?) => {
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
                    dtype: DataType,
                ) -> Result<(), TpuError> {
                    self.bdc_bitwise(stringify!($name), $op, dst_addr, dst_stride, src0_addr,
                        src0_stride, Some((src1_addr, src1_stride)), 0, shape, dtype)
                }

                $(#[$m])*
                /// (`_C` form: the second operand is the scalar `C`.)
                #[allow(clippy::too_many_arguments, non_snake_case)]
                pub fn $cname(
                    &mut self,
                    dst_addr: LocalAddr,
                    src_addr: LocalAddr,
                    C: Scalar,
                    shape: &Dim4,
                    dst_stride: Option<&Dim4>,
                    src_stride: Option<&Dim4>,
                    dtype: DataType,
                ) -> Result<(), TpuError> {
                    self.bdc_bitwise(stringify!($cname), $op, dst_addr, dst_stride, src_addr,
                        src_stride, None, C.bits(), shape, dtype)
                }
            )*
        }
    };
}

bit_ops! {
    /// `tpu_bdc_and`: `dst = src0 & src1`.
    tpu_bdc_and, tpu_bdc_and_C => BitOp::And,
    /// `tpu_bdc_or`: `dst = src0 | src1`.
    tpu_bdc_or, tpu_bdc_or_C => BitOp::Or,
    /// `tpu_bdc_xor`: `dst = src0 ^ src1`.
    tpu_bdc_xor, tpu_bdc_xor_C => BitOp::Xor,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chip::TpuChip;
    use proptest::prelude::*;

    /// Words the stores are filled with: random bits, and now and then an f32 special (NaN,
    /// signalling NaN, infinities, denormals, signed zeros) whose halves are f16/bf16 specials.
    fn fill(core: &mut TpuCore, seed: u64) {
        const SPECIALS: [u32; 9] = [
            0x7fc0_0000,
            0x7f80_0001,
            0xff80_0000,
            0x7f80_0000,
            0x0000_0001,
            0x807f_ffff,
            0x8000_0000,
            0,
            0x0001_8001,
        ];
        let mut x = seed | 1;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for lane in 0..64u32 {
            let bytes: Vec<u8> = (0..3072)
                .flat_map(|_| {
                    let r = next();
                    let w = if r % 4 == 0 {
                        SPECIALS[(r >> 8) as usize % SPECIALS.len()]
                    } else {
                        (r >> 16) as u32
                    };
                    w.to_le_bytes()
                })
                .collect();
            core.write_local(lane << 18, &bytes).unwrap();
        }
    }

    /// (src0_src1_dtype, dst_dtype): one width (the small-call path) and wider destinations
    /// (declined).
    const SELECT_TYPES: [(DataType, DataType); 8] = [
        (DataType::Fp32, DataType::Fp32),
        (DataType::Int32, DataType::Uint32),
        (DataType::Fp16, DataType::Fp16),
        (DataType::Bfp16, DataType::Bfp16),
        (DataType::Int16, DataType::Uint16),
        (DataType::Int8, DataType::Int8),
        (DataType::Uint8, DataType::Int16),
        (DataType::Int16, DataType::Int32),
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// The small-call path of the selects (`bdc_elem::run_small`) against its twin, the
        /// checked path over views (`bdc_select_views`, which the public call runs for every
        /// call the small-call path declines): every compare, float and integer types with
        /// NaNs, infinities, denormals and signed zeros, tensor and scalar sources, sources on
        /// the destination's start lane or others, in place, meeting the destination partly or
        /// not at all, misaligned or past the lane now and then. Accepted or refused and the
        /// whole local store must be equal.
        #[test]
        fn aligned_selects_equal_view_path(
            op in 0usize..3, types in 0usize..SELECT_TYPES.len(),
            lanes in prop::array::uniform5(0u32..64), same in prop::array::uniform4(any::<bool>()),
            offs in prop::array::uniform5(0u32..8),
            skew in prop::array::uniform5(prop::sample::select(vec![0u32, 0, 0, 0, 0, 4, 0x3_ffc0])),
            scalar in prop::array::uniform4(prop::sample::select(vec![false, false, true])),
            bits in prop::array::uniform4(any::<u32>()),
            n in 1i32..3, c in 1i32..70, h in 1i32..4, w in 1i32..20, seed in any::<u64>(),
            simd in prop::sample::select(vec![HostSimd::Avx512, HostSimd::Avx2, HostSimd::Baseline]),
        ) {
            let f = [CmpOp::Equal, CmpOp::Greater, CmpOp::Less][op];
            let (src_dtype, dst_dtype) = SELECT_TYPES[types];
            let shape = Dim4::new(n, c, h, w);
            let p = TpuChip::Bm1684x.local();
            let lane = |i: usize| if i > 0 && same[i - 1] { lanes[0] } else { lanes[i] };
            let addr = |i: usize| (lane(i) << 18) + offs[i] * 64 + skew[i];
            let vars: [Variable; 4] = std::array::from_fn(|k| {
                if scalar[k] {
                    Variable::Scalar(Scalar::from_bits(bits[k]))
                } else {
                    Variable::Tensor(addr(k + 1))
                }
            });
            let mut fast = TpuCore::with_gm_size(TpuChip::Bm1684x, 1 << 20).unwrap();
            fill(&mut fast, seed);
            let mut twin = fast.clone();
            fast.set_host_simd(simd);
            let srcs = [&vars[0], &vars[1], &vars[2], &vars[3]];
            let got = fast.bdc_select("select", f, addr(0), srcs, &shape, src_dtype, dst_dtype);
            let ses = p.tpu_data_type_size(src_dtype).unwrap() as usize;
            let des = p.tpu_data_type_size(dst_dtype).unwrap() as usize;
            let want = twin.bdc_select_views(
                "select", f, addr(0), srcs, &shape, src_dtype, dst_dtype, ses, des,
            );
            prop_assert_eq!(got.is_ok(), want.is_ok(), "{:?} / {:?}", got, want);
            prop_assert!(fast.local_store() == twin.local_store(), "{:?} {:?} stores differ", f, SELECT_TYPES[types]);
        }
    }
}
