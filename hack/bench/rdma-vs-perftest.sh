#!/usr/bin/env bash
# Benchmark (not a test): perftest (ib_send_bw, ib_write_bw, ib_read_bw, ib_send_lat,
# ib_write_lat) and spiral-dataplane's roce transport side by side, with the same devices,
# message sizes, queue pairs and depths, cell after cell, printed as one Markdown table with the
# ratio spiral / perftest.
#
# Usage:
#   hack/bench/rdma-vs-perftest.sh --vm [BINARY]   from a host without RDMA: runs itself inside
#                                                 hack/rxe-vm.sh's Soft-RoCE VM (rxe0 <-> rxe1)
#   hack/bench/rdma-vs-perftest.sh [BINARY]        where two RDMA devices are joined by a wire:
#                                                 the VM, or two ports of a NIC cabled together
# Devices (defaults: the VM's): SERVER_DEV=$RXE_A SERVER_NETDEV=$NETDEV_A SERVER_IP=$IP_A and
#   CLIENT_DEV=$RXE_B CLIENT_NETDEV=$NETDEV_B (each side's GID is the IPv4 one of its netdev);
#   SERVER_NS/CLIENT_NS: network namespaces to run each side in (two ports of one host, each
#   port's netdev and RDMA device moved into its own namespace: `rdma system set netns
#   exclusive`, `rdma dev set mlx5_1 netns NS`, `ip link set PORT netns NS`).
# Environment: BW_SIZES="4096 65536 1048576 8388608" LAT_SIZES="4096 65536" VERBS="send write read"
#   SECONDS_BW=3 MARGIN=1 (perftest -D SECONDS_BW+2*MARGIN -f MARGIN; spiral warms up MARGIN, then
#   measures SECONDS_BW) LAT_ITERS=1000 (perftest) SECONDS_LAT=2 (spiral) QPS=1
#   TX_DEPTH/RX_DEPTH (default per size: as spiral sizes them, tx = 16 MiB / size in 2..128,
#   rx = 2 tx in 4..512) SERVER_CPU/CLIENT_CPU (taskset both tools' processes to one core each)
#   RETRIES=3 (perftest reruns when it cannot time itself: "Correlation coefficient r^2 < 0.9",
#   which happens under CPU emulation) ITER_FROM=1048576 ITER_BYTES=134217728 (perftest's
#   bandwidth at and above ITER_FROM bytes runs ITER_BYTES / size iterations (at least 8)
#   instead of -D: in the VM its duration mode reported 0 Gb/s for such sizes, a few messages a
#   second) CELL_TIMEOUT=120 (seconds any one process may take) REPEATS=3 (each cell this many times per tool, the tools
#   alternating; the table shows the median run and the range)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)

if [[ ${1:-} == --vm ]]; then
  shift
  BIN=${1:-build/dataplane/spiral-dataplane}
  # one long command in the guest: the whole run takes minutes
  echo "# host: $(hostname), $(nproc) CPU(s) $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo), kernel $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg)"
  env=()
  for v in BW_SIZES LAT_SIZES VERBS SECONDS_BW MARGIN LAT_ITERS SECONDS_LAT QPS RETRIES REPEATS TX_DEPTH RX_DEPTH \
    SERVER_CPU CLIENT_CPU SERVER_NS CLIENT_NS ITER_FROM ITER_BYTES CELL_TIMEOUT; do
    [[ -n ${!v:-} ]] && env+=("$(printf '%s=%q' "$v" "${!v}")")
  done
  RXE_VM_TIMEOUT=${RXE_VM_TIMEOUT:-3600} RXE_VM_CMD_TIMEOUT=${RXE_VM_CMD_TIMEOUT:-3500} exec "$ROOT/hack/rxe-vm.sh" run \
    "${env[*]} bash hack/bench/rdma-vs-perftest.sh $BIN"
fi

BIN=${1:-$ROOT/build/dataplane/spiral-dataplane}
SERVER_DEV=${SERVER_DEV:-${RXE_A:-}} SERVER_NETDEV=${SERVER_NETDEV:-${NETDEV_A:-}} SERVER_IP=${SERVER_IP:-${IP_A:-}}
CLIENT_DEV=${CLIENT_DEV:-${RXE_B:-}} CLIENT_NETDEV=${CLIENT_NETDEV:-${NETDEV_B:-}}
BW_SIZES=${BW_SIZES:-4096 65536 1048576 8388608}
LAT_SIZES=${LAT_SIZES:-4096 65536}
VERBS=${VERBS:-send write read}
SECONDS_BW=${SECONDS_BW:-3}
MARGIN=${MARGIN:-1}
LAT_ITERS=${LAT_ITERS:-1000}
SECONDS_LAT=${SECONDS_LAT:-2}
QPS=${QPS:-1}
RETRIES=${RETRIES:-3}
REPEATS=${REPEATS:-3}
ITER_FROM=${ITER_FROM:-1048576}
ITER_BYTES=${ITER_BYTES:-134217728}
CELL_TIMEOUT=${CELL_TIMEOUT:-120}
WORK=$(mktemp -d)
PORT=18600

