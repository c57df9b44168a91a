//! The cube unit: TMATMUL, TMATMUL_ACC and TMATMUL_BIAS, and TGEMV, TGEMV_ACC and TGEMV_BIAS
//! (the same rule, checks and numerics with `m = 1`: pto-isa
//! `docs/isa/tile/ops/matrix-and-matrix-vector/tgemv*.md`; `m != 1` is a typed error).
//!
//! Implements pto-isa `docs/isa/tile/ops/matrix-and-matrix-vector/{tmatmul,tmatmul-acc,
//! tmatmul-bias}.md`: `C[i, j] = seed[i, j] + Σ_k A[i, k] · B[k, j]` over `M = A.validRow`,
//! `K = A.validCol`, `N = B.validCol`, with the seed 0 (TMATMUL), the accumulator's old value
//! (TMATMUL_ACC) or the bias row (TMATMUL_BIAS).
//!
//! Checked, each a typed error: tile roles (A in Left, B in Right, C in Acc, the bias in Bias);
//! the `(C, A, B)` type triple, legal on both arches: `(int32, int8, int8)`, `(float, half,
//! half)`, `(float, float, float)`, `(float, bfloat16, bfloat16)` (the A5 fp8 pairs are not
//! modelled); shapes (`A.validRow = C.validRow`, `A.validCol = B.validRow`, `B.validCol =
//! C.validCol`); `m`, `k`, `n` in `[1, 4095]`; on A5 the fractal layouts (Left and Acc Nz: outer
//! col-major, inner row-major; Right Zn: outer row-major, inner col-major); addresses.
//!
//! Numerics: products of half/bfloat16 are exact in f32 and f32 products are fused (one
//! rounding per FMA); the K-sum order is [`npusim_core::MatmulOrder`] of the tile policy
//! (hardware fractal K-blocks by default, `AccAfterK` for the CPU simulator). int8 sums wrap in
//! int32 (order-free). The operands are read through each tile's layout (any of ND, DN, Nz, Zn,
//! Zz, Nn) into row-major buffers; the product runs in [`matmul_f32`] (with AVX-512, detected at
//! run time, a register-blocked kernel of 8 rows x 32 columns; else a row of C at a time,
//! vectorised over N) or, with [`TileCore::set_reference`], through the plain per-element twin
//! [`matmul_plain`]. The fast kernels do the twin's operations per element in the twin's order
//! (proptest `fast_kernel_equals_its_plain_twin`). Half inputs take the fused form
//! `fma(a, b, p)`: a product of two halves is exact in f32, so it equals the model's `p + a·b`
//! bit for bit (proptest `half_products_fuse_exactly`); bfloat16 keeps `p + a·b`, whose
//! products can leave f32's range (`bfloat16_products_do_not_fuse`).
//!
//! The A5 microscaling forms (TMATMUL_MX, TGEMV_MX and their variants) are in [`super::mx`].

use super::{same_type, vr_err};
use crate::core::TileCore;
use crate::error::PtoError;
use crate::num::Elem;
use crate::table::{OpCode, arch_name};
use crate::tile::{BLayout, SLayout, Tile, TileLoc};
use npusim_core::{ElemType, MatmulOrder, TileArch};

