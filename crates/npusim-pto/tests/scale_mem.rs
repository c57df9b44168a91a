//! The A5 MX scale memories (pto-isa `TileType::ScaleLeft` / `ScaleRight`; L0A_MX and L0B_MX,
//! 4 KiB each on A5, none on A2A3: `include/pto/common/buffer_limits.hpp`), TGET_SCALE_ADDR
//! into them, the moves Mat -> ScaleLeft / ScaleRight (TMOV, TEXTRACT), and the TMATMUL_MX
//! flow of pto-isa `docs/isa/TMATMUL_MX.md`'s manual example.
//!
//! Every byte is placed and read by this file's own layout formulas (written out below, not
//! the implementation's): A Left / Mat Nz (boxes of 16 rows x 32 one-byte columns, the boxes
//! down the columns), B Right / Mat Zn (boxes of 32 rows x 16 columns along the rows,
//! col-major inside), C Acc Nz (16 x 16 f32 boxes), the scales in `TileLeftScale`'s layout
//! (Zz: 16 x 2 boxes along the rows, row-major inside) and `TileRightScale`'s (Nn: 2 x 16
//! boxes down the columns, col-major inside). The product is checked against an exact sum:
//! the inputs are fp8 values in {0, ±0.5, ±1, ±1.5, ±2} and scales in 2^-2 .. 2^2, so every
//! partial sum is exact in f32 and the result does not depend on the summation order.

use npusim_core::MemSpace;
use npusim_pto::ops::movement::MovMode;
use npusim_pto::ops::mx::MxOperands;
use npusim_pto::*;

/// Nz: boxes of `br x bc` elements, row-major inside, the boxes down the columns first.
fn nz(r: usize, c: usize, rows: usize, br: usize, bc: usize) -> usize {
    (c / bc) * rows * bc + (r / br) * br * bc + (r % br) * bc + (c % bc)
}
/// Zn: boxes of `br x bc`, col-major inside, the boxes along the rows first.
fn zn(r: usize, c: usize, cols: usize, br: usize, bc: usize) -> usize {
    (r / br) * cols * br + (c / bc) * br * bc + (c % bc) * br + (r % br)
}
/// TileLeftScale (Zz, fractal 32): 16 x 2 boxes along the rows, row-major inside.
fn zz_scale(r: usize, c: usize, cols: usize) -> usize {
    (r / 16) * 16 * cols + (c / 2) * 32 + (r % 16) * 2 + c % 2
}
/// TileRightScale (Nn, fractal 32): 2 x 16 boxes down the columns, col-major inside.
fn nn_scale(r: usize, c: usize, rows: usize) -> usize {
    (c / 16) * 16 * rows + (r / 2) * 32 + (c % 16) * 2 + r % 2
}

/// E5M2 codes and values of {0, ±0.5, ±1, ±1.5, ±2}.
const F8: [(u8, f64); 9] = [
    (0x00, 0.0),
    (0x38, 0.5),
    (0xb8, -0.5),
    (0x3c, 1.0),
    (0xbc, -1.0),
    (0x3e, 1.5),
    (0xbe, -1.5),
    (0x40, 2.0),
    (0xc0, -2.0),
];

/// A small deterministic generator (the test must not depend on the implementation).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) as usize
    }
}

fn zz(loc: TileLoc, rows: usize, cols: usize) -> TileDesc {
    TileDesc::new(loc, ElemType::F8E8M0, rows, cols)
        .layout(BLayout::RowMajor, SLayout::RowMajor)
        .fractal(32)
}
fn nn(loc: TileLoc, rows: usize, cols: usize) -> TileDesc {
    TileDesc::new(loc, ElemType::F8E8M0, rows, cols)
        .layout(BLayout::ColMajor, SLayout::ColMajor)
        .fractal(32)
}

