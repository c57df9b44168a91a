//! Small-call paths of `tpu_gdma_matrix_S2L/L2S` and `tpu_gdma_compact_S2L/L2S` (issue #16,
//! acceptance 4: at least 100x the C-model per small call; the BM1684X C-model,
//! `libcmodel_bm1684x.so` of tpu-mlir 1.30.2, takes 1.5-2.1 us per call at the bench's
//! (1,1,1,8) and (1,4,1,16) shapes). Names, parameters and semantics: `tpu_kernel.h` of
//! `tpu_6_0` ("GDMA FUNCTIONS") as `crate::trans` documents them, pinned by
//! `golden/tpu/trans.json` (`tests/golden.rs`).
//!
//! Both moves are runs of contiguous bytes on both sides:
//! * matrix: row `r`, channel `ch` is the run of `min(cpc, cols - ch * cpc)` elements at
//!   system element `r * row_stride + ch * cpc` and at local `(r, ch, 0, 0)` of the aligned
//!   `(rows, ceil(cols / cpc), 1, cpc)` tensor from the address's lane (`cs = ALIGN(cpc, EU)`,
//!   `ns = cs * ceil((start + C) / NPU_NUM)`);
//! * compact: batch `n`, channel `ch` is the run of `H*W` elements at system element
//!   `(n * C + ch) * H*W` (continuous NCHW) and at local `(n, ch, 0, 0)` of the compact layout
//!   from the address's lane (`cs = H*W`, `ns = cs * ceil((start + C) / NPU_NUM)`).
//!
//! [`Runs`] is such a move once every check of the checked path has passed, computed as
//! constant-profile arithmetic (each chip profile a const instantiation: shifts and masks by
//! constants, one division for the matrix's channel count), with no `LocalView`, no
//! allocation: the dtype's element size (matrix: the 8/16/32-bit types `tpu_eu_num` takes;
//! compact: every type `tpu_data_type_size` takes), the dimension ranges and the work bound,
//! `cols_per_channel >= 1`, the local address inside local memory, both addresses
//! element-aligned, the local footprint (matrix: the C-model's `offset + ns * rows * size <=
//! LOCAL_MEM_SIZE`; compact: the layout's last element), `row_stride >= 0` (and `>= cols` for
//! an L2S of several rows), the system span inside one region of system memory. A call failing
//! any of them gets `false` (nothing written, the local store not even allocated) and runs the
//! checked path of `crate::trans`, which names the error; so does every call at
//! [`HostSimd::Baseline`].
//!
//! The runs are copied channel by channel, the lane stepped by one add (a wrap to the next
//! slot after the last lane): at [`HostSimd::Avx512`] each run in 64-byte vectors, the last
//! one masked (`crate::avx512::copy_bytes`, inlined: no call, no tail loop); at
//! [`HostSimd::Avx2`] each run by `copy_nonoverlapping`. Local and system memory are separate
//! stores, the destination runs are disjoint (local: distinct elements of the layout; system:
//! `row_stride >= cols` when several rows are written), so the order of the runs is the
//! checked path's "read the whole source first".
//!
//! Twin: the checked path of `crate::trans` (`move_elems`), which the same call takes at
//! [`HostSimd::Baseline`]: `tests/trans_matrix.rs` (`small_matrix_equals_checked_path`,
//! `small_compact_equals_checked_path`) draws calls on both chips at the AVX-512 and AVX2
//! levels, taken and refused ones (every dtype, misaligned, past the lane, out of local or
//! system memory, negative or short row strides, zero or oversized dimensions, a small work
//! bound) and holds the outcome (`Ok` or the same error), the whole local store and global
//! memory equal to a Baseline twin's. The unit test `takes_the_bench_calls` below holds that the
//! path takes the calls of `benches/tpu_small.rs`.

use crate::chip::TpuChip;
use crate::device::{HostSimd, TpuCore};
use crate::dtype::DataType;
use crate::local::{Dim4, LocalAddr};
use crate::memory::SystemAddr;

/// The chips by the index of the const parameter `CHIP`.
const CHIPS: [TpuChip; 2] = [TpuChip::Bm1684x, TpuChip::Bm1688];

