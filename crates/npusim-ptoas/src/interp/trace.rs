//! Observing a run: a per-instruction recording (opt-in with [`super::RunConfig::trace`]) and
//! its export as a Chrome / Perfetto trace-event JSON file (the "JSON Object Format" of the
//! Trace Event Format: `traceEvents` with complete events `ph: "X"`, flow events `ph: "s"` /
//! `"f"` and metadata events `ph: "M"`).
//!
//! Tracks: one process (`pid`) per core (block index), one thread (`tid`) per pipe of that
//! core: scalar, MTE2 (GM -> on-chip loads), MTE1 (L1 -> L0 moves), vector, cube, fixpipe
//! (accumulator out) and MTE3 (stores to GM). Every executed instruction is one complete event
//! (`ph: "X"`) on its pipe's track, with `args`: `op`, `line`, and per operand its location,
//! address, element count, bytes, read or written.
//!
//! **Time is an estimate, not measured cycles.** It comes from the chip profile's cost model
//! ([`npusim_core::CostModel`], `ChipProfile::cost`), one row per pipe: `latency_ns + bytes /
//! bytes_per_ns` per instruction. The scalar unit issues in order (`issue_ns` per
//! instruction); a pipe instruction starts when it is issued and its pipe is
//! free; `set_flag`/`record_event` completes on its source pipe, and the matching
//! `wait_flag`/`wait_event` holds the destination pipe until then (an arrow from set to wait);
//! `pto.barrier` joins every pipe. Every profile's figures today are illustrative round figures
//! chosen to show overlap and hand-offs ([`npusim_core::CostModel::ILLUSTRATIVE`]), not
//! calibrated against any chip. The trace metadata (`otherData`) says so and carries the table.
//!
//! Mixed (cube + vector) kernels: each core of a block (the cube core AIC and its vector cores
//! AIV0, AIV1) records on its own and is one process of the trace (`block B AIC`, ...) with its
//! own pipes and its own estimated clock; the cross-core `pto.sync.set`/`pto.sync.wait` and
//! the `tpush`/`tpop` pipes are slices on the scalar track (no arrows across cores: the
//! estimate does not model how long one core waits for another).

use super::lower::{Inst, Program, Val, build_args, profile_name};
use npusim_pto::{Args, GlobalTensor, OperandMap, Scalar, Tile, TileLoc};
use std::fmt::Write as _;

pub use npusim_core::{CostModel, Pipe, PipeCost};

/// The cost model of the chip `prog` was lowered for (its profile's `cost`).
pub fn cost_model(prog: &Program) -> CostModel {
    npusim_core::ChipProfile::by_name(profile_name(prog.target))
        .map_or(CostModel::ILLUSTRATIVE, |p| p.cost)
}

/// The pipe a sync-op mnemonic names: a hardware pipe (`PIPE_V`), a PTOAS sync op type
/// (`TVEC`, `TLOAD`, ...; mapped as PTOAS's `mapSyncOpTypeToPipe` maps them: `TMOV_M2S` and
/// `TMOV_V2M` on the fixpipe, `TMOV_M2V` and `TVECWAIT_EVENT` on the vector pipe) or one of
/// the PTO IR manual's `EVENT_*` pipe event kinds (§3.2); `None` for `PIPE_ALL` and unknown
/// names.
pub fn pipe_from_mnemonic(s: &str) -> Option<Pipe> {
    Some(match s {
        "PIPE_S" | "TSCALAR" => Pipe::Scalar,
        "PIPE_MTE2" | "TLOAD" | "EVENT_LOAD_FROM_GM" => Pipe::Mte2,
        "PIPE_MTE1"
        | "TMOV_M2L"
        | "TMOV_M2B"
        | "TEXTRACT"
        | "EVENT_MOVE_MAT_TO_LEFT"
        | "EVENT_MOVE_MAT_TO_BIAS" => Pipe::Mte1,
        "PIPE_V"
        | "TVEC"
        | "TMOV_V2V"
        | "TMOV_M2V"
        | "TVECWAIT_EVENT"
        | "EVENT_COMPUTE_VEC"
        | "EVENT_MOVE_MAT_TO_VEC"
        | "EVENT_VEC_WAITPOINT" => Pipe::Vector,
        "PIPE_M" | "TMATMUL" | "EVENT_COMPUTE_MATMUL" => Pipe::Cube,
        "PIPE_FIX"
        | "TSTORE_ACC"
        | "TMOV_M2S"
        | "TMOV_V2M"
        | "TMOV_A2V"
        | "TMOV_A2M"
        | "EVENT_STORE_FROM_ACC"
        | "EVENT_MOVE_MAT_TO_SCALAR"
        | "EVENT_MOVE_VEC_TO_MAT" => Pipe::Fixpipe,
        "PIPE_MTE3" | "TSTORE_VEC" | "TSTORE_MAT" | "EVENT_STORE_FROM_VEC" => Pipe::Mte3,
        _ => return None,
    })
}

