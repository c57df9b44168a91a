//! Property tests of the elementwise and tile-scalar families against a plain scalar model
//! written here (f64 arithmetic rounded once, i128 arithmetic wrapped), per chip profile, over
//! random shapes, valid regions and special-heavy values, through `exec`, the plain path and a
//! prepared op; and of the fast row engine against its element-by-element twin.

mod common;
use common::*;
use npusim_pto::*;
use proptest::prelude::*;

fn fmin(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        return f64::NAN;
    }
    if a == b {
        return if b.is_sign_negative() { b } else { a };
    }
    if b < a { b } else { a }
}
fn fmax(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        return f64::NAN;
    }
    if a == b {
        return if a.is_sign_negative() && !b.is_sign_negative() {
            b
        } else {
            a
        };
    }
    if a < b { b } else { a }
}

/// The model: one element of `op` on decoded inputs `a` (src0), `b` (src1 or scalar),
/// `c` (src2 / dst for RMW ops). Returns `None` for "integer division by zero".
fn model(op: OpCode, t: ElemType, a: V, b: V, c: V, arch: npusim_core::TileArch) -> Option<u64> {
    use OpCode::*;
    let bits = t.bits();
    let r = match (a, b, c) {
        (V::F(x), V::F(y), V::F(z)) => {
            // f32 intermediate for the transcendental formulas (same formula as the crate).
            let via32 = |v: f64| V::F(v as f32 as f64);
            match op {
                Tadd | Tadds => V::F(x + y),
                Tsub | Tsubs => V::F(x - y),
                Tmul | Tmuls => V::F(x * y),
                Tdiv => V::F(x / y),
                Tdivs => {
                    if arch == npusim_core::TileArch::A5 {
                        let rec = decode(t, encode(t, V::F(1.0 / y)));
                        let V::F(rec) = rec else { unreachable!() };
                        V::F(x * rec)
                    } else {
                        V::F(x / y)
                    }
                }
                Tmin | Tmins => V::F(fmin(x, y)),
                Tmax | Tmaxs => V::F(fmax(x, y)),
                Trem | Trems => {
                    let m = x % y;
                    V::F(if m != 0.0 && (m < 0.0) != (y < 0.0) {
                        m + y
                    } else {
                        m
                    })
                }
                Tfmod | Tfmods => V::F(x % y),
                Tpow | Tpows => via32(x.powf(y)),
                Tabs => V::F(x.abs()),
                Tneg => V::F(-x),
                Texp => via32(x.exp()),
                Tlog => via32(x.ln()),
                Tsqrt => V::F(x.sqrt()),
                Trsqrt => via32(1.0 / x.sqrt()),
                Trecip => V::F(1.0 / x),
                Trelu => V::F(fmax(x, 0.0)),
                Tprelu => V::F(if x > 0.0 { x } else { x * y }),
                Tlrelu => V::F(if x > 0.0 { x } else { x * y }),
                Tsubrelu => V::F(fmax(x - y, 0.0)),
                Tmuladddst => fused(t, x, y, z),
                Tfusedmuladd => fused(t, x, z, y),
                Tfusedmuladdrelu => {
                    let V::F(v) = decode(t, encode(t, fused(t, x, z, y))) else {
                        unreachable!()
                    };
                    V::F(fmax(v, 0.0))
                }
                Taxpy => fused(t, y, x, z),
                Taddc | Taddsc => sum3(x, y, z)?,
                Tsubc | Tsubsc => sum3(x, -y, z)?,
                _ => panic!("op {op:?} is not modelled"),
            }
        }
        (V::I(x), V::I(y), V::I(z)) => {
            let signed = t.is_signed_int();
            let wrap = |v: i128| -> i128 {
                let m = v & ((1i128 << bits) - 1);
                if signed && m >= 1i128 << (bits - 1) {
                    m - (1i128 << bits)
                } else {
                    m
                }
            };
            let sh = (y as u64 & (bits as u64 - 1)) as u32;
            V::I(match op {
                Tadd | Tadds => x + y,
                Tsub | Tsubs => x - y,
                Tmul | Tmuls => x.wrapping_mul(y),
                Tdiv | Tdivs => {
                    if y == 0 {
                        return None;
                    }
                    wrap(x / y)
                }
                Trecip => {
                    if x == 0 {
                        return None;
                    }
                    1 / x
                }
                Tmin | Tmins => x.min(y),
                Tmax | Tmaxs => x.max(y),
                Trem | Trems => {
                    if y == 0 {
                        return None;
                    }
                    x.rem_euclid(y) + if y < 0 && x.rem_euclid(y) != 0 { y } else { 0 }
                }
                Tfmod | Tfmods => {
                    if y == 0 {
                        return None;
                    }
                    x % y
                }
                Tpow | Tpows => {
                    if y < 0 {
                        if x == 1 {
                            1
                        } else if x == -1 {
                            if y % 2 == 0 { 1 } else { -1 }
                        } else {
                            0
                        }
                    } else {
                        let mut acc: i128 = 1;
                        for _ in 0..(y.min(200)) {
                            acc = wrap(acc.wrapping_mul(x));
                        }
                        if y > 200 {
                            // long exponents: compare against repeated squaring instead
                            let (mut r, mut b, mut e) = (1i128, x, y);
                            while e > 0 {
                                if e & 1 == 1 {
                                    r = wrap(r.wrapping_mul(b));
                                }
                                b = wrap(b.wrapping_mul(b));
                                e >>= 1;
                            }
                            acc = r;
                        }
                        acc
                    }
                }
                Tabs => x.abs(),
                Tneg => -x,
                Trelu => x.max(0),
                Tnot => !x,
                Tand | Tands => x & y,
                Tor | Tors => x | y,
                Txor | Txors => x ^ y,
                Tshl | Tshls => x << sh,
                Tshr | Tshrs => {
                    if signed {
                        x >> sh
                    } else {
                        (x as u128 >> sh) as i128
                    }
                }
                Taddc | Taddsc => x + y + z,
                Tsubc | Tsubsc => x - y + z,
                _ => panic!("op {op:?} is not modelled"),
            })
        }
        _ => unreachable!(),
    };
    Some(encode(t, r))
}

