//! The examples of seeds 002 (TPARTMIN) and 004 (TDIVS), auto and manual forms, checked against
//! an independent scalar model written here with plain f32 arithmetic.
#![allow(clippy::needless_range_loop)]

use npusim_pto::*;

fn cores() -> Vec<TileCore> {
    ["a2a3", "a5"]
        .iter()
        .map(|n| TileCore::by_name(n).unwrap())
        .collect()
}

fn values(seed: u32, n: usize) -> Vec<f32> {
    (0..n)
        .map(|i| (((i as u32).wrapping_mul(2654435761u32) ^ seed) % 2001) as f32 / 100.0 - 10.0)
        .collect()
}

/// `TileT = Tile<TileType::Vec, float, 16, 16>` at `addr`.
fn tile(core: &TileCore, addr: u64) -> Tile {
    core.alloc(TileDesc::vec(ElemType::F32, 16, 16).at(addr))
        .unwrap()
}

fn tpartmin_example(core: &mut TileCore, addrs: [u64; 3]) {
    let (src0, src1, dst) = (
        tile(core, addrs[0]),
        tile(core, addrs[1]),
        tile(core, addrs[2]),
    );
    let (a, b) = (values(1, 256), values(2, 256));
    core.write_valid(&src0, &a).unwrap();
    core.write_valid(&src1, &b).unwrap();
    core.tpartmin(&dst, &src0, &src1).unwrap();
    let got = core.read_valid::<f32>(&dst).unwrap();
    for i in 0..256 {
        let want = if a[i] < b[i] { a[i] } else { b[i] };
        assert_eq!(got[i], want, "element {i}");
    }
}

#[test]
fn seed_002_tpartmin_auto_and_manual() {
    for mut core in cores() {
        // Auto: the compiler places the tiles; any disjoint placement will do.
        tpartmin_example(&mut core, [0x0, 0x400, 0x800]);
        // Manual: TASSIGN(src0, 0x1000); TASSIGN(src1, 0x2000); TASSIGN(dst, 0x3000).
        tpartmin_example(&mut core, [0x1000, 0x2000, 0x3000]);
    }
}

#[test]
fn seed_002_tpartmin_mismatched_valid_regions() {
    for mut core in cores() {
        let arch = core.arch();
        let (s0, s1, d) = (
            tile(&core, 0x1000),
            tile(&core, 0x2000),
            tile(&core, 0x3000),
        );
        let (a, b) = (values(3, 256), values(4, 256));
        core.write_valid(&s0, &a).unwrap();
        core.write_valid(&s1, &b).unwrap();
        // src1 valid 8x12 inside dst 16x16, src0 equal to dst: legal on both chips.
        let s1v = s1.with_valid(8, 12).unwrap();
        core.tpartmin(&d, &s0, &s1v).unwrap();
        let got = core.read_valid::<f32>(&d).unwrap();
        for r in 0..16 {
            for c in 0..16 {
                let (x, y) = (a[r * 16 + c], b[r * 16 + c]);
                let want = if r < 8 && c < 12 { x.min(y) } else { x };
                assert_eq!(got[r * 16 + c], want, "{arch:?} ({r},{c})");
            }
        }
        // Neither source equals dst: A2A3 asserts (an error here); A5 accepts (both <= dst)
        // and the lanes where neither is valid become 0.
        let s0v = s0.with_valid(16, 8).unwrap();
        let r = core.tpartmin(&d, &s0v, &s1v);
        match arch {
            npusim_core::TileArch::A2A3 => {
                assert!(matches!(r, Err(PtoError::ValidRegion { .. })), "{r:?}")
            }
            npusim_core::TileArch::A5 => {
                r.unwrap();
                let got = core.read_valid::<f32>(&d).unwrap();
                for rr in 0..16 {
                    for c in 0..16 {
                        let (x, y) = (a[rr * 16 + c], b[rr * 16 + c]);
                        let want = match (c < 8, rr < 8 && c < 12) {
                            (true, true) => x.min(y),
                            (true, false) => x,
                            (false, true) => y,
                            (false, false) => 0.0,
                        };
                        assert_eq!(got[rr * 16 + c], want, "a5 ({rr},{c})");
                    }
                }
            }
        }
        // A source larger than dst is an error on both.
        let dsmall = d.with_valid(8, 8).unwrap();
        let e = core.tpartmin(&dsmall, &s0, &s1).unwrap_err();
        assert!(matches!(e, PtoError::ValidRegion { .. }), "{e}");
        // Empty dst: early return, dst untouched.
        core.write_valid(&d, &[7.0f32; 256]).unwrap();
        core.tpartmin(&d.with_valid(0, 16).unwrap(), &s0, &s1)
            .unwrap();
        assert!(
            core.read_valid::<f32>(&d)
                .unwrap()
                .iter()
                .all(|v| *v == 7.0)
        );
    }
}

