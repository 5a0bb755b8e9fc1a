#!/usr/bin/env bash
# Runs on the lent GPU machine (carry .carry/jre.tar.xz and .carry/agent from deploy/gpu/pack.sh, and .carry/ap
# holding async-profiler's libasyncProfiler.so for linux-x64, from Maven Central's tools.profiler:async-profiler jar):
# the coalescing suite with --energy-window 0, twice, each under async-profiler as a Java agent: once sampling wall
# time (event=wall, 5 ms) and once CPU time (event=cpu, 10 ms), every thread apart, as collapsed stacks. Under $OUT:
# machine.txt, time-wall.txt and time-cpu.txt (wall, user and system seconds), w0.* and c0.* (each run's JSON and log),
# wall.collapsed.gz and cpu.collapsed.gz. deploy/gpu/profile-summary.py sums a collapsed file by what the time went to.
set -uo pipefail
cd "$(dirname "$0")/../.."
. deploy/gpu/carried.sh
record_machine
nproc | tee -a "$OUT/machine.txt"
AP="$PWD/.carry/ap/libasyncProfiler.so"
TIMEFORMAT='%R s elapsed, user %U s, sys %S s of CPU'
{ time JAVA_TOOL_OPTIONS="-agentpath:$AP=start,event=wall,interval=5ms,threads,collapsed,file=$OUT/wall.collapsed" \
  ./busload run --suite coalescing --device cuda:0 --format json --energy-window 0 > "$OUT/w0.json" 2> "$OUT/w0.err" ; } 2> "$OUT/time-wall.txt"
cat "$OUT/time-wall.txt"
{ time JAVA_TOOL_OPTIONS="-agentpath:$AP=start,event=cpu,interval=10ms,threads,collapsed,file=$OUT/cpu.collapsed" \
  ./busload run --suite coalescing --device cuda:0 --format json --energy-window 0 > "$OUT/c0.json" 2> "$OUT/c0.err" ; } 2> "$OUT/time-cpu.txt"
cat "$OUT/time-cpu.txt"
tail -3 "$OUT/w0.err"; gzip "$OUT"/*.collapsed; ls -la "$OUT"
