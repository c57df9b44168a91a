//! TQUANT's MX forms (pto-isa `docs/isa/TQUANT.md` "MX formats", `docs/isa/TQUANT_DN.md`)
//! against a plain model written here from the pages' three stages: the group's largest
//! magnitude; the E8M0 exponent (OCP: biased exponent of the max minus E4M3's emax 8, at
//! least 0; NV: `ceil(log2(max / 448))` biased, capped at 254) and the scaling `2^(127 - e)`;
//! the E4M3FN code nearest to `x * scaling` clipped to ±448 (ties to the even code, found by
//! searching all 256 codes). Groups of 32 along the columns (ND) or the rows (DN); f32, f16
//! and bf16 sources with special values; the A5 only rule and one test per restriction.
//! MXFP4: the same stages with E2M1's emax 2 and V_max 6, the nearest of E2M1's eight
//! magnitudes (ties to the even code, clipped at 6), packed two codes a byte, first in the
//! low nibble. The DN interleaved exponent order and the ZZ store mode against the pages'
//! index formulas.

use npusim_pto::ops::quant::{MxAxis, MxQuantAlg};
use npusim_pto::*;
use proptest::prelude::*;

/// E4M3FN code to value (the OCP table: bias 7, no infinities, S.1111.111 NaN).
fn e4m3_value(c: u8) -> f64 {
    let s = if c & 0x80 != 0 { -1.0 } else { 1.0 };
    let (e, m) = ((c >> 3) & 15, c & 7);
    if e == 0 {
        s * m as f64 / 8.0 * 2f64.powi(-6)
    } else {
        s * (1.0 + m as f64 / 8.0) * 2f64.powi(e as i32 - 7)
    }
}

/// Nearest E4M3FN code to `v` clipped to ±448, ties to the even code; NaN keeps its sign.
fn e4m3_model(v: f32) -> u8 {
    let sign = if v.is_sign_negative() { 0x80 } else { 0 };
    if v.is_nan() {
        return sign | 0x7f;
    }
    let a = (v.abs() as f64).min(448.0);
    let mut best = 0u8;
    for c in 1..0x7fu8 {
        let (d, db) = ((e4m3_value(c) - a).abs(), (e4m3_value(best) - a).abs());
        if d < db || (d == db && c % 2 == 0 && best % 2 == 1) {
            best = c;
        }
    }
    sign | best
}

fn f16_to_f32(b: u16) -> f32 {
    let s = if b & 0x8000 != 0 { -1.0f64 } else { 1.0 };
    let (e, m) = ((b >> 10) & 31, (b & 1023) as f64);
    let v = match e {
        0 => m * 2f64.powi(-24),
        31 if m == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        _ => (1.0 + m / 1024.0) * 2f64.powi(e as i32 - 15),
    };
    (s * v) as f32
}

/// Stage 2 of the page: (E8M0 code, scaling).
fn group_model(alg: MxQuantAlg, m: f32) -> (u8, f32) {
    if m.is_nan() {
        return (0xff, f32::NAN);
    }
    let e: i64 = match alg {
        MxQuantAlg::OcpMxFp8E4M3 => ((m.to_bits() >> 23) as i64 - 8).max(0),
        MxQuantAlg::OcpMxFp4E2M1 => ((m.to_bits() >> 23) as i64 - 2).max(0),
        MxQuantAlg::NvMxFp8E4M3 | MxQuantAlg::NvMxFp4E2M1 => {
            let v_max = if alg == MxQuantAlg::NvMxFp8E4M3 {
                448.0f32
            } else {
                6.0
            };
            let d = m * (1.0f32 / v_max);
            if d == 0.0 {
                0
            } else if d.is_infinite() {
                254
            } else {
                ((d as f64).log2().ceil() as i64 + 127).clamp(0, 254)
            }
        }
    };
    (e as u8, 2f64.powi(127 - e as i32) as f32)
}

fn special_f32() -> impl Strategy<Value = f32> {
    prop_oneof![
        4 => (-8.0f32..8.0).prop_map(|x| x * 1e3),
        2 => (-1.0f32..1.0).prop_map(|x| x * 1e-30),
        2 => any::<u32>().prop_map(f32::from_bits).prop_filter("finite", |x| x.is_finite()),
        1 => prop::sample::select(vec![0.0f32, -0.0, 448.0, -448.0, 464.0, 1e-40, -1e-42, f32::MAX, -f32::MAX, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 2f32.powi(-10), 3.0 * 2f32.powi(-11)]),
    ]
}

