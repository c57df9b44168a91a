#!/usr/bin/env python3
"""Generate HAU golden vectors (denormal-heavy) from Sophgo's BM1684X C-model.

What it needs
  * Python 3 (standard library only; no numpy).
  * Sophgo's C-model library `libcmodel_bm1684x.so`. It ships in the PyPI wheel
    `tpu-mlir==1.30.2` (not part of this repository, never commit it or anything from it):
        pip download tpu-mlir==1.30.2 --no-deps --python-version 3.10 \
            --only-binary=:all: -d /tmp/wheel
        cd /tmp/wheel && unzip tpu_mlir-1.30.2-py3-none-any.whl 'tpu_mlir/lib/libcmodel_*'
    The library loads from any Python through ctypes (its only deps are libc, libm, libstdc++).

How to run
    python3 scripts/gen_hau_golden.py --lib /tmp/wheel/tpu_mlir/lib/libcmodel_bm1684x.so \
        --out golden/hau/denormals.json [--seed 19]

What it writes
  One JSON object `{source, seed, note, cases}` in the format of `golden/hau/README.md` (the
  format `npusim hau check` / `npusim_tpu::golden::replay_file` reads): every array holds
  unsigned bit patterns, outputs are whole buffers after the call, pre-filled with
  `out_fill_byte`. The cases stress f32 denormals: all three sorts, ascending and descending,
  K from 1 to len, denormals mixed with +-0, NaN payloads, +-inf, the smallest normals and
  ties (repeated denormal patterns); i32/u32 sorts of the same bit patterns as controls; and
  `line_gather` moving denormal payloads of every 16/32-bit float type (also as the fill
  constant C).

How it drives the C-model (traps handled)
  * `cmodel_init(0, gmem_bytes)` then `tpu_initialize()`; global memory is reached through the
    host pointer `get_global_memaddr(0)`, device addresses start at
    `cmodel_get_gmem_start_addr()`.
  * `cmodel_init` switches the host FPU to flush-to-zero / denormals-are-zero. All values here
    are built and stored as integer bit patterns (no float arithmetic in Python), and the FP
    environment saved with libm's `fegetenv` before the call is restored with `fesetenv`.
  * A violated C-model assert kills the process (`exit(233)`). Cases run in a worker
    subprocess; if a worker dies, its batch is re-run one case per subprocess and the case
    that kills the model is reported on stderr and left out.
"""

import argparse
import ctypes
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cmodel import DTYPE_CODE, ESIZE, FILL, get, open_lib, put, run_all, worker, write_doc  # noqa: E402

# ---------------------------------------------------------------------------------------------
# Worker: runs cases on the C-model.


class CModel:
    def __init__(self, lib_path):
        lib = open_lib(lib_path)
        U64, I, B, U32 = ctypes.c_ulonglong, ctypes.c_int, ctypes.c_bool, ctypes.c_uint32
        lib.tpu_hau_sort.argtypes = [U64, U64, I, I, B, I]
        lib.tpu_hau_sort_natural_index.argtypes = [U64, U64, U64, I, I, B, I]
        lib.tpu_hau_sort_specific_index.argtypes = [U64, U64, U64, U64, I, I, B, I]
        # scalar_t is a 32-bit union passed by value: an INTEGER-class argument.
        lib.tpu_hau_line_gather.argtypes = [U64, U64, U64, U32, I, I, I, I, I, I, B]
        self.lib = lib
        self.host = lib.get_global_memaddr(0)
        self.dev = lib.cmodel_get_gmem_start_addr()

    def write(self, off, words, esize):
        put(self.host + off, words, esize)

    def fill(self, off, nbytes):
        ctypes.memset(self.host + off, FILL, nbytes)

    def read(self, off, n, esize):
        return get(self.host + off, n, esize)

    def run(self, c):
        lib, d = self.lib, self.dev
        if c["op"] == "line_gather":
            es = ESIZE[c["dtype"]]
            ll, il = c["line_len"], c["index_len"]
            p_off = 0
            i_off = align64(len(c["param"]) * es + 64)
            o_off = i_off + align64(il * 4 + 64)
            self.write(p_off, c["param"], es)
            self.write(i_off, c["index"], 4)
            self.fill(o_off, il * ll * es)
            lib.tpu_hau_line_gather(d + o_off, d + p_off, d + i_off, c["c_bits"],
                                    c["line_num"], ll, il, c["start"], c["end"],
                                    DTYPE_CODE[c["dtype"]], c["fill_const"])
            lib.tpu_hau_poll()
            c["out_fill_byte"] = FILL
            c["out"] = self.read(o_off, il * ll, es)
            return c
        n, k, desc, dt = c["len"], c["k"], c["descended"], DTYPE_CODE[c["dtype"]]
        step = align64(4 * n + 64)
        i_off, ii_off, o_off, oi_off = 0, step, 2 * step, 3 * step
        self.write(i_off, c["input"], 4)
        if "input_idx" in c:
            self.write(ii_off, c["input_idx"], 4)
        self.fill(o_off, 4 * n)
        self.fill(oi_off, 4 * n)
        if c["op"] == "sort":
            lib.tpu_hau_sort(d + o_off, d + i_off, n, k, desc, dt)
        elif c["op"] == "sort_natural_index":
            lib.tpu_hau_sort_natural_index(d + o_off, d + oi_off, d + i_off, n, k, desc, dt)
        else:
            lib.tpu_hau_sort_specific_index(d + o_off, d + oi_off, d + i_off, d + ii_off, n, k,
                                            desc, dt)
        lib.tpu_hau_poll()
        c["out_fill_byte"] = FILL
        c["out_data"] = self.read(o_off, n, 4)
        if c["op"] != "sort":
            c["out_idx"] = self.read(oi_off, n, 4)
        return c


