//! `TileCore::run` of a prepared op against `TileCore::exec` of the same op.
//!
//! Preparation runs the static checks once and may bind the element function to the operands;
//! whatever it decided, `run` must leave the same bytes and return the same result as `exec`.
//! The property test draws mostly *bad* operands (mixed element types, Mat tiles, col-major
//! tiles, misaligned or out-of-capacity addresses, mismatched or oversized valid regions,
//! partially overlapping operands) and changes the core between preparation and execution.

mod common;
use common::*;
use npusim_core::TileArch;
use npusim_pto::*;
use proptest::prelude::*;

const OPS: &[OpCode] = &[
    OpCode::Tadd,
    OpCode::Tsub,
    OpCode::Tmul,
    OpCode::Tdiv,
    OpCode::Tmax,
    OpCode::Trem,
    OpCode::Tand,
    OpCode::Tshl,
    OpCode::Tprelu,
    OpCode::Tmuladddst,
    OpCode::Taddc,
    OpCode::Tabs,
    OpCode::Texp,
    OpCode::Trecip,
    OpCode::Tnot,
    OpCode::Tadds,
    OpCode::Tdivs,
    OpCode::Tmins,
    OpCode::Tshrs,
    OpCode::Tlrelu,
    OpCode::Taxpy,
    OpCode::Taddsc,
    OpCode::Tsubsc,
    OpCode::Texpands,
    OpCode::Trowsum,
];

const TYPES: &[ElemType] = &[
    ElemType::F32,
    ElemType::F16,
    ElemType::Bf16,
    ElemType::I32,
    ElemType::I16,
    ElemType::U8,
];

#[derive(Clone, Debug)]
struct Operand {
    /// Index into TYPES shifted by 3; 0..3 mean "dst's type" (the common, legal case).
    dtype: usize,
    mat: bool,
    col_major: bool,
    /// Address in 32-byte units; `odd` adds 16 bytes (misaligned).
    slot: u64,
    odd: bool,
    /// Valid-region perturbation: 0 = dst's, else a different one.
    valid: usize,
}

fn operand() -> impl Strategy<Value = Operand> {
    (
        prop_oneof![8 => 0..3usize, 1 => 3..TYPES.len() + 3],
        prop::bool::weighted(0.03),
        prop::bool::weighted(0.03),
        prop_oneof![
            6 => (0..8u64).prop_map(|k| 8 * k),
            2 => 0..64u64,
            1 => prop_oneof![Just(6140u64), Just(6200u64)],
        ],
        prop::bool::weighted(0.03),
        prop_oneof![8 => Just(0usize), 1 => 1..4usize],
    )
        .prop_map(|(dtype, mat, col_major, slot, odd, valid)| Operand {
            dtype,
            mat,
            col_major,
            slot,
            odd,
            valid,
        })
}

#[derive(Clone, Debug)]
struct Case {
    op: usize,
    chip: usize,
    /// Below 10: the op's `dst_type % n`-th legal type on the chip; else `TYPES[dst_type - 10]`.
    dst_type: usize,
    rows: usize,
    vr: usize,
    vc: usize,
    operands: [Operand; 4],
    scalar: (u64, u8),
    fill: Vec<(u64, u8)>,
    /// 0: run on the preparing core; 1: switch it to the pto-cpu-sim policy first; 2: run on a
    /// fresh core of the other chip; 3: run on a clone.
    switch: usize,
    scalar_tile: bool,
}

fn case() -> impl Strategy<Value = Case> {
    (
        (
            0..OPS.len(),
            0..2usize,
            prop_oneof![4 => 0..10usize, 1 => 10..10 + TYPES.len()],
            1..5usize,
            0..6usize,
        ),
        0..40usize,
        [operand(), operand(), operand(), operand()],
        (any::<u64>(), 0..12u8),
        proptest::collection::vec((any::<u64>(), 0..12u8), 512),
        prop_oneof![4 => Just(0usize), 1 => 1..4usize],
        prop::bool::weighted(0.2),
    )
        .prop_map(
            |((op, chip, dst_type, rows, vr), vc, operands, scalar, fill, switch, scalar_tile)| {
                Case {
                    op,
                    chip,
                    dst_type,
                    rows,
                    vr,
                    vc,
                    operands,
                    scalar,
                    fill,
                    switch,
                    scalar_tile,
                }
            },
        )
}

const CHIPS: [&str; 2] = ["a2a3", "a5"];

/// Builds the tiles without the address checks (those are the instruction's to make).
fn tile(c: &Case, o: &Operand, dst_t: ElemType) -> Option<Tile> {
    let t = if o.dtype < 3 {
        dst_t
    } else {
        TYPES[o.dtype - 3]
    };
    let cols = 32 / t.size() * 2;
    let (vr, vc) = match o.valid {
        0 => (c.vr.min(c.rows), c.vc.min(cols)),
        1 => (c.rows, cols),
        2 => (c.vr.min(c.rows) / 2, c.vc.min(cols)),
        _ => (c.vr.min(c.rows), c.vc.min(cols) / 2),
    };
    let mut d = TileDesc::vec(t, c.rows, cols).valid(vr, vc);
    if o.mat {
        d.loc = TileLoc::Mat;
    }
    if o.col_major {
        d = d.layout(BLayout::ColMajor, SLayout::NoneBox);
    }
    d = d.at(o.slot * 32 + if o.odd { 16 } else { 0 });
    Tile::validate(d, "test", "operand").ok()
}

