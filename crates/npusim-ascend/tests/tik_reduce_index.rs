//! TIK `vec_reduce_max` / `vec_reduce_min(mask, dst, src, work_tensor, repeat_times,
//! src_rep_stride, cal_index=False)` (TIK pages atlastikapi vec_reduce_max/min and the TIK
//! docstring they come from): `cal_index = True` writes `[value, index]` (the index as raw
//! integer bits in the type), `False` the value alone. Checked: the page's examples (the
//! 65-repeat float16 call with its 162-element work_tensor, the float32 one with 146, the
//! 2-repeat call with 18; 240 elements for 120 repeats without the index; vec_reduce_add's 256
//! ones), a proptest against a plain model written here over chips, types, TIK masks
//! (continuous and `[mask_h, mask_l]`), repeats, strides and cal_index, and the pages'
//! restrictions as typed errors.

mod common;

use half::f16;
use npusim_ascend::AscendError;
use npusim_ascend::isa::Instr;
use npusim_ascend::reduce::tik_reduce_work_elems;
use npusim_ascend::tik::{Scope, Tik, TikMask};
use npusim_core::{ChipId, ElemType, NpyArray};
use proptest::prelude::*;

/// The plain model: the active elements in repeat order with their indices, the offsets
/// `r * src_rep_stride * (32 / dtype_size) + e` (TIK's `offset_num_per_rep`); a NaN among them
/// wins (the first one), else the first element (in repeat order) with the best value.
fn model(elems: &[(f32, usize)], is_max: bool) -> (f32, usize) {
    if let Some(nan) = elems.iter().find(|(v, _)| v.is_nan()) {
        return *nan;
    }
    let mut best = elems[0];
    for &(v, i) in &elems[1..] {
        if (is_max && v > best.0) || (!is_max && v < best.0) {
            best = (v, i);
        }
    }
    best
}

/// One TIK kernel: src (n elements of `t`) moved in, the reduction into a 16-element dst
/// (initially all `init`), dst moved out. Returns dst's raw bits.
#[allow(clippy::too_many_arguments)]
fn run(
    chip: ChipId,
    t: ElemType,
    vals: &[f32],
    mask: TikMask,
    is_max: bool,
    repeat: i64,
    stride: i64,
    work_elems: usize,
    cal_index: bool,
    init: f32,
) -> Result<Vec<u32>, AscendError> {
    let size = t.size();
    let per_block = 32 / size;
    let n = vals.len().div_ceil(per_block) * per_block;
    let dtype = if t == ElemType::F16 {
        "float16"
    } else {
        "float32"
    };
    let mut tik = Tik::new(chip);
    let g = tik.tensor(dtype, &[n], "g", Scope::Gm)?;
    let o = tik.tensor(dtype, &[16], "o", Scope::Gm)?;
    let s = tik.tensor(dtype, &[n], "s", Scope::Ubuf)?;
    let w = tik.tensor(dtype, &[work_elems], "w", Scope::Ubuf)?;
    let d = tik.tensor(dtype, &[16], "d", Scope::Ubuf)?;
    tik.data_move(&s, &g, 0, 1, (n / per_block) as i64, 0, 0)?;
    tik.data_move(&d, &o, 0, 1, (16 / per_block) as i64, 0, 0)?;
    if is_max {
        tik.vec_reduce_max(mask, &d, &s, &w, repeat, stride, cal_index)?;
    } else {
        tik.vec_reduce_min(mask, &d, &s, &w, repeat, stride, cal_index)?;
    }
    tik.data_move(&o, &d, 0, 1, (16 / per_block) as i64, 0, 0)?;
    let mut padded = vals.to_vec();
    padded.resize(n, 0.0);
    let (gin, oin) = if t == ElemType::F16 {
        let h: Vec<f16> = padded.iter().map(|v| f16::from_f32(*v)).collect();
        (
            NpyArray::from_elems(vec![n], &h),
            NpyArray::from_elems(vec![16], &[f16::from_f32(init); 16]),
        )
    } else {
        (
            NpyArray::from_elems(vec![n], &padded),
            NpyArray::from_elems(vec![16], &[init; 16]),
        )
    };
    let out = tik.start_debug(&[("g", &gin), ("o", &oin)])?;
    let o = &out.iter().find(|(k, _)| k == "o").unwrap().1;
    Ok(if t == ElemType::F16 {
        o.to_elems::<f16>()
            .unwrap()
            .into_iter()
            .map(|v| u32::from(v.to_bits()))
            .collect()
    } else {
        o.to_elems::<f32>()
            .unwrap()
            .into_iter()
            .map(f32::to_bits)
            .collect()
    })
}