#[test]
fn scale_memories_exist_on_a5_only() {
    let a5 = TileCore::by_name("a5").unwrap();
    assert_eq!(a5.mem(TileLoc::ScaleLeft).capacity(), 4096);
    assert_eq!(a5.mem(TileLoc::ScaleRight).capacity(), 4096);
    assert_eq!(TileLoc::ScaleLeft.space(), MemSpace::L0aMx);
    assert_eq!(TileLoc::ScaleRight.space(), MemSpace::L0bMx);
    assert_eq!(TileLoc::ScaleLeft.space().name(), "L0A_MX");
    assert_eq!(TileLoc::parse("scale_right"), Some(TileLoc::ScaleRight));
    let a2 = TileCore::by_name("a2a3").unwrap();
    assert_eq!(a2.mem(TileLoc::ScaleLeft).capacity(), 0);
    assert_eq!(a2.mem(TileLoc::ScaleRight).capacity(), 0);
    for d in [
        zz(TileLoc::ScaleLeft, 16, 2),
        nn(TileLoc::ScaleRight, 2, 16),
    ] {
        let e = a2.alloc(d).unwrap_err();
        assert!(
            matches!(e, PtoError::Unsupported { arch: "a2a3", .. })
                && e.to_string().contains("A5 only"),
            "{e}"
        );
        assert!(a5.alloc(d).is_ok());
    }
}

#[test]
fn scale_tile_layouts_and_addresses() {
    let core = TileCore::by_name("a5").unwrap();
    let rule = |d: TileDesc| match core.alloc(d).unwrap_err() {
        PtoError::Static { rule, .. } => rule,
        e => panic!("{e}"),
    };
    // ScaleLeft is TileLeftScale (Zz, fractal 32), ScaleRight TileRightScale (Nn, 32).
    assert!(rule(nn(TileLoc::ScaleLeft, 16, 16)).contains("TileLeftScale"));
    assert!(rule(zz(TileLoc::ScaleLeft, 16, 32).fractal(512)).contains("TileLeftScale"));
    assert!(rule(zz(TileLoc::ScaleRight, 16, 16)).contains("TileRightScale"));
    let plain = TileDesc::new(TileLoc::ScaleRight, ElemType::F8E8M0, 2, 32);
    assert!(rule(plain).contains("TileRightScale"));
    // TASSIGN: 32-byte aligned, inside the 4 KiB.
    let mut t = core.alloc(zz(TileLoc::ScaleLeft, 16, 2)).unwrap();
    assert!(core.tassign(&mut t, 4096 - 32, "scaleA").is_ok());
    let e = core.tassign(&mut t, 4096, "scaleA").unwrap_err();
    assert!(
        matches!(
            e,
            PtoError::OutOfCapacity {
                space: MemSpace::L0aMx,
                capacity: 4096,
                ..
            }
        ),
        "{e}"
    );
    let e = core.tassign(&mut t, 0x10, "scaleA").unwrap_err();
    assert!(matches!(e, PtoError::Misaligned { align: 32, .. }), "{e}");
    let big = nn(TileLoc::ScaleRight, 64, 64);
    assert!(core.alloc(big).is_ok());
    let e = core.alloc(big.at(32)).unwrap_err();
    assert!(matches!(e, PtoError::OutOfCapacity { .. }), "{e}");
}

/// TGET_SCALE_ADDR: Left -> ScaleLeft and Right -> ScaleRight at the address shifted right
/// by 4; the crossed pairs and the A2A3 form are errors.
#[test]
fn tget_scale_addr_binds_the_own_scale_memory() {
    let core = TileCore::by_name("a5").unwrap();
    let v = |d: TileDesc| Tile::validate(d, "t", "t").unwrap();
    let a = v(TileDesc::new(TileLoc::Left, ElemType::F8E5M2, 16, 64)
        .layout(BLayout::ColMajor, SLayout::RowMajor)
        .at(0xfe00));
    let b = v(TileDesc::new(TileLoc::Right, ElemType::F8E5M2, 64, 32)
        .layout(BLayout::RowMajor, SLayout::ColMajor)
        .at(0x2000));
    let sa = v(zz(TileLoc::ScaleLeft, 16, 2));
    let sb = v(nn(TileLoc::ScaleRight, 2, 32));
    let t = core.tget_scale_addr(&sa, &a).unwrap();
    assert_eq!((t.loc(), t.addr()), (TileLoc::ScaleLeft, 0xfe0));
    let t = core.tget_scale_addr(&sb, &b).unwrap();
    assert_eq!((t.loc(), t.addr()), (TileLoc::ScaleRight, 0x200));
    for (d, s) in [(&sb, &a), (&sa, &b)] {
        let e = core.tget_scale_addr(d, s).unwrap_err();
        assert!(
            matches!(&e, PtoError::Static { operand: "dst", rule, .. } if rule.contains("binds a Scale")),
            "{e}"
        );
    }
    // The whole of L0A maps onto L0A_MX: a 64-byte scale tile from the last Left address
    // runs past it.
    let a_end = v(TileDesc::new(TileLoc::Left, ElemType::F8E5M2, 16, 64)
        .layout(BLayout::ColMajor, SLayout::RowMajor)
        .at(0xfe00 + 0x200));
    let e = core.tget_scale_addr(&sa, &a_end).unwrap_err();
    assert!(matches!(e, PtoError::OutOfCapacity { .. }), "{e}");
    let a2 = TileCore::by_name("a2a3").unwrap();
    assert!(matches!(
        a2.tget_scale_addr(&sa, &a).unwrap_err(),
        PtoError::Unsupported { .. }
    ));
}

