//! The TIK program the Python face records (`npusim.tik`), and its interpreter.
//!
//! TIK builds an IR when the Python code runs: `for_range` and `if_scope` bodies are recorded
//! once, with loop variables, `Scalar`s and `Expr`s left symbolic. `npusim.tik` does the same
//! and hands the recorded program here as JSON; this module evaluates it on an Ascend
//! [`VectorCore`], building each instruction from its evaluated parameters through
//! npusim-ascend's checked constructors (the same checks as the Rust TIK face, so an error
//! names the instruction, the parameter, the rule and the value) and running it.
//!
//! Instruction forms follow the operand shape of the instruction table row the TIK name
//! resolves to ([`Instr::by_name`]): `vec_*` names take repeat strides, the legacy names take
//! block strides too (see `npusim_ascend::tik` for every parameter list).

use npusim_ascend::core::{Operand, VectorCore};
use npusim_ascend::isa::{CastRound, Instr, Shape};
use npusim_ascend::mask::MaskArg;
use npusim_ascend::ops::{DataMove, Op, Scalar, Vcmpv};
use npusim_ascend::vector::{Face, VecArgs, VecOp};
use npusim_core::{ChipProfile, ElemType, MemSpace, NpyArray};
use serde::Deserialize;
use std::sync::Arc;

/// A recorded kernel.
#[derive(Deserialize)]
pub struct Program {
    pub chip: String,
    pub decls: Vec<Decl>,
    pub body: Vec<Stmt>,
    /// Initial values of the Scalars (by variable id); loop variables start at 0.
    pub vars: Vec<Expr>,
    pub inputs: Vec<String>,
    pub outputs: Vec<String>,
}

#[derive(Deserialize)]
pub struct Decl {
    pub name: String,
    pub dtype: String,
    pub shape: Vec<usize>,
    /// `"gm"` or `"ubuf"`.
    pub scope: String,
}

#[derive(Deserialize)]
#[serde(tag = "k", rename_all = "snake_case")]
pub enum Stmt {
    For {
        var: usize,
        begin: Expr,
        end: Expr,
        body: Vec<Stmt>,
        line: u32,
    },
    If {
        cond: Expr,
        then: Vec<Stmt>,
        #[serde(rename = "else")]
        els: Vec<Stmt>,
        line: u32,
    },
    Set {
        var: usize,
        value: Expr,
        line: u32,
    },
    Call {
        name: String,
        args: Vec<Arg>,
        line: u32,
        /// Index of this call's instruction cache entry (numbered before the run).
        #[serde(skip)]
        slot: usize,
    },
}

/// Numbers every call statement (its instruction-cache slot); returns the count.
fn number_calls(body: &mut [Stmt], next: &mut usize) {
    for s in body {
        match s {
            Stmt::For { body, .. } => number_calls(body, next),
            Stmt::If { then, els, .. } => {
                number_calls(then, next);
                number_calls(els, next);
            }
            Stmt::Set { .. } => {}
            Stmt::Call { slot, .. } => {
                *slot = *next;
                *next += 1;
            }
        }
    }
}

/// A scalar expression.
#[derive(Deserialize, Clone)]
#[serde(untagged)]
pub enum Expr {
    Int(i64),
    Float(f64),
    Var {
        var: usize,
    },
    Node {
        op: String,
        a: Box<Expr>,
        b: Box<Expr>,
    },
}

