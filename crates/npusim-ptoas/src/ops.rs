//! The op table: every op name PTO-AS knows, its class and its DPS operand forms.
//!
//! Tile instructions are not listed here: they are the rows of `npusim-pto`'s instruction
//! table ([`npusim_pto::for_each_tile_op!`], [`npusim_pto::OPS`]), which give each its MLIR
//! name, operand class and optional operands; [`OpCode::Tile`] wraps them and their DPS forms
//! are derived from the row ([`tile_forms`]). This file keeps only the dialect's own rows
//! (views, runtime queries, sections, synchronisation, `arith`, `scf`, `func`), following
//! hw-native-sys/PTOAS `docs/PTO_IR_manual.md` §4. Together they drive the parser's dispatch,
//! the verifier's operand checks and the "did you mean" suggestion for unknown ops.
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
    /// Parsed and verified but not executed ([`crate::ast::OpKind::Opaque`]): cross-core
    /// pipes, reserved buffers, dynamic event ids, pointer and memref ops, tile ops that
    /// `npusim-pto` has no row for.
    Opaque,
}

macro_rules! op_table {
    ($( $variant:ident => $name:literal, $class:ident; )*) => {
        /// Every op the parser knows: a tile instruction of `npusim-pto`'s table, or one of the
        /// dialect's own ops.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum OpCode {
            /// A tile instruction (`pto.tadd`, ...): a row of `npusim-pto`'s table.
            Tile(npusim_pto::OpCode),
            $( #[doc = concat!("`", $name, "`")] $variant, )*
        }

        /// The dialect's own ops, in table order.
        const OWN: &[OpCode] = &[$(OpCode::$variant),*];

        impl OpCode {
            /// The op name as written in PTO-AS.
            pub fn name(self) -> &'static str {
                match self { OpCode::Tile(t) => t.info().mlir, $(OpCode::$variant => $name,)* }
            }

            /// Looks up an op by its full name. A tile instruction of `npusim-pto`'s table
            /// wins over an [`OpClass::Opaque`] row of the same name (so an op becomes
            /// executable as soon as `npusim-pto` gains its row), unless the row's class is
            /// itself mapped to [`OpClass::Opaque`] (modelled, not lowered yet).
            pub fn from_name(name: &str) -> Option<OpCode> {
                let own = match name {
                    $($name => Some(OpCode::$variant),)*
                    _ => None,
                };
                match own {
                    Some(op) if op.class() != OpClass::Opaque => Some(op),
                    _ => npusim_pto::OpCode::by_mlir(name)
                        .map(OpCode::Tile)
                        .filter(|t| t.class() != OpClass::Opaque)
                        .or(own),
                }
            }

            /// Its class.
            pub fn class(self) -> OpClass {
                match self { OpCode::Tile(t) => tile_class(t), $(OpCode::$variant => OpClass::$class,)* }
            }
        }
    };
}

/// The PTO-AS spellings of the tile instructions (`OpCode::TAdd` is `OpCode::Tile(Tadd)`), from
/// the aliases of `npusim-pto`'s rows.
macro_rules! tile_aliases {
    ($(($v:ident $alias:ident, $($rest:tt)*)),* $(,)?) => {
        #[allow(non_upper_case_globals)]
        impl OpCode {
            $(
                #[doc = concat!("`OpCode::Tile(", stringify!($v), ")`")]
                pub const $alias: OpCode = OpCode::Tile(npusim_pto::OpCode::$v);
            )*
        }
    };
}
npusim_pto::for_each_tile_op!(tile_aliases);

/// The verifier's class of a tile instruction, from its operand class in `npusim-pto`.
fn tile_class(op: npusim_pto::OpCode) -> OpClass {
    use npusim_pto::Class as C;
    match op.info().class {
        C::Unary => OpClass::Unary,
        C::Binary => OpClass::Binary,
        C::Ternary | C::TileScalarTile => OpClass::Ternary,
        C::TileScalar | C::Fill => OpClass::TileScalar,
        C::Partial => OpClass::Partial,
        C::PartialArg | C::RowArgReduce | C::ColArgReduce => OpClass::ArgReduce,
        C::RowReduce | C::ColReduce => OpClass::Reduce,
        C::Expand | C::ExpandBinary => OpClass::Expand,
        C::Compare | C::CompareScalar => OpClass::Cmp,
        C::Select | C::SelectScalar => OpClass::Select,
        C::Convert => OpClass::Cvt,
        C::Load | C::Store | C::StoreFp | C::Prefetch | C::GmGather | C::GmScatter => {
            OpClass::Memory
        }
        C::Move | C::Extract | C::Insert | C::Transpose | C::FillPad | C::Concat => OpClass::Move,
        C::Iota | C::Tri => OpClass::TileScalar,
        C::Matmul | C::MatmulAcc | C::MatmulBias => OpClass::Matmul,
        C::MatmulMx => OpClass::Matmul,
        C::Print => OpClass::Debug,
        // Modelled in npusim-pto, not lowered by the interpreter yet: PTO-AS keeps parsing
        // these generically (with their verifier rules) until it lowers them.
        C::Sort32
        | C::MrgSort
        | C::Gather
        | C::GatherB
        | C::Scatter
        | C::Quant
        | C::Dequant
        | C::Histogram
        | C::ScaleAddr => OpClass::Opaque,
        // TRANDOM is PTOAS's own (opaque) row until the interpreter lowers it; PTOAS has no
        // TALIAS.
        C::Random | C::Alias => OpClass::Opaque,
        // One element type for every tile (the verifier's same-type rule).
        C::Interleave | C::PairReduce => OpClass::Unary,
        // Sources and destination of different types (no same-type rule).
        C::AddReluConv | C::AddDeqRelu => OpClass::Move,
        // TIMG2COL: PTOAS's manual defines no spelling (its config has no IR type); parsed
        // generically, not lowered.
        C::Img2col => OpClass::Opaque,
        // TPACK narrows: source and destination of different types.
        C::Pack => OpClass::Move,
        // TEXTRACT_FP / TINSERT_FP: Acc source, Scaling fp tile, another destination type.
        C::WindowFp => OpClass::Move,
        // Configuration state (SET_QUANT_*, SETHF32MODE, SETTF32MODE): no PTO-AS spelling for
        // SET_QUANT_* (their pages), attribute forms for the modes; parsed generically.
        C::Config => OpClass::Opaque,
    }
}

