//! The interpreter loop: one `match` per instruction over a frame of slots.

use super::lower::{Inst, Program, Val, ViewVal, build_args};
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
    pub extent: [u64; 7],
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

impl Machine<'_> {
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

    /// The periodic checks: wall clock and progress.
    #[cold]
    fn tick(&self, op: &str, span: Span) -> Result<(), RunError> {
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
                        RuntimeQuery::SubblockIdx => 0,
                        RuntimeQuery::SubblockNum => 1,
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
                    ty,
                    head,
                    exit,
                } => {
                    let x = int(&fr, *iv, span())?;
                    let s = int(&fr, *step, span())?;
                    match x.checked_add(s) {
                        Some(n) if scalar::wrap(*ty, n) == n => {
                            set(&mut fr, *iv, Val::Num(Num::Int(n)));
                            pc = *head as usize;
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
                    if callee >= prog.funcs.len() {
                        return Err(internal(span(), "call to an unknown function"));
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
                Inst::LoadScalar {
                    dst,
                    ptr,
                    index,
                    ty,
                } => {
                    let (addr, n) = self.scalar_place(&fr, *ptr, *index, span())?;
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
                    let t = self
                        .core
                        .alloc_named(d, "alloc_tile", "tile")
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
                    self.core
                        .run(prepared)
                        .map_err(|e| RunError::pto(e, span()))?;
                    self.account(&prepared.op().args);
                    if self.work > self.max_work {
                        self.check_budget(f.meta[at].name, span())?;
                    }
                }
                Inst::Tile { op, form } => {
                    let args = build_args(form, &fr, span())?;
                    let i = TileOp { op: *op, args };
                    self.core.exec(&i).map_err(|e| RunError::pto(e, span()))?;
                    self.account(&i.args);
                    if self.work > self.max_work {
                        self.check_budget(f.meta[at].name, span())?;
                    }
                }
                Inst::Nop => {}
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