/// A call argument.
#[derive(Deserialize)]
#[serde(untagged)]
pub enum Arg {
    Tensor { t: String, off: Expr },
    Expr(Expr),
    Str(String),
    List(Vec<Expr>),
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Num {
    I(i64),
    F(f64),
}

impl Num {
    fn as_i64(self) -> i64 {
        match self {
            Num::I(i) => i,
            Num::F(f) => f as i64,
        }
    }
    fn as_f64(self) -> f64 {
        match self {
            Num::I(i) => i as f64,
            Num::F(f) => f,
        }
    }
}

/// Errors of a run: the message, with the Python line of the statement when known.
pub type RunResult<T> = Result<T, String>;

struct Machine<'p> {
    chip: &'static ChipProfile,
    core: VectorCore,
    tensors: Vec<(Operand, &'p Decl)>,
    vars: Vec<Num>,
    steps: u64,
    max_steps: u64,
    /// Built instructions by call slot, with the parameters they were built from.
    cache: Vec<Option<(Vec<Num>, Option<Op>)>>,
}

fn eval_op(op: &str, a: Num, b: Num) -> RunResult<Num> {
    use Num::{F, I};
    let cmp = |c: bool| Ok(I(c as i64));
    match (a, b) {
        (I(x), I(y)) => match op {
            "+" => Ok(I(x.wrapping_add(y))),
            "-" => Ok(I(x.wrapping_sub(y))),
            "*" => Ok(I(x.wrapping_mul(y))),
            "//" | "/" => {
                if y == 0 {
                    return Err("integer division by zero in an Expr".into());
                }
                let q = x.wrapping_div(y);
                Ok(I(if x.wrapping_rem(y) != 0 && ((x < 0) != (y < 0)) {
                    q - 1
                } else {
                    q
                }))
            }
            "%" => {
                if y == 0 {
                    return Err("integer modulo by zero in an Expr".into());
                }
                let r = x.wrapping_rem(y);
                Ok(I(if r != 0 && ((r < 0) != (y < 0)) {
                    r + y
                } else {
                    r
                }))
            }
            "<" => cmp(x < y),
            "<=" => cmp(x <= y),
            ">" => cmp(x > y),
            ">=" => cmp(x >= y),
            "==" => cmp(x == y),
            "!=" => cmp(x != y),
            "and" => cmp(x != 0 && y != 0),
            "or" => cmp(x != 0 || y != 0),
            "min" => Ok(I(x.min(y))),
            "max" => Ok(I(x.max(y))),
            _ => Err(format!("unknown Expr operator `{op}`")),
        },
        _ => {
            let (x, y) = (a.as_f64(), b.as_f64());
            match op {
                "+" => Ok(F(x + y)),
                "-" => Ok(F(x - y)),
                "*" => Ok(F(x * y)),
                "/" => Ok(F(x / y)),
                "//" => Ok(F((x / y).floor())),
                "<" => cmp(x < y),
                "<=" => cmp(x <= y),
                ">" => cmp(x > y),
                ">=" => cmp(x >= y),
                "==" => cmp(x == y),
                "!=" => cmp(x != y),
                "min" => Ok(F(x.min(y))),
                "max" => Ok(F(x.max(y))),
                _ => Err(format!("Expr operator `{op}` on floats")),
            }
        }
    }
}

impl<'p> Machine<'p> {
    fn eval(&self, e: &Expr) -> RunResult<Num> {
        match e {
            Expr::Int(i) => Ok(Num::I(*i)),
            Expr::Float(f) => Ok(Num::F(*f)),
            Expr::Var { var } => self
                .vars
                .get(*var)
                .copied()
                .ok_or_else(|| format!("unknown variable {var}")),
            Expr::Node { op, a, b } => eval_op(op, self.eval(a)?, self.eval(b)?),
        }
    }

    fn int(&self, a: &Arg, what: &str) -> RunResult<i64> {
        match a {
            Arg::Expr(e) => Ok(self.eval(e)?.as_i64()),
            _ => Err(format!("{what}: expected an integer")),
        }
    }

    fn tensor(&self, a: &Arg, what: &str) -> RunResult<Operand> {
        let Arg::Tensor { t, off } = a else {
            return Err(format!("{what}: expected a tensor"));
        };
        let (op, decl) = self
            .tensors
            .iter()
            .find(|(_, d)| &d.name == t)
            .ok_or_else(|| format!("{what}: unknown tensor `{t}`"))?;
        let off = self.eval(off)?.as_i64();
        let n = decl.shape.iter().product::<usize>() as i64;
        if off < 0 || off >= n.max(1) {
            return Err(format!(
                "{what}: start element {off} is outside tensor `{t}` ({n} elements)"
            ));
        }
        let mut o = op.clone();
        o.offset = off as u64;
        Ok(o)
    }

