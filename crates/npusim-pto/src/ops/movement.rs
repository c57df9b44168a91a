//! The layout moves: TMOV (with the fixpipe modes of Acc sources), TEXTRACT, TINSERT, and the
//! location/layout rules every cube-side tile obeys at declaration.
//!
//! Implements pto-isa `docs/isa/TMOV.md`, `docs/isa/TEXTRACT.md`, the TINSERT entry of
//! hw-native-sys/PTOAS `docs/PTO_IR_manual.md` (`dst[i + row, j + col] = src[i, j]`) and the
//! tile aliases of `docs/coding/Tile.md` (TileLeft, TileRight, TileAcc).
//!
//! ## Declaration rules ([`check_declared`])
//! | location | A2A3 | A5 |
//! |---|---|---|
//! | Left (L0A) | boxed Zz or Nz, fractal 512 | boxed Nz or Zz, fractal 512 |
//! | Right (L0B) | Zn, fractal 512 | Zn, fractal 512 |
//! | Acc (L0C) | Nz, fractal 1024 or 512 | Nz, fractal 1024 or 512 |
//! | Bias | one row, plain row-major | one row, plain row-major |
//! | Scaling | any | any |
//! | ScaleLeft (L0A_MX) | none (a typed error) | Zz, fractal 32 (`TileLeftScale`) |
//! | ScaleRight (L0B_MX) | none (a typed error) | Nn, fractal 32 (`TileRightScale`) |
//!
//! These are what PTOAS's verifier accepts; pto-isa's pages show the most common of each
//! (A5 Left Nz, Acc fractal 1024, one-row Scaling for the fixpipe).
//!
//! Vec and Mat tiles take any layout (ND, DN, Nz, Zn, Zz, Nn).
//!
//! ## TMOV
//! Location pairs: Mat → Left/Right/Bias/Scaling and Vec → Vec on both arches, Acc → Mat on
//! both, and on A5 also Vec → Mat and Acc → Vec (the pto-isa page lists Acc → Vec for A5 only;
//! the PTOAS manual also lists it for A2A3, where the hardware has no L0C → UB path: npusim
//! follows the ISA page). Static shapes must match except for moves out of Vec and Acc on A5,
//! where the copied region is the smaller of the two valid regions. Elsewhere the copied region
//! is `src`'s valid region, which must fit `dst`.
//!
//! Moves out of Acc go through the fixpipe, one pure function per element: without a quant
//! word ([`fixpipe`]) ReLU (`reluPreMode = normal_relu`: `max(x, 0)`, NaN kept) and the cast to
//! the destination type (float to half/bfloat16 rounds to nearest even); with one (a scalar, or
//! per column a uint64 word of a Scaling tile) [`fix_quant`] as "The quant word" below says.
//! Legal pairs without a scale ([`acc_cast_pair_legal`], site Move:
//! the cast form of TMOV, its ReLU form and TINSERT): on A2A3 float → half, bfloat16 only
//! (`a2a3/common.hpp` `CheckTMovAccToMat<.., true>`; float → float and int32 → int32 are typed
//! errors); on A5 float → float, half, bfloat16 and int32 → int32. The public CPU simulator
//! (`include/pto/cpu/TMov.hpp`) checks no pair and copies element by element, so it also
//! runs the A2A3 pairs the NPU refuses: npusim follows the hardware (no policy: a program the
//! NPU build rejects has no hardware result to reproduce). With a scale, see "Quantised pairs" below (int32 converts to f32
//! first, rounding to nearest even).
//!
//! ## Quantised pairs ([`quant_pair`])
//! With a quant operand (preQuantScalar, or the fp tile of TMOV_FP / TEXTRACT_FP / TINSERT_FP
//! / TSTORE_FP) the pairs are pto-isa's NPU lists. A2A3 (`CheckTMovAccToMat<.., false>`,
//! `CheckAcc2gm<.., true>`): float → int8/uint8; int32 → int8/uint8/half (the moves also int32
//! → int16 by shift). A5 (`CheckTMovAccValid<.., true>`, `CheckAcc2gm`, `docs/isa/TSTORE.md`):
//! float → int8/uint8/hifloat8/half/bfloat16/float8_e4m3/float; int32 → int8/uint8/half/
//! bfloat16. Every other pair is a typed error. Where pto-isa's
//! quant-mode function returns NoQuant for a legal pair, the hardware receives no quant mode
//! and ignores the operand: that is A5 float → float at the moves (`GetScalarPreQuantMode` /
//! `GetVectorPreQuantMode` of `a5/common.hpp` have no float output), so TMOV, TMOV_FP,
//! TEXTRACT_FP and TINSERT_FP copy float to float (ReLU still applies); the A5 store's `..Gm`
//! functions do have QF322F32_PRE / VQF322F32_PRE, so TSTORE_FP scales. Every pair in the
//! A2A3 lists has a quant mode. The fp tile's address must be a multiple of 128 bytes (FPC
//! holds it in 128-byte units: pto-isa's `SetFPC` shifts it right by 7).
//!
//! The public CPU simulator differs (not modelled as a policy): its one
//! `GetVectorPreQuantMode` (`include/pto/cpu/common.hpp`) has only float → int8/uint8 and
//! int32 → int8/uint8/half/int16, so it also ignores the words for float → half/bfloat16 and
//! int32 → bfloat16; it takes a scalar word's M1 as the whole IEEE single, adds the offset
//! before rounding, clamps half results to ±65504 and applies ReLU after the scale.
//!
//! ## The quant word ([`QuantWord`], [`fix_quant`])
//! asc-devkit `docs/zh/api/SIMD-API/基础API/矩阵计算（ISASI）/矩阵计算的搬出/关键特性说明/随路量化.md`
//! (table 1: A2A3, NPU arch 2201; table 2: A5, arch 3510) gives the uint64 word's fields, the
//! same for preQuantScalar and for each fp word: M1 = bits 31:13 read as a (1 sign, 8 exponent,
//! 10 mantissa) float, i.e. the IEEE single of the low 32 bits with its low 13 bits cleared (the
//! Fixpipe pages tell golden generators to clear them); on A2A3 N = bits 35:32 (a right shift
//! of code + 1, 1..16) and MCB = bit 36 (int32 inputs of (V)REQ8 / (V)DEQF16 are shifted by N
//! and saturated to int16 before the float conversion; bits 32..36 are unused on A5); the
//! 9-bit offset of bits 45:37, added in the 8-bit modes only; bit 46, which makes the 8-bit
//! modes saturate to int8 (1) or uint8 (0) — the word decides, not the destination type, so an
//! int8 tile receives uint8-saturated bytes when bit 46 is clear (pto-isa's
//! `SET_QUANT_SCALAR` and its NPU tests set the bit for int8 outputs and clear it for uint8).
//! The Fixpipe pages (`L0C到GM数据搬运（Fixpipe）.md`, `L0C到L1...`) forbid inf, NaN and
//! denormal quant parameters: such an M1 is a typed error (int32 → int16 does not use M1).
//! Per element ([`fix_quant`]), following the vendor's reference scripts (asc-devkit
//! `fixpipe_l0c2gm/scripts/gen_data_{f322s8,s322s8,s322f16}.py`, pto-isa's NPU tests
//! `tests/npu/{a2a3,a5}/src/st/testcase/tmov_acc2mat/gen_data.py`):
//! - int32 → int16 (A2A3 (V)SHIFTS322S16): `x >> N` (arithmetic), saturated to int16 (the
//!   a2a3 `qs2s16_pre` reference, words `(N - 1) << 32`); ReLU after.
//! - otherwise the input as f32 (int32 rounds to nearest even, after the MCB shift), ReLU, the
//!   product with M1 rounded to f32 (the reference scripts' float32 arithmetic), then:
//!   int8/uint8 ((V)REQ8, (V)QF322B8_PRE): rounded to nearest even within [-256, 255] (NaN
//!   gives 0), plus the offset, saturated by bit 46; half/bfloat16: nearest even; float8_e4m3
//!   (QF322FP8_PRE): nearest even, `ml_dtypes`' conversion (the golden of pto-isa's A5
//!   `tstore_acc2gm` test; no page states the rounding); hifloat8 (QF322HIF8_PRE): half away
//!   from zero (`随路量化.md`: "Half to Away Round"; `F8Format::HiF8`); float (A5 TSTORE_FP,
//!   QF322F32_PRE): the product.
//! - Float overflow and NaN ([`float_overflow`], [`fix_cast`]; with or without a quant word):
//!   the Fixpipe pages make them depend on CTRL[48] ([`crate::ops::config::SatCtrl`], 0 at
//!   reset): 1, non-saturating: inf and NaN kept, float8_e4m3 gives NaN for |x| past its
//!   largest normal (464 and up, as `ml_dtypes`); 0, saturating (the reset value, so the
//!   default): a result that rounds to inf (or, float8_e4m3, to NaN from a non-NaN value) is
//!   ±max of the output type (half 65504, bfloat16 0x7f7f, float8_e4m3 448, hifloat8 32768),
//!   a NaN input gives +0 — on A5 float8_e4m3 keeps NaN when CTRL[50] = 1. The types the bit
//!   covers are half, bfloat16, hifloat8 and float8_e4m3 (`SetCtrlSpr(ISASI).md`); float
//!   outputs (A5 QF322F32_PRE, plain float moves) keep inf and NaN, integer outputs always
//!   saturate. **Modes without the INF_NAN mode**: asc-devkit's C-API pages
//!   (`c_api/cube_datamove/asc_copy_l0c2{gm,l1}_arch_2201.md`, `..._arch_3510.md`,
//!   `asc_copy_l0c2ub.md`) say the results of F322F16 (A2A3 only; A5 "supports INF_NAN"),
//!   F322BF16, DEQF16 and VDEQF16 do not support the INF_NAN (non-saturating) mode; the Fixpipe
//!   pages state CTRL[48] for float outputs without that exception. Named choice: npusim
//!   follows the C-API pages, so those modes saturate whatever CTRL[48] says: on A2A3 every
//!   float output (float → half / bfloat16 unscaled, int32 → half scaled), on A5 float →
//!   bfloat16 unscaled and int32 → half scaled. With CTRL[48] at its reset value both sources
//!   give the same results.
//! - Where the sources differ: the scripts clamp half results to ±65504 (the pages' saturating
//!   mode, the default here); the script `gen_data_f322s8.py` shifts a float input by MCB too and by N rather
//!   than N + 1, where table 1 says MCB is unused for (V)QF322B8_PRE and N counts from 1
//!   (npusim follows the table); ReLU is `max(x, 0)` before the scale (the table's M2 = 0 for
//!   negative inputs; pto-isa's tests apply it after, which agrees for the non-negative scales
//!   they use).
//!
//! ## TEXTRACT and TINSERT
//! TEXTRACT from Mat or Vec (same element type) copies `dst`'s valid region from `src` at `(row, col)` and needs
//! `row + dst.rows <= src.rows`, `col + dst.cols <= src.cols`; on A2A3 its types are int8, half,
//! bfloat16, float and its source layout boxed (Zn, Zz or Nz). TINSERT (pto-isa
//! `docs/isa/tile/ops/layout-and-rearrangement/tinsert.md`) copies `src`'s valid region into
//! `dst` at `(row, col)` and needs it to fit `dst`'s shape; its pairs are Acc → Mat (through the
//! fixpipe, the unscaled pairs above: A2A3 float to half/bfloat16; A5 also float to float, int32
//! to int32) and, on A5 only, Vec → Mat and Vec →
//! Vec (same element type). Negative offsets are errors.
//!
//! ## TEXTRACT from Acc
//! pto-isa's `TEXTRACT_TILE_IMPL` (A2A3 and A5 `TExtract.hpp`) also takes an Acc source: the
//! window `dst[i, j] = src[i + row, j + col]` over dst's valid region goes through the fixpipe
//! in its cast mode (`GetCastPreQuantMode`: float to half/bfloat16 rounds to nearest even,
//! float to float carries the bits). Checked (typed errors): destination Mat (A5 also Vec, the
//! `docs/isa/TEXTRACT.md` A5 list); the type pairs (A2A3: float -> half/bfloat16,
//! `CheckTMovAccToMat` cast form; A5: float -> half/bfloat16/float, `CheckTMovAccValid` without
//! quant intersected with the page's TEXTRACT types, which exclude int32); destination layout
//! (A2A3: Nz with fractal 512; A5: Nz or ND, the `TEXTRACT_TILE_IMPL` assert);
//! `dst.cols * sizeof` a multiple of 32 bytes (A2A3, and A5 Acc -> Vec); the page's bounds
//! (`indexRow + dst.rows <= src.rows`, `indexCol + dst.cols <= src.cols`); `indexCol` a whole
//! number of 16-column Acc boxes (pto-isa's `srcOffset` moves the fixpipe's start address by
//! `indexCol % 16` elements inside a box otherwise, which is not the page's window). The
//! ReLU and scalar-quant overloads of TEXTRACT are not reachable from `Args::Window`.
//!
//! ## TEXTRACT_FP and TINSERT_FP
//! pto-isa `docs/isa/TEXTRACT_FP.md` and `docs/isa/TINSERT_FP.md` leave the semantics
//! "implementation-defined"; pto-isa's implementations are the fp (vector-quant) forms of
//! TEXTRACT / TINSERT from an Acc tile: TEXTRACT_FP moves `dst`'s valid region from `src` at
//! `(row, col)`, TINSERT_FP moves `src`'s valid region into `dst` at `(row, col)`, each element
//! through [`fixpipe`] (ReLU when `reluPreMode = normal_relu`, then the scale) and the
//! narrowing above, with the scale of moved column `j` taken from uint64 word `j` at the FPC
//! address: the fp tile's address plus `col` fp elements for TEXTRACT_FP (pto-isa
//! `SetFPC(fp.data(), indexCol)`), the fp tile's address for TINSERT_FP (`SetFPCInsert`). The
//! CPU simulator reads the same words (`scalars[c + idxCol]`, `scalars[c]`). The hardware reads
//! the Scaling memory's bytes as words whatever the fp tile's declared element type (PTOAS's
//! samples declare f32 fp tiles), so any type is accepted and only its size enters the offset.
//! Checked (typed errors): Acc source of float/int32 (the table), Acc -> Mat (A5 also Acc ->
//! Vec), fp in Scaling; the vector-quant pairs of pto-isa's `CheckTMovAccToMat` (A2A3: float ->
//! int8/uint8, int32 -> int8/uint8/half/int16) and `CheckTMovAccValid` (A5: float ->
//! int8/uint8/hifloat8/half/bfloat16/float8_e4m3/float, int32 -> int8/uint8/half/bfloat16),
//! each word through [`fix_quant`]; A2A3 destination Nz with fractal 512 and 32-byte box rows, A5
//! destination Nz or ND (TINSERT_FP also DN); the window inside the larger tile's static
//! shape (pto-isa's asserts); `col` a whole number of boxes of the boxed side (16 Acc columns
//! for TEXTRACT_FP, 32 bytes of an Nz destination for TINSERT_FP: the fixpipe's start address
//! moves inside a box otherwise); the FPC address a multiple of 128 bytes (FPC holds it in
//! 128-byte units); the words inside the Scaling memory (as TMOV_FP, they may run past the fp
//! tile). Semantics are over the valid region, as the pages say; the hardware's fixpipe also
//! writes the columns up to the next 32-byte boundary of the destination.

