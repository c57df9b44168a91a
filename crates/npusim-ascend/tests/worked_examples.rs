//! The worked examples ("调用示例" / 结果示例) of the Ascend C pages
//! (asc-devkit `docs/zh/api/SIMD-API/基础API/Memory矢量计算/**`), reproduced on the simulator.
//!
//! Pages print `[1 2 3 ... 512]`-style arrays: arithmetic sequences are rebuilt whole; for
//! random inputs only the printed positions are known, so the other lanes get a filler and only
//! the printed positions are compared. Where a page prints rounded values (4 significant
//! digits), outputs are compared at the printed precision and the test counts how many are
//! also bit-exact (the printed value rounded to the element type equals our output bits).
//! Each example runs in every form the page shows: mask continuous (`mask = 128`), mask bit-wise
//! (`{UINT64_MAX, UINT64_MAX}`) and the count form.

use half::f16;
use npusim_ascend::ascendc::{
    AscendC, BinaryRepeatParams, LocalTensor, RoundMode, UnaryRepeatParams,
};
use npusim_core::{ChipId, Element};

const CHIP: ChipId = ChipId::Ascend910B;
const N: usize = 512;

fn setup<T: Element>(n: usize) -> (AscendC, [LocalTensor<T>; 3]) {
    let mut asc = AscendC::new(CHIP, 0);
    let a = asc.AllocTensor::<T>("src0", n as u64).unwrap();
    let b = asc.AllocTensor::<T>("src1", n as u64).unwrap();
    let d = asc.AllocTensor::<T>("dst", n as u64).unwrap();
    (asc, [a, b, d])
}

fn fill<T: Element>(asc: &mut AscendC, t: &LocalTensor<T>, v: &[T]) {
    asc.write(t, v).unwrap();
}

fn h(v: f32) -> f16 {
    f16::from_f32(v)
}

/// Runs a binary half example in the three forms; returns the three outputs.
macro_rules! binary_forms {
    ($T:ty, $count:ident, $rep:ident, $a:expr, $b:expr) => {{
        let mut outs = Vec::new();
        for form in 0..3 {
            let (mut asc, [a, b, d]) = setup::<$T>(N);
            fill(&mut asc, &a, &$a);
            fill(&mut asc, &b, &$b);
            let p = BinaryRepeatParams::new(1, 1, 1, 8, 8, 8);
            let lanes = 256 / std::mem::size_of::<$T>() as u64;
            let reps = (N as u64 / lanes) as i32;
            match form {
                0 => asc.$rep::<$T, true>(&d, &a, &b, lanes, reps, p).unwrap(),
                1 => {
                    let m = if lanes == 128 {
                        [u64::MAX, u64::MAX]
                    } else {
                        [u64::MAX, 0]
                    };
                    asc.$rep::<$T, true>(&d, &a, &b, m, reps, p).unwrap()
                }
                _ => asc.$count(&d, &a, &b, N as i32).unwrap(),
            }
            outs.push(asc.read::<$T>(&d).unwrap());
        }
        outs
    }};
}

macro_rules! unary_forms {
    ($T:ty, $count:ident, $rep:ident, $a:expr) => {{
        let mut outs = Vec::new();
        for form in 0..3 {
            let (mut asc, [a, _b, d]) = setup::<$T>(N);
            fill(&mut asc, &a, &$a);
            let p = UnaryRepeatParams::new(1, 1, 8, 8);
            let lanes = 256 / std::mem::size_of::<$T>() as u64;
            let reps = (N as u64 / lanes) as i32;
            match form {
                0 => asc.$rep::<$T, true>(&d, &a, lanes, reps, p).unwrap(),
                1 => {
                    let m = if lanes == 128 {
                        [u64::MAX, u64::MAX]
                    } else {
                        [u64::MAX, 0]
                    };
                    asc.$rep::<$T, true>(&d, &a, m, reps, p).unwrap()
                }
                _ => asc.$count(&d, &a, N as i32).unwrap(),
            }
            outs.push(asc.read::<$T>(&d).unwrap());
        }
        outs
    }};
}

macro_rules! scalar_forms {
    ($T:ty, $count:ident, $rep:ident, $a:expr, $s:expr) => {{
        let mut outs = Vec::new();
        for form in 0..3 {
            let (mut asc, [a, _b, d]) = setup::<$T>(N);
            fill(&mut asc, &a, &$a);
            let p = UnaryRepeatParams::new(1, 1, 8, 8);
            let lanes = 256 / std::mem::size_of::<$T>() as u64;
            let reps = (N as u64 / lanes) as i32;
            match form {
                0 => asc.$rep::<$T, true>(&d, &a, $s, lanes, reps, p).unwrap(),
                1 => {
                    let m = if lanes == 128 {
                        [u64::MAX, u64::MAX]
                    } else {
                        [u64::MAX, 0]
                    };
                    asc.$rep::<$T, true>(&d, &a, $s, m, reps, p).unwrap()
                }
                _ => asc.$count(&d, &a, $s, N as i32).unwrap(),
            }
            outs.push(asc.read::<$T>(&d).unwrap());
        }
        outs
    }};
}

fn seq_h(from: f32) -> Vec<f16> {
    (0..N).map(|i| h(from + i as f32)).collect()
}
fn seq_i16(from: i16) -> Vec<i16> {
    (0..N).map(|i| from.wrapping_add(i as i16)).collect()
}

