//! Ascend C `Compare` / `CompareScalar` in their high-dimension forms (Compare.md and
//! CompareScalar.md, "Tensor高维切分计算": `mask[]` bit-wise and `mask` continuous, with
//! `repeatTime` and `BinaryRepeatParams` / `UnaryRepeatParams`) against a plain model, on every
//! chip, with special values. The pages print no result for these forms (their example is the
//! count form, `compare_scalar::compares_page_example` for CompareScalar); the model is the
//! pages' formula: bit `r · lanes + e` of `dst` is `src0[r, e] <cmp> src1[r, e]`, lane `e` of
//! repeat `r` read at block `e / (32 / sizeof(T))` with the source block and repeat strides.
//! `mask` is a reserved parameter without effect on the pages (保留参数，设置无效): a random
//! mask of either form must not change the result.

mod common;

use half::f16;
use npusim_ascend::ascendc::{AscendC, BinaryRepeatParams, UnaryRepeatParams};
use npusim_ascend::error::AscendError;
use npusim_ascend::kernels::CmpMode;
use npusim_ascend::ops::Scalar;
use npusim_core::{ChipId, Element};
use proptest::prelude::*;

/// The model's comparison: IEEE on the exact values (a NaN compares false, except NE).
fn holds(mode: CmpMode, a: f64, b: f64) -> bool {
    match mode {
        CmpMode::Lt => a < b,
        CmpMode::Gt => a > b,
        CmpMode::Ge => a >= b,
        CmpMode::Eq => a == b,
        CmpMode::Ne => a != b,
        CmpMode::Le => a <= b,
    }
}

/// Source bits with special values mixed in: NaN, infinities, signed zeros, the smallest
/// subnormal, the largest finite value, 1.
fn special_bits(wide: bool, sel: u8, bits: u32) -> u32 {
    let specials32 = [
        0x7FC0_0000,
        0x7F80_0000,
        0xFF80_0000,
        0,
        0x8000_0000,
        1,
        0x7F7F_FFFF,
        0x3F80_0000,
    ];
    let specials16 = [0x7E00, 0x7C00, 0xFC00, 0, 0x8000, 1, 0x7BFF, 0x3C00];
    match (sel as usize) < 8 {
        true if wide => specials32[sel as usize],
        true => specials16[sel as usize],
        false if wide => bits,
        false => bits & 0xFFFF,
    }
}

#[derive(Debug, Clone)]
struct Case {
    chip: ChipId,
    wide: bool,
    mode: CmpMode,
    scalar_form: bool,
    repeat: i32,
    blk: [u8; 2],
    rep: [u8; 2],
    /// `Some` = the bit-wise `mask[]` form, `None` = the continuous form with `count_mask`.
    bits_mask: Option<[u64; 2]>,
    count_mask: u64,
    set_mask: bool,
    signed_dst: bool,
    src0: Vec<u32>,
    src1: Vec<u32>,
    scalar: u32,
}

const SRC_BYTES: usize = 8192;

fn case() -> impl Strategy<Value = Case> {
    (
        (0usize..6, any::<bool>(), 0usize..6, any::<bool>(), 0i32..5),
        ([0u8..3, 0u8..3], [0u8..10, 0u8..10]),
        (
            proptest::option::of(any::<[u64; 2]>()),
            any::<u64>(),
            any::<bool>(),
            any::<bool>(),
        ),
        proptest::collection::vec(
            (any::<u8>(), any::<u32>(), 0u8..4, any::<u32>()),
            SRC_BYTES / 2,
        ),
        (any::<u8>(), any::<u32>()),
    )
        .prop_map(
            |(
                (c, wide, m, scalar_form, repeat),
                (blk, rep),
                (bits_mask, count_mask, set_mask, signed_dst),
                vals,
                (ssel, sbits),
            )| {
                let sel = |s: u8| s % 40;
                let src0: Vec<u32> = vals
                    .iter()
                    .map(|&(s, b, _, _)| special_bits(wide, sel(s), b))
                    .collect();
                // A quarter of src1 equals src0 at the same index (equal values meet whenever the
                // two walks coincide); the rest random with specials.
                let src1 = vals
                    .iter()
                    .zip(&src0)
                    .map(|(&(s, _, eq, b1), &x)| {
                        if eq == 0 {
                            x
                        } else {
                            special_bits(wide, sel(s.rotate_left(3)), b1)
                        }
                    })
                    .collect();
                let scalar = if ssel % 3 == 0 {
                    src0[(sbits as usize) % src0.len()]
                } else {
                    special_bits(wide, sel(ssel), sbits)
                };
                Case {
                    chip: common::CHIPS[c],
                    wide,
                    mode: CmpMode::ALL[m],
                    scalar_form,
                    repeat,
                    blk,
                    rep,
                    bits_mask,
                    count_mask,
                    set_mask,
                    signed_dst,
                    src0,
                    src1,
                    scalar,
                }
            },
        )
}

