//! Row and column reductions, and the expand (broadcast) family.
//!
//! Implements pto-isa `docs/isa/{TROWSUM,TROWPROD,TROWMAX,TROWMIN,TROWARGMAX,TROWARGMIN}.md`,
//! `docs/isa/{TCOLSUM,TCOLPROD,TCOLMAX,TCOLMIN,TCOLARGMAX,TCOLARGMIN}.md`, `docs/isa/TROWEXPAND.md`,
//! `docs/isa/TCOLEXPAND.md` and their ADD/SUB/MUL/DIV/MAX/MIN/EXPDIF forms.
//!
//! Row sums and products follow the chip's [`ReductionOrder`]: `Sequential` accumulates left to
//! right from 0 (or 1) in the compute type (f32 for f16/bf16/f32), as the public CPU simulator
//! does; `Interleaved` (sums only) is that simulator's vectorised loop as clang builds it
//! (see [`ReductionOrder::Interleaved`]); `Tree` adds adjacent pairs level by level (the exact A5 grouping is not documented; this
//! is the plain pairwise tree). Max/min start from the first element. Arg reductions keep the
//! first index on ties, and a NaN wins only in the first position (all comparisons with NaN are
//! false). Column reductions are sequential (the pages' form without `tmp`).

use super::{covers, need_loc, need_nd, same_type, vr_err};
use crate::core::TileCore;
use crate::dispatch;
use crate::error::PtoError;
use crate::num::{Elem, Num, exp_f, max_p, min_p};
use crate::table::OpCode;
use crate::tile::{BLayout, SLayout, Tile, TileLoc};
use npusim_core::{ElemType, NanMinMaxPolicy, ReductionOrder, TileArch};

#[derive(Clone, Copy, Debug)]
enum Red {
    Sum,
    Prod,
    Max,
    Min,
}

fn red_of(op: OpCode) -> Option<Red> {
    use OpCode::*;
    Some(match op {
        Trowsum | Tcolsum => Red::Sum,
        Trowprod | Tcolprod => Red::Prod,
        Trowmax | Tcolmax => Red::Max,
        Trowmin | Tcolmin => Red::Min,
        _ => return None,
    })
}

fn fold<N: Num>(r: Red, v: &[N], order: ReductionOrder, p: NanMinMaxPolicy) -> N {
    let f = |a: N, b: N| match r {
        Red::Sum => a.add(b),
        Red::Prod => a.mul(b),
        Red::Max => max_p(a, b, p),
        Red::Min => min_p(a, b, p),
    };
    match (r, order) {
        (Red::Sum, ReductionOrder::Interleaved { .. }) => order.sum(v, N::zero(), |a, b| a.add(b)),
        (Red::Sum | Red::Prod, ReductionOrder::Tree) if !v.is_empty() => {
            let mut cur = v.to_vec();
            while cur.len() > 1 {
                cur = cur
                    .chunks(2)
                    .map(|c| if c.len() == 2 { f(c[0], c[1]) } else { c[0] })
                    .collect();
            }
            cur[0]
        }
        (Red::Sum, _) => v.iter().fold(N::zero(), |a, b| f(a, *b)),
        (Red::Prod, _) => v.iter().fold(N::one(), |a, b| f(a, *b)),
        _ => v
            .iter()
            .skip(1)
            .fold(v.first().copied().unwrap_or_default(), |a, b| f(a, *b)),
    }
}

/// A streaming form of [`fold`] that needs no buffer: the adjacent-pair tree is built as a
/// binary counter (a block of 2^k leaves is closed as soon as its two halves are), and the
/// blocks left at the end are combined right to left. That is the same grouping as pairing
/// level by level with an odd last element carried up: every node of level `L` covers the
/// aligned leaves `[k 2^L, min((k+1) 2^L, n))`. Aligned groups of eight leaves are reduced
/// in registers and enter the counter as one level-3 node.
struct Folder<N: Num, F: Fn(N, N) -> N> {
    f: F,
    tree: bool,
    acc: Option<N>,
    stack: [(u32, N); 66],
    len: usize,
}

impl<N: Num, F: Fn(N, N) -> N> Folder<N, F> {
    #[inline(always)]
    fn new(f: F, tree: bool, init: Option<N>) -> Self {
        Folder {
            f,
            tree,
            acc: init,
            stack: [(0, N::zero()); 66],
            len: 0,
        }
    }

    #[inline(always)]
    fn node(&mut self, mut lvl: u32, mut v: N) {
        while self.len > 0 && self.stack[self.len - 1].0 == lvl {
            self.len -= 1;
            v = (self.f)(self.stack[self.len].1, v);
            lvl += 1;
        }
        self.stack[self.len] = (lvl, v);
        self.len += 1;
    }

