//! `RunConfig::trace` and the Chrome / Perfetto trace-event export: the structure of the traces
//! of the repository's row-softmax, vector-add and gemm examples, checked against the runs'
//! own counters, the kernels' source text and the cost model written out here.

use npusim_core::NpyArray;
use npusim_ptoas::interp::{HostArg, LowerOptions, Program, RunConfig, RunOutcome, lower};
use npusim_ptoas::parse_module;
use serde_json::Value;

const ROW_SOFTMAX: &str = include_str!("../../../examples/pto/row_softmax.pto");
const VECTOR_ADD: &str = include_str!("../../../examples/pto/vector_add.pto");

fn prog(src: &str) -> Program {
    let m = parse_module(src, "k.pto").expect("parses");
    lower(&m, LowerOptions::default()).expect("lowers")
}

fn run(p: &Program, args: Vec<(&str, HostArg)>, trace: bool) -> RunOutcome {
    let args: Vec<(String, HostArg)> = args.into_iter().map(|(k, v)| (k.into(), v)).collect();
    let cfg = RunConfig {
        trace,
        ..RunConfig::default()
    };
    p.run(None, &args, &cfg).expect("runs")
}

fn f32s(shape: &[usize], n: usize) -> HostArg {
    let v: Vec<f32> = (0..n).map(|i| (i % 13) as f32 * 0.25).collect();
    HostArg::Buffer(NpyArray::from_elems(shape.to_vec(), &v))
}

fn events(json: &str) -> (Value, Vec<Value>) {
    let d: Value = serde_json::from_str(json).expect("the trace is JSON");
    let ev = d["traceEvents"].as_array().expect("traceEvents").clone();
    (d, ev)
}

fn slices(ev: &[Value]) -> Vec<&Value> {
    ev.iter().filter(|e| e["ph"] == "X").collect()
}

/// The 1-based lines of `src` that contain `needle`.
fn lines_with(src: &str, needle: &str) -> Vec<u64> {
    src.lines()
        .enumerate()
        .filter(|(_, l)| l.contains(needle))
        .map(|(i, _)| i as u64 + 1)
        .collect()
}

#[test]
fn row_softmax_trace_has_tracks_and_one_slice_per_instruction() {
    let p = prog(ROW_SOFTMAX);
    let rows = 32;
    let args = vec![
        ("x", f32s(&[rows, 1024], rows * 1024)),
        ("y", f32s(&[rows, 1024], rows * 1024)),
        ("n_rows", HostArg::Scalar(rows.to_string())),
    ];
    let off = run(&p, args.clone(), false);
    assert!(off.trace.is_none(), "no recording unless asked");
    let on = run(&p, args, true);
    assert_eq!(
        off.buffer("y").unwrap().data,
        on.buffer("y").unwrap().data,
        "tracing does not change results"
    );
    let rec = on.trace.as_ref().expect("recording");
    let (d, ev) = events(&rec.chrome_json(&p, "row_softmax.pto", ROW_SOFTMAX));
    assert_eq!(d["otherData"]["timing"], "estimate");
    assert!(
        d["otherData"]["note"]
            .as_str()
            .unwrap()
            .contains("not measured cycles")
    );
    // The table comes from the chip profile (a2a3 here) and is written out in the metadata.
    let cost = npusim_core::ChipProfile::by_name("a2a3").unwrap().cost;
    assert_eq!(d["otherData"]["cost_model"], cost.describe().as_str());
    assert!(
        d["otherData"]["cost_model"]
            .as_str()
            .unwrap()
            .contains("MTE2 load (PIPE_MTE2): 200 ns + bytes / 64 B/ns")
    );
    // Tracks: core 0 and its seven pipes.
    let names: Vec<&str> = ev
        .iter()
        .filter(|e| e["ph"] == "M" && e["name"] == "thread_name")
        .map(|e| e["args"]["name"].as_str().unwrap())
        .collect();
    for want in [
        "scalar",
        "MTE2 load",
        "vector",
        "cube",
        "MTE3 store",
        "fixpipe",
    ] {
        assert!(
            names.iter().any(|n| n.starts_with(want)),
            "{want} in {names:?}"
        );
    }
    assert!(
        ev.iter()
            .any(|e| e["ph"] == "M" && e["name"] == "process_name" && e["pid"] == 0)
    );
    // One slice per executed instruction: the run counts one step per block besides them.
    let x = slices(&ev);
    assert_eq!(x.len() as u64, on.stats.steps - u64::from(on.stats.blocks));
    // Per op, the slice count equals the run's own per-op counter.
    for (op, n) in &on.stats.per_op {
        let c = x.iter().filter(|e| e["name"] == *op).count() as u64;
        assert_eq!(c, *n, "{op}");
    }
    // Loads are on MTE2, stores on MTE3, at their source lines, moving 8 rows x 1024 f32.
    let load_lines = lines_with(ROW_SOFTMAX, "pto.tload");
    let store_lines = lines_with(ROW_SOFTMAX, "pto.tstore");
    for e in &x {
        let (tid, line) = (
            e["tid"].as_u64().unwrap(),
            e["args"]["line"].as_u64().unwrap(),
        );
        match e["name"].as_str().unwrap() {
            "pto.tload" => {
                assert_eq!(tid, 1);
                assert!(load_lines.contains(&line));
                assert_eq!(e["args"]["bytes"], 8 * 1024 * 4);
                let ops = e["args"]["operands"].as_array().unwrap();
                assert_eq!(ops[0]["loc"], "vec");
                assert_eq!(ops[0]["access"], "write");
                assert_eq!(ops[0]["elems"], 8 * 1024);
                assert_eq!(ops[1]["loc"], "gm");
                // Cost model: 200 ns + bytes / 64 B/ns, in microseconds.
                let dur = e["dur"].as_f64().unwrap();
                assert!(
                    (dur - (200.0 + 32768.0 / 64.0) / 1000.0).abs() < 1e-3,
                    "{dur}"
                );
            }
            "pto.tstore" => {
                assert_eq!(tid, 6);
                assert!(store_lines.contains(&line));
            }
            n if n.starts_with("pto.t") => assert_eq!(tid, 3, "{n} on the vector pipe"),
            _ => assert_eq!(tid, 0),
        }
        assert!(e["ts"].as_f64().unwrap() >= 0.0);
    }
}

