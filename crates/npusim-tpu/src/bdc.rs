//! BDC (TIU) elementwise floating-point instructions on local memory (issue #16).
//!
//! `tpu_bdc_fp_add/sub/mul/div(dst, src0, src1, shape, dst_stride, src0_stride, src1_stride,
//! dtype)`, the scalar forms `tpu_bdc_fp_add_C/sub_C/C_sub/mul_C/div_C/C_div(dst, src, C, shape,
//! dst_stride, src_stride, dtype)` and `tpu_bdc_max/min` (+ `_C`) as declared in `tpu_kernel.h`
//! of `tpu_6_0` ("BDC FUNCTIONS"); parameter names and order are the vendor's.
//!
//! Architecture: one table row per instruction ([`BinOp`] with its element function and the
//! dtypes it takes) and one shared driver that walks the 64 lanes through [`LocalView`] rows
//! (the only place lane/slot arithmetic lives) and runs the element function over each row;
//! element formats (f32, f16, bf16) are monomorphised ([`Fmt`]), so the inner loop has no
//! per-element dispatch.
//!
//! Numerics (checked against `golden/tpu/bdc.json`): operands are read as f32 (f16/bf16
//! widened exactly), the operation is done once in f32 with round-to-nearest-even, f16/bf16
//! results are rounded once from that f32; denormals follow the chip profile's
//! [`BdcDenormals`] (the C-model flushes f32 and bf16 denormal inputs, the f32 intermediate and
//! the results to a zero of the same sign; f16 keeps its denormals; f16/bf16 arithmetic NaNs are
//! written as `0x7fff`); `max` is `a > b ? a : b` and `min` is `a >= b ? b : a` on the flushed values, moving
//! the chosen operand's bits; f32 arithmetic NaNs follow the x86 SSE rule the C-model inherits
//! (first NaN operand quieted, else the second, else the default NaN `0xffc00000`). Division
//! is the C-model's: `a` times a reciprocal from three Newton steps of `1/sqrt`, squared
//! ([`crate::bdc_sfu::cmodel_div`]), not the correctly rounded quotient.
//!
//! Small-call paths (issue #16, acceptance 4), each taken first and returning `false` (nothing
//! written) for any call it does not take, which then runs through the checked path (every
//! check, then the generic driver; it names any error):
//! * f32 add/sub/mul (+ `_C`): `crate::avx512::small_f32`, f16/bf16 `crate::avx512::small_half`
//!   (AVX-512 hosts), `crate::bdc_avx2::aligned_f32` (AVX2-only hosts);
//! * `fp_div`, `fp_div_C`, `fp_C_div` (f32) and `max`/`min` (+ `_C`) on f32, f16, bf16 and the
//!   integer types, NULL strides (`TpuCore::sel_small`): `crate::bdc_elem::run_small` (the
//!   layout checks of `crate::local::aligned_place` in one pass, no [`LocalView`]s, each
//!   source the destination itself or apart from it inside every lane; then
//!   `crate::avx512::small_elem` on the BM1684X at AVX-512, else the AVX2 row kernel of
//!   `crate::bdc_elem::AlignedCall`; none at [`HostSimd::Baseline`]) with an element function
//!   on bit patterns that the compiler vectorises: [`cmodel_div_bits`] (the C-model's
//!   division, branch-free), [`sel_bits`] (max/min of floats by sign-magnitude keys), or a
//!   typed integer compare. The generic driver's f32 division rows use [`cmodel_div_bits`]
//!   too (their NaN results recomputed by [`cmodel_div`], the same bits).
//!
//! Twins: `tests/bdc.rs` `aligned_small_calls_equal_strided_calls` (add/sub/mul) and
//! `aligned_small_div_max_min_equal_strided_calls` (div, max, min on every dtype, both chips:
//! the NULL-stride call at each host level, and the strided call at that level, against the
//! strided call on a core held at [`HostSimd::Baseline`], whole stores compared);
//! `crate::bdc_sfu`'s `div_bits_equal_cmodel_div` holds [`cmodel_div_bits`] equal to
//! [`cmodel_div`] on special and sampled bit patterns.
//!
//! Restrictions, each a [`TpuError`]: dims in `[1, 65535]`; strides non-negative; every operand
//! address a multiple of the EU width in bytes (64 on BM1684X; the C-model asserts
//! `addr % (eu_num * bytesize) == 0`); the dtype legal for the op (`fp_div` forms: DT_FP32 only;
//! `max`/`min` also any 8/16/32-bit integer type, compared as values; the others DT_FP32,
//! DT_FP16, DT_BFP16); operands inside their lanes.

use crate::bdc_elem::{Aligned, Src, map_elems, run_small};
use crate::bdc_int::IntType;
use crate::bdc_sfu::{cmodel_div, cmodel_div_bits};
use crate::chip::{BdcDenormals, TpuChip};
use crate::device::{HostSimd, TpuCore};
use crate::dtype::DataType;
use crate::error::TpuError;
use crate::local::{Dim4, Layout, LocalAddr, LocalView, check_stride, for_each_row};

/// An element format the BDC float instructions run on.
pub(crate) trait Fmt {
    const SIZE: usize;
    fn load(b: &[u8]) -> f32;
    fn store(v: f32, b: &mut [u8]);
    /// Whether `v` (an f32 widened from this format) is a denormal of this format.
    fn is_denormal(v: f32) -> bool;
    /// Whether the flush-to-zero policy applies to this format.
    const FLUSH: bool;
    /// Whether this is f32 (which has a fast path).
    const IS_F32: bool = false;
    /// The NaN an arithmetic instruction writes (`None`: the host's NaN).
    const NAN: Option<u16>;
}