/// pto-isa `docs/isa/TMATMUL_MX.md`, manual example: `A = TileLeft<float8_e5m2_t, 16, 64>` at
/// 0x1000, `B = TileRight<float8_e5m2_t, 64, 32>` at 0x2000, `ScaleA = TileLeftScale<
/// float8_e8m0_t, 16, 2>` and `ScaleB = TileRightScale<float8_e8m0_t, 2, 32>` bound to their
/// scale addresses, a float bias row of 32, `C = TileAcc<float, 16, 32>` at 0x4000. (The page
/// assigns the bias 0x3000, past A5's 4 KiB bias table: npusim refuses that address, so the
/// bias sits at 0 here.) The operands come from Mat through TMOV, the scales through
/// TMOV Mat -> ScaleLeft / ScaleRight into the tiles TGET_SCALE_ADDR bound.
#[test]
fn tmatmul_mx_doc_example_flow() {
    const M: usize = 16;
    const K: usize = 64;
    const N: usize = 32;
    const G: usize = K / 32;
    let mut rng = Lcg(7);
    let a: Vec<usize> = (0..M * K).map(|_| rng.next() % F8.len()).collect();
    let b: Vec<usize> = (0..K * N).map(|_| rng.next() % F8.len()).collect();
    let sa: Vec<u8> = (0..M * G).map(|_| 125 + (rng.next() % 5) as u8).collect();
    let sb: Vec<u8> = (0..G * N).map(|_| 125 + (rng.next() % 5) as u8).collect();
    let bias: Vec<f32> = (0..N).map(|j| j as f32 * 0.25 - 3.0).collect();

    let mut core = TileCore::by_name("a5").unwrap();
    let nzd = |loc, r, c| {
        TileDesc::new(loc, ElemType::F8E5M2, r, c).layout(BLayout::ColMajor, SLayout::RowMajor)
    };
    let znd = |loc, r, c| {
        TileDesc::new(loc, ElemType::F8E5M2, r, c).layout(BLayout::RowMajor, SLayout::ColMajor)
    };
    // Mat: A at 0, B at 0x1000, the scales at 0x2000 and 0x2100.
    let am = core.alloc(nzd(TileLoc::Mat, M, K)).unwrap();
    let bm = core.alloc(znd(TileLoc::Mat, K, N).at(0x1000)).unwrap();
    let sam = core.alloc(zz(TileLoc::Mat, M, G).at(0x2000)).unwrap();
    let sbm = core.alloc(nn(TileLoc::Mat, G, N).at(0x2100)).unwrap();
    {
        let l1 = core.mem_mut(TileLoc::Mat);
        for i in 0..M {
            for k in 0..K {
                l1[nz(i, k, M, 16, 32)] = F8[a[i * K + k]].0;
            }
            for g in 0..G {
                l1[0x2000 + zz_scale(i, g, G)] = sa[i * G + g];
            }
        }
        for k in 0..K {
            for j in 0..N {
                l1[0x1000 + zn(k, j, N, 32, 16)] = F8[b[k * N + j]].0;
            }
        }
        for g in 0..G {
            for j in 0..N {
                l1[0x2100 + nn_scale(g, j, G)] = sb[g * N + j];
            }
        }
    }
    let at = core.alloc(nzd(TileLoc::Left, M, K).at(0x1000)).unwrap();
    let bt = core.alloc(znd(TileLoc::Right, K, N).at(0x2000)).unwrap();
    let sa0 = core.alloc(zz(TileLoc::ScaleLeft, M, G)).unwrap();
    let sb0 = core.alloc(nn(TileLoc::ScaleRight, G, N)).unwrap();
    let sat = core.tget_scale_addr(&sa0, &at).unwrap();
    let sbt = core.tget_scale_addr(&sb0, &bt).unwrap();
    let bias_t = core
        .alloc(TileDesc::new(TileLoc::Bias, ElemType::F32, 1, N))
        .unwrap();
    let c = core
        .alloc(
            TileDesc::new(TileLoc::Acc, ElemType::F32, M, N)
                .layout(BLayout::ColMajor, SLayout::RowMajor)
                .fractal(1024)
                .at(0x4000),
        )
        .unwrap();
    let plain = MovMode::default();
    core.tmov(&at, &am, plain).unwrap();
    core.tmov(&bt, &bm, plain).unwrap();
    core.tmov(&sat, &sam, plain).unwrap();
    core.tmov(&sbt, &sbm, plain).unwrap();
    for (j, v) in bias.iter().enumerate() {
        core.mem_mut(TileLoc::Bias)[4 * j..4 * j + 4].copy_from_slice(&v.to_le_bytes());
    }
    // The scales sit at 0x1000 >> 4 of L0A_MX and 0x2000 >> 4 of L0B_MX; FB is untouched.
    for i in 0..M {
        for g in 0..G {
            assert_eq!(
                core.mem(TileLoc::ScaleLeft).as_slice()[0x100 + zz_scale(i, g, G)],
                sa[i * G + g]
            );
        }
    }
    for g in 0..G {
        for j in 0..N {
            assert_eq!(
                core.mem(TileLoc::ScaleRight).as_slice()[0x200 + nn_scale(g, j, G)],
                sb[g * N + j]
            );
        }
    }
    assert!(
        core.mem(TileLoc::Scaling)
            .as_slice()
            .iter()
            .all(|&x| x == 0)
    );
    let x = MxOperands {
        a: &at,
        a_scale: &sat,
        b: &bt,
        b_scale: &sbt,
    };
    for cpu in [false, true] {
        if cpu {
            core.set_policy(TilePolicy::pto_cpu_sim(core.arch()));
        }
        core.tmatmul_mx_bias(&c, x, &bias_t).unwrap();
        let acc = core.mem(TileLoc::Acc).as_slice();
        let mut nonzero = 0;
        for i in 0..M {
            for j in 0..N {
                let mut want = bias[j] as f64;
                for k in 0..K {
                    let s = 2f64
                        .powi(sa[i * G + k / 32] as i32 - 127 + sb[(k / 32) * N + j] as i32 - 127);
                    want += F8[a[i * K + k]].1 * F8[b[k * N + j]].1 * s;
                }
                let o = 0x4000 + 4 * nz(i, j, M, 16, 16);
                let got = f32::from_le_bytes(acc[o..o + 4].try_into().unwrap());
                assert_eq!(got, want as f32, "cpu {cpu} ({i}, {j})");
                nonzero += usize::from(got != 0.0);
            }
        }
        assert!(nonzero > M * N / 2);
    }
    // Scales read from the unbound tiles (address 0 of each scale memory, all zero codes:
    // 2^-127) give another result: the check discriminates.
    let y = MxOperands {
        a_scale: &sa0,
        b_scale: &sb0,
        ..x
    };
    core.tmatmul_mx_bias(&c, y, &bias_t).unwrap();
    let o = 0x4000 + 4 * nz(0, 0, M, 16, 16);
    let got = f32::from_le_bytes(
        core.mem(TileLoc::Acc).as_slice()[o..o + 4]
            .try_into()
            .unwrap(),
    );
    assert_eq!(got, bias[0]);
}

