#!/usr/bin/env bash
# ./busload images [MAVEN ARGS...]: the coordinator, agent and dashboard images as OCI tars in deploy/target/images
# (NAME.tar, NAME.digest), built by Jib (profile images) with no container daemon and no registry, on the base that
# base.sh makes from Debian's packages (made once; delete deploy/target/images/base.tar to make it again).
# The agent's image holds its jars, the kernels' fatbin (in busload-kernels) and the JCuda natives; the driver comes
# from the host through the NVIDIA container toolkit. Labels: org.opencontainers.image.{version,revision,source}.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out="$root/deploy/target/images"
mkdir -p "$out"
if [[ ! -f "$out/base.tar" ]]; then
  "$root/deploy/images/base.sh" "$out/base.tar.part" && mv "$out/base.tar.part" "$out/base.tar"
fi
commit=$(git -C "$root" rev-parse HEAD)
# A tree with changes is not the commit: the label says so.
[[ -z "$(git -C "$root" status --porcelain --untracked-files=no)" ]] || commit="$commit-dirty"
source=$(git -C "$root" config --get remote.origin.url || echo "file://$root")
# The dashboard's frontend is built only when its inputs changed, as ./busload build does.
fe=()
if bash "$root/dashboard/src/main/sh/frontend-stamp.sh" fresh "$root/dashboard" 2>/dev/null; then fe=(-Dvaadin.skip=true); fi
"$root/busload" mvn -q -Pimages -pl coordinator,agent,dashboard -am package -DskipTests \
  -Dbusload.commit="$commit" -Dbusload.source="$source" "${fe[@]}" "$@"
for name in coordinator agent dashboard; do
  printf '%s %s %s\n' "$(cat "$out/$name.digest")" "$name" "$out/$name.tar"
done