/// One operand of a recorded tile instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Operand {
    /// On-chip location; `None` for global memory.
    pub loc: Option<TileLoc>,
    /// Byte address in that memory.
    pub addr: u64,
    /// Bytes of the memory the operand covers from `addr` (a tile's whole buffer).
    pub span_bytes: u64,
    /// Elements of the valid region (or of the GM window).
    pub elems: u64,
    /// Bytes of those elements.
    pub bytes: u64,
    /// Written (`true`) or read.
    pub write: bool,
}

/// One executed instruction.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// Block (core) index.
    pub block: u32,
    /// The core within the block: 0 in a single-core run; in a mixed cube + vector run
    /// 1 + the core's index (1 = AIC, 2 = AIV0, 3 = AIV1).
    pub core: u8,
    /// Function index in the program.
    pub func: u32,
    /// Instruction index in that function.
    pub pc: u32,
    /// The pipe of a tile instruction; [`Pipe::Scalar`] for everything else (sync ops are
    /// placed on their pipes by [`Recording::chrome_json`] from their source text).
    pub pipe: Pipe,
    /// Operands of a tile instruction (empty for the others).
    pub operands: Vec<Operand>,
}

/// Every executed instruction of a run, in execution order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Recording {
    /// The events.
    pub events: Vec<Event>,
    /// The first [`FIRST_TILE_OPS`] executed tile instructions with their operands as they
    /// ran (run-time addresses and valid regions), for `npusim run --svg DIR`.
    pub first_tiles: Vec<TileRun>,
}

/// How many executed tile instructions a recording keeps with their operands.
pub const FIRST_TILE_OPS: usize = 256;

/// One executed tile instruction with its operands (see [`Recording::first_tiles`]).
#[derive(Clone, Debug, PartialEq)]
pub struct TileRun {
    /// Index into [`Recording::events`].
    pub event: usize,
    /// The instruction.
    pub op: npusim_pto::OpCode,
    /// Its operands as executed.
    pub args: Args,
}

struct Collect {
    ops: Vec<Operand>,
    peer_bytes: u64,
}

impl OperandMap<Tile, Tile> for Collect {
    type Error = std::convert::Infallible;
    fn tile(&mut self, t: &Tile) -> Result<Tile, Self::Error> {
        let elems = (t.valid_row() as u64).saturating_mul(t.valid_col() as u64);
        let bytes = elems.saturating_mul(t.dtype().size() as u64);
        self.peer_bytes = bytes;
        let write = self.ops.is_empty();
        self.ops.push(Operand {
            loc: Some(t.loc()),
            addr: t.addr(),
            span_bytes: t.size_bytes(),
            elems,
            bytes,
            write,
        });
        Ok(*t)
    }
    fn scalar(&mut self, s: &Scalar) -> Result<Scalar, Self::Error> {
        Ok(*s)
    }
    fn global(&mut self, g: &GlobalTensor) -> Result<GlobalTensor, Self::Error> {
        let write = self.ops.is_empty();
        self.ops.push(Operand {
            loc: None,
            addr: g.addr,
            span_bytes: 0,
            elems: 0,
            bytes: 0,
            write,
        });
        Ok(*g)
    }
}

