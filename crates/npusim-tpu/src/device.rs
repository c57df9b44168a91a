//! [`TpuCore`]: one simulated Sophgo TPU core with its system memory, exposing the HAU
//! instructions under the vendor's names and parameter order.
//!
//! Implements the API of seed 003 (`tpu_hau_sort`, `tpu_hau_sort_natural_index`,
//! `tpu_hau_sort_specific_index`, `tpu_hau_line_gather`) plus `tpu_hau_poll`, over simulated
//! `system_addr_t` addresses. Each call checks the restrictions of seed 003 and of the C-model's
//! asserts (research note `shared/research/sophgo-hau.md` §1.3, §1.4) and returns a typed
//! [`HauError`] instead of aborting; then it reads its inputs, runs the model of [`crate::sort`]
//! or [`crate::gather`], and writes only what the C-model writes (the first `K` outputs of a
//! sort; the valid or constant-filled lines of a gather).
//!
//! Like the C-model, the simulator executes a HAU command as soon as it is issued;
//! [`TpuCore::tpu_hau_poll`] is the synchronisation point a kernel must still call before it
//! reads results, and here only retires the count of outstanding commands.

use crate::chip::{DenormalPolicy, TpuChip};
use crate::dtype::DataType;
use crate::error::{CoreError, HauError, HauOp, MaybeRange, MemError, TpuError};
use crate::gather;
use crate::local::{Dim4, LocalAddr, check_dst_stride, check_shape};
use crate::memory::{MAX_GM_SIZE, SystemAddr, SystemMemory};
use crate::sort::{self, KeyType, SortScratch};

/// Alignment of every sort address (`% sizeof(float) == 0`).
pub const SORT_ADDR_ALIGN: u64 = 4;
/// Alignment of every line_gather address (the GDE stores addresses from bit 6).
pub const LINE_GATHER_ADDR_ALIGN: u64 = 64;

const SORT_DTYPES: &str = "DT_FP32, DT_INT32, DT_UINT32";
const GATHER_DTYPES: &str = "8-, 16- or 32-bit types (DT_INT8, DT_UINT8, DT_FP8E5M2, DT_FP8E4M3, \
                             DT_FP16, DT_BFP16, DT_INT16, DT_UINT16, DT_FP32, DT_INT32, DT_UINT32)";

/// `scalar_t`: the 32-bit constant operand, kept as its bit pattern.
///
/// For 8- and 16-bit element types the instruction uses the low 8 or 16 bits; the typed
/// constructors sign-extend narrow values, as the vendor's callers pass them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Scalar(pub u32);

impl Scalar {
    /// From a raw 32-bit pattern.
    pub const fn from_bits(bits: u32) -> Scalar {
        Scalar(bits)
    }
    /// From an `f32`.
    pub fn from_f32(v: f32) -> Scalar {
        Scalar(v.to_bits())
    }
    /// From an `i32`.
    pub const fn from_i32(v: i32) -> Scalar {
        Scalar(v as u32)
    }
    /// From a 16-bit pattern (e.g. an `f16`/`bf16` bit pattern), sign-extended.
    pub const fn from_bits16(v: u16) -> Scalar {
        Scalar(v as i16 as i32 as u32)
    }
    /// From an 8-bit pattern, sign-extended.
    pub const fn from_bits8(v: u8) -> Scalar {
        Scalar(v as i8 as i32 as u32)
    }
    /// The 32-bit pattern.
    pub const fn bits(self) -> u32 {
        self.0
    }
}

/// [`TpuChip::default_gm_size`] in bytes (the same for every chip).
const DEFAULT_GM_BYTES: usize = 64 << 20;
const _: () = assert!(DEFAULT_GM_BYTES as u64 == TpuChip::Bm1684x.default_gm_size());
const _: () = assert!(DEFAULT_GM_BYTES as u64 == TpuChip::Bm1688.default_gm_size());

