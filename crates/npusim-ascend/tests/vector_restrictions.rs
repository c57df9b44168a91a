//! One test per restriction class of the element-wise instructions (General Restrictions,
//! per-instruction type lists, Cast tables, masks): each bad call gives a typed error naming
//! the instruction, the parameter, the rule and the value.

use npusim_ascend::AscendError;
use npusim_ascend::ascendc::{
    AscendC, BinaryRepeatParams, MASK_PLACEHOLDER, RoundMode, UnaryRepeatParams,
};
use npusim_ascend::core::Operand;
use npusim_ascend::tik::{Scope, Tik};
use npusim_core::{ChipId, ElemType, MemSpace};

fn tik(chip: ChipId, dtype: &str, n: usize) -> (Tik, Operand, Operand, Operand) {
    let mut t = Tik::new(chip);
    let a = t.tensor(dtype, &[n], "a", Scope::Ubuf).unwrap();
    let b = t.tensor(dtype, &[n], "b", Scope::Ubuf).unwrap();
    let d = t.tensor(dtype, &[n], "d", Scope::Ubuf).unwrap();
    (t, a, b, d)
}

#[test]
fn ranges() {
    let (mut t, a, b, d) = tik(ChipId::Ascend910B, "float16", 128 * 8);
    let e = t.vec_add(128, &d, &a, &b, 256, 8, 8, 8).unwrap_err();
    assert_eq!(
        e,
        AscendError::OutOfRange {
            instr: "vec_add",
            param: "repeat_times",
            value: 256,
            range: "[0, 255]"
        }
    );
    let e = t.vadd(128, &d, &a, &b, 1, 1, 1, 1, 256, 8, 8).unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::OutOfRange {
                instr: "vadd",
                param: "dst_rep_stride",
                value: 256,
                ..
            }
        ),
        "{e}"
    );
    let e = t.vexp(128, &d, &a, 1, 1, -1, 8, 8).unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::OutOfRange {
                instr: "vexp",
                param: "src_blk_stride",
                value: -1,
                ..
            }
        ),
        "{e}"
    );
    let e = t.vmuls(128, &d, &a, 2.0, 1, 0, 1, 8, 8).unwrap_err();
    assert!(
        matches!(e, AscendError::Rule { instr: "vmuls", param: "dst_blk_stride", ref value, .. } if value == "0"),
        "{e}"
    );
    assert!(e.to_string().contains("undefined behaviour"));
}

