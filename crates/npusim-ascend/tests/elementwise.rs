//! Property tests of every element-wise instruction of the table against a plain scalar model
//! of its documented formula written here, over random repeats, block and repeat strides,
//! masks (normal bits, continuous counts, counter mode through the mask register,
//! `isSetMask = false`), element types and values with the special values well represented,
//! on every chip profile. The same runs also hold the driver's fast kernels equal to its plain
//! twin ([`VecOp::execute_reference`]).
//!
//! The model computes each lane's byte address from the documented formula
//! `base + r·repStride·32 + (e / lanesPerBlock)·blkStride·32 + (e mod lanesPerBlock)·size` and
//! each result in f64 (rounded once to the element type with `half`; for Exp/Ln/Rsqrt and the
//! fused forms the crate's named f32 policy, see `npusim_ascend::elem`) or in i128 wrapped to
//! the width.

mod common;
use common::CHIPS;

use half::f16;
use npusim_ascend::core::{Operand, VectorCore};
use npusim_ascend::isa::{CastRound, Instr, Shape, cast_rules};
use npusim_ascend::mask::{MaskArg, MaskMode, MaskRegister};
use npusim_ascend::ops::Scalar;
use npusim_ascend::vector::{Face, VecArgs, VecOp};
use npusim_core::convert::{Saturation, convert_bits};
use npusim_core::{ChipProfile, ElemType, MemSpace, OverflowMode};
use proptest::prelude::*;

fn elementwise() -> Vec<Instr> {
    Instr::ALL
        .iter()
        .copied()
        .filter(|i| i.shape().is_elementwise() && !matches!(i.shape(), Shape::Convert | Shape::Dup))
        .collect()
}

/// Random bits for an element of `t`, special values well represented.
fn special_bits(t: ElemType, r: u64) -> u64 {
    let pick = r % 16;
    let raw = r >> 8;
    match t {
        ElemType::F16 => match pick {
            0 => 0x0000,
            1 => 0x8000,
            2 => 0x7c00,
            3 => 0xfc00,
            4 => 0x7e00,
            5 => 0x0001,
            6 => 0x7bff,
            7 => 0xfbff,
            8 => 0x3c00,
            // Moderate values (so sums and products stay finite most of the time).
            9..=12 => (raw % 0x4c00) | ((raw >> 20) & 1) << 15,
            _ => raw & 0xffff,
        },
        ElemType::F32 => match pick {
            0 => 0,
            1 => 0x8000_0000,
            2 => 0x7f80_0000,
            3 => 0xff80_0000,
            4 => 0x7fc0_0000,
            5 => 1,
            6 => 0x7f7f_ffff,
            7 => 0x3f80_0000,
            8..=12 => (raw % 0x4c00_0000) | ((raw >> 40) & 1) << 31,
            _ => raw & 0xffff_ffff,
        },
        _ => {
            let w = t.bits();
            let m = if w == 64 { u64::MAX } else { (1 << w) - 1 };
            match pick {
                0 => 0,
                1 => m,
                2 => m >> 1,
                3 => (m >> 1) + 1,
                4 => raw % 8,
                _ => raw & m,
            }
        }
    }
}

fn to_f64(t: ElemType, b: u64) -> f64 {
    match t {
        ElemType::F16 => f16::from_bits(b as u16).to_f64(),
        ElemType::F32 => f32::from_bits(b as u32) as f64,
        ElemType::Bf16 => half::bf16::from_bits(b as u16).to_f64(),
        _ => f64::NAN,
    }
}

fn int_value(t: ElemType, b: u64) -> i128 {
    let w = t.bits();
    let m = if w == 64 { b } else { b & ((1 << w) - 1) };
    if t.is_signed_int() && w < 64 {
        ((m << (64 - w)) as i64 >> (64 - w)) as i128
    } else {
        m as i128
    }
}

/// Rounds an f64 result once to `t`, then applies the overflow mode.
fn round_float(t: ElemType, v: f64, mode: OverflowMode) -> u64 {
    let (bits, max) = match t {
        ElemType::F16 => (f16::from_f64(v).to_bits() as u64, 65504.0),
        _ => ((v as f32).to_bits() as u64, f32::MAX as f64),
    };
    let r = to_f64(t, bits);
    if mode == OverflowMode::Saturate && (r.is_nan() || r.is_infinite()) {
        let s = if r.is_nan() { 0.0 } else { r.signum() * max };
        return match t {
            ElemType::F16 => f16::from_f64(s).to_bits() as u64,
            _ => (s as f32).to_bits() as u64,
        };
    }
    bits
}

