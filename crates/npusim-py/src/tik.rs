//! The TIK program the Python face records (`npusim.tik`), and its interpreter.
//!
//! TIK builds an IR when the Python code runs: `for_range` and `if_scope` bodies are recorded
//! once, with loop variables, `Scalar`s and `Expr`s left symbolic. `npusim.tik` does the same
//! and hands the recorded program here as JSON.
//!
//! Decode once: [`Kernel::compile`] turns the JSON into a tree of pre-decoded statements before
//! anything runs. Every call is resolved to its instruction (table row, TIK spelling, operand
//! form) and its argument count and kinds are checked; every tensor argument is resolved to the
//! tensor's operand; every expression is compiled to a tree of enum operators, with constant
//! sub-expressions folded. A call whose parameters are all constant is built (through
//! npusim-ascend's checked constructors, so an error names the instruction, the parameter, the
//! rule and the value) the first time it runs and then only executed: an iteration of a loop
//! over such a call is one `execute` of the built instruction, with no lookup, no allocation
//! and no re-validation. A call with loop-dependent parameters evaluates them into its key;
//! when the key changes, the instruction built for those values is looked up (one variant per
//! distinct tuple, up to [`MAX_VARIANTS`]) and built only the first time. Built instructions
//! stay in the [`Kernel`], so a second `start_debug` of the same kernel builds none.
//!
//! Instruction forms follow the operand shape of the instruction table row the TIK name
//! resolves to: `vec_*` names take repeat strides, the legacy names take block strides too (see
//! `npusim_ascend::tik` for every parameter list).

use npusim_ascend::core::{Operand, VectorCore};
use npusim_ascend::isa::{CastRound, Instr, Shape};
use npusim_ascend::mask::MaskArg;
use npusim_ascend::misc::{BrcbOp, CmpMaskOp};
use npusim_ascend::nchwconv::{TransDataTo5HDParams, TransOp};
use npusim_ascend::ops::{DataMove, Op, PairReduceSum, Scalar, Vcmpv};
use npusim_ascend::reduce::ReduceOp;
use npusim_ascend::select::{SelectOp, Src1};
use npusim_ascend::sort::MrgSort4Info;
use npusim_ascend::vector::{Face, VecArgs, VecOp};
use npusim_core::{ChipProfile, ElemType, MemSpace, NpyArray};
use serde::Deserialize;
use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

/// A recorded kernel, as `npusim.tik` serialises it.
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
    },
    /// `Scalar.set_as(tensor[i])`: the Scalar takes the value of one tensor element.
    Load {
        var: usize,
        src: TensorArg,
        line: u32,
    },
    /// `tik_instance.printf(format_string, *arg)` (npusim_ascend::print::tik_printf).
    Print {
        fmt: String,
        args: Vec<Arg>,
        /// The loop variable of the enclosing `for_range(..., block_num=N)` (the block index).
        #[serde(default)]
        block: Option<usize>,
        /// Most characters of the format (`set_printf_params`: `single_print_length - 32`).
        #[serde(default)]
        max_chars: Option<usize>,
        /// The print's index in recording order (the Python side keeps its file and line).
        #[serde(default)]
        site: usize,
        line: u32,
    },
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

/// A tensor from a start element.
#[derive(Deserialize)]
pub struct TensorArg {
    t: String,
    off: Expr,
}

/// A call argument.
#[derive(Deserialize)]
#[serde(untagged)]
pub enum Arg {
    Tensor(TensorArg),
    /// A list of tensors (`vnchwconv`'s address lists, `vmrgsort`'s source lists).
    Tensors {
        tl: Vec<TensorArg>,
    },
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

// ---------------------------------------------------------------------------------------------
// Expressions.

/// An `Expr` operator, resolved from its spelling once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BinOp {
    Add,
    Sub,
    Mul,
    /// `/`: floor division on integers (as `//`), true division on floats.
    Div,
    FloorDiv,
    Mod,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    And,
    Or,
    Min,
    Max,
}

impl BinOp {
    fn parse(s: &str) -> Option<BinOp> {
        Some(match s {
            "+" => BinOp::Add,
            "-" => BinOp::Sub,
            "*" => BinOp::Mul,
            "/" => BinOp::Div,
            "//" => BinOp::FloorDiv,
            "%" => BinOp::Mod,
            "<" => BinOp::Lt,
            "<=" => BinOp::Le,
            ">" => BinOp::Gt,
            ">=" => BinOp::Ge,
            "==" => BinOp::Eq,
            "!=" => BinOp::Ne,
            "and" => BinOp::And,
            "or" => BinOp::Or,
            "min" => BinOp::Min,
            "max" => BinOp::Max,
            _ => return None,
        })
    }

