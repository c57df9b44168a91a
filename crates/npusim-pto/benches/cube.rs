//! TMATMUL 128x128x128 f16 -> f32 (Left Nz, Right Zn, Acc Nz, as the cube takes them), under the
//! hardware K-block order and the CPU simulator's order. numpy's float16 and float32 matmul on
//! the same shape: `benches/numpy_baseline.py cube`.
//!
//! On a shared, loaded machine wall-clock samples are inflated by other processes; with
//! `NPUSIM_CPU_TIME=1` the bench instead times each instruction by this thread's own CPU time
//! (`/proc/thread-self/schedstat`, nanoseconds on the CPU), best of 7 rounds.

use criterion::{Criterion, Throughput, criterion_group};
use npusim_pto::*;
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let (m, k, n) = (128usize, 128usize, 128usize);
    for cpu in [false, true] {
        let mut core = TileCore::by_name("a2a3").unwrap();
        if cpu {
            core.set_policy(TilePolicy::pto_cpu_sim(core.arch()));
        }
        let l = core
            .alloc(
                TileDesc::new(TileLoc::Left, ElemType::F16, m, k)
                    .layout(BLayout::ColMajor, SLayout::RowMajor),
            )
            .unwrap();
        let r = core
            .alloc(
                TileDesc::new(TileLoc::Right, ElemType::F16, k, n)
                    .layout(BLayout::RowMajor, SLayout::ColMajor),
            )
            .unwrap();
        let acc = core
            .alloc(
                TileDesc::new(TileLoc::Acc, ElemType::F32, m, n)
                    .layout(BLayout::ColMajor, SLayout::RowMajor)
                    .fractal(1024),
            )
            .unwrap();
        for i in 0..m {
            for j in 0..k {
                let v = 0.5 + ((i * 31 + j * 7) % 97) as f32 / 97.0;
                core.set(&l, i, j, half::f16::from_f32(v)).unwrap();
                core.set(&r, j, i, half::f16::from_f32(1.0 - v / 2.0))
                    .unwrap();
            }
        }
        let mut g = c.benchmark_group(if cpu {
            "tmatmul_128_f16_f32_cpu_sim_order"
        } else {
            "tmatmul_128_f16_f32_hw_order"
        });
        g.throughput(Throughput::Elements((m * k * n) as u64));
        g.bench_function("TMATMUL", |bn| {
            bn.iter(|| core.tmatmul(black_box(&acc), &l, &r).unwrap())
        });
        g.finish();
    }
}

/// TMOV Acc (Nz, f32) -> Vec (ND) 128x128 on A5: plain, and narrowing to half with ReLU.
fn bench_tmov(c: &mut Criterion) {
    let mut core = TileCore::by_name("a5").unwrap();
    let acc = core
        .alloc(
            TileDesc::new(TileLoc::Acc, ElemType::F32, 128, 128)
                .layout(BLayout::ColMajor, SLayout::RowMajor)
                .fractal(1024),
        )
        .unwrap();
    let v32 = core.alloc(TileDesc::vec(ElemType::F32, 128, 128)).unwrap();
    let v16 = core
        .alloc(TileDesc::vec(ElemType::F16, 128, 128).at(128 * 128 * 4))
        .unwrap();
    let mut g = c.benchmark_group("tmov_acc_to_vec_128x128");
    g.throughput(Throughput::Elements(128 * 128));
    g.bench_function("f32", |bn| {
        bn.iter(|| {
            core.tmov(black_box(&v32), &acc, ops::movement::MovMode::default())
                .unwrap()
        })
    });
    g.bench_function("f32_to_f16_relu", |bn| {
        bn.iter(|| {
            let mode = ops::movement::MovMode {
                relu: true,
                ..Default::default()
            };
            core.tmov(black_box(&v16), &acc, mode).unwrap()
        })
    });
    g.finish();
}

/// This thread's time on the CPU, in nanoseconds (Linux).
fn cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

/// Best-of-7 CPU time per call of `f`, `iters` calls a round.
fn cpu_time(name: &str, elems: u64, iters: u32, mut f: impl FnMut()) {
    f();
    let mut best = u64::MAX;
    for _ in 0..7 {
        let Some(t0) = cpu_ns() else {
            println!("{name}: no /proc/thread-self/schedstat");
            return;
        };
        for _ in 0..iters {
            f();
        }
        let t1 = cpu_ns().unwrap_or(t0);
        best = best.min((t1 - t0) / iters as u64);
    }
    println!(
        "{name:44} {:10.2} us CPU  {:8.3} G elem/s",
        best as f64 / 1e3,
        elems as f64 / best as f64
    );
}

fn cpu_main() {
    let (m, k, n) = (128usize, 128usize, 128usize);
    for cpu in [false, true] {
        let mut core = TileCore::by_name("a2a3").unwrap();
        if cpu {
            core.set_policy(TilePolicy::pto_cpu_sim(core.arch()));
        }
        let l = core
            .alloc(
                TileDesc::new(TileLoc::Left, ElemType::F16, m, k)
                    .layout(BLayout::ColMajor, SLayout::RowMajor),
            )
            .unwrap();
        let r = core
            .alloc(
                TileDesc::new(TileLoc::Right, ElemType::F16, k, n)
                    .layout(BLayout::RowMajor, SLayout::ColMajor),
            )
            .unwrap();
        let acc = core
            .alloc(
                TileDesc::new(TileLoc::Acc, ElemType::F32, m, n)
                    .layout(BLayout::ColMajor, SLayout::RowMajor)
                    .fractal(1024),
            )
            .unwrap();
        for i in 0..m {
            for j in 0..k {
                let v = 0.5 + ((i * 31 + j * 7) % 97) as f32 / 97.0;
                core.set(&l, i, j, half::f16::from_f32(v)).unwrap();
                core.set(&r, j, i, half::f16::from_f32(1.0 - v / 2.0))
                    .unwrap();
            }
        }
        let name = if cpu {
            "TMATMUL 128^3 f16->f32 (cpu-sim order)"
        } else {
            "TMATMUL 128^3 f16->f32 (hw order)"
        };
        cpu_time(name, (m * k * n) as u64, 200, || {
            core.tmatmul(black_box(&acc), &l, &r).unwrap()
        });
    }
    let mut core = TileCore::by_name("a5").unwrap();
    let acc = core
        .alloc(
            TileDesc::new(TileLoc::Acc, ElemType::F32, 128, 128)
                .layout(BLayout::ColMajor, SLayout::RowMajor)
                .fractal(1024),
        )
        .unwrap();
    let v32 = core.alloc(TileDesc::vec(ElemType::F32, 128, 128)).unwrap();
    cpu_time("TMOV Acc->Vec 128x128 f32", 128 * 128, 4000, || {
        core.tmov(black_box(&v32), &acc, ops::movement::MovMode::default())
            .unwrap()
    });
}

criterion_group!(benches, bench, bench_tmov);

fn main() {
    if std::env::var_os("NPUSIM_CPU_TIME").is_some() {
        cpu_main();
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
