//! TLOAD of MX scales into Mat (A5; pto-isa `docs/isa/TLOAD.md`, the `MX_*` layouts of
//! `include/pto/common/pto_tile.hpp`) against a plain model written here.
//!
//! The model's own formulas:
//! - the GM side: for each layout, the 5-D index `(i0, .., i4)` of scale `(r, c)` written out
//!   below (`gm_index`), dotted with the tensor's strides;
//! - the tile side: a ZZ scale tile (A) puts `(r, c)` at `(r/16)·Cols·16 + (c/2)·32 +
//!   (r%16)·2 + c%2`, an NN tile (B) at `(c/16)·Rows·16 + (r/2)·32 + (c%16)·2 + r%2`;
//! - what moves: the valid region, except `MX_A_ZZ` / `MX_B_NN` on the hardware profile, which
//!   move the whole global matrix (`S0·S1·16 x S2·2`, resp. its transpose); before that the
//!   tile is filled with its pad code (Zero/Min 0x00, Max 0xfe) unless the pad is Null on the
//!   hardware profile (the CPU simulator's policy fills Null with 0x00).

use npusim_pto::ops::memory::{MxGlobalTensor, MxGmLayout};
use npusim_pto::*;
use proptest::prelude::*;

const SENTINEL: u8 = 0xa5;

/// The 5-D index of scale `(r, c)` in a tensor of shape `s` (pto-isa `pto_tile.hpp`'s shapes,
/// `cpu/tile_offsets.hpp`'s mapping; ZZ/NN stitch Shape0 copies as `a5/TLoad.hpp` does).
fn gm_index(layout: usize, s: [usize; 5], r: usize, c: usize) -> [usize; 5] {
    match layout {
        // MX_A_ZZ: [S0, M/16/S0, K'/2, 16, 2].
        0 => [r / (s[1] * 16), (r / 16) % s[1], c / 2, r % 16, c % 2],
        // MX_A_ND: [1, 1, M, K'/2, 2].
        1 => [0, 0, r, c / 2, c % 2],
        // MX_A_DN: [1, 1, K'/2, M, 2].
        2 => [0, 0, c / 2, r, c % 2],
        // MX_B_NN: [S0, N/16/S0, K'/2, 16, 2].
        3 => [c / (s[1] * 16), (c / 16) % s[1], r / 2, c % 16, r % 2],
        // MX_B_ND: [1, 1, K'/2, N, 2].
        4 => [0, 0, r / 2, c, r % 2],
        // MX_B_DN: [1, 1, N, K'/2, 2].
        _ => [0, 0, c, r / 2, r % 2],
    }
}

/// The global scale matrix's rows x columns for the layout.
fn global_rc(layout: usize, s: [usize; 5]) -> (usize, usize) {
    match layout {
        0 => (s[0] * s[1] * 16, s[2] * 2),
        1 => (s[2], s[3] * 2),
        2 => (s[3], s[2] * 2),
        3 => (s[2] * 2, s[0] * s[1] * 16),
        4 => (s[2] * 2, s[3]),
        _ => (s[3] * 2, s[2]),
    }
}

fn zz(r: usize, c: usize, cols: usize) -> usize {
    (r / 16) * cols * 16 + (c / 2) * 32 + (r % 16) * 2 + c % 2
}
fn nn(r: usize, c: usize, rows: usize) -> usize {
    (c / 16) * rows * 16 + (r / 2) * 32 + (c % 16) * 2 + r % 2
}

fn layout_of(i: usize) -> MxGmLayout {
    [
        MxGmLayout::AZz,
        MxGmLayout::ANd,
        MxGmLayout::ADn,
        MxGmLayout::BNn,
        MxGmLayout::BNd,
        MxGmLayout::BDn,
    ][i]
}

