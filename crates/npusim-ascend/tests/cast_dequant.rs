//! CastDequant int16 -> int8/uint8 and int32 -> half with the DEQSCALE register (asc-devkit
//! `复合计算/CastDequant.md`, `SetDeqScale.md`, boundary table 29): the page's worked example in
//! its three call forms, table 29, the documented odd/even recipe for contiguous output, the
//! named policies of `npusim_ascend::deq` (scale in (1, 8, 10) format, round to nearest even,
//! the signed 9-bit clamp, the signed 9-bit offset), a property test against a plain model of
//! the geometry and the formula over random repeats, strides, masks (both modes) and values on
//! every chip that has the instruction, and one test per restriction.

mod common;

use half::f16;
use npusim_ascend::AscendError;
use npusim_ascend::ascendc::{AscendC, LocalTensor, UnaryRepeatParams, VdeqInfo};
use npusim_core::ChipId;
use proptest::prelude::*;

const CHIPS: [ChipId; 3] = [ChipId::Ascend950, ChipId::Ascend910B, ChipId::Ascend310P];

/// The page's printed input (256 int16).
const PAGE_IN: [i16; 256] = [
    20, 53, 26, 12, 36, 6, 20, 93, 66, 30, 56, 99, 59, 92, 7, 37, 22, 47, 98, 10, 85, 29, 14, 46,
    17, 34, 45, 17, 25, 45, 82, 17, 66, 94, 68, 23, 67, 8, 89, 8, 92, 6, 10, 80, 87, 20, 9, 81, 70,
    62, 11, 58, 38, 83, 32, 14, 38, 47, 41, 63, 94, 26, 96, 89, 88, 35, 86, 55, 60, 82, 15, 65, 92,
    67, 83, 23, 63, 25, 85, 93, 50, 91, 75, 60, 80, 10, 55, 20, 71, 14, 67, 23, 31, 63, 7, 93, 69,
    45, 61, 23, 43, 86, 11, 81, 81, 36, 76, 58, 53, 25, 23, 51, 59, 78, 82, 10, 39, 40, 24, 50, 68,
    49, 79, 40, 4, 53, 22, 38, 45, 17, 29, 54, 9, 66, 98, 47, 12, 47, 47, 20, 98, 0, 59, 77, 1, 21,
    39, 70, 66, 20, 68, 8, 77, 77, 54, 0, 3, 33, 37, 37, 48, 60, 83, 88, 27, 70, 31, 49, 75, 21,
    59, 3, 99, 84, 92, 84, 14, 44, 26, 56, 72, 56, 37, 52, 39, 11, 2, 59, 59, 65, 71, 64, 10, 65,
    62, 48, 42, 79, 69, 69, 27, 99, 8, 38, 36, 77, 34, 34, 60, 50, 52, 50, 41, 31, 95, 68, 27, 16,
    42, 64, 19, 47, 0, 10, 36, 36, 33, 62, 98, 64, 32, 81, 49, 53, 27, 70, 35, 9, 63, 7, 10, 89, 3,
    39, 94, 23, 89, 16, 23, 60, 71, 42, 46, 58, 65, 90,
];

