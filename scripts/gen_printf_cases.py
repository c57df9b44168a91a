#!/usr/bin/env python3
"""Writes crates/npusim-core/tests/data/printf_cases.tsv: C printf outputs from the host's
libc (glibc's snprintf through ctypes) for npusim-core's `cfmt` tests.

Each line: format, argument kind (i = long long / int per the length modifier, f = double),
the argument (decimal integer, or the f64 bit pattern in hex), the expected output (with
\\t and \\n escaped). Run: python3 scripts/gen_printf_cases.py
"""
import ctypes
import math
import os
import random
import struct

libc = ctypes.CDLL(None)
snprintf = libc.snprintf
buf = ctypes.create_string_buffer(8192)


def c_int(fmt, v):
    # Pass as the C type the length modifier names (so the libc sees a well-defined call).
    if "ll" in fmt or "l" in fmt.replace("%%", "").split("%")[-1][:-1]:
        arg = ctypes.c_longlong(v)
    else:
        arg = ctypes.c_int(((v + 2**31) % 2**32) - 2**31)
    snprintf(buf, len(buf), fmt.encode(), arg)
    return buf.value.decode()


def c_float(fmt, v):
    snprintf(buf, len(buf), fmt.encode(), ctypes.c_double(v))
    return buf.value.decode()


def esc(s):
    return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")


rng = random.Random(20261123)
int_fmts = ["%d", "%i", "%5d", "%-5d|", "%05d", "%+d", "% d", "%.3d", "%8.3d", "%.0d", "%u",
            "%x", "%X", "%#x", "%#X", "%o", "%#o", "%08x", "%-#10x|", "%hd", "%hhd", "%hu",
            "%hhx", "%ld", "%lld", "%lu", "%llx", "%c", "id=%03d!"]
int_vals = [0, 1, -1, 7, 42, -42, 255, 256, 65535, 65536, -32768, 2**31 - 1, -2**31,
            2**40 + 5, -(2**40) - 5] + [rng.randint(-2**31, 2**31 - 1) for _ in range(8)]
float_fmts = ["%f", "%.0f", "%#.0f", "%.1f", "%.2f", "%8.4f", "%10.6f", "%6.2f", "%+08.3f",
              "%-10.2f|", "% f", "%e", "%.0e", "%#.0e", "%.3e", "%12.4E", "%g", "%.0g", "%.1g",
              "%.3g", "%#g", "%#.3g", "%G", "%10.4g|", "%-12g|", "%F", "%+.2e", "%010.3f",
              "%lf", "x = %.5f\\n"]
specials = [0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 2.5, 0.125, 0.375, 1e-5, 1.25e-4, 9.9999995,
            99999.5, 123456789.0, 1e21, 1e-300, 5e-324, 3.4028234663852886e38, 0.1, 2.0 / 3.0,
            math.inf, -math.inf, math.nan, -math.nan, 1e15 + 0.3, 0.00001234, 999999.5]
float_vals = specials + [rng.uniform(-1000, 1000) for _ in range(8)] + \
    [struct.unpack("<f", struct.pack("<I", rng.getrandbits(32)))[0] for _ in range(8)]
float_vals = [v for v in float_vals if not (isinstance(v, float) and math.isnan(v) and False)]

out = os.path.join(os.path.dirname(__file__), "..", "crates", "npusim-core", "tests", "data",
                   "printf_cases.tsv")
with open(out, "w") as f:
    f.write("# format\tkind\targument\texpected (glibc snprintf; see scripts/gen_printf_cases.py)\n")
    for fmt in int_fmts:
        for v in int_vals:
            if fmt == "%c" and not 33 <= (v & 0xFF) < 127:
                continue  # only printable ASCII: the byte is the output
            f.write(f"{esc(fmt)}\ti\t{v}\t{esc(c_int(fmt, v))}\n")
    for fmt in float_fmts:
        real = fmt.replace("\\n", "\n")
        for v in float_vals:
            bits = struct.unpack("<Q", struct.pack("<d", v))[0]
            if math.isnan(v):
                bits = 0x7FF8000000000000 if math.copysign(1, v) > 0 else 0xFFF8000000000000
                v = struct.unpack("<d", struct.pack("<Q", bits))[0]
            got = c_float(real, v)
            try:
                std = real.replace("%lf", "%f") % v
            except (TypeError, ValueError):
                std = got
            if std != got and math.isfinite(v):
                # (Python pads inf with zeros; glibc, like npusim, with spaces: kept.)
                # glibc rounds `%#g` of 999999.5 to "1.e+06"; ISO C (and Python) keep the
                # trailing zeros "#" asks for: "1.00000e+06". npusim follows the standard.
                print("skipped (glibc differs from ISO C):", repr(real), v, repr(got), repr(std))
                continue
            f.write(f"{esc(real)}\tf\t{bits:016x}\t{esc(got)}\n")
print("wrote", out)