/// Checks printed positions (`(index, value)`) of every form exactly.
fn exact<T: PartialEq + std::fmt::Debug + Copy>(outs: &[Vec<T>], printed: &[(usize, T)]) {
    for (f, o) in outs.iter().enumerate() {
        for &(i, v) in printed {
            assert_eq!(o[i], v, "form {f}, element {i}");
        }
    }
}

/// Printed at 4 significant digits: every printed position must round to the printed text;
/// returns how many are also bit-exact.
fn printed_4sig(outs: &[Vec<f16>], printed: &[(usize, f64)]) -> usize {
    let mut bit_exact = 0;
    for (f, o) in outs.iter().enumerate() {
        for &(i, p) in printed {
            let v = o[i].to_f64();
            let mag = p.abs().max(1e-30).log10().floor();
            let tol = 0.5 * 10f64.powf(mag - 3.0) + 1e-12;
            assert!(
                (v - p).abs() <= tol,
                "form {f}, element {i}: {v} vs printed {p}"
            );
            if f == 0 && f16::from_f64(p) == o[i] {
                bit_exact += 1;
            }
        }
    }
    bit_exact
}

/// For the approximate instructions (Rsqrt, Reciprocal: the pages say the hardware misses the
/// 1e-3 criteria): within `rel` of the printed value; returns (matching the printed digits,
/// bit-exact) counts.
fn printed_approx(outs: &[Vec<f16>], printed: &[(usize, f64)], rel: f64) -> (usize, usize) {
    let (mut digits, mut bits) = (0, 0);
    for (f, o) in outs.iter().enumerate() {
        for &(i, p) in printed {
            let v = o[i].to_f64();
            assert!(
                (v - p).abs() <= rel * p.abs(),
                "form {f}, element {i}: {v} vs printed {p}"
            );
            if f == 0 {
                let mag = p.abs().log10().floor();
                digits += usize::from((v - p).abs() <= 0.5 * 10f64.powf(mag - 3.0) + 1e-12);
                bits += usize::from(f16::from_f64(p) == o[i]);
            }
        }
    }
    (digits, bits)
}

#[test]
fn add_sub_mul_div_max_min_pages() {
    let a = seq_h(1.0);
    let b = seq_h(513.0);
    // Add.md: [1 2 3 ... 512] + [513 ... 1024] = [514 516 518 ... 1536].
    let o = binary_forms!(f16, Add, AddRepeat, a, b);
    exact(
        &o,
        &[
            (0, h(514.0)),
            (1, h(516.0)),
            (2, h(518.0)),
            (511, h(1536.0)),
        ],
    );
    for f in &o {
        assert!(
            f.iter()
                .enumerate()
                .all(|(i, v)| *v == h(514.0 + 2.0 * i as f32))
        );
    }
    // Sub.md: [-512 -512 ... -512].
    let o = binary_forms!(f16, Sub, SubRepeat, a, b);
    assert!(o.iter().all(|f| f.iter().all(|v| *v == h(-512.0))));
    // Mul.md: [1 2 3 ... 512] * [2 2 ...] = [2 4 6 ... 1024].
    let two = vec![h(2.0); N];
    let o = binary_forms!(f16, Mul, MulRepeat, a, two);
    exact(
        &o,
        &[(0, h(2.0)), (1, h(4.0)), (2, h(6.0)), (511, h(1024.0))],
    );
    // Div.md: [1.0 2.0 ... 512.0] / 2.0 = [0.5 1.0 1.5 ... 256.0].
    let o = binary_forms!(f16, Div, DivRepeat, a, two);
    exact(
        &o,
        &[(0, h(0.5)), (1, h(1.0)), (2, h(1.5)), (511, h(256.0))],
    );
    // Max.md / Min.md: src1 = [513 512 511 ... 2].
    let desc: Vec<f16> = (0..N).map(|i| h(513.0 - i as f32)).collect();
    let o = binary_forms!(f16, Max, MaxRepeat, a, desc);
    exact(
        &o,
        &[(0, h(513.0)), (1, h(512.0)), (2, h(511.0)), (511, h(512.0))],
    );
    let o = binary_forms!(f16, Min, MinRepeat, a, desc);
    exact(&o, &[(0, h(1.0)), (1, h(2.0)), (2, h(3.0)), (511, h(2.0))]);
}

#[test]
fn and_or_not_pages() {
    let a = seq_i16(1);
    let desc: Vec<i16> = (0..N).map(|i| 513 - i as i16).collect();
    // And.md: [1 0 3 ... 0]; Or.md: [513 514 511 ... 514].
    let o = binary_forms!(i16, And, AndRepeat, a, desc);
    exact(&o, &[(0, 1), (1, 0), (2, 3), (511, 0)]);
    let o = binary_forms!(i16, Or, OrRepeat, a, desc);
    exact(&o, &[(0, 513), (1, 514), (2, 511), (511, 514)]);
    // Not.md: [9 -2 8 ... 9 0] -> [-10 1 -9 ... -10 -1].
    let mut x = vec![5i16; N];
    x[..3].copy_from_slice(&[9, -2, 8]);
    x[510] = 9;
    x[511] = 0;
    let o = unary_forms!(i16, Not, NotRepeat, x);
    exact(&o, &[(0, -10), (1, 1), (2, -9), (510, -10), (511, -1)]);
}