/// The DPS operand forms (`ins`, `outs`) of a tile instruction: strings over `T` (a
/// `!pto.tile_buf`), `S` (a scalar) and `P` (a `!pto.partition_tensor_view`), derived from
/// its row's operand class and optional operands (a `tmp` tile adds one `T`; TDIVS also takes
/// scalar/tile).
pub fn tile_forms(op: npusim_pto::OpCode) -> (&'static [&'static str], &'static [&'static str]) {
    use npusim_pto::{Class as C, Extra as X};
    let info = op.info();
    let x = info.extra;
    let ins: &'static [&'static str] = match (info.class, x) {
        (C::Unary | C::Transpose, X::Tmp) => &["T", "TT"],
        (C::Move, _) => &["T", "TT", "TS"],
        (C::Extract | C::Insert, _) => &["TSS"],
        (C::Unary | C::Transpose | C::Expand | C::FillPad, _) => &["T"],
        (C::Binary, X::Tmp) => &["TT", "TTT"],
        (C::Binary | C::Partial | C::Compare | C::Matmul, _) => &["TT"],
        (C::Ternary | C::MatmulAcc | C::MatmulBias, _) => &["TTT"],
        // TMATMUL_MX: (a, a_scale, b, b_scale); the ACC/BIAS forms add c_in first / bias last.
        (C::MatmulMx, _) => &["TTTT", "TTTTT"],
        (C::ScaleAddr, _) => &["T"],
        (C::TileScalarTile, _) => &["TST"],
        (C::TileScalar, X::Tmp) => &["TS", "TST"],
        (C::TileScalar, X::ScalarFirst) => &["TS", "ST"],
        (C::TileScalar | C::CompareScalar, _) => &["TS"],
        (C::Fill | C::Iota | C::Tri, _) => &["S"],
        (C::Concat, _) => &["TT"],
        (C::PartialArg, _) => &["TT", "TTTT"],
        (C::RowReduce | C::ColReduce | C::RowArgReduce | C::ColArgReduce | C::Convert, _) => {
            &["T", "TT"]
        }
        (C::ExpandBinary, _) => &["TT", "TTT"],
        (C::Select, _) => &["TTT", "TTTT"],
        (C::SelectScalar, _) => &["TTS", "TTTS"],
        (C::Load | C::Prefetch, _) => &["P"],
        // PTOAS also prints a store from `acc` with its pre-quant scalar: `ins(%acc, %pre)`.
        (C::Store, _) => &["T", "TS"],
        (C::Print, _) => &["T", "P"],
        (C::Sort32, _) => &["TT", "TTT"],
        (C::MrgSort, _) => &["TS", "TT", "TTT", "TTTT"],
        (C::Gather, _) => &["T", "TT", "TTT", "TST"],
        (C::GatherB | C::Scatter, _) => &["TT"],
        (C::Quant, _) => &["TT", "TTT"],
        (C::Dequant, _) => &["TTT"],
        (C::Histogram, _) => &["TT"],
        (C::StoreFp, _) => &["TT"],
        (C::GmGather, _) => &["PT"],
        (C::GmScatter, _) => &["TT"],
        (C::Random, _) => &["SSSSSS"],
        (C::Alias, _) => &["T"],
        (C::Interleave, _) => &["TT", "T"],
        (C::PairReduce, _) => &["T"],
        (C::AddReluConv, _) => &["TT"],
        (C::AddDeqRelu, _) => &["TTST"],
        (C::Img2col, _) => &["T"],
        (C::Pack, _) => &["T"],
        // (src, fp, indexRow, indexCol)
        (C::WindowFp, _) => &["TTSS"],
        (C::Config, _) => &["", "T"],
    };
    let outs: &'static [&'static str] = match info.class {
        C::PartialArg => &["T", "TT"],
        C::Store | C::StoreFp | C::GmScatter => &["P"],
        C::Print => &[""],
        C::MrgSort => &["T", "TTS", "TT"],
        C::Gather => &["T", "TT"],
        C::Interleave => &["TT"],
        C::Config => &[""],
        _ => &["T"],
    };
    (ins, outs)
}

