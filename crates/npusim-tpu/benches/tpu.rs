//! Criterion benchmarks of the local-memory instructions (issue #16, acceptance (4)): BDC
//! `tpu_bdc_fp_add` on a small tensor (1, 4, 1, 16) and on (1, 64, 32, 64) f32, and GDMA
//! `tpu_gdma_cpy_S2L` of (1, 64, 32, 64) f32; `tpu_bdc_int_add` (i16, shift -2, saturating),
//! `tpu_bdc_greater_select` and the 3x3 `tpu_bdc_fp_avg_pool2d` / `fp_max_pool2d` on
//! (1, 64, 32, 64); `tpu_bdc_fp32_exp` on (1, 64, 32, 64). The vendor C-model's and numpy's
//! per-call times for the same calls, side by side with these figures, are printed by
//! `scripts/bench_tpu_cmodel.py --criterion <target>/criterion`; the vendor C-model's per-call time for the same
//! calls is measured by `scripts/bench_tpu_cmodel.py` (needs the C-model library), numpy's for
//! the same add by `benches/numpy_baseline_tpu.py`.
//!
//! Run: `cargo bench -p npusim-tpu --bench tpu -- --warm-up-time 1 --measurement-time 3`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use npusim_tpu::bdc_data::RoundingMode;
use npusim_tpu::bdc_logic::Variable;
use npusim_tpu::bdc_pool::{Dim2, Padding};
use npusim_tpu::{DataType, Dim4, Scalar, TpuChip, TpuCore};

fn benches(c: &mut Criterion) {
    let mut core = TpuCore::with_gm_size(TpuChip::Bm1684x, 16 << 20).expect("16 MiB");
    let g = core.gm_base();
    let big = Dim4::new(1, 64, 32, 64);
    let data: Vec<f32> = (0..big.count()).map(|i| i as f32 * 0.25).collect();
    core.write_f32s(g, &data).expect("fits");
    core.tpu_gdma_cpy_S2L(0, g, &big, None, None, DataType::Fp32)
        .expect("valid");
    core.tpu_gdma_cpy_S2L(0x10000, g, &big, None, None, DataType::Fp32)
        .expect("valid");
    let small = Dim4::new(1, 4, 1, 16);
    c.bench_function("bdc_fp_add f32 (1,4,1,16)", |b| {
        b.iter(|| {
            core.tpu_bdc_fp_add(
                0x20000,
                0,
                0x10000,
                black_box(&small),
                None,
                None,
                None,
                DataType::Fp32,
            )
            .expect("valid")
        })
    });
    c.bench_function("bdc_fp_add f32 (1,64,32,64)", |b| {
        b.iter(|| {
            core.tpu_bdc_fp_add(
                0x20000,
                0,
                0x10000,
                black_box(&big),
                None,
                None,
                None,
                DataType::Fp32,
            )
            .expect("valid")
        })
    });
    // Integer, select and pooling forms on the same (1, 64, 32, 64) tensors.
    let i16t = DataType::Int16;
    c.bench_function("bdc_int_add i16 shift -2 sat (1,64,32,64)", |b| {
        b.iter(|| {
            core.tpu_bdc_int_add(
                0x20000,
                0,
                0x10000,
                black_box(&big),
                None,
                None,
                None,
                i16t,
                i16t,
                i16t,
                -2,
                RoundingMode::HalfToEven,
                true,
            )
            .expect("valid")
        })
    });
    let (t0, t1, t2, t3) = (
        Variable::Tensor(0),
        Variable::Tensor(0x10000),
        Variable::Tensor(0x30000),
        Variable::Scalar(Scalar::from_f32(0.0)),
    );
    c.bench_function("bdc_greater_select f32 (1,64,32,64)", |b| {
        b.iter(|| {
            core.tpu_bdc_greater_select(
                0x20000,
                &t0,
                &t1,
                &t2,
                &t3,
                black_box(&big),
                DataType::Fp32,
                DataType::Fp32,
            )
            .expect("valid")
        })
    });
    let (k3, one, pad) = (Dim2::new(3, 3), Dim2::new(1, 1), Padding::default());
    c.bench_function("bdc_fp_avg_pool2d f32 3x3 (1,64,32,64)", |b| {
        b.iter(|| {
            core.tpu_bdc_fp_avg_pool2d(
                0x20000,
                0,
                black_box(&big),
                &k3,
                &pad,
                &one,
                &one,
                DataType::Fp32,
                Scalar::from_f32(1.0 / 9.0),
            )
            .expect("valid")
        })
    });
    c.bench_function("bdc_fp_max_pool2d f32 3x3 (1,64,32,64)", |b| {
        b.iter(|| {
            core.tpu_bdc_fp_max_pool2d(
                0x20000,
                0,
                black_box(&big),
                &k3,
                &pad,
                &one,
                &one,
                DataType::Fp32,
                Scalar::from_f32(f32::NEG_INFINITY),
            )
            .expect("valid")
        })
    });
    core.tpu_bdc_load_fp32_exp_coeff(0x3ff00).expect("valid");
    c.bench_function("bdc_fp32_exp f32 (1,64,32,64)", |b| {
        b.iter(|| {
            core.tpu_bdc_fp32_exp(
                0x20000,
                0,
                0x10000,
                0x30000,
                0x3ff00,
                0x3ff00,
                black_box(&big),
            )
            .expect("valid")
        })
    });
    c.bench_function("gdma_cpy_S2L f32 (1,64,32,64)", |b| {
        b.iter(|| {
            core.tpu_gdma_cpy_S2L(0x30000, g, black_box(&big), None, None, DataType::Fp32)
                .expect("valid")
        })
    });
}

criterion_group!(tpu, benches);
criterion_main!(tpu);
