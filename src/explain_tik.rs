//! `npusim explain ascend`: one TIK vector call, decoded by npusim-ascend exactly as a kernel's
//! call is (`VecOp::new` / `Vcmpv::new`: every restriction checked), and drawn from its
//! [`npusim_ascend::access`] map: which elements of each operand each repeat and block reads or
//! writes.

use super::svg::{Cell, Diagram, OUTSIDE, Panel, REPEAT_COLOURS, Row, runs};
use anyhow::{Context, Result, anyhow, bail};
use npusim_ascend::access::{AccessMap, OperandAccess};
use npusim_ascend::core::Operand;
use npusim_ascend::isa::{CastRound, Instr, Shape};
use npusim_ascend::mask::MaskArg;
use npusim_ascend::ops::{Scalar, Vcmpv};
use npusim_ascend::tik::{Scope, Tik};
use npusim_ascend::vector::{Face, VecArgs, VecOp};
use npusim_core::ChipProfile;
use std::collections::BTreeMap;

/// Most lanes drawn per operand.
const MAX_LANES: u64 = 1 << 16;
/// Most memory rows (32-byte blocks) drawn per operand.
const MAX_ROWS: usize = 64;

/// A parsed argument.
#[derive(Clone, Debug, PartialEq)]
enum Arg {
    Int(i64),
    Float(f64),
    Str(String),
    List(Vec<i64>),
    /// A tensor, from element `offset` (`name` or `name[offset]`).
    Tensor(String, u64),
}

/// `name(arg, ..., key=value)`.
#[derive(Clone, Debug)]
struct Call {
    name: String,
    pos: Vec<Arg>,
    kw: Vec<(String, Arg)>,
}

fn parse_call(s: &str) -> Result<Call> {
    let s = s.trim();
    let s = s.strip_prefix("tik_instance.").unwrap_or(s);
    let open = s
        .find('(')
        .ok_or_else(|| anyhow!("expected a call `name(args)`, got `{s}`"))?;
    let name = s[..open].trim().to_string();
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        bail!("`{name}` is not an instruction name");
    }
    let rest = s[open + 1..].trim_end();
    let body = rest
        .strip_suffix(')')
        .ok_or_else(|| anyhow!("the call does not end with `)`"))?;
    let mut parts = Vec::new();
    let (mut depth, mut start, mut quote) = (0i32, 0usize, None::<char>);
    for (i, ch) in body.char_indices() {
        match (quote, ch) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(ch),
            (None, '[' | '(') => depth += 1,
            (None, ']' | ')') => depth -= 1,
            (None, ',') if depth == 0 => {
                parts.push(&body[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if quote.is_some() || depth != 0 {
        bail!("unbalanced brackets or quotes in the call");
    }
    if !body[start..].trim().is_empty() || !parts.is_empty() {
        parts.push(&body[start..]);
    }
    let mut call = Call {
        name,
        pos: Vec::new(),
        kw: Vec::new(),
    };
    for p in parts {
        let p = p.trim();
        let kw = p.split_once('=').filter(|(k, _)| {
            let k = k.trim();
            !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        });
        match kw {
            Some((k, v)) => call.kw.push((k.trim().to_string(), parse_arg(v.trim())?)),
            None => {
                if !call.kw.is_empty() {
                    bail!("positional argument `{p}` after a keyword argument");
                }
                call.pos.push(parse_arg(p)?);
            }
        }
    }
    Ok(call)
}

fn parse_int(s: &str) -> Option<i64> {
    let s = s.trim();
    let (neg, d) = match s.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, s),
    };
    let v = if let Some(h) = d.strip_prefix("0x").or_else(|| d.strip_prefix("0X")) {
        i64::from_str_radix(h, 16).ok()?
    } else {
        d.parse::<i64>().ok()?
    };
    Some(if neg { -v } else { v })
}

fn parse_arg(s: &str) -> Result<Arg> {
    if s.is_empty() {
        bail!("empty argument");
    }
    if let Some(v) = parse_int(s) {
        return Ok(Arg::Int(v));
    }
    if let Ok(f) = s.parse::<f64>() {
        return Ok(Arg::Float(f));
    }
    if (s.starts_with('\'') && s.ends_with('\'') || s.starts_with('"') && s.ends_with('"'))
        && s.len() >= 2
    {
        return Ok(Arg::Str(s[1..s.len() - 1].to_string()));
    }
    if let Some(inner) = s.strip_prefix('[').and_then(|x| x.strip_suffix(']')) {
        let v = inner
            .split(',')
            .map(|x| parse_int(x).ok_or_else(|| anyhow!("`{x}` in `{s}` is not an integer")))
            .collect::<Result<Vec<_>>>()?;
        return Ok(Arg::List(v));
    }
    let (name, off) = match s.split_once('[') {
        Some((n, rest)) => {
            let idx = rest
                .strip_suffix(']')
                .ok_or_else(|| anyhow!("`{s}`: expected `tensor[offset]`"))?;
            let idx = idx.split(':').next().unwrap_or("");
            let off = if idx.trim().is_empty() {
                0
            } else {
                parse_int(idx)
                    .filter(|v| *v >= 0)
                    .ok_or_else(|| anyhow!("`{s}`: the offset must be a non-negative integer"))?
                    as u64
            };
            (n.trim(), off)
        }
        None => (s, 0),
    };
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        bail!("`{s}` is not a number, list, string or tensor name");
    }
    Ok(Arg::Tensor(name.to_string(), off))
}

