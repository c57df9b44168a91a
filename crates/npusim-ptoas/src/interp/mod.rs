//! The PTO-AS interpreter: a parsed [`Module`](crate::Module) is lowered once into a
//! [`Program`] (flat instructions, slot-indexed SSA values, pre-validated tiles, pre-built
//! `npusim-pto` instructions) and then executed on `npusim-pto`'s [`TileCore`].
//!
//! ```
//! use npusim_ptoas::interp::{HostArg, RunConfig, lower, LowerOptions};
//! let src = r#"
//! module {
//!   func.func @k(%x: !pto.ptr<f32>, %s: f32) {
//!     %c0 = arith.constant 0 : index
//!     %c1 = arith.constant 1 : index
//!     %c8 = arith.constant 8 : index
//!     %v = pto.make_tensor_view %x, shape = [%c1, %c8], strides = [%c8, %c1] : !pto.tensor_view<1x8xf32>
//!     %p = pto.partition_view %v, offsets = [%c0, %c0], sizes = [%c1, %c8] : !pto.tensor_view<1x8xf32> -> !pto.partition_tensor_view<1x8xf32>
//!     %t = pto.alloc_tile : !pto.tile_buf<vec, 1x8xf32>
//!     pto.tload ins(%p : !pto.partition_tensor_view<1x8xf32>) outs(%t : !pto.tile_buf<vec, 1x8xf32>)
//!     pto.tadds ins(%t, %s : !pto.tile_buf<vec, 1x8xf32>, f32) outs(%t : !pto.tile_buf<vec, 1x8xf32>)
//!     pto.tstore ins(%t : !pto.tile_buf<vec, 1x8xf32>) outs(%p : !pto.partition_tensor_view<1x8xf32>)
//!     return
//!   }
//! }"#;
//! let module = npusim_ptoas::parse_module(src, "k.pto").unwrap();
//! let prog = lower(&module, LowerOptions::default()).unwrap();
//! let x = npusim_core::NpyArray::from_elems(vec![8], &[1.0f32; 8]);
//! let args = vec![
//!     ("x".to_string(), HostArg::Buffer(x)),
//!     ("s".to_string(), HostArg::Scalar("0.5".into())),
//! ];
//! let out = prog.run(None, &args, &RunConfig::default()).unwrap();
//! assert_eq!(out.buffer("x").unwrap().to_elems::<f32>().unwrap(), vec![1.5f32; 8]);
//! ```
//!
//! Blocks: [`RunConfig::blocks`] runs the entry function once per block index `0..N`, in
//! order, on one core whose on-chip memories are zeroed before each block (each block sees a
//! fresh core) and one shared global memory. [`RunConfig::threads`] runs the blocks on several
//! host threads with the same result, under the rule in [`par`] (no block writes GM bytes
//! another block reads or writes; checked, else the blocks run in order). Results therefore
//! never depend on scheduling.

mod bind;
mod coop;
mod cores;
mod exec;
pub mod explain;
pub mod hazard;
mod lower;
pub mod par;
mod plan;
mod scalar;
pub mod trace;

pub use lower::{LowerOptions, Program, lower};

use crate::ast::{DType, GmLayout, TargetArch};
use crate::diag::{DiagKind, Diagnostic, Span};
use exec::Machine;
use lower::{ParamKind, PtrVal, Val, ViewVal, profile_name};
use npusim_core::npy::NpyHeader;
use npusim_core::{ElemType, MemSpace, Memory, NpyArray};
use npusim_pto::{PtoError, TileCore};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// What went wrong in a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunErrorKind {
    /// A `--arg` problem: unknown, missing, duplicated, wrong element type, bad literal.
    Binding,
    /// A tile-ISA rule broken at run time (`npusim_pto::PtoError`).
    Pto,
    /// An op that is parsed but not implemented yet.
    Unsupported,
    /// A view, partition, loop step or address out of range.
    Bounds,
    /// Integer division by zero in `arith`.
    Arith,
    /// The step budget (`max_steps`: instructions, counted in every call, loop and block)
    /// is exhausted.
    StepLimit,
    /// The work budget (`max_work`: tile elements processed) is exhausted.
    WorkLimit,
    /// The wall-clock budget (`timeout`) is exhausted.
    Timeout,
    /// The arguments need more global memory than `max_memory`, or the host cannot provide it.
    MemoryLimit,
    /// Calls nested too deeply.
    CallDepth,
    /// No such function, or a function without a body.
    NoFunction,
    /// The cores of a mixed kernel wait for each other forever (see `coop`).
    Deadlock,
    /// The kernel executed `pto.trap`.
    Trap,
    /// An inconsistency the verifier should have caught.
    Internal,
}

