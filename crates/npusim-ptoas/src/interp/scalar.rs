//! Scalar semantics of the `arith` subset: integers are kept sign-extended in an `i64` and
//! wrapped to their width after every op (`i1` is kept as 0 or 1); floats are kept in an `f64`
//! that always holds a value of their type (rounded to nearest even after every op).
//!
//! For `+ − × ÷` and `remf` on f32, f16 and bf16, computing in f64 and rounding once is the
//! correctly rounded result (f64 carries more than twice their precision plus two bits).

use crate::ast::{CmpFPredicate, CmpIPredicate, ScalarType};
use npusim_core::{bf16, f16};

/// Pre-decoded integer binary op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IntOp {
    Add,
    Sub,
    Mul,
    DivS,
    DivU,
    RemS,
    RemU,
    CeilDivS,
    CeilDivU,
    FloorDivS,
    MinS,
    MinU,
    MaxS,
    MaxU,
    And,
    Or,
    Xor,
    Shl,
    ShrS,
    ShrU,
}

/// Pre-decoded float binary op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FloatOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Maximum,
    Minimum,
    MaxNum,
    MinNum,
}

/// Pre-decoded cast, with its operand and result types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CastKind {
    /// Sign-extend from `from` bits, wrap to `to`.
    SExt { from: ScalarType, to: ScalarType },
    /// Zero-extend from `from` bits, wrap to `to`.
    ZExt { from: ScalarType, to: ScalarType },
    /// Signed integer to float.
    SIToFP { from: ScalarType, to: ScalarType },
    /// Unsigned integer to float.
    UIToFP { from: ScalarType, to: ScalarType },
    /// Float to signed integer (truncating, saturating at the type's range; NaN gives 0).
    FPToSI { to: ScalarType },
    /// Float to unsigned integer (truncating, saturating; NaN gives 0).
    FPToUI { to: ScalarType },
    /// Float to float, rounded to nearest even.
    FToF { to: ScalarType },
    /// Reinterpret bits between same-width types.
    Bitcast { from: ScalarType, to: ScalarType },
}

/// Bits of a scalar type as the interpreter stores it (`index` is 64).
pub(crate) fn bits(t: ScalarType) -> u32 {
    t.bits()
}

/// Wraps `v` to type `t` (sign-extended; `i1` as 0/1). Floats are returned unchanged.
pub(crate) fn wrap(t: ScalarType, v: i64) -> i64 {
    match t {
        ScalarType::I1 => v & 1,
        ScalarType::I8 => v as i8 as i64,
        ScalarType::I16 => v as i16 as i64,
        ScalarType::I32 => v as i32 as i64,
        _ => v,
    }
}

/// The stored value of `t` read as unsigned.
pub(crate) fn zext(t: ScalarType, v: i64) -> u64 {
    match bits(t) {
        64 => v as u64,
        b => (v as u64) & ((1u64 << b) - 1),
    }
}

/// The stored value of `t` read as signed (`i1` true is −1, as MLIR's `extsi` gives).
pub(crate) fn sext(t: ScalarType, v: i64) -> i64 {
    match t {
        ScalarType::I1 => -(v & 1),
        _ => v,
    }
}

/// Rounds `v` to float type `t` (nearest even).
pub(crate) fn round_float(t: ScalarType, v: f64) -> f64 {
    match t {
        ScalarType::F32 => v as f32 as f64,
        ScalarType::F16 => f16::from_f64(v).to_f64(),
        ScalarType::Bf16 => bf16::from_f64(v).to_f64(),
        _ => v,
    }
}

/// The float of type `t` with bit pattern `b`.
pub(crate) fn float_from_bits(t: ScalarType, b: u64) -> f64 {
    match t {
        ScalarType::F16 => f16::from_bits(b as u16).to_f64(),
        ScalarType::Bf16 => bf16::from_bits(b as u16).to_f64(),
        _ => f32::from_bits(b as u32) as f64,
    }
}

/// The bit pattern of `v` as a float of type `t` (rounded to nearest even).
pub(crate) fn float_to_bits(t: ScalarType, v: f64) -> u64 {
    match t {
        ScalarType::F16 => u64::from(f16::from_f64(v).to_bits()),
        ScalarType::Bf16 => u64::from(bf16::from_f64(v).to_bits()),
        _ => u64::from((v as f32).to_bits()),
    }
}

