//! Property tests: every instruction against a plain scalar model of its documented formula,
//! over random repeats, strides, masks and values, on every chip profile.
//!
//! The models below do not use the crate's geometry engine or kernels: they compute each
//! element's address from the documented formula and each result with `half`/`f32` scalar
//! arithmetic, one element at a time.

mod common;
use common::CHIPS;

use half::f16;
use npusim_ascend::AscendError;
use npusim_ascend::ascendc::{AscendC, MASK_PLACEHOLDER};
use npusim_ascend::kernels::CmpMode;
use npusim_ascend::tik::{Scope, Tik};
use npusim_core::{ChipId, ChipProfile, MaskedGroupPolicy, NpyArray, OverflowMode};
use proptest::prelude::*;

/// f16 bit patterns with the special values well represented.
fn f16_bits() -> impl Strategy<Value = u16> {
    prop_oneof![
        6 => (0u16..0x7c00).prop_map(|m| m), // positive finite
        6 => (0u16..0x7c00).prop_map(|m| m | 0x8000),
        1 => Just(0x0000u16), 1 => Just(0x8000), 1 => Just(0x7c00), 1 => Just(0xfc00),
        1 => Just(0x7e00), 1 => Just(0xfd01), 1 => Just(0x0001), 1 => Just(0x7bff), 1 => Just(0xfbff),
    ]
}

fn f32_bits() -> impl Strategy<Value = u32> {
    prop_oneof![
        8 => any::<u32>(),
        1 => Just(0u32), 1 => Just(0x8000_0000), 1 => Just(0x7f80_0000), 1 => Just(0xff80_0000),
        1 => Just(0x7fc0_0000), 1 => Just(0x0000_0001), 1 => Just(0x7f7f_ffff),
    ]
}

fn value(bits: u32, is_f16: bool) -> f64 {
    if is_f16 {
        f16::from_bits(bits as u16).to_f64()
    } else {
        f32::from_bits(bits) as f64
    }
}

#[derive(Debug, Clone)]
struct CmpCase {
    mode: CmpMode,
    is_f16: bool,
    repeat: u32,
    s0: u32,
    s1: u32,
    a: Vec<u32>,
    b: Vec<u32>,
}

fn cmp_case() -> impl Strategy<Value = CmpCase> {
    (0usize..6, any::<bool>(), 0u32..6, 0u32..12, 0u32..12)
        .prop_flat_map(|(m, is_f16, repeat, s0, s1)| {
            let lanes = if is_f16 { 128 } else { 64 };
            // Enough elements for the largest stride walk.
            let n = (repeat.max(1) as usize - 1) * 12 * 32 / if is_f16 { 2 } else { 4 } + lanes;
            let elems = if is_f16 {
                proptest::collection::vec(f16_bits().prop_map(u32::from), n).boxed()
            } else {
                proptest::collection::vec(f32_bits(), n).boxed()
            };
            (Just((m, is_f16, repeat, s0, s1)), elems.clone(), elems)
        })
        .prop_map(|((m, is_f16, repeat, s0, s1), a, b)| CmpCase {
            mode: CmpMode::ALL[m],
            is_f16,
            repeat,
            s0,
            s1,
            a,
            b,
        })
}

