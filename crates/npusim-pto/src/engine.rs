//! The shared engine: applies an element function over a destination's valid region.
//!
//! One mechanism serves every elementwise-shaped instruction. The fast path (row-major tiles)
//! first checks the whole footprint once (every row in bounds; each source row either disjoint
//! from its destination row or exactly in place; a partial overlap goes to the plain path),
//! merges rows that follow each other without a gap into one, and then borrows each row
//! straight from the memory: `split_at_mut` around the destination row gives `&mut` to it and
//! `&` to the sources, which `bytemuck` views as typed slices (the memories are 64-byte
//! aligned). Integer and f32 rows are computed in place in one zip loop per arity (an operand
//! that is the destination itself is read from it, element by element before each write); f16
//! rows go eight lanes at a time through F16C in registers; bf16 goes through small
//! compute-type chunk buffers. The row loop is compiled a second time with
//! AVX2 and F16C enabled and chosen at run time. The element function is monomorphised per
//! element type and instruction; nothing allocates. The plain path does the same element by
//! element through the layout offset function ([`crate::Tile::elem_offset`]); it serves
//! non-row-major tiles and is the fast path's twin in the property tests
//! ([`crate::TileCore::set_reference`]).

use crate::core::TileCore;
use crate::error::PtoError;
use crate::num::{Elem, Num};
use crate::tile::{Tile, TileLoc};
use npusim_core::memory::MemoryError;
use std::sync::Arc;

/// Elements per chunk of the fast path's converting loop (f16/bf16, in-place operands).
pub const CHUNK: usize = 64;

/// Elements per scratch copy of an in-place destination (one CHUNK).
const INPLACE_CHUNK: usize = 64;

/// Dispatches on an element type: binds a type alias to the storage type and evaluates the body.
/// `all` covers every type, `float` f16/bf16/f32, `int` the eight integer types; a type outside
/// the class evaluates `$else`.
#[macro_export]
#[doc(hidden)]
macro_rules! dispatch {
    (all $t:expr, $T:ident => $body:expr, else $e:expr) => {
        $crate::dispatch!(@arms $t, $T, $body, $e, [U8 u8, I8 i8, U16 u16, I16 i16, U32 u32, I32 i32, U64 u64, I64 i64, F16 half::f16, Bf16 half::bf16, F32 f32])
    };
    (float $t:expr, $T:ident => $body:expr, else $e:expr) => {
        $crate::dispatch!(@arms $t, $T, $body, $e, [F16 half::f16, Bf16 half::bf16, F32 f32])
    };
    (int $t:expr, $T:ident => $body:expr, else $e:expr) => {
        $crate::dispatch!(@arms $t, $T, $body, $e, [U8 u8, I8 i8, U16 u16, I16 i16, U32 u32, I32 i32, U64 u64, I64 i64])
    };
    (@arms $t:expr, $T:ident, $body:expr, $e:expr, [$($v:ident $ty:ty),*]) => {
        match $t {
            $(npusim_core::ElemType::$v => { type $T = $ty; $body })*
            #[allow(unreachable_patterns)]
            _ => $e,
        }
    };
}

fn mem_err(op: &'static str, operand: &'static str) -> impl Fn(MemoryError) -> PtoError {
    move |source| PtoError::Memory {
        op,
        operand,
        source,
    }
}

impl TileCore {
    /// Applies `f` to every element of `dst`'s valid region: `dst(r, c) = f([src_k(r, c)])`.
    /// Sources are read before the row's results are written, so `dst` may be one of them.
    pub(crate) fn apply<T: Elem, const K: usize>(
        &mut self,
        op: &'static str,
        dst: &Tile,
        srcs: [&Tile; K],
        f: impl Fn([T::C; K]) -> T::C,
    ) -> Result<(), PtoError> {
        self.apply_rows::<T, K>(op, dst, srcs, f)
    }