    /// Feeds a run of leaves whose first one is at an index that is a multiple of 64.
    #[inline(always)]
    fn feed(&mut self, xs: &[N]) {
        if !self.tree {
            let f = &self.f;
            let mut it = xs.iter();
            let mut acc = match self.acc {
                Some(a) => a,
                None => match it.next() {
                    Some(x) => *x,
                    None => return,
                },
            };
            for x in it {
                acc = f(acc, *x);
            }
            self.acc = Some(acc);
            return;
        }
        // Whole aligned blocks of 64 leaves: eight level-3 nodes closed in registers, which
        // the counter would have merged into this one level-6 node.
        let mut blocks = xs.chunks_exact(64);
        for b in &mut blocks {
            let f = &self.f;
            let mut s = [N::zero(); 8];
            for (j, c) in b.chunks_exact(8).enumerate() {
                s[j] = f(
                    f(f(c[0], c[1]), f(c[2], c[3])),
                    f(f(c[4], c[5]), f(c[6], c[7])),
                );
            }
            let v = f(
                f(f(s[0], s[1]), f(s[2], s[3])),
                f(f(s[4], s[5]), f(s[6], s[7])),
            );
            self.node(6, v);
        }
        let mut chunks = blocks.remainder().chunks_exact(8);
        for c in &mut chunks {
            let f = &self.f;
            let v = f(
                f(f(c[0], c[1]), f(c[2], c[3])),
                f(f(c[4], c[5]), f(c[6], c[7])),
            );
            self.node(3, v);
        }
        for x in chunks.remainder() {
            self.node(0, *x);
        }
    }

    fn finish(self) -> N {
        if !self.tree {
            return self.acc.unwrap_or_default();
        }
        let mut i = self.len;
        if i == 0 {
            return N::default();
        }
        let mut v = self.stack[i - 1].1;
        while i > 1 {
            i -= 1;
            v = (self.f)(self.stack[i - 1].1, v);
        }
        v
    }
}

/// Index of the max (min) of `v`, first index on ties.
fn arg<N: Num>(v: &[N], max: bool) -> usize {
    let mut best = 0;
    for (i, x) in v.iter().enumerate().skip(1) {
        let better = if max { *x > v[best] } else { *x < v[best] };
        if better {
            best = i;
        }
    }
    best
}

/// [`fold`] over a row's bytes: a borrowed typed slice where the compute type is the storage
/// type, chunks widened on a small stack buffer otherwise.
fn fold_bytes<T: Elem>(red: Red, bytes: &[u8], order: ReductionOrder, p: NanMinMaxPolicy) -> T::C {
    let tree = order == ReductionOrder::Tree && matches!(red, Red::Sum | Red::Prod);
    if let (Red::Sum, ReductionOrder::Interleaved { .. }) = (red, order) {
        let add = |a: T::C, b: T::C| a.add(b);
        if let Some(v) = T::view(bytes) {
            return order.sum(v, T::C::zero(), add);
        }
        let mut v = vec![T::C::default(); bytes.len() / std::mem::size_of::<T>()];
        T::load(bytes, &mut v);
        return order.sum(&v, T::C::zero(), add);
    }
    match red {
        Red::Sum => fold_with::<T, _>(bytes, tree, Some(T::C::zero()), |a, b| a.add(b)),
        Red::Prod => fold_with::<T, _>(bytes, tree, Some(T::C::one()), |a, b| a.mul(b)),
        Red::Max => T::view(bytes)
            .and_then(extreme_lanes::<T::C, true>)
            .unwrap_or_else(|| fold_with::<T, _>(bytes, false, None, |a, b| max_p(a, b, p))),
        Red::Min => T::view(bytes)
            .and_then(extreme_lanes::<T::C, false>)
            .unwrap_or_else(|| fold_with::<T, _>(bytes, false, None, |a, b| min_p(a, b, p))),
    }
}

