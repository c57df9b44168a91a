//! Lexer for PTO-AS, the PTOAS MLIR dialect text.
//!
//! Implements the token rules of the MLIR language reference (LangRef, "Lexical structure") as
//! far as PTOAS output uses them: `%value-id`, `^block-id`, `@symbol`, `!dialect.type`,
//! `#dialect.attr`, bare identifiers (which may contain `.` and `$`, e.g. `pto.tile_buf`,
//! `arith.constant`), decimal and hexadecimal integers, floats (`1.5`, `2.0e-06`), string
//! literals, `->` and single-character punctuation. `//` comments run to end of line, so the
//! `// RUN:` and `// CHECK:` lines of lit tests vanish here.
//!
//! Tokens carry only a kind and a byte [`Span`]; their text is `&src[span]`. Dimension lists
//! such as `16x128xf32` are not split here (the lexer yields `16` and `x128xf32`); the parser
//! rescans them from the source bytes, as MLIR's own parser does.

use crate::diag::Span;

/// Kind of a token.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tok {
    /// Bare identifier: `module`, `func.func`, `pto.tadd`, `f32`, `x128xf32`, `true`.
    Ident,
    /// `%name` or `%0`.
    ValueId,
    /// `^bb0`.
    CaretId,
    /// `@name` or `@"name"`.
    AtId,
    /// `!pto.tile_buf` and other dialect types (the `<...>` body is separate tokens).
    BangId,
    /// `#pto`, `#pto.layout`, or the result number `#1` of `%x#1`.
    HashId,
    /// Decimal or `0x` hexadecimal integer (without sign).
    Int,
    /// Floating-point literal (without sign).
    Float,
    /// Double-quoted string literal.
    Str,
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// `{`
    LBrace,
    /// `}`
    RBrace,
    /// `[`
    LBracket,
    /// `]`
    RBracket,
    /// `<`
    Less,
    /// `>`
    Greater,
    /// `,`
    Comma,
    /// `:`
    Colon,
    /// `=`
    Equal,
    /// `?`
    Question,
    /// `*`
    Star,
    /// `+`
    Plus,
    /// `-`
    Minus,
    /// `->`
    Arrow,
    /// End of input.
    Eof,
    /// A character the lexer does not accept.
    BadChar,
    /// A string literal without its closing quote.
    UnterminatedStr,
}

impl Tok {
    /// How the token kind is named in "expected X, found Y" messages.
    pub fn describe(self) -> &'static str {
        match self {
            Tok::Ident => "identifier",
            Tok::ValueId => "`%value`",
            Tok::CaretId => "block label",
            Tok::AtId => "`@symbol`",
            Tok::BangId => "`!type`",
            Tok::HashId => "`#attribute`",
            Tok::Int => "integer",
            Tok::Float => "float",
            Tok::Str => "string",
            Tok::LParen => "`(`",
            Tok::RParen => "`)`",
            Tok::LBrace => "`{`",
            Tok::RBrace => "`}`",
            Tok::LBracket => "`[`",
            Tok::RBracket => "`]`",
            Tok::Less => "`<`",
            Tok::Greater => "`>`",
            Tok::Comma => "`,`",
            Tok::Colon => "`:`",
            Tok::Equal => "`=`",
            Tok::Question => "`?`",
            Tok::Star => "`*`",
            Tok::Plus => "`+`",
            Tok::Minus => "`-`",
            Tok::Arrow => "`->`",
            Tok::Eof => "end of file",
            Tok::BadChar => "unexpected character",
            Tok::UnterminatedStr => "unterminated string",
        }
    }
}

/// One token: its kind and where it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    /// Kind.
    pub kind: Tok,
    /// Source bytes of the token.
    pub span: Span,
}

/// An on-demand lexer over a source string. The parser may move it with [`Lexer::reset`].
#[derive(Clone, Debug)]
pub struct Lexer<'a> {
    src: &'a str,
    pos: usize,
}

fn is_bare_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn is_bare_cont(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.')
}

fn is_suffix_cont(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.' | b'-')
}

impl<'a> Lexer<'a> {
    /// A lexer positioned at the start of `src`.
    pub fn new(src: &'a str) -> Self {
        Lexer { src, pos: 0 }
    }

