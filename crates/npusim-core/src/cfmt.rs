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

/// Whose `printf` a format follows.
///
/// - [`Dialect::C`]: ISO C / glibc (the default; `pto.print`). The length modifier gives an
///   integer argument's width; `%s %p` are not modelled.
/// - [`Dialect::AscendC`]: Ascend C's device `printf` / `PRINTF` (asc-devkit `docs/api/context/
///   printf.md`). The conversions are `d i u x f s p` only; an integer argument keeps its own C++
///   type (the call is a variadic template), so no length modifier is needed or used; `%u` and
///   `%x` print the argument's 64-bit two's-complement pattern (the page: "on the NPU `%x`
///   prints 64 bits"); `%p` prints `0x` and the address in hex.
/// - [`Dialect::Python`]: Python's `%` operator, which TIK's debugger applies to
///   `tik_instance.printf` (the TIK page's "signed octal/hexadecimal" conversions and its
///   `'#'` flag adding `0o` are Python's rules): `%x %o` of a negative value print a sign and
///   the magnitude, `#` gives `0x`/`0o` even for 0, `%d` of a float truncates toward zero, a
///   float conversion of an integer converts it, `%s` prints Python's `str()`, the `0` flag
///   pads also with a precision and pads `inf`/`nan`, a NaN prints without a minus sign.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// ISO C, glibc.
    #[default]
    C,
    /// Ascend C's device `printf`.
    AscendC,
    /// Python's `%` formatting (TIK).
    Python,
}

impl Dialect {
    fn conversions(self) -> &'static str {
        match self {
            Dialect::C => "d i u o x X c f F e E g G",
            Dialect::AscendC => "d i u x f s p",
            Dialect::Python => "d i u o x X c e E f F g G s",
        }
    }
}

/// One argument of a print in any [`Dialect`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Arg<'a> {
    /// A value of a signed integer type.
    Int(i64),
    /// A value of an unsigned integer type (or `bool`).
    UInt(u64),
    /// A floating-point value (`half`, `bfloat16`, `float` widen exactly to `double`).
    Float(f64),
    /// A string.
    Str(&'a str),
    /// A pointer (its address).
    Ptr(u64),
}

impl Arg<'_> {
    /// What the argument is, in words (for error messages).
    pub fn describe(&self) -> String {
        match self {
            Arg::Int(v) => format!("the integer {v}"),
            Arg::UInt(v) => format!("the unsigned integer {v}"),
            Arg::Float(v) => format!("the float {v}"),
            Arg::Str(s) => format!("the string {s:?}"),
            Arg::Ptr(p) => format!("the pointer {p:#x}"),
        }
    }
}

impl From<CArg> for Arg<'_> {
    fn from(a: CArg) -> Self {
        match a {
            CArg::Int(v) => Arg::Int(v),
            CArg::Float(v) => Arg::Float(v),
        }
    }
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
    /// `s`.
    Str,
    /// `p`.
    Ptr,
}

/// One conversion of a parsed format, as the dialect checks see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Conversion {
    /// Byte offset of its `%`.
    pub pos: usize,
    /// The conversion character.
    pub conv: char,
    /// The flags given (`-+ #0`, in the order written, duplicates removed).
    pub flags: [bool; 5],
    /// The width, when given.
    pub width: Option<usize>,
    /// The precision, when given.
    pub precision: Option<usize>,
    /// What it consumes.
    pub kind: ArgKind,
}

