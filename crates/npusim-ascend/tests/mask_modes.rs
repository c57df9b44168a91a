//! The mask modes of the rows with their own records, against plain models of the pages'
//! formulas written here, on every chip profile (chips without counter mode must refuse
//! `SetMaskCount` with `NotSupported`; chips without the row must refuse the call):
//! - Select.md with `isSetMask = false` and `MASK_PLACEHOLDER`: the lanes come from the mask
//!   register, set by `SetVectorMask` in normal mode (128 bits per repeat) or by
//!   `SetMaskCount` + `SetVectorMask(count)` in counter mode (the first `count` elements over
//!   `ceil(count / lanes)` repeats, `repeatTime` ignored; 掩码/*.md). Mode 0 reads the same
//!   sel bits every repeat, modes 1 and 2 consume them continuously.
//! - Compare（结果存入寄存器）.md with `isSetMask = false`: the one repeat's lanes from the mask
//!   register in both modes; bit e of CMPMASK = `src0[e] op src1[e]` for each active lane, the
//!   others keep what SetCmpMask loaded.
//! - GatherMask.md in counter mode (`reduceMode = true`): `mask` elements of each of
//!   `repeatTimes` repeats (A2/A3, 310B, 950; mask in [1, lanes]), or `mask` elements in total
//!   over `ceil(mask / lanes)` repeats with `repeatTimes` ignored (Atlas inference, 310P);
//!   the selected ones packed from dst[0], rsvdCnt their number.
//!
//! PairReduceSum's counter mode is in `properties.rs` (`pair_reduce_sum_matches_model`).

mod common;
use common::CHIPS;

use half::f16;
use npusim_ascend::AscendError;
use npusim_ascend::ascendc::{AscendC, BinaryRepeatParams, MASK_PLACEHOLDER, SELMODE};
use npusim_ascend::isa::Instr;
use npusim_ascend::kernels::CmpMode;
use npusim_core::{ChipId, ChipProfile, ElemType};
use proptest::prelude::*;

