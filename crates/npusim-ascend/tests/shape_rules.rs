//! One test per restriction class of the rows with their own records that had no restriction
//! test of their own: Gather (Gather.md), Brcb (Brcb.md), GatherMask (GatherMask.md), Compare
//! into CMPMASK (Compare（结果存入寄存器）.md), CompareScalar / vcmpvs_xx (Compares.md, TIK),
//! Select (Select.md), WholeReduce* / BlockReduce* (ReduceRepeat.md, ReduceDataBlock.md) and
//! ReduceSum/Max/Min (ReduceSum.md, ReduceMax.md). Classes: the element type per chip (absent
//! chip, illegal type, mismatched operands), parameter ranges, scope (UB only), 32-byte
//! alignment, tensor bounds, and each row's own rules. Every refusal is a typed error naming
//! the instruction, the parameter and the value, and writes nothing.

mod common;
use common::ub;

use npusim_ascend::AscendError;
use npusim_ascend::core::{Operand, VectorCore};
use npusim_ascend::isa::Instr;
use npusim_ascend::kernels::CmpMode;
use npusim_ascend::mask::MaskArg;
use npusim_ascend::misc::{BrcbOp, CmpMaskOp, GatherPattern, gather, gather_mask};
use npusim_ascend::reduce::{ReduceOp, RepeatOrder, reduce_all};
use npusim_ascend::select::{SelectOp, Src1};
use npusim_ascend::tik::{Scope, Tik};
use npusim_core::{ChipId, ChipProfile, ElemType, MemSpace};

use ElemType::{F16, F32, I8, U8, U16, U32};

fn gm(name: &str, t: ElemType, elems: u64) -> Operand {
    Operand {
        space: MemSpace::Gm,
        ..ub(name, t, 0, elems)
    }
}

/// Runs `f` on a core whose UB holds a pattern; returns its error and checks that the UB is
/// unchanged.
fn refused(
    chip: ChipId,
    f: impl FnOnce(&mut VectorCore) -> npusim_ascend::Result<()>,
) -> AscendError {
    let mut core = VectorCore::new(chip, 4096);
    let pattern: Vec<u8> = (0..16384u32).map(|i| (i * 13 + 5) as u8).collect();
    core.ub_mut().write(0, &pattern).unwrap();
    let e = f(&mut core).unwrap_err();
    assert_eq!(
        core.ub().bytes(0, 16384).unwrap(),
        &pattern[..],
        "{e}: nothing written"
    );
    e
}

fn p(chip: ChipId) -> &'static ChipProfile {
    ChipProfile::get(chip)
}

