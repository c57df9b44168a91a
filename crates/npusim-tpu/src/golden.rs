//! Replays golden files of the vendor C-model through the memory-level HAU API.
//!
//! Format (`shared/golden/hau/README.md`): one JSON object `{source, seed, note, cases}`; each
//! case names its `op` (`sort`, `sort_natural_index`, `sort_specific_index`, `line_gather`), its
//! parameters, its inputs and the whole output buffers the C-model left after the call, all as
//! unsigned bit patterns. Every case is run on a fresh region of a simulated BM1684X
//! ([`crate::TpuCore`]): inputs are written to global memory at 64-byte-aligned addresses, the
//! output buffers are pre-filled with `out_fill_byte`, the vendor-named function is called, and
//! the whole `len` (sorts) or `index_len * line_len` (line_gather) buffers are read back and
//! compared bit for bit. This is acceptance criterion (1) of issue #5 and what `npusim hau check`
//! prints.
//!
//! Replay streams (issue #12): the top-level object is read with a [`serde::de::Visitor`] that
//! runs each element of `cases` as soon as it is parsed, so neither the file's text nor a
//! document tree nor the list of cases is ever held whole; memory is bounded by one case and
//! the simulated global memory that case needs (the core grows on demand, up to 64 MiB).

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use crate::chip::{DenormalPolicy, LocalProfile, TpuChip};
use crate::device::{Scalar, TpuCore};
use crate::dtype::DataType;
use crate::golden_bdc::{BdcCase, run_bdc_case, run_sfu_case};
use crate::golden_trans::{TransCase, run_trans_case};
use crate::local::Dim4;
use crate::memory::SystemAddr;

#[derive(Debug, Deserialize)]
#[serde(tag = "op")]
enum Case {
    #[serde(rename = "sort")]
    Sort(SortCase),
    #[serde(rename = "sort_natural_index")]
    SortNaturalIndex(SortCase),
    #[serde(rename = "sort_specific_index")]
    SortSpecificIndex(SortCase),
    #[serde(rename = "line_gather")]
    LineGather(GatherCase),
    #[serde(rename = "gdma_cpy")]
    GdmaCpy(GdmaCase),
    #[serde(rename = "bdc_bin")]
    BdcBin(BdcCase),
    #[serde(rename = "bdc_const")]
    BdcConst(BdcCase),
    #[serde(rename = "bdc_unary")]
    BdcUnary(BdcCase),
    #[serde(rename = "bdc_cmp")]
    BdcCmp(BdcCase),
    #[serde(rename = "bdc_int")]
    BdcInt(BdcCase),
    #[serde(rename = "bdc_sel")]
    BdcSel(BdcCase),
    #[serde(rename = "bdc_pool")]
    BdcPool(BdcCase),
    #[serde(rename = "bdc_sel2")]
    BdcSel2(BdcCase),
    #[serde(rename = "bdc_sfu")]
    BdcSfu(BdcCase),
    #[serde(rename = "kernel_softmax")]
    KernelSoftmax(KernelCase),
    #[serde(rename = "trans")]
    Trans(TransCase),
}

/// A kernel case: `crate::kernels::softmax_last_axis` on `(n, rows, c)` f32 data.
#[derive(Debug, Deserialize)]
struct KernelCase {
    n: i32,
    rows: i32,
    c: i32,
    src: Vec<u32>,
    out: Vec<u32>,
}

/// `tpu_gdma_cpy_*` case (`scripts/gen_tpu_golden.py` documents the fields).
#[derive(Debug, Deserialize)]
struct GdmaCase {
    dir: String,
    dtype: String,
    shape: [i32; 4],
    dst_addr: u64,
    src_addr: u64,
    dst_stride: Option<[i32; 4]>,
    src_stride: Option<[i32; 4]>,
    dst_extent: u64,
    src_extent: u64,
    src: Vec<u32>,
    out_fill_byte: u8,
    out: Vec<u32>,
    #[serde(default)]
    expect_error: bool,
}

