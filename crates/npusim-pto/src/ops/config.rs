//! Configuration-state instructions: SET_QUANT_SCALAR, SET_QUANT_VECTOR (pto-isa
//! `docs/isa/SET_QUANT_SCALAR.md`, `docs/isa/SET_QUANT_VECTOR.md`), SETHF32MODE and
//! SETTF32MODE (`docs/isa/tile/ops/sync-and-config/sethf32mode.md`, `settf32mode.md`), and the
//! IMG2COL registers SETFMATRIX, SET_IMG2COL_RPT, SET_IMG2COL_PADDING (`docs/isa/SETFMATRIX.md`,
//! `docs/isa/SET_IMG2COL_RPT.md`, `docs/isa/SET_IMG2COL_PADDING.md`; pages at
//! `docs/isa/tile/ops/sync-and-config/setfmatrix.md`, `set-img2col-rpt.md`,
//! `set-img2col-padding.md`).
//!
//! None of them moves data; each sets state of the core ([`ConfigState`], read back with
//! [`TileCore::config_state`]) that later instructions consume.
//!
//! ## Quant parameters
//!
//! - **SET_QUANT_SCALAR** `<OutType>(f32 scale)`: the pre-quant configuration word
//!   ([`quant_scalar_word`]): the scale's f32 bits in bits 0-31 and, for an 8-bit output, the
//!   output's signedness in bit 46 (1 for `int8_t`, 0 for `uint8_t`), the other bits 0 (the
//!   pto-isa CPU simulator's encoding; the page calls the encoding implementation-defined
//!   and names bit 46). `OutType` must be one of the page's output types (`int8_t`,
//!   `uint8_t`, `int16_t`, `bfloat16_t`, `half`: the table row's types); another is a typed
//!   error. The word is the
//!   one TMOV / TSTORE_FP take as their explicit pre-quant scalar operand.
//! - **SET_QUANT_VECTOR** `(fpTile)`: the fp tile must be a Scaling tile (the page's only
//!   rule; another location is a typed error); the state holds its address (the CPU
//!   simulator stores the tile's address in the FPC register).
//!
//! The pages' consumer of both is TPUSH (the fixpipe push of a cube result into a pipe),
//! which npusim does not model: the state is set, checked and readable, and a kernel that
//! needs TPUSH gets the PTO-AS front end's unsupported-op error at TPUSH itself, not a silent
//! no-op here.
//!
//! ## IMG2COL registers (the manual FMATRIX mode)
//!
//! The pages say only that each instruction programs an FMATRIX register "from an IMG2COL
//! configuration tile" for a later TIMG2COL, with a target-defined encoding; the pto-isa A2A3
//! and A5 headers (`include/pto/npu/*/SetFmatrix.hpp`, `SetImg2colRpt.hpp`,
//! `SetImg2colPadding.hpp`, `TImg2col.hpp`) fix the encodings npusim models:
//!
//! - **SETFMATRIX** ([`fmatrix_word`]): bits 0-15 the feature map's W, 16-31 its H, then the
//!   pad list `[left, right, top, bottom]` one byte each from bit 32. Two registers: FMATRIX
//!   (`FMATRIX_A_MANUAL`) and FMATRIX_B (`FMATRIX_B_MANUAL`) on both archs.
//! - **SET_IMG2COL_RPT** ([`img2col_rpt_word`]): bits 0-15 repeat stride, 16-23 repeat time,
//!   24-31 repeat mode; A5 adds the dst stride at bit 32 and the dst M position at bit 48 (the
//!   A2A3 ConvTile has neither field, so a non-zero value there is a typed error on A2A3).
//! - **SET_IMG2COL_PADDING** ([`img2col_padding_word`]): the pad value's bits, a 1-byte value
//!   repeated in both bytes of the low half-word.
//! - A5 keeps A and B copies of the repeat and padding registers (`set_l3d_rpt_b`,
//!   `set_padding_b`); the A2A3 headers write one register for both modes, so on A2A3 the B
//!   forms set the same register as the A forms.
//! - The `*_AUTO` modes of the three instructions do nothing (the headers compile them
//!   away): in auto mode TIMG2COL programs the registers itself from the config it carries.
//!   They still check their operands.
//!
//! Restrictions (typed errors): the feature map's H and W at least 1 (the CPU simulator's
//! assert) and inside their 16-bit fields, each pad inside its 8-bit field, repeat mode 0 or 1
//! (Ascend C's `LoadDataRepeatParam`: 0 along H, 1 along W), the pad value's type one of
//! TIMG2COL's types on the arch, and the pad value inside that type's width. The headers
//! would silently truncate an oversized field; npusim refuses it instead.
//!
//! TIMG2COL in a manual mode ([`crate::ops::img2col`]) reads H, W and the pads from the
//! selected FMATRIX register (unset is a typed error), the pad value from the padding
//! register (unset reads 0), and the repeat register (unset reads as the ConvTile defaults,
//! one pass: pto-isa's own manual-mode kernels never set it).
//!
//! ## Cube f32 input modes
//!
//! SETHF32MODE / SETTF32MODE `<enable, RoundMode>` set how the cube rounds f32 inputs
//! (L0A/L0B) before a matmul ([`CubeF32Mode`], applied by [`cube_f32_input`]):
//! - HF32: 11 mantissa bits, f32's exponent range (Ascend's HF32 definition in the CANN
//!   `--allow_hf32` / `SetHF32Mode` documentation); both archs.
//! - TF32: A5 only; 10 mantissa bits (the pto-isa tile header's `SetMadTF32Mode` comment:
//!   "a5: e8m10"). On A2/A3 the page makes SETTF32MODE a no-op that establishes no state, so
//!   npusim records nothing there.
//! - Rounding: `CAST_RINT` to nearest, ties to even; `CAST_ROUND` to nearest, ties away
//!   from zero (Ascend C's `RoundMode` names; the header maps `CAST_ROUND` to the cube's
//!   round-mode bit 1 and `CAST_RINT` to 0, and CANN's `SetHF32` documents mode 1 as ties
//!   away). Any other mode is a typed error (the pages: "mode values outside the supported
//!   set" are not allowed).
//!
//! **Where the sources disagree** (decided here, documented in `docs/pto-rest-audit.md`): the
//! SETTF32MODE page says "7-bit mantissa" and "`CAST_ROUND` rounds to nearest even"; the
//! pto-isa header says A5 TF32 is e8m10 and maps `CAST_ROUND` and `CAST_RINT` to two
//! different round-mode bits, and a 7-bit mantissa would be bf16, not TF32. npusim follows
//! the header. Rounding of the mantissa is bit-exact at any exponent: a carry out of the
//! mantissa bumps the exponent (the largest finite values round to ±inf), denormals round
//! at the same bit position, ±inf and NaN pass unchanged, zeros keep their sign.
//!
//! ## Fixpipe saturation control (CTRL[48], CTRL[50])
//!
//! Not a PTO instruction: the CTRL register bits that decide how the fixpipe's float outputs
//! overflow ([`SatCtrl`], set with [`TileCore::set_sat_ctrl`], consumed by
//! `ops::movement::float_overflow`). Sources: asc-devkit `SetCtrlSpr(ISASI).md` (tables 3-5:
//! CTRL[48] 0 = saturating, inf to ±max and NaN to 0; 1 = non-saturating, inf/NaN kept;
//! reset value 0 on A2, A3 and A5, where CTRL[60] = 1 at reset makes it global; CTRL[50], A5
//! only, reset 0: float8 NaN to 0.0 (0) or kept (1) in the saturating mode; A2/A3 have bit 48
//! alone), the Fixpipe pages (`L0C到GM数据搬运（Fixpipe）.md` and the L1 / UB pages: the same
//! two modes for the fixpipe's float outputs; float8_e4m3 overflow gives NaN unsaturated and
//! its largest normal saturated), `SetSaturationFlag(ISASI).md` (A2/A3's wrapper of bit 48).
//! PTO has no instruction for it: pto-isa's TCVT sets CTRL[48]/[59]/[60] around its own
//! conversion and restores them (`include/pto/common/arch/register/tcvt_common.hpp`), and
//! PTOAS has only TCVT's `sat_mode` attribute; the `sat` / `nosat` clauses of pto-isa's
//! low-level `pto.mte_l0c_*` writeback ops are not tile instructions. So the bits are a Rust
//! API only; [`TileCore::reset`] puts them back to 0 with the rest of this state.
//!
//! **Consumer hook.** The cube's f32 matmul (ops::cube, another helper's file) reads the
//! mode with [`TileCore::cube_f32_mode`] and maps each f32 A/B element through
//! [`cube_f32_input`] before multiplying; until that one call is added the state is recorded
//! but the matmul still multiplies full f32 inputs.

