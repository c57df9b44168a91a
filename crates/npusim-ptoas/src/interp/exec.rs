//! The interpreter loop: one `match` per instruction over a frame of slots.

use super::coop::{self, Coop, CoreKind, Entry};
use super::lower::{CoreSyncId, Inst, Program, Val, ViewVal, build_args, check_tile_align};
use super::scalar::{self, Num};
use super::{RunError, RunErrorKind};
use crate::ast::RuntimeQuery;
use crate::diag::Span;
use npusim_pto::{Args, Tile, TileCore, TileOp};
use std::time::{Duration, Instant};

/// Calls nested deeper than this fail (recursive `func.call`s).
pub(crate) const MAX_CALL_DEPTH: u32 = 64;

pub(crate) struct Machine<'p> {
    pub prog: &'p Program,
    pub core: TileCore,
    pub block: u32,
    pub nblocks: u32,
    pub steps: u64,
    pub max_steps: u64,
    pub work: u64,
    pub max_work: u64,
    pub start: Instant,
    pub timeout: Option<Duration>,
    pub progress: Option<fn(&super::Progress)>,
    pub counts: Vec<Vec<u64>>,
    pub gm_to_chip: u64,
    pub chip_to_gm: u64,
    pub depth: u32,
    /// Per location, the end of the highest byte any tile of this run occupies (starts from
    /// the program's static placement, grows with runtime-placed tiles): the part of each
    /// on-chip memory a block can have written.
    pub extent: [u64; npusim_core::vocab::TileLoc::COUNT],
    /// Which core this instance plays; [`CoreKind::All`] outside mixed runs.
    pub ctx: CoreKind,
    /// The cores of a mixed run, shared (see [`super::coop`]).
    pub coop: Option<&'p Coop>,
    /// This core's frontend pipe configuration (`pto.a[iv|ic]_initialize_pipe`).
    pub pipe: PipeCfg,
    /// The trace recorder, when tracing is on (one check per instruction when off).
    pub rec: Option<Box<super::trace::Recorder>>,
    /// What `pto.tprint` / `pto.print` printed so far, in order.
    pub prints: Vec<super::PrintRec>,
    /// Called with each print as it happens.
    pub on_print: Option<fn(&super::PrintRec)>,
    /// On a worker thread of a multi-threaded run (see [`super::par`]): claims the GM byte
    /// ranges each block is about to read or write; in the in-order repeat after a refused
    /// claim, records them.
    pub par: Option<Box<super::par::Tracker<'p>>>,
}

/// A core's view of its frontend pipes.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PipeCfg {
    pub slot_size: u64,
    pub c2v_buf: u64,
    pub v2c_buf: u64,
    /// Pops done so far (for the slot of the next one).
    pub pops: u64,
    pub init: bool,
}

/// The error that stops a worker's block at a refused GM claim (see [`super::par`]); the run
/// is then repeated in order, so it never reaches the user.
#[cold]
fn refused(span: Span) -> RunError {
    RunError::new(
        RunErrorKind::Internal,
        "stopped: this GM access conflicts with another block's",
        span,
    )
}

fn internal(span: Span, msg: &str) -> RunError {
    RunError::new(RunErrorKind::Internal, msg, span)
}

fn get(fr: &[Val], s: u32, span: Span) -> Result<Val, RunError> {
    match fr.get(s as usize) {
        Some(Val::Undef) | None => Err(internal(span, "a value is used before it is defined")),
        Some(v) => Ok(*v),
    }
}

fn num(fr: &[Val], s: u32, span: Span) -> Result<Num, RunError> {
    match get(fr, s, span)? {
        Val::Num(n) => Ok(n),
        _ => Err(internal(span, "expected a scalar operand")),
    }
}

fn int(fr: &[Val], s: u32, span: Span) -> Result<i64, RunError> {
    match num(fr, s, span)? {
        Num::Int(i) => Ok(i),
        Num::Float(_) => Err(internal(span, "expected an integer operand")),
    }
}

fn float(fr: &[Val], s: u32, span: Span) -> Result<f64, RunError> {
    match num(fr, s, span)? {
        Num::Float(f) => Ok(f),
        Num::Int(_) => Err(internal(span, "expected a float operand")),
    }
}

fn nonneg(fr: &[Val], s: u32, span: Span, what: &str) -> Result<u64, RunError> {
    let v = int(fr, s, span)?;
    u64::try_from(v).map_err(|_| {
        RunError::new(
            RunErrorKind::Bounds,
            format!("{what} must not be negative (got {v})"),
            span,
        )
    })
}

fn set(fr: &mut [Val], s: u32, v: Val) {
    if let Some(x) = fr.get_mut(s as usize) {
        *x = v;
    }
}

/// Elements of a tile's valid region.
fn elems(t: &Tile) -> u64 {
    (t.valid_row() as u64).saturating_mul(t.valid_col() as u64)
}

/// The work of one tile instruction: the elements of its largest tile operand.
fn work_of(args: &Args) -> u64 {
    #[allow(unreachable_patterns)]
    match args {
        Args::Unary { dst, src, .. } | Args::Convert { dst, src, .. } => elems(dst).max(elems(src)),
        Args::ArgReduce { src, .. } => elems(src),
        Args::PartialArg { dst_val, .. } => elems(dst_val),
        Args::Load { dst, .. } => elems(dst),
        Args::Store { src, .. } => elems(src),
        Args::Binary { dst, .. }
        | Args::Ternary { dst, .. }
        | Args::TileScalar { dst, .. }
        | Args::ScalarTile { dst, .. }
        | Args::TileScalarTile { dst, .. }
        | Args::Fill { dst, .. }
        | Args::Compare { dst, .. }
        | Args::CompareScalar { dst, .. }
        | Args::Select { dst, .. }
        | Args::SelectScalar { dst, .. } => elems(dst),
        _ => 1,
    }
}

impl<'p> Machine<'p> {
    /// A machine for another core or worker thread of this run, on `core` at `block`: fresh
    /// counters, the budgets this machine has left, the same clock and callbacks, no trace, no
    /// cooperating cores and no GM tracking (the caller sets those it needs).
    pub(crate) fn sibling<'q>(&self, core: TileCore, block: u32) -> Machine<'q>
    where
        'p: 'q,
    {
        Machine {
            prog: self.prog,
            core,
            block,
            nblocks: self.nblocks,
            steps: 0,
            max_steps: self.max_steps.saturating_sub(self.steps),
            work: 0,
            max_work: self.max_work.saturating_sub(self.work),
            start: self.start,
            timeout: self.timeout,
            progress: self.progress,
            counts: self
                .prog
                .funcs
                .iter()
                .map(|f| vec![0; f.code.len()])
                .collect(),
            gm_to_chip: 0,
            chip_to_gm: 0,
            depth: 0,
            extent: self.prog.extent,
            ctx: CoreKind::All,
            coop: None,
            pipe: PipeCfg::default(),
            rec: None,
            prints: Vec::new(),
            on_print: self.on_print,
            par: None,
        }
    }

