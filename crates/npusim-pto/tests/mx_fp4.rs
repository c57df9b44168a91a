//! TMATMUL_MX / TGEMV_MX with the packed FP4 inputs (`float4_e2m1x2_t`, `float4_e1m2x2_t`;
//! A5) against a plain model written here.
//!
//! The model's own pieces:
//! - decoding: E2M1 (sign, 2 exponent bits, 1 mantissa bit, bias 1: 0, 0.5, 1, 1.5, 2, 3, 4,
//!   6) and E1M2 (sign, 1 exponent bit, 2 mantissa bits, bias 1: 0, 0.25, .., 0.75, then 1,
//!   1.25, 1.5, 1.75); no inf or NaN; E8M0 `2^(code - 127)`, `0xff` NaN;
//! - packing (npusim's decision, the TCVT order): two values per byte along K, the even K
//!   value in the low nibble; A (`M x K` values) is an `M x K/2`-byte Left Nz tile, B
//!   (`K x N`) a `K/2 x N`-byte Right Zn tile;
//! - layouts: Nz boxes of 16 rows x 32 bytes down the columns, Zn boxes of 32 rows x 16
//!   columns along the rows (col-major inside), the scale tiles ZZ (A: 16 x 2 boxes,
//!   row-major) and NN (B: 2 x 16 boxes, col-major), C Acc Nz 16 x 16 f32;
//! - the sums: hardware order per 32-value group, the exact group sum (f64 holds it: every
//!   product is a multiple of 1/16 below 37) times `2^(ea + eb)` rounded once to f32, added to
//!   the seed in f32 in K order; `pto_cpu_sim` order `acc = f32(f64(acc) + a·b·2^ea·2^eb)`
//!   from 0 over K, then the seed added once. K counts values (twice A's byte columns).

use npusim_core::MatmulOrder;
use npusim_pto::ops::cube::Seed;
use npusim_pto::ops::mx::MxOperands;
use npusim_pto::*;
use proptest::prelude::*;

fn nz(r: usize, c: usize, rows: usize, br: usize, bc: usize) -> usize {
    (c / bc) * rows * bc + (r / br) * br * bc + (r % br) * bc + (c % bc)
}
fn zn(r: usize, c: usize, cols: usize, br: usize, bc: usize) -> usize {
    (r / br) * cols * br + (c / bc) * br * bc + (c % bc) * br + (r % br)
}
fn left_scale(r: usize, c: usize, cols: usize) -> usize {
    (r / 16) * cols * 16 + (c / 2) * 32 + (r % 16) * 2 + (c % 2)
}
fn right_scale(r: usize, c: usize, rows: usize) -> usize {
    (c / 16) * rows * 16 + (r / 2) * 32 + (c % 16) * 2 + (r % 2)
}
fn round_up(x: usize, m: usize) -> usize {
    x.div_ceil(m) * m
}

/// E2M1 (`e1m2 = false`) or E1M2 value of a 4-bit code.
fn fp4(e1m2: bool, code: u8) -> f64 {
    let neg = code & 8 != 0;
    let mag = code & 7;
    let v = if e1m2 {
        let (e, m) = (mag >> 2, (mag & 3) as f64);
        if e == 0 { m / 4.0 } else { 1.0 + m / 4.0 }
    } else {
        let (e, m) = ((mag >> 1) as i32, (mag & 1) as f64);
        if e == 0 {
            m / 2.0
        } else {
            (1.0 + m / 2.0) * 2f64.powi(e - 1)
        }
    };
    if neg { -v } else { v }
}

fn e8m0(code: u8) -> f64 {
    if code == 0xff {
        f64::NAN
    } else {
        2f64.powi(code as i32 - 127)
    }
}

/// A 4-bit code: ±0, the largest codes, or random.
fn code(bits: u8, sel: u8) -> u8 {
    match sel % 8 {
        0 => bits & 8,     // ±0
        1 => 7 | bits & 8, // ±largest (6 / 1.75)
        _ => bits & 0x0f,
    }
}

fn scale_code(bits: u8, sel: u8, rate: u8) -> u8 {
    match sel % 32 {
        0 => 0x00,
        1 if rate > 0 => 0xfe,
        2 if rate > 0 => 0xff,
        3..=6 => 127,
        _ => 112 + bits % 32,
    }
}

