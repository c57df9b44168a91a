//! The 64-lane local memory of a Sophgo TPU core and its tensor layouts (issue #16).
//!
//! Sources: Sophgo's TPU-Kernel reference (`tpu_kernel.h` of `tpu_6_0`, "UTILS FUNCTIONS";
//! doc.sophgo.com TPU-Kernel `2_TPU_Architecture` and the OKKernel layout page), research note
//! `shared/research/sophgo-hau.md` §3.1, and the vendor C-model's helpers, whose answers the unit
//! tests below reproduce (`tpu_aligned_stride` of shape (2,70,3,5) f32 is (32,16,5,1), ...).
//!
//! * A `local_addr_t` is `npu * LOCAL_MEM_SIZE + offset`; the bank is `offset / (LOCAL_MEM_SIZE /
//!   BANKS)`.
//! * A 4-D tensor `(N, C, H, W)` whose address lies on lane `s` puts channel `c` on lane
//!   `(s + c) % NPU_NUM`, in slot `(s + c) / NPU_NUM`; element `(n, c, h, w)` sits at offset
//!   `offset + (n*ns + slot*cs + h*hs + w*ws) * size` of that lane ([`LocalView`]).
//! * Layouts ([`Layout`]), strides in elements: aligned `cs = ALIGN(H*W, EU)`, compact
//!   `cs = H*W`, line-aligned `hs = ALIGN(W, EU), cs = H*hs`, each with `ns = cs *
//!   ceil((s + C) / NPU_NUM)`; continuous (system memory, NCHW) `ns = C*H*W`.
//!
//! Keep every lane/slot computation here: GDMA ([`crate::gdma`]) and BDC walk tensors only through
//! [`LocalView`] and [`SystemView`].

use crate::chip::LocalProfile;
use crate::dtype::DataType;
use crate::error::TpuError;

/// `local_addr_t`.
pub type LocalAddr = u32;

/// `dim4`: a shape or a stride (in elements), vendor field order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Dim4 {
    /// Batch.
    pub n: i32,
    /// Channel.
    pub c: i32,
    /// Height.
    pub h: i32,
    /// Width.
    pub w: i32,
}

impl Dim4 {
    /// `dim4 {n, c, h, w}`.
    pub const fn new(n: i32, c: i32, h: i32, w: i32) -> Dim4 {
        Dim4 { n, c, h, w }
    }

    /// Number of elements `N*C*H*W` (0 for a non-positive dimension).
    pub fn count(&self) -> usize {
        [self.n, self.c, self.h, self.w]
            .iter()
            .map(|&d| usize::try_from(d).unwrap_or(0))
            .product()
    }
}

/// The four layouts of the TPU-Kernel reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layout {
    /// 64-byte aligned: `cs = ALIGN(H*W, EU_NUM(dtype))` (what a NULL local stride means).
    Aligned,
    /// Compact: `cs = H*W`.
    Compact,
    /// Line-aligned: `hs = ALIGN(W, EU_NUM(dtype))`, `cs = H*hs`.
    LineAligned,
    /// Continuous NCHW (system memory; what a NULL system stride means).
    Continuous,
}

/// `x / a` as Rust's `/` (rounded toward zero), by a shift when `x >= 0` and `a` is a power of
/// two: the lane counts, EU widths and lane sizes of every profile are, and these divisions are
/// on the path of every call (a 64-bit division costs tens of cycles).
#[inline]
pub(crate) const fn div_pos(x: i64, a: i64) -> i64 {
    if x >= 0 && a > 0 && a & (a - 1) == 0 {
        x >> a.trailing_zeros()
    } else {
        x / a
    }
}

#[inline]
fn align_up(x: i64, a: i64) -> i64 {
    div_pos(x + a - 1, a) * a
}

#[inline]
fn ceil_div(x: i64, a: i64) -> i64 {
    div_pos(x + a - 1, a)
}

/// Stride arithmetic in `i64`, saturated into `i32` as the vendor's `int` fields.
#[inline]
fn sat(x: i64) -> i32 {
    x.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
}

/// Gap in bytes between two lanes of the flat local store. Lanes of 256 KiB laid end to end
/// put the same offset of every lane (and every 64 KiB-aligned operand) into one L1 cache set,
/// so a 64-channel small call missed the cache on every row (a C loop of 64 rows of 16 f32 adds:
/// 1260 ns at a 256 KiB pitch, 197 ns at 256 KiB + 192 B); three cache lines of gap spread
/// them. A multiple of 64, so every alignment inside a lane is kept.
pub const STORE_SKEW: u32 = 192;

