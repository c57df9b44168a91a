#!/bin/sh
# Acceptance 5, f32 Add/Muls against 5x numpy: numpy, npusim, a plain Rust loop and a memcpy of
# the same footprint, interleaved in one run (3 rounds), with the load before and after.
# Usage: sh crates/npusim-ascend/benches/f32_ceiling.sh  (after
#   cargo build --release -p npusim-ascend --example vector_min_time)
set -e
dir=$(dirname "$0")
bin=${CARGO_TARGET_DIR:-target}/release/examples/vector_min_time
cat /proc/loadavg
for round in 1 2 3; do
    echo "== round $round"
    python3 "$dir/numpy_baseline.py" | grep -E "f32 255rep|copy of"
    "$bin" | grep -E "f32|memcpy"
done
cat /proc/loadavg