/// The max (`MAX`) or min of `v`, over 16 lanes in parallel, when the order of the fold
/// cannot show in the result; `None` (the caller folds in order) when it could: an empty
/// row, a NaN among the inputs (which NaN comes out depends on the order and the NaN
/// policy), or a zero result (whose sign the pairwise rule picks). Otherwise the extreme value
/// is unique, and so are its bits: a float other than ±0 and NaN has one encoding per value,
/// and integers have one encoding each. The sequential fold gives that same element.
#[inline]
fn extreme_lanes<N: Num, const MAX: bool>(v: &[N]) -> Option<N> {
    const L: usize = 16;
    let better = |x: N, a: N| if MAX { x > a } else { x < a };
    let &first = v.first()?;
    let mut acc = [first; L];
    let mut nan = false;
    let mut chunks = v.chunks_exact(L);
    for c in &mut chunks {
        for i in 0..L {
            let x = c[i];
            nan |= x.is_nan();
            acc[i] = if better(x, acc[i]) { x } else { acc[i] };
        }
    }
    for &x in chunks.remainder() {
        nan |= x.is_nan();
        acc[0] = if better(x, acc[0]) { x } else { acc[0] };
    }
    if nan {
        return None;
    }
    let m = acc[1..]
        .iter()
        .fold(acc[0], |m, &x| if better(x, m) { x } else { m });
    if N::FLOAT && m.is_zero() {
        return None;
    }
    Some(m)
}

fn fold_with<T: Elem, F: Fn(T::C, T::C) -> T::C>(
    bytes: &[u8],
    tree: bool,
    init: Option<T::C>,
    f: F,
) -> T::C {
    let mut fo = Folder::new(f, tree, if tree { None } else { init });
    if let Some(v) = T::view(bytes) {
        fo.feed(v);
    } else {
        let mut buf = [T::C::default(); 64];
        for chunk in bytes.chunks(64 * std::mem::size_of::<T>()) {
            let m = chunk.len() / std::mem::size_of::<T>();
            T::load(chunk, &mut buf[..m]);
            fo.feed(&buf[..m]);
        }
    }
    fo.finish()
}

/// A "one column" destination: DN with Cols == 1, or ND (optionally with valid cols 1).
fn one_col_dst(
    op: OpCode,
    name: &'static str,
    d: &Tile,
    need_valid_one: bool,
) -> Result<(), PtoError> {
    let dn = d.desc().blayout == BLayout::ColMajor
        && d.desc().slayout == SLayout::NoneBox
        && d.cols() == 1;
    let nd = d.is_row_major_plain() && (!need_valid_one || d.valid_col() == 1);
    if !(dn || nd) {
        return Err(PtoError::Static {
            op: op.name(),
            operand: name,
            rule: "must be DN with one column or ND",
            value: format!(
                "{:?}/{:?} {}x{} valid cols {}",
                d.desc().blayout,
                d.desc().slayout,
                d.rows(),
                d.cols(),
                d.valid_col()
            ),
        });
    }
    Ok(())
}

impl TileCore {
    fn row_src_checks(&self, op: OpCode, src: &Tile, dst_rows: usize) -> Result<(), PtoError> {
        need_loc(op, "src", src, TileLoc::Vec)?;
        need_nd(op, "src", src)?;
        op.check_type(self.arch(), "src", src.dtype())?;
        self.check_addr(src, op.name(), "src")?;
        if src.valid_row() == 0 || src.valid_col() == 0 {
            return Err(vr_err(
                op,
                "src",
                "valid rows and cols must be non-zero",
                format!("{}x{}", src.valid_row(), src.valid_col()),
            ));
        }
        if src.valid_row() != dst_rows {
            return Err(vr_err(
                op,
                "dst",
                "valid rows must equal src's",
                format!("{} vs {}", dst_rows, src.valid_row()),
            ));
        }
        Ok(())
    }

    fn read_row<T: Elem>(
        &self,
        n: &'static str,
        t: &Tile,
        r: usize,
        cols: usize,
    ) -> Result<Vec<T::C>, PtoError> {
        (0..cols)
            .map(|c| self.getc::<T>(n, "src", t, r, c))
            .collect()
    }
    fn read_col<T: Elem>(
        &self,
        n: &'static str,
        t: &Tile,
        c: usize,
        rows: usize,
    ) -> Result<Vec<T::C>, PtoError> {
        (0..rows)
            .map(|r| self.getc::<T>(n, "src", t, r, c))
            .collect()
    }

    /// TROWSUM / TROWPROD / TROWMAX / TROWMIN: `dst(i, 0) = reduce_j src(i, j)`.
    pub fn row_reduce(&mut self, op: OpCode, dst: &Tile, src: &Tile) -> Result<(), PtoError> {
        let red = red_of(op).ok_or(PtoError::Operands {
            op: op.name(),
            expected: "a row reduction",
        })?;
        need_loc(op, "dst", dst, TileLoc::Vec)?;
        one_col_dst(op, "dst", dst, false)?;
        same_type(op, "dst", dst, "src", src)?;
        self.row_src_checks(op, src, dst.valid_row())?;
        covers(op, "src", src, src.valid_row(), src.valid_col())?;
        let (order, p, n) = (
            self.policy().reduction_order,
            self.policy().nan_min_max,
            op.name(),
        );
        self.check_addr(dst, n, "dst")?;
        let t = src.dtype();
        let fast = !self.reference();
        dispatch!(all t, T => {
            for r in 0..src.valid_row() {
                let out = if fast {
                    // The row borrowed from the memory (the footprint was checked above).
                    let size = std::mem::size_of::<T>();
                    let a = src.byte_addr(r, 0) as usize;
                    let bytes = &self.mem(src.loc()).as_slice()[a..a + src.valid_col() * size];
                    fold_bytes::<T>(red, bytes, order, p)
                } else {
                    let v = self.read_row::<T>(n, src, r, src.valid_col())?;
                    fold(red, &v, order, p)
                };
                self.setc::<T>(n, "dst", dst, r, 0, out)?;
            }
            Ok(())
        }, else Err(PtoError::Operands { op: n, expected: "a numeric tile" }))
    }

