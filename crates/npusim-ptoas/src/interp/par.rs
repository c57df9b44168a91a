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
//!   the one-thread run) and an alias of the one GM ([`Memory::alias`]): blocks read and write
//!   GM in place. Blocks are handed out in increasing order from a shared counter.
//! - Before every GM access, a block claims the byte ranges it is about to read or write in
//!   the run's [`Claims`] (one lock): a TLOAD reads, a TSTORE / TSTORE_FP writes, the whole
//!   footprint of its global tensor (every element of its 5-D shape, run by run along the
//!   unit-stride dimension, even when the store moves less: a valid window, an Acc store of
//!   fewer rows, the fixpipe's no-op); `pto.load_scalar` reads and `pto.store_scalar` writes
//!   its element, `pto.tprint` of a view reads it, the asynchronous copies read their source
//!   and write their destination. Any other tile operand form with a global tensor claims
//!   both. These are all the GM accesses of a non-mixed kernel.
//! - A claim that breaks the rule against another block's claims is refused before the access
//!   happens, and every worker stops. So no two threads ever touch a common GM byte unless
//!   both only read it: that is what makes the aliases sound.
//! - After a refused claim, GM is bound again from the arguments and the run is repeated in
//!   block order on one thread, recording each block's accesses, and [`Schedule::fallback`]
//!   names the first violation of the rule in block order (the two blocks and the byte range,
//!   as offsets into the bound buffer it lies in); `npusim run` prints that as a note. The
//!   note therefore does not depend on how the threads happened to interleave.
//! - The interpreter has no atomic or accumulating GM stores (TSTORE's atomic modes are not
//!   modelled); such a store would have to force the in-order path.
//!
//! These runs take the in-order path on one thread whatever `threads` says, with a
//! [`Fallback`] naming the reason: traced runs (the trace is recorded block by block in
//! order) and mixed cube + vector kernels (their three cores already take turns on threads,
//! see `interp::coop`). A single block, or `threads = 1`, runs in order without a note.
//!
//! A block that fails on a worker (any error but the wall clock) stops the others; GM is bound
//! again and the run is repeated in order, so the error (and the step and work budgets, which
//! count over all blocks) is exactly the one-thread run's. A wall-clock timeout is returned as
//! it is.
//!
//! Statistics (steps, per-op counts, bytes moved) are sums over the blocks, as in order.
//!
//! # Cost
//! The claims cost one lock and a few map lookups per GM access (a tile transfer, not an
//! element). Nothing is copied: before the aliases, each worker wrote into a private GM that
//! was then merged into the result, and its first write into each 2 MiB region faulted in
//! and zeroed the whole huge page (about 1 ms per worker for the 1024-row softmax's
//! round-robin 32 KiB stores). The buffer arguments are bound on the run's threads as well
//! (`interp::bind`), so the page faults of a large GM are shared out too.

use super::exec::Machine;
use super::lower::{Val, profile_name};
use super::{Program, RunConfig, RunError, RunErrorKind};
use npusim_core::Memory;
use npusim_pto::{Args, GlobalTensor};
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

/// Byte ranges `start -> (end, owner)`, pairwise disjoint, each touched by one block
/// (`owner`) or by several ([`MANY`]).
#[derive(Default)]
struct SegMap {
    m: BTreeMap<u64, (u64, u32)>,
}

/// The owner of a range that several blocks touched.
const MANY: u32 = u32::MAX;

impl SegMap {
    /// The first part of `[s, e)` touched by a block other than `b`, with that block ([`MANY`]
    /// for several).
    fn other(&self, s: u64, e: u64, b: u32) -> Option<(u64, u64, u32)> {
        // The segment starting at or before `s` may reach into the range; then the ones
        // starting inside it.
        let before = self.m.range(..=s).next_back();
        let inside = self.m.range((s.saturating_add(1))..e);
        before
            .into_iter()
            .chain(inside)
            .filter(|(a, (z, o))| **a < e && *z > s && *o != b)
            .map(|(a, (z, o))| ((*a).max(s), (*z).min(e), *o))
            .next()
    }

