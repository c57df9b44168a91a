//! vec_reduce_add / ReduceSum: the per-chip orders (ascend-vector.md §4) against plain models
//! written here, in half where the order changes the result; and an exact float sum.

mod common;

use half::f16;
use npusim_ascend::ascendc::AscendC;
use npusim_ascend::tik::{Scope, Tik, TikMask};
use npusim_core::{ChipId, ChipProfile, NpyArray, OverflowMode};
use proptest::prelude::*;

fn round(chip: ChipId, v: f32) -> f32 {
    let r = f16::from_f32(v).to_f32();
    if ChipProfile::get(chip).vector.overflow_mode == OverflowMode::Saturate && !r.is_finite() {
        if r.is_nan() {
            0.0
        } else {
            r.signum() * 65504.0
        }
    } else {
        r
    }
}

fn tree(chip: ChipId, v: &[f32]) -> f32 {
    let mut l = v.to_vec();
    while l.len() > 1 {
        l = l
            .chunks(2)
            .map(|p| {
                if p.len() == 2 {
                    round(chip, p[0] + p[1])
                } else {
                    p[0]
                }
            })
            .collect();
    }
    l[0]
}

/// The model of each chip's order over `rows` (128 lanes each).
fn model(chip: ChipId, rows: &[Vec<f32>]) -> f32 {
    let sums: Vec<f32> = rows.iter().map(|r| tree(chip, r)).collect();
    match chip {
        ChipId::Ascend310 | ChipId::Ascend910 | ChipId::Ascend310P => {
            let mut l = sums;
            while l.len() > 1 {
                l = l
                    .chunks(128)
                    .map(|c| {
                        let mut c = c.to_vec();
                        c.resize(128, 0.0);
                        tree(chip, &c)
                    })
                    .collect();
            }
            l[0]
        }
        ChipId::Ascend310B => {
            let n = rows.len();
            let apart = n % 2 == 1 && n > 1;
            let body = if apart { n - 1 } else { n };
            let acc = |start: usize| -> Option<Vec<f32>> {
                let mut it = (start..body).step_by(2);
                let first = it.next()?;
                let mut a = rows[first].clone();
                for r in it {
                    for (x, y) in a.iter_mut().zip(&rows[r]) {
                        *x = round(chip, *x + y);
                    }
                }
                Some(a)
            };
            let mut d = match (acc(0), acc(1)) {
                (Some(b), Some(a)) => a.iter().zip(&b).map(|(x, y)| round(chip, x + y)).collect(),
                (Some(b), None) => b,
                _ => unreachable!(),
            };
            if apart {
                for (x, c) in d.iter_mut().zip(&rows[n - 1]) {
                    *x = round(chip, *x + c);
                }
            }
            tree(chip, &d)
        }
        _ => {
            let chunks: Vec<f32> = sums
                .chunks(255)
                .map(|c| c[1..].iter().fold(c[0], |a, x| round(chip, a + x)))
                .collect();
            tree(chip, &chunks)
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(60)))]

    /// Every chip's order, with TIK's mask: full (`mask_kind` 0), continuous (1) or
    /// `[mask_h, mask_l]` (2); masked-off lanes count as 0 in the model.
    #[test]
    fn vec_reduce_add_follows_the_chip_order(chip_i in 0usize..6, repeat in 1usize..12, mask_kind in 0u8..3,
                                             count_mask in 1u64..=128, hi in any::<u64>(), lo in any::<u64>(),
                                             seed in any::<u64>()) {
        let chip = [ChipId::Ascend310, ChipId::Ascend910, ChipId::Ascend310P, ChipId::Ascend910B, ChipId::Ascend310B, ChipId::Ascend950][chip_i];
        let n = repeat * 128;
        let mut x = seed;
        let vals: Vec<f16> = (0..n).map(|_| { x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407); f16::from_f32(((x >> 40) % 20000) as f32 / 7.0 - 1000.0) }).collect();
        let mut t = Tik::new(chip);
        let g = t.tensor("float16", &[n], "g", Scope::Gm).unwrap();
        let o = t.tensor("float16", &[16], "o", Scope::Gm).unwrap();
        let s = t.tensor("float16", &[n], "s", Scope::Ubuf).unwrap();
        let w = t.tensor("float16", &[n], "w", Scope::Ubuf).unwrap();
        let d = t.tensor("float16", &[16], "d", Scope::Ubuf).unwrap();
        t.data_move(&s, &g, 0, 1, (n / 16) as i64, 0, 0).unwrap();
        let (mask, bits): (TikMask, u128) = match mask_kind {
            0 => (128u64.into(), u128::MAX),
            // The low c bits, c in 1..=128 (no shift by 128).
            1 => (count_mask.into(), u128::MAX >> (128 - count_mask)),
            _ => {
                let (hi, lo) = if hi == 0 && lo == 0 { (0, 1) } else { (hi, lo) };
                ([hi, lo].into(), (hi as u128) << 64 | lo as u128)
            }
        };
        t.vec_reduce_add(mask, &d, &s, &w, repeat as i64, 8).unwrap();
        t.data_move(&o, &d, 0, 1, 1, 0, 0).unwrap();
        t.build_cce("k", &[&g], &[&o]).unwrap();
        let out = t.start_debug(&[("g", &NpyArray::from_elems(vec![n], &vals))]).unwrap();
        let got = out[0].1.to_elems::<f16>().unwrap()[0].to_f32();
        let rows: Vec<Vec<f32>> = vals
            .chunks(128)
            .map(|c| c.iter().enumerate().map(|(e, v)| if bits >> e & 1 == 1 { v.to_f32() } else { 0.0 }).collect())
            .collect();
        let want = model(chip, &rows);
        prop_assert!(got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()), "{:?}: {} vs model {}", chip, got, want);
    }
}