fn to_f32(t: ElemType, bits: u32) -> f32 {
    if t == ElemType::F16 {
        f16::from_bits(bits as u16).to_f32()
    } else {
        f32::from_bits(bits)
    }
}

fn legal(chip: ChipId, instr: Instr, t: ElemType) -> bool {
    instr.legal_types(chip).is_some_and(|l| l.contains(&t))
}

/// Values with many ties, signed zeros, infinities and (rarely) a NaN.
fn value(r: u64) -> f32 {
    match r % 211 {
        0 => f32::NAN,
        1 => f32::INFINITY,
        2 => f32::NEG_INFINITY,
        3 => -0.0,
        4 => 0.0,
        5..=60 => (r % 7) as f32 - 3.0,
        _ => ((r >> 8) % 20000) as f32 / 100.0 - 100.0,
    }
}

/// The page's work_tensor sizes: 18 (float16, 2 repeats, cal_index), 162 (float16, 65), 146
/// (float32, 65), 240 (120 repeats without the index).
#[test]
fn work_tensor_sizes_are_the_pages() {
    assert_eq!(tik_reduce_work_elems(ElemType::F16, 2, true), 18);
    assert_eq!(tik_reduce_work_elems(ElemType::F16, 65, true), 162);
    assert_eq!(tik_reduce_work_elems(ElemType::F32, 65, true), 146);
    assert_eq!(tik_reduce_work_elems(ElemType::F16, 120, false), 240);
}

