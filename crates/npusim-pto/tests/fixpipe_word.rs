//! The fixpipe's quant word (TMOV with preQuantScalar, TMOV_FP-style fp words, TSTORE_FP)
//! against a plain model written here, for every quantised pair of both arches, including the
//! uint8, int16 (A2A3), hifloat8 and float8_e4m3 (A5) outputs.
//!
//! The word, written out from asc-devkit `随路量化.md` (table 1: A2A3, table 2: A5): M1 =
//! bits 31:13 as a (1 sign, 8 exponent, 10 mantissa) float with bias 127; A2A3 only: N = bits
//! 35:32 plus one, MCB = bit 36; offset = bits 45:37 (0..511); bit 46 = signed (int8) or
//! unsigned (uint8) saturation of the 8-bit modes. Per element, from the vendor's reference
//! scripts (asc-devkit `fixpipe_l0c2gm/scripts/gen_data_*.py`, pto-isa
//! `tests/npu/*/src/st/testcase/tmov_acc2mat/gen_data.py`): int32 -> int16 is `sat16(x >> N)`;
//! otherwise x (int32: after `sat16(x >> N)` when MCB is set on A2A3) as f32, ReLU, times M1
//! in f32, then int8/uint8: round half even within [-256, 255], + offset, saturate by bit 46;
//! half/bfloat16: nearest even; float8_e4m3fn: the nearest of its codes (ties to the even
//! code, past 464 NaN, as `ml_dtypes`); hifloat8: the nearest of its codes, ties away from
//! zero (1.5 * 2^15 and up is inf). The 8-bit float encoders below search the code tables
//! this file decodes itself. Layouts: Acc Nz 16x16 boxes, Mat Nz boxes of 16 rows x 32 bytes,
//! GM row-major, all written out here.
//!
//! Plus the restriction: an M1 that is inf, NaN or denormal is a typed error (the Fixpipe
//! pages), except for int32 -> int16, which does not use M1.
//!
//! Saturation (CTRL[48], A5 CTRL[50]; asc-devkit `SetCtrlSpr(ISASI).md`, the Fixpipe pages and
//! the C-API `asc_copy_l0c2*` pages), written out here: half, bfloat16, hifloat8 and
//! float8_e4m3 results saturate when CTRL[48] = 0 (the reset value) — modelled as the
//! reference scripts do it, by clipping the value to the type's largest finite value before
//! the conversion, NaN giving 0 — and keep inf/NaN when CTRL[48] = 1, except the modes the
//! C-API pages give no INF_NAN mode (every A2A3 float output; A5 float -> bfloat16 unscaled and
//! int32 -> half scaled), which always saturate; A5 CTRL[50] = 1 keeps float8_e4m3 NaN in the
//! saturating mode. Float outputs are never clipped. Besides the quantised sites, the
//! unscaled ones: TMOV Acc -> Mat and TSTORE Acc -> GM, float -> half / bfloat16.

use npusim_pto::ops::config::SatCtrl;
use npusim_pto::ops::movement::MovMode;
use npusim_pto::*;
use proptest::prelude::*;

/// 64 cases in CI; `PROPTEST_CASES` overrides.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64)
}

// ---- the word, decoded by hand ----

struct Word {
    m1: f64,
    shift: u32,
    mcb: bool,
    offset: i64,
    signed: bool,
}

fn decode(a5: bool, w: u64) -> Word {
    let m1_bits = (w >> 13) & 0x7ffff;
    let sign = (m1_bits >> 18) & 1;
    let exp = ((m1_bits >> 10) & 0xff) as i32;
    let man = (m1_bits & 0x3ff) as f64;
    let mag = if exp == 0 && man == 0.0 {
        0.0
    } else {
        (1.0 + man / 1024.0) * 2f64.powi(exp - 127)
    };
    Word {
        m1: if sign == 1 { -mag } else { mag },
        shift: if a5 { 0 } else { ((w >> 32) & 0xf) as u32 + 1 },
        mcb: !a5 && (w >> 36) & 1 == 1,
        offset: ((w >> 37) & 0x1ff) as i64,
        signed: (w >> 46) & 1 == 1,
    }
}

// ---- 8-bit float code tables, decoded by hand ----