#[derive(Clone, Copy, Debug)]
enum Src {
    F32,
    F16,
    Bf16,
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn tquant_mx_matches_the_model(
        src_kind in prop::sample::select(vec![Src::F32, Src::F16, Src::Bf16]),
        dn in any::<bool>(),
        nv in any::<bool>(),
        cpp_nan in any::<bool>(),
        e8_exp in any::<bool>(),
        groups in 1usize..3,
        other in 1usize..3,
        vals in prop::collection::vec(special_f32(), 64 * 2),
        bits in prop::collection::vec(any::<u16>(), 64 * 2),
        scale_down in prop::collection::vec(-140i32..20, 8),
    ) {
        let alg = if nv { MxQuantAlg::NvMxFp8E4M3 } else { MxQuantAlg::OcpMxFp8E4M3 };
        let axis = if dn { MxAxis::Dn } else { MxAxis::Nd };
        // ND: rows = other, cols = 32 groups; DN: rows = 32 groups, cols = other * 8.
        let (rows, cols) = if dn { (32 * groups, 8 * other) } else { (other, 32 * groups) };
        let (gr, gc) = if dn { (groups, cols) } else { (rows, groups) };
        let (st, size) = match src_kind {
            Src::F32 => (ElemType::F32, 4),
            Src::F16 => (ElemType::F16, 2),
            Src::Bf16 => (ElemType::Bf16, 2),
        };
        let mut c = TileCore::by_name("a5").unwrap();
        if cpp_nan {
            c.set_policy(TilePolicy::pto_cpu_sim(npusim_core::TileArch::A5));
        }
        let src_cols = cols.max(32 / size);
        let src = c.alloc(TileDesc::vec(st, rows, src_cols).valid(rows, cols).at(0)).unwrap();
        let dt = if e8_exp { ElemType::F8E4M3FN } else { ElemType::I8 };
        let dst = c.alloc(TileDesc::vec(dt, rows, cols.max(32)).valid(rows, cols).at(0x8000)).unwrap();
        let et = if e8_exp { ElemType::F8E8M0 } else { ElemType::U8 };
        let exp = c.alloc(TileDesc::vec(et, gr, gc.max(32)).valid(gr, gc).at(0xc000)).unwrap();
        let pc = gc.max(32 / size);
        let max = c.alloc(TileDesc::vec(st, gr, pc).valid(gr, gc).at(0xd000)).unwrap();
        let scaling = c.alloc(TileDesc::vec(st, gr, pc).valid(gr, gc).at(0xe000)).unwrap();
        // Values (f32 as drawn, scaled per row so groups see many exponents; b16 as bits).
        let mut xs = vec![0f32; rows * cols];
        for r in 0..rows {
            for k in 0..cols {
                let i = (r * cols + k) % vals.len();
                let (b, x) = match src_kind {
                    Src::F32 => {
                        let x = vals[i] * 2f32.powi(scale_down[r % 8]);
                        (x.to_bits() as u64, x)
                    }
                    Src::F16 => (bits[i] as u64, f16_to_f32(bits[i])),
                    Src::Bf16 => (bits[i] as u64, f32::from_bits((bits[i] as u32) << 16)),
                };
                xs[r * cols + k] = x;
                c.set_bits(&src, r, k, b).unwrap();
            }
        }
        c.exec(&TileOp { op: OpCode::Tquant, args: Args::QuantMx { dst, src, exp, max, scaling, axis, alg } }).unwrap();
        for g in 0..gr * gc {
            let (r0, c0) = (g / gc, g % gc);
            let at = |i: usize| if dn { (r0 * 32 + i, c0) } else { (r0, c0 * 32 + i) };
            let group: Vec<f32> = (0..32).map(|i| { let (r, k) = at(i); xs[r * cols + k] }).collect();
            let m = if !cpp_nan && group.iter().any(|x| x.is_nan()) {
                f32::NAN
            } else {
                group.iter().filter(|x| !x.is_nan()).fold(0f32, |a, x| a.max(x.abs()))
            };
            let (e, s) = group_model(alg, m);
            prop_assert_eq!(c.get_bits(&exp, r0, c0).unwrap() as u8, e, "group {} m {}", g, m);
            let got_max = c.get_bits(&max, r0, c0).unwrap();
            let got_s = c.get_bits(&scaling, r0, c0).unwrap();
            match src_kind {
                Src::F32 => {
                    prop_assert!(got_max as u32 == m.to_bits() || (m.is_nan() && f32::from_bits(got_max as u32).is_nan()));
                    prop_assert!(got_s as u32 == s.to_bits() || (s.is_nan() && f32::from_bits(got_s as u32).is_nan()));
                }
                Src::Bf16 => {
                    prop_assert!(m.is_nan() || got_max as u32 == m.to_bits() >> 16);
                }
                Src::F16 => {
                    prop_assert!(m.is_nan() || f16_to_f32(got_max as u16) == m);
                }
            }
            for i in 0..32 {
                let (r, k) = at(i);
                let x = xs[r * cols + k];
                let want = e4m3_model(x * s);
                prop_assert_eq!(c.get_bits(&dst, r, k).unwrap() as u8, want, "({}, {}) x {} s {} e {}", r, k, x, s, e);
            }
        }
    }
}

