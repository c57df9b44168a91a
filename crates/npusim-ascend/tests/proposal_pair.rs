//! TIK `viou` / `vaadd` (usage row 48; TIK only) and `set_rpn_offset`: a hand-computed case
//! through the TIK face (no source prints an example: the values below are worked out by hand
//! from the docstrings' definitions, "the intersection area of two proposals" with the RPN
//! offset added to each side, and "the sum of the two proposal areas"), a proptest against a
//! plain scalar model written here on every chip, and a typed-error test per restriction.

mod common;
use common::{CHIPS, ub};

use half::f16;
use npusim_ascend::AscendError;
use npusim_ascend::core::{Operand, VectorCore};
use npusim_ascend::isa::Instr;
use npusim_ascend::sort::{proposal_pair, set_rpn_offset};
use npusim_ascend::tik::{Scope, Tik};
use npusim_core::npy::NpyArray;
use npusim_core::{ChipId, ElemType, MemSpace};
use proptest::prelude::*;

/// 16 proposals `[x1, y1, x2, y2, score, label, 0, 0]` from boxes (the other 12 are all zero).
fn proposals(boxes: &[[f32; 4]]) -> Vec<f16> {
    let mut v = vec![f16::ZERO; 16 * 8];
    for (k, b) in boxes.iter().enumerate() {
        for (i, &c) in b.iter().enumerate() {
            v[8 * k + i] = f16::from_f32(c);
        }
        v[8 * k + 4] = f16::from_f32(0.5);
    }
    v
}

/// Runs `viou(dst, a, b, 2)` (a: 32 proposals, b: 16) through the TIK face on 310P, after
/// `set_rpn_offset(offset)` when given, and returns dst (512 halves).
fn tik_viou(a: &[f16], b: &[f16], offset: Option<f64>) -> Vec<f16> {
    let mut t = Tik::new(ChipId::Ascend310P);
    let ga = t.tensor("float16", &[32, 8], "ga", Scope::Gm).unwrap();
    let gb = t.tensor("float16", &[16, 8], "gb", Scope::Gm).unwrap();
    let go = t.tensor("float16", &[32, 16], "go", Scope::Gm).unwrap();
    let ua = t.tensor("float16", &[32, 8], "ua", Scope::Ubuf).unwrap();
    let ubx = t.tensor("float16", &[16, 8], "ub", Scope::Ubuf).unwrap();
    let uo = t.tensor("float16", &[32, 16], "uo", Scope::Ubuf).unwrap();
    t.data_move(&ua, &ga, 0, 1, 16, 0, 0).unwrap();
    t.data_move(&ubx, &gb, 0, 1, 8, 0, 0).unwrap();
    if let Some(x) = offset {
        t.set_rpn_offset(x).unwrap();
    }
    t.viou(&uo, &ua, &ubx, 2).unwrap();
    t.data_move(&go, &uo, 0, 1, 32, 0, 0).unwrap();
    t.build_cce("k", &[&ga, &gb], &[&go]).unwrap();
    let out = t
        .start_debug(&[
            ("ga", &NpyArray::from_elems(vec![32, 8], a)),
            ("gb", &NpyArray::from_elems(vec![16, 8], b)),
        ])
        .unwrap();
    out[0].1.to_elems::<f16>().unwrap()
}

fn f(v: &[f16]) -> Vec<f32> {
    v.iter().map(|h| h.to_f32()).collect()
}