use super::{same_type, vr_err};
use crate::core::TileCore;
use crate::error::PtoError;
use crate::num::Elem;
use crate::table::{OpCode, arch_name};
use crate::tile::{BLayout, SLayout, Tile, TileDesc, TileLoc};
use npusim_core::{ElemType, TileArch};

/// The mode operands of a TMOV.
#[derive(Clone, Copy, Debug, Default)]
pub struct MovMode<'a> {
    /// `reluPreMode = normal_relu`.
    pub relu: bool,
    /// `preQuantScalar`: the scale in the low 32 bits.
    pub scalar: Option<u64>,
    /// The `fp` operand: a Scaling tile of uint64 words, one per column.
    pub fp: Option<&'a Tile>,
}

fn st(op: &'static str, operand: &'static str, rule: &'static str, value: String) -> PtoError {
    PtoError::Static {
        op,
        operand,
        rule,
        value,
    }
}

fn layout_name(d: &TileDesc) -> String {
    let l = match (d.blayout, d.slayout) {
        (BLayout::RowMajor, SLayout::NoneBox) => "ND",
        (BLayout::ColMajor, SLayout::NoneBox) => "DN",
        (BLayout::ColMajor, SLayout::RowMajor) => "Nz",
        (BLayout::RowMajor, SLayout::ColMajor) => "Zn",
        (BLayout::RowMajor, SLayout::RowMajor) => "Zz",
        (BLayout::ColMajor, SLayout::ColMajor) => "Nn",
    };
    format!(
        "{l} (blayout {:?}, slayout {:?}, fractal {})",
        d.blayout, d.slayout, d.fractal
    )
}

/// The layout rules of a tile's location on an arch (see the module docs), checked when a
/// tile is declared or assigned.
pub fn check_declared(
    d: &TileDesc,
    arch: TileArch,
    op: &'static str,
    operand: &'static str,
) -> Result<(), PtoError> {
    let (b, s) = (d.blayout, d.slayout);
    let nz = b == BLayout::ColMajor && s == SLayout::RowMajor;
    let zn = b == BLayout::RowMajor && s == SLayout::ColMajor;
    let zz = b == BLayout::RowMajor && s == SLayout::RowMajor;
    let bad = |rule: &'static str| Err(st(op, operand, rule, layout_name(d)));
    match d.loc {
        TileLoc::Left => {
            // pto-isa's A5 TMATMUL page shows Nz; PTOAS's verifier also accepts boxed Zz there
            // (its `left_blayout_parser_a5` test), and the cube reads either by position.
            if !(nz || zz) {
                return bad(match arch {
                    TileArch::A2A3 => "a2a3 Left tile must be boxed Zz or Nz",
                    TileArch::A5 => "a5 Left tile must be boxed Nz or Zz",
                });
            }
            if d.fractal != 512 {
                return bad("Left tile fractal must be 512 bytes");
            }
        }
        TileLoc::Right => {
            if !zn {
                return bad("Right tile must be Zn (blayout row_major, slayout col_major)");
            }
            if d.fractal != 512 {
                return bad("Right tile fractal must be 512 bytes");
            }
        }
        TileLoc::Acc => {
            if !nz {
                return bad("Acc tile must be Nz (blayout col_major, slayout row_major)");
            }
            // Fractal 1024 (the f32/i32 16x16 box) or 512, as every tile: PTOAS also accepts
            // 512 here (its `tinsert_verify_a5_f32_ok` test).
        }
        TileLoc::Bias => {
            if b != BLayout::RowMajor || s != SLayout::NoneBox {
                return bad("Bias tiles must be plain row-major (ND)");
            }
            if d.rows != 1 {
                return Err(st(
                    op,
                    operand,
                    "Bias tiles must have one row",
                    format!("{} rows", d.rows),
                ));
            }
        }
        // Scaling tiles hold the fixpipe's per-column words in row 0 (TMOV, TEXTRACT_FP,
        // TINSERT_FP) and the MX scales of TMATMUL_MX/TGEMV_MX in several rows and boxed
        // layouts (PTOAS's `tmatmul_mx_emitc`, `tget_scale_addr_emitc`): any layout declares;
        // the moves check the columns they read.
        TileLoc::Scaling => {}
        // The A5 MX scale memories (pto-isa `TileType::ScaleLeft` / `ScaleRight`, see
        // `ops::mx`): A2A3 has none (`PTO_SCALELEFT_SIZE_BYTES` 0), and pto-isa's only tiles
        // there are `TileLeftScale` (Zz: row-major boxes of 16 x 2, fractal 32) and
        // `TileRightScale` (Nn: col-major boxes of 2 x 16), the layouts the A5 moves into them
        // assert (`a5/TExtract.hpp` `TExtractToAmx` / `TExtractToBmx`).
        TileLoc::ScaleLeft | TileLoc::ScaleRight => {
            if arch != TileArch::A5 {
                return Err(PtoError::Unsupported {
                    op,
                    what: format!(
                        "a {:?} tile (the MX scale buffers exist on A5 only: PTO_SCALELEFT/SCALERIGHT_SIZE_BYTES is 0 on A2A3)",
                        d.loc
                    ),
                    arch: arch_name(arch),
                });
            }
            let nn = b == BLayout::ColMajor && s == SLayout::ColMajor;
            if d.loc == TileLoc::ScaleLeft && !(zz && d.fractal == crate::tile::MX_FRACTAL) {
                return bad(
                    "a ScaleLeft tile must be TileLeftScale: Zz (blayout row_major, slayout row_major), fractal 32",
                );
            }
            if d.loc == TileLoc::ScaleRight && !(nn && d.fractal == crate::tile::MX_FRACTAL) {
                return bad(
                    "a ScaleRight tile must be TileRightScale: Nn (blayout col_major, slayout col_major), fractal 32",
                );
            }
        }
        TileLoc::Vec | TileLoc::Mat => {}
    }
    Ok(())
}

