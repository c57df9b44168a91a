//! The one lane/row driver of the bit-pattern BDC instructions (issue #16): compares, bitwise
//! ops, casts, moves, integer arithmetic and selects all run through [`map_elems`].
//!
//! An instruction is a table row (its vendor name, operand shape and checks) plus one pure
//! element function `[u32; N] -> u32` over the operands' bit patterns; the driver owns the
//! lane/slot walk ([`LocalView::row`]), strides, element widths (each operand has its own),
//! scalars and in-place safety (every chunk of a row of every source is read whole before the
//! destination's chunk is written). Floats with a fast path of their own live in `bdc.rs`.

use crate::chip::{LocalProfile, TpuChip};
use crate::device::HostSimd;
use crate::local::{AlignedPlace, Dim4, LocalAddr, LocalView, aligned_place, row_indices};

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
    let walk = row_walk(d, &srcs);
    // Rows of at most UCHUNK elements, every tensor operand of the destination's width at unit
    // w stride: the row kernel that reads the sources in place (no row-buffer copies, no
    // scratch). One chunk per row in both paths, so overlapping operands read the same.
    let uniform = d.stride.w == 1
        && walk.w as usize <= UCHUNK
        && srcs.iter().all(|s| match s {
            Src::Tensor(v) | Src::Channel0(v) => v.stride.w == 1 && v.esize == d.esize,
            Src::Const(_) => true,
        });
    if uniform {
        match d.esize {
            1 => return rows_uniform::<N, 1, F>(store, d, &srcs, &walk, f),
            2 => return rows_uniform::<N, 2, F>(store, d, &srcs, &walk, f),
            4 => return rows_uniform::<N, 4, F>(store, d, &srcs, &walk, f),
            _ => {}
        }
    }
    rows_general(store, d, &srcs, &walk, f)
}

