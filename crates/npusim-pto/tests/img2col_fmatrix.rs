//! The manual FMATRIX mode of TIMG2COL: SETFMATRIX, SET_IMG2COL_RPT and SET_IMG2COL_PADDING
//! (pto-isa `docs/isa/SETFMATRIX.md`, `SET_IMG2COL_RPT.md`, `SET_IMG2COL_PADDING.md`; the
//! register encodings of `include/pto/npu/*/SetFmatrix.hpp`, `SetImg2colRpt.hpp`,
//! `SetImg2colPadding.hpp`).
//!
//! - The register words are read back byte by byte (little-endian) against the headers' field
//!   layout, not through the crate's decoder.
//! - A manual-mode TIMG2COL, given an operand config whose H, W, pads and pad value are
//!   decoys, must produce the plain im2col matrix (nested loops written here) of the
//!   configuration the registers were set from: by the three instructions, or by an earlier
//!   auto-mode TIMG2COL, which programs them. Both archs, A and B registers, every type.
//! - One test per restriction class.

use npusim_pto::ops::config::{FmatrixMode, Img2colRepeat, fmatrix_fields, fmatrix_word};
use npusim_pto::ops::img2col::Img2colConfig;
use npusim_pto::*;
use proptest::prelude::*;

mod img2col_common;
use img2col_common::{left, model};

fn set(c: &mut TileCore, op: OpCode, cfg: Img2colConfig, t: ElemType, mode: FmatrixMode) {
    let args = Args::FmatrixSet {
        cfg,
        rpt: Img2colRepeat::default(),
        dtype: t,
        mode,
    };
    c.exec(&TileOp { op, args }).unwrap();
}

