//! The shared driver of every element-wise vector instruction, and its kernels.
//!
//! One [`VecOp`] is one decoded instruction. Construction checks the General Restrictions once
//! (element types per chip, ranges, scope, 32-byte alignment, tensor bounds, overlap: one
//! repeat full or none; several repeats no dst-of-N-is-src-of-N+1 chain, except the documented
//! accumulate form `dst = src0 ∘ dst` with zero rep strides), resolves the mask (normal or
//! counter mode; `isSetMask = false` defers it to run time, when the same checks run), and picks
//! the kernel pair for the element type from the instruction table. Execution walks repeats,
//! blocks and strides (asc-devkit `SIMD计算说明/高维切分.md`, `掩码/*.md`;
//! `shared/research/ascend-vector.md` §1) and hands the kernel runs of lanes that are
//! contiguous in every operand: a whole repeat when block strides are 1, a block otherwise, and
//! the whole instruction at once when every operand is contiguous across repeats and the mask is
//! full. Masked-off lanes are never written.
//!
//! Every kernel has a plain twin ([`VecOp::execute_reference`]: the same instruction one lane at a
//! time, addresses from the documented formula, element conversions through `half` and
//! `npusim_core::convert`); property tests hold the two equal.
//!
//! Overflow (chip profile): in saturating mode a float result that is ±inf becomes ±max of the
//! element type and NaN becomes 0; conversions to a float follow the same mode; float → integer
//! conversions clamp and send NaN to 0; integer → integer conversions wrap (precision_conversion.md:
//! int16 → uint8 keeps the low bits).

use crate::core::{Operand, VectorCore, check};
use crate::elem;
use crate::error::{AscendError, Result};
use crate::geometry::{BLOCK_BYTES, REPEAT_BYTES, Walk, overlaps};
use crate::isa::{CastRound, Instr, Shape, check_cast};
use crate::mask::{self, LaneMask, MaskArg, MaskRegister};
use crate::ops::Scalar;
use crate::ops::ScalarBits;
use half::{bf16, f16};
use npusim_core::convert::{Saturation, convert_bits};
use npusim_core::{ChipProfile, ElemType, MemSpace, OverflowMode, RoundMode, fastconv};

/// What a kernel needs besides its operands.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ctx {
    /// The scalar operand as f32 (float domain).
    pub scalar_f: f32,
    /// The scalar operand as a value (integer domain) or raw bits (`bits` domain).
    pub scalar_i: i64,
    /// The chip's overflow mode.
    pub mode: OverflowMode,
    /// Conversion rounding.
    pub round: RoundMode,
    /// Source and destination element types (they differ only for conversions).
    pub src_t: ElemType,
    pub dst_t: ElemType,
    /// SetDeqScale's scale, read from the core when the instruction runs.
    pub deq: f32,
}

/// A kernel: `dst` and the two sources hold the same number of lanes, contiguous, as
/// little-endian bytes of their element types (`b` is empty when there is no second tensor).
pub type Kernel = fn(&Ctx, &mut [u8], &[u8], &[u8]);

// ---------------------------------------------------------------------------------------------
// Element I/O

/// A float element type computed in f32.
pub trait FloatIo {
    const SIZE: usize;
    /// True for f16 (unary ops may go through a table of every input).
    const IS_F16: bool = false;
    /// True for f32 (the fast kernel works on the memory's f32 lanes in place).
    const IS_F32: bool = false;
    /// Largest finite value, as f32.
    const MAX: f32;
    /// Fast slice widening.
    fn load(b: &[u8], out: &mut [f32]);
    /// Fast slice narrowing (round to nearest even).
    fn store(v: &[f32], out: &mut [u8]);
    /// One element through the plain conversions.
    fn load_one(b: &[u8]) -> f32;
    /// One element through the plain conversions.
    fn store_one(v: f32, out: &mut [u8]);
    /// `v` rounded to the element type (to nearest even), as f32.
    #[inline(always)]
    fn narrow(v: f32) -> f32 {
        let mut t = [0u8; 4];
        Self::store_one(v, &mut t);
        Self::load_one(&t)
    }
}

pub struct F16Io;
impl FloatIo for F16Io {
    const SIZE: usize = 2;
    const IS_F16: bool = true;
    const MAX: f32 = 65504.0;
    #[inline]
    fn load(b: &[u8], out: &mut [f32]) {
        fastconv::f16_bytes_to_f32(b, out)
    }
    #[inline]
    fn store(v: &[f32], out: &mut [u8]) {
        fastconv::f32_to_f16_bytes(v, out)
    }
    fn load_one(b: &[u8]) -> f32 {
        f16::from_le_bytes([b[0], b[1]]).to_f32()
    }
    fn store_one(v: f32, out: &mut [u8]) {
        out[..2].copy_from_slice(&f16::from_f32(v).to_le_bytes())
    }
}

pub struct Bf16Io;
impl FloatIo for Bf16Io {
    const SIZE: usize = 2;
    const MAX: f32 = 3.389_531_4e38;
    #[inline]
    fn load(b: &[u8], out: &mut [f32]) {
        fastconv::bf16_bytes_to_f32(b, out)
    }
    #[inline]
    fn store(v: &[f32], out: &mut [u8]) {
        fastconv::f32_to_bf16_bytes(v, out)
    }
    fn load_one(b: &[u8]) -> f32 {
        bf16::from_le_bytes([b[0], b[1]]).to_f32()
    }
    fn store_one(v: f32, out: &mut [u8]) {
        out[..2].copy_from_slice(&bf16::from_f32(v).to_le_bytes())
    }
}

pub struct F32Io;
impl FloatIo for F32Io {
    const SIZE: usize = 4;
    const IS_F32: bool = true;
    const MAX: f32 = f32::MAX;
    #[inline]
    fn load(b: &[u8], out: &mut [f32]) {
        for (o, c) in out.iter_mut().zip(b.chunks_exact(4)) {
            *o = f32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        }
    }
    #[inline]
    fn store(v: &[f32], out: &mut [u8]) {
        for (x, c) in v.iter().zip(out.chunks_exact_mut(4)) {
            c.copy_from_slice(&x.to_le_bytes());
        }
    }
    fn load_one(b: &[u8]) -> f32 {
        f32::from_le_bytes([b[0], b[1], b[2], b[3]])
    }
    fn store_one(v: f32, out: &mut [u8]) {
        out[..4].copy_from_slice(&v.to_le_bytes())
    }
}

/// An integer element type computed as a wrapping i64 (or raw bits).
pub trait IntIo {
    const SIZE: usize;
    fn load_one(b: &[u8]) -> i64;
    fn store_one(v: i64, out: &mut [u8]);
}

macro_rules! int_io {
    ($($name:ident: $t:ty),*) => {$(
        pub struct $name;
        impl IntIo for $name {
            const SIZE: usize = std::mem::size_of::<$t>();
            #[inline(always)]
            fn load_one(b: &[u8]) -> i64 {
                let mut a = [0u8; std::mem::size_of::<$t>()];
                a.copy_from_slice(&b[..std::mem::size_of::<$t>()]);
                <$t>::from_le_bytes(a) as i64
            }
            #[inline(always)]
            fn store_one(v: i64, out: &mut [u8]) {
                out[..std::mem::size_of::<$t>()].copy_from_slice(&(v as $t).to_le_bytes());
            }
        }
    )*};
}
int_io!(I8Io: i8, U8Io: u8, I16Io: i16, U16Io: u16, I32Io: i32, U32Io: u32, I64Io: i64, U64Io: u64);

// ---------------------------------------------------------------------------------------------
// Kernels

