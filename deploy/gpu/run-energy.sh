#!/usr/bin/env bash
# Runs on the lent GPU machine (no Java there; carry .carry made by deploy/gpu/pack.sh): how often NVML's energy
# counter moves (energy-counter.py), then the coalescing suite with energy (--energy-window 1) while nvidia-smi
# samples the board's power every 100 ms in a separate process, then (BUSLOAD_BASELINE=1) the suite once more with
# no energy window, to show the bandwidth figures do not move. Everything lands under $OUT:
#   machine.txt           nvidia-smi, driver, Java, date
#   counter.txt           the counter's step spacing and size, idle and while copying
#   coalescing.json/.err  ./busload run --suite coalescing --format json, and its log
#   smi-power.csv         nvidia-smi --query-gpu=timestamp,power.draw,power.draw.instant --format=csv -lms 100
#   baseline.json         the suite again with --energy-window 0 (when asked)
#   health.txt            NVML's health counters (ECC, remapped rows, retired pages, PCIe replays), read only,
#                         before and after the suites (health-counters.py)
set -uo pipefail
cd "$(dirname "$0")/../.."
HERE=$(dirname "$0")
. "$HERE/carried.sh"
record_machine
nvidia-smi --query-gpu=power.limit,power.default_limit,enforced.power.limit --format=csv 2>&1 | tee -a "$OUT/machine.txt"
python3 "$HERE/health-counters.py" before > "$OUT/health.txt" 2>&1
python3 "$HERE/energy-counter.py" 2>&1 | tee "$OUT/counter.txt"
fields=timestamp,power.draw,power.draw.instant
nvidia-smi --query-gpu=$fields --format=csv,nounits >/dev/null 2>&1 || fields=timestamp,power.draw
nvidia-smi --query-gpu=$fields --format=csv,nounits -lms 100 > "$OUT/smi-power.csv" 2>&1 &
smi=$!
sleep 1
start=$(date +%s.%N)
./busload run --suite coalescing --device cuda:0 --format json --energy-window 1 > "$OUT/coalescing.json" \
  2> "$OUT/coalescing.err"
echo "coalescing with energy: exit $?, $(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN{printf "%.1f", e-s}') s"
sleep 1
kill "$smi"
if [[ -n "${BUSLOAD_BASELINE:-}" ]]; then
  start=$(date +%s.%N)
  ./busload run --suite coalescing --device cuda:0 --format json --energy-window 0 > "$OUT/baseline.json" \
    2> /dev/null
  echo "coalescing without energy: exit $?, $(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN{printf "%.1f", e-s}') s"
fi
python3 "$HERE/health-counters.py" after >> "$OUT/health.txt" 2>&1
cat "$OUT/health.txt"
python3 - "$OUT/coalescing.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
read = [r for r in rows if r.get("energy")]
print("%d results, %d with energy" % (len(rows), len(read)))
for r in rows:
    if r["kernel"] == "stride-copy-fp32" and r.get("energy"):
        e = r["energy"]
        print(r["params"].get("stride"), "%.2f J/GB" % (e["joules"] / (e["launches"] * r["bytes"] / 1e9)),
              "%.1f W" % e["averageWatts"])
PY
