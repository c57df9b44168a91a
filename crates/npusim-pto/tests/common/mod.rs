//! Shared test helpers: special-heavy value generation and bit decoding.
#![allow(dead_code)]

use npusim_core::convert::{Exact, FloatFormat, RoundMode, Saturation, round_to_format};
use npusim_pto::{ElemType, Tile, TileCore, TileLoc};

/// Maps random bits to a value of `t`, often a special one (±0, ±inf, NaN, denormals, extremes).
pub fn special(t: ElemType, bits: u64, sel: u8) -> u64 {
    let w = t.bits();
    let mask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
    if sel >= 5 {
        return bits & mask;
    }
    match FloatFormat::of(t) {
        Some(f) => {
            let sign = 1u64 << (f.exp_bits + f.man_bits);
            let table = [
                0,
                sign,
                f.inf(false),
                f.inf(true),
                f.quiet_nan(false),
                1,        // smallest denormal
                sign | 3, // negative denormal
                f.max_finite(false),
                f.max_finite(true),
                one(f),
                one(f) | sign,
                one(f) + 1,
            ];
            table[(bits % table.len() as u64) as usize]
        }
        None => {
            let signed = t.is_signed_int();
            let min = if signed { 1u64 << (w - 1) } else { 0 };
            let max = if signed { mask >> 1 } else { mask };
            let table = [0, 1, mask, min, max, 2, 3, mask - 1];
            table[(bits % table.len() as u64) as usize]
        }
    }
}

fn one(f: FloatFormat) -> u64 {
    ((1u64 << (f.exp_bits - 1)) - 1) << f.man_bits
}

/// A decoded element: a float as f64 (exact) or an integer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum V {
    F(f64),
    I(i128),
}

pub fn decode(t: ElemType, bits: u64) -> V {
    match t {
        ElemType::F16 => V::F(half::f16::from_bits(bits as u16).to_f64()),
        ElemType::Bf16 => V::F(half::bf16::from_bits(bits as u16).to_f64()),
        ElemType::F32 => V::F(f32::from_bits(bits as u32) as f64),
        _ => {
            let w = t.bits();
            let m = if w == 64 { bits } else { bits & ((1 << w) - 1) };
            V::I(if t.is_signed_int() {
                ((m << (64 - w)) as i64 >> (64 - w)) as i128
            } else {
                m as i128
            })
        }
    }
}

/// Rounds an f64 once to `t` (RNE) or wraps an integer to `t`; returns bits.
pub fn encode(t: ElemType, v: V) -> u64 {
    match (FloatFormat::of(t), v) {
        (Some(f), V::F(x)) => {
            round_to_format(Exact::from_f64(x), f, RoundMode::Rint, Saturation::Off)
        }
        (None, V::I(i)) => {
            let w = t.bits();
            let raw = i as u64;
            if w == 64 { raw } else { raw & ((1 << w) - 1) }
        }
        (Some(f), V::I(i)) => {
            round_to_format(Exact::from_int(i), f, RoundMode::Rint, Saturation::Off)
        }
        (None, V::F(x)) => encode(t, V::I(x as i128)),
    }
}

/// Equal bits, or both NaN.
pub fn same(t: ElemType, a: u64, b: u64) -> bool {
    if a == b {
        return true;
    }
    matches!((decode(t, a), decode(t, b)), (V::F(x), V::F(y)) if x.is_nan() && y.is_nan())
}

/// Elements per 32 bytes.
pub fn block(t: ElemType) -> usize {
    32 / t.size()
}

/// Fills the first `len` bytes of the core's Vec memory with xorshift bytes from `seed`, so a
/// test sees any byte an op should not have written.
pub fn scramble(c: &mut TileCore, len: usize, seed: u64) {
    let mut x = seed | 1;
    for b in c.mem_mut(TileLoc::Vec)[..len].iter_mut() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *b = x as u8;
    }
}

/// Every element of the tile's static shape, as raw bits, row by row.
pub fn all_bits(c: &TileCore, t: &Tile) -> Vec<Vec<u64>> {
    (0..t.rows())
        .map(|r| {
            (0..t.cols())
                .map(|k| c.get_bits(t, r, k).unwrap())
                .collect()
        })
        .collect()
}
