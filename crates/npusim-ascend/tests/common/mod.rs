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
