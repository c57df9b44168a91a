"""numpy's equivalents of benches/sort_gather.rs (issue 15 acceptance 5), timed with timeit.

The inputs are the Rust bench's own: the same xorshift64 stream turned into f32 values the same
way (`values()` in sort_gather.rs), and the same gather permutation `k * 2654435761 % 8192`.
TSORT32 + TMRGSORT sort descending with ties by the smaller index, so the numpy equivalent is
a stable argsort of the negated values plus the gathers of values and indices.
"""
import timeit

import numpy as np


def values(n):
    x = 0x9E3779B97F4A7C15
    mask = (1 << 64) - 1
    out = np.empty(n, dtype=np.float32)
    for i in range(n):
        x ^= (x << 13) & mask
        x ^= x >> 7
        x ^= (x << 17) & mask
        v = np.float32(x >> 40) / np.float32(1 << 24)
        out[i] = (v - np.float32(0.5)) * np.float32(1000.0)
    return out


x = values(8192)
idx = np.arange(8192, dtype=np.uint32)


def sort_records():
    order = np.argsort(-x, kind="stable")
    return x[order], idx[order]


src = x.reshape(64, 128)
perm = ((np.arange(64 * 128, dtype=np.int64) * 2654435761) % (64 * 128)).astype(np.int32).reshape(64, 128)


def gather():
    return src.ravel()[perm]


for name, f in [("stable sort 8192 f32 + index", sort_records), ("gather 64x128 f32", gather)]:
    n, _ = timeit.Timer(f).autorange()
    runs = [t / n for t in timeit.repeat(f, number=n, repeat=7)]
    print(f"numpy {np.__version__} {name}: best {min(runs) * 1e6:.2f} us, median {sorted(runs)[3] * 1e6:.2f} us")
