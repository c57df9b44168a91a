//! BDC data movement and conversion on local memory (issue #16): `tpu_bdc_cast`,
//! `tpu_bdc_set_C`, `tpu_bdc_cpy`, `tpu_bdc_npu_bcast`.
//!
//! Signatures as declared in `tpu_kernel.h` of `tpu_6_0` ("BDC COMMON FUNCTIONS", "BDC CAST &
//! ROUNDING FUNCTIONS"); parameter names and order are the vendor's:
//! - `tpu_bdc_cast(dst_addr, src_addr, shape, dst_stride, src_stride, dst_dtype, src_dtype,
//!   mode)`,
//! - `tpu_bdc_set_C(dst_addr, C, shape, dst_stride, dtype)`,
//! - `tpu_bdc_cpy(dst_addr, src_addr, shape, dst_stride, src_stride, dtype)`,
//! - `tpu_bdc_npu_bcast(dst_addr, src_addr, shape, dtype)`.
//!
//! Numerics (pinned by `golden/tpu/cast.json` and `golden/tpu/move.json` from the BM1684X
//! C-model): a cast rounds once from the exact source value with the requested
//! [`RoundingMode`] through npusim-core's reference conversion ([`convert_bits`]); integer
//! targets saturate; the rules the C-model adds on top are in [`cast_bits`].
//!
//! Restrictions, each a [`TpuError`]: dims in `[1, 65535]`; every local address a multiple of
//! the EU width in bytes; `cpy` operands on the same start NPU; `npu_bcast` channels
//! inside the lanes from the destination's start NPU (`start + c <= NPU_NUM`); the cast's dtype
//! pair and rounding mode legal (BM1684X: no fp16 <-> bf16, no HALF_UP/HALF_DOWN).

use npusim_core::convert::{RoundMode, Saturation, convert_bits};
use npusim_core::dtype::ElemType;

use crate::bdc_elem::{Src, map_elems};
use crate::device::{Scalar, TpuCore};
use crate::dtype::DataType;
use crate::error::TpuError;
use crate::local::{Dim4, LocalAddr, LocalView};

/// `rounding_mode_t`, numbered as the vendor numbers it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(i32)]
pub enum RoundingMode {
    /// `RM_HALF_TO_EVEN`
    HalfToEven = 0,
    /// `RM_HALF_AWAY_FROM_ZERO`
    HalfAwayFromZero = 1,
    /// `RM_TOWARDS_ZERO`
    TowardsZero = 2,
    /// `RM_DOWN` (floor)
    Down = 3,
    /// `RM_UP` (ceil)
    Up = 4,
    /// `RM_HALF_UP` (not on BM1684X: the C-model rejects it)
    HalfUp = 5,
    /// `RM_HALF_DOWN` (not on BM1684X: the C-model rejects it)
    HalfDown = 6,
}

impl RoundingMode {
    /// From the vendor's code.
    pub fn from_code(code: i32) -> Option<RoundingMode> {
        use RoundingMode::*;
        Some(match code {
            0 => HalfToEven,
            1 => HalfAwayFromZero,
            2 => TowardsZero,
            3 => Down,
            4 => Up,
            5 => HalfUp,
            6 => HalfDown,
            _ => return None,
        })
    }

    /// The vendor's name.
    pub const fn vendor_name(self) -> &'static str {
        match self {
            RoundingMode::HalfToEven => "RM_HALF_TO_EVEN",
            RoundingMode::HalfAwayFromZero => "RM_HALF_AWAY_FROM_ZERO",
            RoundingMode::TowardsZero => "RM_TOWARDS_ZERO",
            RoundingMode::Down => "RM_DOWN",
            RoundingMode::Up => "RM_UP",
            RoundingMode::HalfUp => "RM_HALF_UP",
            RoundingMode::HalfDown => "RM_HALF_DOWN",
        }
    }

    /// npusim-core's mode, for the five modes BM1684X takes.
    const fn core(self) -> Option<RoundMode> {
        Some(match self {
            RoundingMode::HalfToEven => RoundMode::Rint,
            RoundingMode::HalfAwayFromZero => RoundMode::Round,
            RoundingMode::TowardsZero => RoundMode::Trunc,
            RoundingMode::Down => RoundMode::Floor,
            RoundingMode::Up => RoundMode::Ceil,
            RoundingMode::HalfUp | RoundingMode::HalfDown => return None,
        })
    }
}