/// A `--tensor NAME=DTYPE[SHAPE]` declaration.
pub fn parse_decl(s: &str) -> Result<(String, String, Vec<usize>)> {
    let (name, ty) = s.split_once('=').ok_or_else(|| {
        anyhow!("`--tensor {s}`: expected NAME=DTYPE[SHAPE], e.g. x_ub=float16[2,128]")
    })?;
    let (dt, shape) = ty
        .split_once('[')
        .and_then(|(d, r)| r.strip_suffix(']').map(|r| (d, r)))
        .ok_or_else(|| {
            anyhow!("`--tensor {s}`: expected NAME=DTYPE[SHAPE], e.g. x_ub=float16[2,128]")
        })?;
    let shape = shape
        .split(',')
        .map(|d| {
            d.trim()
                .parse::<usize>()
                .ok()
                .filter(|v| *v > 0)
                .ok_or_else(|| anyhow!("`--tensor {s}`: `{d}` is not a positive dimension"))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok((name.trim().to_string(), dt.trim().to_string(), shape))
}

/// The TIK parameter names of a call form, in order (select is not drawn yet).
fn params(instr: Instr, legacy: bool) -> Option<Vec<&'static str>> {
    match instr.shape() {
        Shape::Select => None,
        s => s.tik_params(legacy),
    }
}

/// The bound arguments of a call, by parameter name.
struct Bound<'a> {
    name: &'static str,
    vals: BTreeMap<&'static str, &'a Arg>,
    tensors: &'a BTreeMap<String, Operand>,
}

impl Bound<'_> {
    fn get(&self, p: &str) -> Result<&Arg> {
        self.vals
            .get(p)
            .copied()
            .ok_or_else(|| anyhow!("{}: missing argument `{p}`", self.name))
    }
    fn int(&self, p: &str) -> Result<i64> {
        match self.get(p)? {
            Arg::Int(v) => Ok(*v),
            a => bail!("{}: `{p}` must be an integer, got {a:?}", self.name),
        }
    }
    fn int_or(&self, p: &str, d: i64) -> Result<i64> {
        if self.vals.contains_key(p) {
            self.int(p)
        } else {
            Ok(d)
        }
    }
    fn tensor(&self, p: &str) -> Result<Operand> {
        match self.get(p)? {
            Arg::Tensor(n, off) => {
                let t = self.tensors.get(n).ok_or_else(|| {
                    let known: Vec<&str> = self.tensors.keys().map(|s| s.as_str()).collect();
                    anyhow!(
                        "{}: `{p}` is tensor `{n}`, which no `--tensor {n}=DTYPE[SHAPE]` declares (declared: {})",
                        self.name,
                        if known.is_empty() { "none".to_string() } else { known.join(", ") }
                    )
                })?;
                Ok(t.at(*off))
            }
            a => bail!("{}: `{p}` must be a tensor, got {a:?}", self.name),
        }
    }
    fn scalar(&self, p: &str) -> Result<Scalar> {
        match self.get(p)? {
            Arg::Int(v) => Ok(Scalar::Int(*v)),
            Arg::Float(f) => Ok(Scalar::Float(*f)),
            a => bail!("{}: `{p}` must be a number, got {a:?}", self.name),
        }
    }
    fn mask(&self) -> Result<MaskArg> {
        match self.get("mask")? {
            Arg::Int(v) if *v >= 0 => Ok(MaskArg::Count(*v as u64)),
            Arg::List(l) if l.len() == 2 && l.iter().all(|v| *v >= 0) => {
                Ok(MaskArg::tik_list(l[0] as u64, l[1] as u64))
            }
            a => bail!(
                "{}: `mask` must be a lane count or a list [mask_h, mask_l], got {a:?}",
                self.name
            ),
        }
    }
}

