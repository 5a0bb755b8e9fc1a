#!/usr/bin/env bash
# Runs on the lent GPU machine: the fleet with a GPU in it, in one call. Carry .carry (made by
# deploy/gpu/pack-fleet.sh). Steps, each logged under $OUT:
#   1. the standalone `./busload run --suite coalescing --format csv` on the GPU (the reference);
#   2. `./busload certs` for a coordinator and an agent, then both started as the systemd units start them
#      (same flags, BUSLOAD_TLS_DIR, tokens files), the coordinator with its embedded PostgreSQL;
#   3-5. the acceptance, in Java (io.busload.agent.crosscheck.FleetAcceptance, from the bundle's agent.jar): a
#      coalescing sweep over REST with the coordinator's first API token, and a cron schedule that fires once (the
#      next minute but one), targeted at the GPU; both sweeps awaited to DONE; every stored result exported over REST
#      as CSV and JSON, the agent's outbox counted (0 files = all acked); FleetComparison of each sweep against the
#      standalone run: within 1% on every kernel, 0 lost, 0 duplicated. Its exit status is this script's.
# This script only starts and stops processes. $OUT/summary.txt holds what decides; $OUT/fleet-run.tar.gz everything
# (logs, exports, certificates' subjects).
# SUITE and DEVICE (cuda:0 by default) let the same script rehearse on a machine without a GPU: SUITE=stride DEVICE=cpu.
# TOLERANCE (0.01 by default: 1%) is how far a fleet median may be from the standalone one; a shared machine's CPU
# varies far more than that between two runs, so a rehearsal there checks the bookkeeping with a loose one (10).
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
TOLERANCE=${TOLERANCE:-0.01}
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
  echo "command: TRANSPORT=$TRANSPORT SUITE=$SUITE DEVICE=$DEVICE TOLERANCE=$TOLERANCE bash deploy/gpu/run-fleet.sh (carry .carry/fleet.tar.xz from deploy/gpu/pack-fleet.sh)"
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
# How many devices the agent must bring: one, or with DEVICE=all every GPU nvidia-smi lists (the CPU where none).
WANT=1
[[ "$DEVICE" == all ]] && WANT=$(nvidia-smi --query-gpu=index --format=csv,noheader 2>/dev/null | grep -c . || true)
(( WANT > 0 )) || WANT=1

# 3-5. The acceptance: it waits for the device(s), starts both sweeps, exports, counts and compares, and appends its
#      lines to summary.txt (seconds from START, as say's).
"$BUSLOAD_JAVA" "${FLAGS[@]}" -cp "$B/agent.jar:$B/lib/*" io.busload.agent.crosscheck.FleetAcceptance \
  --coordinator http://127.0.0.1:8081 --token-file "$WORK/data/first-api-token" --suite "$SUITE" \
  --device "$DEVICE" --devices "$WANT" --label lent-gpu --standalone "$R/standalone.csv" --outbox "$WORK/outbox" \
  --out "$R" --since "$START" --deadline 540 --tolerance "$TOLERANCE" --watch "coordinator=$COORD" --watch "agent=$AGENT" \
  --log "$WORK/logs/coordinator.log" --log "$WORK/logs/agent.log" --transport "$TRANSPORT, TLS" \
  2>&1 | tee "$WORK/logs/acceptance.log"
status=${PIPESTATUS[0]}
if (( status != 0 )); then for f in "$WORK"/logs/{coordinator,agent}.log; do echo "== $f"; tail -n 30 "$f"; done; fi
kill $AGENT $COORD 2>/dev/null; wait $AGENT $COORD 2>/dev/null
finish $status
