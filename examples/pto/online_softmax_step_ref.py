"""numpy reference for online_softmax_step.pto (one flash-attention online-softmax step).

Inputs: scores (16, 128), m_prev (16, 1), l_prev (16, 1), o_prev (16, 64), all f32; the
scalar argument scale = 0.125 is given on the command line.
Outputs, in this order: p (16, 128), m_new (16, 1), l_new (16, 1), o_out (16, 64).

    python3 online_softmax_step_ref.py gen DIR
        writes scores, m_prev, l_prev, o_prev and zeroed p, m_new, l_new, o_out (.npy)
    python3 online_softmax_step_ref.py check DIR P.npy M_NEW.npy L_NEW.npy O_OUT.npy
"""
import sys

import numpy as np

from _refcommon import main

SCALE = 0.125


def inputs(rng):
    scores = (4.0 * rng.standard_normal((16, 128))).astype(np.float32)
    # A previous running max that is sometimes above and sometimes below this block's max.
    m_prev = (SCALE * scores.max(axis=1, keepdims=True) + rng.uniform(-1, 1, (16, 1))).astype(np.float32)
    l_prev = rng.uniform(1.0, 50.0, (16, 1)).astype(np.float32)
    o_prev = rng.standard_normal((16, 64), dtype=np.float32)
    return {"scores": scores, "m_prev": m_prev, "l_prev": l_prev, "o_prev": o_prev}


def expected(d):
    s = SCALE * d["scores"].astype(np.float64)
    m_prev = d["m_prev"].astype(np.float64)
    m_new = np.maximum(m_prev, s.max(axis=1, keepdims=True))
    p = np.exp(s - m_new)
    alpha = np.exp(m_prev - m_new)
    l_new = alpha * d["l_prev"].astype(np.float64) + p.sum(axis=1, keepdims=True)
    o_out = alpha * d["o_prev"].astype(np.float64)
    return {"p": p, "m_new": m_new, "l_new": l_new, "o_out": o_out}


if __name__ == "__main__":
    outs = {"p": (16, 128), "m_new": (16, 1), "l_new": (16, 1), "o_out": (16, 64)}
    sys.exit(main(inputs, outs, expected, rtol=1e-5, atol=1e-6))