/// `x + y + z` when f64 holds it exactly (TwoSum errors zero); `Some(u64::MAX)`-style skip
/// otherwise is signalled by returning `None` from the caller's `?` (handled as "skip").
fn sum3(x: f64, y: f64, z: f64) -> Option<V> {
    let s1 = x + y;
    let s2 = s1 + z;
    let exact = |a: f64, b: f64, s: f64| {
        let bb = s - a;
        (a - (s - bb)) + (b - bb) == 0.0
    };
    if !s2.is_finite() || (exact(x, y, s1) && exact(s1, z, s2)) {
        Some(V::F(s2))
    } else {
        SKIP.with(|k| k.set(true));
        Some(V::F(f64::NAN))
    }
}

thread_local! { static SKIP: std::cell::Cell<bool> = const { std::cell::Cell::new(false) }; }

/// `x * y + z` rounded once: f32 through its hardware-free correctly rounded `mul_add`, f16
/// through f64 `mul_add` (exact enough for f16's range) and a correct narrowing.
fn fused(t: ElemType, x: f64, y: f64, z: f64) -> V {
    match t {
        ElemType::F32 => V::F((x as f32).mul_add(y as f32, z as f32) as f64),
        _ => V::F(x.mul_add(y, z)),
    }
}

#[derive(Debug, Clone)]
struct Case {
    chip: usize,
    dt: usize,
    rows: usize,
    blocks: usize,
    vr: usize,
    vc: usize,
    data: Vec<(u64, u8)>,
    scalar: (u64, u8),
}

fn case() -> impl Strategy<Value = Case> {
    (
        0..2usize,
        0..16usize,
        1..5usize,
        1..4usize,
        0..100usize,
        0..100usize,
        proptest::collection::vec((any::<u64>(), 0..12u8), 4 * 4 * 3 * 32),
        (any::<u64>(), 0..12u8),
    )
        .prop_map(|(chip, dt, rows, blocks, vr, vc, data, scalar)| Case {
            chip,
            dt,
            rows,
            blocks,
            vr,
            vc,
            data,
            scalar,
        })
}

/// How the instruction is executed: `exec` of a `TileOp` (fast engine), `exec` with the plain
/// element-by-element path, or `run` of the op prepared once (checks done and, where possible,
/// the element function bound to the operands at preparation).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Path {
    Exec,
    Plain,
    Prepared,
}

