//! TTRANS on ConvTiles (pto-isa `docs/isa/TTRANS.md` "ConvTile"; index math of pto-isa's NPU
//! `TTrans.hpp`, both archs) against plain models written here by logical coordinates:
//! - NCHW -> NC1HWC0: `dst[n][c1][h][w][c0] = S[((n * C1 + c1) * C0 + c0) * H * W + h * W +
//!   w]`, the source read as `[N, C1 * C0, H, W]` (the NPU code's channel stride), and GNCHW ->
//!   GNC1HWC0 the same per group; the reverse forms (A2A3) the inverse with `C = C1 * C0`;
//! - NC1HWC0 -> FRACTAL_Z: `dst[(c1 * H + h) * W + w][n][c0] = src[n][c1][h][w][c0]`, rows
//!   `n >= N` untouched; GNC1HWC0 -> FRACTAL_Z per group with the source's groups `N1 * N0`
//!   samples apart, rows `n >= N` zero;
//! - NCDHW -> FRACTAL_Z_3D (A2A3): `dst[((d * C1 + c1) * H + h) * W + w][n][c0] =
//!   src[n][c1 * C0 + c0][d][h][w]`, zero for `n >= N` or `c1 * C0 + c0 >= C`.
//!
//! Buffers are flat element arrays; dst starts as a sentinel pattern so untouched elements are
//! seen. Plus every documented restriction as a typed error.

use npusim_pto::ops::conv_trans::{ConvFormat, ConvShape};
use npusim_pto::*;
use proptest::prelude::*;

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(48)
}

use ConvFormat::*;

const TYPES: [ElemType; 3] = [ElemType::F32, ElemType::F16, ElemType::I8];

/// A Vec buffer of at least `elems` elements at `addr` (rows of one 32-byte block).
fn buffer(c: &mut TileCore, t: ElemType, elems: usize, addr: u64) -> Tile {
    let per = 32 / t.size();
    let rows = elems.div_ceil(per).max(1);
    c.alloc(TileDesc::new(TileLoc::Vec, t, rows, per).at(addr))
        .unwrap()
}

fn put(c: &mut TileCore, t: &Tile, v: &[u64]) {
    let size = t.dtype().size();
    let a = t.addr() as usize;
    let m = c.mem_mut(TileLoc::Vec);
    for (k, x) in v.iter().enumerate() {
        m[a + k * size..a + (k + 1) * size].copy_from_slice(&x.to_le_bytes()[..size]);
    }
}

fn get(c: &TileCore, t: &Tile, n: usize) -> Vec<u64> {
    let size = t.dtype().size();
    let a = t.addr() as usize;
    let m = c.mem(TileLoc::Vec).as_slice();
    (0..n)
        .map(|k| {
            let mut w = [0u8; 8];
            w[..size].copy_from_slice(&m[a + k * size..a + (k + 1) * size]);
            u64::from_le_bytes(w)
        })
        .collect()
}

fn align32(x: u64) -> u64 {
    x.div_ceil(32) * 32
}

