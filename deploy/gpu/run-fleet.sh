#!/usr/bin/env bash
# Runs on the lent GPU machine: the fleet with a GPU in it, in one call. Carry .carry (made by
# deploy/gpu/pack-fleet.sh). Steps, each logged under $OUT:
#   1. the standalone `./busload run --suite coalescing --format csv` on the GPU (the reference);
#   2. `./busload certs` for a coordinator and an agent, then both started as the systemd units start them
#      (same flags, BUSLOAD_TLS_DIR, tokens files), the coordinator with its embedded PostgreSQL;
#   3. a coalescing sweep over REST with the coordinator's first API token, and a cron schedule that fires once
#      (the next minute but one), targeted at the GPU; both sweeps awaited to DONE;
#   4. every stored result exported over REST as CSV and JSON, the agent's outbox counted (0 files = all acked);
#   5. FleetComparison of each sweep against the standalone run: within 1% on every kernel, 0 lost, 0 duplicated.
# $OUT/summary.txt holds what decides; $OUT/fleet-run.tar.gz everything (logs, exports, certificates' subjects).
# SUITE and DEVICE (cuda:0 by default) let the same script rehearse on a machine without a GPU: SUITE=stride DEVICE=cpu.
# DEVICE=all is every GPU of the host (the CPU where there is none): the standalone reference runs them at once (one
# worker each, --device all), the REST sweep names every device the agent brought, the schedule targets the agent's
# label, and each device's results are compared with its own standalone results.
# TRANSPORT picks how the agent reaches the coordinator: default (the product's defaults, nothing set: the
# coordinator serves its bridge on 7704 and the agent finds it from the cluster settings, as its certificate's name,
# with mutual TLS), bridge (the same with the port and endpoint named: BUSLOAD_BRIDGE_PORT 7443, BUSLOAD_BRIDGE), or
# cluster (BUSLOAD_TRANSPORT=cluster: the agent a Hazelcast member, the coordinator serving no bridge).
set -uo pipefail
cd "$(dirname "$0")/../.."
SUITE=${SUITE:-coalescing}
DEVICE=${DEVICE:-cuda:0}
TRANSPORT=${TRANSPORT:-default}
case "$TRANSPORT" in
  default) COORD_ENV=(); AGENT_ENV=() ;;
  # The agent's id is its certificate's name, which the bridge checks on every message.
  bridge) COORD_ENV=(BUSLOAD_BRIDGE_PORT=7443); AGENT_ENV=(BUSLOAD_BRIDGE=localhost:7443 BUSLOAD_AGENT_ID=gpu) ;;
  cluster) COORD_ENV=(BUSLOAD_BRIDGE_PORT=off); AGENT_ENV=(BUSLOAD_TRANSPORT=cluster) ;;
  *) echo "TRANSPORT: default, bridge or cluster, not '$TRANSPORT'" >&2; exit 2 ;;
esac
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
WORK=/tmp/busload-fleet; rm -rf "$WORK"; mkdir -p "$WORK/logs" "$WORK/results"
R="$WORK/results"
START=$(date +%s)
say() { echo "[$(( $(date +%s) - START ))s] $*" | tee -a "$R/summary.txt"; }
# The device tool carries 64 MiB a call, working tree included: a fleet.tar.xz that does not fit beside the tree goes
# in parts (split -b), one call each while the machine stays warm, and is joined here.
if [[ -f .carry/fleet.tar.xz ]]; then
  tar -C "$WORK" -xJf .carry/fleet.tar.xz
else
  cat .carry/fleet.tar.xz.part-* | tar -C "$WORK" -xJf -
fi
export JAVA_HOME="$WORK/jre" BUSLOAD_JAVA="$WORK/jre/bin/java" BUSLOAD_BUNDLE="$WORK/bundle"
B="$WORK/bundle"
FLAGS=("@$PWD/deploy/src/main/dist/jvm.options")
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem,pstate,temperature.gpu --format=csv
  nvidia-smi --query-compute-apps=pid,name,used_memory --format=csv
  "$BUSLOAD_JAVA" -version 2>&1 | head -1
  echo "command: TRANSPORT=$TRANSPORT SUITE=$SUITE DEVICE=$DEVICE bash deploy/gpu/run-fleet.sh (carry .carry/fleet.tar.xz from deploy/gpu/pack-fleet.sh)"
} > "$R/machine.txt" 2>&1
cat "$R/machine.txt"

