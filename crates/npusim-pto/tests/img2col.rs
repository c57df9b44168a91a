//! TIMG2COL (pto-isa `docs/isa/TIMG2COL.md`; the mapping of `include/pto/*/TImg2col.hpp`)
//! against a plain model written here as a convolution author builds an im2col matrix: one
//! row per output position `(n, d, oh, ow)` in that nesting order, one column per
//! `(c1, kh, kw, c0)` in that order, each the input pixel under the window or the pad value;
//! the instruction's `dst(r, c)` is the matrix's `(posM + r, posK + c)` (pad past its end).
//! Both archs (their Left layouts), all the page's types, random shapes, strides, dilations,
//! pads and offsets; one test per restriction.

use npusim_pto::ops::img2col::Img2colConfig;
use npusim_pto::*;
use proptest::prelude::*;

mod img2col_common;
use img2col_common::{left, model};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn timg2col_matches_the_im2col_matrix(
        arch in prop::sample::select(vec!["a2a3", "a5"]),
        t_sel in 0usize..9,
        n in 1usize..3,
        d in 1usize..3,
        c1 in 1usize..3,
        h in 1usize..7,
        w in 1usize..7,
        stride in (1usize..3, 1usize..3),
        dilation in (1usize..3, 1usize..3),
        filter in (1usize..4, 1usize..4),
        pad in prop::array::uniform4(0usize..3),
        pos_m in 0u16..20,
        pos_k in 0u16..40,
        vr in 1usize..33,
        vc_blocks in 1usize..3,
        seed in any::<u64>(),
    ) {
        let types: &[ElemType] = if arch == "a5" {
            &[ElemType::I8, ElemType::U8, ElemType::I16, ElemType::U16, ElemType::I32, ElemType::U32, ElemType::F16, ElemType::Bf16, ElemType::F32]
        } else {
            &[ElemType::I8, ElemType::F16, ElemType::Bf16, ElemType::F32]
        };
        let t = types[t_sel % types.len()];
        let size = t.size();
        let c0 = 32 / size;
        let cfg = Img2colConfig { fmap: [n, d, c1, h, w, c0], stride, dilation, filter, pad, pad_value: 0x5a5a_5a5a & ((1u64 << (8 * size)) - 1) };
        let [l, r, tp, b] = pad;
        prop_assume!(h + tp + b > dilation.0 * (filter.0 - 1) && w + l + r > dilation.1 * (filter.1 - 1));
        let mut c = TileCore::by_name(arch).unwrap();
        let elems = n * d * c1 * h * w * c0;
        let src_rows = (elems / c0).div_ceil(16) * 16;
        let src = c.alloc(TileDesc::new(TileLoc::Mat, t, src_rows, c0).at(0)).unwrap();
        let mut x = seed;
        let bytes: Vec<u8> = (0..src_rows * 32).map(|_| { x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407); (x >> 56) as u8 }).collect();
        c.mem_mut(TileLoc::Mat)[..bytes.len()].copy_from_slice(&bytes);
        let cols = vc_blocks * c0 * 2;
        let dst = c.alloc(left(arch, t, 32, cols).valid(vr, cols - 1).at(0)).unwrap();
        c.exec(&TileOp { op: OpCode::Timg2col, args: Args::Img2col { dst, src, cfg, pos_m, pos_k } }).unwrap();
        let m = model(&cfg);
        let width = c1 * filter.0 * filter.1 * c0;
        for rr in 0..vr {
            for cc in 0..cols - 1 {
                let (mi, ki) = (pos_m as usize + rr, pos_k as usize + cc);
                let want = match (mi < m.len() && ki < width).then(|| m[mi][ki]).flatten() {
                    Some(i) => { let mut v = [0u8; 8]; v[..size].copy_from_slice(&bytes[i * size..(i + 1) * size]); u64::from_le_bytes(v) }
                    None => cfg.pad_value,
                };
                prop_assert_eq!(c.get_bits(&dst, rr, cc).unwrap(), want, "({}, {}) m {} k {}", rr, cc, mi, ki);
            }
        }
    }
}