impl LocalProfile {
    /// `tpu_npu_num`.
    pub const fn tpu_npu_num(&self) -> u32 {
        self.npu_num
    }
    /// `tpu_bank_num`.
    pub const fn tpu_bank_num(&self) -> u32 {
        self.bank_num
    }
    /// `tpu_local_mem_size_per_npu`.
    pub const fn tpu_local_mem_size_per_npu(&self) -> u32 {
        self.local_mem_per_npu
    }
    /// Bytes of one bank.
    pub const fn bank_size(&self) -> u32 {
        self.local_mem_per_npu / self.bank_num
    }
    /// `tpu_core_num`.
    pub const fn tpu_core_num(&self) -> u32 {
        self.core_num
    }
    /// `tpu_gdma_shape_limit(dim)`: 65535 for dims 0..=3, 0 otherwise (as the C-model answers).
    pub const fn tpu_gdma_shape_limit(&self, dim: i32) -> i32 {
        if dim >= 0 && dim <= 3 { 65535 } else { 0 }
    }
    /// `tpu_gdma_move_max_wstride_byte_len`.
    pub const fn tpu_gdma_move_max_wstride_byte_len(&self) -> u32 {
        self.max_wstride_bytes
    }

    /// `tpu_data_type_size`: bytes per element; 4-bit types have none (the C-model asserts).
    #[inline]
    pub fn tpu_data_type_size(&self, dtype: DataType) -> Result<u32, TpuError> {
        match dtype.bits() {
            8 => Ok(1),
            16 => Ok(2),
            32 | 20 => Ok(4),
            _ => Err(TpuError::UnsupportedDtype {
                op: "tpu_data_type_size",
                dtype,
                rule: "must not be a 4-bit type (use tpu_data_type_bits)",
            }),
        }
    }

    /// `tpu_eu_num`: elements one lane processes at once; only for the 8/16/32-bit integer and
    /// fp16/bf16/fp32 types (the BM1684X C-model asserts for fp8, fp20 and 4-bit types).
    #[inline]
    pub fn tpu_eu_num(&self, dtype: DataType) -> Result<u32, TpuError> {
        use DataType::*;
        let size = match dtype {
            Uint8 | Int8 => 1,
            Fp16 | Bfp16 | Uint16 | Int16 => 2,
            Fp32 | Uint32 | Int32 => 4,
            _ => {
                return Err(TpuError::UnsupportedDtype {
                    op: "tpu_eu_num",
                    dtype,
                    rule: "must be an 8/16/32-bit integer, fp16, bf16 or fp32 type",
                });
            }
        };
        Ok(self.eu_bytes / size)
    }

    /// `tpu_npu_index`: the lane of a local address.
    pub const fn tpu_npu_index(&self, addr: LocalAddr) -> u32 {
        if self.local_mem_per_npu.is_power_of_two() {
            addr >> self.local_mem_per_npu.trailing_zeros()
        } else {
            addr / self.local_mem_per_npu
        }
    }
    /// Offset of a local address inside its lane.
    pub const fn npu_offset(&self, addr: LocalAddr) -> u32 {
        if self.local_mem_per_npu.is_power_of_two() {
            addr & (self.local_mem_per_npu - 1)
        } else {
            addr % self.local_mem_per_npu
        }
    }
    /// `tpu_bank_index`: the bank of a local address inside its lane.
    pub const fn tpu_bank_index(&self, addr: LocalAddr) -> u32 {
        (addr % self.local_mem_per_npu) / self.bank_size()
    }
    /// The local address of `offset` on lane `npu`.
    pub const fn local_addr(&self, npu: u32, offset: u32) -> LocalAddr {
        npu * self.local_mem_per_npu + offset
    }
    /// Size of the whole local address space (`NPU_NUM * LOCAL_MEM_SIZE`).
    pub const fn local_space(&self) -> u64 {
        self.npu_num as u64 * self.local_mem_per_npu as u64
    }
    /// Bytes from one lane to the next in the simulator's flat local store: the lane size plus
    /// [`STORE_SKEW`] (a simulator layout choice, invisible to `local_addr_t`).
    pub const fn store_pitch(&self) -> u32 {
        self.local_mem_per_npu + STORE_SKEW
    }
    /// Bytes of the flat local store (`NPU_NUM` lanes at [`Self::store_pitch`]).
    pub const fn store_size(&self) -> u64 {
        self.npu_num as u64 * self.store_pitch() as u64
    }
    /// Index in the flat local store of the byte at `addr`.
    #[inline]
    pub const fn store_index(&self, addr: LocalAddr) -> usize {
        self.tpu_npu_index(addr) as usize * self.store_pitch() as usize
            + self.npu_offset(addr) as usize
    }