#[test]
fn worked_group_of_the_page() {
    // One ND group: max |x| = 3.0 (biased exponent 128), OCP e = 120, scaling 2^7; x = 3.0
    // becomes 384 (E4M3FN 0x7c), 1.0 becomes 128 (0x70); NV: 3/448 -> e = ceil(log2) + 127
    // = -7 + 127 = 120 as well.
    let mut c = TileCore::by_name("a5").unwrap();
    let src = c.alloc(TileDesc::vec(ElemType::F32, 1, 32).at(0)).unwrap();
    let dst = c
        .alloc(TileDesc::vec(ElemType::I8, 1, 32).at(0x400))
        .unwrap();
    let exp = c
        .alloc(TileDesc::vec(ElemType::U8, 1, 32).valid(1, 1).at(0x800))
        .unwrap();
    let max = c
        .alloc(TileDesc::vec(ElemType::F32, 1, 8).valid(1, 1).at(0xa00))
        .unwrap();
    let sc = c
        .alloc(TileDesc::vec(ElemType::F32, 1, 8).valid(1, 1).at(0xc00))
        .unwrap();
    let mut xs = vec![1.0f32; 32];
    xs[5] = -3.0;
    c.write_valid(&src, &xs).unwrap();
    for alg in [MxQuantAlg::OcpMxFp8E4M3, MxQuantAlg::NvMxFp8E4M3] {
        c.tquant_mx(&dst, &src, &exp, &max, &sc, MxAxis::Nd, alg)
            .unwrap();
        assert_eq!(c.get::<u8>(&exp, 0, 0).unwrap(), 120);
        assert_eq!(c.get::<f32>(&sc, 0, 0).unwrap(), 128.0);
        assert_eq!(c.get::<f32>(&max, 0, 0).unwrap(), 3.0);
        assert_eq!(c.get::<u8>(&dst, 0, 0).unwrap(), 0x70);
        assert_eq!(c.get::<u8>(&dst, 0, 5).unwrap(), 0xfc);
    }
}