[[ -n $SERVER_DEV && -n $CLIENT_DEV && -n $SERVER_NETDEV && -n $CLIENT_NETDEV && -n $SERVER_IP ]] ||
  { echo "set SERVER_DEV SERVER_NETDEV SERVER_IP CLIENT_DEV CLIENT_NETDEV, or use --vm" >&2; exit 1; }
for tool in ib_send_bw ib_write_bw ib_read_bw ib_send_lat ib_write_lat ibv_devinfo jq ss; do
  command -v $tool >/dev/null || { echo "missing $tool (Debian: perftest, ibverbs-utils, jq, iproute2)" >&2; exit 1; }
done
[[ -x $BIN ]] || { echo "no spiral-dataplane at $BIN (make dataplane)" >&2; exit 1; }

# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
cleanup() {
  kill_descendants
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# side server|client CMD...: runs CMD in that side's namespace and on its CPU (when set),
# killed after CELL_TIMEOUT
side() {
  local ns cpu
  if [[ $1 == server ]]; then ns=${SERVER_NS:-} cpu=${SERVER_CPU:-}; else ns=${CLIENT_NS:-} cpu=${CLIENT_CPU:-}; fi
  shift
  local prefix=(timeout -k 5 "$CELL_TIMEOUT")
  [[ -n $ns ]] && prefix=(ip netns exec "$ns" "${prefix[@]}")
  [[ -n $cpu ]] && prefix+=(taskset -c "$cpu")
  "${prefix[@]}" "$@"
}

# The index of the IPv4-mapped RoCE v2 GID of the device's netdev, as perftest's -x wants it.
gid_index() {
  local ip
  ip=$(side "$3" ip -4 -o addr show dev "$2" | awk '{split($4, a, "/"); print a[1]; exit}')
  side "$3" ibv_devinfo -v -d "$1" | sed -n "s/.*GID\[ *\([0-9]*\)\]:[[:space:]]*::ffff:${ip//./\\.}, RoCE v2.*/\1/p" | head -n 1 |
    grep . || { echo "no RoCE v2 GID for $ip on $1" >&2; exit 1; }
}
SERVER_GID=$(gid_index "$SERVER_DEV" "$SERVER_NETDEV" server)
CLIENT_GID=$(gid_index "$CLIENT_DEV" "$CLIENT_NETDEV" client)

wait_listening() {
  local _
  for _ in $(seq 400); do
    side server ss -Hltn "sport = :$1" | grep -q . && return 0
    sleep 0.05
  done
  return 1
}
tx_depth_for() { local d=$(((16777216 + $1 - 1) / $1)); ((d < 2)) && d=2; ((d > 128)) && d=128; echo "${TX_DEPTH:-$d}"; }
rx_depth_for() { local d=$((2 * $(tx_depth_for "$1"))); ((d < 4)) && d=4; ((d > 512)) && d=512; echo "${RX_DEPTH:-$d}"; }
signal_every() { local s=$(($1 / 4)); ((s < 1)) && s=1; ((s > 64)) && s=64; echo $s; }

# retry_count DEV server|client requester|responder: the device's retry counters summed, as
# spiral-dataplane reads them (transports/roce/retry_counters.cpp), so perftest's runs show theirs.
retry_count() {
  local names sum=0 f v
  if [[ $3 == requester ]]; then
    names="completer_retry_err rcvd_rnr_err local_ack_timeout_err packet_seq_err implied_nak_seq_err rnr_nak_retry_err"
  else
    names="duplicate_request out_of_seq_request out_of_sequence"
  fi
  for f in $names; do
    v=$(side "$2" cat "/sys/class/infiniband/$1/ports/1/hw_counters/$f" 2>/dev/null || echo 0)
    sum=$((sum + v))
  done
  echo $sum
}

# perftest TOOL ARGS...: server then client, one port each run; PT_LINE is the client's result
# line (bandwidth: bytes iters peak average msgrate; latency: bytes iters min max typical avg
# stdev p99 p99.9), retried while perftest cannot calibrate its clock; empty when it never could.
perftest() {
  local tool=$1 try line
  shift
  PT_LINE="" PT_RETRIES="-"
  for ((try = 1; try <= RETRIES; try++)); do
    PORT=$((PORT + 1))
    side server "$tool" -d "$SERVER_DEV" -x "$SERVER_GID" -p $PORT -F "$@" >"$WORK/pt-server.txt" 2>&1 &
    local server=$!
    if ! wait_listening $PORT; then
      kill $server 2>/dev/null || true
      echo "perftest $tool did not listen on $PORT: $(tail -n 3 "$WORK/pt-server.txt")" >&2
      continue
    fi
    local req0 resp0
    req0=$(retry_count "$CLIENT_DEV" client requester) resp0=$(retry_count "$SERVER_DEV" server responder)
    side client "$tool" -d "$CLIENT_DEV" -x "$CLIENT_GID" -p $PORT -F "$@" "$SERVER_IP" \
      >"$WORK/pt-client.txt" 2>&1 || true
    wait $server 2>/dev/null || true
    PT_RETRIES="$(($(retry_count "$CLIENT_DEV" client requester) - req0))/$(($(retry_count "$SERVER_DEV" server responder) - resp0))"
    line=$(awk '/^ *[0-9]+ +[0-9]+ +[0-9.]+/ {l = $0} END {print l}' "$WORK/pt-client.txt")
    if [[ -n $line ]] && ! grep -q "Correlation coefficient" "$WORK/pt-client.txt" &&
      awk '{exit !($4 > 0)}' <<<"$line"; then
      PT_LINE=$line
      return 0
    fi
  done
  echo "perftest $tool $*: no usable result after $RETRIES runs; last output:" >&2
  tail -n 5 "$WORK/pt-client.txt" >&2
}

# spiral ARGS...: server then client; SP_REC is the client's result record
spiral() {
  PORT=$((PORT + 10))
  rm -f "$WORK/ready"
  side server "$BIN" server --transport roce --netdev "$SERVER_NETDEV" --bind-address "$SERVER_IP" \
    --base-port $PORT --ready-file "$WORK/ready" --grace-ms 30000 "$@" >"$WORK/sp-server.txt" 2>&1 &
  local server=$! _
  for _ in $(seq 400); do [[ -s $WORK/ready ]] && break; sleep 0.05; done
  side client "$BIN" client --transport roce --netdev "$CLIENT_NETDEV" --server-address "$SERVER_IP" \
    --base-port $PORT --grace-ms 30000 "$@" >"$WORK/sp-client.txt" 2>&1 || true
  wait $server 2>/dev/null || true
  SP_REC=$(grep '^{"event":"result"' "$WORK/sp-client.txt" | tail -n 1 || true)
  [[ -n $SP_REC ]] || { echo "spiral $*: no result record; its output:" >&2; tail -n 5 "$WORK/sp-client.txt" "$WORK/sp-server.txt" >&2; }
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b + 0 == 0) print "-"; else printf "%.2f", a / b }'; }
row() { printf '| %-20s | %8s | %7s | %-24s | %-24s | %5s | %s\n' "$@"; }
# "median (min-max)" of the numbers given; "-" when none
spread() {
  printf '%s\n' "$@" | grep -E '^[0-9.]+$' | sort -g | awk '{v[NR] = $1} END {
    if (NR == 0) { print "-"; exit }
    m = v[int((NR + 1) / 2)]
    if (NR == 1) print m; else printf "%s (%s-%s)\n", m, v[1], v[NR] }'
}
median() { spread "$@" | cut -d' ' -f1; }

