#!/usr/bin/env python3
"""Checks npusim's outputs for the PTOAS cube samples that ship no golden of their own.

PTOAS's Gemv, Extract, Movfp, TInsert, MatMul and Matmul_transpose samples have no numpy golden: on a board their
reference comes from Ascend's simulator, which this project does not have. The PTOAS oracle
(`../shared/tools/ptoas_oracle.py`) still runs them through npusim on random inputs and leaves
each case directory with the inputs (`vK.bin`, an output's input as `vK.input.bin`) and
npusim's output (`vK.bin`). This script recomputes those outputs with models written here from
the kernels' text (what each kernel loads, multiplies and stores) and compares:

- f16 inputs: bit for bit, in npusim's documented hardware order (crate docs of npusim-pto,
  `MatmulOrder::FractalKBlocks`): the f32 accumulator starts from 0, the bias or the old value
  and receives one partial sum per K-block of 16 halves, each partial a chain p = p + a*b in
  f32 from 0 (a product of two halves is exact in f32, so each step rounds once, as numpy's
  float32 add does);
- MatMul and Matmul_transpose (f32 inputs; split K with a bias; A through a DN view): within the f32 rounding bound of the f64 sum;
- TInsert (f32 inputs, product narrowed to f16 by TINSERT, then multiplied by the identity):
  within one f16 ulp of f16(A @ B) computed in f64 (the f32 FMA chains of the first matmul can
  put a value on the other side of an f16 rounding boundary).

Usage: check_cube_samples.py WORK  (the oracle's --work directory). Exit status 1 on a mismatch.
"""
import sys
from pathlib import Path

import numpy as np


def hw_matmul_f16(a, b, seed, kb=16):
    """(M,K) f16 @ (K,N) f16 + seed (M,N) f32 in the hardware K-block order, in f32."""
    a32 = a.astype(np.float32)
    b32 = b.astype(np.float32)
    acc = seed.astype(np.float32).copy()
    k = a.shape[1]
    for k0 in range(0, k, kb):
        p = np.zeros_like(acc)
        for kk in range(k0, min(k0 + kb, k)):
            p = (p + np.outer(a32[:, kk], b32[kk, :]).astype(np.float32)).astype(np.float32)
        acc = (acc + p).astype(np.float32)
    return acc


def load(case, name, dtype, shape, original=False):
    f = case / (f"{name}.input.bin" if original else f"{name}.bin")
    return np.fromfile(f, dtype=dtype).reshape(shape)


def gemv_like(case, k_total, bias=None, out="v3"):
    a = load(case, "v1", np.float16, (1, k_total))
    b = load(case, "v2", np.float16, (k_total, 32))
    seed = np.zeros((1, 32), np.float32) if bias is None else load(case, bias, np.float32, (1, 32))
    want = hw_matmul_f16(a, b, seed)
    got = load(case, out, np.float32, (1, 32))
    same = want.view(np.uint32) == got.view(np.uint32)
    return bool(same.all()), f"{int((~same).sum())}/32 differ (bit-exact compare)"


def tinsert(case):
    a = load(case, "v1", np.float32, (32, 32))
    b = load(case, "v2", np.float32, (32, 32))
    ident = load(case, "v3", np.float16, (32, 32))
    if not np.array_equal(ident.astype(np.float32), np.eye(32, dtype=np.float32)):
        # Random inputs (no golden script wrote the identity): model the product with it.
        prod = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float16)
        ref = prod.astype(np.float64) @ ident.astype(np.float64)
        got = load(case, "v4", np.float32, (32, 32)).astype(np.float64)
        tol = np.abs(prod.astype(np.float64)) @ np.abs(ident.astype(np.float64)) * 2.0**-10 + 1e-6
        bad = np.abs(got - ref) > tol
        return not bad.any(), f"{int(bad.sum())}/1024 beyond one f16 ulp per term"
    ref = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float16)
    got = load(case, "v4", np.float32, (32, 32))
    ulp = np.spacing(np.abs(ref).astype(np.float16)).astype(np.float64)
    bad = np.abs(got.astype(np.float64) - ref.astype(np.float64)) > ulp
    return not bad.any(), f"{int(bad.sum())}/1024 beyond one f16 ulp"


def split_k_f32(case):
    """RunTMATMULSplitK with its bias flag set (the oracle passes true): C (32x32, v1) =
    bias (v4) + A (32x256, v2) @ B (256x32, v3), f32 inputs, eight K steps of 32 through
    TMATMUL_BIAS then TMATMUL_ACC. f32 FMA chains round once per step: within
    (K + K/8 + 1) * 2^-24 * (|A| @ |B| + |bias|) of the f64 result."""
    a = load(case, "v2", np.float32, (32, 256)).astype(np.float64)
    b = load(case, "v3", np.float32, (256, 32)).astype(np.float64)
    bias = load(case, "v4", np.float32, (1, 32)).astype(np.float64)
    got = load(case, "v1", np.float32, (32, 32)).astype(np.float64)
    ref = bias + a @ b
    tol = (256 + 32 + 1) * 2.0**-24 * (np.abs(a) @ np.abs(b) + np.abs(bias)) + 1e-30
    bad = np.abs(got - ref) > tol
    return not bad.any(), f"{int(bad.sum())}/1024 beyond the f32 rounding bound"


def matmul_transpose(case):
    """RunTEXTRACT with both flags set (the oracle passes true, true): A is read through a DN
    view of v2 (element (r, c) at c * 32 + r), B through an ND view of v3; C (v1) = A @ B in
    f32, within (K + K/8) * 2^-24 * (|A| @ |B|) of the f64 result."""
    a = load(case, "v2", np.float32, (256, 32)).T.astype(np.float64)
    b = load(case, "v3", np.float32, (256, 32)).astype(np.float64)
    got = load(case, "v1", np.float32, (32, 32)).astype(np.float64)
    ref = a @ b
    tol = (256 + 32) * 2.0**-24 * (np.abs(a) @ np.abs(b)) + 1e-30
    bad = np.abs(got - ref) > tol
    return not bad.any(), f"{int(bad.sum())}/1024 beyond the f32 rounding bound"


CASES = {
    "Matmul_transpose/Matmul_transpose": matmul_transpose,
    "MatMul/matMul": split_k_f32,
    "MatMul/tmatmulk": split_k_f32,
    "Gemv/gemv": lambda c: gemv_like(c, 256),
    "Gemv/gemvacc": lambda c: gemv_like(c, 512),
    "Gemv/gemvbias": lambda c: gemv_like(c, 256, bias="v3", out="v4"),
    "Extract/extract": lambda c: gemv_like(c, 256),
    "Movfp/movfp": lambda c: gemv_like(c, 256, out="v4"),
    "TInsert/tinsert": tinsert,
}


def main():
    work = Path(sys.argv[1])
    failed = 0
    for name, check in CASES.items():
        case = work / "cases" / name
        if not (case / "v1.bin").exists():
            print(f"SKIP  {name}: no case directory with inputs")
            continue
        ok, what = check(case)
        failed += not ok
        print(f"{'OK  ' if ok else 'FAIL'}  {name}: {what}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
