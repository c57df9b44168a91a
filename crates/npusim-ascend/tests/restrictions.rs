//! One test per documented restriction: each must give its own typed error naming the
//! instruction, the parameter, the rule and the value.

use half::f16;
use npusim_ascend::AscendError;
use npusim_ascend::ascendc::{AscendC, MASK_PLACEHOLDER};
use npusim_ascend::core::Operand;
use npusim_ascend::tik::{Scope, Tik};
use npusim_core::{ChipId, ElemType, MemSpace, NpyArray};

fn tik_with(chip: ChipId) -> (Tik, Operand, Operand, Operand) {
    let mut tik = Tik::new(chip);
    let a = tik.tensor("float16", &[256], "a", Scope::Ubuf).unwrap();
    let b = tik.tensor("float16", &[256], "b", Scope::Ubuf).unwrap();
    let d = tik.tensor("uint16", &[16], "d", Scope::Ubuf).unwrap();
    (tik, a, b, d)
}

#[test]
fn repeat_out_of_range() {
    let (mut tik, a, b, d) = tik_with(ChipId::Ascend910);
    let e = tik.vec_cmpv_gt(&d, &a, &b, 256, 8, 8).unwrap_err();
    assert_eq!(
        e,
        AscendError::OutOfRange {
            instr: "vec_cmpv_gt",
            param: "repeat_times",
            value: 256,
            range: "[0, 255]"
        }
    );
    assert_eq!(
        e.to_string(),
        "vec_cmpv_gt: repeat_times = 256 is out of range (must be in [0, 255])"
    );
    let mut k = AscendC::new(ChipId::Ascend910B, 1024);
    let s = k.AllocTensor::<f16>("s", 128).unwrap();
    let t = k.AllocTensor::<f16>("t", 64).unwrap();
    let e = k
        .PairReduceSum::<f16, true>(&t, &s, -1, 128u64, 1, 1, 8)
        .unwrap_err();
    assert!(matches!(
        e,
        AscendError::OutOfRange {
            instr: "PairReduceSum",
            param: "repeat",
            value: -1,
            ..
        }
    ));
}

#[test]
fn stride_out_of_range() {
    let (mut tik, a, b, d) = tik_with(ChipId::Ascend910);
    let e = tik.vec_cmpv_eq(&d, &a, &b, 1, 256, 8).unwrap_err();
    assert!(matches!(
        e,
        AscendError::OutOfRange {
            param: "src0_rep_stride",
            value: 256,
            ..
        }
    ));
    let e = tik.vec_cmpv_eq(&d, &a, &b, 1, 8, -1).unwrap_err();
    assert!(matches!(
        e,
        AscendError::OutOfRange {
            param: "src1_rep_stride",
            value: -1,
            ..
        }
    ));
}

#[test]
fn misaligned_operand() {
    let (mut tik, a, b, d) = tik_with(ChipId::Ascend910);
    let e = tik.vec_cmpv_eq(&d, &a.at(1), &b, 1, 8, 8).unwrap_err();
    assert_eq!(
        e,
        AscendError::Misaligned {
            instr: "vec_cmpv_eq",
            param: "src0",
            space: MemSpace::Ub,
            addr: a.addr() + 2,
            align: 32
        }
    );
    assert!(e.to_string().contains("not 32-byte aligned"));
}