pub(crate) struct F32;
pub(crate) struct F16;
pub(crate) struct Bf16;

impl Fmt for F32 {
    const SIZE: usize = 4;
    const IS_F32: bool = true;
    const FLUSH: bool = true;
    const NAN: Option<u16> = None;
    #[inline(always)]
    fn load(b: &[u8]) -> f32 {
        f32::from_le_bytes([b[0], b[1], b[2], b[3]])
    }
    #[inline(always)]
    fn store(v: f32, b: &mut [u8]) {
        b[..4].copy_from_slice(&v.to_le_bytes());
    }
    #[inline(always)]
    fn is_denormal(v: f32) -> bool {
        v.is_subnormal()
    }
}

impl Fmt for F16 {
    const SIZE: usize = 2;
    const FLUSH: bool = false;
    const NAN: Option<u16> = Some(0x7fff);
    #[inline(always)]
    fn load(b: &[u8]) -> f32 {
        half::f16::from_bits(u16::from_le_bytes([b[0], b[1]])).to_f32()
    }
    #[inline(always)]
    fn store(v: f32, b: &mut [u8]) {
        b[..2].copy_from_slice(&half::f16::from_f32(v).to_bits().to_le_bytes());
    }
    #[inline(always)]
    fn is_denormal(v: f32) -> bool {
        v != 0.0 && v.abs() < 6.103_515_6e-5
    }
}

impl Fmt for Bf16 {
    const SIZE: usize = 2;
    const FLUSH: bool = true;
    const NAN: Option<u16> = Some(0x7fff);
    #[inline(always)]
    fn load(b: &[u8]) -> f32 {
        half::bf16::from_bits(u16::from_le_bytes([b[0], b[1]])).to_f32()
    }
    #[inline(always)]
    fn store(v: f32, b: &mut [u8]) {
        b[..2].copy_from_slice(&half::bf16::from_f32(v).to_bits().to_le_bytes());
    }
    #[inline(always)]
    fn is_denormal(v: f32) -> bool {
        v.is_subnormal()
    }
}

/// Little-endian bits of one element (1, 2 or 4 bytes).
#[inline(always)]
pub(crate) fn raw(b: &[u8]) -> u32 {
    let mut a = [0u8; 4];
    a[..b.len()].copy_from_slice(b);
    u32::from_le_bytes(a)
}

/// Flushes a denormal to a zero of the same sign.
#[inline(always)]
pub(crate) fn ftz<T: Fmt>(v: f32) -> f32 {
    if T::is_denormal(v) {
        0.0f32.copysign(v)
    } else {
        v
    }
}

/// A BDC float instruction: its vendor name, element function and legal dtypes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `a + b`.
    Add,
    /// `a - b`.
    Sub,
    /// `b - a` (`tpu_bdc_fp_C_sub`: `C - src`).
    RSub,
    /// `a * b`.
    Mul,
    /// `a / b` by the C-model's reciprocal ([`cmodel_div`]: not correctly rounded; it flushes
    /// denormals inside whatever the profile's policy).
    Div,
    /// `b / a` (`tpu_bdc_fp_C_div`: `C / src`).
    RDiv,
    /// `a > b ? a : b`.
    Max,
    /// `a >= b ? b : a` (the C-model's min: ties and a NaN-free `b` not above `a` give `b`;
    /// a NaN on either side gives `a`).
    Min,
}

impl BinOp {
    /// The element function.
    #[inline(always)]
    pub fn apply(self, a: f32, b: f32) -> f32 {
        match self {
            BinOp::Add => x86(a, b, a + b),
            BinOp::Sub => x86(a, b, a - b),
            BinOp::RSub => x86(b, a, b - a),
            BinOp::Mul => x86(a, b, a * b),
            BinOp::Div => cmodel_div(a, b, true),
            BinOp::RDiv => cmodel_div(b, a, true),
            BinOp::Max => {
                if a > b {
                    a
                } else {
                    b
                }
            }
            BinOp::Min => {
                if a >= b {
                    b
                } else {
                    a
                }
            }
        }
    }

    /// For max/min: whether the second operand is the one selected.
    #[inline(always)]
    fn picks_b(self, a: f32, b: f32) -> bool {
        match self {
            // Not `a <= b`: a NaN operand must select `b` (the comparison `a > b` is false).
            #[allow(clippy::neg_cmp_op_on_partial_ord)]
            BinOp::Max => !(a > b),
            BinOp::Min => a >= b,
            _ => false,
        }
    }

    fn dtype_ok(self, dtype: DataType) -> Result<(), &'static str> {
        match self {
            BinOp::Div | BinOp::RDiv => {
                if dtype == DataType::Fp32 {
                    Ok(())
                } else {
                    Err("must be DT_FP32")
                }
            }
            BinOp::Max | BinOp::Min => match dtype {
                DataType::Fp32 | DataType::Fp16 | DataType::Bfp16 => Ok(()),
                d if IntType::of(d).is_some() => Ok(()),
                _ => Err("must be DT_FP32, DT_FP16, DT_BFP16 or an 8/16/32-bit integer type"),
            },
            _ => match dtype {
                DataType::Fp32 | DataType::Fp16 | DataType::Bfp16 => Ok(()),
                _ => Err("must be DT_FP32, DT_FP16 or DT_BFP16"),
            },
        }
    }
}

/// The second operand of a BDC binary instruction.
#[derive(Clone, Copy, Debug)]
enum Rhs<'a> {
    Tensor(LocalAddr, Option<&'a Dim4>),
    Const(u32),
}

