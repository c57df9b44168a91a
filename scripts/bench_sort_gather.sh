#!/usr/bin/env bash
# Issue 15 acceptance 5: npusim's TSORT32 + TMRGSORT (8192 f32 records) and TGATHER (64x128)
# criterion bench and numpy's equivalents on the same inputs, in one run, with the machine
# load before and after (wall-clock figures on a shared machine are only comparable within a run).
# Usage: scripts/bench_sort_gather.sh [criterion measurement seconds, default 3]
# BENCH_BIN=<target>/release/deps/sort_gather-<hash> runs an already built bench binary
# instead of `cargo bench` (which rebuilds after any source change).
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:-3}"
echo "== $(date -u +%FT%TZ) load: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cpus"
if [ -n "${BENCH_BIN:-}" ]; then run=("$BENCH_BIN" --bench); else run=(cargo bench -p npusim-pto --bench sort_gather --); fi
"${run[@]}" --measurement-time "$secs" --warm-up-time 1 2>&1 \
  | grep -E "^(pto_|Benchmarking .*: Analyzing)|time:|thrpt:" | grep -v "^Benchmarking" || true
echo "== $(date -u +%FT%TZ) load: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 crates/npusim-pto/benches/sort_gather_numpy.py
echo "== $(date -u +%FT%TZ) load: $(cut -d' ' -f1-3 /proc/loadavg)"