#[test]
fn gather_rules() {
    let (d, s, o) = (
        ub("dst", U16, 0, 128),
        ub("src", U16, 1024, 128),
        ub("off", U32, 2048, 128),
    );
    let e = refused(ChipId::Ascend910, |c| {
        gather(c, "Gather", &d, &s, &o, 0, 16)
    });
    assert_eq!(
        e,
        AscendError::NotSupported {
            instr: "Gather",
            chip: ChipId::Ascend910
        }
    );
    let e = refused(ChipId::Ascend910B, |c| {
        gather(
            c,
            "Gather",
            &ub("dst", U8, 0, 128),
            &ub("src", U8, 1024, 128),
            &o,
            0,
            16,
        )
    });
    assert!(
        matches!(
            e,
            AscendError::IllegalType {
                instr: "Gather",
                param: "dst",
                dtype: U8,
                ..
            }
        ),
        "{e}"
    );
    let e = refused(ChipId::Ascend910B, |c| {
        gather(c, "Gather", &d, &ub("src", F16, 1024, 128), &o, 0, 16)
    });
    assert!(
        matches!(
            e,
            AscendError::TypeMismatch {
                instr: "Gather",
                param: "src",
                ..
            }
        ),
        "{e}"
    );
    let e = refused(ChipId::Ascend910B, |c| {
        gather(c, "Gather", &d, &gm("src", U16, 128), &o, 0, 16)
    });
    assert!(
        matches!(
            e,
            AscendError::WrongScope {
                instr: "Gather",
                param: "src",
                got: MemSpace::Gm,
                ..
            }
        ),
        "{e}"
    );
    let e = refused(ChipId::Ascend910B, |c| {
        gather(c, "Gather", &d.at(2), &s, &o, 0, 16)
    });
    assert!(
        matches!(
            e,
            AscendError::Misaligned {
                instr: "Gather",
                param: "dst",
                align: 32,
                ..
            }
        ),
        "{e}"
    );
    let e = refused(ChipId::Ascend910B, |c| {
        gather(c, "Gather", &d, &s, &o, 0, 129)
    });
    assert!(
        matches!(
            e,
            AscendError::TensorOverflow {
                instr: "Gather",
                ..
            }
        ),
        "{e}"
    );
    let e = refused(ChipId::Ascend910B, |c| {
        gather(c, "Gather", &d, &s, &o, 0, -1)
    });
    assert!(
        matches!(
            e,
            AscendError::OutOfRange {
                instr: "Gather",
                param: "count",
                value: -1,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn brcb_rules() {
    let (d, s) = (ub("dst", U16, 0, 256), ub("src", U16, 1024, 16));
    let e = BrcbOp::new(p(ChipId::Ascend910), "Brcb", &d, &s, 1, 1, 8).unwrap_err();
    assert_eq!(
        e,
        AscendError::NotSupported {
            instr: "Brcb",
            chip: ChipId::Ascend910
        }
    );
    let e = BrcbOp::new(
        p(ChipId::Ascend910B),
        "Brcb",
        &ub("dst", I8, 0, 256),
        &ub("src", I8, 1024, 16),
        1,
        1,
        8,
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::IllegalType {
                instr: "Brcb",
                dtype: I8,
                ..
            }
        ),
        "{e}"
    );
    let e = BrcbOp::new(p(ChipId::Ascend910B), "Brcb", &d, &s, 256, 1, 8).unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::OutOfRange {
                instr: "Brcb",
                param: "repeatTime",
                value: 256,
                ..
            }
        ),
        "{e}"
    );
    let e = BrcbOp::new(p(ChipId::Ascend910B), "Brcb", &d, &s, 1, 65536, 8).unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::OutOfRange {
                instr: "Brcb",
                param: "dstBlkStride",
                value: 65536,
                ..
            }
        ),
        "{e}"
    );
    let e = BrcbOp::new(
        p(ChipId::Ascend910B),
        "Brcb",
        &gm("dst", U16, 256),
        &s,
        1,
        1,
        8,
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::WrongScope {
                instr: "Brcb",
                param: "dst",
                ..
            }
        ),
        "{e}"
    );
    let e = BrcbOp::new(p(ChipId::Ascend910B), "Brcb", &d, &s.at(1), 1, 1, 8).unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::Misaligned {
                instr: "Brcb",
                param: "src",
                ..
            }
        ),
        "{e}"
    );
    // 3 repeats read 24 source elements; the source holds 16.
    let e = BrcbOp::new(
        p(ChipId::Ascend910B),
        "Brcb",
        &ub("dst", U16, 0, 512),
        &s,
        3,
        1,
        8,
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::TensorOverflow {
                instr: "Brcb",
                param: "src",
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn gather_mask_rules() {
    let (d, s) = (ub("dst", U16, 0, 256), ub("src0", U16, 1024, 256));
    let params = [1, 2, 8, 0];
    let e = refused(ChipId::Ascend910, |c| {
        gather_mask(
            c,
            "GatherMask",
            &d,
            &s,
            GatherPattern::Fixed(1),
            false,
            0,
            params,
        )
        .map(|_| ())
    });
    assert_eq!(
        e,
        AscendError::NotSupported {
            instr: "GatherMask",
            chip: ChipId::Ascend910
        }
    );
    let e = refused(ChipId::Ascend910B, |c| {
        gather_mask(
            c,
            "GatherMask",
            &d,
            &s,
            GatherPattern::Fixed(8),
            false,
            0,
            params,
        )
        .map(|_| ())
    });
    assert!(
        matches!(
            e,
            AscendError::OutOfRange {
                instr: "GatherMask",
                param: "src1Pattern",
                value: 8,
                ..
            }
        ),
        "{e}"
    );
    let e = refused(ChipId::Ascend910B, |c| {
        gather_mask(
            c,
            "GatherMask",
            &d,
            &s,
            GatherPattern::Fixed(1),
            false,
            0,
            [1, 256, 8, 0],
        )
        .map(|_| ())
    });
    assert!(
        matches!(
            e,
            AscendError::OutOfRange {
                instr: "GatherMask",
                param: "repeatTimes",
                value: 256,
                ..
            }
        ),
        "{e}"
    );
    let e = refused(ChipId::Ascend910B, |c| {
        gather_mask(
            c,
            "GatherMask",
            &d,
            &s,
            GatherPattern::Fixed(1),
            true,
            129,
            params,
        )
        .map(|_| ())
    });
    assert!(
        matches!(&e, AscendError::BadMask { instr: "GatherMask", value, .. } if value == "129"),
        "{e}"
    );
    let e = refused(ChipId::Ascend910B, |c| {
        gather_mask(
            c,
            "GatherMask",
            &d,
            &gm("src0", U16, 256),
            GatherPattern::Fixed(1),
            false,
            0,
            params,
        )
        .map(|_| ())
    });
    assert!(
        matches!(
            e,
            AscendError::WrongScope {
                instr: "GatherMask",
                param: "src0",
                ..
            }
        ),
        "{e}"
    );
    let e = refused(ChipId::Ascend910B, |c| {
        gather_mask(
            c,
            "GatherMask",
            &d.at(1),
            &s,
            GatherPattern::Fixed(1),
            false,
            0,
            params,
        )
        .map(|_| ())
    });
    assert!(
        matches!(
            e,
            AscendError::Misaligned {
                instr: "GatherMask",
                param: "dst",
                ..
            }
        ),
        "{e}"
    );
    // 3 repeats of 128 read past the 256-element source.
    let e = refused(ChipId::Ascend910B, |c| {
        gather_mask(
            c,
            "GatherMask",
            &d,
            &s,
            GatherPattern::Fixed(7),
            false,
            0,
            [1, 3, 8, 0],
        )
        .map(|_| ())
    });
    assert!(
        matches!(
            e,
            AscendError::TensorOverflow {
                instr: "GatherMask",
                param: "src0",
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn compare_into_cmpmask_rules() {
    let (a, b) = (ub("src0", F32, 0, 64), ub("src1", F32, 256, 64));
    let m = MaskArg::Count(64);
    // No int32 comparison into CMPMASK (the table lists half/float).
    let ai = ub("src0", ElemType::I32, 0, 64);
    let bi = ub("src1", ElemType::I32, 256, 64);
    let e = CmpMaskOp::new(
        p(ChipId::Ascend910B),
        "Compare",
        CmpMode::Lt,
        &ai,
        &bi,
        m,
        1,
        1,
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::IllegalType {
                instr: "Compare",
                param: "src0",
                dtype: ElemType::I32,
                ..
            }
        ),
        "{e}"
    );
    let e = CmpMaskOp::new(
        p(ChipId::Ascend310),
        "vcmp_lt",
        CmpMode::Lt,
        &a,
        &b,
        m,
        1,
        1,
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::IllegalType {
                instr: "vcmp_lt",
                dtype: F32,
                chip: ChipId::Ascend310,
                ..
            }
        ),
        "{e}"
    );
    let e = CmpMaskOp::new(
        p(ChipId::Ascend910B),
        "Compare",
        CmpMode::Lt,
        &a,
        &ub("src1", F16, 256, 128),
        m,
        1,
        1,
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::TypeMismatch {
                instr: "Compare",
                param: "src1",
                ..
            }
        ),
        "{e}"
    );
    let e = CmpMaskOp::new(
        p(ChipId::Ascend910B),
        "Compare",
        CmpMode::Lt,
        &a,
        &b,
        m,
        256,
        1,
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::OutOfRange {
                instr: "Compare",
                param: "src0_stride",
                value: 256,
                ..
            }
        ),
        "{e}"
    );
    let e = CmpMaskOp::new(
        p(ChipId::Ascend910B),
        "Compare",
        CmpMode::Lt,
        &a,
        &b,
        MaskArg::Count(65),
        1,
        1,
    )
    .unwrap_err();
    assert!(
        matches!(&e, AscendError::BadMask { instr: "Compare", value, .. } if value == "65"),
        "{e}"
    );
    let e = CmpMaskOp::new(
        p(ChipId::Ascend910B),
        "Compare",
        CmpMode::Lt,
        &gm("src0", F32, 64),
        &b,
        m,
        1,
        1,
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::WrongScope {
                instr: "Compare",
                param: "src0",
                ..
            }
        ),
        "{e}"
    );
    let e = CmpMaskOp::new(
        p(ChipId::Ascend910B),
        "Compare",
        CmpMode::Lt,
        &a,
        &b.at(1),
        m,
        1,
        1,
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::Misaligned {
                instr: "Compare",
                param: "src1",
                ..
            }
        ),
        "{e}"
    );
    // Block stride 2 reads 8 blocks 64 bytes apart: past the 256-byte tensor.
    let e = CmpMaskOp::new(
        p(ChipId::Ascend910B),
        "Compare",
        CmpMode::Lt,
        &a,
        &b,
        m,
        2,
        1,
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::TensorOverflow {
                instr: "Compare",
                param: "src0",
                ..
            }
        ),
        "{e}"
    );
    // isSetMask = false takes MASK_PLACEHOLDER only.
    let e = CmpMaskOp::new_masked(
        p(ChipId::Ascend910B),
        "Compare",
        CmpMode::Lt,
        &a,
        &b,
        m,
        false,
        1,
        1,
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::BadMask {
                instr: "Compare",
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn compare_scalar_rules() {
    let mut t = Tik::new(ChipId::Ascend310);
    let a = t.tensor("float32", &[256], "a", Scope::Ubuf).unwrap();
    let d = t.tensor("uint16", &[16], "d", Scope::Ubuf).unwrap();
    let e = t.vcmpvs_lt(&d, &a, 1.0f64, 1, 1, 8).unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::IllegalType {
                instr: "vcmpvs_lt",
                dtype: F32,
                chip: ChipId::Ascend310,
                ..
            }
        ),
        "{e}"
    );
    let mut t = Tik::new(ChipId::Ascend910B);
    let a = t.tensor("float16", &[256], "a", Scope::Ubuf).unwrap();
    let g = t.tensor("float16", &[256], "g", Scope::Gm).unwrap();
    let d = t.tensor("uint16", &[16], "d", Scope::Ubuf).unwrap();
    let e = t.vcmpvs_gt(&d, &a, 1.0f64, 256, 1, 8).unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::OutOfRange {
                instr: "vcmpvs_gt",
                param: "repeat_times",
                value: 256,
                ..
            }
        ),
        "{e}"
    );
    let e = t.vcmpvs_ge(&d, &g, 1.0f64, 1, 1, 8).unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::WrongScope {
                instr: "vcmpvs_ge",
                param: "src0",
                ..
            }
        ),
        "{e}"
    );
    let e = t.vcmpvs_eq(&d, &a.at(3), 1.0f64, 1, 1, 8).unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::Misaligned {
                instr: "vcmpvs_eq",
                param: "src0",
                ..
            }
        ),
        "{e}"
    );
    // 3 repeats of 128 lanes need 384 sources; the tensor has 256.
    let e = t.vcmpvs_ne(&d, &a, 1.0f64, 3, 1, 8).unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::TensorOverflow {
                instr: "vcmpvs_ne",
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn select_rules() {
    let (d, s0, s1, sel) = (
        ub("dst", F16, 0, 256),
        ub("src0", F16, 512, 256),
        ub("src1", F16, 1024, 256),
        ub("sel", U8, 1536, 32),
    );
    let m = MaskArg::Count(128);
    let mk = |chip: ChipId,
              mode: i64,
              src1: Src1<'_>,
              repeat: i64,
              rep: [i64; 3],
              d: &Operand,
              s0: &Operand| {
        SelectOp::new(
            p(chip),
            "Select",
            mode,
            d,
            &sel,
            s0,
            src1,
            m,
            true,
            repeat,
            [1, 1, 1],
            rep,
        )
    };
    let e = mk(
        ChipId::Ascend910,
        2,
        Src1::Tensor(&s1),
        1,
        [8, 8, 8],
        &d,
        &s0,
    )
    .unwrap_err();
    assert!(
        matches!(&e, AscendError::Rule { instr: "Select", param: "mode", value, .. } if value == "2"),
        "{e}"
    );
    let e = mk(
        ChipId::Ascend910B,
        3,
        Src1::Tensor(&s1),
        1,
        [8, 8, 8],
        &d,
        &s0,
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::OutOfRange {
                instr: "Select",
                param: "mode",
                value: 3,
                ..
            }
        ),
        "{e}"
    );
    let e = mk(
        ChipId::Ascend910B,
        1,
        Src1::Tensor(&s1),
        1,
        [8, 8, 8],
        &d,
        &s0,
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::Rule {
                instr: "Select",
                param: "src1",
                ..
            }
        ),
        "{e}"
    );
    let e = mk(
        ChipId::Ascend910B,
        2,
        Src1::Tensor(&s1),
        256,
        [8, 8, 8],
        &d,
        &s0,
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::OutOfRange {
                instr: "Select",
                param: "repeat_times",
                value: 256,
                ..
            }
        ),
        "{e}"
    );
    let e = mk(
        ChipId::Ascend910B,
        2,
        Src1::Tensor(&s1),
        1,
        [8, 8, 8],
        &ub("dst", U16, 0, 256),
        &s0,
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::IllegalType {
                instr: "Select",
                param: "dst",
                ..
            }
        ),
        "{e}"
    );
    let e = mk(
        ChipId::Ascend910B,
        2,
        Src1::Tensor(&s1),
        1,
        [8, 8, 8],
        &d,
        &gm("src0", F16, 256),
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::WrongScope {
                instr: "Select",
                param: "src0",
                ..
            }
        ),
        "{e}"
    );
    let e = mk(
        ChipId::Ascend910B,
        2,
        Src1::Tensor(&s1),
        1,
        [8, 8, 8],
        &d.at(1),
        &s0,
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::Misaligned {
                instr: "Select",
                param: "dst",
                ..
            }
        ),
        "{e}"
    );
    let e = mk(
        ChipId::Ascend910B,
        2,
        Src1::Tensor(&s1),
        3,
        [8, 8, 8],
        &d,
        &s0,
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::TensorOverflow {
                instr: "Select",
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn whole_and_block_reduce_rules() {
    let (d, s) = (ub("dst", F16, 0, 256), ub("src", F16, 512, 256));
    let m = MaskArg::Count(128);
    for instr in [Instr::WholeReduceMax, Instr::BlockReduceSum] {
        let name = instr.ascendc_name();
        let e = ReduceOp::new(
            p(ChipId::Ascend910B),
            instr,
            name,
            &ub("dst", U16, 0, 256),
            &ub("src", U16, 512, 256),
            m,
            true,
            1,
            1,
            1,
            8,
        )
        .unwrap_err();
        assert!(
            matches!(
                e,
                AscendError::IllegalType {
                    param: "src",
                    dtype: U16,
                    ..
                }
            ),
            "{e}"
        );
        let e = ReduceOp::new(
            p(ChipId::Ascend910B),
            instr,
            name,
            &ub("dst", F32, 0, 64),
            &s,
            m,
            true,
            1,
            1,
            1,
            8,
        )
        .unwrap_err();
        assert!(
            matches!(e, AscendError::TypeMismatch { param: "dst", .. }),
            "{e}"
        );
        let e = ReduceOp::new(
            p(ChipId::Ascend910B),
            instr,
            name,
            &d,
            &s,
            m,
            true,
            256,
            1,
            1,
            8,
        )
        .unwrap_err();
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
        let e = ReduceOp::new(
            p(ChipId::Ascend910B),
            instr,
            name,
            &d,
            &s,
            m,
            true,
            1,
            65536,
            1,
            8,
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
        let e = ReduceOp::new(
            p(ChipId::Ascend910B),
            instr,
            name,
            &d,
            &gm("src", F16, 256),
            m,
            true,
            1,
            1,
            1,
            8,
        )
        .unwrap_err();
        assert!(
            matches!(e, AscendError::WrongScope { param: "src", .. }),
            "{e}"
        );
        let e = ReduceOp::new(
            p(ChipId::Ascend910B),
            instr,
            name,
            &d,
            &s.at(1),
            m,
            true,
            1,
            1,
            1,
            8,
        )
        .unwrap_err();
        assert!(
            matches!(e, AscendError::Misaligned { param: "src", .. }),
            "{e}"
        );
        let e = ReduceOp::new(
            p(ChipId::Ascend910B),
            instr,
            name,
            &d,
            &s,
            MaskArg::Count(129),
            true,
            1,
            1,
            1,
            8,
        )
        .unwrap_err();
        assert!(matches!(e, AscendError::BadMask { .. }), "{e}");
        let e = ReduceOp::new(
            p(ChipId::Ascend910B),
            instr,
            name,
            &d,
            &s,
            m,
            true,
            3,
            1,
            1,
            8,
        )
        .unwrap_err();
        assert!(
            matches!(e, AscendError::TensorOverflow { param: "src", .. }),
            "{e}"
        );
    }
}

#[test]
fn reduce_all_rules() {
    let (d, s) = (ub("dst", F32, 0, 64), ub("src", F32, 512, 256));
    let order = RepeatOrder::Tree;
    // ReduceMax on Atlas training: half only.
    let e = refused(ChipId::Ascend910, |c| {
        reduce_all(c, Instr::ReduceMax, "ReduceMax", &d, &s, 64, 8, order)
    });
    assert!(
        matches!(
            e,
            AscendError::IllegalType {
                instr: "ReduceMax",
                param: "src",
                dtype: F32,
                ..
            }
        ),
        "{e}"
    );
    let e = refused(ChipId::Ascend910B, |c| {
        reduce_all(
            c,
            Instr::ReduceSum,
            "ReduceSum",
            &ub("dst", F16, 0, 64),
            &s,
            64,
            8,
            order,
        )
    });
    assert!(
        matches!(
            e,
            AscendError::TypeMismatch {
                instr: "ReduceSum",
                param: "dst",
                ..
            }
        ),
        "{e}"
    );
    let e = refused(ChipId::Ascend910B, |c| {
        reduce_all(c, Instr::ReduceSum, "ReduceSum", &d, &s, -1, 8, order)
    });
    assert!(
        matches!(
            e,
            AscendError::OutOfRange {
                instr: "ReduceSum",
                param: "count",
                value: -1,
                ..
            }
        ),
        "{e}"
    );
    let e = refused(ChipId::Ascend910B, |c| {
        reduce_all(c, Instr::ReduceSum, "ReduceSum", &d, &s, 64, 65536, order)
    });
    assert!(
        matches!(
            e,
            AscendError::OutOfRange {
                instr: "ReduceSum",
                param: "src_rep_stride",
                value: 65536,
                ..
            }
        ),
        "{e}"
    );
    let e = refused(ChipId::Ascend910B, |c| {
        reduce_all(
            c,
            Instr::ReduceMin,
            "ReduceMin",
            &d,
            &gm("src", F32, 256),
            64,
            8,
            order,
        )
    });
    assert!(
        matches!(
            e,
            AscendError::WrongScope {
                instr: "ReduceMin",
                param: "src",
                ..
            }
        ),
        "{e}"
    );
    let e = refused(ChipId::Ascend910B, |c| {
        reduce_all(c, Instr::ReduceMin, "ReduceMin", &d, &s.at(1), 64, 8, order)
    });
    assert!(
        matches!(
            e,
            AscendError::Misaligned {
                instr: "ReduceMin",
                param: "src",
                ..
            }
        ),
        "{e}"
    );
    let e = refused(ChipId::Ascend910B, |c| {
        reduce_all(c, Instr::ReduceMax, "ReduceMax", &d, &s, 257, 8, order)
    });
    assert!(
        matches!(
            e,
            AscendError::TensorOverflow {
                instr: "ReduceMax",
                param: "src",
                ..
            }
        ),
        "{e}"
    );
    // [value, index] needs two elements of dst.
    let e = refused(ChipId::Ascend910B, |c| {
        reduce_all(
            c,
            Instr::ReduceMax,
            "ReduceMax",
            &ub("dst", F32, 0, 1),
            &s,
            64,
            8,
            order,
        )
    });
    assert!(
        matches!(
            e,
            AscendError::TensorOverflow {
                instr: "ReduceMax",
                param: "dst",
                ..
            }
        ),
        "{e}"
    );
}
