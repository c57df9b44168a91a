//! The sync-hazard checker: npusim runs a kernel's instructions in program order, one at a
//! time, but on the chip each pipe (MTE2 loads, MTE1 L1 -> L0 moves, vector, cube, fixpipe,
//! MTE3 stores, scalar) runs its own queue, and only the kernel's sync ops order one pipe's
//! work against another's. A kernel can therefore give the right answer here and race on the
//! chip. The checker reports those races.
//!
//! **Model** (PTO IR manual §4.16 "Synchronization Operations", and the pipes PTOAS assigns
//! sync op types to, `mapSyncOpTypeToPipe`): every tile instruction runs on one pipe
//! ([`super::trace::op_pipe`]; `pto.tgetval`/`pto.tsetval` on the scalar pipe). Instructions of
//! one pipe are ordered. `set_flag(a, b, id)` / `record_event` orders everything pipe `a` was
//! given before it with everything pipe `b` is given after the `wait_flag(a, b, id)` /
//! `wait_event` that consumes it (sets and waits of one `(a, b, id)` pair first to first; a
//! wait that runs before its set, as in pre-armed double buffering, orders what `a` was given
//! before the wait). `pto.barrier #pto.pipe<PIPE_ALL>` orders everything before it with
//! everything after it; a barrier on one pipe orders that pipe only (already ordered here).
//! (PTOAS's own sync insertion also puts `pto.barrier <PIPE_V>` between dependent ops of the
//! vector pipe, its test `Sync/test_inject_sync_intra_pipe_barrier`; the checker does not ask
//! for those.)
//! `pto.get_buf`/`pto.rls_buf` (A5) order the work of the pipes that hold one buffer id in
//! turn. The orderings compose (vector clocks: each pipe knows, per other pipe, how many of
//! its instructions are ordered before its own next one).
//!
//! Per on-chip memory and byte range (each tile buffer by its address and size in its memory;
//! a strided view covers its first to last byte), the checker keeps the last write and, per
//! pipe, the last read since then. An access by another pipe that is not ordered after them is
//! a read-after-write, write-after-read or write-after-write hazard ([`HazardKind`]), reported
//! once per pair of source lines with the tile range, both pipes and the missing sync. Global
//! memory is not tracked (blocks are separate cores; a GM round trip inside one core is not
//! checked yet).
//!
//! **Kernels without sync ops** are the input PTOAS's automatic sync insertion
//! (`ptoas --enable-insert-sync`) expects: most of its samples and the repository's own
//! row-softmax, rmsnorm and online-softmax examples. They are not checked (the report says so
//! in [`Report::skipped`]): every cross-pipe dependency in them would be reported, though the
//! compiler is meant to add the syncs. A kernel with at least one intra-core sync op is taken
//! as synchronised by hand and checked in full.
//!
//! **Mixed cube + vector kernels** (`pto.section.cube` / `pto.section.vector`): every core of a
//! block (AIC, AIV0, AIV1) has its own pipes and on-chip memories, so each core's instruction
//! stream is checked on its own, with the same rules, and the reports are merged (a hazard
//! names the core it was seen on). What crosses cores (`pto.sync.set`/`pto.sync.wait`, the
//! `tpush`/`tpop` pipes, global memory) is ordered by the interpreter's own waits and is not
//! checked here.

use super::lower::{Inst, Program, Val};
use super::scalar::Num;
use super::trace::{Pipe, SyncKind, sync_kind};
use super::{HostArg, RunConfig, RunError, RunOutcome};
use crate::diag::{Span, line_col, safe_text};
use npusim_pto::{Args, GlobalTensor, OpCode, OperandMap, Scalar, Tile, TileLoc};
use std::collections::{HashMap, VecDeque};
use std::fmt::Write as _;

/// Which order a hazard breaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HazardKind {
    /// A read that can run before the write it should see lands.
    ReadAfterWrite,
    /// A write that can land before an earlier read has read the old bytes.
    WriteAfterRead,
    /// Two writes that can land in either order.
    WriteAfterWrite,
    /// A wait (`earlier`) that runs before its set (`later`) in program order, where the set's
    /// pipe first needs work the waiting pipe does after the wait: the chip hangs there.
    Deadlock,
    /// A wait that no set ever signals in the run (`earlier` and `later` are the wait): the
    /// chip hangs there.
    NeverSet,
}