/// Runs the case through the Ascend C face with element type `T` (bits in `u32`).
fn run<T: Element + Into<Scalar>>(
    c: &Case,
    to_t: impl Fn(u32) -> T,
) -> Result<Vec<u8>, AscendError> {
    let n = SRC_BYTES / std::mem::size_of::<T>();
    let mut asc = AscendC::new(c.chip, 0);
    let s0 = asc.AllocTensor::<T>("src0", n as u64)?;
    let s1 = asc.AllocTensor::<T>("src1", n as u64)?;
    let x0: Vec<T> = c.src0[..n].iter().map(|&b| to_t(b)).collect();
    let x1: Vec<T> = c.src1[..n].iter().map(|&b| to_t(b)).collect();
    asc.write(&s0, &x0)?;
    asc.write(&s1, &x1)?;
    macro_rules! go {
        ($u:ty) => {{
            let d = asc.AllocTensor::<$u>("dst", 256)?;
            asc.write(&d, &[0xA5u8; 256])?;
            let scalar = to_t(c.scalar);
            // The destination strides are given odd values: they must not matter.
            let bp = BinaryRepeatParams {
                dst_blk_stride: 3,
                src0_blk_stride: c.blk[0],
                src1_blk_stride: c.blk[1],
                dst_rep_stride: 5,
                src0_rep_stride: c.rep[0],
                src1_rep_stride: c.rep[1],
            };
            let up = UnaryRepeatParams {
                dst_blk_stride: 3,
                src_blk_stride: c.blk[0] as u16,
                dst_rep_stride: 5,
                src_rep_stride: c.rep[0],
            };
            match (c.scalar_form, c.bits_mask, c.set_mask) {
                (false, Some(m), true) => {
                    asc.CompareRepeat::<T, $u, true>(&d, &s0, &s1, c.mode, m, c.repeat, bp)?
                }
                (false, Some(m), false) => {
                    asc.CompareRepeat::<T, $u, false>(&d, &s0, &s1, c.mode, m, c.repeat, bp)?
                }
                (false, None, true) => asc.CompareRepeat::<T, $u, true>(
                    &d,
                    &s0,
                    &s1,
                    c.mode,
                    c.count_mask,
                    c.repeat,
                    bp,
                )?,
                (false, None, false) => asc.CompareRepeat::<T, $u, false>(
                    &d,
                    &s0,
                    &s1,
                    c.mode,
                    c.count_mask,
                    c.repeat,
                    bp,
                )?,
                (true, Some(m), true) => asc
                    .CompareScalarRepeat::<T, $u, true>(&d, &s0, scalar, c.mode, m, c.repeat, up)?,
                (true, Some(m), false) => asc.CompareScalarRepeat::<T, $u, false>(
                    &d, &s0, scalar, c.mode, m, c.repeat, up,
                )?,
                (true, None, true) => asc.CompareScalarRepeat::<T, $u, true>(
                    &d,
                    &s0,
                    scalar,
                    c.mode,
                    c.count_mask,
                    c.repeat,
                    up,
                )?,
                (true, None, false) => asc.CompareScalarRepeat::<T, $u, false>(
                    &d,
                    &s0,
                    scalar,
                    c.mode,
                    c.count_mask,
                    c.repeat,
                    up,
                )?,
            }
            asc.read::<u8>(&d)
        }};
    }
    if c.signed_dst { go!(i8) } else { go!(u8) }
}

