#!/usr/bin/env bash
# The folder a GPU machine without a registry needs for hack/bench/nvbandwidth-side-run.sh: what
# hack/gpu/carry.sh makes (sources, build packages), nvbandwidth 0.8's source tarball, and
# Debian bookworm's Boost program_options packages (.deb, unpacked there only when the machine
# has no Boost: nvbandwidth links it statically), plus the run's scripts.
# Usage: hack/bench/nvbandwidth-carry.sh DEST   (e.g. .carry/gpu, named in the device tool's carry)
# Environment: NVBANDWIDTH_TARBALL (../shared/reference/anchors/nvbandwidth-0.8.tar.gz).
set -euo pipefail
DEST=$(realpath -m "${1:?usage: hack/bench/nvbandwidth-carry.sh DEST}")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TARBALL=${NVBANDWIDTH_TARBALL:-$ROOT/../shared/reference/anchors/nvbandwidth-0.8.tar.gz}
[[ -e $TARBALL ]] || TARBALL=/work/shared/reference/anchors/nvbandwidth-0.8.tar.gz
[[ -e $TARBALL ]] || { echo "nvbandwidth-carry: no nvbandwidth tarball at $TARBALL" >&2; exit 1; }
CACHE=${SPIRAL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/spiralbench}/nvbw-debs
BOOST=(libboost1.74-dev libboost-program-options1.74-dev)
mkdir -p "$CACHE"
for p in "${BOOST[@]}"; do
  compgen -G "$CACHE/${p}_*.deb" >/dev/null || (cd "$CACHE" && apt-get download "$p" >/dev/null)
done
"$ROOT/hack/gpu/carry.sh" "$DEST"
mkdir -p "$DEST/hack/bench" "$DEST/.deps/boost-debs"
cp "$ROOT"/hack/bench/{nvbandwidth-side-run.sh,nvbandwidth_compare.py} "$DEST/hack/bench/"
cp "$TARBALL" "$DEST/nvbandwidth-0.8.tar.gz"
for p in "${BOOST[@]}"; do cp "$CACHE/${p}"_*.deb "$DEST/.deps/boost-debs/"; done
echo "nvbandwidth-carry: $(du -sh "$DEST" | cut -f1) in $DEST"
