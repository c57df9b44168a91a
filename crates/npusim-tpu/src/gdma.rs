//! GDMA tensor copies between system memory and the 64-lane local memory (issue #16).
//!
//! `tpu_gdma_cpy_S2L`, `_L2S`, `_S2S`, `_L2L` (`tpu_kernel.h` of `tpu_6_0`, "GDMA FUNCTIONS";
//! parameter order `dst_addr, src_addr, shape, dst_stride, src_stride, dtype`). A `None` stride
//! means the default layout of its side: aligned ([`Layout::Aligned`]) in local memory,
//! continuous NCHW in system memory. The aligned default's n stride follows the C-model: S2L and
//! L2S use `ALIGN(H*W, EU) * ceil(C / NPU_NUM)` (start lane ignored), L2L
//! `ALIGN(H*W, EU) * ceil((start + C) / NPU_NUM)` like `tpu_aligned_stride`.
//!
//! Restrictions, each a [`TpuError`]: every dimension in `[1, 65535]` (`tpu_gdma_shape_limit`);
//! strides non-negative; a given w stride in `[1, tpu_gdma_move_max_wstride_byte_len]` bytes
//! (the C-model asserts `W_stride * type_len <= MAX_WSTRIDE_BYTE_LEN && W_stride != 0`); local
//! tensors inside their lanes, system tensors inside global memory or L2 SRAM; both addresses
//! multiples of the element size ([`TpuError::ElemMisaligned`]; the C-model asserts
//! `(dst_start_offset & type_mask) == 0` and the same of the source); 4-bit types have no byte
//! size. Sources and destinations may overlap: the source is read whole before the
//! destination is written.
//!
//! Paths. Every call with NULL strides on both sides first tries a small-call path (issue #16,
//! acceptance 4: a small call in 10-20 ns), which makes the checked path's checks as plain
//! arithmetic (no views, no staging buffer, no allocation) and returns `false` (nothing
//! written) for anything it does not take; the checked path (`gdma_cpy`: views, then a
//! gather into the staging buffer and a scatter) names every error.
//! * S2L, L2S: `gdma_default_strides` (`crate::avx512::small_copy` at the AVX-512 level); twin
//!   `tests/local.rs` `gdma_default_strides_equal_written_strides`.
//! * S2S: `gdma_s2s_small`, one `memmove` of the `n * c * h * w` elements.
//! * L2L: `gdma_l2l_small`, `crate::local::aligned_place` with the chip's profile a constant
//!   of the instantiation, the two tensors the same or apart (a partial overlap goes to the
//!   checked path), one `memcpy` per channel row.
//!
//! The S2S and L2L paths are portable code (no intrinsics: they are verified on AVX2 hosts,
//! which have no AVX-512), taken at the AVX2 and AVX-512 host levels and never at
//! [`HostSimd::Baseline`], where every call runs the checked path: their twin is that path,
//! `tests/gdma_small.rs` (`small_s2s_equals_checked_path`, `small_l2l_equals_checked_path`:
//! random shapes, dtypes, start lanes, addresses, overlapping and refused calls, every level,
//! the same outcome and the same memory, also against the default strides written out).

use crate::chip::{LocalProfile, TpuChip};
use crate::device::{HostSimd, TpuCore};
use crate::dtype::DataType;
use crate::error::TpuError;
use crate::local::{
    AlignedPlace, Dim4, Layout, LocalAddr, LocalView, SystemView, aligned_place, check_stride,
    for_each_row,
};
use crate::memory::SystemAddr;

/// One side of a copy, resolved.
enum Side {
    Local(LocalView),
    System(SystemAddr, SystemView),
}