    /// [`TileCore::apply`] for any element function, including one with its own row form.
    pub(crate) fn apply_rows<T: Elem, const K: usize>(
        &mut self,
        op: &'static str,
        dst: &Tile,
        srcs: [&Tile; K],
        f: impl ElemFn<T::C, K>,
    ) -> Result<(), PtoError> {
        if !self.reference()
            && let Some(plan) = self.row_plan::<T, K>(dst, srcs)
        {
            let mem = self.mem_mut(dst.loc());
            run_rows::<T, K>(mem, &plan, &f);
            return Ok(());
        }
        self.apply_plain::<T, K>(op, dst, srcs, f)
    }

    /// The fast path's plan, when every operand is a plain row-major tile of one memory, inside
    /// it, and each source row is disjoint from or identical to its destination row.
    fn row_plan<T: Elem, const K: usize>(
        &self,
        dst: &Tile,
        srcs: [&Tile; K],
    ) -> Option<RowPlan<K>> {
        let eligible = dst.is_row_major_plain()
            && srcs
                .iter()
                .all(|s| s.is_row_major_plain() && s.loc() == dst.loc());
        if !eligible {
            return None;
        }
        RowPlan::<K>::new::<T>(self.mem(dst.loc()).capacity(), dst, srcs)
    }

    /// Binds `f` to its operands' planned footprint once, for [`crate::PreparedOp`]: the result
    /// runs the same rows as [`TileCore::apply`] would, with no checks left to do. `None` when
    /// the operands need the plain path.
    pub(crate) fn compile_rows<T: Elem, const K: usize>(
        &self,
        dst: &Tile,
        srcs: [&Tile; K],
        f: impl ElemFn<T::C, K> + Send + Sync + 'static,
    ) -> Option<CompiledRows> {
        let plan = self.row_plan::<T, K>(dst, srcs)?;
        Some(CompiledRows {
            loc: dst.loc(),
            run: Arc::new(move |mem: &mut [u8]| run_rows::<T, K>(mem, &plan, &f)),
        })
    }

    /// Runs compiled rows on this core's memory.
    pub(crate) fn run_compiled(&mut self, c: &CompiledRows) {
        (c.run)(self.mem_mut(c.loc));
    }

    /// The plain path: element by element through the layout offset function.
    fn apply_plain<T: Elem, const K: usize>(
        &mut self,
        op: &'static str,
        dst: &Tile,
        srcs: [&Tile; K],
        f: impl ElemFn<T::C, K>,
    ) -> Result<(), PtoError> {
        for r in 0..dst.valid_row() {
            for c in 0..dst.valid_col() {
                let mut ins = [T::C::default(); K];
                for k in 0..K {
                    ins[k] = self
                        .get::<T>(srcs[k], r, c)
                        .map_err(mem_err(op, "src"))?
                        .widen();
                }
                let v = T::narrow(f.elem(ins));
                self.set::<T>(dst, r, c, v).map_err(mem_err(op, "dst"))?;
            }
        }
        Ok(())
    }

    /// Reads element `(r, c)` widened to the compute type.
    pub(crate) fn getc<T: Elem>(
        &self,
        op: &'static str,
        operand: &'static str,
        t: &Tile,
        r: usize,
        c: usize,
    ) -> Result<T::C, PtoError> {
        Ok(self
            .get::<T>(t, r, c)
            .map_err(mem_err(op, operand))?
            .widen())
    }

    /// Writes a compute value to `(r, c)`, rounding once.
    pub(crate) fn setc<T: Elem>(
        &mut self,
        op: &'static str,
        operand: &'static str,
        t: &Tile,
        r: usize,
        c: usize,
        v: T::C,
    ) -> Result<(), PtoError> {
        self.set::<T>(t, r, c, T::narrow(v))
            .map_err(mem_err(op, operand))
    }

