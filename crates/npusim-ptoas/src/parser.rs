//! Recursive-descent parser and verifier for PTO-AS (the PTOAS MLIR dialect text).
//!
//! Implements the textual syntax of hw-native-sys/PTOAS `docs/PTO_IR_manual.md`: `module` with
//! `pto.target_arch`, `func.func`, the types of §2 (both `!pto.tile_buf` spellings, accepted as
//! PTOAS's `TileBufType::parse` accepts them), the view and allocation ops of §4.1, every DPS
//! tile op of §4.3–§4.12 (`pto.op ins(...) outs(...)`), the runtime intrinsics of §4.19, the
//! sections of §4.17 and the sync ops of §4.16; and the `func`/`arith`/`scf` subset the manual
//! lists (`arith.constant`, integer/float arithmetic, casts, `cmpi`/`cmpf`/`select`, `scf.for`
//! with `iter_args`, `scf.if` with results, `scf.while`/`scf.condition`, `func.call`).
//!
//! PTOAS prints more than the ops this crate executes (issue 10). Those forms are accepted too:
//! `memref<...xT, #pto.address_space<S>>` (an on-chip `S` is a tile buffer, leading dimensions
//! folded into rows; `gm` a [`Type::GmMemRef`]), the memref-style `!pto.tile_buf<32x32xf32,
//! strided<...>, #pto.address_space<vec>>`, `<f32>` pointers, `vector<...>` and any other
//! `!pto.*` type (carried as [`Type::Opaque`]), the f8 element types, `dense<...>` constants,
//! `@symbol` attribute values, dynamic event ids. Every other op of the PTOAS dialect (the
//! [`OpClass::Opaque`] rows of [`crate::ops`]: pipes, reserved buffers, TPUSH/TPOP/TFREE,
//! `pto.tassign`, `pto.treshape`, `pto.subset`, `pto.addptr`, `memref.alloc`, the SSA forms of
//! tile ops, tile ops `npusim-pto` lacks) is parsed generically into [`OpKind::Opaque`]: its
//! `%value` operands are resolved (undefined ones are errors), its attribute dictionaries kept,
//! its result types read from `-> T`, `: A to B` or the first types after `:` (a result whose
//! type the text does not give takes the type of its first annotated use). PTOAS verifier rules
//! the grammar cannot express are [`DiagKind::Rule`] errors whose message starts with the
//! rule's name in brackets (`[entry-returns-void]`, `[a5-only]`, `[cvt-shape]`,
//! `[cvt-valid-shape]`, `[scale-addr-dst-scaling]`, `[async-flat-1d]`, `[tpop-dynamic-valid]`,
//! `[tgather-compare-src-type]`, `[l2l-local-addr-reserved]`, `[l2l-peer-pair]`, and the
//! `pto.tinsert` / `pto.textract` rules `[tinsert-a2a3-loc]`, `[tinsert-a2a3-dtype]`,
//! `[tinsert-a5-loc]`, `[tinsert-a5-dtype]`, `[tinsert-nz-layout]`, `[tinsert-vec-layout]`,
//! `[tinsert-fractal]`, `[textract-a5-loc]`, `[textract-vec-layout]`; `[bitcast-dtype]`; the
//! `--pto-level` rules of [`PtoLevel`], `[level3-alloc-addr]`, `[alloc-addr-level3]`,
//! `[tassign-level3]`).
//!
//! The MLIR generic op form of the tile ops (`"pto.tmov"(%src, %dst, %pre)
//! <{operandSegmentSizes = array<i32: 1, 1, 0, 1>, ...}> {...} : (A, B, i64) -> ()`, as PTOAS's
//! `test/basic/tmov_forms_emitc.pto` writes it) is accepted for the ops whose ODS operand
//! segments [`crate::ops::generic_segments`] lists: each segment goes where the op's custom
//! form puts it (`ins` or `outs`) and the op is then verified as that form is. Otherwise it is a
//! `[generic-form]` error naming the op; segment sizes that do not fit the op are
//! `[generic-segments]` errors.
//!
//! Parsing and verification happen in one pass: names are resolved to [`ValueId`]s as they are
//! used (SSA values must be defined before use; sibling regions may reuse names), every operand
//! is checked against the type its op annotates, DPS operand kinds are matched against the
//! forms in [`crate::ops`], tiles are checked to fit their memory and static partitions to stay
//! inside their tensor view. Syntax errors stop the parse; semantic errors are collected.

use std::collections::HashMap;

use crate::ast::*;
use crate::diag::{DiagKind, Diagnostic, Span};
use crate::lexer::{Lexer, Tok, Token, unescape_string};
use crate::ops::{OpClass, OpCode, edit_distance, suggest};

type PResult<T> = Result<T, Diagnostic>;

/// Options for [`parse_module_with`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ParseOptions {
    /// Target used for memory-capacity checks; overrides the module's `pto.target_arch`.
    /// With neither, `a2a3` is assumed.
    pub target: Option<TargetArch>,
    /// ptoas's build level (`ptoas --pto-level`), whose rules are checked when given (see
    /// [`PtoLevel`]). `None` (the default) checks no level rule: a module is accepted if
    /// some level accepts it.
    pub pto_level: Option<PtoLevel>,
}

/// ptoas's build level, `--pto-level=level1|level2|level3` (hw-native-sys/PTOAS
/// `tools/ptoas/ptoas.cpp`; ptoas's own default is `level2`). Level 3 skips ptoas's memory
/// planning: every `pto.alloc_tile` must give its `addr` (`[level3-alloc-addr]`). Levels 1 and
/// 2 plan memory: an `alloc_tile` with `addr` is an error (`[alloc-addr-level3]`), and so is
/// `pto.tassign` (`[tassign-level3]`). Levels 1 and 2 differ in no rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PtoLevel {
    /// `level1`.
    Level1,
    /// `level2` (ptoas's default).
    Level2,
    /// `level3`: addresses are the kernel's (no memory planning).
    Level3,
}

impl PtoLevel {
    /// The spellings ptoas accepts.
    pub const NAMES: &'static [&'static str] = &["level1", "level2", "level3"];

    /// Parses ptoas's spelling (case-insensitive, as ptoas's `parseBuildLevel`).
    pub fn from_name(s: &str) -> Option<PtoLevel> {
        match s.to_ascii_lowercase().as_str() {
            "level1" => Some(PtoLevel::Level1),
            "level2" => Some(PtoLevel::Level2),
            "level3" => Some(PtoLevel::Level3),
            _ => None,
        }
    }

    /// The spelling (`level1`, ...).
    pub fn name(self) -> &'static str {
        match self {
            PtoLevel::Level1 => "level1",
            PtoLevel::Level2 => "level2",
            PtoLevel::Level3 => "level3",
        }
    }
}

/// Parses and verifies a PTO-AS module.
///
/// `file_name` is not used for parsing; it is there so that callers have one call shape for
/// parsing and rendering (see [`Diagnostic::render`]).
pub fn parse_module(src: &str, file_name: &str) -> Result<Module, Vec<Diagnostic>> {
    let _ = file_name;
    parse_module_with(src, ParseOptions::default())
}

/// Parses and verifies a PTO-AS module with options.
pub fn parse_module_with(src: &str, opts: ParseOptions) -> Result<Module, Vec<Diagnostic>> {
    let mut p = Parser::new(src, opts);
    let res = p.parse_top();
    let mut diags = std::mem::take(&mut p.diags);
    match res {
        Ok(module) if diags.is_empty() => Ok(module),
        Ok(_) => {
            diags.sort_by_key(|d| d.span.start);
            Err(diags)
        }
        Err(fatal) => {
            diags.push(fatal);
            diags.sort_by_key(|d| d.span.start);
            Err(diags)
        }
    }
}

/// Parses a single type, e.g. `!pto.tile_buf<vec, 16x128xf32, valid=16x1>` or `index`.
pub fn parse_type(src: &str) -> Result<Type, Diagnostic> {
    let mut p = Parser::new(src, ParseOptions::default());
    let ty = p.parse_type()?;
    if !p.at(Tok::Eof) {
        return Err(p.expected("end of type"));
    }
    if let Some(d) = p.diags.into_iter().next() {
        return Err(d);
    }
    Ok(ty)
}

const MAX_DEPTH: usize = 64;

struct ResultName {
    name: String,
    span: Span,
    count: usize,
}

#[derive(Default)]
struct FnCtx {
    values: Vec<ValueInfo>,
    /// The generically parsed op that defined a value (for operand-origin rules).
    defined_by: HashMap<ValueId, OpCode>,
    scopes: Vec<HashMap<String, Vec<ValueId>>>,
    syncs: Vec<(OpCode, Vec<String>, Span)>,
    view_dims: HashMap<ValueId, Vec<Option<i64>>>,
    results: Vec<Type>,
}

struct CallCheck {
    caller: usize,
    callee: FuncId,
    span: Span,
    args: Vec<(Type, Span)>,
    results: Vec<Type>,
}

struct Parser<'a> {
    src: &'a str,
    lex: Lexer<'a>,
    tok: Token,
    prev_end: usize,
    diags: Vec<Diagnostic>,
    opts: ParseOptions,
    arch: TargetArch,
    f: FnCtx,
    func_names: HashMap<String, FuncId>,
    calls: Vec<CallCheck>,
    depth: usize,
    /// MLIR type aliases (`!name = type`) declared at the top of the file.
    aliases: HashMap<String, Type>,
}

fn kind_letter(t: &Type) -> char {
    match t {
        Type::TileBuf(_) => 'T',
        Type::Scalar(_) => 'S',
        Type::PartitionView(_) | Type::GmMemRef(_) => 'P',
        _ => '?',
    }
}

fn form_words(form: &str) -> String {
    let words: Vec<&str> = form
        .chars()
        .map(|c| match c {
            'T' => "tile",
            'S' => "scalar",
            'P' => "partition view",
            _ => "other",
        })
        .collect();
    format!("({})", words.join(", "))
}

impl<'a> Parser<'a> {
    fn new(src: &'a str, opts: ParseOptions) -> Self {
        let mut lex = Lexer::new(src);
        let tok = lex.next_token();
        Parser {
            src,
            lex,
            tok,
            prev_end: 0,
            diags: Vec::new(),
            opts,
            arch: opts.target.unwrap_or(TargetArch::A2A3),
            f: FnCtx::default(),
            func_names: HashMap::new(),
            calls: Vec::new(),
            depth: 0,
            aliases: HashMap::new(),
        }
    }

    // ------------------------------------------------------------------ token helpers

