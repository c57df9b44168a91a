//! The buffer arguments of a run, copied into global memory (GM): each `.npy` file or host
//! array lands at the GM address its parameter was given, in one pass and without an
//! intermediate buffer.
//!
//! A large GM is filled on several threads when the run has them ([`RunConfig::threads`]):
//! a fresh GM's pages are faulted in and zeroed by the kernel on first touch, on the thread
//! that touches them, so for a big input the faults cost about as much as the copy itself
//! (the 8 MiB of a 1024x1024 f32 softmax's `x` and `y`: about 26% of a one-thread process
//! by `perf`, in `clear_page`), and both halves are then shared out.
//!
//! [`RunConfig::threads`]: super::RunConfig::threads

use super::HostArg;
use npusim_core::Memory;
use npusim_core::npy::NpyError;

/// One buffer argument: where it goes and what fills it.
pub(crate) struct Fill<'a> {
    /// Its GM byte address.
    pub addr: u64,
    /// Its data bytes.
    pub len: u64,
    /// The argument (a host array or a `.npy` file).
    pub arg: &'a HostArg,
    /// The parameter name, for errors.
    pub name: &'a str,
}

/// A fill that failed: the parameter and why.
pub(crate) type FillError = (String, NpyError);

/// Total bytes below which the copies stay on the calling thread (a thread start costs about
/// as much as copying and faulting in a few hundred KiB).
const SPLIT_MIN: u64 = 2 << 20;

/// Parts are cut at multiples of this many bytes (whole elements of every type, whole pages).
const GRAIN: u64 = 4096;