/// Whether a TMOV location pair exists on an arch.
pub fn mov_pair_legal(arch: TileArch, src: TileLoc, dst: TileLoc) -> bool {
    use TileLoc::*;
    match (src, dst) {
        (Mat, Left | Right | Bias | Scaling) | (Vec, Vec) | (Acc, Mat) => true,
        (Vec, Mat) | (Acc, Vec) | (Mat, ScaleLeft | ScaleRight) => arch == TileArch::A5,
        _ => false,
    }
}

/// The legal fixpipe conversions (`src` Acc type, `dst` type, with a scale or not).
pub fn fix_pair_legal(src: ElemType, dst: ElemType, scaled: bool) -> bool {
    use ElemType::*;
    matches!(
        (src, dst, scaled),
        (F32, F32 | F16 | Bf16, false)
            | (I32, I32, false)
            | (F32 | I32, F32 | F16 | Bf16 | I8, true)
    )
}

/// Where an Acc conversion without a quant operand (pto-isa's cast form) is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CastSite {
    /// TMOV Acc -> Mat/Vec, its ReLU form, TINSERT Acc -> Mat.
    Move,
    /// TEXTRACT from Acc.
    Extract,
}

/// The fixpipe's conversions without a quant operand, per arch and site: pto-isa's cast form.
/// A2A3 (`a2a3/common.hpp` `CheckTMovAccToMat<.., true>`, called by TMOV_TILE_IMPL, the ReLU
/// TMOV_IMPL, TINSERT and TEXTRACT): float -> half/bfloat16 only, at every site. A5
/// (`CheckTMovAccValid` without quant): float -> float/half/bfloat16 and int32 -> int32 at the
/// moves; TEXTRACT also passes `is_textract_supported_type`, which has no int32, so int32 ->
/// int32 is a move-only pair (the one difference between the sites). TSTORE from Acc has its
/// own list ([`fix_pair_legal`]).
pub fn acc_cast_pair_legal(arch: TileArch, site: CastSite, src: ElemType, dst: ElemType) -> bool {
    use ElemType::*;
    match (arch, site) {
        (TileArch::A2A3, _) => matches!((src, dst), (F32, F16 | Bf16)),
        (TileArch::A5, CastSite::Move) => fix_pair_legal(src, dst, false),
        (TileArch::A5, CastSite::Extract) => matches!((src, dst), (F32, F16 | Bf16 | F32)),
    }
}

/// The element types a cube-side move (Mat → Left/Right, TEXTRACT) carries.
const CUBE_TYPES: &[ElemType] = &[ElemType::I8, ElemType::F16, ElemType::Bf16, ElemType::F32];
/// On A5 also the MX inputs of TMATMUL_MX (`float8_e4m3_t`, `float8_e5m2_t`).
const CUBE_TYPES_A5: &[ElemType] = &[
    ElemType::I8,
    ElemType::F16,
    ElemType::Bf16,
    ElemType::F32,
    ElemType::F8E4M3FN,
    ElemType::F8E5M2,
];

fn cube_types(arch: TileArch) -> &'static [ElemType] {
    match arch {
        TileArch::A2A3 => CUBE_TYPES,
        TileArch::A5 => CUBE_TYPES_A5,
    }
}

/// TMOV Mat -> Left/Right on A5 also carries the packed fp4 pairs of TMATMUL_MX
/// (`float4_e2m1x2_t`, `float4_e1m2x2_t`; pto-isa's A5 `TMov` lists them): a whole-tile move of
/// their bytes, npusim's tiles counting fp4 columns in bytes (pairs, `ops::mx`), so it is the
/// 1-byte move with the 1-byte boxes (16 x 32 bytes = 64 values, the NPU's). TEXTRACT
/// Mat -> Left/Right carries them too, with its offsets in bytes ([`fp4_extract_offsets`]).
const CUBE_MOVE_TYPES_A5: &[ElemType] = &[
    ElemType::I8,
    ElemType::F16,
    ElemType::Bf16,
    ElemType::F32,
    ElemType::F8E4M3FN,
    ElemType::F8E5M2,
    ElemType::F4E2M1X2,
    ElemType::F4E1M2X2,
];

fn cube_move_types(arch: TileArch) -> &'static [ElemType] {
    match arch {
        TileArch::A2A3 => CUBE_TYPES,
        TileArch::A5 => CUBE_MOVE_TYPES_A5,
    }
}

/// The fixpipe's per-element rule on an f32 value: ReLU, then the scale (see the module docs).
#[inline(always)]
pub fn fixpipe(x: f32, relu: bool, scale: f32, scaled: bool) -> f32 {
    let x = if relu && x < 0.0 { 0.0 } else { x };
    if scaled { x * scale } else { x }
}

/// f32 to int8: round to nearest even, saturate, NaN to 0.
#[inline(always)]
pub fn f32_to_i8_sat(x: f32) -> i8 {
    if x.is_nan() {
        0
    } else {
        x.round_ties_even().clamp(-128.0, 127.0) as i8
    }
}

/// How a fixpipe conversion's float result overflows (see the module docs, "Float overflow and
/// NaN").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloatOverflow {
    /// Non-saturating (CTRL[48] = 1): inf and NaN kept; float8_e4m3 overflow gives NaN.
    Keep,
    /// Saturating: a result that rounds past the largest finite value (or is inf) is ±max, a
    /// NaN input gives +0, unless `keep_nan` (A5 CTRL[50] = 1, float8_e4m3 only).
    Saturate {
        /// NaN stays NaN.
        keep_nan: bool,
    },
}

/// The overflow handling of the fixpipe conversion `src -> out` (`scaled`: with a quant word)
/// under the CTRL bits `ctrl` (see the module docs, "Float overflow and NaN").
pub fn float_overflow(
    arch: TileArch,
    src: ElemType,
    out: ElemType,
    scaled: bool,
    ctrl: crate::ops::config::SatCtrl,
) -> FloatOverflow {
    use ElemType::*;
    if !matches!(out, F16 | Bf16 | HiF8 | F8E4M3FN) {
        return FloatOverflow::Keep;
    }
    // F322F16 (a2a3), F322BF16, DEQF16, VDEQF16: no INF_NAN mode (asc-devkit C-API pages).
    let always = match arch {
        TileArch::A2A3 => true,
        TileArch::A5 => matches!((src, out, scaled), (F32, Bf16, false) | (I32, F16, true)),
    };
    if ctrl.ctrl48 && !always {
        FloatOverflow::Keep
    } else {
        FloatOverflow::Saturate {
            keep_nan: ctrl.ctrl50 && arch == TileArch::A5 && out == F8E4M3FN,
        }
    }
}

/// The fixpipe's float output step (pure): the f32 value `x` as bits of `out` (half, bfloat16,
/// float8_e4m3 nearest even, hifloat8 half away from zero, float kept) under `fo`.
#[inline]
pub fn fix_cast(x: f32, out: ElemType, fo: FloatOverflow) -> u64 {
    use npusim_core::convert::Saturation;
    use npusim_core::f8::F8Format;
    let bits = match out {
        ElemType::F16 => half::f16::from_f32(x).to_bits() as u64,
        ElemType::Bf16 => half::bf16::from_f32(x).to_bits() as u64,
        ElemType::HiF8 => F8Format::HiF8.from_f32(x, Saturation::Off) as u64,
        ElemType::F8E4M3FN => F8Format::E4M3FN.from_f32(x, Saturation::Off) as u64,
        _ => return x.to_bits() as u64,
    };
    let FloatOverflow::Saturate { keep_nan } = fo else {
        return bits;
    };
    if x.is_nan() {
        return if keep_nan { bits } else { 0 };
    }
    let sign = u64::from(x.is_sign_negative());
    match out {
        ElemType::F16 if !half::f16::from_bits(bits as u16).is_finite() => 0x7bff | sign << 15,
        ElemType::Bf16 if !half::bf16::from_bits(bits as u16).is_finite() => 0x7f7f | sign << 15,
        ElemType::HiF8 if !F8Format::HiF8.to_f32(bits as u8).is_finite() => {
            F8Format::HiF8.from_f32(x, Saturation::On) as u64
        }
        ElemType::F8E4M3FN if !F8Format::E4M3FN.to_f32(bits as u8).is_finite() => {
            F8Format::E4M3FN.from_f32(x, Saturation::On) as u64
        }
        _ => bits,
    }
}

/// The fixpipe's last step without a quant word: f32 values narrowed to `out` by
/// [`fix_cast`] (int8 rounds to nearest even and saturates), as little-endian bytes.
fn narrow(v: &[f32], out: ElemType, fo: FloatOverflow) -> Vec<u8> {
    match out {
        ElemType::F16 | ElemType::Bf16 => v
            .iter()
            .flat_map(|&x| (fix_cast(x, out, fo) as u16).to_le_bytes())
            .collect(),
        ElemType::I8 => v.iter().map(|&x| f32_to_i8_sat(x) as u8).collect(),
        _ => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
    }
}

