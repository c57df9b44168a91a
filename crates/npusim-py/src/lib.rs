//! The native half of npusim's Python package (`npusim._native`), built with PyO3 for the
//! stable ABI (abi3, Python >= 3.9).
//!
//! Arrays cross the boundary as `.npy` images (`bytes`) for PTO-AS: the Python side writes them
//! with `numpy.save` (bf16 as `ml_dtypes` writes it) and reads results with `numpy.load`, so
//! every element type npusim knows keeps its exact bits and numpy stays the only array library
//! involved. TIK runs, where the fixed cost per call matters, pass `(dtype name, little-endian
//! bytes)` in and `(name, dtype name, shape, bytearray)` out instead. The Python modules in `python/npusim/` give the user-facing API (`npusim.pto`,
//! `npusim.tpu`); this module is deliberately small and stringly typed.
//!
//! Errors: every failure is raised as `npusim.NpusimError` carrying the typed error's text
//! (for PTO-AS, the rustc-style rendering against the kernel source). Nothing here panics on
//! user input; a panic would still surface as a Python exception (PyO3 catches it at the
//! boundary), never as an abort of the interpreter.

use npusim_core::ElemType;
use npusim_core::npy::{parse_npy, to_npy_bytes};
use npusim_ptoas::interp::{HostArg, LowerOptions, PrintRec, RunConfig, lower};
use npusim_ptoas::{ParseOptions, TargetArch, parse_module_with, render_all};
use npusim_tpu::{DataType, SystemAddr, TpuChip, TpuCore};
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyList};

mod tik;
mod tpu;

create_exception!(
    npusim,
    NpusimError,
    PyException,
    "An error reported by the simulator (instruction, parameter, rule and value)."
);

fn err(msg: impl Into<String>) -> PyErr {
    NpusimError::new_err(msg.into())
}

/// A PTO target from a chip name or alias (`a2a3`, `Ascend910B`, `a5`, ...).
fn pto_target(name: Option<&str>) -> PyResult<Option<TargetArch>> {
    let Some(name) = name else { return Ok(None) };
    let p = npusim_core::ChipProfile::by_name(name)
        .ok_or_else(|| err(format!("unknown chip `{name}` (see `npusim chips`)")))?;
    [TargetArch::A2A3, TargetArch::A5]
        .into_iter()
        .find(|t| t.chip() == p.id)
        .map(Some)
        .ok_or_else(|| err(format!("chip `{}` has no PTO tile target", p.name)))
}

/// Parses and lowers; the error is the rendered diagnostics.
fn load(
    src: &str,
    file: &str,
    target: Option<TargetArch>,
    policy: npusim_core::PolicyName,
) -> PyResult<npusim_ptoas::interp::Program> {
    let module = parse_module_with(
        src,
        ParseOptions {
            target,
            ..ParseOptions::default()
        },
    )
    .map_err(|d| err(render_all(&d, file, src)))?;
    lower(&module, LowerOptions { target, policy }).map_err(|d| err(render_all(&d, file, src)))
}

/// A numeric policy by the name `npusim run --policy` takes (`hw` when absent).
fn pto_policy(name: Option<&str>) -> PyResult<npusim_core::PolicyName> {
    match name {
        None => Ok(npusim_core::PolicyName::Hw),
        Some(n) => npusim_core::PolicyName::parse(n).ok_or_else(|| {
            err(format!(
                "policy: unknown numeric policy `{n}` (one of: {})",
                npusim_core::PolicyName::NAMES.join(", ")
            ))
        }),
    }
}

/// `pto_check(src, file, target) -> list[str]`: parses, verifies and lowers; returns the
/// warnings (ops `run` cannot execute) as rendered text; raises on errors.
#[pyfunction]
#[pyo3(signature = (src, file, target=None))]
fn pto_check(src: &str, file: &str, target: Option<&str>) -> PyResult<Vec<String>> {
    let prog = load(src, file, pto_target(target)?, npusim_core::PolicyName::Hw)?;
    Ok(prog
        .unsupported()
        .iter()
        .map(|(span, what)| {
            let op = src.get(span.start..span.end).unwrap_or("this op");
            npusim_ptoas::Diagnostic::new(
                npusim_ptoas::DiagKind::UnknownOp,
                format!("`{op}` cannot be executed by npusim yet"),
                *span,
            )
            .with_help(*what)
            .render(file, src)
            .replacen("error:", "warning:", 1)
        })
        .collect())
}