#[test]
fn every_record_wait_pair_is_one_flow_from_the_set_pipe_to_the_wait_pipe() {
    let p = prog(VECTOR_ADD);
    let rows = 64;
    let args = vec![
        ("x", f32s(&[rows, 256], rows * 256)),
        ("y", f32s(&[rows, 256], rows * 256)),
        ("z", f32s(&[rows, 256], rows * 256)),
        ("n_rows", HostArg::Scalar(rows.to_string())),
    ];
    let o = run(&p, args, true);
    let (_, ev) = events(
        &o.trace
            .unwrap()
            .chrome_json(&p, "vector_add.pto", VECTOR_ADD),
    );
    let starts: Vec<&Value> = ev.iter().filter(|e| e["ph"] == "s").collect();
    let ends: Vec<&Value> = ev.iter().filter(|e| e["ph"] == "f").collect();
    // Two record/wait pairs per 16-row iteration.
    let pairs = 2 * rows / 16;
    assert_eq!(starts.len(), pairs);
    assert_eq!(ends.len(), pairs);
    let x = slices(&ev);
    let waits = x.iter().filter(|e| e["name"] == "pto.wait_event").count();
    assert_eq!(waits, pairs);
    for s in &starts {
        let f = ends
            .iter()
            .find(|f| f["id"] == s["id"])
            .expect("each flow start has its end");
        // TLOAD -> TVEC (MTE2 -> vector) or TVEC -> TSTORE_VEC (vector -> MTE3).
        let pair = (s["tid"].as_u64().unwrap(), f["tid"].as_u64().unwrap());
        assert!(pair == (1, 3) || pair == (3, 6), "{pair:?}");
        assert!(s["ts"].as_f64().unwrap() <= f["ts"].as_f64().unwrap());
        // Each end lies inside a wait slice on its track (flow binding).
        let t = f["ts"].as_f64().unwrap();
        assert!(x.iter().any(|w| {
            w["name"] == "pto.wait_event"
                && w["tid"] == f["tid"]
                && w["ts"].as_f64().unwrap() <= t
                && t <= w["ts"].as_f64().unwrap() + w["dur"].as_f64().unwrap()
        }));
    }
    // The vector add waits for its loads: it starts after the load it depends on ends.
    let first_add = x.iter().find(|e| e["name"] == "pto.tadd").unwrap();
    let loads_end = x
        .iter()
        .filter(|e| e["name"] == "pto.tload")
        .take(2)
        .map(|e| e["ts"].as_f64().unwrap() + e["dur"].as_f64().unwrap())
        .fold(0.0, f64::max);
    assert!(first_add["ts"].as_f64().unwrap() >= loads_end);
}

#[test]
fn stats_count_every_op_and_sum_its_bytes_and_estimated_time() {
    let p = prog(ROW_SOFTMAX);
    let rows = 16;
    let args = vec![
        ("x", f32s(&[rows, 1024], rows * 1024)),
        ("y", f32s(&[rows, 1024], rows * 1024)),
        ("n_rows", HostArg::Scalar(rows.to_string())),
    ];
    let o = run(&p, args, true);
    let rec = o.trace.as_ref().unwrap();
    let st = rec.op_stats(&p, ROW_SOFTMAX);
    for (op, n) in &o.stats.per_op {
        let s = st.iter().find(|s| s.op == *op).expect("every op listed");
        assert_eq!(s.count, *n, "{op}");
    }
    // Two 8-row blocks, one load of 8 x 1024 f32 each; cost 200 ns + bytes / 64 B/ns.
    let load = st.iter().find(|s| s.op == "pto.tload").unwrap();
    assert_eq!(load.bytes, 2 * 8 * 1024 * 4);
    assert!((load.est_ns - 2.0 * (200.0 + 32768.0 / 64.0)).abs() < 1e-6);
    assert_eq!(load.bytes, o.stats.gm_to_chip);
    let json: Value =
        serde_json::from_str(&npusim_ptoas::interp::trace::stats_json(&st)).expect("json");
    assert_eq!(json["timing"], "estimate");
    assert_eq!(json["ops"].as_array().unwrap().len(), st.len());
    let table = npusim_ptoas::interp::trace::stats_table(&st);
    assert!(table.lines().any(|l| l.starts_with("pto.tload")));
}