/// One fixpipe quant word (preQuantScalar, or one uint64 of an fp tile) decoded by asc-devkit's
/// `随路量化.md` tables 1 (A2A3, NPU arch 2201) and 2 (A5, arch 3510); see the module docs,
/// "The quant word".
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QuantWord {
    /// M1, bits 31:13 read as a (1 sign, 8 exponent, 10 mantissa) float: the IEEE single of
    /// the low 32 bits with its low 13 bits cleared.
    pub m1: f32,
    /// A2A3 only: the right shift N of bits 35:32, code + 1 (1..=16). 0 on A5 (bits 32..36 are
    /// not used there).
    pub shift: u32,
    /// A2A3 only: bit 36 (MCB): an int32 input of (V)REQ8 / (V)DEQF16 is shifted right by N
    /// and saturated to int16 before its float conversion.
    pub mcb: bool,
    /// Bits 45:37: the 9-bit offset (0..=511) added in the 8-bit modes ((V)REQ8,
    /// (V)QF322B8_PRE).
    pub offset: i32,
    /// Bit 46: the 8-bit modes saturate to int8 when set, to uint8 when clear.
    pub signed: bool,
}

impl QuantWord {
    /// Decodes a word for an arch.
    #[inline]
    pub fn decode(arch: TileArch, w: u64) -> QuantWord {
        let a2a3 = arch == TileArch::A2A3;
        QuantWord {
            m1: f32::from_bits(w as u32 & 0xffff_e000),
            shift: if a2a3 {
                ((w >> 32) & 0xf) as u32 + 1
            } else {
                0
            },
            mcb: a2a3 && (w >> 36) & 1 == 1,
            offset: ((w >> 37) & 0x1ff) as i32,
            signed: (w >> 46) & 1 == 1,
        }
    }

    /// M1 is zero or a normal number: the Fixpipe pages forbid inf, NaN and denormal quant
    /// parameters.
    #[inline]
    pub fn m1_valid(&self) -> bool {
        self.m1 == 0.0 || self.m1.is_normal()
    }
}

/// The fixpipe's quantised conversion of one Acc element (pure; see the module docs, "The quant
/// word"): `bits` is the element (an f32 or int32 bit pattern per `src`), the result the bit
/// pattern of `out`. int32 -> int16 (A2A3 (V)SHIFTS322S16): `sat16(x >> N)`, ReLU after. Else
/// the input as f32 (int32: after the MCB shift and int16 saturation when bit 36 is set, then
/// rounded to nearest even), ReLU (`max(x, 0)`, NaN kept), times M1 in f32, then by `out`:
/// int8/uint8 round to nearest even within [-256, 255] (NaN gives 0), add the offset and
/// saturate to int8 (bit 46 set) or uint8 (clear) whatever `out` says; half, bfloat16, float8_e4m3
/// round to nearest even, hifloat8 half away from zero, float keeps the product; the float
/// outputs overflow by `fo` ([`fix_cast`]).
#[inline]
pub fn fix_quant(
    src: ElemType,
    bits: u32,
    out: ElemType,
    relu: bool,
    w: &QuantWord,
    fo: FloatOverflow,
) -> u64 {
    let sat16 = |v: i32| v.clamp(i16::MIN as i32, i16::MAX as i32);
    if src == ElemType::I32 && out == ElemType::I16 {
        let v = sat16((bits as i32) >> w.shift);
        let v = if relu { v.max(0) } else { v };
        return v as i16 as u16 as u64;
    }
    let mut x = match src {
        ElemType::I32 if w.mcb => sat16((bits as i32) >> w.shift) as f32,
        ElemType::I32 => bits as i32 as f32,
        _ => f32::from_bits(bits),
    };
    if relu && x < 0.0 {
        x = 0.0;
    }
    let x = x * w.m1;
    match out {
        ElemType::I8 | ElemType::U8 => {
            let q = if x.is_nan() {
                0
            } else {
                x.clamp(-256.0, 255.0).round_ties_even() as i32
            };
            let v = q + w.offset;
            if w.signed {
                v.clamp(-128, 127) as i8 as u8 as u64
            } else {
                v.clamp(0, 255) as u64
            }
        }
        _ => fix_cast(x, out, fo),
    }
}

/// Decodes the quant words a conversion uses and checks M1 where the mode multiplies by it
/// (every applied pair but int32 -> int16, which only shifts).
fn quant_words(
    op: OpCode,
    arch: TileArch,
    operand: &'static str,
    out: ElemType,
    raw: &[u64],
) -> Result<Vec<QuantWord>, PtoError> {
    raw.iter()
        .map(|&w| {
            let q = QuantWord::decode(arch, w);
            if out != ElemType::I16 && !q.m1_valid() {
                return Err(vr_err(
                    op,
                    operand,
                    "the quant scale M1 (bits 31:13 of the word, a (1, 8, 10) float) must not be inf, NaN or denormal",
                    format!("{w:#018x}"),
                ));
            }
            Ok(q)
        })
        .collect()
}

/// Where a quantised Acc conversion is made: the moves (TMOV, TMOV_FP, TEXTRACT_FP, TINSERT_FP:
/// pto-isa's `GetScalarPreQuantMode` / `GetVectorPreQuantMode` of the arch's `common.hpp`) or
/// the store (TSTORE_FP: on A5 `GetScalarPreQuantModeGm` / `GetVectorPreQuantModeGm`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QuantSite {
    /// Acc -> Mat / Vec.
    Move,
    /// Acc -> global memory.
    Store,
}

/// What the fixpipe does with a quant operand (preQuantScalar or fp words) for a type pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QuantUse {
    /// The pair has a quant mode: the scale is applied.
    Applied,
    /// The pair passes pto-isa's type check but its quant-mode function returns `NoQuant`: the
    /// hardware ignores the scale (A5 float -> float at the moves).
    Ignored,
    /// Refused by pto-isa's type check (`CheckTMovAccToMat` / `CheckAcc2gm` on A2A3,
    /// `CheckTMovAccValid` / `CheckAcc2gm` on A5).
    Illegal,
}

/// The quantised Acc conversions (with preQuantScalar or an fp tile) per arch and site, from
/// pto-isa's NPU code (see the module docs, "Quantised pairs").
pub fn quant_pair(arch: TileArch, site: QuantSite, src: ElemType, dst: ElemType) -> QuantUse {
    use ElemType::*;
    match arch {
        TileArch::A2A3 => match (src, dst) {
            (F32, I8 | U8) | (I32, I8 | U8 | F16) => QuantUse::Applied,
            (I32, I16) if site == QuantSite::Move => QuantUse::Applied,
            _ => QuantUse::Illegal,
        },
        TileArch::A5 => match (src, dst) {
            (F32, I8 | U8 | HiF8 | F16 | Bf16 | F8E4M3FN) | (I32, I8 | U8 | F16 | Bf16) => {
                QuantUse::Applied
            }
            (F32, F32) if site == QuantSite::Store => QuantUse::Applied,
            (F32, F32) => QuantUse::Ignored,
            _ => QuantUse::Illegal,
        },
    }
}

/// Checks a quantised pair: a typed error when pto-isa refuses it ([`QuantUse::Illegal`]);
/// else whether the scale is applied.
pub(crate) fn check_quant_pair(
    op: OpCode,
    arch: TileArch,
    site: QuantSite,
    src: ElemType,
    dst: ElemType,
) -> Result<bool, PtoError> {
    let pair = format!(
        "{} -> {}",
        crate::error::type_name(src),
        crate::error::type_name(dst)
    );
    match quant_pair(arch, site, src, dst) {
        QuantUse::Applied => Ok(true),
        QuantUse::Ignored => Ok(false),
        QuantUse::Illegal => Err(PtoError::Static {
            op: op.name(),
            operand: "dst",
            rule: match (arch, site) {
                (TileArch::A2A3, QuantSite::Move) => {
                    "a2a3 quantised Acc pairs (preQuantScalar or fp): float->int8/uint8, int32->int8/uint8/half/int16"
                }
                (TileArch::A2A3, QuantSite::Store) => {
                    "a2a3 quantised Acc store pairs (preQuantScalar or fp): float->int8/uint8, int32->int8/uint8/half"
                }
                (TileArch::A5, QuantSite::Move) => {
                    "a5 quantised Acc pairs (preQuantScalar or fp): float->int8/uint8/hifloat8/half/bfloat16/float8_e4m3/float, int32->int8/uint8/half/bfloat16"
                }
                (TileArch::A5, QuantSite::Store) => {
                    "a5 quantised Acc store pairs (preQuantScalar or fp): float->int8/uint8/hifloat8/half/bfloat16/float8_e4m3/float, int32->int8/uint8/half/bfloat16"
                }
            },
            value: pair,
        }),
    }
}

/// The vector-quant (fp) conversions of TEXTRACT_FP / TINSERT_FP, per arch: pto-isa's
/// `CheckTMovAccToMat` (A2A3) and `CheckTMovAccValid` (A5) quant lists.
pub fn fp_window_pair_legal(arch: TileArch, src: ElemType, dst: ElemType) -> bool {
    matches!(
        quant_pair(arch, QuantSite::Move, src, dst),
        QuantUse::Applied | QuantUse::Ignored
    )
}

/// The scale M1 of a uint64 quantisation word: bits 31:13 as a (1, 8, 10) float.
#[inline(always)]
pub fn scale_of(word: u64) -> f32 {
    f32::from_bits(word as u32 & 0xffff_e000)
}

