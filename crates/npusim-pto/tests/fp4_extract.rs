//! TEXTRACT of the packed fp4 pairs (`float4_e2m1x2_t`, `float4_e1m2x2_t`) Mat -> Left/Right
//! on A5, offsets in the tile's own units (bytes, two values each along K; `ops::fp4`,
//! `ops::movement::fp4_extract_offsets`).
//!
//! The model is this file's own: the Mat and L0 layouts written out (Nz: boxes of 16 rows x 32
//! bytes down the columns; Zn: boxes of 32 rows x 16 columns along the rows, col-major
//! inside), the window a bit copy of the source bytes, and an E2M1 decode (sign, 2 exponent
//! bits, 1 mantissa bit: 0, 0.5, 1, 1.5, 2, 3, 4, 6) for the product check.

use npusim_pto::ops::mx::MxOperands;
use npusim_pto::*;

fn nz(r: usize, c: usize, rows: usize) -> usize {
    (c / 32) * rows * 32 + (r / 16) * 512 + (r % 16) * 32 + c % 32
}
fn zn(r: usize, c: usize, cols: usize) -> usize {
    (r / 32) * cols * 32 + (c / 16) * 512 + (c % 16) * 32 + r % 32
}
fn e2m1(code: u8) -> f64 {
    let m = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0][(code & 7) as usize];
    if code & 8 != 0 { -m } else { m }
}

struct Lcg(u64);
impl Lcg {
    fn byte(&mut self) -> u8 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 40) as u8
    }
}

type Desc = fn(TileLoc, ElemType, usize, usize) -> TileDesc;

fn left(loc: TileLoc, t: ElemType, r: usize, c: usize) -> TileDesc {
    TileDesc::new(loc, t, r, c).layout(BLayout::ColMajor, SLayout::RowMajor)
}
fn right(loc: TileLoc, t: ElemType, r: usize, c: usize) -> TileDesc {
    TileDesc::new(loc, t, r, c).layout(BLayout::RowMajor, SLayout::ColMajor)
}

/// Every legal offset of a window: the bytes of the window, the rest of L0 untouched.
#[test]
fn fp4_textract_copies_the_byte_window() {
    let mut rng = Lcg(3);
    for t in [ElemType::F4E2M1X2, ElemType::F4E1M2X2] {
        for is_left in [true, false] {
            // Left: a 32 x 128-byte Mat (256 values of K) into 16 x 64 bytes; Right: a
            // 128 x 32-byte Mat (K along the rows) into 64 x 16.
            let (sr, sc, dr, dc) = if is_left {
                (32, 128, 16, 64)
            } else {
                (128, 32, 64, 16)
            };
            let dloc = if is_left {
                TileLoc::Left
            } else {
                TileLoc::Right
            };
            let mk: Desc = if is_left { left } else { right };
            let off = |r, c, rows, cols| {
                if is_left {
                    nz(r, c, rows)
                } else {
                    zn(r, c, cols)
                }
            };
            let rows0: Vec<usize> = (0..=sr - dr)
                .step_by(if is_left { 16 } else { 32 })
                .collect();
            let cols0: Vec<usize> = (0..=sc - dc)
                .step_by(if is_left { 32 } else { 16 })
                .collect();
            for &r0 in &rows0 {
                for &c0 in &cols0 {
                    let mut core = TileCore::by_name("a5").unwrap();
                    let src = core.alloc(mk(TileLoc::Mat, t, sr, sc).at(4096)).unwrap();
                    let bytes: Vec<u8> = (0..sr * sc).map(|_| rng.byte()).collect();
                    core.mem_mut(TileLoc::Mat)[4096..4096 + sr * sc].copy_from_slice(&bytes);
                    core.mem_mut(dloc)[..8192].fill(0xa5);
                    let dst = core.alloc(mk(dloc, t, dr, dc).at(1024)).unwrap();
                    core.textract(&dst, &src, r0 as i64, c0 as i64).unwrap();
                    let mut want = vec![0xa5u8; 8192];
                    for r in 0..dr {
                        for c in 0..dc {
                            want[1024 + off(r, c, dr, dc)] = bytes[off(r0 + r, c0 + c, sr, sc)];
                        }
                    }
                    assert!(
                        &core.mem(dloc).as_slice()[..8192] == want.as_slice(),
                        "{t} left {is_left} at ({r0}, {c0})"
                    );
                }
            }
        }
    }
}