impl Rhs<'_> {
    /// The second operand as the small-call paths take it: a tensor with a NULL stride
    /// (`Some(addr)`, scalar 0) or the scalar decoded by `scalar` (`None`); `None` for a tensor
    /// with an explicit stride (the generic driver's).
    #[inline(always)]
    fn small(self, scalar: impl Fn(u32) -> f32) -> Option<(Option<LocalAddr>, f32)> {
        match self {
            Rhs::Tensor(addr, None) => Some((Some(addr), 0.0)),
            Rhs::Const(bits) => Some((None, scalar(bits))),
            Rhs::Tensor(_, Some(_)) => None,
        }
    }
}

impl TpuCore {
    /// Resolves a local BDC operand: EU alignment, NULL stride = aligned layout, footprint.
    #[inline(always)]
    pub(crate) fn bdc_view(
        &self,
        op: &'static str,
        param: &'static str,
        addr: LocalAddr,
        shape: &Dim4,
        stride: Option<&Dim4>,
        dtype: DataType,
    ) -> Result<LocalView, TpuError> {
        let p = self.chip().local();
        if stride.is_none()
            && let Some(v) = LocalView::aligned_fast(&p, addr, shape, dtype, p.eu_bytes, false)
        {
            return Ok(v);
        }
        self.bdc_view_checked(op, param, addr, shape, stride, dtype)
    }

    /// [`Self::bdc_view`] through the general layout arithmetic (explicit strides, and every
    /// call the fast path turns down: this one names the error).
    #[inline(never)]
    fn bdc_view_checked(
        &self,
        op: &'static str,
        param: &'static str,
        addr: LocalAddr,
        shape: &Dim4,
        stride: Option<&Dim4>,
        dtype: DataType,
    ) -> Result<LocalView, TpuError> {
        let eu = self.chip().local().eu_bytes;
        if !addr.is_multiple_of(eu) {
            return Err(TpuError::Misaligned {
                op,
                param,
                addr,
                align: eu,
            });
        }
        self.bdc_view_any(op, param, addr, shape, stride, dtype)
    }

    /// [`Self::bdc_view`] without the EU alignment check (instructions the C-model runs on any
    /// element-aligned address).
    #[inline(always)]
    pub(crate) fn bdc_view_any(
        &self,
        op: &'static str,
        param: &'static str,
        addr: LocalAddr,
        shape: &Dim4,
        stride: Option<&Dim4>,
        dtype: DataType,
    ) -> Result<LocalView, TpuError> {
        let p = self.chip().local();
        if stride.is_none() {
            let esize = p.tpu_data_type_size(dtype).unwrap_or(1);
            if let Some(v) = LocalView::aligned_fast(&p, addr, shape, dtype, esize, false) {
                return Ok(v);
            }
        }
        self.bdc_view_any_checked(op, param, addr, shape, stride, dtype)
    }

    /// [`Self::bdc_view_any`] through the general layout arithmetic.
    #[inline(never)]
    fn bdc_view_any_checked(
        &self,
        op: &'static str,
        param: &'static str,
        addr: LocalAddr,
        shape: &Dim4,
        stride: Option<&Dim4>,
        dtype: DataType,
    ) -> Result<LocalView, TpuError> {
        let p = self.chip().local();
        let stride = match stride {
            Some(s) => {
                check_stride(op, param, s)?;
                *s
            }
            None => p.layout_stride(Layout::Aligned, p.tpu_npu_index(addr) as i32, shape, dtype)?,
        };
        let esize = p.tpu_data_type_size(dtype)?;
        LocalView::new(&p, op, param, addr, *shape, stride, esize)
    }

    /// Whether a float call may take a small-call path (`crate::avx512`, `crate::bdc_avx2`):
    /// add, sub or mul, NULL strides, dims in range, the C-model's flush policy.
    #[inline(always)]
    fn small_call_ok(
        &self,
        f: BinOp,
        dst_stride: Option<&Dim4>,
        src_stride: Option<&Dim4>,
        shape: &Dim4,
    ) -> bool {
        matches!(f, BinOp::Add | BinOp::Sub | BinOp::Mul)
            && dst_stride.is_none()
            && src_stride.is_none()
            && self.chip().bdc_denormals() == BdcDenormals::FlushToZero
            && self.dims_ok_fast(shape)
    }

    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn bdc_binary(
        &mut self,
        op: &'static str,
        f: BinOp,
        dst: LocalAddr,
        dst_stride: Option<&Dim4>,
        src: LocalAddr,
        src_stride: Option<&Dim4>,
        rhs: Rhs<'_>,
        shape: &Dim4,
        dtype: DataType,
    ) -> Result<(), TpuError> {
        // The small-call paths: f32 add/sub/mul with every operand in the aligned layout
        // (`crate::avx512::small_f32`, or `crate::bdc_avx2::aligned_f32` on AVX2-only hosts);
        // what they do not take runs below, which names any error.
        if dtype == DataType::Fp32
            && self.small_call_ok(f, dst_stride, src_stride, shape)
            && let Some((b, c)) = rhs.small(f32::from_bits)
        {
            let p = self.chip().local();
            let exact = |x: f32, y: f32| fz(f.apply(fz(x), fz(y)));
            let (simd, chip) = (self.host_simd(), self.chip());
            let store = self.local_store_mut();
            let done = match simd {
                // SAFETY: `HostSimd::Avx512` is only ever a detected level.
                HostSimd::Avx512 => unsafe {
                    crate::avx512::small_f32(store, chip, f, dst, src, b, shape, c, &exact)
                },
                HostSimd::Avx2 => {
                    // SAFETY: `HostSimd::Avx2` is only ever a detected level.
                    let one = unsafe {
                        crate::avx2::small_f32(store, chip, f, dst, src, b, shape, c, &exact)
                    };
                    one || crate::bdc_avx2::aligned_f32(store, &p, f, dst, src, b, shape, c, &exact)
                }
                HostSimd::Baseline => false,
            };
            if done {
                return Ok(());
            }
        }
        // The small-call paths of div and max/min (`sel_small`); `f` is a constant of each
        // public call, so the other calls compile none of this.
        if matches!(f, BinOp::Div | BinOp::RDiv | BinOp::Max | BinOp::Min)
            && dst_stride.is_none()
            && src_stride.is_none()
            && self.sel_small(f, dst, src, rhs, shape, dtype)
        {
            return Ok(());
        }
        self.bdc_binary_checked(op, f, dst, dst_stride, src, src_stride, rhs, shape, dtype)
    }