// The arithmetic below takes every profile size as a power of two (shifts and masks).
const _: () = {
    let mut k = 0;
    while k < CHIPS.len() {
        let p = CHIPS[k].local();
        assert!(p.local_mem_per_npu.is_power_of_two());
        assert!(p.npu_num.is_power_of_two());
        assert!(p.eu_bytes.is_power_of_two() && p.eu_bytes >= 4);
        k += 1;
    }
};

/// A checked move: `outer` groups (matrix rows, compact batches) of `c` channel runs.
#[derive(Clone, Copy, Debug)]
struct Runs {
    /// Store index of the first run's local bytes (lane `start`, the address's offset).
    local: usize,
    /// Lane of the first channel.
    start: usize,
    /// Groups, and the local bytes from one group to the next (`ns`).
    outer: usize,
    ns: usize,
    /// System bytes from one group to the next (matrix: `row_stride`; compact: `C * H*W`).
    sys_step: usize,
    /// Channels per group and the local bytes from one slot to the next (`cs`).
    c: usize,
    cs: usize,
    /// Bytes of a channel's run (and from one channel's system bytes to the next), and of the
    /// last channel's run (matrix: the columns left).
    run: usize,
    last: usize,
    /// System bytes the checked path checks (and the runs lie in).
    sys_len: usize,
}

/// log2 of the element size of the types `tpu_eu_num` takes (the matrix form's types).
#[inline(always)]
fn eu_shift(dtype: DataType) -> Option<u32> {
    use DataType::*;
    match dtype {
        Uint8 | Int8 => Some(0),
        Fp16 | Bfp16 | Uint16 | Int16 => Some(1),
        Fp32 | Uint32 | Int32 => Some(2),
        _ => None,
    }
}

/// log2 of `tpu_data_type_size` (the compact form's types: all but the 4-bit ones).
#[inline(always)]
fn size_shift(dtype: DataType) -> Option<u32> {
    match dtype.bits() {
        8 => Some(0),
        16 => Some(1),
        20 | 32 => Some(2),
        _ => None,
    }
}

/// The lane and the offset inside it of `local`, when it is inside local memory and both
/// addresses are multiples of the element size `1 << shift`.
#[inline(always)]
fn place<const CHIP: usize>(
    local: LocalAddr,
    system: SystemAddr,
    shift: u32,
) -> Option<(u64, u64)> {
    let p = const { CHIPS[CHIP].local() };
    let lane_bits = const { CHIPS[CHIP].local().local_mem_per_npu.trailing_zeros() };
    let es_mask = (1u64 << shift) - 1;
    if u64::from(local) >= p.local_space() || (u64::from(local) | system) & es_mask != 0 {
        return None;
    }
    Some((
        u64::from(local >> lane_bits),
        u64::from(local & (p.local_mem_per_npu - 1)),
    ))
}

/// [`Runs`] of a matrix call on chip `CHIPS[CHIP]` (elements of `1 << shift` bytes, a type
/// `tpu_eu_num` takes), when every check of `crate::trans`'s `gdma_matrix` passes.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn matrix_runs<const CHIP: usize>(
    to_local: bool,
    local: LocalAddr,
    system: SystemAddr,
    (rows, cols, cpc, row_stride): (i32, i32, i32, i32),
    shift: u32,
    work: u64,
) -> Option<Runs> {
    let p = const { CHIPS[CHIP].local() };
    let npu_bits = const { CHIPS[CHIP].local().npu_num.trailing_zeros() };
    // `d - 1` as u32 is below 65535 exactly when `d` is in [1, 65535].
    let dims_ok = ((rows.wrapping_sub(1) as u32) < 65535) & ((cols.wrapping_sub(1) as u32) < 65535);
    if !dims_ok || cpc < 1 || row_stride < 0 || (!to_local && rows > 1 && row_stride < cols) {
        return None;
    }
    let (rows, cols, cpc, rs) = (rows as u64, cols as u64, cpc as u64, row_stride as u64);
    if rows * cols > work {
        return None;
    }
    let (start, offset) = place::<CHIP>(local, system, shift)?;
    // Channels: `ceil(cols / cpc)`, no division in the common one-channel case (a 32-bit one
    // otherwise: both are below 2^31).
    let c = if cpc >= cols {
        1
    } else {
        u64::from((cols as u32).div_ceil(cpc as u32))
    };
    let eu = u64::from(p.eu_bytes >> shift);
    let cs = (cpc + eu - 1) & !(eu - 1);
    let ns = cs * ((start + c + u64::from(p.npu_num) - 1) >> npu_bits);
    // The C-model's local bound (cs < 2^17, slots < 2^11, rows < 2^16: no overflow).
    if offset + ((ns * rows) << shift) > u64::from(p.local_mem_per_npu) {
        return None;
    }
    // The system span the checked path checks; past `i32::MAX` elements it saturates there,
    // and that path takes the call.
    let span = (rs * rows).max((rows - 1) * rs + cols);
    if span > i32::MAX as u64 {
        return None;
    }
    let run = (cpc.min(cols) << shift) as usize;
    Some(Runs {
        local: (start * u64::from(p.store_pitch()) + offset) as usize,
        start: start as usize,
        outer: rows as usize,
        ns: (ns << shift) as usize,
        sys_step: (rs << shift) as usize,
        c: c as usize,
        cs: (cs << shift) as usize,
        run,
        last: ((cols - (c - 1) * cpc) << shift) as usize,
        sys_len: (span << shift) as usize,
    })
}