    /// `tpu_channle_num_per_npu` (vendor spelling): slots a tensor of `c` channels starting on
    /// lane `start_idx` uses, `ceil((start_idx + c) / NPU_NUM)`.
    #[inline]
    pub fn tpu_channle_num_per_npu(&self, start_idx: i32, c: i32) -> i32 {
        sat(ceil_div(
            i64::from(start_idx) + i64::from(c),
            i64::from(self.npu_num),
        ))
    }

    /// `tpu_get_local_cstride`: `ALIGN(h*w, EU)` when `align`, else `h*w`.
    #[inline]
    pub fn tpu_get_local_cstride(
        &self,
        h: i32,
        w: i32,
        align: bool,
        dtype: DataType,
    ) -> Result<i32, TpuError> {
        let hw = i64::from(h) * i64::from(w);
        Ok(if align {
            sat(align_up(hw, i64::from(self.tpu_eu_num(dtype)?)))
        } else {
            sat(hw)
        })
    }

    /// `tpu_get_local_nstride`: `c_stride * ceil((start_idx + c) / NPU_NUM)`.
    #[inline]
    pub fn tpu_get_local_nstride(&self, c_stride: i32, c: i32, start_idx: i32) -> i32 {
        sat(i64::from(c_stride) * i64::from(self.tpu_channle_num_per_npu(start_idx, c)))
    }

    /// `tpu_aligned_feature_size`: bytes of one aligned `h x w` channel,
    /// `ALIGN(h*w, EU) * size`.
    pub fn tpu_aligned_feature_size(
        &self,
        h: i32,
        w: i32,
        dtype: DataType,
    ) -> Result<u64, TpuError> {
        let cs = self.tpu_get_local_cstride(h, w, true, dtype)?;
        Ok(u64::try_from(cs).unwrap_or(0) * u64::from(self.tpu_data_type_size(dtype)?))
    }

    /// `tpu_get_local_size`: bytes per lane of a local tensor, `N * nstride * size`.
    pub fn tpu_get_local_size(
        &self,
        shape: &Dim4,
        dtype: DataType,
        start_idx: i32,
        align: bool,
    ) -> Result<i64, TpuError> {
        let cs = self.tpu_get_local_cstride(shape.h, shape.w, align, dtype)?;
        let ns = self.tpu_get_local_nstride(cs, shape.c, start_idx);
        Ok(i64::from(shape.n) * i64::from(ns) * i64::from(self.tpu_data_type_size(dtype)?))
    }

    /// `tpu_aligned_stride`.
    #[inline]
    pub fn tpu_aligned_stride(
        &self,
        start_idx: i32,
        shape: &Dim4,
        dtype: DataType,
    ) -> Result<Dim4, TpuError> {
        let cs = self.tpu_get_local_cstride(shape.h, shape.w, true, dtype)?;
        Ok(Dim4::new(
            self.tpu_get_local_nstride(cs, shape.c, start_idx),
            cs,
            shape.w,
            1,
        ))
    }

    /// `tpu_compact_stride`.
    #[inline]
    pub fn tpu_compact_stride(&self, start_idx: i32, shape: &Dim4) -> Dim4 {
        let cs = sat(i64::from(shape.h) * i64::from(shape.w));
        Dim4::new(
            self.tpu_get_local_nstride(cs, shape.c, start_idx),
            cs,
            shape.w,
            1,
        )
    }

    /// `tpu_line_aligned_stride`.
    #[inline]
    pub fn tpu_line_aligned_stride(
        &self,
        start_idx: i32,
        shape: &Dim4,
        dtype: DataType,
    ) -> Result<Dim4, TpuError> {
        let hs = sat(align_up(
            i64::from(shape.w),
            i64::from(self.tpu_eu_num(dtype)?),
        ));
        let cs = sat(i64::from(shape.h) * i64::from(hs));
        Ok(Dim4::new(
            self.tpu_get_local_nstride(cs, shape.c, start_idx),
            cs,
            hs,
            1,
        ))
    }

    /// `tpu_continuous_stride`: NCHW.
    #[inline]
    pub fn tpu_continuous_stride(&self, shape: &Dim4) -> Dim4 {
        let hw = i64::from(shape.h) * i64::from(shape.w);
        Dim4::new(sat(i64::from(shape.c) * hw), sat(hw), shape.w, 1)
    }