    /// Records one print of the kernel (and hands it to the callback).
    fn print(&mut self, span: Span, text: String) {
        let p = super::PrintRec {
            block: self.block,
            core: (self.ctx != CoreKind::All).then(|| self.ctx.name()),
            span,
            text,
        };
        if let Some(f) = self.on_print {
            f(&p);
        }
        self.prints.push(p);
    }

    /// Checks every budget; `op` and `span` name where the run stands.
    pub(crate) fn check_budget(&self, op: &str, span: Span) -> Result<(), RunError> {
        if self.steps > self.max_steps {
            return Err(RunError::new(
                RunErrorKind::StepLimit,
                format!(
                    "step limit exceeded at `{op}`: {} instructions executed (step budget max_steps = {}) in block {} of {}",
                    self.steps, self.max_steps, self.block, self.nblocks
                ),
                span,
            )
            .with_label("still running here")
            .with_help("a loop or recursion that never ends? raise the limit with `--max-steps N`"));
        }
        if self.work > self.max_work {
            return Err(RunError::new(
                RunErrorKind::WorkLimit,
                format!(
                    "work limit exceeded at `{op}`: {} tile elements processed (work budget max_work = {})",
                    self.work, self.max_work
                ),
                span,
            )
            .with_label("still running here")
            .with_help("raise the limit with `--max-work N`"));
        }
        Ok(())
    }

    /// Address and width of element `index` of the buffer `ptr` points into, bounds-checked
    /// against the bound buffer (`pto.load_scalar` / `pto.store_scalar`).
    fn scalar_place(
        &self,
        fr: &[Val],
        ptr: u32,
        index: u32,
        span: Span,
    ) -> Result<(u64, usize), RunError> {
        let Val::Ptr(p) = get(fr, ptr, span)? else {
            return Err(internal(span, "a scalar access through a non-pointer"));
        };
        let i = nonneg(fr, index, span, "a scalar offset")?;
        let size = p.elem.bytes();
        match i
            .checked_mul(size)
            .filter(|&o| o.saturating_add(size) <= p.len)
        {
            Some(off) => Ok((p.addr + off, size as usize)),
            None => Err(RunError::new(
                RunErrorKind::Bounds,
                format!(
                    "scalar access out of bounds: element {i} of {} from a buffer of {} bytes",
                    p.elem, p.len
                ),
                span,
            )
            .with_label("this offset passes the end of the bound buffer")),
        }
    }

