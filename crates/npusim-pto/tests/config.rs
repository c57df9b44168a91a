//! The configuration-state instructions (ops::config): SET_QUANT_SCALAR, SET_QUANT_VECTOR,
//! SETHF32MODE, SETTF32MODE. The f32 input rounding is checked against a plain model written
//! here in f64 arithmetic (the value divided by its ulp at the kept width, rounded to an
//! integer with the mode's tie rule, multiplied back), on both archs, with special values;
//! the quant word against the page's encoding (f32 bits, bit 46 for int8); one test per
//! restriction of the pages.

use npusim_core::convert::RoundMode;
use npusim_pto::ops::config::{CubeF32Mode, cube_f32_input, quant_scalar_word};
use npusim_pto::*;
use proptest::prelude::*;

/// `x` rounded to `bits` mantissa bits in f64: ulp = 2^(e - bits) with e the binade of |x|
/// (at least -126, denormals sharing the lowest binade's ulp).
fn model(x: f32, bits: i32, away: bool) -> f32 {
    if !x.is_finite() || x == 0.0 {
        return x;
    }
    let a = (x as f64).abs();
    let e = (a.log2().floor() as i32).max(-126);
    // log2 of values just under a power of two can round up; correct the binade exactly.
    let e = if 2f64.powi(e) > a { e - 1 } else { e };
    let e = e.max(-126);
    let ulp = 2f64.powi(e - bits);
    let q = a / ulp;
    let fl = q.floor();
    let frac = q - fl;
    let n = if frac > 0.5 {
        fl + 1.0
    } else if frac < 0.5 {
        fl
    } else if away || fl % 2.0 == 1.0 {
        fl + 1.0
    } else {
        fl
    };
    let r = (n * ulp) as f32;
    if x < 0.0 { -r } else { r }
}

fn f32_values() -> impl Strategy<Value = f32> {
    prop_oneof![
        4 => any::<u32>().prop_map(f32::from_bits),
        2 => -1e6f32..1e6,
        // Exact ties and near-ties at the 10/11-bit positions.
        2 => (any::<u32>(), 0u32..4).prop_map(|(b, k)| f32::from_bits((b & !0x1fff) | [0x1000, 0x0800, 0x0fff, 0x0801][k as usize])),
        1 => prop::sample::select(vec![0.0f32, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, f32::MAX, -f32::MAX, f32::MIN_POSITIVE, 1e-45, -1e-45, 1.0, -1.0, 1.0 + 2f32.powi(-11), 1.0 + 3.0 * 2f32.powi(-12)]),
    ]
}

