//! The TIK face's counter mask mode (`mask_mode="counter"`: the mask is the element count of the
//! whole instruction, `repeat_times` ignored; Atlas 200/300/500 and Atlas training treat it as
//! normal mode; ascend-vector.md §1.3) and the TIK names of MrgSort / MrgSort4 (`vmrgsort`,
//! `vmrgsort4`), checked against plain models written here and against the Ascend C face.

mod common;
use common::CHIPS;

use half::f16;
use npusim_ascend::AscendError;
use npusim_ascend::ascendc::AscendC;
use npusim_ascend::sort::MrgSort4Info;
use npusim_ascend::tik::{Scope, Tik, TikMask};
use npusim_core::{ChipId, ChipProfile, NpyArray};
use proptest::prelude::*;

/// vec_add on f16 with a TIK mask; returns the destination (initially `init`).
#[allow(clippy::too_many_arguments)]
fn run_add(
    chip: ChipId,
    n: usize,
    a: &[f16],
    b: &[f16],
    init: &[f16],
    mask: TikMask,
    repeat: i64,
    rep: i64,
) -> Result<Vec<f16>, AscendError> {
    let mut tik = Tik::new(chip);
    let names = ["a", "b", "d"];
    let gm: Vec<_> = names
        .iter()
        .map(|s| tik.tensor("float16", &[n], s, Scope::Gm).unwrap())
        .collect();
    let ub: Vec<_> = names
        .iter()
        .map(|s| {
            tik.tensor("float16", &[n], &format!("{s}_ub"), Scope::Ubuf)
                .unwrap()
        })
        .collect();
    let blocks = (n * 2 / 32) as i64;
    for k in 0..3 {
        tik.data_move(&ub[k], &gm[k], 0, 1, blocks, 0, 0)?;
    }
    tik.vec_add(mask, &ub[2], &ub[0], &ub[1], repeat, rep, rep, rep)?;
    tik.data_move(&gm[2], &ub[2], 0, 1, blocks, 0, 0)?;
    let arr = |v: &[f16]| NpyArray::from_elems(vec![n], v);
    let out = tik.start_debug(&[("a", &arr(a)), ("b", &arr(b)), ("d", &arr(init))])?;
    Ok(out
        .iter()
        .find(|(k, _)| k == "d")
        .map(|(_, v)| v.to_elems::<f16>().unwrap())
        .unwrap())
}

/// The counter-mode model: element e of the count is lane e % 128 of repeat e / 128, at
/// element `r * rep * 16 + lane` of each operand (block stride 1).
fn model(a: &[f16], b: &[f16], init: &[f16], count: usize, rep: usize) -> Vec<f16> {
    let mut d = init.to_vec();
    for e in 0..count {
        let i = e / 128 * rep * 16 + e % 128;
        d[i] = f16::from_f32(a[i].to_f32() + b[i].to_f32());
    }
    d
}

#[test]
fn counter_mode_adds_the_first_count_elements() {
    let n = 512;
    let a: Vec<f16> = (0..n).map(|i| f16::from_f32(i as f32)).collect();
    let b = vec![f16::from_f32(0.5); n];
    let init = vec![f16::from_f32(-1.0); n];
    for chip in CHIPS {
        let got = run_add(chip, n, &a, &b, &init, TikMask::counter(200), 99, 8);
        if ChipProfile::get(chip).vector.counter_mode {
            assert_eq!(got.unwrap(), model(&a, &b, &init, 200, 8), "{chip:?}");
        } else {
            // Treated as normal mode: 200 lanes is not a valid continuous mask.
            assert!(
                matches!(got, Err(AscendError::BadMask { .. })),
                "{chip:?}: {got:?}"
            );
            // A count that is a valid normal mask runs per repeat.
            let got = run_add(chip, n, &a, &b, &init, TikMask::counter(100), 2, 8).unwrap();
            let mut want = init.clone();
            for r in 0..2 {
                for l in 0..100 {
                    let i = r * 128 + l;
                    want[i] = f16::from_f32(a[i].to_f32() + b[i].to_f32());
                }
            }
            assert_eq!(got, want, "{chip:?}");
        }
    }
}

#[test]
fn counter_mode_restrictions() {
    let n = 256;
    let z = vec![f16::ZERO; n];
    // The count must stay inside the tensors: 300 elements of a 256-element tensor.
    let e = run_add(
        ChipId::Ascend910B,
        n,
        &z,
        &z,
        &z,
        TikMask::counter(300),
        1,
        8,
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::TensorOverflow {
                instr: "vec_add",
                ..
            }
        ),
        "{e}"
    );
    // Counter mode takes an element count, not a bit mask.
    let e = run_add(
        ChipId::Ascend910B,
        n,
        &z,
        &z,
        &z,
        TikMask(npusim_ascend::mask::MaskArg::tik_list(0, 1), true),
        1,
        8,
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::BadMask {
                instr: "vec_add",
                ..
            }
        ),
        "{e}"
    );
    // Instructions other than the element-wise ones reject counter mode with a typed error.
    let mut tik = Tik::new(ChipId::Ascend910B);
    let s = tik.tensor("float16", &[256], "s", Scope::Ubuf).unwrap();
    let d = tik.tensor("float16", &[256], "d", Scope::Ubuf).unwrap();
    let e = tik
        .vec_cpadd(TikMask::counter(64), &d, &s, 1, 8, 8)
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
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(40)))]
    /// Random counts and repeat strides, on the chips with counter mode, against the model.
    #[test]
    fn counter_mode_matches_model(count in 0usize..600, rep in 8usize..12, chip_i in 2usize..6, seed in any::<u32>()) {
        let chip = CHIPS[chip_i];
        let n = 1024 + 64 * 8;
        let val = |i: usize, s: u32| f16::from_f32(((i as u32).wrapping_mul(2654435761) ^ s) as f32 / 4e8 - 5.0);
        let a: Vec<f16> = (0..n).map(|i| val(i, seed)).collect();
        let b: Vec<f16> = (0..n).map(|i| val(i, !seed)).collect();
        let init = vec![f16::from_f32(7.0); n];
        let got = run_add(chip, n, &a, &b, &init, TikMask::counter(count as u64), 1, rep as i64).unwrap();
        prop_assert_eq!(got, model(&a, &b, &init, count, rep));
    }
}