    /// Byte offset of the next unread character.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Moves the lexer to byte offset `pos` (clamped to the input).
    pub fn reset(&mut self, pos: usize) {
        self.pos = pos.min(self.src.len());
    }

    fn peek_byte(&self, ahead: usize) -> Option<u8> {
        self.src.as_bytes().get(self.pos + ahead).copied()
    }

    fn skip_trivia(&mut self) {
        let b = self.src.as_bytes();
        while self.pos < b.len() {
            let c = b[self.pos];
            if c.is_ascii_whitespace() {
                self.pos += 1;
            } else if c == b'/' && b.get(self.pos + 1) == Some(&b'/') {
                while self.pos < b.len() && b[self.pos] != b'\n' {
                    self.pos += 1;
                }
            } else {
                break;
            }
        }
    }

    fn eat_while(&mut self, f: impl Fn(u8) -> bool) {
        let b = self.src.as_bytes();
        while self.pos < b.len() && f(b[self.pos]) {
            self.pos += 1;
        }
    }

    /// Lexes and returns the next token; returns [`Tok::Eof`] forever at the end.
    pub fn next_token(&mut self) -> Token {
        self.skip_trivia();
        let start = self.pos;
        let b = self.src.as_bytes();
        let Some(&c) = b.get(start) else {
            return Token {
                kind: Tok::Eof,
                span: Span::new(start, start),
            };
        };
        self.pos += 1;
        let kind = match c {
            b'(' => Tok::LParen,
            b')' => Tok::RParen,
            b'{' => Tok::LBrace,
            b'}' => Tok::RBrace,
            b'[' => Tok::LBracket,
            b']' => Tok::RBracket,
            b'<' => Tok::Less,
            b'>' => Tok::Greater,
            b',' => Tok::Comma,
            b':' => Tok::Colon,
            b'=' => Tok::Equal,
            b'?' => Tok::Question,
            b'*' => Tok::Star,
            b'+' => Tok::Plus,
            b'-' => {
                if self.peek_byte(0) == Some(b'>') {
                    self.pos += 1;
                    Tok::Arrow
                } else {
                    Tok::Minus
                }
            }
            b'"' => self.lex_string_body(),
            b'%' | b'^' | b'!' | b'#' => {
                let kind = match c {
                    b'%' => Tok::ValueId,
                    b'^' => Tok::CaretId,
                    b'!' => Tok::BangId,
                    _ => Tok::HashId,
                };
                match self.peek_byte(0) {
                    Some(d) if d.is_ascii_digit() => {
                        self.eat_while(|x| x.is_ascii_digit());
                        kind
                    }
                    Some(d) if is_suffix_cont(d) => {
                        self.eat_while(is_suffix_cont);
                        kind
                    }
                    _ => Tok::BadChar,
                }
            }
            b'@' => match self.peek_byte(0) {
                Some(b'"') => {
                    self.pos += 1;
                    match self.lex_string_body() {
                        Tok::Str => Tok::AtId,
                        other => other,
                    }
                }
                Some(d) if is_bare_start(d) || d == b'$' || d == b'.' => {
                    self.eat_while(|x| is_bare_cont(x) || x == b'-');
                    Tok::AtId
                }
                _ => Tok::BadChar,
            },
            c if c.is_ascii_digit() => self.lex_number(c),
            c if is_bare_start(c) => {
                self.eat_while(is_bare_cont);
                Tok::Ident
            }
            _ => {
                // Consume a whole UTF-8 character so spans stay on char boundaries.
                while self.pos < b.len() && !self.src.is_char_boundary(self.pos) {
                    self.pos += 1;
                }
                Tok::BadChar
            }
        };
        Token {
            kind,
            span: Span::new(start, self.pos),
        }
    }

    fn lex_string_body(&mut self) -> Tok {
        let b = self.src.as_bytes();
        while self.pos < b.len() {
            match b[self.pos] {
                b'"' => {
                    self.pos += 1;
                    return Tok::Str;
                }
                b'\\' => self.pos += 2,
                b'\n' => return Tok::UnterminatedStr,
                _ => self.pos += 1,
            }
        }
        self.pos = self.pos.min(b.len());
        Tok::UnterminatedStr
    }