#[derive(Debug, Deserialize)]
struct SortCase {
    dtype: String,
    len: i64,
    k: i64,
    descended: bool,
    input: Vec<u32>,
    #[serde(default)]
    input_idx: Option<Vec<u32>>,
    out_fill_byte: u8,
    out_data: Vec<u32>,
    #[serde(default)]
    out_idx: Option<Vec<u32>>,
}

#[derive(Debug, Deserialize)]
struct GatherCase {
    dtype: String,
    line_num: i64,
    line_len: i64,
    index_len: i64,
    start: i64,
    end: i64,
    fill_const: bool,
    c_bits: u32,
    param: Vec<u32>,
    index: Vec<u32>,
    out_fill_byte: u8,
    out: Vec<u32>,
}

impl Case {
    fn op_name(&self) -> &'static str {
        match self {
            Case::Sort(_) => "sort",
            Case::SortNaturalIndex(_) => "sort_natural_index",
            Case::SortSpecificIndex(_) => "sort_specific_index",
            Case::LineGather(_) => "line_gather",
            Case::GdmaCpy(_) => "gdma_cpy",
            Case::BdcBin(_) => "bdc_bin",
            Case::BdcConst(_) => "bdc_const",
            Case::BdcUnary(_) => "bdc_unary",
            Case::BdcCmp(_) => "bdc_cmp",
            Case::BdcInt(_) => "bdc_int",
            Case::BdcSel(_) => "bdc_sel",
            Case::BdcPool(_) => "bdc_pool",
            Case::BdcSel2(_) => "bdc_sel2",
            Case::BdcSfu(_) => "bdc_sfu",
            Case::KernelSoftmax(_) => "kernel_softmax",
            Case::Trans(_) => "trans",
        }
    }
}

/// Why one case failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FailureKind {
    /// An output element differs from the C-model's.
    Mismatch {
        /// Output buffer (`out_data`, `out_idx`, `out`).
        buffer: &'static str,
        /// Element index of the first difference.
        index: usize,
        /// The C-model's bit pattern.
        expected: u32,
        /// The simulator's bit pattern.
        got: u32,
    },
    /// The simulator refused the call (the C-model accepted it).
    Refused(String),
    /// The case itself is malformed (unknown dtype, inconsistent lengths, ...).
    Malformed(String),
}

/// One failed case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaseFailure {
    /// Zero-based position of the case in the file.
    pub case: usize,
    /// The case's `op`.
    pub op: &'static str,
    /// What went wrong.
    pub kind: FailureKind,
}

impl fmt::Display for CaseFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "case {} ({}): ", self.case, self.op)?;
        match &self.kind {
            FailureKind::Mismatch {
                buffer,
                index,
                expected,
                got,
            } => write!(
                f,
                "{buffer}[{index}]: expected {expected:#010x}, got {got:#010x}"
            ),
            FailureKind::Refused(e) => write!(f, "refused: {e}"),
            FailureKind::Malformed(e) => write!(f, "malformed case: {e}"),
        }
    }
}

/// Outcome of replaying a golden file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GoldenReport {
    /// The file's `source` note, if any.
    pub source: Option<String>,
    /// Cases reproduced bit for bit.
    pub passed: usize,
    /// Cases that were not.
    pub failed: usize,
    /// One entry per failed case, in file order.
    pub failures: Vec<CaseFailure>,
    /// One entry per passed case that the C-model refused (it asserted and exited) and the
    /// simulator refused too, with the simulator's typed error, in file order: which assert
    /// class each refusal case exercises (docs/tpu-audit.md, "Assert classes").
    pub refusals: Vec<CaseRefusal>,
}

/// A case the C-model and the simulator both refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaseRefusal {
    /// Zero-based position of the case in the file.
    pub case: usize,
    /// The case's `op`.
    pub op: &'static str,
    /// The simulator's error (its `Display` text: kind, instruction, parameter, rule, value).
    pub error: String,
}

thread_local! {
    /// The error of the refusal [`both_refused`] saw last (taken by `Replayer::run`).
    static LAST_REFUSAL: std::cell::RefCell<Option<String>> =
        const { std::cell::RefCell::new(None) };
}

impl GoldenReport {
    /// Whether every case passed.
    pub fn all_passed(&self) -> bool {
        self.failed == 0
    }
}

