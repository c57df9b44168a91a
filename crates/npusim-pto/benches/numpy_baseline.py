"""numpy baseline for the tile_ops criterion bench: the same shapes, one thread, best of N."""
import timeit

import numpy as np


def best(stmt, n, g):
    t = timeit.Timer(stmt, globals=g)
    reps = t.repeat(repeat=7, number=n)
    return min(reps) / n


for dt in (np.float16, np.float32):
    for shape in ((64, 128), (16, 16)):
        rng = np.random.default_rng(0)
        a = (0.5 + rng.random(shape)).astype(dt)
        b = (0.5 + rng.random(shape)).astype(dt)
        c = np.empty_like(a)
        s = dt(1.5)
        g = dict(np=np, a=a, b=b, c=c, s=s, d=dt(3.0))
        n = 2000 if shape == (64, 128) else 20000
        elems = a.size
        for name, stmt in [
            ("TADD  add", "np.add(a, b, out=c)"),
            ("TMULS mul", "np.multiply(a, s, out=c)"),
            ("TDIVS div", "np.divide(a, d, out=c)"),
            ("TEXP  exp", "np.exp(a, out=c)"),
            ("TROWSUM sum", "np.sum(a, axis=1)"),
        ]:
            if shape == (16, 16) and not name.startswith("TADD"):
                continue
            sec = best(stmt, n, g)
            print(f"{np.dtype(dt).name:8s} {shape[0]}x{shape[1]:<4d} {name:12s} {sec * 1e9:10.1f} ns  {elems / sec / 1e9:7.3f} Gelem/s")

# The cube bench (benches/cube.rs): a 128x128x128 matmul, float16 and float32.
rng = np.random.default_rng(0)
for dt in (np.float16, np.float32):
    a = (0.5 + rng.random((128, 128))).astype(dt)
    b = (0.5 + rng.random((128, 128))).astype(dt)
    sec = best("a @ b", 200, dict(a=a, b=b))
    print(f"{np.dtype(dt).name:8s} 128x128x128 matmul {sec * 1e6:10.1f} us  {128**3 / sec / 1e9:7.3f} G mac/s")

# The same by CPU time of this thread (time.thread_time), best of 7 rounds: on a loaded machine
# this is what the criterion bench's NPUSIM_CPU_TIME=1 mode compares against. Run with
# OPENBLAS_NUM_THREADS=1 (one BLAS thread, whose time is this thread's).
import time


def cpu_best(f, n):
    f()
    best = float("inf")
    for _ in range(7):
        t0 = time.thread_time()
        for _ in range(n):
            f()
        best = min(best, (time.thread_time() - t0) / n)
    return best


for dt in (np.float16, np.float32):
    a = (0.5 + rng.random((128, 128))).astype(dt)
    b = (0.5 + rng.random((128, 128))).astype(dt)
    sec = cpu_best(lambda: a @ b, 20 if dt == np.float16 else 400)
    print(f"{np.dtype(dt).name:8s} 128x128x128 matmul {sec * 1e6:10.1f} us CPU")
x = np.ones((128, 128), np.float32)
y = np.empty_like(x)
sec = cpu_best(lambda: np.copyto(y, x), 4000)
print(f"float32  128x128 copyto        {sec * 1e6:10.2f} us CPU  {128 * 128 / sec / 1e9:7.3f} G elem/s")
