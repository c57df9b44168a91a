//! Best-of-N timings of the issue 13 benchmark instructions (255 repeats, rep strides 8, full
//! mask), for a loaded machine where criterion's means wander: each case runs `BATCHES`
//! batches of `CALLS` calls and prints the fastest batch's time per call (preemption only
//! ever adds time). Run it beside `benches/numpy_baseline.py`, which prints numpy's best-of
//! the same way: `cargo bench -p npusim-ascend --bench bestof`.

use npusim_ascend::core::{Operand, VectorCore};
use npusim_ascend::isa::{CastRound, Instr};
use npusim_ascend::mask::MaskArg;
use npusim_ascend::ops::Scalar;
use npusim_ascend::vector::{Face, VecArgs, VecOp};
use npusim_core::{ChipId, ChipProfile, ElemType, MemSpace};
use std::hint::black_box;
use std::time::Instant;

const REPEATS: u64 = 255;
const BATCHES: usize = 300;
const CALLS: usize = 20;

fn operand(name: &str, dtype: ElemType, base: u64, elems: u64) -> Operand {
    Operand {
        tensor: name.into(),
        space: MemSpace::Ub,
        dtype,
        tensor_base: base,
        tensor_bytes: elems * dtype.size() as u64,
        offset: 0,
    }
}

fn main() {
    // `cargo bench` passes `--bench`; a filter argument selects cases by substring.
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let chip = ChipId::Ascend910B;
    let profile = ChipProfile::get(chip);
    let vals: Vec<f32> = (0..32640u32)
        .map(|i| (i.wrapping_mul(2654435761) % 2000) as f32 / 100.0 - 10.0)
        .collect();
    let halves: Vec<half::f16> = vals.iter().map(|v| half::f16::from_f32(*v)).collect();
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
    for (label, instr, t, src_t, nsrc, scalar) in cases {
        if !filter.is_empty() && !filter.iter().any(|f| label.contains(f.as_str())) {
            continue;
        }
        let mut core = VectorCore::new(chip, 0);
        for base in [0u64, 65536] {
            if src_t == ElemType::F32 {
                core.ub_mut().write_elems(base, &vals[..16320]).unwrap();
            } else {
                core.ub_mut().write_elems(base, &halves).unwrap();
            }
        }
        let lanes = 256 / t.size().max(src_t.size()) as u64;
        let n = REPEATS * lanes;
        let a = operand("a", src_t, 0, n);
        let b = operand("b", src_t, 65536, n);
        let d = operand("d", t, 131072, n);
        let srcs: Vec<&Operand> = [&a, &b][..nsrc].to_vec();
        let rep = |x: ElemType| (lanes * x.size() as u64 / 32) as i64;
        let op = VecOp::new(
            profile,
            &VecArgs {
                instr,
                name: label,
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
        let mut best = f64::INFINITY;
        for _ in 0..BATCHES {
            let t0 = Instant::now();
            for _ in 0..CALLS {
                op.execute(black_box(&mut core)).unwrap();
            }
            best = best.min(t0.elapsed().as_secs_f64() / CALLS as f64);
        }
        println!(
            "{label} 255rep ({n} elements): best {:.2} us/call, {:.2} G elements/s",
            best * 1e6,
            n as f64 / best / 1e9
        );
    }
}
