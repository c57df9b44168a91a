//! SetDeqScale with the int32 -> half Cast (asc-devkit `SetDeqScale.md`: `dst = half(src ·
//! scale)`) and SetAtomicAdd per type (`SetAtomicAdd.md`: moves into GM add to what is there):
//! the pages' examples, property tests against plain models written here, the restrictions.

mod common;
use common::CHIPS;
use half::{bf16, f16};
use npusim_ascend::AscendError;
use npusim_ascend::ascendc::{AscendC, RoundMode};
use npusim_core::{ChipId, ChipProfile, Element, OverflowMode};
use proptest::prelude::*;

/// The page's call: scale 1.0, Cast of 256 int32 to half, `dst = src`.
#[test]
fn deq_scale_page_example() {
    for chip in [ChipId::Ascend910B, ChipId::Ascend310P, ChipId::Ascend950] {
        let mut asc = AscendC::new(chip, 0);
        let src = asc.AllocTensor::<i32>("srcLocal", 256).unwrap();
        let dst = asc.AllocTensor::<f16>("dstLocal", 256).unwrap();
        let x: Vec<i32> = (0..256).map(|i| (i - 128) * 7).collect();
        asc.write(&src, &x).unwrap();
        asc.SetDeqScale(f16::from_f32(1.0)).unwrap();
        asc.Cast(&dst, &src, RoundMode::None, 256).unwrap();
        let got: Vec<f32> = asc
            .read::<f16>(&dst)
            .unwrap()
            .iter()
            .map(|v| v.to_f32())
            .collect();
        let want: Vec<f32> = x.iter().map(|v| *v as f32).collect();
        assert_eq!(got, want, "{chip:?}");
    }
}

#[test]
fn deq_scale_restrictions() {
    // Not on Atlas 200I/500 A2 or Atlas training.
    for chip in [ChipId::Ascend310B, ChipId::Ascend910] {
        let mut asc = AscendC::new(chip, 0);
        assert_eq!(
            asc.SetDeqScale(f16::ONE),
            Err(AscendError::NotSupported {
                instr: "SetDeqScale",
                chip
            })
        );
    }
}

/// The deq model: the exact product rounded once to half, then the chip's overflow policy.
fn deq_model(x: i32, scale: f16, mode: OverflowMode) -> u16 {
    let h = f16::from_f64(x as f64 * scale.to_f64());
    if mode == OverflowMode::Saturate && h.is_infinite() {
        return if h.is_sign_negative() {
            f16::MIN
        } else {
            f16::MAX
        }
        .to_bits();
    }
    h.to_bits()
}

/// Atomic accumulation, per type: floats rounded once, integers wrapping.
fn acc<T: Element>(old: T, new: T) -> T {
    let t = T::TYPE;
    let (x, y) = (old.to_bits_u64(), new.to_bits_u64());
    let r: u64 = match t {
        npusim_core::ElemType::F16 => {
            f16::from_f64(f16::from_bits(x as u16).to_f64() + f16::from_bits(y as u16).to_f64())
                .to_bits() as u64
        }
        npusim_core::ElemType::Bf16 => {
            bf16::from_f64(bf16::from_bits(x as u16).to_f64() + bf16::from_bits(y as u16).to_f64())
                .to_bits() as u64
        }
        npusim_core::ElemType::F32 => {
            (f32::from_bits(x as u32) + f32::from_bits(y as u32)).to_bits() as u64
        }
        _ => x.wrapping_add(y),
    };
    T::from_bits_u64(r)
}

/// Runs `g = init; SetAtomicAdd<T>; DataCopy(g, u = add)` and returns g.
fn atomic_run<T: Element>(chip: ChipId, init: &[T], add: &[T]) -> Result<Vec<T>, AscendError> {
    let mut asc = AscendC::new(chip, 8192);
    let g = asc.GmAlloc::<T>("g", init)?;
    let u = asc.AllocTensor::<T>("u", add.len() as u64)?;
    asc.write(&u, add)?;
    asc.SetAtomicAdd::<T>()?;
    asc.DataCopy::<T>(&g, &u, add.len() as u32)?;
    asc.DisableDmaAtomic();
    asc.read::<T>(&g)
}

