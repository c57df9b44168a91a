//! The sync-hazard checker (`Program::run_checked`, `interp::hazard`): seeded-bug kernels, each
//! a copy of a correct kernel with one bug, are reported with both source lines, the pipes and
//! the tile range; the correct originals and every kernel in `examples/pto` give no report.
//!
//! Expected lines are found here from the kernels' text (the line of a given op on a given
//! tile), not from the checker.

use npusim_core::{ElemType, NpyArray};
use npusim_ptoas::interp::hazard::{HazardKind, Report};
use npusim_ptoas::interp::trace::Pipe;
use npusim_ptoas::interp::{HostArg, LowerOptions, ParamInfo, Program, RunConfig, lower};
use npusim_ptoas::parse_module;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn data(name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/hazards")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn prog(src: &str) -> Program {
    let m = parse_module(src, "k.pto").expect("parses");
    lower(&m, LowerOptions::default()).expect("lowers")
}

fn f32s(n: usize) -> HostArg {
    let v: Vec<f32> = (0..n).map(|i| (i % 17) as f32 * 0.5 - 3.0).collect();
    HostArg::Buffer(NpyArray::from_elems(vec![n], &v))
}

/// Runs a `(x, y, n_rows)` or `(x, y, z, n_rows)` kernel on 64 rows of 256 f32 with the
/// checker on; returns the report and the final `y` (or `z`) bytes.
fn run_vadd(src: &str, out: &str) -> (Report, Vec<u8>) {
    let p = prog(src);
    let n = 64 * 256;
    let mut args: Vec<(String, HostArg)> = vec![
        ("x".into(), f32s(n)),
        ("y".into(), f32s(n)),
        ("n_rows".into(), HostArg::Scalar("64".into())),
    ];
    if out == "z" {
        args.push(("z".into(), f32s(n)));
    }
    let o = p
        .run_checked(None, &args, &RunConfig::default(), src)
        .expect("runs");
    let unchecked = p.run(None, &args, &RunConfig::default()).expect("runs");
    let bytes = o.buffer(out).expect("output").data;
    assert_eq!(
        bytes,
        unchecked.buffer(out).expect("output").data,
        "the checker does not change results"
    );
    (o.hazards.expect("a report"), bytes)
}

/// 1-based line of the only line containing every needle, after line `from`.
fn line(src: &str, needles: &[&str], from: usize) -> usize {
    line_in(src, needles, from, usize::MAX)
}

/// 1-based line of the only line strictly between lines `from` and `to` containing every needle.
fn line_in(src: &str, needles: &[&str], from: usize, to: usize) -> usize {
    let hits: Vec<usize> = src
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l))
        .filter(|(n, l)| *n > from && *n < to && needles.iter().all(|k| l.contains(k)))
        .map(|(n, _)| n)
        .collect();
    assert_eq!(hits.len(), 1, "{needles:?} in lines {from}..{to}: {hits:?}");
    hits[0]
}

fn line_of(src: &str, pos: usize) -> usize {
    src[..pos].matches('\n').count() + 1
}

/// The report has a hazard of `kind` from `earlier` (line, pipe) to `later` (line, pipe), and
/// its rendering names both lines.
fn assert_reported(
    r: &Report,
    src: &str,
    kind: HazardKind,
    earlier: (usize, Pipe),
    later: (usize, Pipe),
) {
    let found = r.hazards.iter().find(|h| {
        h.kind == kind
            && line_of(src, h.earlier.span.start) == earlier.0
            && line_of(src, h.later.span.start) == later.0
    });
    let Some(h) = found else {
        panic!(
            "no {kind:?} from line {} to line {}; report:\n{}",
            earlier.0,
            later.0,
            r.render("k.pto", src, "error")
        );
    };
    assert_eq!((h.earlier.pipe, h.later.pipe), (earlier.1, later.1));
    let text = r.render("k.pto", src, "error");
    assert!(text.contains(&format!("k.pto:{}:", earlier.0)), "{text}");
    assert!(text.contains(&format!("k.pto:{}:", later.0)), "{text}");
    assert!(text.contains(&format!("at line {}", earlier.0)), "{text}");
    assert!(text.contains(&format!("line {}", later.0)), "{text}");
}