/// What was explained.
pub struct Explained {
    pub diagram: Diagram,
    /// One line per operand and repeat: the elements touched.
    pub summary: Vec<String>,
}

/// Decodes `call` for `chip` with the declared tensors and draws it.
pub fn explain(call_text: &str, decls: &[String], chip: &str) -> Result<Explained> {
    let chip: &'static ChipProfile = ChipProfile::by_name(chip).ok_or_else(|| {
        anyhow!("unknown Ascend chip `{chip}` (`npusim chips` lists the profiles)")
    })?;
    let call = parse_call(call_text)?;
    let mut tik = Tik::new(chip.id);
    let mut tensors = BTreeMap::new();
    for d in decls {
        let (name, dt, shape) = parse_decl(d)?;
        let op = tik
            .tensor(&dt, &shape, &name, Scope::Ubuf)
            .with_context(|| format!("`--tensor {d}`"))?;
        tensors.insert(name, op);
    }
    let instr = Instr::ALL
        .iter()
        .copied()
        .find(|i| {
            i.shape() != Shape::Move
                && (i.tik_name() == call.name || i.tik_legacy_name() == call.name)
        })
        .ok_or_else(|| {
            anyhow!(
                "`{}` is not a TIK vector instruction npusim knows",
                call.name
            )
        })?;
    let legacy = instr.tik_name() != call.name;
    let name = if legacy {
        instr.tik_legacy_name()
    } else {
        instr.tik_name()
    };
    let names = params(instr, legacy).ok_or_else(|| {
        anyhow!(
            "`{name}`: explain draws the element-wise and compare instructions so far, not this form"
        )
    })?;
    let mut vals: BTreeMap<&'static str, &Arg> = BTreeMap::new();
    if call.pos.len() > names.len() {
        bail!(
            "{name} takes {} arguments ({}), {} given",
            names.len(),
            names.join(", "),
            call.pos.len()
        );
    }
    for (p, a) in names.iter().zip(&call.pos) {
        vals.insert(p, a);
    }
    let mut counter = false;
    for (k, a) in &call.kw {
        if k == "mask_mode" {
            counter = matches!(a, Arg::Str(s) if s == "counter");
            continue;
        }
        let p = names.iter().find(|p| **p == k.as_str()).ok_or_else(|| {
            anyhow!(
                "{name} has no parameter `{k}` (its parameters: {})",
                names.join(", ")
            )
        })?;
        if vals.insert(p, a).is_some() {
            bail!("{name}: `{k}` is given twice");
        }
    }
    let b = Bound {
        name,
        vals,
        tensors: &tensors,
    };
    let map = match instr.shape() {
        Shape::CmpBits | Shape::CmpBitsScalar => {
            let mode = instr
                .cmp_mode()
                .ok_or_else(|| anyhow!("{name}: not a comparison"))?;
            let dst = b.tensor("dst")?;
            let scalar_form = instr.shape() == Shape::CmpBitsScalar;
            let src0 = b.tensor(if scalar_form { "src" } else { "src0" })?;
            let op = if scalar_form {
                Vcmpv::strided(
                    chip,
                    name,
                    mode,
                    &dst,
                    &src0,
                    None,
                    Some(b.scalar("scalar")?),
                    b.int("repeat_times")?,
                    [b.int_or("src_blk_stride", 1)?, 1],
                    [b.int("src_rep_stride")?, 0],
                )?
            } else if legacy {
                let src1 = b.tensor("src1")?;
                Vcmpv::strided(
                    chip,
                    name,
                    mode,
                    &dst,
                    &src0,
                    Some(&src1),
                    None,
                    b.int("repeat_times")?,
                    [b.int("src0_blk_stride")?, b.int("src1_blk_stride")?],
                    [b.int("src0_rep_stride")?, b.int("src1_rep_stride")?],
                )?
            } else {
                let src1 = b.tensor("src1")?;
                instr.check_type(name, chip.id, "src0", src0.dtype)?;
                Vcmpv::new(
                    chip,
                    mode,
                    &dst,
                    &src0,
                    &src1,
                    b.int("repeat_times")?,
                    b.int("src0_rep_stride")?,
                    b.int("src1_rep_stride")?,
                )?
            };
            op.accesses()
        }
        shape => {
            let nsrc = shape.tensor_sources();
            let src_names: &[&str] = if nsrc == 2 {
                &["src0", "src1"]
            } else {
                &["src"]
            };
            let srcs: Vec<Operand> = src_names[..nsrc]
                .iter()
                .map(|p| b.tensor(p))
                .collect::<Result<_>>()?;
            let src_refs: Vec<&Operand> = srcs.iter().collect();
            let dst = b.tensor("dst")?;
            let scalar = if shape.has_scalar() {
                Some(b.scalar("scalar")?)
            } else {
                None
            };
            let round = if shape == Shape::Convert {
                match b.get("round_mode")? {
                    Arg::Str(s) => CastRound::parse(s)
                        .ok_or_else(|| anyhow!("{name}: `{s}` is not a TIK round mode"))?,
                    a => bail!("{name}: `round_mode` must be a string, got {a:?}"),
                }
            } else {
                CastRound::None
            };
            let s0 = if nsrc == 2 { "src0" } else { "src" };
            let blk = [
                b.int_or("dst_blk_stride", 1)?,
                b.int_or(&format!("{s0}_blk_stride"), 1)?,
                b.int_or("src1_blk_stride", 1)?,
            ];
            let rep = [
                b.int("dst_rep_stride")?,
                if nsrc >= 1 {
                    b.int(&format!("{s0}_rep_stride"))?
                } else {
                    0
                },
                if nsrc == 2 {
                    b.int("src1_rep_stride")?
                } else {
                    0
                },
            ];
            let mask = b.mask()?;
            let count = match (counter, mask) {
                (true, MaskArg::Count(n)) => Some(n),
                (true, _) => bail!("{name}: in counter mode the mask is an element count"),
                _ => None,
            };
            let counter = count.filter(|_| chip.vector.counter_mode);
            let op = VecOp::new(
                chip,
                &VecArgs {
                    instr,
                    name,
                    face: Face::Tik,
                    dst: &dst,
                    srcs: &src_refs,
                    scalar,
                    round,
                    mask: if counter.is_some() {
                        MaskArg::Count(1)
                    } else {
                        mask
                    },
                    is_set_mask: true,
                    repeat: if counter.is_some() {
                        1
                    } else {
                        b.int("repeat_times")?
                    },
                    blk,
                    rep,
                    blk_max: 255,
                },
            )?;
            let op = match counter {
                Some(n) => op.into_counter(n as i64)?,
                None => op,
            };
            op.accesses(MAX_LANES)?
        }
    };
    Ok(draw(&map, call_text.trim(), chip))
}

