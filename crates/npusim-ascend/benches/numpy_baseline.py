"""numpy baseline for the Ascend vector benchmarks (same sizes as benches/vector.rs).

vec_cmpv_gt: np.packbits(a > b, bitorder="little") on 255 * 128 float16.
PairReduceSum: a[0::2] + a[1::2] in float16 on 255 * 128 elements.
Add / Muls / Exp: np.add(a, b, out=d) / np.multiply(a, 1.5, out=d) / np.exp(a, out=d) on
255 repeats (255 * 128 float16, 255 * 64 float32); Cast: d[...] = a (astype into a
preallocated array) on 255 * 64 elements.
Prints the best-of and the median time per call (7 runs of 200 calls) and elements per second
(from the best); compare with criterion's figures taken in the same session.
"""
import timeit

import numpy as np

n = 255 * 128
rng = np.random.default_rng(0)
a = (rng.integers(0, 2000, n) / 100 - 10).astype(np.float16)
b = (rng.integers(0, 2000, n) / 100 - 10).astype(np.float16)

n32 = 255 * 64
a32 = (rng.integers(0, 2000, n32) / 100 - 10).astype(np.float32)
b32 = (rng.integers(0, 2000, n32) / 100 - 10).astype(np.float32)
d16 = np.empty(n, np.float16)
d32 = np.empty(n32, np.float32)
h64 = np.empty(n32, np.float16)
a16_64 = a32.astype(np.float16)
sizes = {}

for name, stmt in [
    ("vec_cmpv_gt f16 255rep", lambda: np.packbits(a > b, bitorder="little")),
    ("PairReduceSum f16 255rep", lambda: a[0::2] + a[1::2]),
    ("vec_add f16 255rep", lambda: np.add(a, b, out=d16)),
    ("vec_add f32 255rep", lambda: np.add(a32, b32, out=d32)),
    ("vec_muls f16 255rep", lambda: np.multiply(a, np.float16(1.5), out=d16)),
    ("vec_muls f32 255rep", lambda: np.multiply(a32, np.float32(1.5), out=d32)),
    ("vec_conv f32->f16 255rep", lambda: h64.__setitem__(Ellipsis, a32)),
    ("vec_conv f16->f32 255rep", lambda: d32.__setitem__(Ellipsis, a16_64)),
    ("vec_exp f16 255rep", lambda: np.exp(a, out=d16)),
    ("vec_exp f32 255rep", lambda: np.exp(a32, out=d32)),
]:
    count = n32 if ("f32" in name or "conv" in name) else n
    reps = 200
    runs = sorted(t / reps for t in timeit.repeat(stmt, number=reps, repeat=7))
    best, median = runs[0], runs[len(runs) // 2]
    print(f"{name}: best {best * 1e6:.2f} us/call, median {median * 1e6:.2f} us/call, "
          f"{count / best / 1e9:.3f} G elements/s")

# This host's bandwidth at the f32 footprints: np.copyto of the bytes np.add f32 moves
# (2 x 65 KB read + 65 KB written = a copy of 98 KB) and np.multiply f32 moves (a copy of 65 KB).
src_b = np.arange(6 * n32, dtype=np.uint8)
dst_b = np.empty(6 * n32, np.uint8)
for name, nbytes in [("copy of Add f32's footprint", 6 * n32), ("copy of Muls f32's footprint", 4 * n32)]:
    s_, d_ = src_b[:nbytes], dst_b[:nbytes]
    reps = 200
    best = min(timeit.repeat(lambda: np.copyto(d_, s_), number=reps, repeat=7)) / reps
    print(f"numpy {name}: best {best * 1e6:.2f} us/call, {2 * nbytes / best / 1e9:.1f} GB/s moved")

# The fixed cost of a small call: np.add on 128 float16 (one repeat of vec_add).
a128, b128, d128 = a[:128].copy(), b[:128].copy(), np.empty(128, np.float16)
reps = 20000
best = min(timeit.repeat(lambda: np.add(a128, b128, out=d128), number=reps, repeat=7)) / reps
print(f"vec_add f16 1rep (128 elements): {best * 1e9:.1f} ns/call")