#[test]
fn reduce_sum_count_form_in_float_is_exact_on_small_integers() {
    for chip in [ChipId::Ascend910B, ChipId::Ascend310P] {
        let mut asc = AscendC::new(chip, 0);
        let s = asc.AllocTensor::<f32>("s", 1000).unwrap();
        let t = asc.AllocTensor::<f32>("t", 1000).unwrap();
        let d = asc.AllocTensor::<f32>("d", 8).unwrap();
        let x: Vec<f32> = (1..=1000).map(|i| i as f32).collect();
        asc.write(&s, &x).unwrap();
        asc.ReduceSum(&d, &s, &t, 1000).unwrap();
        assert_eq!(asc.read::<f32>(&d).unwrap()[0], 500_500.0);
    }
}

#[test]
fn reduce_max_min_value_and_lowest_index() {
    let mut asc = AscendC::new(ChipId::Ascend910B, 0);
    let s = asc.AllocTensor::<f16>("s", 300).unwrap();
    let t = asc.AllocTensor::<f16>("t", 300).unwrap();
    let d = asc.AllocTensor::<f16>("d", 16).unwrap();
    let mut x: Vec<f16> = (0..300)
        .map(|i| f16::from_f32(((i * 37) % 101) as f32))
        .collect();
    x[250] = f16::from_f32(500.0);
    x[260] = f16::from_f32(500.0);
    x[7] = f16::from_f32(-3.0);
    asc.write(&s, &x).unwrap();
    asc.ReduceMax(&d, &s, &t, 300).unwrap();
    let out = asc.read::<f16>(&d).unwrap();
    assert_eq!(out[0].to_f32(), 500.0);
    assert_eq!(out[1].to_bits(), 250, "ties go to the lowest index");
    asc.ReduceMin(&d, &s, &t, 300).unwrap();
    let out = asc.read::<f16>(&d).unwrap();
    assert_eq!((out[0].to_f32(), out[1].to_bits()), (-3.0, 7));
}

const ALL_CHIPS: [ChipId; 6] = [
    ChipId::Ascend310,
    ChipId::Ascend910,
    ChipId::Ascend310P,
    ChipId::Ascend910B,
    ChipId::Ascend310B,
    ChipId::Ascend950,
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(128)))]

    /// ReduceMax / ReduceMin (count form, calIndex = true) against a plain model written here:
    /// dst = [best value, index of the first best element] with the index stored as the raw
    /// bits of the element type (ReduceMax.md: "如果存在多个最大值，该指令会将最小索引写入"),
    /// a NaN winning from where it first appears (the crate's reduction policy), over counts
    /// that span many repeats and values with specials and repeats; every chip, every type
    /// it lists (others refused).
    #[test]
    fn reduce_max_min_match_the_model(chip_i in 0usize..6, is_f16 in any::<bool>(), is_max in any::<bool>(),
                                      count in 1usize..3000, seed in any::<u64>()) {
        let chip = ALL_CHIPS[chip_i];
        let instr = if is_max { npusim_ascend::isa::Instr::ReduceMax } else { npusim_ascend::isa::Instr::ReduceMin };
        let t = if is_f16 { npusim_core::ElemType::F16 } else { npusim_core::ElemType::F32 };
        let legal = instr.legal_types(chip).is_some_and(|l| l.contains(&t));
        let mut x = seed;
        let mut next = move || { x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407); x >> 20 };
        let vals: Vec<f32> = (0..count).map(|_| {
            let r = next();
            match r % 64 {
                0 => f32::NAN,
                1 => f32::INFINITY,
                2 => f32::NEG_INFINITY,
                3 => -0.0,
                4..=20 => (r % 7) as f32 - 3.0, // many ties
                _ => ((r >> 8) % 20000) as f32 / 100.0 - 100.0,
            }
        }).collect();
        let mut asc = AscendC::new(chip, 0);
        macro_rules! case {
            ($T:ty, $from:expr, $to:expr) => {{
                let xs: Vec<$T> = vals.iter().map(|v| $from(*v)).collect();
                let s = asc.AllocTensor::<$T>("src", count as u64).unwrap();
                let tmp = asc.AllocTensor::<$T>("tmp", count as u64).unwrap();
                let d = asc.AllocTensor::<$T>("dst", 16).unwrap();
                asc.write(&s, &xs).unwrap();
                let r = if is_max { asc.ReduceMax(&d, &s, &tmp, count as i32) } else { asc.ReduceMin(&d, &s, &tmp, count as i32) };
                if !legal {
                    prop_assert!(r.is_err(), "{chip:?} should refuse {instr:?} on {t:?}");
                } else {
                    r.unwrap();
                    let mut best: Option<(f32, usize)> = None;
                    for (i, v) in xs.iter().map(|v| $to(*v)).enumerate() {
                        let better = match best {
                            None => true,
                            Some((b, _)) => !b.is_nan() && (v.is_nan() || if is_max { v > b } else { v < b }),
                        };
                        if better { best = Some((v, i)); }
                    }
                    let (v, i) = best.unwrap();
                    let out = asc.read::<$T>(&d).unwrap();
                    let got = $to(out[0]);
                    prop_assert!(got.to_bits() == v.to_bits() || (got.is_nan() && v.is_nan()), "value {} vs {}", got, v);
                    prop_assert_eq!(out[1].to_bits() as usize, i, "index");
                }
            }};
        }
        if is_f16 {
            case!(f16, f16::from_f32, |v: f16| v.to_f32())
        } else {
            case!(f32, |v: f32| v, |v: f32| v)
        }
    }
}