/// A scale tile in Mat: ZZ for A, NN for B.
fn scale_tile(a: bool, rows: usize, cols: usize, pad: PadValue) -> TileDesc {
    let l = if a {
        BLayout::RowMajor
    } else {
        BLayout::ColMajor
    };
    let s = if a {
        SLayout::RowMajor
    } else {
        SLayout::ColMajor
    };
    TileDesc::new(TileLoc::Mat, ElemType::F8E8M0, rows, cols)
        .layout(l, s)
        .fractal(32)
        .pad(pad)
        .at(1024)
}

fn round_up(x: usize, m: usize) -> usize {
    x.div_ceil(m) * m
}

#[allow(clippy::too_many_arguments)]
fn check(
    layout: usize,
    cpu_sim: bool,
    dims: (usize, usize, usize),
    gaps: [usize; 5],
    valid_frac: (usize, usize),
    extra: (usize, usize),
    pad: u8,
    seed: u64,
) -> Result<(), TestCaseError> {
    let a = layout < 3;
    let boxed = layout == 0 || layout == 3;
    // Shape: (S0, S1, S2, S3, S4) from (d0, d1, d2): boxed [d0, d1, d2, 16, 2], else
    // [1, 1, d1, d2, 2] (d0 unused).
    let (d0, d1, d2) = dims;
    let s = if boxed {
        [d0, d1, d2, 16, 2]
    } else {
        [1, 1, d1, d2, 2]
    };
    // Strides nested with gaps (gap 0 everywhere is the dense tensor).
    let mut st = [0usize; 5];
    st[4] = 1 + gaps[4] % 2;
    st[3] = s[4] * st[4] + gaps[3];
    st[2] = s[3] * st[3] + gaps[2];
    st[1] = s[2] * st[2] + gaps[1];
    st[0] = s[1] * st[1] + gaps[0];
    let (gr, gc) = global_rc(layout, s);
    // The valid region: a fraction of the global matrix, the paired dimension kept even.
    let mut vr = 1 + valid_frac.0 % gr;
    let mut vc = 1 + valid_frac.1 % gc;
    if a {
        vc = round_up(vc, 2).min(gc);
    } else {
        vr = round_up(vr, 2).min(gr);
    }
    // The tile holds the global matrix when boxed, else the valid region; whole boxes.
    let (nr, nc) = if boxed { (gr, gc) } else { (vr, vc) };
    let (rows, cols) = if a {
        (round_up(nr + extra.0, 16), round_up(nc + extra.1, 2))
    } else {
        (round_up(nr + extra.0, 2), round_up(nc + extra.1, 16))
    };
    let pad_v = [PadValue::Null, PadValue::Zero, PadValue::Max, PadValue::Min][pad as usize % 4];
    let mut core = TileCore::by_name("a5").unwrap();
    if cpu_sim {
        core.set_policy(TilePolicy::pto_cpu_sim(core.arch()));
    }
    let t = core
        .alloc(scale_tile(a, rows, cols, pad_v).valid(vr, vc))
        .unwrap();
    let base = t.addr() as usize;
    let size = rows * cols;
    core.mem_mut(TileLoc::Mat)[base..base + size].fill(SENTINEL);
    // GM: random codes with the E8M0 extremes mixed in.
    let span: usize = (0..5).map(|k| (s[k] - 1) * st[k]).sum::<usize>() + 1;
    let mut x = seed | 1;
    let data: Vec<u8> = (0..span)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            match x % 8 {
                0 => 0x00,
                1 => 0xfe,
                2 => 0xff,
                _ => (x >> 32) as u8,
            }
        })
        .collect();
    let addr = core.gm_bind(&data);
    let gt = MxGlobalTensor {
        addr,
        shape: s,
        stride: st,
        layout: layout_of(layout),
    };
    prop_assert_eq!(gt.rows_cols(), (gr, gc));
    core.tload_mx(&t, &gt)
        .map_err(|e| TestCaseError::fail(format!("{e}")))?;
    // The model.
    let mut want = vec![SENTINEL; size];
    if pad_v != PadValue::Null || cpu_sim {
        let code = if pad_v == PadValue::Max { 0xfe } else { 0x00 };
        want.fill(code);
    }
    let (er, ec) = if boxed && !cpu_sim {
        (gr, gc)
    } else {
        (vr, vc)
    };
    for r in 0..er {
        for c in 0..ec {
            let i = gm_index(layout, s, r, c);
            let off: usize = (0..5).map(|k| i[k] * st[k]).sum();
            let to = if a { zz(r, c, cols) } else { nn(r, c, rows) };
            want[to] = data[off];
        }
    }
    let got = &core.mem(TileLoc::Mat).as_slice()[base..base + size];
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        prop_assert!(
            g == w,
            "{} cpu_sim {cpu_sim} shape {s:?} stride {st:?} tile {rows}x{cols} valid {vr}x{vc}: byte {k}: got {g:#x}, want {w:#x}",
            layout_of(layout).name()
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]
    #[test]
    fn tload_mx_matches_the_model(
        layout in 0usize..6, cpu in any::<bool>(),
        d0 in 1usize..3, d1 in 1usize..4, d2 in 1usize..9,
        gaps in proptest::array::uniform5(prop_oneof![Just(0usize), 0usize..40]),
        vf in (any::<u16>(), any::<u16>()), extra in (0usize..20, 0usize..20),
        pad in 0u8..4, seed in any::<u64>(),
    ) {
        let (vr, vc) = (vf.0 as usize, vf.1 as usize);
        check(layout, cpu, (d0, d1, d2), gaps, (vr, vc), extra, pad, seed)?;
    }
}

