//! Chip profiles: every behavioural difference between products, as data.
//!
//! Instruction code never asks "which chip is this?"; it reads the policy it needs from the
//! [`ChipProfile`] (capacities, alignment, overflow mode, masked-lane behaviour, ...) or looks the
//! chip's [`ChipId`] up in its own instruction table (legal element types). The products and
//! their differences come from the seed documents' 支持的型号 / Applicability lists and from
//! `shared/research/ascend-vector.md` §1.4, §1.5, §1.7 and `shared/research/pto-isa.md` §2.2.

use crate::convert::OverflowMode;
use crate::memory::{MemSpace, Memory};
use crate::pipe::CostModel;
use crate::tile_policy::TilePolicy;
use std::fmt;

/// The chips npusim models.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ChipId {
    /// Ascend 310: Atlas 200/300/500 inference products.
    Ascend310,
    /// Ascend 910: Atlas training series.
    Ascend910,
    /// Ascend 310P: Atlas inference series (AI Core).
    Ascend310P,
    /// Ascend 910B (A2) and 910C (A3): Atlas A2 training / Atlas 800I A2 inference; PTO `a2a3`.
    Ascend910B,
    /// Ascend 310B: Atlas 200/500 A2 inference products.
    Ascend310B,
    /// Ascend 950 (dav_3510); PTO `a5`.
    Ascend950,
}

impl fmt::Display for ChipId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(ChipProfile::get(*self).name)
    }
}

/// What PairReduceSum (and other pair/block reductions) write for a group whose mask bits are
/// all off.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MaskedGroupPolicy {
    /// The destination element keeps its old value.
    KeepDst,
    /// The destination element is written with zero.
    WriteZero,
}

/// The Ascend vector unit's per-chip behaviour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VectorPolicy {
    /// Float overflow mode of vector arithmetic (CTRL[48]): A2/A3 default to IEEE; 310, 910,
    /// 310P and 310B support only saturation (ascend-vector.md §1.7).
    pub overflow_mode: OverflowMode,
    /// Whether counter mask mode exists; TIK on 310 and 910 treats counter mode as normal mode.
    pub counter_mode: bool,
    /// PairReduceSum with both elements of a pair masked off (seed 001, 注意事项).
    pub pair_reduce_masked_pair: MaskedGroupPolicy,
    /// Whether PairReduceSum accepts dstRepStride = 0 ("Atlas training series does not support
    /// 0", seed 001).
    pub pair_reduce_dst_rep_stride_zero: bool,
}

/// One chip: identity, memories and policies.
#[derive(Clone, Debug, PartialEq)]
pub struct ChipProfile {
    /// Which chip.
    pub id: ChipId,
    /// Short name used on the command line: `ascend910b`.
    pub name: &'static str,
    /// The product line the documents name.
    pub products: &'static str,
    /// Other accepted names (`a2a3`, `910b`, ...).
    pub aliases: &'static [&'static str],
    /// On-chip memory capacities in bytes, per space (global memory is sized by the program).
    pub capacities: &'static [(MemSpace, usize)],
    /// Operand address alignment per space, in bytes.
    pub alignment: &'static [(MemSpace, u64)],
    /// Vector-unit behaviour.
    pub vector: VectorPolicy,
    /// Tile-ISA (PTO) behaviour.
    pub tile: TilePolicy,
    /// The pipes' cost model behind estimated timelines (`--trace`, `--stats`); an estimate,
    /// see [`crate::pipe`].
    pub cost: CostModel,
}

const KIB: usize = 1024;

/// UB 32 B, L1 32 B, L0A/L0B 512 B, L0C 64 B, BT and FB 64 B (Ascend C 通用地址对齐约束).
const ALIGN_ASCEND_C: &[(MemSpace, u64)] = &[
    (MemSpace::Gm, 1),
    (MemSpace::Ub, 32),
    (MemSpace::L1, 32),
    (MemSpace::L0a, 512),
    (MemSpace::L0b, 512),
    (MemSpace::L0c, 64),
    (MemSpace::Bias, 64),
    (MemSpace::Fb, 64),
    (MemSpace::L0aMx, 32),
    (MemSpace::L0bMx, 32),
];