impl HazardKind {
    /// `read-after-write`, ...
    pub fn name(self) -> &'static str {
        match self {
            HazardKind::ReadAfterWrite => "read-after-write",
            HazardKind::WriteAfterRead => "write-after-read",
            HazardKind::WriteAfterWrite => "write-after-write",
            HazardKind::Deadlock => "deadlock",
            HazardKind::NeverSet => "wait-never-set",
        }
    }
    /// `RAW`, `WAR`, `WAW`.
    pub fn short(self) -> &'static str {
        match self {
            HazardKind::ReadAfterWrite => "RAW",
            HazardKind::WriteAfterRead => "WAR",
            HazardKind::WriteAfterWrite => "WAW",
            HazardKind::Deadlock => "HANG",
            HazardKind::NeverSet => "HANG",
        }
    }
}

/// One side of a hazard: an instruction's access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    /// The pipe it runs on.
    pub pipe: Pipe,
    /// The op name's span in the source.
    pub span: Span,
    /// The op name.
    pub op: &'static str,
    /// Written (`true`) or read.
    pub write: bool,
}

/// One reported hazard (one per pair of source instructions and kind).
#[derive(Clone, Debug, PartialEq)]
pub struct Hazard {
    /// Which order it breaks.
    pub kind: HazardKind,
    /// The access that comes first in program order.
    pub earlier: Access,
    /// The access that can overtake it on the chip.
    pub later: Access,
    /// The on-chip memory (`None` for the sync hazards [`HazardKind::Deadlock`] and
    /// [`HazardKind::NeverSet`]).
    pub loc: Option<TileLoc>,
    /// The overlapping bytes `[start, end)` the first time it was seen.
    pub range: (u64, u64),
    /// For the sync hazards: the sync op's pipes and event id.
    pub event: Option<(Pipe, Pipe, u32)>,
    /// The block (core) it was first seen in.
    pub block: u32,
    /// In a mixed cube + vector run, the core it was first seen on (`AIC`, `AIV0`, `AIV1`).
    pub core: Option<&'static str>,
    /// How many times it was seen (over loop iterations and blocks).
    pub count: u64,
}

/// Most distinct hazards kept (more are counted in [`Report::dropped`]).
pub const MAX_HAZARDS: usize = 256;

/// What the checker found in one run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Report {
    /// The hazards, in the order they were first seen.
    pub hazards: Vec<Hazard>,
    /// Occurrences of distinct hazards past [`MAX_HAZARDS`].
    pub dropped: u64,
    /// Why the kernel was not checked, when it was not.
    pub skipped: Option<String>,
}

impl Report {
    /// Whether there is nothing to report.
    pub fn is_clean(&self) -> bool {
        self.hazards.is_empty() && self.dropped == 0
    }

    /// The hazards as rustc-style diagnostics against `src` (`severity`: `warning` or
    /// `error`), each naming both source lines, the pipes, the tile range and the missing
    /// sync.
    pub fn render(&self, file: &str, src: &str, severity: &str) -> String {
        let mut o = String::new();
        for (i, h) in self.hazards.iter().enumerate() {
            if i > 0 {
                o.push('\n');
            }
            o.push_str(&render_one(h, file, src, severity));
        }
        if self.dropped > 0 {
            let _ = writeln!(
                o,
                "\n{severity}: {} more hazard occurrence(s) not shown (over {MAX_HAZARDS} distinct)",
                self.dropped
            );
        }
        o
    }
}

fn loc_name(l: TileLoc) -> &'static str {
    match l {
        TileLoc::Vec => "vec",
        TileLoc::Mat => "mat",
        TileLoc::Left => "left",
        TileLoc::Right => "right",
        TileLoc::Acc => "acc",
        TileLoc::Bias => "bias",
        TileLoc::Scaling => "scaling",
        TileLoc::ScaleLeft => "scale_left",
        TileLoc::ScaleRight => "scale_right",
    }
}

