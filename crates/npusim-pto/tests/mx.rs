//! TMATMUL_MX / TGEMV_MX and their ACC and BIAS forms (A5) against a plain model written here.
//!
//! The operands are written as raw bytes at offsets computed by this file's own layout
//! formulas: A Left Nz (boxes of 16 rows x 32 one-byte columns down the columns), B Right Zn
//! (boxes of 32 rows x 16 columns along the rows, col-major inside), C Acc Nz (16 x 16 f32
//! boxes), the left scales in pto-isa's `TileLeftScale` layout (outer and inner row-major,
//! 16 x 2 boxes), the right scales in `TileRightScale`'s (outer and inner col-major, 2 x 16
//! boxes). The fp8 and E8M0 codes are decoded by this file's own OCP formulas. The model:
//! - hardware order: per 32-element K group, the exact dot product times
//!   2^(sa - 127 + sb - 127), rounded once to f32 (computed here by rounding to odd into f64
//!   and then to nearest f32), added to the accumulator in K order from the seed;
//! - `pto_cpu_sim` order: `acc = f32(f64(acc) + a·b·2^ea·2^eb)` over all of K from 0, then the
//!   seed added in f32.
//!
//! Inputs mix NaN, ±inf (E5M2), ±0, denormals, the largest codes, and the E8M0 extremes
//! (0x00 = 2^-127, 0xfe = 2^127, 0xff = NaN).

use npusim_core::MatmulOrder;
use npusim_pto::*;
use proptest::prelude::*;

fn nz(r: usize, c: usize, rows: usize, br: usize, bc: usize) -> usize {
    (c / bc) * rows * bc + (r / br) * br * bc + (r % br) * bc + (c % bc)
}
fn zn(r: usize, c: usize, cols: usize, br: usize, bc: usize) -> usize {
    (r / br) * cols * br + (c / bc) * br * bc + (c % bc) * br + (r % br)
}
/// TileLeftScale: boxes of 16 x 2 along the rows, row-major inside.
fn left_scale(r: usize, c: usize, cols: usize) -> usize {
    (r / 16) * cols * 16 + (c / 2) * 32 + (r % 16) * 2 + (c % 2)
}
/// TileRightScale: boxes of 2 x 16 down the columns, col-major inside.
fn right_scale(r: usize, c: usize, rows: usize) -> usize {
    (c / 16) * rows * 16 + (r / 2) * 32 + (c % 16) * 2 + (r % 2)
}
fn round_up(x: usize, m: usize) -> usize {
    x.div_ceil(m) * m
}

/// OCP decoding: E4M3FN (bias 7, 0x7f/0xff NaN, no inf) or E5M2 (bias 15, IEEE specials).
fn f8(e5m2: bool, code: u8) -> f64 {
    let (mb, bias) = if e5m2 { (2, 15) } else { (3, 7) };
    let neg = code & 0x80 != 0;
    let e = ((code & 0x7f) >> mb) as i32;
    let f = (code & ((1 << mb) - 1)) as i32;
    let emax = if e5m2 { 31 } else { 15 };
    let v = if e5m2 && e == emax {
        if f == 0 { f64::INFINITY } else { f64::NAN }
    } else if !e5m2 && e == emax && f == 7 {
        f64::NAN
    } else if e == 0 {
        f as f64 * 2f64.powi(1 - bias - mb)
    } else {
        (f + (1 << mb)) as f64 * 2f64.powi(e - bias - mb)
    };
    if neg { -v } else { v }
}

/// E8M0: 2^(code - 127), 0xff NaN.
fn e8m0(code: u8) -> f64 {
    if code == 0xff {
        f64::NAN
    } else {
        2f64.powi(code as i32 - 127)
    }
}

/// `s · 2^e` (s exact) to the nearest f32: round to odd into 53 bits, then to nearest f32.
fn exact_to_f32(s: i128, e: i32) -> f32 {
    let neg = s < 0;
    let mut mag = s.unsigned_abs();
    let mut e = e;
    while mag >= 1u128 << 53 {
        let sticky = mag & 1;
        mag = (mag >> 1) | sticky;
        e += 1;
    }
    let v = mag as f64 * 2f64.powi(e);
    let v = v as f32;
    if neg { -v } else { v }
}

