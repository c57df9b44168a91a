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
use crate::device::{HostSimd, Scalar, TpuCore};
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
        // A call the small path takes is a valid call (a legal pair and mode, dims in range):
        // the checks below name the error of any other.
        if dst_stride.is_none()
            && src_stride.is_none()
            && let Some(key) = small::cast_key(dst_dtype, src_dtype, mode)
            && self.dims_ok_fast(shape)
            && self.run_small(key, dst_addr, src_addr, shape, 0)
        {
            return Ok(());
        }
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
        let shift = dtype_shift(dtype);
        if dst_stride.is_none()
            && self.run_small(
                (small::SET, 0, shift, shift),
                dst_addr,
                dst_addr,
                shape,
                C.bits(),
            )
        {
            return Ok(());
        }
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
        let shift = dtype_shift(dtype);
        if dst_stride.is_none()
            && src_stride.is_none()
            && self.run_small((small::CPY, 0, shift, shift), dst_addr, src_addr, shape, 0)
        {
            return Ok(());
        }
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
        let shift = dtype_shift(dtype);
        if self.run_small(
            (small::BCAST, 0, shift, shift),
            dst_addr,
            src_addr,
            shape,
            0,
        ) {
            return Ok(());
        }
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

/// The small-call paths of this file's calls (issue #16, acceptance 4: 100x the C-model per
/// small call is 15-20 ns): on [`HostSimd::Avx512`] hosts, with NULL strides (every operand in
/// the aligned layout), the chip profile a compile-time constant of each instantiation
/// (`crate::local::aligned_place` becomes shifts and masks), the checks and the rows one
/// `#[target_feature]` function, each row in masked 16-lane vectors of 32-bit words.
///
/// - `set_C`, `cpy`, `npu_bcast`: moves of bytes, rows in masked 64-byte vectors (any row
///   length); a source must be the destination itself or apart from it inside every lane.
/// - `cast`, rows of fewer than 64 elements (at most four vectors, all loaded before the first
///   store), for the pairs and modes whose vector form is exact: f32 -> f16 (`HALF_TO_EVEN`,
///   `DOWN`, `UP`, `TOWARDS_ZERO`: the host's conversion with that rounding) and f32 -> bf16
///   (`HALF_TO_EVEN`, on the bits), f16/bf16 -> f32 (exact), 8/16-bit integers -> f32 (exact)
///   and 32-bit integers -> f32 (the four modes of the host's conversion), f32 -> 8/16/32-bit
///   signed and 8/16-bit unsigned integers (the four modes; the value clamped to the target's
///   range before the rounding, which commutes with it for integer bounds). Every special lane
///   is set to [`cast_bits`]'s rule in vector form (denormal f32 -> f16/bf16 a signed zero,
///   NaN -> `sign | 0x7fff` or `sign | 0x7fffffff` or 0, f32 magnitudes of 2^16 and more ->
///   f16 infinity); `kernel_tests` holds every lane of every kind equal to [`cast_bits`]
///   (every 8/16-bit source pattern; 32-bit ones sampled, every one in an ignored test). A
///   source is apart from the destination inside every lane, or the destination itself when
///   each channel has its own lane (one batch, no channel past the last lane).
///
/// Anything else (another pair or mode, a misaligned or out-of-range operand, a partial
/// overlap, different start NPUs for `cpy`, `npu_bcast` channels past the lanes, strides)
/// returns `false` with nothing written, and the call runs through the checked path of
/// [`map_elems`], which names any error: that path is the scalar twin, held equal by the
/// proptests of `tests/bdc_data_small.rs` (the host SIMD level drawn).
/// Every key of the small paths (kind, rounding, source shift, destination shift), for the
/// dispatch of each host level: `$go!((K, R, SS, DS), ...)`.
macro_rules! data_keys {
    ($go:ident) => {
        $go!(
            (SET, 0, 0, 0),
            (SET, 0, 1, 1),
            (SET, 0, 2, 2),
            (CPY, 0, 0, 0),
            (CPY, 0, 1, 1),
            (CPY, 0, 2, 2),
            (BCAST, 0, 0, 0),
            (BCAST, 0, 1, 1),
            (BCAST, 0, 2, 2),
            (F32_F16, 0, 2, 1),
            (F32_F16, 1, 2, 1),
            (F32_F16, 2, 2, 1),
            (F32_F16, 3, 2, 1),
            (F32_BF16, 0, 2, 1),
            (F16_F32, 0, 1, 2),
            (BF16_F32, 0, 1, 2),
            (SINT_F32, 0, 0, 2),
            (SINT_F32, 0, 1, 2),
            (SINT_F32, 0, 2, 2),
            (SINT_F32, 1, 2, 2),
            (SINT_F32, 2, 2, 2),
            (SINT_F32, 3, 2, 2),
            (UINT_F32, 0, 0, 2),
            (UINT_F32, 0, 1, 2),
            (UINT_F32, 0, 2, 2),
            (UINT_F32, 1, 2, 2),
            (UINT_F32, 2, 2, 2),
            (UINT_F32, 3, 2, 2),
            (F32_SINT, 0, 2, 0),
            (F32_SINT, 1, 2, 0),
            (F32_SINT, 2, 2, 0),
            (F32_SINT, 3, 2, 0),
            (F32_SINT, 0, 2, 1),
            (F32_SINT, 1, 2, 1),
            (F32_SINT, 2, 2, 1),
            (F32_SINT, 3, 2, 1),
            (F32_SINT, 0, 2, 2),
            (F32_SINT, 1, 2, 2),
            (F32_SINT, 2, 2, 2),
            (F32_SINT, 3, 2, 2),
            (F32_UINT, 0, 2, 0),
            (F32_UINT, 1, 2, 0),
            (F32_UINT, 2, 2, 0),
            (F32_UINT, 3, 2, 0),
            (F32_UINT, 0, 2, 1),
            (F32_UINT, 1, 2, 1),
            (F32_UINT, 2, 2, 1),
            (F32_UINT, 3, 2, 1),
        )
    };
}

mod small {
    #[cfg(doc)]
    use super::CastPlan;
    use super::RoundingMode;
    use crate::chip::TpuChip;
    use crate::dtype::DataType;
    use crate::local::{Dim4, LocalAddr};

    /// What a call does (the `K` of `x86::run`).
    pub(super) const SET: u8 = 0;
    pub(super) const CPY: u8 = 1;
    pub(super) const BCAST: u8 = 2;
    pub(super) const F32_F16: u8 = 3;
    pub(super) const F32_BF16: u8 = 4;
    pub(super) const F16_F32: u8 = 5;
    pub(super) const BF16_F32: u8 = 6;
    pub(super) const SINT_F32: u8 = 7;
    pub(super) const UINT_F32: u8 = 8;
    pub(super) const F32_SINT: u8 = 9;
    pub(super) const F32_UINT: u8 = 10;