/// The source line of `span` for display: (line, column, text, caret offset, caret length).
fn shown_line(src: &str, span: Span) -> (usize, usize, String, usize, usize) {
    let start = span.start.min(src.len());
    let (line, col) = line_col(src, start);
    let ls = src
        .get(..start)
        .and_then(|s| s.rfind('\n'))
        .map_or(0, |i| i + 1);
    let le = src
        .get(start..)
        .and_then(|s| s.find('\n'))
        .map_or(src.len(), |i| start + i);
    let text = src.get(ls..le).unwrap_or("").trim_end_matches('\r');
    let before: String = src.get(ls..start).unwrap_or("").chars().collect();
    let name_len = src
        .get(start..span.end.clamp(start, le))
        .map_or(1, |s| s.chars().count().max(1));
    // Long tile_buf types: show the op and about 60 characters after it.
    let keep = before.chars().count() + name_len + 60;
    let mut shown: String = text.chars().take(keep).collect();
    if text.chars().count() > keep {
        shown.push_str(" ...");
    }
    let pad = before.chars().count();
    (line, col, safe_text(&shown), pad, name_len)
}

fn render_one(h: &Hazard, file: &str, src: &str, severity: &str) -> String {
    let Some(loc) = h.loc else {
        return render_sync(h, file, src, severity);
    };
    let (a, b) = (&h.earlier, &h.later);
    let (la, ca, ta, pa, na) = shown_line(src, a.span);
    let (lb, cb, tb, pb, nb) = shown_line(src, b.span);
    let gutter = la.max(lb).to_string().len();
    let blank = " ".repeat(gutter);
    let verb = |w: bool| if w { "writes" } else { "reads" };
    let range = format!("{}[{:#x}..{:#x})", loc_name(loc), h.range.0, h.range.1);
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{severity}[hazard]: {} {}: {} {} {range} at line {la}, {} {} it at line {lb} with no sync from {} to {} between them",
        h.kind.short(),
        h.kind.name(),
        a.pipe.short(),
        verb(a.write),
        b.pipe.short(),
        verb(b.write),
        a.pipe.short(),
        b.pipe.short(),
    );
    let _ = writeln!(o, "{blank}--> {file}:{lb}:{cb}");
    let _ = writeln!(o, "{blank} |");
    let line = |o: &mut String, n: usize, t: &str, pad: usize, len: usize, label: String| {
        let _ = writeln!(o, "{n:>gutter$} | {t}");
        let _ = writeln!(
            o,
            "{blank} | {}{} {label}",
            " ".repeat(pad),
            "^".repeat(len)
        );
    };
    let first = format!(
        "{} {} {range} here ({}, earlier, {file}:{la}:{ca})",
        a.op,
        verb(a.write),
        a.pipe.name()
    );
    let second = format!(
        "{} {} it here ({}); on the chip it can run before the access at line {la} completes",
        b.op,
        verb(b.write),
        b.pipe.name()
    );
    if la == lb {
        line(&mut o, la, &ta, pa, na, format!("{first}; {second}"));
    } else {
        line(&mut o, la, &ta, pa, na, first);
        if lb > la + 1 {
            let _ = writeln!(o, "{blank} ...");
        }
        line(&mut o, lb, &tb, pb, nb, second);
    }
    let _ = writeln!(o, "{blank} |");
    let _ = writeln!(
        o,
        "{blank} = note: first seen in block {}{}, {} time(s) in this run",
        h.block,
        h.core.map(|c| format!(" on {c}")).unwrap_or_default(),
        h.count
    );
    let pn = |p: Pipe| format!("PIPE_{}", p.short());
    let _ = writeln!(
        o,
        "{blank} = help: missing sync: `pto.set_flag[<{}>, <{}>, <EVENT_IDn>]` (or `pto.record_event`) after line {la} and the matching `pto.wait_flag` (`pto.wait_event`) before line {lb}, or `pto.barrier #pto.pipe<PIPE_ALL>` between them",
        pn(a.pipe),
        pn(b.pipe)
    );
    o
}

fn event_text((a, b, id): (Pipe, Pipe, u32)) -> String {
    let id = if id == super::trace::DYN_EVENT {
        "a run-time event id".to_string()
    } else {
        format!("EVENT_ID{id}")
    };
    format!("{} -> {}, {id}", a.short(), b.short())
}

