//! Lowering: the parsed [`Module`] becomes a [`Program`], one flat instruction list per
//! function with slot indices for SSA values.
//!
//! Everything that does not depend on run-time values is done here, once:
//! - `arith.constant` values are rounded to their type and stored in the function's frame
//!   template, so constants cost nothing at run time;
//! - tiles whose address and valid shape are constants (and that no `pto.set_validshape`
//!   changes) are validated by `npusim-pto` and placed in the template; tiles without
//!   `addr =` get an address from a module-wide bump allocator per memory, or, in a function
//!   whose tiles would not fit that way, by liveness (first fit over live ranges, see
//!   [`super::plan`]);
//! - every tile op is already an `npusim_pto::OpCode` (PTO-AS takes its tile rows from that
//!   table); its operands become `npusim_pto::Args<Slot>`, the instruction's own operand form
//!   over frame slots; when all of its operands are static the whole `npusim_pto::TileOp` is
//!   built and prepared here
//!   (`TileCore::prepare`: static checks once, the element function bound to the operands) and
//!   the run-time step is a single `TileCore::run`;
//! - `scf.for` / `scf.if` / `scf.while` become jumps, `scf.yield` a parallel copy.

use super::scalar::{self, CastKind, FloatOp, IntOp, Num};
use super::{RunError, RunErrorKind};
use crate::ast::{
    self, Block, ConstValue, DType, FuncId, GmLayout, LocExt, Module, OpKind, RuntimeQuery,
    ScalarType, TargetArch, Type,
};
use crate::diag::{DiagKind, Diagnostic, Span};
use crate::ops::OpCode;
use npusim_pto as pto;
use npusim_pto::{Args, OperandMap, PreparedOp, Scalar, Tile, TileCore, TileDesc, TileOp};
use std::collections::HashMap;

/// Index of a value in a function's frame.
pub(crate) type Slot = u32;

/// A bound pointer: GM byte address of the buffer, its element type, its length in bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct PtrVal {
    pub addr: u64,
    pub elem: DType,
    pub len: u64,
}

/// A tensor or partition view of a bound buffer (up to 5 dims, strides in elements).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ViewVal {
    pub addr: u64,
    /// GM byte address just past the buffer the view's pointer is bound to: each window a
    /// load or store touches is checked against it (the view itself may be larger).
    pub buf_end: u64,
    /// Length in bytes of that buffer (for messages).
    pub buf_len: u64,
    pub elem: DType,
    pub rank: u8,
    pub shape: [u64; 5],
    pub strides: [u64; 5],
    pub layout: GmLayout,
}

/// A run-time value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Val {
    Undef,
    Num(Num),
    Ptr(PtrVal),
    View(ViewVal),
    Tile(Tile),
}

/// One instruction.
#[derive(Clone, Debug)]
pub(crate) enum Inst {
    IntBin {
        op: IntOp,
        ty: ScalarType,
        dst: Slot,
        a: Slot,
        b: Slot,
    },
    FloatBin {
        op: FloatOp,
        ty: ScalarType,
        dst: Slot,
        a: Slot,
        b: Slot,
    },
    NegF {
        dst: Slot,
        a: Slot,
    },
    Cast {
        kind: CastKind,
        dst: Slot,
        a: Slot,
    },
    CmpI {
        pred: ast::CmpIPredicate,
        ty: ScalarType,
        dst: Slot,
        a: Slot,
        b: Slot,
    },
    CmpF {
        pred: ast::CmpFPredicate,
        dst: Slot,
        a: Slot,
        b: Slot,
    },
    Select {
        dst: Slot,
        c: Slot,
        t: Slot,
        f: Slot,
    },
    Runtime {
        q: RuntimeQuery,
        dst: Slot,
    },
    /// Parallel copy (`scf.yield`, loop entry/exit, `scf.condition`).
    Copy {
        dsts: Box<[Slot]>,
        srcs: Box<[Slot]>,
    },
    Jump {
        target: u32,
    },
    /// Jumps to `target` if the `i1` in `cond` is false.
    BrFalse {
        cond: Slot,
        target: u32,
    },
    /// `scf.for` head: errors on a step <= 0; leaves the loop if `iv >= upper`.
    ForCheck {
        iv: Slot,
        upper: Slot,
        step: Slot,
        exit: u32,
    },
    /// `scf.for` latch: `iv += step`; jumps back to the body while `iv < upper`, otherwise
    /// (or when `iv + step` overflows the induction variable's type) leaves the loop. The
    /// head's step check is not repeated: `step` and `upper` are defined outside the loop.
    ForStep {
        iv: Slot,
        step: Slot,
        upper: Slot,
        ty: ScalarType,
        body: u32,
        exit: u32,
    },
    /// `scf.while` back edge: counts an iteration, jumps to the head.
    LoopBack {
        target: u32,
    },
    Call {
        callee: u32,
        args: Box<[Slot]>,
        results: Box<[Slot]>,
    },
    Ret {
        values: Box<[Slot]>,
    },
    MakeView {
        dst: Slot,
        ptr: Slot,
        shape: Box<[Slot]>,
        strides: Box<[Slot]>,
        layout: GmLayout,
    },
    Partition {
        dst: Slot,
        src: Slot,
        offsets: Box<[Slot]>,
        sizes: Box<[Slot]>,
    },
    /// `pto.addptr`: the pointer moved by an element offset (PTO IR manual 4.1).
    AddPtr {
        dst: Slot,
        ptr: Slot,
        offset: Slot,
    },
    /// `pto.treshape` / `pto.bitcast`: the source tile's bytes seen through another tile type
    /// (no data moves). `reshape` adds TRESHAPE's rules (same byte size, no boxed/non-boxed
    /// change); a `None` valid dimension of the result type takes the new shape's.
    Reinterpret {
        dst: Slot,
        src: Slot,
        desc: TileDesc,
        reshape: bool,
    },
    /// `pto.tget_scale_addr` (A5): the Scaling tile `dst` rebound to `src`'s scale address
    /// ([`npusim_pto::TileCore::tget_scale_addr`]); no data moves.
    ScaleAddr {
        dst: Slot,
        src: Slot,
    },
    /// `pto.subset`: the `rows x cols` view of `src` at the run-time offsets `(row, col)`
    /// ([`npusim_pto::Tile::subset`]).
    Subset {
        dst: Slot,
        src: Slot,
        row: Slot,
        col: Slot,
        rows: usize,
        cols: usize,
    },
    /// `pto.get_tensor_view_dim`: one dimension of a view (or `memref` argument).
    ViewDim {
        dst: Slot,
        view: Slot,
        dim: Slot,
    },
    /// `pto.alloc_tile` with run-time operands.
    AllocTile {
        dst: Slot,
        desc: TileDesc,
        addr: Option<Slot>,
        vrow: Option<Slot>,
        vcol: Option<Slot>,
    },
    SetValid {
        tile: Slot,
        rows: Slot,
        cols: Slot,
    },
    /// A tile op whose operands are all static: the whole instruction is pre-built.
    Exec(Box<PreparedOp>),
    /// A tile op reading its operands from slots: `npusim-pto`'s operand form over slots.
    Tile {
        op: pto::OpCode,
        form: Args<Slot>,
    },
    /// `pto.load_scalar`: one element read through a pointer (PTO IR manual, "pto.load_scalar").
    LoadScalar {
        dst: Slot,
        ptr: Slot,
        index: Slot,
        ty: ScalarType,
    },
    /// `pto.store_scalar`: one element written through a pointer (PTO IR manual,
    /// "pto.store_scalar").
    StoreScalar {
        ptr: Slot,
        index: Slot,
        val: Slot,
        ty: ScalarType,
    },
    /// `pto.tgetval` / `pto.tsetval`: one tile element at a linear element offset from the
    /// tile's start (PTO IR manual, "pto.tgetval", "pto.tsetval"); `val` is the destination
    /// slot of a read, the value of a write.
    TileScalar {
        tile: Slot,
        offset: Slot,
        val: Slot,
        ty: ScalarType,
        write: bool,
    },
    /// `pto.trap`: the kernel stops with a typed error (PTO IR manual, "pto.trap").
    Trap,
    /// `pto.build_async_session` (pto-isa `docs/isa/comm/TPUT_ASYNC.md`, "AsyncSession
    /// Construction"): checks the UB scratch tile (a Vec tile of at least 8 bytes) and makes
    /// the session value.
    AsyncSession {
        dst: Slot,
        scratch: Slot,
    },
    /// `pto.tput_async` / `pto.tget_async` (`docs/isa/comm/TPUT_ASYNC.md`, `TGET_ASYNC.md`)
    /// on a single device: the SDMA copy of the flat contiguous 1-D `src` view into `dst`,
    /// complete when issued; `event` gets the event value.
    AsyncCopy {
        dst: Slot,
        src: Slot,
        session: Slot,
        event: Slot,
        name: &'static str,
    },
    /// `pto.wait_async_event` / `pto.test_async_event`: every transfer completed at issue, so
    /// the result is `true` (after checking the operands are an event and a session).
    AsyncDone {
        dst: Slot,
        event: Slot,
        session: Slot,
    },
    /// `pto.tprint`: the text of a tile ([`npusim_pto::TileCore::tprint`]) or of a global
    /// tensor view (`global`) joins the run's prints.
    PrintTile {
        tile: Slot,
        global: bool,
    },
    /// `pto.print`: `printf(fmt, val)` ([`npusim_core::cfmt`]) joins the run's prints.
    PrintScalar {
        fmt: Box<str>,
        val: Slot,
    },
    /// `pto.section.cube` / `pto.section.vector`: skips to `end` on a core of the other kind.
    Section {
        vector: bool,
        end: u32,
    },
    /// `pto.aic_initialize_pipe` / `pto.aiv_initialize_pipe`: this core's pipe configuration.
    PipeInit {
        dir_mask: u32,
        slot_size: u64,
        c2v_buf: Slot,
        v2c_buf: Slot,
    },
    /// `pto.tpush_to_aiv` (`to_vector`) / `pto.tpush_to_aic`.
    PipePush {
        to_vector: bool,
        tile: Slot,
        split: u8,
    },
    /// `pto.tpop_from_aic` (`from_cube`) / `pto.tpop_from_aiv`: the popped tile, of type
    /// `desc`, placed in this core's consumer slot buffer.
    PipePop {
        from_cube: bool,
        dst: Slot,
        desc: TileDesc,
        split: u8,
    },
    /// `pto.tfree_from_aic` (`from_cube`) / `pto.tfree_from_aiv`.
    PipeFree {
        from_cube: bool,
        split: u8,
    },
    /// `pto.sync.set` (`set`) / `pto.sync.wait` between cube and vector cores, event `id`.
    CoreSync {
        set: bool,
        id: CoreSyncId,
    },
    /// Ops that do nothing in a functional simulation of one core: intra-core sync (static and
    /// dynamic event ids, `pto.get_buf`/`pto.rls_buf`), `pto.set_ffts`, `pto.tprefetch`.
    Nop,
    /// An op `npusim-pto` does not implement yet; fails when reached.
    Unsupported {
        what: &'static str,
    },
}

/// The event id of a `pto.sync.set` / `pto.sync.wait`.
#[derive(Clone, Copy, Debug)]
pub(crate) enum CoreSyncId {
    Const(u32),
    Dyn(Slot),
}

/// Where an instruction came from.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Meta {
    pub span: Span,
    pub name: &'static str,
}

