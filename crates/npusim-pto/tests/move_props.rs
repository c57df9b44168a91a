//! TMOV (Mat -> Left/Right, Acc -> Mat/Vec with ReLU, scalar and vector pre-quantisation and
//! narrowing), TEXTRACT, TINSERT and TSTORE from Acc against a plain model written here: every
//! operand is written as raw bytes at offsets computed by this file's own layout formulas (ND,
//! Nz, Zn, Zz), the result read back the same way and compared bit for bit with a per-element
//! rule written here. Inputs mix NaN, ±inf, ±0, denormals and extreme integers. Both arches.
//! Plus one test per restriction (typed error naming op, operand, rule, value).

use npusim_pto::ops::movement::MovMode;
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
    Nz,
    Zn,
    Zz,
}

/// Element offset of (r, c) in a rows x cols tile of this layout with boxes `br x bc`.
fn off(l: Lay, r: usize, c: usize, rows: usize, cols: usize, br: usize, bc: usize) -> usize {
    match l {
        Lay::Nd => r * cols + c,
        // boxes down the columns, row-major inside
        Lay::Nz => (c / bc) * rows * bc + (r / br) * br * bc + (r % br) * bc + (c % bc),
        // boxes along the rows, col-major inside
        Lay::Zn => (r / br) * cols * br + (c / bc) * br * bc + (c % bc) * br + (r % br),
        // boxes along the rows, row-major inside
        Lay::Zz => (r / br) * cols * br + (c / bc) * br * bc + (r % br) * bc + (c % bc),
    }
}

/// The box of a layout for an element size: 512-byte boxes are 16 rows of 32 bytes (Zn: 32
/// bytes tall, 16 wide); the 1024-byte Acc box is 16 x 16.
fn boxes(l: Lay, size: usize, acc: bool) -> (usize, usize) {
    if acc {
        return (16, 16);
    }
    match l {
        Lay::Zn => (32 / size, 16),
        _ => (16, 32 / size),
    }
}

fn desc(loc: TileLoc, t: ElemType, rows: usize, cols: usize, l: Lay) -> TileDesc {
    let (b, s) = match l {
        Lay::Nd => (BLayout::RowMajor, SLayout::NoneBox),
        Lay::Nz => (BLayout::ColMajor, SLayout::RowMajor),
        Lay::Zn => (BLayout::RowMajor, SLayout::ColMajor),
        Lay::Zz => (BLayout::RowMajor, SLayout::RowMajor),
    };
    let f = if loc == TileLoc::Acc { 1024 } else { 512 };
    TileDesc::new(loc, t, rows, cols).layout(b, s).fractal(f)
}

struct Placed {
    loc: TileLoc,
    lay: Lay,
    size: usize,
    rows: usize,
    cols: usize,
    acc: bool,
    addr: usize,
}

