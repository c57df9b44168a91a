//! TransDataTo5HD / vnchwconv (asc-devkit `数据排布转换/TransDataTo5HD.md` and the transpose
//! example's `gen_data.py` scenario 3): the NCHW -> NC1HWC0 example, the page's b8 high-half
//! call, a proptest against a plain element-by-element model written here, and restrictions.

mod common;
use common::{CHIPS, ub_bytes};

use half::f16;
use npusim_ascend::AscendError;
use npusim_ascend::ascendc::{AscendC, LocalTensor};
use npusim_ascend::core::{Operand, VectorCore};
use npusim_ascend::nchwconv::{TransDataTo5HDParams, TransOp};
use npusim_ascend::tik::{Scope, Tik};
use npusim_core::{ChipId, ChipProfile, ElemType, MemSpace, NpyArray};
use proptest::prelude::*;

fn params(dh: bool, sh: bool, repeat: i64, dr: i64, sr: i64) -> TransDataTo5HDParams {
    TransDataTo5HDParams {
        dst_high_half: dh,
        src_high_half: sh,
        repeat_times: repeat,
        dst_rep_stride: dr,
        src_rep_stride: sr,
    }
}

fn lists<T: npusim_core::Element>(
    t: &LocalTensor<T>,
    at: impl Fn(u64) -> u64,
) -> Vec<LocalTensor<T>> {
    (0..16).map(|i| t.offset(at(i))).collect()
}

fn arr<T>(v: &[T]) -> [&T; 16] {
    std::array::from_fn(|i| &v[i])
}

#[test]
fn nchw_to_nc1hwc0_as_the_page_and_gen_data_scenario_3() {
    // N=2, C=32, H=W=16, C0=16: 4 calls of repeatTimes 16, dstRepStride 16, srcRepStride 1,
    // srcList[i] = src[loop*16*H*W + i*H*W], dstList[i] = dst[loop*16*H*W + i*C0]; golden =
    // x.reshape(2, 2, 16, 16, 16).transpose(0, 1, 3, 4, 2).
    const N: usize = 2;
    const C: usize = 32;
    const HW: usize = 256;
    let x: Vec<f16> = (0..N * C * HW)
        .map(|k| f16::from_bits(((k as u32).wrapping_mul(2654435761) >> 17) as u16 & 0x7bff))
        .collect();
    let mut asc = AscendC::new(ChipId::Ascend910B, 0);
    let src = asc.AllocTensor::<f16>("src", (N * C * HW) as u64).unwrap();
    let dst = asc.AllocTensor::<f16>("dst", (N * C * HW) as u64).unwrap();
    asc.write(&src, &x).unwrap();
    for lp in 0..(N * C / 16) as u64 {
        let s = lists(&src, |i| lp * 16 * HW as u64 + i * HW as u64);
        let d = lists(&dst, |i| lp * 16 * HW as u64 + i * 16);
        asc.TransDataTo5HD::<f16>(arr(&d), arr(&s), params(false, false, 16, 16, 1))
            .unwrap();
    }
    let got = asc.read::<f16>(&dst).unwrap();
    let mut exact = 0;
    for n in 0..N {
        for c1 in 0..2 {
            for hw in 0..HW {
                for c0 in 0..16 {
                    let g = got[((n * 2 + c1) * HW + hw) * 16 + c0];
                    let w = x[(n * C + c1 * 16 + c0) * HW + hw];
                    exact += usize::from(g.to_bits() == w.to_bits());
                }
            }
        }
    }
    assert_eq!(exact, N * C * HW);
}

#[test]
fn page_b8_call_reads_and_writes_the_high_halves() {
    // The page's call: int8, lists at width*i (32 elements apart), dstHighHalf = srcHighHalf =
    // true, repeatTimes 1, strides 0.
    let mut asc = AscendC::new(ChipId::Ascend910B, 0);
    let src = asc.AllocTensor::<i8>("src", 512).unwrap();
    let dst = asc.AllocTensor::<i8>("dst", 512).unwrap();
    let x: Vec<i8> = (0..512).map(|k| (k * 7 % 251) as i8).collect();
    asc.write(&src, &x).unwrap();
    asc.write(&dst, &[-1i8; 512]).unwrap();
    let (s, d) = (lists(&src, |i| 32 * i), lists(&dst, |i| 32 * i));
    asc.TransDataTo5HD::<i8>(arr(&d), arr(&s), params(true, true, 1, 0, 0))
        .unwrap();
    let got = asc.read::<i8>(&dst).unwrap();
    for j in 0..16 {
        for i in 0..16 {
            assert_eq!(got[32 * j + i], -1, "low half kept");
            assert_eq!(got[32 * j + 16 + i], x[32 * i + 16 + j]);
        }
    }
}