#[test]
fn access_past_the_tensor() {
    let (mut tik, a, b, d) = tik_with(ChipId::Ascend910);
    // Three repeats of 8 blocks read 768 bytes of a 512-byte tensor.
    let e = tik.vec_cmpv_eq(&d, &a, &b, 3, 8, 8).unwrap_err();
    assert_eq!(
        e,
        AscendError::TensorOverflow {
            instr: "vec_cmpv_eq",
            param: "dst",
            tensor: "d".into(),
            start: 0,
            end: 48,
            size: 32
        }
    );
    let e = tik.vec_cmpv_eq(&d, &a, &b, 2, 16, 8).unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::TensorOverflow {
                param: "src0",
                end: 768,
                size: 512,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn element_type_not_legal_on_the_chip() {
    // Seed 000: float32 only on Atlas training, not on Atlas 200/300/500 inference.
    let mut tik = Tik::new(ChipId::Ascend310);
    let a = tik.tensor("float32", &[64], "a", Scope::Ubuf).unwrap();
    let d = tik.tensor("uint8", &[32], "d", Scope::Ubuf).unwrap();
    let e = tik.vec_cmpv_lt(&d, &a, &a, 1, 8, 8).unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::IllegalType {
                instr: "vec_cmpv_lt",
                param: "src0",
                dtype: ElemType::F32,
                chip: ChipId::Ascend310,
                ..
            }
        ),
        "{e}"
    );
    // dst must be an unsigned integer view.
    let mut tik = Tik::new(ChipId::Ascend910);
    let a = tik.tensor("float16", &[128], "a", Scope::Ubuf).unwrap();
    let d = tik.tensor("float16", &[16], "d", Scope::Ubuf).unwrap();
    assert!(matches!(
        tik.vec_cmpv_lt(&d, &a, &a, 1, 8, 8),
        Err(AscendError::IllegalType { param: "dst", .. })
    ));
    // Seed 001: PairReduceSum is half-only on Atlas training and absent on Ascend 310.
    let mut k = AscendC::new(ChipId::Ascend910, 1024);
    let s = k.AllocTensor::<f32>("s", 64).unwrap();
    let t = k.AllocTensor::<f32>("t", 32).unwrap();
    let e = k
        .PairReduceSum::<f32, true>(&t, &s, 1, 64u64, 1, 1, 8)
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "PairReduceSum: srcLocal has element type float32, which ascend910 does not support here (legal: float16)"
    );
    let mut k = AscendC::new(ChipId::Ascend310, 1024);
    let s = k.AllocTensor::<f16>("s", 128).unwrap();
    let t = k.AllocTensor::<f16>("t", 64).unwrap();
    assert_eq!(
        k.PairReduceSum::<f16, true>(&t, &s, 1, 128u64, 1, 1, 8)
            .unwrap_err(),
        AscendError::NotSupported {
            instr: "PairReduceSum",
            chip: ChipId::Ascend310
        }
    );
}

#[test]
fn operands_must_share_a_type() {
    let mut tik = Tik::new(ChipId::Ascend910);
    let a = tik.tensor("float16", &[128], "a", Scope::Ubuf).unwrap();
    let b = tik.tensor("float32", &[128], "b", Scope::Ubuf).unwrap();
    let d = tik.tensor("uint16", &[16], "d", Scope::Ubuf).unwrap();
    assert!(matches!(
        tik.vec_cmpv_ne(&d, &a, &b, 1, 8, 8),
        Err(AscendError::TypeMismatch { param: "src1", .. })
    ));
}