/// Elements (by index from the tensor's first element) and the accesses at each.
/// (repeat, lane, block, bit within the element for a bit operand)
type At = (u32, u32, u32, Option<u64>);

fn by_element(o: &OperandAccess) -> BTreeMap<u64, Vec<At>> {
    let es = o.operand.dtype.size() as u64;
    let mut m: BTreeMap<u64, Vec<At>> = BTreeMap::new();
    for l in &o.lanes {
        let off = l.addr - o.operand.tensor_base;
        let e = off / es;
        let bit = l.bit.map(|b| (off % es) * 8 + b as u64);
        m.entry(e)
            .or_default()
            .push((l.repeat, l.lane, l.block, bit));
    }
    m
}

fn verb(o: &OperandAccess) -> &'static str {
    match (o.read, o.write) {
        (true, true) => "read and written",
        (false, true) => "written",
        _ => "read",
    }
}

fn draw(map: &AccessMap, call: &str, chip: &'static ChipProfile) -> Explained {
    let mut d = Diagram {
        title: format!("{call}   on {}", chip.name),
        per_row: 2,
        ..Default::default()
    };
    let src_t = map
        .operands
        .iter()
        .find(|o| !o.write)
        .or(map.operands.first())
        .map(|o| o.operand.dtype);
    let lpb = src_t.map(|t| 32 / t.size()).unwrap_or(0);
    d.notes.push(format!(
        "{} repeat{} x {} lanes ({} blocks of {} {} per repeat); one cell = one element, one row = one 32-byte block of the tensor",
        map.repeats,
        if map.repeats == 1 { "" } else { "s" },
        map.lanes_per_repeat,
        map.lanes_per_repeat as usize / lpb.max(1),
        lpb,
        src_t.map(|t| t.numpy_name()).unwrap_or("?"),
    ));
    d.notes.push(
        "address of lane e in repeat r = start + r*rep_stride + (e div lanes_per_block)*blk_stride + (e mod lanes_per_block)*size"
            .into(),
    );
    d.notes.push(
        "colour = the repeat that touches the cell; a cell in bands is touched by several repeats; white = not touched"
            .into(),
    );
    let mut summary = Vec::new();
    // Sources first (top row), then dst.
    let mut order: Vec<&OperandAccess> = map.operands.iter().filter(|o| !o.write).collect();
    order.extend(map.operands.iter().filter(|o| o.write));
    if order.len() % 2 == 1 && order.len() > 1 {
        d.per_row = order.len() - 1;
    }
    for o in order {
        let op = &o.operand;
        let es = op.dtype.size() as u64;
        let per_row = (32 / es) as usize;
        let elems = op.tensor_bytes / es;
        let nrows = op.tensor_bytes.div_ceil(32) as usize;
        let at = by_element(o);
        let mut p = Panel {
            title: format!(
                "{}: {} ({}[{}]) in UB at 0x{:04x}, {}",
                o.role,
                op.tensor,
                op.dtype.numpy_name(),
                elems,
                op.tensor_base,
                verb(o)
            ),
            cell_w: if per_row <= 16 { 30 } else { 22 },
            ..Default::default()
        };
        if op.offset > 0 {
            p.caption.push(format!(
                "starts at element {} (+{} B)",
                op.offset,
                op.offset * es
            ));
        }
        if o.bits {
            p.caption.push(format!(
                "1 bit per lane, packed little-endian: {} B per repeat, repeats back to back",
                o.rep_stride
            ));
        } else {
            p.caption.push(format!(
                "rep_stride {} blocks = {} B, blk_stride {} block{} = {} B",
                o.rep_stride / 32,
                o.rep_stride,
                o.blk_stride / 32,
                if o.blk_stride == 32 { "" } else { "s" },
                o.blk_stride
            ));
        }
        let drawn = nrows.min(MAX_ROWS);
        for row in 0..drawn {
            let mut r = Row {
                label: format!("blk {row} +{}B", row * 32),
                ..Default::default()
            };
            let mut pairs: Vec<(u32, u32)> = Vec::new();
            let mut bit_lanes: BTreeMap<u32, (u32, u32)> = BTreeMap::new();
            for c in 0..per_row {
                let e = (row * per_row + c) as u64;
                if e >= elems {
                    r.cells.push(Cell {
                        fills: vec![OUTSIDE],
                        tip: "past the tensor".into(),
                        ..Default::default()
                    });
                    continue;
                }
                let acc = at.get(&e);
                let mut reps: Vec<u32> = acc
                    .map(|v| v.iter().map(|a| a.0).collect())
                    .unwrap_or_default();
                reps.sort_unstable();
                reps.dedup();
                let mut tip = format!("{}[{e}] at 0x{:04x}", op.tensor, op.tensor_base + e * es);
                if let Some(v) = acc {
                    for &(rep, lane, blk, bit) in v {
                        if !pairs.contains(&(rep, blk)) {
                            pairs.push((rep, blk));
                        }
                        let ent = bit_lanes.entry(rep).or_insert((lane, lane));
                        ent.0 = ent.0.min(lane);
                        ent.1 = ent.1.max(lane);
                        match bit {
                            Some(b) => tip.push_str(&format!(
                                "\nbit {b} = repeat {rep}, lane {lane} (block {blk})"
                            )),
                            None => tip.push_str(&format!(
                                "\n{} by repeat {rep}, lane {lane} (block {blk})",
                                verb(o)
                            )),
                        }
                    }
                } else {
                    tip.push_str("\nnot touched");
                }
                let list = |v: &[u32]| {
                    v.iter()
                        .map(|x| x.to_string())
                        .collect::<Vec<_>>()
                        .join(",")
                };
                let mut data = vec![("op", o.role.to_string()), ("elem", e.to_string())];
                if o.read {
                    data.push(("read", list(&reps)));
                }
                if o.write {
                    data.push(("write", list(&reps)));
                }
                r.cells.push(Cell {
                    text: e.to_string(),
                    fills: reps
                        .iter()
                        .map(|x| REPEAT_COLOURS[*x as usize % REPEAT_COLOURS.len()])
                        .collect(),
                    dim: reps.is_empty(),
                    tip,
                    data,
                });
            }
            r.note = if o.bits {
                bit_lanes
                    .iter()
                    .map(|(rep, (a, b))| format!("r{rep} lanes {a}-{b}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            } else {
                pairs.sort_unstable();
                let mut s: Vec<String> = pairs.iter().map(|(r, b)| format!("r{r}.b{b}")).collect();
                if s.len() > 6 {
                    let n = s.len();
                    s.truncate(5);
                    s.push(format!("... ({n})"));
                }
                s.join(" ")
            };
            p.rows.push(r);
        }
        if drawn < nrows {
            let beyond = at
                .keys()
                .filter(|e| **e >= (drawn * per_row) as u64)
                .count();
            p.more = Some(format!(
                "blocks {drawn}..{} not drawn ({beyond} touched elements there)",
                nrows - 1
            ));
        }
        // Per-repeat summary.
        let mut per_rep: BTreeMap<u32, Vec<u64>> = BTreeMap::new();
        for (e, v) in &at {
            for a in v {
                per_rep.entry(a.0).or_default().push(*e);
            }
        }
        for (rep, mut es) in per_rep {
            es.sort_unstable();
            es.dedup();
            let line = format!(
                "{} ({}): repeat {rep} {} elements {}",
                o.role,
                op.tensor,
                verb(o),
                runs(&es)
            );
            if rep < 8 {
                d.footer.push(line.clone());
            }
            summary.push(line);
        }
        d.panels.push(p);
    }
    if map.repeats > 8 {
        d.footer.push(format!(
            "(repeats 8..{} listed by `npusim explain` on stdout)",
            map.repeats - 1
        ));
    }
    for r in 0..map.repeats.min(REPEAT_COLOURS.len() as u32) {
        d.legend
            .push((REPEAT_COLOURS[r as usize], format!("repeat {r}")));
    }
    if map.repeats > REPEAT_COLOURS.len() as u32 {
        d.legend
            .push(("#ffffff", "repeat r uses the colour of r mod 8".into()));
    }
    d.legend.push(("#ffffff", "not touched".into()));
    d.legend.push((OUTSIDE, "past the tensor".into()));
    d.footer.push(
        "Drawn from npusim's decoded instruction (npusim_ascend::access: the walks and mask execute uses); block rK.bJ = repeat K, block J."
            .into(),
    );
    Explained {
        diagram: d,
        summary,
    }
}
