//! Sort32 (asc-devkit `排序组合（ISASI）/Sort32.md`; the printed example of
//! `docs/api/context/Sort32.md`): the page's example, a proptest against a plain stable-sort
//! model written here, and the page's restrictions.

mod common;
use common::{CHIPS, SORT32_PAGE_INPUT, SORT32_PAGE_OUTPUT, parse, ub};

use half::f16;
use npusim_ascend::AscendError;
use npusim_ascend::ascendc::AscendC;
use npusim_ascend::core::{Operand, VectorCore};
use npusim_ascend::isa::Instr;
use npusim_ascend::sort::sort32;
use npusim_ascend::tik::{Scope, Tik};
use npusim_core::{ChipId, ElemType, MemSpace, NpyArray};
use proptest::prelude::*;

#[test]
fn page_example_128_floats_in_4_repeats() {
    let x = parse(SORT32_PAGE_INPUT);
    let want = parse(SORT32_PAGE_OUTPUT);
    assert_eq!((x.len(), want.len()), (128, 256));
    let mut asc = AscendC::new(ChipId::Ascend910B, 0);
    let s0 = asc.AllocTensor::<f32>("src0", 128).unwrap();
    let s1 = asc.AllocTensor::<u32>("src1", 128).unwrap();
    let d = asc.AllocTensor::<f32>("dst", 256).unwrap();
    asc.write(&s0, &x).unwrap();
    asc.write(&s1, &[0u32; 128]).unwrap();
    asc.Sort32::<f32>(&d, &s0, &s1, 4).unwrap();
    let got = asc.read::<f32>(&d).unwrap();
    let exact = got
        .iter()
        .zip(&want)
        .filter(|(g, w)| g.to_bits() == w.to_bits())
        .count();
    assert_eq!(exact, 256, "{got:?}");
}

#[test]
fn tik_vsort32_runs_the_same_example() {
    let x = parse(SORT32_PAGE_INPUT);
    let want = parse(SORT32_PAGE_OUTPUT);
    let mut t = Tik::new(ChipId::Ascend910B);
    let g = t.tensor("float32", &[128], "g", Scope::Gm).unwrap();
    let o = t.tensor("float32", &[256], "o", Scope::Gm).unwrap();
    let s0 = t.tensor("float32", &[128], "s0", Scope::Ubuf).unwrap();
    let s1 = t.tensor("uint32", &[128], "s1", Scope::Ubuf).unwrap();
    let d = t.tensor("float32", &[256], "d", Scope::Ubuf).unwrap();
    t.data_move(&s0, &g, 0, 1, 16, 0, 0).unwrap();
    t.vec_dup(64, &s1, 0u32, 2, 8).unwrap();
    t.vsort32(&d, &s0, &s1, 4).unwrap();
    t.data_move(&o, &d, 0, 1, 32, 0, 0).unwrap();
    t.build_cce("k", &[&g], &[&o]).unwrap();
    let out = t
        .start_debug(&[("g", &NpyArray::from_elems(vec![128], &x))])
        .unwrap();
    let y = out[0].1.to_elems::<f32>().unwrap();
    assert_eq!(y, want);
}