    /// TCOLSUM / TCOLPROD / TCOLMAX / TCOLMIN: `dst(0, j) = reduce_i src(i, j)`, sequential.
    pub fn col_reduce(&mut self, op: OpCode, dst: &Tile, src: &Tile) -> Result<(), PtoError> {
        let red = red_of(op).ok_or(PtoError::Operands {
            op: op.name(),
            expected: "a column reduction",
        })?;
        for (name, t) in [("dst", dst), ("src", src)] {
            need_loc(op, name, t, TileLoc::Vec)?;
            need_nd(op, name, t)?;
            op.check_type(self.arch(), name, t.dtype())?;
        }
        same_type(op, "dst", dst, "src", src)?;
        if src.valid_col() != dst.valid_col() {
            return Err(vr_err(
                op,
                "dst",
                "valid cols must equal src's",
                format!("{} vs {}", dst.valid_col(), src.valid_col()),
            ));
        }
        if src.valid_row() == 0 || src.valid_col() == 0 {
            return Ok(());
        }
        let (p, n) = (self.policy().nan_min_max, op.name());
        let t = src.dtype();
        dispatch!(all t, T => {
            for c in 0..src.valid_col() {
                let v = self.read_col::<T>(n, src, c, src.valid_row())?;
                let out = fold(red, &v, ReductionOrder::Sequential, p);
                self.setc::<T>(n, "dst", dst, 0, c, out)?;
            }
            Ok(())
        }, else Err(PtoError::Operands { op: n, expected: "a numeric tile" }))
    }

    /// TROWARGMAX / TROWARGMIN: `dst_idx(i, 0)` = index of the row's max (min), and optionally
    /// `dst_val(i, 0)` = the value.
    pub fn row_arg_reduce(
        &mut self,
        op: OpCode,
        dst_idx: &Tile,
        src: &Tile,
        dst_val: Option<&Tile>,
    ) -> Result<(), PtoError> {
        let max = match op {
            OpCode::Trowargmax => true,
            OpCode::Trowargmin => false,
            _ => {
                return Err(PtoError::Operands {
                    op: op.name(),
                    expected: "TROWARGMAX or TROWARGMIN",
                });
            }
        };
        need_loc(op, "dst", dst_idx, TileLoc::Vec)?;
        one_col_dst(op, "dst", dst_idx, true)?;
        idx_type(
            op,
            "dst",
            dst_idx,
            &[ElemType::U32, ElemType::I32],
            self.arch(),
        )?;
        self.row_src_checks(op, src, dst_idx.valid_row())?;
        if let Some(v) = dst_val {
            need_loc(op, "dst_val", v, TileLoc::Vec)?;
            one_col_dst(op, "dst_val", v, true)?;
            same_type(op, "dst_val", v, "src", src)?;
            if v.valid_row() != src.valid_row() {
                return Err(vr_err(
                    op,
                    "dst_val",
                    "valid rows must equal src's",
                    format!("{} vs {}", v.valid_row(), src.valid_row()),
                ));
            }
        }
        let n = op.name();
        let (t, it) = (src.dtype(), dst_idx.dtype());
        dispatch!(all t, T => dispatch!(int it, I => {
            for r in 0..src.valid_row() {
                let v = self.read_row::<T>(n, src, r, src.valid_col())?;
                let i = arg(&v, max);
                self.set::<I>(dst_idx, r, 0, <I as npusim_core::Element>::from_bits_u64(i as u64)).map_err(crate::engine::memory(n, "dst"))?;
                if let Some(dv) = dst_val {
                    self.setc::<T>(n, "dst_val", dv, r, 0, v[i])?;
                }
            }
            Ok(())
        }, else Err(PtoError::Operands { op: n, expected: "an index tile" })), else Err(PtoError::Operands { op: n, expected: "a numeric tile" }))
    }