#[test]
fn worked_3x3_image_with_a_2x2_filter() {
    // One 3x3 f16 image, C0 = 16 channels (channel 0 holds 1..9), 2x2 filter, stride 1: 4
    // output positions, row (oh, ow) = the four pixels of the window, channel 0 in columns
    // 0, 16, 32, 48 (kernel positions (0,0), (0,1), (1,0), (1,1)).
    let mut c = TileCore::by_name("a5").unwrap();
    let src = c
        .alloc(TileDesc::new(TileLoc::Mat, ElemType::F16, 16, 16).at(0))
        .unwrap();
    // Pixels 1..9 as f16: 1, 2, ..., 9.
    let px = |i: usize| {
        [
            0x3c00u16, 0x4000, 0x4200, 0x4400, 0x4500, 0x4600, 0x4700, 0x4800, 0x4880,
        ][i - 1]
    };
    for p in 0..9 {
        let v = px(p + 1);
        c.mem_mut(TileLoc::Mat)[p * 32..p * 32 + 2].copy_from_slice(&v.to_le_bytes());
    }
    let dst = c
        .alloc(left("a5", ElemType::F16, 16, 64).valid(4, 64).at(0))
        .unwrap();
    let cfg = Img2colConfig {
        fmap: [1, 1, 1, 3, 3, 16],
        stride: (1, 1),
        dilation: (1, 1),
        filter: (2, 2),
        pad: [0; 4],
        pad_value: 0,
    };
    c.timg2col(&dst, &src, &cfg, 0, 0).unwrap();
    let vals: Vec<Vec<u16>> = (0..4)
        .map(|r| {
            (0..4)
                .map(|k| c.get::<u16>(&dst, r, 16 * k).unwrap())
                .collect()
        })
        .collect();
    assert_eq!(vals[0], vec![px(1), px(2), px(4), px(5)]);
    assert_eq!(vals[1], vec![px(2), px(3), px(5), px(6)]);
    assert_eq!(vals[2], vec![px(4), px(5), px(7), px(8)]);
    assert_eq!(vals[3], vec![px(5), px(6), px(8), px(9)]);
    assert_eq!(c.get::<u16>(&dst, 0, 1).unwrap(), 0, "channel 1 is zero");
}

#[test]
fn timg2col_restrictions() {
    let mut c = TileCore::by_name("a2a3").unwrap();
    let f = ElemType::F16;
    let src = c
        .alloc(TileDesc::new(TileLoc::Mat, f, 16, 16).at(0))
        .unwrap();
    let dst = c.alloc(left("a2a3", f, 16, 16).at(0)).unwrap();
    let cfg = Img2colConfig {
        fmap: [1, 1, 1, 4, 4, 16],
        stride: (1, 1),
        dilation: (1, 1),
        filter: (3, 3),
        pad: [1; 4],
        pad_value: 0,
    };
    assert!(c.timg2col(&dst, &src, &cfg, 0, 0).is_ok());
    let rule = |e: PtoError| match e {
        PtoError::Static { rule, .. } => rule.to_string(),
        e => e.to_string(),
    };
    // Layout of dst per arch: a2a3 wants Zz, an Nz Left tile is refused.
    let nz = c.alloc(left("a5", f, 16, 16).at(0)).unwrap();
    assert!(rule(c.timg2col(&nz, &src, &cfg, 0, 0).unwrap_err()).contains("Zz"));
    // Locations.
    let vec_src = c.alloc(TileDesc::vec(f, 16, 16).at(0)).unwrap();
    assert!(c.timg2col(&dst, &vec_src, &cfg, 0, 0).is_err());
    // Types: equal, and from the arch's list (a2a3 has no i32).
    let src32 = c
        .alloc(TileDesc::new(TileLoc::Mat, ElemType::F32, 16, 8).at(0))
        .unwrap();
    assert!(matches!(
        c.timg2col(&dst, &src32, &cfg, 0, 0),
        Err(PtoError::IllegalType { .. })
    ));
    let srci = c
        .alloc(TileDesc::new(TileLoc::Mat, ElemType::I32, 16, 8).at(0))
        .unwrap();
    let dsti = c.alloc(left("a2a3", ElemType::I32, 16, 8).at(0));
    if let Ok(dsti) = dsti {
        assert!(matches!(
            c.timg2col(&dsti, &srci, &cfg, 0, 0),
            Err(PtoError::IllegalType { .. })
        ));
    }
    // Zero stride / dilation / filter / dimension.
    for bad in [
        Img2colConfig {
            stride: (0, 1),
            ..cfg
        },
        Img2colConfig {
            dilation: (1, 0),
            ..cfg
        },
        Img2colConfig {
            filter: (0, 1),
            ..cfg
        },
        Img2colConfig {
            fmap: [1, 1, 0, 4, 4, 16],
            ..cfg
        },
    ] {
        assert!(rule(c.timg2col(&dst, &src, &bad, 0, 0).unwrap_err()).contains("at least 1"));
    }
    // A filter larger than the padded map.
    let big = Img2colConfig {
        filter: (7, 1),
        ..cfg
    };
    assert!(rule(c.timg2col(&dst, &src, &big, 0, 0).unwrap_err()).contains("fit"));
    // A feature map larger than src.
    let huge = Img2colConfig {
        fmap: [2, 1, 1, 4, 4, 16],
        ..cfg
    };
    assert!(rule(c.timg2col(&dst, &src, &huge, 0, 0).unwrap_err()).contains("inside the src"));
}
