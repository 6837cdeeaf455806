#!/usr/bin/env bash
# The folder a GPU machine without a registry needs for hack/bench/nccl-device-run.sh and
# nccl-ngpu-run.sh: what hack/gpu/carry.sh makes (the data plane's tracked sources, build
# packages under .deps/root), plus the benchmark scripts, nccl-tests 2.19.6's source tarball
# (BSD-3-Clause; it is built there against the machine's own NCCL) and the operator's pods for
# 2, 4 and 8 GPUs rendered here by hack/nccl-pods (the GPU machine may have no Go).
# Usage: hack/bench/nccl-carry.sh DEST   (e.g. .carry/nccl, named in the device tool's carry)
# Environment: NCCL_TESTS_TARBALL (../shared/reference/anchors/nccl-tests-2.19.6.tar.gz);
#   MAX (1G), ITERS (20), WARMUP (5): the pods' sweep, which nccl-ngpu-run.sh must run with
set -euo pipefail
DEST=$(realpath -m "${1:?usage: hack/bench/nccl-carry.sh DEST}")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TARBALL=${NCCL_TESTS_TARBALL:-$ROOT/../shared/reference/anchors/nccl-tests-2.19.6.tar.gz}
[[ -e $TARBALL ]] || { echo "nccl-carry: no nccl-tests tarball at $TARBALL" >&2; exit 1; }
"$ROOT/hack/gpu/carry.sh" "$DEST"
mkdir -p "$DEST/hack/bench"
cp "$ROOT"/hack/bench/{nccl-device-run.sh,nccl-ngpu-run.sh,nccl-options-run.sh,nccl-setup.sh,nccl_compare.py,nccl_compare_ngpu.py,nccl_options_compare.py} \
  "$DEST/hack/bench/"
for gpus in 2 4 8; do
  (cd "$ROOT" && go run ./hack/nccl-pods -out "$DEST/hack/bench/nccl-pods-$gpus" -gpus "$gpus" \
    -max-bytes "$(numfmt --from=iec "${MAX:-1G}")" -iterations "${ITERS:-20}" -warmup-iterations "${WARMUP:-5}")
done
cp "$TARBALL" "$DEST/nccl-tests-2.19.6.tar.gz"
echo "nccl-carry: $(du -sh "$DEST" | cut -f1) in $DEST"
