//! TEXTRACT_FP and TINSERT_FP (pto-isa `docs/isa/TEXTRACT_FP.md`, `docs/isa/TINSERT_FP.md`)
//! against a plain model written here: an Acc tile (Nz, 16 x 16 boxes) moved at an offset into
//! a Mat or Vec tile (Nz with 16-row x 32-byte boxes, ND, DN) through the fixpipe's vector
//! pre-quantisation, each column `j` of the moved region converted by uint64 word `j` read from
//! the fp tile's address (TEXTRACT_FP: starting `col` fp elements past it). The word, written
//! out here from asc-devkit `随路量化.md`: M1 = bits 31:13 as a (1, 8, 10) float; on A2A3
//! N = bits 35:32 + 1 and MCB = bit 36 (int32 inputs shifted by N and saturated to int16
//! first; int32 -> int16 is that shift alone); offset = bits 45:37 and bit 46 = int8 (1) or
//! uint8 (0) saturation for the 8-bit outputs. Every operand is written and read as raw bytes
//! at offsets computed by this file's own layout formulas; the per-element rule (ReLU, M1 in
//! f32, narrowing) is written here. Inputs mix NaN, ±inf, ±0, denormals, int32 extremes; M1
//! ±0, the smallest and largest normals; the words' high halves are random. Both arches,
//! every type pair but hifloat8 / float8_e4m3 (`fixpipe_word.rs`). Plus one test per
//! restriction.

use npusim_pto::*;
use proptest::prelude::*;

/// The fixpipe's half / bfloat16 output in its saturating mode (CTRL[48] = 0, the reset value;
/// asc-devkit `SetCtrlSpr(ISASI).md` and the Fixpipe pages): the value clipped to the type's
/// largest finite value, then rounded to nearest even; NaN gives 0.
fn sat_half(x: f32) -> u64 {
    if x.is_nan() {
        0
    } else {
        half::f16::from_f32(x.clamp(-65504.0, 65504.0)).to_bits() as u64
    }
}

