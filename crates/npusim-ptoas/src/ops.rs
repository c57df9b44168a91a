//! The op table: every op name PTO-AS knows, its class and its DPS operand forms.
//!
//! One table (the `op_table!` invocation below) is the single source of truth for the parser's
//! dispatch, the verifier's operand checks and the "did you mean" suggestion for unknown ops.
//! Op names and operand lists follow hw-native-sys/PTOAS `docs/PTO_IR_manual.md` §4 (PTO ops,
//! plus the `func`/`arith`/`scf` ops it accepts) and the tile ISA inventory in
//! `/work/shared/research/pto-isa.md` §1.2 for the ops that the manual does not list
//! (`tfmod`, `tpow`, the fused ops, `tpartarg*`, ...).
//!
//! DPS forms are strings over `T` (a `!pto.tile_buf` operand), `S` (a scalar) and `P` (a
//! `!pto.partition_tensor_view`): `pto.tdivs` has ins forms `TS` and `ST` (tile/scalar and
//! scalar/tile), `pto.trowsum` has `T` and `TT` (with or without the tmp tile).

/// Operand-shape class of an op; drives verification.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpClass {
    /// Elementwise tile-tile (`tadd`, `trem` with optional tmp, ...): all tiles one dtype.
    Binary,
    /// Three-input elementwise (`taddc`, `taddsc`, ...).
    Ternary,
    /// Elementwise unary (`texp`, ...).
    Unary,
    /// Tile with a scalar (`tadds`, `tdivs` both orders, `texpands`, ...).
    TileScalar,
    /// Partial elementwise (`tpartadd`, ...), valid regions may differ.
    Partial,
    /// Row or column reduction to a vector (`trowsum`, `tcolmax`, ...).
    Reduce,
    /// Arg-reduction (`trowargmax`, ...): the destination holds indices.
    ArgReduce,
    /// Row/column broadcast (`trowexpand`, `trowexpandsub`, ...).
    Expand,
    /// Compare to a mask (`tcmp`, `tcmps`).
    Cmp,
    /// Select by mask (`tsel`, `tsels`).
    Select,
    /// Element type conversion (`tcvt`).
    Cvt,
    /// GM <-> tile (`tload`, `tstore`, `tprefetch`).
    Memory,
    /// Tile <-> tile moves (`tmov`, `ttrans`).
    Move,
    /// Cube ops (`tmatmul*`, `tgemv*`).
    Matmul,
    /// Debug output (`tprint`).
    Debug,
    /// View construction (`make_tensor_view`, `partition_view`, `alloc_tile`).
    View,
    /// `arith.constant`.
    Constant,
    /// Integer `arith` binary ops.
    IntArith,
    /// Float `arith` binary ops.
    FloatArith,
    /// Float `arith` unary ops.
    FloatUnary,
    /// `arith` casts (`a : A to B`).
    Cast,
    /// `arith.cmpi`, `arith.cmpf`, `arith.select`.
    ScalarCmp,
    /// `scf.*`, `func.*`, `module`.
    Control,
    /// `pto.get_block_idx` and friends.
    Runtime,
    /// `pto.section.vector`/`pto.section.cube`.
    Section,
    /// Synchronisation.
    Sync,
}

macro_rules! op_table {
    ($( $variant:ident => $name:literal, $class:ident, [$($ins:literal),*], [$($outs:literal),*]; )*) => {
        /// Every op the parser knows. Tile ops are named after the ISA (`TAdd` is `pto.tadd`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum OpCode {
            $( #[doc = concat!("`", $name, "`")] $variant, )*
        }

        impl OpCode {
            /// All ops, in table order.
            pub const ALL: &'static [OpCode] = &[$(OpCode::$variant),*];

            /// The op name as written in PTO-AS.
            pub fn name(self) -> &'static str {
                match self { $(OpCode::$variant => $name,)* }
            }

            /// Looks up an op by its full name.
            pub fn from_name(name: &str) -> Option<OpCode> {
                match name { $($name => Some(OpCode::$variant),)* _ => None }
            }

            /// Its class.
            pub fn class(self) -> OpClass {
                match self { $(OpCode::$variant => OpClass::$class,)* }
            }

            /// Accepted `ins(...)` operand forms of a DPS op (empty for non-DPS ops).
            pub fn ins_forms(self) -> &'static [&'static str] {
                match self { $(OpCode::$variant => &[$($ins),*],)* }
            }

            /// Accepted `outs(...)` operand forms of a DPS op.
            pub fn outs_forms(self) -> &'static [&'static str] {
                match self { $(OpCode::$variant => &[$($outs),*],)* }
            }
        }
    };
}