/// The f32-rounded value (the fused forms' and transcendentals' named policy).
fn f32r(v: f64) -> f64 {
    v as f32 as f64
}

fn relu(x: f64) -> f64 {
    if x < 0.0 { 0.0 } else { x }
}

/// `v` rounded to the element type `t` (the ternary fused forms round their product to it).
fn narrow(t: ElemType, v: f64) -> f64 {
    match t {
        ElemType::F16 => f16::from_f64(v).to_f64(),
        ElemType::Bf16 => half::bf16::from_f64(v).to_f64(),
        _ => f32r(v),
    }
}

/// The documented formula of each instruction, in f64, for element type `t`.
fn model_float(i: Instr, t: ElemType, a: f64, b: f64, d: f64) -> f64 {
    let nan = a.is_nan() || b.is_nan();
    match i {
        Instr::Add | Instr::Adds => a + b,
        Instr::Sub => a - b,
        Instr::Mul | Instr::Muls => a * b,
        Instr::Div => a / b,
        Instr::Max | Instr::Maxs => {
            if nan {
                f64::NAN
            } else if b > a {
                b
            } else {
                a
            }
        }
        Instr::Min | Instr::Mins => {
            if nan {
                f64::NAN
            } else if b < a {
                b
            } else {
                a
            }
        }
        Instr::AddRelu => relu(a + b),
        Instr::SubRelu => relu(a - b),
        Instr::MulAddDst => f32r(narrow(t, a * b) + d),
        Instr::FusedMulAdd => f32r(narrow(t, a * d) + b),
        Instr::MulAddRelu => relu(f32r(narrow(t, a * d) + b)),
        Instr::LeakyRelu => {
            if a < 0.0 {
                a * b
            } else {
                a
            }
        }
        Instr::Axpy => f32r(f32r(b * a) + d),
        Instr::Exp => f32r(a.exp()),
        Instr::Ln => f32r(a.ln()),
        Instr::Abs => a.abs(),
        Instr::Sqrt => a.sqrt(),
        Instr::Rsqrt => f32r(1.0 / a.sqrt()),
        Instr::Reciprocal => 1.0 / a,
        Instr::Relu => relu(a),
        other => panic!("no float model for {other:?}"),
    }
}

fn model_int(i: Instr, a: i128, b: i128) -> i128 {
    match i {
        Instr::Add | Instr::Adds => a + b,
        Instr::Sub => a - b,
        Instr::Mul | Instr::Muls => a * b,
        Instr::Max | Instr::Maxs => a.max(b),
        Instr::Min | Instr::Mins => a.min(b),
        Instr::AddRelu => (a + b).max(0),
        Instr::SubRelu => (a - b).max(0),
        Instr::And => a & b,
        Instr::Or => a | b,
        Instr::Not => !a,
        Instr::Relu => a.max(0),
        Instr::Copy => a,
        Instr::ShiftLeft => {
            if (0..64).contains(&b) {
                a << b
            } else {
                0
            }
        }
        Instr::ShiftRight => {
            if (0..64).contains(&b) {
                a >> b
            } else if a < 0 {
                -1
            } else {
                0
            }
        }
        other => panic!("no int model for {other:?}"),
    }
}

fn operand(name: &str, t: ElemType, base: u64, bytes: u64) -> Operand {
    Operand {
        tensor: name.into(),
        space: MemSpace::Ub,
        dtype: t,
        tensor_base: base,
        tensor_bytes: bytes,
        offset: 0,
    }
}

/// Byte-for-byte equal, except that two NaNs of the element type count as equal (payloads are
/// not modelled).
fn same_elements(want: &[u8], got: &[u8], t: ElemType, what: &str) -> Result<(), TestCaseError> {
    let s = t.size();
    for k in 0..want.len() / s {
        let (g, w) = (&got[k * s..(k + 1) * s], &want[k * s..(k + 1) * s]);
        if g != w {
            let mut gw = [0u8; 8];
            let mut ww = [0u8; 8];
            gw[..s].copy_from_slice(g);
            ww[..s].copy_from_slice(w);
            let (gb, wb) = (u64::from_le_bytes(gw), u64::from_le_bytes(ww));
            let both_nan = t.is_float() && to_f64(t, gb).is_nan() && to_f64(t, wb).is_nan();
            prop_assert!(
                both_nan,
                "{}: byte {}: got {:#x}, want {:#x}",
                what,
                k * s,
                gb,
                wb
            );
        }
    }
    Ok(())
}

