//! Criterion benchmarks of the Ascend vector unit (issue targets: at least 1 G elements/s and
//! at least 5x numpy for vec_cmpv_gt f16 and PairReduceSum half, 255 repeats each).
//! The numpy side is `benches/numpy_baseline.py`.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use half::f16;
use npusim_ascend::core::{Operand, VectorCore};
use npusim_ascend::kernels::CmpMode;
use npusim_ascend::mask::MaskArg;
use npusim_ascend::ops::{PairReduceSum, Vcmpv};
use npusim_core::{ChipId, ChipProfile, ElemType, MemSpace};
use std::hint::black_box;

const REPEATS: u64 = 255;

fn ub_operand(name: &str, dtype: ElemType, base: u64, elems: u64) -> Operand {
    Operand {
        tensor: name.into(),
        space: MemSpace::Ub,
        dtype,
        tensor_base: base,
        tensor_bytes: elems * dtype.size() as u64,
        offset: 0,
    }
}

fn fill_f16(core: &mut VectorCore, base: u64, n: usize, seed: u32) {
    let v: Vec<f16> = (0..n)
        .map(|i| {
            f16::from_f32(
                ((i as u32).wrapping_mul(2654435761).wrapping_add(seed) % 2000) as f32 / 100.0
                    - 10.0,
            )
        })
        .collect();
    core.ub_mut().write_elems(base, &v).unwrap();
}

fn bench(c: &mut Criterion) {
    let chip = ChipId::Ascend910B;
    let profile = ChipProfile::get(chip);
    let n = (REPEATS * 128) as usize; // 32640 f16 = 65280 bytes per source
    let mut core = VectorCore::new(chip, 0);
    let a = ub_operand("a", ElemType::F16, 0, n as u64);
    let b = ub_operand("b", ElemType::F16, 65536, n as u64);
    let d = ub_operand("d", ElemType::U16, 131072, n as u64 / 16);
    fill_f16(&mut core, 0, n, 1);
    fill_f16(&mut core, 65536, n, 7);

    let mut g = c.benchmark_group("ascend");
    g.throughput(Throughput::Elements(n as u64));
    let cmp = Vcmpv::new(profile, CmpMode::Gt, &d, &a, &b, REPEATS as i64, 8, 8).unwrap();
    g.bench_function("vec_cmpv_gt_f16_255rep", |bench| {
        bench.iter(|| cmp.execute(black_box(&mut core)).unwrap())
    });

    let pd = ub_operand("pd", ElemType::F16, 131072, n as u64 / 2);
    let pair = PairReduceSum::new(
        profile,
        &pd,
        &a,
        REPEATS as i64,
        MaskArg::Count(128),
        true,
        1,
        1,
        8,
    )
    .unwrap();
    g.bench_function("pair_reduce_sum_f16_255rep", |bench| {
        bench.iter(|| pair.execute(black_box(&mut core)).unwrap())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