/// The operands of a tile instruction (the first visited is the one written; a GM operand
/// takes the size of the tile it pairs with) and its pipe.
pub(crate) fn operands(op: npusim_pto::OpCode, args: &Args) -> (Pipe, Vec<Operand>) {
    let mut c = Collect {
        ops: Vec::with_capacity(4),
        peer_bytes: 0,
    };
    let Ok(_) = args.try_map(&mut c);
    for o in &mut c.ops {
        if o.loc.is_none() {
            o.bytes = c.peer_bytes;
            o.span_bytes = c.peer_bytes;
        }
    }
    if let Some(t) = c.ops.iter().find(|o| o.loc.is_some()).copied() {
        for o in &mut c.ops {
            if o.loc.is_none() {
                o.elems = t.elems;
            }
        }
    }
    (op_pipe(op, args), c.ops)
}

/// The pipe a tile instruction runs on: `TLOAD` and `MGATHER` on MTE2, `TSTORE` and
/// `MSCATTER` on MTE3 (from `acc`: the
/// fixpipe), the `TMATMUL`/`TGEMV` family on the cube, and moves (`TMOV`, `TEXTRACT`,
/// `TINSERT`) by their source and destination memories as PTOAS's sync insertion places them
/// (its `TMOV_*` sync op types and pipe-selection tests): out of `acc` and `vec` -> `mat` on the
/// fixpipe, `mat` -> `vec` on the vector pipe, other moves out of `mat` (to `left`, `right`,
/// `bias`, `scaling`) on MTE1, `vec` -> `vec` on the vector pipe; everything else on the vector
/// pipe.
pub fn op_pipe(op: npusim_pto::OpCode, args: &Args) -> Pipe {
    let name = op.name();
    let mov = |src: TileLoc, dst: TileLoc| match (src, dst) {
        (TileLoc::Acc, _) | (TileLoc::Vec, TileLoc::Mat) => Pipe::Fixpipe,
        (TileLoc::Mat, TileLoc::Vec) => Pipe::Vector,
        (TileLoc::Mat, _) => Pipe::Mte1,
        _ => Pipe::Vector,
    };
    match args {
        // MGATHER on the DMA load pipe, MSCATTER on the store pipe (PTOAS manual).
        Args::Load { .. } | Args::GmGather { .. } => Pipe::Mte2,
        Args::GmScatter { .. } => Pipe::Mte3,
        Args::Store { src, .. } | Args::StoreFp { src, .. } if src.loc() == TileLoc::Acc => {
            Pipe::Fixpipe
        }
        Args::Store { .. } | Args::StoreFp { .. } => Pipe::Mte3,
        Args::Move { src, dst, .. } | Args::Window { src, dst, .. } => mov(src.loc(), dst.loc()),
        _ if name.starts_with("TMATMUL") || name.starts_with("TGEMV") => Pipe::Cube,
        _ => Pipe::Vector,
    }
}

/// Collects events during a run and feeds the sync-hazard checker (held by the interpreter
/// only when tracing or hazard checking is on: one `Option` check per instruction when off).
#[derive(Debug, Default)]
pub(crate) struct Recorder {
    pub rec: Recording,
    /// Keep every event in `rec` (tracing on).
    keep: bool,
    /// The sync-hazard checker, when on (see [`super::hazard`]).
    hz: Option<super::hazard::Checker>,
    /// [`Event::core`] of what this recorder sees.
    core: u8,
}

impl Recorder {
    /// A recorder when `keep` (tracing) or a checker asks for one.
    pub(crate) fn new(keep: bool, hz: Option<super::hazard::Checker>) -> Option<Box<Recorder>> {
        (keep || hz.is_some()).then(|| {
            Box::new(Recorder {
                rec: Recording::default(),
                keep,
                hz,
                core: 0,
            })
        })
    }

    /// An empty recorder like this one (same tracing, a fresh checker) for core `core` of a
    /// mixed run (see [`Event::core`]).
    pub(crate) fn fork(&self, core: u8) -> Box<Recorder> {
        Box::new(Recorder {
            rec: Recording::default(),
            keep: self.keep,
            hz: self
                .hz
                .as_ref()
                .map(|h| h.fork(super::coop_core_name(core))),
            core,
        })
    }

