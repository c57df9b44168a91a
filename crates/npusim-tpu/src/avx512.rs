//! AVX-512 small-call paths (issue #16, acceptance 4: at least 100x the C-model per call on
//! small tensors, which on a quiet host means 10-25 ns per call): GDMA copies with default
//! strides ([`small_copy`]), and the most common BDC float calls, `tpu_bdc_fp_add/sub/mul`
//! and their `_C` forms on f32 ([`small_f32`]) and on f16 / bf16 ([`small_half`]), every operand in the aligned layout (NULL
//! strides), channels of fewer than 64 elements, under the flush-to-zero policy
//! ([`crate::chip::BdcDenormals::FlushToZero`]).
//!
//! The element function is `crate::bdc`'s, `fz(fz(a) op fz(b))` with a NaN result recomputed by
//! the scalar `exact` function (the x86 NaN rule, which the compiler may not keep for a
//! commuted vector add). A channel's row of `h * w < 64` elements is at most four 16-lane
//! vectors, the last one masked: no tail loop, no row slicing. The flush is `vfpclassps`
//! (denormal class) and a masked `and` with the sign bit.
//!
//! The layout checks are `crate::local::aligned_place`'s (EU alignment, range, footprint inside
//! the lane), one pass for the three operands, no [`crate::local::LocalView`]s; a source must be
//! the destination itself (same lane and offset: each vector is loaded before it is stored
//! over) or apart from it inside every lane. Anything else returns `false` and runs through the
//! checked path of `crate::bdc`, which names any error. Each chip's profile is a constant of its
//! own instantiation (the checks are shifts and masks by constants), and so are the operation
//! and the operand form: a call is one function with no call inside but the cold NaN fix.
//!
//! Its scalar twin is the generic driver of `crate::bdc` (the same call with its aligned strides
//! written out goes there): `tests/bdc.rs` `aligned_small_calls_equal_strided_calls` holds the
//! two equal for every host SIMD level ([`crate::HostSimd`]).
//!
//! The element-wise calls of `crate::bdc_elem::map_elems` (integer arithmetic, compares,
//! selects, bitwise) have the same kind of path on the BM1684X ([`small_elem`]): the element
//! function applied to the 16 lanes of a vector (the compiler vectorises it), the element width
//! a constant of the instantiation, rows of one vector taken four channels at a time (their
//! loads before their stores). Its twins are the checked paths over views: the
//! `aligned_small_*_calls_equal_strided_calls` tests of `tests/bdc_int.rs` and
//! `tests/bdc_logic.rs`, and `aligned_selects_equal_view_path` in `crate::bdc_logic`.

use crate::bdc::BinOp;
use crate::bdc_elem::Aligned;
use crate::chip::TpuChip;
use crate::local::{Dim4, LocalAddr};

/// The operands of one call.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
struct Call {
    dst: LocalAddr,
    a: LocalAddr,
    /// `a` again for the `_C` forms.
    b: LocalAddr,
    shape: Dim4,
    c: f32,
}

impl Call {
    /// The operands of a call and the base of `store`, or `None` when the store does not hold
    /// every lane of `chip` (not yet allocated).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    #[inline(always)]
    fn new(
        store: &mut [u8],
        chip: TpuChip,
        dst: LocalAddr,
        a: LocalAddr,
        b: Option<LocalAddr>,
        shape: &Dim4,
        c: f32,
    ) -> Option<(*mut u8, Call)> {
        ((store.len() as u64) >= chip.local().store_size()).then(|| {
            let call = Call {
                dst,
                a,
                b: b.unwrap_or(a),
                shape: *shape,
                c,
            };
            (store.as_mut_ptr(), call)
        })
    }
}

/// The small-call path (see the module docs); `false` (nothing written) when the call is not
/// one it takes. The caller has checked the dtype (f32), the op (add, sub, mul), the dims
/// (`1..=65535`, the work bound) and the flush policy.
///
/// # Safety
///
/// The host has AVX-512 F, DQ and VL ([`crate::HostSimd::Avx512`]).
#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) unsafe fn small_f32<E: Fn(f32, f32) -> f32>(
    store: &mut [u8],
    chip: TpuChip,
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
        let Some((base, call)) = Call::new(store, chip, dst, a, b, shape, c) else {
            return false;
        };
        macro_rules! go {
            ($($chip:ident => $k:literal),*) => {
                match (chip, f, b.is_some()) {
                    $(
                        (TpuChip::$chip, BinOp::Sub, true) => x86::call::<E, $k, 1, true>(base, &call, exact),
                        (TpuChip::$chip, BinOp::Sub, false) => x86::call::<E, $k, 1, false>(base, &call, exact),
                        (TpuChip::$chip, BinOp::Mul, true) => x86::call::<E, $k, 2, true>(base, &call, exact),
                        (TpuChip::$chip, BinOp::Mul, false) => x86::call::<E, $k, 2, false>(base, &call, exact),
                        (TpuChip::$chip, _, true) => x86::call::<E, $k, 0, true>(base, &call, exact),
                        (TpuChip::$chip, _, false) => x86::call::<E, $k, 0, false>(base, &call, exact),
                    )*
                }
            };
        }
        // SAFETY: the host has AVX-512 F/DQ/VL (this function's contract) and the store holds
        // every lane of the chip (`store_size`, checked above).
        unsafe { go!(Bm1684x => 0, Bm1688 => 1) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (store, chip, f, dst, a, b, shape, c, exact);
        false
    }
}

