#!/usr/bin/env python3
"""Side-by-side speed of issue #16 (acceptance 4): per-call time of Sophgo's BM1684X C-model
and of numpy for the calls `crates/npusim-tpu/benches/tpu.rs` measures, next to npusim's
criterion figures when they exist (`--criterion DIR`, the `target/criterion` folder of the
bench run), with the ratios.

Calls (each followed by tpu_poll on the C-model): tpu_bdc_fp_add f32 on (1,4,1,16) and
(1,64,32,64); tpu_bdc_int_add i16 shift -2 saturating (RM_HALF_TO_EVEN); tpu_bdc_greater_select
f32 (tensors, scalar 0 as src3); tpu_bdc_fp_avg_pool2d / fp_max_pool2d 3x3 f32; tpu_bdc_fp32_exp
f32; tpu_gdma_cpy_S2L f32, all on (1,64,32,64) unless said; numpy does the same arithmetic
(float32 add, int16 add with a rounding shift and clip, where, 3x3 pools as sums of shifted
views, exp).

Needs `libcmodel_bm1684x.so` from the PyPI wheel tpu-mlir==1.30.2 (see scripts/cmodel.py) and
numpy. Run, after `cargo bench -p npusim-tpu --bench tpu`:
    python3 scripts/bench_tpu_cmodel.py --lib /tmp/wheel/tpu_mlir/lib/libcmodel_bm1684x.so \\
        --criterion $CARGO_TARGET_DIR/criterion
"""
import argparse
import ctypes
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cmodel import dim4, open_lib  # noqa: E402


class dim2(ctypes.Structure):
    _fields_ = [("h", ctypes.c_int), ("w", ctypes.c_int)]


class padding(ctypes.Structure):
    _fields_ = [(k, ctypes.c_int) for k in ("top", "bottom", "left", "right")]


