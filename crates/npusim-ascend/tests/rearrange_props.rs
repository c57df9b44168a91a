//! Property tests of the data-rearrangement rows (Brcb, CreateVecIndex, Gather, GatherMask,
//! Transpose) against plain models of the pages' formulas written here, over random repeats,
//! strides, counts, patterns and values, on every chip profile that has the instruction (the
//! others must refuse with `NotSupported`):
//! - Brcb.md: repeat r takes src[8r .. 8r+8]; element k fills the 32-byte block at
//!   `r·dstRepStride + k·dstBlkStride` blocks (a block stride of 0 counts as 1);
//! - CreateVecIndex.md: `dst[i] = firstValue + i` for i < count;
//! - Gather.md: `dst[i] = src[(srcBaseAddr + offset[i]) / sizeof(T)]` for i < count;
//! - GatherMask.md: the lanes a pattern selects, repeat by repeat, packed from dst[0];
//!   `rsvdCnt` is their number (built-in patterns 1 even, 2 odd, 3..6 every fourth from 0..3,
//!   7 all; or a bit tensor, one bit per lane);
//! - Transpose.md: the 16x16 matrix of 2-byte elements transposed;
//! - Compare（结果存入寄存器）.md (vcmp_xx): one repeat, bit e of CMPMASK = `src0[e] op src1[e]`
//!   for every active lane (block strides from the params), the other bits keep what
//!   SetCmpMask loaded; the types per comparison and chip from the table (int32 only for EQ,
//!   only on A2/A3).

mod common;
use common::CHIPS;

use npusim_ascend::AscendError;
use npusim_ascend::ascendc::{AscendC, BinaryRepeatParams};
use npusim_ascend::isa::Instr;
use npusim_ascend::kernels::CmpMode;
use npusim_core::{ChipId, ElemType};
use proptest::prelude::*;

fn has(instr: Instr, chip: ChipId, t: ElemType) -> bool {
    instr.legal_types(chip).is_some_and(|l| l.contains(&t))
}

fn refused<T>(r: Result<T, AscendError>) -> bool {
    matches!(
        r,
        Err(AscendError::NotSupported { .. } | AscendError::IllegalType { .. })
    )
}

