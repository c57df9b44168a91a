"""CPU cost of observing a run: `npusim run` of the row softmax with tracing and the hazard
checker off and on, interleaved, CPU time (user + sys, getrusage) per process, medians.

    python3 docs/tools/observe_cost.py target/release/npusim 15

Run from the repository root; writes x/y inputs (256 x 1024 f32) and traces to a temp dir.
"""
import os, resource, statistics, subprocess, sys, tempfile

import numpy as np

B, N = os.path.abspath(sys.argv[1]), int(sys.argv[2])
K = os.path.abspath("examples/pto/row_softmax.pto")
KS = os.path.abspath("crates/npusim-ptoas/tests/data/hazards/row_softmax_synced.pto")
d = tempfile.mkdtemp()
np.save(f"{d}/x.npy", (np.arange(256 * 1024) % 13 * 0.25).astype(np.float32).reshape(256, 1024))
np.save(f"{d}/y.npy", np.zeros((256, 1024), np.float32))
base = ["--arg", f"x={d}/x.npy", "--arg", f"y={d}/y.npy", "--arg", "n_rows=256", "--blocks", "1"]
modes = {
    "off": [K, *base, "--hazards=off"],
    "trace": [K, *base, "--hazards=off", "--trace", f"{d}/t.json"],
    "synced off": [KS, *base, "--hazards=off"],
    "synced hazards": [KS, *base, "--hazards=warn"],
    "synced trace+hazards": [KS, *base, "--hazards=warn", "--trace", f"{d}/t2.json"],
}
res = {m: [] for m in modes}
for _ in range(N):
    for m, a in modes.items():
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([B, "run", *a], capture_output=True, check=True)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        res[m].append(1000 * ((r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)))
for m, v in res.items():
    print(f"{m:24s} CPU median {statistics.median(v):7.1f} ms  min {min(v):7.1f}  max {max(v):7.1f} ({N} runs)")