    fn mask(&self, a: &Arg) -> RunResult<MaskArg> {
        match a {
            Arg::Expr(e) => {
                let n = self.eval(e)?.as_i64();
                u64::try_from(n)
                    .map(MaskArg::Count)
                    .map_err(|_| format!("mask: {n} is negative"))
            }
            Arg::List(l) if l.len() == 2 => {
                let h = self.eval(&l[0])?.as_i64() as u64;
                let lo = self.eval(&l[1])?.as_i64() as u64;
                Ok(MaskArg::tik_list(h, lo))
            }
            _ => Err("mask: an int or a list [mask_h, mask_l]".into()),
        }
    }

    fn scalar(&self, a: &Arg, dtype: ElemType) -> RunResult<Scalar> {
        let Arg::Expr(e) = a else {
            return Err("scalar: expected a number, Scalar or Expr".into());
        };
        let v = self.eval(e)?;
        Ok(if dtype.is_float() {
            Scalar::Float(v.as_f64())
        } else {
            Scalar::Int(v.as_i64())
        })
    }

    fn exec_block(&mut self, body: &[Stmt]) -> RunResult<()> {
        for s in body {
            self.exec(s)?;
        }
        Ok(())
    }

    fn tick(&mut self, line: u32) -> RunResult<()> {
        self.steps += 1;
        if self.steps > self.max_steps {
            return Err(format!(
                "line {line}: step limit exceeded ({} statements run; raise max_steps)",
                self.max_steps
            ));
        }
        Ok(())
    }

    fn exec(&mut self, s: &Stmt) -> RunResult<()> {
        match s {
            Stmt::For {
                var,
                begin,
                end,
                body,
                line,
            } => {
                let b = self.eval(begin)?.as_i64();
                let e = self.eval(end)?.as_i64();
                for i in b..e {
                    self.tick(*line)?;
                    *self
                        .vars
                        .get_mut(*var)
                        .ok_or_else(|| format!("line {line}: unknown loop variable"))? = Num::I(i);
                    self.exec_block(body)?;
                }
                Ok(())
            }
            Stmt::If {
                cond,
                then,
                els,
                line,
            } => {
                self.tick(*line)?;
                let c = self.eval(cond).map_err(|e| format!("line {line}: {e}"))?;
                if c.as_f64() != 0.0 {
                    self.exec_block(then)
                } else {
                    self.exec_block(els)
                }
            }
            Stmt::Set { var, value, line } => {
                self.tick(*line)?;
                let v = self.eval(value).map_err(|e| format!("line {line}: {e}"))?;
                *self
                    .vars
                    .get_mut(*var)
                    .ok_or_else(|| format!("line {line}: unknown Scalar"))? = v;
                Ok(())
            }
            Stmt::Call {
                name,
                args,
                line,
                slot,
            } => {
                self.tick(*line)?;
                self.call(*slot, name, args)
                    .map_err(|e| format!("line {line}: {name}: {e}"))
            }
        }
    }

    /// Whether the evaluated parameters of a call equal `key` (equal parameters build equal
    /// instructions); on a mismatch `key` is refilled with the new values.
    fn same_key(&self, a: &[Arg], key: &mut Vec<Num>) -> RunResult<bool> {
        let mut i = 0;
        let mut same = true;
        let mut push = |v: Num, key: &mut Vec<Num>| {
            if same && key.get(i) == Some(&v) {
            } else {
                if same {
                    key.truncate(i);
                    same = false;
                }
                key.push(v);
            }
            i += 1;
        };
        for x in a {
            match x {
                Arg::Tensor { off, .. } => push(self.eval(off)?, key),
                Arg::Expr(e) => push(self.eval(e)?, key),
                Arg::List(l) => {
                    for e in l {
                        push(self.eval(e)?, key);
                    }
                }
                Arg::Str(_) => {}
            }
        }
        Ok(same && key.len() == i)
    }