fn fill(core: &mut TileCore, c: &Case) {
    let mut vals = c.fill.iter().cycle();
    for loc in [TileLoc::Vec, TileLoc::Mat] {
        let m = core.mem_mut(loc);
        for chunk in m[..64 * 32 + 256].chunks_mut(8) {
            let (b, s) = vals.next().unwrap();
            let bits = special(ElemType::F16, *b, *s) | (special(ElemType::F32, *b >> 7, *s) << 16);
            let n = chunk.len();
            chunk.copy_from_slice(&bits.to_le_bytes()[..n]);
        }
    }
}

fn build(c: &Case) -> Option<TileOp> {
    let op = OPS[c.op];
    let arch = [TileArch::A2A3, TileArch::A5][c.chip];
    let legal = op.legal(arch);
    let dst_t = match c.dst_type {
        k if k < 10 && !legal.is_empty() => legal[k % legal.len()],
        k => TYPES[k.saturating_sub(10) % TYPES.len()],
    };
    let t: Vec<Tile> = c
        .operands
        .iter()
        .map(|o| tile(c, o, dst_t))
        .collect::<Option<_>>()?;
    let sbits = special(dst_t, c.scalar.0, c.scalar.1);
    let scalar = match decode(dst_t, sbits) {
        V::F(x) => Scalar::Float(x),
        V::I(i) => Scalar::Int(i as i64),
    };
    let args = match op.info().class {
        Class::Unary | Class::RowReduce => Args::Unary {
            dst: t[0],
            src: t[1],
        },
        Class::Binary => Args::Binary {
            dst: t[0],
            src0: t[1],
            src1: t[2],
        },
        Class::Ternary => Args::Ternary {
            dst: t[0],
            src0: t[1],
            src1: t[2],
            src2: t[3],
        },
        Class::TileScalar if c.scalar_tile => Args::ScalarTile {
            dst: t[0],
            scalar,
            src: t[1],
        },
        Class::TileScalar => Args::TileScalar {
            dst: t[0],
            src: t[1],
            scalar,
        },
        Class::TileScalarTile => Args::TileScalarTile {
            dst: t[0],
            src0: t[1],
            scalar,
            src1: t[2],
        },
        Class::Fill => Args::Fill { dst: t[0], scalar },
        _ => return None,
    };
    Some(TileOp { op, args })
}

fn snapshot(core: &TileCore) -> Vec<Vec<u8>> {
    [TileLoc::Vec, TileLoc::Mat]
        .iter()
        .map(|l| core.mem(*l).as_slice()[..64 * 32 + 4096].to_vec())
        .collect()
}

/// The generator reaches every outcome of preparation often enough to matter.
#[test]
fn the_generator_covers_compiled_checked_and_failed_preparations() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::{Config, TestRng, TestRunner};
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::deterministic_rng(proptest::test_runner::RngAlgorithm::ChaCha),
    );
    let (mut compiled, mut checked_only, mut unchecked) = (0, 0, 0);
    for _ in 0..400 {
        let c = case().new_tree(&mut runner).unwrap().current();
        let Some(op) = build(&c) else { continue };
        let p = TileCore::by_name(CHIPS[c.chip]).unwrap().prepare(op);
        match (p.prechecked(), p.compiled()) {
            (true, true) => compiled += 1,
            (true, false) => checked_only += 1,
            _ => unchecked += 1,
        }
    }
    eprintln!("compiled {compiled}, checked only {checked_only}, unchecked {unchecked}");
    assert!(
        compiled >= 40 && checked_only >= 5 && unchecked >= 40,
        "compiled {compiled}, checked only {checked_only}, unchecked {unchecked}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn run_of_prepared_equals_exec(c in case()) {
        let Some(op) = build(&c) else { return Ok(()) };
        let mut preparer = TileCore::by_name(CHIPS[c.chip]).unwrap();
        fill(&mut preparer, &c);
        let prepared = preparer.prepare(op.clone());
        let mut runner = match c.switch {
            0 => preparer,
            1 => {
                let mut core = preparer;
                core.set_policy(TilePolicy::pto_cpu_sim(core.arch()));
                core
            }
            2 => {
                let mut core = TileCore::by_name(CHIPS[1 - c.chip]).unwrap();
                fill(&mut core, &c);
                core
            }
            _ => preparer.clone(),
        };
        let mut oracle = runner.clone();
        // Twice: in-place operands make the second execution depend on the first.
        for round in 0..2 {
            let want = oracle.exec(&op);
            let got = runner.run(&prepared);
            prop_assert_eq!(&got, &want, "round {}: {:?}", round, op);
            prop_assert!(snapshot(&runner) == snapshot(&oracle), "round {}: bytes differ for {:?}", round, op);
        }
    }
}