    /// The strides of `layout` for a tensor starting on lane `start_idx`.
    #[inline]
    pub fn layout_stride(
        &self,
        layout: Layout,
        start_idx: i32,
        shape: &Dim4,
        dtype: DataType,
    ) -> Result<Dim4, TpuError> {
        match layout {
            Layout::Aligned => self.tpu_aligned_stride(start_idx, shape, dtype),
            Layout::Compact => Ok(self.tpu_compact_stride(start_idx, shape)),
            Layout::LineAligned => self.tpu_line_aligned_stride(start_idx, shape, dtype),
            Layout::Continuous => Ok(self.tpu_continuous_stride(shape)),
        }
    }
}

/// Checks every dimension of `shape` is in `[1, 65535]` (`tpu_gdma_shape_limit`).
#[inline]
pub fn check_shape(op: &'static str, shape: &Dim4) -> Result<(), TpuError> {
    for (param, v) in [
        ("shape.n", shape.n),
        ("shape.c", shape.c),
        ("shape.h", shape.h),
        ("shape.w", shape.w),
    ] {
        if !(1..=65535).contains(&v) {
            return Err(TpuError::DimOutOfRange {
                op,
                param,
                value: i64::from(v),
            });
        }
    }
    Ok(())
}

/// Checks the BDC destination rule of the C-model: a zero `dst_stride` field is only allowed
/// on a dimension of size 1 (`atomic_tensor_arithmetic*_gen_cmd` asserts `dst_shape[i] == 1`;
/// GDMA has no such rule). `None` (the aligned layout) always passes.
#[inline]
pub fn check_dst_stride(
    op: &'static str,
    shape: &Dim4,
    stride: Option<&Dim4>,
) -> Result<(), TpuError> {
    let Some(s) = stride else {
        return Ok(());
    };
    for (field, st, dim) in [
        ("n", s.n, shape.n),
        ("c", s.c, shape.c),
        ("h", s.h, shape.h),
        ("w", s.w, shape.w),
    ] {
        if st == 0 && dim != 1 {
            return Err(TpuError::DstStrideZero { op, field, dim });
        }
    }
    Ok(())
}

/// Checks every stride is non-negative.
#[inline]
pub fn check_stride(op: &'static str, which: &'static str, s: &Dim4) -> Result<(), TpuError> {
    for (field, v) in [("n", s.n), ("c", s.c), ("h", s.h), ("w", s.w)] {
        if v < 0 {
            return Err(TpuError::StrideNegative {
                op,
                param: which,
                field,
                value: v,
            });
        }
    }
    Ok(())
}

/// A tensor in local memory, resolved: where each `(n, c, h)` row starts in the flat local store
/// (`lane * LOCAL_MEM_SIZE + offset`).
#[derive(Clone, Copy, Debug)]
pub struct LocalView {
    /// Lane of the tensor's address (`start_idx`).
    pub start: u32,
    /// Offset inside that lane.
    pub offset: u32,
    /// Shape.
    pub shape: Dim4,
    /// Strides in elements.
    pub stride: Dim4,
    /// Element size in bytes.
    pub esize: u32,
    npu_num: u32,
    lmem: u32,
}

impl LocalView {
    /// Resolves a local tensor and checks that its footprint stays inside every lane it uses.
    /// `shape` must already be checked ([`check_shape`]) and `stride` non-negative.
    #[inline]
    pub fn new(
        p: &LocalProfile,
        op: &'static str,
        param: &'static str,
        addr: LocalAddr,
        shape: Dim4,
        stride: Dim4,
        esize: u32,
    ) -> Result<LocalView, TpuError> {
        if u64::from(addr) >= p.local_space() {
            return Err(TpuError::LocalAddrOutOfRange {
                op,
                param,
                addr,
                limit: p.local_space(),
            });
        }
        let start = p.tpu_npu_index(addr);
        let offset = p.npu_offset(addr);
        let slots = div_pos(
            i64::from(start) + i64::from(shape.c) - 1,
            i64::from(p.npu_num),
        );
        let last = i64::from(shape.n - 1) * i64::from(stride.n)
            + slots * i64::from(stride.c)
            + i64::from(shape.h - 1) * i64::from(stride.h)
            + i64::from(shape.w - 1) * i64::from(stride.w);
        let end = i64::from(offset) + (last + 1) * i64::from(esize);
        if end > i64::from(p.local_mem_per_npu) {
            return Err(TpuError::LocalFootprint {
                op,
                param,
                addr,
                end,
                limit: p.local_mem_per_npu,
            });
        }
        Ok(LocalView {
            start,
            offset,
            shape,
            stride,
            esize,
            npu_num: p.npu_num,
            lmem: p.store_pitch(),
        })
    }