/// The page's printed output (512 uint8): each 32-byte block holds 16 zeros, then the 16
/// results (`halfBlock = true`).
const PAGE_OUT: [u8; 512] = [
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 20, 53, 26, 12, 36, 6, 20, 93, 66, 30, 56, 99,
    59, 92, 7, 37, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 22, 47, 98, 10, 85, 29, 14, 46,
    17, 34, 45, 17, 25, 45, 82, 17, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 66, 94, 68, 23,
    67, 8, 89, 8, 92, 6, 10, 80, 87, 20, 9, 81, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 70,
    62, 11, 58, 38, 83, 32, 14, 38, 47, 41, 63, 94, 26, 96, 89, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 88, 35, 86, 55, 60, 82, 15, 65, 92, 67, 83, 23, 63, 25, 85, 93, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 50, 91, 75, 60, 80, 10, 55, 20, 71, 14, 67, 23, 31, 63, 7, 93, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 69, 45, 61, 23, 43, 86, 11, 81, 81, 36, 76, 58,
    53, 25, 23, 51, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 59, 78, 82, 10, 39, 40, 24, 50,
    68, 49, 79, 40, 4, 53, 22, 38, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 45, 17, 29, 54,
    9, 66, 98, 47, 12, 47, 47, 20, 98, 0, 59, 77, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    1, 21, 39, 70, 66, 20, 68, 8, 77, 77, 54, 0, 3, 33, 37, 37, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 48, 60, 83, 88, 27, 70, 31, 49, 75, 21, 59, 3, 99, 84, 92, 84, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 14, 44, 26, 56, 72, 56, 37, 52, 39, 11, 2, 59, 59, 65, 71, 64, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 10, 65, 62, 48, 42, 79, 69, 69, 27, 99, 8, 38, 36,
    77, 34, 34, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 60, 50, 52, 50, 41, 31, 95, 68, 27,
    16, 42, 64, 19, 47, 0, 10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 36, 36, 33, 62, 98,
    64, 32, 81, 49, 53, 27, 70, 35, 9, 63, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 10,
    89, 3, 39, 94, 23, 89, 16, 23, 60, 71, 42, 46, 58, 65, 90,
];

/// A core with the page's operands: src (256 int16), dst (512 b8, zeroed), vdeq (16 uint64).
fn page_core(chip: ChipId) -> (AscendC, LocalTensor<i16>, LocalTensor<u8>) {
    let mut k = AscendC::new(chip, 0);
    let src = k.AllocTensor::<i16>("srcLocal", 256).unwrap();
    let dst = k.AllocTensor::<u8>("dstLocal", 512).unwrap();
    let vdeq = k.AllocTensor::<u64>("tmpBuffer", 16).unwrap();
    k.write(&src, &PAGE_IN).unwrap();
    // Scale 1, offset 0, unsigned: the example's output equals its input.
    let info = VdeqInfo::new([1.0; 16], [0; 16], [false; 16]);
    k.SetDeqScaleVdeq(&vdeq, &info).unwrap();
    (k, src, dst)
}

#[test]
fn page_example_in_its_three_forms() {
    for chip in CHIPS {
        // mask continuous mode: 128 elements, 2 repeats, {1, 1, 8, 8}.
        let (mut k, src, dst) = page_core(chip);
        k.CastDequantRepeat::<u8, i16, true, true, true>(
            &dst,
            &src,
            128i32,
            2,
            UnaryRepeatParams::new(1, 1, 8, 8),
        )
        .unwrap();
        assert_eq!(k.read::<u8>(&dst).unwrap(), PAGE_OUT, "{chip:?} continuous");
        // mask bit mode: all 128 bits.
        let (mut k, src, dst) = page_core(chip);
        k.CastDequantRepeat::<u8, i16, true, true, true>(
            &dst,
            &src,
            [u64::MAX, u64::MAX],
            2,
            UnaryRepeatParams::new(1, 1, 8, 8),
        )
        .unwrap();
        assert_eq!(k.read::<u8>(&dst).unwrap(), PAGE_OUT, "{chip:?} bits");
        // first n elements.
        let (mut k, src, dst) = page_core(chip);
        k.CastDequant::<u8, i16, true, true>(&dst, &src, 256)
            .unwrap();
        assert_eq!(k.read::<u8>(&dst).unwrap(), PAGE_OUT, "{chip:?} count");
    }
}