/// The page's calls: `vec_reduce_max(128, dst, src, work_tensor, 65, 8, cal_index=True)` on
/// float16 (65, 128) with the page's 162-element work_tensor (161 is refused), float32
/// (65, 64) with mask 64 and 146 elements (145 refused), and the 2-repeat call with 18; max
/// and min; [value, index] equal the model's, dst[2..] untouched; on every chip that lists
/// the type.
#[test]
fn page_calls_with_cal_index() {
    let mut ran = 0;
    for chip in common::CHIPS {
        for (t, lanes, repeat, work) in [
            (ElemType::F16, 128usize, 65i64, 162usize),
            (ElemType::F32, 64, 65, 146),
            (ElemType::F16, 128, 2, 18),
        ] {
            for is_max in [true, false] {
                let instr = if is_max {
                    Instr::ReduceMax
                } else {
                    Instr::ReduceMin
                };
                let n = lanes * repeat as usize;
                let vals: Vec<f32> = (0..n as u64)
                    .map(|i| ((i.wrapping_mul(2654435761) >> 3) % 3000) as f32 / 10.0 - 150.0)
                    .collect();
                let mask = TikMask::from(lanes as u64);
                let r = run(chip, t, &vals, mask, is_max, repeat, 8, work, true, 7.0);
                if !legal(chip, instr, t) {
                    assert!(r.is_err(), "{chip:?} {t:?} should be refused");
                    continue;
                }
                let o = r.unwrap();
                let elems: Vec<(f32, usize)> = vals
                    .iter()
                    .map(|v| {
                        to_f32(
                            t,
                            if t == ElemType::F16 {
                                u32::from(f16::from_f32(*v).to_bits())
                            } else {
                                v.to_bits()
                            },
                        )
                    })
                    .zip(0..)
                    .collect();
                let (v, i) = model(&elems, is_max);
                assert_eq!(to_f32(t, o[0]), v, "{chip:?} {t:?} value");
                assert_eq!(o[1] as usize, i, "{chip:?} {t:?} index");
                assert!(
                    o[2..].iter().all(|b| to_f32(t, *b) == 7.0),
                    "dst[2..] written"
                );
                // One element less than the page's work_tensor is refused.
                let e =
                    run(chip, t, &vals, mask, is_max, repeat, 8, work - 1, true, 7.0).unwrap_err();
                assert!(
                    matches!(
                        e,
                        AscendError::Rule {
                            param: "work_tensor",
                            ..
                        }
                    ),
                    "{e}"
                );
                ran += 1;
            }
        }
    }
    assert!(ran >= 20, "only {ran} runs");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(96)))]
    /// Random chips, types, max/min, TIK masks (continuous and [mask_h, mask_l]), repeats,
    /// strides (0: every repeat rereads the same lanes) and cal_index, with the smallest legal
    /// work_tensor; without the index dst[1] keeps its bits.
    #[test]
    fn tik_reduce_max_min_match_the_model(chip_i in 0usize..6, is_f16 in any::<bool>(), is_max in any::<bool>(),
                                          bitwise in any::<bool>(), count_mask in 1u64..=128, lo in any::<u64>(), hi in any::<u64>(),
                                          repeat in 1i64..40, stride in 0i64..12, cal_index in any::<bool>(), seed in any::<u64>()) {
        let chip = common::CHIPS[chip_i];
        let instr = if is_max { Instr::ReduceMax } else { Instr::ReduceMin };
        let t = if is_f16 { ElemType::F16 } else { ElemType::F32 };
        let lanes = if is_f16 { 128usize } else { 64 };
        let (mask, bits): (TikMask, u128) = if bitwise {
            let hi = if is_f16 { hi } else { 0 };
            let (hi, lo) = if hi == 0 && lo == 0 { (0, 1) } else { (hi, lo) };
            ([hi, lo].into(), (hi as u128) << 64 | lo as u128)
        } else {
            let c = count_mask.min(lanes as u64);
            // The low c bits, c in 1..=128 (no shift by 128).
            (c.into(), u128::MAX >> (128 - c))
        };
        let per_block = 32 / t.size();
        let total = (repeat as usize - 1) * stride as usize * per_block + lanes;
        let mut x = seed;
        let mut next = move || { x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407); x >> 20 };
        let vals: Vec<f32> = (0..total).map(|_| value(next())).collect();
        let work = tik_reduce_work_elems(t, repeat as u64, cal_index) as usize;
        let r = run(chip, t, &vals, mask, is_max, repeat, stride, work, cal_index, 1234.0);
        if !legal(chip, instr, t) {
            prop_assert!(r.is_err());
        } else {
            let o = r.unwrap();
            let rounded = |v: f32| if is_f16 { f16::from_f32(v).to_f32() } else { v };
            let mut elems = Vec::new();
            for r in 0..repeat as usize {
                for e in 0..lanes {
                    if bits >> e & 1 == 1 {
                        let at = r * stride as usize * per_block + e;
                        elems.push((rounded(vals[at]), at));
                    }
                }
            }
            let (v, i) = model(&elems, is_max);
            let got = to_f32(t, o[0]);
            prop_assert!(got.to_bits() == v.to_bits() || (got.is_nan() && v.is_nan()), "value {} vs {}", got, v);
            if cal_index {
                prop_assert_eq!(o[1] as usize, i, "index");
            } else {
                prop_assert_eq!(to_f32(t, o[1]), 1234.0, "dst[1] written without cal_index");
            }
            prop_assert_eq!(to_f32(t, o[2]), 1234.0, "dst[2] written");
        }
    }
}