/// [`Runs`] of a compact call on chip `CHIPS[CHIP]` (elements of `1 << shift` bytes), when
/// every check of `crate::trans`'s `gdma_compact` passes; the caller has checked the dims
/// (`TpuCore::dims_ok_fast`: ranges and work bound).
#[inline(always)]
fn compact_runs<const CHIP: usize>(
    local: LocalAddr,
    system: SystemAddr,
    shape: &Dim4,
    shift: u32,
) -> Option<Runs> {
    let p = const { CHIPS[CHIP].local() };
    let npu_bits = const { CHIPS[CHIP].local().npu_num.trailing_zeros() };
    let (start, offset) = place::<CHIP>(local, system, shift)?;
    let [n, c, h, w] = [shape.n, shape.c, shape.h, shape.w].map(|d| d as u64);
    let hw = h * w;
    let used = start + c;
    let ns = hw * ((used + u64::from(p.npu_num) - 1) >> npu_bits);
    // `LocalView::new`'s footprint: the last element of the last batch on the last slot
    // (hw < 2^32, ns < 2^43, n < 2^16: below 2^62 bytes).
    let last = (n - 1) * ns + ((used - 1) >> npu_bits) * hw + hw;
    if offset + (last << shift) > u64::from(p.local_mem_per_npu) {
        return None;
    }
    // Inside the lanes: `n * ns <= 2^19` elements and `c <= NPU_NUM * slots`, so
    // `n * c * hw <= NPU_NUM * 2^19` elements (no overflow).
    let run = (hw << shift) as usize;
    Some(Runs {
        local: (start * u64::from(p.store_pitch()) + offset) as usize,
        start: start as usize,
        outer: n as usize,
        ns: (ns << shift) as usize,
        sys_step: c as usize * run,
        c: c as usize,
        cs: run,
        run,
        last: run,
        sys_len: n as usize * c as usize * run,
    })
}

/// How a run's bytes are copied (the host SIMD level).
trait CopyRun {
    /// Copies `len` bytes from `src` to `dst`.
    ///
    /// # Safety
    ///
    /// `len` bytes after each pointer are valid and the two ranges do not meet; for
    /// [`Avx512`], the host has AVX-512 F and BW.
    unsafe fn copy(dst: *mut u8, src: *const u8, len: usize);
}

/// 64-byte vectors, the last one masked ([`HostSimd::Avx512`]).
#[cfg(target_arch = "x86_64")]
struct Avx512;

#[cfg(target_arch = "x86_64")]
impl CopyRun for Avx512 {
    #[inline(always)]
    unsafe fn copy(dst: *mut u8, src: *const u8, len: usize) {
        // SAFETY: the contract (AVX-512 F/BW, valid disjoint ranges).
        unsafe { crate::avx512::copy_bytes(dst, src, len) }
    }
}

/// `copy_nonoverlapping` ([`HostSimd::Avx2`]).
struct Plain;