/// An integer binary op; `Err` for division by zero.
pub(crate) fn int_binary(op: IntOp, t: ScalarType, a: i64, b: i64) -> Result<i64, &'static str> {
    let w = bits(t);
    let (ua, ub) = (zext(t, a), zext(t, b));
    let (sa, sb) = (sext(t, a), sext(t, b));
    let div0 = |d: u64| {
        if d == 0 {
            Err("integer division by zero")
        } else {
            Ok(())
        }
    };
    let r = match op {
        IntOp::Add => a.wrapping_add(b),
        IntOp::Sub => a.wrapping_sub(b),
        IntOp::Mul => a.wrapping_mul(b),
        IntOp::DivS => {
            div0(ub)?;
            sa.wrapping_div(sb)
        }
        IntOp::DivU => {
            div0(ub)?;
            (ua / ub) as i64
        }
        IntOp::RemS => {
            div0(ub)?;
            sa.wrapping_rem(sb)
        }
        IntOp::RemU => {
            div0(ub)?;
            (ua % ub) as i64
        }
        IntOp::CeilDivS => {
            div0(ub)?;
            let q = sa.wrapping_div(sb);
            if sa.wrapping_rem(sb) != 0 && ((sa < 0) == (sb < 0)) {
                q.wrapping_add(1)
            } else {
                q
            }
        }
        IntOp::CeilDivU => {
            div0(ub)?;
            (ua / ub + u64::from(ua % ub != 0)) as i64
        }
        IntOp::FloorDivS => {
            div0(ub)?;
            let q = sa.wrapping_div(sb);
            if sa.wrapping_rem(sb) != 0 && ((sa < 0) != (sb < 0)) {
                q.wrapping_sub(1)
            } else {
                q
            }
        }
        IntOp::MinS => {
            if sa <= sb {
                a
            } else {
                b
            }
        }
        IntOp::MaxS => {
            if sa >= sb {
                a
            } else {
                b
            }
        }
        IntOp::MinU => {
            if ua <= ub {
                a
            } else {
                b
            }
        }
        IntOp::MaxU => {
            if ua >= ub {
                a
            } else {
                b
            }
        }
        IntOp::And => a & b,
        IntOp::Or => a | b,
        IntOp::Xor => a ^ b,
        // Shift amounts of the width or more (poison in MLIR) give 0, or the sign for `shrsi`.
        IntOp::Shl => {
            if ub >= u64::from(w) {
                0
            } else {
                ((ua << ub) & mask(w)) as i64
            }
        }
        IntOp::ShrU => {
            if ub >= u64::from(w) {
                0
            } else {
                (ua >> ub) as i64
            }
        }
        IntOp::ShrS => {
            if ub >= u64::from(w) {
                if sa < 0 { -1 } else { 0 }
            } else {
                sa >> ub
            }
        }
    };
    Ok(wrap(t, r))
}

fn mask(w: u32) -> u64 {
    if w >= 64 { u64::MAX } else { (1u64 << w) - 1 }
}

/// A float binary op in type `t`.
pub(crate) fn float_binary(op: FloatOp, t: ScalarType, a: f64, b: f64) -> f64 {
    let r = match op {
        FloatOp::Add => a + b,
        FloatOp::Sub => a - b,
        FloatOp::Mul => a * b,
        FloatOp::Div => a / b,
        FloatOp::Rem => a % b,
        FloatOp::Maximum => {
            if a.is_nan() || b.is_nan() {
                f64::NAN
            } else if a == b {
                if a.is_sign_negative() { b } else { a }
            } else {
                a.max(b)
            }
        }
        FloatOp::Minimum => {
            if a.is_nan() || b.is_nan() {
                f64::NAN
            } else if a == b {
                if a.is_sign_negative() { a } else { b }
            } else {
                a.min(b)
            }
        }
        FloatOp::MaxNum => a.max(b),
        FloatOp::MinNum => a.min(b),
    };
    round_float(t, r)
}

/// `arith.cmpi`.
pub(crate) fn cmpi(p: CmpIPredicate, t: ScalarType, a: i64, b: i64) -> bool {
    let (sa, sb) = (sext(t, a), sext(t, b));
    let (ua, ub) = (zext(t, a), zext(t, b));
    match p {
        CmpIPredicate::Eq => ua == ub,
        CmpIPredicate::Ne => ua != ub,
        CmpIPredicate::Slt => sa < sb,
        CmpIPredicate::Sle => sa <= sb,
        CmpIPredicate::Sgt => sa > sb,
        CmpIPredicate::Sge => sa >= sb,
        CmpIPredicate::Ult => ua < ub,
        CmpIPredicate::Ule => ua <= ub,
        CmpIPredicate::Ugt => ua > ub,
        CmpIPredicate::Uge => ua >= ub,
    }
}