/// One f8 code from a selector: specials, denormals, extremes, random bits. `rate` sets how
/// often the specials come (0 never, 1 about one in 400 codes, 2 one in 16), so that most
/// 32-element groups are not NaN.
fn code(e5m2: bool, bits: u8, sel: u16, rate: u8) -> u8 {
    let sign = bits & 0x80;
    let sel = match rate {
        0 => 16 + sel % 16,
        1 => {
            if sel.is_multiple_of(100) {
                sel / 100 % 4
            } else {
                3 + sel % 16
            }
        }
        _ => sel % 16,
    };
    match sel {
        0 => {
            if e5m2 {
                0x7d | sign
            } else {
                0x7f | sign
            }
        }
        1 => {
            if e5m2 {
                0x7c | sign
            } else {
                0x7e | sign
            }
        }
        2 => sign,
        3 => bits & if e5m2 { 0x83 } else { 0x87 },
        4 => {
            if e5m2 {
                0x7b | sign
            } else {
                0x7e | sign
            }
        }
        _ => {
            // Random finite code (retry-free: clear NaN/inf patterns).
            let c = bits;
            let v = f8(e5m2, c);
            if v.is_finite() { c } else { c & 0xbf }
        }
    }
}

fn scale_code(bits: u8, sel: u8, rate: u8) -> u8 {
    match sel % 64 {
        0 | 1 => 0x00,
        2 | 3 if rate > 0 => 0xfe,
        4 if rate > 0 => 0xff,
        5..=8 => 127,
        _ => 112 + bits % 32,
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Form {
    Plain,
    Acc,
    Bias,
}

#[allow(clippy::too_many_arguments)]
fn check(
    rate: u8,
    cpu_sim: bool,
    op: u8,
    (e5a, e5b): (bool, bool),
    m: usize,
    k: usize,
    n: usize,
    seed: u64,
) -> Result<(), TestCaseError> {
    let gemv = op >= 3;
    let form = [Form::Plain, Form::Acc, Form::Bias][(op % 3) as usize];
    let code_op = [
        OpCode::TmatmulMx,
        OpCode::TmatmulMxAcc,
        OpCode::TmatmulMxBias,
        OpCode::TgemvMx,
        OpCode::TgemvMxAcc,
        OpCode::TgemvMxBias,
    ][op as usize];
    let m = if gemv { 1 } else { m };
    let mut core = TileCore::by_name("a5").unwrap();
    if cpu_sim {
        core.set_policy(TilePolicy::pto_cpu_sim(core.arch()));
    }
    let order = core.policy().matmul_order;
    let ta = if e5a {
        ElemType::F8E5M2
    } else {
        ElemType::F8E4M3FN
    };
    let tb = if e5b {
        ElemType::F8E5M2
    } else {
        ElemType::F8E4M3FN
    };
    let groups = k.div_ceil(32);
    let (mr, kr, nr) = (round_up(m, 16), round_up(k, 64), round_up(n, 16));
    let (sac, sbr) = (round_up(groups, 2), round_up(groups, 2));
    let left = core
        .alloc(
            TileDesc::new(TileLoc::Left, ta, mr, kr)
                .layout(BLayout::ColMajor, SLayout::RowMajor)
                .valid(m, k),
        )
        .unwrap();
    let right = core
        .alloc(
            TileDesc::new(TileLoc::Right, tb, kr, nr)
                .layout(BLayout::RowMajor, SLayout::ColMajor)
                .valid(k, n),
        )
        .unwrap();
    let sa_t = core
        .alloc(
            TileDesc::new(TileLoc::Scaling, ElemType::F8E8M0, mr, sac)
                .layout(BLayout::RowMajor, SLayout::RowMajor)
                .fractal(32)
                .valid(m, groups),
        )
        .unwrap();
    let sb_addr = 2048u64;
    let sb_t = core
        .alloc(
            TileDesc::new(TileLoc::Scaling, ElemType::F8E8M0, sbr, nr)
                .layout(BLayout::ColMajor, SLayout::ColMajor)
                .fractal(32)
                .valid(groups, n)
                .at(sb_addr),
        )
        .unwrap();
    let acc = core
        .alloc(
            TileDesc::new(TileLoc::Acc, ElemType::F32, mr, nr)
                .layout(BLayout::ColMajor, SLayout::RowMajor)
                .fractal(1024)
                .valid(m, n),
        )
        .unwrap();
    let bias = core
        .alloc(TileDesc::new(TileLoc::Bias, ElemType::F32, 1, nr).valid(1, n))
        .unwrap();
    let mut s = seed | 1;
    let mut finite = 0usize;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let a: Vec<u8> = (0..m * k)
        .map(|_| {
            let r = next();
            code(e5a, r as u8, (r >> 40) as u16, rate)
        })
        .collect();
    let b: Vec<u8> = (0..k * n)
        .map(|_| {
            let r = next();
            code(e5b, r as u8, (r >> 40) as u16, rate)
        })
        .collect();
    let sa: Vec<u8> = (0..m * groups)
        .map(|_| {
            let r = next();
            scale_code(r as u8, (r >> 40) as u8, rate)
        })
        .collect();
    let sb: Vec<u8> = (0..groups * n)
        .map(|_| {
            let r = next();
            scale_code(r as u8, (r >> 40) as u8, rate)
        })
        .collect();
    let f32_sel = |r: u64| -> f32 {
        let v = (r >> 40) % 16;
        match if rate == 0 && v < 2 { v + 2 } else { v } {
            0 => f32::NAN,
            1 => f32::INFINITY,
            2 => -0.0,
            3 => f32::from_bits(r as u32 & 0x807f_ffff),
            _ => (r as u32 % 2001) as f32 / 8.0 - 125.0,
        }
    };
    let c0: Vec<f32> = (0..m * n).map(|_| f32_sel(next())).collect();
    let bv: Vec<f32> = (0..n).map(|_| f32_sel(next())).collect();
    {
        let mem = core.mem_mut(TileLoc::Left);
        for r in 0..m {
            for c in 0..k {
                mem[nz(r, c, mr, 16, 32)] = a[r * k + c];
            }
        }
        let mem = core.mem_mut(TileLoc::Right);
        for r in 0..k {
            for c in 0..n {
                mem[zn(r, c, nr, 32, 16)] = b[r * n + c];
            }
        }
        let mem = core.mem_mut(TileLoc::Scaling);
        for r in 0..m {
            for g in 0..groups {
                mem[left_scale(r, g, sac)] = sa[r * groups + g];
            }
        }
        for g in 0..groups {
            for c in 0..n {
                mem[sb_addr as usize + right_scale(g, c, sbr)] = sb[g * n + c];
            }
        }
        let mem = core.mem_mut(TileLoc::Acc);
        for r in 0..m {
            for c in 0..n {
                let o = nz(r, c, mr, 16, 16) * 4;
                mem[o..o + 4].copy_from_slice(&c0[r * n + c].to_le_bytes());
            }
        }
        let mem = core.mem_mut(TileLoc::Bias);
        for (c, v) in bv.iter().enumerate() {
            mem[c * 4..c * 4 + 4].copy_from_slice(&v.to_le_bytes());
        }
    }
    let args = Args::MatmulMx {
        dst: acc,
        c_in: (form == Form::Acc).then_some(acc),
        a: left,
        a_scale: sa_t,
        b: right,
        b_scale: sb_t,
        bias: (form == Form::Bias).then_some(bias),
    };
    let res = core.exec(&TileOp { op: code_op, args });
    prop_assert!(res.is_ok(), "{res:?}");
    let mem = core.mem(TileLoc::Acc).as_slice();
    for i in 0..m {
        for j in 0..n {
            let o = nz(i, j, mr, 16, 16) * 4;
            let got = f32::from_le_bytes(mem[o..o + 4].try_into().unwrap());
            let seed_v = match form {
                Form::Plain => 0.0f32,
                Form::Acc => c0[i * n + j],
                Form::Bias => bv[j],
            };
            let x = |kk: usize| f8(e5a, a[i * k + kk]);
            let y = |kk: usize| f8(e5b, b[kk * n + j]);
            let want = match order {
                MatmulOrder::FractalKBlocks => {
                    let mut c = seed_v;
                    for g in 0..groups {
                        let (sx, sy) = (sa[i * groups + g], sb[g * n + j]);
                        let ks = g * 32..((g + 1) * 32).min(k);
                        let gv = if sx == 0xff || sy == 0xff {
                            f32::NAN
                        } else {
                            let prods: Vec<f64> = ks.clone().map(|kk| x(kk) * y(kk)).collect();
                            let t: f64 = prods.iter().sum();
                            if !t.is_finite() {
                                t as f32
                            } else {
                                // Exact: every product is a whole multiple of 2^-32.
                                let sum: i128 =
                                    prods.iter().map(|p| (p * 2f64.powi(32)) as i128).sum();
                                if sum == 0 {
                                    if prods.iter().all(|p| p.is_sign_negative()) {
                                        -0.0
                                    } else {
                                        0.0
                                    }
                                } else {
                                    exact_to_f32(sum, sx as i32 - 127 + sy as i32 - 127 - 32)
                                }
                            }
                        };
                        c += gv;
                    }
                    c
                }
                MatmulOrder::AccAfterK => {
                    let mut p = 0f32;
                    for kk in 0..k {
                        let g = kk / 32;
                        let sc = e8m0(sa[i * groups + g]) * e8m0(sb[g * n + j]);
                        p = (p as f64 + x(kk) * y(kk) * sc) as f32;
                    }
                    if form == Form::Plain { p } else { seed_v + p }
                }
            };
            finite += want.is_finite() as usize;
            prop_assert!(
                (got.is_nan() && want.is_nan()) || got.to_bits() == want.to_bits(),
                "{code_op:?} {ta} x {tb} cpu_sim {cpu_sim} ({i}, {j}): got {got:e} ({:#x}), want {want:e} ({:#x})",
                got.to_bits(),
                want.to_bits()
            );
        }
    }
    // Without specials every result is a number (the model is not vacuous there).
    prop_assert!(rate > 0 || finite > 0 || m * n == 0, "no finite result");
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]
    #[test]
    fn tmatmul_mx_matches_the_model(
        rate in 0u8..3, cpu in any::<bool>(), e5a in any::<bool>(), e5b in any::<bool>(),
        m in 1usize..40, k in 1usize..200, n in 1usize..40, seed in any::<u64>(),
    ) {
        check(rate, cpu, 0, (e5a, e5b), m, k, n, seed)?;
    }
    #[test]
    fn tmatmul_mx_acc_matches_the_model(
        rate in 0u8..3, cpu in any::<bool>(), e5a in any::<bool>(), e5b in any::<bool>(),
        m in 1usize..40, k in 1usize..200, n in 1usize..40, seed in any::<u64>(),
    ) {
        check(rate, cpu, 1, (e5a, e5b), m, k, n, seed)?;
    }
    #[test]
    fn tmatmul_mx_bias_matches_the_model(
        rate in 0u8..3, cpu in any::<bool>(), e5a in any::<bool>(), e5b in any::<bool>(),
        m in 1usize..40, k in 1usize..200, n in 1usize..40, seed in any::<u64>(),
    ) {
        check(rate, cpu, 2, (e5a, e5b), m, k, n, seed)?;
    }
    #[test]
    fn tgemv_mx_forms_match_the_model(
        rate in 0u8..3, cpu in any::<bool>(), e5a in any::<bool>(), e5b in any::<bool>(), op in 3u8..6,
        k in 1usize..300, n in 1usize..64, seed in any::<u64>(),
    ) {
        check(rate, cpu, op, (e5a, e5b), 1, k, n, seed)?;
    }
}
