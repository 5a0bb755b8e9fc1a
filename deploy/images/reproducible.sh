#!/usr/bin/env bash
# Builds the base and the three images twice from the same commit and fails unless every digest is the same.
# The second build starts from nothing (base included) so nothing is reused. Minutes; needs what build.sh needs.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out="$root/deploy/target/images"
digests() { for f in base.tar coordinator.tar agent.tar dashboard.tar; do printf '%s %s\n' "$(sha256sum < "$out/$f" | cut -d' ' -f1)" "$f"; done; }
rm -rf "$out"; "$root/deploy/images/build.sh" "$@" >/dev/null
first=$(digests; cat "$out"/*.digest)
rm -rf "$out"; "$root/deploy/images/build.sh" "$@" >/dev/null
second=$(digests; cat "$out"/*.digest)
printf '%s\n' "$first"
if [[ "$first" != "$second" ]]; then
  printf 'second build differs:\n%s\n' "$second" >&2
  exit 1
fi
echo "same commit, same digests: 4 tars and 3 image digests equal in two builds"
