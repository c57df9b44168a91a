//! TADD, TMULS, TDIVS, TEXP and TROWSUM on 64x128 f16 and f32 Vec tiles, plus a 16x16 TADD
//! for the per-instruction overhead: through the method, through `exec` of a `TileOp`, and
//! through `run` of an op prepared once (static checks done at preparation).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use npusim_pto::*;
use std::hint::black_box;

fn setup(t: ElemType, rows: usize, cols: usize) -> (TileCore, Tile, Tile, Tile, Tile) {
    let mut core = TileCore::by_name("a2a3").unwrap();
    let bytes = (rows * cols * t.size()) as u64;
    let a = core.alloc(TileDesc::vec(t, rows, cols).at(0)).unwrap();
    let b = core.alloc(TileDesc::vec(t, rows, cols).at(bytes)).unwrap();
    let c = core
        .alloc(TileDesc::vec(t, rows, cols).at(2 * bytes))
        .unwrap();
    let r = core
        .alloc(
            TileDesc::vec(t, rows, cols)
                .layout(BLayout::ColMajor, SLayout::NoneBox)
                .valid(rows, 1)
                .at(3 * bytes),
        )
        .unwrap();
    for (k, tile) in [a, b].iter().enumerate() {
        for i in 0..rows {
            for j in 0..cols {
                let v = 0.5 + ((i * 31 + j * 7 + k) % 97) as f64 / 97.0;
                let bits = match t {
                    ElemType::F16 => half::f16::from_f64(v).to_bits() as u64,
                    _ => (v as f32).to_bits() as u64,
                };
                core.set_bits(tile, i, j, bits).unwrap();
            }
        }
    }
    (core, a, b, c, r)
}

fn bench(c: &mut Criterion) {
    for t in [ElemType::F16, ElemType::F32] {
        let (mut core, a, b, d, rs) = setup(t, 64, 128);
        let mut g = c.benchmark_group(format!("{t}_64x128"));
        g.throughput(Throughput::Elements(64 * 128));
        g.bench_function("TADD", |bn| {
            bn.iter(|| core.tadd(black_box(&d), &a, &b).unwrap())
        });
        g.bench_function("TMULS", |bn| {
            bn.iter(|| core.tmuls(black_box(&d), &a, 1.5f32).unwrap())
        });
        g.bench_function("TDIVS", |bn| {
            bn.iter(|| core.tdivs(black_box(&d), &a, 3.0f32).unwrap())
        });
        g.bench_function("TEXP", |bn| {
            bn.iter(|| core.texp(black_box(&d), &a).unwrap())
        });
        let rsum = core
            .alloc(
                TileDesc::vec(t, 64, 1)
                    .layout(BLayout::ColMajor, SLayout::NoneBox)
                    .at(rs.addr()),
            )
            .unwrap();
        g.bench_function("TROWSUM", |bn| {
            bn.iter(|| core.trowsum(black_box(&rsum), &a).unwrap())
        });
        g.finish();
        let (mut core, a, b, d, _) = setup(t, 16, 16);
        let mut g = c.benchmark_group(format!("{t}_16x16"));
        g.throughput(Throughput::Elements(256));
        g.bench_function("TADD", |bn| {
            bn.iter(|| core.tadd(black_box(&d), &a, &b).unwrap())
        });
        let op = TileOp {
            op: OpCode::Tadd,
            args: Args::Binary {
                dst: d,
                src0: a,
                src1: b,
            },
        };
        g.bench_function("TADD_exec", |bn| {
            bn.iter(|| core.exec(black_box(&op)).unwrap())
        });
        let prepared = core.prepare(op.clone());
        assert!(prepared.prechecked());
        g.bench_function("TADD_prepared", |bn| {
            bn.iter(|| core.run(black_box(&prepared)).unwrap())
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
