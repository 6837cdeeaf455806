#!/usr/bin/env bash
# The forward mode (l2fwd-nv) on a GPU machine, given a build of the CUDA + DPDK
# flavour: its GPU tests, then the benchmark tables of docs/benchmarks/forward.md, printed as
# Markdown. Not a test: a failed cell is shown as failed, and the script goes on.
#   1. tests   tests/gpu/forward_gpu.sh (every GPU work mode forwards, MACs swapped on every
#              frame, clean stop, graphs replay, SIGINT mid-run) and tests/integration/raw_forward.sh
#   2. table A throughput and loss vs payload (64..1024 B; frames are 42 B longer), forwarder pool
#              in host vs host_pinned (GPU-mapped) memory, for work cpu and gpu_kernel (host_pinned)
#   3. table B vs burst 16, 32, 64, 128 at 1024 B for gpu_kernel, gpu_persistent, gpu_graphs
#   4. table C (STEPS="... C", when dpdk-testpmd is found) none/cpu vs testpmd
#              --forward-mode=io/macswap as the forwarder between the same sender and receiver,
#              on the same memif pairs and cores (hack/bench/forward-vs-testpmd.sh is the
#              standalone comparison at 64/1024/8000 B). testpmd runs with --stats-period: without
#              it, non-interactive testpmd reads stdin, gets EOF and exits at once, and spiral's
#              memif clients then fail their port start ("Operation not permitted", DPDK's -1).
# Every cell: the sender unpaced (TARGET_MBPS=0) or paced, REPEATS runs (the tools alternating in
# table C), the run with the median forwarded rate shown, offered vs forwarded Gb/s and Mpps.
# Topology: four net_memif ports in one process (two shared-memory pairs); the machine has no
# NIC, so the memif PMD copies every frame with the CPU (see docs/benchmarks/forward.md).
#
# Usage (root, on the GPU machine): bash hack/gpu/forward-run.sh BUILD_DIR
#   BUILD_DIR holds spiral-dataplane (CUDA + DPDK). Output under $OUT (default ./forward-results):
#   forward.md (the tables, also printed), tests.log, runs.jsonl (every run's record).
# Environment: CELL_SECONDS=3 REPEATS=3 TARGET_MBPS=0 STEPS="tests A B" (add C) HUGEPAGES=512 (table C)
#   CORES="1 2 3 4 5" (sender, forwarder RX, forwarder TX, receiver, master), TESTPMD=dpdk-testpmd
#   SPIRAL_EAL_ARGS / TESTPMD_EAL_ARGS: extra EAL arguments (e.g. "-d DIR" for a carried DPDK's PMDs)
set -uo pipefail
BUILD=${1:?usage: forward-run.sh BUILD_DIR}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=$BUILD/spiral-dataplane
OUT=${OUT:-$PWD/forward-results}
T=${CELL_SECONDS:-3}
REPEATS=${REPEATS:-3}
TARGET=${TARGET_MBPS:-0}
read -r C_TX C_FRX C_FTX C_RX C_MASTER <<<"${CORES:-1 2 3 4 5}"
TESTPMD=${TESTPMD:-dpdk-testpmd}
WORK=$(mktemp -d)
mkdir -p "$OUT"
MD=$OUT/forward.md
: >"$MD"
: >"$OUT/runs.jsonl"
HUGE_DIR=$WORK/huge HUGE_ADDED=0 NOHUGE=--no-huge
# table C: two DPDK processes share memif regions only from hugepages (as hack/bench/raw-vs-testpmd.sh)
# shellcheck source=hack/lib/hugepages.sh
source "$ROOT/hack/lib/hugepages.sh"
trap 'hugepages_off; rm -rf "$WORK"; rmdir /var/run/dpdk/fwdtp* 2>/dev/null || true' EXIT
[[ -x $BIN ]] || { echo "no spiral-dataplane in $BUILD" >&2; exit 1; }
# a machine without DPDK: the libraries and plugins hack/gpu/carry.sh packed (as device-run.sh)
source "$ROOT/hack/gpu/dpdk-env.sh"
if ! pkg-config --exists libdpdk 2>/dev/null && dpdk_env "$ROOT/.deps/dpdk" "$WORK/dpdk-lib"; then
  echo "forward-run: DPDK from $ROOT/.deps/dpdk (SPIRAL_EAL_ARGS=$SPIRAL_EAL_ARGS)"
fi
command -v jq >/dev/null || { echo "needs jq" >&2; exit 1; }
say() { echo "$*" | tee -a "$MD"; }

