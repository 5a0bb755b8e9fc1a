#!/usr/bin/env bash
# Lets a build reuse the dashboard's frontend when nothing it is made from changed. Vaadin's
# prepare-frontend and build-frontend scan every class on the dashboard's class path before they even decide that the
# bundle needs no rebuild: about a minute of a warm ./busload test on two cores, for a bundle already in target/.
# After every build-frontend this records the SHA-256 of the frontend's inputs (the dashboard's sources and
# resources, its npm pins, its pom and the parent pom); ./busload asks whether they still match and, if so, passes
# -Dvaadin.skip=true. A build that skipped them still starts in production mode: application.properties sets
# vaadin.productionMode, and the bundle stays in target/classes/META-INF/VAADIN/webapp.
#
# Usage: frontend-stamp.sh fresh DASHBOARD_DIR        exit 0 when target/ holds a frontend built from these inputs
#        frontend-stamp.sh after DASHBOARD_DIR SKIPPED  run by the build after build-frontend (SKIPPED: vaadin.skip)
set -euo pipefail
export LC_ALL=C

MODE="$1"; DIR="$2"
STAMP="$DIR/target/frontend-stamp"
BUNDLE="$DIR/target/classes/META-INF/VAADIN/webapp/index.html"

inputs_sha256() {
  (cd "$DIR" && find src/main pom.xml ../pom.xml package.json package-lock.json -type f \
      ! -path 'src/main/frontend/generated/*' ! -path 'src/main/frontend/index.html' ! -path 'src/main/bundles/*' \
      -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)
}

case "$MODE" in
  fresh)
    [[ -f "$STAMP/inputs.sha256" && -f "$BUNDLE" ]] || exit 1
    [[ "$(cat "$STAMP/inputs.sha256")" == "$(inputs_sha256)" ]]
    ;;
  after)
    if [[ "${3:-false}" == true ]]; then
      if [[ -f "$BUNDLE" ]]; then
        echo "busload-dashboard: frontend unchanged since it was built: reused target/classes/META-INF/VAADIN"
      else
        echo "busload-dashboard: vaadin.skip=true, but no frontend was built here before; the jar has no bundle" >&2
        exit 1
      fi
    else
      if [[ ! -f "$BUNDLE" ]]; then
        echo "busload-dashboard: build-frontend left no bundle in target/classes; not stamping" >&2
        rm -rf "$STAMP"
        exit 0
      fi
      mkdir -p "$STAMP"
      inputs_sha256 >"$STAMP/inputs.sha256"
    fi
    ;;
  *)
    echo "usage: frontend-stamp.sh fresh|after DASHBOARD_DIR [SKIPPED]" >&2
    exit 2
    ;;
esac
