#!/usr/bin/env bash
# Runs on the lent GPU machine (no Java there; carry .carry made by deploy/gpu/pack.sh): the coalescing suite
# through ./busload run (timed against the 90 s budget) between two runs of the native cross-check of every case
# on the same fatbin (deploy/gpu/crosscheck.cu), the per-kernel JCuda/native ratio, then the ncu counter pass
# (--profile). Everything lands under $OUT:
#   machine.txt            nvidia-smi, driver, Java
#   coalescing.csv/.err    ./busload run --suite coalescing --format csv, and its log; elapsed.txt its seconds
#   plan.txt               the plan the agent resolved for this GPU (--plan-out)
#   native-before.csv      the harness's medians (kernel,params,median_s,...) before the suite; native.csv after
#   ratios.md              Busload median, the mean of the two native medians, their drift, ratio, "within 1%";
#                          ratios-before.md and ratios-after.md against each native run alone
#   profile.md, ncu.csv    sectors/request and DRAM bytes beside the model, FLAG where they differ > 10%
#   sampling.md            how each result was measured (issue 12): held/unheld/re-timed samples, stop reason, NVML
#                          clocks and throttle reasons, throttled samples dropped, L2 verdict
set -uo pipefail
cd "$(dirname "$0")/../.."
. deploy/gpu/carried.sh
CP="$BUSLOAD_BUNDLE/agent.jar:$BUSLOAD_BUNDLE/lib/*"
record_machine
{
  nvcc --version | tail -2
  echo "ncu: $(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1 || echo none)"
} 2>&1 | tee -a "$OUT/machine.txt"

# 1. The same fatbin and the plan the agent resolves for this GPU, and the native harness built here: cuBLAS
#    from the toolkit, else from the nvidia-cublas wheel's folders.
extract_fatbin
./busload run --suite coalescing --device cuda:0 --plan-out "$OUT/plan.txt" 2>&1 | tail -1
BLAS=(-lcublas)
if [[ ! -f "$(dirname "$(command -v nvcc)")/../include/cublas_v2.h" ]]; then
  header=$(find /usr/local /usr/lib /usr/include /opt /root -name cublas_v2.h 2>/dev/null | head -1)
  lib=$(find "$(dirname "$header")/.." /usr/local /usr/lib /opt -name 'libcublas.so*' 2>/dev/null | sort | head -1)
  echo "cuBLAS outside the toolkit: header ${header:-none}, library ${lib:-none}"
  BLAS=(-I"$(dirname "$header")" -L"$(dirname "$lib")" -l:"$(basename "$lib")" -Xlinker -rpath="$(dirname "$lib")")
fi
HARNESS="$WORK/crosscheck"
nvcc -O2 -arch=native -o "$HARNESS" deploy/gpu/crosscheck.cu -lcuda "${BLAS[@]}" 2>&1 | tee "$OUT/nvcc.txt" \
  || nvcc -O2 -o "$HARNESS" deploy/gpu/crosscheck.cu -lcuda "${BLAS[@]}" 2>&1 | tee -a "$OUT/nvcc.txt"

# 2. Native before the suite: with the run after it, it brackets the agent's run (Comparison: the mean of the two
#    cancels a GPU that drifts over the minutes, as the H100 did).
"$HARNESS" "$FATBIN" "$OUT/plan.txt" > "$OUT/native-before.csv" 2> "$OUT/native-before.err"
echo "native harness (before): exit $?, $(($(wc -l < "$OUT/native-before.csv") - 1)) rows"

# 3. The suite, as a user runs it, against the 90 s budget.
TIMEFORMAT='busload run --suite coalescing: %R s elapsed (user %U s, sys %S s)'
start=$(date +%s.%N)
time ./busload run --suite coalescing --format csv > "$OUT/coalescing.csv" 2> "$OUT/coalescing.err"
status=$?
awk -v s="$start" -v e="$(date +%s.%N)" -v x="$status" 'BEGIN { t = e - s;
  printf "coalescing suite: exit %d, %.1f s elapsed; budget 90 s: %s\n", x, t, (t <= 90 ? "within" : "OVER") }' \
  | tee "$OUT/elapsed.txt"
python3 deploy/gpu/sampling-summary.py "$OUT/coalescing.csv" > "$OUT/sampling.md"
echo "sampling (exit $?): $(tail -1 "$OUT/sampling.md")"

# 4. Native after the suite, then Busload vs native per kernel: against each run alone and against their mean.
"$HARNESS" "$FATBIN" "$OUT/plan.txt" > "$OUT/native.csv" 2> "$OUT/native.err"
echo "native harness (after): exit $?, $(($(wc -l < "$OUT/native.csv") - 1)) rows"
"$BUSLOAD_JAVA" -cp "$CP" io.busload.agent.crosscheck.Comparison "$OUT/coalescing.csv" "$OUT/native-before.csv" \
  > "$OUT/ratios-before.md"
"$BUSLOAD_JAVA" -cp "$CP" io.busload.agent.crosscheck.Comparison "$OUT/coalescing.csv" "$OUT/native.csv" \
  > "$OUT/ratios-after.md"
echo "against the native run before: $(tail -1 "$OUT/ratios-before.md")"
echo "against the native run after: $(tail -1 "$OUT/ratios-after.md")"
"$BUSLOAD_JAVA" -cp "$CP" io.busload.agent.crosscheck.Comparison "$OUT/coalescing.csv" "$OUT/native-before.csv" \
  "$OUT/native.csv" | tee "$OUT/ratios.md"

# 5. Hardware counters: the harness once per case under ncu, beside the model (last: the longest and optional).
if [[ -n "${BUSLOAD_NO_PROFILE:-}" ]]; then echo "profile: skipped (BUSLOAD_NO_PROFILE)"; exit 0; fi
timeout 300 ./busload run --suite "${BUSLOAD_PROFILE_SUITE:-coalescing}" --device cuda:0 --plan-out "$WORK/plan-profile.txt" --profile \
  --harness "$HARNESS" --profile-dir "$WORK/profile" > "$OUT/profile.md" 2>&1
echo "profile: exit $?"; tail -3 "$OUT/profile.md"
cp "$WORK/profile/ncu.csv" "$OUT/ncu.csv" 2>/dev/null
cp "$WORK/profile/console.txt" "$OUT/ncu-console.txt" 2>/dev/null