/// How a parameter is bound from the host.
#[derive(Clone, Debug)]
pub(crate) enum ParamKind {
    Ptr(DType),
    /// A `memref<...xT, #pto.address_space<gm>>` argument: bound like a pointer, seen by the
    /// body as a dense row-major view of that shape (`None` = `?`).
    MemRef(DType, Vec<Option<u64>>),
    Scalar(ScalarType),
    Other(String),
}

/// One lowered function.
#[derive(Clone, Debug)]
pub(crate) struct LFunc {
    pub name: String,
    pub span: Span,
    pub params: Vec<(String, Slot, ParamKind, Span)>,
    /// Per parameter: the shapes (`None` = dynamic dimension) of the tensor views the body
    /// makes directly from it.
    pub views: Vec<Vec<Vec<Option<u64>>>>,
    pub has_body: bool,
    pub code: Vec<Inst>,
    pub meta: Vec<Meta>,
    pub template: Vec<Val>,
    /// `pto.kernel_kind`: `Some(true)` vector, `Some(false)` cube, `None` either.
    pub vector_kind: Option<bool>,
}

/// A lowered, verified program: what [`super::Program::run`] executes.
#[derive(Clone, Debug)]
pub struct Program {
    pub(crate) target: TargetArch,
    /// The numeric policy the program was checked under and runs under.
    pub(crate) policy: npusim_core::TilePolicy,
    pub(crate) funcs: Vec<LFunc>,
    pub(crate) entry: Option<usize>,
    /// The functions that could be the entry when [`Program::entry`] is ambiguous.
    pub(crate) entry_candidates: Vec<usize>,
    pub(crate) unsupported: Vec<(Span, &'static str)>,
    /// Per location (index `TileLoc as usize`), the end of the highest byte any tile placed at
    /// lowering occupies: what a block can have written there besides runtime-placed tiles.
    pub(crate) extent: [u64; npusim_core::vocab::TileLoc::COUNT],
    /// The kernel needs its cube and vector cores run together (see [`super::coop`]): it uses
    /// the frontend pipes, or splits its code by core and signals between cores.
    pub(crate) mixed: bool,
}

/// Options of [`lower`].
#[derive(Clone, Copy, Debug, Default)]
pub struct LowerOptions {
    /// Target; overrides the module's `pto.target_arch` (default a2a3).
    pub target: Option<TargetArch>,
    /// Numeric policy (default: the chip's own).
    pub policy: npusim_core::PolicyName,
}

/// The chip profile name of a target.
pub(crate) fn profile_name(t: TargetArch) -> &'static str {
    match t {
        TargetArch::A2A3 => "a2a3",
        TargetArch::A5 => "a5",
    }
}

impl Program {
    /// The lowered instructions of every function, one line each (`@func name: instruction`),
    /// without source positions: two texts that lower to the same program (e.g. an op in its
    /// custom and in its MLIR generic form) give the same listing.
    pub fn listing(&self) -> String {
        let mut out = String::new();
        for f in &self.funcs {
            for (i, inst) in f.code.iter().enumerate() {
                let name = f.meta.get(i).map_or("", |m| m.name);
                out.push_str(&format!("@{} {name}: {inst:?}\n", f.name));
            }
        }
        out
    }
}

/// Lowers a parsed module.
pub fn lower(module: &Module, opts: LowerOptions) -> Result<Program, Vec<Diagnostic>> {
    let target = opts
        .target
        .or(module.target_arch)
        .unwrap_or(TargetArch::A2A3);
    let core = TileCore::by_name(profile_name(target)).ok_or_else(|| {
        vec![Diagnostic::new(
            DiagKind::Structure,
            "no chip profile for this target",
            Span::default(),
        )]
    })?;
    let mut core = core;
    let tile_policy = opts.policy.tile_policy(core.policy());
    core.set_policy(tile_policy);
    let mut lw = Lowerer {
        core,
        target,
        bump: [0; 7],
        extent: [0; npusim_core::vocab::TileLoc::COUNT],
        diags: Vec::new(),
        unsupported: Vec::new(),
        saw_pipe: false,
        saw_split: false,
        saw_core_sync: false,
        plan: HashMap::new(),
    };
    // Automatic placement is per group of functions that can run together: a run starts at
    // one function and reaches only the functions it calls and, in a mixed kernel, the peer
    // functions whose reserved buffers it imports (or that import its own). Each group's
    // tiles start at the bottom of every memory, as PTOAS's planner places each kernel on
    // its own; the tiles of the functions within one group never overlap.
    let group = call_groups(module);
    let mut group_bump: HashMap<usize, [u64; 7]> = HashMap::new();
    let mut funcs = Vec::with_capacity(module.funcs.len());
    for (i, f) in module.funcs.iter().enumerate() {
        lw.bump = group_bump.get(&group[i]).copied().unwrap_or([0; 7]);
        funcs.push(lw.func(module, f));
        group_bump.insert(group[i], lw.bump);
    }
    if !lw.diags.is_empty() {
        return Err(lw.diags);
    }
    Ok(Program {
        target,
        policy: tile_policy,
        funcs,
        entry: module.entry().map(|FuncId(i)| i as usize),
        entry_candidates: module
            .entry_candidates()
            .into_iter()
            .map(|FuncId(i)| i as usize)
            .collect(),
        unsupported: lw.unsupported,
        extent: lw.extent,
        mixed: lw.saw_pipe
            || (lw.saw_core_sync
                && (lw.saw_split || module.funcs.iter().any(|f| f.kernel_kind.is_some()))),
    })
}

/// The group (a representative function index) of each function: functions linked by
/// `func.call` or by `pto.import_reserved_buffer`'s `peer_func`, transitively, in either
/// direction, share a group.
fn call_groups(module: &Module) -> Vec<usize> {
    fn links(b: &Block, module: &Module, out: &mut Vec<usize>) {
        for op in &b.ops {
            match &op.kind {
                OpKind::Call { callee, .. } => out.push(callee.0 as usize),
                OpKind::Opaque {
                    op: OpCode::PtoImportReservedBuffer,
                    attrs,
                    ..
                } => {
                    for (k, a) in attrs {
                        if let (true, ast::Attr::Str(p)) = (k == "peer_func", a) {
                            let p = p.trim_start_matches('@');
                            out.extend(module.funcs.iter().position(|g| g.name == p));
                        }
                    }
                }
                OpKind::For { body, .. } | OpKind::Section { body, .. } => links(body, module, out),
                OpKind::If {
                    then_body,
                    else_body,
                    ..
                } => {
                    links(then_body, module, out);
                    links(else_body, module, out);
                }
                OpKind::While { before, after, .. } => {
                    links(before, module, out);
                    links(after, module, out);
                }
                _ => {}
            }
        }
    }
    fn root(g: &mut [usize], mut x: usize) -> usize {
        while g[x] != x {
            g[x] = g[g[x]];
            x = g[x];
        }
        x
    }
    let n = module.funcs.len();
    let mut g: Vec<usize> = (0..n).collect();
    for (i, f) in module.funcs.iter().enumerate() {
        let mut out = Vec::new();
        if let Some(b) = &f.body {
            links(b, module, &mut out);
        }
        for j in out.into_iter().filter(|&j| j < n) {
            let (a, b) = (root(&mut g, i), root(&mut g, j));
            g[a] = b;
        }
    }
    (0..n).map(|i| root(&mut g, i)).collect()
}

struct Lowerer {
    /// Frontend pipe ops seen (`pto.tpush_*`, `pto.tpop_*`, `pto.tfree_*`, pipe init).
    saw_pipe: bool,
    /// `pto.section.*` seen.
    saw_split: bool,
    /// `pto.sync.set` / `pto.sync.wait` seen.
    saw_core_sync: bool,
    core: TileCore,
    target: TargetArch,
    bump: [u64; 7],
    extent: [u64; npusim_core::vocab::TileLoc::COUNT],
    diags: Vec<Diagnostic>,
    unsupported: Vec<(Span, &'static str)>,
    /// Addresses of the current function's auto-placed tiles when they are placed by
    /// liveness ([`super::plan`]); empty when they are placed one after another.
    plan: HashMap<ast::ValueId, u64>,
}

struct FnCx<'a> {
    f: &'a ast::Func,
    code: Vec<Inst>,
    meta: Vec<Meta>,
    template: Vec<Val>,
    /// Tiles changed by `pto.set_validshape` (never static).
    mutated: Vec<bool>,
    /// Tiles that a `pto.tget_scale_addr` inside a region (`scf.if` / `scf.for` /
    /// `scf.while` / a section) rebinds: their template entry stays the tile as allocated
    /// (the frame's value until the rebinding runs), but no op takes them as static operands;
    /// every op that uses one reads it from the frame when reached.
    rebound: Vec<bool>,
}

impl FnCx<'_> {
    fn emit(&mut self, i: Inst, span: Span, name: &'static str) -> usize {
        self.code.push(i);
        self.meta.push(Meta { span, name });
        self.code.len() - 1
    }
    fn here(&self) -> u32 {
        self.code.len() as u32
    }
    fn patch(&mut self, at: usize, to: u32) {
        match &mut self.code[at] {
            Inst::Jump { target } | Inst::BrFalse { target, .. } => *target = to,
            Inst::ForCheck { exit, .. } => *exit = to,
            _ => {}
        }
    }
    fn scalar_ty(&self, v: ast::ValueId) -> Option<ScalarType> {
        self.f.ty(v).as_scalar()
    }
}

fn slot(v: ast::ValueId) -> Slot {
    v.0
}

fn slots(v: &[ast::ValueId]) -> Box<[Slot]> {
    v.iter().map(|x| x.0).collect()
}

pub(crate) fn tile_desc(t: &ast::TileBufType) -> TileDesc {
    let dtype = t.dtype.elem_type().unwrap_or(npusim_core::ElemType::U8);
    let mut d = TileDesc::new(t.loc, dtype, t.rows as usize, t.cols as usize);
    d.blayout = t.blayout;
    d.slayout = t.slayout;
    d.fractal = t.fractal as usize;
    d.pad = t.pad;
    d
}

/// `cmp` defaults to `equal`.
fn cmp_mode(m: Option<pto::CmpMode>) -> pto::CmpMode {
    m.unwrap_or(pto::CmpMode::Eq)
}

fn int_op(op: OpCode) -> Option<IntOp> {
    Some(match op {
        OpCode::AddI => IntOp::Add,
        OpCode::SubI => IntOp::Sub,
        OpCode::MulI => IntOp::Mul,
        OpCode::DivSI => IntOp::DivS,
        OpCode::DivUI => IntOp::DivU,
        OpCode::RemSI => IntOp::RemS,
        OpCode::RemUI => IntOp::RemU,
        OpCode::CeilDivSI => IntOp::CeilDivS,
        OpCode::CeilDivUI => IntOp::CeilDivU,
        OpCode::FloorDivSI => IntOp::FloorDivS,
        OpCode::MinSI => IntOp::MinS,
        OpCode::MinUI => IntOp::MinU,
        OpCode::MaxSI => IntOp::MaxS,
        OpCode::MaxUI => IntOp::MaxU,
        OpCode::AndI => IntOp::And,
        OpCode::OrI => IntOp::Or,
        OpCode::XOrI => IntOp::Xor,
        OpCode::ShLI => IntOp::Shl,
        OpCode::ShRSI => IntOp::ShrS,
        OpCode::ShRUI => IntOp::ShrU,
        _ => return None,
    })
}