    /// TCOLARGMAX / TCOLARGMIN: `dst_idx(0, j)` = index of the column's max (min), and
    /// optionally `dst_val(0, j)`.
    pub fn col_arg_reduce(
        &mut self,
        op: OpCode,
        dst_idx: &Tile,
        src: &Tile,
        dst_val: Option<&Tile>,
    ) -> Result<(), PtoError> {
        let max = match op {
            OpCode::Tcolargmax => true,
            OpCode::Tcolargmin => false,
            _ => {
                return Err(PtoError::Operands {
                    op: op.name(),
                    expected: "TCOLARGMAX or TCOLARGMIN",
                });
            }
        };
        need_loc(op, "src", src, TileLoc::Vec)?;
        need_loc(op, "dst", dst_idx, TileLoc::Vec)?;
        need_nd(op, "dst", dst_idx)?;
        op.check_type(self.arch(), "src", src.dtype())?;
        let idx_legal: &[ElemType] = if dst_val.is_some() && src.dtype().size() == 2 {
            &[ElemType::U16, ElemType::I16]
        } else {
            &[ElemType::U32, ElemType::I32]
        };
        idx_type(op, "dst", dst_idx, idx_legal, self.arch())?;
        if src.valid_row() == 0 || src.valid_col() == 0 {
            return Err(vr_err(
                op,
                "src",
                "valid rows and cols must be non-zero",
                format!("{}x{}", src.valid_row(), src.valid_col()),
            ));
        }
        if dst_idx.valid_row() != 1 || dst_idx.valid_col() != src.valid_col() {
            return Err(vr_err(
                op,
                "dst",
                "must be 1 row with src's valid cols",
                format!(
                    "{}x{} for src cols {}",
                    dst_idx.valid_row(),
                    dst_idx.valid_col(),
                    src.valid_col()
                ),
            ));
        }
        if let Some(v) = dst_val {
            need_nd(op, "dst_val", v)?;
            same_type(op, "dst_val", v, "src", src)?;
            if src.dtype().size() == 1 {
                return Err(PtoError::IllegalType {
                    op: op.name(),
                    operand: "src",
                    dtype: src.dtype(),
                    arch: "any",
                    legal: "2- or 4-byte types with dst_val".into(),
                });
            }
            if v.valid_row() != 1 || v.valid_col() != src.valid_col() {
                return Err(vr_err(
                    op,
                    "dst_val",
                    "must be 1 row with src's valid cols",
                    format!("{}x{}", v.valid_row(), v.valid_col()),
                ));
            }
        }
        covers(op, "src", src, src.valid_row(), src.valid_col())?;
        let n = op.name();
        let (t, it) = (src.dtype(), dst_idx.dtype());
        dispatch!(all t, T => dispatch!(int it, I => {
            for c in 0..src.valid_col() {
                let v = self.read_col::<T>(n, src, c, src.valid_row())?;
                let i = arg(&v, max);
                self.set::<I>(dst_idx, 0, c, <I as npusim_core::Element>::from_bits_u64(i as u64)).map_err(crate::engine::memory(n, "dst"))?;
                if let Some(dv) = dst_val {
                    self.setc::<T>(n, "dst_val", dv, 0, c, v[i])?;
                }
            }
            Ok(())
        }, else Err(PtoError::Operands { op: n, expected: "an index tile" })), else Err(PtoError::Operands { op: n, expected: "a numeric tile" }))
    }

    /// TROWEXPAND (`dst(i, j) = src(i, 0)`) and TCOLEXPAND (`dst(i, j) = src(0, j)`).
    pub fn expand(&mut self, op: OpCode, dst: &Tile, src: &Tile) -> Result<(), PtoError> {
        let row = match op {
            OpCode::Trowexpand => true,
            OpCode::Tcolexpand => false,
            _ => {
                return Err(PtoError::Operands {
                    op: op.name(),
                    expected: "TROWEXPAND or TCOLEXPAND",
                });
            }
        };
        for (name, t) in [("dst", dst), ("src", src)] {
            need_loc(op, name, t, TileLoc::Vec)?;
            need_nd(op, name, t)?;
            op.check_type(self.arch(), name, t.dtype())?;
        }
        same_type(op, "src", src, "dst", dst)?;
        let (vr, vc) = (dst.valid_row(), dst.valid_col());
        if row {
            match self.arch() {
                TileArch::A2A3 => {
                    if vr == 0 || vc == 0 || src.valid_row() == 0 || src.valid_col() == 0 {
                        return Ok(());
                    }
                }
                TileArch::A5 => {
                    if src.valid_row() != vr || src.valid_row() == 0 || src.valid_col() == 0 {
                        return Err(vr_err(
                            op,
                            "src",
                            "valid rows must equal dst's and be non-zero, valid cols non-zero",
                            format!(
                                "src {}x{}, dst {}x{}",
                                src.valid_row(),
                                src.valid_col(),
                                vr,
                                vc
                            ),
                        ));
                    }
                }
            }
            covers(op, "src", src, vr, 1)?;
        } else {
            covers(op, "src", src, 1, vc)?;
        }
        let n = op.name();
        let t = dst.dtype();
        dispatch!(all t, T => {
            for r in 0..vr {
                for c in 0..vc {
                    let v = if row { self.get::<T>(src, r, 0) } else { self.get::<T>(src, 0, c) }.map_err(crate::engine::memory(n, "src"))?;
                    self.set::<T>(dst, r, c, v).map_err(crate::engine::memory(n, "dst"))?;
                }
            }
            Ok(())
        }, else Err(PtoError::Operands { op: n, expected: "a tile" }))
    }