#[test]
fn tquant_mx_restrictions() {
    let f = ElemType::F32;
    let tiles =
        |c: &TileCore, st: ElemType, dt: ElemType, et: ElemType, rows: usize, cols: usize| {
            let src = c.alloc(TileDesc::vec(st, rows, cols).at(0)).unwrap();
            let dst = c.alloc(TileDesc::vec(dt, rows, cols).at(0x8000)).unwrap();
            let g = TileDesc::vec(et, rows, 32)
                .valid(rows, (cols / 32).max(1))
                .at(0xc000);
            let exp = c.alloc(g).unwrap();
            let mx = c
                .alloc(
                    TileDesc::vec(st, rows, 8.max(32 / st.size()))
                        .valid(rows, (cols / 32).max(1))
                        .at(0xd000),
                )
                .unwrap();
            let sc = c
                .alloc(
                    TileDesc::vec(st, rows, 8.max(32 / st.size()))
                        .valid(rows, (cols / 32).max(1))
                        .at(0xe000),
                )
                .unwrap();
            (dst, src, exp, mx, sc)
        };
    let ocp = MxQuantAlg::OcpMxFp8E4M3;
    let rule = |e: PtoError| match e {
        PtoError::Static { rule, .. } | PtoError::ValidRegion { rule, .. } => rule.to_string(),
        e => e.to_string(),
    };
    // A2A3: not available.
    let mut a2 = TileCore::by_name("a2a3").unwrap();
    let (d, s, e, m, sc) = tiles(&a2, f, ElemType::I8, ElemType::U8, 2, 32);
    let err = a2
        .tquant_mx(&d, &s, &e, &m, &sc, MxAxis::Nd, ocp)
        .unwrap_err();
    assert!(rule(err).contains("A5 only"));
    let mut c = TileCore::by_name("a5").unwrap();
    // Source type: i32 is not an MX source; dst must be a byte type.
    let (d, s, e, m, sc) = tiles(&c, ElemType::I32, ElemType::I8, ElemType::U8, 2, 32);
    assert!(matches!(
        c.tquant_mx(&d, &s, &e, &m, &sc, MxAxis::Nd, ocp),
        Err(PtoError::IllegalType { .. })
    ));
    let (d, s, e, m, sc) = tiles(&c, f, ElemType::U8, ElemType::U8, 2, 32);
    assert!(matches!(
        c.tquant_mx(&d, &s, &e, &m, &sc, MxAxis::Nd, ocp),
        Err(PtoError::IllegalType { .. })
    ));
    // exp must be u8/e8m0.
    let (d, s, e, m, sc) = tiles(&c, f, ElemType::I8, ElemType::I8, 2, 32);
    assert!(matches!(
        c.tquant_mx(&d, &s, &e, &m, &sc, MxAxis::Nd, ocp),
        Err(PtoError::IllegalType { .. })
    ));
    // ND needs a multiple of 32 valid columns.
    let (d, s, e, m, sc) = tiles(&c, f, ElemType::I8, ElemType::U8, 2, 32);
    let (d2, s2) = (d.with_valid(2, 16).unwrap(), s.with_valid(2, 16).unwrap());
    let err = c
        .tquant_mx(&d2, &s2, &e, &m, &sc, MxAxis::Nd, ocp)
        .unwrap_err();
    assert!(rule(err).contains("multiple of 32"));
    // DN needs a multiple of 32 valid rows.
    let err = c
        .tquant_mx(&d, &s, &e, &m, &sc, MxAxis::Dn, ocp)
        .unwrap_err();
    assert!(rule(err).contains("multiple of 32"), "DN rows");
    // The per-group tiles' shape.
    let (d, s, e, m, sc) = tiles(&c, f, ElemType::I8, ElemType::U8, 2, 64);
    let err = c
        .tquant_mx(
            &d,
            &s,
            &e.with_valid(2, 1).unwrap(),
            &m,
            &sc,
            MxAxis::Nd,
            ocp,
        )
        .unwrap_err();
    assert!(rule(err).contains("one element per group"));
    // max/scaling must have the source's type.
    let bad = c
        .alloc(TileDesc::vec(ElemType::F16, 2, 16).valid(2, 2).at(0xd000))
        .unwrap();
    assert!(matches!(
        c.tquant_mx(&d, &s, &e, &bad, &sc, MxAxis::Nd, ocp),
        Err(PtoError::IllegalType { .. })
    ));
    // src and dst share the valid shape.
    let err = c
        .tquant_mx(
            &d.with_valid(1, 64).unwrap(),
            &s,
            &e,
            &m,
            &sc,
            MxAxis::Nd,
            ocp,
        )
        .unwrap_err();
    assert!(rule(err).contains("valid shape"));
    // The exec form reaches the same handler.
    let ok = c.exec(&TileOp {
        op: OpCode::Tquant,
        args: Args::QuantMx {
            dst: d,
            src: s,
            exp: e,
            max: m,
            scaling: sc,
            axis: MxAxis::Nd,
            alg: ocp,
        },
    });
    assert!(ok.is_ok(), "{ok:?}");
}

/// E2M1 magnitudes by code.
const E2M1: [f64; 8] = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0];

/// Nearest E2M1 code to `v` clipped to ±6, ties to the even code; NaN gives 0x7.
fn e2m1_model(v: f32) -> u8 {
    if v.is_nan() {
        return 7;
    }
    let sign = if v.is_sign_negative() { 8 } else { 0 };
    let a = (v.abs() as f64).min(6.0);
    let mut best = 0usize;
    for (c, v) in E2M1.iter().enumerate().skip(1) {
        let (d, db) = ((v - a).abs(), (E2M1[best] - a).abs());
        if d < db || (d == db && c % 2 == 0) {
            best = c;
        }
    }
    sign | best as u8
}

/// f32 -> bf16 -> f32, round to nearest even (finite inputs; NaN stays NaN).
fn bf16_round(v: f32) -> f32 {
    if v.is_nan() {
        return v;
    }
    let b = v.to_bits();
    let r = (b as u64 + 0x7fff + ((b >> 16) & 1) as u64) >> 16;
    f32::from_bits((r as u32) << 16)
}