    /// The small-call paths of `fp_div` (+ `_C` forms, f32) and `max`/`min` (+ `_C`, f32, f16,
    /// bf16 and the integer types), NULL strides: `crate::bdc_elem::run_small` (the AVX-512
    /// element path on the BM1684X, else the AVX2 row kernel; none at
    /// [`HostSimd::Baseline`]) with one element function on bit patterns per op and type
    /// ([`cmodel_div_bits`], [`sel_bits`], a typed integer compare). `true` when the call
    /// ran; `false` (nothing written) sends it to the checked path, which names any error.
    #[inline(always)]
    fn sel_small(
        &mut self,
        f: BinOp,
        dst: LocalAddr,
        src: LocalAddr,
        rhs: Rhs<'_>,
        shape: &Dim4,
        dtype: DataType,
    ) -> bool {
        let (b, c_bits) = match rhs {
            Rhs::Tensor(addr, None) => (Some(addr), 0),
            Rhs::Const(bits) => (None, bits),
            Rhs::Tensor(_, Some(_)) => return false,
        };
        let (simd, chip) = (self.host_simd(), self.chip());
        if !self.dims_ok_fast(shape) || chip.bdc_denormals() != BdcDenormals::FlushToZero {
            return false;
        }
        let align = chip.local().eu_bytes;
        let ops = [
            Aligned::Tensor(src),
            b.map_or(Aligned::Const(c_bits), Aligned::Tensor),
        ];
        let store = self.local_store_mut();
        macro_rules! go {
            ($es:expr, $f:expr) => {
                run_small(store, chip, simd, shape, $es, align, dst, ops, $f)
            };
        }
        // Integer max/min: `a > b ? a : b` and `a < b ? a : b` on the values (the checked
        // path's `u > v`, `u < v` on `IntType::value`), one element function per type.
        macro_rules! int {
            ($ty:ty, $es:expr) => {
                if f == BinOp::Max {
                    go!($es, |[x, y]: [u32; 2]| if (x as $ty) > (y as $ty) {
                        x
                    } else {
                        y
                    })
                } else {
                    go!($es, |[x, y]: [u32; 2]| if (x as $ty) < (y as $ty) {
                        x
                    } else {
                        y
                    })
                }
            };
        }
        macro_rules! float {
            ($fmt:literal, $es:expr) => {
                if f == BinOp::Max {
                    go!($es, |[x, y]: [u32; 2]| sel_bits::<true, $fmt>(x, y))
                } else {
                    go!($es, |[x, y]: [u32; 2]| sel_bits::<false, $fmt>(x, y))
                }
            };
        }
        match (f, dtype) {
            (BinOp::Div, DataType::Fp32) => go!(4, |[x, y]: [u32; 2]| cmodel_div_bits(x, y)),
            (BinOp::RDiv, DataType::Fp32) => go!(4, |[x, y]: [u32; 2]| cmodel_div_bits(y, x)),
            (BinOp::Div | BinOp::RDiv, _) => false,
            (_, DataType::Fp32) => float!(0, 4),
            (_, DataType::Fp16) => float!(1, 2),
            (_, DataType::Bfp16) => float!(2, 2),
            (_, DataType::Int8) => int!(i8, 1),
            (_, DataType::Uint8) => int!(u8, 1),
            (_, DataType::Int16) => int!(i16, 2),
            (_, DataType::Uint16) => int!(u16, 2),
            (_, DataType::Int32) => int!(i32, 4),
            (_, DataType::Uint32) => int!(u32, 4),
            _ => false,
        }
    }