/// What the accumulator starts from.
#[derive(Clone, Copy, Debug)]
pub enum Seed<'a> {
    /// 0 (TMATMUL).
    Zero,
    /// The accumulator's current value (TMATMUL_ACC's `cIn`).
    Acc(&'a Tile),
    /// A `1 x N` bias row, broadcast down the rows (TMATMUL_BIAS).
    Bias(&'a Tile),
}

/// The largest `m`, `k`, `n` the pages allow.
pub const MAX_MKN: usize = 4095;

fn loc_err(op: OpCode, operand: &'static str, want: TileLoc, t: &Tile) -> PtoError {
    PtoError::Static {
        op: op.name(),
        operand,
        rule: match want {
            TileLoc::Left => "tile location must be Left",
            TileLoc::Right => "tile location must be Right",
            TileLoc::Acc => "tile location must be Acc",
            TileLoc::Bias => "tile location must be Bias",
            _ => "tile location",
        },
        value: format!("{:?}", t.loc()),
    }
}

pub(crate) fn need(
    op: OpCode,
    operand: &'static str,
    t: &Tile,
    want: TileLoc,
) -> Result<(), PtoError> {
    if t.loc() != want {
        return Err(loc_err(op, operand, want, t));
    }
    Ok(())
}

pub(crate) fn layout_rule(
    op: OpCode,
    operand: &'static str,
    t: &Tile,
    outer_row_major: bool,
    inner: SLayout,
    rule: &'static str,
) -> Result<(), PtoError> {
    let d = t.desc();
    if (d.blayout == BLayout::RowMajor) != outer_row_major || d.slayout != inner {
        return Err(PtoError::Static {
            op: op.name(),
            operand,
            rule,
            value: format!("{:?}/{:?}", d.blayout, d.slayout),
        });
    }
    Ok(())
}

/// The legal `(C, A, B)` triples.
pub fn legal_triple(c: ElemType, a: ElemType, b: ElemType) -> bool {
    use ElemType::*;
    matches!(
        (c, a, b),
        (I32, I8, I8) | (F32, F16, F16) | (F32, F32, F32) | (F32, Bf16, Bf16)
    )
}

/// TGEMV, TGEMV_ACC, TGEMV_BIAS: the TMATMUL family with `m = 1`.
pub fn is_gemv(op: OpCode) -> bool {
    matches!(op, OpCode::Tgemv | OpCode::TgemvAcc | OpCode::TgemvBias)
}

/// The fractal K-block: 32 bytes of the input type.
pub fn k_block(a: ElemType) -> usize {
    32 / a.size()
}

impl TileCore {
    /// TMATMUL: `c = a · b`.
    pub fn tmatmul(&mut self, c: &Tile, a: &Tile, b: &Tile) -> Result<(), PtoError> {
        self.matmul(OpCode::Tmatmul, c, Seed::Zero, a, b)
    }
    /// TMATMUL_ACC: `c = c_in + a · b`.
    pub fn tmatmul_acc(
        &mut self,
        c: &Tile,
        c_in: &Tile,
        a: &Tile,
        b: &Tile,
    ) -> Result<(), PtoError> {
        self.matmul(OpCode::TmatmulAcc, c, Seed::Acc(c_in), a, b)
    }
    /// TMATMUL_BIAS: `c = a · b + bias` (bias broadcast down the rows).
    pub fn tmatmul_bias(
        &mut self,
        c: &Tile,
        a: &Tile,
        b: &Tile,
        bias: &Tile,
    ) -> Result<(), PtoError> {
        self.matmul(OpCode::TmatmulBias, c, Seed::Bias(bias), a, b)
    }

    /// TGEMV: `c[0, :] = a[0, :] · b`.
    pub fn tgemv(&mut self, c: &Tile, a: &Tile, b: &Tile) -> Result<(), PtoError> {
        self.matmul(OpCode::Tgemv, c, Seed::Zero, a, b)
    }
    /// TGEMV_ACC: `c = c_in + a · b` with `m = 1`.
    pub fn tgemv_acc(&mut self, c: &Tile, c_in: &Tile, a: &Tile, b: &Tile) -> Result<(), PtoError> {
        self.matmul(OpCode::TgemvAcc, c, Seed::Acc(c_in), a, b)
    }
    /// TGEMV_BIAS: `c = a · b + bias` with `m = 1`.
    pub fn tgemv_bias(
        &mut self,
        c: &Tile,
        a: &Tile,
        b: &Tile,
        bias: &Tile,
    ) -> Result<(), PtoError> {
        self.matmul(OpCode::TgemvBias, c, Seed::Bias(bias), a, b)
    }

    /// The seed operand's rules, shared by every matmul form: the `_ACC` rows' `cInMatrix`
    /// (Acc, C's type, valid M x N) and the `_BIAS` rows' `biasData` (Bias, C's type, one row
    /// covering N columns), each with its address.
    pub(crate) fn check_seed(
        &self,
        op: OpCode,
        c: &Tile,
        seed: Seed<'_>,
        m: usize,
        n: usize,
    ) -> Result<(), PtoError> {
        let n_ = op.name();
        match seed {
            Seed::Zero => {}
            Seed::Acc(t) => {
                need(op, "cInMatrix", t, TileLoc::Acc)?;
                same_type(op, "cInMatrix", t, "cMatrix", c)?;
                if t.valid_row() != m || t.valid_col() != n {
                    return Err(vr_err(
                        op,
                        "cInMatrix",
                        "cInMatrix valid region must be M x N",
                        format!("{}x{} vs {m}x{n}", t.valid_row(), t.valid_col()),
                    ));
                }
                self.check_addr(t, n_, "cInMatrix")?;
            }
            Seed::Bias(t) => {
                need(op, "biasData", t, TileLoc::Bias)?;
                same_type(op, "biasData", t, "cMatrix", c)?;
                if t.rows() != 1 || t.valid_col() < n {
                    return Err(vr_err(
                        op,
                        "biasData",
                        "bias must be one row covering N columns",
                        format!("{}x{} vs N = {n}", t.rows(), t.valid_col()),
                    ));
                }
                self.check_addr(t, n_, "biasData")?;
            }
        }
        Ok(())
    }

    /// The operand rules every cube form shares: C in Acc, A in Left, B in Right; on A5 the
    /// fractal layouts (Left and Acc Nz, Right Zn); `m` (1 for the TGEMV forms), `k` and `n`
    /// in `[1, 4095]`; B's valid rows equal to K; C's valid region M x N. Returns `(m, k, n)`.
    pub(crate) fn check_mkn(
        &self,
        op: OpCode,
        c: &Tile,
        a: &Tile,
        b: &Tile,
        gemv: bool,
    ) -> Result<(usize, usize, usize), PtoError> {
        need(op, "cMatrix", c, TileLoc::Acc)?;
        need(op, "aMatrix", a, TileLoc::Left)?;
        need(op, "bMatrix", b, TileLoc::Right)?;
        if self.arch() == TileArch::A5 {
            layout_rule(
                op,
                "aMatrix",
                a,
                false,
                SLayout::RowMajor,
                "A5 Left tile must be Nz (outer col-major, inner row-major)",
            )?;
            layout_rule(
                op,
                "bMatrix",
                b,
                true,
                SLayout::ColMajor,
                "A5 Right tile must be Zn (outer row-major, inner col-major)",
            )?;
            layout_rule(
                op,
                "cMatrix",
                c,
                false,
                SLayout::RowMajor,
                "A5 Acc tile must be Nz (outer col-major, inner row-major)",
            )?;
        }
        let (m, k, n) = (a.valid_row(), a.valid_col(), b.valid_col());
        if gemv && m != 1 {
            return Err(vr_err(
                op,
                "m",
                "the TGEMV forms' m (aMatrix valid rows) must be 1",
                m.to_string(),
            ));
        }
        for (name, v) in [("m", m), ("k", k), ("n", n)] {
            if !(1..=MAX_MKN).contains(&v) {
                return Err(vr_err(
                    op,
                    name,
                    "m, k and n must lie in [1, 4095]",
                    v.to_string(),
                ));
            }
        }
        if b.valid_row() != k {
            return Err(vr_err(
                op,
                "bMatrix",
                "bMatrix valid rows must equal aMatrix valid cols (K)",
                format!("{} vs K = {k}", b.valid_row()),
            ));
        }
        if c.valid_row() != m || c.valid_col() != n {
            return Err(vr_err(
                op,
                "cMatrix",
                "cMatrix valid region must be M x N",
                format!("{}x{} vs {m}x{n}", c.valid_row(), c.valid_col()),
            ));
        }
        Ok((m, k, n))
    }

    /// The static checks of the TMATMUL family; returns `(m, k, n)`.
    pub(crate) fn check_matmul(
        &self,
        op: OpCode,
        c: &Tile,
        seed: Seed<'_>,
        a: &Tile,
        b: &Tile,
    ) -> Result<(usize, usize, usize), PtoError> {
        let n_ = op.name();
        let (m, k, n) = self.check_mkn(op, c, a, b, is_gemv(op))?;
        if !legal_triple(c.dtype(), a.dtype(), b.dtype()) {
            return Err(PtoError::Unsupported {
                op: n_,
                what: format!(
                    "the type triple (C, A, B) = ({}, {}, {}) (legal: (int32, int8, int8), (float, half, half), (float, float, float), (float, bfloat16, bfloat16))",
                    c.dtype(),
                    a.dtype(),
                    b.dtype()
                ),
                arch: arch_name(self.arch()),
            });
        }
        self.check_seed(op, c, seed, m, n)?;
        self.check_addr(c, n_, "cMatrix")?;
        self.check_addr(a, n_, "aMatrix")?;
        self.check_addr(b, n_, "bMatrix")?;
        Ok((m, k, n))
    }

    /// The TMATMUL family.
    pub fn matmul(
        &mut self,
        op: OpCode,
        c: &Tile,
        seed: Seed<'_>,
        a: &Tile,
        b: &Tile,
    ) -> Result<(), PtoError> {
        let (m, k, n) = self.check_matmul(op, c, seed, a, b)?;
        let order = self.policy().matmul_order;
        let reference = self.reference();
        if c.dtype() == ElemType::I32 {
            let av = self.read_rect::<i8>(a, m, k);
            let bv = self.read_rect::<i8>(b, k, n);
            let mut out = self.read_seed::<i32>(seed, m, n);
            let av: Vec<i32> = av.iter().map(|&x| x as i32).collect();
            let bv: Vec<i32> = bv.iter().map(|&x| x as i32).collect();
            matmul_i32(&av, &bv, &mut out, m, k, n);
            self.write_rect::<i32>(c, m, n, &out);
            return Ok(());
        }
        let (av, bv) = match a.dtype() {
            ElemType::F16 => (
                self.read_rect::<half::f16>(a, m, k),
                self.read_rect::<half::f16>(b, k, n),
            ),
            ElemType::Bf16 => (
                self.read_rect::<half::bf16>(a, m, k),
                self.read_rect::<half::bf16>(b, k, n),
            ),
            _ => {
                let (mut av, mut bv) = (
                    self.read_rect::<f32>(a, m, k),
                    self.read_rect::<f32>(b, k, n),
                );
                // SETHF32MODE / SETTF32MODE: f32 inputs enter the cube at the mode's width.
                let mode = self.cube_f32_mode();
                if a.dtype() == ElemType::F32 && mode != crate::ops::config::CubeF32Mode::Ieee {
                    for x in av.iter_mut().chain(bv.iter_mut()) {
                        *x = crate::ops::config::cube_f32_input(mode, *x);
                    }
                }
                (av, bv)
            }
        };
        let seeded = !matches!(seed, Seed::Zero);
        let mut out = self.read_seed::<f32>(seed, m, n);
        let shape = MatShape {
            m,
            k,
            n,
            kb: k_block(a.dtype()),
            order,
            seeded,
        };
        let exact = a.dtype() != ElemType::F32;
        // half inputs: a product of two halves (11-bit significands, exponents in [-48, 32])
        // is exact in f32, so `p + a·b` rounds once, as `fma(a, b, p)` does: the fused kernel
        // gives the same bits (the `half_products_fuse_exactly` proptest). Not so for
        // bfloat16, whose products can overflow or round in f32's range.
        let fused = a.dtype() == ElemType::F16 || !exact;
        if reference {
            matmul_plain(&av, &bv, &mut out, shape, exact);
        } else if !fused {
            matmul_f32::<true>(&av, &bv, &mut out, shape);
        } else {
            matmul_f32::<false>(&av, &bv, &mut out, shape);
        }
        self.write_rect::<f32>(c, m, n, &out);
        Ok(())
    }

    /// The `rows x cols` top-left rectangle of a tile, row-major, widened to the compute type,
    /// read in the tile's contiguous runs (along rows, or down columns for col-major boxes).
    /// (The caller checked the tile fits its memory.)
    pub(crate) fn read_rect<T: Elem>(&self, t: &Tile, rows: usize, cols: usize) -> Vec<T::C> {
        let mem = self.mem(t.loc()).as_slice();
        let size = T::TYPE.size();
        let mut out = vec![T::C::default(); rows * cols];
        if t.row_run(0, 0) >= t.col_run(0, 0) {
            for r in 0..rows {
                let row = &mut out[r * cols..(r + 1) * cols];
                let mut c = 0;
                while c < cols {
                    let start = t.byte_addr(r, c) as usize;
                    let len = t.row_run(r, c).min(cols - c);
                    if let Some(bytes) = mem.get(start..start + len * size) {
                        T::load(bytes, &mut row[c..c + len]);
                    }
                    c += len;
                }
            }
        } else {
            let mut buf = vec![T::C::default(); rows];
            for c in 0..cols {
                let mut r = 0;
                while r < rows {
                    let start = t.byte_addr(r, c) as usize;
                    let len = t.col_run(r, c).min(rows - r);
                    if let Some(bytes) = mem.get(start..start + len * size) {
                        T::load(bytes, &mut buf[..len]);
                    }
                    for (i, v) in buf[..len].iter().enumerate() {
                        out[(r + i) * cols + c] = *v;
                    }
                    r += len;
                }
            }
        }
        out
    }

    /// Writes a row-major `rows x cols` rectangle into a tile's top-left corner, in the tile's
    /// contiguous runs along its rows.
    pub(crate) fn write_rect<T: Elem>(
        &mut self,
        t: &Tile,
        rows: usize,
        cols: usize,
        vals: &[T::C],
    ) {
        let size = T::TYPE.size();
        let t = *t;
        let mem = self.mem_mut(t.loc());
        for r in 0..rows {
            let row = &vals[r * cols..(r + 1) * cols];
            let mut c = 0;
            while c < cols {
                let start = t.byte_addr(r, c) as usize;
                let len = t.row_run(r, c).min(cols - c);
                if let Some(bytes) = mem.get_mut(start..start + len * size) {
                    T::store(&row[c..c + len], bytes);
                }
                c += len;
            }
        }
    }

    pub(crate) fn read_seed<T: Elem>(&self, seed: Seed<'_>, m: usize, n: usize) -> Vec<T::C> {
        match seed {
            Seed::Zero => vec![T::C::default(); m * n],
            Seed::Acc(t) => self.read_rect::<T>(t, m, n),
            Seed::Bias(t) => {
                let row = self.read_rect::<T>(t, 1, n);
                let mut out = Vec::with_capacity(m * n);
                for _ in 0..m {
                    out.extend_from_slice(&row);
                }
                out
            }
        }
    }
}

/// The product's shape and order.
#[derive(Clone, Copy, Debug)]
pub struct MatShape {
    pub m: usize,
    pub k: usize,
    pub n: usize,
    /// Fractal K-block.
    pub kb: usize,
    pub order: MatmulOrder,
    /// Whether `out` holds a seed (old accumulator or bias) rather than zeros.
    pub seeded: bool,
}

/// `p + a·b` rounded once: plain when the product is exact in f32 (half and bfloat16 inputs),
/// fused otherwise.
#[inline(always)]
fn fma<const EXACT: bool>(a: f32, b: f32, p: f32) -> f32 {
    if EXACT { p + a * b } else { a.mul_add(b, p) }
}

/// Columns of C kept in registers by [`matmul_f32`].
const JB: usize = 32;

/// One `JB`-wide strip of a row of C, in the policy's order; `c` holds the seed (or zeros).
#[inline(always)]
fn strip<const EXACT: bool>(
    arow: &[f32],
    b: &[f32],
    n: usize,
    j0: usize,
    c: &mut [f32; JB],
    s: MatShape,
) {
    let k = arow.len();
    let chain = |from: usize, to: usize| {
        let mut p = [0f32; JB];
        for (kk, &av) in arow.iter().enumerate().take(to).skip(from) {
            let Some(bs) = b
                .get(kk * n + j0..kk * n + j0 + JB)
                .and_then(|x| <&[f32; JB]>::try_from(x).ok())
            else {
                continue;
            };
            for (pl, &bl) in p.iter_mut().zip(bs) {
                *pl = fma::<EXACT>(av, bl, *pl);
            }
        }
        p
    };
    match s.order {
        MatmulOrder::FractalKBlocks => {
            let mut k0 = 0;
            while k0 < k {
                let p = chain(k0, (k0 + s.kb).min(k));
                for (cl, pl) in c.iter_mut().zip(p) {
                    *cl += pl;
                }
                k0 += s.kb;
            }
        }
        MatmulOrder::AccAfterK => {
            let p = chain(0, k);
            if s.seeded {
                for (cl, pl) in c.iter_mut().zip(p) {
                    *cl += pl;
                }
            } else {
                *c = p;
            }
        }
    }
}

/// The fast kernel, the same operations per element in the same order as [`matmul_plain`]
/// (held equal by the `fast_kernel_equals_its_plain_twin` proptest). With AVX-512 (detected at
/// run time) it is [`super::cube_avx512`]'s register-blocked kernel (8 rows x 32 columns of
/// partial sums in registers); otherwise row by row of C, `JB` columns at a time held in
/// registers across the K loop (the inner update `p[l] += a·b[l]` vectorises, compiled for
/// AVX2+FMA when detected); the columns left over go through [`matmul_plain`]'s per-element
/// loop.
pub fn matmul_f32<const EXACT: bool>(a: &[f32], b: &[f32], out: &mut [f32], s: MatShape) {
    #[cfg(target_arch = "x86_64")]
    {
        let sized = a.len() >= s.m * s.k && b.len() >= s.k * s.n && out.len() >= s.m * s.n;
        if sized && std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: AVX-512F was detected at run time just above; the slices hold the
            // `m x k`, `k x n` and `m x n` operands (checked just above).
            unsafe { super::cube_avx512::matmul::<EXACT>(a, b, out, s) };
            return;
        }
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            // SAFETY: AVX2 and FMA were detected at run time just above.
            unsafe { matmul_f32_avx2::<EXACT>(a, b, out, s) };
            return;
        }
    }
    matmul_body::<EXACT>(a, b, out, s)
}