/// A run-time error, located in the kernel source (boxed: results stay small on the hot path).
#[derive(Clone, Debug)]
pub struct RunError(Box<RunErrorInner>);

#[derive(Clone, Debug)]
struct RunErrorInner {
    kind: RunErrorKind,
    diag: Diagnostic,
    pto: Option<PtoError>,
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0.diag.message)
    }
}

impl std::error::Error for RunError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0
            .pto
            .as_ref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

impl RunError {
    pub(crate) fn new(kind: RunErrorKind, message: impl Into<String>, span: Span) -> Self {
        let dk = match kind {
            RunErrorKind::Binding => DiagKind::TypeMismatch,
            RunErrorKind::Bounds => DiagKind::PartitionOutOfBounds,
            RunErrorKind::NoFunction => DiagKind::UndefinedValue,
            RunErrorKind::Unsupported => DiagKind::UnknownOp,
            _ => DiagKind::Structure,
        };
        RunError(Box::new(RunErrorInner {
            kind,
            diag: Diagnostic::new(dk, message, span),
            pto: None,
        }))
    }

    pub(crate) fn pto(e: PtoError, span: Span) -> Self {
        let mut r = RunError::new(RunErrorKind::Pto, e.to_string(), span);
        r.0.diag.label = "failed here".into();
        r.0.pto = Some(e);
        r
    }

    pub(crate) fn with_label(mut self, l: impl Into<String>) -> Self {
        self.0.diag.label = l.into();
        self
    }

    pub(crate) fn with_help(mut self, h: impl Into<String>) -> Self {
        self.0.diag.help = Some(h.into());
        self
    }

    /// Class of the error.
    pub fn kind(&self) -> RunErrorKind {
        self.0.kind
    }

    /// Message, span, label and help, ready for [`Diagnostic::render`].
    pub fn diagnostic(&self) -> &Diagnostic {
        &self.0.diag
    }

    /// The tile-ISA error, for [`RunErrorKind::Pto`].
    pub fn pto_error(&self) -> Option<&PtoError> {
        self.0.pto.as_ref()
    }

    /// Renders the error rustc-style against the kernel source.
    pub fn render(&self, file_name: &str, src: &str) -> String {
        self.0.diag.render(file_name, src)
    }
}

/// A host value for one kernel parameter.
#[derive(Clone, Debug)]
pub enum HostArg {
    /// A buffer for a `!pto.ptr<T>` parameter; its element type must be `T`.
    Buffer(NpyArray),
    /// A literal for a scalar parameter, parsed for the parameter's type.
    Scalar(String),
    /// A `.npy` file for a `!pto.ptr<T>` parameter, of which only the header has been read
    /// ([`npusim_core::npy::read_npy_header`]); its data is read straight into global memory.
    NpyFile {
        /// The file.
        path: PathBuf,
        /// Its header.
        header: NpyHeader,
    },
}

impl HostArg {
    fn elem_shape(&self) -> Option<(ElemType, &[usize], u64)> {
        match self {
            HostArg::Buffer(a) => Some((a.dtype, &a.shape, a.data.len() as u64)),
            HostArg::NpyFile { header, .. } => Some((header.dtype, &header.shape, header.data_len)),
            HostArg::Scalar(_) => None,
        }
    }
}

/// What a progress callback sees (about every 2^16 instructions).
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// Instructions executed so far.
    pub steps: u64,
    /// Blocks finished.
    pub blocks_done: u32,
    /// Blocks in the run.
    pub blocks: u32,
    /// Time since the run started.
    pub elapsed: Duration,
}

/// Run settings: the block count and the one execution budget (steps, work, wall clock,
/// memory). Exceeding any budget is a [`RunError`] of its own kind naming the budget, the op
/// and its source line.
#[derive(Clone, Copy, Debug)]
pub struct RunConfig {
    /// Number of blocks (cores); `pto.get_block_num` returns it. At least 1.
    pub blocks: u32,
    /// Upper bound on executed instructions, counted over every instruction of every call,
    /// loop iteration and block.
    pub max_steps: u64,
    /// Upper bound on tile elements processed (each tile instruction counts the elements of
    /// its largest tile operand).
    pub max_work: u64,
    /// Wall-clock limit for the run (checked about every 2^16 instructions and every block).
    pub timeout: Option<Duration>,
    /// Upper bound on global memory in bytes (the sum of the bound buffers, 32-byte aligned).
    pub max_memory: u64,
    /// Called about every 2^16 instructions and after every block.
    pub progress: Option<fn(&Progress)>,
    /// Record every executed instruction into [`RunOutcome::trace`] (see [`trace`]; in a mixed
    /// cube + vector kernel, per core).
    pub trace: bool,
    /// Called with each `pto.tprint` / `pto.print` as the kernel executes it (they are also
    /// collected in [`RunOutcome::prints`]).
    pub on_print: Option<fn(&PrintRec)>,
    /// Host threads for the blocks (at least 1; more than `blocks` are not used). The result
    /// is the one-thread run's byte for byte; see [`par`] for the rule and the fallback.
    pub threads: u32,
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            blocks: 1,
            max_steps: 100_000_000,
            max_work: 100_000_000_000,
            timeout: None,
            max_memory: DEFAULT_MAX_MEMORY,
            progress: None,
            trace: false,
            on_print: None,
            threads: 1,
        }
    }
}