/// The small-call path of `tpu_gdma_cpy_S2L` (`to_local`) and `_L2S` with NULL strides: the
/// local tensor at `addr` in the aligned layout with slots counted from lane 0 (GDMA's default
/// local stride), the system tensor contiguous at `sys`; rows of at most 256 bytes, each copied
/// in 64-byte vectors, the last one masked (no `memcpy` call, no tail loop). `false` (nothing copied) when the local tensor fails a
/// check of `crate::local::aligned_place` (the checked path names the error) or its rows are
/// longer. The caller has checked the dims (`1..=65535`, the work bound), the element size
/// (`1 << shift` bytes, 8 to 32 bits) and the element alignment of both addresses.
///
/// # Safety
///
/// The host has AVX-512 F and BW ([`crate::HostSimd::Avx512`]); `sys` is valid for the
/// tensor's `n * c * h * w << shift` bytes (read for S2L, written for L2S) and does not meet
/// `store`.
#[inline]
pub(crate) unsafe fn small_copy(
    store: &mut [u8],
    chip: TpuChip,
    sys: *mut u8,
    to_local: bool,
    addr: LocalAddr,
    shape: &Dim4,
    shift: u32,
) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        if (store.len() as u64) < chip.local().store_size() {
            return false;
        }
        let base = store.as_mut_ptr();
        // SAFETY: this function's contract; the store holds every lane of the chip (above).
        unsafe {
            match (chip, to_local) {
                (TpuChip::Bm1684x, true) => x86::copy::<0, true>(base, sys, addr, shape, shift),
                (TpuChip::Bm1684x, false) => x86::copy::<0, false>(base, sys, addr, shape, shift),
                (TpuChip::Bm1688, true) => x86::copy::<1, true>(base, sys, addr, shape, shift),
                (TpuChip::Bm1688, false) => x86::copy::<1, false>(base, sys, addr, shape, shift),
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (store, chip, sys, to_local, addr, shape, shift);
        false
    }
}

/// The small-call path of `tpu_bdc_fp_add/sub/mul` and their `_C` forms on f16 (`bf` false) and
/// bf16 (`bf`), every operand in the aligned layout, channels of fewer than 64 elements
/// (`x86::call_half`); `false` (nothing written) when the call is not one it takes. `c` is the
/// scalar operand widened to f32 (bf16: flushed). The caller has checked the op, the dims and
/// that the profile's flush policy is the C-model's (flush bf16, keep f16 denormals).
///
/// # Safety
///
/// The host has AVX-512 F, DQ, VL and BW ([`crate::HostSimd::Avx512`]).
#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) unsafe fn small_half(
    store: &mut [u8],
    chip: TpuChip,
    f: BinOp,
    bf: bool,
    dst: LocalAddr,
    a: LocalAddr,
    b: Option<LocalAddr>,
    shape: &Dim4,
    c: f32,
) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        let Some((base, call)) = Call::new(store, chip, dst, a, b, shape, c) else {
            return false;
        };
        let op = match f {
            BinOp::Sub => 1,
            BinOp::Mul => 2,
            _ => 0,
        };
        macro_rules! go {
            ($(($chip:ident, $k:literal, $op:literal, $b:literal, $bf:literal)),*) => {
                match (chip, op, b.is_some(), bf) {
                    $((TpuChip::$chip, $op, $b, $bf) => x86::call_half::<$k, $op, $b, $bf>(base, &call),)*
                    _ => false,
                }
            };
        }
        // SAFETY: the host has AVX-512 F/DQ/VL/BW (this function's contract) and the store
        // holds every lane of the chip (`store_size`, checked above).
        unsafe {
            go!(
                (Bm1684x, 0, 0, true, false),
                (Bm1684x, 0, 1, true, false),
                (Bm1684x, 0, 2, true, false),
                (Bm1684x, 0, 0, false, false),
                (Bm1684x, 0, 1, false, false),
                (Bm1684x, 0, 2, false, false),
                (Bm1684x, 0, 0, true, true),
                (Bm1684x, 0, 1, true, true),
                (Bm1684x, 0, 2, true, true),
                (Bm1684x, 0, 0, false, true),
                (Bm1684x, 0, 1, false, true),
                (Bm1684x, 0, 2, false, true),
                (Bm1688, 1, 0, true, false),
                (Bm1688, 1, 1, true, false),
                (Bm1688, 1, 2, true, false),
                (Bm1688, 1, 0, false, false),
                (Bm1688, 1, 1, false, false),
                (Bm1688, 1, 2, false, false),
                (Bm1688, 1, 0, true, true),
                (Bm1688, 1, 1, true, true),
                (Bm1688, 1, 2, true, true),
                (Bm1688, 1, 0, false, true),
                (Bm1688, 1, 1, false, true),
                (Bm1688, 1, 2, false, true)
            )
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (store, chip, f, bf, dst, a, b, shape, c);
        false
    }
}