/// [`matmul_body`] compiled for AVX2 (8-lane f32 vectors; `mul_add` a single instruction).
/// The same operations as everywhere else: Rust never contracts `p + a * b` into an FMA.
///
/// # Safety
/// The CPU must support AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn matmul_f32_avx2<const EXACT: bool>(a: &[f32], b: &[f32], out: &mut [f32], s: MatShape) {
    matmul_body::<EXACT>(a, b, out, s)
}

#[inline(always)]
fn matmul_body<const EXACT: bool>(a: &[f32], b: &[f32], out: &mut [f32], s: MatShape) {
    let MatShape { m, k, n, .. } = s;
    let full = n / JB * JB;
    for i in 0..m {
        let arow = &a[i * k..(i + 1) * k];
        let orow = &mut out[i * n..(i + 1) * n];
        for (jc, chunk) in orow[..full].chunks_exact_mut(JB).enumerate() {
            let mut c: [f32; JB] = [0.0; JB];
            c.copy_from_slice(chunk);
            strip::<EXACT>(arow, b, n, jc * JB, &mut c, s);
            chunk.copy_from_slice(&c);
        }
        for (j, o) in orow.iter_mut().enumerate().skip(full) {
            *o = plain_elem(arow, b, n, j, *o, s, EXACT);
        }
    }
}