fn float_op(op: OpCode) -> Option<FloatOp> {
    Some(match op {
        OpCode::AddF => FloatOp::Add,
        OpCode::SubF => FloatOp::Sub,
        OpCode::MulF => FloatOp::Mul,
        OpCode::DivF => FloatOp::Div,
        OpCode::RemF => FloatOp::Rem,
        OpCode::MaximumF => FloatOp::Maximum,
        OpCode::MinimumF => FloatOp::Minimum,
        OpCode::MaxNumF => FloatOp::MaxNum,
        OpCode::MinNumF => FloatOp::MinNum,
        _ => return None,
    })
}

fn cast_kind(op: OpCode, from: ScalarType, to: ScalarType) -> Option<CastKind> {
    Some(match op {
        OpCode::IndexCast | OpCode::ExtSI | OpCode::TruncI => CastKind::SExt { from, to },
        OpCode::IndexCastUI | OpCode::ExtUI => CastKind::ZExt { from, to },
        OpCode::SIToFP => CastKind::SIToFP { from, to },
        OpCode::UIToFP => CastKind::UIToFP { from, to },
        OpCode::FPToSI => CastKind::FPToSI { to },
        OpCode::FPToUI => CastKind::FPToUI { to },
        OpCode::ExtF | OpCode::TruncF => CastKind::FToF { to },
        OpCode::Bitcast => CastKind::Bitcast { from, to },
        _ => return None,
    })
}

fn const_val(ty: Option<ScalarType>, v: ConstValue) -> Val {
    use super::scalar::{float_from_bits, round_float, wrap};
    let Some(t) = ty else { return Val::Undef };
    Val::Num(match (v, t.is_float()) {
        (ConstValue::Int(i), false) => Num::Int(wrap(t, i)),
        (ConstValue::Int(i), true) => Num::Float(round_float(t, i as f64)),
        (ConstValue::Float(f), true) => Num::Float(round_float(t, f)),
        (ConstValue::Float(f), false) => Num::Int(wrap(t, f as i64)),
        (ConstValue::FloatBits(b), true) => Num::Float(float_from_bits(t, b)),
        (ConstValue::FloatBits(b), false) => Num::Int(wrap(t, b as i64)),
    })
}

/// Calls `visit` on every op of `b`, nested regions included.
fn walk_ops(b: &Block, visit: &mut dyn FnMut(&ast::Op)) {
    for op in &b.ops {
        visit(op);
        match &op.kind {
            OpKind::For { body, .. } | OpKind::Section { body, .. } => walk_ops(body, visit),
            OpKind::If {
                then_body,
                else_body,
                ..
            } => {
                walk_ops(then_body, visit);
                walk_ops(else_body, visit);
            }
            OpKind::While { before, after, .. } => {
                walk_ops(before, visit);
                walk_ops(after, visit);
            }
            _ => {}
        }
    }
}

/// The shapes of the row-major (`nd`) tensor views made directly from each parameter of `f`.
fn param_views(f: &ast::Func) -> Vec<Vec<Vec<Option<u64>>>> {
    let mut views = vec![Vec::new(); f.params.len()];
    for (k, p) in f.params.iter().enumerate() {
        if let Type::GmMemRef(m) = &f.value(*p).ty {
            views[k].push(m.shape.iter().map(|d| d.as_static()).collect());
        }
    }
    if let Some(body) = &f.body {
        walk_ops(body, &mut |op| {
            if let OpKind::MakeTensorView {
                result,
                ptr,
                layout,
                ..
            } = &op.kind
                && matches!(layout, None | Some(GmLayout::Nd))
                && let Some(k) = f.params.iter().position(|p| p == ptr)
                && let Type::TensorView(vt) = &f.value(*result).ty
            {
                views[k].push(vt.shape.iter().map(|d| d.as_static()).collect());
            }
        });
    }
    views
}

/// Marks the destination of every `pto.tget_scale_addr` that is not in the function's own
/// block (`nested`): whether and how often it runs is decided at run time, so the ops lowered
/// after it cannot take the rebound tile as a constant, nor those lowered before it (a loop
/// runs them again after the rebinding) the tile as allocated.
fn mark_rebound(b: &Block, m: &mut [bool], nested: bool) {
    for op in &b.ops {
        match &op.kind {
            OpKind::Opaque {
                op: OpCode::PtoTgetScaleAddr,
                operands,
                ..
            } if nested && operands.len() == 2 => {
                if let Some(x) = m.get_mut(operands[1].index()) {
                    *x = true;
                }
            }
            OpKind::For { body, .. } | OpKind::Section { body, .. } => mark_rebound(body, m, true),
            OpKind::If {
                then_body,
                else_body,
                ..
            } => {
                mark_rebound(then_body, m, true);
                mark_rebound(else_body, m, true);
            }
            OpKind::While { before, after, .. } => {
                mark_rebound(before, m, true);
                mark_rebound(after, m, true);
            }
            _ => {}
        }
    }
}

fn mark_mutated(b: &Block, m: &mut [bool]) {
    for op in &b.ops {
        match &op.kind {
            OpKind::SetValidShape { tile, .. } => {
                if let Some(x) = m.get_mut(tile.index()) {
                    *x = true;
                }
            }
            OpKind::For { body, .. } | OpKind::Section { body, .. } => mark_mutated(body, m),
            OpKind::If {
                then_body,
                else_body,
                ..
            } => {
                mark_mutated(then_body, m);
                mark_mutated(else_body, m);
            }
            OpKind::While { before, after, .. } => {
                mark_mutated(before, m);
                mark_mutated(after, m);
            }
            _ => {}
        }
    }
}

impl Lowerer {
    fn func(&mut self, module: &Module, f: &ast::Func) -> LFunc {
        let params = f
            .params
            .iter()
            .map(|&p| {
                let info = f.value(p);
                let kind = match &info.ty {
                    Type::Ptr(pt) => ParamKind::Ptr(pt.elem),
                    Type::GmMemRef(m) => {
                        ParamKind::MemRef(m.elem, m.shape.iter().map(|d| d.as_static()).collect())
                    }
                    Type::Scalar(s) => ParamKind::Scalar(*s),
                    other => ParamKind::Other(other.to_string()),
                };
                (info.name.clone(), slot(p), kind, info.span)
            })
            .collect();
        let mut cx = FnCx {
            f,
            code: Vec::new(),
            meta: Vec::new(),
            template: vec![Val::Undef; f.values.len()],
            mutated: vec![false; f.values.len()],
            rebound: vec![false; f.values.len()],
        };
        let planned = super::plan::plan(f, self.target, self.bump);
        if let Some((addrs, used)) = planned {
            self.plan = addrs;
            self.bump = used;
        }
        if let Some(body) = &f.body {
            mark_mutated(body, &mut cx.mutated);
            mark_rebound(body, &mut cx.rebound, false);
            self.block(module, &mut cx, body, &[]);
            // A body always ends in `return`; guard against falling off the end anyway.
            cx.emit(
                Inst::Ret {
                    values: Box::new([]),
                },
                f.span,
                "return",
            );
        }
        self.plan.clear();
        LFunc {
            name: f.name.clone(),
            span: f.span,
            params,
            views: param_views(f),
            has_body: f.body.is_some(),
            code: cx.code,
            meta: cx.meta,
            template: cx.template,
            vector_kind: match f.kernel_kind.as_deref() {
                Some("vector") => Some(true),
                Some("cube") => Some(false),
                _ => None,
            },
        }
    }

    /// TSORT32, TMRGSORT, TGATHER, TGATHERB, TSCATTER as PTOAS prints them (parsed in the
    /// generic form so that PTOAS's verifier rules on them apply): the tile operands are the
    /// `ins` then the destination, in source order (`npusim-pto` `ops::sort`, `ops::gather`).
    fn sort_gather(
        &mut self,
        cx: &mut FnCx,
        span: Span,
        code: OpCode,
        operands: &[ast::ValueId],
        attrs: &[(String, ast::Attr)],
    ) {
        let name = code.name();
        let Some(pop) = pto::OpCode::by_mlir(name) else {
            return self.err(span, format!("`{name}`: no tile instruction"), "here");
        };
        let tiles: Vec<Slot> = operands
            .iter()
            .filter(|v| cx.f.ty(**v).as_tile().is_some())
            .map(|v| slot(*v))
            .collect();
        let scalars: Vec<Slot> = operands
            .iter()
            .filter(|v| cx.f.ty(**v).as_scalar().is_some())
            .map(|v| slot(*v))
            .collect();
        let attr = |k: &str| attrs.iter().find(|(n, _)| n == k).map(|(_, a)| a);
        let n = tiles.len();
        let args = match (code, n) {
            (OpCode::PtoTsort32 | OpCode::PtoTgather, 3 | 4)
            | (OpCode::PtoTgatherb | OpCode::PtoTscatter, 3)
                if code != OpCode::PtoTgather || scalars.is_empty() =>
            {
                Args::Indexed {
                    dst: tiles[n - 1],
                    src: tiles[0],
                    idx: tiles[1],
                    tmp: (n == 4).then(|| tiles[2]),
                }
            }
            (OpCode::PtoTgather, 2) => {
                let pattern = attr("maskPattern").and_then(|a| match a {
                    ast::Attr::Opaque { body, .. } => pto::ops::gather::MaskPattern::parse(body),
                    ast::Attr::Keyword(k) | ast::Attr::Str(k) => {
                        pto::ops::gather::MaskPattern::parse(k)
                    }
                    _ => None,
                });
                let Some(pattern) = pattern else {
                    return self.err(
                        span,
                        "[tgather-mask-pattern] the mask form of `pto.tgather` needs `maskPattern = #pto.mask_pattern<P0101|P1010|P0001|P0010|P0100|P1000|P1111>`",
                        "here",
                    );
                };
                Args::GatherMask {
                    dst: tiles[1],
                    src: tiles[0],
                    pattern,
                }
            }
            // PTO-AS takes the uint16 form: `isMSB` (default true) picks byte 1, else byte 0.
            (OpCode::PtoThistogram, 3) => Args::Histogram {
                dst: tiles[2],
                src: tiles[0],
                idx: tiles[1],
                byte: u8::from(!matches!(attr("isMSB"), Some(ast::Attr::Bool(false)))),
            },
            (OpCode::PtoTdequant, 4) => Args::Ternary {
                dst: tiles[3],
                src0: tiles[0],
                src1: tiles[1],
                src2: tiles[2],
            },
            (OpCode::PtoTquant, 3 | 4) => {
                use pto::ops::quant::QuantKind;
                let kind = match attr("quant_type") {
                    Some(ast::Attr::Opaque { body, .. }) => match body.split_whitespace().last() {
                        Some("INT8_SYM") => Some(QuantKind::Int8Sym),
                        Some("INT8_ASYM") => Some(QuantKind::Int8Asym),
                        _ => None,
                    },
                    _ => None,
                };
                let Some(kind) = kind else {
                    return self.err(
                        span,
                        "[tquant-type] `pto.tquant` needs `quant_type = #pto<quant_type INT8_SYM>` or `#pto<quant_type INT8_ASYM>` (the MX forms are not modelled)",
                        "here",
                    );
                };
                Args::Quant {
                    dst: tiles[n - 1],
                    src: tiles[0],
                    scale: tiles[1],
                    offset: (n == 4).then(|| tiles[2]),
                    kind,
                }
            }
            (OpCode::PtoTmrgsort, 2) if scalars.len() == 1 => Args::MergeBlocks {
                dst: tiles[1],
                src: tiles[0],
                block_len: scalars[0],
            },
            (OpCode::PtoTmrgsort, 4..=6) => Args::MergeLists {
                dst: tiles[n - 1],
                tmp: tiles[n - 2],
                src0: tiles[0],
                src1: tiles[1],
                src2: (n >= 5).then(|| tiles[2]),
                src3: (n == 6).then(|| tiles[3]),
                exhausted: matches!(
                    attr("exhausted"),
                    Some(ast::Attr::Bool(true) | ast::Attr::Int(1))
                ),
            },
            _ => {
                let what = "this operand form of the op is not supported yet by the interpreter";
                self.unsupported.push((span, what));
                cx.emit(Inst::Unsupported { what }, span, name);
                return;
            }
        };
        self.emit_tile(cx, span, pop, args, name);
    }

