"""numpy reference for gemm_256x256x512.pto: c (256x256 f32) = a (256x512 f16) . b (512x256 f16).

    python3 gemm_256x256x512_ref.py gen DIR            writes a.npy, b.npy, c.npy (zeros)
    python3 gemm_256x256x512_ref.py check DIR OUT.npy  compares OUT.npy with a . b in float64

npusim accumulates in f32 (one partial sum per 16-element K-block); tests/pto_cube_examples.rs
checks that order bit for bit, this script within f32 accumulation error.
"""
import sys

import numpy as np

from _refcommon import main

M, N, K = 256, 256, 512


def inputs(rng):
    return {
        "a": rng.uniform(-2, 2, (M, K)).astype(np.float16),
        "b": rng.uniform(-2, 2, (K, N)).astype(np.float16),
    }


def expected(d):
    return {"c": d["a"].astype(np.float64) @ d["b"].astype(np.float64)}


if __name__ == "__main__":
    sys.exit(main(inputs, {"c": (M, N)}, expected, rtol=1e-5, atol=2e-4))