/// Plain model of vec_cmpv: bit (r·lanes + e) of dst = src0[r·s0·32/size + e] ∘ src1[...].
fn cmp_model(c: &CmpCase, dst_init: &[u8]) -> Vec<u8> {
    let size = if c.is_f16 { 2 } else { 4 };
    let lanes = 256 / size;
    let mut dst = dst_init.to_vec();
    for r in 0..c.repeat as usize {
        for e in 0..lanes {
            let x = value(c.a[r * c.s0 as usize * 32 / size + e], c.is_f16);
            let y = value(c.b[r * c.s1 as usize * 32 / size + e], c.is_f16);
            let bit = r * lanes + e;
            dst[bit / 8] &= !(1 << (bit % 8));
            if c.mode.holds(x, y) {
                dst[bit / 8] |= 1 << (bit % 8);
            }
        }
    }
    dst
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(48)))]

    #[test]
    fn vec_cmpv_matches_model(c in cmp_case(), chip_i in 0usize..6) {
        let chip = CHIPS[chip_i];
        let (dt, size) = if c.is_f16 { ("float16", 2) } else { ("float32", 4) };
        let mut tik = Tik::new(chip);
        let n = c.a.len();
        let a_gm = tik.tensor(dt, &[n], "a_gm", Scope::Gm).unwrap();
        let b_gm = tik.tensor(dt, &[n], "b_gm", Scope::Gm).unwrap();
        let d_gm = tik.tensor("uint8", &[256], "d_gm", Scope::Gm).unwrap();
        let a_ub = tik.tensor(dt, &[n], "a_ub", Scope::Ubuf).unwrap();
        let b_ub = tik.tensor(dt, &[n], "b_ub", Scope::Ubuf).unwrap();
        let d_ub = tik.tensor("uint8", &[256], "d_ub", Scope::Ubuf).unwrap();
        let burst = (n * size).div_ceil(32) as i64;
        // Whole-burst moves would read past a tensor that is not a multiple of 32 bytes.
        prop_assume!(n * size % 32 == 0);
        tik.data_move(&a_ub, &a_gm, 0, 1, burst, 0, 0).unwrap();
        tik.data_move(&b_ub, &b_gm, 0, 1, burst, 0, 0).unwrap();
        tik.data_move(&d_ub, &d_gm, 0, 1, 8, 0, 0).unwrap();
        let r = tik.vec_cmpv(c.mode, &d_ub, &a_ub, &b_ub, c.repeat as i64, c.s0 as i64, c.s1 as i64);
        if !c.is_f16 && chip == ChipId::Ascend310 {
            let rejected = matches!(r, Err(AscendError::IllegalType { .. }));
            prop_assert!(rejected, "f32 on 310 must be rejected");
            return Ok(());
        }
        r.unwrap();
        tik.data_move(&d_gm, &d_ub, 0, 1, 8, 0, 0).unwrap();
        let to_arr = |v: &[u32]| if c.is_f16 {
            NpyArray::from_elems(vec![n], &v.iter().map(|x| f16::from_bits(*x as u16)).collect::<Vec<_>>())
        } else {
            NpyArray::from_elems(vec![n], &v.iter().map(|x| f32::from_bits(*x)).collect::<Vec<_>>())
        };
        let init: Vec<u8> = (0..256).map(|i| (i * 37 + 11) as u8).collect();
        let out = tik.start_debug(&[("a_gm", &to_arr(&c.a)), ("b_gm", &to_arr(&c.b)), ("d_gm", &NpyArray::from_elems(vec![256], &init))]).unwrap();
        let got = out.iter().find(|(n, _)| n == "d_gm").unwrap().1.to_elems::<u8>().unwrap();
        prop_assert_eq!(got, cmp_model(&c, &init));
    }
}

#[derive(Debug, Clone)]
struct PairCase {
    is_f16: bool,
    repeat: u32,
    lo: u64,
    hi: u64,
    count_form: Option<u64>,
    /// Counter mode: the total element count (runs through the mask register).
    counter: Option<u64>,
    dst_rep: u32,
    src_blk: u32,
    src_rep: u32,
    src: Vec<u32>,
}

fn pair_case() -> impl Strategy<Value = PairCase> {
    (
        any::<bool>(),
        0u32..5,
        any::<u64>(),
        any::<u64>(),
        proptest::option::of(1u64..=128),
        1u32..3,
        0u32..3,
        0u32..20,
        proptest::option::of(1u64..=100),
    )
        .prop_flat_map(
            |(is_f16, repeat, lo, hi, count, dst_rep, src_blk, src_rep, frac)| {
                let size = if is_f16 { 2 } else { 4 };
                let span = (repeat.max(1) as usize - 1) * src_rep as usize * 32
                    + 7 * src_blk as usize * 32
                    + 32;
                let n = span.div_ceil(32) * 32 / size;
                let elems = if is_f16 {
                    proptest::collection::vec(f16_bits().prop_map(u32::from), n).boxed()
                } else {
                    proptest::collection::vec(f32_bits(), n).boxed()
                };
                (
                    Just((
                        is_f16, repeat, lo, hi, count, dst_rep, src_blk, src_rep, frac,
                    )),
                    elems,
                )
            },
        )
        .prop_map(
            |((is_f16, repeat, lo, hi, count, dst_rep, src_blk, src_rep, frac), src)| PairCase {
                counter: frac.filter(|_| repeat > 0).map(|f| {
                    let lanes = if is_f16 { 128 } else { 64 };
                    (repeat as u64 * lanes * f / 100).max(1)
                }),
                is_f16,
                repeat,
                lo,
                hi: if is_f16 { hi } else { 0 },
                count_form: count.map(|c| if is_f16 { c } else { c.min(64) }),
                dst_rep,
                src_blk,
                src_rep,
                src,
            },
        )
}