fn run(op: OpCode, c: &Case, path: Path) -> Result<(), TestCaseError> {
    let mut core = TileCore::by_name(["a2a3", "a5"][c.chip]).unwrap();
    let arch = core.arch();
    core.set_reference(path == Path::Plain);
    let legal = op.legal(arch);
    let t = legal[c.dt % legal.len()];
    let (rows, cols) = (
        c.rows,
        c.blocks * block(t) * if c.blocks == 3 { 3 } else { 1 },
    );
    let (vr, vc) = (c.vr % (rows + 1), c.vc % (cols + 1));
    let stride = ((rows * cols * t.size()) as u64).div_ceil(32) * 32 + 64;
    let mk = |k: u64| {
        core.alloc(TileDesc::vec(t, rows, cols).valid(vr, vc).at(k * stride))
            .unwrap()
    };
    let tiles: Vec<Tile> = (0..4).map(|k| mk(k as u64)).collect();
    let mut data = c.data.iter().map(|(b, s)| special(t, *b, *s));
    let mut init = vec![vec![0u64; rows * cols]; 4];
    for (k, tile) in tiles.iter().enumerate() {
        let whole = tile.with_valid(rows, cols).unwrap();
        for r in 0..rows {
            for cc in 0..cols {
                let v = data.next().unwrap_or(0);
                init[k][r * cols + cc] = v;
                core.set_bits(&whole, r, cc, v).unwrap();
            }
        }
    }
    let sbits = special(t, c.scalar.0, c.scalar.1);
    let sval = decode(t, sbits);
    let scalar = match sval {
        V::F(x) => Scalar::Float(x),
        V::I(i) => Scalar::Int(i as i64),
    };
    let (d, s0, s1, s2) = (tiles[0], tiles[1], tiles[2], tiles[3]);
    let class = op.info().class;
    let args = match class {
        Class::Unary => Args::Unary { dst: d, src: s0 },
        Class::Binary => Args::Binary {
            dst: d,
            src0: s0,
            src1: s1,
        },
        Class::Ternary => Args::Ternary {
            dst: d,
            src0: s0,
            src1: s1,
            src2: s2,
        },
        Class::TileScalar => Args::TileScalar {
            dst: d,
            src: s0,
            scalar,
        },
        Class::TileScalarTile => Args::TileScalarTile {
            dst: d,
            src0: s0,
            scalar,
            src1: s2,
        },
        _ => return Ok(()),
    };
    let res = match path {
        Path::Prepared => {
            let p = core.prepare(TileOp { op, args });
            core.run(&p)
        }
        _ => core.exec(&TileOp { op, args }),
    };
    // Expected results.
    let mut div_zero = false;
    let mut want = init[0].clone();
    for r in 0..vr {
        for cc in 0..vc {
            let i = r * cols + cc;
            let a = decode(t, init[1][i]);
            let b = match class {
                Class::TileScalar | Class::TileScalarTile => sval,
                _ => decode(t, init[2][i]),
            };
            let z = match op {
                OpCode::Tmuladddst
                | OpCode::Tfusedmuladd
                | OpCode::Tfusedmuladdrelu
                | OpCode::Taxpy => decode(t, init[0][i]),
                _ => decode(t, init[3][i]),
            };
            SKIP.with(|k| k.set(false));
            match model(op, t, a, b, z, arch) {
                Some(_) if SKIP.with(|k| k.get()) => want[i] = u64::MAX, // not exactly representable in the f64 model
                Some(v) => want[i] = v,
                None => div_zero = true,
            }
        }
    }
    let neg_shift = matches!(op, OpCode::Tshls | OpCode::Tshrs) && matches!(sval, V::I(i) if i < 0);
    if neg_shift {
        prop_assert!(matches!(res, Err(PtoError::Scalar { .. })), "{res:?}");
        return Ok(());
    }
    if div_zero {
        prop_assert!(
            matches!(res, Err(PtoError::DivByZero { .. })),
            "{op:?} {t}: {res:?}"
        );
        return Ok(());
    }
    prop_assert!(res.is_ok(), "{op:?} {t}: {res:?}");
    let whole = d.with_valid(rows, cols).unwrap();
    for r in 0..rows {
        for cc in 0..cols {
            let got = core.get_bits(&whole, r, cc).unwrap();
            let w = want[r * cols + cc];
            let ok = (t.is_float() && w == u64::MAX) || same(t, got, w);
            prop_assert!(
                ok,
                "{op:?} {t} {arch:?} ({r},{cc}) valid {vr}x{vc}: got {got:#x} want {w:#x}; inputs {:#x} {:#x} {:#x} scalar {:#x}",
                init[1][r * cols + cc],
                init[2][r * cols + cc],
                init[3][r * cols + cc],
                sbits
            );
        }
    }
    Ok(())
}

macro_rules! prop_ops {
    ($($name:ident $op:ident),*) => {
        proptest! {
            #![proptest_config(ProptestConfig::with_cases(32))]
            $(
                #[test]
                fn $name(c in case()) {
                    run(OpCode::$op, &c, Path::Exec)?;
                    run(OpCode::$op, &c, Path::Plain)?;
                    run(OpCode::$op, &c, Path::Prepared)?;
                }
            )*
        }
    };
}