impl fmt::Display for GoldenReport {
    /// One line per failure, then `N passed, M failed`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for fail in &self.failures {
            writeln!(f, "{fail}")?;
        }
        write!(f, "{} passed, {} failed", self.passed, self.failed)
    }
}

/// A golden file that could not be read or parsed as a whole.
#[derive(Debug, thiserror::Error)]
pub enum GoldenError {
    /// The file could not be read.
    #[error("cannot read golden file {path}: {source}")]
    Io {
        /// The path given.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The text is not a golden file of this format.
    #[error("invalid golden file: {0}")]
    Json(#[from] serde_json::Error),
}

/// Reads and replays a golden file under the BM1684X profile's policies.
///
/// The file is streamed: cases are parsed and run one at a time, so memory stays bounded by the
/// largest single case (plus the simulated global memory it needs), whatever the file's size.
pub fn replay_file(path: &Path) -> Result<GoldenReport, GoldenError> {
    replay_file_with_policy(path, TpuChip::Bm1684x.hau_denormals())
}

/// [`replay_file`] with an explicit [`DenormalPolicy`] (to show which policy the vectors need).
pub fn replay_file_with_policy(
    path: &Path,
    denormals: DenormalPolicy,
) -> Result<GoldenReport, GoldenError> {
    let file = std::fs::File::open(path).map_err(|source| GoldenError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    replay_reader(std::io::BufReader::with_capacity(1 << 16, file), denormals)
}

/// Replays golden cases given as JSON text.
pub fn replay_str(json: &str) -> Result<GoldenReport, GoldenError> {
    let mut de = serde_json::Deserializer::from_str(json);
    replay_de(&mut de, TpuChip::Bm1684x.hau_denormals())
}

/// Replays golden cases read from `reader`, one case at a time.
pub fn replay_reader<R: std::io::Read>(
    reader: R,
    denormals: DenormalPolicy,
) -> Result<GoldenReport, GoldenError> {
    let mut de = serde_json::Deserializer::from_reader(reader);
    replay_de(&mut de, denormals)
}

fn replay_de<'de, R: serde_json::de::Read<'de>>(
    de: &mut serde_json::Deserializer<R>,
    denormals: DenormalPolicy,
) -> Result<GoldenReport, GoldenError> {
    let mut replayer = Replayer {
        core: None,
        denormals,
        report: GoldenReport::default(),
        next: 0,
    };
    FileSeed(&mut replayer).deserialize(&mut *de)?;
    de.end()?;
    Ok(replayer.report)
}

/// State of one replay: the simulated core (created on first use, regrown when a case needs
/// more global memory) and the report so far.
struct Replayer {
    core: Option<TpuCore>,
    denormals: DenormalPolicy,
    report: GoldenReport,
    next: usize,
}

impl Replayer {
    /// A core with at least `need` bytes of global memory (power-of-two sizes from 1 MiB up to
    /// [`GM_SIZE`]; larger cases are refused, not mis-run).
    fn core(&mut self, need: u64) -> Result<&mut TpuCore, FailureKind> {
        let have = self.core.as_ref().map_or(0, |c| c.memory().gm_range().size);
        if need > have {
            if need > GM_SIZE {
                return Err(FailureKind::Refused(format!(
                    "case needs {need} bytes of global memory, the replay core has {GM_SIZE}"
                )));
            }
            let size = need.next_power_of_two().clamp(1 << 20, GM_SIZE);
            let mut core = TpuCore::with_gm_size(TpuChip::Bm1684x, size).map_err(refused)?;
            core.set_denormal_policy(self.denormals);
            self.core = Some(core);
        }
        self.core
            .as_mut()
            .ok_or_else(|| FailureKind::Refused("no core".into()))
    }

    fn run(&mut self, case: Case) {
        LAST_REFUSAL.with(|r| r.borrow_mut().take());
        let result = match &case {
            Case::Sort(c) | Case::SortNaturalIndex(c) | Case::SortSpecificIndex(c) => {
                run_sort(self, &case, c)
            }
            Case::LineGather(c) => run_gather(self, c),
            Case::GdmaCpy(c) => run_gdma(self, c),
            Case::BdcBin(c)
            | Case::BdcConst(c)
            | Case::BdcUnary(c)
            | Case::BdcCmp(c)
            | Case::BdcInt(c)
            | Case::BdcSel(c)
            | Case::BdcPool(c)
            | Case::BdcSel2(c) => self.core(1 << 20).and_then(|core| run_bdc_case(core, c)),
            Case::BdcSfu(c) => self.core(1 << 20).and_then(|core| run_sfu_case(core, c)),
            Case::KernelSoftmax(c) => run_kernel(self, c),
            Case::Trans(c) => self
                .core(c.gm_need())
                .and_then(|core| run_trans_case(core, c)),
        };
        match result {
            Ok(()) => {
                self.report.passed += 1;
                if let Some(error) = LAST_REFUSAL.with(|r| r.borrow_mut().take()) {
                    self.report.refusals.push(CaseRefusal {
                        case: self.next,
                        op: case.op_name(),
                        error,
                    });
                }
            }
            Err(kind) => {
                self.report.failed += 1;
                self.report.failures.push(CaseFailure {
                    case: self.next,
                    op: case.op_name(),
                    kind,
                });
            }
        }
        self.next += 1;
    }
}

/// Deserializes the top-level object, running the `cases` array as it is read.
struct FileSeed<'a>(&'a mut Replayer);

impl<'de> DeserializeSeed<'de> for FileSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for FileSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a golden file object {source, seed, note, cases}")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut saw_cases = false;
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match key.as_ref() {
                "cases" => {
                    map.next_value_seed(CasesSeed(&mut *self.0))?;
                    saw_cases = true;
                }
                "source" => self.0.report.source = map.next_value::<Option<String>>()?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        if saw_cases {
            Ok(())
        } else {
            Err(serde::de::Error::missing_field("cases"))
        }
    }
}

/// Deserializes the `cases` array one case at a time and runs each.
struct CasesSeed<'a>(&'a mut Replayer);

