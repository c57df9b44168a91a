//! The restrictions of TMATMUL_MX / TGEMV_MX / TGET_SCALE_ADDR (pto-isa `docs/isa/TMATMUL_MX.md`,
//! `TGEMV_MX.md`, `TGET_SCALE_ADDR.md`, `CheckMadMxValid`): one typed error per class, and a
//! small worked example whose result follows from the MX rule by hand.

use npusim_pto::ops::cube::Seed;
use npusim_pto::ops::mx::MxOperands;
use npusim_pto::*;

struct Set {
    a: TileDesc,
    sa: TileDesc,
    b: TileDesc,
    sb: TileDesc,
    c: TileDesc,
    bias: TileDesc,
}

/// M = 16, K = 64, N = 16 in the legal layouts.
fn legal() -> Set {
    Set {
        a: TileDesc::new(TileLoc::Left, ElemType::F8E4M3FN, 16, 64)
            .layout(BLayout::ColMajor, SLayout::RowMajor),
        sa: TileDesc::new(TileLoc::Scaling, ElemType::F8E8M0, 16, 2)
            .layout(BLayout::RowMajor, SLayout::RowMajor)
            .fractal(32),
        b: TileDesc::new(TileLoc::Right, ElemType::F8E5M2, 64, 16)
            .layout(BLayout::RowMajor, SLayout::ColMajor),
        sb: TileDesc::new(TileLoc::Scaling, ElemType::F8E8M0, 2, 16)
            .layout(BLayout::ColMajor, SLayout::ColMajor)
            .fractal(32)
            .at(1024),
        c: TileDesc::new(TileLoc::Acc, ElemType::F32, 16, 16)
            .layout(BLayout::ColMajor, SLayout::RowMajor)
            .fractal(1024),
        bias: TileDesc::new(TileLoc::Bias, ElemType::F32, 1, 16),
    }
}

fn run(arch: &str, op: OpCode, s: &Set, seed: u8) -> Result<(), PtoError> {
    let mut core = TileCore::by_name(arch).unwrap();
    let t = |d: TileDesc| Tile::validate(d, "test", "tile").unwrap();
    let (a, sa, b, sb, c, bias) = (t(s.a), t(s.sa), t(s.b), t(s.sb), t(s.c), t(s.bias));
    let x = MxOperands {
        a: &a,
        a_scale: &sa,
        b: &b,
        b_scale: &sb,
    };
    let seed = match seed {
        0 => Seed::Zero,
        1 => Seed::Acc(&c),
        _ => Seed::Bias(&bias),
    };
    core.matmul_mx(op, &c, seed, x)
}