use crate::core::TileCore;
use crate::error::PtoError;
use crate::table::OpCode;
use crate::tile::{Tile, TileLoc};
use npusim_core::convert::RoundMode;
use npusim_core::{ElemType, TileArch};

/// How the cube rounds an f32 input before a matmul.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum CubeF32Mode {
    /// Full f32 (the reset state, and the state after a disabling SETHF32MODE/SETTF32MODE).
    #[default]
    Ieee,
    /// HF32: 11 mantissa bits; `away` rounds ties away from zero (`CAST_ROUND`).
    Hf32 { away: bool },
    /// TF32 (A5): 10 mantissa bits; `away` rounds ties away from zero (`CAST_ROUND`).
    Tf32 { away: bool },
}

impl CubeF32Mode {
    /// Mantissa bits kept (23 for full f32).
    pub fn mantissa_bits(self) -> u32 {
        match self {
            CubeF32Mode::Ieee => 23,
            CubeF32Mode::Hf32 { .. } => 11,
            CubeF32Mode::Tf32 { .. } => 10,
        }
    }
}

/// Which FMATRIX register set an IMG2COL instruction uses, and whether the register
/// instructions act (manual) or TIMG2COL programs the registers itself (auto): pto-isa's
/// `SetFmatrixMode`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FmatrixMode {
    /// `FMATRIX_A_AUTO`: TIMG2COL programs FMATRIX (A) from its config.
    #[default]
    AAuto,
    /// `FMATRIX_B_AUTO`.
    BAuto,
    /// `FMATRIX_A_MANUAL`: TIMG2COL reads the FMATRIX (A) registers.
    AManual,
    /// `FMATRIX_B_MANUAL`.
    BManual,
}