    /// The shared state of a mixed run, or the error for a pipe op outside one.
    fn coop_of(&self, op: &str, span: Span) -> Result<&'p Coop, RunError> {
        self.coop.ok_or_else(|| {
            internal(
                span,
                &format!("`{op}` outside a run of cube and vector cores"),
            )
        })
    }

    fn pipe_ready(&self, op: &str, span: Span) -> Result<(), RunError> {
        if self.pipe.init {
            return Ok(());
        }
        Err(RunError::new(
            RunErrorKind::Pto,
            format!(
                "[pipe-init] `{op}` on {} before its pipe is initialised",
                self.ctx.name()
            ),
            span,
        )
        .with_help("call `pto.aic_initialize_pipe` / `pto.aiv_initialize_pipe` first"))
    }

    /// The valid region of `t` as row-major bit patterns.
    fn entry_of(
        &self,
        t: &Tile,
        rows: std::ops::Range<usize>,
        cols: std::ops::Range<usize>,
        span: Span,
    ) -> Result<Entry, RunError> {
        let mut bits = Vec::with_capacity(rows.len() * cols.len());
        for r in rows.clone() {
            for c in cols.clone() {
                bits.push(
                    self.core
                        .get_bits(t, r, c)
                        .map_err(|e| RunError::new(RunErrorKind::Bounds, e.to_string(), span))?,
                );
            }
        }
        Ok(Entry {
            rows: rows.len(),
            cols: cols.len(),
            dtype: t.dtype(),
            bits,
        })
    }

    /// `pto.tpush_to_aiv` / `pto.tpush_to_aic`.
    fn pipe_push(
        &mut self,
        to_vector: bool,
        t: &Tile,
        split: u8,
        op: &'static str,
        span: Span,
    ) -> Result<(), RunError> {
        let c = self.coop_of(op, span)?;
        self.pipe_ready(op, span)?;
        let (vr, vc) = (t.valid_row(), t.valid_col());
        if to_vector {
            // The parts, one per receiving vector core.
            let parts: Vec<(usize, Entry)> = match split {
                0 => vec![(0, self.entry_of(t, 0..vr, 0..vc, span)?)],
                1 | 2 => {
                    let n = if split == 1 { vr } else { vc };
                    if n % 2 != 0 {
                        return Err(RunError::new(
                            RunErrorKind::Pto,
                            format!(
                                "[pipe-split] `{op}`: split = {split} halves the valid {} but there are {n}",
                                if split == 1 { "rows" } else { "columns" }
                            ),
                            span,
                        ));
                    }
                    let h = n / 2;
                    if split == 1 {
                        vec![
                            (0, self.entry_of(t, 0..h, 0..vc, span)?),
                            (1, self.entry_of(t, h..vr, 0..vc, span)?),
                        ]
                    } else {
                        vec![
                            (0, self.entry_of(t, 0..vr, 0..h, span)?),
                            (1, self.entry_of(t, 0..vr, h..vc, span)?),
                        ]
                    }
                }
                _ => return Err(internal(span, "bad split")),
            };
            let me = self.ctx.index();
            let mut parts = Some(parts);
            return c.until(me, self.core.gm_mut(), op, span, |st| {
                let full: Vec<usize> = parts
                    .iter()
                    .flatten()
                    .map(|(k, _)| *k)
                    .filter(|&k| st.c2v[k].len() + st.c2v_held[k] >= st.slot_num)
                    .collect();
                if let Some(k) = full.first() {
                    return Ok(Err(format!(
                        "the cube-to-vector pipe of AIV{k} is full ({} slots busy)",
                        st.slot_num
                    )));
                }
                for (k, e) in parts.take().into_iter().flatten() {
                    st.c2v[k].push_back(e);
                }
                Ok(Ok(()))
            });
        }
        let CoreKind::Vector(k) = self.ctx else {
            return Err(internal(span, "tpush_to_aic on a cube core"));
        };
        let k = k as usize;
        if split == 0 && k != 0 {
            return Ok(());
        }
        let mut e = Some(self.entry_of(t, 0..vr, 0..vc, span)?);
        let me = self.ctx.index();
        c.until(me, self.core.gm_mut(), op, span, |st| {
            if st.v2c[k].len() + st.v2c_held >= st.slot_num {
                return Ok(Err(format!(
                    "the vector-to-cube pipe is full ({} slots busy)",
                    st.slot_num
                )));
            }
            if let Some(e) = e.take() {
                st.v2c[k].push_back(e);
            }
            Ok(Ok(()))
        })
    }

    /// `pto.tpop_from_aic` / `pto.tpop_from_aiv`: the popped tile (on AIV1 in the 1:1 mode the
    /// slot's tile, unchanged: the op takes nothing there).
    fn pipe_pop(
        &mut self,
        from_cube: bool,
        desc: &npusim_pto::TileDesc,
        split: u8,
        op: &'static str,
        span: Span,
    ) -> Result<Option<Tile>, RunError> {
        let c = self.coop_of(op, span)?;
        self.pipe_ready(op, span)?;
        let base = if from_cube {
            self.pipe.c2v_buf
        } else {
            self.pipe.v2c_buf
        };
        let slots = c.lock().slot_num as u64;
        let mut d = *desc;
        // Saturating: an absurd slot_size lands past the memory and `alloc` reports it.
        d.addr = base.saturating_add((self.pipe.pops % slots).saturating_mul(self.pipe.slot_size));
        let tile = self.core.alloc(d).map_err(|e| RunError::pto(e, span))?;
        let me = self.ctx.index();
        let mut got: Option<Entry> = None;
        if from_cube {
            let CoreKind::Vector(k) = self.ctx else {
                return Err(internal(span, "tpop_from_aic on a cube core"));
            };
            let k = k as usize;
            if split == 0 && k != 0 {
                // 1:1 mode: AIV1 takes nothing; its tile is the slot as it stands.
                return Ok(Some(tile));
            }
            c.until(me, self.core.gm_mut(), op, span, |st| {
                match st.c2v[k].pop_front() {
                    Some(e) => {
                        st.c2v_held[k] += 1;
                        got = Some(e);
                        Ok(Ok(()))
                    }
                    None => Ok(Err("the cube-to-vector pipe is empty".into())),
                }
            })?;
        } else {
            let parts = if split == 0 { 1 } else { 2 };
            c.until(me, self.core.gm_mut(), op, span, |st| {
                if let Some(k) = (0..parts).find(|&k| st.v2c[k].is_empty()) {
                    return Ok(Err(format!(
                        "nothing pushed by AIV{k} in the vector-to-cube pipe"
                    )));
                }
                let mut es: Vec<Entry> = (0..parts).filter_map(|k| st.v2c[k].pop_front()).collect();
                st.v2c_held += 1;
                let joined = match (es.pop(), es.pop()) {
                    (Some(e), None) => Ok(e),
                    (Some(b), Some(a)) => coop::join(split, a, b),
                    _ => return Err(internal(span, "pop without a tile")),
                };
                got = Some(joined.map_err(|(a, b)| {
                    RunError::new(
                        RunErrorKind::Pto,
                        format!(
                            "[pipe-split] `{op}`: the two halves differ ({}x{} and {}x{})",
                            a.0, a.1, b.0, b.1
                        ),
                        span,
                    )
                })?);
                Ok(Ok(()))
            })?;
        }
        let Some(e) = got else {
            return Err(internal(span, "pop without a tile"));
        };
        self.pipe.pops += 1;
        if e.dtype != tile.dtype() || e.rows != tile.valid_row() || e.cols != tile.valid_col() {
            return Err(RunError::new(
                RunErrorKind::Pto,
                format!(
                    "[pipe-tile] `{op}`: the pushed tile is {}x{} {:?} but the popped tile type has valid {}x{} {:?}",
                    e.rows,
                    e.cols,
                    e.dtype,
                    tile.valid_row(),
                    tile.valid_col(),
                    tile.dtype()
                ),
                span,
            )
            .with_label("this pop's tile type"));
        }
        let mut i = 0;
        for r in 0..e.rows {
            for col in 0..e.cols {
                self.core
                    .set_bits(&tile, r, col, e.bits[i])
                    .map_err(|er| RunError::new(RunErrorKind::Bounds, er.to_string(), span))?;
                i += 1;
            }
        }
        Ok(Some(tile))
    }

    /// `pto.tfree_from_aic` / `pto.tfree_from_aiv`.
    fn pipe_free(
        &mut self,
        from_cube: bool,
        split: u8,
        op: &'static str,
        span: Span,
    ) -> Result<(), RunError> {
        let c = self.coop_of(op, span)?;
        let mut st = c.lock();
        let held = if from_cube {
            let CoreKind::Vector(k) = self.ctx else {
                return Err(internal(span, "tfree_from_aic on a cube core"));
            };
            if split == 0 && k != 0 {
                return Ok(());
            }
            &mut st.c2v_held[k as usize]
        } else {
            &mut st.v2c_held
        };
        if *held == 0 {
            return Err(RunError::new(
                RunErrorKind::Pto,
                format!(
                    "[pipe-free] `{op}` on {} frees a slot it has not popped",
                    self.ctx.name()
                ),
                span,
            ));
        }
        *held -= 1;
        st.version += 1;
        Ok(())
    }

    /// `pto.sync.set` / `pto.sync.wait` between the cube core and its vector cores; a no-op
    /// on a single core.
    fn core_sync(
        &mut self,
        is_set: bool,
        id: usize,
        op: &'static str,
        span: Span,
    ) -> Result<(), RunError> {
        let Some(c) = self.coop else {
            return Ok(());
        };
        let me = self.ctx.index();
        let ctx = self.ctx;
        c.until(me, self.core.gm_mut(), op, span, |st| {
            match (ctx, is_set) {
                (CoreKind::Vector(k), true) => st.to_cube[k as usize][id] += 1,
                (CoreKind::Vector(k), false) => {
                    let f = &mut st.to_vec[k as usize][id];
                    if *f == 0 {
                        return Ok(Err(format!("event {id} is not set by the cube core")));
                    }
                    *f -= 1;
                }
                (_, true) => {
                    for f in &mut st.to_vec {
                        f[id] += 1;
                    }
                }
                (_, false) => {
                    if let Some(k) = (0..coop::AIV_PER_AIC).find(|&k| st.to_cube[k][id] == 0) {
                        return Ok(Err(format!("event {id} is not set by AIV{k}")));
                    }
                    for f in &mut st.to_cube {
                        f[id] -= 1;
                    }
                }
            }
            Ok(Ok(()))
        })
    }

    /// Clears the on-chip memories for the next block on this core: every block starts on
    /// zeroed memories, and only the bytes a tile of this run covers can have been written,
    /// so only those are cleared.
    pub(crate) fn fresh_block(&mut self) {
        for loc in npusim_pto::TileLoc::ALL {
            let mem = self.core.mem_mut(loc);
            let end = usize::try_from(self.extent[loc as usize])
                .unwrap_or(usize::MAX)
                .min(mem.len());
            mem[..end].fill(0);
        }
    }

    /// The periodic checks: wall clock, another thread's failure, and progress.
    #[cold]
    fn tick(&self, op: &str, span: Span) -> Result<(), RunError> {
        if self
            .par
            .as_ref()
            .is_some_and(|p| p.stop.load(std::sync::atomic::Ordering::Relaxed))
        {
            return Err(RunError::new(
                RunErrorKind::Internal,
                "stopped: a block on another thread failed",
                span,
            ));
        }
        let elapsed = self.start.elapsed();
        if let Some(t) = self.timeout
            && elapsed > t
        {
            return Err(RunError::new(
                RunErrorKind::Timeout,
                format!(
                    "time limit exceeded at `{op}`: {:.3} s elapsed (wall-clock budget timeout = {:.3} s), {} instructions executed",
                    elapsed.as_secs_f64(),
                    t.as_secs_f64(),
                    self.steps
                ),
                span,
            )
            .with_label("still running here")
            .with_help("raise the limit with `--timeout SECONDS`"));
        }
        if let Some(p) = self.progress {
            p(&super::Progress {
                steps: self.steps,
                blocks_done: self.block,
                blocks: self.nblocks,
                elapsed,
            });
        }
        Ok(())
    }

    /// On a worker thread or in a recorded run ([`super::par`]): claims the GM bytes a tile
    /// instruction reads and writes, before it runs.
    #[inline]
    fn claim(&mut self, args: &Args, span: Span) -> Result<(), RunError> {
        match self.par.as_deref_mut() {
            Some(p) => p.before(args).map_err(|_| refused(span)),
            None => Ok(()),
        }
    }

    fn account(&mut self, args: &Args) {
        self.work = self.work.saturating_add(work_of(args));
        match args {
            Args::Load { dst, .. } => {
                self.gm_to_chip += (dst.valid_row() * dst.valid_col() * dst.dtype().size()) as u64
            }
            Args::Store { src, .. } => {
                self.chip_to_gm += (src.valid_row() * src.valid_col() * src.dtype().size()) as u64
            }
            _ => {}
        }
    }

    /// Runs function `fi` with `args` bound to its parameters; returns its results.
    pub(crate) fn call(&mut self, fi: usize, args: &[Val]) -> Result<Vec<Val>, RunError> {
        let prog = self.prog;
        let f = &prog.funcs[fi];
        let mut fr = f.template.clone();
        for (p, a) in f.params.iter().zip(args) {
            set(&mut fr, p.1, *a);
        }
        let code = &f.code[..];
        let mut pc = 0usize;
        loop {
            let Some(inst) = code.get(pc) else {
                return Ok(Vec::new());
            };
            self.counts[fi][pc] += 1;
            self.steps += 1;
            let at = pc;
            pc += 1;
            let span = || f.meta[at].span;
            if self.steps > self.max_steps {
                return Err(self
                    .check_budget(f.meta[at].name, span())
                    .err()
                    .unwrap_or_else(|| internal(span(), "step budget")));
            }
            if self.steps & 0xffff == 0 {
                self.tick(f.meta[at].name, span())?;
            }
            if let Some(r) = self.rec.as_deref_mut() {
                r.on_inst(self.block, fi, at, inst, &fr);
            }
            match inst {
                Inst::IntBin { op, ty, dst, a, b } => {
                    let (x, y) = (int(&fr, *a, span())?, int(&fr, *b, span())?);
                    let r = scalar::int_binary(*op, *ty, x, y).map_err(|m| {
                        RunError::new(RunErrorKind::Arith, m, span()).with_label("divisor is 0")
                    })?;
                    set(&mut fr, *dst, Val::Num(Num::Int(r)));
                }
                Inst::FloatBin { op, ty, dst, a, b } => {
                    let (x, y) = (float(&fr, *a, span())?, float(&fr, *b, span())?);
                    set(
                        &mut fr,
                        *dst,
                        Val::Num(Num::Float(scalar::float_binary(*op, *ty, x, y))),
                    );
                }
                Inst::NegF { dst, a } => {
                    let x = float(&fr, *a, span())?;
                    set(&mut fr, *dst, Val::Num(Num::Float(-x)));
                }
                Inst::Cast { kind, dst, a } => {
                    let x = num(&fr, *a, span())?;
                    set(&mut fr, *dst, Val::Num(scalar::cast(*kind, x)));
                }
                Inst::CmpI {
                    pred,
                    ty,
                    dst,
                    a,
                    b,
                } => {
                    let (x, y) = (int(&fr, *a, span())?, int(&fr, *b, span())?);
                    let r = scalar::cmpi(*pred, *ty, x, y);
                    set(&mut fr, *dst, Val::Num(Num::Int(i64::from(r))));
                }
                Inst::CmpF { pred, dst, a, b } => {
                    let (x, y) = (float(&fr, *a, span())?, float(&fr, *b, span())?);
                    let r = scalar::cmpf(*pred, x, y);
                    set(&mut fr, *dst, Val::Num(Num::Int(i64::from(r))));
                }
                Inst::Select { dst, c, t, f: e } => {
                    let cond = int(&fr, *c, span())? & 1 == 1;
                    let v = get(&fr, if cond { *t } else { *e }, span())?;
                    set(&mut fr, *dst, v);
                }
                Inst::Runtime { q, dst } => {
                    let v = match q {
                        RuntimeQuery::BlockIdx => i64::from(self.block),
                        RuntimeQuery::BlockNum => i64::from(self.nblocks),
                        RuntimeQuery::SubblockIdx => match self.ctx {
                            CoreKind::Vector(k) => i64::from(k),
                            _ => 0,
                        },
                        RuntimeQuery::SubblockNum => {
                            if self.coop.is_some() {
                                coop::AIV_PER_AIC as i64
                            } else {
                                1
                            }
                        }
                    };
                    set(&mut fr, *dst, Val::Num(Num::Int(v)));
                }
                Inst::Copy { dsts, srcs } => {
                    // Parallel copy: read every source before writing any destination.
                    let mut tmp = [Val::Undef; 8];
                    if srcs.len() <= tmp.len() {
                        for (k, s) in srcs.iter().enumerate() {
                            tmp[k] = get(&fr, *s, span())?;
                        }
                        for (d, v) in dsts.iter().zip(&tmp) {
                            set(&mut fr, *d, *v);
                        }
                    } else {
                        let vals = srcs
                            .iter()
                            .map(|s| get(&fr, *s, span()))
                            .collect::<Result<Vec<_>, _>>()?;
                        for (d, v) in dsts.iter().zip(vals) {
                            set(&mut fr, *d, v);
                        }
                    }
                }
                Inst::Jump { target } => pc = *target as usize,
                Inst::BrFalse { cond, target } => {
                    if int(&fr, *cond, span())? & 1 == 0 {
                        pc = *target as usize;
                    }
                }
                Inst::ForCheck {
                    iv,
                    upper,
                    step,
                    exit,
                } => {
                    let s = int(&fr, *step, span())?;
                    if s <= 0 {
                        return Err(RunError::new(
                            RunErrorKind::Bounds,
                            format!("scf.for step must be positive (got {s})"),
                            span(),
                        )
                        .with_label("this loop"));
                    }
                    if int(&fr, *iv, span())? >= int(&fr, *upper, span())? {
                        pc = *exit as usize;
                    }
                }
                Inst::ForStep {
                    iv,
                    step,
                    upper,
                    ty,
                    body,
                    exit,
                } => {
                    let x = int(&fr, *iv, span())?;
                    let s = int(&fr, *step, span())?;
                    match x.checked_add(s) {
                        Some(n) if scalar::wrap(*ty, n) == n => {
                            set(&mut fr, *iv, Val::Num(Num::Int(n)));
                            pc = if n < int(&fr, *upper, span())? {
                                *body as usize
                            } else {
                                *exit as usize
                            };
                        }
                        _ => pc = *exit as usize,
                    }
                }
                Inst::LoopBack { target } => {
                    pc = *target as usize;
                }
                Inst::Call {
                    callee,
                    args,
                    results,
                } => {
                    if self.depth >= MAX_CALL_DEPTH {
                        return Err(RunError::new(
                            RunErrorKind::CallDepth,
                            format!(
                                "calls nested deeper than {MAX_CALL_DEPTH} (unbounded recursion?)"
                            ),
                            span(),
                        ));
                    }
                    let vals = args
                        .iter()
                        .map(|s| get(&fr, *s, span()))
                        .collect::<Result<Vec<_>, _>>()?;
                    let callee = *callee as usize;
                    let Some(cf) = prog.funcs.get(callee) else {
                        return Err(internal(span(), "call to an unknown function"));
                    };
                    if let Some(v) = cf.vector_kind
                        && !self.ctx.runs(v)
                    {
                        // Compiled out on this kind of core.
                        continue;
                    }
                    self.depth += 1;
                    let out = self.call(callee, &vals);
                    self.depth -= 1;
                    for (d, v) in results.iter().zip(out?) {
                        set(&mut fr, *d, v);
                    }
                }
                Inst::Ret { values } => {
                    return values.iter().map(|s| get(&fr, *s, span())).collect();
                }
                Inst::MakeView {
                    dst,
                    ptr,
                    shape,
                    strides,
                    layout,
                } => {
                    let Val::Ptr(p) = get(&fr, *ptr, span())? else {
                        return Err(internal(span(), "make_tensor_view of a non-pointer"));
                    };
                    let mut v = ViewVal {
                        addr: p.addr,
                        buf_end: p.addr.saturating_add(p.len),
                        buf_len: p.len,
                        elem: p.elem,
                        rank: shape.len() as u8,
                        shape: [0; 5],
                        strides: [0; 5],
                        layout: *layout,
                    };
                    for k in 0..shape.len().min(5) {
                        v.shape[k] = nonneg(&fr, shape[k], span(), "a tensor view size")?;
                        v.strides[k] = nonneg(&fr, strides[k], span(), "a tensor view stride")?;
                    }
                    // A view larger than its buffer is allowed: each load/store checks the
                    // window it touches (`check_window` in lower.rs).
                    set(&mut fr, *dst, Val::View(v));
                }
                Inst::Partition {
                    dst,
                    src,
                    offsets,
                    sizes,
                } => {
                    let Val::View(mut v) = get(&fr, *src, span())? else {
                        return Err(internal(span(), "partition_view of a non-view"));
                    };
                    if offsets.len() != v.rank as usize || sizes.len() != v.rank as usize {
                        return Err(internal(span(), "partition rank differs from the view's"));
                    }
                    let esize = v.elem.bytes();
                    let mut addr = v.addr;
                    for k in 0..v.rank as usize {
                        let o = nonneg(&fr, offsets[k], span(), "a partition offset")?;
                        let s = nonneg(&fr, sizes[k], span(), "a partition size")?;
                        // Only an overflowing end is an error here: a partition may reach
                        // past its tensor view (PTOAS sizes buffers to the windows kernels
                        // touch); the load/store checks its window against the buffer.
                        if o.checked_add(s).is_none() {
                            return Err(RunError::new(
                                RunErrorKind::Bounds,
                                format!(
                                    "partition out of bounds: dimension {k} has offset {o} and size {s}, whose end overflows"
                                ),
                                span(),
                            )
                            .with_label("this partition's end overflows"));
                        }
                        let delta = o
                            .checked_mul(v.strides[k])
                            .and_then(|x| x.checked_mul(esize))
                            .and_then(|x| addr.checked_add(x));
                        addr = delta.ok_or_else(|| {
                            RunError::new(
                                RunErrorKind::Bounds,
                                "partition offset overflows",
                                span(),
                            )
                        })?;
                        v.shape[k] = s;
                    }
                    v.addr = addr;
                    set(&mut fr, *dst, Val::View(v));
                }
                Inst::AddPtr { dst, ptr, offset } => {
                    let Val::Ptr(mut p) = get(&fr, *ptr, span())? else {
                        return Err(internal(span(), "addptr of a non-pointer"));
                    };
                    let off = nonneg(&fr, *offset, span(), "a pointer offset")?;
                    let bytes = off.checked_mul(p.elem.bytes()).filter(|&b| b <= p.len);
                    let Some(bytes) = bytes else {
                        return Err(RunError::new(
                            RunErrorKind::Bounds,
                            format!(
                                "pointer offset out of bounds: offset {off} elements of {} from a buffer of {} bytes",
                                p.elem,
                                p.len
                            ),
                            span(),
                        )
                        .with_label("this offset passes the end of the bound buffer"));
                    };
                    p.addr += bytes;
                    p.len -= bytes;
                    set(&mut fr, *dst, Val::Ptr(p));
                }
                Inst::PrintTile { tile, global } => {
                    let f = npusim_pto::PrintFormat::default();
                    let text = if *global {
                        let g = super::lower::view_of(&fr, *tile, span())?;
                        if let Some(p) = self.par.as_deref_mut() {
                            p.read_global(&g).map_err(|_| refused(span()))?;
                        }
                        self.core.tprint_global(&g, f)
                    } else {
                        let Val::Tile(t) = get(&fr, *tile, span())? else {
                            return Err(internal(span(), "tprint of a non-tile"));
                        };
                        self.core.tprint(&t, f)
                    }
                    .map_err(|e| RunError::pto(e, span()))?;
                    self.print(span(), text);
                }
                Inst::PrintScalar { fmt, val } => {
                    let arg = match num(&fr, *val, span())? {
                        Num::Int(i) => npusim_core::cfmt::CArg::Int(i),
                        Num::Float(f) => npusim_core::cfmt::CArg::Float(f),
                    };
                    let text = npusim_core::cfmt::format(fmt, &[arg])
                        .map_err(|e| internal(span(), &e.to_string()))?;
                    self.print(span(), text);
                }
                Inst::Trap => {
                    return Err(RunError::new(
                        RunErrorKind::Trap,
                        "the kernel executed `pto.trap`".to_string(),
                        span(),
                    )
                    .with_label("the kernel stops here"));
                }
                Inst::AsyncSession { dst, scratch } => {
                    let Val::Tile(t) = get(&fr, *scratch, span())? else {
                        return Err(internal(span(), "build_async_session without a tile"));
                    };
                    check_tile_align(&t, "BuildAsyncSession", span())?;
                    if t.loc() != npusim_pto::TileLoc::Vec || t.size_bytes() < 8 {
                        return Err(RunError::pto(
                            npusim_pto::PtoError::Static {
                                op: "BuildAsyncSession",
                                operand: "scratchTile",
                                rule: "must be a Vec (UB) tile of at least 8 bytes",
                                value: format!("{:?} tile of {} bytes", t.loc(), t.size_bytes()),
                            },
                            span(),
                        ));
                    }
                    set(&mut fr, *dst, Val::Num(Num::Int(1)));
                }
                Inst::AsyncCopy {
                    dst,
                    src,
                    session,
                    event,
                    name,
                } => {
                    num(&fr, *session, span())?;
                    let op = if *name == "pto.tput_async" {
                        "TPUT_ASYNC"
                    } else {
                        "TGET_ASYNC"
                    };
                    let d = super::lower::view_of(&fr, *dst, span())?;
                    let s = super::lower::view_of(&fr, *src, span())?;
                    let n = async_flat_len(op, &d, "dst")
                        .and_then(|n| async_flat_len(op, &s, "src").map(|m| (n, m)))
                        .and_then(|(n, m)| async_pair(op, &d, &s, n, m))
                        .map_err(|e| RunError::pto(e, span()))?;
                    let bytes = (n * d.dtype.size()) as u64;
                    if let Some(p) = self.par.as_deref_mut() {
                        p.read(s.addr, bytes).map_err(|_| refused(span()))?;
                        p.write(d.addr, bytes).map_err(|_| refused(span()))?;
                    }
                    let data = self
                        .core
                        .gm()
                        .bytes(s.addr, bytes)
                        .map_err(|e| internal(span(), &e.to_string()))?
                        .to_vec();
                    self.core
                        .gm_mut()
                        .bytes_mut(d.addr, bytes)
                        .map_err(|e| internal(span(), &e.to_string()))?
                        .copy_from_slice(&data);
                    set(&mut fr, *event, Val::Num(Num::Int(1)));
                }
                Inst::AsyncDone {
                    dst,
                    event,
                    session,
                } => {
                    num(&fr, *event, span())?;
                    num(&fr, *session, span())?;
                    set(&mut fr, *dst, Val::Num(Num::Int(1)));
                }
                Inst::TileScalar {
                    tile,
                    offset,
                    val,
                    ty,
                    write,
                } => {
                    let Val::Tile(t) = get(&fr, *tile, span())? else {
                        return Err(internal(span(), "tgetval/tsetval of a non-tile"));
                    };
                    let name = if *write { "pto.tsetval" } else { "pto.tgetval" };
                    check_tile_align(&t, name, span())?;
                    let off = nonneg(&fr, *offset, span(), "a tile element offset")?;
                    let n = t.dtype().size();
                    let count = t.size_bytes() / n as u64;
                    if off >= count {
                        return Err(RunError::new(
                            RunErrorKind::Bounds,
                            format!(
                                "{name}: element offset {off} is past the tile's {count} elements ({t})"
                            ),
                            span(),
                        )
                        .with_label("this offset"));
                    }
                    let addr = t.addr() + off * n as u64;
                    let mem_err = |e: npusim_core::memory::MemoryError| {
                        RunError::new(RunErrorKind::Bounds, format!("{name}: {e}"), span())
                    };
                    if *write {
                        let b = match num(&fr, *val, span())? {
                            Num::Float(x) => scalar::float_to_bits(*ty, x),
                            Num::Int(i) => scalar::zext(*ty, i),
                        };
                        let dst = usize::try_from(addr)
                            .ok()
                            .and_then(|a| self.core.mem_mut(t.loc()).get_mut(a..a.checked_add(n)?));
                        let Some(dst) = dst else {
                            return Err(RunError::new(
                                RunErrorKind::Bounds,
                                format!("{name}: element at byte {addr:#x} is outside its memory"),
                                span(),
                            ));
                        };
                        dst.copy_from_slice(&b.to_le_bytes()[..n]);
                    } else {
                        let mut raw = [0u8; 8];
                        raw[..n].copy_from_slice(
                            self.core
                                .mem(t.loc())
                                .bytes(addr, n as u64)
                                .map_err(mem_err)?,
                        );
                        let b = u64::from_le_bytes(raw);
                        let v = if ty.is_float() {
                            Num::Float(scalar::float_from_bits(*ty, b))
                        } else {
                            Num::Int(scalar::sext(*ty, b as i64))
                        };
                        set(&mut fr, *val, Val::Num(v));
                    }
                }
                Inst::ScaleAddr { dst, src } => {
                    let (Val::Tile(s), Val::Tile(d)) =
                        (get(&fr, *src, span())?, get(&fr, *dst, span())?)
                    else {
                        return Err(internal(span(), "tget_scale_addr of a non-tile"));
                    };
                    let t = self
                        .core
                        .tget_scale_addr(&d, &s)
                        .map_err(|e| RunError::pto(e, span()))?;
                    set(&mut fr, *dst, Val::Tile(t));
                }
                Inst::Subset {
                    dst,
                    src,
                    row,
                    col,
                    rows,
                    cols,
                } => {
                    let Val::Tile(t) = get(&fr, *src, span())? else {
                        return Err(internal(span(), "subset of a non-tile"));
                    };
                    let r0 = nonneg(&fr, *row, span(), "a subset row offset")?;
                    let c0 = nonneg(&fr, *col, span(), "a subset column offset")?;
                    let view = usize::try_from(r0)
                        .ok()
                        .zip(usize::try_from(c0).ok())
                        .ok_or_else(|| internal(span(), "subset offset beyond usize"))
                        .and_then(|(r0, c0)| {
                            t.subset(r0, c0, *rows, *cols)
                                .map_err(|e| RunError::pto(e, span()))
                        })?;
                    set(&mut fr, *dst, Val::Tile(view));
                }
                Inst::LoadScalar {
                    dst,
                    ptr,
                    index,
                    ty,
                } => {
                    let (addr, n) = self.scalar_place(&fr, *ptr, *index, span())?;
                    if let Some(p) = self.par.as_deref_mut() {
                        p.read(addr, n as u64).map_err(|_| refused(span()))?;
                    }
                    let mut raw = [0u8; 8];
                    let bytes = self
                        .core
                        .gm()
                        .bytes(addr, n as u64)
                        .map_err(|e| internal(span(), &e.to_string()))?;
                    raw[..n].copy_from_slice(bytes);
                    let b = u64::from_le_bytes(raw);
                    let v = if ty.is_float() {
                        Num::Float(scalar::float_from_bits(*ty, b))
                    } else {
                        Num::Int(scalar::sext(*ty, b as i64))
                    };
                    set(&mut fr, *dst, Val::Num(v));
                }
                Inst::StoreScalar {
                    ptr,
                    index,
                    val,
                    ty,
                } => {
                    let (addr, n) = self.scalar_place(&fr, *ptr, *index, span())?;
                    let b = match num(&fr, *val, span())? {
                        Num::Float(x) => scalar::float_to_bits(*ty, x),
                        Num::Int(i) => scalar::zext(*ty, i),
                    };
                    if let Some(p) = self.par.as_deref_mut() {
                        p.write(addr, n as u64).map_err(|_| refused(span()))?;
                    }
                    self.core
                        .gm_mut()
                        .bytes_mut(addr, n as u64)
                        .map_err(|e| internal(span(), &e.to_string()))?
                        .copy_from_slice(&b.to_le_bytes()[..n]);
                }
                Inst::Reinterpret {
                    dst,
                    src,
                    desc,
                    reshape,
                } => {
                    let Val::Tile(t) = get(&fr, *src, span())? else {
                        return Err(internal(span(), "treshape/bitcast of a non-tile"));
                    };
                    let name = if *reshape { "TRESHAPE" } else { "BITCAST" };
                    let rule = |rule: &'static str, value: String| {
                        RunError::pto(
                            npusim_pto::PtoError::Static {
                                op: name,
                                operand: "dst",
                                rule,
                                value,
                            },
                            span(),
                        )
                    };
                    let mut d = *desc;
                    d.addr = t.addr();
                    if d.loc != t.loc() {
                        return Err(rule(
                            "the result must be in the source's location",
                            format!("{:?} from {:?}", d.loc, t.loc()),
                        ));
                    }
                    if *reshape {
                        let bytes = |r: usize, c: usize, e: npusim_core::ElemType| r * c * e.size();
                        let (a, b) = (bytes(d.rows, d.cols, d.dtype), t.size_bytes() as usize);
                        if a != b {
                            return Err(rule(
                                "the result must have the source's byte size",
                                format!("{a} bytes from {b}"),
                            ));
                        }
                        let boxed = |s: npusim_pto::SLayout| s != npusim_pto::SLayout::NoneBox;
                        if boxed(d.slayout) != boxed(t.desc().slayout) {
                            return Err(rule(
                                "no conversion between boxed and non-boxed layouts",
                                format!("{:?} from {:?}", d.slayout, t.desc().slayout),
                            ));
                        }
                    }
                    let nt = self
                        .core
                        .alloc_named(d, name, "dst")
                        .map_err(|e| RunError::pto(e, span()))?;
                    let e = &mut self.extent[nt.loc() as usize];
                    *e = (*e).max(nt.addr().saturating_add(nt.size_bytes()));
                    set(&mut fr, *dst, Val::Tile(nt));
                }
                Inst::ViewDim { dst, view, dim } => {
                    let Val::View(v) = get(&fr, *view, span())? else {
                        return Err(internal(span(), "get_tensor_view_dim of a non-view"));
                    };
                    let k = nonneg(&fr, *dim, span(), "a dimension index")?;
                    if k >= u64::from(v.rank) {
                        return Err(RunError::new(
                            RunErrorKind::Bounds,
                            format!(
                                "dimension index out of range: {k} for a view of rank {}",
                                v.rank
                            ),
                            span(),
                        )
                        .with_label("this dimension index"));
                    }
                    let n = i64::try_from(v.shape[k as usize]).unwrap_or(i64::MAX);
                    set(&mut fr, *dst, Val::Num(Num::Int(n)));
                }
                Inst::AllocTile {
                    dst,
                    desc,
                    addr,
                    vrow,
                    vcol,
                } => {
                    let mut d = *desc;
                    if let Some(a) = addr {
                        d.addr = nonneg(&fr, *a, span(), "a tile address")?;
                    }
                    let too_big = |x: u64| usize::try_from(x).unwrap_or(usize::MAX);
                    if let Some(r) = vrow {
                        d.valid_row = too_big(nonneg(&fr, *r, span(), "a valid row count")?);
                    }
                    if let Some(c) = vcol {
                        d.valid_col = too_big(nonneg(&fr, *c, span(), "a valid column count")?);
                    }
                    // A run-time address is bound unchecked for alignment (TASSIGN form 1):
                    // the instructions that use the tile check it (`check_tile_align`).
                    let t = if addr.is_some() {
                        self.core.bind_named(d, "alloc_tile", "tile")
                    } else {
                        self.core.alloc_named(d, "alloc_tile", "tile")
                    }
                    .map_err(|e| RunError::pto(e, span()))?;
                    let e = &mut self.extent[t.loc() as usize];
                    *e = (*e).max(t.addr().saturating_add(t.size_bytes()));
                    set(&mut fr, *dst, Val::Tile(t));
                }
                Inst::SetValid { tile, rows, cols } => {
                    let r = nonneg(&fr, *rows, span(), "a valid row count")?;
                    let c = nonneg(&fr, *cols, span(), "a valid column count")?;
                    let Val::Tile(mut t) = get(&fr, *tile, span())? else {
                        return Err(internal(span(), "set_validshape of a non-tile"));
                    };
                    let big = |x: u64| usize::try_from(x).unwrap_or(usize::MAX);
                    t.set_valid(big(r), big(c))
                        .map_err(|e| RunError::pto(e, span()))?;
                    set(&mut fr, *tile, Val::Tile(t));
                }
                Inst::Exec(prepared) => {
                    self.claim(&prepared.op().args, span())?;
                    self.core
                        .run(prepared)
                        .map_err(|e| RunError::pto(e, span()))?;
                    self.account(&prepared.op().args);
                    if self.work > self.max_work {
                        self.check_budget(f.meta[at].name, span())?;
                    }
                }
                Inst::Tile { op, form } => {
                    let args = build_args(*op, form, &fr, span())?;
                    let i = TileOp { op: *op, args };
                    self.claim(&i.args, span())?;
                    self.core.exec(&i).map_err(|e| RunError::pto(e, span()))?;
                    self.account(&i.args);
                    if self.work > self.max_work {
                        self.check_budget(f.meta[at].name, span())?;
                    }
                }
                Inst::Nop => {}
                Inst::Section { vector, end } => {
                    if !self.ctx.runs(*vector) {
                        pc = *end as usize;
                    }
                }
                Inst::PipeInit {
                    dir_mask,
                    slot_size,
                    c2v_buf,
                    v2c_buf,
                } => {
                    let base = |s: u32| -> Result<u64, RunError> {
                        nonneg(&fr, s, span(), "a consumer buffer address")
                    };
                    self.pipe = PipeCfg {
                        slot_size: *slot_size,
                        c2v_buf: base(*c2v_buf)?,
                        v2c_buf: base(*v2c_buf)?,
                        pops: 0,
                        init: true,
                    };
                    if let Some(c) = self.coop {
                        c.lock().slot_num = if *dir_mask == 3 { 4 } else { 8 };
                    }
                }
                Inst::PipePush {
                    to_vector,
                    tile,
                    split,
                } => {
                    let Val::Tile(t) = get(&fr, *tile, span())? else {
                        return Err(internal(span(), "tpush of a non-tile"));
                    };
                    check_tile_align(&t, "TPUSH", span())?;
                    self.pipe_push(*to_vector, &t, *split, f.meta[at].name, span())?;
                }
                Inst::PipePop {
                    from_cube,
                    dst,
                    desc,
                    split,
                } => {
                    if let Some(t) =
                        self.pipe_pop(*from_cube, desc, *split, f.meta[at].name, span())?
                    {
                        set(&mut fr, *dst, Val::Tile(t));
                    }
                }
                Inst::PipeFree { from_cube, split } => {
                    self.pipe_free(*from_cube, *split, f.meta[at].name, span())?;
                }
                Inst::CoreSync { set: is_set, id } => {
                    let id = match id {
                        CoreSyncId::Const(i) => *i as usize,
                        CoreSyncId::Dyn(s) => {
                            let i = nonneg(&fr, *s, span(), "an event id")?;
                            if i as usize >= coop::FLAG_IDS {
                                return Err(RunError::new(
                                    RunErrorKind::Bounds,
                                    format!(
                                        "[core-sync-id] `{}`: event id {i} is not 0..{}",
                                        f.meta[at].name,
                                        coop::FLAG_IDS - 1
                                    ),
                                    span(),
                                ));
                            }
                            i as usize
                        }
                    };
                    self.core_sync(*is_set, id, f.meta[at].name, span())?;
                }
                Inst::Unsupported { what } => {
                    return Err(RunError::new(
                        RunErrorKind::Unsupported,
                        format!("`{}` is not supported yet", f.meta[at].name),
                        span(),
                    )
                    .with_label("reached here")
                    .with_help(*what));
                }
            }
        }
    }
}

