//! Property tests of the reduce, expand, partial, compare/select, convert and TLOAD/TSTORE
//! families against plain models written here: direct formulas over `(r, c)` with the layout
//! offsets spelled out, inputs written and results read as raw bytes of the memories, f64 /
//! i128 arithmetic rounded once to the element type. Every profile runs: a2a3 and a5 hardware
//! policies and the pto-cpu-sim policy of each arch (NaN in min/max, reduction order and
//! TLOAD's Null pad differ between them).

mod common;
use common::*;
use npusim_core::{NanMinMaxPolicy, ReductionOrder, TileArch};
use npusim_pto::*;
use proptest::prelude::*;

/// 0: a2a3 hw, 1: a5 hw, 2: a2a3 pto-cpu-sim, 3: a5 pto-cpu-sim.
fn core_of(p: usize) -> TileCore {
    let mut c = TileCore::by_name(["a2a3", "a5"][p % 2]).unwrap();
    if p >= 2 {
        let arch = c.arch();
        c.set_policy(TilePolicy::pto_cpu_sim(arch));
    }
    c
}

/// Values: special ones, moderate floats in [-8, 8) with random mantissas (so that sums round
/// and the reduction order shows), and raw bit patterns.
fn value(t: ElemType, bits: u64, sel: u8) -> u64 {
    match (sel, t.is_float()) {
        (0..=4, _) => special(t, bits, sel),
        (5..=8, true) => {
            let x = ((bits >> 11) as f64 / (1u64 << 53) as f64) * 16.0 - 8.0;
            encode(t, V::F(x))
        }
        (5..=8, false) => special(t, bits, 9) % 97,
        _ => special(t, bits, 9),
    }
}

fn fv(t: ElemType, b: u64) -> f64 {
    match decode(t, b) {
        V::F(x) => x,
        V::I(i) => i as f64,
    }
}
fn iv(t: ElemType, b: u64) -> i128 {
    match decode(t, b) {
        V::I(i) => i,
        V::F(_) => unreachable!(),
    }
}
fn mask_of(t: ElemType) -> u64 {
    if t.bits() == 64 {
        u64::MAX
    } else {
        (1 << t.bits()) - 1
    }
}

/// Raw little-endian element access to a memory slice at a byte address.
fn rd(m: &[u8], addr: usize, size: usize) -> u64 {
    let mut v = [0u8; 8];
    v[..size].copy_from_slice(&m[addr..addr + size]);
    u64::from_le_bytes(v)
}
fn wr(m: &mut [u8], addr: usize, size: usize, bits: u64) {
    m[addr..addr + size].copy_from_slice(&bits.to_le_bytes()[..size]);
}

/// Random inputs: a stream of (bits, selector) pairs.
#[derive(Debug, Clone)]
struct Case {
    prof: usize,
    pick: usize,
    rows: usize,
    blocks: usize,
    vr: usize,
    vc: usize,
    flag: bool,
    data: Vec<(u64, u8)>,
}

fn case() -> impl Strategy<Value = Case> {
    (
        0..4usize,
        0..64usize,
        1..9usize,
        1..4usize,
        0..64usize,
        0..64usize,
        any::<bool>(),
        proptest::collection::vec((any::<u64>(), 0..12u8), 1024),
    )
        .prop_map(|(prof, pick, rows, blocks, vr, vc, flag, data)| Case {
            prof,
            pick,
            rows,
            blocks,
            vr,
            vc,
            flag,
            data,
        })
}

impl Case {
    fn stream(&self, t: ElemType) -> impl Iterator<Item = u64> + '_ {
        self.data.iter().cycle().map(move |(b, s)| value(t, *b, *s))
    }
    /// Cols of `blocks` 32-byte blocks (x3 for the widest, to get odd tree sizes).
    fn cols(&self, t: ElemType) -> usize {
        self.blocks * block(t) * if self.blocks == 3 { 3 } else { 1 }
    }
}

/// Fills `n` bytes' worth of elements at `addr` from the stream; returns them.
fn fill(
    c: &mut TileCore,
    t: ElemType,
    addr: usize,
    n: usize,
    it: &mut impl Iterator<Item = u64>,
) -> Vec<u64> {
    let m = c.mem_mut(TileLoc::Vec);
    (0..n)
        .map(|i| {
            let v = it.next().unwrap() & mask_of(t);
            wr(m, addr + i * t.size(), t.size(), v);
            v
        })
        .collect()
}

fn snapshot(c: &TileCore, addr: usize, n: usize) -> Vec<u8> {
    c.mem(TileLoc::Vec).as_slice()[addr..addr + n].to_vec()
}

/// Compares element bits of a whole region against the expectation (NaN as a class).
fn check_elems(t: ElemType, got: &[u8], want: &[u8], what: &str) -> Result<(), TestCaseError> {
    let s = t.size();
    for i in (0..got.len()).step_by(s) {
        let (g, w) = (rd(got, i, s), rd(want, i, s));
        prop_assert!(
            same(t, g, w),
            "{what}: element {} got {g:#x} want {w:#x}",
            i / s
        );
    }
    Ok(())
}

// ------------------------------------------------------------------ reductions

/// min / max of f64 values under a NaN policy, folded left to right from the first element.
fn fold_minmax(xs: &[f64], max: bool, p: NanMinMaxPolicy) -> f64 {
    let mut acc = xs[0];
    for &b in &xs[1..] {
        let a = acc;
        acc = match p {
            // C++ std::max(a, b) = a < b ? b : a; std::min(a, b) = b < a ? b : a.
            NanMinMaxPolicy::CppStd => {
                if max {
                    if a < b { b } else { a }
                } else if b < a {
                    b
                } else {
                    a
                }
            }
            _ => {
                let nan = |x: f64| x.is_nan();
                if p == NanMinMaxPolicy::Propagate && (nan(a) || nan(b)) {
                    f64::NAN
                } else if nan(a) {
                    b
                } else if nan(b) {
                    a
                } else if a == b {
                    // ±0: max prefers +0, min -0.
                    if max == a.is_sign_negative() { b } else { a }
                } else if (b > a) == max {
                    b
                } else {
                    a
                }
            }
        };
    }
    acc
}