    /// Marks `[s, e)` as touched by `b`: its gaps become `b`'s, segments of other blocks
    /// become [`MANY`]'s; a new segment of `b` touching `b`'s segment just before it is merged
    /// into it (a row-by-row transfer makes one segment).
    fn add(&mut self, s: u64, e: u64, b: u32) {
        if s >= e {
            return;
        }
        // Split the segment straddling `s`, and the one straddling `e`.
        if let Some((&a, &(z, o))) = self.m.range(..s).next_back()
            && z > s
        {
            self.m.insert(a, (s, o));
            self.m.insert(s, (z, o));
        }
        if let Some((&a, &(z, o))) = self.m.range(..e).next_back()
            && z > e
        {
            self.m.insert(a, (e, o));
            self.m.insert(e, (z, o));
        }
        // Now every segment meeting [s, e) lies inside it.
        let inside: Vec<(u64, u64, u32)> =
            self.m.range(s..e).map(|(a, (z, o))| (*a, *z, *o)).collect();
        let mut at = s;
        let mut fresh: Vec<(u64, u64, u32)> = Vec::with_capacity(inside.len() * 2 + 1);
        for (a, z, o) in inside {
            if a > at {
                fresh.push((at, a, b));
            }
            fresh.push((a, z, if o == b { b } else { MANY }));
            at = z;
        }
        if at < e {
            fresh.push((at, e, b));
        }
        for (a, z, o) in fresh {
            // Merge with the segment ending exactly at `a` when both have the same owner.
            if let Some((&pa, &(pz, po))) = self.m.range(..a).next_back()
                && pz == a
                && po == o
            {
                self.m.insert(pa, (z, o));
                self.m.remove(&a);
            } else {
                self.m.insert(a, (z, o));
            }
        }
    }
}

/// The GM byte ranges the blocks of a multi-threaded run have read and written so far,
/// checked and extended under one lock before each access (see the module docs).
#[derive(Default)]
pub(crate) struct Claims {
    sets: Mutex<ClaimSets>,
}

#[derive(Default)]
struct ClaimSets {
    reads: SegMap,
    writes: SegMap,
    /// The first claim refused: (is it write-write, block, other block, range).
    refused: Option<(bool, u32, u32, (u64, u64))>,
}

impl Claims {
    /// Claims `[s, e)` for block `b`, to write it (`write`) or to read it; `false` (and nothing
    /// recorded) when that breaks the rule against another block's claims.
    fn claim(&self, b: u32, s: u64, e: u64, write: bool) -> bool {
        if s >= e {
            return true;
        }
        let mut c = self.sets.lock().unwrap_or_else(|p| p.into_inner());
        let clash = if write {
            // Another block's write first (a write-write pair), then another block's read.
            c.writes
                .other(s, e, b)
                .map(|(a, z, o)| (true, o, (a, z)))
                .or_else(|| c.reads.other(s, e, b).map(|(a, z, o)| (false, o, (a, z))))
        } else {
            c.writes.other(s, e, b).map(|(a, z, o)| (false, o, (a, z)))
        };
        if let Some((ww, o, r)) = clash {
            if c.refused.is_none() {
                c.refused = Some((ww, b, o, r));
            }
            return false;
        }
        if write {
            c.writes.add(s, e, b);
        } else {
            c.reads.add(s, e, b);
        }
        true
    }

    fn refused(&self) -> Option<(bool, u32, u32, (u64, u64))> {
        self.sets.lock().unwrap_or_else(|p| p.into_inner()).refused
    }
}

/// A block's GM accesses being claimed (on a worker) or recorded (the in-order rerun that
/// names a violation).
enum Mode<'p> {
    Claim { claims: &'p Claims, block: u32 },
    Record(Access),
}

/// What a worker thread's machine does before each GM access (see [`Machine::par`]).
pub(crate) struct Tracker<'p> {
    mode: Mode<'p>,
    /// Set when a block on another thread failed or a claim was refused.
    pub stop: &'p AtomicBool,
    /// Reused buffer for a transfer's footprint.
    scratch: Vec<(u64, u64)>,
}

/// A refused claim: the block must stop before its access.
pub(crate) struct Refused;

impl<'p> Tracker<'p> {
    fn claiming(claims: &'p Claims, stop: &'p AtomicBool) -> Self {
        Tracker {
            mode: Mode::Claim { claims, block: 0 },
            stop,
            scratch: Vec::new(),
        }
    }

    fn recording(stop: &'p AtomicBool) -> Self {
        Tracker {
            mode: Mode::Record(Access::default()),
            stop,
            scratch: Vec::new(),
        }
    }

    /// The block whose accesses follow.
    fn set_block(&mut self, b: u32) {
        if let Mode::Claim { block, .. } = &mut self.mode {
            *block = b;
        }
    }

