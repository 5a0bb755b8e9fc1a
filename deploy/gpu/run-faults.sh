#!/usr/bin/env bash
# Runs on the lent GPU machine (no Java there): the faults suite (an out-of-bounds write, an allocation larger
# than the GPU, then a plain copy) through ./busload run, then the stride suite, to show that each fault fails
# only its own kernel, named by its CUDA error, and that the GPU measures correctly afterwards. Keeps all under $OUT.
set -uo pipefail
cd "$(dirname "$0")/../.."
. deploy/gpu/carried.sh
record_machine
start=$(date +%s)
./busload run --suite faults --format table > "$OUT/faults-table.txt" 2> "$OUT/faults-log.txt"
echo "faults suite exit $? after $(( $(date +%s) - start )) s" | tee -a "$OUT/machine.txt"
./busload run --suite faults --format json > "$OUT/faults.json" 2> "$OUT/faults-json-log.txt"
echo "faults json exit $?" | tee -a "$OUT/machine.txt"
./busload run --suite stride --format table > "$OUT/stride-after-table.txt" 2> "$OUT/stride-after-log.txt"
echo "stride after faults exit $?" | tee -a "$OUT/machine.txt"
nvidia-smi --query-gpu=name,pstate,temperature.gpu --format=csv | tee -a "$OUT/machine.txt"
