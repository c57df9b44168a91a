//! Diagnostics for the PTO-AS front end, rendered in the style of rustc.
//!
//! Every error the lexer, parser or verifier reports is a [`Diagnostic`]: a message, the byte
//! [`Span`] of the offending source text, a short label printed under that span and an optional
//! `help` line. [`Diagnostic::render`] turns it into text such as
//!
//! ```text
//! error: unknown op `pto.tadf`
//!  --> kernel.pto:12:5
//!    |
//! 12 |     pto.tadf ins(%a, %b : ...)
//!    |     ^^^^^^^^ not a known op
//!    |
//!    = help: did you mean `pto.tadd`?
//! ```
//!
//! The layout follows rustc's human-readable emitter (error line, ` --> file:line:col` with
//! 1-based line and character column, a gutter with the source line and carets under the span).
//! The error classes are those listed in issue #4 ("PTO-AS: parse and run real PTOAS kernels").

use std::fmt::Write as _;

/// A half-open byte range `start..end` into the source text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    /// First byte of the span.
    pub start: usize,
    /// One past the last byte of the span.
    pub end: usize,
}

impl Span {
    /// Creates the span `start..end`.
    pub const fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }

    /// The smallest span covering both `self` and `other`.
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    /// Length in bytes.
    pub fn len(self) -> usize {
        self.end.saturating_sub(self.start)
    }

    /// Whether the span covers no bytes.
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }
}

/// Which class of problem a diagnostic reports; lets callers and tests match on the kind
/// instead of on the message text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DiagKind {
    /// A token the lexer does not accept (stray character, unterminated string).
    Lex,
    /// The token stream does not fit the grammar ("expected X, found Y").
    Syntax,
    /// An op name that no table entry knows.
    UnknownOp,
    /// A value or annotation has a type other than the one required.
    TypeMismatch,
    /// A `%name` used before (or without) being defined, or an unknown `@function`.
    UndefinedValue,
    /// A `%name` defined twice.
    Redefinition,
    /// A tile buffer larger than its on-chip memory, or placed past its end, or misaligned.
    TileDoesNotFit,
    /// A `pto.partition_view` whose static offsets and sizes leave its tensor view.
    PartitionOutOfBounds,
    /// An op whose operand count or operand kinds match none of its forms.
    BadOperands,
    /// A malformed or unknown attribute or enum mnemonic.
    BadAttribute,
    /// A malformed type (unknown dtype, missing tile_buf key, bad shape).
    BadType,
    /// A wait without a matching record/set (or the reverse).
    UnpairedSync,
    /// Structure rules: missing terminator, wrong result count, misplaced op.
    Structure,
    /// A rule of PTOAS's op verifiers that the grammar does not express (entry functions
    /// return nothing, A5-only ops, pipe and async-transfer operand rules); the message starts
    /// with the rule's name in brackets.
    Rule,
}

/// One error found in a PTO-AS source file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Diagnostic {
    /// Class of the problem.
    pub kind: DiagKind,
    /// The main message, printed after `error: `.
    pub message: String,
    /// The offending source text.
    pub span: Span,
    /// Short text printed after the carets (may be empty).
    pub label: String,
    /// Optional `= help: ...` line.
    pub help: Option<String>,
}

impl Diagnostic {
    /// A diagnostic with an empty label and no help.
    pub fn new(kind: DiagKind, message: impl Into<String>, span: Span) -> Self {
        Diagnostic {
            kind,
            message: message.into(),
            span,
            label: String::new(),
            help: None,
        }
    }

