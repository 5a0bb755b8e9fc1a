#!/usr/bin/env bash
# Starts the bundled dashboard (deploy/target/bundle, as the units start it: java @jvm.options -jar dashboard.jar)
# RUNS times without and RUNS times with a JDK 25 ahead-of-time cache, alternating, and prints for each start the
# milliseconds from launch until GET /login is first answered (the JVM's start, Spring's and Vaadin's, and the
# first page, cold), and Spring's own "Started" time. The cache is trained first by one start that is asked for
# the login page, its script and style bundle, and then stopped (-XX:AOTCacheOutput; the cache is written at exit).
# No coordinator runs: the dashboard's warm-up and its cluster join fail quietly and in the background.
#
# Usage: aot-startup.sh BUNDLE_DIR [RUNS]     (JAVA: the java to use, default java on PATH)
set -euo pipefail
BUNDLE=$(cd "$1" && pwd); RUNS=${2:-2}; JAVA=${JAVA:-java}
WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# start LABEL [JVM OPTION...]: one start, measured; leaves its log in $WORK/LABEL.log
start() {
  local label=$1; shift
  local port; port=$(free_port)
  local log="$WORK/$label.log"
  local launched; launched=$(now_ms)
  BUSLOAD_CLUSTER_NAME="aot-$label-$$" BUSLOAD_CLUSTER_HOST=127.0.0.1 BUSLOAD_CLUSTER_MEMBERS=127.0.0.1 \
    BUSLOAD_CLUSTER_PORT="$(free_port)" BUSLOAD_COORDINATOR_URL=http://127.0.0.1:9 \
    "$JAVA" @"$BUNDLE/jvm.options" "$@" -Duser.home="$WORK/home" -jar "$BUNDLE/dashboard.jar" \
    --server.port="$port" >"$log" 2>&1 &
  local pid=$!
  until curl -fs -o "$WORK/login.html" "http://127.0.0.1:$port/login"; do
    kill -0 "$pid" 2>/dev/null || { tail -20 "$log" >&2; echo "$label: the dashboard exited" >&2; exit 1; }
    sleep 0.05
  done
  local answered; answered=$(now_ms)
  if [[ "$label" == training ]]; then
    for asset in $(grep -o '/VAADIN/build/[^"]*' "$WORK/login.html" | sort -u); do
      curl -fs -o /dev/null "http://127.0.0.1:$port$asset" || true
    done
  fi
  kill -TERM "$pid"; wait "$pid" || true
  printf '%-9s first /login answered %5d ms after launch; %s\n' "$label" $((answered - launched)) \
    "$(grep -o 'Started Application in [0-9.]* seconds[^)]*)' "$log" | head -1)"
}

mkdir -p "$WORK/home"
"$JAVA" -version 2>&1 | head -1
echo "load before: $(cat /proc/loadavg)"
start training -XX:AOTCacheOutput="$WORK/dashboard.aot"
grep -i 'aot' "$WORK/training.log" | grep -iv 'warn' | tail -2 || true
ls -la "$WORK/dashboard.aot" | awk '{print "AOT cache: " $5 " bytes"}'
for i in $(seq 1 "$RUNS"); do
  start "plain-$i"
  start "aot-$i" -XX:AOTCache="$WORK/dashboard.aot"
  grep -i 'aot\|cds' "$WORK/aot-$i.log" | head -3 || true
done
echo "load after: $(cat /proc/loadavg)"