/// Default [`RunConfig::max_memory`]: 8 GiB.
pub const DEFAULT_MAX_MEMORY: u64 = 8 << 30;

/// Counters of one run.
#[derive(Clone, Debug, Default)]
pub struct RunStats {
    /// Executed instructions per op name, most frequent first.
    pub per_op: Vec<(&'static str, u64)>,
    /// Total executed instructions.
    pub steps: u64,
    /// Bytes moved from GM to on-chip memory (`pto.tload`).
    pub gm_to_chip: u64,
    /// Bytes moved from on-chip memory to GM (`pto.tstore`).
    pub chip_to_gm: u64,
    /// Blocks run.
    pub blocks: u32,
}

/// Result of a run: global memory after the run (every buffer argument in it), and the
/// counters.
#[derive(Clone, Debug)]
pub struct RunOutcome {
    gm: Memory,
    /// (parameter name, GM address, element type, shape, bytes)
    bufs: Vec<(String, u64, ElemType, Vec<usize>, u64)>,
    /// Counters.
    pub stats: RunStats,
    /// Every executed instruction, when [`RunConfig::trace`] was set.
    pub trace: Option<trace::Recording>,
    /// The sync-hazard report, from [`Program::run_checked`].
    pub hazards: Option<hazard::Report>,
    /// How the blocks were scheduled over threads ([`RunConfig::threads`]).
    pub schedule: par::Schedule,
    /// What the kernel printed (`pto.tprint`, `pto.print`), in execution order per core.
    pub prints: Vec<PrintRec>,
}

/// One print of a kernel (`pto.tprint`, `pto.print`): the text and where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrintRec {
    /// The block that printed.
    pub block: u32,
    /// In a mixed cube + vector run, the core (`cube`, `vector 0`, ...).
    pub core: Option<String>,
    /// The print op in the kernel source.
    pub span: Span,
    /// The text (a tile's text ends in a newline; a scalar print's is what printf gives).
    pub text: String,
}

impl PrintRec {
    /// `[block 0 kernel.pto:12]`-style tag for the print, against the kernel source.
    pub fn tag(&self, file_name: &str, src: &str) -> String {
        let (line, _) = crate::diag::line_col(src, self.span.start);
        match &self.core {
            Some(c) => format!("[block {} {c} {file_name}:{line}]", self.block),
            None => format!("[block {} {file_name}:{line}]", self.block),
        }
    }
}

/// A buffer argument after the run, borrowed from global memory.
#[derive(Clone, Copy, Debug)]
pub struct BufferView<'a> {
    /// Element type of the array given for the parameter.
    pub dtype: ElemType,
    /// Its shape.
    pub shape: &'a [usize],
    /// The bytes in global memory after the run.
    pub data: &'a [u8],
}

impl RunOutcome {
    /// The final buffer of a pointer parameter (name with or without `%`), borrowed.
    pub fn buffer_view(&self, name: &str) -> Option<BufferView<'_>> {
        let n = name.trim_start_matches('%');
        let (_, addr, dtype, shape, len) = self.bufs.iter().find(|b| b.0 == n)?;
        Some(BufferView {
            dtype: *dtype,
            shape,
            data: self.gm.bytes(*addr, *len).ok()?,
        })
    }

    /// The final buffer of a pointer parameter, copied into an array.
    pub fn buffer(&self, name: &str) -> Option<NpyArray> {
        let v = self.buffer_view(name)?;
        Some(NpyArray {
            dtype: v.dtype,
            shape: v.shape.to_vec(),
            data: v.data.to_vec(),
        })
    }

    /// Names of the buffer arguments, in parameter order.
    pub fn buffer_names(&self) -> Vec<&str> {
        self.bufs.iter().map(|b| b.0.as_str()).collect()
    }
}

/// A kernel parameter as the command line sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParamInfo {
    /// `!pto.ptr<T>`: takes a `.npy` file of `T`.
    Pointer(DType),
    /// A scalar: takes a literal.
    Scalar(crate::ast::ScalarType),
    /// Anything else (cannot be bound from the host); the type as text.
    Other(String),
}