    /// Takes in what a [`Recorder::fork`] saw: its events after this one's, its hazards
    /// merged with this one's.
    pub(crate) fn absorb(&mut self, child: Box<Recorder>) {
        let Recorder { rec, hz, .. } = *child;
        if self.keep {
            let base = self.rec.events.len();
            let room = FIRST_TILE_OPS.saturating_sub(self.rec.first_tiles.len());
            self.rec
                .first_tiles
                .extend(rec.first_tiles.into_iter().take(room).map(|mut t| {
                    t.event += base;
                    t
                }));
            self.rec.events.extend(rec.events);
        }
        if let (Some(h), Some(c)) = (self.hz.as_mut(), hz) {
            h.absorb(c.finish());
        }
    }

    /// The recording (when tracing) and the hazard report (when checking).
    pub(crate) fn finish(
        r: Option<Box<Recorder>>,
    ) -> (Option<Recording>, Option<super::hazard::Report>) {
        match r {
            None => (None, None),
            Some(r) => {
                let Recorder { rec, keep, hz, .. } = *r;
                (keep.then_some(rec), hz.map(super::hazard::Checker::finish))
            }
        }
    }

    /// Records instruction `pc` of function `func` about to execute in `block`.
    pub(crate) fn on_inst(&mut self, block: u32, func: usize, pc: usize, inst: &Inst, fr: &[Val]) {
        let built;
        let tile: Option<(npusim_pto::OpCode, &Args)> = match inst {
            Inst::Exec(p) => Some((p.op().op, &p.op().args)),
            Inst::Tile { op, form } => {
                built = build_args(*op, form, fr, crate::diag::Span::default()).ok();
                built.as_ref().map(|a| (*op, a))
            }
            _ => None,
        };
        if let Some(h) = self.hz.as_mut() {
            h.on_inst(block, func, pc, inst, tile, fr);
        }
        if !self.keep {
            return;
        }
        if let Some((op, args)) = tile
            && self.rec.first_tiles.len() < FIRST_TILE_OPS
        {
            self.rec.first_tiles.push(TileRun {
                event: self.rec.events.len(),
                op,
                args: args.clone(),
            });
        }
        let (pipe, operands) = match (inst, tile) {
            (_, Some((op, args))) => operands(op, args),
            (Inst::Tile { .. }, None) => (Pipe::Vector, Vec::new()),
            _ => (Pipe::Scalar, Vec::new()),
        };
        self.rec.events.push(Event {
            block,
            core: self.core,
            func: func as u32,
            pc: pc as u32,
            pipe,
            operands,
        });
    }
}

/// A sync op read back from its source text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncKind {
    /// `set_flag` / `record_event`: from pipe, to pipe, event id ([`DYN_EVENT`] for
    /// `set_flag_dyn`).
    Set(Pipe, Pipe, u32),
    /// `wait_flag` / `wait_event` (`wait_flag_dyn`).
    Wait(Pipe, Pipe, u32),
    /// `pto.barrier` / `pto.barrier_sync`: the pipe named, `None` for `PIPE_ALL` (the estimate
    /// joins every pipe at any barrier).
    Barrier(Option<Pipe>),
    /// `pto.get_buf`: the pipe of the op type and the buffer id.
    GetBuf(Pipe, u32),
    /// `pto.rls_buf`: the pipe of the op type and the buffer id.
    RlsBuf(Pipe, u32),
}

/// The event id of `set_flag_dyn` / `wait_flag_dyn` (a run-time value): they pair with each
/// other per pipe pair, first set to first wait.
pub const DYN_EVENT: u32 = u32::MAX;

/// The `<...>` mnemonics of the op at `start` in `src` (up to the end of its line).
fn mnemonics(src: &str, start: usize) -> Vec<&str> {
    let rest = src.get(start..).unwrap_or("");
    let line = rest.split('\n').next().unwrap_or("");
    line.split('<')
        .skip(1)
        .filter_map(|p| p.split('>').next())
        .filter(|s| !s.is_empty())
        .collect()
}