/// `pto_run(src, file, args, func, target, blocks, max_steps, policy) -> (dict[str, bytes],
/// list[print])`.
///
/// `args` maps parameter names to `.npy` images (`bytes`, for pointers) or literals (`str`,
/// for scalars). Returns the final contents of every buffer argument as `.npy` images, and
/// what the kernel printed (`pto.tprint`, `pto.print`) in execution order as
/// `(block, core, line, text, cli_line)` tuples. A failed run raises `NpusimError` whose
/// `prints` attribute holds the prints made before the failure.
/// `policy` is a numeric policy name of `npusim run --policy` (`hw`, `pto-cpu-sim`).
#[pyfunction]
#[pyo3(signature = (src, file, args, func=None, target=None, blocks=1, max_steps=100_000_000, policy=None))]
#[allow(clippy::too_many_arguments)] // mirrors the Python signature
fn pto_run<'py>(
    py: Python<'py>,
    src: &str,
    file: &str,
    args: &Bound<'py, PyDict>,
    func: Option<&str>,
    target: Option<&str>,
    blocks: u32,
    max_steps: u64,
    policy: Option<&str>,
) -> PyResult<(Bound<'py, PyDict>, Bound<'py, PyList>)> {
    if blocks == 0 {
        return Err(err("blocks: must be at least 1, got 0"));
    }
    let prog = load(src, file, pto_target(target)?, pto_policy(policy)?)?;
    let mut host = Vec::with_capacity(args.len());
    for (k, v) in args.iter() {
        let name: String = k.extract()?;
        let a = if let Ok(b) = v.cast::<PyBytes>() {
            let arr =
                parse_npy(b.as_bytes()).map_err(|e| err(format!("argument `{name}`: {e}")))?;
            HostArg::Buffer(arr)
        } else {
            HostArg::Scalar(v.extract::<String>()?)
        };
        host.push((name, a));
    }
    let cfg = RunConfig {
        blocks,
        max_steps,
        on_print: Some(collect_print),
        ..RunConfig::default()
    };
    RUN_PRINTS.with(|v| v.borrow_mut().clear());
    // The simulator runs without the GIL: other Python threads keep going.
    let result = py.detach(|| prog.run(func, &host, &cfg));
    let collected = RUN_PRINTS.with(|v| std::mem::take(&mut *v.borrow_mut()));
    let outcome = match result {
        Ok(o) => o,
        Err(e) => {
            // The prints made before the failure still reach the user (as the CLI shows them
            // before its error), carried on the exception as `prints`.
            let exc = err(e.render(file, src));
            exc.value(py)
                .setattr("prints", print_tuples(py, &collected, file, src)?)?;
            return Err(exc);
        }
    };
    let out = PyDict::new(py);
    for name in outcome.buffer_names() {
        let a = outcome
            .buffer(name)
            .ok_or_else(|| err(format!("no buffer for `{name}`")))?;
        let bytes = to_npy_bytes(&a).map_err(|e| err(format!("result `{name}`: {e}")))?;
        out.set_item(name, PyBytes::new(py, &bytes))?;
    }
    Ok((out, print_tuples(py, &outcome.prints, file, src)?))
}

/// One kernel print for Python: `(block, core, line, text, cli_line)`; `cli_line` is the
/// print as `npusim run` shows it (`[block B file:line] text`, ending in a newline).
type PrintTuple = (u32, Option<String>, usize, String, String);

fn print_tuples<'py>(
    py: Python<'py>,
    prints: &[PrintRec],
    file: &str,
    src: &str,
) -> PyResult<Bound<'py, PyList>> {
    let v: Vec<PrintTuple> = prints
        .iter()
        .map(|p| {
            let (line, _) = npusim_ptoas::diag::line_col(src, p.span.start);
            let nl = if p.text.ends_with('\n') { "" } else { "\n" };
            let cli = format!("{} {}{nl}", p.tag(file, src), p.text);
            (p.block, p.core.clone(), line, p.text.clone(), cli)
        })
        .collect();
    PyList::new(py, v)
}