/// The SetDeqScale page's per-tensor example (scale 1, offset 0, signed) and table 29.
#[test]
fn table_29_and_the_set_deq_scale_example() {
    for chip in CHIPS {
        let mut k = AscendC::new(chip, 0);
        let src = k.AllocTensor::<i16>("src", 16).unwrap();
        let dst = k.AllocTensor::<i8>("dst", 32).unwrap();
        let x: [i16; 16] = [
            0, 32767, -32768, 1, -1, 127, 128, -128, -129, 255, 256, -256, -257, 100, -100, 7,
        ];
        k.write(&src, &x).unwrap();
        k.SetDeqScaleConfig(1.0, 0, true).unwrap();
        k.CastDequant::<i8, i16, false, false>(&dst, &src, 16)
            .unwrap();
        let got = k.read::<i8>(&dst).unwrap();
        let want: Vec<i8> = x.iter().map(|&v| v.clamp(-128, 127) as i8).collect();
        assert_eq!(&got[..16], &want[..], "{chip:?}");
        assert_eq!(
            &got[16..],
            &[0; 16],
            "{chip:?}: the other half is untouched"
        );
        // Table 29 rows: 0 -> 0, MAX -> MAX, MIN -> MIN.
        assert_eq!((got[0], got[1], got[2]), (0, i8::MAX, i8::MIN));
    }
    // int32 -> half: MAX with scale 1 is +inf in INF/NAN mode (A2/A3, 950).
    for chip in [ChipId::Ascend910B, ChipId::Ascend950] {
        let mut k = AscendC::new(chip, 0);
        let src = k.AllocTensor::<i32>("src", 8).unwrap();
        let dst = k.AllocTensor::<f16>("dst", 16).unwrap();
        k.write(
            &src,
            &[0, 65504, -65504, i32::MAX, i32::MIN, 3, -7, 100_000],
        )
        .unwrap();
        k.SetDeqScale(f16::ONE).unwrap();
        k.CastDequant::<f16, i32, false, false>(&dst, &src, 8)
            .unwrap();
        let got: Vec<f32> = k.read::<f16>(&dst).unwrap()[..8]
            .iter()
            .map(|h| h.to_f32())
            .collect();
        assert_eq!(
            got,
            [
                0.0,
                65504.0,
                -65504.0,
                f32::INFINITY,
                f32::NEG_INFINITY,
                3.0,
                -7.0,
                f32::INFINITY
            ],
            "{chip:?}"
        );
        k.SetDeqScale(f16::from_f32(0.5)).unwrap();
        k.CastDequantRepeat::<f16, i32, true, false, false>(
            &dst,
            &src,
            8i32,
            1,
            UnaryRepeatParams::new(1, 1, 8, 8),
        )
        .unwrap();
        assert_eq!(k.read::<f16>(&dst).unwrap()[6].to_f32(), -3.5);
    }
}

/// The page's recipe: even source blocks into the upper halves, odd ones into the lower halves
/// of the same destination blocks, gives the results contiguously (so a call leaves the other
/// half of each block as it was).
#[test]
fn odd_even_halves_give_contiguous_output() {
    for chip in CHIPS {
        let mut k = AscendC::new(chip, 0);
        let src = k.AllocTensor::<i16>("src", 256).unwrap();
        let dst = k.AllocTensor::<u8>("dst", 256).unwrap();
        let x: Vec<i16> = (0..256).map(|i| ((i * 37 + 11) % 256) as i16).collect();
        k.write(&src, &x).unwrap();
        k.write(&dst, &[0xAAu8; 256]).unwrap();
        k.SetDeqScaleConfig(1.0, 0, false).unwrap();
        // 8 even blocks (src block stride 2) into dst blocks 0..7, upper half.
        k.CastDequantRepeat::<u8, i16, true, false, false>(
            &dst,
            &src,
            128i32,
            1,
            UnaryRepeatParams::new(1, 2, 8, 16),
        )
        .unwrap();
        // 8 odd blocks into the lower halves.
        k.CastDequantRepeat::<u8, i16, true, false, true>(
            &dst,
            &src.offset(16),
            128i32,
            1,
            UnaryRepeatParams::new(1, 2, 8, 16),
        )
        .unwrap();
        let want: Vec<u8> = x.iter().map(|&v| v as u8).collect();
        assert_eq!(k.read::<u8>(&dst).unwrap(), want, "{chip:?}");
    }
}