#[derive(Clone, Copy, Debug)]
enum Order {
    Nd,
    Dn,
    DnInterleave,
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn tquant_mxfp4_matches_the_model(
        bf in any::<bool>(),
        order in prop::sample::select(vec![Order::Nd, Order::Dn, Order::DnInterleave]),
        nv in any::<bool>(),
        groups in 1usize..3,
        other in 1usize..3,
        bits in prop::collection::vec(any::<u16>(), 128),
        scale_exp in prop::collection::vec(0u16..31, 8),
        specials in prop::collection::vec((0usize..4096, prop::sample::select(vec![0x0000u16, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x0001, 0x3c00, 0x4600, 0x7bff])), 0..6),
    ) {
        let alg = if nv { MxQuantAlg::NvMxFp4E2M1 } else { MxQuantAlg::OcpMxFp4E2M1 };
        let (axis, dn, il) = match order {
            Order::Nd => (MxAxis::Nd, false, false),
            Order::Dn => (MxAxis::Dn, true, false),
            Order::DnInterleave => (MxAxis::DnInterleave, true, true),
        };
        let rgroup = if il { 64 } else { 32 };
        let (rows, cols) = if dn { (rgroup * groups, 8 * other) } else { (other, 32 * groups) };
        let (gr, gc) = if dn { (rows / 32, cols) } else { (rows, cols / 32) };
        let (er, ec) = if il { (gr / 2, 2 * gc) } else { (gr, gc) };
        let st = if bf { ElemType::Bf16 } else { ElemType::F16 };
        let mut c = TileCore::by_name("a5").unwrap();
        let src = c.alloc(TileDesc::vec(st, rows, cols.max(16)).valid(rows, cols).at(0)).unwrap();
        let dst = c.alloc(TileDesc::vec(ElemType::F4E2M1X2, rows, 32).valid(rows, cols / 2).at(0x8000)).unwrap();
        let exp = c.alloc(TileDesc::vec(ElemType::U8, er, ec.max(32)).valid(er, ec).at(0xc000)).unwrap();
        let max = c.alloc(TileDesc::vec(st, gr, gc.max(16)).valid(gr, gc).at(0xd000)).unwrap();
        let scaling = c.alloc(TileDesc::vec(st, gr, gc.max(16)).valid(gr, gc).at(0xe000)).unwrap();
        let mut xs = vec![0f32; rows * cols];
        for r in 0..rows {
            for k in 0..cols {
                let i = r * cols + k;
                let mut b = bits[i % bits.len()];
                if !bf {
                    // Vary the f16 exponent per row so groups see small and large maxima.
                    b = (b & 0x83ff) | ((((b >> 10) & 31) + scale_exp[r % 8]) % 31) << 10;
                }
                for &(at, v) in &specials {
                    if at % (rows * cols) == i {
                        b = if bf { (f32::from_bits(f16_to_f32(v).to_bits()).to_bits() >> 16) as u16 } else { v };
                    }
                }
                let x = if bf { f32::from_bits((b as u32) << 16) } else { f16_to_f32(b) };
                xs[i] = x;
                c.set_bits(&src, r, k, b as u64).unwrap();
            }
        }
        c.exec(&TileOp { op: OpCode::Tquant, args: Args::QuantMx { dst, src, exp, max, scaling, axis, alg } }).unwrap();
        let mut codes = vec![0u8; rows * cols];
        for g in 0..gr * gc {
            let (r0, c0) = (g / gc, g % gc);
            let at = |i: usize| if dn { (r0 * 32 + i, c0) } else { (r0, c0 * 32 + i) };
            let group: Vec<f32> = (0..32).map(|i| { let (r, k) = at(i); xs[r * cols + k] }).collect();
            let mag = |x: f32| if nv { x.abs() } else { f32::from_bits(x.abs().to_bits() & 0xffff_0000) };
            let m = if group.iter().any(|x| x.is_nan()) {
                f32::NAN
            } else {
                group.iter().fold(0f32, |a, &x| a.max(mag(x)))
            };
            let (e, s) = group_model(alg, m);
            let (xr, xc) = if il { (r0 / 2, 2 * c0 + r0 % 2) } else { (r0, c0) };
            prop_assert_eq!(c.get_bits(&exp, xr, xc).unwrap() as u8, e, "group {} m {}", g, m);
            let got_max = c.get_bits(&max, r0, c0).unwrap() as u16;
            let got_max = if bf { f32::from_bits((got_max as u32) << 16) } else { f16_to_f32(got_max) };
            prop_assert!(got_max == m || (m.is_nan() && got_max.is_nan()), "max {} vs {}", got_max, m);
            if bf {
                let got_s = f32::from_bits((c.get_bits(&scaling, r0, c0).unwrap() as u32) << 16);
                prop_assert!(got_s == bf16_round(s) || (s.is_nan() && got_s.is_nan()));
            }
            for i in 0..32 {
                let (r, k) = at(i);
                let x = xs[r * cols + k];
                codes[r * cols + k] = if s.is_nan() {
                    7
                } else if bf {
                    e2m1_model(bf16_round(x * s))
                } else {
                    e2m1_model(x * s)
                };
            }
        }
        for r in 0..rows {
            for j in 0..cols / 2 {
                let want = codes[r * cols + 2 * j] | codes[r * cols + 2 * j + 1] << 4;
                prop_assert_eq!(c.get_bits(&dst, r, j).unwrap() as u8, want, "({}, pair {})", r, j);
            }
        }
    }