# ports N: the four ports of run N, memif sockets of its own, distinct MACs
ports() {
  local a="$WORK/a$1.sock" b="$WORK/b$1.sock"
  echo --tx-port "net_memif0,role=client,socket=$a,mac=02:00:00:00:f0:0a" \
    --forward-rx-port "net_memif1,role=server,socket=$a,mac=02:00:00:00:f0:1a" \
    --forward-tx-port "net_memif2,role=client,socket=$b,mac=02:00:00:00:f0:1b" \
    --rx-port "net_memif3,role=server,socket=$b,mac=02:00:00:00:f0:0b"
}
N=0
# spiral_run ARGS...: one forward run; prints its record (one line) or a failure record
spiral_run() {
  N=$((N + 1))
  local rec
  "$BIN" loopback --transport raw $NOHUGE --seconds "$T" --warmup-seconds 1 --grace-ms 1000 \
    --master-core "$C_MASTER" --tx-cores "$C_TX" --rx-cores "$C_RX" --forward-rx-cores "$C_FRX" \
    --forward-tx-cores "$C_FTX" --target-mbps "$TARGET" $(ports $N) "$@" >"$WORK/run.out" 2>"$WORK/run.err"
  rec=$(grep '^{"event":"result"' "$WORK/run.out" | tail -n 1)
  [[ -n $rec ]] || rec=$(jq -cn --arg e "$(tail -n 1 "$WORK/run.err")" '{state: "Failed", reason: $e}')
  echo "$rec" | tee -a "$OUT/runs.jsonl"
}
# median RECORDS...: the record with the median forwarded Mpps
median() { printf '%s\n' "$@" | jq -sc 'sort_by(.raw.forward.forwarded_mpps // 0) | .[(length / 2 | floor)]'; }
row() {  # row LABEL RECORD
  echo "$2" | jq -r --arg l "$1" 'if .state == "Failed" then "| \($l) | failed: \(.reason) | | | | | |" else
    "| \($l) | \(.state) | \(.raw.forward.offered_gbps * 100 | round / 100) / \(.raw.forward.forwarded_gbps * 100 | round / 100) | \(.raw.forward.offered_mpps * 1000 | round / 1000) / \(.raw.forward.forwarded_mpps * 1000 | round / 1000) | \(.lost) (\(.loss_ppm) ppm) | \([.cpu_cores[] | select(.role | startswith("forward")) | .busy_mpct / 1000 | floor] | map(tostring) | join("/")) | \(.raw.forward.gpu_sm_mpct / 1000 | floor) |" end' | tee -a "$MD"
}
header() {
  say ""
  say "| $1 | state | Gb/s offered / forwarded | Mpps offered / forwarded | lost | CPU % fwd RX/TX | GPU SM % |"
  say "|---|---|---|---|---|---|---|"
}
cell() {  # cell LABEL ARGS...: REPEATS runs, the median's row
  local label=$1 recs=()
  shift
  for ((i = 0; i < REPEATS; i++)); do recs+=("$(spiral_run "$@")"); done
  row "$label" "$(median "${recs[@]}")"
}

say "# Forward mode on $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 || echo 'no GPU'), $(nproc) cores, $(date -u +%F)"
say ""
say "Command: \`bash hack/gpu/forward-run.sh $BUILD\` (CELL_SECONDS=$T REPEATS=$REPEATS TARGET_MBPS=$TARGET CORES=\"$C_TX $C_FRX $C_FTX $C_RX $C_MASTER\"); net_memif pairs, one process, median of $REPEATS."

STEPS=${STEPS:-tests A B}
want() { [[ " $STEPS " == *" $1 "* ]]; }

# 1. tests
if want tests; then
say ""
say "## Tests"
for t in "$ROOT/dataplane/tests/gpu/forward_gpu.sh" "$ROOT/dataplane/tests/integration/raw_forward.sh"; do
  rc=0
  bash "$t" "$BIN" "$ROOT/hack/netns-wire.sh" >>"$OUT/tests.log" 2>&1 || rc=$?
  case $rc in 0) r=PASS ;; 77) r="SKIP ($(grep '^SKIP' "$OUT/tests.log" | tail -n 1))" ;; *) r="FAIL ($rc, see tests.log)" ;; esac
  say "- $(basename "$t"): $r"
done
fi

# 2. table A: payload x memory
if want A; then
say ""
say "## A. Throughput and loss vs payload, forwarder pool in host vs host_pinned memory (burst 64)"
header "payload, work, memory"
for payload in 64 128 256 512 1024; do
  cell "$payload B, cpu, host" --payload-bytes $payload --batch 64 --forward-work cpu --memory host
  cell "$payload B, cpu, host_pinned" --payload-bytes $payload --batch 64 --forward-work cpu --memory host_pinned
  cell "$payload B, gpu_kernel, host_pinned" --payload-bytes $payload --batch 64 --forward-work gpu_kernel --memory host_pinned
