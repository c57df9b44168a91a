#!/usr/bin/env python3
"""Reference data for npusim-core's narrow float conversions (crates/npusim-core/src/f8.rs).

Writes, from ml_dtypes (float8_e4m3fn, float8_e5m2, float8_e4m3, float8_e8m0fnu,
float4_e2m1fn) and en_dtypes (hifloat8, which ml_dtypes lacks):

  crates/npusim-core/tests/data/f8_table.txt
      A bounded table for CI: one line per f32 input, `<f32 bits> <6 codes>` in hex, in the
      column order of FORMATS. Inputs: 8192 patterns scattered over all 2^32, every finite
      value of every format with its f32 neighbours, the midpoints between consecutive values
      with theirs, and the specials.

  crates/npusim-core/tests/data/f8_sweep_digests.txt   (with --digests)
      For the ignored full sweep: the 2^32 f32 patterns in 256 chunks of 2^24; per chunk and
      format one 64-bit digest of the converted codes, sum over i of (code_i + 1) * w(i)
      mod 2^64 with w = splitmix64 of the f32 pattern. The Rust test computes the same sum.

Usage: PATH=/root/.pyenv/versions/3.12.1/bin:$PATH python3 scripts/gen_f8_ref.py [--digests]
(needs `pip install ml_dtypes en-dtypes`; written with ml_dtypes 0.6.0, en-dtypes 0.0.4,
numpy 2.5).
"""

import os
import sys

import numpy as np
import ml_dtypes
import en_dtypes

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "crates", "npusim-core", "tests", "data")

# Column order, as F8Format::ALL in f8.rs.
FORMATS = [
    ("E4M3FN", ml_dtypes.float8_e4m3fn),
    ("E5M2", ml_dtypes.float8_e5m2),
    ("E4M3", ml_dtypes.float8_e4m3),
    ("HiF8", en_dtypes.hifloat8),
    ("E8M0", ml_dtypes.float8_e8m0fnu),
    ("E2M1", ml_dtypes.float4_e2m1fn),
]

M64 = np.uint64(0xFFFFFFFFFFFFFFFF)


def convert(x_f32, t):
    """f32 array -> uint8 codes."""
    with np.errstate(all="ignore"):
        return x_f32.astype(t).view(np.uint8)


def splitmix64(x):
    x = x.astype(np.uint64)
    with np.errstate(over="ignore"):
        z = x + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    return z


def table_inputs():
    bits = set()
    i = np.arange(8192, dtype=np.uint64)
    bits.update(((i * np.uint64(2654435761) + np.uint64(12345)) & np.uint64(0xFFFFFFFF)).tolist())
    specials = np.array(
        [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1e-45, -1e-45, 1e-40, 2.0**-126,
         np.finfo(np.float32).max, -np.finfo(np.float32).max],
        dtype=np.float32,
    )
    bits.update(specials.view(np.uint32).tolist())
    for _, t in FORMATS:
        n = 16 if t is ml_dtypes.float4_e2m1fn else 256
        vals = np.arange(n, dtype=np.uint8).view(t).astype(np.float32)
        vals = np.unique(vals[np.isfinite(vals)])
        mids = ((vals[:-1].astype(np.float64) + vals[1:].astype(np.float64)) / 2).astype(np.float32)
        pts = np.concatenate([vals, mids, [vals[-1] * np.float32(1.25), vals[-1] * np.float32(1.5)]])
        pts = pts.astype(np.float32)
        up = np.nextafter(pts, np.float32(np.inf))
        dn = np.nextafter(pts, np.float32(-np.inf))
        for p in (pts, up, dn):
            bits.update(p.view(np.uint32).tolist())
            bits.update((-p).view(np.uint32).tolist())
    return np.array(sorted(bits), dtype=np.uint32)


def write_table():
    x = table_inputs()
    f = x.view(np.float32)
    cols = [convert(f, t) for _, t in FORMATS]
    path = os.path.join(OUT, "f8_table.txt")
    with open(path, "w") as out:
        out.write("# f32 bits -> codes of " + " ".join(n for n, _ in FORMATS) + "\n")
        out.write(f"# ml_dtypes {ml_dtypes.__version__}, en_dtypes (hifloat8), "
                  f"numpy {np.__version__}; scripts/gen_f8_ref.py\n")
        for k in range(len(x)):
            out.write("%08x %s\n" % (x[k], " ".join("%02x" % c[k] for c in cols)))
    print(f"{path}: {len(x)} inputs")


def write_digests():
    path = os.path.join(OUT, "f8_sweep_digests.txt")
    lines = ["# chunk (2^24 f32 patterns each) -> digest per format: " +
             " ".join(n for n, _ in FORMATS) + "\n"]
    chunk = 1 << 24
    for c in range(256):
        x = np.arange(c * chunk, (c + 1) * chunk, dtype=np.uint64)
        w = splitmix64(x)
        f = x.astype(np.uint32).view(np.float32)
        ds = []
        for _, t in FORMATS:
            codes = convert(f, t).astype(np.uint64) + np.uint64(1)
            with np.errstate(over="ignore"):
                d = np.sum(codes * w, dtype=np.uint64)
            ds.append("%016x" % int(d))
        lines.append("%3d %s\n" % (c, " ".join(ds)))
        if c % 16 == 15:
            print(f"chunk {c + 1}/256", flush=True)
    with open(path, "w") as out:
        out.writelines(lines)
    print(f"{path}: 256 chunks")


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    write_table()
    if "--digests" in sys.argv[1:]:
        write_digests()