impl FmatrixMode {
    /// Manual (the register instructions act; TIMG2COL reads the registers).
    pub fn is_manual(self) -> bool {
        matches!(self, FmatrixMode::AManual | FmatrixMode::BManual)
    }
    /// 0 for the A registers, 1 for B.
    pub fn slot(self) -> usize {
        match self {
            FmatrixMode::AAuto | FmatrixMode::AManual => 0,
            FmatrixMode::BAuto | FmatrixMode::BManual => 1,
        }
    }
    /// The slot of the repeat and padding registers: A2A3 has one of each.
    pub fn shared_slot(self, arch: TileArch) -> usize {
        match arch {
            TileArch::A2A3 => 0,
            TileArch::A5 => self.slot(),
        }
    }
}

/// The repeat fields of an IMG2COL configuration (pto-isa's ConvTile; Ascend C's
/// `LoadDataRepeatParam`). The default is one pass: stride 0, time 1, mode 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Img2colRepeat {
    /// Repeat stride (16 bits).
    pub stride: u16,
    /// Repeat time (8 bits): 0 makes TIMG2COL a no-op, 1 is one pass.
    pub time: u8,
    /// Repeat mode: 0 along H, 1 along W.
    pub mode: u8,
    /// A5: the dst stride (bits 32-47).
    pub dst_stride: u16,
    /// A5: the dst M position (bits 48-63).
    pub dst_mposition: u16,
}

impl Default for Img2colRepeat {
    fn default() -> Self {
        Img2colRepeat {
            stride: 0,
            time: 1,
            mode: 0,
            dst_stride: 0,
            dst_mposition: 0,
        }
    }
}

impl Img2colRepeat {
    /// The fields of a repeat register word (A2A3 words have zero dst fields).
    pub fn from_word(w: u64) -> Img2colRepeat {
        Img2colRepeat {
            stride: w as u16,
            time: (w >> 16) as u8,
            mode: (w >> 24) as u8,
            dst_stride: (w >> 32) as u16,
            dst_mposition: (w >> 48) as u16,
        }
    }
}

