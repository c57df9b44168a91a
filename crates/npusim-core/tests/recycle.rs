//! `Memory::try_new_for_overwrite` takes back the mapping of a dropped large space (Linux), and
//! `Memory::try_new` never does. One test in its own process: the kept list is process-wide,
//! so no other test may drop or take large spaces meanwhile.

use npusim_core::{MemSpace, Memory};

#[test]
fn a_dropped_large_space_comes_back_only_for_overwrite() {
    let linux = cfg!(target_os = "linux");
    for cap in [5usize << 20, (6 << 20) + 100, 12 << 20] {
        let mut old = Memory::try_new(MemSpace::Gm, cap).unwrap();
        old.as_mut_slice().fill(0x3c);
        let old_at = old.as_slice().as_ptr();
        drop(old);
        // A zeroed space never gets a kept mapping.
        let fresh = Memory::try_new(MemSpace::Gm, cap).unwrap();
        assert!(fresh.as_slice().iter().all(|&b| b == 0), "{cap}");
        let fresh_at = fresh.as_slice().as_ptr();
        assert_ne!(fresh_at, old_at);
        drop(fresh);
        // Of the two kept ones of this size, the newest comes back, at its 2 MiB-aligned
        // start, for a slightly smaller capacity.
        let mut m = Memory::try_new_for_overwrite(MemSpace::Gm, cap - 64).unwrap();
        assert_eq!(m.capacity(), cap - 64);
        assert_eq!(m.as_slice().as_ptr() as usize % (2 << 20), 0);
        if linux {
            assert_eq!(m.as_slice().as_ptr(), fresh_at, "{cap}");
        }
        m.as_mut_slice().fill(0x77);
        drop(m);
        // Then it again (the newest), with the bytes written through `m`, and the older one
        // with its own.
        let a = Memory::try_new_for_overwrite(MemSpace::Gm, cap).unwrap();
        let b = Memory::try_new_for_overwrite(MemSpace::Gm, cap).unwrap();
        if linux {
            assert_eq!(a.as_slice().as_ptr(), fresh_at);
            assert!(a.as_slice()[..cap - 64].iter().all(|&x| x == 0x77), "{cap}");
            assert_eq!(b.as_slice().as_ptr(), old_at);
            assert!(b.as_slice().iter().all(|&x| x == 0x3c), "{cap}");
        }
        // None kept now: a fresh, zero space.
        let c = Memory::try_new_for_overwrite(MemSpace::Gm, cap).unwrap();
        assert!(c.as_slice().iter().all(|&x| x == 0), "{cap}");
        // Much larger than anything kept: fresh and zero too.
        drop((a, b, c));
        let big = Memory::try_new_for_overwrite(MemSpace::Gm, 3 * cap).unwrap();
        assert!(big.as_slice().iter().all(|&x| x == 0));
    }
}
