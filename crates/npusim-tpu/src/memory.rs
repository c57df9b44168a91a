//! Simulated system memory of one TPU core: global memory (DDR) and L2 SRAM, both addressed by
//! `system_addr_t` ([`SystemAddr`]).
//!
//! The HAU instructions of seed 003 read and write system memory only (research note
//! `shared/research/sophgo-hau.md` §1.3: "all addresses are `system_addr_t` (DDR or L2 SRAM)").
//! A buffer must lie wholly inside one of the two regions. Multi-byte values are little-endian,
//! as on the chip and in the C-model.

use std::borrow::Cow;

use crate::chip::{AddrRange, TpuChip};
use crate::error::{CoreError, MaybeRange, MemError};

/// Largest global memory a simulated core may have: 16 GiB, the largest DDR of a BM1684X
/// board configuration and far beyond any kernel test. Asking for more is a typed error
/// ([`CoreError::GmSizeTooLarge`]) instead of an allocation the host cannot satisfy. Memory is
/// zero-initialised lazily by the host allocator, so an unused large global memory costs
/// address space, not RAM.
pub const MAX_GM_SIZE: u64 = 16 << 30;

/// A `system_addr_t`: a 64-bit address in global memory or L2 SRAM.
pub type SystemAddr = u64;

/// Which backing store a system address falls in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Region {
    /// Global memory (DDR).
    Global,
    /// On-chip L2 SRAM.
    L2Sram,
}

/// Byte storage for global memory and L2 SRAM of one core.
#[derive(Clone, Debug)]
pub struct SystemMemory {
    gm_range: AddrRange,
    l2_range: Option<AddrRange>,
    gm: Vec<u8>,
    l2: Vec<u8>,
}

impl SystemMemory {
    /// Zero-filled memory for `chip` with `gm_size` bytes of global memory, at most
    /// [`MAX_GM_SIZE`].
    pub fn new(chip: TpuChip, gm_size: u64) -> Result<SystemMemory, CoreError> {
        let too_large = CoreError::GmSizeTooLarge {
            requested: gm_size,
            limit: MAX_GM_SIZE,
        };
        if gm_size > MAX_GM_SIZE {
            return Err(too_large);
        }
        let gm_size = usize::try_from(gm_size).map_err(|_| too_large)?;
        Ok(SystemMemory::with_size(chip, gm_size))
    }

    /// Zero-filled memory with `gm_size` bytes of global memory (the caller checked the size).
    pub(crate) fn with_size(chip: TpuChip, gm_size: usize) -> SystemMemory {
        let l2_range = chip.l2_sram();
        let l2_size = l2_range.map_or(0, |r| usize::try_from(r.size).unwrap_or(0));
        SystemMemory {
            gm_range: AddrRange {
                base: chip.gm_base(),
                size: gm_size as u64,
            },
            l2_range,
            gm: vec![0; gm_size],
            l2: vec![0; l2_size],
        }
    }

    /// Global-memory range.
    pub fn gm_range(&self) -> AddrRange {
        self.gm_range
    }

    /// L2 SRAM range, if the chip has one.
    pub fn l2_range(&self) -> Option<AddrRange> {
        self.l2_range
    }

    /// The region and the byte offset within it of `[addr, addr + len)`, or `None` when the
    /// buffer is not wholly inside one region.
    pub fn locate(&self, addr: SystemAddr, len: u64) -> Option<(Region, usize)> {
        if self.gm_range.contains(addr, len) {
            return Some((Region::Global, (addr - self.gm_range.base) as usize));
        }
        match self.l2_range {
            Some(r) if r.contains(addr, len) => Some((Region::L2Sram, (addr - r.base) as usize)),
            _ => None,
        }
    }

    fn err(&self, addr: SystemAddr, bytes: u64) -> MemError {
        MemError {
            addr,
            bytes,
            gm: self.gm_range,
            l2: MaybeRange(self.l2_range),
        }
    }