    /// Runs a call, reusing the instruction built for the same statement when its evaluated
    /// parameters did not change (the common case in loops): decode once, run many times.
    fn call(&mut self, slot: usize, name: &str, a: &[Arg]) -> RunResult<()> {
        let e = |r: npusim_ascend::AscendError| r.to_string();
        // Only the key leaves the cache while the parameters are evaluated; the built
        // instruction stays in place (no move of the Op per iteration).
        let mut key = match self.cache.get_mut(slot).ok_or("call slot out of range")? {
            Some(en) => std::mem::take(&mut en.0),
            None => Vec::new(),
        };
        let hit = self.same_key(a, &mut key)?;
        let built = matches!(self.cache.get(slot), Some(Some((_, Some(_)))));
        let new_op = if hit && built {
            None
        } else {
            Some(self.build(name, a)?)
        };
        let entry = self
            .cache
            .get_mut(slot)
            .ok_or("call slot out of range")?
            .get_or_insert_with(Default::default);
        entry.0 = key;
        if new_op.is_some() {
            entry.1 = new_op;
        }
        match &entry.1 {
            Some(op) => op.execute(&mut self.core).map_err(e),
            None => Err("no instruction".into()),
        }
    }

    fn build(&self, name: &str, a: &[Arg]) -> RunResult<Op> {
        let need = |n: usize| {
            if a.len() == n {
                Ok(())
            } else {
                Err(format!("takes {n} arguments, got {}", a.len()))
            }
        };
        let e = |r: npusim_ascend::AscendError| r.to_string();
        if name == "data_move" {
            need(7)?;
            let dst = self.tensor(&a[0], "dst")?;
            let src = self.tensor(&a[1], "src")?;
            let v: Vec<i64> = (2..7)
                .map(|i| self.int(&a[i], "data_move"))
                .collect::<RunResult<_>>()?;
            let m = DataMove::new(
                self.chip,
                "data_move",
                &dst,
                &src,
                v[0],
                v[1],
                v[2],
                v[3],
                v[4],
            )
            .map_err(e)?;
            return Ok(Op::Move(m));
        }
        let instr =
            Instr::by_name(name).ok_or_else(|| "not an instruction npusim knows".to_string())?;
        let tik_name: &'static str = if instr.tik_name() == name {
            instr.tik_name()
        } else {
            instr.tik_legacy_name()
        };
        let legacy = tik_name != instr.tik_name();
        let ints = |m: &Self, from: usize| -> RunResult<Vec<i64>> {
            a[from..].iter().map(|x| m.int(x, "stride")).collect()
        };
        let shape = instr.shape();
        match shape {
            Shape::CmpBits => {
                need(if legacy { 8 } else { 6 })?;
                let dst = self.tensor(&a[0], "dst")?;
                let s0 = self.tensor(&a[1], "src0")?;
                let s1 = self.tensor(&a[2], "src1")?;
                let v = ints(self, 3)?;
                let (blk, rep) = if legacy {
                    ([v[1], v[2]], [v[3], v[4]])
                } else {
                    ([1, 1], [v[1], v[2]])
                };
                let mode = instr.cmp_mode().ok_or("no comparison mode")?;
                instr
                    .check_type(tik_name, self.chip.id, "src0", s0.dtype)
                    .map_err(e)?;
                let op = Vcmpv::strided(
                    self.chip,
                    tik_name,
                    mode,
                    &dst,
                    &s0,
                    Some(&s1),
                    None,
                    v[0],
                    blk,
                    rep,
                )
                .map_err(e)?;
                Ok(Op::Cmpv(op))
            }
            Shape::Binary | Shape::BinaryAcc | Shape::Ternary => {
                need(if legacy { 11 } else { 8 })?;
                let mask = self.mask(&a[0])?;
                let dst = self.tensor(&a[1], "dst")?;
                let s0 = self.tensor(&a[2], "src0")?;
                let s1 = self.tensor(&a[3], "src1")?;
                let v = ints(self, 4)?;
                let (blk, rep) = if legacy {
                    ([v[1], v[2], v[3]], [v[4], v[5], v[6]])
                } else {
                    ([1, 1, 1], [v[1], v[2], v[3]])
                };
                self.vec(
                    instr,
                    tik_name,
                    &dst,
                    &[&s0, &s1],
                    None,
                    CastRound::None,
                    mask,
                    v[0],
                    blk,
                    rep,
                )
            }
            Shape::Unary | Shape::Convert => {
                let conv = shape == Shape::Convert;
                let base = if conv { 1 } else { 0 };
                need(base + if legacy { 8 } else { 6 })?;
                let mask = self.mask(&a[0])?;
                let round = if conv {
                    match &a[1] {
                        Arg::Str(s) => tik_round(s)?,
                        _ => return Err("round_mode: a string".into()),
                    }
                } else {
                    CastRound::None
                };
                let dst = self.tensor(&a[1 + base], "dst")?;
                let src = self.tensor(&a[2 + base], "src")?;
                let v = ints(self, 3 + base)?;
                let (blk, rep) = if legacy {
                    ([v[1], v[2], 1], [v[3], v[4], 0])
                } else {
                    ([1, 1, 1], [v[1], v[2], 0])
                };
                self.vec(
                    instr,
                    tik_name,
                    &dst,
                    &[&src],
                    None,
                    round,
                    mask,
                    v[0],
                    blk,
                    rep,
                )
            }
            Shape::Scalar | Shape::ScalarDst => {
                need(if legacy { 9 } else { 7 })?;
                let mask = self.mask(&a[0])?;
                let dst = self.tensor(&a[1], "dst")?;
                let src = self.tensor(&a[2], "src")?;
                let sc = self.scalar(&a[3], src.dtype)?;
                let v = ints(self, 4)?;
                let (blk, rep) = if legacy {
                    ([v[1], v[2], 1], [v[3], v[4], 0])
                } else {
                    ([1, 1, 1], [v[1], v[2], 0])
                };
                self.vec(
                    instr,
                    tik_name,
                    &dst,
                    &[&src],
                    Some(sc),
                    CastRound::None,
                    mask,
                    v[0],
                    blk,
                    rep,
                )
            }
            Shape::Dup => {
                need(if legacy { 6 } else { 5 })?;
                let mask = self.mask(&a[0])?;
                let dst = self.tensor(&a[1], "dst")?;
                let sc = self.scalar(&a[2], dst.dtype)?;
                let v = ints(self, 3)?;
                let (blk, rep) = if legacy {
                    ([v[1], 1, 1], [v[2], 0, 0])
                } else {
                    ([1, 1, 1], [v[1], 0, 0])
                };
                self.vec(
                    instr,
                    tik_name,
                    &dst,
                    &[],
                    Some(sc),
                    CastRound::None,
                    mask,
                    v[0],
                    blk,
                    rep,
                )
            }
            other => Err(format!(
                "the {other:?} form is not available from npusim.tik yet"
            )),
        }
    }