/// Line of the op matching `needles` in the ping (`0`) or pong (`1`) half of the ping-pong loop.
fn pp(src: &str, half: usize, needles: &[&str]) -> usize {
    let ping = line(src, &["// ping"], 0);
    let pong = line(src, &["// pong"], 0);
    let end = line(src, &["scf.for"], 0);
    let end = src
        .lines()
        .enumerate()
        .skip(end)
        .find(|(_, l)| l.trim() == "}")
        .map(|(i, _)| i + 1)
        .expect("loop end");
    if half == 0 {
        line_in(src, needles, ping, pong)
    } else {
        line_in(src, needles, pong, end)
    }
}

#[test]
fn correct_originals_give_no_report() {
    let va = std::fs::read_to_string(root().join("examples/pto/vector_add.pto")).unwrap();
    let (r, z) = run_vadd(&va, "z");
    assert!(r.skipped.is_none(), "{r:?}");
    assert!(r.is_clean(), "{}", r.render("vector_add.pto", &va, "error"));
    // z = x + y, checked against a scalar model.
    let zs: Vec<f32> = z
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    for (i, v) in zs.iter().enumerate() {
        let x = (i % 17) as f32 * 0.5 - 3.0;
        assert_eq!(*v, x + x, "z[{i}]");
    }
    let pp = data("vadd_pingpong.pto");
    let (r, y) = run_vadd(&pp, "y");
    assert!(r.skipped.is_none(), "{r:?}");
    assert!(
        r.is_clean(),
        "{}",
        r.render("vadd_pingpong.pto", &pp, "error")
    );
    let ys: Vec<f32> = y
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    for (i, v) in ys.iter().enumerate() {
        let x = (i % 17) as f32 * 0.5 - 3.0;
        assert_eq!(*v, x + x, "y[{i}]");
    }
}

#[test]
fn missing_wait_is_reported() {
    let s = data("missing_wait.pto");
    let (r, _) = run_vadd(&s, "y");
    let add = pp(&s, 0, &["pto.tadd ins(%a0"]);
    let load = pp(&s, 0, &["pto.tload", "outs(%a0"]);
    assert_reported(
        &r,
        &s,
        HazardKind::WriteAfterRead,
        (add, Pipe::Vector),
        (load, Pipe::Mte2),
    );
    assert_eq!(r.hazards.len(), 1, "{}", r.render("k.pto", &s, "error"));
}

#[test]
fn wrong_event_id_is_reported_as_a_hang() {
    let s = data("wrong_event_id.pto");
    let (r, _) = run_vadd(&s, "y");
    let ev = "#pto.pipe_event_type<TVEC>, #pto.pipe_event_type<TLOAD>";
    // The changed wait (ping's, now EVENT_ID1) and pong's set of EVENT_ID1.
    let ping_wait = pp(&s, 0, &["pto.wait_event", ev]);
    let pong_wait = pp(&s, 1, &["pto.wait_event", ev]);
    let pong_set = pp(&s, 1, &["pto.record_event", ev]);
    assert!(s.lines().nth(ping_wait - 1).unwrap().contains("EVENT_ID1"));
    assert_reported(
        &r,
        &s,
        HazardKind::Deadlock,
        (pong_wait, Pipe::Mte2),
        (pong_set, Pipe::Vector),
    );
    assert_reported(
        &r,
        &s,
        HazardKind::Deadlock,
        (ping_wait, Pipe::Mte2),
        (pong_set, Pipe::Vector),
    );
}

#[test]
fn wrong_pipe_pair_is_reported() {
    let s = data("wrong_pipe_pair.pto");
    let (r, _) = run_vadd(&s, "z");
    let add = line(&s, &["pto.tadd"], 0);
    let store = line(&s, &["pto.tstore"], 0);
    assert_reported(
        &r,
        &s,
        HazardKind::ReadAfterWrite,
        (add, Pipe::Vector),
        (store, Pipe::Mte3),
    );
    assert_eq!(r.hazards.len(), 1, "{}", r.render("k.pto", &s, "error"));
}