    #[test]
    fn tquant_mx_zz_store_is_the_box_order(
        rb in 1usize..3,
        gp in 1usize..3,
        vals in prop::collection::vec(special_f32(), 64),
        scale_down in prop::collection::vec(-140i32..20, 16),
    ) {
        let (rows, cols) = (16 * rb, 64 * gp);
        let groups = cols / 32;
        let mut c = TileCore::by_name("a5").unwrap();
        let src = c.alloc(TileDesc::vec(ElemType::F32, rows, cols).at(0)).unwrap();
        let dst = c.alloc(TileDesc::vec(ElemType::F8E4M3FN, rows, cols).at(0x10000)).unwrap();
        let exp = c.alloc(TileDesc::vec(ElemType::U8, rows, 32).valid(rows, groups).at(0x18000)).unwrap();
        let max = c.alloc(TileDesc::vec(ElemType::F32, rows, 8).valid(rows, groups).at(0x19000)).unwrap();
        let sc = c.alloc(TileDesc::vec(ElemType::F32, rows, 8).valid(rows, groups).at(0x1a000)).unwrap();
        let zz = c.alloc(TileDesc::vec(ElemType::F8E8M0, 1, 256).valid(1, rows * groups).at(0x1b000)).unwrap();
        for r in 0..rows {
            for k in 0..cols {
                let x = vals[(r * cols + k) % vals.len()] * 2f32.powi(scale_down[(r + k / 32) % 16]);
                c.set_bits(&src, r, k, x.to_bits() as u64).unwrap();
            }
        }
        c.tquant_mx_zz(&dst, &src, &exp, &max, &sc, &zz).unwrap();
        // The ND exponents are those of the plain ND form (checked by the property test above).
        let mut c2 = TileCore::by_name("a5").unwrap();
        for r in 0..rows {
            for k in 0..cols {
                let b = c.get_bits(&src, r, k).unwrap();
                c2.set_bits(&src, r, k, b).unwrap();
            }
        }
        c2.tquant_mx(&dst, &src, &exp, &max, &sc, MxAxis::Nd, MxQuantAlg::OcpMxFp8E4M3).unwrap();
        for i in 0..rows * groups {
            // Element i of the ZZ stream: box i / 32 (row block outer, group pair inner),
            // inside the box row (i % 32) / 2 and group i % 2.
            let (bx, w) = (i / 32, i % 32);
            let (rbk, gb) = (bx / (groups / 2), bx % (groups / 2));
            let (r, g) = (rbk * 16 + w / 2, gb * 2 + w % 2);
            let want = c2.get_bits(&exp, r, g).unwrap();
            prop_assert_eq!(c.get_bits(&exp, r, g).unwrap(), want);
            prop_assert_eq!(c.get_bits(&zz, 0, i).unwrap(), want, "zz {}", i);
        }
    }
}

