//! Criterion benchmarks of the HAU models through the memory-level API (acceptance (4) of
//! issue #5): `tpu_hau_sort_natural_index` over 1M `f32` with K = 1M and K = 1000, and
//! `tpu_hau_line_gather` over 10k lines of 256 `f16`.
//!
//! The `f32` input is the same as `benches/numpy_baseline.py` uses: splitmix64 from seed 42,
//! top 24 bits scaled to `[0, 1)`, so the two figures are measured on identical data.
//!
//! Run: `cargo bench -p npusim-tpu --bench hau -- --warm-up-time 1 --measurement-time 3`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use npusim_tpu::sort::{KeyType, SortScratch};
use npusim_tpu::{DataType, Scalar, TpuChip, TpuCore};

const N: usize = 1 << 20;

/// splitmix64 stream, identical to the one in `numpy_baseline.py`.
fn splitmix64(seed: u64, n: usize) -> Vec<u64> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        })
        .collect()
}

fn bench_input() -> Vec<f32> {
    splitmix64(42, N)
        .into_iter()
        .map(|x| (x >> 40) as f32 * (1.0 / (1u64 << 24) as f32))
        .collect()
}

fn sort_benches(c: &mut Criterion) {
    let data = bench_input();
    let mut core = TpuCore::new(TpuChip::Bm1684x);
    let base = core.gm_base();
    let bytes = (N * 4) as u64;
    let (input, out_data, out_idx) = (base, base + bytes, base + 2 * bytes);
    core.write_f32s(input, &data).expect("input fits");

    let mut g = c.benchmark_group("hau_sort_natural_index_1M_f32");
    g.sample_size(20);
    for k in [N, 1000] {
        g.bench_function(format!("K={k}"), |b| {
            b.iter(|| {
                core.tpu_hau_sort_natural_index(
                    out_data,
                    out_idx,
                    input,
                    N as i32,
                    black_box(k as i32),
                    true,
                    DataType::Fp32,
                )
                .expect("valid command");
                core.tpu_hau_poll()
            })
        });
    }
    g.bench_function("tpu_hau_sort K=1000", |b| {
        b.iter(|| {
            core.tpu_hau_sort(
                out_data,
                input,
                N as i32,
                black_box(1000),
                true,
                DataType::Fp32,
            )
            .expect("valid command");
            core.tpu_hau_poll()
        })
    });
    g.finish();
}

fn gather_bench(c: &mut Criterion) {
    const LINES: usize = 10_000;
    const LEN: usize = 256;
    let table: Vec<u16> = splitmix64(7, LINES * LEN)
        .into_iter()
        .map(|x| (x >> 48) as u16)
        .collect();
    let index: Vec<u32> = splitmix64(9, LINES)
        .into_iter()
        .map(|x| (x % LINES as u64) as u32)
        .collect();
    let mut core = TpuCore::new(TpuChip::Bm1684x);
    let base = core.gm_base();
    let tbytes = (LINES * LEN * 2) as u64;
    let (param, idx, out) = (base, base + tbytes, base + tbytes + 0x10000);
    core.write_u16s(param, &table).expect("table fits");
    core.write_u32s(idx, &index).expect("index fits");
    let mut g = c.benchmark_group("hau_line_gather_10k_x256_f16");
    g.sample_size(20);
    // All indices valid (window = whole table) and an 80 % window with constant fill.
    for (name, start, end) in [("window=all", 0, LINES - 1), ("window=80%", 1000, 8999)] {
        g.bench_function(name, |b| {
            b.iter(|| {
                core.tpu_hau_line_gather(
                    out,
                    param + (start * LEN * 2) as u64,
                    idx,
                    Scalar::from_bits16(0x3c00),
                    LINES as i32,
                    LEN as i32,
                    LINES as i32,
                    start as i32,
                    end as i32,
                    DataType::Fp16,
                    true,
                )
                .expect("valid command");
                core.tpu_hau_poll()
            })
        });
    }
    g.finish();
}

/// The slice-level fast model with reused buffers, without the simulated-memory copies.
fn slice_benches(c: &mut Criterion) {
    let keys: Vec<u32> = bench_input().into_iter().map(f32::to_bits).collect();
    let mut g = c.benchmark_group("slice_indexed_1M_f32");
    g.sample_size(20);
    let mut scratch = SortScratch::default();
    for k in [N, 1000] {
        g.bench_function(format!("K={k}"), |b| {
            b.iter(|| {
                scratch.indexed(&keys, None, black_box(k), true, KeyType::F32);
                scratch.pos.len()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, sort_benches, slice_benches, gather_bench);
criterion_main!(benches);