/// TEXTRACT Mat -> ScaleLeft / ScaleRight at every legal offset of a larger scale tile, and
/// TMOV of a whole one: a bit copy of the window, the bytes around it untouched.
#[test]
fn scale_moves_copy_the_window() {
    let mut rng = Lcg(11);
    for left in [true, false] {
        // Source: M = 48 rows (ScaleLeft) / columns (ScaleRight), 8 groups of K.
        let (sr, sc, dr, dc) = if left { (48, 8, 16, 4) } else { (8, 48, 4, 16) };
        let (mk, dloc) = if left {
            (
                zz as fn(TileLoc, usize, usize) -> TileDesc,
                TileLoc::ScaleLeft,
            )
        } else {
            (
                nn as fn(TileLoc, usize, usize) -> TileDesc,
                TileLoc::ScaleRight,
            )
        };
        let off = |r: usize, c: usize, rows: usize, cols: usize| {
            if left {
                zz_scale(r, c, cols)
            } else {
                nn_scale(r, c, rows)
            }
        };
        let (m_steps, k_steps) = ((0..=32).step_by(16), (0..=4).step_by(2));
        for m0 in m_steps {
            for k0 in k_steps.clone() {
                let (r0, c0) = if left { (m0, k0) } else { (k0, m0) };
                let mut core = TileCore::by_name("a5").unwrap();
                let src = core.alloc(mk(TileLoc::Mat, sr, sc).at(0x800)).unwrap();
                let bytes: Vec<u8> = (0..sr * sc).map(|_| rng.next() as u8).collect();
                core.mem_mut(TileLoc::Mat)[0x800..0x800 + sr * sc].copy_from_slice(&bytes);
                core.mem_mut(dloc).fill(0x5a);
                let dst = core.alloc(mk(dloc, dr, dc).at(0x40)).unwrap();
                core.textract(&dst, &src, r0 as i64, c0 as i64).unwrap();
                let mem = core.mem(dloc).as_slice();
                let mut want = vec![0x5au8; 4096];
                for r in 0..dr {
                    for c in 0..dc {
                        // src byte of element (r0 + r, c0 + c) by the source's own formula.
                        let s = off(r0 + r, c0 + c, sr, sc);
                        want[0x40 + off(r, c, dr, dc)] = bytes[s];
                    }
                }
                assert!(mem == want.as_slice(), "left {left} offset ({r0}, {c0})");
            }
        }
        // TMOV: same shapes, the whole valid region.
        let mut core = TileCore::by_name("a5").unwrap();
        let src = core.alloc(mk(TileLoc::Mat, sr, sc)).unwrap();
        let bytes: Vec<u8> = (0..sr * sc).map(|_| rng.next() as u8).collect();
        core.mem_mut(TileLoc::Mat)[..sr * sc].copy_from_slice(&bytes);
        let dst = core.alloc(mk(dloc, sr, sc).at(0x200)).unwrap();
        core.tmov(&dst, &src, MovMode::default()).unwrap();
        assert_eq!(
            &core.mem(dloc).as_slice()[0x200..0x200 + sr * sc],
            bytes.as_slice()
        );
    }
}