/// The sum or product of a row in the documented order: the adjacent-pair tree (pairs
/// (0,1), (2,3), ... level by level, an odd last element carried up) or left to right from the
/// identity; floats round to f32 after every step (the compute type), integers wrap at the end.
fn reduce_sum_prod(t: ElemType, xs: &[u64], prod: bool, order: ReductionOrder) -> u64 {
    if t.is_float() {
        let op = |a: f64, b: f64| -> f64 { (if prod { a * b } else { a + b }) as f32 as f64 };
        let v: Vec<f64> = xs.iter().map(|b| fv(t, *b)).collect();
        let r = match order {
            ReductionOrder::Tree => {
                let mut cur = v;
                while cur.len() > 1 {
                    let mut next = Vec::new();
                    let mut i = 0;
                    while i < cur.len() {
                        next.push(if i + 1 < cur.len() {
                            op(cur[i], cur[i + 1])
                        } else {
                            cur[i]
                        });
                        i += 2;
                    }
                    cur = next;
                }
                cur[0]
            }
            ReductionOrder::Interleaved {
                lanes,
                accumulators,
            } if !prod => {
                // Written out: partial k sums elements k, k + w, k + 2w, ... of the whole
                // groups; lane i of the result is partial i plus partials i + l, i + 2l, ...
                // (each onto the running lane value); lanes then left to right; tail last.
                let (l, a) = (lanes as usize, accumulators as usize);
                let w = l * a;
                let whole = v.len() - v.len() % w;
                let partial = |k: usize| (k..whole).step_by(w).fold(0.0, |acc, j| op(acc, v[j]));
                let mut total = 0.0;
                for i in 0..l {
                    let mut lane = partial(i);
                    for m in 1..a {
                        lane = op(partial(i + m * l), lane);
                    }
                    total = op(total, lane);
                }
                v[whole..].iter().fold(total, |acc, b| op(acc, *b))
            }
            ReductionOrder::Sequential | ReductionOrder::Interleaved { .. } => v
                .iter()
                .fold(if prod { 1.0 } else { 0.0 }, |a, b| op(a, *b)),
        };
        encode(t, V::F(r))
    } else {
        let v: Vec<i128> = xs.iter().map(|b| iv(t, *b)).collect();
        let r = if prod {
            v.iter()
                .fold(1i128, |a, b| a.wrapping_mul(*b) & (u64::MAX as i128))
        } else {
            v.iter().sum()
        };
        encode(t, V::I(r))
    }
}

fn reduce_model(
    op: OpCode,
    t: ElemType,
    xs: &[u64],
    order: ReductionOrder,
    p: NanMinMaxPolicy,
) -> u64 {
    use OpCode::*;
    match op {
        Trowsum | Tcolsum => reduce_sum_prod(t, xs, false, order),
        Trowprod | Tcolprod => reduce_sum_prod(t, xs, true, order),
        Trowmax | Trowmin | Tcolmax | Tcolmin => {
            let max = matches!(op, Trowmax | Tcolmax);
            if t.is_float() {
                let v: Vec<f64> = xs.iter().map(|b| fv(t, *b)).collect();
                encode(t, V::F(fold_minmax(&v, max, p)))
            } else {
                let v = xs.iter().map(|b| iv(t, *b));
                encode(
                    t,
                    V::I(if max {
                        v.max().unwrap()
                    } else {
                        v.min().unwrap()
                    }),
                )
            }
        }
        _ => unreachable!(),
    }
}

/// First index of the max (min); comparisons with NaN are false, so a NaN wins only first.
fn arg_model(t: ElemType, xs: &[u64], max: bool) -> usize {
    let v: Vec<f64> = xs.iter().map(|b| fv(t, *b)).collect();
    let mut best = 0;
    for i in 1..v.len() {
        if (max && v[i] > v[best]) || (!max && v[i] < v[best]) {
            best = i;
        }
    }
    best
}

fn run_row_reduce(op: OpCode, c: &Case) -> Result<(), TestCaseError> {
    let mut core = core_of(c.prof);
    let legal = op.legal(core.arch());
    let t = legal[c.pick % legal.len()];
    let (rows, cols) = (c.rows, c.cols(t));
    let (vr, vc) = (1 + c.vr % rows, 1 + c.vc % cols);
    let s = t.size();
    let src_addr = 0x400;
    let mut it = c.stream(t);
    let src = fill(&mut core, t, src_addr, rows * cols, &mut it);
    // dst: DN with one column (offset r) or ND with the source's shape (offset r * cols).
    let dst_addr = 0x8000;
    let (dst_desc, dst_off, dst_bytes): (TileDesc, Box<dyn Fn(usize) -> usize>, usize) =
        if c.flag && (rows * s).is_multiple_of(32) {
            (
                TileDesc::vec(t, rows, 1).layout(BLayout::ColMajor, SLayout::NoneBox),
                Box::new(|r| r),
                rows * s,
            )
        } else {
            (
                TileDesc::vec(t, rows, cols),
                Box::new(move |r| r * cols),
                rows * cols * s,
            )
        };
    fill(&mut core, t, dst_addr, dst_bytes / s, &mut it);
    let mut want = snapshot(&core, dst_addr, dst_bytes);
    let src_t = core
        .alloc(
            TileDesc::vec(t, rows, cols)
                .valid(vr, vc)
                .at(src_addr as u64),
        )
        .unwrap();
    let dst_t = core
        .alloc(dst_desc.valid(vr, 1).at(dst_addr as u64))
        .unwrap();
    let pol = core.policy();
    // Half of the cases through the plain element-by-element path.
    core.set_reference(c.data[8].0 & 1 == 1);
    let res = core.row_reduce(op, &dst_t, &src_t);
    prop_assert!(res.is_ok(), "{op:?} {t}: {res:?}");
    for r in 0..vr {
        let row: Vec<u64> = (0..vc).map(|cc| src[r * cols + cc]).collect();
        let v = reduce_model(op, t, &row, pol.reduction_order, pol.nan_min_max);
        wr(&mut want, dst_off(r) * s, s, v);
    }
    let got = snapshot(&core, dst_addr, dst_bytes);
    check_elems(
        t,
        &got,
        &want,
        &format!("{op:?} {t} {pol:?} valid {vr}x{vc}"),
    )
}