/// One value through a per-tensor configuration.
fn one(scale: f32, offset: i16, signed: bool, x: i16) -> i32 {
    let mut k = AscendC::new(ChipId::Ascend910B, 0);
    let src = k.AllocTensor::<i16>("src", 16).unwrap();
    k.write(&src, &[x; 16]).unwrap();
    k.SetDeqScaleConfig(scale, offset, signed).unwrap();
    if signed {
        let dst = k.AllocTensor::<i8>("dst", 32).unwrap();
        k.CastDequant::<i8, i16, false, false>(&dst, &src, 1)
            .unwrap();
        k.read::<i8>(&dst).unwrap()[0] as i32
    } else {
        let dst = k.AllocTensor::<u8>("dst", 32).unwrap();
        k.CastDequant::<u8, i16, false, false>(&dst, &src, 1)
            .unwrap();
        k.read::<u8>(&dst).unwrap()[0] as i32
    }
}

#[test]
fn named_policies_scale_format_rounding_clamp_and_offset() {
    // (1, 8, 10) scale: 0.5 + 2^-12 loses its low bit and is 0.5, so 1 -> 0.5 -> 0 (ties to
    // even); the untruncated product 0.500244 would round to 1.
    assert_eq!(one(0.5 + 2f32.powi(-12), 0, false, 1), 0);
    assert_eq!(one(0.5, 0, false, 3), 2); // 1.5 -> 2
    assert_eq!(one(0.5, 0, false, 5), 2); // 2.5 -> 2 (ties to even, not away)
    assert_eq!(one(0.5, 0, true, -5), -2);
    // The product is clamped to [-256, 255] before the offset: 1000 - 100 -> 155, not 127/255.
    assert_eq!(one(1.0, -100, false, 1000), 155);
    assert_eq!(one(1.0, 100, true, -1000), -128);
    assert_eq!(one(1.0, 100, false, -1000), 0);
    // The offset is a signed 9-bit field: -1 subtracts one; 300 keeps its low 9 bits (-212).
    assert_eq!(one(1.0, -1, false, 50), 49);
    assert_eq!(one(1.0, 300, true, 100), -112);
    assert_eq!(one(1.0, 255, false, 255), 255);
    // NaN scale: the int16 conversion gives 0; +inf saturates, then the 9-bit clamp.
    assert_eq!(one(f32::NAN, 7, false, 3), 7);
    assert_eq!(one(f32::INFINITY, -5, true, 3), 127);
    assert_eq!(one(f32::INFINITY, 0, true, -3), -128);
    assert_eq!(one(f32::INFINITY, 0, false, 0), 0); // 0 * inf = NaN -> 0
}

// ---------------------------------------------------------------------------------------------
// Property test against a plain model.

/// The formula, written from the module docs (not from the crate).
fn model_elem(x: i16, cfg: u64) -> u8 {
    let scale = f32::from_bits((cfg as u32) & !0x1fff);
    let raw = ((cfg >> 37) & 0x1ff) as i32;
    let offset = if raw >= 256 { raw - 512 } else { raw };
    let signed = cfg >> 46 & 1 == 1;
    let p = x as f32 * scale;
    let q: i32 = if p.is_nan() {
        0
    } else if p >= 32767.0 {
        32767
    } else if p <= -32768.0 {
        -32768
    } else {
        let f = p.floor();
        let d = p - f;
        let f = f as i32;
        if d > 0.5 || (d == 0.5 && f % 2 != 0) {
            f + 1
        } else {
            f
        }
    };
    let s = q.clamp(-256, 255) + offset;
    if signed {
        s.clamp(-128, 127) as i8 as u8
    } else {
        s.clamp(0, 255) as u8
    }
}

fn cfg_of(scale: f32, offset: i16, signed: bool) -> u64 {
    (u64::from(signed) << 46)
        | (((offset as u16 as u64) & 0x1ff) << 37)
        | u64::from(scale.to_bits())
}

