#!/usr/bin/env bash
# go-install-tool.sh TARGET PACKAGE VERSION: builds PACKAGE@VERSION into TARGET (a versioned
# file name in bin/), so a version bump builds anew and an existing file is reused.
set -euo pipefail
target=$1 pkg=$2 version=$3
[[ -x $target ]] && exit 0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
echo "building $pkg@$version" >&2
GOBIN=$tmp GOTOOLCHAIN=local CGO_ENABLED=0 go install -trimpath "$pkg@$version"
mv "$tmp/$(basename "${pkg%/v[0-9]*}")" "$target"
