"""numpy's equivalents of benches/sort_gather.rs (issue 15 acceptance 5), timed with timeit."""
import timeit

import numpy as np

rng = np.random.default_rng(1)
x = ((rng.random(8192, dtype=np.float32) - 0.5) * 1000).astype(np.float32)
idx = np.arange(8192, dtype=np.uint32)


def sort_records():
    order = np.argsort(-x, kind="stable")
    return x[order], idx[order]


src = rng.random((64, 128), dtype=np.float32)
perm = ((np.arange(64 * 128, dtype=np.int64) * 2654435761) % (64 * 128)).astype(np.int32).reshape(64, 128)


def gather():
    return src.ravel()[perm]


for name, f in [("stable sort 8192 f32 + index", sort_records), ("gather 64x128 f32", gather)]:
    n, _ = timeit.Timer(f).autorange()
    best = min(timeit.repeat(f, number=n, repeat=5)) / n
    print(f"numpy {np.__version__} {name}: {best * 1e6:.2f} us")
