//! Chip profiles: where global memory (DDR) and L2 SRAM sit in the `system_addr_t` space.
//!
//! Facts from the research note `shared/research/sophgo-hau.md` §1.5 and §3.1 (themselves taken
//! from the public `memmap.h` of the BM1684X firmware tree and tpu-mlir's backend headers):
//! BM1684X global memory starts at `0x1_0000_0000` and its L2 SRAM is `0x1FB000` bytes at
//! `0x1000_0000`; BM1688 places global memory at `1 << 39`. The public sources consulted give no
//! L2 SRAM range for BM1688, so that profile has none and the simulator rejects addresses there.
//!
//! How much global memory exists is a run-time choice (the C-model takes it as an argument of
//! `cmodel_init`), so the size is chosen when a [`crate::TpuCore`] is created; the profile only
//! carries a default.

use std::fmt;

/// A half-open byte range `[base, base + size)` of the system address space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AddrRange {
    /// First byte address.
    pub base: u64,
    /// Length in bytes.
    pub size: u64,
}

impl AddrRange {
    /// One past the last byte (saturating).
    pub const fn end(&self) -> u64 {
        self.base.saturating_add(self.size)
    }

    /// Whether `[addr, addr + len)` lies inside this range.
    pub const fn contains(&self, addr: u64, len: u64) -> bool {
        match addr.checked_add(len) {
            Some(end) => addr >= self.base && end <= self.end(),
            None => false,
        }
    }
}

impl fmt::Display for AddrRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{:#x}, {:#x})", self.base, self.end())
    }
}

/// How the HAU sort unit treats `f32` denormal keys (a named policy of the chip profile).
///
/// Observed on the BM1684X C-model (`libcmodel_bm1684x.so`, golden files `golden/hau/`, built by
/// `scripts/gen_hau_golden.py`): `cmodel_init` sets the host's x86 `MXCSR` to flush-to-zero and
/// denormals-are-zero, and the sort compares keys with `comiss`, so a denormal key *compares*
/// equal to `+-0` (and to every other denormal), while the sort moves the 32-bit patterns
/// untouched: a denormal comes out with its own bits, at a place chosen as if it were zero.
/// Everything that follows is the zero rule of the sort models ([`crate::sort`]) applied to the
/// whole zero class `{+-0, denormals}`: in the indexed sorts the class is ordered anti-stably
/// and only bit-identical runs get their indices put in ascending order; in the plain sort the
/// heap places them. `line_gather` copies bits and is not affected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DenormalPolicy {
    /// The C-model's rule (the hardware default): denormal keys compare as zero, values are
    /// moved bit for bit.
    CompareAsZero,
    /// IEEE comparisons: a denormal compares by its value (what a host without `DAZ` would
    /// compute; not what the vendor model does).
    Ieee,
}

impl DenormalPolicy {
    /// Short name for listings, e.g. `"compare-as-zero"`.
    pub const fn name(self) -> &'static str {
        match self {
            DenormalPolicy::CompareAsZero => "compare-as-zero",
            DenormalPolicy::Ieee => "ieee",
        }
    }
}

impl fmt::Display for DenormalPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The local-memory machine of one core: the numbers behind `tpu_npu_num`, `tpu_eu_num` and
/// friends.
///
/// BM1684X: 64 NPU lanes of 256 KiB in 16 banks, 64-byte execution-unit width (16 f32, 32
/// f16/bf16, 64 int8 per lane), GDMA w stride at most 128 bytes, one core. BM1688: 32 lanes of
/// 128 KiB in 16 banks, 16-byte EU width (4 f32, 8 f16, 16 int8), w stride at most 64 bytes,
/// two cores. Every number was read back from the vendor C-models (`libcmodel_bm1684x.so`,
/// `libcmodel_bm1688.so`, tpu-mlir 1.30.2) through the helpers of the same name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LocalProfile {
    /// NPU lanes (`tpu_npu_num`).
    pub npu_num: u32,
    /// Local memory bytes per lane (`tpu_local_mem_size_per_npu`).
    pub local_mem_per_npu: u32,
    /// Banks per lane (`tpu_bank_num`).
    pub bank_num: u32,
    /// Bytes one lane's execution units process at once (`tpu_eu_num(dtype) * size`).
    pub eu_bytes: u32,
    /// Largest GDMA w stride in bytes (`tpu_gdma_move_max_wstride_byte_len`).
    pub max_wstride_bytes: u32,
    /// Cores per chip (`tpu_core_num`).
    pub core_num: u32,
    /// The simulator's work bound: the most element operations one GDMA or BDC call may do
    /// (`N*C*H*W` of its shape; for a pooling call, output elements times kernel taps).
    ///
    /// A simulator limit, not a hardware one. Shapes reach 65535 in every dimension and
    /// strides may overlap (the C-model accepts an int8 `(1, 1, 65535, 65535)` destination with
    /// h and w strides of 1: 4.3e9 writes on 128 KiB), so without a bound one call could run
    /// for hours. The bound is 2^28 on both chips: 16 times the BM1684X local memory in bytes,
    /// so every tensor that fits in local memory without overlapping itself (at most 2^24 int8
    /// elements) fits 16 times over, and the longest accepted call stays around a second.
    /// A call above it is refused with [`crate::TpuError::WorkBound`]; split it.
    /// [`crate::TpuCore::set_work_bound`] overrides it per core.
    pub max_call_elems: u64,
}

