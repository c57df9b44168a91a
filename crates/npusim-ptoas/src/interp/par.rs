//! The blocks of a run on several host threads ([`RunConfig::threads`], `npusim run
//! --threads N`), with outputs byte for byte those of the one-thread run.
//!
//! # The rule that makes it deterministic
//! Blocks share global memory (GM). The one-thread run executes blocks `0, 1, ...` in order,
//! each seeing the writes of the blocks before it. A run on N threads gives the same bytes
//! when, in the GM byte ranges the blocks touch,
//! - no two blocks write a common byte, and
//! - no block reads a byte that another block writes.
//!
//! Then every block reads only input bytes and its own writes, whatever ran before it, so it
//! computes what it computes in order, and every written byte has exactly one writer.
//!
//! # How it runs
//! - Each worker thread has its own core (on-chip memories, zeroed before each block as in
//!   the one-thread run) and a private GM of the input's size, which starts empty (untouched
//!   pages cost nothing); blocks are handed out in increasing order from a shared counter.
//! - A TLOAD none of whose source bytes the thread has written (or filled, below) reads the
//!   shared, read-only input in place (`TileCore::tload_from`): the common case, a block
//!   loading inputs, copies nothing twice. Any other GM read (a TLOAD overlapping the
//!   thread's own writes, `pto.load_scalar`, other forms with a global operand) first fills
//!   the bytes the thread holds neither from the input into its private GM (`Tracker`), then
//!   reads there, so a block always sees its own writes.
//! - Each block records the GM byte ranges it reads and writes (`Access`): a TLOAD reads,
//!   a TSTORE / TSTORE_FP writes, the whole footprint of its global tensor (every element of
//!   its 5-D shape, run by run along the unit-stride dimension; a store that moves fewer
//!   elements than that, such as a valid window or an Acc store the fixpipe skips, first
//!   fills the footprint's bytes the thread holds neither from the input, so the bytes it
//!   leaves are the one-thread run's); `pto.load_scalar` reads and
//!   `pto.store_scalar` writes its element, `pto.tprint` of a view reads it. Any other tile
//!   operand form with a global tensor counts as both a read and a write. These are all the GM accesses of a non-mixed kernel.
//! - After the last block the ranges are checked against the rule. When it holds, the
//!   written ranges of each block are copied from its thread's GM into the result, in block
//!   order. When it does not, the run is repeated in block order on one thread from the
//!   input, and [`Schedule::fallback`] says why, naming the two blocks and the byte range (as
//!   offsets into the bound buffer it lies in). `npusim run` prints that as a note.
//! - The interpreter has no atomic or accumulating GM stores (TSTORE's atomic modes are not
//!   modelled); such a store would have to force the in-order path.
//!
//! These runs take the in-order path on one thread whatever `threads` says, with a
//! [`Fallback`] naming the reason: traced runs (the trace is recorded block by block in
//! order), mixed cube + vector kernels (their three cores already take turns on threads, see
//! `interp::coop`), and runs whose private GMs (one per thread, at most the input's size
//! each) could pass `max_memory`. A single block, or `threads = 1`, runs in order without a
//! note.
//!
//! A block that fails on a worker (any error but the wall clock) stops the others and the
//! run is repeated in order, so the error (and the step and work budgets, which count over all
//! blocks) is exactly the one-thread run's. A wall-clock timeout is returned as it is.
//!
//! Statistics (steps, per-op counts, bytes moved) are sums over the blocks, as in order.
//!
//! # Cost
//! A worker's private GM is allocated like the main one, with the huge-page hint
//! (`Memory::try_new`): the first write into each 2 MiB region faults it in and zeroes it
//! whole. Measured on this project's 2-core VM, writing half the 4 KiB pages of 16 MiB (32 KiB
//! runs, as the 8-row tiles of a row softmax dealt round-robin): 4.3 ms with 4 KiB pages (about
//! 2 µs a fault), 0.85 ms with huge pages. A kernel whose blocks each write a few bytes into
//! many distinct 2 MiB regions pays about 0.1 ms a region instead. After the check the
//! written ranges are copied into the result (the merge, split over the threads when large).
//! Loads from the input cost what they cost in order. Reading the inputs and writing the
//! outputs stay on the calling thread: reading a 4 MiB `.npy` into GM on two threads was no
//! faster on this project's 2-vCPU machine (0.35 vs 0.33 ms, best of 30).

