#!/usr/bin/env bash
# Runs on the lent GPU machine (no Java there; carry .carry made by deploy/gpu/pack.sh, and BabelStream's source in
# .carry/babelstream, a checkout of github.com/UoB-HPC/BabelStream): builds BabelStream's CUDA model with nvcc alone
# and runs it as a lab would, then the coalescing suite through ./busload run twice: once plain (its time, CPU time
# and the device's health verdict) and once under a JFR recording (where the host's CPU time goes). Under $OUT:
#   machine.txt          nvidia-smi, driver, Java, date
#   babelstream.tar.gz   build log; babelstream.txt (text output, with its version); fp64-1..3.csv and fp32.csv
#                        (--csv -n 100), each exactly as BabelStream printed it
#   coalescing.json/.err ./busload run --suite coalescing --format json, and its log (the health verdict at its end)
#   elapsed.txt          the suite's wall, user and system seconds, plain and under JFR
#   suite.jfr            the JFR recording (settings=profile) of the second run (none with BUSLOAD_JFR=0)
set -uo pipefail
cd "$(dirname "$0")/../.."
. deploy/gpu/carried.sh
record_machine
nvcc --version | tail -2 | tee -a "$OUT/machine.txt"

BS=.carry/babelstream
PEERS="$WORK/peers"; mkdir -p "$PEERS"
(cd "$BS" && echo "source: $(cat COMMIT 2>/dev/null || echo unknown)") | tee "$PEERS/build.txt"
CUDA_HOME=$(dirname "$(dirname "$(command -v nvcc)")")
set -x
nvcc -O3 -std=c++17 -arch=native --extended-lambda -DCUDA -DDEFAULT -DGRID_STRIDE -DUNROLL_FACTOR=4 \
  -I"$BS/src" -I"$BS/src/cuda" "$BS/src/main.cpp" "$BS/src/cuda/CUDAStream.cu" \
  -L"$CUDA_HOME/lib64/stubs" -L"$CUDA_HOME/targets/x86_64-linux/lib/stubs" -lnvidia-ml -o "$WORK/cuda-stream" \
  >> "$PEERS/build.txt" 2>&1
set +x
echo "nvcc exit: $?" | tee -a "$PEERS/build.txt"
if [[ -x "$WORK/cuda-stream" ]]; then
  "$WORK/cuda-stream" > "$PEERS/babelstream.txt" 2>&1; echo "babelstream text: exit $?"
  for i in 1 2 3; do
    "$WORK/cuda-stream" --csv -n 100 > "$PEERS/fp64-$i.csv" 2> "$PEERS/fp64-$i.err"; echo "fp64 run $i: exit $?"
  done
  "$WORK/cuda-stream" --csv -n 100 --float > "$PEERS/fp32.csv" 2> "$PEERS/fp32.err"; echo "fp32: exit $?"
  cat "$PEERS/babelstream.txt" "$PEERS/fp64-1.csv"
fi
tar -C "$PEERS" -czf "$OUT/babelstream.tar.gz" .

: > "$OUT/elapsed.txt"
TIMEFORMAT='%R s elapsed, user %U s, sys %S s of CPU'
{ time ./busload run --suite coalescing --device cuda:0 --format json > "$OUT/coalescing.json" \
    2> "$OUT/coalescing.err" ; } 2> "$WORK/time.txt"
echo "plain: exit $?, $(cat "$WORK/time.txt")" | tee -a "$OUT/elapsed.txt"
tail -15 "$OUT/coalescing.err"
[[ "${BUSLOAD_JFR:-1}" == 0 ]] && { ls -la "$OUT"; exit 0; }
{ time JAVA_TOOL_OPTIONS="-XX:StartFlightRecording=filename=$OUT/suite.jfr,settings=profile" \
    ./busload run --suite coalescing --device cuda:0 --format json > "$WORK/jfr.json" 2> "$WORK/jfr.err" ; } \
    2> "$WORK/time.txt"
echo "under JFR: exit $?, $(cat "$WORK/time.txt")" | tee -a "$OUT/elapsed.txt"
ls -la "$OUT"