fn err(arch: &str, op: OpCode, s: &Set, seed: u8) -> String {
    match run(arch, op, s, seed) {
        Ok(()) => panic!("{op:?} on {arch} should fail"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn the_legal_set_runs() {
    let s = legal();
    for (op, seed) in [
        (OpCode::TmatmulMx, 0),
        (OpCode::TmatmulMxAcc, 1),
        (OpCode::TmatmulMxBias, 2),
    ] {
        run("a5", op, &s, seed).unwrap();
    }
    let mut g = legal();
    g.a = g.a.valid(1, 64);
    g.c = g.c.valid(1, 16);
    g.sa = TileDesc::new(TileLoc::Scaling, ElemType::F8E8M0, 1, 2)
        .layout(BLayout::RowMajor, SLayout::RowMajor)
        .fractal(32);
    for (op, seed) in [
        (OpCode::TgemvMx, 0),
        (OpCode::TgemvMxAcc, 1),
        (OpCode::TgemvMxBias, 2),
    ] {
        run("a5", op, &g, seed).unwrap();
    }
}

#[test]
fn a2a3_has_no_mx() {
    let e = err("a2a3", OpCode::TmatmulMx, &legal(), 0);
    assert!(e.contains("A5 only") && e.contains("a2a3"), "{e}");
    let core = TileCore::by_name("a2a3").unwrap();
    let a = Tile::validate(legal().a, "t", "t").unwrap();
    let sa = Tile::validate(legal().sa, "t", "t").unwrap();
    let e = core.tget_scale_addr(&sa, &a).unwrap_err().to_string();
    assert!(e.contains("A5 only"), "{e}");
}

#[test]
fn type_pairs_are_checked() {
    // Not an MX type (half), HiFloat8 (TMATMUL_MX_HIF4's, not TMATMUL_MX's), IEEE E4M3.
    for t in [
        ElemType::F16,
        ElemType::HiF8,
        ElemType::F8E4M3,
        ElemType::I8,
    ] {
        let mut s = legal();
        s.a.dtype = t;
        let e = err("a5", OpCode::TmatmulMx, &s, 0);
        assert!(
            e.contains("type triple") && e.contains("float8_e4m3_t"),
            "{e}"
        );
    }
    let mut s = legal();
    s.c.dtype = ElemType::I32;
    assert!(err("a5", OpCode::TmatmulMx, &s, 0).contains("type triple"));
    // The unpacked float4_e2m1fn is no MX input (the page's FP4 inputs are the packed x2
    // types), nor is an fp8 A with a packed fp4 B (the page lists fp8 or fp4 pairs only).
    for (ta, tb) in [
        (ElemType::F8E4M3FN, ElemType::F4E2M1),
        (ElemType::F8E4M3FN, ElemType::F4E2M1X2),
        (ElemType::F4E1M2X2, ElemType::F8E5M2),
    ] {
        let mut s = legal();
        s.a.dtype = ta;
        s.b.dtype = tb;
        let e = err("a5", OpCode::TmatmulMx, &s, 0);
        assert!(
            e.contains("type triple") && e.contains("float4_e2m1x2_t"),
            "{e}"
        );
    }
    // Every fp8 pair is legal.
    for (ta, tb) in [
        (ElemType::F8E4M3FN, ElemType::F8E4M3FN),
        (ElemType::F8E4M3FN, ElemType::F8E5M2),
        (ElemType::F8E5M2, ElemType::F8E4M3FN),
        (ElemType::F8E5M2, ElemType::F8E5M2),
    ] {
        let mut s = legal();
        s.a.dtype = ta;
        s.b.dtype = tb;
        run("a5", OpCode::TmatmulMx, &s, 0).unwrap();
    }
}

#[test]
fn k_steps_of_64() {
    let mut s = legal();
    s.a = TileDesc::new(TileLoc::Left, ElemType::F8E4M3FN, 16, 32)
        .layout(BLayout::ColMajor, SLayout::RowMajor);
    s.b = s.b.valid(32, 16);
    let e = err("a5", OpCode::TmatmulMx, &s, 0);
    assert!(e.contains("multiple of 64") && e.contains("32"), "{e}");
    // A valid K below the declared columns is fine (the rule is on the declared Cols).
    let mut s = legal();
    s.a = s.a.valid(16, 40);
    s.b = s.b.valid(40, 16);
    run("a5", OpCode::TmatmulMx, &s, 0).unwrap();
}

#[test]
fn locations_and_layouts() {
    let mut s = legal();
    s.a.loc = TileLoc::Mat;
    assert!(err("a5", OpCode::TmatmulMx, &s, 0).contains("must be Left"));
    let mut s = legal();
    s.b = s.b.layout(BLayout::ColMajor, SLayout::NoneBox);
    assert!(err("a5", OpCode::TmatmulMx, &s, 0).contains("Zn"));
    let mut s = legal();
    s.sa.loc = TileLoc::Vec;
    let e = err("a5", OpCode::TmatmulMx, &s, 0);
    assert!(e.contains("aScaleMatrix") && e.contains("Scaling"), "{e}");
    let mut s = legal();
    s.sb.dtype = ElemType::U8;
    let e = err("a5", OpCode::TmatmulMx, &s, 0);
    assert!(
        e.contains("bScaleMatrix") && e.contains("float8_e8m0"),
        "{e}"
    );
    // A right-scale layout for the left scales, and a plain tile.
    let mut s = legal();
    s.sa = TileDesc::new(TileLoc::Scaling, ElemType::F8E8M0, 16, 32)
        .layout(BLayout::ColMajor, SLayout::ColMajor)
        .fractal(32);
    let e = err("a5", OpCode::TmatmulMx, &s, 0);
    assert!(e.contains("TileLeftScale"), "{e}");
    let mut s = legal();
    s.sb = TileDesc::new(TileLoc::Scaling, ElemType::F8E8M0, 2, 32).at(1024);
    let e = err("a5", OpCode::TmatmulMx, &s, 0);
    assert!(e.contains("TileRightScale"), "{e}");
    // A right scale of one row: its 2 x 16 boxes need whole boxes of rows (declaration).
    let bad = Tile::validate(
        TileDesc::new(TileLoc::Scaling, ElemType::F8E8M0, 1, 16)
            .layout(BLayout::ColMajor, SLayout::ColMajor)
            .fractal(32),
        "alloc_tile",
        "tile",
    );
    assert!(matches!(bad, Err(PtoError::Static { .. })), "{bad:?}");
    // A fractal size that does not exist.
    let bad = Tile::validate(legal().sa.fractal(64), "alloc_tile", "tile");
    assert!(bad.unwrap_err().to_string().contains("fractal"));
}

#[test]
fn shapes_and_ranges() {
    // The scales must cover M x ceil(K/32) and ceil(K/32) x N.
    let mut s = legal();
    s.sa = s.sa.valid(16, 1);
    let e = err("a5", OpCode::TmatmulMx, &s, 0);
    assert!(e.contains("aScaleMatrix") && e.contains("cover"), "{e}");
    let mut s = legal();
    s.sb = s.sb.valid(2, 8);
    assert!(err("a5", OpCode::TmatmulMx, &s, 0).contains("bScaleMatrix"));
    // B's rows must be K, C must be M x N.
    let mut s = legal();
    s.b = s.b.valid(48, 16);
    assert!(err("a5", OpCode::TmatmulMx, &s, 0).contains("(K)"));
    let mut s = legal();
    s.c = s.c.valid(8, 16);
    assert!(err("a5", OpCode::TmatmulMx, &s, 0).contains("M x N"));
    // m, k, n at least 1.
    let mut s = legal();
    s.a = s.a.valid(0, 64);
    s.c = s.c.valid(0, 16);
    assert!(err("a5", OpCode::TmatmulMx, &s, 0).contains("[1, 4095]"));
    // TGEMV_MX: m = 1.
    let e = err("a5", OpCode::TgemvMx, &legal(), 0);
    assert!(e.contains("m") && e.contains("must be 1"), "{e}");
    // Bias: one float row covering N; c_in: Acc.
    let mut s = legal();
    s.bias = TileDesc::new(TileLoc::Bias, ElemType::F32, 1, 16).valid(1, 8);
    assert!(err("a5", OpCode::TmatmulMxBias, &s, 2).contains("bias"));
    let mut s = legal();
    s.bias.loc = TileLoc::Vec;
    assert!(err("a5", OpCode::TmatmulMxBias, &s, 2).contains("biasData"));
}

#[test]
fn addresses_are_checked() {
    // A scale tile past the 4 KiB scaling memory of A5.
    let mut s = legal();
    s.sb = s.sb.at(4096);
    let e = err("a5", OpCode::TmatmulMx, &s, 0);
    assert!(
        e.contains("bScaleMatrix") && e.contains("does not fit"),
        "{e}"
    );
}

#[test]
fn exec_checks_the_operand_form() {
    let mut core = TileCore::by_name("a5").unwrap();
    let s = legal();
    let t = |d: TileDesc| Tile::validate(d, "test", "tile").unwrap();
    let (a, sa, b, sb, c) = (t(s.a), t(s.sa), t(s.b), t(s.sb), t(s.c));
    let args = |c_in: Option<Tile>, bias: Option<Tile>| Args::MatmulMx {
        dst: c,
        c_in,
        a,
        a_scale: sa,
        b,
        b_scale: sb,
        bias,
    };
    // The ACC form without c_in, the plain form with a bias.
    for (op, a) in [
        (OpCode::TmatmulMxAcc, args(None, None)),
        (OpCode::TmatmulMx, args(None, Some(c))),
    ] {
        let e = core.exec(&TileOp { op, args: a }).unwrap_err();
        assert!(matches!(e, PtoError::Operands { .. }), "{e}");
    }
    let e = core
        .exec(&TileOp {
            op: OpCode::TgetScaleAddr,
            args: Args::Unary { dst: sa, src: a },
        })
        .unwrap_err();
    assert!(e.to_string().contains("tget_scale_addr"), "{e}");
}

/// TGET_SCALE_ADDR: dst at src's address >> 4; its rules.
#[test]
fn tget_scale_addr_binds_the_shifted_address() {
    let core = TileCore::by_name("a5").unwrap();
    let a = Tile::validate(legal().a.at(0x2000), "t", "t").unwrap();
    let sa = Tile::validate(legal().sa, "t", "t").unwrap();
    let bound = core.tget_scale_addr(&sa, &a).unwrap();
    assert_eq!(bound.addr(), 0x200);
    assert_eq!(bound.desc().rows, 16);
    let b = Tile::validate(legal().b.at(0x8000), "t", "t").unwrap();
    assert_eq!(core.tget_scale_addr(&sa, &b).unwrap().addr(), 0x800);
    // dst must be a Scaling tile, src a Left or Right one.
    let v = Tile::validate(TileDesc::vec(ElemType::F16, 1, 128), "t", "t").unwrap();
    let e = core.tget_scale_addr(&v, &a).unwrap_err().to_string();
    assert!(e.contains("dst") && e.contains("Scaling"), "{e}");
    let e = core.tget_scale_addr(&sa, &v).unwrap_err().to_string();
    assert!(e.contains("src") && e.contains("Left or Right"), "{e}");
    // A Left tile at 0x20 would put its scales at 0x2: not 32-byte aligned.
    let a = Tile::validate(legal().a.at(0x20), "t", "t").unwrap();
    let e = core.tget_scale_addr(&sa, &a).unwrap_err();
    assert!(matches!(e, PtoError::Misaligned { .. }), "{e}");
}

/// A worked example, by hand: A = 1.5 everywhere (E4M3FN 0x3c), B = -2 (E5M2 0xc0), K = 64;
/// A's scales 2^1 for group 0 and 2^-1 for group 1, B's 2^0 and 2^2. Each element of C is
/// 32·(1.5·2)(-2·1) + 32·(1.5·0.5)(-2·4) = -192 - 192 = -384; with the bias 10: -374.
#[test]
fn worked_example() {
    let mut core = TileCore::by_name("a5").unwrap();
    let s = legal();
    let al = |d: TileDesc| core.alloc(d).unwrap();
    let (a, sa, b, sb, c) = (al(s.a), al(s.sa), al(s.b), al(s.sb), al(s.c));
    let bias = core.alloc(s.bias).unwrap();
    core.mem_mut(TileLoc::Left)[..16 * 64].fill(0x3c);
    core.mem_mut(TileLoc::Right)[..64 * 16].fill(0xc0);
    {
        let mem = core.mem_mut(TileLoc::Scaling);
        // Left scales, 16 x 2 box: row r at bytes 2r (group 0) and 2r + 1 (group 1).
        for r in 0..16 {
            mem[2 * r] = 128;
            mem[2 * r + 1] = 126;
        }
        // Right scales, 2 x 16 box col-major: column c at 1024 + 2c (group 0), + 1 (group 1).
        for c in 0..16 {
            mem[1024 + 2 * c] = 127;
            mem[1024 + 2 * c + 1] = 129;
        }
    }
    for v in core.mem_mut(TileLoc::Bias)[..64].chunks_mut(4) {
        v.copy_from_slice(&10f32.to_le_bytes());
    }
    let x = MxOperands {
        a: &a,
        a_scale: &sa,
        b: &b,
        b_scale: &sb,
    };
    for cpu in [false, true] {
        if cpu {
            core.set_policy(TilePolicy::pto_cpu_sim(core.arch()));
        }
        core.tmatmul_mx(&c, x).unwrap();
        let mem = core.mem(TileLoc::Acc).as_slice();
        for v in mem[..16 * 16 * 4].chunks(4) {
            assert_eq!(f32::from_le_bytes(v.try_into().unwrap()), -384.0);
        }
        core.tmatmul_mx_bias(&c, x, &bias).unwrap();
        let mem = core.mem(TileLoc::Acc).as_slice();
        for v in mem[..16 * 16 * 4].chunks(4) {
            assert_eq!(f32::from_le_bytes(v.try_into().unwrap()), -374.0);
        }
    }
    // A NaN scale (0xff) makes its rows NaN.
    core.mem_mut(TileLoc::Scaling)[2 * 3 + 1] = 0xff;
    core.tmatmul_mx(&c, x).unwrap();
    let v = core.get_bits(&c, 3, 5).unwrap() as u32;
    assert!(f32::from_bits(v).is_nan());
    let v = core.get_bits(&c, 4, 5).unwrap() as u32;
    assert_eq!(f32::from_bits(v), -384.0);
}