impl TileCore {
    /// TMOV with the fixpipe modes.
    pub fn tmov(&mut self, dst: &Tile, src: &Tile, mode: MovMode<'_>) -> Result<(), PtoError> {
        let op = OpCode::Tmov;
        let n = op.name();
        let arch = self.arch();
        self.check_addr(dst, n, "dst")?;
        self.check_addr(src, n, "src")?;
        if !mov_pair_legal(arch, src.loc(), dst.loc()) {
            return Err(st(
                n,
                "dst",
                "location pair must be Mat->Left/Right/Bias/Scaling, Vec->Vec, Acc->Mat (a5 also Vec->Mat, Acc->Vec, Mat->ScaleLeft/ScaleRight)",
                format!("{:?}->{:?} on {}", src.loc(), dst.loc(), arch_name(arch)),
            ));
        }
        let from_acc = src.loc() == TileLoc::Acc;
        if !from_acc && (mode.relu || mode.scalar.is_some() || mode.fp.is_some()) {
            return Err(st(
                n,
                "src",
                "reluPreMode, fp and preQuantScalar need an Acc source",
                format!("{:?}", src.loc()),
            ));
        }
        if mode.scalar.is_some() && mode.fp.is_some() {
            return Err(st(
                n,
                "fp",
                "give either preQuantScalar or an fp tile, not both",
                "both".into(),
            ));
        }
        let loose = arch == TileArch::A5 && matches!(src.loc(), TileLoc::Vec | TileLoc::Acc);
        if !loose && (src.rows() != dst.rows() || src.cols() != dst.cols()) {
            return Err(st(
                n,
                "dst",
                "static shapes must match (src.rows == dst.rows, src.cols == dst.cols)",
                format!(
                    "{}x{} vs src {}x{}",
                    dst.rows(),
                    dst.cols(),
                    src.rows(),
                    src.cols()
                ),
            ));
        }
        let (rows, cols) = if loose {
            (
                src.valid_row().min(dst.valid_row()),
                src.valid_col().min(dst.valid_col()),
            )
        } else {
            (src.valid_row(), src.valid_col())
        };
        if from_acc {
            return self.tmov_fix(dst, src, mode, (rows, cols), (0, 0), op);
        }
        match dst.loc() {
            TileLoc::Bias => {
                use ElemType::*;
                let ok = matches!(
                    (src.dtype(), dst.dtype()),
                    (I32, I32) | (F32, F32) | (F16, F32)
                ) || (arch == TileArch::A5 && (src.dtype(), dst.dtype()) == (Bf16, F32));
                if !ok {
                    return Err(PtoError::Unsupported {
                        op: n,
                        what: format!(
                            "the Mat->Bias type pair {} -> {} (legal: int32->int32, float->float, half->float, a5 also bfloat16->float)",
                            src.dtype(),
                            dst.dtype()
                        ),
                        arch: arch_name(arch),
                    });
                }
                self.row_footprint(src, dst, 64)?;
            }
            // The MX scales (A5): E8M0 into pto-isa's TileLeftScale / TileRightScale layouts
            // (`ops::mx`), element by element through both layouts.
            TileLoc::Scaling if dst.dtype() == ElemType::F8E8M0 => {
                if arch != TileArch::A5 {
                    return Err(PtoError::Unsupported {
                        op: n,
                        what: "a Mat->Scaling move of MX scales (float8_e8m0_t; A5 only)".into(),
                        arch: arch_name(arch),
                    });
                }
                same_type(op, "src", src, "dst", dst)?;
                let d = dst.desc();
                let mx = d.fractal == crate::tile::MX_FRACTAL
                    && matches!(
                        (d.blayout, d.slayout),
                        (BLayout::RowMajor, SLayout::RowMajor)
                            | (BLayout::ColMajor, SLayout::ColMajor)
                    );
                if !mx {
                    return Err(st(
                        n,
                        "dst",
                        "an MX scale tile is TileLeftScale (row-major boxes, row-major inside) or TileRightScale (col-major, col-major) with fractal 32",
                        format!("{:?}/{:?} fractal {}", d.blayout, d.slayout, d.fractal),
                    ));
                }
            }
            TileLoc::Scaling => {
                for (name, t) in [("src", src), ("dst", dst)] {
                    if t.dtype() != ElemType::U64 {
                        return Err(st(
                            n,
                            name,
                            "Mat->Scaling moves uint64 words",
                            t.dtype().to_string(),
                        ));
                    }
                }
                self.row_footprint(src, dst, 128)?;
            }
            TileLoc::Left | TileLoc::Right => {
                same_type(op, "dst", dst, "src", src)?;
                op_types(op, arch, "src", src.dtype(), cube_move_types(arch))?;
            }
            // The MX scale memories (A5): checked by ops::mx, copied as the valid region.
            TileLoc::ScaleLeft | TileLoc::ScaleRight => {
                self.check_scale_move(op, dst, src, (0, 0))?;
            }
            _ => same_type(op, "dst", dst, "src", src)?,
        }
        fits(op, "dst", dst, 0, 0, rows, cols)?;
        if src.dtype() == dst.dtype() {
            self.copy_bits(dst, (0, 0), src, (0, 0), rows, cols);
        } else {
            // half/bfloat16 -> float (Mat -> Bias): exact widening.
            let v = match src.dtype() {
                ElemType::F16 => self.read_rect_at::<half::f16>(src, (0, 0), rows, cols),
                ElemType::Bf16 => self.read_rect_at::<half::bf16>(src, (0, 0), rows, cols),
                _ => self.read_rect_at::<f32>(src, (0, 0), rows, cols),
            };
            self.write_rect_at::<f32>(dst, (0, 0), rows, cols, &v);
        }
        Ok(())
    }

    /// Mat -> Bias/Scaling: one source row whose byte length is a multiple of `align`; on A5 the
    /// destination's footprint is at most 4096 bytes.
    fn row_footprint(&self, src: &Tile, dst: &Tile, align: usize) -> Result<(), PtoError> {
        let n = OpCode::Tmov.name();
        if src.rows() != 1 {
            return Err(st(
                n,
                "src",
                "Mat->Bias/Scaling source must have one row",
                format!("{} rows", src.rows()),
            ));
        }
        let bytes = match self.arch() {
            TileArch::A2A3 => src.cols() * src.dtype().size(),
            TileArch::A5 => dst.cols() * dst.dtype().size(),
        };
        if !bytes.is_multiple_of(align) {
            return Err(st(
                n,
                "src",
                if align == 64 {
                    "Mat->Bias Cols*sizeof(T) must be a multiple of 64 bytes"
                } else {
                    "Mat->Scaling Cols*sizeof(T) must be a multiple of 128 bytes"
                },
                format!("{bytes} bytes"),
            ));
        }
        if self.arch() == TileArch::A5 && bytes > 4096 {
            return Err(st(
                n,
                "dst",
                "a5 Bias/Scaling footprint must not exceed 4096 bytes",
                format!("{bytes} bytes"),
            ));
        }
        Ok(())
    }

    /// Acc -> Mat/Vec through the fixpipe.
    fn tmov_fix(
        &mut self,
        dst: &Tile,
        src: &Tile,
        mode: MovMode<'_>,
        (rows, cols): (usize, usize),
        at: (usize, usize),
        op: OpCode,
    ) -> Result<(), PtoError> {
        // A plain move of equal types (float -> float, int32 -> int32; no ReLU, no scale)
        // carries bits: copied memory to memory through both layouts, no intermediate buffer.
        let plain = !mode.relu && mode.scalar.is_none() && mode.fp.is_none();
        if plain
            && src.dtype() == dst.dtype()
            && acc_cast_pair_legal(self.arch(), CastSite::Move, src.dtype(), dst.dtype())
        {
            fits(op, "dst", dst, at.0, at.1, rows, cols)?;
            self.copy_bits(dst, at, src, (0, 0), rows, cols);
            return Ok(());
        }
        let bytes = self.fix_convert(src, dst.dtype(), mode, (rows, cols), op)?;
        fits(op, "dst", dst, at.0, at.1, rows, cols)?;
        self.write_bytes(dst, at, rows, cols, dst.dtype().size(), &bytes);
        Ok(())
    }

    /// The fixpipe's conversion of `src`'s (Acc) `rows x cols` region to `out` elements, as
    /// row-major little-endian bytes: ReLU, the quant scale (one scalar, or one fp word per
    /// column), narrowing.
    pub(crate) fn fix_convert(
        &self,
        src: &Tile,
        out: ElemType,
        mode: MovMode<'_>,
        (rows, cols): (usize, usize),
        op: OpCode,
    ) -> Result<Vec<u8>, PtoError> {
        let n = op.name();
        let arch = self.arch();
        let site = match op {
            OpCode::Tstore | OpCode::TstoreFp => QuantSite::Store,
            _ => QuantSite::Move,
        };
        let quant = mode.scalar.is_some() || mode.fp.is_some();
        let scales = match mode.fp {
            Some(fp) => {
                self.check_addr(fp, n, "fp")?;
                if fp.loc() != TileLoc::Scaling {
                    return Err(st(
                        n,
                        "fp",
                        "fp tile location must be Scaling",
                        format!("{:?}", fp.loc()),
                    ));
                }
                if fp.dtype() != ElemType::U64 {
                    return Err(st(
                        n,
                        "fp",
                        "fp tile element type must be uint64",
                        fp.dtype().to_string(),
                    ));
                }
                // FPC holds the words' address in 128-byte units (pto-isa `SetFPC`: the
                // address shifted right by 7), as for TEXTRACT_FP / TINSERT_FP.
                if !fp.addr().is_multiple_of(128) {
                    return Err(vr_err(
                        op,
                        "fp",
                        "the fp tile's address must be a multiple of 128 bytes (FPC holds it in 128-byte units)",
                        format!("{:#x}", fp.addr()),
                    ));
                }
                // The fixpipe reads one word per moved column from the fp tile's address
                // (pto-isa TMOV_IMPL sets FPC to `fp.data()` and asserts nothing about its
                // columns; PTOAS's Movfp sample moves 32 columns with a 1x16 fp tile): words
                // past the tile's valid columns are the Scaling memory that follows it, which
                // must exist.
                let words = if fp.valid_col() >= cols {
                    self.read_rect_at::<u64>(fp, (0, 0), 1, cols)
                } else {
                    let len = cols as u64 * 8;
                    let bytes = self.mem(TileLoc::Scaling).bytes(fp.addr(), len).map_err(|_| {
                        vr_err(
                            op,
                            "fp",
                            "the fixpipe's per-column words (one uint64 per moved column from the fp address) must lie in the Scaling memory",
                            format!(
                                "{cols} words at {:#x} in {} bytes",
                                fp.addr(),
                                self.mem(TileLoc::Scaling).capacity()
                            ),
                        )
                    })?;
                    bytes
                        .chunks_exact(8)
                        .map(|c| {
                            let mut w = [0u8; 8];
                            w.copy_from_slice(c);
                            u64::from_le_bytes(w)
                        })
                        .collect()
                };
                Some(words)
            }
            None => None,
        };
        // With a quant operand the pair follows pto-isa's quant lists; where the quant-mode
        // function gives NoQuant (a5 float -> float at the moves) the operand is ignored.
        let scaled = quant && check_quant_pair(op, arch, site, src.dtype(), out)?;
        if !quant
            && site == QuantSite::Move
            && !acc_cast_pair_legal(arch, CastSite::Move, src.dtype(), out)
        {
            return Err(PtoError::Static {
                op: n,
                operand: "dst",
                rule: match arch {
                    TileArch::A2A3 => {
                        "a2a3 Acc->Mat without a quant scale (plain or ReLU, CheckTMovAccToMat cast form): float->half/bfloat16 only"
                    }
                    TileArch::A5 => {
                        "a5 Acc moves without a quant scale: float->float/half/bfloat16, int32->int32"
                    }
                },
                value: format!(
                    "{} -> {}",
                    crate::error::type_name(src.dtype()),
                    crate::error::type_name(out)
                ),
            });
        }
        if !quant && !fix_pair_legal(src.dtype(), out, false) {
            return Err(PtoError::Unsupported {
                op: n,
                what: format!(
                    "the Acc conversion {} -> {} without a quant scale (legal: float->float/half/bfloat16, int32->int32)",
                    src.dtype(),
                    out,
                ),
                arch: arch_name(self.arch()),
            });
        }
        let (scales, scalar) = if scaled {
            let scales = match scales {
                Some(raw) => Some(quant_words(op, arch, "fp", out, &raw)?),
                None => None,
            };
            let scalar = match mode.scalar {
                Some(w) => Some(quant_words(op, arch, "preQuantScalar", out, &[w])?[0]),
                None => None,
            };
            (scales, scalar)
        } else {
            (None, None)
        };
        Ok(self.fix_apply(
            src,
            (0, 0),
            out,
            mode.relu,
            scalar,
            scales.as_deref(),
            (rows, cols),
        ))
    }