#[derive(Clone, Debug)]
struct Case {
    pick: usize,
    chip: usize,
    type_pick: usize,
    repeat: u32,
    blk: [u32; 3],
    rep: [u32; 3],
    /// 0: bits; 1: continuous count; 2: counter mode (register); 3: normal register.
    mask_kind: u8,
    mask_lo: u64,
    mask_hi: u64,
    count: u64,
    seed: u64,
}

fn case() -> impl Strategy<Value = Case> {
    (
        (any::<usize>(), 0usize..6, any::<usize>(), 0u32..5),
        (1u32..3, 0u32..3, 0u32..3, 0u32..12, 0u32..12, 0u32..12),
        (0u8..4, any::<u64>(), any::<u64>(), 0u64..700, any::<u64>()),
    )
        .prop_map(
            |(
                (pick, chip, type_pick, repeat),
                (b0, b1, b2, r0, r1, r2),
                (mk, lo, hi, count, seed),
            )| Case {
                pick,
                chip,
                type_pick,
                repeat,
                blk: [b0, b1, b2],
                rep: [r0, r1, r2],
                mask_kind: mk,
                mask_lo: lo,
                mask_hi: hi,
                count,
                seed,
            },
        )
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let x = self.0;
        (x ^ (x >> 29)).wrapping_mul(0xbf58476d1ce4e5b9) ^ (x >> 32)
    }
}

