//! The instruction set as data: every tile instruction declared once.
//!
//! [`for_each_tile_op!`](crate::for_each_tile_op) holds one row per instruction: its Rust name, its PTO name (the MLIR
//! name is `pto.` + the lower-case name), its operand class, its legal element types on A2A3
//! and on A5 (transcribed from the "Implementation checks" of each `docs/isa/<OP>.md` page of
//! hw-native-sys/pto-isa), its run-time valid-region rule, and its page. The op enum
//! [`OpCode`], the name lookups and the element-type check are derived from that one table.
//! Where a page lists no types for an arch, the row says so in `note`.

use crate::error::{PtoError, type_list};
use npusim_core::{ElemType, TileArch};

/// How an instruction takes its operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Class {
    /// `dst, src`
    Unary,
    /// `dst, src0, src1`
    Binary,
    /// `dst, src0, src1, src2`
    Ternary,
    /// `dst, src, scalar`
    TileScalar,
    /// `dst, src0, scalar, src1`
    TileScalarTile,
    /// `dst, scalar`
    Fill,
    /// `dst, src0, src1` over mismatched valid regions
    Partial,
    /// `dst_val, dst_idx, src0_val, src0_idx, src1_val, src1_idx`
    PartialArg,
    /// `dst, src` reducing each row (to column 0)
    RowReduce,
    /// `dst_idx, src [, dst_val]`
    RowArgReduce,
    /// `dst, src` reducing each column (to row 0)
    ColReduce,
    /// `dst_idx, src [, dst_val]`
    ColArgReduce,
    /// `dst, src` broadcasting column 0 / row 0
    Expand,
    /// `dst, src0, src1` with one operand broadcast per row / per column
    ExpandBinary,
    /// `dst(mask), src0, src1, cmp`
    Compare,
    /// `dst(mask), src, scalar, cmp`
    CompareScalar,
    /// `dst, mask, src0, src1`
    Select,
    /// `dst, mask, src, scalar`
    SelectScalar,
    /// `dst, src, round mode, saturation`
    Convert,
    /// `tile, global tensor`
    Load,
    /// `global tensor, tile`
    Store,
}

/// A run-time valid-region rule of the elementwise families.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ValidRule {
    /// The domain is dst's valid region; sources must only cover it ("assumed compatible").
    Dst,
    /// Every source's valid region must equal dst's.
    Same,
    /// Equal on A2A3; on A5 only the valid columns must be equal (TADDS, TMULS, TMINS).
    SameColsOnA5,
    /// The op defines its own rules (partial, reduce, expand, ...).
    Own,
}

/// One row of the table.
#[derive(Debug)]
pub struct OpInfo {
    pub code: OpCode,
    /// `TADD`
    pub name: &'static str,
    /// `pto.tadd`
    pub mlir: &'static str,
    pub class: Class,
    pub a2a3: &'static [ElemType],
    pub a5: &'static [ElemType],
    pub valid: ValidRule,
    /// The page implemented, relative to hw-native-sys/pto-isa.
    pub page: &'static str,
    /// Where the page is silent or ambiguous, what this crate assumed.
    pub note: &'static str,
}

use ElemType::{Bf16 as BF, F16 as H, F32 as F, I8, I16, I32, I64, U8, U16, U32, U64};

const ALL11: &[ElemType] = &[I32, U32, I64, U64, F, I16, U16, H, BF, U8, I8];
const A2_BASIC: &[ElemType] = &[I32, I16, H, F];
const HF: &[ElemType] = &[H, F];
const INT6: &[ElemType] = &[U8, I8, U16, I16, U32, I32];
const INT8: &[ElemType] = &[U8, I8, U16, I16, U32, I32, U64, I64];
const B124: &[ElemType] = &[I8, U8, I16, U16, I32, U32, H, BF, F];
const EXP_A5: &[ElemType] = &[H, F, I16, I32, U16, U32, BF, I8, U8];
const A5_NOBF: &[ElemType] = &[I32, U32, I64, U64, F, I16, U16, H];