    /// `pto.trandom ins(%k0, %k1, %c0, %c1, %c2, %c3 {rounds = 7 : i32} : ...) outs(%dst)` (PTOAS
    /// `TRandomOp`: six integer words, the `rounds` attribute defaulting to 10) lowered to
    /// `npusim-pto`'s TRANDOM (`ops::random`, the A5 hardware element order).
    fn trandom(
        &mut self,
        cx: &mut FnCx,
        span: Span,
        operands: &[ast::ValueId],
        attrs: &[(String, ast::Attr)],
    ) {
        let name = "pto.trandom";
        let tiles: Vec<Slot> = operands
            .iter()
            .filter(|v| cx.f.ty(**v).as_tile().is_some())
            .map(|v| slot(*v))
            .collect();
        let scalars: Vec<Slot> = operands
            .iter()
            .filter(|v| cx.f.ty(**v).as_scalar().is_some())
            .map(|v| slot(*v))
            .collect();
        if tiles.len() != 1 || scalars.len() != 6 {
            return self.err(
                span,
                "[trandom-operands] `pto.trandom` takes six integer words (key0, key1, counter0..counter3) in `ins` and one tile in `outs`",
                "here",
            );
        }
        let rounds = match attrs.iter().find(|(n, _)| n == "rounds").map(|(_, a)| a) {
            None => 10,
            Some(ast::Attr::Int(v)) if u32::try_from(*v).is_ok() => *v as u32,
            Some(other) => {
                return self.err(
                    span,
                    format!(
                        "[trandom-rounds] `rounds` must be an integer (7 or 10), not {other:?}"
                    ),
                    "here",
                );
            }
        };
        let args = Args::Random {
            dst: tiles[0],
            key0: scalars[0],
            key1: scalars[1],
            counter0: scalars[2],
            counter1: scalars[3],
            counter2: scalars[4],
            counter3: scalars[5],
            rounds,
        };
        self.emit_tile(cx, span, pto::OpCode::Trandom, args, name);
    }

    /// `pto.reserve_buffer`: the base of `size` bytes in `location`, placed after the tiles
    /// placed so far when `auto = true`, else at `base` (PTO IR manual 4.18).
    fn reserve_buffer(&mut self, span: Span, attrs: &[(String, ast::Attr)]) -> Option<u64> {
        let get = |k: &str| attrs.iter().find(|(n, _)| n == k).map(|(_, a)| a);
        let size = match get("size") {
            Some(ast::Attr::Int(v)) if *v > 0 => *v as u64,
            _ => {
                self.err(
                    span,
                    "[reserve-buffer] `size` must be a positive integer",
                    "here",
                );
                return None;
            }
        };
        let loc = match get("location") {
            Some(ast::Attr::Opaque { body, .. }) => ast::Loc::from_name(body.trim()),
            Some(ast::Attr::Keyword(k)) => ast::Loc::from_name(k),
            _ => None,
        };
        let Some(loc) = loc else {
            self.err(
                span,
                "[reserve-buffer] `location` must be an on-chip address space",
                "here",
            );
            return None;
        };
        let auto = matches!(get("auto"), Some(ast::Attr::Bool(true)));
        let base = match (auto, get("base")) {
            (true, None) => {
                let li = loc as usize;
                self.bump[li].div_ceil(pto::TILE_ALIGN) * pto::TILE_ALIGN
            }
            (false, Some(ast::Attr::Int(b))) if *b >= 0 => *b as u64,
            (true, Some(_)) => {
                self.err(
                    span,
                    "[reserve-buffer] `auto = true` must not give `base`",
                    "here",
                );
                return None;
            }
            _ => {
                self.err(
                    span,
                    "[reserve-buffer] `auto = false` must give a non-negative `base`",
                    "here",
                );
                return None;
            }
        };
        let cap = loc.capacity(self.target);
        if base.saturating_add(size) > cap {
            self.diags.push(
                Diagnostic::new(
                    DiagKind::TileDoesNotFit,
                    format!(
                        "reserved buffer of {size} bytes at {base} does not fit in `{}` ({cap} bytes)",
                        loc.name()
                    ),
                    span,
                )
                .with_label("this reserve_buffer"),
            );
            return None;
        }
        let li = loc as usize;
        self.bump[li] = self.bump[li].max(base + size);
        self.extent[li] = self.extent[li].max(base + size);
        Some(base)
    }

    fn err(&mut self, span: Span, msg: impl Into<String>, label: &str) {
        self.diags
            .push(Diagnostic::new(DiagKind::Structure, msg, span).with_label(label));
    }

    /// Lowers a block; its `scf.yield` copies into `yield_to`.
    fn block(&mut self, module: &Module, cx: &mut FnCx, b: &Block, yield_to: &[Slot]) {
        for op in &b.ops {
            self.op(module, cx, op, yield_to);
        }
    }

