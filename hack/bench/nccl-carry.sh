#!/usr/bin/env bash
# The folder a GPU machine without a registry needs for hack/bench/nccl-device-run.sh: what
# hack/gpu/carry.sh makes (the data plane's tracked sources, build packages under .deps/root),
# plus the benchmark scripts and nccl-tests 2.19.6's source tarball (BSD-3-Clause; it is built
# there against the machine's own NCCL).
# Usage: hack/bench/nccl-carry.sh DEST   (e.g. .carry/nccl, named in the device tool's carry)
# Environment: NCCL_TESTS_TARBALL (../shared/reference/anchors/nccl-tests-2.19.6.tar.gz)
set -euo pipefail
DEST=${1:?usage: hack/bench/nccl-carry.sh DEST}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TARBALL=${NCCL_TESTS_TARBALL:-$ROOT/../shared/reference/anchors/nccl-tests-2.19.6.tar.gz}
[[ -e $TARBALL ]] || { echo "nccl-carry: no nccl-tests tarball at $TARBALL" >&2; exit 1; }
"$ROOT/hack/gpu/carry.sh" "$DEST"
mkdir -p "$DEST/hack/bench"
cp "$ROOT/hack/bench/nccl-device-run.sh" "$ROOT/hack/bench/nccl_compare.py" "$DEST/hack/bench/"
cp "$TARBALL" "$DEST/nccl-tests-2.19.6.tar.gz"
echo "nccl-carry: $(du -sh "$DEST" | cut -f1) in $DEST"
