//! Issue 15 acceptance 5: TSORT32 + TMRGSORT sorting 8192 f32 value-index records (one TSORT32
//! and four single-list TMRGSORT passes, blockLen 64, 256, 1024, 4096) and TGATHER (index form)
//! on a 64x128 f32 tile. `benches/sort_gather_numpy.py` times numpy's equivalents
//! (`np.argsort(-x, kind="stable")` plus the gather of values, and `src.ravel()[idx]`).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use npusim_pto::*;
use std::hint::black_box;

fn values(n: usize) -> Vec<f32> {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            ((x >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 1000.0
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let n = 8192;
    let mut core = TileCore::by_name("a2a3").unwrap();
    let src = core
        .alloc(TileDesc::vec(ElemType::F32, 1, n).at(0))
        .unwrap();
    let idx = core
        .alloc(TileDesc::vec(ElemType::U32, 1, n).at(0x8000))
        .unwrap();
    let a = core
        .alloc(TileDesc::vec(ElemType::F32, 1, 2 * n).at(0x10000))
        .unwrap();
    let b = core
        .alloc(TileDesc::vec(ElemType::F32, 1, 2 * n).at(0x20000))
        .unwrap();
    core.write_valid(&src, &values(n)).unwrap();
    core.write_valid(&idx, &(0..n as u32).collect::<Vec<_>>())
        .unwrap();
    let mut g = c.benchmark_group("pto_sort");
    g.throughput(Throughput::Elements(n as u64));
    g.bench_function("tsort32+tmrgsort x4 8192 f32 records", |bch| {
        bch.iter(|| {
            core.tsort32(&a, &src, &idx, None).unwrap();
            let (mut from, mut to) = (a, b);
            for bl in [64, 256, 1024, 4096] {
                core.tmrgsort(&to, &from, Scalar::Int(bl)).unwrap();
                std::mem::swap(&mut from, &mut to);
            }
            black_box(&from);
        })
    });
    g.finish();

    let (rows, cols) = (64, 128);
    let mut core = TileCore::by_name("a2a3").unwrap();
    let bytes = (rows * cols * 4) as u64;
    let s = core
        .alloc(TileDesc::vec(ElemType::F32, rows, cols).at(0))
        .unwrap();
    let i = core
        .alloc(TileDesc::vec(ElemType::I32, rows, cols).at(bytes))
        .unwrap();
    let t = core
        .alloc(TileDesc::vec(ElemType::I32, rows, cols).at(2 * bytes))
        .unwrap();
    let d = core
        .alloc(TileDesc::vec(ElemType::F32, rows, cols).at(3 * bytes))
        .unwrap();
    core.write_valid(&s, &values(rows * cols)).unwrap();
    let perm: Vec<i32> = (0..rows * cols)
        .map(|k| ((k * 2654435761) % (rows * cols)) as i32)
        .collect();
    core.write_valid(&i, &perm).unwrap();
    let mut g = c.benchmark_group("pto_gather");
    g.throughput(Throughput::Elements((rows * cols) as u64));
    g.bench_function("tgather 64x128 f32", |bch| {
        bch.iter(|| core.tgather(&d, &s, &i, Some(&t)).unwrap())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