    fn lex_number(&mut self, first: u8) -> Tok {
        if first == b'0'
            && self.peek_byte(0) == Some(b'x')
            && self.peek_byte(1).is_some_and(|d| d.is_ascii_hexdigit())
        {
            self.pos += 1;
            self.eat_while(|x| x.is_ascii_hexdigit());
            return Tok::Int;
        }
        self.eat_while(|x| x.is_ascii_digit());
        if self.peek_byte(0) != Some(b'.') {
            return Tok::Int;
        }
        self.pos += 1;
        self.eat_while(|x| x.is_ascii_digit());
        if matches!(self.peek_byte(0), Some(b'e' | b'E')) {
            let exp_digits_at = match self.peek_byte(1) {
                Some(b'+' | b'-') => 2,
                _ => 1,
            };
            if self
                .peek_byte(exp_digits_at)
                .is_some_and(|d| d.is_ascii_digit())
            {
                self.pos += exp_digits_at;
                self.eat_while(|x| x.is_ascii_digit());
            }
        }
        Tok::Float
    }
}

/// Lexes all of `src` into tokens (without the final [`Tok::Eof`]).
pub fn tokenize(src: &str) -> Vec<Token> {
    let mut lx = Lexer::new(src);
    let mut out = Vec::new();
    loop {
        let t = lx.next_token();
        if t.kind == Tok::Eof {
            return out;
        }
        out.push(t);
    }
}

/// Decodes the body of a string literal token text (with its quotes) into its value.
/// Handles `\\`, `\"`, `\n`, `\t` and two-digit hex escapes such as `\0A`.
pub fn unescape_string(text: &str) -> String {
    let inner = text.strip_prefix('"').unwrap_or(text);
    let inner = inner.strip_suffix('"').unwrap_or(inner);
    let mut out = String::new();
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some(h) if h.is_ascii_hexdigit() => {
                let lo = chars.next_if(|x| x.is_ascii_hexdigit());
                let mut v = h.to_digit(16).unwrap_or(0);
                if let Some(lo) = lo {
                    v = v * 16 + lo.to_digit(16).unwrap_or(0);
                }
                out.push(char::from_u32(v).unwrap_or('\u{fffd}'));
            }
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<(Tok, &str)> {
        tokenize(src)
            .into_iter()
            .map(|t| (t.kind, &src[t.span.start..t.span.end]))
            .collect()
    }

    #[test]
    fn mlir_tokens() {
        let k = kinds(
            "%final:2 = scf.while (%i = %c0) -> !pto.tile_buf<vec, 16x128xf32> #pto<cmp lt> %y#1 ^bb0 @k // c\n0x1F 2.5e-06 1. \"a\\\"b\"",
        );
        let expect = vec![
            (Tok::ValueId, "%final"),
            (Tok::Colon, ":"),
            (Tok::Int, "2"),
            (Tok::Equal, "="),
            (Tok::Ident, "scf.while"),
            (Tok::LParen, "("),
            (Tok::ValueId, "%i"),
            (Tok::Equal, "="),
            (Tok::ValueId, "%c0"),
            (Tok::RParen, ")"),
            (Tok::Arrow, "->"),
            (Tok::BangId, "!pto.tile_buf"),
            (Tok::Less, "<"),
            (Tok::Ident, "vec"),
            (Tok::Comma, ","),
            (Tok::Int, "16"),
            (Tok::Ident, "x128xf32"),
            (Tok::Greater, ">"),
            (Tok::HashId, "#pto"),
            (Tok::Less, "<"),
            (Tok::Ident, "cmp"),
            (Tok::Ident, "lt"),
            (Tok::Greater, ">"),
            (Tok::ValueId, "%y"),
            (Tok::HashId, "#1"),
            (Tok::CaretId, "^bb0"),
            (Tok::AtId, "@k"),
            (Tok::Int, "0x1F"),
            (Tok::Float, "2.5e-06"),
            (Tok::Float, "1."),
            (Tok::Str, "\"a\\\"b\""),
        ];
        assert_eq!(k, expect);
    }

    #[test]
    fn bad_input_yields_error_tokens() {
        let k = kinds("é \"open\n %");
        assert_eq!(k[0].0, Tok::BadChar);
        assert_eq!(k[1].0, Tok::UnterminatedStr);
        assert_eq!(k[2].0, Tok::BadChar);
    }

    #[test]
    fn unescape() {
        assert_eq!(unescape_string("\"a\\\"b\\n\\41\""), "a\"b\nA");
    }
}
