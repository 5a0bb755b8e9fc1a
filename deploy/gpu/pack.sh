#!/usr/bin/env bash
# Packs what a GPU machine without Java needs to run the agent: a jlink runtime (.carry/jre.tar.xz) and the
# agent jar with its dependencies (.carry/agent/). Run here, then name .carry in the device tool's carry list.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
JDK=${JDK:-/usr/lib/jvm/temurin-25-jdk-amd64}
CARRY="$ROOT/.carry"
rm -rf "$CARRY/agent" && mkdir -p "$CARRY/agent/lib"
./busload mvn -q -pl agent dependency:copy-dependencies -DincludeScope=runtime \
  -DoutputDirectory="$CARRY/agent/lib" >/dev/null
cp agent/target/busload-agent-*.jar "$CARRY/agent/agent.jar"
# JCuda's natives jar holds the PTX compiler's binding (24 MB unpacked, 9 MB of the jar), which Busload never loads.
if command -v zip >/dev/null; then zip -q -d "$CARRY"/agent/lib/jcuda-natives-*.jar 'lib/libJNvPTXCompiler*' || true; fi
# The device tool carries 64 MiB at most. `./busload run` never joins a cluster, so Hazelcast (16 MB) and
# Jackson 3 (pulled in by Hazelcast) stay behind unless BUSLOAD_CARRY=cluster asks for agent mode there.
if [[ "${BUSLOAD_CARRY:-standalone}" == standalone ]]; then
  rm -f "$CARRY"/agent/lib/hazelcast-*.jar "$CARRY"/agent/lib/jackson-*-3.*.jar "$CARRY"/agent/lib/vertx-hazelcast-*.jar
fi
modules=$("$JDK/bin/jdeps" --ignore-missing-deps --multi-release 25 --print-module-deps \
  --class-path "$CARRY/agent/lib/*" "$CARRY/agent/agent.jar" 2>/dev/null || true)
modules="${modules:+$modules,}jdk.unsupported,jdk.crypto.ec,jdk.zipfs"
echo "runtime modules: $modules"
rm -rf "$CARRY/jre" "$CARRY/jre.tar.xz"
"$JDK/bin/jlink" --add-modules "$modules" --strip-debug --no-header-files --no-man-pages --compress=zip-0 \
  --output "$CARRY/jre"
# zip-0 then xz: xz compresses the uncompressed modules image far better than jlink zip-9 does (the agent's runtime: 35.9 MB with zip-9, 21.8 MB this way),
# and the device tool carries 64 MiB at most.
tar -C "$CARRY" -cf - jre | xz -9 -T2 > "$CARRY/jre.tar.xz" && rm -rf "$CARRY/jre"
du -sh "$CARRY/jre.tar.xz" "$CARRY/agent"