/// The small-call path of the element-wise calls of `crate::bdc_elem::map_elems` (integer
/// arithmetic, compares, selects, bitwise): every tensor operand in the aligned layout with
/// NULL strides, one element width (`1 << shift` bytes, 8 to 32 bits), each address a
/// multiple of `align`. `dst = f([s0, s1, ...])` per element, on words as `map_elems` reads
/// them (a tensor's element zero-extended, a scalar's full 32 bits) and its low `1 << shift`
/// bytes written; 16 elements per vector, `f` applied lane by lane over the vector's words
/// (the compiler vectorises it with AVX-512). `false` (nothing written) when the call is not
/// one it takes; the same checks as `crate::bdc_elem::AlignedCall::new`. The caller has
/// checked the dims (`1..=65535`, the work bound) and everything its checked path checks
/// before the layout. Instantiated for the BM1684X only (`false` on other chips).
///
/// # Safety
///
/// The host has AVX-512 F, DQ, VL and BW ([`crate::HostSimd::Avx512`]).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) unsafe fn small_elem<const N: usize, F: Fn([u32; N]) -> u32 + Copy>(
    store: &mut [u8],
    chip: TpuChip,
    shape: &Dim4,
    shift: u32,
    align: u32,
    dst: LocalAddr,
    srcs: [Aligned; N],
    f: F,
) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        if (store.len() as u64) < chip.local().store_size() || shift > 2 {
            return false;
        }
        let base = store.as_mut_ptr();
        // SAFETY: this function's contract; the store holds every lane of the chip (above).
        unsafe {
            // The BM1684X only (`crate::bdc_elem::run_small` sends no other chip).
            match (chip, shift) {
                (TpuChip::Bm1684x, 0) => x86::elem::<0, N, 0, F>(base, shape, align, dst, srcs, f),
                (TpuChip::Bm1684x, 1) => x86::elem::<0, N, 1, F>(base, shape, align, dst, srcs, f),
                (TpuChip::Bm1684x, _) => x86::elem::<0, N, 2, F>(base, shape, align, dst, srcs, f),
                _ => false,
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (store, chip, shape, shift, align, dst, srcs, f);
        false
    }
}