where=$(hostname)
[[ -n ${RXE_VM:-} ]] && where="the Soft-RoCE VM (QEMU TCG)"
echo "# rdma-vs-perftest in $where: $(nproc) CPU(s), kernel $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# server $SERVER_DEV ($SERVER_NETDEV $SERVER_IP, GID[$SERVER_GID]${SERVER_CPU:+, CPU $SERVER_CPU}${SERVER_NS:+, netns $SERVER_NS}) <- client $CLIENT_DEV ($CLIENT_NETDEV, GID[$CLIENT_GID]${CLIENT_CPU:+, CPU $CLIENT_CPU}${CLIENT_NS:+, netns $CLIENT_NS}); $(side server ibv_devinfo -d "$SERVER_DEV" | awk '/active_mtu/ {print "active MTU " $2; exit}')"
echo "# perftest $(dpkg-query -W -f='${Version}' perftest 2>/dev/null || ib_send_bw --version | tail -n 1), spiral-dataplane $("$BIN" --version); $QPS QP(s); $REPEATS run(s) per tool and cell, alternating; bandwidth: $SECONDS_BW s measured after $MARGIN s; latency: perftest $LAT_ITERS iterations, spiral $SECONDS_LAT s"
echo "# depths per size unless TX_DEPTH/RX_DEPTH: tx = 16 MiB / size in 2..128, rx = 2 tx in 4..512; perftest -Q and spiral both signal every tx/4; reads: 16 outstanding"
echo "# perftest bandwidth from $ITER_FROM B: $ITER_BYTES B worth of iterations (-n) instead of -D"
echo "# cells: median run (lowest-highest); ratio = spiral median / perftest median"
echo
row "test" "size B" "tx/rx" "perftest" "spiral" "ratio" "spiral runs: state, retries (requester/responder); perftest runs: retries"
row "---" "---:" "---:" "---:" "---:" "---:" "---"
for verb in $VERBS; do
  for size in $BW_SIZES; do
    tx=$(tx_depth_for "$size") rx=$(rx_depth_for "$size") q=$(signal_every "$(tx_depth_for "$size")")
    args=(-s "$size" -q "$QPS" -t "$tx" -Q "$q" --report_gbits)
    if ((size >= ITER_FROM)); then
      iters=$((ITER_BYTES / size))
      args+=(-n $((iters < 8 ? 8 : iters)))
    else
      args+=(-D $((SECONDS_BW + 2 * MARGIN)) -f "$MARGIN")
    fi
    [[ $verb == send ]] && args+=(-r "$rx")
    [[ $verb == read ]] && args+=(-o 16)
    pts=() sps=() notes=() ptnotes=()
    for ((rep = 0; rep < REPEATS; rep++)); do
      perftest "ib_${verb}_bw" "${args[@]}" || true
      pts+=("$(awk '{print $4}' <<<"$PT_LINE")")
      ptnotes+=("$PT_RETRIES")
      spiral --verb "$verb" --payload-bytes "$size" --queue-pairs "$QPS" --tx-depth "$tx" --rx-depth "$rx" \
        --seconds "$SECONDS_BW" --warmup-seconds "$MARGIN"
      sps+=("$(jq -r 'if .state == "Valid" then (.rx_gbps * 1000 | round / 1000) else empty end' <<<"$SP_REC" 2>/dev/null || true)")
      notes+=("$(jq -r '"\(.state)\(if .reason != "" then " (" + .reason + ")" else "" end) \(.rdma.tx_retries)/\(.rdma.rx_retries)"' <<<"$SP_REC" 2>/dev/null || echo "no record")")
    done
    row "${verb} bw Gb/s" "$size" "$tx/$([[ $verb == send ]] && echo "$rx" || echo -)" "$(spread "${pts[@]}")" \
      "$(spread "${sps[@]}")" "$(ratio "$(median "${sps[@]}")" "$(median "${pts[@]}")")" \
      "$(IFS=,; echo "${notes[*]}"); perftest $(IFS=,; echo "${ptnotes[*]}")"
  done
