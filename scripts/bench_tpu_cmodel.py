#!/usr/bin/env python3
"""Side-by-side speed of issue #16 (acceptance 4): per-call time of Sophgo's BM1684X C-model
and of numpy for the calls `crates/npusim-tpu/benches/tpu.rs` measures, next to npusim's
criterion figures when they exist (`--criterion DIR`, the `target/criterion` folder of the
bench run), with the ratios.

Calls (each followed by tpu_poll on the C-model), each on (1,4,1,16) ((1,4,4,16) for the
pools) and on (1,64,32,64): tpu_bdc_fp_add f32; tpu_bdc_int_add i16 shift -2 saturating (RM_HALF_TO_EVEN); tpu_bdc_greater_select
f32 (tensors, scalar 0 as src3); tpu_bdc_fp_avg_pool2d / fp_max_pool2d 3x3 f32; tpu_bdc_fp32_exp
f32; tpu_bdc_fp32_log f32; tpu_gdma_cpy_S2L f32; numpy does the same arithmetic (float32
add, int16 add with a rounding shift and clip, where, 3x3 pools as sums of shifted views, exp,
log of x + 1).

Needs `libcmodel_bm1684x.so` from the PyPI wheel tpu-mlir==1.30.2 (see scripts/cmodel.py) and
numpy. Run, all three side by side in one run (npusim's best-of bench binary is started by
this script; `cargo bench -p npusim-tpu --bench tpu_best --no-run` prints its path):
    python3 scripts/bench_tpu_cmodel.py --lib /tmp/wheel/tpu_mlir/lib/libcmodel_bm1684x.so \\
        --npusim $CARGO_TARGET_DIR/release/deps/tpu_best-<hash>
or, after `cargo bench -p npusim-tpu --bench tpu`, with criterion's medians:
    python3 scripts/bench_tpu_cmodel.py --lib ... --criterion $CARGO_TARGET_DIR/criterion

The C-model's wall time per call varies by orders of magnitude between calls (its engine
threads are scheduled by the host; on a loaded 2-core machine a small add took from 3 us to
200 ms): the best run approximates its compute time, the median what a caller waits.
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


def npusim_times(binary, reps):
    """Runs the npusim best-of bench binary (benches/tpu_best.rs); {name: (best, median)} us."""
    import subprocess
    out = subprocess.run([binary, str(reps)], capture_output=True, text=True, check=True).stdout
    res = {}
    for line in out.splitlines():
        if line.startswith("{"):
            d = json.loads(line)
            res[d["name"]] = (d["best_us"], d["median_us"])
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True)
    ap.add_argument("--reps", type=int, default=50)
    ap.add_argument("--criterion", help="target/criterion folder of a cargo bench run")
    ap.add_argument("--npusim", help="the tpu_best bench binary (benches/tpu_best.rs): run "
                    "in this same run, best and median of --npusim-reps calls")
    ap.add_argument("--npusim-reps", type=int, default=200)
    ap.add_argument("--npusim-before", help="an older build of the same binary, shown beside "
                    "(best of its calls) for before/after figures from one run")
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
    L.tpu_bdc_fp32_log.argtypes = [U32] * 4 + [P]
    L.tpu_bdc_load_fp32_log_coeff.argtypes = [U32]
    g = L.cmodel_get_gmem_start_addr()
    k3, one, nopad = dim2(3, 3), dim2(1, 1), padding(0, 0, 0, 0)

    class var(ctypes.Structure):
        _fields_ = [("is_const", ctypes.c_int), ("addr", ctypes.c_uint32)]

    # variable_t is {int type; union {local_addr_t addr; scalar_t scalar;} context;}
    L.tpu_bdc_greater_select.argtypes = [U32, P, P, P, P, P, I, I]
    t0, t1, t2 = var(0, 0), var(0, 0x10000), var(0, 0x30000)
    t3 = var(1, 0)
    L.tpu_bdc_load_fp32_exp_coeff(0x3ff00)
    L.tpu_bdc_load_fp32_log_coeff(0x3fe00)
    L.tpu_poll()

    def poll(f):
        def run():
            f()
            L.tpu_poll()
        return run

    cm, npf = {}, {}
    for size, sh, psh in (("(1,4,1,16)", (1, 4, 1, 16), (1, 4, 4, 16)),
                          ("(1,64,32,64)", (1, 64, 32, 64), (1, 64, 32, 64))):
        s, ps = dim4(*sh), dim4(*psh)
        psize = "(1,4,4,16)" if psh != sh else size
        cm.update({
            "bdc_fp_add f32 " + size: poll(lambda s=s: L.tpu_bdc_fp_add(
                0x20000, 0, 0x10000, B(s), None, None, None, 5)),
            "bdc_int_add i16 shift -2 sat " + size: poll(lambda s=s: L.tpu_bdc_int_add(
                0x20000, 0, 0x10000, B(s), None, None, None, 7, 7, 7, b"\xfe", 0, 1)),
            "bdc_greater_select f32 " + size: poll(lambda s=s: L.tpu_bdc_greater_select(
                0x20000, B(t0), B(t1), B(t2), B(t3), B(s), 5, 5)),
            "bdc_fp_avg_pool2d f32 3x3 " + psize: poll(lambda ps=ps: L.tpu_bdc_fp_avg_pool2d(
                0x20000, 0, B(ps), B(k3), B(nopad), B(one), B(one), 5, 0x3DE38E39)),
            "bdc_fp_max_pool2d f32 3x3 " + psize: poll(lambda ps=ps: L.tpu_bdc_fp_max_pool2d(
                0x20000, 0, B(ps), B(k3), B(nopad), B(one), B(one), 5, 0xFF800000)),
            "bdc_fp32_exp f32 " + size: poll(lambda s=s: L.tpu_bdc_fp32_exp(
                0x20000, 0, 0x10000, 0x30000, 0x3ff00, 0x3ff00, B(s))),
            "bdc_fp32_log f32 " + size: poll(lambda s=s: L.tpu_bdc_fp32_log(
                0x20000, 0, 0x30000, 0x3fe00, B(s))),
            "gdma_cpy_S2L f32 " + size: poll(lambda s=s: L.tpu_gdma_cpy_S2L(
                0x30000, g, B(s), None, None, 5)),
        })
        a = (np.arange(np.prod(sh), dtype=np.float32).reshape(sh) * np.float32(0.25)) % 7
        b = a[:, :, ::-1].copy()
        c = a * np.float32(2)
        d = np.empty_like(a)
        pa = (np.arange(np.prod(psh), dtype=np.float32).reshape(psh) * np.float32(0.25)) % 7
        ai = (np.arange(np.prod(sh)) % 30000).astype(np.int16).reshape(sh)
        bi = ai[:, :, ::-1].copy()
        di = np.empty_like(ai)
        acc = np.empty(sh, dtype=np.int32)
        o = np.empty(psh[:2] + (psh[2] - 2, psh[3] - 2), dtype=np.float32)

        def int_add(ai=ai, bi=bi, acc=acc, di=di):
            np.add(ai, bi, out=acc, dtype=np.int32)
            np.add(acc, 2, out=acc)
            np.right_shift(acc, 2, out=acc)
            np.clip(acc, -32768, 32767, out=acc)
            di[...] = acc

        def pool(op, pa=pa, o=o):
            oh, ow = o.shape[2], o.shape[3]

            def run():
                o[...] = pa[:, :, 0:oh, 0:ow]
                for i in range(3):
                    for j in range(3):
                        if i or j:
                            op(o, pa[:, :, i:i + oh, j:j + ow], out=o)
            return run

        npf.update({
            "bdc_fp_add f32 " + size: lambda a=a, b=b, d=d: np.add(a, b, out=d),
            "bdc_int_add i16 shift -2 sat " + size: int_add,
            "bdc_greater_select f32 " + size: lambda a=a, b=b, c=c: np.where(
                a > b, c, np.float32(0)),
            "bdc_fp_avg_pool2d f32 3x3 " + psize: pool(np.add),
            "bdc_fp_max_pool2d f32 3x3 " + psize: pool(np.maximum),
            "bdc_fp32_exp f32 " + size: lambda a=a, d=d: np.exp(a, out=d),
            "bdc_fp32_log f32 " + size: lambda a=a, d=d: np.log(a + np.float32(1), out=d),
            "gdma_cpy_S2L f32 " + size: lambda a=a, d=d: np.copyto(d, a),
        })
    ours = npusim_times(args.npusim, args.npusim_reps) if args.npusim else {}
    before = npusim_times(args.npusim_before, args.npusim_reps) if args.npusim_before else {}
    print("times in us; C-model: best / median of single calls; npusim: best / median per "
          "call (calls under 1 us timed in batches of 32); numpy: best")
    print("%-42s %19s %9s %17s %17s %9s" % ("call", "C-model best/med", "numpy",
                                            "npusim best/med", "vs C-model b/m", "vs numpy"))
    for name, fn in cm.items():
        c_best, c_med = best(fn, args.reps)
        n_best, _ = best(npf[name], 200)
        if name in ours:
            o_best, o_med = ours[name]
            extra = ""
            if name in before:
                extra = "   before %8.2f (%5.0fx)" % (before[name][0], c_best / before[name][0])
            print("%-42s %9.1f %9.1f %9.1f %8.2f %8.2f %8.0fx %8.0fx %8.2fx%s" % (
                name, c_best, c_med, n_best, o_best, o_med, c_best / o_best, c_med / o_med,
                n_best / o_best, extra))
            continue
        crit = criterion_us(args.criterion, name)
        if crit:
            print("%-42s %9.1f %9.1f %9.1f %8.2f %8s %8.0fx %8s %8.2fx" % (
                name, c_best, c_med, n_best, crit, "-", c_best / crit, "-", n_best / crit))
        else:
            print("%-42s %9.1f %9.1f %9.1f" % (name, c_best, c_med, n_best))


if __name__ == "__main__":
    main()
