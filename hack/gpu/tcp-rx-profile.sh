#!/usr/bin/env bash
# Where the TCP receive core's time goes, bare against a GPU workload, on a GPU machine: runs
# hack/gpu/e2e.sh's TCP cell (ABBA) with E2E_PERF_DIR, which profiles the receive core (every
# thread on it, idle included: perf record -e cpu-clock --call-graph dwarf -C RX_CORE, and perf
# stat) during each run's measured seconds, then prints per run its rate and rx core %, the perf
# stat counts, the threads on the core, the hottest functions (self) and the heaviest call paths
# (children: a function's share with everything it calls). Shares are of the samples taken, and
# cpu-clock samples only a busy core: the share of the core's time is that share x rx core %.
#
# Usage, as root on the GPU machine, after hack/gpu/tcp-gap.sh built the data plane, with perf on
# PATH or carried (CARRY_PERF=1 hack/gpu/carry.sh):
#   OUT=DIR bash hack/gpu/tcp-rx-profile.sh     (PROF_CELL=tcp_w1m PROF_WORKLOADS="none gemm_fp16"
#                                                 PROF_REPEATS=2 PROF_SECONDS=7 BUILD=/tmp/spiral-gap-build)
# Writes DIR/profile.md (also printed) and DIR/profile.jsonl (e2e.sh's records of the runs).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
OUT=${OUT:-$ROOT/profile-results}
BUILD=${BUILD:-/tmp/spiral-gap-build}
DEPS=${SPIRAL_DEPS:-$ROOT/.deps/root}
TOOLS=/tmp/spiral-gap-tools
CELL=${PROF_CELL:-tcp_w1m}
mkdir -p "$OUT"
[[ -x $BUILD/spiral-dataplane ]] || { echo "no $BUILD/spiral-dataplane: run hack/gpu/tcp-gap.sh first"; exit 1; }
# shellcheck source=hack/gpu/carried-tools.sh
source "$ROOT/hack/gpu/carried-tools.sh"
setup_tools >/dev/null 2>&1
command -v perf >/dev/null || { echo "no perf: carry it with CARRY_PERF=1 hack/gpu/carry.sh"; exit 1; }
PERF=$(mktemp -d)
trap 'rm -rf "$PERF"' EXIT
MD=$OUT/profile.md
echo "# receive core profile, $CELL: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1);" \
  "commit $(cat "$ROOT/.carry-commit" 2>/dev/null || git -C "$ROOT" rev-parse --short HEAD 2>/dev/null)" | tee "$MD"
E2E_CELLS=$CELL E2E_WORKLOADS=${PROF_WORKLOADS:-none gemm_fp16} E2E_JSON="$OUT/profile.jsonl" \
  E2E_SECONDS=${PROF_SECONDS:-7} E2E_WARMUP=1 E2E_PERF_DIR=$PERF \
  bash hack/gpu/e2e.sh "$BUILD/spiral-dataplane" "${PROF_REPEATS:-2}" >"$PERF/e2e.md" 2>&1
rc=$?
report() {  # perf report over one run's samples, as a share of all the core's samples (idle included)
  perf report -i "$1" --stdio --no-inline --percent-limit "$2" "${@:3}" 2>/dev/null | grep -v '^#' | grep -v '^$'
}
while read -r line <&3; do
  read -r t w rep gbps core < <(python3 -c 'import json,sys; r=json.loads(sys.argv[1]); print(r["transport"], r["workload"], r["rep"], "%.2f" % r["rx_gbps"], r["cpu_rx_mpct"] // 1000)' "$line")
  name=$PERF/$t-${w//@/_}-$rep
  {
    echo; echo "## $t $w rep $rep: $gbps Gb/s, rx core $core % busy"
    if [[ ! -f $name.data ]]; then echo "(no profile)"; exit 0; fi  # leaves this run's block only
    echo '```'
    grep -E 'cpu-clock|context-switches|cpu-migrations|page-faults|cycles|instructions|elapsed' "$name.stat"
    echo "-- threads on the core, samples (at 999 Hz over the profiled seconds: the busy share; idle is not sampled)"
    report "$name.data" 0.5 --no-children -g none -n --sort pid
    echo "-- self, by library"
    report "$name.data" 0.5 --no-children -g none --sort dso
    echo "-- self, by function"
    report "$name.data" 0.7 --no-children -g none --sort dso,sym | head -n 40
    echo "-- children (a function with all it calls), by function"
    report "$name.data" 3 --children -g none --sort sym | head -n 45
    echo "-- children outside the kernel"
    report "$name.data" 0.3 --children -g none --sort dso,sym | grep -v '\[k\]' | head -n 30
    echo '```'
  } | tee -a "$MD"
done 3<"$OUT/profile.jsonl"
grep -E 'failed|SKIP' "$PERF/e2e.md" | tee -a "$MD"
echo "e2e.sh exit $rc" | tee -a "$MD"
exit $rc