/// The table. Call with a macro that takes the rows
/// `(Variant, "NAME", "pto.name", Class, [a2a3 types], [a5 types], ValidRule, "page", "note")`.
#[macro_export]
macro_rules! for_each_tile_op {
    ($m:ident) => {
        $m! {
            // ---- memory ----
            (Tload, "TLOAD", "pto.tload", Load, ALL11, ALL11, Own, "docs/isa/TLOAD.md", ""),
            (Tstore, "TSTORE", "pto.tstore", Store, ALL11, ALL11, Own, "docs/isa/TSTORE.md", "Vec/Mat tiles; Acc (fixpipe) stores are not modelled"),
            // ---- elementwise tile-tile ----
            (Tadd, "TADD", "pto.tadd", Binary, A2_BASIC, ALL11, Dst, "docs/isa/TADD.md", ""),
            (Tsub, "TSUB", "pto.tsub", Binary, A2_BASIC, ALL11, Same, "docs/isa/TSUB.md", ""),
            (Tmul, "TMUL", "pto.tmul", Binary, A2_BASIC, &[I32, U32, I64, U64, F, I16, U16, H, BF], Same, "docs/isa/TMUL.md", ""),
            (Tdiv, "TDIV", "pto.tdiv", Binary, HF, A5_NOBF, Same, "docs/isa/TDIV.md", ""),
            (Tmin, "TMIN", "pto.tmin", Binary, A2_BASIC, ALL11, Same, "docs/isa/TMIN.md", ""),
            (Tmax, "TMAX", "pto.tmax", Binary, A2_BASIC, ALL11, Same, "docs/isa/TMAX.md", ""),
            (Trem, "TREM", "pto.trem", Binary, &[F, I32], &[H, F, I16, U16, I32, U32, I64, U64], Same, "docs/isa/TREM.md", "tmp operand not modelled"),
            (Tfmod, "TFMOD", "pto.tfmod", Binary, &[F, I32], &[H, F, I16, U16, I32, U32], Dst, "docs/isa/TFMOD.md", "page lists no types; TFMODS's lists (A2A3 float) plus int32 (the page's example), A5 2/4-byte types"),
            (Tpow, "TPOW", "pto.tpow", Binary, &[I32, I16, I8, U32, U16, U8, F], &[U8, I8, U16, I16, U32, I32, H, F, BF], Same, "docs/isa/TPOW.md", ""),
            (Taddc, "TADDC", "pto.taddc", Ternary, A2_BASIC, A2_BASIC, Dst, "docs/isa/TADDC.md", "page lists no types; TADDSC's lists"),
            (Tsubc, "TSUBC", "pto.tsubc", Ternary, A2_BASIC, A2_BASIC, Dst, "docs/isa/TSUBC.md", "page lists no types; TSUBSC's lists"),
            (Tabs, "TABS", "pto.tabs", Unary, HF, &[F, H, I32, I16, I8], Same, "docs/isa/TABS.md", ""),
            (Tneg, "TNEG", "pto.tneg", Unary, A2_BASIC, &[I32, I16, U32, U16, H, F, BF], Dst, "docs/isa/TNEG.md", ""),
            (Texp, "TEXP", "pto.texp", Unary, HF, HF, Same, "docs/isa/TEXP.md", ""),
            (Tlog, "TLOG", "pto.tlog", Unary, HF, HF, Same, "docs/isa/TLOG.md", ""),
            (Tsqrt, "TSQRT", "pto.tsqrt", Unary, HF, HF, Same, "docs/isa/TSQRT.md", ""),
            (Trsqrt, "TRSQRT", "pto.trsqrt", Unary, HF, HF, Same, "docs/isa/TRSQRT.md", ""),
            (Trecip, "TRECIP", "pto.trecip", Unary, A2_BASIC, A2_BASIC, Same, "docs/isa/TRECIP.md", ""),
            (Trelu, "TRELU", "pto.trelu", Unary, &[H, F, I32], &[H, F, I32], Same, "docs/isa/TRELU.md", ""),
            (Tnot, "TNOT", "pto.tnot", Unary, INT6, INT6, Same, "docs/isa/TNOT.md", ""),
            (Tand, "TAND", "pto.tand", Binary, INT6, INT6, Same, "docs/isa/TAND.md", ""),
            (Tor, "TOR", "pto.tor", Binary, INT6, INT6, Same, "docs/isa/TOR.md", ""),
            (Txor, "TXOR", "pto.txor", Binary, INT6, INT6, Same, "docs/isa/TXOR.md", "A2A3 tmp operand not modelled"),
            (Tshl, "TSHL", "pto.tshl", Binary, INT6, INT8, Same, "docs/isa/TSHL.md", ""),
            (Tshr, "TSHR", "pto.tshr", Binary, INT6, INT8, Same, "docs/isa/TSHR.md", ""),
            (Tprelu, "TPRELU", "pto.tprelu", Binary, HF, HF, Same, "docs/isa/TPRELU.md", "A2A3 tmp operand not modelled"),
            (Tmuladddst, "TMULADDDST", "pto.tmuladddst", Binary, HF, HF, Dst, "docs/isa/TMULADDDST.md", ""),
            (Tfusedmuladd, "TFUSEDMULADD", "pto.tfusedmuladd", Binary, HF, HF, Dst, "docs/isa/TFUSEDMULADD.md", ""),
            (Tfusedmuladdrelu, "TFUSEDMULADDRELU", "pto.tfusedmuladdrelu", Binary, HF, HF, Dst, "docs/isa/TFUSEDMULADDRELU.md", ""),
            (Tsubrelu, "TSUBRELU", "pto.tsubrelu", Binary, HF, HF, Dst, "docs/isa/TSUBRELU.md", ""),
            // ---- tile-scalar ----
            (Tadds, "TADDS", "pto.tadds", TileScalar, A2_BASIC, ALL11, SameColsOnA5, "docs/isa/TADDS.md", ""),
            (Tsubs, "TSUBS", "pto.tsubs", TileScalar, A2_BASIC, ALL11, Same, "docs/isa/TSUBS.md", ""),
            (Tmuls, "TMULS", "pto.tmuls", TileScalar, A2_BASIC, &[U16, I16, U32, I32, I64, U64, H, F, BF], SameColsOnA5, "docs/isa/TMULS.md", ""),
            (Tdivs, "TDIVS", "pto.tdivs", TileScalar, A2_BASIC, &[U8, I8, U16, I16, U32, I32, H, F], Same, "docs/isa/TDIVS.md", "scalar/tile form: TileOp args ScalarTile"),
            (Tmaxs, "TMAXS", "pto.tmaxs", TileScalar, A2_BASIC, ALL11, Same, "docs/isa/TMAXS.md", ""),
            (Tmins, "TMINS", "pto.tmins", TileScalar, A2_BASIC, ALL11, SameColsOnA5, "docs/isa/TMINS.md", ""),
            (Trems, "TREMS", "pto.trems", TileScalar, &[F, I32], &[F, I32, U32, I64, U64, H, I16, U16], Same, "docs/isa/TREMS.md", ""),
            (Tfmods, "TFMODS", "pto.tfmods", TileScalar, &[F], &[H, F, I16, U16, I32, U32], Same, "docs/isa/TFMODS.md", "A5: '2- or 4-byte types'"),
            (Tpows, "TPOWS", "pto.tpows", TileScalar, &[I32, I16, I8, U32, U16, U8, F], &[U8, I8, U16, I16, U32, I32, H, F, BF], Same, "docs/isa/TPOWS.md", ""),
            (Tands, "TANDS", "pto.tands", TileScalar, INT6, INT6, Same, "docs/isa/TANDS.md", "page says 'integral types'"),
            (Tors, "TORS", "pto.tors", TileScalar, INT6, INT6, Same, "docs/isa/TORS.md", "page says 'integral types'"),
            (Txors, "TXORS", "pto.txors", TileScalar, INT6, INT6, Same, "docs/isa/TXORS.md", ""),
            (Tshls, "TSHLS", "pto.tshls", TileScalar, &[I32, I16, U32, U16], &[I32, I16, I8, U32, I64, U64, U16, U8], Same, "docs/isa/TSHLS.md", ""),
            (Tshrs, "TSHRS", "pto.tshrs", TileScalar, &[I32, I16, U32, U16], &[I32, I16, I8, U32, I64, U64, U16, U8], Same, "docs/isa/TSHRS.md", ""),
            (Tlrelu, "TLRELU", "pto.tlrelu", TileScalar, HF, HF, Same, "docs/isa/TLRELU.md", ""),
            (Taxpy, "TAXPY", "pto.taxpy", TileScalar, HF, HF, Same, "docs/isa/TAXPY.md", "dst float with src half is allowed"),
            (Texpands, "TEXPANDS", "pto.texpands", Fill, B124, ALL11, Own, "docs/isa/TEXPANDS.md", ""),
            (Taddsc, "TADDSC", "pto.taddsc", TileScalarTile, A2_BASIC, A2_BASIC, Same, "docs/isa/TADDSC.md", ""),
            (Tsubsc, "TSUBSC", "pto.tsubsc", TileScalarTile, A2_BASIC, A2_BASIC, Same, "docs/isa/TSUBSC.md", ""),
            // ---- partial ----
            (Tpartadd, "TPARTADD", "pto.tpartadd", Partial, A2_BASIC, ALL11, Own, "docs/isa/TPARTADD.md", ""),
            (Tpartmul, "TPARTMUL", "pto.tpartmul", Partial, A2_BASIC, &[U8, I8, U16, I16, U32, I32, H, F, BF], Own, "docs/isa/TPARTMUL.md", ""),
            (Tpartmax, "TPARTMAX", "pto.tpartmax", Partial, A2_BASIC, ALL11, Own, "docs/isa/TPARTMAX.md", ""),
            (Tpartmin, "TPARTMIN", "pto.tpartmin", Partial, A2_BASIC, &[I8, U8, I16, U16, I32, U32, H, BF, F], Own, "docs/isa/TPARTMIN.md", ""),
            (Tpartargmax, "TPARTARGMAX", "pto.tpartargmax", PartialArg, HF, HF, Own, "docs/isa/TPARTARGMAX.md", "types of the value tiles; index tiles i16/u16/i32/u32 (float: i32/u32)"),
            (Tpartargmin, "TPARTARGMIN", "pto.tpartargmin", PartialArg, HF, HF, Own, "docs/isa/TPARTARGMIN.md", "types of the value tiles"),
            // ---- row / column reductions ----
            (Trowsum, "TROWSUM", "pto.trowsum", RowReduce, &[H, F, I32, I16], &[H, F, I32, I64, U64, I16], Own, "docs/isa/TROWSUM.md", "tmp operand not modelled"),
            (Trowprod, "TROWPROD", "pto.trowprod", RowReduce, &[H, F, I32, I16], &[H, F, I32, I16], Own, "docs/isa/TROWPROD.md", ""),
            (Trowmax, "TROWMAX", "pto.trowmax", RowReduce, &[H, F, I32, I16], &[H, F, I32, I64, U64, I16, I8, U8], Own, "docs/isa/TROWMAX.md", ""),
            (Trowmin, "TROWMIN", "pto.trowmin", RowReduce, &[H, F, I32, I16], &[H, F, I32, I64, U64, I16, I8, U8], Own, "docs/isa/TROWMIN.md", ""),
            (Trowargmax, "TROWARGMAX", "pto.trowargmax", RowArgReduce, &[H, F, I32, I16], &[H, BF, I16, U16, F, I32, U32], Own, "docs/isa/TROWARGMAX.md", "types of src; dst index u32/i32"),
            (Trowargmin, "TROWARGMIN", "pto.trowargmin", RowArgReduce, &[H, F, I32, I16], &[H, BF, I16, U16, F, I32, U32], Own, "docs/isa/TROWARGMIN.md", "types of src; dst index u32/i32"),
            (Tcolsum, "TCOLSUM", "pto.tcolsum", ColReduce, &[H, F, I16, I32], &[H, F, I8, U8, I16, U16, I32, U32, I64, U64, BF], Own, "docs/isa/TCOLSUM.md", "sequential (isBinary=false) form"),
            (Tcolprod, "TCOLPROD", "pto.tcolprod", ColReduce, &[H, F, I16, I32], &[H, F, BF, I16, U16, I32, U32], Own, "docs/isa/TCOLPROD.md", ""),
            (Tcolmax, "TCOLMAX", "pto.tcolmax", ColReduce, &[H, F, I16, I32], &[H, F, I8, U8, I16, U16, I32, U32, I64, U64, BF], Own, "docs/isa/TCOLMAX.md", ""),
            (Tcolmin, "TCOLMIN", "pto.tcolmin", ColReduce, &[H, F, I16, I32], &[H, F, I8, U8, I16, U16, I32, U32, I64, U64, BF], Own, "docs/isa/TCOLMIN.md", ""),
            (Tcolargmax, "TCOLARGMAX", "pto.tcolargmax", ColArgReduce, &[H, F, U16, U32], &[I8, U8, I16, U16, I32, U32, H, F], Own, "docs/isa/TCOLARGMAX.md", "types of src"),
            (Tcolargmin, "TCOLARGMIN", "pto.tcolargmin", ColArgReduce, &[H, F, U16, U32], &[I8, U8, I16, U16, I32, U32, H, F], Own, "docs/isa/TCOLARGMIN.md", "types of src"),
            // ---- expand ----
            (Trowexpand, "TROWEXPAND", "pto.trowexpand", Expand, B124, ALL11, Own, "docs/isa/TROWEXPAND.md", ""),
            (Trowexpandadd, "TROWEXPANDADD", "pto.trowexpandadd", ExpandBinary, A2_BASIC, EXP_A5, Own, "docs/isa/TROWEXPANDADD.md", ""),
            (Trowexpandsub, "TROWEXPANDSUB", "pto.trowexpandsub", ExpandBinary, A2_BASIC, EXP_A5, Own, "docs/isa/TROWEXPANDSUB.md", ""),
            (Trowexpandmul, "TROWEXPANDMUL", "pto.trowexpandmul", ExpandBinary, A2_BASIC, EXP_A5, Own, "docs/isa/TROWEXPANDMUL.md", ""),
            (Trowexpanddiv, "TROWEXPANDDIV", "pto.trowexpanddiv", ExpandBinary, HF, EXP_A5, Own, "docs/isa/TROWEXPANDDIV.md", ""),
            (Trowexpandmax, "TROWEXPANDMAX", "pto.trowexpandmax", ExpandBinary, A2_BASIC, EXP_A5, Own, "docs/isa/TROWEXPANDMAX.md", ""),
            (Trowexpandmin, "TROWEXPANDMIN", "pto.trowexpandmin", ExpandBinary, A2_BASIC, EXP_A5, Own, "docs/isa/TROWEXPANDMIN.md", ""),
            (Trowexpandexpdif, "TROWEXPANDEXPDIF", "pto.trowexpandexpdif", ExpandBinary, HF, HF, Own, "docs/isa/TROWEXPANDEXPDIF.md", ""),
            (Tcolexpand, "TCOLEXPAND", "pto.tcolexpand", Expand, B124, ALL11, Own, "docs/isa/TCOLEXPAND.md", ""),
            (Tcolexpandadd, "TCOLEXPANDADD", "pto.tcolexpandadd", ExpandBinary, A2_BASIC, EXP_A5, Own, "docs/isa/TCOLEXPANDADD.md", ""),
            (Tcolexpandsub, "TCOLEXPANDSUB", "pto.tcolexpandsub", ExpandBinary, A2_BASIC, EXP_A5, Own, "docs/isa/TCOLEXPANDSUB.md", ""),
            (Tcolexpandmul, "TCOLEXPANDMUL", "pto.tcolexpandmul", ExpandBinary, A2_BASIC, EXP_A5, Own, "docs/isa/TCOLEXPANDMUL.md", ""),
            (Tcolexpanddiv, "TCOLEXPANDDIV", "pto.tcolexpanddiv", ExpandBinary, HF, EXP_A5, Own, "docs/isa/TCOLEXPANDDIV.md", ""),
            (Tcolexpandmax, "TCOLEXPANDMAX", "pto.tcolexpandmax", ExpandBinary, A2_BASIC, EXP_A5, Own, "docs/isa/TCOLEXPANDMAX.md", ""),
            (Tcolexpandmin, "TCOLEXPANDMIN", "pto.tcolexpandmin", ExpandBinary, A2_BASIC, EXP_A5, Own, "docs/isa/TCOLEXPANDMIN.md", ""),
            (Tcolexpandexpdif, "TCOLEXPANDEXPDIF", "pto.tcolexpandexpdif", ExpandBinary, HF, HF, Own, "docs/isa/TCOLEXPANDEXPDIF.md", ""),
            // ---- compare / select / convert ----
            (Tcmp, "TCMP", "pto.tcmp", Compare, &[I32, H, F], ALL11, Own, "docs/isa/TCMP.md", "mask: A2A3 uint8 words, A5 uint32 words, LSB first per row"),
            (Tcmps, "TCMPS", "pto.tcmps", CompareScalar, &[I32, F, H, U16, I16], ALL11, Own, "docs/isa/TCMPS.md", "A2A3 int32 compares with EQ whatever the mode"),
            (Tsel, "TSEL", "pto.tsel", Select, &[I16, U16, I32, U32, H, BF, F], &[I8, U8, I16, U16, I32, U32, I64, U64, H, BF, F], Own, "docs/isa/TSEL.md", ""),
            (Tsels, "TSELS", "pto.tsels", SelectScalar, &[I16, U16, I32, U32, H, BF, F], &[I8, U8, I16, U16, I32, U32, I64, U64, H, F], Own, "docs/isa/TSELS.md", ""),
            (Tcvt, "TCVT", "pto.tcvt", Convert, &[F, H, BF, I16, I32, I64, U8, I8], &[F, H, BF, I16, I32, I64, U8, I8, U32], Own, "docs/isa/TCVT.md", "types of src; pairs per the page's table"),
        }
    };
}

