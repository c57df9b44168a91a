//! The one lane/row driver of the bit-pattern BDC instructions (issue #16): compares, bitwise
//! ops, casts, moves, integer arithmetic and selects all run through [`map_elems`].
//!
//! An instruction is a table row (its vendor name, operand shape and checks) plus one pure
//! element function `[u32; N] -> u32` over the operands' bit patterns; the driver owns the
//! lane/slot walk ([`LocalView::row`]), strides, element widths (each operand has its own),
//! scalars and in-place safety (every chunk of a row of every source is read whole before the
//! destination's chunk is written). Floats with a fast path of their own live in `bdc.rs`.

use crate::local::{LocalView, row_indices};

/// One source operand of an elementwise instruction.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Src<'a> {
    /// A local tensor: element `(n, c, h, w)` of the view.
    Tensor(&'a LocalView),
    /// A local tensor of one channel read for every destination channel (`npu_bcast`).
    Channel0(&'a LocalView),
    /// A scalar (already cut to the operand's width).
    Const(u32),
}

/// Reads one little-endian element of `es` bytes.
#[inline(always)]
pub(crate) fn load(b: &[u8], es: usize) -> u32 {
    match es {
        1 => u32::from(b[0]),
        2 => u32::from(u16::from_le_bytes([b[0], b[1]])),
        _ => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
    }
}

/// Reads one row of `w` elements of `v` starting at byte `row` into `out` (one loop per
/// element width, so the width test is outside the loop).
#[inline(always)]
fn load_row(store: &[u8], v: &LocalView, row: usize, out: &mut [u32]) {
    let es = v.esize as usize;
    let ws = v.stride.w as usize * es;
    if ws == es {
        let src = &store[row..row + out.len() * es];
        match es {
            1 => out
                .iter_mut()
                .zip(src)
                .for_each(|(o, b)| *o = u32::from(*b)),
            2 => out
                .iter_mut()
                .zip(src.chunks_exact(2))
                .for_each(|(o, b)| *o = u32::from(u16::from_le_bytes([b[0], b[1]]))),
            _ => out
                .iter_mut()
                .zip(src.chunks_exact(4))
                .for_each(|(o, b)| *o = u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        }
    } else {
        for (i, o) in out.iter_mut().enumerate() {
            *o = load(&store[row + i * ws..], es);
        }
    }
}

/// Writes one row of `src` elements with width `es` and byte step `ws` from byte `row`.
#[inline(always)]
fn store_row(store: &mut [u8], row: usize, es: usize, ws: usize, src: &[u32]) {
    if ws == es {
        let dst = &mut store[row..row + src.len() * es];
        match es {
            1 => dst.iter_mut().zip(src).for_each(|(d, v)| *d = *v as u8),
            2 => dst
                .chunks_exact_mut(2)
                .zip(src)
                .for_each(|(d, v)| d.copy_from_slice(&(*v as u16).to_le_bytes())),
            _ => dst
                .chunks_exact_mut(4)
                .zip(src)
                .for_each(|(d, v)| d.copy_from_slice(&v.to_le_bytes())),
        }
    } else {
        for (i, o) in src.iter().enumerate() {
            store[row + i * ws..row + i * ws + es].copy_from_slice(&o.to_le_bytes()[..es]);
        }
    }
}

/// For every element of `d`: `d = f([s0, s1, ...])` on the sources' bit patterns, written with
/// the destination's width (the low bytes of `f`'s result).
///
/// Rows are merged when every tensor operand keeps its channel's rows back to back (h stride =
/// w, w stride = 1): the walk then runs over `(n, c)` rows of `H * W` elements, in chunks of
/// at most [`CHUNK`] elements so the row buffers stay small.
pub(crate) fn map_elems<const N: usize>(
    store: &mut [u8],
    d: &LocalView,
    srcs: [Src<'_>; N],
    f: impl Fn([u32; N]) -> u32,
) {
    map_elems_dispatch(store, d, srcs, &f)
}

crate::simd::avx2_dispatch!(
    /// [`map_elems_body`], AVX2-compiled where the host has it.
    fn map_elems_dispatch['a, 'b, const N: usize, F: Fn([u32; N]) -> u32](
        store: &mut [u8],
        d: &LocalView,
        srcs: [Src<'a>; N],
        f: &'b F,
    ) => map_elems_body
);

/// The body of [`map_elems`].
#[inline(always)]
fn map_elems_body<const N: usize, F: Fn([u32; N]) -> u32>(
    store: &mut [u8],
    d: &LocalView,
    srcs: [Src<'_>; N],
    f: &F,
) {
    let contiguous = |v: &LocalView| v.stride.w == 1 && v.stride.h == v.shape.w;
    let merge = contiguous(d)
        && srcs.iter().all(|s| match s {
            Src::Tensor(v) | Src::Channel0(v) => contiguous(v),
            Src::Const(_) => true,
        });
    let mut walk = d.shape;
    if merge {
        walk.w = d.shape.h * d.shape.w;
        walk.h = 1;
    }
    let w = walk.w as usize;
    let des = d.esize as usize;
    let dws = d.stride.w as usize * des;
    let cw = w.min(CHUNK);
    // Row buffers, one per source and one for the result, cut from a per-thread scratch
    // vector (no allocation per call once it has grown); a scalar's buffer is filled once.
    let mut scratch = SCRATCH.take();
    scratch.clear();
    scratch.resize((N + 1) * cw, 0);
    let (flat, out) = scratch.split_at_mut(N * cw);
    let mut parts = flat.chunks_exact_mut(cw);
    let mut bufs: [&mut [u32]; N] = std::array::from_fn(|_| parts.next().unwrap_or_default());
    for (buf, s) in bufs.iter_mut().zip(srcs.iter()) {
        if let Src::Const(c) = *s {
            buf.fill(c);
        }
    }
    for (n, c, h) in row_indices(&walk) {
        let mut done = 0;
        while done < w {
            let m = (w - done).min(CHUNK);
            for (buf, s) in bufs.iter_mut().zip(srcs.iter()) {
                match *s {
                    Src::Tensor(v) => {
                        let at = v.row(n, c, h) + done * v.stride.w as usize * v.esize as usize;
                        load_row(store, v, at, &mut buf[..m])
                    }
                    Src::Channel0(v) => {
                        let at = v.row(n, 0, h) + done * v.stride.w as usize * v.esize as usize;
                        load_row(store, v, at, &mut buf[..m])
                    }
                    Src::Const(_) => {}
                }
            }
            let ins: [&[u32]; N] = std::array::from_fn(|k| &bufs[k][..m]);
            let o = &mut out[..m];
            if N == 2 {
                // Two sources (most instructions): zipped slices, no index checks.
                for ((o, &x), &y) in o.iter_mut().zip(ins[0]).zip(ins[N - 1]) {
                    *o = f(std::array::from_fn(|k| if k == 0 { x } else { y }));
                }
            } else {
                for (i, o) in o.iter_mut().enumerate() {
                    *o = f(std::array::from_fn(|k| ins[k][i]));
                }
            }
            store_row(store, d.row(n, c, h) + done * dws, des, dws, o);
            done += m;
        }
    }
    SCRATCH.set(scratch);
}

thread_local! {
    /// The row buffers of [`map_elems`], kept between calls.
    static SCRATCH: std::cell::Cell<Vec<u32>> = const { std::cell::Cell::new(Vec::new()) };
}

/// Longest run of elements the driver decodes at once.
const CHUNK: usize = 1024;
