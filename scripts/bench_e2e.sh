#!/usr/bin/env bash
# Whole-process benchmark of npusim on issue 11's four workloads (run from anywhere):
#
#   vector_add    4096x256 f32, 16x256 tiles           examples/pto/vector_add.pto
#   row_softmax   32x1024 f32, 8 blocks                examples/pto/bench/row_softmax_blocks.pto
#                 (8-row tiles dealt round-robin over the blocks)
#   tadd_loop     TADD 16x16 f32, 100,000 times         examples/pto/bench/tadd_loop.pto
#   texp_loop     TEXP 64x128 f32, 1,000 times          examples/pto/bench/texp_loop.pto
#
# Each workload is one `npusim run` process (parse, lower, read the .npy inputs, run, write the
# output .npy). Reported: median wall time over RUNS runs (hyperfine when installed, else a
# /usr/bin/time loop) and peak RSS (GNU time's %M, median). Inputs are generated once with numpy
# in a temporary folder.
#
# Optional side-by-side: set PEER_vector_add, PEER_row_softmax, PEER_tadd_loop, PEER_texp_loop
# to shell commands running the same workload on another simulator (e.g. programs built from
# the PTO-ISA CPU simulator, not part of this repository); the script then times them in the
# same way, right after npusim, and prints the ratio npusim / peer. A peer command is a plain
# command line (no shell syntax); `$BENCH_DIR` in it is replaced by the input folder (va_x.npy
# etc., plus raw little-endian f32 copies va_x.bin).
# (Side-by-side figures so far came from one small C++ program, a function per workload,
# written against the pto-isa headers and built as its demos/cpu CMake does: clang++-19
# -std=c++20 -O2 -D__CPU_SIM -D__PTO_AUTO__ -D_FORTIFY_SOURCE=2 -fstack-protector-strong;
# built without __PTO_AUTO__ it died of SIGSEGV. Nothing of it is in this repository.)
#
# Environment: RUNS (default 20), WARMUP (default 3), NPUSIM (a prebuilt binary; default: build
# target/release/npusim with `cargo build-static`, the statically linked release build of
# .cargo/config.toml, which starts about 0.5 ms faster than the dynamic one; STATIC=0 builds
# with plain `cargo build --release`), KEEP=1 keeps the input folder.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RUNS="${RUNS:-20}"
WARMUP="${WARMUP:-3}"
if [[ -z "${NPUSIM:-}" ]]; then
    if [[ "${STATIC:-1}" == 1 && "$(uname -sm)" == "Linux x86_64" ]]; then
        (cd "$root" && cargo --quiet build-static)
    else
        (cd "$root" && cargo build --release --quiet --bin npusim)
    fi
    NPUSIM="${CARGO_TARGET_DIR:-$root/target}/release/npusim"
fi
[[ -x "$NPUSIM" ]] || { echo "no npusim binary at $NPUSIM" >&2; exit 1; }

BENCH_DIR="$(mktemp -d)"
export BENCH_DIR
[[ "${KEEP:-0}" == 1 ]] || trap 'rm -rf "$BENCH_DIR"' EXIT

python3 - "$BENCH_DIR" <<'EOF'
import sys, numpy as np
d = sys.argv[1]
rng = np.random.default_rng(11)
def save(name, a):
    np.save(f"{d}/{name}.npy", a)
    a.astype("<f4").tofile(f"{d}/{name}.bin")
save("va_x", rng.standard_normal((4096, 256)).astype(np.float32))
save("va_y", rng.standard_normal((4096, 256)).astype(np.float32))
save("va_z", np.zeros((4096, 256), np.float32))
save("sm_x", (3 * rng.standard_normal((32, 1024))).astype(np.float32))
save("sm_y", np.zeros((32, 1024), np.float32))
save("ta_a", np.zeros((16, 16), np.float32))
save("ta_b", np.full((16, 16), 1e-3, np.float32))
save("ta_c", np.zeros((16, 16), np.float32))
save("te_a", (0.01 * rng.standard_normal((64, 128))).astype(np.float32))
save("te_c", np.zeros((64, 128), np.float32))
EOF

