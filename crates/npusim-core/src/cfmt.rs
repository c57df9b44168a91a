//! C `printf` formatting, for the print calls of every family (PTO's `pto.print`, which
//! PTOAS lowers to `PRINTF(format, scalar)`; the Ascend and Sophgo `printf` calls).
//!
//! The behaviour is ISO C 7.21.6.1 (`fprintf`) as glibc implements it: flags `-+ #0`, a
//! width, a precision, the length modifiers `hh h l ll j z t L`, and the conversions
//! `d i u o x X c f F e E g G %`. A value is rounded from its exact binary value to the
//! nearest decimal, ties to even (glibc in the default rounding mode); infinities print as
//! `inf`, NaNs as `nan` (`-nan` when the sign bit is set), upper case for `F E G`.
//!
//! What C leaves undefined is a typed error here: a conversion whose argument has the wrong
//! kind (`%d` of a float), a missing argument, `*` widths, and conversions npusim does not
//! model (`%s %p %n %a`).

use std::fmt::Write as _;

/// One argument of a formatted print.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CArg {
    /// A signed integer (any width; the length modifier truncates as C's promotion would).
    Int(i64),
    /// A floating-point value (`float` arguments are promoted to `double`, as in C).
    Float(f64),
}

/// Why a format cannot be applied.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("format string `{format}`, byte {pos}: {rule}")]
pub struct CFormatError {
    /// The format string.
    pub format: String,
    /// Byte offset of the offending conversion.
    pub pos: usize,
    /// The broken rule.
    pub rule: String,
}

/// What a conversion consumes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgKind {
    /// `d i u o x X c`.
    Int,
    /// `f F e E g G`.
    Float,
}

#[derive(Clone, Copy, Debug, Default)]
struct Spec {
    minus: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: usize,
    prec: Option<usize>,
    /// Bits of the integer argument after C's conversion (`hh` 8, `h` 16, none 32, `l` 64).
    bits: u32,
    conv: u8,
}

/// One piece of a parsed format: literal text or a conversion.
enum Piece<'a> {
    Text(&'a str),
    Percent,
    Conv(Spec, usize),
}

fn parse(fmt: &str) -> Result<Vec<Piece<'_>>, CFormatError> {
    let err = |pos: usize, rule: String| CFormatError {
        format: fmt.to_string(),
        pos,
        rule,
    };
    let b = fmt.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut lit = 0;
    while i < b.len() {
        if b[i] != b'%' {
            i += 1;
            continue;
        }
        if lit < i {
            out.push(Piece::Text(&fmt[lit..i]));
        }
        let start = i;
        i += 1;
        let mut s = Spec {
            bits: 32,
            ..Spec::default()
        };
        while let Some(&c) = b.get(i) {
            match c {
                b'-' => s.minus = true,
                b'+' => s.plus = true,
                b' ' => s.space = true,
                b'#' => s.alt = true,
                b'0' => s.zero = true,
                _ => break,
            }
            i += 1;
        }
        let digits = |i: &mut usize| {
            let mut n: usize = 0;
            while let Some(d) = b.get(*i).filter(|c| c.is_ascii_digit()) {
                n = n.saturating_mul(10).saturating_add(usize::from(d - b'0'));
                *i += 1;
            }
            n
        };
        if b.get(i) == Some(&b'*') {
            return Err(err(start, "a `*` width is not supported".into()));
        }
        s.width = digits(&mut i);
        if b.get(i) == Some(&b'.') {
            i += 1;
            if b.get(i) == Some(&b'*') {
                return Err(err(start, "a `*` precision is not supported".into()));
            }
            s.prec = Some(digits(&mut i));
        }
        if s.width > 4096 || s.prec.is_some_and(|p| p > 4096) {
            return Err(err(start, "width and precision are limited to 4096".into()));
        }
        match b.get(i) {
            Some(b'h') if b.get(i + 1) == Some(&b'h') => {
                s.bits = 8;
                i += 2;
            }
            Some(b'h') => {
                s.bits = 16;
                i += 1;
            }
            Some(b'l') if b.get(i + 1) == Some(&b'l') => {
                s.bits = 64;
                i += 2;
            }
            Some(b'l' | b'j' | b'z' | b't' | b'q' | b'L') => {
                s.bits = 64;
                i += 1;
            }
            _ => {}
        }
        let Some(&conv) = b.get(i) else {
            return Err(err(start, "the format ends inside a conversion".into()));
        };
        i += 1;
        match conv {
            b'%' => out.push(Piece::Percent),
            b'd' | b'i' | b'u' | b'o' | b'x' | b'X' | b'c' | b'f' | b'F' | b'e' | b'E' | b'g'
            | b'G' => {
                s.conv = conv;
                out.push(Piece::Conv(s, start));
            }
            other => {
                return Err(err(
                    start,
                    format!(
                        "the conversion `%{}` is not supported (use d i u o x X c f F e E g G)",
                        char::from(other).escape_default()
                    ),
                ));
            }
        }
        lit = i;
    }
    if lit < b.len() {
        out.push(Piece::Text(&fmt[lit..]));
    }
    Ok(out)
}

