//! Layout-changing moves (issue #16): `tpu_gdma_matrix_S2L/L2S`, `tpu_gdma_compact_S2L/L2S`,
//! `tpu_gdma_cpy_cw_trans_S2L/L2S/L2L/S2S`, and the BDC transposes `tpu_bdc_cw_trans` /
//! `tpu_bdc_wc_trans`.
//!
//! Names and parameter order: `tpu_kernel.h` of `tpu_6_0` ("GDMA FUNCTIONS", "BDC COMMON
//! FUNCTIONS"). Behaviour: the BM1684X C-model (`libcmodel_bm1684x.so` of tpu-mlir 1.30.2),
//! pinned by `golden/tpu/trans.json` (`scripts/gen_tpu_golden.py --kind trans`).
//!
//! * Matrix: the system matrix `rows x cols` (row `r` at `r * row_stride` elements) is, in local
//!   memory, the aligned tensor `(rows, ceil(cols / cols_per_channel), 1, cols_per_channel)` from
//!   the address's lane: column `j` of row `r` is element `(r, j / cpc, 0, j % cpc)`. Only the
//!   `cols` real columns move; the last channel's tail is left alone.
//! * Compact: `tpu_gdma_cpy` with the local side in the compact layout from its lane
//!   (`cs = H*W`, `ns = cs * ceil((start + C) / NPU_NUM)`) and the system side continuous.
//! * cw transpose: `dst[n][c][h][w] = src[n][w][h][c]` with `shape` the destination's; the
//!   source is the tensor `(N, W, H, C)`. A NULL stride means the aligned layout from the
//!   operand's lane (local) or continuous NCHW (system) of that operand's own shape; a given
//!   stride must have `w == 1`.
//! * BDC `cw_trans` / `wc_trans` (`shape` the destination's `(N, C, H, W)`, the source
//!   `(N, W, H, C)` aligned): `cw_trans` writes the destination line-aligned
//!   (`hs = ALIGN(W, EU)`), from a source on NPU 0; `wc_trans` writes it aligned, onto NPU 0.
//!
//! Restrictions, each a [`TpuError`], as the C-model asserts them: dimensions in `[1, 65535]`;
//! `cols_per_channel >= 1` (the C-model divides by it), `row_stride >= 0` (and `>= cols`
//! for L2S of more than one row) with `row_stride * rows` elements inside system memory and `ns * rows` elements inside the lane
//! (`ns = ALIGN(cpc, EU) * ceil((start + C) / NPU_NUM)`); GDMA addresses element-aligned; BDC
//! addresses 64-byte aligned, `src != dst`, the NPU-0 operand above. Every move reads its whole
//! source before it writes.
//!
//! Paths of the cw transposes (GDMA and BDC; issue #16 acceptance 4, speed per call):
//! * The small-call path (`TpuCore::cw_small`, kernel `cw_rows`), taken first from
//!   [`crate::HostSimd::Avx2`] up (x86-64 hosts; `Baseline` keeps the checked path): NULL
//!   strides (GDMA), an 8/16/32-bit type with an EU count, every local side within one pass of
//!   the lanes (`lane + channels <= NPU_NUM`, so its channels lie one lane pitch apart) and
//!   local sides apart from each other. Every check of the checked path is made first as
//!   integer arithmetic on the chip's constant profile (one instantiation per chip): dims and
//!   work bound, address alignment (element or EU), NPU 0, `src != dst`, local range and
//!   footprint, system range. Each side is then a plane (a first byte and byte steps per
//!   batch, h and channel): 32-bit elements move in 4 x 4 blocks transposed in SSE2
//!   registers, the rest element by element with the size a constant. S2S reads a copy of the
//!   source when the two meet (`SystemMemory::src_dst`). Anything else returns `false` with
//!   nothing written, and the checked path runs, naming any error.
//! * The checked path: `LocalView`/`SystemView` checks, then the general mover
//!   (`TpuCore::move_cw`): element by element with the size a constant, channel offsets
//!   advanced per step (a lane step, or a wrap to the next slot) instead of a lane division per
//!   element, through a staging buffer only when two local operands' lane spans meet.
//!
//! Twins (`tests/trans.rs`): `cw_small_calls_equal_general_path` holds the small path equal to
//! the checked path (result and every byte of memory, valid and refused calls alike);
//! `gdma_cw_trans_equal_plain_model` and `bdc_trans_equal_plain_model` hold both paths (the
//! host SIMD level drawn per case) equal to a plain model of the layouts, operands meeting
//! included. The matrix and compact moves keep `TpuCore::move_elems` (a [`Walk`] per element).

use crate::chip::{LocalProfile, TpuChip};
use crate::device::{HostSimd, TpuCore};
use crate::dtype::DataType;
use crate::error::TpuError;
use crate::local::{Dim4, LocalAddr, LocalView, SystemView, check_stride};
use crate::memory::SystemAddr;

/// How a logical element index `(n, c, h, w)` of a move finds its bytes in one operand's store.
///
/// `perm[d]` is the operand's own dimension that logical dimension `d` indexes (the identity
/// for a plain copy, `[0, 3, 2, 1]` for the source of a cw transpose). For a local operand the
/// own dimension 1 is the channel: it picks the lane `(start + c) % NPU_NUM` and the slot
/// `(start + c) / NPU_NUM`.
#[derive(Clone, Copy, Debug)]
pub struct Walk {
    /// Byte offset of element `(0, 0, 0, 0)` in the store (local: `start`'s lane base is added
    /// per element; system: 0, the store is the tensor's slice).
    base: usize,
    /// Own strides in elements `(n, c, h, w)`; for a local operand `c` is the slot stride.
    stride: [usize; 4],
    esize: usize,
    perm: [usize; 4],
    /// `(start lane, NPU_NUM, LOCAL_MEM_SIZE)` for a local operand.
    lanes: Option<(usize, usize, usize)>,
}

impl Walk {
    fn local(v: &LocalView, npu_num: u32, lmem: u32, perm: [usize; 4]) -> Walk {
        Walk {
            base: v.offset as usize,
            stride: dims(&v.stride),
            esize: v.esize as usize,
            perm,
            lanes: Some((v.start as usize, npu_num as usize, lmem as usize)),
        }
    }