impl<'de> DeserializeSeed<'de> for CasesSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for CasesSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of cases")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(case) = seq.next_element::<Case>()? {
            self.0.run(case);
        }
        Ok(())
    }
}

/// Largest global memory of the replay core (cases needing more are refused, not mis-run).
const GM_SIZE: u64 = 64 << 20;

/// Lays buffers out one after another from the global-memory base, each 64-byte aligned and
/// followed by a 64-byte gap.
struct Layout {
    next: SystemAddr,
}

impl Layout {
    fn new(base: SystemAddr) -> Layout {
        Layout { next: base }
    }
    fn alloc(&mut self, bytes: u64) -> SystemAddr {
        let a = self.next;
        self.next = (a + bytes + 64 + 63) & !63;
        a
    }
}

fn int(name: &str, v: i64) -> Result<i32, FailureKind> {
    i32::try_from(v).map_err(|_| FailureKind::Malformed(format!("{name} = {v} is not an int")))
}

pub(crate) fn dtype_of(name: &str) -> Result<DataType, FailureKind> {
    DataType::from_short_name(name)
        .ok_or_else(|| FailureKind::Malformed(format!("unknown dtype {name:?}")))
}

pub(crate) fn refused(e: impl fmt::Display) -> FailureKind {
    FailureKind::Refused(e.to_string())
}

/// Compares a call's outcome with the C-model's (`expect_error`: it refused the call):
/// `Ok(true)` when both refused (nothing left to compare), `Ok(false)` when both accepted, a
/// failure when only one of them refused.
pub(crate) fn both_refused<E: fmt::Display>(
    result: Result<(), E>,
    expect_error: bool,
) -> Result<bool, FailureKind> {
    match (result, expect_error) {
        (Err(e), true) => {
            LAST_REFUSAL.with(|r| *r.borrow_mut() = Some(e.to_string()));
            Ok(true)
        }
        (Ok(()), true) => Err(FailureKind::Refused(
            "the C-model rejected this call, the simulator accepted it".into(),
        )),
        (Err(e), false) => Err(refused(e)),
        (Ok(()), false) => Ok(false),
    }
}

