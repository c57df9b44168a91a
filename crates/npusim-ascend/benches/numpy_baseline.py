"""numpy baseline for the Ascend vector benchmarks (same sizes as benches/vector.rs).

vec_cmpv_gt: np.packbits(a > b, bitorder="little") on 255 * 128 float16.
PairReduceSum: a[0::2] + a[1::2] in float16 on 255 * 128 elements.
Prints the best-of time per call and elements per second.
"""
import timeit

import numpy as np

n = 255 * 128
rng = np.random.default_rng(0)
a = (rng.integers(0, 2000, n) / 100 - 10).astype(np.float16)
b = (rng.integers(0, 2000, n) / 100 - 10).astype(np.float16)

for name, stmt in [
    ("vec_cmpv_gt f16 255rep", lambda: np.packbits(a > b, bitorder="little")),
    ("PairReduceSum f16 255rep", lambda: a[0::2] + a[1::2]),
]:
    reps = 200
    best = min(timeit.repeat(stmt, number=reps, repeat=7)) / reps
    print(f"{name}: {best * 1e6:.2f} us/call, {n / best / 1e9:.3f} G elements/s")
