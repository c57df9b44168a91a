//! Explicit AVX2 row kernel of the most common BDC float calls (issue #16, acceptance 4: the
//! per-call and per-row cost of small calls): `tpu_bdc_fp_add/sub/mul` and their `_C` forms on
//! f32 under the flush-to-zero policy ([`crate::chip::BdcDenormals::FlushToZero`]), the
//! element function of `crate::bdc` (`fz(fz(a) op fz(b))`, a NaN result recomputed by the
//! scalar `exact` function, which applies the x86 NaN rule) written with 8-lane intrinsics.
//!
//! The generic row driver in `crate::bdc` (slices, chunking through a stack buffer for
//! overlapping rows) costs about 13 ns per row of 16 elements, most of the time of a small call
//! (a (1,64,1,16) call has 64 rows); this kernel walks the rows with three index computations,
//! one masked load/store step for a row's last partial vector, and no per-row slicing.
//!
//! Add and sub rows of 64 elements or more run their blocks of 32 through an `asm!` loop with
//! the host's DAZ and FTZ modes set for the loop alone (`x86::hw_ftz_tensor`): for f32 add and
//! sub the hardware flush is exactly the profile's `fz(fz(a) op fz(b))` (see there), and it
//! costs nothing, where the flush in vector instructions (three masks and blends per element)
//! made a (1,64,32,64) `tpu_bdc_fp_add` 27 us against 20 us. Mul keeps the instruction flush
//! (a product can round across the smallest normal, where the two flushes might differ).
//!
//! It runs only where its result is the driver's, element for element: unit w strides, each
//! source either the destination itself (same start lane, offset and strides: each vector is
//! loaded before it is stored over) or apart from it (their byte ranges inside a lane do not
//! meet), and every row inside the store (checked once per call from the footprint the views
//! carry). Anything else returns `false` and runs through the generic driver. The golden files
//! (`golden/tpu/bdc.json`, ...) and the proptest `bdc::f32_add_mul_max_equal_plain_model` run
//! through it on AVX2 hosts.

use crate::bdc::BinOp;
use crate::chip::LocalProfile;
use crate::local::{AlignedPlace, Dim4, LocalAddr, LocalView, aligned_place};

/// The walk shared by the operands of one [`aligned_f32`] call (`tpu_aligned_stride` with
/// f32 elements): `n` batches of `c` channels, each one row of `hw = h * w` elements, `cs`
/// elements apart within a lane. Each operand's place is `crate::local::aligned_place`'s.
struct AlignedGeometry {
    n: u64,
    c: u64,
    hw: u64,
    cs: u64,
    lane_mask: u32,
}