/// Hand-computed (no printed example exists). src1 = B0 [0,0,9,9], B1 [5,5,14,14],
/// B2 [10,0,19,9], B3 [20,20,30,30], then 12 zero boxes. src0[0] = A [0,0,9,9] (repeat 0),
/// src0[16] = [5,5,14,14] (first proposal of repeat 1, so its row starts at dst[256]).
/// Offset 1 (the value until set): A·B0 = 10·10 = 100, A·B1 = 5·5 = 25, A·B2: side
/// 9 - 10 + 1 = 0 -> 0, A·B3: both sides -10 -> clamped, 0 (an unclamped product would be
/// 100), A·zero box: 1·1 = 1. Row 16: 25, 100, 5·5 = 25 (x: 14-10+1, y: 9-5+1), 0, and the
/// zero boxes 0 (side 0 - 5 + 1 < 0). Offset 0 (set_rpn_offset(0.0)): 81, 16, 0, 0, 0 and
/// 16, 81, 16, 0, 0.
#[test]
fn viou_hand_computed_rows_through_tik() {
    let b = proposals(&[
        [0.0, 0.0, 9.0, 9.0],
        [5.0, 5.0, 14.0, 14.0],
        [10.0, 0.0, 19.0, 9.0],
        [20.0, 20.0, 30.0, 30.0],
    ]);
    let mut a = proposals(&[[0.0, 0.0, 9.0, 9.0]]);
    a.extend(proposals(&[[5.0, 5.0, 14.0, 14.0]]));
    let zeros12 = |v: f32| vec![v; 12];
    for (offset, row0, row16) in [
        (
            None,
            [vec![100.0, 25.0, 0.0, 0.0], zeros12(1.0)].concat(),
            [vec![25.0, 100.0, 25.0, 0.0], zeros12(0.0)].concat(),
        ),
        (
            Some(0.0),
            [vec![81.0, 16.0, 0.0, 0.0], zeros12(0.0)].concat(),
            [vec![16.0, 81.0, 16.0, 0.0], zeros12(0.0)].concat(),
        ),
    ] {
        let d = f(&tik_viou(&a, &b, offset));
        assert_eq!(d.len(), 512);
        assert_eq!(&d[0..16], &row0[..], "row 0, offset {offset:?}");
        assert_eq!(&d[256..272], &row16[..], "row 16, offset {offset:?}");
    }
}

/// vaadd by hand: areas src0 = 1..=32, src1 = 100, 200, .., 1600: dst[16i + j] = src0[i] +
/// src1[j]: dst[0] = 101, dst[17] = 2 + 200 = 202, dst[271] = src0[16] + src1[15] = 17 + 1600.
#[test]
fn vaadd_hand_computed_through_tik() {
    let mut t = Tik::new(ChipId::Ascend910);
    let ga = t.tensor("float16", &[32], "ga", Scope::Gm).unwrap();
    let gb = t.tensor("float16", &[16], "gb", Scope::Gm).unwrap();
    let go = t.tensor("float16", &[32, 16], "go", Scope::Gm).unwrap();
    let ua = t.tensor("float16", &[32], "ua", Scope::Ubuf).unwrap();
    let ubx = t.tensor("float16", &[16], "ub", Scope::Ubuf).unwrap();
    let uo = t.tensor("float16", &[32, 16], "uo", Scope::Ubuf).unwrap();
    t.data_move(&ua, &ga, 0, 1, 2, 0, 0).unwrap();
    t.data_move(&ubx, &gb, 0, 1, 1, 0, 0).unwrap();
    t.vaadd(&uo, &ua, &ubx, 2).unwrap();
    t.data_move(&go, &uo, 0, 1, 32, 0, 0).unwrap();
    t.build_cce("k", &[&ga, &gb], &[&go]).unwrap();
    let a: Vec<f16> = (1..=32).map(|v| f16::from_f32(v as f32)).collect();
    let b: Vec<f16> = (1..=16).map(|v| f16::from_f32(100.0 * v as f32)).collect();
    let out = t
        .start_debug(&[
            ("ga", &NpyArray::from_elems(vec![32], &a)),
            ("gb", &NpyArray::from_elems(vec![16], &b)),
        ])
        .unwrap();
    let d = f(&out[0].1.to_elems::<f16>().unwrap());
    assert_eq!(
        (d[0], d[17], d[271], d[511]),
        (101.0, 202.0, 1617.0, 1632.0)
    );
}

fn read_f32(core: &VectorCore, op: &Operand, n: usize) -> Vec<f32> {
    let b = core
        .ub()
        .bytes(op.addr(), (n * op.dtype.size()) as u64)
        .unwrap();
    if op.dtype == ElemType::F16 {
        b.chunks_exact(2)
            .map(|c| f16::from_le_bytes([c[0], c[1]]).to_f32())
            .collect()
    } else {
        b.chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }
}

fn write_vals(core: &mut VectorCore, op: &Operand, v: &[f32]) {
    let bytes: Vec<u8> = if op.dtype == ElemType::F16 {
        v.iter()
            .flat_map(|x| f16::from_f32(*x).to_le_bytes())
            .collect()
    } else {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    };
    core.ub_mut().write(op.addr(), &bytes).unwrap();
}

