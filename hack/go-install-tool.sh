#!/usr/bin/env bash
# go-install-tool.sh TARGET PACKAGE VERSION [LDFLAGS]: builds PACKAGE@VERSION into TARGET (a
# versioned file name in bin/), so a version bump builds anew and an existing file is reused.
# The build is kept outside the clone too (~/.cache/spiralbench/tools/<name>), so a fresh clone
# on a warm machine copies it instead of building it again.
set -euo pipefail
target=$1 pkg=$2 version=$3 ldflags=${4:-}
[[ -x $target ]] && exit 0
cache=${XDG_CACHE_HOME:-$HOME/.cache}/spiralbench/tools
cached=$cache/$(basename "$target")
mkdir -p "$(dirname "$target")"
if [[ ! -x $cached ]]; then
  # one line here; the module downloads and compiler output go to build/logs/ (hack/lib/phase.sh)
  source "$(dirname "$0")/lib/phase.sh"
  tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
  phase_run "build $pkg@$version" once \
    env GOBIN="$tmp" GOTOOLCHAIN=local CGO_ENABLED=0 go install -trimpath ${ldflags:+-ldflags "$ldflags"} "$pkg@$version"
  mkdir -p "$cache"
  mv "$tmp/$(basename "${pkg%/v[0-9]*}")" "$cached.part" && mv "$cached.part" "$cached"
fi
cp "$cached" "$target"