    /// The accesses recorded since the last call (recording mode).
    fn take(&mut self) -> Access {
        match &mut self.mode {
            Mode::Record(a) => std::mem::take(a).finish(),
            Mode::Claim { .. } => Access::default(),
        }
    }

    fn access(&mut self, s: u64, e: u64, write: bool) -> Result<(), Refused> {
        match &mut self.mode {
            Mode::Claim { claims, block } => {
                if claims.claim(*block, s, e, write) {
                    Ok(())
                } else {
                    self.stop.store(true, Ordering::Relaxed);
                    Err(Refused)
                }
            }
            Mode::Record(a) => {
                push(if write { &mut a.writes } else { &mut a.reads }, s, e);
                Ok(())
            }
        }
    }

    /// Before a GM read of `[addr, addr + n)`.
    pub(crate) fn read(&mut self, addr: u64, n: u64) -> Result<(), Refused> {
        self.access(addr, addr.saturating_add(n), false)
    }

    /// Before a GM write of `[addr, addr + n)`.
    pub(crate) fn write(&mut self, addr: u64, n: u64) -> Result<(), Refused> {
        self.access(addr, addr.saturating_add(n), true)
    }

    /// Before a read of a global tensor's whole footprint other than by a tile instruction
    /// (`pto.tprint` of a view).
    pub(crate) fn read_global(&mut self, g: &GlobalTensor) -> Result<(), Refused> {
        self.footprint_access(g, false)
    }

    fn footprint_access(&mut self, g: &GlobalTensor, write: bool) -> Result<(), Refused> {
        let mut runs = std::mem::take(&mut self.scratch);
        runs.clear();
        footprint(g, |s, e| push(&mut runs, s, e));
        let r = runs.iter().try_for_each(|&(s, e)| self.access(s, e, write));
        self.scratch = runs;
        r
    }

    /// Before a tile instruction: claims what it reads and writes of GM (see the module
    /// docs).
    // Kept out of line: inlined, it made every single-thread step's frame ~1 KiB.
    #[inline(never)]
    pub(crate) fn before(&mut self, args: &Args) -> Result<(), Refused> {
        match args {
            Args::Load { src, .. } => self.footprint_access(src, false),
            Args::Store { dst, .. } | Args::StoreFp { dst, .. } => self.footprint_access(dst, true),
            other => {
                // Any other form holding a global tensor: a read and a write, to be safe.
                let mut g = Globals { t: self, r: Ok(()) };
                let _ = other.try_map(&mut g);
                g.r
            }
        }
    }
}

