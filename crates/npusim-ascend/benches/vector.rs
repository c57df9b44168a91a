//! Criterion benchmarks of the Ascend vector unit, 255 repeats with rep strides 8 (whole
//! repeats, contiguous): vec_cmpv_gt f16 and PairReduceSum half; Add, Muls, Cast f32->f16 and
//! Exp in f16 and f32 (issue 13 targets: at least 2 G elements/s and 5x numpy for Add, Muls and
//! Cast; Exp at least numpy's speed). The numpy side is `benches/numpy_baseline.py`.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use half::f16;
use npusim_ascend::core::{Operand, VectorCore};
use npusim_ascend::isa::{CastRound, Instr};
use npusim_ascend::kernels::CmpMode;
use npusim_ascend::mask::MaskArg;
use npusim_ascend::ops::Scalar;
use npusim_ascend::ops::{PairReduceSum, Vcmpv};
use npusim_ascend::vector::{Face, VecArgs, VecOp};
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

    // Element-wise instructions on the shared driver.
    let elementwise = |instr: Instr,
                       name: &'static str,
                       t: ElemType,
                       src_t: ElemType,
                       nsrc: usize,
                       scalar: Option<Scalar>| {
        let lanes = 256 / t.size().max(src_t.size()) as u64;
        let n = REPEATS * lanes;
        let a = ub_operand("a", src_t, 0, n);
        let b = ub_operand("b", src_t, 65536, n);
        let d = ub_operand("d", t, 131072, n);
        let srcs: Vec<&Operand> = [&a, &b][..nsrc].to_vec();
        let rep = |x: ElemType| (lanes * x.size() as u64 / 32) as i64;
        let op = VecOp::new(
            profile,
            &VecArgs {
                instr,
                name,
                face: Face::Tik,
                dst: &d,
                srcs: &srcs,
                scalar,
                round: CastRound::None,
                mask: MaskArg::Count(lanes),
                is_set_mask: true,
                repeat: REPEATS as i64,
                blk: [1, 1, 1],
                rep: [rep(t), rep(src_t), rep(src_t)],
                blk_max: 255,
            },
        )
        .unwrap();
        (op, n)
    };
    // Fill the f32 sources too (same bytes reinterpreted would hold NaNs and huge values).
    let vals: Vec<f32> = (0..32640u32)
        .map(|i| (i.wrapping_mul(2654435761) % 2000) as f32 / 100.0 - 10.0)
        .collect();
    type Case = (
        &'static str,
        Instr,
        ElemType,
        ElemType,
        usize,
        Option<Scalar>,
    );
    let cases: [Case; 8] = [
        (
            "vec_add_f16",
            Instr::Add,
            ElemType::F16,
            ElemType::F16,
            2,
            None,
        ),
        (
            "vec_add_f32",
            Instr::Add,
            ElemType::F32,
            ElemType::F32,
            2,
            None,
        ),
        (
            "vec_muls_f16",
            Instr::Muls,
            ElemType::F16,
            ElemType::F16,
            1,
            Some(Scalar::Float(1.5)),
        ),
        (
            "vec_muls_f32",
            Instr::Muls,
            ElemType::F32,
            ElemType::F32,
            1,
            Some(Scalar::Float(1.5)),
        ),
        (
            "vec_conv_f32_to_f16",
            Instr::Cast,
            ElemType::F16,
            ElemType::F32,
            1,
            None,
        ),
        (
            "vec_conv_f16_to_f32",
            Instr::Cast,
            ElemType::F32,
            ElemType::F16,
            1,
            None,
        ),
        (
            "vec_exp_f16",
            Instr::Exp,
            ElemType::F16,
            ElemType::F16,
            1,
            None,
        ),
        (
            "vec_exp_f32",
            Instr::Exp,
            ElemType::F32,
            ElemType::F32,
            1,
            None,
        ),
    ];
    // The fixed cost of one small instruction: one repeat of 128 f16 lanes of vec_add, through
    // the recorded `Op` as the TIK face (and the Python face) runs it.
    {
        let mut core = VectorCore::new(chip, 0);
        fill_f16(&mut core, 0, 128, 1);
        fill_f16(&mut core, 65536, 128, 7);
        let a = ub_operand("a", ElemType::F16, 0, 128);
        let b = ub_operand("b", ElemType::F16, 65536, 128);
        let d = ub_operand("d", ElemType::F16, 131072, 128);
        let op = npusim_ascend::ops::Op::Vector(
            VecOp::new(
                profile,
                &VecArgs {
                    instr: Instr::Add,
                    name: "vec_add",
                    face: Face::Tik,
                    dst: &d,
                    srcs: &[&a, &b],
                    scalar: None,
                    round: CastRound::None,
                    mask: MaskArg::Count(128),
                    is_set_mask: true,
                    repeat: 1,
                    blk: [1, 1, 1],
                    rep: [8, 8, 8],
                    blk_max: 255,
                },
            )
            .unwrap(),
        );
        g.throughput(Throughput::Elements(128));
        g.bench_function("vec_add_f16_1rep_execute", |bench| {
            bench.iter(|| op.execute(black_box(&mut core)).unwrap())
        });
    }
    for (label, instr, t, src_t, nsrc, scalar) in cases {
        let mut core = VectorCore::new(chip, 0);
        for base in [0u64, 65536] {
            if src_t == ElemType::F32 {
                core.ub_mut().write_elems(base, &vals[..16320]).unwrap();
            } else {
                fill_f16(&mut core, base, 32640, base as u32);
            }
        }
        let (op, n) = elementwise(instr, label, t, src_t, nsrc, scalar);
        g.throughput(Throughput::Elements(n));
        g.bench_function(format!("{label}_255rep"), |bench| {
            bench.iter(|| op.execute(black_box(&mut core)).unwrap())
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