pub(crate) fn first_diff(
    buffer: &'static str,
    expected: &[u32],
    got: &[u32],
) -> Result<(), FailureKind> {
    match expected.iter().zip(got).position(|(e, g)| e != g) {
        Some(index) => Err(FailureKind::Mismatch {
            buffer,
            index,
            expected: expected[index],
            got: got[index],
        }),
        None if expected.len() != got.len() => Err(FailureKind::Malformed(format!(
            "{buffer}: expected {} elements, read {}",
            expected.len(),
            got.len()
        ))),
        None => Ok(()),
    }
}

pub(crate) fn check_len(name: &str, v: &[u32], want: usize) -> Result<(), FailureKind> {
    if v.len() == want {
        Ok(())
    } else {
        Err(FailureKind::Malformed(format!(
            "{name} has {} elements, expected {want}",
            v.len()
        )))
    }
}

fn run_sort(rp: &mut Replayer, case: &Case, c: &SortCase) -> Result<(), FailureKind> {
    let dtype = dtype_of(&c.dtype)?;
    let len = int("len", c.len)?;
    let k = int("k", c.k)?;
    let n = usize::try_from(len).map_err(|_| FailureKind::Malformed(format!("len = {len}")))?;
    check_len("input", &c.input, n)?;
    check_len("out_data", &c.out_data, n)?;
    let with_idx = !matches!(case, Case::Sort(_));
    let specific = matches!(case, Case::SortSpecificIndex(_));
    let out_idx = match (&c.out_idx, with_idx) {
        (Some(v), true) => {
            check_len("out_idx", v, n)?;
            Some(v)
        }
        (None, true) => return Err(FailureKind::Malformed("missing out_idx".into())),
        (_, false) => None,
    };
    let input_idx = match (&c.input_idx, specific) {
        (Some(v), true) => {
            check_len("input_idx", v, n)?;
            Some(v)
        }
        (None, true) => return Err(FailureKind::Malformed("missing input_idx".into())),
        (_, false) => None,
    };

    let bytes = 4 * n as u64;
    let core = rp.core(4 * (bytes + 128))?;
    let mut lay = Layout::new(core.gm_base());
    let in_addr = lay.alloc(bytes);
    let in_idx_addr = lay.alloc(bytes);
    let out_addr = lay.alloc(bytes);
    let out_idx_addr = lay.alloc(bytes);
    core.write_u32s(in_addr, &c.input).map_err(refused)?;
    if let Some(ii) = input_idx {
        core.write_u32s(in_idx_addr, ii).map_err(refused)?;
    }
    core.fill_bytes(out_addr, n * 4, c.out_fill_byte)
        .map_err(refused)?;
    core.fill_bytes(out_idx_addr, n * 4, c.out_fill_byte)
        .map_err(refused)?;

    match case {
        Case::Sort(_) => core.tpu_hau_sort(out_addr, in_addr, len, k, c.descended, dtype),
        Case::SortNaturalIndex(_) => core.tpu_hau_sort_natural_index(
            out_addr,
            out_idx_addr,
            in_addr,
            len,
            k,
            c.descended,
            dtype,
        ),
        _ => core.tpu_hau_sort_specific_index(
            out_addr,
            out_idx_addr,
            in_addr,
            in_idx_addr,
            len,
            k,
            c.descended,
            dtype,
        ),
    }
    .map_err(refused)?;
    core.tpu_hau_poll();

    let got = core.read_u32s(out_addr, n).map_err(refused)?;
    first_diff("out_data", &c.out_data, &got)?;
    if let Some(expected) = out_idx {
        let got = core.read_u32s(out_idx_addr, n).map_err(refused)?;
        first_diff("out_idx", expected, &got)?;
    }
    Ok(())
}

