//! Plain TEXTRACT from an Acc tile (pto-isa `TEXTRACT_TILE_IMPL`'s Acc branch, `docs/isa/
//! TEXTRACT.md`) against a plain model written here: a window of an Acc tile (Nz, 16 x 16
//! boxes of f32) at `(row, col)` moved into a Mat tile (Nz, 16-row x 32-byte boxes; on A5 also
//! ND) or, on A5, a Vec tile (Nz or ND) through the fixpipe's cast: float to half / bfloat16
//! rounds to nearest even, float to float keeps the bits. Operands are written and read as raw
//! bytes at offsets from this file's own layout formulas; the narrowing is written out here
//! (not `half`'s conversion). Inputs mix NaN (with payloads), ±inf, ±0, denormals, values at
//! and past the half/bfloat16 limits and exact ties. Both arches. Plus one test per
//! restriction.

use npusim_pto::*;
use proptest::prelude::*;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Lay {
    Nd,
    Nz,
}

/// Element offset of (r, c) in a rows x cols tile; Nz boxes are 16 rows x `bc` columns, boxes
/// down the columns first, row-major inside.
fn off(l: Lay, r: usize, c: usize, rows: usize, cols: usize, bc: usize) -> usize {
    match l {
        Lay::Nd => r * cols + c,
        Lay::Nz => (c / bc) * rows * bc + (r / 16) * 16 * bc + (r % 16) * bc + (c % bc),
    }
}

fn desc(loc: TileLoc, t: ElemType, rows: usize, cols: usize, l: Lay) -> TileDesc {
    let (b, s) = match l {
        Lay::Nd => (BLayout::RowMajor, SLayout::NoneBox),
        Lay::Nz => (BLayout::ColMajor, SLayout::RowMajor),
    };
    let f = if loc == TileLoc::Acc { 1024 } else { 512 };
    TileDesc::new(loc, t, rows, cols).layout(b, s).fractal(f)
}

fn xs(s: &mut u64) -> u64 {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    *s
}

fn special(s: &mut u64) -> u32 {
    let x = xs(s);
    match x % 14 {
        0 => 0x7fc0_0000 | (x >> 40) as u32 & 0x3f_ffff, // quiet NaN, payload
        1 => 0xff80_0001,                                // signalling NaN
        2 => 0x7f80_0000,
        3 => 0xff80_0000,
        4 => 0x8000_0000,
        5 => 1 + (x >> 50) as u32,      // f32 denormal
        6 => 0x3380_0000 | 0x0040_0000, // 1.5 * 2^-24: half denormal tie region
        7 => 65504.0f32.to_bits(),      // half max
        8 => 65520.0f32.to_bits(),      // rounds to half inf
        9 => 0x3f80_8000,               // 1 + 2^-8: bfloat16 tie, to even
        10 => 0x3f81_8000,              // bfloat16 tie, rounds up
        11 => 3.0e38f32.to_bits(),
        _ => (x >> 32) as u32,
    }
}

