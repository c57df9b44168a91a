"""Issue 14 acceptance 5: one vec_add recorded once in a for_range of N iterations and run by
npusim.tik, against the same loop unrolled in pure-Python numpy. Needs the extension built in
release mode (pip install . from the repository root). Prints best-of-5 times and the ratio,
by the wall clock and by the process's CPU time (the second is steadier on a loaded machine)."""
import time

import numpy as np

from npusim.tbe import tik

N = 10**4
t = tik.Tik()
g = t.Tensor("float16", (128,), name="g", scope=tik.scope_gm)
a = t.Tensor("float16", (128,), name="a", scope=tik.scope_ubuf)
b = t.Tensor("float16", (128,), name="b", scope=tik.scope_ubuf)
t.data_move(a, g, 0, 1, 8, 0, 0)
with t.for_range(0, N):
    t.vec_add(128, b, a, a, 1, 8, 8, 8)
t.data_move(g, b, 0, 1, 8, 0, 0)
t.BuildCCE(kernel_name="k", inputs=[g], outputs=[g])
x = np.ones(128, np.float16)


def npusim_run():
    t.tikdb.start_debug(feed_dict={"g": x})


def numpy_run():
    A = x.copy()
    for _ in range(N):
        B = A + A  # noqa: F841
    return A


def best(f, clock):
    m = 1e9
    for _ in range(5):
        t0 = clock()
        f()
        m = min(m, clock() - t0)
    return m


out, = t.tikdb.start_debug(feed_dict={"g": x})
assert np.array_equal(out, x + x)
for label, clock in (("wall", time.perf_counter), ("cpu", time.process_time)):
    s, n = best(npusim_run, clock), best(numpy_run, clock)
    print(f"[{label}] npusim.tik {N} vec_add in for_range: {s*1e3:.3f} ms; "
          f"numpy unrolled: {n*1e3:.3f} ms; ratio {n/s:.1f}x")
