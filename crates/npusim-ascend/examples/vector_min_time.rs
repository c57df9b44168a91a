//! Best-of and median timing of the element-wise benchmark cases (same operands as `benches/vector.rs`):
//! on a shared machine the minimum over many calls is the figure comparable with numpy's
//! `min(timeit.repeat(...))` in `benches/numpy_baseline.py`. Run with
//! `cargo run --release -p npusim-ascend --example vector_min_time`.

use half::f16;
use npusim_ascend::core::{Operand, VectorCore};
use npusim_ascend::isa::{CastRound, Instr};
use npusim_ascend::mask::MaskArg;
use npusim_ascend::ops::Scalar;
use npusim_ascend::vector::{Face, VecArgs, VecOp};
use npusim_core::{ChipId, ChipProfile, ElemType, MemSpace};
use std::time::Instant;

const REPEATS: u64 = 255;

/// Label, instruction, destination type, source type, source count, scalar.
type Case = (
    &'static str,
    Instr,
    ElemType,
    ElemType,
    usize,
    Option<Scalar>,
);

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

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let chip = ChipId::Ascend910B;
    let profile = ChipProfile::get(chip);
    let cases: [Case; 8] = [
        (
            "vec_add f16",
            Instr::Add,
            ElemType::F16,
            ElemType::F16,
            2,
            None,
        ),
        (
            "vec_add f32",
            Instr::Add,
            ElemType::F32,
            ElemType::F32,
            2,
            None,
        ),
        (
            "vec_muls f16",
            Instr::Muls,
            ElemType::F16,
            ElemType::F16,
            1,
            Some(Scalar::Float(1.5)),
        ),
        (
            "vec_muls f32",
            Instr::Muls,
            ElemType::F32,
            ElemType::F32,
            1,
            Some(Scalar::Float(1.5)),
        ),
        (
            "vec_conv f32->f16",
            Instr::Cast,
            ElemType::F16,
            ElemType::F32,
            1,
            None,
        ),
        (
            "vec_conv f16->f32",
            Instr::Cast,
            ElemType::F32,
            ElemType::F16,
            1,
            None,
        ),
        (
            "vec_exp f16",
            Instr::Exp,
            ElemType::F16,
            ElemType::F16,
            1,
            None,
        ),
        (
            "vec_exp f32",
            Instr::Exp,
            ElemType::F32,
            ElemType::F32,
            1,
            None,
        ),
    ];
    for (label, instr, t, src_t, nsrc, scalar) in cases {
        let mut core = VectorCore::new(chip, 0);
        let f32s: Vec<f32> = (0..16320u32)
            .map(|i| (i.wrapping_mul(2654435761) % 2000) as f32 / 100.0 - 10.0)
            .collect();
        let f16s: Vec<f16> = (0..32640u32)
            .map(|i| f16::from_f32((i.wrapping_mul(2654435761) % 2000) as f32 / 100.0 - 10.0))
            .collect();
        for base in [0u64, 65536] {
            if src_t == ElemType::F32 {
                core.ub_mut().write_elems(base, &f32s)?;
            } else {
                core.ub_mut().write_elems(base, &f16s)?;
            }
        }
        let lanes = 256 / t.size().max(src_t.size()) as u64;
        let n = REPEATS * lanes;
        let (a, b, d) = (
            operand("a", src_t, 0, n),
            operand("b", src_t, 65536, n),
            operand("d", t, 131072, n),
        );
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
        )?;
        // 7 runs of 200 calls, as numpy_baseline.py times numpy: best and median.
        let mut runs = Vec::with_capacity(7);
        for _ in 0..7 {
            let t0 = Instant::now();
            for _ in 0..200 {
                op.execute(&mut core)?;
            }
            runs.push(t0.elapsed().as_secs_f64() / 200.0);
        }
        runs.sort_by(f64::total_cmp);
        let (best, median) = (runs[0], runs[3]);
        println!(
            "{label} 255rep: best {:.2} us/call, median {:.2} us/call, {:.3} G elements/s",
            best * 1e6,
            median * 1e6,
            n as f64 / best / 1e9
        );
    }
    // The fixed cost of a small instruction: one repeat of 128 f16 lanes of vec_add through the
    // recorded `Op` (numpy: np.add on 128 float16).
    let mut core = VectorCore::new(chip, 0);
    let (a, b, d) = (
        operand("a", ElemType::F16, 0, 128),
        operand("b", ElemType::F16, 65536, 128),
        operand("d", ElemType::F16, 131072, 128),
    );
    let op = npusim_ascend::ops::Op::Vector(VecOp::new(
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
    )?);
    let mut best = f64::INFINITY;
    for _ in 0..7 {
        let t0 = Instant::now();
        for _ in 0..20000 {
            op.execute(std::hint::black_box(&mut core))?;
        }
        best = best.min(t0.elapsed().as_secs_f64() / 20000.0);
    }
    println!("vec_add f16 1rep (128 elements): {:.1} ns/call", best * 1e9);
    roofline();
    Ok(())
}