    /// The view [`LocalView::new`] builds for a tensor in the aligned layout with its default
    /// strides (`tpu_aligned_stride(start, shape, dtype)`, what a NULL local stride means), when
    /// every check passes: `addr` a multiple of `align` (a power of two), inside local memory,
    /// `dtype` one of the 8/16/32-bit types `tpu_eu_num` takes, `shape` within the GDMA limits
    /// and the footprint inside the lane. `None` when anything fails: the caller then takes the
    /// checked path, which names the error. The per-call fast path of every small BDC call
    /// (a few integer operations instead of the general layout arithmetic); the proptest
    /// `local::aligned_view_fast_equals_checked_path` holds it equal to the checked path.
    ///
    /// `ns_from_lane0`: the n stride counts channel slots from lane 0, `cs * ceil(C /
    /// NPU_NUM)` (the default local stride of S2L and L2S), instead of from the start lane.
    #[inline(always)]
    pub fn aligned_fast(
        p: &LocalProfile,
        addr: LocalAddr,
        shape: &Dim4,
        dtype: DataType,
        align: u32,
        ns_from_lane0: bool,
    ) -> Option<LocalView> {
        use DataType::*;
        let shift = match dtype {
            Uint8 | Int8 => 0,
            Fp16 | Bfp16 | Uint16 | Int16 => 1,
            Fp32 | Uint32 | Int32 => 2,
            _ => return None,
        };
        let dims = [shape.n, shape.c, shape.h, shape.w];
        if dims.iter().any(|&d| !(1..=65535).contains(&d)) {
            return None;
        }
        let AlignedPlace {
            start,
            offset,
            cs,
            ns,
            ..
        } = aligned_place(p, addr, shape, shift, align, ns_from_lane0)?;
        Some(LocalView {
            start,
            offset,
            shape: *shape,
            stride: Dim4::new(ns as i32, cs as i32, shape.w, 1),
            esize: 1 << shift,
            npu_num: p.npu_num,
            lmem: p.store_pitch(),
        })
    }

    /// The byte range `[offset, end)` the tensor covers inside each lane it uses (the same
    /// offsets on every lane; the footprint [`LocalView::new`] checked).
    pub fn lane_span(&self) -> (usize, usize) {
        let slots = div_pos(
            i64::from(self.start) + i64::from(self.shape.c) - 1,
            i64::from(self.npu_num),
        );
        let last = i64::from(self.shape.n - 1) * i64::from(self.stride.n)
            + slots * i64::from(self.stride.c)
            + i64::from(self.shape.h - 1) * i64::from(self.stride.h)
            + i64::from(self.shape.w - 1) * i64::from(self.stride.w);
        let off = self.offset as usize;
        (off, off + (last.max(0) as usize + 1) * self.esize as usize)
    }

    /// One past the last byte of the flat local store any element of the tensor can occupy
    /// (its lane span on the last lane): every row lies below it.
    pub fn store_bound(&self) -> usize {
        self.span_and_bound().1
    }

    /// [`Self::lane_span`] and [`Self::store_bound`] at once.
    #[inline]
    pub(crate) fn span_and_bound(&self) -> ((usize, usize), usize) {
        let span = self.lane_span();
        (
            span,
            (self.npu_num as usize - 1) * self.lmem as usize + span.1,
        )
    }

    /// A cursor over the channels of batch `n` (`(n, 0, 0, 0)` first): stepping to the next
    /// channel is one add (and a wrap to the next slot after the last lane), not the lane and
    /// slot arithmetic of [`Self::row`].
    #[inline(always)]
    pub(crate) fn channels(&self, n: usize) -> ChannelCursor {
        let npu = self.npu_num as usize;
        ChannelCursor {
            at: self.row(n, 0, 0),
            lane: self.start as usize % npu,
            npu,
            pitch: self.lmem as usize,
            slot_bytes: self.stride.c as usize * self.esize as usize,
        }
    }

    /// Byte index in the flat local store of element `(n, c, h, 0)`.
    #[inline]
    pub fn row(&self, n: usize, c: usize, h: usize) -> usize {
        let lane_c = self.start as usize + c;
        // NPU counts are powers of two on every profile; mask and shift instead of dividing.
        let (lane, slot) = if self.npu_num.is_power_of_two() {
            (
                lane_c & (self.npu_num as usize - 1),
                lane_c >> self.npu_num.trailing_zeros(),
            )
        } else {
            (
                lane_c % self.npu_num as usize,
                lane_c / self.npu_num as usize,
            )
        };
        lane * self.lmem as usize
            + self.offset as usize
            + (n * self.stride.n as usize
                + slot * self.stride.c as usize
                + h * self.stride.h as usize)
                * self.esize as usize
    }
}