    fn text(&self, t: Token) -> &'a str {
        self.src.get(t.span.start..t.span.end).unwrap_or("")
    }

    fn bump(&mut self) -> Token {
        let t = self.tok;
        self.prev_end = t.span.end;
        self.tok = self.lex.next_token();
        t
    }

    fn at(&self, k: Tok) -> bool {
        self.tok.kind == k
    }

    fn at_kw(&self, kw: &str) -> bool {
        self.tok.kind == Tok::Ident && self.text(self.tok) == kw
    }

    fn eat(&mut self, k: Tok) -> bool {
        if self.at(k) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn eat_kw(&mut self, kw: &str) -> bool {
        if self.at_kw(kw) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn found(&self) -> String {
        match self.tok.kind {
            Tok::Ident
            | Tok::ValueId
            | Tok::CaretId
            | Tok::AtId
            | Tok::BangId
            | Tok::HashId
            | Tok::Int
            | Tok::Float => format!("`{}`", self.text(self.tok)),
            k => k.describe().to_string(),
        }
    }

    fn expected(&self, what: &str) -> Diagnostic {
        match self.tok.kind {
            Tok::BadChar => Diagnostic::new(
                DiagKind::Lex,
                format!("unexpected character `{}`", self.text(self.tok)),
                self.tok.span,
            )
            .with_label(format!("expected {what}")),
            Tok::UnterminatedStr => {
                Diagnostic::new(DiagKind::Lex, "unterminated string literal", self.tok.span)
                    .with_label("string starts here")
            }
            _ => Diagnostic::new(
                DiagKind::Syntax,
                format!("expected {what}, found {}", self.found()),
                self.tok.span,
            )
            .with_label(format!("expected {what}")),
        }
    }

    fn expect(&mut self, k: Tok, what: &str) -> PResult<Token> {
        if self.at(k) {
            Ok(self.bump())
        } else {
            Err(self.expected(what))
        }
    }

    fn expect_kw(&mut self, kw: &str) -> PResult<Token> {
        if self.at_kw(kw) {
            Ok(self.bump())
        } else {
            Err(self.expected(&format!("`{kw}`")))
        }
    }

    fn err(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    fn int_value(&self, t: Token) -> PResult<u64> {
        let s = self.text(t);
        let v = if let Some(hex) = s.strip_prefix("0x") {
            u64::from_str_radix(hex, 16).ok()
        } else {
            s.parse::<u64>().ok()
        };
        v.ok_or_else(|| {
            Diagnostic::new(DiagKind::Syntax, "integer literal out of range", t.span)
                .with_label("does not fit in 64 bits")
        })
    }

    fn expect_uint(&mut self, what: &str) -> PResult<(u64, Span)> {
        let t = self.expect(Tok::Int, what)?;
        Ok((self.int_value(t)?, t.span))
    }

    fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(
                Diagnostic::new(DiagKind::Structure, "nesting too deep", self.tok.span).with_label(
                    format!("more than {MAX_DEPTH} nested regions or attributes"),
                ),
            );
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    // ------------------------------------------------------------------ values and scopes

    fn new_value(&mut self, name: String, ty: Type, span: Span, const_int: Option<i64>) -> ValueId {
        let id = ValueId(self.f.values.len() as u32);
        self.f.values.push(ValueInfo {
            name,
            ty,
            span,
            const_int,
        });
        id
    }

    fn lookup(&self, name: &str) -> Option<&Vec<ValueId>> {
        self.f.scopes.iter().rev().find_map(|s| s.get(name))
    }

    fn define(&mut self, name: &str, ids: Vec<ValueId>, span: Span) {
        if name.is_empty() {
            return;
        }
        if let Some(prev) = self.lookup(name).and_then(|v| v.first()).copied() {
            let prev_span = self.f.values[prev.index()].span;
            let (line, col) = crate::diag::line_col(self.src, prev_span.start);
            self.err(
                Diagnostic::new(
                    DiagKind::Redefinition,
                    format!("redefinition of `%{name}`"),
                    span,
                )
                .with_label("defined again here")
                .with_help(format!("`%{name}` was first defined at {line}:{col}")),
            );
        }
        if let Some(scope) = self.f.scopes.last_mut() {
            scope.insert(name.to_string(), ids);
        }
    }

    /// Parses `%name` or `%name#N` and resolves it.
    fn value_use(&mut self) -> PResult<(ValueId, Span)> {
        let t = self.expect(Tok::ValueId, "a `%value`")?;
        let name = &self.text(t)[1..];
        let mut span = t.span;
        let mut index = 0usize;
        if self.at(Tok::HashId) && self.tok.span.start == t.span.end {
            let h = self.bump();
            let digits = &self.text(h)[1..];
            index = digits.parse().map_err(|_| {
                Diagnostic::new(
                    DiagKind::Syntax,
                    "expected a result number after `#`",
                    h.span,
                )
            })?;
            span = span.to(h.span);
        }
        match self.lookup(name) {
            Some(ids) => ids.get(index).map(|&id| (id, span)).ok_or_else(|| {
                Diagnostic::new(
                    DiagKind::UndefinedValue,
                    format!("`%{name}` has only {} results", ids.len()),
                    span,
                )
                .with_label(format!("there is no result #{index}"))
            }),
            None => {
                let mut d = Diagnostic::new(
                    DiagKind::UndefinedValue,
                    format!("use of undefined value `%{name}`"),
                    span,
                )
                .with_label("not defined before this use");
                let best = self
                    .f
                    .scopes
                    .iter()
                    .flat_map(|s| s.keys())
                    .map(|k| (edit_distance(k, name), k))
                    .filter(|(dist, _)| *dist <= 1 + name.len() / 3)
                    .min_by_key(|(dist, k)| (*dist, k.as_str()));
                if let Some((_, k)) = best {
                    d = d.with_help(format!("a value with a similar name exists: `%{k}`"));
                }
                Err(d)
            }
        }
    }

    fn ty_of(&self, id: ValueId) -> &Type {
        &self.f.values[id.index()].ty
    }

    fn value_name(&self, id: ValueId) -> String {
        let n = &self.f.values[id.index()].name;
        if n.is_empty() {
            "value".to_string()
        } else {
            format!("%{n}")
        }
    }

    fn check_type(&mut self, id: ValueId, span: Span, expected: &Type) {
        let actual = self.ty_of(id).clone();
        if actual == Type::Opaque(String::new()) {
            // A result of a generically parsed op takes the type of its first annotated use.
            self.f.values[id.index()].ty = expected.clone();
            return;
        }
        if &actual != expected {
            let def = self.f.values[id.index()].span;
            let (line, col) = crate::diag::line_col(self.src, def.start);
            let name = self.value_name(id);
            self.err(
                Diagnostic::new(
                    DiagKind::TypeMismatch,
                    format!(
                        "type mismatch: `{name}` has type `{actual}` but is used as `{expected}`"
                    ),
                    span,
                )
                .with_label(format!("this is `{actual}`"))
                .with_help(format!("`{name}` is defined at {line}:{col}")),
            );
        }
    }

    fn const_of(&self, id: ValueId) -> Option<i64> {
        self.f.values[id.index()].const_int
    }

    // ------------------------------------------------------------------ module and funcs

    fn prescan_funcs(&mut self) {
        let mut lx = Lexer::new(self.src);
        let mut prev_was_func = false;
        let mut n = 0u32;
        loop {
            let t = lx.next_token();
            match t.kind {
                Tok::Eof => break,
                Tok::Ident if self.text(t) == "func.func" => prev_was_func = true,
                Tok::Ident if prev_was_func => {}
                Tok::AtId if prev_was_func => {
                    let name = sym_name(self.text(t));
                    self.func_names.entry(name).or_insert(FuncId(n));
                    n += 1;
                    prev_was_func = false;
                }
                _ => prev_was_func = false,
            }
        }
    }

    /// `!name = type` lines before the module: MLIR type aliases.
    fn parse_type_aliases(&mut self) -> PResult<()> {
        while self.at(Tok::BangId) && !self.text(self.tok).starts_with("!pto.") {
            let t = self.bump();
            let name = self.text(t).to_string();
            self.expect(Tok::Equal, "`=` after a type alias name")?;
            let ty = self.parse_type()?;
            if self.aliases.insert(name.clone(), ty).is_some() {
                self.err(
                    Diagnostic::new(
                        DiagKind::Redefinition,
                        format!("type alias `{name}` is defined twice"),
                        t.span,
                    )
                    .with_label("second definition"),
                );
            }
        }
        Ok(())
    }

    fn parse_top(&mut self) -> PResult<Module> {
        self.prescan_funcs();
        let mut module = Module {
            target_arch: None,
            funcs: Vec::new(),
        };
        self.parse_type_aliases()?;
        if self.eat_kw("module") {
            if self.at(Tok::AtId) {
                self.bump();
            }
            if self.eat_kw("attributes") {
                for (key, attr, span) in self.attr_dict()? {
                    if key == "pto.target_arch" {
                        match &attr {
                            Attr::Str(s) => match TargetArch::from_name(s) {
                                Some(a) => module.target_arch = Some(a),
                                None => self.err(
                                    Diagnostic::new(
                                        DiagKind::BadAttribute,
                                        format!("unknown target arch `{s}`"),
                                        span,
                                    )
                                    .with_help("use \"a2a3\" or \"a5\""),
                                ),
                            },
                            _ => self.err(Diagnostic::new(
                                DiagKind::BadAttribute,
                                "`pto.target_arch` must be a string",
                                span,
                            )),
                        }
                    }
                }
            }
            self.arch = self
                .opts
                .target
                .or(module.target_arch)
                .unwrap_or(TargetArch::A2A3);
            self.expect(Tok::LBrace, "`{` to open the module body")?;
            while !self.at(Tok::RBrace) {
                let f = self.parse_func(module.funcs.len())?;
                module.funcs.push(f);
            }
            self.bump();
        } else {
            while !self.at(Tok::Eof) {
                let f = self.parse_func(module.funcs.len())?;
                module.funcs.push(f);
            }
        }
        if !self.at(Tok::Eof) {
            return Err(self.expected("end of file"));
        }
        if module.funcs.is_empty() {
            self.err(
                Diagnostic::new(
                    DiagKind::Structure,
                    "module has no function",
                    Span::new(0, 0),
                )
                .with_label("expected at least one `func.func`"),
            );
        }
        self.check_calls(&module);
        self.check_entry_rules(&module);
        self.check_peer_pipes(&module);
        self.check_pipe_split(&module);
        self.check_recursion(&module);
        Ok(module)
    }

    /// PTOAS's EmitC rule: no function may call itself, directly or through others
    /// ("recursive function calls are not supported for EmitC C++ emission"). One diagnostic
    /// per function on a cycle, at its call that closes it.
    fn check_recursion(&mut self, module: &Module) {
        fn walk(b: &Block, out: &mut Vec<(usize, Span)>) {
            for op in &b.ops {
                match &op.kind {
                    OpKind::Call { callee, .. } => out.push((callee.0 as usize, op.span)),
                    OpKind::For { body, .. } | OpKind::Section { body, .. } => walk(body, out),
                    OpKind::If {
                        then_body,
                        else_body,
                        ..
                    } => {
                        walk(then_body, out);
                        walk(else_body, out);
                    }
                    OpKind::While { before, after, .. } => {
                        walk(before, out);
                        walk(after, out);
                    }
                    _ => {}
                }
            }
        }
        let n = module.funcs.len();
        let calls: Vec<Vec<(usize, Span)>> = module
            .funcs
            .iter()
            .map(|f| {
                let mut v = Vec::new();
                if let Some(b) = &f.body {
                    walk(b, &mut v);
                }
                v
            })
            .collect();
        // reaches(g, f): f is reachable from g through calls.
        let reaches = |from: usize, to: usize| {
            let mut seen = vec![false; n];
            let mut stack = vec![from];
            while let Some(x) = stack.pop() {
                if x == to {
                    return true;
                }
                if x >= n || std::mem::replace(&mut seen[x], true) {
                    continue;
                }
                stack.extend(calls[x].iter().map(|c| c.0));
            }
            false
        };
        for (fi, f) in module.funcs.iter().enumerate() {
            if let Some(&(_, span)) = calls[fi].iter().find(|(g, _)| reaches(*g, fi)) {
                self.err(
                    Diagnostic::new(
                        DiagKind::Rule,
                        format!(
                            "[no-recursion] recursive function calls are not supported: `@{}` calls itself (directly or through other functions)",
                            f.name
                        ),
                        span,
                    )
                    .with_label("this call closes the cycle"),
                );
            }
        }
    }

    /// PTOAS's split rule for cross-core pipes (its pipe-init inference): the pushes, pops and
    /// frees of one logical pipe use either `split = 0` (no split) or `split = 1`/`2`, never
    /// both; pipe inits that share a reserved buffer (a peer group) agree on it, and an
    /// explicit `nosplit` agrees with what the users need. Frontend inits
    /// (`pto.aic_initialize_pipe` / `pto.aiv_initialize_pipe`) own the frontend pushes, pops
    /// and frees of their function; `pto.initialize_l2l_pipe` / `initialize_l2g2l_pipe` the
    /// ops that take its pipe value.
    fn check_pipe_split(&mut self, module: &Module) {
        struct Init {
            span: Span,
            keys: Vec<(String, String, i64)>,
            nosplit: Option<bool>,
            pipe: Option<ValueId>,
            frontend: bool,
            func: usize,
            saw: [bool; 2],
        }
        struct Cx<'a> {
            fname: &'a str,
            func: usize,
            keys: HashMap<ValueId, (String, String)>,
            inits: Vec<Init>,
            /// (function, pipe operand or None for frontend ops, no split?)
            users: Vec<(usize, Option<ValueId>, bool)>,
        }
        fn walk(b: &Block, cx: &mut Cx) {
            for op in &b.ops {
                match &op.kind {
                    OpKind::Opaque {
                        op: code,
                        operands,
                        results,
                        attrs,
                    } => {
                        let str_attr = |key: &str| {
                            attrs.iter().find_map(|(k, a)| match a {
                                Attr::Str(s) if k == key => Some(s.clone()),
                                _ => None,
                            })
                        };
                        match code {
                            OpCode::PtoReserveBuffer => {
                                if let (Some(n), Some(r)) = (str_attr("name"), results.first()) {
                                    cx.keys.insert(*r, (cx.fname.to_string(), n));
                                }
                            }
                            OpCode::PtoImportReservedBuffer => {
                                if let (Some(n), Some(p), Some(r)) =
                                    (str_attr("name"), str_attr("peer_func"), results.first())
                                {
                                    cx.keys
                                        .insert(*r, (p.trim_start_matches('@').to_string(), n));
                                }
                            }
                            OpCode::PtoInitializeL2lPipe
                            | OpCode::PtoInitializeL2g2lPipe
                            | OpCode::PtoAicInitializePipe
                            | OpCode::PtoAivInitializePipe => {
                                // PTOAS keys a pipe init by (owner function, buffer name,
                                // direction): a bidirectional init (dir_mask 3) by its local
                                // (C2V) buffer as direction 1 and its peer (V2C) buffer as 2;
                                // a frontend init of one direction by that direction's buffer.
                                let frontend = matches!(
                                    code,
                                    OpCode::PtoAicInitializePipe | OpCode::PtoAivInitializePipe
                                );
                                let dir = attrs.iter().find_map(|(k, a)| match a {
                                    Attr::Int(i) if k == "dir_mask" => Some(*i),
                                    _ => None,
                                });
                                let picks: Vec<(usize, i64)> = match (dir, frontend) {
                                    (Some(3), _) => vec![(0, 1), (1, 2)],
                                    (Some(2), true) => vec![(1, 2)],
                                    (Some(d), _) => vec![(0, d)],
                                    (None, _) => vec![],
                                };
                                let keys = picks
                                    .into_iter()
                                    .filter_map(|(k, d)| {
                                        let v = operands.get(k)?;
                                        let (o, n) = cx.keys.get(v)?.clone();
                                        Some((o, n, d))
                                    })
                                    .collect();
                                let nosplit = attrs.iter().find_map(|(k, a)| match a {
                                    Attr::Bool(b) if k == "nosplit" => Some(*b),
                                    _ => None,
                                });
                                cx.inits.push(Init {
                                    span: op.span,
                                    keys,
                                    nosplit,
                                    pipe: results.first().copied(),
                                    frontend,
                                    func: cx.func,
                                    saw: [false; 2],
                                });
                            }
                            OpCode::PtoTpush
                            | OpCode::PtoTpop
                            | OpCode::PtoTfree
                            | OpCode::PtoTpushToAiv
                            | OpCode::PtoTpushToAic
                            | OpCode::PtoTpopFromAic
                            | OpCode::PtoTpopFromAiv
                            | OpCode::PtoTfreeFromAic
                            | OpCode::PtoTfreeFromAiv => {
                                let split = attrs.iter().find_map(|(k, a)| match a {
                                    Attr::Int(i) if k == "split" => Some(*i),
                                    _ => None,
                                });
                                let Some(split) = split else { continue };
                                let pipe = if matches!(
                                    code,
                                    OpCode::PtoTpush | OpCode::PtoTpop | OpCode::PtoTfree
                                ) {
                                    let Some(&p) = operands.last() else { continue };
                                    Some(p)
                                } else {
                                    None
                                };
                                cx.users.push((cx.func, pipe, split == 0));
                            }
                            _ => {}
                        }
                    }
                    OpKind::For { body, .. } | OpKind::Section { body, .. } => walk(body, cx),
                    OpKind::If {
                        then_body,
                        else_body,
                        ..
                    } => {
                        walk(then_body, cx);
                        walk(else_body, cx);
                    }
                    OpKind::While { before, after, .. } => {
                        walk(before, cx);
                        walk(after, cx);
                    }
                    _ => {}
                }
            }
        }
        let mut inits: Vec<Init> = Vec::new();
        for (fi, f) in module.funcs.iter().enumerate() {
            let Some(b) = &f.body else { continue };
            let mut cx = Cx {
                fname: &f.name,
                func: fi,
                keys: HashMap::new(),
                inits: Vec::new(),
                users: Vec::new(),
            };
            walk(b, &mut cx);
            for (func, pipe, nosplit) in &cx.users {
                for i in cx.inits.iter_mut() {
                    let owns = match pipe {
                        Some(p) => i.pipe == Some(*p),
                        None => i.frontend && i.func == *func,
                    };
                    if owns {
                        i.saw[usize::from(*nosplit)] = true;
                    }
                }
            }
            inits.extend(cx.inits);
        }
        if inits.is_empty() {
            return;
        }
        // Peer groups: inits sharing a (owner function, buffer name) key, transitively.
        let mut group: Vec<usize> = (0..inits.len()).collect();
        fn root(g: &mut [usize], mut x: usize) -> usize {
            while g[x] != x {
                g[x] = g[g[x]];
                x = g[x];
            }
            x
        }
        for a in 0..inits.len() {
            for b in a + 1..inits.len() {
                if inits[a].keys.iter().any(|k| inits[b].keys.contains(k)) {
                    let (ra, rb) = (root(&mut group, a), root(&mut group, b));
                    group[ra] = rb;
                }
            }
        }
        let rule = |name: &str, msg: &str, span: Span| {
            Diagnostic::new(DiagKind::Rule, format!("[{name}] {msg}"), span)
        };
        let mut done = vec![false; inits.len()];
        for start in 0..inits.len() {
            let r = root(&mut group, start);
            if done[r] {
                continue;
            }
            done[r] = true;
            let members: Vec<usize> = (0..inits.len())
                .filter(|&i| root(&mut group, i) == r)
                .collect();
            let mut err = None;
            let mut explicit: Option<bool> = None;
            for &i in &members {
                let it = &inits[i];
                if it.saw == [true, true] {
                    err = Some(rule(
                        "pipe-split-mixed",
                        "cannot mix 'split = 0' with 'split = 1' or 'split = 2' on the same logical pipe",
                        it.span,
                    ));
                    break;
                }
                if let Some(n) = it.nosplit {
                    if explicit.is_some_and(|e| e != n) {
                        err = Some(rule(
                            "pipe-nosplit-peers",
                            "conflicting explicit 'nosplit' across peer pipe init ops",
                            it.span,
                        ));
                        break;
                    }
                    explicit = Some(n);
                }
            }
            let mut inferred: Option<bool> = None;
            if err.is_none() {
                for &i in &members {
                    let it = &inits[i];
                    let usage = match it.saw {
                        [true, false] => Some(false),
                        [false, true] => Some(true),
                        _ => None,
                    };
                    let Some(u) = usage else { continue };
                    if inferred.is_some_and(|x| x != u) {
                        err = Some(rule(
                            "pipe-split-peers",
                            "conflicting pipe split usage across peer pipe init ops",
                            it.span,
                        ));
                        break;
                    }
                    inferred = Some(u);
                }
            }
            if err.is_none()
                && let (Some(e), Some(u)) = (explicit, inferred)
                && e != u
                && let Some(&i) = members.iter().find(|&&i| inits[i].nosplit == Some(e))
            {
                err = Some(rule(
                    "pipe-nosplit-users",
                    if e {
                        "explicit 'nosplit = true' conflicts with downstream users that require split = 1 or split = 2"
                    } else {
                        "explicit 'nosplit = false' conflicts with downstream users that require split = 0"
                    },
                    inits[i].span,
                ));
            }
            if let Some(d) = err {
                self.err(d);
            }
        }
    }

    /// PTOAS's entry rule: a kernel entry (marked `pto.entry`, or the only function with a
    /// body) returns nothing.
    fn check_entry_rules(&mut self, module: &Module) {
        let single = module.funcs.iter().filter(|f| f.body.is_some()).count() == 1;
        for f in &module.funcs {
            if f.body.is_some() && (f.is_entry || single) && !f.results.is_empty() {
                self.err(
                    Diagnostic::new(
                        DiagKind::Rule,
                        format!(
                            "[entry-returns-void] PTO entry functions must return void, but `@{}` returns {} value(s)",
                            f.name,
                            f.results.len()
                        ),
                        f.span,
                    )
                    .with_label("kernel entry")
                    .with_help("return results through `!pto.ptr` arguments instead"),
                );
            }
        }
    }

    /// PTOAS's peer rule for cross-core pipes: a function that initialises an
    /// `initialize_l2l_pipe` on a reserved (or imported) buffer needs its peer function (the
    /// one importing that buffer, or the one it imports from) to initialise one too.
    fn check_peer_pipes(&mut self, module: &Module) {
        struct Info {
            reserves: Vec<String>,
            imports: Vec<(String, String)>,
            inits: Vec<(Span, bool)>,
        }
        fn walk(b: &Block, info: &mut Info) {
            let str_attr = |attrs: &[(String, Attr)], key: &str| {
                attrs.iter().find_map(|(k, a)| match a {
                    Attr::Str(s) if k == key => Some(s.clone()),
                    _ => None,
                })
            };
            for op in &b.ops {
                match &op.kind {
                    OpKind::Opaque {
                        op: code, attrs, ..
                    } => match code {
                        OpCode::PtoReserveBuffer => {
                            info.reserves.extend(str_attr(attrs, "name"));
                        }
                        OpCode::PtoImportReservedBuffer => {
                            if let (Some(n), Some(p)) =
                                (str_attr(attrs, "name"), str_attr(attrs, "peer_func"))
                            {
                                info.imports.push((n, p));
                            }
                        }
                        OpCode::PtoInitializeL2lPipe => {
                            let explicit = attrs.iter().any(|(k, _)| k == "flag_base");
                            info.inits.push((op.span, !explicit));
                        }
                        _ => {}
                    },
                    OpKind::For { body, .. } | OpKind::Section { body, .. } => walk(body, info),
                    OpKind::If {
                        then_body,
                        else_body,
                        ..
                    } => {
                        walk(then_body, info);
                        walk(else_body, info);
                    }
                    OpKind::While { before, after, .. } => {
                        walk(before, info);
                        walk(after, info);
                    }
                    _ => {}
                }
            }
        }
        let infos: Vec<Info> = module
            .funcs
            .iter()
            .map(|f| {
                let mut i = Info {
                    reserves: Vec::new(),
                    imports: Vec::new(),
                    inits: Vec::new(),
                };
                if let Some(b) = &f.body {
                    walk(b, &mut i);
                }
                i
            })
            .collect();
        for (fi, f) in module.funcs.iter().enumerate() {
            let info = &infos[fi];
            if !info.inits.iter().any(|(_, reserved)| *reserved) {
                continue;
            }
            // Peers: functions importing one of our reserved buffers from us, and the
            // functions we import from.
            let mut peers: Vec<usize> = Vec::new();
            for (gi, g) in module.funcs.iter().enumerate() {
                if gi == fi {
                    continue;
                }
                let imports_ours = infos[gi]
                    .imports
                    .iter()
                    .any(|(n, p)| *p == f.name && info.reserves.contains(n));
                let we_import = info.imports.iter().any(|(_, p)| *p == g.name);
                if imports_ours || we_import {
                    peers.push(gi);
                }
            }
            for gi in peers {
                if infos[gi].inits.is_empty() {
                    let span = info.inits.first().map_or(f.span, |x| x.0);
                    let peer = &module.funcs[gi].name;
                    self.err(
                        Diagnostic::new(
                            DiagKind::Rule,
                            format!(
                                "[l2l-peer-pair] `pto.initialize_l2l_pipe` requires a complete peer init pair when local_addr comes from pto.reserve_buffer or pto.import_reserved_buffer: peer `@{peer}` initialises no pipe"
                            ),
                            span,
                        )
                        .with_label(format!("in `@{}`", f.name)),
                    );
                }
            }
        }
    }

    /// Verifier rules of the generically parsed ops (named like PTOAS's messages).
    fn opaque_rules(
        &mut self,
        code: OpCode,
        operands: &[ValueId],
        results: &[ValueId],
        attrs: &[(String, Attr, Span)],
        span: Span,
    ) {
        let rule = |name: &str, msg: String| {
            Diagnostic::new(DiagKind::Rule, format!("[{name}] {msg}"), span)
        };
        if let (OpCode::PtoTassign, Some(l @ (PtoLevel::Level1 | PtoLevel::Level2))) =
            (code, self.opts.pto_level)
        {
            self.err(
                rule(
                    "tassign-level3",
                    format!(
                        "`pto.tassign` is only supported when --pto-level=level3, not {}",
                        l.name()
                    ),
                )
                .with_label("needs level 3"),
            );
        }
        match code {
            OpCode::PtoBitcast
                if operands.len() == 1
                    && results.len() == 1
                    && matches!(
                        (self.ty_of(operands[0]).as_tile(), self.ty_of(results[0]).as_tile()),
                        (Some(a), Some(b)) if a.dtype == b.dtype
                    ) =>
            {
                self.err(
                    rule(
                        "bitcast-dtype",
                        "`pto.bitcast` expects src and result to have different element types"
                            .to_string(),
                    )
                    .with_help("use `pto.treshape` for shape or layout changes"),
                )
            }
            OpCode::PtoThistogram if self.arch != TargetArch::A5 => self.err(
                rule(
                    "a5-only",
                    format!(
                        "`pto.thistogram` is only supported on A5 (target is {})",
                        self.arch.name()
                    ),
                )
                .with_help("set `pto.target_arch = \"a5\"` or `--target a5`"),
            ),
            // A2/A3 compare-form gather (`ins(%src, %scalar, %tmp)`): src f16/f32, or i32
            // when comparing for equality.
            OpCode::PtoTgather
                if self.arch == TargetArch::A2A3
                    && operands
                        .get(1)
                        .is_some_and(|&v| self.ty_of(v).as_scalar().is_some()) =>
            {
                let cmp_eq = attrs.iter().all(|(k, a, _)| {
                    k != "cmpMode"
                        || matches!(a, Attr::Opaque { body, .. } if body.contains("eq") || body.contains("equal"))
                });
                if let Some(t) = operands.first().and_then(|&v| self.ty_of(v).as_tile())
                    && !matches!(t.dtype, DType::F16 | DType::F32)
                    && !(t.dtype == DType::I32 && cmp_eq)
                {
                    let d = t.dtype;
                    self.err(rule(
                        "tgather-compare-src-type",
                        format!(
                            "A2/A3 compare-form `pto.tgather` expects a src element type of f16/f32, or i32 when cmpMode=eq; found `{d}`"
                        ),
                    ));
                }
            }
            // Without an explicit `flag_base`, the pipe's local buffer must be a reserved one.
            OpCode::PtoInitializeL2lPipe if !attrs.iter().any(|(k, _, _)| k == "flag_base") => {
                let from_reserved = operands.first().is_some_and(|v| {
                    matches!(
                        self.f.defined_by.get(v),
                        Some(OpCode::PtoReserveBuffer | OpCode::PtoImportReservedBuffer)
                    )
                });
                if !from_reserved {
                    self.err(rule(
                        "l2l-local-addr-reserved",
                        "`pto.initialize_l2l_pipe` requires local_addr to come from pto.reserve_buffer or pto.import_reserved_buffer when 'flag_base' is not explicit".to_string(),
                    ));
                }
            }
            OpCode::PtoTgetScaleAddr => {
                // PTOAS's verifier: dst in the scaling address space. npusim also takes its own
                // spellings of pto-isa's scale memories, `scale_left` for a left src and
                // `scale_right` for a right one (TileCore::tget_scale_addr checks the pairing).
                if let Some(t) = operands.get(1).and_then(|&v| self.ty_of(v).as_tile())
                    && !matches!(t.loc, Loc::Scaling | Loc::ScaleLeft | Loc::ScaleRight)
                {
                    let loc = t.loc.name();
                    self.err(rule(
                        "scale-addr-dst-scaling",
                        format!(
                            "`pto.tget_scale_addr` expects dst to be in the scaling address space, not `{loc}`"
                        ),
                    ));
                }
            }
            OpCode::PtoTputAsync | OpCode::PtoTgetAsync => {
                for (k, what) in [(0usize, "dst"), (1, "src")] {
                    let Some(&v) = operands.get(k) else { continue };
                    let flat = match self.ty_of(v) {
                        Type::GmMemRef(m) | Type::PartitionView(m) | Type::TensorView(m) => {
                            m.shape.iter().all(|d| d.as_static().is_some())
                                && m.shape.iter().filter(|d| d.as_static() != Some(1)).count() <= 1
                        }
                        _ => false,
                    };
                    if !flat {
                        let ty = self.ty_of(v).to_string();
                        self.err(rule(
                            "async-flat-1d",
                            format!(
                                "`{}` expects {what} to be a static flat contiguous 1-D GM buffer, found `{ty}`",
                                code.name()
                            ),
                        ));
                    }
                }
            }
            OpCode::PtoTpopFromAic | OpCode::PtoTpopFromAiv if !operands.is_empty() => {
                if let Some(t) = results.first().and_then(|&v| self.ty_of(v).as_tile())
                    && (t.valid_row != Dim::Dynamic || t.valid_col != Dim::Dynamic)
                {
                    self.err(rule(
                        "tpop-dynamic-valid",
                        format!(
                            "`{}` expects its tile result to have a dynamic valid shape (v_row=?, v_col=?) when valid_row/valid_col operands are given",
                            code.name()
                        ),
                    ));
                }
            }
            _ => {}
        }
    }

    fn check_calls(&mut self, module: &Module) {
        let calls = std::mem::take(&mut self.calls);
        for c in calls {
            let Some(callee) = module.funcs.get(c.callee.0 as usize) else {
                continue;
            };
            let params: Vec<Type> = callee
                .params
                .iter()
                .map(|p| callee.values[p.index()].ty.clone())
                .collect();
            let caller = module.funcs.get(c.caller).map_or("", |f| f.name.as_str());
            if params.len() != c.args.len() {
                self.err(
                    Diagnostic::new(
                        DiagKind::BadOperands,
                        format!(
                            "`@{}` takes {} arguments but {} are passed",
                            callee.name,
                            params.len(),
                            c.args.len()
                        ),
                        c.span,
                    )
                    .with_label(format!("call in `@{caller}`")),
                );
                continue;
            }
            for (p, (a, span)) in params.iter().zip(&c.args) {
                if p != a {
                    self.err(
                        Diagnostic::new(
                            DiagKind::TypeMismatch,
                            format!(
                                "type mismatch: `@{}` expects `{p}` but is passed `{a}`",
                                callee.name
                            ),
                            *span,
                        )
                        .with_label(format!("this is `{a}`")),
                    );
                }
            }
            if callee.results != c.results {
                self.err(
                    Diagnostic::new(
                        DiagKind::TypeMismatch,
                        format!(
                            "type mismatch: the result types of `@{}` differ from the call's",
                            callee.name
                        ),
                        c.span,
                    )
                    .with_label("call annotated here"),
                );
            }
        }
    }

    fn parse_func(&mut self, index: usize) -> PResult<Func> {
        self.expect_kw("func.func")?;
        for vis in ["private", "public", "nested"] {
            self.eat_kw(vis);
        }
        let name_tok = self.expect(Tok::AtId, "a function name `@name`")?;
        let name = sym_name(self.text(name_tok));
        self.f = FnCtx {
            scopes: vec![HashMap::new()],
            ..FnCtx::default()
        };
        self.expect(Tok::LParen, "`(` to open the parameter list")?;
        let mut params = Vec::new();
        if !self.at(Tok::RParen) {
            loop {
                let t = self.expect(Tok::ValueId, "a parameter `%name`")?;
                self.expect(Tok::Colon, "`:` before the parameter type")?;
                let ty = self.parse_type()?;
                if self.at(Tok::LBrace) {
                    self.attr_dict()?;
                }
                let pname = self.text(t)[1..].to_string();
                let id = self.new_value(pname.clone(), ty, t.span, None);
                self.define(&pname, vec![id], t.span);
                params.push(id);
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
        }
        self.expect(Tok::RParen, "`)` or `,` in the parameter list")?;
        let results = if self.eat(Tok::Arrow) {
            self.result_type_list()?
        } else {
            Vec::new()
        };
        self.f.results = results.clone();
        let mut kernel_kind = None;
        let mut is_entry = false;
        if self.eat_kw("attributes") {
            for (key, attr, _) in self.attr_dict()? {
                is_entry |= key == "pto.entry";
                if key == "pto.kernel_kind"
                    && let Attr::Opaque { body, .. } = attr
                {
                    kernel_kind = Some(body);
                }
            }
        }
        let body = if self.at(Tok::LBrace) {
            let block = self.parse_region(&[], |_| None)?;
            let close = Span::new(self.prev_end.saturating_sub(1), self.prev_end);
            if !matches!(
                block.ops.last().map(|o| &o.kind),
                Some(OpKind::Return { .. })
            ) {
                self.err(
                    Diagnostic::new(
                        DiagKind::Structure,
                        format!("function `@{name}` does not end with `return`"),
                        close,
                    )
                    .with_label("expected `return` before this brace"),
                );
            }
            Some(block)
        } else {
            None
        };
        self.check_sync_pairs();
        let ctx = std::mem::take(&mut self.f);
        // Calls recorded while parsing this function belong to it.
        for c in self.calls.iter_mut().filter(|c| c.caller == usize::MAX) {
            c.caller = index;
        }
        Ok(Func {
            name,
            span: name_tok.span,
            params,
            results,
            body,
            values: ctx.values,
            kernel_kind,
            is_entry,
        })
    }

    fn check_sync_pairs(&mut self) {
        let syncs = std::mem::take(&mut self.f.syncs);
        let partner = |op: OpCode| match op {
            OpCode::RecordEvent => Some(OpCode::WaitEvent),
            OpCode::WaitEvent => Some(OpCode::RecordEvent),
            OpCode::SetFlag => Some(OpCode::WaitFlag),
            OpCode::WaitFlag => Some(OpCode::SetFlag),
            // `pto.sync.set`/`pto.sync.wait` signal between cube and vector cores; the partner
            // sits in the other core's code, so they are not paired within one function.
            _ => None,
        };
        for (op, args, span) in &syncs {
            let Some(other) = partner(*op) else { continue };
            if !syncs.iter().any(|(o, a, _)| *o == other && a == args) {
                let is_wait = matches!(op, OpCode::WaitEvent | OpCode::WaitFlag | OpCode::SyncWait);
                let what = if is_wait { "wait" } else { "signal" };
                self.err(
                    Diagnostic::new(
                        DiagKind::UnpairedSync,
                        format!(
                            "`{}` [{}] has no matching `{}`",
                            op.name(),
                            args.join(", "),
                            other.name()
                        ),
                        *span,
                    )
                    .with_label(format!("unpaired {what}"))
                    .with_help(format!(
                        "add `{} [{}]` to this function",
                        other.name(),
                        args.join(", ")
                    )),
                );
            }
        }
    }

    /// `{ [^bb0(args):] ops }`. `args` are implicit block arguments (loop variables);
    /// `terminator` builds the op to append when the region does not end with one (or `None`).
    fn parse_region(
        &mut self,
        args: &[(String, Type, Span)],
        implicit_terminator: impl Fn(&[Op]) -> Option<OpKind>,
    ) -> PResult<Block> {
        self.enter()?;
        let open = self.expect(Tok::LBrace, "`{` to open a region")?;
        self.f.scopes.push(HashMap::new());
        let mut block = Block::default();
        for (name, ty, span) in args {
            let id = self.new_value(name.clone(), ty.clone(), *span, None);
            self.define(name, vec![id], *span);
            block.args.push(id);
        }
        if self.at(Tok::CaretId) {
            self.bump();
            if self.eat(Tok::LParen) && !self.eat(Tok::RParen) {
                loop {
                    let t = self.expect(Tok::ValueId, "a block argument `%name`")?;
                    self.expect(Tok::Colon, "`:` before the block argument type")?;
                    let ty = self.parse_type()?;
                    let name = self.text(t)[1..].to_string();
                    let id = self.new_value(name.clone(), ty, t.span, None);
                    self.define(&name, vec![id], t.span);
                    block.args.push(id);
                    if !self.eat(Tok::Comma) {
                        break;
                    }
                }
                self.expect(Tok::RParen, "`)` or `,` in the block arguments")?;
            }
            self.expect(Tok::Colon, "`:` after the block label")?;
        }
        while !self.at(Tok::RBrace) {
            if self.at(Tok::CaretId) {
                return Err(Diagnostic::new(
                    DiagKind::Structure,
                    "regions with more than one block are not supported",
                    self.tok.span,
                )
                .with_label("second block starts here")
                .with_help("use `scf.if`/`scf.for`/`scf.while` instead of branches"));
            }
            if self.at(Tok::Eof) {
                return Err(
                    Diagnostic::new(DiagKind::Syntax, "unclosed region", open.span)
                        .with_label("this `{` is never closed"),
                );
            }
            let op = self.parse_op()?;
            block.ops.push(op);
        }
        let close = self.bump();
        if let Some(kind) = implicit_terminator(&block.ops) {
            block.ops.push(Op {
                kind,
                span: close.span,
            });
        }
        self.f.scopes.pop();
        self.leave();
        Ok(block)
    }

    // ------------------------------------------------------------------ ops

    fn parse_op(&mut self) -> PResult<Op> {
        let mut results = Vec::new();
        if self.at(Tok::ValueId) {
            loop {
                let t = self.expect(Tok::ValueId, "a result name `%name`")?;
                let mut count = 1;
                let mut span = t.span;
                if self.eat(Tok::Colon) {
                    let (n, s) = self.expect_uint("a result count")?;
                    count = usize::try_from(n).unwrap_or(usize::MAX).min(4096);
                    span = span.to(s);
                    if count == 0 {
                        return Err(Diagnostic::new(
                            DiagKind::Syntax,
                            "result count must be at least 1",
                            s,
                        ));
                    }
                }
                results.push(ResultName {
                    name: self.text(t)[1..].to_string(),
                    span,
                    count,
                });
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
            self.expect(Tok::Equal, "`=` after the result names")?;
        }
        if self.at(Tok::Str) {
            let t = self.bump();
            let kind = self.op_generic(t, &results)?;
            return Ok(Op { kind, span: t.span });
        }
        let name_tok = self.expect(Tok::Ident, "an op name")?;
        let name = self.text(name_tok);
        let Some(code) = OpCode::from_name(name) else {
            let mut d = Diagnostic::new(
                DiagKind::UnknownOp,
                format!("unknown op `{name}`"),
                name_tok.span,
            )
            .with_label("not a known PTO-AS op");
            if let Some(s) = suggest(name) {
                d = d.with_help(format!("did you mean `{s}`?"));
            }
            return Err(d);
        };
        let span = name_tok.span;
        let kind = match code.class() {
            OpClass::Constant => self.op_constant(&results, span)?,
            OpClass::IntArith | OpClass::FloatArith => self.op_binary(code, &results, span)?,
            OpClass::FloatUnary => self.op_unary(code, &results, span)?,
            OpClass::Cast => self.op_cast(code, &results, span)?,
            OpClass::ScalarCmp => self.op_scalar_cmp(code, &results, span)?,
            OpClass::Runtime => self.op_runtime(code, &results, span)?,
            OpClass::Section => {
                self.no_results(&results, code, span)?;
                let body = self.parse_region(&[], |_| None)?;
                OpKind::Section {
                    vector: code == OpCode::SectionVector,
                    body,
                }
            }
            OpClass::Sync => {
                self.no_results(&results, code, span)?;
                self.op_sync(code, span)?
            }
            OpClass::View => match code {
                OpCode::MakeTensorView => self.op_make_tensor_view(&results, span)?,
                OpCode::PartitionView => self.op_partition_view(&results, span)?,
                OpCode::SetValidShape => {
                    self.no_results(&results, code, span)?;
                    self.op_set_valid_shape()?
                }
                _ => self.op_alloc_tile(&results, span)?,
            },
            OpClass::Control => self.op_control(code, &results, span)?,
            OpClass::Opaque => self.op_opaque(code, &results, span)?,
            // The SSA form of a tile op (`%d = pto.tadd %a, %b : (...) -> ...`).
            _ if !results.is_empty() || !self.at_kw("ins") => {
                self.op_opaque(code, &results, span)?
            }
            _ => {
                self.no_results(&results, code, span)?;
                self.op_dps(code, span)?
            }
        };
        Ok(Op { kind, span })
    }

    /// Whether the current token starts a new op (or closes the region): the end of an op
    /// written in a custom syntax the parser does not know in detail.
    fn at_op_boundary(&self, depth: usize) -> bool {
        if depth > 0 {
            return matches!(self.tok.kind, Tok::Eof);
        }
        match self.tok.kind {
            Tok::Eof | Tok::RBrace => true,
            Tok::ValueId | Tok::Ident => {
                let gap = self
                    .src
                    .get(self.prev_end..self.tok.span.start)
                    .unwrap_or("");
                if !gap.contains('\n') {
                    return false;
                }
                let prev = self.src.get(..self.prev_end).unwrap_or("").trim_end();
                if prev.ends_with(',')
                    || prev.ends_with(':')
                    || prev.ends_with('=')
                    || prev.ends_with("->")
                    || prev.ends_with('(')
                {
                    return false;
                }
                match self.tok.kind {
                    Tok::ValueId => true,
                    _ => {
                        let name = self.text(self.tok);
                        name.contains('.') || name == "return" || name == "call"
                    }
                }
            }
            _ => false,
        }
    }

    /// Type list after `->` or `:`: `T`, `T, U` or `(T, U)`.
    fn opaque_types(&mut self, stop_at_arrow: bool) -> PResult<Vec<Type>> {
        let mut out = Vec::new();
        if self.at(Tok::LParen) {
            self.bump();
            if !self.eat(Tok::RParen) {
                loop {
                    out.push(self.parse_type()?);
                    if !self.eat(Tok::Comma) {
                        break;
                    }
                }
                self.expect(Tok::RParen, "`)` or `,` in a type list")?;
            }
            return Ok(out);
        }
        loop {
            out.push(self.parse_type()?);
            if stop_at_arrow && self.at(Tok::Arrow) {
                break;
            }
            if !self.at(Tok::Comma) || self.at_op_boundary(0) {
                break;
            }
            self.bump();
            if !self.type_start_ahead() {
                break;
            }
        }
        Ok(out)
    }

    /// An op parsed generically: its `%value` operands are resolved, its attribute
    /// dictionaries kept, its result types read from `-> T` (else from the first types after
    /// `:`); an `ins(...) outs(...)` form is checked like any DPS op.
    fn op_opaque(&mut self, code: OpCode, results: &[ResultName], span: Span) -> PResult<OpKind> {
        let mut operands = Vec::new();
        let mut attr_list: Vec<(String, Attr, Span)> = Vec::new();
        let mut arrow_types: Option<Vec<Type>> = None;
        let mut colon_types: Vec<Type> = Vec::new();
        if self.at_kw("ins") {
            let ins = self.dps_group("ins", &mut attr_list)?;
            let outs = if self.at_kw("outs") && !self.outs_colon_ahead() {
                self.dps_group("outs", &mut attr_list)?
            } else {
                Vec::new()
            };
            // `%v = pto.tgetval ins(...) outs : f32`: a scalar result.
            if self.at_kw("outs") {
                self.bump();
                self.expect(Tok::Colon, "`:` after `outs`")?;
                arrow_types = Some(self.opaque_types(false)?);
            }
            operands.extend(ins.iter().chain(&outs).map(|x| x.0));
            if self.at(Tok::LBrace) {
                attr_list.extend(self.attr_dict()?);
            }
            if self.eat(Tok::Arrow) {
                arrow_types = Some(self.opaque_types(false)?);
            }
        } else {
            let mut depth = 0usize;
            let mut steps = 0usize;
            while !self.at_op_boundary(depth) {
                steps += 1;
                if steps > 100_000 {
                    return Err(Diagnostic::new(DiagKind::Syntax, "op too long", span));
                }
                match self.tok.kind {
                    Tok::ValueId => operands.push(self.value_use()?.0),
                    Tok::LBrace if depth == 0 => attr_list.extend(self.attr_dict()?),
                    // `pto.subset ... sizes [32, 32]`: a keyword-introduced array attribute.
                    Tok::Ident
                        if depth == 0 && code == OpCode::PtoSubset && self.at_kw("sizes") =>
                    {
                        let k = self.tok.span;
                        self.bump();
                        if self.at(Tok::LBracket) {
                            let a = self.parse_attr()?;
                            attr_list.push((
                                "sizes".into(),
                                a,
                                k.to(Span::new(k.start, self.prev_end)),
                            ));
                        }
                    }
                    Tok::LParen | Tok::LBracket | Tok::LBrace => {
                        depth += 1;
                        self.bump();
                    }
                    Tok::RParen | Tok::RBracket | Tok::RBrace => {
                        depth = depth.saturating_sub(1);
                        self.bump();
                    }
                    Tok::Arrow if depth == 0 => {
                        self.bump();
                        arrow_types = Some(self.opaque_types(false)?);
                    }
                    Tok::Colon if arrow_types.is_none() => {
                        self.bump();
                        // `offset: [...]`-style keyword colons are followed by a value.
                        if self.type_start_ahead() {
                            let tys = self.opaque_types(true)?;
                            if depth == 0 && colon_types.is_empty() {
                                colon_types = tys;
                            }
                            // `: A to B` (casts): the result type follows `to`.
                            if depth == 0 && self.at_kw("to") {
                                self.bump();
                                arrow_types = Some(self.opaque_types(true)?);
                            }
                        }
                    }
                    Tok::BadChar | Tok::UnterminatedStr => return Err(self.expected("an operand")),
                    _ => {
                        self.bump();
                    }
                }
            }
        }
        let n: usize = results.iter().map(|r| r.count).sum();
        let unknown = Type::Opaque(String::new());
        // `pto.subset %src[...] sizes [...] : SRC`: the annotation is the source's type; the
        // result's comes from its first annotated use.
        if code == OpCode::PtoSubset {
            colon_types.clear();
        }
        let types: Vec<Type> = match arrow_types {
            Some(t) if t.len() == n => t,
            _ if colon_types.len() >= n => colon_types[..n].to_vec(),
            _ => vec![unknown; n],
        };
        let results = if results.is_empty() {
            Vec::new()
        } else {
            self.bind_results(results, &types, code, span, None)?
        };
        for &r in &results {
            self.f.defined_by.insert(r, code);
        }
        self.opaque_rules(code, &operands, &results, &attr_list, span);
        Ok(OpKind::Opaque {
            op: code,
            operands,
            results,
            attrs: attr_list.into_iter().map(|(k, a, _)| (k, a)).collect(),
        })
    }

    /// Whether `outs` at the cursor is followed by `:` (the scalar-result form).
    fn outs_colon_ahead(&self) -> bool {
        self.src
            .get(self.tok.span.end..)
            .and_then(|r| r.trim_start().bytes().next())
            == Some(b':')
    }

    /// Whether the token at the cursor can start a type.
    fn type_start_ahead(&self) -> bool {
        matches!(self.tok.kind, Tok::BangId | Tok::Less | Tok::LParen)
            || (self.at(Tok::Ident) && self.type_ident_ahead())
    }

    /// Whether the identifier at the cursor names a type (`i32`, `index`, `memref`, ...).
    fn type_ident_ahead(&self) -> bool {
        let name = self.text(self.tok);
        ScalarType::from_name(name).is_some() || matches!(name, "memref" | "vector")
    }

    fn no_results(&self, results: &[ResultName], code: OpCode, span: Span) -> PResult<()> {
        match results.first() {
            None => Ok(()),
            Some(r) => Err(Diagnostic::new(
                DiagKind::Structure,
                format!("`{}` produces no results", code.name()),
                r.span,
            )
            .with_label("nothing to bind here")
            .with_help(format!("remove `%{} =`", r.name))
            .with_span_fallback(span)),
        }
    }

    /// Binds result names to fresh values of the given types.
    fn bind_results(
        &mut self,
        results: &[ResultName],
        types: &[Type],
        code: OpCode,
        span: Span,
        const_int: Option<i64>,
    ) -> PResult<Vec<ValueId>> {
        let named: usize = results.iter().map(|r| r.count).sum();
        if !results.is_empty() && named != types.len() {
            let at = results.first().map_or(span, |r| r.span);
            return Err(Diagnostic::new(
                DiagKind::Structure,
                format!(
                    "`{}` produces {} result(s) but {} name(s) are bound",
                    code.name(),
                    types.len(),
                    named
                ),
                at,
            )
            .with_label("result names here"));
        }
        let mut ids = Vec::new();
        if results.is_empty() {
            for ty in types {
                ids.push(self.new_value(String::new(), ty.clone(), span, const_int));
            }
            return Ok(ids);
        }
        let mut k = 0;
        for r in results {
            let mut group = Vec::new();
            for i in 0..r.count {
                let name = if r.count == 1 {
                    r.name.clone()
                } else {
                    format!("{}#{i}", r.name)
                };
                let id = self.new_value(name, types[k].clone(), r.span, const_int);
                k += 1;
                group.push(id);
            }
            ids.extend(&group);
            self.define(&r.name, group, r.span);
        }
        Ok(ids)
    }

    fn one_result(
        &mut self,
        results: &[ResultName],
        ty: Type,
        code: OpCode,
        span: Span,
        const_int: Option<i64>,
    ) -> PResult<ValueId> {
        let ids = self.bind_results(results, &[ty], code, span, const_int)?;
        ids.first()
            .copied()
            .ok_or_else(|| Diagnostic::new(DiagKind::Structure, "missing result", span))
    }

    fn scalar_type(&mut self) -> PResult<(ScalarType, Span)> {
        let start = self.tok.span;
        let ty = self.parse_type()?;
        let span = start.to(Span::new(start.start, self.prev_end));
        match ty {
            Type::Scalar(s) => Ok((s, span)),
            other => Err(Diagnostic::new(
                DiagKind::TypeMismatch,
                format!("expected a scalar type, found `{other}`"),
                span,
            )
            .with_label("not a scalar type")),
        }
    }

    fn op_constant(&mut self, results: &[ResultName], span: Span) -> PResult<OpKind> {
        // `dense<[...]> : vector<4xi16>`: a vector constant, carried but not executed.
        if self.at_kw("dense") {
            self.bump();
            let body = self.angle_body()?;
            self.expect(Tok::Colon, "`:` before the constant's type")?;
            let ty = self.parse_type()?;
            let r = self.one_result(results, ty, OpCode::Constant, span, None)?;
            return Ok(OpKind::Opaque {
                op: OpCode::Constant,
                operands: Vec::new(),
                results: vec![r],
                attrs: vec![("dense".to_string(), Attr::Str(body))],
            });
        }
        let neg = self.eat(Tok::Minus);
        let lit = self.tok;
        let (value, ty) = match lit.kind {
            Tok::Ident if matches!(self.text(lit), "true" | "false") => {
                self.bump();
                if self.eat(Tok::Colon) {
                    let (s, sp) = self.scalar_type()?;
                    if s != ScalarType::I1 {
                        return Err(Diagnostic::new(
                            DiagKind::TypeMismatch,
                            format!("type mismatch: a boolean constant has type `i1`, not `{s}`"),
                            sp,
                        ));
                    }
                }
                (
                    ConstValue::Int(i64::from(self.text(lit) == "true")),
                    ScalarType::I1,
                )
            }
            Tok::Int => {
                self.bump();
                let raw = self.int_value(lit)?;
                self.expect(Tok::Colon, "`:` before the constant's type")?;
                let (s, _) = self.scalar_type()?;
                if s.is_float() {
                    if self.text(lit).starts_with("0x") {
                        (ConstValue::FloatBits(raw), s)
                    } else {
                        let v = raw as f64;
                        (ConstValue::Float(if neg { -v } else { v }), s)
                    }
                } else {
                    let v = if neg {
                        (raw as i64).wrapping_neg()
                    } else {
                        raw as i64
                    };
                    (ConstValue::Int(truncate_int(v, s)), s)
                }
            }
            Tok::Float => {
                self.bump();
                let v: f64 = self.text(lit).parse().map_err(|_| {
                    Diagnostic::new(DiagKind::Syntax, "malformed float literal", lit.span)
                })?;
                self.expect(Tok::Colon, "`:` before the constant's type")?;
                let (s, sp) = self.scalar_type()?;
                if !s.is_float() {
                    return Err(Diagnostic::new(
                        DiagKind::TypeMismatch,
                        format!("type mismatch: float literal used as `{s}`"),
                        lit.span.to(sp),
                    )
                    .with_label("a float literal needs a float type"));
                }
                (ConstValue::Float(if neg { -v } else { v }), s)
            }
            _ => return Err(self.expected("a constant value")),
        };
        let konst = match value {
            ConstValue::Int(v) => Some(v),
            _ => None,
        };
        let result = self.one_result(results, Type::Scalar(ty), OpCode::Constant, span, konst)?;
        Ok(OpKind::Constant { result, value })
    }

    fn op_binary(&mut self, code: OpCode, results: &[ResultName], span: Span) -> PResult<OpKind> {
        let (lhs, ls) = self.value_use()?;
        self.expect(Tok::Comma, "`,` between the operands")?;
        let (rhs, rs) = self.value_use()?;
        self.expect(Tok::Colon, "`:` before the operand type")?;
        let (s, tspan) = self.scalar_type()?;
        let want_float = code.class() == OpClass::FloatArith;
        if s.is_float() != want_float {
            self.err(
                Diagnostic::new(
                    DiagKind::TypeMismatch,
                    format!(
                        "type mismatch: `{}` needs {} operands, not `{s}`",
                        code.name(),
                        if want_float {
                            "float"
                        } else {
                            "integer or index"
                        }
                    ),
                    tspan,
                )
                .with_label("wrong kind of type"),
            );
        }
        let ty = Type::Scalar(s);
        self.check_type(lhs, ls, &ty);
        self.check_type(rhs, rs, &ty);
        let result = self.one_result(results, ty, code, span, None)?;
        Ok(OpKind::Binary {
            op: code,
            result,
            lhs,
            rhs,
        })
    }

    fn op_unary(&mut self, code: OpCode, results: &[ResultName], span: Span) -> PResult<OpKind> {
        let (operand, os) = self.value_use()?;
        self.expect(Tok::Colon, "`:` before the operand type")?;
        let (s, tspan) = self.scalar_type()?;
        if !s.is_float() {
            self.err(Diagnostic::new(
                DiagKind::TypeMismatch,
                format!(
                    "type mismatch: `{}` needs a float operand, not `{s}`",
                    code.name()
                ),
                tspan,
            ));
        }
        let ty = Type::Scalar(s);
        self.check_type(operand, os, &ty);
        let result = self.one_result(results, ty, code, span, None)?;
        Ok(OpKind::Unary {
            op: code,
            result,
            operand,
        })
    }

    fn op_cast(&mut self, code: OpCode, results: &[ResultName], span: Span) -> PResult<OpKind> {
        let (operand, os) = self.value_use()?;
        self.expect(Tok::Colon, "`:` before the source type")?;
        let (from, fs) = self.scalar_type()?;
        self.expect_kw("to")?;
        let (to, ts) = self.scalar_type()?;
        self.check_type(operand, os, &Type::Scalar(from));
        let ok = match code {
            OpCode::IndexCast | OpCode::IndexCastUI => {
                from.is_integer_like()
                    && to.is_integer_like()
                    && (from == ScalarType::Index || to == ScalarType::Index)
            }
            OpCode::ExtSI | OpCode::ExtUI => {
                from.is_integer_like() && to.is_integer_like() && from.bits() < to.bits()
            }
            OpCode::TruncI => {
                from.is_integer_like() && to.is_integer_like() && from.bits() > to.bits()
            }
            OpCode::SIToFP | OpCode::UIToFP => from.is_integer_like() && to.is_float(),
            OpCode::FPToSI | OpCode::FPToUI => from.is_float() && to.is_integer_like(),
            OpCode::ExtF => from.is_float() && to.is_float() && from.bits() < to.bits(),
            OpCode::TruncF => from.is_float() && to.is_float() && from.bits() > to.bits(),
            _ => from.bits() == to.bits(),
        };
        if !ok {
            self.err(
                Diagnostic::new(
                    DiagKind::TypeMismatch,
                    format!(
                        "type mismatch: `{}` cannot cast `{from}` to `{to}`",
                        code.name()
                    ),
                    fs.to(ts),
                )
                .with_label("invalid cast"),
            );
        }
        let konst = match code {
            OpCode::IndexCast | OpCode::IndexCastUI | OpCode::ExtSI => self.const_of(operand),
            _ => None,
        };
        let result = self.one_result(results, Type::Scalar(to), code, span, konst)?;
        Ok(OpKind::Cast {
            op: code,
            result,
            operand,
        })
    }

    fn predicate(&mut self) -> PResult<(String, Span)> {
        let t = self.tok;
        match t.kind {
            Tok::Ident => {
                self.bump();
                Ok((self.text(t).to_string(), t.span))
            }
            Tok::Str => {
                self.bump();
                Ok((unescape_string(self.text(t)), t.span))
            }
            _ => Err(self.expected("a comparison predicate")),
        }
    }

    fn op_scalar_cmp(
        &mut self,
        code: OpCode,
        results: &[ResultName],
        span: Span,
    ) -> PResult<OpKind> {
        let i1 = Type::Scalar(ScalarType::I1);
        if code == OpCode::Select {
            let (cond, cs) = self.value_use()?;
            self.expect(Tok::Comma, "`,` after the condition")?;
            let (a, as_) = self.value_use()?;
            self.expect(Tok::Comma, "`,` between the operands")?;
            let (b, bs) = self.value_use()?;
            self.expect(Tok::Colon, "`:` before the type")?;
            let mut ty = self.parse_type()?;
            if self.eat(Tok::Comma) {
                // `: i1, T` form
                ty = self.parse_type()?;
            }
            self.check_type(cond, cs, &i1);
            self.check_type(a, as_, &ty);
            self.check_type(b, bs, &ty);
            let result = self.one_result(results, ty, code, span, None)?;
            return Ok(OpKind::Select {
                result,
                cond,
                on_true: a,
                on_false: b,
            });
        }
        let (pred, ps) = self.predicate()?;
        self.expect(Tok::Comma, "`,` after the predicate")?;
        let (lhs, ls) = self.value_use()?;
        self.expect(Tok::Comma, "`,` between the operands")?;
        let (rhs, rs) = self.value_use()?;
        self.expect(Tok::Colon, "`:` before the operand type")?;
        let (s, _) = self.scalar_type()?;
        let ty = Type::Scalar(s);
        self.check_type(lhs, ls, &ty);
        self.check_type(rhs, rs, &ty);
        let bad_pred = |names: &[&str]| {
            Diagnostic::new(
                DiagKind::BadAttribute,
                format!("unknown predicate `{pred}`"),
                ps,
            )
            .with_help(format!("one of: {}", names.join(", ")))
        };
        let kind = if code == OpCode::CmpI {
            let p =
                CmpIPredicate::from_name(&pred).ok_or_else(|| bad_pred(CmpIPredicate::NAMES))?;
            let result = self.one_result(results, i1, code, span, None)?;
            OpKind::CmpI {
                pred: p,
                result,
                lhs,
                rhs,
            }
        } else {
            let p =
                CmpFPredicate::from_name(&pred).ok_or_else(|| bad_pred(CmpFPredicate::NAMES))?;
            let result = self.one_result(results, i1, code, span, None)?;
            OpKind::CmpF {
                pred: p,
                result,
                lhs,
                rhs,
            }
        };
        Ok(kind)
    }

    fn op_runtime(&mut self, code: OpCode, results: &[ResultName], span: Span) -> PResult<OpKind> {
        let i64t = Type::Scalar(ScalarType::I64);
        if self.eat(Tok::Colon) {
            let (s, sp) = self.scalar_type()?;
            if s != ScalarType::I64 {
                self.err(Diagnostic::new(
                    DiagKind::TypeMismatch,
                    format!("type mismatch: `{}` returns `i64`, not `{s}`", code.name()),
                    sp,
                ));
            }
        }
        let query = match code {
            OpCode::GetBlockIdx => RuntimeQuery::BlockIdx,
            OpCode::GetBlockNum => RuntimeQuery::BlockNum,
            OpCode::GetSubblockIdx => RuntimeQuery::SubblockIdx,
            _ => RuntimeQuery::SubblockNum,
        };
        let result = self.one_result(results, i64t, code, span, None)?;
        Ok(OpKind::Runtime { query, result })
    }

    fn op_sync(&mut self, code: OpCode, span: Span) -> PResult<OpKind> {
        let mut args = Vec::new();
        let mut end = span;
        if self.eat(Tok::LBracket) {
            if !self.at(Tok::RBracket) {
                loop {
                    args.push(self.sync_arg()?);
                    if !self.eat(Tok::Comma) {
                        break;
                    }
                }
            }
            end = self
                .expect(Tok::RBracket, "`]` or `,` in the sync arguments")?
                .span;
        } else if matches!(self.tok.kind, Tok::HashId | Tok::Less) {
            loop {
                args.push(self.sync_arg()?);
                end = Span::new(self.prev_end, self.prev_end);
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
        }
        let want = match code {
            OpCode::RecordEvent | OpCode::WaitEvent | OpCode::SetFlag | OpCode::WaitFlag => 3,
            OpCode::SyncSet | OpCode::SyncWait => 2,
            _ => 1,
        };
        if args.len() != want {
            return Err(Diagnostic::new(
                DiagKind::BadOperands,
                format!(
                    "`{}` takes {want} argument(s), found {}",
                    code.name(),
                    args.len()
                ),
                span.to(end),
            )
            .with_label("wrong number of arguments"));
        }
        // Trailing attributes (`pto.sync.set <PIPE_MTE3>, 3 {ffts_mode = 0 : i32}`).
        if self.at(Tok::LBrace) {
            self.attr_dict()?;
        }
        self.f.syncs.push((code, args.clone(), span));
        Ok(OpKind::Sync(SyncOp { op: code, args }))
    }

    fn sync_arg(&mut self) -> PResult<String> {
        let start = self.tok.span;
        // A dynamic event id (`pto.sync.set <PIPE_MTE3>, %id`): an integer value.
        if self.at(Tok::ValueId) {
            let (v, span) = self.value_use()?;
            if !self
                .ty_of(v)
                .as_scalar()
                .is_some_and(|t| t.is_integer_like())
            {
                let ty = self.ty_of(v).to_string();
                self.err(
                    Diagnostic::new(
                        DiagKind::TypeMismatch,
                        format!("a dynamic event id must be an integer or index, not `{ty}`"),
                        span,
                    )
                    .with_label("this event id"),
                );
            }
            return Ok(match self.const_of(v) {
                Some(c) => format!("EVENT_ID{c}"),
                None => self.value_name(v),
            });
        }
        match self.parse_attr()? {
            Attr::Opaque { body, .. } => Ok(body),
            Attr::Int(v) => Ok(v.to_string()),
            Attr::Keyword(k) => Ok(k),
            _ => Err(Diagnostic::new(
                DiagKind::BadAttribute,
                "expected a pipe, event kind or event id such as `#pto.pipe<PIPE_V>` or `<EVENT_ID0>`",
                start.to(Span::new(start.start, self.prev_end)),
            )),
        }
    }

    fn bracket_values(&mut self, what: &str) -> PResult<(Vec<(ValueId, Span)>, Span)> {
        let open = self.expect(Tok::LBracket, &format!("`[` to open the {what} list"))?;
        let mut out = Vec::new();
        if !self.at(Tok::RBracket) {
            loop {
                out.push(self.value_use()?);
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
        }
        let close = self.expect(Tok::RBracket, &format!("`]` or `,` in the {what} list"))?;
        Ok((out, open.span.to(close.span)))
    }

    fn keyword_eq(&mut self, kw: &str) -> PResult<()> {
        self.expect_kw(kw)?;
        self.expect(Tok::Equal, &format!("`=` after `{kw}`"))?;
        Ok(())
    }

    fn check_index(&mut self, vals: &[(ValueId, Span)]) {
        let index = Type::Scalar(ScalarType::Index);
        for &(v, s) in vals {
            self.check_type(v, s, &index);
        }
    }

    fn op_make_tensor_view(&mut self, results: &[ResultName], span: Span) -> PResult<OpKind> {
        let (ptr, ps) = self.value_use()?;
        self.expect(Tok::Comma, "`,` after the pointer")?;
        self.keyword_eq("shape")?;
        let (shape, shape_span) = self.bracket_values("shape")?;
        self.expect(Tok::Comma, "`,` before `strides`")?;
        self.keyword_eq("strides")?;
        let (strides, stride_span) = self.bracket_values("strides")?;
        let mut layout = None;
        if self.at(Tok::LBrace) {
            for (k, a, s) in self.attr_dict()? {
                if k == "layout" {
                    layout = Some(self.layout_attr(&a, s)?);
                }
            }
        }
        self.expect(Tok::Colon, "`:` before the result type")?;
        let tstart = self.tok.span;
        let ty = self.parse_type()?;
        let tspan = tstart.to(Span::new(tstart.start, self.prev_end));
        let Type::TensorView(view) = &ty else {
            return Err(Diagnostic::new(
                DiagKind::TypeMismatch,
                format!(
                    "type mismatch: `pto.make_tensor_view` produces a `!pto.tensor_view`, not `{ty}`"
                ),
                tspan,
            ));
        };
        match self.ty_of(ptr).clone() {
            Type::Ptr(p) if p.elem == view.elem => {}
            Type::Ptr(p) => self.err(
                Diagnostic::new(
                    DiagKind::TypeMismatch,
                    format!(
                        "type mismatch: pointer to `{}` used for a tensor view of `{}`",
                        p.elem, view.elem
                    ),
                    ps,
                )
                .with_label(format!("this points to `{}`", p.elem)),
            ),
            other => self.err(
                Diagnostic::new(
                    DiagKind::TypeMismatch,
                    format!(
                        "type mismatch: `pto.make_tensor_view` needs a `!pto.ptr`, found `{other}`"
                    ),
                    ps,
                )
                .with_label("not a pointer"),
            ),
        }
        let rank = view.shape.len();
        for (vals, sp, what) in [
            (&shape, shape_span, "shape"),
            (&strides, stride_span, "strides"),
        ] {
            if vals.len() != rank {
                self.err(
                    Diagnostic::new(
                        DiagKind::BadOperands,
                        format!(
                            "`{what}` has {} entries but the tensor view has rank {rank}",
                            vals.len()
                        ),
                        sp,
                    )
                    .with_label(format!("expected {rank} entries")),
                );
            }
        }
        self.check_index(&shape);
        self.check_index(&strides);
        let mut dims = Vec::new();
        for (i, d) in view.shape.iter().enumerate() {
            let c = shape.get(i).and_then(|(v, _)| self.const_of(*v));
            match (d, c) {
                (Dim::Static(n), Some(c)) if i64::try_from(*n).ok() != Some(c) => {
                    let s = shape.get(i).map_or(span, |x| x.1);
                    self.err(
                        Diagnostic::new(
                            DiagKind::TypeMismatch,
                            format!(
                                "type mismatch: shape[{i}] is {c} but the result type says {n}"
                            ),
                            s,
                        )
                        .with_label(format!("this is {c}")),
                    );
                }
                _ => {}
            }
            dims.push(d.as_static().and_then(|n| i64::try_from(n).ok()).or(c));
        }
        let result = self.one_result(results, ty.clone(), OpCode::MakeTensorView, span, None)?;
        self.f.view_dims.insert(result, dims);
        Ok(OpKind::MakeTensorView {
            result,
            ptr,
            shape: shape.iter().map(|x| x.0).collect(),
            strides: strides.iter().map(|x| x.0).collect(),
            layout,
        })
    }

    fn layout_attr(&self, a: &Attr, span: Span) -> PResult<GmLayout> {
        let text = match a {
            Attr::Opaque { body, .. } => body.as_str(),
            Attr::Keyword(k) => k.as_str(),
            Attr::Str(s) => s.as_str(),
            _ => "",
        };
        GmLayout::from_name(text).ok_or_else(|| {
            Diagnostic::new(
                DiagKind::BadAttribute,
                format!("unknown layout `{text}`"),
                span,
            )
            .with_help("one of: nd, dn, nz")
        })
    }

    fn op_partition_view(&mut self, results: &[ResultName], span: Span) -> PResult<OpKind> {
        let (source, ss) = self.value_use()?;
        self.expect(Tok::Comma, "`,` after the source view")?;
        self.keyword_eq("offsets")?;
        let (offsets, off_span) = self.bracket_values("offsets")?;
        self.expect(Tok::Comma, "`,` before `sizes`")?;
        self.keyword_eq("sizes")?;
        let (sizes, size_span) = self.bracket_values("sizes")?;
        if self.at(Tok::LBrace) {
            self.attr_dict()?;
        }
        self.expect(Tok::Colon, "`:` before the source type")?;
        let src_ty = self.parse_type()?;
        self.expect(Tok::Arrow, "`->` before the result type")?;
        let tstart = self.tok.span;
        let ty = self.parse_type()?;
        let tspan = tstart.to(Span::new(tstart.start, self.prev_end));
        self.check_type(source, ss, &src_ty);
        let Type::TensorView(sv) = &src_ty else {
            return Err(Diagnostic::new(
                DiagKind::TypeMismatch,
                format!(
                    "type mismatch: `pto.partition_view` slices a `!pto.tensor_view`, not `{src_ty}`"
                ),
                ss,
            ));
        };
        let Type::PartitionView(pv) = &ty else {
            return Err(Diagnostic::new(
                DiagKind::TypeMismatch,
                format!(
                    "type mismatch: `pto.partition_view` produces a `!pto.partition_tensor_view`, not `{ty}`"
                ),
                tspan,
            ));
        };
        if pv.elem != sv.elem {
            self.err(Diagnostic::new(
                DiagKind::TypeMismatch,
                format!(
                    "type mismatch: partition of `{}` from a tensor view of `{}`",
                    pv.elem, sv.elem
                ),
                tspan,
            ));
        }
        let rank = sv.shape.len();
        // A result of another rank than the view (`sizes = [%n]` giving `1xN`) is legal, as in
        // PTOAS's verifier; only a same-rank result is compared dimension by dimension.
        let same_rank = pv.shape.len() == rank;
        for (vals, sp, what) in [
            (&offsets, off_span, "offsets"),
            (&sizes, size_span, "sizes"),
        ] {
            if vals.len() != rank {
                self.err(
                    Diagnostic::new(
                        DiagKind::BadOperands,
                        format!(
                            "`{what}` has {} entries but the tensor view has rank {rank}",
                            vals.len()
                        ),
                        sp,
                    )
                    .with_label(format!("expected {rank} entries")),
                );
            }
        }
        self.check_index(&offsets);
        self.check_index(&sizes);
        let dims = self.f.view_dims.get(&source).cloned().unwrap_or_default();
        for i in 0..rank.min(offsets.len()).min(sizes.len()) {
            let size_c = self.const_of(sizes[i].0);
            let ty_dim = pv
                .shape
                .get(i)
                .filter(|_| same_rank)
                .and_then(|d| d.as_static());
            if let (Some(c), Some(n)) = (size_c, ty_dim)
                && i64::try_from(n).ok() != Some(c)
            {
                self.err(
                    Diagnostic::new(
                        DiagKind::TypeMismatch,
                        format!("type mismatch: sizes[{i}] is {c} but the result type says {n}"),
                        sizes[i].1,
                    )
                    .with_label(format!("this is {c}")),
                );
            }
            let size = size_c.or(ty_dim.and_then(|n| i64::try_from(n).ok()));
            let off = self.const_of(offsets[i].0);
            let extent = dims.get(i).copied().flatten();
            if let Some(o) = off
                && o < 0
            {
                self.err(
                    Diagnostic::new(
                        DiagKind::PartitionOutOfBounds,
                        format!("partition out of bounds: offsets[{i}] is negative ({o})"),
                        offsets[i].1,
                    )
                    .with_label("negative offset"),
                );
                continue;
            }
            if let (Some(o), Some(s), Some(e)) = (off, size, extent)
                && o.saturating_add(s) > e
            {
                self.err(
                        Diagnostic::new(
                            DiagKind::PartitionOutOfBounds,
                            format!(
                                "partition out of bounds: dim {i} covers [{o}, {}) but the tensor view has {e}",
                                o.saturating_add(s)
                            ),
                            offsets[i].1.to(sizes[i].1),
                        )
                        .with_label(format!("offset {o} + size {s} > {e}")),
                    );
            }
        }
        let result = self.one_result(results, ty.clone(), OpCode::PartitionView, span, None)?;
        Ok(OpKind::PartitionView {
            result,
            source,
            offsets: offsets.iter().map(|x| x.0).collect(),
            sizes: sizes.iter().map(|x| x.0).collect(),
        })
    }

    fn op_set_valid_shape(&mut self) -> PResult<OpKind> {
        let (tile, ts) = self.value_use()?;
        self.expect(Tok::Comma, "`,` after the tile")?;
        let (valid_row, rs) = self.value_use()?;
        self.expect(Tok::Comma, "`,` after the valid row count")?;
        let (valid_col, cs) = self.value_use()?;
        self.expect(Tok::Colon, "`:` before the tile type")?;
        let ty = self.parse_type()?;
        self.check_type(tile, ts, &ty);
        self.check_index(&[(valid_row, rs), (valid_col, cs)]);
        match ty.as_tile() {
            Some(t) if t.valid_row == Dim::Dynamic && t.valid_col == Dim::Dynamic => {}
            _ => self.err(
                Diagnostic::new(
                    DiagKind::TypeMismatch,
                    format!("type mismatch: `pto.set_validshape` needs a tile with `v_row=?, v_col=?`, found `{ty}`"),
                    ts,
                )
                .with_label("valid shape is not dynamic"),
            ),
        }
        Ok(OpKind::SetValidShape {
            tile,
            valid_row,
            valid_col,
        })
    }

    fn op_alloc_tile(&mut self, results: &[ResultName], span: Span) -> PResult<OpKind> {
        let mut addr = None;
        let mut valid_row = None;
        let mut valid_col = None;
        while self.at(Tok::Ident) {
            let kw = self.bump();
            let key = self.text(kw);
            self.expect(Tok::Equal, &format!("`=` after `{key}`"))?;
            let v = self.value_use()?;
            let slot = match key {
                "addr" => &mut addr,
                "valid_row" => &mut valid_row,
                "valid_col" => &mut valid_col,
                _ => {
                    return Err(Diagnostic::new(
                        DiagKind::Syntax,
                        format!("unknown `pto.alloc_tile` operand `{key}`"),
                        kw.span,
                    )
                    .with_help("expected `addr`, `valid_row` or `valid_col`"));
                }
            };
            if slot.is_some() {
                return Err(Diagnostic::new(
                    DiagKind::Syntax,
                    format!("`{key}` given twice"),
                    kw.span,
                ));
            }
            *slot = Some(v);
        }
        match (self.opts.pto_level, addr) {
            (Some(PtoLevel::Level3), None) => self.err(
                Diagnostic::new(
                    DiagKind::Rule,
                    "[level3-alloc-addr] `pto.alloc_tile` requires an `addr` operand when --pto-level=level3",
                    span,
                )
                .with_label("no `addr`")
                .with_help("level 3 does no memory planning: give each tile its address"),
            ),
            (Some(l @ (PtoLevel::Level1 | PtoLevel::Level2)), Some((_, s))) => self.err(
                Diagnostic::new(
                    DiagKind::Rule,
                    format!(
                        "[alloc-addr-level3] `pto.alloc_tile` with an `addr` operand is only supported when --pto-level=level3, not {}",
                        l.name()
                    ),
                    s,
                )
                .with_label("`addr` given")
                .with_help("drop `addr` (ptoas plans the memory), or check with --pto-level level3"),
            ),
            _ => {}
        }
        self.expect(Tok::Colon, "`:` before the tile type")?;
        let tstart = self.tok.span;
        let ty = self.parse_type()?;
        let tspan = tstart.to(Span::new(tstart.start, self.prev_end));
        let Type::TileBuf(tb) = ty.clone() else {
            return Err(Diagnostic::new(
                DiagKind::TypeMismatch,
                format!("type mismatch: `pto.alloc_tile` produces a `!pto.tile_buf`, not `{ty}`"),
                tspan,
            ));
        };
        let index = Type::Scalar(ScalarType::Index);
        for (v, dim, key) in [
            (valid_row, tb.valid_row, "valid_row"),
            (valid_col, tb.valid_col, "valid_col"),
        ] {
            match (v, dim) {
                (Some((id, s)), Dim::Dynamic) => self.check_type(id, s, &index),
                (Some((_, s)), Dim::Static(_)) => self.err(
                    Diagnostic::new(
                        DiagKind::BadOperands,
                        format!("`{key}` given but the tile type's valid size is static"),
                        s,
                    )
                    .with_help(format!(
                        "write `{}=?` in the type, or drop `{key}`",
                        short_key(key)
                    )),
                ),
                (None, Dim::Dynamic) => self.err(
                    Diagnostic::new(
                        DiagKind::BadOperands,
                        format!(
                            "the tile type has `{}=?` but no `{key}` operand",
                            short_key(key)
                        ),
                        tspan,
                    )
                    .with_help(format!("add `{key} = %n` before the `:`")),
                ),
                (None, Dim::Static(_)) => {}
            }
        }
        let size = tb.size_bytes();
        let cap = tb.loc.capacity(self.arch);
        let mem = format!(
            "`{}` memory on {} has {cap} bytes",
            tb.loc.name(),
            self.arch.name()
        );
        if let Some((a, s)) = addr {
            if !self
                .ty_of(a)
                .as_scalar()
                .is_some_and(|t| t.is_integer_like())
            {
                self.check_type(a, s, &Type::Scalar(ScalarType::I64));
            }
            if let Some(c) = self.const_of(a) {
                if c < 0 || c % 32 != 0 {
                    self.err(
                        Diagnostic::new(
                            DiagKind::TileDoesNotFit,
                            format!("tile address {c} is not 32-byte aligned"),
                            s,
                        )
                        .with_label("misaligned address")
                        .with_help("tile addresses must be non-negative multiples of 32"),
                    );
                } else if (c as u64).saturating_add(size) > cap {
                    self.err(
                        Diagnostic::new(
                            DiagKind::TileDoesNotFit,
                            format!(
                                "tile does not fit its memory: bytes [{c}, {}) exceed {cap}",
                                (c as u64).saturating_add(size)
                            ),
                            s.to(tspan),
                        )
                        .with_label(format!("this tile needs {size} bytes at address {c}"))
                        .with_help(mem.clone()),
                    );
                }
            }
        } else if size > cap {
            self.err(
                Diagnostic::new(
                    DiagKind::TileDoesNotFit,
                    format!("tile does not fit its memory: it needs {size} bytes"),
                    tspan,
                )
                .with_label(format!(
                    "{} x {} x {} bytes",
                    tb.rows,
                    tb.cols,
                    tb.dtype.bytes()
                ))
                .with_help(mem),
            );
        }
        let result = self.one_result(results, ty, OpCode::AllocTile, span, None)?;
        Ok(OpKind::AllocTile {
            result,
            addr: addr.map(|x| x.0),
            valid_row: valid_row.map(|x| x.0),
            valid_col: valid_col.map(|x| x.0),
        })
    }

    /// `ins(%a, %b [{attrs}] : T1, T2)` or `outs(...)`.
    fn dps_group(
        &mut self,
        kw: &str,
        attrs: &mut Vec<(String, Attr, Span)>,
    ) -> PResult<Vec<(ValueId, Span)>> {
        self.expect_kw(kw)?;
        self.expect(Tok::LParen, &format!("`(` after `{kw}`"))?;
        let mut vals = Vec::new();
        if self.at(Tok::RParen) {
            self.bump();
            return Ok(vals);
        }
        let mut types = Vec::new();
        // `ins(%a, %b : A, B)`; PTOAS also prints groups (`ins(%a : A, %s : i64)`) and an
        // attribute dictionary among the operands (`ins(%src, {maskPattern = ...} : A)`).
        'groups: loop {
            loop {
                if self.at(Tok::LBrace) {
                    attrs.extend(self.attr_dict()?);
                } else if self.at(Tok::Str) {
                    // `pto.print ins("x = %f", %v : f32)`: the format string.
                    let t = self.bump();
                    attrs.push((
                        "format".to_string(),
                        Attr::Str(unescape_string(self.text(t))),
                        t.span,
                    ));
                    if !self.eat(Tok::Comma) {
                        break;
                    }
                    continue;
                } else {
                    vals.push(self.value_use()?);
                }
                if self.at(Tok::LBrace) {
                    attrs.extend(self.attr_dict()?);
                }
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
            self.expect(
                Tok::Colon,
                &format!("`:` before the operand types of `{kw}`"),
            )?;
            loop {
                let start = self.tok.span;
                let t = self.parse_type()?;
                types.push((t, start.to(Span::new(start.start, self.prev_end))));
                if !self.eat(Tok::Comma) {
                    break 'groups;
                }
                if self.at(Tok::ValueId) || self.at(Tok::LBrace) {
                    continue 'groups;
                }
            }
        }
        let close = self.expect(Tok::RParen, &format!("`)` or `,` in `{kw}(...)`"))?;
        if types.len() != vals.len() {
            return Err(Diagnostic::new(
                DiagKind::BadOperands,
                format!(
                    "`{kw}` has {} operand(s) but {} type(s)",
                    vals.len(),
                    types.len()
                ),
                close.span,
            )
            .with_label("counts differ"));
        }
        for ((v, s), (t, _)) in vals.iter().zip(&types) {
            self.check_type(*v, *s, t);
        }
        Ok(vals)
    }

    fn op_dps(&mut self, code: OpCode, span: Span) -> PResult<OpKind> {
        let mut attr_list = Vec::new();
        let ins = self.dps_group("ins", &mut attr_list)?;
        let outs = if self.at_kw("outs") {
            self.dps_group("outs", &mut attr_list)?
        } else {
            Vec::new()
        };
        if self.at(Tok::LBrace) {
            attr_list.extend(self.attr_dict()?);
        }
        let end = Span::new(span.start, self.prev_end);
        self.finish_dps(code, end, ins, outs, attr_list)
    }

    /// The MLIR generic op form of a DPS tile op, `"pto.tmov"(%src, %dst, %pre)
    /// <{operandSegmentSizes = array<i32: 1, 1, 0, 1>, reluPreMode = ...}> {attrs} : (A, B,
    /// i64) -> ()`: the operands are split into the op's ODS segments
    /// ([`crate::ops::generic_segments`]; `operandSegmentSizes` when the op has more than one
    /// optional or variadic segment), each segment is put where the custom form puts it
    /// (`ins` or `outs`), and the op is then verified exactly as its custom form is. The
    /// generic form of an op whose segments are not known is a `[generic-form]` error naming
    /// the op.
    fn op_generic(&mut self, name_tok: Token, results: &[ResultName]) -> PResult<OpKind> {
        use crate::ops::{SegmentArity, SegmentRole, generic_segments};
        let span = name_tok.span;
        let name = unescape_string(self.text(name_tok));
        let Some(code) = OpCode::from_name(&name) else {
            let mut d = Diagnostic::new(DiagKind::UnknownOp, format!("unknown op `{name}`"), span)
                .with_label("not a known PTO-AS op");
            if let Some(s) = suggest(&name) {
                d = d.with_help(format!("did you mean `{s}`?"));
            }
            return Err(d);
        };
        let segments =
            generic_segments(&name).filter(|_| code.is_dps() || code.class() == OpClass::Opaque);
        let Some(segments) = segments else {
            return Err(Diagnostic::new(
                DiagKind::Rule,
                format!(
                    "[generic-form] the generic form of `{name}` is not supported: npusim does not know its operand segments"
                ),
                span,
            )
            .with_label("generic op form")
            .with_help(format!("write `{name}` in its custom form")));
        };
        self.no_results(results, code, span)?;
        // Operands.
        self.expect(Tok::LParen, "`(` after the op name")?;
        let mut vals = Vec::new();
        if !self.eat(Tok::RParen) {
            loop {
                vals.push(self.value_use()?);
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
            self.expect(Tok::RParen, "`)` or `,` in the operand list")?;
        }
        // Properties `<{...}>` and the attribute dictionary `{...}`.
        let mut attr_list = Vec::new();
        if self.at(Tok::Less) {
            self.bump();
            attr_list.extend(self.attr_dict()?);
            self.expect(Tok::Greater, "`>` after the properties `<{...}`")?;
        }
        if self.at(Tok::LBrace) {
            attr_list.extend(self.attr_dict()?);
        }
        // `: (A, B, C) -> ()`.
        self.expect(Tok::Colon, "`:` before the generic op's function type")?;
        let open = self.expect(Tok::LParen, "`(` to open the operand types")?;
        let mut types = Vec::new();
        if !self.eat(Tok::RParen) {
            loop {
                types.push(self.parse_type()?);
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
            self.expect(Tok::RParen, "`)` or `,` in the operand types")?;
        }
        self.expect(Tok::Arrow, "`->` before the result types")?;
        let res_open = self.expect(Tok::LParen, "`()`: a DPS op has no results")?;
        if !self.at(Tok::RParen) {
            return Err(Diagnostic::new(
                DiagKind::Structure,
                format!("`{name}` in DPS form produces no results"),
                res_open.span,
            )
            .with_label("expected `()`"));
        }
        self.bump();
        let end = Span::new(span.start, self.prev_end);
        if types.len() != vals.len() {
            return Err(Diagnostic::new(
                DiagKind::BadOperands,
                format!(
                    "`{name}` has {} operand(s) but {} type(s)",
                    vals.len(),
                    types.len()
                ),
                open.span.to(Span::new(open.span.start, self.prev_end)),
            )
            .with_label("counts differ"));
        }
        for ((v, s), t) in vals.iter().zip(&types) {
            self.check_type(*v, *s, t);
        }
        // Segment sizes: the property, else inferred when at most one segment varies.
        let sizes_at = attr_list
            .iter()
            .position(|(k, _, _)| k == "operandSegmentSizes" || k == "operand_segment_sizes");
        let sizes: Vec<usize> = match sizes_at {
            Some(at) => {
                let (_, a, s) = attr_list.remove(at);
                let body = match &a {
                    Attr::Opaque { dialect, body } if dialect == "array" => body.clone(),
                    _ => String::new(),
                };
                let list = body
                    .split_once(':')
                    .map(|(_, l)| l)
                    .unwrap_or("")
                    .split(',')
                    .map(|n| n.trim().parse::<u32>().ok().map(|n| n as usize))
                    .collect::<Option<Vec<usize>>>();
                match list {
                    Some(l) if body.trim_start().starts_with("i32") && !l.is_empty() => l,
                    _ => {
                        return Err(Diagnostic::new(
                            DiagKind::BadAttribute,
                            "`operandSegmentSizes` must be `array<i32: N, ...>`",
                            s,
                        )
                        .with_label("in this attribute"));
                    }
                }
            }
            None => {
                let fixed = segments
                    .iter()
                    .filter(|g| g.arity == SegmentArity::One)
                    .count();
                let varying: Vec<usize> = (0..segments.len())
                    .filter(|&i| segments[i].arity != SegmentArity::One)
                    .collect();
                if varying.len() > 1 {
                    return Err(Diagnostic::new(
                        DiagKind::Rule,
                        format!(
                            "[generic-segments] `{name}` has {} optional operand groups: its generic form needs `operandSegmentSizes`",
                            varying.len()
                        ),
                        end,
                    )
                    .with_label("no `operandSegmentSizes` property"));
                }
                let rest = vals.len().saturating_sub(fixed);
                segments
                    .iter()
                    .map(|g| {
                        if g.arity == SegmentArity::One {
                            1
                        } else {
                            rest
                        }
                    })
                    .collect()
            }
        };
        let seg_words = || {
            segments
                .iter()
                .map(|g| match g.arity {
                    SegmentArity::One => g.name.to_string(),
                    SegmentArity::Optional => format!("{}?", g.name),
                    SegmentArity::Variadic => format!("{}*", g.name),
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        if sizes.len() != segments.len() {
            return Err(Diagnostic::new(
                DiagKind::Rule,
                format!(
                    "[generic-segments] `{name}` has {} operand segments ({}), not {}",
                    segments.len(),
                    seg_words(),
                    sizes.len()
                ),
                end,
            )
            .with_label("segment sizes"));
        }
        let total: usize = sizes.iter().sum();
        if total != vals.len() {
            return Err(Diagnostic::new(
                DiagKind::Rule,
                format!(
                    "[generic-segments] the segment sizes of `{name}` add up to {total}, but it has {} operand(s)",
                    vals.len()
                ),
                end,
            )
            .with_label("segment sizes"));
        }
        let mut ins: Vec<(usize, (ValueId, Span))> = Vec::new();
        let mut outs: Vec<(usize, (ValueId, Span))> = Vec::new();
        let mut k = 0;
        for (g, &n) in segments.iter().zip(&sizes) {
            let ok = match g.arity {
                SegmentArity::One => n == 1,
                SegmentArity::Optional => n <= 1,
                SegmentArity::Variadic => true,
            };
            if !ok || (g.role == SegmentRole::Keyword && n > 0) {
                return Err(Diagnostic::new(
                    DiagKind::Rule,
                    format!(
                        "[generic-segments] `{name}` operand segment `{}` cannot hold {n} operand(s) here (segments: {})",
                        g.name,
                        seg_words()
                    ),
                    end,
                )
                .with_label("segment sizes"));
            }
            let seg = &vals[k..k + n];
            k += n;
            match g.role {
                SegmentRole::Ins(at) => ins.extend(seg.iter().map(|&v| (at, v))),
                SegmentRole::Outs(at) => outs.extend(seg.iter().map(|&v| (at, v))),
                SegmentRole::Keyword => {}
            }
        }
        // Stable: a variadic segment keeps its order.
        ins.sort_by_key(|x| x.0);
        outs.sort_by_key(|x| x.0);
        let ins: Vec<(ValueId, Span)> = ins.into_iter().map(|x| x.1).collect();
        let outs: Vec<(ValueId, Span)> = outs.into_iter().map(|x| x.1).collect();
        if code.class() == OpClass::Opaque {
            // Parsed, not executed (as its custom `ins(...) outs(...)` form in `op_opaque`).
            let operands: Vec<ValueId> = ins.iter().chain(&outs).map(|x| x.0).collect();
            self.opaque_rules(code, &operands, &[], &attr_list, end);
            return Ok(OpKind::Opaque {
                op: code,
                operands,
                results: Vec::new(),
                attrs: attr_list.into_iter().map(|(k, a, _)| (k, a)).collect(),
            });
        }
        self.finish_dps(code, end, ins, outs, attr_list)
    }

    /// Verifies a DPS tile op (operand forms, element types, window rules) and builds it.
    fn finish_dps(
        &mut self,
        code: OpCode,
        end: Span,
        ins: Vec<(ValueId, Span)>,
        outs: Vec<(ValueId, Span)>,
        attr_list: Vec<(String, Attr, Span)>,
    ) -> PResult<OpKind> {
        let form = |p: &Self, vals: &[(ValueId, Span)]| -> String {
            vals.iter().map(|(v, _)| kind_letter(p.ty_of(*v))).collect()
        };
        let ins_form = form(self, &ins);
        let outs_form = form(self, &outs);
        if !code.ins_forms().contains(&ins_form.as_str()) {
            let accepted: Vec<String> = code.ins_forms().iter().map(|f| form_words(f)).collect();
            self.err(
                Diagnostic::new(
                    DiagKind::BadOperands,
                    format!(
                        "`{}` expects ins {} but found {}",
                        code.name(),
                        accepted.join(" or "),
                        form_words(&ins_form)
                    ),
                    end,
                )
                .with_label("operand kinds do not match"),
            );
        } else if !code.outs_forms().contains(&outs_form.as_str()) {
            let accepted: Vec<String> = code.outs_forms().iter().map(|f| form_words(f)).collect();
            self.err(
                Diagnostic::new(
                    DiagKind::BadOperands,
                    format!(
                        "`{}` expects outs {} but found {}",
                        code.name(),
                        accepted.join(" or "),
                        form_words(&outs_form)
                    ),
                    end,
                )
                .with_label("operand kinds do not match"),
            );
        } else {
            self.check_dtypes(code, &ins, &outs);
            self.check_window_rules(code, &ins, &outs);
        }
        let mut attrs = TileAttrs::default();
        for (k, a, s) in attr_list {
            match k.as_str() {
                "cmpMode" | "cmp_mode" => {
                    attrs.cmp =
                        Some(self.enum_attr(&a, s, "cmp", CmpMode::from_name, CmpMode::NAMES)?)
                }
                "rmode" | "round_mode" => {
                    attrs.rmode = Some(self.enum_attr(
                        &a,
                        s,
                        "round_mode",
                        RoundMode::from_name,
                        RoundMode::NAMES,
                    )?)
                }
                _ => attrs.other.push((k, a)),
            }
        }
        Ok(OpKind::Tile {
            op: code,
            ins: ins.iter().map(|x| x.0).collect(),
            outs: outs.iter().map(|x| x.0).collect(),
            attrs,
        })
    }

    fn enum_attr<T>(
        &self,
        a: &Attr,
        span: Span,
        tag: &str,
        parse: fn(&str) -> Option<T>,
        names: &[&str],
    ) -> PResult<T> {
        let text = match a {
            Attr::Opaque { body, .. } => body.strip_prefix(tag).unwrap_or(body).trim().to_string(),
            Attr::Keyword(k) | Attr::Str(k) => k.clone(),
            _ => String::new(),
        };
        parse(&text).ok_or_else(|| {
            Diagnostic::new(
                DiagKind::BadAttribute,
                format!("unknown {tag} `{text}`"),
                span,
            )
            .with_label("in this attribute")
            .with_help(format!("one of: {}", names.join(", ")))
        })
    }

    /// PTOAS's `pto.tinsert` verifier (both archs) and the A5 loc-pair and vec->vec layout
    /// rules of `pto.textract` (PTOAS `lib/PTO/IR/PTO.cpp`, `TInsertOp::verify`,
    /// `TExtractOp::verify`), as `[tinsert-*]` / `[textract-*]` rule errors.
    fn check_window_rules(
        &mut self,
        code: OpCode,
        ins: &[(ValueId, Span)],
        outs: &[(ValueId, Span)],
    ) {
        if code != OpCode::TInsert && code != OpCode::TExtract {
            return;
        }
        let (Some(a), Some(b)) = (ins.first(), outs.first()) else {
            return;
        };
        let (Some(src), Some(dst)) = (
            self.ty_of(a.0).as_tile().copied(),
            self.ty_of(b.0).as_tile().copied(),
        ) else {
            return;
        };
        let nd = |t: &TileBufType| t.blayout == BLayout::RowMajor && t.slayout == SLayout::NoneBox;
        // A `memref<..., #pto.address_space<acc|mat>>` operand carries no layout (it parses
        // as the default row_major/none_box): its layout is not checked.
        let nz = |t: &TileBufType| {
            (t.blayout != BLayout::RowMajor && t.slayout == SLayout::RowMajor)
                || (nd(t) && matches!(t.loc, Loc::Acc | Loc::Mat))
        };
        let a5_vec_type = |d: DType| {
            matches!(
                d,
                DType::I8
                    | DType::U8
                    | DType::I32
                    | DType::U32
                    | DType::F16
                    | DType::Bf16
                    | DType::F32
            ) || d.is_f8()
        };
        let a5 = self.arch == TargetArch::A5;
        let msg: Option<String> = if code == OpCode::TInsert {
            match (a5, src.loc, dst.loc) {
                (false, Loc::Acc, Loc::Mat) => {
                    if !nz(&src) || !nz(&dst) {
                        Some("[tinsert-nz-layout] A2/A3 `pto.tinsert` expects src and dst to use blayout=col_major and slayout=row_major".into())
                    } else if dst.fractal != 512 {
                        Some(format!(
                            "[tinsert-fractal] A2/A3 `pto.tinsert` expects a dst fractal size of 512, not {}",
                            dst.fractal
                        ))
                    } else if !(src.dtype == DType::F32
                        && matches!(dst.dtype, DType::F16 | DType::Bf16))
                    {
                        Some(format!(
                            "[tinsert-a2a3-dtype] A2/A3 `pto.tinsert` expects element types src=f32, dst=f16/bf16, not src={}, dst={}",
                            src.dtype, dst.dtype
                        ))
                    } else {
                        None
                    }
                }
                (false, s, d) => Some(format!(
                    "[tinsert-a2a3-loc] A2/A3 `pto.tinsert` expects src loc=acc and dst loc=mat, not {s:?} -> {d:?}"
                )),
                (true, Loc::Acc, Loc::Mat) => {
                    let ok = (src.dtype == DType::F32
                        && matches!(dst.dtype, DType::F16 | DType::Bf16 | DType::F32))
                        || (src.dtype == DType::I32 && dst.dtype == DType::I32);
                    if !nz(&src) || !nz(&dst) {
                        Some("[tinsert-nz-layout] A5 acc->mat `pto.tinsert` expects src and dst to use blayout=col_major and slayout=row_major".into())
                    } else if !ok {
                        Some(format!(
                            "[tinsert-a5-dtype] A5 acc->mat `pto.tinsert` expects (src=f32, dst=f16/bf16/f32) or (src=i32, dst=i32), not src={}, dst={}",
                            src.dtype, dst.dtype
                        ))
                    } else {
                        None
                    }
                }
                (true, Loc::Vec, Loc::Mat | Loc::Vec) => {
                    let to_mat = dst.loc == Loc::Mat;
                    if to_mat && !nz(&dst) {
                        Some("[tinsert-nz-layout] A5 vec->mat `pto.tinsert` expects dst to use blayout=col_major and slayout=row_major".into())
                    } else if to_mat && !nd(&src) && !nz(&src) {
                        Some("[tinsert-vec-layout] A5 vec->mat `pto.tinsert` expects src in ND (row_major/none_box) or NZ (col_major/row_major) layout".into())
                    } else if !to_mat && (!nd(&src) || !nd(&dst)) {
                        Some("[tinsert-vec-layout] A5 vec->vec `pto.tinsert` expects src and dst in ND layout (blayout=row_major, slayout=none_box)".into())
                    } else if src.dtype != dst.dtype || !a5_vec_type(src.dtype) {
                        Some(format!(
                            "[tinsert-a5-dtype] A5 vec->{} `pto.tinsert` expects one element type of fp8/f16/bf16/f32/i8/i32, not src={}, dst={}",
                            if to_mat { "mat" } else { "vec" },
                            src.dtype,
                            dst.dtype
                        ))
                    } else {
                        None
                    }
                }
                (true, s, d) => Some(format!(
                    "[tinsert-a5-loc] A5 `pto.tinsert` expects a supported src/dst loc pair (acc->mat, vec->mat or vec->vec), not {s:?} -> {d:?}"
                )),
            }
        } else if a5 {
            let ok = matches!(
                (src.loc, dst.loc),
                (Loc::Mat, Loc::Left | Loc::Right | Loc::Scaling) | (Loc::Vec, Loc::Mat | Loc::Vec)
            );
            if !ok {
                Some(format!(
                    "[textract-a5-loc] A5 `pto.textract` expects a supported src/dst loc pair (mat->left/right/scaling, vec->mat or vec->vec), not {:?} -> {:?}",
                    src.loc, dst.loc
                ))
            } else if src.loc == Loc::Vec && dst.loc == Loc::Vec && (!nd(&src) || !nd(&dst)) {
                Some("[textract-vec-layout] A5 vec->vec `pto.textract` expects src and dst in ND layout (blayout=row_major, slayout=none_box)".into())
            } else {
                None
            }
        } else {
            None
        };
        if let Some(m) = msg {
            self.err(Diagnostic::new(DiagKind::Rule, m, a.1.to(b.1)));
        }
    }

    fn check_dtypes(&mut self, code: OpCode, ins: &[(ValueId, Span)], outs: &[(ValueId, Span)]) {
        let tile_dtype = |p: &Self, v: ValueId| p.ty_of(v).as_tile().map(|t| t.dtype);
        match code.class() {
            OpClass::Memory => {
                let (Some(a), Some(b)) = (ins.first(), outs.first()) else {
                    return;
                };
                let elem = |p: &Self, v: ValueId| match p.ty_of(v) {
                    Type::TileBuf(t) => Some(t.dtype),
                    Type::PartitionView(pv) | Type::GmMemRef(pv) => Some(pv.elem),
                    _ => None,
                };
                // A store from `acc` goes through the fixpipe, which converts (i32 -> f16, ...).
                let from_acc = self.ty_of(a.0).as_tile().is_some_and(|t| t.loc == Loc::Acc);
                if let (Some(x), Some(y)) = (elem(self, a.0), elem(self, b.0))
                    && x.bits() != y.bits()
                    && !from_acc
                {
                    self.err(
                            Diagnostic::new(
                                DiagKind::TypeMismatch,
                                format!(
                                    "type mismatch: `{}` moves `{x}` elements into `{y}` elements of a different width",
                                    code.name()
                                ),
                                a.1.to(b.1),
                            )
                            .with_label("element widths differ"),
                        );
                }
            }
            // PTOAS's `pto.tcvt` verifier: same shape and same valid shape.
            OpClass::Cvt => {
                let (Some(a), Some(b)) = (ins.first(), outs.first()) else {
                    return;
                };
                let (Some(x), Some(y)) = (
                    self.ty_of(a.0).as_tile().copied(),
                    self.ty_of(b.0).as_tile().copied(),
                ) else {
                    return;
                };
                let msg = if (x.rows, x.cols) != (y.rows, y.cols) {
                    Some(format!(
                        "[cvt-shape] `pto.tcvt` expects src and dst to have compatible shapes: src is {}x{}, dst is {}x{}",
                        x.rows, x.cols, y.rows, y.cols
                    ))
                } else if [(x.valid_row, y.valid_row), (x.valid_col, y.valid_col)]
                    .iter()
                    .any(|(a, b)| matches!((a, b), (Dim::Static(p), Dim::Static(q)) if p != q))
                {
                    Some(
                        "[cvt-valid-shape] `pto.tcvt` expects src and dst to have the same valid_shape"
                            .to_string(),
                    )
                } else {
                    None
                };
                if let Some(m) = msg {
                    self.err(Diagnostic::new(DiagKind::Rule, m, a.1.to(b.1)));
                }
            }
            OpClass::Binary
            | OpClass::Ternary
            | OpClass::Unary
            | OpClass::TileScalar
            | OpClass::Partial
            | OpClass::Reduce
            | OpClass::Expand
            | OpClass::Cmp
            | OpClass::Select
                // `taxpy` accumulates a narrower source into a wider destination.
                if code != OpCode::TAxpy =>
            {
                // Reference operand: the destination, or for compares the first source.
                let (reference, checked): (&(ValueId, Span), Vec<&(ValueId, Span)>) =
                    match code.class() {
                        OpClass::Cmp => match ins.first() {
                            Some(r) => (r, ins.iter().skip(1).collect()),
                            None => return,
                        },
                        OpClass::Select => match outs.first() {
                            Some(r) => (r, ins.iter().skip(1).collect()),
                            None => return,
                        },
                        // `tprelu`'s tmp is its comparison mask (`ui8` on A2A3, unused on
                        // A5; TPRELU page, Temporary Space), not a data operand.
                        _ if code == OpCode::TPrelu && ins.len() == 3 => match outs.first() {
                            Some(r) => {
                                let tmp = ins[2];
                                if self.arch == TargetArch::A2A3
                                    && let Some(got) = tile_dtype(self, tmp.0)
                                    && got != DType::U8
                                {
                                    self.err(
                                        Diagnostic::new(
                                            DiagKind::Rule,
                                            format!(
                                                "`pto.tprelu` on a2a3 needs a `ui8` tmp tile (its comparison mask), but `{}` is `{got}`",
                                                self.value_name(tmp.0)
                                            ),
                                            tmp.1,
                                        )
                                        .with_label(format!("this tile is `{got}`")),
                                    );
                                }
                                (r, ins.iter().take(2).collect())
                            }
                            None => return,
                        },
                        _ => match outs.first() {
                            Some(r) => (r, ins.iter().collect()),
                            None => return,
                        },
                    };
                let Some(want) = tile_dtype(self, reference.0) else {
                    return;
                };
                for &&(v, s) in &checked {
                    if let Some(got) = tile_dtype(self, v)
                        && got != want
                    {
                        let name = self.value_name(v);
                        let rname = self.value_name(reference.0);
                        self.err(
                                Diagnostic::new(
                                    DiagKind::TypeMismatch,
                                    format!(
                                        "type mismatch: `{}` needs one element type, but `{name}` is `{got}` and `{rname}` is `{want}`",
                                        code.name()
                                    ),
                                    s,
                                )
                                .with_label(format!("this tile is `{got}`")),
                            );
                    }
                }
            }
            _ => {}
        }
    }

    fn op_control(&mut self, code: OpCode, results: &[ResultName], span: Span) -> PResult<OpKind> {
        match code {
            OpCode::ScfFor => self.op_for(results, span),
            OpCode::ScfIf => self.op_if(results, span),
            OpCode::ScfWhile => self.op_while(results, span),
            OpCode::ScfYield => {
                self.no_results(results, code, span)?;
                let values = self.value_list_with_types()?;
                Ok(OpKind::Yield { values })
            }
            OpCode::ScfCondition => {
                self.no_results(results, code, span)?;
                self.expect(Tok::LParen, "`(` before the condition")?;
                let (cond, cs) = self.value_use()?;
                self.expect(Tok::RParen, "`)` after the condition")?;
                self.check_type(cond, cs, &Type::Scalar(ScalarType::I1));
                let values = self.value_list_with_types()?;
                Ok(OpKind::Condition { cond, values })
            }
            OpCode::Return | OpCode::FuncReturn => {
                self.no_results(results, code, span)?;
                let start = self.tok.span;
                let values = self.value_list_with_types()?;
                let got: Vec<Type> = values.iter().map(|v| self.ty_of(*v).clone()).collect();
                if got != self.f.results {
                    let want: Vec<String> = self.f.results.iter().map(|t| t.to_string()).collect();
                    let have: Vec<String> = got.iter().map(|t| t.to_string()).collect();
                    self.err(
                        Diagnostic::new(
                            DiagKind::TypeMismatch,
                            format!(
                                "type mismatch: the function returns ({}) but `return` gives ({})",
                                want.join(", "),
                                have.join(", ")
                            ),
                            span.to(Span::new(start.start, self.prev_end.max(start.start))),
                        )
                        .with_label("wrong return values"),
                    );
                }
                Ok(OpKind::Return { values })
            }
            OpCode::FuncCall | OpCode::Call => self.op_call(results, span),
            _ => Err(Diagnostic::new(
                DiagKind::Structure,
                format!("`{}` cannot appear here", code.name()),
                span,
            )
            .with_label("only allowed at module level")),
        }
    }

    /// `[%a, %b : T, U]` as used by `scf.yield`, `scf.condition` and `return`: values and
    /// their types, checked against each other. The list ends at the end of the line's op.
    fn value_list_with_types(&mut self) -> PResult<Vec<ValueId>> {
        let mut vals = Vec::new();
        if !self.at(Tok::ValueId) {
            return Ok(Vec::new());
        }
        loop {
            vals.push(self.value_use()?);
            if !self.eat(Tok::Comma) {
                break;
            }
        }
        self.expect(Tok::Colon, "`:` before the value types")?;
        let mut types = Vec::new();
        loop {
            types.push(self.parse_type()?);
            if types.len() >= vals.len() || !self.eat(Tok::Comma) {
                break;
            }
        }
        if types.len() != vals.len() {
            return Err(Diagnostic::new(
                DiagKind::BadOperands,
                format!("{} value(s) but {} type(s)", vals.len(), types.len()),
                Span::new(self.prev_end, self.prev_end),
            ));
        }
        for ((v, s), t) in vals.iter().zip(&types) {
            self.check_type(*v, *s, t);
        }
        Ok(vals.into_iter().map(|x| x.0).collect())
    }

    fn result_type_list(&mut self) -> PResult<Vec<Type>> {
        if self.eat(Tok::LParen) {
            let mut out = Vec::new();
            if self.eat(Tok::RParen) {
                return Ok(out);
            }
            loop {
                out.push(self.parse_type()?);
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
            self.expect(Tok::RParen, "`)` or `,` in the type list")?;
            Ok(out)
        } else {
            Ok(vec![self.parse_type()?])
        }
    }

    fn yield_types_check(&mut self, block: &Block, want: &[Type], what: &str, at: Span) {
        let Some(last) = block.ops.last() else { return };
        let values = match &last.kind {
            OpKind::Yield { values } | OpKind::Condition { values, .. } => values.clone(),
            _ => return,
        };
        let got: Vec<Type> = values.iter().map(|v| self.ty_of(*v).clone()).collect();
        if got != want {
            let w: Vec<String> = want.iter().map(|t| t.to_string()).collect();
            let g: Vec<String> = got.iter().map(|t| t.to_string()).collect();
            self.err(
                Diagnostic::new(
                    DiagKind::TypeMismatch,
                    format!(
                        "type mismatch: {what} must yield ({}) but yields ({})",
                        w.join(", "),
                        g.join(", ")
                    ),
                    if last.span.is_empty() { at } else { last.span },
                )
                .with_label("wrong values"),
            );
        }
    }

    fn op_for(&mut self, results: &[ResultName], span: Span) -> PResult<OpKind> {
        let iv_tok = self.expect(Tok::ValueId, "the induction variable `%i`")?;
        self.expect(Tok::Equal, "`=` after the induction variable")?;
        let (lower, ls) = self.value_use()?;
        self.expect_kw("to")?;
        let (upper, us) = self.value_use()?;
        self.expect_kw("step")?;
        let (step, ss) = self.value_use()?;
        let mut iter = Vec::new();
        let mut inits = Vec::new();
        let mut iter_types = Vec::new();
        if self.eat_kw("iter_args") {
            self.expect(Tok::LParen, "`(` after `iter_args`")?;
            loop {
                let t = self.expect(Tok::ValueId, "an iter_arg `%name`")?;
                self.expect(Tok::Equal, "`=` after the iter_arg name")?;
                let init = self.value_use()?;
                iter.push((self.text(t)[1..].to_string(), t.span));
                inits.push(init);
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
            self.expect(Tok::RParen, "`)` or `,` in `iter_args`")?;
            self.expect(Tok::Arrow, "`->` before the loop result types")?;
            iter_types = self.result_type_list()?;
            if iter_types.len() != iter.len() {
                return Err(Diagnostic::new(
                    DiagKind::BadOperands,
                    format!(
                        "{} iter_args but {} result type(s)",
                        iter.len(),
                        iter_types.len()
                    ),
                    span,
                ));
            }
            for ((v, s), t) in inits.iter().zip(&iter_types) {
                self.check_type(*v, *s, t);
            }
        }
        let mut iv_ty = self.ty_of(lower).clone();
        if self.eat(Tok::Colon) {
            let (s, _) = self.scalar_type()?;
            iv_ty = Type::Scalar(s);
        }
        if !iv_ty.as_scalar().is_some_and(|s| s.is_integer_like()) {
            self.err(Diagnostic::new(
                DiagKind::TypeMismatch,
                format!("type mismatch: loop bounds must be `index` or integers, found `{iv_ty}`"),
                ls,
            ));
        }
        self.check_type(lower, ls, &iv_ty);
        self.check_type(upper, us, &iv_ty);
        self.check_type(step, ss, &iv_ty);
        let mut args = vec![(self.text(iv_tok)[1..].to_string(), iv_ty, iv_tok.span)];
        for ((n, s), t) in iter.iter().zip(&iter_types) {
            args.push((n.clone(), t.clone(), *s));
        }
        let needs_yield = !iter_types.is_empty();
        let body = self.parse_region(&args, |ops| implicit_yield(ops, needs_yield))?;
        self.yield_types_check(&body, &iter_types, "the `scf.for` body", span);
        self.check_terminator(&body, span, "scf.for", false)?;
        let results = self.bind_results(results, &iter_types, OpCode::ScfFor, span, None)?;
        Ok(OpKind::For {
            results,
            lower,
            upper,
            step,
            inits: inits.into_iter().map(|x| x.0).collect(),
            body,
        })
    }

    fn check_terminator(
        &mut self,
        block: &Block,
        span: Span,
        what: &str,
        condition: bool,
    ) -> PResult<()> {
        let ok = match block.ops.last().map(|o| &o.kind) {
            Some(OpKind::Yield { .. }) => !condition,
            Some(OpKind::Condition { .. }) => condition,
            _ => false,
        };
        if ok {
            return Ok(());
        }
        let want = if condition {
            "scf.condition"
        } else {
            "scf.yield"
        };
        Err(Diagnostic::new(
            DiagKind::Structure,
            format!("the region of `{what}` must end with `{want}`"),
            block.ops.last().map_or(span, |o| o.span),
        )
        .with_label(format!("expected `{want}` after this")))
    }

    fn op_if(&mut self, results: &[ResultName], span: Span) -> PResult<OpKind> {
        let (cond, cs) = self.value_use()?;
        self.check_type(cond, cs, &Type::Scalar(ScalarType::I1));
        let types = if self.eat(Tok::Arrow) {
            self.result_type_list()?
        } else {
            Vec::new()
        };
        let needs_yield = !types.is_empty();
        let then_body = self.parse_region(&[], |ops| implicit_yield(ops, needs_yield))?;
        self.check_terminator(&then_body, span, "scf.if", false)?;
        self.yield_types_check(&then_body, &types, "the `then` region", span);
        let else_body = if self.eat_kw("else") {
            let b = self.parse_region(&[], |ops| implicit_yield(ops, needs_yield))?;
            self.check_terminator(&b, span, "scf.if", false)?;
            self.yield_types_check(&b, &types, "the `else` region", span);
            b
        } else {
            if needs_yield {
                return Err(Diagnostic::new(
                    DiagKind::Structure,
                    "`scf.if` with results needs an `else` region",
                    span,
                )
                .with_label("no `else` here"));
            }
            Block {
                args: Vec::new(),
                ops: vec![Op {
                    kind: OpKind::Yield { values: Vec::new() },
                    span,
                }],
            }
        };
        let results = self.bind_results(results, &types, OpCode::ScfIf, span, None)?;
        Ok(OpKind::If {
            results,
            cond,
            then_body,
            else_body,
        })
    }

    fn op_while(&mut self, results: &[ResultName], span: Span) -> PResult<OpKind> {
        let mut names = Vec::new();
        let mut inits = Vec::new();
        if self.eat(Tok::LParen) && !self.eat(Tok::RParen) {
            loop {
                let t = self.expect(Tok::ValueId, "a loop variable `%name`")?;
                self.expect(Tok::Equal, "`=` after the loop variable")?;
                inits.push(self.value_use()?);
                names.push((self.text(t)[1..].to_string(), t.span));
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
            self.expect(Tok::RParen, "`)` or `,` in the loop variables")?;
        }
        self.expect(Tok::Colon, "`:` before the `scf.while` type")?;
        self.expect(Tok::LParen, "`(` to open the argument types")?;
        let mut arg_types = Vec::new();
        if !self.eat(Tok::RParen) {
            loop {
                arg_types.push(self.parse_type()?);
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
            self.expect(Tok::RParen, "`)` or `,` in the argument types")?;
        }
        self.expect(Tok::Arrow, "`->` before the result types")?;
        let res_types = self.result_type_list()?;
        if arg_types.len() != inits.len() {
            return Err(Diagnostic::new(
                DiagKind::BadOperands,
                format!(
                    "{} loop variable(s) but {} argument type(s)",
                    inits.len(),
                    arg_types.len()
                ),
                span,
            ));
        }
        for ((v, s), t) in inits.iter().zip(&arg_types) {
            self.check_type(*v, *s, t);
        }
        let args: Vec<(String, Type, Span)> = names
            .iter()
            .zip(&arg_types)
            .map(|((n, s), t)| (n.clone(), t.clone(), *s))
            .collect();
        let before = self.parse_region(&args, |_| None)?;
        self.check_terminator(&before, span, "scf.while", true)?;
        self.yield_types_check(&before, &res_types, "`scf.condition`", span);
        self.expect_kw("do")?;
        let after = self.parse_region(&[], |ops| implicit_yield(ops, true))?;
        self.check_terminator(&after, span, "scf.while", false)?;
        let after_arg_types: Vec<Type> =
            after.args.iter().map(|a| self.ty_of(*a).clone()).collect();
        if after_arg_types != res_types {
            self.err(
                Diagnostic::new(
                    DiagKind::TypeMismatch,
                    "type mismatch: the `do` block arguments must match the `scf.while` result types",
                    span,
                )
                .with_label("in this loop"),
            );
        }
        self.yield_types_check(&after, &arg_types, "the `do` region", span);
        let results = self.bind_results(results, &res_types, OpCode::ScfWhile, span, None)?;
        Ok(OpKind::While {
            results,
            inits: inits.into_iter().map(|x| x.0).collect(),
            before,
            after,
        })
    }

    fn op_call(&mut self, results: &[ResultName], span: Span) -> PResult<OpKind> {
        let sym = self.expect(Tok::AtId, "a callee `@name`")?;
        let name = sym_name(self.text(sym));
        let Some(&callee) = self.func_names.get(&name) else {
            return Err(Diagnostic::new(
                DiagKind::UndefinedValue,
                format!("call to undefined function `@{name}`"),
                sym.span,
            )
            .with_label("no `func.func` with this name"));
        };
        self.expect(Tok::LParen, "`(` to open the call arguments")?;
        let mut args = Vec::new();
        if !self.eat(Tok::RParen) {
            loop {
                args.push(self.value_use()?);
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
            self.expect(Tok::RParen, "`)` or `,` in the call arguments")?;
        }
        self.expect(Tok::Colon, "`:` before the call's function type")?;
        self.expect(Tok::LParen, "`(` to open the argument types")?;
        let mut arg_types = Vec::new();
        if !self.eat(Tok::RParen) {
            loop {
                arg_types.push(self.parse_type()?);
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
            self.expect(Tok::RParen, "`)` or `,` in the argument types")?;
        }
        self.expect(Tok::Arrow, "`->` before the result types")?;
        let res_types = self.result_type_list()?;
        if arg_types.len() != args.len() {
            return Err(Diagnostic::new(
                DiagKind::BadOperands,
                format!("{} argument(s) but {} type(s)", args.len(), arg_types.len()),
                span,
            ));
        }
        for ((v, s), t) in args.iter().zip(&arg_types) {
            self.check_type(*v, *s, t);
        }
        self.calls.push(CallCheck {
            caller: usize::MAX,
            callee,
            span: sym.span,
            args: args
                .iter()
                .map(|(v, s)| (self.ty_of(*v).clone(), *s))
                .collect(),
            results: res_types.clone(),
        });
        let results = self.bind_results(results, &res_types, OpCode::FuncCall, span, None)?;
        Ok(OpKind::Call {
            callee,
            args: args.into_iter().map(|x| x.0).collect(),
            results,
        })
    }

    // ------------------------------------------------------------------ attributes

    fn attr_dict(&mut self) -> PResult<Vec<(String, Attr, Span)>> {
        self.expect(Tok::LBrace, "`{` to open an attribute dictionary")?;
        let mut out = Vec::new();
        if self.eat(Tok::RBrace) {
            return Ok(out);
        }
        loop {
            let k = self.tok;
            let key = match k.kind {
                Tok::Ident => self.text(k).to_string(),
                Tok::Str => unescape_string(self.text(k)),
                _ => return Err(self.expected("an attribute name")),
            };
            self.bump();
            let attr = if self.eat(Tok::Equal) {
                self.parse_attr()?
            } else {
                Attr::Unit
            };
            out.push((key, attr, k.span.to(Span::new(k.span.start, self.prev_end))));
            if !self.eat(Tok::Comma) {
                break;
            }
        }
        self.expect(Tok::RBrace, "`}` or `,` in the attribute dictionary")?;
        Ok(out)
    }

    /// `<...>` as written (whitespace runs collapsed to one space), brackets included.
    fn angle_text(&mut self) -> PResult<String> {
        let start = self.tok.span.start;
        self.angle_body()?;
        let raw = self.src.get(start..self.prev_end).unwrap_or("");
        Ok(raw.split_whitespace().collect::<Vec<_>>().join(" "))
    }

    fn angle_body(&mut self) -> PResult<String> {
        let open = self.expect(Tok::Less, "`<`")?;
        let mut depth = 1usize;
        let mut parts: Vec<&str> = Vec::new();
        loop {
            match self.tok.kind {
                Tok::Less => depth += 1,
                Tok::Greater => {
                    depth -= 1;
                    if depth == 0 {
                        self.bump();
                        return Ok(parts.join(" "));
                    }
                }
                Tok::Eof | Tok::BadChar | Tok::UnterminatedStr => {
                    return Err(Diagnostic::new(DiagKind::Syntax, "unclosed `<`", open.span)
                        .with_label("this `<` is never closed"));
                }
                _ => {}
            }
            let t = self.bump();
            parts.push(self.text(t));
        }
    }

    fn parse_attr(&mut self) -> PResult<Attr> {
        self.enter()?;
        let r = self.parse_attr_inner();
        self.leave();
        r
    }

    fn parse_attr_inner(&mut self) -> PResult<Attr> {
        let t = self.tok;
        match t.kind {
            Tok::HashId => {
                self.bump();
                let dialect = self.text(t)[1..].to_string();
                if self.at(Tok::Less) && self.tok.span.start == t.span.end {
                    let body = self.angle_body()?;
                    Ok(Attr::Opaque { dialect, body })
                } else {
                    Ok(Attr::Opaque {
                        dialect,
                        body: String::new(),
                    })
                }
            }
            Tok::Less => {
                let body = self.angle_body()?;
                Ok(Attr::Opaque {
                    dialect: String::new(),
                    body,
                })
            }
            Tok::Str => {
                self.bump();
                Ok(Attr::Str(unescape_string(self.text(t))))
            }
            // A symbol reference (`peer_func = @vector_kernel`).
            Tok::AtId => {
                self.bump();
                Ok(Attr::Str(sym_name(self.text(t))))
            }
            Tok::Minus | Tok::Int | Tok::Float => {
                let neg = self.eat(Tok::Minus);
                let n = self.tok;
                let attr = match n.kind {
                    Tok::Int => {
                        self.bump();
                        let v = self.int_value(n)? as i64;
                        Attr::Int(if neg { v.wrapping_neg() } else { v })
                    }
                    Tok::Float => {
                        self.bump();
                        let v: f64 = self.text(n).parse().map_err(|_| {
                            Diagnostic::new(DiagKind::Syntax, "malformed float literal", n.span)
                        })?;
                        Attr::Float(if neg { -v } else { v })
                    }
                    _ => return Err(self.expected("a number")),
                };
                if self.eat(Tok::Colon) {
                    self.parse_type()?;
                }
                Ok(attr)
            }
            // `array<i32: 1, 1, 0, 1>` (MLIR's dense array attribute).
            Tok::Ident
                if self.text(t) == "array"
                    && self.src.as_bytes().get(t.span.end) == Some(&b'<') =>
            {
                self.bump();
                let body = self.angle_body()?;
                Ok(Attr::Opaque {
                    dialect: "array".to_string(),
                    body,
                })
            }
            Tok::Ident => {
                self.bump();
                Ok(match self.text(t) {
                    "true" => Attr::Bool(true),
                    "false" => Attr::Bool(false),
                    "unit" => Attr::Unit,
                    other => Attr::Keyword(other.to_string()),
                })
            }
            Tok::LBracket => {
                self.bump();
                let mut items = Vec::new();
                if !self.eat(Tok::RBracket) {
                    loop {
                        items.push(self.parse_attr()?);
                        if !self.eat(Tok::Comma) {
                            break;
                        }
                    }
                    self.expect(Tok::RBracket, "`]` or `,` in the array")?;
                }
                Ok(Attr::Array(items))
            }
            Tok::BangId => Ok(Attr::Type(self.parse_type()?)),
            _ => Err(self.expected("an attribute value")),
        }
    }

    // ------------------------------------------------------------------ types

    fn parse_type(&mut self) -> PResult<Type> {
        let t = self.tok;
        match t.kind {
            Tok::Ident if self.text(t) == "memref" => {
                self.bump();
                self.memref_type()
            }
            Tok::Ident if self.text(t) == "vector" => {
                self.bump();
                let body = self.angle_text()?;
                Ok(Type::Opaque(format!("vector{body}")))
            }
            Tok::Less if self.shape_after_less() => self.memref_type(),
            // `<f32>`: the short pointer spelling PTOAS prints for `!pto.ptr<f32>`.
            Tok::Less => self.ptr_type(),
            Tok::Ident => {
                let name = self.text(t);
                match ScalarType::from_name(name) {
                    Some(s) => {
                        self.bump();
                        Ok(Type::Scalar(s))
                    }
                    None => Err(Diagnostic::new(
                        DiagKind::BadType,
                        format!("unknown type `{name}`"),
                        t.span,
                    )
                    .with_label("not a type")
                    .with_help("scalar types are i1, i8, i16, i32, i64, index, f16, bf16, f32")),
                }
            }
            Tok::BangId => {
                self.bump();
                let name = self.text(t);
                match name {
                    "!pto.ptr" => self.ptr_type(),
                    "!pto.tensor_view" => {
                        let v = self.view_type(name)?;
                        Ok(Type::TensorView(v))
                    }
                    "!pto.partition_tensor_view" => {
                        let v = self.view_type(name)?;
                        Ok(Type::PartitionView(v))
                    }
                    "!pto.tile_buf" if self.shape_after_less() => self.memref_type(),
                    "!pto.tile_buf" => Ok(Type::TileBuf(self.tile_buf_type(t.span)?)),
                    "!pto.tile" => Ok(Type::TileBuf(self.ssa_tile_type(t.span)?)),
                    alias if self.aliases.contains_key(alias) => {
                        Ok(self.aliases[alias].clone())
                    }
                    other if other.starts_with("!pto.") => {
                        if self.at(Tok::Less) && self.tok.span.start == t.span.end {
                            let body = self.angle_text()?;
                            Ok(Type::Opaque(format!("{other}{body}")))
                        } else {
                            Ok(Type::Opaque(other.to_string()))
                        }
                    }
                    _ => Err(Diagnostic::new(DiagKind::BadType, format!("unknown type `{name}`"), t.span)
                        .with_label("not a PTO-AS type")
                        .with_help(
                            "PTO types are !pto.ptr, !pto.tensor_view, !pto.partition_tensor_view, !pto.tile_buf, !pto.tile",
                        )),
                }
            }
            _ => Err(self.expected("a type")),
        }
    }

    /// Whether the cursor is at `<` directly followed by a shape (`<32x32xf32, ...>`).
    fn shape_after_less(&self) -> bool {
        self.at(Tok::Less)
            && self
                .src
                .get(self.tok.span.end..)
                .and_then(|r| r.trim_start().bytes().next())
                .is_some_and(|c| c.is_ascii_digit() || c == b'?')
    }

    /// `<16x16xf16, [strided<...>,] #pto.address_space<vec>>` after `memref` (or the
    /// memref-style `!pto.tile_buf<...>`): an on-chip space gives a tile buffer (leading
    /// dimensions folded into rows), `gm` or none a [`Type::GmMemRef`].
    fn memref_type(&mut self) -> PResult<Type> {
        let open = self.expect(Tok::Less, "`<` after `memref`")?;
        let (shape, elem, _) = self.shape_and_elem()?;
        let mut space: Option<String> = None;
        while !self.eat(Tok::Greater) {
            self.expect(Tok::Comma, "`,` or `>` in a memref type")?;
            if self.at(Tok::HashId) && self.text(self.tok) == "#pto.address_space" {
                self.bump();
                space = Some(self.angle_body()?);
            } else if self.at(Tok::Ident) || self.at(Tok::HashId) {
                self.bump();
                if self.at(Tok::Less) {
                    self.angle_body()?;
                }
            } else if self.at(Tok::Eof) {
                return Err(Diagnostic::new(
                    DiagKind::Syntax,
                    "unclosed `memref<`",
                    open.span,
                ));
            } else {
                return Err(self.expected("a memref layout or `#pto.address_space<...>`"));
            }
        }
        let space = space.unwrap_or_default();
        let space = space.trim();
        if space.is_empty() || space == "gm" {
            return Ok(Type::GmMemRef(ViewType { shape, elem }));
        }
        let Some(loc) = Loc::from_name(space) else {
            return Err(Diagnostic::new(
                DiagKind::BadType,
                format!("unknown address space `{space}`"),
                open.span,
            )
            .with_help("one of gm, vec, mat, left, right, acc, bias, scaling"));
        };
        let dims: Option<Vec<u64>> = shape.iter().map(|d| d.as_static()).collect();
        let Some(dims) = dims else {
            let v = ViewType { shape, elem };
            let text = Type::GmMemRef(v).to_string();
            return Ok(Type::Opaque(text.replace("<gm>", &format!("<{space}>"))));
        };
        let cols = dims.last().copied().unwrap_or(1);
        let rows = dims
            .iter()
            .rev()
            .skip(1)
            .fold(1u64, |a, &d| a.saturating_mul(d));
        Ok(Type::TileBuf(TileBufType::new(loc, elem, rows, cols)))
    }

    fn dtype(&mut self) -> PResult<DType> {
        let t = self.expect(Tok::Ident, "an element type")?;
        let name = self.text(t);
        DType::from_name(name).ok_or_else(|| {
            Diagnostic::new(
                DiagKind::BadType,
                format!("unknown element type `{name}`"),
                t.span,
            )
            .with_label("not an element type")
            .with_help(
                "element types are i1, i8, ui8, i16, ui16, i32, ui32, i64, ui64, f16, bf16, f32",
            )
        })
    }

    fn ptr_type(&mut self) -> PResult<Type> {
        self.expect(Tok::Less, "`<` after `!pto.ptr`")?;
        let elem = self.dtype()?;
        let mut space = None;
        if self.eat(Tok::Comma) {
            let t = self.expect(Tok::Ident, "an address space")?;
            let s = self.text(t);
            space = Some(match s {
                "gm" => AddrSpace::Gm,
                other => AddrSpace::Local(Loc::from_name(other).ok_or_else(|| {
                    Diagnostic::new(
                        DiagKind::BadType,
                        format!("unknown address space `{other}`"),
                        t.span,
                    )
                    .with_help("use `gm`")
                })?),
            });
        }
        self.expect(Tok::Greater, "`>` to close `!pto.ptr<...>`")?;
        Ok(Type::Ptr(PtrType { elem, space }))
    }

    /// Scans `16x?x128xf32` directly from the source starting at the current token, then
    /// re-syncs the lexer. Returns the dims, the element type and the span.
    fn shape_and_elem(&mut self) -> PResult<(Vec<Dim>, DType, Span)> {
        let start = self.tok.span.start;
        let (dims, mut pos) = self.scan_dims(start, true)?;
        let b = self.src.as_bytes();
        let elem_start = pos;
        while pos < b.len() && (b[pos].is_ascii_alphanumeric() || b[pos] == b'_') {
            pos += 1;
        }
        let elem_span = Span::new(elem_start, pos);
        let name = self.src.get(elem_start..pos).unwrap_or("");
        let span = Span::new(start, pos);
        if dims.is_empty() {
            return Err(Diagnostic::new(
                DiagKind::BadType,
                "expected a shape such as `16x16xf32`",
                span,
            )
            .with_label("no dimensions"));
        }
        let elem = DType::from_name(name).ok_or_else(|| {
            Diagnostic::new(
                DiagKind::BadType,
                if name.is_empty() {
                    "expected an element type after the shape".to_string()
                } else {
                    format!("unknown element type `{name}`")
                },
                if name.is_empty() { span } else { elem_span },
            )
            .with_label("not an element type")
        })?;
        self.resync(pos);
        Ok((dims, elem, span))
    }

    /// Scans `AxBx...` (each `?` or digits). With `trailing_x`, every dim must be followed by
    /// `x` (the element type comes next); otherwise dims are separated by `x`.
    fn scan_dims(&self, start: usize, trailing_x: bool) -> PResult<(Vec<Dim>, usize)> {
        let b = self.src.as_bytes();
        let mut pos = start;
        let mut dims = Vec::new();
        loop {
            let dim_start = pos;
            let dim = if b.get(pos) == Some(&b'?') {
                pos += 1;
                Dim::Dynamic
            } else if b.get(pos).is_some_and(|c| c.is_ascii_digit()) {
                while pos < b.len() && b[pos].is_ascii_digit() {
                    pos += 1;
                }
                let text = self.src.get(dim_start..pos).unwrap_or("");
                let n = text.parse::<u64>().map_err(|_| {
                    Diagnostic::new(
                        DiagKind::BadType,
                        "dimension out of range",
                        Span::new(dim_start, pos),
                    )
                })?;
                Dim::Static(n)
            } else {
                break;
            };
            if trailing_x {
                if b.get(pos) != Some(&b'x') {
                    return Err(Diagnostic::new(
                        DiagKind::BadType,
                        "expected `x` after a dimension",
                        Span::new(pos, (pos + 1).min(b.len())),
                    )
                    .with_label("shapes are written like `16x128xf32`"));
                }
                pos += 1;
                dims.push(dim);
            } else {
                dims.push(dim);
                let next_is_dim = b
                    .get(pos + 1)
                    .is_some_and(|c| c.is_ascii_digit() || *c == b'?');
                if b.get(pos) == Some(&b'x') && next_is_dim {
                    pos += 1;
                } else {
                    break;
                }
            }
        }
        Ok((dims, pos))
    }

    fn resync(&mut self, pos: usize) {
        self.prev_end = pos;
        self.lex.reset(pos);
        self.tok = self.lex.next_token();
    }

    fn view_type(&mut self, name: &str) -> PResult<ViewType> {
        self.expect(Tok::Less, &format!("`<` after `{name}`"))?;
        let (shape, elem, span) = self.shape_and_elem()?;
        if shape.len() > 5 {
            return Err(Diagnostic::new(
                DiagKind::BadType,
                format!("`{name}` has rank {}, at most 5 is supported", shape.len()),
                span,
            ));
        }
        self.expect(Tok::Greater, &format!("`>` to close `{name}<...>`"))?;
        Ok(ViewType { shape, elem })
    }

    fn tile_buf_type(&mut self, name_span: Span) -> PResult<TileBufType> {
        let open = self.expect(Tok::Less, "`<` after `!pto.tile_buf`")?;
        let first = self.expect(Tok::Ident, "`loc=` or a memory such as `vec`")?;
        let first_text = self.text(first);
        let mut loc = None;
        let mut dtype = None;
        let mut rows = None;
        let mut cols = None;
        let mut vrow = None;
        let mut vcol = None;
        let mut blayout = None;
        let mut slayout = None;
        let mut fractal = None;
        let mut pad = None;
        let mut compact = None;
        let long = first_text == "loc" && self.at(Tok::Equal);
        let mut pending_key = if long { Some(first) } else { None };
        if !long {
            loc = Some(Loc::from_name(first_text).ok_or_else(|| self.bad_loc(first))?);
            self.expect(Tok::Comma, "`,` after the memory")?;
            let (shape, elem, span) = self.shape_and_elem()?;
            let [Dim::Static(r), Dim::Static(c)] = shape[..] else {
                return Err(Diagnostic::new(
                    DiagKind::BadType,
                    "a tile_buf shape must have two static dims, like `16x128xf32`",
                    span,
                ));
            };
            rows = Some(r);
            cols = Some(c);
            dtype = Some(elem);
        }
        loop {
            let key_tok = match pending_key.take() {
                Some(k) => k,
                None => {
                    if !self.eat(Tok::Comma) {
                        break;
                    }
                    self.expect(Tok::Ident, "a `!pto.tile_buf` key such as `blayout`")?
                }
            };
            let key = self.text(key_tok);
            self.expect(Tok::Equal, &format!("`=` after `{key}`"))?;
            let dup = |set: bool| -> PResult<()> {
                if set {
                    Err(Diagnostic::new(
                        DiagKind::BadType,
                        format!("duplicate `{key}` in `!pto.tile_buf`"),
                        key_tok.span,
                    ))
                } else {
                    Ok(())
                }
            };
            match key {
                "loc" if long => {
                    dup(loc.is_some())?;
                    let t = self.expect(Tok::Ident, "a memory such as `vec`")?;
                    loc = Some(Loc::from_name(self.text(t)).ok_or_else(|| self.bad_loc(t))?);
                }
                "dtype" if long => {
                    dup(dtype.is_some())?;
                    dtype = Some(self.dtype()?);
                }
                "rows" if long => {
                    dup(rows.is_some())?;
                    rows = Some(self.expect_uint("the row count")?.0);
                }
                "cols" if long => {
                    dup(cols.is_some())?;
                    cols = Some(self.expect_uint("the column count")?.0);
                }
                "v_row" | "v_col" if long => {
                    let slot = if key == "v_row" { &mut vrow } else { &mut vcol };
                    if slot.is_some() {
                        return Err(Diagnostic::new(
                            DiagKind::BadType,
                            format!("duplicate `{key}`"),
                            key_tok.span,
                        ));
                    }
                    let d = if self.eat(Tok::Question) {
                        Dim::Dynamic
                    } else if self.eat(Tok::Minus) {
                        let (n, s) = self.expect_uint("`1` (as in `-1`)")?;
                        if n != 1 {
                            return Err(Diagnostic::new(
                                DiagKind::BadType,
                                format!("`{key}` must be `?`, -1 or a size"),
                                s,
                            ));
                        }
                        Dim::Dynamic
                    } else {
                        Dim::Static(self.expect_uint("a size or `?`")?.0)
                    };
                    let slot = if key == "v_row" { &mut vrow } else { &mut vcol };
                    *slot = Some(d);
                }
                "valid" => {
                    dup(vrow.is_some() || vcol.is_some())?;
                    let start = self.tok.span.start;
                    let (dims, end) = self.scan_dims(start, false)?;
                    let [r, c] = dims[..] else {
                        return Err(Diagnostic::new(
                            DiagKind::BadType,
                            "`valid` must have exactly two dims, like `valid=16x1`",
                            Span::new(start, end.max(start + 1)),
                        ));
                    };
                    vrow = Some(r);
                    vcol = Some(c);
                    self.resync(end);
                }
                "blayout" => {
                    dup(blayout.is_some())?;
                    blayout = Some(self.mnemonic("blayout", BLayout::from_name, BLayout::NAMES)?);
                }
                "slayout" => {
                    dup(slayout.is_some())?;
                    slayout = Some(self.mnemonic("slayout", SLayout::from_name, SLayout::NAMES)?);
                }
                "fractal" => {
                    dup(fractal.is_some())?;
                    fractal = Some(self.expect_uint("the fractal size")?.0);
                }
                "pad" => {
                    dup(pad.is_some())?;
                    pad = Some(if self.at(Tok::Int) {
                        let (n, s) = self.expect_uint("a pad code")?;
                        PadValue::from_code(n).ok_or_else(|| {
                            Diagnostic::new(DiagKind::BadType, format!("unknown pad `{n}`"), s)
                                .with_help("pad is 0 (null), 1 (zero), 2 (max) or 3 (min)")
                        })?
                    } else {
                        self.mnemonic("pad", PadValue::from_name, PadValue::NAMES)?
                    });
                }
                "compact" => {
                    dup(compact.is_some())?;
                    let (n, s) = self.expect_uint("a compact mode")?;
                    compact = Some(CompactMode::from_code(n).ok_or_else(|| {
                        Diagnostic::new(DiagKind::BadType, format!("unknown compact mode `{n}`"), s)
                            .with_help("compact is 0, 1 or 2")
                    })?);
                }
                _ => {
                    return Err(Diagnostic::new(
                        DiagKind::BadType,
                        format!("unknown key `{key}` in `!pto.tile_buf`"),
                        key_tok.span,
                    )
                    .with_help(if long {
                        "keys are loc, dtype, rows, cols, v_row, v_col, blayout, slayout, fractal, pad, compact"
                    } else {
                        "keys after the shape are valid, blayout, slayout, fractal, pad, compact"
                    }));
                }
            }
        }
        let close = self.expect(Tok::Greater, "`,` or `>` in `!pto.tile_buf<...>`")?;
        let span = name_span.to(close.span);
        let missing = |what: &str| {
            Diagnostic::new(
                DiagKind::BadType,
                format!("`!pto.tile_buf` lacks `{what}=`"),
                span,
            )
            .with_label(format!("no `{what}` given"))
        };
        let rows = rows.ok_or_else(|| missing("rows"))?;
        let cols = cols.ok_or_else(|| missing("cols"))?;
        let mut t = TileBufType::new(
            loc.ok_or_else(|| missing("loc"))?,
            dtype.ok_or_else(|| missing("dtype"))?,
            rows,
            cols,
        );
        if let Some(v) = vrow {
            t.valid_row = v;
        }
        if let Some(v) = vcol {
            t.valid_col = v;
        }
        t.blayout = blayout.unwrap_or(BLayout::RowMajor);
        t.slayout = slayout.unwrap_or(SLayout::NoneBox);
        t.fractal = fractal.unwrap_or(512);
        t.pad = pad.unwrap_or(PadValue::Null);
        t.compact = compact.unwrap_or(CompactMode::Null);
        self.check_tile_shape(&t, span.to(open.span));
        Ok(t)
    }

    fn check_tile_shape(&mut self, t: &TileBufType, span: Span) {
        if t.rows == 0 || t.cols == 0 {
            self.err(Diagnostic::new(
                DiagKind::BadType,
                "a tile needs at least one row and one column",
                span,
            ));
        }
        for (v, n, what) in [
            (t.valid_row, t.rows, "valid rows"),
            (t.valid_col, t.cols, "valid columns"),
        ] {
            if let Dim::Static(v) = v
                && v > n
            {
                self.err(
                    Diagnostic::new(
                        DiagKind::BadType,
                        format!("{what} ({v}) exceed the tile's {n}"),
                        span,
                    )
                    .with_label("valid region larger than the tile"),
                );
            }
        }
    }

    fn bad_loc(&self, t: Token) -> Diagnostic {
        Diagnostic::new(
            DiagKind::BadType,
            format!("unknown memory `{}`", self.text(t)),
            t.span,
        )
        .with_help("loc is one of vec, mat, left, right, acc, bias, scaling")
    }

    fn mnemonic<T>(
        &mut self,
        what: &str,
        parse: fn(&str) -> Option<T>,
        names: &[&str],
    ) -> PResult<T> {
        let t = self.tok;
        let text = match t.kind {
            Tok::Ident => self.text(t).to_string(),
            Tok::Str => unescape_string(self.text(t)),
            _ => {
                return Err(self.expected(&format!(
                    "a {what} such as `{}`",
                    names.first().unwrap_or(&"")
                )));
            }
        };
        self.bump();
        parse(&text).ok_or_else(|| {
            Diagnostic::new(
                DiagKind::BadType,
                format!("unknown {what} `{text}`"),
                t.span,
            )
            .with_help(format!("one of: {}", names.join(", ")))
        })
    }

    /// The `!pto.tile<...>` spellings of the ISA pages: `<32x32xf32>`, `<f32, 16, 16>` and
    /// `<loc=vec, f32, 16, 16, RowMajor, NoneBox, 512, Zero>`. Mapped to a tile buffer.
    fn ssa_tile_type(&mut self, name_span: Span) -> PResult<TileBufType> {
        self.expect(Tok::Less, "`<` after `!pto.tile`")?;
        let mut loc = Loc::Vec;
        if self.at_kw("loc") {
            self.bump();
            self.expect(Tok::Equal, "`=` after `loc`")?;
            let t = self.expect(Tok::Ident, "a memory such as `vec`")?;
            loc = Loc::from_name(self.text(t)).ok_or_else(|| self.bad_loc(t))?;
            self.expect(Tok::Comma, "`,` after the memory")?;
        }
        let mut t = if self.at(Tok::Int) {
            let (shape, elem, span) = self.shape_and_elem()?;
            let [Dim::Static(r), Dim::Static(c)] = shape[..] else {
                return Err(Diagnostic::new(
                    DiagKind::BadType,
                    "a tile shape must have two static dims",
                    span,
                ));
            };
            TileBufType::new(loc, elem, r, c)
        } else {
            let dtype = self.dtype()?;
            self.expect(Tok::Comma, "`,` after the element type")?;
            let rows = self.expect_uint("the row count")?.0;
            self.expect(Tok::Comma, "`,` after the row count")?;
            let cols = self.expect_uint("the column count")?.0;
            TileBufType::new(loc, dtype, rows, cols)
        };
        let mut position = 0;
        while self.eat(Tok::Comma) {
            let tok = self.bump();
            let text = self.text(tok);
            let bad = || {
                Diagnostic::new(
                    DiagKind::BadType,
                    format!("unexpected `{text}` in `!pto.tile<...>`"),
                    tok.span,
                )
                .with_help("after the shape come blayout, slayout, fractal and pad")
            };
            match (position, tok.kind) {
                (0, Tok::Ident) => t.blayout = BLayout::from_name(text).ok_or_else(bad)?,
                (1, Tok::Ident) => t.slayout = SLayout::from_name(text).ok_or_else(bad)?,
                (2, Tok::Int) => t.fractal = self.int_value(tok)?,
                (2, Tok::Ident) if text == "None" => {}
                (3, Tok::Ident) => t.pad = PadValue::from_name(text).ok_or_else(bad)?,
                _ => return Err(bad()),
            }
            position += 1;
        }
        let close = self.expect(Tok::Greater, "`>` to close `!pto.tile<...>`")?;
        self.check_tile_shape(&t, name_span.to(close.span));
        Ok(t)
    }
}

trait SpanFallback {
    fn with_span_fallback(self, span: Span) -> Self;
}

impl SpanFallback for Diagnostic {
    fn with_span_fallback(mut self, span: Span) -> Self {
        if self.span.is_empty() {
            self.span = span;
        }
        self
    }
}

fn short_key(key: &str) -> &'static str {
    if key == "valid_row" { "v_row" } else { "v_col" }
}

fn sym_name(text: &str) -> String {
    let s = text.strip_prefix('@').unwrap_or(text);
    if s.starts_with('"') {
        unescape_string(s)
    } else {
        s.to_string()
    }
}

fn implicit_yield(ops: &[Op], needs_values: bool) -> Option<OpKind> {
    let ends_with_yield = matches!(ops.last().map(|o| &o.kind), Some(OpKind::Yield { .. }));
    if ends_with_yield || needs_values {
        None
    } else {
        Some(OpKind::Yield { values: Vec::new() })
    }
}

/// Wraps an integer constant to the width of its type (sign-extending), `i1` to 0/1.
fn truncate_int(v: i64, ty: ScalarType) -> i64 {
    match ty.bits() {
        1 => v & 1,
        64 => v,
        bits => {
            let shift = 64 - bits;
            (v << shift) >> shift
        }
    }
}