thread_local! {
    /// The prints of the run in progress on this thread, so a failed run can still show what
    /// the kernel printed before it failed. The run calls [`collect_print`] on the thread that
    /// called `pto_run` (one block after another); the cores of a mixed cube + vector kernel
    /// run on threads of their own, so a failed mixed run shows no prints (a successful one
    /// returns all of them from [`npusim_ptoas::interp::RunOutcome::prints`]).
    static RUN_PRINTS: std::cell::RefCell<Vec<PrintRec>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn collect_print(p: &PrintRec) {
    RUN_PRINTS.with(|v| v.borrow_mut().push(p.clone()));
}

/// `tpu_check(path) -> (passed, failed, report)`: replays a HAU/GDMA/BDC golden JSON file.
#[pyfunction]
fn tpu_check(py: Python<'_>, path: &str) -> PyResult<(usize, usize, String)> {
    let r = py
        .detach(|| npusim_tpu::replay_file(std::path::Path::new(path)))
        .map_err(|e| err(e.to_string()))?;
    Ok((r.passed, r.failed, r.to_string()))
}

fn tpu_chip(name: &str) -> PyResult<TpuChip> {
    [TpuChip::Bm1684x, TpuChip::Bm1688]
        .into_iter()
        .find(|c| c.name().eq_ignore_ascii_case(name))
        .ok_or_else(|| err(format!("unknown TPU chip `{name}` (BM1684X, BM1688)")))
}

fn data_type(name: &str) -> PyResult<DataType> {
    (0..32)
        .filter_map(|c| DataType::try_from(c).ok())
        .find(|d| d.vendor_name().eq_ignore_ascii_case(name))
        .ok_or_else(|| {
            err(format!(
                "unknown data type `{name}` (DT_FP32, DT_INT32, ...)"
            ))
        })
}

/// A Sophgo TPU core with global memory, driven by the vendor's function names over system
/// addresses (`npusim.tpu.Device` wraps it).
#[pyclass(module = "npusim._native")]
struct TpuDevice {
    core: TpuCore,
    /// Next free global-memory address of the bump allocator behind `alloc`.
    next: SystemAddr,
    end: SystemAddr,
}

#[pymethods]
impl TpuDevice {
    #[new]
    #[pyo3(signature = (chip="BM1684X", gm_size=64 << 20))]
    fn new(chip: &str, gm_size: u64) -> PyResult<Self> {
        let core =
            TpuCore::with_gm_size(tpu_chip(chip)?, gm_size).map_err(|e| err(e.to_string()))?;
        let next = core.gm_base();
        Ok(TpuDevice {
            core,
            next,
            end: next.saturating_add(gm_size),
        })
    }

    /// Reserves `nbytes` of global memory (aligned to 128 bytes); returns its address.
    fn alloc(&mut self, nbytes: u64) -> PyResult<SystemAddr> {
        let a = self.next.div_ceil(128) * 128;
        let e = a
            .checked_add(nbytes)
            .filter(|&e| e <= self.end)
            .ok_or_else(|| err(format!("alloc: {nbytes} bytes do not fit in global memory")))?;
        self.next = e;
        Ok(a)
    }

    fn write(&mut self, addr: SystemAddr, data: &[u8]) -> PyResult<()> {
        self.core
            .write_bytes(addr, data)
            .map_err(|e| err(e.to_string()))
    }

    fn read<'py>(
        &self,
        py: Python<'py>,
        addr: SystemAddr,
        nbytes: usize,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let v = self
            .core
            .read_bytes(addr, nbytes)
            .map_err(|e| err(e.to_string()))?;
        Ok(PyBytes::new(py, &v))
    }

    #[allow(clippy::too_many_arguments)] // the vendor's parameter list
    fn tpu_hau_sort(
        &mut self,
        output_addr: SystemAddr,
        input_addr: SystemAddr,
        len: i32,
        k: i32,
        descended: bool,
        dtype: &str,
    ) -> PyResult<()> {
        let dt = data_type(dtype)?;
        self.core
            .tpu_hau_sort(output_addr, input_addr, len, k, descended, dt)
            .map_err(|e| err(e.to_string()))
    }

    #[allow(clippy::too_many_arguments)] // the vendor's parameter list
    fn tpu_hau_sort_natural_index(
        &mut self,
        output_data_addr: SystemAddr,
        output_idx_addr: SystemAddr,
        input_addr: SystemAddr,
        len: i32,
        k: i32,
        descended: bool,
        dtype: &str,
    ) -> PyResult<()> {
        let dt = data_type(dtype)?;
        self.core
            .tpu_hau_sort_natural_index(
                output_data_addr,
                output_idx_addr,
                input_addr,
                len,
                k,
                descended,
                dt,
            )
            .map_err(|e| err(e.to_string()))
    }

    #[allow(clippy::too_many_arguments)] // the vendor's parameter list
    fn tpu_hau_sort_specific_index(
        &mut self,
        output_data_addr: SystemAddr,
        output_idx_addr: SystemAddr,
        input_data_addr: SystemAddr,
        input_idx_addr: SystemAddr,
        len: i32,
        k: i32,
        descended: bool,
        dtype: &str,
    ) -> PyResult<()> {
        let dt = data_type(dtype)?;
        self.core
            .tpu_hau_sort_specific_index(
                output_data_addr,
                output_idx_addr,
                input_data_addr,
                input_idx_addr,
                len,
                k,
                descended,
                dt,
            )
            .map_err(|e| err(e.to_string()))
    }

    /// `c` is the constant's 32-bit pattern (`scalar_t`).
    #[allow(clippy::too_many_arguments)] // the vendor's parameter list
    #[pyo3(signature = (output_addr, param_addr, index_addr, c, line_num, line_len, index_len, start, end, dtype, fill_const))]
    fn tpu_hau_line_gather(
        &mut self,
        output_addr: SystemAddr,
        param_addr: SystemAddr,
        index_addr: SystemAddr,
        c: u32,
        line_num: i32,
        line_len: i32,
        index_len: i32,
        start: i32,
        end: i32,
        dtype: &str,
        fill_const: bool,
    ) -> PyResult<()> {
        let dt = data_type(dtype)?;
        self.core
            .tpu_hau_line_gather(
                output_addr,
                param_addr,
                index_addr,
                npusim_tpu::Scalar::from_bits(c),
                line_num,
                line_len,
                index_len,
                start,
                end,
                dt,
                fill_const,
            )
            .map_err(|e| err(e.to_string()))
    }

    /// `tpu_hau_poll()`: waits for the issued HAU instructions (all complete at issue here).
    fn tpu_hau_poll(&mut self) -> u64 {
        self.core.tpu_hau_poll()
    }

    /// `call(name, *args)`: the TPU-Kernel function `name` (GDMA, BDC, helpers) with its
    /// arguments in the vendor's order (`tpu.rs` documents how each kind is passed).
    #[pyo3(signature = (name, *args))]
    fn call(
        &mut self,
        py: Python<'_>,
        name: &str,
        args: &Bound<'_, pyo3::types::PyTuple>,
    ) -> PyResult<Py<PyAny>> {
        let vals: Vec<Bound<'_, PyAny>> = args.iter().collect();
        tpu::call(&mut self.core, py, name, &vals)
    }

    /// Writes bytes into local memory at `addr` (`local_addr_t`, inside one lane).
    fn write_local(&mut self, addr: u32, data: &[u8]) -> PyResult<()> {
        self.core
            .write_local(addr, data)
            .map_err(|e| err(e.to_string()))
    }

    /// Reads `nbytes` of local memory at `addr` (inside one lane).
    fn read_local<'py>(
        &self,
        py: Python<'py>,
        addr: u32,
        nbytes: usize,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let v = self
            .core
            .read_local(addr, nbytes)
            .map_err(|e| err(e.to_string()))?;
        Ok(PyBytes::new(py, &v))
    }
}