/// One case: the src buffer holds `src_elems` elements (random), dst `dst_elems` (a
/// sentinel); returns dst's elements after the op, and the src and dst images before.
#[allow(clippy::type_complexity)]
fn run(
    arch: &str,
    t: ElemType,
    src_shape: ConvShape,
    src_elems: usize,
    dst_shape: ConvShape,
    dst_elems: usize,
    seed: u64,
) -> Result<(Vec<u64>, Vec<u64>, Vec<u64>), String> {
    let mut c = TileCore::by_name(arch).unwrap();
    let size = t.size() as u64;
    let mask = if size == 8 {
        u64::MAX
    } else {
        (1u64 << (8 * size)) - 1
    };
    let src = buffer(&mut c, t, src_elems, 0);
    let dst_at = align32(src.size_bytes());
    let dst = buffer(&mut c, t, dst_elems, dst_at);
    let tmp_at = align32(dst_at + dst.size_bytes());
    let cap = c.mem(TileLoc::Vec).capacity() as u64;
    let tmp_elems = ((cap - tmp_at) / size) as usize;
    let tmp = buffer(&mut c, t, tmp_elems.min(16384) - 16, tmp_at);
    let mut s = seed | 1;
    let sv: Vec<u64> = (0..src_elems)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s & mask
        })
        .collect();
    let dv: Vec<u64> = (0..dst_elems)
        .map(|k| (0xa5a5_a5a5_a5a5_a5a5u64 ^ k as u64) & mask)
        .collect();
    put(&mut c, &src, &sv);
    put(&mut c, &dst, &dv);
    c.exec(&TileOp {
        op: OpCode::Ttrans,
        args: Args::TransposeConv {
            dst,
            src,
            tmp,
            dst_shape,
            src_shape,
        },
    })
    .map_err(|e| e.to_string())?;
    Ok((get(&c, &dst, dst_elems), sv, dv))
}

