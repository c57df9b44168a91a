//! TMATMUL 128x128x128 f16 -> f32 (Left Nz, Right Zn, Acc Nz, as the cube takes them), under the
//! hardware K-block order and the CPU simulator's order. numpy's float16 and float32 matmul on
//! the same shape: `benches/numpy_baseline.py cube`.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
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

criterion_group!(benches, bench, bench_tmov);
criterion_main!(benches);