finish() {
  cp "$WORK"/logs/*.log "$R/" 2>/dev/null
  tar -C "$WORK" -czf "$OUT/fleet-run.tar.gz" results
  cp "$R/summary.txt" "$OUT/summary.txt"
  for f in "$R"/comparison-*.md "$R/machine.txt"; do [[ -f "$f" ]] && cp "$f" "$OUT/"; done
  exit "${1:-0}"
}

# 1. The reference: the standalone run, as a user runs it, with nothing else on the GPU.
t0=$(date +%s.%N)
timeout 240 ./busload run --suite "$SUITE" --device "$DEVICE" --format csv > "$R/standalone.csv" 2> "$R/standalone.err"
say "standalone ./busload run --suite $SUITE --device $DEVICE: exit $?, $(awk -v s="$t0" -v e="$(date +%s.%N)" 'BEGIN{printf "%.1f", e-s}') s, $(($(wc -l < "$R/standalone.csv") - 1)) results"

# 2. Certificates and the two processes, as deploy/systemd starts them: as the unprivileged user busload (User=busload
#    in the units; PostgreSQL refuses root), made here when the machine lacks it.
AS=()
if [[ $(id -u) -eq 0 ]]; then
  id busload >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin busload
  id busload >/dev/null 2>&1 && AS=(runuser -u busload --)
fi
# The agent as busload too, where that user may open the GPU (device files are usually 0666); else as root, said so.
AGENT_AS=("${AS[@]}")
if [[ ${#AS[@]} -gt 0 && -e /dev/nvidiactl ]] && ! runuser -u busload -- test -w /dev/nvidiactl; then AGENT_AS=(); fi
./busload certs --out "$WORK/tls" --ca-password-file "$WORK/ca-password" --coordinator gpu@localhost@127.0.0.1 --agent gpu@localhost@127.0.0.1 \
  > "$R/certs.txt" 2>&1 || { say "certs failed"; cat "$R/certs.txt"; finish 1; }
mkdir -p "$WORK/data" "$WORK/outbox"
[[ ${#AS[@]} -gt 0 ]] && chown -R busload "$WORK/data" "$WORK/outbox" "$WORK/tls" "$WORK/logs"
say "coordinator runs as $( [[ ${#AS[@]} -gt 0 ]] && echo busload || id -un), agent as $( [[ ${#AGENT_AS[@]} -gt 0 ]] && echo busload || id -un)"
BUSLOAD_DATA="$WORK/data" BUSLOAD_TLS_DIR="$WORK/tls/coordinator-gpu" BUSLOAD_API_TOKENS_FILE="$WORK/data/api-tokens" \
  BUSLOAD_FIRST_API_TOKEN_FILE="$WORK/data/first-api-token" \
  "${AS[@]}" env "${COORD_ENV[@]}" "$BUSLOAD_JAVA" "${FLAGS[@]}" -cp "$B/coordinator.jar:$B/lib/*" io.busload.coordinator.Main \
  > "$WORK/logs/coordinator.log" 2>&1 &
COORD=$!
BUSLOAD_TLS_DIR="$WORK/tls/agent-gpu" BUSLOAD_OUTBOX="$WORK/outbox" BUSLOAD_LABELS="lent-gpu" \
  "${AGENT_AS[@]}" env "${AGENT_ENV[@]}" "$BUSLOAD_JAVA" "${FLAGS[@]}" -cp "$B/agent.jar:$B/lib/*" io.busload.agent.Main agent \
  > "$WORK/logs/agent.log" 2>&1 &
AGENT=$!
API=http://127.0.0.1:8081/api
device=""
# How many devices the agent must bring: one, or with DEVICE=all every GPU nvidia-smi lists (the CPU where none).
WANT=1
[[ "$DEVICE" == all ]] && WANT=$(nvidia-smi --query-gpu=index --format=csv,noheader 2>/dev/null | grep -c . || true)
(( WANT > 0 )) || WANT=1
for _ in $(seq 1 120); do
  # The device ids online, comma-separated: the one named, or with DEVICE=all every one once WANT are there.
  device=$(curl -fs "$API/devices" 2>/dev/null | python3 -c '
import json, sys
ids = [d["id"] for d in json.load(sys.stdin) if d.get("state", "ONLINE") != "OFFLINE"]
if sys.argv[1] == "all":
    print(",".join(sorted(ids)) if len(ids) >= int(sys.argv[2]) else "")
else:
    print(next((i for i in ids if i.endswith("/" + sys.argv[1])), ""))' "$DEVICE" "$WANT" 2>/dev/null)
  [[ -n "$device" ]] && break
  kill -0 $COORD 2>/dev/null && kill -0 $AGENT 2>/dev/null || { say "a process exited at start"; for f in "$WORK"/logs/*.log; do tail -n 30 "$f"; done; finish 1; }
  sleep 1
done
[[ -n "$device" ]] || { say "no device $DEVICE online after 120 s"; curl -s "$API/devices" > "$R/devices.json"; finish 1; }
curl -fs "$API/devices" > "$R/devices.json"
grep -h -i "tls" "$WORK"/logs/*.log | head -4 >> "$R/summary.txt"
TOKEN=$(cat "$WORK/data/first-api-token")
grep -h "agent bridge" "$WORK"/logs/*.log | head -2 >> "$R/summary.txt"
say "fleet up ($TRANSPORT, TLS): device $device online"

# 3. A sweep over REST, and a schedule due the next minute but one (so it fires once during this run).
curl -fs -X POST -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
  -d "{\"suite\":\"$SUITE\",\"devices\":[\"${device//,/\",\"}\"]}" "$API/sweeps" > "$R/sweep-rest.json" \
  || { say "POST /api/sweeps refused"; finish 1; }
REST_SWEEP=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$R/sweep-rest.json")
fire=$(date -u -d '+2 minutes' '+%M %H')
TARGET="{\"kind\":\"device\",\"value\":\"$device\"}"
[[ "$DEVICE" == all ]] && TARGET='{"kind":"label","value":"lent-gpu"}'
curl -fs -X POST -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
  -d "{\"name\":\"gpu-fleet-once\",\"cron\":\"$fire * * *\",\"timeZone\":\"UTC\",\"suite\":\"$SUITE\",\"target\":$TARGET}" \
  "$API/schedules" > "$R/schedule.json" || { say "POST /api/schedules refused"; finish 1; }
say "sweep $REST_SWEEP started over REST; schedule '$fire * * *' UTC created ($(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["nextFireAt"])' "$R/schedule.json"))"
CRON_SWEEP=""
for _ in $(seq 1 600); do
  curl -fs "$API/sweeps?limit=10" > "$R/sweeps.json" 2>/dev/null
  read -r rest_state cron_id cron_state < <(python3 - "$R/sweeps.json" "$REST_SWEEP" <<'PY'
import json, sys
sweeps = json.load(open(sys.argv[1]))
rest = next((s for s in sweeps if s["id"] == sys.argv[2]), {})
other = [s for s in sweeps if s["id"] != sys.argv[2]]
cron = other[0] if other else {}
print(rest.get("state", "?"), cron.get("id", "-"), cron.get("state", "-"))
PY
)
  CRON_SWEEP=${cron_id#-}
  if [[ "$rest_state" =~ DONE|FAILED && "$cron_state" =~ DONE|FAILED ]]; then break; fi
  if (( $(date +%s) - START > 540 )); then say "stopping the wait at 540 s: REST sweep $rest_state, scheduled sweep $cron_state"; break; fi
  sleep 1
done
say "REST sweep $REST_SWEEP: $rest_state; scheduled sweep ${CRON_SWEEP:-none}: $cron_state"
curl -fs "$API/schedules" > "$R/schedules.json"

# 4. Exports, and what the agent still holds.
for which in rest cron; do
  id=$REST_SWEEP; [[ $which == cron ]] && id=$CRON_SWEEP
  [[ -n "$id" ]] || continue
  curl -fs "$API/results?sweepId=$id&format=csv&limit=100000" > "$R/sweep-$which.csv"
  curl -fs -H 'Accept: application/json' "$API/results?sweepId=$id&limit=100000" > "$R/sweep-$which.json"
  curl -fs "$API/sweeps/$id" > "$R/sweep-$which-state.json"
  say "sweep $which $id exported: $(($(wc -l < "$R/sweep-$which.csv") - 1)) CSV rows, $(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(len(r), "JSON results,", len({x["id"] for x in r}), "distinct ids,", sum(1 for x in r if x.get("valid")), "valid")' "$R/sweep-$which.json")"
done
curl -fs "$API/results?format=csv&limit=100000" > "$R/all-results.csv"
say "results stored in all: $(($(wc -l < "$R/all-results.csv") - 1)); agent outbox files left: $(find "$WORK/outbox" -type f 2>/dev/null | wc -l); coordinator alive: $(kill -0 $COORD 2>/dev/null && echo yes || echo no), agent alive: $(kill -0 $AGENT 2>/dev/null && echo yes || echo no)"
kill $AGENT $COORD 2>/dev/null; wait $AGENT $COORD 2>/dev/null

# 5. The fleet against the standalone run.
CP="$B/agent.jar:$B/lib/*"
status=0
# Each device against its own standalone results: the CSVs split by deviceId (one file each when there is one device).
split_by_device() {
  python3 - "$1" "$2" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
column = rows[0].index("deviceId")
for device in sorted({r[column] for r in rows[1:]}):
    name = device.rsplit("/", 1)[-1].replace(":", "")
    with open(f"{sys.argv[2]}-{name}.csv", "w", newline="") as out:
        w = csv.writer(out, lineterminator="\n")
        w.writerow(rows[0])
        w.writerows(r for r in rows[1:] if r[column] == device)
    print(name)
PY
}
DEVICES=$(split_by_device "$R/standalone.csv" "$R/standalone")
for which in rest cron; do
  [[ -s "$R/sweep-$which.csv" ]] || { say "no $which sweep to compare"; status=1; continue; }
  split_by_device "$R/sweep-$which.csv" "$R/sweep-$which" > /dev/null
  for d in $DEVICES; do
    suffix=""; [[ "$DEVICE" == all ]] && suffix="-$d"
    "$BUSLOAD_JAVA" -cp "$CP" io.busload.agent.crosscheck.FleetComparison "$R/standalone-$d.csv" "$R/sweep-$which-$d.csv" \
      > "$R/comparison-$which$suffix.md"
    s=$?; (( s == 0 )) || status=1
    say "$which sweep vs standalone on $d (exit $s): $(tail -1 "$R/comparison-$which$suffix.md")"
  done
done
say "done in $(( $(date +%s) - START )) s"
finish $status