/// `MxGlobalTensor::dense` gives pto-isa's `TileShape2D` / `BaseShape2D` (written out here).
#[test]
fn dense_tensors_are_pto_isa_shapes() {
    let (m, k, n) = (48usize, 6usize, 32usize);
    // (layout, rows, cols, shape, stride)
    type Case = (MxGmLayout, usize, usize, [usize; 5], [usize; 5]);
    let cases: [Case; 6] = [
        (
            MxGmLayout::AZz,
            m,
            k,
            [1, 3, 3, 16, 2],
            [m * k, k * 16, 32, 2, 1],
        ),
        (
            MxGmLayout::ANd,
            m,
            k,
            [1, 1, m, 3, 2],
            [m * k, m * k, k, 2, 1],
        ),
        (
            MxGmLayout::ADn,
            m,
            k,
            [1, 1, 3, m, 2],
            [m * k, m * k, 2 * m, 2, 1],
        ),
        (
            MxGmLayout::BNn,
            k,
            n,
            [1, 2, 3, 16, 2],
            [k * n, 16 * k, 32, 2, 1],
        ),
        (
            MxGmLayout::BNd,
            k,
            n,
            [1, 1, 3, n, 2],
            [k * n, k * n, 2 * n, 2, 1],
        ),
        (
            MxGmLayout::BDn,
            k,
            n,
            [1, 1, n, 3, 2],
            [k * n, k * n, k, 2, 1],
        ),
    ];
    for (l, rows, cols, shape, stride) in cases {
        let g = MxGlobalTensor::dense(64, l, rows, cols);
        assert_eq!((g.shape, g.stride), (shape, stride), "{}", l.name());
        assert_eq!(g.rows_cols(), (rows, cols), "{}", l.name());
        // Dense: every scale at a distinct offset below rows * cols.
        let mut seen = vec![false; rows * cols];
        for r in 0..rows {
            for c in 0..cols {
                let o = g.offset(r, c);
                assert!(
                    o < rows * cols && !seen[o],
                    "{} ({r}, {c}) -> {o}",
                    l.name()
                );
                seen[o] = true;
            }
        }
    }
    // The row-major and column-major ones are exactly that.
    let nd = MxGlobalTensor::dense(0, MxGmLayout::ANd, m, k);
    let dn = MxGlobalTensor::dense(0, MxGmLayout::BDn, k, n);
    assert_eq!(nd.offset(5, 3), 5 * k + 3);
    assert_eq!(dn.offset(5, 3), 3 * k + 5);
}

