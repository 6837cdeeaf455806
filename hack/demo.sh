#!/usr/bin/env bash
# The main job: bring the whole stack up on this machine (local cluster, S3 server, images,
# the operator via Helm), apply the TCP sweep sample (DAQIRI's TCP table: 1000 B / 8000 B /
# 1 MiB x 1, 2, 4 pairs), follow it, print the results table and the bucket copy, and write
# the run's HTML report with its plots (DEMO_REPORT_DIR, default build/demo-report). It ends
# with how long each phase took, and exits non-zero when the bench did not complete or its
# table is empty. Each phase says what it does, whether it is one-time and how far the run is;
# the details go to build/logs/demo.log, and a failing phase prints its tail there.
#
#   DEMO_SECONDS   measured seconds per repeat (default 3; the sample's own is 30)
#   DEMO_REPEATS   repeats per cell (default 3)
#   DEMO_KEEP=0    tear the stack down at the end (default: keep it to look around)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SECONDS_PER_CELL=${DEMO_SECONDS:-3}
REPEATS=${DEMO_REPEATS:-3}
HELM_VERSION=${HELM_VERSION:-$(sed -n 's/^HELM_VERSION *?= *//p' "$ROOT/mk/cluster.mk")}
source "$ROOT/hack/lib/phase.sh"
# 12 phases: 7 here, 3 in hack/stack.sh up, then the bench and its report. Each prints its line;
# the details go to build/logs/demo.log, and a failing phase prints its tail.
phase_init demo 12
trap 'phase_exit $?' EXIT

# Apt packages first (network-bound), then the builds: the data plane, Helm, sbctl and the
# cluster's own binaries, each cached so a warm machine skips them.
mkdir -p "$ROOT/build/logs"
deps() { "$ROOT/hack/deps-dataplane.sh" && "$ROOT/hack/cluster-deps.sh"; }
phase_run "Debian packages: compilers, DPDK, rdma-core, containerd, debootstrap" "one-time: installed with apt" deps
# The rootfs of the data plane's image is a download: fetch it while the compilers use the cores.
# Nested: its own phase lines go to its log, not into the count.
rootfs_log=$ROOT/build/logs/demo-rootfs.log
PHASE_NESTED=1 "$ROOT/hack/build-images.sh" rootfs >"$rootfs_log" 2>&1 &
rootfs_pid=$!
echo "    (meanwhile, in the background: the data plane image's Debian rootfs; log $rootfs_log)" >&2
phase_run "the data plane, spiral-dataplane (C++, CMake + Ninja)" once \
  make -C "$ROOT" --no-print-directory dataplane DATAPLANE_TARGETS=spiral-dataplane
phase_run "Helm $HELM_VERSION, from the Go module proxy" once make -C "$ROOT" --no-print-directory helm
phase_run "sbctl, the command-line tool (Go)" "every run; Go's build cache makes a rerun quick" \
  make -C "$ROOT" --no-print-directory sbctl
phase_run "Kubernetes v${K8S_VERSION:-1.35.4} (apiserver, scheduler, controller-manager, kubelet, kubectl) and etcd" once \
  "$ROOT/hack/k8s-assets.sh" cluster
phase_run "versitygw, the S3 server" once "$ROOT/hack/s3-server.sh" build
phase_begin "the data plane image's Debian rootfs (debootstrap, started in the background)" once
rc=0
wait "$rootfs_pid" || rc=$?
cat "$rootfs_log" >>"$PHASE_LOG"
phase_end "$rc"
env_file=$("$ROOT/hack/stack.sh" up | tail -n1)
# shellcheck disable=SC1090
source "$env_file"
if [[ ${DEMO_KEEP:-1} == 0 ]]; then trap 'rc=$?; "$ROOT/hack/stack.sh" down >/dev/null; phase_exit $rc' EXIT; fi

phase_begin "the TCP sweep sample, ${REPEATS} repeats of ${SECONDS_PER_CELL} s per cell" every
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
completed=$(kubectl get spiralbench tcp-sweep -o jsonpath='{.status.conditions[?(@.type=="Completed")].status}')
cells=$(kubectl get spiralbench tcp-sweep -o jsonpath='{.status.cells.succeeded}')
if [[ $completed != True || ${cells:-0} == 0 ]]; then
  echo "demo: the bench did not complete (Completed=${completed:-unset}) or measured no valid cell (${cells:-0})" >&2
  kubectl describe spiralbench tcp-sweep | tail -n 30 >&2
  phase_end 1
fi
phase_end 0
phase_begin "the bucket copy and the HTML report" every
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
phase_end 0
((rc == 3)) && echo "(the sample's acceptance rule asks for DGX Spark line rate, 90 Gb/s; this machine's pod network is far slower, so Passed is False)"
echo
echo "Report: file://$report_dir/report.html"
echo "The stack is still up: export KUBECONFIG=$KUBECONFIG; kubectl get sb. Stop it with: hack/stack.sh down"