/// An element function in the float domain, adapted to (src0, src1-or-scalar, dst).
pub trait FloatOp {
    fn apply(a: f32, b: f32, d: f32) -> f32;
    /// True for rows that round an intermediate to the element type (the ternary fused
    /// forms, [`elem`] policy `product-in-element-type`): on f16/bf16 both kernels then run
    /// [`FloatOp::apply_narrow`] lane by lane.
    const NARROWS: bool = false;
    /// The element function with `narrow` rounding its intermediate to the element type.
    #[inline(always)]
    fn apply_narrow(a: f32, b: f32, d: f32, narrow: fn(f32) -> f32) -> f32 {
        let _ = narrow;
        Self::apply(a, b, d)
    }
    /// For unary instructions: the result for every f16 input, built once from the plain
    /// kernel (so the fast path equals the plain twin by construction).
    fn f16_table(_mode: OverflowMode) -> Option<&'static [u16]> {
        None
    }
    /// For unary rows: the vectorised f16 form of the element function, if it has one
    /// ([`elem::chunk::f16_form`]); it falls back on the table lane by lane.
    const F16_FORM: Option<elem::chunk::F16Form> = None;
    /// The element function over a contiguous f32 chunk (`x` in, result out in `x`); unary
    /// rows use the slice forms of [`elem::chunk`].
    #[inline(always)]
    fn apply_chunk(x: &mut [f32], y: &[f32], z: &[f32]) {
        for k in 0..x.len() {
            x[k] = Self::apply(x[k], y[k], z[k]);
        }
    }
    /// For unary rows: the element function from `x` into `o` (same length), the slice forms
    /// of [`elem::chunk::from`]; by default a copy and [`FloatOp::apply_chunk`].
    #[inline(always)]
    fn apply_from(x: &[f32], o: &mut [f32]) {
        static ZERO: [f32; CHUNK] = [0.0; CHUNK];
        for (oc, xc) in o.chunks_mut(CHUNK).zip(x.chunks(CHUNK)) {
            let m = oc.len().min(xc.len());
            oc[..m].copy_from_slice(&xc[..m]);
            Self::apply_chunk(&mut oc[..m], &ZERO[..m], &ZERO[..m]);
        }
    }
}

/// Builds the table of a unary float op on f16 under `mode` from the plain kernel: the result
/// for every input bit pattern, then one padding entry (for 32-bit gathers).
pub fn build_f16_table<OP: FloatOp>(mode: OverflowMode) -> Box<[u16]> {
    let ctx = Ctx {
        scalar_f: 0.0,
        scalar_i: 0,
        mode,
        round: RoundMode::Rint,
        src_t: ElemType::F16,
        dst_t: ElemType::F16,
        deq: 1.0,
    };
    let src: Vec<u8> = (0..=u16::MAX).flat_map(|b| b.to_le_bytes()).collect();
    let mut out = vec![0u8; src.len()];
    ref_float::<F16Io, OP, SRC_UNARY, false>(&ctx, &mut out, &src, &[]);
    out.chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .chain([0]) // padding for 32-bit gathers
        .collect()
}
/// An element function in the integer / bits domain, adapted to (src0, src1-or-scalar, dst).
pub trait IntOp {
    fn apply(a: i64, b: i64, d: i64) -> i64;
}

/// Where the second operand comes from.
pub const SRC_NONE: u8 = 0;
pub const SRC_UNARY: u8 = 1;
pub const SRC_TENSOR: u8 = 2;
pub const SRC_SCALAR: u8 = 3;
/// No tensor source; the scalar is the second operand (Duplicate).
pub const SRC_DUP: u8 = 4;

const CHUNK: usize = 256;

#[inline(always)]
fn saturate(vals: &mut [f32], max: f32) {
    for v in vals.iter_mut() {
        *v = if v.is_nan() { 0.0 } else { v.clamp(-max, max) };
    }
}

#[inline(always)]
fn saturate_one(v: f32, max: f32) -> f32 {
    if v.is_nan() { 0.0 } else { v.clamp(-max, max) }
}