    fn apply(self, a: Num, b: Num) -> RunResult<Num> {
        use BinOp as O;
        use Num::{F, I};
        let cmp = |c: bool| Ok(I(c as i64));
        match (a, b) {
            (I(x), I(y)) => match self {
                O::Add => Ok(I(x.wrapping_add(y))),
                O::Sub => Ok(I(x.wrapping_sub(y))),
                O::Mul => Ok(I(x.wrapping_mul(y))),
                O::Div | O::FloorDiv => {
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
                O::Mod => {
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
                O::Lt => cmp(x < y),
                O::Le => cmp(x <= y),
                O::Gt => cmp(x > y),
                O::Ge => cmp(x >= y),
                O::Eq => cmp(x == y),
                O::Ne => cmp(x != y),
                O::And => cmp(x != 0 && y != 0),
                O::Or => cmp(x != 0 || y != 0),
                O::Min => Ok(I(x.min(y))),
                O::Max => Ok(I(x.max(y))),
            },
            _ => {
                let (x, y) = (a.as_f64(), b.as_f64());
                match self {
                    O::Add => Ok(F(x + y)),
                    O::Sub => Ok(F(x - y)),
                    O::Mul => Ok(F(x * y)),
                    O::Div => Ok(F(x / y)),
                    O::FloorDiv => Ok(F((x / y).floor())),
                    O::Lt => cmp(x < y),
                    O::Le => cmp(x <= y),
                    O::Gt => cmp(x > y),
                    O::Ge => cmp(x >= y),
                    O::Eq => cmp(x == y),
                    O::Ne => cmp(x != y),
                    O::Min => Ok(F(x.min(y))),
                    O::Max => Ok(F(x.max(y))),
                    O::Mod | O::And | O::Or => Err(format!("Expr operator {self:?} on floats")),
                }
            }
        }
    }
}

/// A compiled expression: constants folded, variables by index (checked at compile time).
#[derive(Clone, Debug)]
enum CExpr {
    Const(Num),
    Var(usize),
    Bin(BinOp, Box<CExpr>, Box<CExpr>),
}

impl CExpr {
    fn compile(e: &Expr, ints: &[bool]) -> RunResult<CExpr> {
        Ok(match e {
            Expr::Int(i) => CExpr::Const(Num::I(*i)),
            Expr::Float(f) => CExpr::Const(Num::F(*f)),
            Expr::Var { var } => {
                if *var >= ints.len() {
                    return Err(format!("unknown variable {var}"));
                }
                CExpr::Var(*var)
            }
            Expr::Node { op, a, b } => {
                let o = BinOp::parse(op).ok_or_else(|| format!("unknown Expr operator `{op}`"))?;
                let (a, b) = (CExpr::compile(a, ints)?, CExpr::compile(b, ints)?);
                match (&a, &b) {
                    // Fold constants (an error, e.g. a division by zero, stays for the run).
                    (CExpr::Const(x), CExpr::Const(y)) => match o.apply(*x, *y) {
                        Ok(v) => CExpr::Const(v),
                        Err(_) => CExpr::Bin(o, Box::new(a), Box::new(b)),
                    },
                    _ => CExpr::simplify(o, a, b, ints),
                }
            }
        })
    }

    fn is_const(&self) -> bool {
        matches!(self, CExpr::Const(_))
    }

    /// Whether the value is an integer whatever the variables hold (`ints`: the variables known
    /// to be integers, the loop variables).
    fn is_int(&self, ints: &[bool]) -> bool {
        use BinOp as O;
        match self {
            CExpr::Const(n) => matches!(n, Num::I(_)),
            CExpr::Var(v) => ints.get(*v).copied().unwrap_or(false),
            CExpr::Bin(o, a, b) => match o {
                O::Lt | O::Le | O::Gt | O::Ge | O::Eq | O::Ne | O::And | O::Or => true,
                _ => a.is_int(ints) && b.is_int(ints),
            },
        }
    }

    /// Drops the identities TIK's tensor indexing leaves in offsets (`0 + i * 128 * 1`): `0 +
    /// x`, `x + 0`, `x - 0`, `1 * x`, `x * 1`, `x // 1` where x is an integer (the same value,
    /// and x itself is still evaluated, so its errors stay).
    fn simplify(o: BinOp, a: CExpr, b: CExpr, ints: &[bool]) -> CExpr {
        let is = |e: &CExpr, k: i64| matches!(e, CExpr::Const(Num::I(v)) if *v == k);
        match o {
            BinOp::Add if is(&a, 0) && b.is_int(ints) => b,
            BinOp::Add | BinOp::Sub if is(&b, 0) && a.is_int(ints) => a,
            BinOp::Mul if is(&a, 1) && b.is_int(ints) => b,
            BinOp::Mul | BinOp::Div | BinOp::FloorDiv if is(&b, 1) && a.is_int(ints) => a,
            _ => CExpr::Bin(o, Box::new(a), Box::new(b)),
        }
    }

    #[inline]
    fn eval(&self, vars: &[Num]) -> RunResult<Num> {
        match self {
            CExpr::Const(n) => Ok(*n),
            // Indices were checked against the variable count at compile time.
            CExpr::Var(v) => Ok(vars.get(*v).copied().unwrap_or(Num::I(0))),
            CExpr::Bin(o, a, b) => o.apply(a.eval(vars)?, b.eval(vars)?),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Calls.

/// A call argument after compilation: numbers are indices into the call's parameter list.
#[derive(Debug)]
enum CArg {
    /// Tensor index, parameter index of the start element.
    Tensor(usize, usize),
    Tensors(Vec<(usize, usize)>),
    Num(usize),
    Str(String),
    List(Range<usize>),
}

/// What a call name resolves to.
#[derive(Clone, Copy, Debug)]
enum Form {
    DataMove,
    DataMovePad,
    SetAtomicAdd,
    /// `set_rpn_offset(number)` (viou's offset).
    SetRpnOffset,
    /// `mov_tensor_to_cmpmask` (`true`) / `mov_cmpmask_to_tensor` (`false`).
    MovCmpMask(bool),
    /// A row of the instruction table under one of its TIK spellings (`legacy`: the `v*` name
    /// with block strides, where it differs from the `vec_*` name).
    Vector {
        instr: Instr,
        name: &'static str,
        legacy: bool,
    },
}

impl Form {
    fn resolve(name: &str) -> Option<Form> {
        Some(match name {
            "data_move" => Form::DataMove,
            "data_move_pad" => Form::DataMovePad,
            "set_atomic_add" => Form::SetAtomicAdd,
            "set_rpn_offset" => Form::SetRpnOffset,
            "mov_tensor_to_cmpmask" => Form::MovCmpMask(true),
            "mov_cmpmask_to_tensor" => Form::MovCmpMask(false),
            _ => {
                // TIK spellings only (the Ascend C names are not TIK calls); the first row
                // wins, so `vcadd` is WholeReduceSum (RepeatReduceSum is the same hardware
                // instruction under an Ascend C name).
                let instr = Instr::ALL.iter().copied().find(|i| {
                    i.shape() != Shape::Move
                        && (i.tik_name() == name || i.tik_legacy_name() == name)
                })?;
                let legacy = instr.tik_name() != name;
                let name = if legacy {
                    instr.tik_legacy_name()
                } else {
                    instr.tik_name()
                };
                Form::Vector {
                    instr,
                    name,
                    legacy,
                }
            }
        })
    }

    /// The number of arguments the TIK call takes.
    fn arity(self) -> usize {
        let Form::Vector { instr, legacy, .. } = self else {
            return match self {
                Form::DataMove => 7,
                Form::DataMovePad => 9,
                _ => 1,
            };
        };
        let l = |legacy_n: usize, n: usize| if legacy { legacy_n } else { n };
        match instr.shape() {
            Shape::CmpBits => l(8, 6),
            Shape::Binary | Shape::BinaryAcc | Shape::Ternary => l(11, 8),
            Shape::Unary => l(8, 6),
            Shape::Convert => l(9, 7),
            Shape::Scalar | Shape::ScalarDst => l(9, 7),
            Shape::Dup => l(6, 5),
            Shape::CmpBitsScalar => 6,
            Shape::Select => l(13, 10),
            // vec_reduce_max / _min take cal_index; vec_reduce_add does not.
            Shape::ReduceAll if instr == Instr::ReduceSum => 6,
            Shape::ReduceAll => 7,
            Shape::GatherMask => 8,
            Shape::Gather | Shape::Brcb => 5,
            // vgatherb(dst, src, offset, repeat_times, dst_blk_stride, dst_rep_stride).
            Shape::GatherBlock => 6,
            // vbi(mask, dst, src0, src1, src0_offset, dst_blk_stride, vertical_repeat_times,
            // horizontal_repeat_times, repeat_mode, vertical_repeat_offset).
            Shape::Bilinear => 10,
            // vtranspose(dst, src): one repeat.
            Shape::Transpose => l(2, 5),
            Shape::Index => 3,
            Shape::CmpMask => 5,
            Shape::PairReduce => l(7, 6),
            Shape::WholeReduce | Shape::BlockReduce | Shape::RepeatReduce => 7,
            Shape::AddrListTranspose => 7,
            Shape::ProposalField | Shape::Sort32 => 4,
            Shape::ProposalSort => 3,
            // viou / vaadd(dst, src0, src1, repeat_times); v4dtrans(chw2hwc, dst, src, m_len,
            // channels).
            Shape::ProposalPair => 4,
            Shape::Trans4d => 5,
            Shape::MrgSort => match instr {
                Instr::MrgSort4 => 6,
                _ => 5,
            },
            Shape::Move => 7,
        }
    }
}

/// The TIK parameter names of an instruction call, in TIK's order (for keyword arguments), or
/// `None` for a name that is not an element-wise, select, compare or whole-tensor reduction
/// instruction.
pub fn param_names(name: &str) -> Option<Vec<&'static str>> {
    let Form::Vector { instr, legacy, .. } = Form::resolve(name)? else {
        return None;
    };
    if instr.shape() == Shape::Bilinear {
        return Some(vec![
            "mask",
            "dst",
            "src0",
            "src1",
            "src0_offset",
            "dst_blk_stride",
            "vertical_repeat_times",
            "horizontal_repeat_times",
            "repeat_mode",
            "vertical_repeat_offset",
        ]);
    }
    if instr.shape() == Shape::ReduceAll {
        let mut v = vec![
            "mask",
            "dst",
            "src",
            "work_tensor",
            "repeat_times",
            "src_rep_stride",
        ];
        if instr != Instr::ReduceSum {
            v.push("cal_index");
        }
        return Some(v);
    }
    instr.shape().tik_params(legacy)
}

/// A built instruction.
#[derive(Debug)]
enum Built {
    Op(Op),
    /// MrgSort / MrgSort4 (their checks read the core, so they run through the sort driver).
    Merge {
        instr: Instr,
        name: &'static str,
        dst: Operand,
        src: [Operand; 4],
        info: MrgSort4Info,
    },
}

impl Built {
    #[inline]
    fn execute(&self, core: &mut VectorCore) -> npusim_ascend::Result<()> {
        match self {
            Built::Op(op) => op.execute(core),
            Built::Merge {
                instr,
                name,
                dst,
                src,
                info,
            } => {
                let [a, b, c, d] = src;
                if *instr == Instr::MrgSort4 {
                    npusim_ascend::sort::mrg_sort4(core, name, dst, [a, b, c, d], info)
                } else {
                    npusim_ascend::sort::mrg_sort(core, name, dst, [a, b, c, d], info)
                }
            }
        }
    }
}

/// A pre-decoded call statement with its instruction cache.
#[derive(Debug)]
struct CCall {
    name: String,
    line: u32,
    form: Form,
    args: Vec<CArg>,
    /// Every numeric parameter (tensor start elements, numbers, list items), in order.
    params: Vec<CExpr>,
    /// Whether any parameter depends on a variable.
    dynamic: bool,
    /// The parameter values of the last run of this call.
    key: Vec<Num>,
    /// `key` as hashable words (tag, bits per parameter): scratch for the variant lookup.
    kbits: Vec<u64>,
    /// The instructions built for each distinct parameter tuple seen (a loop over tiles builds
    /// each tile's instruction once, and the next run of the kernel builds none).
    variants: Vec<Built>,
    index: HashMap<Box<[u64]>, usize>,
    /// The variant of the current `key`.
    cur: Option<usize>,
}

/// Most variants one call keeps; past it the call's cache starts over.
const MAX_VARIANTS: usize = 1024;

/// A tensor of the kernel: its operand at element 0 and its element count.
struct TensorInfo {
    op: Operand,
    elems: u64,
    shape: Vec<usize>,
}

/// The evaluated arguments of one call, with typed accessors.
struct Args<'a> {
    args: &'a [CArg],
    vals: &'a [Num],
    tensors: &'a [TensorInfo],
}

impl Args<'_> {
    fn val(&self, p: usize) -> Num {
        self.vals.get(p).copied().unwrap_or(Num::I(0))
    }

    fn operand(&self, t: usize, p: usize, what: &str) -> RunResult<Operand> {
        let info = self
            .tensors
            .get(t)
            .ok_or_else(|| format!("{what}: unknown tensor"))?;
        let off = self.val(p).as_i64();
        if off < 0 || off as u64 >= info.elems.max(1) {
            return Err(format!(
                "{what}: start element {off} is outside tensor `{}` ({} elements)",
                info.op.tensor, info.elems
            ));
        }
        let mut o = info.op.clone();
        o.offset = off as u64;
        Ok(o)
    }

    fn tensor(&self, i: usize, what: &str) -> RunResult<Operand> {
        match self.args.get(i) {
            Some(CArg::Tensor(t, p)) => self.operand(*t, *p, what),
            _ => Err(format!("{what}: expected a tensor")),
        }
    }

    fn tensors(&self, i: usize, what: &str) -> RunResult<Vec<Operand>> {
        match self.args.get(i) {
            Some(CArg::Tensors(l)) => l.iter().map(|(t, p)| self.operand(*t, *p, what)).collect(),
            _ => Err(format!("{what}: expected a list of tensors")),
        }
    }

    fn int(&self, i: usize, what: &str) -> RunResult<i64> {
        match self.args.get(i) {
            Some(CArg::Num(p)) => Ok(self.val(*p).as_i64()),
            _ => Err(format!("{what}: expected an integer")),
        }
    }

    fn ints(&self, from: usize, what: &str) -> RunResult<Vec<i64>> {
        (from..self.args.len()).map(|i| self.int(i, what)).collect()
    }

    fn list(&self, i: usize, what: &str) -> RunResult<Vec<i64>> {
        match self.args.get(i) {
            Some(CArg::List(r)) => Ok(r.clone().map(|p| self.val(p).as_i64()).collect()),
            _ => Err(format!("{what}: expected a list of integers")),
        }
    }

    fn mask(&self, i: usize) -> RunResult<MaskArg> {
        match self.args.get(i) {
            Some(CArg::Num(p)) => {
                let n = self.val(*p).as_i64();
                u64::try_from(n)
                    .map(MaskArg::Count)
                    .map_err(|_| format!("mask: {n} is negative"))
            }
            Some(CArg::List(r)) if r.len() == 2 => {
                let h = self.val(r.start).as_i64() as u64;
                let lo = self.val(r.start + 1).as_i64() as u64;
                Ok(MaskArg::tik_list(h, lo))
            }
            _ => Err("mask: an int or a list [mask_h, mask_l]".into()),
        }
    }

    fn scalar(&self, i: usize, dtype: ElemType, what: &str) -> RunResult<Scalar> {
        let Some(CArg::Num(p)) = self.args.get(i) else {
            return Err(format!("{what}: expected a number, Scalar or Expr"));
        };
        let v = self.val(*p);
        Ok(if dtype.is_float() {
            Scalar::Float(v.as_f64())
        } else {
            Scalar::Int(v.as_i64())
        })
    }

    fn string(&self, i: usize, what: &str) -> RunResult<&str> {
        match self.args.get(i) {
            Some(CArg::Str(s)) => Ok(s),
            _ => Err(format!("{what}: a string")),
        }
    }
}

fn ascend(e: npusim_ascend::AscendError) -> String {
    e.to_string()
}

fn vec_op(chip: &'static ChipProfile, a: &VecArgs<'_>) -> RunResult<Built> {
    Ok(Built::Op(Op::Vector(VecOp::new(chip, a).map_err(ascend)?)))
}

/// Builds (and checks) the instruction of a call from its evaluated parameters.
fn build(chip: &'static ChipProfile, form: Form, a: &Args<'_>) -> RunResult<Built> {
    let e = ascend;
    let (instr, name, legacy) = match form {
        Form::DataMove => {
            let dst = a.tensor(0, "dst")?;
            let src = a.tensor(1, "src")?;
            let v = a.ints(2, "data_move")?;
            let m = DataMove::new(chip, "data_move", &dst, &src, v[0], v[1], v[2], v[3], v[4])
                .map_err(e)?;
            return Ok(Built::Op(Op::Move(m)));
        }
        Form::DataMovePad => {
            // (dst, src, nburst, burst, dst_gap, src_gap, right_padding, left_padding,
            // padding_value): a `""` padding value is None.
            let dst = a.tensor(0, "dst")?;
            let src = a.tensor(1, "src")?;
            let v: Vec<i64> = (2..8)
                .map(|i| a.int(i, "data_move_pad"))
                .collect::<RunResult<_>>()?;
            let pad = match a.args.get(8) {
                Some(CArg::Str(_)) => None,
                _ => Some(a.scalar(8, dst.dtype, "padding_value")?),
            };
            let op = npusim_ascend::pad::MovePad::new(
                chip,
                "data_move_pad",
                &dst,
                &src,
                v[0],
                v[1],
                v[3],
                v[2],
                v[5],
                v[4],
                pad,
                // TIK's data_move_pad has no compact mode (an Ascend C 950 form).
                false,
            )
            .map_err(e)?;
            return Ok(Built::Op(Op::MovePad(op)));
        }
        Form::SetAtomicAdd => {
            let t = match a.int(0, "mode")? {
                0 => None,
                1 => Some(ElemType::F32),
                2 => Some(ElemType::F16),
                m => {
                    return Err(format!(
                        "mode: {m} is not 0 (none), 1 (float32) or 2 (float16)"
                    ));
                }
            };
            return Ok(Built::Op(Op::Atomic(t)));
        }
        Form::SetRpnOffset => {
            let Some(CArg::Num(p)) = a.args.first() else {
                return Err("number: expected a number".into());
            };
            let x = a.val(*p).as_f64();
            npusim_ascend::sort::rpn_offset_value(chip.id, "set_rpn_offset", x).map_err(e)?;
            return Ok(Built::Op(Op::RpnOffset(x)));
        }
        Form::MovCmpMask(to_reg) => {
            let t = a.tensor(0, if to_reg { "src" } else { "dst" })?;
            return Ok(Built::Op(Op::MovCmpMask(t, to_reg)));
        }
        Form::Vector {
            instr,
            name,
            legacy,
        } => (instr, name, legacy),
    };
    let vec = |dst: &Operand,
               srcs: &[&Operand],
               scalar: Option<Scalar>,
               round: CastRound,
               mask: MaskArg,
               repeat: i64,
               blk: [i64; 3],
               rep: [i64; 3]| {
        vec_op(
            chip,
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
    };
    let shape = instr.shape();
    match shape {
        Shape::CmpBits | Shape::CmpBitsScalar => {
            let scalar_form = shape == Shape::CmpBitsScalar;
            let dst = a.tensor(0, "dst")?;
            let s0 = a.tensor(1, if scalar_form { "src" } else { "src0" })?;
            let (s1, sc) = if scalar_form {
                (None, Some(a.scalar(2, s0.dtype, "scalar")?))
            } else {
                (Some(a.tensor(2, "src1")?), None)
            };
            let v = a.ints(3, "stride")?;
            let (blk, rep) = if scalar_form {
                ([v[1], 1], [v[2], 0])
            } else if legacy {
                ([v[1], v[2]], [v[3], v[4]])
            } else {
                ([1, 1], [v[1], v[2]])
            };
            let mode = instr.cmp_mode().ok_or("no comparison mode")?;
            instr
                .check_type(name, chip.id, "src0", s0.dtype)
                .map_err(e)?;
            let op = Vcmpv::strided(chip, name, mode, &dst, &s0, s1.as_ref(), sc, v[0], blk, rep)
                .map_err(e)?;
            Ok(Built::Op(Op::Cmpv(op)))
        }
        Shape::Binary | Shape::BinaryAcc | Shape::Ternary => {
            let mask = a.mask(0)?;
            let dst = a.tensor(1, "dst")?;
            let s0 = a.tensor(2, "src0")?;
            let s1 = a.tensor(3, "src1")?;
            let v = a.ints(4, "stride")?;
            let (blk, rep) = if legacy {
                ([v[1], v[2], v[3]], [v[4], v[5], v[6]])
            } else {
                ([1, 1, 1], [v[1], v[2], v[3]])
            };
            vec(
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
            let base = usize::from(shape == Shape::Convert);
            let mask = a.mask(0)?;
            let round = if base == 1 {
                let s = a.string(1, "round_mode")?;
                CastRound::parse(s).ok_or_else(|| {
                    format!(
                        "round_mode `{s}`: one of '', none, round, floor, ceil, away-zero, to-zero, odd"
                    )
                })?
            } else {
                CastRound::None
            };
            let dst = a.tensor(1 + base, "dst")?;
            let src = a.tensor(2 + base, "src")?;
            let v = a.ints(3 + base, "stride")?;
            let (blk, rep) = if legacy {
                ([v[1], v[2], 1], [v[3], v[4], 0])
            } else {
                ([1, 1, 1], [v[1], v[2], 0])
            };
            vec(&dst, &[&src], None, round, mask, v[0], blk, rep)
        }
        Shape::Scalar | Shape::ScalarDst => {
            let mask = a.mask(0)?;
            let dst = a.tensor(1, "dst")?;
            let src = a.tensor(2, "src")?;
            let sc = a.scalar(3, src.dtype, "scalar")?;
            let v = a.ints(4, "stride")?;
            let (blk, rep) = if legacy {
                ([v[1], v[2], 1], [v[3], v[4], 0])
            } else {
                ([1, 1, 1], [v[1], v[2], 0])
            };
            vec(
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
            let mask = a.mask(0)?;
            let dst = a.tensor(1, "dst")?;
            let sc = a.scalar(2, dst.dtype, "scalar")?;
            let v = a.ints(3, "stride")?;
            let (blk, rep) = if legacy {
                ([v[1], 1, 1], [v[2], 0, 0])
            } else {
                ([1, 1, 1], [v[1], 0, 0])
            };
            vec(&dst, &[], Some(sc), CastRound::None, mask, v[0], blk, rep)
        }
        Shape::Select => {
            // (mask, mode, dst, sel, src0, src1, repeat, [blk x3,] rep x3); src1 a tensor or
            // (mode 1) a scalar.
            let mask = a.mask(0)?;
            let mode = a.int(1, "mode")?;
            let dst = a.tensor(2, "dst")?;
            let sel = a.tensor(3, "sel")?;
            let s0 = a.tensor(4, "src0")?;
            let s1t = match a.args.get(5) {
                Some(CArg::Tensor(..)) => Some(a.tensor(5, "src1")?),
                _ => None,
            };
            let src1 = match &s1t {
                Some(t) => Src1::Tensor(t),
                None => Src1::Scalar(a.scalar(5, dst.dtype, "src1")?),
            };
            let v = a.ints(6, "stride")?;
            let (blk, rep) = if legacy {
                ([v[1], v[2], v[3]], [v[4], v[5], v[6]])
            } else {
                ([1, 1, 1], [v[1], v[2], v[3]])
            };
            let op = SelectOp::new(
                chip, name, mode, &dst, &sel, &s0, src1, mask, true, v[0], blk, rep,
            )
            .map_err(e)?;
            Ok(Built::Op(Op::Select(op)))
        }
        Shape::ReduceAll => {
            // (mask, dst, src, work_tensor, repeat_times, src_rep_stride[, cal_index]): the
            // Python side passes cal_index (default False) to vec_reduce_max / _min.
            let mask = a.mask(0)?;
            let dst = a.tensor(1, "dst")?;
            let src = a.tensor(2, "src")?;
            let work = a.tensor(3, "work_tensor")?;
            let repeat = a.int(4, "repeat_times")?;
            let src_rep = a.int(5, "src_rep_stride")?;
            let cal_index = instr != Instr::ReduceSum && a.int(6, "cal_index")? != 0;
            let op = npusim_ascend::reduce::tik_reduce_all(
                chip, instr, name, mask, &dst, &src, &work, repeat, src_rep, cal_index,
            )
            .map_err(e)?;
            Ok(Built::Op(op))
        }
        Shape::GatherMask => {
            // (mask, dst, src0, src1_pattern, repeat_times, src0_blk_stride, src0_rep_stride,
            // src1_rep_stride) with a built-in pattern.
            let dst = a.tensor(1, "dst")?;
            let src = a.tensor(2, "src0")?;
            let pattern = a.int(3, "src1_pattern")?;
            let pattern = u8::try_from(pattern)
                .ok()
                .filter(|p| (1..=7).contains(p))
                .ok_or_else(|| {
                    format!("src1_pattern: {pattern} is not a built-in pattern 1..=7")
                })?;
            let v = a.ints(4, "stride")?;
            instr
                .check_type(name, chip.id, "dst", dst.dtype)
                .map_err(e)?;
            Ok(Built::Op(Op::GatherMask(
                dst,
                src,
                pattern,
                [v[1], v[0], v[2], v[3]],
            )))
        }
        Shape::Gather => {
            // (dst, src, src_offset, src_base_addr, count)
            let dst = a.tensor(0, "dst")?;
            let src = a.tensor(1, "src")?;
            let off = a.tensor(2, "src_offset")?;
            let base = a.int(3, "src_base_addr")?;
            let base = u32::try_from(base)
                .map_err(|_| format!("src_base_addr: {base} is outside [0, 2^32)"))?;
            let count = a.int(4, "count")?;
            instr
                .check_type(name, chip.id, "dst", dst.dtype)
                .map_err(e)?;
            Ok(Built::Op(Op::Gather(dst, src, off, base, count)))
        }
        Shape::GatherBlock => {
            // (dst, src, offset, repeat_times, dst_blk_stride, dst_rep_stride)
            let dst = a.tensor(0, "dst")?;
            let src = a.tensor(1, "src")?;
            let off = a.tensor(2, "offset")?;
            let repeat = a.int(3, "repeat_times")?;
            let blk = a.int(4, "dst_blk_stride")?;
            let rep = a.int(5, "dst_rep_stride")?;
            instr
                .check_type(name, chip.id, "dst", dst.dtype)
                .map_err(e)?;
            Ok(Built::Op(Op::Gatherb(dst, src, off, repeat, blk, rep)))
        }
        Shape::Bilinear => {
            let b = npusim_ascend::bilinear::Bilinear {
                mask: a.mask(0)?,
                dst: a.tensor(1, "dst")?,
                src0: a.tensor(2, "src0")?,
                src1: a.tensor(3, "src1")?,
                src0_offset: a.tensor(4, "src0_offset")?,
                dst_blk_stride: a.int(5, "dst_blk_stride")?,
                v_repeat: a.int(6, "vertical_repeat_times")?,
                h_repeat: a.int(7, "horizontal_repeat_times")?,
                repeat_mode: a.int(8, "repeat_mode")? != 0,
                v_r_offset: a.int(9, "vertical_repeat_offset")?,
                tmp: None,
            };
            instr
                .check_type(name, chip.id, "dst", b.dst.dtype)
                .map_err(e)?;
            Ok(Built::Op(Op::Bilinear(Box::new(b))))
        }
        Shape::Transpose => {
            let dst = a.tensor(0, "dst")?;
            let src = a.tensor(1, "src")?;
            let v = if legacy {
                vec![1, 0, 0]
            } else {
                a.ints(2, "stride")?
            };
            instr
                .check_type(name, chip.id, "dst", dst.dtype)
                .map_err(e)?;
            Ok(Built::Op(Op::Transpose(dst, src, v[0], v[1], v[2])))
        }
        Shape::Brcb => {
            let dst = a.tensor(0, "dst")?;
            let src = a.tensor(1, "src")?;
            let v = a.ints(2, "stride")?;
            let op = BrcbOp::new(chip, name, &dst, &src, v[0], v[1], v[2]).map_err(e)?;
            Ok(Built::Op(Op::Brcb(op)))
        }
        Shape::Index => {
            let dst = a.tensor(0, "dst")?;
            let first = a.scalar(1, dst.dtype, "first_value")?;
            let count = a.int(2, "count")?;
            instr
                .check_type(name, chip.id, "dst", dst.dtype)
                .map_err(e)?;
            Ok(Built::Op(Op::Index(dst, first, count)))
        }
        Shape::CmpMask => {
            let mask = a.mask(0)?;
            let s0 = a.tensor(1, "src0")?;
            let s1 = a.tensor(2, "src1")?;
            let v = a.ints(3, "stride")?;
            let mode = instr.cmp_mode().ok_or("no comparison mode")?;
            let op = CmpMaskOp::new(chip, name, mode, &s0, &s1, mask, v[0], v[1]).map_err(e)?;
            Ok(Built::Op(Op::CmpMask(op)))
        }
        Shape::PairReduce => {
            // vec_cpadd(mask, dst, src, repeat, dst_rep, src_rep); vcpadd adds src_blk_stride
            // before src_rep. dst_rep 0 is 1 on chips without the zero form (as TIK).
            let mask = a.mask(0)?;
            let dst = a.tensor(1, "dst")?;
            let src = a.tensor(2, "src")?;
            let v = a.ints(3, "stride")?;
            let (dst_rep, src_blk, src_rep) = if legacy {
                (v[1], v[2], v[3])
            } else {
                (v[1], 1, v[2])
            };
            let dst_rep = if dst_rep == 0 && !chip.vector.pair_reduce_dst_rep_stride_zero {
                1
            } else {
                dst_rep
            };
            let op = PairReduceSum::new(
                chip, &dst, &src, v[0], mask, true, dst_rep, src_blk, src_rep,
            )
            .map_err(e)?;
            Ok(Built::Op(Op::PairReduce(op)))
        }
        Shape::WholeReduce | Shape::BlockReduce | Shape::RepeatReduce => {
            // (mask, dst, src, repeat_times, dst_rep_stride, src_blk_stride, src_rep_stride)
            let mask = a.mask(0)?;
            let dst = a.tensor(1, "dst")?;
            let src = a.tensor(2, "src")?;
            let v = a.ints(3, "stride")?;
            let op = ReduceOp::new(
                chip, instr, name, &dst, &src, mask, true, v[0], v[1], v[2], v[3],
            )
            .map_err(e)?;
            Ok(Built::Op(Op::Reduce(op)))
        }
        Shape::AddrListTranspose => {
            // (dst_high_half, src_high_half, dst_list, src_list, repeat_times, dst_rep_stride,
            // src_rep_stride)
            let dst_high_half = a.int(0, "dst_high_half")? != 0;
            let src_high_half = a.int(1, "src_high_half")? != 0;
            let dl = a.tensors(2, "dst_list")?;
            let sl = a.tensors(3, "src_list")?;
            let sixteen = |l: &[Operand], what: &str| -> RunResult<[Operand; 16]> {
                l.to_vec()
                    .try_into()
                    .map_err(|_| format!("{what}: {} tensors, 16 expected", l.len()))
            };
            let (dl, sl) = (sixteen(&dl, "dst_list")?, sixteen(&sl, "src_list")?);
            let v = a.ints(4, "stride")?;
            let params = TransDataTo5HDParams {
                dst_high_half,
                src_high_half,
                repeat_times: v[0],
                dst_rep_stride: v[1],
                src_rep_stride: v[2],
            };
            let op = TransOp::new(chip, name, &dl.each_ref(), &sl.each_ref(), params).map_err(e)?;
            Ok(Built::Op(Op::Trans5Hd(op)))
        }
        Shape::ProposalField => {
            let dst = a.tensor(0, "dst")?;
            let src = a.tensor(1, "src")?;
            let v = a.ints(2, "repeat_times")?;
            instr
                .check_type(name, chip.id, "src", src.dtype)
                .map_err(e)?;
            Ok(Built::Op(Op::Proposal(instr, dst, src, v[0], v[1])))
        }
        Shape::ProposalSort => {
            let dst = a.tensor(0, "dst")?;
            let src = a.tensor(1, "src")?;
            let r = a.int(2, "repeat_times")?;
            instr
                .check_type(name, chip.id, "src", src.dtype)
                .map_err(e)?;
            Ok(Built::Op(Op::RpSort16(dst, src, r)))
        }
        Shape::ProposalPair => {
            let dst = a.tensor(0, "dst")?;
            let s0 = a.tensor(1, "src0")?;
            let s1 = a.tensor(2, "src1")?;
            let r = a.int(3, "repeat_times")?;
            instr
                .check_type(name, chip.id, "dst", dst.dtype)
                .map_err(e)?;
            Ok(Built::Op(Op::ProposalPair(instr, dst, s0, s1, r)))
        }
        Shape::Trans4d => {
            let chw2hwc = a.int(0, "chw2hwc")? != 0;
            let dst = a.tensor(1, "dst")?;
            let src = a.tensor(2, "src")?;
            let v = a.ints(3, "m_len")?;
            instr
                .check_type(name, chip.id, "src", src.dtype)
                .map_err(e)?;
            Ok(Built::Op(Op::Trans4d(chw2hwc, dst, src, v[0], v[1])))
        }
        Shape::Sort32 => {
            let dst = a.tensor(0, "dst")?;
            let s0 = a.tensor(1, "src0")?;
            let s1 = a.tensor(2, "src1")?;
            let r = a.int(3, "repeat_times")?;
            instr
                .check_type(name, chip.id, "src0", s0.dtype)
                .map_err(e)?;
            Ok(Built::Op(Op::Sort32(dst, s0, s1, r)))
        }
        Shape::MrgSort => {
            // vmrgsort(dst, src_list, element_count_list, if_exhausted_suspension,
            // repeat_times): 2..4 lists, validBit from their count;
            // vmrgsort4(dst, src_list, element_lengths, if_exhausted_suspension, valid_bit,
            // repeat_times).
            let four = instr == Instr::MrgSort4;
            let dst = a.tensor(0, "dst")?;
            let srcs = a.tensors(1, "src_list")?;
            let lens = a.list(2, "element_lengths")?;
            if srcs.is_empty() || srcs.len() > 4 || lens.len() != srcs.len() {
                return Err(format!(
                    "src_list / element_lengths: {} lists and {} lengths; 1 to 4 lists, one length each",
                    srcs.len(),
                    lens.len()
                ));
            }
            let suspend = a.int(3, "if_exhausted_suspension")? != 0;
            let (valid, repeat) = if four {
                (a.int(4, "valid_bit")?, a.int(5, "repeat_times")?)
            } else {
                ((1i64 << srcs.len()) - 1, a.int(4, "repeat_times")?)
            };
            let mut element_lengths = [0u16; 4];
            for (k, &n) in lens.iter().enumerate() {
                element_lengths[k] = u16::try_from(n)
                    .map_err(|_| format!("element_lengths[{k}]: {n} is outside [0, 65535]"))?;
            }
            let info = MrgSort4Info {
                element_lengths,
                if_exhausted_suspension: suspend,
                valid_bit: u16::try_from(valid)
                    .map_err(|_| format!("valid_bit: {valid} is not 3, 7 or 15"))?,
                repeat_times: u16::try_from(repeat)
                    .map_err(|_| format!("repeat_times: {repeat} is outside [0, 255]"))?,
            };
            // Unused list slots repeat the first list (validBit excludes them).
            let src = std::array::from_fn(|k| srcs.get(k).unwrap_or(&srcs[0]).clone());
            Ok(Built::Merge {
                instr,
                name,
                dst,
                src,
                info,
            })
        }
        Shape::Move => Err("data_move is called by its own name".into()),
    }
}

// ---------------------------------------------------------------------------------------------
// Statements.

#[derive(Debug)]
enum CStmt {
    For {
        var: usize,
        begin: CExpr,
        end: CExpr,
        body: Vec<CStmt>,
        line: u32,
    },
    If {
        cond: CExpr,
        then: Vec<CStmt>,
        els: Vec<CStmt>,
        line: u32,
    },
    Set {
        var: usize,
        value: CExpr,
        line: u32,
    },
    Call(Box<CCall>),
    Load {
        var: usize,
        tensor: usize,
        off: CExpr,
        line: u32,
    },
    Print(Box<CPrint>),
}

/// A compiled `printf`.
#[derive(Debug)]
struct CPrint {
    fmt: String,
    args: Vec<PArg>,
    block: Option<usize>,
    params: npusim_ascend::print::TikPrintParams,
    site: usize,
    line: u32,
}

/// A `printf` argument: a value, or a tensor from an element to its end.
#[derive(Debug)]
enum PArg {
    Val(CExpr),
    Tensor(usize, CExpr),
}

/// One print of a TIK run: block, line, text, and the print's index in recording order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TikPrint {
    pub rec: npusim_ascend::print::PrintRec,
    pub site: usize,
}

/// Compiles one call: resolves the name, checks the argument count and kinds, resolves the
/// tensors and compiles the parameters.
fn compile_call(
    name: &str,
    args: &[Arg],
    line: u32,
    tensors: &[TensorInfo],
    ints: &[bool],
) -> RunResult<CCall> {
    let form = Form::resolve(name).ok_or("not an instruction npusim.tik knows")?;
    let n = form.arity();
    if args.len() != n {
        return Err(format!("takes {n} arguments, got {}", args.len()));
    }
    let mut params = Vec::new();
    let find = |t: &str| -> RunResult<usize> {
        tensors
            .iter()
            .position(|i| &*i.op.tensor == t)
            .ok_or_else(|| format!("unknown tensor `{t}`"))
    };
    let mut cargs = Vec::with_capacity(args.len());
    for a in args {
        let mut param = |e: &Expr| -> RunResult<usize> {
            params.push(CExpr::compile(e, ints)?);
            Ok(params.len() - 1)
        };
        cargs.push(match a {
            Arg::Tensor(t) => CArg::Tensor(find(&t.t)?, param(&t.off)?),
            Arg::Tensors { tl } => CArg::Tensors(
                tl.iter()
                    .map(|t| Ok((find(&t.t)?, param(&t.off)?)))
                    .collect::<RunResult<_>>()?,
            ),
            Arg::Expr(e) => CArg::Num(param(e)?),
            Arg::Str(s) => CArg::Str(s.clone()),
            Arg::List(l) => {
                // Consecutive parameters.
                let idx = l.iter().map(&mut param).collect::<RunResult<Vec<_>>>()?;
                let start = idx.first().copied().unwrap_or(0);
                CArg::List(start..start + idx.len())
            }
        });
    }
    let dynamic = !params.iter().all(CExpr::is_const);
    let key = params
        .iter()
        .map(|p| match p {
            CExpr::Const(n) => *n,
            _ => Num::I(0),
        })
        .collect();
    Ok(CCall {
        name: name.to_string(),
        line,
        form,
        args: cargs,
        params,
        dynamic,
        key,
        kbits: Vec::new(),
        variants: Vec::new(),
        index: HashMap::new(),
        cur: None,
    })
}

fn compile_block(body: &[Stmt], tensors: &[TensorInfo], ints: &[bool]) -> RunResult<Vec<CStmt>> {
    body.iter()
        .map(|s| compile_stmt(s, tensors, ints))
        .collect()
}

fn compile_stmt(s: &Stmt, tensors: &[TensorInfo], ints: &[bool]) -> RunResult<CStmt> {
    let var_ok = |var: usize, line: u32, what: &str| {
        if var < ints.len() {
            Ok(var)
        } else {
            Err(format!("line {line}: unknown {what} {var}"))
        }
    };
    let at = |line: u32| move |e: String| format!("line {line}: {e}");
    Ok(match s {
        Stmt::For {
            var,
            begin,
            end,
            body,
            line,
        } => CStmt::For {
            var: var_ok(*var, *line, "loop variable")?,
            begin: CExpr::compile(begin, ints).map_err(at(*line))?,
            end: CExpr::compile(end, ints).map_err(at(*line))?,
            body: compile_block(body, tensors, ints)?,
            line: *line,
        },
        Stmt::If {
            cond,
            then,
            els,
            line,
        } => CStmt::If {
            cond: CExpr::compile(cond, ints).map_err(at(*line))?,
            then: compile_block(then, tensors, ints)?,
            els: compile_block(els, tensors, ints)?,
            line: *line,
        },
        Stmt::Set { var, value, line } => CStmt::Set {
            var: var_ok(*var, *line, "Scalar")?,
            value: CExpr::compile(value, ints).map_err(at(*line))?,
            line: *line,
        },
        Stmt::Load { var, src, line } => CStmt::Load {
            var: var_ok(*var, *line, "Scalar")?,
            tensor: tensors
                .iter()
                .position(|i| *i.op.tensor == *src.t)
                .ok_or_else(|| format!("line {line}: set_as: unknown tensor `{}`", src.t))?,
            off: CExpr::compile(&src.off, ints).map_err(at(*line))?,
            line: *line,
        },
        Stmt::Call { name, args, line } => CStmt::Call(Box::new(
            compile_call(name, args, *line, tensors, ints)
                .map_err(|e| format!("line {line}: {name}: {e}"))?,
        )),
        Stmt::Print {
            fmt,
            args,
            block,
            max_chars,
            site,
            line,
        } => {
            let at = |e: String| format!("line {line}: printf: {e}");
            let args = args
                .iter()
                .enumerate()
                .map(|(i, a)| match a {
                    Arg::Expr(e) => Ok(PArg::Val(CExpr::compile(e, ints).map_err(at)?)),
                    Arg::Tensor(t) => Ok(PArg::Tensor(
                        tensors
                            .iter()
                            .position(|x| *x.op.tensor == *t.t)
                            .ok_or_else(|| at(format!("unknown tensor `{}`", t.t)))?,
                        CExpr::compile(&t.off, ints).map_err(at)?,
                    )),
                    _ => Err(at(format!(
                        "arg {}: a Scalar, Expr, number or Tensor",
                        i + 1
                    ))),
                })
                .collect::<RunResult<Vec<_>>>()?;
            CStmt::Print(Box::new(CPrint {
                fmt: fmt.clone(),
                args,
                block: match block {
                    Some(v) => Some(var_ok(*v, *line, "block loop variable")?),
                    None => None,
                },
                params: npusim_ascend::print::TikPrintParams {
                    max_format_chars: max_chars.unwrap_or(128),
                },
                site: *site,
                line: *line,
            }))
        }
    })
}

/// Marks the loop variables of `body` (`set`), then (`!set`) unmarks any variable a `Set`
/// assigns.
fn mark_loop_vars(body: &[Stmt], ints: &mut [bool], set: bool) {
    for s in body {
        match s {
            Stmt::For { var, body, .. } => {
                if set && let Some(b) = ints.get_mut(*var) {
                    *b = true;
                }
                mark_loop_vars(body, ints, set);
            }
            Stmt::If { then, els, .. } => {
                mark_loop_vars(then, ints, set);
                mark_loop_vars(els, ints, set);
            }
            Stmt::Set { var, .. } | Stmt::Load { var, .. } => {
                if !set && let Some(b) = ints.get_mut(*var) {
                    *b = false;
                }
            }
            Stmt::Call { .. } => {}
            Stmt::Print { .. } => {}
        }
    }
}

/// The state of one run.
struct Env<'k> {
    chip: &'static ChipProfile,
    tensors: &'k [TensorInfo],
    core: VectorCore,
    vars: Vec<Num>,
    steps: u64,
    max_steps: u64,
    prints: Vec<TikPrint>,
}

impl Env<'_> {
    #[inline]
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

    /// Element `i` of tensor `t`, as a number (floats widened exactly, integers as stored).
    fn load(&self, t: usize, i: i64) -> RunResult<Num> {
        let info = self.tensors.get(t).ok_or("unknown tensor")?;
        if i < 0 || i as u64 >= info.elems {
            return Err(format!(
                "element {i} is outside tensor `{}` ({} elements)",
                info.op.tensor, info.elems
            ));
        }
        let size = info.op.dtype.size() as u64;
        let mem = self.core.memory(info.op.space).map_err(|e| e.to_string())?;
        let b = mem
            .bytes(info.op.tensor_base + i as u64 * size, size)
            .map_err(|e| e.to_string())?;
        let mut w = [0u8; 8];
        w[..b.len()].copy_from_slice(b);
        let u = u64::from_le_bytes(w);
        Ok(match info.op.dtype {
            ElemType::U8 | ElemType::U16 | ElemType::U32 => Num::I(u as i64),
            ElemType::U64 | ElemType::I64 => Num::I(u as i64),
            ElemType::I8 => Num::I(u as u8 as i8 as i64),
            ElemType::I16 => Num::I(u as u16 as i16 as i64),
            ElemType::I32 => Num::I(u as u32 as i32 as i64),
            ElemType::F16 => Num::F(npusim_core::f16::from_bits(u as u16).to_f64()),
            ElemType::Bf16 => Num::F(npusim_core::bf16::from_bits(u as u16).to_f64()),
            ElemType::F32 => Num::F(f32::from_bits(u as u32) as f64),
            t => match npusim_core::f8::F8Format::of(t) {
                Some(f) => Num::F(f.to_f32(u as u8) as f64),
                None => return Err(format!("element type {t} cannot be read")),
            },
        })
    }

    fn set(&mut self, var: usize, v: Num) {
        if let Some(slot) = self.vars.get_mut(var) {
            *slot = v;
        }
    }

    fn block(&mut self, body: &mut [CStmt]) -> RunResult<()> {
        for s in body {
            self.exec(s)?;
        }
        Ok(())
    }

    fn exec(&mut self, s: &mut CStmt) -> RunResult<()> {
        match s {
            CStmt::Call(c) => {
                self.tick(c.line)?;
                self.call(c)
                    .map_err(|e| format!("line {}: {}: {e}", c.line, c.name))
            }
            CStmt::For {
                var,
                begin,
                end,
                body,
                line,
            } => {
                let at = |e: String| format!("line {line}: {e}");
                let b = begin.eval(&self.vars).map_err(at)?.as_i64();
                let e = end.eval(&self.vars).map_err(at)?.as_i64();
                for i in b..e {
                    self.tick(*line)?;
                    self.set(*var, Num::I(i));
                    self.block(body)?;
                }
                Ok(())
            }
            CStmt::If {
                cond,
                then,
                els,
                line,
            } => {
                self.tick(*line)?;
                let c = cond
                    .eval(&self.vars)
                    .map_err(|e| format!("line {line}: {e}"))?;
                if c.as_f64() != 0.0 {
                    self.block(then)
                } else {
                    self.block(els)
                }
            }
            CStmt::Load {
                var,
                tensor,
                off,
                line,
            } => {
                self.tick(*line)?;
                let at = |e: String| format!("line {line}: set_as: {e}");
                let i = off.eval(&self.vars).map_err(at)?.as_i64();
                let v = self.load(*tensor, i).map_err(at)?;
                self.set(*var, v);
                Ok(())
            }
            CStmt::Set { var, value, line } => {
                self.tick(*line)?;
                let v = value
                    .eval(&self.vars)
                    .map_err(|e| format!("line {line}: {e}"))?;
                self.set(*var, v);
                Ok(())
            }
            CStmt::Print(p) => {
                self.tick(p.line)?;
                self.print(p).map_err(|e| format!("line {}: {e}", p.line))
            }
        }
    }

    /// Runs a `printf`: evaluates its arguments, formats (npusim_ascend::print::tik_printf) and
    /// records the text with its block and line.
    fn print(&mut self, p: &CPrint) -> RunResult<()> {
        use npusim_ascend::print::{PrintRec, TikArg, tik_printf};
        use npusim_core::cfmt::Arg as FArg;
        let mut args = Vec::with_capacity(p.args.len());
        for a in &p.args {
            args.push(match a {
                PArg::Val(e) => TikArg::Value(match e.eval(&self.vars)? {
                    Num::I(i) => FArg::Int(i),
                    Num::F(f) => FArg::Float(f),
                }),
                PArg::Tensor(t, off) => {
                    let info = &self.tensors[*t];
                    let i = off.eval(&self.vars)?.as_i64();
                    if i < 0 || i as u64 >= info.elems {
                        return Err(format!(
                            "tensor `{}` has {} elements, the argument starts at element {i}",
                            info.op.tensor, info.elems
                        ));
                    }
                    let size = info.op.dtype.size() as u64;
                    let bytes = self
                        .core
                        .memory(info.op.space)
                        .and_then(|m| {
                            Ok(m.bytes(
                                info.op.tensor_base + i as u64 * size,
                                (info.elems - i as u64) * size,
                            )?
                            .to_vec())
                        })
                        .map_err(|e| e.to_string())?;
                    TikArg::Tensor {
                        dtype: info.op.dtype,
                        bytes,
                    }
                }
            });
        }
        let text = tik_printf(&p.fmt, &args, p.params).map_err(|e| e.to_string())?;
        let block = match p.block {
            Some(v) => u32::try_from(self.vars[v].as_i64()).unwrap_or(0),
            None => 0,
        };
        self.prints.push(TikPrint {
            rec: PrintRec {
                block,
                line: p.line,
                text,
            },
            site: p.site,
        });
        Ok(())
    }

    /// Runs a call: a constant call is built once and then only executed; a call with
    /// variable parameters looks its instruction up by their values when they change, and
    /// builds it only the first time it meets them.
    #[inline]
    fn call(&mut self, c: &mut CCall) -> RunResult<()> {
        if c.dynamic || c.cur.is_none() {
            let mut changed = c.cur.is_none();
            if c.dynamic {
                for (k, p) in c.key.iter_mut().zip(&c.params) {
                    let v = p.eval(&self.vars)?;
                    if *k != v {
                        *k = v;
                        changed = true;
                    }
                }
            }
            if changed {
                c.cur = None;
                c.kbits.clear();
                for n in &c.key {
                    c.kbits.extend(match *n {
                        Num::I(i) => [0, i as u64],
                        Num::F(f) => [1, f.to_bits()],
                    });
                }
                if let Some(&i) = c.index.get(&c.kbits[..]) {
                    c.cur = Some(i);
                } else {
                    let args = Args {
                        args: &c.args,
                        vals: &c.key,
                        tensors: self.tensors,
                    };
                    let b = build(self.chip, c.form, &args)?;
                    if c.variants.len() >= MAX_VARIANTS {
                        c.variants.clear();
                        c.index.clear();
                    }
                    c.variants.push(b);
                    let i = c.variants.len() - 1;
                    c.index.insert(c.kbits.clone().into_boxed_slice(), i);
                    c.cur = Some(i);
                }
            }
        }
        match c.cur.and_then(|i| c.variants.get(i)) {
            Some(b) => b.execute(&mut self.core).map_err(ascend),
            None => Err("no instruction".into()),
        }
    }
}

/// A recorded program compiled for running: tensors laid out, statements pre-decoded, and the
/// instructions built so far.
pub struct Kernel {
    chip: &'static ChipProfile,
    tensors: Vec<TensorInfo>,
    gm_bytes: usize,
    vars: Vec<CExpr>,
    body: Vec<CStmt>,
    inputs: Vec<usize>,
    outputs: Vec<usize>,
    /// What the last run printed, in execution order.
    pub prints: Vec<TikPrint>,
}

impl Kernel {
    /// Lays out the tensors and compiles every statement (names, argument counts and kinds,
    /// tensors, expressions are checked here, before anything runs).
    pub fn compile(p: &Program) -> RunResult<Kernel> {
        let chip =
            ChipProfile::by_name(&p.chip).ok_or_else(|| format!("unknown chip `{}`", p.chip))?;
        let mut tensors: Vec<TensorInfo> = Vec::with_capacity(p.decls.len());
        let (mut gm_used, mut ub_used) = (0u64, 0u64);
        for d in &p.decls {
            if tensors.iter().any(|t| *t.op.tensor == d.name) {
                return Err(format!("Tensor: the name `{}` is already used", d.name));
            }
            let dtype = ElemType::parse(&d.dtype).ok_or_else(|| {
                format!(
                    "Tensor `{}`: `{}` is not a TIK element type",
                    d.name, d.dtype
                )
            })?;
            let elems = d
                .shape
                .iter()
                .try_fold(1u64, |a, &n| a.checked_mul(n as u64))
                .ok_or_else(|| format!("Tensor `{}`: size overflows", d.name))?;
            let bytes = elems
                .checked_mul(dtype.size() as u64)
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
            tensors.push(TensorInfo {
                op: Operand {
                    tensor: Arc::from(d.name.as_str()),
                    space,
                    dtype,
                    tensor_base: base,
                    tensor_bytes: bytes,
                    offset: 0,
                },
                elems,
                shape: d.shape.clone(),
            });
        }
        if gm_used > 16 << 30 {
            return Err(format!("{gm_used} bytes of GM tensors exceed 16 GiB"));
        }
        let gm_index = |n: &str, what: &str| -> RunResult<usize> {
            let k = tensors
                .iter()
                .position(|t| &*t.op.tensor == n)
                .ok_or_else(|| format!("BuildCCE: no tensor `{n}`"))?;
            if tensors[k].op.space != MemSpace::Gm {
                return Err(format!("BuildCCE: {what} `{n}` is not in GM"));
            }
            Ok(k)
        };
        let inputs = p
            .inputs
            .iter()
            .map(|n| gm_index(n, "input"))
            .collect::<RunResult<_>>()?;
        let outputs = p
            .outputs
            .iter()
            .map(|n| gm_index(n, "output"))
            .collect::<RunResult<_>>()?;
        // Loop variables are integers (unless a statement assigns them, which Python does
        // not record).
        let mut ints = vec![false; p.vars.len()];
        mark_loop_vars(&p.body, &mut ints, true);
        mark_loop_vars(&p.body, &mut ints, false);
        // A Scalar's initial value is evaluated with no variable bound (all zero).
        let vars = p
            .vars
            .iter()
            .map(|e| CExpr::compile(e, &ints))
            .collect::<RunResult<_>>()?;
        let body = compile_block(&p.body, &tensors, &ints)?;
        Ok(Kernel {
            chip,
            tensors,
            gm_bytes: gm_used.div_ceil(32) as usize * 32,
            vars,
            body,
            inputs,
            outputs,
            prints: Vec::new(),
        })
    }

    /// Runs the kernel with the fed arrays (`(name, element type, bytes)`); returns the
    /// outputs in BuildCCE order.
    pub fn run(
        &mut self,
        feed: &[(String, ElemType, &[u8])],
        max_steps: u64,
    ) -> RunResult<Vec<(String, NpyArray)>> {
        let mut core = VectorCore::new(self.chip.id, self.gm_bytes);
        for (name, dtype, data) in feed {
            let t = self
                .tensors
                .iter()
                .position(|t| &*t.op.tensor == name)
                .ok_or_else(|| format!("feed_dict: no tensor `{name}`"))?;
            if !self.inputs.contains(&t) {
                return Err(format!("feed_dict: `{name}` is not a BuildCCE input in GM"));
            }
            let info = &self.tensors[t];
            if *dtype != info.op.dtype || data.len() as u64 != info.op.tensor_bytes {
                return Err(format!(
                    "feed_dict: `{name}` is {dtype} of {} bytes, the tensor is {} {:?} ({} bytes)",
                    data.len(),
                    info.op.dtype,
                    info.shape,
                    info.op.tensor_bytes
                ));
            }
            core.memory_mut(MemSpace::Gm)
                .and_then(|m| Ok(m.write(info.op.tensor_base, data)?))
                .map_err(|e| e.to_string())?;
        }
        if let Some(&m) = self.inputs.iter().find(|&&i| {
            !feed
                .iter()
                .any(|(n, _, _)| *n == *self.tensors[i].op.tensor)
        }) {
            return Err(format!(
                "feed_dict: no array for input `{}`",
                self.tensors[m].op.tensor
            ));
        }
        let zero = vec![Num::I(0); self.vars.len()];
        let vars = self
            .vars
            .iter()
            .map(|e| e.eval(&zero))
            .collect::<RunResult<Vec<_>>>()?;
        let mut env = Env {
            chip: self.chip,
            tensors: &self.tensors,
            core,
            vars,
            steps: 0,
            max_steps,
            prints: Vec::new(),
        };
        let ran = env.block(&mut self.body);
        self.prints = std::mem::take(&mut env.prints);
        ran?;
        let core = env.core;
        self.outputs
            .iter()
            .map(|&k| {
                let t = &self.tensors[k];
                let data = core
                    .memory(MemSpace::Gm)
                    .and_then(|mem| Ok(mem.bytes(t.op.tensor_base, t.op.tensor_bytes)?))
                    .map_err(|e| e.to_string())?
                    .to_vec();
                Ok((
                    t.op.tensor.to_string(),
                    NpyArray {
                        dtype: t.op.dtype,
                        shape: t.shape.clone(),
                        data,
                    },
                ))
            })
            .collect()
    }
}
