//! BDC 2-D pooling on local memory (issue #16): `tpu_bdc_fp_max_pool2d` and
//! `tpu_bdc_fp_avg_pool2d`.
//!
//! Signatures as declared in `tpu_kernel.h` of `tpu_6_0`; parameter names and order are the
//! vendor's: `tpu_bdc_fp_max_pool2d(output_addr, input_addr, input_shape, kernel, padding,
//! stride, dilation, dtype, pad_val)` and `tpu_bdc_fp_avg_pool2d(..., dtype, scale)`. Input
//! `(N, C, H, W)` and output `(N, C, OH, OW)` are in the aligned layout, `OH = (H + top +
//! bottom - dh * (kh - 1) - 1) / sh + 1` (and the same for W).
//!
//! Numerics (pinned by `golden/tpu/pool.json` from the BM1684X C-model): see [`max_window`]
//! and [`avg_window`].
//!
//! Restrictions, each a [`TpuError`]: dtype DT_FP32, DT_FP16 or DT_BFP16; dims in
//! `[1, 65535]`; kernel at least 1, stride and dilation in `[1, 15]`, padding in `[0, 15]`
//! (the C-model's command fields), the dilated kernel inside the padded input; both addresses multiples of the EU width in bytes; tensors inside
//! their lanes.

use crate::bdc::{Bf16, F16, F32, Fmt, ftz, raw, x86};
use crate::chip::BdcDenormals;
use crate::device::{Scalar, TpuCore};
use crate::dtype::DataType;
use crate::error::TpuError;
use crate::local::{Dim4, LocalAddr, LocalView, check_shape};

/// `dim2`: a (height, width) pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dim2 {
    /// Height.
    pub h: i32,
    /// Width.
    pub w: i32,
}

impl Dim2 {
    /// `(h, w)`.
    pub const fn new(h: i32, w: i32) -> Dim2 {
        Dim2 { h, w }
    }
}

/// `padding_t`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Padding {
    /// Rows above.
    pub top: i32,
    /// Rows below.
    pub bottom: i32,
    /// Columns on the left.
    pub left: i32,
    /// Columns on the right.
    pub right: i32,
}

/// The pooling kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pool {
    Max,
    Avg,
}

/// A checked pooling geometry.
#[derive(Clone, Copy, Debug)]
struct Geometry {
    kh: usize,
    kw: usize,
    sh: usize,
    sw: usize,
    dh: usize,
    dw: usize,
    top: i64,
    left: i64,
    h: i64,
    w: i64,
}

impl Geometry {
    /// The input element of window tap `(i, j)` for output `(oh, ow)`, or `None` in padding.
    #[inline(always)]
    fn tap(&self, oh: usize, ow: usize, i: usize, j: usize) -> Option<(usize, usize)> {
        let y = (oh * self.sh + i * self.dh) as i64 - self.top;
        let x = (ow * self.sw + j * self.dw) as i64 - self.left;
        if (0..self.h).contains(&y) && (0..self.w).contains(&x) {
            Some((y as usize, x as usize))
        } else {
            None
        }
    }
}

/// Max pooling of one window: taps in row-major order (padding taps read `pad_val`; the
/// driver writes a window of padding only as `pad_val` with -inf replaced by the format's most
/// negative finite value), the running
/// value kept when `running > tap` on the flushed values, else replaced by the tap (the first
/// tap starts it): a NaN tap always replaces it and is replaced by the next tap; the chosen
/// tap's bits are written (a denormal as a signed zero under the flush policy).
pub fn max_window(taps: impl Iterator<Item = (f32, u32)>, flush: bool) -> (f32, u32) {
    let mut best: Option<(f32, u32)> = None;
    for (v, bits) in taps {
        let f = if flush { ftz_f32(v) } else { v };
        best = match best {
            None => Some((f, bits)),
            Some((b, bb)) => {
                if b > f {
                    Some((b, bb))
                } else {
                    Some((f, bits))
                }
            }
        };
    }
    best.unwrap_or((0.0, 0))
}

/// Average pooling of one window: `taps` are the window's values in row-major kernel order
/// (padding taps 0). Each tap is flushed and multiplied by `scale` in f32; the products go
/// alternately to two accumulators (even kernel index, odd kernel index), each summed in order
/// starting from its first product; the result is `even + odd`. Every product and sum is
/// flushed under the flush policy, rounded to the element format by `narrow` (f16/bf16
/// accumulate in their own precision) and follows the x86 NaN rule (the first NaN operand,
/// quieted); an f16/bf16 NaN result is written as `0x7fff`. The order was read off the C-model with cancelling `±2^25` probes.
pub fn avg_window(
    taps: impl Iterator<Item = f32>,
    scale: f32,
    flush: bool,
    narrow: impl Fn(f32) -> f32 + Copy,
) -> f32 {
    sum_products(
        taps.map(|v| avg_product(v, scale, flush, narrow)),
        flush,
        narrow,
    )
}