    fn op(&mut self, module: &Module, cx: &mut FnCx, op: &ast::Op, yield_to: &[Slot]) {
        let span = op.span;
        match &op.kind {
            OpKind::Constant { result, value } => {
                let ty = cx.scalar_ty(*result);
                cx.template[result.index()] = const_val(ty, *value);
            }
            OpKind::Binary {
                op: code,
                result,
                lhs,
                rhs,
            } => {
                let Some(ty) = cx.scalar_ty(*result) else {
                    return self.err(span, "binary op on a non-scalar", "here");
                };
                let (dst, a, b) = (slot(*result), slot(*lhs), slot(*rhs));
                let inst = if let Some(iop) = int_op(*code).filter(|_| !ty.is_float()) {
                    Inst::IntBin {
                        op: iop,
                        ty,
                        dst,
                        a,
                        b,
                    }
                } else if let Some(fop) = float_op(*code).filter(|_| ty.is_float()) {
                    Inst::FloatBin {
                        op: fop,
                        ty,
                        dst,
                        a,
                        b,
                    }
                } else {
                    return self.err(span, format!("`{}` on {}", code.name(), ty.name()), "here");
                };
                cx.emit(inst, span, code.name());
            }
            OpKind::Unary {
                op: code,
                result,
                operand,
            } => {
                cx.emit(
                    Inst::NegF {
                        dst: slot(*result),
                        a: slot(*operand),
                    },
                    span,
                    code.name(),
                );
            }
            OpKind::Cast {
                op: code,
                result,
                operand,
            } => {
                let (Some(from), Some(to)) = (cx.scalar_ty(*operand), cx.scalar_ty(*result)) else {
                    return self.err(span, "cast of a non-scalar", "here");
                };
                let Some(kind) = cast_kind(*code, from, to) else {
                    return self.err(span, format!("unknown cast `{}`", code.name()), "here");
                };
                cx.emit(
                    Inst::Cast {
                        kind,
                        dst: slot(*result),
                        a: slot(*operand),
                    },
                    span,
                    code.name(),
                );
            }
            OpKind::CmpI {
                pred,
                result,
                lhs,
                rhs,
            } => {
                let ty = cx.scalar_ty(*lhs).unwrap_or(ScalarType::Index);
                cx.emit(
                    Inst::CmpI {
                        pred: *pred,
                        ty,
                        dst: slot(*result),
                        a: slot(*lhs),
                        b: slot(*rhs),
                    },
                    span,
                    "arith.cmpi",
                );
            }
            OpKind::CmpF {
                pred,
                result,
                lhs,
                rhs,
            } => {
                cx.emit(
                    Inst::CmpF {
                        pred: *pred,
                        dst: slot(*result),
                        a: slot(*lhs),
                        b: slot(*rhs),
                    },
                    span,
                    "arith.cmpf",
                );
            }
            OpKind::Select {
                result,
                cond,
                on_true,
                on_false,
            } => {
                cx.emit(
                    Inst::Select {
                        dst: slot(*result),
                        c: slot(*cond),
                        t: slot(*on_true),
                        f: slot(*on_false),
                    },
                    span,
                    "arith.select",
                );
            }
            OpKind::For {
                results,
                lower,
                upper,
                step,
                inits,
                body,
            } => {
                let Some((&iv, iters)) = body.args.split_first() else {
                    return self.err(span, "scf.for body without an induction variable", "here");
                };
                let ty = cx.scalar_ty(iv).unwrap_or(ScalarType::Index);
                let iters = slots(iters);
                let mut dsts = vec![slot(iv)];
                dsts.extend(iters.iter().copied());
                let mut srcs = vec![slot(*lower)];
                srcs.extend(inits.iter().map(|v| v.0));
                cx.emit(
                    Inst::Copy {
                        dsts: dsts.into(),
                        srcs: srcs.into(),
                    },
                    span,
                    "scf.for",
                );
                let head = cx.here();
                let check = cx.emit(
                    Inst::ForCheck {
                        iv: slot(iv),
                        upper: slot(*upper),
                        step: slot(*step),
                        exit: 0,
                    },
                    span,
                    "scf.for",
                );
                self.block(module, cx, body, &iters);
                let step_at = cx.emit(
                    Inst::ForStep {
                        iv: slot(iv),
                        step: slot(*step),
                        upper: slot(*upper),
                        ty,
                        body: head + 1,
                        exit: 0,
                    },
                    span,
                    "scf.for",
                );
                let exit = cx.here();
                cx.patch(check, exit);
                if let Inst::ForStep { exit: e, .. } = &mut cx.code[step_at] {
                    *e = exit;
                }
                cx.emit(
                    Inst::Copy {
                        dsts: slots(results),
                        srcs: iters,
                    },
                    span,
                    "scf.for",
                );
            }
            OpKind::If {
                results,
                cond,
                then_body,
                else_body,
            } => {
                let res = slots(results);
                let br = cx.emit(
                    Inst::BrFalse {
                        cond: slot(*cond),
                        target: 0,
                    },
                    span,
                    "scf.if",
                );
                self.block(module, cx, then_body, &res);
                let jmp = cx.emit(Inst::Jump { target: 0 }, span, "scf.if");
                let else_at = cx.here();
                cx.patch(br, else_at);
                self.block(module, cx, else_body, &res);
                let end = cx.here();
                cx.patch(jmp, end);
            }
            OpKind::While {
                results,
                inits,
                before,
                after,
            } => {
                cx.emit(
                    Inst::Copy {
                        dsts: slots(&before.args),
                        srcs: slots(inits),
                    },
                    span,
                    "scf.while",
                );
                let head = cx.here();
                let mut exit_jump = None;
                for bop in &before.ops {
                    if let OpKind::Condition { cond, values } = &bop.kind {
                        // On false: forward to the results and leave; on true: to `after`.
                        let br = cx.emit(
                            Inst::BrFalse {
                                cond: slot(*cond),
                                target: 0,
                            },
                            bop.span,
                            "scf.condition",
                        );
                        cx.emit(
                            Inst::Copy {
                                dsts: slots(&after.args),
                                srcs: slots(values),
                            },
                            bop.span,
                            "scf.condition",
                        );
                        self.block(module, cx, after, &slots(&before.args));
                        cx.emit(Inst::LoopBack { target: head }, span, "scf.while");
                        let out = cx.here();
                        cx.patch(br, out);
                        cx.emit(
                            Inst::Copy {
                                dsts: slots(results),
                                srcs: slots(values),
                            },
                            bop.span,
                            "scf.condition",
                        );
                        exit_jump = Some(());
                        break;
                    }
                    self.op(module, cx, bop, &[]);
                }
                if exit_jump.is_none() {
                    self.err(span, "scf.while without scf.condition", "here");
                }
            }
            OpKind::Yield { values } => {
                if !values.is_empty() || !yield_to.is_empty() {
                    cx.emit(
                        Inst::Copy {
                            dsts: yield_to.into(),
                            srcs: slots(values),
                        },
                        span,
                        "scf.yield",
                    );
                }
            }
            OpKind::Condition { .. } => {
                self.err(
                    span,
                    "scf.condition outside the condition region of scf.while",
                    "here",
                );
            }
            OpKind::Return { values } => {
                cx.emit(
                    Inst::Ret {
                        values: slots(values),
                    },
                    span,
                    "return",
                );
            }
            OpKind::Call {
                callee,
                args,
                results,
            } => {
                if module
                    .funcs
                    .get(callee.0 as usize)
                    .is_none_or(|c| c.body.is_none())
                {
                    self.unsupported.push((span, "calls to external functions"));
                    cx.emit(
                        Inst::Unsupported {
                            what: "calling a function without a body",
                        },
                        span,
                        "func.call",
                    );
                    return;
                }
                cx.emit(
                    Inst::Call {
                        callee: callee.0,
                        args: slots(args),
                        results: slots(results),
                    },
                    span,
                    "func.call",
                );
            }
            OpKind::MakeTensorView {
                result,
                ptr,
                shape,
                strides,
                layout,
            } => {
                if shape.is_empty() || shape.len() > 5 || shape.len() != strides.len() {
                    return self.err(
                        span,
                        "tensor views have 1 to 5 dimensions, one stride each",
                        "here",
                    );
                }
                cx.emit(
                    Inst::MakeView {
                        dst: slot(*result),
                        ptr: slot(*ptr),
                        shape: slots(shape),
                        strides: slots(strides),
                        layout: layout.unwrap_or(GmLayout::Nd),
                    },
                    span,
                    "pto.make_tensor_view",
                );
            }
            OpKind::PartitionView {
                result,
                source,
                offsets,
                sizes,
            } => {
                cx.emit(
                    Inst::Partition {
                        dst: slot(*result),
                        src: slot(*source),
                        offsets: slots(offsets),
                        sizes: slots(sizes),
                    },
                    span,
                    "pto.partition_view",
                );
            }
            OpKind::AllocTile {
                result,
                addr,
                valid_row,
                valid_col,
            } => self.alloc_tile(cx, span, *result, *addr, *valid_row, *valid_col),
            OpKind::SetValidShape {
                tile,
                valid_row,
                valid_col,
            } => {
                cx.emit(
                    Inst::SetValid {
                        tile: slot(*tile),
                        rows: slot(*valid_row),
                        cols: slot(*valid_col),
                    },
                    span,
                    "pto.set_validshape",
                );
            }
            OpKind::Tile {
                op: code,
                ins,
                outs,
                attrs,
            } => self.tile_op(cx, span, *code, ins, outs, attrs),
            OpKind::Runtime { query, result } => {
                let name = match query {
                    RuntimeQuery::BlockIdx => "pto.get_block_idx",
                    RuntimeQuery::BlockNum => "pto.get_block_num",
                    RuntimeQuery::SubblockIdx => "pto.get_subblock_idx",
                    RuntimeQuery::SubblockNum => "pto.get_subblock_num",
                };
                cx.emit(
                    Inst::Runtime {
                        q: *query,
                        dst: slot(*result),
                    },
                    span,
                    name,
                );
            }
            OpKind::Section { vector, body } => {
                self.saw_split = true;
                let name = if *vector {
                    "pto.section.vector"
                } else {
                    "pto.section.cube"
                };
                let at = cx.emit(
                    Inst::Section {
                        vector: *vector,
                        end: 0,
                    },
                    span,
                    name,
                );
                self.block(module, cx, body, yield_to);
                let end = cx.here();
                if let Some(Inst::Section { end: e, .. }) = cx.code.get_mut(at) {
                    *e = end;
                }
            }
            OpKind::Sync(s) if matches!(s.op, OpCode::SyncSet | OpCode::SyncWait) => {
                self.saw_core_sync = true;
                let id = s.args.get(1).map(String::as_str).unwrap_or("");
                let id = match id
                    .trim_start_matches("EVENT_ID")
                    .parse::<u32>()
                    .ok()
                    .filter(|&i| (i as usize) < super::coop::FLAG_IDS)
                {
                    Some(i) => CoreSyncId::Const(i),
                    None => match cx
                        .f
                        .values
                        .iter()
                        .position(|v| v.name == id.trim_start_matches('%'))
                    {
                        Some(i) => CoreSyncId::Dyn(i as Slot),
                        None => {
                            return self.err(
                                span,
                                format!(
                                    "[core-sync-id] `{}`: event id `{id}` is not 0..{}",
                                    s.op.name(),
                                    super::coop::FLAG_IDS - 1
                                ),
                                "this event id",
                            );
                        }
                    },
                };
                cx.emit(
                    Inst::CoreSync {
                        set: s.op == OpCode::SyncSet,
                        id,
                    },
                    span,
                    s.op.name(),
                );
            }
            OpKind::Sync(s) => {
                cx.emit(Inst::Nop, span, s.op.name());
            }
            OpKind::Opaque {
                op: OpCode::PtoAddptr,
                operands,
                results,
                ..
            } if operands.len() == 2 && results.len() == 1 => {
                cx.emit(
                    Inst::AddPtr {
                        dst: slot(results[0]),
                        ptr: slot(operands[0]),
                        offset: slot(operands[1]),
                    },
                    span,
                    "pto.addptr",
                );
            }
            OpKind::Opaque {
                op: code @ (OpCode::PtoTreshape | OpCode::PtoBitcast),
                operands,
                results,
                ..
            } if operands.len() == 1
                && results.len() == 1
                && cx.f.ty(operands[0]).as_tile().is_some()
                && cx.f.ty(results[0]).as_tile().is_some() =>
            {
                let Some(tt) = cx.f.ty(results[0]).as_tile().copied() else {
                    return;
                };
                let mut desc = tile_desc(&tt);
                desc.valid_row = tt.valid_row.as_static().unwrap_or(tt.rows) as usize;
                desc.valid_col = tt.valid_col.as_static().unwrap_or(tt.cols) as usize;
                cx.emit(
                    Inst::Reinterpret {
                        dst: slot(results[0]),
                        src: slot(operands[0]),
                        desc,
                        reshape: *code == OpCode::PtoTreshape,
                    },
                    span,
                    code.name(),
                );
            }
            OpKind::Opaque {
                op: OpCode::PtoTrap,
                ..
            } => {
                cx.emit(Inst::Trap, span, "pto.trap");
            }
            OpKind::Opaque {
                op: OpCode::PtoBuildAsyncSession,
                operands,
                results,
                ..
            } if operands.len() == 2 && results.len() == 1 => {
                cx.emit(
                    Inst::AsyncSession {
                        dst: slot(results[0]),
                        scratch: slot(operands[0]),
                    },
                    span,
                    "pto.build_async_session",
                );
            }
            OpKind::Opaque {
                op: code @ (OpCode::PtoTputAsync | OpCode::PtoTgetAsync),
                operands,
                results,
                ..
            } if operands.len() == 3 && results.len() == 1 => {
                cx.emit(
                    Inst::AsyncCopy {
                        dst: slot(operands[0]),
                        src: slot(operands[1]),
                        session: slot(operands[2]),
                        event: slot(results[0]),
                        name: code.name(),
                    },
                    span,
                    code.name(),
                );
            }
            OpKind::Opaque {
                op: code @ (OpCode::PtoWaitAsyncEvent | OpCode::PtoTestAsyncEvent),
                operands,
                results,
                ..
            } if operands.len() == 2 && results.len() == 1 => {
                cx.emit(
                    Inst::AsyncDone {
                        dst: slot(results[0]),
                        event: slot(operands[0]),
                        session: slot(operands[1]),
                    },
                    span,
                    code.name(),
                );
            }
            OpKind::Opaque {
                op: OpCode::PtoPrint,
                operands,
                attrs,
                ..
            } => {
                // PTOAS prints `printf("%f", x)` when the format is empty.
                let fmt = attrs
                    .iter()
                    .find_map(|(k, a)| match a {
                        ast::Attr::Str(f) if k == "format" => Some(f.as_str()),
                        _ => None,
                    })
                    .filter(|f| !f.is_empty())
                    .unwrap_or("%f");
                let [v] = operands.as_slice() else {
                    return self.err(
                        span,
                        format!(
                            "[print-operands] `pto.print` takes one scalar, got {} operands",
                            operands.len()
                        ),
                        "here",
                    );
                };
                let Some(ty) = cx.scalar_ty(*v) else {
                    return self.err(
                        span,
                        "[print-operands] `pto.print` prints a scalar (index, integer or float)",
                        "this operand is not a scalar",
                    );
                };
                let want = if ty.is_float() {
                    npusim_core::cfmt::ArgKind::Float
                } else {
                    npusim_core::cfmt::ArgKind::Int
                };
                match npusim_core::cfmt::arg_kinds(fmt) {
                    Err(e) => {
                        return self.err(
                            span,
                            format!("[print-format] `pto.print`: {e}"),
                            "this format",
                        );
                    }
                    Ok(k) if k != [want] => {
                        return self.err(
                            span,
                            format!(
                                "[print-format] `pto.print`: the format `{fmt}` takes {} argument(s) of kinds {k:?}, the operand is one {}",
                                k.len(),
                                ty.name()
                            ),
                            "use one conversion of the operand's kind (%d/%u/%x for integers, %f/%e/%g for floats)",
                        );
                    }
                    Ok(_) => {}
                }
                cx.emit(
                    Inst::PrintScalar {
                        fmt: fmt.into(),
                        val: slot(*v),
                    },
                    span,
                    "pto.print",
                );
            }
            OpKind::Opaque {
                op: code @ (OpCode::PtoTgetval | OpCode::PtoTsetval),
                operands,
                results,
                ..
            } => {
                let write = *code == OpCode::PtoTsetval;
                // getval: (tile, offset) -> value; setval: (offset, value, tile).
                let parts = match (write, operands.as_slice(), results.as_slice()) {
                    (false, [t, o], [v]) | (true, [o, v, t], []) => Some((*t, *o, *v)),
                    _ => None,
                };
                let Some((tile, offset, value)) = parts else {
                    return self.err(
                        span,
                        format!("`{}`: wrong number of operands", code.name()),
                        "here",
                    );
                };
                let (Some(tt), Some(ty)) = (cx.f.ty(tile).as_tile().copied(), cx.scalar_ty(value))
                else {
                    return self.err(
                        span,
                        format!("`{}`: needs a tile and a scalar value", code.name()),
                        "here",
                    );
                };
                let elem = tile_desc(&tt).dtype;
                if u64::from(scalar::bits(ty).div_ceil(8)) != elem.size() as u64
                    || ty.is_float() != elem.is_float()
                {
                    return self.err(
                        span,
                        format!(
                            "[tile-scalar-type] `{}`: the value is {} but the tile holds {elem}",
                            code.name(),
                            ty.name()
                        ),
                        "the value's type must be the tile's element type",
                    );
                }
                cx.emit(
                    Inst::TileScalar {
                        tile: slot(tile),
                        offset: slot(offset),
                        val: slot(value),
                        ty,
                        write,
                    },
                    span,
                    code.name(),
                );
            }
            OpKind::Opaque {
                op: OpCode::PtoSubset,
                operands,
                results,
                attrs,
            } if operands.len() == 3 && results.len() == 1 => {
                let sizes = attrs.iter().find_map(|(k, a)| match a {
                    ast::Attr::Array(v) if k == "sizes" => Some(v),
                    _ => None,
                });
                let dims: Option<Vec<usize>> = sizes.map(|v| {
                    v.iter()
                        .filter_map(|a| match a {
                            ast::Attr::Int(n) => usize::try_from(*n).ok(),
                            _ => None,
                        })
                        .collect()
                });
                let Some([rows, cols]) =
                    dims.as_deref().and_then(|d| <[usize; 2]>::try_from(d).ok())
                else {
                    return self.err(
                        span,
                        format!(
                            "[subset-sizes] `pto.subset` needs `sizes [rows, cols]` with two non-negative integers (got {:?})",
                            sizes
                        ),
                        "this subset",
                    );
                };
                if let Some(tt) = cx.f.ty(results[0]).as_tile()
                    && (tt.rows as usize, tt.cols as usize) != (rows, cols)
                {
                    return self.err(
                        span,
                        format!(
                            "[subset-sizes] `pto.subset`: the result is used as a {}x{} tile but `sizes` says {rows}x{cols}",
                            tt.rows, tt.cols
                        ),
                        "this subset",
                    );
                }
                cx.emit(
                    Inst::Subset {
                        dst: slot(results[0]),
                        src: slot(operands[0]),
                        row: slot(operands[1]),
                        col: slot(operands[2]),
                        rows,
                        cols,
                    },
                    span,
                    "pto.subset",
                );
            }
            OpKind::Opaque {
                op: code @ (OpCode::PtoReserveBuffer | OpCode::PtoImportReservedBuffer),
                results,
                attrs,
                ..
            } if results.len() == 1 => {
                let base = if *code == OpCode::PtoImportReservedBuffer {
                    // The producer never addresses the consumer's buffer here: tiles move
                    // through the simulator's FIFO (see `coop`).
                    0
                } else {
                    match self.reserve_buffer(span, attrs) {
                        Some(b) => b,
                        None => return,
                    }
                };
                cx.template[results[0].index()] = Val::Num(Num::Int(base as i64));
            }
            OpKind::Opaque {
                op: code @ (OpCode::PtoAicInitializePipe | OpCode::PtoAivInitializePipe),
                operands,
                attrs,
                ..
            } if operands.len() >= 2 => {
                self.saw_pipe = true;
                let int_attr = |k: &str| {
                    attrs.iter().find_map(|(n, a)| match a {
                        ast::Attr::Int(v) if n == k => Some(*v),
                        _ => None,
                    })
                };
                let dir_mask = int_attr("dir_mask").unwrap_or(0);
                let slot_size = int_attr("slot_size").unwrap_or(0);
                if !(1..=3).contains(&dir_mask) || slot_size <= 0 {
                    return self.err(
                        span,
                        format!(
                            "[pipe-init] `{}`: dir_mask must be 1, 2 or 3 and slot_size positive (got dir_mask = {dir_mask}, slot_size = {slot_size})",
                            code.name()
                        ),
                        "this pipe",
                    );
                }
                let n = operands.len();
                cx.emit(
                    Inst::PipeInit {
                        dir_mask: dir_mask as u32,
                        slot_size: slot_size as u64,
                        c2v_buf: slot(operands[n - 2]),
                        v2c_buf: slot(operands[n - 1]),
                    },
                    span,
                    code.name(),
                );
            }
            OpKind::Opaque {
                op:
                    code @ (OpCode::PtoTpushToAiv
                    | OpCode::PtoTpushToAic
                    | OpCode::PtoTpopFromAic
                    | OpCode::PtoTpopFromAiv
                    | OpCode::PtoTfreeFromAic
                    | OpCode::PtoTfreeFromAiv),
                operands,
                results,
                attrs,
            } => {
                self.saw_pipe = true;
                let split = attrs.iter().find_map(|(n, a)| match a {
                    ast::Attr::Int(v) if n == "split" => Some(*v),
                    _ => None,
                });
                let split = match split {
                    Some(v @ 0..=2) => v as u8,
                    None => 0,
                    Some(v) => {
                        return self.err(
                            span,
                            format!(
                                "[pipe-split] `{}`: split must be 0, 1 or 2 (got {v})",
                                code.name()
                            ),
                            "this split",
                        );
                    }
                };
                let inst = match code {
                    OpCode::PtoTpushToAiv | OpCode::PtoTpushToAic => {
                        let Some(&t) = operands
                            .first()
                            .filter(|t| cx.f.ty(**t).as_tile().is_some())
                        else {
                            return self.err(
                                span,
                                format!("`{}` needs one tile operand", code.name()),
                                "here",
                            );
                        };
                        Inst::PipePush {
                            to_vector: *code == OpCode::PtoTpushToAiv,
                            tile: slot(t),
                            split,
                        }
                    }
                    OpCode::PtoTpopFromAic | OpCode::PtoTpopFromAiv => {
                        let Some(tt) = results.first().and_then(|r| cx.f.ty(*r).as_tile().copied())
                        else {
                            return self.err(
                                span,
                                format!("`{}` needs one tile result", code.name()),
                                "here",
                            );
                        };
                        let mut desc = tile_desc(&tt);
                        desc.valid_row = tt.valid_row.as_static().unwrap_or(tt.rows) as usize;
                        desc.valid_col = tt.valid_col.as_static().unwrap_or(tt.cols) as usize;
                        Inst::PipePop {
                            from_cube: *code == OpCode::PtoTpopFromAic,
                            dst: slot(results[0]),
                            desc,
                            split,
                        }
                    }
                    _ => Inst::PipeFree {
                        from_cube: *code == OpCode::PtoTfreeFromAic,
                        split,
                    },
                };
                cx.emit(inst, span, code.name());
            }
            OpKind::Opaque {
                op:
                    code @ (OpCode::PtoTsort32
                    | OpCode::PtoTmrgsort
                    | OpCode::PtoTgather
                    | OpCode::PtoTgatherb
                    | OpCode::PtoTscatter
                    | OpCode::PtoTquant
                    | OpCode::PtoTdequant
                    | OpCode::PtoThistogram),
                operands,
                attrs,
                ..
            } => self.sort_gather(cx, span, *code, operands, attrs),
            // TSYNC (pto-isa `docs/isa/TSYNC.md`; PTOAS `TSyncOp`, `ins(events...)`): waits for
            // the events of the named operands; one core runs the kernel in order, so every
            // earlier op is complete and the wait is already satisfied.
            OpKind::Opaque {
                op: OpCode::PtoTsync,
                ..
            } => {
                cx.emit(Inst::Nop, span, "pto.tsync");
            }
            OpKind::Opaque {
                op: OpCode::PtoTrandom,
                operands,
                attrs,
                ..
            } => self.trandom(cx, span, operands, attrs),
            OpKind::Opaque {
                op:
                    code @ (OpCode::PtoSetFfts
                    | OpCode::PtoSetFlagDyn
                    | OpCode::PtoWaitFlagDyn
                    | OpCode::PtoGetBuf
                    | OpCode::PtoRlsBuf),
                ..
            } => {
                // One core runs the whole kernel in order: every pipe's earlier work is done
                // when a later op starts, so these orderings hold by construction.
                cx.emit(Inst::Nop, span, code.name());
            }
            OpKind::Opaque {
                op: code @ (OpCode::PtoLoadScalar | OpCode::PtoStoreScalar),
                operands,
                results,
                ..
            } => {
                let load = *code == OpCode::PtoLoadScalar;
                // load: (ptr, index) -> value; store: (value, ptr, index).
                let shape_ok = if load {
                    operands.len() == 2 && results.len() == 1
                } else {
                    operands.len() == 3 && results.is_empty()
                };
                if !shape_ok {
                    return self.err(
                        span,
                        format!("`{}`: wrong number of operands", code.name()),
                        "here",
                    );
                }
                let (ptr, index, value) = if load {
                    (operands[0], operands[1], results[0])
                } else {
                    (operands[1], operands[2], operands[0])
                };
                let Some(ty) = cx.scalar_ty(value) else {
                    return self.err(
                        span,
                        format!("`{}`: the value must be a scalar", code.name()),
                        "here",
                    );
                };
                let Type::Ptr(p) = cx.f.ty(ptr) else {
                    return self.err(
                        span,
                        format!("`{}`: the base must be a `!pto.ptr`", code.name()),
                        "here",
                    );
                };
                if u64::from(scalar::bits(ty).div_ceil(8)) != p.elem.bytes() {
                    return self.err(
                        span,
                        format!(
                            "[scalar-ptr-type] `{}`: the value is {} but the pointer points to {}",
                            code.name(),
                            ty.name(),
                            p.elem
                        ),
                        "the value's type must be the pointee's",
                    );
                }
                let inst = if load {
                    Inst::LoadScalar {
                        dst: slot(value),
                        ptr: slot(ptr),
                        index: slot(index),
                        ty,
                    }
                } else {
                    Inst::StoreScalar {
                        ptr: slot(ptr),
                        index: slot(index),
                        val: slot(value),
                        ty,
                    }
                };
                cx.emit(inst, span, code.name());
            }
            OpKind::Opaque {
                op: OpCode::PtoGetTensorViewDim,
                operands,
                results,
                ..
            } if operands.len() == 2 && results.len() == 1 => {
                cx.emit(
                    Inst::ViewDim {
                        dst: slot(results[0]),
                        view: slot(operands[0]),
                        dim: slot(operands[1]),
                    },
                    span,
                    "pto.get_tensor_view_dim",
                );
            }
            OpKind::Opaque {
                op: OpCode::PtoTgetScaleAddr,
                operands,
                ..
            } if operands.len() == 2 => {
                // DPS: `ins(src) outs(dst)`; dst's slot is rebound. Tile ops whose operands are
                // all static are built here from the template. In the function's own block
                // (straight-line code: the ops lowered after this one run after it) with both
                // tiles static the rebound tile goes into the template too; the run-time step
                // repeats the rebinding (the same address again) and reports a failing check
                // when reached. Inside a region the slot is marked `rebound` ([`mark_rebound`]):
                // the template keeps the tile as allocated and the ops that use it read the
                // frame, which holds the rebound tile only once this step has run.
                let (src, dst) = (operands[0].index(), operands[1].index());
                if !cx.rebound.get(dst).copied().unwrap_or(true)
                    && let (Some(Val::Tile(s)), Some(Val::Tile(d))) =
                        (cx.template.get(src).copied(), cx.template.get(dst).copied())
                    && let Ok(t) = self.core.tget_scale_addr(&d, &s)
                {
                    cx.template[dst] = Val::Tile(t);
                }
                cx.emit(
                    Inst::ScaleAddr {
                        dst: slot(operands[1]),
                        src: slot(operands[0]),
                    },
                    span,
                    "pto.tget_scale_addr",
                );
            }
            OpKind::Opaque { op: code, .. } => {
                self.unsupported.push((
                    span,
                    "parsed and verified only: npusim does not execute this op yet",
                ));
                cx.emit(
                    Inst::Unsupported {
                        what: "this op is parsed and verified but not executed",
                    },
                    span,
                    code.name(),
                );
            }
        }
    }

