//! PTO-AS front end: lexer, parser, typed program, verifier and diagnostics for PTO kernels
//! written as MLIR text in the PTOAS dialect (hw-native-sys/PTOAS `docs/PTO_IR_manual.md`).
//!
//! ```
//! let src = r#"
//! module attributes {pto.target_arch = "a2a3"} {
//!   func.func @k(%p: !pto.ptr<f32>) {
//!     %t = pto.alloc_tile : !pto.tile_buf<vec, 16x16xf32>
//!     return
//!   }
//! }"#;
//! let module = npusim_ptoas::parse_module(src, "k.pto").expect("parses");
//! assert_eq!(module.funcs[0].name, "k");
//! ```
//!
//! Modules: [`lexer`] (tokens), [`parser`] (recursive descent + verification), [`ast`] (the
//! typed program an interpreter runs), [`ops`] (the op table), [`print`] (type printer, both
//! `!pto.tile_buf` spellings), [`diag`] (rustc-style diagnostics), [`interp`] (lowering to a
//! flat program and the interpreter that runs it on `npusim-pto`).

// One `unsafe` block in the crate: the GM alias of a multi-threaded run's workers
// (`interp::par`, whose module docs give the claim discipline that makes it sound).
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod ast;
pub mod diag;
pub mod interp;
pub mod lexer;
pub mod ops;
pub mod parser;
pub mod print;

pub use ast::*;
pub use diag::{DiagKind, Diagnostic, Span, render_all};
pub use ops::{OpClass, OpCode};
pub use parser::{ParseOptions, PtoLevel, parse_module, parse_module_with, parse_type};
pub use print::TileBufStyle;
