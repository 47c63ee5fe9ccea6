#!/bin/sh
# Assignment throughput on one core: the Swift Assigner (release build) next to a plain C
# implementation of the same hash + bucketing compiled with cc -O2, in the same run.
# Usage: bench/assign.sh [USERS]        (default 1000000 ids; 1 and 20 running experiments)
# Matching checksums show both computed the same assignments. Rates are per second of the
# thread's CPU time (CLOCK_THREAD_CPUTIME_ID) on both sides, so a busy shared machine skews
# neither; modes: assigner (full Assignment values), decide (the same checks, compact
# answers), hash+bucket (the kernel the C program implements).
set -eu
cd "$(dirname "$0")/.."
USERS="${1:-1000000}"
swift build -c release --product assign-bench >/dev/null
BIN="$(swift build -c release --show-bin-path)"
cc -O2 -o "$BIN/assign_baseline" bench/assign_baseline.c
echo "one thread; $USERS ids; 3 equal variants; hash v2; best of 5 runs; rates per second of thread CPU time"
for K in 1 20; do
  taskset -c 0 "$BIN/assign-bench" --users "$USERS" --experiments "$K" 2>/dev/null || "$BIN/assign-bench" --users "$USERS" --experiments "$K"
  taskset -c 0 "$BIN/assign_baseline" "$USERS" "$K" 2>/dev/null || "$BIN/assign_baseline" "$USERS" "$K"
done