op_table! {
    // ---- elementwise tile-tile (manual §4.5, §4.9; ISA §1.2) ----
    TAdd => "pto.tadd", Binary, ["TT"], ["T"];
    TSub => "pto.tsub", Binary, ["TT"], ["T"];
    TMul => "pto.tmul", Binary, ["TT"], ["T"];
    TDiv => "pto.tdiv", Binary, ["TT"], ["T"];
    TMin => "pto.tmin", Binary, ["TT"], ["T"];
    TMax => "pto.tmax", Binary, ["TT"], ["T"];
    TRem => "pto.trem", Binary, ["TT", "TTT"], ["T"];
    TFmod => "pto.tfmod", Binary, ["TT", "TTT"], ["T"];
    TPow => "pto.tpow", Binary, ["TT", "TTT"], ["T"];
    TAnd => "pto.tand", Binary, ["TT"], ["T"];
    TOr => "pto.tor", Binary, ["TT"], ["T"];
    TXor => "pto.txor", Binary, ["TT", "TTT"], ["T"];
    TShl => "pto.tshl", Binary, ["TT"], ["T"];
    TShr => "pto.tshr", Binary, ["TT"], ["T"];
    TPrelu => "pto.tprelu", Binary, ["TT", "TTT"], ["T"];
    TMulAddDst => "pto.tmuladddst", Binary, ["TT"], ["T"];
    TFusedMulAdd => "pto.tfusedmuladd", Binary, ["TT"], ["T"];
    TFusedMulAddRelu => "pto.tfusedmuladdrelu", Binary, ["TT"], ["T"];
    TSubRelu => "pto.tsubrelu", Binary, ["TT"], ["T"];
    TAddC => "pto.taddc", Ternary, ["TTT"], ["T"];
    TSubC => "pto.tsubc", Ternary, ["TTT"], ["T"];
    TAddSC => "pto.taddsc", Ternary, ["TST"], ["T"];
    TSubSC => "pto.tsubsc", Ternary, ["TST"], ["T"];
    // ---- unary ----
    TAbs => "pto.tabs", Unary, ["T"], ["T"];
    TNeg => "pto.tneg", Unary, ["T"], ["T"];
    TExp => "pto.texp", Unary, ["T"], ["T"];
    TLog => "pto.tlog", Unary, ["T"], ["T"];
    TSqrt => "pto.tsqrt", Unary, ["T"], ["T"];
    TRsqrt => "pto.trsqrt", Unary, ["T", "TT"], ["T"];
    TRecip => "pto.trecip", Unary, ["T"], ["T"];
    TRelu => "pto.trelu", Unary, ["T"], ["T"];
    TNot => "pto.tnot", Unary, ["T"], ["T"];
    // ---- tile-scalar ----
    TAddS => "pto.tadds", TileScalar, ["TS"], ["T"];
    TSubS => "pto.tsubs", TileScalar, ["TS"], ["T"];
    TMulS => "pto.tmuls", TileScalar, ["TS"], ["T"];
    TDivS => "pto.tdivs", TileScalar, ["TS", "ST"], ["T"];
    TMaxS => "pto.tmaxs", TileScalar, ["TS"], ["T"];
    TMinS => "pto.tmins", TileScalar, ["TS"], ["T"];
    TRemS => "pto.trems", TileScalar, ["TS", "TST"], ["T"];
    TFmodS => "pto.tfmods", TileScalar, ["TS", "TST"], ["T"];
    TPowS => "pto.tpows", TileScalar, ["TS", "TST"], ["T"];
    TAndS => "pto.tands", TileScalar, ["TS"], ["T"];
    TOrS => "pto.tors", TileScalar, ["TS"], ["T"];
    TXorS => "pto.txors", TileScalar, ["TS", "TST"], ["T"];
    TShlS => "pto.tshls", TileScalar, ["TS"], ["T"];
    TShrS => "pto.tshrs", TileScalar, ["TS"], ["T"];
    TLRelu => "pto.tlrelu", TileScalar, ["TS"], ["T"];
    TExpandS => "pto.texpands", TileScalar, ["S"], ["T"];
    TAxpy => "pto.taxpy", TileScalar, ["TS"], ["T"];
    // ---- partial (valid regions may differ) ----
    TPartAdd => "pto.tpartadd", Partial, ["TT"], ["T"];
    TPartMul => "pto.tpartmul", Partial, ["TT"], ["T"];
    TPartMax => "pto.tpartmax", Partial, ["TT"], ["T"];
    TPartMin => "pto.tpartmin", Partial, ["TT"], ["T"];
    TPartArgMax => "pto.tpartargmax", ArgReduce, ["TT", "TTTT"], ["T", "TT"];
    TPartArgMin => "pto.tpartargmin", ArgReduce, ["TT", "TTTT"], ["T", "TT"];
    // ---- reductions (manual §4.6): tmp tile optional ----
    TRowSum => "pto.trowsum", Reduce, ["T", "TT"], ["T"];
    TRowProd => "pto.trowprod", Reduce, ["T", "TT"], ["T"];
    TRowMax => "pto.trowmax", Reduce, ["T", "TT"], ["T"];
    TRowMin => "pto.trowmin", Reduce, ["T", "TT"], ["T"];
    TRowArgMax => "pto.trowargmax", ArgReduce, ["T", "TT"], ["T"];
    TRowArgMin => "pto.trowargmin", ArgReduce, ["T", "TT"], ["T"];
    TColSum => "pto.tcolsum", Reduce, ["T", "TT"], ["T"];
    TColProd => "pto.tcolprod", Reduce, ["T", "TT"], ["T"];
    TColMax => "pto.tcolmax", Reduce, ["T", "TT"], ["T"];
    TColMin => "pto.tcolmin", Reduce, ["T", "TT"], ["T"];
    TColArgMax => "pto.tcolargmax", ArgReduce, ["T", "TT"], ["T"];
    TColArgMin => "pto.tcolargmin", ArgReduce, ["T", "TT"], ["T"];
    // ---- broadcasts (manual §4.7): tmp tile optional on the row forms ----
    TRowExpand => "pto.trowexpand", Expand, ["T"], ["T"];
    TRowExpandAdd => "pto.trowexpandadd", Expand, ["TT", "TTT"], ["T"];
    TRowExpandSub => "pto.trowexpandsub", Expand, ["TT", "TTT"], ["T"];
    TRowExpandMul => "pto.trowexpandmul", Expand, ["TT", "TTT"], ["T"];
    TRowExpandDiv => "pto.trowexpanddiv", Expand, ["TT", "TTT"], ["T"];
    TRowExpandMax => "pto.trowexpandmax", Expand, ["TT", "TTT"], ["T"];
    TRowExpandMin => "pto.trowexpandmin", Expand, ["TT", "TTT"], ["T"];
    TRowExpandExpDif => "pto.trowexpandexpdif", Expand, ["TT", "TTT"], ["T"];
    TColExpand => "pto.tcolexpand", Expand, ["T"], ["T"];
    TColExpandAdd => "pto.tcolexpandadd", Expand, ["TT", "TTT"], ["T"];
    TColExpandSub => "pto.tcolexpandsub", Expand, ["TT", "TTT"], ["T"];
    TColExpandMul => "pto.tcolexpandmul", Expand, ["TT", "TTT"], ["T"];
    TColExpandDiv => "pto.tcolexpanddiv", Expand, ["TT", "TTT"], ["T"];
    TColExpandMax => "pto.tcolexpandmax", Expand, ["TT", "TTT"], ["T"];
    TColExpandMin => "pto.tcolexpandmin", Expand, ["TT", "TTT"], ["T"];
    TColExpandExpDif => "pto.tcolexpandexpdif", Expand, ["TT", "TTT"], ["T"];
    // ---- compare / select / convert (manual §4.8, §4.12) ----
    TCmp => "pto.tcmp", Cmp, ["TT"], ["T"];
    TCmpS => "pto.tcmps", Cmp, ["TS"], ["T"];
    TSel => "pto.tsel", Select, ["TTT", "TTTT"], ["T"];
    TSelS => "pto.tsels", Select, ["TTS", "TTTS"], ["T"];
    TCvt => "pto.tcvt", Cvt, ["T", "TT"], ["T"];
    // ---- data movement (manual §4.3) ----
    TLoad => "pto.tload", Memory, ["P"], ["T"];
    TStore => "pto.tstore", Memory, ["T"], ["P"];
    TPrefetch => "pto.tprefetch", Memory, ["P"], ["T"];
    TMov => "pto.tmov", Move, ["T"], ["T"];
    TTrans => "pto.ttrans", Move, ["T", "TT"], ["T"];
    // ---- cube (manual §4.4) ----
    TMatmul => "pto.tmatmul", Matmul, ["TT"], ["T"];
    TMatmulAcc => "pto.tmatmul.acc", Matmul, ["TTT"], ["T"];
    TMatmulBias => "pto.tmatmul.bias", Matmul, ["TTT"], ["T"];
    TGemv => "pto.tgemv", Matmul, ["TT"], ["T"];
    TGemvAcc => "pto.tgemv.acc", Matmul, ["TTT"], ["T"];
    TGemvBias => "pto.tgemv.bias", Matmul, ["TTT"], ["T"];
    // ---- debug ----
    TPrint => "pto.tprint", Debug, ["T", "P"], [""];
    // ---- views and allocation (manual §4.1) ----
    MakeTensorView => "pto.make_tensor_view", View, [], [];
    PartitionView => "pto.partition_view", View, [], [];
    AllocTile => "pto.alloc_tile", View, [], [];
    SetValidShape => "pto.set_validshape", View, [], [];
    // ---- runtime intrinsics (manual §4.19) ----
    GetBlockIdx => "pto.get_block_idx", Runtime, [], [];
    GetBlockNum => "pto.get_block_num", Runtime, [], [];
    GetSubblockIdx => "pto.get_subblock_idx", Runtime, [], [];
    GetSubblockNum => "pto.get_subblock_num", Runtime, [], [];
    // ---- sections (manual §4.17) ----
    SectionVector => "pto.section.vector", Section, [], [];
    SectionCube => "pto.section.cube", Section, [], [];
    // ---- synchronisation (manual §4.16) ----
    RecordEvent => "pto.record_event", Sync, [], [];
    WaitEvent => "pto.wait_event", Sync, [], [];
    SetFlag => "pto.set_flag", Sync, [], [];
    WaitFlag => "pto.wait_flag", Sync, [], [];
    Barrier => "pto.barrier", Sync, [], [];
    BarrierSync => "pto.barrier_sync", Sync, [], [];
    SyncSet => "pto.sync.set", Sync, [], [];
    SyncWait => "pto.sync.wait", Sync, [], [];
    // ---- arith ----
    Constant => "arith.constant", Constant, [], [];
    AddI => "arith.addi", IntArith, [], [];
    SubI => "arith.subi", IntArith, [], [];
    MulI => "arith.muli", IntArith, [], [];
    DivSI => "arith.divsi", IntArith, [], [];
    DivUI => "arith.divui", IntArith, [], [];
    RemSI => "arith.remsi", IntArith, [], [];
    RemUI => "arith.remui", IntArith, [], [];
    CeilDivSI => "arith.ceildivsi", IntArith, [], [];
    CeilDivUI => "arith.ceildivui", IntArith, [], [];
    FloorDivSI => "arith.floordivsi", IntArith, [], [];
    MinSI => "arith.minsi", IntArith, [], [];
    MinUI => "arith.minui", IntArith, [], [];
    MaxSI => "arith.maxsi", IntArith, [], [];
    MaxUI => "arith.maxui", IntArith, [], [];
    AndI => "arith.andi", IntArith, [], [];
    OrI => "arith.ori", IntArith, [], [];
    XOrI => "arith.xori", IntArith, [], [];
    ShLI => "arith.shli", IntArith, [], [];
    ShRSI => "arith.shrsi", IntArith, [], [];
    ShRUI => "arith.shrui", IntArith, [], [];
    AddF => "arith.addf", FloatArith, [], [];
    SubF => "arith.subf", FloatArith, [], [];
    MulF => "arith.mulf", FloatArith, [], [];
    DivF => "arith.divf", FloatArith, [], [];
    RemF => "arith.remf", FloatArith, [], [];
    MaximumF => "arith.maximumf", FloatArith, [], [];
    MinimumF => "arith.minimumf", FloatArith, [], [];
    MaxNumF => "arith.maxnumf", FloatArith, [], [];
    MinNumF => "arith.minnumf", FloatArith, [], [];
    NegF => "arith.negf", FloatUnary, [], [];
    IndexCast => "arith.index_cast", Cast, [], [];
    IndexCastUI => "arith.index_castui", Cast, [], [];
    ExtSI => "arith.extsi", Cast, [], [];
    ExtUI => "arith.extui", Cast, [], [];
    TruncI => "arith.trunci", Cast, [], [];
    SIToFP => "arith.sitofp", Cast, [], [];
    UIToFP => "arith.uitofp", Cast, [], [];
    FPToSI => "arith.fptosi", Cast, [], [];
    FPToUI => "arith.fptoui", Cast, [], [];
    ExtF => "arith.extf", Cast, [], [];
    TruncF => "arith.truncf", Cast, [], [];
    Bitcast => "arith.bitcast", Cast, [], [];
    CmpI => "arith.cmpi", ScalarCmp, [], [];
    CmpF => "arith.cmpf", ScalarCmp, [], [];
    Select => "arith.select", ScalarCmp, [], [];
    // ---- control flow and structure ----
    ScfFor => "scf.for", Control, [], [];
    ScfIf => "scf.if", Control, [], [];
    ScfWhile => "scf.while", Control, [], [];
    ScfYield => "scf.yield", Control, [], [];
    ScfCondition => "scf.condition", Control, [], [];
    FuncFunc => "func.func", Control, [], [];
    FuncReturn => "func.return", Control, [], [];
    Return => "return", Control, [], [];
    FuncCall => "func.call", Control, [], [];
    Call => "call", Control, [], [];
    Module => "module", Control, [], [];
}

