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
    /// `tile, global tensor`: a hint with no architectural effect (operand checks only)
    Prefetch,
    /// `dst, src [, fp | scalar]` between locations, with the fixpipe modes (TMOV)
    Move,
    /// `dst, src, row, col`: a sub-tile read at an offset (TEXTRACT)
    Extract,
    /// `dst, src, row, col`: a sub-tile written at an offset (TINSERT)
    Insert,
    /// `dst, src [, tmp]` (TTRANS; `Args::Unary`, or `Args::TransposeTmp` with the tmp rules,
    /// or `Args::TransposeConv` for ConvTiles: `ops::conv_trans`)
    Transpose,
    /// `dst, start, descending`: an integer sequence in row 0 (TCI)
    Iota,
    /// `dst, diagonal, upper`: a triangular 1/0 mask (TTRI)
    Tri,
    /// `dst, src0, src1`: rows of src0 then src1, column-wise (TCONCAT; `Args::ConcatIdx` for
    /// the indexed forms)
    Concat,
    /// `dst, src`: src's valid region copied, the rest of dst's static shape padded with dst's
    /// pad value (TFILLPAD and its in-place / expand variants)
    FillPad,
    /// `c, a, b` on the cube (TMATMUL, TGEMV)
    Matmul,
    /// `c, c_in, a, b` (TMATMUL_ACC, TGEMV_ACC)
    MatmulAcc,
    /// `c, a, b, bias` (TMATMUL_BIAS, TGEMV_BIAS)
    MatmulBias,
    /// `c, [c_in,] a, a_scale, b, b_scale [, bias]` on the cube with MX scales (TMATMUL_MX,
    /// TGEMV_MX and their ACC/BIAS forms)
    MatmulMx,
    /// `dst, src`: dst rebound to src's scale address (TGET_SCALE_ADDR; returns a tile)
    ScaleAddr,
    /// `tile`: its text (TPRINT; [`crate::TileCore::tprint`])
    Print,
    /// `dst, src, idx [, tmp]`: 32-element blocks sorted into value-index records (TSORT32)
    Sort32,
    /// `dst, src, blockLen` or `dst, tmp, src0..src3, exhausted`: merges of sorted record
    /// lists (TMRGSORT)
    MrgSort,
    /// `dst, src, idx [, tmp]` or `dst, src, mask pattern` (TGATHER)
    Gather,
    /// `dst, src, offset`: 32-byte blocks at byte offsets (TGATHERB)
    GatherB,
    /// `dst, src, idx`: rows scattered by index (TSCATTER)
    Scatter,
    /// `dst, src, scale [, offset]` with the INT8 kind (TQUANT)
    Quant,
    /// `dst, src, scale, offset` (TDEQUANT)
    Dequant,
    /// `dst, src, idx` with the byte (THISTOGRAM)
    Histogram,
    /// `global tensor, Acc tile, fp tile` (TSTORE_FP)
    StoreFp,
    /// `dst, global table, idx`: rows or elements of a GM table by index (MGATHER)
    GmGather,
    /// `global table, src, idx`: rows or elements into a GM table by index (MSCATTER)
    GmScatter,
    /// `dst, key0, key1, counter0..counter3, rounds`: counter-based random words (TRANDOM)
    Random,
    /// `dst, src`: dst a view of src's storage, no data moved (TALIAS)
    Alias,
    /// `dst0, dst1, src0 [, src1]`: per-row interleaves of element pairs (TINTERLEAVE,
    /// TDEINTERLEAVE; ops::interleave)
    Interleave,
    /// `dst, src`: adjacent pairs of each row summed (TPAIRREDUCESUM; ops::interleave)
    PairReduce,
    /// `dst, src0, src1`: add, ReLU and narrowing in one step (TADDRELUCONV; ops::fused)
    AddReluConv,
    /// `dst, src0, src1, deqScale, tmp`: int32 add, dequant scale, ReLU, half (TADDDEQRELU;
    /// ops::fused)
    AddDeqRelu,
    /// `dst(Left), src(Mat feature map), posM, posK` with the convolution config (TIMG2COL;
    /// ops::img2col)
    Img2col,
    /// `dst, src`: each element narrowed to its low-order bytes (TPACK; ops::pack)
    Pack,
    /// `dst, src, fp, row, col`: TEXTRACT / TINSERT from Acc with the fp (Scaling) tile's
    /// per-column quant words (TEXTRACT_FP, TINSERT_FP; ops::movement)
    WindowFp,
    /// No tile result: configuration state for later instructions (SET_QUANT_SCALAR,
    /// SET_QUANT_VECTOR, SETHF32MODE, SETTF32MODE; ops::config)
    Config,
}

/// The operand-form variants a page adds to its class's form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Extra {
    None,
    /// An optional scratch (`tmp`) tile operand, not needed by a functional model.
    Tmp,
    /// A scalar/tile form besides tile/scalar (TDIVS: `dst = scalar / src`).
    ScalarFirst,
}