    #[allow(clippy::too_many_arguments)] // the driver's parameter list
    fn vec(
        &self,
        instr: Instr,
        name: &'static str,
        dst: &Operand,
        srcs: &[&Operand],
        scalar: Option<Scalar>,
        round: CastRound,
        mask: MaskArg,
        repeat: i64,
        blk: [i64; 3],
        rep: [i64; 3],
    ) -> RunResult<Op> {
        let e = |r: npusim_ascend::AscendError| r.to_string();
        let op = VecOp::new(
            self.chip,
            &VecArgs {
                instr,
                name,
                face: Face::Tik,
                dst,
                srcs,
                scalar,
                round,
                mask,
                is_set_mask: true,
                repeat,
                blk,
                rep,
                blk_max: 255,
            },
        )
        .map_err(e)?;
        Ok(Op::Vector(op))
    }
}

fn tik_round(s: &str) -> RunResult<CastRound> {
    Ok(match s {
        "" | "none" => CastRound::None,
        "round" => CastRound::Rint,
        "floor" => CastRound::Floor,
        "ceil" | "ceiling" => CastRound::Ceil,
        "away-zero" => CastRound::Round,
        "to-zero" => CastRound::Trunc,
        "odd" => CastRound::Odd,
        _ => {
            return Err(format!(
                "round_mode `{s}`: one of '', none, round, floor, ceil, away-zero, to-zero, odd"
            ));
        }
    })
}