/// Visits the global tensors of an operand form (see [`Tracker::before`]), claiming each as
/// read and written.
struct Globals<'a, 'p> {
    t: &'a mut Tracker<'p>,
    r: Result<(), Refused>,
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
        if self.r.is_ok() {
            self.r = self
                .t
                .footprint_access(g, false)
                .and_then(|_| self.t.footprint_access(g, true));
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
    /// (block, what it printed)
    prints: Vec<(u32, Vec<super::PrintRec>)>,
    steps: u64,
    work: u64,
    gm_to_chip: u64,
    chip_to_gm: u64,
    counts: Vec<Vec<u64>>,
}

/// Binds the buffer arguments into GM again: zeroes it and copies each argument back, as
/// before the run (for the in-order repeat after a parallel attempt wrote GM in place).
pub(crate) type Rebind<'a> = &'a dyn Fn(&mut Memory) -> Result<(), RunError>;

/// Runs every block of `m`'s run (`m.nblocks`) of function `fi`, on `cfg.threads` host
/// threads when the rule allows (see the module docs), else in order; `m` holds the bound GM
/// and receives the result and the statistics. `bufs` names the bound buffers (name,
/// address, bytes) for the notes; `rebind` restores GM to the bound arguments.
pub(crate) fn run_blocks(
    prog: &Program,
    m: &mut Machine<'_>,
    fi: usize,
    vals: &[Val],
    cfg: &RunConfig,
    bufs: &[Buf],
    rebind: Rebind<'_>,
) -> Result<Schedule, RunError> {
    let threads = cfg.threads.clamp(1, m.nblocks.max(1));
    let why = if threads <= 1 {
        None
    } else if prog.mixed {
        Some(Fallback::Mixed)
    } else if m.rec.is_some() {
        Some(Fallback::Traced)
    } else {
        None
    };
    if threads <= 1 || why.is_some() {
        in_order(prog, m, fi, vals, None)?;
        return Ok(Schedule {
            threads: 1,
            fallback: why,
        });
    }
    let why = match parallel(prog, m, fi, vals, threads)? {
        Outcome::Done => {
            return Ok(Schedule {
                threads,
                fallback: None,
            });
        }
        Outcome::Again(why) => why,
        Outcome::Refused(first) => {
            // Repeated in order, recording: the note names the first violation in block
            // order, not the one the threads' interleaving happened to meet first.
            rebind(m.core.gm_mut())?;
            let mut accs = Vec::with_capacity(m.nblocks as usize);
            in_order(prog, m, fi, vals, Some(&mut accs))?;
            let (ww, a, b, r) = conflict(&accs).unwrap_or(first);
            let place = place(r, bufs);
            return Ok(Schedule {
                threads: 1,
                fallback: Some(if ww {
                    Fallback::WriteWrite {
                        first: a.min(b),
                        second: a.max(b),
                        place,
                    }
                } else {
                    Fallback::ReadWrite {
                        reader: a,
                        writer: b,
                        place,
                    }
                }),
            });
        }
    };
    rebind(m.core.gm_mut())?;
    in_order(prog, m, fi, vals, None)?;
    Ok(Schedule {
        threads: 1,
        fallback: Some(why),
    })
}

/// The one-thread run: blocks `0..m.nblocks` in order on `m`'s core; with `rec`, each block's
/// GM accesses are recorded into it (`rec[b]` is block `b`'s).
fn in_order(
    prog: &Program,
    m: &mut Machine<'_>,
    fi: usize,
    vals: &[Val],
    mut rec: Option<&mut Vec<Access>>,
) -> Result<(), RunError> {
    static NEVER: AtomicBool = AtomicBool::new(false);
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
        if rec.is_some() {
            m.par = Some(Box::new(Tracker::recording(&NEVER)));
        }
        let r = m.call(fi, vals);
        let t = m.par.take();
        r?;
        if let (Some(accs), Some(mut t)) = (rec.as_deref_mut(), t) {
            accs.push(t.take());
        }
    }
    Ok(())
}

/// How the parallel attempt ended.
enum Outcome {
    /// Every block ran; `m` holds the result.
    Done,
    /// A claim was refused: (is it write-write, block, other block, range). GM was written
    /// in place and must be bound again.
    Refused((bool, u32, u32, (u64, u64))),
    /// Another reason to repeat in order (GM must be bound again).
    Again(Fallback),
}

