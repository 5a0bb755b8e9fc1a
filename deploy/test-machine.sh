#!/usr/bin/env bash
# What the tests need on this machine, for ./busload test [--full]: Debian packages installed where missing, and for
# --full (as root) the images of ./busload images built first, so that no Maven runs inside another.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
full=0; [[ "${1:-}" == --full ]] && full=1
sudo=""; [[ $(id -u) -eq 0 ]] || sudo=sudo
need=()
# Browser tests use Debian's Chromium (Playwright may not download its own); fault tests need root and iproute2.
# Where they cannot run, those fail naming why, or are skipped and listed with BUSLOAD_SKIP_NETNS=1.
[[ -x /usr/bin/chromium ]] || need+=(chromium chromium-driver)
# The coordinator's /metrics is read back by Prometheus's own Python client parser (MetricsTest).
[[ -f /usr/lib/python3/dist-packages/prometheus_client/parser.py ]] || need+=(python3-prometheus-client)
if [[ $full -eq 1 && -z "$sudo" ]]; then
  command -v ip >/dev/null || need+=(iproute2)
  # The container tests load the images of ./busload images into Debian's podman; runc is named because podman would
  # otherwise bring crun, which this kind of machine refuses. They set podman's options themselves (their own
  # containers.conf), so nothing in /etc/containers is changed.
  for tool in podman:podman runc:runc mmdebstrap:mmdebstrap /usr/lib/podman/netavark:netavark \
    /usr/lib/podman/aardvark-dns:aardvark-dns; do
    command -v "${tool%%:*}" >/dev/null || need+=("${tool##*:}")
  done
fi
if [[ ${#need[@]} -gt 0 ]]; then
  printf 'busload: installing Debian'"'"'s %s for the tests\n' "${need[*]}" >&2
  $sudo apt-get update -qq >&2 && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >&2
fi
if [[ $full -eq 1 && -z "$sudo" ]]; then
  bash "$ROOT/deploy/images/build.sh" >&2
fi