impl Placed {
    fn byte(&self, r: usize, c: usize) -> usize {
        let (br, bc) = boxes(self.lay, self.size, self.acc);
        self.addr + off(self.lay, r, c, self.rows, self.cols, br, bc) * self.size
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

fn xs(s: &mut u64) -> u64 {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    *s
}

/// A raw element: specials, small values, raw bits.
fn special(t: ElemType, s: &mut u64) -> u64 {
    let x = xs(s);
    let sel = x % 10;
    match t {
        ElemType::F32 => match sel {
            0 => f32::NAN.to_bits() as u64,
            1 => f32::INFINITY.to_bits() as u64,
            2 => f32::NEG_INFINITY.to_bits() as u64,
            3 => 0x8000_0000,
            4 => 1, // denormal
            5 => 0x807f_ffff,
            6 => 70000.0f32.to_bits() as u64, // overflows half
            _ => ((((x >> 20) % 4001) as f32 - 2000.0) / 7.0).to_bits() as u64,
        },
        ElemType::I32 => match sel {
            0 => i32::MIN as u32 as u64,
            1 => i32::MAX as u64,
            2 => 0,
            _ => (((x >> 20) % 2001) as i32 - 1000) as u32 as u64,
        },
        ElemType::F16 | ElemType::Bf16 => match sel {
            0 => 0x7e00,
            1 => 0x8000,
            2 => 0x0001,
            _ => (x >> 24) & 0xffff,
        },
        ElemType::I8 => match sel {
            0 => 0x80,
            1 => 0x7f,
            _ => (x >> 24) & 0xff,
        },
        // Two fp4 codes: any byte (both formats have no special codes).
        ElemType::F4E2M1X2 | ElemType::F4E1M2X2 => (x >> 24) & 0xff,
        _ => x,
    }
}

fn arch_of(a5: bool) -> &'static str {
    if a5 { "a5" } else { "a2a3" }
}

// ---- the plain model's per-element rules ----

fn f32_of(t: ElemType, bits: u64) -> f32 {
    match t {
        ElemType::I32 => bits as u32 as i32 as f32,
        _ => f32::from_bits(bits as u32),
    }
}

/// ReLU (NaN kept), then the quant word, then the narrowing. The word (asc-devkit
/// `随路量化.md`): M1 = bits 31:13 as a (1, 8, 10) float (the single without its low 13 bits);
/// on A2A3 MCB = bit 36 shifts an int32 input right by N = bits 35:32 + 1 and saturates it to
/// int16 first; offset = bits 45:37, added after rounding in the int8 modes; bit 46 = int8
/// (set) or uint8 (clear) saturation, whatever the destination type.
fn fix_model(
    a5: bool,
    src_t: ElemType,
    dst_t: ElemType,
    bits: u64,
    relu: bool,
    word: Option<u64>,
) -> u64 {
    if src_t == ElemType::I32 && word.is_none() {
        let v = bits as u32 as i32;
        let v = if relu && v < 0 { 0 } else { v };
        return v as u32 as u64;
    }
    let mcb = word.is_some_and(|w| !a5 && (w >> 36) & 1 == 1);
    let mut x = if src_t == ElemType::I32 && mcb {
        let n = ((word.unwrap() >> 32) & 0xf) + 1;
        ((bits as u32 as i32) >> n).clamp(-32768, 32767) as f32
    } else {
        f32_of(src_t, bits)
    };
    if relu && x < 0.0 {
        x = 0.0;
    }
    if let Some(w) = word {
        x *= f32::from_bits(w as u32 & 0xffff_e000);
    }
    match dst_t {
        ElemType::F16 => sat_half(x),
        ElemType::Bf16 => sat_bf16(x),
        ElemType::I8 => {
            let w = word.expect("int8 needs a quant word");
            let q = if x.is_nan() {
                0
            } else {
                // nearest even within [-256, 255]
                let x = x.clamp(-256.0, 255.0);
                let f = x.floor();
                let d = x - f;
                let r = if d > 0.5 || (d == 0.5 && (f as i64) % 2 != 0) {
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
        _ => {
            if !relu && word.is_none() {
                bits // bit copy (NaN payloads kept)
            } else {
                x.to_bits() as u64
            }
        }
    }
}

/// Acc (Nz) -> Vec (ND) or Mat (Nz): every mode.
fn acc_move(
    a5: bool,
    to_vec: bool,
    src_i32: bool,
    dst_sel: u8,
    mode: u8,
    seed: u64,
) -> Result<(), TestCaseError> {
    let mut core = TileCore::by_name(arch_of(a5)).unwrap();
    // mode 0: plain, 1: relu, 2: scalar quant, 3: vector quant, 4: relu + scalar
    let scaled = mode >= 2;
    // Without a quant scale A2A3 converts float -> half/bfloat16 only (pto-isa
    // `CheckTMovAccToMat<.., true>`); A5 also float -> float and int32 -> int32.
    let src_i32 = src_i32 && (a5 || scaled);
    let src_t = if src_i32 {
        ElemType::I32
    } else {
        ElemType::F32
    };
    let dst_t = match (src_i32, scaled, dst_sel % 4) {
        (false, false, k) if !a5 => [ElemType::F16, ElemType::Bf16][k as usize % 2],
        (true, false, _) => ElemType::I32,
        (false, false, 0) => ElemType::F32,
        (false, false, 1) => ElemType::F16,
        (false, false, _) => ElemType::Bf16,
        // With a quant scale, pto-isa's lists: A2A3 float -> int8, int32 -> int8/half; A5
        // float -> int8/half/bfloat16/float (float -> float ignores the scale: NoQuant),
        // int32 -> int8/half/bfloat16.
        (false, true, _) if !a5 => ElemType::I8,
        (true, true, k) if !a5 => [ElemType::I8, ElemType::F16][k as usize % 2],
        (false, true, k) => {
            [ElemType::F32, ElemType::F16, ElemType::Bf16, ElemType::I8][k as usize]
        }
        (true, true, k) => [ElemType::I8, ElemType::F16, ElemType::Bf16][k as usize % 3],
    };
    let ignored = scaled && a5 && src_t == ElemType::F32 && dst_t == ElemType::F32;
    let to_vec = to_vec && a5; // Acc -> Vec exists on A5 only
    let (rows, cols) = (32, 32);
    let (vr, vc) = (1 + (seed % 32) as usize, 1 + ((seed >> 8) % 32) as usize);
    let sd = desc(TileLoc::Acc, src_t, rows, cols, Lay::Nz)
        .valid(vr, vc)
        .at(0);
    let src = core.alloc(sd).unwrap();
    let (dloc, dlay) = if to_vec {
        (TileLoc::Vec, Lay::Nd)
    } else {
        (TileLoc::Mat, Lay::Nz)
    };
    let dst = core
        .alloc(desc(dloc, dst_t, rows, cols, dlay).valid(vr, vc).at(4096))
        .unwrap();
    let sp = Placed {
        loc: TileLoc::Acc,
        lay: Lay::Nz,
        size: 4,
        rows,
        cols,
        acc: true,
        addr: 0,
    };
    let dp = Placed {
        loc: dloc,
        lay: dlay,
        size: dst_t.size(),
        rows,
        cols,
        acc: false,
        addr: 4096,
    };
    let mut s = seed | 1;
    let mut input = vec![0u64; rows * cols];
    for r in 0..rows {
        for c in 0..cols {
            let b = special(src_t, &mut s);
            input[r * cols + c] = b;
            sp.put(&mut core, r, c, b);
        }
    }
    // Sentinel in dst to see what is written.
    for r in 0..rows {
        for c in 0..cols {
            dp.put(&mut core, r, c, 0x5a5a_5a5a_5a5a_5a5a);
        }
    }
    // Scalar words: the scale's single (1e-3 has low bits M1 drops), bit 46 from the seed.
    let scalar_word = [0.5f32, -3.0, 1.0e-3, 0.0][(seed >> 16) as usize % 4].to_bits() as u64
        | ((seed >> 20) & 1) << 46;
    let col_scales: Vec<f32> = (0..cols).map(|c| (c as f32 - 7.5) / 4.0).collect();
    let fp = if mode == 3 {
        let fp = core
            .alloc(TileDesc::new(TileLoc::Scaling, ElemType::U64, 1, cols).at(0))
            .unwrap();
        let words: Vec<u64> = col_scales
            .iter()
            .map(|x| x.to_bits() as u64 | 0xabcd_0000_0000)
            .collect();
        core.write_valid(&fp, &words).unwrap();
        Some(fp)
    } else {
        None
    };
    let relu = mode == 1 || mode == 4;
    let mm = MovMode {
        relu,
        scalar: (mode == 2 || mode == 4).then_some(scalar_word),
        fp: fp.as_ref(),
    };
    core.tmov(&dst, &src, mm)
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    for r in 0..rows {
        for c in 0..cols {
            let got = dp.get(&core, r, c);
            let want = if r < vr && c < vc {
                let word = match mode {
                    _ if ignored => None,
                    2 | 4 => Some(scalar_word),
                    3 => Some(col_scales[c].to_bits() as u64 | 0xabcd_0000_0000),
                    _ => None,
                };
                fix_model(a5, src_t, dst_t, input[r * cols + c], relu, word)
            } else {
                0x5a5a_5a5a_5a5a_5a5a & (u64::MAX >> (64 - 8 * dst_t.size()))
            };
            prop_assert_eq!(
                got,
                want,
                "({}, {}) {:?}->{:?} mode {} in {:#x}",
                r,
                c,
                src_t,
                dst_t,
                mode,
                input[r * cols + c]
            );
        }
    }
    Ok(())
}

/// Mat (ND or Nz) -> Left (Zz/Nz) or Right (Zn): a bit copy of the valid region.
fn mat_move(
    a5: bool,
    right: bool,
    t_sel: u8,
    src_nz: bool,
    seed: u64,
) -> Result<(), TestCaseError> {
    let mut core = TileCore::by_name(arch_of(a5)).unwrap();
    // A5 also moves the packed fp4 pairs (as bytes; TEXTRACT's offsets count bytes too).
    let types = [
        ElemType::F16,
        ElemType::Bf16,
        ElemType::F32,
        ElemType::I8,
        ElemType::F4E2M1X2,
        ElemType::F4E1M2X2,
    ];
    let t = types[t_sel as usize % if a5 { 6 } else { 4 }];
    let size = t.size();
    let (rows, cols) = (32, 64);
    let (vr, vc) = (1 + (seed % 32) as usize, 1 + ((seed >> 8) % 64) as usize);
    let slay = if src_nz { Lay::Nz } else { Lay::Nd };
    let dlay = match (right, a5, seed % 2) {
        (true, _, _) => Lay::Zn,
        (false, true, _) | (false, false, 0) => Lay::Nz,
        _ => Lay::Zz,
    };
    let dloc = if right { TileLoc::Right } else { TileLoc::Left };
    let src = core
        .alloc(
            desc(TileLoc::Mat, t, rows, cols, slay)
                .valid(vr, vc)
                .at(1024),
        )
        .unwrap();
    let dst = core
        .alloc(desc(dloc, t, rows, cols, dlay).valid(vr, vc).at(512))
        .unwrap();
    let sp = Placed {
        loc: TileLoc::Mat,
        lay: slay,
        size,
        rows,
        cols,
        acc: false,
        addr: 1024,
    };
    let dp = Placed {
        loc: dloc,
        lay: dlay,
        size,
        rows,
        cols,
        acc: false,
        addr: 512,
    };
    let mut s = seed | 1;
    let mut input = vec![0u64; rows * cols];
    for r in 0..rows {
        for c in 0..cols {
            let b = special(t, &mut s);
            input[r * cols + c] = b;
            sp.put(&mut core, r, c, b);
            dp.put(&mut core, r, c, 0x33);
        }
    }
    core.tmov(&dst, &src, MovMode::default())
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    for r in 0..rows {
        for c in 0..cols {
            let want = if r < vr && c < vc {
                input[r * cols + c]
            } else {
                0x33
            };
            prop_assert_eq!(dp.get(&core, r, c), want, "({}, {})", r, c);
        }
    }
    // TEXTRACT a 16 x 32 window at a box-aligned offset into a second Left/Right tile (the
    // packed fp4 pairs too: offsets in bytes, K in 32-byte steps, M/N in 16s).
    let wr = boxes(dlay, size, false).0.max(16);
    let (er, ec) = (
        (32 - wr) * ((seed >> 20) % 2) as usize,
        32 * ((seed >> 21) % 2) as usize,
    );
    let win = core.alloc(desc(dloc, t, wr, 32, dlay).at(8192)).unwrap();
    let wp = Placed {
        loc: dloc,
        lay: dlay,
        size,
        rows: wr,
        cols: 32,
        acc: false,
        addr: 8192,
    };
    if src_nz || a5 || !matches!(slay, Lay::Nd) {
        core.textract(&win, &src, er as i64, ec as i64)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        for r in 0..wr {
            for c in 0..32 {
                prop_assert_eq!(
                    wp.get(&core, r, c),
                    input[(r + er) * cols + c + ec],
                    "extract ({}, {})",
                    r,
                    c
                );
            }
        }
    }
    Ok(())
}

/// TINSERT Vec (ND) -> Mat (Nz) at an offset, and TSTORE of an Acc tile to a half/bfloat16 ND
/// tensor.
fn insert_and_store(a5: bool, t_sel: u8, seed: u64) -> Result<(), TestCaseError> {
    // Vec -> Mat insertion exists on A5 only (the A2A3 pair is Acc -> Mat, checked below).
    let _ = a5;
    let mut core = TileCore::by_name(arch_of(true)).unwrap();
    let t = [ElemType::F16, ElemType::F32, ElemType::I8, ElemType::I32][t_sel as usize % 4];
    let size = t.size();
    let (sr, sc) = (16, 32);
    let (rows, cols) = (48, 96);
    let (r0, c0) = ((seed % 33) as usize, ((seed >> 8) % 65) as usize);
    let src = core
        .alloc(desc(TileLoc::Vec, t, sr, sc, Lay::Nd).at(0))
        .unwrap();
    let dst = core
        .alloc(desc(TileLoc::Mat, t, rows, cols, Lay::Nz).at(0))
        .unwrap();
    let sp = Placed {
        loc: TileLoc::Vec,
        lay: Lay::Nd,
        size,
        rows: sr,
        cols: sc,
        acc: false,
        addr: 0,
    };
    let dp = Placed {
        loc: TileLoc::Mat,
        lay: Lay::Nz,
        size,
        rows,
        cols,
        acc: false,
        addr: 0,
    };
    let mut s = seed | 1;
    let mut input = vec![0u64; sr * sc];
    for r in 0..sr {
        for c in 0..sc {
            let b = special(t, &mut s);
            input[r * sc + c] = b;
            sp.put(&mut core, r, c, b);
        }
    }
    for r in 0..rows {
        for c in 0..cols {
            dp.put(&mut core, r, c, 0x11);
        }
    }
    core.tinsert(&dst, &src, r0 as i64, c0 as i64)
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    for r in 0..rows {
        for c in 0..cols {
            let inside = r >= r0 && r < r0 + sr && c >= c0 && c < c0 + sc;
            let want = if inside {
                input[(r - r0) * sc + c - c0]
            } else {
                0x11
            };
            prop_assert_eq!(dp.get(&core, r, c), want, "insert ({}, {})", r, c);
        }
    }
    // TSTORE from Acc (f32, Nz) to half / bfloat16 GM.
    let (m, n) = (16, 32);
    let acc = core
        .alloc(desc(TileLoc::Acc, ElemType::F32, m, n, Lay::Nz).at(0))
        .unwrap();
    let ap = Placed {
        loc: TileLoc::Acc,
        lay: Lay::Nz,
        size: 4,
        rows: m,
        cols: n,
        acc: true,
        addr: 0,
    };
    let mut vals = vec![0u64; m * n];
    for r in 0..m {
        for c in 0..n {
            let b = special(ElemType::F32, &mut s);
            vals[r * n + c] = b;
            ap.put(&mut core, r, c, b);
        }
    }
    let gt_t = if seed.is_multiple_of(2) {
        ElemType::F16
    } else {
        ElemType::Bf16
    };
    let gm = core.gm_bind(&vec![0u16; m * n]);
    core.tstore(&GlobalTensor::nd_2d(gm, gt_t, m, n), &acc)
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    let out = core.gm_read::<u16>(gm, m * n).unwrap();
    for i in 0..m * n {
        let want = fix_model(false, ElemType::F32, gt_t, vals[i], false, None);
        prop_assert_eq!(out[i] as u64, want, "store {}", i);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn acc_moves(a5 in any::<bool>(), to_vec in any::<bool>(), i32s in any::<bool>(), d in 0u8..4, mode in 0u8..5, seed in any::<u64>()) {
        acc_move(a5, to_vec, i32s, d, mode, seed)?;
    }

    #[test]
    fn mat_moves_and_extract(a5 in any::<bool>(), right in any::<bool>(), t in 0u8..6, nz in any::<bool>(), seed in any::<u64>()) {
        mat_move(a5, right, t, nz, seed)?;
    }

    #[test]
    fn insert_and_acc_store(a5 in any::<bool>(), t in 0u8..4, seed in any::<u64>()) {
        insert_and_store(a5, t, seed)?;
    }
}

// ---- one test per restriction ----

fn err_of(r: Result<(), PtoError>) -> String {
    match r {
        Err(e) => e.to_string(),
        Ok(()) => "no error".into(),
    }
}

#[test]
fn declaration_layouts_are_checked() {
    let a2 = TileCore::by_name("a2a3").unwrap();
    let a5 = TileCore::by_name("a5").unwrap();
    let e = a2
        .alloc(desc(TileLoc::Right, ElemType::F16, 32, 32, Lay::Nz))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "alloc_tile: tile: Right tile must be Zn (blayout row_major, slayout col_major) (got Nz (blayout ColMajor, slayout RowMajor, fractal 512))"
    );
    assert!(
        a2.alloc(desc(TileLoc::Left, ElemType::F16, 32, 32, Lay::Zz))
            .is_ok()
    );
    // What PTOAS's verifier accepts: A5 Left in boxed Zz, Acc with fractal 512, Scaling in
    // several rows and boxed layouts (MX scales); the neighbours outside stay errors.
    assert!(
        a5.alloc(desc(TileLoc::Left, ElemType::F16, 32, 32, Lay::Zz))
            .is_ok()
    );
    let e = a5
        .alloc(desc(TileLoc::Left, ElemType::F16, 32, 32, Lay::Nd))
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("a5 Left tile must be boxed Nz or Zz"),
        "{e}"
    );
    assert!(
        a2.alloc(desc(TileLoc::Acc, ElemType::F32, 16, 16, Lay::Nz).fractal(512))
            .is_ok()
    );
    let e = a2
        .alloc(desc(TileLoc::Acc, ElemType::F32, 16, 16, Lay::Nz).fractal(2048))
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("fractal size must be 512 or 1024 bytes"),
        "{e}"
    );
    let e = a2
        .alloc(TileDesc::new(TileLoc::Bias, ElemType::F32, 2, 32))
        .unwrap_err();
    assert!(
        e.to_string().contains("Bias tiles must have one row"),
        "{e}"
    );
    assert!(
        a5.alloc(desc(TileLoc::Scaling, ElemType::F32, 16, 16, Lay::Zz))
            .is_ok()
    );
    let e = a2
        .alloc(desc(TileLoc::Left, ElemType::F16, 32, 32, Lay::Nd))
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("a2a3 Left tile must be boxed Zz or Nz"),
        "{e}"
    );
}

#[test]
fn tmov_restrictions() {
    let mut a2 = TileCore::by_name("a2a3").unwrap();
    let acc = a2
        .alloc(desc(TileLoc::Acc, ElemType::F32, 16, 16, Lay::Nz))
        .unwrap();
    let vec = a2
        .alloc(desc(TileLoc::Vec, ElemType::F32, 16, 16, Lay::Nd))
        .unwrap();
    // Acc -> Vec is A5 only.
    let e = err_of(a2.tmov(&vec, &acc, MovMode::default()));
    assert!(
        e.starts_with("TMOV: dst: location pair must be") && e.contains("Acc->Vec on a2a3"),
        "{e}"
    );
    // Shapes must match.
    let mat = a2
        .alloc(desc(TileLoc::Mat, ElemType::F32, 16, 32, Lay::Nz))
        .unwrap();
    let e = err_of(a2.tmov(&mat, &acc, MovMode::default()));
    assert!(e.contains("static shapes must match"), "{e}");
    // int8 output needs a quant scale.
    let acc32 = a2
        .alloc(desc(TileLoc::Acc, ElemType::F32, 16, 32, Lay::Nz).at(4096))
        .unwrap();
    let mat8 = a2
        .alloc(desc(TileLoc::Mat, ElemType::I8, 16, 32, Lay::Nz))
        .unwrap();
    let e = err_of(a2.tmov(&mat8, &acc32, MovMode::default()));
    assert!(
        e.contains("without a quant scale") && e.contains("float -> int8"),
        "{e}"
    );
    // ReLU needs an Acc source.
    let v2 = a2
        .alloc(desc(TileLoc::Vec, ElemType::F32, 16, 16, Lay::Nd).at(2048))
        .unwrap();
    let e = err_of(a2.tmov(
        &v2,
        &vec,
        MovMode {
            relu: true,
            ..MovMode::default()
        },
    ));
    assert!(e.contains("need an Acc source"), "{e}");
    // fp tile must be Scaling uint64.
    let mat32 = a2
        .alloc(desc(TileLoc::Mat, ElemType::F16, 16, 16, Lay::Nz))
        .unwrap();
    let e = err_of(a2.tmov(
        &mat32,
        &acc,
        MovMode {
            fp: Some(&vec),
            ..MovMode::default()
        },
    ));
    assert!(e.contains("fp tile location must be Scaling"), "{e}");
    // Mat -> Bias: one row, 64-byte aligned, legal pair.
    let mb = a2
        .alloc(TileDesc::new(TileLoc::Mat, ElemType::F32, 1, 8))
        .unwrap();
    let bias = a2
        .alloc(TileDesc::new(TileLoc::Bias, ElemType::F32, 1, 8))
        .unwrap();
    let e = err_of(a2.tmov(&bias, &mb, MovMode::default()));
    assert!(
        e.contains("multiple of 64 bytes") && e.contains("32 bytes"),
        "{e}"
    );
    let mi = a2
        .alloc(TileDesc::new(TileLoc::Mat, ElemType::I16, 1, 32))
        .unwrap();
    let bias16 = a2
        .alloc(TileDesc::new(TileLoc::Bias, ElemType::F32, 1, 32))
        .unwrap();
    let e = err_of(a2.tmov(&bias16, &mi, MovMode::default()));
    assert!(e.contains("Mat->Bias type pair"), "{e}");
    // half -> float bias is exact.
    let mh = a2
        .alloc(TileDesc::new(TileLoc::Mat, ElemType::F16, 1, 32).at(4096))
        .unwrap();
    let hv: Vec<half::f16> = (0..32)
        .map(|i| half::f16::from_f32(i as f32 - 3.5))
        .collect();
    a2.write_valid(&mh, &hv).unwrap();
    a2.tmov(&bias16, &mh, MovMode::default()).unwrap();
    let got = a2.read_valid::<f32>(&bias16).unwrap();
    assert_eq!(got, (0..32).map(|i| i as f32 - 3.5).collect::<Vec<_>>());
}

#[test]
fn extract_insert_restrictions() {
    let mut a2 = TileCore::by_name("a2a3").unwrap();
    let mat = a2
        .alloc(desc(TileLoc::Mat, ElemType::F16, 32, 32, Lay::Nz))
        .unwrap();
    let left = a2
        .alloc(desc(TileLoc::Left, ElemType::F16, 16, 32, Lay::Nz))
        .unwrap();
    let e = err_of(a2.textract(&left, &mat, 17, 0));
    assert!(
        e.contains("indexRow + dst.rows <= src.rows") && e.contains("(17, 0)"),
        "{e}"
    );
    let e = err_of(a2.textract(&left, &mat, -1, 0));
    assert!(
        e.contains("TEXTRACT") && e.contains("indexRow") && e.contains("-1"),
        "{e}"
    );
    let nd = a2
        .alloc(desc(TileLoc::Mat, ElemType::F16, 32, 32, Lay::Nd).at(4096))
        .unwrap();
    let e = err_of(a2.textract(&left, &nd, 0, 0));
    assert!(e.contains("a2a3 source must be boxed"), "{e}");
    let m32 = a2
        .alloc(desc(TileLoc::Mat, ElemType::F32, 32, 32, Lay::Nz).at(8192))
        .unwrap();
    let e = err_of(a2.textract(&left, &m32, 0, 0));
    assert!(
        e.contains("element type half must equal src's float"),
        "{e}"
    );
    let vec = a2
        .alloc(desc(TileLoc::Vec, ElemType::F16, 16, 16, Lay::Nd))
        .unwrap();
    let e = err_of(a2.tinsert(&mat, &vec, 0, 0));
    assert!(
        e.contains("TINSERT: dst: location pair") && e.contains("Vec->Mat on a2a3"),
        "{e}"
    );
    let mut a5 = TileCore::by_name("a5").unwrap();
    let mat5 = a5
        .alloc(desc(TileLoc::Mat, ElemType::F16, 32, 32, Lay::Nz))
        .unwrap();
    let vec5 = a5
        .alloc(desc(TileLoc::Vec, ElemType::F16, 16, 16, Lay::Nd))
        .unwrap();
    let e = err_of(a5.tinsert(&mat5, &vec5, 20, 0));
    assert!(e.contains("must fit the tile's shape"), "{e}");
    let e = err_of(a2.tinsert(&left, &vec, 0, 0));
    assert!(e.contains("TINSERT: dst: location pair"), "{e}");
}

/// TINSERT Acc (f32, Nz 16x16 boxes) -> Mat (f16, Nz) at an offset goes through the fixpipe:
/// each value rounded to half (nearest even), the rest of the Mat tile untouched. Model: this
/// file's layout formulas and the `half` crate's rounding. Both arches.
#[test]
fn insert_from_acc_narrows_through_the_fixpipe() {
    for arch in ["a2a3", "a5"] {
        let mut core = TileCore::by_name(arch).unwrap();
        let acc = core
            .alloc(desc(TileLoc::Acc, ElemType::F32, 16, 32, Lay::Nz))
            .unwrap();
        let mat = core
            .alloc(desc(TileLoc::Mat, ElemType::F16, 48, 64, Lay::Nz))
            .unwrap();
        let ap = Placed {
            loc: TileLoc::Acc,
            lay: Lay::Nz,
            size: 4,
            rows: 16,
            cols: 32,
            acc: true,
            addr: 0,
        };
        let mp = Placed {
            loc: TileLoc::Mat,
            lay: Lay::Nz,
            size: 2,
            rows: 48,
            cols: 64,
            acc: false,
            addr: 0,
        };
        let mut s = 0x2468u64;
        let mut vals = vec![0u64; 16 * 32];
        for r in 0..16 {
            for c in 0..32 {
                let b = special(ElemType::F32, &mut s);
                vals[r * 32 + c] = b;
                ap.put(&mut core, r, c, b);
            }
        }
        for r in 0..48 {
            for c in 0..64 {
                mp.put(&mut core, r, c, 0x1111);
            }
        }
        core.tinsert(&mat, &acc, 16, 32).unwrap();
        for r in 0..48 {
            for c in 0..64 {
                let inside = (16..32).contains(&r) && (32..64).contains(&c);
                let got = mp.get(&core, r, c);
                if inside {
                    let x = f32::from_bits(vals[(r - 16) * 32 + c - 32] as u32);
                    let want = sat_half(x);
                    assert_eq!(got, want, "{arch} ({r}, {c}): {got:#x} vs {want:#x}");
                } else {
                    assert_eq!(got, 0x1111, "{arch} ({r}, {c}) outside the window");
                }
            }
        }
        // int32 Acc into an f16 Mat tile has no unscaled fixpipe conversion.
        let acc_i = core
            .alloc(desc(TileLoc::Acc, ElemType::I32, 16, 32, Lay::Nz).at(4096))
            .unwrap();
        let e = err_of(core.tinsert(&mat, &acc_i, 0, 0));
        assert!(e.contains("TINSERT") && e.contains("int32 -> half"), "{e}");
    }
}

/// The fixpipe reads one uint64 word per moved column from the fp address: a 1x16 fp tile
/// followed in Scaling memory by 16 more words scales 32 columns exactly as a 1x32 tile at
/// the same address holding all 32 words (PTOAS's Movfp sample moves 32 columns with a 1x16
/// fp tile). Words that would lie past the Scaling memory are a typed error.
#[test]
fn fp_words_past_the_fp_tile_come_from_scaling_memory() {
    // int32 -> half (VDEQF16): a vector-quant pair of A2A3 (float -> half is not).
    let mut a2 = TileCore::by_name("a2a3").unwrap();
    let acc = a2
        .alloc(desc(TileLoc::Acc, ElemType::I32, 16, 32, Lay::Nz))
        .unwrap();
    let vals: Vec<i32> = (0..512).map(|i| (i % 37) * 3 - 9).collect();
    a2.write_valid(&acc, &vals).unwrap();
    let fp32 = a2
        .alloc(TileDesc::new(TileLoc::Scaling, ElemType::U64, 1, 32))
        .unwrap();
    // Scale of column c: 2^(c % 4 - 1) as an IEEE single in the low 32 bits.
    let words: Vec<u64> = (0..32)
        .map(|c| u64::from((2f32.powi(c % 4 - 1)).to_bits()))
        .collect();
    a2.write_valid(&fp32, &words).unwrap();
    let fp16 = a2
        .alloc(TileDesc::new(TileLoc::Scaling, ElemType::U64, 1, 16))
        .unwrap();
    let out = |a2: &mut TileCore, fp: &Tile| {
        let dst = a2
            .alloc(desc(TileLoc::Mat, ElemType::F16, 16, 32, Lay::Nz))
            .unwrap();
        a2.tmov(
            &dst,
            &acc,
            MovMode {
                fp: Some(fp),
                ..MovMode::default()
            },
        )
        .unwrap();
        a2.read_valid::<half::f16>(&dst).unwrap()
    };
    let whole = out(&mut a2, &fp32);
    let want: Vec<half::f16> = (0..512)
        .map(|i| half::f16::from_f32(vals[i] as f32 * 2f32.powi((i % 32) as i32 % 4 - 1)))
        .collect();
    assert_eq!(whole, want);
    assert_eq!(out(&mut a2, &fp16), whole);
    // An fp tile at the end of the 2 KB Scaling memory: 16 words fit, 32 do not.
    let last = a2
        .alloc(TileDesc::new(TileLoc::Scaling, ElemType::U64, 1, 16).at(2048 - 128))
        .unwrap();
    let dst = a2
        .alloc(desc(TileLoc::Mat, ElemType::F16, 16, 32, Lay::Nz))
        .unwrap();
    let e = err_of(a2.tmov(
        &dst,
        &acc,
        MovMode {
            fp: Some(&last),
            ..MovMode::default()
        },
    ));
    assert!(e.contains("must lie in the Scaling memory"), "{e}");
}

/// Plain TMOV Acc -> Mat, its ReLU form and TINSERT Acc -> Mat on A2A3 convert float to
/// half/bfloat16 only (pto-isa `a2a3/common.hpp` `CheckTMovAccToMat<.., true>`): float ->
/// float and int32 -> int32 are typed errors naming op, operand, rule and pair; A5 moves both
/// (bits carried, checked against the values written).
#[test]
fn a2a3_acc_to_mat_without_a_scale_is_a_cast_only() {
    for arch in ["a2a3", "a5"] {
        for (t, relu, insert) in [
            (ElemType::F32, false, false),
            (ElemType::F32, true, false),
            (ElemType::I32, false, false),
            (ElemType::I32, true, false),
            (ElemType::F32, false, true),
            (ElemType::I32, false, true),
        ] {
            let mut core = TileCore::by_name(arch).unwrap();
            let acc = core.alloc(desc(TileLoc::Acc, t, 16, 32, Lay::Nz)).unwrap();
            let mat = core.alloc(desc(TileLoc::Mat, t, 16, 32, Lay::Nz)).unwrap();
            let ap = Placed {
                loc: TileLoc::Acc,
                lay: Lay::Nz,
                size: 4,
                rows: 16,
                cols: 32,
                acc: true,
                addr: 0,
            };
            let mp = Placed {
                loc: TileLoc::Mat,
                lay: Lay::Nz,
                size: 4,
                rows: 16,
                cols: 32,
                acc: false,
                addr: 0,
            };
            let mut s = 0x1357u64;
            let mut vals = vec![0u64; 16 * 32];
            for r in 0..16 {
                for c in 0..32 {
                    let b = special(t, &mut s);
                    vals[r * 32 + c] = b;
                    ap.put(&mut core, r, c, b);
                    mp.put(&mut core, r, c, 0x7777_7777);
                }
            }
            let res = if insert {
                core.tinsert(&mat, &acc, 0, 0)
            } else {
                core.tmov(
                    &mat,
                    &acc,
                    MovMode {
                        relu,
                        ..MovMode::default()
                    },
                )
            };
            let name = if t == ElemType::F32 { "float" } else { "int32" };
            let op = if insert { "TINSERT" } else { "TMOV" };
            if arch == "a2a3" {
                let e = res.expect_err("a2a3 refuses the pair");
                match &e {
                    PtoError::Static {
                        op: o,
                        operand,
                        rule,
                        value,
                    } => {
                        assert_eq!(*o, op);
                        assert_eq!(*operand, "dst");
                        assert!(rule.contains("float->half/bfloat16 only"), "{rule}");
                        assert_eq!(value, &format!("{name} -> {name}"));
                    }
                    other => panic!("not a Static error: {other:?}"),
                }
                // Nothing was written.
                for r in 0..16 {
                    for c in 0..32 {
                        assert_eq!(mp.get(&core, r, c), 0x7777_7777, "{op} ({r}, {c})");
                    }
                }
            } else {
                res.unwrap();
                for r in 0..16 {
                    for c in 0..32 {
                        let b = vals[r * 32 + c];
                        let want = if !relu {
                            b
                        } else if t == ElemType::I32 {
                            (b as u32 as i32).max(0) as u32 as u64
                        } else {
                            let x = f32::from_bits(b as u32);
                            if x < 0.0 { 0 } else { b }
                        };
                        assert_eq!(mp.get(&core, r, c), want, "{arch} {op} {t:?} ({r}, {c})");
                    }
                }
            }
        }
    }
}