/// Runs one case: builds the instruction, runs it fast and plain on two cores, checks both
/// against the model. Returns Ok(false) when the case does not apply (chip lacks the
/// instruction or the counter mode).
fn run_case(
    c: &Case,
    instr: Instr,
    src_t: ElemType,
    dst_t: ElemType,
    round: CastRound,
) -> Result<bool, TestCaseError> {
    let chip_id = CHIPS[c.chip];
    let chip = ChipProfile::get(chip_id);
    let shape = instr.shape();
    let nsrc = shape.tensor_sources();
    let wide = src_t.size().max(dst_t.size());
    let lanes = (256 / wide) as u32;
    let types = [dst_t, src_t, src_t];
    // Tensor sizes: enough for the longest walk (counter mode may run more repeats).
    let iters = if c.mask_kind == 2 {
        c.count.div_ceil(lanes as u64) as u32
    } else {
        c.repeat
    };
    let mut bases = [0u64; 3];
    let mut bytes = [0u64; 3];
    let mut next = 0u64;
    for k in 0..=nsrc {
        let b =
            iters.max(1) as u64 * (c.rep[k] as u64 * 32) + 8 * c.blk[k].max(1) as u64 * 32 + 256;
        bases[k] = next;
        bytes[k] = b;
        next += b.div_ceil(32) * 32;
    }
    let ops: Vec<Operand> = (0..=nsrc)
        .map(|k| operand(["dst", "src0", "src1"][k], types[k], bases[k], bytes[k]))
        .collect();
    let mut core = VectorCore::new(chip_id, 0);
    let mut rng = Rng(c.seed);
    for k in 0..=nsrc {
        let t = types[k];
        let n = bytes[k] / t.size() as u64;
        let mut buf = Vec::with_capacity(bytes[k] as usize);
        for _ in 0..n {
            buf.extend_from_slice(&special_bits(t, rng.next()).to_le_bytes()[..t.size()]);
        }
        core.ub_mut().write(bases[k], &buf).unwrap();
    }
    // The scalar has the source type (it differs from dst only in conversions, where there is
    // no scalar, and in the mixed-precision forms: a half scalar with a float dst).
    let scalar_bits = special_bits(src_t, rng.next());
    let scalar = if src_t.is_float() {
        Scalar::Float(to_f64(src_t, scalar_bits))
    } else {
        Scalar::Int(int_value(src_t, scalar_bits) as i64)
    };
    let (mask, is_set_mask) = match c.mask_kind {
        0 => {
            let hi = if lanes <= 64 { 0 } else { c.mask_hi };
            let lo = if lanes < 64 {
                c.mask_lo & ((1 << lanes) - 1)
            } else {
                c.mask_lo
            };
            (MaskArg::Bits { lo, hi }, true)
        }
        1 => (MaskArg::Count(1 + c.count % lanes as u64), true),
        2 => {
            if !chip.vector.counter_mode {
                return Ok(false);
            }
            core.mask = MaskRegister {
                bits: c.count as u128,
                mode: MaskMode::Counter,
            };
            (MaskArg::Placeholder, false)
        }
        _ => {
            core.mask = MaskRegister {
                bits: (c.mask_hi as u128) << 64 | c.mask_lo as u128,
                mode: MaskMode::Normal,
            };
            (MaskArg::Placeholder, false)
        }
    };
    let srcs: Vec<&Operand> = ops[1..].iter().collect();
    let args = VecArgs {
        instr,
        name: instr.ascendc_name(),
        face: Face::AscendC,
        dst: &ops[0],
        srcs: &srcs,
        scalar: shape.has_scalar().then_some(scalar),
        round,
        mask,
        is_set_mask,
        repeat: c.repeat as i64,
        blk: c.blk.map(|b| b as i64),
        rep: c.rep.map(|r| r as i64),
        blk_max: 255,
    };
    let op = VecOp::new(chip, &args).map_err(|e| TestCaseError::fail(format!("{e}")))?;
    let before = core.ub().as_slice().to_vec();
    let mut plain = core.clone();
    op.execute(&mut core)
        .map_err(|e| TestCaseError::fail(format!("{e}")))?;
    op.execute_reference(&mut plain)
        .map_err(|e| TestCaseError::fail(format!("{e}")))?;
    same_elements(
        plain.ub().as_slice(),
        core.ub().as_slice(),
        dst_t,
        &format!("{instr:?} fast vs plain on {chip_id:?}"),
    )?;

    // The model.
    let mut want = before.clone();
    let lane_mask: Box<dyn Fn(u32) -> u128> = match mask {
        MaskArg::Bits { lo, hi } => {
            let m = ((hi as u128) << 64 | lo as u128)
                & if lanes >= 128 {
                    u128::MAX
                } else {
                    (1u128 << lanes) - 1
                };
            Box::new(move |_| m)
        }
        MaskArg::Count(n) => Box::new(move |_| {
            if n >= 128 {
                u128::MAX
            } else {
                (1u128 << n) - 1
            }
        }),
        MaskArg::Placeholder if c.mask_kind == 2 => {
            let total = c.count;
            Box::new(move |r| {
                let left = total
                    .saturating_sub(r as u64 * lanes as u64)
                    .min(lanes as u64);
                if left >= 128 {
                    u128::MAX
                } else {
                    (1u128 << left) - 1
                }
            })
        }
        MaskArg::Placeholder => {
            let m = ((c.mask_hi as u128) << 64 | c.mask_lo as u128)
                & if lanes >= 128 {
                    u128::MAX
                } else {
                    (1u128 << lanes) - 1
                };
            Box::new(move |_| m)
        }
    };
    let addr = |k: usize, r: u32, e: u32| -> usize {
        let size = types[k].size() as u64;
        let lpb = 32 / size;
        (bases[k]
            + r as u64 * c.rep[k] as u64 * 32
            + (e as u64 / lpb) * c.blk[k] as u64 * 32
            + (e as u64 % lpb) * size) as usize
    };
    let read = |mem: &[u8], k: usize, r: u32, e: u32| -> u64 {
        let a = addr(k, r, e);
        let mut w = [0u8; 8];
        w[..types[k].size()].copy_from_slice(&mem[a..a + types[k].size()]);
        u64::from_le_bytes(w)
    };
    let mode = chip.vector.overflow_mode;
    for r in 0..iters {
        let m = lane_mask(r);
        for e in 0..lanes {
            if m >> e & 1 == 0 {
                continue;
            }
            let a = if nsrc >= 1 { read(&before, 1, r, e) } else { 0 };
            let b = if nsrc >= 2 {
                read(&before, 2, r, e)
            } else {
                scalar_bits
            };
            // dst as the earlier repeats left it (repeats may rewrite the same dst lanes).
            let d = read(&want, 0, r, e);
            let out = if shape == Shape::Convert {
                let sat = if dst_t.is_float() {
                    if mode == OverflowMode::Saturate {
                        Saturation::On
                    } else {
                        Saturation::Off
                    }
                } else if src_t.is_float() {
                    Saturation::On
                } else {
                    Saturation::Off
                };
                let o = convert_bits(a, src_t, dst_t, round.mode(), sat).unwrap();
                if dst_t.is_float() && mode == OverflowMode::Saturate && to_f64(dst_t, o).is_nan() {
                    0
                } else {
                    o
                }
            } else if instr == Instr::Copy {
                a
            } else if dst_t.is_float() {
                // Sources in their own type (half in the mixed-precision forms), dst in its.
                let v = model_float(
                    instr,
                    dst_t,
                    to_f64(src_t, a),
                    to_f64(src_t, b),
                    to_f64(dst_t, d),
                );
                round_float(dst_t, v, mode)
            } else {
                let v = model_int(instr, int_value(dst_t, a), int_value(dst_t, b));
                v as u64
            };
            let at = addr(0, r, e);
            want[at..at + dst_t.size()].copy_from_slice(&out.to_le_bytes()[..dst_t.size()]);
        }
    }
    same_elements(
        &want,
        core.ub().as_slice(),
        dst_t,
        &format!("{instr:?} {dst_t:?} on {chip_id:?} vs model"),
    )?;
    Ok(true)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(600)))]

    #[test]
    fn every_elementwise_instruction_matches_its_model(c in case()) {
        let list = elementwise();
        let instr = list[c.pick % list.len()];
        let chip = CHIPS[c.chip];
        let Some(types) = instr.legal_types(chip) else { return Ok(()) };
        let t = types[c.type_pick % types.len()];
        run_case(&c, instr, t, t, CastRound::None)?;
    }

    /// MulAddDst.md / Axpy.md: half sources (and scalar) into a float destination, 64 lanes
    /// per repeat, on the chips whose page lists the form (the row's `widen` column); the
    /// model keeps the product in float (exact for two halves) and rounds once at the sum.
    #[test]
    fn mixed_precision_forms_match_the_model(c in case(), axpy in any::<bool>()) {
        let instr = if axpy { Instr::Axpy } else { Instr::MulAddDst };
        if instr.widen_chips().contains(&CHIPS[c.chip]) {
            run_case(&c, instr, ElemType::F16, ElemType::F32, CastRound::None)?;
        }
    }

    #[test]
    fn cast_matches_the_exact_conversion(c in case()) {
        let chip = CHIPS[c.chip];
        let rules: Vec<_> = cast_rules(chip).iter().filter(|r| r.2 != "DEQ").collect();
        let (src, dst, modes) = *rules[c.type_pick % rules.len()];
        let modes: Vec<CastRound> = CastRound::ALL
            .into_iter()
            .filter(|m| modes.contains(match m {
                CastRound::None => 'N', CastRound::Rint => 'R', CastRound::Floor => 'F', CastRound::Ceil => 'C',
                CastRound::Round => 'A', CastRound::Trunc => 'Z', CastRound::Odd => 'O',
            }))
            .collect();
        let round = modes[(c.seed % modes.len() as u64) as usize];
        run_case(&c, Instr::Cast, src, dst, round)?;
    }
}

