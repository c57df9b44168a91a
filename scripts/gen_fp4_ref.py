#!/usr/bin/env python3
"""Reference codes for TCVT bf16 -> float4_e2m1x2_t (crates/npusim-pto/src/ops/fp4.rs).

For every one of the 65536 bfloat16 bit patterns, the float4_e2m1fn code ml_dtypes gives for
its value (bf16 -> f32 is exact, then one rounding to nearest even into E2M1FN), as one hex
digit; 256 lines of 256 digits, line k holding the patterns k*256 .. k*256 + 255.

Writes crates/npusim-pto/tests/data/fp4_bf16_e2m1.txt.

Usage: PATH=/root/.pyenv/versions/3.12.1/bin:$PATH python3 scripts/gen_fp4_ref.py
(needs `pip install ml_dtypes`; written with ml_dtypes 0.6.0, numpy 2.5).
"""

import os

import ml_dtypes
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "crates", "npusim-pto", "tests", "data", "fp4_bf16_e2m1.txt")


def main():
    bits = np.arange(65536, dtype=np.uint16)
    values = bits.view(ml_dtypes.bfloat16).astype(np.float32)
    codes = values.astype(ml_dtypes.float4_e2m1fn).view(np.uint8)
    assert int(codes.max()) < 16
    lines = ["".join(f"{int(c):x}" for c in codes[k * 256 : (k + 1) * 256]) for k in range(256)]
    with open(OUT, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
