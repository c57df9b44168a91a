//! One cube core (AIC) and its vector cores (AIV0, AIV1) running a mixed kernel together:
//! `pto.section.cube` / `pto.section.vector` and `pto.kernel_kind` (PTO IR manual 4.17), the
//! frontend pipes `pto.tpush_*` / `pto.tpop_*` / `pto.tfree_*` (manual 4.18 and PTOAS
//! `docs/designs/ptoas-tpush-tpop-design.md`) and the cross-core `pto.sync.set` /
//! `pto.sync.wait`.
//!
//! # Model
//! - Each core runs the entry function on its own on-chip memories; global memory is shared.
//!   A cube core skips `pto.section.vector` and calls of `kernel_kind<vector>` functions; a
//!   vector core skips the cube ones. `pto.get_subblock_idx` is the vector core's index (0 on
//!   the cube core), `pto.get_subblock_num` is 2.
//! - Cores take turns: exactly one runs at a time, in a fixed order (AIC, then AIV0, AIV1), and
//!   a core runs until it must wait (an empty pipe, a full pipe, an unset event) or ends. So a
//!   run is deterministic and needs no locking on the hot path.
//! - A pipe direction holds `SLOT_NUM` tiles (8, or 4 per direction when `dir_mask = 3`); a
//!   slot is busy from its push until the consumer's `tfree`. A push waits for a free slot, a
//!   pop for a pushed tile. `split = 1` sends the top half of the valid rows to AIV0 and the
//!   bottom half to AIV1 (`split = 2`: left and right half of the columns); on the way back the
//!   cube's pop joins the halves. `split = 0` is the 1:1 mode with AIV0 only: on AIV1 the
//!   pipe ops of `split = 0` move nothing (its popped tile is its slot as it stands). Tiles move as their valid region's elements, so
//!   the producer's and consumer's layouts may differ; element types must match.
//! - A popped tile lives in the consumer's slot buffer (the pipe init's consumer base address,
//!   slot `k mod SLOT_NUM` of `slot_size` bytes for its `k`-th pop).
//! - `pto.sync.set` on the cube core signals event `id` to each vector core; on a vector core
//!   it signals the cube core. `pto.sync.wait` on a vector core takes one signal from the
//!   cube; on the cube core it takes one signal from every vector core (the group mode).
//! - When no core can go on and some still wait, the run fails with a typed deadlock error
//!   naming every waiting core and the op it waits at.

use super::{RunError, RunErrorKind};
use crate::diag::Span;
use npusim_core::{ElemType, MemSpace, Memory};
use std::collections::VecDeque;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

/// Vector cores per cube core (Ascend 910B / A5: 1 AIC : 2 AIV).
pub(crate) const AIV_PER_AIC: usize = 2;
/// Cross-core event ids.
pub(crate) const FLAG_IDS: usize = 16;

/// Which core an interpreter instance plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CoreKind {
    /// The whole kernel on one core (kernels that do not need cores run together).
    All,
    Cube,
    Vector(u8),
}

impl CoreKind {
    pub(crate) fn name(self) -> String {
        match self {
            CoreKind::All => "core".into(),
            CoreKind::Cube => "AIC".into(),
            CoreKind::Vector(k) => format!("AIV{k}"),
        }
    }
    /// Whether a `pto.section.{vector|cube}` (or a call of such a kernel kind) runs here.
    pub(crate) fn runs(self, vector: bool) -> bool {
        match self {
            CoreKind::All => true,
            CoreKind::Cube => !vector,
            CoreKind::Vector(_) => vector,
        }
    }
    /// Index among the cores of a mixed run (AIC = 0).
    pub(crate) fn index(self) -> usize {
        match self {
            CoreKind::All | CoreKind::Cube => 0,
            CoreKind::Vector(k) => 1 + k as usize,
        }
    }
}

/// One tile (or half tile) in flight: its valid region's element bit patterns, row-major.
#[derive(Clone, Debug)]
pub(crate) struct Entry {
    pub rows: usize,
    pub cols: usize,
    pub dtype: ElemType,
    pub bits: Vec<u64>,
}

/// Two halves' shapes (rows, cols) that do not join.
pub(crate) type Mismatch = ((usize, usize), (usize, usize));