use super::exec::Machine;
use super::lower::{Val, profile_name};
use super::{Program, RunConfig, RunError, RunErrorKind, internal_err};
use npusim_core::{MemSpace, Memory};
use npusim_pto::{Args, GlobalTensor, TileCore};
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

/// How the blocks of a run were scheduled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule {
    /// Host threads the blocks ran on (1: in block order on the calling thread).
    pub threads: u32,
    /// Why a run asked for several threads ran its blocks in order on one.
    pub fallback: Option<Fallback>,
}

impl Default for Schedule {
    fn default() -> Self {
        Schedule {
            threads: 1,
            fallback: None,
        }
    }
}

/// Why the blocks ran in order on one thread although more were asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fallback {
    /// Two blocks wrote a common GM byte range.
    WriteWrite {
        /// The lower block index.
        first: u32,
        /// The higher block index.
        second: u32,
        /// Where: see [`Place`].
        place: Place,
    },
    /// A block read GM bytes another block wrote.
    ReadWrite {
        /// The reading block.
        reader: u32,
        /// The writing block.
        writer: u32,
        /// Where: see [`Place`].
        place: Place,
    },
    /// A block failed on a worker thread; the run was repeated in order for the one-thread
    /// run's result or error.
    Failed {
        /// The failing block.
        block: u32,
        /// Its error message on the worker.
        message: String,
    },
    /// The step or work budget, which counts over all blocks, was passed.
    Budget,
    /// The run records a trace.
    Traced,
    /// A mixed cube + vector kernel.
    Mixed,
    /// One private GM per thread could pass `max_memory`.
    Memory {
        /// Bytes the copies would take.
        need: u64,
        /// The budget.
        max_memory: u64,
    },
}

/// A GM byte range, named by the bound buffer it lies in when it lies in one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    /// GM byte addresses `start..end`.
    pub gm: (u64, u64),
    /// The buffer (parameter name) and the range as byte offsets into it.
    pub buffer: Option<(String, u64, u64)>,
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.buffer {
            Some((name, s, e)) => write!(f, "bytes {s}..{e} of `%{name}`"),
            None => write!(f, "GM bytes {:#x}..{:#x}", self.gm.0, self.gm.1),
        }
    }
}

impl std::fmt::Display for Fallback {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fallback::WriteWrite {
                first,
                second,
                place,
            } => write!(f, "blocks {first} and {second} both write {place}"),
            Fallback::ReadWrite {
                reader,
                writer,
                place,
            } => write!(f, "block {reader} reads {place}, which block {writer} writes"),
            Fallback::Failed { block, message } => {
                write!(f, "block {block} failed on a worker thread ({message})")
            }
            Fallback::Budget => {
                f.write_str("the step or work budget (counted over all blocks) ran out")
            }
            Fallback::Traced => {
                f.write_str("the run is traced or sync-hazard checked (--trace / --stats / --hazards)")
            }
            Fallback::Mixed => f.write_str(
                "a mixed cube + vector kernel (its cores take turns; blocks are not split over threads yet)",
            ),
            Fallback::Memory { need, max_memory } => write!(
                f,
                "a private global memory per thread could need {need} bytes, more than max_memory = {max_memory}"
            ),
        }
    }
}

/// The GM byte ranges one block reads and writes, each list as `[start, end)` pairs.
#[derive(Clone, Debug, Default)]
pub(crate) struct Access {
    reads: Vec<(u64, u64)>,
    writes: Vec<(u64, u64)>,
}

/// Appends `[s, e)` to `v`, merged into the last range when it touches it.
fn push(v: &mut Vec<(u64, u64)>, s: u64, e: u64) {
    if s >= e {
        return;
    }
    if let Some(last) = v.last_mut()
        && s <= last.1
        && e >= last.0
    {
        last.0 = last.0.min(s);
        last.1 = last.1.max(e);
        return;
    }
    v.push((s, e));
}

/// Sorts and merges ranges (touching ones become one).
fn normalise(v: &mut Vec<(u64, u64)>) {
    v.sort_unstable();
    let mut out: Vec<(u64, u64)> = Vec::with_capacity(v.len());
    for &(s, e) in v.iter() {
        push(&mut out, s, e);
    }
    *v = out;
}