    /// A cast's kind, rounding code (`_MM_FROUND_TO_*`: nearest even 0, down 1, up 2, toward
    /// zero 3), source and destination shifts, when the vector form covers it: only pairs and
    /// modes [`CastPlan::new`] accepts (so a call taken needs no plan: the plan's check, an
    /// out-of-line call returning a `Result` through memory, was a third of a small call).
    #[inline(always)]
    pub(super) fn cast_key(
        dst: DataType,
        src: DataType,
        mode: RoundingMode,
    ) -> Option<(u8, u8, u32, u32)> {
        use DataType::*;
        let r = match mode {
            RoundingMode::HalfToEven => Some(0),
            RoundingMode::Down => Some(1),
            RoundingMode::Up => Some(2),
            RoundingMode::TowardsZero => Some(3),
            RoundingMode::HalfAwayFromZero => None,
            RoundingMode::HalfUp | RoundingMode::HalfDown => return None,
        };
        Some(match (src, dst) {
            (Fp32, Fp16) => (F32_F16, r?, 2, 1),
            (Fp32, Bfp16) if r == Some(0) => (F32_BF16, 0, 2, 1),
            // Exact whatever the mode.
            (Fp16, Fp32) => (F16_F32, 0, 1, 2),
            (Bfp16, Fp32) => (BF16_F32, 0, 1, 2),
            (Int8, Fp32) => (SINT_F32, 0, 0, 2),
            (Int16, Fp32) => (SINT_F32, 0, 1, 2),
            (Uint8, Fp32) => (UINT_F32, 0, 0, 2),
            (Uint16, Fp32) => (UINT_F32, 0, 1, 2),
            (Int32, Fp32) => (SINT_F32, r?, 2, 2),
            (Uint32, Fp32) => (UINT_F32, r?, 2, 2),
            (Fp32, Int8) => (F32_SINT, r?, 2, 0),
            (Fp32, Int16) => (F32_SINT, r?, 2, 1),
            (Fp32, Int32) => (F32_SINT, r?, 2, 2),
            (Fp32, Uint8) => (F32_UINT, r?, 2, 0),
            (Fp32, Uint16) => (F32_UINT, r?, 2, 1),
            _ => return None,
        })
    }