/// The pages' restrictions, each a typed error naming the parameter.
#[test]
fn restrictions_give_typed_errors() {
    let chip = ChipId::Ascend910B;
    let vals = vec![1.0f32; 512 * 128];
    let f16_mask = TikMask::from(128u64);
    // repeat_times: [1, 511] on float16 with cal_index ...
    let e = run(
        chip,
        ElemType::F16,
        &vals,
        f16_mask,
        true,
        512,
        8,
        2000,
        true,
        0.0,
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::OutOfRange {
                param: "repeat_times",
                ..
            }
        ),
        "{e}"
    );
    run(
        chip,
        ElemType::F16,
        &vals,
        f16_mask,
        true,
        511,
        8,
        2000,
        true,
        0.0,
    )
    .unwrap();
    // ... [1, 4095] without it (512 runs), 0 and 4096 refused.
    run(
        chip,
        ElemType::F16,
        &vals,
        f16_mask,
        true,
        512,
        8,
        1024,
        false,
        0.0,
    )
    .unwrap();
    for rep in [0, 4096] {
        let e = run(
            chip,
            ElemType::F16,
            &vals,
            f16_mask,
            false,
            rep,
            8,
            9000,
            false,
            0.0,
        )
        .unwrap_err();
        assert!(
            matches!(
                e,
                AscendError::OutOfRange {
                    param: "repeat_times",
                    ..
                }
            ),
            "{rep}: {e}"
        );
    }
    // work_tensor without the index: 2 x repeat_times elements.
    let e = run(
        chip,
        ElemType::F16,
        &vals,
        f16_mask,
        true,
        120,
        8,
        239,
        false,
        0.0,
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::Rule {
                param: "work_tensor",
                ..
            }
        ),
        "{e}"
    );
    run(
        chip,
        ElemType::F16,
        &vals,
        f16_mask,
        true,
        120,
        8,
        240,
        false,
        0.0,
    )
    .unwrap();
    // The continuous mask in [1, 128] on float16; a counter-mode mask is refused here.
    for m in [0u64, 129] {
        let e = run(
            chip,
            ElemType::F16,
            &vals,
            TikMask::from(m),
            true,
            1,
            8,
            18,
            true,
            0.0,
        )
        .unwrap_err();
        assert!(matches!(e, AscendError::BadMask { .. }), "mask {m}: {e}");
    }
    let e = run(
        chip,
        ElemType::F16,
        &vals,
        TikMask::counter(128),
        true,
        1,
        8,
        16,
        true,
        0.0,
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::Rule {
                param: "mask_mode",
                ..
            }
        ),
        "{e}"
    );
    // The type: float32 is not listed on Atlas training (Ascend910).
    let e = run(
        ChipId::Ascend910,
        ElemType::F32,
        &vals[..64],
        64u64.into(),
        true,
        1,
        8,
        16,
        true,
        0.0,
    )
    .unwrap_err();
    assert!(matches!(e, AscendError::IllegalType { .. }), "{e}");
    // src_rep_stride in [0, 65535].
    let e = run(
        chip,
        ElemType::F16,
        &vals,
        f16_mask,
        true,
        2,
        65536,
        18,
        true,
        0.0,
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::OutOfRange {
                param: "src_rep_stride",
                ..
            }
        ),
        "{e}"
    );
    // Reads past src are refused.
    let e = run(
        chip,
        ElemType::F16,
        &vals[..256],
        f16_mask,
        true,
        3,
        8,
        32,
        true,
        0.0,
    )
    .unwrap_err();
    assert!(
        matches!(e, AscendError::TensorOverflow { param: "src", .. }),
        "{e}"
    );
}

/// dst 4-byte aligned, dst / src / work_tensor of one type in UB, dst apart from work_tensor.
#[test]
fn operand_rules_give_typed_errors() {
    let chip = ChipId::Ascend910B;
    let mut tik = Tik::new(chip);
    let s = tik.tensor("float16", &[256], "s", Scope::Ubuf).unwrap();
    let w = tik.tensor("float16", &[64], "w", Scope::Ubuf).unwrap();
    let d = tik.tensor("float16", &[16], "d", Scope::Ubuf).unwrap();
    let wf = tik.tensor("float32", &[64], "wf", Scope::Ubuf).unwrap();
    let gm = tik.tensor("float16", &[64], "gm", Scope::Gm).unwrap();
    let mut d1 = d.clone();
    d1.offset = 1; // 2 bytes: not 4-byte aligned
    let e = tik
        .vec_reduce_max(128, &d1, &s, &w, 2, 8, true)
        .unwrap_err();
    assert!(
        matches!(e, AscendError::Misaligned { param: "dst", .. }),
        "{e}"
    );
    let mut d2 = d.clone();
    d2.offset = 2; // 4 bytes: aligned
    tik.vec_reduce_max(128, &d2, &s, &w, 2, 8, true).unwrap();
    let e = tik
        .vec_reduce_min(128, &d, &s, &wf, 2, 8, true)
        .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::TypeMismatch {
                param: "work_tensor",
                ..
            }
        ),
        "{e}"
    );
    let e = tik
        .vec_reduce_min(128, &d, &s, &gm, 2, 8, true)
        .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::WrongScope {
                param: "work_tensor",
                ..
            }
        ),
        "{e}"
    );
    // dst inside the work_tensor's needed range.
    let mut wd = w.clone();
    wd.offset = 16;
    let e = tik
        .vec_reduce_max(128, &wd, &s, &w, 2, 8, true)
        .unwrap_err();
    assert!(matches!(e, AscendError::IllegalOverlap { .. }), "{e}");
}

