//! The tile instructions at one source line, for `npusim explain pto FILE --line N`.
//!
//! A tile op whose operands are all static was built and prepared when the kernel was lowered
//! (`Inst::Exec`): its tiles (addresses, shapes, valid regions, layouts) are the ones the
//! interpreter runs, so the diagram is drawn from exactly those. An op whose operands are known
//! only at run time (a valid region or an address from a scalar) is reported as such.

use super::lower::{Inst, Program, profile_name};
use crate::diag::Span;
use npusim_pto::{Args, OpCode, TileCore};

/// One tile instruction found at a line.
#[derive(Clone, Debug)]
pub struct LineOp {
    /// The function it is in.
    pub func: String,
    /// Its source span.
    pub span: Span,
    /// The op's PTO-AS name (`pto.tpartmin`).
    pub name: &'static str,
    /// The instruction.
    pub op: OpCode,
    /// Its operands, when they are all static; `None` when they are known only at run time.
    pub args: Option<Args>,
}

impl Program {
    /// The tile instructions whose source starts on `line` (1-based) of `src`, in program
    /// order.
    pub fn tile_ops_at_line(&self, src: &str, line: usize) -> Vec<LineOp> {
        let mut out = Vec::new();
        for f in &self.funcs {
            for (inst, meta) in f.code.iter().zip(&f.meta) {
                let (op, args) = match inst {
                    Inst::Exec(p) => (p.op().op, Some(p.op().args.clone())),
                    Inst::Tile { op, .. } => (*op, None),
                    _ => continue,
                };
                if crate::diag::line_col(src, meta.span.start).0 != line {
                    continue;
                }
                out.push(LineOp {
                    func: f.name.clone(),
                    span: meta.span,
                    name: meta.name,
                    op,
                    args,
                });
            }
        }
        out
    }

    /// A fresh core of the program's target under its numeric policy (the core its
    /// instructions run on), for executing one instruction on its own.
    pub fn scratch_core(&self) -> Option<TileCore> {
        let mut core = TileCore::by_name(profile_name(self.target))?;
        core.set_policy(self.policy);
        Some(core)
    }
}