/// Calls `f(start, end)` for the byte runs of a global tensor's footprint: every element of
/// its 5-D shape, consecutive along its longest unit-stride dimension.
fn footprint(g: &GlobalTensor, mut f: impl FnMut(u64, u64)) {
    let size = g.dtype.size() as u64;
    if g.shape.contains(&0) {
        return;
    }
    // The run dimension: unit stride, longest; none means one element per run.
    let inner = (0..5)
        .filter(|&k| g.stride[k] == 1)
        .max_by_key(|&k| g.shape[k]);
    let run = inner.map_or(1, |k| g.shape[k] as u64);
    let mut idx = [0usize; 5];
    loop {
        let off: u64 = (0..5)
            .map(|k| (idx[k] as u64).saturating_mul(g.stride[k] as u64))
            .fold(0u64, u64::saturating_add);
        let s = g.addr.saturating_add(off.saturating_mul(size));
        f(s, s.saturating_add(run.saturating_mul(size)));
        // Next index over the dimensions other than the run's.
        let mut k = 5;
        loop {
            if k == 0 {
                return;
            }
            k -= 1;
            if Some(k) == inner {
                continue;
            }
            idx[k] += 1;
            if idx[k] < g.shape[k] {
                break;
            }
            idx[k] = 0;
        }
    }
}

impl Access {
    fn finish(mut self) -> Access {
        normalise(&mut self.reads);
        normalise(&mut self.writes);
        self
    }
}

/// A worker thread's view of GM: its private GM's filled-or-written byte ranges, the shared
/// input to fill from, and the current block's [`Access`].
pub(crate) struct Tracker<'p> {
    /// The shared input GM (read-only for every worker).
    pub input: &'p Memory,
    /// Disjoint ranges `start -> end` of the private GM that hold their bytes (filled from the
    /// input or written by this thread's blocks); touching ranges are merged.
    have: BTreeMap<u64, u64>,
    acc: Access,
    /// Reused buffer for a TLOAD's footprint.
    scratch: Vec<(u64, u64)>,
    /// Set when a block on another thread failed.
    pub stop: &'p AtomicBool,
}

impl<'p> Tracker<'p> {
    fn new(input: &'p Memory, stop: &'p AtomicBool) -> Self {
        Tracker {
            input,
            have: BTreeMap::new(),
            acc: Access::default(),
            scratch: Vec::new(),
            stop,
        }
    }

    /// Marks `[s, e)` as held; with `gm`, first copies the parts not held yet from the input.
    fn hold(&mut self, s: u64, e: u64, gm: Option<&mut Memory>) {
        if s >= e {
            return;
        }
        // The held ranges touching [s, e), in address order.
        let mut touching: Vec<(u64, u64)> = self
            .have
            .range(..=e)
            .rev()
            .take_while(|(_, end)| **end >= s)
            .map(|(a, b)| (*a, *b))
            .collect();
        touching.reverse();
        if let Some(gm) = gm {
            let (src, dst) = (self.input.as_slice(), gm.as_mut_slice());
            let mut copy = |a: u64, b: u64| {
                let (a, b) = (a as usize, (b as usize).min(dst.len()).min(src.len()));
                if a < b {
                    dst[a..b].copy_from_slice(&src[a..b]);
                }
            };
            let mut at = s;
            for &(a, b) in &touching {
                if a > at {
                    copy(at, a.min(e));
                }
                at = at.max(b);
            }
            if at < e {
                copy(at, e);
            }
        }
        let lo = touching.first().map_or(s, |r| r.0.min(s));
        let hi = touching.last().map_or(e, |r| r.1.max(e));
        for (a, _) in &touching {
            self.have.remove(a);
        }
        self.have.insert(lo, hi);
    }

    /// A GM read of `[addr, addr + n)` about to happen: fills it and records it.
    pub(crate) fn read(&mut self, addr: u64, n: u64, gm: &mut Memory) {
        let e = addr.saturating_add(n);
        self.hold(addr, e, Some(gm));
        push(&mut self.acc.reads, addr, e);
    }

    /// A read of a global tensor's whole footprint other than by a tile instruction
    /// (`pto.tprint` of a view): fills and records it.
    pub(crate) fn read_global(&mut self, g: &GlobalTensor, gm: &mut Memory) {
        footprint(g, |s, e| self.read(s, e - s, gm));
    }

    /// A GM write of `[addr, addr + n)` that happened.
    pub(crate) fn wrote(&mut self, addr: u64, n: u64) {
        let e = addr.saturating_add(n);
        self.hold(addr, e, None);
        push(&mut self.acc.writes, addr, e);
    }

