//! Configuration-state instructions: SET_QUANT_SCALAR, SET_QUANT_VECTOR (pto-isa
//! `docs/isa/SET_QUANT_SCALAR.md`, `docs/isa/SET_QUANT_VECTOR.md`), SETHF32MODE and
//! SETTF32MODE (`docs/isa/tile/ops/sync-and-config/sethf32mode.md`, `settf32mode.md`).
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

/// The configuration state these instructions set (all unset / IEEE at reset).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ConfigState {
    /// The last SET_QUANT_SCALAR word.
    pub quant_scalar: Option<u64>,
    /// The Scaling-tile address of the last SET_QUANT_VECTOR.
    pub quant_vector: Option<u64>,
    /// The cube's f32 input mode (SETHF32MODE / SETTF32MODE).
    pub cube_f32: CubeF32Mode,
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