    /// The fixpipe's per-element work on `src`'s (Acc) `rows x cols` region at `from`, as
    /// row-major little-endian bytes of `out`. With a quant word (`scalar`, or `scales[c]` for
    /// column `c` of the region) each element goes through [`fix_quant`]; without one, ReLU
    /// and the cast (half/bfloat16 to nearest even). The pair was checked by the caller.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn fix_apply(
        &self,
        src: &Tile,
        from: (usize, usize),
        out: ElemType,
        relu: bool,
        scalar: Option<QuantWord>,
        scales: Option<&[QuantWord]>,
        (rows, cols): (usize, usize),
    ) -> Vec<u8> {
        let scaled = scalar.is_some() || scales.is_some();
        // Plain moves of equal types carry bits (NaN payloads kept).
        if !scaled && !relu && src.dtype() == out {
            return self.read_bytes(src, from, rows, cols, out.size());
        }
        let fo = float_overflow(self.arch(), src.dtype(), out, scaled, self.sat_ctrl());
        if scaled {
            let raw = self.read_bytes(src, from, rows, cols, 4);
            let size = out.size();
            let mut bytes = Vec::with_capacity(rows * cols * size);
            for (k, e) in raw.chunks_exact(4).enumerate() {
                let bits = u32::from_le_bytes([e[0], e[1], e[2], e[3]]);
                let w = match (scales, &scalar) {
                    (Some(sc), _) => &sc[k % cols.max(1)],
                    (None, Some(w)) => w,
                    (None, None) => unreachable!("scaled"),
                };
                let v = fix_quant(src.dtype(), bits, out, relu, w, fo);
                bytes.extend_from_slice(&v.to_le_bytes()[..size]);
            }
            return bytes;
        }
        let mut v: Vec<f32> = match src.dtype() {
            ElemType::I32 => {
                // int32 -> int32 with ReLU.
                let mut w = self.read_rect_at::<i32>(src, from, rows, cols);
                if relu {
                    for x in &mut w {
                        *x = (*x).max(0);
                    }
                }
                return w.iter().flat_map(|x| x.to_le_bytes()).collect();
            }
            _ => self.read_rect_at::<f32>(src, from, rows, cols),
        };
        for x in &mut v {
            *x = fixpipe(*x, relu, 1.0, false);
        }
        narrow(&v, out, fo)
    }

    /// TEXTRACT: `dst[i, j] = src[i + row, j + col]` over dst's valid region.
    pub fn textract(&mut self, dst: &Tile, src: &Tile, row: i64, col: i64) -> Result<(), PtoError> {
        let op = OpCode::Textract;
        let n = op.name();
        let arch = self.arch();
        self.check_addr(dst, n, "dst")?;
        self.check_addr(src, n, "src")?;
        if src.loc() == TileLoc::Acc {
            return self.textract_acc(dst, src, row, col);
        }
        same_type(op, "dst", dst, "src", src)?;
        let pair_ok = match (src.loc(), dst.loc()) {
            (TileLoc::Mat, TileLoc::Left | TileLoc::Right) => true,
            (TileLoc::Mat, TileLoc::Scaling) | (TileLoc::Vec, TileLoc::Mat) => arch == TileArch::A5,
            (TileLoc::Mat, TileLoc::ScaleLeft | TileLoc::ScaleRight) => arch == TileArch::A5,
            _ => false,
        };
        if !pair_ok {
            return Err(st(
                n,
                "dst",
                "location pair must be Mat->Left/Right, Acc->Mat (a5 also Mat->Scaling/ScaleLeft/ScaleRight, Vec->Mat, Acc->Vec)",
                format!("{:?}->{:?} on {}", src.loc(), dst.loc(), arch_name(arch)),
            ));
        }
        let scale = matches!(dst.loc(), TileLoc::ScaleLeft | TileLoc::ScaleRight);
        let fp4 = super::mx::MX_FP4_INPUTS.contains(&src.dtype());
        if scale {
            let at = offsets(op, row, col)?;
            self.check_scale_move(op, dst, src, at)?;
        } else if fp4 && arch == TileArch::A5 && matches!(dst.loc(), TileLoc::Left | TileLoc::Right)
        {
            // The packed fp4 pairs into L0 (A5): offsets in the tile's own units, bytes
            // along K (see `fp4_extract_offsets`).
            fp4_extract_offsets(dst.loc(), offsets(op, row, col)?)?;
        } else if dst.loc() != TileLoc::Scaling {
            op_types(op, arch, "src", src.dtype(), cube_types(arch))?;
        }
        if arch == TileArch::A2A3 {
            let d = src.desc();
            let ok = (d.slayout == SLayout::ColMajor && d.blayout == BLayout::RowMajor)
                || d.slayout == SLayout::RowMajor
                || (src.is_row_major_plain() && src.rows() == 1);
            if !ok {
                return Err(st(
                    n,
                    "src",
                    "a2a3 source must be boxed Zn, Zz or Nz (or a one-row ND vector)",
                    layout_name(d),
                ));
            }
        }
        let (r0, c0) = offsets(op, row, col)?;
        window_inside(op, true, dst, src, (r0, c0))?;
        self.copy_bits(dst, (0, 0), src, (r0, c0), dst.valid_row(), dst.valid_col());
        Ok(())
    }

    /// TEXTRACT from an Acc tile (see the module docs, "TEXTRACT from Acc"): `dst[i, j] =
    /// cast(src[i + row, j + col])` over dst's valid region, through the fixpipe's cast mode.
    fn textract_acc(&mut self, dst: &Tile, src: &Tile, row: i64, col: i64) -> Result<(), PtoError> {
        let op = OpCode::Textract;
        let n = op.name();
        let arch = self.arch();
        let dst_ok =
            dst.loc() == TileLoc::Mat || (arch == TileArch::A5 && dst.loc() == TileLoc::Vec);
        if !dst_ok {
            return Err(st(
                n,
                "dst",
                "an Acc source extracts into Mat (a5 also Vec)",
                format!("{:?}->{:?} on {}", src.loc(), dst.loc(), arch_name(arch)),
            ));
        }
        if !acc_cast_pair_legal(arch, CastSite::Extract, src.dtype(), dst.dtype()) {
            return Err(st(
                n,
                "dst",
                match arch {
                    TileArch::A2A3 => {
                        "a2a3 TEXTRACT from Acc casts float to half or bfloat16 (CheckTMovAccToMat, cast form)"
                    }
                    TileArch::A5 => {
                        "a5 TEXTRACT from Acc casts float to half, bfloat16 or float (CheckTMovAccValid, no quant; int32 is not a TEXTRACT type)"
                    }
                },
                format!(
                    "{} -> {}",
                    crate::error::type_name(src.dtype()),
                    crate::error::type_name(dst.dtype())
                ),
            ));
        }
        let d = dst.desc();
        let nz = d.blayout == BLayout::ColMajor && d.slayout == SLayout::RowMajor;
        let nd = d.blayout == BLayout::RowMajor && d.slayout == SLayout::NoneBox;
        let row_bytes = dst.cols() * dst.dtype().size();
        match arch {
            TileArch::A2A3 => {
                if !nz || d.fractal != 512 {
                    return Err(st(
                        n,
                        "dst",
                        "a2a3 destination must be Nz with fractal 512",
                        layout_name(d),
                    ));
                }
            }
            TileArch::A5 => {
                if !(nz || nd) {
                    return Err(st(
                        n,
                        "dst",
                        "a5 destination must be Nz or ND",
                        layout_name(d),
                    ));
                }
            }
        }
        if (arch == TileArch::A2A3 || dst.loc() == TileLoc::Vec) && !row_bytes.is_multiple_of(32) {
            return Err(st(
                n,
                "dst",
                "dst.cols * sizeof(dst) must be a multiple of 32 bytes (a2a3 Mat, a5 Vec)",
                format!("{row_bytes} bytes"),
            ));
        }
        let (r0, c0) = offsets(op, row, col)?;
        // The fixpipe's source address moves by whole Acc boxes along the columns
        // (`srcOffset` of pto-isa's TExtractAccToMat/TExtractAccToVec).
        if !c0.is_multiple_of(16) {
            return Err(vr_err(
                op,
                "indexCol",
                "indexCol must be a multiple of the Acc box width (16 columns)",
                c0.to_string(),
            ));
        }
        window_inside(op, true, dst, src, (r0, c0))?;
        let (rows, cols) = (dst.valid_row(), dst.valid_col());
        let out = self.fix_apply(src, (r0, c0), dst.dtype(), false, None, None, (rows, cols));
        self.write_bytes(dst, (0, 0), rows, cols, dst.dtype().size(), &out);
        Ok(())
    }

    /// TINSERT: `dst[i + row, j + col] = src[i, j]` over src's valid region.
    pub fn tinsert(&mut self, dst: &Tile, src: &Tile, row: i64, col: i64) -> Result<(), PtoError> {
        let op = OpCode::Tinsert;
        let n = op.name();
        self.check_addr(dst, n, "dst")?;
        self.check_addr(src, n, "src")?;
        let arch = self.arch();
        let ok = match (src.loc(), dst.loc()) {
            (TileLoc::Acc, TileLoc::Mat) => true,
            (TileLoc::Vec, TileLoc::Mat | TileLoc::Vec) => arch == TileArch::A5,
            _ => false,
        };
        if !ok {
            return Err(st(
                n,
                "dst",
                "location pair must be Acc->Mat (a5 also Vec->Mat, Vec->Vec)",
                format!("{:?}->{:?} on {}", src.loc(), dst.loc(), arch_name(arch)),
            ));
        }
        let (r0, c0) = offsets(op, row, col)?;
        let (vr, vc) = (src.valid_row(), src.valid_col());
        if src.loc() == TileLoc::Acc {
            // Acc -> Mat goes through the fixpipe (float narrows to half/bfloat16).
            return self.tmov_fix(dst, src, MovMode::default(), (vr, vc), (r0, c0), op);
        }
        same_type(op, "dst", dst, "src", src)?;
        fits(op, "dst", dst, r0, c0, vr, vc)?;
        self.copy_bits(dst, (r0, c0), src, (0, 0), vr, vc);
        Ok(())
    }

    /// TEXTRACT_FP (`op` = [`OpCode::TextractFp`]): `dst[i, j] = fix(src[i + row, j + col],
    /// word[col + j])` over dst's valid region; TINSERT_FP ([`OpCode::TinsertFp`]):
    /// `dst[i + row, j + col] = fix(src[i, j], word[j])` over src's valid region. `src` is an
    /// Acc tile, `fix` the fixpipe's vector pre-quantisation ([`fixpipe`], then the narrowing),
    /// `word[k]` the k-th uint64 word from the fp tile's address (see the module docs,
    /// "TEXTRACT_FP and TINSERT_FP").
    #[allow(clippy::too_many_arguments)]
    pub fn twindow_fp(
        &mut self,
        op: OpCode,
        dst: &Tile,
        src: &Tile,
        fp: &Tile,
        row: i64,
        col: i64,
        relu: bool,
    ) -> Result<(), PtoError> {
        let extract = match op {
            OpCode::TextractFp => true,
            OpCode::TinsertFp => false,
            _ => {
                return Err(PtoError::Operands {
                    op: op.name(),
                    expected: "TEXTRACT_FP or TINSERT_FP",
                });
            }
        };
        let n = op.name();
        let arch = self.arch();
        self.check_addr(dst, n, "dst")?;
        self.check_addr(src, n, "src")?;
        self.check_addr(fp, n, "fp")?;
        let dst_ok =
            dst.loc() == TileLoc::Mat || (arch == TileArch::A5 && dst.loc() == TileLoc::Vec);
        if src.loc() != TileLoc::Acc || !dst_ok {
            return Err(st(
                n,
                "dst",
                "location pair must be Acc->Mat (a5 also Acc->Vec)",
                format!("{:?}->{:?} on {}", src.loc(), dst.loc(), arch_name(arch)),
            ));
        }
        if fp.loc() != TileLoc::Scaling {
            return Err(st(
                n,
                "fp",
                "fp tile location must be Scaling",
                format!("{:?}", fp.loc()),
            ));
        }
        op.check_type(arch, "src", src.dtype())?;
        let scaled = check_quant_pair(op, arch, QuantSite::Move, src.dtype(), dst.dtype())?;
        let d = dst.desc();
        let nz = d.blayout == BLayout::ColMajor && d.slayout == SLayout::RowMajor;
        let nd = d.blayout == BLayout::RowMajor && d.slayout == SLayout::NoneBox;
        let dn = d.blayout == BLayout::ColMajor && d.slayout == SLayout::NoneBox;
        let size = dst.dtype().size();
        match arch {
            TileArch::A2A3 => {
                if !nz || d.fractal != 512 {
                    return Err(st(
                        n,
                        "dst",
                        "a2a3 destination must be Nz with fractal 512",
                        layout_name(d),
                    ));
                }
                if !(dst.cols() * size).is_multiple_of(32) {
                    return Err(st(
                        n,
                        "dst",
                        "a2a3 dst.cols * sizeof(dst) must be a multiple of 32 bytes",
                        format!("{} bytes", dst.cols() * size),
                    ));
                }
            }
            TileArch::A5 => {
                if !(nz || nd || (dn && !extract)) {
                    return Err(st(
                        n,
                        "dst",
                        if extract {
                            "a5 destination must be Nz or ND"
                        } else {
                            "a5 destination must be Nz, ND or DN"
                        },
                        layout_name(d),
                    ));
                }
            }
        }
        let (r0, c0) = offsets(op, row, col)?;
        // The column offset moves the fixpipe's start address inside a box of the boxed
        // operand: it must be a whole number of boxes (16 Acc columns; 32 bytes of a Nz dst).
        let (boxed, box_cols) = if extract {
            (
                "indexCol must be a multiple of the Acc box width (16 columns)",
                16,
            )
        } else if nz {
            (
                "indexCol must be a multiple of the Nz destination box width (32 bytes)",
                32 / size,
            )
        } else {
            ("", 1)
        };
        if !c0.is_multiple_of(box_cols) {
            return Err(vr_err(op, "indexCol", boxed, c0.to_string()));
        }
        let (inner, outer) = if extract { (dst, src) } else { (src, dst) };
        window_inside(op, extract, inner, outer, (r0, c0))?;
        let (rows, cols) = (inner.valid_row(), inner.valid_col());
        // FPC: the words start `col` fp elements past the fp tile for TEXTRACT_FP, at it for
        // TINSERT_FP, and the register holds that address in 128-byte units.
        let first = if extract { c0 as u64 } else { 0 };
        let fpc = fp.addr() + first * fp.dtype().size() as u64;
        if !fpc.is_multiple_of(128) {
            return Err(vr_err(
                op,
                "fp",
                "the fp words' address (fp + indexCol elements for TEXTRACT_FP) must be a multiple of 128 bytes (FPC holds it in 128-byte units)",
                format!("{fpc:#x}"),
            ));
        }
        let bytes = self
            .mem(TileLoc::Scaling)
            .bytes(fpc, cols as u64 * 8)
            .map_err(|_| {
                vr_err(
                    op,
                    "fp",
                    "the fixpipe's words (one uint64 per moved column from the fp address) must lie in the Scaling memory",
                    format!(
                        "{cols} words at {fpc:#x} in {} bytes",
                        self.mem(TileLoc::Scaling).capacity()
                    ),
                )
            })?;
        let raw: Vec<u64> = bytes
            .chunks_exact(8)
            .map(|c| {
                let mut w = [0u8; 8];
                w.copy_from_slice(c);
                u64::from_le_bytes(w)
            })
            .collect();
        let scales = if scaled {
            quant_words(op, arch, "fp", dst.dtype(), &raw)?
        } else {
            Vec::new()
        };
        let (from, at) = if extract {
            ((r0, c0), (0, 0))
        } else {
            ((0, 0), (r0, c0))
        };
        let out = self.fix_apply(
            src,
            from,
            dst.dtype(),
            relu,
            None,
            scaled.then_some(&scales[..]),
            (rows, cols),
        );
        self.write_bytes(dst, at, rows, cols, size, &out);
        Ok(())
    }

    /// Copies the `rows x cols` rectangle at `so` of `src` to `do_` of `dst` (same element
    /// size), through both layouts, in contiguous runs. Both tiles passed `check_addr` and the
    /// rectangles lie inside their shapes.
    pub(crate) fn copy_bits(
        &mut self,
        dst: &Tile,
        do_: (usize, usize),
        src: &Tile,
        so: (usize, usize),
        rows: usize,
        cols: usize,
    ) {
        let size = src.dtype().size();
        if self.copy_nz_nd(dst, do_, src, so, rows, cols) {
            return;
        }
        // Fast form: both tiles laid out in row runs in different memories (Acc Nz -> Vec ND,
        // Mat -> Left Nz, ...): each row copied run by run, memory to memory.
        let row_wise = |t: &Tile| t.row_run(0, 0) >= t.col_run(0, 0);
        if row_wise(src) && row_wise(dst) && src.loc() != dst.loc() {
            let (s, d) = (*src, *dst);
            if let Some((sm, dm)) = self.two_mems(s.loc(), d.loc()) {
                for r in 0..rows {
                    let mut c = 0;
                    while c < cols {
                        let (sr, sc) = (so.0 + r, so.1 + c);
                        let (dr, dc) = (do_.0 + r, do_.1 + c);
                        let len = s.row_run(sr, sc).min(d.row_run(dr, dc)).min(cols - c);
                        let (a, b) = (s.byte_addr(sr, sc) as usize, d.byte_addr(dr, dc) as usize);
                        let n = len * size;
                        if let (Some(x), Some(y)) = (sm.get(a..a + n), dm.get_mut(b..b + n)) {
                            y.copy_from_slice(x);
                        }
                        c += len;
                    }
                }
                return;
            }
        }
        let buf = self.read_bytes(src, so, rows, cols, size);
        self.write_bytes(dst, do_, rows, cols, size, &buf);
    }

    /// The hot moves between a Nz tile and a plain row-major one (Acc -> Vec, Vec -> Mat) in
    /// different memories, whole rectangles from `(0, 0)`: a Nz tile is a row of column strips,
    /// each strip a row-major `rows x box_cols` block (element `(r, c)` at
    /// `(c / bc) · rows · bc + r · bc + c % bc`), so each strip row is one run and no division
    /// runs per element. Returns false when the case does not apply.
    fn copy_nz_nd(
        &mut self,
        dst: &Tile,
        do_: (usize, usize),
        src: &Tile,
        so: (usize, usize),
        rows: usize,
        cols: usize,
    ) -> bool {
        let nz = |t: &Tile| {
            t.desc().blayout == BLayout::ColMajor && t.desc().slayout == SLayout::RowMajor
        };
        let to_nd = nz(src) && dst.is_row_major_plain();
        let from_nd = nz(dst) && src.is_row_major_plain();
        if so != (0, 0) || do_ != (0, 0) || src.loc() == dst.loc() || !(to_nd || from_nd) {
            return false;
        }
        let size = src.dtype().size();
        let (z, p) = if to_nd { (*src, *dst) } else { (*dst, *src) };
        let bc = z.inner().1.max(1);
        let (zb, pb, zrows, pcols) = (z.addr() as usize, p.addr() as usize, z.rows(), p.pitch());
        let Some((sm, dm)) = self.two_mems(src.loc(), dst.loc()) else {
            return false;
        };
        for (strip, c0) in (0..cols).step_by(bc).enumerate() {
            let w = bc.min(cols - c0) * size;
            let zs = zb + strip * zrows * bc * size;
            for r in 0..rows {
                let za = zs + r * bc * size;
                let pa = pb + (r * pcols + c0) * size;
                let (sa, da) = if to_nd { (za, pa) } else { (pa, za) };
                if let (Some(x), Some(y)) = (sm.get(sa..sa + w), dm.get_mut(da..da + w)) {
                    y.copy_from_slice(x);
                }
            }
        }
        true
    }

    /// A rectangle's elements as bytes, row-major.
    pub(crate) fn read_bytes(
        &self,
        t: &Tile,
        o: (usize, usize),
        rows: usize,
        cols: usize,
        size: usize,
    ) -> Vec<u8> {
        let mem = self.mem(t.loc()).as_slice();
        let mut out = vec![0u8; rows * cols * size];
        for_each_run(t, o, rows, cols, |a, d, len, step| {
            let Some(src) = mem.get(a..a + len * size) else {
                return;
            };
            if step == 1 {
                if let Some(dd) = out.get_mut(d * size..(d + len) * size) {
                    dd.copy_from_slice(src);
                }
            } else {
                for (i, e) in src.chunks_exact(size).enumerate() {
                    let at = (d + i * step) * size;
                    if let Some(dd) = out.get_mut(at..at + size) {
                        dd.copy_from_slice(e);
                    }
                }
            }
        });
        out
    }

    /// Writes a row-major rectangle of element bytes into a tile at `o`.
    pub(crate) fn write_bytes(
        &mut self,
        t: &Tile,
        o: (usize, usize),
        rows: usize,
        cols: usize,
        size: usize,
        buf: &[u8],
    ) {
        let t = *t;
        let mem = self.mem_mut(t.loc());
        for_each_run(&t, o, rows, cols, |a, s, len, step| {
            let Some(dst) = mem.get_mut(a..a + len * size) else {
                return;
            };
            if step == 1 {
                if let Some(ss) = buf.get(s * size..(s + len) * size) {
                    dst.copy_from_slice(ss);
                }
            } else {
                for (i, e) in dst.chunks_exact_mut(size).enumerate() {
                    let at = (s + i * step) * size;
                    if let Some(ss) = buf.get(at..at + size) {
                        e.copy_from_slice(ss);
                    }
                }
            }
        });
    }

    /// The `rows x cols` rectangle at `o`, row-major, widened to the compute type.
    pub(crate) fn read_rect_at<T: Elem>(
        &self,
        t: &Tile,
        o: (usize, usize),
        rows: usize,
        cols: usize,
    ) -> Vec<T::C> {
        let size = T::TYPE.size();
        let bytes = self.read_bytes(t, o, rows, cols, size);
        let mut out = vec![T::C::default(); rows * cols];
        T::load(&bytes, &mut out);
        out
    }

    /// Writes a row-major rectangle of compute values at `o`, narrowed to the tile's type.
    pub(crate) fn write_rect_at<T: Elem>(
        &mut self,
        t: &Tile,
        o: (usize, usize),
        rows: usize,
        cols: usize,
        vals: &[T::C],
    ) {
        let size = T::TYPE.size();
        let mut bytes = vec![0u8; rows * cols * size];
        T::store(vals, &mut bytes);
        self.write_bytes(t, o, rows, cols, size, &bytes);
    }
}

