#!/usr/bin/env bash
# Fleet scale benchmark (not a test): a SpiralBenchFleet over NODES simulated GPU nodes with
# maxParallel MAX_PARALLEL, on a real kube-apiserver, etcd and kube-scheduler; the kubelet is
# FAKE (KWOK v0.8.0, test/fleetscale/kwok-stages.yaml: pods go Ready and end with data plane
# summaries). The manager (bin/manager) is killed with SIGKILL at half the verdicts and
# restarted. Prints wall time, reconciles and API requests per node, manager CPU and peak RSS,
# the largest object (fleet, bench, node result), and the lost/repeated/overlap counts (all
# must be 0).
#
#   hack/bench/fleet-scale.sh            NODES=1000 MAX_PARALLEL=50 RESTART_AT=0.5
#   NODES=10000 MAX_PARALLEL=500 SUITE=Quick TIMEOUT=3h hack/bench/fleet-scale.sh
#
# TIMEOUT stops a run that has not finished and still measures it, per node decided by then;
# RESTART_AFTER (a duration) kills the manager then if half the verdicts have not come first.
#
# CPU_PROFILE=FILE writes a CPU profile of the restarted manager's first PROFILE_SECONDS (30)
# there: `go tool pprof -top build/fleet-scale/manager FILE` says where its time goes.
# HEAP_PROFILE=FILE writes the manager's live heap there when the run ends (what its cache holds).
# DUMP_OBJECTS=DIR writes the round's benches, attempt results, node results and nodes there as
# JSON lists when the run ends: `go run ./hack/cachesizes DIR` says what each costs the cache.
#
# MANAGER_GOMEMLIMIT=460MiB runs the manager with that soft memory limit, which it sets itself
# in a cluster at 90 % of its container's memory limit (here it runs as a plain process).
# MANAGER_GODEBUG=gctrace=1 has the manager write a line per collection to its log
# (manager-1.log, manager-2.log in the logs directory): how often it collects and what it marks;
# hack/bench/gctrace_summary.py sums them up.
# SPIRALBENCH_BENCH_EVENTS=warnings runs the manager with --bench-events=warnings (no Normal
# events of benches; docs/fleet.md, at scale).
# SUITE=Quick benches each node with the built-in Quick suite (copy, nccl, tcp: three benches
# per node) instead of one TCP bench. The table marks each figure against the 10,000-node
# targets and gives every process's CPU seconds, which says what limits the wall time.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
NODES=${NODES:-1000} MAX_PARALLEL=${MAX_PARALLEL:-50} RESTART_AT=${RESTART_AT:-0.5} SUITE=${SUITE:-} TIMEOUT=${TIMEOUT:-30m} RESTART_AFTER=${RESTART_AFTER:-0}
cd "$ROOT"
# A loaded machine starts the apiserver slowly (envtest waits 20 s by default).
export KUBEBUILDER_CONTROLPLANE_START_TIMEOUT=${KUBEBUILDER_CONTROLPLANE_START_TIMEOUT:-180s}
assets=$(hack/k8s-assets.sh cluster | tail -n1) # kube-apiserver, etcd, kube-scheduler
kwok=$(hack/kwok.sh | tail -n1)
mkdir -p build/fleet-scale
go build -o build/fleet-scale/manager ./cmd/manager
go build -o build/fleet-scale/fleetscale ./hack/fleetscale
work=$(mktemp -d /tmp/fleet-scale.XXXXXX)
echo "machine: $(nproc) CPUs, $(uname -r); load average $(cut -d' ' -f1-3 /proc/loadavg); logs in $work" >&2
build/fleet-scale/fleetscale -nodes "$NODES" -max-parallel "$MAX_PARALLEL" -restart-at "$RESTART_AT" \
  -kwok "$kwok" -scheduler "$assets/kube-scheduler" -manager build/fleet-scale/manager \
  -assets "$assets" -crds config/crd/bases -work-dir "$work" -suite "$SUITE" -timeout "$TIMEOUT" -restart-after "$RESTART_AFTER" \
  -cpu-profile "${CPU_PROFILE:-}" -profile-seconds "${PROFILE_SECONDS:-30}" -heap-profile "${HEAP_PROFILE:-}" -manager-gomemlimit "${MANAGER_GOMEMLIMIT:-}" \
  -manager-godebug "${MANAGER_GODEBUG:-}" -dump-objects "${DUMP_OBJECTS:-}"