/// The K offset is in bytes: extracting K bytes 32..63 (values 64..127) of A and rows 32..63
/// of B and multiplying gives the product over those 64 values of K.
#[test]
fn fp4_textract_feeds_tmatmul_mx() {
    const M: usize = 16;
    const N: usize = 16;
    const KB: usize = 64; // the Mat tiles' K in bytes (128 values)
    let t = ElemType::F4E2M1X2;
    let mut rng = Lcg(5);
    let a: Vec<u8> = (0..M * KB).map(|_| rng.byte()).collect(); // row-major bytes
    let b: Vec<u8> = (0..KB * N).map(|_| rng.byte()).collect(); // K-byte rows x N
    let mut core = TileCore::by_name("a5").unwrap();
    let am = core.alloc(left(TileLoc::Mat, t, M, KB)).unwrap();
    let bm = core.alloc(right(TileLoc::Mat, t, KB, N).at(4096)).unwrap();
    {
        let l1 = core.mem_mut(TileLoc::Mat);
        for i in 0..M {
            for c in 0..KB {
                l1[nz(i, c, M)] = a[i * KB + c];
            }
        }
        for r in 0..KB {
            for j in 0..N {
                l1[4096 + zn(r, j, N)] = b[r * N + j];
            }
        }
    }
    let al = core.alloc(left(TileLoc::Left, t, M, 32)).unwrap();
    let bl = core.alloc(right(TileLoc::Right, t, 32, N)).unwrap();
    core.textract(&al, &am, 0, 32).unwrap();
    core.textract(&bl, &bm, 32, 0).unwrap();
    let zz = TileDesc::new(TileLoc::ScaleLeft, ElemType::F8E8M0, M, 2)
        .layout(BLayout::RowMajor, SLayout::RowMajor)
        .fractal(32);
    let nn = TileDesc::new(TileLoc::ScaleRight, ElemType::F8E8M0, 2, N)
        .layout(BLayout::ColMajor, SLayout::ColMajor)
        .fractal(32);
    let (sa, sb) = (core.alloc(zz).unwrap(), core.alloc(nn).unwrap());
    core.mem_mut(TileLoc::ScaleLeft)[..64].fill(127); // every scale 2^0
    core.mem_mut(TileLoc::ScaleRight)[..64].fill(127);
    let c = core
        .alloc(
            TileDesc::new(TileLoc::Acc, ElemType::F32, M, N)
                .layout(BLayout::ColMajor, SLayout::RowMajor)
                .fractal(1024),
        )
        .unwrap();
    let x = MxOperands {
        a: &al,
        a_scale: &sa,
        b: &bl,
        b_scale: &sb,
    };
    core.tmatmul_mx(&c, x).unwrap();
    let nib = |byte: u8, hi: bool| if hi { byte >> 4 } else { byte & 15 };
    let acc = core.mem(TileLoc::Acc).as_slice();
    let mut nonzero = 0;
    for i in 0..M {
        for j in 0..N {
            let mut want = 0f64;
            for v in 64..128 {
                let av = e2m1(nib(a[i * KB + v / 2], v % 2 == 1));
                let bv = e2m1(nib(b[(v / 2) * N + j], v % 2 == 1));
                want += av * bv;
            }
            let o = 4 * ((j / 16) * M * 16 + (i / 16) * 256 + (i % 16) * 16 + j % 16);
            let got = f32::from_le_bytes(acc[o..o + 4].try_into().unwrap());
            assert_eq!(got, want as f32, "({i}, {j})");
            nonzero += usize::from(got != 0.0);
        }
    }
    assert!(nonzero > M * N / 2);
}

#[test]
fn fp4_textract_offsets_are_checked() {
    let t = ElemType::F4E1M2X2;
    let v = |d: TileDesc| Tile::validate(d, "t", "t").unwrap();
    let mut core = TileCore::by_name("a5").unwrap();
    let am = v(left(TileLoc::Mat, t, 32, 128));
    let al = v(left(TileLoc::Left, t, 16, 64));
    let bm = v(right(TileLoc::Mat, t, 128, 32).at(8192));
    let bl = v(right(TileLoc::Right, t, 64, 16));
    let vr = |e: PtoError| match e {
        PtoError::ValidRegion { operand, value, .. } => (operand, value),
        e => panic!("{e}"),
    };
    // K in 32-byte (64-value) steps: a Left tile's columns, a Right tile's rows.
    let (o, val) = vr(core.textract(&al, &am, 0, 16).unwrap_err());
    assert_eq!((o, val.as_str()), ("indexCol", "16 bytes (32 values)"));
    assert_eq!(vr(core.textract(&al, &am, 0, 1).unwrap_err()).0, "indexCol");
    assert_eq!(
        vr(core.textract(&bl, &bm, 16, 0).unwrap_err()).0,
        "indexRow"
    );
    // M / N in 16s.
    assert_eq!(vr(core.textract(&al, &am, 8, 0).unwrap_err()).0, "indexRow");
    assert_eq!(vr(core.textract(&bl, &bm, 0, 8).unwrap_err()).0, "indexCol");
    assert!(core.textract(&al, &am, 16, 64).is_ok());
    assert!(core.textract(&bl, &bm, 64, 16).is_ok());
    // Past the source; negative.
    assert!(core.textract(&al, &am, 16, 96).is_err());
    assert!(core.textract(&al, &am, -16, 0).is_err());
    // A2A3 has no fp4.
    let mut a2 = TileCore::by_name("a2a3").unwrap();
    let e = a2.textract(&al, &am, 0, 0).unwrap_err();
    assert!(matches!(e, PtoError::IllegalType { .. }), "{e}");
}