impl CopyRun for Plain {
    #[inline(always)]
    unsafe fn copy(dst: *mut u8, src: *const u8, len: usize) {
        // SAFETY: the contract (valid disjoint ranges).
        unsafe { std::ptr::copy_nonoverlapping(src, dst, len) }
    }
}

/// Copies the runs of `r` between the local store at `store` and the system bytes at `sys`
/// (S2L when `TO_LOCAL`) on chip `CHIPS[CHIP]`.
///
/// # Safety
///
/// `store` holds every lane of the chip, `sys` is valid for `r.sys_len` bytes (written only
/// for L2S) and does not meet the store; `r` passed its checks (every run inside the lanes and
/// inside `sys_len`); `K`'s contract on the host.
#[inline(always)]
unsafe fn copy_runs<const CHIP: usize, const TO_LOCAL: bool, K: CopyRun>(
    store: *mut u8,
    sys: *mut u8,
    r: &Runs,
) {
    let p = const { CHIPS[CHIP].local() };
    let npu = p.npu_num as usize;
    let pitch = p.store_pitch() as usize;
    // SAFETY: every local run lies inside its lane (the footprint check), every system run
    // inside `sys_len` (the span check); the two stores do not meet (the contract).
    let mv = |local: usize, s: usize, len: usize| unsafe {
        if TO_LOCAL {
            K::copy(store.add(local), sys.add(s), len);
        } else {
            K::copy(sys.add(s), store.add(local), len);
        }
    };
    if r.outer == 1 && r.start + r.c <= npu {
        // One group, no channel past the last lane: channel `ch` is `ch` pitches on.
        for ch in 0..r.c - 1 {
            mv(r.local + ch * pitch, ch * r.run, r.run);
        }
        let ch = r.c - 1;
        mv(r.local + ch * pitch, ch * r.run, r.last);
        return;
    }
    for o in 0..r.outer {
        let (mut at, mut lane) = (r.local + o * r.ns, r.start);
        let s0 = o * r.sys_step;
        for ch in 0..r.c {
            let len = if ch + 1 == r.c { r.last } else { r.run };
            mv(at, s0 + ch * r.run, len);
            if lane + 1 == npu {
                (at, lane) = (at + r.cs - (npu - 1) * pitch, 0);
            } else {
                (at, lane) = (at + pitch, lane + 1);
            }
        }
    }
}

/// [`copy_runs`] in 64-byte vectors.
///
/// # Safety
///
/// As [`copy_runs`]; the host has AVX-512 F and BW.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn runs_avx512<const CHIP: usize, const TO_LOCAL: bool>(
    store: *mut u8,
    sys: *mut u8,
    r: &Runs,
) {
    // SAFETY: this function's contract.
    unsafe { copy_runs::<CHIP, TO_LOCAL, Avx512>(store, sys, r) }
}

/// [`copy_runs`] by `copy_nonoverlapping`.
///
/// # Safety
///
/// As [`copy_runs`].
unsafe fn runs_plain<const CHIP: usize, const TO_LOCAL: bool>(
    store: *mut u8,
    sys: *mut u8,
    r: &Runs,
) {
    // SAFETY: this function's contract.
    unsafe { copy_runs::<CHIP, TO_LOCAL, Plain>(store, sys, r) }
}

impl TpuCore {
    /// The small-call path of `tpu_gdma_matrix_S2L` (`to_local`) and `_L2S` (see the module
    /// docs): `true` when it took the call (the move is done), `false` (nothing written) when
    /// the call fails a check or the host level is [`HostSimd::Baseline`]. `args`: `(rows,
    /// cols, cols_per_channel, row_stride)`.
    #[inline]
    pub(crate) fn matrix_small(
        &mut self,
        to_local: bool,
        local: LocalAddr,
        system: SystemAddr,
        args: (i32, i32, i32, i32),
        dtype: DataType,
    ) -> bool {
        if self.host_simd() == HostSimd::Baseline {
            return false;
        }
        let Some(shift) = eu_shift(dtype) else {
            return false;
        };
        let work = self.work_bound();
        let runs = match self.chip() {
            TpuChip::Bm1684x => matrix_runs::<0>(to_local, local, system, args, shift, work),
            TpuChip::Bm1688 => matrix_runs::<1>(to_local, local, system, args, shift, work),
        };
        match runs {
            Some(r) => self.move_runs(to_local, system, &r),
            None => false,
        }
    }

