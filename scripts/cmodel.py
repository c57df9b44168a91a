"""Shared driver of Sophgo's BM1684X C-model for the golden generators and the C-model bench.

Used by scripts/gen_hau_golden.py, scripts/gen_tpu_golden.py and scripts/bench_tpu_cmodel.py.

What it needs
  * Python 3 (standard library only).
  * `libcmodel_bm1684x.so` from the PyPI wheel `tpu-mlir==1.30.2` (never commit it or anything
    taken from it):
        pip download tpu-mlir==1.30.2 --no-deps --python-version 3.10 \
            --only-binary=:all: -d /tmp/wheel
        cd /tmp/wheel && unzip tpu_mlir-1.30.2-py3-none-any.whl 'tpu_mlir/lib/libcmodel_*'

Traps handled here
  * `cmodel_init` switches the host FPU to flush-to-zero / denormals-are-zero: the FP
    environment saved with libm's `fegetenv` before the call is restored with `fesetenv`, and
    callers build data only as integer bit patterns.
  * SFU instructions return zeros unless `load_lookup_tables()` runs after `tpu_initialize()`
    (`open_lib(..., sfu=True)`).
  * A violated C-model assert kills the process: cases run in worker subprocesses
    (`run_all`), and each case of a batch that killed its worker is re-run alone, so the
    culprit is identified.
"""

import ctypes
import json
import struct
import subprocess
import sys

DTYPE_CODE = {"u8": 0, "i8": 1, "f16": 3, "f32": 5, "u16": 6, "i16": 7, "u32": 8,
              "i32": 9, "bf16": 11}
ESIZE = {"u8": 1, "i8": 1, "f16": 2, "bf16": 2, "i16": 2, "u16": 2, "f32": 4, "i32": 4,
         "u32": 4}
FILL = 0xAB
MARK = "@@npusim-golden@@"
GMEM = 64 << 20
FMT = {1: "B", 2: "H", 4: "I"}
SOURCE = "Sophgo BM1684X C-model (libcmodel_bm1684x.so, PyPI tpu-mlir 1.30.2)"


class dim4(ctypes.Structure):
    _fields_ = [(c, ctypes.c_int) for c in "nchw"]


def open_lib(lib_path, sfu=False):
    """Loads and initialises the C-model; returns the ctypes library (FP environment restored)."""
    libm = ctypes.CDLL("libm.so.6")
    env = ctypes.create_string_buffer(128)
    libm.fegetenv(env)
    lib = ctypes.CDLL(lib_path)
    U64, I, P = ctypes.c_ulonglong, ctypes.c_int, ctypes.c_void_p
    lib.cmodel_init.argtypes = [I, U64]
    lib.get_global_memaddr.restype = P
    lib.get_global_memaddr.argtypes = [I]
    lib.cmodel_get_gmem_start_addr.restype = U64
    lib.tpu_local_mem_addr.restype = P
    lib.tpu_local_mem_addr.argtypes = [I, ctypes.c_uint32]
    lib.cmodel_init(0, GMEM)
    lib.tpu_initialize()
    if sfu:
        lib.load_lookup_tables()
    libm.fesetenv(env)
    return lib


def put(host, words, es):
    """Writes unsigned bit patterns of `es` bytes each at a host pointer."""
    data = struct.pack("<%d%s" % (len(words), FMT[es]), *words)
    ctypes.memmove(host, data, len(data))


def get(host, n, es):
    """Reads `n` unsigned bit patterns of `es` bytes each from a host pointer."""
    return list(struct.unpack("<%d%s" % (n, FMT[es]), ctypes.string_at(host, n * es)))


def worker(make_model):
    """Worker side: reads cases from stdin, runs them, writes them after the marker."""
    cases = json.load(sys.stdin)
    model = make_model()
    out = [model.run(c) for c in cases]
    # The C-model prints to stdout itself; the result follows a marker.
    sys.stdout.flush()
    sys.stdout.write("\n" + MARK + json.dumps(out))


def run_batch(script, lib, cases):
    """Runs `cases` in a worker subprocess of `script`; (results, 0) or (None, exit code)."""
    p = subprocess.run([sys.executable, script, "--worker", "--lib", lib],
                       input=json.dumps(cases), capture_output=True, text=True)
    if p.returncode != 0:
        return None, p.returncode
    return json.loads(p.stdout.split(MARK, 1)[1]), 0


def run_all(script, lib, cases, batch, on_killed):
    """Runs every case in batches; a case that kills its worker alone goes to `on_killed(i, case,
    exit code)`, which returns the case to record or None to leave it out."""
    done = []
    for i in range(0, len(cases), batch):
        chunk = cases[i:i + batch]
        out, _ = run_batch(script, lib, chunk)
        if out is not None:
            done.extend(out)
            continue
        for j, c in enumerate(chunk):
            o, rc = run_batch(script, lib, [c])
            if o is None:
                kept = on_killed(i + j, c, rc)
                if kept is not None:
                    done.append(kept)
            else:
                done.extend(o)
    return done


def write_doc(path, seed, note, cases, script):
    """Writes `{source, seed, note, cases}` all-or-nothing (temp file, then rename)."""
    import os
    doc = {"source": SOURCE + ", " + script, "seed": seed, "note": note, "cases": cases}
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")
    os.replace(tmp, path)