    /// One call of kind `k` (`src` unused by `SET`, `c` the constant's bits for `SET`), `false`
    /// (nothing written) when the path does not take it. The caller has checked the dims
    /// (`1..=65535`, the work bound), the dtypes and the mode.
    ///
    /// # Safety
    ///
    /// The host has AVX-512 F, DQ, VL and BW ([`crate::HostSimd::Avx512`]).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub(super) unsafe fn run(
        store: &mut [u8],
        chip: TpuChip,
        key: (u8, u8, u32, u32),
        dst: LocalAddr,
        src: LocalAddr,
        shape: &Dim4,
        c: u32,
    ) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            if (store.len() as u64) < chip.local().store_size() {
                return false;
            }
            let base = store.as_mut_ptr();
            let ci = match chip {
                TpuChip::Bm1684x => 0,
                TpuChip::Bm1688 => 1,
            };
            let a = x86::Args {
                dst,
                src,
                shape: *shape,
                c,
            };
            macro_rules! go {
                ($(($k:ident, $r:literal, $ss:literal, $ds:literal)),* $(,)?) => {
                    match (ci, key) {
                        $(
                            (0, ($k, $r, $ss, $ds)) => x86::run::<0, $k, $r, $ss, $ds>(base, &a),
                            (1, ($k, $r, $ss, $ds)) => x86::run::<1, $k, $r, $ss, $ds>(base, &a),
                        )*
                        _ => false,
                    }
                };
            }
            // SAFETY: the host has AVX-512 F/DQ/VL/BW (this function's contract) and the store
            // holds every lane of the chip (`store_size`, checked above).
            unsafe { data_keys!(go) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = (store, chip, key, dst, src, shape, c);
            false
        }
    }

    /// Whether the AVX2 form ([`avx2::run`]) covers a key: every key but 32-bit integer
    /// sources converted with a directed rounding or from unsigned values (AVX2 has only the
    /// signed conversion, in the host's rounding to nearest even).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(super) const fn avx2_takes(k: u8, r: u8, ss: u32) -> bool {
        !(ss == 2 && ((k == SINT_F32 && r != 0) || k == UINT_F32))
    }

    /// [`run`] on [`crate::HostSimd::Avx2`] hosts: the one-batch case only (one batch, every
    /// channel below the last lane), 8-lane vectors ([`avx2::run`]); `false` (nothing
    /// written) for anything else, which the checked path runs.
    ///
    /// # Safety
    ///
    /// The host has AVX2.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub(super) unsafe fn run_avx2(
        store: &mut [u8],
        chip: TpuChip,
        key: (u8, u8, u32, u32),
        dst: LocalAddr,
        src: LocalAddr,
        shape: &Dim4,
        c: u32,
    ) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            let (k, r, ss, _) = key;
            let f16 = matches!(k, F32_F16 | F16_F32);
            if (store.len() as u64) < chip.local().store_size()
                || shape.n != 1
                || !avx2_takes(k, r, ss)
                || (f16 && !std::arch::is_x86_feature_detected!("f16c"))
            {
                return false;
            }
            let base = store.as_mut_ptr();
            let a = x86::Args {
                dst,
                src,
                shape: *shape,
                c,
            };
            macro_rules! go {
                ($(($k:ident, $r:literal, $ss:literal, $ds:literal)),* $(,)?) => {
                    match (chip, key) {
                        $(
                            (TpuChip::Bm1684x, ($k, $r, $ss, $ds)) => avx2::run::<0, $k, $r, $ss, $ds>(base, &a),
                            (TpuChip::Bm1688, ($k, $r, $ss, $ds)) => avx2::run::<1, $k, $r, $ss, $ds>(base, &a),
                        )*
                        _ => false,
                    }
                };
            }
            // SAFETY: the host has AVX2 (this function's contract) and F16C where a kind
            // converts halves (detected above); the store holds every lane of the chip
            // (`store_size`, checked above).
            unsafe { data_keys!(go) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = (store, chip, key, dst, src, shape, c);
            false
        }
    }

    /// The AVX2 forms of [`x86`]'s kinds, for the one-batch case: the same checks
    /// (`crate::local::one_batch_place` for both operands), rows in vectors of 8 words, the
    /// last partial one through a 32-byte stack buffer, every source vector of a row loaded
    /// before the first store. [`conv8`](avx2::conv8) is `x86::conv` with AVX2 and F16C
    /// instructions: the directed roundings of f32 -> integer as `vroundps` then a truncating
    /// conversion, of f32 -> f16 as `vcvtps2ph`'s rounding immediate; the special lanes set
    /// by the same rules. `kernel_tests::avx2_vector_casts_equal_cast_bits` holds it to
    /// [`super::cast_bits`] lane by lane.
    #[cfg(target_arch = "x86_64")]
    pub(super) mod avx2 {
        use std::arch::x86_64::*;

        use super::*;
        use crate::avx2::copy_short;
        use crate::chip::LocalProfile;
        use crate::local::one_batch_place;

        /// The chips by the index of [`run`]'s `CHIP`.
        const CHIPS: [TpuChip; 2] = [TpuChip::Bm1684x, TpuChip::Bm1688];

        /// The 8 words of the elements of `1 << S` bytes at `p` (sign-extended when
        /// `SIGNED`).
        ///
        /// # Safety
        ///
        /// The `8 << S` bytes at `p` are readable.
        #[inline]
        #[target_feature(enable = "avx2")]
        unsafe fn load<const S: u32, const SIGNED: bool>(p: *const u8) -> __m256i {
            // SAFETY: the contract.
            unsafe {
                match (S, SIGNED) {
                    (0, false) => _mm256_cvtepu8_epi32(_mm_loadl_epi64(p.cast())),
                    (0, true) => _mm256_cvtepi8_epi32(_mm_loadl_epi64(p.cast())),
                    (1, false) => _mm256_cvtepu16_epi32(_mm_loadu_si128(p.cast())),
                    (1, true) => _mm256_cvtepi16_epi32(_mm_loadu_si128(p.cast())),
                    _ => _mm256_loadu_si256(p.cast()),
                }
            }
        }

        /// The low 16 bits of the 8 words of `v`, packed.
        #[inline]
        #[target_feature(enable = "avx2")]
        fn pack16(v: __m256i) -> __m128i {
            let m = _mm256_and_si256(v, _mm256_set1_epi32(0xffff));
            _mm_packus_epi32(_mm256_castsi256_si128(m), _mm256_extracti128_si256::<1>(m))
        }

        /// Writes the low `1 << S` bytes of the 8 words of `v` to the elements at `p`.
        ///
        /// # Safety
        ///
        /// The `8 << S` bytes at `p` are writable.
        #[inline]
        #[target_feature(enable = "avx2")]
        unsafe fn store<const S: u32>(p: *mut u8, v: __m256i) {
            // SAFETY: the contract.
            unsafe {
                match S {
                    0 => {
                        let m = _mm256_and_si256(v, _mm256_set1_epi32(0xff));
                        let h = _mm_packus_epi32(
                            _mm256_castsi256_si128(m),
                            _mm256_extracti128_si256::<1>(m),
                        );
                        _mm_storel_epi64(p.cast(), _mm_packus_epi16(h, h));
                    }
                    1 => _mm_storeu_si128(p.cast(), pack16(v)),
                    _ => _mm256_storeu_si256(p.cast(), v),
                }
            }
        }

        /// Copies a row of `len` bytes: 32-byte vectors, then the rest in pieces.
        ///
        /// # Safety
        ///
        /// As `crate::avx2::copy_short` for any `len`.
        #[inline]
        #[target_feature(enable = "avx2")]
        unsafe fn copy_row(dst: *mut u8, src: *const u8, len: usize) {
            let mut k = 0;
            // SAFETY: the contract; every access is inside the `len` bytes.
            unsafe {
                while k + 32 <= len {
                    let v = _mm256_loadu_si256(src.add(k).cast());
                    _mm256_storeu_si256(dst.add(k).cast(), v);
                    k += 32;
                }
                copy_short(dst.add(k), src.add(k), len - k);
            }
        }

        /// The rounding immediate of `R` (nearest even, down, up, toward zero).
        const fn imm(r: u8) -> i32 {
            (r as i32 & 3) | _MM_FROUND_NO_EXC
        }

        /// `x` rounded by `R` to integral values.
        #[inline]
        #[target_feature(enable = "avx2")]
        fn round<const R: u8>(x: __m256) -> __m256 {
            match R {
                0 => _mm256_round_ps::<{ imm(0) }>(x),
                1 => _mm256_round_ps::<{ imm(1) }>(x),
                2 => _mm256_round_ps::<{ imm(2) }>(x),
                _ => _mm256_round_ps::<{ imm(3) }>(x),
            }
        }

        /// `v` where `m` (all-ones lanes) is set, `w` elsewhere.
        #[inline]
        #[target_feature(enable = "avx2")]
        fn pick(m: __m256i, v: __m256i, w: __m256i) -> __m256i {
            _mm256_blendv_epi8(w, v, m)
        }

        /// One vector of a cast of kind `K` (rounding `R`, destination of `1 << DS` bytes):
        /// the words of 8 source elements to the words of 8 results (`x86::conv` in 8 lanes;
        /// [`super::super::cast_bits`] lane by lane).
        #[inline]
        #[target_feature(enable = "avx2,f16c")]
        pub(crate) fn conv8<const K: u8, const R: u8, const DS: u32>(w: __m256i) -> __m256i {
            let set = _mm256_set1_epi32;
            let gt = _mm256_cmpgt_epi32;
            match K {
                F32_F16 | F32_BF16 => {
                    let h = if K == F32_F16 {
                        let x = _mm256_castsi256_ps(w);
                        _mm256_cvtepu16_epi32(match R {
                            0 => _mm256_cvtps_ph::<0>(x),
                            1 => _mm256_cvtps_ph::<1>(x),
                            2 => _mm256_cvtps_ph::<2>(x),
                            _ => _mm256_cvtps_ph::<3>(x),
                        })
                    } else {
                        // Round to nearest even on the bits: add 0x7fff and the lowest kept
                        // bit.
                        let odd = _mm256_and_si256(_mm256_srli_epi32::<16>(w), set(1));
                        let up = _mm256_add_epi32(w, _mm256_add_epi32(odd, set(0x7fff)));
                        _mm256_srli_epi32::<16>(up)
                    };
                    let sign = _mm256_and_si256(_mm256_srli_epi32::<16>(w), set(0x8000));
                    // The magnitude is below 2^31: signed compares order it.
                    let mag = _mm256_and_si256(w, set(0x7fff_ffff));
                    // A denormal (or zero) input: a zero of its sign.
                    let zero = gt(set(0x0080_0000), mag);
                    let nan = gt(mag, set(0x7f80_0000));
                    let h = pick(zero, sign, h);
                    let h = if K == F32_F16 {
                        // 2^16 and more: infinity in every mode.
                        let big = gt(mag, set(0x477f_ffff));
                        pick(big, _mm256_or_si256(sign, set(0x7c00)), h)
                    } else {
                        h
                    };
                    pick(nan, _mm256_or_si256(sign, set(0x7fff)), h)
                }
                F16_F32 => {
                    let x = _mm256_castps_si256(_mm256_cvtph_ps(pack16(w)));
                    // A NaN: its sign and 0x7fffffff.
                    let nan = gt(_mm256_and_si256(w, set(0x7fff)), set(0x7c00));
                    let sign = _mm256_slli_epi32::<16>(_mm256_and_si256(w, set(0x8000)));
                    pick(nan, _mm256_or_si256(sign, set(0x7fff_ffff)), x)
                }
                BF16_F32 => _mm256_slli_epi32::<16>(w),
                // 8/16-bit sources (exact), 32-bit signed ones to nearest even (the host's
                // mode); `avx2_takes` keeps the others out.
                SINT_F32 | UINT_F32 => _mm256_castps_si256(_mm256_cvtepi32_ps(w)),
                F32_SINT if DS == 2 => {
                    let x = _mm256_castsi256_ps(w);
                    let r = _mm256_cvttps_epi32(round::<R>(x));
                    // The host gives 0x80000000 past the range: 2^31 and more saturate to the
                    // maximum, a NaN gives 0.
                    let hi = _mm256_castps_si256(_mm256_cmp_ps::<_CMP_GE_OQ>(
                        x,
                        _mm256_set1_ps(2147483648.0),
                    ));
                    let r = pick(hi, set(i32::MAX), r);
                    let nan = _mm256_castps_si256(_mm256_cmp_ps::<_CMP_UNORD_Q>(x, x));
                    _mm256_andnot_si256(nan, r)
                }
                _ => {
                    // F32_SINT / F32_UINT to 8 or 16 bits: clamp to the range (a NaN becomes
                    // the low bound, then 0 below), round.
                    let (lo, hi) = match (K == F32_SINT, DS) {
                        (true, 0) => (-128.0, 127.0),
                        (true, _) => (-32768.0, 32767.0),
                        (false, 0) => (0.0, 255.0),
                        (false, _) => (0.0, 65535.0),
                    };
                    let x = _mm256_castsi256_ps(w);
                    let y = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(lo)), _mm256_set1_ps(hi));
                    let r = _mm256_cvttps_epi32(round::<R>(y));
                    let nan = _mm256_castps_si256(_mm256_cmp_ps::<_CMP_UNORD_Q>(x, x));
                    _mm256_andnot_si256(nan, r)
                }
            }
        }

        /// One cast row of `hw < 64` elements: every source vector loaded (the last partial
        /// one through a buffer) before the first store.
        ///
        /// # Safety
        ///
        /// Both rows lie inside the store; the host has AVX2 and F16C.
        #[inline]
        #[target_feature(enable = "avx2,f16c")]
        unsafe fn cast_row<const K: u8, const R: u8, const SS: u32, const DS: u32>(
            d: *mut u8,
            s: *const u8,
            hw: usize,
        ) {
            let (full, rem) = (hw / 8, hw % 8);
            let mut ins = [_mm256_setzero_si256(); 8];
            let signed = K == SINT_F32;
            // SAFETY: the rows lie inside the store (the contract); the buffers hold 32 bytes.
            unsafe {
                for (v, x) in ins.iter_mut().enumerate().take(full) {
                    let p = s.add(v << (3 + SS));
                    *x = if signed {
                        load::<SS, true>(p)
                    } else {
                        load::<SS, false>(p)
                    };
                }
                if rem != 0 {
                    let mut buf = [0u8; 32];
                    copy_short(buf.as_mut_ptr(), s.add(full << (3 + SS)), rem << SS);
                    ins[full] = if signed {
                        load::<SS, true>(buf.as_ptr())
                    } else {
                        load::<SS, false>(buf.as_ptr())
                    };
                }
                for (v, x) in ins.iter().enumerate().take(full) {
                    store::<DS>(d.add(v << (3 + DS)), conv8::<K, R, DS>(*x));
                }
                if rem != 0 {
                    let mut buf = [0u8; 32];
                    store::<DS>(buf.as_mut_ptr(), conv8::<K, R, DS>(ins[full]));
                    copy_short(d.add(full << (3 + DS)), buf.as_ptr(), rem << DS);
                }
            }
        }

        /// One call of kind `K` on chip `CHIPS[CHIP]` (see [`super::run_avx2`]).
        ///
        /// # Safety
        ///
        /// The host has AVX2 (and F16C for the half kinds); `base` is a store holding every
        /// lane of the chip; `a.shape.n == 1`.
        #[target_feature(enable = "avx2,f16c")]
        pub(crate) unsafe fn run<
            const CHIP: usize,
            const K: u8,
            const R: u8,
            const SS: u32,
            const DS: u32,
        >(
            base: *mut u8,
            a: &x86::Args,
        ) -> bool {
            let p: LocalProfile = const { CHIPS[CHIP].local() };
            let shape = &a.shape;
            let hw = shape.h as usize * shape.w as usize;
            let c = shape.c as u32;
            if (K >= F32_F16 && hw >= 64) || !avx2_takes(K, R, SS) {
                return false;
            }
            let pitch = p.store_pitch() as usize;
            let (dbytes, sbytes) = (hw << DS, hw << SS);
            let Some((dl, doff)) = one_batch_place(&p, a.dst, c, dbytes, p.eu_bytes) else {
                return false;
            };
            let d0 = dl * pitch + doff;
            let at = |idx: usize| base.wrapping_add(idx);
            if K == SET {
                let v = match DS {
                    0 => _mm256_set1_epi8(a.c as i8),
                    1 => _mm256_set1_epi16(a.c as i16),
                    _ => _mm256_set1_epi32(a.c as i32),
                };
                let mut pattern = [0u8; 64];
                // SAFETY: two stores of 32 bytes into a local array of 64.
                unsafe {
                    _mm256_storeu_si256(pattern.as_mut_ptr().cast(), v);
                    _mm256_storeu_si256(pattern.as_mut_ptr().add(32).cast(), v);
                }
                for ch in 0..c as usize {
                    let d = at(d0 + ch * pitch);
                    let mut k = 0;
                    // SAFETY: the row lies inside the store (`one_batch_place`).
                    unsafe {
                        while k + 32 <= dbytes {
                            _mm256_storeu_si256(d.add(k).cast(), v);
                            k += 32;
                        }
                        copy_short(d.add(k), pattern.as_ptr(), dbytes - k);
                    }
                }
                return true;
            }
            // `npu_bcast` reads one channel.
            let sc = if K == BCAST { 1 } else { c };
            let Some((sl, soff)) = one_batch_place(&p, a.src, sc, sbytes, p.eu_bytes) else {
                return false;
            };
            let s0 = sl * pitch + soff;
            // A source is the destination itself (same offset, for a copy also the same lane)
            // or apart from it inside every lane.
            let same = soff == doff;
            let apart = soff + sbytes <= doff || doff + dbytes <= soff;
            match K {
                CPY if sl != dl || !(same || apart) => return false,
                BCAST => {
                    if !(same || apart) {
                        return false;
                    }
                    for ch in 0..c as usize {
                        // SAFETY: both rows lie inside the store (`one_batch_place`).
                        unsafe { copy_row(at(d0 + ch * pitch), at(s0), dbytes) };
                    }
                    return true;
                }
                _ if !((same && sl == dl) || apart) => return false,
                _ => {}
            }
            for ch in 0..c as usize {
                let k = ch * pitch;
                // SAFETY: both rows lie inside the store (`one_batch_place`).
                unsafe {
                    if K == CPY {
                        copy_row(at(d0 + k), at(s0 + k), dbytes)
                    } else {
                        cast_row::<K, R, SS, DS>(at(d0 + k), at(s0 + k), hw)
                    }
                }
            }
            true
        }
    }

    #[cfg(target_arch = "x86_64")]
    pub(super) mod x86 {
        use std::arch::x86_64::*;

        use super::*;
        use crate::chip::LocalProfile;
        use crate::local::{AlignedPlace, aligned_place};

        /// The chips by the index of [`run`]'s `CHIP`.
        const CHIPS: [TpuChip; 2] = [TpuChip::Bm1684x, TpuChip::Bm1688];

        /// The operands of one call.
        pub(crate) struct Args {
            pub(crate) dst: LocalAddr,
            pub(crate) src: LocalAddr,
            pub(crate) shape: Dim4,
            pub(crate) c: u32,
        }

        /// The 16 words of the elements of `1 << S` bytes at `p` in `m` (sign-extended when
        /// `SIGNED`), zero in the lanes outside `m`.
        ///
        /// # Safety
        ///
        /// The elements in `m` lie inside the store.
        #[inline]
        #[target_feature(enable = "avx512f,avx512dq,avx512vl,avx512bw")]
        unsafe fn load<const S: u32, const SIGNED: bool>(p: *const u8, m: __mmask16) -> __m512i {
            // SAFETY: the contract; the masked loads touch only the lanes in `m`.
            unsafe {
                match (S, SIGNED) {
                    (0, false) => _mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(m, p.cast())),
                    (0, true) => _mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(m, p.cast())),
                    (1, false) => _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, p.cast())),
                    (1, true) => _mm512_cvtepi16_epi32(_mm256_maskz_loadu_epi16(m, p.cast())),
                    _ => _mm512_maskz_loadu_epi32(m, p.cast()),
                }
            }
        }

        /// Writes the low `1 << S` bytes of the words of `v` in `m` to the elements at `p`.
        ///
        /// # Safety
        ///
        /// As [`load`].
        #[inline]
        #[target_feature(enable = "avx512f,avx512dq,avx512vl,avx512bw")]
        unsafe fn store<const S: u32>(p: *mut u8, m: __mmask16, v: __m512i) {
            // SAFETY: the contract; the masked stores touch only the lanes in `m`.
            unsafe {
                match S {
                    0 => _mm512_mask_cvtepi32_storeu_epi8(p.cast(), m, v),
                    1 => _mm512_mask_cvtepi32_storeu_epi16(p.cast(), m, v),
                    _ => _mm512_mask_storeu_epi32(p.cast(), m, v),
                }
            }
        }

        /// `x` converted to the words of `R`'s rounding (the compile-time match picks one).
        #[inline]
        #[target_feature(enable = "avx512f,avx512dq,avx512vl,avx512bw")]
        fn f32_to_i32<const R: u8>(x: __m512) -> __m512i {
            const E: i32 = _MM_FROUND_NO_EXC;
            match R {
                0 => _mm512_cvt_roundps_epi32::<{ _MM_FROUND_TO_NEAREST_INT | E }>(x),
                1 => _mm512_cvt_roundps_epi32::<{ _MM_FROUND_TO_NEG_INF | E }>(x),
                2 => _mm512_cvt_roundps_epi32::<{ _MM_FROUND_TO_POS_INF | E }>(x),
                _ => _mm512_cvt_roundps_epi32::<{ _MM_FROUND_TO_ZERO | E }>(x),
            }
        }

        /// One vector of a cast of kind `K` (rounding `R`, destination elements of
        /// `1 << DS` bytes): the words of 16 source elements to the words of 16 results
        /// ([`cast_bits`](super::super::cast_bits) lane by lane).
        #[inline]
        #[target_feature(enable = "avx512f,avx512dq,avx512vl,avx512bw")]
        pub(crate) fn conv<const K: u8, const R: u8, const DS: u32>(w: __m512i) -> __m512i {
            const E: i32 = _MM_FROUND_NO_EXC;
            let set = _mm512_set1_epi32;
            match K {
                F32_F16 => {
                    let x = _mm512_castsi512_ps(w);
                    let h = match R {
                        0 => _mm512_cvt_roundps_ph::<{ _MM_FROUND_TO_NEAREST_INT | E }>(x),
                        1 => _mm512_cvt_roundps_ph::<{ _MM_FROUND_TO_NEG_INF | E }>(x),
                        2 => _mm512_cvt_roundps_ph::<{ _MM_FROUND_TO_POS_INF | E }>(x),
                        _ => _mm512_cvt_roundps_ph::<{ _MM_FROUND_TO_ZERO | E }>(x),
                    };
                    let h = _mm512_cvtepu16_epi32(h);
                    let sign = _mm512_and_si512(_mm512_srli_epi32::<16>(w), set(0x8000));
                    let mag = _mm512_and_si512(w, set(0x7fff_ffff));
                    // A denormal (or zero) input: a zero of its sign.
                    let zero = _mm512_cmplt_epu32_mask(mag, set(0x0080_0000));
                    // 2^16 and more: infinity in every mode.
                    let big = _mm512_cmpge_epu32_mask(mag, set(0x4780_0000));
                    let nan = _mm512_cmpgt_epu32_mask(mag, set(0x7f80_0000));
                    let h = _mm512_mask_mov_epi32(h, zero, sign);
                    let h = _mm512_mask_or_epi32(h, big, sign, set(0x7c00));
                    _mm512_mask_or_epi32(h, nan, sign, set(0x7fff))
                }
                F32_BF16 => {
                    // Round to nearest even on the bits: add 0x7fff and the lowest kept bit.
                    let odd = _mm512_and_si512(_mm512_srli_epi32::<16>(w), set(1));
                    let up = _mm512_add_epi32(w, _mm512_add_epi32(odd, set(0x7fff)));
                    let h = _mm512_srli_epi32::<16>(up);
                    let sign = _mm512_and_si512(_mm512_srli_epi32::<16>(w), set(0x8000));
                    let mag = _mm512_and_si512(w, set(0x7fff_ffff));
                    let zero = _mm512_cmplt_epu32_mask(mag, set(0x0080_0000));
                    let nan = _mm512_cmpgt_epu32_mask(mag, set(0x7f80_0000));
                    let h = _mm512_mask_mov_epi32(h, zero, sign);
                    _mm512_mask_or_epi32(h, nan, sign, set(0x7fff))
                }
                F16_F32 => {
                    let x = _mm512_castps_si512(_mm512_cvtph_ps(_mm512_cvtepi32_epi16(w)));
                    // A NaN: its sign and 0x7fffffff.
                    let nan =
                        _mm512_cmpgt_epu32_mask(_mm512_and_si512(w, set(0x7fff)), set(0x7c00));
                    let sign = _mm512_slli_epi32::<16>(_mm512_and_si512(w, set(0x8000)));
                    _mm512_mask_or_epi32(x, nan, sign, set(0x7fff_ffff))
                }
                BF16_F32 => _mm512_slli_epi32::<16>(w),
                SINT_F32 => _mm512_castps_si512(match R {
                    0 => _mm512_cvt_roundepi32_ps::<{ _MM_FROUND_TO_NEAREST_INT | E }>(w),
                    1 => _mm512_cvt_roundepi32_ps::<{ _MM_FROUND_TO_NEG_INF | E }>(w),
                    2 => _mm512_cvt_roundepi32_ps::<{ _MM_FROUND_TO_POS_INF | E }>(w),
                    _ => _mm512_cvt_roundepi32_ps::<{ _MM_FROUND_TO_ZERO | E }>(w),
                }),
                UINT_F32 => _mm512_castps_si512(match R {
                    0 => _mm512_cvt_roundepu32_ps::<{ _MM_FROUND_TO_NEAREST_INT | E }>(w),
                    1 => _mm512_cvt_roundepu32_ps::<{ _MM_FROUND_TO_NEG_INF | E }>(w),
                    2 => _mm512_cvt_roundepu32_ps::<{ _MM_FROUND_TO_POS_INF | E }>(w),
                    _ => _mm512_cvt_roundepu32_ps::<{ _MM_FROUND_TO_ZERO | E }>(w),
                }),
                F32_SINT if DS == 2 => {
                    let x = _mm512_castsi512_ps(w);
                    let r = f32_to_i32::<R>(x);
                    // The host gives 0x80000000 past the range: 2^31 and more saturate to the
                    // maximum, a NaN gives 0.
                    let hi = _mm512_cmp_ps_mask::<_CMP_GE_OQ>(x, _mm512_set1_ps(2147483648.0));
                    let r = _mm512_mask_mov_epi32(r, hi, set(i32::MAX));
                    let nan = _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(x, x);
                    _mm512_mask_mov_epi32(r, nan, set(0))
                }
                _ => {
                    // F32_SINT / F32_UINT to 8 or 16 bits: clamp to the range (a NaN becomes
                    // the low bound, then 0 below), round.
                    let (lo, hi) = match (K == F32_SINT, DS) {
                        (true, 0) => (-128.0, 127.0),
                        (true, _) => (-32768.0, 32767.0),
                        (false, 0) => (0.0, 255.0),
                        (false, _) => (0.0, 65535.0),
                    };
                    let x = _mm512_castsi512_ps(w);
                    let y = _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(lo)), _mm512_set1_ps(hi));
                    let r = f32_to_i32::<R>(y);
                    let nan = _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(x, x);
                    _mm512_mask_mov_epi32(r, nan, set(0))
                }
            }
        }

        /// Writes `len` bytes of `v` (a pattern repeated every element) at `dst`.
        ///
        /// # Safety
        ///
        /// `len` bytes after `dst` lie inside the store.
        #[inline]
        #[target_feature(enable = "avx512f,avx512dq,avx512vl,avx512bw")]
        unsafe fn fill_bytes(dst: *mut u8, v: __m512i, len: usize) {
            let mut k = 0;
            // SAFETY: the contract; the masked store touches only the live bytes.
            unsafe {
                while k + 64 <= len {
                    _mm512_storeu_si512(dst.add(k).cast(), v);
                    k += 64;
                }
                if k < len {
                    let m: __mmask64 = u64::MAX >> (64 - (len - k));
                    _mm512_mask_storeu_epi8(dst.add(k).cast(), m, v);
                }
            }
        }

        /// One cast row of `vecs` vectors (the last one's live lanes `last`): every source
        /// vector loaded before the first store (a source that is the destination itself).
        ///
        /// # Safety
        ///
        /// Both rows lie inside the store; `vecs` is 1 to 4.
        #[inline]
        #[target_feature(enable = "avx512f,avx512dq,avx512vl,avx512bw")]
        unsafe fn cast_row<const K: u8, const R: u8, const SS: u32, const DS: u32>(
            d: *mut u8,
            s: *const u8,
            vecs: usize,
            last: __mmask16,
        ) {
            let mask = |v: usize| if v + 1 == vecs { last } else { 0xffff };
            let mut ins = [_mm512_setzero_si512(); 4];
            // SAFETY: the rows lie inside the store (the contract); masked accesses.
            unsafe {
                for (v, x) in ins.iter_mut().enumerate().take(vecs) {
                    let m = mask(v);
                    let p = s.add(v << (4 + SS));
                    *x = if K == SINT_F32 {
                        load::<SS, true>(p, m)
                    } else {
                        load::<SS, false>(p, m)
                    };
                }
                for (v, x) in ins.iter().enumerate().take(vecs) {
                    store::<DS>(d.add(v << (4 + DS)), mask(v), conv::<K, R, DS>(*x));
                }
            }
        }

        /// One call of kind `K` on chip `CHIPS[CHIP]` (sources of `1 << SS`-byte elements,
        /// destination of `1 << DS`, rounding `R`): the layout checks, then the rows.
        ///
        /// # Safety
        ///
        /// The host has AVX-512 F/DQ/VL/BW and `base` is a store holding every lane of the
        /// chip.
        #[target_feature(enable = "avx512f,avx512dq,avx512vl,avx512bw")]
        pub(crate) unsafe fn run<
            const CHIP: usize,
            const K: u8,
            const R: u8,
            const SS: u32,
            const DS: u32,
        >(
            base: *mut u8,
            a: &Args,
        ) -> bool {
            let p: LocalProfile = const { CHIPS[CHIP].local() };
            let shape = &a.shape;
            let hw = shape.h as usize * shape.w as usize;
            let is_cast = K >= F32_F16;
            if is_cast && hw >= 64 {
                return false;
            }
            let Some(od) = aligned_place(&p, a.dst, shape, DS, p.eu_bytes, false) else {
                return false;
            };
            let npu = p.npu_num as usize;
            let pitch = p.store_pitch() as usize;
            let (n, c) = (shape.n as usize, shape.c as usize);
            let first = |o: &AlignedPlace| o.start as usize * pitch + o.offset as usize;
            let at = |idx: usize| base.wrapping_add(idx);
            let row_bytes = hw << DS;
            if K == SET {
                let v = match DS {
                    0 => _mm512_set1_epi8(a.c as i8),
                    1 => _mm512_set1_epi16(a.c as i16),
                    _ => _mm512_set1_epi32(a.c as i32),
                };
                let d0 = first(&od);
                if n == 1 && od.start as usize + c <= npu {
                    for ch in 0..c {
                        // SAFETY: the row lies inside the store (`aligned_place`).
                        unsafe { fill_bytes(at(d0 + ch * pitch), v, row_bytes) };
                    }
                    return true;
                }
                let cs = (od.cs as usize) << DS;
                for i in 0..n {
                    let (mut d, mut lane) = (d0 + ((i * od.ns as usize) << DS), od.start as usize);
                    for _ in 0..c {
                        // SAFETY: the row lies inside the store (`aligned_place`).
                        unsafe { fill_bytes(at(d), v, row_bytes) };
                        if lane + 1 == npu {
                            (d, lane) = (d + cs - (npu - 1) * pitch, 0);
                        } else {
                            (d, lane) = (d + pitch, lane + 1);
                        }
                    }
                }
                return true;
            }
            let sshape = if K == BCAST {
                Dim4::new(shape.n, 1, shape.h, shape.w)
            } else {
                *shape
            };
            let Some(os) = aligned_place(&p, a.src, &sshape, SS, p.eu_bytes, false) else {
                return false;
            };
            let same = os.start == od.start && os.offset == od.offset;
            let apart = os.end <= u64::from(od.offset) || od.end <= u64::from(os.offset);
            let one_row_per_lane = n == 1 && od.start.max(os.start) as usize + c <= npu;
            match K {
                CPY => {
                    if os.start != od.start || !(same || apart) {
                        return false;
                    }
                }
                BCAST => {
                    if od.start as usize + c > npu || !(same || apart) {
                        return false;
                    }
                    let ns_d = (od.ns as usize) << DS;
                    let ns_s = (os.ns as usize) << SS;
                    for i in 0..n {
                        let s = first(&os) + i * ns_s;
                        let d = first(&od) + i * ns_d;
                        for ch in 0..c {
                            // SAFETY: both rows lie inside the store (`aligned_place`; the
                            // destination's channels on lanes `start..start + c`).
                            unsafe {
                                crate::avx512::copy_bytes(at(d + ch * pitch), at(s), row_bytes)
                            };
                        }
                    }
                    return true;
                }
                _ => {
                    // Different widths: the destination itself only with a lane per channel.
                    let ok_same = same && (SS == DS || one_row_per_lane);
                    if !(ok_same || apart) {
                        return false;
                    }
                }
            }
            let vecs = hw.div_ceil(16);
            let last: __mmask16 = (u32::MAX >> (32 - (hw - 16 * (vecs - 1)))) as u16;
            // One row (a macro: a closure around the row was not inlined with the features).
            macro_rules! row {
                ($d:expr, $s:expr) => {
                    // SAFETY: both rows lie inside the store (`aligned_place`).
                    unsafe {
                        if K == CPY {
                            crate::avx512::copy_bytes(at($d), at($s), row_bytes)
                        } else {
                            cast_row::<K, R, SS, DS>(at($d), at($s), vecs, last)
                        }
                    }
                };
            }
            if one_row_per_lane {
                let (d0, s0) = (first(&od), first(&os));
                for ch in 0..c {
                    row!(d0 + ch * pitch, s0 + ch * pitch);
                }
                return true;
            }
            // From one channel to the next: the next lane, or lane 0 of the next slot.
            let step = |(idx, lane): (usize, usize), cs: usize| {
                if lane + 1 == npu {
                    (idx + cs - (npu - 1) * pitch, 0)
                } else {
                    (idx + pitch, lane + 1)
                }
            };
            let (cs_d, cs_s) = ((od.cs as usize) << DS, (os.cs as usize) << SS);
            for i in 0..n {
                let mut cd = (first(&od) + ((i * od.ns as usize) << DS), od.start as usize);
                let mut cs = (first(&os) + ((i * os.ns as usize) << SS), os.start as usize);
                for _ in 0..c {
                    row!(cd.0, cs.0);
                    cd = step(cd, cs_d);
                    cs = step(cs, cs_s);
                }
            }
            true
        }
    }
}