fn load_err(core: &mut TileCore, d: TileDesc, gt: &MxGlobalTensor) -> PtoError {
    let t = core.alloc(d).unwrap();
    let base = t.addr() as usize;
    let n = t.size_bytes() as usize;
    core.mem_mut(TileLoc::Mat)[base..base + n].fill(SENTINEL);
    let e = core.tload_mx(&t, gt).unwrap_err();
    assert!(
        core.mem(TileLoc::Mat).as_slice()[base..base + n]
            .iter()
            .all(|&b| b == SENTINEL),
        "a refused load wrote the tile: {e}"
    );
    e
}

fn rule_of(e: &PtoError) -> (&'static str, &'static str, String) {
    match e {
        PtoError::Static {
            op, operand, rule, ..
        }
        | PtoError::ValidRegion {
            op, operand, rule, ..
        } => (op, operand, rule.to_string()),
        other => panic!("not a Static/ValidRegion error: {other:?}"),
    }
}

#[test]
fn tload_mx_restrictions_are_typed_errors() {
    let mut core = TileCore::by_name("a5").unwrap();
    let data = vec![7u8; 4096];
    let addr = core.gm_bind(&data);
    let a_zz = MxGlobalTensor::dense(addr, MxGmLayout::AZz, 32, 4);
    let b_nn = MxGlobalTensor::dense(addr, MxGmLayout::BNn, 4, 32);
    let a_tile = scale_tile(true, 32, 4, PadValue::Null);
    let b_tile = scale_tile(false, 4, 32, PadValue::Null);
    // Legal loads run (every layout into its tile kind).
    for l in MxGmLayout::ALL {
        let (d, g) = if l.is_a() {
            (a_tile, MxGlobalTensor::dense(addr, l, 32, 4))
        } else {
            (b_tile, MxGlobalTensor::dense(addr, l, 4, 32))
        };
        let t = core.alloc(d).unwrap();
        core.tload_mx(&t, &g).unwrap();
    }
    // A2A3: the MX loads are A5's.
    let mut a2 = TileCore::by_name("a2a3").unwrap();
    let addr2 = a2.gm_bind(&data);
    let t = a2.alloc(a_tile).unwrap();
    let e = a2
        .tload_mx(&t, &MxGlobalTensor::dense(addr2, MxGmLayout::AZz, 32, 4))
        .unwrap_err();
    assert!(
        matches!(e, PtoError::Unsupported { op: "TLOAD", ref what, .. } if what.contains("MX_A_ZZ")),
        "{e:?}"
    );
    // Location: a Vec tile of the right layout.
    let mut d = a_tile;
    d.loc = TileLoc::Vec;
    let t = core.alloc(d).unwrap();
    let (op, operand, rule) = rule_of(&core.tload_mx(&t, &a_zz).unwrap_err());
    assert_eq!((op, operand), ("TLOAD", "dst"));
    assert!(rule.contains("Mat"), "{rule}");
    // Element type.
    let mut d = a_tile;
    d.dtype = ElemType::I8;
    let e = load_err(&mut core, d, &a_zz);
    assert!(
        matches!(
            e,
            PtoError::IllegalType {
                op: "TLOAD",
                operand: "dst",
                dtype: ElemType::I8,
                ..
            }
        ),
        "{e:?}"
    );
    // A layouts into NN, B layouts into ZZ, a wrong fractal.
    let (_, operand, rule) = rule_of(&load_err(&mut core, b_tile, &a_zz));
    assert!(operand == "dst" && rule.contains("ZZ tile"), "{rule}");
    let (_, _, rule) = rule_of(&load_err(&mut core, a_tile, &b_nn));
    assert!(rule.contains("NN tile"), "{rule}");
    let d = TileDesc::new(TileLoc::Mat, ElemType::F8E8M0, 32, 32)
        .layout(BLayout::RowMajor, SLayout::RowMajor)
        .fractal(512)
        .at(1024);
    let (_, _, rule) = rule_of(&load_err(&mut core, d, &a_zz));
    assert!(rule.contains("fractal 32"), "{rule}");
    // The L1 size rule: Rows * Cols <= 512 Ki.
    let big = scale_tile(true, 1024, 514, PadValue::Null).at(0);
    let big_gt = MxGlobalTensor::dense(addr, MxGmLayout::ANd, 32, 4);
    // (A tile that large does not fit L1 either: validated, not allocated, to reach the rule.)
    let t = Tile::validate(big, "test", "big").unwrap();
    let (_, _, rule) = rule_of(&core.tload_mx(&t, &big_gt).unwrap_err());
    assert!(rule.contains("512 KiB"), "{rule}");
    // ZZ / NN: Shape3 = 16 and Shape4 = 2.
    for (k, v) in [(3usize, 8usize), (4, 4)] {
        for (g, d) in [(a_zz, a_tile), (b_nn, b_tile)] {
            let mut g = g;
            g.shape[k] = v;
            let (_, operand, rule) = rule_of(&load_err(&mut core, d, &g));
            assert!(
                operand == "src" && rule.contains("Shape3 must be 16 and Shape4 2"),
                "{rule}"
            );
        }
    }
    // ND / DN: Shape0 = Shape1 = 1 and Shape4 = 2.
    for l in [
        MxGmLayout::ANd,
        MxGmLayout::ADn,
        MxGmLayout::BNd,
        MxGmLayout::BDn,
    ] {
        for (k, v) in [(0usize, 2usize), (1, 2), (4, 4)] {
            let (mut g, d) = if l.is_a() {
                (MxGlobalTensor::dense(addr, l, 32, 4), a_tile)
            } else {
                (MxGlobalTensor::dense(addr, l, 4, 32), b_tile)
            };
            g.shape[k] = v;
            let (_, operand, rule) = rule_of(&load_err(&mut core, d, &g));
            assert!(
                operand == "src" && rule.contains("Shape0 and Shape1 must be 1 and Shape4 2"),
                "{} shape {:?}: {rule}",
                l.name(),
                g.shape
            );
        }
    }
    // scaleA's valid columns even, scaleB's valid rows even (odd valid regions).
    let (_, _, rule) = rule_of(&load_err(&mut core, a_tile.valid(32, 3), &a_zz));
    assert!(rule.contains("scaleA") && rule.contains("even"), "{rule}");
    let (_, _, rule) = rule_of(&load_err(&mut core, b_tile.valid(3, 32), &b_nn));
    assert!(rule.contains("scaleB") && rule.contains("even"), "{rule}");
    // Odd the other way round is fine (scaleA's rows, scaleB's columns).
    let a_nd = MxGlobalTensor::dense(addr, MxGmLayout::ANd, 32, 4);
    let t = core.alloc(a_tile.valid(31, 4)).unwrap();
    core.tload_mx(&t, &a_nd).unwrap();
    let b_nd = MxGlobalTensor::dense(addr, MxGmLayout::BNd, 4, 32);
    let t = core.alloc(b_tile.valid(4, 31)).unwrap();
    core.tload_mx(&t, &b_nd).unwrap();
    // ZZ / NN: the tile must hold the global matrix (here 48 rows into 32).
    let g = MxGlobalTensor::dense(addr, MxGmLayout::AZz, 48, 4);
    let (_, _, rule) = rule_of(&load_err(&mut core, a_tile.valid(32, 4), &g));
    assert!(rule.contains("hold the global"), "{rule}");
    // The valid region inside the global matrix.
    let g = MxGlobalTensor::dense(addr, MxGmLayout::ANd, 16, 4);
    let (_, _, rule) = rule_of(&load_err(&mut core, a_tile.valid(32, 4), &g));
    assert!(rule.contains("within the global"), "{rule}");
    // Zero shapes.
    let mut g = a_nd;
    g.shape[2] = 0;
    let (_, _, rule) = rule_of(&load_err(&mut core, a_tile, &g));
    assert!(rule.contains("> 0"), "{rule}");
    // A GM fault is reported before anything is written.
    let far = MxGlobalTensor::dense(core.gm().capacity() as u64 - 16, MxGmLayout::ANd, 32, 4);
    let e = load_err(&mut core, scale_tile(true, 32, 4, PadValue::Zero), &far);
    assert!(matches!(e, PtoError::Memory { op: "TLOAD", .. }), "{e:?}");
}

