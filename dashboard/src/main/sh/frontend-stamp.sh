#!/usr/bin/env bash
# Lets a build reuse the dashboard's frontend when nothing it is made from changed. Vaadin's
# prepare-frontend and build-frontend scan every class on the dashboard's class path before they even decide that the
# bundle needs no rebuild: about a minute of a warm ./busload test on two cores, for a bundle already in target/.
# After every build-frontend this records the SHA-256 of the frontend's inputs (the dashboard's sources and
# resources, its npm pins, its pom and the parent pom); ./busload asks whether they still match and, if so, passes
# -Dvaadin.skip=true. Vaadin deletes its production token (flow-build-info.json) from target/classes when a build
# that ran build-frontend ends, so a skipped build's jar would start in development mode: the token is kept beside
# the stamp and put back.
#
# Usage: frontend-stamp.sh fresh DASHBOARD_DIR        exit 0 when target/ holds a frontend built from these inputs
#        frontend-stamp.sh after DASHBOARD_DIR SKIPPED  run by the build after build-frontend (SKIPPED: vaadin.skip)
set -euo pipefail
export LC_ALL=C

MODE="$1"; DIR="$2"
STAMP="$DIR/target/frontend-stamp"
TOKEN="META-INF/VAADIN/config/flow-build-info.json"

inputs_sha256() {
  (cd "$DIR" && find src/main pom.xml ../pom.xml package.json package-lock.json -type f \
      ! -path 'src/main/frontend/generated/*' ! -path 'src/main/frontend/index.html' ! -path 'src/main/bundles/*' \
      -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)
}

case "$MODE" in
  fresh)
    [[ -f "$STAMP/inputs.sha256" && -f "$STAMP/flow-build-info.json" \
      && -f "$DIR/target/classes/META-INF/VAADIN/webapp/index.html" ]] || exit 1
    [[ "$(cat "$STAMP/inputs.sha256")" == "$(inputs_sha256)" ]]
    ;;
  after)
    if [[ "${3:-false}" == true ]]; then
      if [[ -f "$STAMP/flow-build-info.json" ]]; then
        mkdir -p "$(dirname "$DIR/target/classes/$TOKEN")"
        cp "$STAMP/flow-build-info.json" "$DIR/target/classes/$TOKEN"
        echo "busload-dashboard: frontend unchanged since it was built: reused target/classes/META-INF/VAADIN"
      else
        echo "busload-dashboard: vaadin.skip=true, but no frontend was built here before; the jar has no production token" >&2
        exit 1
      fi
    else
      if [[ ! -f "$DIR/target/classes/$TOKEN" ]]; then
        echo "busload-dashboard: build-frontend left no $TOKEN in target/classes; not stamping" >&2
        rm -rf "$STAMP"
        exit 0
      fi
      mkdir -p "$STAMP"
      cp "$DIR/target/classes/$TOKEN" "$STAMP/flow-build-info.json"
      inputs_sha256 >"$STAMP/inputs.sha256"
    fi
    ;;
  *)
    echo "usage: frontend-stamp.sh fresh|after DASHBOARD_DIR [SKIPPED]" >&2
    exit 2
    ;;
esac