    /// Sets the label printed under the span.
    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = label.into();
        self
    }

    /// Sets the help line.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// 1-based line and 1-based character column of the span start in `src`.
    pub fn line_col(&self, src: &str) -> (usize, usize) {
        line_col(src, self.span.start)
    }

    /// Renders the diagnostic as rustc-style text (no colours), ending with a newline.
    ///
    /// What comes from the source is made safe for a terminal: control characters (other than
    /// tab) are shown escaped (`\u{1b}`), a source line longer than [`MAX_SHOWN_CHARS`] is elided
    /// around the span with `...`, and so are over-long messages, labels and help texts.
    pub fn render(&self, file_name: &str, src: &str) -> String {
        let start = floor_char_boundary(src, self.span.start.min(src.len()));
        let (line_no, col) = line_col(src, start);
        let line_start = src[..start].rfind('\n').map_or(0, |i| i + 1);
        let line_end = src[start..].find('\n').map_or(src.len(), |i| start + i);
        let end = floor_char_boundary(src, self.span.end.clamp(start, line_end));
        let line: Vec<char> = src[line_start..line_end]
            .trim_end_matches('\r')
            .chars()
            .collect();
        let s = src[line_start..start].chars().count().min(line.len());
        let e = (s + src[start..end].chars().count()).min(line.len());
        // The window of the line that is shown: all of it, or MAX_SHOWN_CHARS around the span.
        let (lo, hi) = if line.len() <= MAX_SHOWN_CHARS {
            (0, line.len())
        } else {
            let lo = s.saturating_sub(MAX_SHOWN_CHARS / 3);
            (lo, (lo + MAX_SHOWN_CHARS).min(line.len()))
        };
        let (s, e) = (s.min(hi), e.min(hi));
        let mut line_text = String::new();
        let mut pad = String::new();
        if lo > 0 {
            line_text.push_str("...");
            pad.push_str("   ");
        }
        for &c in &line[lo..s] {
            let shown = escape_char(c);
            pad.extend(shown.chars().map(|c| if c == '\t' { '\t' } else { ' ' }));
            line_text.push_str(&shown);
        }
        for &c in &line[s..hi] {
            line_text.push_str(&escape_char(c));
        }
        let caret_count: usize = line[s..e]
            .iter()
            .map(|&c| escape_char(c).chars().count())
            .sum();
        if hi < line.len() {
            line_text.push_str("...");
        }
        let caret_count = caret_count.max(1);
        let gutter = line_no.to_string().len();
        let blank = " ".repeat(gutter);

        let mut out = String::new();
        let _ = writeln!(out, "error: {}", safe_text(&self.message));
        let _ = writeln!(out, "{blank}--> {file_name}:{line_no}:{col}");
        let _ = writeln!(out, "{blank} |");
        let _ = writeln!(out, "{line_no} | {line_text}");
        let carets = "^".repeat(caret_count);
        if self.label.is_empty() {
            let _ = writeln!(out, "{blank} | {pad}{carets}");
        } else {
            let _ = writeln!(out, "{blank} | {pad}{carets} {}", safe_text(&self.label));
        }
        if let Some(help) = &self.help {
            let _ = writeln!(out, "{blank} |");
            let _ = writeln!(out, "{blank} = help: {}", safe_text(help));
        }
        out
    }
}

/// The most characters of a source line, or of a message, that a rendered diagnostic shows.
pub const MAX_SHOWN_CHARS: usize = 160;

/// A character as a terminal may safely show it: control characters other than tab escaped.
fn escape_char(c: char) -> String {
    if c.is_control() && c != '\t' {
        format!("\\u{{{:x}}}", c as u32)
    } else {
        c.to_string()
    }
}

/// A message, label or help text with control characters escaped (newlines kept) and the middle
/// elided when it is longer than [`MAX_SHOWN_CHARS`] characters (a 12 MB token stays short).
pub fn safe_text(text: &str) -> String {
    let n = text.chars().count();
    let shown: String = if n <= MAX_SHOWN_CHARS {
        text.to_string()
    } else {
        let head: String = text.chars().take(MAX_SHOWN_CHARS / 2).collect();
        let tail: String = text.chars().skip(n - MAX_SHOWN_CHARS / 2).collect();
        format!("{head}...{tail}")
    };
    shown
        .chars()
        .map(|c| {
            if c == '\n' {
                "\n".to_string()
            } else {
                escape_char(c)
            }
        })
        .collect()
}