fn run_gather(rp: &mut Replayer, c: &GatherCase) -> Result<(), FailureKind> {
    let dtype = dtype_of(&c.dtype)?;
    let line_num = int("line_num", c.line_num)?;
    let line_len = int("line_len", c.line_len)?;
    let index_len = int("index_len", c.index_len)?;
    let start = int("start", c.start)?;
    let end = int("end", c.end)?;
    let esize = match dtype.bits() {
        8 => 1usize,
        16 => 2,
        32 => 4,
        b => return Err(FailureKind::Malformed(format!("{b}-bit dtype"))),
    };
    let ll = usize::try_from(line_len).map_err(|_| FailureKind::Malformed("line_len".into()))?;
    let il = usize::try_from(index_len).map_err(|_| FailureKind::Malformed("index_len".into()))?;
    let window = usize::try_from(i64::from(end) - i64::from(start) + 1)
        .map_err(|_| FailureKind::Malformed("start > end".into()))?;
    let too_big = || FailureKind::Malformed("buffer size overflows".into());
    let param_elems = window.checked_mul(ll).ok_or_else(too_big)?;
    let out_elems = il.checked_mul(ll).ok_or_else(too_big)?;
    let out_bytes = out_elems.checked_mul(esize).ok_or_else(too_big)?;
    check_len("param", &c.param, param_elems)?;
    check_len("index", &c.index, il)?;
    check_len("out", &c.out, out_elems)?;
    let mask = if esize == 4 {
        u32::MAX
    } else {
        (1u32 << (8 * esize)) - 1
    };
    if c.param.iter().chain(&c.out).any(|&v| v & !mask != 0) {
        return Err(FailureKind::Malformed(format!(
            "element wider than {} bits",
            8 * esize
        )));
    }
    let to_bytes = |v: &[u32]| -> Vec<u8> {
        v.iter()
            .flat_map(|x| x.to_le_bytes().into_iter().take(esize))
            .collect()
    };

    let need = (c.param.len() * esize + il * 4 + out_bytes) as u64 + 3 * 128;
    let core = rp.core(need)?;
    let mut lay = Layout::new(core.gm_base());
    let param_addr = lay.alloc((c.param.len() * esize) as u64);
    let index_addr = lay.alloc((il * 4) as u64);
    let out_addr = lay.alloc(out_bytes as u64);
    core.write_bytes(param_addr, &to_bytes(&c.param))
        .map_err(refused)?;
    core.write_u32s(index_addr, &c.index).map_err(refused)?;
    core.fill_bytes(out_addr, out_bytes, c.out_fill_byte)
        .map_err(refused)?;
    core.tpu_hau_line_gather(
        out_addr,
        param_addr,
        index_addr,
        Scalar::from_bits(c.c_bits),
        line_num,
        line_len,
        index_len,
        start,
        end,
        dtype,
        c.fill_const,
    )
    .map_err(refused)?;
    core.tpu_hau_poll();
    let raw = core.read_bytes(out_addr, out_bytes).map_err(refused)?;
    let got: Vec<u32> = raw
        .chunks_exact(esize)
        .map(|ch| {
            let mut a = [0u8; 4];
            a[..esize].copy_from_slice(ch);
            u32::from_le_bytes(a)
        })
        .collect();
    first_diff("out", &c.out, &got)
}

/// Lanes a local tensor of `c` channels at `addr` uses, in channel order (the order the
/// generator lists local regions in).
pub(crate) fn lanes(p: &LocalProfile, addr: u64, c: i32) -> impl Iterator<Item = u64> {
    let npu = u64::from(p.npu_num);
    let start = addr / u64::from(p.local_mem_per_npu);
    let n = u64::try_from(c).unwrap_or(0).min(npu);
    (0..n).map(move |i| (start + i) % npu)
}

fn run_kernel(rp: &mut Replayer, c: &KernelCase) -> Result<(), FailureKind> {
    let total = [c.n, c.rows, c.c]
        .iter()
        .try_fold(1u64, |a, &d| a.checked_mul(u64::try_from(d).ok()?))
        .filter(|&t| t <= 1 << 24)
        .ok_or_else(|| FailureKind::Malformed("bad kernel shape".into()))?;
    check_len("src", &c.src, total as usize)?;
    let bytes = total * 4;
    let out_off = bytes.div_ceil(4096) * 4096;
    let core = rp.core(out_off + bytes + 64)?;
    let gm = core.gm_base();
    core.write_u32s(gm, &c.src).map_err(refused)?;
    crate::kernels::softmax_last_axis(core, gm + out_off, gm, c.n, c.rows, c.c).map_err(refused)?;
    let got = core
        .read_u32s(gm + out_off, total as usize)
        .map_err(refused)?;
    first_diff("out", &c.out, &got)
}

