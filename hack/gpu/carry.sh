#!/usr/bin/env bash
# Makes the folder a GPU machine needs for hack/gpu/device-run.sh when it can install nothing
# (the workplace's device tool): the data plane's sources and scripts from this checkout, plus
# Debian bookworm packages unpacked with dpkg -x under .deps/root:
#   build:  nlohmann-json3-dev, libcli11-dev, libgtest-dev (header-only or static, relocatable CMake configs)
#   wire:   iproute2 (ip) and iputils-ping with their libraries; device-run.sh puts on
#           LD_LIBRARY_PATH only the ones the GPU machine lacks
# Usage: hack/gpu/carry.sh DEST     (e.g. .carry/gpu of the checkout the device tool sends)
# The .deb files are cached under ${SPIRAL_CACHE:-~/.cache/spiralbench}/gpu-carry-debs.
set -euo pipefail
DEST=${1:?usage: hack/gpu/carry.sh DEST}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${SPIRAL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/spiralbench}/gpu-carry-debs
PACKAGES=(nlohmann-json3-dev libcli11-dev libgtest-dev iproute2 iputils-ping libbpf1 libelf1 libmnl0 libbsd0 libcap2
          libmd0 zlib1g libidn2-0 libunistring2 libxtables12 libtirpc3)

mkdir -p "$CACHE"
missing=()
for p in "${PACKAGES[@]}"; do compgen -G "$CACHE/${p}_*.deb" >/dev/null || missing+=("$p"); done
if ((${#missing[@]})); then
  (cd "$CACHE" && apt-get download "${missing[@]}" >/dev/null)
fi

rm -rf "$DEST"
mkdir -p "$DEST/.deps/root"
# tracked files only (what a clone has), from this checkout's working tree
(cd "$ROOT" && git ls-files -z dataplane hack/netns-wire.sh hack/gpu hack/cuda-toolkit.sh | xargs -0 tar -cf -) |
  tar -C "$DEST" -xf -
for deb in "$CACHE"/*.deb; do dpkg -x "$deb" "$DEST/.deps/root"; done
echo "$(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet HEAD || echo +dirty)" >"$DEST/.carry-commit"
rm -rf "$DEST/.deps/root/usr/share/doc" "$DEST/.deps/root/usr/share/man" "$DEST/.deps/root/usr/share/locale"
echo "carry: $(du -sh "$DEST" | cut -f1) in $DEST ($(cat "$DEST/.carry-commit"))"