/// Copies `len` bytes in 64-byte vectors, the last one masked (`x86::copy_bytes`; also the
/// moves of `crate::bdc_data`).
#[cfg(target_arch = "x86_64")]
pub(crate) use x86::copy_bytes;

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    use super::Call;
    use crate::bdc_elem::Aligned;
    use crate::chip::{LocalProfile, TpuChip};
    use crate::local::Dim4;
    use crate::local::{AlignedPlace, aligned_place, one_batch_place};

    /// The chips by the index of [`call`]'s `CHIP`.
    const CHIPS: [TpuChip; 2] = [TpuChip::Bm1684x, TpuChip::Bm1688];

    /// Copies `len` bytes from `src` to `dst` in 64-byte vectors, the last one masked.
    ///
    /// # Safety
    ///
    /// The host has AVX-512 F and BW; `len` bytes after each pointer are valid and the two
    /// ranges are the same or do not meet.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    pub(crate) unsafe fn copy_bytes(dst: *mut u8, src: *const u8, len: usize) {
        let mut k = 0;
        // SAFETY: every access is inside the `len` bytes after each pointer (the contract);
        // the masked ones touch only the live bytes.
        unsafe {
            while k + 64 <= len {
                let v = _mm512_loadu_si512(src.add(k).cast());
                _mm512_storeu_si512(dst.add(k).cast(), v);
                k += 64;
            }
            if k < len {
                let m: __mmask64 = u64::MAX >> (64 - (len - k));
                let v = _mm512_maskz_loadu_epi8(m, src.add(k).cast());
                _mm512_mask_storeu_epi8(dst.add(k).cast(), m, v);
            }
        }
    }

    /// [`super::small_copy`] on chip `CHIPS[CHIP]`, S2L when `TO_LOCAL`.
    ///
    /// # Safety
    ///
    /// As [`super::small_copy`]; `base` is a store holding every lane of the chip.
    #[target_feature(enable = "avx512f,avx512bw")]
    pub(super) unsafe fn copy<const CHIP: usize, const TO_LOCAL: bool>(
        base: *mut u8,
        sys: *mut u8,
        addr: u32,
        shape: &crate::local::Dim4,
        shift: u32,
    ) -> bool {
        let p: LocalProfile = const { CHIPS[CHIP].local() };
        let Some(o) = aligned_place(&p, addr, shape, shift, 1, true) else {
            return false;
        };
        let row = (shape.h as usize * shape.w as usize) << shift;
        if row > 256 {
            return false;
        }
        let (n, c) = (shape.n as usize, shape.c as usize);
        let npu = p.npu_num as usize;
        let pitch = p.store_pitch() as usize;
        let first = o.start as usize * pitch + o.offset as usize;
        let (ns_bytes, cs_bytes) = ((o.ns as usize) << shift, (o.cs as usize) << shift);
        // SAFETY: every local row lies inside the store (`aligned_place`: the footprint is
        // inside the lanes, and the store holds every lane), every system row inside `sys`'s
        // `n * c * row` bytes (the contract); the two do not meet.
        let mv = |local: usize, k: usize| unsafe {
            if TO_LOCAL {
                copy_bytes(base.add(local), sys.add(k * row), row)
            } else {
                copy_bytes(sys.add(k * row), base.add(local), row)
            }
        };
        if n == 1 && o.start as usize + c <= npu {
            // One batch, no channel past the last lane.
            for ch in 0..c {
                mv(first + ch * pitch, ch);
            }
            return true;
        }
        for i in 0..n {
            let (mut at, mut lane) = (first + i * ns_bytes, o.start as usize);
            for ch in 0..c {
                mv(at, i * c + ch);
                if lane + 1 == npu {
                    (at, lane) = (at + cs_bytes - (npu - 1) * pitch, 0);
                } else {
                    (at, lane) = (at + pitch, lane + 1);
                }
            }
        }
        true
    }

    /// A denormal lane as a zero of its sign.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    fn ftz(v: __m512, sign: __m512) -> __m512 {
        // Class 0x20: denormal.
        let m = _mm512_fpclass_ps_mask::<0x20>(v);
        _mm512_mask_and_ps(v, m, v, sign)
    }

    /// The lanes of `r` in `nan` computed again by `exact`.
    #[cold]
    #[inline(never)]
    #[target_feature(enable = "avx512f")]
    fn fix<E: Fn(f32, f32) -> f32>(
        x: __m512,
        y: __m512,
        r: __m512,
        nan: __mmask16,
        exact: &E,
    ) -> __m512 {
        let (mut xs, mut ys, mut rs) = ([0f32; 16], [0f32; 16], [0f32; 16]);
        // SAFETY: unaligned stores of three registers into local arrays of 16 f32.
        unsafe {
            _mm512_storeu_ps(xs.as_mut_ptr(), x);
            _mm512_storeu_ps(ys.as_mut_ptr(), y);
            _mm512_storeu_ps(rs.as_mut_ptr(), r);
        }
        for k in 0..16 {
            if nan & (1 << k) != 0 {
                rs[k] = exact(xs[k], ys[k]);
            }
        }
        // SAFETY: an unaligned load of a local array of 16 f32.
        unsafe { _mm512_loadu_ps(rs.as_ptr()) }
    }

    /// One row of `hw` elements: `vecs` vectors of 16, the last one's live lanes `last`.
    ///
    /// # Safety
    ///
    /// As [`call`]; the row's elements lie inside the store.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn row<E: Fn(f32, f32) -> f32, const OP: u8, const B: bool>(
        pd: *mut f32,
        pa: *const f32,
        pb: *const f32,
        vecs: usize,
        last: __mmask16,
        cv: __m512,
        sign: __m512,
        exact: &E,
    ) {
        // SAFETY: the row's elements lie inside the store (the contract); the masked loads and
        // stores touch only the live lanes.
        unsafe {
            for v in 0..vecs {
                let m = if v + 1 == vecs { last } else { 0xffff };
                let x = _mm512_maskz_loadu_ps(m, pa.add(16 * v));
                let y = if B {
                    _mm512_maskz_loadu_ps(m, pb.add(16 * v))
                } else {
                    cv
                };
                let (fx, fy) = (ftz(x, sign), ftz(y, sign));
                let r = match OP {
                    1 => _mm512_sub_ps(fx, fy),
                    2 => _mm512_mul_ps(fx, fy),
                    _ => _mm512_add_ps(fx, fy),
                };
                let mut r = ftz(r, sign);
                let nan = _mm512_mask_cmp_ps_mask::<_CMP_UNORD_Q>(m, r, r);
                if nan != 0 {
                    r = fix(x, y, r, nan, exact);
                }
                _mm512_mask_storeu_ps(pd.add(16 * v), m, r);
            }
        }
    }

    /// The three operands' places on chip profile `p` (elements of `1 << shift` bytes) when the
    /// call is one the small-call paths take: every operand EU-aligned, in range, its footprint
    /// inside its lanes (`aligned_place`); each source the destination itself or apart from it
    /// inside every lane; rows (`h * w`) of fewer than 64 elements. `B`: a second tensor (else
    /// `x.b` is `x.a`).
    #[inline(always)]
    fn places<const B: bool>(p: &LocalProfile, x: &Call, shift: u32) -> Option<[AlignedPlace; 3]> {
        let shape = &x.shape;
        if shape.h as usize * shape.w as usize >= 64 {
            return None;
        }
        let place = |addr| aligned_place(p, addr, shape, shift, p.eu_bytes, false);
        let od = place(x.dst)?;
        let oa = place(x.a)?;
        let ob = if B { place(x.b)? } else { oa };
        // A source is the destination itself or apart from it inside every lane.
        let apart = |o: &AlignedPlace| {
            (o.start == od.start && o.offset == od.offset)
                || o.end <= u64::from(od.offset)
                || od.end <= u64::from(o.offset)
        };
        (apart(&oa) && (!B || apart(&ob))).then_some([od, oa, ob])
    }

    /// Runs `row(dst, src0, src1)` (byte indices in the store) on every channel row of the
    /// call: channel `ch` of batch `i` of an operand starts on lane `(start + ch) % NPU`, slot
    /// `(start + ch) / NPU`, at byte `offset + (i * ns + slot * cs) << shift` of that lane.
    #[inline(always)]
    fn walk(
        p: &LocalProfile,
        x: &Call,
        [od, oa, ob]: [AlignedPlace; 3],
        shift: u32,
        mut row: impl FnMut(usize, usize, usize),
    ) {
        let npu = p.npu_num as usize;
        let pitch = p.store_pitch() as usize;
        let first = |o: &AlignedPlace| o.start as usize * pitch + o.offset as usize;
        let (n, c) = (x.shape.n as usize, x.shape.c as usize);
        // The common case: one batch, no channel past the last lane (channel `ch` at `ch`
        // pitches from channel 0 in every operand).
        let top = od.start.max(oa.start).max(ob.start) as usize;
        if n == 1 && top + c <= npu {
            let (d0, a0, b0) = (first(&od), first(&oa), first(&ob));
            for ch in 0..c {
                let k = ch * pitch;
                row(d0 + k, a0 + k, b0 + k);
            }
            return;
        }
        // From one channel to the next: the next lane, or lane 0 of the next slot.
        let cs_bytes = (od.cs as usize) << shift;
        let step = |(idx, lane): (usize, usize)| {
            if lane + 1 == npu {
                (idx + cs_bytes - (npu - 1) * pitch, 0)
            } else {
                (idx + pitch, lane + 1)
            }
        };
        let batch = |o: &AlignedPlace, i: usize| {
            (first(o) + ((i * o.ns as usize) << shift), o.start as usize)
        };
        for i in 0..n {
            let (mut cd, mut ca, mut cb) = (batch(&od, i), batch(&oa, i), batch(&ob, i));
            for _ in 0..c {
                row(cd.0, ca.0, cb.0);
                cd = step(cd);
                ca = step(ca);
                cb = step(cb);
            }
        }
    }

    /// One f32 call on chip `CHIPS[CHIP]`, `OP` 0 add, 1 sub, 2 mul, `B` a second tensor (else
    /// the scalar): the layout checks, then the rows. The checks and the walk are those of
    /// [`places`] and [`walk`], written out here: through them (the row a closure) a tensor
    /// `fp_add` was slower, (1,4,1,16) 28 ns against 25, (1,64,1,16) 243 ns against 196-207.
    ///
    /// # Safety
    ///
    /// The host has AVX-512 F/DQ/VL and `base` is a store holding every lane of the chip.
    #[target_feature(enable = "avx512f,avx512dq,avx512vl")]
    pub(super) unsafe fn call<
        E: Fn(f32, f32) -> f32,
        const CHIP: usize,
        const OP: u8,
        const B: bool,
    >(
        base: *mut u8,
        x: &Call,
        exact: &E,
    ) -> bool {
        let p: LocalProfile = const { CHIPS[CHIP].local() };
        let shape = &x.shape;
        let hw = shape.h as usize * shape.w as usize;
        if hw >= 64 {
            return false;
        }
        let sign = _mm512_castsi512_ps(_mm512_set1_epi32(i32::MIN));
        let cv = _mm512_set1_ps(x.c);
        // Vectors per row, the last one's live lanes.
        let vecs = hw.div_ceil(16);
        let last: __mmask16 = (u32::MAX >> (32 - (hw - 16 * (vecs - 1)))) as u16;
        let pitch = p.store_pitch() as usize;
        let at = |idx: usize| base.wrapping_add(idx).cast::<f32>();
        let c = shape.c as usize;
        // The common case: one batch, no channel past the last lane (channel `ch` at `ch`
        // pitches from channel 0 in every operand).
        if shape.n == 1 {
            let srcs = [Aligned::Tensor(x.a), Aligned::Tensor(x.b)];
            if let Some((d0, [a0, b0], _)) =
                one_batch::<CHIP, 2, 2>(shape, hw, p.eu_bytes, x.dst, &srcs)
            {
                for ch in 0..c {
                    let k = ch * pitch;
                    // SAFETY: channel `ch`'s row lies inside the store (the contract and
                    // `one_batch`).
                    unsafe {
                        row::<E, OP, B>(
                            at(d0 + k),
                            at(a0 + k),
                            at(b0 + k),
                            vecs,
                            last,
                            cv,
                            sign,
                            exact,
                        )
                    };
                }
                return true;
            }
        }
        let place = |addr| aligned_place(&p, addr, shape, 2, p.eu_bytes, false);
        let (Some(od), Some(oa)) = (place(x.dst), place(x.a)) else {
            return false;
        };
        let ob = if B { place(x.b) } else { Some(oa) };
        let Some(ob) = ob else {
            return false;
        };
        // A source is the destination itself or apart from it inside every lane.
        let apart = |o: &AlignedPlace| {
            (o.start == od.start && o.offset == od.offset)
                || o.end <= u64::from(od.offset)
                || od.end <= u64::from(o.offset)
        };
        if !apart(&oa) || (B && !apart(&ob)) {
            return false;
        }
        // Past `one_batch`: several batches, or channels past the last lane.
        let npu = p.npu_num as usize;
        let first = |o: &AlignedPlace| o.start as usize * pitch + o.offset as usize;
        let n = shape.n as usize;
        // From one channel to the next: the next lane, or lane 0 of the next slot.
        let cs_bytes = (od.cs as usize) << 2;
        let step = |(idx, lane): (usize, usize)| {
            if lane + 1 == npu {
                (idx + cs_bytes - (npu - 1) * pitch, 0)
            } else {
                (idx + pitch, lane + 1)
            }
        };
        let batch =
            |o: &AlignedPlace, i: usize| (first(o) + ((i * o.ns as usize) << 2), o.start as usize);
        for i in 0..n {
            let (mut cd, mut ca, mut cb) = (batch(&od, i), batch(&oa, i), batch(&ob, i));
            for _ in 0..c {
                // SAFETY: the channel's row lies inside the store (the contract and
                // `aligned_place`).
                unsafe {
                    row::<E, OP, B>(at(cd.0), at(ca.0), at(cb.0), vecs, last, cv, sign, exact)
                };
                cd = step(cd);
                ca = step(ca);
                cb = step(cb);
            }
        }
        true
    }

    /// One f16 (`BF` false) or bf16 (`BF`) call on chip `CHIPS[CHIP]`, `OP` and `B` as in
    /// [`call`]: the elements widened to f32 (exactly), the operation in f32, a NaN result
    /// written as `0x7fff`, any other rounded to the format to nearest even. bf16 flushes its
    /// inputs, the f32 result and (so) the rounded result; f16 keeps its denormals (an f32 sum
    /// or product of f16 values is never an f32 denormal). The scalar twin is `crate::bdc`'s
    /// generic driver (`Fmt for F16 / Bf16`).
    ///
    /// # Safety
    ///
    /// The host has AVX-512 F/DQ/VL/BW and `base` is a store holding every lane of the chip.
    #[target_feature(enable = "avx512f,avx512dq,avx512vl,avx512bw")]
    pub(super) unsafe fn call_half<
        const CHIP: usize,
        const OP: u8,
        const B: bool,
        const BF: bool,
    >(
        base: *mut u8,
        x: &Call,
    ) -> bool {
        let p: LocalProfile = const { CHIPS[CHIP].local() };
        let Some(ops) = places::<B>(&p, x, 1) else {
            return false;
        };
        let sign = _mm512_castsi512_ps(_mm512_set1_epi32(i32::MIN));
        let cv = _mm512_set1_ps(x.c);
        let nan16 = _mm256_set1_epi16(0x7fff);
        let hw = x.shape.h as usize * x.shape.w as usize;
        let vecs = hw.div_ceil(16);
        let last: __mmask16 = (u32::MAX >> (32 - (hw - 16 * (vecs - 1)))) as u16;
        let widen = |h: __m256i| {
            if BF {
                _mm512_castsi512_ps(_mm512_slli_epi32::<16>(_mm512_cvtepu16_epi32(h)))
            } else {
                _mm512_cvtph_ps(h)
            }
        };
        let at = |idx: usize| base.wrapping_add(idx).cast::<u16>();
        walk(&p, x, ops, 1, |d, a, b| {
            let (pd, pa, pb) = (at(d), at(a), at(b));
            for v in 0..vecs {
                let m = if v + 1 == vecs { last } else { 0xffff };
                // SAFETY: the row lies inside the store (the contract and `aligned_place`); the
                // masked loads and stores touch only the live lanes.
                unsafe {
                    let xv = widen(_mm256_maskz_loadu_epi16(m, pa.add(16 * v).cast()));
                    let yv = if B {
                        widen(_mm256_maskz_loadu_epi16(m, pb.add(16 * v).cast()))
                    } else {
                        cv
                    };
                    let (xv, yv) = if BF {
                        (ftz(xv, sign), ftz(yv, sign))
                    } else {
                        (xv, yv)
                    };
                    let r = match OP {
                        1 => _mm512_sub_ps(xv, yv),
                        2 => _mm512_mul_ps(xv, yv),
                        _ => _mm512_add_ps(xv, yv),
                    };
                    let nan = _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(r, r);
                    let h = if BF {
                        // Round to nearest even on the bits: add 0x7fff plus the lowest kept
                        // bit, keep the high half (a carry into the exponent is the rounding
                        // up, to infinity past the largest finite value).
                        let bits = _mm512_castps_si512(ftz(r, sign));
                        let odd =
                            _mm512_and_si512(_mm512_srli_epi32::<16>(bits), _mm512_set1_epi32(1));
                        let up = _mm512_add_epi32(
                            bits,
                            _mm512_add_epi32(odd, _mm512_set1_epi32(0x7fff)),
                        );
                        _mm512_cvtepi32_epi16(_mm512_srli_epi32::<16>(up))
                    } else {
                        _mm512_cvtps_ph::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(r)
                    };
                    let h = _mm256_mask_mov_epi16(h, nan, nan16);
                    _mm256_mask_storeu_epi16(pd.add(16 * v).cast(), m, h);
                }
            }
        });
        true
    }

    /// The words of 16 elements of `1 << S` bytes at `p`, zero-extended (the lanes outside
    /// `m` zero).
    ///
    /// # Safety
    ///
    /// The host has AVX-512 F/VL/BW; the elements in `m` lie inside the store.
    #[inline(always)]
    unsafe fn load_words<const S: u32>(p: *const u8, m: __mmask16) -> __m512i {
        // SAFETY: the contract; masked loads touch only the lanes in `m`.
        unsafe {
            match S {
                0 => _mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(m, p.cast())),
                1 => _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, p.cast())),
                _ => _mm512_maskz_loadu_epi32(m, p.cast()),
            }
        }
    }

    /// Writes the low `1 << S` bytes of the words of `v` in `m` to the elements at `p`.
    ///
    /// # Safety
    ///
    /// As [`load_words`].
    #[inline(always)]
    unsafe fn store_words<const S: u32>(p: *mut u8, m: __mmask16, v: __m512i) {
        // SAFETY: the contract; masked stores touch only the lanes in `m`.
        unsafe {
            match S {
                0 => _mm512_mask_cvtepi32_storeu_epi8(p.cast(), m, v),
                1 => _mm512_mask_cvtepi32_storeu_epi16(p.cast(), m, v),
                _ => _mm512_mask_storeu_epi32(p.cast(), m, v),
            }
        }
    }

    /// How a source's words come from what is loaded at its row: `(loaded & keep) | put`. A
    /// tensor keeps every bit and puts none; a scalar keeps none and puts its word (its row is
    /// the destination's, loaded and dropped). No branch in the rows: a scalar taken from an
    /// `Option` in the loop made the compiler pass every source through the stack.
    #[derive(Clone, Copy)]
    struct Words {
        keep: __m512i,
        put: __m512i,
    }

    /// The [`Words`] of each source.
    #[inline(always)]
    fn words_of<const N: usize>(srcs: &[Aligned; N]) -> [Words; N] {
        // A plain loop, no closure: a closure here was compiled without the callers' target
        // features, each intrinsic a call (fp_add (1,1,1,8) 15 -> 34 ns).
        // SAFETY: AVX-512 F (the callers' target features).
        let (all, none) = unsafe { (_mm512_set1_epi32(-1), _mm512_setzero_si512()) };
        let mut w = [Words {
            keep: all,
            put: none,
        }; N];
        for k in 0..N {
            if let Aligned::Const(c) = srcs[k] {
                // SAFETY: as above.
                let put = unsafe { _mm512_set1_epi32(c as i32) };
                w[k] = Words { keep: none, put };
            }
        }
        w
    }

    /// The words of vector `v` of each source row: `at[k]` the byte index of source `k`'s row
    /// (a scalar's: the destination's), `words[k]` how its words are formed.
    ///
    /// # Safety
    ///
    /// As [`elem`]; each row lies inside the store.
    #[inline(always)]
    unsafe fn load_ins<const N: usize, const S: u32>(
        base: *mut u8,
        at: &[usize; N],
        words: &[Words; N],
        v: usize,
        m: __mmask16,
    ) -> [__m512i; N] {
        std::array::from_fn(|k| {
            // SAFETY: the row lies inside the store, the host has AVX-512 F (the contract).
            unsafe {
                let x = load_words::<S>(base.wrapping_add(at[k] + (v << (4 + S))), m);
                // `(x & keep) | put`.
                _mm512_ternarylogic_epi32::<0xEA>(x, words[k].keep, words[k].put)
            }
        })
    }

    /// `f` over the 16 lanes of the sources' words (the compiler vectorises the lanes).
    #[inline(always)]
    fn apply<const N: usize, F: Fn([u32; N]) -> u32>(ins: [__m512i; N], f: F) -> __m512i {
        let mut words = [[0u32; 16]; N];
        for (w, v) in words.iter_mut().zip(ins) {
            // SAFETY: a vector of 16 words as an array of 16 words.
            *w = unsafe { std::mem::transmute::<__m512i, [u32; 16]>(v) };
        }
        // A loop over the lanes (an `array::from_fn` here was not vectorised: 3x slower rows).
        let mut out = [0u32; 16];
        for (j, o) in out.iter_mut().enumerate() {
            *o = f(std::array::from_fn(|k| words[k][j]));
        }
        // SAFETY: an array of 16 words as a vector.
        unsafe { std::mem::transmute::<[u32; 16], __m512i>(out) }
    }

    /// One row of [`elem`] (`vecs` vectors, the last one's live lanes `last`): `at[k]` the byte
    /// index of source `k`'s row (a tensor's), `d` the destination's.
    ///
    /// # Safety
    ///
    /// As [`elem`]; each tensor row lies inside the store.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn elem_row<const N: usize, const S: u32, F: Fn([u32; N]) -> u32 + Copy>(
        base: *mut u8,
        d: usize,
        at: &[usize; N],
        words: &[Words; N],
        vecs: usize,
        last: __mmask16,
        f: F,
    ) {
        for v in 0..vecs {
            let m = if v + 1 == vecs { last } else { 0xffff };
            // SAFETY: the rows lie inside the store (the contract).
            unsafe {
                let r = apply(load_ins::<N, S>(base, at, words, v, m), f);
                store_words::<S>(base.wrapping_add(d + (v << (4 + S))), m, r);
            }
        }
    }

    /// The places of a one-batch call (`shape.n == 1`) whose operands' channels all lie below
    /// the last lane, checked as `aligned_place` checks them: every tensor address a multiple
    /// of `align`, its row (`hw` elements of `1 << S` bytes) inside its lane, its lane plus the
    /// channel count at most `NPU_NUM`, and each source the destination itself or apart from
    /// its row. Returns the store index of the destination's channel 0, the sources' (a
    /// scalar's: the destination's) and how each source's [`Words`] are formed; `None` sends
    /// the call to the general checks (which take the other shapes and decline the rest).
    #[inline(always)]
    fn one_batch<const CHIP: usize, const N: usize, const S: u32>(
        shape: &Dim4,
        hw: usize,
        align: u32,
        dst: u32,
        srcs: &[Aligned; N],
    ) -> Option<(usize, [usize; N], [Words; N])> {
        let p: LocalProfile = const { CHIPS[CHIP].local() };
        let bytes = hw << S;
        let c = shape.c as u32;
        let place = |addr: u32| one_batch_place(&p, addr, c, bytes, align);
        let pitch = p.store_pitch() as usize;
        let (ds, doff) = place(dst)?;
        let d0 = ds * pitch + doff;
        // A scalar's row is the destination's (loaded, not used).
        let mut at = [d0; N];
        for k in 0..N {
            match srcs[k] {
                Aligned::Const(_) => {}
                Aligned::Tensor(addr) => {
                    let (s, off) = place(addr)?;
                    if !(addr == dst || off + bytes <= doff || doff + bytes <= off) {
                        return None;
                    }
                    at[k] = s * pitch + off;
                }
            }
        }
        Some((d0, at, words_of(srcs)))
    }

    /// The rows of a one-batch call whose channels stay below the last lane: channel `ch` of
    /// every operand `ch` pitches from its channel 0 (`d0`, `at0`), `vecs` vectors per row, the
    /// last one's live lanes `last`.
    ///
    /// # Safety
    ///
    /// As [`elem`]; every operand's rows lie inside the store.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn rows_one_batch<const N: usize, const S: u32, F: Fn([u32; N]) -> u32 + Copy>(
        base: *mut u8,
        shape: &Dim4,
        pitch: usize,
        d0: usize,
        at0: [usize; N],
        words: &[Words; N],
        vecs: usize,
        last: __mmask16,
        f: F,
    ) {
        let c = shape.c as usize;
        let mut ch = 0;
        if vecs == 1 {
            // Rows of one vector, four channels at a time: the four channels' loads come
            // before their stores. Operands at offsets equal modulo 4 KiB (the lane pitch is a
            // multiple of it) made each channel's loads wait for the previous channel's store.
            while ch + 4 <= c {
                // Written out, not `array::map`s: those were compiled as a loop over the four
                // channels with the element function's flags tested in it.
                let at = |g: usize| at0.map(|a| a + (ch + g) * pitch);
                let dst = |g: usize| base.wrapping_add(d0 + (ch + g) * pitch);
                // SAFETY: channels `ch..ch + 4` lie inside the store (the contract).
                unsafe {
                    let i0 = load_ins::<N, S>(base, &at(0), words, 0, last);
                    let i1 = load_ins::<N, S>(base, &at(1), words, 0, last);
                    let i2 = load_ins::<N, S>(base, &at(2), words, 0, last);
                    let i3 = load_ins::<N, S>(base, &at(3), words, 0, last);
                    let (r0, r1, r2, r3) = (apply(i0, f), apply(i1, f), apply(i2, f), apply(i3, f));
                    store_words::<S>(dst(0), last, r0);
                    store_words::<S>(dst(1), last, r1);
                    store_words::<S>(dst(2), last, r2);
                    store_words::<S>(dst(3), last, r3);
                }
                ch += 4;
            }
        }
        for ch in ch..c {
            let kk = ch * pitch;
            let at = at0.map(|a| a + kk);
            // SAFETY: channel `ch`'s rows lie inside the store (the contract).
            unsafe { elem_row::<N, S, F>(base, d0 + kk, &at, words, vecs, last, f) };
        }
    }

    /// [`super::small_elem`] on chip `CHIPS[CHIP]`: the layout checks (those of
    /// `crate::bdc_elem::AlignedCall::new`), then the rows.
    ///
    /// # Safety
    ///
    /// The host has AVX-512 F/DQ/VL/BW, `base` is a store holding every lane of the chip and
    /// `S` (elements of `1 << S` bytes) is at most 2.
    #[allow(clippy::too_many_arguments)]
    #[target_feature(enable = "avx512f,avx512dq,avx512vl,avx512bw")]
    pub(super) unsafe fn elem<
        const CHIP: usize,
        const N: usize,
        const S: u32,
        F: Fn([u32; N]) -> u32 + Copy,
    >(
        base: *mut u8,
        shape: &Dim4,
        align: u32,
        dst: u32,
        srcs: [Aligned; N],
        f: F,
    ) -> bool {
        let p: LocalProfile = const { CHIPS[CHIP].local() };
        let hw = shape.h as usize * shape.w as usize;
        // Vectors per row, the last one's live lanes.
        let vecs = hw.div_ceil(16);
        let last: __mmask16 = (u32::MAX >> (32 - (hw - 16 * (vecs - 1)))) as u16;
        let pitch = p.store_pitch() as usize;
        // The common case first: one batch whose channels all stay below the last lane, where
        // `aligned_place`'s footprint is one row per lane (`offset + h * w` elements) and
        // channel `ch` of every operand lies `ch` pitches from its channel 0.
        if shape.n == 1
            && let Some((d0, at0, words)) = one_batch::<CHIP, N, S>(shape, hw, align, dst, &srcs)
        {
            // SAFETY: the rows lie inside the store (`one_batch`'s checks, the contract).
            unsafe {
                rows_one_batch::<N, S, F>(base, shape, pitch, d0, at0, &words, vecs, last, f)
            };
            return true;
        }
        let shift = S;
        let Some(od) = aligned_place(&p, dst, shape, shift, align, false) else {
            return false;
        };
        let first = |o: &AlignedPlace| o.start as usize * pitch + o.offset as usize;
        // Per source: its place (a scalar's: the destination's, its row loaded, not used).
        let mut places = [od; N];
        let words = words_of(&srcs);
        for k in 0..N {
            match srcs[k] {
                Aligned::Const(_) => {}
                Aligned::Tensor(addr) => {
                    let Some(o) = aligned_place(&p, addr, shape, shift, align, false) else {
                        return false;
                    };
                    // A source is the destination itself or apart from it inside every lane.
                    let same = o.start == od.start && o.offset == od.offset;
                    if !(same || o.end <= u64::from(od.offset) || od.end <= u64::from(o.offset)) {
                        return false;
                    }
                    places[k] = o;
                }
            }
        }
        // Past `one_batch`: several batches, or channels past the last lane.
        let (n, c) = (shape.n as usize, shape.c as usize);
        let npu = p.npu_num as usize;
        // From one channel to the next: the next lane, or lane 0 of the next slot (every
        // operand has the destination's channel stride).
        let cs_bytes = (od.cs as usize) << shift;
        let step = |(idx, lane): (usize, usize)| {
            if lane + 1 == npu {
                (idx + cs_bytes - (npu - 1) * pitch, 0)
            } else {
                (idx + pitch, lane + 1)
            }
        };
        let batch = |o: &AlignedPlace, i: usize| {
            (first(o) + ((i * o.ns as usize) << shift), o.start as usize)
        };
        for i in 0..n {
            let mut cd = batch(&od, i);
            let mut cs: [(usize, usize); N] = std::array::from_fn(|k| batch(&places[k], i));
            for _ in 0..c {
                let at = cs.map(|x| x.0);
                // SAFETY: the channel's rows lie inside the store (the contract and
                // `aligned_place`).
                unsafe { elem_row::<N, S, F>(base, cd.0, &at, &words, vecs, last, f) };
                cd = step(cd);
                cs = cs.map(step);
            }
        }
        true
    }
}