/// `arith.cmpf` (ordered predicates are false on NaN, unordered ones true).
pub(crate) fn cmpf(p: CmpFPredicate, a: f64, b: f64) -> bool {
    let uno = a.is_nan() || b.is_nan();
    match p {
        CmpFPredicate::False => false,
        CmpFPredicate::True => true,
        CmpFPredicate::Oeq => !uno && a == b,
        CmpFPredicate::Ogt => !uno && a > b,
        CmpFPredicate::Oge => !uno && a >= b,
        CmpFPredicate::Olt => !uno && a < b,
        CmpFPredicate::Ole => !uno && a <= b,
        CmpFPredicate::One => !uno && a != b,
        CmpFPredicate::Ord => !uno,
        CmpFPredicate::Ueq => uno || a == b,
        CmpFPredicate::Ugt => uno || a > b,
        CmpFPredicate::Uge => uno || a >= b,
        CmpFPredicate::Ult => uno || a < b,
        CmpFPredicate::Ule => uno || a <= b,
        CmpFPredicate::Une => uno || a != b,
        CmpFPredicate::Uno => uno,
    }
}

/// A scalar value: integer-like or float.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Num {
    Int(i64),
    Float(f64),
}

fn int_range(t: ScalarType, unsigned: bool) -> (f64, f64) {
    let w = bits(t);
    if unsigned {
        (0.0, (mask(w) as f64))
    } else if w >= 64 {
        (i64::MIN as f64, i64::MAX as f64)
    } else {
        (-((1u64 << (w - 1)) as f64), ((1u64 << (w - 1)) - 1) as f64)
    }
}

/// Applies a cast.
pub(crate) fn cast(k: CastKind, v: Num) -> Num {
    match (k, v) {
        (CastKind::SExt { from, to }, Num::Int(x)) => Num::Int(wrap(to, sext(from, x))),
        (CastKind::ZExt { from, to }, Num::Int(x)) => Num::Int(wrap(to, zext(from, x) as i64)),
        (CastKind::SIToFP { from, to }, Num::Int(x)) => {
            let s = sext(from, x);
            Num::Float(match to {
                ScalarType::F32 => s as f32 as f64,
                _ => round_float(to, s as f64),
            })
        }
        (CastKind::UIToFP { from, to }, Num::Int(x)) => {
            let u = zext(from, x);
            Num::Float(match to {
                ScalarType::F32 => u as f32 as f64,
                _ => round_float(to, u as f64),
            })
        }
        (CastKind::FPToSI { to }, Num::Float(f)) => {
            let (lo, hi) = int_range(to, false);
            let t = f.trunc();
            let r = if t.is_nan() {
                0
            } else if t <= lo {
                lo as i64
            } else if t >= hi {
                hi as i64
            } else {
                t as i64
            };
            Num::Int(wrap(to, r))
        }
        (CastKind::FPToUI { to }, Num::Float(f)) => {
            let (_, hi) = int_range(to, true);
            let t = f.trunc();
            let r = if t.is_nan() || t <= 0.0 {
                0u64
            } else if t >= hi {
                mask(bits(to))
            } else {
                t as u64
            };
            Num::Int(wrap(to, r as i64))
        }
        (CastKind::FToF { to }, Num::Float(f)) => Num::Float(round_float(to, f)),
        (CastKind::Bitcast { from, to }, v) => {
            let b = match v {
                Num::Int(x) => zext(from, x),
                Num::Float(f) => float_to_bits(from, f),
            };
            if to.is_float() {
                Num::Float(float_from_bits(to, b))
            } else {
                let w = bits(to);
                let x = if w < 64 && b >> (w - 1) & 1 == 1 && to != ScalarType::I1 {
                    (b | !mask(w)) as i64
                } else {
                    b as i64
                };
                Num::Int(wrap(to, x))
            }
        }
        // Kind mismatches cannot come out of the verifier; keep the value.
        (_, v) => v,
    }
}

/// Parses a command-line literal for a scalar parameter of type `t`.
/// Whether a float literal is an ordinary number rather than a spelled-out NaN or infinity.
pub(crate) fn is_finite_literal(s: &str) -> bool {
    let l = s.trim().to_ascii_lowercase();
    !(l.contains("nan") || l.contains("inf"))
}

fn largest_finite(t: ScalarType) -> f64 {
    match t {
        ScalarType::F16 => f16::MAX.to_f64(),
        ScalarType::Bf16 => bf16::MAX.to_f64(),
        ScalarType::F32 => f32::MAX as f64,
        _ => f64::MAX,
    }
}