    fn alloc_tile(
        &mut self,
        cx: &mut FnCx,
        span: Span,
        result: ast::ValueId,
        addr: Option<ast::ValueId>,
        valid_row: Option<ast::ValueId>,
        valid_col: Option<ast::ValueId>,
    ) {
        let Some(tt) = cx.f.ty(result).as_tile().copied() else {
            return self.err(span, "alloc_tile without a tile_buf type", "here");
        };
        let mut desc = tile_desc(&tt);
        let konst = |v: Option<ast::ValueId>| v.map(|v| cx.f.value(v).const_int);
        // Address: manual, or the next free 32-byte aligned place in the tile's memory.
        let addr_slot = match konst(addr) {
            None if self.plan.contains_key(&result) => {
                desc.addr = self.plan[&result];
                None
            }
            None => {
                let li = desc.loc as usize;
                let base = self.bump[li].div_ceil(pto::TILE_ALIGN) * pto::TILE_ALIGN;
                let cap = tt.loc.capacity(self.target);
                let size = tt.size_bytes();
                if base.saturating_add(size) > cap {
                    self.diags.push(
                        Diagnostic::new(
                            DiagKind::TileDoesNotFit,
                            format!(
                                "automatic placement: this tile of {size} bytes does not fit in `{}` ({cap} bytes, {base} already used by earlier tiles)",
                                tt.loc.name()
                            ),
                            span,
                        )
                        .with_label("no room left")
                        .with_help("place tiles by hand with `pto.alloc_tile addr = %a`, reusing addresses of dead tiles"),
                    );
                    return;
                }
                desc.addr = base;
                self.bump[li] = base + size;
                None
            }
            Some(Some(a)) if a >= 0 => {
                desc.addr = a as u64;
                None
            }
            Some(_) => addr,
        };
        let vrow = match konst(valid_row) {
            Some(Some(r)) if r >= 0 => {
                desc.valid_row = r as usize;
                None
            }
            Some(_) => valid_row,
            None => {
                desc.valid_row = tt.valid_row.as_static().unwrap_or(tt.rows) as usize;
                None
            }
        };
        let vcol = match konst(valid_col) {
            Some(Some(c)) if c >= 0 => {
                desc.valid_col = c as usize;
                None
            }
            Some(_) => valid_col,
            None => {
                desc.valid_col = tt.valid_col.as_static().unwrap_or(tt.cols) as usize;
                None
            }
        };
        if addr_slot.is_none() && vrow.is_none() && vcol.is_none() {
            match self.core.alloc_named(desc, "alloc_tile", "tile") {
                Ok(t) => {
                    let e = &mut self.extent[t.loc() as usize];
                    *e = (*e).max(t.addr().saturating_add(t.size_bytes()));
                    // A tile that set_validshape changes is re-created each time its
                    // alloc_tile runs; any other is a constant of the function.
                    if !cx.mutated[result.index()] {
                        cx.template[result.index()] = Val::Tile(t);
                        return;
                    }
                }
                Err(e) => {
                    self.diags.push(
                        Diagnostic::new(DiagKind::TileDoesNotFit, e.to_string(), span)
                            .with_label("this tile"),
                    );
                    return;
                }
            }
        }
        cx.emit(
            Inst::AllocTile {
                dst: slot(result),
                desc,
                addr: addr_slot.map(slot),
                vrow: vrow.map(slot),
                vcol: vcol.map(slot),
            },
            span,
            "pto.alloc_tile",
        );
    }

