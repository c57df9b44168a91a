"""numpy reference for vector_add.pto: z = x + y, x and y of shape (64, 256) f32.

    python3 vector_add_ref.py gen DIR            writes x.npy, y.npy, z.npy (zeros)
    python3 vector_add_ref.py check DIR OUT.npy  compares OUT.npy with x + y
"""
import sys

import numpy as np

from _refcommon import main

ROWS, COLS = 64, 256


def inputs(rng):
    return {
        "x": rng.standard_normal((ROWS, COLS), dtype=np.float32),
        "y": rng.standard_normal((ROWS, COLS), dtype=np.float32),
    }


def expected(d):
    # f32 addition is exact-rounded in numpy as on the vector unit: compare bit-for-bit.
    return {"z": (d["x"] + d["y"]).astype(np.float64)}


if __name__ == "__main__":
    sys.exit(main(inputs, {"z": (ROWS, COLS)}, expected, rtol=0.0, atol=0.0))