#[test]
fn scalar_pages() {
    let a = seq_i16(1);
    // Adds.md, Muls.md, Maxs.md, Mins.md, ShiftLeft.md, ShiftRight.md: int16_t scalar 2.
    let o = scalar_forms!(i16, Adds, AddsRepeat, a, 2i16);
    exact(&o, &[(0, 3), (1, 4), (2, 5), (511, 514)]);
    let o = scalar_forms!(i16, Muls, MulsRepeat, a, 2i16);
    exact(&o, &[(0, 2), (1, 4), (2, 6), (511, 1024)]);
    let o = scalar_forms!(i16, Maxs, MaxsRepeat, a, 2i16);
    exact(&o, &[(0, 2), (1, 2), (2, 3), (511, 512)]);
    let o = scalar_forms!(i16, Mins, MinsRepeat, a, 2i16);
    exact(&o, &[(0, 1), (1, 2), (2, 2), (511, 2)]);
    let o = scalar_forms!(i16, ShiftLeft, ShiftLeftRepeat, a, 2i16);
    exact(&o, &[(0, 4), (1, 8), (2, 12), (511, 2048)]);
    let o = scalar_forms!(i16, ShiftRight, ShiftRightRepeat, a, 2i16);
    exact(
        &o,
        &[
            (0, 0),
            (1, 0),
            (2, 0),
            (3, 1),
            (4, 1),
            (5, 1),
            (6, 1),
            (511, 128),
        ],
    );
    // LeakyRelu.md: half scalar 0.001 on [-287 246 -438 177 596 -950 -293 322 ... -900].
    let mut x = vec![h(1.0); N];
    let shown = [-287.0, 246.0, -438.0, 177.0, 596.0, -950.0, -293.0, 322.0];
    for (i, v) in shown.iter().enumerate() {
        x[i] = h(*v);
    }
    x[511] = h(-900.0);
    let o = scalar_forms!(f16, LeakyRelu, LeakyReluRepeat, x, h(0.001));
    let printed = [
        (0, -0.287),
        (1, 246.0),
        (2, -0.438),
        (3, 177.0),
        (4, 596.0),
        (5, -0.950),
        (6, -0.293),
        (7, 322.0),
        (511, -0.900),
    ];
    // Printed to 3 decimals: compare at the printed precision.
    for f in &o {
        for (i, p) in printed {
            assert!(
                (f[i].to_f64() - p).abs() <= 0.0005 + 1e-3 * p.abs() * 1e-3,
                "{i}: {} vs {p}",
                f[i]
            );
        }
    }
    // Axpy.md: dst = 2.0 * [1 2 ... 512] + 0 = [2 4 ... 1024].
    let (mut asc, [a, _b, d]) = setup::<f16>(N);
    fill(&mut asc, &a, &seq_h(1.0));
    fill(&mut asc, &d, &vec![h(0.0); N]);
    asc.Axpy(&d, &a, h(2.0), N as i32).unwrap();
    let out = asc.read::<f16>(&d).unwrap();
    assert!(
        out.iter()
            .enumerate()
            .all(|(i, v)| *v == h(2.0 * (i + 1) as f32))
    );
}