def align64(x):
    return (x + 63) & ~63


# ---------------------------------------------------------------------------------------------
# Case generation (integer bit patterns only).

POS_DEN = [0x00000001, 0x00000002, 0x00000100, 0x00400000, 0x007FFFFE, 0x007FFFFF]
ZEROS = [0x00000000, 0x80000000]
NANS = [0x7FC00000, 0xFFC00000, 0x7F800001, 0xFFBFFFFF, 0x7FFFFFFF]
INFS = [0x7F800000, 0xFF800000]
MIN_NORMAL = [0x00800000, 0x80800000, 0x00800001, 0x80800001]
SMALL_NORMAL = [0x3F800000, 0xBF800000, 0x3F000000, 0xBF000000, 0x40000000, 0xC0000000]


def neg(b):
    return b | 0x80000000


def denormal(rng):
    b = rng.choice(POS_DEN) if rng.random() < 0.6 else rng.randrange(1, 0x800000)
    return neg(b) if rng.random() < 0.5 else b


def pool_value(rng, mix):
    """One f32 pattern drawn from the named mix."""
    r = rng.random()
    if mix == "den_only":
        return denormal(rng)
    if mix == "den_zero":
        return denormal(rng) if r < 0.6 else rng.choice(ZEROS)
    if mix == "den_zero_nan":
        if r < 0.45:
            return denormal(rng)
        if r < 0.75:
            return rng.choice(ZEROS)
        return rng.choice(NANS)
    if mix == "den_ties":
        # few distinct patterns, many repeats
        return rng.choice([0x00000001, 0x80000001, 0x00000000, 0x80000000, 0x007FFFFF])
    if mix == "den_edges":
        if r < 0.4:
            return denormal(rng)
        if r < 0.6:
            return rng.choice(MIN_NORMAL)
        if r < 0.75:
            return rng.choice(ZEROS)
        if r < 0.85:
            return rng.choice(INFS)
        return rng.choice(SMALL_NORMAL)
    # "all": everything, plus arbitrary patterns
    if r < 0.3:
        return denormal(rng)
    if r < 0.45:
        return rng.choice(ZEROS)
    if r < 0.55:
        return rng.choice(NANS)
    if r < 0.6:
        return rng.choice(INFS)
    if r < 0.7:
        return rng.choice(MIN_NORMAL + SMALL_NORMAL)
    return rng.getrandbits(32)


MIXES = ["den_only", "den_zero", "den_zero_nan", "den_ties", "den_edges", "all"]