#[test]
fn operand_in_the_wrong_scope() {
    let mut tik = Tik::new(ChipId::Ascend910);
    let a = tik.tensor("float16", &[128], "a", Scope::Gm).unwrap();
    let d = tik.tensor("uint16", &[16], "d", Scope::Ubuf).unwrap();
    let e = tik.vec_cmpv_ge(&d, &a, &a, 1, 8, 8).unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::WrongScope {
                param: "src0",
                got: MemSpace::Gm,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn illegal_overlap() {
    // vec_cmpv with several repeats: dst must not overlap a source.
    let mut tik = Tik::new(ChipId::Ascend910);
    let a = tik.tensor("float16", &[512], "a", Scope::Ubuf).unwrap();
    let d = a.clone();
    let d = Operand {
        dtype: ElemType::U16,
        ..d
    };
    let e = tik.vec_cmpv_eq(&d, &a, &a.at(256), 2, 8, 8).unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::IllegalOverlap {
                instr: "vec_cmpv_eq",
                src: "src0",
                ..
            }
        ),
        "{e}"
    );
    // One repeat: allowed (seed 000).
    tik.vec_cmpv_eq(&d, &a, &a.at(256), 1, 8, 8).unwrap();

    // PairReduceSum, one repeat: partial overlap is illegal, full (same start) is fine.
    let mut k = AscendC::new(ChipId::Ascend910B, 1024);
    let s = k.AllocTensor::<f16>("s", 512).unwrap();
    let e = k
        .PairReduceSum::<f16, true>(&s.offset(16), &s, 1, 128u64, 1, 1, 8)
        .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::IllegalOverlap {
                instr: "PairReduceSum",
                ..
            }
        ),
        "{e}"
    );
    k.PairReduceSum::<f16, true>(&s, &s, 1, 128u64, 1, 1, 8)
        .unwrap();
    // Several repeats: the dst of repeat N must not feed repeat N+1.
    let e = k
        .PairReduceSum::<f16, true>(&s.offset(128), &s, 2, 128u64, 1, 1, 8)
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("repeat N must not be a source of repeat N+1"),
        "{e}"
    );
}

#[test]
fn mask_out_of_range() {
    let mut k = AscendC::new(ChipId::Ascend910B, 1024);
    let h = k.AllocTensor::<f16>("h", 128).unwrap();
    let hd = k.AllocTensor::<f16>("hd", 64).unwrap();
    let f = k.AllocTensor::<f32>("f", 64).unwrap();
    let fd = k.AllocTensor::<f32>("fd", 32).unwrap();
    let e = k
        .PairReduceSum::<f16, true>(&hd, &h, 1, 129u64, 1, 1, 8)
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "PairReduceSum: mask 129: the continuous mask must be in [1, 128] for 16-bit operands"
    );
    let e = k
        .PairReduceSum::<f32, true>(&fd, &f, 1, 65u64, 1, 1, 8)
        .unwrap_err();
    assert!(matches!(e, AscendError::BadMask { .. }));
    let e = k
        .PairReduceSum::<f32, true>(&fd, &f, 1, [1u64, 1u64], 1, 1, 8)
        .unwrap_err();
    assert!(
        e.to_string().contains("high 64 bits must be 0 for 32-bit"),
        "{e}"
    );
    let e = k
        .PairReduceSum::<f16, true>(&hd, &h, 1, MASK_PLACEHOLDER, 1, 1, 8)
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("MASK_PLACEHOLDER needs isSetMask = false"),
        "{e}"
    );
    let e = k
        .PairReduceSum::<f16, false>(&hd, &h, 1, 128u64, 1, 1, 8)
        .unwrap_err();
    assert!(e.to_string().contains("must be MASK_PLACEHOLDER"), "{e}");
    let mut tik = Tik::new(ChipId::Ascend910);
    let d = tik.tensor("float16", &[128], "d", Scope::Ubuf).unwrap();
    assert!(matches!(
        tik.vector_dup(0, &d, 1, 1, 1, 8),
        Err(AscendError::BadMask { .. })
    ));
}

#[test]
fn pair_reduce_dst_rep_stride_zero_on_atlas_training() {
    let mut k = AscendC::new(ChipId::Ascend910, 1024);
    let s = k.AllocTensor::<f16>("s", 128).unwrap();
    let t = k.AllocTensor::<f16>("t", 64).unwrap();
    let e = k
        .PairReduceSum::<f16, true>(&t, &s, 1, 128u64, 0, 1, 8)
        .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::Rule {
                instr: "PairReduceSum",
                param: "dstRepStride",
                ..
            }
        ),
        "{e}"
    );
    // Allowed elsewhere.
    let mut k = AscendC::new(ChipId::Ascend910B, 1024);
    let s = k.AllocTensor::<f16>("s", 128).unwrap();
    let t = k.AllocTensor::<f16>("t", 64).unwrap();
    k.PairReduceSum::<f16, true>(&t, &s, 1, 128u64, 0, 1, 8)
        .unwrap();
}