/// The second item of the `[..., N]` list of the op at `start` (`pto.get_buf [<TVEC>, 0]`).
fn buf_id(src: &str, start: usize) -> Option<u32> {
    let rest = src.get(start..)?;
    let line = rest.split('\n').next()?;
    let inner = line.split_once('[')?.1.split(']').next()?;
    inner.split(',').nth(1)?.trim().parse().ok()
}

/// Reads a sync op (`name` as the interpreter names it) from its source text.
pub fn sync_kind(name: &str, src: &str, start: usize) -> Option<SyncKind> {
    let m = mnemonics(src, start);
    let set = match name {
        "pto.set_flag" | "pto.record_event" | "pto.set_flag_dyn" => true,
        "pto.wait_flag" | "pto.wait_event" | "pto.wait_flag_dyn" => false,
        "pto.barrier" | "pto.barrier_sync" => {
            return Some(SyncKind::Barrier(
                m.first().and_then(|p| pipe_from_mnemonic(p)),
            ));
        }
        "pto.get_buf" | "pto.rls_buf" => {
            let p = pipe_from_mnemonic(m.first()?)?;
            let id = buf_id(src, start)?;
            return Some(if name == "pto.get_buf" {
                SyncKind::GetBuf(p, id)
            } else {
                SyncKind::RlsBuf(p, id)
            });
        }
        _ => return None,
    };
    let (a, b) = (m.first()?, m.get(1)?);
    let id = match m.get(2) {
        Some(e) if !name.ends_with("_dyn") => e
            .trim_start_matches("EVENT_ID")
            .parse::<u32>()
            .unwrap_or(DYN_EVENT),
        _ => DYN_EVENT,
    };
    let (a, b) = (pipe_from_mnemonic(a)?, pipe_from_mnemonic(b)?);
    Some(if set {
        SyncKind::Set(a, b, id)
    } else {
        SyncKind::Wait(a, b, id)
    })
}

/// 1-based line of byte `pos`.
fn line_of(line_starts: &[usize], pos: usize) -> usize {
    line_starts.partition_point(|&s| s <= pos)
}

fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(o, "\\u{:04x}", c as u32);
            }
            c => o.push(c),
        }
    }
    o
}

fn loc_name(l: Option<TileLoc>) -> String {
    match l {
        None => "gm".into(),
        Some(l) => format!("{l:?}").to_lowercase(),
    }
}

/// The trace `pid` of a core: the block index in a single-core run, `4 * block + core` in a
/// mixed one.
pub fn pid(block: u32, core: u8) -> u64 {
    if core == 0 {
        u64::from(block)
    } else {
        4 * u64::from(block) + u64::from(core)
    }
}

/// The trace `tid` of pipe `p` of process `pid`: `8 * pid + p.index()`, so thread ids are
/// unique across processes and core 0's pipes are tids 0 to 6. (With tids 0..6 in every
/// process, Perfetto's UI drew block 1's scalar slices, tid 0, inside its MTE2 track, tid 1,
/// the thread whose id equals the process id.)
pub fn tid(pid: u64, p: Pipe) -> u64 {
    8 * pid + p.index() as u64
}

/// One placed slice of the estimated timeline.
#[derive(Clone, Copy, Debug)]
pub struct Placed {
    /// Index into [`Recording::events`].
    pub event: usize,
    /// The track it is on.
    pub pipe: Pipe,
    /// Start, nanoseconds from the start of its core.
    pub start_ns: f64,
    /// Duration, nanoseconds.
    pub dur_ns: f64,
    /// Bytes it moves (a transfer's GM window) or touches (the sum over its operands).
    pub bytes: u64,
    /// For a wait: the index (into the placed list) of the set it waits for.
    pub flow_from: Option<usize>,
}