    /// TROWEXPAND{ADD,SUB,MUL,DIV,MAX,MIN,EXPDIF} and TCOLEXPAND{...}: `dst = src0 op s`, where
    /// `s` is one value per row (`x(i, 0)` of the expanded operand: col-major with one valid
    /// column, or row-major with one 32-byte block per row) or per column (`src1(0, j)`).
    /// For the row forms either operand may be the expanded one (operand order is kept:
    /// `dst = s_i - src1` when src0 is expanded); EXPDIF is `exp(round(src0 - s))`.
    pub fn expand_binary(
        &mut self,
        op: OpCode,
        dst: &Tile,
        src0: &Tile,
        src1: &Tile,
    ) -> Result<(), PtoError> {
        use OpCode::*;
        let row = matches!(
            op,
            Trowexpandadd
                | Trowexpandsub
                | Trowexpandmul
                | Trowexpanddiv
                | Trowexpandmax
                | Trowexpandmin
                | Trowexpandexpdif
        );
        for (name, t) in [("dst", dst), ("src0", src0), ("src1", src1)] {
            need_loc(op, name, t, TileLoc::Vec)?;
            op.check_type(self.arch(), name, t.dtype())?;
            same_type(op, name, t, "dst", dst)?;
        }
        super::need_row_major(op, "dst", dst)?;
        let (vr, vc) = (dst.valid_row(), dst.valid_col());
        let same = |t: &Tile| t.valid_row() == vr && t.valid_col() == vc;
        // (full operand, expanded operand, expanded is src0)
        let (full, ex, ex_first) = if !row
            || op == Trowexpandexpdif
            || (same(src0) && !same(src1))
            || (same(src0) && same(src1))
        {
            (src0, src1, false)
        } else if same(src1) {
            (src1, src0, true)
        } else {
            return Err(vr_err(
                op,
                "src0/src1",
                "one source's valid region must equal dst's",
                format!(
                    "src0 {}x{}, src1 {}x{}, dst {}x{}",
                    src0.valid_row(),
                    src0.valid_col(),
                    src1.valid_row(),
                    src1.valid_col(),
                    vr,
                    vc
                ),
            ));
        };
        let (fname, ename) = if ex_first {
            ("src1", "src0")
        } else {
            ("src0", "src1")
        };
        if !same(full) {
            return Err(vr_err(
                op,
                fname,
                "must equal dst's valid region",
                format!("{}x{} vs {}x{}", full.valid_row(), full.valid_col(), vr, vc),
            ));
        }
        super::need_row_major(op, fname, full)?;
        if row {
            let block = 32 / dst.dtype().size();
            let want_cols = if ex.is_row_major() { block } else { 1 };
            if ex.valid_col() != want_cols || ex.valid_row() != vr {
                return Err(vr_err(
                    op,
                    ename,
                    "per-row operand must have dst's valid rows and 1 (col-major) or 32/sizeof(T) (row-major) valid cols",
                    format!("{}x{}", ex.valid_row(), ex.valid_col()),
                ));
            }
            covers(op, ename, ex, vr, 1)?;
        } else {
            if ex.valid_col() < vc {
                return Err(vr_err(
                    op,
                    ename,
                    "per-column operand must cover dst's valid cols",
                    format!("{} < {}", ex.valid_col(), vc),
                ));
            }
            covers(op, ename, ex, 1, vc)?;
        }
        covers(op, fname, full, vr, vc)?;
        let (p, n, t) = (self.policy().nan_min_max, op.name(), dst.dtype());
        let is_div = matches!(op, Trowexpanddiv | Tcolexpanddiv);
        dispatch!(all t, T => {
            // Gather the broadcast values first (dst may alias the expanded operand).
            let svals: Vec<<T as Elem>::C> = if row {
                (0..vr).map(|r| self.getc::<T>(n, ename, ex, r, 0)).collect::<Result<_, _>>()?
            } else {
                (0..vc).map(|c| self.getc::<T>(n, ename, ex, 0, c)).collect::<Result<_, _>>()?
            };
            // (an empty domain divides nothing)
            if is_div && !<<T as Elem>::C as Num>::FLOAT && vr * vc > 0 {
                if ex_first {
                    self.find_zero::<T>(n, fname, full, vr, vc)?;
                } else if let Some(i) = svals.iter().position(|v| v.is_zero()) {
                    return Err(PtoError::DivByZero { op: n, operand: ename, row: if row { i } else { 0 }, col: if row { 0 } else { i } });
                }
            }
            if row && !self.reference() && vr > 0 && dst.is_row_major_plain() && full.is_row_major_plain() {
                // Each row is a tile-scalar operation on the row engine.
                let args = RowExpand { n, dst, full, svals: &svals, ex_first };
                return match op {
                    Trowexpandadd => self.row_expand::<T>(args, |a, b| a.add(b)),
                    Trowexpandsub => self.row_expand::<T>(args, |a, b| a.sub(b)),
                    Trowexpandmul => self.row_expand::<T>(args, |a, b| a.mul(b)),
                    Trowexpanddiv => self.row_expand::<T>(args, |a, b| a.div(b)),
                    Trowexpandmax => self.row_expand::<T>(args, move |a, b| max_p(a, b, p)),
                    Trowexpandmin => self.row_expand::<T>(args, move |a, b| min_p(a, b, p)),
                    _ => self.row_expand::<T>(args, |a, b| {
                        let d = T::narrow(a.sub(b)).widen();
                        <<T as Elem>::C as Num>::from_f64(exp_f(d.to_f64() as f32) as f64)
                    }),
                };
            }
            for r in 0..vr {
                for c in 0..vc {
                    let x = self.getc::<T>(n, fname, full, r, c)?;
                    let s = if row { svals[r] } else { svals[c] };
                    let (a, b) = if ex_first { (s, x) } else { (x, s) };
                    let v = match op {
                        Trowexpandadd | Tcolexpandadd => a.add(b),
                        Trowexpandsub | Tcolexpandsub => a.sub(b),
                        Trowexpandmul | Tcolexpandmul => a.mul(b),
                        Trowexpanddiv | Tcolexpanddiv => a.div(b),
                        Trowexpandmax | Tcolexpandmax => max_p(a, b, p),
                        Trowexpandmin | Tcolexpandmin => min_p(a, b, p),
                        _ => {
                            // EXPDIF = SUB then EXP, each rounded to the element type.
                            let d = T::narrow(a.sub(b)).widen();
                            <<T as Elem>::C as Num>::from_f64(exp_f(d.to_f64() as f32) as f64)
                        }
                    };
                    self.setc::<T>(n, "dst", dst, r, c, v)?;
                }
            }
            Ok(())
        }, else Err(PtoError::Operands { op: n, expected: "a numeric tile" }))
    }
}