#[test]
fn reuse_of_a_tile_before_its_store_completed_is_reported() {
    let s = data("reuse_before_store.pto");
    let (r, _) = run_vadd(&s, "y");
    let store = pp(&s, 0, &["pto.tstore ins(%s0"]);
    let add = pp(&s, 0, &["pto.tadd", "outs(%s0"]);
    assert_reported(
        &r,
        &s,
        HazardKind::WriteAfterRead,
        (store, Pipe::Mte3),
        (add, Pipe::Vector),
    );
    assert_eq!(r.hazards.len(), 1, "{}", r.render("k.pto", &s, "error"));
}

#[test]
fn swapped_double_buffer_is_reported() {
    let s = data("double_buffer_swapped.pto");
    let (r, _) = run_vadd(&s, "y");
    let ping_add = pp(&s, 0, &["pto.tadd ins(%a0"]);
    let pong_load = pp(&s, 1, &["pto.tload", "outs(%a0"]);
    assert_reported(
        &r,
        &s,
        HazardKind::WriteAfterRead,
        (ping_add, Pipe::Vector),
        (pong_load, Pipe::Mte2),
    );
    let h = &r.hazards[0];
    assert_eq!(h.loc, Some(npusim_core::TileLoc::Vec));
    assert_eq!(
        h.range.1 - h.range.0,
        16 * 256 * 4,
        "the whole 16x256 f32 tile"
    );
}

#[test]
fn missing_barrier_is_reported() {
    let s = data("missing_barrier.pto");
    let (r, _) = run_vadd(&s, "z");
    let add = line(&s, &["pto.tadd"], 0);
    let store = line(&s, &["pto.tstore"], 0);
    let load_x = line(&s, &["pto.tload", "outs(%a"], 0);
    assert_reported(
        &r,
        &s,
        HazardKind::WriteAfterRead,
        (add, Pipe::Vector),
        (load_x, Pipe::Mte2),
    );
    assert_reported(
        &r,
        &s,
        HazardKind::WriteAfterRead,
        (store, Pipe::Mte3),
        (add, Pipe::Vector),
    );
}

/// Inputs for any kernel: every pointer gets a buffer of `len` elements of its type, integer
/// scalars `ints`, float scalars 0.5.
fn bind(p: &Program, len: usize, ints: &str) -> Vec<(String, HostArg)> {
    p.params(None)
        .expect("params")
        .into_iter()
        .map(|(name, info)| {
            let a = match info {
                ParamInfo::Pointer(d) => {
                    let e = d.elem_type().unwrap_or(ElemType::U8);
                    HostArg::Buffer(NpyArray {
                        dtype: e,
                        shape: vec![len],
                        data: (0..len * e.size()).map(|i| (i * 37 % 61) as u8).collect(),
                    })
                }
                ParamInfo::Scalar(s) if s.is_float() => HostArg::Scalar("0.5".into()),
                ParamInfo::Scalar(_) => HostArg::Scalar(ints.into()),
                ParamInfo::Other(_) => HostArg::Scalar("0".into()),
            };
            (name, a)
        })
        .collect()
}

fn pto_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut es: Vec<_> = std::fs::read_dir(dir)
        .expect("dir")
        .map(|e| e.expect("entry").path())
        .collect();
    es.sort();
    for p in es {
        if p.is_dir() {
            pto_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "pto") {
            out.push(p);
        }
    }
}

#[test]
fn every_example_and_correct_kernel_gives_no_report() {
    let mut files = Vec::new();
    pto_files(&root().join("examples/pto"), &mut files);
    for k in ["vadd_pingpong.pto", "row_softmax_synced.pto"] {
        files.push(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/data/hazards")
                .join(k),
        );
    }
    assert!(files.len() >= 12, "{files:?}");
    let (mut checked, mut skipped) = (Vec::new(), Vec::new());
    for f in &files {
        let src = std::fs::read_to_string(f).expect("read");
        let p = prog(&src);
        let cfg = RunConfig {
            blocks: 2,
            ..RunConfig::default()
        };
        let args = bind(&p, 1 << 18, "32");
        let o = p
            .run_checked(None, &args, &cfg, &src)
            .unwrap_or_else(|e| panic!("{}: {}", f.display(), e.render("k.pto", &src)));
        let r = o.hazards.expect("a report");
        assert!(
            r.is_clean(),
            "{}:\n{}",
            f.display(),
            r.render(&f.display().to_string(), &src, "error")
        );
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        match r.skipped {
            None => checked.push(name),
            Some(_) => skipped.push(name),
        }
    }
    // The kernels with hand-written syncs are checked; the others are PTOAS auto-sync input.
    checked.sort();
    assert_eq!(
        checked,
        [
            "gemm_256x256x512.pto",
            "row_softmax_synced.pto",
            "vadd_pingpong.pto",
            "vector_add.pto"
        ],
        "skipped: {skipped:?}"
    );
}