/// The fast float kernel: slices widened to f32 in chunks, the element function over the chunk
/// (a loop the compiler vectorises), saturation, narrowing.
fn run_float<IO: FloatIo, OP: FloatOp, const SRC: u8, const RD: bool>(
    ctx: &Ctx,
    dst: &mut [u8],
    a: &[u8],
    b: &[u8],
) {
    if OP::NARROWS && !IO::IS_F32 {
        // The product is rounded to the element type: the plain kernel is the kernel.
        ref_float::<IO, OP, SRC, RD>(ctx, dst, a, b);
        return;
    }
    if IO::IS_F16
        && SRC == SRC_UNARY
        && !RD
        && let Some(t) = OP::f16_table(ctx.mode)
    {
        // The table holds one padding entry after the 65536 results (for 32-bit gathers).
        let Some(t) = t.get(..65537) else { return };
        if let (Ok(o), Ok(i)) = (
            bytemuck::try_cast_slice_mut::<u8, u16>(dst),
            bytemuck::try_cast_slice::<u8, u16>(a),
        ) {
            let done = match OP::F16_FORM {
                Some(f) => f(t, o, i),
                None => 0,
            };
            let (o, i) = (&mut o[done..], i.get(done..).unwrap_or(&[]));
            table_lookup(t, o, i);
            return;
        }
        for (o, i) in dst.chunks_exact_mut(2).zip(a.chunks_exact(2)) {
            let v = t[u16::from_le_bytes([i[0], i[1]]) as usize];
            o.copy_from_slice(&v.to_le_bytes());
        }
        return;
    }
    if IO::IS_F32
        && let (Ok(o), Ok(x), Ok(y)) = (
            bytemuck::try_cast_slice_mut::<u8, f32>(dst),
            f32_view(a),
            f32_view(b),
        )
    {
        run_f32_lanes::<OP, SRC, RD>(ctx, o, x, y);
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if IO::IS_F16
        && std::arch::is_x86_feature_detected!("avx2")
        && std::arch::is_x86_feature_detected!("f16c")
        && std::arch::is_x86_feature_detected!("fma")
    {
        // SAFETY: the features were detected at run time.
        unsafe { f16_lanes_x86::<OP, SRC, RD>(ctx, dst, a, b) };
        return;
    }
    staged::<IO, OP, SRC, RD>(ctx, dst, a, b, IO::load, IO::store)
}

/// Lanes per staged block: small enough that the staging arrays cost nothing to set up for a
/// one-repeat instruction, large enough to amortise a slice element function's dispatch.
const BLOCK: usize = 64;

/// The staged float kernel: blocks of lanes widened to f32, the element function over the
/// block (a loop the compiler vectorises), saturation, narrowing. `load`/`store` convert a
/// block; the driver's tail is the last, shorter block.
#[inline(always)]
fn staged<IO: FloatIo, OP: FloatOp, const SRC: u8, const RD: bool>(
    ctx: &Ctx,
    dst: &mut [u8],
    a: &[u8],
    b: &[u8],
    load: impl Fn(&[u8], &mut [f32]),
    store: impl Fn(&[f32], &mut [u8]),
) {
    let n = dst.len() / IO::SIZE;
    let mut x = [0f32; BLOCK];
    let mut y = [0f32; BLOCK];
    let mut z = [0f32; BLOCK];
    if SRC == SRC_SCALAR || SRC == SRC_DUP {
        y.fill(ctx.scalar_f);
    }
    let mut i = 0;
    while i < n {
        let m = (n - i).min(BLOCK);
        let (lo, hi) = (i * IO::SIZE, (i + m) * IO::SIZE);
        let (x, y, z) = (&mut x[..m], &mut y[..m], &mut z[..m]);
        if SRC != SRC_NONE && SRC != SRC_DUP {
            load(&a[lo..hi], x);
        }
        if SRC == SRC_TENSOR {
            load(&b[lo..hi], y);
        }
        if RD {
            load(&dst[lo..hi], z);
        }
        OP::apply_chunk(x, y, z);
        if ctx.mode == OverflowMode::Saturate {
            saturate(x, IO::MAX);
        }
        store(x, &mut dst[lo..hi]);
        i += m;
    }
}

/// The f16 kernel with the F16C converters inlined (8 lanes per instruction; the last < 8
/// lanes of a block through `half`, as `fastconv` does).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,f16c,fma")]
fn f16_lanes_x86<OP: FloatOp, const SRC: u8, const RD: bool>(
    ctx: &Ctx,
    dst: &mut [u8],
    a: &[u8],
    b: &[u8],
) {
    // Groups of 8 lanes stay in registers: widen, the element function, saturation, narrow.
    let sat = ctx.mode == OverflowMode::Saturate;
    let mut done = 0;
    for (k, d) in dst.chunks_exact_mut(16).enumerate() {
        let (lo, hi) = (16 * k, 16 * k + 16);
        let mut x = [0f32; 8];
        let mut y = [ctx.scalar_f; 8];
        let mut z = [0f32; 8];
        if SRC != SRC_NONE && SRC != SRC_DUP {
            let Some(s) = a.get(lo..hi) else { break };
            x = x86_f16::load8(s);
        }
        if SRC == SRC_TENSOR {
            let Some(s) = b.get(lo..hi) else { break };
            y = x86_f16::load8(s);
        }
        if RD {
            z = x86_f16::load8(d);
        }
        OP::apply_chunk(&mut x, &y, &z);
        if sat {
            saturate(&mut x, F16Io::MAX);
        }
        x86_f16::store8(&x, d);
        done = hi;
    }
    // The last < 8 lanes.
    let (ta, tb) = (a.get(done..).unwrap_or(&[]), b.get(done..).unwrap_or(&[]));
    if let Some(td) = dst.get_mut(done..)
        && !td.is_empty()
    {
        staged::<F16Io, OP, SRC, RD>(
            ctx,
            td,
            ta,
            tb,
            |s, o| x86_f16::load(s, o),
            |v, o| x86_f16::store(v, o),
        )
    }
}

#[cfg(target_arch = "x86_64")]
mod x86_f16 {
    use half::f16;
    use std::arch::x86_64::*;

    /// f16 bytes to f32 (`src.len() == 2 * out.len()`).
    #[inline]
    #[target_feature(enable = "avx2,f16c,fma")]
    pub fn load(src: &[u8], out: &mut [f32]) {
        let n8 = out.len() / 8 * 8;
        for (s, o) in src.chunks_exact(16).zip(out[..n8].chunks_exact_mut(8)) {
            // SAFETY: `s` holds 16 bytes and `o` 8 lanes (unaligned accesses).
            unsafe {
                let h = _mm_loadu_si128(s.as_ptr().cast());
                _mm256_storeu_ps(o.as_mut_ptr(), _mm256_cvtph_ps(h));
            }
        }
        for (k, o) in out.iter_mut().enumerate().skip(n8) {
            *o = f16::from_le_bytes([src[2 * k], src[2 * k + 1]]).to_f32();
        }
    }

    /// 8 lanes of f16 bytes to f32 (`s` holds at least 16 bytes).
    #[inline]
    #[target_feature(enable = "avx2,f16c,fma")]
    pub fn load8(s: &[u8]) -> [f32; 8] {
        let mut o = [0f32; 8];
        if s.len() >= 16 {
            // SAFETY: `s` holds 16 bytes and `o` 8 lanes (unaligned accesses).
            unsafe {
                let h = _mm_loadu_si128(s.as_ptr().cast());
                _mm256_storeu_ps(o.as_mut_ptr(), _mm256_cvtph_ps(h));
            }
        }
        o
    }

    /// 8 lanes of f32 to f16 bytes, round to nearest even (`out` holds at least 16 bytes).
    #[inline]
    #[target_feature(enable = "avx2,f16c,fma")]
    pub fn store8(v: &[f32; 8], out: &mut [u8]) {
        if out.len() >= 16 {
            // SAFETY: `v` holds 8 lanes and `out` 16 bytes (unaligned accesses).
            unsafe {
                let p = _mm256_loadu_ps(v.as_ptr());
                let h = _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(p);
                _mm_storeu_si128(out.as_mut_ptr().cast(), h);
            }
        }
    }

    /// f32 to f16 bytes, round to nearest even (`out.len() == 2 * v.len()`).
    #[inline]
    #[target_feature(enable = "avx2,f16c,fma")]
    pub fn store(v: &[f32], out: &mut [u8]) {
        let n8 = v.len() / 8 * 8;
        for (x, o) in v[..n8].chunks_exact(8).zip(out.chunks_exact_mut(16)) {
            // SAFETY: `x` holds 8 lanes and `o` 16 bytes (unaligned accesses).
            unsafe {
                let p = _mm256_loadu_ps(x.as_ptr());
                let h = _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(p);
                _mm_storeu_si128(o.as_mut_ptr().cast(), h);
            }
        }
        for (k, x) in v.iter().enumerate().skip(n8) {
            out[2 * k..2 * k + 2].copy_from_slice(&f16::from_f32(*x).to_le_bytes());
        }
    }
}

/// `o[k] = t[i[k]]` over f16 bit patterns (little-endian host; `t` holds 65537 entries).
fn table_lookup(t: &[u16], o: &mut [u16], i: &[u16]) {
    let mut done = 0;
    #[cfg(all(target_arch = "x86_64", target_endian = "little"))]
    if t.len() > 65536 && std::arch::is_x86_feature_detected!("avx512f") {
        // SAFETY: the feature was detected at run time; `t` holds 65537 entries.
        done = unsafe { table_lookup_avx512(t, o, i) };
    }
    for (o, i) in o.iter_mut().zip(i).skip(done) {
        *o = t[*i as usize];
    }
}

/// 16 lookups per gather; returns how many lanes were done.
///
/// # Safety
/// `t` must hold at least 65537 entries (a 32-bit gather at entry 65535 reads entry 65536).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn table_lookup_avx512(t: &[u16], o: &mut [u16], i: &[u16]) -> usize {
    use std::arch::x86_64::*;
    let n = o.len().min(i.len()) / 16 * 16;
    for (oc, ic) in o[..n].chunks_exact_mut(16).zip(i.chunks_exact(16)) {
        // SAFETY: `ic` and `oc` hold 16 lanes (unaligned accesses); every index is below
        // 65536, so each 4-byte gather reads inside `t` (at least 65537 entries).
        unsafe {
            let idx = _mm512_cvtepu16_epi32(_mm256_loadu_si256(ic.as_ptr().cast()));
            let g = _mm512_i32gather_epi32::<2>(idx, t.as_ptr().cast());
            _mm256_storeu_si256(oc.as_mut_ptr().cast(), _mm512_cvtepi32_epi16(g));
        }
    }
    n
}

/// A source as f32 lanes; an absent source (empty, whose dangling pointer is not 4-aligned)
/// is an empty view.
fn f32_view(b: &[u8]) -> std::result::Result<&[f32], bytemuck::PodCastError> {
    if b.is_empty() {
        Ok(&[])
    } else {
        bytemuck::try_cast_slice::<u8, f32>(b)
    }
}

/// The f32 fast kernel on the memory's own lanes (32-byte aligned operands; little-endian
/// host): the element function straight from the sources into the destination, one pass, no
/// staging copies; multiversioned for AVX2.
fn run_f32_lanes<OP: FloatOp, const SRC: u8, const RD: bool>(
    ctx: &Ctx,
    o: &mut [f32],
    x: &[f32],
    y: &[f32],
) {
    #[cfg(all(target_arch = "x86_64", target_endian = "little"))]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the feature was detected at run time.
        unsafe { f32_lanes_avx2::<OP, SRC, RD>(ctx, o, x, y) };
        return;
    }
    f32_lanes_body::<OP, SRC, RD>(ctx, o, x, y)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn f32_lanes_avx2<OP: FloatOp, const SRC: u8, const RD: bool>(
    ctx: &Ctx,
    o: &mut [f32],
    x: &[f32],
    y: &[f32],
) {
    f32_lanes_body::<OP, SRC, RD>(ctx, o, x, y)
}

#[inline(always)]
fn f32_lanes_body<OP: FloatOp, const SRC: u8, const RD: bool>(
    ctx: &Ctx,
    o: &mut [f32],
    x: &[f32],
    y: &[f32],
) {
    #[cfg(target_endian = "big")]
    compile_error!("the f32 lane kernel reads memory as host f32");
    let s = ctx.scalar_f;
    if SRC == SRC_UNARY && !RD {
        // One call over the whole run (the slice forms keep their own blocking).
        let m = o.len();
        let Some(xc) = x.get(..m) else { return };
        OP::apply_from(xc, o);
        if ctx.mode == OverflowMode::Saturate {
            saturate(o, f32::MAX);
        }
        return;
    }
    for (k, oc) in o.chunks_mut(CHUNK).enumerate() {
        let m = oc.len();
        let base = k * CHUNK;
        match SRC {
            SRC_TENSOR => {
                let (Some(xc), Some(yc)) = (x.get(base..base + m), y.get(base..base + m)) else {
                    return;
                };
                for ((d, a), b) in oc.iter_mut().zip(xc).zip(yc) {
                    let z = if RD { *d } else { 0.0 };
                    *d = OP::apply(*a, *b, z);
                }
            }
            SRC_SCALAR => {
                let Some(xc) = x.get(base..base + m) else {
                    return;
                };
                for (d, a) in oc.iter_mut().zip(xc) {
                    let z = if RD { *d } else { 0.0 };
                    *d = OP::apply(*a, s, z);
                }
            }
            _ => {
                for (j, d) in oc.iter_mut().enumerate() {
                    let a = if SRC == SRC_NONE || SRC == SRC_DUP {
                        0.0
                    } else {
                        x.get(base + j).copied().unwrap_or(0.0)
                    };
                    let b = if SRC == SRC_DUP { s } else { 0.0 };
                    let z = if RD { *d } else { 0.0 };
                    *d = OP::apply(a, b, z);
                }
            }
        }
        if ctx.mode == OverflowMode::Saturate {
            saturate(oc, f32::MAX);
        }
    }
}