#[test]
fn nan_policy_and_half_layout() {
    // Half: score in the low 2 bytes, 2 reserved bytes (written 0, policy), index high 4.
    let mut asc = AscendC::new(ChipId::Ascend950, 0);
    // 64 halves so that src1 starts 128-byte aligned.
    let s0 = asc.AllocTensor::<f16>("src0", 64).unwrap();
    let s1 = asc.AllocTensor::<u32>("src1", 32).unwrap();
    let d = asc.AllocTensor::<f16>("dst", 128).unwrap();
    let mut x = vec![f16::from_f32(1.0); 32];
    x[5] = f16::NAN;
    x[7] = f16::from_f32(2.0);
    asc.write(&s0, &x).unwrap();
    asc.write(&s1, &(100..132u32).collect::<Vec<_>>()).unwrap();
    asc.Sort32::<f16>(&d, &s0, &s1, 1).unwrap();
    let b: Vec<u8> = bytemuck::cast_slice::<f16, u8>(&asc.read::<f16>(&d).unwrap()).to_vec();
    let entry = |k: usize| {
        (
            f16::from_le_bytes([b[8 * k], b[8 * k + 1]]),
            [b[8 * k + 2], b[8 * k + 3]],
            u32::from_le_bytes([b[8 * k + 4], b[8 * k + 5], b[8 * k + 6], b[8 * k + 7]]),
        )
    };
    assert!(entry(0).0.is_nan() && entry(0).2 == 105);
    assert_eq!(entry(1), (f16::from_f32(2.0), [0, 0], 107));
    // The ties keep source order: indices 100, 101, 102, 103, 104, 106, 108...
    assert_eq!(entry(2).2, 100);
    assert_eq!(entry(7).2, 106);
    assert_eq!(entry(31).2, 131);
}