/// The vector form of each cast kind against [`cast_bits`], lane by lane: every 8- and 16-bit
/// source pattern, and for 32-bit sources every exponent with edge and pseudo-random
/// mantissas, the integers around each target's bounds and rounding ties, and random patterns
/// (every pattern in `exhaustive_f32_sources`, ignored: run it with `--ignored`).
#[cfg(all(test, target_arch = "x86_64"))]
mod kernel_tests {
    use super::small::x86::conv;
    use super::small::*;
    use super::*;
    use std::arch::x86_64::*;

    /// `conv::<K, R, DS>` over `srcs` (source bits, zero-extended) against `cast_bits`.
    #[target_feature(enable = "avx512f,avx512dq,avx512vl,avx512bw")]
    fn check<const K: u8, const R: u8, const SS: u32, const DS: u32>(
        src: ElemType,
        dst: ElemType,
        srcs: &[u32],
    ) -> Result<(), String> {
        let mode = [
            RoundMode::Rint,
            RoundMode::Floor,
            RoundMode::Ceil,
            RoundMode::Trunc,
        ][R as usize];
        let dmask = if DS == 2 {
            u32::MAX
        } else {
            (1u32 << (8 << DS)) - 1
        };
        for chunk in srcs.chunks(16) {
            let mut words = [0u32; 16];
            for (w, &b) in words.iter_mut().zip(chunk) {
                // The words as the row loads them: sign-extended for signed integer sources.
                *w = match (K == SINT_F32, SS) {
                    (true, 0) => b as u8 as i8 as i32 as u32,
                    (true, 1) => b as u16 as i16 as i32 as u32,
                    _ => b,
                };
            }
            // SAFETY: a vector of 16 words from an array of 16 words and back.
            let out: [u32; 16] = unsafe {
                std::mem::transmute(conv::<K, R, DS>(std::mem::transmute::<[u32; 16], __m512i>(
                    words,
                )))
            };
            for (&b, &o) in chunk.iter().zip(&out) {
                let want = cast_bits(b, src, dst, mode) & dmask;
                if o & dmask != want {
                    return Err(format!(
                        "{src:?} -> {dst:?} {mode:?}: {b:#010x} gives {:#x}, want {want:#x}",
                        o & dmask
                    ));
                }
            }
        }
        Ok(())
    }

