"""numpy reference for multicore_split.pto: y = relu(alpha * x + beta), x of shape (64, 256)
f32, alpha = 1.5, beta = -0.25 (scalar arguments on the command line). The result does not
depend on the number of blocks.

    python3 multicore_split_ref.py gen DIR            writes x.npy, y.npy (zeros)
    python3 multicore_split_ref.py check DIR OUT.npy  compares OUT.npy with the formula
"""
import sys

import numpy as np

from _refcommon import main

ROWS, COLS = 64, 256
ALPHA, BETA = np.float32(1.5), np.float32(-0.25)


def inputs(rng):
    return {"x": rng.standard_normal((ROWS, COLS), dtype=np.float32)}


def expected(d):
    # Two separately rounded f32 ops (tmuls, tadds), then relu: reproduce them in f32.
    y = np.maximum(d["x"] * ALPHA + BETA, np.float32(0))
    return {"y": y.astype(np.float64)}


if __name__ == "__main__":
    sys.exit(main(inputs, {"y": (ROWS, COLS)}, expected, rtol=0.0, atol=0.0))