#[derive(Debug, Clone)]
struct Case {
    chip: ChipId,
    signed: bool,
    vec: bool,
    half: bool,
    counter: Option<u32>,
    bits: [u64; 2],
    repeat: u8,
    blk: (u16, u16),
    rep: (u8, u8),
    scales: Vec<f32>,
    offsets: Vec<i16>,
    x: Vec<i16>,
}

fn special_f32() -> impl Strategy<Value = f32> {
    prop_oneof![
        4 => -4.0f32..4.0,
        1 => prop::sample::select(vec![0.0, -0.0, 1.0, 0.5, f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 1e-40, 300.0]),
        1 => any::<u32>().prop_map(f32::from_bits),
    ]
}

fn case() -> impl Strategy<Value = Case> {
    (
        prop::sample::select(CHIPS.to_vec()),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        prop::option::of(0u32..700),
        any::<[u64; 2]>(),
        0u8..4,
        (1u16..4, 1u16..4),
        (8u8..40, 8u8..40),
        prop::collection::vec(special_f32(), 16),
        prop::collection::vec(any::<i16>(), 16),
        prop::collection::vec(prop_oneof![3 => -600i16..600, 1 => any::<i16>()], 2048),
    )
        .prop_map(
            |(chip, signed, vec, half, counter, bits, repeat, blk, rep, scales, offsets, x)| Case {
                chip,
                signed,
                vec,
                half,
                counter,
                bits,
                repeat,
                blk,
                rep,
                scales,
                offsets,
                x,
            },
        )
}

/// Runs a case; returns the destination bytes (initialised to 0x5A).
fn run(c: &Case) -> Result<Vec<u8>, AscendError> {
    let mut k = AscendC::new(c.chip, 0);
    let src = k.AllocTensor::<i16>("src", 16 * 1024).unwrap();
    let vdeq = k.AllocTensor::<u64>("vdeq", 16).unwrap();
    let xs: Vec<i16> = c.x.iter().cycle().take(16 * 1024).copied().collect();
    k.write(&src, &xs).unwrap();
    if c.vec {
        let signs = [c.signed; 16];
        let info = VdeqInfo::new(
            c.scales.clone().try_into().unwrap(),
            c.offsets.clone().try_into().unwrap(),
            signs,
        );
        k.SetDeqScaleVdeq(&vdeq, &info)?;
    } else {
        k.SetDeqScaleConfig(c.scales[0], c.offsets[0], c.signed)?;
    }
    let p = UnaryRepeatParams::new(c.blk.0, c.blk.1, c.rep.0, c.rep.1);
    let mask: npusim_ascend::ascendc::AscMask = match c.counter {
        Some(n) => {
            k.SetMaskCount()?;
            (n as u64).into()
        }
        None => c.bits.into(),
    };
    macro_rules! go {
        ($t:ty) => {{
            let dst = k.AllocTensor::<$t>("dst", 48 * 1024).unwrap();
            k.write(&dst, &vec![0x5Au8 as $t; 48 * 1024]).unwrap();
            match (c.vec, c.half) {
                (true, true) => k.CastDequantRepeat::<$t, i16, true, true, true>(
                    &dst,
                    &src,
                    mask,
                    c.repeat as i32,
                    p,
                ),
                (true, false) => k.CastDequantRepeat::<$t, i16, true, true, false>(
                    &dst,
                    &src,
                    mask,
                    c.repeat as i32,
                    p,
                ),
                (false, true) => k.CastDequantRepeat::<$t, i16, true, false, true>(
                    &dst,
                    &src,
                    mask,
                    c.repeat as i32,
                    p,
                ),
                (false, false) => k.CastDequantRepeat::<$t, i16, true, false, false>(
                    &dst,
                    &src,
                    mask,
                    c.repeat as i32,
                    p,
                ),
            }?;
            Ok(k.read::<$t>(&dst)
                .unwrap()
                .iter()
                .map(|&v| v as u8)
                .collect())
        }};
    }
    if c.signed { go!(i8) } else { go!(u8) }
}