#[test]
fn scale_move_and_matmul_restrictions_are_typed_errors() {
    let mut core = TileCore::by_name("a5").unwrap();
    let v = |d: TileDesc| Tile::validate(d, "t", "t").unwrap();
    let src_l = v(zz(TileLoc::Mat, 32, 4));
    let src_r = v(nn(TileLoc::Mat, 4, 32));
    let dl = v(zz(TileLoc::ScaleLeft, 16, 2));
    let dr = v(nn(TileLoc::ScaleRight, 2, 16));
    let vr = |e: PtoError| match e {
        PtoError::ValidRegion { operand, .. } => operand,
        e => panic!("{e}"),
    };
    // Offsets in whole load steps: M in 16s, K in pairs.
    assert_eq!(
        vr(core.textract(&dl, &src_l, 8, 0).unwrap_err()),
        "indexRow"
    );
    assert_eq!(
        vr(core.textract(&dl, &src_l, 16, 1).unwrap_err()),
        "indexCol"
    );
    assert_eq!(
        vr(core.textract(&dr, &src_r, 1, 16).unwrap_err()),
        "indexRow"
    );
    assert_eq!(
        vr(core.textract(&dr, &src_r, 2, 8).unwrap_err()),
        "indexCol"
    );
    assert!(core.textract(&dl, &src_l, 16, 2).is_ok());
    assert!(core.textract(&dr, &src_r, 2, 16).is_ok());
    // A window past the source.
    assert!(core.textract(&dl, &src_l, 32, 0).is_err());
    // The source in the other scale layout.
    let e = core.textract(&dl, &src_r, 0, 0).unwrap_err();
    assert!(matches!(e, PtoError::Static { operand: "src", .. }), "{e}");
    let e = core
        .tmov(&dr, &v(zz(TileLoc::Mat, 2, 16)), MovMode::default())
        .unwrap_err();
    assert!(matches!(e, PtoError::Static { operand: "src", .. }), "{e}");
    // float8_e8m0 only.
    let mut d8 = zz(TileLoc::Mat, 16, 2);
    d8.dtype = ElemType::I8;
    let mut dl8 = zz(TileLoc::ScaleLeft, 16, 2);
    dl8.dtype = ElemType::I8;
    let e = core.tmov(&v(dl8), &v(d8), MovMode::default()).unwrap_err();
    assert!(matches!(e, PtoError::IllegalType { .. }), "{e}");
    // Static shapes of TMOV must match.
    let e = core.tmov(&dl, &src_l, MovMode::default()).unwrap_err();
    assert!(matches!(e, PtoError::Static { operand: "dst", .. }), "{e}");
    // Only Mat feeds the scale memories; A2A3 has no such move.
    let e = core
        .tmov(&dl, &v(zz(TileLoc::Vec, 16, 2)), MovMode::default())
        .unwrap_err();
    assert!(matches!(e, PtoError::Static { .. }), "{e}");
    let mut a2 = TileCore::by_name("a2a3").unwrap();
    assert!(
        a2.tmov(&dl, &v(zz(TileLoc::Mat, 16, 2)), MovMode::default())
            .is_err()
    );
    assert!(a2.textract(&dl, &src_l, 0, 0).is_err());

    // TMATMUL_MX: A's scales from ScaleLeft, B's from ScaleRight (Scaling: PTOAS's spelling).
    let a = v(TileDesc::new(TileLoc::Left, ElemType::F8E4M3FN, 16, 64)
        .layout(BLayout::ColMajor, SLayout::RowMajor));
    let b = v(TileDesc::new(TileLoc::Right, ElemType::F8E4M3FN, 64, 16)
        .layout(BLayout::RowMajor, SLayout::ColMajor));
    let c = v(TileDesc::new(TileLoc::Acc, ElemType::F32, 16, 16)
        .layout(BLayout::ColMajor, SLayout::RowMajor)
        .fractal(1024));
    let sl = v(zz(TileLoc::ScaleLeft, 16, 2));
    let sr = v(nn(TileLoc::ScaleRight, 2, 16));
    let sl_as_right = v(zz(TileLoc::ScaleRight, 16, 2));
    let sr_as_left = v(nn(TileLoc::ScaleLeft, 2, 16));
    let x = |a_scale, b_scale| MxOperands {
        a: &a,
        a_scale,
        b: &b,
        b_scale,
    };
    assert!(core.tmatmul_mx(&c, x(&sl, &sr)).is_ok());
    for (s1, s2, bad) in [
        (&sl_as_right, &sr, "aScaleMatrix"),
        (&sl, &sr_as_left, "bScaleMatrix"),
    ] {
        let e = core.tmatmul_mx(&c, x(s1, s2)).unwrap_err();
        assert!(
            matches!(&e, PtoError::Static { operand, rule, .. } if *operand == bad && rule.contains("location")),
            "{e}"
        );
    }
    let scaling_l = v(zz(TileLoc::Scaling, 16, 2));
    let scaling_r = v(nn(TileLoc::Scaling, 2, 16).at(1024));
    assert!(core.tmatmul_mx(&c, x(&scaling_l, &scaling_r)).is_ok());
}
