//! The AVX-512 kernel of [`super::cube::matmul_f32`] (x86-64, chosen at run time when the CPU
//! has AVX-512F; never by compile-time target flags).
//!
//! Numerics are those of [`super::cube::matmul_plain`], per element and in the same order: for
//! each element of C a chain of partial sums `p` over a K-block (the whole K under
//! `AccAfterK`), started from +0, each step `p + a·b` (`EXACT`: the product rounded, then the
//! sum rounded) or `fma(a, b, p)` (one rounding); after each block `c + p` (under `AccAfterK`
//! `c + p` when seeded, else `p`). Only the grouping of the work changes: a block of `MR` rows
//! by 32 columns keeps its `MR x 32` partial sums in 2·`MR` vector registers across the K-block,
//! so each loaded row piece of B serves `MR` rows of A. Lanes past `n` are masked (never loaded
//! from or stored to). The equality with the plain twin is the `fast_kernel_equals_its_plain_twin`
//! proptest (`tests/cube_props.rs`), run on this kernel on any AVX-512 machine.

#![cfg(target_arch = "x86_64")]

use super::cube::MatShape;
use npusim_core::MatmulOrder;
use std::arch::x86_64::*;

/// Rows of C per register block.
const MR: usize = 8;

/// The lane masks of the two 16-lane halves of a 32-column strip starting at `j0` of `n`.
fn masks(j0: usize, n: usize) -> (u16, u16) {
    let rem = n - j0;
    let m = |w: usize| if w >= 16 { u16::MAX } else { (1u16 << w) - 1 };
    (m(rem.min(16)), m(rem.saturating_sub(16)))
}

/// `C = seed ⊕ A·B` in the policy's order (see the module docs).
///
/// # Safety
/// The CPU must support AVX-512F, and `a`, `b`, `out` must hold at least `m·k`, `k·n` and
/// `m·n` elements.
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn matmul<const EXACT: bool>(a: &[f32], b: &[f32], out: &mut [f32], s: MatShape) {
    let MatShape { m, n, .. } = s;
    let mut j0 = 0;
    while j0 < n {
        let mk = masks(j0, n);
        let mut i0 = 0;
        while i0 < m {
            let rows = (m - i0).min(MR);
            // SAFETY: the caller's guarantees; `i0 + rows <= m`, `j0 < n`.
            unsafe {
                match rows {
                    8 => block::<8, EXACT>(a, b, out, s, i0, j0, mk),
                    7 => block::<7, EXACT>(a, b, out, s, i0, j0, mk),
                    6 => block::<6, EXACT>(a, b, out, s, i0, j0, mk),
                    5 => block::<5, EXACT>(a, b, out, s, i0, j0, mk),
                    4 => block::<4, EXACT>(a, b, out, s, i0, j0, mk),
                    3 => block::<3, EXACT>(a, b, out, s, i0, j0, mk),
                    2 => block::<2, EXACT>(a, b, out, s, i0, j0, mk),
                    _ => block::<1, EXACT>(a, b, out, s, i0, j0, mk),
                }
            }
            i0 += rows;
        }
        j0 += 32;
    }
}

/// Rows `i0 .. i0 + R`, columns `j0 .. j0 + 32` (masked by `mk`) of C.
///
/// # Safety
/// As [`matmul`], with `i0 + R <= m` and `j0 < n`.
#[target_feature(enable = "avx512f")]
#[allow(clippy::too_many_arguments)]
unsafe fn block<const R: usize, const EXACT: bool>(
    a: &[f32],
    b: &[f32],
    out: &mut [f32],
    s: MatShape,
    i0: usize,
    j0: usize,
    (m0, m1): (u16, u16),
) {
    let MatShape { k, n, kb, .. } = s;
    let step = match s.order {
        MatmulOrder::FractalKBlocks => kb.max(1),
        MatmulOrder::AccAfterK => k,
    };
    let (ap, bp, op) = (a.as_ptr(), b.as_ptr(), out.as_mut_ptr());
    let mut k0 = 0;
    while k0 < k {
        let k1 = (k0 + step).min(k);
        let mut p = [[_mm512_setzero_ps(); 2]; R];
        for kk in k0..k1 {
            // SAFETY: `kk < k`, `j0 < n`: the row piece starts inside B; lanes past `n` are
            // masked off and not read.
            let (b0, b1) = unsafe {
                let row = bp.add(kk * n + j0);
                (
                    _mm512_maskz_loadu_ps(m0, row),
                    _mm512_maskz_loadu_ps(m1, row.wrapping_add(16)),
                )
            };
            for (r, pr) in p.iter_mut().enumerate() {
                // SAFETY: `i0 + r < m`, `kk < k`.
                let av = _mm512_set1_ps(unsafe { *ap.add((i0 + r) * k + kk) });
                if EXACT {
                    pr[0] = _mm512_add_ps(pr[0], _mm512_mul_ps(av, b0));
                    pr[1] = _mm512_add_ps(pr[1], _mm512_mul_ps(av, b1));
                } else {
                    pr[0] = _mm512_fmadd_ps(av, b0, pr[0]);
                    pr[1] = _mm512_fmadd_ps(av, b1, pr[1]);
                }
            }
        }
        let add = match s.order {
            MatmulOrder::FractalKBlocks => true,
            MatmulOrder::AccAfterK => s.seeded,
        };
        for (r, pr) in p.iter().enumerate() {
            // SAFETY: `i0 + r < m`, `j0 < n`; lanes past `n` are masked off.
            unsafe {
                let o = op.add((i0 + r) * n + j0);
                let o1 = o.wrapping_add(16);
                let (c0, c1) = if add {
                    (
                        _mm512_add_ps(_mm512_maskz_loadu_ps(m0, o), pr[0]),
                        _mm512_add_ps(_mm512_maskz_loadu_ps(m1, o1), pr[1]),
                    )
                } else {
                    (pr[0], pr[1])
                };
                _mm512_mask_storeu_ps(o, m0, c0);
                _mm512_mask_storeu_ps(o1, m1, c1);
            }
        }
        k0 = k1;
    }
}
