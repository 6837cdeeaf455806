#!/usr/bin/env bash
# The folder a GPU machine without a registry needs for hack/bench/gpucopy-peer-run.sh: what
# hack/bench/nccl-carry.sh makes (sources, build packages, nccl-device-run.sh whose build step it
# reuses, nccl-tests' tarball) plus the peer run's script and its tables.
# Usage: hack/bench/gpucopy-carry.sh DEST   (e.g. .carry/gpucopy, named in the device tool's carry)
set -euo pipefail
DEST=${1:?usage: hack/bench/gpucopy-carry.sh DEST}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
"$ROOT/hack/bench/nccl-carry.sh" "$DEST"
cp "$ROOT/hack/bench/gpucopy-peer-run.sh" "$ROOT/hack/bench/gpucopy_peer_compare.py" "$DEST/hack/bench/"
echo "gpucopy-carry: $(du -sh "$DEST" | cut -f1) in $DEST"