/// `tpu_api() -> list[(name, list[(parameter, kind)])]`: the TPU-Kernel functions
/// `TpuDevice.call` takes, parameters in the vendor's order.
#[pyfunction]
fn tpu_api() -> Vec<(&'static str, Vec<(&'static str, &'static str)>)> {
    tpu::API.iter().map(|(n, p)| (*n, p.to_vec())).collect()
}

/// `TikKernel(program_json)`: a program recorded by `npusim.tik`, compiled once (names,
/// argument counts, tensors and expressions resolved before anything runs); `run` executes it
/// and keeps the instructions it built for the next run.
/// One output of a TIK run: name, numpy dtype name, shape, bytes.
type TikOutput<'py> = (String, &'static str, Vec<usize>, Bound<'py, PyByteArray>);

#[pyclass(module = "npusim._native")]
struct TikKernel {
    kernel: tik::Kernel,
}

#[pymethods]
impl TikKernel {
    #[new]
    fn new(program: &str) -> PyResult<Self> {
        let prog: tik::Program =
            serde_json::from_str(program).map_err(|e| err(format!("recorded program: {e}")))?;
        Ok(TikKernel {
            kernel: tik::Kernel::compile(&prog).map_err(err)?,
        })
    }

    /// `run(feed, max_steps) -> list[(name, dtype, shape, bytearray)]`: `feed` maps input
    /// names to `(dtype name, little-endian bytes)`; the outputs come in BuildCCE order.
    fn run<'py>(
        &mut self,
        py: Python<'py>,
        feed: &Bound<'py, PyDict>,
        max_steps: u64,
    ) -> PyResult<Vec<TikOutput<'py>>> {
        let mut names = Vec::with_capacity(feed.len());
        let mut bufs = Vec::with_capacity(feed.len());
        for (k, v) in feed.iter() {
            let name: String = k.extract()?;
            let (dtype, data): (String, Bound<'py, PyBytes>) = v.extract()?;
            let t = ElemType::parse(&dtype).ok_or_else(|| {
                err(format!(
                    "feed_dict `{name}`: dtype `{dtype}` is not modelled"
                ))
            })?;
            names.push((name, t));
            bufs.push(data);
        }
        let feed: Vec<(String, ElemType, &[u8])> = names
            .into_iter()
            .zip(&bufs)
            .map(|((n, t), b)| (n, t, b.as_bytes()))
            .collect();
        let kernel = &mut self.kernel;
        let outs = py.detach(|| kernel.run(&feed, max_steps)).map_err(err)?;
        Ok(outs
            .into_iter()
            .map(|(n, a)| {
                let b = PyByteArray::new(py, &a.data);
                (n, a.dtype.numpy_name(), a.shape, b)
            })
            .collect())
    }

    /// `prints() -> list[(block, line, text, site)]`: what the last `run` printed
    /// (`tik_instance.printf`), in execution order; `site` is the print's index in recording
    /// order. Kept when the run failed, up to the failing statement.
    fn prints(&self) -> Vec<(u32, u32, String, usize)> {
        self.kernel
            .prints
            .iter()
            .map(|p| (p.rec.block, p.rec.line, p.rec.text.clone(), p.site))
            .collect()
    }
}

