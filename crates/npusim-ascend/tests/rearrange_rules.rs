//! One test per restriction class of Transpose (Transpose.md; TIK `vec_trans`/`vtranspose`) and
//! CreateVecIndex (CreateVecIndex.md; TIK `vci`): each bad call gives its own typed error
//! naming the instruction, the parameter, the rule and the value, and writes nothing.
//! Classes: element type per chip (absent chip, illegal type, src/dst type mismatch), ranges
//! (repeat, repeat strides), scope (UB only), 32-byte alignment, tensor bounds, the value
//! range of `firstValue` ("firstValue需保证不超出dst中元素数据类型对应的大小范围"), and the
//! documented allowances (Transpose: src and dst may be the same tensor).

mod common;
use common::{ub, ub_bytes};

use npusim_ascend::AscendError;
use npusim_ascend::core::{Operand, VectorCore};
use npusim_ascend::misc::{create_vec_index, transpose};
use npusim_ascend::ops::Scalar;
use npusim_core::{ChipId, ElemType, MemSpace};

fn gm(name: &str, t: ElemType, elems: u64) -> Operand {
    Operand {
        space: MemSpace::Gm,
        ..ub(name, t, 0, elems)
    }
}

/// Runs `f` on a core whose UB is filled with a pattern; returns its error and checks that
/// the UB is unchanged.
fn refused(
    chip: ChipId,
    f: impl FnOnce(&mut VectorCore) -> npusim_ascend::Result<()>,
) -> AscendError {
    let mut core = VectorCore::new(chip, 4096);
    let pattern: Vec<u8> = (0..8192u32).map(|i| (i * 7 + 3) as u8).collect();
    core.ub_mut().write(0, &pattern).unwrap();
    let e = f(&mut core).unwrap_err();
    assert_eq!(
        core.ub().bytes(0, 8192).unwrap(),
        &pattern[..],
        "{e}: nothing written"
    );
    e
}