fn run_col_reduce(op: OpCode, c: &Case) -> Result<(), TestCaseError> {
    let mut core = core_of(c.prof);
    let legal = op.legal(core.arch());
    let t = legal[c.pick % legal.len()];
    let (rows, cols) = (c.rows, c.cols(t));
    let (vr, vc) = (1 + c.vr % rows, 1 + c.vc % cols);
    let s = t.size();
    let mut it = c.stream(t);
    let src = fill(&mut core, t, 0x400, rows * cols, &mut it);
    let dst_addr = 0x8000;
    fill(&mut core, t, dst_addr, cols, &mut it);
    let mut want = snapshot(&core, dst_addr, cols * s);
    let src_t = core
        .alloc(TileDesc::vec(t, rows, cols).valid(vr, vc).at(0x400))
        .unwrap();
    let dst_t = core
        .alloc(TileDesc::vec(t, 1, cols).valid(1, vc).at(dst_addr as u64))
        .unwrap();
    let pol = core.policy();
    let res = core.col_reduce(op, &dst_t, &src_t);
    prop_assert!(res.is_ok(), "{op:?} {t}: {res:?}");
    for cc in 0..vc {
        let col: Vec<u64> = (0..vr).map(|r| src[r * cols + cc]).collect();
        // Column reductions are sequential on every profile.
        let v = reduce_model(op, t, &col, ReductionOrder::Sequential, pol.nan_min_max);
        wr(&mut want, cc * s, s, v);
    }
    let got = snapshot(&core, dst_addr, cols * s);
    check_elems(
        t,
        &got,
        &want,
        &format!("{op:?} {t} {pol:?} valid {vr}x{vc}"),
    )
}

fn run_arg_reduce(op: OpCode, c: &Case) -> Result<(), TestCaseError> {
    let mut core = core_of(c.prof);
    let legal = op.legal(core.arch());
    let t = legal[c.pick % legal.len()];
    let row = matches!(op, OpCode::Trowargmax | OpCode::Trowargmin);
    let max = matches!(op, OpCode::Trowargmax | OpCode::Tcolargmax);
    let (rows, cols) = (c.rows, c.cols(t));
    let (vr, vc) = (1 + c.vr % rows, 1 + c.vc % cols);
    let mut it = c.stream(t);
    let src = fill(&mut core, t, 0x400, rows * cols, &mut it);
    let it_t = if c.flag { ElemType::U32 } else { ElemType::I32 };
    let src_t = core
        .alloc(TileDesc::vec(t, rows, cols).valid(vr, vc).at(0x400))
        .unwrap();
    // Index destination: ND rows x 8 (row form, valid cols 1) or 1 x cols (column form).
    let (idesc, n_out) = if row {
        (TileDesc::vec(it_t, rows, 8).valid(vr, 1), vr)
    } else {
        (TileDesc::vec(it_t, 1, cols.max(8)).valid(1, vc), vc)
    };
    let idx_t = core.alloc(idesc.at(0x8000)).unwrap();
    core.mem_mut(TileLoc::Vec)[0x8000..0x8000 + 4 * rows * cols.max(8)].fill(0xee);
    let res = core.exec(&TileOp {
        op,
        args: Args::ArgReduce {
            dst_idx: idx_t,
            src: src_t,
            dst_val: None,
        },
    });
    prop_assert!(res.is_ok(), "{op:?} {t}: {res:?}");
    let m = core.mem(TileLoc::Vec).as_slice();
    for k in 0..n_out {
        let xs: Vec<u64> = if row {
            (0..vc).map(|cc| src[k * cols + cc]).collect()
        } else {
            (0..vr).map(|r| src[r * cols + k]).collect()
        };
        let want = arg_model(t, &xs, max) as u64;
        let off = if row { k * 8 } else { k };
        let got = rd(m, 0x8000 + 4 * off, 4);
        prop_assert_eq!(got, want, "{:?} {} line {} of {:?}", op, t, k, xs);
    }
    Ok(())
}

// ------------------------------------------------------------------ expand

fn elem_op(op: OpCode, t: ElemType, a: u64, b: u64, p: NanMinMaxPolicy) -> Option<u64> {
    let name = op.name();
    let kind = name
        .trim_start_matches("TROWEXPAND")
        .trim_start_matches("TCOLEXPAND")
        .trim_start_matches("TPART");
    if t.is_float() {
        let (x, y) = (fv(t, a), fv(t, b));
        let r = match kind {
            "ADD" => x + y,
            "SUB" => x - y,
            "MUL" => x * y,
            "DIV" => x / y,
            "MAX" | "MIN" => fold_minmax(&[x, y], kind == "MAX", p),
            "EXPDIF" => {
                let d = fv(t, encode(t, V::F(x - y)));
                d.exp() as f32 as f64
            }
            _ => unreachable!("{op:?}"),
        };
        Some(encode(t, V::F(r)))
    } else {
        let (x, y) = (iv(t, a), iv(t, b));
        let r = match kind {
            "ADD" => x + y,
            "SUB" => x - y,
            "MUL" => x.wrapping_mul(y),
            "DIV" => {
                if y == 0 {
                    return None;
                }
                x / y
            }
            "MAX" => x.max(y),
            "MIN" => x.min(y),
            _ => unreachable!("{op:?}"),
        };
        Some(encode(t, V::I(r)))
    }
}