    /// Finds the first zero in `t`'s region `rows x cols` (integer division checks); `operand`
    /// names the divisor in the error.
    pub(crate) fn find_zero<T: Elem>(
        &self,
        op: &'static str,
        operand: &'static str,
        t: &Tile,
        rows: usize,
        cols: usize,
    ) -> Result<(), PtoError> {
        for r in 0..rows {
            for c in 0..cols {
                if self.getc::<T>(op, operand, t, r, c)?.is_zero() {
                    return Err(PtoError::DivByZero {
                        op,
                        operand,
                        row: r,
                        col: c,
                    });
                }
            }
        }
        Ok(())
    }
}

/// Runs bound rows over the bytes of one memory.
type RowsFn = dyn Fn(&mut [u8]) + Send + Sync;

/// An element function bound to a planned footprint in one memory ([`TileCore::compile_rows`]).
#[derive(Clone)]
pub(crate) struct CompiledRows {
    loc: TileLoc,
    run: Arc<RowsFn>,
}

impl std::fmt::Debug for CompiledRows {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CompiledRows({:?})", self.loc)
    }
}

/// A memory fault as a [`PtoError`].
pub(crate) fn memory(op: &'static str, operand: &'static str) -> impl Fn(MemoryError) -> PtoError {
    mem_err(op, operand)
}

/// Where one source row comes from, relative to the destination row.
#[derive(Clone, Copy)]
enum RowSrc {
    /// The destination row itself (exact in-place operand).
    Dst,
    /// Byte offset of a row disjoint from the destination row.
    At(usize),
}

/// The validated footprint of a row-major instruction: every row in bounds, every source row
/// either disjoint from or identical to its destination row.
struct RowPlan<const K: usize> {
    rows: usize,
    /// Bytes per row of the domain.
    nb: usize,
    /// First byte and row pitch of dst and of each source.
    dst: (usize, usize),
    srcs: [(usize, usize); K],
    in_place: bool,
}

impl<const K: usize> RowPlan<K> {
    /// `None` when the plain path must run: an operand out of bounds (the plain path reports
    /// it), or a source row partially overlapping its destination row.
    fn new<T: Elem>(cap: usize, dst: &Tile, srcs: [&Tile; K]) -> Option<RowPlan<K>> {
        let size = std::mem::size_of::<T>();
        let (rows, vc) = (dst.valid_row(), dst.valid_col());
        let nb = vc * size;
        let geo = |t: &Tile| (t.addr() as usize, t.pitch() * size);
        let plan = RowPlan {
            rows,
            nb,
            dst: geo(dst),
            srcs: srcs.map(geo),
            in_place: false,
        };
        if rows == 0 || nb == 0 {
            return Some(plan);
        }
        // Rows that follow each other without a gap in every operand form one long row.
        let (rows, nb, plan) = if plan.dst.1 == nb && plan.srcs.iter().all(|g| g.1 == nb) {
            let nb = rows * nb;
            (
                1,
                nb,
                RowPlan {
                    rows: 1,
                    nb,
                    ..plan
                },
            )
        } else {
            (rows, nb, plan)
        };
        let end =
            |(a, p): (usize, usize)| a.checked_add((rows - 1).checked_mul(p)?)?.checked_add(nb);
        if std::iter::once(plan.dst)
            .chain(plan.srcs)
            .any(|g| end(g).is_none_or(|e| e > cap))
        {
            return None;
        }
        let mut in_place = false;
        for (sa, sp) in plan.srcs {
            // Equal pitches keep the source-to-destination distance of row 0 on every row.
            let rows_to_check = if sp == plan.dst.1 { 1 } else { rows };
            for r in 0..rows_to_check {
                let (d0, s0) = (plan.dst.0 + r * plan.dst.1, sa + r * sp);
                if s0 == d0 {
                    in_place = true;
                } else if s0 < d0 + nb && d0 < s0 + nb {
                    return None;
                }
            }
        }
        Some(RowPlan { in_place, ..plan })
    }

    /// Every first byte and pitch is a multiple of `align`.
    fn all_multiples_of(&self, align: usize) -> bool {
        std::iter::once(self.dst)
            .chain(self.srcs)
            .all(|(a, p)| a % align == 0 && p % align == 0)
    }

