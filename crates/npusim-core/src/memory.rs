//! Memory spaces as byte arrays.
//!
//! Every on-chip memory of an Ascend core (UB, L1, L0A/L0B/L0C, bias table, fixpipe buffer) and
//! global memory is a [`Memory`]: a named, fixed-capacity byte array whose reads and writes check
//! bounds and return [`MemoryError`]s instead of panicking. Tiles, tensors and instruction
//! operands are views (space, byte offset) into these arrays, so aliasing behaves as on the chip.
//! Alignment rules follow TIK "General Restrictions" and Ascend C 通用说明和约束
//! (`shared/research/ascend-vector.md` §1.5); the per-chip numbers live in
//! [`crate::chip::ChipProfile`].

use crate::dtype::Element;
use std::fmt;
use thiserror::Error;

/// A memory space of a core or of the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MemSpace {
    /// Global memory (device DRAM / HBM).
    Gm,
    /// Unified Buffer: the vector unit's memory.
    Ub,
    /// L1 buffer (matrix side).
    L1,
    /// Left matrix buffer.
    L0a,
    /// Right matrix buffer.
    L0b,
    /// Accumulator buffer.
    L0c,
    /// Bias table.
    Bias,
    /// Fixpipe (scaling) buffer.
    Fb,
}

impl MemSpace {
    /// Every space.
    pub const ALL: [MemSpace; 8] = [
        MemSpace::Gm,
        MemSpace::Ub,
        MemSpace::L1,
        MemSpace::L0a,
        MemSpace::L0b,
        MemSpace::L0c,
        MemSpace::Bias,
        MemSpace::Fb,
    ];

    /// Short name as the docs write it.
    pub const fn name(self) -> &'static str {
        match self {
            MemSpace::Gm => "GM",
            MemSpace::Ub => "UB",
            MemSpace::L1 => "L1",
            MemSpace::L0a => "L0A",
            MemSpace::L0b => "L0B",
            MemSpace::L0c => "L0C",
            MemSpace::Bias => "BT",
            MemSpace::Fb => "FB",
        }
    }
}

impl fmt::Display for MemSpace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A failed memory access.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MemoryError {
    /// The access runs past the end of the space.
    #[error(
        "{space} access of {len} bytes at byte offset {addr:#x} is out of bounds (capacity {capacity:#x} bytes)"
    )]
    OutOfBounds {
        space: MemSpace,
        addr: u64,
        len: u64,
        capacity: u64,
    },
    /// The address breaks the space's alignment rule.
    #[error("{space} address {addr:#x} is not {align}-byte aligned")]
    Misaligned {
        space: MemSpace,
        addr: u64,
        align: u64,
    },
    /// The host could not allocate the space.
    #[error("cannot allocate {bytes} bytes of {space} on the host")]
    AllocFailed { space: MemSpace, bytes: u64 },
    /// The space does not exist on this chip.
    #[error("memory space {space} does not exist on this chip")]
    NoSuchSpace { space: MemSpace },
}

/// One memory space: a zero-initialised byte array.
///
/// The space starts 64-byte aligned, so a typed view of a 32-byte aligned operand (every tile
/// and vector operand) can borrow the memory directly through [`bytemuck::cast_slice`] instead
/// of copying. The buffer is a byte vector zeroed by the allocator (`calloc`: a large space's
/// pages come straight from the kernel and stay untouched until used) with the space starting
/// at its first 64-byte boundary; an over-aligned allocation would be zeroed by hand instead,
/// touching every page.
pub struct Memory {
    space: MemSpace,
    buf: Vec<u8>,
    /// Where the space starts in `buf` (its first 64-byte aligned byte).
    off: usize,
    len: usize,
}

/// The alignment of a space's first byte.
const ALIGN: usize = 64;

/// Spaces of at least this many bytes ask the kernel for transparent huge pages.
const HUGE_PAGE_MIN: usize = 4 << 20;

/// The transparent huge page size of x86-64 and most aarch64 Linux systems.
const HUGE: usize = 2 << 20;

/// Whether a space of `capacity` bytes is laid out for transparent huge pages.
fn wants_huge_pages(capacity: usize) -> bool {
    cfg!(target_os = "linux") && capacity >= HUGE_PAGE_MIN
}

