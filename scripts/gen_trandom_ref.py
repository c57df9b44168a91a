#!/usr/bin/env python3
"""Reference words for TRANDOM (crates/npusim-pto/src/ops/random.rs), from randomgen.

randomgen's `Philox(number=4, width=32)` is an independent Philox-4x32-10: its stream is the
four words of counter c+1, c+2, ... (it increments before each block; the counter integer has
word 0 least significant). Started at `counter - 1`, it yields the blocks of counter,
counter+1, ... in order, which is what TRANDOM writes row by row into a tile of 256-column
rows (see the module docs).

Writes crates/npusim-pto/tests/data/trandom_philox10.txt: per case one header line
`case <key0> <key1> <ctr0> <ctr1> <ctr2> <ctr3> <words>` (hex), then the words, 8 a line.

Usage: python3 scripts/gen_trandom_ref.py   (needs `pip install randomgen`; written with
randomgen 2.5.1, numpy 2.x).
"""

import os

from randomgen import Philox

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "crates", "npusim-pto", "tests", "data", "trandom_philox10.txt")

CASES = [
    # PTOAS test/basic/trandom_emitc.pto's rounds-10 kernel: key (305419896, -1698898192),
    # counter (0, 1, 2, 3); a 4x256 tile.
    ((0x12345678, 0x9ABCDEF0), (0, 1, 2, 3), 1024),
    # A counter whose low words carry within a tile.
    ((0xDEADBEEF, 0x0BADF00D), (0xFFFFFFC0, 0xFFFFFFFF, 0xFFFFFFFF, 7), 2048),
]


def words(key, ctr, n):
    c = sum(w << (32 * i) for i, w in enumerate(ctr))
    k = key[0] | (key[1] << 32)
    g = Philox(counter=(c - 1) % (1 << 128), key=k, number=4, width=32)
    return [int(x) & 0xFFFFFFFF for x in g.random_raw(n)]


def main():
    lines = []
    for key, ctr, n in CASES:
        head = " ".join(f"{v:08x}" for v in (*key, *ctr))
        lines.append(f"case {head} {n:x}")
        w = words(key, ctr, n)
        for i in range(0, n, 8):
            lines.append(" ".join(f"{x:08x}" for x in w[i : i + 8]))
    with open(OUT, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