prop_ops!(
    tadd Tadd, tsub Tsub, tmul Tmul, tdiv Tdiv, tmin Tmin, tmax Tmax, trem Trem, tfmod Tfmod, tpow Tpow,
    taddc Taddc, tsubc Tsubc, tabs Tabs, tneg Tneg, texp Texp, tlog Tlog, tsqrt Tsqrt, trsqrt Trsqrt,
    trecip Trecip, trelu Trelu, tnot Tnot, tand Tand, tor Tor, txor Txor, tshl Tshl, tshr Tshr, tprelu Tprelu,
    tmuladddst Tmuladddst, tfusedmuladd Tfusedmuladd, tfusedmuladdrelu Tfusedmuladdrelu, tsubrelu Tsubrelu,
    tadds Tadds, tsubs Tsubs, tmuls Tmuls, tdivs Tdivs, tmaxs Tmaxs, tmins Tmins, trems Trems, tfmods Tfmods,
    tpows Tpows, tands Tands, tors Tors, txors Txors, tshls Tshls, tshrs Tshrs, tlrelu Tlrelu, taxpy Taxpy,
    taddsc Taddsc, tsubsc Tsubsc
);

/// Transcendentals against f64 within an ulp bound of the element type.
#[test]
fn transcendentals_within_one_ulp_of_f64() {
    let mut core = TileCore::by_name("a5").unwrap();
    for t in [ElemType::F16, ElemType::F32] {
        let src = core.alloc(TileDesc::vec(t, 4, 64).at(0)).unwrap();
        let dst = core.alloc(TileDesc::vec(t, 4, 64).at(0x1000)).unwrap();
        let xs: Vec<f64> = (0..256).map(|i| 0.01 + i as f64 * 0.037).collect();
        for (i, x) in xs.iter().enumerate() {
            core.set_bits(&src, i / 64, i % 64, encode(t, V::F(*x)))
                .unwrap();
        }
        for (op, f) in [
            (OpCode::Texp, f64::exp as fn(f64) -> f64),
            (OpCode::Tlog, f64::ln),
            (OpCode::Trsqrt, |x: f64| 1.0 / x.sqrt()),
        ] {
            core.unary(op, &dst, &src).unwrap();
            for i in 0..256 {
                let V::F(x) = decode(t, core.get_bits(&src, i / 64, i % 64).unwrap()) else {
                    unreachable!()
                };
                let got = core.get_bits(&dst, i / 64, i % 64).unwrap();
                let exact = encode(t, V::F(f(x)));
                assert!(
                    (got as i64 - exact as i64).abs() <= 1,
                    "{op:?} {t} x={x}: {got:#x} vs {exact:#x}"
                );
            }
        }
    }
}

/// The fast row engine against the plain path on wide rows (several chunks), non-zero
/// addresses and in-place operation.
#[test]
fn fast_path_equals_plain_path_in_place() {
    for t in [ElemType::F16, ElemType::Bf16, ElemType::F32, ElemType::I16] {
        let mut cores: Vec<TileCore> = (0..2).map(|_| TileCore::by_name("a5").unwrap()).collect();
        cores[1].set_reference(true);
        let mut results = vec![];
        for core in cores.iter_mut() {
            let a = core
                .alloc(TileDesc::vec(t, 3, 160).valid(3, 150).at(0x2000))
                .unwrap();
            let b = core
                .alloc(TileDesc::vec(t, 3, 160).valid(3, 150).at(0x8000))
                .unwrap();
            for r in 0..3 {
                for c in 0..160 {
                    core.set_bits(
                        &a,
                        r,
                        c,
                        special(t, (r * 977 + c * 131) as u64, (c % 12) as u8),
                    )
                    .unwrap();
                    core.set_bits(
                        &b,
                        r,
                        c,
                        special(t, (r * 17 + c * 7919) as u64, ((c + 3) % 12) as u8),
                    )
                    .unwrap();
                }
            }
            core.tmul(&a, &a, &b).unwrap();
            core.tadd(&a, &a, &b).unwrap();
            // In place as the second operand too.
            core.tsub(&a, &b, &a).unwrap();
            // Both operands in place, and a unary in place.
            core.tadd(&a, &a, &a).unwrap();
            if t != ElemType::Bf16 {
                core.tabs(&a, &a).unwrap();
            }
            results.push(core.mem(TileLoc::Vec).as_slice()[0x2000..0x4000].to_vec());
        }
        let (x, y) = (&results[0], &results[1]);
        for i in (0..x.len()).step_by(t.size()) {
            let g = |v: &Vec<u8>| {
                let mut w = [0u8; 8];
                w[..t.size()].copy_from_slice(&v[i..i + t.size()]);
                u64::from_le_bytes(w)
            };
            assert!(same(t, g(x), g(y)), "{t} byte {i}");
        }
    }
}