/// The tile a cube pop makes of the two vector halves: stacked rows (`split = 1`) or side by
/// side columns (`split = 2`); `Err` gives the two halves' shapes when they do not fit.
pub(crate) fn join(split: u8, mut a: Entry, b: Entry) -> Result<Entry, Mismatch> {
    let shapes = ((a.rows, a.cols), (b.rows, b.cols));
    if a.dtype != b.dtype {
        return Err(shapes);
    }
    if split == 1 {
        if a.cols != b.cols {
            return Err(shapes);
        }
        a.rows += b.rows;
        a.bits.extend(b.bits);
        return Ok(a);
    }
    if a.rows != b.rows {
        return Err(shapes);
    }
    let mut bits = Vec::with_capacity(a.bits.len() + b.bits.len());
    for (ra, rb) in a
        .bits
        .chunks(a.cols.max(1))
        .zip(b.bits.chunks(b.cols.max(1)))
    {
        bits.extend_from_slice(ra);
        bits.extend_from_slice(rb);
    }
    Ok(Entry {
        rows: a.rows,
        cols: a.cols + b.cols,
        dtype: a.dtype,
        bits,
    })
}

#[derive(Clone, Debug)]
enum Status {
    Ready,
    Blocked {
        version: u64,
        op: &'static str,
        why: String,
        span: Span,
    },
    Done,
}

/// Everything the cores share.
pub(crate) struct State {
    pub gm: Memory,
    turn: usize,
    status: Vec<Status>,
    /// Bumped by every change a waiting core could be waiting for.
    pub version: u64,
    /// The error that ends the run (the first one raised, or the deadlock).
    pub error: Option<RunError>,
    pub slot_num: usize,
    /// Cube -> vector: per vector core, tiles pushed and not popped.
    pub c2v: [VecDeque<Entry>; AIV_PER_AIC],
    /// Cube -> vector: per vector core, slots popped and not freed.
    pub c2v_held: [usize; AIV_PER_AIC],
    /// Vector -> cube: per producing vector core, tiles pushed and not popped.
    pub v2c: [VecDeque<Entry>; AIV_PER_AIC],
    /// Vector -> cube: slots popped by the cube and not freed.
    pub v2c_held: usize,
    /// Signals from the cube to each vector core, per event id.
    pub to_vec: [[u32; FLAG_IDS]; AIV_PER_AIC],
    /// Signals from each vector core to the cube, per event id.
    pub to_cube: [[u32; FLAG_IDS]; AIV_PER_AIC],
}

impl State {
    fn next_runnable(&self, from: usize) -> Option<usize> {
        let n = self.status.len();
        (1..=n)
            .map(|k| (from + k) % n)
            .find(|&j| match &self.status[j] {
                Status::Ready => true,
                Status::Blocked { version, .. } => *version < self.version,
                Status::Done => false,
            })
    }

    fn deadlock(&self) -> RunError {
        let mut waits = self.status.iter().enumerate().filter_map(|(i, s)| match s {
            Status::Blocked { op, why, span, .. } => Some((i, *op, why.clone(), *span)),
            _ => None,
        });
        let Some((i0, op0, why0, span0)) = waits.next() else {
            return RunError::new(
                RunErrorKind::Internal,
                "deadlock without a waiting core",
                Span::default(),
            );
        };
        let core = |i: usize| {
            if i == 0 {
                CoreKind::Cube.name()
            } else {
                CoreKind::Vector((i - 1) as u8).name()
            }
        };
        let others: Vec<String> = waits
            .map(|(i, op, why, _)| format!("{} waits at `{op}`: {why}", core(i)))
            .collect();
        let finished: Vec<String> = self
            .status
            .iter()
            .enumerate()
            .filter(|(_, s)| matches!(s, Status::Done))
            .map(|(i, _)| core(i))
            .collect();
        let mut e = RunError::new(
            RunErrorKind::Deadlock,
            format!(
                "deadlock: no core can go on; {} waits at `{op0}`: {why0}",
                core(i0)
            ),
            span0,
        )
        .with_label(format!("{} waits here forever", core(i0)));
        let mut help = others.join("; ");
        if !finished.is_empty() {
            if !help.is_empty() {
                help.push_str("; ");
            }
            help.push_str(&format!("finished: {}", finished.join(", ")));
        }
        if !help.is_empty() {
            e = e.with_help(help);
        }
        e
    }
}

/// The shared state and the turn-taking between the cores of one block.
pub(crate) struct Coop {
    st: Mutex<State>,
    cv: Condvar,
}

/// Why a core stopped without an error of its own: another core's error ended the run.
pub(crate) fn aborted(span: Span) -> RunError {
    RunError::new(RunErrorKind::Internal, "stopped: another core failed", span)
}