#[test]
fn mxfp4_worked_group() {
    // One ND bf16 group, max |x| = 3.0: OCP e = 128 - 2 = 126, scaling 2^1; 3.0 -> 6 (code
    // 7), 1.0 -> 2 (code 4), 0.75 -> 1.5 (code 3), -0.25 -> -0.5 (code 0x9), 0.375 -> 0.75
    // (tie between 0.5 and 1.0: the even code 2, 1.0). NV: 3/6 = 0.5 -> e = 126 as well.
    let mut c = TileCore::by_name("a5").unwrap();
    let src = c.alloc(TileDesc::vec(ElemType::Bf16, 1, 32).at(0)).unwrap();
    let dst = c
        .alloc(
            TileDesc::vec(ElemType::F4E2M1X2, 1, 32)
                .valid(1, 16)
                .at(0x400),
        )
        .unwrap();
    let exp = c
        .alloc(TileDesc::vec(ElemType::U8, 1, 32).valid(1, 1).at(0x800))
        .unwrap();
    let max = c
        .alloc(TileDesc::vec(ElemType::Bf16, 1, 16).valid(1, 1).at(0xa00))
        .unwrap();
    let sc = c
        .alloc(TileDesc::vec(ElemType::Bf16, 1, 16).valid(1, 1).at(0xc00))
        .unwrap();
    let mut xs = [1.0f32; 32];
    xs[0] = -3.0;
    xs[1] = 0.75;
    xs[2] = -0.25;
    xs[3] = 0.375;
    for (k, x) in xs.iter().enumerate() {
        c.set_bits(&src, 0, k, (x.to_bits() >> 16) as u64).unwrap();
    }
    for alg in [MxQuantAlg::OcpMxFp4E2M1, MxQuantAlg::NvMxFp4E2M1] {
        c.tquant_mx(&dst, &src, &exp, &max, &sc, MxAxis::Nd, alg)
            .unwrap();
        assert_eq!(c.get_bits(&exp, 0, 0).unwrap(), 126, "{alg:?}");
        assert_eq!(c.get_bits(&sc, 0, 0).unwrap(), 0x4000, "scaling 2.0");
        assert_eq!(c.get_bits(&max, 0, 0).unwrap(), 0x4040, "max 3.0");
        assert_eq!(
            c.get_bits(&dst, 0, 0).unwrap(),
            0x3f,
            "codes 0xf (-6), 0x3 (1.5)"
        );
        assert_eq!(
            c.get_bits(&dst, 0, 1).unwrap(),
            0x29,
            "codes 0x9 (-0.5), 0x2 (1.0)"
        );
        assert_eq!(c.get_bits(&dst, 0, 2).unwrap(), 0x44, "1.0 -> 2.0, code 4");
    }
}