/// Sorted (score, index) lists of 32 f32 entries each, as Sort32 leaves them.
fn lists(seed: u32) -> Vec<f32> {
    let mut out = Vec::new();
    for l in 0..4u32 {
        let mut s: Vec<f32> = (0..32u32)
            .map(|i| ((i * 37 + l * 11 + seed) % 101) as f32 / 7.0)
            .collect();
        s.sort_by(|x, y| y.total_cmp(x));
        for (i, v) in s.iter().enumerate() {
            out.push(*v);
            out.push(f32::from_bits(l * 32 + i as u32));
        }
    }
    out
}

/// vmrgsort through TIK equals MrgSort through Ascend C and a plain stable merge (descending,
/// ties to the lower-numbered list).
#[test]
fn vmrgsort_tik_equals_ascendc_and_model() {
    for seed in [0u32, 5, 17] {
        let x = lists(seed);
        let mut tik = Tik::new(ChipId::Ascend910B);
        let g = tik.tensor("float32", &[256], "g", Scope::Gm).unwrap();
        let o = tik.tensor("float32", &[256], "o", Scope::Gm).unwrap();
        let u = tik.tensor("float32", &[256], "u", Scope::Ubuf).unwrap();
        let d = tik.tensor("float32", &[256], "d", Scope::Ubuf).unwrap();
        tik.data_move(&u, &g, 0, 1, 32, 0, 0).unwrap();
        let srcs = [&u.at(0), &u.at(64), &u.at(128), &u.at(192)];
        tik.vmrgsort(&d, srcs, [32; 4], false, 15, 1).unwrap();
        tik.data_move(&o, &d, 0, 1, 32, 0, 0).unwrap();
        let out = tik
            .start_debug(&[("g", &NpyArray::from_elems(vec![256], &x))])
            .unwrap();
        let got: Vec<u32> = out
            .iter()
            .find(|(k, _)| k == "o")
            .unwrap()
            .1
            .to_elems::<f32>()
            .unwrap()
            .iter()
            .map(|v| v.to_bits())
            .collect();
        // Plain model.
        let mut entries: Vec<(f32, u32, usize)> = (0..128)
            .map(|e| (x[2 * e], x[2 * e + 1].to_bits(), e / 32))
            .collect();
        entries.sort_by(|p, q| q.0.total_cmp(&p.0).then(p.2.cmp(&q.2)));
        let want: Vec<u32> = entries
            .iter()
            .flat_map(|(s, i, _)| [s.to_bits(), *i])
            .collect();
        assert_eq!(got, want, "seed {seed}");
        // The Ascend C face.
        let mut asc = AscendC::new(ChipId::Ascend910B, 0);
        let su = asc.AllocTensor::<f32>("src", 256).unwrap();
        let du = asc.AllocTensor::<f32>("dst", 256).unwrap();
        asc.write(&su, &x).unwrap();
        let info = MrgSort4Info {
            element_lengths: [32; 4],
            ..MrgSort4Info::default()
        };
        asc.MrgSort(
            &du,
            [
                &su.offset(0),
                &su.offset(64),
                &su.offset(128),
                &su.offset(192),
            ],
            info,
        )
        .unwrap();
        let asc_out: Vec<u32> = asc
            .read::<f32>(&du)
            .unwrap()
            .iter()
            .map(|v| v.to_bits())
            .collect();
        assert_eq!(got, asc_out, "seed {seed}");
    }
}

/// vmrgsort4 exists only where MrgSort4 does (absent on A2/A3 and 950): a typed error there.
#[test]
fn vmrgsort4_availability() {
    for chip in [ChipId::Ascend910B, ChipId::Ascend950] {
        let mut tik = Tik::new(chip);
        let u = tik.tensor("float16", &[512], "u", Scope::Ubuf).unwrap();
        let d = tik.tensor("float16", &[512], "d", Scope::Ubuf).unwrap();
        let srcs = [&u.at(0), &u.at(128), &u.at(256), &u.at(384)];
        let e = tik.vmrgsort4(&d, srcs, [16; 4], false, 15, 1).unwrap_err();
        assert!(
            matches!(
                e,
                AscendError::NotSupported { .. } | AscendError::IllegalType { .. }
            ),
            "{chip:?}: {e}"
        );
    }
}