/// The model of every form on flat buffers (`s`: source image, `d0`: dst before).
fn model(
    sf: ConvFormat,
    s_dims: &[usize],
    df: ConvFormat,
    d_dims: &[usize],
    s: &[u64],
    d0: &[u64],
) -> Vec<u64> {
    let mut d = d0.to_vec();
    match (sf, df) {
        (Nchw, Nc1hwc0) | (Gnchw, Gnc1hwc0) => {
            let g0 = usize::from(sf == Gnchw);
            let g = if g0 == 1 { s_dims[0] } else { 1 };
            let (n, h, w) = (s_dims[g0], s_dims[g0 + 2], s_dims[g0 + 3]);
            let (c1, c0) = (d_dims[g0 + 1], d_dims[g0 + 4]);
            for gi in 0..g {
                for ni in 0..n {
                    for ci in 0..c1 {
                        for hi in 0..h {
                            for wi in 0..w {
                                for k in 0..c0 {
                                    let di =
                                        ((((gi * n + ni) * c1 + ci) * h + hi) * w + wi) * c0 + k;
                                    let ch = (gi * n + ni) * c1 * c0 + ci * c0 + k;
                                    d[di] = s[ch * h * w + hi * w + wi];
                                }
                            }
                        }
                    }
                }
            }
        }
        (Nc1hwc0, Nchw) | (Gnc1hwc0, Gnchw) => {
            let g0 = usize::from(sf == Gnc1hwc0);
            let g = if g0 == 1 { s_dims[0] } else { 1 };
            let (n, c1, h, w, c0) = (
                s_dims[g0],
                s_dims[g0 + 1],
                s_dims[g0 + 2],
                s_dims[g0 + 3],
                s_dims[g0 + 4],
            );
            let c = c1 * c0;
            for gi in 0..g {
                for ni in 0..n {
                    for ch in 0..c {
                        for hi in 0..h {
                            for wi in 0..w {
                                let di = (((gi * n + ni) * c + ch) * h + hi) * w + wi;
                                let si = ((((gi * n + ni) * c1 + ch / c0) * h + hi) * w + wi) * c0
                                    + ch % c0;
                                d[di] = s[si];
                            }
                        }
                    }
                }
            }
        }
        (Nc1hwc0, FractalZ) | (Gnc1hwc0, FractalZ) => {
            let g0 = usize::from(sf == Gnc1hwc0);
            let g = if g0 == 1 { s_dims[0] } else { 1 };
            let (n, c1, h, w, c0) = (
                s_dims[g0],
                s_dims[g0 + 1],
                s_dims[g0 + 2],
                s_dims[g0 + 3],
                s_dims[g0 + 4],
            );
            let np = d_dims[1] * d_dims[2];
            for gi in 0..g {
                for ci in 0..c1 {
                    for hi in 0..h {
                        for wi in 0..w {
                            let row = ((gi * c1 + ci) * h + hi) * w + wi;
                            for ni in 0..np {
                                for k in 0..c0 {
                                    let di = (row * np + ni) * c0 + k;
                                    if ni < n {
                                        // the source's groups lie N1 * N0 samples apart
                                        let sample = gi * np + ni;
                                        d[di] =
                                            s[(((sample * c1 + ci) * h + hi) * w + wi) * c0 + k];
                                    } else if g0 == 1 {
                                        d[di] = 0;
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        (Ncdhw, FractalZ3d) => {
            let (n, c, dd, h, w) = (s_dims[0], s_dims[1], s_dims[2], s_dims[3], s_dims[4]);
            let (np, c0) = (d_dims[1] * d_dims[2], d_dims[3]);
            let c1 = c.div_ceil(c0);
            for di in 0..dd {
                for ci in 0..c1 {
                    for hi in 0..h {
                        for wi in 0..w {
                            let row = ((di * c1 + ci) * h + hi) * w + wi;
                            for ni in 0..np {
                                for k in 0..c0 {
                                    let ch = ci * c0 + k;
                                    d[(row * np + ni) * c0 + k] = if ni < n && ch < c {
                                        s[(((ni * c + ch) * dd + di) * h + hi) * w + wi]
                                    } else {
                                        0
                                    };
                                }
                            }
                        }
                    }
                }
            }
        }
        _ => unreachable!(),
    }
    d
}

/// (H, W) with H * W * sizeof(T) a multiple of 32.
fn hw(t: ElemType, pick: usize) -> (usize, usize) {
    let b = 32 / t.size();
    match pick % 3 {
        0 => (1, b),
        1 => (2, b / 2),
        _ => (2, b),
    }
}

fn check(
    arch: &str,
    t: ElemType,
    (sf, s_dims): (ConvFormat, Vec<usize>),
    (df, d_dims): (ConvFormat, Vec<usize>),
    src_elems: usize,
    seed: u64,
) -> Result<(), TestCaseError> {
    let d_elems: usize = d_dims.iter().product();
    let (got, s, d0) = run(
        arch,
        t,
        ConvShape::new(sf, &s_dims),
        src_elems,
        ConvShape::new(df, &d_dims),
        d_elems,
        seed,
    )
    .map_err(TestCaseError::fail)?;
    let want = model(sf, &s_dims, df, &d_dims, &s, &d0);
    for k in 0..d_elems {
        prop_assert_eq!(
            got[k],
            want[k],
            "{} {:?} {:?} {:?} -> {:?} {:?} at {}",
            arch,
            t,
            sf,
            s_dims,
            df,
            d_dims,
            k
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    /// NCHW -> NC1HWC0 and GNCHW -> GNC1HWC0, both archs, C0 = 32 / sizeof(T) or 4.
    #[test]
    fn to_nc1hwc0_matches_the_model(
        a5 in any::<bool>(), ti in 0usize..3, grouped in any::<bool>(),
        g in 1usize..3, n in 1usize..4, c in 1usize..40, pick in 0usize..3, four in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let t = TYPES[ti];
        let c0 = if four { 4 } else { 32 / t.size() };
        let (h, w) = hw(t, pick);
        let c1 = c.div_ceil(c0);
        let (s, d) = if grouped {
            ((Gnchw, vec![g, n, c, h, w]), (Gnc1hwc0, vec![g, n, c1, h, w, c0]))
        } else {
            ((Nchw, vec![n, c, h, w]), (Nc1hwc0, vec![n, c1, h, w, c0]))
        };
        let gg = if grouped { g } else { 1 };
        // the source is read with C1 * C0 channels per sample
        check(if a5 { "a5" } else { "a2a3" }, t, s, d, gg * n * c1 * c0 * h * w, seed)?;
    }

    /// NC1HWC0 -> NCHW and GNC1HWC0 -> GNCHW (A2A3).
    #[test]
    fn from_nc1hwc0_matches_the_model(
        ti in 0usize..3, grouped in any::<bool>(),
        g in 1usize..3, n in 1usize..4, c1 in 1usize..4, h in 1usize..4, w in 1usize..5, four in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let t = TYPES[ti];
        let c0 = if four && !grouped { 4 } else { 32 / t.size() };
        let (s, d) = if grouped {
            ((Gnc1hwc0, vec![g, n, c1, h, w, c0]), (Gnchw, vec![g, n, c1 * c0, h, w]))
        } else {
            ((Nc1hwc0, vec![n, c1, h, w, c0]), (Nchw, vec![n, c1 * c0, h, w]))
        };
        let gg = if grouped { g } else { 1 };
        check("a2a3", t, s, d, gg * n * c1 * c0 * h * w, seed)?;
    }

    /// NC1HWC0 -> FRACTAL_Z and GNC1HWC0 -> FRACTAL_Z, both archs.
    #[test]
    fn to_fractal_z_matches_the_model(
        a5 in any::<bool>(), ti in 0usize..3, grouped in any::<bool>(),
        g in 1usize..3, n in 1usize..40, c1 in 1usize..3, h in 1usize..3, w in 1usize..3, c0 in 1usize..20,
        seed in any::<u64>(),
    ) {
        let t = TYPES[ti];
        let n1 = n.div_ceil(16);
        let (s, d, elems) = if grouped {
            // the source's groups lie N1 * N0 samples apart
            (
                (Gnc1hwc0, vec![g, n, c1, h, w, c0]),
                (FractalZ, vec![g * c1 * h * w, n1, 16, c0]),
                ((g - 1) * n1 * 16 + n) * c1 * h * w * c0,
            )
        } else {
            (
                (Nc1hwc0, vec![n, c1, h, w, c0]),
                (FractalZ, vec![c1 * h * w, n1, 16, c0]),
                n * c1 * h * w * c0,
            )
        };
        check(if a5 { "a5" } else { "a2a3" }, t, s, d, elems, seed)?;
    }

    /// NCDHW -> FRACTAL_Z_3D (A2A3).
    #[test]
    fn to_fractal_z_3d_matches_the_model(
        ti in 0usize..3, n in 1usize..20, c in 1usize..40, dd in 1usize..3, h in 1usize..3, w in 1usize..3,
        seed in any::<u64>(),
    ) {
        let t = TYPES[ti];
        let c0 = 32 / t.size();
        let c1 = c.div_ceil(c0);
        check(
            "a2a3",
            t,
            (Ncdhw, vec![n, c, dd, h, w]),
            (FractalZ3d, vec![dd * c1 * h * w, n.div_ceil(16), 16, c0]),
            n * c * dd * h * w,
            seed,
        )?;
    }
}

/// A hand-worked case: NCHW [1, 3, 1, 8] f32 -> NC1HWC0 [1, 1, 1, 8, 4] (C0 = 4): element
/// (c, w) lands at w * 4 + c; channel 3 (padding) comes from the source buffer's 4th row.
#[test]
fn worked_nchw_to_nc1hwc0() {
    let t = ElemType::F32;
    let (got, s, _) = run(
        "a2a3",
        t,
        ConvShape::new(Nchw, &[1, 3, 1, 8]),
        32,
        ConvShape::new(Nc1hwc0, &[1, 1, 1, 8, 4]),
        32,
        7,
    )
    .unwrap();
    for w in 0..8 {
        for c in 0..4 {
            assert_eq!(got[w * 4 + c], s[c * 8 + w], "w {w} c {c}");
        }
    }
}

/// Every documented restriction is a typed error naming TTRANS, the operand and the rule.
#[test]
fn conv_restrictions() {
    let f = ElemType::F32;
    let err =
        |arch: &str, s: (ConvFormat, &[usize]), d: (ConvFormat, &[usize]), se: usize, de: usize| {
            run(
                arch,
                f,
                ConvShape::new(s.0, s.1),
                se,
                ConvShape::new(d.0, d.1),
                de,
                1,
            )
            .unwrap_err()
        };
    let has = |e: String, parts: &[&str]| {
        assert!(e.contains("TTRANS"), "{e}");
        for p in parts {
            assert!(e.contains(p), "{p:?} not in {e}");
        }
    };
    // rank and zero dims
    has(
        err(
            "a2a3",
            (Nchw, &[1, 8, 1]),
            (Nc1hwc0, &[1, 1, 1, 8, 8]),
            64,
            64,
        ),
        &["src", "rank"],
    );
    has(
        err(
            "a2a3",
            (Nchw, &[1, 0, 1, 8]),
            (Nc1hwc0, &[1, 1, 1, 8, 8]),
            64,
            64,
        ),
        &["at least 1"],
    );
    // forms: an unknown pair; the reverse and 3-D forms on A5
    has(
        err(
            "a2a3",
            (Nchw, &[1, 8, 1, 8]),
            (FractalZ, &[8, 1, 16, 8]),
            64,
            1024,
        ),
        &["dst", "ConvTile transposes"],
    );
    has(
        err(
            "a5",
            (Nc1hwc0, &[1, 1, 1, 8, 8]),
            (Nchw, &[1, 8, 1, 8]),
            64,
            64,
        ),
        &["a5 ConvTile transposes"],
    );
    has(
        err(
            "a5",
            (Ncdhw, &[1, 8, 1, 1, 8]),
            (FractalZ3d, &[8, 1, 16, 8]),
            64,
            1024,
        ),
        &["a5 ConvTile transposes"],
    );
    // shape relations
    has(
        err(
            "a2a3",
            (Nchw, &[1, 9, 1, 8]),
            (Nc1hwc0, &[1, 1, 1, 8, 8]),
            128,
            64,
        ),
        &["C1 must be ceil(C / C0)"],
    );
    has(
        err(
            "a2a3",
            (Nchw, &[2, 8, 1, 8]),
            (Nc1hwc0, &[1, 1, 1, 8, 8]),
            128,
            64,
        ),
        &["N, H, W"],
    );
    has(
        err(
            "a2a3",
            (Nchw, &[1, 8, 1, 8]),
            (Nc1hwc0, &[1, 2, 1, 8, 5]),
            128,
            128,
        ),
        &["C0 must be 32 / sizeof(T) or 4", "C0 5"],
    );
    has(
        err(
            "a2a3",
            (Nchw, &[1, 8, 1, 3]),
            (Nc1hwc0, &[1, 1, 1, 3, 8]),
            64,
            64,
        ),
        &["H * W * sizeof(T)", "1 * 3 * 4"],
    );
    has(
        err(
            "a2a3",
            (Nc1hwc0, &[1, 1, 1, 8, 8]),
            (Nchw, &[1, 9, 1, 8]),
            64,
            128,
        ),
        &["C must be C1 * C0"],
    );
    has(
        err(
            "a2a3",
            (Gnc1hwc0, &[1, 1, 1, 1, 8, 4]),
            (Gnchw, &[1, 1, 4, 1, 8]),
            64,
            64,
        ),
        &["C0 must be 32 / sizeof(T)"],
    );
    has(
        err(
            "a2a3",
            (Nc1hwc0, &[1, 1, 1, 8, 8]),
            (FractalZ, &[8, 1, 8, 8]),
            64,
            1024,
        ),
        &["N0 must be 16"],
    );
    has(
        err(
            "a2a3",
            (Nc1hwc0, &[1, 1, 1, 8, 8]),
            (FractalZ, &[4, 1, 16, 8]),
            64,
            1024,
        ),
        &["FRACTAL_Z must be"],
    );
    has(
        err(
            "a2a3",
            (Ncdhw, &[1, 8, 1, 1, 8]),
            (FractalZ3d, &[8, 1, 16, 4]),
            64,
            1024,
        ),
        &["C0 must be 32 / sizeof(T)"],
    );
    has(
        err(
            "a2a3",
            (Ncdhw, &[1, 9, 1, 1, 8]),
            (FractalZ3d, &[8, 1, 16, 8]),
            128,
            1024,
        ),
        &["FRACTAL_Z_3D must be"],
    );
    // the padded source read past the source tile
    has(
        err(
            "a2a3",
            (Nchw, &[1, 9, 1, 8]),
            (Nc1hwc0, &[1, 2, 1, 8, 8]),
            72,
            128,
        ),
        &["src", "inside its tile", "512 bytes in a 288-byte tile"],
    );
}

/// The tmp rules (A2A3): size, Vec, no overlap; A5 ignores tmp; the FRACTAL_Z forms never use
/// it.
#[test]
fn conv_tmp_restrictions() {
    let f = ElemType::F32;
    let shapes = (
        ConvShape::new(Nchw, &[1, 8, 2, 8]),
        ConvShape::new(Nc1hwc0, &[1, 1, 2, 8, 8]),
    );
    // tmpSize = H * W * ceil(C0 / 16) * 16 * 4 = 16 * 16 * 4 = 1024 bytes
    let go = |arch: &str, tmp_elems: usize, tmp_at: u64, loc: TileLoc| -> Result<(), String> {
        let mut c = TileCore::by_name(arch).unwrap();
        let src = buffer(&mut c, f, 128, 0);
        let dst = buffer(&mut c, f, 128, 512);
        let tmp = c
            .alloc(TileDesc::new(loc, f, tmp_elems / 8, 8).at(tmp_at))
            .unwrap();
        c.exec(&TileOp {
            op: OpCode::Ttrans,
            args: Args::TransposeConv {
                dst,
                src,
                tmp,
                dst_shape: shapes.1,
                src_shape: shapes.0,
            },
        })
        .map_err(|e| e.to_string())
    };
    go("a2a3", 256, 1024, TileLoc::Vec).unwrap();
    let e = go("a2a3", 248, 1024, TileLoc::Vec).unwrap_err();
    assert!(
        e.contains("TTRANS") && e.contains("tmp") && e.contains("992 bytes for 1024"),
        "{e}"
    );
    let e = go("a2a3", 256, 256, TileLoc::Vec).unwrap_err();
    assert!(e.contains("must not overlap") && e.contains("src"), "{e}");
    let e = go("a2a3", 256, 768, TileLoc::Vec).unwrap_err();
    assert!(e.contains("must not overlap") && e.contains("dst"), "{e}");
    let e = go("a2a3", 256, 0, TileLoc::Mat).unwrap_err();
    assert!(e.contains("TTRANS") && e.contains("tmp"), "{e}");
    go("a5", 8, 256, TileLoc::Vec).unwrap();
    // FRACTAL_Z_3D always uses tmp: (N*C1*C0*HW + max(that, HW*ceil(C0/16)*16)) * 4 =
    // (64 + 128) * 4 = 768 bytes for N = 1, C = 8, D = 1, H = 1, W = 8.
    let mut c = TileCore::by_name("a2a3").unwrap();
    let src = buffer(&mut c, f, 64, 0);
    let dst = buffer(&mut c, f, 1024, 256);
    let small = buffer(&mut c, f, 184, 8192);
    let e = c
        .exec(&TileOp {
            op: OpCode::Ttrans,
            args: Args::TransposeConv {
                dst,
                src,
                tmp: small,
                dst_shape: ConvShape::new(FractalZ3d, &[8, 1, 16, 8]),
                src_shape: ConvShape::new(Ncdhw, &[1, 8, 1, 1, 8]),
            },
        })
        .unwrap_err()
        .to_string();
    assert!(e.contains("736 bytes for 768"), "{e}");
}