/// What a row's instruction computes per element, when that is one pure function of
/// [`crate::num`] (`num::add` serves TADD and TADDS): the family handler owns the loop, the
/// checks and the operand form, the row names the rule. `Own` rows have their own handler.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Elem {
    /// `dst = f(src)`
    Unary(&'static str),
    /// `dst = f(src0, src1 | scalar)`
    Binary(&'static str),
    /// `dst = f(src0, src1 | scalar, src2)`
    Ternary(&'static str),
    /// `dst = f(src0, src1, dst)` (the fused forms that read dst)
    BinaryDst(&'static str),
    Own,
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
    /// The operand-form variants the page adds to the class's form.
    pub extra: Extra,
    /// The element function, by name (see [`Elem`]).
    pub elem: Elem,
    pub a2a3: &'static [ElemType],
    pub a5: &'static [ElemType],
    pub valid: ValidRule,
    /// The page implemented, relative to hw-native-sys/pto-isa.
    pub page: &'static str,
    /// Where the page is silent or ambiguous, what this crate assumed.
    pub note: &'static str,
}

use ElemType::{Bf16 as BF, F16 as H, F32 as F, I8, I16, I32, I64, U8, U16, U32, U64};
use ElemType::{F8E4M3FN as E4M3, F8E5M2 as E5M2, F8E8M0 as E8M0, HiF8 as H8};

const ALL11: &[ElemType] = &[I32, U32, I64, U64, F, I16, U16, H, BF, U8, I8];
const A2_BASIC: &[ElemType] = &[I32, I16, H, F];
const HF: &[ElemType] = &[H, F];
const INT6: &[ElemType] = &[U8, I8, U16, I16, U32, I32];
const INT8: &[ElemType] = &[U8, I8, U16, I16, U32, I32, U64, I64];
const B124: &[ElemType] = &[I8, U8, I16, U16, I32, U32, H, BF, F];
const EXP_A5: &[ElemType] = &[H, F, I16, I32, U16, U32, BF, I8, U8];
const A5_NOBF: &[ElemType] = &[I32, U32, I64, U64, F, I16, U16, H];
const MM_IN: &[ElemType] = &[I8, H, BF, F];
/// The A5 MX inputs (`float8_e4m3_t`, `float8_e5m2_t`, and the packed fp4 pairs
/// `float4_e2m1x2_t`, `float4_e1m2x2_t`: two values per byte along K, see `ops::mx`).
const MX_IN: &[ElemType] = &[E4M3, E5M2, ElemType::F4E2M1X2, ElemType::F4E1M2X2];
/// ALL11 plus the A5's 1-byte floats (`float8_e4m3_t`, `float8_e5m2_t`, `hifloat8_t`,
/// `float8_e8m0_t`; the packed fp4 pairs are in A5_LS_FP4).
const A5_LS: &[ElemType] = &[
    I32, U32, I64, U64, F, I16, U16, H, BF, U8, I8, E4M3, E5M2, H8, E8M0,
];
/// A5_LS plus the packed fp4 pairs (`float4_e2m1x2_t`, `float4_e1m2x2_t`: one byte, two
/// codes), which TLOAD and TSTORE move as bytes (pto-isa's A5 `PadValueMap` pads them with 0
/// whatever the pad value).
const A5_LS_FP4: &[ElemType] = &[
    I32,
    U32,
    I64,
    U64,
    F,
    I16,
    U16,
    H,
    BF,
    U8,
    I8,
    E4M3,
    E5M2,
    H8,
    E8M0,
    ElemType::F4E2M1X2,
    ElemType::F4E1M2X2,
];

/// The table: the only list of tile instructions. Call with a macro that takes the rows
/// `(Variant Alias, "NAME", "pto.name", Class, tmp|st|-, (elem), [a2a3 types], [a5 types],
/// ValidRule, "page", "note")`:
/// - `Variant` names the [`OpCode`]; `Alias` is the PTO-AS face's spelling (`TAdd`);
/// - `tmp` when the page gives an optional scratch tile operand, `st` when it has a
///   scalar/tile form besides tile/scalar, `-` otherwise;
/// - `(elem)` is the element rule: `(e1 D f)` unary, `(e1z D f)` unary whose integer source
///   must not hold 0, `(e2 D f)` binary or tile-scalar, `(e2z D f)` whose second operand must
///   not be an integer 0, `(e2n D f)` whose scalar must not be negative, `(e3 D f)` ternary or
///   tile-scalar-tile, `(e2d D f)` binary that also reads dst; `D` is the element-type domain
///   (`all`, `float`, `int`) and `f` the pure function `crate::num::f`; `(own)` when the
///   family has its own handler. Adding an elementwise instruction is one row here (plus
///   `num::f` when its rule is new): the handlers are derived from these rows.
#[macro_export]
macro_rules! for_each_tile_op {
    ($m:ident) => {
        $m! {
            // ---- memory ----
            (Tload TLoad, "TLOAD", "pto.tload", Load, -, (own), ALL11, A5_LS_FP4, Own, "docs/isa/TLOAD.md", "A5: any 1/2/4/8-byte type; fp8 pad Max/Min: +-inf where the format has one, else +-max; packed fp4 pads with 0 (pto-isa PadValueMap)"),
            (Tstore TStore, "TSTORE", "pto.tstore", Store, -, (own), ALL11, A5_LS_FP4, Own, "docs/isa/TSTORE.md", "Vec/Mat tiles; Acc through the fixpipe (float -> half/bfloat16 narrowing, no quant modes)"),
            // ---- elementwise tile-tile ----
            (Tadd TAdd, "TADD", "pto.tadd", Binary, -, (e2 all add), A2_BASIC, ALL11, Dst, "docs/isa/TADD.md", ""),
            (Tsub TSub, "TSUB", "pto.tsub", Binary, -, (e2 all sub), A2_BASIC, ALL11, Same, "docs/isa/TSUB.md", ""),
            (Tmul TMul, "TMUL", "pto.tmul", Binary, -, (e2 all mul), A2_BASIC, &[I32, U32, I64, U64, F, I16, U16, H, BF], Same, "docs/isa/TMUL.md", ""),
            (Tdiv TDiv, "TDIV", "pto.tdiv", Binary, -, (e2z all div), HF, A5_NOBF, Same, "docs/isa/TDIV.md", ""),
            (Tmin TMin, "TMIN", "pto.tmin", Binary, -, (e2 all min), A2_BASIC, ALL11, Same, "docs/isa/TMIN.md", ""),
            (Tmax TMax, "TMAX", "pto.tmax", Binary, -, (e2 all max), A2_BASIC, ALL11, Same, "docs/isa/TMAX.md", ""),
            (Trem TRem, "TREM", "pto.trem", Binary, tmp, (e2z all rem), &[F, I32], &[H, F, I16, U16, I32, U32, I64, U64], Same, "docs/isa/TREM.md", "tmp operand not modelled"),
            (Tfmod TFmod, "TFMOD", "pto.tfmod", Binary, tmp, (e2z all fmod), &[F, I32], &[H, F, I16, U16, I32, U32], Dst, "docs/isa/TFMOD.md", "page lists no types; TFMODS's lists (A2A3 float) plus int32 (the page's example), A5 2/4-byte types"),
            (Tpow TPow, "TPOW", "pto.tpow", Binary, tmp, (e2 all pow), &[I32, I16, I8, U32, U16, U8, F], &[U8, I8, U16, I16, U32, I32, H, F, BF], Same, "docs/isa/TPOW.md", ""),
            (Taddc TAddC, "TADDC", "pto.taddc", Ternary, -, (e3 all add3), A2_BASIC, A2_BASIC, Dst, "docs/isa/TADDC.md", "page lists no types; TADDSC's lists"),
            (Tsubc TSubC, "TSUBC", "pto.tsubc", Ternary, -, (e3 all sub3), A2_BASIC, A2_BASIC, Dst, "docs/isa/TSUBC.md", "page lists no types; TSUBSC's lists"),
            (Tabs TAbs, "TABS", "pto.tabs", Unary, -, (e1 all abs), HF, &[F, H, I32, I16, I8], Same, "docs/isa/TABS.md", ""),
            (Tneg TNeg, "TNEG", "pto.tneg", Unary, -, (e1 all neg), A2_BASIC, &[I32, I16, U32, U16, H, F, BF], Dst, "docs/isa/TNEG.md", ""),
            (Texp TExp, "TEXP", "pto.texp", Unary, -, (e1 float exp), HF, HF, Same, "docs/isa/TEXP.md", ""),
            (Tlog TLog, "TLOG", "pto.tlog", Unary, -, (e1 float log), HF, HF, Same, "docs/isa/TLOG.md", ""),
            (Tsqrt TSqrt, "TSQRT", "pto.tsqrt", Unary, -, (e1 float sqrt), HF, HF, Same, "docs/isa/TSQRT.md", ""),
            (Trsqrt TRsqrt, "TRSQRT", "pto.trsqrt", Unary, tmp, (e1 float rsqrt), HF, HF, Same, "docs/isa/TRSQRT.md", ""),
            (Trecip TRecip, "TRECIP", "pto.trecip", Unary, -, (e1z all recip), A2_BASIC, A2_BASIC, Same, "docs/isa/TRECIP.md", ""),
            (Trelu TRelu, "TRELU", "pto.trelu", Unary, -, (e1 all relu), &[H, F, I32], &[H, F, I32], Same, "docs/isa/TRELU.md", ""),
            (Tnot TNot, "TNOT", "pto.tnot", Unary, -, (e1 int not), INT6, INT6, Same, "docs/isa/TNOT.md", ""),
            (Tand TAnd, "TAND", "pto.tand", Binary, -, (e2 int and), INT6, INT6, Same, "docs/isa/TAND.md", ""),
            (Tor TOr, "TOR", "pto.tor", Binary, -, (e2 int or), INT6, INT6, Same, "docs/isa/TOR.md", ""),
            (Txor TXor, "TXOR", "pto.txor", Binary, tmp, (e2 int xor), INT6, INT6, Same, "docs/isa/TXOR.md", "A2A3 tmp operand not modelled"),
            (Tshl TShl, "TSHL", "pto.tshl", Binary, -, (e2 int shl), INT6, INT8, Same, "docs/isa/TSHL.md", ""),
            (Tshr TShr, "TSHR", "pto.tshr", Binary, -, (e2 int shr), INT6, INT8, Same, "docs/isa/TSHR.md", ""),
            (Tprelu TPrelu, "TPRELU", "pto.tprelu", Binary, tmp, (e2 float lrelu), HF, HF, Same, "docs/isa/TPRELU.md", "A2A3 tmp operand not modelled"),
            (Tmuladddst TMulAddDst, "TMULADDDST", "pto.tmuladddst", Binary, -, (e2d float muladd), HF, HF, Dst, "docs/isa/TMULADDDST.md", ""),
            (Tfusedmuladd TFusedMulAdd, "TFUSEDMULADD", "pto.tfusedmuladd", Binary, -, (e2d float mul_dst_add), HF, HF, Dst, "docs/isa/TFUSEDMULADD.md", ""),
            (Tfusedmuladdrelu TFusedMulAddRelu, "TFUSEDMULADDRELU", "pto.tfusedmuladdrelu", Binary, -, (e2d float mul_dst_add_relu), HF, HF, Dst, "docs/isa/TFUSEDMULADDRELU.md", ""),
            (Tsubrelu TSubRelu, "TSUBRELU", "pto.tsubrelu", Binary, -, (e2 float subrelu), HF, HF, Dst, "docs/isa/TSUBRELU.md", ""),
            // ---- tile-scalar ----
            (Tadds TAddS, "TADDS", "pto.tadds", TileScalar, -, (e2 all add), A2_BASIC, ALL11, SameColsOnA5, "docs/isa/TADDS.md", ""),
            (Tsubs TSubS, "TSUBS", "pto.tsubs", TileScalar, -, (e2 all sub), A2_BASIC, ALL11, Same, "docs/isa/TSUBS.md", ""),
            (Tmuls TMulS, "TMULS", "pto.tmuls", TileScalar, -, (e2 all mul), A2_BASIC, &[U16, I16, U32, I32, I64, U64, H, F, BF], SameColsOnA5, "docs/isa/TMULS.md", ""),
            (Tdivs TDivS, "TDIVS", "pto.tdivs", TileScalar, st, (e2z all divs), A2_BASIC, &[U8, I8, U16, I16, U32, I32, H, F], Same, "docs/isa/TDIVS.md", "scalar/tile form: TileOp args ScalarTile"),
            (Tmaxs TMaxS, "TMAXS", "pto.tmaxs", TileScalar, -, (e2 all max), A2_BASIC, ALL11, Same, "docs/isa/TMAXS.md", ""),
            (Tmins TMinS, "TMINS", "pto.tmins", TileScalar, -, (e2 all min), A2_BASIC, ALL11, SameColsOnA5, "docs/isa/TMINS.md", ""),
            (Trems TRemS, "TREMS", "pto.trems", TileScalar, tmp, (e2z all rem), &[F, I32], &[F, I32, U32, I64, U64, H, I16, U16], Same, "docs/isa/TREMS.md", ""),
            (Tfmods TFmodS, "TFMODS", "pto.tfmods", TileScalar, tmp, (e2z all fmod), &[F], &[H, F, I16, U16, I32, U32], Same, "docs/isa/TFMODS.md", "A5: '2- or 4-byte types'"),
            (Tpows TPowS, "TPOWS", "pto.tpows", TileScalar, tmp, (e2 all pow), &[I32, I16, I8, U32, U16, U8, F], &[U8, I8, U16, I16, U32, I32, H, F, BF], Same, "docs/isa/TPOWS.md", ""),
            (Tands TAndS, "TANDS", "pto.tands", TileScalar, -, (e2 int and), INT6, INT6, Same, "docs/isa/TANDS.md", "page says 'integral types'"),
            (Tors TOrS, "TORS", "pto.tors", TileScalar, -, (e2 int or), INT6, INT6, Same, "docs/isa/TORS.md", "page says 'integral types'"),
            (Txors TXorS, "TXORS", "pto.txors", TileScalar, tmp, (e2 int xor), INT6, INT6, Same, "docs/isa/TXORS.md", ""),
            (Tshls TShlS, "TSHLS", "pto.tshls", TileScalar, -, (e2n int shl), &[I32, I16, U32, U16], &[I32, I16, I8, U32, I64, U64, U16, U8], Same, "docs/isa/TSHLS.md", ""),
            (Tshrs TShrS, "TSHRS", "pto.tshrs", TileScalar, -, (e2n int shr), &[I32, I16, U32, U16], &[I32, I16, I8, U32, I64, U64, U16, U8], Same, "docs/isa/TSHRS.md", ""),
            (Tlrelu TLRelu, "TLRELU", "pto.tlrelu", TileScalar, -, (e2 float lrelu), HF, HF, Same, "docs/isa/TLRELU.md", ""),
            (Taxpy TAxpy, "TAXPY", "pto.taxpy", TileScalar, -, (own), HF, HF, Same, "docs/isa/TAXPY.md", "dst float with src half is allowed"),
            (Texpands TExpandS, "TEXPANDS", "pto.texpands", Fill, -, (own), B124, ALL11, Own, "docs/isa/TEXPANDS.md", ""),
            (Taddsc TAddSC, "TADDSC", "pto.taddsc", TileScalarTile, -, (e3 all add3), A2_BASIC, A2_BASIC, Same, "docs/isa/TADDSC.md", ""),
            (Tsubsc TSubSC, "TSUBSC", "pto.tsubsc", TileScalarTile, -, (e3 all sub3), A2_BASIC, A2_BASIC, Same, "docs/isa/TSUBSC.md", ""),
            // ---- partial ----
            (Tpartadd TPartAdd, "TPARTADD", "pto.tpartadd", Partial, -, (own), A2_BASIC, ALL11, Own, "docs/isa/TPARTADD.md", ""),
            (Tpartmul TPartMul, "TPARTMUL", "pto.tpartmul", Partial, -, (own), A2_BASIC, &[U8, I8, U16, I16, U32, I32, H, F, BF], Own, "docs/isa/TPARTMUL.md", ""),
            (Tpartmax TPartMax, "TPARTMAX", "pto.tpartmax", Partial, -, (own), A2_BASIC, ALL11, Own, "docs/isa/TPARTMAX.md", ""),
            (Tpartmin TPartMin, "TPARTMIN", "pto.tpartmin", Partial, -, (own), A2_BASIC, &[I8, U8, I16, U16, I32, U32, H, BF, F], Own, "docs/isa/TPARTMIN.md", ""),
            (Tpartargmax TPartArgMax, "TPARTARGMAX", "pto.tpartargmax", PartialArg, -, (own), HF, HF, Own, "docs/isa/TPARTARGMAX.md", "types of the value tiles; index tiles i16/u16/i32/u32 (float: i32/u32)"),
            (Tpartargmin TPartArgMin, "TPARTARGMIN", "pto.tpartargmin", PartialArg, -, (own), HF, HF, Own, "docs/isa/TPARTARGMIN.md", "types of the value tiles"),
            // ---- row / column reductions ----
            (Trowsum TRowSum, "TROWSUM", "pto.trowsum", RowReduce, -, (own), &[H, F, I32, I16], &[H, F, I32, I64, U64, I16], Own, "docs/isa/TROWSUM.md", "tmp operand not modelled"),
            (Trowprod TRowProd, "TROWPROD", "pto.trowprod", RowReduce, -, (own), &[H, F, I32, I16], &[H, F, I32, I16], Own, "docs/isa/TROWPROD.md", ""),
            (Trowmax TRowMax, "TROWMAX", "pto.trowmax", RowReduce, -, (own), &[H, F, I32, I16], &[H, F, I32, I64, U64, I16, I8, U8], Own, "docs/isa/TROWMAX.md", ""),
            (Trowmin TRowMin, "TROWMIN", "pto.trowmin", RowReduce, -, (own), &[H, F, I32, I16], &[H, F, I32, I64, U64, I16, I8, U8], Own, "docs/isa/TROWMIN.md", ""),
            (Trowargmax TRowArgMax, "TROWARGMAX", "pto.trowargmax", RowArgReduce, -, (own), &[H, F, I32, I16], &[H, BF, I16, U16, F, I32, U32], Own, "docs/isa/TROWARGMAX.md", "types of src; dst index u32/i32"),
            (Trowargmin TRowArgMin, "TROWARGMIN", "pto.trowargmin", RowArgReduce, -, (own), &[H, F, I32, I16], &[H, BF, I16, U16, F, I32, U32], Own, "docs/isa/TROWARGMIN.md", "types of src; dst index u32/i32"),
            (Tcolsum TColSum, "TCOLSUM", "pto.tcolsum", ColReduce, -, (own), &[H, F, I16, I32], &[H, F, I8, U8, I16, U16, I32, U32, I64, U64, BF], Own, "docs/isa/TCOLSUM.md", "sequential (isBinary=false) form"),
            (Tcolprod TColProd, "TCOLPROD", "pto.tcolprod", ColReduce, -, (own), &[H, F, I16, I32], &[H, F, BF, I16, U16, I32, U32], Own, "docs/isa/TCOLPROD.md", ""),
            (Tcolmax TColMax, "TCOLMAX", "pto.tcolmax", ColReduce, -, (own), &[H, F, I16, I32], &[H, F, I8, U8, I16, U16, I32, U32, I64, U64, BF], Own, "docs/isa/TCOLMAX.md", ""),
            (Tcolmin TColMin, "TCOLMIN", "pto.tcolmin", ColReduce, -, (own), &[H, F, I16, I32], &[H, F, I8, U8, I16, U16, I32, U32, I64, U64, BF], Own, "docs/isa/TCOLMIN.md", ""),
            (Tcolargmax TColArgMax, "TCOLARGMAX", "pto.tcolargmax", ColArgReduce, -, (own), &[H, F, U16, U32], &[I8, U8, I16, U16, I32, U32, H, F], Own, "docs/isa/TCOLARGMAX.md", "types of src"),
            (Tcolargmin TColArgMin, "TCOLARGMIN", "pto.tcolargmin", ColArgReduce, -, (own), &[H, F, U16, U32], &[I8, U8, I16, U16, I32, U32, H, F], Own, "docs/isa/TCOLARGMIN.md", "types of src"),
            // ---- expand ----
            (Trowexpand TRowExpand, "TROWEXPAND", "pto.trowexpand", Expand, -, (own), B124, ALL11, Own, "docs/isa/TROWEXPAND.md", ""),
            (Trowexpandadd TRowExpandAdd, "TROWEXPANDADD", "pto.trowexpandadd", ExpandBinary, -, (own), A2_BASIC, EXP_A5, Own, "docs/isa/TROWEXPANDADD.md", ""),
            (Trowexpandsub TRowExpandSub, "TROWEXPANDSUB", "pto.trowexpandsub", ExpandBinary, -, (own), A2_BASIC, EXP_A5, Own, "docs/isa/TROWEXPANDSUB.md", ""),
            (Trowexpandmul TRowExpandMul, "TROWEXPANDMUL", "pto.trowexpandmul", ExpandBinary, -, (own), A2_BASIC, EXP_A5, Own, "docs/isa/TROWEXPANDMUL.md", ""),
            (Trowexpanddiv TRowExpandDiv, "TROWEXPANDDIV", "pto.trowexpanddiv", ExpandBinary, -, (own), HF, EXP_A5, Own, "docs/isa/TROWEXPANDDIV.md", ""),
            (Trowexpandmax TRowExpandMax, "TROWEXPANDMAX", "pto.trowexpandmax", ExpandBinary, -, (own), A2_BASIC, EXP_A5, Own, "docs/isa/TROWEXPANDMAX.md", ""),
            (Trowexpandmin TRowExpandMin, "TROWEXPANDMIN", "pto.trowexpandmin", ExpandBinary, -, (own), A2_BASIC, EXP_A5, Own, "docs/isa/TROWEXPANDMIN.md", ""),
            (Trowexpandexpdif TRowExpandExpDif, "TROWEXPANDEXPDIF", "pto.trowexpandexpdif", ExpandBinary, -, (own), HF, HF, Own, "docs/isa/TROWEXPANDEXPDIF.md", ""),
            (Tcolexpand TColExpand, "TCOLEXPAND", "pto.tcolexpand", Expand, -, (own), B124, ALL11, Own, "docs/isa/TCOLEXPAND.md", ""),
            (Tcolexpandadd TColExpandAdd, "TCOLEXPANDADD", "pto.tcolexpandadd", ExpandBinary, -, (own), A2_BASIC, EXP_A5, Own, "docs/isa/TCOLEXPANDADD.md", ""),
            (Tcolexpandsub TColExpandSub, "TCOLEXPANDSUB", "pto.tcolexpandsub", ExpandBinary, -, (own), A2_BASIC, EXP_A5, Own, "docs/isa/TCOLEXPANDSUB.md", ""),
            (Tcolexpandmul TColExpandMul, "TCOLEXPANDMUL", "pto.tcolexpandmul", ExpandBinary, -, (own), A2_BASIC, EXP_A5, Own, "docs/isa/TCOLEXPANDMUL.md", ""),
            (Tcolexpanddiv TColExpandDiv, "TCOLEXPANDDIV", "pto.tcolexpanddiv", ExpandBinary, -, (own), HF, EXP_A5, Own, "docs/isa/TCOLEXPANDDIV.md", ""),
            (Tcolexpandmax TColExpandMax, "TCOLEXPANDMAX", "pto.tcolexpandmax", ExpandBinary, -, (own), A2_BASIC, EXP_A5, Own, "docs/isa/TCOLEXPANDMAX.md", ""),
            (Tcolexpandmin TColExpandMin, "TCOLEXPANDMIN", "pto.tcolexpandmin", ExpandBinary, -, (own), A2_BASIC, EXP_A5, Own, "docs/isa/TCOLEXPANDMIN.md", ""),
            (Tcolexpandexpdif TColExpandExpDif, "TCOLEXPANDEXPDIF", "pto.tcolexpandexpdif", ExpandBinary, -, (own), HF, HF, Own, "docs/isa/TCOLEXPANDEXPDIF.md", ""),
            // ---- compare / select / convert ----
            (Tcmp TCmp, "TCMP", "pto.tcmp", Compare, -, (own), &[I32, H, F], ALL11, Own, "docs/isa/TCMP.md", "mask: A2A3 uint8 words, A5 uint32 words, LSB first per row"),
            (Tcmps TCmpS, "TCMPS", "pto.tcmps", CompareScalar, -, (own), &[I32, F, H, U16, I16], ALL11, Own, "docs/isa/TCMPS.md", "A2A3 int32 compares with EQ whatever the mode"),
            (Tsel TSel, "TSEL", "pto.tsel", Select, -, (own), &[I16, U16, I32, U32, H, BF, F], &[I8, U8, I16, U16, I32, U32, I64, U64, H, BF, F], Own, "docs/isa/TSEL.md", ""),
            (Tsels TSelS, "TSELS", "pto.tsels", SelectScalar, -, (own), &[I16, U16, I32, U32, H, BF, F], &[I8, U8, I16, U16, I32, U32, I64, U64, H, F], Own, "docs/isa/TSELS.md", ""),
            (Tcvt TCvt, "TCVT", "pto.tcvt", Convert, -, (own), &[F, H, BF, I16, I32, I64, U8, I8], &[F, H, BF, I16, I32, I64, U8, I8, U32, E4M3, E5M2, H8], Own, "docs/isa/TCVT.md", "types of src; pairs per the page's table; into hifloat8 always rounds half away (A5 ROUND_A); the packed fp4 pairs (A5 bf16 <-> float4_e2m1x2_t / float4_e1m2x2_t) are ops::fp4's"),
            // ---- not modelled yet: rows so that every front end knows the instruction ----
            (Tprefetch TPrefetch, "TPREFETCH", "pto.tprefetch", Prefetch, -, (own), ALL11, A5_LS_FP4, Own, "docs/isa/TPREFETCH.md", "a hint: TLOAD's operand checks (types, Vec/Mat, address, element width, GM window), nothing written (ops::prefetch); the page lists no types (TLOAD's)"),
            (Tmov TMov, "TMOV", "pto.tmov", Move, -, (own), ALL11, ALL11, Own, "docs/isa/TMOV.md", "types per location pair, checked by ops::movement"),
            (TmovFp TMovFp, "TMOV_FP", "pto.tmov.fp", Move, -, (own), ALL11, ALL11, Own, "docs/isa/TMOV_FP.md", "TMOV with the fp (Scaling) tile; checked by ops::movement"),
            (Textract TExtract, "TEXTRACT", "pto.textract", Extract, -, (own), MM_IN, MM_IN, Own, "docs/isa/TEXTRACT.md", "A2A3 int8/half/bfloat16/float; checked by ops::movement"),
            (Tfillpad TFillPad, "TFILLPAD", "pto.tfillpad", FillPad, -, (own), B124, B124, Own, "docs/isa/TFILLPAD.md", "Vec tiles; dst pad value not Null; same static shape; a custom pad value converts its f32 like TLOAD's"),
            (TfillpadInplace TFillPadInplace, "TFILLPAD_INPLACE", "pto.tfillpad_inplace", FillPad, -, (own), B124, B124, Own, "docs/isa/TFILLPAD_INPLACE.md", "TFILLPAD's rules (pto-isa TFillPad.hpp: same static shape); dst and src may be one tile"),
            (TfillpadExpand TFillPadExpand, "TFILLPAD_EXPAND", "pto.tfillpad_expand", FillPad, -, (own), B124, B124, Own, "docs/isa/TFILLPAD_EXPAND.md", "TFILLPAD's rules, dst's static shape at least src's"),
            (Tinsert TInsert, "TINSERT", "pto.tinsert", Insert, -, (own), ALL11, ALL11, Own, "docs/isa/TINSERT.md", "page not in pto-isa docs/isa; PTOAS manual semantics; checked by ops::movement"),
            (Ttrans TTrans, "TTRANS", "pto.ttrans", Transpose, tmp, (own), &[I32, F, I16, H, BF, I8], &[I32, F, I16, H, BF, I8], Own, "docs/isa/TTRANS.md", "A2A3 over src's valid region, A5 over its static shape (PTOAS manual); tmp (Args::TransposeTmp): a2a3 size and overlap rules where the transpose uses it; ConvTile forms (Args::TransposeConv, ops::conv_trans): NCHW<->NC1HWC0, GNCHW<->GNC1HWC0, (G)NC1HWC0->FRACTAL_Z, NCDHW->FRACTAL_Z_3D"),
            (Tci TCi, "TCI", "pto.tci", Iota, -, (own), &[I32, I16, U32, U16], &[I32, I16, U32, U16], Own, "docs/isa/TCI.md", "b32/b16 integers (the A2A3 assertion; the manual names i32/i16); one-row tiles"),
            (Ttri TTri, "TTRI", "pto.ttri", Tri, -, (own), &[I32, I16, U32, U16, H, F], &[I32, I16, I8, U32, I64, U64, U16, U8, H, F, BF], Own, "docs/isa/TTRI.md", ""),
            (Tconcat TConcat, "TCONCAT", "pto.tconcat", Concat, -, (own), B124, B124, Own, "docs/isa/TCONCAT.md", "the basic form, and the indexed forms (Args::ConcatIdx: per-row counts from index tiles, pto-isa's TConcatIdx)"),
            (Tmatmul TMatmul, "TMATMUL", "pto.tmatmul", Matmul, -, (own), MM_IN, MM_IN, Own, "docs/isa/TMATMUL.md", "types of A; (C, A, B) triples checked by ops::cube"),
            (TmatmulAcc TMatmulAcc, "TMATMUL_ACC", "pto.tmatmul.acc", MatmulAcc, -, (own), MM_IN, MM_IN, Own, "docs/isa/TMATMUL_ACC.md", "ins (cIn, a, b); types of A; triples checked by ops::cube"),
            (TmatmulBias TMatmulBias, "TMATMUL_BIAS", "pto.tmatmul.bias", MatmulBias, -, (own), MM_IN, MM_IN, Own, "docs/isa/TMATMUL_BIAS.md", "ins (a, b, bias); types of A; triples checked by ops::cube"),
            (Tgemv TGemv, "TGEMV", "pto.tgemv", Matmul, -, (own), MM_IN, MM_IN, Own, "docs/isa/TGEMV.md", "TMATMUL with m = 1; types of A; triples checked by ops::cube"),
            (TgemvAcc TGemvAcc, "TGEMV_ACC", "pto.tgemv.acc", MatmulAcc, -, (own), MM_IN, MM_IN, Own, "docs/isa/TGEMV_ACC.md", "ins (cIn, a, b); TMATMUL_ACC with m = 1"),
            (TgemvBias TGemvBias, "TGEMV_BIAS", "pto.tgemv.bias", MatmulBias, -, (own), MM_IN, MM_IN, Own, "docs/isa/TGEMV_BIAS.md", "ins (a, b, bias); TMATMUL_BIAS with m = 1"),
            (TmatmulMx TMatmulMx, "TMATMUL_MX", "pto.tmatmul.mx", MatmulMx, -, (own), &[], MX_IN, Own, "docs/isa/TMATMUL_MX.md", "A5 only; ins (a, a_scale, b, b_scale); types of A (B too, any pair); e8m0 scales per 32 K in Scaling tiles; checked by ops::mx"),
            (TmatmulMxAcc TMatmulMxAcc, "TMATMUL_MX_ACC", "pto.tmatmul.mx.acc", MatmulMx, -, (own), &[], MX_IN, Own, "docs/isa/TMATMUL_MX.md", "A5 only; ins (c_in, a, a_scale, b, b_scale); checked by ops::mx"),
            (TmatmulMxBias TMatmulMxBias, "TMATMUL_MX_BIAS", "pto.tmatmul.mx.bias", MatmulMx, -, (own), &[], MX_IN, Own, "docs/isa/TMATMUL_MX.md", "A5 only; ins (a, a_scale, b, b_scale, bias); checked by ops::mx"),
            (TgemvMx TGemvMx, "TGEMV_MX", "pto.tgemv.mx", MatmulMx, -, (own), &[], MX_IN, Own, "docs/isa/TGEMV_MX.md", "A5 only; TMATMUL_MX with m = 1"),
            (TgemvMxAcc TGemvMxAcc, "TGEMV_MX_ACC", "pto.tgemv.mx.acc", MatmulMx, -, (own), &[], MX_IN, Own, "docs/isa/TGEMV_MX.md", "A5 only; TMATMUL_MX_ACC with m = 1"),
            (TgemvMxBias TGemvMxBias, "TGEMV_MX_BIAS", "pto.tgemv.mx.bias", MatmulMx, -, (own), &[], MX_IN, Own, "docs/isa/TGEMV_MX.md", "A5 only; TMATMUL_MX_BIAS with m = 1"),
            (TgetScaleAddr TGetScaleAddr, "TGET_SCALE_ADDR", "pto.tget_scale_addr", ScaleAddr, -, (own), &[], MX_IN, Own, "docs/isa/TGET_SCALE_ADDR.md", "A5 only; the page lists no types (not checked); returns the rebound tile (TileCore::tget_scale_addr), so exec reports it unsupported"),
            // ---- sort, gather, scatter (ops::sort, ops::gather) ----
            (Tsort32 TSort32, "TSORT32", "pto.tsort32", Sort32, tmp, (own), HF, HF, Own, "docs/isa/TSORT32.md", "records [value, u32 index]; NaN first, ±0 equal, ties by smaller index; a short tail block writes only its own records"),
            (Tmrgsort TMrgSort, "TMRGSORT", "pto.tmrgsort", MrgSort, tmp, (own), HF, HF, Own, "docs/isa/TMRGSORT.md", "single-list (blockLen) and 2-4 list forms; ties to the lower list; tmp receives the merged records too"),
            (Tgather TGather, "TGATHER", "pto.tgather", Gather, tmp, (own), &[I16, U16, I32, U32, H, BF, F], &[I8, U8, I16, U16, I32, U32, I64, U64, H, BF, F], Own, "docs/isa/TGATHER.md", "index and mask-pattern (row) forms; an index outside src is a typed error; the compare form is not modelled"),
            (Tgatherb TGatherB, "TGATHERB", "pto.tgatherb", GatherB, -, (own), B124, B124, Own, "docs/isa/TGATHERB.md", "one uint32 byte offset per 32-byte block of dst; an offset past src is a typed error"),
            (Tscatter TScatter, "TSCATTER", "pto.tscatter", Scatter, -, (own), B124, B124, Own, "docs/isa/TSCATTER.md", "dst cleared, then dst(idx(i,j), j) = src(i,j) (the page's math); a row index past dst is a typed error; the mask form is not modelled"),
            // ---- quantisation (ops::quant) ----
            (Tquant TQuant, "TQUANT", "pto.tquant", Quant, -, (own), &[F], &[F, H, BF], Own, "docs/isa/TQUANT.md", "types of src; INT8_SYM (i8) and INT8_ASYM (u8) with per-row parameters (f32 only); A5 MXFP8 E4M3 forms (OCP/NV, ND and DN groups of 32, TQUANT_DN.md; Args::QuantMx) from f32/f16/bf16; MXFP4 not modelled"),
            (Tdequant TDequant, "TDEQUANT", "pto.tdequant", Dequant, -, (own), &[I8, I16], &[I8, I16], Own, "docs/isa/TDEQUANT.md", "types of src; dst, scale and offset f32; per-row parameters"),
            (TstoreFp TStoreFp, "TSTORE_FP", "pto.tstore_fp", StoreFp, -, (own), &[I32, F], &[I32, F], Own, "docs/isa/TSTORE_FP.md", "types of the Acc source; the TMOV fp conversion (per-column uint64 words) into the global tensor's type"),
            (Thistogram THistogram, "THISTOGRAM", "pto.thistogram", Histogram, -, (own), &[], &[U16, U32], Own, "docs/isa/THISTOGRAM.md", "A5 only; types of src; cumulative uint32 bins (CPU simulator and A5 path) with the cascaded byte filter"),
            // ---- indexed global memory (ops::gm_index) ----
            (Mgather MGather, "MGATHER", "pto.mgather", GmGather, -, (own), &[I8, I16, I32, H, BF, F], &[I8, I16, I32, H, BF, F], Own, "docs/isa/MGATHER.md", "types of dst; i32 indices; row or element mode from the index tile's shape; OOB modes A5 only"),
            (Mscatter MScatter, "MSCATTER", "pto.mscatter", GmScatter, -, (own), &[I8, I16, I32, H, BF, F], &[I8, I16, I32, H, BF, F], Own, "docs/isa/MSCATTER.md", "types of src; i32 indices; last writer wins; atomic and OOB modes A5 only"),
            // ---- generators and views (ops::random, ops::alias) ----
            (Trandom TRandom, "TRANDOM", "pto.trandom", Random, -, (own), &[], &[I32, U32], Own, "docs/isa/TRANDOM.md", "A5 only; Philox-4x32 with 7 or 10 rounds in the A5 hardware's element order (the CPU simulator orders a chunk differently)"),
            (Talias TAlias, "TALIAS", "pto.talias", Alias, -, (own), A5_LS, A5_LS, Own, "docs/isa/TALIAS.md", "page at docs/isa/tile/ops/sync-and-config/talias.md; a view of src's storage (same location and address, footprint inside src's); moves nothing; page gives no type list (any tile type)"),
            // ---- pair rearrangements (ops::interleave) ----
            (Tinterleave TInterleave, "TINTERLEAVE", "pto.tinterleave", Interleave, -, (own), &[], &[I32, U32, F, I16, U16, H, BF, U8, I8], Own, "docs/isa/TINTERLEAVE.md", "A5 only (the page lists A5 checks only); outs (dst0, dst1); row-major Vec tiles of one type and one valid shape, validCol even"),
            (Tdeinterleave TDeInterleave, "TDEINTERLEAVE", "pto.tdeinterleave", Interleave, -, (own), &[], &[I32, U32, F, I16, U16, H, BF, U8, I8], Own, "docs/isa/TDEINTERLEAVE.md", "A5 only (the page lists A5 checks only); two-source and single-source forms; outs (dst0: even, dst1: odd)"),
            (Tpairreducesum TPairReduceSum, "TPAIRREDUCESUM", "pto.tpairreducesum", PairReduce, -, (own), HF, HF, Own, "docs/isa/TPAIRREDUCESUM.md", "row-major Vec tiles, equal valid shapes; the element past an odd validCol counts as +0; the sum rounds once (TADD's add)"),
            // ---- fused add-and-narrow (ops::fused) ----
            (Taddreluconv TAddReluConv, "TADDRELUCONV", "pto.taddreluconv", AddReluConv, -, (own), &[F, H, I16], &[F, H, I16], Own, "docs/isa/TADDRELUCONV.md", "types of src; pairs float->half, half->int8, int16->int8; source add as TADD (int16 wraps), ReLU under the NaN policy, narrowing RNE saturating"),
            (Tadddeqrelu TAddDeqRelu, "TADDDEQRELU", "pto.tadddeqrelu", AddDeqRelu, tmp, (own), &[I32], &[I32], Own, "docs/isa/TADDDEQRELU.md", "types of src; dst half, tmp int32; ((x * 2^-17) * deqScale) * 2^17 in f32; A2A3 stages the int32 sum in tmp"),
            (Tprint TPrint, "TPRINT", "pto.tprint", Print, -, (own), ALL11, ALL11, Own, "docs/isa/TPRINT.md", "Vec tiles of f32, f16, i8, i16, i32, u8, u16, u32 (checked by ops::print); returns text (TileCore::tprint), so exec reports it unsupported"),
            // ---- convolution gather (ops::img2col) ----
            (Timg2col TImg2col, "TIMG2COL", "pto.timg2col", Img2col, -, (own), &[I8, H, BF, F], &[I8, U8, I16, U16, I32, U32, H, BF, F], Own, "docs/isa/TIMG2COL.md", "types of src (the implementations' static checks); src a Mat NC1HWC0/NDC1HWC0 feature map, dst Left (A2A3 Zz, A5 Nz); the convolution config travels with the instruction (auto FMATRIX mode); the mapping of the CPU simulator"),
            (Tpack TPack, "TPACK", "pto.tpack", Pack, -, (own), &[], &[I32, U32, F, I16, U16, H, BF], Own, "docs/isa/TPACK.md", "A5 only; types of src; size pairs 4->2, 4->1, 2->1 (PTOAS manual); low-order bytes kept (A5 pack stores)"),
            // ---- moves with the fp (Scaling) tile (ops::movement) ----
            (TextractFp TExtractFp, "TEXTRACT_FP", "pto.textract_fp", WindowFp, -, (own), &[F, I32], &[F, I32], Own, "docs/isa/TEXTRACT_FP.md", "types of the Acc source; Acc->Mat (a5 also Vec) at (row, col) with per-column uint64 words from fp + col elements (pto-isa TEXTRACT_IMPL fp form); pairs checked by ops::movement"),
            (TinsertFp TInsertFp, "TINSERT_FP", "pto.tinsert_fp", WindowFp, -, (own), &[F, I32], &[F, I32], Own, "docs/isa/TINSERT_FP.md", "types of the Acc source; Acc->Mat (a5 also Vec) at (row, col) with per-column uint64 words from fp (pto-isa TINSERT_IMPL fp form); pairs checked by ops::movement"),
            // ---- configuration state (ops::config) ----
            (SetQuantScalar SetQuantScalar, "SET_QUANT_SCALAR", "pto.set_quant_scalar", Config, -, (own), &[I8, U8, I16, BF, H], &[I8, U8, I16, BF, H], Own, "docs/isa/SET_QUANT_SCALAR.md", "types of OutType (the page's list); the word: the scale's f32 bits, bit 46 set for int8 output; consumer TPUSH not modelled; no PTO-AS spelling (the page)"),
            (SetQuantVector SetQuantVector, "SET_QUANT_VECTOR", "pto.set_quant_vector", Config, -, (own), ALL11, ALL11, Own, "docs/isa/SET_QUANT_VECTOR.md", "the page lists no types (not checked); fpTile must be a Scaling tile; records its address; consumer TPUSH not modelled"),
            (Sethf32mode SetHf32Mode, "SETHF32MODE", "pto.sethf32mode", Config, -, (own), &[F], &[F], Own, "docs/isa/SETHF32MODE.md", "page at docs/isa/tile/ops/sync-and-config/sethf32mode.md; no tile operands (types: the f32 cube inputs it affects); HF32 = 11 mantissa bits, CAST_RINT ties to even, CAST_ROUND ties away"),
            (Settf32mode SetTf32Mode, "SETTF32MODE", "pto.settf32mode", Config, -, (own), &[F], &[F], Own, "docs/isa/SETTF32MODE.md", "page at docs/isa/tile/ops/sync-and-config/settf32mode.md; A5: TF32 = 10 mantissa bits (pto-isa header; the page's 7 contradicts it); A2A3 a no-op by the page"),
            (Setfmatrix SetFmatrix, "SETFMATRIX", "pto.setfmatrix", Config, -, (own), &[I8, H, BF, F], &[I8, U8, I16, U16, I32, U32, H, BF, F], Own, "docs/isa/SETFMATRIX.md", "page at docs/isa/tile/ops/sync-and-config/setfmatrix.md; types of the ConvTile (TIMG2COL's); FMATRIX / FMATRIX_B word: W bits 0-15, H 16-31, pads [l, r, t, b] a byte each from 32 (pto-isa headers); auto modes only check; the page spells it pto.setfmatrix, PTOAS only in its bytecode opcode table (pto.tsetfmatrix)"),
            (SetImg2colRpt SetImg2colRpt, "SET_IMG2COL_RPT", "pto.set_img2col_rpt", Config, -, (own), &[I8, H, BF, F], &[I8, U8, I16, U16, I32, U32, H, BF, F], Own, "docs/isa/SET_IMG2COL_RPT.md", "page at docs/isa/tile/ops/sync-and-config/set-img2col-rpt.md; repeat stride bits 0-15, time 16-23, mode 24-31 (0 or 1), A5 dst stride 32-47 and dst M position 48-63; A2A3 one register for A and B"),
            (SetImg2colPadding SetImg2colPadding, "SET_IMG2COL_PADDING", "pto.set_img2col_padding", Config, -, (own), &[I8, H, BF, F], &[I8, U8, I16, U16, I32, U32, H, BF, F], Own, "docs/isa/SET_IMG2COL_PADDING.md", "page at docs/isa/tile/ops/sync-and-config/set-img2col-padding.md; types of the pad value; a byte value doubled into 16 bits, else its bits; A2A3 one register for A and B"),
        }
    };
}

/// The [`Elem`] of a row's `(elem)` cell.
#[macro_export]
#[doc(hidden)]
macro_rules! elem_of {
    ((e1 $d:ident $f:ident)) => {
        $crate::table::Elem::Unary(stringify!($f))
    };
    ((e1z $d:ident $f:ident)) => {
        $crate::table::Elem::Unary(stringify!($f))
    };
    ((e2 $d:ident $f:ident)) => {
        $crate::table::Elem::Binary(stringify!($f))
    };
    ((e2z $d:ident $f:ident)) => {
        $crate::table::Elem::Binary(stringify!($f))
    };
    ((e2n $d:ident $f:ident)) => {
        $crate::table::Elem::Binary(stringify!($f))
    };
    ((e2d $d:ident $f:ident)) => {
        $crate::table::Elem::BinaryDst(stringify!($f))
    };
    ((e3 $d:ident $f:ident)) => {
        $crate::table::Elem::Ternary(stringify!($f))
    };
    ((own)) => {
        $crate::table::Elem::Own
    };
}

/// `tmp` / `st` / `-`
#[macro_export]
#[doc(hidden)]
macro_rules! extra_of {
    (tmp) => {
        $crate::table::Extra::Tmp
    };
    (st) => {
        $crate::table::Extra::ScalarFirst
    };
    (-) => {
        $crate::table::Extra::None
    };
}

macro_rules! define_ops {
    ($(($v:ident $alias:ident, $name:literal, $mlir:literal, $class:ident, $tmp:tt, $elem:tt, $a2:expr, $a5:expr, $valid:ident, $page:literal, $note:literal)),* $(,)?) => {
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
                extra: $crate::extra_of!($tmp),
                elem: $crate::elem_of!($elem),
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
            .find(|i| i.name.eq_ignore_ascii_case(s) || i.mlir.strip_prefix("pto.") == Some(s))
            .map(|i| i.code)
    }
    /// Looks up the exact MLIR name (`pto.tadd`, `pto.tmatmul.acc`).
    pub fn by_mlir(s: &str) -> Option<OpCode> {
        OPS.iter().find(|i| i.mlir == s).map(|i| i.code)
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
            // `TMOV_FP` is `pto.tmov.fp`, `TFILLPAD_INPLACE` `pto.tfillpad_inplace` (as PTOAS
            // spells them).
            let lower = info.name.to_ascii_lowercase();
            assert!(
                info.mlir == format!("pto.{}", lower.replace('_', "."))
                    || info.mlir == format!("pto.{lower}"),
                "{}",
                info.mlir
            );
            assert_eq!(OpCode::by_mlir(info.mlir), Some(info.code));
            assert_eq!(OpCode::parse(info.mlir), Some(info.code));
            // The MX ACC/BIAS forms share their base form's page.
            let base = info.name.trim_end_matches("_ACC").trim_end_matches("_BIAS");
            assert!(
                info.page.ends_with(&format!("{}.md", info.name))
                    || (info.name.contains("_MX") && info.page.ends_with(&format!("{base}.md")))
            );
            // An op one arch lacks says so in its note (THISTOGRAM: A5 only).
            assert!(
                (!info.a2a3.is_empty() || info.note.starts_with("A5 only")) && !info.a5.is_empty()
            );
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
