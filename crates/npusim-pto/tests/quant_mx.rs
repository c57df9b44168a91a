//! TQUANT's MX forms (pto-isa `docs/isa/TQUANT.md` "MX formats", `docs/isa/TQUANT_DN.md`)
//! against a plain model written here from the pages' three stages: the group's largest
//! magnitude; the E8M0 exponent (OCP: biased exponent of the max minus E4M3's emax 8, at
//! least 0; NV: `ceil(log2(max / 448))` biased, capped at 254) and the scaling `2^(127 - e)`;
//! the E4M3FN code nearest to `x * scaling` clipped to ±448 (ties to the even code, found by
//! searching all 256 codes). Groups of 32 along the columns (ND) or the rows (DN); f32, f16
//! and bf16 sources with special values; the A5 only rule and one test per restriction.

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
        MxQuantAlg::NvMxFp8E4M3 => {
            let d = m * (1.0f32 / 448.0);
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