fn run_expand_binary(op: OpCode, c: &Case) -> Result<(), TestCaseError> {
    let mut core = core_of(c.prof);
    let legal = op.legal(core.arch());
    let t = legal[c.pick % legal.len()];
    let row = op.name().starts_with("TROW");
    // The per-row operand is DN (rows x 1): rows * sizeof(T) must be a multiple of 32 bytes.
    let rows = if row {
        block(t) * (1 + c.rows % 2)
    } else {
        c.rows
    };
    let cols = c.cols(t);
    let (vr, vc) = (c.vr % (rows + 1), c.vc % (cols + 1));
    let s = t.size();
    let mut it = c.stream(t);
    let a = fill(&mut core, t, 0x400, rows * cols, &mut it);
    // The broadcast operand: DN rows x 1 (offset r) or ND 1 x cols (offset c).
    let b = fill(&mut core, t, 0x8000, rows.max(cols), &mut it);
    let dst_addr = 0xc000;
    fill(&mut core, t, dst_addr, rows * cols, &mut it);
    let mut want = snapshot(&core, dst_addr, rows * cols * s);
    let before = want.clone();
    let a_t = core
        .alloc(TileDesc::vec(t, rows, cols).valid(vr, vc).at(0x400))
        .unwrap();
    let b_t = if row {
        core.alloc(
            TileDesc::vec(t, rows, 1)
                .layout(BLayout::ColMajor, SLayout::NoneBox)
                .valid(vr, 1)
                .at(0x8000),
        )
    } else {
        core.alloc(TileDesc::vec(t, 1, cols).valid(1, vc).at(0x8000))
    }
    .unwrap();
    let d_t = core
        .alloc(
            TileDesc::vec(t, rows, cols)
                .valid(vr, vc)
                .at(dst_addr as u64),
        )
        .unwrap();
    let p = core.policy().nan_min_max;
    let res = core.expand_binary(op, &d_t, &a_t, &b_t);
    let mut div0 = false;
    for r in 0..vr {
        for cc in 0..vc {
            let sb = if row { b[r] } else { b[cc] };
            match elem_op(op, t, a[r * cols + cc], sb, p) {
                Some(v) => wr(&mut want, (r * cols + cc) * s, s, v),
                None => div0 = true,
            }
        }
    }
    if div0 {
        prop_assert!(
            matches!(res, Err(PtoError::DivByZero { .. })),
            "{op:?} {t}: {res:?}"
        );
        prop_assert_eq!(
            snapshot(&core, dst_addr, rows * cols * s),
            before,
            "written before the error"
        );
        return Ok(());
    }
    prop_assert!(res.is_ok(), "{op:?} {t}: {res:?}");
    let got = snapshot(&core, dst_addr, rows * cols * s);
    check_elems(t, &got, &want, &format!("{op:?} {t} valid {vr}x{vc}"))
}

fn run_expand(op: OpCode, c: &Case) -> Result<(), TestCaseError> {
    let mut core = core_of(c.prof);
    let legal = op.legal(core.arch());
    let t = legal[c.pick % legal.len()];
    let row = op == OpCode::Trowexpand;
    let (rows, cols) = (c.rows, c.cols(t));
    let (vr, vc) = (1 + c.vr % rows, 1 + c.vc % cols);
    let s = t.size();
    let mut it = c.stream(t);
    let src = fill(&mut core, t, 0x400, rows * cols, &mut it);
    let dst_addr = 0x8000;
    fill(&mut core, t, dst_addr, rows * cols, &mut it);
    let mut want = snapshot(&core, dst_addr, rows * cols * s);
    let src_t = core
        .alloc(
            TileDesc::vec(t, rows, cols)
                .valid(if row { vr } else { 1 }, if row { 1 } else { vc })
                .at(0x400),
        )
        .unwrap();
    let d_t = core
        .alloc(
            TileDesc::vec(t, rows, cols)
                .valid(vr, vc)
                .at(dst_addr as u64),
        )
        .unwrap();
    let res = core.expand(op, &d_t, &src_t);
    prop_assert!(res.is_ok(), "{op:?} {t}: {res:?}");
    for r in 0..vr {
        for cc in 0..vc {
            let v = if row { src[r * cols] } else { src[cc] };
            wr(&mut want, (r * cols + cc) * s, s, v);
        }
    }
    check_elems(
        t,
        &snapshot(&core, dst_addr, rows * cols * s),
        &want,
        &format!("{op:?} {t}"),
    )
}

// ------------------------------------------------------------------ partial

fn run_partial(op: OpCode, c: &Case) -> Result<(), TestCaseError> {
    let mut core = core_of(c.prof);
    let arch = core.arch();
    let legal = op.legal(arch);
    let t = legal[c.pick % legal.len()];
    let (rows, cols) = (c.rows, c.cols(t));
    let (vr, vc) = (1 + c.vr % rows, 1 + c.vc % cols);
    let s = t.size();
    // A smaller region inside dst's: A2A3 needs the other source equal to dst.
    let small = (1 + (c.vr / 7) % vr, 1 + (c.vc / 7) % vc);
    let (r0, r1) = match (arch, c.flag) {
        (TileArch::A2A3, true) => ((vr, vc), small),
        (TileArch::A2A3, false) => (small, (vr, vc)),
        (TileArch::A5, f) => {
            let other = (
                1 + (c.data[0].0 as usize) % vr,
                1 + (c.data[1].0 as usize) % vc,
            );
            if f { (small, other) } else { (other, small) }
        }
    };
    let mut it = c.stream(t);
    let a = fill(&mut core, t, 0x400, rows * cols, &mut it);
    let b = fill(&mut core, t, 0x4000, rows * cols, &mut it);
    let dst_addr = 0x8000;
    fill(&mut core, t, dst_addr, rows * cols, &mut it);
    let mut want = snapshot(&core, dst_addr, rows * cols * s);
    let mk = |core: &TileCore, addr: u64, (r, cc): (usize, usize)| {
        core.alloc(TileDesc::vec(t, rows, cols).valid(r, cc).at(addr))
            .unwrap()
    };
    let (a_t, b_t, d_t) = (
        mk(&core, 0x400, r0),
        mk(&core, 0x4000, r1),
        mk(&core, dst_addr as u64, (vr, vc)),
    );
    let p = core.policy().nan_min_max;
    let res = core.partial(op, &d_t, &a_t, &b_t);
    prop_assert!(res.is_ok(), "{op:?} {t}: {res:?}");
    for r in 0..vr {
        for cc in 0..vc {
            let i = r * cols + cc;
            let in0 = r < r0.0 && cc < r0.1;
            let in1 = r < r1.0 && cc < r1.1;
            let v = match (in0, in1) {
                (true, true) => elem_op(op, t, a[i], b[i], p).unwrap(),
                (true, false) => a[i],
                (false, true) => b[i],
                (false, false) => 0,
            };
            wr(&mut want, i * s, s, v);
        }
    }
    check_elems(
        t,
        &snapshot(&core, dst_addr, rows * cols * s),
        &want,
        &format!("{op:?} {t} {r0:?} {r1:?} dst {vr}x{vc}"),
    )
}

