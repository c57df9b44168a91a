//! What observing a run costs (issue 18, acceptance 4): row softmax (`examples/pto/row_softmax.pto`,
//! 32x1024 f32, 8 blocks; the same input as `benches/interp.rs`) executed
//!
//! - `off`: tracing and hazard checking off (the interpreter's one `Option` check per
//!   instruction is all that remains of the hooks);
//! - `trace`: every instruction recorded ([`RunConfig::trace`]);
//! - `trace_json`: recorded and exported as Chrome / Perfetto JSON (what `--trace FILE` does,
//!   less the file write);
//! - `hazards`: the sync-hazard checker on (the synced copy of row softmax in
//!   `tests/data/hazards/row_softmax_synced.pto`; the plain kernel has no sync ops and is not
//!   checked), against the same kernel with it off.
//!
//! The baseline "without hooks" is this bench run on a build with the hook line in
//! `interp/exec.rs` (`if let Some(r) = self.rec...`) deleted; see the README.

use criterion::{Criterion, criterion_group, criterion_main};
use npusim_ptoas::interp::{LowerOptions, RunConfig, lower};
use npusim_ptoas::parse_module;

mod common;
use common::{SRC, args};
const SYNCED: &str = include_str!("../tests/data/hazards/row_softmax_synced.pto");

fn bench(c: &mut Criterion) {
    let a = args();
    let off = RunConfig {
        blocks: 8,
        ..RunConfig::default()
    };
    let on = RunConfig { trace: true, ..off };
    let m = parse_module(SRC, "row_softmax.pto").unwrap();
    let p = lower(&m, LowerOptions::default()).unwrap();
    let mut g = c.benchmark_group("trace_cost_row_softmax_32x1024_blocks8");
    g.sample_size(30);
    g.bench_function("off", |b| b.iter(|| p.run(None, &a, &off).unwrap()));
    g.bench_function("trace", |b| b.iter(|| p.run(None, &a, &on).unwrap()));
    g.bench_function("trace_json", |b| {
        b.iter(|| {
            let o = p.run(None, &a, &on).unwrap();
            o.trace
                .unwrap()
                .chrome_json(&p, "row_softmax.pto", SRC)
                .len()
        })
    });
    let ms = parse_module(SYNCED, "row_softmax_synced.pto").unwrap();
    let ps = lower(&ms, LowerOptions::default()).unwrap();
    g.bench_function("synced_off", |b| b.iter(|| ps.run(None, &a, &off).unwrap()));
    g.bench_function("synced_hazards", |b| {
        b.iter(|| ps.run_checked(None, &a, &off, SYNCED).unwrap())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