#[test]
fn synced_row_softmax_is_clean_and_computes_what_the_example_does() {
    let synced = data("row_softmax_synced.pto");
    let plain = std::fs::read_to_string(root().join("examples/pto/row_softmax.pto")).unwrap();
    let args: Vec<(String, HostArg)> = vec![
        ("x".into(), f32s(32 * 1024)),
        ("y".into(), f32s(32 * 1024)),
        ("n_rows".into(), HostArg::Scalar("32".into())),
    ];
    let cfg = RunConfig::default();
    let a = prog(&synced)
        .run_checked(None, &args, &cfg, &synced)
        .expect("runs");
    let r = a.hazards.as_ref().expect("report");
    assert!(
        r.skipped.is_none() && r.is_clean(),
        "{}",
        r.render("k.pto", &synced, "error")
    );
    let b = prog(&plain).run(None, &args, &cfg).expect("runs");
    assert_eq!(a.buffer("y").unwrap().data, b.buffer("y").unwrap().data);
    // Dropping the wait for %out to be free (before the division writes it) is reported.
    let w = "      pto.wait_event [#pto.pipe_event_type<TSTORE_VEC>, #pto.pipe_event_type<TVEC>, #pto.event<EVENT_ID0>]\n";
    let i = synced.find(w).expect("the wait");
    let bug = format!("{}{}", &synced[..i], &synced[i + w.len()..]);
    let r = prog(&bug)
        .run_checked(None, &args, &cfg, &bug)
        .expect("runs")
        .hazards
        .expect("report");
    let div = line(&bug, &["pto.trowexpanddiv"], 0);
    let store = line(&bug, &["pto.tstore"], 0);
    assert_reported(
        &r,
        &bug,
        HazardKind::WriteAfterRead,
        (store, Pipe::Mte3),
        (div, Pipe::Vector),
    );
}

#[test]
fn kernels_without_sync_ops_are_skipped_and_say_why() {
    let src = std::fs::read_to_string(root().join("examples/pto/row_softmax.pto")).unwrap();
    let p = prog(&src);
    let o = p
        .run_checked(None, &bind(&p, 1 << 16, "16"), &RunConfig::default(), &src)
        .expect("runs");
    let r = o.hazards.expect("report");
    assert!(r.is_clean());
    assert!(
        r.skipped
            .as_deref()
            .unwrap()
            .contains("automatic sync insertion")
    );
}

/// Small kernels written here: sync forms the examples do not use.
fn one_block(body: &str, syncs_first: &str) -> String {
    let t = "!pto.tile_buf<loc=vec, dtype=f32, rows=8, cols=64, v_row=8, v_col=64, blayout=row_major, slayout=none_box, fractal=512, pad=0>";
    let v = "!pto.tensor_view<8x64xf32>";
    let pv = "!pto.partition_tensor_view<8x64xf32>";
    format!(
        r#"module {{
  func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>) attributes {{pto.kernel_kind = #pto.kernel_kind<vector>}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    %xv = pto.make_tensor_view %x, shape = [%c8, %c64], strides = [%c64, %c1] : {v}
    %yv = pto.make_tensor_view %y, shape = [%c8, %c64], strides = [%c64, %c1] : {v}
    %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c8, %c64] : {v} -> {pv}
    %yp = pto.partition_view %yv, offsets = [%c0, %c0], sizes = [%c8, %c64] : {v} -> {pv}
    %a = pto.alloc_tile : {t}
    %b = pto.alloc_tile : {t}
{syncs_first}
    pto.tload ins(%xp : {pv}) outs(%a : {t})
{body}
    pto.tstore ins(%b : {t}) outs(%yp : {pv})
    return
  }}
}}
"#
    )
}