impl TpuCore {
    fn gdma_check_wstride(
        &self,
        op: &'static str,
        param: &'static str,
        stride: Option<&Dim4>,
        esize: u32,
    ) -> Result<(), TpuError> {
        if let Some(s) = stride {
            check_stride(op, param, s)?;
            let bytes = i64::from(s.w) * i64::from(esize);
            let max = self.chip().local().max_wstride_bytes;
            if s.w == 0 || bytes > i64::from(max) {
                return Err(TpuError::WStrideOutOfRange {
                    op,
                    param,
                    value: s.w,
                    bytes,
                    max_bytes: max,
                });
            }
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn gdma_local(
        &self,
        op: &'static str,
        param: &'static str,
        addr: LocalAddr,
        shape: &Dim4,
        stride: Option<&Dim4>,
        dtype: DataType,
        esize: u32,
    ) -> Result<Side, TpuError> {
        let p = self.chip().local();
        // Default local n stride, as the C-model computes it: S2L and L2S count channel slots
        // from lane 0, `ns = cs * ceil(C / NPU_NUM)`, whatever lane the tensor starts on
        // (S2L/L2S of (2, 17, 1, 2) f32 at lane 52 use ns = 16, where `tpu_aligned_stride(52,
        // ..)` answers 32); L2L counts them from the tensor's start lane, `ceil((s + C) /
        // NPU_NUM)` (golden cases 72 and 88 of golden/tpu/gdma.json).
        let l2l = op == "tpu_gdma_cpy_L2L";
        if stride.is_none()
            && let Some(v) = LocalView::aligned_fast(&p, addr, shape, dtype, 1, !l2l)
        {
            return Ok(Side::Local(v));
        }
        let start = if l2l { p.tpu_npu_index(addr) as i32 } else { 0 };
        let stride = match stride {
            Some(s) => *s,
            None => p.layout_stride(Layout::Aligned, start, shape, dtype)?,
        };
        Ok(Side::Local(LocalView::new(
            &p, op, param, addr, *shape, stride, esize,
        )?))
    }

    fn gdma_system(
        &self,
        op: &'static str,
        param: &'static str,
        addr: SystemAddr,
        shape: &Dim4,
        stride: Option<&Dim4>,
        esize: u32,
    ) -> Result<Side, TpuError> {
        let stride = match stride {
            Some(s) => *s,
            None => self.chip().local().tpu_continuous_stride(shape),
        };
        let v = SystemView {
            shape: *shape,
            stride,
            esize,
        };
        self.memory()
            .bytes(addr, v.footprint() as usize)
            .map_err(|source| TpuError::System { op, param, source })?;
        Ok(Side::System(addr, v))
    }

    /// Reads the source tensor, packed NCHW, into `out`.
    fn gdma_gather(&self, src: &Side, shape: &Dim4, esize: usize, out: &mut Vec<u8>) {
        out.clear();
        out.resize(shape.count() * esize, 0);
        let w = shape.w as usize;
        let row_bytes = w * esize;
        let (store, ws): (&[u8], usize) = match src {
            Side::Local(v) => (self.local_store(), v.stride.w as usize),
            Side::System(a, v) => (
                self.memory()
                    .bytes(*a, v.footprint() as usize)
                    .unwrap_or(&[]),
                v.stride.w as usize,
            ),
        };
        for_each_row(shape, |r, n, c, h| {
            let base = match src {
                Side::Local(v) => v.row(n, c, h),
                Side::System(_, v) => v.row(n, c, h),
            };
            let dst = &mut out[r * row_bytes..(r + 1) * row_bytes];
            copy_row(dst, 0, 1, store, base, esize, ws, w);
        });
    }

    /// Writes the packed NCHW `data` into the destination tensor.
    fn gdma_scatter(&mut self, dst: &Side, shape: &Dim4, esize: usize, data: &[u8]) {
        let w = shape.w as usize;
        let row_bytes = w * esize;
        match dst {
            Side::Local(v) => {
                let store = self.local_store_mut();
                for_each_row(shape, |r, n, c, h| {
                    let src = &data[r * row_bytes..(r + 1) * row_bytes];
                    copy_row(
                        store,
                        v.row(n, c, h),
                        v.stride.w as usize,
                        src,
                        0,
                        esize,
                        1,
                        w,
                    );
                });
            }
            Side::System(a, v) => {
                let Ok(store) = self.memory_mut().bytes_mut(*a, v.footprint() as usize) else {
                    return;
                };
                for_each_row(shape, |r, n, c, h| {
                    let src = &data[r * row_bytes..(r + 1) * row_bytes];
                    copy_row(
                        store,
                        v.row(n, c, h),
                        v.stride.w as usize,
                        src,
                        0,
                        esize,
                        1,
                        w,
                    );
                });
            }
        }
    }

    /// The small-call path of S2L and L2S with NULL strides on both sides (the local side in
    /// the aligned layout with channel slots counted from lane 0, the system side continuous
    /// NCHW): each channel's `h * w` elements are contiguous on both sides, so the copy is one
    /// slice per channel, found by stepping lane by lane. Every check of the general path
    /// is made first (dims and work bound, element alignment of both addresses, the local
    /// footprint, the system range); `false` (nothing written) when one fails or the dtype has
    /// no aligned layout here, and the general path names the error.
    ///
    /// Its twin is the general path (the same copy with the strides written out):
    /// `tests/local.rs` `gdma_default_strides_equal_written_strides`.
    #[inline]
    fn gdma_default_strides(
        &mut self,
        to_local: bool,
        local: u64,
        sys: u64,
        shape: &Dim4,
        dtype: DataType,
    ) -> bool {
        let shift = match dtype.bits() {
            8 => 0,
            16 => 1,
            32 => 2,
            _ => return false,
        };
        let esize = 1u64 << shift;
        if (local | sys) & (esize - 1) != 0 || !self.dims_ok_fast(shape) {
            return false;
        }
        let Ok(addr) = u32::try_from(local) else {
            return false;
        };
        let hw = (shape.h as usize * shape.w as usize) << shift;
        let bytes = shape.n as usize * shape.c as usize * hw;
        // The element types `LocalView::aligned_fast` takes (not the fp8 ones).
        let plain = !matches!(dtype, DataType::Fp8E5M2 | DataType::Fp8E4M3);
        if self.host_simd() == HostSimd::Avx512 && plain {
            let chip = self.chip();
            let (store, mem) = self.local_and_memory_mut();
            let sys_ptr = if to_local {
                mem.bytes(sys, bytes).map(|b| b.as_ptr().cast_mut())
            } else {
                mem.bytes_mut(sys, bytes).map(|b| b.as_mut_ptr())
            };
            let Ok(sys_ptr) = sys_ptr else {
                return false;
            };
            // SAFETY: AVX-512 (`HostSimd::Avx512`); `sys_ptr` holds the tensor's `bytes` (read
            // only for S2L), system memory is not the local store; dims, element size and
            // alignment checked above.
            if unsafe {
                crate::avx512::small_copy(store, chip, sys_ptr, to_local, addr, shape, shift)
            } {
                return true;
            }
        }
        let p = self.chip().local();
        let Some(v) = LocalView::aligned_fast(&p, addr, shape, dtype, 1, true) else {
            return false;
        };
        let (store, mem) = self.local_and_memory_mut();
        let channels = shape.c as usize;
        if to_local {
            let Ok(src) = mem.bytes(sys, bytes) else {
                return false;
            };
            for (n, batch) in src.chunks_exact(channels * hw).enumerate() {
                let mut at = v.channels(n);
                for row in batch.chunks_exact(hw) {
                    store[at.at..at.at + hw].copy_from_slice(row);
                    at.advance();
                }
            }
        } else {
            let Ok(dst) = mem.bytes_mut(sys, bytes) else {
                return false;
            };
            for (n, batch) in dst.chunks_exact_mut(channels * hw).enumerate() {
                let mut at = v.channels(n);
                for row in batch.chunks_exact_mut(hw) {
                    row.copy_from_slice(&store[at.at..at.at + hw]);
                    at.advance();
                }
            }
        }
        true
    }

    /// The small-call path of S2S with NULL strides on both sides: each side is one
    /// contiguous block of `n * c * h * w` elements, so the copy is one `memmove` (the source
    /// read whole before the destination is written, as the checked path's staging buffer
    /// does). The checks are the checked path's, as arithmetic on the addresses: the dims and
    /// the work bound, a dtype with a byte size, both addresses multiples of the element size,
    /// both blocks inside global memory or L2 SRAM; `false` (nothing written) when one fails,
    /// at [`HostSimd::Baseline`] (every call through the checked path) or when `c * h * w`
    /// passes `i32::MAX` (where `tpu_continuous_stride` saturates), and the checked path names
    /// the error. Portable code (`copy_within`), the same at the AVX2 and AVX-512 levels.
    #[inline]
    fn gdma_s2s_small(&mut self, dst: u64, src: u64, shape: &Dim4, dtype: DataType) -> bool {
        let shift = match dtype.bits() {
            8 => 0,
            16 => 1,
            32 | 20 => 2,
            _ => return false,
        };
        if self.host_simd() == HostSimd::Baseline
            || (dst | src) & ((1 << shift) - 1) != 0
            || !self.dims_ok_fast(shape)
        {
            return false;
        }
        let chw = shape.c as u64 * shape.h as u64 * shape.w as u64;
        if chw > i32::MAX as u64 {
            return false;
        }
        // Below 2^16 * 2^31 * 4: no overflow.
        let Ok(len) = usize::try_from((shape.n as u64 * chw) << shift) else {
            return false;
        };
        let (lo, hi) = if dst < src { (dst, src) } else { (src, dst) };
        let mem = self.memory_mut();
        // Both blocks in one region: the span from the lower to the end of the higher is in
        // it too, one borrow for both.
        let span = hi
            .checked_add(len as u64)
            .and_then(|end| usize::try_from(end - lo).ok());
        if let Some(span) = span
            && let Ok(b) = mem.bytes_mut(lo, span)
        {
            let (s, d) = ((src - lo) as usize, (dst - lo) as usize);
            b.copy_within(s..s + len, d);
            return true;
        }
        // One block in global memory, the other in L2 SRAM (or one outside both: refused).
        let Ok((s, d)) = mem.src_dst(src, len, dst, len) else {
            return false;
        };
        d.copy_from_slice(&s);
        true
    }

    /// The small-call path of L2L with NULL strides on both sides: each side in the aligned
    /// layout counted from its own start lane (`tpu_aligned_stride(start, ..)`), channel `k`
    /// of the source (lane `(s + k) % NPU_NUM`) to channel `k` of the destination (lane
    /// `(d + k) % NPU_NUM`), each channel's `h * w` elements one contiguous row on both sides.
    /// The checks are `crate::local::aligned_place`'s with the chip's profile a constant of
    /// the instantiation (dims and work bound first; a dtype `tpu_eu_num` takes; each address
    /// a multiple of the element size, inside local memory, its footprint inside the lane).
    /// The two tensors must be the same (nothing to move) or apart: disjoint byte ranges in
    /// the lane, or no lane in common; a partial overlap (whose source must be read whole
    /// first) goes to the checked path. `false` (nothing written) when a check fails or at
    /// [`HostSimd::Baseline`]; the checked path names the error. Portable code (one `memcpy`
    /// per channel row), the same at the AVX2 and AVX-512 levels.
    #[inline]
    fn gdma_l2l_small(&mut self, dst: u32, src: u32, shape: &Dim4, dtype: DataType) -> bool {
        use DataType::*;
        let shift = match dtype {
            Uint8 | Int8 => 0,
            Fp16 | Bfp16 | Uint16 | Int16 => 1,
            Fp32 | Uint32 | Int32 => 2,
            _ => return false,
        };
        if self.host_simd() == HostSimd::Baseline || !self.dims_ok_fast(shape) {
            return false;
        }
        let chip = self.chip();
        let store = self.local_store_mut();
        match chip {
            TpuChip::Bm1684x => l2l_plain::<0>(store, dst, src, shape, shift),
            TpuChip::Bm1688 => l2l_plain::<1>(store, dst, src, shape, shift),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn gdma_cpy(
        &mut self,
        op: &'static str,
        dst: (bool, u64),
        src: (bool, u64),
        shape: &Dim4,
        dst_stride: Option<&Dim4>,
        src_stride: Option<&Dim4>,
        dtype: DataType,
    ) -> Result<(), TpuError> {
        if dst_stride.is_none() && src_stride.is_none() && dst.0 != src.0 {
            let (to_local, local, sys) = if dst.0 {
                (true, dst.1, src.1)
            } else {
                (false, src.1, dst.1)
            };
            if self.gdma_default_strides(to_local, local, sys, shape, dtype) {
                return Ok(());
            }
        }
        self.check_dims(op, shape)?;
        let esize = self.chip().local().tpu_data_type_size(dtype)?;
        self.gdma_check_wstride(op, "dst_stride", dst_stride, esize)?;
        self.gdma_check_wstride(op, "src_stride", src_stride, esize)?;
        // The C-model asserts `(dst_start_offset & type_mask) == 0`, then the same of the
        // source, on both local and system addresses (golden/tpu/gdma.json, `--kind gdma`).
        Self::elem_aligned(op, "dst_addr", dst.1, esize)?;
        Self::elem_aligned(op, "src_addr", src.1, esize)?;
        let side = |core: &TpuCore, (local, addr): (bool, u64), param, stride| {
            if local {
                let a = u32::try_from(addr).unwrap_or(u32::MAX);
                core.gdma_local(op, param, a, shape, stride, dtype, esize)
            } else {
                core.gdma_system(op, param, addr, shape, stride, esize)
            }
        };
        let d = side(self, dst, "dst_addr", dst_stride)?;
        let s = side(self, src, "src_addr", src_stride)?;
        match (&d, &s) {
            // S2L and L2S: the two sides are in different memories, so rows are copied
            // straight across (no staging buffer).
            (Side::Local(lv), Side::System(a, sv)) => {
                let (local, mem) = self.local_and_memory_mut();
                if let Ok(sys) = mem.bytes(*a, sv.footprint() as usize) {
                    copy_rows(local, lv, sys, sv, shape, esize as usize);
                }
                return Ok(());
            }
            (Side::System(a, sv), Side::Local(lv)) => {
                let (local, mem) = self.local_and_memory_mut();
                if let Ok(sys) = mem.bytes_mut(*a, sv.footprint() as usize) {
                    copy_rows(sys, sv, local, lv, shape, esize as usize);
                }
                return Ok(());
            }
            _ => {}
        }
        if dst.0 || src.0 {
            // Allocate the local store before borrowing it.
            self.local_store_mut();
        }
        let mut buf = std::mem::take(&mut self.gdma_buf);
        self.gdma_gather(&s, shape, esize as usize, &mut buf);
        self.gdma_scatter(&d, shape, esize as usize, &buf);
        self.gdma_buf = buf;
        Ok(())
    }

    /// `tpu_gdma_cpy_S2L(dst_addr, src_addr, shape, dst_stride, src_stride, dtype)`: system to
    /// local memory.
    #[allow(non_snake_case)]
    pub fn tpu_gdma_cpy_S2L(
        &mut self,
        dst_addr: LocalAddr,
        src_addr: SystemAddr,
        shape: &Dim4,
        dst_stride: Option<&Dim4>,
        src_stride: Option<&Dim4>,
        dtype: DataType,
    ) -> Result<(), TpuError> {
        self.gdma_cpy(
            "tpu_gdma_cpy_S2L",
            (true, u64::from(dst_addr)),
            (false, src_addr),
            shape,
            dst_stride,
            src_stride,
            dtype,
        )
    }

    /// `tpu_gdma_cpy_L2S`: local to system memory.
    #[allow(non_snake_case)]
    pub fn tpu_gdma_cpy_L2S(
        &mut self,
        dst_addr: SystemAddr,
        src_addr: LocalAddr,
        shape: &Dim4,
        dst_stride: Option<&Dim4>,
        src_stride: Option<&Dim4>,
        dtype: DataType,
    ) -> Result<(), TpuError> {
        self.gdma_cpy(
            "tpu_gdma_cpy_L2S",
            (false, dst_addr),
            (true, u64::from(src_addr)),
            shape,
            dst_stride,
            src_stride,
            dtype,
        )
    }

    /// `tpu_gdma_cpy_S2S`: system to system memory.
    #[allow(non_snake_case)]
    pub fn tpu_gdma_cpy_S2S(
        &mut self,
        dst_addr: SystemAddr,
        src_addr: SystemAddr,
        shape: &Dim4,
        dst_stride: Option<&Dim4>,
        src_stride: Option<&Dim4>,
        dtype: DataType,
    ) -> Result<(), TpuError> {
        if dst_stride.is_none()
            && src_stride.is_none()
            && self.gdma_s2s_small(dst_addr, src_addr, shape, dtype)
        {
            return Ok(());
        }
        self.gdma_cpy(
            "tpu_gdma_cpy_S2S",
            (false, dst_addr),
            (false, src_addr),
            shape,
            dst_stride,
            src_stride,
            dtype,
        )
    }

    /// `tpu_gdma_cpy_L2L`: local to local memory (both sides default to the aligned layout).
    #[allow(non_snake_case)]
    pub fn tpu_gdma_cpy_L2L(
        &mut self,
        dst_addr: LocalAddr,
        src_addr: LocalAddr,
        shape: &Dim4,
        dst_stride: Option<&Dim4>,
        src_stride: Option<&Dim4>,
        dtype: DataType,
    ) -> Result<(), TpuError> {
        if dst_stride.is_none()
            && src_stride.is_none()
            && self.gdma_l2l_small(dst_addr, src_addr, shape, dtype)
        {
            return Ok(());
        }
        self.gdma_cpy(
            "tpu_gdma_cpy_L2L",
            (true, u64::from(dst_addr)),
            (true, u64::from(src_addr)),
            shape,
            dst_stride,
            src_stride,
            dtype,
        )
    }
}

/// A tensor view that yields the byte index of each `(n, c, h)` row and its w stride in
/// elements (local views index the flat local store, system views their borrowed bytes).
trait Rows {
    fn row_at(&self, n: usize, c: usize, h: usize) -> usize;
    fn w_stride(&self) -> usize;
}

impl Rows for LocalView {
    #[inline(always)]
    fn row_at(&self, n: usize, c: usize, h: usize) -> usize {
        self.row(n, c, h)
    }
    #[inline(always)]
    fn w_stride(&self) -> usize {
        self.stride.w as usize
    }
}

impl Rows for SystemView {
    #[inline(always)]
    fn row_at(&self, n: usize, c: usize, h: usize) -> usize {
        self.row(n, c, h)
    }
    #[inline(always)]
    fn w_stride(&self) -> usize {
        self.stride.w as usize
    }
}

/// Copies every row of `shape` from `src` (viewed by `sv`) to `dst` (viewed by `dv`), for
/// copies whose two sides are different memories (S2L, L2S).
#[inline]
fn copy_rows(
    dst: &mut [u8],
    dv: &impl Rows,
    src: &[u8],
    sv: &impl Rows,
    shape: &Dim4,
    esize: usize,
) {
    let w = shape.w as usize;
    let (ds, ss) = (dv.w_stride(), sv.w_stride());
    for_each_row(shape, |_, n, c, h| {
        copy_row(
            dst,
            dv.row_at(n, c, h),
            ds,
            src,
            sv.row_at(n, c, h),
            esize,
            ss,
            w,
        );
    });
}

/// Copies `w` elements of `esize` bytes: from `src[s0 + i*ss*esize]` to `dst[d0 + i*ds*esize]`.
/// Unit strides on both sides copy the row as one slice.
#[allow(clippy::too_many_arguments)]
#[inline]
fn copy_row(
    dst: &mut [u8],
    d0: usize,
    ds: usize,
    src: &[u8],
    s0: usize,
    esize: usize,
    ss: usize,
    w: usize,
) {
    if ds == 1 && ss == 1 {
        let n = w * esize;
        dst[d0..d0 + n].copy_from_slice(&src[s0..s0 + n]);
        return;
    }
    for i in 0..w {
        let (d, s) = (d0 + i * ds * esize, s0 + i * ss * esize);
        dst[d..d + esize].copy_from_slice(&src[s..s + esize]);
    }
}

/// The chips by the index of [`l2l_plan`]'s `CHIP`.
const CHIPS: [TpuChip; 2] = [TpuChip::Bm1684x, TpuChip::Bm1688];

/// The lanes `start .. start + c` (modulo `NPU_NUM`) of profile `p`, one bit each.
#[inline(always)]
fn lane_mask(p: &LocalProfile, start: u32, c: u64) -> u64 {
    let npu = p.npu_num;
    let full = if npu >= 64 {
        u64::MAX
    } else {
        (1u64 << npu) - 1
    };
    if npu > 64 || c >= u64::from(npu) || start >= npu {
        return full;
    }
    // `c < npu <= 64` and `start < npu`: the bits fit in 128.
    let m = ((1u128 << c) - 1) << start;
    ((m | (m >> npu)) as u64) & full
}

/// The rows of an L2L small call ([`l2l_plan`]): byte indices in the flat local store.
struct L2lRows {
    /// Store index of channel 0 of batch 0, destination and source.
    d0: usize,
    s0: usize,
    /// Start lanes.
    dl: usize,
    sl: usize,
    /// N strides in bytes.
    dns: usize,
    sns: usize,
    /// Channel stride in bytes (the same on both sides).
    cs: usize,
    /// Bytes of one channel's row (`h * w` elements).
    row: usize,
    n: usize,
    c: usize,
}

impl L2lRows {
    /// Calls `mv(dst, src)` with the store indices of each channel's row.
    #[inline(always)]
    fn each<const CHIP: usize>(&self, mut mv: impl FnMut(usize, usize)) {
        let p: LocalProfile = const { CHIPS[CHIP].local() };
        let npu = p.npu_num as usize;
        let pitch = p.store_pitch() as usize;
        let (n, c) = (self.n, self.c);
        if n == 1 && self.dl + c <= npu && self.sl + c <= npu {
            // One batch, no channel past the last lane on either side.
            for ch in 0..c {
                mv(self.d0 + ch * pitch, self.s0 + ch * pitch);
            }
            return;
        }
        // From one channel to the next: the next lane, or lane 0 of the next slot.
        let cs = self.cs;
        let step = |(at, lane): (usize, usize)| {
            if lane + 1 == npu {
                (at + cs - (npu - 1) * pitch, 0)
            } else {
                (at + pitch, lane + 1)
            }
        };
        for i in 0..n {
            let mut d = (self.d0 + i * self.dns, self.dl);
            let mut s = (self.s0 + i * self.sns, self.sl);
            for _ in 0..c {
                mv(d.0, s.0);
                d = step(d);
                s = step(s);
            }
        }
    }
}

/// The checks of [`TpuCore::gdma_l2l_small`] on chip `CHIPS[CHIP]` after the dtype (elements
/// of `1 << shift` bytes, at most 4), the dims and the level: the store holds every lane,
/// both places pass `aligned_place` (element-aligned, inside local memory, footprint inside
/// the lane), and the tensors are the same (`Some(None)`: nothing to move) or apart.
/// `None` when a check fails.
#[inline(always)]
fn l2l_plan<const CHIP: usize>(
    store_len: usize,
    dst: u32,
    src: u32,
    shape: &Dim4,
    shift: u32,
) -> Option<Option<L2lRows>> {
    let p: LocalProfile = const { CHIPS[CHIP].local() };
    if (store_len as u64) < p.store_size() {
        return None;
    }
    let esize = 1u32 << shift;
    let od = aligned_place(&p, dst, shape, shift, esize, false)?;
    let os = aligned_place(&p, src, shape, shift, esize, false)?;
    if dst == src {
        // The same tensor: every element stays.
        return Some(None);
    }
    let c = shape.c as u64;
    let apart = os.end <= u64::from(od.offset)
        || od.end <= u64::from(os.offset)
        || lane_mask(&p, os.start, c) & lane_mask(&p, od.start, c) == 0;
    if !apart {
        return None;
    }
    let pitch = p.store_pitch() as usize;
    let first = |o: &AlignedPlace| o.start as usize * pitch + o.offset as usize;
    Some(Some(L2lRows {
        d0: first(&od),
        s0: first(&os),
        dl: od.start as usize,
        sl: os.start as usize,
        dns: (od.ns as usize) << shift,
        sns: (os.ns as usize) << shift,
        cs: (od.cs as usize) << shift,
        row: (shape.h as usize * shape.w as usize) << shift,
        n: shape.n as usize,
        c: shape.c as usize,
    }))
}

/// [`TpuCore::gdma_l2l_small`] on chip `CHIPS[CHIP]`: [`l2l_plan`], rows by `memcpy`.
#[inline(always)]
fn l2l_plain<const CHIP: usize>(
    store: &mut [u8],
    dst: u32,
    src: u32,
    shape: &Dim4,
    shift: u32,
) -> bool {
    let Some(plan) = l2l_plan::<CHIP>(store.len(), dst, src, shape, shift) else {
        return false;
    };
    let Some(rows) = plan else {
        return true;
    };
    let (base, row) = (store.as_mut_ptr(), rows.row);
    // SAFETY: every row lies inside the store (`aligned_place`: each footprint inside its
    // lanes, and the store holds every lane); the two tensors do not meet (`l2l_plan`).
    rows.each::<CHIP>(|d, s| unsafe {
        std::ptr::copy_nonoverlapping(base.add(s), base.add(d), row)
    });
    true
}