#[test]
fn seed_004_tdivs_auto_and_manual() {
    for mut core in cores() {
        let x = values(5, 256);
        // Auto: TDIVS(dst, src, 2.0f) -> dst = src / 2.
        let (src, dst) = (tile(&core, 0x0), tile(&core, 0x400));
        core.write_valid(&src, &x).unwrap();
        core.tdivs(&dst, &src, 2.0f32).unwrap();
        let got = core.read_valid::<f32>(&dst).unwrap();
        for i in 0..256 {
            assert_eq!(got[i], x[i] / 2.0);
        }
        // Manual: TASSIGN(src, 0x1000); TASSIGN(dst, 0x2000); TDIVS(dst, 2.0f, src) -> 2 / src.
        let (src, dst) = (tile(&core, 0x1000), tile(&core, 0x2000));
        core.write_valid(&src, &x).unwrap();
        core.tdivs_scalar_tile(&dst, Scalar::Float(2.0), &src)
            .unwrap();
        let got = core.read_valid::<f32>(&dst).unwrap();
        for i in 0..256 {
            assert_eq!(got[i].to_bits(), (2.0 / x[i]).to_bits(), "element {i}");
        }
        // Same through the data-driven entry.
        core.exec(&TileOp {
            op: OpCode::Tdivs,
            args: Args::ScalarTile {
                dst,
                scalar: Scalar::Float(2.0),
                src,
            },
        })
        .unwrap();
        assert_eq!(core.read_valid::<f32>(&dst).unwrap(), got);
    }
}

#[test]
fn seed_004_tdivs_by_zero() {
    for mut core in cores() {
        let (src, dst) = (tile(&core, 0x1000), tile(&core, 0x2000));
        let x: Vec<f32> = (0..256)
            .map(|i| if i % 2 == 0 { 1.5 } else { -1.5 })
            .collect();
        core.write_valid(&src, &x).unwrap();
        core.tdivs(&dst, &src, 0.0f32).unwrap();
        let got = core.read_valid::<f32>(&dst).unwrap();
        for i in 0..256 {
            assert_eq!(
                got[i],
                if i % 2 == 0 {
                    f32::INFINITY
                } else {
                    f32::NEG_INFINITY
                }
            );
        }
        let si = core
            .alloc(TileDesc::vec(ElemType::I32, 16, 16).at(0x4000))
            .unwrap();
        let di = core
            .alloc(TileDesc::vec(ElemType::I32, 16, 16).at(0x5000))
            .unwrap();
        let e = core.tdivs(&di, &si, Scalar::Int(0)).unwrap_err();
        assert!(matches!(e, PtoError::DivByZero { .. }), "{e}");
        // scalar / tile with a zero element at (3, 7).
        core.write_valid(
            &si,
            &(0..256)
                .map(|i| if i == 3 * 16 + 7 { 0 } else { i + 1 })
                .collect::<Vec<i32>>(),
        )
        .unwrap();
        let e = core
            .tdivs_scalar_tile(&di, Scalar::Int(100), &si)
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "TDIVS: integer division by zero: divisor src is 0 at element (3, 7)"
        );
    }
}