d="$BENCH_DIR"
ex="$root/examples/pto"
declare -A CMD
CMD[vector_add]="$NPUSIM run $ex/vector_add.pto --arg x=$d/va_x.npy --arg y=$d/va_y.npy --arg z=$d/va_z.npy --arg n_rows=4096 --out z=$d/va_out.npy"
CMD[row_softmax]="$NPUSIM run $ex/bench/row_softmax_blocks.pto --blocks 8 --arg x=$d/sm_x.npy --arg y=$d/sm_y.npy --arg n_rows=32 --out y=$d/sm_out.npy"
CMD[tadd_loop]="$NPUSIM run $ex/bench/tadd_loop.pto --arg a=$d/ta_a.npy --arg b=$d/ta_b.npy --arg c=$d/ta_c.npy --arg iters=100000 --out c=$d/ta_out.npy"
CMD[texp_loop]="$NPUSIM run $ex/bench/texp_loop.pto --arg a=$d/te_c.npy --arg b=$d/te_a.npy --arg c=$d/te_c.npy --arg iters=1000 --out c=$d/te_out.npy"
order=(vector_add row_softmax tadd_loop texp_loop)

# Check each workload once and its result against numpy.
for w in "${order[@]}"; do
    ${CMD[$w]} > /dev/null
done
python3 - "$d" <<'EOF'
import sys, numpy as np
d = sys.argv[1]
x, y = np.load(f"{d}/va_x.npy"), np.load(f"{d}/va_y.npy")
assert np.array_equal(np.load(f"{d}/va_out.npy"), x + y), "vector_add differs from numpy"
x = np.load(f"{d}/sm_x.npy")
e = np.exp(x - x.max(1, keepdims=True))
err = np.abs(np.load(f"{d}/sm_out.npy") - e / e.sum(1, keepdims=True)).max()
assert err < 1e-6, f"row_softmax differs from numpy by {err}"
c = np.zeros((16, 16), np.float32)
b = np.full((16, 16), 1e-3, np.float32)
for _ in range(100000):
    c = c + b
assert np.array_equal(np.load(f"{d}/ta_out.npy"), c), "tadd_loop differs from numpy"
a = np.load(f"{d}/te_a.npy")
print("results checked against numpy (vector_add, tadd_loop bit-exact; row_softmax max abs error %.2e)" % err)
EOF

median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

# Times one command RUNS times with /usr/bin/time; prints "median_ms median_peak_kib".
time_loop() {
    local cmd="$1" i t0 t1 ms=() kib=()
    for ((i = 0; i < WARMUP; i++)); do bash -c "$cmd" > /dev/null 2>&1; done
    for ((i = 0; i < RUNS; i++)); do
        t0=$(date +%s%N)
        /usr/bin/time -f "%M" -o "$d/rss.txt" bash -c "exec $cmd" > /dev/null 2>&1
        t1=$(date +%s%N)
        ms+=("$(( (t1 - t0) / 1000 ))")
        kib+=("$(tail -1 "$d/rss.txt")")
    done
    printf '%s %s\n' \
        "$(printf '%s\n' "${ms[@]}" | median | awk '{printf "%.2f", $1 / 1000}')" \
        "$(printf '%s\n' "${kib[@]}" | median)"
}

# Median wall time with hyperfine when available (more precise), else the loop's.
wall_ms() {
    local cmd="$1"
    if command -v hyperfine > /dev/null; then
        hyperfine -N --style none --warmup "$WARMUP" --runs "$RUNS" \
            --export-json "$d/hf.json" "$cmd" > /dev/null 2>&1 &&
            python3 -c "import json,sys; print('%.2f' % (1e3 * json.load(open(sys.argv[1]))['results'][0]['median']))" "$d/hf.json" &&
            return
    fi
    time_loop "$cmd" | cut -d' ' -f1
}

echo "npusim: $NPUSIM ($("$NPUSIM" --version 2>/dev/null || echo '?')); runs: $RUNS, warmup: $WARMUP; $(nproc) cores"
printf '%-12s %12s %12s' workload "npusim ms" "peak MiB"
have_peer=0
for w in "${order[@]}"; do v="PEER_$w"; [[ -n "${!v:-}" ]] && have_peer=1; done
[[ $have_peer == 1 ]] && printf ' %12s %12s %10s' "peer ms" "peer MiB" "ratio"
echo
for w in "${order[@]}"; do
    n_ms=$(wall_ms "${CMD[$w]}")
    n_kib=$(RUNS=5 WARMUP=0 time_loop "${CMD[$w]}" | cut -d' ' -f2)
    printf '%-12s %12s %12.1f' "$w" "$n_ms" "$(echo "$n_kib / 1024" | bc -l)"
    v="PEER_$w"
    if [[ -n "${!v:-}" ]]; then
        pcmd="${!v//\$BENCH_DIR/$d}"
        p_ms=$(wall_ms "$pcmd")
        p_kib=$(RUNS=5 WARMUP=0 time_loop "$pcmd" | cut -d' ' -f2)
        printf ' %12s %12.1f %10.2f' "$p_ms" "$(echo "$p_kib / 1024" | bc -l)" "$(echo "$n_ms / $p_ms" | bc -l)"
    fi
    echo
done