impl OpCode {
    /// Whether this op is written in DPS form `ins(...) outs(...)`.
    pub fn is_dps(self) -> bool {
        !self.ins_forms().is_empty()
    }
}

/// Levenshtein edit distance between two strings (by bytes; op names are ASCII).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a = a.as_bytes();
    let b = b.as_bytes();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, &ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// The known op name closest to `name`, if it is close enough to be a plausible typo
/// (distance at most 1 + len/4). A missing dialect prefix (`tadd` for `pto.tadd`) also counts.
pub fn suggest(name: &str) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    for prefix in ["pto.", "arith.", "scf.", "func."] {
        let full = format!("{prefix}{lower}");
        if let Some(op) = OpCode::from_name(&full) {
            return Some(op.name());
        }
    }
    if let Some(op) = OpCode::from_name(&lower) {
        return Some(op.name());
    }
    let limit = 1 + name.len() / 4;
    OpCode::ALL
        .iter()
        .map(|op| (edit_distance(&lower, op.name()), op.name()))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, n)| n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_are_unique() {
        for &op in OpCode::ALL {
            assert_eq!(OpCode::from_name(op.name()), Some(op), "{}", op.name());
        }
        let mut names: Vec<_> = OpCode::ALL.iter().map(|o| o.name()).collect();
        names.sort_unstable();
        let n = names.len();
        names.dedup();
        assert_eq!(n, names.len());
    }

    #[test]
    fn did_you_mean() {
        assert_eq!(suggest("pto.tadf"), Some("pto.tadd"));
        assert_eq!(suggest("pto.trowexpandsubb"), Some("pto.trowexpandsub"));
        assert_eq!(suggest("tadd"), Some("pto.tadd"));
        assert_eq!(suggest("arith.addii"), Some("arith.addi"));
        assert_eq!(suggest("completely.unrelated"), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn dps_forms_use_known_letters() {
        for &op in OpCode::ALL {
            for f in op.ins_forms().iter().chain(op.outs_forms()) {
                assert!(
                    f.chars().all(|c| matches!(c, 'T' | 'S' | 'P')),
                    "{}",
                    op.name()
                );
            }
            assert_eq!(op.is_dps(), !op.outs_forms().is_empty(), "{}", op.name());
        }
    }
}