    /// Whether any byte of `[s, e)` is held (filled or written by this thread).
    fn holds_any(&self, s: u64, e: u64) -> bool {
        s < e
            && self
                .have
                .range(..e)
                .next_back()
                .is_some_and(|(_, end)| *end > s)
    }

    /// Before a tile instruction: records what it reads of GM, and fills the private GM with
    /// it unless the instruction can read the shared input in place. Returns `true` for a
    /// TLOAD none of whose source bytes this thread has filled or written: the caller runs it
    /// with [`TileCore::tload_from`] on [`Tracker::input`], so nothing is copied twice.
    // Kept out of line: inlined, it made every single-thread step's frame ~1 KiB.
    #[inline(never)]
    pub(crate) fn before(&mut self, args: &Args, gm: &mut Memory) -> bool {
        match args {
            Args::Load { src, .. } => {
                let mut runs = std::mem::take(&mut self.scratch);
                runs.clear();
                footprint(src, |s, e| push(&mut runs, s, e));
                let shared = runs.iter().all(|&(s, e)| !self.holds_any(s, e));
                for &(s, e) in &runs {
                    if shared {
                        push(&mut self.acc.reads, s, e);
                    } else {
                        self.read(s, e - s, gm);
                    }
                }
                self.scratch = runs;
                shared
            }
            Args::Store { dst, src } | Args::StoreFp { dst, src, .. } => {
                // The whole footprint counts as written and is copied into the result, but a
                // store may write less of it (a valid window smaller than the global shape,
                // an Acc store of fewer rows, or nothing: the fixpipe's zero ND matrices).
                // The bytes it leaves must be what the one-thread run leaves there: this
                // thread's own earlier writes, else the input.
                let full: usize = dst.shape.iter().product();
                if src.valid_row().saturating_mul(src.valid_col()) < full {
                    footprint(dst, |s, e| self.hold(s, e, Some(gm)));
                }
                false
            }
            other => {
                // Any other form holding a global tensor: a read and a write, to be safe.
                let _ = other.try_map(&mut Globals {
                    t: self,
                    gm: Some(gm),
                });
                false
            }
        }
    }

    /// After a tile instruction: records what it wrote of GM.
    // Kept out of line: inlined, it made every single-thread step's frame ~1 KiB.
    #[inline(never)]
    pub(crate) fn after(&mut self, args: &Args) {
        match args {
            Args::Load { .. } => {}
            Args::Store { dst, .. } | Args::StoreFp { dst, .. } => {
                footprint(dst, |s, e| self.wrote(s, e - s))
            }
            other => {
                let _ = other.try_map(&mut Globals { t: self, gm: None });
            }
        }
    }
}

/// Visits the global tensors of an operand form (see [`Tracker::before`]): with `gm` as
/// reads, without as writes.
struct Globals<'a, 'p> {
    t: &'a mut Tracker<'p>,
    gm: Option<&'a mut Memory>,
}

impl npusim_pto::OperandMap<npusim_pto::Tile, npusim_pto::Tile> for Globals<'_, '_> {
    type Error = ();
    fn tile(&mut self, a: &npusim_pto::Tile) -> Result<npusim_pto::Tile, ()> {
        Ok(*a)
    }
    fn scalar(&mut self, s: &npusim_pto::Scalar) -> Result<npusim_pto::Scalar, ()> {
        Ok(*s)
    }
    fn global(&mut self, g: &GlobalTensor) -> Result<GlobalTensor, ()> {
        let t = &mut *self.t;
        match self.gm.as_deref_mut() {
            Some(gm) => footprint(g, |s, e| t.read(s, e - s, gm)),
            None => footprint(g, |s, e| t.wrote(s, e - s)),
        }
        Ok(*g)
    }
}