/// npusim-core's element type of an 8/16/32-bit TPU dtype.
fn elem(dtype: DataType) -> Option<ElemType> {
    Some(match dtype {
        DataType::Uint8 => ElemType::U8,
        DataType::Int8 => ElemType::I8,
        DataType::Uint16 => ElemType::U16,
        DataType::Int16 => ElemType::I16,
        DataType::Uint32 => ElemType::U32,
        DataType::Int32 => ElemType::I32,
        DataType::Fp16 => ElemType::F16,
        DataType::Bfp16 => ElemType::Bf16,
        DataType::Fp32 => ElemType::F32,
        _ => return None,
    })
}

/// A decoded cast: the dtype pair and mode, checked once per call.
#[derive(Clone, Copy, Debug)]
pub struct CastPlan {
    src: ElemType,
    dst: ElemType,
    mode: RoundMode,
}

impl CastPlan {
    /// Checks the pair and mode (BM1684X rules, as its C-model asserts them).
    pub fn new(
        op: &'static str,
        dst_dtype: DataType,
        src_dtype: DataType,
        mode: RoundingMode,
    ) -> Result<CastPlan, TpuError> {
        const TYPES: &str = "must be one of DT_INT8, DT_UINT8, DT_INT16, DT_UINT16, DT_INT32, \
                             DT_UINT32, DT_FP16, DT_BFP16, DT_FP32";
        let src = elem(src_dtype).ok_or(TpuError::UnsupportedDtype {
            op,
            dtype: src_dtype,
            rule: TYPES,
        })?;
        let dst = elem(dst_dtype).ok_or(TpuError::UnsupportedDtype {
            op,
            dtype: dst_dtype,
            rule: TYPES,
        })?;
        if src == dst {
            return Err(TpuError::UnsupportedDtype {
                op,
                dtype: dst_dtype,
                rule: "dst_dtype must differ from src_dtype (use tpu_bdc_cpy)",
            });
        }
        let half = |t| matches!(t, ElemType::F16 | ElemType::Bf16);
        if half(src) && half(dst) {
            return Err(TpuError::UnsupportedDtype {
                op,
                dtype: dst_dtype,
                rule: "no cast between DT_FP16 and DT_BFP16",
            });
        }
        let core = mode.core().ok_or(TpuError::UnsupportedRoundingMode {
            op,
            mode: mode.vendor_name(),
        })?;
        Ok(CastPlan {
            src,
            dst,
            mode: core,
        })
    }

    /// The element function: one source bit pattern to one destination bit pattern.
    #[inline]
    pub fn apply(&self, bits: u32) -> u32 {
        cast_bits(bits, self.src, self.dst, self.mode)
    }
}

/// One cast, as the BM1684X C-model does it (each rule pinned by `golden/tpu/cast.json`):
/// - float -> integer: rounded with `mode` from the exact value (denormals included), saturated
///   to the target's range, NaN gives 0;
/// - bf16 -> f32: the bits shifted left by 16 (denormals and NaN payloads kept);
/// - f16 -> f32: exact, a NaN becomes `sign | 0x7fffffff`;
/// - f32 -> f16/bf16: an f32 denormal input is flushed to a zero of its sign, a NaN becomes
///   `sign | 0x7fff`; to f16 a magnitude of 2^16 or more gives ±inf whatever the mode;
/// - integer -> anything, float -> float otherwise: npusim-core's reference rounding.
pub fn cast_bits(bits: u32, src: ElemType, dst: ElemType, mode: RoundMode) -> u32 {
    let x = u64::from(bits);
    match (src, dst) {
        (ElemType::Bf16, ElemType::F32) => return bits << 16,
        (ElemType::F16, ElemType::F32) if bits & 0x7c00 == 0x7c00 && bits & 0x3ff != 0 => {
            return (bits & 0x8000) << 16 | 0x7fff_ffff;
        }
        // Exact (every f16 is an f32): no rounding, whatever the mode.
        (ElemType::F16, ElemType::F32) => return f16_to_f32_exact(bits),
        (ElemType::F32, ElemType::F16 | ElemType::Bf16) => {
            let sign = (bits >> 16) & 0x8000;
            if bits & 0x7f80_0000 == 0 {
                return sign;
            }
            if bits & 0x7f80_0000 == 0x7f80_0000 && bits & 0x007f_ffff != 0 {
                return sign | 0x7fff;
            }
            // f16: a magnitude of 2^16 or more is +-inf in every mode; below it the mode
            // decides (65520 rounds to max under RM_DOWN, to inf under RM_HALF_TO_EVEN).
            if dst == ElemType::F16 && bits & 0x7fff_ffff >= 0x4780_0000 {
                return sign | 0x7c00;
            }
            if mode == RoundMode::Rint {
                // Round to nearest even by integer steps (the reference conversion gives the
                // same bits: `fast_paths_equal_the_reference_conversion`).
                return if dst == ElemType::F16 {
                    sign | f32_to_f16_rne(bits & 0x7fff_ffff)
                } else {
                    bf16_rne(bits)
                };
            }
            return convert_bits(x, src, dst, mode, Saturation::Off).unwrap_or(0) as u32;
        }
        _ => {}
    }
    let sat = if dst.is_float() {
        Saturation::Off
    } else {
        Saturation::On
    };
    convert_bits(x, src, dst, mode, sat).unwrap_or(0) as u32
}