    fn store(&self, region: Region) -> &[u8] {
        match region {
            Region::Global => &self.gm,
            Region::L2Sram => &self.l2,
        }
    }

    fn store_mut(&mut self, region: Region) -> &mut Vec<u8> {
        match region {
            Region::Global => &mut self.gm,
            Region::L2Sram => &mut self.l2,
        }
    }

    /// Borrows `len` bytes at `addr`.
    pub fn bytes(&self, addr: SystemAddr, len: usize) -> Result<&[u8], MemError> {
        let (region, off) = self
            .locate(addr, len as u64)
            .ok_or_else(|| self.err(addr, len as u64))?;
        Ok(&self.store(region)[off..off + len])
    }

    /// Mutably borrows `len` bytes at `addr`.
    pub fn bytes_mut(&mut self, addr: SystemAddr, len: usize) -> Result<&mut [u8], MemError> {
        let (region, off) = self
            .locate(addr, len as u64)
            .ok_or_else(|| self.err(addr, len as u64))?;
        Ok(&mut self.store_mut(region)[off..off + len])
    }

    /// Borrows a source buffer for reading and a destination buffer for writing at the same
    /// time. The source is borrowed in place when the two do not overlap and copied otherwise
    /// (so an overlapping copy reads the source as it was before the instruction).
    pub fn src_dst(
        &mut self,
        src: SystemAddr,
        src_len: usize,
        dst: SystemAddr,
        dst_len: usize,
    ) -> Result<(Cow<'_, [u8]>, &mut [u8]), MemError> {
        let (sr, so) = self
            .locate(src, src_len as u64)
            .ok_or_else(|| self.err(src, src_len as u64))?;
        let (dr, d_off) = self
            .locate(dst, dst_len as u64)
            .ok_or_else(|| self.err(dst, dst_len as u64))?;
        if sr != dr {
            let (gm, l2) = (&mut self.gm, &mut self.l2);
            let (s, d) = match sr {
                Region::Global => (&gm[..], &mut l2[..]),
                Region::L2Sram => (&l2[..], &mut gm[..]),
            };
            return Ok((
                Cow::Borrowed(&s[so..so + src_len]),
                &mut d[d_off..d_off + dst_len],
            ));
        }
        let store = self.store_mut(sr);
        if so + src_len <= d_off {
            let (a, b) = store.split_at_mut(d_off);
            Ok((Cow::Borrowed(&a[so..so + src_len]), &mut b[..dst_len]))
        } else if d_off + dst_len <= so {
            let (a, b) = store.split_at_mut(so);
            Ok((Cow::Borrowed(&b[..src_len]), &mut a[d_off..d_off + dst_len]))
        } else {
            let copy = store[so..so + src_len].to_vec();
            Ok((Cow::Owned(copy), &mut store[d_off..d_off + dst_len]))
        }
    }

    /// Copies `len` bytes at `addr` into a new vector.
    pub fn read_bytes(&self, addr: SystemAddr, len: usize) -> Result<Vec<u8>, MemError> {
        self.bytes(addr, len).map(<[u8]>::to_vec)
    }

    /// Writes `data` at `addr`.
    pub fn write_bytes(&mut self, addr: SystemAddr, data: &[u8]) -> Result<(), MemError> {
        self.bytes_mut(addr, data.len())?.copy_from_slice(data);
        Ok(())
    }

    /// Sets `len` bytes at `addr` to `byte`.
    pub fn fill(&mut self, addr: SystemAddr, len: usize, byte: u8) -> Result<(), MemError> {
        self.bytes_mut(addr, len)?.fill(byte);
        Ok(())
    }
}