fn has(instr: Instr, chip: ChipId, t: ElemType) -> bool {
    instr.legal_types(chip).is_some_and(|l| l.contains(&t))
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

/// The lanes of repeat `r` under the register's mask: normal bits, or counter count `c`.
fn active(counter: Option<u64>, bits: u128, r: usize, lanes: usize) -> u128 {
    let full = if lanes == 128 {
        u128::MAX
    } else {
        (1u128 << lanes) - 1
    };
    match counter {
        None => bits & full,
        Some(c) => {
            let left = c.saturating_sub((r * lanes) as u64).min(lanes as u64);
            if left == 128 {
                u128::MAX
            } else {
                (1u128 << left) - 1
            }
        }
    }
}

/// Sets the mask register as a kernel would; `Err` when the chip has no counter mode.
fn set_mask(asc: &mut AscendC, counter: Option<u64>, bits: u128) -> Result<(), AscendError> {
    match counter {
        Some(c) => {
            asc.SetMaskCount()?;
            asc.SetVectorMaskLen(c);
        }
        None => {
            asc.SetMaskNorm();
            asc.SetVectorMask((bits >> 64) as u64, bits as u64);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(64)))]

    #[test]
    fn select_register_masks_match_the_model(chip_i in 0usize..6, wide in any::<bool>(), mode in 0u8..3,
                                             counter in any::<bool>(), count in 1u64..400, lo in any::<u64>(),
                                             hi in any::<u64>(), repeat in 1i32..4, blk in 1u8..3, rep in 0u8..12,
                                             seed in any::<u64>()) {
        let chip = CHIPS[chip_i];
        let mut asc = AscendC::new(chip, 0);
        let mut rng = Rng(seed);
        let bits = (hi as u128) << 64 | lo as u128;
        let counter = counter.then_some(count);
        if let Err(e) = set_mask(&mut asc, counter, bits) {
            prop_assert!(!ChipProfile::get(chip).vector.counter_mode);
            prop_assert!(matches!(e, AscendError::NotSupported { .. }), "{e}");
            return Ok(());
        }
        // Atlas training and Atlas 200/300/500 inference have mode 0 only.
        let mode = if matches!(chip, ChipId::Ascend310 | ChipId::Ascend910) { 0 } else { mode };
        let selmode = [SELMODE::VSEL_CMPMASK_SPR, SELMODE::VSEL_TENSOR_SCALAR_MODE, SELMODE::VSEL_TENSOR_TENSOR_MODE][mode as usize];
        macro_rules! case {
            ($T:ty, $et:expr, $gen:expr) => {{
                let size = std::mem::size_of::<$T>();
                let (lanes, lpb) = (256 / size, 32 / size);
                let reps = match counter { Some(c) => c.div_ceil(lanes as u64) as usize, None => repeat as usize };
                let span = ((reps - 1) * rep as usize * lpb + 7 * blk as usize * lpb + lpb).max(reps * lanes);
                let make = $gen;
                let a: Vec<$T> = (0..span).map(|_| make(rng.next())).collect();
                let b: Vec<$T> = (0..span).map(|_| make(rng.next())).collect();
                let init: Vec<$T> = (0..span).map(|_| make(rng.next())).collect();
                let selb: Vec<u8> = (0..reps * lanes / 8).map(|_| rng.next() as u8).collect();
                let s0 = asc.AllocTensor::<$T>("src0", span as u64).unwrap();
                let s1 = asc.AllocTensor::<$T>("src1", span as u64).unwrap();
                let d = asc.AllocTensor::<$T>("dst", span as u64).unwrap();
                let sel = asc.AllocTensor::<u8>("selMask", selb.len().max(32) as u64).unwrap();
                asc.write(&s0, &a).unwrap();
                asc.write(&s1, &b).unwrap();
                asc.write(&d, &init).unwrap();
                asc.write(&sel, &selb).unwrap();
                let scalar = make(rng.next());
                let p = BinaryRepeatParams::new(blk, 1, 1, rep, 8, 8);
                let r = if mode == 1 {
                    asc.SelectRepeat::<$T, u8, false>(&d, &sel, &s0, scalar, selmode, MASK_PLACEHOLDER, repeat, p)
                } else {
                    asc.SelectRepeat::<$T, u8, false>(&d, &sel, &s0, &s1, selmode, MASK_PLACEHOLDER, repeat, p)
                };
                if !has(Instr::Select, chip, $et) {
                    prop_assert!(r.is_err());
                } else {
                    r.unwrap();
                    let mut want = init.clone();
                    for rr in 0..reps {
                        let act = active(counter, bits, rr, lanes);
                        for e in 0..lanes {
                            if act >> e & 1 == 0 { continue; }
                            let bit = if mode == 0 { e } else { rr * lanes + e };
                            let pick0 = selb[bit / 8] >> (bit % 8) & 1 == 1;
                            let v = if pick0 { a[rr * 8 * lpb + e] } else if mode == 1 { scalar } else { b[rr * 8 * lpb + e] };
                            want[rr * rep as usize * lpb + (e / lpb) * blk as usize * lpb + e % lpb] = v;
                        }
                    }
                    // Bit for bit, except that a NaN scalar may come back as another NaN (the
                    // scalar travels as a value; NaN payloads are not modelled).
                    let got = asc.read::<$T>(&d).unwrap();
                    prop_assert!(got.iter().zip(&want).all(|(g, w)| g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan())));
                }
            }};
        }
        if wide {
            case!(f32, ElemType::F32, |x: u64| f32::from_bits(x as u32))
        } else {
            case!(f16, ElemType::F16, |x: u64| f16::from_bits(x as u16))
        }
    }

    #[test]
    fn compare_into_cmpmask_register_masks_match_the_model(chip_i in 0usize..6, wide in any::<bool>(), m in 0usize..6,
                                                           counter in any::<bool>(), count in 0u64..200, lo in any::<u64>(),
                                                           hi in any::<u64>(), b0 in 1u8..3, b1 in 1u8..3,
                                                           init in any::<u128>(), seed in any::<u64>()) {
        let chip = CHIPS[chip_i];
        let mode = CmpMode::ALL[m];
        let row = Instr::ALL.iter().copied()
            .find(|i| i.shape() == npusim_ascend::isa::Shape::CmpMask && i.cmp_mode() == Some(mode))
            .unwrap();
        let mut asc = AscendC::new(chip, 0);
        let mut rng = Rng(seed);
        let bits = (hi as u128) << 64 | lo as u128;
        let counter = counter.then_some(count);
        if let Err(e) = set_mask(&mut asc, counter, bits) {
            prop_assert!(!ChipProfile::get(chip).vector.counter_mode);
            prop_assert!(matches!(e, AscendError::NotSupported { .. }), "{e}");
            return Ok(());
        }
        let reg = asc.AllocTensor::<u8>("reg", 32).unwrap();
        let mut ib = init.to_le_bytes().to_vec();
        ib.resize(32, 0);
        asc.write(&reg, &ib).unwrap();
        asc.SetCmpMask(&reg).unwrap();
        let p = BinaryRepeatParams::new(1, b0, b1, 8, 8, 8);
        macro_rules! case {
            ($T:ty, $et:expr, $gen:expr, $val:expr) => {{
                let size = std::mem::size_of::<$T>();
                let (lanes, lpb) = (256 / size, 32 / size);
                let n = 8 * 3 * lpb;
                let make = $gen;
                let a: Vec<$T> = (0..n).map(|_| make(rng.next())).collect();
                let b: Vec<$T> = (0..n).map(|_| make(rng.next())).collect();
                let s0 = asc.AllocTensor::<$T>("src0", n as u64).unwrap();
                let s1 = asc.AllocTensor::<$T>("src1", n as u64).unwrap();
                asc.write(&s0, &a).unwrap();
                asc.write(&s1, &b).unwrap();
                let r = asc.CompareToCmpMaskIsSet::<$T, false>(&s0, &s1, mode, MASK_PLACEHOLDER, p);
                if !has(row, chip, $et) {
                    prop_assert!(r.is_err());
                } else {
                    r.unwrap();
                    let act = active(counter, bits, 0, lanes);
                    let mut want = init;
                    for e in 0..lanes {
                        if act >> e & 1 == 1 {
                            let ia = (e / lpb) * b0 as usize * lpb + e % lpb;
                            let ib = (e / lpb) * b1 as usize * lpb + e % lpb;
                            let val = $val;
                            let (x, y) = (val(a[ia]), val(b[ib]));
                            let holds = match mode {
                                CmpMode::Lt => x < y, CmpMode::Gt => x > y, CmpMode::Le => x <= y,
                                CmpMode::Ge => x >= y, CmpMode::Eq => x == y, CmpMode::Ne => x != y,
                            };
                            want = if holds { want | 1 << e } else { want & !(1u128 << e) };
                        }
                    }
                    asc.GetCmpMask(&reg).unwrap();
                    let got = asc.read::<u8>(&reg).unwrap();
                    prop_assert_eq!(&got[..16], &want.to_le_bytes()[..]);
                }
            }};
        }
        if wide {
            case!(f32, ElemType::F32, |x: u64| if x & 3 == 0 { f32::from_bits(x as u32) } else { (x % 7) as f32 - 3.0 }, |v: f32| v as f64)
        } else {
            case!(f16, ElemType::F16, |x: u64| if x & 3 == 0 { f16::from_bits(x as u16) } else { f16::from_f32((x % 7) as f32 - 3.0) }, |v: f16| v.to_f64())
        }
    }

    #[test]
    fn gather_mask_counter_mode_matches_the_model(chip_i in 0usize..6, wide in any::<bool>(), pattern in 0u8..8,
                                                  repeat in 0u16..4, mask in 0u32..300, blk in 1u16..3, rep in 0u16..20,
                                                  s1rep in 0u16..3, seed in any::<u64>()) {
        let chip = CHIPS[chip_i];
        let mut asc = AscendC::new(chip, 0);
        let mut rng = Rng(seed);
        macro_rules! case {
            ($T:ty, $et:expr) => {{
                let size = std::mem::size_of::<$T>();
                let (lanes, lpb) = (256 / size, 32 / size);
                // Lanes of each repeat, as GatherMask.md gives them per chip.
                let per: Option<Vec<usize>> = if chip == ChipId::Ascend310P {
                    let n = (mask as usize).div_ceil(lanes);
                    Some((0..n).map(|r| (mask as usize - r * lanes).min(lanes)).collect())
                } else if mask == 0 || mask as usize > lanes {
                    None // a typed refusal
                } else {
                    Some(vec![mask as usize; repeat as usize])
                };
                let reps = per.as_ref().map_or(1, |p| p.len().max(1));
                let span = (reps - 1) * rep as usize * lpb + 7 * blk as usize * lpb + lpb;
                let src: Vec<$T> = (0..span).map(|_| rng.next() as $T).collect();
                let s = asc.AllocTensor::<$T>("src0", span as u64).unwrap();
                let d = asc.AllocTensor::<$T>("dst", (reps * lanes) as u64).unwrap();
                let pat_bytes = (reps - 1) * s1rep as usize * 32 + 32;
                let p = asc.AllocTensor::<u8>("src1Pattern", pat_bytes as u64).unwrap();
                asc.write(&s, &src).unwrap();
                let user: Vec<u8> = (0..pat_bytes).map(|_| rng.next() as u8).collect();
                asc.write(&p, &user).unwrap();
                let init: Vec<$T> = (0..reps * lanes).map(|_| rng.next() as $T).collect();
                asc.write(&d, &init).unwrap();
                let params = [blk, repeat, rep, s1rep];
                let r = if pattern == 0 {
                    asc.GatherMaskRepeat(&d, &s, &p, true, mask, params)
                } else {
                    asc.GatherMask(&d, &s, pattern, true, mask, params)
                };
                if !has(Instr::GatherMask, chip, $et) {
                    let ok = matches!(r, Err(AscendError::NotSupported { .. } | AscendError::IllegalType { .. }));
                    prop_assert!(ok, "{:?} should refuse GatherMask", chip);
                } else if let Some(per) = per {
                    let n = r.unwrap();
                    let mut want = init.clone();
                    let mut k = 0usize;
                    for (rr, &m) in per.iter().enumerate() {
                        for e in 0..m {
                            let keep = match pattern {
                                0 => user[rr * s1rep as usize * 32 + e / 8] >> (e % 8) & 1 == 1,
                                1 => e % 2 == 0,
                                2 => e % 2 == 1,
                                3..=6 => e % 4 == (pattern - 3) as usize,
                                _ => true,
                            };
                            if keep {
                                want[k] = src[rr * rep as usize * lpb + (e / lpb) * blk as usize * lpb + e % lpb];
                                k += 1;
                            }
                        }
                    }
                    prop_assert_eq!(n, k as u64);
                    prop_assert_eq!(asc.read::<$T>(&d).unwrap(), want);
                } else {
                    match r {
                        Err(AscendError::BadMask { instr, value, .. }) => {
                            prop_assert_eq!(instr, "GatherMask");
                            prop_assert_eq!(value, mask.to_string());
                        }
                        other => prop_assert!(false, "expected BadMask, got {:?}", other),
                    }
                    prop_assert_eq!(asc.read::<$T>(&d).unwrap(), init, "a refused call writes nothing");
                }
            }};
        }
        if wide { case!(u32, ElemType::U32) } else { case!(u16, ElemType::U16) }
    }
}