/// The operands of a row-expand instruction on the row engine.
struct RowExpand<'a, C> {
    n: &'static str,
    dst: &'a Tile,
    full: &'a Tile,
    /// The broadcast value of each row.
    svals: &'a [C],
    /// The broadcast operand is the first of the element function's two.
    ex_first: bool,
}

impl TileCore {
    /// `dst(r, c) = g(full(r, c), s[r])` (or `g(s[r], full(r, c))`), one row at a time through
    /// the row engine: the element path's result, row for row (the broadcast values were read
    /// before any row is written).
    fn row_expand<T: Elem>(
        &mut self,
        a: RowExpand<'_, T::C>,
        g: impl Fn(T::C, T::C) -> T::C + Copy,
    ) -> Result<(), PtoError> {
        for (r, &s) in a.svals.iter().enumerate() {
            let (Some(d), Some(f)) = (a.dst.row_view(r), a.full.row_view(r)) else {
                return Err(PtoError::Operands {
                    op: a.n,
                    expected: "rows inside the tiles",
                });
            };
            if a.ex_first {
                self.apply::<T, 1>(a.n, &d, [&f], move |[x]| g(s, x))?;
            } else {
                self.apply::<T, 1>(a.n, &d, [&f], move |[x]| g(x, s))?;
            }
        }
        Ok(())
    }
}