/// The plain model: the pages' formula over the exact values.
fn model(c: &Case, value: impl Fn(u32) -> f64) -> Vec<u8> {
    let size = if c.wide { 4 } else { 2 };
    let (lanes, per_block) = (256 / size, 32 / size);
    let mut out = vec![0xA5u8; 256];
    for r in 0..c.repeat as usize {
        for e in 0..lanes {
            let at = |blk: u8, rep: u8| {
                r * rep as usize * per_block
                    + (e / per_block) * blk as usize * per_block
                    + e % per_block
            };
            let a = value(c.src0[at(c.blk[0], c.rep[0])]);
            let b = if c.scalar_form {
                value(c.scalar)
            } else {
                value(c.src1[at(c.blk[1], c.rep[1])])
            };
            let bit = r * lanes + e;
            if bit % 8 == 0 {
                out[bit / 8] = 0;
            }
            if holds(c.mode, a, b) {
                out[bit / 8] |= 1 << (bit % 8);
            }
        }
    }
    out
}

fn legal(c: &Case) -> bool {
    // Both forms take half everywhere and float everywhere but Ascend310 (the rows' type lists).
    !(c.wide && c.chip == ChipId::Ascend310)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(128)))]

    #[test]
    fn compare_repeat_forms_match_the_model(c in case()) {
        let got = if c.wide { run::<f32>(&c, f32::from_bits) } else { run::<f16>(&c, |b| f16::from_bits(b as u16)) };
        if !legal(&c) {
            let refused = matches!(got, Err(AscendError::IllegalType { param: "src0", .. }));
            prop_assert!(refused, "{:?}", got);
            return Ok(());
        }
        let want = if c.wide { model(&c, |b| f32::from_bits(b) as f64) } else { model(&c, |b| f16::from_bits(b as u16).to_f64()) };
        prop_assert_eq!(got.unwrap(), want);
    }
}

/// The count form's page call (Compare.md: 256 floats, LT, `srcDataSize`) equals the
/// high-dimension form with the default strides and 4 repeats of 64 floats, whatever the mask.
#[test]
fn default_params_equal_the_count_form() {
    for chip in [ChipId::Ascend910B, ChipId::Ascend310P, ChipId::Ascend950] {
        let mut asc = AscendC::new(chip, 0);
        let a = asc.AllocTensor::<f32>("a", 256).unwrap();
        let b = asc.AllocTensor::<f32>("b", 256).unwrap();
        let d1 = asc.AllocTensor::<u8>("d1", 32).unwrap();
        let d2 = asc.AllocTensor::<u8>("d2", 32).unwrap();
        let xa: Vec<f32> = (0..256).map(|i| ((i * 37) % 101) as f32 - 50.0).collect();
        let xb: Vec<f32> = (0..256).map(|i| ((i * 53) % 97) as f32 - 48.0).collect();
        asc.write(&a, &xa).unwrap();
        asc.write(&b, &xb).unwrap();
        asc.Compare(&d1, &a, &b, CmpMode::Lt, 256).unwrap();
        asc.CompareRepeat::<f32, u8, true>(
            &d2,
            &a,
            &b,
            CmpMode::Lt,
            [1u64, 0],
            4,
            BinaryRepeatParams::default(),
        )
        .unwrap();
        let (o1, o2) = (asc.read::<u8>(&d1).unwrap(), asc.read::<u8>(&d2).unwrap());
        assert_eq!(o1, o2);
        let want: Vec<u8> = (0..32)
            .map(|byte| {
                (0..8).fold(0u8, |acc, bit| {
                    acc | (((xa[byte * 8 + bit] < xb[byte * 8 + bit]) as u8) << bit)
                })
            })
            .collect();
        assert_eq!(o2, want, "{chip:?}");
    }
}

