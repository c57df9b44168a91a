//! TRANDOM: counter-based random numbers (pto-isa `docs/isa/TRANDOM.md`, A5 only).
//!
//! The page names a counter-based cipher over a 128-bit counter (four 32-bit words) and a
//! 64-bit key (two words) with 7 or 10 rounds. The pto-isa implementations (the A5 header
//! `include/pto/npu/a5/TRandom.hpp` and the CPU simulator's) fix it as Philox-4x32: each
//! round multiplies counter words 0 and 2 by `0xD2511F53` and `0xCD9E8D57` into 64-bit
//! products and forms the next counter as `(hi(w2*M1) ^ w1 ^ k0, lo(w2*M1), hi(w0*M0) ^ w3 ^
//! k1, lo(w0*M0))`, then bumps the key by `(0x9E3779B9, 0xBB67AE85)`. With 10 rounds this is
//! Random123's Philox4x32-10 (the tests check its published known answers).
//!
//! How the outputs land in the tile (the A5 hardware path, the default of this crate):
//! - each row `i` walks its valid columns in chunks of 256 elements (four 64-lane vector
//!   registers of 32-bit words); element `k` of a chunk is word `k % 4` of the block of
//!   counter `C + k / 4` (the A5 interleaves its four result registers "to the normal
//!   generation order"), 128-bit addition with carry;
//! - after each chunk the base counter `C` (starting at the given counter) advances by 64, and
//!   after the last chunk of a row by `((validCol - 1) % 64) + 1` (so a row of 16 columns
//!   advances it by 16 although it used only counters `C .. C + 3`);
//! - only dst's valid region is written.
//!
//! The pto-isa CPU simulator orders a chunk differently (element `k` is word `k / 64` of
//! counter `C + k % 64`) and advances `C` by `RowStride / 4` per chunk, so its values differ
//! from the A5 path; this crate follows the hardware path.
//!
//! Restrictions (each a typed error): A5 only; dst a row-major Vec tile of `int32`/`uint32`;
//! rounds 7 or 10; key and counter words integers (a front end's null key cannot be written).

use super::{Scalar, need_loc, need_row_major};
use crate::core::TileCore;
use crate::error::PtoError;
use crate::table::OpCode;
use crate::tile::{Tile, TileLoc};
use npusim_core::TileArch;

/// The Philox multipliers of counter words 0 and 2.
const M: [u32; 2] = [0xD251_1F53, 0xCD9E_8D57];
/// The per-round key increments (the Weyl sequence).
const W: [u32; 2] = [0x9E37_79B9, 0xBB67_AE85];
/// Elements of one chunk: four 256-byte registers of 32-bit words.
const CHUNK: usize = 256;
/// Lanes (counters) of one 256-byte register of 32-bit words.
const LANES: u128 = 64;

/// The rounds TRANDOM takes (its `Rounds` template parameter; `rounds` attribute in PTO-AS).
pub const ROUNDS: [u32; 2] = [7, 10];

/// One Philox-4x32 block: the four output words of `counter` under `key` after `rounds`
/// rounds.
pub fn philox4x32(counter: [u32; 4], key: [u32; 2], rounds: u32) -> [u32; 4] {
    let (mut c, mut k) = (counter, key);
    for _ in 0..rounds {
        let p0 = u64::from(c[0]) * u64::from(M[0]);
        let p1 = u64::from(c[2]) * u64::from(M[1]);
        c = [
            (p1 >> 32) as u32 ^ c[1] ^ k[0],
            p1 as u32,
            (p0 >> 32) as u32 ^ c[3] ^ k[1],
            p0 as u32,
        ];
        k = [k[0].wrapping_add(W[0]), k[1].wrapping_add(W[1])];
    }
    c
}

/// The counter words as one 128-bit number (word 0 least significant) and back.
fn to_u128(c: [u32; 4]) -> u128 {
    c.iter()
        .rev()
        .fold(0u128, |acc, w| (acc << 32) | u128::from(*w))
}

fn from_u128(v: u128) -> [u32; 4] {
    [
        v as u32,
        (v >> 32) as u32,
        (v >> 64) as u32,
        (v >> 96) as u32,
    ]
}

/// TRANDOM's operands besides dst: the key, the counter and the rounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RandomParams {
    pub key: [u32; 2],
    pub counter: [u32; 4],
    pub rounds: u32,
}

/// The words TRANDOM writes into a `rows x cols` valid region, row-major (the A5 path).
pub fn trandom_words(p: RandomParams, rows: usize, cols: usize) -> Vec<u32> {
    let mut out = Vec::with_capacity(rows * cols);
    let mut base = to_u128(p.counter);
    let chunks = cols.div_ceil(CHUNK);
    for _ in 0..rows {
        for j in 0..chunks {
            let n = (cols - j * CHUNK).min(CHUNK);
            for lane in 0..n.div_ceil(4) {
                let block = philox4x32(from_u128(base.wrapping_add(lane as u128)), p.key, p.rounds);
                let take = (n - lane * 4).min(4);
                out.extend_from_slice(&block[..take]);
            }
            let step = if j + 1 == chunks {
                ((cols as u128 - 1) % LANES) + 1
            } else {
                LANES
            };
            base = base.wrapping_add(step);
        }
    }
    out
}

/// A key or counter word: an integer, taken modulo 2^32.
fn word(op: OpCode, s: Scalar) -> Result<u32, PtoError> {
    match s {
        Scalar::Int(i) => Ok(i as u32),
        Scalar::Float(v) => Err(PtoError::Scalar {
            op: op.name(),
            rule: "key and counter words must be 32-bit integers",
            value: format!("{v}"),
        }),
    }
}

impl TileCore {
    /// TRANDOM from scalar operands (the `exec` form): key words, counter words, rounds.
    pub(crate) fn trandom_scalars(
        &mut self,
        dst: &Tile,
        key: [Scalar; 2],
        counter: [Scalar; 4],
        rounds: u32,
    ) -> Result<(), PtoError> {
        let op = OpCode::Trandom;
        let key = [word(op, key[0])?, word(op, key[1])?];
        let mut c = [0u32; 4];
        for (w, s) in c.iter_mut().zip(counter) {
            *w = word(op, s)?;
        }
        self.trandom(
            dst,
            RandomParams {
                key,
                counter: c,
                rounds,
            },
        )
    }

    /// TRANDOM: fills dst's valid region with Philox-4x32 words of `p` (see the module docs
    /// for the layout).
    pub fn trandom(&mut self, dst: &Tile, p: RandomParams) -> Result<(), PtoError> {
        let op = OpCode::Trandom;
        if self.arch() != TileArch::A5 {
            return Err(PtoError::Unsupported {
                op: op.name(),
                what: "TRANDOM (an A5 instruction)".into(),
                arch: crate::table::arch_name(self.arch()),
            });
        }
        need_loc(op, "dst", dst, TileLoc::Vec)?;
        op.check_type(self.arch(), "dst", dst.dtype())?;
        need_row_major(op, "dst", dst)?;
        self.check_addr(dst, op.name(), "dst")?;
        if !ROUNDS.contains(&p.rounds) {
            return Err(PtoError::Static {
                op: op.name(),
                operand: "rounds",
                rule: "Rounds must be 7 or 10",
                value: p.rounds.to_string(),
            });
        }
        let (vr, vc) = (dst.valid_row(), dst.valid_col());
        let words = trandom_words(p, vr, vc);
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        self.write_bytes(dst, (0, 0), vr, vc, 4, &bytes);
        Ok(())
    }
}