// ------------------------------------------------------------------ compare / select

/// The comparison on exact values: f64 for floats, i128 for integers (64-bit ones do not fit
/// in f64).
fn cmp_model(mode: CmpMode, t: ElemType, a: u64, b: u64) -> bool {
    if !t.is_float() {
        let (x, y) = (iv(t, a), iv(t, b));
        return match mode {
            CmpMode::Eq => x == y,
            CmpMode::Ne => x != y,
            CmpMode::Lt => x < y,
            CmpMode::Le => x <= y,
            CmpMode::Gt => x > y,
            CmpMode::Ge => x >= y,
        };
    }
    let (x, y) = (fv(t, a), fv(t, b));
    match mode {
        CmpMode::Eq => x == y,
        CmpMode::Ne => x != y,
        CmpMode::Lt => x < y,
        CmpMode::Le => x <= y,
        CmpMode::Gt => x > y,
        CmpMode::Ge => x >= y,
    }
}

/// Bytes per mask row (room for 512 bits).
const MB: usize = 64;

const MODES: [CmpMode; 6] = [
    CmpMode::Eq,
    CmpMode::Ne,
    CmpMode::Lt,
    CmpMode::Le,
    CmpMode::Gt,
    CmpMode::Ge,
];

fn run_compare(scalar: bool, c: &Case) -> Result<(), TestCaseError> {
    let mut core = core_of(c.prof);
    let arch = core.arch();
    let op = if scalar { OpCode::Tcmps } else { OpCode::Tcmp };
    let legal = op.legal(arch);
    let t = legal[c.pick % legal.len()];
    let mode = MODES[c.data[2].0 as usize % 6];
    let (rows, cols) = (c.rows, c.cols(t));
    let (vr, vc) = (c.vr % (rows + 1), c.vc % (cols + 1));
    let mut it = c.stream(t);
    let a = fill(&mut core, t, 0x400, rows * cols, &mut it);
    let b = fill(&mut core, t, 0x4000, rows * cols, &mut it);
    let sbits = it.next().unwrap() & mask_of(t);
    // Mask: uint8 words on A2A3, uint32 on A5; MB bytes per row.
    let (w, wt) = match arch {
        TileArch::A2A3 => (8usize, ElemType::U8),
        TileArch::A5 => (32usize, ElemType::U32),
    };
    let mcols = MB / wt.size();
    let maddr = 0x8000;
    let mut it2 = c.stream(ElemType::U8);
    fill(&mut core, ElemType::U8, maddr, rows * MB, &mut it2);
    let mut want = snapshot(&core, maddr, rows * MB);
    let a_t = core
        .alloc(TileDesc::vec(t, rows, cols).valid(vr, vc).at(0x400))
        .unwrap();
    let b_t = core
        .alloc(TileDesc::vec(t, rows, cols).valid(vr, vc).at(0x4000))
        .unwrap();
    let m_t = core
        .alloc(
            TileDesc::vec(wt, rows, mcols)
                .valid(vr, vc.div_ceil(w))
                .at(maddr as u64),
        )
        .unwrap();
    let sv = match decode(t, sbits) {
        V::F(x) => Scalar::Float(x),
        V::I(i) => Scalar::Int(i as i64),
    };
    let res = if scalar {
        core.tcmps(&m_t, &a_t, sv, mode)
    } else {
        core.tcmp(&m_t, &a_t, &b_t, mode)
    };
    prop_assert!(res.is_ok(), "{op:?} {t}: {res:?}");
    // A2A3 int32 compares with EQ whatever the mode.
    let eff = if arch == TileArch::A2A3 && t == ElemType::I32 {
        CmpMode::Eq
    } else {
        mode
    };
    for r in 0..vr {
        for wd in 0..vc.div_ceil(w) {
            let mut word = 0u64;
            for bit in 0..w {
                let cc = wd * w + bit;
                if cc < vc {
                    let y = if scalar { sbits } else { b[r * cols + cc] };
                    if cmp_model(eff, t, a[r * cols + cc], y) {
                        word |= 1 << bit;
                    }
                }
            }
            wr(&mut want, r * MB + wd * wt.size(), wt.size(), word);
        }
    }
    let got = snapshot(&core, maddr, rows * MB);
    prop_assert_eq!(got, want, "{:?} {} {:?} valid {}x{}", op, t, mode, vr, vc);
    Ok(())
}