/// The blocks on `threads` workers, writing `m`'s GM in place through aliases.
fn parallel(
    prog: &Program,
    m: &mut Machine<'_>,
    fi: usize,
    vals: &[Val],
    threads: u32,
) -> Result<Outcome, RunError> {
    let span = prog.funcs[fi].span;
    let next = AtomicU32::new(0);
    let stop = AtomicBool::new(false);
    let claims = Claims::default();
    // The first failure (block, error), lowest block first.
    let failed: Mutex<Option<(u32, RunError)>> = Mutex::new(None);
    let gm = m.core.gm();
    let tmpl = &*m;
    let (next_r, stop_r, failed_r, claims_r) = (&next, &stop, &failed, &claims);
    // One worker: its own core on an alias of the one GM, taking blocks until none is left.
    let worker = move || -> Option<Worker> {
        let (next, stop, failed, claims) = (next_r, stop_r, failed_r, claims_r);
        let fail = |b: u32, e: RunError| {
            stop.store(true, Ordering::Relaxed);
            let mut f = failed.lock().unwrap_or_else(|p| p.into_inner());
            if f.as_ref().is_none_or(|(fb, _)| b < *fb) {
                *f = Some((b, e));
            }
        };
        let mut core = super::cores::take(profile_name(prog.target))?;
        core.set_policy(prog.policy);
        // SAFETY: `Memory::alias`'s contract. The run's GM outlives the scope the workers
        // run in, and nothing else touches it until every worker is done (the calling
        // thread runs a worker of its own on its own core, then joins the others). Every
        // GM access of a worker's blocks is claimed first (`Tracker::before`, `read`,
        // `write`, `read_global`, at each call site in `exec.rs`), and a claim that would
        // let two blocks touch a common byte with one of them writing is refused before
        // the access; two blocks on one thread run one after the other.
        #[allow(unsafe_code)]
        let alias = unsafe { gm.alias() };
        *core.gm_mut() = alias;
        let mut mm = tmpl.sibling(core, 0);
        mm.par = Some(Box::new(Tracker::claiming(claims, stop)));
        // Prints are handed on in block order after the run (below).
        mm.on_print = None;
        let mut prints = Vec::new();
        let mut first = true;
        while !stop.load(Ordering::Relaxed) {
            let b = next.fetch_add(1, Ordering::Relaxed);
            if b >= mm.nblocks {
                break;
            }
            if !first {
                mm.fresh_block();
            }
            first = false;
            mm.block = b;
            if let Some(t) = mm.par.as_deref_mut() {
                t.set_block(b);
            }
            mm.steps = mm.steps.saturating_add(1);
            let r = mm
                .check_budget("block", span)
                .and_then(|_| mm.call(fi, vals));
            if let Err(e) = r {
                // A refused claim stopped this block: not a failure of its own.
                if claims.refused().is_none() {
                    fail(b, e);
                }
                return None;
            }
            prints.push((b, std::mem::take(&mut mm.prints)));
        }
        super::cores::keep(profile_name(prog.target), mm.core, mm.extent);
        Some(Worker {
            prints,
            steps: mm.steps,
            work: mm.work,
            gm_to_chip: mm.gm_to_chip,
            chip_to_gm: mm.chip_to_gm,
            counts: mm.counts,
        })
    };
    // The calling thread is one of the workers (a thread start costs about 35 us here).
    let results: Vec<Option<Worker>> = std::thread::scope(|s| {
        let hs: Vec<_> = (1..threads).map(|_| s.spawn(worker)).collect();
        let mine = std::panic::catch_unwind(std::panic::AssertUnwindSafe(worker))
            .ok()
            .flatten();
        std::iter::once(mine)
            .chain(hs.into_iter().map(|h| h.join().ok().flatten()))
            .collect()
    });
    if let Some((b, e)) = failed.into_inner().unwrap_or_else(|p| p.into_inner()) {
        if e.kind() == RunErrorKind::Timeout {
            return Err(e);
        }
        return Ok(Outcome::Again(Fallback::Failed {
            block: b,
            message: e.to_string(),
        }));
    }
    if let Some(r) = claims.refused() {
        return Ok(Outcome::Refused(r));
    }
    let mut workers = Vec::with_capacity(results.len());
    for w in results {
        // A worker without a result and without a recorded failure panicked or found no
        // chip profile: repeat in order (which reports it as the one-thread run does).
        let Some(w) = w else {
            return Ok(Outcome::Again(Fallback::Failed {
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
        return Ok(Outcome::Again(Fallback::Budget));
    }
    m.steps = steps;
    m.work = work;
    // The prints, in block order as the one-thread run makes them.
    let n = m.nblocks as usize;
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
    Ok(Outcome::Done)
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

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(
            std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(256)
        ))]
        /// `Claims` against a plain byte model: each byte's set of readers and of writers; a
        /// claim is refused exactly when it would let another block write a byte this one
        /// touches, or touch a byte another block writes (and then records nothing).
        #[test]
        fn claims_follow_a_byte_model(
            ops in proptest::collection::vec((0u32..4, 0u64..96, 1u64..24, proptest::bool::ANY), 1..60)
        ) {
            use std::collections::BTreeSet;
            let c = Claims::default();
            let mut readers = vec![BTreeSet::new(); 128];
            let mut writers = vec![BTreeSet::new(); 128];
            for (b, s, n, write) in ops {
                let e = s + n;
                let others = |set: &BTreeSet<u32>| set.iter().any(|&o| o != b);
                let clash = (s..e).any(|x| {
                    let x = x as usize;
                    others(&writers[x]) || (write && others(&readers[x]))
                });
                proptest::prop_assert_eq!(c.claim(b, s, e, write), !clash, "{} {}..{} {}", b, s, e, write);
                if !clash {
                    for x in s..e {
                        let set = if write { &mut writers } else { &mut readers };
                        set[x as usize].insert(b);
                    }
                }
            }
            // The maps stay disjoint segments in address order.
            let sets = c.sets.lock().unwrap();
            for m in [&sets.reads.m, &sets.writes.m] {
                let mut end = 0;
                for (&a, &(z, _)) in m.iter() {
                    proptest::prop_assert!(a >= end && z > a);
                    end = z;
                }
            }
        }
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