#[test]
#[allow(clippy::approx_constant)] // the page's printed digits
fn unary_pages() {
    // Exp.md: [0.0 1.0 2.0 3.0 ...] -> [1.0 2.719 7.391 20.08 ...].
    let x: Vec<f16> = (0..N).map(|i| h((i % 4) as f32)).collect();
    let o = unary_forms!(f16, Exp, ExpRepeat, x);
    let be = printed_4sig(&o, &[(0, 1.0), (1, 2.719), (2, 7.391), (3, 20.08)]);
    assert_eq!(be, 4, "Exp: every printed output is also bit-exact");
    // Ln.md: [1 2 3 4 ...] -> [0 0.6931 1.0986 1.3863 ...]. Four decimals are more than
    // half holds (ln 2 rounds to 0.6934 in half), so the example is float: run it in float and
    // compare at the printed 4 decimals.
    let x: Vec<f32> = (0..N).map(|i| (i % 4 + 1) as f32).collect();
    let o = unary_forms!(f32, Ln, LnRepeat, x);
    for f in &o {
        for (i, p) in [(0, 0.0), (1, 0.6931), (2, 1.0986), (3, 1.3863)] {
            assert!(
                (f[i] as f64 - p).abs() <= 0.5e-4,
                "Ln element {i}: {}",
                f[i]
            );
        }
    }
    // Abs.md: [0.0 -1.0 2.0 -3.0 ...] -> [0.0 1.0 2.0 3.0 ...].
    let x: Vec<f16> = (0..N).map(|i| h([0.0, -1.0, 2.0, -3.0][i % 4])).collect();
    let o = unary_forms!(f16, Abs, AbsRepeat, x);
    exact(&o, &[(0, h(0.0)), (1, h(1.0)), (2, h(2.0)), (3, h(3.0))]);
    // Sqrt.md: [1.0 2.0 3.0 4.0 ...] -> [1.0 1.414 1.732 2.0 ...].
    let x: Vec<f16> = (0..N).map(|i| h((i % 4 + 1) as f32)).collect();
    let o = unary_forms!(f16, Sqrt, SqrtRepeat, x);
    let be = printed_4sig(&o, &[(0, 1.0), (1, 1.414), (2, 1.732), (3, 2.0)]);
    assert_eq!(be, 4);
    // Rsqrt.md: [0.8335 2.2 2.672 ... 2.312 5.36] -> [1.094 0.676 0.6113 ... 0.6562 0.4316].
    let mut x = vec![h(1.0); N];
    for (i, v) in [(0, 0.8335), (1, 2.2), (2, 2.672), (510, 2.312), (511, 5.36)] {
        x[i] = h(v);
    }
    let o = unary_forms!(f16, Rsqrt, RsqrtRepeat, x);
    let (digits, bits) = printed_approx(
        &o,
        &[
            (0, 1.094),
            (1, 0.676),
            (2, 0.6113),
            (510, 0.6562),
            (511, 0.4316),
        ],
        5e-3,
    );
    eprintln!("Rsqrt: {digits} of 5 match the printed digits, {bits} bit-exact");
    // The page's outputs are the hardware approximation (Rsqrt.md: it does not meet the 1e-3
    // criteria): correctly rounded 1/sqrt(0.8335) is 1.096 in half, the page prints 1.094.
    // Our model is correctly rounded, so none of the 5 is bit-exact; all are within 0.5%.
    assert_eq!(
        (digits, bits),
        (0, 0),
        "Rsqrt printed-digit and bit-exact matches of 5"
    );
    // Reciprocal.md: [-7.152 -7.24 1.771 ... -1.339 4.473] -> [-0.1396 -0.1382 0.5645 ... -0.748 0.2231].
    let mut x = vec![h(1.0); N];
    for (i, v) in [
        (0, -7.152),
        (1, -7.24),
        (2, 1.771),
        (510, -1.339),
        (511, 4.473),
    ] {
        x[i] = h(v);
    }
    let o = unary_forms!(f16, Reciprocal, ReciprocalRepeat, x);
    let (digits, bits) = printed_approx(
        &o,
        &[
            (0, -0.1396),
            (1, -0.1382),
            (2, 0.5645),
            (510, -0.748),
            (511, 0.2231),
        ],
        5e-3,
    );
    eprintln!("Reciprocal: {digits} of 5 match the printed digits, {bits} bit-exact");
    // Inputs are printed to 4 digits and the hardware approximates (Reciprocal.md): 2 of 5
    // outputs are bit-exact, all within 0.5%.
    assert_eq!(
        (digits, bits),
        (2, 2),
        "Reciprocal printed-digit and bit-exact matches of 5"
    );
    // Relu.md: [6.938 -8.86 -0.2263 ... 1.971 1.778] -> [6.938 0 0 ... 1.971 1.778].
    let mut x = vec![h(1.0); N];
    for (i, v) in [
        (0, 6.938),
        (1, -8.86),
        (2, -0.2263),
        (510, 1.971),
        (511, 1.778),
    ] {
        x[i] = h(v);
    }
    let o = unary_forms!(f16, Relu, ReluRepeat, x);
    let be = printed_4sig(
        &o,
        &[(0, 6.938), (1, 0.0), (2, 0.0), (510, 1.971), (511, 1.778)],
    );
    assert_eq!(be, 5);
}

#[test]
fn fused_pages() {
    // AddRelu.md: [1 -2 3 ... -6] + [1 3 -4 ... 5] -> [2 1 0 ... 0].
    let mut a = vec![h(0.0); N];
    let mut b = vec![h(0.0); N];
    a[..3].copy_from_slice(&[h(1.0), h(-2.0), h(3.0)]);
    b[..3].copy_from_slice(&[h(1.0), h(3.0), h(-4.0)]);
    a[511] = h(-6.0);
    b[511] = h(5.0);
    let o = binary_forms!(f16, AddRelu, AddReluRepeat, a, b);
    exact(&o, &[(0, h(2.0)), (1, h(1.0)), (2, h(0.0)), (511, h(0.0))]);
    // SubRelu.md: [1 2 3 ... 512] - [0 1 4 ... 513] -> [1 1 0 ... 0].
    let a = seq_h(1.0);
    let mut b = vec![h(0.0); N];
    b[..3].copy_from_slice(&[h(0.0), h(1.0), h(4.0)]);
    b[511] = h(513.0);
    let o = binary_forms!(f16, SubRelu, SubReluRepeat, a, b);
    exact(&o, &[(0, h(1.0)), (1, h(1.0)), (2, h(0.0)), (511, h(0.0))]);
}

