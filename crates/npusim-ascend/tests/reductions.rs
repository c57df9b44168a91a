//! WholeReduce* / BlockReduce* against a plain model written here: adjacent-pair trees with
//! every partial sum rounded to the element type (and saturated on saturating chips), max/min
//! with ties to the lowest index, over random repeats, strides, masks (bits, counts, counter
//! mode) and values, on every chip.

mod common;
use common::CHIPS;

use half::f16;
use npusim_ascend::core::{Operand, VectorCore};
use npusim_ascend::isa::Instr;
use npusim_ascend::mask::{MaskArg, MaskMode, MaskRegister};
use npusim_ascend::reduce::ReduceOp;
use npusim_ascend::tik::{Scope, Tik};
use npusim_core::{
    ChipId, ChipProfile, ElemType, MaskedGroupPolicy, MemSpace, NpyArray, OverflowMode,
};
use proptest::prelude::*;

const ROWS: [Instr; 6] = [
    Instr::WholeReduceSum,
    Instr::WholeReduceMax,
    Instr::WholeReduceMin,
    Instr::BlockReduceSum,
    Instr::BlockReduceMax,
    Instr::BlockReduceMin,
];

#[test]
fn whole_reduce_sum_of_one_to_128_in_float() {
    let mut t = Tik::new(ChipId::Ascend910B);
    let g = t.tensor("float32", &[128], "g", Scope::Gm).unwrap();
    let o = t.tensor("float32", &[8], "o", Scope::Gm).unwrap();
    let s = t.tensor("float32", &[128], "s", Scope::Ubuf).unwrap();
    let d = t.tensor("float32", &[8], "d", Scope::Ubuf).unwrap();
    t.data_move(&s, &g, 0, 1, 16, 0, 0).unwrap();
    t.vcadd(64, &d, &s, 2, 1, 1, 8).unwrap();
    t.vcmax(64, &d.at(2), &s, 2, 1, 1, 8).unwrap();
    t.data_move(&o, &d, 0, 1, 1, 0, 0).unwrap();
    t.build_cce("k", &[&g], &[&o]).unwrap();
    let x: Vec<f32> = (1..=128).map(|i| i as f32).collect();
    let out = t
        .start_debug(&[("g", &NpyArray::from_elems(vec![128], &x))])
        .unwrap();
    let y = out[0].1.to_elems::<f32>().unwrap();
    // 1..64 = 2080, 65..128 = 6176; max of each repeat is its last lane (index 63).
    assert_eq!(&y[..2], &[2080.0, 6176.0]);
    assert_eq!(y[2], 64.0);
    assert_eq!(y[3].to_bits(), 63);
}

#[test]
fn saturating_chips_clamp_partial_sums() {
    // 60000 + 60000 saturates to 65504 at the first level on Atlas training; A2 gives inf.
    for (chip, want) in [
        (ChipId::Ascend910, 65504.0f32),
        (ChipId::Ascend910B, f32::INFINITY),
    ] {
        let profile = ChipProfile::get(chip);
        let mut core = VectorCore::new(chip, 0);
        let src = ub("s", ElemType::F16, 0, 128);
        let dst = ub("d", ElemType::F16, 512, 16);
        core.ub_mut()
            .write_elems(0, &[f16::from_f32(60000.0), f16::from_f32(60000.0)])
            .unwrap();
        let op = ReduceOp::new(
            profile,
            Instr::BlockReduceSum,
            "BlockReduceSum",
            &dst,
            &src,
            MaskArg::Count(2),
            true,
            1,
            1,
            1,
            8,
        )
        .unwrap();
        op.execute(&mut core).unwrap();
        assert_eq!(
            core.ub().read_elems::<f16>(512, 1).unwrap()[0].to_f32(),
            want,
            "{chip:?}"
        );
    }
}

fn ub(name: &str, t: ElemType, base: u64, elems: u64) -> Operand {
    Operand {
        tensor: name.into(),
        space: MemSpace::Ub,
        dtype: t,
        tensor_base: base,
        tensor_bytes: elems * t.size() as u64,
        offset: 0,
    }
}

