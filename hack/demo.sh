#!/usr/bin/env bash
# The main job: bring the whole stack up on this machine (local cluster, S3 server, images,
# the operator via Helm), apply the TCP sweep sample (DAQIRI's TCP table: 1000 B / 8000 B /
# 1 MiB x 1, 2, 4 pairs), follow it, print the results table and the bucket copy, and write
# the run's HTML report with its plots (DEMO_REPORT_DIR, default build/demo-report). It ends
# with how long each phase took, and exits non-zero when the bench did not complete or its
# table is empty.
#
#   DEMO_SECONDS   measured seconds per repeat (default 3; the sample's own is 30)
#   DEMO_REPEATS   repeats per cell (default 3)
#   DEMO_KEEP=0    tear the stack down at the end (default: keep it to look around)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SECONDS_PER_CELL=${DEMO_SECONDS:-3}
REPEATS=${DEMO_REPEATS:-3}
export STACK_PHASE_LOG
STACK_PHASE_LOG=$(mktemp)
phase_start=$SECONDS
# phase NAME: the time since the last mark belongs to NAME (stack.sh marks its own phases).
phase() { echo "$1 $((SECONDS - phase_start))" >>"$STACK_PHASE_LOG"; phase_start=$SECONDS; }
print_phases() {
  echo "== time per phase (s):"
  awk '{t[$1] += $2; if (!($1 in o)) { o[$1] = ++n; k[n] = $1 } } END {
         for (i = 1; i <= n; i++) { printf "  %-13s %5d\n", k[i], t[k[i]]; s += t[k[i]] } printf "  %-13s %5d\n", "total", s }' \
    "$STACK_PHASE_LOG"
  rm -f "$STACK_PHASE_LOG"
}
trap print_phases EXIT

# Apt packages first (network-bound), then the builds: the data plane, Helm, sbctl and the
# cluster's own binaries, each cached so a warm machine skips them.
mkdir -p "$ROOT/build"
"$ROOT/hack/deps-dataplane.sh"
"$ROOT/hack/cluster-deps.sh"
phase dependencies
# The rootfs of the data plane's image is a download: fetch it while the compilers use the cores.
"$ROOT/hack/build-images.sh" rootfs >"$ROOT/build/demo-rootfs.log" 2>&1 &
rootfs_pid=$!
make -C "$ROOT" --no-print-directory dataplane helm sbctl DATAPLANE_TARGETS=spiral-dataplane
"$ROOT/hack/k8s-assets.sh" cluster >/dev/null
"$ROOT/hack/s3-server.sh" build
wait "$rootfs_pid" || { cat "$ROOT/build/demo-rootfs.log" >&2; exit 1; }
phase builds
env_file=$("$ROOT/hack/stack.sh" up | tail -n1)
phase_start=$SECONDS
# shellcheck disable=SC1090
source "$env_file"
if [[ ${DEMO_KEEP:-1} == 0 ]]; then trap '"$ROOT/hack/stack.sh" down >/dev/null; print_phases' EXIT; fi

echo "== the operator runs:"
kubectl -n "$SPIRALBENCH_NAMESPACE" get deployment,pods -o wide
echo "== applying config/samples/tcp-sweep.yaml (run: ${SECONDS_PER_CELL} s x ${REPEATS} repeats per cell)"
kubectl delete spiralbench tcp-sweep --ignore-not-found --wait=true >/dev/null
# The sample pins DGX Spark's isolated cores (8, 16-19); a machine without them would have every
# cell refused (rightly), so the demo drops the sample's topology block unless DEMO_CORES=1.
sed -E "s/run: \{seconds: [0-9]+, warmupSeconds: ([0-9]+), repeats: [0-9]+\}/run: {seconds: ${SECONDS_PER_CELL}, warmupSeconds: \1, repeats: ${REPEATS}}/" \
  "$ROOT/config/samples/tcp-sweep.yaml" |
  if [[ ${DEMO_CORES:-0} == 1 ]]; then cat; else
    echo "   (without the sample's core pinning: this machine has $(nproc) cores)" >&2
    sed -E '/^  topology:/,/^  run:/{/^  run:/!d}'
  fi | kubectl apply -f -
kubectl get spiralbench tcp-sweep
rc=0
"$ROOT/bin/sbctl" watch tcp-sweep || rc=$?
echo
kubectl get spiralbench tcp-sweep
phase bench
completed=$(kubectl get spiralbench tcp-sweep -o jsonpath='{.status.conditions[?(@.type=="Completed")].status}')
cells=$(kubectl get spiralbench tcp-sweep -o jsonpath='{.status.cells.succeeded}')
if [[ $completed != True || ${cells:-0} == 0 ]]; then
  echo "demo: the bench did not complete (Completed=${completed:-unset}) or measured no valid cell (${cells:-0})" >&2
  kubectl describe spiralbench tcp-sweep | tail -n 30 >&2
  exit 1
fi
echo
echo "== the bucket copy ($S3_ENDPOINT, bucket $S3_BUCKET):"
kubectl get spiralbench tcp-sweep -o jsonpath='{range .status.artifacts.uris[*]}{@}{"\n"}{end}'
prefix=$(kubectl get spiralbench tcp-sweep -o jsonpath='{.status.artifacts.uris[0]}' | sed -E 's|s3://[^/]+/||; s|/[^/]+$||')
if [[ -n $prefix ]]; then
  echo "-- runs.csv (DAQIRI's columns first):"
  curl -fsS --aws-sigv4 "aws:amz:us-east-1:s3" --user "$S3_ACCESS_KEY:$S3_SECRET_KEY" \
    -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "$S3_ENDPOINT/$S3_BUCKET/$prefix/runs.csv" | cut -d, -f1-16 | column -s, -t | head -30
fi
report_dir=${DEMO_REPORT_DIR:-$ROOT/build/demo-report}
echo "== the HTML report (also in the bucket beside runs.csv as report.html and plots/):"
"$ROOT/bin/sbctl" report tcp-sweep -o "$report_dir"
phase report
((rc == 3)) && echo "(the sample's acceptance rule asks for DGX Spark line rate, 90 Gb/s; this machine's pod network is far slower, so Passed is False)"
echo
echo "Report: file://$report_dir/report.html"
echo "The stack is still up: export KUBECONFIG=$KUBECONFIG; kubectl get sb. Stop it with: hack/stack.sh down"