    #[inline(always)]
    fn row(&self, r: usize) -> (usize, [RowSrc; K]) {
        let d0 = self.dst.0 + r * self.dst.1;
        let mut srcs = [RowSrc::Dst; K];
        for (o, (a, p)) in srcs.iter_mut().zip(self.srcs) {
            let s0 = a + r * p;
            if s0 != d0 {
                *o = RowSrc::At(s0);
            }
        }
        (d0, srcs)
    }
}

/// Runs the planned rows, with AVX2 code generation where the CPU has it.
fn run_rows<T: Elem, const K: usize>(mem: &mut [u8], plan: &RowPlan<K>, f: &impl ElemFn<T::C, K>) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("f16c")
        {
            // SAFETY: AVX2 and F16C were detected at run time just above.
            unsafe { run_rows_avx2::<T, K>(mem, plan, f) };
            return;
        }
    }
    run_rows_body::<T, K, false>(mem, plan, f)
}

/// [`run_rows_body`] compiled for AVX2 (8-lane f32 vectors) with inline F16C conversions.
///
/// # Safety
/// The CPU must support AVX2 and F16C.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,f16c")]
unsafe fn run_rows_avx2<T: Elem, const K: usize>(
    mem: &mut [u8],
    plan: &RowPlan<K>,
    f: &impl ElemFn<T::C, K>,
) {
    run_rows_body::<T, K, true>(mem, plan, f)
}

/// The row loop. `HW` is true only inside [`run_rows_avx2`], where AVX2 and F16C are present.
#[inline(always)]
fn run_rows_body<T: Elem, const K: usize, const HW: bool>(
    mem: &mut [u8],
    plan: &RowPlan<K>,
    f: &impl ElemFn<T::C, K>,
) {
    let nb = plan.nb;
    if plan.rows == 0 || nb == 0 {
        return;
    }
    let align = std::mem::align_of::<T::C>();
    let aligned = T::STORED_AS_COMPUTE
        && mem.as_ptr().align_offset(align) == 0
        && plan.all_multiples_of(align);
    if aligned && plan.in_place {
        // In place (`c = a + c`): the element function reads the destination row itself where
        // a source is the destination ([`ElemFn::row_in_place`]); other sources are used where
        // they lie.
        let size = std::mem::size_of::<T::C>();
        let n = nb / size;
        let base = mem.as_mut_ptr();
        for r in 0..plan.rows {
            let (d0, srcs) = plan.row(r);
            // SAFETY: as in the direct path below: every row lies inside `mem` and is aligned
            // for the compute type, whose bit patterns are all values. A source `At` row is
            // disjoint from the destination row (`RowPlan::new`), so the `&mut` destination
            // row overlaps none of the shared slices; in-place sources are `None` and read
            // through the destination slice itself.
            unsafe {
                let d = std::slice::from_raw_parts_mut(base.add(d0).cast::<T::C>(), n);
                let s: [Option<&[T::C]>; K] = std::array::from_fn(|k| match srcs[k] {
                    RowSrc::Dst => None,
                    RowSrc::At(a) => Some(std::slice::from_raw_parts(
                        base.add(a).cast::<T::C>().cast_const(),
                        n,
                    )),
                });
                f.row_in_place(d, s);
            }
        }
    } else if aligned {
        let n = nb / std::mem::size_of::<T::C>();
        let base = mem.as_mut_ptr();
        for r in 0..plan.rows {
            let d0 = plan.dst.0 + r * plan.dst.1;
            // SAFETY: the plan checked that every row of every operand lies inside `mem`
            // (`RowPlan::new`), and, `in_place` being false, that each source row is disjoint
            // from this destination row, so the one `&mut` row does not overlap the shared
            // ones (sources may overlap each other). Offsets, pitches and the base are
            // multiples of the compute type's alignment (just checked), `nb` is `n` compute
            // values (same size as the storage), and every bit pattern is a value of the
            // compute type (`STORED_AS_COMPUTE`). The slices live only for this row.
            unsafe {
                let d = std::slice::from_raw_parts_mut(base.add(d0).cast::<T::C>(), n);
                let s: [&[T::C]; K] = std::array::from_fn(|k| {
                    let (a, p) = plan.srcs[k];
                    std::slice::from_raw_parts(base.add(a + r * p).cast::<T::C>().cast_const(), n)
                });
                f.row(d, s);
            }
        }
    } else {
        let mut bufs = Bufs::<T::C, K>::new();
        for r in 0..plan.rows {
            let (d0, srcs) = plan.row(r);
            let (before, rest) = mem.split_at_mut(d0);
            let (drow, after) = rest.split_at_mut(nb);
            convert_row::<T, K, HW>(&mut bufs, before, drow, after, d0, srcs, f);
        }
    }
}