#[test]
fn duplicate_rules() {
    let mut tik = Tik::new(ChipId::Ascend910);
    let d = tik.tensor("int16", &[128], "d", Scope::Ubuf).unwrap();
    let e = tik.vector_dup(128, &d, 1, 1, 0, 8).unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::Rule {
                param: "dst_blk_stride",
                ..
            }
        ),
        "{e}"
    );
    let e = tik.vector_dup(128, &d, 40000, 1, 1, 8).unwrap_err();
    assert!(e.to_string().contains("does not fit"), "{e}");
    let e = tik.vector_dup(128, &d, 1.5, 1, 1, 8).unwrap_err();
    assert!(e.to_string().contains("whole-number"), "{e}");
    let u8t = tik.tensor("uint8", &[256], "u8t", Scope::Ubuf).unwrap();
    assert!(matches!(
        tik.vector_dup(128, &u8t, 1, 1, 1, 8),
        Err(AscendError::IllegalType { .. })
    ));
}

#[test]
fn data_move_rules() {
    let mut tik = Tik::new(ChipId::Ascend910);
    let g = tik.tensor("float16", &[128], "g", Scope::Gm).unwrap();
    let g2 = tik.tensor("float16", &[128], "g2", Scope::Gm).unwrap();
    let u = tik.tensor("float16", &[128], "u", Scope::Ubuf).unwrap();
    assert!(matches!(
        tik.data_move(&u, &g, 0, 0, 8, 0, 0),
        Err(AscendError::OutOfRange {
            param: "nburst",
            value: 0,
            ..
        })
    ));
    assert!(matches!(
        tik.data_move(&u, &g, 0, 1, 9, 0, 0),
        Err(AscendError::TensorOverflow { param: "src", .. })
    ));
    assert!(matches!(
        tik.data_move(&g2, &g, 0, 1, 8, 0, 0),
        Err(AscendError::Rule { .. })
    ));
    assert!(matches!(
        tik.data_move(&u, &g, 16, 1, 8, 0, 0),
        Err(AscendError::OutOfRange { param: "sid", .. })
    ));
}

#[test]
fn allocation_beyond_the_unified_buffer() {
    let mut tik = Tik::new(ChipId::Ascend910B);
    let e = tik
        .tensor("float32", &[48 * 1024 + 1], "big", Scope::Ubuf)
        .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::OutOfMemory {
                space: MemSpace::Ub,
                capacity: 196608,
                ..
            }
        ),
        "{e}"
    );
    assert!(matches!(
        tik.tensor("float64", &[1], "x", Scope::Ubuf),
        Err(AscendError::Rule { .. })
    ));
}

#[test]
fn counter_mode_needs_a_chip_that_has_it() {
    let mut k = AscendC::new(ChipId::Ascend910, 64);
    assert_eq!(
        k.SetMaskCount().unwrap_err(),
        AscendError::NotSupported {
            instr: "SetMaskCount",
            chip: ChipId::Ascend910
        }
    );
}

#[test]
fn feeds_must_match_declarations() {
    let mut tik = Tik::new(ChipId::Ascend910);
    let g = tik.tensor("float16", &[16], "g", Scope::Gm).unwrap();
    tik.build_cce("k", &[&g], &[&g]).unwrap();
    let wrong = NpyArray::from_elems(vec![16], &[0f32; 16]);
    assert!(matches!(
        tik.start_debug(&[("g", &wrong)]),
        Err(AscendError::FeedMismatch { .. })
    ));
    assert!(matches!(
        tik.start_debug(&[]),
        Err(AscendError::FeedMismatch { .. })
    ));
    assert!(matches!(
        tik.start_debug(&[("nope", &wrong)]),
        Err(AscendError::UnknownTensor(_))
    ));
}