/// Round-to-nearest-even narrowing of an f32 to a float format with `m` fraction bits and
/// exponent bias `bias` (`e` exponent bits), written out bit by bit.
fn narrow(x: u32, e: u32, m: u32) -> u64 {
    let sign = ((x >> 31) as u64) << (e + m);
    let exp = ((x >> 23) & 0xff) as i32;
    let frac = x & 0x7f_ffff;
    let emax = (1u64 << e) - 1;
    if exp == 0xff {
        if frac == 0 {
            return sign | (emax << m);
        }
        // NaN: quiet, the top payload bits kept.
        return sign | (emax << m) | (1 << (m - 1)) | (frac >> (23 - m)) as u64;
    }
    if exp == 0 && frac == 0 {
        return sign;
    }
    // value = mant * 2^(p) with mant an integer (24 bits for normals).
    let (mant, p) = if exp == 0 {
        (frac as u64, -149)
    } else {
        ((frac | 0x80_0000) as u64, exp - 150)
    };
    let bias = (1i32 << (e - 1)) - 1;
    // The target's smallest quantum: 2^(1 - bias - m).
    let unbiased = 63 - mant.leading_zeros() as i32 + p; // floor(log2 value)
    let q = (unbiased - m as i32).max(1 - bias - m as i32); // quantum exponent
    let shift = q - p;
    let r = if shift <= 0 {
        mant << (-shift)
    } else if shift >= 64 {
        0
    } else {
        let (hi, rem) = (mant >> shift, mant & ((1u64 << shift) - 1));
        let halfway = 1u64 << (shift - 1);
        if rem > halfway || (rem == halfway && hi & 1 == 1) {
            hi + 1
        } else {
            hi
        }
    };
    // r * 2^q; encode.
    let min_q = 1 - bias - m as i32;
    let enc = if q == min_q && r < (1 << m) {
        r // denormal (or zero)
    } else {
        // normalise r into [2^m, 2^(m+1))
        let (mut r, mut q) = (r, q);
        while r >= (2u64 << m) {
            r >>= 1;
            q += 1;
        }
        let be = q + m as i32 + bias;
        if be as u64 >= emax {
            return sign | (emax << m); // overflow: infinity
        }
        ((be as u64) << m) | (r & ((1 << m) - 1))
    };
    sign | enc
}

/// The fixpipe's output in its saturating mode (CTRL[48] = 0, the reset value; asc-devkit
/// `SetCtrlSpr(ISASI).md` and the Fixpipe pages): an infinite result is the largest finite
/// value of its sign (the code below the infinity's), NaN gives 0.
fn saturate(x: u32, y: u64, e: u32, m: u32) -> u64 {
    let inf = ((1u64 << e) - 1) << m;
    if f32::from_bits(x).is_nan() {
        0
    } else if y & !(1 << (e + m)) == inf {
        y - 1
    } else {
        y
    }
}

fn model(dst: ElemType, x: u32) -> u64 {
    match dst {
        ElemType::F16 => saturate(x, narrow(x, 5, 10), 5, 10),
        ElemType::Bf16 => saturate(x, narrow(x, 8, 7), 8, 7),
        _ => x as u64,
    }
}

#[derive(Debug, Clone, Copy)]
struct Case {
    a5: bool,
    /// 0 half, 1 bfloat16, 2 float (A5 only)
    out: u8,
    /// A5: 0 Mat Nz, 1 Mat ND, 2 Vec Nz, 3 Vec ND
    kind: u8,
    seed: u64,
}