    /// [`Self::bdc_binary`] past its f32 small-call paths: the f16/bf16 one, then every check
    /// and the generic driver.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn bdc_binary_checked(
        &mut self,
        op: &'static str,
        f: BinOp,
        dst: LocalAddr,
        dst_stride: Option<&Dim4>,
        src: LocalAddr,
        src_stride: Option<&Dim4>,
        rhs: Rhs<'_>,
        shape: &Dim4,
        dtype: DataType,
    ) -> Result<(), TpuError> {
        // The small-call path of f16 and bf16 (AVX-512 hosts only; out of the inlined f32
        // path, whose calls it slowed by 2-4 ns).
        if matches!(dtype, DataType::Fp16 | DataType::Bfp16)
            && self.host_simd() == HostSimd::Avx512
            && self.small_call_ok(f, dst_stride, src_stride, shape)
        {
            let bf = dtype == DataType::Bfp16;
            let scalar = |bits: u32| {
                let bytes = bits.to_le_bytes();
                if bf {
                    ftz::<Bf16>(Bf16::load(&bytes))
                } else {
                    F16::load(&bytes)
                }
            };
            if let Some((b, c)) = rhs.small(scalar) {
                let chip = self.chip();
                let store = self.local_store_mut();
                // SAFETY: `HostSimd::Avx512` is only ever a detected level.
                if unsafe { crate::avx512::small_half(store, chip, f, bf, dst, src, b, shape, c) } {
                    return Ok(());
                }
            }
        }
        f.dtype_ok(dtype)
            .map_err(|rule| TpuError::UnsupportedDtype { op, dtype, rule })?;
        self.check_dims_dst(op, shape, dst_stride)?;
        let (dst_name, src_name, rhs_name) = match rhs {
            Rhs::Tensor(..) => ("dst_addr", "src0_addr", "src1_addr"),
            Rhs::Const(_) => ("dst_addr", "src_addr", "C"),
        };
        let d = self.bdc_view(op, dst_name, dst, shape, dst_stride, dtype)?;
        let a = self.bdc_view(op, src_name, src, shape, src_stride, dtype)?;
        let b = match rhs {
            Rhs::Tensor(addr, s) => Some(self.bdc_view(op, rhs_name, addr, shape, s, dtype)?),
            Rhs::Const(_) => None,
        };
        let c_bits = match rhs {
            Rhs::Const(c) => c,
            Rhs::Tensor(..) => 0,
        };
        if let Some(t) = IntType::of(dtype) {
            // Integer max/min: on the values, moving the chosen operand.
            let rhs = match &b {
                Some(v) => Src::Tensor(v),
                None => Src::Const(c_bits),
            };
            let max = f == BinOp::Max;
            map_elems(
                self.local_store_mut(),
                &d,
                [Src::Tensor(&a), rhs],
                |[x, y]| {
                    let (u, v) = (t.value(x), t.value(y));
                    if (u > v) == max && u != v { x } else { y }
                },
            );
            return Ok(());
        }
        let flush = self.chip().bdc_denormals() == BdcDenormals::FlushToZero;
        let store = self.local_store_mut();
        match dtype {
            DataType::Fp16 => run::<F16>(store, f, &d, &a, b.as_ref(), c_bits, flush),
            DataType::Bfp16 => run::<Bf16>(store, f, &d, &a, b.as_ref(), c_bits, flush),
            _ => run::<F32>(store, f, &d, &a, b.as_ref(), c_bits, flush),
        }
        Ok(())
    }
}

/// The shared lane/row driver: every `(n, c, h)` row of the three views, `w` elements each.
fn run<T: Fmt>(
    store: &mut [u8],
    f: BinOp,
    d: &LocalView,
    a: &LocalView,
    b: Option<&LocalView>,
    c_bits: u32,
    flush: bool,
) {
    let w = d.shape.w as usize;
    let es = T::SIZE;
    let (dws, aws) = (d.stride.w as usize * es, a.stride.w as usize * es);
    let c = {
        let bytes = c_bits.to_le_bytes();
        T::load(&bytes)
    };
    let c_bits = raw(&c_bits.to_le_bytes()[..es]);
    let flush = flush && T::FLUSH;
    let select = matches!(f, BinOp::Max | BinOp::Min);
    if T::IS_F32 && d.stride.w == 1 && a.stride.w == 1 && b.is_none_or(|b| b.stride.w == 1) {
        let c = f32::from_bits(c_bits);
        let exact = |x: f32, y: f32| {
            if flush {
                fz(f.apply(fz(x), fz(y)))
            } else {
                f.apply(x, y)
            }
        };
        if select {
            // max/min move the chosen operand's bits; the comparison and the result see a
            // denormal as a zero of its sign (integer selects: moves only, no arithmetic).
            let fzb = move |b: u32| {
                if flush && b & 0x7f80_0000 == 0 {
                    b & 0x8000_0000
                } else {
                    b
                }
            };
            let pick = move |x: f32, y: f32| {
                let (xb, yb) = (x.to_bits(), y.to_bits());
                let (xf, yf) = (f32::from_bits(fzb(xb)), f32::from_bits(fzb(yb)));
                f32::from_bits(fzb(if f.picks_b(xf, yf) { yb } else { xb }))
            };
            f32_rows(store, d, a, b, c, pick, pick);
            return;
        }
        if flush
            && matches!(f, BinOp::Add | BinOp::Sub | BinOp::Mul)
            && crate::bdc_avx2::f32_rows(store, f, d, a, b, c, &exact)
        {
            return;
        }
        match (f, flush) {
            (BinOp::Add, true) => f32_rows(store, d, a, b, c, |x, y| fz(fz(x) + fz(y)), exact),
            (BinOp::Sub, true) => f32_rows(store, d, a, b, c, |x, y| fz(fz(x) - fz(y)), exact),
            (BinOp::Mul, true) => f32_rows(store, d, a, b, c, |x, y| fz(fz(x) * fz(y)), exact),
            // Division through its branch-free form (which vectorises; the NaN results are
            // recomputed by `exact`, equal bit for bit).
            (BinOp::Div, true) => {
                let fast =
                    |x: f32, y: f32| f32::from_bits(cmodel_div_bits(x.to_bits(), y.to_bits()));
                f32_rows(store, d, a, b, c, fast, exact)
            }
            (BinOp::RDiv, true) => {
                let fast =
                    |x: f32, y: f32| f32::from_bits(cmodel_div_bits(y.to_bits(), x.to_bits()));
                f32_rows(store, d, a, b, c, fast, exact)
            }
            _ => f32_rows(store, d, a, b, c, exact, exact),
        }
        return;
    }
    let c_val = c;
    let c = if flush { ftz::<T>(c) } else { c };
    for_each_row(&d.shape, |_, n, ch, h| {
        let (d0, a0) = (d.row(n, ch, h), a.row(n, ch, h));
        let bw = b.map(|b| (b.row(n, ch, h), b.stride.w as usize * es));
        if select {
            // max/min move the chosen operand's bits (a signalling NaN stays signalling); only
            // a denormal is flushed.
            for i in 0..w {
                let xa = a0 + i * aws;
                let xv = T::load(&store[xa..]);
                let (yv, ybits) = match bw {
                    Some((b0, bws)) => {
                        let ya = b0 + i * bws;
                        (T::load(&store[ya..]), raw(&store[ya..ya + es]))
                    }
                    None => (c_val, c_bits),
                };
                let (xf, yf) = if flush {
                    (ftz::<T>(xv), ftz::<T>(yv))
                } else {
                    (xv, yv)
                };
                let take_b = f.picks_b(xf, yf);
                let (bits, v) = if take_b {
                    (ybits, yv)
                } else {
                    (raw(&store[xa..xa + es]), xv)
                };
                let out = if flush && T::is_denormal(v) {
                    let mut tmp = [0u8; 4];
                    T::store(0.0f32.copysign(v), &mut tmp);
                    raw(&tmp[..es])
                } else {
                    bits
                };
                let d = d0 + i * dws;
                store[d..d + es].copy_from_slice(&out.to_le_bytes()[..es]);
            }
            return;
        }
        for i in 0..w {
            let x = T::load(&store[a0 + i * aws..]);
            let y = match bw {
                Some((b0, bws)) => T::load(&store[b0 + i * bws..]),
                None => c,
            };
            let (x, y) = if flush {
                (ftz::<T>(x), ftz::<T>(y))
            } else {
                (x, y)
            };
            let r = f.apply(x, y);
            if let (Some(nan), true, false) = (T::NAN, r.is_nan(), select) {
                store[d0 + i * dws..d0 + i * dws + 2].copy_from_slice(&nan.to_le_bytes());
                continue;
            }
            let r = if flush {
                // Flush the f32 result, round it to the format, then flush what comes out
                // denormal there (a bf16 product just under the smallest normal is 0, not
                // rounded up to it).
                let r = ftz::<F32>(r);
                let mut tmp = [0u8; 4];
                T::store(r, &mut tmp);
                ftz::<T>(T::load(&tmp))
            } else {
                r
            };
            T::store(r, &mut store[d0 + i * dws..]);
        }
    });
}