/// The host SIMD level of the small-call paths (`crate::avx512`, `crate::bdc_avx2`: fp
/// add/sub/mul, S2L/L2S, the element-wise integer, compare, select and bitwise calls; the
/// pools' and SFU's small paths): detected when a core is made, lowered with
/// [`TpuCore::set_host_simd`] (to compare the paths, or to rule a host feature out). The levels
/// are ordered; each path gives the same results. The pools' general driver keeps its AVX2
/// kernels at `Avx2` and above too; the other general drivers behind the small-call paths pick
/// their kernels by detecting the host themselves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum HostSimd {
    /// No explicit SIMD kernel: every call runs through the checked generic driver.
    Baseline,
    /// AVX2 (x86-64).
    Avx2,
    /// AVX-512 F, DQ, VL and BW (x86-64).
    Avx512,
}

impl HostSimd {
    /// The highest level this host has.
    pub fn detect() -> HostSimd {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            if has!("avx512f") && has!("avx512dq") && has!("avx512vl") && has!("avx512bw") {
                return HostSimd::Avx512;
            }
            if has!("avx2") {
                return HostSimd::Avx2;
            }
        }
        HostSimd::Baseline
    }
}

/// One simulated TPU core: chip profile, system memory and HAU state.
#[derive(Clone, Debug)]
pub struct TpuCore {
    chip: TpuChip,
    mem: SystemMemory,
    hau_outstanding: u64,
    hau_issued: u64,
    /// How sorts compare `f32` denormals (the chip profile's policy unless overridden).
    denormals: DenormalPolicy,
    /// Local memory of every NPU lane, `lane * LOCAL_MEM_SIZE + offset` (allocated on first use).
    local: Vec<u8>,
    /// Packed staging buffer of GDMA copies.
    pub(crate) gdma_buf: Vec<u8>,
    /// `tpu_parallel_start` seen without its `tpu_parallel_end`.
    parallel: bool,
    /// Buffers reused across sort commands (input copies and the sort's working space).
    scratch: Scratch,
    /// Most element operations one GDMA/BDC call may do (the profile's `max_call_elems`
    /// unless overridden).
    work_bound: u64,
    /// The SIMD level of the small-call paths (never above the detected one).
    simd: HostSimd,
}

#[derive(Clone, Debug, Default)]
struct Scratch {
    keys: Vec<u32>,
    idx: Vec<u32>,
    sort: SortScratch,
}

/// Alias: a simulated device is one core.
pub type Device = TpuCore;

impl TpuCore {
    /// A core of `chip` with the profile's default global-memory size
    /// ([`TpuChip::default_gm_size`], below [`MAX_GM_SIZE`]).
    pub fn new(chip: TpuChip) -> TpuCore {
        const _: () = assert!(TpuChip::Bm1684x.default_gm_size() <= MAX_GM_SIZE);
        const _: () = assert!(TpuChip::Bm1688.default_gm_size() <= MAX_GM_SIZE);
        TpuCore::from_memory(chip, SystemMemory::with_size(chip, DEFAULT_GM_BYTES))
    }

    /// A core of `chip` with `gm_size` bytes of global memory; sizes above [`MAX_GM_SIZE`]
    /// are refused with [`CoreError::GmSizeTooLarge`].
    pub fn with_gm_size(chip: TpuChip, gm_size: u64) -> Result<TpuCore, CoreError> {
        Ok(TpuCore::from_memory(
            chip,
            SystemMemory::new(chip, gm_size)?,
        ))
    }

    fn from_memory(chip: TpuChip, mem: SystemMemory) -> TpuCore {
        TpuCore {
            chip,
            mem,
            hau_outstanding: 0,
            hau_issued: 0,
            denormals: chip.hau_denormals(),
            local: Vec::new(),
            gdma_buf: Vec::new(),
            parallel: false,
            scratch: Scratch::default(),
            work_bound: chip.local().max_call_elems,
            simd: HostSimd::detect(),
        }
    }

    /// The host SIMD level the small-call paths of this core use.
    #[inline]
    pub fn host_simd(&self) -> HostSimd {
        self.simd
    }