macro_rules! define_ops {
    ($(($v:ident, $name:literal, $mlir:literal, $class:ident, $a2:expr, $a5:expr, $valid:ident, $page:literal, $note:literal)),* $(,)?) => {
        /// Every tile instruction, from the table.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum OpCode { $($v),* }

        /// The table rows, in [`OpCode`] order.
        pub static OPS: &[OpInfo] = &[
            $(OpInfo {
                code: OpCode::$v,
                name: $name,
                mlir: $mlir,
                class: Class::$class,
                a2a3: $a2,
                a5: $a5,
                valid: ValidRule::$valid,
                page: $page,
                note: $note,
            }),*
        ];
    };
}
for_each_tile_op!(define_ops);

impl OpCode {
    /// The table row.
    pub fn info(self) -> &'static OpInfo {
        &OPS[self as usize]
    }
    /// `TADD`
    pub fn name(self) -> &'static str {
        self.info().name
    }
    /// Looks up `TADD` / `tadd` / `pto.tadd`.
    pub fn parse(s: &str) -> Option<OpCode> {
        let s = s.strip_prefix("pto.").unwrap_or(s);
        OPS.iter()
            .find(|i| i.name.eq_ignore_ascii_case(s))
            .map(|i| i.code)
    }
    /// Legal element types on an arch.
    pub fn legal(self, arch: TileArch) -> &'static [ElemType] {
        match arch {
            TileArch::A2A3 => self.info().a2a3,
            TileArch::A5 => self.info().a5,
        }
    }
    /// Checks an operand's element type against the table.
    pub fn check_type(
        self,
        arch: TileArch,
        operand: &'static str,
        t: ElemType,
    ) -> Result<(), PtoError> {
        let legal = self.legal(arch);
        if legal.contains(&t) {
            Ok(())
        } else {
            Err(PtoError::IllegalType {
                op: self.name(),
                operand,
                dtype: t,
                arch: arch_name(arch),
                legal: type_list(legal),
            })
        }
    }
}

/// `a2a3` / `a5`
pub fn arch_name(a: TileArch) -> &'static str {
    match a {
        TileArch::A2A3 => "a2a3",
        TileArch::A5 => "a5",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_consistent() {
        for (i, info) in OPS.iter().enumerate() {
            assert_eq!(info.code as usize, i);
            assert_eq!(info.mlir, format!("pto.{}", info.name.to_ascii_lowercase()));
            assert_eq!(OpCode::parse(info.mlir), Some(info.code));
            assert!(info.page.ends_with(&format!("{}.md", info.name)));
            assert!(!info.a2a3.is_empty() && !info.a5.is_empty());
        }
        assert_eq!(OpCode::parse("tdivs"), Some(OpCode::Tdivs));
        let e = OpCode::Tadd
            .check_type(TileArch::A2A3, "src1", ElemType::I8)
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "TADD: src1 element type int8 is not legal on a2a3 (legal: int32, int16, half, float)"
        );
    }
}