/// Plain model of PairReduceSum (seed 001 formula, ascend-vector.md §1.1 addresses).
fn pair_model(c: &PairCase, chip: &ChipProfile, dst_init: &[u32]) -> Vec<u32> {
    let size = if c.is_f16 { 2usize } else { 4 };
    let lanes = 256 / size;
    let epb = 32 / size;
    let mask: u128 = match c.count_form {
        Some(n) => {
            if n >= 128 {
                u128::MAX
            } else {
                (1u128 << n) - 1
            }
        }
        None => (c.hi as u128) << 64 | c.lo as u128,
    } & if lanes == 128 {
        u128::MAX
    } else {
        u64::MAX as u128
    };
    let mut dst = dst_init.to_vec();
    let (iterations, mask_of) = match c.counter {
        Some(total) => (total.div_ceil(lanes as u64) as usize, None),
        None => (c.repeat as usize, Some(mask)),
    };
    for r in 0..iterations {
        let mask = mask_of.unwrap_or_else(|| {
            let left = c.counter.unwrap_or(0) - (r * lanes) as u64;
            if left >= 128 {
                u128::MAX
            } else {
                (1u128 << left) - 1
            }
        });
        for j in 0..lanes / 2 {
            let lane_val = |e: usize| -> f32 {
                if mask >> e & 1 == 0 {
                    return 0.0;
                }
                let byte = r * c.src_rep as usize * 32
                    + (e / epb) * c.src_blk as usize * 32
                    + (e % epb) * size;
                value(c.src[byte / size], c.is_f16) as f32
            };
            let active = (mask >> (2 * j)) & 3 != 0;
            let out_i = (r * c.dst_rep as usize * 128 + j * size) / size;
            if !active {
                if chip.vector.pair_reduce_masked_pair == MaskedGroupPolicy::WriteZero {
                    dst[out_i] = 0;
                }
                continue;
            }
            let s = lane_val(2 * j) + lane_val(2 * j + 1);
            dst[out_i] = if c.is_f16 {
                let mut h = f16::from_f32(s);
                if chip.vector.overflow_mode == OverflowMode::Saturate {
                    if h.is_nan() {
                        h = f16::ZERO
                    } else if h.is_infinite() {
                        h = if s > 0.0 { f16::MAX } else { f16::MIN }
                    }
                }
                h.to_bits() as u32
            } else {
                let mut f = s;
                if chip.vector.overflow_mode == OverflowMode::Saturate {
                    if f.is_nan() {
                        f = 0.0
                    } else if f.is_infinite() {
                        f = if f > 0.0 { f32::MAX } else { f32::MIN }
                    }
                }
                f.to_bits()
            };
        }
    }
    dst
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(64)))]

    #[test]
    fn pair_reduce_sum_matches_model(c in pair_case(), chip_i in 0usize..6) {
        let chip = CHIPS[chip_i];
        let profile = ChipProfile::get(chip);
        let mut k = AscendC::new(chip, 1 << 16);
        let n = c.src.len();
        let dst_len = (c.repeat.max(1) as usize - 1) * c.dst_rep as usize * 128 / if c.is_f16 { 2 } else { 4 } + if c.is_f16 { 64 } else { 32 };
        let dst_init: Vec<u32> = (0..dst_len as u32).map(|i| if c.is_f16 { 0x3c00 + i } else { 0x3f80_0000 + i }).collect();
        let (got, result) = if c.is_f16 {
            let src_gm = k.GmAlloc("src_gm", &c.src.iter().map(|x| f16::from_bits(*x as u16)).collect::<Vec<_>>()).unwrap();
            let dst_gm = k.GmAlloc("dst_gm", &dst_init.iter().map(|x| f16::from_bits(*x as u16)).collect::<Vec<_>>()).unwrap();
            let src = k.AllocTensor::<f16>("src", n as u64).unwrap();
            let dst = k.AllocTensor::<f16>("dst", dst_len as u64).unwrap();
            k.DataCopy::<f16>(&src, &src_gm, n as u32).unwrap();
            k.DataCopy::<f16>(&dst, &dst_gm, dst_len as u32).unwrap();
            let r = match (c.counter, c.count_form) {
                (Some(total), _) => k.SetMaskCount().and_then(|_| {
                    k.SetVectorMaskLen(total);
                    k.PairReduceSum::<f16, false>(&dst, &src, c.repeat as i32, MASK_PLACEHOLDER, c.dst_rep as i32, c.src_blk as i32, c.src_rep as i32)
                }),
                (None, Some(m)) => k.PairReduceSum::<f16, true>(&dst, &src, c.repeat as i32, m, c.dst_rep as i32, c.src_blk as i32, c.src_rep as i32),
                (None, None) => k.PairReduceSum::<f16, true>(&dst, &src, c.repeat as i32, [c.lo, c.hi], c.dst_rep as i32, c.src_blk as i32, c.src_rep as i32),
            };
            (k.read::<f16>(&dst).unwrap().iter().map(|h| h.to_bits() as u32).collect::<Vec<_>>(), r)
        } else {
            let src_gm = k.GmAlloc("src_gm", &c.src.iter().map(|x| f32::from_bits(*x)).collect::<Vec<_>>()).unwrap();
            let dst_gm = k.GmAlloc("dst_gm", &dst_init.iter().map(|x| f32::from_bits(*x)).collect::<Vec<_>>()).unwrap();
            let src = k.AllocTensor::<f32>("src", n as u64).unwrap();
            let dst = k.AllocTensor::<f32>("dst", dst_len as u64).unwrap();
            k.DataCopy::<f32>(&src, &src_gm, n as u32).unwrap();
            k.DataCopy::<f32>(&dst, &dst_gm, dst_len as u32).unwrap();
            let r = match (c.counter, c.count_form) {
                (Some(total), _) => k.SetMaskCount().and_then(|_| {
                    k.SetVectorMaskLen(total);
                    k.PairReduceSum::<f32, false>(&dst, &src, c.repeat as i32, MASK_PLACEHOLDER, c.dst_rep as i32, c.src_blk as i32, c.src_rep as i32)
                }),
                (None, Some(m)) => k.PairReduceSum::<f32, true>(&dst, &src, c.repeat as i32, m, c.dst_rep as i32, c.src_blk as i32, c.src_rep as i32),
                (None, None) => k.PairReduceSum::<f32, true>(&dst, &src, c.repeat as i32, [c.lo, c.hi], c.dst_rep as i32, c.src_blk as i32, c.src_rep as i32),
            };
            (k.read::<f32>(&dst).unwrap().iter().map(|f| f.to_bits()).collect::<Vec<_>>(), r)
        };
        let legal = match chip {
            ChipId::Ascend310 => false,
            ChipId::Ascend910 => c.is_f16,
            _ => true,
        } && (c.counter.is_none() || profile.vector.counter_mode);
        if !legal {
            let rejected = matches!(result, Err(AscendError::NotSupported { .. } | AscendError::IllegalType { .. }));
            prop_assert!(rejected, "{:?}", result);
            return Ok(());
        }
        result.unwrap();
        let want = pair_model(&c, profile, &dst_init);
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            let both_nan = value(*g, c.is_f16).is_nan() && value(*w, c.is_f16).is_nan();
            prop_assert!(g == w || both_nan, "dst[{}]: got {:#x}, model {:#x}", i, g, w);
        }
    }

    /// Duplicate in its three mask forms: bits (`kind` 0), a continuous count (1), and counter
    /// mode through the mask register with `isSetMask = false` (2: `count` elements in all,
    /// repeats of up to 256 / sizeof(T) lanes, on the chips with counter mode).
    #[test]
    fn duplicate_matches_model(is_f16 in any::<bool>(), repeat in 0u32..5, blk in 1u32..4, rep in 0u32..12,
                               lo in any::<u64>(), hi in any::<u64>(), v in -1000i32..1000, chip_i in 0usize..6,
                               kind in 0u8..3, count in 1u64..400) {
        let chip = CHIPS[chip_i];
        if kind == 2 && !ChipProfile::get(chip).vector.counter_mode {
            return Ok(());
        }
        let mut k = AscendC::new(chip, 1 << 16);
        let size = if is_f16 { 2usize } else { 4 };
        let lanes = 256 / size;
        let hi = if is_f16 { hi } else { 0 };
        // Lanes of repeat r.
        let (iters, lanes_of): (u32, Box<dyn Fn(usize) -> u128>) = match kind {
            0 => {
                let m = ((hi as u128) << 64 | lo as u128) & if is_f16 { u128::MAX } else { u64::MAX as u128 };
                (repeat, Box::new(move |_| m))
            }
            1 => {
                let c = 1 + lo as usize % lanes;
                let m = if c == 128 { u128::MAX } else { (1u128 << c) - 1 };
                (repeat, Box::new(move |_| m))
            }
            _ => {
                let c = count as usize;
                (c.div_ceil(lanes) as u32, Box::new(move |r| {
                    let m = c.saturating_sub(r * lanes).min(lanes);
                    if m == 128 { u128::MAX } else { (1u128 << m) - 1 }
                }))
            }
        };
        let span = (iters.max(1) as usize - 1) * rep as usize * 32 + 7 * blk as usize * 32 + 32;
        let n = span / size;
        // Model: every active lane of every repeat gets the value; everything else keeps 0x55.
        let mut want = vec![0x55u8; n * size];
        let pattern: Vec<u8> = if is_f16 { f16::from_f32(v as f32 / 4.0).to_le_bytes().to_vec() } else { (v as f32 / 4.0).to_le_bytes().to_vec() };
        for r in 0..iters as usize {
            let mask = lanes_of(r);
            for e in 0..lanes {
                if mask >> e & 1 == 1 {
                    let a = r * rep as usize * 32 + (e / (32 / size)) * blk as usize * 32 + (e % (32 / size)) * size;
                    want[a..a + size].copy_from_slice(&pattern);
                }
            }
        }
        if kind == 2 {
            k.SetMaskCount().unwrap();
            k.SetVectorMaskLen(count);
        }
        let c = (1 + lo % lanes as u64) as i32;
        let got = if is_f16 {
            let t = k.AllocTensor::<f16>("t", n as u64).unwrap();
            let g = k.GmAlloc("g", &vec![f16::from_bits(0x5555); n]).unwrap();
            k.DataCopy::<f16>(&t, &g, n as u32).unwrap();
            let x = f16::from_f32(v as f32 / 4.0);
            match kind {
                0 => k.DuplicateRepeat::<f16, true>(&t, x, [lo, hi], repeat as i32, blk as i32, rep as i32).unwrap(),
                1 => k.DuplicateRepeat::<f16, true>(&t, x, c, repeat as i32, blk as i32, rep as i32).unwrap(),
                _ => k.DuplicateRepeat::<f16, false>(&t, x, MASK_PLACEHOLDER, 1, blk as i32, rep as i32).unwrap(),
            }
            k.read::<f16>(&t).unwrap().iter().flat_map(|h| h.to_le_bytes()).collect::<Vec<u8>>()
        } else {
            let t = k.AllocTensor::<f32>("t", n as u64).unwrap();
            let g = k.GmAlloc("g", &vec![f32::from_bits(0x5555_5555); n]).unwrap();
            k.DataCopy::<f32>(&t, &g, n as u32).unwrap();
            let x = v as f32 / 4.0;
            match kind {
                0 => k.DuplicateRepeat::<f32, true>(&t, x, [lo, hi], repeat as i32, blk as i32, rep as i32).unwrap(),
                1 => k.DuplicateRepeat::<f32, true>(&t, x, c, repeat as i32, blk as i32, rep as i32).unwrap(),
                _ => k.DuplicateRepeat::<f32, false>(&t, x, MASK_PLACEHOLDER, 1, blk as i32, rep as i32).unwrap(),
            }
            k.read::<f32>(&t).unwrap().iter().flat_map(|f| f.to_le_bytes()).collect::<Vec<u8>>()
        };
        prop_assert_eq!(got, want);
    }

    #[test]
    fn data_move_matches_model(nburst in 1u32..6, burst in 1u32..4, sgap in 0u32..4, dgap in 0u32..4, seed in any::<u64>(), chip_i in 0usize..6) {
        let chip = CHIPS[chip_i];
        let mut tik = Tik::new(chip);
        let src_len = ((nburst - 1) * (burst + sgap) + burst) as usize * 32;
        let dst_len = ((nburst - 1) * (burst + dgap) + burst) as usize * 32;
        let g = tik.tensor("uint8", &[src_len], "g", Scope::Gm).unwrap();
        let o = tik.tensor("uint8", &[dst_len], "o", Scope::Gm).unwrap();
        let u = tik.tensor("uint8", &[dst_len], "u", Scope::Ubuf).unwrap();
        tik.data_move(&u, &g, 0, nburst as i64, burst as i64, sgap as i64, dgap as i64).unwrap();
        tik.data_move(&o, &u, 0, 1, (dst_len / 32) as i64, 0, 0).unwrap();
        let data: Vec<u8> = (0..src_len as u64).map(|i| (i.wrapping_mul(seed | 1) >> 7) as u8).collect();
        let out = tik.start_debug(&[("g", &NpyArray::from_elems(vec![src_len], &data))]).unwrap();
        let got = out.iter().find(|(n, _)| n == "o").unwrap().1.to_elems::<u8>().unwrap();
        let mut want = vec![0u8; dst_len];
        for i in 0..nburst as usize {
            for b in 0..burst as usize * 32 {
                want[i * (burst + dgap) as usize * 32 + b] = data[i * (burst + sgap) as usize * 32 + b];
            }
        }
        prop_assert_eq!(got, want);
    }
}