/// The argument kinds `fmt` consumes, in order (for checking a call before running it).
pub fn arg_kinds(fmt: &str) -> Result<Vec<ArgKind>, CFormatError> {
    Ok(parse(fmt)?
        .iter()
        .filter_map(|p| match p {
            Piece::Conv(s, _) => Some(kind(s.conv)),
            _ => None,
        })
        .collect())
}

fn kind(conv: u8) -> ArgKind {
    match conv {
        b'f' | b'F' | b'e' | b'E' | b'g' | b'G' => ArgKind::Float,
        _ => ArgKind::Int,
    }
}

/// `fmt` applied to `args`, as C's `printf` prints it.
pub fn format(fmt: &str, args: &[CArg]) -> Result<String, CFormatError> {
    let pieces = parse(fmt)?;
    let mut out = String::with_capacity(fmt.len() + 16);
    let mut next = args.iter();
    for p in pieces {
        match p {
            Piece::Text(t) => out.push_str(t),
            Piece::Percent => out.push('%'),
            Piece::Conv(s, pos) => {
                let err = |rule: String| CFormatError {
                    format: fmt.to_string(),
                    pos,
                    rule,
                };
                let conv = char::from(s.conv);
                match (kind(s.conv), next.next()) {
                    (_, None) => return Err(err(format!("`%{conv}` has no argument"))),
                    (ArgKind::Int, Some(CArg::Int(v))) => int_conv(&mut out, &s, *v),
                    (ArgKind::Float, Some(CArg::Float(v))) => float_conv(&mut out, &s, *v),
                    (ArgKind::Int, Some(CArg::Float(v))) => {
                        return Err(err(format!(
                            "`%{conv}` takes an integer, the argument is the float {v}"
                        )));
                    }
                    (ArgKind::Float, Some(CArg::Int(v))) => {
                        return Err(err(format!(
                            "`%{conv}` takes a float, the argument is the integer {v}"
                        )));
                    }
                }
            }
        }
    }
    Ok(out)
}

/// Pads `sign + prefix + body` to the width: left (`-`), with zeros after the prefix
/// (`zero`), or with spaces before.
fn pad(out: &mut String, s: &Spec, head: &str, body: &str, zero: bool) {
    let len = head.len() + body.len();
    let fill = s.width.saturating_sub(len);
    if s.minus {
        out.push_str(head);
        out.push_str(body);
        out.extend(std::iter::repeat_n(' ', fill));
    } else if zero {
        out.push_str(head);
        out.extend(std::iter::repeat_n('0', fill));
        out.push_str(body);
    } else {
        out.extend(std::iter::repeat_n(' ', fill));
        out.push_str(head);
        out.push_str(body);
    }
}

fn sign_of(s: &Spec, negative: bool) -> &'static str {
    if negative {
        "-"
    } else if s.plus {
        "+"
    } else if s.space {
        " "
    } else {
        ""
    }
}

fn int_conv(out: &mut String, s: &Spec, v: i64) {
    let mask: u64 = if s.bits >= 64 {
        u64::MAX
    } else {
        (1u64 << s.bits) - 1
    };
    if s.conv == b'c' {
        // `%c` prints the byte `(unsigned char)v`.
        let ch = char::from(v as u8);
        pad(out, s, "", &ch.to_string(), false);
        return;
    }
    let signed = matches!(s.conv, b'd' | b'i');
    let (negative, mag) = if signed {
        // Sign-extend from the argument's width.
        let sh = 64 - s.bits;
        let x = ((v as u64) << sh) as i64 >> sh;
        (x < 0, x.unsigned_abs())
    } else {
        (false, (v as u64) & mask)
    };
    let mut digits = match s.conv {
        b'o' => format!("{mag:o}"),
        b'x' => format!("{mag:x}"),
        b'X' => format!("{mag:X}"),
        _ => mag.to_string(),
    };
    match s.prec {
        Some(0) if mag == 0 => digits.clear(),
        Some(p) if digits.len() < p => {
            digits = "0".repeat(p - digits.len()) + &digits;
        }
        _ => {}
    }
    let mut head = String::from(if signed { sign_of(s, negative) } else { "" });
    if s.alt {
        match s.conv {
            b'o' if !digits.starts_with('0') => digits.insert(0, '0'),
            b'x' if mag != 0 => head.push_str("0x"),
            b'X' if mag != 0 => head.push_str("0X"),
            _ => {}
        }
    }
    let zero = s.zero && !s.minus && s.prec.is_none();
    pad(out, s, &head, &digits, zero);
}