fn bits_to_f32(t: ElemType, b: u32) -> f32 {
    if t == ElemType::F16 {
        f16::from_bits(b as u16).to_f32()
    } else {
        f32::from_bits(b)
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(300)))]

    #[test]
    fn reductions_match_the_model(row in 0usize..6, chip_i in 0usize..6, is_f16 in any::<bool>(), repeat in 0u32..5,
                                  dst_rep in 0u32..4, blk in 0u32..3, rep in 0u32..12, kind in 0u8..3,
                                  lo in any::<u64>(), hi in any::<u64>(), count in 1u64..600, seed in any::<u64>()) {
        let instr = ROWS[row];
        let chip = CHIPS[chip_i];
        let profile = ChipProfile::get(chip);
        let t = if is_f16 { ElemType::F16 } else { ElemType::F32 };
        let size = t.size() as u64;
        let lanes = (256 / size) as u32;
        let lpb = (32 / size) as u32;
        let mut core = VectorCore::new(chip, 0);
        let (mask, set) = match kind {
            0 => (if is_f16 { MaskArg::Bits { lo, hi } } else { MaskArg::Bits { lo, hi: 0 } }, true),
            1 => (MaskArg::Count(1 + count % lanes as u64), true),
            _ => {
                if !profile.vector.counter_mode { return Ok(()); }
                core.mask = MaskRegister { bits: count as u128, mode: MaskMode::Counter };
                (MaskArg::Placeholder, false)
            }
        };
        let iters = if kind == 2 { count.div_ceil(lanes as u64) as u32 } else { repeat };
        let src_elems = (iters.max(1) as u64 * rep as u64 * 32 + 8 * blk.max(1) as u64 * 32 + 256) / size;
        let src = ub("s", t, 0, src_elems);
        let dst_base = (src_elems * size).div_ceil(32) * 32;
        let unit = match instr { Instr::WholeReduceSum => size, Instr::WholeReduceMax | Instr::WholeReduceMin => 2 * size, _ => 8 * size };
        let dst_bytes = iters.max(1) as u64 * dst_rep.max(1) as u64 * unit + 64;
        let dst = ub("d", t, dst_base, dst_bytes / size);
        // Values: moderate with specials, some repeats (for ties).
        let mut x = seed;
        let mut vals = Vec::new();
        for _ in 0..src_elems {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let r = x >> 33;
            let v: f32 = match r % 23 { 0 => f32::NAN, 1 => f32::INFINITY, 2 => -60000.0, 3 => 60000.0, 4 => 1.0, _ => ((r >> 5) % 2000) as f32 / 8.0 - 125.0 };
            vals.push(v);
        }
        let mut bytes = Vec::new();
        for v in &vals {
            if is_f16 { bytes.extend_from_slice(&f16::from_f32(*v).to_le_bytes()) } else { bytes.extend_from_slice(&v.to_le_bytes()) }
        }
        core.ub_mut().write(0, &bytes).unwrap();
        let init: Vec<u8> = (0..dst_bytes).map(|i| (i * 7 + 3) as u8).collect();
        core.ub_mut().write(dst_base, &init).unwrap();
        let op = match ReduceOp::new(profile, instr, "r", &dst, &src, mask, set, repeat as i64, dst_rep as i64, blk as i64, rep as i64) {
            Ok(op) => op,
            Err(e) => return Err(TestCaseError::fail(format!("{e}"))),
        };
        op.execute(&mut core).unwrap();

        // The model.
        let mode = profile.vector.overflow_mode;
        let max = if is_f16 { 65504.0 } else { f32::MAX };
        let round = |v: f32| -> f32 {
            let r = if is_f16 { f16::from_f32(v).to_f32() } else { v };
            if mode == OverflowMode::Saturate && !r.is_finite() { if r.is_nan() { 0.0 } else { r.signum() * max } } else { r }
        };
        let mut want = init.clone();
        let put = |want: &mut Vec<u8>, at: u64, v: f32| {
            let at = at as usize;
            if is_f16 { want[at..at + 2].copy_from_slice(&f16::from_f32(v).to_le_bytes()) } else { want[at..at + 4].copy_from_slice(&v.to_le_bytes()) }
        };
        for r in 0..iters {
            let active: u128 = match mask {
                MaskArg::Bits { lo, hi } => ((hi as u128) << 64 | lo as u128) & if lanes == 128 { u128::MAX } else { (1u128 << lanes) - 1 },
                MaskArg::Count(n) => if n >= 128 { u128::MAX } else { (1u128 << n) - 1 },
                MaskArg::Placeholder => { let left = count.saturating_sub(r as u64 * lanes as u64).min(lanes as u64); if left >= 128 { u128::MAX } else { (1u128 << left) - 1 } }
            };
            let elem = |e: u32| -> f32 {
                let idx = (r as u64 * rep as u64 * 32 + (e / lpb) as u64 * blk as u64 * 32) / size + (e % lpb) as u64;
                let b = &bytes[(idx * size) as usize..];
                bits_to_f32(t, if is_f16 { u16::from_le_bytes([b[0], b[1]]) as u32 } else { u32::from_le_bytes([b[0], b[1], b[2], b[3]]) })
            };
            let on = |e: u32| active >> e & 1 == 1;
            let tree = |lo: u32, hi: u32| -> f32 {
                let mut level: Vec<f32> = (lo..hi).map(|e| if on(e) { elem(e) } else { 0.0 }).collect();
                while level.len() > 1 { level = level.chunks(2).map(|p| round(p[0] + p[1])).collect(); }
                level[0]
            };
            let pick = |lo: u32, hi: u32, is_max: bool| -> Option<(f32, u32)> {
                let mut best: Option<(f32, u32)> = None;
                for e in (lo..hi).filter(|e| on(*e)) {
                    let v = elem(e);
                    let better = match best { None => true, Some((b, _)) => !b.is_nan() && (v.is_nan() || if is_max { v > b } else { v < b }) };
                    if better { best = Some((v, e)); }
                }
                best
            };
            let base = dst_base + r as u64 * dst_rep as u64 * unit;
            let is_max = matches!(instr, Instr::WholeReduceMax | Instr::BlockReduceMax);
            match instr {
                Instr::WholeReduceSum => if active != 0 { put(&mut want, base - dst_base, tree(0, lanes)) },
                Instr::WholeReduceMax | Instr::WholeReduceMin => if let Some((v, i)) = pick(0, lanes, is_max) {
                    put(&mut want, base - dst_base, v);
                    let at = (base - dst_base + size) as usize;
                    want[at..at + size as usize].copy_from_slice(&(i as u64).to_le_bytes()[..size as usize]);
                },
                _ => for b in 0..8 {
                    let (lo_, hi_) = (b * lpb, (b + 1) * lpb);
                    let any = (lo_..hi_).any(on);
                    let at = base - dst_base + (b * size as u32) as u64;
                    if any {
                        let v = if instr == Instr::BlockReduceSum { tree(lo_, hi_) } else { pick(lo_, hi_, is_max).unwrap().0 };
                        put(&mut want, at, v);
                    } else if profile.vector.pair_reduce_masked_pair == MaskedGroupPolicy::WriteZero {
                        let fill = match instr { Instr::BlockReduceSum => 0.0, Instr::BlockReduceMax => if is_f16 { -65504.0 } else { f32::NEG_INFINITY }, _ => if is_f16 { 65504.0 } else { f32::INFINITY } };
                        put(&mut want, at, fill);
                    }
                },
            }
        }
        let got = core.ub().bytes(dst_base, dst_bytes).unwrap();
        for k in 0..(dst_bytes / size) as usize {
            let s = size as usize;
            let (g, w) = (&got[k * s..(k + 1) * s], &want[k * s..(k + 1) * s]);
            if g != w {
                let gb = if is_f16 { u16::from_le_bytes([g[0], g[1]]) as u32 } else { u32::from_le_bytes([g[0], g[1], g[2], g[3]]) };
                let wb = if is_f16 { u16::from_le_bytes([w[0], w[1]]) as u32 } else { u32::from_le_bytes([w[0], w[1], w[2], w[3]]) };
                prop_assert!(bits_to_f32(t, gb).is_nan() && bits_to_f32(t, wb).is_nan(), "{:?} {:?} {:?} elem {}: got {:#x} want {:#x}", instr, chip, t, k, gb, wb);
            }
        }
    }
}