/// How the BDC float instructions treat denormals (a named policy of the chip profile).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BdcDenormals {
    /// The C-model's rule (default): denormal inputs are read as a zero of the same sign and
    /// denormal results are written as a zero of the same sign.
    FlushToZero,
    /// IEEE gradual underflow.
    Ieee,
}

/// A Sophgo TPU chip the simulator knows the memory map of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TpuChip {
    /// BM1684X (`tpu_6_0`): one core, 64 NPU lanes.
    Bm1684x,
    /// BM1688 / CV186X (`tpul_6_0`): two cores, 32 NPU lanes.
    Bm1688,
}

impl TpuChip {
    /// Marketing name, e.g. `"BM1684X"`.
    pub const fn name(self) -> &'static str {
        match self {
            TpuChip::Bm1684x => "BM1684X",
            TpuChip::Bm1688 => "BM1688",
        }
    }

    /// Base `system_addr_t` of global memory.
    pub const fn gm_base(self) -> u64 {
        match self {
            TpuChip::Bm1684x => 0x1_0000_0000,
            TpuChip::Bm1688 => 1 << 39,
        }
    }

    /// L2 SRAM range, when the chip has one the simulator knows of.
    pub const fn l2_sram(self) -> Option<AddrRange> {
        match self {
            TpuChip::Bm1684x => Some(AddrRange {
                base: 0x1000_0000,
                size: 0x1F_B000,
            }),
            TpuChip::Bm1688 => None,
        }
    }

    /// The local-memory machine ([`LocalProfile`]).
    pub const fn local(self) -> LocalProfile {
        match self {
            TpuChip::Bm1684x => LocalProfile {
                npu_num: 64,
                local_mem_per_npu: 256 << 10,
                bank_num: 16,
                eu_bytes: 64,
                max_wstride_bytes: 128,
                core_num: 1,
                max_call_elems: 1 << 28,
            },
            TpuChip::Bm1688 => LocalProfile {
                npu_num: 32,
                local_mem_per_npu: 128 << 10,
                bank_num: 16,
                eu_bytes: 16,
                max_wstride_bytes: 64,
                core_num: 2,
                max_call_elems: 1 << 28,
            },
        }
    }

    /// How the BDC float instructions treat denormals ([`BdcDenormals::FlushToZero`] on both
    /// chips; observed on the BM1684X C-model, carried over to BM1688).
    pub const fn bdc_denormals(self) -> BdcDenormals {
        match self {
            TpuChip::Bm1684x | TpuChip::Bm1688 => BdcDenormals::FlushToZero,
        }
    }

    /// How the HAU sort compares `f32` denormal keys. Both chips use the C-model's rule
    /// ([`DenormalPolicy::CompareAsZero`]); for BM1688 this is the BM1684X observation carried
    /// over (its C-model library was not probed for denormals).
    pub const fn hau_denormals(self) -> DenormalPolicy {
        match self {
            TpuChip::Bm1684x | TpuChip::Bm1688 => DenormalPolicy::CompareAsZero,
        }
    }

    /// Global-memory size a [`crate::TpuCore`] gets from [`crate::TpuCore::new`]: 64 MiB, a
    /// simulator default (the C-model, too, takes the size as a parameter).
    pub const fn default_gm_size(self) -> u64 {
        64 << 20
    }
}

impl fmt::Display for TpuChip {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges() {
        let l2 = TpuChip::Bm1684x.l2_sram().expect("BM1684X has L2 SRAM");
        assert!(l2.contains(0x1000_0000, 0x1F_B000));
        assert!(!l2.contains(0x1000_0000, 0x1F_B001));
        assert!(!l2.contains(0x0FFF_FFFF, 1));
        assert!(!l2.contains(u64::MAX, 2));
        assert_eq!(TpuChip::Bm1688.gm_base(), 0x80_0000_0000);
    }
}