/// The x86 SSE NaN rule the C-model inherits: a NaN first operand is returned quieted, else a
/// NaN second operand quieted, else an invalid operation gives the default NaN `0xffc00000`.
#[inline(always)]
pub(crate) fn x86(first: f32, second: f32, r: f32) -> f32 {
    if !r.is_nan() {
        r
    } else if first.is_nan() {
        f32::from_bits(first.to_bits() | 0x0040_0000)
    } else if second.is_nan() {
        f32::from_bits(second.to_bits() | 0x0040_0000)
    } else {
        f32::from_bits(0xffc0_0000)
    }
}

/// `max` (`MAX`: `a > b ? a : b`) or `min` (`a >= b ? b : a`) of two elements of format `FMT`
/// (0 f32, 1 f16, 2 bf16; the low 16 bits of a half's word) as the checked path computes
/// them, branch-free on the bits (so that a loop of it vectorises): f32 and bf16 denormals
/// flushed to the zero of their sign, then compared by the order of their sign-magnitude
/// keys (`+0 == -0`), a NaN on either side failing the comparison; the chosen operand's
/// (flushed) bits returned. The element function of the max/min small-call path.
#[inline(always)]
pub(crate) fn sel_bits<const MAX: bool, const FMT: u8>(x: u32, y: u32) -> u32 {
    let (sign, exp, mask) = match FMT {
        0 => (0x8000_0000u32, 0x7f80_0000u32, u32::MAX),
        1 => (0x8000, 0x7c00, 0xffff),
        _ => (0x8000, 0x7f80, 0xffff),
    };
    let flush = |v: u32| {
        let v = v & mask;
        if FMT != 1 && v & exp == 0 {
            v & sign
        } else {
            v
        }
    };
    let (fx, fy) = (flush(x), flush(y));
    let mag = |v: u32| v & !sign & mask;
    let nan = mag(fx) > exp || mag(fy) > exp;
    let key = |v: u32| {
        let m = mag(v) as i32;
        if v & sign != 0 { -m } else { m }
    };
    let (kx, ky) = (key(fx), key(fy));
    if MAX {
        if !nan && kx > ky { fx } else { fy }
    } else if !nan && kx >= ky {
        fy
    } else {
        fx
    }
}

/// Flush-to-zero of an f32, branch-free (a select the compiler vectorises).
#[inline(always)]
fn fz(x: f32) -> f32 {
    let b = x.to_bits();
    if b & 0x7f80_0000 == 0 {
        f32::from_bits(b & 0x8000_0000)
    } else {
        x
    }
}

/// Little-endian bytes as f32s without copying, when aligned (and the host is little-endian).
fn as_f32(b: &[u8]) -> Option<&[f32]> {
    if cfg!(target_endian = "little") {
        bytemuck::try_cast_slice(b).ok()
    } else {
        None
    }
}

/// The f32 fast path of the row driver: rows with unit w strides are decoded into row
/// buffers, combined by `fast` in one tight loop (IEEE arithmetic, vectorisable), and encoded
/// back; an element whose result is NaN is recomputed by `exact` (which applies the NaN rule).
/// Rows may overlap: each chunk of up to 128 elements is read whole before it is written
/// (in-place calls, dst == src, are exact); a row whose destination bytes overlap neither
/// source row is computed straight into the destination, whole ([`f32_chunk_direct`]).
fn f32_rows(
    store: &mut [u8],
    d: &LocalView,
    a: &LocalView,
    b: Option<&LocalView>,
    c: f32,
    fast: impl Fn(f32, f32) -> f32,
    exact: impl Fn(f32, f32) -> f32,
) {
    f32_rows_dispatch(store, d, a, b, c, &fast, &exact)
}

