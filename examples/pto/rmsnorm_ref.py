"""numpy reference for rmsnorm.pto: y = x / sqrt(mean(x^2, axis=1) + eps) * gamma,
x of shape (32, 512) f32, gamma of shape (1, 512), eps = 1e-6.

    python3 rmsnorm_ref.py gen DIR            writes x.npy, gamma.npy, y.npy (zeros)
    python3 rmsnorm_ref.py check DIR OUT.npy  compares OUT.npy with the formula above
"""
import sys

import numpy as np

from _refcommon import main

ROWS, COLS = 32, 512
EPS = 1e-6


def inputs(rng):
    return {
        "x": rng.standard_normal((ROWS, COLS), dtype=np.float32),
        "gamma": rng.uniform(0.5, 1.5, (1, COLS)).astype(np.float32),
    }


def expected(d):
    x = d["x"].astype(np.float64)
    ms = np.mean(x * x, axis=1, keepdims=True)
    return {"y": x / np.sqrt(ms + EPS) * d["gamma"].astype(np.float64)}


if __name__ == "__main__":
    sys.exit(main(inputs, {"y": (ROWS, COLS)}, expected, rtol=1e-5, atol=1e-6))