fn idx_type(
    op: OpCode,
    name: &'static str,
    t: &Tile,
    legal: &[ElemType],
    arch: TileArch,
) -> Result<(), PtoError> {
    if !legal.contains(&t.dtype()) {
        return Err(PtoError::IllegalType {
            op: op.name(),
            operand: name,
            dtype: t.dtype(),
            arch: crate::table::arch_name(arch),
            legal: crate::error::type_list(legal),
        });
    }
    Ok(())
}

macro_rules! entries {
    ($kind:ident: $($f:ident $v:ident),*) => {
        impl TileCore { $(
            #[doc = concat!("`", stringify!($v), "`: see [`TileCore::", stringify!($kind), "`].")]
            pub fn $f(&mut self, dst: &Tile, src: &Tile) -> Result<(), PtoError> { self.$kind(OpCode::$v, dst, src) }
        )* }
    };
}
entries!(row_reduce: trowsum Trowsum, trowprod Trowprod, trowmax Trowmax, trowmin Trowmin);
entries!(col_reduce: tcolsum Tcolsum, tcolprod Tcolprod, tcolmax Tcolmax, tcolmin Tcolmin);
entries!(expand: trowexpand Trowexpand, tcolexpand Tcolexpand);

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// f32 bits drawn to hit the cases where a fold's order can show: NaNs with different
    /// payloads, both zeros, infinities, denormals, repeated extremes, and plain values.
    fn special_f32() -> impl Strategy<Value = f32> {
        prop_oneof![
            3 => -1.0e3f32..1.0e3,
            1 => prop::sample::select(vec![
                0.0f32,
                -0.0,
                f32::INFINITY,
                f32::NEG_INFINITY,
                f32::from_bits(0x7fc0_0001),
                f32::from_bits(0xffc0_0002),
                f32::from_bits(1),
                f32::from_bits(0x8000_0001),
                f32::MAX,
                f32::MIN,
                7.5,
            ]),
        ]
    }

    fn policies() -> [NanMinMaxPolicy; 3] {
        [
            NanMinMaxPolicy::Propagate,
            NanMinMaxPolicy::ReturnOther,
            NanMinMaxPolicy::CppStd,
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// The fast row fold (`fold_bytes`: lanes for max/min, 64-leaf blocks for the tree)
        /// gives the plain element-by-element fold's bits, for every NaN policy and order.
        #[test]
        fn fast_row_fold_equals_the_plain_fold(
            v in prop::collection::vec(special_f32(), 1..300),
            zeros_only in any::<bool>(),
        ) {
            // Rows of only zeros and only non-NaN values are where the lanes path answers.
            let v: Vec<f32> = if zeros_only {
                v.iter().map(|x| if x.is_sign_negative() { -0.0 } else { 0.0 }).collect()
            } else {
                v
            };
            let bytes: &[u8] = bytemuck::cast_slice(&v);
            for p in policies() {
                for order in [ReductionOrder::Tree, ReductionOrder::Sequential] {
                    for red in [Red::Sum, Red::Prod, Red::Max, Red::Min] {
                        let fast = fold_bytes::<f32>(red, bytes, order, p);
                        let plain = fold(red, &v, order, p);
                        // A sum or product that meets two NaNs returns one of them; Rust (like
                        // LLVM, which may swap the operands of a commutative add or multiply)
                        // leaves which one unspecified, so there only NaN-ness is compared.
                        // Max and min select an input: their bits are compared always.
                        let arith = matches!(red, Red::Sum | Red::Prod);
                        if !(arith && fast.is_nan() && plain.is_nan()) {
                            prop_assert_eq!(fast.to_bits(), plain.to_bits(), "{:?} {:?} {:?}", red, order, p);
                        }
                    }
                }
            }
            let no_nan: Vec<f32> = v.iter().map(|x| if x.is_nan() { 1.5 } else { *x }).collect();
            let bytes: &[u8] = bytemuck::cast_slice(&no_nan);
            for p in policies() {
                for red in [Red::Max, Red::Min] {
                    let fast = fold_bytes::<f32>(red, bytes, ReductionOrder::Tree, p);
                    let plain = fold(red, &no_nan, ReductionOrder::Tree, p);
                    prop_assert_eq!(fast.to_bits(), plain.to_bits());
                }
            }
        }

        /// Integer rows take the lanes path whatever their values.
        #[test]
        fn fast_integer_max_min_equal_the_plain_fold(v in prop::collection::vec(any::<i16>(), 1..200)) {
            let bytes: &[u8] = bytemuck::cast_slice(&v);
            let p = NanMinMaxPolicy::Propagate;
            for red in [Red::Max, Red::Min] {
                let fast = fold_bytes::<i16>(red, bytes, ReductionOrder::Tree, p);
                prop_assert_eq!(fast, fold(red, &v, ReductionOrder::Tree, p));
            }
        }
    }
}