#[test]
fn restrictions_give_typed_errors() {
    let mut asc = AscendC::new(ChipId::Ascend910B, 0);
    let s0 = asc.AllocTensor::<f32>("src0", 128).unwrap();
    let s1 = asc.AllocTensor::<u32>("src1", 128).unwrap();
    let d = asc.AllocTensor::<f32>("dst", 256).unwrap();
    let s0i = asc.AllocTensor::<i32>("src0i", 128).unwrap();
    let di = asc.AllocTensor::<i32>("dsti", 256).unwrap();
    let e = asc.Sort32::<f32>(&d, &s0, &s1, 256).unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::OutOfRange {
                param: "repeatTime",
                value: 256,
                ..
            }
        ),
        "{e}"
    );
    let e = asc.Sort32::<f32>(&d, &s0, &s1, -1).unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::OutOfRange {
                param: "repeatTime",
                value: -1,
                ..
            }
        ),
        "{e}"
    );
    // Per-repeat alignment: src0 128 B (float), src1 128 B, dst 256 B.
    let e = asc.Sort32::<f32>(&d, &s0.offset(8), &s1, 1).unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::Misaligned {
                param: "src0",
                align: 128,
                ..
            }
        ),
        "{e}"
    );
    let e = asc.Sort32::<f32>(&d, &s0, &s1.offset(8), 1).unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::Misaligned {
                param: "src1",
                align: 128,
                ..
            }
        ),
        "{e}"
    );
    let e = asc.Sort32::<f32>(&d.offset(32), &s0, &s1, 1).unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::Misaligned {
                param: "dst",
                align: 256,
                ..
            }
        ),
        "{e}"
    );
    // Tensor bounds: 5 repeats read 160 scores from a 128-element src0.
    let e = asc.Sort32::<f32>(&d, &s0, &s1, 5).unwrap_err();
    assert!(
        matches!(e, AscendError::TensorOverflow { param: "src0", .. }),
        "{e}"
    );
    // src1 is uint32 only; every operand in UB.
    let mut core = VectorCore::new(ChipId::Ascend910B, 4096);
    let (u0, u1, ud) = (
        ub("s0", ElemType::F32, 0, 32),
        ub("s1", ElemType::U32, 128, 32),
        ub("d", ElemType::F32, 256, 64),
    );
    let e = sort32(
        &mut core,
        "Sort32",
        &ud,
        &u0,
        &ub("s1", ElemType::I32, 128, 32),
        1,
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::TypeMismatch {
                param: "src1",
                got: ElemType::I32,
                ..
            }
        ),
        "{e}"
    );
    let gm = Operand {
        space: MemSpace::Gm,
        ..u0.clone()
    };
    let e = sort32(&mut core, "Sort32", &ud, &gm, &u1, 1).unwrap_err();
    assert!(
        matches!(e, AscendError::WrongScope { param: "src0", .. }),
        "{e}"
    );
    assert!(sort32(&mut core, "Sort32", &ud, &u0, &u1, 1).is_ok());
    let e = asc.Sort32::<i32>(&di, &s0i, &s1, 1).unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::IllegalType {
                dtype: ElemType::I32,
                ..
            }
        ),
        "{e}"
    );
    // Not on Atlas training, Atlas inference (310P) or 310.
    for chip in [ChipId::Ascend910, ChipId::Ascend310P, ChipId::Ascend310] {
        let mut a = AscendC::new(chip, 0);
        let s0 = a.AllocTensor::<f16>("src0", 32).unwrap();
        let s1 = a.AllocTensor::<u32>("src1", 32).unwrap();
        let d = a.AllocTensor::<f16>("dst", 128).unwrap();
        let e = a.Sort32::<f16>(&d, &s0, &s1, 1).unwrap_err();
        assert!(
            matches!(
                e,
                AscendError::NotSupported {
                    instr: "Sort32",
                    ..
                }
            ),
            "{e}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(64)))]

    /// Random chips, types, repeats, scores drawn from a small set (many ties) with ±0 and ±inf,
    /// random indices, against the plain model: per repeat, positions ordered by score
    /// descending, equal scores by position; entries (score bits, 0, index) of 8 bytes; the rest
    /// of dst untouched.
    #[test]
    fn sort32_matches_the_model(chip_i in 0usize..6, is_f16 in any::<bool>(), repeat in 0u64..6, seed in any::<u64>()) {
        let chip = CHIPS[chip_i];
        let t = if is_f16 { ElemType::F16 } else { ElemType::F32 };
        let size = t.size() as u64;
        let n = repeat.max(1) * 32;
        let mut core = VectorCore::new(chip, 0);
        let s0 = ub("s0", t, 0, n);
        let s1 = ub("s1", ElemType::U32, 2048, n);
        let d = ub("d", t, 4096, (n * 8 + 256) / size);
        let mut x = seed;
        let mut next = || { x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407); x >> 33 };
        let scores: Vec<f32> = (0..n).map(|_| match next() % 12 { 0 => f32::INFINITY, 1 => f32::NEG_INFINITY, 2 => 0.0, 3 => -0.0, k => k as f32 * 0.75 - 4.0 }).collect();
        let idx: Vec<u32> = (0..n).map(|_| next() as u32).collect();
        let raw: Vec<u8> = scores.iter().flat_map(|v| if is_f16 { f16::from_f32(*v).to_le_bytes().to_vec() } else { v.to_le_bytes().to_vec() }).collect();
        core.ub_mut().write(0, &raw).unwrap();
        core.ub_mut().write_elems(2048, &idx).unwrap();
        let init: Vec<u8> = (0..n * 8 + 256).map(|i| (i * 13 + 5) as u8).collect();
        core.ub_mut().write(4096, &init).unwrap();
        let r = sort32(&mut core, "Sort32", &d, &s0, &s1, repeat as i64);
        let legal = Instr::Sort32.legal_types(chip).is_some();
        prop_assert_eq!(r.is_ok(), legal, "{:?}", r);
        let mut want = init.clone();
        if legal {
            for rep in 0..repeat as usize {
                let mut pos: Vec<usize> = (rep * 32..rep * 32 + 32).collect();
                // Insertion sort: a later position moves ahead only of strictly smaller scores.
                for i in 1..pos.len() {
                    let mut j = i;
                    while j > 0 && scores[pos[j - 1]] < scores[pos[j]] { pos.swap(j - 1, j); j -= 1; }
                }
                for (k, &e) in pos.iter().enumerate() {
                    let o = (rep * 32 + k) * 8;
                    let s = size as usize;
                    want[o..o + 8].fill(0);
                    want[o..o + s].copy_from_slice(&raw[e * s..(e + 1) * s]);
                    want[o + 4..o + 8].copy_from_slice(&idx[e].to_le_bytes());
                }
            }
        }
        let got = core.ub().bytes(4096, n * 8 + 256).unwrap();
        prop_assert_eq!(got, &want[..]);
    }
}