/// The first violation of the rule (see the module docs) among the blocks' accesses
/// (`accs[b]` is block `b`'s), as `(kind, block, other block, range)`; `None` when it holds.
fn conflict(accs: &[Access]) -> Option<(bool, u32, u32, (u64, u64))> {
    // Every write, by address.
    let mut w: Vec<(u64, u64, u32)> = accs
        .iter()
        .enumerate()
        .flat_map(|(b, a)| a.writes.iter().map(move |&(s, e)| (s, e, b as u32)))
        .collect();
    w.sort_unstable();
    // Overlapping writes of two blocks: the range reaching furthest so far against the next.
    let mut reach: Option<(u64, u32)> = None;
    for &(s, e, b) in &w {
        match reach {
            Some((end, ob)) if s < end && ob != b => {
                let (lo, hi) = (ob.min(b), ob.max(b));
                return Some((true, lo, hi, (s, e.min(end))));
            }
            Some((end, _)) if end >= e => {}
            _ => reach = Some((e, b)),
        }
    }
    // Writes are now pairwise disjoint, so sorted by end too: reads against other blocks'.
    for (rb, a) in accs.iter().enumerate() {
        for &(s, e) in &a.reads {
            let first = w.partition_point(|x| x.1 <= s);
            for &(ws, we, wb) in w[first..].iter().take_while(|x| x.0 < e) {
                if wb != rb as u32 {
                    return Some((false, rb as u32, wb, (s.max(ws), e.min(we))));
                }
            }
        }
    }
    None
}

/// A bound buffer: parameter name, GM address, element type, shape, bytes.
pub(crate) type Buf = (String, u64, npusim_core::ElemType, Vec<usize>, u64);

/// A GM range named by the buffer holding it.
fn place(r: (u64, u64), bufs: &[Buf]) -> Place {
    let buffer = bufs
        .iter()
        .find(|(_, a, _, _, n)| r.0 >= *a && r.1 <= a.saturating_add(*n))
        .map(|(name, a, ..)| (name.clone(), r.0 - a, r.1 - a));
    Place { gm: r, buffer }
}

/// One worker thread's result.
struct Worker {
    gm: Memory,
    /// (block, its accesses)
    blocks: Vec<(u32, Access)>,
    /// (block, what it printed)
    prints: Vec<(u32, Vec<super::PrintRec>)>,
    steps: u64,
    work: u64,
    gm_to_chip: u64,
    chip_to_gm: u64,
    counts: Vec<Vec<u64>>,
}

/// Runs every block of `m`'s run (`m.nblocks`) of function `fi`, on `cfg.threads` host
/// threads when the rule allows (see the module docs), else in order; `m` holds the input GM
/// and receives the result and the statistics. `bufs` names the bound buffers (name,
/// address, bytes) for the notes.
pub(crate) fn run_blocks(
    prog: &Program,
    m: &mut Machine<'_>,
    fi: usize,
    vals: &[Val],
    cfg: &RunConfig,
    bufs: &[Buf],
) -> Result<Schedule, RunError> {
    let threads = cfg.threads.clamp(1, m.nblocks.max(1));
    let why = if threads <= 1 {
        None
    } else if prog.mixed {
        Some(Fallback::Mixed)
    } else if m.rec.is_some() {
        Some(Fallback::Traced)
    } else {
        let need = (m.core.gm().capacity() as u64).saturating_mul(u64::from(threads));
        (need > cfg.max_memory).then_some(Fallback::Memory {
            need,
            max_memory: cfg.max_memory,
        })
    };
    if threads <= 1 || why.is_some() {
        in_order(prog, m, fi, vals)?;
        return Ok(Schedule {
            threads: 1,
            fallback: why,
        });
    }
    match parallel(prog, m, fi, vals, threads, bufs)? {
        None => Ok(Schedule {
            threads,
            fallback: None,
        }),
        Some(why) => {
            in_order(prog, m, fi, vals)?;
            Ok(Schedule {
                threads: 1,
                fallback: Some(why),
            })
        }
    }
}

/// The one-thread run: blocks `0..m.nblocks` in order on `m`'s core.
fn in_order(prog: &Program, m: &mut Machine<'_>, fi: usize, vals: &[Val]) -> Result<(), RunError> {
    let span = prog.funcs[fi].span;
    if prog.mixed {
        return prog.run_mixed(m, fi, vals);
    }
    for b in 0..m.nblocks {
        if b > 0 {
            m.fresh_block();
        }
        m.block = b;
        // A block costs a step even when its function is empty.
        m.steps = m.steps.saturating_add(1);
        m.check_budget("block", span)?;
        m.call(fi, vals)?;
    }
    Ok(())
}