fn check_atomic<T: Element>(chip: ChipId, init: &[T], add: &[T]) -> Result<(), TestCaseError> {
    match atomic_run(chip, init, add) {
        Ok(got) => {
            let want: Vec<T> = init.iter().zip(add).map(|(a, b)| acc(*a, *b)).collect();
            for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                let (gb, wb) = (g.to_bits_u64(), w.to_bits_u64());
                let nan = T::TYPE.is_float() && g.to_f64().is_nan() && w.to_f64().is_nan();
                prop_assert!(
                    gb == wb || nan,
                    "{:?} {:?} [{}]: {:?} want {:?}",
                    chip,
                    T::TYPE,
                    k,
                    g,
                    w
                );
            }
        }
        Err(AscendError::IllegalType {
            instr: "SetAtomicAdd",
            ..
        }) => {}
        Err(e) => prop_assert!(false, "{chip:?} {:?}: {e}", T::TYPE),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(48)))]

    #[test]
    fn deq_cast_matches_model(x in proptest::collection::vec(any::<i32>(), 64), s in any::<u16>(), chip_i in 0usize..6) {
        let chip = CHIPS[chip_i];
        let scale = f16::from_bits(s);
        prop_assume!(scale.is_finite());
        let mut asc = AscendC::new(chip, 0);
        if asc.SetDeqScale(scale).is_err() {
            return Ok(());
        }
        let src = asc.AllocTensor::<i32>("src", 64).unwrap();
        let dst = asc.AllocTensor::<f16>("dst", 64).unwrap();
        asc.write(&src, &x).unwrap();
        asc.Cast(&dst, &src, RoundMode::None, 64).unwrap();
        let mode = ChipProfile::get(chip).vector.overflow_mode;
        let got: Vec<u16> = asc.read::<f16>(&dst).unwrap().iter().map(|v| v.to_bits()).collect();
        let want: Vec<u16> = x.iter().map(|v| deq_model(*v, scale, mode)).collect();
        prop_assert_eq!(got, want);
    }

    /// Every atomic type on every chip: accumulated as the model says where the page lists
    /// the type, IllegalType where it does not.
    #[test]
    fn atomic_add_matches_model(bits in proptest::collection::vec(any::<u32>(), 128), chip_i in 0usize..6) {
        let chip = CHIPS[chip_i];
        let (init, add) = bits.split_at(64);
        let f32s = |v: &[u32]| v.iter().map(|b| f32::from_bits(*b)).collect::<Vec<_>>();
        check_atomic::<f32>(chip, &f32s(init), &f32s(add))?;
        let f16s = |v: &[u32]| v.iter().flat_map(|b| [f16::from_bits(*b as u16), f16::from_bits((*b >> 16) as u16)]).collect::<Vec<_>>();
        check_atomic::<f16>(chip, &f16s(init), &f16s(add))?;
        let bf16s = |v: &[u32]| v.iter().flat_map(|b| [bf16::from_bits(*b as u16), bf16::from_bits((*b >> 16) as u16)]).collect::<Vec<_>>();
        check_atomic::<bf16>(chip, &bf16s(init), &bf16s(add))?;
        let i32s = |v: &[u32]| v.iter().map(|b| *b as i32).collect::<Vec<_>>();
        check_atomic::<i32>(chip, &i32s(init), &i32s(add))?;
        let i16s = |v: &[u32]| v.iter().flat_map(|b| [*b as i16, (*b >> 16) as i16]).collect::<Vec<_>>();
        check_atomic::<i16>(chip, &i16s(init), &i16s(add))?;
        let i8s = |v: &[u32]| v.iter().flat_map(|b| b.to_le_bytes().map(|x| x as i8)).collect::<Vec<_>>();
        check_atomic::<i8>(chip, &i8s(init), &i8s(add))?;
    }
}

/// The page's type lists per product.
#[test]
fn atomic_add_type_lists() {
    use npusim_core::ElemType::*;
    for (chip, legal) in [
        (ChipId::Ascend950, &[I8, I16, F16, Bf16, I32, F32][..]),
        (ChipId::Ascend910B, &[I8, I16, F16, Bf16, I32, F32][..]),
        (ChipId::Ascend310B, &[I16, F16, I32, F32][..]),
        (ChipId::Ascend310P, &[I16, F16, F32][..]),
        (ChipId::Ascend910, &[F32][..]),
    ] {
        let mut asc = AscendC::new(chip, 0);
        let r = [
            (I8, asc.SetAtomicAdd::<i8>()),
            (I16, asc.SetAtomicAdd::<i16>()),
            (F16, asc.SetAtomicAdd::<f16>()),
            (Bf16, asc.SetAtomicAdd::<bf16>()),
            (I32, asc.SetAtomicAdd::<i32>()),
            (F32, asc.SetAtomicAdd::<f32>()),
        ];
        for (t, res) in r {
            if legal.contains(&t) {
                assert_eq!(res, Ok(()), "{chip:?} {t:?}");
            } else {
                assert!(
                    matches!(
                        res,
                        Err(AscendError::IllegalType {
                            instr: "SetAtomicAdd",
                            param: "T",
                            ..
                        })
                    ),
                    "{chip:?} {t:?}: {res:?}"
                );
            }
        }
    }
}