/// A one-row ZZ scale tile (a TGEMV_MX scale row): `MX_A_ND` with Shape2 = 1 and a plain ND
/// TLOAD of the same bytes fill it alike (both row 0, columns in order).
#[test]
fn one_row_scale_tile_loads_alike() {
    let data: Vec<u8> = (0..8u8).map(|i| 120 + i).collect();
    let mut out = Vec::new();
    for mx in [true, false] {
        let mut core = TileCore::by_name("a5").unwrap();
        let addr = core.gm_bind(&data);
        let t = core
            .alloc(scale_tile(true, 1, 8, PadValue::Null).valid(1, 8))
            .unwrap();
        if mx {
            core.tload_mx(&t, &MxGlobalTensor::dense(addr, MxGmLayout::ANd, 1, 8))
                .unwrap();
        } else {
            core.tload(&t, &GlobalTensor::nd_2d(addr, ElemType::F8E8M0, 1, 8))
                .unwrap();
        }
        let b = t.addr() as usize;
        out.push(core.mem(TileLoc::Mat).as_slice()[b..b + 128].to_vec());
    }
    assert_eq!(out[0], out[1]);
    // Row 0 of 16 x 2 boxes one box apart: columns (2j, 2j + 1) at bytes 32j, 32j + 1; the
    // other rows of each box are not written (pad Null, memory zero).
    for j in 0..4 {
        assert_eq!(&out[0][32 * j..32 * j + 2], &data[2 * j..2 * j + 2]);
        assert!(out[0][32 * j + 2..32 * (j + 1)].iter().all(|&x| x == 0));
    }
}