#[test]
fn cast_page_half_to_int32_every_mode() {
    // Cast.md: half [1.4, 1.5, 1.6, 2.4, 2.5, 2.6, ... 2.6] -> int32 per round mode; mask
    // follows int32 (64 lanes), dstRepStride 8, srcRepStride 4, 8 repeats.
    let x: Vec<f16> = (0..N)
        .map(|i| h([1.4, 1.5, 1.6, 2.4, 2.5, 2.6][i.min(5)]))
        .collect();
    let cases: [(RoundMode, [i32; 6], i32); 6] = [
        (RoundMode::Ceil, [2, 2, 2, 3, 3, 3], 3),
        (RoundMode::None, [1, 2, 2, 2, 2, 3], 3),
        (RoundMode::Rint, [1, 2, 2, 2, 2, 3], 3),
        (RoundMode::Floor, [1, 1, 1, 2, 2, 2], 2),
        (RoundMode::Round, [1, 2, 2, 2, 3, 3], 3),
        (RoundMode::Trunc, [1, 1, 1, 2, 2, 2], 2),
    ];
    for (mode, first, last) in cases {
        if mode == RoundMode::None {
            // The page prints a CAST_NONE result, but none of the modelled chips' tables lists
            // CAST_NONE for half -> int32 (only Kirin's may): the call is refused.
            let mut asc = AscendC::new(ChipId::Ascend910B, 0);
            let s = asc.AllocTensor::<f16>("src", N as u64).unwrap();
            let d = asc.AllocTensor::<i32>("dst", N as u64).unwrap();
            asc.write(&s, &x).unwrap();
            assert!(asc.Cast(&d, &s, mode, N as u32).is_err());
            continue;
        }
        for form in 0..3 {
            let mut asc = AscendC::new(CHIP, 0);
            let s = asc.AllocTensor::<f16>("src", N as u64).unwrap();
            let d = asc.AllocTensor::<i32>("dst", N as u64).unwrap();
            asc.write(&s, &x).unwrap();
            let p = UnaryRepeatParams::new(1, 1, 8, 4);
            match form {
                0 => asc
                    .CastRepeat::<i32, f16, true>(&d, &s, mode, 64u64, 8, p)
                    .unwrap(),
                1 => asc
                    .CastRepeat::<i32, f16, true>(&d, &s, mode, [u64::MAX, 0], 8, p)
                    .unwrap(),
                _ => asc.Cast(&d, &s, mode, N as u32).unwrap(),
            }
            let out = asc.read::<i32>(&d).unwrap();
            assert_eq!(&out[..6], &first, "{mode:?} form {form}");
            assert_eq!(out[511], last, "{mode:?} form {form}");
        }
    }
}

mod fused_data {
    include!("data/fused_pages.rs");
}

/// One fused half example (256 elements) in the page's three forms: mask 128 x 2 repeats,
/// mask bits `{UINT64_MAX, UINT64_MAX}` x 2 repeats, and the count form; returns each output.
fn fused_forms(relu: bool, s0: &[f32], s1: &[f32], d0: &[f32]) -> Vec<Vec<f16>> {
    let mut outs = Vec::new();
    for form in 0..3 {
        let (mut asc, [a, b, d]) = setup::<f16>(256);
        let hv = |v: &[f32]| v.iter().map(|x| h(*x)).collect::<Vec<_>>();
        fill(&mut asc, &a, &hv(s0));
        fill(&mut asc, &b, &hv(s1));
        fill(&mut asc, &d, &hv(d0));
        let p = BinaryRepeatParams::new(1, 1, 1, 8, 8, 8);
        let bits = [u64::MAX, u64::MAX];
        match (relu, form) {
            (false, 0) => asc.FusedMulAddRepeat::<f16, true>(&d, &a, &b, 128, 2, p),
            (false, 1) => asc.FusedMulAddRepeat::<f16, true>(&d, &a, &b, bits, 2, p),
            (false, _) => asc.FusedMulAdd(&d, &a, &b, 256),
            (true, 0) => asc.MulAddReluRepeat::<f16, true>(&d, &a, &b, 128, 2, p),
            (true, 1) => asc.MulAddReluRepeat::<f16, true>(&d, &a, &b, bits, 2, p),
            (true, _) => asc.MulAddRelu(&d, &a, &b, 256),
        }
        .unwrap();
        outs.push(asc.read::<f16>(&d).unwrap());
    }
    outs
}

#[test]
fn fused_pages_round_the_half_product_first() {
    use fused_data::*;
    // FusedMulAdd.md: dst = src0 * dst + src1; MulAddRelu.md: relu of the same. The pages print
    // every input and output (half, shortest round-trip digits), so each printed output names
    // one half exactly: all 256 of each page must match bit for bit, in every form.
    for (relu, s0, s1, d0, printed) in [
        (false, &FMA_SRC0, &FMA_SRC1, &FMA_DST, &FMA_OUT),
        (true, &MAR_SRC0, &MAR_SRC1, &MAR_DST, &MAR_OUT),
    ] {
        let outs = fused_forms(relu, s0, s1, d0);
        for (f, o) in outs.iter().enumerate() {
            let exact = o
                .iter()
                .zip(printed.iter())
                .filter(|(g, p)| g.to_bits() == h(**p).to_bits())
                .count();
            assert_eq!(
                exact, 256,
                "relu {relu}, form {f}: {exact} of 256 bit-exact"
            );
        }
        // The page pins the rounding: one rounding of the exact src0 * dst + src1 would miss
        // some of the printed outputs (the product is rounded to half first).
        let once = (0..256)
            .filter(|&i| {
                let v = h(s0[i]).to_f64() * h(d0[i]).to_f64() + h(s1[i]).to_f64();
                let v = if relu { v.max(0.0) } else { v };
                f16::from_f64(v).to_bits() == h(printed[i]).to_bits()
            })
            .count();
        assert!(
            once < 256,
            "relu {relu}: a single rounding also matches all outputs"
        );
    }
}