def k_choices(rng, n):
    ks = {1, n, max(1, n // 2), rng.randint(1, n)}
    return sorted(ks)


def sort_cases(rng):
    cases = []
    ops = ["sort", "sort_natural_index", "sort_specific_index"]
    # Hand-made small cases: every op, both directions, K = len.
    small = [
        [0x00000001, 0x00000000],
        [0x00000000, 0x00000001],
        [0x80000001, 0x00000001],
        [0x00000001, 0x80000000, 0x80000001, 0x007FFFFF, 0x00000000],
        [0x00800000, 0x007FFFFF, 0x80800000, 0x807FFFFF],
        [0x00000001, 0x7FC00000, 0x80000001, 0x3F800000, 0x00000001],
        [0x007FFFFF, 0x00000001, 0x00000001, 0x00000000, 0x007FFFFF],
        [0xFF800000, 0x80000001, 0x7F800000, 0x00000001, 0xFFC00000, 0x80000000],
    ]
    for keys in small:
        for op in ops:
            for desc in (False, True):
                cases.append(make_sort(rng, op, "f32", keys, len(keys), desc))
    # Random mixes.
    for mix in MIXES:
        for op in ops:
            for desc in (False, True):
                for n in (rng.randint(3, 12), rng.randint(13, 64), rng.randint(65, 400)):
                    keys = [pool_value(rng, mix) for _ in range(n)]
                    for k in k_choices(rng, n)[:2 if n > 64 else 4]:
                        cases.append(make_sort(rng, op, "f32", keys, k, desc))
    # Large cases (the fast paths of the simulator: radix sort and histogram select).
    for op in ops:
        for desc in (False, True):
            n = rng.randint(1500, 3000)
            keys = [pool_value(rng, "all" if desc else "den_zero_nan") for _ in range(n)]
            for k in (n, rng.randint(1, n // 3)):
                cases.append(make_sort(rng, op, "f32", keys, k, desc))
    # Integer controls on the same patterns: no denormal rule for integers.
    for dt in ("i32", "u32"):
        for op in ops:
            for desc in (False, True):
                n = rng.randint(5, 80)
                keys = [pool_value(rng, "den_edges") for _ in range(n)]
                cases.append(make_sort(rng, op, dt, keys, rng.randint(1, n), desc))
    return cases


def make_sort(rng, op, dtype, keys, k, desc):
    n = len(keys)
    c = {"op": op, "dtype": dtype, "len": n, "k": k, "descended": desc, "input": list(keys)}
    if op == "sort_specific_index":
        style = rng.randrange(3)
        if style == 0:
            idx = list(range(n))
            rng.shuffle(idx)
        elif style == 1:
            idx = [rng.randrange(4) for _ in range(n)]
        else:
            idx = [rng.getrandbits(32) for _ in range(n)]  # includes "negative" indices
        c["input_idx"] = idx
    return c


F16_DEN = [0x0001, 0x8001, 0x03FF, 0x83FF, 0x0200, 0x0000, 0x8000, 0x0400, 0x7E00, 0x7C01]
BF16_DEN = [0x0001, 0x8001, 0x007F, 0x807F, 0x0040, 0x0000, 0x8000, 0x0080, 0x7FC0, 0x7F81]


def gather_cases(rng):
    cases = []
    for dtype, pool in (("f32", None), ("f16", F16_DEN), ("bf16", BF16_DEN)):
        for fill_const in (False, True):
            for _ in range(3):
                line_num = rng.randint(1, 40)
                line_len = rng.randint(1, 33)
                start = rng.randint(0, line_num - 1)
                end = rng.randint(start, line_num - 1)
                index_len = rng.randint(1, 40)
                win = end - start + 1
                if pool is None:
                    param = [pool_value(rng, "den_edges") for _ in range(win * line_len)]
                    c_bits = denormal(rng)
                else:
                    param = [rng.choice(pool) for _ in range(win * line_len)]
                    # 16-bit C is passed sign-extended.
                    c16 = rng.choice(pool[:4])
                    c_bits = c16 | 0xFFFF0000 if c16 & 0x8000 else c16
                index = [rng.randint(max(0, start - 2), end + 2) for _ in range(index_len)]
                if index_len > 2:
                    index[0] = 0xFFFFFFFF
                cases.append({"op": "line_gather", "dtype": dtype, "line_num": line_num,
                              "line_len": line_len, "index_len": index_len, "start": start,
                              "end": end, "fill_const": fill_const, "c_bits": c_bits,
                              "param": param, "index": index})
    return cases


# ---------------------------------------------------------------------------------------------
# Driver: batches in subprocesses, isolating any case that kills the model.


def killed(i, c, rc):
    print("case %d (%s) killed the C-model (exit %d); left out" % (i, c["op"], rc),
          file=sys.stderr)
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lib", required=True, help="path to libcmodel_bm1684x.so")
    ap.add_argument("--out", help="output JSON file")
    ap.add_argument("--seed", type=int, default=19)
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.worker:
        worker(lambda: CModel(a.lib))
        return
    if not a.out:
        ap.error("--out is required")
    rng = random.Random(a.seed)
    cases = sort_cases(rng) + gather_cases(rng)
    done = run_all(os.path.abspath(__file__), a.lib, cases, 64, killed)
    write_doc(a.out, a.seed, "arrays are bit patterns (u8/u16/u32 per element size); outputs "
              "were pre-filled with out_fill_byte; f32 denormal-heavy cases (issue 19)", done,
              "scripts/gen_hau_golden.py")
    print("%d cases written to %s" % (len(done), a.out), file=sys.stderr)


if __name__ == "__main__":
    main()