macro_rules! typed_access {
    ($read:ident, $write:ident, $t:ty) => {
        impl SystemMemory {
            #[doc = concat!("Reads `count` little-endian `", stringify!($t), "` values at `addr`.")]
            pub fn $read(&self, addr: SystemAddr, count: usize) -> Result<Vec<$t>, MemError> {
                const N: usize = size_of::<$t>();
                let bytes = count
                    .checked_mul(N)
                    .ok_or_else(|| self.err(addr, u64::MAX))?;
                let raw = self.bytes(addr, bytes)?;
                Ok(raw
                    .chunks_exact(N)
                    .map(|c| {
                        let mut a = [0u8; N];
                        a.copy_from_slice(c);
                        <$t>::from_le_bytes(a)
                    })
                    .collect())
            }

            #[doc = concat!("Writes `values` as little-endian `", stringify!($t), "` at `addr`.")]
            pub fn $write(&mut self, addr: SystemAddr, values: &[$t]) -> Result<(), MemError> {
                const N: usize = size_of::<$t>();
                let bytes = values
                    .len()
                    .checked_mul(N)
                    .ok_or_else(|| self.err(addr, u64::MAX))?;
                let raw = self.bytes_mut(addr, bytes)?;
                for (c, v) in raw.chunks_exact_mut(N).zip(values) {
                    c.copy_from_slice(&v.to_le_bytes());
                }
                Ok(())
            }
        }
    };
}

typed_access!(read_u16s, write_u16s, u16);
typed_access!(read_i16s, write_i16s, i16);
typed_access!(read_u32s, write_u32s, u32);
typed_access!(read_i32s, write_i32s, i32);
typed_access!(read_f32s, write_f32s, f32);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_and_bounds() {
        let mut m = SystemMemory::new(TpuChip::Bm1684x, 4096).unwrap();
        let gm = TpuChip::Bm1684x.gm_base();
        m.write_u32s(gm + 8, &[1, 0xdead_beef]).unwrap();
        assert_eq!(m.read_u32s(gm + 8, 2).unwrap(), vec![1, 0xdead_beef]);
        assert_eq!(m.read_bytes(gm + 12, 1).unwrap(), vec![0xef]);
        assert!(m.read_bytes(gm + 4095, 2).is_err());
        assert!(m.read_bytes(gm - 1, 1).is_err());
        m.write_f32s(0x1000_0000, &[-0.0]).unwrap();
        assert_eq!(m.read_u32s(0x1000_0000, 1).unwrap(), vec![0x8000_0000]);
        assert!(m.read_bytes(0x1000_0000 + 0x1F_B000 - 1, 2).is_err());
        assert!(m.read_bytes(u64::MAX, 2).is_err());
        let m2 = SystemMemory::new(TpuChip::Bm1688, 16).unwrap();
        assert!(m2.read_bytes(0x1000_0000, 1).is_err());
        assert!(m2.read_bytes(1 << 39, 16).is_ok());
    }

    #[test]
    fn src_dst_overlap_and_cross_region() {
        let mut m = SystemMemory::new(TpuChip::Bm1684x, 64).unwrap();
        let gm = TpuChip::Bm1684x.gm_base();
        m.write_bytes(gm, &(0..64).collect::<Vec<u8>>()).unwrap();
        {
            let (s, d) = m.src_dst(gm, 8, gm + 4, 8).unwrap();
            assert!(matches!(s, Cow::Owned(_)));
            d.copy_from_slice(&s);
        }
        assert_eq!(
            m.read_bytes(gm, 12).unwrap(),
            [0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 6, 7]
        );
        {
            let (s, d) = m.src_dst(gm + 32, 4, gm, 4).unwrap();
            assert!(matches!(s, Cow::Borrowed(_)));
            d.copy_from_slice(&s);
        }
        assert_eq!(m.read_bytes(gm, 4).unwrap(), [32, 33, 34, 35]);
        {
            let (s, d) = m.src_dst(gm, 4, 0x1000_0000, 4).unwrap();
            d.copy_from_slice(&s);
        }
        assert_eq!(m.read_bytes(0x1000_0000, 4).unwrap(), [32, 33, 34, 35]);
    }
}