const CAP_CLASSIC: &[(MemSpace, usize)] = &[
    (MemSpace::Ub, 256 * KIB),
    (MemSpace::L1, 1024 * KIB),
    (MemSpace::L0a, 64 * KIB),
    (MemSpace::L0b, 64 * KIB),
    (MemSpace::L0c, 256 * KIB),
];

const CAP_A2A3: &[(MemSpace, usize)] = &[
    (MemSpace::Ub, 192 * KIB),
    (MemSpace::L1, 512 * KIB),
    (MemSpace::L0a, 64 * KIB),
    (MemSpace::L0b, 64 * KIB),
    (MemSpace::L0c, 128 * KIB),
    (MemSpace::Bias, KIB),
    (MemSpace::Fb, 2 * KIB),
];

const CAP_A5: &[(MemSpace, usize)] = &[
    (MemSpace::Ub, 256 * KIB),
    (MemSpace::L1, 512 * KIB),
    (MemSpace::L0a, 64 * KIB),
    (MemSpace::L0b, 64 * KIB),
    (MemSpace::L0c, 256 * KIB),
    (MemSpace::Bias, 4 * KIB),
    (MemSpace::Fb, 4 * KIB),
    // The MX scale buffers (pto-isa `buffer_limits.hpp`: `PTO_SCALELEFT_SIZE_BYTES` and
    // `PTO_SCALERIGHT_SIZE_BYTES`, 4 KiB on A5 and 0 on A2A3; the CPU simulator's `L0A_MX` /
    // `L0B_MX`). The other profiles list none: capacity 0, a `ScaleLeft`/`ScaleRight` tile there
    // is refused when declared.
    (MemSpace::L0aMx, 4 * KIB),
    (MemSpace::L0bMx, 4 * KIB),
];

const SATURATING_CLASSIC: VectorPolicy = VectorPolicy {
    overflow_mode: OverflowMode::Saturate,
    counter_mode: false,
    pair_reduce_masked_pair: MaskedGroupPolicy::KeepDst,
    pair_reduce_dst_rep_stride_zero: true,
};