/// The blocks on `threads` workers. `Ok(None)`: done, `m` holds the result; `Ok(Some(why))`:
/// `m` is untouched and the run must be repeated in order.
fn parallel(
    prog: &Program,
    m: &mut Machine<'_>,
    fi: usize,
    vals: &[Val],
    threads: u32,
    bufs: &[Buf],
) -> Result<Option<Fallback>, RunError> {
    let span = prog.funcs[fi].span;
    let next = AtomicU32::new(0);
    let stop = AtomicBool::new(false);
    // The first failure (block, error), lowest block first.
    let failed: Mutex<Option<(u32, RunError)>> = Mutex::new(None);
    let input = m.core.gm();
    let tmpl = &*m;
    let results: Vec<Option<Worker>> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..threads)
            .map(|_| {
                let (next, stop, failed) = (&next, &stop, &failed);
                s.spawn(move || -> Option<Worker> {
                    let fail = |b: u32, e: RunError| {
                        stop.store(true, Ordering::Relaxed);
                        let mut f = failed.lock().unwrap_or_else(|p| p.into_inner());
                        if f.as_ref().is_none_or(|(fb, _)| b < *fb) {
                            *f = Some((b, e));
                        }
                    };
                    let mut core = TileCore::by_name(profile_name(prog.target))?;
                    core.set_policy(prog.policy);
                    let Ok(gm) = Memory::try_new(MemSpace::Gm, input.capacity()) else {
                        fail(0, internal_err("no host memory for a private GM"));
                        return None;
                    };
                    *core.gm_mut() = gm;
                    let mut mm = tmpl.sibling(core, 0);
                    mm.par = Some(Box::new(Tracker::new(input, stop)));
                    // Prints are handed on in block order after the run (below).
                    mm.on_print = None;
                    let mut blocks = Vec::new();
                    let mut prints = Vec::new();
                    while !stop.load(Ordering::Relaxed) {
                        let b = next.fetch_add(1, Ordering::Relaxed);
                        if b >= mm.nblocks {
                            break;
                        }
                        if !blocks.is_empty() {
                            mm.fresh_block();
                        }
                        mm.block = b;
                        mm.steps = mm.steps.saturating_add(1);
                        let r = mm
                            .check_budget("block", span)
                            .and_then(|_| mm.call(fi, vals));
                        if let Err(e) = r {
                            fail(b, e);
                            return None;
                        }
                        let acc = mm
                            .par
                            .as_deref_mut()
                            .map(|t| std::mem::take(&mut t.acc))
                            .unwrap_or_default();
                        blocks.push((b, acc.finish()));
                        prints.push((b, std::mem::take(&mut mm.prints)));
                    }
                    Some(Worker {
                        gm: std::mem::replace(mm.core.gm_mut(), Memory::new(MemSpace::Gm, 0)),
                        blocks,
                        prints,
                        steps: mm.steps,
                        work: mm.work,
                        gm_to_chip: mm.gm_to_chip,
                        chip_to_gm: mm.chip_to_gm,
                        counts: mm.counts,
                    })
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().ok().flatten()).collect()
    });
    if let Some((b, e)) = failed.into_inner().unwrap_or_else(|p| p.into_inner()) {
        if e.kind() == RunErrorKind::Timeout {
            return Err(e);
        }
        return Ok(Some(Fallback::Failed {
            block: b,
            message: e.to_string(),
        }));
    }
    let mut workers = Vec::with_capacity(results.len());
    for w in results {
        // A worker without a result and without a recorded failure panicked or found no
        // chip profile: repeat in order (which reports it as the one-thread run does).
        let Some(w) = w else {
            return Ok(Some(Fallback::Failed {
                block: 0,
                message: "a worker thread stopped unexpectedly".into(),
            }));
        };
        workers.push(w);
    }
    // Budgets count over every block.
    let steps = workers
        .iter()
        .fold(m.steps, |a, w| a.saturating_add(w.steps));
    let work = workers.iter().fold(m.work, |a, w| a.saturating_add(w.work));
    if steps > m.max_steps || work > m.max_work {
        return Ok(Some(Fallback::Budget));
    }
    // Block b's accesses and the worker holding its GM.
    let n = m.nblocks as usize;
    let mut accs: Vec<Access> = vec![Access::default(); n];
    let mut owner = vec![usize::MAX; n];
    for (wi, w) in workers.iter_mut().enumerate() {
        for (b, a) in w.blocks.drain(..) {
            if let Some(slot) = accs.get_mut(b as usize) {
                *slot = a;
                owner[b as usize] = wi;
            }
        }
    }
    if owner.contains(&usize::MAX) {
        return Err(internal_err("a block of the run was not run by any thread"));
    }
    if let Some((ww, a, b, r)) = conflict(&accs) {
        let place = place(r, bufs);
        return Ok(Some(if ww {
            Fallback::WriteWrite {
                first: a,
                second: b,
                place,
            }
        } else {
            Fallback::ReadWrite {
                reader: a,
                writer: b,
                place,
            }
        }));
    }
    // The rule holds: each block's writes, from its thread's GM. Writes are pairwise disjoint
    // now, so the copies commute; large merges are split over the threads.
    let mut copies: Vec<(usize, usize, usize)> = Vec::new();
    for (b, acc) in accs.iter().enumerate() {
        for &(s, e) in &acc.writes {
            copies.push((s as usize, e as usize, owner[b]));
        }
    }
    let srcs: Vec<&[u8]> = workers.iter().map(|w| w.gm.as_slice()).collect();
    merge(m.core.gm_mut().as_mut_slice(), &srcs, copies, threads)?;
    m.steps = steps;
    m.work = work;
    // The prints, in block order as the one-thread run makes them.
    let mut by_block: Vec<Vec<super::PrintRec>> = vec![Vec::new(); n];
    for w in &mut workers {
        for (b, p) in w.prints.drain(..) {
            if let Some(slot) = by_block.get_mut(b as usize) {
                *slot = p;
            }
        }
    }
    for p in by_block.into_iter().flatten() {
        if let Some(f) = m.on_print {
            f(&p);
        }
        m.prints.push(p);
    }
    for w in &workers {
        m.gm_to_chip += w.gm_to_chip;
        m.chip_to_gm += w.chip_to_gm;
        for (a, c) in m.counts.iter_mut().zip(&w.counts) {
            for (x, y) in a.iter_mut().zip(c) {
                *x += y;
            }
        }
    }
    Ok(None)
}