crate::simd::avx2_dispatch!(
    /// [`f32_rows_body`], AVX2-compiled where the host has it.
    fn f32_rows_dispatch['a, F: Fn(f32, f32) -> f32, E: Fn(f32, f32) -> f32](
        store: &mut [u8],
        d: &LocalView,
        a: &LocalView,
        b: Option<&'a LocalView>,
        c: f32,
        fast: &F,
        exact: &E,
    ) => f32_rows_body
);

/// The body of [`f32_rows`].
#[inline(always)]
fn f32_rows_body<F: Fn(f32, f32) -> f32, E: Fn(f32, f32) -> f32>(
    store: &mut [u8],
    d: &LocalView,
    a: &LocalView,
    b: Option<&LocalView>,
    c: f32,
    fast: &F,
    exact: &E,
) {
    // Channels whose rows follow each other (h stride = w on every operand) run as one row of
    // H*W elements: fewer, longer rows.
    let sw = d.shape.w;
    let merge = d.stride.h == sw && a.stride.h == sw && b.is_none_or(|b| b.stride.h == sw);
    let mut walk = d.shape;
    if merge {
        walk.w = d.shape.h * d.shape.w;
        walk.h = 1;
    }
    let w = walk.w as usize;
    // One fixed-size stack buffer for the results of a chunk of a row: no allocation per
    // call, and little to initialise (the small-call fixed cost matters).
    const CHUNK: usize = 128;
    let (nn, cc, hh) = (walk.n as usize, walk.c as usize, walk.h as usize);
    for n in 0..nn {
        for ch in 0..cc {
            for h in 0..hh {
                let a_row = a.row(n, ch, h);
                let b_row = b.map(|b| b.row(n, ch, h));
                let d_row = d.row(n, ch, h);
                // A destination row apart from its source rows is computed straight into
                // place, whole: no chunking, no pass through the stack buffer.
                if f32_chunk_direct(store, d_row, a_row, b_row, c, w, fast, exact) {
                    continue;
                }
                // Rows that overlap a source (in place, shifted): chunks through a stack buffer,
                // set up only here (the direct path above needs none).
                let mut xr = [0f32; CHUNK];
                let mut done = 0;
                while done < w {
                    let m = (w - done).min(CHUNK);
                    let a0 = a_row + 4 * done;
                    let d0 = d_row + 4 * done;
                    let xr = &mut xr[..m];
                    let b0 = b_row.map(|b0| b0 + 4 * done);
                    // Aligned rows (the usual case: local tensors sit on 4-byte offsets of an
                    // aligned store) are read as f32 slices directly; others are decoded.
                    let xs = as_f32(&store[a0..a0 + 4 * m]);
                    let ys = b0.map(|b0| as_f32(&store[b0..b0 + 4 * m]));
                    let mut any_nan = false;
                    match (xs, ys) {
                        (Some(xs), None) => {
                            for (r, &x) in xr.iter_mut().zip(xs) {
                                *r = fast(x, c);
                                any_nan |= r.is_nan();
                            }
                        }
                        (Some(xs), Some(Some(ys))) => {
                            for ((r, &x), &y) in xr.iter_mut().zip(xs).zip(ys) {
                                *r = fast(x, y);
                                any_nan |= r.is_nan();
                            }
                        }
                        _ => any_nan = f32_chunk_decoded(store, a0, b0, c, xr, fast),
                    }
                    if any_nan {
                        f32_chunk_nans(store, a0, b0, c, xr, exact);
                    }
                    let out = &mut store[d0..d0 + 4 * m];
                    match bytemuck::try_cast_slice_mut::<u8, f32>(out) {
                        Ok(o) if cfg!(target_endian = "little") => o.copy_from_slice(xr),
                        _ => {
                            for (o, v) in out.chunks_exact_mut(4).zip(xr.iter()) {
                                o.copy_from_slice(&v.to_le_bytes());
                            }
                        }
                    }
                    done += m;
                }
            }
        }
    }
}

/// `m` elements of [`f32_rows_body`] (a whole row) computed straight into the destination at
/// `d0`, when the destination bytes `d0..d0 + 4m` overlap neither source's `m` elements and
/// all three are 4-byte aligned in memory; returns `false` (nothing written) otherwise.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn f32_chunk_direct<F: Fn(f32, f32) -> f32, E: Fn(f32, f32) -> f32>(
    store: &mut [u8],
    d0: usize,
    a0: usize,
    b0: Option<usize>,
    c: f32,
    m: usize,
    fast: &F,
    exact: &E,
) -> bool {
    let len = 4 * m;
    let apart = |s: usize| s + len <= d0 || s >= d0 + len;
    if !cfg!(target_endian = "little") || !apart(a0) || !b0.is_none_or(apart) {
        return false;
    }
    let (lo, hi) = store.split_at_mut(d0);
    let (dst, rest) = hi.split_at_mut(len);
    let src = |s: usize| -> &[u8] {
        if s + len <= d0 {
            &lo[s..s + len]
        } else {
            &rest[s - d0 - len..s - d0]
        }
    };
    let (Ok(out), Ok(xs)) = (
        bytemuck::try_cast_slice_mut::<u8, f32>(dst),
        bytemuck::try_cast_slice::<u8, f32>(src(a0)),
    ) else {
        return false;
    };
    // NaN detection as an integer maximum of the magnitudes' bits (one vector max per step;
    // a per-element `is_nan` flag costs a compare, a pack and a mask move).
    let mut top = 0u32;
    match b0 {
        None => {
            for (r, &x) in out.iter_mut().zip(xs) {
                *r = fast(x, c);
                top = top.max(r.to_bits() & 0x7fff_ffff);
            }
        }
        Some(b0) => {
            let Ok(ys) = bytemuck::try_cast_slice::<u8, f32>(src(b0)) else {
                return false;
            };
            for ((r, &x), &y) in out.iter_mut().zip(xs).zip(ys) {
                *r = fast(x, y);
                top = top.max(r.to_bits() & 0x7fff_ffff);
            }
        }
    }
    if top > 0x7f80_0000 {
        // Rare: recompute the NaN results with the NaN rule (sources are untouched).
        for (i, r) in out.iter_mut().enumerate() {
            if r.is_nan() {
                let y = b0.map_or(c, |b0| f32_at(src(b0), 4 * i));
                *r = exact(f32_at(src(a0), 4 * i), y);
            }
        }
    }
    true
}