    /// Caps the host SIMD level of this core's small-call paths at `level` (a level above the
    /// host's is capped at the host's): every level gives the same results, so this only
    /// chooses the code that runs (the twin tests run each).
    pub fn set_host_simd(&mut self, level: HostSimd) {
        self.simd = level.min(HostSimd::detect());
    }

    /// The flat local store: `NPU_NUM` lanes [`crate::LocalProfile::store_pitch`] bytes apart
    /// ([`crate::LocalProfile::store_index`] maps a `local_addr_t`), zero until written.
    #[inline]
    pub fn local_store(&self) -> &[u8] {
        &self.local
    }

    /// The flat local store, mutably (allocated on first use).
    #[inline]
    pub fn local_store_mut(&mut self) -> &mut [u8] {
        if self.local.is_empty() {
            self.local = vec![0; self.chip.local().store_size() as usize];
        }
        &mut self.local
    }

    /// The flat local store (allocated on first use) and the system memory, both mutably: the
    /// two sides of an S2L/L2S copy, which never overlap.
    #[inline]
    pub(crate) fn local_and_memory_mut(&mut self) -> (&mut [u8], &mut SystemMemory) {
        self.local_store_mut();
        (&mut self.local, &mut self.mem)
    }

    /// Reads `len` bytes of local memory at `addr` (a `local_addr_t`, one lane).
    pub fn read_local(&self, addr: LocalAddr, len: usize) -> Result<Vec<u8>, TpuError> {
        self.local_range("read_local", addr, len)?;
        let a = self.chip.local().store_index(addr);
        Ok(match self.local.get(a..a + len) {
            Some(s) => s.to_vec(),
            None => vec![0; len],
        })
    }

    /// Writes bytes into local memory at `addr` (inside one lane).
    pub fn write_local(&mut self, addr: LocalAddr, data: &[u8]) -> Result<(), TpuError> {
        self.local_range("write_local", addr, data.len())?;
        let a = self.chip.local().store_index(addr);
        self.local_store_mut()[a..a + data.len()].copy_from_slice(data);
        Ok(())
    }

    fn local_range(&self, op: &'static str, addr: LocalAddr, len: usize) -> Result<(), TpuError> {
        let p = self.chip.local();
        let end = u64::from(p.npu_offset(addr)) + len as u64;
        if u64::from(addr) >= p.local_space() || end > u64::from(p.local_mem_per_npu) {
            return Err(TpuError::LocalFootprint {
                op,
                param: "addr",
                addr,
                end: end as i64,
                limit: p.local_mem_per_npu,
            });
        }
        Ok(())
    }

    // -- synchronisation: functional no-ops over a checked state machine -----------------

    /// `tpu_poll`: waits for BDC and GDMA; both run when issued, so nothing is pending.
    pub fn tpu_poll(&mut self) {}

    /// `tpu_parallel_start`: opens a GDMA/BDC overlap region; nesting is an error.
    pub fn tpu_parallel_start(&mut self) -> Result<(), TpuError> {
        if self.parallel {
            return Err(TpuError::SyncState {
                op: "tpu_parallel_start",
                rule: "already in parallel state (call tpu_parallel_end first)",
            });
        }
        self.parallel = true;
        Ok(())
    }

    /// `tpu_parallel_end`: closes the overlap region opened by `tpu_parallel_start`.
    pub fn tpu_parallel_end(&mut self) -> Result<(), TpuError> {
        if !self.parallel {
            return Err(TpuError::SyncState {
                op: "tpu_parallel_end",
                rule: "not in parallel state (call tpu_parallel_start first)",
            });
        }
        self.parallel = false;
        Ok(())
    }

    /// `tpu_is_parallel_state`.
    pub fn tpu_is_parallel_state(&self) -> bool {
        self.parallel
    }