impl Recording {
    /// The op name and the byte offset of its source of event `k` (`None` past the end).
    pub fn op_at(&self, prog: &Program, k: usize) -> Option<(&'static str, usize)> {
        let e = self.events.get(k)?;
        let m = prog
            .funcs
            .get(e.func as usize)
            .and_then(|f| f.meta.get(e.pc as usize))?;
        Some((m.name, m.span.start))
    }

    /// Places every event on the estimated timeline (see the module docs); `src` is the
    /// kernel source the program was lowered from (sync ops are read from it).
    pub fn schedule(&self, prog: &Program, src: &str) -> Vec<Placed> {
        let cost = cost_model(prog);
        let issue_ns = cost.issue_ns;
        let mut out = Vec::with_capacity(self.events.len());
        let mut block = (u32::MAX, 0u8);
        let mut issue = 0f64;
        let mut free = [0f64; 7];
        let mut pending: std::collections::HashMap<(Pipe, Pipe, u32), Vec<(usize, f64)>> =
            Default::default();
        for (k, e) in self.events.iter().enumerate() {
            if (e.block, e.core) != block {
                block = (e.block, e.core);
                issue = 0.0;
                free = [0.0; 7];
                pending.clear();
            }
            let Some(meta) = prog
                .funcs
                .get(e.func as usize)
                .and_then(|f| f.meta.get(e.pc as usize))
            else {
                continue;
            };
            // A transfer moves its GM window's bytes; other ops touch every operand's bytes.
            let bytes: u64 = match e.operands.iter().find(|o| o.loc.is_none()) {
                Some(g) => g.bytes,
                None => e.operands.iter().map(|o| o.bytes).sum(),
            };
            let mut p = Placed {
                event: k,
                pipe: e.pipe,
                start_ns: 0.0,
                dur_ns: 0.0,
                bytes,
                flow_from: None,
            };
            match sync_kind(meta.name, src, meta.span.start) {
                Some(SyncKind::Set(a, b, id)) => {
                    p.pipe = a;
                    p.start_ns = issue.max(free[a.index()]);
                    p.dur_ns = issue_ns;
                    free[a.index()] = p.start_ns + p.dur_ns;
                    pending
                        .entry((a, b, id))
                        .or_default()
                        .push((out.len(), p.start_ns + p.dur_ns));
                    issue += issue_ns;
                }
                Some(SyncKind::Wait(a, b, id)) => {
                    p.pipe = b;
                    p.start_ns = issue.max(free[b.index()]);
                    let q = pending.get_mut(&(a, b, id)).filter(|q| !q.is_empty());
                    let ready = match q {
                        Some(q) => {
                            let (from, t) = q.remove(0);
                            p.flow_from = Some(from);
                            t
                        }
                        None => p.start_ns,
                    };
                    p.dur_ns = (ready - p.start_ns).max(0.0) + issue_ns;
                    free[b.index()] = p.start_ns + p.dur_ns;
                    issue += issue_ns;
                }
                Some(SyncKind::Barrier(_)) => {
                    let all = free.iter().copied().fold(issue, f64::max);
                    p.pipe = Pipe::Scalar;
                    p.start_ns = issue;
                    p.dur_ns = all - issue + issue_ns;
                    issue = p.start_ns + p.dur_ns;
                    free = [issue; 7];
                }
                Some(SyncKind::GetBuf(..) | SyncKind::RlsBuf(..)) | None
                    if e.pipe == Pipe::Scalar =>
                {
                    p.start_ns = issue.max(free[0]);
                    p.dur_ns = cost.cost_ns(Pipe::Scalar, 0);
                    issue = p.start_ns + p.dur_ns;
                    free[0] = issue;
                }
                _ => {
                    let i = e.pipe.index();
                    p.start_ns = issue.max(free[i]);
                    p.dur_ns = cost.cost_ns(e.pipe, bytes);
                    free[i] = p.start_ns + p.dur_ns;
                    issue += issue_ns;
                }
            }
            out.push(p);
        }
        out
    }

