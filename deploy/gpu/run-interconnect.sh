#!/usr/bin/env bash
# Runs on the lent GPU machine (no Java there; carry .carry made by deploy/gpu/pack.sh): the interconnect
# suite (host <-> device by copy engine and by SM zero-copy, pinned and pageable, 4 KiB..1 GiB; the GPU pairs when
# the host has more than one GPU) through ./busload run, bracketed by two runs of the native harness
# (deploy/gpu/crosscheck.cu --interconnect) on the same fatbin, then the JCuda/native comparison. Under $OUT:
#   machine.txt            date, commit, nvidia-smi (name, driver, memory, clocks), Java; PCIe link and NUMA node
#   topology.txt           nvidia-smi topo -m and the PCIe link of each GPU as sysfs reads it
#   interconnect-cudaN.json/.err  ./busload run --suite interconnect --device cuda:N --format json (results with
#                          the device fingerprint and topology, for docs/results and the dashboard), its log
#   interconnect.csv       cuda:0's results in the columns Comparison reads
#   native-before.csv      the harness's medians before the suite; native.csv after; native-*.err their logs
#   ratios.md              Busload median / mean native median per case (agent/crosscheck/NativeComparison)
# BUSLOAD_LINK_BYTES overrides the sizes (bytes per direction, comma-separated; default 4 KiB..1 GiB by 4).
set -uo pipefail
cd "$(dirname "$0")/../.."
. deploy/gpu/carried.sh
CP="$BUSLOAD_BUNDLE/agent.jar:$BUSLOAD_BUNDLE/lib/*"
# The catalog's sizes unless BUSLOAD_LINK_BYTES names others (the option then sizes the pairs too; the catalog
# measures a pair at 256 MiB, as the native harness does).
BYTES=${BUSLOAD_LINK_BYTES:-4096,16384,65536,262144,1048576,4194304,16777216,67108864,268435456,1073741824}
OPTION=()
[[ -n "${BUSLOAD_LINK_BYTES:-}" ]] && OPTION=(--option "bytes=$BUSLOAD_LINK_BYTES")
record_machine
{
  nvidia-smi --query-gpu=index,pci.bus_id,pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,pcie.link.width.max --format=csv
  nvcc --version | tail -1
  echo "host memory: $(grep MemTotal /proc/meminfo); locked-memory limit: $(ulimit -l)"
} 2>&1 | tee -a "$OUT/machine.txt"
{
  nvidia-smi topo -m
  for bus in $(nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader); do
    d=/sys/bus/pci/devices/$(echo "$bus" | tr 'A-F' 'a-f' | sed -E 's/^0000([0-9a-f]{4}:)/\1/')
    echo "$bus: speed $(cat "$d/current_link_speed" 2>/dev/null) (max $(cat "$d/max_link_speed" 2>/dev/null)), width x$(cat "$d/current_link_width" 2>/dev/null) (max x$(cat "$d/max_link_width" 2>/dev/null)), numa node $(cat "$d/numa_node" 2>/dev/null)"
  done
} > "$OUT/topology.txt" 2>&1
cat "$OUT/topology.txt"

# 1. The fatbin the agent loads, and the native harness built here (cuBLAS as run-coalescing.sh finds it).
extract_fatbin
BLAS=(-lcublas)
if [[ ! -f "$(dirname "$(command -v nvcc)")/../include/cublas_v2.h" ]]; then
  header=$(find /usr/local /usr/lib /usr/include /opt /root -name cublas_v2.h 2>/dev/null | head -1)
  lib=$(find "$(dirname "$header")/.." /usr/local /usr/lib /opt -name 'libcublas.so*' 2>/dev/null | sort | head -1)
  BLAS=(-I"$(dirname "$header")" -L"$(dirname "$lib")" -l:"$(basename "$lib")" -Xlinker -rpath="$(dirname "$lib")")
fi
HARNESS="$WORK/crosscheck"
nvcc -O2 -arch=native -o "$HARNESS" deploy/gpu/crosscheck.cu -lcuda "${BLAS[@]}" 2>&1 | tee "$OUT/nvcc.txt" \
  || nvcc -O2 -o "$HARNESS" deploy/gpu/crosscheck.cu -lcuda "${BLAS[@]}" 2>&1 | tee -a "$OUT/nvcc.txt"
GPUS=$(nvidia-smi --query-gpu=index --format=csv,noheader | wc -l)

# 2. Native before the suite (device 0; its pairs when there are any), with the agent's sampling method on this GPU
#    (the method line of a plan the agent writes; the plan's cases are not used).
./busload run --suite stride --device cuda:0 --plan-out "$OUT/method-plan.txt" 2>&1 | tail -1
"$HARNESS" --interconnect "$FATBIN" "$OUT/method-plan.txt" 0 ${BYTES//,/ } > "$OUT/native-before.csv" 2> "$OUT/native-before.err"
echo "native harness (before): exit $?, $(($(wc -l < "$OUT/native-before.csv") - 1)) rows"

# 3. The suite through the agent on every GPU of the host, one after the other (a pair's two GPUs are then idle
#    but for the pair's own copies), as JSON with the fingerprints; cuda:0's as CSV too (the columns Comparison
#    reads: kernel, params as ResultCsv writes them, valid, medianSeconds), converted rather than measured twice.
for ((g = 0; g < GPUS; g++)); do
  start=$(date +%s.%N)
  ./busload run --suite interconnect --device "cuda:$g" --format json "${OPTION[@]}" \
    > "$OUT/interconnect-cuda$g.json" 2> "$OUT/interconnect-cuda$g.err"
  echo "interconnect suite on cuda:$g: exit $?, $(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN{printf "%.1f", e-s}') s" \
    | tee -a "$OUT/machine.txt"
done
python3 - "$OUT/interconnect-cuda0.json" > "$OUT/interconnect.csv" <<'PY'
import csv, json, sys
w = csv.writer(sys.stdout, lineterminator="\n")
w.writerow(["kernel", "params", "valid", "medianSeconds"])
for r in json.load(open(sys.argv[1])):
    p = r["params"]
    w.writerow([r["kernel"], ";".join(f"{k}={p[k]}" for k in sorted(p)), str(r["valid"]).lower(), r["medianSeconds"]])
PY

# 4. Native after, then Busload vs native per case against the mean of the two native runs.
"$HARNESS" --interconnect "$FATBIN" "$OUT/method-plan.txt" 0 ${BYTES//,/ } > "$OUT/native.csv" 2> "$OUT/native.err"
echo "native harness (after): exit $?, $(($(wc -l < "$OUT/native.csv") - 1)) rows"
"$BUSLOAD_JAVA" -cp "$CP" io.busload.agent.crosscheck.NativeComparison "$OUT/interconnect.csv" "$OUT/native-before.csv" \
  "$OUT/native.csv" | tee "$OUT/ratios.md"
grep -h "no peer access\|no GPU pair\|cannot be pinned" "$OUT"/native*.err "$OUT"/interconnect*.err 2>/dev/null | sort -u