    fn tile_op(
        &mut self,
        cx: &mut FnCx,
        span: Span,
        code: OpCode,
        ins: &[ast::ValueId],
        outs: &[ast::ValueId],
        attrs: &ast::TileAttrs,
    ) {
        use pto::Class as P;
        let name = code.name();
        let form = |ins: &[ast::ValueId]| -> String {
            ins.iter()
                .map(|v| match cx.f.ty(*v) {
                    Type::TileBuf(_) => 'T',
                    Type::PartitionView(_) | Type::GmMemRef(_) => 'P',
                    _ => 'S',
                })
                .collect()
        };
        let fi = form(ins);
        let i = |k: usize| ins.get(k).map_or(0, |v| v.0);
        let o = |k: usize| outs.get(k).map_or(0, |v| v.0);
        let unsupported = |lw: &mut Lowerer, cx: &mut FnCx, what: &'static str| {
            lw.unsupported.push((span, what));
            cx.emit(Inst::Unsupported { what }, span, name);
        };
        let OpCode::Tile(pop) = code else {
            return unsupported(self, cx, "this op is not a tile instruction");
        };
        let class = pop.info().class;
        let args: Args<Slot> = match (class, fi.as_str()) {
            (P::Prefetch, "P") => Args::Load {
                dst: o(0),
                src: i(0),
            },
            (P::Move, "T" | "TT" | "TS") => Args::Move {
                dst: o(0),
                src: i(0),
                fp: (fi == "TT").then(|| i(1)),
                scalar: (fi == "TS").then(|| i(1)),
                relu: attrs.other.iter().any(|(k, a)| {
                    (k == "reluPreMode" || k == "relu_pre_mode")
                        && format!("{a:?}").to_ascii_lowercase().contains("normal")
                }),
            },
            (P::Extract | P::Insert, "TSS") => Args::Window {
                dst: o(0),
                src: i(0),
                row: i(1),
                col: i(2),
            },
            (P::WindowFp, "TTSS") => Args::WindowFp {
                dst: o(0),
                src: i(0),
                fp: i(1),
                row: i(2),
                col: i(3),
                relu: attrs.other.iter().any(|(k, a)| {
                    (k == "reluPreMode" || k == "relu_pre_mode")
                        && format!("{a:?}").to_ascii_lowercase().contains("normal")
                }),
            },
            (P::Transpose, "T") => Args::Unary {
                dst: o(0),
                src: i(0),
            },
            // `ins(%src, %tmp)`: the tmp form, so TTRANS's tmp rules run (pto-isa TTRANS.md).
            (P::Transpose, "TT") => Args::TransposeTmp {
                dst: o(0),
                src: i(0),
                tmp: i(1),
            },
            (P::Iota, "S") => Args::Iota {
                dst: o(0),
                start: i(0),
                descending: attrs.other.iter().any(|(k, a)| {
                    k == "descending" && matches!(a, ast::Attr::Bool(true) | ast::Attr::Int(1))
                }),
            },
            (P::Tri, "S") => Args::Tri {
                dst: o(0),
                diagonal: i(0),
                upper: attrs
                    .other
                    .iter()
                    .any(|(k, a)| k == "upperOrLower" && matches!(a, ast::Attr::Int(1))),
            },
            (P::Concat, "TT") => Args::Binary {
                dst: o(0),
                src0: i(0),
                src1: i(1),
            },
            (P::Matmul, "TT") => Args::Binary {
                dst: o(0),
                src0: i(0),
                src1: i(1),
            },
            (P::MatmulAcc | P::MatmulBias, "TTT") => Args::Ternary {
                dst: o(0),
                src0: i(0),
                src1: i(1),
                src2: i(2),
            },
            (P::MatmulMx, "TTTT" | "TTTTT") => {
                let acc = matches!(pop, pto::OpCode::TmatmulMxAcc | pto::OpCode::TgemvMxAcc);
                let five = fi == "TTTTT";
                let j = usize::from(acc && five);
                Args::MatmulMx {
                    dst: o(0),
                    c_in: (acc && five).then(|| i(0)),
                    a: i(j),
                    a_scale: i(j + 1),
                    b: i(j + 2),
                    b_scale: i(j + 3),
                    bias: (!acc && five).then(|| i(4)),
                }
            }
            (P::Print, "T" | "P") => {
                let global = fi == "P";
                cx.emit(Inst::PrintTile { tile: i(0), global }, span, name);
                return;
            }
            (
                P::Unary | P::RowReduce | P::ColReduce | P::Expand | P::FillPad | P::Pack,
                "T" | "TT",
            ) => Args::Unary {
                dst: o(0),
                src: i(0),
            },
            (P::Binary | P::Partial | P::ExpandBinary, "TT" | "TTT") => Args::Binary {
                dst: o(0),
                src0: i(0),
                src1: i(1),
            },
            (P::Ternary, "TTT") => Args::Ternary {
                dst: o(0),
                src0: i(0),
                src1: i(1),
                src2: i(2),
            },
            (P::TileScalarTile, "TST") => Args::TileScalarTile {
                dst: o(0),
                src0: i(0),
                scalar: i(1),
                src1: i(2),
            },
            (P::TileScalar, "TS" | "TST") => Args::TileScalar {
                dst: o(0),
                src: i(0),
                scalar: i(1),
            },
            (P::TileScalar, "ST") => Args::ScalarTile {
                dst: o(0),
                scalar: i(0),
                src: i(1),
            },
            (P::Fill, "S") => Args::Fill {
                dst: o(0),
                scalar: i(0),
            },
            (P::PartialArg, "TTTT") if outs.len() == 2 => Args::PartialArg {
                dst_val: o(0),
                dst_idx: o(1),
                src0_val: i(0),
                src0_idx: i(1),
                src1_val: i(2),
                src1_idx: i(3),
            },
            (P::RowArgReduce | P::ColArgReduce, "T" | "TT") => Args::ArgReduce {
                dst_idx: o(0),
                src: i(0),
                dst_val: None,
            },
            (P::Compare, "TT") => Args::Compare {
                dst: o(0),
                src0: i(0),
                src1: i(1),
                mode: cmp_mode(attrs.cmp),
            },
            (P::CompareScalar, "TS") => Args::CompareScalar {
                dst: o(0),
                src: i(0),
                scalar: i(1),
                mode: cmp_mode(attrs.cmp),
            },
            (P::Select, "TTT" | "TTTT") => Args::Select {
                dst: o(0),
                mask: i(0),
                src0: i(1),
                src1: i(2),
            },
            (P::SelectScalar, "TTS" | "TTTS") => Args::SelectScalar {
                dst: o(0),
                mask: i(0),
                src: i(1),
                scalar: i(fi.len() - 1),
            },
            (P::Convert, "T" | "TT") => Args::Convert {
                dst: o(0),
                src: i(0),
                mode: attrs.rmode.unwrap_or(pto::RoundMode::Rint),
                sat: npusim_core::Saturation::Off,
            },
            (P::Load, "P") => Args::Load {
                dst: o(0),
                src: i(0),
            },
            (P::StoreFp, "TT") => Args::StoreFp {
                dst: o(0),
                src: i(0),
                fp: i(1),
                relu: attrs.other.iter().any(|(k, a)| {
                    (k == "reluPreMode" || k == "relu_pre_mode")
                        && format!("{a:?}").to_ascii_lowercase().contains("normal")
                }),
            },
            (P::Store, "T") => Args::Store {
                dst: o(0),
                src: i(0),
            },
            (P::Interleave, "TT" | "T") if outs.len() == 2 => Args::Interleave {
                dst0: o(0),
                dst1: o(1),
                src0: i(0),
                src1: (fi == "TT").then(|| i(1)),
            },
            (P::PairReduce, "T") => Args::Unary {
                dst: o(0),
                src: i(0),
            },
            (P::AddReluConv, "TT") => Args::Binary {
                dst: o(0),
                src0: i(0),
                src1: i(1),
            },
            (P::AddDeqRelu, "TTST") => Args::AddDeqRelu {
                dst: o(0),
                src0: i(0),
                src1: i(1),
                scale: i(2),
                tmp: i(3),
            },
            (P::GmGather, "PT") => {
                match mode_attr(attrs, "gatherOob", pto::IndexOob::Undefined, GATHER_OOB) {
                    Ok(oob) => Args::GmGather {
                        dst: o(0),
                        table: i(0),
                        idx: i(1),
                        oob,
                    },
                    Err(m) => return self.err(span, format!("`{name}`: {m}"), "this attribute"),
                }
            }
            (P::GmScatter, "TT") => {
                let modes = mode_attr(
                    attrs,
                    "scatterAtomicOp",
                    pto::ScatterAtomic::None,
                    SCATTER_ATOMIC,
                )
                .and_then(|atomic| {
                    mode_attr(attrs, "scatterOob", pto::IndexOob::Undefined, SCATTER_OOB)
                        .map(|oob| (atomic, oob))
                });
                match modes {
                    Ok((atomic, oob)) => Args::GmScatter {
                        table: o(0),
                        src: i(0),
                        idx: i(1),
                        atomic,
                        oob,
                    },
                    Err(m) => {
                        return self.err(span, format!("`{name}`: {m}"), "this attribute");
                    }
                }
            }
            _ => {
                return unsupported(
                    self,
                    cx,
                    "this operand form of the op is not supported yet by the interpreter",
                );
            }
        };
        self.emit_tile(cx, span, pop, args, name);
    }

    /// Emits a tile instruction over slots: pre-built and prepared when its operands are all
    /// static, else resolved from the frame when reached.
    fn emit_tile(
        &mut self,
        cx: &mut FnCx,
        span: Span,
        pop: pto::OpCode,
        args: Args<Slot>,
        name: &'static str,
    ) {
        // Fully static operands: build the npusim-pto instruction now, and prepare it (static
        // checks once; a failing check still reports at run time, when the op is reached).
        let statics = args.try_map(&mut FrameOperands {
            op: pop,
            frame: &cx.template,
            dynamic: &cx.rebound,
            span,
        });
        if let Ok(resolved) = statics {
            let prepared = self.core.prepare(TileOp {
                op: pop,
                args: resolved,
            });
            cx.emit(Inst::Exec(Box::new(prepared)), span, name);
        } else {
            cx.emit(
                Inst::Tile {
                    op: pop,
                    form: args,
                },
                span,
                name,
            );
        }
    }
}