/// f16 bits (not a NaN) to the f32 bits of the same value.
#[inline]
fn f16_to_f32_exact(h: u32) -> u32 {
    let sign = (h & 0x8000) << 16;
    let (e, m) = ((h >> 10) & 0x1f, h & 0x3ff);
    match e {
        0x1f => sign | 0x7f80_0000 | m << 13,
        // A subnormal m * 2^-24, exact in f32.
        0 => sign | (m as f32 * f32::from_bits(0x3380_0000)).to_bits(),
        _ => sign | (e + 112) << 23 | m << 13,
    }
}

/// The magnitude `a` of a normal f32 (or +inf) below 2^16 rounded to f16 bits, to nearest
/// even (subnormal f16 results included; 65520 and above round to infinity).
#[inline]
fn f32_to_f16_rne(a: u32) -> u32 {
    let e = a >> 23;
    let m = (a & 0x007f_ffff) | 0x0080_0000;
    // (q, r, half): quotient, remainder and half a unit of the last f16 place.
    let (q, r, half) = if e >= 113 {
        (((e - 112) << 10) + ((m >> 13) & 0x3ff), m & 0x1fff, 0x1000)
    } else {
        let shift = 126 - e;
        if shift > 24 {
            return 0;
        }
        (m >> shift, m & ((1 << shift) - 1), 1 << (shift - 1))
    };
    if r > half || (r == half && q & 1 == 1) {
        q + 1
    } else {
        q
    }
}

/// f32 bits (not a NaN) rounded to bf16 bits, to nearest even.
#[inline]
fn bf16_rne(bits: u32) -> u32 {
    let (q, r) = (bits >> 16, bits & 0xffff);
    if r > 0x8000 || (r == 0x8000 && q & 1 == 1) {
        q + 1
    } else {
        q
    }
}

impl TpuCore {
    /// `tpu_bdc_cast`: `dst = cast(src)` from `src_dtype` to `dst_dtype`, rounding with `mode`.
    #[allow(clippy::too_many_arguments)]
    pub fn tpu_bdc_cast(
        &mut self,
        dst_addr: LocalAddr,
        src_addr: LocalAddr,
        shape: &Dim4,
        dst_stride: Option<&Dim4>,
        src_stride: Option<&Dim4>,
        dst_dtype: DataType,
        src_dtype: DataType,
        mode: RoundingMode,
    ) -> Result<(), TpuError> {
        const OP: &str = "tpu_bdc_cast";
        let plan = CastPlan::new(OP, dst_dtype, src_dtype, mode)?;
        self.check_dims_dst(OP, shape, dst_stride)?;
        let d = self.bdc_view(OP, "dst_addr", dst_addr, shape, dst_stride, dst_dtype)?;
        // The C-model accepts a source on another start NPU (channel c read from its lane).
        let s = self.bdc_view(OP, "src_addr", src_addr, shape, src_stride, src_dtype)?;
        map_elems(self.local_store_mut(), &d, [Src::Tensor(&s)], |[x]| {
            plan.apply(x)
        });
        Ok(())
    }

    /// `tpu_bdc_set_C`: every element of `dst` becomes `C` (its low 8/16/32 bits).
    #[allow(non_snake_case)]
    pub fn tpu_bdc_set_C(
        &mut self,
        dst_addr: LocalAddr,
        C: Scalar,
        shape: &Dim4,
        dst_stride: Option<&Dim4>,
        dtype: DataType,
    ) -> Result<(), TpuError> {
        const OP: &str = "tpu_bdc_set_C";
        elem(dtype).ok_or(TpuError::UnsupportedDtype {
            op: OP,
            dtype,
            rule: "must be an 8-, 16- or 32-bit type",
        })?;
        self.check_dims_dst(OP, shape, dst_stride)?;
        let d = self.bdc_view(OP, "dst_addr", dst_addr, shape, dst_stride, dtype)?;
        map_elems(self.local_store_mut(), &d, [Src::Const(C.bits())], |[x]| x);
        Ok(())
    }