def best(fn, reps):
    fn()
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    ts.sort()
    return ts[0] * 1e6, ts[len(ts) // 2] * 1e6


def criterion_us(root, name):
    """npusim's median from criterion's estimates (microseconds)."""
    if not root:
        return None
    d = os.path.join(root, name, "new", "estimates.json")
    if not os.path.exists(d):
        return None
    with open(d) as f:
        e = json.load(f)
    return e["median"]["point_estimate"] / 1e3


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True)
    ap.add_argument("--reps", type=int, default=50)
    ap.add_argument("--criterion", help="target/criterion folder of a cargo bench run")
    args = ap.parse_args()
    import numpy as np
    L = open_lib(args.lib, sfu=True)
    U64, U32, P, I, B = ctypes.c_ulonglong, ctypes.c_uint32, ctypes.c_void_p, ctypes.c_int, \
        ctypes.byref
    L.tpu_bdc_fp_add.argtypes = [U32, U32, U32, P, P, P, P, I]
    L.tpu_gdma_cpy_S2L.argtypes = [U32, U64, P, P, P, I]
    L.tpu_bdc_int_add.argtypes = [U32, U32, U32, P, P, P, P, I, I, I, ctypes.c_char, I, I]
    L.tpu_bdc_fp_avg_pool2d.argtypes = [U32, U32, P, P, P, P, P, I, U32]
    L.tpu_bdc_fp_max_pool2d.argtypes = [U32, U32, P, P, P, P, P, I, U32]
    L.tpu_bdc_fp32_exp.argtypes = [U32] * 6 + [P]
    L.tpu_bdc_load_fp32_exp_coeff.argtypes = [U32]
    g = L.cmodel_get_gmem_start_addr()
    small, big = dim4(1, 4, 1, 16), dim4(1, 64, 32, 64)
    k3, one, nopad = dim2(3, 3), dim2(1, 1), padding(0, 0, 0, 0)

    class var(ctypes.Structure):
        _fields_ = [("is_const", ctypes.c_int), ("addr", ctypes.c_uint32)]

    # variable_t is {int type; union {local_addr_t addr; scalar_t scalar;} context;}
    L.tpu_bdc_greater_select.argtypes = [U32, P, P, P, P, P, I, I]
    t0, t1, t2 = var(0, 0), var(0, 0x10000), var(0, 0x30000)
    t3 = var(1, 0)
    L.tpu_bdc_load_fp32_exp_coeff(0x3ff00)
    L.tpu_poll()

    def poll(f):
        def run():
            f()
            L.tpu_poll()
        return run

    cm = {
        "bdc_fp_add f32 (1,4,1,16)": poll(lambda: L.tpu_bdc_fp_add(
            0x20000, 0, 0x10000, B(small), None, None, None, 5)),
        "bdc_fp_add f32 (1,64,32,64)": poll(lambda: L.tpu_bdc_fp_add(
            0x20000, 0, 0x10000, B(big), None, None, None, 5)),
        "bdc_int_add i16 shift -2 sat (1,64,32,64)": poll(lambda: L.tpu_bdc_int_add(
            0x20000, 0, 0x10000, B(big), None, None, None, 7, 7, 7, b"\xfe", 0, 1)),
        "bdc_greater_select f32 (1,64,32,64)": poll(lambda: L.tpu_bdc_greater_select(
            0x20000, B(t0), B(t1), B(t2), B(t3), B(big), 5, 5)),
        "bdc_fp_avg_pool2d f32 3x3 (1,64,32,64)": poll(lambda: L.tpu_bdc_fp_avg_pool2d(
            0x20000, 0, B(big), B(k3), B(nopad), B(one), B(one), 5, 0x3DE38E39)),
        "bdc_fp_max_pool2d f32 3x3 (1,64,32,64)": poll(lambda: L.tpu_bdc_fp_max_pool2d(
            0x20000, 0, B(big), B(k3), B(nopad), B(one), B(one), 5, 0xFF800000)),
        "bdc_fp32_exp f32 (1,64,32,64)": poll(lambda: L.tpu_bdc_fp32_exp(
            0x20000, 0, 0x10000, 0x30000, 0x3ff00, 0x3ff00, B(big))),
        "gdma_cpy_S2L f32 (1,64,32,64)": poll(lambda: L.tpu_gdma_cpy_S2L(
            0x30000, g, B(big), None, None, 5)),
    }
    shape = (1, 64, 32, 64)
    a = (np.arange(np.prod(shape), dtype=np.float32).reshape(shape) * np.float32(0.25)) % 7
    b = a[:, :, ::-1].copy()
    c = a * np.float32(2)
    d = np.empty_like(a)
    sa = np.arange(64, dtype=np.float32).reshape(1, 4, 1, 16)
    sd = np.empty_like(sa)
    ai = (np.arange(np.prod(shape)) % 30000).astype(np.int16).reshape(shape)
    bi = ai[:, :, ::-1].copy()
    di = np.empty_like(ai)
    acc = np.empty(shape, dtype=np.int32)
    o = np.empty((1, 64, 30, 62), dtype=np.float32)

    def int_add():
        np.add(ai, bi, out=acc, dtype=np.int32)
        np.add(acc, 2, out=acc)
        np.right_shift(acc, 2, out=acc)
        np.clip(acc, -32768, 32767, out=acc)
        di[...] = acc

    def pool(op):
        def run():
            o[...] = a[:, :, 0:30, 0:62]
            for i in range(3):
                for j in range(3):
                    if i or j:
                        op(o, a[:, :, i:i + 30, j:j + 62], out=o)
        return run

    npf = {
        "bdc_fp_add f32 (1,4,1,16)": lambda: np.add(sa, sa, out=sd),
        "bdc_fp_add f32 (1,64,32,64)": lambda: np.add(a, b, out=d),
        "bdc_int_add i16 shift -2 sat (1,64,32,64)": int_add,
        "bdc_greater_select f32 (1,64,32,64)": lambda: np.where(a > b, c, np.float32(0)),
        "bdc_fp_avg_pool2d f32 3x3 (1,64,32,64)": pool(np.add),
        "bdc_fp_max_pool2d f32 3x3 (1,64,32,64)": pool(np.maximum),
        "bdc_fp32_exp f32 (1,64,32,64)": lambda: np.exp(a, out=d),
        "gdma_cpy_S2L f32 (1,64,32,64)": lambda: np.copyto(d, a),
    }
    print("%-42s %12s %12s %12s %10s %10s" % ("call (best of runs, us)", "C-model", "numpy",
                                            "npusim", "vs C-model", "vs numpy"))
    for name, fn in cm.items():
        c_best, _ = best(fn, args.reps)
        n_best, _ = best(npf[name], 200)
        ours = criterion_us(args.criterion, name)
        if ours:
            print("%-42s %12.1f %12.1f %12.1f %9.0fx %9.2fx" % (
                name, c_best, n_best, ours, c_best / ours, n_best / ours))
        else:
            print("%-42s %12.1f %12.1f %12s" % (name, c_best, n_best, "-"))


if __name__ == "__main__":
    main()