fn tile_of(frame: &[Val], s: Slot, span: Span) -> Result<Tile, RunError> {
    match frame.get(s as usize) {
        Some(Val::Tile(t)) => Ok(*t),
        _ => Err(RunError::new(
            RunErrorKind::Internal,
            "a tile operand has no tile value here",
            span,
        )),
    }
}

fn scalar_of(frame: &[Val], s: Slot, span: Span) -> Result<Scalar, RunError> {
    match frame.get(s as usize) {
        Some(Val::Num(Num::Int(i))) => Ok(Scalar::Int(*i)),
        Some(Val::Num(Num::Float(f))) => Ok(Scalar::Float(*f)),
        _ => Err(RunError::new(
            RunErrorKind::Internal,
            "a scalar operand has no value here",
            span,
        )),
    }
}

/// Global tensor of a (partition) view.
pub(crate) fn global_of(v: &ViewVal) -> Option<pto::GlobalTensor> {
    let r = v.rank as usize;
    let mut shape = [1usize; 5];
    let mut stride = [0usize; 5];
    for k in 0..r {
        shape[5 - r + k] = usize::try_from(v.shape[k]).ok()?;
        stride[5 - r + k] = usize::try_from(v.strides[k]).ok()?;
    }
    let dtype = v.elem.elem_type().unwrap_or(npusim_core::ElemType::U8);
    Some(pto::GlobalTensor {
        addr: v.addr,
        dtype,
        shape,
        stride,
        layout: match v.layout {
            GmLayout::Nd => pto::GmLayout::Nd,
            GmLayout::Dn => pto::GmLayout::Dn,
            GmLayout::Nz => pto::GmLayout::Nz,
        },
    })
}

/// The window a load/store touches (the partition view: last element reached through its
/// shape and strides) must lie inside the buffer bound to the view's pointer. PTOAS sizes
/// buffers to the windows kernels touch, so this, not the declared tensor view, is the rule.
fn check_window(v: &ViewVal, span: Span) -> Result<(), RunError> {
    let r = usize::from(v.rank).min(5);
    if v.shape[..r].contains(&0) {
        return Ok(());
    }
    let esize = v.elem.bytes().max(1);
    let mut last: Option<u64> = Some(0);
    for k in 0..r {
        last = last.and_then(|acc| {
            (v.shape[k] - 1)
                .checked_mul(v.strides[k])
                .and_then(|x| acc.checked_add(x))
        });
    }
    let end = last
        .and_then(|l| l.checked_add(1))
        .and_then(|n| n.checked_mul(esize))
        .and_then(|b| v.addr.checked_add(b));
    if end.is_none_or(|e| e > v.buf_end) {
        let base = v.buf_end.saturating_sub(v.buf_len);
        let from = v.addr.saturating_sub(base) / esize;
        let to = end.map_or_else(
            || "past 2^64".to_string(),
            |e| (e.saturating_sub(base) / esize).to_string(),
        );
        let shape: Vec<u64> = v.shape[..r].to_vec();
        let strides: Vec<u64> = v.strides[..r].to_vec();
        return Err(RunError::new(
            RunErrorKind::Bounds,
            format!(
                "this op touches elements [{from}, {to}) of its buffer (window of shape {shape:?}, strides {strides:?}), but the bound buffer of {} elements ends before that",
                v.buf_len / esize
            ),
            span,
        )
        .with_label("this window leaves the buffer")
        .with_help("check the shape arguments against the file given for the pointer"));
    }
    Ok(())
}

pub(crate) fn view_of(frame: &[Val], s: Slot, span: Span) -> Result<pto::GlobalTensor, RunError> {
    match frame.get(s as usize) {
        Some(Val::View(v)) => {
            check_window(v, span)?;
            global_of(v).ok_or_else(|| {
                RunError::new(RunErrorKind::Bounds, "view too large for this host", span)
            })
        }
        _ => Err(RunError::new(
            RunErrorKind::Internal,
            "a view operand has no value here",
            span,
        )),
    }
}

/// Reads a tile op's slots from a frame.
struct FrameOperands<'a> {
    op: pto::OpCode,
    frame: &'a [Val],
    /// Slots not to be read from `frame` (lowering: the template's rebound tiles); empty at
    /// run time.
    dynamic: &'a [bool],
    span: Span,
}

impl OperandMap<Slot, Tile> for FrameOperands<'_> {
    type Error = RunError;
    fn tile(&mut self, s: &Slot) -> Result<Tile, RunError> {
        if self.dynamic.get(*s as usize).copied().unwrap_or(false) {
            return Err(RunError::new(
                RunErrorKind::Internal,
                "a rebound tile is read from the frame when reached",
                self.span,
            ));
        }
        let t = tile_of(self.frame, *s, self.span)?;
        check_tile_align(&t, self.op.name(), self.span)?;
        Ok(t)
    }
    fn scalar(&mut self, s: &Slot) -> Result<Scalar, RunError> {
        scalar_of(self.frame, *s, self.span)
    }
    fn global(&mut self, s: &Slot) -> Result<pto::GlobalTensor, RunError> {
        view_of(self.frame, *s, self.span)
    }
}

/// Builds the `npusim-pto` operands of `op` from the frame: the op's form over slots, read
/// (a tile at an address that is not 32-byte aligned is an error here).
pub(crate) fn build_args(
    op: pto::OpCode,
    form: &Args<Slot>,
    frame: &[Val],
    span: Span,
) -> Result<Args, RunError> {
    form.try_map(&mut FrameOperands {
        op,
        frame,
        dynamic: &[],
        span,
    })
}

/// The address rule an instruction `op` checks on each tile it uses. `alloc_tile addr = %v`
/// binds a run-time address unchecked, as pto-isa's TASSIGN form 1 does (no checks; the
/// 32-byte alignment of every on-chip memory is a compile-time check of form 2, and
/// `npusim check` rejects a misaligned constant address): a tile that is never used runs, one
/// that an instruction uses at a misaligned address is this typed error at that instruction.
pub(crate) fn check_tile_align(t: &Tile, op: &'static str, span: Span) -> Result<(), RunError> {
    if t.addr().is_multiple_of(pto::TILE_ALIGN) {
        return Ok(());
    }
    Err(RunError::pto(
        pto::PtoError::Misaligned {
            op,
            operand: "operand",
            addr: t.addr(),
            align: pto::TILE_ALIGN,
        },
        span,
    )
    .with_help(
        "tile addresses must be multiples of 32 (alloc_tile bound this one to a run-time address)",
    ))
}

/// A mode attribute (`{gatherOob = #pto<gather_oob zero>}`): the last word of its text, or
/// `default` when it is absent; `Err` names a word outside `modes`.
fn mode_attr<T: Copy>(
    attrs: &ast::TileAttrs,
    key: &str,
    default: T,
    modes: &[(&str, T)],
) -> Result<T, String> {
    let Some((_, a)) = attrs.other.iter().find(|(k, _)| k == key) else {
        return Ok(default);
    };
    let text = match a {
        ast::Attr::Opaque { body, .. } => body.to_ascii_lowercase(),
        other => format!("{other:?}").to_ascii_lowercase(),
    };
    let word = text.split_whitespace().last().unwrap_or("");
    modes
        .iter()
        .find(|(n, _)| *n == word)
        .map(|m| m.1)
        .ok_or_else(|| {
            let names: Vec<&str> = modes.iter().map(|m| m.0).collect();
            format!(
                "[mode-attr] `{key}` is `{word}`; the modes are {}",
                names.join(", ")
            )
        })
}

const GATHER_OOB: &[(&str, pto::IndexOob)] = &[
    ("undefined", pto::IndexOob::Undefined),
    ("clamp", pto::IndexOob::Clamp),
    ("wrap", pto::IndexOob::Wrap),
    ("zero", pto::IndexOob::Zero),
];
const SCATTER_OOB: &[(&str, pto::IndexOob)] = &[
    ("undefined", pto::IndexOob::Undefined),
    ("skip", pto::IndexOob::Skip),
    ("clamp", pto::IndexOob::Clamp),
    ("wrap", pto::IndexOob::Wrap),
];
const SCATTER_ATOMIC: &[(&str, pto::ScatterAtomic)] = &[
    ("none", pto::ScatterAtomic::None),
    ("add", pto::ScatterAtomic::Add),
    ("max", pto::ScatterAtomic::Max),
    ("min", pto::ScatterAtomic::Min),
];