/// The configuration state these instructions set (all unset / IEEE at reset).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ConfigState {
    /// The last SET_QUANT_SCALAR word.
    pub quant_scalar: Option<u64>,
    /// The Scaling-tile address of the last SET_QUANT_VECTOR.
    pub quant_vector: Option<u64>,
    /// The cube's f32 input mode (SETHF32MODE / SETTF32MODE).
    pub cube_f32: CubeF32Mode,
    /// The FMATRIX and FMATRIX_B register words (SETFMATRIX, or an auto-mode TIMG2COL).
    pub fmatrix: [Option<u64>; 2],
    /// The IMG2COL repeat register words, A and B (A2A3: only `[0]`).
    pub img2col_rpt: [Option<u64>; 2],
    /// The IMG2COL padding register words, A and B (A2A3: only `[0]`).
    pub img2col_padding: [Option<u32>; 2],
    /// The CTRL bits of the fixpipe's float saturation (CTRL[48], A5 CTRL[50]).
    pub sat: SatCtrl,
}

/// The CTRL register bits that decide how the fixpipe's float outputs overflow (see the
/// module docs, "Fixpipe saturation control"). Both bits are 0 at reset (asc-devkit
/// `SetCtrlSpr(ISASI).md` tables 3-5), which is this type's `Default`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SatCtrl {
    /// CTRL[48]: `false` (0, the reset value) is the saturating mode (inf and overflow to ±max,
    /// NaN to 0); `true` (1) the non-saturating mode (inf and NaN kept).
    pub ctrl48: bool,
    /// CTRL[50], A5 only: in the saturating mode a float8_e4m3 NaN result stays NaN (1) or
    /// becomes 0 (0, the reset value).
    pub ctrl50: bool,
}

fn field_err(op: OpCode, operand: &'static str, rule: &'static str, value: String) -> PtoError {
    PtoError::Static {
        op: op.name(),
        operand,
        rule,
        value,
    }
}

/// SETFMATRIX's register word for a feature map of `h x w` and the pad list `[left, right,
/// top, bottom]` (see the module docs). `op` names the instruction in errors (SETFMATRIX, or
/// TIMG2COL programming the register in auto mode).
pub fn fmatrix_word(op: OpCode, h: usize, w: usize, pad: [usize; 4]) -> Result<u64, PtoError> {
    if h == 0 || w == 0 || h > 0xFFFF || w > 0xFFFF {
        return Err(field_err(
            op,
            "src",
            "the feature map's H and W must be 1..=65535 (16-bit FMATRIX fields)",
            format!("H {h}, W {w}"),
        ));
    }
    if pad.iter().any(|&p| p > 0xFF) {
        return Err(field_err(
            op,
            "src",
            "each pad must be 0..=255 (8-bit FMATRIX fields)",
            format!("pad {pad:?}"),
        ));
    }
    let mut word = w as u64 | (h as u64) << 16;
    for (i, p) in pad.iter().enumerate() {
        word |= (*p as u64) << (32 + 8 * i);
    }
    Ok(word)
}

/// The fields of an FMATRIX word: `(H, W, [left, right, top, bottom])`.
pub fn fmatrix_fields(word: u64) -> (usize, usize, [usize; 4]) {
    let pad = std::array::from_fn(|i| ((word >> (32 + 8 * i)) & 0xFF) as usize);
    (
        ((word >> 16) & 0xFFFF) as usize,
        (word & 0xFFFF) as usize,
        pad,
    )
}

/// SET_IMG2COL_RPT's register word on `arch` (see the module docs).
pub fn img2col_rpt_word(op: OpCode, arch: TileArch, r: &Img2colRepeat) -> Result<u64, PtoError> {
    if r.mode > 1 {
        return Err(field_err(
            op,
            "src",
            "the repeat mode must be 0 (along H) or 1 (along W)",
            r.mode.to_string(),
        ));
    }
    if arch == TileArch::A2A3 && (r.dst_stride != 0 || r.dst_mposition != 0) {
        return Err(field_err(
            op,
            "src",
            "a2a3 has no dst stride or dst M position repeat fields (they must be 0)",
            format!(
                "dst_stride {}, dst_mposition {}",
                r.dst_stride, r.dst_mposition
            ),
        ));
    }
    Ok(u64::from(r.stride)
        | u64::from(r.time) << 16
        | u64::from(r.mode) << 24
        | u64::from(r.dst_stride) << 32
        | u64::from(r.dst_mposition) << 48)
}

