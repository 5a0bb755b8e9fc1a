#!/usr/bin/env bash
# Runs on the lent GPU machine (no Java there): unpack the carried runtime, record the machine, run the
# stride suite through ./busload run, keep everything under $OUT.
set -uo pipefail
cd "$(dirname "$0")/../.."
. deploy/gpu/carried.sh
record_machine
./busload run --suite stride --format table 2>&1 | tee "$OUT/stride-table.txt"
./busload run --suite stride --format csv > "$OUT/stride.csv" 2> "$OUT/stride-csv.err"
./busload run --suite stride --device cpu --option elements=1048576 --format table > "$OUT/stride-cpu-table.txt" 2>&1
# Native cross-check of the same fatbin entry points on the plan the agent resolves here (nvcc, libcuda and
# cuBLAS are on the GPU machine; deploy/gpu/run-coalescing.sh finds a cuBLAS outside the toolkit too).
extract_fatbin
./busload run --suite stride --device cuda:0 --plan-out "$OUT/stride-plan.txt"
nvcc -O2 -arch=native -o "$WORK/crosscheck" deploy/gpu/crosscheck.cu -lcuda -lcublas \
  && "$WORK/crosscheck" "$FATBIN" "$OUT/stride-plan.txt" | tee "$OUT/crosscheck.csv"
"$BUSLOAD_JAVA" -cp "$BUSLOAD_BUNDLE/agent.jar:$BUSLOAD_BUNDLE/lib/*" io.busload.agent.crosscheck.NativeComparison \
  "$OUT/stride.csv" "$OUT/crosscheck.csv" | tee "$OUT/crosscheck-ratios.md"
# A size that is not a multiple of a block's 1024 elements: the tail must be right too.
./busload run --suite stride --option elements=1000003 --format table 2>&1 | tee "$OUT/stride-tail-table.txt"