/// The bytes to allocate for a space of `capacity` bytes and the alignment of its first byte
/// (`None` when the size overflows). A huge-page space starts on a 2 MiB boundary and its
/// allocation reaches the next 2 MiB boundary after its end, so that every page of it can be a
/// huge page: with only the 2 MiB-aligned interior advised, the 1-2 MiB at each end were faulted
/// 4 KiB at a time (about 500 faults for an 8 MiB global memory, each costing about as much as
/// zeroing a huge page's worth of 64-128 KiB). The slack is address space only: untouched
/// pages are never resident.
fn layout_for(capacity: usize, huge: bool) -> Option<(usize, usize)> {
    match capacity {
        0 => Some((0, ALIGN)),
        c if huge && wants_huge_pages(c) => {
            Some((c.checked_next_multiple_of(HUGE)?.checked_add(HUGE)?, HUGE))
        }
        c => Some((c.checked_add(ALIGN - 1)?, ALIGN)),
    }
}

/// Asks Linux to back `[start, start + len)` of a freshly allocated (untouched, zero) buffer,
/// 2 MiB aligned, with transparent huge pages (`madvise(MADV_HUGEPAGE)`; the default THP
/// setting `madvise` honours it). A large global memory is then faulted in 2 MiB at a time
/// instead of 4 KiB: the 12 MiB GM of a 4096x256 f32 vector add takes a few faults instead of
/// about 3,000, which was most of the kernel time of a short run. Only a hint: on failure, or
/// on other systems, nothing changes (the contents are zero either way).
fn huge_page_hint(buf: &[u8], start: usize, len: usize) {
    #[cfg(target_os = "linux")]
    {
        let len = len.next_multiple_of(HUGE);
        if start.checked_add(len).is_some_and(|e| e <= buf.len()) {
            // SAFETY: madvise only advises the kernel about pages inside `buf`'s allocation
            // (the range was just checked to lie within it); MADV_HUGEPAGE changes no contents
            // and no mapping the program can observe, and a failure is ignored.
            unsafe {
                libc::madvise(
                    buf.as_ptr().add(start) as *mut libc::c_void,
                    len,
                    libc::MADV_HUGEPAGE,
                );
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (buf, start, len);
}

impl Clone for Memory {
    fn clone(&self) -> Memory {
        let mut m = Memory::new(self.space, self.len);
        m.all_mut().copy_from_slice(self.all());
        m
    }
}

impl fmt::Debug for Memory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Memory")
            .field("space", &self.space)
            .field("capacity", &self.len)
            .finish()
    }
}

impl Memory {
    /// A zeroed space of `capacity` bytes. Aborts like any allocation when memory runs out;
    /// [`Memory::try_new`] reports that instead.
    pub fn new(space: MemSpace, capacity: usize) -> Memory {
        let Some((n, align)) = layout_for(capacity, true) else {
            panic!("a {capacity}-byte {space:?} space overflows the address space")
        };
        Memory::with_buf(space, vec![0u8; n], capacity, align)
    }

    /// A space of `len` bytes in `buf` starting at its first `align`-aligned byte (`buf` holds
    /// enough slack, see [`layout_for`]); a 2 MiB alignment asks for huge pages.
    fn with_buf(space: MemSpace, buf: Vec<u8>, len: usize, align: usize) -> Memory {
        let off = if len == 0 {
            0
        } else {
            (align - buf.as_ptr() as usize % align) % align
        };
        if align == HUGE {
            huge_page_hint(&buf, off, len);
        }
        Memory {
            space,
            buf,
            off,
            len,
        }
    }

    /// A zeroed space of `capacity` bytes, or [`MemoryError::AllocFailed`] when the host cannot
    /// provide it. The pages come zeroed from the allocator, so untouched parts of a large space
    /// cost no resident memory.
    pub fn try_new(space: MemSpace, capacity: usize) -> Result<Memory, MemoryError> {
        Memory::try_with_layout(space, capacity, true)
    }

    /// [`Memory::try_new`] without the huge-page hint: each touched 4 KiB page is zeroed on
    /// first write, not each touched 2 MiB. Cheaper only when few pages of each 2 MiB are
    /// written (a 4 KiB fault costs about as much as zeroing 64-128 KiB).
    pub fn try_new_sparse(space: MemSpace, capacity: usize) -> Result<Memory, MemoryError> {
        Memory::try_with_layout(space, capacity, false)
    }

    fn try_with_layout(
        space: MemSpace,
        capacity: usize,
        huge: bool,
    ) -> Result<Memory, MemoryError> {
        let fail = || MemoryError::AllocFailed {
            space,
            bytes: capacity as u64,
        };
        let (n, align) = layout_for(capacity, huge).ok_or_else(fail)?;
        let buf = bytemuck::allocation::try_zeroed_vec::<u8>(n).map_err(|_| fail())?;
        Ok(Memory::with_buf(space, buf, capacity, align))
    }

    fn all(&self) -> &[u8] {
        &self.buf[self.off..self.off + self.len]
    }

    fn all_mut(&mut self) -> &mut [u8] {
        &mut self.buf[self.off..self.off + self.len]
    }

    /// Which space this is.
    pub fn space(&self) -> MemSpace {
        self.space
    }

    /// Capacity in bytes.
    pub fn capacity(&self) -> usize {
        self.len
    }

    /// Checks that `[addr, addr + len)` lies inside the space; returns it as a usize range.
    pub fn check_range(&self, addr: u64, len: u64) -> Result<std::ops::Range<usize>, MemoryError> {
        let cap = self.len as u64;
        match addr.checked_add(len) {
            Some(end) if end <= cap => Ok(addr as usize..end as usize),
            _ => Err(MemoryError::OutOfBounds {
                space: self.space,
                addr,
                len,
                capacity: cap,
            }),
        }
    }

    /// Checks that `addr` is a multiple of `align`.
    pub fn check_align(&self, addr: u64, align: u64) -> Result<(), MemoryError> {
        if align > 1 && !addr.is_multiple_of(align) {
            return Err(MemoryError::Misaligned {
                space: self.space,
                addr,
                align,
            });
        }
        Ok(())
    }

    /// The bytes `[addr, addr + len)`.
    pub fn bytes(&self, addr: u64, len: u64) -> Result<&[u8], MemoryError> {
        let r = self.check_range(addr, len)?;
        Ok(&self.all()[r])
    }

    /// The bytes `[addr, addr + len)`, writable.
    pub fn bytes_mut(&mut self, addr: u64, len: u64) -> Result<&mut [u8], MemoryError> {
        let r = self.check_range(addr, len)?;
        Ok(&mut self.all_mut()[r])
    }

    /// The whole space.
    pub fn as_slice(&self) -> &[u8] {
        self.all()
    }

    /// The whole space, writable.
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        self.all_mut()
    }

    /// Copies `data` to `addr`.
    pub fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), MemoryError> {
        self.bytes_mut(addr, data.len() as u64)?
            .copy_from_slice(data);
        Ok(())
    }

    /// Reads `count` elements of `T` at `addr`.
    pub fn read_elems<T: Element>(&self, addr: u64, count: usize) -> Result<Vec<T>, MemoryError> {
        let len = (count * std::mem::size_of::<T>()) as u64;
        let b = self.bytes(addr, len)?;
        Ok(b.chunks_exact(std::mem::size_of::<T>())
            .map(bytemuck::pod_read_unaligned)
            .collect())
    }

    /// Writes elements of `T` at `addr`.
    pub fn write_elems<T: Element>(&mut self, addr: u64, data: &[T]) -> Result<(), MemoryError> {
        self.write(addr, bytemuck::cast_slice(data))
    }

    /// Fills `[addr, addr + len)` with `byte`.
    pub fn fill(&mut self, addr: u64, len: u64, byte: u8) -> Result<(), MemoryError> {
        self.bytes_mut(addr, len)?.fill(byte);
        Ok(())
    }
}