op_table! {
    // ---- views and allocation (manual §4.1) ----
    MakeTensorView => "pto.make_tensor_view", View;
    PartitionView => "pto.partition_view", View;
    AllocTile => "pto.alloc_tile", View;
    SetValidShape => "pto.set_validshape", View;
    // ---- runtime intrinsics (manual §4.19) ----
    GetBlockIdx => "pto.get_block_idx", Runtime;
    GetBlockNum => "pto.get_block_num", Runtime;
    GetSubblockIdx => "pto.get_subblock_idx", Runtime;
    GetSubblockNum => "pto.get_subblock_num", Runtime;
    // ---- sections (manual §4.17) ----
    SectionVector => "pto.section.vector", Section;
    SectionCube => "pto.section.cube", Section;
    // ---- synchronisation (manual §4.16) ----
    RecordEvent => "pto.record_event", Sync;
    WaitEvent => "pto.wait_event", Sync;
    SetFlag => "pto.set_flag", Sync;
    WaitFlag => "pto.wait_flag", Sync;
    Barrier => "pto.barrier", Sync;
    BarrierSync => "pto.barrier_sync", Sync;
    SyncSet => "pto.sync.set", Sync;
    SyncWait => "pto.sync.wait", Sync;
    // ---- arith ----
    Constant => "arith.constant", Constant;
    AddI => "arith.addi", IntArith;
    SubI => "arith.subi", IntArith;
    MulI => "arith.muli", IntArith;
    DivSI => "arith.divsi", IntArith;
    DivUI => "arith.divui", IntArith;
    RemSI => "arith.remsi", IntArith;
    RemUI => "arith.remui", IntArith;
    CeilDivSI => "arith.ceildivsi", IntArith;
    CeilDivUI => "arith.ceildivui", IntArith;
    FloorDivSI => "arith.floordivsi", IntArith;
    MinSI => "arith.minsi", IntArith;
    MinUI => "arith.minui", IntArith;
    MaxSI => "arith.maxsi", IntArith;
    MaxUI => "arith.maxui", IntArith;
    AndI => "arith.andi", IntArith;
    OrI => "arith.ori", IntArith;
    XOrI => "arith.xori", IntArith;
    ShLI => "arith.shli", IntArith;
    ShRSI => "arith.shrsi", IntArith;
    ShRUI => "arith.shrui", IntArith;
    AddF => "arith.addf", FloatArith;
    SubF => "arith.subf", FloatArith;
    MulF => "arith.mulf", FloatArith;
    DivF => "arith.divf", FloatArith;
    RemF => "arith.remf", FloatArith;
    MaximumF => "arith.maximumf", FloatArith;
    MinimumF => "arith.minimumf", FloatArith;
    MaxNumF => "arith.maxnumf", FloatArith;
    MinNumF => "arith.minnumf", FloatArith;
    NegF => "arith.negf", FloatUnary;
    IndexCast => "arith.index_cast", Cast;
    IndexCastUI => "arith.index_castui", Cast;
    ExtSI => "arith.extsi", Cast;
    ExtUI => "arith.extui", Cast;
    TruncI => "arith.trunci", Cast;
    SIToFP => "arith.sitofp", Cast;
    UIToFP => "arith.uitofp", Cast;
    FPToSI => "arith.fptosi", Cast;
    FPToUI => "arith.fptoui", Cast;
    ExtF => "arith.extf", Cast;
    TruncF => "arith.truncf", Cast;
    Bitcast => "arith.bitcast", Cast;
    CmpI => "arith.cmpi", ScalarCmp;
    CmpF => "arith.cmpf", ScalarCmp;
    Select => "arith.select", ScalarCmp;
    // ---- control flow and structure ----
    ScfFor => "scf.for", Control;
    ScfIf => "scf.if", Control;
    ScfWhile => "scf.while", Control;
    ScfYield => "scf.yield", Control;
    ScfCondition => "scf.condition", Control;
    FuncFunc => "func.func", Control;
    FuncReturn => "func.return", Control;
    Return => "return", Control;
    FuncCall => "func.call", Control;
    Call => "call", Control;
    Module => "module", Control;
    // ---- parsed and verified, not executed (OpKind::Opaque); tile names here are shadowed
    // by `npusim-pto`'s rows when it has them (see `from_name`) ----
    PtoAddptr => "pto.addptr", Opaque;
    PtoAicInitializePipe => "pto.aic_initialize_pipe", Opaque;
    PtoAivInitializePipe => "pto.aiv_initialize_pipe", Opaque;
    PtoBindTile => "pto.bind_tile", Opaque;
    PtoBitcast => "pto.bitcast", Opaque;
    PtoBuildAsyncSession => "pto.build_async_session", Opaque;
    PtoDeclareEventidArray => "pto.declare_eventid_array", Opaque;
    PtoDeclareTile => "pto.declare_tile", Opaque;
    PtoDeclareTileMemref => "pto.declare_tile_memref", Opaque;
    PtoEventidArrayGet => "pto.eventid_array_get", Opaque;
    PtoEventidArraySet => "pto.eventid_array_set", Opaque;
    PtoGetBuf => "pto.get_buf", Opaque;
    PtoGetTensorViewDim => "pto.get_tensor_view_dim", Opaque;
    PtoImportReservedBuffer => "pto.import_reserved_buffer", Opaque;
    PtoInitializeL2g2lPipe => "pto.initialize_l2g2l_pipe", Opaque;
    PtoInitializeL2lPipe => "pto.initialize_l2l_pipe", Opaque;
    PtoLoadScalar => "pto.load_scalar", Opaque;
    PtoPointerCast => "pto.pointer_cast", Opaque;
    PtoPrint => "pto.print", Opaque;
    PtoReserveBuffer => "pto.reserve_buffer", Opaque;
    PtoRlsBuf => "pto.rls_buf", Opaque;
    PtoSetFfts => "pto.set_ffts", Opaque;
    PtoSetFlagDyn => "pto.set_flag_dyn", Opaque;
    PtoStoreScalar => "pto.store_scalar", Opaque;
    PtoSubset => "pto.subset", Opaque;
    PtoTassign => "pto.tassign", Opaque;
    PtoTestAsyncEvent => "pto.test_async_event", Opaque;
    PtoTfree => "pto.tfree", Opaque;
    PtoTfreeFromAic => "pto.tfree_from_aic", Opaque;
    PtoTfreeFromAiv => "pto.tfree_from_aiv", Opaque;
    PtoTgetAsync => "pto.tget_async", Opaque;
    PtoTpop => "pto.tpop", Opaque;
    PtoTpopFromAic => "pto.tpop_from_aic", Opaque;
    PtoTpopFromAiv => "pto.tpop_from_aiv", Opaque;
    PtoTpush => "pto.tpush", Opaque;
    PtoTpushToAic => "pto.tpush_to_aic", Opaque;
    PtoTpushToAiv => "pto.tpush_to_aiv", Opaque;
    PtoTputAsync => "pto.tput_async", Opaque;
    PtoTrap => "pto.trap", Opaque;
    PtoTreshape => "pto.treshape", Opaque;
    PtoTsync => "pto.tsync", Opaque;
    PtoWaitAsyncEvent => "pto.wait_async_event", Opaque;
    PtoWaitFlagDyn => "pto.wait_flag_dyn", Opaque;
    PtoTalloc => "pto.talloc", Opaque;
    PtoTabs => "pto.tabs", Opaque;
    PtoTadd => "pto.tadd", Opaque;
    PtoTaddc => "pto.taddc", Opaque;
    PtoTadds => "pto.tadds", Opaque;
    PtoTaddsc => "pto.taddsc", Opaque;
    PtoTand => "pto.tand", Opaque;
    PtoTands => "pto.tands", Opaque;
    PtoTaxpy => "pto.taxpy", Opaque;
    PtoTcmp => "pto.tcmp", Opaque;
    PtoTcmps => "pto.tcmps", Opaque;
    PtoTcolargmax => "pto.tcolargmax", Opaque;
    PtoTcolargmin => "pto.tcolargmin", Opaque;
    PtoTcolexpand => "pto.tcolexpand", Opaque;
    PtoTcolexpandadd => "pto.tcolexpandadd", Opaque;
    PtoTcolexpanddiv => "pto.tcolexpanddiv", Opaque;
    PtoTcolexpandexpdif => "pto.tcolexpandexpdif", Opaque;
    PtoTcolexpandmax => "pto.tcolexpandmax", Opaque;
    PtoTcolexpandmin => "pto.tcolexpandmin", Opaque;
    PtoTcolexpandmul => "pto.tcolexpandmul", Opaque;
    PtoTcolexpandsub => "pto.tcolexpandsub", Opaque;
    PtoTcolmax => "pto.tcolmax", Opaque;
    PtoTcolmin => "pto.tcolmin", Opaque;
    PtoTcolprod => "pto.tcolprod", Opaque;
    PtoTcolsum => "pto.tcolsum", Opaque;
    PtoTcvt => "pto.tcvt", Opaque;
    PtoTdequant => "pto.tdequant", Opaque;
    PtoTdiv => "pto.tdiv", Opaque;
    PtoTdivs => "pto.tdivs", Opaque;
    PtoTexp => "pto.texp", Opaque;
    PtoTexpands => "pto.texpands", Opaque;
    PtoTextract => "pto.textract", Opaque;
    PtoTextractFp => "pto.textract_fp", Opaque;
    PtoTfmod => "pto.tfmod", Opaque;
    PtoTfmods => "pto.tfmods", Opaque;
    PtoTgather => "pto.tgather", Opaque;
    PtoTgatherb => "pto.tgatherb", Opaque;
    PtoTgemv => "pto.tgemv", Opaque;
    PtoTgemvAcc => "pto.tgemv.acc", Opaque;
    PtoTgemvBias => "pto.tgemv.bias", Opaque;
    PtoTgemvMx => "pto.tgemv.mx", Opaque;
    PtoTgemvMxAcc => "pto.tgemv.mx.acc", Opaque;
    PtoTgemvMxBias => "pto.tgemv.mx.bias", Opaque;
    PtoTgetScaleAddr => "pto.tget_scale_addr", Opaque;
    PtoTgetval => "pto.tgetval", Opaque;
    PtoThistogram => "pto.thistogram", Opaque;
    PtoTinsert => "pto.tinsert", Opaque;
    PtoTinsertFp => "pto.tinsert_fp", Opaque;
    PtoTlog => "pto.tlog", Opaque;
    PtoTlrelu => "pto.tlrelu", Opaque;
    PtoTmatmul => "pto.tmatmul", Opaque;
    PtoTmatmulAcc => "pto.tmatmul.acc", Opaque;
    PtoTmatmulBias => "pto.tmatmul.bias", Opaque;
    PtoTmatmulMx => "pto.tmatmul.mx", Opaque;
    PtoTmatmulMxAcc => "pto.tmatmul.mx.acc", Opaque;
    PtoTmatmulMxBias => "pto.tmatmul.mx.bias", Opaque;
    PtoTmax => "pto.tmax", Opaque;
    PtoTmaxs => "pto.tmaxs", Opaque;
    PtoTmin => "pto.tmin", Opaque;
    PtoTmins => "pto.tmins", Opaque;
    PtoTmov => "pto.tmov", Opaque;
    PtoTmovFp => "pto.tmov.fp", Opaque;
    PtoTmrgsort => "pto.tmrgsort", Opaque;
    PtoTmul => "pto.tmul", Opaque;
    PtoTmuls => "pto.tmuls", Opaque;
    PtoTneg => "pto.tneg", Opaque;
    PtoTnot => "pto.tnot", Opaque;
    PtoTor => "pto.tor", Opaque;
    PtoTors => "pto.tors", Opaque;
    PtoTpack => "pto.tpack", Opaque;
    PtoTpartadd => "pto.tpartadd", Opaque;
    PtoTpartmax => "pto.tpartmax", Opaque;
    PtoTpartmin => "pto.tpartmin", Opaque;
    PtoTpartmul => "pto.tpartmul", Opaque;
    PtoTprelu => "pto.tprelu", Opaque;
    PtoTquant => "pto.tquant", Opaque;
    PtoTrandom => "pto.trandom", Opaque;
    PtoTrecip => "pto.trecip", Opaque;
    PtoTrelu => "pto.trelu", Opaque;
    PtoTrem => "pto.trem", Opaque;
    PtoTrems => "pto.trems", Opaque;
    PtoTrowargmax => "pto.trowargmax", Opaque;
    PtoTrowargmin => "pto.trowargmin", Opaque;
    PtoTrowexpand => "pto.trowexpand", Opaque;
    PtoTrowexpandadd => "pto.trowexpandadd", Opaque;
    PtoTrowexpanddiv => "pto.trowexpanddiv", Opaque;
    PtoTrowexpandexpdif => "pto.trowexpandexpdif", Opaque;
    PtoTrowexpandmax => "pto.trowexpandmax", Opaque;
    PtoTrowexpandmin => "pto.trowexpandmin", Opaque;
    PtoTrowexpandmul => "pto.trowexpandmul", Opaque;
    PtoTrowexpandsub => "pto.trowexpandsub", Opaque;
    PtoTrowmax => "pto.trowmax", Opaque;
    PtoTrowmin => "pto.trowmin", Opaque;
    PtoTrowprod => "pto.trowprod", Opaque;
    PtoTrowsum => "pto.trowsum", Opaque;
    PtoTrsqrt => "pto.trsqrt", Opaque;
    PtoTscatter => "pto.tscatter", Opaque;
    PtoTsel => "pto.tsel", Opaque;
    PtoTsels => "pto.tsels", Opaque;
    PtoTsetval => "pto.tsetval", Opaque;
    PtoTshl => "pto.tshl", Opaque;
    PtoTshls => "pto.tshls", Opaque;
    PtoTshr => "pto.tshr", Opaque;
    PtoTshrs => "pto.tshrs", Opaque;
    PtoTsort32 => "pto.tsort32", Opaque;
    PtoTsqrt => "pto.tsqrt", Opaque;
    PtoTstoreFp => "pto.tstore_fp", Opaque;
    PtoTsub => "pto.tsub", Opaque;
    PtoTsubc => "pto.tsubc", Opaque;
    PtoTsubs => "pto.tsubs", Opaque;
    PtoTsubsc => "pto.tsubsc", Opaque;
    PtoTtrans => "pto.ttrans", Opaque;
    PtoTxor => "pto.txor", Opaque;
    PtoTxors => "pto.txors", Opaque;
    MemrefAlloc => "memref.alloc", Opaque;
    MemrefDealloc => "memref.dealloc", Opaque;
    MemrefReinterpretCast => "memref.reinterpret_cast", Opaque;
    MemrefSubview => "memref.subview", Opaque;
    MemrefCast => "memref.cast", Opaque;
}