    /// The small-call path of `tpu_gdma_compact_S2L` (`to_local`) and `_L2S` (see the module
    /// docs); `false` (nothing written) as [`Self::matrix_small`].
    #[inline]
    pub(crate) fn compact_small(
        &mut self,
        to_local: bool,
        local: LocalAddr,
        system: SystemAddr,
        shape: &Dim4,
        dtype: DataType,
    ) -> bool {
        if self.host_simd() == HostSimd::Baseline || !self.dims_ok_fast(shape) {
            return false;
        }
        let Some(shift) = size_shift(dtype) else {
            return false;
        };
        let runs = match self.chip() {
            TpuChip::Bm1684x => compact_runs::<0>(local, system, shape, shift),
            TpuChip::Bm1688 => compact_runs::<1>(local, system, shape, shift),
        };
        match runs {
            Some(r) => self.move_runs(to_local, system, &r),
            None => false,
        }
    }

    /// Finds the system bytes of `r` at `system` (`false`, nothing allocated or written, when
    /// they are not inside one region), then copies the runs at the core's host level.
    #[inline]
    fn move_runs(&mut self, to_local: bool, system: SystemAddr, r: &Runs) -> bool {
        // The system side first (a refused call leaves the local store unallocated, as the
        // checked path does); a raw pointer, as the store is borrowed next.
        let sys: *mut u8 = if to_local {
            match self.memory().bytes(system, r.sys_len) {
                Ok(b) => b.as_ptr().cast_mut(),
                Err(_) => return false,
            }
        } else {
            match self.memory_mut().bytes_mut(system, r.sys_len) {
                Ok(b) => b.as_mut_ptr(),
                Err(_) => return false,
            }
        };
        let (chip, simd) = (self.chip(), self.host_simd());
        let store = self.local_store_mut();
        if (store.len() as u64) < chip.local().store_size() {
            return false;
        }
        let store = store.as_mut_ptr();
        macro_rules! go {
            ($f:ident) => {
                match (chip, to_local) {
                    (TpuChip::Bm1684x, true) => $f::<0, true>(store, sys, r),
                    (TpuChip::Bm1684x, false) => $f::<0, false>(store, sys, r),
                    (TpuChip::Bm1688, true) => $f::<1, true>(store, sys, r),
                    (TpuChip::Bm1688, false) => $f::<1, false>(store, sys, r),
                }
            };
        }
        // SAFETY: the store holds every lane of the chip (checked above); `sys` holds the
        // `sys_len` bytes of system memory (a buffer apart from the store), read only for S2L;
        // `r` passed its checks; AVX-512 F/BW at `HostSimd::Avx512` (never above the host's).
        unsafe {
            #[cfg(target_arch = "x86_64")]
            if simd == HostSimd::Avx512 {
                go!(runs_avx512);
                return true;
            }
            let _ = simd;
            go!(runs_plain);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The calls of `benches/tpu_small.rs` (`api gdma_matrix_*`, `api gdma_compact_*` at
    /// (1,1,1,8) and (1,4,1,16), f32) are taken at every level above Baseline, on both chips.
    #[test]
    fn takes_the_bench_calls() {
        for chip in CHIPS {
            for simd in [HostSimd::Avx512, HostSimd::Avx2] {
                let mut c = TpuCore::new(chip);
                c.set_host_simd(simd);
                let g = c.gm_base();
                let f = DataType::Fp32;
                for s in [Dim4::new(1, 1, 1, 8), Dim4::new(1, 4, 1, 16)] {
                    let (cols, cpc) = (s.c * s.w, s.w);
                    assert!(c.matrix_small(true, 0x4000, g, (1, cols, cpc, cols), f));
                    assert!(c.matrix_small(false, 0, g + (8 << 20), (1, cols, cpc, cols), f));
                    assert!(c.compact_small(true, 0x4000, g, &s, f));
                    assert!(c.compact_small(false, 0, g + (8 << 20), &s, f));
                }
                c.set_host_simd(HostSimd::Baseline);
                assert!(!c.compact_small(true, 0x4000, g, &Dim4::new(1, 1, 1, 8), f));
            }
        }
    }
}