/// SET_IMG2COL_PADDING's register word for a pad value `bits` of type `ty` on `arch`.
pub fn img2col_padding_word(
    op: OpCode,
    arch: TileArch,
    ty: ElemType,
    bits: u64,
) -> Result<u32, PtoError> {
    OpCode::Timg2col.check_type(arch, "src", ty).map_err(|_| {
        field_err(
            op,
            "src",
            "the pad value's type must be one of TIMG2COL's types on the arch",
            format!("{ty:?}"),
        )
    })?;
    let size = ty.size();
    if size < 8 && bits >> (8 * size) != 0 {
        return Err(field_err(
            op,
            "src",
            "the pad value must fit its element type",
            format!("{bits:#x} for {ty:?}"),
        ));
    }
    Ok(match size {
        1 => (bits as u32) << 8 | bits as u32,
        _ => bits as u32,
    })
}

/// The pad value of type `ty` a padding register word holds (its low `size` bytes).
pub fn padding_bits(word: u32, ty: ElemType) -> u64 {
    match ty.size() {
        1 => u64::from(word & 0xFF),
        2 => u64::from(word & 0xFFFF),
        _ => u64::from(word),
    }
}

/// SET_QUANT_SCALAR's configuration word (see the module docs).
pub fn quant_scalar_word(out: ElemType, scale: f32) -> Result<u64, PtoError> {
    // The page's output types, as the table row lists them (the same on both archs).
    OpCode::SetQuantScalar.check_type(TileArch::A5, "OutType", out)?;
    let mut w = u64::from(scale.to_bits());
    if out == ElemType::I8 {
        w |= 1 << 46;
    }
    Ok(w)
}

/// `x` rounded to `bits` mantissa bits (0 < bits <= 23), ties to even or away from zero (see
/// the module docs).
pub fn round_mantissa(x: f32, bits: u32, away: bool) -> f32 {
    if !x.is_finite() || bits >= 23 {
        return x;
    }
    let drop = 23 - bits;
    let b = x.to_bits();
    let half = 1u32 << (drop - 1);
    let rest = b & ((1u32 << drop) - 1);
    let kept = b & !((1u32 << drop) - 1);
    let lsb = (b >> drop) & 1;
    let up = rest > half || (rest == half && (away || lsb == 1));
    // The sign bit sits above the exponent, so a carry runs into the exponent (to inf at most).
    f32::from_bits(if up { kept + (1 << drop) } else { kept })
}

/// An f32 cube input under `mode` ([`round_mantissa`] at the mode's width).
pub fn cube_f32_input(mode: CubeF32Mode, x: f32) -> f32 {
    match mode {
        CubeF32Mode::Ieee => x,
        CubeF32Mode::Hf32 { away } | CubeF32Mode::Tf32 { away } => {
            round_mantissa(x, mode.mantissa_bits(), away)
        }
    }
}

/// `away` for a SETHF32MODE/SETTF32MODE round mode (`CAST_ROUND` or `CAST_RINT`).
fn away_of(op: OpCode, mode: RoundMode) -> Result<bool, PtoError> {
    match mode {
        RoundMode::Rint => Ok(false),
        RoundMode::Round => Ok(true),
        m => Err(PtoError::Static {
            op: op.name(),
            operand: "mode",
            rule: "the f32 transform mode must be CAST_ROUND or CAST_RINT",
            value: format!("{m:?}"),
        }),
    }
}

impl TileCore {
    /// The configuration state.
    pub fn config_state(&self) -> ConfigState {
        self.config
    }
    /// The cube's f32 input mode (for the matmul's inputs; see the module docs).
    pub fn cube_f32_mode(&self) -> CubeF32Mode {
        self.config.cube_f32
    }

    /// SET_QUANT_SCALAR.
    pub fn set_quant_scalar(&mut self, out: ElemType, scale: f32) -> Result<(), PtoError> {
        self.config.quant_scalar = Some(quant_scalar_word(out, scale)?);
        Ok(())
    }