/// The plain model: every active lane of every iteration, addresses from the documented
/// formula (32-byte blocks; result byte j of source block b at dst block b's half + j).
fn model(c: &Case) -> Vec<u8> {
    let xs: Vec<i16> = c.x.iter().cycle().take(16 * 1024).copied().collect();
    let mut out = vec![0x5Au8; 48 * 1024];
    let (iters, lanes_of): (u32, Box<dyn Fn(u32) -> u128>) = match c.counter {
        Some(n) => (
            n.div_ceil(128),
            Box::new(move |r| {
                let left = (n - r * 128).min(128);
                if left == 128 {
                    u128::MAX
                } else {
                    (1u128 << left) - 1
                }
            }),
        ),
        None => {
            let m = (c.bits[1] as u128) << 64 | c.bits[0] as u128;
            (c.repeat as u32, Box::new(move |_| m))
        }
    };
    for r in 0..iters {
        let lanes = lanes_of(r);
        for e in 0..128u32 {
            if lanes >> e & 1 == 0 {
                continue;
            }
            let (b, j) = (e / 16, e % 16);
            let s = (r * c.rep.1 as u32 * 16 + b * c.blk.1 as u32 * 16 + j) as usize;
            let d = (r * c.rep.0 as u32 * 32
                + b * c.blk.0 as u32 * 32
                + if c.half { 16 } else { 0 }
                + j) as usize;
            let i = if c.vec { j as usize } else { 0 };
            out[d] = model_elem(xs[s], cfg_of(c.scales[i], c.offsets[i], c.signed));
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(96)))]
    #[test]
    fn matches_the_plain_model(c in case()) {
        let got = run(&c);
        prop_assume!(!(c.counter.is_none() && c.repeat > 0 && ((c.bits[1] as u128) << 64 | c.bits[0] as u128) == 0));
        let got = got.unwrap_or_else(|e| panic!("{e}"));
        prop_assert_eq!(got, model(&c));
    }
}

// ---------------------------------------------------------------------------------------------
// Restrictions.

