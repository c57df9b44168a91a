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

criterion_group!(benches, bench);
criterion_main!(benches);