/// One tap of [`avg_window`]: `v * scale`, flushed, narrowed, x86 NaN rule.
#[inline(always)]
pub fn avg_product(v: f32, scale: f32, flush: bool, narrow: impl Fn(f32) -> f32) -> f32 {
    let fz = |x: f32| narrow(if flush { ftz_f32(x) } else { x });
    let v = fz(v);
    fz(x86(v, scale, v * scale))
}

/// The summation of [`avg_window`] over products already formed.
#[inline(always)]
fn sum_products(
    products: impl Iterator<Item = f32>,
    flush: bool,
    narrow: impl Fn(f32) -> f32,
) -> f32 {
    let fz = |x: f32| narrow(if flush { ftz_f32(x) } else { x });
    let add = |a: f32, b: f32| fz(x86(a, b, a + b));
    let mut acc: [Option<f32>; 2] = [None, None];
    for (k, p) in products.enumerate() {
        let slot = &mut acc[k & 1];
        *slot = Some(match *slot {
            None => p,
            Some(a) => add(a, p),
        });
    }
    match acc {
        [Some(e), Some(o)] => add(e, o),
        [Some(e), None] => e,
        _ => 0.0,
    }
}

/// Rounds an f32 to the element format and back (identity for f32).
#[inline(always)]
fn narrow<T: Fmt>(v: f32) -> f32 {
    if T::IS_F32 {
        v
    } else {
        let mut t = [0u8; 4];
        T::store(v, &mut t);
        T::load(&t)
    }
}

#[inline(always)]
fn ftz_f32(v: f32) -> f32 {
    ftz::<F32>(v)
}

fn param(
    op: &'static str,
    name: &'static str,
    v: i32,
    min: i32,
    max: i32,
    rule: &'static str,
) -> Result<usize, TpuError> {
    if v < min || v > max {
        return Err(TpuError::PoolParam {
            op,
            param: name,
            value: i64::from(v),
            rule,
        });
    }
    Ok(v as usize)
}

impl TpuCore {
    #[allow(clippy::too_many_arguments)]
    fn bdc_pool(
        &mut self,
        op: &'static str,
        kind: Pool,
        output: LocalAddr,
        input: LocalAddr,
        shape: &Dim4,
        kernel: &Dim2,
        padding: &Padding,
        stride: &Dim2,
        dilation: &Dim2,
        dtype: DataType,
        c: Scalar,
    ) -> Result<(), TpuError> {
        if !matches!(dtype, DataType::Fp32 | DataType::Fp16 | DataType::Bfp16) {
            return Err(TpuError::UnsupportedDtype {
                op,
                dtype,
                rule: "must be DT_FP32, DT_FP16 or DT_BFP16",
            });
        }
        check_shape(op, shape)?;
        const AT_LEAST_1: &str = "must be >= 1";
        const IN_1_15: &str = "must be in [1, 15]";
        const IN_0_15: &str = "must be in [0, 15]";
        let kh = param(op, "kernel.h", kernel.h, 1, i32::MAX, AT_LEAST_1)?;
        let kw = param(op, "kernel.w", kernel.w, 1, i32::MAX, AT_LEAST_1)?;
        let sh = param(op, "stride.h", stride.h, 1, 15, IN_1_15)?;
        let sw = param(op, "stride.w", stride.w, 1, 15, IN_1_15)?;
        let dh = param(op, "dilation.h", dilation.h, 1, 15, IN_1_15)?;
        let dw = param(op, "dilation.w", dilation.w, 1, 15, IN_1_15)?;
        let top = param(op, "padding.top", padding.top, 0, 15, IN_0_15)?;
        let bottom = param(op, "padding.bottom", padding.bottom, 0, 15, IN_0_15)?;
        let left = param(op, "padding.left", padding.left, 0, 15, IN_0_15)?;
        let right = param(op, "padding.right", padding.right, 0, 15, IN_0_15)?;
        let span_h = (dh * (kh - 1) + 1) as i64;
        let span_w = (dw * (kw - 1) + 1) as i64;
        let ph = i64::from(shape.h) + top as i64 + bottom as i64;
        let pw = i64::from(shape.w) + left as i64 + right as i64;
        if ph < span_h {
            return Err(TpuError::PoolParam {
                op,
                param: "kernel.h",
                value: i64::from(kernel.h),
                rule: "the dilated kernel must fit in the padded input height",
            });
        }
        if pw < span_w {
            return Err(TpuError::PoolParam {
                op,
                param: "kernel.w",
                value: i64::from(kernel.w),
                rule: "the dilated kernel must fit in the padded input width",
            });
        }
        let oh = (ph - span_h) / sh as i64 + 1;
        let ow = (pw - span_w) / sw as i64 + 1;
        let oshape = Dim4::new(
            shape.n,
            shape.c,
            i32::try_from(oh).unwrap_or(i32::MAX),
            i32::try_from(ow).unwrap_or(i32::MAX),
        );
        check_shape(op, &oshape)?;
        let o = self.bdc_view(op, "output_addr", output, &oshape, None, dtype)?;
        let i = self.bdc_view(op, "input_addr", input, shape, None, dtype)?;
        let g = Geometry {
            kh,
            kw,
            sh,
            sw,
            dh,
            dw,
            top: top as i64,
            left: left as i64,
            h: i64::from(shape.h),
            w: i64::from(shape.w),
        };
        let flush = self.chip().bdc_denormals() == BdcDenormals::FlushToZero;
        let store = self.local_store_mut();
        match dtype {
            DataType::Fp16 => run::<F16>(store, kind, &g, &o, &i, c.bits(), flush),
            DataType::Bfp16 => run::<Bf16>(store, kind, &g, &o, &i, c.bits(), flush),
            _ => run::<F32>(store, kind, &g, &o, &i, c.bits(), flush),
        }
        Ok(())
    }
}