    /// SET_QUANT_VECTOR.
    pub fn set_quant_vector(&mut self, fp: &Tile) -> Result<(), PtoError> {
        let op = OpCode::SetQuantVector;
        if fp.loc() != TileLoc::Scaling {
            return Err(PtoError::Static {
                op: op.name(),
                operand: "fpTile",
                rule: "the fp tile must be a Scaling tile",
                value: format!("{:?}", fp.loc()),
            });
        }
        self.check_addr(fp, op.name(), "fpTile")?;
        self.config.quant_vector = Some(fp.addr());
        Ok(())
    }

    /// SETHF32MODE `<enable, mode>`.
    pub fn set_hf32_mode(&mut self, enable: bool, mode: RoundMode) -> Result<(), PtoError> {
        let away = away_of(OpCode::Sethf32mode, mode)?;
        self.config.cube_f32 = if enable {
            CubeF32Mode::Hf32 { away }
        } else {
            CubeF32Mode::Ieee
        };
        Ok(())
    }

    /// SETFMATRIX `<mode>(cfg)`: the FMATRIX (A or B) register from the config's feature-map
    /// H, W and pad list; the auto modes only check (see the module docs).
    pub fn set_fmatrix(
        &mut self,
        cfg: &crate::ops::img2col::Img2colConfig,
        mode: FmatrixMode,
    ) -> Result<(), PtoError> {
        let word = fmatrix_word(OpCode::Setfmatrix, cfg.fmap[3], cfg.fmap[4], cfg.pad)?;
        if mode.is_manual() {
            self.config.fmatrix[mode.slot()] = Some(word);
        }
        Ok(())
    }

    /// SET_IMG2COL_RPT `<mode>(cfg)`: the repeat register.
    pub fn set_img2col_rpt(
        &mut self,
        r: &Img2colRepeat,
        mode: FmatrixMode,
    ) -> Result<(), PtoError> {
        let arch = self.arch();
        let word = img2col_rpt_word(OpCode::SetImg2colRpt, arch, r)?;
        if mode.is_manual() {
            self.config.img2col_rpt[mode.shared_slot(arch)] = Some(word);
        }
        Ok(())
    }

    /// SET_IMG2COL_PADDING `<mode>(cfg)`: the padding register from the config's pad value of
    /// element type `ty`.
    pub fn set_img2col_padding(
        &mut self,
        ty: ElemType,
        pad_value: u64,
        mode: FmatrixMode,
    ) -> Result<(), PtoError> {
        let arch = self.arch();
        let word = img2col_padding_word(OpCode::SetImg2colPadding, arch, ty, pad_value)?;
        if mode.is_manual() {
            self.config.img2col_padding[mode.shared_slot(arch)] = Some(word);
        }
        Ok(())
    }

    /// The fixpipe's saturation control bits (CTRL[48], CTRL[50]).
    pub fn sat_ctrl(&self) -> SatCtrl {
        self.config.sat
    }

    /// Writes the fixpipe's saturation control bits, as Ascend C's `SetCtrlSpr<48, 48>` /
    /// `SetCtrlSpr<50, 50>` do (PTO has no instruction for them; see the module docs). CTRL[50]
    /// exists on A5 only: setting it on A2A3 is a typed error.
    pub fn set_sat_ctrl(&mut self, ctrl: SatCtrl) -> Result<(), PtoError> {
        if ctrl.ctrl50 && self.arch() == TileArch::A2A3 {
            return Err(PtoError::Static {
                op: "SetCtrlSpr",
                operand: "CTRL[50]",
                rule: "a2a3 has only CTRL[48] (SetCtrlSpr: Atlas A2/A3 support bit 48 alone)",
                value: "1".to_string(),
            });
        }
        self.config.sat = ctrl;
        Ok(())
    }

    /// SETTF32MODE `<enable, mode>` (A2/A3: a no-op by the page, after the mode check).
    pub fn set_tf32_mode(&mut self, enable: bool, mode: RoundMode) -> Result<(), PtoError> {
        let away = away_of(OpCode::Settf32mode, mode)?;
        if self.arch() == TileArch::A5 {
            self.config.cube_f32 = if enable {
                CubeF32Mode::Tf32 { away }
            } else {
                CubeF32Mode::Ieee
            };
        }
        Ok(())
    }
}