/// The channels of one batch of a [`LocalView`] in order ([`LocalView::channels`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct ChannelCursor {
    /// Byte index in the flat local store of the current channel's `(n, c, 0, 0)`.
    pub(crate) at: usize,
    lane: usize,
    npu: usize,
    pitch: usize,
    slot_bytes: usize,
}

impl ChannelCursor {
    /// Moves to the next channel: the next lane, or lane 0 of the next slot.
    #[inline(always)]
    pub(crate) fn advance(&mut self) {
        self.lane += 1;
        if self.lane == self.npu {
            self.lane = 0;
            self.at = self.at + self.slot_bytes - (self.npu - 1) * self.pitch;
        } else {
            self.at += self.pitch;
        }
    }
}

/// Where a tensor in the aligned layout with its default strides lies ([`aligned_place`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct AlignedPlace {
    /// Lane of the address.
    pub(crate) start: u32,
    /// Offset inside that lane.
    pub(crate) offset: u32,
    /// Channel stride in elements (`h * w` rounded up to the EU count).
    pub(crate) cs: u64,
    /// N stride in elements.
    pub(crate) ns: u64,
    /// End of the footprint inside each lane, in bytes.
    pub(crate) end: u64,
}

/// The aligned-layout arithmetic of [`LocalView::aligned_fast`] (and of the BDC small-call
/// path, `crate::bdc_avx2`): elements of `1 << shift` bytes, `addr` a multiple of `align`
/// (a power of two) inside local memory, the footprint inside the lane; `None` when a check
/// fails or a profile size is not a power of two. The dims are the caller's to check
/// (`1..=65535`).
#[inline(always)]
pub(crate) fn aligned_place(
    p: &LocalProfile,
    addr: LocalAddr,
    shape: &Dim4,
    shift: u32,
    align: u32,
    ns_from_lane0: bool,
) -> Option<AlignedPlace> {
    let lmem = p.local_mem_per_npu;
    if !lmem.is_power_of_two()
        || !p.npu_num.is_power_of_two()
        || !p.eu_bytes.is_power_of_two()
        || !align.is_power_of_two()
        || addr & (align - 1) != 0
        || u64::from(addr) >= p.local_space()
    {
        return None;
    }
    let [n, c, h, w] = [shape.n, shape.c, shape.h, shape.w].map(|d| d as u64);
    let start = addr >> lmem.trailing_zeros();
    let offset = addr & (lmem - 1);
    let eu = u64::from(p.eu_bytes >> shift);
    let hw = h * w;
    let cs = (hw + eu - 1) & !(eu - 1);
    let npu_shift = p.npu_num.trailing_zeros();
    let used = u64::from(start) + c;
    let ns_used = if ns_from_lane0 { c } else { used };
    let ns = cs * ((ns_used + u64::from(p.npu_num) - 1) >> npu_shift);
    let slots = (used - 1) >> npu_shift;
    let end = u64::from(offset) + (((n - 1) * ns + slots * cs + hw) << shift);
    (end <= u64::from(lmem)).then_some(AlignedPlace {
        start,
        offset,
        cs,
        ns,
        end,
    })
}

/// The common case of [`aligned_place`], for the small-call paths: one batch (`n == 1`) of
/// `c` channels that all lie below the last lane (`start + c <= NPU_NUM`), where the footprint
/// in each lane is one row of `bytes` bytes from the offset. `Some((lane, offset))` exactly
/// when `aligned_place` of such a tensor (rows of `bytes` bytes, `addr` a multiple of `align`,
/// a power of two) succeeds with `end == offset + bytes` and `start + c <= NPU_NUM`; `None`
/// sends the caller to `aligned_place` (which also takes the other shapes). With the profile a
/// constant, this is a shift, two masks and three compares (`local::tests` hold it to
/// `aligned_place`).
#[inline(always)]
pub(crate) fn one_batch_place(
    p: &LocalProfile,
    addr: LocalAddr,
    c: u32,
    bytes: usize,
    align: u32,
) -> Option<(usize, usize)> {
    let lmem = p.local_mem_per_npu;
    let (lane, offset) = (
        (addr >> lmem.trailing_zeros()) as usize,
        (addr & lmem.wrapping_sub(1)) as usize,
    );
    let ok = lmem.is_power_of_two()
        && p.npu_num.is_power_of_two()
        && p.eu_bytes.is_power_of_two()
        && align.is_power_of_two()
        && addr & align.wrapping_sub(1) == 0
        && c <= p.npu_num
        && lane <= (p.npu_num - c) as usize
        && bytes <= lmem as usize - offset;
    ok.then_some((lane, offset))
}