fn run_gdma(rp: &mut Replayer, c: &GdmaCase) -> Result<(), FailureKind> {
    let dtype = dtype_of(&c.dtype)?;
    let esize = match dtype.bits() {
        8 => 1usize,
        16 => 2,
        32 => 4,
        b => return Err(FailureKind::Malformed(format!("{b}-bit dtype"))),
    };
    let bytes = dir_sides(&c.dir)?;
    let (d_local, s_local) = bytes;
    let p = TpuChip::Bm1684x.local();
    let lmem = u64::from(p.local_mem_per_npu);
    let too_big = || FailureKind::Malformed("region too large".into());
    let region_bytes = |ext: u64| ext.checked_mul(esize as u64).ok_or_else(too_big);
    let (d_bytes, s_bytes) = (region_bytes(c.dst_extent)?, region_bytes(c.src_extent)?);
    let mut need = 1u64 << 20;
    for (local, addr, b) in [
        (d_local, c.dst_addr, d_bytes),
        (s_local, c.src_addr, s_bytes),
    ] {
        if local {
            if addr % lmem + b > lmem || addr >= p.local_space() {
                if c.expect_error {
                    // The simulator must refuse it; no region to prepare.
                    continue;
                }
                return Err(FailureKind::Malformed(
                    "local region outside its lane".into(),
                ));
            }
        } else {
            need = need.max(addr.checked_add(b).ok_or_else(too_big)? + 64);
        }
    }
    let n_lanes = |local: bool| {
        if local {
            lanes(&p, 0, c.shape[1]).count()
        } else {
            1
        }
    };
    let src_words = usize::try_from(c.src_extent).map_err(|_| too_big())? * n_lanes(s_local);
    check_len("src", &c.src, src_words)?;
    let core = rp.core(need)?;
    let gm = core.gm_base();
    let to_bytes = |v: &[u32]| -> Vec<u8> {
        v.iter()
            .flat_map(|x| x.to_le_bytes().into_iter().take(esize))
            .collect()
    };
    // Source region, then the destination pre-fill.
    if !c.expect_error {
        if s_local {
            let per = s_bytes as usize;
            let data = to_bytes(&c.src);
            for (i, lane) in lanes(&p, c.src_addr, c.shape[1]).enumerate() {
                let a = (lane * lmem + c.src_addr % lmem) as u32;
                core.write_local(a, &data[i * per..(i + 1) * per])
                    .map_err(refused)?;
            }
        } else {
            core.write_bytes(gm + c.src_addr, &to_bytes(&c.src))
                .map_err(refused)?;
        }
        if d_local {
            let fill = vec![c.out_fill_byte; d_bytes as usize];
            for lane in lanes(&p, c.dst_addr, c.shape[1]) {
                core.write_local((lane * lmem + c.dst_addr % lmem) as u32, &fill)
                    .map_err(refused)?;
            }
        } else {
            core.fill_bytes(gm + c.dst_addr, d_bytes as usize, c.out_fill_byte)
                .map_err(refused)?;
        }
    }
    let shape = Dim4::new(c.shape[0], c.shape[1], c.shape[2], c.shape[3]);
    let st = |s: &Option<[i32; 4]>| s.map(|s| Dim4::new(s[0], s[1], s[2], s[3]));
    let (ds, ss) = (st(&c.dst_stride), st(&c.src_stride));
    let laddr = |a: u64| u32::try_from(a).unwrap_or(u32::MAX);
    let result = match c.dir.as_str() {
        "S2L" => core.tpu_gdma_cpy_S2L(
            laddr(c.dst_addr),
            gm + c.src_addr,
            &shape,
            ds.as_ref(),
            ss.as_ref(),
            dtype,
        ),
        "L2S" => core.tpu_gdma_cpy_L2S(
            gm + c.dst_addr,
            laddr(c.src_addr),
            &shape,
            ds.as_ref(),
            ss.as_ref(),
            dtype,
        ),
        "S2S" => core.tpu_gdma_cpy_S2S(
            gm + c.dst_addr,
            gm + c.src_addr,
            &shape,
            ds.as_ref(),
            ss.as_ref(),
            dtype,
        ),
        _ => core.tpu_gdma_cpy_L2L(
            laddr(c.dst_addr),
            laddr(c.src_addr),
            &shape,
            ds.as_ref(),
            ss.as_ref(),
            dtype,
        ),
    };
    if both_refused(result, c.expect_error)? {
        return Ok(());
    }
    core.tpu_poll();
    let raw = if d_local {
        let mut v = Vec::new();
        for lane in lanes(&p, c.dst_addr, c.shape[1]) {
            let a = (lane * lmem + c.dst_addr % lmem) as u32;
            v.extend(core.read_local(a, d_bytes as usize).map_err(refused)?);
        }
        v
    } else {
        core.read_bytes(gm + c.dst_addr, d_bytes as usize)
            .map_err(refused)?
    };
    let got: Vec<u32> = raw
        .chunks_exact(esize)
        .map(|ch| {
            let mut a = [0u8; 4];
            a[..esize].copy_from_slice(ch);
            u32::from_le_bytes(a)
        })
        .collect();
    first_diff("out", &c.out, &got)
}

