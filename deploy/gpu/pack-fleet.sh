#!/usr/bin/env bash
# Packs the fleet for a GPU machine without Java: one .carry/fleet.tar.xz holding a jlink runtime with the
# modules the deploy units name (java.se for Hazelcast), and the bundle's agent.jar, coordinator.jar and the part of
# the shared lib/ those two use, as the units start them. The device tool carries 64 MiB a call, so the libraries are
# re-zipped without compression and the whole is xz-compressed once (61 MB of jars become about 38 MB); a jar's
# entries are unchanged, so the class path reads them unchanged. The dashboard stays here: its views are drawn from
# results pushed back into a local fleet (./busload push).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
JDK=${JDK:-/usr/lib/jvm/temurin-25-jdk-amd64}
STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
./busload build -q >/dev/null
BUNDLE="$ROOT/deploy/target/bundle"
mkdir -p "$STAGE/bundle/lib" "$STAGE/deps"
# The launcher's Java commands (./busload certs) run from the bundle with its one JVM options file.
cp "$BUNDLE/agent.jar" "$BUNDLE/coordinator.jar" "$BUNDLE/launcher.jar" "$BUNDLE/jvm.options" "$STAGE/bundle/"
# Only the jars the agent and the coordinator resolve, taken from the bundle itself so the versions are the lab's.
for module in agent coordinator; do
  ./busload mvn -q -pl "$module" dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$STAGE/deps" >/dev/null
done
for jar in "$STAGE"/deps/*.jar; do
  name=$(basename "$jar")
  [[ -f "$BUNDLE/lib/$name" ]] || { echo "pack-fleet: $name is not in the bundle's lib/" >&2; exit 1; }
  python3 deploy/gpu/stored-jars.py "$STAGE/bundle/lib" "$BUNDLE/lib/$name"
done
# The units' flags: --add-modules java.se, and opens into jdk.management. jdk.security.auth: the embedded PostgreSQL
# asks com.sun.security.auth.module.UnixSystem whether it runs as root (and then starts initdb in a user namespace);
# without the module it took root for a plain user and initdb refused ("cannot be run as root"). jdk.net: Hazelcast's
# TCP keep-alive options.
"$JDK/bin/jlink" --add-modules java.se,jdk.unsupported,jdk.crypto.ec,jdk.zipfs,jdk.management,jdk.net,jdk.security.auth,jdk.jfr \
  --strip-debug --no-header-files --no-man-pages --compress=zip-0 --output "$STAGE/jre"
mkdir -p "$ROOT/.carry"
rm -f "$ROOT/.carry/fleet.tar.xz"
tar -C "$STAGE" -cf - jre bundle | xz -9 -T2 > "$ROOT/.carry/fleet.tar.xz"
echo "pack-fleet: $(ls "$STAGE/bundle/lib" | wc -l) jars; $(du -b "$ROOT/.carry/fleet.tar.xz" | cut -f1) bytes in .carry/fleet.tar.xz"