    fn system(v: &SystemView, perm: [usize; 4]) -> Walk {
        Walk {
            base: 0,
            stride: dims(&v.stride),
            esize: v.esize as usize,
            perm,
            lanes: None,
        }
    }

    /// Byte index of logical element `idx`.
    #[inline]
    pub fn at(&self, idx: [usize; 4]) -> usize {
        let mut own = [0usize; 4];
        for d in 0..4 {
            own[self.perm[d]] = idx[d];
        }
        let s = &self.stride;
        match self.lanes {
            Some((start, npu, lmem)) => {
                let lc = start + own[1];
                (lc % npu) * lmem
                    + self.base
                    + (own[0] * s[0] + (lc / npu) * s[1] + own[2] * s[2] + own[3] * s[3])
                        * self.esize
            }
            None => {
                self.base
                    + (own[0] * s[0] + own[1] * s[1] + own[2] * s[2] + own[3] * s[3]) * self.esize
            }
        }
    }
}

fn dims(d: &Dim4) -> [usize; 4] {
    [d.n, d.c, d.h, d.w].map(|v| usize::try_from(v).unwrap_or(0))
}

/// Which memory an operand is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mem {
    Local,
    System(SystemAddr),
}

/// One resolved operand of a move.
struct Operand {
    mem: Mem,
    walk: Walk,
    /// Bytes of the system slice (0 for local).
    len: usize,
    /// Local: the byte range `[offset, end)` the tensor covers inside each lane it uses
    /// ([`LocalView::lane_span`]); system: `(0, len)`.
    span: (usize, usize),
}

impl Operand {
    /// The operand as [`Lines`]: channel 0 of batch 0 and the steps of the cw movers.
    fn lines(&self) -> Lines {
        let w = &self.walk;
        let es = w.esize;
        let [sn, sc, sh, _] = w.stride;
        match w.lanes {
            Some((start, npu, pitch)) => Lines {
                at: start * pitch + w.base,
                n: sn * es,
                h: sh * es,
                step: pitch,
                lane: start,
                npu,
                slot: sc * es,
            },
            None => Lines {
                at: w.base,
                n: sn * es,
                h: sh * es,
                step: sc * es,
                lane: 0,
                npu: usize::MAX,
                slot: 0,
            },
        }
    }
}

/// An operand of a cw move, by its channels: where channel 0 of batch 0 starts and how to
/// step from one channel to the next without the lane division of [`Walk::at`]. A system
/// operand never wraps (`npu` is `usize::MAX`).
#[derive(Clone, Copy, Debug)]
struct Lines {
    /// Byte index of element `(0, 0, 0, 0)` (local: in the flat store; system: in its slice).
    at: usize,
    /// Bytes per batch.
    n: usize,
    /// Bytes per h.
    h: usize,
    /// Bytes from a channel to the next one on the same slot (local: the lane pitch).
    step: usize,
    /// Lane of channel 0 (local; 0 for system).
    lane: usize,
    /// Lanes per slot.
    npu: usize,
    /// Bytes per slot (local).
    slot: usize,
}

impl Lines {
    /// The channel after `(at, lane)`: the next lane, or lane 0 of the next slot.
    #[inline(always)]
    fn next(&self, (at, lane): (usize, usize)) -> (usize, usize) {
        if lane + 1 == self.npu {
            // `at` is on the last lane, at least `(npu - 1) * step` into the store.
            (at + self.slot - (self.npu - 1) * self.step, 0)
        } else {
            (at + self.step, lane + 1)
        }
    }
}

/// Every `(dst byte, src byte)` pair of a cw move of destination dims `[N, C, H, W]`
/// (`dst(n, c, h, w) = src(n, w, h, c)`, unit w strides on both sides), in one fixed order:
/// source channel by source channel, each read along its row while the destination steps
/// channel by channel. Offsets advance per element; no lane division, no index list.
#[inline(always)]
fn cw_pairs(
    d: &Lines,
    s: &Lines,
    [nn, cc, hh, ww]: [usize; 4],
    es: usize,
    mut f: impl FnMut(usize, usize),
) {
    for n in 0..nn {
        let mut sc = (s.at + n * s.n, s.lane);
        for w in 0..ww {
            let mut dc = (d.at + n * d.n + w * es, d.lane);
            for c in 0..cc {
                for h in 0..hh {
                    f(dc.0 + h * d.h, sc.0 + h * s.h + c * es);
                }
                dc = d.next(dc);
            }
            sc = s.next(sc);
        }
    }
}

/// Copies the `ES` bytes at `src[s]` to `dst[d]` (nothing when either is out of its slice;
/// the views' checks rule that out).
#[inline(always)]
fn copy_elem<const ES: usize>(dst: &mut [u8], d: usize, src: &[u8], s: usize) {
    if let (Some(d), Some(s)) = (dst.get_mut(d..d + ES), src.get(s..s + ES)) {
        d.copy_from_slice(s);
    }
}

/// Copies the `ES` bytes at `store[s]` to `store[d]` (one store, ranges apart or equal).
#[inline(always)]
fn copy_within<const ES: usize>(store: &mut [u8], d: usize, s: usize) {
    let v: Option<[u8; ES]> = store.get(s..s + ES).and_then(|b| b.try_into().ok());
    if let (Some(v), Some(d)) = (v, store.get_mut(d..d + ES)) {
        d.copy_from_slice(&v);
    }
}

/// Which call a cw small path serves (the layouts and checks differ).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CwKind {
    /// `tpu_gdma_cpy_cw_trans_*`: element-aligned addresses, every side aligned from its lane.
    Gdma,
    /// `tpu_bdc_cw_trans`: destination line-aligned, source on NPU 0.
    BdcCw,
    /// `tpu_bdc_wc_trans`: destination aligned on NPU 0.
    BdcWc,
}

/// The chips by the index of [`TpuCore::cw_small_on`]'s `CHIP`.
const CHIPS: [TpuChip; 2] = [TpuChip::Bm1684x, TpuChip::Bm1688];

/// One side of a small cw move, in bytes from its base pointer: channel 0 of batch 0, and the
/// steps per batch, per h and per channel (a local side's channels lie one lane pitch apart:
/// the small path takes them within one pass of the lanes).
#[derive(Clone, Copy, Debug)]
struct Plane {
    at: usize,
    n: usize,
    h: usize,
    row: usize,
}