/// The element count of a flat contiguous logical 1-D tensor (every dimension but one of
/// extent 1, that one of stride 1), the only form the SDMA path of TPUT_ASYNC / TGET_ASYNC
/// takes (pto-isa `docs/isa/comm/TPUT_ASYNC.md`, "Constraints").
fn async_flat_len(
    op: &'static str,
    g: &npusim_pto::GlobalTensor,
    operand: &'static str,
) -> Result<usize, npusim_pto::PtoError> {
    let n: usize = g.shape.iter().product();
    let flat = (0..5).all(|k| g.shape[k] == 1 || g.shape[k] == n && g.stride[k] == 1);
    if flat {
        Ok(n)
    } else {
        Err(npusim_pto::PtoError::Static {
            op,
            operand,
            rule: "the SDMA path takes a flat contiguous logical 1-D tensor",
            value: format!("shape {:?}, strides {:?}", g.shape, g.stride),
        })
    }
}

/// Same raw element type, same layout and the same element count on both sides.
fn async_pair(
    op: &'static str,
    d: &npusim_pto::GlobalTensor,
    s: &npusim_pto::GlobalTensor,
    n: usize,
    m: usize,
) -> Result<usize, npusim_pto::PtoError> {
    if d.dtype != s.dtype {
        return Err(npusim_pto::PtoError::Static {
            op,
            operand: "src",
            rule: "source and destination must have the same element type",
            value: format!("{} vs {}", s.dtype, d.dtype),
        });
    }
    if d.layout != s.layout || n != m {
        return Err(npusim_pto::PtoError::Static {
            op,
            operand: "src",
            rule: "source and destination must have the same layout and element count",
            value: format!("{:?} {m} elements vs {:?} {n}", s.layout, d.layout),
        });
    }
    Ok(n)
}
