//! Vector masks: the per-repeat lane mask, counter mode, and the persistent mask register.
//!
//! Implements asc-devkit `SIMD计算说明/掩码/*.md` and the TIK general-definition pages
//! (`shared/research/ascend-vector.md` §1.3):
//! - the mask register is 128 bits, bit i = lane i of a repeat, low bit first; 16-bit types use
//!   all 128 bits, 32-bit types the low 64 (the high word must be 0);
//! - the continuous form `n` sets the low n bits, n in [1, 128] (16-bit) or [1, 64] (32-bit);
//! - TIK's list form is `[mask_h, mask_l]`, Ascend C's array form is `{low, high}`;
//! - in counter mode the low 64 bits are a total element count: the repeat argument is ignored,
//!   the unit runs ceil(count / lanes) iterations and the last one gets a prefix mask;
//! - `isSetMask = false` makes an instruction use whatever the register holds.

use crate::error::{AscendError, Result};

/// How an instruction is told which lanes take part.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MaskArg {
    /// Continuous form: the first `n` lanes of every repeat (a count in counter mode).
    Count(u64),
    /// Bit-wise form: lanes 0..63 in `lo`, 64..127 in `hi`.
    Bits { lo: u64, hi: u64 },
    /// `MASK_PLACEHOLDER`: use the mask register as set by `SetVectorMask`.
    Placeholder,
}

impl MaskArg {
    /// TIK's list form `[mask_h, mask_l]`.
    pub const fn tik_list(mask_h: u64, mask_l: u64) -> MaskArg {
        MaskArg::Bits {
            lo: mask_l,
            hi: mask_h,
        }
    }

    /// Ascend C's array form `uint64_t mask[2] = {low, high}`.
    pub const fn ascendc_array(mask: [u64; 2]) -> MaskArg {
        MaskArg::Bits {
            lo: mask[0],
            hi: mask[1],
        }
    }
}

/// Normal (per-repeat bits) or counter (total count) mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum MaskMode {
    #[default]
    Normal,
    Counter,
}

/// The persistent mask state of a vector core (MASK register and the CTRL mode bit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MaskRegister {
    /// The 128 mask bits (in counter mode the low 64 hold the count).
    pub bits: u128,
    /// The mode bit.
    pub mode: MaskMode,
}

impl Default for MaskRegister {
    /// `InitSocState`: normal mode, full mask.
    fn default() -> Self {
        MaskRegister {
            bits: u128::MAX,
            mode: MaskMode::Normal,
        }
    }
}

/// The lanes an instruction runs on, resolved for one element width.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaneMask {
    /// The same lanes in every repeat.
    Normal(u128),
    /// A total element count over all iterations.
    Counter(u64),
}

impl LaneMask {
    /// How many iterations run for a given `repeat` argument.
    pub fn iterations(self, repeat: u32, lanes: u32) -> u32 {
        match self {
            LaneMask::Normal(_) => repeat,
            LaneMask::Counter(n) => n.div_ceil(lanes as u64).min(u32::MAX as u64) as u32,
        }
    }

    /// The lanes of iteration `r`.
    #[inline]
    pub fn lanes_of(self, r: u32, lanes: u32) -> u128 {
        match self {
            LaneMask::Normal(m) => m,
            LaneMask::Counter(n) => {
                let done = r as u64 * lanes as u64;
                let left = n.saturating_sub(done).min(lanes as u64);
                prefix(left as u32)
            }
        }
    }

    /// True when no lane of any iteration is active.
    pub fn is_empty(self) -> bool {
        matches!(self, LaneMask::Normal(0) | LaneMask::Counter(0))
    }
}

/// The low `n` bits set (n ≤ 128).
#[inline]
pub const fn prefix(n: u32) -> u128 {
    if n >= 128 {
        u128::MAX
    } else {
        (1u128 << n) - 1
    }
}