fn render_sync(h: &Hazard, file: &str, src: &str, severity: &str) -> String {
    let (a, b) = (&h.earlier, &h.later);
    let (la, ca, ta, pa, na) = shown_line(src, a.span);
    let (lb, cb, tb, pb, nb) = shown_line(src, b.span);
    let gutter = la.max(lb).to_string().len();
    let blank = " ".repeat(gutter);
    let ev = h.event.map(event_text).unwrap_or_default();
    let mut o = String::new();
    let show = |o: &mut String, n: usize, t: &str, pad: usize, len: usize, label: &str| {
        let _ = writeln!(o, "{n:>gutter$} | {t}");
        let _ = writeln!(
            o,
            "{blank} | {}{} {label}",
            " ".repeat(pad),
            "^".repeat(len)
        );
    };
    if h.kind == HazardKind::NeverSet {
        let _ = writeln!(
            o,
            "{severity}[hazard]: HANG: the wait at line {la} ({ev}) is never signalled: no set with this pipe pair and event id runs after it, or every one is taken by an earlier wait"
        );
        let _ = writeln!(o, "{blank}--> {file}:{la}:{ca}");
        let _ = writeln!(o, "{blank} |");
        show(&mut o, la, &ta, pa, na, "the chip waits here for ever");
        let _ = writeln!(o, "{blank} |");
        let _ = writeln!(
            o,
            "{blank} = help: check the event id and the pipes against the set this wait is meant to pair with"
        );
        return o;
    }
    let _ = writeln!(
        o,
        "{severity}[hazard]: HANG: the wait at line {la} ({ev}) comes before every set it can pair with, and the one it gets, at line {lb}, is reached only after {} work that waits on it",
        a.pipe.short()
    );
    let _ = writeln!(o, "{blank}--> {file}:{la}:{ca}");
    let _ = writeln!(o, "{blank} |");
    let first = format!(
        "{} stops here until {} signals ({file}:{la}:{ca})",
        a.pipe.name(),
        b.pipe.name()
    );
    let second = format!(
        "the set it pairs with ({file}:{lb}:{cb}), which {} reaches only after work that needs line {la} to pass",
        b.pipe.short()
    );
    if la == lb {
        show(&mut o, la, &ta, pa, na, &format!("{first}; {second}"));
    } else {
        show(&mut o, la, &ta, pa, na, &first);
        let _ = writeln!(o, "{blank} ...");
        show(&mut o, lb, &tb, pb, nb, &second);
    }
    let _ = writeln!(o, "{blank} |");
    let _ = writeln!(
        o,
        "{blank} = note: first seen in block {}, {} time(s) in this run",
        h.block, h.count
    );
    let _ = writeln!(
        o,
        "{blank} = help: an event id or pipe pair is likely wrong: the set meant for this wait is taken by another wait, or is missing"
    );
    o
}