/// A tensor in system memory: rows relative to the first element's byte.
#[derive(Clone, Copy, Debug)]
pub struct SystemView {
    /// Shape.
    pub shape: Dim4,
    /// Strides in elements.
    pub stride: Dim4,
    /// Element size in bytes.
    pub esize: u32,
}

impl SystemView {
    /// Bytes from the first element to one past the last.
    pub fn footprint(&self) -> u64 {
        let s = &self.stride;
        let d = &self.shape;
        let last = i64::from(d.n - 1) * i64::from(s.n)
            + i64::from(d.c - 1) * i64::from(s.c)
            + i64::from(d.h - 1) * i64::from(s.h)
            + i64::from(d.w - 1) * i64::from(s.w);
        ((last + 1) * i64::from(self.esize)) as u64
    }

    /// Byte offset of element `(n, c, h, 0)`.
    #[inline]
    pub fn row(&self, n: usize, c: usize, h: usize) -> usize {
        (n * self.stride.n as usize + c * self.stride.c as usize + h * self.stride.h as usize)
            * self.esize as usize
    }
}

/// Every `(n, c, h)` row of `shape` in NCHW order, as an iterator: the form of [`for_each_row`]
/// for kernels compiled twice ([`crate::simd`]), whose whole body must inline (a closure
/// argument may stay a call).
#[inline(always)]
pub fn row_indices(shape: &Dim4) -> impl Iterator<Item = (usize, usize, usize)> {
    let (nn, cc, hh) = (shape.n as usize, shape.c as usize, shape.h as usize);
    RowIndices {
        next: (0, 0, 0),
        dims: (nn, cc, hh),
        done: nn == 0 || cc == 0 || hh == 0,
    }
}

/// The iterator of [`row_indices`]: three counters (a nest of `flat_map`s was not inlined
/// into the AVX2 copies of the drivers, one call per row).
struct RowIndices {
    next: (usize, usize, usize),
    dims: (usize, usize, usize),
    done: bool,
}

impl Iterator for RowIndices {
    type Item = (usize, usize, usize);

    #[inline(always)]
    fn next(&mut self) -> Option<(usize, usize, usize)> {
        if self.done {
            return None;
        }
        let cur = self.next;
        let (n, c, h) = &mut self.next;
        *h += 1;
        if *h == self.dims.2 {
            *h = 0;
            *c += 1;
            if *c == self.dims.1 {
                *c = 0;
                *n += 1;
                if *n == self.dims.0 {
                    self.done = true;
                }
            }
        }
        Some(cur)
    }
}