/// The pooling driver: every output element of every `(n, c)` plane from its window taps.
fn run<T: Fmt>(
    store: &mut [u8],
    kind: Pool,
    g: &Geometry,
    o: &LocalView,
    i: &LocalView,
    c_bits: u32,
    flush: bool,
) {
    let es = T::SIZE;
    let flush = flush && T::FLUSH;
    // Max pooling: padding taps compare as `pad_val`; a window of padding only gives `pad_val`
    // with -inf replaced by the most negative finite value (+inf and NaN kept).
    let pad_raw = match (es, c_bits & if es == 4 { u32::MAX } else { 0xffff }) {
        (4, 0xff80_0000) => 0xff7f_ffff,
        (2, 0xfc00) if !T::FLUSH => 0xfbff,
        (2, 0xff80) if T::FLUSH => 0xff7f,
        (_, b) => b,
    };
    let c_bytes = c_bits.to_le_bytes();
    let c_val = T::load(&c_bytes);
    let c_raw = raw(&c_bytes[..es]);
    let (n, ch) = (o.shape.n as usize, o.shape.c as usize);
    let (oh, ow) = (o.shape.h as usize, o.shape.w as usize);
    let (ih, iw) = (i.shape.h as usize, i.shape.w as usize);
    let mut plane = vec![(0f32, 0u32); ih * iw];
    let mut prods = vec![0f32; if kind == Pool::Avg { ih * iw } else { 0 }];
    let scale = if flush { ftz::<T>(c_val) } else { c_val };
    let pad_prod = avg_product(0.0, scale, flush, narrow::<T>);
    let mut out = vec![0u8; oh * ow * es];
    let cmp_flush = flush;
    for ni in 0..n {
        for ci in 0..ch {
            for y in 0..ih {
                let r = i.row(ni, ci, y);
                for x in 0..iw {
                    let a = r + x * es;
                    plane[y * iw + x] = (T::load(&store[a..]), raw(&store[a..a + es]));
                }
            }
            // Average pooling: every input's product is formed once (a tap of many windows).
            if kind == Pool::Avg {
                for (p, (v, _)) in prods.iter_mut().zip(plane.iter()) {
                    *p = avg_product(*v, scale, flush, narrow::<T>);
                }
            }
            for y in 0..oh {
                for x in 0..ow {
                    let dst = &mut out[(y * ow + x) * es..(y * ow + x + 1) * es];
                    match kind {
                        Pool::Max => {
                            let taps = (0..g.kh).flat_map(|ki| (0..g.kw).map(move |kj| (ki, kj)));
                            // f32/bf16 denormals compare as zero; the bits move unchanged
                            // except an f32 denormal, written as a signed zero (a bf16 one is
                            // kept).
                            let mut any = false;
                            let (_, bits) = max_window(
                                taps.map(|(ki, kj)| {
                                    let (v, b) = match g.tap(y, x, ki, kj) {
                                        Some((py, px)) => {
                                            any = true;
                                            plane[py * iw + px]
                                        }
                                        None => (c_val, c_raw),
                                    };
                                    (if cmp_flush { ftz::<T>(v) } else { v }, b)
                                }),
                                flush,
                            );
                            let bits = if any { bits } else { pad_raw };
                            let mut tmp = [0u8; 4];
                            tmp[..es].copy_from_slice(&bits.to_le_bytes()[..es]);
                            let v = T::load(&tmp);
                            let bits = if flush && T::IS_F32 && T::is_denormal(v) {
                                T::store(0.0f32.copysign(v), &mut tmp);
                                raw(&tmp[..es])
                            } else {
                                bits
                            };
                            dst.copy_from_slice(&bits.to_le_bytes()[..es]);
                        }
                        Pool::Avg => {
                            let taps = (0..g.kh).flat_map(|ki| (0..g.kw).map(move |kj| (ki, kj)));
                            let v = sum_products(
                                taps.map(|(ki, kj)| match g.tap(y, x, ki, kj) {
                                    Some((py, px)) => prods[py * iw + px],
                                    None => pad_prod,
                                }),
                                flush,
                                narrow::<T>,
                            );
                            let mut tmp = [0u8; 4];
                            match T::NAN {
                                Some(nan) if v.is_nan() => {
                                    tmp[..2].copy_from_slice(&nan.to_le_bytes());
                                }
                                _ => {
                                    T::store(v, &mut tmp);
                                    let v2 = T::load(&tmp);
                                    if flush && T::is_denormal(v2) {
                                        T::store(0.0f32.copysign(v2), &mut tmp);
                                    }
                                }
                            }
                            dst.copy_from_slice(&tmp[..es]);
                        }
                    }
                }
            }
            for y in 0..oh {
                let r = o.row(ni, ci, y);
                store[r..r + ow * es].copy_from_slice(&out[y * ow * es..(y + 1) * ow * es]);
            }
        }
    }
}