/// Merged bytes below which the merge stays on the calling thread (a thread start costs
/// about as much as copying this much).
const PARALLEL_MERGE_MIN: usize = 1 << 20;

/// Copies `out[s..e] = srcs[w][s..e]` for every `(s, e, w)` of `copies`, which must be
/// pairwise disjoint; on up to `threads` threads when the total is large. Each thread gets
/// its own disjoint part of `out`, split off in address order.
fn merge(
    out: &mut [u8],
    srcs: &[&[u8]],
    mut copies: Vec<(usize, usize, usize)>,
    threads: u32,
) -> Result<(), RunError> {
    copies.sort_unstable();
    let total: usize = copies.iter().map(|c| c.1 - c.0).sum();
    let bad = || internal_err("a recorded GM write lies outside GM");
    // Each copy's destination, cut from `out` in address order.
    let mut jobs: Vec<(&mut [u8], &[u8])> = Vec::with_capacity(copies.len());
    let mut rest = out;
    let mut at = 0usize;
    for (s, e, w) in copies {
        if s < at || e > at + rest.len() {
            return Err(bad());
        }
        let (_, tail) = std::mem::take(&mut rest).split_at_mut(s - at);
        let (dst, tail) = tail.split_at_mut(e - s);
        rest = tail;
        at = e;
        let src = srcs.get(w).and_then(|x| x.get(s..e)).ok_or_else(bad)?;
        jobs.push((dst, src));
    }
    let parts = (threads as usize).min(total / PARALLEL_MERGE_MIN).max(1);
    if parts <= 1 {
        for (d, x) in jobs {
            d.copy_from_slice(x);
        }
        return Ok(());
    }
    // Consecutive jobs in groups of about total / parts bytes.
    let share = total.div_ceil(parts);
    let mut groups: Vec<Vec<(&mut [u8], &[u8])>> = vec![Vec::new()];
    let mut filled = 0usize;
    for j in jobs {
        if filled >= share {
            groups.push(Vec::new());
            filled = 0;
        }
        filled += j.0.len();
        if let Some(g) = groups.last_mut() {
            g.push(j);
        }
    }
    std::thread::scope(|sc| {
        for g in groups {
            sc.spawn(move || {
                for (d, x) in g {
                    d.copy_from_slice(x);
                }
            });
        }
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn acc(reads: &[(u64, u64)], writes: &[(u64, u64)]) -> Access {
        Access {
            reads: reads.to_vec(),
            writes: writes.to_vec(),
        }
        .finish()
    }

    #[test]
    fn disjoint_blocks_hold_the_rule() {
        // Both read the shared input below 100; each writes its own range after it.
        let a = [
            acc(&[(0, 64)], &[(100, 164)]),
            acc(&[(0, 100)], &[(164, 228)]),
        ];
        assert_eq!(conflict(&a), None);
    }

    #[test]
    fn a_block_may_read_its_own_writes() {
        let a = [acc(&[(0, 64)], &[(0, 64)]), acc(&[(64, 128)], &[(64, 128)])];
        assert_eq!(conflict(&a), None);
    }

    #[test]
    fn overlapping_writes_are_found() {
        let a = [
            acc(&[], &[(0, 10), (200, 300)]),
            acc(&[], &[(10, 20)]),
            acc(&[], &[(250, 260)]),
        ];
        assert_eq!(conflict(&a), Some((true, 0, 2, (250, 260))));
    }

    #[test]
    fn a_range_inside_a_long_one_is_found() {
        // The long range of block 0 reaches past block 1's, which starts after a short one.
        let a = [acc(&[], &[(0, 1000)]), acc(&[], &[(5, 6), (900, 901)])];
        assert_eq!(conflict(&a), Some((true, 0, 1, (5, 6))));
    }

    #[test]
    fn reading_another_blocks_write_is_found() {
        let a = [acc(&[], &[(0, 8)]), acc(&[(4, 12)], &[(16, 24)])];
        assert_eq!(conflict(&a), Some((false, 1, 0, (4, 8))));
        let a = [acc(&[(16, 17)], &[(0, 8)]), acc(&[], &[(16, 24)])];
        assert_eq!(conflict(&a), Some((false, 0, 1, (16, 17))));
    }

    #[test]
    fn merge_copies_every_range_from_its_source_on_one_or_more_threads() {
        // Three sources, ranges interleaved in address order; big enough to split.
        let n = 3 * PARALLEL_MERGE_MIN + 100;
        let srcs: Vec<Vec<u8>> = (0..3u8)
            .map(|k| {
                (0..n)
                    .map(|i| (i as u8).wrapping_mul(7).wrapping_add(k))
                    .collect()
            })
            .collect();
        let refs: Vec<&[u8]> = srcs.iter().map(|v| v.as_slice()).collect();
        let mut copies = Vec::new();
        let mut at = 5usize;
        let mut k = 0;
        while at + 70_000 < n {
            copies.push((at, at + 65_536 + k * 11, k % 3));
            at += 65_536 + k * 11 + 1000;
            k += 1;
        }
        for threads in [1, 2, 3] {
            let mut out = vec![0xAAu8; n];
            merge(&mut out, &refs, copies.clone(), threads).unwrap();
            let mut want = vec![0xAAu8; n];
            for &(s, e, w) in &copies {
                want[s..e].copy_from_slice(&srcs[w][s..e]);
            }
            assert!(out == want, "threads {threads}");
        }
        // A range past the end is an error, not a panic.
        let mut out = vec![0u8; 16];
        assert!(merge(&mut out, &refs, vec![(8, 20, 0)], 2).is_err());
    }

    #[test]
    fn footprint_of_a_strided_view() {
        // 3 rows of 4 f32 with a row stride of 10 elements at 0x100.
        let g = GlobalTensor::nd_2d_strided(0x100, npusim_core::ElemType::F32, 3, 4, 10);
        let mut v = Vec::new();
        footprint(&g, |s, e| v.push((s, e)));
        assert_eq!(v, vec![(0x100, 0x110), (0x128, 0x138), (0x150, 0x160)]);
        // Column-major 2x3: each column's 2 rows are one run.
        let g = GlobalTensor::dn_2d(0, npusim_core::ElemType::F16, 2, 3);
        let mut v = Vec::new();
        footprint(&g, |s, e| v.push((s, e)));
        assert_eq!(v, vec![(0, 4), (4, 8), (8, 12)]);
    }

    #[test]
    fn footprint_matches_the_element_offsets() {
        // Every element's bytes, from GlobalTensor::offset, against the runs.
        let g = GlobalTensor::nz_2d(64, npusim_core::ElemType::F16, 32, 32);
        let mut runs = Vec::new();
        footprint(&g, |s, e| runs.push((s, e)));
        let mut want = Vec::new();
        for r in 0..32 {
            for c in 0..32 {
                let a = 64 + 2 * g.offset(r, c) as u64;
                want.push((a, a + 2));
            }
        }
        normalise(&mut runs);
        normalise(&mut want);
        assert_eq!(runs, want);
    }
}