impl OpCode {
    /// Every op: the tile instructions in `npusim-pto`'s table order, then the dialect's own.
    pub fn all() -> impl Iterator<Item = OpCode> {
        npusim_pto::OPS
            .iter()
            .map(|i| OpCode::Tile(i.code))
            .filter(|op| op.class() != OpClass::Opaque)
            .chain(
                OWN.iter()
                    .copied()
                    .filter(|op| OpCode::from_name(op.name()) == Some(*op)),
            )
    }

    /// Accepted `ins(...)` operand forms of a DPS op (empty for non-DPS ops).
    pub fn ins_forms(self) -> &'static [&'static str] {
        match self {
            OpCode::Tile(t) => tile_forms(t).0,
            _ => &[],
        }
    }

    /// Accepted `outs(...)` operand forms of a DPS op.
    pub fn outs_forms(self) -> &'static [&'static str] {
        match self {
            OpCode::Tile(t) => tile_forms(t).1,
            _ => &[],
        }
    }

    /// Whether this op is written in DPS form `ins(...) outs(...)`.
    pub fn is_dps(self) -> bool {
        !self.ins_forms().is_empty()
    }
}

/// Where an operand segment of the MLIR generic op form goes in the DPS form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SegmentRole {
    /// Into `ins(...)`, at this position (segments sharing a position are alternatives).
    Ins(usize),
    /// Into `outs(...)`, at this position.
    Outs(usize),
    /// A keyword operand of the custom form (`pad_value = %v : T`) that the DPS form of this
    /// crate does not carry: accepted only when the segment is empty.
    Keyword,
}