    /// `tpu_bdc_cpy`: `dst = src`, bit for bit, with strides (same start NPU).
    pub fn tpu_bdc_cpy(
        &mut self,
        dst_addr: LocalAddr,
        src_addr: LocalAddr,
        shape: &Dim4,
        dst_stride: Option<&Dim4>,
        src_stride: Option<&Dim4>,
        dtype: DataType,
    ) -> Result<(), TpuError> {
        const OP: &str = "tpu_bdc_cpy";
        elem(dtype).ok_or(TpuError::UnsupportedDtype {
            op: OP,
            dtype,
            rule: "must be an 8-, 16- or 32-bit type",
        })?;
        self.check_dims_dst(OP, shape, dst_stride)?;
        let d = self.bdc_view(OP, "dst_addr", dst_addr, shape, dst_stride, dtype)?;
        let s = self.bdc_view(OP, "src_addr", src_addr, shape, src_stride, dtype)?;
        same_start(OP, "src_addr", &d, &s)?;
        map_elems(self.local_store_mut(), &d, [Src::Tensor(&s)], |[x]| x);
        Ok(())
    }

    /// `tpu_bdc_npu_bcast`: the one channel of `src` (shape `(n, 1, h, w)`, aligned layout)
    /// copied to each of the `shape.c` channels of `dst` (aligned layout), which must fit in
    /// the lanes from `dst`'s start NPU.
    pub fn tpu_bdc_npu_bcast(
        &mut self,
        dst_addr: LocalAddr,
        src_addr: LocalAddr,
        shape: &Dim4,
        dtype: DataType,
    ) -> Result<(), TpuError> {
        const OP: &str = "tpu_bdc_npu_bcast";
        elem(dtype).ok_or(TpuError::UnsupportedDtype {
            op: OP,
            dtype,
            rule: "must be an 8-, 16- or 32-bit type",
        })?;
        self.check_dims(OP, shape)?;
        let d = self.bdc_view(OP, "dst_addr", dst_addr, shape, None, dtype)?;
        let npu = self.chip().local().npu_num;
        if d.start + shape.c as u32 > npu {
            return Err(TpuError::ChannelsPastLanes {
                op: OP,
                start: d.start,
                c: shape.c,
                npu_num: npu,
            });
        }
        let one = Dim4::new(shape.n, 1, shape.h, shape.w);
        let s = self.bdc_view(OP, "src_addr", src_addr, &one, None, dtype)?;
        map_elems(self.local_store_mut(), &d, [Src::Channel0(&s)], |[x]| x);
        Ok(())
    }
}

/// The operands of an elementwise BDC instruction must start on the same NPU.
pub(crate) fn same_start(
    op: &'static str,
    param: &'static str,
    d: &LocalView,
    s: &LocalView,
) -> Result<(), TpuError> {
    if d.start != s.start {
        return Err(TpuError::StartNpuMismatch {
            op,
            param,
            start: s.start,
            dst_start: d.start,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference conversion the fast paths of [`cast_bits`] replace.
    fn reference(bits: u32, src: ElemType, dst: ElemType) -> u32 {
        convert_bits(u64::from(bits), src, dst, RoundMode::Rint, Saturation::Off).unwrap_or(0)
            as u32
    }

    #[test]
    fn fast_paths_equal_the_reference_conversion() {
        // f16 -> f32: every non-NaN f16.
        for h in 0..=0xffffu32 {
            if h & 0x7c00 == 0x7c00 && h & 0x3ff != 0 {
                continue;
            }
            assert_eq!(
                cast_bits(h, ElemType::F16, ElemType::F32, RoundMode::Rint),
                reference(h, ElemType::F16, ElemType::F32),
                "f16 {h:#06x}"
            );
        }
        // f32 -> f16 / bf16: every exponent with edge and pseudo-random mantissas, both signs.
        let mut x = 0x1234_5678u32;
        for e in 1..=255u32 {
            for k in 0..64u32 {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                let m = match k {
                    0 => 0,
                    1 => 0x7f_ffff,
                    2 => 0x1000,
                    3 => 0x3000,
                    4 => 0x8000,
                    5 => 0x1_8000,
                    _ => x & 0x7f_ffff,
                };
                if e == 255 && m != 0 {
                    continue;
                }
                for sign in [0, 0x8000_0000] {
                    let b = sign | e << 23 | m;
                    for dst in [ElemType::F16, ElemType::Bf16] {
                        let want = if dst == ElemType::F16 && b & 0x7fff_ffff >= 0x4780_0000 {
                            (b >> 16) & 0x8000 | 0x7c00
                        } else {
                            reference(b, ElemType::F32, dst)
                        };
                        assert_eq!(
                            cast_bits(b, ElemType::F32, dst, RoundMode::Rint),
                            want,
                            "f32 {b:#010x} -> {dst:?}"
                        );
                    }
                }
            }
        }
    }
}
