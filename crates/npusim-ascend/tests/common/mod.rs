//! Setup shared by the Ascend test files: the chip list, the pages' printed numbers, UB
//! operands and MrgSort parameters. Each test file uses the part it needs.
#![allow(dead_code)]

use half::f16;
use npusim_ascend::core::Operand;
use npusim_ascend::sort::MrgSort4Info;
use npusim_core::{ChipId, ElemType, MemSpace};

/// Every chip profile.
pub const CHIPS: [ChipId; 6] = [
    ChipId::Ascend310,
    ChipId::Ascend910,
    ChipId::Ascend310P,
    ChipId::Ascend910B,
    ChipId::Ascend310B,
    ChipId::Ascend950,
];

/// Numbers as a page prints them (whitespace-separated) as f32.
pub fn parse(s: &str) -> Vec<f32> {
    s.split_whitespace().map(|w| w.parse().unwrap()).collect()
}

/// Numbers as a page prints them, rounded to half.
pub fn halves(s: &str) -> Vec<f16> {
    s.split_whitespace()
        .map(|w| f16::from_f32(w.parse().unwrap()))
        .collect()
}

/// A UB tensor of `elems` elements of `t` at byte `base`.
pub fn ub(name: &str, t: ElemType, base: u64, elems: u64) -> Operand {
    ub_bytes(name, t, base, elems * t.size() as u64)
}

/// A UB tensor of `bytes` bytes of `t` at byte `base`.
pub fn ub_bytes(name: &str, t: ElemType, base: u64, bytes: u64) -> Operand {
    Operand {
        tensor: name.into(),
        space: MemSpace::Ub,
        dtype: t,
        tensor_base: base,
        tensor_bytes: bytes,
        offset: 0,
    }
}

/// `MrgSort4Info{elementLengths, ifExhaustedSuspension, validBit, repeatTimes}`.
pub fn info(lens: [u16; 4], stop: bool, valid: u16, repeat: u16) -> MrgSort4Info {
    MrgSort4Info {
        element_lengths: lens,
        if_exhausted_suspension: stop,
        valid_bit: valid,
        repeat_times: repeat,
    }
}

/// The Sort32 page's 128 float scores (src0Gm), as printed (`docs/api/context/Sort32.md`).
pub const SORT32_PAGE_INPUT: &str = "
    7.867878 9.065992 9.374247 1.0911566 9.262053 2.035779 3.747487 2.9315646
    5.237765 5.176559 7.965426 3.2341435 7.203623 1.5736973 3.386001 5.077001
    4.593656 1.8485032 7.8554387 5.1269145 7.223478 8.259627 5.5502934 8.795028
    9.626377 7.7227993 9.505127 6.683293 6.232041 2.1760664 4.504409 2.906819
    9.425597 9.467169 4.990563 4.609341 1.8662999 3.6319377 3.5542917 8.382838
    5.133566 3.1391478 5.244712 9.330158 2.0394793 5.9761605 4.937267 6.076068
    7.5449195 6.5085726 1.8132887 2.5047603 3.3350103 2.7831945 3.0417829 5.0608244
    3.4855423 2.8485715 4.853921 6.364753 3.1402998 6.052516 3.6143537 4.0714087
    6.8068676 8.625871 8.040528 1.9881475 4.618402 7.0302424 6.0751796 5.877218
    9.256125 4.193431 5.2048235 6.9774013 2.8765092 5.8294353 8.618196 8.619784
    3.9252923 4.491909 6.0063663 2.3781579 5.8828945 7.269731 6.1864734 8.32413
    5.2518435 9.184813 7.9312286 3.8841062 8.540505 7.611145 8.204335 2.110103
    4.1796618 7.2383223 3.9992998 4.750733 8.650443 7.6469994 6.6126637 8.993322
    8.920976 7.143699 7.0797443 3.3189814 7.3707795 3.26992 8.58087 5.6882014
    2.0333889 6.711474 4.353861 7.946233 4.5678067 6.3354545 4.092168 2.416961
    3.6823056 4.6000533 2.4727547 4.7993317 1.159995 8.025275 3.3826146 3.8543346
";

/// The Sort32 page's dstGm: 128 (score, index) entries printed as 256 floats (the index 0
/// reads 0.); the MrgSort page merges these 4 lists of 32.
pub const SORT32_PAGE_OUTPUT: &str = "
    9.626377 0. 9.505127 0. 9.374247 0. 9.262053 0.
    9.065992 0. 8.795028 0. 8.259627 0. 7.965426 0.
    7.867878 0. 7.8554387 0. 7.7227993 0. 7.223478 0.
    7.203623 0. 6.683293 0. 6.232041 0. 5.5502934 0.
    5.237765 0. 5.176559 0. 5.1269145 0. 5.077001 0.
    4.593656 0. 4.504409 0. 3.747487 0. 3.386001 0.
    3.2341435 0. 2.9315646 0. 2.906819 0. 2.1760664 0.
    2.035779 0. 1.8485032 0. 1.5736973 0. 1.0911566 0.
    9.467169 0. 9.425597 0. 9.330158 0. 8.382838 0.
    7.5449195 0. 6.5085726 0. 6.364753 0. 6.076068 0.
    6.052516 0. 5.9761605 0. 5.244712 0. 5.133566 0.
    5.0608244 0. 4.990563 0. 4.937267 0. 4.853921 0.
    4.609341 0. 4.0714087 0. 3.6319377 0. 3.6143537 0.
    3.5542917 0. 3.4855423 0. 3.3350103 0. 3.1402998 0.
    3.1391478 0. 3.0417829 0. 2.8485715 0. 2.7831945 0.
    2.5047603 0. 2.0394793 0. 1.8662999 0. 1.8132887 0.
    9.256125 0. 9.184813 0. 8.625871 0. 8.619784 0.
    8.618196 0. 8.540505 0. 8.32413 0. 8.204335 0.
    8.040528 0. 7.9312286 0. 7.611145 0. 7.269731 0.
    7.0302424 0. 6.9774013 0. 6.8068676 0. 6.1864734 0.
    6.0751796 0. 6.0063663 0. 5.8828945 0. 5.877218 0.
    5.8294353 0. 5.2518435 0. 5.2048235 0. 4.618402 0.
    4.491909 0. 4.193431 0. 3.9252923 0. 3.8841062 0.
    2.8765092 0. 2.3781579 0. 2.110103 0. 1.9881475 0.
    8.993322 0. 8.920976 0. 8.650443 0. 8.58087 0.
    8.025275 0. 7.946233 0. 7.6469994 0. 7.3707795 0.
    7.2383223 0. 7.143699 0. 7.0797443 0. 6.711474 0.
    6.6126637 0. 6.3354545 0. 5.6882014 0. 4.7993317 0.
    4.750733 0. 4.6000533 0. 4.5678067 0. 4.353861 0.
    4.1796618 0. 4.092168 0. 3.9992998 0. 3.8543346 0.
    3.6823056 0. 3.3826146 0. 3.3189814 0. 3.26992 0.
    2.4727547 0. 2.416961 0. 2.0333889 0. 1.159995 0.
";

/// Proptest cases per property: `default`, or `PROPTEST_CASES` when it is set (a deeper local
/// run; `ProptestConfig::with_cases` would otherwise override proptest's own reading of it).
pub fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