/// `(dst is local, src is local)` of a GDMA direction.
fn dir_sides(dir: &str) -> Result<(bool, bool), FailureKind> {
    match dir {
        "S2L" => Ok((true, false)),
        "L2S" => Ok((false, true)),
        "S2S" => Ok((false, false)),
        "L2L" => Ok((true, true)),
        other => Err(FailureKind::Malformed(format!(
            "unknown GDMA direction {other:?}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_format_and_detection() {
        let json = r#"{"cases":[
          {"op":"sort","dtype":"i32","len":3,"k":2,"descended":false,"input":[3,1,2],
           "out_fill_byte":171,"out_data":[1,2,2880154539]},
          {"op":"sort","dtype":"i32","len":3,"k":2,"descended":false,"input":[3,1,2],
           "out_fill_byte":171,"out_data":[1,3,2880154539]},
          {"op":"sort","dtype":"f64","len":1,"k":1,"descended":false,"input":[0],
           "out_fill_byte":0,"out_data":[0]}
        ]}"#;
        let r = replay_str(json).unwrap();
        assert_eq!((r.passed, r.failed), (1, 2));
        assert_eq!(
            r.failures[0].kind,
            FailureKind::Mismatch {
                buffer: "out_data",
                index: 1,
                expected: 3,
                got: 2
            }
        );
        let text = r.to_string();
        assert!(text.ends_with("\n1 passed, 2 failed"), "{text}");
        assert!(text.contains("case 1 (sort): out_data[1]: expected 0x00000003, got 0x00000002"));
        assert!(replay_str("{").is_err());
    }

    #[test]
    fn hostile_cases_fail_without_panicking() {
        let json = r#"{"cases":[
          {"op":"line_gather","dtype":"u8","line_num":2147483647,"line_len":2147483647,
           "index_len":2147483647,"start":0,"end":2147483646,"fill_const":true,"c_bits":0,
           "param":[],"index":[],"out_fill_byte":0,"out":[]},
          {"op":"sort_natural_index","dtype":"f32","len":4000000000,"k":1,"descended":false,
           "input":[],"out_fill_byte":0,"out_data":[],"out_idx":[]},
          {"op":"sort_specific_index","dtype":"u32","len":2,"k":3,"descended":false,
           "input":[1,2],"input_idx":[0,1],"out_fill_byte":0,"out_data":[1,2],"out_idx":[0,1]},
          {"op":"line_gather","dtype":"f16","line_num":4,"line_len":1,"index_len":1,
           "start":0,"end":0,"fill_const":false,"c_bits":0,"param":[70000],"index":[0],
           "out_fill_byte":0,"out":[0]}
        ]}"#;
        let r = replay_str(json).unwrap();
        assert_eq!((r.passed, r.failed), (0, 4), "{r}");
        assert!(
            matches!(r.failures[2].kind, FailureKind::Refused(ref e) if e.starts_with("K out of range"))
        );
    }
}
