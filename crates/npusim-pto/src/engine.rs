//! The shared engine: applies an element function over a destination's valid region.
//!
//! One mechanism serves every elementwise-shaped instruction. The fast path walks each valid row
//! of row-major tiles as contiguous byte slices, in chunks of [`CHUNK`] elements: it widens each
//! source chunk to the compute type (f16 through F16C when the CPU has it, see
//! `npusim_core::fastconv`), applies the element function in a plain loop (monomorphised per
//! element type and per instruction, so the compiler vectorises it), and narrows the result
//! chunk once. The plain path does the same element by element through the layout offset
//! function ([`crate::Tile::elem_offset`]); it serves non-row-major tiles and is the fast path's
//! twin in the property tests ([`crate::TileCore::set_reference`]).

use crate::core::TileCore;
use crate::error::PtoError;
use crate::num::{Elem, Num};
use crate::tile::Tile;
use npusim_core::memory::MemoryError;

/// Elements per chunk of the fast path.
pub const CHUNK: usize = 64;

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
        let fast = !self.reference()
            && dst.is_row_major_plain()
            && srcs
                .iter()
                .all(|s| s.is_row_major_plain() && s.loc() == dst.loc());
        if fast {
            self.apply_rows::<T, K>(op, dst, srcs, f)
        } else {
            self.apply_plain::<T, K>(op, dst, srcs, f)
        }
    }

    /// The fast path: row slices, chunked.
    fn apply_rows<T: Elem, const K: usize>(
        &mut self,
        op: &'static str,
        dst: &Tile,
        srcs: [&Tile; K],
        f: impl Fn([T::C; K]) -> T::C,
    ) -> Result<(), PtoError> {
        let size = std::mem::size_of::<T>();
        let (vr, vc) = (dst.valid_row(), dst.valid_col());
        let mut ins = [[T::C::default(); CHUNK]; K];
        let mut out = [T::C::default(); CHUNK];
        let mem = self.mem_mut(dst.loc());
        for r in 0..vr {
            let mut c0 = 0;
            while c0 < vc {
                let n = CHUNK.min(vc - c0);
                let nb = (n * size) as u64;
                for k in 0..K {
                    let b = mem
                        .bytes(srcs[k].byte_addr(r, c0), nb)
                        .map_err(mem_err(op, "src"))?;
                    T::load(b, &mut ins[k][..n]);
                }
                for (i, o) in out[..n].iter_mut().enumerate() {
                    *o = f(std::array::from_fn(|k| ins[k][i]));
                }
                let b = mem
                    .bytes_mut(dst.byte_addr(r, c0), nb)
                    .map_err(mem_err(op, "dst"))?;
                T::store(&out[..n], b);
                c0 += n;
            }
        }
        Ok(())
    }

    /// The plain path: element by element through the layout offset function.
    fn apply_plain<T: Elem, const K: usize>(
        &mut self,
        op: &'static str,
        dst: &Tile,
        srcs: [&Tile; K],
        f: impl Fn([T::C; K]) -> T::C,
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
                let v = T::narrow(f(ins));
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

    /// Finds the first zero in `t`'s region `rows x cols` (integer division checks).
    pub(crate) fn find_zero<T: Elem>(
        &self,
        op: &'static str,
        t: &Tile,
        rows: usize,
        cols: usize,
    ) -> Result<(), PtoError> {
        for r in 0..rows {
            for c in 0..cols {
                if self.getc::<T>(op, "src", t, r, c)?.is_zero() {
                    return Err(PtoError::DivByZero { op, row: r, col: c });
                }
            }
        }
        Ok(())
    }
}

/// A memory fault as a [`PtoError`].
pub(crate) fn memory(op: &'static str, operand: &'static str) -> impl Fn(MemoryError) -> PtoError {
    mem_err(op, operand)
}
