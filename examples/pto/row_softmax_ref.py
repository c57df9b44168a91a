"""numpy reference for row_softmax.pto: row-wise softmax of x of shape (32, 1024) f32.

    python3 row_softmax_ref.py gen DIR            writes x.npy, y.npy (zeros)
    python3 row_softmax_ref.py check DIR OUT.npy  compares OUT.npy with softmax(x, axis=1)
"""
import sys

import numpy as np

from _refcommon import main

ROWS, COLS = 32, 1024


def inputs(rng):
    return {"x": (3.0 * rng.standard_normal((ROWS, COLS))).astype(np.float32)}


def expected(d):
    x = d["x"].astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return {"y": e / e.sum(axis=1, keepdims=True)}


if __name__ == "__main__":
    sys.exit(main(inputs, {"y": (ROWS, COLS)}, expected, rtol=1e-5, atol=1e-7))
