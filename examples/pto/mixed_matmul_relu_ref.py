"""numpy reference for mixed_matmul_relu.pto: y (16x32 f32) = relu(a (16x32 f16) . b (32x32 f16)) * 0.5.

    python3 mixed_matmul_relu_ref.py gen DIR            writes a.npy, b.npy, y.npy (zeros)
    python3 mixed_matmul_relu_ref.py check DIR OUT.npy  compares OUT.npy bit for bit

The product is computed in the documented hardware order of npusim's cube unit (npusim-pto
crate docs): per output element, one f32 partial sum per K-block of 16 (a chain p = p + a*b
from 0; products of halves are exact in f32), the partials added to the f32 accumulator in
order. relu and the scale by 0.5 are exact, so the comparison is exact.
"""
import sys

import numpy as np

from _refcommon import main

M, K, N = 16, 32, 32


def inputs(rng):
    return {
        "a": rng.uniform(-2, 2, (M, K)).astype(np.float16),
        "b": rng.uniform(-2, 2, (K, N)).astype(np.float16),
    }


def expected(d):
    a = d["a"].astype(np.float32)
    b = d["b"].astype(np.float32)
    c = np.zeros((M, N), np.float32)
    for k0 in range(0, K, 16):
        p = np.zeros((M, N), np.float32)
        for k in range(k0, k0 + 16):
            p = p + np.outer(a[:, k], b[k, :]).astype(np.float32)
        c = c + p
    return {"y": (np.maximum(c, np.float32(0)) * np.float32(0.5)).astype(np.float64)}


if __name__ == "__main__":
    sys.exit(main(inputs, {"y": (M, N)}, expected, rtol=0.0, atol=0.0))
