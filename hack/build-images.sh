#!/usr/bin/env bash
# Builds the project's container images as tarballs under build/images/, without a Docker
# engine, with the go-containerregistry tool in hack/images:
#
#   pause      docker.io/spiralbench/pause:3.10     the pod sandbox (containerd's sandbox_image)
#   manager    docker.io/spiralbench/manager:dev    static bin/manager on a distroless-style nonroot base
#   dataplane  docker.io/spiralbench/dataplane:dev  Debian bookworm rootfs + build/dataplane/spiral-dataplane
#
#   hack/build-images.sh [pause|manager|dataplane|rootfs|all]...
#
# The data plane image is built without the binary (and says so) when it has not been built yet.
# DATAPLANE_PACKAGES: apt packages in its rootfs (the binary links libibverbs for transport roce;
# ibverbs-providers holds the NIC drivers' user-space parts); DATAPLANE_ADD: more "SRC:DST" host paths.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${IMAGES_DIR:-$ROOT/build/images}
DATAPLANE_BINARY=${DATAPLANE_BINARY:-$ROOT/build/dataplane/spiral-dataplane}
# Runtime libraries of the data plane: DPDK's EAL loads every PMD it finds in its plugin folder
# (ring, memif, af_packet, af_xdp for tests; mlx5 for ConnectX), and ibverbs loads its providers
# (rxe, mlx5) the same way.
DATAPLANE_PACKAGES=${DATAPLANE_PACKAGES:-iproute2 libstdc++6 procps librte-mempool-ring23 librte-net-ring23 \
librte-net-memif23 librte-net-af-packet23 librte-net-af-xdp23 librte-net-mlx5-23 libibverbs1 librdmacm1 ibverbs-providers}
DATAPLANE_ADD=${DATAPLANE_ADD:-}
export GOTOOLCHAIN=local GOFLAGS=-buildvcs=false CGO_ENABLED=0
mkdir -p "$OUT" "$ROOT/bin"
tool="$ROOT/bin/spiralbench-images"
go build -C "$ROOT/hack/images" -trimpath -o "$tool" .
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

build_pause() {
  go build -C "$ROOT/hack/images" -trimpath -ldflags "-s -w" -o "$tmp/pause" ./pause
  "$tool" -tag spiralbench/pause:3.10 -o "$OUT/pause.tar" -add "$tmp/pause:/pause" -entrypoint /pause
}

build_manager() {
  go build -C "$ROOT" -trimpath -ldflags "-s -w" -o "$ROOT/bin/manager" ./cmd/manager
  "$tool" -tag spiralbench/manager:dev -o "$OUT/manager.tar" -nonroot -add "$ROOT/bin/manager:/manager" \
    -entrypoint /manager -user 65532:65532 -label org.opencontainers.image.title=spiralbench-manager
}

build_dataplane() {
  local rootfs args=()
  # shellcheck disable=SC2086 # a word list by design
  rootfs=$("$ROOT/hack/debian-rootfs.sh" $DATAPLANE_PACKAGES)
  if [[ -x $DATAPLANE_BINARY ]]; then
    args+=(-add "$DATAPLANE_BINARY:/usr/local/bin/spiral-dataplane" -entrypoint /usr/local/bin/spiral-dataplane)
  else
    echo "WARNING: $DATAPLANE_BINARY is missing (make dataplane): the data plane image has no binary" >&2
    args+=(-cmd /bin/bash)
  fi
  for a in $DATAPLANE_ADD; do args+=(-add "$a"); done
  "$tool" -tag spiralbench/dataplane:dev -o "$OUT/dataplane.tar" -rootfs "$rootfs" "${args[@]}" \
    -label org.opencontainers.image.title=spiralbench-dataplane
}

targets=("$@")
((${#targets[@]})) || targets=(all)
for t in "${targets[@]}"; do
  case $t in
    all) build_pause; build_manager; build_dataplane ;;
    pause | manager | dataplane) "build_$t" ;;
    # shellcheck disable=SC2086 # a word list by design
    rootfs) "$ROOT/hack/debian-rootfs.sh" $DATAPLANE_PACKAGES >/dev/null ;; # the data plane's, ahead of time
    *) echo "usage: $0 [pause|manager|dataplane|rootfs|all]..." >&2; exit 2 ;;
  esac
done