    /// `tpu_sync_all`: a barrier over the chip's cores; one simulated core has nothing to wait
    /// for, but a barrier inside a parallel region is refused.
    pub fn tpu_sync_all(&mut self) -> Result<(), TpuError> {
        if self.parallel {
            return Err(TpuError::SyncState {
                op: "tpu_sync_all",
                rule: "must not be called in parallel state",
            });
        }
        Ok(())
    }

    /// `tpu_core_index`: this core's index (a simulated core is core 0).
    pub fn tpu_core_index(&self) -> u32 {
        0
    }

    /// `tpu_core_num`.
    pub fn tpu_core_num(&self) -> u32 {
        self.chip.local().core_num
    }

    /// The chip profile.
    pub fn chip(&self) -> TpuChip {
        self.chip
    }

    /// How this core's sorts compare `f32` denormal keys.
    pub fn denormal_policy(&self) -> DenormalPolicy {
        self.denormals
    }

    /// Overrides the chip profile's [`DenormalPolicy`] (e.g. to compare against an IEEE model).
    pub fn set_denormal_policy(&mut self, policy: DenormalPolicy) {
        self.denormals = policy;
    }

    /// The work bound of this core: the most element operations one GDMA or BDC call may do
    /// ([`crate::LocalProfile::max_call_elems`] unless overridden).
    pub fn work_bound(&self) -> u64 {
        self.work_bound
    }

    /// Overrides the chip profile's work bound (a larger one lets single calls run longer).
    pub fn set_work_bound(&mut self, bound: u64) {
        self.work_bound = bound;
    }

    /// Checks `shape` as every GDMA/BDC call does: each dimension in `[1, 65535]`
    /// ([`check_shape`]) and `N*C*H*W` within the work bound.
    #[inline]
    pub(crate) fn check_dims(&self, op: &'static str, shape: &Dim4) -> Result<(), TpuError> {
        if self.dims_ok_fast(shape) {
            return Ok(());
        }
        self.check_dims_checked(op, shape)
    }

    /// Whether [`Self::check_dims`] passes, by four range tests and one product (the path of
    /// every valid call; the checked path below names the error).
    #[inline(always)]
    pub(crate) fn dims_ok_fast(&self, shape: &Dim4) -> bool {
        let dims = [shape.n, shape.c, shape.h, shape.w];
        // `d - 1` as u32 is below 65535 exactly when `d` is in [1, 65535].
        let in_range = dims
            .iter()
            .fold(true, |ok, &d| ok & ((d.wrapping_sub(1) as u32) < 65535));
        // Each factor is below 2^16 once in range: the product fits in u64.
        in_range && dims.iter().map(|&d| d as u64).product::<u64>() <= self.work_bound
    }

    #[inline(never)]
    fn check_dims_checked(&self, op: &'static str, shape: &Dim4) -> Result<(), TpuError> {
        check_shape(op, shape)?;
        let count = [shape.n, shape.c, shape.h, shape.w]
            .iter()
            .map(|&d| d.unsigned_abs() as u128)
            .product();
        self.check_work(op, "shape", count)
    }

    /// [`Self::check_dims`] for a BDC call with a destination stride: between the dimension
    /// ranges and the work bound, the C-model's zero-destination-stride rule
    /// ([`check_dst_stride`]), so a call the C-model refuses gets the C-model's reason.
    #[inline]
    pub(crate) fn check_dims_dst(
        &self,
        op: &'static str,
        shape: &Dim4,
        dst_stride: Option<&Dim4>,
    ) -> Result<(), TpuError> {
        if dst_stride.is_none() && self.dims_ok_fast(shape) {
            return Ok(());
        }
        self.check_dims_dst_checked(op, shape, dst_stride)
    }

    #[inline(never)]
    fn check_dims_dst_checked(
        &self,
        op: &'static str,
        shape: &Dim4,
        dst_stride: Option<&Dim4>,
    ) -> Result<(), TpuError> {
        check_shape(op, shape)?;
        check_dst_stride(op, shape, dst_stride)?;
        let count = [shape.n, shape.c, shape.h, shape.w]
            .iter()
            .map(|&d| d.unsigned_abs() as u128)
            .product();
        self.check_work(op, "shape", count)
    }