/// Runs a recorded program with the fed arrays; returns the outputs in `program.outputs` order.
pub fn run(
    p: &mut Program,
    feed: &[(String, NpyArray)],
    max_steps: u64,
) -> RunResult<Vec<(String, NpyArray)>> {
    let mut calls = 0;
    number_calls(&mut p.body, &mut calls);
    let chip = ChipProfile::by_name(&p.chip).ok_or_else(|| format!("unknown chip `{}`", p.chip))?;
    let mut tensors = Vec::with_capacity(p.decls.len());
    let (mut gm_used, mut ub_used) = (0u64, 0u64);
    for d in &p.decls {
        let dtype = ElemType::parse(&d.dtype).ok_or_else(|| {
            format!(
                "Tensor `{}`: `{}` is not a TIK element type",
                d.name, d.dtype
            )
        })?;
        let bytes = d
            .shape
            .iter()
            .try_fold(1u64, |a, &n| a.checked_mul(n as u64))
            .and_then(|n| n.checked_mul(dtype.size() as u64))
            .ok_or_else(|| format!("Tensor `{}`: size overflows", d.name))?;
        let (space, used) = match d.scope.as_str() {
            "gm" => (MemSpace::Gm, &mut gm_used),
            "ubuf" => (MemSpace::Ub, &mut ub_used),
            s => return Err(format!("Tensor `{}`: scope `{s}` is not modelled", d.name)),
        };
        let base = used.div_ceil(32) * 32;
        if space == MemSpace::Ub {
            let cap = chip.capacity(MemSpace::Ub).unwrap_or(0) as u64;
            if base + bytes > cap {
                return Err(format!(
                    "Tensor `{}`: {bytes} bytes at UB offset {base} exceed the {cap}-byte unified buffer of {}",
                    d.name, chip.name
                ));
            }
        }
        *used = base + bytes;
        tensors.push((
            Operand {
                tensor: Arc::from(d.name.as_str()),
                space,
                dtype,
                tensor_base: base,
                tensor_bytes: bytes,
                offset: 0,
            },
            d,
        ));
    }
    if gm_used > 16 << 30 {
        return Err(format!("{gm_used} bytes of GM tensors exceed 16 GiB"));
    }
    let mut core = VectorCore::new(chip.id, gm_used.div_ceil(32) as usize * 32);
    for (name, arr) in feed {
        let (op, d) = tensors
            .iter()
            .find(|(_, d)| &d.name == name)
            .ok_or_else(|| format!("feed_dict: no tensor `{name}`"))?;
        if op.space != MemSpace::Gm || !p.inputs.iter().any(|i| i == name) {
            return Err(format!("feed_dict: `{name}` is not a BuildCCE input in GM"));
        }
        if arr.dtype != op.dtype || arr.len() != d.shape.iter().product::<usize>() {
            return Err(format!(
                "feed_dict: `{name}` is {} {:?}, the tensor is {} {:?}",
                arr.dtype, arr.shape, op.dtype, d.shape
            ));
        }
        core.memory_mut(MemSpace::Gm)
            .and_then(|m| Ok(m.write(op.tensor_base, &arr.data)?))
            .map_err(|e| e.to_string())?;
    }
    if let Some(m) = p.inputs.iter().find(|i| !feed.iter().any(|(n, _)| n == *i)) {
        return Err(format!("feed_dict: no array for input `{m}`"));
    }
    // One core per run: the Scalars' initial values are evaluated on the machine itself (with no
    // variables bound yet) instead of on a second, throw-away core.
    let mut m = Machine {
        chip,
        core,
        tensors,
        vars: Vec::new(),
        steps: 0,
        max_steps,
        cache: vec![None; calls],
    };
    m.vars = p
        .vars
        .iter()
        .map(|e| m.eval(e))
        .collect::<RunResult<Vec<_>>>()?;
    m.exec_block(&p.body)?;
    p.outputs
        .iter()
        .map(|n| {
            let (op, d) = m
                .tensors
                .iter()
                .find(|(_, d)| &d.name == n)
                .ok_or_else(|| format!("BuildCCE: no tensor `{n}`"))?;
            let data = m
                .core
                .memory(MemSpace::Gm)
                .and_then(|mem| Ok(mem.bytes(op.tensor_base, op.tensor_bytes)?))
                .map_err(|e| e.to_string())?
                .to_vec();
            Ok((
                n.clone(),
                NpyArray {
                    dtype: op.dtype,
                    shape: d.shape.clone(),
                    data,
                },
            ))
        })
        .collect()
}