/// The plain twin of [`run_float`]: one element at a time through `half`.
fn ref_float<IO: FloatIo, OP: FloatOp, const SRC: u8, const RD: bool>(
    ctx: &Ctx,
    dst: &mut [u8],
    a: &[u8],
    b: &[u8],
) {
    let s = IO::SIZE;
    for i in 0..dst.len() / s {
        let x = if SRC == SRC_NONE || SRC == SRC_DUP {
            0.0
        } else {
            IO::load_one(&a[i * s..])
        };
        let y = match SRC {
            SRC_TENSOR => IO::load_one(&b[i * s..]),
            SRC_SCALAR | SRC_DUP => ctx.scalar_f,
            _ => 0.0,
        };
        let z = if RD { IO::load_one(&dst[i * s..]) } else { 0.0 };
        let mut r = if OP::NARROWS {
            OP::apply_narrow(x, y, z, IO::narrow)
        } else {
            OP::apply(x, y, z)
        };
        if ctx.mode == OverflowMode::Saturate {
            // Round first, then saturate the rounded value (the fast path saturates first).
            let mut tmp = [0u8; 4];
            IO::store_one(r, &mut tmp);
            r = IO::load_one(&tmp);
            if r.is_infinite() || r.is_nan() {
                r = saturate_one(r, IO::MAX);
            }
        }
        IO::store_one(r, &mut dst[i * s..]);
    }
}

/// The integer kernel (also the `bits` kernel); already one element at a time over typed
/// values, so it is its own twin.
fn run_int<IO: IntIo, OP: IntOp, const SRC: u8, const RD: bool>(
    ctx: &Ctx,
    dst: &mut [u8],
    a: &[u8],
    b: &[u8],
) {
    let s = IO::SIZE;
    for i in 0..dst.len() / s {
        let x = if SRC == SRC_NONE || SRC == SRC_DUP {
            0
        } else {
            IO::load_one(&a[i * s..])
        };
        let y = match SRC {
            SRC_TENSOR => IO::load_one(&b[i * s..]),
            SRC_SCALAR | SRC_DUP => ctx.scalar_i,
            _ => 0,
        };
        let z = if RD { IO::load_one(&dst[i * s..]) } else { 0 };
        IO::store_one(OP::apply(x, y, z), &mut dst[i * s..]);
    }
}

/// The mixed-precision form of a fused row (half sources, float destination; MulAddDst.md,
/// Axpy.md): sources widened exactly, the element function in f32 with nothing rounded to
/// half (the product of two halves is exact in f32; one rounding at the sum), then the chip's
/// overflow mode. `PLAIN` converts lane by lane through `half` (the twin); otherwise the
/// sources are widened a chunk at a time.
fn widen_float<OP: FloatOp, const SRC: u8, const PLAIN: bool>(
    ctx: &Ctx,
    dst: &mut [u8],
    a: &[u8],
    b: &[u8],
) {
    let n = dst.len() / 4;
    let mut x = [0f32; BLOCK];
    let mut y = [ctx.scalar_f; BLOCK];
    let mut i = 0;
    while i < n {
        let m = (n - i).min(BLOCK);
        let (x, y) = (&mut x[..m], &mut y[..m]);
        let (lo, hi) = (2 * i, 2 * (i + m));
        if PLAIN {
            for (k, v) in x.iter_mut().enumerate() {
                *v = F16Io::load_one(&a[lo + 2 * k..]);
            }
            if SRC == SRC_TENSOR {
                for (k, v) in y.iter_mut().enumerate() {
                    *v = F16Io::load_one(&b[lo + 2 * k..]);
                }
            }
        } else {
            F16Io::load(&a[lo..hi], x);
            if SRC == SRC_TENSOR {
                F16Io::load(&b[lo..hi], y);
            }
        }
        for k in 0..m {
            let at = 4 * (i + k);
            let d = F32Io::load_one(&dst[at..]);
            let mut r = OP::apply(x[k], y[k], d);
            if ctx.mode == OverflowMode::Saturate {
                r = saturate_one(r, f32::MAX);
            }
            F32Io::store_one(r, &mut dst[at..]);
        }
        i += m;
    }
}

/// The (fast, plain) kernel pair of a float-domain element function.
pub fn float_kernels<OP: FloatOp, const SRC: u8, const RD: bool>(
    t: ElemType,
) -> Option<(Kernel, Kernel)> {
    Some(match t {
        ElemType::F16 => (
            run_float::<F16Io, OP, SRC, RD>,
            ref_float::<F16Io, OP, SRC, RD>,
        ),
        ElemType::Bf16 => (
            run_float::<Bf16Io, OP, SRC, RD>,
            ref_float::<Bf16Io, OP, SRC, RD>,
        ),
        ElemType::F32 => (
            run_float::<F32Io, OP, SRC, RD>,
            ref_float::<F32Io, OP, SRC, RD>,
        ),
        _ => return None,
    })
}

/// The kernel pair of an integer-domain element function.
pub fn int_kernels<OP: IntOp, const SRC: u8, const RD: bool>(
    t: ElemType,
) -> Option<(Kernel, Kernel)> {
    let k: Kernel = match t {
        ElemType::I8 => run_int::<I8Io, OP, SRC, RD>,
        ElemType::U8 => run_int::<U8Io, OP, SRC, RD>,
        ElemType::I16 => run_int::<I16Io, OP, SRC, RD>,
        ElemType::U16 => run_int::<U16Io, OP, SRC, RD>,
        ElemType::I32 => run_int::<I32Io, OP, SRC, RD>,
        ElemType::U32 => run_int::<U32Io, OP, SRC, RD>,
        ElemType::I64 => run_int::<I64Io, OP, SRC, RD>,
        ElemType::U64 => run_int::<U64Io, OP, SRC, RD>,
        _ => return None,
    };
    Some((k, k))
}

/// The kernel pair of a raw-bits element function (any type, by width).
pub fn bits_kernels<OP: IntOp, const SRC: u8, const RD: bool>(
    t: ElemType,
) -> Option<(Kernel, Kernel)> {
    let k: Kernel = match t.size() {
        1 => run_int::<U8Io, OP, SRC, RD>,
        2 => run_int::<U16Io, OP, SRC, RD>,
        4 => run_int::<U32Io, OP, SRC, RD>,
        _ => run_int::<U64Io, OP, SRC, RD>,
    };
    Some((k, k))
}

// --- conversions ---

/// Saturation of a conversion under the chip's overflow mode (see the module docs).
fn cast_saturation(ctx: &Ctx) -> Saturation {
    if ctx.dst_t.is_float() {
        if ctx.mode == OverflowMode::Saturate {
            Saturation::On
        } else {
            Saturation::Off
        }
    } else if ctx.src_t.is_float() {
        Saturation::On
    } else {
        Saturation::Off
    }
}

/// The plain conversion: every element through `npusim_core::convert::convert_bits`.
fn ref_convert(ctx: &Ctx, dst: &mut [u8], a: &[u8], _b: &[u8]) {
    let (ss, ds) = (ctx.src_t.size(), ctx.dst_t.size());
    let sat = cast_saturation(ctx);
    for i in 0..dst.len() / ds {
        let mut w = [0u8; 8];
        w[..ss].copy_from_slice(&a[i * ss..(i + 1) * ss]);
        let bits = u64::from_le_bytes(w);
        let mut out = convert_bits(bits, ctx.src_t, ctx.dst_t, ctx.round, sat).unwrap_or(0);
        if ctx.dst_t.is_float() && ctx.mode == OverflowMode::Saturate {
            let nan = match ctx.dst_t {
                ElemType::F16 => f16::from_bits(out as u16).is_nan(),
                ElemType::Bf16 => bf16::from_bits(out as u16).is_nan(),
                _ => f32::from_bits(out as u32).is_nan(),
            };
            if nan {
                out = 0;
            }
        }
        dst[i * ds..(i + 1) * ds].copy_from_slice(&out.to_le_bytes()[..ds]);
    }
}

