#!/usr/bin/env bash
# Runs on the lent GPU machine (no Java there): unpack the carried runtime, record the machine, run the
# stride suite through ./busload run, keep everything under $OUT.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
mkdir -p /tmp/busload && tar -C /tmp/busload -xJf .carry/jre.tar.xz
export BUSLOAD_JAVA=/tmp/busload/jre/bin/java BUSLOAD_BUNDLE="$PWD/.carry/agent"
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem,pstate,temperature.gpu --format=csv
  nvidia-smi --query-compute-apps=pid,name,used_memory --format=csv
  "$BUSLOAD_JAVA" -version 2>&1 | head -1
} 2>&1 | tee "$OUT/machine.txt"
./busload run --suite stride --format table 2>&1 | tee "$OUT/stride-table.txt"
./busload run --suite stride --format csv > "$OUT/stride.csv" 2> "$OUT/stride-csv.err"
./busload run --suite stride --device cpu --option elements=1048576 --format table > "$OUT/stride-cpu-table.txt" 2>&1
# Native cross-check of the same fatbin entry points on the plan the agent resolves here (nvcc, libcuda and
# cuBLAS are on the GPU machine; deploy/gpu/run-coalescing.sh finds a cuBLAS outside the toolkit too).
FATBIN=/tmp/busload/busload.fatbin
python3 -c 'import sys,zipfile,glob; sys.stdout.buffer.write(zipfile.ZipFile(glob.glob(".carry/agent/lib/busload-kernels-*.jar")[0]).read("io/busload/kernels/busload.fatbin"))' > "$FATBIN"
./busload run --suite stride --device cuda:0 --plan-out "$OUT/stride-plan.txt"
nvcc -O2 -arch=native -o /tmp/busload/crosscheck deploy/gpu/crosscheck.cu -lcuda -lcublas \
  && /tmp/busload/crosscheck "$FATBIN" "$OUT/stride-plan.txt" | tee "$OUT/crosscheck.csv"
"$BUSLOAD_JAVA" -cp "$BUSLOAD_BUNDLE/agent.jar:$BUSLOAD_BUNDLE/lib/*" io.busload.agent.crosscheck.Comparison \
  "$OUT/stride.csv" "$OUT/crosscheck.csv" | tee "$OUT/crosscheck-ratios.md"
# A size that is not a multiple of a block's 1024 elements: the tail must be right too.
./busload run --suite stride --option elements=1000003 --format table 2>&1 | tee "$OUT/stride-tail-table.txt"
