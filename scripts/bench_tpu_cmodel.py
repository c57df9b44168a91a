#!/usr/bin/env python3
"""Per-call time of Sophgo's BM1684X C-model for the calls benches/tpu.rs measures
(tpu_bdc_fp_add on (1,4,1,16) and (1,64,32,64) f32, tpu_gdma_cpy_S2L of (1,64,32,64) f32, each
followed by tpu_poll), for the speed comparison of issue #16.

Needs `libcmodel_bm1684x.so` from the PyPI wheel tpu-mlir==1.30.2 (see scripts/gen_hau_golden.py).
Run: python3 scripts/bench_tpu_cmodel.py --lib /tmp/wheel/tpu_mlir/lib/libcmodel_bm1684x.so
"""
import argparse
import ctypes
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cmodel import dim4, open_lib  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True)
    ap.add_argument("--reps", type=int, default=200)
    a = ap.parse_args()
    L = open_lib(a.lib)
    U64, U32, P, I = ctypes.c_ulonglong, ctypes.c_uint32, ctypes.c_void_p, ctypes.c_int
    L.tpu_bdc_fp_add.argtypes = [U32, U32, U32, P, P, P, P, I]
    L.tpu_gdma_cpy_S2L.argtypes = [U32, U64, P, P, P, I]
    g = L.cmodel_get_gmem_start_addr()
    small, big = dim4(1, 4, 1, 16), dim4(1, 64, 32, 64)

    def bench(name, fn):
        fn()
        ts = []
        for _ in range(a.reps):
            t = time.perf_counter()
            fn()
            ts.append(time.perf_counter() - t)
        mean = sum(ts) / len(ts)
        ts.sort()
        print("%-38s best %10.1f us  p10 %10.1f us  median %10.1f us  mean %10.1f us"
              % (name, ts[0] * 1e6, ts[len(ts) // 10] * 1e6, ts[len(ts) // 2] * 1e6,
                 mean * 1e6))

    def add(shape):
        L.tpu_bdc_fp_add(0x20000, 0, 0x10000, ctypes.byref(shape), None, None, None, 5)
        L.tpu_poll()

    def s2l():
        L.tpu_gdma_cpy_S2L(0x30000, g, ctypes.byref(big), None, None, 5)
        L.tpu_poll()

    bench("C-model bdc_fp_add f32 (1,4,1,16)", lambda: add(small))
    bench("C-model bdc_fp_add f32 (1,64,32,64)", lambda: add(big))
    bench("C-model gdma_cpy_S2L f32 (1,64,32,64)", s2l)


if __name__ == "__main__":
    main()