/// One element of C by [`matmul_plain`]'s rule.
fn plain_elem(
    arow: &[f32],
    b: &[f32],
    n: usize,
    j: usize,
    seed: f32,
    s: MatShape,
    exact: bool,
) -> f32 {
    let k = arow.len();
    let f = |x: f32, y: f32, p: f32| if exact { p + x * y } else { x.mul_add(y, p) };
    let mut c = seed;
    match s.order {
        MatmulOrder::FractalKBlocks => {
            let mut k0 = 0;
            while k0 < k {
                let mut p = 0f32;
                for kk in k0..(k0 + s.kb).min(k) {
                    p = f(arow[kk], b[kk * n + j], p);
                }
                c += p;
                k0 += s.kb;
            }
        }
        MatmulOrder::AccAfterK => {
            let mut p = 0f32;
            for kk in 0..k {
                p = f(arow[kk], b[kk * n + j], p);
            }
            c = if s.seeded { c + p } else { p };
        }
    }
    c
}

/// The plain twin of [`matmul_f32`]: element by element, the K loop innermost.
pub fn matmul_plain(a: &[f32], b: &[f32], out: &mut [f32], s: MatShape, exact: bool) {
    let MatShape { m, k, n, kb, .. } = s;
    let f = |x: f32, y: f32, p: f32| if exact { p + x * y } else { x.mul_add(y, p) };
    for i in 0..m {
        for j in 0..n {
            let mut c = out[i * n + j];
            match s.order {
                MatmulOrder::FractalKBlocks => {
                    let mut k0 = 0;
                    while k0 < k {
                        let mut p = 0f32;
                        for kk in k0..(k0 + kb).min(k) {
                            p = f(a[i * k + kk], b[kk * n + j], p);
                        }
                        c += p;
                        k0 += kb;
                    }
                }
                MatmulOrder::AccAfterK => {
                    let mut p = 0f32;
                    for kk in 0..k {
                        p = f(a[i * k + kk], b[kk * n + j], p);
                    }
                    c = if s.seeded { c + p } else { p };
                }
            }
            out[i * n + j] = c;
        }
    }
}

/// int8 x int8 into int32, wrapping (order-free).
fn matmul_i32(a: &[i32], b: &[i32], out: &mut [i32], m: usize, k: usize, n: usize) {
    for i in 0..m {
        let orow = &mut out[i * n..(i + 1) * n];
        for kk in 0..k {
            let av = a[i * k + kk];
            let brow = &b[kk * n..(kk + 1) * n];
            for (o, &bj) in orow.iter_mut().zip(brow) {
                *o = o.wrapping_add(av.wrapping_mul(bj));
            }
        }
    }
}