/// float8_e4m3fn: s.eeee.mmm, bias 7, no inf, s.1111.111 NaN.
fn e4m3_value(code: u8) -> f64 {
    let s = if code & 0x80 != 0 { -1.0 } else { 1.0 };
    let e = ((code >> 3) & 0xf) as i32;
    let m = (code & 7) as f64;
    if e == 0 {
        s * m / 8.0 * 2f64.powi(-6)
    } else {
        s * (1.0 + m / 8.0) * 2f64.powi(e - 7)
    }
}

/// hifloat8 (tapered): after the sign a dot field `11` (D = 4), `10` (3), `01` (2), `001`
/// (1), `0001` (0), `0000` (denormal: 2^(m - 23)); then a D-bit exponent, sign-magnitude with
/// an implicit leading one; the mantissa takes the remaining bits. None for NaN (0x80); the
/// inf code (s.11.0111.1) decodes to its nominal 1.5 * 2^15.
fn hif8_value(code: u8) -> Option<f64> {
    if code == 0x80 {
        return None;
    }
    let s = if code & 0x80 != 0 { -1.0 } else { 1.0 };
    let b = code & 0x7f;
    let (d, rest_bits) = if b >> 5 == 0b11 {
        (4, 5)
    } else if b >> 5 == 0b10 {
        (3, 5)
    } else if b >> 5 == 0b01 {
        (2, 5)
    } else if b >> 4 == 0b001 {
        (1, 4)
    } else if b >> 3 == 0b0001 {
        (0, 3)
    } else {
        // denormal
        let m = (b & 7) as i32;
        return Some(if m == 0 { 0.0 } else { s * 2f64.powi(m - 23) });
    };
    let rest = (b as u32) & ((1 << rest_bits) - 1);
    let man_bits = rest_bits - d;
    let man = rest & ((1 << man_bits) - 1);
    let e = if d == 0 {
        0
    } else {
        let ef = rest >> man_bits;
        let neg = (ef >> (d - 1)) & 1 == 1;
        let mag = (1 << (d - 1)) + (ef & ((1 << (d - 1)) - 1)) as i32;
        if neg { -mag } else { mag }
    };
    Some(s * (1.0 + man as f64 / (1u32 << man_bits) as f64) * 2f64.powi(e))
}

/// The code of `codes` nearest to x; a tie goes to `tie(a, b)`.
fn nearest(x: f64, codes: &[(u8, f64)], tie: impl Fn(u8, u8) -> u8) -> u8 {
    let mut best = codes[0];
    for &c in &codes[1..] {
        let (dc, db) = ((x - c.1).abs(), (x - best.1).abs());
        if dc < db {
            best = c;
        } else if dc == db {
            let t = tie(best.0, c.0);
            if t == c.0 {
                best = c;
            }
        }
    }
    best.0
}

fn to_e4m3(x: f32) -> u8 {
    let sign = if x.is_sign_negative() { 0x80 } else { 0 };
    // Past the NaN code's nominal 480 every code is nearer to 480 (and f64 distances to huge
    // values lose the difference).
    if x.is_nan() || x.is_infinite() || x.abs() > 480.0 {
        return 0x7f | sign;
    }
    let codes: Vec<(u8, f64)> = (0u8..=0x7f)
        .map(|c| (c, if c == 0x7f { 480.0 } else { e4m3_value(c) }))
        .collect();
    let c = nearest(
        (x as f64).abs(),
        &codes,
        |a, b| if a & 1 == 0 { a } else { b },
    );
    c | sign
}

fn to_hif8(x: f32) -> u8 {
    if x.is_nan() {
        return 0x80;
    }
    let sign = if x.is_sign_negative() { 0x80 } else { 0 };
    // Past the inf code's nominal 1.5 * 2^15 every value is inf.
    if x.is_infinite() || x.abs() > 49152.0 {
        return 0x6f | sign;
    }
    let codes: Vec<(u8, f64)> = (0u8..=0x7f).map(|c| (c, hif8_value(c).unwrap())).collect();
    // ties away from zero: the larger magnitude
    let c = nearest((x as f64).abs(), &codes, |a, b| {
        if hif8_value(a).unwrap() > hif8_value(b).unwrap() {
            a
        } else {
            b
        }
    });
    if c == 0 { 0 } else { c | sign }
}

fn round_half_even(x: f64) -> f64 {
    let f = x.floor();
    let d = x - f;
    if d > 0.5 || (d == 0.5 && f.rem_euclid(2.0) != 0.0) {
        f + 1.0
    } else {
        f
    }
}