    /// The 32-bit source patterns of the sampled test.
    fn patterns32() -> Vec<u32> {
        let mut v = Vec::new();
        let mut x = 0x9e37_79b9u32;
        let mut rnd = || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        };
        for e in 0..=255u32 {
            for k in 0..48u32 {
                let m = match k {
                    0 => 0,
                    1 => 0x7f_ffff,
                    2 => 0x1000,
                    3 => 0x3000,
                    4 => 0x8000,
                    5 => 0x1_8000,
                    6 => 1,
                    7 => 0x40_0000,
                    8 => 0x7f_e000,
                    9 => 0x7f_f000,
                    _ => rnd() & 0x7f_ffff,
                };
                for sign in [0, 0x8000_0000] {
                    v.push(sign | e << 23 | m);
                }
            }
        }
        // Floats at and around each integer target's bounds and at halves.
        for b in [
            0.0f32,
            1.0,
            127.0,
            128.0,
            255.0,
            256.0,
            32767.0,
            32768.0,
            65504.0,
            65535.0,
            65536.0,
            2147483648.0,
            4294967296.0,
        ] {
            for sign in [1.0f32, -1.0] {
                for d in -8..=8 {
                    let f = sign * b + d as f32 * 0.25;
                    v.push(f.to_bits());
                    v.push((sign * b).to_bits().wrapping_add(d as u32));
                }
            }
        }
        // Integers (as source bits): around 2^24 and 2^31, ties, the extremes.
        for base in [
            0u32,
            1 << 24,
            1 << 25,
            0x7fff_ff00,
            0x8000_0000,
            0xffff_ff00,
            0xff00_0000,
        ] {
            for d in 0..256u32 {
                v.push(base.wrapping_add(d));
                v.push(base.wrapping_sub(d));
            }
        }
        for _ in 0..100_000 {
            v.push(rnd());
        }
        v
    }

    macro_rules! keys {
        ($m:ident) => {
            $m!(F32_F16, 0, 2, 1, F32, F16);
            $m!(F32_F16, 1, 2, 1, F32, F16);
            $m!(F32_F16, 2, 2, 1, F32, F16);
            $m!(F32_F16, 3, 2, 1, F32, F16);
            $m!(F32_BF16, 0, 2, 1, F32, Bf16);
            $m!(F16_F32, 0, 1, 2, F16, F32);
            $m!(BF16_F32, 0, 1, 2, Bf16, F32);
            $m!(SINT_F32, 0, 0, 2, I8, F32);
            $m!(SINT_F32, 0, 1, 2, I16, F32);
            $m!(SINT_F32, 0, 2, 2, I32, F32);
            $m!(SINT_F32, 1, 2, 2, I32, F32);
            $m!(SINT_F32, 2, 2, 2, I32, F32);
            $m!(SINT_F32, 3, 2, 2, I32, F32);
            $m!(UINT_F32, 0, 0, 2, U8, F32);
            $m!(UINT_F32, 0, 1, 2, U16, F32);
            $m!(UINT_F32, 0, 2, 2, U32, F32);
            $m!(UINT_F32, 1, 2, 2, U32, F32);
            $m!(UINT_F32, 2, 2, 2, U32, F32);
            $m!(UINT_F32, 3, 2, 2, U32, F32);
            $m!(F32_SINT, 0, 2, 0, F32, I8);
            $m!(F32_SINT, 1, 2, 0, F32, I8);
            $m!(F32_SINT, 2, 2, 0, F32, I8);
            $m!(F32_SINT, 3, 2, 0, F32, I8);
            $m!(F32_SINT, 0, 2, 1, F32, I16);
            $m!(F32_SINT, 1, 2, 1, F32, I16);
            $m!(F32_SINT, 2, 2, 1, F32, I16);
            $m!(F32_SINT, 3, 2, 1, F32, I16);
            $m!(F32_SINT, 0, 2, 2, F32, I32);
            $m!(F32_SINT, 1, 2, 2, F32, I32);
            $m!(F32_SINT, 2, 2, 2, F32, I32);
            $m!(F32_SINT, 3, 2, 2, F32, I32);
            $m!(F32_UINT, 0, 2, 0, F32, U8);
            $m!(F32_UINT, 1, 2, 0, F32, U8);
            $m!(F32_UINT, 2, 2, 0, F32, U8);
            $m!(F32_UINT, 3, 2, 0, F32, U8);
            $m!(F32_UINT, 0, 2, 1, F32, U16);
            $m!(F32_UINT, 1, 2, 1, F32, U16);
            $m!(F32_UINT, 2, 2, 1, F32, U16);
            $m!(F32_UINT, 3, 2, 1, F32, U16);
        };
    }

    #[test]
    fn vector_casts_equal_cast_bits() {
        if HostSimd::detect() != HostSimd::Avx512 {
            return;
        }
        let p32 = patterns32();
        let p16: Vec<u32> = (0..=0xffff).collect();
        let p8: Vec<u32> = (0..=0xff).collect();
        let mut n = 0;
        macro_rules! one {
            ($k:ident, $r:literal, $ss:literal, $ds:literal, $s:ident, $d:ident) => {{
                let srcs = match $ss {
                    0 => &p8,
                    1 => &p16,
                    _ => &p32,
                };
                // SAFETY: the host has AVX-512 F/DQ/VL/BW (detected above).
                let r = unsafe { check::<$k, $r, $ss, $ds>(ElemType::$s, ElemType::$d, srcs) };
                assert_eq!(r, Ok(()));
                // The key the dispatch gives this pair and mode.
                let mode = [
                    RoundingMode::HalfToEven,
                    RoundingMode::Down,
                    RoundingMode::Up,
                    RoundingMode::TowardsZero,
                ][$r];
                let dt = |t: ElemType| match t {
                    ElemType::U8 => DataType::Uint8,
                    ElemType::I8 => DataType::Int8,
                    ElemType::U16 => DataType::Uint16,
                    ElemType::I16 => DataType::Int16,
                    ElemType::U32 => DataType::Uint32,
                    ElemType::I32 => DataType::Int32,
                    ElemType::F16 => DataType::Fp16,
                    ElemType::Bf16 => DataType::Bfp16,
                    _ => DataType::Fp32,
                };
                let (d, s) = (dt(ElemType::$d), dt(ElemType::$s));
                assert!(CastPlan::new("t", d, s, mode).is_ok());
                assert_eq!(cast_key(d, s, mode), Some(($k, $r, $ss, $ds)));
                n += 1;
            }};
        }
        keys!(one);
        assert_eq!(n, 39);
        // The small path takes only calls the checked path accepts.
        use DataType::*;
        let all = [
            Uint8, Int8, Fp16, Fp32, Uint16, Int16, Uint32, Int32, Bfp16, Uint4, Int4, Fp8E5M2,
            Fp20, Fp8E4M3,
        ];
        for d in all {
            for s in all {
                for code in 0..7 {
                    let mode = RoundingMode::from_code(code).unwrap();
                    if cast_key(d, s, mode).is_some() {
                        assert!(
                            CastPlan::new("t", d, s, mode).is_ok(),
                            "{d:?} <- {s:?} {mode:?}"
                        );
                    }
                }
            }
        }
    }

    /// `avx2::conv8::<K, R, DS>` over `srcs` against `cast_bits` (as [`check`]).
    #[target_feature(enable = "avx2,f16c")]
    fn check8<const K: u8, const R: u8, const SS: u32, const DS: u32>(
        src: ElemType,
        dst: ElemType,
        srcs: &[u32],
    ) -> Result<(), String> {
        let mode = [
            RoundMode::Rint,
            RoundMode::Floor,
            RoundMode::Ceil,
            RoundMode::Trunc,
        ][R as usize];
        let dmask = if DS == 2 {
            u32::MAX
        } else {
            (1u32 << (8 << DS)) - 1
        };
        for chunk in srcs.chunks(8) {
            let mut words = [0u32; 8];
            for (w, &b) in words.iter_mut().zip(chunk) {
                *w = match (K == SINT_F32, SS) {
                    (true, 0) => b as u8 as i8 as i32 as u32,
                    (true, 1) => b as u16 as i16 as i32 as u32,
                    _ => b,
                };
            }
            // SAFETY: a vector of 8 words from an array of 8 words and back.
            let out: [u32; 8] = unsafe {
                std::mem::transmute(super::small::avx2::conv8::<K, R, DS>(
                    std::mem::transmute::<[u32; 8], __m256i>(words),
                ))
            };
            for (&b, &o) in chunk.iter().zip(&out) {
                let want = cast_bits(b, src, dst, mode) & dmask;
                if o & dmask != want {
                    return Err(format!(
                        "{src:?} -> {dst:?} {mode:?}: {b:#010x} gives {:#x}, want {want:#x}",
                        o & dmask
                    ));
                }
            }
        }
        Ok(())
    }

    /// The AVX2 form of every kind it takes, lane by lane against `cast_bits` (the sources of
    /// `vector_casts_equal_cast_bits`).
    #[test]
    fn avx2_vector_casts_equal_cast_bits() {
        if !(std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("f16c"))
        {
            return;
        }
        let p32 = patterns32();
        let p16: Vec<u32> = (0..=0xffff).collect();
        let p8: Vec<u32> = (0..=0xff).collect();
        let mut n = 0;
        macro_rules! one {
            ($k:ident, $r:literal, $ss:literal, $ds:literal, $s:ident, $d:ident) => {{
                if avx2_takes($k, $r, $ss) {
                    let srcs = match $ss {
                        0 => &p8,
                        1 => &p16,
                        _ => &p32,
                    };
                    // SAFETY: the host has AVX2 and F16C (detected above).
                    let r = unsafe { check8::<$k, $r, $ss, $ds>(ElemType::$s, ElemType::$d, srcs) };
                    assert_eq!(r, Ok(()));
                    n += 1;
                }
            }};
        }
        keys!(one);
        // 39 kinds, less the 32-bit integer sources AVX2 does not convert (signed with a
        // directed rounding: 3; unsigned: 4).
        assert_eq!(n, 32);
    }

    /// Every 32-bit source pattern of every kind with 32-bit sources (`--ignored`: 2^32
    /// patterns for each of 32 kinds, long).
    #[test]
    #[ignore]
    fn exhaustive_f32_sources() {
        if HostSimd::detect() != HostSimd::Avx512 {
            return;
        }
        let all: Vec<u32> = (0..1u32 << 24).collect();
        macro_rules! one {
            ($k:ident, $r:literal, $ss:literal, $ds:literal, $s:ident, $d:ident) => {{
                if $ss == 2 {
                    for hi in 0..256u32 {
                        let srcs: Vec<u32> = all.iter().map(|&l| hi << 24 | l).collect();
                        let r = {
                            // SAFETY: the host has AVX-512 F/DQ/VL/BW (detected above).
                            unsafe { check::<$k, $r, $ss, $ds>(ElemType::$s, ElemType::$d, &srcs) }
                        };
                        assert_eq!(r, Ok(()));
                    }
                }
            }};
        }
        keys!(one);
    }
}

