#!/usr/bin/env python3
"""numpy baseline for benches/tpu.rs: float32 add of two (1, 64, 32, 64) arrays and of two
(1, 4, 1, 16) arrays into a preallocated output (np.add(a, b, out=d)); best and median of
several runs, in microseconds."""
import time

import numpy as np


def bench(name, fn, reps=2000):
    fn()
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    ts.sort()
    print("%-32s best %8.2f us  median %8.2f us" % (name, ts[0] * 1e6, ts[len(ts) // 2] * 1e6))


for shape in ((1, 4, 1, 16), (1, 64, 32, 64)):
    a = np.arange(np.prod(shape), dtype=np.float32).reshape(shape) * np.float32(0.25)
    b = a.copy()
    d = np.empty_like(a)
    bench("numpy add f32 %s" % (shape,), lambda: np.add(a, b, out=d))
