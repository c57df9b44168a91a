"""numpy reference for attention_head.pto: o = softmax((q . k^T) / 8, axis=1) . v, with the
probabilities rounded to f16 (the kernel feeds them to the cube as f16).

    python3 attention_head_ref.py gen DIR            writes q.npy, k.npy, v.npy, o.npy (zeros)
    python3 attention_head_ref.py check DIR OUT.npy  compares OUT.npy with the float64 model
"""
import sys

import numpy as np

from _refcommon import main

S, D, N = 16, 64, 64


def inputs(rng):
    return {
        "q": rng.uniform(-2, 2, (S, D)).astype(np.float16),
        "k": rng.uniform(-2, 2, (N, D)).astype(np.float16),
        "v": rng.uniform(-2, 2, (N, D)).astype(np.float16),
    }


def expected(d):
    q, k, v = (d[n].astype(np.float64) for n in "qkv")
    s = (q @ k.T) * 0.125
    e = np.exp(s - s.max(axis=1, keepdims=True))
    p = (e / e.sum(axis=1, keepdims=True)).astype(np.float16).astype(np.float64)
    return {"o": p @ v}


if __name__ == "__main__":
    sys.exit(main(inputs, {"o": (S, D)}, expected, rtol=1e-3, atol=5e-4))