/// The plain model: NaN-propagating max/min, each side `hi - lo + offset`, a side that is not
/// positive counts as +0 (NaN stays), the product in f32.
fn model_intersection(a: &[f32], b: &[f32], off: f32) -> f32 {
    let mx = |x: f32, y: f32| {
        if x.is_nan() || y.is_nan() {
            f32::NAN
        } else {
            x.max(y)
        }
    };
    let mn = |x: f32, y: f32| {
        if x.is_nan() || y.is_nan() {
            f32::NAN
        } else {
            x.min(y)
        }
    };
    let side = |lo: f32, hi: f32| {
        let s = hi - lo + off;
        if s.is_nan() || s > 0.0 { s } else { 0.0 }
    };
    side(mx(a[0], b[0]), mn(a[2], b[2])) * side(mx(a[1], b[1]), mn(a[3], b[3]))
}

fn same(x: f32, y: f32) -> bool {
    (x.is_nan() && y.is_nan()) || x.to_bits() == y.to_bits()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(64)))]

    /// Random chip, type, instruction, repeat 0..=3, coordinates from small integers, halves
    /// and the special values (±0, ±inf, NaN, ±65504), a random RPN offset (set where the chip
    /// takes set_rpn_offset, else the fixed 1.0), against the model: dst[(16r+i)·16 + j] =
    /// f(src0[16r+i], src1[j]) rounded once to the type; a typed refusal where the chip or
    /// type is absent. No mask: the instructions have none.
    #[test]
    fn viou_and_vaadd_match_the_model(chip_i in 0usize..6, is_f16 in any::<bool>(), iou in any::<bool>(),
                                      repeat in 0i64..4, off_i in 0usize..4, seed in any::<u64>()) {
        let chip = CHIPS[chip_i];
        let t = if is_f16 { ElemType::F16 } else { ElemType::F32 };
        let instr = if iou { Instr::Viou } else { Instr::Vaadd };
        let legal = instr.legal_types(chip).is_some_and(|l| l.contains(&t));
        let mut x = seed;
        let mut next = || { x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407); (x >> 33) as u32 };
        let specials = [0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 65504.0, -65504.0, 0.5];
        let mut val = || match next() % 16 { 0 => specials[(next() % 8) as usize], k if k < 8 => (next() % 64) as f32 - 16.0, _ => (next() % 4096) as f32 / 8.0 };
        let per = if iou { 8 } else { 1 };
        let n0 = (repeat.max(1) as usize) * 16 * per;
        let round = |v: f32| if is_f16 { f16::from_f32(v).to_f32() } else { v };
        let a: Vec<f32> = (0..n0).map(|_| round(val())).collect();
        let b: Vec<f32> = (0..16 * per).map(|_| round(val())).collect();
        let size = t.size() as u64;
        let dst = ub("dst", t, 0, 256 * 4);
        let s0 = ub("src0", t, 256 * 4 * size, n0 as u64);
        let s1 = ub("src1", t, 256 * 4 * size + (n0 as u64 * size).div_ceil(32) * 32, 16 * per as u64);
        let mut core = VectorCore::new(chip, 0);
        write_vals(&mut core, &s0, &a);
        write_vals(&mut core, &s1, &b);
        let offsets = [1.0, 0.0, 0.5, -2.0];
        let off = if chip == ChipId::Ascend310 {
            let refused = matches!(set_rpn_offset(&mut core, "set_rpn_offset", offsets[off_i]), Err(AscendError::NotSupported { .. }));
            prop_assert!(refused, "set_rpn_offset on 310");
            1.0
        } else {
            set_rpn_offset(&mut core, "set_rpn_offset", offsets[off_i]).unwrap();
            offsets[off_i] as f32
        };
        let before = read_f32(&core, &dst, 1024);
        let r = proposal_pair(&mut core, instr, instr.tik_name(), &dst, &s0, &s1, repeat);
        if !legal {
            prop_assert!(matches!(r, Err(AscendError::NotSupported { .. }) | Err(AscendError::IllegalType { .. })), "{:?}", r);
            return Ok(());
        }
        r.unwrap();
        let got = read_f32(&core, &dst, 1024);
        for k in 0..1024 {
            let (i, j) = (k / 16, k % 16);
            let want = if k >= repeat as usize * 256 {
                before[k]
            } else if iou {
                round(model_intersection(&a[8 * i..8 * i + 4], &b[8 * j..8 * j + 4], off))
            } else {
                round(a[i] + b[j])
            };
            prop_assert!(same(got[k], want), "k {} got {} want {}", k, got[k], want);
        }
    }
}