/// How many operands a segment holds (the ODS operand's kind).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SegmentArity {
    /// Exactly one (a plain ODS operand).
    One,
    /// Zero or one (`Optional<...>`).
    Optional,
    /// Any number (`Variadic<...>`).
    Variadic,
}

/// One operand segment of an op's ODS definition, in declaration order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    /// The ODS operand name (`src`, `dst`, `fp`, `preQuantScalar`, ...).
    pub name: &'static str,
    /// Where it goes in the DPS form.
    pub role: SegmentRole,
    /// Its arity.
    pub arity: SegmentArity,
}

/// The operand segments of the DPS tile ops in the MLIR generic op form
/// (`"pto.tmov"(%src, %dst, %pre) <{operandSegmentSizes = array<i32: 1, 1, 0, 1>}> : ...`):
/// per op, its ODS operands in declaration order (hw-native-sys/PTOAS
/// `include/PTO/IR/PTOOps.td`, `let arguments`) and where each goes in the op's custom form
/// (the `ins`/`outs` groups of its `assemblyFormat`, or of its custom printer in
/// `lib/PTO/IR/PTO.cpp` for `tgather`, `tmrgsort`, `tdivs`, `tcvt`, `tcolsum`, `tquant`,
/// `tdequant`, `trsqrt`, `tsort32` and the `trowexpand*` family). Each row is
/// `name:ROLE[ARITY]`: ROLE `iN` (ins position N), `oN` (outs position N) or `x` (a keyword
/// operand); ARITY none (one), `?` (optional) or `*` (variadic).
const GENERIC_SEGMENTS: &[(&str, &str)] = &[
    (
        "pto.tload",
        "src:i0 dst:o0 pad_value:x? left_padding_num:x? right_padding_num:x? init_condition:x?",
    ),
    ("pto.tprefetch", "src:i0 dst:o0"),
    ("pto.tstore", "src:i0 dst:o0 preQuantScalar:i1?"),
    ("pto.tpack", "src:i0 dst:o0"),
    ("pto.ttrans", "src:i0 tmp:i1 dst:o0"),
    ("pto.tmatmul.bias", "a:i0 b:i1 bias:i2 dst:o0"),
    ("pto.tmatmul.mx", "a:i0 a_scale:i1 b:i2 b_scale:i3 dst:o0"),
    (
        "pto.tmatmul.mx.acc",
        "c_in:i0 a:i1 a_scale:i2 b:i3 b_scale:i4 dst:o0",
    ),
    (
        "pto.tmatmul.mx.bias",
        "a:i0 a_scale:i1 b:i2 b_scale:i3 bias:i4 dst:o0",
    ),
    ("pto.tmatmul", "lhs:i0 rhs:i1 dst:o0"),
    ("pto.tmatmul.acc", "acc_in:i0 lhs:i1 rhs:i2 dst:o0"),
    ("pto.tgemv", "lhs:i0 rhs:i1 dst:o0"),
    ("pto.tgemv.acc", "acc_in:i0 lhs:i1 rhs:i2 dst:o0"),
    ("pto.tgemv.bias", "a:i0 b:i1 bias:i2 dst:o0"),
    ("pto.tgemv.mx", "a:i0 a_scale:i1 b:i2 b_scale:i3 dst:o0"),
    (
        "pto.tgemv.mx.acc",
        "c_in:i0 a:i1 a_scale:i2 b:i3 b_scale:i4 dst:o0",
    ),
    (
        "pto.tgemv.mx.bias",
        "a:i0 a_scale:i1 b:i2 b_scale:i3 bias:i4 dst:o0",
    ),
    ("pto.tmov", "src:i0 dst:o0 fp:i1? preQuantScalar:i2?"),
    ("pto.tsetval", "dst:o0 offset:i0 val:i1"),
    ("pto.thistogram", "src:i0 idx:i1 dst:o0"),
    ("pto.tget_scale_addr", "src:i0 dst:o0"),
    ("pto.tabs", "src:i0 dst:o0"),
    ("pto.tadd", "src0:i0 src1:i1 dst:o0"),
    ("pto.taddc", "src0:i0 src1:i1 src2:i2 dst:o0"),
    ("pto.tadds", "src:i0 scalar:i1 dst:o0"),
    ("pto.taxpy", "src:i0 scalar:i1 dst:o0"),
    ("pto.taddsc", "src0:i0 scalar:i1 src1:i2 dst:o0"),
    ("pto.tand", "src0:i0 src1:i1 dst:o0"),
    ("pto.tconcat", "src0:i0 src1:i1 dst:o0"),
    ("pto.tands", "src:i0 scalar:i1 dst:o0"),
    ("pto.tci", "S:i0 dst:o0"),
    ("pto.ttri", "diagonal:i0 dst:o0"),
    ("pto.tcmp", "src0:i0 src1:i1 dst:o0"),
    ("pto.tcmps", "src:i0 scalar:i1 dst:o0"),
    ("pto.tcolexpand", "src:i0 dst:o0"),
    ("pto.tcolexpandadd", "src0:i0 src1:i1 dst:o0"),
    ("pto.tcolexpandmul", "src0:i0 src1:i1 dst:o0"),
    ("pto.tcolexpanddiv", "src0:i0 src1:i1 dst:o0"),
    ("pto.tcolexpandsub", "src0:i0 src1:i1 dst:o0"),
    ("pto.tcolexpandexpdif", "src0:i0 src1:i1 dst:o0"),
    ("pto.tcolexpandmax", "src0:i0 src1:i1 dst:o0"),
    ("pto.tcolexpandmin", "src0:i0 src1:i1 dst:o0"),
    ("pto.tcolmax", "src:i0 dst:o0"),
    ("pto.tcolargmax", "src:i0 tmp:i1 dst:o0"),
    ("pto.tcolmin", "src:i0 dst:o0"),
    ("pto.tcolargmin", "src:i0 tmp:i1 dst:o0"),
    ("pto.tcolsum", "src:i0 tmp:i1? dst:o0"),
    ("pto.tcolprod", "src:i0 dst:o0"),
    ("pto.tcvt", "src:i0 dst:o0 tmp:i1?"),
    (
        "pto.trandom",
        "key0:i0 key1:i1 counter0:i2 counter1:i3 counter2:i4 counter3:i5 dst:o0",
    ),
    ("pto.tdiv", "src0:i0 src1:i1 dst:o0"),
    ("pto.tdivs", "src:i0 scalar:i1 dst:o0"),
    ("pto.tfmod", "src0:i0 src1:i1 dst:o0"),
    ("pto.tfmods", "src:i0 scalar:i1 dst:o0"),
    ("pto.texp", "src:i0 dst:o0"),
    ("pto.texpands", "scalar:i0 dst:o0"),
    ("pto.textract", "src:i0 indexRow:i1 indexCol:i2 dst:o0"),
    (
        "pto.textract_fp",
        "src:i0 fp:i1 indexRow:i2 indexCol:i3 dst:o0",
    ),
    ("pto.tinsert", "src:i0 indexRow:i1 indexCol:i2 dst:o0"),
    (
        "pto.tinsert_fp",
        "src:i0 fp:i1 indexRow:i2 indexCol:i3 dst:o0",
    ),
    ("pto.tfillpad", "src:i0 dst:o0"),
    ("pto.tfillpad_expand", "src:i0 dst:o0"),
    ("pto.tfillpad_inplace", "src:i0 dst:o0"),
    (
        "pto.tgather",
        "src:i0 dst:o0 cdst:o1? indices:i1? tmp:i2? kValue:i1?",
    ),
    ("pto.tgatherb", "src:i0 offsets:i1 dst:o0"),
    ("pto.tlog", "src:i0 dst:o0"),
    ("pto.tlrelu", "src:i0 slope:i1 dst:o0"),
    ("pto.tmax", "src0:i0 src1:i1 dst:o0"),
    ("pto.tmaxs", "src:i0 scalar:i1 dst:o0"),
    ("pto.tmin", "src0:i0 src1:i1 dst:o0"),
    ("pto.tmins", "src:i0 scalar:i1 dst:o0"),
    ("pto.tmov.fp", "src:i0 fp:i1 dst:o0"),
    (
        "pto.tmrgsort",
        "srcs:i0* blockLen:i1? dsts:o0* tmp:i2? excuted:o1?",
    ),
    ("pto.tmul", "src0:i0 src1:i1 dst:o0"),
    ("pto.tmuls", "src0:i0 scalar:i1 dst:o0"),
    ("pto.tneg", "src:i0 dst:o0"),
    ("pto.tnot", "src:i0 dst:o0"),
    ("pto.tor", "src0:i0 src1:i1 dst:o0"),
    ("pto.tors", "src:i0 scalar:i1 dst:o0"),
    ("pto.tpartadd", "src0:i0 src1:i1 dst:o0"),
    ("pto.tpartmax", "src0:i0 src1:i1 dst:o0"),
    ("pto.tpartmin", "src0:i0 src1:i1 dst:o0"),
    ("pto.tpartmul", "src0:i0 src1:i1 dst:o0"),
    ("pto.tprelu", "src0:i0 src1:i1 tmp:i2 dst:o0"),
    ("pto.tquant", "src:i0 fp:i1 offset:i2? dst:o0"),
    ("pto.tdequant", "src:i0 scale:i1 offset:i2 dst:o0"),
    ("pto.trecip", "src:i0 dst:o0"),
    ("pto.trelu", "src:i0 dst:o0"),
    ("pto.trem", "src0:i0 src1:i1 tmp:i2 dst:o0"),
    ("pto.trems", "src:i0 scalar:i1 tmp:i2 dst:o0"),
    ("pto.trowexpand", "src:i0 dst:o0"),
    ("pto.trowexpanddiv", "src0:i0 src1:i1 tmp:i2? dst:o0"),
    ("pto.trowexpandmul", "src0:i0 src1:i1 tmp:i2? dst:o0"),
    ("pto.trowexpandsub", "src0:i0 src1:i1 tmp:i2? dst:o0"),
    ("pto.trowexpandadd", "src0:i0 src1:i1 dst:o0"),
    ("pto.trowexpandexpdif", "src0:i0 src1:i1 tmp:i2? dst:o0"),
    ("pto.trowexpandmax", "src0:i0 src1:i1 tmp:i2? dst:o0"),
    ("pto.trowexpandmin", "src0:i0 src1:i1 tmp:i2? dst:o0"),
    ("pto.trowmax", "src:i0 tmp:i1 dst:o0"),
    ("pto.trowargmax", "src:i0 tmp:i1 dst:o0"),
    ("pto.trowmin", "src:i0 tmp:i1 dst:o0"),
    ("pto.trowargmin", "src:i0 tmp:i1 dst:o0"),
    ("pto.trowsum", "src:i0 tmp:i1 dst:o0"),
    ("pto.trowprod", "src:i0 tmp:i1 dst:o0"),
    ("pto.trsqrt", "src:i0 dst:o0 tmp:i1?"),
    ("pto.tscatter", "src:i0 indexes:i1 dst:o0"),
    ("pto.tsel", "mask:i0 src0:i1 src1:i2 tmp:i3 dst:o0"),
    ("pto.tsels", "mask:i0 src:i1 tmp:i2 scalar:i3 dst:o0"),
    ("pto.tshl", "src0:i0 src1:i1 dst:o0"),
    ("pto.tshr", "src0:i0 src1:i1 dst:o0"),
    ("pto.tshls", "src:i0 scalar:i1 dst:o0"),
    ("pto.tshrs", "src:i0 scalar:i1 dst:o0"),
    ("pto.tsort32", "src:i0 idx:i1 tmp:i2? dst:o0"),
    ("pto.tsqrt", "src:i0 dst:o0"),
    ("pto.tstore_fp", "src:i0 fp:i1 dst:o0"),
    ("pto.tsub", "src0:i0 src1:i1 dst:o0"),
    ("pto.tsubc", "src0:i0 src1:i1 src2:i2 dst:o0"),
    ("pto.tsubs", "src:i0 scalar:i1 dst:o0"),
    ("pto.tsubsc", "src0:i0 scalar:i1 src1:i2 dst:o0"),
    ("pto.txors", "src:i0 scalar:i1 tmp:i2 dst:o0"),
    ("pto.txor", "src0:i0 src1:i1 tmp:i2 dst:o0"),
];