/// An instruction's element function, and how it runs over a row. Every closure
/// `Fn([C; K]) -> C` is one (its rows are the plain zip loop of [`kernel`]); an element function
/// with a faster whole-row form (several lanes at once) overrides [`ElemFn::row`], which must
/// give exactly `elem` of every element.
pub(crate) trait ElemFn<C: Num, const K: usize> {
    /// One element.
    fn elem(&self, x: [C; K]) -> C;
    /// `d[i] = elem([s_k[i]])` over equal-length slices.
    #[inline(always)]
    fn row(&self, d: &mut [C], s: [&[C]; K]) {
        kernel(d, s, &|x| self.elem(x))
    }
    /// [`ElemFn::row`] where a `None` source is `d` itself. The default copies each chunk of
    /// `d` into a scratch chunk first, which any row form allows; the plain element function
    /// reads `d[i]` just before writing it (an element depends only on its own position).
    #[inline(always)]
    fn row_in_place(&self, d: &mut [C], s: [Option<&[C]>; K]) {
        let mut scratch = [C::default(); INPLACE_CHUNK];
        let n = d.len();
        let mut c0 = 0;
        while c0 < n {
            let m = INPLACE_CHUNK.min(n - c0);
            scratch[..m].copy_from_slice(&d[c0..c0 + m]);
            let src: [&[C]; K] = std::array::from_fn(|k| match s[k] {
                None => &scratch[..m],
                Some(v) => &v[c0..c0 + m],
            });
            self.row(&mut d[c0..c0 + m], src);
            c0 += m;
        }
    }
}

impl<C: Num, const K: usize, F: Fn([C; K]) -> C> ElemFn<C, K> for F {
    #[inline(always)]
    fn elem(&self, x: [C; K]) -> C {
        self(x)
    }
    #[inline(always)]
    fn row_in_place(&self, d: &mut [C], s: [Option<&[C]>; K]) {
        kernel_in_place(d, s, self)
    }
}

/// `d[i] = f([s_k[i]])` where a `None` source is `d[i]` itself, read just before `d[i]` is
/// written. One zip loop per in-place pattern of arities 1 and 2 (the compiler vectorises
/// them); arity 3 goes element by element.
#[inline(always)]
fn kernel_in_place<C: Num, const K: usize>(
    d: &mut [C],
    s: [Option<&[C]>; K],
    f: &impl Fn([C; K]) -> C,
) {
    let n = d.len();
    let arg = |v: [C; 3]| -> [C; K] { std::array::from_fn(|k| v[k]) };
    let z = C::default();
    match (K, s.first().copied().flatten(), s.get(1).copied().flatten()) {
        (1, None, _) => d.iter_mut().for_each(|o| *o = f(arg([*o, z, z]))),
        (2, None, Some(b)) => {
            for (o, y) in d.iter_mut().zip(&b[..n]) {
                *o = f(arg([*o, *y, z]));
            }
        }
        (2, Some(a), None) => {
            for (o, x) in d.iter_mut().zip(&a[..n]) {
                *o = f(arg([*x, *o, z]));
            }
        }
        (2, None, None) => d.iter_mut().for_each(|o| *o = f(arg([*o, *o, z]))),
        _ => {
            for i in 0..n {
                let x: [C; K] = std::array::from_fn(|k| s[k].map_or(d[i], |v| v[i]));
                d[i] = f(x);
            }
        }
    }
}