/// The small-call path of `tpu_bdc_fp_add/sub/mul` and their `_C` forms on hosts with AVX2 but
/// not AVX-512 (`crate::avx512::small_f32` runs where the host has both): f32, every operand in
/// the aligned layout (NULL strides), channels of fewer than 64 elements (longer rows take
/// [`f32_rows`], whose add/sub blocks run under the host's flush mode). One pass of the
/// layout checks for the three operands (no [`LocalView`]s), then the rows of the AVX2 kernel
/// ([`f32_rows`]'s `row_loop!`). `false` (nothing written) when the host has no AVX2 or the call
/// is not one it takes: a misaligned or out-of-range operand (the checked path names the error),
/// or a source that partly overlaps the destination (the generic driver's order then decides).
/// The caller has checked the dtype, the op and the dims (`1..=65535`, the work bound).
///
/// Its scalar twin is the generic driver of `crate::bdc` (the same call with explicit aligned
/// strides goes there): `tests/bdc.rs` `aligned_small_calls_equal_strided_calls` holds them
/// equal.
#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) fn aligned_f32<E: Fn(f32, f32) -> f32>(
    store: &mut [u8],
    p: &LocalProfile,
    f: BinOp,
    dst: LocalAddr,
    a: LocalAddr,
    b: Option<LocalAddr>,
    shape: &Dim4,
    c: f32,
    exact: &E,
) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        if !std::arch::is_x86_feature_detected!("avx2") {
            return false;
        }
        // Every operand: EU-aligned, inside local memory, its footprint inside the lane
        // (`aligned_place`, the arithmetic of `LocalView::aligned_fast`).
        let place = |addr| aligned_place(p, addr, shape, 2, p.eu_bytes, false);
        let (Some(od), Some(oa)) = (place(dst), place(a)) else {
            return false;
        };
        let hw = shape.h as u64 * shape.w as u64;
        if hw >= 64 || (store.len() as u64) < p.store_size() {
            return false;
        }
        let g = AlignedGeometry {
            n: shape.n as u64,
            c: shape.c as u64,
            hw,
            cs: od.cs,
            lane_mask: p.npu_num - 1,
        };
        // A source is the destination itself (same lane and offset: same strides, each vector
        // loaded before it is stored over) or apart from it inside every lane.
        let apart = |o: &AlignedPlace| {
            (o.start == od.start && o.offset == od.offset)
                || o.end <= u64::from(od.offset)
                || od.end <= u64::from(o.offset)
        };
        if !apart(&oa) {
            return false;
        }
        let ob = match b {
            Some(addr) => match place(addr) {
                Some(o) if apart(&o) => Some(o),
                _ => return false,
            },
            None => None,
        };
        // SAFETY: AVX2 was detected above; every operand's footprint ends inside its lane
        // (`aligned_place`) and the store holds every lane (`store_size`), so every row lies inside
        // the store.
        unsafe {
            x86::aligned_rows(
                store.as_mut_ptr(),
                p.store_pitch() as usize,
                f,
                &g,
                [od, oa, ob.unwrap_or(oa)],
                ob.is_some(),
                c,
                exact,
            )
        };
        true
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (store, p, f, dst, a, b, shape, c, exact);
        false
    }
}