/// A typed view of `count` elements of `T` in a byte slice that may be unaligned for `T`.
///
/// Simulated memories are byte arrays; Rust `Vec<u8>` storage is only 1-byte aligned, so typed
/// access goes through this helper, which borrows when the slice happens to be aligned and copies
/// otherwise.
pub fn typed<T: Element>(bytes: &[u8]) -> std::borrow::Cow<'_, [T]> {
    match bytemuck::try_cast_slice(bytes) {
        Ok(s) => std::borrow::Cow::Borrowed(s),
        Err(_) => std::borrow::Cow::Owned(
            bytes
                .chunks_exact(std::mem::size_of::<T>())
                .map(bytemuck::pod_read_unaligned)
                .collect(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_spaces_with_the_huge_page_hint_are_zero_and_writable_throughout() {
        // Sizes around the hint's threshold and 2 MiB boundaries, both constructors.
        for cap in [
            HUGE_PAGE_MIN - 1,
            HUGE_PAGE_MIN,
            HUGE_PAGE_MIN + 4097,
            9 << 20,
        ] {
            for mut m in [
                Memory::new(MemSpace::Gm, cap),
                Memory::try_new(MemSpace::Gm, cap).unwrap(),
            ] {
                assert_eq!(m.capacity(), cap);
                assert!(m.as_slice().iter().all(|&b| b == 0), "{cap} bytes not zero");
                let last = cap as u64 - 4;
                m.write_elems::<u32>(0, &[0xdead_beef]).unwrap();
                m.write_elems::<u32>(last, &[0x1234_5678]).unwrap();
                assert_eq!(m.read_elems::<u32>(0, 1).unwrap(), [0xdead_beef]);
                assert_eq!(m.read_elems::<u32>(last, 1).unwrap(), [0x1234_5678]);
                assert_eq!(m.as_slice().iter().filter(|&&b| b != 0).count(), 8);
                // A huge-page space starts on a 2 MiB boundary, so no end of it is left to
                // 4 KiB pages; the others on a 64-byte one.
                let align = if wants_huge_pages(cap) { HUGE } else { ALIGN };
                assert_eq!(m.as_slice().as_ptr() as usize % align, 0, "{cap} bytes");
                let c = m.clone();
                assert_eq!(c.as_slice(), m.as_slice());
                assert_eq!(
                    c.as_slice().as_ptr() as usize % align,
                    0,
                    "clone of {cap} bytes"
                );
            }
        }
        // Sizes next to the top of the address space fail cleanly instead of wrapping.
        assert!(layout_for(usize::MAX - HUGE, true).is_none() || !wants_huge_pages(1 << 30));
        assert!(layout_for(usize::MAX, false).is_none());
    }

    #[test]
    fn every_space_starts_aligned_and_clones_keep_the_bytes() {
        for cap in [0usize, 1, 63, 64, 65, 1000, 4096, 1 << 20] {
            let mut m = Memory::try_new(MemSpace::Gm, cap).unwrap();
            assert_eq!(m.capacity(), cap);
            assert_eq!(m.as_slice().len(), cap);
            assert!(m.as_slice().iter().all(|&b| b == 0));
            if cap > 0 {
                assert_eq!(m.as_slice().as_ptr() as usize % 64, 0, "capacity {cap}");
                let last = cap as u64 - 1;
                m.write(last, &[7]).unwrap();
                m.write(0, &[9]).unwrap();
            }
            let c = m.clone();
            assert_eq!(c.as_slice(), m.as_slice());
            assert_eq!(c.space(), MemSpace::Gm);
            if cap > 0 {
                assert_eq!(c.as_slice().as_ptr() as usize % 64, 0);
            }
        }
    }

    /// A large space costs no resident memory until it is used (the doc's promise; an
    /// over-aligned allocation used to be zeroed by hand, touching every page).
    #[cfg(target_os = "linux")]
    #[test]
    fn a_large_space_is_not_resident_until_used() {
        fn rss_kib() -> Option<u64> {
            let s = std::fs::read_to_string("/proc/self/status").ok()?;
            let l = s.lines().find(|l| l.starts_with("VmRSS:"))?;
            l.split_whitespace().nth(1)?.parse().ok()
        }
        let Some(before) = rss_kib() else { return };
        let m = Memory::try_new(MemSpace::Gm, 1 << 30).unwrap();
        let after = rss_kib().unwrap_or(u64::MAX);
        assert!(
            after.saturating_sub(before) < 256 << 10,
            "1 GiB space made {} KiB resident",
            after.saturating_sub(before)
        );
        assert_eq!(m.bytes((1 << 30) - 1, 1).unwrap(), &[0]);
    }

    #[test]
    fn bounds_and_alignment_are_errors() {
        let mut m = Memory::new(MemSpace::Ub, 256);
        assert!(m.write(250, &[0; 6]).is_ok());
        assert_eq!(
            m.write(251, &[0; 6]),
            Err(MemoryError::OutOfBounds {
                space: MemSpace::Ub,
                addr: 251,
                len: 6,
                capacity: 256
            })
        );
        assert!(m.bytes(u64::MAX, 2).is_err());
        assert_eq!(
            m.check_align(40, 32),
            Err(MemoryError::Misaligned {
                space: MemSpace::Ub,
                addr: 40,
                align: 32
            })
        );
        // Aligned operands borrow as typed slices.
        assert_eq!(m.as_slice().as_ptr() as usize % 64, 0);
        assert!(matches!(
            typed::<f32>(m.bytes(32, 64).unwrap()),
            std::borrow::Cow::Borrowed(_)
        ));
        m.write_elems(2, &[0x1234u16, 0xabcd]).unwrap();
        assert_eq!(m.read_elems::<u16>(2, 2).unwrap(), vec![0x1234, 0xabcd]);
        assert_eq!(m.bytes(2, 1).unwrap(), &[0x34]);
    }
}