done
for verb in send write; do
  [[ " $VERBS " == *" $verb "* ]] || continue
  for size in $LAT_SIZES; do
    pts=() sps=() notes=() ptmins=() spmins=()
    for ((rep = 0; rep < REPEATS; rep++)); do
      perftest "ib_${verb}_lat" -s "$size" -n "$LAT_ITERS" || true
      pts+=("$(awk '{print $5}' <<<"$PT_LINE")")
      ptmins+=("$(awk '{print $3}' <<<"$PT_LINE")")
      spiral --verb "$verb" --mode latency --payload-bytes "$size" --seconds "$SECONDS_LAT" --warmup-seconds 0.5
      sps+=("$(jq -r 'if .state == "Valid" then (.rdma.latency.p50_ns / 10 | round / 100) else empty end' <<<"$SP_REC" 2>/dev/null || true)")
      spmins+=("$(jq -r '.rdma.latency.min_ns / 10 | round / 100' <<<"$SP_REC" 2>/dev/null || true)")
      notes+=("$(jq -r '"\(.state) \(.rdma.latency.samples) samples"' <<<"$SP_REC" 2>/dev/null || echo "no record")")
    done
    row "${verb} lat p50 us" "$size" "1/-" "$(spread "${pts[@]}")" "$(spread "${sps[@]}")" \
      "$(ratio "$(median "${sps[@]}")" "$(median "${pts[@]}")")" "$(IFS=,; echo "${notes[*]}")"
    row "${verb} lat min us" "$size" "1/-" "$(spread "${ptmins[@]}")" "$(spread "${spmins[@]}")" \
      "$(ratio "$(median "${spmins[@]}")" "$(median "${ptmins[@]}")")" ""
  done
done
echo
echo "# Targets: bandwidth ratio >= 0.90, median latency ratio <= 1.10."
echo "# perftest's latency is its t_typical (median) and t_min over $LAT_ITERS round trips, halved; spiral's the median and minimum of every round trip in its window, halved."