/// f32 → f16 with round to nearest even through the vectorised narrowing.
fn fast_f32_to_f16(ctx: &Ctx, dst: &mut [u8], a: &[u8], _b: &[u8]) {
    let n = dst.len() / 2;
    let mut x = [0f32; CHUNK];
    let mut i = 0;
    while i < n {
        let m = (n - i).min(CHUNK);
        let x = &mut x[..m];
        F32Io::load(&a[i * 4..(i + m) * 4], x);
        if ctx.mode == OverflowMode::Saturate {
            saturate(x, F16Io::MAX);
        }
        F16Io::store(x, &mut dst[i * 2..(i + m) * 2]);
        i += m;
    }
}

/// f16 → f32 (exact) through the vectorised widening.
fn fast_f16_to_f32(ctx: &Ctx, dst: &mut [u8], a: &[u8], _b: &[u8]) {
    let n = dst.len() / 4;
    let mut x = [0f32; CHUNK];
    let mut i = 0;
    while i < n {
        let m = (n - i).min(CHUNK);
        let x = &mut x[..m];
        F16Io::load(&a[i * 2..(i + m) * 2], x);
        if ctx.mode == OverflowMode::Saturate {
            saturate(x, f32::MAX);
        }
        F32Io::store(x, &mut dst[i * 4..(i + m) * 4]);
        i += m;
    }
}

/// int32 -> half with SetDeqScale: `half(src · scale)`, the exact product rounded once to
/// nearest even (policy: the page gives no rounding), then the overflow mode.
fn deq_i32_to_f16(ctx: &Ctx, dst: &mut [u8], a: &[u8], _b: &[u8]) {
    for (o, i) in dst.chunks_exact_mut(2).zip(a.chunks_exact(4)) {
        let x = i32::from_le_bytes([i[0], i[1], i[2], i[3]]) as f64 * ctx.deq as f64;
        let mut h = f16::from_f64(x);
        if ctx.mode == OverflowMode::Saturate && (h.is_infinite() || h.is_nan()) {
            h = if h.is_nan() {
                f16::ZERO
            } else if h.is_sign_negative() {
                f16::MIN
            } else {
                f16::MAX
            };
        }
        o.copy_from_slice(&h.to_le_bytes());
    }
}

/// The kernel pair of a conversion.
pub fn convert_kernels(src: ElemType, dst: ElemType, round: RoundMode) -> (Kernel, Kernel) {
    if (src, dst) == (ElemType::I32, ElemType::F16) {
        return (deq_i32_to_f16, deq_i32_to_f16);
    }
    let fast: Kernel = match (src, dst, round) {
        (ElemType::F32, ElemType::F16, RoundMode::Rint) => fast_f32_to_f16,
        (ElemType::F16, ElemType::F32, _) => fast_f16_to_f32,
        _ => ref_convert,
    };
    (fast, ref_convert)
}

// --- the table's element functions as kernel ops ---

/// One zero-sized type per table row, implementing the row's element function for its domain.
pub mod rows {
    use super::*;

    macro_rules! row_ops {
        ($( $id:ident, $shape:ident, $tik:ident, $legacy:ident, $asc:ident, $asc_rep:ident,
            $dom:ident($elem:ident), $doc:literal, $([$chips:expr => $types:expr]),+ $(=> widen $w:expr)? ; )*) => {
            $( row_ops!(@row $id, $shape, $dom, $elem); )*
        };
        (@row $id:ident, $shape:ident, none, $elem:ident) => {};
        (@row $id:ident, Unary, float, $elem:ident) => {
            #[doc = concat!("Row `", stringify!($id), "`.")]
            pub struct $id;
            impl FloatOp for $id {
                const F16_FORM: Option<elem::chunk::F16Form> = elem::chunk::f16_form(stringify!($elem));
                #[inline(always)]
                fn apply(a: f32, b: f32, d: f32) -> f32 { row_ops!(@call Unary, elem::$elem, a, b, d) }
                #[inline(always)]
                fn apply_chunk(x: &mut [f32], _y: &[f32], _z: &[f32]) { elem::chunk::$elem(x) }
                #[inline(always)]
                fn apply_from(x: &[f32], o: &mut [f32]) { elem::chunk::from::$elem(x, o) }
                fn f16_table(mode: OverflowMode) -> Option<&'static [u16]> {
                    static TABLES: [std::sync::OnceLock<Box<[u16]>>; 2] =
                        [std::sync::OnceLock::new(), std::sync::OnceLock::new()];
                    let k = usize::from(mode == OverflowMode::Saturate);
                    Some(TABLES[k].get_or_init(|| build_f16_table::<$id>(mode)))
                }
            }
        };
        (@row $id:ident, $shape:ident, num, $elem:ident) => {
            #[doc = concat!("Row `", stringify!($id), "`.")]
            pub struct $id;
            impl FloatOp for $id {
                #[inline(always)]
                fn apply(a: f32, b: f32, d: f32) -> f32 { row_ops!(@call $shape, elem::$elem, a, b, d) }
            }
            impl IntOp for $id {
                #[inline(always)]
                fn apply(a: i64, b: i64, d: i64) -> i64 { row_ops!(@call $shape, elem::$elem, a, b, d) }
            }
        };
        (@row $id:ident, Ternary, float, $elem:ident) => {
            #[doc = concat!("Row `", stringify!($id), "`.")]
            pub struct $id;
            impl FloatOp for $id {
                const NARROWS: bool = true;
                #[inline(always)]
                fn apply(a: f32, b: f32, d: f32) -> f32 { elem::$elem(a, b, d, |v| v) }
                #[inline(always)]
                fn apply_narrow(a: f32, b: f32, d: f32, narrow: fn(f32) -> f32) -> f32 {
                    elem::$elem(a, b, d, narrow)
                }
            }
        };
        (@row $id:ident, $shape:ident, float, $elem:ident) => {
            #[doc = concat!("Row `", stringify!($id), "`.")]
            pub struct $id;
            impl FloatOp for $id {
                #[inline(always)]
                fn apply(a: f32, b: f32, d: f32) -> f32 { row_ops!(@call $shape, elem::$elem, a, b, d) }
            }
        };
        (@row $id:ident, $shape:ident, int, $elem:ident) => {
            #[doc = concat!("Row `", stringify!($id), "`.")]
            pub struct $id;
            impl IntOp for $id {
                #[inline(always)]
                fn apply(a: i64, b: i64, d: i64) -> i64 { row_ops!(@call $shape, elem::$elem, a, b, d) }
            }
        };
        (@row $id:ident, $shape:ident, bits, $elem:ident) => { row_ops!(@row $id, $shape, int, $elem); };
        (@call Binary, $f:path, $a:ident, $b:ident, $d:ident) => {{ let _ = $d; $f($a, $b) }};
        (@call BinaryAcc, $f:path, $a:ident, $b:ident, $d:ident) => {{ let _ = $d; $f($a, $b) }};
        (@call Scalar, $f:path, $a:ident, $b:ident, $d:ident) => {{ let _ = $d; $f($a, $b) }};
        (@call Dup, $f:path, $a:ident, $b:ident, $d:ident) => {{ let _ = $d; $f($a, $b) }};
        (@call Unary, $f:path, $a:ident, $b:ident, $d:ident) => {{ let _ = ($b, $d); $f($a) }};
        (@call Ternary, $f:path, $a:ident, $b:ident, $d:ident) => { $f($a, $b, $d) };
        (@call ScalarDst, $f:path, $a:ident, $b:ident, $d:ident) => { $f($a, $b, $d) };
        (@call WholeReduce, $f:path, $a:ident, $b:ident, $d:ident) => {{ let _ = $d; $f($a, $b) }};
        (@call RepeatReduce, $f:path, $a:ident, $b:ident, $d:ident) => {{ let _ = $d; $f($a, $b) }};
        (@call BlockReduce, $f:path, $a:ident, $b:ident, $d:ident) => {{ let _ = $d; $f($a, $b) }};
        (@call ReduceAll, $f:path, $a:ident, $b:ident, $d:ident) => {{ let _ = $d; $f($a, $b) }};
    }

    crate::for_each_vector_instr!(row_ops);
}