fn check_small(src: &str) -> Report {
    let p = prog(src);
    p.run_checked(None, &bind(&p, 512, "0"), &RunConfig::default(), src)
        .expect("runs")
        .hazards
        .expect("report")
}

#[test]
fn set_flag_forms_barriers_and_a_wait_before_its_set() {
    let tadd = "    pto.tadd ins(%a, %a : !pto.tile_buf<loc=vec, dtype=f32, rows=8, cols=64, v_row=8, v_col=64, blayout=row_major, slayout=none_box, fractal=512, pad=0>, !pto.tile_buf<loc=vec, dtype=f32, rows=8, cols=64, v_row=8, v_col=64, blayout=row_major, slayout=none_box, fractal=512, pad=0>) outs(%b : !pto.tile_buf<loc=vec, dtype=f32, rows=8, cols=64, v_row=8, v_col=64, blayout=row_major, slayout=none_box, fractal=512, pad=0>)";
    let sf =
        |op: &str, a: &str, b: &str| format!("    pto.{op}[<PIPE_{a}>, <PIPE_{b}>, <EVENT_ID3>]");
    // set_flag/wait_flag spelling: clean.
    let ok = one_block(
        &format!(
            "{}\n{}\n{tadd}\n{}\n{}",
            sf("set_flag", "MTE2", "V"),
            sf("wait_flag", "MTE2", "V"),
            sf("set_flag", "V", "MTE3"),
            sf("wait_flag", "V", "MTE3")
        ),
        "",
    );
    let r = check_small(&ok);
    assert!(r.skipped.is_none() && r.is_clean(), "{r:?}");
    // A barrier on PIPE_ALL orders everything; one on PIPE_V orders nothing across pipes.
    let all = one_block(
        &format!(
            "    pto.barrier #pto.pipe<PIPE_ALL>\n{tadd}\n    pto.barrier #pto.pipe<PIPE_ALL>"
        ),
        "",
    );
    assert!(check_small(&all).is_clean());
    let v = one_block(
        &format!("    pto.barrier #pto.pipe<PIPE_V>\n{tadd}\n    pto.barrier #pto.pipe<PIPE_V>"),
        "",
    );
    let r = check_small(&v);
    let kinds: Vec<(HazardKind, Pipe, Pipe)> = r
        .hazards
        .iter()
        .map(|h| (h.kind, h.earlier.pipe, h.later.pipe))
        .collect();
    assert_eq!(
        kinds,
        [
            (HazardKind::ReadAfterWrite, Pipe::Mte2, Pipe::Vector),
            (HazardKind::ReadAfterWrite, Pipe::Vector, Pipe::Mte3)
        ]
    );
    // The wrong direction (V -> MTE2 instead of MTE2 -> V) orders nothing the add needs.
    let wrong = one_block(
        &format!(
            "{}\n{}\n{tadd}\n    pto.barrier #pto.pipe<PIPE_ALL>",
            sf("set_flag", "V", "MTE2"),
            sf("wait_flag", "V", "MTE2")
        ),
        "",
    );
    let r = check_small(&wrong);
    assert_eq!(r.hazards.len(), 1, "{r:?}");
    assert_eq!(r.hazards[0].kind, HazardKind::ReadAfterWrite);
    // A wait before its set in program order (pre-armed style): the store's wait comes first,
    // the add's set later; what V did up to the set is ordered before the store.
    let early = one_block(
        &format!(
            "{}\n{}\n{tadd}\n{}",
            sf("set_flag", "MTE2", "V"),
            sf("wait_flag", "MTE2", "V"),
            sf("set_flag", "V", "MTE3"),
        ),
        &sf("wait_flag", "V", "MTE3"),
    );
    let r = check_small(&early);
    // The wait runs before the load and the add; the store after the set is ordered. The
    // store is given to MTE3 after the wait, so nothing is reported.
    assert!(r.is_clean(), "{}", r.render("k.pto", &early, "error"));
}