#[test]
fn restrictions_give_typed_errors() {
    let chip = ChipId::Ascend310P;
    let h = ElemType::F16;
    let mut core = VectorCore::new(chip, 64);
    let dst = ub("dst", h, 0, 512);
    let s0 = ub("src0", h, 1024, 256);
    let s1 = ub("src1", h, 2048, 128);
    let run = |core: &mut VectorCore, i: Instr, d: &Operand, a: &Operand, b: &Operand, r: i64| {
        proposal_pair(core, i, i.tik_name(), d, a, b, r).unwrap_err()
    };
    // Parameter range: repeat_times [0, 255].
    let e = run(&mut core, Instr::Viou, &dst, &s0, &s1, 256);
    assert!(
        matches!(
            e,
            AscendError::OutOfRange {
                instr: "viou",
                param: "repeat_times",
                value: 256,
                ..
            }
        ),
        "{e}"
    );
    // Rule: extents (dst 256·repeat, src0 16·8·repeat for viou).
    let e = run(&mut core, Instr::Viou, &dst, &s0, &s1, 3);
    assert!(
        matches!(e, AscendError::TensorOverflow { param: "dst", .. }),
        "{e}"
    );
    let e = run(
        &mut core,
        Instr::Viou,
        &ub("big", h, 4096, 1024),
        &s0,
        &s1,
        3,
    );
    assert!(
        matches!(e, AscendError::TensorOverflow { param: "src0", .. }),
        "{e}"
    );
    // Types: src0 of another type; a type the chip lacks; a chip without the instruction.
    let e = run(
        &mut core,
        Instr::Vaadd,
        &dst,
        &ub("f", ElemType::F32, 1024, 16),
        &s1,
        1,
    );
    assert!(
        matches!(e, AscendError::TypeMismatch { param: "src0", .. }),
        "{e}"
    );
    let mut c910 = VectorCore::new(ChipId::Ascend910, 0);
    let e = run(
        &mut c910,
        Instr::Vaadd,
        &ub("d", ElemType::F32, 0, 256),
        &ub("a", ElemType::F32, 1024, 16),
        &ub("b", ElemType::F32, 2048, 16),
        1,
    );
    assert!(
        matches!(
            e,
            AscendError::IllegalType {
                instr: "vaadd",
                dtype: ElemType::F32,
                ..
            }
        ),
        "{e}"
    );
    for c in [ChipId::Ascend910B, ChipId::Ascend310B, ChipId::Ascend950] {
        let mut other = VectorCore::new(c, 0);
        let e = run(&mut other, Instr::Viou, &dst, &s0, &s1, 1);
        assert!(
            matches!(e, AscendError::NotSupported { instr: "viou", .. }),
            "{e}"
        );
    }
    // Scope and alignment.
    let mut gm = ub("g", h, 0, 256);
    gm.space = MemSpace::Gm;
    let e = run(&mut core, Instr::Viou, &dst, &gm, &s1, 1);
    assert!(
        matches!(e, AscendError::WrongScope { param: "src0", .. }),
        "{e}"
    );
    let e = run(&mut core, Instr::Viou, &dst.at(8), &s0, &s1, 1);
    assert!(
        matches!(e, AscendError::Misaligned { param: "dst", .. }),
        "{e}"
    );
    // Overlap (policy): dst over a source.
    let e = run(&mut core, Instr::Vaadd, &dst, &dst.at(128), &s1, 1);
    assert!(
        matches!(
            e,
            AscendError::IllegalOverlap {
                instr: "vaadd",
                src: "src0",
                ..
            }
        ),
        "{e}"
    );
    // set_rpn_offset: refused on Ascend 310 (TIK's check), range [-65504, 65504].
    let mut c310 = VectorCore::new(ChipId::Ascend310, 0);
    let e = set_rpn_offset(&mut c310, "set_rpn_offset", 0.0).unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::NotSupported {
                instr: "set_rpn_offset",
                ..
            }
        ),
        "{e}"
    );
    let e = set_rpn_offset(&mut core, "set_rpn_offset", 70000.0).unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::Rule {
                param: "number",
                ..
            }
        ),
        "{e}"
    );
    let mut t = Tik::new(ChipId::Ascend310);
    assert!(matches!(
        t.set_rpn_offset(0.0),
        Err(AscendError::NotSupported { .. })
    ));
}