#[test]
fn one_repeat_applies_the_rep_stride_once() {
    // The page: with repeatTimes 1 the effective start is the list address plus RepStride.
    let mut asc = AscendC::new(ChipId::Ascend910B, 0);
    let src = asc.AllocTensor::<f16>("src", 512).unwrap();
    let dst = asc.AllocTensor::<f16>("dst", 512).unwrap();
    let x: Vec<f16> = (0..512).map(|k| f16::from_f32(k as f32)).collect();
    asc.write(&src, &x).unwrap();
    let (s, d) = (lists(&src, |i| 16 * i), lists(&dst, |i| 16 * i));
    // src lists 0..15 blocks, srcRepStride 16 -> blocks 16..31; dst stride 0.
    asc.TransDataTo5HD::<f16>(arr(&d), arr(&s), params(false, false, 1, 0, 16))
        .unwrap();
    let got = asc.read::<f16>(&dst).unwrap();
    for j in 0..16 {
        for i in 0..16 {
            assert_eq!(got[16 * j + i], x[256 + 16 * i + j]);
        }
    }
}

#[test]
fn tik_vnchwconv_b32_splits_columns_over_two_blocks() {
    let mut t = Tik::new(ChipId::Ascend910B);
    let g = t.tensor("float32", &[128], "g", Scope::Gm).unwrap();
    let o = t.tensor("float32", &[128], "o", Scope::Gm).unwrap();
    let s = t.tensor("float32", &[128], "s", Scope::Ubuf).unwrap();
    let d = t.tensor("float32", &[128], "d", Scope::Ubuf).unwrap();
    t.data_move(&s, &g, 0, 1, 16, 0, 0).unwrap();
    let sl: Vec<Operand> = (0..16).map(|i| s.at(8 * i)).collect();
    let dl: Vec<Operand> = (0..16).map(|i| d.at(8 * i)).collect();
    t.vnchwconv(false, false, arr(&dl), arr(&sl), 1, 0, 0)
        .unwrap();
    t.data_move(&o, &d, 0, 1, 16, 0, 0).unwrap();
    t.build_cce("k", &[&g], &[&o]).unwrap();
    let x: Vec<f32> = (0..128).map(|k| k as f32).collect();
    let out = t
        .start_debug(&[("g", &NpyArray::from_elems(vec![128], &x))])
        .unwrap();
    let y = out[0].1.to_elems::<f32>().unwrap();
    // The 16×8 matrix of the source blocks, transposed to 8×16, row-major.
    for c in 0..8 {
        for r in 0..16 {
            assert_eq!(y[16 * c + r], x[8 * r + c], "c {c} r {r}");
        }
    }
}