/// IEEE comparison (every comparison with a NaN is false, except `!=`).
fn cmp(mode: CmpMode, a: f64, b: f64) -> bool {
    match mode {
        CmpMode::Lt => a < b,
        CmpMode::Gt => a > b,
        CmpMode::Le => a <= b,
        CmpMode::Ge => a >= b,
        CmpMode::Eq => a == b,
        CmpMode::Ne => a != b,
    }
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

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(64)))]

    #[test]
    fn brcb_matches_the_model(chip_i in 0usize..6, wide in any::<bool>(), repeat in 0i32..5, blk in 0u16..3,
                              extra in 0u16..5, seed in any::<u64>()) {
        let chip = CHIPS[chip_i];
        let mut asc = AscendC::new(chip, 0);
        let mut rng = Rng(seed);
        // Repeats far enough apart not to overlap (the pages leave the overlap order open).
        let b = blk.max(1) as usize;
        let rep = (8 * b) as u16 + extra;
        let blocks = (repeat.max(1) as usize - 1) * rep as usize + 7 * b + 1;
        macro_rules! case {
            ($T:ty, $et:expr) => {{
                let lpb = 32 / std::mem::size_of::<$T>();
                let src: Vec<$T> = (0..8 * repeat.max(1) as usize).map(|_| rng.next() as $T).collect();
                let s = asc.AllocTensor::<$T>("src", src.len() as u64).unwrap();
                let d = asc.AllocTensor::<$T>("dst", (blocks * lpb) as u64).unwrap();
                asc.write(&s, &src).unwrap();
                let init: Vec<$T> = (0..blocks * lpb).map(|_| rng.next() as $T).collect();
                asc.write(&d, &init).unwrap();
                let r = asc.Brcb(&d, &s, repeat, blk, rep);
                if !has(Instr::Brcb, chip, $et) {
                    prop_assert!(refused(r), "{chip:?} should refuse Brcb");
                } else {
                    r.unwrap();
                    let mut want = init.clone();
                    for rr in 0..repeat as usize {
                        for k in 0..8 {
                            let at = (rr * rep as usize + k * b) * lpb;
                            want[at..at + lpb].fill(src[8 * rr + k]);
                        }
                    }
                    prop_assert_eq!(asc.read::<$T>(&d).unwrap(), want);
                }
            }};
        }
        if wide { case!(u32, ElemType::U32) } else { case!(u16, ElemType::U16) }
    }

    #[test]
    fn create_vec_index_matches_the_model(chip_i in 0usize..6, ty in 0usize..4, first in -200i32..200,
                                          count in 1u32..300, half_step in any::<bool>()) {
        let chip = CHIPS[chip_i];
        let mut asc = AscendC::new(chip, 0);
        let n = 320u64;
        let r;
        let ok;
        match ty {
            0 => {
                let d = asc.AllocTensor::<i16>("dst", n).unwrap();
                asc.write(&d, &vec![-7i16; n as usize]).unwrap();
                r = asc.CreateVecIndex(&d, first as i16, count).map(|_| ());
                ok = has(Instr::CreateVecIndex, chip, ElemType::I16);
                if ok && r.is_ok() {
                    let got = asc.read::<i16>(&d).unwrap();
                    for (i, g) in got.iter().enumerate() {
                        let want = if i < count as usize { (first + i as i32) as i16 } else { -7 };
                        prop_assert_eq!(*g, want, "element {}", i);
                    }
                }
            }
            1 => {
                let d = asc.AllocTensor::<i32>("dst", n).unwrap();
                asc.write(&d, &vec![-7i32; n as usize]).unwrap();
                r = asc.CreateVecIndex(&d, first, count).map(|_| ());
                ok = has(Instr::CreateVecIndex, chip, ElemType::I32);
                if ok && r.is_ok() {
                    let got = asc.read::<i32>(&d).unwrap();
                    for (i, g) in got.iter().enumerate() {
                        let want = if i < count as usize { first + i as i32 } else { -7 };
                        prop_assert_eq!(*g, want, "element {}", i);
                    }
                }
            }
            2 => {
                let f = first as f32 + if half_step { 0.5 } else { 0.0 };
                let d = asc.AllocTensor::<f32>("dst", n).unwrap();
                asc.write(&d, &vec![-7.0f32; n as usize]).unwrap();
                r = asc.CreateVecIndex(&d, f, count).map(|_| ());
                ok = has(Instr::CreateVecIndex, chip, ElemType::F32);
                if ok && r.is_ok() {
                    let got = asc.read::<f32>(&d).unwrap();
                    for (i, g) in got.iter().enumerate() {
                        let want = if i < count as usize { f + i as f32 } else { -7.0 };
                        prop_assert_eq!(*g, want, "element {}", i);
                    }
                }
            }
            _ => {
                let f = first as f32 + if half_step { 0.5 } else { 0.0 };
                let d = asc.AllocTensor::<half::f16>("dst", n).unwrap();
                asc.write(&d, &vec![half::f16::from_f32(-7.0); n as usize]).unwrap();
                r = asc.CreateVecIndex(&d, half::f16::from_f32(f), count).map(|_| ());
                ok = has(Instr::CreateVecIndex, chip, ElemType::F16);
                if ok && r.is_ok() {
                    let got = asc.read::<half::f16>(&d).unwrap();
                    for (i, g) in got.iter().enumerate() {
                        // Each value rounded once to half (exact here: |value| < 1024).
                        let want = if i < count as usize { half::f16::from_f32(f + i as f32) } else { half::f16::from_f32(-7.0) };
                        prop_assert_eq!(*g, want, "element {}", i);
                    }
                }
            }
        }
        if ok { r.unwrap() } else { prop_assert!(refused(r), "{chip:?} should refuse CreateVecIndex") }
    }

    #[test]
    fn gather_matches_the_model(chip_i in 0usize..6, wide in any::<bool>(), count in 1u32..200, base_el in 0u32..16,
                                seed in any::<u64>()) {
        let chip = CHIPS[chip_i];
        let mut asc = AscendC::new(chip, 0);
        let mut rng = Rng(seed);
        let n = 256usize;
        macro_rules! case {
            ($T:ty, $et:expr) => {{
                let size = std::mem::size_of::<$T>() as u32;
                let src: Vec<$T> = (0..n).map(|_| rng.next() as $T).collect();
                let off: Vec<u32> = (0..count).map(|_| (rng.next() % (n as u64 - base_el as u64)) as u32 * size).collect();
                let s = asc.AllocTensor::<$T>("src", n as u64).unwrap();
                let o = asc.AllocTensor::<u32>("srcOffset", count as u64).unwrap();
                let d = asc.AllocTensor::<$T>("dst", n as u64).unwrap();
                asc.write(&s, &src).unwrap();
                asc.write(&o, &off).unwrap();
                let init: Vec<$T> = (0..n).map(|_| rng.next() as $T).collect();
                asc.write(&d, &init).unwrap();
                let r = asc.Gather(&d, &s, &o, base_el * size, count);
                if !has(Instr::Gather, chip, $et) {
                    prop_assert!(refused(r), "{chip:?} should refuse Gather");
                } else {
                    r.unwrap();
                    let mut want = init.clone();
                    for i in 0..count as usize {
                        want[i] = src[((base_el * size + off[i]) / size) as usize];
                    }
                    prop_assert_eq!(asc.read::<$T>(&d).unwrap(), want);
                }
            }};
        }
        if wide { case!(u32, ElemType::U32) } else { case!(u16, ElemType::U16) }
    }

    #[test]
    fn gather_mask_matches_the_model(chip_i in 0usize..6, wide in any::<bool>(), pattern in 0u8..8, repeat in 0u16..4,
                                     blk in 1u16..3, rep in 0u16..20, seed in any::<u64>()) {
        let chip = CHIPS[chip_i];
        let mut asc = AscendC::new(chip, 0);
        let mut rng = Rng(seed);
        macro_rules! case {
            ($T:ty, $et:expr) => {{
                let size = std::mem::size_of::<$T>();
                let (lanes, lpb) = (256 / size, 32 / size);
                let span = (repeat.max(1) as usize - 1) * rep as usize * lpb + 7 * blk as usize * lpb + lpb;
                let src: Vec<$T> = (0..span).map(|_| rng.next() as $T).collect();
                let s = asc.AllocTensor::<$T>("src0", span as u64).unwrap();
                let d = asc.AllocTensor::<$T>("dst", (repeat.max(1) as usize * lanes) as u64).unwrap();
                let p = asc.AllocTensor::<u8>("src1Pattern", 32).unwrap();
                asc.write(&s, &src).unwrap();
                let user: Vec<u8> = (0..32).map(|_| rng.next() as u8).collect();
                asc.write(&p, &user).unwrap();
                let init: Vec<$T> = (0..repeat.max(1) as usize * lanes).map(|_| rng.next() as $T).collect();
                asc.write(&d, &init).unwrap();
                let params = [blk, repeat, rep, 0];
                // pattern 0 = the user bit tensor (the same bits every repeat).
                let r = if pattern == 0 {
                    asc.GatherMaskRepeat(&d, &s, &p, false, 0, params)
                } else {
                    asc.GatherMask(&d, &s, pattern, false, 0, params)
                };
                if !has(Instr::GatherMask, chip, $et) {
                    prop_assert!(refused(r), "{chip:?} should refuse GatherMask");
                } else {
                    let n = r.unwrap();
                    let mut want = init.clone();
                    let mut k = 0usize;
                    for rr in 0..repeat as usize {
                        for e in 0..lanes {
                            let keep = match pattern {
                                0 => user[e / 8] >> (e % 8) & 1 == 1,
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
                }
            }};
        }
        if wide { case!(u32, ElemType::U32) } else { case!(u16, ElemType::U16) }
    }

    #[test]
    fn transpose_matches_the_model(chip_i in 0usize..6, seed in any::<u64>()) {
        let chip = CHIPS[chip_i];
        let mut asc = AscendC::new(chip, 0);
        let mut rng = Rng(seed);
        let x: Vec<u16> = (0..256).map(|_| rng.next() as u16).collect();
        let s = asc.AllocTensor::<u16>("src", 256).unwrap();
        let d = asc.AllocTensor::<u16>("dst", 256).unwrap();
        asc.write(&s, &x).unwrap();
        let r = asc.Transpose(&d, &s);
        if !has(Instr::Transpose, chip, ElemType::U16) {
            prop_assert!(refused(r), "{chip:?} should refuse Transpose");
        } else {
            r.unwrap();
            let got = asc.read::<u16>(&d).unwrap();
            for i in 0..16 {
                for j in 0..16 {
                    prop_assert_eq!(got[i * 16 + j], x[j * 16 + i], "({}, {})", i, j);
                }
            }
        }
    }

    #[test]
    fn compare_into_cmpmask_matches_the_model(chip_i in 0usize..6, ty in 0usize..3, m in 0usize..6, bits_mask in any::<bool>(),
                                               lo in any::<u64>(), hi in any::<u64>(), count in 1u64..129,
                                               b0 in 1u8..3, b1 in 1u8..3, init in any::<u128>(), seed in any::<u64>()) {
        let chip = CHIPS[chip_i];
        let mode = CmpMode::ALL[m];
        let row = Instr::ALL.iter().copied()
            .find(|i| i.shape() == npusim_ascend::isa::Shape::CmpMask && i.cmp_mode() == Some(mode))
            .unwrap();
        let mut asc = AscendC::new(chip, 0);
        let mut rng = Rng(seed);
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
                let hi = if lanes == 128 { hi } else { 0 };
                let active: u128 = if bits_mask {
                    (hi as u128) << 64 | lo as u128
                } else {
                    let c = count.min(lanes as u64);
                    if c == 128 { u128::MAX } else { (1u128 << c) - 1 }
                };
                let r = if bits_mask {
                    asc.CompareToCmpMask(&s0, &s1, mode, [lo, hi], p)
                } else {
                    asc.CompareToCmpMask(&s0, &s1, mode, count.min(lanes as u64), p)
                };
                if !has(row, chip, $et) {
                    prop_assert!(refused(r), "{chip:?} should refuse {row:?} on {:?}", $et);
                } else {
                    r.unwrap();
                    let mut want = init;
                    for e in 0..lanes {
                        if active >> e & 1 == 1 {
                            let ia = (e / lpb) * b0 as usize * lpb + e % lpb;
                            let ib = (e / lpb) * b1 as usize * lpb + e % lpb;
                            let val = $val;
                            let holds = cmp(mode, val(a[ia]), val(b[ib]));
                            want = if holds { want | 1 << e } else { want & !(1u128 << e) };
                        }
                    }
                    asc.GetCmpMask(&reg).unwrap();
                    let got = asc.read::<u8>(&reg).unwrap();
                    prop_assert_eq!(&got[..16], &want.to_le_bytes()[..]);
                }
            }};
        }
        match ty {
            0 => case!(half::f16, ElemType::F16, |x: u64| half::f16::from_bits(x as u16), |v: half::f16| v.to_f64()),
            1 => case!(f32, ElemType::F32, |x: u64| if x & 3 == 0 { f32::from_bits(x as u32) } else { (x % 7) as f32 - 3.0 }, |v: f32| v as f64),
            _ => case!(i32, ElemType::I32, |x: u64| (x % 5) as i32 - 2, |v: i32| v as f64),
        }
    }
}