pub(crate) fn parse_literal(t: ScalarType, s: &str) -> Result<Num, String> {
    let s = s.trim();
    if t.is_float() {
        let v: f64 = s
            .parse()
            .map_err(|_| format!("`{s}` is not a {} number", t.name()))?;
        // NaN and infinities are taken only when spelled out (`nan`, `inf`, `-infinity`);
        // a finite literal that overflows the type is an error, not an infinity.
        let spelled_special = !is_finite_literal(s);
        let r = round_float(t, v);
        if !spelled_special && !r.is_finite() {
            return Err(format!(
                "`{s}` overflows {} (largest finite value {})",
                t.name(),
                round_float(t, largest_finite(t))
            ));
        }
        return Ok(Num::Float(r));
    }
    if t == ScalarType::I1 {
        return match s {
            "true" | "1" => Ok(Num::Int(1)),
            "false" | "0" => Ok(Num::Int(0)),
            _ => Err(format!("`{s}` is not an i1 (use true, false, 1 or 0)")),
        };
    }
    // Decimal literals lie in the type's signed range (`index` and loop arithmetic are signed);
    // a hexadecimal literal is a bit pattern of at most the type's width.
    let w = bits(t);
    if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        let v = u128::from_str_radix(h, 16).map_err(|_| format!("`{s}` is not an integer"))?;
        if v >> w != 0 {
            return Err(format!(
                "`{s}` does not fit in {} (a bit pattern of at most {w} bits)",
                t.name()
            ));
        }
        return Ok(Num::Int(wrap(t, v as u64 as i64)));
    }
    let v: i128 = s.parse().map_err(|_| format!("`{s}` is not an integer"))?;
    let (lo, hi): (i128, i128) = (-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1);
    if v < lo || v > hi {
        return Err(format!(
            "`{s}` does not fit in {} (range {lo} ..= {hi})",
            t.name()
        ));
    }
    Ok(Num::Int(wrap(t, v as i64)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ScalarType as S;

    #[test]
    fn integer_ops_wrap_and_round() {
        assert_eq!(int_binary(IntOp::Add, S::I8, 127, 1), Ok(-128));
        assert_eq!(int_binary(IntOp::CeilDivS, S::Index, 7, 2), Ok(4));
        assert_eq!(int_binary(IntOp::CeilDivS, S::Index, -7, 2), Ok(-3));
        assert_eq!(int_binary(IntOp::FloorDivS, S::Index, -7, 2), Ok(-4));
        assert_eq!(int_binary(IntOp::MinU, S::I32, -1, 5), Ok(5));
        assert_eq!(int_binary(IntOp::ShrU, S::I8, -128, 7), Ok(1));
        assert_eq!(int_binary(IntOp::ShrS, S::I8, -128, 9), Ok(-1));
        assert_eq!(int_binary(IntOp::DivS, S::I64, i64::MIN, -1), Ok(i64::MIN));
        assert!(int_binary(IntOp::RemU, S::I32, 3, 0).is_err());
    }

    #[test]
    fn casts() {
        let sx = CastKind::SExt {
            from: S::I1,
            to: S::I32,
        };
        assert_eq!(cast(sx, Num::Int(1)), Num::Int(-1));
        let zx = CastKind::ZExt {
            from: S::I8,
            to: S::Index,
        };
        assert_eq!(cast(zx, Num::Int(-1)), Num::Int(255));
        let bc = CastKind::Bitcast {
            from: S::F32,
            to: S::I32,
        };
        assert_eq!(cast(bc, Num::Float(-0.0)), Num::Int(i32::MIN as i64));
        let fp = CastKind::FPToSI { to: S::I8 };
        assert_eq!(cast(fp, Num::Float(1e9)), Num::Int(127));
        assert_eq!(cast(fp, Num::Float(f64::NAN)), Num::Int(0));
    }

    #[test]
    fn literals() {
        assert_eq!(parse_literal(S::F32, "0.1"), Ok(Num::Float(0.1f32 as f64)));
        // Decimal: the signed range; hex: a bit pattern of the type's width.
        assert!(parse_literal(S::I8, "255").is_err());
        assert_eq!(parse_literal(S::I8, "-128"), Ok(Num::Int(-128)));
        assert_eq!(parse_literal(S::I8, "0xff"), Ok(Num::Int(-1)));
        assert!(parse_literal(S::I8, "0x100").is_err());
        assert_eq!(
            parse_literal(S::Index, "0xffffffffffffffff"),
            Ok(Num::Int(-1))
        );
        assert!(parse_literal(S::Index, "18446744073709551615").is_err());
        // A finite literal that overflows is an error; NaN and infinities spelled out are not.
        assert!(parse_literal(S::F32, "1e39").is_err());
        assert!(parse_literal(S::F16, "65520").is_err());
        assert_eq!(parse_literal(S::F16, "65504"), Ok(Num::Float(65504.0)));
        assert!(
            matches!(parse_literal(S::F32, "-inf"), Ok(Num::Float(v)) if v == f64::NEG_INFINITY)
        );
        assert!(matches!(parse_literal(S::F32, "nan"), Ok(Num::Float(v)) if v.is_nan()));
        assert!(parse_literal(S::Index, "abc").is_err());
        assert_eq!(parse_literal(S::I1, "true"), Ok(Num::Int(1)));
    }
}