/// Resolves an instruction's mask argument against the register and the element width.
///
/// `lanes` is the number of lanes of a repeat for the element width (128 for 16-bit, 64 for
/// 32-bit). `is_set_mask` is Ascend C's template flag (always true for TIK).
pub fn resolve(
    instr: &'static str,
    arg: MaskArg,
    lanes: u32,
    is_set_mask: bool,
    register: MaskRegister,
) -> Result<LaneMask> {
    let width_rule_count: &'static str = if lanes == 128 {
        "the continuous mask must be in [1, 128] for 16-bit operands"
    } else {
        "the continuous mask must be in [1, 64] for 32-bit operands"
    };
    match (is_set_mask, arg) {
        (false, MaskArg::Placeholder) => Ok(match register.mode {
            MaskMode::Counter => LaneMask::Counter(register.bits as u64),
            MaskMode::Normal => LaneMask::Normal(register.bits & prefix(lanes)),
        }),
        (false, other) => Err(AscendError::BadMask {
            instr,
            value: format!("{other:?}"),
            rule: "with isSetMask = false the mask argument must be MASK_PLACEHOLDER",
        }),
        (true, MaskArg::Placeholder) => Err(AscendError::BadMask {
            instr,
            value: "MASK_PLACEHOLDER".into(),
            rule: "MASK_PLACEHOLDER needs isSetMask = false",
        }),
        (true, MaskArg::Count(n)) => match register.mode {
            MaskMode::Counter => Ok(LaneMask::Counter(n)),
            MaskMode::Normal => {
                if n == 0 || n > lanes as u64 {
                    Err(AscendError::BadMask {
                        instr,
                        value: n.to_string(),
                        rule: width_rule_count,
                    })
                } else {
                    Ok(LaneMask::Normal(prefix(n as u32)))
                }
            }
        },
        (true, MaskArg::Bits { lo, hi }) => match register.mode {
            MaskMode::Counter => Ok(LaneMask::Counter(lo)),
            MaskMode::Normal => {
                if lanes <= 64 && hi != 0 {
                    return Err(AscendError::BadMask {
                        instr,
                        value: format!("[lo {lo:#x}, hi {hi:#x}]"),
                        rule: "the high 64 bits must be 0 for 32-bit operands",
                    });
                }
                Ok(LaneMask::Normal(
                    ((hi as u128) << 64 | lo as u128) & prefix(lanes),
                ))
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms_and_orders() {
        let reg = MaskRegister::default();
        // Ascend C {8, 0} and TIK [0, 8] both mean "only element 3".
        assert_eq!(
            resolve("t", MaskArg::ascendc_array([8, 0]), 128, true, reg).unwrap(),
            LaneMask::Normal(8)
        );
        assert_eq!(
            resolve("t", MaskArg::tik_list(0, 8), 128, true, reg).unwrap(),
            LaneMask::Normal(8)
        );
        assert_eq!(
            resolve("t", MaskArg::Count(128), 128, true, reg).unwrap(),
            LaneMask::Normal(u128::MAX)
        );
        assert!(resolve("t", MaskArg::Count(65), 64, true, reg).is_err());
        assert!(resolve("t", MaskArg::Count(0), 128, true, reg).is_err());
        assert!(resolve("t", MaskArg::Bits { lo: 1, hi: 1 }, 64, true, reg).is_err());
        assert!(resolve("t", MaskArg::Placeholder, 64, true, reg).is_err());
        assert!(resolve("t", MaskArg::Count(3), 64, false, reg).is_err());
    }

    #[test]
    fn counter_mode_runs_prefix_iterations() {
        // 接口内设置Mask.md: count 130 with half gives 2 repeats of 128 + 2.
        let reg = MaskRegister {
            bits: 130,
            mode: MaskMode::Counter,
        };
        let m = resolve("t", MaskArg::Placeholder, 128, false, reg).unwrap();
        assert_eq!(m.iterations(7, 128), 2);
        assert_eq!(m.lanes_of(0, 128), u128::MAX);
        assert_eq!(m.lanes_of(1, 128), 0b11);
    }
}