/// A site: the op name's span and the op name.
type Site = (Span, &'static str);

/// What is known about one byte range of one memory.
#[derive(Clone, Debug)]
struct Rec {
    lo: u64,
    hi: u64,
    /// The last write: its pipe's sequence number, pipe, site.
    write: Option<(u64, Pipe, Site)>,
    /// Per pipe, the last read since that write: sequence number, site.
    reads: [Option<(u64, Site)>; 7],
}

/// A vector clock: per pipe, how many of its instructions are ordered before.
type Clock = [u64; 7];

fn join(a: &mut Clock, b: &Clock) {
    for (x, y) in a.iter_mut().zip(b) {
        *x = (*x).max(*y);
    }
}

/// The checker's state during a run (fed by [`super::trace::Recorder`]).
#[derive(Debug)]
pub(crate) struct Checker {
    /// Per function and instruction: its sync op, read from the source once.
    syncs: Vec<Vec<Option<SyncKind>>>,
    /// Per function and instruction: span and op name.
    sites: Vec<Vec<Site>>,
    block: u32,
    /// Instructions given to each pipe so far.
    issued: Clock,
    /// Per pipe, what it is ordered after.
    known: [Clock; 7],
    /// Sets not yet waited for, per (from, to, event), oldest first.
    pending: HashMap<(Pipe, Pipe, u32), VecDeque<Clock>>,
    /// Waits that ran before their set (the next set pairs with them): the waiting pipe's
    /// count of instructions at the wait, and the wait.
    early: HashMap<(Pipe, Pipe, u32), VecDeque<(u64, Site)>>,
    /// Buffer-id tokens (`pto.rls_buf` -> `pto.get_buf`).
    bufs: HashMap<u32, Clock>,
    /// Per memory, the byte ranges seen.
    recs: [Vec<Rec>; 7],
    found: Vec<Hazard>,
    index: HashMap<(HazardKind, usize, usize), usize>,
    dropped: u64,
    scratch: Vec<(Tile, bool)>,
    hits: Vec<(HazardKind, Access, (u64, u64))>,
    /// The core this checker sees in a mixed run (see [`Checker::fork`]).
    core: Option<&'static str>,
}

fn pipe_ix(p: Pipe) -> usize {
    p.index()
}

impl Checker {
    /// A checker for `prog` lowered from `src`; `Err` says why the kernel is not checked.
    pub(crate) fn new(prog: &Program, src: &str) -> Result<Checker, String> {
        let mut any = false;
        let syncs: Vec<Vec<Option<SyncKind>>> = prog
            .funcs
            .iter()
            .map(|f| {
                f.meta
                    .iter()
                    .map(|m| {
                        let k = sync_kind(m.name, src, m.span.start);
                        any |= k.is_some();
                        k
                    })
                    .collect()
            })
            .collect();
        if !any {
            return Err("the kernel has no intra-core sync ops (set_flag/wait_flag, record_event/wait_event, barrier): it is input for PTOAS's automatic sync insertion, which adds them".into());
        }
        let sites = prog
            .funcs
            .iter()
            .map(|f| f.meta.iter().map(|m| (m.span, m.name)).collect())
            .collect();
        Ok(Checker {
            syncs,
            sites,
            block: u32::MAX,
            issued: [0; 7],
            known: [[0; 7]; 7],
            pending: HashMap::new(),
            early: HashMap::new(),
            bufs: HashMap::new(),
            recs: Default::default(),
            found: Vec::new(),
            index: HashMap::new(),
            dropped: 0,
            scratch: Vec::with_capacity(8),
            hits: Vec::new(),
            core: None,
        })
    }

    /// A fresh checker for the same program, for one core (`AIC`, `AIV0`, ...) of a mixed run.
    pub(crate) fn fork(&self, core: &'static str) -> Checker {
        Checker {
            syncs: self.syncs.clone(),
            sites: self.sites.clone(),
            block: u32::MAX,
            issued: [0; 7],
            known: [[0; 7]; 7],
            pending: HashMap::new(),
            early: HashMap::new(),
            bufs: HashMap::new(),
            recs: Default::default(),
            found: Vec::new(),
            index: HashMap::new(),
            dropped: 0,
            scratch: Vec::with_capacity(8),
            hits: Vec::new(),
            core: Some(core),
        }
    }

    /// Merges a forked checker's report into this one's (a hazard seen on several cores or
    /// blocks is one entry with the counts added).
    pub(crate) fn absorb(&mut self, r: Report) {
        self.dropped += r.dropped;
        for h in r.hazards {
            let key = (h.kind, h.earlier.span.start, h.later.span.start);
            match self.index.get(&key) {
                Some(&i) => {
                    if let Some(x) = self.found.get_mut(i) {
                        x.count += h.count;
                    }
                }
                None if self.found.len() >= MAX_HAZARDS => self.dropped += h.count,
                None => {
                    self.index.insert(key, self.found.len());
                    self.found.push(h);
                }
            }
        }
    }

    /// The report.
    pub(crate) fn finish(mut self) -> Report {
        self.flush_waits();
        Report {
            hazards: self.found,
            dropped: self.dropped,
            skipped: None,
        }
    }

    /// Reports the waits no set signalled in the block that ends.
    fn flush_waits(&mut self) {
        let mut left: Vec<((Pipe, Pipe, u32), Site)> = Vec::new();
        for (k, q) in &self.early {
            left.extend(q.iter().map(|(_, s)| (*k, *s)));
        }
        left.sort_by_key(|(_, s)| s.0.start);
        for (k, s) in left {
            let w = Access {
                pipe: k.1,
                span: s.0,
                op: s.1,
                write: false,
            };
            self.report(HazardKind::NeverSet, w, w, None, (0, 0), Some(k));
        }
        self.early.clear();
    }

    fn reset(&mut self, block: u32) {
        if self.block != u32::MAX {
            self.flush_waits();
        }
        self.block = block;
        self.issued = [0; 7];
        self.known = [[0; 7]; 7];
        self.pending.clear();
        self.early.clear();
        self.bufs.clear();
        for r in &mut self.recs {
            r.clear();
        }
    }

    /// `p`'s clock including its own instructions so far.
    fn snapshot(&self, p: Pipe) -> Clock {
        let mut c = self.known[pipe_ix(p)];
        c[pipe_ix(p)] = self.issued[pipe_ix(p)];
        c
    }

    /// Instruction `pc` of function `func` about to execute in `block`; `tile` is its tile op
    /// and operands when it is one.
    pub(crate) fn on_inst(
        &mut self,
        block: u32,
        func: usize,
        pc: usize,
        inst: &Inst,
        tile: Option<(OpCode, &Args)>,
        fr: &[Val],
    ) {
        if block != self.block {
            self.reset(block);
        }
        let Some(&site) = self.sites.get(func).and_then(|s| s.get(pc)) else {
            return;
        };
        match inst {
            Inst::Nop => {
                if let Some(Some(k)) = self.syncs.get(func).and_then(|s| s.get(pc)) {
                    self.on_sync(*k, site);
                }
            }
            Inst::TileScalar {
                tile,
                offset,
                write,
                ..
            } => {
                let (Some(Val::Tile(t)), Some(Val::Num(Num::Int(off)))) =
                    (fr.get(*tile as usize), fr.get(*offset as usize))
                else {
                    return;
                };
                let n = t.dtype().size() as u64;
                let Ok(off) = u64::try_from(*off) else {
                    return;
                };
                let lo = t.addr().saturating_add(off.saturating_mul(n));
                let (loc, w) = (t.loc(), *write);
                self.issued[pipe_ix(Pipe::Scalar)] += 1;
                self.access(Pipe::Scalar, loc, lo, lo.saturating_add(n), w, site);
            }
            _ => {
                let Some((op, args)) = tile else {
                    return;
                };
                let pipe = super::trace::op_pipe(op, args);
                let mut acc = std::mem::take(&mut self.scratch);
                acc.clear();
                tile_accesses(args, &mut acc);
                self.issued[pipe_ix(pipe)] += 1;
                for &(t, w) in &acc {
                    let lo = t.addr();
                    self.check(
                        pipe,
                        t.loc(),
                        lo,
                        lo.saturating_add(t.size_bytes()),
                        w,
                        site,
                    );
                }
                for &(t, w) in &acc {
                    let lo = t.addr();
                    self.update(
                        pipe,
                        t.loc(),
                        lo,
                        lo.saturating_add(t.size_bytes()),
                        w,
                        site,
                    );
                }
                self.scratch = acc;
            }
        }
    }

    fn on_sync(&mut self, k: SyncKind, site: Site) {
        match k {
            SyncKind::Set(a, b, id) => {
                let key = (a, b, id);
                let s = self.snapshot(a);
                match self.early.get_mut(&key).and_then(VecDeque::pop_front) {
                    Some((w, wsite)) => {
                        // An earlier wait takes this set: `b`'s work from that wait on runs
                        // after it. If `a` got here only after work `b` was given after the
                        // wait, neither can go on.
                        if s[pipe_ix(b)] > w {
                            let wait = Access {
                                pipe: b,
                                span: wsite.0,
                                op: wsite.1,
                                write: false,
                            };
                            let set = Access {
                                pipe: a,
                                span: site.0,
                                op: site.1,
                                write: false,
                            };
                            self.report(HazardKind::Deadlock, wait, set, None, (0, 0), Some(key));
                        }
                        join(&mut self.known[pipe_ix(b)], &s);
                    }
                    None => self.pending.entry(key).or_default().push_back(s),
                }
            }
            SyncKind::Wait(a, b, id) => {
                let key = (a, b, id);
                let s = match self.pending.get_mut(&key).and_then(VecDeque::pop_front) {
                    Some(s) => s,
                    None => {
                        // The set comes later in program order: what `a` was given so far is
                        // before it (and what it is given up to the set, joined then).
                        let w = self.issued[pipe_ix(b)];
                        self.early.entry(key).or_default().push_back((w, site));
                        self.snapshot(a)
                    }
                };
                join(&mut self.known[pipe_ix(b)], &s);
            }
            SyncKind::Barrier(None) => {
                let all = self.issued;
                for k in &mut self.known {
                    join(k, &all);
                }
            }
            SyncKind::Barrier(Some(_)) => {}
            SyncKind::GetBuf(p, id) => {
                if let Some(c) = self.bufs.get(&id).copied() {
                    join(&mut self.known[pipe_ix(p)], &c);
                }
            }
            SyncKind::RlsBuf(p, id) => {
                let s = self.snapshot(p);
                join(self.bufs.entry(id).or_insert([0; 7]), &s);
            }
        }
    }

    fn access(&mut self, p: Pipe, loc: TileLoc, lo: u64, hi: u64, w: bool, site: Site) {
        self.check(p, loc, lo, hi, w, site);
        self.update(p, loc, lo, hi, w, site);
    }

    /// Reports the earlier accesses to `[lo, hi)` of `loc` that pipe `p`'s access is not
    /// ordered after.
    fn check(&mut self, p: Pipe, loc: TileLoc, lo: u64, hi: u64, w: bool, site: Site) {
        if hi <= lo {
            return;
        }
        let known = self.known[pipe_ix(p)];
        let ordered = |q: Pipe, seq: u64| q == p || known[pipe_ix(q)] >= seq;
        let mut hits = std::mem::take(&mut self.hits);
        hits.clear();
        for r in &self.recs[loc as usize] {
            if r.hi <= lo || hi <= r.lo {
                continue;
            }
            let ov = (r.lo.max(lo), r.hi.min(hi));
            if let Some((seq, q, s)) = r.write
                && !ordered(q, seq)
            {
                let kind = if w {
                    HazardKind::WriteAfterWrite
                } else {
                    HazardKind::ReadAfterWrite
                };
                hits.push((
                    kind,
                    Access {
                        pipe: q,
                        span: s.0,
                        op: s.1,
                        write: true,
                    },
                    ov,
                ));
            }
            if w {
                for (qi, rd) in r.reads.iter().enumerate() {
                    let Some((seq, s)) = rd else { continue };
                    let q = Pipe::ALL[qi];
                    if !ordered(q, *seq) {
                        hits.push((
                            HazardKind::WriteAfterRead,
                            Access {
                                pipe: q,
                                span: s.0,
                                op: s.1,
                                write: false,
                            },
                            ov,
                        ));
                    }
                }
            }
        }
        for &(kind, earlier, ov) in &hits {
            let later = Access {
                pipe: p,
                span: site.0,
                op: site.1,
                write: w,
            };
            self.report(kind, earlier, later, Some(loc), ov, None);
        }
        self.hits = hits;
    }

    fn report(
        &mut self,
        kind: HazardKind,
        earlier: Access,
        later: Access,
        loc: Option<TileLoc>,
        range: (u64, u64),
        event: Option<(Pipe, Pipe, u32)>,
    ) {
        let key = (kind, earlier.span.start, later.span.start);
        match self.index.get(&key) {
            Some(&i) => {
                if let Some(h) = self.found.get_mut(i) {
                    h.count += 1;
                }
            }
            None if self.found.len() >= MAX_HAZARDS => self.dropped += 1,
            None => {
                self.index.insert(key, self.found.len());
                self.found.push(Hazard {
                    kind,
                    earlier,
                    later,
                    loc,
                    range,
                    event,
                    block: self.block,
                    core: self.core,
                    count: 1,
                });
            }
        }
    }

    /// Records pipe `p`'s access (sequence number `issued[p]`).
    fn update(&mut self, p: Pipe, loc: TileLoc, lo: u64, hi: u64, w: bool, site: Site) {
        if hi <= lo {
            return;
        }
        let seq = self.issued[pipe_ix(p)];
        let recs = &mut self.recs[loc as usize];
        if w {
            // Ranges inside a write: everything ordered after this write is ordered after
            // them too (or a hazard was reported), so they carry nothing more.
            recs.retain(|r| !(lo <= r.lo && r.hi <= hi && (r.lo, r.hi) != (lo, hi)));
        }
        let r = match recs.iter_mut().position(|r| r.lo == lo && r.hi == hi) {
            Some(i) => &mut recs[i],
            None => {
                recs.push(Rec {
                    lo,
                    hi,
                    write: None,
                    reads: [None; 7],
                });
                let n = recs.len() - 1;
                &mut recs[n]
            }
        };
        if w {
            r.write = Some((seq, p, site));
            r.reads = [None; 7];
        } else {
            r.reads[pipe_ix(p)] = Some((seq, site));
        }
    }
}

/// Collects tile operands in visiting order, each with whether it is written (the first
/// operand of a form is its destination).
struct Collect<'a> {
    out: &'a mut Vec<(Tile, bool)>,
    first: bool,
}

