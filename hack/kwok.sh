#!/usr/bin/env bash
# KWOK (sigs.k8s.io/kwok), the fake kubelet of the fleet scale benchmark, built from the Go
# module proxy into the cache once. Prints the binary's path.
#
#   hack/kwok.sh            KWOK_VERSION (v0.8.0)
set -euo pipefail
: "${KWOK_VERSION:=v0.8.0}"
CACHE=${SPIRALBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/spiralbench}
BIN="$CACHE/kwok-$KWOK_VERSION/kwok"
if [[ ! -x $BIN ]]; then
  # one line here; the module downloads and compiler output go to build/logs/ (hack/lib/phase.sh)
  source "$(dirname "$0")/lib/phase.sh"
  tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
  phase_run "build kwok $KWOK_VERSION into ${BIN%/*}" once \
    env GOBIN="$tmp" GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-buildvcs=false \
    go install -trimpath -ldflags "-s -w" "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION"
  mkdir -p "${BIN%/*}" && mv "$tmp/kwok" "$BIN"
fi
echo "$BIN"
