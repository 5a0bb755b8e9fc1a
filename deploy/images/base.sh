#!/usr/bin/env bash
# The images' base, built from Debian's packages and this machine's JDK, with no registry: a minimal Debian
# bookworm (mmdebstrap, variant minbase) with a jlink'd Java runtime in /opt/java and the user busload (10001),
# written as a Docker-archive tar that Jib reads as `tar://` base. Every timestamp is SOURCE_DATE_EPOCH (the
# commit's time) and mmdebstrap's output is reproducible for a given package set, so the same commit built against
# the same Debian mirror state gives the same bytes. A mirror that moved on gives newer packages, hence another
# digest: pin a mirror snapshot in MIRROR where that matters.
# Usage: base.sh OUT.tar   (needs root for mmdebstrap's root mode, mmdebstrap, python3, a JDK 25 in JAVA_HOME)
set -euo pipefail
out=$(realpath -m "$1")
here=$(cd "$(dirname "$0")" && pwd)
: "${JAVA_HOME:?JAVA_HOME must name a JDK 25}"
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$here" log -1 --format=%ct)}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

# The modules the three programs use (java.se plus the JDK's management and Unsafe access, as the units' flags
# open them); no jdk.compiler, no debug symbols.
"$JAVA_HOME/bin/jlink" --add-modules java.se,jdk.management,jdk.unsupported,jdk.crypto.ec,jdk.zipfs,jdk.naming.dns \
  --strip-debug --no-header-files --no-man-pages --output "$work/java"

# The user is made inside the rootfs by a hook, so /etc/passwd is Debian's plus one line.
mmdebstrap --variant=minbase --mode=root --format=tar --include=ca-certificates \
  --customize-hook='chroot "$1" groupadd --system --gid 10001 busload' \
  --customize-hook='chroot "$1" useradd --system --uid 10001 --gid 10001 --home-dir /var/lib/busload --create-home busload' \
  --customize-hook='mkdir -p "$1/opt" && cp -a '"$work/java"' "$1/opt/java"' \
  --customize-hook='rm -rf "$1"/var/cache/apt/* "$1"/var/lib/apt/lists/* "$1"/var/log/* "$1"/etc/machine-id' \
  bookworm "$work/rootfs.tar" ${MIRROR:-}

python3 "$here/docker_archive.py" "$work/rootfs.tar" "$out" busload/base:bookworm