impl OperandMap<Tile, Tile> for Collect<'_> {
    type Error = std::convert::Infallible;
    fn tile(&mut self, t: &Tile) -> Result<Tile, Self::Error> {
        self.out.push((*t, self.first));
        self.first = false;
        Ok(*t)
    }
    fn scalar(&mut self, s: &Scalar) -> Result<Scalar, Self::Error> {
        Ok(*s)
    }
    fn global(&mut self, g: &GlobalTensor) -> Result<GlobalTensor, Self::Error> {
        self.first = false;
        Ok(*g)
    }
}

/// The on-chip tiles an instruction reads and writes (`true`: written), appended to `out`
/// (also what `npusim run --svg` draws).
pub fn tile_accesses(args: &Args, out: &mut Vec<(Tile, bool)>) {
    let mut put = |t: &Tile, w: bool| out.push((*t, w));
    match args {
        Args::PartialArg {
            dst_val,
            dst_idx,
            src0_val,
            src0_idx,
            src1_val,
            src1_idx,
        } => {
            put(dst_val, true);
            put(dst_idx, true);
            for t in [src0_val, src0_idx, src1_val, src1_idx] {
                put(t, false);
            }
        }
        Args::ArgReduce {
            dst_idx,
            src,
            dst_val,
        } => {
            put(dst_idx, true);
            put(src, false);
            if let Some(v) = dst_val {
                put(v, true);
            }
        }
        Args::Indexed { dst, src, idx, tmp } => {
            put(dst, true);
            put(src, false);
            put(idx, false);
            if let Some(t) = tmp {
                put(t, true);
            }
        }
        Args::MergeLists {
            dst,
            tmp,
            src0,
            src1,
            src2,
            src3,
            ..
        } => {
            put(dst, true);
            put(tmp, true);
            put(src0, false);
            put(src1, false);
            for t in [src2, src3].into_iter().flatten() {
                put(t, false);
            }
        }
        _ => {
            let Ok(_) = args.try_map(&mut Collect { out, first: true });
        }
    }
}

impl Program {
    /// Runs like [`Program::run`] with the sync-hazard checker on (see the [module
    /// docs](self)); `src` is the kernel text the program was lowered from (sync ops are read
    /// from it). The report is [`RunOutcome::hazards`]; the run itself is unchanged.
    pub fn run_checked(
        &self,
        func: Option<&str>,
        args: &[(String, HostArg)],
        cfg: &RunConfig,
        src: &str,
    ) -> Result<RunOutcome, RunError> {
        match Checker::new(self, src) {
            Ok(c) => self.run_observed(func, args, cfg, Some(c)),
            Err(why) => {
                let mut o = self.run_observed(func, args, cfg, None)?;
                o.hazards = Some(Report {
                    skipped: Some(why),
                    ..Report::default()
                });
                Ok(o)
            }
        }
    }
}