fn run_select(scalar: bool, c: &Case) -> Result<(), TestCaseError> {
    let mut core = core_of(c.prof);
    let arch = core.arch();
    let op = if scalar { OpCode::Tsels } else { OpCode::Tsel };
    let legal = op.legal(arch);
    let t = legal[c.pick % legal.len()];
    let wt = [ElemType::U8, ElemType::U16, ElemType::U32][c.data[3].0 as usize % 3];
    let w = wt.bits() as usize;
    let (rows, cols) = (c.rows, c.cols(t));
    let (vr, vc) = (c.vr % (rows + 1), c.vc % (cols + 1));
    let s = t.size();
    let mut it = c.stream(t);
    let a = fill(&mut core, t, 0x400, rows * cols, &mut it);
    let b = fill(&mut core, t, 0x4000, rows * cols, &mut it);
    let sbits = it.next().unwrap() & mask_of(t);
    let maddr = 0x8000;
    let mut it2 = c.data.iter().map(|(x, _)| *x);
    let m = fill(&mut core, ElemType::U8, maddr, rows * MB, &mut it2);
    let dst_addr = 0xc000;
    fill(&mut core, t, dst_addr, rows * cols, &mut it);
    let mut want = snapshot(&core, dst_addr, rows * cols * s);
    let mk = |core: &TileCore, addr| {
        core.alloc(TileDesc::vec(t, rows, cols).valid(vr, vc).at(addr))
            .unwrap()
    };
    let (a_t, b_t, d_t) = (
        mk(&core, 0x400),
        mk(&core, 0x4000),
        mk(&core, dst_addr as u64),
    );
    let m_t = core
        .alloc(TileDesc::vec(wt, rows, MB / wt.size()).at(maddr as u64))
        .unwrap();
    let sv = match decode(t, sbits) {
        V::F(x) => Scalar::Float(x),
        V::I(i) => Scalar::Int(i as i64),
    };
    let res = if scalar {
        core.tsels(&d_t, &m_t, &a_t, sv)
    } else {
        core.tsel(&d_t, &m_t, &a_t, &b_t)
    };
    prop_assert!(res.is_ok(), "{op:?} {t}: {res:?}");
    for r in 0..vr {
        for cc in 0..vc {
            // Bit cc of row r: word cc / w of the row's 32 bytes, bit cc % w, little-endian.
            let byte = m[r * MB + (cc / w) * (w / 8) + (cc % w) / 8];
            let bit = (byte >> (cc % 8)) & 1 == 1;
            let v = if bit {
                a[r * cols + cc]
            } else if scalar {
                sbits
            } else {
                b[r * cols + cc]
            };
            wr(&mut want, (r * cols + cc) * s, s, v);
        }
    }
    let got = snapshot(&core, dst_addr, rows * cols * s);
    // NaN as a class: a NaN scalar reaches the op as an f64 and loses its payload.
    check_elems(t, &got, &want, &format!("{op:?} {t} mask {wt}"))?;
    Ok(())
}

// ------------------------------------------------------------------ convert

fn run_convert(c: &Case) -> Result<(), TestCaseError> {
    let mut core = core_of(c.prof);
    let arch = core.arch();
    let srcs = OpCode::Tcvt.legal(arch);
    let st = srcs[c.pick % srcs.len()];
    let dsts = cvt_targets(arch, st);
    let dt = dsts[(c.pick / srcs.len()) % dsts.len()];
    let rows = c.rows;
    // A multiple of the smaller type's 32-byte block is one of the larger's too.
    let cols = c.cols(if st.size() < dt.size() { st } else { dt });
    let (vr, vc) = (c.vr % (rows + 1), c.vc % (cols + 1));
    let mut it = c.stream(st);
    let src = fill(&mut core, st, 0x400, rows * cols, &mut it);
    let dst_addr = 0x8000;
    let mut it2 = c.stream(dt);
    fill(&mut core, dt, dst_addr, rows * cols, &mut it2);
    let before = snapshot(&core, dst_addr, rows * cols * dt.size());
    let s_t = core
        .alloc(TileDesc::vec(st, rows, cols).valid(vr, vc).at(0x400))
        .unwrap();
    let d_t = core
        .alloc(
            TileDesc::vec(dt, rows, cols)
                .valid(vr, vc)
                .at(dst_addr as u64),
        )
        .unwrap();
    for mode in RoundMode::ALL {
        for sat in [Saturation::On, Saturation::Off] {
            let res = core.tcvt(&d_t, &s_t, mode, sat);
            if mode == RoundMode::Odd && st.is_float() && !dt.is_float() && !dt.is_narrow_float() {
                prop_assert!(matches!(res, Err(PtoError::Unsupported { .. })), "{res:?}");
                prop_assert_eq!(
                    snapshot(&core, dst_addr, rows * cols * dt.size()),
                    before.clone()
                );
                continue;
            }
            prop_assert!(res.is_ok(), "{st}->{dt} {mode:?} {sat:?}: {res:?}");
            let mut want = before.clone();
            for r in 0..vr {
                for cc in 0..vc {
                    let i = r * cols + cc;
                    // The A5 rounds into hifloat8 half away whatever the mode.
                    let m = if dt == ElemType::HiF8 {
                        RoundMode::Round
                    } else {
                        mode
                    };
                    let v = npusim_core::convert::convert_bits(src[i], st, dt, m, sat).unwrap();
                    wr(&mut want, i * dt.size(), dt.size(), v);
                }
            }
            let got = snapshot(&core, dst_addr, rows * cols * dt.size());
            prop_assert_eq!(
                got,
                want,
                "{} -> {} {:?} {:?} valid {}x{}",
                st,
                dt,
                mode,
                sat,
                vr,
                vc
            );
            // restore for the next mode
            core.mem_mut(TileLoc::Vec)[dst_addr..dst_addr + before.len()].copy_from_slice(&before);
        }
    }
    Ok(())
}

// ------------------------------------------------------------------ TLOAD / TSTORE