/// The ceiling for the f32 cases on this host: the same computation as a plain Rust loop over
/// native slices (no simulator; the compiler vectorises it), same sizes, same best-of-7 x 200.
/// If npusim's Add/Muls f32 match these, no simulator can be much faster than them here.
fn roofline() {
    let n = (REPEATS * 64) as usize; // 16,320 f32
    let a: Vec<f32> = (0..n as u32)
        .map(|i| (i.wrapping_mul(2654435761) % 2000) as f32 / 100.0 - 10.0)
        .collect();
    let b: Vec<f32> = a.iter().rev().copied().collect();
    let mut d = vec![0f32; n];
    let best_of = |f: &mut dyn FnMut()| {
        let mut best = f64::INFINITY;
        for _ in 0..7 {
            let t0 = Instant::now();
            for _ in 0..200 {
                f();
            }
            best = best.min(t0.elapsed().as_secs_f64() / 200.0);
        }
        best
    };
    let add = best_of(&mut || {
        let (a, b) = (std::hint::black_box(&a), std::hint::black_box(&b));
        for ((o, x), y) in d.iter_mut().zip(a).zip(b) {
            *o = x + y;
        }
        std::hint::black_box(&mut d);
    });
    let muls = best_of(&mut || {
        let a = std::hint::black_box(&a);
        for (o, x) in d.iter_mut().zip(a) {
            *o = x * 1.5;
        }
        std::hint::black_box(&mut d);
    });
    // This host's memory bandwidth at the same footprints: a plain copy of the bytes each
    // case moves (Add: 12 bytes per element, 8 read and 4 written = a copy of 6n bytes; Muls:
    // 8 bytes per element = a copy of 4n bytes), with `copy_from_slice` (memcpy).
    let src: Vec<u8> = (0..6 * n).map(|i| i as u8).collect();
    let mut dst = vec![0u8; 6 * n];
    let copy_add = best_of(&mut || {
        dst.copy_from_slice(std::hint::black_box(&src));
        std::hint::black_box(&mut dst);
    });
    let copy_muls = best_of(&mut || {
        dst[..4 * n].copy_from_slice(std::hint::black_box(&src[..4 * n]));
        std::hint::black_box(&mut dst);
    });
    for (label, t, bytes) in [
        ("plain Rust d = a + b f32", add, 12 * n),
        ("plain Rust d = a * 1.5 f32", muls, 8 * n),
        ("memcpy of Add's footprint", copy_add, 12 * n),
        ("memcpy of Muls's footprint", copy_muls, 8 * n),
    ] {
        println!(
            "{label} ({n} elements): best {:.2} us/call, {:.1} GB/s moved",
            t * 1e6,
            bytes as f64 / t / 1e9
        );
    }
}