impl TpuCore {
    /// `tpu_bdc_fp_max_pool2d`: each output element is the largest tap of its window
    /// (padding taps read `pad_val`).
    #[allow(clippy::too_many_arguments)]
    pub fn tpu_bdc_fp_max_pool2d(
        &mut self,
        output_addr: LocalAddr,
        input_addr: LocalAddr,
        input_shape: &Dim4,
        kernel: &Dim2,
        padding: &Padding,
        stride: &Dim2,
        dilation: &Dim2,
        dtype: DataType,
        pad_val: Scalar,
    ) -> Result<(), TpuError> {
        self.bdc_pool(
            "tpu_bdc_fp_max_pool2d",
            Pool::Max,
            output_addr,
            input_addr,
            input_shape,
            kernel,
            padding,
            stride,
            dilation,
            dtype,
            pad_val,
        )
    }

    /// `tpu_bdc_fp_avg_pool2d`: each output element is the sum of `tap * scale` over its window
    /// (padding taps are 0).
    #[allow(clippy::too_many_arguments)]
    pub fn tpu_bdc_fp_avg_pool2d(
        &mut self,
        output_addr: LocalAddr,
        input_addr: LocalAddr,
        input_shape: &Dim4,
        kernel: &Dim2,
        padding: &Padding,
        stride: &Dim2,
        dilation: &Dim2,
        dtype: DataType,
        scale: Scalar,
    ) -> Result<(), TpuError> {
        self.bdc_pool(
            "tpu_bdc_fp_avg_pool2d",
            Pool::Avg,
            output_addr,
            input_addr,
            input_shape,
            kernel,
            padding,
            stride,
            dilation,
            dtype,
            scale,
        )
    }

    /// `tpu_bdc_fp_min_pool2d`: declared in `tpu_kernel.h`, but the BM1684X C-model asserts on
    /// every call (f32, f16 and bf16, any shape: `golden/tpu/pool_min.json`, 39 rejected
    /// calls), so it is a typed error after the argument checks every pool makes.
    #[allow(clippy::too_many_arguments)]
    pub fn tpu_bdc_fp_min_pool2d(
        &mut self,
        output_addr: LocalAddr,
        input_addr: LocalAddr,
        input_shape: &Dim4,
        kernel: &Dim2,
        padding: &Padding,
        stride: &Dim2,
        dilation: &Dim2,
        dtype: DataType,
        pad_val: Scalar,
    ) -> Result<(), TpuError> {
        let _ = (
            output_addr,
            input_addr,
            input_shape,
            kernel,
            padding,
            stride,
            dilation,
        );
        let _ = (dtype, pad_val);
        Err(TpuError::NotSupported {
            op: "tpu_bdc_fp_min_pool2d",
            chip: self.chip().name(),
            rule: "the vendor C-model asserts on every call",
        })
    }
}