fn pad_model(t: ElemType, p: PadValue, null_zero: bool) -> Option<u64> {
    // The A5 8-bit floats: Max/Min are ±inf where the format has one, else ±max
    // (f8_tiles.rs models them from the bit fields).
    if let Some(f) = npusim_core::f8::F8Format::of(t) {
        let far = f.inf().unwrap_or(f.max_code());
        return Some(match p {
            PadValue::Null if !null_zero => return None,
            PadValue::Null | PadValue::Zero => 0,
            PadValue::Max => far,
            PadValue::Min if f == npusim_core::f8::F8Format::E8M0 => 0,
            PadValue::Min => far | f.sign_bit(),
            PadValue::Custom(b) => f.from_f32(f32::from_bits(b), Saturation::Off),
        } as u64);
    }
    // Packed fp4 pairs (one byte, two codes): pto-isa's A5 `PadValueMap` gives both packed
    // types the pad byte 0 whatever the pad value (fp4_memory.rs pins the same rule).
    if npusim_core::f8::F8Format::of_packed(t).is_some() {
        return match p {
            PadValue::Null if !null_zero => None,
            _ => Some(0),
        };
    }
    let signed = t.is_signed_int();
    let w = t.bits();
    Some(match p {
        PadValue::Null => {
            if null_zero {
                0
            } else {
                return None;
            }
        }
        PadValue::Zero => 0,
        PadValue::Max if t.is_float() => encode(t, V::F(f64::INFINITY)),
        PadValue::Min if t.is_float() => encode(t, V::F(f64::NEG_INFINITY)),
        PadValue::Max => {
            if signed {
                (1u64 << (w - 1)) - 1
            } else {
                mask_of(t)
            }
        }
        PadValue::Min => {
            if signed {
                (1u64 << (w - 1)) & mask_of(t)
            } else {
                0
            }
        }
        PadValue::Custom(b) => {
            let x = f32::from_bits(b) as f64;
            if t.is_float() {
                encode(t, V::F(x))
            } else {
                let i = if x.is_nan() {
                    0
                } else {
                    x.trunc().clamp(i128::MIN as f64, i128::MAX as f64) as i128
                };
                encode(t, V::I(i))
            }
        }
    })
}

fn run_load_store(c: &Case) -> Result<(), TestCaseError> {
    let mut core = core_of(c.prof);
    let all = OpCode::Tload.legal(core.arch());
    let t = all[c.pick % all.len()];
    let s = t.size();
    let c0 = block(t);
    let layout = c.data[4].0 % 3;
    // NZ needs rows a multiple of 16 and the whole tile valid.
    let (rows, cols) = if layout == 2 {
        (16 * (1 + c.rows % 2), c.cols(t))
    } else {
        (c.rows, c.cols(t))
    };
    let (vr, vc) = if layout == 2 {
        (rows, cols)
    } else {
        (1 + c.vr % rows, 1 + c.vc % cols)
    };
    let pads = [
        PadValue::Null,
        PadValue::Zero,
        PadValue::Max,
        PadValue::Min,
        PadValue::Custom(c.data[5].0 as u32),
    ];
    let pad = pads[c.data[6].0 as usize % 5];
    let row_stride = vc + (c.data[7].0 as usize % 3) * c0;
    let n_gm = rows * row_stride.max(cols) + rows * cols;
    let mut it = c.stream(t);
    let gm_data: Vec<u64> = (0..n_gm).map(|_| it.next().unwrap() & mask_of(t)).collect();
    let gm_bytes: Vec<u8> = gm_data
        .iter()
        .flat_map(|v| v.to_le_bytes()[..s].to_vec())
        .collect();
    let gm = core.gm_bind(&gm_bytes);
    let (g, gofs): (GlobalTensor, Box<dyn Fn(usize, usize) -> usize>) = match layout {
        0 => (
            GlobalTensor::nd_2d_strided(gm, t, vr, vc, row_stride),
            Box::new(move |r, cc| r * row_stride + cc),
        ),
        1 => (
            GlobalTensor::dn_2d(gm, t, vr, vc),
            Box::new(move |r, cc| cc * vr + r),
        ),
        _ => (
            GlobalTensor::nz_2d(gm, t, rows, cols),
            // (1, cols/C0, rows/16, 16, C0) with strides (_, rows*C0, 16*C0, C0, 1).
            Box::new(move |r, cc| {
                (cc / c0) * rows * c0 + (r / 16) * 16 * c0 + (r % 16) * c0 + cc % c0
            }),
        ),
    };
    let taddr = 0x400;
    let mut it2 = c.stream(t);
    fill(&mut core, t, taddr, rows * cols, &mut it2);
    let mut want = snapshot(&core, taddr, rows * cols * s);
    let tile = core
        .alloc(
            TileDesc::vec(t, rows, cols)
                .valid(vr, vc)
                .pad(pad)
                .at(taddr as u64),
        )
        .unwrap();
    let res = core.tload(&tile, &g);
    prop_assert!(res.is_ok(), "TLOAD {t} {layout} {res:?}");
    if let Some(pb) = pad_model(t, pad, core.policy().pad_null_fills_zero) {
        for i in 0..rows * cols {
            wr(&mut want, i * s, s, pb);
        }
    }
    for r in 0..vr {
        for cc in 0..vc {
            wr(&mut want, (r * cols + cc) * s, s, gm_data[gofs(r, cc)]);
        }
    }
    let got = snapshot(&core, taddr, rows * cols * s);
    prop_assert_eq!(
        got,
        want.clone(),
        "TLOAD {} layout {} pad {:?} valid {}x{}",
        t,
        layout,
        pad,
        vr,
        vc
    );
    // TSTORE to a second, zeroed GM buffer: exactly the valid region moves.
    let gm2 = core.gm_bind(&vec![0u8; gm_bytes.len()]);
    let g2 = GlobalTensor { addr: gm2, ..g };
    let res = core.tstore(&g2, &tile);
    prop_assert!(res.is_ok(), "TSTORE {t} {res:?}");
    let mut want_gm = vec![0u8; gm_bytes.len()];
    for r in 0..vr {
        for cc in 0..vc {
            let v = rd(&want, (r * cols + cc) * s, s);
            wr(&mut want_gm, gofs(r, cc) * s, s, v);
        }
    }
    let got_gm: Vec<u8> = core.gm_read::<u8>(gm2, gm_bytes.len()).unwrap();
    prop_assert_eq!(got_gm, want_gm, "TSTORE {} layout {}", t, layout);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn row_reductions(c in case()) {
        for op in [OpCode::Trowsum, OpCode::Trowprod, OpCode::Trowmax, OpCode::Trowmin] {
            run_row_reduce(op, &c)?;
        }
    }

    #[test]
    fn col_reductions(c in case()) {
        for op in [OpCode::Tcolsum, OpCode::Tcolprod, OpCode::Tcolmax, OpCode::Tcolmin] {
            run_col_reduce(op, &c)?;
        }
    }

    #[test]
    fn arg_reductions(c in case()) {
        for op in [OpCode::Trowargmax, OpCode::Trowargmin, OpCode::Tcolargmax, OpCode::Tcolargmin] {
            run_arg_reduce(op, &c)?;
        }
    }

    #[test]
    fn expand_binary(c in case()) {
        use OpCode::*;
        for op in [Trowexpandadd, Trowexpandsub, Trowexpandmul, Trowexpanddiv, Trowexpandmax,
            Trowexpandmin, Trowexpandexpdif, Tcolexpandadd, Tcolexpandsub, Tcolexpandmul,
            Tcolexpanddiv, Tcolexpandmax, Tcolexpandmin, Tcolexpandexpdif] {
            run_expand_binary(op, &c)?;
        }
    }

    #[test]
    fn expand(c in case()) {
        run_expand(OpCode::Trowexpand, &c)?;
        run_expand(OpCode::Tcolexpand, &c)?;
    }

    #[test]
    fn partial(c in case()) {
        for op in [OpCode::Tpartadd, OpCode::Tpartmul, OpCode::Tpartmax, OpCode::Tpartmin] {
            run_partial(op, &c)?;
        }
    }

    #[test]
    fn compare(c in case()) {
        run_compare(false, &c)?;
        run_compare(true, &c)?;
    }

    #[test]
    fn select(c in case()) {
        run_select(false, &c)?;
        run_select(true, &c)?;
    }

    #[test]
    fn convert(c in case()) {
        run_convert(&c)?;
    }

    #[test]
    fn load_store(c in case()) {
        run_load_store(&c)?;
    }
}