/// `v`'s magnitude in `%.{p}e` form as (digits without the point, decimal exponent), rounded
/// from the exact binary value, ties to even.
fn sci(v: f64, p: usize) -> (String, i32) {
    let t = format!("{:.*e}", p, v.abs());
    let (m, e) = t.split_once('e').unwrap_or((&t, "0"));
    (m.replace('.', ""), e.parse().unwrap_or(0))
}

fn with_exp(out: &mut String, digits: &str, exp: i32, alt: bool, upper: bool) {
    let (first, rest) = digits.split_at(digits.len().min(1));
    out.push_str(first);
    if !rest.is_empty() || alt {
        out.push('.');
    }
    out.push_str(rest);
    out.push(if upper { 'E' } else { 'e' });
    out.push(if exp < 0 { '-' } else { '+' });
    let _ = write!(out, "{:02}", exp.unsigned_abs());
}

fn float_conv(out: &mut String, s: &Spec, v: f64) {
    let upper = matches!(s.conv, b'F' | b'E' | b'G');
    let head = sign_of(s, v.is_sign_negative());
    if !v.is_finite() {
        let body = match (v.is_nan(), upper) {
            (true, false) => "nan",
            (true, true) => "NAN",
            (false, false) => "inf",
            (false, true) => "INF",
        };
        pad(out, s, head, body, false);
        return;
    }
    let p = s.prec.unwrap_or(6);
    let mut body = String::new();
    match s.conv {
        b'f' | b'F' => {
            let _ = write!(body, "{:.*}", p, v.abs());
            if p == 0 && s.alt {
                body.push('.');
            }
        }
        b'e' | b'E' => {
            let (d, e) = sci(v, p);
            with_exp(&mut body, &d, e, s.alt, upper);
        }
        _ => {
            // %g: the style follows the exponent X of the %e form with P - 1 digits.
            let pp = p.max(1);
            let (d, x) = sci(v, pp - 1);
            if v == 0.0 || (x >= -4 && (x as i64) < pp as i64) {
                let fp = (pp as i64 - 1 - i64::from(if v == 0.0 { 0 } else { x })).max(0) as usize;
                let _ = write!(body, "{:.*}", fp, v.abs());
                if !s.alt {
                    trim_zeros(&mut body);
                } else if !body.contains('.') {
                    body.push('.');
                }
            } else {
                let mut d = d;
                if !s.alt {
                    while d.len() > 1 && d.ends_with('0') {
                        d.pop();
                    }
                }
                with_exp(&mut body, &d, x, s.alt, upper);
            }
        }
    }
    pad(out, s, head, &body, s.zero && !s.minus);
}

fn trim_zeros(body: &mut String) {
    if body.contains('.') {
        while body.ends_with('0') {
            body.pop();
        }
        if body.ends_with('.') {
            body.pop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_width_precision() {
        let f = |fmt: &str, a: CArg| format(fmt, &[a]).unwrap();
        assert_eq!(f("scalar = %+08.3f", CArg::Float(1.5)), "scalar = +001.500");
        assert_eq!(f("%5d|", CArg::Int(-42)), "  -42|");
        assert_eq!(f("%-5d|", CArg::Int(42)), "42   |");
        assert_eq!(f("%05d", CArg::Int(-42)), "-0042");
        assert_eq!(
            format("%#x %#o", &[CArg::Int(255), CArg::Int(8)]).unwrap(),
            "0xff 010"
        );
    }

    #[test]
    fn undefined_calls_are_errors() {
        assert!(format("%d", &[CArg::Float(1.0)]).is_err());
        assert!(format("%f", &[CArg::Int(1)]).is_err());
        assert!(format("%d %d", &[CArg::Int(1)]).is_err());
        assert!(format("%s", &[CArg::Int(1)]).is_err());
        assert!(format("%*d", &[CArg::Int(1)]).is_err());
        assert!(format("abc %", &[]).is_err());
        assert_eq!(format("100%% sure", &[]).unwrap(), "100% sure");
    }
}