macro_rules! kernel_dispatch {
    ($( $id:ident, $shape:ident, $tik:ident, $legacy:ident, $asc:ident, $asc_rep:ident,
        $dom:ident($elem:ident), $doc:literal, $([$chips:expr => $types:expr]),+ $(=> widen $w:expr)? ; )*) => {
        /// The (fast, plain) kernels of an element-wise instruction for an element type; `None`
        /// for the shapes with their own kernels and for types the domain does not cover.
        pub fn kernels(instr: Instr, t: ElemType) -> Option<(Kernel, Kernel)> {
            match instr {
                $( Instr::$id => kernel_dispatch!(@k $shape, $dom, $id, t), )*
            }
        }

        /// The (fast, plain) kernels of a fused row's mixed-precision form (half sources,
        /// float destination); `None` for the other rows.
        pub fn widen_kernels(instr: Instr) -> Option<(Kernel, Kernel)> {
            match instr {
                $( Instr::$id => kernel_dispatch!(@w $shape, $dom, $id), )*
            }
        }
    };
    (@w Ternary, float, $id:ident) => {
        Some((widen_float::<rows::$id, SRC_TENSOR, false>, widen_float::<rows::$id, SRC_TENSOR, true>))
    };
    (@w ScalarDst, float, $id:ident) => {
        Some((widen_float::<rows::$id, SRC_SCALAR, false>, widen_float::<rows::$id, SRC_SCALAR, true>))
    };
    (@w $shape:ident, $dom:ident, $id:ident) => { None };
    (@k $shape:ident, none, $id:ident, $t:ident) => { None };
    (@k $shape:ident, num, $id:ident, $t:ident) => {
        float_kernels::<rows::$id, { kernel_dispatch!(@src $shape) }, { kernel_dispatch!(@rd $shape) }>($t)
            .or_else(|| int_kernels::<rows::$id, { kernel_dispatch!(@src $shape) }, { kernel_dispatch!(@rd $shape) }>($t))
    };
    (@k $shape:ident, float, $id:ident, $t:ident) => {
        float_kernels::<rows::$id, { kernel_dispatch!(@src $shape) }, { kernel_dispatch!(@rd $shape) }>($t)
    };
    (@k $shape:ident, int, $id:ident, $t:ident) => {
        int_kernels::<rows::$id, { kernel_dispatch!(@src $shape) }, { kernel_dispatch!(@rd $shape) }>($t)
    };
    (@k $shape:ident, bits, $id:ident, $t:ident) => {
        bits_kernels::<rows::$id, { kernel_dispatch!(@src $shape) }, { kernel_dispatch!(@rd $shape) }>($t)
    };
    (@src Binary) => { SRC_TENSOR };
    (@src BinaryAcc) => { SRC_TENSOR };
    (@src Ternary) => { SRC_TENSOR };
    (@src Unary) => { SRC_UNARY };
    (@src Scalar) => { SRC_SCALAR };
    (@src ScalarDst) => { SRC_SCALAR };
    (@src Dup) => { SRC_DUP };
    (@src $other:ident) => { SRC_NONE };
    (@rd Ternary) => { true };
    (@rd ScalarDst) => { true };
    (@rd $other:ident) => { false };
}

crate::for_each_vector_instr!(kernel_dispatch);

// ---------------------------------------------------------------------------------------------
// The driver

/// Which API spells the parameters in messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Face {
    Tik,
    AscendC,
}

/// Parameter names per face: repeat, then blk and rep strides of dst, src0, src1.
fn param_names(face: Face, nsrc: usize) -> [&'static str; 7] {
    match (face, nsrc) {
        (Face::Tik, 2) => [
            "repeat_times",
            "dst_blk_stride",
            "src0_blk_stride",
            "src1_blk_stride",
            "dst_rep_stride",
            "src0_rep_stride",
            "src1_rep_stride",
        ],
        (Face::Tik, _) => [
            "repeat_times",
            "dst_blk_stride",
            "src_blk_stride",
            "src1_blk_stride",
            "dst_rep_stride",
            "src_rep_stride",
            "src1_rep_stride",
        ],
        (Face::AscendC, 2) => [
            "repeatTime",
            "dstBlkStride",
            "src0BlkStride",
            "src1BlkStride",
            "dstRepStride",
            "src0RepStride",
            "src1RepStride",
        ],
        (Face::AscendC, _) => [
            "repeatTime",
            "dstBlkStride",
            "srcBlkStride",
            "src1BlkStride",
            "dstRepStride",
            "srcRepStride",
            "src1RepStride",
        ],
    }
}

/// Operand names per face.
fn operand_names(face: Face, nsrc: usize) -> [&'static str; 3] {
    match (face, nsrc) {
        (Face::Tik, 2) => ["dst", "src0", "src1"],
        (Face::Tik, _) => ["dst", "src", "src1"],
        (Face::AscendC, 2) => ["dst", "src0", "src1"],
        (Face::AscendC, _) => ["dst", "src", "src1"],
    }
}

/// The arguments of one element-wise instruction call, as the faces collect them.
#[derive(Clone, Debug)]
pub struct VecArgs<'a> {
    pub instr: Instr,
    /// The spelling used in messages (`vec_add`, `vadd`, `Add`).
    pub name: &'static str,
    pub face: Face,
    pub dst: &'a Operand,
    /// Tensor sources (as many as the shape has).
    pub srcs: &'a [&'a Operand],
    pub scalar: Option<Scalar>,
    pub round: CastRound,
    pub mask: MaskArg,
    pub is_set_mask: bool,
    pub repeat: i64,
    /// Block strides of dst, src0, src1, in 32-byte blocks.
    pub blk: [i64; 3],
    /// Repeat strides of dst, src0, src1, in 32-byte blocks.
    pub rep: [i64; 3],
    /// Largest legal block stride (255 for TIK and BinaryRepeatParams, 65535 for
    /// UnaryRepeatParams).
    pub blk_max: i64,
}

/// Where the lanes come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MaskSource {
    /// Fixed when the call was checked.
    Fixed(LaneMask),
    /// The mask register at run time (`isSetMask = false`).
    Register,
}