/// The tree and sequential orders give different f32 sums on a row built for it, and each
/// profile produces its documented one.
#[test]
fn reduction_order_is_visible() {
    let row = [1e8f32, 1.0, -1e8, 1.0, 3.0, 0.0, 0.0, 0.0];
    for p in 0..4 {
        let mut core = core_of(p);
        let src = core
            .alloc(TileDesc::vec(ElemType::F32, 1, 8).valid(1, 5).at(0))
            .unwrap();
        let dst = core
            .alloc(
                TileDesc::vec(ElemType::F32, 8, 1)
                    .layout(BLayout::ColMajor, SLayout::NoneBox)
                    .valid(1, 1)
                    .at(64),
            )
            .unwrap();
        core.write_valid(&src, &row).unwrap();
        core.trowsum(&dst, &src).unwrap();
        let got = core.get::<f32>(&dst, 0, 0).unwrap();
        // tree: ((1e8 + 1) + (-1e8 + 1)) + 3 = (1e8 - 1e8) + 3 = 3; sequential: 1 + 3 = 4.
        let want = if p < 2 { 3.0 } else { 4.0 };
        assert_eq!(got, want, "profile {p}");
    }
}

/// TCVT spot values, hand-computed.
#[test]
fn convert_spot_values() {
    let mut core = core_of(1);
    let src = core
        .alloc(TileDesc::vec(ElemType::F32, 1, 8).at(0))
        .unwrap();
    let dst = core
        .alloc(TileDesc::vec(ElemType::I32, 1, 8).at(64))
        .unwrap();
    let h = core
        .alloc(TileDesc::vec(ElemType::F16, 1, 16).at(128))
        .unwrap();
    let i16t = core
        .alloc(TileDesc::vec(ElemType::I16, 1, 16).at(192))
        .unwrap();
    core.write_valid(
        &src,
        &[2.5f32, -2.5, 1e10, f32::NAN, 65520.0, -0.5, 3.7, -3.7],
    )
    .unwrap();
    let cases: [(RoundMode, [i32; 8]); 5] = [
        (RoundMode::Rint, [2, -2, i32::MAX, 0, 65520, 0, 4, -4]),
        (RoundMode::Round, [3, -3, i32::MAX, 0, 65520, -1, 4, -4]),
        (RoundMode::Floor, [2, -3, i32::MAX, 0, 65520, -1, 3, -4]),
        (RoundMode::Ceil, [3, -2, i32::MAX, 0, 65520, 0, 4, -3]),
        (RoundMode::Trunc, [2, -2, i32::MAX, 0, 65520, 0, 3, -3]),
    ];
    for (mode, want) in cases {
        core.tcvt(&dst, &src, mode, Saturation::On).unwrap();
        assert_eq!(core.read_valid::<i32>(&dst).unwrap(), want, "{mode:?}");
    }
    let h8 = h.with_valid(1, 8).unwrap();
    core.tcvt(&h8, &src, RoundMode::Rint, Saturation::Off)
        .unwrap();
    let got: Vec<u16> = core.read_valid::<u16>(&h8).unwrap();
    assert_eq!(
        got[4], 0x7c00,
        "65520 rounds to +inf in half without saturation"
    );
    assert_eq!(got[0], 0x4100, "2.5");
    core.tcvt(&h8, &src, RoundMode::Rint, Saturation::On)
        .unwrap();
    assert_eq!(
        core.read_valid::<u16>(&h8).unwrap()[4],
        0x7bff,
        "saturates to 65504"
    );
    let s8 = i16t.with_valid(1, 8).unwrap();
    core.tcvt(&s8, &src, RoundMode::Trunc, Saturation::On)
        .unwrap();
    assert_eq!(core.read_valid::<i16>(&s8).unwrap()[2], i16::MAX);
}