    /// Checks that `work` element operations (counted as `param` describes) are within the
    /// work bound.
    #[inline]
    pub(crate) fn check_work(
        &self,
        op: &'static str,
        param: &'static str,
        work: u128,
    ) -> Result<(), TpuError> {
        if work > u128::from(self.work_bound) {
            return Err(TpuError::WorkBound {
                op,
                param,
                value: work,
                limit: self.work_bound,
            });
        }
        Ok(())
    }

    /// First global-memory address.
    pub fn gm_base(&self) -> SystemAddr {
        self.mem.gm_range().base
    }

    /// The simulated memory.
    pub fn memory(&self) -> &SystemMemory {
        &self.mem
    }

    /// The simulated memory, mutably.
    pub fn memory_mut(&mut self) -> &mut SystemMemory {
        &mut self.mem
    }

    /// HAU commands issued since creation.
    pub fn hau_issued(&self) -> u64 {
        self.hau_issued
    }

    /// HAU commands issued since the last [`TpuCore::tpu_hau_poll`].
    pub fn hau_outstanding(&self) -> u64 {
        self.hau_outstanding
    }

    // -- memory helpers ------------------------------------------------------------------

    /// Copies `len` bytes at `addr`.
    pub fn read_bytes(&self, addr: SystemAddr, len: usize) -> Result<Vec<u8>, MemError> {
        self.mem.read_bytes(addr, len)
    }
    /// Writes `data` at `addr`.
    pub fn write_bytes(&mut self, addr: SystemAddr, data: &[u8]) -> Result<(), MemError> {
        self.mem.write_bytes(addr, data)
    }
    /// Sets `len` bytes at `addr` to `byte`.
    pub fn fill_bytes(&mut self, addr: SystemAddr, len: usize, byte: u8) -> Result<(), MemError> {
        self.mem.fill(addr, len, byte)
    }
    /// Reads `n` `u32` values.
    pub fn read_u32s(&self, addr: SystemAddr, n: usize) -> Result<Vec<u32>, MemError> {
        self.mem.read_u32s(addr, n)
    }
    /// Writes `u32` values.
    pub fn write_u32s(&mut self, addr: SystemAddr, v: &[u32]) -> Result<(), MemError> {
        self.mem.write_u32s(addr, v)
    }
    /// Reads `n` `i32` values.
    pub fn read_i32s(&self, addr: SystemAddr, n: usize) -> Result<Vec<i32>, MemError> {
        self.mem.read_i32s(addr, n)
    }
    /// Writes `i32` values.
    pub fn write_i32s(&mut self, addr: SystemAddr, v: &[i32]) -> Result<(), MemError> {
        self.mem.write_i32s(addr, v)
    }
    /// Reads `n` `f32` values.
    pub fn read_f32s(&self, addr: SystemAddr, n: usize) -> Result<Vec<f32>, MemError> {
        self.mem.read_f32s(addr, n)
    }
    /// Writes `f32` values.
    pub fn write_f32s(&mut self, addr: SystemAddr, v: &[f32]) -> Result<(), MemError> {
        self.mem.write_f32s(addr, v)
    }
    /// Reads `n` `u16` values (e.g. `f16`/`bf16` bit patterns).
    pub fn read_u16s(&self, addr: SystemAddr, n: usize) -> Result<Vec<u16>, MemError> {
        self.mem.read_u16s(addr, n)
    }
    /// Writes `u16` values.
    pub fn write_u16s(&mut self, addr: SystemAddr, v: &[u16]) -> Result<(), MemError> {
        self.mem.write_u16s(addr, v)
    }

    // -- checks --------------------------------------------------------------------------