impl Coop {
    pub(crate) fn new(gm: Memory, cores: usize) -> Coop {
        Coop {
            st: Mutex::new(State {
                gm,
                turn: 0,
                status: vec![Status::Ready; cores],
                version: 0,
                error: None,
                slot_num: 8,
                c2v: Default::default(),
                c2v_held: [0; AIV_PER_AIC],
                v2c: Default::default(),
                v2c_held: 0,
                to_vec: [[0; FLAG_IDS]; AIV_PER_AIC],
                to_cube: [[0; FLAG_IDS]; AIV_PER_AIC],
            }),
            cv: Condvar::new(),
        }
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        self.st.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn into_state(self) -> State {
        self.st.into_inner().unwrap_or_else(PoisonError::into_inner)
    }

    /// Waits for core `me`'s turn; hands it the global memory. `Err` when the run has failed.
    fn wait_turn<'a>(
        &'a self,
        mut st: MutexGuard<'a, State>,
        me: usize,
        gm: &mut Memory,
    ) -> Result<MutexGuard<'a, State>, ()> {
        while st.turn != me && st.error.is_none() {
            st = self.cv.wait(st).unwrap_or_else(PoisonError::into_inner);
        }
        if st.error.is_some() {
            return Err(());
        }
        std::mem::swap(&mut st.gm, gm);
        st.status[me] = Status::Ready;
        Ok(st)
    }

    /// The start of core `me`: waits for its first turn and takes the global memory into `gm`.
    pub(crate) fn enter(&self, me: usize, gm: &mut Memory) -> bool {
        let st = self.lock();
        self.wait_turn(st, me, gm).is_ok()
    }

    /// The end of core `me` (with its error, if it failed): gives the global memory back and
    /// the turn to the next core that can run.
    pub(crate) fn finish(&self, me: usize, gm: &mut Memory, err: Option<RunError>) {
        let mut st = self.lock();
        if st.turn == me {
            std::mem::swap(&mut st.gm, gm);
        }
        st.status[me] = Status::Done;
        if let Some(e) = err
            && st.error.is_none()
        {
            st.error = Some(e);
        }
        if st.error.is_none() {
            match st.next_runnable(me) {
                Some(j) => st.turn = j,
                None => {
                    if st
                        .status
                        .iter()
                        .any(|s| matches!(s, Status::Blocked { .. }))
                    {
                        st.error = Some(st.deadlock());
                    }
                }
            }
        }
        self.cv.notify_all();
    }

    /// Runs `try_op` for core `me` until it succeeds (`Ok(true)`), giving the turn away each
    /// time it cannot proceed (`Ok(false)`, with `why` saying what it waits for). `gm` is the
    /// global memory the running core holds.
    pub(crate) fn until<F>(
        &self,
        me: usize,
        gm: &mut Memory,
        op: &'static str,
        span: Span,
        mut try_op: F,
    ) -> Result<(), RunError>
    where
        F: FnMut(&mut State) -> Result<Result<(), String>, RunError>,
    {
        let mut st = self.lock();
        loop {
            match try_op(&mut st)? {
                Ok(()) => {
                    st.version += 1;
                    return Ok(());
                }
                Err(why) => {
                    std::mem::swap(&mut st.gm, gm);
                    st.status[me] = Status::Blocked {
                        version: st.version,
                        op,
                        why,
                        span,
                    };
                    match st.next_runnable(me) {
                        Some(j) => st.turn = j,
                        None => {
                            let e = st.deadlock();
                            st.error = Some(e.clone());
                            self.cv.notify_all();
                            // Take the memory back so the caller's `finish` can return it.
                            std::mem::swap(&mut st.gm, gm);
                            st.turn = me;
                            return Err(e);
                        }
                    }
                    self.cv.notify_all();
                    st = self.wait_turn(st, me, gm).map_err(|()| aborted(span))?;
                }
            }
        }
    }
}

/// Ends the run if the core thread holding it unwinds (a bug, not a kernel error): the other
/// cores stop waiting instead of hanging.
pub(crate) struct PanicGuard<'a> {
    pub coop: &'a Coop,
    pub armed: bool,
}

impl Drop for PanicGuard<'_> {
    fn drop(&mut self) {
        if self.armed {
            let mut st = self.coop.lock();
            if st.error.is_none() {
                st.error = Some(RunError::new(
                    RunErrorKind::Internal,
                    "a core of the mixed run stopped unexpectedly",
                    Span::default(),
                ));
            }
            self.coop.cv.notify_all();
        }
    }
}

/// An empty stand-in while the global memory is with another core.
pub(crate) fn no_gm() -> Memory {
    Memory::new(MemSpace::Gm, 0)
}