#[test]
fn restrictions_give_typed_errors() {
    let chip = ChipProfile::get(ChipId::Ascend910B);
    let s = ub_bytes("s", ElemType::F16, 0, 1024);
    let d = ub_bytes("d", ElemType::F16, 1024, 1024);
    let sl: Vec<Operand> = (0..16).map(|i| s.at(16 * (i % 2))).collect();
    let dl: Vec<Operand> = (0..16).map(|i| d.at(16 * (i % 2))).collect();
    let ok = params(false, false, 1, 0, 0);
    assert!(TransOp::new(chip, "TransDataTo5HD", &arr(&dl), &arr(&sl), ok).is_ok());
    let e = TransOp::new(
        chip,
        "TransDataTo5HD",
        &arr(&dl),
        &arr(&sl),
        params(false, false, 256, 0, 0),
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::OutOfRange {
                param: "repeatTimes",
                value: 256,
                ..
            }
        ),
        "{e}"
    );
    let e = TransOp::new(
        chip,
        "TransDataTo5HD",
        &arr(&dl),
        &arr(&sl),
        params(false, false, 2, 65536, 0),
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::OutOfRange {
                param: "dstRepStride",
                value: 65536,
                ..
            }
        ),
        "{e}"
    );
    let mut bad = sl.clone();
    bad[3] = s.at(8);
    let e = TransOp::new(chip, "TransDataTo5HD", &arr(&dl), &arr(&bad), ok).unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::Misaligned {
                param: "srcList[3]",
                align: 32,
                ..
            }
        ),
        "{e}"
    );
    let mut bad = dl.clone();
    bad[15] = ub_bytes("d32", ElemType::F32, 2048, 64);
    let e = TransOp::new(chip, "TransDataTo5HD", &arr(&bad), &arr(&sl), ok).unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::TypeMismatch {
                param: "dstList[15]",
                ..
            }
        ),
        "{e}"
    );
    let mut bad = dl.clone();
    bad[0] = Operand {
        space: MemSpace::Gm,
        ..d.clone()
    };
    let e = TransOp::new(chip, "TransDataTo5HD", &arr(&bad), &arr(&sl), ok).unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::WrongScope {
                param: "dstList[0]",
                ..
            }
        ),
        "{e}"
    );
    // 30 repeats of stride 1 walk past the 1 KiB tensor.
    let e = TransOp::new(
        chip,
        "TransDataTo5HD",
        &arr(&dl),
        &arr(&sl),
        params(false, false, 40, 1, 0),
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::TensorOverflow {
                param: "dstList[0]",
                ..
            }
        ),
        "{e}"
    );
    // Atlas training: no 32-bit types.
    let s32 = ub_bytes("s", ElemType::F32, 0, 1024);
    let l32: Vec<Operand> = (0..16).map(|_| s32.clone()).collect();
    let e = TransOp::new(
        ChipProfile::get(ChipId::Ascend910),
        "vnchwconv",
        &arr(&l32),
        &arr(&l32),
        ok,
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::IllegalType {
                dtype: ElemType::F32,
                ..
            }
        ),
        "{e}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(64)))]

    /// Random chips, element widths, block addresses (any of 32 blocks of each tensor, repeats
    /// allowed), repeats, strides and half flags against the plain model: for every repeat
    /// (offset `RepStride` once when repeatTimes is 1, `r * RepStride` otherwise) and every
    /// element, dst element (block j, lane l) takes the source element the page's figure gives.
    #[test]
    fn trans_matches_the_model(chip_i in 0usize..6, w in 0usize..3, repeat in 0i64..4, dr in 0i64..3, sr in 0i64..3,
                               dh in any::<bool>(), sh in any::<bool>(), picks in prop::array::uniform32(0u64..32), seed in any::<u64>()) {
        let chip = ChipProfile::get(CHIPS[chip_i]);
        let t = [ElemType::I8, ElemType::F16, ElemType::F32][w];
        let size = t.size();
        let s = ub_bytes("s", t, 0, 64 * 32);
        let d = ub_bytes("d", t, 4096, 64 * 32);
        let sl: Vec<Operand> = (0..16).map(|k| s.at(picks[k] * 32 / size as u64)).collect();
        let dl: Vec<Operand> = (0..16).map(|k| d.at(picks[16 + k] * 32 / size as u64)).collect();
        let p = params(dh, sh, repeat, dr, sr);
        let op = TransOp::new(chip, "TransDataTo5HD", &arr(&dl), &arr(&sl), p);
        let legal = npusim_ascend::isa::Instr::TransDataTo5HD.legal_types(chip.id).is_some_and(|l| l.contains(&t));
        prop_assert_eq!(op.is_ok(), legal);
        let Ok(op) = op else { return Ok(()) };
        let mut core = VectorCore::new(chip.id, 0);
        let mut x = seed;
        let mem: Vec<u8> = (0..8192).map(|_| { x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407); (x >> 40) as u8 }).collect();
        core.ub_mut().write(0, &mem).unwrap();
        op.execute(&mut core).unwrap();
        let mut want = mem.clone();
        let lanes = 32 / size;
        for r in 0..repeat as usize {
            let m = if repeat == 1 { 1 } else { r };
            let sb = |i: usize| picks[i] as usize * 32 + m * sr as usize * 32;
            let db = |j: usize| 4096 + picks[16 + j] as usize * 32 + m * dr as usize * 32;
            for j in 0..16 {
                for l in 0..lanes {
                    // (source block, source lane) feeding dst block j, lane l; None keeps it.
                    let from = match size {
                        1 => { let h = if dh { 16 } else { 0 }; (l >= h && l < h + 16).then(|| (l - h, j + if sh { 16 } else { 0 })) }
                        2 => Some((l, j)),
                        _ => Some((8 * (j % 2) + l, j / 2)),
                    };
                    if let Some((bi, bl)) = from {
                        let a = sb(bi) + bl * size;
                        let v: Vec<u8> = mem[a..a + size].to_vec();
                        let o = db(j) + l * size;
                        want[o..o + size].copy_from_slice(&v);
                    }
                }
            }
        }
        let got = core.ub().bytes(0, 8192).unwrap();
        prop_assert_eq!(got, &want[..]);
    }
}
