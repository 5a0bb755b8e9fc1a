#!/usr/bin/env bash
# Runs on the lent GPU machine (no Java there; carry .carry made by deploy/gpu/pack.sh): the coalescing suite
# through ./busload run (timed against the suite's 60 s budget, with its CPU time) between two runs of the native
# cross-check of every case on the same fatbin and the same sampling method (deploy/gpu/crosscheck.cu reads the
# plan's method line), the per-kernel JCuda/native ratio, the mutants suite (every deliberately wrong kernel must
# come out invalid), then the ncu counter pass (--profile). Everything lands under $OUT:
#   machine.txt            nvidia-smi, driver, Java
#   coalescing.csv/.err    ./busload run --suite coalescing --format csv, and its log
#   elapsed.txt            the suite's wall seconds against the budget, its user and system CPU seconds, and the
#                          wall seconds of each native run: all from this one run
#   plan.txt               the plan the agent resolved for this GPU (--plan-out), with the agent's sampling method
#   native-before.csv      the harness's medians (kernel,params,median_s,...,warmup_launches,stop) before the
#                          suite; native.csv after
#   mutants.csv/.txt       ./busload run --suite mutants, and the verdict: every mutant invalid, memcpy valid
#   ratios.md              Busload median, the mean of the two native medians, their drift, ratio, "within 1%";
#                          ratios-before.md and ratios-after.md against each native run alone
#   profile.md, ncu.csv    sectors/request and DRAM bytes beside the model, FLAG where they differ > 10%
#   sampling.md            how each result was measured: held/unheld/re-timed samples, stop reason, NVML
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

BUDGET_S=${BUSLOAD_BUDGET_S:-60}
# Wall seconds of a command, appended to elapsed.txt as "LABEL: exit X, S s elapsed".
timed() {
  local label=$1; shift
  local start; start=$(date +%s.%N)
  "$@"
  local status=$?
  awk -v s="$start" -v e="$(date +%s.%N)" -v x="$status" -v l="$label" 'BEGIN {
    printf "%s: exit %d, %.1f s elapsed\n", l, x, e - s }' | tee -a "$OUT/elapsed.txt"
}
: > "$OUT/elapsed.txt"

# 2. Native before the suite: with the run after it, it brackets the agent's run (Comparison: the mean of the two
#    cancels a GPU that drifts over the minutes, as the H100 did).
native() { "$HARNESS" "$FATBIN" "$OUT/plan.txt" > "$OUT/$1.csv" 2> "$OUT/$1.err"; }
timed "native harness (before)" native native-before
echo "native harness (before): $(($(wc -l < "$OUT/native-before.csv") - 1)) rows"

# 3. The suite, as a user runs it, against the budget, with the process's CPU time (host-side fills
#    and checks can take more CPU time than the run's elapsed time).
TIMEFORMAT='busload run --suite coalescing: %R s elapsed, user %U s, sys %S s of CPU'
start=$(date +%s.%N)
# BUSLOAD_SUITE_ARGS adds options to that run, e.g. "--energy-window 0" to time it without the energy windows.
{ time ./busload run --suite coalescing --format csv ${BUSLOAD_SUITE_ARGS:-} > "$OUT/coalescing.csv" 2> "$OUT/coalescing.err" ; } 2> "$WORK/time.txt"
status=$?
awk -v s="$start" -v e="$(date +%s.%N)" -v x="$status" -v b="$BUDGET_S" 'BEGIN { t = e - s;
  printf "coalescing suite: exit %d, %.1f s elapsed; budget %d s: %s\n", x, t, b, (t <= b ? "within" : "OVER") }' \
  | tee -a "$OUT/elapsed.txt"
tee -a "$OUT/elapsed.txt" < "$WORK/time.txt"
python3 deploy/gpu/sampling-summary.py "$OUT/coalescing.csv" > "$OUT/sampling.md"
echo "sampling (exit $?): $(tail -1 "$OUT/sampling.md")"

# 4. Native after the suite, then Busload vs native per kernel: against each run alone and against their mean.
timed "native harness (after)" native native
echo "native harness (after): $(($(wc -l < "$OUT/native.csv") - 1)) rows"
"$BUSLOAD_JAVA" -cp "$CP" io.busload.agent.crosscheck.NativeComparison "$OUT/coalescing.csv" "$OUT/native-before.csv" \
  > "$OUT/ratios-before.md"
"$BUSLOAD_JAVA" -cp "$CP" io.busload.agent.crosscheck.NativeComparison "$OUT/coalescing.csv" "$OUT/native.csv" \
  > "$OUT/ratios-after.md"
echo "against the native run before: $(tail -1 "$OUT/ratios-before.md")"
echo "against the native run after: $(tail -1 "$OUT/ratios-after.md")"
"$BUSLOAD_JAVA" -cp "$CP" io.busload.agent.crosscheck.NativeComparison "$OUT/coalescing.csv" "$OUT/native-before.csv" \
  "$OUT/native.csv" | tee "$OUT/ratios.md"

# 5. Mutants: each deliberately wrong kernel must fail its check on this GPU, and memcpy stay valid.
if [[ -z "${BUSLOAD_NO_MUTANTS:-}" ]]; then
  ./busload run --suite mutants --device cuda:0 --format csv > "$OUT/mutants.csv" 2> "$OUT/mutants.err"
  python3 - "$OUT/mutants.csv" <<'PY' | tee "$OUT/mutants.txt"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
bad = [r["kernel"] for r in rows if (r["kernel"] == "memcpy-d2d") != (r["valid"] == "true")
       or (r["kernel"] != "memcpy-d2d" and not r["mismatches"])]
for r in rows:
    print(r["kernel"], "valid" if r["valid"] == "true" else "invalid: " + r["mismatches"][:160])
print("mutants: %d rows; %s" % (len(rows), "every mutant invalid, memcpy valid" if rows and not bad
      else "WRONG: " + ", ".join(bad) if bad else "WRONG: no rows"))
PY
fi

# 6. Hardware counters: the harness once per case under ncu, beside the model (last: the longest and optional).
if [[ -n "${BUSLOAD_NO_PROFILE:-}" ]]; then echo "profile: skipped (BUSLOAD_NO_PROFILE)"; exit 0; fi
timeout 300 ./busload run --suite "${BUSLOAD_PROFILE_SUITE:-coalescing}" --device cuda:0 --plan-out "$WORK/plan-profile.txt" --profile \
  --harness "$HARNESS" --profile-dir "$WORK/profile" > "$OUT/profile.md" 2>&1
echo "profile: exit $?"; tail -3 "$OUT/profile.md"
cp "$WORK/profile/ncu.csv" "$OUT/ncu.csv" 2>/dev/null
cp "$WORK/profile/console.txt" "$OUT/ncu-console.txt" 2>/dev/null