/// The rows [`map_elems`] walks: `d`'s shape, with each channel's rows merged into one row of
/// `H * W` elements when every tensor operand keeps them back to back.
#[inline(always)]
fn row_walk<const N: usize>(d: &LocalView, srcs: &[Src<'_>; N]) -> Dim4 {
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
    walk
}

/// The general path of [`map_elems_body`] over the row walk `walk`: every row's sources copied
/// into row buffers, chunks of at most [`CHUNK`] elements (the scalar twin of
/// [`rows_uniform`]).
#[inline(always)]
fn rows_general<const N: usize, F: Fn([u32; N]) -> u32>(
    store: &mut [u8],
    d: &LocalView,
    srcs: &[Src<'_>; N],
    walk: &Dim4,
    f: &F,
) {
    let des = d.esize as usize;
    let w = walk.w as usize;
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
    for (n, c, h) in row_indices(walk) {
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

/// Elements per chunk of [`rows_uniform`] (its buffers live on the stack).
const UCHUNK: usize = 64;

/// [`map_elems_body`] when the destination and every tensor source have `ES`-byte elements at
/// unit w stride: each chunk of a row is computed from the sources' bytes in the store into a
/// stack buffer (every source element of the chunk is read before any destination byte is
/// written, as in the general path), then written to the destination. A scalar source reads a
/// chunk of zeros whose elements the element call replaces by the scalar's full 32 bits (as
/// the general path passes it). Its twin is the general path ([`rows_general`]: the same
/// element function over row buffers), held equal by `tests::uniform_rows_equal_general_path`.
#[inline(always)]
fn rows_uniform<const N: usize, const ES: usize, F: Fn([u32; N]) -> u32>(
    store: &mut [u8],
    d: &LocalView,
    srcs: &[Src<'_>; N],
    walk: &Dim4,
    f: &F,
) {
    let w = walk.w as usize;
    let (mut scalar, mut value) = ([false; N], [0u32; N]);
    for ((is, v), s) in scalar.iter_mut().zip(value.iter_mut()).zip(srcs.iter()) {
        if let Src::Const(c) = *s {
            (*is, *v) = (true, c);
        }
    }
    // The element call with the scalars in place (loop-invariant selects).
    let f = |v: [u32; N]| {
        f(std::array::from_fn(
            |k| if scalar[k] { value[k] } else { v[k] },
        ))
    };
    let zeros = [[0u8; ES]; UCHUNK];
    let mut out = [0u32; UCHUNK];
    for (n, c, h) in row_indices(walk) {
        let mut done = 0;
        while done < w {
            let m = (w - done).min(UCHUNK);
            // (A loop, not `array::from_fn`: that stayed a call per chunk.)
            let mut ins: [&[[u8; ES]]; N] = [&[]; N];
            for (i, s) in ins.iter_mut().zip(srcs.iter()) {
                let at = match *s {
                    Src::Tensor(v) => v.row(n, c, h),
                    Src::Channel0(v) => v.row(n, 0, h),
                    Src::Const(_) => {
                        *i = &zeros[..m];
                        continue;
                    }
                } + done * ES;
                *i = store[at..at + m * ES].as_chunks::<ES>().0;
            }
            let o = &mut out[..m];
            // Zipped slices (no index checks, so the loops vectorise) for one, two and four
            // sources; any other count by index.
            let s = |k: usize| ins[k.min(N - 1)];
            match N {
                1 => {
                    for (o, x) in o.iter_mut().zip(s(0)) {
                        let x = word(*x);
                        *o = f(std::array::from_fn(|_| x));
                    }
                }
                2 => {
                    for ((o, x), y) in o.iter_mut().zip(s(0)).zip(s(1)) {
                        let v = [word(*x), word(*y)];
                        *o = f(std::array::from_fn(|k| v[k.min(1)]));
                    }
                }
                4 => {
                    let it = o.iter_mut().zip(s(0)).zip(s(1)).zip(s(2)).zip(s(3));
                    for ((((o, x), y), t), e) in it {
                        let v = [word(*x), word(*y), word(*t), word(*e)];
                        *o = f(std::array::from_fn(|k| v[k.min(3)]));
                    }
                }
                _ => {
                    for (i, o) in o.iter_mut().enumerate() {
                        *o = f(std::array::from_fn(|k| word(ins[k][i])));
                    }
                }
            }
            store_row(store, d.row(n, c, h) + done * ES, ES, ES, o);
            done += m;
        }
    }
}

/// One little-endian element of 1, 2 or 4 bytes.
#[inline(always)]
fn word<const ES: usize>(b: [u8; ES]) -> u32 {
    let mut w = [0u8; 4];
    w[..ES.min(4)].copy_from_slice(&b[..ES.min(4)]);
    u32::from_le_bytes(w)
}

/// An operand of [`AlignedCall::new`]: a local tensor in the aligned layout with its default
/// strides (a NULL stride) at this address, or a scalar (its full 32 bits, as [`Src::Const`]).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Aligned {
    /// A local tensor (`local_addr_t`), aligned layout.
    Tensor(LocalAddr),
    /// A scalar.
    Const(u32),
}

/// Elements per block of [`AlignedCall::run`]'s row kernel (one AVX2 vector of 32-bit words).
const LB: usize = 8;

/// The small-call path of [`map_elems`]: a call whose operands are all in the aligned layout
/// with their default strides (NULL strides) and of one element width (1, 2 or 4 bytes),
/// checked once ([`Self::new`]: no [`LocalView`]s), then run with the element function
/// ([`Self::run`]: `d = f([s0, s1, ...])` as [`map_elems`] computes it, by a row kernel over
/// blocks of [`LB`] elements, each block's source elements read before its destination
/// elements are written).
///
/// Its scalar twin is the checked path ([`map_elems`] over [`LocalView`]s, or the same call
/// with the aligned strides written out): `tests::aligned_calls_equal_view_path` here and the
/// twin tests of `tests/bdc_int.rs` and `tests/bdc_logic.rs` hold them equal.
#[derive(Clone, Copy, Debug)]
pub(crate) struct AlignedCall<const N: usize> {
    g: Geometry,
    dst: AlignedPlace,
    ops: [Operand; N],
}

impl<const N: usize> AlignedCall<N> {
    /// The layout checks of a call with destination `dst`, sources `srcs` and elements of `es`
    /// bytes, in one pass over the operands: each tensor's address a multiple of `align`,
    /// inside local memory, its footprint inside the lane (`aligned_place`). `None` when the
    /// call is not one [`Self::run`] takes: an operand misaligned, out of range or past its
    /// lane (the caller's checked path names the error), a width other than 1, 2 or 4, a store
    /// smaller than the profile's, or a source that is neither the destination itself (same
    /// lane and offset: each element read before it is written) nor apart from it in every
    /// lane (a partial overlap: the checked path's row order then decides). The caller has
    /// checked the dims (`1..=65535`, the work bound) and everything its checked path checks
    /// before the layout (dtypes).
    #[inline(always)]
    pub(crate) fn new(
        store: &[u8],
        p: &LocalProfile,
        shape: &Dim4,
        es: usize,
        align: u32,
        dst: LocalAddr,
        srcs: [Aligned; N],
    ) -> Option<Self> {
        let shift = match es {
            1 => 0,
            2 => 1,
            4 => 2,
            _ => return None,
        };
        let place = |addr| aligned_place(p, addr, shape, shift, align, false);
        let od = place(dst)?;
        if (store.len() as u64) < p.store_size() {
            return None;
        }
        let mut ops = [Operand::Const(0); N];
        for (o, s) in ops.iter_mut().zip(srcs) {
            *o = match s {
                Aligned::Const(c) => Operand::Const(c),
                Aligned::Tensor(addr) => {
                    let os = place(addr)?;
                    let same = os.start == od.start && os.offset == od.offset;
                    let apart = os.end <= u64::from(od.offset) || od.end <= u64::from(os.offset);
                    if !(same || apart) {
                        return None;
                    }
                    Operand::Tensor(os)
                }
            };
        }
        let g = Geometry {
            n: shape.n as usize,
            c: shape.c as usize,
            hw: shape.h as usize * shape.w as usize,
            es,
            pitch: p.store_pitch() as usize,
            npu: p.npu_num as usize,
        };
        Some(AlignedCall { g, dst: od, ops })
    }

    /// Runs the call checked by [`Self::new`] on the store it was checked against (or one of
    /// the same size).
    #[inline(always)]
    pub(crate) fn run<F: Fn([u32; N]) -> u32 + Copy>(&self, store: &mut [u8], f: F) {
        match self.g.es {
            1 => aligned_dispatch(store, self, f, [0; 1]),
            2 => aligned_dispatch(store, self, f, [0; 2]),
            _ => aligned_dispatch(store, self, f, [0; 4]),
        }
    }
}

/// The small-call paths of [`map_elems`] at host SIMD level `simd`: on AVX-512 hosts
/// `crate::avx512::small_elem` for the BM1684X (16-element vectors, the chip profile a
/// constant), else (other chips, AVX2-only hosts) [`AlignedCall`], at [`HostSimd::Baseline`]
/// none. The operands and checks are those of
/// [`AlignedCall::new`] (`dst`, `srcs`, elements of `es` bytes, tensor addresses multiples of
/// `align`); `false` (nothing written) when the path does not take the call, which then runs
/// through the caller's checked path. Both paths compute `d = f([s0, s1, ...])` as
/// [`map_elems`] does.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn run_small<const N: usize, F: Fn([u32; N]) -> u32 + Copy>(
    store: &mut [u8],
    chip: TpuChip,
    simd: HostSimd,
    shape: &Dim4,
    es: usize,
    align: u32,
    dst: LocalAddr,
    srcs: [Aligned; N],
    f: F,
) -> bool {
    match simd {
        // The AVX-512 path is instantiated for the BM1684X only (its profile a constant per
        // instantiation, and an integer call alone has 108 element functions): other chips
        // take the AVX2 path.
        HostSimd::Avx512 if chip == TpuChip::Bm1684x => {
            let shift = match es {
                1 => 0,
                2 => 1,
                4 => 2,
                _ => return false,
            };
            // SAFETY: `HostSimd::Avx512` is only ever a detected level.
            unsafe { crate::avx512::small_elem(store, chip, shape, shift, align, dst, srcs, f) }
        }
        HostSimd::Avx512 | HostSimd::Avx2 => {
            // The AVX2 kernel's one-batch case first (BM1684X; hosts without AVX-512).
            if simd == HostSimd::Avx2 {
                let shift = match es {
                    1 => 0,
                    2 => 1,
                    4 => 2,
                    _ => 3,
                };
                // SAFETY: `HostSimd::Avx2` is only ever a detected level.
                if unsafe {
                    crate::avx2::small_elem(store, chip, shape, shift, align, dst, srcs, f)
                } {
                    return true;
                }
            }
            let p = chip.local();
            match AlignedCall::new(store, &p, shape, es, align, dst, srcs) {
                Some(call) => {
                    call.run(store, f);
                    true
                }
                None => false,
            }
        }
        HostSimd::Baseline => false,
    }
}

/// An operand of [`AlignedCall`]: its place, or a scalar.
#[derive(Clone, Copy, Debug)]
enum Operand {
    Tensor(AlignedPlace),
    Const(u32),
}

/// The walk of an [`AlignedCall`]: `n` batches of `c` channels, each one row of `hw`
/// elements of `es` bytes; `npu` lanes `pitch` bytes apart in the store.
#[derive(Clone, Copy, Debug)]
struct Geometry {
    n: usize,
    c: usize,
    hw: usize,
    es: usize,
    pitch: usize,
    npu: usize,
}

crate::simd::avx2_dispatch!(
    /// [`aligned_rows`], AVX2-compiled where the host has it (`width`: `ES` zeros).
    fn aligned_dispatch[const N: usize, const ES: usize, F: Fn([u32; N]) -> u32 + Copy](
        store: &mut [u8],
        call: &AlignedCall<N>,
        f: F,
        width: [u8; ES],
    ) => aligned_rows
);

/// A cursor over an operand's channels: the byte of the channel's first element in the store
/// and its lane.
#[derive(Clone, Copy, Debug)]
struct Cursor {
    at: usize,
    lane: usize,
}

/// The rows of an [`AlignedCall`]: channel `ch` of batch `i` of an operand lies on lane
/// `(start + ch) % NPU`, slot `(start + ch) / NPU`, at element `i * ns + slot * cs` of that
/// lane from the operand's offset (`tpu_aligned_stride`), one row of `hw` elements.
#[inline(always)]
fn aligned_rows<const N: usize, const ES: usize, F: Fn([u32; N]) -> u32 + Copy>(
    store: &mut [u8],
    call: &AlignedCall<N>,
    f: F,
    _width: [u8; ES],
) {
    let g = call.g;
    // Channel 0 of batch `i`; from one channel to the next: the next lane, or lane 0 of the
    // next slot.
    let first = |o: &AlignedPlace, i: usize| {
        let lane = o.start as usize;
        Cursor {
            at: lane * g.pitch + o.offset as usize + i * o.ns as usize * ES,
            lane,
        }
    };
    let step = |c: &mut Cursor, cs_bytes: usize| {
        if c.lane + 1 == g.npu {
            c.at = c.at + cs_bytes - (g.npu - 1) * g.pitch;
            c.lane = 0;
        } else {
            c.at += g.pitch;
            c.lane += 1;
        }
    };
    let cs_bytes = call.dst.cs as usize * ES;
    // Each operand's block: a scalar's filled once, a tensor's loaded per block.
    let mut consts = [[0u32; LB]; N];
    for (b, o) in consts.iter_mut().zip(&call.ops) {
        if let Operand::Const(c) = *o {
            *b = [c; LB];
        }
    }
    for i in 0..g.n {
        let mut d = first(&call.dst, i);
        let mut at = [Cursor { at: 0, lane: 0 }; N];
        for (a, o) in at.iter_mut().zip(&call.ops) {
            if let Operand::Tensor(o) = o {
                *a = first(o, i);
            }
        }
        for _ in 0..g.c {
            let mut done = 0;
            // Whole blocks: fixed-size loads and stores (kept in registers).
            while done + LB <= g.hw {
                let mut ins = consts;
                for ((b, o), a) in ins.iter_mut().zip(&call.ops).zip(&at) {
                    if let Operand::Tensor(_) = o {
                        let x = a.at + done * ES;
                        let src = store[x..x + LB * ES].as_chunks::<ES>().0;
                        if let Some(src) = src.first_chunk::<LB>() {
                            *b = src.map(word);
                        }
                    }
                }
                let out = block(&ins, f);
                let x = d.at + done * ES;
                let dst = store[x..x + LB * ES].as_chunks_mut::<ES>().0;
                if let Some(dst) = dst.first_chunk_mut::<LB>() {
                    for (e, w) in dst.iter_mut().zip(&out) {
                        e.copy_from_slice(&w.to_le_bytes()[..ES]);
                    }
                }
                done += LB;
            }
            // The row's last, short block: copied in pieces (the lanes past the row keep the
            // scalars' or zero words: computed, never written).
            if done < g.hw {
                let m = g.hw - done;
                let mut ins = consts;
                for ((b, o), a) in ins.iter_mut().zip(&call.ops).zip(&at) {
                    if let Operand::Tensor(_) = o {
                        let x = a.at + done * ES;
                        load_block::<ES>(store[x..x + m * ES].as_chunks::<ES>().0, b);
                    }
                }
                let out = block(&ins, f);
                let x = d.at + done * ES;
                store_block::<ES>(store[x..x + m * ES].as_chunks_mut::<ES>().0, &out);
            }
            step(&mut d, cs_bytes);
            for (a, o) in at.iter_mut().zip(&call.ops) {
                if let Operand::Tensor(_) = o {
                    step(a, cs_bytes);
                }
            }
        }
    }
}

/// `f` over the words of a block of each operand (a function, not a closure: a closure
/// stayed an out-of-line call compiled without AVX2).
#[inline(always)]
fn block<const N: usize, F: Fn([u32; N]) -> u32>(ins: &[[u32; LB]; N], f: F) -> [u32; LB] {
    let mut out = [0u32; LB];
    for (j, o) in out.iter_mut().enumerate() {
        let mut v = [0u32; N];
        for (x, b) in v.iter_mut().zip(ins) {
            *x = b[j];
        }
        *o = f(v);
    }
    out
}

/// Copies `n` elements between a block and a row in pieces of 8, 4, 2 and 1 (each a fixed
/// size the compiler writes out: a copy of variable length became a `memcpy` call).
macro_rules! by_pieces {
    ($n:expr, |$j:ident, $k:ident| $piece:expr) => {{
        let n = $n;
        let mut $j = 0usize;
        by_pieces!(@ n, $j, $k, $piece, 8, 4, 2, 1);
    }};
    (@ $n:ident, $j:ident, $k:ident, $piece:expr, $($size:literal),*) => {
        $(
            if $n & $size != 0 {
                {
                    const $k: usize = $size;
                    $piece;
                }
                $j += $size;
            }
        )*
    };
}

/// Reads the elements of `src` (at most [`LB`]) into the first words of `b`.
#[inline(always)]
fn load_block<const ES: usize>(src: &[[u8; ES]], b: &mut [u32; LB]) {
    by_pieces!(src.len().min(LB), |j, K| {
        if let (Some(s), Some(d)) = (src[j..].first_chunk::<K>(), b[j..].first_chunk_mut::<K>()) {
            for (x, e) in d.iter_mut().zip(s) {
                *x = word(*e);
            }
        }
    });
}

/// Writes the first words of `b` (their low `ES` bytes) to the elements of `dst` (at most
/// [`LB`]).
#[inline(always)]
fn store_block<const ES: usize>(dst: &mut [[u8; ES]], b: &[u32; LB]) {
    by_pieces!(dst.len().min(LB), |j, K| {
        if let (Some(d), Some(s)) = (dst[j..].first_chunk_mut::<K>(), b[j..].first_chunk::<K>()) {
            for (e, x) in d.iter_mut().zip(s) {
                e.copy_from_slice(&x.to_le_bytes()[..ES]);
            }
        }
    });
}

thread_local! {
    /// The row buffers of [`map_elems`], kept between calls.
    static SCRATCH: std::cell::Cell<Vec<u32>> = const { std::cell::Cell::new(Vec::new()) };
}

/// Longest run of elements the driver decodes at once.
const CHUNK: usize = 1024;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chip::TpuChip;
    use proptest::prelude::*;

    /// One operand of a drawn case: 0 the destination itself (in place), 1 a tensor elsewhere
    /// (it may overlap the destination, shifted), 2 one channel read for all, 3 a scalar.
    type Operand = (u8, u32, u32, u32);

    /// A mixing element function: every operand and its position change the result.
    fn mix<const N: usize>(v: [u32; N]) -> u32 {
        v.iter().enumerate().fold(0x9e37_79b9u32, |a, (k, &x)| {
            (a ^ x.wrapping_mul(2 * k as u32 + 3)).rotate_left(5)
        })
    }

    /// Runs one drawn case through `rows_uniform` and through the general path on two copies of
    /// one store and compares the stores.
    fn check<const N: usize>(
        es: u32,
        shape: (i32, i32, i32, i32),
        pad: (i32, i32),
        dst: (u32, u32),
        ops: [Operand; N],
        seed: u64,
    ) -> Result<(), TestCaseError> {
        let p = TpuChip::Bm1684x.local();
        let (n, c, h, w) = shape;
        let slots = |start: u32, c: i32| (start as i32 + c + 63) / 64;
        let view = |start: u32, off: u32, c: i32, hs: i32| {
            let cs = h * hs + pad.1;
            let stride = Dim4::new(slots(start, c) * cs, cs, hs, 1);
            let addr = start * p.local_mem_per_npu + off * es;
            LocalView::new(&p, "test", "v", addr, Dim4::new(n, c, h, w), stride, es).expect("fits")
        };
        let d = view(dst.0, dst.1, c, w + pad.0);
        let others: [LocalView; N] = std::array::from_fn(|k| {
            let (kind, start, off, hpad) = ops[k];
            match kind {
                0 => d,
                2 => view(start, off, 1, w + hpad as i32),
                _ => view(start, off, c, w + hpad as i32),
            }
        });
        let srcs: [Src<'_>; N] = std::array::from_fn(|k| match ops[k].0 {
            0 | 1 => Src::Tensor(&others[k]),
            2 => Src::Channel0(&others[k]),
            _ => Src::Const(ops[k].1.wrapping_mul(0x8101_0101)),
        });
        let walk = row_walk(&d, &srcs);
        prop_assume!(walk.w as usize <= UCHUNK);
        let mut a = vec![0u8; p.store_size() as usize];
        let mut x = seed | 1;
        for lane in 0..64usize {
            let at = lane * p.store_pitch() as usize;
            for b in &mut a[at..at + 8192] {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                *b = x as u8;
            }
        }
        let mut b = a.clone();
        let f = |v: [u32; N]| mix(v);
        match es {
            1 => rows_uniform::<N, 1, _>(&mut a, &d, &srcs, &walk, &f),
            2 => rows_uniform::<N, 2, _>(&mut a, &d, &srcs, &walk, &f),
            _ => rows_uniform::<N, 4, _>(&mut a, &d, &srcs, &walk, &f),
        }
        rows_general(&mut b, &d, &srcs, &walk, &f);
        prop_assert!(a == b, "stores differ: es {es} shape {shape:?} ops {ops:?}");
        Ok(())
    }

    fn operand() -> impl Strategy<Value = Operand> {
        (0u8..4, 0u32..64, 0u32..512, 0u32..3)
    }

    /// A drawn case: element size, shape, (h stride pad, c stride pad), the destination's
    /// (start NPU, element offset), a seed for the store's bytes.
    type Case = (u32, (i32, i32, i32, i32), (i32, i32), (u32, u32), u64);

    fn case() -> impl Strategy<Value = Case> {
        (
            prop_oneof![Just(1u32), Just(2), Just(4)],
            (1i32..3, 1i32..70, 1i32..4, 1i32..40),
            (0i32..3, 0i32..5),
            (0u32..64, 0u32..512),
            any::<u64>(),
        )
    }

    /// One drawn operand of an aligned call: (kind: 0 scalar, else a tensor; 1 the
    /// destination's start lane; start lane; offset in EU steps; skew in bytes; scalar bits).
    type AlignedOp = (u8, bool, u32, u32, u32, u32);

    fn aligned_op() -> impl Strategy<Value = AlignedOp> {
        (
            0u8..4,
            any::<bool>(),
            0u32..64,
            0u32..8,
            prop::sample::select(vec![0u32, 0, 0, 0, 0, 1, 2, 4, 0x3_ffc0]),
            any::<u32>(),
        )
    }

    /// Runs one drawn call through [`AlignedCall`] and through [`map_elems`] over the views of
    /// the checked layout path (`LocalView::aligned_fast`) on two copies of one store; the call
    /// must be taken exactly when every view exists and every source is the destination itself
    /// or apart from it in every lane (`LocalView::lane_span`), and the stores must be equal.
    fn check_aligned<const N: usize>(
        es: usize,
        align: u32,
        shape: (i32, i32, i32, i32),
        dst: (u32, u32, u32),
        ops: [AlignedOp; N],
        seed: u64,
    ) -> Result<(), TestCaseError> {
        use crate::dtype::DataType;
        let p = TpuChip::Bm1684x.local();
        let shape = Dim4::new(shape.0, shape.1, shape.2, shape.3);
        let dtype =
            [DataType::Int8, DataType::Int16, DataType::Int32][es.trailing_zeros() as usize];
        let addr = |lane: u32, off: u32, skew: u32| (lane << 18) + off * 64 + skew;
        let d = addr(dst.0, dst.1, dst.2);
        let srcs: [Aligned; N] = std::array::from_fn(|k| {
            let (kind, same, lane, off, skew, bits) = ops[k];
            match kind {
                0 => Aligned::Const(bits),
                _ => Aligned::Tensor(addr(if same { dst.0 } else { lane }, off, skew)),
            }
        });
        let mut a = vec![0u8; p.store_size() as usize];
        let mut x = seed | 1;
        for lane in 0..64usize {
            let at = lane * p.store_pitch() as usize;
            for b in &mut a[at..at + 12288] {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                *b = x as u8;
            }
        }
        let mut b = a.clone();
        let view = |addr| LocalView::aligned_fast(&p, addr, &shape, dtype, align, false);
        let dv = view(d);
        let views: [Option<LocalView>; N] = std::array::from_fn(|k| match srcs[k] {
            Aligned::Tensor(addr) => view(addr),
            Aligned::Const(_) => None,
        });
        let expect = dv.is_some_and(|dv| {
            let (d0, d1) = dv.lane_span();
            (0..N).all(|k| match (srcs[k], views[k]) {
                (Aligned::Const(_), _) => true,
                (Aligned::Tensor(_), None) => false,
                (Aligned::Tensor(_), Some(v)) => {
                    let (s0, s1) = v.lane_span();
                    (v.start == dv.start && v.offset == dv.offset) || s1 <= d0 || d1 <= s0
                }
            })
        });
        let f = |v: [u32; N]| mix(v);
        let call = AlignedCall::new(&a, &p, &shape, es, align, d, srcs);
        prop_assert_eq!(
            call.is_some(),
            expect,
            "taken / expected, shape {:?} ops {:?}",
            shape,
            ops
        );
        let Some(call) = call else {
            return Ok(());
        };
        call.run(&mut a, f);
        let dv = dv.expect("taken");
        let operands: [Src<'_>; N] = std::array::from_fn(|k| match (&views[k], srcs[k]) {
            (Some(v), _) => Src::Tensor(v),
            (None, Aligned::Const(c)) => Src::Const(c),
            (None, Aligned::Tensor(_)) => unreachable!("taken calls have every view"),
        });
        map_elems(&mut b, &dv, operands, f);
        prop_assert!(
            a == b,
            "stores differ: es {} shape {:?} ops {:?}",
            es,
            shape,
            ops
        );
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// The small-call path [`AlignedCall`] equals [`map_elems`] over the checked layout
        /// path's views, and is taken exactly when it should be, for two and four operands of
        /// every width: sources on the destination's start lane or others, in place, meeting
        /// the destination partly or not at all, off the alignment grid or past the lane now
        /// and then, scalars.
        #[test]
        fn aligned_calls_equal_view_path(
            es in prop_oneof![Just(1usize), Just(2), Just(4)],
            eu in any::<bool>(),
            shape in (1i32..3, 1i32..70, 1i32..5, 1i32..20),
            dst in (0u32..64, 0u32..8, prop::sample::select(vec![0u32, 0, 0, 0, 1, 2, 0x3_ffc0])),
            o2 in [aligned_op(), aligned_op()],
            o4 in [aligned_op(), aligned_op(), aligned_op(), aligned_op()],
            seed in any::<u64>(),
        ) {
            let align = if eu { 64 } else { es as u32 };
            check_aligned(es, align, shape, dst, o2, seed)?;
            check_aligned(es, align, shape, dst, o4, seed)?;
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// The uniform row kernel equals the general path (row buffers, chunks of CHUNK) for
        /// one, two and four operands of every width, in place, shifted overlaps, one channel
        /// for all and scalars.
        #[test]
        fn uniform_rows_equal_general_path(
            (es, shape, pad, dst, seed) in case(),
            o1 in operand(),
            o2 in [operand(), operand()],
            o4 in [operand(), operand(), operand(), operand()],
        ) {
            check(es, shape, pad, dst, [o1], seed)?;
            check(es, shape, pad, dst, o2, seed)?;
            check(es, shape, pad, dst, o4, seed)?;
        }
    }
}
