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