/// The CTRL bits of a case: (CTRL[48], CTRL[50]).
type Ctrl = (bool, bool);

/// Whether a conversion saturates, and then whether float8_e4m3 keeps NaN.
fn saturates(a5: bool, src: ElemType, dst: ElemType, scaled: bool, ctrl: Ctrl) -> (bool, bool) {
    use ElemType::*;
    let covered = [F16, Bf16, HiF8, F8E4M3FN].contains(&dst);
    let no_inf_nan_mode =
        !a5 || (src == F32 && dst == Bf16 && !scaled) || (src == I32 && dst == F16 && scaled);
    let sat = covered && (!ctrl.0 || no_inf_nan_mode);
    (sat, sat && a5 && ctrl.1 && dst == F8E4M3FN)
}

/// A float result: nearest even (hifloat8 ties away), clipped first when saturating.
fn float_out(x: f32, dst: ElemType, sat: (bool, bool)) -> u64 {
    let (sat, keep_nan) = sat;
    let max = match dst {
        ElemType::F16 => 65504.0,
        ElemType::Bf16 => half::bf16::MAX.to_f32(),
        ElemType::F8E4M3FN => 448.0,
        ElemType::HiF8 => 32768.0,
        _ => return x.to_bits() as u64,
    };
    if sat && x.is_nan() && !keep_nan {
        return 0;
    }
    let x = if sat && !x.is_nan() {
        x.clamp(-max, max)
    } else {
        x
    };
    match dst {
        ElemType::F16 => half::f16::from_f32(x).to_bits() as u64,
        ElemType::Bf16 => half::bf16::from_f32(x).to_bits() as u64,
        ElemType::F8E4M3FN => to_e4m3(x) as u64,
        _ => to_hif8(x) as u64,
    }
}

/// One element, as bits of `dst`; `word` None: the unscaled conversion.
fn model(
    a5: bool,
    src: ElemType,
    dst: ElemType,
    bits: u32,
    relu: bool,
    word: Option<u64>,
    ctrl: Ctrl,
) -> u64 {
    let sat = saturates(a5, src, dst, word.is_some(), ctrl);
    let Some(word) = word else {
        let x = f32::from_bits(bits);
        let x = if relu && x < 0.0 { 0.0 } else { x };
        return float_out(x, dst, sat);
    };
    let w = decode(a5, word);
    let sat16 = |v: i64| v.clamp(-32768, 32767);
    if dst == ElemType::I16 {
        let v = sat16(((bits as i32) >> w.shift) as i64);
        let v = if relu && v < 0 { 0 } else { v };
        return v as i16 as u16 as u64;
    }
    let mut x: f32 = match src {
        ElemType::I32 if w.mcb => sat16(((bits as i32) >> w.shift) as i64) as f32,
        ElemType::I32 => bits as i32 as f32,
        _ => f32::from_bits(bits),
    };
    if relu && x < 0.0 {
        x = 0.0;
    }
    // M1 has 11 significant bits and fits an f32: the product rounds once, in f32.
    let x = x * (w.m1 as f32);
    match dst {
        ElemType::I8 | ElemType::U8 => {
            let q = if x.is_nan() {
                0
            } else {
                round_half_even((x as f64).clamp(-256.0, 255.0)) as i64
            };
            let v = q + w.offset;
            if w.signed {
                v.clamp(-128, 127) as i8 as u8 as u64
            } else {
                v.clamp(0, 255) as u64
            }
        }
        _ => float_out(x, dst, sat),
    }
}

/// The pairs of a site: the quantised ones (pto-isa's NPU lists; `store` = TSTORE_FP), or at
/// the unscaled sites (3: TMOV, 4: TSTORE) float -> half / bfloat16.
fn site_pairs(a5: bool, site: u8) -> Vec<(ElemType, ElemType)> {
    if site >= 3 {
        return vec![
            (ElemType::F32, ElemType::F16),
            (ElemType::F32, ElemType::Bf16),
        ];
    }
    pairs(a5, site == 2)
}