/// Every profile, in [`ChipId`] order.
pub static PROFILES: [ChipProfile; 6] = [
    ChipProfile {
        id: ChipId::Ascend310,
        name: "ascend310",
        products: "Atlas 200/300/500 inference products (Ascend 310)",
        aliases: &["310", "atlas-inference"],
        capacities: CAP_CLASSIC,
        alignment: ALIGN_ASCEND_C,
        vector: SATURATING_CLASSIC,
        tile: TilePolicy::A2A3_HW,
        cost: CostModel::ILLUSTRATIVE,
    },
    ChipProfile {
        id: ChipId::Ascend910,
        name: "ascend910",
        products: "Atlas training series (Ascend 910)",
        aliases: &["910", "atlas-training"],
        capacities: CAP_CLASSIC,
        alignment: ALIGN_ASCEND_C,
        vector: VectorPolicy {
            pair_reduce_dst_rep_stride_zero: false,
            ..SATURATING_CLASSIC
        },
        tile: TilePolicy::A2A3_HW,
        cost: CostModel::ILLUSTRATIVE,
    },
    ChipProfile {
        id: ChipId::Ascend310P,
        name: "ascend310p",
        products: "Atlas inference series, AI Core (Ascend 310P)",
        aliases: &["310p"],
        capacities: CAP_CLASSIC,
        alignment: ALIGN_ASCEND_C,
        vector: VectorPolicy {
            counter_mode: true,
            ..SATURATING_CLASSIC
        },
        tile: TilePolicy::A2A3_HW,
        cost: CostModel::ILLUSTRATIVE,
    },
    ChipProfile {
        id: ChipId::Ascend910B,
        name: "ascend910b",
        products: "Atlas A2 training / Atlas 800I A2 inference (Ascend 910B); PTO a2a3",
        aliases: &["910b", "a2", "a3", "a2a3", "atlas-a2"],
        capacities: CAP_A2A3,
        alignment: ALIGN_ASCEND_C,
        vector: VectorPolicy {
            overflow_mode: OverflowMode::Ieee,
            counter_mode: true,
            pair_reduce_masked_pair: MaskedGroupPolicy::KeepDst,
            pair_reduce_dst_rep_stride_zero: true,
        },
        tile: TilePolicy::A2A3_HW,
        cost: CostModel::ILLUSTRATIVE,
    },
    ChipProfile {
        id: ChipId::Ascend310B,
        name: "ascend310b",
        products: "Atlas 200/500 A2 inference products (Ascend 310B)",
        aliases: &["310b", "atlas-a2-inference"],
        capacities: CAP_CLASSIC,
        alignment: ALIGN_ASCEND_C,
        vector: VectorPolicy {
            counter_mode: true,
            pair_reduce_masked_pair: MaskedGroupPolicy::WriteZero,
            ..SATURATING_CLASSIC
        },
        tile: TilePolicy::A2A3_HW,
        cost: CostModel::ILLUSTRATIVE,
    },
    ChipProfile {
        id: ChipId::Ascend950,
        name: "ascend950",
        products: "Ascend 950 (dav_3510); PTO a5",
        aliases: &["950", "a5"],
        capacities: CAP_A5,
        alignment: ALIGN_ASCEND_C,
        vector: VectorPolicy {
            overflow_mode: OverflowMode::Ieee,
            counter_mode: true,
            pair_reduce_masked_pair: MaskedGroupPolicy::WriteZero,
            pair_reduce_dst_rep_stride_zero: true,
        },
        tile: TilePolicy::A5_HW,
        cost: CostModel::ILLUSTRATIVE,
    },
];

impl ChipProfile {
    /// The profile of a chip.
    pub fn get(id: ChipId) -> &'static ChipProfile {
        // PROFILES is in ChipId order; the test below holds that.
        &PROFILES[id as usize]
    }

    /// Looks a profile up by name or alias (case-insensitive).
    pub fn by_name(name: &str) -> Option<&'static ChipProfile> {
        let n = name.to_ascii_lowercase();
        PROFILES
            .iter()
            .find(|p| p.name == n || p.aliases.contains(&n.as_str()))
    }

    /// Capacity of a space in bytes, if the chip has it.
    pub fn capacity(&self, space: MemSpace) -> Option<usize> {
        self.capacities
            .iter()
            .find(|(s, _)| *s == space)
            .map(|(_, c)| *c)
    }

    /// Address alignment of a space in bytes (1 when unconstrained).
    pub fn align(&self, space: MemSpace) -> u64 {
        self.alignment
            .iter()
            .find(|(s, _)| *s == space)
            .map_or(1, |(_, a)| *a)
    }

    /// A fresh, zeroed memory for one on-chip space of this chip.
    pub fn new_memory(&self, space: MemSpace) -> Option<Memory> {
        self.capacity(space).map(|c| Memory::new(space, c))
    }

    /// The same chip with another tile policy (e.g. [`TilePolicy::pto_cpu_sim`]).
    pub fn with_tile_policy(&self, tile: TilePolicy) -> ChipProfile {
        ChipProfile {
            tile,
            ..self.clone()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_are_in_id_order_and_findable() {
        for (i, p) in PROFILES.iter().enumerate() {
            assert_eq!(p.id as usize, i);
            assert_eq!(ChipProfile::by_name(p.name).map(|q| q.id), Some(p.id));
        }
        assert_eq!(
            ChipProfile::by_name("A2A3").map(|p| p.id),
            Some(ChipId::Ascend910B)
        );
        assert_eq!(
            ChipProfile::get(ChipId::Ascend910B).capacity(MemSpace::Ub),
            Some(192 * 1024)
        );
        assert_eq!(
            ChipProfile::get(ChipId::Ascend950).capacity(MemSpace::L0c),
            Some(256 * 1024)
        );
    }
}