/// Runs the small cw kernel for elements of `1 << shift` bytes.
///
/// # Safety
///
/// As [`cw_rows`].
#[inline(always)]
unsafe fn cw_kernel(
    shift: u32,
    dst: *mut u8,
    d: Plane,
    src: *const u8,
    s: Plane,
    dims: [usize; 4],
) {
    // SAFETY: this function's contract.
    unsafe {
        match shift {
            0 => cw_rows::<1>(dst, d, src, s, dims),
            1 => cw_rows::<2>(dst, d, src, s, dims),
            _ => cw_rows::<4>(dst, d, src, s, dims),
        }
    }
}

/// The cw transpose of destination dims `[N, C, H, W]` over two [`Plane`]s: destination row
/// `(n, c, h)` (`W` elements of `ES` bytes at `dst + d.at + n*d.n + h*d.h + c*d.row`) takes
/// element `c` of the `W` source rows `(n, w, h)` (`src + s.at + n*s.n + h*s.h + w*s.row`).
/// 32-bit elements go in 4 x 4 blocks (four 16-byte loads, an SSE2 transpose, four 16-byte
/// stores); the rest, and other sizes, element by element.
///
/// # Safety
///
/// Every element of both planes is inside its allocation and the destination's elements do
/// not meet the source's.
#[inline(always)]
unsafe fn cw_rows<const ES: usize>(
    dst: *mut u8,
    d: Plane,
    src: *const u8,
    s: Plane,
    [nn, cc, hh, ww]: [usize; 4],
) {
    for n in 0..nn {
        for h in 0..hh {
            let sb = s.at + n * s.n + h * s.h;
            let db = d.at + n * d.n + h * d.h;
            let mut c = 0;
            #[cfg(target_arch = "x86_64")]
            if ES == 4 {
                while c + 4 <= cc {
                    // SAFETY: the block's elements are elements of the planes (the contract).
                    unsafe { block4(dst, db + c * d.row, d.row, src, sb + c * 4, s.row, ww) };
                    c += 4;
                }
            }
            while c < cc {
                let sp = sb + c * ES;
                let dp = db + c * d.row;
                for w in 0..ww {
                    // SAFETY: as above.
                    unsafe {
                        std::ptr::copy_nonoverlapping(
                            src.add(sp + w * s.row),
                            dst.add(dp + w * ES),
                            ES,
                        )
                    };
                }
                c += 1;
            }
        }
    }
}

/// Four destination rows of 32-bit elements (`dst + dp + j*drow`, `j < 4`) from elements
/// `0..4` of the `ww` source rows at `src + sp + w*srow`: 4 x 4 blocks transposed in SSE2
/// registers (bit patterns only: integer unpacks), the last `ww % 4` columns one by one.
///
/// # Safety
///
/// As [`cw_rows`].
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn block4(
    dst: *mut u8,
    dp: usize,
    drow: usize,
    src: *const u8,
    sp: usize,
    srow: usize,
    ww: usize,
) {
    use std::arch::x86_64::*;
    let mut w = 0;
    // SAFETY: every load and store is of elements of the planes (the contract); SSE2 is part
    // of x86-64.
    unsafe {
        while w + 4 <= ww {
            let at = |i: usize| src.add(sp + (w + i) * srow).cast::<__m128i>();
            let (r0, r1, r2, r3) = (
                _mm_loadu_si128(at(0)),
                _mm_loadu_si128(at(1)),
                _mm_loadu_si128(at(2)),
                _mm_loadu_si128(at(3)),
            );
            let t0 = _mm_unpacklo_epi32(r0, r1);
            let t1 = _mm_unpacklo_epi32(r2, r3);
            let t2 = _mm_unpackhi_epi32(r0, r1);
            let t3 = _mm_unpackhi_epi32(r2, r3);
            let to = |j: usize| dst.add(dp + j * drow + w * 4).cast::<__m128i>();
            _mm_storeu_si128(to(0), _mm_unpacklo_epi64(t0, t1));
            _mm_storeu_si128(to(1), _mm_unpackhi_epi64(t0, t1));
            _mm_storeu_si128(to(2), _mm_unpacklo_epi64(t2, t3));
            _mm_storeu_si128(to(3), _mm_unpackhi_epi64(t2, t3));
            w += 4;
        }
        while w < ww {
            for j in 0..4 {
                std::ptr::copy_nonoverlapping(
                    src.add(sp + w * srow + j * 4),
                    dst.add(dp + j * drow + w * 4),
                    4,
                );
            }
            w += 1;
        }
    }
}

const IDENTITY: [usize; 4] = [0, 1, 2, 3];
/// Logical `(n, c, h, w)` of the destination reads the source's `(n, w, h, c)`.
const CW: [usize; 4] = [0, 3, 2, 1];

