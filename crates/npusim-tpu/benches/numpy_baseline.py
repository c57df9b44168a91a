#!/usr/bin/env python3
"""numpy baseline for the HAU benchmarks of issue #5 (compare with `benches/hau.rs`).

Measures, on the same 1M float32 input as the Rust bench (splitmix64 from seed 42, top 24 bits
scaled to [0, 1)):
  * full stable argsort, descending order with ties by ascending index, the contract of
    tpu_hau_sort_natural_index with K = len: `np.argsort(-x, kind="stable")`;
  * the equivalent top-1000 computed via that argsort (`[:1000]`), as the issue specifies;
  * for information, top-1000 via `np.argpartition` followed by a stable argsort of the part.
Prints the best and median of several runs in milliseconds.
"""
import time

import numpy as np

N = 1 << 20
K = 1000


def splitmix64(seed, n):
    with np.errstate(over="ignore"):
        s = np.uint64(seed) + np.arange(1, n + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
        z = s
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def bench(name, fn, reps=15):
    fn()
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1e3)
    times.sort()
    print(f"{name:55s} best {times[0]:8.3f} ms   median {times[len(times) // 2]:8.3f} ms")


def main():
    x = ((splitmix64(42, N) >> np.uint64(40)).astype(np.float32)) * np.float32(1.0 / (1 << 24))
    print(f"numpy {np.__version__}, n = {N}, first values {x[:3]}")
    bench("argsort(-x, kind='stable')            [K = len]", lambda: np.argsort(-x, kind="stable"))
    bench("argsort(-x, kind='stable')[:1000]     [K = 1000]",
          lambda: np.argsort(-x, kind="stable")[:K])

    def part():
        p = np.argpartition(-x, K)[:K]
        return p[np.argsort(-x[p], kind="stable")]

    bench("argpartition + stable argsort          [K = 1000, info]", part)


if __name__ == "__main__":
    main()
