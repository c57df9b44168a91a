//! The Ascend vector instruction set, declared once.
//!
//! [`for_each_vector_instr!`] lists every instruction this crate implements: its identifier,
//! its TIK and Ascend C names, the document it implements, and the element types each chip
//! accepts. The [`Instr`] enum, the name lookups and the type check are all derived from that
//! one table, so adding an instruction or a chip's type list is a one-line change here and
//! nowhere else.

use crate::error::{AscendError, Result};
use npusim_core::{ChipId, ElemType};

use ChipId::{Ascend310, Ascend310B, Ascend310P, Ascend910, Ascend910B, Ascend950};
use ElemType::{F16, F32, I16, I32, U16, U32};

/// Every chip.
const ALL_CHIPS: [ChipId; 6] = [
    Ascend310, Ascend910, Ascend310P, Ascend910B, Ascend310B, Ascend950,
];

/// Element types legal on a set of chips.
pub type TypeRule = (&'static [ChipId], &'static [ElemType]);

/// Invokes `$m!` with the instruction table.
///
/// Columns: identifier, TIK name, Ascend C name, document, then `[chips] => [types]` rules
/// (a chip not named in any rule does not have the instruction).
#[macro_export]
macro_rules! for_each_vector_instr {
    ($m:ident) => {
        $m! {
            VcmpvLt, "vec_cmpv_lt", "Compare(LT)", "TIK vec_cmpv_xx (seed 000); Ascend C Compare",
                [&[Ascend310] => &[F16]], [&[Ascend910, Ascend310P, Ascend910B, Ascend310B, Ascend950] => &[F16, F32]];
            VcmpvGt, "vec_cmpv_gt", "Compare(GT)", "TIK vec_cmpv_xx (seed 000); Ascend C Compare",
                [&[Ascend310] => &[F16]], [&[Ascend910, Ascend310P, Ascend910B, Ascend310B, Ascend950] => &[F16, F32]];
            VcmpvGe, "vec_cmpv_ge", "Compare(GE)", "TIK vec_cmpv_xx (seed 000); Ascend C Compare",
                [&[Ascend310] => &[F16]], [&[Ascend910, Ascend310P, Ascend910B, Ascend310B, Ascend950] => &[F16, F32]];
            VcmpvEq, "vec_cmpv_eq", "Compare(EQ)", "TIK vec_cmpv_xx (seed 000); Ascend C Compare; int32 EQ on A2/A3 (pypto PR #2809)",
                [&[Ascend310] => &[F16]], [&[Ascend910, Ascend310P, Ascend310B, Ascend950] => &[F16, F32]], [&[Ascend910B] => &[F16, F32, I32]];
            VcmpvNe, "vec_cmpv_ne", "Compare(NE)", "TIK vec_cmpv_xx (seed 000); Ascend C Compare",
                [&[Ascend310] => &[F16]], [&[Ascend910, Ascend310P, Ascend910B, Ascend310B, Ascend950] => &[F16, F32]];
            VcmpvLe, "vec_cmpv_le", "Compare(LE)", "TIK vec_cmpv_xx (seed 000); Ascend C Compare",
                [&[Ascend310] => &[F16]], [&[Ascend910, Ascend310P, Ascend910B, Ascend310B, Ascend950] => &[F16, F32]];
            PairReduceSum, "vec_cpadd", "PairReduceSum", "Ascend C PairReduceSum (seed 001)",
                [&[Ascend910] => &[F16]], [&[Ascend310P, Ascend910B, Ascend310B, Ascend950] => &[F16, F32]];
            Duplicate, "vector_dup", "Duplicate", "TIK vector_dup / vec_dup; Ascend C Duplicate",
                [&ALL_CHIPS => &[U16, I16, F16, U32, I32, F32]];
            DataMove, "data_move", "DataCopy", "TIK data_move; Ascend C DataCopy (GM<->UB, UB->UB)",
                [&ALL_CHIPS => &ElemType::ALL];
        }
    };
}

macro_rules! declare_instrs {
    ($( $id:ident, $tik:literal, $ascendc:literal, $doc:literal, $([$chips:expr => $types:expr]),+ ; )*) => {
        /// One vector instruction.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Instr { $( $id, )* }

        impl Instr {
            /// Every instruction, in table order.
            pub const ALL: &'static [Instr] = &[ $( Instr::$id, )* ];

            /// The TIK spelling.
            pub const fn tik_name(self) -> &'static str {
                match self { $( Instr::$id => $tik, )* }
            }

            /// The Ascend C spelling.
            pub const fn ascendc_name(self) -> &'static str {
                match self { $( Instr::$id => $ascendc, )* }
            }

            /// The document the instruction implements.
            pub const fn doc(self) -> &'static str {
                match self { $( Instr::$id => $doc, )* }
            }

            /// The per-chip element-type rules.
            pub fn type_rules(self) -> &'static [TypeRule] {
                match self { $( Instr::$id => &[ $( ($chips, $types) ),+ ], )* }
            }
        }
    };
}

for_each_vector_instr!(declare_instrs);

impl Instr {
    /// The element types `chip` accepts, or `None` when the chip lacks the instruction.
    pub fn legal_types(self, chip: ChipId) -> Option<&'static [ElemType]> {
        self.type_rules()
            .iter()
            .find(|(chips, _)| chips.contains(&chip))
            .map(|(_, types)| *types)
    }

    /// Looks an instruction up by its TIK or Ascend C name.
    pub fn by_name(name: &str) -> Option<Instr> {
        Instr::ALL
            .iter()
            .copied()
            .find(|i| i.tik_name() == name || i.ascendc_name() == name)
    }

    /// Checks that `dtype` is legal for operand `param` on `chip`.
    pub fn check_type(
        self,
        name: &'static str,
        chip: ChipId,
        param: &'static str,
        dtype: ElemType,
    ) -> Result<()> {
        let legal = self
            .legal_types(chip)
            .ok_or(AscendError::NotSupported { instr: name, chip })?;
        if legal.contains(&dtype) {
            Ok(())
        } else {
            Err(AscendError::IllegalType {
                instr: name,
                param,
                dtype,
                chip,
                legal: legal
                    .iter()
                    .map(|t| t.numpy_name())
                    .collect::<Vec<_>>()
                    .join(", "),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_matches_seed_product_lists() {
        // Seed 000: float16 on Atlas 200/300/500 inference, float16/float32 on Atlas training.
        assert_eq!(Instr::VcmpvGt.legal_types(Ascend310), Some(&[F16][..]));
        assert_eq!(Instr::VcmpvGt.legal_types(Ascend910), Some(&[F16, F32][..]));
        // Seed 001: half only on Atlas training, half/float on 310P, A2 and 310B; absent on 310.
        assert_eq!(
            Instr::PairReduceSum.legal_types(Ascend910),
            Some(&[F16][..])
        );
        assert_eq!(
            Instr::PairReduceSum.legal_types(Ascend310B),
            Some(&[F16, F32][..])
        );
        assert_eq!(Instr::PairReduceSum.legal_types(Ascend310), None);
        assert_eq!(Instr::by_name("vec_cmpv_eq"), Some(Instr::VcmpvEq));
        assert_eq!(Instr::by_name("PairReduceSum"), Some(Instr::PairReduceSum));
    }
}