/// Absurd shapes and strides give typed errors, not an arithmetic panic.
#[test]
fn absurd_shapes_and_strides_are_errors_not_panics() {
    let mut core = TileCore::by_name("a5").unwrap();
    let addr = core.gm_bind(&[1u8; 64]);
    let t = core
        .alloc(scale_tile(true, 16, 2, PadValue::Null).valid(2, 2))
        .unwrap();
    // (1, 1) of MX_A_ND sits at Stride2 + Stride4: past usize::MAX.
    let g = MxGlobalTensor {
        addr,
        shape: [1, 1, 2, 1, 2],
        stride: [usize::MAX, usize::MAX, usize::MAX, 2, 1],
        layout: MxGmLayout::ANd,
    };
    let e = core.tload_mx(&t, &g).unwrap_err();
    assert!(
        matches!(
            e,
            PtoError::ValidRegion { operand: "src", .. } | PtoError::Memory { .. }
        ),
        "{e:?}"
    );
    // An MX_A_ZZ row count of usize::MAX * 2 * 16.
    let g = MxGlobalTensor {
        addr,
        shape: [usize::MAX, 2, 1, 16, 2],
        stride: [64, 32, 32, 2, 1],
        layout: MxGmLayout::AZz,
    };
    let e = core.tload_mx(&t, &g).unwrap_err();
    assert!(
        matches!(e, PtoError::ValidRegion { operand: "dst", rule, .. } if rule.contains("hold the global")),
        "{e:?}"
    );
}