fn core_with(chip: &str) -> (TileCore, Tile, Tile, Tile) {
    let core = TileCore::by_name(chip).unwrap();
    let d = TileDesc::vec(ElemType::I32, 4, 8);
    let a = core.alloc(d.at(0)).unwrap();
    let b = core.alloc(d.at(128)).unwrap();
    let o = core.alloc(d.at(256)).unwrap();
    (core, a, b, o)
}

#[test]
fn what_preparation_decides() {
    // (A5: its TDIV page lists the integer types.)
    let (mut core, a, b, o) = core_with("a5");
    let bin = |op, dst, src0, src1| TileOp {
        op,
        args: Args::Binary { dst, src0, src1 },
    };
    // Integer TADD: checked and compiled.
    let p = core.prepare(bin(OpCode::Tadd, o, a, b));
    assert!(p.prechecked() && p.compiled());
    // Integer TDIV checks its divisor's data on every run: checked, not compiled.
    let p = core.prepare(bin(OpCode::Tdiv, o, a, b));
    assert!(p.prechecked() && !p.compiled());
    core.write_valid(&a, &[7i32; 32]).unwrap();
    core.write_valid(&b, &[2i32; 32]).unwrap();
    core.run(&p).unwrap();
    assert_eq!(core.read_valid::<i32>(&o).unwrap(), vec![3; 32]);
    core.set::<i32>(&b, 3, 7, 0).unwrap();
    assert_eq!(
        core.run(&p).unwrap_err(),
        PtoError::DivByZero {
            op: "TDIV",
            operand: "src1",
            row: 3,
            col: 7
        }
    );
    // TDIVS by an integer zero: its error comes at run, as exec gives it.
    let p = core.prepare(TileOp {
        op: OpCode::Tdivs,
        args: Args::TileScalar {
            dst: o,
            src: a,
            scalar: Scalar::Int(0),
        },
    });
    assert!(!p.compiled());
    assert!(matches!(
        core.run(&p),
        Err(PtoError::DivByZero {
            operand: "scalar",
            ..
        })
    ));
    // A type the op does not take on the arch: not checked, and run reports what exec does.
    let (f, g) = (
        core.alloc(TileDesc::vec(ElemType::U8, 4, 32).at(512))
            .unwrap(),
        core.alloc(TileDesc::vec(ElemType::U8, 4, 32).at(640))
            .unwrap(),
    );
    let bad = bin(OpCode::Texp, f, g, g);
    let bad = TileOp {
        args: Args::Unary { dst: f, src: g },
        ..bad
    };
    let p = core.prepare(bad.clone());
    assert!(!p.prechecked());
    let e = core.run(&p).unwrap_err();
    assert_eq!(e, core.exec(&bad).unwrap_err());
    assert!(matches!(e, PtoError::IllegalType { op: "TEXP", .. }), "{e}");
}

#[test]
fn a_prepared_op_follows_the_core_it_runs_on() {
    // TDIVS f32 by 3 prepared on A2A3 divides; on A5 (and after switching this core's
    // policy) it multiplies by the rounded reciprocal, exactly as exec does there.
    let (a2a3, _, _, _) = core_with("a2a3");
    let t = TileDesc::vec(ElemType::F32, 1, 8);
    let (d, s) = (a2a3.alloc(t.at(0)).unwrap(), a2a3.alloc(t.at(64)).unwrap());
    let op = TileOp {
        op: OpCode::Tdivs,
        args: Args::TileScalar {
            dst: d,
            src: s,
            scalar: Scalar::Float(3.0),
        },
    };
    let p = a2a3.prepare(op.clone());
    assert!(p.compiled());
    let x = [1.0f32, 7.0, 10.0, 100.0, 1e-3, 2.5, 5.0, 11.0];
    let divided: Vec<f32> = x.iter().map(|v| v / 3.0).collect();
    let by_reciprocal: Vec<f32> = x.iter().map(|v| v * (1.0f32 / 3.0)).collect();
    assert_ne!(divided, by_reciprocal, "the inputs must tell the two apart");
    for (chip, want) in [("a2a3", &divided), ("a5", &by_reciprocal)] {
        let mut core = TileCore::by_name(chip).unwrap();
        core.write_valid(&s, &x).unwrap();
        core.run(&p).unwrap();
        assert_eq!(&core.read_valid::<f32>(&d).unwrap(), want, "{chip}");
    }
    let mut core = a2a3.clone();
    core.write_valid(&s, &x).unwrap();
    core.set_policy(TilePolicy {
        divs_by_reciprocal: true,
        ..core.policy()
    });
    core.run(&p).unwrap();
    assert_eq!(core.read_valid::<f32>(&d).unwrap(), by_reciprocal);
    assert_eq!(core.arch(), TileArch::A2A3);
}
