#!/usr/bin/env bash
# On the lent GPU machine (no Java there; carry .carry made by deploy/gpu/pack.sh): shows that each result carries
# how it was measured, read on a real GPU. Everything lands under $OUT:
#   machine.txt              nvidia-smi, driver, Java
#   stride.csv/.json/.err    the stride suite at its default size: NVML clocks after every sample, held samples
#   small.csv, small.err     size=1048576: under 4 x L2 (cache-resident) and batches of > 512 launches (unheld)
#   study.csv                the same with cache-study=true: labelled a cache study
#   *-summary.md             deploy/gpu/sampling-summary.py of each CSV; exit 1 there when a GPU result's clocks
#                            were not read (NVML must answer on a GPU host)
#   nvml.txt                 which libnvidia-ml the host has
set -uo pipefail
cd "$(dirname "$0")/../.."
. deploy/gpu/carried.sh
record_machine
{ ldconfig -p | grep -i nvidia-ml || echo "libnvidia-ml not in ldconfig's cache"; } > "$OUT/nvml.txt" 2>&1

./busload run --suite stride --device cuda:0 --format csv > "$OUT/stride.csv" 2> "$OUT/stride.err"
echo "stride: exit $?"
./busload run --suite stride --device cuda:0 --option stride=1,32 --format json > "$OUT/stride.json" 2>> "$OUT/stride.err"
./busload run --suite stride --device cuda:0 --option size=1048576 --format csv > "$OUT/small.csv" 2> "$OUT/small.err"
echo "small: exit $?"
./busload run --suite stride --device cuda:0 --option size=1048576 --option cache-study=true --format csv \
  > "$OUT/study.csv" 2> "$OUT/study.err"
echo "study: exit $?"
for f in stride small study; do
  python3 deploy/gpu/sampling-summary.py "$OUT/$f.csv" > "$OUT/$f-summary.md"
  echo "$f: summary exit $?; $(tail -1 "$OUT/$f-summary.md")"
done