fn op_types(
    op: OpCode,
    arch: TileArch,
    operand: &'static str,
    t: ElemType,
    legal: &[ElemType],
) -> Result<(), PtoError> {
    if legal.contains(&t) {
        Ok(())
    } else {
        Err(PtoError::IllegalType {
            op: op.name(),
            operand,
            dtype: t,
            arch: arch_name(arch),
            legal: crate::error::type_list(legal),
        })
    }
}

fn offsets(op: OpCode, row: i64, col: i64) -> Result<(usize, usize), PtoError> {
    let conv = |v: i64, name: &'static str| {
        usize::try_from(v)
            .map_err(|_| vr_err(op, name, "offsets must not be negative", v.to_string()))
    };
    Ok((conv(row, "indexRow")?, conv(col, "indexCol")?))
}

/// The rectangle `rows x cols` at `(r0, c0)` fits the tile's shape.
fn fits(
    op: OpCode,
    operand: &'static str,
    t: &Tile,
    r0: usize,
    c0: usize,
    rows: usize,
    cols: usize,
) -> Result<(), PtoError> {
    if r0 + rows > t.rows() || c0 + cols > t.cols() {
        return Err(vr_err(
            op,
            operand,
            "the moved region must fit the tile's shape",
            format!("{rows}x{cols} at ({r0}, {c0}) in {}x{}", t.rows(), t.cols()),
        ));
    }
    Ok(())
}