/// Runs `dst = fz(fz(a) f fz(b))` (`b` the scalar `c` when `None`) for `f` in add, sub, mul,
/// on f32 views with unit w strides; `false` (nothing written) when the host has no AVX2 or
/// the call is not of the kind described in the module docs.
#[inline]
pub(crate) fn f32_rows<E: Fn(f32, f32) -> f32>(
    store: &mut [u8],
    f: BinOp,
    d: &LocalView,
    a: &LocalView,
    b: Option<&LocalView>,
    c: f32,
    exact: &E,
) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        if !std::arch::is_x86_feature_detected!("avx2")
            || !matches!(f, BinOp::Add | BinOp::Sub | BinOp::Mul)
        {
            return false;
        }
        // Long mul rows go through the generic driver, whose compiler-vectorised loop is as
        // fast there; long add/sub rows stay here (their blocks of 32 run under the host's
        // flush-to-zero mode, `x86::hw_ftz_*`).
        let row_len = if d.stride.h == d.shape.w {
            i64::from(d.shape.h) * i64::from(d.shape.w)
        } else {
            i64::from(d.shape.w)
        };
        if row_len > 256 && f == BinOp::Mul {
            return false;
        }
        let ((d0, d1), d_bound) = d.span_and_bound();
        let len = store.len();
        let fits = |v: &LocalView| {
            let same = v.start == d.start && v.offset == d.offset && v.stride == d.stride;
            let ((s0, s1), bound) = v.span_and_bound();
            v.esize == 4 && v.stride.w == 1 && bound <= len && (same || s1 <= d0 || d1 <= s0)
        };
        if d.esize != 4 || d.stride.w != 1 || d_bound > len || !fits(a) || !b.is_none_or(fits) {
            return false;
        }
        // SAFETY: AVX2 was detected just above; the views' rows lie inside the store (checked
        // above through `store_bound`), which is all `rows` needs.
        unsafe { x86::rows(store, f, d, a, b, c, exact) };
        true
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (store, f, d, a, b, c, exact);
        false
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    use crate::bdc::BinOp;
    use crate::local::{AlignedPlace, LocalView};

    /// The row loop of [`Kernel::row`], written out where it is used (`$k` the kernel, `$pd`,
    /// `$pa`, `$pb` the row pointers, `$start` the first element): as a function it was called
    /// out of line in the short-row loop of [`rows`] (an `_C` (1,64,1,16) call 445 ns; with
    /// the loop expanded there 371-385 ns). Expands inside an `unsafe` block of an AVX2 function whose contract puts
    /// the row's elements inside the store.
    macro_rules! row_loop {
        ($k:ident, $pd:expr, $pa:expr, $pb:expr, $start:expr) => {{
            let (rd, ra, rb): (*mut f32, *const f32, Option<*const f32>) = ($pd, $pa, $pb);
            let mut e = $start;
            while e + 32 <= $k.full {
                let x0 = _mm256_loadu_ps(ra.add(e));
                let x1 = _mm256_loadu_ps(ra.add(e + 8));
                let x2 = _mm256_loadu_ps(ra.add(e + 16));
                let x3 = _mm256_loadu_ps(ra.add(e + 24));
                let (y0, y1, y2, y3) = match rb {
                    Some(pb) => (
                        _mm256_loadu_ps(pb.add(e)),
                        _mm256_loadu_ps(pb.add(e + 8)),
                        _mm256_loadu_ps(pb.add(e + 16)),
                        _mm256_loadu_ps(pb.add(e + 24)),
                    ),
                    None => ($k.cv, $k.cv, $k.cv, $k.cv),
                };
                let (mut r0, mut r1, mut r2, mut r3) = (
                    $k.calc(x0, y0),
                    $k.calc(x1, y1),
                    $k.calc(x2, y2),
                    $k.calc(x3, y3),
                );
                let any = _mm256_or_ps(
                    _mm256_or_ps(
                        _mm256_cmp_ps::<_CMP_UNORD_Q>(r0, r0),
                        _mm256_cmp_ps::<_CMP_UNORD_Q>(r1, r1),
                    ),
                    _mm256_or_ps(
                        _mm256_cmp_ps::<_CMP_UNORD_Q>(r2, r2),
                        _mm256_cmp_ps::<_CMP_UNORD_Q>(r3, r3),
                    ),
                );
                if _mm256_movemask_ps(any) != 0 {
                    r0 = $k.fix_lanes(x0, y0, r0);
                    r1 = $k.fix_lanes(x1, y1, r1);
                    r2 = $k.fix_lanes(x2, y2, r2);
                    r3 = $k.fix_lanes(x3, y3, r3);
                }
                _mm256_storeu_ps(rd.add(e), r0);
                _mm256_storeu_ps(rd.add(e + 8), r1);
                _mm256_storeu_ps(rd.add(e + 16), r2);
                _mm256_storeu_ps(rd.add(e + 24), r3);
                e += 32;
            }
            while e < $k.full {
                let x = _mm256_loadu_ps(ra.add(e));
                let y = match rb {
                    Some(pb) => _mm256_loadu_ps(pb.add(e)),
                    None => $k.cv,
                };
                _mm256_storeu_ps(rd.add(e), $k.fix(x, y, $k.calc(x, y)));
                e += 8;
            }
            if $k.rem > 0 {
                let x = _mm256_maskload_ps(ra.add(e), $k.tail);
                let y = match rb {
                    Some(pb) => _mm256_maskload_ps(pb.add(e), $k.tail),
                    None => $k.cv,
                };
                _mm256_maskstore_ps(rd.add(e), $k.tail, $k.fix(x, y, $k.calc(x, y)));
            }
        }};
    }

    /// The constants of one call. Its methods are `#[target_feature(enable = "avx2")]`
    /// functions (not closures, which would not inherit the feature when not inlined).
    struct Kernel<'e, E> {
        f: BinOp,
        exp: __m256,
        sign: __m256,
        zero: __m256i,
        /// Lane i of a row's last partial vector is live when i < the row's remainder.
        tail: __m256i,
        /// The scalar operand, broadcast.
        cv: __m256,
        full: usize,
        rem: usize,
        /// Elements per row the hardware flush-to-zero loop does (0: none).
        hw: usize,
        exact: &'e E,
    }

    impl<'e, E: Fn(f32, f32) -> f32> Kernel<'e, E> {
        /// The constants of a call of `f` over rows of `w` elements (`c` the scalar operand).
        #[inline]
        #[target_feature(enable = "avx2")]
        fn new(f: BinOp, w: usize, c: f32, exact: &'e E) -> Self {
            let full = w - w % 8;
            let rem = w - full;
            let lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
            Kernel {
                f,
                exp: _mm256_castsi256_ps(_mm256_set1_epi32(0x7f80_0000)),
                sign: _mm256_castsi256_ps(_mm256_set1_epi32(i32::MIN)),
                zero: _mm256_setzero_si256(),
                tail: _mm256_cmpgt_epi32(_mm256_set1_epi32(rem as i32), lanes),
                cv: _mm256_set1_ps(c),
                full,
                rem,
                hw: if full >= HW_FTZ_MIN && matches!(f, BinOp::Add | BinOp::Sub) {
                    full - full % 32
                } else {
                    0
                },
                exact,
            }
        }

        /// A denormal lane as a zero of its sign.
        #[inline]
        #[target_feature(enable = "avx2")]
        fn ftz(&self, v: __m256) -> __m256 {
            let e = _mm256_castps_si256(_mm256_and_ps(v, self.exp));
            let is_zero_exp = _mm256_castsi256_ps(_mm256_cmpeq_epi32(e, self.zero));
            _mm256_blendv_ps(v, _mm256_and_ps(v, self.sign), is_zero_exp)
        }

        /// `f` on flushed operands, the result flushed (no NaN rule).
        #[inline]
        #[target_feature(enable = "avx2")]
        fn calc(&self, x: __m256, y: __m256) -> __m256 {
            let (fx, fy) = (self.ftz(x), self.ftz(y));
            let r = match self.f {
                BinOp::Sub => _mm256_sub_ps(fx, fy),
                BinOp::Mul => _mm256_mul_ps(fx, fy),
                _ => _mm256_add_ps(fx, fy),
            };
            self.ftz(r)
        }

        /// The NaN lanes of `r`, all ones.
        #[inline]
        #[target_feature(enable = "avx2")]
        fn nan(r: __m256) -> __m256 {
            _mm256_cmp_ps::<_CMP_UNORD_Q>(r, r)
        }

        /// `r` with its NaN lanes computed again by `exact` (which applies the NaN rule).
        #[inline]
        #[target_feature(enable = "avx2")]
        fn fix(&self, x: __m256, y: __m256, r: __m256) -> __m256 {
            if _mm256_movemask_ps(Self::nan(r)) == 0 {
                return r;
            }
            self.fix_lanes(x, y, r)
        }

        #[cold]
        #[target_feature(enable = "avx2")]
        fn fix_lanes(&self, x: __m256, y: __m256, r: __m256) -> __m256 {
            let (mut xs, mut ys, mut rs) = ([0f32; 8], [0f32; 8], [0f32; 8]);
            // SAFETY: unaligned stores of three registers into local arrays of 8 f32.
            unsafe {
                _mm256_storeu_ps(xs.as_mut_ptr(), x);
                _mm256_storeu_ps(ys.as_mut_ptr(), y);
                _mm256_storeu_ps(rs.as_mut_ptr(), r);
            }
            for k in 0..8 {
                if rs[k].is_nan() {
                    rs[k] = (self.exact)(xs[k], ys[k]);
                }
            }
            // SAFETY: an unaligned load of a local array of 8 f32.
            unsafe { _mm256_loadu_ps(rs.as_ptr()) }
        }

        /// One row from element 0, or with `FROM_HW` from `self.hw` (where the hardware loop
        /// stopped): the rest of the `full + rem` elements from `pa` (and `pb`, or the scalar)
        /// into `pd`, 32 at a time (one NaN test per four vectors), then 8, then the masked
        /// tail (`row_loop!`; the short-row loop of [`rows`] expands the same macro itself,
        /// since this function was not inlined there).
        ///
        /// # Safety
        ///
        /// The `full + rem` elements after each pointer lie inside the store.
        #[inline]
        #[target_feature(enable = "avx2")]
        unsafe fn row<const FROM_HW: bool>(
            &self,
            pd: *mut f32,
            pa: *const f32,
            pb: Option<*const f32>,
        ) {
            // SAFETY: (every pointer below) the row's elements lie inside the store (this
            // function's contract); the masked load and store of the tail touch only the live
            // lanes.
            unsafe {
                row_loop!(self, pd, pa, pb, if FROM_HW { self.hw } else { 0 });
            }
        }
    }

    impl<E: Fn(f32, f32) -> f32> Kernel<'_, E> {
        /// One row: with `HW`, its first `self.hw` elements (whole blocks of 32) through the
        /// hardware flush-to-zero loop, the rest by [`Self::row`]; without, all by `row`
        /// (a separate instantiation: a call inside the short-row loop, even not taken, made
        /// the compiler spill the kernel's constants there, an `_C` (1,64,1,16) call 294 ns
        /// to 445 ns).
        ///
        /// # Safety
        ///
        /// As [`Self::row`].
        #[inline]
        #[target_feature(enable = "avx2")]
        unsafe fn row_hw<const HW: bool>(
            &self,
            pd: *mut f32,
            pa: *const f32,
            pb: Option<*const f32>,
        ) {
            // SAFETY: the row's elements lie inside the store (this function's contract).
            unsafe {
                if HW {
                    let sub = self.f == BinOp::Sub;
                    match pb {
                        Some(pb) => hw_ftz_tensor(sub, pd, pa, pb, self.hw),
                        None => hw_ftz_scalar(sub, pd, pa, self.cv, self.hw),
                    }
                    self.row::<true>(pd, pa, pb);
                } else {
                    self.row::<false>(pd, pa, pb);
                }
            }
        }
    }

    /// Rows at least this long run their blocks of 32 through [`hw_ftz_tensor`] /
    /// [`hw_ftz_scalar`] (setting the control register twice per row costs more than it saves
    /// on shorter rows).
    const HW_FTZ_MIN: usize = 64;

    /// Emits one of the hardware flush-to-zero loops: `$op` (`vaddps` or `vsubps`) of 32-element
    /// blocks, the second operand `$y` a memory operand (`[{b} + {i}]`-style) or a register.
    macro_rules! hw_ftz_loop {
        ($op:literal, $y0:literal, $y1:literal, $y2:literal, $y3:literal, $($operands:tt)*) => {
            std::arch::asm!(
                "vstmxcsr [{s}]",
                "mov {t:e}, [{s}]",
                // DAZ (bit 6) and FTZ (bit 15).
                "or {t:e}, 0x8040",
                "mov [{s} + 4], {t:e}",
                "vldmxcsr [{s} + 4]",
                "2:",
                "vmovups {x0}, [{a} + {i}]",
                "vmovups {x1}, [{a} + {i} + 32]",
                "vmovups {x2}, [{a} + {i} + 64]",
                "vmovups {x3}, [{a} + {i} + 96]",
                concat!($op, " {x0}, {x0}, ", $y0),
                concat!($op, " {x1}, {x1}, ", $y1),
                concat!($op, " {x2}, {x2}, ", $y2),
                concat!($op, " {x3}, {x3}, ", $y3),
                "vmovups [{d} + {i}], {x0}",
                "vmovups [{d} + {i} + 32], {x1}",
                "vmovups [{d} + {i} + 64], {x2}",
                "vmovups [{d} + {i} + 96], {x3}",
                "add {i}, 128",
                "cmp {i}, {end}",
                "jb 2b",
                // The caller's control register back, before the block ends.
                "vldmxcsr [{s}]",
                t = out(reg) _,
                x0 = out(ymm_reg) _,
                x1 = out(ymm_reg) _,
                x2 = out(ymm_reg) _,
                x3 = out(ymm_reg) _,
                $($operands)*
                options(nostack),
            )
        };
    }

    /// `pd[k] = pa[k] + pb[k]` (`-` when `sub`) for `k < n` (`n` a positive multiple of 32)
    /// with the host's DAZ and FTZ modes set for the loop only (one `asm!` block saves the
    /// control register, sets the two bits, runs the loop and restores it; the compiler's own
    /// code never runs under the changed mode). For f32 add and sub this is exactly
    /// `fz(fz(a) op fz(b))` with the x86 NaN rule, the scalar twin `exact` of the callers: the
    /// exact sum of two normal-or-zero f32 is a multiple of 2^-149, so a result below 2^-126
    /// is exact and flushed by both (same sign), and a NaN result follows the x86 rule in both
    /// (DAZ turns no NaN into a number). The proptest
    /// `bdc::f32_long_rows_equal_plain_model` holds the two equal on rows long enough to
    /// reach this loop.
    ///
    /// # Safety
    ///
    /// The host has AVX2; the `n` elements after each pointer lie inside the store; `pd` is
    /// `pa` or `pb` itself or its range meets neither (each block is loaded before it is
    /// stored).
    // Not inlined: inside the row loop of short rows it made the intrinsics code spill (an
    // `_C` (1,64,1,16) call went from 294 to 445 ns).
    #[inline(never)]
    #[target_feature(enable = "avx2")]
    unsafe fn hw_ftz_tensor(sub: bool, pd: *mut f32, pa: *const f32, pb: *const f32, n: usize) {
        debug_assert!(n > 0 && n.is_multiple_of(32));
        let mut save = [0u32; 2];
        let s = save.as_mut_ptr();
        // SAFETY: the loop reads `n` elements after `pa` and `pb` and writes `n` after `pd`,
        // inside the store (this function's contract); the control register is restored.
        unsafe {
            if sub {
                hw_ftz_loop!("vsubps", "[{b} + {i}]", "[{b} + {i} + 32]", "[{b} + {i} + 64]",
                    "[{b} + {i} + 96]", s = in(reg) s, a = in(reg) pa, b = in(reg) pb,
                    d = in(reg) pd, i = inout(reg) 0usize => _, end = in(reg) 4 * n,);
            } else {
                hw_ftz_loop!("vaddps", "[{b} + {i}]", "[{b} + {i} + 32]", "[{b} + {i} + 64]",
                    "[{b} + {i} + 96]", s = in(reg) s, a = in(reg) pa, b = in(reg) pb,
                    d = in(reg) pd, i = inout(reg) 0usize => _, end = in(reg) 4 * n,);
            }
        }
    }

    /// [`hw_ftz_tensor`] with the broadcast scalar `c` as the second operand (the `_C` forms).
    ///
    /// # Safety
    ///
    /// As [`hw_ftz_tensor`] (`pd` is `pa` or apart from it).
    // Not inlined: inside the row loop of short rows it made the intrinsics code spill (an
    // `_C` (1,64,1,16) call went from 294 to 445 ns).
    #[inline(never)]
    #[target_feature(enable = "avx2")]
    unsafe fn hw_ftz_scalar(sub: bool, pd: *mut f32, pa: *const f32, c: __m256, n: usize) {
        debug_assert!(n > 0 && n.is_multiple_of(32));
        let mut save = [0u32; 2];
        let s = save.as_mut_ptr();
        // SAFETY: as in `hw_ftz_tensor`.
        unsafe {
            if sub {
                hw_ftz_loop!("vsubps", "{c}", "{c}", "{c}", "{c}", s = in(reg) s,
                    a = in(reg) pa, c = in(ymm_reg) c, d = in(reg) pd,
                    i = inout(reg) 0usize => _, end = in(reg) 4 * n,);
            } else {
                hw_ftz_loop!("vaddps", "{c}", "{c}", "{c}", "{c}", s = in(reg) s,
                    a = in(reg) pa, c = in(ymm_reg) c, d = in(reg) pd,
                    i = inout(reg) 0usize => _, end = in(reg) 4 * n,);
            }
        }
    }

    /// The rows of an [`super::aligned_f32`] call: channel `ch` of batch `i` of an operand
    /// starts on lane `(start + ch) % NPU`, slot `(start + ch) / NPU`, at byte
    /// `offset + 4 * (i * ns + slot * cs)` of that lane; each is one row of `hw < 64` elements.
    /// `ops` are dst, src and (when `has_b`) src1.
    ///
    /// # Safety
    ///
    /// The host has AVX2 and every operand's footprint lies inside its lanes of the store at
    /// `base` (lanes `pitch` bytes apart).
    #[target_feature(enable = "avx2")]
    #[allow(clippy::too_many_arguments)]
    pub(super) unsafe fn aligned_rows<E: Fn(f32, f32) -> f32>(
        base: *mut u8,
        pitch: usize,
        f: BinOp,
        g: &super::AlignedGeometry,
        ops: [AlignedPlace; 3],
        has_b: bool,
        c: f32,
        exact: &E,
    ) {
        // One instantiation per operation and operand form: the operation is then a constant
        // of the row loop (no test per vector).
        // SAFETY: (each arm) as this function's contract.
        unsafe {
            match (f, has_b) {
                (BinOp::Sub, true) => aligned_rows_of::<E, 1, true>(base, pitch, g, ops, c, exact),
                (BinOp::Sub, false) => {
                    aligned_rows_of::<E, 1, false>(base, pitch, g, ops, c, exact)
                }
                (BinOp::Mul, true) => aligned_rows_of::<E, 2, true>(base, pitch, g, ops, c, exact),
                (BinOp::Mul, false) => {
                    aligned_rows_of::<E, 2, false>(base, pitch, g, ops, c, exact)
                }
                (_, true) => aligned_rows_of::<E, 0, true>(base, pitch, g, ops, c, exact),
                (_, false) => aligned_rows_of::<E, 0, false>(base, pitch, g, ops, c, exact),
            }
        }
    }

    /// [`aligned_rows`] for one operation (`OP`: 0 add, 1 sub, 2 mul) and operand form (`B`:
    /// a second tensor, or the scalar).
    ///
    /// # Safety
    ///
    /// As [`aligned_rows`].
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn aligned_rows_of<E: Fn(f32, f32) -> f32, const OP: u8, const B: bool>(
        base: *mut u8,
        pitch: usize,
        g: &super::AlignedGeometry,
        ops: [AlignedPlace; 3],
        c: f32,
        exact: &E,
    ) {
        let f = match OP {
            1 => BinOp::Sub,
            2 => BinOp::Mul,
            _ => BinOp::Add,
        };
        let has_b = B;
        let k = Kernel::new(f, g.hw as usize, c, exact);
        let (npu, cs_bytes) = (g.lane_mask as usize + 1, (g.cs as usize) << 2);
        // Byte index of channel 0 of batch `i`, and its lane.
        let first = |o: &AlignedPlace, i: usize| {
            let lane = o.start as usize & (npu - 1);
            let idx = lane * pitch + o.offset as usize + ((i * o.ns as usize) << 2);
            (idx, lane)
        };
        // From one channel to the next: the next lane, or lane 0 of the next slot.
        let step = |(idx, lane): (usize, usize)| {
            if lane + 1 == npu {
                (idx + cs_bytes - (npu - 1) * pitch, 0)
            } else {
                (idx + pitch, lane + 1)
            }
        };
        let [od, oa, ob] = ops;
        // SAFETY: every channel's row lies inside the operand's footprint, inside the store
        // (this function's contract).
        let at = |idx: usize| unsafe { base.add(idx) }.cast::<f32>();
        for i in 0..g.n as usize {
            let (mut cd, mut ca, mut cb) = (first(&od, i), first(&oa, i), first(&ob, i));
            for _ in 0..g.c {
                let pb = has_b.then(|| at(cb.0).cast_const());
                // SAFETY: the row's `hw` elements lie inside the store (the contract).
                unsafe { row_loop!(k, at(cd.0), at(ca.0).cast_const(), pb, 0) };
                cd = step(cd);
                ca = step(ca);
                cb = step(cb);
            }
        }
    }

    /// The rows of the call ([`super::f32_rows`]).
    ///
    /// # Safety
    ///
    /// The host has AVX2, every view has 4-byte elements and unit w strides, and every row of
    /// every view lies inside `store` (`store_bound() <= store.len()`).
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn rows<E: Fn(f32, f32) -> f32>(
        store: &mut [u8],
        f: BinOp,
        d: &LocalView,
        a: &LocalView,
        b: Option<&LocalView>,
        c: f32,
        exact: &E,
    ) {
        // Channels whose rows follow each other (h stride = w on every operand) run as one
        // row of H*W elements.
        let sw = d.shape.w;
        let merge = d.stride.h == sw && a.stride.h == sw && b.is_none_or(|b| b.stride.h == sw);
        let mut walk = d.shape;
        if merge {
            walk.w = d.shape.h * d.shape.w;
            walk.h = 1;
        }
        let k = Kernel::new(f, walk.w as usize, c, exact);
        let base = store.as_mut_ptr();
        if k.hw > 0 {
            // SAFETY: as this function's.
            unsafe { each_row::<E, true>(&k, base, d, a, b, merge, walk) };
            return;
        }
        // Short rows: the same loop written out here, each row's loop expanded in place
        // (`row_loop!`; through `Kernel::row` it stayed a call, an `_C` (1,64,1,16) call
        // 445 ns against 371-385 ns).
        // SAFETY: (the pointer offsets below) every row start lies inside `store`, this
        // function's contract.
        let at = |i: usize| unsafe { base.add(i) }.cast::<f32>();
        let (nn, cc, hh) = (walk.n as usize, walk.c as usize, walk.h as usize);
        for n in 0..nn {
            if merge {
                // One row per channel: cursors step from lane to lane with one add.
                let (mut cd, mut ca) = (d.channels(n), a.channels(n));
                let mut cb = b.map(|b| b.channels(n));
                for _ in 0..cc {
                    let pb = cb.map(|cb| at(cb.at).cast_const());
                    // SAFETY: the row's `w` elements lie inside `store` (the contract).
                    unsafe { row_loop!(k, at(cd.at), at(ca.at).cast_const(), pb, 0) };
                    cd.advance();
                    ca.advance();
                    if let Some(cb) = cb.as_mut() {
                        cb.advance();
                    }
                }
                continue;
            }
            for ch in 0..cc {
                for h in 0..hh {
                    let pb = b.map(|b| at(b.row(n, ch, h)).cast_const());
                    // SAFETY: the row's `w` elements lie inside `store` (the contract).
                    unsafe {
                        row_loop!(
                            k,
                            at(d.row(n, ch, h)),
                            at(a.row(n, ch, h)).cast_const(),
                            pb,
                            0
                        )
                    };
                }
            }
        }
    }

    /// The row loop of [`rows`] (`HW`: see [`Kernel::row_hw`]).
    ///
    /// # Safety
    ///
    /// As [`rows`] (`base` the store's start, `walk` the shape walked, `merge` whether a
    /// channel is one row).
    #[inline(never)]
    #[target_feature(enable = "avx2")]
    #[allow(clippy::too_many_arguments)]
    unsafe fn each_row<E: Fn(f32, f32) -> f32, const HW: bool>(
        k: &Kernel<'_, E>,
        base: *mut u8,
        d: &LocalView,
        a: &LocalView,
        b: Option<&LocalView>,
        merge: bool,
        walk: crate::local::Dim4,
    ) {
        // SAFETY: (the pointer offsets below) every row start lies inside `store`, this
        // function's contract.
        let at = |i: usize| unsafe { base.add(i) }.cast::<f32>();
        let (nn, cc, hh) = (walk.n as usize, walk.c as usize, walk.h as usize);
        for n in 0..nn {
            if merge {
                // One row per channel: cursors step from lane to lane with one add.
                let (mut cd, mut ca) = (d.channels(n), a.channels(n));
                let mut cb = b.map(|b| b.channels(n));
                for _ in 0..cc {
                    let pb = cb.map(|cb| at(cb.at).cast_const());
                    // SAFETY: the row's `w` elements lie inside `store` (the contract).
                    unsafe { k.row_hw::<HW>(at(cd.at), at(ca.at).cast_const(), pb) };
                    cd.advance();
                    ca.advance();
                    if let Some(cb) = cb.as_mut() {
                        cb.advance();
                    }
                }
                continue;
            }
            for ch in 0..cc {
                for h in 0..hh {
                    let pb = b.map(|b| at(b.row(n, ch, h)).cast_const());
                    // SAFETY: the row's `w` elements lie inside `store` (the contract).
                    unsafe {
                        k.row_hw::<HW>(at(d.row(n, ch, h)), at(a.row(n, ch, h)).cast_const(), pb)
                    };
                }
            }
        }
    }
}