#[test]
fn mixed_precision_forms_are_refused_where_the_page_lacks_them() {
    // MulAddDst's half -> float form is not on Atlas 200I/500 A2 (310B), Atlas training or
    // Atlas 200/300/500 inference; the refusal names the operand and both types.
    for chip in CHIPS {
        let src = operand("src0", ElemType::F16, 0, 1024);
        let src1 = operand("src1", ElemType::F16, 1024, 1024);
        let dst = operand("dst", ElemType::F32, 2048, 1024);
        let srcs = [&src, &src1];
        let r = VecOp::new(
            ChipProfile::get(chip),
            &VecArgs {
                instr: Instr::MulAddDst,
                name: "MulAddDst",
                face: Face::AscendC,
                dst: &dst,
                srcs: &srcs,
                scalar: None,
                round: CastRound::None,
                mask: MaskArg::Count(64),
                is_set_mask: true,
                repeat: 4,
                blk: [1, 1, 1],
                rep: [8, 4, 4],
                blk_max: 255,
            },
        );
        if Instr::MulAddDst.widen_chips().contains(&chip) {
            assert!(r.is_ok(), "{chip:?}: {:?}", r.err());
        } else {
            let e = r.unwrap_err();
            assert!(
                matches!(
                    e,
                    npusim_ascend::AscendError::TypeMismatch {
                        instr: "MulAddDst",
                        param: "src0",
                        got: ElemType::F16,
                        ..
                    }
                ),
                "{chip:?}: {e}"
            );
        }
    }
    // No overlap at all in the mixed form (a float dst over its half source).
    let src = operand("src", ElemType::F16, 0, 1024);
    let dst = operand("dst", ElemType::F32, 0, 1024);
    let e = VecOp::new(
        ChipProfile::get(npusim_core::ChipId::Ascend910B),
        &VecArgs {
            instr: Instr::Axpy,
            name: "Axpy",
            face: Face::AscendC,
            dst: &dst,
            srcs: &[&src],
            scalar: Some(Scalar::Float(2.0)),
            round: CastRound::None,
            mask: MaskArg::Count(64),
            is_set_mask: true,
            repeat: 1,
            blk: [1, 1, 1],
            rep: [8, 4, 0],
            blk_max: 65535,
        },
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            npusim_ascend::AscendError::IllegalOverlap {
                instr: "Axpy",
                dst: "dst",
                src: "src",
                ..
            }
        ),
        "{e}"
    );
}