/// The runs of consecutive addresses that cover a tile's `rows x cols` rectangle at `o`, along
/// rows or along columns, whichever the layout makes longer: `f(byte address, index of the
/// run's first element in the row-major rectangle, elements, rectangle index step between
/// them)` (step 1 along a row, `cols` down a column).
fn for_each_run(
    t: &Tile,
    o: (usize, usize),
    rows: usize,
    cols: usize,
    mut f: impl FnMut(usize, usize, usize, usize),
) {
    if t.row_run(0, 0) >= t.col_run(0, 0) {
        for r in 0..rows {
            let mut c = 0;
            while c < cols {
                let (tr, tc) = (o.0 + r, o.1 + c);
                let len = t.row_run(tr, tc).min(cols - c);
                f(t.byte_addr(tr, tc) as usize, r * cols + c, len, 1);
                c += len;
            }
        }
    } else {
        for c in 0..cols {
            let mut r = 0;
            while r < rows {
                let (tr, tc) = (o.0 + r, o.1 + c);
                let len = t.col_run(tr, tc).min(rows - r);
                f(t.byte_addr(tr, tc) as usize, r * cols + c, len, cols);
                r += len;
            }
        }
    }
}

/// The window rule of TEXTRACT / TINSERT and their forms: the `inner` tile (TEXTRACT's dst,
/// TINSERT's src) at `(r0, c0)` lies inside the `outer` one.
fn window_inside(
    op: OpCode,
    extract: bool,
    inner: &Tile,
    outer: &Tile,
    (r0, c0): (usize, usize),
) -> Result<(), PtoError> {
    if r0 + inner.rows() > outer.rows() || c0 + inner.cols() > outer.cols() {
        return Err(vr_err(
            op,
            "indexRow/indexCol",
            if extract {
                "indexRow + dst.rows <= src.rows and indexCol + dst.cols <= src.cols"
            } else {
                "indexRow + src.rows <= dst.rows and indexCol + src.cols <= dst.cols"
            },
            format!(
                "({r0}, {c0}) + {}x{} in {}x{}",
                inner.rows(),
                inner.cols(),
                outer.rows(),
                outer.cols()
            ),
        ));
    }
    Ok(())
}

/// TEXTRACT of the packed fp4 pairs Mat -> Left/Right (A5; pto-isa `a5/TExtract.hpp`
/// `TExtractToA` / `TExtractToB` with `isFp4Type`, the types of `is_textract_supported_type`).
/// Offsets count the tile's own units, as its shape and valid region do ([`super::fp4`]):
/// rows and columns of bytes, one byte = two values along K. pto-isa's program passes K
/// offsets in values; the same window in npusim is half that number of bytes, so every byte
/// offset is an even value offset and an odd value offset has no spelling. The L0 loads take
/// their start in whole blocks (`load_cbuf_to_ca_s4` / `load_cbuf_to_cb_s4`: M in 16s
/// (`>> SHIFT_BLOCK_LEN`), K in 32-byte blocks of 64 values (`(indexCol * 1) >> 5`, halved by
/// `KHALF` into pairs of 32-value units)), so a K offset that is not a multiple of 32 bytes or
/// an M offset that is not a multiple of 16 would be truncated by the hardware: typed errors.
/// A Left tile's K runs along its columns, a Right tile's along its rows.
pub fn fp4_extract_offsets(dst: TileLoc, (row, col): (usize, usize)) -> Result<(), PtoError> {
    let op = OpCode::Textract;
    let (m_name, m, k_name, k) = if dst == TileLoc::Left {
        ("indexRow", row, "indexCol", col)
    } else {
        ("indexCol", col, "indexRow", row)
    };
    if !k.is_multiple_of(32) {
        return Err(vr_err(
            op,
            k_name,
            "a packed fp4 TEXTRACT's K offset counts bytes (two values each) and must be a multiple of 32 bytes (64 values: one L0 load block)",
            format!("{k} bytes ({} values)", 2 * k),
        ));
    }
    if !m.is_multiple_of(16) {
        return Err(vr_err(
            op,
            m_name,
            "a packed fp4 TEXTRACT's M/N offset must be a multiple of 16 (one L0 load block)",
            m.to_string(),
        ));
    }
    Ok(())
}