const A5_TYPES: [ElemType; 9] = [
    ElemType::I8,
    ElemType::U8,
    ElemType::I16,
    ElemType::U16,
    ElemType::I32,
    ElemType::U32,
    ElemType::F16,
    ElemType::Bf16,
    ElemType::F32,
];
const A2A3_TYPES: [ElemType; 4] = [ElemType::I8, ElemType::F16, ElemType::Bf16, ElemType::F32];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn register_words_are_the_header_layout(
        h in 1usize..=0xFFFF,
        w in 1usize..=0xFFFF,
        pad in prop::array::uniform4(0usize..=0xFF),
    ) {
        let word = fmatrix_word(OpCode::Setfmatrix, h, w, pad).unwrap();
        let b = word.to_le_bytes();
        prop_assert_eq!(u16::from_le_bytes([b[0], b[1]]) as usize, w);
        prop_assert_eq!(u16::from_le_bytes([b[2], b[3]]) as usize, h);
        prop_assert_eq!([b[4], b[5], b[6], b[7]].map(usize::from), pad);
        prop_assert_eq!(fmatrix_fields(word), (h, w, pad));
    }

    #[test]
    fn manual_timg2col_reads_the_registers(
        arch in prop::sample::select(vec!["a2a3", "a5"]),
        t_sel in 0usize..9,
        b_regs in any::<bool>(),
        by_auto in any::<bool>(),
        n in 1usize..3,
        c1 in 1usize..3,
        h in 1usize..7,
        w in 1usize..7,
        stride in (1usize..3, 1usize..3),
        dilation in (1usize..3, 1usize..3),
        filter in (1usize..4, 1usize..4),
        pad in prop::array::uniform4(0usize..3),
        decoy_hw in (1usize..9, 1usize..9),
        decoy_pad in prop::array::uniform4(0usize..4),
        pad_bits in any::<u64>(),
        decoy_bits in any::<u64>(),
        pos_m in 0u16..12,
        pos_k in 0u16..40,
        seed in any::<u64>(),
    ) {
        let t = if arch == "a5" { A5_TYPES[t_sel] } else { A2A3_TYPES[t_sel % 4] };
        let size = t.size();
        let mask = if size == 8 { u64::MAX } else { (1u64 << (8 * size)) - 1 };
        let c0 = 32 / size;
        let [l, r, tp, b] = pad;
        prop_assume!(h + tp + b > dilation.0 * (filter.0 - 1) && w + l + r > dilation.1 * (filter.1 - 1));
        let real = Img2colConfig { fmap: [n, 1, c1, h, w, c0], stride, dilation, filter, pad, pad_value: pad_bits & mask };
        // The operand config of the manual TIMG2COL: same N, C1, C0, window; decoy H, W, pads,
        // pad value (a manual TIMG2COL must not read them).
        let decoy = Img2colConfig { fmap: [n, 1, c1, decoy_hw.0, decoy_hw.1, c0], pad: decoy_pad, pad_value: decoy_bits & mask, ..real };
        let mut c = TileCore::by_name(arch).unwrap();
        let elems = n * c1 * h * w * c0;
        let src_rows = (elems / c0).div_ceil(16) * 16 + 16 * 8;
        let src = c.alloc(TileDesc::new(TileLoc::Mat, t, src_rows, c0).at(0)).unwrap();
        let mut x = seed;
        let bytes: Vec<u8> = (0..src_rows * 32).map(|_| { x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407); (x >> 56) as u8 }).collect();
        c.mem_mut(TileLoc::Mat)[..bytes.len()].copy_from_slice(&bytes);
        let cols = 2 * c0;
        let dst = c.alloc(left(arch, t, 16, cols).valid(16, cols - 1).at(0)).unwrap();
        let (auto, manual) = if b_regs { (FmatrixMode::BAuto, FmatrixMode::BManual) } else { (FmatrixMode::AAuto, FmatrixMode::AManual) };
        if by_auto {
            // An auto-mode TIMG2COL of the real config programs the registers.
            let args = Args::Img2colMode { dst, src, cfg: real, pos_m: 0, pos_k: 0, mode: auto };
            c.exec(&TileOp { op: OpCode::Timg2col, args }).unwrap();
            c.mem_mut(TileLoc::Left).fill(0xEE);
        } else {
            set(&mut c, OpCode::Setfmatrix, real, t, manual);
            set(&mut c, OpCode::SetImg2colPadding, real, t, manual);
            set(&mut c, OpCode::SetImg2colRpt, real, t, manual);
        }
        let args = Args::Img2colMode { dst, src, cfg: decoy, pos_m, pos_k, mode: manual };
        c.exec(&TileOp { op: OpCode::Timg2col, args }).unwrap();
        let m = model(&real);
        let width = c1 * filter.0 * filter.1 * c0;
        for rr in 0..16 {
            for cc in 0..cols - 1 {
                let (mi, ki) = (pos_m as usize + rr, pos_k as usize + cc);
                let want = match (mi < m.len() && ki < width).then(|| m[mi][ki]).flatten() {
                    Some(i) => { let mut v = [0u8; 8]; v[..size].copy_from_slice(&bytes[i * size..(i + 1) * size]); u64::from_le_bytes(v) }
                    None => real.pad_value,
                };
                prop_assert_eq!(c.get_bits(&dst, rr, cc).unwrap(), want, "({}, {}) m {} k {}", rr, cc, mi, ki);
            }
        }
        // The state holds the header words.
        let st = c.config_state();
        let slot = usize::from(b_regs);
        prop_assert_eq!(st.fmatrix[slot].map(fmatrix_fields), Some((h, w, pad)));
        let pslot = if arch == "a5" { slot } else { 0 };
        let pw = st.img2col_padding[pslot].unwrap();
        let want_pw = if size == 1 { (real.pad_value as u32) * 0x101 } else { real.pad_value as u32 };
        prop_assert_eq!(pw, want_pw);
        prop_assert_eq!(st.img2col_rpt[pslot], Some(1u64 << 16));
    }
}

fn small() -> Img2colConfig {
    Img2colConfig {
        fmap: [1, 1, 1, 3, 3, 16],
        stride: (1, 1),
        dilation: (1, 1),
        filter: (2, 2),
        pad: [1, 0, 1, 0],
        pad_value: 0x3c00,
    }
}

fn rule(e: PtoError) -> String {
    match e {
        PtoError::Static { rule, .. } => rule.to_string(),
        e => e.to_string(),
    }
}

/// A2A3 has one padding register for both FMATRIX modes (its header writes `set_padding` for
/// A and B); A5 has two (`set_padding_b`).
#[test]
fn a2a3_shares_the_padding_register_a5_does_not() {
    for (arch, want) in [("a2a3", 0x3c00u64), ("a5", 0)] {
        let mut c = TileCore::by_name(arch).unwrap();
        let f = ElemType::F16;
        let src = c
            .alloc(TileDesc::new(TileLoc::Mat, f, 16, 16).at(0))
            .unwrap();
        let dst = c.alloc(left(arch, f, 16, 16).at(0)).unwrap();
        c.set_img2col_padding(f, 0x3c00, FmatrixMode::AManual)
            .unwrap();
        c.set_fmatrix(&small(), FmatrixMode::BManual).unwrap();
        c.timg2col_mode(&dst, &src, &small(), 0, 0, FmatrixMode::BManual)
            .unwrap();
        // Output row 0 (oh = ow = 0) at kernel position (0, 0) reads (-1, -1): padding.
        assert_eq!(c.get_bits(&dst, 0, 0).unwrap(), want, "{arch}");
    }
}