done
fi

# 3. table B: burst x GPU work mode
if want B; then
say ""
say "## B. Throughput and loss vs burst at 1024 B, per GPU work mode (host_pinned)"
header "burst, work"
for burst in 16 32 64 128; do
  for work in gpu_kernel gpu_persistent gpu_graphs; do
    cell "$burst, $work" --payload-bytes 1024 --batch $burst --forward-work $work --memory host_pinned
  done
done
fi
want C || exit 0

# 4. table C: none/cpu vs testpmd io/macswap as the forwarder
say ""
say "## C. none and cpu vs dpdk-testpmd io and macswap (the same sender and receiver, burst 32)"
if ! command -v "$TESTPMD" >/dev/null; then
  say "skipped: no $TESTPMD on this machine"
  exit 0
fi
# both tools on hugepages here (testpmd cannot share memif regions across processes without them)
hugepages_on
NOHUGE=""
export SPIRAL_EAL_ARGS="${SPIRAL_EAL_ARGS:-} --huge-dir $HUGE_DIR"
say ""
say "Both tools on 2 MiB hugepages in this table (testpmd shares memif regions across processes only from hugepages)."
say ""
say "| payload | forwarder | forwarded Mpps (median) | spiral / testpmd |"
say "|---|---|---|---|"
# testpmd_run PAYLOAD MODE: testpmd forwards between the memif pairs; spiral sends and receives.
# testpmd is the server of both pairs: its memif client would not retry a socket not there yet.
testpmd_run() {
  N=$((N + 1))
  local a="$WORK/a$N.sock" b="$WORK/b$N.sock" pid rec
  # shellcheck disable=SC2086
  "$TESTPMD" -l "$C_MASTER,$C_FRX" --file-prefix=fwdtp$N --huge-dir "$HUGE_DIR" --socket-mem 512 --no-pci \
    --no-telemetry ${TESTPMD_EAL_ARGS:-} \
    --vdev "net_memif1,role=server,socket=$a,mac=02:00:00:00:f0:1a" \
    --vdev "net_memif2,role=server,socket=$b,mac=02:00:00:00:f0:1b" -- \
    --forward-mode="$2" --burst=32 --nb-cores=1 --auto-start --stats-period=1 --total-num-mbufs=65536 \
    >"$WORK/tp.out" 2>&1 </dev/null &
  pid=$!
  sleep 2
  "$BIN" loopback --transport raw --seconds "$T" --warmup-seconds 1 --grace-ms 1000 --batch 32 \
    --master-core "$C_MASTER" --tx-cores "$C_TX" --rx-cores "$C_RX" --payload-bytes "$1" --target-mbps "$TARGET" \
    --connect-timeout-ms 20000 \
    --tx-port "net_memif0,role=client,socket=$a,mac=02:00:00:00:f0:0a" \
    --rx-port "net_memif3,role=client,socket=$b,mac=02:00:00:00:f0:0b" >"$WORK/run.out" 2>"$WORK/run.err"
  kill -INT $pid 2>/dev/null
  wait $pid 2>/dev/null
  rec=$(grep '^{"event":"result"' "$WORK/run.out" | tail -n 1)
  [[ -n $rec ]] || rec=$(jq -cn --arg e "$(tail -n 1 "$WORK/run.err")" '{state: "Failed", reason: $e}')
  echo "$rec" | tee -a "$OUT/runs.jsonl"
}
mpps() { jq -r 'if .seconds_milli then (.rx_packets / .seconds_milli / 1000) else 0 end' <<<"$1"; }
for payload in 64 256 1024; do
  for pair in "none io" "cpu macswap"; do
    read -r work mode <<<"$pair"
    ours=() theirs=()
    for ((i = 0; i < REPEATS; i++)); do  # alternating
      ours+=("$(mpps "$(spiral_run --payload-bytes $payload --batch 32 --forward-work $work)")")
      theirs+=("$(mpps "$(testpmd_run $payload $mode)")")
    done
    o=$(printf '%s\n' "${ours[@]}" | sort -g | sed -n "$(((REPEATS + 1) / 2))p")
    t=$(printf '%s\n' "${theirs[@]}" | sort -g | sed -n "$(((REPEATS + 1) / 2))p")
    ratio=$(awk -v o="$o" -v t="$t" 'BEGIN { if (t > 0) printf "%.2f", o / t; else print "-" }')
    say "| $payload B | spiral $work | $(printf '%.3f' "$o") | $ratio |"
    say "| $payload B | testpmd $mode | $(printf '%.3f' "$t") | |"
  done
done