/// As [`sat_half`] for bfloat16.
fn sat_bf16(x: f32) -> u64 {
    let m = half::bf16::MAX.to_f32();
    if x.is_nan() {
        0
    } else {
        half::bf16::from_f32(x.clamp(-m, m)).to_bits() as u64
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Lay {
    Nd,
    Dn,
    Nz,
}

/// Element offset of (r, c) in a rows x cols tile; Nz boxes are `br x bc`, boxes down the
/// columns, row-major inside.
fn off(l: Lay, r: usize, c: usize, rows: usize, cols: usize, br: usize, bc: usize) -> usize {
    match l {
        Lay::Nd => r * cols + c,
        Lay::Dn => c * rows + r,
        Lay::Nz => (c / bc) * rows * bc + (r / br) * br * bc + (r % br) * bc + (c % bc),
    }
}

struct Placed {
    loc: TileLoc,
    lay: Lay,
    size: usize,
    rows: usize,
    cols: usize,
    /// Box columns (Acc: 16; Mat/Vec Nz: 32 bytes).
    bc: usize,
    addr: usize,
}

impl Placed {
    fn byte(&self, r: usize, c: usize) -> usize {
        self.addr + off(self.lay, r, c, self.rows, self.cols, 16, self.bc) * self.size
    }
    fn put(&self, core: &mut TileCore, r: usize, c: usize, bits: u64) {
        let a = self.byte(r, c);
        core.mem_mut(self.loc)[a..a + self.size].copy_from_slice(&bits.to_le_bytes()[..self.size]);
    }
    fn get(&self, core: &TileCore, r: usize, c: usize) -> u64 {
        let a = self.byte(r, c);
        let mut v = [0u8; 8];
        v[..self.size].copy_from_slice(&core.mem(self.loc).as_slice()[a..a + self.size]);
        u64::from_le_bytes(v)
    }
}

fn desc(loc: TileLoc, t: ElemType, rows: usize, cols: usize, l: Lay) -> TileDesc {
    let (b, s) = match l {
        Lay::Nd => (BLayout::RowMajor, SLayout::NoneBox),
        Lay::Dn => (BLayout::ColMajor, SLayout::NoneBox),
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

/// An Acc element: specials, moderate values, extremes.
fn special(t: ElemType, s: &mut u64) -> u64 {
    let x = xs(s);
    match (t, x % 11) {
        (ElemType::F32, 0) => f32::NAN.to_bits() as u64,
        (ElemType::F32, 1) => f32::INFINITY.to_bits() as u64,
        (ElemType::F32, 2) => f32::NEG_INFINITY.to_bits() as u64,
        (ElemType::F32, 3) => 0x8000_0000, // -0
        (ElemType::F32, 4) => 1,           // smallest denormal
        (ElemType::F32, 5) => 0x807f_ffff, // largest negative denormal
        (ElemType::F32, 6) => 3.0e38f32.to_bits() as u64,
        (ElemType::F32, 7) => 2.5f32.to_bits() as u64, // a tie for int8
        (ElemType::F32, _) => ((((x >> 20) % 40001) as f32 - 20000.0) / 37.0).to_bits() as u64,
        (_, 0) => i32::MIN as u32 as u64,
        (_, 1) => i32::MAX as u32 as u64,
        (_, 2) => 0,
        (_, 3) => 16_777_217, // not an f32: rounds to even
        (_, _) => (((x >> 20) % 20001) as i32 - 10000) as u32 as u64,
    }
}

/// A per-column scale (an M1 the pages allow: zero or normal; low bits the word drops).
fn scale_of(k: usize, s: &mut u64) -> f32 {
    let x = xs(s);
    match x.wrapping_add(k as u64) % 12 {
        0 => f32::MIN_POSITIVE,
        1 => f32::MAX,
        2 => -0.0,
        3 => 0.0,
        4 => 1.0e-3,
        5 => 1.0e30,
        6 => -1.0,
        7 => 1.0 / 64.0,
        _ => ((x >> 24) % 2001) as f32 / 1000.0 - 1.0,
    }
}

/// The plain model of one element under quant word `word` (None: the word is ignored).
fn model(
    a5: bool,
    src_t: ElemType,
    dst_t: ElemType,
    bits: u64,
    relu: bool,
    word: Option<u64>,
) -> u64 {
    let w = word.unwrap_or(1.0f32.to_bits() as u64);
    let n = ((w >> 32) & 0xf) + 1;
    let mcb = !a5 && word.is_some() && (w >> 36) & 1 == 1;
    let shifted = || ((bits as u32 as i32) >> n).clamp(-32768, 32767);
    if dst_t == ElemType::I16 {
        let v = shifted();
        return (if relu { v.max(0) } else { v }) as i16 as u16 as u64;
    }
    let mut x = match src_t {
        ElemType::I32 if mcb => shifted() as f32,
        ElemType::I32 => bits as u32 as i32 as f32,
        _ => f32::from_bits(bits as u32),
    };
    if relu && x < 0.0 {
        x = 0.0;
    }
    x *= f32::from_bits(w as u32 & 0xffff_e000);
    match dst_t {
        ElemType::F16 => sat_half(x),
        ElemType::Bf16 => sat_bf16(x),
        ElemType::I8 | ElemType::U8 => {
            let q = if x.is_nan() {
                0
            } else {
                // nearest, ties to even, within [-256, 255]
                let x = x.clamp(-256.0, 255.0);
                let f = x.floor();
                let d = x - f;
                let r = if d > 0.5 || (d == 0.5 && f.rem_euclid(2.0) != 0.0) {
                    f + 1.0
                } else {
                    f
                };
                r as i64
            };
            let v = q + ((w >> 37) & 0x1ff) as i64;
            if (w >> 46) & 1 == 1 {
                v.clamp(-128, 127) as i8 as u8 as u64
            } else {
                v.clamp(0, 255) as u64
            }
        }
        _ => x.to_bits() as u64,
    }
}

/// The modelled pairs, per arch (pto-isa's vector-quant lists, see the module docs).
fn pairs(a5: bool) -> Vec<(ElemType, ElemType)> {
    use ElemType::*;
    if a5 {
        vec![
            (F32, I8),
            (F32, U8),
            (F32, F16),
            (F32, Bf16),
            (F32, F32),
            (I32, I8),
            (I32, U8),
            (I32, F16),
            (I32, Bf16),
        ]
    } else {
        vec![
            (F32, I8),
            (F32, U8),
            (I32, I8),
            (I32, U8),
            (I32, F16),
            (I32, I16),
        ]
    }
}

#[derive(Debug, Clone, Copy)]
struct Case {
    a5: bool,
    extract: bool,
    pair: usize,
    /// a5: 0 Mat Nz, 1 Mat ND, 2 Vec ND, 3 Vec DN (insert only; extract takes Nz)
    dst_kind: u8,
    relu: bool,
    fp_f32: bool,
    seed: u64,
}

fn run_case(k: Case) -> Result<(), TestCaseError> {
    let mut core = TileCore::by_name(if k.a5 { "a5" } else { "a2a3" }).unwrap();
    let ps = pairs(k.a5);
    let (src_t, dst_t) = ps[k.pair % ps.len()];
    let size = dst_t.size();
    let mut s = k.seed | 1;
    let (dloc, dlay) = match (k.a5, k.dst_kind % 4) {
        (false, _) | (true, 0) => (TileLoc::Mat, Lay::Nz),
        (true, 1) => (TileLoc::Mat, Lay::Nd),
        (true, 2) => (TileLoc::Vec, Lay::Nd),
        (true, _) if k.extract => (TileLoc::Vec, Lay::Nz),
        (true, _) => (TileLoc::Vec, Lay::Dn),
    };
    let dbc = 32 / size;
    // Shapes: extract moves a 16/32 x 32 window out of a 48 x 64 Acc tile; insert a 16/32 x
    // 16/32 Acc tile into a 64 x 64 destination.
    let (src_rows, src_cols, dst_rows, dst_cols) = if k.extract {
        (48, 64, [16, 32][(xs(&mut s) % 2) as usize], 32)
    } else {
        let r = [16, 32][(xs(&mut s) % 2) as usize];
        let c = [16, 32][(xs(&mut s) % 2) as usize];
        (r, c, 64, 64)
    };
    let (inner_rows, inner_cols, outer_rows, outer_cols) = if k.extract {
        (dst_rows, dst_cols, src_rows, src_cols)
    } else {
        (src_rows, src_cols, dst_rows, dst_cols)
    };
    let r0 = (xs(&mut s) as usize) % (outer_rows - inner_rows + 1);
    // Column offsets: whole Acc boxes (extract), whole Nz boxes of dst (insert into Nz).
    let step = if k.extract {
        16
    } else if dlay == Lay::Nz {
        dbc
    } else {
        1
    };
    let mut c0 = step * ((xs(&mut s) as usize) % ((outer_cols - inner_cols) / step + 1));
    // An f32 fp tile shifts the fp address by 4 bytes per column: only multiples of 128 bytes
    // are addressable (tested as an error below).
    if k.extract && k.fp_f32 && !c0.is_multiple_of(32) {
        c0 -= 16;
    }
    let vr = 1 + (xs(&mut s) as usize) % inner_rows;
    let vc = 1 + (xs(&mut s) as usize) % inner_cols;
    let (svr, svc, dvr, dvc) = if k.extract {
        (src_rows, src_cols, vr, vc)
    } else {
        (vr, vc, dst_rows, dst_cols)
    };
    let src = core
        .alloc(
            desc(TileLoc::Acc, src_t, src_rows, src_cols, Lay::Nz)
                .valid(svr, svc)
                .at(1024),
        )
        .unwrap();
    let dst = core
        .alloc(
            desc(dloc, dst_t, dst_rows, dst_cols, dlay)
                .valid(dvr, dvc)
                .at(2048),
        )
        .unwrap();
    let fp_addr = 128 * ((xs(&mut s) as usize) % 9);
    let fp_desc = if k.fp_f32 {
        TileDesc::new(TileLoc::Scaling, ElemType::F32, 1, 128)
    } else {
        TileDesc::new(TileLoc::Scaling, ElemType::U64, 1, 64)
    };
    let fp = core.alloc(fp_desc.at(fp_addr as u64)).unwrap();
    let sp = Placed {
        loc: TileLoc::Acc,
        lay: Lay::Nz,
        size: 4,
        rows: src_rows,
        cols: src_cols,
        bc: 16,
        addr: 1024,
    };
    let dp = Placed {
        loc: dloc,
        lay: dlay,
        size,
        rows: dst_rows,
        cols: dst_cols,
        bc: dbc,
        addr: 2048,
    };
    let mut input = vec![0u64; src_rows * src_cols];
    for r in 0..src_rows {
        for c in 0..src_cols {
            let b = special(src_t, &mut s);
            input[r * src_cols + c] = b;
            sp.put(&mut core, r, c, b);
        }
    }
    let sentinel = 0x5a5a_5a5a_5a5a_5a5au64 & (u64::MAX >> (64 - 8 * size));
    for r in 0..dst_rows {
        for c in 0..dst_cols {
            dp.put(&mut core, r, c, sentinel);
        }
    }
    // 64 words at the fp tile's address, the scale in the low half, junk in the high half.
    let words: Vec<u64> = (0..64)
        .map(|i| scale_of(i, &mut s).to_bits() as u64 | ((xs(&mut s) & 0xffff_ffff) << 32))
        .collect();
    for (i, w) in words.iter().enumerate() {
        let a = fp_addr + 8 * i;
        core.mem_mut(TileLoc::Scaling)[a..a + 8].copy_from_slice(&w.to_le_bytes());
    }
    let op = if k.extract {
        OpCode::TextractFp
    } else {
        OpCode::TinsertFp
    };
    let i = TileOp {
        op,
        args: Args::WindowFp {
            dst,
            src,
            fp,
            row: Scalar::Int(r0 as i64),
            col: Scalar::Int(c0 as i64),
            relu: k.relu,
        },
    };
    core.exec(&i)
        .map_err(|e| TestCaseError::fail(format!("{k:?}: {e}")))?;
    // The fp words start at fp + c0 fp elements (TEXTRACT_FP), at fp (TINSERT_FP).
    let first_word = if k.extract {
        c0 * if k.fp_f32 { 4 } else { 8 } / 8
    } else {
        0
    };
    for r in 0..dst_rows {
        for c in 0..dst_cols {
            let got = dp.get(&core, r, c);
            // (sr, sc, j): the source element and the column of the moved region.
            let from = if k.extract {
                (r < vr && c < vc).then(|| (r + r0, c + c0, c))
            } else {
                (r >= r0 && r < r0 + vr && c >= c0 && c < c0 + vc).then(|| (r - r0, c - c0, c - c0))
            };
            // A5 float -> float: pto-isa's GetVectorPreQuantMode gives NoQuant, the words are
            // ignored (a scale of 1 in the model).
            let ignored = k.a5 && src_t == ElemType::F32 && dst_t == ElemType::F32;
            let want = match from {
                Some((sr, sc, j)) => model(
                    k.a5,
                    src_t,
                    dst_t,
                    input[sr * src_cols + sc],
                    k.relu,
                    (!ignored).then(|| words[first_word + j]),
                ),
                None => sentinel,
            };
            prop_assert_eq!(
                got,
                want,
                "{:?}: dst ({}, {}) {:?}->{:?} at ({}, {})",
                k,
                r,
                c,
                src_t,
                dst_t,
                r0,
                c0
            );
        }
    }
    Ok(())
}

/// 64 cases (CI stays fast); `PROPTEST_CASES` raises it for a long run.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]
    #[test]
    fn window_fp_matches_the_model(
        a5 in any::<bool>(),
        extract in any::<bool>(),
        pair in 0usize..9,
        dst_kind in 0u8..4,
        relu in any::<bool>(),
        fp_f32 in any::<bool>(),
        seed in any::<u64>(),
    ) {
        run_case(Case { a5, extract, pair, dst_kind, relu, fp_f32, seed })?;
    }
}

/// Every pair, destination kind and both ops once per arch (the proptest samples them).
#[test]
fn every_pair_and_destination_runs() {
    for a5 in [false, true] {
        for extract in [false, true] {
            for pair in 0..pairs(a5).len() {
                for dst_kind in 0..4u8 {
                    let k = Case {
                        a5,
                        extract,
                        pair,
                        dst_kind,
                        relu: pair % 2 == 0,
                        fp_f32: dst_kind == 1,
                        seed: 0x9e37_79b9_7f4a_7c15 ^ (pair as u64 * 977 + dst_kind as u64),
                    };
                    run_case(k).unwrap();
                }
            }
        }
    }
}

// ---- restrictions: one typed error each ----

struct Fx {
    core: TileCore,
    acc: Tile,
    mat: Tile,
    fp: Tile,
}

fn fx(arch: &str) -> Fx {
    let core = TileCore::by_name(arch).unwrap();
    let acc = core
        .alloc(desc(TileLoc::Acc, ElemType::F32, 32, 64, Lay::Nz))
        .unwrap();
    let mat = core
        .alloc(desc(TileLoc::Mat, ElemType::I8, 32, 32, Lay::Nz))
        .unwrap();
    let fp = core
        .alloc(TileDesc::new(TileLoc::Scaling, ElemType::U64, 1, 64))
        .unwrap();
    Fx { core, acc, mat, fp }
}

fn err(
    core: &mut TileCore,
    op: OpCode,
    dst: Tile,
    src: Tile,
    fp: Tile,
    row: i64,
    col: i64,
) -> String {
    let i = TileOp {
        op,
        args: Args::WindowFp {
            dst,
            src,
            fp,
            row: Scalar::Int(row),
            col: Scalar::Int(col),
            relu: false,
        },
    };
    match core.exec(&i) {
        Ok(()) => "ok".into(),
        Err(e) => e.to_string(),
    }
}

#[test]
fn window_fp_restrictions() {
    use OpCode::{TextractFp as X, TinsertFp as I};
    let mut f = fx("a2a3");
    let (acc, mat, fp) = (f.acc, f.mat, f.fp);
    // The reference case runs.
    assert_eq!(err(&mut f.core, X, mat, acc, fp, 0, 32), "ok");
    // Acc -> Vec is A5 only.
    let vec = f
        .core
        .alloc(TileDesc::vec(ElemType::I8, 32, 32).at(0))
        .unwrap();
    let e = err(&mut f.core, X, vec, acc, fp, 0, 0);
    assert!(
        e.contains("location pair must be Acc->Mat") && e.contains("Acc->Vec on a2a3"),
        "{e}"
    );
    // The fp tile lives in Scaling.
    let bias = f
        .core
        .alloc(TileDesc::new(TileLoc::Bias, ElemType::F32, 1, 64))
        .unwrap();
    let e = err(&mut f.core, X, mat, acc, bias, 0, 0);
    assert!(
        e.contains("TEXTRACT_FP: fp: fp tile location must be Scaling"),
        "{e}"
    );
    // Pairs: float -> half is refused by CheckTMovAccToMat's quant form on A2A3.
    let mat16 = f
        .core
        .alloc(desc(TileLoc::Mat, ElemType::F16, 32, 32, Lay::Nz).at(4096))
        .unwrap();
    let e = err(&mut f.core, X, mat16, acc, fp, 0, 0);
    assert!(
        e.contains("a2a3 quantised Acc pairs") && e.contains("(got float -> half)"),
        "{e}"
    );
    // A2A3 destination: Nz only, 32-byte rows of boxes.
    let mat_nd = f
        .core
        .alloc(desc(TileLoc::Mat, ElemType::I8, 32, 32, Lay::Nd).at(8192))
        .unwrap();
    let e = err(&mut f.core, X, mat_nd, acc, fp, 0, 0);
    assert!(
        e.contains("a2a3 destination must be Nz with fractal 512"),
        "{e}"
    );
    // Column offsets in whole boxes: 16 Acc columns (extract) ...
    let e = err(&mut f.core, X, mat, acc, fp, 0, 8);
    assert!(
        e.contains("indexCol must be a multiple of the Acc box width") && e.contains("got 8"),
        "{e}"
    );
    // ... 32 bytes of the Nz destination (insert).
    let small = f
        .core
        .alloc(desc(TileLoc::Acc, ElemType::F32, 16, 16, Lay::Nz).at(8192))
        .unwrap();
    let big = f
        .core
        .alloc(desc(TileLoc::Mat, ElemType::I8, 32, 64, Lay::Nz).at(12288))
        .unwrap();
    assert_eq!(err(&mut f.core, I, big, small, fp, 3, 32), "ok");
    let e = err(&mut f.core, I, big, small, fp, 0, 16);
    assert!(
        e.contains("multiple of the Nz destination box width (32 bytes)") && e.contains("got 16"),
        "{e}"
    );
    // The window lies inside the larger tile (static shapes).
    let e = err(&mut f.core, X, mat, acc, fp, 1, 0);
    assert!(
        e.contains("indexRow + dst.rows <= src.rows") && e.contains("(1, 0) + 32x32 in 32x64"),
        "{e}"
    );
    let e = err(&mut f.core, X, mat, acc, fp, 0, 48);
    assert!(e.contains("indexCol + dst.cols <= src.cols"), "{e}");
    let e = err(&mut f.core, I, big, small, fp, 17, 0);
    assert!(e.contains("indexRow + src.rows <= dst.rows"), "{e}");
    // Offsets are not negative.
    let e = err(&mut f.core, X, mat, acc, fp, -1, 0);
    assert!(
        e.contains("indexRow valid region: offsets must not be negative (got -1)"),
        "{e}"
    );
    // FPC holds the fp address in 128-byte units: an f32 fp tile at column 16 is 64 bytes in.
    let fp32 = f
        .core
        .alloc(TileDesc::new(TileLoc::Scaling, ElemType::F32, 1, 64).at(1024))
        .unwrap();
    let e = err(&mut f.core, X, mat, acc, fp32, 0, 16);
    assert!(
        e.contains("multiple of 128 bytes") && e.contains("0x440"),
        "{e}"
    );
    assert_eq!(err(&mut f.core, X, mat, acc, fp32, 0, 32), "ok");
    // The words must lie in the Scaling memory (2 KiB on a2a3): 32 words from 1920 do not.
    let last = f
        .core
        .alloc(TileDesc::new(TileLoc::Scaling, ElemType::U64, 1, 16).at(1920))
        .unwrap();
    let e = err(&mut f.core, X, mat, acc, last, 0, 0);
    assert!(
        e.contains("must lie in the Scaling memory")
            && e.contains("32 words at 0x780 in 2048 bytes"),
        "{e}"
    );
    // The Acc source type comes from the table.
    let acc16 = f
        .core
        .alloc(desc(TileLoc::Acc, ElemType::F16, 32, 64, Lay::Nz).at(16384))
        .map(Some)
        .unwrap_or(None);
    if let Some(acc16) = acc16 {
        let e = err(&mut f.core, X, mat, acc16, fp, 0, 0);
        assert!(
            e.contains("TEXTRACT_FP: src element type half is not legal on a2a3"),
            "{e}"
        );
    }
    // A Mat source is not an Acc source.
    let e = err(&mut f.core, X, mat, big, fp, 0, 0);
    assert!(e.contains("Mat->Mat on a2a3"), "{e}");

    // A5: Vec destinations; TEXTRACT_FP takes Nz or ND, TINSERT_FP also DN.
    let mut g = fx("a5");
    let (acc, fp) = (g.acc, g.fp);
    let vnd = g
        .core
        .alloc(desc(TileLoc::Vec, ElemType::F16, 32, 32, Lay::Nd))
        .unwrap();
    assert_eq!(err(&mut g.core, X, vnd, acc, fp, 0, 16), "ok");
    let vdn = g
        .core
        .alloc(desc(TileLoc::Vec, ElemType::F16, 32, 32, Lay::Dn).at(4096))
        .unwrap();
    let e = err(&mut g.core, X, vdn, acc, fp, 0, 0);
    assert!(e.contains("a5 destination must be Nz or ND"), "{e}");
    let small = g
        .core
        .alloc(desc(TileLoc::Acc, ElemType::F32, 16, 16, Lay::Nz).at(16384))
        .unwrap();
    assert_eq!(err(&mut g.core, I, vdn, small, fp, 5, 3), "ok");
    // int32 -> float is refused by CheckTMovAccValid's quant form on A5.
    let acc32 = g
        .core
        .alloc(desc(TileLoc::Acc, ElemType::I32, 16, 16, Lay::Nz).at(32768))
        .unwrap();
    let vf = g
        .core
        .alloc(desc(TileLoc::Vec, ElemType::F32, 32, 32, Lay::Nd).at(8192))
        .unwrap();
    let e = err(&mut g.core, I, vf, acc32, fp, 0, 0);
    assert!(
        e.contains("a5 quantised Acc pairs") && e.contains("(got int32 -> float)"),
        "{e}"
    );
}