/// The quantised pairs (pto-isa's NPU lists); `store` = TSTORE_FP.
fn pairs(a5: bool, store: bool) -> Vec<(ElemType, ElemType)> {
    use ElemType::*;
    let mut v = if a5 {
        vec![
            (F32, I8),
            (F32, U8),
            (F32, HiF8),
            (F32, F16),
            (F32, Bf16),
            (F32, F8E4M3FN),
            (I32, I8),
            (I32, U8),
            (I32, F16),
            (I32, Bf16),
        ]
    } else {
        vec![(F32, I8), (F32, U8), (I32, I8), (I32, U8), (I32, F16)]
    };
    if a5 && store {
        v.push((F32, F32)); // the store's QF322F32_PRE (the moves ignore the scale)
    }
    if !a5 && !store {
        v.push((I32, I16)); // (V)SHIFTS322S16, moves only
    }
    v
}

fn xs(s: &mut u64) -> u64 {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    *s
}

fn acc_value(t: ElemType, s: &mut u64) -> u32 {
    let x = xs(s);
    match (t, x % 20) {
        // the saturation boundaries: half, float8_e4m3 and hifloat8
        (ElemType::F32, 14) => 65519.0f32.to_bits(),
        (ElemType::F32, 15) => (-65520.0f32).to_bits(),
        (ElemType::F32, 16) => 464.0f32.to_bits(),
        (ElemType::F32, 17) => (-470.0f32).to_bits(),
        (ElemType::F32, 18) => 49152.0f32.to_bits(),
        (ElemType::F32, 19) => f32::MAX.to_bits(),
        (ElemType::F32, 0) => f32::NAN.to_bits(),
        (ElemType::F32, 1) => f32::INFINITY.to_bits(),
        (ElemType::F32, 2) => f32::NEG_INFINITY.to_bits(),
        (ElemType::F32, 3) => 0x8000_0000,
        (ElemType::F32, 4) => 3,                // denormal
        (ElemType::F32, 5) => 2.5f32.to_bits(), // a tie
        (ElemType::F32, 6) => (-3.0e38f32).to_bits(),
        (ElemType::F32, 7) => (x >> 32) as u32, // any bits
        (ElemType::F32, _) => ((((x >> 20) % 80001) as f32 - 40000.0) / 64.0).to_bits(),
        (_, 0) => i32::MIN as u32,
        (_, 1) => i32::MAX as u32,
        (_, 2) => 0,
        (_, 3) => 16_777_217, // rounds to even as f32
        (_, 4) => (x >> 32) as u32,
        (_, _) => (((x >> 20) % 200_001) as i32 - 100_000) as u32,
    }
}

/// A word: M1 valid (zero or normal) with junk in its low 13 bits, random N, MCB, offset, sign
/// and junk above bit 46.
fn word(s: &mut u64) -> u64 {
    let x = xs(s);
    let exp = match x % 8 {
        0 => 0, // M1 = ±0 when the mantissa is also 0
        1 => 1,
        2 => 254,
        _ => 112 + (x >> 8) % 30, // around 2^-15 .. 2^14
    };
    let man = if exp == 0 { 0 } else { (x >> 16) & 0x3ff };
    let sign = (x >> 26) & 1;
    let m1 = (sign << 31) | (exp << 23) | (man << 13) | ((x >> 27) & 0x1fff);
    m1 | (xs(s) & 0xffff_ffff_0000_0000)
}

/// Acc Nz (16 x 16 boxes) element offset.
fn acc_off(r: usize, c: usize, rows: usize) -> usize {
    (c / 16) * rows * 16 + r * 16 + c % 16
}

/// Mat Nz (boxes of 16 rows x 32 bytes) element offset.
fn mat_off(r: usize, c: usize, rows: usize, size: usize) -> usize {
    let bc = 32 / size;
    (c / bc) * rows * bc + (r / 16) * 16 * bc + (r % 16) * bc + c % bc
}

fn nz(loc: TileLoc, t: ElemType, rows: usize, cols: usize) -> TileDesc {
    TileDesc::new(loc, t, rows, cols)
        .layout(BLayout::ColMajor, SLayout::RowMajor)
        .fractal(if loc == TileLoc::Acc { 1024 } else { 512 })
}

fn run_case(a5: bool, site: u8, pick: usize, relu: bool, seed: u64) -> Result<(), TestCaseError> {
    run_ctrl(a5, site, pick, relu, seed, (false, false))
}