    /// The Chrome / Perfetto trace-event JSON of this recording (see the module docs).
    /// `file` names the kernel in the metadata; `src` is its source text.
    pub fn chrome_json(&self, prog: &Program, file: &str, src: &str) -> String {
        let placed = self.schedule(prog, src);
        let mut line_starts = vec![0usize];
        line_starts.extend(src.match_indices('\n').map(|(i, _)| i + 1));
        let mut o = String::with_capacity(256 + placed.len() * 256);
        o.push_str("{\"displayTimeUnit\":\"ns\",\"otherData\":{");
        let cost = cost_model(prog);
        let _ = write!(
            o,
            "\"kernel\":\"{}\",\"timing\":\"estimate\",\"note\":\"Times are an estimate from the chip profile's cost model (latency_ns + bytes / bytes_per_ns per pipe, in-order scalar issue {} ns), not measured cycles. {}\",\"cost_model\":\"{}",
            esc(file),
            cost.issue_ns,
            if cost.calibrated {
                "Figures are calibrated."
            } else {
                "Figures are illustrative, not calibrated."
            },
            esc(&cost.describe())
        );
        o.push_str("\"},\"traceEvents\":[\n");
        let mut blocks: Vec<(u32, u8)> = self.events.iter().map(|e| (e.block, e.core)).collect();
        blocks.dedup();
        let mut first = true;
        let mut sep = |o: &mut String| {
            if !first {
                o.push_str(",\n");
            }
            first = false;
        };
        for &(blk, core) in &blocks {
            let b = pid(blk, core);
            let name = if core == 0 {
                format!("core {blk} (block {blk})")
            } else {
                format!("block {blk} {}", super::coop_core_name(core))
            };
            sep(&mut o);
            let _ = write!(
                o,
                "{{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":{b},\"tid\":{},\"args\":{{\"name\":\"{name}\"}}}}",
                tid(b, Pipe::Scalar)
            );
            sep(&mut o);
            let _ = write!(
                o,
                "{{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":{b},\"tid\":{},\"args\":{{\"sort_index\":{b}}}}}",
                tid(b, Pipe::Scalar)
            );
            for p in Pipe::ALL {
                sep(&mut o);
                let _ = write!(
                    o,
                    "{{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":{b},\"tid\":{},\"args\":{{\"name\":\"{}\"}}}}",
                    tid(b, p),
                    p.name()
                );
                sep(&mut o);
                let _ = write!(
                    o,
                    "{{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":{b},\"tid\":{},\"args\":{{\"sort_index\":{}}}}}",
                    tid(b, p),
                    p.index()
                );
            }
        }
        // Whole nanoseconds, written in microseconds: a slice's start and end are rounded
        // (not its start and length), so slices that meet on a track still meet in a viewer
        // that stores integer nanoseconds (Perfetto drops a slice that overlaps its neighbour
        // by a rounding nanosecond).
        let ns = |t: f64| t.round().max(0.0);
        let us = |t: f64| t / 1000.0;
        for (k, p) in placed.iter().enumerate() {
            let e = &self.events[p.event];
            let Some(meta) = prog
                .funcs
                .get(e.func as usize)
                .and_then(|f| f.meta.get(e.pc as usize))
            else {
                continue;
            };
            let line = line_of(&line_starts, meta.span.start);
            sep(&mut o);
            let _ = write!(
                o,
                "{{\"ph\":\"X\",\"name\":\"{}\",\"cat\":\"{}\",\"pid\":{},\"tid\":{},\"ts\":{:.3},\"dur\":{:.3},\"args\":{{\"op\":\"{}\",\"line\":{line},\"bytes\":{},\"operands\":[",
                esc(meta.name),
                if e.operands.is_empty() {
                    "scalar"
                } else {
                    "tile"
                },
                pid(e.block, e.core),
                tid(pid(e.block, e.core), p.pipe),
                us(ns(p.start_ns)),
                us(ns(p.start_ns + p.dur_ns) - ns(p.start_ns)),
                esc(meta.name),
                p.bytes
            );
            for (i, a) in e.operands.iter().enumerate() {
                if i > 0 {
                    o.push(',');
                }
                let _ = write!(
                    o,
                    "{{\"loc\":\"{}\",\"addr\":{},\"elems\":{},\"bytes\":{},\"access\":\"{}\"}}",
                    loc_name(a.loc),
                    a.addr,
                    a.elems,
                    a.bytes,
                    if a.write { "write" } else { "read" }
                );
            }
            o.push_str("]}}");
            if let Some(from) = p.flow_from
                && let Some(s) = placed.get(from)
            {
                sep(&mut o);
                let _ = write!(
                    o,
                    "{{\"ph\":\"s\",\"name\":\"flag\",\"cat\":\"sync\",\"id\":{k},\"pid\":{},\"tid\":{},\"ts\":{:.3}}}",
                    pid(e.block, e.core),
                    tid(pid(e.block, e.core), s.pipe),
                    us(ns(s.start_ns))
                );
                sep(&mut o);
                let _ = write!(
                    o,
                    "{{\"ph\":\"f\",\"bp\":\"e\",\"name\":\"flag\",\"cat\":\"sync\",\"id\":{k},\"pid\":{},\"tid\":{},\"ts\":{:.3}}}",
                    pid(e.block, e.core),
                    tid(pid(e.block, e.core), p.pipe),
                    // Inside the wait's slice (its last nanosecond).
                    us(ns(p.start_ns + p.dur_ns - cost.issue_ns / 2.0)
                        .clamp(ns(p.start_ns), ns(p.start_ns + p.dur_ns)))
                );
            }
        }
        o.push_str("\n]}\n");
        o
    }
}