fn rule_param(e: AscendError) -> &'static str {
    match e {
        AscendError::Rule { param, .. }
        | AscendError::OutOfRange { param, .. }
        | AscendError::IllegalType { param, .. } => param,
        AscendError::Misaligned { param, .. } | AscendError::TensorOverflow { param, .. } => param,
        AscendError::IllegalOverlap { .. } => "overlap",
        AscendError::NotSupported { instr, .. } => instr,
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn restrictions_give_typed_errors() {
    // Chips without the instruction.
    for chip in [ChipId::Ascend910, ChipId::Ascend310B, ChipId::Ascend310] {
        let mut k = AscendC::new(chip, 0);
        let s = k.AllocTensor::<i16>("s", 128).unwrap();
        let d = k.AllocTensor::<i8>("d", 256).unwrap();
        assert_eq!(
            k.SetDeqScaleConfig(1.0, 0, true).map_err(rule_param),
            Err("SetDeqScale")
        );
        let e = k
            .CastDequant::<i8, i16, false, false>(&d, &s, 128)
            .unwrap_err();
        assert_eq!(
            e,
            AscendError::NotSupported {
                instr: "CastDequant",
                chip
            }
        );
    }
    let mut k = AscendC::new(ChipId::Ascend910B, 0);
    let s = k.AllocTensor::<i16>("s", 256).unwrap();
    let d8 = k.AllocTensor::<i8>("d8", 512).unwrap();
    let du = k.AllocTensor::<u8>("du", 512).unwrap();
    let dh = k.AllocTensor::<f16>("dh", 256).unwrap();
    let small = k.AllocTensor::<u64>("small", 8).unwrap();
    let vdeq = k.AllocTensor::<u64>("vdeq", 16).unwrap();
    let p = UnaryRepeatParams::new(1, 1, 8, 8);
    // No s16 configuration yet.
    assert_eq!(
        k.CastDequant::<i8, i16, false, false>(&d8, &s, 128)
            .map_err(rule_param),
        Err("SetDeqScale")
    );
    k.SetDeqScaleConfig(1.0, 0, true).unwrap();
    // Types: int16 -> half is not a CastDequant pair.
    let e = k
        .CastDequant::<f16, i16, false, false>(&dh, &s, 128)
        .unwrap_err();
    assert!(
        e.to_string().contains("int16_t -> dst int8_t / uint8_t"),
        "{e}"
    );
    // signMode true needs int8_t.
    let e = k
        .CastDequant::<u8, i16, false, false>(&du, &s, 128)
        .unwrap_err();
    assert_eq!(rule_param(e.clone()), "signMode");
    assert!(e.to_string().contains("int8_t for true"), "{e}");
    // isVecDeq without a vdeq tensor.
    assert_eq!(
        k.CastDequant::<i8, i16, true, false>(&d8, &s, 128)
            .map_err(rule_param),
        Err("isVecDeq")
    );
    // vdeq needs 128 bytes.
    let info = VdeqInfo::new([1.0; 16], [0; 16], [true; 16]);
    assert_eq!(
        k.SetDeqScaleVdeq(&small, &info).map_err(rule_param),
        Err("vdeq")
    );
    k.SetDeqScaleVdeq(&vdeq, &info).unwrap();
    // A tensor-set register needs isVecDeq.
    assert_eq!(
        k.CastDequant::<i8, i16, false, false>(&d8, &s, 128)
            .map_err(rule_param),
        Err("isVecDeq")
    );
    // One configuration with the wrong signMode.
    let mut signs = [true; 16];
    signs[5] = false;
    k.SetDeqScaleVdeq(&vdeq, &VdeqInfo::new([1.0; 16], [0; 16], signs))
        .unwrap();
    let e = k
        .CastDequant::<i8, i16, true, false>(&d8, &s, 128)
        .unwrap_err();
    assert!(e.to_string().contains("configuration 5"), "{e}");
    k.SetDeqScaleConfig(1.0, 0, true).unwrap();
    // Ranges.
    assert_eq!(
        k.CastDequantRepeat::<i8, i16, true, false, false>(&d8, &s, 128i32, 256, p)
            .map_err(rule_param),
        Err("repeatTime")
    );
    assert_eq!(
        k.CastDequantRepeat::<i8, i16, true, false, false>(&d8, &s, 129i32, 1, p)
            .map_err(|e| e.to_string().contains("[1, 128]")),
        Err(true)
    );
    // Alignment and bounds.
    assert_eq!(
        k.CastDequant::<i8, i16, false, false>(&d8, &s.offset(3), 16)
            .map_err(rule_param),
        Err("src")
    );
    assert_eq!(
        k.CastDequantRepeat::<i8, i16, true, false, false>(&d8, &s, 128i32, 3, p)
            .map_err(rule_param),
        Err("src")
    );
    // The same address with the same strides runs in place: block b's result replaces its first
    // 16 bytes.
    let x: Vec<i16> = (0..128).map(|i| i as i16 - 64).collect();
    k.write(&s, &x).unwrap();
    let alias = s.ReinterpretCast::<i8>();
    k.CastDequantRepeat::<i8, i16, true, false, false>(&alias, &s, 128i32, 1, p)
        .unwrap();
    let bytes = k.read::<i8>(&alias).unwrap();
    for b in 0..8 {
        for j in 0..16 {
            assert_eq!(bytes[b * 32 + j] as i16, x[b * 16 + j]);
        }
    }
    let e = k
        .CastDequantRepeat::<i8, i16, true, false, false>(&alias.offset(32), &s, 128i32, 1, p)
        .unwrap_err();
    assert_eq!(rule_param(e), "overlap");
    // Atlas inference AI Core has no int32 -> half form.
    let mut k = AscendC::new(ChipId::Ascend310P, 0);
    let s = k.AllocTensor::<i32>("s", 64).unwrap();
    let d = k.AllocTensor::<f16>("d", 64).unwrap();
    k.SetDeqScale(f16::ONE).unwrap();
    assert_eq!(
        k.CastDequant::<f16, i32, false, false>(&d, &s, 64)
            .map_err(rule_param),
        Err("dst")
    );
}