/// Renders several diagnostics separated by blank lines, as rustc does.
pub fn render_all(diags: &[Diagnostic], file_name: &str, src: &str) -> String {
    diags
        .iter()
        .map(|d| d.render(file_name, src))
        .collect::<Vec<_>>()
        .join("\n")
}

fn floor_char_boundary(src: &str, mut i: usize) -> usize {
    while i > 0 && !src.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// 1-based line and character column of byte offset `pos` in `src`.
pub fn line_col(src: &str, pos: usize) -> (usize, usize) {
    let pos = floor_char_boundary(src, pos.min(src.len()));
    let before = &src[..pos];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let col = src[line_start..pos].chars().count() + 1;
    (line, col)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_rustc_layout() {
        let src = "module {\n  pto.tadf ins()\n}\n";
        let d = Diagnostic::new(
            DiagKind::UnknownOp,
            "unknown op `pto.tadf`",
            Span::new(11, 19),
        )
        .with_label("not a known op")
        .with_help("did you mean `pto.tadd`?");
        let text = d.render("k.pto", src);
        assert_eq!(
            text,
            "error: unknown op `pto.tadf`\n --> k.pto:2:3\n  |\n2 |   pto.tadf ins()\n  |   ^^^^^^^^ not a known op\n  |\n  = help: did you mean `pto.tadd`?\n"
        );
    }

    #[test]
    fn control_characters_are_escaped_and_long_lines_elided() {
        // ESC and NUL in the source and in the message are shown escaped, never raw.
        let src = "module {\n  pto.t\u{1b}[2Jx\0 ins()\n}\n";
        let d = Diagnostic::new(
            DiagKind::UnknownOp,
            "unknown op `pto.t\u{1b}[2Jx\0`",
            Span::new(11, 22),
        )
        .with_label("not a known op");
        let text = d.render("k.pto", src);
        assert!(!text.contains('\u{1b}') && !text.contains('\0'), "{text:?}");
        assert!(text.contains("pto.t\\u{1b}[2Jx\\u{0}"), "{text}");
        // The carets cover the escaped span exactly.
        let line = text.lines().nth(3).unwrap();
        let carets = text.lines().nth(4).unwrap();
        let col = line.find("pto.t").unwrap();
        assert_eq!(carets.find('^'), Some(col), "{text}");
        assert_eq!(
            carets.matches('^').count(),
            "pto.t\\u{1b}[2Jx\\u{0}".len(),
            "{text}"
        );

        // A 1 MB line is shown as a window around the span, and the message is elided too.
        let long = "a".repeat(1 << 20);
        let src = format!("{long} pto.bad {long}\n");
        let at = long.len() + 1;
        let d = Diagnostic::new(DiagKind::Syntax, long.clone(), Span::new(at, at + 7));
        let text = d.render("k.pto", &src);
        assert!(text.len() < 4 * MAX_SHOWN_CHARS, "{} bytes", text.len());
        let line = text.lines().nth(3).unwrap();
        let carets = text.lines().nth(4).unwrap();
        assert!(line.contains("...") && line.ends_with("..."), "{line}");
        assert_eq!(carets.find('^'), line.find("pto.bad"), "{text}");
        assert_eq!(carets.matches('^').count(), 7);
    }

    #[test]
    fn span_at_eof_and_multibyte_do_not_panic() {
        let src = "é\n";
        let d = Diagnostic::new(DiagKind::Syntax, "x", Span::new(1, 99));
        let t = d.render("f", src);
        assert!(t.contains("f:1:1"), "{t}");
        let d = Diagnostic::new(DiagKind::Syntax, "x", Span::new(3, 3));
        assert!(d.render("f", src).contains("f:2:1"));
    }
}