#[derive(Clone, Copy, Debug, Default)]
struct Spec {
    minus: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: usize,
    has_width: bool,
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

fn parse(fmt: &str, dialect: Dialect) -> Result<Vec<Piece<'_>>, CFormatError> {
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
        s.has_width = b.get(i).is_some_and(u8::is_ascii_digit);
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
        if conv == b'%' {
            if dialect == Dialect::Python && i - start != 2 {
                return Err(err(
                    start,
                    "`%%` takes no flags, width or precision in Python".into(),
                ));
            }
            out.push(Piece::Percent);
        } else if conv.is_ascii_alphabetic()
            && dialect
                .conversions()
                .split(' ')
                .any(|c| c.as_bytes() == [conv])
        {
            s.conv = conv;
            out.push(Piece::Conv(s, start));
        } else {
            return Err(err(
                start,
                format!(
                    "the conversion `%{}` is not supported (use {})",
                    char::from(conv).escape_default(),
                    dialect.conversions()
                ),
            ));
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
    Ok(conversions(fmt, Dialect::C)?
        .iter()
        .map(|c| c.kind)
        .collect())
}

/// The conversions of `fmt` in `dialect`, in order (for a face's own checks: TIK's limits on
/// widths and flags, the argument count).
pub fn conversions(fmt: &str, dialect: Dialect) -> Result<Vec<Conversion>, CFormatError> {
    Ok(parse(fmt, dialect)?
        .iter()
        .filter_map(|p| match p {
            Piece::Conv(s, pos) => Some(Conversion {
                pos: *pos,
                conv: char::from(s.conv),
                flags: [s.minus, s.plus, s.space, s.alt, s.zero],
                width: s.has_width.then_some(s.width),
                precision: s.prec,
                kind: kind(s.conv),
            }),
            _ => None,
        })
        .collect())
}

fn kind(conv: u8) -> ArgKind {
    match conv {
        b'f' | b'F' | b'e' | b'E' | b'g' | b'G' => ArgKind::Float,
        b's' => ArgKind::Str,
        b'p' => ArgKind::Ptr,
        _ => ArgKind::Int,
    }
}

/// `fmt` applied to `args`, as C's `printf` prints it.
pub fn format(fmt: &str, args: &[CArg]) -> Result<String, CFormatError> {
    run(fmt, Dialect::C, args.len(), |i| Arg::from(args[i]))
}

/// `fmt` applied to `args` as `dialect`'s printf prints it (see [`Dialect`]). Every argument
/// must be consumed: extra arguments are an error here (C ignores them, but a face that passes
/// more values than conversions has a bug worth naming).
pub fn format_in(dialect: Dialect, fmt: &str, args: &[Arg<'_>]) -> Result<String, CFormatError> {
    let n = conversions(fmt, dialect)?.len();
    if args.len() > n {
        return Err(CFormatError {
            format: fmt.to_string(),
            pos: fmt.len(),
            rule: format!(
                "the format has {n} conversion(s) but {} arguments were given",
                args.len()
            ),
        });
    }
    run(fmt, dialect, args.len(), |i| args[i])
}

fn run<'a>(
    fmt: &str,
    dialect: Dialect,
    nargs: usize,
    get: impl Fn(usize) -> Arg<'a>,
) -> Result<String, CFormatError> {
    let pieces = parse(fmt, dialect)?;
    let mut out = String::with_capacity(fmt.len() + 16);
    let mut next = 0;
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
                if next >= nargs {
                    return Err(err(format!("`%{conv}` has no argument")));
                }
                let a = get(next);
                next += 1;
                let wrong = |want: &str| {
                    err(format!(
                        "`%{conv}` takes {want}, the argument is {}",
                        a.describe()
                    ))
                };
                match kind(s.conv) {
                    ArgKind::Int => {
                        if s.conv == b'c' {
                            char_conv(&mut out, &s, dialect, a).map_err(err)?;
                        } else {
                            let (neg, mag) =
                                int_value(&s, dialect, a).ok_or_else(|| wrong("an integer"))?;
                            int_conv(&mut out, &s, dialect, neg, mag);
                        }
                    }
                    ArgKind::Float => {
                        let v = match (a, dialect) {
                            (Arg::Float(v), _) => v,
                            (Arg::Int(v), Dialect::Python) => v as f64,
                            (Arg::UInt(v), Dialect::Python) => v as f64,
                            _ => return Err(wrong("a float")),
                        };
                        float_conv(&mut out, &s, dialect, v);
                    }
                    ArgKind::Str => {
                        let text = match (a, dialect) {
                            (Arg::Str(t), _) => t.to_string(),
                            (Arg::Int(v), Dialect::Python) => v.to_string(),
                            (Arg::UInt(v), Dialect::Python) => v.to_string(),
                            (Arg::Float(v), Dialect::Python) => py_float_str(v),
                            _ => return Err(wrong("a string")),
                        };
                        let body: String = match s.prec {
                            Some(p) => text.chars().take(p).collect(),
                            None => text,
                        };
                        pad(&mut out, &s, "", &body, false);
                    }
                    ArgKind::Ptr => {
                        let Arg::Ptr(v) = a else {
                            return Err(wrong("a pointer"));
                        };
                        let body = if v == 0 {
                            "(nil)".to_string()
                        } else {
                            format!("0x{v:x}")
                        };
                        pad(&mut out, &s, "", &body, false);
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
    let len = head.chars().count() + body.chars().count();
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

/// The sign and magnitude an integer conversion prints, or `None` when the argument is not
/// an integer the dialect accepts.
fn int_value(s: &Spec, dialect: Dialect, a: Arg<'_>) -> Option<(bool, u128)> {
    let signed = matches!(s.conv, b'd' | b'i');
    match dialect {
        Dialect::C => {
            let raw = match a {
                Arg::Int(v) => v as u64,
                Arg::UInt(v) => v,
                _ => return None,
            };
            if signed {
                // Sign-extend from the argument's width.
                let sh = 64 - s.bits;
                let x = (raw << sh) as i64 >> sh;
                Some((x < 0, u128::from(x.unsigned_abs())))
            } else {
                let mask: u64 = if s.bits >= 64 {
                    u64::MAX
                } else {
                    (1u64 << s.bits) - 1
                };
                Some((false, u128::from(raw & mask)))
            }
        }
        Dialect::AscendC => match a {
            Arg::Int(v) if signed => Some((v < 0, u128::from(v.unsigned_abs()))),
            Arg::Int(v) => Some((false, u128::from(v as u64))),
            Arg::UInt(v) => Some((false, u128::from(v))),
            _ => None,
        },
        Dialect::Python => match a {
            Arg::Int(v) => Some((v < 0, u128::from(v.unsigned_abs()))),
            Arg::UInt(v) => Some((false, u128::from(v))),
            Arg::Float(v) if signed || s.conv == b'u' => {
                if !v.is_finite() {
                    return None;
                }
                let t = v.trunc();
                Some((t < 0.0, t.abs() as u128))
            }
            _ => None,
        },
    }
}

fn char_conv(out: &mut String, s: &Spec, dialect: Dialect, a: Arg<'_>) -> Result<(), String> {
    let ch = match (a, dialect) {
        // `%c` prints the byte `(unsigned char)v`.
        (Arg::Int(v), Dialect::C | Dialect::AscendC) => char::from(v as u8),
        (Arg::UInt(v), Dialect::C | Dialect::AscendC) => char::from(v as u8),
        (Arg::Int(v), Dialect::Python) => u32::try_from(v)
            .ok()
            .and_then(char::from_u32)
            .ok_or_else(|| {
                format!("`%c` takes a code point in [0, 0x10ffff], the argument is {v}")
            })?,
        (Arg::UInt(v), Dialect::Python) => u32::try_from(v)
            .ok()
            .and_then(char::from_u32)
            .ok_or_else(|| {
                format!("`%c` takes a code point in [0, 0x10ffff], the argument is {v}")
            })?,
        _ => {
            return Err(format!(
                "`%c` takes an integer, the argument is {}",
                a.describe()
            ));
        }
    };
    pad(out, s, "", &ch.to_string(), false);
    Ok(())
}

fn int_conv(out: &mut String, s: &Spec, dialect: Dialect, negative: bool, mag: u128) {
    let py = dialect == Dialect::Python;
    let mut digits = match s.conv {
        b'o' => format!("{mag:o}"),
        b'x' => format!("{mag:x}"),
        b'X' => format!("{mag:X}"),
        _ => mag.to_string(),
    };
    match s.prec {
        Some(0) if mag == 0 && !py => digits.clear(),
        Some(p) if digits.len() < p => {
            digits = "0".repeat(p - digits.len()) + &digits;
        }
        _ => {}
    }
    // C prints no sign for unsigned conversions; Python's are signed.
    let signed = py || matches!(s.conv, b'd' | b'i');
    let mut head = String::from(if signed { sign_of(s, negative) } else { "" });
    if s.alt {
        match (s.conv, py) {
            (b'o', true) => head.push_str("0o"),
            (b'x', true) => head.push_str("0x"),
            (b'X', true) => head.push_str("0X"),
            (b'o', false) if !digits.starts_with('0') => digits.insert(0, '0'),
            (b'x', false) if mag != 0 => head.push_str("0x"),
            (b'X', false) if mag != 0 => head.push_str("0X"),
            _ => {}
        }
    }
    let zero = s.zero && !s.minus && (py || s.prec.is_none());
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

/// Python's `str()` of a float (its shortest round-trip `repr`).
fn py_float_str(v: f64) -> String {
    if v.is_nan() {
        return "nan".into();
    }
    if v.is_infinite() {
        return if v < 0.0 { "-inf".into() } else { "inf".into() };
    }
    let t = format!("{:e}", v.abs());
    let (m, e) = t.split_once('e').unwrap_or((&t, "0"));
    let exp: i32 = e.parse().unwrap_or(0);
    let digits = m.replace('.', "");
    let sign = if v.is_sign_negative() { "-" } else { "" };
    if (-4..16).contains(&exp) {
        let mut s = String::new();
        if exp < 0 {
            s.push_str("0.");
            s.extend(std::iter::repeat_n('0', (-exp - 1) as usize));
            s.push_str(&digits);
        } else {
            let int_len = exp as usize + 1;
            if digits.len() <= int_len {
                s.push_str(&digits);
                s.extend(std::iter::repeat_n('0', int_len - digits.len()));
                s.push_str(".0");
            } else {
                s.push_str(&digits[..int_len]);
                s.push('.');
                s.push_str(&digits[int_len..]);
            }
        }
        format!("{sign}{s}")
    } else {
        let mut s = String::from(sign);
        with_exp(&mut s, &digits, exp, false, false);
        s
    }
}

fn float_conv(out: &mut String, s: &Spec, dialect: Dialect, v: f64) {
    let py = dialect == Dialect::Python;
    let upper = matches!(s.conv, b'F' | b'E' | b'G');
    // Python prints a NaN without its sign bit.
    let head = sign_of(s, v.is_sign_negative() && !(py && v.is_nan()));
    if !v.is_finite() {
        let body = match (v.is_nan(), upper) {
            (true, false) => "nan",
            (true, true) => "NAN",
            (false, false) => "inf",
            (false, true) => "INF",
        };
        pad(out, s, head, body, py && s.zero && !s.minus);
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

    #[test]
    fn python_dialect_follows_the_percent_operator() {
        // Expected texts: CPython 3.11's `fmt % value`.
        let f = |fmt: &str, a: Arg<'_>| format_in(Dialect::Python, fmt, &[a]).unwrap();
        assert_eq!(f("%#x", Arg::Int(-255)), "-0xff");
        assert_eq!(f("%08x", Arg::Int(-255)), "-00000ff");
        assert_eq!(f("%#o", Arg::Int(0)), "0o0");
        assert_eq!(f("%05.3d", Arg::Int(5)), "00005");
        assert_eq!(f("%.0d", Arg::Int(0)), "0");
        assert_eq!(f("%d", Arg::Float(-2.7)), "-2");
        assert_eq!(f("%05f", Arg::Float(f64::INFINITY)), "00inf");
        assert_eq!(f("%f", Arg::Float(-f64::NAN)), "nan");
        assert_eq!(f("%s", Arg::Float(1e16)), "1e+16");
        assert_eq!(f("%s", Arg::Float(1e-5)), "1e-05");
        assert_eq!(f("%s", Arg::Float(100.0)), "100.0");
        assert_eq!(f("%s", Arg::Float(0.0001)), "0.0001");
        assert_eq!(f("%f", Arg::Int(3)), "3.000000");
        assert!(format_in(Dialect::Python, "%x", &[Arg::Float(1.5)]).is_err());
        assert!(format_in(Dialect::Python, "%5%", &[]).is_err());
        assert!(format_in(Dialect::Python, "%p", &[Arg::Ptr(1)]).is_err());
    }

    #[test]
    fn ascendc_dialect_types_and_64_bit_hex() {
        let f = |fmt: &str, a: Arg<'_>| format_in(Dialect::AscendC, fmt, &[a]).unwrap();
        // asc-devkit printf.md: `printf("fmt string %d\n", 0x123)` prints `fmt string 291`.
        assert_eq!(f("fmt string %d\n", Arg::Int(0x123)), "fmt string 291\n");
        assert_eq!(f("%x", Arg::Int(-1)), "ffffffffffffffff");
        assert_eq!(f("%d", Arg::Int(1 << 40)), "1099511627776");
        assert_eq!(
            f("TEST %p", Arg::Ptr(0x12c0_8001_a000)),
            "TEST 0x12c08001a000"
        );
        assert_eq!(f("%s!", Arg::Str("hi")), "hi!");
        assert_eq!(f("%f", Arg::Float(3.140000104904175)), "3.140000");
        assert!(format_in(Dialect::AscendC, "%e", &[Arg::Float(1.0)]).is_err());
        assert!(format_in(Dialect::AscendC, "%d", &[Arg::Float(1.0)]).is_err());
        assert!(format_in(Dialect::AscendC, "%f", &[Arg::Int(1)]).is_err());
        assert!(format_in(Dialect::AscendC, "%d", &[Arg::Int(1), Arg::Int(2)]).is_err());
    }
}