/// `d[i] = f([s_k[i]])` over equal-length slices. The sources are bound to locals per arity
/// so that the loop is a plain zip the compiler vectorises.
#[inline(always)]
fn kernel<C: Num, const K: usize>(d: &mut [C], s: [&[C]; K], f: &impl Fn([C; K]) -> C) {
    let n = d.len();
    let arg = |v: [C; 3]| -> [C; K] { std::array::from_fn(|k| v[k]) };
    let z = C::default();
    match K {
        0 => d.iter_mut().for_each(|o| *o = f(arg([z; 3]))),
        1 => {
            let a = &s[0][..n];
            for (o, x) in d.iter_mut().zip(a) {
                *o = f(arg([*x, z, z]));
            }
        }
        2 => {
            let (a, b) = (&s[0][..n], &s[1][..n]);
            for ((o, x), y) in d.iter_mut().zip(a).zip(b) {
                *o = f(arg([*x, *y, z]));
            }
        }
        3 => {
            let (a, b, c) = (&s[0][..n], &s[1][..n], &s[2][..n]);
            for (((o, x), y), w) in d.iter_mut().zip(a).zip(b).zip(c) {
                *o = f(arg([*x, *y, *w]));
            }
        }
        _ => {
            for (i, o) in d.iter_mut().enumerate() {
                *o = f(std::array::from_fn(|k| s[k][i]));
            }
        }
    }
}

/// Compute-type chunk buffers of the converting loop, created once per instruction.
struct Bufs<C, const K: usize> {
    ins: [[C; CHUNK]; K],
    out: [C; CHUNK],
}

impl<C: Num, const K: usize> Bufs<C, K> {
    #[inline(always)]
    fn new() -> Self {
        Bufs {
            ins: [[C::default(); CHUNK]; K],
            out: [C::default(); CHUNK],
        }
    }
}

/// One row through compute-type chunks: widen each source chunk (or the destination chunk for
/// an in-place operand), apply, narrow into the destination.
#[inline(always)]
fn convert_row<T: Elem, const K: usize, const HW: bool>(
    bufs: &mut Bufs<T::C, K>,
    before: &[u8],
    drow: &mut [u8],
    after: &[u8],
    d0: usize,
    srcs: [RowSrc; K],
    f: &impl ElemFn<T::C, K>,
) {
    let size = std::mem::size_of::<T>();
    let nb = drow.len();
    let n = nb / size;
    #[cfg(target_arch = "x86_64")]
    if HW
        && T::TYPE == npusim_core::ElemType::F16
        && std::any::TypeId::of::<T::C>() == std::any::TypeId::of::<f32>()
    {
        // Eight lanes at a time in registers: widen, apply, narrow. An in-place input reads
        // through the destination's own pointer (derived once, used for both).
        let out = drow.as_mut_ptr();
        let ins: [*const u8; K] = std::array::from_fn(|k| match srcs[k] {
            RowSrc::At(a) if a < d0 => before[a..a + nb].as_ptr(),
            RowSrc::At(a) => after[a - d0 - nb..a - d0].as_ptr(),
            RowSrc::Dst => out.cast_const(),
        });
        let g = |a: [f32; K]| -> f32 {
            // SAFETY: T::C is f32 (same TypeId), so both copies reinterpret a value as itself.
            let r = f.elem(unsafe { std::mem::transmute_copy::<[f32; K], [T::C; K]>(&a) });
            // SAFETY: as above.
            unsafe { std::mem::transmute_copy::<T::C, f32>(&r) }
        };
        // SAFETY: HW is only true inside `run_rows_avx2` (AVX2 and F16C present); every input
        // pointer starts `nb = 2 * n` readable bytes (slices of the memory above), and `drow`
        // holds `nb` writable bytes. An input equal to `drow` is read before each group of
        // eight is written, at the same positions.
        unsafe { f16c::row::<K>(ins, out, n, &g) };
        return;
    }
    let mut c0 = 0;
    while c0 < n {
        let m = CHUNK.min(n - c0);
        let (b0, b1) = (c0 * size, (c0 + m) * size);
        for (k, src) in srcs.iter().enumerate() {
            let bytes = match *src {
                RowSrc::At(a) if a < d0 => &before[a + b0..a + b1],
                RowSrc::At(a) => &after[a - d0 - nb + b0..a - d0 - nb + b1],
                RowSrc::Dst => &drow[b0..b1],
            };
            T::load(bytes, &mut bufs.ins[k][..m]);
        }
        let ins = &bufs.ins;
        f.row(&mut bufs.out[..m], std::array::from_fn(|k| &ins[k][..m]));
        T::store(&bufs.out[..m], &mut drow[b0..b1]);
        c0 += m;
    }
}