// The page prints floats at 9 significant digits (as numpy does); kept as printed.
#[allow(clippy::excessive_precision)]
mod mla_data {
    include!("data/muladddst_page.rs");
}

#[test]
fn muladddst_page_half_sources_float_destination() {
    use mla_data::*;
    // MulAddDst.md: dst(float) = src0(half) * src1(half) + dst, 256 elements, in the page's
    // three forms: mask 64 x 4 repeats {1, 1, 1, 8, 4, 4}, mask bits {UINT64_MAX, 0} x 4, and
    // the count form. The page prints every input (half and float at shortest round-trip
    // digits) and every output (float, 9 significant digits), so each output names one float:
    // all 256 must match bit for bit, on every chip whose page lists the form.
    for chip in [ChipId::Ascend910B, ChipId::Ascend310P, ChipId::Ascend950] {
        for form in 0..3 {
            let mut asc = AscendC::new(chip, 0);
            let a = asc.AllocTensor::<f16>("src0", 256).unwrap();
            let b = asc.AllocTensor::<f16>("src1", 256).unwrap();
            let d = asc.AllocTensor::<f32>("dst", 256).unwrap();
            let hv = |v: &[f64]| v.iter().map(|x| f16::from_f64(*x)).collect::<Vec<_>>();
            fill(&mut asc, &a, &hv(&MLA_SRC0));
            fill(&mut asc, &b, &hv(&MLA_SRC1));
            fill(&mut asc, &d, &MLA_DST);
            let p = BinaryRepeatParams::new(1, 1, 1, 8, 4, 4);
            match form {
                0 => asc.MulAddDstRepeat::<f32, f16, true>(&d, &a, &b, 64u64, 4, p),
                1 => asc.MulAddDstRepeat::<f32, f16, true>(&d, &a, &b, [u64::MAX, 0], 4, p),
                _ => asc.MulAddDst(&d, &a, &b, 256),
            }
            .unwrap();
            let out = asc.read::<f32>(&d).unwrap();
            let exact = out
                .iter()
                .zip(MLA_OUT.iter())
                .filter(|(g, p)| g.to_bits() == p.to_bits())
                .count();
            assert_eq!(exact, 256, "{chip:?} form {form}: {exact} of 256 bit-exact");
        }
        // The page pins the rounding: rounding the product to half first misses every output.
        let half_first = (0..256)
            .filter(|&i| {
                let p = f16::from_f64(MLA_SRC0[i]) * f16::from_f64(MLA_SRC1[i]);
                (p.to_f32() + MLA_DST[i]).to_bits() == MLA_OUT[i].to_bits()
            })
            .count();
        assert!(
            half_first < 256,
            "a half product also matches: {half_first}"
        );
    }
    // Atlas 200I/500 A2 (310B) does not list the mixed form: a typed refusal.
    let mut asc = AscendC::new(ChipId::Ascend310B, 0);
    let a = asc.AllocTensor::<f16>("src0", 256).unwrap();
    let d = asc.AllocTensor::<f32>("dst", 256).unwrap();
    let e = asc.MulAddDst(&d, &a, &a, 256).unwrap_err();
    assert!(e.to_string().contains("MulAddDst"), "{e}");
}

#[test]
fn axpy_page_half_to_float_form() {
    // Axpy.md's second call: half source and scalar, float destination, mask 64 x 8 repeats,
    // {1, 1, 8, 4}; the page's result [1 .. 512] * 2 + 0 = [2 .. 1024] (every output exact).
    for chip in [ChipId::Ascend910, ChipId::Ascend910B, ChipId::Ascend950] {
        for form in 0..3 {
            let mut asc = AscendC::new(chip, 0);
            let a = asc.AllocTensor::<f16>("src", 512).unwrap();
            let d = asc.AllocTensor::<f32>("dst", 512).unwrap();
            fill(&mut asc, &a, &seq_h(1.0));
            fill(&mut asc, &d, &[0.0f32; 512]);
            let p = UnaryRepeatParams::new(1, 1, 8, 4);
            match form {
                0 => asc.AxpyRepeat::<f32, f16, true>(&d, &a, h(2.0), 64u64, 8, p),
                1 => asc.AxpyRepeat::<f32, f16, true>(&d, &a, h(2.0), [u64::MAX, 0], 8, p),
                _ => asc.Axpy(&d, &a, h(2.0), 512),
            }
            .unwrap();
            let out = asc.read::<f32>(&d).unwrap();
            let exact = (0..512).filter(|&i| out[i] == 2.0 * (i + 1) as f32).count();
            assert_eq!(exact, 512, "{chip:?} form {form}");
        }
    }
}