/// Copies every argument of `fills` (in increasing, non-overlapping address order, inside
/// `gm`) to its address, on up to `threads` threads, and zeroes the bytes between and after
/// them: every byte of `gm` is written, so `gm` may start with any contents (a recycled
/// mapping, [`Memory::try_new_for_overwrite`], or the scribbled GM of an abandoned parallel
/// attempt).
pub(crate) fn fill(gm: &mut Memory, fills: &[Fill<'_>], threads: u32) -> Result<(), FillError> {
    let total: u64 = fills.iter().map(|f| f.len).sum();
    let parts = if total >= SPLIT_MIN {
        u64::from(threads.max(1))
    } else {
        1
    };
    // Each thread's share, whole grains.
    let share = total.div_ceil(parts).div_ceil(GRAIN).max(1) * GRAIN;
    // The jobs (destination, argument, data offset), cut from GM in address order, grouped by
    // thread.
    type Job<'g, 'a> = (&'g mut [u8], &'a Fill<'a>, u64);
    let mut groups: Vec<Vec<Job<'_, '_>>> = vec![Vec::new()];
    let mut filled = 0u64;
    let mut rest: &mut [u8] = gm.as_mut_slice();
    let mut at = 0u64;
    for f in fills {
        let bad = || {
            (
                f.name.to_string(),
                NpyError::BadHeader(format!(
                    "no room in global memory for {} bytes at {:#x}",
                    f.len, f.addr
                )),
            )
        };
        if f.addr < at
            || f.addr
                .checked_add(f.len)
                .is_none_or(|e| e - at > rest.len() as u64)
        {
            return Err(bad());
        }
        let (gap, tail) = std::mem::take(&mut rest).split_at_mut((f.addr - at) as usize);
        gap.fill(0);
        let (mut dst, tail) = tail.split_at_mut(f.len as usize);
        rest = tail;
        at = f.addr + f.len;
        let mut off = 0u64;
        while !dst.is_empty() {
            if filled >= share {
                groups.push(Vec::new());
                filled = 0;
            }
            let n = (share - filled).min(dst.len() as u64);
            let (piece, more) = std::mem::take(&mut dst).split_at_mut(n as usize);
            dst = more;
            if let Some(g) = groups.last_mut() {
                g.push((piece, f, off));
            }
            off += n;
            filled += n;
        }
    }
    rest.fill(0);
    let run = |g: Vec<Job<'_, '_>>| -> Result<(), FillError> {
        for (dst, f, off) in g {
            copy(dst, f, off).map_err(|e| (f.name.to_string(), e))?;
        }
        Ok(())
    };
    if groups.len() <= 1 {
        return groups.into_iter().try_for_each(run);
    }
    // The first group on the calling thread, the others on threads of their own.
    let mut groups = groups.into_iter();
    let first = groups.next().unwrap_or_default();
    std::thread::scope(|s| {
        let hs: Vec<_> = groups.map(|g| s.spawn(move || run(g))).collect();
        let mine = run(first);
        hs.into_iter().fold(mine, |acc, h| {
            let r = h.join().unwrap_or_else(|_| {
                Err((
                    String::new(),
                    NpyError::BadHeader("a thread binding the arguments stopped".into()),
                ))
            });
            acc.and(r)
        })
    })
}

/// Copies data bytes `[off, off + dst.len())` of `f`'s argument into `dst`.
fn copy(dst: &mut [u8], f: &Fill<'_>, off: u64) -> Result<(), NpyError> {
    match f.arg {
        HostArg::Buffer(a) => {
            let src = usize::try_from(off)
                .ok()
                .and_then(|o| a.data.get(o..o + dst.len()))
                .ok_or_else(|| NpyError::BadHeader("argument shorter than its shape".into()))?;
            dst.copy_from_slice(src);
            Ok(())
        }
        HostArg::NpyFile { path, header } => header.read_data_range_into(path, off, dst),
        HostArg::Scalar(_) => Ok(()),
    }
}

/// Puts GM back as [`fill`] left it: zero outside the arguments, each argument's bytes inside.
/// For the in-order repeat of a run whose parallel attempt wrote GM in place (`interp::par`);
/// `.npy` files are read again.
pub(crate) fn refill(gm: &mut Memory, fills: &[Fill<'_>]) -> Result<(), FillError> {
    fill(gm, fills, 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use npusim_core::{ElemType, MemSpace, NpyArray};

    /// Arguments of assorted sizes at assorted addresses land byte for byte, on 1 to 3
    /// threads, with GM zero elsewhere; `refill` restores a scribbled GM to the same image.
    #[test]
    fn every_argument_lands_at_its_address_on_any_thread_count() {
        let bytes = |n: usize, k: u8| NpyArray {
            dtype: ElemType::U8,
            shape: vec![n],
            data: (0..n)
                .map(|i| (i as u8).wrapping_mul(31).wrapping_add(k))
                .collect(),
        };
        let args = [
            HostArg::Buffer(bytes(3 << 20, 1)),
            HostArg::Buffer(bytes(100, 2)),
            HostArg::Buffer(bytes((1 << 20) + 5, 3)),
        ];
        let addrs = [64u64, (3 << 20) + 128, (3 << 20) + 512];
        let fills: Vec<Fill<'_>> = args
            .iter()
            .zip(addrs)
            .map(|(a, addr)| {
                let HostArg::Buffer(arr) = a else {
                    unreachable!()
                };
                Fill {
                    addr,
                    len: arr.data.len() as u64,
                    arg: a,
                    name: "p",
                }
            })
            .collect();
        let cap = (4 << 20) + 1024;
        let mut want = vec![0u8; cap];
        for (a, f) in args.iter().zip(&fills) {
            let HostArg::Buffer(arr) = a else {
                unreachable!()
            };
            want[f.addr as usize..][..arr.data.len()].copy_from_slice(&arr.data);
        }
        for threads in [1, 2, 3] {
            let mut gm = Memory::try_new(MemSpace::Gm, cap).unwrap();
            fill(&mut gm, &fills, threads).unwrap();
            assert!(gm.as_slice() == want.as_slice(), "threads {threads}");
            // Over any previous contents (a recycled GM), the same image.
            gm.as_mut_slice().fill(0x5a);
            fill(&mut gm, &fills, threads).unwrap();
            assert!(
                gm.as_slice() == want.as_slice(),
                "over old bytes, threads {threads}"
            );
            gm.as_mut_slice().fill(0xee);
            refill(&mut gm, &fills).unwrap();
            assert!(
                gm.as_slice() == want.as_slice(),
                "refill, threads {threads}"
            );
        }
        // An argument past GM's end is an error, not a panic.
        let mut gm = Memory::try_new(MemSpace::Gm, 1000).unwrap();
        assert!(fill(&mut gm, &fills[1..2], 2).is_err());
    }
}