/// Reads the f32 at byte `at` of the store.
#[inline(always)]
fn f32_at(store: &[u8], at: usize) -> f32 {
    f32::from_le_bytes([store[at], store[at + 1], store[at + 2], store[at + 3]])
}

/// [`f32_rows_body`] for a chunk whose rows are not 4-byte aligned in the store: decoded one
/// element at a time (`b0`: the second operand's first byte, or `None` for the scalar `c`).
/// Returns whether a result is NaN.
#[cold]
fn f32_chunk_decoded<F: Fn(f32, f32) -> f32>(
    store: &[u8],
    a0: usize,
    b0: Option<usize>,
    c: f32,
    xr: &mut [f32],
    fast: &F,
) -> bool {
    let mut any_nan = false;
    for (i, r) in xr.iter_mut().enumerate() {
        let y = b0.map_or(c, |b0| f32_at(store, b0 + 4 * i));
        *r = fast(f32_at(store, a0 + 4 * i), y);
        any_nan |= r.is_nan();
    }
    any_nan
}

/// Recomputes the NaN results of a chunk with `exact` (which applies the NaN rule).
#[cold]
fn f32_chunk_nans<E: Fn(f32, f32) -> f32>(
    store: &[u8],
    a0: usize,
    b0: Option<usize>,
    c: f32,
    xr: &mut [f32],
    exact: &E,
) {
    for (i, r) in xr.iter_mut().enumerate() {
        if r.is_nan() {
            let y = b0.map_or(c, |b0| f32_at(store, b0 + 4 * i));
            *r = exact(f32_at(store, a0 + 4 * i), y);
        }
    }
}

macro_rules! bdc_tensor_ops {
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
                    dtype: DataType,
                ) -> Result<(), TpuError> {
                    self.bdc_binary(stringify!($name), $op, dst_addr, dst_stride, src0_addr,
                        src0_stride, Rhs::Tensor(src1_addr, src1_stride), shape, dtype)
                }
            )*
        }
    };
}

macro_rules! bdc_const_ops {
    ($( $(#[$m:meta])* $name:ident => $op:expr ),* $(,)?) => {
        impl TpuCore {
            $(
                $(#[$m])*
                #[allow(clippy::too_many_arguments, non_snake_case)]
                pub fn $name(
                    &mut self,
                    dst_addr: LocalAddr,
                    src_addr: LocalAddr,
                    C: crate::device::Scalar,
                    shape: &Dim4,
                    dst_stride: Option<&Dim4>,
                    src_stride: Option<&Dim4>,
                    dtype: DataType,
                ) -> Result<(), TpuError> {
                    self.bdc_binary(stringify!($name), $op, dst_addr, dst_stride, src_addr,
                        src_stride, Rhs::Const(C.bits()), shape, dtype)
                }
            )*
        }
    };
}

bdc_tensor_ops! {
    /// `tpu_bdc_fp_add`: `dst = src0 + src1`.
    tpu_bdc_fp_add => BinOp::Add,
    /// `tpu_bdc_fp_sub`: `dst = src0 - src1`.
    tpu_bdc_fp_sub => BinOp::Sub,
    /// `tpu_bdc_fp_mul`: `dst = src0 * src1`.
    tpu_bdc_fp_mul => BinOp::Mul,
    /// `tpu_bdc_fp_div`: `dst = src0 / src1` (DT_FP32 only).
    tpu_bdc_fp_div => BinOp::Div,
    /// `tpu_bdc_max`: `dst = src0 > src1 ? src0 : src1`.
    tpu_bdc_max => BinOp::Max,
    /// `tpu_bdc_min`: `dst = src0 < src1 ? src0 : src1`.
    tpu_bdc_min => BinOp::Min,
}

bdc_const_ops! {
    /// `tpu_bdc_fp_add_C`: `dst = src + C`.
    tpu_bdc_fp_add_C => BinOp::Add,
    /// `tpu_bdc_fp_sub_C`: `dst = src - C`.
    tpu_bdc_fp_sub_C => BinOp::Sub,
    /// `tpu_bdc_fp_C_sub`: `dst = C - src`.
    tpu_bdc_fp_C_sub => BinOp::RSub,
    /// `tpu_bdc_fp_mul_C`: `dst = src * C`.
    tpu_bdc_fp_mul_C => BinOp::Mul,
    /// `tpu_bdc_fp_div_C`: `dst = src / C` (DT_FP32 only).
    tpu_bdc_fp_div_C => BinOp::Div,
    /// `tpu_bdc_fp_C_div`: `dst = C / src` (DT_FP32 only).
    tpu_bdc_fp_C_div => BinOp::RDiv,
    /// `tpu_bdc_max_C`: `dst = src > C ? src : C`.
    tpu_bdc_max_C => BinOp::Max,
    /// `tpu_bdc_min_C`: `dst = src < C ? src : C`.
    tpu_bdc_min_C => BinOp::Min,
}

/// The BDC denormal rule of a chip (re-exported for callers that check the profile).
pub fn denormal_rule(chip: TpuChip) -> BdcDenormals {
    chip.bdc_denormals()
}