#[allow(clippy::too_many_arguments)]
fn check(
    rate: u8,
    cpu_sim: bool,
    op: u8,
    (e1a, e1b): (bool, bool),
    m: usize,
    kh: usize,
    n: usize,
    seed: u64,
) -> Result<(), TestCaseError> {
    // K in values is even: kh pairs.
    let k = 2 * kh;
    let gemv = op >= 3;
    let form = op % 3;
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
    let ty = |e1m2: bool| {
        if e1m2 {
            ElemType::F4E1M2X2
        } else {
            ElemType::F4E2M1X2
        }
    };
    let groups = k.div_ceil(32);
    // Byte shapes: A M x K/2 (declared a multiple of 32 bytes = 64 values), B K/2 x N.
    let (mr, kbr, nr) = (round_up(m, 16), round_up(kh, 32), round_up(n, 16));
    let (sac, sbr) = (round_up(groups, 2), round_up(groups, 2));
    let left = core
        .alloc(
            TileDesc::new(TileLoc::Left, ty(e1a), mr, kbr)
                .layout(BLayout::ColMajor, SLayout::RowMajor)
                .valid(m, kh),
        )
        .unwrap();
    let right = core
        .alloc(
            TileDesc::new(TileLoc::Right, ty(e1b), kbr, nr)
                .layout(BLayout::RowMajor, SLayout::ColMajor)
                .valid(kh, n),
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
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    // Values in logical order (A[i][k], B[k][j]) as 4-bit codes.
    let a: Vec<u8> = (0..m * k)
        .map(|_| {
            let r = next();
            code(r as u8, (r >> 40) as u8)
        })
        .collect();
    let b: Vec<u8> = (0..k * n)
        .map(|_| {
            let r = next();
            code(r as u8, (r >> 40) as u8)
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
        match (r >> 40) % 8 {
            0 if rate > 0 => f32::INFINITY,
            1 => -0.0,
            2 => f32::from_bits(r as u32 & 0x807f_ffff),
            _ => (r as u32 % 2001) as f32 / 8.0 - 125.0,
        }
    };
    let c0: Vec<f32> = (0..m * n).map(|_| f32_sel(next())).collect();
    let bv: Vec<f32> = (0..n).map(|_| f32_sel(next())).collect();
    {
        // Pack: even K value in the low nibble.
        let mem = core.mem_mut(TileLoc::Left);
        for r in 0..m {
            for cb in 0..kh {
                mem[nz(r, cb, mr, 16, 32)] = a[r * k + 2 * cb] | (a[r * k + 2 * cb + 1] << 4);
            }
        }
        let mem = core.mem_mut(TileLoc::Right);
        for rb in 0..kh {
            for c in 0..n {
                mem[zn(rb, c, nr, 32, 16)] = b[2 * rb * n + c] | (b[(2 * rb + 1) * n + c] << 4);
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
        c_in: (form == 1).then_some(acc),
        a: left,
        a_scale: sa_t,
        b: right,
        b_scale: sb_t,
        bias: (form == 2).then_some(bias),
    };
    let res = core.exec(&TileOp { op: code_op, args });
    prop_assert!(res.is_ok(), "{res:?}");
    let mem = core.mem(TileLoc::Acc).as_slice();
    let mut finite = 0usize;
    for i in 0..m {
        for j in 0..n {
            let o = nz(i, j, mr, 16, 16) * 4;
            let got = f32::from_le_bytes(mem[o..o + 4].try_into().unwrap());
            let seed_v = [0.0f32, c0[i * n + j], bv[j]][form as usize];
            let x = |kk: usize| fp4(e1a, a[i * k + kk]);
            let y = |kk: usize| fp4(e1b, b[kk * n + j]);
            let want = match order {
                MatmulOrder::FractalKBlocks => {
                    let mut c = seed_v;
                    for g in 0..groups {
                        let (sx, sy) = (sa[i * groups + g], sb[g * n + j]);
                        let gv = if sx == 0xff || sy == 0xff {
                            f32::NAN
                        } else {
                            // Exact in f64; -0 only when every product is -0.
                            let t = (g * 32..((g + 1) * 32).min(k))
                                .fold(-0.0f64, |t, kk| t + x(kk) * y(kk));
                            (t * 2f64.powi(sx as i32 - 127 + sy as i32 - 127)) as f32
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
                    if form == 0 { p } else { seed_v + p }
                }
            };
            finite += want.is_finite() as usize;
            prop_assert!(
                (got.is_nan() && want.is_nan()) || got.to_bits() == want.to_bits(),
                "{code_op:?} e1m2 {e1a}/{e1b} cpu_sim {cpu_sim} k {k} ({i}, {j}): got {got:e} ({:#x}), want {want:e} ({:#x})",
                got.to_bits(),
                want.to_bits()
            );
        }
    }
    prop_assert!(rate > 0 || finite > 0, "no finite result");
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
    #[test]
    fn tmatmul_mx_fp4_matches_the_model(
        rate in 0u8..2, cpu in any::<bool>(), op in 0u8..3, e1a in any::<bool>(), e1b in any::<bool>(),
        m in 1usize..36, kh in 1usize..130, n in 1usize..36, seed in any::<u64>(),
    ) {
        check(rate, cpu, op, (e1a, e1b), m, kh, n, seed)?;
    }
    #[test]
    fn tgemv_mx_fp4_matches_the_model(
        rate in 0u8..2, cpu in any::<bool>(), op in 3u8..6, e1a in any::<bool>(), e1b in any::<bool>(),
        kh in 1usize..200, n in 1usize..48, seed in any::<u64>(),
    ) {
        check(rate, cpu, op, (e1a, e1b), 1, kh, n, seed)?;
    }
}

/// A worked example by hand: A = [6, -6, 0.5, 0 ...] (E2M1), B = [1.75, 1.75, 1, ...] (E1M2)
/// over K = 64 with scales 2^1 (A) and 2^-1 (B) on group 0, 2^0 on group 1.
#[test]
fn fp4_worked_example() {
    let mut core = TileCore::by_name("a5").unwrap();
    let t = |d: TileDesc| core.alloc(d).unwrap();
    let a = t(TileDesc::new(TileLoc::Left, ElemType::F4E2M1X2, 16, 32)
        .layout(BLayout::ColMajor, SLayout::RowMajor)
        .valid(1, 32));
    let b = t(TileDesc::new(TileLoc::Right, ElemType::F4E1M2X2, 32, 16)
        .layout(BLayout::RowMajor, SLayout::ColMajor)
        .valid(32, 1));
    let sa = t(TileDesc::new(TileLoc::Scaling, ElemType::F8E8M0, 16, 2)
        .layout(BLayout::RowMajor, SLayout::RowMajor)
        .fractal(32)
        .valid(1, 2));
    let sb = t(TileDesc::new(TileLoc::Scaling, ElemType::F8E8M0, 2, 16)
        .layout(BLayout::ColMajor, SLayout::ColMajor)
        .fractal(32)
        .valid(2, 1)
        .at(1024));
    let c = t(TileDesc::new(TileLoc::Acc, ElemType::F32, 16, 16)
        .layout(BLayout::ColMajor, SLayout::RowMajor)
        .fractal(1024)
        .valid(1, 1));
    // A row 0: values k0 = 6 (0x7), k1 = -6 (0xf), k2 = 0.5 (0x1), k3 = 0; k32 = 3 (0x5).
    // Bytes: (k0, k1) = 0xf7, (k2, k3) = 0x01; byte 16 = (k32, k33) = 0x05.
    let mem = core.mem_mut(TileLoc::Left);
    mem[0] = 0xf7;
    mem[1] = 0x01;
    mem[16] = 0x05;
    // B column 0 (Zn: rows of a box column contiguous): (k0, k1) = (1.75, 1.75) = 0x77,
    // (k2, k3) = (1, 0) = 0x04; byte row 16 = (k32, k33) = (0.25, 0) = 0x01.
    let mem = core.mem_mut(TileLoc::Right);
    mem[0] = 0x77;
    mem[1] = 0x04;
    mem[16] = 0x01;
    // Scales: A (0, 0) = 128, (0, 1) = 127; B (0, 0) = 126, (1, 0) = 127.
    let mem = core.mem_mut(TileLoc::Scaling);
    mem[0] = 128;
    mem[1] = 127;
    mem[1024] = 126;
    mem[1025] = 127;
    core.matmul_mx(
        OpCode::TmatmulMx,
        &c,
        Seed::Zero,
        MxOperands {
            a: &a,
            a_scale: &sa,
            b: &b,
            b_scale: &sb,
        },
    )
    .unwrap();
    // Group 0: (6·1.75 - 6·1.75 + 0.5·1) · 2^1 · 2^-1 = 0.5; group 1: 3 · 0.25 = 0.75.
    let got = f32::from_le_bytes(core.mem(TileLoc::Acc).as_slice()[0..4].try_into().unwrap());
    assert_eq!(got, 1.25);
}

fn fp4_set(kh: usize, scale_cols: usize) -> [TileDesc; 5] {
    [
        TileDesc::new(TileLoc::Left, ElemType::F4E2M1X2, 16, round_up(kh, 32))
            .layout(BLayout::ColMajor, SLayout::RowMajor)
            .valid(16, kh),
        TileDesc::new(
            TileLoc::Scaling,
            ElemType::F8E8M0,
            16,
            round_up(scale_cols, 2),
        )
        .layout(BLayout::RowMajor, SLayout::RowMajor)
        .fractal(32)
        .valid(16, scale_cols),
        TileDesc::new(TileLoc::Right, ElemType::F4E1M2X2, round_up(kh, 32), 16)
            .layout(BLayout::RowMajor, SLayout::ColMajor)
            .valid(kh, 16),
        TileDesc::new(
            TileLoc::Scaling,
            ElemType::F8E8M0,
            round_up(scale_cols, 2),
            16,
        )
        .layout(BLayout::ColMajor, SLayout::ColMajor)
        .fractal(32)
        .valid(scale_cols, 16)
        .at(1024),
        TileDesc::new(TileLoc::Acc, ElemType::F32, 16, 16)
            .layout(BLayout::ColMajor, SLayout::RowMajor)
            .fractal(1024),
    ]
}

fn run_set(arch: &str, s: [TileDesc; 5]) -> Result<(), PtoError> {
    let mut core = TileCore::by_name(arch).unwrap();
    let t = |d: TileDesc| Tile::validate(d, "test", "tile").unwrap();
    let [a, sa, b, sb, c] = s.map(t);
    core.matmul_mx(
        OpCode::TmatmulMx,
        &c,
        Seed::Zero,
        MxOperands {
            a: &a,
            a_scale: &sa,
            b: &b,
            b_scale: &sb,
        },
    )
}

#[test]
fn fp4_restrictions_are_typed_errors() {
    // K = 64 values (32 bytes), two scale groups: legal.
    run_set("a5", fp4_set(32, 2)).unwrap();
    // A2A3 has no MX.
    let e = run_set("a2a3", fp4_set(32, 2)).unwrap_err();
    assert!(matches!(e, PtoError::Unsupported { .. }), "{e:?}");
    // Scale groups count values: K = 64 values needs 2 groups, 1 (enough for 32 bytes as
    // values) is refused, on both scale tiles.
    let e = run_set("a5", fp4_set(32, 1)).unwrap_err();
    assert!(
        matches!(
            e,
            PtoError::ValidRegion {
                op: "TMATMUL_MX",
                operand: "aScaleMatrix",
                ..
            }
        ),
        "{e:?}"
    );
    let mut s = fp4_set(32, 2);
    s[3] = s[3].valid(1, 16);
    let e = run_set("a5", s).unwrap_err();
    assert!(
        matches!(
            e,
            PtoError::ValidRegion {
                operand: "bScaleMatrix",
                ..
            }
        ),
        "{e:?}"
    );
    // K in values at most 4095: 2048 bytes are 4096 values (2047 bytes, 4094 values, pass
    // this rule).
    let e = run_set("a5", fp4_set(2048, 128)).unwrap_err();
    match e {
        PtoError::ValidRegion {
            op: "TMATMUL_MX",
            operand: "k",
            ref value,
            ..
        } => assert!(value.contains("4096 values"), "{value}"),
        other => panic!("{other:?}"),
    }
    run_set("a5", fp4_set(2047, 128)).unwrap();
    // B's valid rows (pairs) must equal A's valid columns (pairs).
    let mut s = fp4_set(32, 2);
    s[2] = s[2].valid(16, 16);
    let e = run_set("a5", s).unwrap_err();
    assert!(
        matches!(
            e,
            PtoError::ValidRegion {
                operand: "bMatrix",
                ..
            }
        ),
        "{e:?}"
    );
}
