#!/usr/bin/env bash
# Runs on the lent GPU machine: why JCuda's cuBLAS SGEMM median differs from the native harness's on an H100
# (docs/results/2026-11-22-h100-coalescing). Times matmul-cublas alone: native with its default 0.2 s of samples,
# native sampling for 1 s (as long as the agent's stopping rule ran), native without the blocking kernel
# (BUSLOAD_NATIVE_NO_HOLD: the host's enqueue inside the sample), and the agent (JSON with every sample),
# while nvidia-smi logs SM clock, power and throttle reasons every 50 ms. Output under $OUT (one file each).
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
WORK=/tmp/busload; mkdir -p "$WORK"
[[ -x "$WORK/jre/bin/java" ]] || tar -C "$WORK" -xJf .carry/jre.tar.xz
export BUSLOAD_JAVA="$WORK/jre/bin/java" BUSLOAD_BUNDLE="$PWD/.carry/agent"
FATBIN="$WORK/busload.fatbin"
python3 -c 'import sys,zipfile,glob; sys.stdout.buffer.write(zipfile.ZipFile(glob.glob(".carry/agent/lib/busload-kernels-*.jar")[0]).read("io/busload/kernels/busload.fatbin"))' > "$FATBIN"
./busload run --suite matmul --device cuda:0 --plan-out "$WORK/plan-matmul.txt" 2>&1 | tail -1
awk 'NR == 1 { print; next } /^case / { keep = ($2 == "matmul-cublas") } keep' "$WORK/plan-matmul.txt" > "$WORK/plan.txt"
nvcc -O2 -arch=native -o "$WORK/crosscheck" deploy/gpu/crosscheck.cu -lcuda -lcublas > "$OUT/nvcc.txt" 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active \
  --format=csv -lms 50 > "$OUT/smi.csv" 2>&1 &
SMI=$!
{
  for round in 1 2; do
    echo "round $round"
    date -u +%T.%N; "$WORK/crosscheck" "$FATBIN" "$WORK/plan.txt" | tail -1
    date -u +%T.%N; BUSLOAD_NATIVE_MIN_SAMPLING_S=1.0 "$WORK/crosscheck" "$FATBIN" "$WORK/plan.txt" | tail -1
    date -u +%T.%N; echo "no hold:"; BUSLOAD_NATIVE_NO_HOLD=1 "$WORK/crosscheck" "$FATBIN" "$WORK/plan.txt" | tail -1
    date -u +%T.%N; ./busload run --suite matmul --device cuda:0 --format json \
      > "$OUT/agent-$round.json" 2> "$OUT/agent-$round.err"; echo "agent exit $?"
  done
  date -u +%T.%N
} > "$OUT/probe.txt" 2>&1
kill $SMI
cat "$OUT/probe.txt"