/// Calls `f(row_index, n, c, h)` for every `(n, c, h)` row of `shape`, in NCHW order: the one
/// loop every GDMA and BDC operation runs its rows through.
#[inline(always)]
pub fn for_each_row(shape: &Dim4, mut f: impl FnMut(usize, usize, usize, usize)) {
    let (nn, cc, hh) = (shape.n as usize, shape.c as usize, shape.h as usize);
    let mut r = 0;
    for n in 0..nn {
        for c in 0..cc {
            for h in 0..hh {
                f(r, n, c, h);
                r += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chip::TpuChip;

    /// `row_indices` gives the rows of nested loops, in NCHW order (zero dims: none).
    #[test]
    fn row_indices_equal_nested_loops() {
        for (n, c, h) in [
            (1, 1, 1),
            (2, 3, 4),
            (1, 65, 1),
            (3, 1, 2),
            (0, 2, 2),
            (2, 0, 1),
        ] {
            let mut want = Vec::new();
            for i in 0..n {
                for j in 0..c {
                    for k in 0..h {
                        want.push((i, j, k));
                    }
                }
            }
            let got: Vec<_> = row_indices(&Dim4::new(n as i32, c as i32, h as i32, 5)).collect();
            assert_eq!(got, want, "{n} {c} {h}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
        /// `one_batch_place` is `aligned_place`'s one-batch case: on both chips, for addresses
        /// near lane and lane-end boundaries, it answers exactly when `aligned_place` of the
        /// one-batch tensor succeeds with its channels below the last lane, with the same lane
        /// and offset and a row-long footprint.
        #[test]
        fn one_batch_place_is_aligned_place_one_batch_case(
            chip in 0usize..2,
            lane in 0u32..70,
            off_kind in 0u8..3,
            off in 0u32..4096,
            c in 1i32..80,
            h in 1i32..9,
            w in 1i32..40,
            shift in 0u32..3,
            align_log in 0u32..8,
        ) {
            let p = [TpuChip::Bm1684x, TpuChip::Bm1688][chip].local();
            let lmem = p.local_mem_per_npu;
            let offset = match off_kind {
                0 => off,
                1 => lmem - 1 - off.min(lmem - 1),
                _ => off & !63,
            };
            let addr = lane.wrapping_mul(lmem).wrapping_add(offset);
            let shape = Dim4::new(1, c, h, w);
            let bytes = ((h * w) as usize) << shift;
            let align = 1u32 << align_log;
            let fast = one_batch_place(&p, addr, c as u32, bytes, align);
            let slow = aligned_place(&p, addr, &shape, shift, align, false)
                .filter(|o| o.start + c as u32 <= p.npu_num);
            match (fast, slow) {
                (Some((l, o)), Some(s)) => {
                    proptest::prop_assert_eq!((l as u32, o as u32), (s.start, s.offset));
                    proptest::prop_assert_eq!(s.end, (o + bytes) as u64);
                }
                (None, None) => {}
                (f, s) => proptest::prop_assert!(false, "fast {:?} slow {:?}", f, s),
            }
        }
    }

    /// Answers of the BM1684X C-model's helpers (probed through ctypes, tpu-mlir 1.30.2).
    #[test]
    fn cmodel_helper_answers() {
        let p = TpuChip::Bm1684x.local();
        let f32 = DataType::Fp32;
        let s = Dim4::new(2, 70, 3, 5);
        assert_eq!(
            p.tpu_aligned_stride(0, &s, f32).unwrap(),
            Dim4::new(32, 16, 5, 1)
        );
        assert_eq!(p.tpu_compact_stride(0, &s), Dim4::new(30, 15, 5, 1));
        assert_eq!(
            p.tpu_line_aligned_stride(0, &s, f32).unwrap(),
            Dim4::new(96, 48, 16, 1)
        );
        assert_eq!(p.tpu_continuous_stride(&s), Dim4::new(1050, 15, 5, 1));
        let s = Dim4::new(3, 3, 7, 9);
        assert_eq!(
            p.tpu_line_aligned_stride(5, &s, DataType::Int8).unwrap(),
            Dim4::new(448, 448, 64, 1)
        );
        assert_eq!(
            p.tpu_aligned_stride(5, &s, DataType::Fp16).unwrap(),
            Dim4::new(64, 64, 9, 1)
        );
        assert_eq!(
            p.tpu_get_local_size(&s, DataType::Fp16, 5, true).unwrap(),
            384
        );
        assert_eq!(
            p.tpu_get_local_size(&s, DataType::Fp16, 5, false).unwrap(),
            378
        );
        assert_eq!(
            p.tpu_get_local_size(&Dim4::new(2, 1, 1, 1), DataType::Uint8, 0, true)
                .unwrap(),
            128
        );
        for (st, c, want) in [
            (0, 1, 1),
            (0, 64, 1),
            (0, 65, 2),
            (3, 61, 1),
            (63, 2, 2),
            (10, 130, 3),
        ] {
            assert_eq!(p.tpu_channle_num_per_npu(st, c), want);
        }
        assert_eq!(p.tpu_npu_index(0x14_c007), 5);
        assert_eq!(p.tpu_bank_index(0x14_c007), 3);
        assert_eq!(p.tpu_bank_index(0x3fff), 0);
        assert_eq!(p.tpu_bank_index(0x4000), 1);
        assert_eq!(
            p.tpu_aligned_feature_size(7, 9, DataType::Uint8).unwrap(),
            64
        );
        assert_eq!(p.tpu_get_local_nstride(16, 61, 3), 16);
        assert_eq!(p.tpu_gdma_shape_limit(3), 65535);
        assert_eq!(p.tpu_gdma_shape_limit(4), 0);
        let eu: Vec<u32> = [DataType::Int8, DataType::Fp16, DataType::Fp32]
            .iter()
            .map(|&d| p.tpu_eu_num(d).unwrap())
            .collect();
        assert_eq!(eu, [64, 32, 16]);
        let q = TpuChip::Bm1688.local();
        assert_eq!(q.tpu_eu_num(DataType::Fp32).unwrap(), 4);
        assert_eq!(q.tpu_channle_num_per_npu(10, 130), 5);
        assert_eq!(
            q.tpu_aligned_feature_size(3, 5, DataType::Int8).unwrap(),
            16
        );
    }
}
