#!/usr/bin/env python3
"""Side-by-side speed of issue #16 (acceptance 4): npusim and Sophgo's BM1684X C-model called
in one process, interleaved, on the same calls and data; prints per call the minimum and median
wall time of each side, the ratios of the medians and of the minimums, and the machine load
before and after.

The measuring is done by the bench binary `crates/npusim-tpu/benches/tpu_vs_cmodel.rs`, which
`dlopen`s the C-model into its own process next to npusim (so both are timed by the same clock
under the same load), initialises it as scripts/cmodel.py does, and runs `--reps` pairs per
call: one C-model call + `tpu_poll` and one npusim call (calls under 2 us timed in back-to-back
batches), alternating which goes first. This script builds (or is given) that binary, runs it,
and prints the table.

Calls, each on (1, 1, 1, 8), the small tensor (1, 4, 1, 16), (1, 64, 1, 16) (h = 4 for the
3x3 pools) and (1, 64, 32, 64): tpu_bdc_fp_add f32; tpu_bdc_int_add i16 shift -2 saturating; tpu_bdc_
greater_select f32 (tensors, scalar 0 as src3); tpu_bdc_fp_avg_pool2d / fp_max_pool2d 3x3 f32;
tpu_bdc_fp32_exp; tpu_bdc_fp32_log; tpu_gdma_cpy_S2L f32. On (1, 1, 1, 8) and (1, 4, 1, 16)
only: tpu_bdc_fp32_rsqrt / _sqrt (session 19) and one row per other function of the issue's
API list (session 20), f32 unless named: tpu_gdma_cpy_L2S, _S2S, _L2L; tpu_gdma_matrix_S2L /
_L2S (one row of c * w columns, w per channel); tpu_gdma_compact_S2L / _L2S; tpu_gdma_cpy_cw_
trans_S2L / _L2S / _L2L / _S2S; tpu_bdc_cw_trans / wc_trans; tpu_bdc_fp_sub / fp_mul / fp_div;
tpu_bdc_max / min (f32 and i16); tpu_bdc_and i16; tpu_bdc_fp_add_C; tpu_bdc_int_mul i16
saturating; tpu_bdc_equal / greater and their _C forms (true value 1.0); tpu_bdc_equal_select;
tpu_bdc_cast f32->f16 and f32->i16 (saturating) half to even, i8->f32; tpu_bdc_set_C;
tpu_bdc_cpy; tpu_bdc_npu_bcast (NULL strides: aligned local, continuous system layouts).

Every row does the same work on both sides: both start from the same memory (the C-model's
local and global memory are zeroed, then both get the same data), and before a row is timed
the bench runs it once on each side and compares its destination regions (the C-model's memory
read back through `tpu_local_mem_addr` and the global memory's host address, against
npusim's), byte for byte on every lane; a mismatch aborts the run naming the row and the first
differing byte. The table says how many rows and bytes were compared.

Both statistics are printed, with the load; the report of a run should quote both. The
C-model's wall time per call is bimodal: it queues each call to one of five engine threads
(TPU_BD, TPU_GDMA, TPU_GDE, TPU_SORT, TPU_NMS) that spin while idle, and `tpu_poll` spins
until the engine is done. With a free core for the main thread and one for the engine, a small
call takes 2-25 us (fast mode, what a user with 6+ free cores sees); when the engine thread
is off-core it waits for the scheduler, 20-200 ms (slow mode, most calls on a loaded 2-core
host). `--boost` measures the C-model's best case: the measured call's engine and the main
thread at nice -20, each pinned to a CPU of its own, the idle engines SCHED_IDLE (needs root).

Recorded figures (docs/tpu-audit.md "Speed" has both tables): 2026-11-24 13:58-14:00 UTC with
--boost (150 pairs per call, 2 vCPUs, load average 10.8-12.9): the C-model's small calls took
1.7-4 us at best (3x3 pools 2.9-7.3 us, exp/log 13-21 us) against 0.05-0.7 us in npusim:
12x-112x in median (only exp and log on (1,1,1,8) at 100x or more), 10x-83x in minimum, so
"100x per small call" does not hold against the fast mode; (1,64,32,64) f32 fp_add 383x in
median, 55x best against best (C-model 1211 us, npusim 22.2 us; 20.5 us alone). 14:00-14:06
UTC without --boost (100 pairs, load 11.5-15.9): most small calls in slow mode (14,000x-
950,000x in median), some in fast mode (max pool (1,1,4,8) 18x, int_add and greater_select
(1,4,1,16) 28x and 18x). npusim's fixed cost per small call is 47-78 ns (benches/tpu_small.rs).

Needs `libcmodel_bm1684x.so` from the PyPI wheel tpu-mlir==1.30.2 (see scripts/cmodel.py;
never commit it) and cargo. Run:
    python3 scripts/bench_tpu_cmodel.py --lib /tmp/wheel/tpu_mlir/lib/libcmodel_bm1684x.so \\
        [--reps 300] [--filter TEXT] [--bin PATH] [--json OUT.json] [--boost] [--markdown]
(the table is printed at the end: in slow mode a run of 300 pairs takes many minutes).
"""
import argparse
import glob
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def find_binary():
    """Builds the bench binary (release) and returns its path."""
    out = subprocess.run(
        ["cargo", "bench", "-p", "npusim-tpu", "--bench", "tpu_vs_cmodel", "--no-run",
         "--message-format", "json"], cwd=ROOT, capture_output=True, text=True, check=True)
    for line in out.stdout.splitlines():
        try:
            m = json.loads(line)
        except ValueError:
            continue
        if m.get("reason") == "compiler-artifact" and m.get("executable") and \
                m["target"]["name"] == "tpu_vs_cmodel":
            return m["executable"]
    tgt = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    found = sorted(glob.glob(os.path.join(tgt, "release/deps/tpu_vs_cmodel-*")),
                   key=os.path.getmtime)
    found = [f for f in found if os.access(f, os.X_OK) and not f.endswith(".d")]
    if not found:
        sys.exit("tpu_vs_cmodel bench binary not found")
    return found[-1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lib", required=True, help="path to libcmodel_bm1684x.so")
    ap.add_argument("--reps", type=int, default=300, help="interleaved pairs per call")
    ap.add_argument("--filter", default="", help="only calls whose name contains this")
    ap.add_argument("--bin", help="the tpu_vs_cmodel bench binary (built when not given)")
    ap.add_argument("--json", help="also write the raw records here")
    ap.add_argument("--markdown", action="store_true",
                    help="also print the rows as the table of docs/tpu-audit.md \"Speed\"")
    ap.add_argument("--boost", action="store_true",
                    help="the C-model's best case: its engine thread for the measured call and "
                         "the main thread at nice -20, its idle engines SCHED_IDLE (root)")
    a = ap.parse_args()
    binary = a.bin or find_binary()
    cmd = [binary, "--lib", a.lib, "--reps", str(a.reps), "--filter", a.filter]
    if a.boost:
        cmd.append("--boost")
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("bench failed (%d): %s" % (p.returncode, p.stderr[-2000:]))
    recs = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
    loads = [r for r in recs if "load" in r]
    rows = [r for r in recs if "name" in r]
    if a.json:
        with open(a.json, "w") as f:
            json.dump(recs, f, indent=1)
    before = loads[0] if loads else {}
    after = loads[-1] if loads else {}
    print("npusim vs BM1684X C-model (tpu-mlir 1.30.2), one process, %s interleaved pairs per "
          "call; %s CPUs; load average (1/5/15 min) before: %s, after: %s" % (
              before.get("reps", a.reps), before.get("cpus", "?"), before.get("load", "?"),
              after.get("load", "?")))
    boosts = sorted({r["boost"] for r in recs if "boost" in r})
    print("scheduling: %s" % ("; ".join(boosts) if boosts else
                              "as the host gives it (no --boost)"))
    print("wall times in us per call; x = C-model / npusim; batch = npusim calls per timed "
          "sample")
    hdr = ("%-46s %10s %10s %9s %9s %9s %9s %6s" % (
        "call", "C min", "C median", "np min", "np median", "x median", "x min", "batch"))
    print(hdr)
    print("-" * len(hdr))
    for r in rows:
        print("%-46s %10.2f %10.1f %9.3f %9.3f %9.0f %9.1f %6d" % (
            r["name"], r["cmodel_min_us"], r["cmodel_median_us"],
            r["npusim_min_us"], r["npusim_median_us"],
            r["cmodel_median_us"] / r["npusim_median_us"],
            r["cmodel_min_us"] / r["npusim_min_us"], r["npusim_batch"]))
    if a.markdown:
        def g(v):
            return "%.0f" % v if v >= 1000 else "%.3g" % v
        print()
        print("| call | C-model min / median | npusim min / median | ratio of minimums | "
              "ratio of medians |")
        print("|---|---|---|---|---|")
        for r in rows:
            print("| %s | %s / %s | %s / %s | %sx | %sx |" % (
                r["name"], g(r["cmodel_min_us"]), g(r["cmodel_median_us"]),
                g(r["npusim_min_us"]), g(r["npusim_median_us"]),
                g(r["cmodel_min_us"] / r["npusim_min_us"]),
                g(r["cmodel_median_us"] / r["npusim_median_us"])))
        print()
    small = [r for r in rows if "(1,4," in r["name"]]
    big = [r for r in rows if r["name"] == "bdc_fp_add f32 (1,64,32,64)"]

    def verdict(rs, need, key_c, key_n):
        worst = min(r[key_c] / r[key_n] for r in rs)
        return "%.0fx (need %dx): %s" % (worst, need, "met" if worst >= need else "NOT met")

    checked = [r for r in recs if "checked_rows" in r]
    if checked:
        print("sanity check: %d rows, %d destination bytes compared, C-model == npusim" % (
            checked[-1]["checked_rows"], sum(r.get("checked_bytes", 0) for r in rows)))
    under = sorted((r for r in rows if "(1,64," not in r["name"] and
                    r["cmodel_median_us"] / r["npusim_median_us"] < 100),
                   key=lambda r: r["cmodel_median_us"] / r["npusim_median_us"])
    if under:
        print()
        print("small rows under 100x in median, worst first (npusim ns per call: now -> what "
              "100x needs, C-model median / 100):")
        for r in under:
            print("  %-44s %6.1fx  %8.1f ns -> %7.1f ns" % (
                r["name"], r["cmodel_median_us"] / r["npusim_median_us"],
                r["npusim_median_us"] * 1e3, r["cmodel_median_us"] * 10))
        print()
    if small:
        print("acceptance 4, small tensors, worst ratio of medians %s; of minimums %s" % (
            verdict(small, 100, "cmodel_median_us", "npusim_median_us"),
            verdict(small, 100, "cmodel_min_us", "npusim_min_us")))
    if big:
        print("acceptance 4, (1,64,32,64) f32 fp_add, ratio of medians %s; of minimums %s" % (
            verdict(big, 50, "cmodel_median_us", "npusim_median_us"),
            verdict(big, 50, "cmodel_min_us", "npusim_min_us")))


if __name__ == "__main__":
    main()