#[test]
fn fmatrix_restrictions() {
    let mut c = TileCore::by_name("a2a3").unwrap();
    let f = ElemType::F16;
    let src = c
        .alloc(TileDesc::new(TileLoc::Mat, f, 16, 16).at(0))
        .unwrap();
    let dst = c.alloc(left("a2a3", f, 16, 16).at(0)).unwrap();
    let cfg = small();
    // A manual TIMG2COL with its FMATRIX register unset.
    let e = c.timg2col_mode(&dst, &src, &cfg, 0, 0, FmatrixMode::AManual);
    assert!(rule(e.unwrap_err()).contains("SETFMATRIX"));
    // H or W zero or past 16 bits; a pad past 8 bits (SETFMATRIX and auto TIMG2COL alike).
    for bad in [
        Img2colConfig {
            fmap: [1, 1, 1, 0, 3, 16],
            ..cfg
        },
        Img2colConfig {
            fmap: [1, 1, 1, 3, 0x1_0000, 16],
            ..cfg
        },
    ] {
        let e = c.set_fmatrix(&bad, FmatrixMode::AManual).unwrap_err();
        assert!(rule(e).contains("16-bit"));
    }
    let wide = Img2colConfig {
        pad: [0, 256, 0, 0],
        ..cfg
    };
    assert!(rule(c.set_fmatrix(&wide, FmatrixMode::AManual).unwrap_err()).contains("8-bit"));
    assert!(rule(c.timg2col(&dst, &src, &wide, 0, 0).unwrap_err()).contains("8-bit"));
    // An auto-mode register instruction checks but sets nothing.
    assert!(c.set_fmatrix(&wide, FmatrixMode::AAuto).is_err());
    c.set_fmatrix(&cfg, FmatrixMode::AAuto).unwrap();
    assert_eq!(c.config_state().fmatrix, [None, None]);
    // Repeat mode other than 0/1; A2A3 dst fields.
    let r = Img2colRepeat {
        mode: 2,
        ..Default::default()
    };
    assert!(rule(c.set_img2col_rpt(&r, FmatrixMode::AManual).unwrap_err()).contains("repeat mode"));
    let r = Img2colRepeat {
        dst_stride: 1,
        ..Default::default()
    };
    assert!(rule(c.set_img2col_rpt(&r, FmatrixMode::AManual).unwrap_err()).contains("a2a3"));
    let mut c5 = TileCore::by_name("a5").unwrap();
    assert!(c5.set_img2col_rpt(&r, FmatrixMode::AManual).is_ok());
    // Pad value type outside TIMG2COL's list on the arch, and a value wider than its type.
    let e = c
        .set_img2col_padding(ElemType::I32, 0, FmatrixMode::AManual)
        .unwrap_err();
    assert!(rule(e).contains("TIMG2COL's types"));
    let e = c
        .set_img2col_padding(f, 0x1_0000, FmatrixMode::AManual)
        .unwrap_err();
    assert!(rule(e).contains("fit"));
    // Repeat time 0: a no-op (dst untouched); above 1: unsupported, typed.
    c.set_fmatrix(&cfg, FmatrixMode::AManual).unwrap();
    c.mem_mut(TileLoc::Left).fill(0xAB);
    let r0 = Img2colRepeat {
        time: 0,
        ..Default::default()
    };
    c.set_img2col_rpt(&r0, FmatrixMode::AManual).unwrap();
    c.timg2col_mode(&dst, &src, &cfg, 0, 0, FmatrixMode::AManual)
        .unwrap();
    assert_eq!(c.get_bits(&dst, 0, 0).unwrap(), 0xABAB);
    let r2 = Img2colRepeat {
        time: 2,
        ..Default::default()
    };
    c.set_img2col_rpt(&r2, FmatrixMode::AManual).unwrap();
    let e = c.timg2col_mode(&dst, &src, &cfg, 0, 0, FmatrixMode::AManual);
    assert!(matches!(e, Err(PtoError::Unsupported { .. })), "{e:?}");
    // Wrong operand form through exec.
    let args = Args::F32Mode {
        enable: true,
        mode: npusim_core::convert::RoundMode::Rint,
    };
    assert!(matches!(
        c.exec(&TileOp {
            op: OpCode::Setfmatrix,
            args
        }),
        Err(PtoError::Operands { .. })
    ));
}