/// TIK vec_reduce_add's docstring example: 256 float16 ones in 2 repeats (mask 128,
/// src_rep_stride 8) with a 32-element work_tensor give dst[0] = 256, on every chip; its
/// work_tensor rule (at least repeat_times elements) refuses 1 element for 2 repeats.
#[test]
fn vec_reduce_add_page_example_and_work_tensor() {
    for chip in common::CHIPS {
        for (work, ok) in [(32usize, true), (2, true), (1, false)] {
            let mut tik = Tik::new(chip);
            let g = tik.tensor("float16", &[256], "g", Scope::Gm).unwrap();
            let o = tik.tensor("float16", &[16], "o", Scope::Gm).unwrap();
            let s = tik.tensor("float16", &[256], "s", Scope::Ubuf).unwrap();
            let w = tik.tensor("float16", &[work], "w", Scope::Ubuf).unwrap();
            let d = tik.tensor("float16", &[32], "d", Scope::Ubuf).unwrap();
            tik.data_move(&s, &g, 0, 1, 16, 0, 0).unwrap();
            let r = tik.vec_reduce_add(128, &d, &s, &w, 2, 8);
            if !ok {
                let e = r.unwrap_err();
                assert!(
                    matches!(
                        e,
                        AscendError::Rule {
                            param: "work_tensor",
                            ..
                        }
                    ),
                    "{e}"
                );
                continue;
            }
            r.unwrap();
            tik.data_move(&o, &d, 0, 1, 1, 0, 0).unwrap();
            let out = tik
                .start_debug(&[("g", &NpyArray::from_elems(vec![256], &[f16::ONE; 256]))])
                .unwrap();
            let o = &out.iter().find(|(k, _)| k == "o").unwrap().1;
            assert_eq!(o.to_elems::<f16>().unwrap()[0].to_f32(), 256.0, "{chip:?}");
        }
    }
}

/// vec_reduce_add: src must not overlap dst or work_tensor (TIK docstring restriction); a
/// bit-wise mask ending at lane 63 ends src's span there.
#[test]
fn vec_reduce_add_overlap_rules() {
    let mut tik = Tik::new(ChipId::Ascend910B);
    let s = tik.tensor("float16", &[512], "s", Scope::Ubuf).unwrap();
    let w = tik.tensor("float16", &[32], "w", Scope::Ubuf).unwrap();
    let d = tik.tensor("float16", &[32], "d", Scope::Ubuf).unwrap();
    // dst inside src's second repeat.
    let mut d_in = s.clone();
    d_in.offset = 160;
    let e = tik.vec_reduce_add(128, &d_in, &s, &w, 2, 8).unwrap_err();
    assert!(
        matches!(e, AscendError::IllegalOverlap { dst: "dst", .. }),
        "{e}"
    );
    // work_tensor inside src.
    let mut w_in = s.clone();
    w_in.offset = 16;
    let e = tik.vec_reduce_add(128, &d, &s, &w_in, 2, 8).unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::IllegalOverlap {
                dst: "work_tensor",
                ..
            }
        ),
        "{e}"
    );
    // Lanes 0..63 only: element 64 of the (single) repeat is outside src's span.
    let mut d_after = s.clone();
    d_after.offset = 64;
    tik.vec_reduce_add([0u64, u64::MAX], &d_after, &s, &w, 1, 8)
        .unwrap();
    // Apart: fine.
    tik.vec_reduce_add(128, &d, &s, &w, 2, 8).unwrap();
}