fn run_case(k: Case) -> Result<(), TestCaseError> {
    let mut core = TileCore::by_name(if k.a5 { "a5" } else { "a2a3" }).unwrap();
    let outs: &[ElemType] = if k.a5 {
        &[ElemType::F16, ElemType::Bf16, ElemType::F32]
    } else {
        &[ElemType::F16, ElemType::Bf16]
    };
    let dt = outs[k.out as usize % outs.len()];
    let size = dt.size();
    let (dloc, dlay) = match (k.a5, k.kind % 4) {
        (false, _) | (true, 0) => (TileLoc::Mat, Lay::Nz),
        (true, 1) => (TileLoc::Mat, Lay::Nd),
        (true, 2) => (TileLoc::Vec, Lay::Nz),
        (true, _) => (TileLoc::Vec, Lay::Nd),
    };
    let mut s = k.seed | 1;
    let (sr, sc) = (48usize, 64usize);
    let dr = [16, 32][(xs(&mut s) % 2) as usize];
    let dc = [16, 32][(xs(&mut s) % 2) as usize];
    let r0 = (xs(&mut s) as usize) % (sr - dr + 1);
    let c0 = 16 * ((xs(&mut s) as usize) % ((sc - dc) / 16 + 1));
    let vr = 1 + (xs(&mut s) as usize) % dr;
    let vc = 1 + (xs(&mut s) as usize) % dc;
    let (sa, da) = (2048usize, 4096usize);
    let src = core
        .alloc(desc(TileLoc::Acc, ElemType::F32, sr, sc, Lay::Nz).at(sa as u64))
        .unwrap();
    let dst = core
        .alloc(desc(dloc, dt, dr, dc, dlay).valid(vr, vc).at(da as u64))
        .unwrap();
    let mut input = vec![0u32; sr * sc];
    for r in 0..sr {
        for c in 0..sc {
            let b = special(&mut s);
            input[r * sc + c] = b;
            let a = sa + 4 * off(Lay::Nz, r, c, sr, sc, 16);
            core.mem_mut(TileLoc::Acc)[a..a + 4].copy_from_slice(&b.to_le_bytes());
        }
    }
    let dbc = 32 / size;
    let sentinel = 0xa5a5_a5a5_a5a5_a5a5u64 & (u64::MAX >> (64 - 8 * size));
    let daddr = |r: usize, c: usize| da + size * off(dlay, r, c, dr, dc, dbc);
    for r in 0..dr {
        for c in 0..dc {
            let a = daddr(r, c);
            core.mem_mut(dloc)[a..a + size].copy_from_slice(&sentinel.to_le_bytes()[..size]);
        }
    }
    let i = TileOp {
        op: OpCode::Textract,
        args: Args::Window {
            dst,
            src,
            row: Scalar::Int(r0 as i64),
            col: Scalar::Int(c0 as i64),
        },
    };
    core.exec(&i)
        .map_err(|e| TestCaseError::fail(format!("{k:?}: {e}")))?;
    for r in 0..dr {
        for c in 0..dc {
            let a = daddr(r, c);
            let mut v = [0u8; 8];
            v[..size].copy_from_slice(&core.mem(dloc).as_slice()[a..a + size]);
            let got = u64::from_le_bytes(v);
            let want = if r < vr && c < vc {
                model(dt, input[(r + r0) * sc + c + c0])
            } else {
                sentinel
            };
            prop_assert_eq!(
                got,
                want,
                "{:?} {}x{} at ({}, {}) valid {}x{}: ({}, {}) src bits {:#x}",
                k,
                dr,
                dc,
                r0,
                c0,
                vr,
                vc,
                r,
                c,
                input[((r + r0) % sr) * sc + (c + c0) % sc]
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]
    #[test]
    fn textract_from_acc_matches_the_model(a5 in any::<bool>(), out in 0u8..3, kind in 0u8..4, seed in any::<u64>()) {
        run_case(Case { a5, out, kind, seed })?;
    }
}

/// Every pair and destination kind at least once (the proptest draws them at random).
#[test]
fn every_pair_and_destination_runs() {
    for a5 in [false, true] {
        for out in 0..3 {
            for kind in 0..4 {
                run_case(Case {
                    a5,
                    out,
                    kind,
                    seed: 0x9e37_79b9 + out as u64 * 7 + kind as u64,
                })
                .unwrap();
            }
        }
    }
}

/// The model's narrowing itself against known encodings (so a wrong model cannot agree with
/// a wrong implementation by accident).
#[test]
fn the_model_narrows_known_values() {
    assert_eq!(model(ElemType::F16, 1.0f32.to_bits()), 0x3c00);
    assert_eq!(model(ElemType::F16, 65504.0f32.to_bits()), 0x7bff);
    // rounds to infinity, saturated (CTRL[48] = 0) to the largest finite value; the plain
    // narrowing gives infinity
    assert_eq!(narrow(65520.0f32.to_bits(), 5, 10), 0x7c00);
    assert_eq!(model(ElemType::F16, 65520.0f32.to_bits()), 0x7bff);
    assert_eq!(model(ElemType::F16, f32::NEG_INFINITY.to_bits()), 0xfbff);
    assert_eq!(model(ElemType::F16, f32::NAN.to_bits()), 0);
    assert_eq!(model(ElemType::F16, (-0.0f32).to_bits()), 0x8000);
    assert_eq!(model(ElemType::F16, 2.0f32.powi(-24).to_bits()), 0x0001);
    assert_eq!(model(ElemType::F16, 2.0f32.powi(-25).to_bits()), 0x0000); // tie to even
    assert_eq!(
        model(ElemType::F16, (1.5 * 2.0f32.powi(-24)).to_bits()),
        0x0002
    );
    assert_eq!(model(ElemType::Bf16, 0x3f80_8000), 0x3f80);
    assert_eq!(model(ElemType::Bf16, 0x3f81_8000), 0x3f82);
    assert_eq!(narrow(0x7f7f_ffff, 8, 7), 0x7f80);
    assert_eq!(model(ElemType::Bf16, 0x7f7f_ffff), 0x7f7f);
    assert_eq!(model(ElemType::Bf16, 1), 0x0000);
}

fn code(core: &mut TileCore, dst: Tile, src: Tile, row: i64, col: i64) -> String {
    let i = TileOp {
        op: OpCode::Textract,
        args: Args::Window {
            dst,
            src,
            row: Scalar::Int(row),
            col: Scalar::Int(col),
        },
    };
    core.exec(&i).unwrap_err().to_string()
}

#[test]
fn textract_from_acc_restrictions() {
    for arch in ["a2a3", "a5"] {
        let mut c = TileCore::by_name(arch).unwrap();
        let acc = c
            .alloc(desc(TileLoc::Acc, ElemType::F32, 32, 64, Lay::Nz).at(0))
            .unwrap();
        let acc_i = c
            .alloc(desc(TileLoc::Acc, ElemType::I32, 32, 64, Lay::Nz).at(16384))
            .unwrap();
        let h = c
            .alloc(desc(TileLoc::Mat, ElemType::F16, 16, 32, Lay::Nz).at(0))
            .unwrap();
        // Type pairs.
        let i8t = c
            .alloc(desc(TileLoc::Mat, ElemType::I8, 16, 32, Lay::Nz).at(4096))
            .unwrap();
        let e = code(&mut c, i8t, acc, 0, 0);
        assert!(e.contains("TEXTRACT") && e.contains("int8"), "{arch}: {e}");
        let i32t = c
            .alloc(desc(TileLoc::Mat, ElemType::I32, 16, 32, Lay::Nz).at(8192))
            .unwrap();
        let e = code(&mut c, i32t, acc_i, 0, 0);
        assert!(e.contains("int32"), "{arch}: {e}");
        let f32t = c
            .alloc(desc(TileLoc::Mat, ElemType::F32, 16, 32, Lay::Nz).at(8192))
            .unwrap();
        if arch == "a2a3" {
            let e = code(&mut c, f32t, acc, 0, 0);
            assert!(e.contains("half or bfloat16"), "{e}");
        }
        // indexCol inside an Acc box; bounds; negative offsets.
        let e = code(&mut c, h, acc, 0, 8);
        assert!(e.contains("multiple of the Acc box width"), "{arch}: {e}");
        let e = code(&mut c, h, acc, 17, 0);
        assert!(e.contains("indexRow + dst.rows <= src.rows"), "{arch}: {e}");
        let e = code(&mut c, h, acc, 0, 48);
        assert!(e.contains("indexCol + dst.cols"), "{arch}: {e}");
        let e = code(&mut c, h, acc, -1, 0);
        assert!(e.contains("must not be negative"), "{arch}: {e}");
        // Destination location and layout.
        let l = c
            .alloc(desc(TileLoc::Left, ElemType::F16, 16, 32, Lay::Nz).at(0))
            .unwrap();
        let e = code(&mut c, l, acc, 0, 0);
        assert!(e.contains("extracts into Mat"), "{arch}: {e}");
        let v = c
            .alloc(desc(TileLoc::Vec, ElemType::F16, 16, 32, Lay::Nd).at(0))
            .unwrap();
        if arch == "a2a3" {
            let e = code(&mut c, v, acc, 0, 0);
            assert!(e.contains("extracts into Mat"), "{e}");
        }
        let nd = c
            .alloc(desc(TileLoc::Mat, ElemType::F16, 16, 32, Lay::Nd).at(0))
            .unwrap();
        if arch == "a2a3" {
            let e = code(&mut c, nd, acc, 0, 0);
            assert!(e.contains("Nz with fractal 512"), "{e}");
        } else {
            let dn = c
                .alloc(
                    TileDesc::new(TileLoc::Mat, ElemType::F16, 16, 32)
                        .layout(BLayout::ColMajor, SLayout::NoneBox)
                        .at(0),
                )
                .unwrap();
            let e = code(&mut c, dn, acc, 0, 0);
            assert!(e.contains("a5 destination must be Nz or ND"), "{e}");
            // (A row-major tile of fewer than 32 bytes per row cannot be declared either.)
            assert!(
                c.alloc(desc(TileLoc::Vec, ElemType::F16, 16, 8, Lay::Nd).at(0))
                    .is_err()
            );
        }
        // (On A2A3 a Mat Nz row of fewer than 32 bytes cannot be declared: the box is 32
        // bytes wide, so the 32-byte rule is checked at declaration there.)
    }
}

/// One list for the unscaled Acc casts, the site a parameter (session 16): written out here
/// from pto-isa (A2A3 `CheckTMovAccToMat<.., true>` at every site; A5 `CheckTMovAccValid`
/// without quant at the moves, less int32 for TEXTRACT, `is_textract_supported_type`). The
/// sites differ in exactly one pair, A5 int32 -> int32, which TMOV Acc -> Vec runs and
/// TEXTRACT refuses.
#[test]
fn cast_pairs_differ_between_sites_only_in_a5_int32() {
    use ElemType::*;
    use npusim_core::TileArch;
    use npusim_pto::ops::movement::{CastSite, acc_cast_pair_legal};
    let outs = [F32, F16, Bf16, I8, U8, I16, I32, HiF8, F8E4M3FN];
    let mut differ = vec![];
    for a5 in [false, true] {
        let arch = if a5 { TileArch::A5 } else { TileArch::A2A3 };
        for s in [F32, I32] {
            for d in outs {
                let want_move = matches!(
                    (a5, s, d),
                    (_, F32, F16 | Bf16) | (true, F32, F32) | (true, I32, I32)
                );
                let want_extract = want_move && !(a5 && s == I32);
                let (m, e) = (
                    acc_cast_pair_legal(arch, CastSite::Move, s, d),
                    acc_cast_pair_legal(arch, CastSite::Extract, s, d),
                );
                assert_eq!(m, want_move, "{arch:?} move {s:?} -> {d:?}");
                assert_eq!(e, want_extract, "{arch:?} extract {s:?} -> {d:?}");
                if m != e {
                    differ.push((a5, s, d));
                }
            }
        }
    }
    assert_eq!(differ, vec![(true, I32, I32)]);
    // The behaviour: on A5 TMOV Acc -> Vec int32 -> int32 runs, TEXTRACT of the same refuses.
    let mut c = TileCore::by_name("a5").unwrap();
    let acc = c
        .alloc(desc(TileLoc::Acc, I32, 16, 32, Lay::Nz).at(0))
        .unwrap();
    let vals: Vec<i32> = (0..512).map(|i| i * 7 - 1000).collect();
    c.write_valid(&acc, &vals).unwrap();
    let dst = c
        .alloc(desc(TileLoc::Vec, I32, 16, 32, Lay::Nd).at(0))
        .unwrap();
    c.tmov(&dst, &acc, npusim_pto::ops::movement::MovMode::default())
        .unwrap();
    assert_eq!(c.read_valid::<i32>(&dst).unwrap(), vals);
    let e = code(&mut c, dst, acc, 0, 0);
    assert!(e.contains("TEXTRACT") && e.contains("int32"), "{e}");
}