/// The TIK parameter names of an instruction, in order (keyword arguments), or `None`.
#[pyfunction]
fn tik_param_names(name: &str) -> Option<Vec<&'static str>> {
    tik::param_names(name)
}

/// `tik_instructions() -> list[(tik name, legacy name, operand shape)]`: every vector
/// instruction of the Ascend table that TIK calls reach (the rows of shape `Move` are reached
/// as `data_move`).
#[pyfunction]
fn tik_instructions() -> Vec<(&'static str, &'static str, String)> {
    use npusim_ascend::isa::{Instr, Shape};
    Instr::ALL
        .iter()
        .filter(|i| i.shape() != Shape::Move)
        .map(|i| {
            (
                i.tik_name(),
                i.tik_legacy_name(),
                format!("{:?}", i.shape()),
            )
        })
        .collect()
}

/// The native module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("NpusimError", m.py().get_type::<NpusimError>())?;
    m.add_function(wrap_pyfunction!(pto_check, m)?)?;
    m.add_function(wrap_pyfunction!(pto_run, m)?)?;
    m.add_function(wrap_pyfunction!(tpu_check, m)?)?;
    m.add_function(wrap_pyfunction!(tik_param_names, m)?)?;
    m.add_function(wrap_pyfunction!(tik_instructions, m)?)?;
    m.add_function(wrap_pyfunction!(tpu_api, m)?)?;
    m.add_class::<TikKernel>()?;
    m.add_class::<TpuDevice>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