#[test]
fn transpose_element_types_per_chip() {
    // 2-byte types only; every chip has it.
    let e = refused(ChipId::Ascend910B, |c| {
        transpose(
            c,
            "Transpose",
            &ub("dst", ElemType::F32, 0, 128),
            &ub("src", ElemType::F32, 1024, 128),
            1,
            0,
            0,
        )
    });
    assert!(
        matches!(&e, AscendError::IllegalType { instr: "Transpose", param: "dst", dtype: ElemType::F32, chip: ChipId::Ascend910B, legal }
            if legal.contains("float16") && legal.contains("int16")),
        "{e}"
    );
    let e = refused(ChipId::Ascend910B, |c| {
        transpose(
            c,
            "Transpose",
            &ub("dst", ElemType::F16, 0, 256),
            &ub("src", ElemType::I16, 1024, 256),
            1,
            0,
            0,
        )
    });
    assert!(
        matches!(
            e,
            AscendError::TypeMismatch {
                instr: "Transpose",
                param: "src",
                got: ElemType::I16,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn transpose_ranges() {
    for (param, args, value) in [
        ("repeat_times", (0i64, 0i64, 0i64), 0i64),
        ("repeat_times", (4096, 0, 0), 4096),
        ("dst_rep_stride", (1, 4096, 0), 4096),
        ("src_rep_stride", (1, 0, -1), -1),
    ] {
        let e = refused(ChipId::Ascend310P, |c| {
            transpose(
                c,
                "vtranspose",
                &ub("dst", ElemType::U16, 0, 256),
                &ub("src", ElemType::U16, 1024, 256),
                args.0,
                args.1,
                args.2,
            )
        });
        assert!(
            matches!(e, AscendError::OutOfRange { instr: "vtranspose", param: p, value: v, .. } if p == param && v == value),
            "{e}"
        );
    }
}

#[test]
fn transpose_scope_alignment_bounds() {
    let e = refused(ChipId::Ascend910, |c| {
        transpose(
            c,
            "Transpose",
            &ub("dst", ElemType::F16, 0, 256),
            &gm("src", ElemType::F16, 256),
            1,
            0,
            0,
        )
    });
    assert!(
        matches!(
            e,
            AscendError::WrongScope {
                instr: "Transpose",
                param: "src",
                got: MemSpace::Gm,
                ..
            }
        ),
        "{e}"
    );
    let e = refused(ChipId::Ascend910, |c| {
        transpose(
            c,
            "Transpose",
            &ub("dst", ElemType::F16, 0, 512).at(8),
            &ub("src", ElemType::F16, 2048, 256),
            1,
            0,
            0,
        )
    });
    assert!(
        matches!(
            e,
            AscendError::Misaligned {
                instr: "Transpose",
                param: "dst",
                align: 32,
                ..
            }
        ),
        "{e}"
    );
    // Two repeats 1 matrix apart need 1024 bytes of src; the tensor has 512.
    let e = refused(ChipId::Ascend910, |c| {
        transpose(
            c,
            "vtranspose",
            &ub("dst", ElemType::F16, 0, 512),
            &ub("src", ElemType::F16, 2048, 256),
            2,
            1,
            1,
        )
    });
    assert!(
        matches!(
            e,
            AscendError::TensorOverflow {
                instr: "vtranspose",
                param: "src",
                end: 1024,
                size: 512,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn transpose_in_place_is_allowed() {
    // "普通转置接口支持src和dst复用": dst and src the same tensor gives the transpose.
    let mut core = VectorCore::new(ChipId::Ascend910B, 0);
    let x: Vec<u8> = (0..256u16).flat_map(|v| v.to_le_bytes()).collect();
    core.ub_mut().write(0, &x).unwrap();
    let t = ub("t", ElemType::U16, 0, 256);
    transpose(&mut core, "Transpose", &t, &t, 1, 0, 0).unwrap();
    let got = core.ub().bytes(0, 512).unwrap();
    for i in 0..16usize {
        for j in 0..16usize {
            let v = u16::from_le_bytes([got[2 * (i * 16 + j)], got[2 * (i * 16 + j) + 1]]);
            assert_eq!(v as usize, j * 16 + i);
        }
    }
}

#[test]
fn create_vec_index_element_types_per_chip() {
    // Absent on Atlas training / Atlas 200/300/500 inference.
    let e = refused(ChipId::Ascend910, |c| {
        create_vec_index(
            c,
            "CreateVecIndex",
            &ub("dst", ElemType::I32, 0, 64),
            Scalar::Int(0),
            64,
        )
    });
    assert_eq!(
        e,
        AscendError::NotSupported {
            instr: "CreateVecIndex",
            chip: ChipId::Ascend910
        }
    );
    let e = refused(ChipId::Ascend910B, |c| {
        create_vec_index(
            c,
            "vci",
            &ub("dst", ElemType::U8, 0, 64),
            Scalar::Int(0),
            64,
        )
    });
    assert!(
        matches!(
            e,
            AscendError::IllegalType {
                instr: "vci",
                param: "dst",
                dtype: ElemType::U8,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn create_vec_index_scope_alignment_bounds_count() {
    let e = refused(ChipId::Ascend910B, |c| {
        create_vec_index(
            c,
            "CreateVecIndex",
            &gm("dst", ElemType::I32, 64),
            Scalar::Int(0),
            64,
        )
    });
    assert!(
        matches!(
            e,
            AscendError::WrongScope {
                instr: "CreateVecIndex",
                param: "dst",
                got: MemSpace::Gm,
                ..
            }
        ),
        "{e}"
    );
    let e = refused(ChipId::Ascend910B, |c| {
        create_vec_index(
            c,
            "CreateVecIndex",
            &ub("dst", ElemType::I32, 0, 64).at(1),
            Scalar::Int(0),
            8,
        )
    });
    assert!(
        matches!(
            e,
            AscendError::Misaligned {
                instr: "CreateVecIndex",
                param: "dst",
                align: 32,
                ..
            }
        ),
        "{e}"
    );
    let e = refused(ChipId::Ascend910B, |c| {
        create_vec_index(
            c,
            "CreateVecIndex",
            &ub_bytes("dst", ElemType::I32, 0, 256),
            Scalar::Int(0),
            65,
        )
    });
    assert!(
        matches!(
            e,
            AscendError::TensorOverflow {
                instr: "CreateVecIndex",
                param: "dst",
                end: 260,
                size: 256,
                ..
            }
        ),
        "{e}"
    );
    let e = refused(ChipId::Ascend910B, |c| {
        create_vec_index(
            c,
            "vci",
            &ub("dst", ElemType::I32, 0, 64),
            Scalar::Int(0),
            -1,
        )
    });
    assert!(
        matches!(
            e,
            AscendError::OutOfRange {
                instr: "vci",
                param: "count",
                value: -1,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn create_vec_index_first_value_must_fit_the_type() {
    // firstValue outside int16, and a whole-number rule for integer tensors.
    let e = refused(ChipId::Ascend310P, |c| {
        create_vec_index(
            c,
            "CreateVecIndex",
            &ub("dst", ElemType::I16, 0, 128),
            Scalar::Int(40000),
            16,
        )
    });
    assert!(
        matches!(&e, AscendError::Rule { instr: "CreateVecIndex", param: "firstValue", value, .. } if value == "40000"),
        "{e}"
    );
    let e = refused(ChipId::Ascend310P, |c| {
        create_vec_index(
            c,
            "CreateVecIndex",
            &ub("dst", ElemType::I32, 0, 64),
            Scalar::Float(1.5),
            16,
        )
    });
    assert!(
        matches!(&e, AscendError::Rule { instr: "CreateVecIndex", param: "firstValue", value, .. } if value == "1.5"),
        "{e}"
    );
}