#[test]
fn mxfp4_interleave_and_zz_restrictions() {
    let rule = |e: PtoError| match e {
        PtoError::Static { rule, .. } | PtoError::ValidRegion { rule, .. } => rule.to_string(),
        e => e.to_string(),
    };
    let mut c = TileCore::by_name("a5").unwrap();
    let ocp4 = MxQuantAlg::OcpMxFp4E2M1;
    let h = ElemType::F16;
    let src = c.alloc(TileDesc::vec(h, 64, 32).at(0)).unwrap();
    let dst = c
        .alloc(
            TileDesc::vec(ElemType::F4E2M1X2, 64, 32)
                .valid(64, 16)
                .at(0x8000),
        )
        .unwrap();
    let exp = c
        .alloc(TileDesc::vec(ElemType::U8, 64, 32).valid(64, 1).at(0xc000))
        .unwrap();
    let max = c
        .alloc(TileDesc::vec(h, 64, 16).valid(64, 1).at(0xd000))
        .unwrap();
    let sc = c
        .alloc(TileDesc::vec(h, 64, 16).valid(64, 1).at(0xe000))
        .unwrap();
    c.tquant_mx(&dst, &src, &exp, &max, &sc, MxAxis::Nd, ocp4)
        .unwrap();
    // MXFP4 takes f16/bf16 only.
    let s32 = c
        .alloc(TileDesc::vec(ElemType::F32, 64, 32).at(0x10000))
        .unwrap();
    let m32 = c
        .alloc(TileDesc::vec(ElemType::F32, 64, 8).valid(64, 1).at(0x18000))
        .unwrap();
    assert!(matches!(
        c.tquant_mx(&dst, &s32, &exp, &m32, &m32, MxAxis::Nd, ocp4),
        Err(PtoError::IllegalType { operand: "src", .. })
    ));
    // dst must be the packed E2M1 type, and hold the valid cols in pairs.
    let d8 = c
        .alloc(TileDesc::vec(ElemType::I8, 64, 32).at(0x8000))
        .unwrap();
    assert!(matches!(
        c.tquant_mx(&d8, &src, &exp, &max, &sc, MxAxis::Nd, ocp4),
        Err(PtoError::IllegalType { operand: "dst", .. })
    ));
    let err = c
        .tquant_mx(
            &dst.with_valid(64, 32).unwrap(),
            &src,
            &exp,
            &max,
            &sc,
            MxAxis::Nd,
            ocp4,
        )
        .unwrap_err();
    assert!(rule(err).contains("packed pairs"));
    // The FP8 algorithms refuse a packed dst.
    assert!(matches!(
        c.tquant_mx(
            &dst,
            &src,
            &exp,
            &max,
            &sc,
            MxAxis::Nd,
            MxQuantAlg::OcpMxFp8E4M3
        ),
        Err(PtoError::IllegalType { operand: "dst", .. })
    ));
    // DN interleave: valid rows a multiple of 64, exp rows/64 x 2*cols.
    let e_il = c
        .alloc(TileDesc::vec(ElemType::U8, 1, 64).at(0xc000))
        .unwrap();
    let (mx, scx) = (
        c.alloc(TileDesc::vec(h, 2, 32).at(0xd000)).unwrap(),
        c.alloc(TileDesc::vec(h, 2, 32).at(0xe000)).unwrap(),
    );
    c.tquant_mx(&dst, &src, &e_il, &mx, &scx, MxAxis::DnInterleave, ocp4)
        .unwrap();
    let err = c
        .tquant_mx(
            &dst.with_valid(32, 16).unwrap(),
            &src.with_valid(32, 32).unwrap(),
            &e_il,
            &mx,
            &scx,
            MxAxis::DnInterleave,
            ocp4,
        )
        .unwrap_err();
    assert!(rule(err).contains("multiple of 64"));
    let err = c
        .tquant_mx(
            &dst,
            &src,
            &e_il.with_valid(1, 32).unwrap(),
            &mx,
            &scx,
            MxAxis::DnInterleave,
            ocp4,
        )
        .unwrap_err();
    assert!(rule(err).contains("interleaved DN exp"));
    // ZZ store mode: rows a multiple of 16, cols of 64, one exp_zz element per group.
    let f = ElemType::F32;
    let s = c.alloc(TileDesc::vec(f, 16, 64).at(0)).unwrap();
    let d = c
        .alloc(TileDesc::vec(ElemType::I8, 16, 64).at(0x8000))
        .unwrap();
    let e = c
        .alloc(TileDesc::vec(ElemType::U8, 16, 32).valid(16, 2).at(0xc000))
        .unwrap();
    let m = c
        .alloc(TileDesc::vec(f, 16, 8).valid(16, 2).at(0xd000))
        .unwrap();
    let sc2 = c
        .alloc(TileDesc::vec(f, 16, 8).valid(16, 2).at(0xe000))
        .unwrap();
    let zz = c
        .alloc(TileDesc::vec(ElemType::U8, 1, 32).at(0xf000))
        .unwrap();
    c.tquant_mx_zz(&d, &s, &e, &m, &sc2, &zz).unwrap();
    let err = c
        .tquant_mx_zz(&d, &s, &e, &m, &sc2, &zz.with_valid(1, 16).unwrap())
        .unwrap_err();
    assert!(rule(err).contains("one element per group"));
    let err = c
        .tquant_mx_zz(
            &d.with_valid(8, 64).unwrap(),
            &s.with_valid(8, 64).unwrap(),
            &e,
            &m,
            &sc2,
            &zz,
        )
        .unwrap_err();
    assert!(rule(err).contains("multiple of 16"));
    let err = c
        .tquant_mx_zz(
            &d.with_valid(16, 32).unwrap(),
            &s.with_valid(16, 32).unwrap(),
            &e,
            &m,
            &sc2,
            &zz,
        )
        .unwrap_err();
    assert!(rule(err).contains("multiple of 64"));
    let zbad = c
        .alloc(TileDesc::vec(ElemType::I8, 1, 32).at(0xf000))
        .unwrap();
    assert!(matches!(
        c.tquant_mx_zz(&d, &s, &e, &m, &sc2, &zbad),
        Err(PtoError::IllegalType {
            operand: "exp_zz",
            ..
        })
    ));
    let mut a2 = TileCore::by_name("a2a3").unwrap();
    let s = a2.alloc(TileDesc::vec(f, 16, 64).at(0)).unwrap();
    let err = a2.tquant_mx_zz(&d, &s, &e, &m, &sc2, &zz).unwrap_err();
    assert!(rule(err).contains("A5 only"));
}