/// One case under the CTRL bits `ctrl` (set through the API unless they are the reset value).
fn run_ctrl(
    a5: bool,
    site: u8,
    pick: usize,
    relu: bool,
    seed: u64,
    ctrl: Ctrl,
) -> Result<(), TestCaseError> {
    let store = site == 2 || site == 4;
    let relu = relu && site != 4;
    let ps = site_pairs(a5, site);
    let (src_t, dst_t) = ps[pick % ps.len()];
    let (rows, cols) = (16, 32);
    let mut c = TileCore::by_name(if a5 { "a5" } else { "a2a3" }).unwrap();
    if ctrl != (false, false) {
        c.set_sat_ctrl(SatCtrl {
            ctrl48: ctrl.0,
            ctrl50: ctrl.1,
        })
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    }
    let acc = c.alloc(nz(TileLoc::Acc, src_t, rows, cols).at(0)).unwrap();
    let mut s = seed | 1;
    let mut input = vec![0u32; rows * cols];
    for r in 0..rows {
        for k in 0..cols {
            let v = acc_value(src_t, &mut s);
            input[r * cols + k] = v;
            let o = acc_off(r, k, rows) * 4;
            c.mem_mut(TileLoc::Acc)[o..o + 4].copy_from_slice(&v.to_le_bytes());
        }
    }
    let words: Vec<u64> = (0..cols).map(|_| word(&mut s)).collect();
    // site 0: TMOV with preQuantScalar (word 0 for every column); 1: TMOV with fp words;
    // 2: TSTORE_FP; 3: TMOV without a scale; 4: TSTORE without one.
    let fp = c
        .alloc(TileDesc::new(TileLoc::Scaling, ElemType::U64, 1, cols).at(0))
        .unwrap();
    for (j, w) in words.iter().enumerate() {
        c.mem_mut(TileLoc::Scaling)[j * 8..j * 8 + 8].copy_from_slice(&w.to_le_bytes());
    }
    let size = dst_t.size();
    let got: Vec<u64> = if store {
        let gm = c.gm_bind(&vec![0u8; rows * cols * size]);
        let g = GlobalTensor::nd_2d_strided(gm, dst_t, rows, cols, cols);
        let t = if site == 4 {
            TileOp {
                op: OpCode::Tstore,
                args: Args::Store { dst: g, src: acc },
            }
        } else {
            TileOp {
                op: OpCode::TstoreFp,
                args: Args::StoreFp {
                    dst: g,
                    src: acc,
                    fp,
                    relu,
                },
            }
        };
        c.exec(&t).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let b = c
            .gm()
            .bytes(gm, (rows * cols * size) as u64)
            .unwrap()
            .to_vec();
        (0..rows * cols)
            .map(|k| {
                let mut v = [0u8; 8];
                v[..size].copy_from_slice(&b[k * size..(k + 1) * size]);
                u64::from_le_bytes(v)
            })
            .collect()
    } else {
        let dst = c.alloc(nz(TileLoc::Mat, dst_t, rows, cols).at(0)).unwrap();
        let mode = MovMode {
            relu,
            scalar: (site == 0).then_some(words[0]),
            fp: (site == 1).then_some(&fp),
            // site 3: no scale
        };
        c.tmov(&dst, &acc, mode)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let mem = c.mem(TileLoc::Mat).as_slice();
        let mut out = vec![0u64; rows * cols];
        for r in 0..rows {
            for k in 0..cols {
                let o = mat_off(r, k, rows, size) * size;
                let mut v = [0u8; 8];
                v[..size].copy_from_slice(&mem[o..o + size]);
                out[r * cols + k] = u64::from_le_bytes(v);
            }
        }
        out
    };
    for r in 0..rows {
        for k in 0..cols {
            let w = match site {
                0 => Some(words[0]),
                3 | 4 => None,
                _ => Some(words[k]),
            };
            let want = model(a5, src_t, dst_t, input[r * cols + k], relu, w, ctrl);
            let g = got[r * cols + k];
            // NaN payloads of half/bfloat16 are the conversion's, not the model's.
            let both_nan = match dst_t {
                ElemType::F16 => {
                    half::f16::from_bits(g as u16).is_nan()
                        && half::f16::from_bits(want as u16).is_nan()
                }
                ElemType::Bf16 => {
                    half::bf16::from_bits(g as u16).is_nan()
                        && half::bf16::from_bits(want as u16).is_nan()
                }
                ElemType::F32 => {
                    f32::from_bits(g as u32).is_nan() && f32::from_bits(want as u32).is_nan()
                }
                _ => false,
            };
            prop_assert!(
                g == want || both_nan,
                "({}, {}) {:?}->{:?} site {} relu {} ctrl {:?} in {:#x} word {:x?}: got {:#x} want {:#x}",
                r,
                k,
                src_t,
                dst_t,
                site,
                relu,
                ctrl,
                input[r * cols + k],
                w,
                g,
                want
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn quant_word_matches_the_model(
        a5 in any::<bool>(),
        site in 0u8..3,
        pick in 0usize..16,
        relu in any::<bool>(),
        seed in any::<u64>(),
    ) {
        run_case(a5, site, pick, relu, seed)?;
    }

    /// Both CTRL[48] values (and on A5 both CTRL[50] values) at every site, scaled and
    /// unscaled.
    #[test]
    fn saturation_modes_match_the_model(
        a5 in any::<bool>(),
        site in 0u8..5,
        pick in 0usize..16,
        relu in any::<bool>(),
        seed in any::<u64>(),
        ctrl48 in any::<bool>(),
        ctrl50 in any::<bool>(),
    ) {
        run_ctrl(a5, site, pick, relu, seed, (ctrl48, ctrl50 && a5))?;
    }
}

/// Every pair at every site under every CTRL setting of the arch once.
#[test]
fn every_pair_in_both_saturation_modes() {
    let mut n = 0u64;
    for a5 in [false, true] {
        for site in 0..5u8 {
            for pick in 0..site_pairs(a5, site).len() {
                for ctrl in [(false, false), (true, false), (false, true), (true, true)] {
                    if ctrl.1 && !a5 {
                        continue;
                    }
                    run_ctrl(a5, site, pick, n % 2 == 1, 0x5eed + n, ctrl).unwrap();
                    n += 1;
                }
            }
        }
    }
    assert_eq!(n, 2 * (6 + 6 + 5 + 2 + 2) + 4 * (10 + 10 + 11 + 2 + 2));
}

/// Worked values (A5 TMOV Acc -> Mat float -> half / bfloat16 / float8_e4m3 without a scale,
/// and a2a3 int32 -> half with one): saturating by default, non-saturating after CTRL[48] = 1
/// except where the mode has no INF_NAN mode; CTRL[50] on A2A3 is a typed error.
#[test]
fn saturation_worked_values() {
    let one = |c: &mut TileCore, src: ElemType, dst: ElemType, x: u32, word: Option<u64>| {
        let acc = c.alloc(nz(TileLoc::Acc, src, 16, 32).at(0)).unwrap();
        c.mem_mut(TileLoc::Acc)[..4].copy_from_slice(&x.to_le_bytes());
        let d = c.alloc(nz(TileLoc::Mat, dst, 16, 32).at(0)).unwrap();
        c.tmov(
            &d,
            &acc,
            MovMode {
                relu: false,
                scalar: word,
                fp: None,
            },
        )
        .unwrap();
        let m = c.mem(TileLoc::Mat).as_slice();
        match dst.size() {
            1 => m[0] as u64,
            _ => u16::from_le_bytes([m[0], m[1]]) as u64,
        }
    };
    use ElemType::*;
    let inf = f32::INFINITY.to_bits();
    let nan = f32::NAN.to_bits();
    let mut a5 = TileCore::by_name("a5").unwrap();
    assert_eq!(a5.sat_ctrl(), SatCtrl::default());
    assert_eq!(one(&mut a5, F32, F16, inf, None), 0x7bff);
    assert_eq!(one(&mut a5, F32, F16, 70000f32.to_bits(), None), 0x7bff);
    assert_eq!(one(&mut a5, F32, F16, (-1e9f32).to_bits(), None), 0xfbff);
    assert_eq!(one(&mut a5, F32, F16, nan, None), 0);
    assert_eq!(one(&mut a5, F32, Bf16, inf, None), 0x7f7f);
    let e4 = Some(1.0f32.to_bits() as u64);
    assert_eq!(one(&mut a5, F32, F8E4M3FN, 500f32.to_bits(), e4), 0x7e);
    assert_eq!(one(&mut a5, F32, F8E4M3FN, nan, e4), 0);
    a5.set_sat_ctrl(SatCtrl {
        ctrl48: false,
        ctrl50: true,
    })
    .unwrap();
    assert_eq!(one(&mut a5, F32, F8E4M3FN, nan, e4) & 0x7f, 0x7f);
    assert_eq!(one(&mut a5, F32, F8E4M3FN, 500f32.to_bits(), e4), 0x7e);
    a5.set_sat_ctrl(SatCtrl {
        ctrl48: true,
        ctrl50: false,
    })
    .unwrap();
    assert_eq!(one(&mut a5, F32, F16, inf, None), 0x7c00);
    assert_eq!(one(&mut a5, F32, F16, 70000f32.to_bits(), None), 0x7c00);
    assert_eq!(one(&mut a5, F32, F8E4M3FN, 500f32.to_bits(), e4), 0x7f);
    // F322BF16 has no INF_NAN mode: still saturated.
    assert_eq!(one(&mut a5, F32, Bf16, inf, None), 0x7f7f);
    // but QF322BF16_PRE (scaled) follows CTRL[48].
    assert_eq!(one(&mut a5, F32, Bf16, inf, e4), 0x7f80);
    // a new core starts from the reset value (TileCore::reset restores the whole ConfigState).
    assert_eq!(
        TileCore::by_name("a5").unwrap().sat_ctrl(),
        SatCtrl::default()
    );
    // A2A3: DEQF16 (int32 -> half, scaled) saturates whatever CTRL[48] says.
    let mut a2 = TileCore::by_name("a2a3").unwrap();
    a2.set_sat_ctrl(SatCtrl {
        ctrl48: true,
        ctrl50: false,
    })
    .unwrap();
    let w = Some(1.0f32.to_bits() as u64);
    assert_eq!(one(&mut a2, I32, F16, i32::MAX as u32, w), 0x7bff);
    assert_eq!(one(&mut a2, F32, F16, inf, None), 0x7bff);
    let e = a2
        .set_sat_ctrl(SatCtrl {
            ctrl48: false,
            ctrl50: true,
        })
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("SetCtrlSpr") && e.contains("CTRL[50]") && e.contains("a2a3"),
        "{e}"
    );
}

/// Every pair at every site once (the proptest draws them at random).
#[test]
fn every_quantised_pair_runs() {
    let mut n = 0;
    for a5 in [false, true] {
        for site in 0..3u8 {
            for pick in 0..pairs(a5, site == 2).len() {
                for relu in [false, true] {
                    run_case(a5, site, pick, relu, 0x9e37_79b9 + n).unwrap();
                    n += 1;
                }
            }
        }
    }
    assert_eq!(n, 2 * (2 * 6 + 5) + 2 * (2 * 10 + 11));
}

/// The model's own anchors, from the pages: 1.5 * 2^15 and up is hifloat8's inf; past 464
/// float8_e4m3fn gives NaN and 464 itself rounds to 448 (ties to the even code).
#[test]
fn eight_bit_float_model_anchors() {
    assert_eq!(to_hif8(32768.0), 0x6e);
    assert_eq!(to_hif8(49152.0), 0x6f);
    assert_eq!(hif8_value(0x6e), Some(32768.0));
    assert_eq!(hif8_value(0x01), Some(2f64.powi(-22)));
    assert_eq!(to_e4m3(448.0), 0x7e);
    assert_eq!(to_e4m3(464.0), 0x7e);
    assert_eq!(to_e4m3(464.5), 0x7f);
    assert_eq!(to_e4m3(-1000.0), 0xff);
    assert_eq!(e4m3_value(0x01), 2f64.powi(-9));
}

/// Words worked by hand: bit 46 decides int8 against uint8 whatever the destination type, the
/// offset adds after the rounding, the low 13 bits of the single do not count.
#[test]
fn worked_words() {
    let mut c = TileCore::by_name("a2a3").unwrap();
    let acc = c
        .alloc(nz(TileLoc::Acc, ElemType::F32, 16, 32).at(0))
        .unwrap();
    let vals = [-3.0f32, 2.5, 300.0, -0.75];
    for (k, v) in vals.iter().enumerate() {
        let o = acc_off(0, k, 16) * 4;
        c.mem_mut(TileLoc::Acc)[o..o + 4].copy_from_slice(&v.to_le_bytes());
    }
    let dst = c
        .alloc(nz(TileLoc::Mat, ElemType::I8, 16, 32).at(0))
        .unwrap();
    let one = 1.0f32.to_bits() as u64;
    let mut run = |w: u64| {
        c.tmov(
            &dst,
            &acc,
            MovMode {
                relu: false,
                scalar: Some(w),
                fp: None,
            },
        )
        .unwrap();
        let m = c.mem(TileLoc::Mat).as_slice();
        [m[0] as i8, m[1] as i8, m[2] as i8, m[3] as i8]
    };
    // int8: -3, 2 (half to even), 127 (saturated), -1 (-0.75 rounds to -1)
    assert_eq!(run(one | 1 << 46), [-3, 2, 127, -1]);
    // uint8 saturation into the int8 tile: 0, 2, 255 (reads -1), 0
    assert_eq!(run(one), [0, 2, -1, 0]);
    // offset 10 (bits 45:37), int8: -3 + 10, 2 + 10, min(255, 300) + 10 -> 127, -1 + 10
    assert_eq!(run(one | 1 << 46 | 10 << 37), [7, 12, 127, 9]);
    // junk in the low 13 bits of the single is not part of M1: 1.0 + 2^-11 acts as 1.0
    assert_eq!(run((one | 0x1000) | 1 << 46), [-3, 2, 127, -1]);
}

/// M1 inf, NaN or denormal is a typed error naming the operand and the word; int32 -> int16
/// ignores M1.
#[test]
fn invalid_m1_is_a_typed_error() {
    for (a5, bad) in [
        (false, f32::INFINITY.to_bits() as u64),
        (false, f32::NAN.to_bits() as u64),
        (true, 0x0010_0000u64), // exponent 0, mantissa bit 20: an M1 denormal
        (true, f32::NEG_INFINITY.to_bits() as u64 | 1 << 46),
    ] {
        let mut c = TileCore::by_name(if a5 { "a5" } else { "a2a3" }).unwrap();
        let acc = c
            .alloc(nz(TileLoc::Acc, ElemType::F32, 16, 32).at(0))
            .unwrap();
        let dst = c
            .alloc(nz(TileLoc::Mat, ElemType::I8, 16, 32).at(0))
            .unwrap();
        let fp = c
            .alloc(TileDesc::new(TileLoc::Scaling, ElemType::U64, 1, 32).at(0))
            .unwrap();
        // scalar
        let e = c
            .tmov(
                &dst,
                &acc,
                MovMode {
                    relu: false,
                    scalar: Some(bad),
                    fp: None,
                },
            )
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("TMOV")
                && e.contains("preQuantScalar")
                && e.contains("M1")
                && e.contains(&format!("{bad:#018x}")),
            "{e}"
        );
        // one bad fp word among good ones
        c.mem_mut(TileLoc::Scaling)[5 * 8..6 * 8].copy_from_slice(&bad.to_le_bytes());
        let e = c
            .tmov(
                &dst,
                &acc,
                MovMode {
                    relu: false,
                    scalar: None,
                    fp: Some(&fp),
                },
            )
            .unwrap_err()
            .to_string();
        assert!(e.contains("fp") && e.contains("M1"), "{e}");
    }
    // int32 -> int16 (A2A3) only shifts: a NaN M1 is no error.
    let mut c = TileCore::by_name("a2a3").unwrap();
    let acc = c
        .alloc(nz(TileLoc::Acc, ElemType::I32, 16, 32).at(0))
        .unwrap();
    let dst = c
        .alloc(nz(TileLoc::Mat, ElemType::I16, 16, 32).at(0))
        .unwrap();
    c.tmov(
        &dst,
        &acc,
        MovMode {
            relu: false,
            scalar: Some(f32::NAN.to_bits() as u64 | 3 << 32),
            fp: None,
        },
    )
    .unwrap();
    // int16 is not an A5 output, nor a store output on A2A3.
    let mut c = TileCore::by_name("a5").unwrap();
    let acc = c
        .alloc(nz(TileLoc::Acc, ElemType::I32, 16, 32).at(0))
        .unwrap();
    let dst = c
        .alloc(nz(TileLoc::Mat, ElemType::I16, 16, 32).at(0))
        .unwrap();
    let e = c
        .tmov(
            &dst,
            &acc,
            MovMode {
                relu: false,
                scalar: Some(1.0f32.to_bits() as u64),
                fp: None,
            },
        )
        .unwrap_err()
        .to_string();
    assert!(e.contains("int32 -> int16") && e.contains("a5"), "{e}");
}