#[test]
fn element_types_per_chip() {
    // Add: int16 on A2, not on Atlas training (Add.md).
    let (mut t, a, b, d) = tik(ChipId::Ascend910, "int16", 128);
    let e = t.vec_add(128, &d, &a, &b, 1, 8, 8, 8).unwrap_err();
    assert!(
        matches!(e, AscendError::IllegalType { instr: "vec_add", param: "dst", dtype: ElemType::I16, chip: ChipId::Ascend910, ref legal } if legal == "float16, int32, float32"),
        "{e}"
    );
    let (mut t, a, b, d) = tik(ChipId::Ascend910B, "int16", 128);
    t.vec_add(128, &d, &a, &b, 1, 8, 8, 8).unwrap();
    // AddRelu does not exist on Atlas training.
    let (mut t, a, b, d) = tik(ChipId::Ascend910, "float16", 128);
    let e = t
        .vaddrelu(128, &d, &a, &b, 1, 1, 1, 1, 8, 8, 8)
        .unwrap_err();
    assert_eq!(
        e,
        AscendError::NotSupported {
            instr: "vaddrelu",
            chip: ChipId::Ascend910
        }
    );
    // And is 16-bit integer only.
    let e = t.vec_and(128, &d, &a, &b, 1, 8, 8, 8).unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::IllegalType {
                instr: "vec_and",
                dtype: ElemType::F16,
                ..
            }
        ),
        "{e}"
    );
    // Operands must share the type.
    let mut t = Tik::new(ChipId::Ascend910B);
    let a = t.tensor("float16", &[128], "a", Scope::Ubuf).unwrap();
    let b = t.tensor("float32", &[128], "b", Scope::Ubuf).unwrap();
    let d = t.tensor("float16", &[128], "d", Scope::Ubuf).unwrap();
    let e = t.vec_mul(64, &d, &a, &b, 1, 8, 8, 8).unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::TypeMismatch {
                instr: "vec_mul",
                param: "src1",
                got: ElemType::F32,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn scope_alignment_and_bounds() {
    let mut t = Tik::new(ChipId::Ascend910B);
    let g = t.tensor("float16", &[256], "g", Scope::Gm).unwrap();
    let a = t.tensor("float16", &[256], "a", Scope::Ubuf).unwrap();
    let d = t.tensor("float16", &[256], "d", Scope::Ubuf).unwrap();
    let e = t.vec_exp(128, &d, &g, 1, 8, 8).unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::WrongScope {
                instr: "vec_exp",
                param: "src",
                got: MemSpace::Gm,
                ..
            }
        ),
        "{e}"
    );
    let e = t.vec_exp(128, &d.at(1), &a, 1, 8, 8).unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::Misaligned {
                instr: "vec_exp",
                param: "dst",
                align: 32,
                ..
            }
        ),
        "{e}"
    );
    let e = t.vec_exp(128, &d, &a, 3, 8, 8).unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::TensorOverflow {
                instr: "vec_exp",
                param: "dst",
                start: 0,
                end: 768,
                size: 512,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn overlap_rules() {
    let mut t = Tik::new(ChipId::Ascend910B);
    let x = t.tensor("float16", &[128 * 8], "x", Scope::Ubuf).unwrap();
    let y = t.tensor("float16", &[128 * 8], "y", Scope::Ubuf).unwrap();
    // One repeat: full overlap is fine, partial is not.
    t.vec_add(128, &x, &x, &y, 1, 8, 8, 8).unwrap();
    let e = t.vec_add(128, &x.at(16), &x, &y, 1, 8, 8, 8).unwrap_err();
    assert!(
        matches!(e, AscendError::IllegalOverlap { instr: "vec_add", dst: "dst", src: "src0", rule } if rule.contains("within one repeat")),
        "{e}"
    );
    // Several repeats: the dst of repeat N must not feed repeat N+1.
    let e = t.vec_relu(128, &x.at(128), &x, 2, 8, 8).unwrap_err();
    assert!(
        matches!(e, AscendError::IllegalOverlap { instr: "vec_relu", rule, .. } if rule.contains("repeat N+1")),
        "{e}"
    );
    // dst = src0 + dst accumulating in place with zero rep strides is the documented exception.
    t.vec_add(128, &x, &y, &x, 4, 0, 8, 0).unwrap();
    // ... but not for an instruction outside the list (Div).
    let e = t.vec_div(128, &x, &y, &x, 4, 0, 8, 0).unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::IllegalOverlap {
                instr: "vec_div",
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn masks() {
    let (mut t, a, b, d) = tik(ChipId::Ascend910B, "float32", 128);
    let e = t.vec_add(65, &d, &a, &b, 1, 8, 8, 8).unwrap_err();
    assert!(
        matches!(e, AscendError::BadMask { instr: "vec_add", ref value, .. } if value == "65"),
        "{e}"
    );
    let e = t.vec_add([1, 0], &d, &a, &b, 1, 8, 8, 8).unwrap_err();
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
    let mut asc = AscendC::new(ChipId::Ascend910B, 0);
    let x = asc.AllocTensor::<f32>("x", 64).unwrap();
    let y = asc.AllocTensor::<f32>("y", 64).unwrap();
    let e = asc
        .AddRepeat::<f32, true>(
            &x,
            &x,
            &y,
            MASK_PLACEHOLDER,
            1,
            BinaryRepeatParams::default(),
        )
        .unwrap_err();
    assert!(
        matches!(e, AscendError::BadMask { instr: "Add", .. }),
        "{e}"
    );
    let e = asc
        .ExpRepeat::<f32, false>(&x, &y, 64u64, 1, UnaryRepeatParams::default())
        .unwrap_err();
    assert!(
        matches!(e, AscendError::BadMask { instr: "Exp", .. }),
        "{e}"
    );
}

#[test]
fn cast_tables_and_round_modes() {
    let mut t = Tik::new(ChipId::Ascend910);
    let s = t.tensor("float32", &[64], "s", Scope::Ubuf).unwrap();
    let h = t.tensor("float16", &[64], "h", Scope::Ubuf).unwrap();
    let b = t.tensor("bfloat16", &[64], "b", Scope::Ubuf).unwrap();
    // Atlas training: float -> half takes only CAST_ODD / CAST_NONE (Cast.md).
    let e = t.vec_conv(64, "floor", &h, &s, 1, 4, 8).unwrap_err();
    assert!(
        matches!(e, AscendError::Rule { instr: "vec_conv", param: "round_mode", ref value, .. } if value.starts_with("CAST_FLOOR")),
        "{e}"
    );
    t.vec_conv(64, "", &h, &s, 1, 4, 8).unwrap();
    t.vconv(64, "odd", &h, &s, 1, 1, 1, 4, 8).unwrap();
    // No float -> bfloat16 on Atlas training.
    let e = t.vec_conv(64, "round", &b, &s, 1, 4, 8).unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::IllegalType {
                instr: "vec_conv",
                param: "dst",
                dtype: ElemType::Bf16,
                ..
            }
        ),
        "{e}"
    );
    let e = t.vec_conv(64, "sideways", &h, &s, 1, 4, 8).unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::Rule {
                instr: "vec_conv",
                param: "round_mode",
                ..
            }
        ),
        "{e}"
    );
    // int32 -> half is the SetDeqScale form: dst = half(src * scale).
    let mut asc = AscendC::new(ChipId::Ascend910B, 0);
    let i = asc.AllocTensor::<i32>("i", 64).unwrap();
    let hh = asc.AllocTensor::<half::f16>("hh", 64).unwrap();
    asc.write(&i, &[3, -7, 100_000, 2049]).unwrap();
    asc.SetDeqScale(half::f16::from_f32(0.5)).unwrap();
    asc.Cast(&hh, &i, RoundMode::None, 64).unwrap();
    let out: Vec<f32> = asc
        .read::<half::f16>(&hh)
        .unwrap()
        .iter()
        .map(|v| v.to_f32())
        .collect();
    // 1024.5 (spacing 1) and 50000 (spacing 32, between 49984 and 50016) are ties: even wins.
    assert_eq!(&out[..4], &[1.5, -3.5, 49_984.0, 1024.0]);
    // Atlas training has no int32 -> half.
    let mut asc = AscendC::new(ChipId::Ascend910, 0);
    let i = asc.AllocTensor::<i32>("i", 64).unwrap();
    let hh = asc.AllocTensor::<half::f16>("hh", 64).unwrap();
    let e = asc.Cast(&hh, &i, RoundMode::None, 64).unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::IllegalType {
                instr: "Cast",
                param: "dst",
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn scalars_must_fit_the_tensor() {
    let (mut t, a, _b, d) = tik(ChipId::Ascend910B, "int16", 128);
    let e = t.vec_adds(128, &d, &a, 1.5, 1, 8, 8).unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::Rule {
                instr: "vec_adds",
                param: "scalar",
                ..
            }
        ),
        "{e}"
    );
    let e = t.vec_muls(128, &d, &a, 70000, 1, 8, 8).unwrap_err();
    assert!(
        matches!(e, AscendError::Rule { instr: "vec_muls", param: "scalar", ref value, .. } if value == "70000"),
        "{e}"
    );
}