impl TpuCore {
    /// A local/system GDMA pair's address rules (matrix and compact forms): the local address
    /// inside local memory, both element-aligned.
    fn local_system_addrs(
        p: &crate::chip::LocalProfile,
        op: &'static str,
        (lparam, local): (&'static str, u32),
        (sparam, system): (&'static str, u64),
        esize: u32,
    ) -> Result<(), TpuError> {
        if u64::from(local) >= p.local_space() {
            return Err(TpuError::LocalAddrOutOfRange {
                op,
                param: lparam,
                addr: local,
                limit: p.local_space(),
            });
        }
        Self::elem_aligned(op, lparam, u64::from(local), esize)?;
        Self::elem_aligned(op, sparam, system, esize)
    }

    pub(crate) fn elem_aligned(
        op: &'static str,
        param: &'static str,
        addr: u64,
        esize: u32,
    ) -> Result<(), TpuError> {
        if !addr.is_multiple_of(u64::from(esize)) {
            return Err(TpuError::ElemMisaligned {
                op,
                param,
                addr,
                esize,
            });
        }
        Ok(())
    }

    /// A local operand of own shape `shape` and stride `stride` (`None`: aligned from its lane).
    #[allow(clippy::too_many_arguments)]
    fn trans_local(
        &self,
        op: &'static str,
        param: &'static str,
        addr: LocalAddr,
        shape: &Dim4,
        stride: Option<Dim4>,
        dtype: DataType,
        perm: [usize; 4],
    ) -> Result<Operand, TpuError> {
        let p = self.chip().local();
        let esize = p.tpu_data_type_size(dtype)?;
        let stride = match stride {
            Some(s) => s,
            None => p.tpu_aligned_stride(p.tpu_npu_index(addr) as i32, shape, dtype)?,
        };
        let v = LocalView::new(&p, op, param, addr, *shape, stride, esize)?;
        Ok(Operand {
            mem: Mem::Local,
            walk: Walk::local(&v, p.npu_num, p.store_pitch(), perm),
            len: 0,
            span: v.lane_span(),
        })
    }

    /// A system operand of own shape `shape` and stride `stride` (`None`: continuous NCHW).
    #[allow(clippy::too_many_arguments)]
    fn trans_system(
        &self,
        op: &'static str,
        param: &'static str,
        addr: SystemAddr,
        shape: &Dim4,
        stride: Option<Dim4>,
        esize: u32,
        perm: [usize; 4],
    ) -> Result<Operand, TpuError> {
        let stride = stride.unwrap_or_else(|| self.chip().local().tpu_continuous_stride(shape));
        let v = SystemView {
            shape: *shape,
            stride,
            esize,
        };
        let len = v.footprint() as usize;
        self.memory()
            .bytes(addr, len)
            .map_err(|source| TpuError::System { op, param, source })?;
        Ok(Operand {
            mem: Mem::System(addr),
            walk: Walk::system(&v, perm),
            len,
            span: (0, len),
        })
    }

    /// Moves every element of the logical `shape` for which `keep` holds from `src` to `dst`
    /// (the whole source is read first).
    fn move_elems(
        &mut self,
        dst: &Operand,
        src: &Operand,
        shape: &Dim4,
        keep: impl Fn([usize; 4]) -> bool,
    ) {
        let es = src.walk.esize;
        let [nn, cc, hh, ww] = dims(shape);
        let mut idx = Vec::with_capacity(shape.count());
        for n in 0..nn {
            for c in 0..cc {
                for h in 0..hh {
                    for w in 0..ww {
                        if keep([n, c, h, w]) {
                            idx.push([n, c, h, w]);
                        }
                    }
                }
            }
        }
        if dst.mem == Mem::Local || src.mem == Mem::Local {
            self.local_store_mut();
        }
        let mut buf = std::mem::take(&mut self.gdma_buf);
        buf.clear();
        buf.resize(idx.len() * es, 0);
        {
            let store: &[u8] = match src.mem {
                Mem::Local => self.local_store(),
                Mem::System(a) => self.memory().bytes(a, src.len).unwrap_or(&[]),
            };
            for (k, &i) in idx.iter().enumerate() {
                let b = src.walk.at(i);
                if let (Some(s), Some(d)) =
                    (store.get(b..b + es), buf.get_mut(k * es..(k + 1) * es))
                {
                    d.copy_from_slice(s);
                }
            }
        }
        {
            let store: &mut [u8] = match dst.mem {
                Mem::Local => self.local_store_mut(),
                Mem::System(a) => self.memory_mut().bytes_mut(a, dst.len).unwrap_or(&mut []),
            };
            for (k, &i) in idx.iter().enumerate() {
                let b = dst.walk.at(i);
                if let (Some(d), Some(s)) =
                    (store.get_mut(b..b + es), buf.get(k * es..(k + 1) * es))
                {
                    d.copy_from_slice(s);
                }
            }
        }
        self.gdma_buf = buf;
    }

    /// The general mover of the cw transposes (GDMA and BDC): `dst(n, c, h, w) = src(n, w,
    /// h, c)` over the checked operands, element by element in [`cw_pairs`]' order with the
    /// element size a constant. The whole source is read before the destination is written:
    /// S2S through `SystemMemory::src_dst` (a copy of the source when the two meet), local to
    /// local through the staging buffer when the lane spans meet; other pairs are different
    /// memories and copy straight across.
    fn move_cw(&mut self, d: &Operand, s: &Operand, shape: &Dim4) {
        match s.walk.esize {
            1 => self.move_cw_es::<1>(d, s, shape),
            2 => self.move_cw_es::<2>(d, s, shape),
            _ => self.move_cw_es::<4>(d, s, shape),
        }
    }

    fn move_cw_es<const ES: usize>(&mut self, d: &Operand, s: &Operand, shape: &Dim4) {
        let dims = dims(shape);
        let (dl, sl) = (d.lines(), s.lines());
        match (d.mem, s.mem) {
            (Mem::Local, Mem::System(a)) => {
                let (store, mem) = self.local_and_memory_mut();
                if let Ok(src) = mem.bytes(a, s.len) {
                    cw_pairs(&dl, &sl, dims, ES, |di, si| {
                        copy_elem::<ES>(store, di, src, si)
                    });
                }
            }
            (Mem::System(a), Mem::Local) => {
                let (store, mem) = self.local_and_memory_mut();
                if let Ok(dst) = mem.bytes_mut(a, d.len) {
                    cw_pairs(&dl, &sl, dims, ES, |di, si| {
                        copy_elem::<ES>(dst, di, store, si)
                    });
                }
            }
            (Mem::System(da), Mem::System(sa)) => {
                if let Ok((src, dst)) = self.memory_mut().src_dst(sa, s.len, da, d.len) {
                    cw_pairs(&dl, &sl, dims, ES, |di, si| {
                        copy_elem::<ES>(dst, di, &src, si)
                    });
                }
            }
            (Mem::Local, Mem::Local) => {
                let meet = d.span.0 < s.span.1 && s.span.0 < d.span.1;
                let mut buf = std::mem::take(&mut self.gdma_buf);
                let store = self.local_store_mut();
                if meet {
                    buf.clear();
                    cw_pairs(&dl, &sl, dims, ES, |_, si| match store.get(si..si + ES) {
                        Some(b) => buf.extend_from_slice(b),
                        None => buf.extend_from_slice(&[0; ES]),
                    });
                    let mut k = 0;
                    cw_pairs(&dl, &sl, dims, ES, |di, _| {
                        copy_elem::<ES>(store, di, &buf, k);
                        k += ES;
                    });
                } else {
                    cw_pairs(&dl, &sl, dims, ES, |di, si| {
                        copy_within::<ES>(store, di, si)
                    });
                }
                self.gdma_buf = buf;
            }
        }
    }

    /// The small-call path of the cw transposes (see the module docs): `true` when it made
    /// the whole call, `false` (nothing written) when the call is not one it takes or a check
    /// fails (the checked path then names the error). NULL strides only (the caller's test).
    #[inline]
    fn cw_small(
        &mut self,
        kind: CwKind,
        dst: (bool, u64),
        src: (bool, u64),
        shape: &Dim4,
        dtype: DataType,
    ) -> bool {
        use DataType::*;
        // The small paths run from `HostSimd::Avx2` up (`Baseline` keeps the checked path, the
        // twin's side).
        if self.host_simd() < HostSimd::Avx2 {
            return false;
        }
        let shift = match dtype {
            Uint8 | Int8 => 0,
            Fp16 | Bfp16 | Uint16 | Int16 => 1,
            Fp32 | Uint32 | Int32 => 2,
            _ => return false,
        };
        if !self.dims_ok_fast(shape) {
            return false;
        }
        match self.chip() {
            TpuChip::Bm1684x => self.cw_small_on::<0>(kind, dst, src, shape, shift),
            TpuChip::Bm1688 => self.cw_small_on::<1>(kind, dst, src, shape, shift),
        }
    }

    /// [`Self::cw_small`] on chip `CHIPS[CHIP]` (its profile a constant): the checks of the
    /// checked path as integer arithmetic, then the AVX-512 kernel.
    #[inline(always)]
    fn cw_small_on<const CHIP: usize>(
        &mut self,
        kind: CwKind,
        dst: (bool, u64),
        src: (bool, u64),
        shape: &Dim4,
        shift: u32,
    ) -> bool {
        let p: LocalProfile = const { CHIPS[CHIP].local() };
        let lane_bits = const { CHIPS[CHIP].local().local_mem_per_npu.trailing_zeros() };
        const { assert!(CHIPS[CHIP].local().local_mem_per_npu.is_power_of_two()) };
        const { assert!(CHIPS[CHIP].local().eu_bytes.is_power_of_two()) };
        let (lmem, npu, pitch) = (
            u64::from(p.local_mem_per_npu),
            u64::from(p.npu_num),
            u64::from(p.store_pitch()),
        );
        let [n, c, h, w] = [shape.n, shape.c, shape.h, shape.w].map(|d| d as u64);
        let gdma = kind == CwKind::Gdma;
        // GDMA: element-aligned addresses; BDC: EU-aligned and not in place.
        let align = if gdma {
            1 << shift
        } else {
            u64::from(p.eu_bytes)
        };
        if (dst.1 | src.1) & (align - 1) != 0 || (!gdma && dst.1 == src.1) {
            return false;
        }
        // Below 2^31 elements (each dim is below 2^16, so the product fits): no stride of the
        // checked path saturates.
        if n * c * h * w > i32::MAX as u64 {
            return false;
        }
        let eu = u64::from(p.eu_bytes >> shift);
        // A local side of own shape `(N, chans, H, len)` at `addr`, aligned (or line-aligned)
        // from its lane, its channels within one pass of the lanes: its plane, and its lanes
        // and lane span `(first lane, offset, end)`.
        let local = |addr: u64, chans: u64, len: u64, line: bool, lane0: bool| {
            if addr >= p.local_space() {
                return None;
            }
            let (lane, off) = (addr >> lane_bits, addr & (lmem - 1));
            if (lane0 && lane != 0) || lane + chans > npu {
                return None;
            }
            let (hs, cs) = if line {
                let hs = (len + eu - 1) & !(eu - 1);
                (hs, h * hs)
            } else {
                (len, (h * len + eu - 1) & !(eu - 1))
            };
            // `LocalView::new`'s footprint with one slot: the last batch's last row.
            let end = off + (((n - 1) * cs + (h - 1) * hs + len) << shift);
            let plane = Plane {
                at: (lane * pitch + off) as usize,
                n: (cs << shift) as usize,
                h: (hs << shift) as usize,
                row: pitch as usize,
            };
            (end <= lmem).then_some((plane, lane, off, end))
        };
        // A system side of own shape `(N, chans, H, len)`, continuous NCHW: its plane and
        // bytes.
        let system = |chans: u64, len: u64| {
            let row = (h * len) << shift;
            let plane = Plane {
                at: 0,
                n: (chans * row) as usize,
                h: (len << shift) as usize,
                row: row as usize,
            };
            (plane, (n * chans * row) as usize)
        };
        let store_ok = |len: usize| len as u64 >= p.store_size();
        let dims = [n, c, h, w].map(|d| d as usize);
        match (dst.0, src.0) {
            (true, false) => {
                let Some((dp, ..)) = local(dst.1, c, w, false, false) else {
                    return false;
                };
                let (sp, slen) = system(w, c);
                let (store, mem) = self.local_and_memory_mut();
                let Ok(s) = mem.bytes(src.1, slen) else {
                    return false;
                };
                if !store_ok(store.len()) {
                    return false;
                }
                // SAFETY: the planes' elements lie inside `store` (the footprint checks, every
                // lane of the store) and `s` (its bytes); the two do not meet.
                unsafe { cw_kernel(shift, store.as_mut_ptr(), dp, s.as_ptr(), sp, dims) };
            }
            (false, true) => {
                let Some((sp, ..)) = local(src.1, w, c, false, false) else {
                    return false;
                };
                let (dp, dlen) = system(c, w);
                let (store, mem) = self.local_and_memory_mut();
                if !store_ok(store.len()) {
                    return false;
                }
                let Ok(d) = mem.bytes_mut(dst.1, dlen) else {
                    return false;
                };
                // SAFETY: as above.
                unsafe { cw_kernel(shift, d.as_mut_ptr(), dp, store.as_ptr(), sp, dims) };
            }
            (true, true) => {
                let Some((dp, dl, doff, dend)) =
                    local(dst.1, c, w, kind == CwKind::BdcCw, kind == CwKind::BdcWc)
                else {
                    return false;
                };
                let Some((sp, sl, soff, send)) = local(src.1, w, c, false, kind == CwKind::BdcCw)
                else {
                    return false;
                };
                // Operands that meet in a lane go through the staging buffer.
                if dl < sl + w && sl < dl + c && doff < send && soff < dend {
                    return false;
                }
                let store = self.local_store_mut();
                if !store_ok(store.len()) {
                    return false;
                }
                let base = store.as_mut_ptr();
                // SAFETY: as above; the two tensors do not meet.
                unsafe { cw_kernel(shift, base, dp, base.cast_const(), sp, dims) };
            }
            (false, false) => {
                let (dp, dlen) = system(c, w);
                let (sp, slen) = system(w, c);
                // A copy of the source when the two meet (read whole before the writes).
                let Ok((s, d)) = self.memory_mut().src_dst(src.1, slen, dst.1, dlen) else {
                    return false;
                };
                // SAFETY: as above; `s` is apart from `d` or a copy.
                unsafe { cw_kernel(shift, d.as_mut_ptr(), dp, s.as_ptr(), sp, dims) };
            }
        }
        true
    }

    /// Shared body of `tpu_gdma_matrix_S2L/L2S`: `(local, system)` addresses.
    #[allow(clippy::too_many_arguments)]
    fn gdma_matrix(
        &mut self,
        op: &'static str,
        to_local: bool,
        local: LocalAddr,
        system: SystemAddr,
        rows: i32,
        cols: i32,
        cols_per_channel: i32,
        row_stride: i32,
        dtype: DataType,
    ) -> Result<(), TpuError> {
        // The small-call path (`crate::trans_matrix`); the checked path below names any error.
        let m = (rows, cols, cols_per_channel, row_stride);
        if self.matrix_small(to_local, local, system, m, dtype) {
            return Ok(());
        }
        let p = self.chip().local();
        let esize = p.tpu_data_type_size(dtype)?;
        let eu = p.tpu_eu_num(dtype)?;
        let (lparam, sparam) = if to_local {
            ("dst_addr", "src_addr")
        } else {
            ("src_addr", "dst_addr")
        };
        if cols_per_channel < 1 {
            return Err(TpuError::ArgOutOfRange {
                op,
                param: "cols_per_channel",
                value: i64::from(cols_per_channel),
                rule: "must be >= 1",
            });
        }
        for (param, v) in [("rows", rows), ("cols", cols)] {
            if !(1..=65535).contains(&v) {
                return Err(TpuError::DimOutOfRange {
                    op,
                    param,
                    value: i64::from(v),
                });
            }
        }
        // c <= cols <= 65535.
        let c = ((i64::from(cols) + i64::from(cols_per_channel) - 1) / i64::from(cols_per_channel))
            as i32;
        self.check_work(op, "rows x cols", rows as u128 * cols as u128)?;
        Self::local_system_addrs(&p, op, (lparam, local), (sparam, system), esize)?;
        // The C-model's local bound: `offset + ns * rows * size <= LOCAL_MEM_SIZE`.
        let start = p.tpu_npu_index(local);
        let eu = i64::from(eu);
        let cs = (i64::from(cols_per_channel) + eu - 1) / eu * eu;
        let npu = i64::from(p.npu_num);
        let slots = (i64::from(start) + i64::from(c) + npu - 1) / npu;
        let ns = cs * slots;
        let end = i64::from(p.npu_offset(local)) + ns * i64::from(rows) * i64::from(esize);
        if end > i64::from(p.local_mem_per_npu) {
            return Err(TpuError::LocalFootprint {
                op,
                param: lparam,
                addr: local,
                end,
                limit: p.local_mem_per_npu,
            });
        }
        if row_stride < 0 {
            return Err(TpuError::ArgOutOfRange {
                op,
                param: "row_stride",
                value: i64::from(row_stride),
                rule: "must be >= 0",
            });
        }
        if !to_local && rows > 1 && row_stride < cols {
            return Err(TpuError::ArgOutOfRange {
                op,
                param: "row_stride",
                value: i64::from(row_stride),
                rule: "must be >= cols when rows > 1 (the rows written may not overlap)",
            });
        }
        let shape = Dim4::new(rows, c, 1, cols_per_channel);
        let lstride = Dim4::new(
            i32::try_from(ns).unwrap_or(i32::MAX),
            i32::try_from(cs).unwrap_or(i32::MAX),
            cols_per_channel,
            1,
        );
        let loc = self.trans_local(op, lparam, local, &shape, Some(lstride), dtype, IDENTITY)?;
        // The C-model checks `row_stride * rows` elements of system memory; the rows read are
        // `(rows - 1) * row_stride + cols` (more when row_stride < cols).
        let span = (i64::from(row_stride) * i64::from(rows))
            .max(i64::from(rows - 1) * i64::from(row_stride) + i64::from(cols));
        let sys_shape = Dim4::new(1, 1, 1, i32::try_from(span).unwrap_or(i32::MAX));
        let sys_stride = Dim4::new(0, 0, 0, 1);
        let mut sys = self.trans_system(
            op,
            sparam,
            system,
            &sys_shape,
            Some(sys_stride),
            esize,
            IDENTITY,
        )?;
        sys.walk.stride = [row_stride as usize, cols_per_channel as usize, 0, 1];
        let cpc = cols_per_channel as usize;
        let cols = cols as usize;
        let keep = |i: [usize; 4]| i[1] * cpc + i[3] < cols;
        if to_local {
            self.move_elems(&loc, &sys, &shape, keep);
        } else {
            self.move_elems(&sys, &loc, &shape, keep);
        }
        Ok(())
    }

    /// `tpu_gdma_matrix_S2L(dst_addr, src_addr, rows, cols, cols_per_channel, row_stride,
    /// dtype)`: the system matrix into local memory, `cols_per_channel` columns per channel.
    #[allow(non_snake_case, clippy::too_many_arguments)]
    pub fn tpu_gdma_matrix_S2L(
        &mut self,
        dst_addr: LocalAddr,
        src_addr: SystemAddr,
        rows: i32,
        cols: i32,
        cols_per_channel: i32,
        row_stride: i32,
        dtype: DataType,
    ) -> Result<(), TpuError> {
        self.gdma_matrix(
            "tpu_gdma_matrix_S2L",
            true,
            dst_addr,
            src_addr,
            rows,
            cols,
            cols_per_channel,
            row_stride,
            dtype,
        )
    }

    /// `tpu_gdma_matrix_L2S(dst_addr, src_addr, rows, cols, cols_per_channel, row_stride,
    /// dtype)`: the local matrix back to system memory.
    #[allow(non_snake_case, clippy::too_many_arguments)]
    pub fn tpu_gdma_matrix_L2S(
        &mut self,
        dst_addr: SystemAddr,
        src_addr: LocalAddr,
        rows: i32,
        cols: i32,
        cols_per_channel: i32,
        row_stride: i32,
        dtype: DataType,
    ) -> Result<(), TpuError> {
        self.gdma_matrix(
            "tpu_gdma_matrix_L2S",
            false,
            src_addr,
            dst_addr,
            rows,
            cols,
            cols_per_channel,
            row_stride,
            dtype,
        )
    }

    fn gdma_compact(
        &mut self,
        op: &'static str,
        to_local: bool,
        local: LocalAddr,
        system: SystemAddr,
        shape: &Dim4,
        dtype: DataType,
    ) -> Result<(), TpuError> {
        // The small-call path (`crate::trans_matrix`); the checked path below names any error.
        if self.compact_small(to_local, local, system, shape, dtype) {
            return Ok(());
        }
        self.check_dims(op, shape)?;
        let p = self.chip().local();
        let esize = p.tpu_data_type_size(dtype)?;
        let (lparam, sparam) = if to_local {
            ("dst_addr", "src_addr")
        } else {
            ("src_addr", "dst_addr")
        };
        Self::local_system_addrs(&p, op, (lparam, local), (sparam, system), esize)?;
        let stride = p.tpu_compact_stride(p.tpu_npu_index(local) as i32, shape);
        let loc = self.trans_local(op, lparam, local, shape, Some(stride), dtype, IDENTITY)?;
        let sys = self.trans_system(op, sparam, system, shape, None, esize, IDENTITY)?;
        if to_local {
            self.move_elems(&loc, &sys, shape, |_| true);
        } else {
            self.move_elems(&sys, &loc, shape, |_| true);
        }
        Ok(())
    }

    /// `tpu_gdma_compact_S2L(dst_addr, src_addr, shape, dtype)`: continuous system tensor into
    /// the compact local layout.
    #[allow(non_snake_case)]
    pub fn tpu_gdma_compact_S2L(
        &mut self,
        dst_addr: LocalAddr,
        src_addr: SystemAddr,
        shape: &Dim4,
        dtype: DataType,
    ) -> Result<(), TpuError> {
        self.gdma_compact(
            "tpu_gdma_compact_S2L",
            true,
            dst_addr,
            src_addr,
            shape,
            dtype,
        )
    }

    /// `tpu_gdma_compact_L2S(dst_addr, src_addr, shape, dtype)`: compact local tensor to a
    /// continuous system tensor.
    #[allow(non_snake_case)]
    pub fn tpu_gdma_compact_L2S(
        &mut self,
        dst_addr: SystemAddr,
        src_addr: LocalAddr,
        shape: &Dim4,
        dtype: DataType,
    ) -> Result<(), TpuError> {
        self.gdma_compact(
            "tpu_gdma_compact_L2S",
            false,
            src_addr,
            dst_addr,
            shape,
            dtype,
        )
    }

    /// Shared body of the four `tpu_gdma_cpy_cw_trans_*`: `(is local, address)` per side.
    #[allow(clippy::too_many_arguments)]
    fn gdma_cw_trans(
        &mut self,
        op: &'static str,
        dst: (bool, u64),
        src: (bool, u64),
        dst_shape: &Dim4,
        dst_stride: Option<&Dim4>,
        src_stride: Option<&Dim4>,
        dtype: DataType,
    ) -> Result<(), TpuError> {
        if dst_stride.is_none()
            && src_stride.is_none()
            && self.cw_small(CwKind::Gdma, dst, src, dst_shape, dtype)
        {
            return Ok(());
        }
        self.check_dims(op, dst_shape)?;
        let esize = self.chip().local().tpu_data_type_size(dtype)?;
        for (param, s) in [("dst_stride", dst_stride), ("src_stride", src_stride)] {
            if let Some(s) = s {
                check_stride(op, param, s)?;
                if s.w != 1 {
                    return Err(TpuError::ArgOutOfRange {
                        op,
                        param: if param == "dst_stride" {
                            "dst_stride.w"
                        } else {
                            "src_stride.w"
                        },
                        value: i64::from(s.w),
                        rule: "must be 1 (a cw transpose moves unit-stride lines)",
                    });
                }
            }
        }
        let src_shape = Dim4::new(dst_shape.n, dst_shape.w, dst_shape.h, dst_shape.c);
        let side = |core: &TpuCore,
                    (local, addr): (bool, u64),
                    param: &'static str,
                    shape: &Dim4,
                    stride: Option<&Dim4>,
                    perm|
         -> Result<Operand, TpuError> {
            Self::elem_aligned(op, param, addr, esize)?;
            if local {
                let a = u32::try_from(addr).unwrap_or(u32::MAX);
                core.trans_local(op, param, a, shape, stride.copied(), dtype, perm)
            } else {
                core.trans_system(op, param, addr, shape, stride.copied(), esize, perm)
            }
        };
        let d = side(self, dst, "dst_addr", dst_shape, dst_stride, IDENTITY)?;
        let s = side(self, src, "src_addr", &src_shape, src_stride, CW)?;
        self.move_cw(&d, &s, dst_shape);
        Ok(())
    }

    /// `tpu_gdma_cpy_cw_trans_S2L(dst_addr, src_addr, dst_shape, dst_stride, src_stride,
    /// dtype)`: `dst[n][c][h][w] = src[n][w][h][c]`, system to local.
    #[allow(non_snake_case)]
    pub fn tpu_gdma_cpy_cw_trans_S2L(
        &mut self,
        dst_addr: LocalAddr,
        src_addr: SystemAddr,
        dst_shape: &Dim4,
        dst_stride: Option<&Dim4>,
        src_stride: Option<&Dim4>,
        dtype: DataType,
    ) -> Result<(), TpuError> {
        self.gdma_cw_trans(
            "tpu_gdma_cpy_cw_trans_S2L",
            (true, u64::from(dst_addr)),
            (false, src_addr),
            dst_shape,
            dst_stride,
            src_stride,
            dtype,
        )
    }

    /// `tpu_gdma_cpy_cw_trans_L2S`: the cw transpose, local to system.
    #[allow(non_snake_case)]
    pub fn tpu_gdma_cpy_cw_trans_L2S(
        &mut self,
        dst_addr: SystemAddr,
        src_addr: LocalAddr,
        dst_shape: &Dim4,
        dst_stride: Option<&Dim4>,
        src_stride: Option<&Dim4>,
        dtype: DataType,
    ) -> Result<(), TpuError> {
        self.gdma_cw_trans(
            "tpu_gdma_cpy_cw_trans_L2S",
            (false, dst_addr),
            (true, u64::from(src_addr)),
            dst_shape,
            dst_stride,
            src_stride,
            dtype,
        )
    }

    /// `tpu_gdma_cpy_cw_trans_L2L`: the cw transpose, local to local.
    #[allow(non_snake_case)]
    pub fn tpu_gdma_cpy_cw_trans_L2L(
        &mut self,
        dst_addr: LocalAddr,
        src_addr: LocalAddr,
        dst_shape: &Dim4,
        dst_stride: Option<&Dim4>,
        src_stride: Option<&Dim4>,
        dtype: DataType,
    ) -> Result<(), TpuError> {
        self.gdma_cw_trans(
            "tpu_gdma_cpy_cw_trans_L2L",
            (true, u64::from(dst_addr)),
            (true, u64::from(src_addr)),
            dst_shape,
            dst_stride,
            src_stride,
            dtype,
        )
    }

    /// `tpu_gdma_cpy_cw_trans_S2S`: the cw transpose, system to system.
    #[allow(non_snake_case)]
    pub fn tpu_gdma_cpy_cw_trans_S2S(
        &mut self,
        dst_addr: SystemAddr,
        src_addr: SystemAddr,
        dst_shape: &Dim4,
        dst_stride: Option<&Dim4>,
        src_stride: Option<&Dim4>,
        dtype: DataType,
    ) -> Result<(), TpuError> {
        self.gdma_cw_trans(
            "tpu_gdma_cpy_cw_trans_S2S",
            (false, dst_addr),
            (false, src_addr),
            dst_shape,
            dst_stride,
            src_stride,
            dtype,
        )
    }

    fn bdc_trans(
        &mut self,
        op: &'static str,
        cw: bool,
        dst_addr: LocalAddr,
        src_addr: LocalAddr,
        shape: &Dim4,
        dtype: DataType,
    ) -> Result<(), TpuError> {
        let kind = if cw { CwKind::BdcCw } else { CwKind::BdcWc };
        let (d, s) = ((true, u64::from(dst_addr)), (true, u64::from(src_addr)));
        if self.cw_small(kind, d, s, shape, dtype) {
            return Ok(());
        }
        if !matches!(dtype.bits(), 8 | 16 | 32) {
            return Err(TpuError::UnsupportedDtype {
                op,
                dtype,
                rule: "must be an 8-, 16- or 32-bit type",
            });
        }
        self.check_dims(op, shape)?;
        let p = self.chip().local();
        let eu = p.eu_bytes;
        for (param, a) in [("dst_addr", dst_addr), ("src_addr", src_addr)] {
            if !a.is_multiple_of(eu) {
                return Err(TpuError::Misaligned {
                    op,
                    param,
                    addr: a,
                    align: eu,
                });
            }
        }
        let (param, a) = if cw {
            ("src_addr", src_addr)
        } else {
            ("dst_addr", dst_addr)
        };
        if u64::from(a) < p.local_space() && p.tpu_npu_index(a) != 0 {
            return Err(TpuError::NpuRequired {
                op,
                param,
                addr: a,
                npu: p.tpu_npu_index(a),
                rule: if cw {
                    "the cw transpose reads its source from NPU 0"
                } else {
                    "the wc transpose writes its destination from NPU 0"
                },
            });
        }
        if dst_addr == src_addr {
            return Err(TpuError::SameAddress {
                op,
                param: "dst_addr",
                addr: dst_addr,
                other: "src_addr",
                rule: "the transpose does not run in place",
            });
        }
        let dst_stride = if cw {
            Some(p.tpu_line_aligned_stride(p.tpu_npu_index(dst_addr) as i32, shape, dtype)?)
        } else {
            None
        };
        let src_shape = Dim4::new(shape.n, shape.w, shape.h, shape.c);
        let d = self.trans_local(op, "dst_addr", dst_addr, shape, dst_stride, dtype, IDENTITY)?;
        let s = self.trans_local(op, "src_addr", src_addr, &src_shape, None, dtype, CW)?;
        self.move_cw(&d, &s, shape);
        Ok(())
    }

    /// `tpu_bdc_cw_trans(dst_addr, src_addr, shape, dtype)`: `dst[n][c][h][w] =
    /// src[n][w][h][c]`, `shape` the destination's; the source (aligned, on NPU 0) has shape
    /// `(N, W, H, C)`, the destination is written line-aligned.
    pub fn tpu_bdc_cw_trans(
        &mut self,
        dst_addr: LocalAddr,
        src_addr: LocalAddr,
        shape: &Dim4,
        dtype: DataType,
    ) -> Result<(), TpuError> {
        self.bdc_trans("tpu_bdc_cw_trans", true, dst_addr, src_addr, shape, dtype)
    }

    /// `tpu_bdc_wc_trans(dst_addr, src_addr, shape, dtype)`: the same transpose with the
    /// destination aligned and on NPU 0 (the source may start on any NPU).
    pub fn tpu_bdc_wc_trans(
        &mut self,
        dst_addr: LocalAddr,
        src_addr: LocalAddr,
        shape: &Dim4,
        dtype: DataType,
    ) -> Result<(), TpuError> {
        self.bdc_trans("tpu_bdc_wc_trans", false, dst_addr, src_addr, shape, dtype)
    }
}