#[test]
fn reduce_data_block_pages_printed_positions() {
    // ReduceDataBlock.md (BlockReduceMax/Min/Sum): one repeat of 128 half, srcBlkStride 1,
    // dstRepStride 1, srcRepStride 8. The page prints rows of 8 and elides the middle rows
    // (blocks 2..6) and their outputs: the printed rows are rebuilt, the elided rows get the
    // row's filler, and the printed outputs (blocks 0, 1 and 7) are compared exactly, in both
    // mask forms.
    let build = |fill: f32, set: &[(usize, f32)]| -> Vec<f16> {
        let mut v = vec![h(fill); 128];
        for (i, x) in set {
            v[*i] = h(*x);
        }
        v
    };
    // MAX: 2 at row 1 column 2, 3 at row 3 column 5, 4 at row 14 column 3; the rest 1.
    let max_in = build(1.0, &[(8 + 2, 2.0), (24 + 5, 3.0), (112 + 3, 4.0)]);
    // MIN: 2 at row 1 column 3, -3 at row 3 column 5, 4 at row 15 column 1; the rest 10.
    let min_in = build(10.0, &[(8 + 3, 2.0), (24 + 5, -3.0), (120 + 1, 4.0)]);
    // SUM: block 0 all 1, block 1 all 2, block 7 all 3 (elided blocks filled with 1).
    let mut sum_in = vec![h(1.0); 128];
    sum_in[16..32].fill(h(2.0));
    sum_in[112..128].fill(h(3.0));
    for (which, input, printed) in [
        (0, &max_in, [(0usize, 2.0f32), (1, 3.0), (7, 4.0)]),
        (1, &min_in, [(0, 2.0), (1, -3.0), (7, 4.0)]),
        (2, &sum_in, [(0, 16.0), (1, 32.0), (7, 48.0)]),
    ] {
        for bits in [false, true] {
            let mut asc = AscendC::new(CHIP, 0);
            let s = asc.AllocTensor::<f16>("src", 128).unwrap();
            let d = asc.AllocTensor::<f16>("dst", 16).unwrap();
            fill(&mut asc, &s, input);
            let m: npusim_ascend::ascendc::AscMask = if bits {
                [u64::MAX, u64::MAX].into()
            } else {
                128u64.into()
            };
            match which {
                0 => asc.BlockReduceMax::<f16, true>(&d, &s, 1, m, 1, 1, 8),
                1 => asc.BlockReduceMin::<f16, true>(&d, &s, 1, m, 1, 1, 8),
                _ => asc.BlockReduceSum::<f16, true>(&d, &s, 1, m, 1, 1, 8),
            }
            .unwrap();
            let out = asc.read::<f16>(&d).unwrap();
            for (i, v) in printed {
                assert_eq!(out[i], h(v), "page {which} bits {bits} output {i}");
            }
        }
    }
}

#[test]
fn reduce_max_min_pages_value_and_index_encoding() {
    // ReduceMax.md / ReduceMin.md print the first and last input elements, elide the rest, and
    // print the output [value, index] with the index stored as the raw bits of a half
    // ("6.8e-06 使用reinterpret_cast方法转换后为索引值114"). The input is rebuilt from the
    // printed elements, the other elements cycle through the printed ones (all below the
    // printed maximum and above the printed minimum) and the printed extreme is placed at the
    // printed index; the test checks the value and that the index's bits are what the page
    // prints (the printed half text names exactly those bits).
    struct Page {
        max: bool,
        n: usize,
        head: &'static [f32],
        tail: &'static [f32],
        value: f32,
        index_text: f64,
        index: u16,
    }
    let pages = [
        // ReduceMax, tensor high-dim form: mask 128 x 4 repeats, srcRepStride 8 (contiguous).
        Page {
            max: true,
            n: 512,
            head: &[
                0.4795, 0.951, 0.866, 0.008545, 0.8037, 0.551, 0.754, 0.73, 0.6035, 0.251, 0.4841,
                0.05914, 0.9414, 0.379, 0.664, 0.6914, 0.9307, 0.3853, 0.4048,
            ],
            tail: &[0.4106, 0.604],
            value: 0.9985,
            index_text: 6.8e-06,
            index: 114,
        },
        // ReduceMax, count form, 288 elements.
        Page {
            max: true,
            n: 288,
            head: &[
                0.4778, 0.5903, 0.2433, 0.698, 0.1943, 0.407, 0.891, 0.1766, 0.5977, 0.9473,
                0.6523, 0.10913, 0.0143, 0.86, 0.2366, 0.625, 0.3696, 0.708, 0.946,
            ],
            tail: &[0.262],
            value: 0.999,
            index_text: 1.38e-05,
            index: 232,
        },
        // ReduceMin, tensor high-dim form (512 elements).
        Page {
            max: false,
            n: 512,
            head: &[
                0.769, 0.8584, 0.1082, 0.2715, 0.1759, 0.7646, 0.6406, 0.2944, 0.4255, 0.927,
                0.8022, 0.04507, 0.9688, 0.919, 0.3008, 0.7144, 0.3206, 0.6753, 0.8276,
            ],
            tail: &[0.304],
            value: 0.01034,
            index_text: 2.104e-05,
            index: 353,
        },
        // ReduceMin, count form, 288 elements.
        Page {
            max: false,
            n: 288,
            head: &[
                0.556, 0.5225, 0.3623, 0.214, 0.556, 0.0643, 0.769, 0.594, 0.261, 0.3652, 0.911,
                0.924, 0.386, 0.3696, 0.2296, 0.5957, 0.1709, 0.79, 0.8516,
            ],
            tail: &[0.2242],
            value: 0.00393,
            index_text: 4.3e-06,
            index: 72,
        },
    ];
    for p in &pages {
        let mut x: Vec<f16> = (0..p.n).map(|i| h(p.head[i % p.head.len()])).collect();
        for (k, v) in p.head.iter().enumerate() {
            x[k] = h(*v);
        }
        for (k, v) in p.tail.iter().enumerate() {
            x[p.n - p.tail.len() + k] = h(*v);
        }
        x[p.index as usize] = h(p.value);
        // The printed index text names the index's bits.
        assert_eq!(f16::from_f64(p.index_text).to_bits(), p.index);
        for chip in [ChipId::Ascend910B, ChipId::Ascend910, ChipId::Ascend310P] {
            let mut asc = AscendC::new(chip, 0);
            let s = asc.AllocTensor::<f16>("src", p.n as u64).unwrap();
            let t = asc.AllocTensor::<f16>("tmp", p.n as u64).unwrap();
            let d = asc.AllocTensor::<f16>("dst", 16).unwrap();
            fill(&mut asc, &s, &x);
            if p.max {
                asc.ReduceMax(&d, &s, &t, p.n as i32).unwrap();
            } else {
                asc.ReduceMin(&d, &s, &t, p.n as i32).unwrap();
            }
            let out = asc.read::<f16>(&d).unwrap();
            assert_eq!(out[0], h(p.value), "{chip:?} value");
            assert_eq!(out[1].to_bits(), p.index, "{chip:?} index bits");
        }
    }
}

