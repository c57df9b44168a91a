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
    /// The MX scale buffer beside L0A (A5 `ScaleLeft` tiles; pto-isa `PTO_SCALELEFT_SIZE_BYTES`,
    /// the CPU simulator's `L0A_MX` region).
    L0aMx,
    /// The MX scale buffer beside L0B (A5 `ScaleRight` tiles; `PTO_SCALERIGHT_SIZE_BYTES`,
    /// `L0B_MX`).
    L0bMx,
}

impl MemSpace {
    /// Every space.
    pub const ALL: [MemSpace; 10] = [
        MemSpace::Gm,
        MemSpace::Ub,
        MemSpace::L1,
        MemSpace::L0a,
        MemSpace::L0b,
        MemSpace::L0c,
        MemSpace::Bias,
        MemSpace::Fb,
        MemSpace::L0aMx,
        MemSpace::L0bMx,
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
            MemSpace::L0aMx => "L0A_MX",
            MemSpace::L0bMx => "L0B_MX",
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

/// One memory space: a zero-initialised byte array (except one from
/// [`Memory::try_new_for_overwrite`], whose caller writes it all first).
///
/// The space starts 64-byte aligned, so a typed view of a 32-byte aligned operand (every tile
/// and vector operand) can borrow the memory directly through [`bytemuck::cast_slice`] instead
/// of copying. A small space is a byte vector zeroed by the allocator, starting at its first
/// 64-byte boundary. A large one (at least 4 MiB, on Linux) is an anonymous mapping of its own
/// (see [`Backing::Map`]): its pages come zeroed from the kernel on first touch, in whichever
/// thread touches them, and untouched pages are never resident.
pub struct Memory {
    space: MemSpace,
    /// What owns the bytes (nothing, for an [`Memory::alias`]).
    backing: Backing,
    /// The space's first byte: inside `backing`'s allocation, or another space's for an alias.
    ptr: *mut u8,
    len: usize,
}

/// Who owns a [`Memory`]'s bytes.
enum Backing {
    /// A heap vector (the space starts at its first 64-byte aligned byte).
    Vec(#[allow(dead_code)] Vec<u8>),
    /// An anonymous private mapping of `len` bytes at `base`, unmapped on drop. Used for
    /// spaces of at least [`MAP_MIN`] bytes: a heap block that size comes from the process
    /// heap once glibc's dynamic mmap threshold has grown past it (after the first such block
    /// is freed), and then `calloc` zeroes all of it by hand, on the allocating thread,
    /// touching every page; a fresh mapping is zero and costs nothing until used.
    #[cfg(target_os = "linux")]
    Map { base: *mut u8, len: usize },
    /// Another space's bytes ([`Memory::alias`]): owns nothing.
    Alias,
}

// SAFETY: a `Memory` owns its bytes like a `Vec<u8>` (which is Send and Sync) except for an
// alias, whose cross-thread use is governed by the contract of the unsafe `Memory::alias`; the
// raw pointers are only dereferenced through `&self` (reads) and `&mut self` (writes).
unsafe impl Send for Memory {}
// SAFETY: see `Send` above; no interior mutability is reachable through `&Memory`.
unsafe impl Sync for Memory {}

impl Drop for Memory {
    fn drop(&mut self) {
        #[cfg(target_os = "linux")]
        if let Backing::Map { base, len } = self.backing {
            if recycle::keep(base, len, self.ptr) {
                return;
            }
            // SAFETY: `base..base + len` is the mapping `map_zeroed` created for this space
            // and only this space owns it; aliases of it own nothing and must not outlive it
            // (the contract of `Memory::alias`).
            unsafe {
                libc::munmap(base as *mut libc::c_void, len);
            }
        }
    }
}

/// Huge-page mappings of dropped spaces, kept for [`Memory::try_new_for_overwrite`].
///
/// A fresh mapping is zero, but the kernel zeroes each 2 MiB page on its first touch, in the
/// touching thread: for the 8-12 MiB global memory of one run that was 8-16% of the run (and
/// more, and more variable, with two threads faulting at once). A process that runs kernels
/// one after the other (a benchmark, a test suite, the Python face) gets the pages of its last
/// global memory back, already faulted in. Bounded: the newest [`recycle::MAX_KEPT`] mappings,
/// at most [`recycle::MAX_BYTES`] bytes together, are kept; older ones are unmapped.
#[cfg(target_os = "linux")]
mod recycle {
    use super::{HUGE, HUGE_PAGE_MIN};
    use std::sync::Mutex;

    /// Most mappings kept at a time.
    pub(super) const MAX_KEPT: usize = 2;
    /// Most bytes (of address space, resident or not) kept at a time.
    pub(super) const MAX_BYTES: usize = 64 << 20;

    /// A kept mapping: `(base, len, offset of the 2 MiB aligned start)`, as addresses.
    static KEPT: Mutex<Vec<(usize, usize, usize)>> = Mutex::new(Vec::new());

    /// Keeps the mapping `base..base + len` whose space started at `start`, when it is a
    /// huge-page one no larger than [`MAX_BYTES`], making room by unmapping the oldest kept
    /// ones; false when the caller must unmap it.
    pub(super) fn keep(base: *mut u8, len: usize, start: *mut u8) -> bool {
        let off = (start as usize).wrapping_sub(base as usize);
        if !(HUGE_PAGE_MIN..=MAX_BYTES).contains(&len)
            || !(start as usize).is_multiple_of(HUGE)
            || off >= HUGE
        {
            return false;
        }
        let Ok(mut kept) = KEPT.lock() else {
            return false;
        };
        let mut evicted = Vec::new();
        while kept.len() >= MAX_KEPT || kept.iter().map(|k| k.1).sum::<usize>() + len > MAX_BYTES {
            evicted.push(kept.remove(0));
        }
        kept.push((base as usize, len, off));
        drop(kept);
        for (b, l, _) in evicted {
            // SAFETY: a kept mapping is owned by the list alone (its space was dropped), and
            // it was just taken out of it.
            unsafe {
                libc::munmap(b as *mut libc::c_void, l);
            }
        }
        true
    }

    /// Takes a kept mapping of at least `n` bytes and at most twice that (the smallest; of
    /// equal ones the newest), as `(base, len, start)`.
    pub(super) fn take(n: usize) -> Option<(*mut u8, usize, *mut u8)> {
        let mut kept = KEPT.lock().ok()?;
        let i = (0..kept.len())
            .rev()
            .filter(|&i| kept[i].1 >= n && kept[i].1 / 2 <= n)
            .min_by_key(|&i| kept[i].1)?;
        let (base, len, off) = kept.swap_remove(i);
        Some((base as *mut u8, len, (base + off) as *mut u8))
    }
}

/// The alignment of a space's first byte.
const ALIGN: usize = 64;

/// Spaces of at least this many bytes get a mapping of their own (on Linux), not a heap
/// block: a heap block that was used before must be zeroed by hand on every allocation (a
/// core's on-chip memories, about 1 MiB, took 150 us that way in a loop of runs), while a
/// fresh mapping is zero and costs only the pages a run touches.
const MAP_MIN: usize = 64 << 10;

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

/// A fresh zero mapping of `n` bytes: `(base, start of the space)`. With `huge` (`n` covers a
/// 2 MiB aligned space of `len` bytes, see [`layout_for`]) the space starts on a 2 MiB boundary
/// and is asked to be backed by transparent huge pages (`madvise(MADV_HUGEPAGE)`; the default
/// THP setting `madvise` honours it): a large global memory is then faulted in 2 MiB at a time
/// instead of 4 KiB (the 12 MiB GM of a 4096x256 f32 vector add takes a few faults instead of
/// about 3,000). The hint changes no contents; its failure is ignored. Without, the space
/// starts at the (page-aligned) mapping.
#[cfg(target_os = "linux")]
fn map_zeroed(n: usize, len: usize, huge: bool) -> Option<(*mut u8, *mut u8)> {
    // SAFETY: an anonymous private mapping at an address of the kernel's choice touches no
    // existing memory; the result is checked before use.
    let base = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            n,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if base == libc::MAP_FAILED {
        return None;
    }
    let base = base as *mut u8;
    if !huge {
        return Some((base, base));
    }
    let off = (HUGE - base as usize % HUGE) % HUGE;
    let advised = len.next_multiple_of(HUGE);
    // SAFETY: `layout_for` made `n` at least `len` rounded up to 2 MiB plus 2 MiB, so the
    // aligned start and the advised range lie inside the mapping.
    unsafe {
        let start = base.add(off);
        libc::madvise(start as *mut libc::c_void, advised, libc::MADV_HUGEPAGE);
        Some((base, start))
    }
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
        let Some((n, _)) = layout_for(capacity, true) else {
            panic!("a {capacity}-byte {space:?} space overflows the address space")
        };
        Memory::try_with_layout(space, capacity, true).unwrap_or_else(|_| {
            std::alloc::handle_alloc_error(
                std::alloc::Layout::from_size_align(n.max(1), ALIGN)
                    .unwrap_or(std::alloc::Layout::new::<u8>()),
            )
        })
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

    /// A space of `capacity` bytes whose contents are not specified: they may be the bytes a
    /// dropped space of about the same size held (its pages already faulted in: the
    /// module's private `recycle` list), or zero. For a caller that writes every byte it will read before reading
    /// it (a run binding its arguments, then zeroing the rest). Spaces under 4 MiB, and other
    /// systems than Linux, always get zeroed memory as from [`Memory::try_new`].
    pub fn try_new_for_overwrite(space: MemSpace, capacity: usize) -> Result<Memory, MemoryError> {
        #[cfg(target_os = "linux")]
        if let Some((n, HUGE)) = layout_for(capacity, true)
            && let Some((base, len, ptr)) = recycle::take(n)
        {
            // The kept mapping has at least `n` bytes and starts its space less than 2 MiB
            // in, so `capacity` bytes from `ptr` lie inside it (`layout_for`). Its advised
            // range may be shorter than this space's: advise it again (a hint; failure is
            // ignored).
            // SAFETY: `ptr..ptr + capacity.next_multiple_of(HUGE)` lies inside the mapping,
            // which nothing else owns (it was taken out of the kept list).
            unsafe {
                libc::madvise(
                    ptr as *mut libc::c_void,
                    capacity.next_multiple_of(HUGE),
                    libc::MADV_HUGEPAGE,
                );
            }
            return Ok(Memory {
                space,
                backing: Backing::Map { base, len },
                ptr,
                len: capacity,
            });
        }
        Memory::try_new(space, capacity)
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
        #[cfg(target_os = "linux")]
        if align == HUGE || capacity >= MAP_MIN {
            let (base, ptr) = map_zeroed(n, capacity, align == HUGE).ok_or_else(fail)?;
            return Ok(Memory {
                space,
                backing: Backing::Map { base, len: n },
                ptr,
                len: capacity,
            });
        }
        let mut buf = bytemuck::allocation::try_zeroed_vec::<u8>(n).map_err(|_| fail())?;
        let ptr = if capacity == 0 {
            std::ptr::NonNull::<u8>::dangling().as_ptr()
        } else {
            let off = (align - buf.as_ptr() as usize % align) % align;
            // SAFETY: `layout_for` gave `buf` `align - 1` bytes of slack, so the space's
            // `capacity` bytes from `off` lie inside it.
            unsafe { buf.as_mut_ptr().add(off) }
        };
        Ok(Memory {
            space,
            backing: Backing::Vec(buf),
            ptr,
            len: capacity,
        })
    }

    /// A second handle on this space's bytes, owning nothing: reads and writes through it
    /// reach this space. A multi-threaded run gives each worker thread's core such a handle on
    /// the one global memory, so that blocks write their results in place
    /// (`npusim-ptoas` `interp::par`).
    ///
    /// # Safety
    /// While the alias lives:
    /// - this space must not be dropped, and must not be accessed through `self` (or any
    ///   other handle) at bytes an alias writes, nor written at bytes an alias reads, except
    ///   one after the other with a happens-before order between them (a lock, a join);
    /// - two aliases used on different threads must likewise never touch a common byte
    ///   where one of them writes, without such an order.
    ///
    /// Only [`Memory::bytes`], [`Memory::bytes_mut`] and the methods built on them
    /// ([`Memory::write`], [`Memory::read_elems`], [`Memory::write_elems`], [`Memory::fill`])
    /// borrow just the bytes they touch; [`Memory::as_slice`] and [`Memory::as_mut_slice`]
    /// borrow the whole space and must not be called on a space (or alias) while another
    /// thread's alias writes into it.
    pub unsafe fn alias(&self) -> Memory {
        Memory {
            space: self.space,
            backing: Backing::Alias,
            ptr: self.ptr,
            len: self.len,
        }
    }

    fn all(&self) -> &[u8] {
        // SAFETY: `ptr` points to `len` initialised bytes owned by this space (or, for an
        // alias, by the space it aliases, under `alias`'s contract), or is dangling with
        // `len` 0.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }

    fn all_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in `all`; `&mut self` is the only handle writing through this one.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
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

    /// The bytes `[addr, addr + len)` (borrowing only those: see [`Memory::alias`]).
    pub fn bytes(&self, addr: u64, len: u64) -> Result<&[u8], MemoryError> {
        let r = self.check_range(addr, len)?;
        // SAFETY: `check_range` put `r` inside the space's `len` bytes (see `all`).
        Ok(unsafe { std::slice::from_raw_parts(self.ptr.add(r.start), r.len()) })
    }

    /// The bytes `[addr, addr + len)`, writable (borrowing only those: see [`Memory::alias`]).
    pub fn bytes_mut(&mut self, addr: u64, len: u64) -> Result<&mut [u8], MemoryError> {
        let r = self.check_range(addr, len)?;
        // SAFETY: as in `bytes`, with `&mut self` the only handle writing through this one.
        Ok(unsafe { std::slice::from_raw_parts_mut(self.ptr.add(r.start), r.len()) })
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

    /// A large space is a fresh mapping each time: zero even when the last one of its size
    /// was written all over and dropped (a reused heap block would need zeroing by hand).
    #[test]
    fn a_large_space_is_zero_after_a_dirty_one_of_its_size_was_dropped() {
        for cap in [MAP_MIN - 1, MAP_MIN, 192 << 10, 6 << 20] {
            for _ in 0..3 {
                for mut m in [
                    Memory::try_new(MemSpace::Gm, cap).unwrap(),
                    Memory::try_new_sparse(MemSpace::Gm, cap).unwrap(),
                ] {
                    assert!(m.as_slice().iter().all(|&b| b == 0), "{cap}");
                    assert_eq!(m.as_slice().as_ptr() as usize % ALIGN, 0);
                    m.as_mut_slice().fill(0xa5);
                }
            }
        }
    }

    /// An alias reads and writes the bytes of the space it aliases; aliases on two threads
    /// writing disjoint ranges both land.
    #[test]
    fn aliases_reach_the_aliased_space() {
        for cap in [4096usize, 5 << 20] {
            let mut m = Memory::try_new(MemSpace::Gm, cap).unwrap();
            m.write(8, &[1, 2, 3]).unwrap();
            let half = (cap / 2) as u64;
            std::thread::scope(|s| {
                for k in 0..2u64 {
                    // SAFETY: the two aliases write disjoint halves, `m` is not used until
                    // the scope has joined both threads, and outlives them.
                    let mut a = unsafe { m.alias() };
                    s.spawn(move || {
                        let at = k * half + 16;
                        assert_eq!(a.capacity(), cap);
                        if k == 0 {
                            assert_eq!(a.bytes(8, 3).unwrap(), &[1, 2, 3]);
                        }
                        a.fill(at, 100, 0x40 + k as u8).unwrap();
                        assert!(a.bytes(cap as u64, 1).is_err());
                    });
                }
            });
            assert_eq!(m.bytes(16, 100).unwrap(), &[0x40; 100][..]);
            assert_eq!(m.bytes(half + 16, 100).unwrap(), &[0x41; 100][..]);
            assert_eq!(m.as_slice().iter().filter(|&&b| b != 0).count(), 203);
        }
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