impl Program {
    /// The target the program was lowered for.
    pub fn target(&self) -> TargetArch {
        self.target
    }
    /// The numeric policy it runs under.
    pub fn policy(&self) -> npusim_core::TilePolicy {
        self.policy
    }

    /// Ops the program contains that `npusim-pto` does not implement yet (each fails if
    /// reached), with their spans.
    pub fn unsupported(&self) -> &[(Span, &'static str)] {
        &self.unsupported
    }

    /// Number of lowered instructions over all functions.
    pub fn instruction_count(&self) -> usize {
        self.funcs.iter().map(|f| f.code.len()).sum()
    }

    /// Names of the functions.
    pub fn func_names(&self) -> Vec<&str> {
        self.funcs.iter().map(|f| f.name.as_str()).collect()
    }

    fn resolve(&self, func: Option<&str>) -> Result<usize, RunError> {
        let all = || {
            self.funcs
                .iter()
                .filter(|f| f.has_body)
                .map(|f| format!("@{}", f.name))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let fi = match func {
            Some(name) => {
                let n = name.trim_start_matches('@');
                self.funcs.iter().position(|f| f.name == n).ok_or_else(|| {
                    RunError::new(
                        RunErrorKind::NoFunction,
                        format!("no function `@{n}` in this module"),
                        Span::default(),
                    )
                    .with_help(format!("functions: {}", all()))
                })?
            }
            None => self.entry.ok_or_else(|| {
                if self.entry_candidates.len() > 1 {
                    let names = self
                        .entry_candidates
                        .iter()
                        .map(|&i| format!("@{}", self.funcs[i].name))
                        .collect::<Vec<_>>()
                        .join(", ");
                    RunError::new(
                        RunErrorKind::NoFunction,
                        format!(
                            "ambiguous entry: {} functions could be the kernel ({names})",
                            self.entry_candidates.len()
                        ),
                        self.funcs[self.entry_candidates[1]].span,
                    )
                    .with_label("a second candidate")
                    .with_help(format!("pick one with `--func NAME`: {names}"))
                } else {
                    RunError::new(
                        RunErrorKind::NoFunction,
                        "cannot tell which function to run",
                        Span::default(),
                    )
                    .with_help(format!("pick one with `--func NAME`: {}", all()))
                }
            })?,
        };
        if !self.funcs[fi].has_body {
            return Err(RunError::new(
                RunErrorKind::NoFunction,
                format!(
                    "`@{}` is only declared, it has no body",
                    self.funcs[fi].name
                ),
                self.funcs[fi].span,
            ));
        }
        Ok(fi)
    }

    /// The parameters of a function (default: the entry), in order.
    pub fn params(&self, func: Option<&str>) -> Result<Vec<(String, ParamInfo)>, RunError> {
        let fi = self.resolve(func)?;
        Ok(self.funcs[fi]
            .params
            .iter()
            .map(|(n, _, k, _)| {
                let info = match k {
                    ParamKind::Ptr(d) | ParamKind::MemRef(d, _) => ParamInfo::Pointer(*d),
                    ParamKind::Scalar(s) => ParamInfo::Scalar(*s),
                    ParamKind::Other(t) => ParamInfo::Other(t.clone()),
                };
                (n.clone(), info)
            })
            .collect())
    }

    /// Runs `func` (default: the module's entry function) with `args` bound by parameter name
    /// (with or without `%`).
    pub fn run(
        &self,
        func: Option<&str>,
        args: &[(String, HostArg)],
        cfg: &RunConfig,
    ) -> Result<RunOutcome, RunError> {
        self.run_observed(func, args, cfg, None)
    }

    /// [`Program::run`], feeding `hz` (the sync-hazard checker) when given.
    pub(crate) fn run_observed(
        &self,
        func: Option<&str>,
        args: &[(String, HostArg)],
        cfg: &RunConfig,
        hz: Option<hazard::Checker>,
    ) -> Result<RunOutcome, RunError> {
        let fi = self.resolve(func)?;
        let f = &self.funcs[fi];
        let mut core = cores::take(profile_name(self.target)).ok_or_else(|| {
            RunError::new(RunErrorKind::Internal, "no chip profile", Span::default())
        })?;
        core.set_policy(self.policy);
        let param_list = || {
            f.params
                .iter()
                .map(|(n, _, k, _)| match k {
                    ParamKind::Ptr(d) | ParamKind::MemRef(d, _) => format!("{n}=FILE.npy ({d})"),
                    ParamKind::Scalar(s) => format!("{n}=VALUE ({s})"),
                    ParamKind::Other(t) => format!("{n} ({t})"),
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        // Match the given arguments to parameters.
        let mut given: Vec<Option<&HostArg>> = vec![None; f.params.len()];
        for (name, a) in args {
            let n = name.trim_start_matches('%');
            let Some(k) = f.params.iter().position(|p| p.0 == n) else {
                return Err(RunError::new(
                    RunErrorKind::Binding,
                    format!(
                        "unknown argument `--arg {n}`: `@{}` has no parameter `%{n}`",
                        f.name
                    ),
                    f.span,
                )
                .with_label("this function")
                .with_help(format!("its parameters: {}", param_list())));
            };
            if given[k].is_some() {
                return Err(RunError::new(
                    RunErrorKind::Binding,
                    format!("`--arg {n}` is given twice"),
                    f.params[k].3,
                ));
            }
            given[k] = Some(a);
        }
        // Bind them.
        let mut vals = Vec::with_capacity(f.params.len());
        // (slot in vals, parameter name, argument, element type)
        let mut pending: Vec<(usize, &String, &HostArg, DType)> = Vec::new();
        for ((pname, _, kind, pspan), g) in f.params.iter().zip(given) {
            let pspan = *pspan;
            let bind_err = |msg: String, label: &str| {
                RunError::new(RunErrorKind::Binding, msg, pspan).with_label(label.to_string())
            };
            let v = match (kind, g) {
                (ParamKind::Ptr(d) | ParamKind::MemRef(d, _), None) => {
                    return Err(bind_err(
                        format!("missing argument for parameter `%{pname}`"),
                        "needs a value",
                    )
                    .with_help(format!("pass `--arg {pname}=FILE.npy` with {d} elements")));
                }
                (ParamKind::Scalar(s), None) => {
                    return Err(bind_err(
                        format!("missing argument for parameter `%{pname}`"),
                        "needs a value",
                    )
                    .with_help(format!("pass `--arg {pname}=VALUE` (a {s})")));
                }
                (
                    ParamKind::Ptr(d) | ParamKind::MemRef(d, _),
                    Some(a @ (HostArg::Buffer(_) | HostArg::NpyFile { .. })),
                ) => {
                    let Some((dtype, _, _)) = a.elem_shape() else {
                        return Err(internal_err("buffer without element type"));
                    };
                    let got = DType::from_elem_type(dtype);
                    // `.npy` cannot tell the `<V1` floats apart (npusim_core::npy): such a
                    // file is taken as the parameter's type.
                    let ok = got == *d
                        || (*d == DType::I1 && got == DType::U8)
                        || d.elem_type().is_some_and(|e| {
                            e.is_narrow_float() && npusim_core::npy::same_descr(e, dtype)
                        });
                    if !ok {
                        return Err(bind_err(
                            format!(
                                "element type mismatch: `%{pname}` points to {d}, but the .npy file given for it holds {} ({})",
                                got.name(),
                                dtype.numpy_name()
                            ),
                            &format!("expects {d}"),
                        )
                        .with_help(format!("convert the array, e.g. `a.astype(np.{})`", npy_name(*d))));
                    }
                    let Some((_, shape, _)) = a.elem_shape() else {
                        return Err(internal_err("buffer without shape"));
                    };
                    check_view_shape(pname, shape, &f.views[vals.len()]).map_err(
                        |(msg, help)| {
                            bind_err(msg, "its tensor view fixes the shape").with_help(help)
                        },
                    )?;
                    pending.push((vals.len(), pname, a, *d));
                    Val::Undef
                }
                (ParamKind::Ptr(d) | ParamKind::MemRef(d, _), Some(HostArg::Scalar(text))) => {
                    return Err(bind_err(
                        format!(
                            "`%{pname}` is a pointer, but `--arg {pname}={text}` is not a .npy file"
                        ),
                        "a pointer parameter",
                    )
                    .with_help(format!("pass a .npy file of {d}")));
                }
                (ParamKind::Scalar(s), Some(HostArg::Scalar(text))) => {
                    match scalar::parse_literal(*s, text) {
                        Ok(n) => Val::Num(n),
                        Err(why) => {
                            return Err(bind_err(
                                format!("bad value for `--arg {pname}`: {why}"),
                                &format!("this parameter is {s}"),
                            ));
                        }
                    }
                }
                (ParamKind::Scalar(s), Some(HostArg::Buffer(_) | HostArg::NpyFile { .. })) => {
                    return Err(bind_err(
                        format!("`%{pname}` is a scalar ({s}), not a buffer"),
                        "a scalar parameter",
                    )
                    .with_help(format!("pass `--arg {pname}=VALUE`")));
                }
                (ParamKind::Other(t), _) => {
                    return Err(bind_err(
                        format!("parameter `%{pname}` of type {t} cannot be bound from the host"),
                        "not a pointer or scalar",
                    ));
                }
            };
            vals.push(v);
        }
        if cfg.blocks == 0 {
            return Err(RunError::new(
                RunErrorKind::Binding,
                "the number of blocks must be at least 1",
                f.span,
            ));
        }
        // Size GM once from the bound buffers, then read each straight into it.
        let total = pending.iter().try_fold(0u64, |acc, (_, _, a, _)| {
            let len = a.elem_shape().map_or(0, |e| e.2);
            acc.div_ceil(npusim_pto::TILE_ALIGN)
                .checked_mul(npusim_pto::TILE_ALIGN)?
                .checked_add(len)
        });
        let mem_err = |what: String| {
            RunError::new(RunErrorKind::MemoryLimit, what, f.span)
                .with_label("the arguments of this function")
        };
        let total = match total {
            Some(t) if t <= cfg.max_memory => t,
            t => {
                return Err(mem_err(format!(
                    "memory budget exceeded: the buffer arguments need {} bytes of global memory, more than max_memory = {} bytes",
                    t.map_or_else(|| "more than 2^64".to_string(), |t| t.to_string()),
                    cfg.max_memory
                ))
                .with_help("raise the limit with `--max-memory SIZE` (e.g. 16G)"));
            }
        };
        // `bind::fill` writes every byte of it, so a recycled mapping will do.
        core.gm_reserve_for_overwrite(total)
            .map_err(|e| mem_err(format!("memory budget: {e}")))?;
        let mut bufs: Vec<(String, u64, ElemType, Vec<usize>, u64)> = Vec::new();
        let mut fills: Vec<bind::Fill<'_>> = Vec::with_capacity(pending.len());
        for (slot, pname, a, d) in pending {
            let Some((dtype, shape, len)) = a.elem_shape() else {
                return Err(internal_err("buffer without element type"));
            };
            let addr = core
                .gm_alloc(len)
                .map_err(|e| mem_err(format!("memory budget: {e}")))?;
            fills.push(bind::Fill {
                addr,
                len,
                arg: a,
                name: pname,
            });
            vals[slot] = match &f.params[slot].2 {
                ParamKind::MemRef(_, dims) => {
                    Val::View(memref_view(addr, len, d, dims, shape).map_err(|msg| {
                        RunError::new(RunErrorKind::Binding, msg, f.params[slot].3)
                            .with_label(format!("`%{pname}` is a memref"))
                    })?)
                }
                _ => Val::Ptr(PtrVal { addr, elem: d, len }),
            };
            // A `<V1` file takes the parameter's narrow float type (see the binding check).
            let dtype = d
                .elem_type()
                .filter(|e| e.is_narrow_float())
                .unwrap_or(dtype);
            bufs.push((pname.clone(), addr, dtype, shape.to_vec(), len));
        }
        // The data, on the run's threads when it is large (see `bind`).
        let fill_err = |(name, e): bind::FillError| {
            RunError::new(RunErrorKind::Binding, format!("--arg {name}: {e}"), f.span)
        };
        let bind_threads = if cfg.blocks > 1 { cfg.threads } else { 1 };
        bind::fill(core.gm_mut(), &fills, bind_threads).map_err(fill_err)?;
        let rebind = |gm: &mut Memory| bind::refill(gm, &fills).map_err(fill_err);
        let mut m = Machine {
            prog: self,
            core,
            block: 0,
            nblocks: cfg.blocks,
            steps: 0,
            max_steps: cfg.max_steps,
            work: 0,
            max_work: cfg.max_work,
            start: Instant::now(),
            timeout: cfg.timeout,
            progress: cfg.progress,
            counts: self.funcs.iter().map(|f| vec![0; f.code.len()]).collect(),
            gm_to_chip: 0,
            chip_to_gm: 0,
            depth: 0,
            extent: self.extent,
            ctx: coop::CoreKind::All,
            coop: None,
            pipe: Default::default(),
            rec: trace::Recorder::new(cfg.trace, hz),
            prints: Vec::new(),
            on_print: cfg.on_print,
            par: None,
        };
        let schedule = par::run_blocks(self, &mut m, fi, &vals, cfg, &bufs, &rebind)?;
        let gm = std::mem::replace(m.core.gm_mut(), Memory::new(MemSpace::Gm, 0));
        let mut per: std::collections::BTreeMap<&'static str, u64> = Default::default();
        for (lf, counts) in self.funcs.iter().zip(&m.counts) {
            for (meta, c) in lf.meta.iter().zip(counts) {
                if *c > 0 {
                    *per.entry(meta.name).or_default() += c;
                }
            }
        }
        let mut per_op: Vec<(&'static str, u64)> = per.into_iter().collect();
        per_op.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        let (trace, hazards) = trace::Recorder::finish(m.rec.take());
        let prints = std::mem::take(&mut m.prints);
        cores::keep(profile_name(self.target), m.core, m.extent);
        Ok(RunOutcome {
            gm,
            bufs,
            stats: RunStats {
                per_op,
                steps: m.steps,
                gm_to_chip: m.gm_to_chip,
                chip_to_gm: m.chip_to_gm,
                blocks: cfg.blocks,
            },
            trace,
            hazards,
            prints,
            schedule,
        })
    }
}

impl Program {
    /// Runs every block of a mixed kernel as one cube core and its vector cores taking turns
    /// (see [`coop`]); `m` carries the global memory in and out and sums the statistics.
    fn run_mixed(
        &self,
        m: &mut exec::Machine<'_>,
        fi: usize,
        vals: &[Val],
    ) -> Result<(), RunError> {
        let cores = 1 + coop::AIV_PER_AIC;
        for b in 0..m.nblocks {
            m.steps = m.steps.saturating_add(1);
            m.check_budget("block", self.funcs[fi].span)?;
            let gm = std::mem::replace(m.core.gm_mut(), coop::no_gm());
            let shared = coop::Coop::new(gm, cores);
            // Each core records (trace, hazards) on its own; merged below in core order.
            let mut forks: Vec<Option<Box<trace::Recorder>>> = (0..cores)
                .map(|i| m.rec.as_ref().map(|r| r.fork(1 + i as u8)))
                .collect();
            let tmpl = &*m;
            type Stats = (
                u64,
                u64,
                u64,
                u64,
                Vec<Vec<u64>>,
                Vec<PrintRec>,
                Option<Box<trace::Recorder>>,
            );
            let outs: Vec<Option<Stats>> = std::thread::scope(|s| {
                let hs: Vec<_> = (0..cores)
                    .map(|i| {
                        let shared = &shared;
                        let fork = forks.get_mut(i).and_then(Option::take);
                        s.spawn(move || {
                            let mut core = TileCore::by_name(profile_name(self.target))?;
                            core.set_policy(self.policy);
                            let mut mm = tmpl.sibling(core, b);
                            mm.ctx = if i == 0 {
                                coop::CoreKind::Cube
                            } else {
                                coop::CoreKind::Vector((i - 1) as u8)
                            };
                            mm.coop = Some(shared);
                            mm.rec = fork;
                            let mut guard = coop::PanicGuard {
                                coop: shared,
                                armed: true,
                            };
                            if shared.enter(i, mm.core.gm_mut()) {
                                let r = mm.call(fi, vals);
                                shared.finish(i, mm.core.gm_mut(), r.err());
                            } else {
                                shared.finish(i, &mut coop::no_gm(), None);
                            }
                            guard.armed = false;
                            Some((
                                mm.steps,
                                mm.work,
                                mm.gm_to_chip,
                                mm.chip_to_gm,
                                mm.counts,
                                mm.prints,
                                mm.rec.take(),
                            ))
                        })
                    })
                    .collect();
                hs.into_iter().map(|h| h.join().ok().flatten()).collect()
            });
            let st = shared.into_state();
            if let Some(e) = st.error {
                return Err(e);
            }
            *m.core.gm_mut() = st.gm;
            for mm in outs {
                let Some((steps, work, g2c, c2g, counts, prints, rec)) = mm else {
                    return Err(internal_err("a core of the mixed run stopped unexpectedly"));
                };
                m.steps = m.steps.saturating_add(steps);
                m.work = m.work.saturating_add(work);
                m.gm_to_chip += g2c;
                m.chip_to_gm += c2g;
                m.prints.extend(prints);
                if let (Some(r), Some(c)) = (m.rec.as_deref_mut(), rec) {
                    r.absorb(c);
                }
                for (a, c) in m.counts.iter_mut().zip(&counts) {
                    for (x, y) in a.iter_mut().zip(c) {
                        *x += y;
                    }
                }
            }
            m.check_budget("block", self.funcs[fi].span)?;
        }
        Ok(())
    }
}

fn internal_err(msg: &str) -> RunError {
    RunError::new(RunErrorKind::Internal, msg, Span::default())
}

fn npy_name(d: DType) -> &'static str {
    match d {
        DType::I1 => "bool_",
        DType::I8 => "int8",
        DType::U8 => "uint8",
        DType::I16 => "int16",
        DType::U16 => "uint16",
        DType::I32 => "int32",
        DType::U32 => "uint32",
        DType::I64 => "int64",
        DType::U64 => "uint64",
        DType::F16 => "float16",
        DType::Bf16 => "bfloat16 (ml_dtypes)",
        DType::F32 => "float32",
        DType::F8E4M3 | DType::F8E4M3FN => "float8_e4m3fn (ml_dtypes)",
        DType::F8E5M2 => "float8_e5m2 (ml_dtypes)",
        DType::F8E8M0 => "float8_e8m0fnu (ml_dtypes)",
        DType::HiF8 => "hifloat8 (en_dtypes)",
        DType::F4E2M1 => "float4_e2m1fn (ml_dtypes)",
        DType::F4E2M1X2 => "uint8 bytes of packed float4_e2m1x2 pairs",
        DType::F4E1M2X2 => "uint8 bytes of packed float4_e1m2x2 pairs",
    }
}

/// The shape rule for buffer arguments: a 1-D array is a flat buffer (as PTOAS's `.bin` files
/// are) and is always taken; an array of rank 2 or more must match one of the row-major tensor
/// views the function makes from the parameter (when it makes any): with size-1 dimensions
/// dropped on both sides, the array's dimensions are the view's in order, a static size
/// exactly, a `?` any one size or none. So a `?x256` view takes (64, 256), (1, 64, 256) and
/// (64, 256, 1), not (4, 16, 256) or (128, 128); a 1x16 view takes (16, 1). The byte count is
/// checked separately, against what the kernel touches.
/// The dense row-major view a `memref` argument stands for. Dynamic (`?`) dimensions take the
/// host array's sizes when its rank matches, else one `?` takes what the buffer leaves.
fn memref_view(
    addr: u64,
    len: u64,
    elem: DType,
    dims: &[Option<u64>],
    host: &[usize],
) -> Result<ViewVal, String> {
    if dims.is_empty() || dims.len() > 5 {
        return Err(format!(
            "a memref argument has 1 to 5 dimensions (got {})",
            dims.len()
        ));
    }
    let mut shape = [0u64; 5];
    let dynamic = dims.iter().filter(|d| d.is_none()).count();
    let elems = len / elem.bytes().max(1);
    for (k, d) in dims.iter().enumerate() {
        shape[k] = match d {
            Some(n) => *n,
            None if host.len() == dims.len() => host[k] as u64,
            None if dynamic == 1 => {
                let known: u64 = dims.iter().flatten().product();
                elems / known.max(1)
            }
            None => {
                return Err(format!(
                    "a memref argument with {dynamic} dynamic dimensions needs an array of rank {}",
                    dims.len()
                ));
            }
        };
    }
    let mut strides = [0u64; 5];
    let mut acc = 1u64;
    for k in (0..dims.len()).rev() {
        strides[k] = acc;
        acc = acc.saturating_mul(shape[k]);
    }
    Ok(ViewVal {
        addr,
        buf_end: addr.saturating_add(len),
        buf_len: len,
        elem,
        rank: dims.len() as u8,
        shape,
        strides,
        layout: GmLayout::Nd,
    })
}

fn check_view_shape(
    pname: &str,
    shape: &[usize],
    views: &[Vec<Option<u64>>],
) -> Result<(), (String, String)> {
    if shape.len() <= 1 || views.is_empty() {
        return Ok(());
    }
    let fits = |v: &Vec<Option<u64>>| {
        let view: Vec<Option<u64>> = v.iter().copied().filter(|&d| d != Some(1)).collect();
        let arr: Vec<u64> = shape
            .iter()
            .map(|&n| n as u64)
            .filter(|&n| n != 1)
            .collect();
        dims_fit(&view, &arr)
    };
    if views.iter().any(fits) {
        return Ok(());
    }
    let show = |v: &Vec<Option<u64>>| {
        v.iter()
            .map(|d| d.map_or("?".to_string(), |n| n.to_string()))
            .collect::<Vec<_>>()
            .join("x")
    };
    let wanted = views.iter().map(show).collect::<Vec<_>>().join(" or ");
    let got = shape
        .iter()
        .map(|n| n.to_string())
        .collect::<Vec<_>>()
        .join("x");
    Err((
        format!(
            "shape mismatch: the array given for `%{pname}` is {got} ({}-D), but the kernel views `%{pname}` as {wanted}",
            shape.len()
        ),
        format!("pass an array of shape {wanted}, or a flat 1-D array"),
    ))
}

/// Whether array dimensions `a` are the view dimensions `v` in order, each `None` (`?`) taking
/// one dimension of any size or none.
fn dims_fit(v: &[Option<u64>], a: &[u64]) -> bool {
    match v.split_first() {
        None => a.is_empty(),
        Some((None, rest)) => dims_fit(rest, a) || (!a.is_empty() && dims_fit(rest, &a[1..])),
        Some((Some(d), rest)) => a.first() == Some(d) && dims_fit(rest, &a[1..]),
    }
}

/// The name of core `core` of a mixed run as [`trace::Event::core`] numbers them (1 = AIC).
pub(crate) fn coop_core_name(core: u8) -> &'static str {
    match core {
        0 => "core",
        1 => "AIC",
        2 => "AIV0",
        3 => "AIV1",
        _ => "AIV",
    }
}