fn mode_op(c: &mut TileCore, op: OpCode, enable: bool, mode: RoundMode) -> Result<(), PtoError> {
    c.exec(&TileOp {
        op,
        args: Args::F32Mode { enable, mode },
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn cube_f32_modes_round_like_the_model(
        a5 in any::<bool>(),
        tf32 in any::<bool>(),
        away in any::<bool>(),
        xs in prop::collection::vec(f32_values(), 16),
    ) {
        let mut c = TileCore::by_name(if a5 { "a5" } else { "a2a3" }).unwrap();
        prop_assert_eq!(c.cube_f32_mode(), CubeF32Mode::Ieee);
        let mode = if away { RoundMode::Round } else { RoundMode::Rint };
        let op = if tf32 { OpCode::Settf32mode } else { OpCode::Sethf32mode };
        mode_op(&mut c, op, true, mode).unwrap();
        // TF32 exists on A5 only (a no-op on A2A3); HF32 on both.
        let bits = match (tf32, a5) {
            (true, true) => Some(10),
            (true, false) => None,
            (false, _) => Some(11),
        };
        let m = c.cube_f32_mode();
        for &x in &xs {
            let got = cube_f32_input(m, x);
            match bits {
                None => prop_assert_eq!(got.to_bits(), x.to_bits()),
                Some(b) => {
                    let want = model(x, b, away);
                    prop_assert!(
                        got.to_bits() == want.to_bits() || (x.is_nan() && got.is_nan()),
                        "x {:e} ({:#x}) bits {} away {}: got {:e} want {:e}", x, x.to_bits(), b, away, got, want
                    );
                }
            }
        }
        // Disabling returns to full f32.
        mode_op(&mut c, op, false, RoundMode::Rint).unwrap();
        prop_assert_eq!(c.cube_f32_mode(), CubeF32Mode::Ieee);
    }

    #[test]
    fn quant_scalar_word_is_the_page_encoding(
        a5 in any::<bool>(),
        scale in f32_values(),
        out in prop::sample::select(vec![ElemType::I8, ElemType::U8, ElemType::I16, ElemType::Bf16, ElemType::F16]),
    ) {
        let mut c = TileCore::by_name(if a5 { "a5" } else { "a2a3" }).unwrap();
        c.exec(&TileOp { op: OpCode::SetQuantScalar, args: Args::QuantScalar { out, scale: Scalar::Float(scale as f64) } }).unwrap();
        let sign = if out == ElemType::I8 { 1u64 << 46 } else { 0 };
        // A scale that is not NaN goes through f64 and back unchanged.
        let want = (scale.to_bits() as u64) | sign;
        let got = c.config_state().quant_scalar.unwrap();
        if scale.is_nan() {
            prop_assert!(f32::from_bits(got as u32).is_nan() && got >> 32 == sign >> 32);
        } else {
            prop_assert_eq!(got, want);
        }
        prop_assert_eq!(quant_scalar_word(out, 0.5).unwrap(), 0x3f00_0000 | sign);
    }
}

#[test]
fn worked_values() {
    // 1 + 2^-11 is an HF32 value; under TF32 it is an exact tie (1.0 or 1 + 2^-10).
    let x = 1.0 + 2f32.powi(-11);
    assert_eq!(cube_f32_input(CubeF32Mode::Hf32 { away: false }, x), x);
    assert_eq!(cube_f32_input(CubeF32Mode::Tf32 { away: false }, x), 1.0);
    assert_eq!(
        cube_f32_input(CubeF32Mode::Tf32 { away: true }, x),
        1.0 + 2f32.powi(-10)
    );
    // The largest f32 rounds up to infinity; the sign and zeros stay.
    assert_eq!(
        cube_f32_input(CubeF32Mode::Hf32 { away: false }, -f32::MAX),
        f32::NEG_INFINITY
    );
    assert_eq!(
        cube_f32_input(CubeF32Mode::Hf32 { away: true }, -0.0).to_bits(),
        (-0.0f32).to_bits()
    );
}

#[test]
fn config_restrictions() {
    let rule = |e: PtoError| match e {
        PtoError::Static { rule, .. } => rule.to_string(),
        e => e.to_string(),
    };
    let mut c = TileCore::by_name("a5").unwrap();
    // Modes other than CAST_ROUND / CAST_RINT.
    for m in [
        RoundMode::Floor,
        RoundMode::Ceil,
        RoundMode::Trunc,
        RoundMode::Odd,
    ] {
        for op in [OpCode::Sethf32mode, OpCode::Settf32mode] {
            let err = mode_op(&mut c, op, true, m).unwrap_err();
            assert!(
                rule(err).contains("CAST_ROUND or CAST_RINT"),
                "{op:?} {m:?}"
            );
        }
    }
    assert_eq!(
        c.cube_f32_mode(),
        CubeF32Mode::Ieee,
        "a refused mode sets nothing"
    );
    // SET_QUANT_SCALAR's output types.
    for t in [ElemType::F32, ElemType::I32, ElemType::U16] {
        let err = c
            .exec(&TileOp {
                op: OpCode::SetQuantScalar,
                args: Args::QuantScalar {
                    out: t,
                    scale: Scalar::Float(1.0),
                },
            })
            .unwrap_err();
        assert!(
            matches!(
                err,
                PtoError::IllegalType {
                    operand: "OutType",
                    ..
                }
            ),
            "{err}"
        );
    }
    assert_eq!(c.config_state().quant_scalar, None);
    // SET_QUANT_VECTOR takes a Scaling tile only; it records the tile's address.
    let v = c
        .alloc(TileDesc::vec(ElemType::U64, 1, 32).at(0x100))
        .unwrap();
    let err = c.set_quant_vector(&v).unwrap_err();
    assert!(rule(err).contains("Scaling tile"));
    let fp = c
        .alloc(TileDesc::new(TileLoc::Scaling, ElemType::U64, 1, 32).at(0x40))
        .unwrap();
    c.exec(&TileOp {
        op: OpCode::SetQuantVector,
        args: Args::QuantVector { fp },
    })
    .unwrap();
    assert_eq!(c.config_state().quant_vector, Some(0x40));
    // A wrong operand form is a typed error.
    let err = c
        .exec(&TileOp {
            op: OpCode::Sethf32mode,
            args: Args::QuantVector { fp },
        })
        .unwrap_err();
    assert!(matches!(err, PtoError::Operands { .. }), "{err}");
}

/// SETHF32MODE / SETTF32MODE reach TMATMUL: a matmul of raw f32 inputs under the mode equals,
/// bit for bit, the plain matmul of the inputs rounded by this file's model; with the mode off
/// (or TF32 on A2A3) it equals the plain matmul of the raw inputs; and the inputs are chosen
/// so that rounding them changes the result.
#[test]
fn f32_modes_round_the_matmul_inputs() {
    fn tiles(core: &TileCore) -> (Tile, Tile, Tile) {
        let l = core
            .alloc(
                TileDesc::new(TileLoc::Left, ElemType::F32, 16, 32)
                    .layout(BLayout::ColMajor, SLayout::RowMajor)
                    .valid(16, 32),
            )
            .unwrap();
        let r = core
            .alloc(
                TileDesc::new(TileLoc::Right, ElemType::F32, 32, 32)
                    .layout(BLayout::RowMajor, SLayout::ColMajor)
                    .valid(32, 32),
            )
            .unwrap();
        let c = core
            .alloc(
                TileDesc::new(TileLoc::Acc, ElemType::F32, 16, 32)
                    .layout(BLayout::ColMajor, SLayout::RowMajor)
                    .fractal(1024)
                    .valid(16, 32),
            )
            .unwrap();
        (l, r, c)
    }
    // Inputs with low mantissa bits set (1 + k * 2^-20), so 10/11-bit rounding moves them.
    let input = |i: usize| {
        (1.0 + (i % 97) as f32 * 2f32.powi(-20)) * if i.is_multiple_of(3) { -1.5 } else { 0.75 }
    };
    // Fills a tile's bytes (whatever its layout) with f(index) as f32, and returns the Acc bits.
    fn run(arch: &str, mode: Option<(OpCode, RoundMode)>, f: &dyn Fn(usize) -> f32) -> Vec<u8> {
        let mut core = TileCore::by_name(arch).unwrap();
        if let Some((op, rm)) = mode {
            mode_op(&mut core, op, true, rm).unwrap();
        }
        let (l, r, c) = tiles(&core);
        for (loc, n) in [(TileLoc::Left, 16 * 32), (TileLoc::Right, 32 * 32)] {
            let mem = core.mem_mut(loc);
            for i in 0..n {
                mem[4 * i..4 * i + 4].copy_from_slice(
                    &f(i + if loc == TileLoc::Right { 1000 } else { 0 }).to_le_bytes(),
                );
            }
        }
        core.tmatmul(&c, &l, &r).unwrap();
        core.mem(TileLoc::Acc).as_slice()[..16 * 32 * 4].to_vec()
    }
    for arch in ["a2a3", "a5"] {
        let plain = run(arch, None, &input);
        for (op, bits) in [(OpCode::Sethf32mode, 11), (OpCode::Settf32mode, 10)] {
            for (rm, away) in [(RoundMode::Rint, false), (RoundMode::Round, true)] {
                let got = run(arch, Some((op, rm)), &input);
                if op == OpCode::Settf32mode && arch == "a2a3" {
                    assert_eq!(got, plain, "{arch} TF32 is a no-op");
                    continue;
                }
                let want = run(arch, None, &|i| model(input(i), bits, away));
                assert_eq!(got, want, "{arch} {op:?} {rm:?}");
                assert_ne!(got, plain, "{arch} {op:?} {rm:?}: rounding changed nothing");
            }
        }
    }
}
