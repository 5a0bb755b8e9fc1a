#!/usr/bin/env bash
# Packs the membership simulator for a lent machine without Java, whose 16 cores hold the hundred-odd
# member processes that the 2-core build machine never reached (docs/results/2026-11-24-scale/membership-run4.md):
#   .carry/sim-jre.tar.xz    a jlink runtime: jdeps' modules, plus java.se (the fleet's --add-modules java.se, which
#                            every member JVM gets too), jdk.management and jdk.net (Hazelcast's metrics and socket
#                            options), jdk.crypto.ec and jdk.zipfs;
#   .carry/simulator.tar.xz  simulator/simulator.jar and simulator/lib/, the jars re-zipped stored so that xz packs
#                            them (41 MB of jars would leave no room beside a 23 MB runtime under the 64 MiB carried).
# Left behind: the embedded PostgreSQL binaries and the JCuda natives (24 MB), which only `simulate fleet` needs.
# Run here, then carry both files and run deploy/gpu/run-membership.sh there.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
JDK=${JDK:-/usr/lib/jvm/temurin-25-jdk-amd64}
CARRY="$ROOT/.carry"
STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
mkdir -p "$CARRY"
git check-ignore -q .carry/simulator.tar.xz || { echo "pack-simulator: .carry is not git-ignored" >&2; exit 1; }
# A reactor build: the sibling modules come from this tree, nothing is installed into ~/.m2.
./busload mvn -q -pl simulator -am package -DskipTests -Dvaadin.skip=true >/dev/null
mkdir -p "$STAGE/simulator/lib"
cp simulator/target/simulator.jar "$STAGE/simulator/"
jars=()
for jar in simulator/target/lib/*.jar; do
  case "$(basename "$jar")" in
    embedded-postgres-binaries-*|jcuda-natives-*) ;;
    *) jars+=("$jar") ;;
  esac
done
python3 deploy/gpu/stored-jars.py "$STAGE/simulator/lib" "${jars[@]}"
modules=$("$JDK/bin/jdeps" --ignore-missing-deps --multi-release 25 --print-module-deps \
  --class-path "$STAGE/simulator/lib/*" "$STAGE/simulator/simulator.jar" 2>/dev/null)
modules="$modules,java.se,jdk.unsupported,jdk.management,jdk.net,jdk.crypto.ec,jdk.zipfs"
echo "pack-simulator: runtime modules: $modules"
"$JDK/bin/jlink" --add-modules "$modules" --strip-debug --no-header-files --no-man-pages --compress=zip-0 \
  --output "$STAGE/jre"
rm -f "$CARRY/sim-jre.tar.xz" "$CARRY/simulator.tar.xz"
# Both at once: xz -9 of the 100 MB runtime takes about a minute a core here.
tar -C "$STAGE" -cf - jre | xz -9 > "$CARRY/sim-jre.tar.xz" &
tar -C "$STAGE" -cf - simulator | xz -9 > "$CARRY/simulator.tar.xz"
wait $!
sim=$(stat -c %s "$CARRY/simulator.tar.xz")
jre=$(stat -c %s "$CARRY/sim-jre.tar.xz")
echo "pack-simulator: ${#jars[@]} jars; .carry/simulator.tar.xz $sim bytes, .carry/sim-jre.tar.xz $jre bytes," \
  "together $(( (sim + jre) / 1048576 )) MiB of the 64 MiB carried"
(( sim + jre < 56 * 1048576 )) || { echo "pack-simulator: too close to the 64 MiB carry limit" >&2; exit 1; }