/// log2 of the size of an 8/16/32-bit dtype (checked by the caller).
#[inline]
fn dtype_shift(dtype: DataType) -> u32 {
    match elem(dtype) {
        Some(ElemType::U8 | ElemType::I8) => 0,
        Some(ElemType::U16 | ElemType::I16 | ElemType::F16 | ElemType::Bf16) => 1,
        _ => 2,
    }
}

impl TpuCore {
    /// The small-call path ([`small`]) of a call with key `key` (kind, rounding, source and
    /// destination shifts) on [`HostSimd::Avx512`] and [`HostSimd::Avx2`] hosts; `false`
    /// (nothing written) on others or when the path does not take the call.
    #[inline]
    fn run_small(
        &mut self,
        key: (u8, u8, u32, u32),
        dst: LocalAddr,
        src: LocalAddr,
        shape: &Dim4,
        c: u32,
    ) -> bool {
        let (simd, chip) = (self.host_simd(), self.chip());
        let store = self.local_store_mut();
        match simd {
            // SAFETY: `HostSimd::Avx512` is only ever a detected level.
            HostSimd::Avx512 => unsafe { small::run(store, chip, key, dst, src, shape, c) },
            // SAFETY: `HostSimd::Avx2` is only ever a detected level.
            HostSimd::Avx2 => unsafe { small::run_avx2(store, chip, key, dst, src, shape, c) },
            HostSimd::Baseline => false,
        }
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
