#!/usr/bin/env bash
# Builds containerd 2 and its runc shim from the Go module proxy into a versioned cache outside
# the clone. Only for the local cluster's opt-in runtime (CLUSTER_RUNTIME=containerd2 in
# hack/local-cluster.sh): Debian's containerd 1.6 sends the kubelet no container events, so a
# kubelet with Evented PLEG needs 1.7 or later. Static (no cgo): the snapshotters needing cgo
# (btrfs, devmapper, zfs) are left out; the cluster uses overlayfs.
#
#   hack/containerd-assets.sh   -> prints the directory holding containerd and the shim
set -euo pipefail
CONTAINERD_VERSION=${CONTAINERD_VERSION:-2.2.9}
CACHE=${SPIRALBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/spiralbench}
BIN="$CACHE/containerd-$CONTAINERD_VERSION"
export CGO_ENABLED=0 GOFLAGS=-buildvcs=false GOTOOLCHAIN=local GOBIN="$BIN"
if ! "$BIN/containerd" --version 2>/dev/null | grep -q " $CONTAINERD_VERSION\b" || [[ ! -x $BIN/containerd-shim-runc-v2 ]]; then
  mkdir -p "$BIN"
  echo "building containerd v$CONTAINERD_VERSION into $BIN (a few minutes, once)" >&2
  go install -tags "no_btrfs no_devmapper no_zfs" \
    "github.com/containerd/containerd/v2/cmd/containerd@v$CONTAINERD_VERSION" \
    "github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2@v$CONTAINERD_VERSION" >&2
fi
echo "$BIN"