#[cfg(target_arch = "x86_64")]
mod f16c {
    use std::arch::x86_64::*;

    /// `vcvtps2ph` (round to nearest even) into a register. Written out so that the compiler
    /// cannot fold the following store into the instruction: the memory form is several times
    /// slower on AMD Zen cores.
    #[inline]
    #[target_feature(enable = "avx2,f16c")]
    fn cvtps_ph_reg(v: __m256) -> __m128i {
        let h: __m128i;
        // SAFETY: F16C is enabled for this function; the instruction only reads `v` and
        // writes `h`, with no memory access and no flags.
        unsafe {
            std::arch::asm!(
                "vcvtps2ph {h}, {v}, 0",
                h = lateout(xmm_reg) h,
                v = in(ymm_reg) v,
                options(pure, nomem, nostack, preserves_flags),
            );
        }
        h
    }

    /// `out[i] = f([in_k[i]])` over `n` f16 elements, eight at a time in registers.
    ///
    /// # Safety
    /// The CPU must support AVX2 and F16C; each `ins[k]` must point at `2 * n` readable bytes and
    /// `out` at `2 * n` writable bytes; an input may equal `out` but not partially overlap it.
    #[inline]
    #[target_feature(enable = "avx2,f16c")]
    pub unsafe fn row<const K: usize>(
        ins: [*const u8; K],
        out: *mut u8,
        n: usize,
        f: &impl Fn([f32; K]) -> f32,
    ) {
        let mut i = 0;
        while i + 8 <= n {
            let mut a = [[0f32; 8]; K];
            for k in 0..K {
                // SAFETY: i + 8 <= n, so 16 bytes at 2 * i are inside the 2 * n readable bytes.
                unsafe {
                    let h = _mm_loadu_si128(ins[k].add(2 * i).cast());
                    _mm256_storeu_ps(a[k].as_mut_ptr(), _mm256_cvtph_ps(h));
                }
            }
            let mut o = [0f32; 8];
            for (j, v) in o.iter_mut().enumerate() {
                *v = f(std::array::from_fn(|k| a[k][j]));
            }
            // SAFETY: as above, for the 2 * n writable bytes of `out`.
            unsafe {
                let h = cvtps_ph_reg(_mm256_loadu_ps(o.as_ptr()));
                _mm_storeu_si128(out.add(2 * i).cast(), h);
            }
            i += 8;
        }
        while i < n {
            // SAFETY: i < n: the two bytes at 2 * i are inside every operand.
            unsafe {
                let x: [f32; K] = std::array::from_fn(|k| {
                    half::f16::from_le_bytes([*ins[k].add(2 * i), *ins[k].add(2 * i + 1)]).to_f32()
                });
                let b = half::f16::from_f32(f(x)).to_le_bytes();
                *out.add(2 * i) = b[0];
                *out.add(2 * i + 1) = b[1];
            }
            i += 1;
        }
    }
}