/// Per-op totals of a recording (see [`Recording::op_stats`]).
#[derive(Clone, Debug, PartialEq)]
pub struct OpStat {
    /// The op name.
    pub op: &'static str,
    /// Executions.
    pub count: u64,
    /// Bytes moved or touched (as in the trace's `bytes`).
    pub bytes: u64,
    /// Estimated busy time on its pipe, nanoseconds (an estimate, see [`cost_model`]).
    pub est_ns: f64,
}

impl Recording {
    /// Per op: executions, bytes and estimated time, largest estimated time first.
    pub fn op_stats(&self, prog: &Program, src: &str) -> Vec<OpStat> {
        let mut by: std::collections::BTreeMap<&'static str, OpStat> = Default::default();
        for p in self.schedule(prog, src) {
            let e = &self.events[p.event];
            let Some(meta) = prog
                .funcs
                .get(e.func as usize)
                .and_then(|f| f.meta.get(e.pc as usize))
            else {
                continue;
            };
            let s = by.entry(meta.name).or_insert(OpStat {
                op: meta.name,
                count: 0,
                bytes: 0,
                est_ns: 0.0,
            });
            s.count += 1;
            s.bytes += p.bytes;
            s.est_ns += p.dur_ns;
        }
        let mut v: Vec<OpStat> = by.into_values().collect();
        v.sort_by(|a, b| b.est_ns.total_cmp(&a.est_ns).then(a.op.cmp(b.op)));
        v
    }
}

/// [`Recording::op_stats`] as a text table.
pub fn stats_table(stats: &[OpStat]) -> String {
    let mut o = format!(
        "{:<28} {:>10} {:>14} {:>16}\n",
        "op", "count", "bytes", "est. time (ns)"
    );
    for s in stats {
        let _ = writeln!(
            o,
            "{:<28} {:>10} {:>14} {:>16.1}",
            s.op, s.count, s.bytes, s.est_ns
        );
    }
    o.push_str("(est. time: an estimate from the trace cost model, not cycles)\n");
    o
}

/// [`Recording::op_stats`] as JSON: `{"timing":"estimate","ops":[{"op","count","bytes","est_ns"}]}`.
pub fn stats_json(stats: &[OpStat]) -> String {
    let mut o = String::from("{\"timing\":\"estimate\",\"ops\":[");
    for (i, s) in stats.iter().enumerate() {
        if i > 0 {
            o.push(',');
        }
        let _ = write!(
            o,
            "{{\"op\":\"{}\",\"count\":{},\"bytes\":{},\"est_ns\":{:.3}}}",
            esc(s.op),
            s.count,
            s.bytes,
            s.est_ns
        );
    }
    o.push_str("]}\n");
    o
}