    fn check_buffer(
        &self,
        op: HauOp,
        param: &'static str,
        addr: SystemAddr,
        bytes: u64,
        align: u64,
    ) -> Result<(), HauError> {
        if !addr.is_multiple_of(align) {
            return Err(HauError::Misaligned {
                op,
                param,
                addr,
                align,
            });
        }
        if self.mem.locate(addr, bytes).is_none() {
            return Err(HauError::AddressOutOfRange {
                op,
                param,
                addr,
                bytes,
                gm: self.mem.gm_range(),
                l2: MaybeRange(self.mem.l2_range()),
            });
        }
        Ok(())
    }

    fn check_sort(
        &self,
        op: HauOp,
        len: i32,
        k: i32,
        dtype: DataType,
        buffers: &[(&'static str, SystemAddr, i32)],
    ) -> Result<KeyType, HauError> {
        let kind =
            KeyType::for_policy(dtype, self.denormals).ok_or(HauError::UnsupportedDtype {
                op,
                dtype,
                allowed: SORT_DTYPES,
            })?;
        if len < 1 {
            return Err(HauError::LenOutOfRange { op, len });
        }
        if k < 1 || k > len {
            return Err(HauError::KOutOfRange { op, k, len });
        }
        for &(param, addr, count) in buffers {
            self.check_buffer(op, param, addr, 4 * count as u64, SORT_ADDR_ALIGN)?;
        }
        Ok(kind)
    }

    fn issued(&mut self) {
        self.hau_issued += 1;
        self.hau_outstanding += 1;
    }

    fn write_words(
        &mut self,
        op: HauOp,
        param: &'static str,
        addr: SystemAddr,
        words: &[u32],
    ) -> Result<(), HauError> {
        store_words(&mut self.mem, addr, words).map_err(|e| mem_fail(op, param, e))
    }

    fn read_words(
        &self,
        op: HauOp,
        param: &'static str,
        addr: SystemAddr,
        n: usize,
    ) -> Result<Vec<u32>, HauError> {
        let mut v = Vec::new();
        load_words(&self.mem, addr, n, &mut v).map_err(|e| mem_fail(op, param, e))?;
        Ok(v)
    }

    // -- HAU instructions ----------------------------------------------------------------

    /// `tpu_hau_sort`: writes the `K` smallest (or, with `descended`, largest) of the `len`
    /// values at `input_addr` to `output_addr`, sorted, exactly as the C-model's heap-based
    /// partial sort with the non-strict comparator orders them ([`sort::sort_values`]).
    ///
    /// `dtype` is `DT_FP32`, `DT_INT32` or `DT_UINT32`; addresses are 4-byte aligned;
    /// `1 <= K <= len`. Only `K` outputs are written.
    pub fn tpu_hau_sort(
        &mut self,
        output_addr: SystemAddr,
        input_addr: SystemAddr,
        len: i32,
        k: i32,
        descended: bool,
        dtype: DataType,
    ) -> Result<(), HauError> {
        let op = HauOp::Sort;
        let kind = self.check_sort(
            op,
            len,
            k,
            dtype,
            &[
                ("input_addr", input_addr, len),
                ("output_addr", output_addr, k),
            ],
        )?;
        let keys = self.read_words(op, "input_addr", input_addr, len as usize)?;
        let out = sort::sort_values(&keys, k as usize, descended, kind);
        self.write_words(op, "output_addr", output_addr, &out)?;
        self.issued();
        Ok(())
    }

    /// `tpu_hau_sort_natural_index`: the first `K` of the sorted values and their input
    /// positions (`output_idx` is `INT32`), with the C-model's placement of NaN and `+-0`
    /// ([`sort::indexed_order`]); without NaN and signed zeros this is a stable sort.
    ///
    /// `dtype` is `DT_FP32`, `DT_INT32` or `DT_UINT32`; addresses are 4-byte aligned;
    /// `1 <= K <= len`. Only `K` data and `K` indices are written.
    #[allow(clippy::too_many_arguments)] // the vendor instruction's own parameter list
    pub fn tpu_hau_sort_natural_index(
        &mut self,
        output_data_addr: SystemAddr,
        output_idx_addr: SystemAddr,
        input_addr: SystemAddr,
        len: i32,
        k: i32,
        descended: bool,
        dtype: DataType,
    ) -> Result<(), HauError> {
        let op = HauOp::SortNaturalIndex;
        let kind = self.check_sort(
            op,
            len,
            k,
            dtype,
            &[
                ("input_addr", input_addr, len),
                ("output_data_addr", output_data_addr, k),
                ("output_idx_addr", output_idx_addr, k),
            ],
        )?;
        let sc = &mut self.scratch;
        load_words(&self.mem, input_addr, len as usize, &mut sc.keys)
            .map_err(|e| mem_fail(op, "input_addr", e))?;
        sc.sort.indexed(&sc.keys, None, k as usize, descended, kind);
        store_words(&mut self.mem, output_data_addr, &sc.sort.vals)
            .map_err(|e| mem_fail(op, "output_data_addr", e))?;
        store_words(&mut self.mem, output_idx_addr, &sc.sort.pos)
            .map_err(|e| mem_fail(op, "output_idx_addr", e))?;
        self.issued();
        Ok(())
    }

    /// `tpu_hau_sort_specific_index`: like [`TpuCore::tpu_hau_sort_natural_index`], but the
    /// emitted indices come from `input_idx_addr` and runs of bit-identical values are ordered
    /// by those indices compared as `u32`.
    #[allow(clippy::too_many_arguments)] // the vendor instruction's own parameter list
    pub fn tpu_hau_sort_specific_index(
        &mut self,
        output_data_addr: SystemAddr,
        output_idx_addr: SystemAddr,
        input_data_addr: SystemAddr,
        input_idx_addr: SystemAddr,
        len: i32,
        k: i32,
        descended: bool,
        dtype: DataType,
    ) -> Result<(), HauError> {
        let op = HauOp::SortSpecificIndex;
        let kind = self.check_sort(
            op,
            len,
            k,
            dtype,
            &[
                ("input_data_addr", input_data_addr, len),
                ("input_idx_addr", input_idx_addr, len),
                ("output_data_addr", output_data_addr, k),
                ("output_idx_addr", output_idx_addr, k),
            ],
        )?;
        let sc = &mut self.scratch;
        load_words(&self.mem, input_data_addr, len as usize, &mut sc.keys)
            .map_err(|e| mem_fail(op, "input_data_addr", e))?;
        load_words(&self.mem, input_idx_addr, len as usize, &mut sc.idx)
            .map_err(|e| mem_fail(op, "input_idx_addr", e))?;
        sc.sort
            .indexed(&sc.keys, Some(&sc.idx), k as usize, descended, kind);
        // Emitted indices are the given ones.
        for p in sc.sort.pos.iter_mut() {
            *p = sc.idx.get(*p as usize).copied().unwrap_or(0);
        }
        store_words(&mut self.mem, output_data_addr, &sc.sort.vals)
            .map_err(|e| mem_fail(op, "output_data_addr", e))?;
        store_words(&mut self.mem, output_idx_addr, &sc.sort.pos)
            .map_err(|e| mem_fail(op, "output_idx_addr", e))?;
        self.issued();
        Ok(())
    }

    /// `tpu_hau_line_gather`: `output[h, :] = param[index[h] - start, :]` for
    /// `start <= index[h] <= end` (`index` is `UINT32`), else `C` when `fill_const`, else the line
    /// is left untouched. `param_addr` points at line `start` of the `line_num`-line table, so
    /// only the `end - start + 1` window lines are read.
    ///
    /// Restrictions: all three addresses 64-byte aligned; `dtype` 8, 16 or 32 bits wide;
    /// `0 <= start <= end < line_num`; `line_len >= 1`, `index_len >= 1`.
    #[allow(clippy::too_many_arguments)] // the vendor instruction's own parameter list
    pub fn tpu_hau_line_gather(
        &mut self,
        output_addr: SystemAddr,
        param_addr: SystemAddr,
        index_addr: SystemAddr,
        c: Scalar,
        line_num: i32,
        line_len: i32,
        index_len: i32,
        start: i32,
        end: i32,
        dtype: DataType,
        fill_const: bool,
    ) -> Result<(), HauError> {
        let op = HauOp::LineGather;
        let esize: usize = match dtype.bits() {
            8 => 1,
            16 => 2,
            32 => 4,
            _ => {
                return Err(HauError::UnsupportedDtype {
                    op,
                    dtype,
                    allowed: GATHER_DTYPES,
                });
            }
        };
        if start < 0 {
            return Err(HauError::StartNegative { op, start });
        }
        if start > end {
            return Err(HauError::StartAfterEnd { op, start, end });
        }
        if end >= line_num {
            return Err(HauError::EndOutOfRange { op, end, line_num });
        }
        if line_len < 1 {
            return Err(HauError::CountOutOfRange {
                op,
                param: "line_len",
                value: line_len,
            });
        }
        if index_len < 1 {
            return Err(HauError::CountOutOfRange {
                op,
                param: "index_len",
                value: index_len,
            });
        }
        let row_bytes = line_len as u64 * esize as u64;
        let window_lines = (end - start) as u64 + 1;
        let param_bytes = window_lines * row_bytes;
        let out_bytes = index_len as u64 * row_bytes;
        let index_bytes = index_len as u64 * 4;
        self.check_buffer(
            op,
            "output_addr",
            output_addr,
            out_bytes,
            LINE_GATHER_ADDR_ALIGN,
        )?;
        self.check_buffer(
            op,
            "param_addr",
            param_addr,
            param_bytes,
            LINE_GATHER_ADDR_ALIGN,
        )?;
        self.check_buffer(
            op,
            "index_addr",
            index_addr,
            index_bytes,
            LINE_GATHER_ADDR_ALIGN,
        )?;

        let index = self.read_words(op, "index_addr", index_addr, index_len as usize)?;
        let c_bytes = c.bits().to_le_bytes();
        let c_elem = &c_bytes[..esize];
        let (param, out) = self
            .mem
            .src_dst(
                param_addr,
                param_bytes as usize,
                output_addr,
                out_bytes as usize,
            )
            .map_err(|e| HauError::AddressOutOfRange {
                op,
                param: "param_addr",
                addr: e.addr,
                bytes: e.bytes,
                gm: e.gm,
                l2: e.l2,
            })?;
        gather::line_gather_rows(
            out,
            &param,
            &index,
            c_elem,
            row_bytes as usize,
            start as u32,
            end as u32,
            fill_const,
        );
        self.issued();
        Ok(())
    }

    /// `tpu_hau_poll`: waits for the HAU commands issued so far. The simulator executes each
    /// command when it is issued, so this only retires them; it returns how many were
    /// outstanding.
    pub fn tpu_hau_poll(&mut self) -> u64 {
        std::mem::take(&mut self.hau_outstanding)
    }
}

/// Reads `n` little-endian words at `addr` into `out` (replacing its contents).
fn load_words(
    mem: &SystemMemory,
    addr: SystemAddr,
    n: usize,
    out: &mut Vec<u32>,
) -> Result<(), MemError> {
    let src = mem.bytes(addr, 4 * n)?;
    out.clear();
    out.extend(
        src.chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])),
    );
    Ok(())
}

/// Writes `words` little-endian at `addr`.
fn store_words(mem: &mut SystemMemory, addr: SystemAddr, words: &[u32]) -> Result<(), MemError> {
    let dst = mem.bytes_mut(addr, 4 * words.len())?;
    for (c, w) in dst.chunks_exact_mut(4).zip(words) {
        c.copy_from_slice(&w.to_le_bytes());
    }
    Ok(())
}

/// Converts a memory access failure (which the checks before it rule out) into the
/// instruction's error.
fn mem_fail(op: HauOp, param: &'static str, e: MemError) -> HauError {
    HauError::AddressOutOfRange {
        op,
        param,
        addr: e.addr,
        bytes: e.bytes,
        gm: e.gm,
        l2: e.l2,
    }
}
