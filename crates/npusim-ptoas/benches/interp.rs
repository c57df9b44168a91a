//! Row softmax (`examples/pto/row_softmax.pto`) on 32x1024 f32 with 8 blocks: the whole
//! pipeline, and its phases (parse+verify, lower, execute) separately.
//!
//! The kernel does not read its block index, so each of the 8 blocks computes all 32 rows (the
//! same values are stored 8 times); the run is 8 x 4 loop iterations of 7 tile ops each.
//!
//! `row_softmax_1024x1024_blocks8` (issue 11, `--threads`): the block-splitting kernel
//! `examples/pto/bench/row_softmax_blocks.pto` over 1024 rows, executed on 1 and on 2 host
//! threads (each block takes 16 of the 128 8-row tiles).

use criterion::{Criterion, criterion_group, criterion_main};
use npusim_ptoas::interp::{LowerOptions, RunConfig, lower};
use npusim_ptoas::parse_module;
use std::hint::black_box;

mod common;
use common::{SRC, args};

fn bench(c: &mut Criterion) {
    let a = args();
    let cfg = RunConfig {
        blocks: 8,
        ..RunConfig::default()
    };
    let mut g = c.benchmark_group("row_softmax_32x1024_blocks8");
    g.sample_size(20);
    g.bench_function("total", |b| {
        b.iter(|| {
            let m = parse_module(black_box(SRC), "row_softmax.pto").unwrap();
            let p = lower(&m, LowerOptions::default()).unwrap();
            p.run(None, &a, &cfg).unwrap()
        })
    });
    g.bench_function("parse_verify", |b| {
        b.iter(|| parse_module(black_box(SRC), "row_softmax.pto").unwrap())
    });
    let m = parse_module(SRC, "row_softmax.pto").unwrap();
    g.bench_function("lower", |b| {
        b.iter(|| lower(black_box(&m), LowerOptions::default()).unwrap())
    });
    let p = lower(&m, LowerOptions::default()).unwrap();
    g.bench_function("execute", |b| b.iter(|| p.run(None, &a, &cfg).unwrap()));
    g.finish();

    let src = include_str!("../../../examples/pto/bench/row_softmax_blocks.pto");
    let m = parse_module(src, "row_softmax_blocks.pto").unwrap();
    let p = lower(&m, LowerOptions::default()).unwrap();
    let a = common::args_rows(1024);
    let mut g = c.benchmark_group("row_softmax_1024x1024_blocks8");
    g.sample_size(30);
    for threads in [1, 2] {
        let cfg = RunConfig {
            blocks: 8,
            threads,
            ..RunConfig::default()
        };
        g.bench_function(format!("execute_threads{threads}"), |b| {
            b.iter(|| p.run(None, &a, &cfg).unwrap())
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