/// Restriction classes of the high-dimension forms, each a typed error naming the instruction,
/// the parameter and the value.
#[test]
fn restrictions_give_typed_errors() {
    let mut asc = AscendC::new(ChipId::Ascend910B, 0);
    let a = asc.AllocTensor::<f32>("a", 1024).unwrap();
    let b = asc.AllocTensor::<f32>("b", 1024).unwrap();
    let i = asc.AllocTensor::<i32>("i", 1024).unwrap();
    let d = asc.AllocTensor::<u8>("d", 64).unwrap();
    let d16 = asc.AllocTensor::<u16>("d16", 64).unwrap();
    let p = BinaryRepeatParams::default();
    let up = UnaryRepeatParams::default();
    // The destination type: int8_t / uint8_t only.
    let e = asc
        .CompareRepeat::<f32, u16, true>(&d16, &a, &b, CmpMode::Lt, 64u64, 1, p)
        .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::Rule {
                instr: "Compare",
                param: "dst",
                ..
            }
        ),
        "{e:?}"
    );
    assert!(e.to_string().contains("uint16_t"), "{e}");
    let e = asc
        .CompareScalarRepeat::<f32, u16, true>(&d16, &a, 1.0, CmpMode::Lt, 64u64, 1, up)
        .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::Rule {
                instr: "CompareScalar",
                param: "dst",
                ..
            }
        ),
        "{e:?}"
    );
    // The source type per chip and mode: int32 takes EQ only (A2/A3).
    asc.CompareRepeat::<i32, u8, true>(&d, &i, &i, CmpMode::Eq, 64u64, 1, p)
        .unwrap();
    let e = asc
        .CompareRepeat::<i32, u8, true>(&d, &i, &i, CmpMode::Lt, 64u64, 1, p)
        .unwrap_err();
    assert!(
        matches!(e, AscendError::IllegalType { param: "src0", .. }),
        "{e:?}"
    );
    // repeatTime in [0, 255] (uint8_t); the bit stream must fit dst; the sources must fit.
    let big = asc.AllocTensor::<u8>("big", 8192).unwrap();
    let e = asc
        .CompareRepeat::<f32, u8, true>(&big, &a, &b, CmpMode::Lt, 64u64, 256, p)
        .unwrap_err();
    assert!(e.to_string().contains("256"), "{e}");
    assert!(
        matches!(
            e,
            AscendError::OutOfRange {
                param: "repeat_times",
                ..
            }
        ),
        "{e:?}"
    );
    let e = asc
        .CompareRepeat::<f32, u8, true>(&d, &a, &b, CmpMode::Lt, 64u64, 9, p)
        .unwrap_err();
    assert!(matches!(e, AscendError::TensorOverflow { .. }), "{e:?}");
    let wide = BinaryRepeatParams {
        src0_rep_stride: 200,
        ..p
    };
    let e = asc
        .CompareRepeat::<f32, u8, true>(&d, &a, &b, CmpMode::Lt, 64u64, 2, wide)
        .unwrap_err();
    assert!(matches!(e, AscendError::TensorOverflow { .. }), "{e:?}");
    // 32-byte alignment of the operands.
    let e = asc
        .CompareRepeat::<f32, u8, true>(&d, &a.offset(1), &b, CmpMode::Lt, 64u64, 1, p)
        .unwrap_err();
    assert!(matches!(e, AscendError::Misaligned { .. }), "{e:?}");
    // float on Ascend310 (half only there).
    let mut old = AscendC::new(ChipId::Ascend310, 0);
    let a3 = old.AllocTensor::<f32>("a", 64).unwrap();
    let d3 = old.AllocTensor::<u8>("d", 32).unwrap();
    let e = old
        .CompareScalarRepeat::<f32, u8, true>(&d3, &a3, 0.0, CmpMode::Gt, 64u64, 1, up)
        .unwrap_err();
    assert!(
        matches!(e, AscendError::IllegalType { param: "src0", .. }),
        "{e:?}"
    );
}
