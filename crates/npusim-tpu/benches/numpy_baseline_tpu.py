#!/usr/bin/env python3
"""numpy baseline for benches/tpu.rs: float32 add of two (1, 64, 32, 64) arrays and of two
(1, 4, 1, 16) arrays into a preallocated output (np.add(a, b, out=d)); on (1, 64, 32, 64): an
int16 add with a rounding right shift by 2 and saturation, a select (np.where(a > b, c, 0)),
3x3 average and max pooling (stride 1, no padding, sums of shifted views); best and median of
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


shape = (1, 64, 32, 64)
ai = (np.arange(np.prod(shape)) % 30000).astype(np.int16).reshape(shape)
bi = ai[:, :, ::-1].copy()
di = np.empty_like(ai)
acc = np.empty(shape, dtype=np.int32)


def int_add_shift_sat():
    np.add(ai, bi, out=acc, dtype=np.int32)
    np.add(acc, 2, out=acc)
    np.right_shift(acc, 2, out=acc)
    np.clip(acc, -32768, 32767, out=acc)
    di[...] = acc


bench("numpy int16 add>>2 sat %s" % (shape,), int_add_shift_sat, reps=500)
a = np.arange(np.prod(shape), dtype=np.float32).reshape(shape) * np.float32(0.25)
b = a[:, :, ::-1].copy()
c = a * np.float32(2)
d = np.empty_like(a)
bench("numpy where(a>b,c,0) f32 %s" % (shape,), lambda: np.where(a > b, c, np.float32(0)),
      reps=500)
o = np.empty((1, 64, 30, 62), dtype=np.float32)


def avg3():
    np.multiply(a[:, :, 0:30, 0:62], np.float32(1 / 9), out=o)
    for i in range(3):
        for j in range(3):
            if i or j:
                o.__iadd__(a[:, :, i:i + 30, j:j + 62] * np.float32(1 / 9))


def max3():
    np.copyto(o, a[:, :, 0:30, 0:62])
    for i in range(3):
        for j in range(3):
            np.maximum(o, a[:, :, i:i + 30, j:j + 62], out=o)


bench("numpy avg_pool 3x3 f32 %s" % (shape,), avg3, reps=500)
bench("numpy max_pool 3x3 f32 %s" % (shape,), max3, reps=500)