/// The operand segments of `name` in the generic op form ([`GENERIC_SEGMENTS`]'s row), or
/// `None` when this crate does not know them.
pub fn generic_segments(name: &str) -> Option<Vec<Segment>> {
    let spec: &'static str = GENERIC_SEGMENTS.iter().find(|(n, _)| *n == name)?.1;
    spec.split_whitespace()
        .map(|item| {
            let (seg, role) = item.split_once(':')?;
            let (role, arity) = match role.as_bytes().last() {
                Some(b'?') => (&role[..role.len() - 1], SegmentArity::Optional),
                Some(b'*') => (&role[..role.len() - 1], SegmentArity::Variadic),
                _ => (role, SegmentArity::One),
            };
            let role = match role.split_at_checked(1)? {
                ("i", n) => SegmentRole::Ins(n.parse().ok()?),
                ("o", n) => SegmentRole::Outs(n.parse().ok()?),
                ("x", "") => SegmentRole::Keyword,
                _ => return None,
            };
            Some(Segment {
                name: seg,
                role,
                arity,
            })
        })
        .collect()
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
    OpCode::all()
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
        for op in OpCode::all() {
            assert_eq!(OpCode::from_name(op.name()), Some(op), "{}", op.name());
        }
        let mut names: Vec<_> = OpCode::all().map(|o| o.name()).collect();
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
        for op in OpCode::all() {
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