/// A decoded, checked element-wise instruction.
#[derive(Clone, Debug)]
pub struct VecOp {
    pub instr: Instr,
    pub name: &'static str,
    pub dst: Operand,
    pub srcs: Vec<Operand>,
    pub repeat: u32,
    pub mask: MaskSource,
    /// Lanes per repeat (256 bytes of the wider type).
    pub lanes: u32,
    /// Walks of dst and each source.
    pub(crate) walks: [Walk; 3],
    pub(crate) names: [&'static str; 3],
    ctx: Ctx,
    fast: Kernel,
    plain: Kernel,
    /// Lanes per run that is contiguous in every operand.
    gran: u32,
    /// Every operand contiguous from one repeat to the next.
    contiguous: bool,
    /// The mixed-precision form (half sources, float destination).
    widened: bool,
}

impl PartialEq for VecOp {
    fn eq(&self, o: &Self) -> bool {
        self.instr == o.instr
            && self.dst == o.dst
            && self.srcs == o.srcs
            && self.repeat == o.repeat
            && self.mask == o.mask
            && self.walks == o.walks
            && self.ctx == o.ctx
    }
}

impl VecOp {
    /// Checks a call for `chip` and decodes it.
    pub fn new(chip: &ChipProfile, a: &VecArgs<'_>) -> Result<VecOp> {
        let shape = a.instr.shape();
        let name = a.name;
        let nsrc = shape.tensor_sources();
        let names = operand_names(a.face, nsrc);
        let pnames = param_names(a.face, nsrc);
        if a.srcs.len() != nsrc {
            return Err(AscendError::Rule {
                instr: name,
                param: "src",
                value: a.srcs.len().to_string(),
                rule: "wrong number of source tensors for this instruction",
            });
        }
        // Element types.
        let src_t = a.srcs.first().map_or(a.dst.dtype, |s| s.dtype);
        // The mixed-precision form of a fused row: half sources into a float destination on
        // the chips the row's `widen` column names.
        let widened = a.dst.dtype == ElemType::F32
            && !a.srcs.is_empty()
            && a.srcs.iter().all(|s| s.dtype == ElemType::F16)
            && a.instr.widen_chips().contains(&chip.id);
        if shape == Shape::Convert {
            check_cast(name, chip.id, src_t, a.dst.dtype, a.round)?;
        } else if widened {
            a.instr.check_type(name, chip.id, names[0], a.dst.dtype)?;
        } else {
            a.instr.check_type(name, chip.id, names[0], a.dst.dtype)?;
            for (k, s) in a.srcs.iter().enumerate() {
                check::same_type(name, names[k + 1], s, names[0], a.dst.dtype)?;
            }
        }
        let widen = if widened {
            widen_kernels(a.instr)
        } else {
            None
        };
        let (fast, plain) = if shape == Shape::Convert {
            convert_kernels(src_t, a.dst.dtype, a.round.mode())
        } else if let Some(k) = widen {
            k
        } else {
            kernels(a.instr, a.dst.dtype).ok_or_else(|| AscendError::IllegalType {
                instr: name,
                param: names[0],
                dtype: a.dst.dtype,
                chip: chip.id,
                legal: "a type this instruction computes on".into(),
            })?
        };
        // Ranges.
        let repeat = check::range(name, pnames[0], a.repeat, 0, 255, "[0, 255]")?;
        let mut blk = [1u32; 3];
        let mut rep = [0u32; 3];
        let blk_text = if a.blk_max == 255 {
            "[0, 255]"
        } else {
            "[0, 65535]"
        };
        for k in 0..=nsrc {
            blk[k] = check::range(name, pnames[1 + k], a.blk[k], 0, a.blk_max, blk_text)?;
            rep[k] = check::range(name, pnames[4 + k], a.rep[k], 0, 255, "[0, 255]")?;
        }
        if blk[0] == 0 {
            return Err(AscendError::Rule {
                instr: name,
                param: pnames[1],
                value: "0".into(),
                rule: "a destination block stride of 0 is undefined behaviour (高维切分)",
            });
        }
        // Scope and alignment.
        let ops: Vec<&Operand> = std::iter::once(a.dst)
            .chain(a.srcs.iter().copied())
            .collect();
        for (k, op) in ops.iter().enumerate() {
            check::scope(name, names[k], op, MemSpace::Ub)?;
            check::align(chip, name, names[k], op)?;
        }
        // Scalar.
        let (scalar_f, scalar_i) = match (shape.has_scalar(), a.scalar) {
            (true, Some(s)) => {
                // The scalar has the source type (`const U& scalarValue`; the same as dst but
                // in the mixed-precision form).
                let t = if widened { src_t } else { a.dst.dtype };
                let bits = s.to_bits(name, "scalar", t)?;
                let f = match t {
                    ElemType::F16 => f16::from_bits(bits as u16).to_f32(),
                    ElemType::Bf16 => bf16::from_bits(bits as u16).to_f32(),
                    ElemType::F32 => f32::from_bits(bits as u32),
                    _ => 0.0,
                };
                let i = if shape == Shape::Dup || t.is_float() {
                    bits as i64
                } else {
                    let mut w = [0u8; 8];
                    w.copy_from_slice(&bits.to_le_bytes());
                    match t.size() {
                        1 if t.is_signed_int() => bits as u8 as i8 as i64,
                        2 if t.is_signed_int() => bits as u16 as i16 as i64,
                        4 if t.is_signed_int() => bits as u32 as i32 as i64,
                        _ => bits as i64,
                    }
                };
                (f, i)
            }
            (true, None) => {
                return Err(AscendError::Rule {
                    instr: name,
                    param: "scalar",
                    value: "none".into(),
                    rule: "this instruction takes a scalar",
                });
            }
            _ => (0.0, 0),
        };
        let wide = ops.iter().map(|o| o.dtype.size()).max().unwrap_or(1);
        let lanes = (REPEAT_BYTES as usize / wide) as u32;
        let mut walks = [Walk {
            base: 0,
            blk_stride: BLOCK_BYTES,
            rep_stride: 0,
            elem_size: 1,
        }; 3];
        for (k, op) in ops.iter().enumerate() {
            walks[k] = Walk {
                base: op.addr(),
                blk_stride: blk[k] as u64 * BLOCK_BYTES,
                rep_stride: rep[k] as u64 * BLOCK_BYTES,
                elem_size: op.dtype.size() as u64,
            };
        }
        let gran = ops
            .iter()
            .enumerate()
            .map(|(k, op)| {
                if blk[k] == 1 {
                    lanes
                } else {
                    (BLOCK_BYTES as usize / op.dtype.size()) as u32
                }
            })
            .min()
            .unwrap_or(lanes);
        let contiguous = ops.iter().enumerate().all(|(k, op)| {
            blk[k] == 1 && rep[k] as u64 * BLOCK_BYTES == lanes as u64 * op.dtype.size() as u64
        });
        let mask_src = if a.is_set_mask {
            MaskSource::Fixed(mask::resolve(
                name,
                a.mask,
                lanes,
                true,
                MaskRegister::default(),
            )?)
        } else {
            mask::resolve(name, a.mask, lanes, false, MaskRegister::default())?;
            MaskSource::Register
        };
        let op = VecOp {
            instr: a.instr,
            name,
            dst: a.dst.clone(),
            srcs: a.srcs.iter().map(|s| (*s).clone()).collect(),
            repeat,
            mask: mask_src,
            lanes,
            walks,
            names,
            ctx: Ctx {
                scalar_f,
                scalar_i,
                mode: chip.vector.overflow_mode,
                round: a.round.mode(),
                src_t,
                dst_t: a.dst.dtype,
                deq: 1.0,
            },
            fast,
            plain,
            gran,
            contiguous,
            widened,
        };
        if let MaskSource::Fixed(m) = mask_src {
            op.check_memory(m)?;
        }
        Ok(op)
    }

    /// The counter-mode form of Ascend C (`Add(dst, src0, src1, count)`): the first `count`
    /// elements, contiguous.
    #[allow(clippy::too_many_arguments)]
    pub fn count(
        chip: &ChipProfile,
        instr: Instr,
        name: &'static str,
        dst: &Operand,
        srcs: &[&Operand],
        scalar: Option<Scalar>,
        round: CastRound,
        count: i64,
    ) -> Result<VecOp> {
        check::range(name, "count", count, 0, u32::MAX as i64, "[0, 2^32)")?;
        let wide = std::iter::once(dst)
            .chain(srcs.iter().copied())
            .map(|o| o.dtype.size())
            .max()
            .unwrap_or(1) as i64;
        let lanes = 256 / wide;
        let rep_of = |o: &Operand| lanes * o.dtype.size() as i64 / 32;
        let mut rep = [8i64; 3];
        rep[0] = rep_of(dst);
        for (k, s) in srcs.iter().enumerate() {
            rep[k + 1] = rep_of(s);
        }
        let op = VecOp::new(
            chip,
            &VecArgs {
                instr,
                name,
                face: Face::AscendC,
                dst,
                srcs,
                scalar,
                round,
                mask: MaskArg::Count(lanes as u64),
                is_set_mask: true,
                repeat: 0,
                blk: [1; 3],
                rep,
                blk_max: 255,
            },
        )?;
        op.into_counter(count)
    }

    /// The same instruction in counter mode: `count` elements over as many repeats as they
    /// fill (the last one partly), with the instruction's strides; the repeat count it was
    /// built with is ignored. Bounds and overlap are checked again for that extent.
    pub fn into_counter(mut self, count: i64) -> Result<VecOp> {
        let count =
            check::range(self.name, "count", count, 0, u32::MAX as i64, "[0, 2^32)")? as u64;
        let m = LaneMask::Counter(count);
        self.mask = MaskSource::Fixed(m);
        self.check_memory(m)?;
        Ok(self)
    }

    fn nsrc(&self) -> usize {
        self.srcs.len()
    }

