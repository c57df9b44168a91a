//! Cores kept between the runs of a process.
//!
//! A run needs a core (`TileCore`: the on-chip memories of one AI core) on the calling thread,
//! and one more per worker thread with `--threads`. Made new each time, a core is five
//! memories of 64-512 KiB, each a fresh mapping whose touched pages the kernel faults in and
//! zeroes, unmapped again after the run: on an 8-block softmax over 1024x1024 f32 on two
//! threads that was about 6% of the run (perf: `mmap`, `munmap` and page faults). A finished
//! run hands its cores back here with the on-chip extent its blocks used; the next run on the
//! same chip takes one and [`TileCore::reset`] zeroes that extent, which makes it equal to a
//! new core. At most [`MAX_KEPT`] cores (about 1 MiB each) are kept.

use npusim_core::{MemSpace, Memory};
use npusim_pto::TileCore;
use std::sync::Mutex;

/// Most cores kept at a time.
const MAX_KEPT: usize = 4;

/// Kept cores: (chip profile name, core, bytes of each location written since its reset).
type Kept = (
    &'static str,
    TileCore,
    [u64; npusim_core::vocab::TileLoc::COUNT],
);

static KEPT: Mutex<Vec<Kept>> = Mutex::new(Vec::new());

/// A core of the chip named `profile`, equal to `TileCore::by_name(profile)`: a kept one,
/// reset, when there is one.
pub(crate) fn take(profile: &'static str) -> Option<TileCore> {
    let kept = KEPT.lock().ok().and_then(|mut k| {
        let i = k.iter().rposition(|(p, _, _)| *p == profile)?;
        Some(k.swap_remove(i))
    });
    match kept {
        Some((_, mut core, used)) => {
            core.reset(&used);
            Some(core)
        }
        None => TileCore::by_name(profile),
    }
}

/// Hands `core` back after a run whose blocks wrote only the first `used[loc]` bytes of each
/// of its locations (the run's extent); dropped when enough are kept.
pub(crate) fn keep(
    profile: &'static str,
    mut core: TileCore,
    used: [u64; npusim_core::vocab::TileLoc::COUNT],
) {
    // Its GM (a worker's is an alias of the run's) goes now, not at the next reset.
    *core.gm_mut() = Memory::new(MemSpace::Gm, 0);
    let spare = match KEPT.lock() {
        Ok(mut k) if k.len() < MAX_KEPT => {
            k.push((profile, core, used));
            None
        }
        _ => Some(core),
    };
    // A core that is not kept is dropped here, outside the lock.
    drop(spare);
}
