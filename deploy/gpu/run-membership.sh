#!/usr/bin/env bash
# Runs on the lent machine (the membership curve past 100 members): `simulate membership` from
# the carried runtime, within one call of the device tool. Carry .carry/sim-jre.tar.xz and .carry/simulator.tar.xz
# (made by deploy/gpu/pack-simulator.sh). Member JVMs are started by the simulator with its own java.home, so they
# run on the same carried runtime; no `java` on PATH is needed or used.
# Everything lands under $OUT: machine.txt (date, kernel, nproc, free -m, uptime, which OS tools exist),
# membership.md and membership.json (the report), simulator.out and simulator.err, failed-members/ (the logs of
# members that logged an error, at most 20) and members.tar.gz (every member's log and status file).
# Settings, by environment: SIZES (default 10,25,50,100,150,200), WINDOW (steady window per size, s, default 15),
# BATCH (members started at once, default 10), HEAP (per lite member, default 48m), DATA_HEAP (the data member, default 256m), BUDGET (wall seconds this script may
# take, default 540). The simulator gets --deadline from BUDGET, so it stops growing in time and still prints what
# it measured; the sizes it did not reach are said in simulator.out.
set -uo pipefail
cd "$(dirname "$0")/../.."
START=$(date +%s)
SIZES=${SIZES:-10,25,50,100,150,200}
WINDOW=${WINDOW:-15}
BATCH=${BATCH:-10}
HEAP=${HEAP:-48m}
DATA_HEAP=${DATA_HEAP:-256m}
BUDGET=${BUDGET:-540}
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
WORK=/tmp/busload-membership; rm -rf "$WORK"; mkdir -p "$WORK"
elapsed() { echo $(( $(date +%s) - START )); }
say() { echo "[$(elapsed)s] $*" | tee -a "$OUT/summary.txt"; }

for f in .carry/sim-jre.tar.xz .carry/simulator.tar.xz; do
  [[ -f "$f" ]] || { say "missing $f: carry it (deploy/gpu/pack-simulator.sh makes it)"; exit 1; }
done
tar -C "$WORK" -xJf .carry/sim-jre.tar.xz && tar -C "$WORK" -xJf .carry/simulator.tar.xz \
  || { say "unpacking the carried runtime failed"; exit 1; }
JAVA="$WORK/jre/bin/java"
SIM="$WORK/simulator"
say "unpacked the runtime and $(ls "$SIM/lib" | wc -l) jars"

# ss gives traffic per member socket; without it (iproute2 is not in bare images) the simulator reads /proc and says
# so in the report. free and uptime come from procps, also not in every image: /proc stands in.
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: $(git rev-parse HEAD 2>/dev/null || echo unknown)"
  echo "kernel: $(uname -srvm)"
  echo "nproc: $(nproc)"
  echo "free -m:"; free -m 2>/dev/null || grep -E '^(MemTotal|MemAvailable|SwapTotal):' /proc/meminfo
  echo "uptime: $(uptime 2>/dev/null || cat /proc/loadavg)"
  echo "ulimit -n: $(ulimit -n), ulimit -u: $(ulimit -u), pid_max: $(cat /proc/sys/kernel/pid_max)"
  echo "ephemeral ports: $(cat /proc/sys/net/ipv4/ip_local_port_range)"
  for tool in ss free uptime ps nvidia-smi; do echo "$tool: $(command -v "$tool" || echo missing)"; done
  command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  echo "java: $("$JAVA" -version 2>&1 | head -1) ($JAVA; java on PATH: $(command -v java || echo none))"
} > "$OUT/machine.txt" 2>&1
cat "$OUT/machine.txt"

# The fleet's JVM flags for Hazelcast on JDK 25, as ./busload passes them; the simulator hands them to each member.
FLAGS=("@$PWD/deploy/src/main/dist/jvm.options")
# The last size may run one steady window (plus its settling and the probe's join and departure) past the deadline,
# and after it come the members' kill, the report and the copying here.
deadline=$(( BUDGET - $(elapsed) - WINDOW - 40 ))
hard=$(( BUDGET - $(elapsed) - 15 ))
(( deadline > 30 )) || { say "BUDGET $BUDGET s leaves no time to measure"; exit 1; }
say "simulate membership --sizes $SIZES --window $WINDOW --batch $BATCH --heap $HEAP --data-heap $DATA_HEAP --deadline $deadline (killed at $hard s)"
# timeout signals its whole process group, so member JVMs go with the simulator if it overruns.
timeout -k 5 "$hard" "$JAVA" "${FLAGS[@]}" -Dlogback.configurationFile=simulator-logback.xml \
  -cp "$SIM/simulator.jar:$SIM/lib/*" io.busload.simulator.Main membership --sizes "$SIZES" --window "$WINDOW" \
  --batch "$BATCH" --heap "$HEAP" --data-heap "$DATA_HEAP" --deadline "$deadline" --out "$WORK/membership" \
  > "$OUT/simulator.out" 2> "$OUT/simulator.err"
status=$?
say "simulator exit $status$( ((status == 124 || status == 137)) && echo ' (killed at the time limit: no report)')"
grep -E "^N=|stopped|deadline|gave up" "$OUT/simulator.out" | tee -a "$OUT/summary.txt"

for f in membership.md membership.json; do
  [[ -f "$WORK/membership/$f" ]] && cp "$WORK/membership/$f" "$OUT/"
done
if [[ -d "$WORK/membership/members" ]]; then
  mkdir -p "$OUT/failed-members"
  # Members log at WARN, and every member warns of the refused connection to each probe killed on purpose; a failed
  # one logs an ERROR, a lost partition, no data member left (the runs on 2 cores broke so), or died.
  failed='( ERROR |completely lost|NoDataMemberInCluster|Exception in thread|OutOfMemoryError)'
  grep -lE "$failed" "$WORK"/membership/members/member-*.log 2>/dev/null | head -20 | xargs -r cp -t "$OUT/failed-members/"
  say "$(ls "$WORK"/membership/members/member-*.log | wc -l) members started; $(grep -lE "$failed" \
    "$WORK"/membership/members/member-*.log 2>/dev/null | wc -l) logged a failure (in failed-members/, 20 at most)"
  tar -C "$WORK/membership" -czf "$OUT/members.tar.gz" members
fi
say "done in $(elapsed) s"
exit "$status"