    /// Tensor bounds and overlap rules for a resolved mask.
    fn check_memory(&self, m: LaneMask) -> Result<()> {
        let lanes = self.lanes;
        let n = m.iterations(self.repeat, lanes);
        if n == 0 || m.is_empty() {
            return Ok(());
        }
        let ops: Vec<&Operand> = std::iter::once(&self.dst).chain(&self.srcs).collect();
        let mut spans = [None; 3];
        for (k, op) in ops.iter().enumerate() {
            spans[k] = self.walks[k].span(n, |r| m.lanes_of(r, lanes));
            check::within(self.name, self.names[k], op, spans[k])?;
        }
        let Some(dspan) = spans[0] else { return Ok(()) };
        let dw = self.walks[0];
        let shift = |(lo, hi): (u64, u64), by: u64| (lo + by, hi + by);
        #[allow(clippy::needless_range_loop)]
        for k in 1..=self.nsrc() {
            let Some(sspan) = spans[k] else { continue };
            if !overlaps(dspan, sspan) {
                continue;
            }
            if self.widened {
                return Err(AscendError::IllegalOverlap {
                    instr: self.name,
                    dst: self.names[0],
                    src: self.names[k],
                    rule: "with half sources and a float destination the operands must not overlap at all (MulAddDst.md / Axpy.md)",
                });
            }
            let sw = self.walks[k];
            let same_walk = sw.base == dw.base
                && sw.blk_stride == dw.blk_stride
                && sw.elem_size == dw.elem_size;
            if self.instr.shape() == Shape::BinaryAcc
                && k == 2
                && same_walk
                && sw.rep_stride == 0
                && dw.rep_stride == 0
            {
                continue; // dst = src0 ∘ dst, accumulating in place (通用地址重叠约束).
            }
            let err = |rule| AscendError::IllegalOverlap {
                instr: self.name,
                dst: self.names[0],
                src: self.names[k],
                rule,
            };
            let (first, last) = (m.lanes_of(0, lanes), m.lanes_of(n - 1, lanes));
            let dblocks: [Vec<(u64, u64)>; 2] = [
                dw.iteration_blocks(0, first).collect(),
                dw.iteration_blocks(0, last).collect(),
            ];
            let sblocks: [Vec<(u64, u64)>; 2] = [
                sw.iteration_blocks(0, first).collect(),
                sw.iteration_blocks(0, last).collect(),
            ];
            let pick = |r: u32| if r + 1 == n { 1 } else { 0 };
            for r in 0..n {
                let db = &dblocks[pick(r)];
                // Within one repeat: full overlap (same walk) or none.
                if !(same_walk && sw.rep_stride == dw.rep_stride) {
                    let sb = &sblocks[pick(r)];
                    if db.iter().any(|d| {
                        sb.iter().any(|s| {
                            overlaps(
                                shift(*d, r as u64 * dw.rep_stride),
                                shift(*s, r as u64 * sw.rep_stride),
                            )
                        })
                    }) {
                        return Err(err(
                            "within one repeat the source and destination must overlap completely (same start and strides) or not at all",
                        ));
                    }
                }
                // Across repeats: dst of repeat r must not feed repeat r+1.
                if r + 1 < n {
                    let sb = &sblocks[pick(r + 1)];
                    if db.iter().any(|d| {
                        sb.iter().any(|s| {
                            overlaps(
                                shift(*d, r as u64 * dw.rep_stride),
                                shift(*s, (r + 1) as u64 * sw.rep_stride),
                            )
                        })
                    }) {
                        return Err(err(
                            "the destination of repeat N must not be a source of repeat N+1",
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    fn resolve(&self, core: &VectorCore) -> Result<LaneMask> {
        match self.mask {
            MaskSource::Fixed(m) => Ok(m),
            MaskSource::Register => {
                let m = mask::resolve(
                    self.name,
                    MaskArg::Placeholder,
                    self.lanes,
                    false,
                    core.mask,
                )?;
                self.check_memory(m)?;
                Ok(m)
            }
        }
    }

    /// Runs one run of `len` lanes starting at lane `e0` of repeat `r`, or (contiguous case)
    /// at element `e0` of the whole instruction when `r` is `None`.
    fn run_chunk(
        &self,
        core: &mut VectorCore,
        ctx: &Ctx,
        kernel: Kernel,
        addrs: [u64; 3],
        len: usize,
        scratch: &mut Vec<u8>,
    ) -> Result<()> {
        let ub = core.ub_mut();
        let lens = self.walks.map(|w| (len * w.elem_size as usize) as u64);
        let nsrc = self.nsrc();
        // Bounds (the plan checked them; this keeps a bad address an error, never a panic).
        for k in 0..=nsrc {
            ub.check_range(addrs[k], lens[k])?;
        }
        let range = |k: usize| addrs[k] as usize..(addrs[k] + lens[k]) as usize;
        let d = range(0);
        let disjoint = (1..=nsrc).all(|k| {
            let s = range(k);
            s.end <= d.start || s.start >= d.end
        });
        if disjoint {
            // Borrow the sources straight from memory around the destination.
            let mem = ub.as_mut_slice();
            let (lo, rest) = mem.split_at_mut(d.start);
            let (dst, hi) = rest.split_at_mut(d.end - d.start);
            let src = |k: usize| -> &[u8] {
                if k > nsrc {
                    return &[];
                }
                let s = range(k);
                if s.end <= d.start {
                    &lo[s]
                } else {
                    &hi[s.start - d.end..s.end - d.end]
                }
            };
            kernel(ctx, dst, src(1), src(2));
            return Ok(());
        }
        let na = if nsrc >= 1 { lens[1] as usize } else { 0 };
        let nb = if nsrc >= 2 { lens[2] as usize } else { 0 };
        if scratch.len() < na + nb {
            scratch.resize(na + nb, 0);
        }
        let (sa, rest) = scratch.split_at_mut(na);
        if na > 0 {
            sa[..na].copy_from_slice(ub.bytes(addrs[1], na as u64)?);
        }
        if nb > 0 {
            rest[..nb].copy_from_slice(ub.bytes(addrs[2], nb as u64)?);
        }
        let dst = ub.bytes_mut(addrs[0], lens[0])?;
        kernel(ctx, dst, &sa[..na], &rest[..nb]);
        Ok(())
    }

    /// Runs the instruction with the core's current mask state.
    pub fn execute(&self, core: &mut VectorCore) -> Result<()> {
        let m = self.resolve(core)?;
        let lanes = self.lanes;
        let n = m.iterations(self.repeat, lanes);
        if n == 0 || m.is_empty() {
            return Ok(());
        }
        let ctx = Ctx {
            deq: core.deq_scale,
            ..self.ctx
        };
        let mut scratch = Vec::new();
        let full = mask::prefix(lanes);
        let total = match m {
            LaneMask::Normal(b) if b == full => Some(n as u64 * lanes as u64),
            LaneMask::Counter(c) => Some(c),
            _ => None,
        };
        if let (true, Some(total)) = (self.contiguous, total) {
            // One run over the whole instruction.
            let addrs = [0, 1, 2].map(|k| self.walks[k].base);
            return self.run_chunk(core, &ctx, self.fast, addrs, total as usize, &mut scratch);
        }
        let g = self.gran;
        for r in 0..n {
            let mut bits = m.lanes_of(r, lanes);
            while bits != 0 {
                let e0 = bits.trailing_zeros();
                let end = e0 + (bits >> e0).trailing_ones();
                let mut s = e0;
                while s < end {
                    let stop = end.min((s / g + 1) * g);
                    let addrs = [0, 1, 2].map(|k| self.walks[k].lane_addr(r, s));
                    self.run_chunk(
                        core,
                        &ctx,
                        self.fast,
                        addrs,
                        (stop - s) as usize,
                        &mut scratch,
                    )?;
                    s = stop;
                }
                bits &= !mask::prefix(end);
            }
        }
        Ok(())
    }

    /// The plain twin of [`VecOp::execute`]: every active lane of every repeat on its own,
    /// its addresses from the documented formula, through the plain kernel.
    pub fn execute_reference(&self, core: &mut VectorCore) -> Result<()> {
        let m = self.resolve(core)?;
        let lanes = self.lanes;
        let n = m.iterations(self.repeat, lanes);
        let ctx = Ctx {
            deq: core.deq_scale,
            ..self.ctx
        };
        let mut scratch = Vec::new();
        for r in 0..n {
            let bits = m.lanes_of(r, lanes);
            for e in 0..lanes {
                if bits >> e & 1 == 1 {
                    let addrs = [0, 1, 2].map(|k| self.walks[k].lane_addr(r, e));
                    self.run_chunk(core, &ctx, self.plain, addrs, 1, &mut scratch)?;
                }
            }
        }
        Ok(())
    }
}