#[test]
fn duplicate_page_three_forms() {
    // Duplicate.md: half scalar 18.0 over 256 elements (mask 128 x 2 repeats, {1, 8}; mask bits
    // {UINT64_MAX, UINT64_MAX}; the count form), dst loaded with the printed [18 1 2 ... 255]
    // first; the printed result is 18.0 everywhere (256 of 256 exact).
    for form in 0..3 {
        let (mut asc, [_a, _b, d]) = setup::<f16>(256);
        let init: Vec<f16> = (0..256)
            .map(|i| h(if i == 0 { 18.0 } else { i as f32 }))
            .collect();
        fill(&mut asc, &d, &init);
        match form {
            0 => asc.DuplicateRepeat::<f16, true>(&d, h(18.0), 128u64, 2, 1, 8),
            1 => asc.DuplicateRepeat::<f16, true>(&d, h(18.0), [u64::MAX, u64::MAX], 2, 1, 8),
            _ => asc.Duplicate(&d, h(18.0), 256),
        }
        .unwrap();
        let out = asc.read::<f16>(&d).unwrap();
        assert_eq!(
            out.iter().filter(|v| **v == h(18.0)).count(),
            256,
            "form {form}"
        );
    }
}

#[test]
fn reduce_repeat_max_min_pages_four_repeats() {
    // ReduceRepeat.md (WholeReduceMax/Min, ORDER_VALUE_INDEX): 512 half in 4 repeats (mask
    // 128 or bits {UINT64_MAX, UINT64_MAX}, dstRepStride 1, srcBlkStride 1, srcRepStride 8).
    // Printed repeats 0, 1 and 3 (repeat 2 elided: filled with its neighbours' filler); printed
    // outputs [v0 i0 v1 i1 ... v3 i3] with the index as the raw bits of a half (52 = 3.09944e-06,
    // 100 = 5.96046e-06, 19 = 1.13249e-06): the 6 printed outputs must match exactly.
    for (max, fillers, marks) in [
        (true, [1.0f32, 2.0, 2.5, 3.0], [11.0f32, 12.0, 13.0]),
        (false, [10.0, 20.0, 25.0, 30.0], [1.0, 2.0, 3.0]),
    ] {
        let mut x: Vec<f16> = (0..512).map(|i| h(fillers[i / 128])).collect();
        x[52] = h(marks[0]);
        x[128 + 100] = h(marks[1]);
        x[384 + 19] = h(marks[2]);
        for bits in [false, true] {
            let mut asc = AscendC::new(CHIP, 0);
            let s = asc.AllocTensor::<f16>("src", 512).unwrap();
            let d = asc.AllocTensor::<f16>("dst", 16).unwrap();
            fill(&mut asc, &s, &x);
            let m: npusim_ascend::ascendc::AscMask = if bits {
                [u64::MAX, u64::MAX].into()
            } else {
                128u64.into()
            };
            if max {
                asc.WholeReduceMax::<f16, true>(&d, &s, m, 4, 1, 1, 8)
            } else {
                asc.WholeReduceMin::<f16, true>(&d, &s, m, 4, 1, 1, 8)
            }
            .unwrap();
            let out = asc.read::<f16>(&d).unwrap();
            let printed = [
                (0, h(marks[0]).to_bits()),
                (1, f16::from_f64(3.09944e-06).to_bits()),
                (2, h(marks[1]).to_bits()),
                (3, f16::from_f64(5.96046e-06).to_bits()),
                (6, h(marks[2]).to_bits()),
                (7, f16::from_f64(1.13249e-06).to_bits()),
            ];
            for (i, b) in printed {
                assert_eq!(out[i].to_bits(), b, "max {max} bits {bits} output {i}");
            }
            assert_eq!(
                (out[1].to_bits(), out[3].to_bits(), out[7].to_bits()),
                (52, 100, 19)
            );
        }
    }
}
