#!/usr/bin/env bash
# Benchmark (not a test): spiral-dataplane's forward mode against dpdk-testpmd as the forwarder
# in the middle, between the same sender and receiver (spiral's raw loopback), on the same ports
# and cores:
#   spiral  one process: sender -> forward_rx_port -> forwarder (work none | cpu) -> forward_tx_port -> receiver
#   testpmd --forward-mode=io | macswap between the two middle ports; spiral's loopback sends and receives
# Pairs compared: spiral `none` vs testpmd `io` (forward as is), spiral `cpu` vs testpmd `macswap`
# (swap the MACs of every frame). Ports (WIRE):
#   memif  two net_memif pairs (shared memory). testpmd is the server of both middle ports and must
#          keep running non-interactively: --stats-period (without it testpmd reads stdin, gets EOF
#          and exits, and a memif client then fails its port start with "Operation not permitted",
#          DPDK's -1). Two processes share memif regions only from hugepages: every run of either
#          tool gets HUGEPAGES 2 MiB pages on a hugetlbfs of its own, taken away after the run.
#   afp    net_af_packet on two veth wires (sender ns <-> forwarder ns <-> receiver ns), MTU 9000.
# Cores (CORES="ENDS FWD"): the sender's and receiver's poll-mode threads and both main threads
# on ENDS; the forwarder on FWD: spiral's forward RX and TX threads, testpmd's forwarding lcore
# (one core does both of its directions; only one carries traffic). CORES="TX RX FWD MAIN" gives
# the sender, the receiver and the main threads a core each, so that on a machine with the cores
# to spare the forwarder, not the ends sharing one core, sets the rate.
# Each cell runs REPEATS times, the tools alternating; the median of the receiver's packets per
# second is shown (the receiver counts every frame by sequence number; testpmd drops what its TX
# ring does not take, spiral's forwarder retries, so lost differs and the rate is the measure).
# PERF_DIR=DIR: perf record -C FWD during each cell's last run of each tool; DIR gets, per run,
# the processes that had the forwarding core and the top symbols.
#
# Usage: hack/bench/forward-vs-testpmd.sh [spiral-dataplane binary]
# Environment: CELL_SECONDS=5 SIZES="64 1024 8000" REPEATS=5 WIRE=memif CORES="0 1" HUGEPAGES=1024
#   TESTPMD=dpdk-testpmd TESTPMD_EAL_ARGS / SPIRAL_EAL_ARGS (extra EAL arguments)
# Needs root, dpdk-testpmd (Debian package dpdk), jq, iproute2 (afp), perf (PERF_DIR), and a
# spiral-dataplane built with DPDK. On a machine without DPDK (the GPU machine) it takes the DPDK
# and dpdk-testpmd that hack/gpu/carry.sh packed under .deps/dpdk (hack/gpu/dpdk-env.sh).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BIN=${1:-$ROOT/build/dataplane/spiral-dataplane}
T=${CELL_SECONDS:-5}
SIZES=${SIZES:-64 1024 8000}
REPEATS=${REPEATS:-5}
WIRE=${WIRE:-memif}
read -r C1 C2 C3 C4 <<<"${CORES:-0 1}"
if [[ -n ${C3:-} ]]; then TXC=$C1 RXC=$C2 FWD=$C3 MAINC=${C4:-$C1}; else TXC=$C1 RXC=$C1 FWD=$C2 MAINC=$C1; fi
NS_S=fvt-s NS_F=fvt-f NS_R=fvt-r
WORK=$(mktemp -d)
HUGE_DIR=$WORK/huge HUGE_ADDED=0 WIRED=0 N=0

[[ $(id -u) == 0 ]] || { echo "needs root (DPDK, hugepages, network namespaces)" >&2; exit 1; }
# a machine without DPDK: the libraries, plugins and dpdk-testpmd hack/gpu/carry.sh packed
# shellcheck source=hack/gpu/dpdk-env.sh
source "$ROOT/hack/gpu/dpdk-env.sh"
if ! pkg-config --exists libdpdk 2>/dev/null && dpdk_env "$ROOT/.deps/dpdk" "$WORK/dpdk-lib"; then
  echo "forward-vs-testpmd: DPDK from $ROOT/.deps/dpdk (TESTPMD=${TESTPMD:-dpdk-testpmd})" >&2
fi
TESTPMD=${TESTPMD:-dpdk-testpmd}
for tool in "$TESTPMD" jq awk; do command -v "$tool" >/dev/null || { echo "missing $tool" >&2; exit 1; }; done
[[ -x $BIN ]] || { echo "no spiral-dataplane at $BIN (make dataplane)" >&2; exit 1; }
source "$HERE/lib.sh"

# shellcheck source=hack/lib/hugepages.sh
source "$ROOT/hack/lib/hugepages.sh"
wires() {  # sender ns <-veth-> forwarder ns <-veth-> receiver ns, MTU 9000
  local ns
  for ns in $NS_S $NS_F $NS_R; do ip netns add $ns 2>/dev/null || true; ip -n $ns link set lo up; done
  ip link add fvt-s0 netns $NS_S type veth peer name fvt-f0 netns $NS_F
  ip link add fvt-f1 netns $NS_F type veth peer name fvt-r0 netns $NS_R
  for end in "$NS_S fvt-s0" "$NS_F fvt-f0" "$NS_F fvt-f1" "$NS_R fvt-r0"; do
    read -r ns ifc <<<"$end"
    ip -n "$ns" link set "$ifc" mtu 9000 up
    ip netns exec "$ns" sysctl -qw "net.ipv6.conf.$ifc.disable_ipv6=1"
  done
  WIRED=1
}
cleanup() {
  kill_descendants
  hugepages_off
  if ((WIRED)); then for ns in $NS_S $NS_F $NS_R; do ip netns del $ns 2>/dev/null || true; done; fi
  if [[ -n ${KEEP_WORK:-} ]]; then echo "work: $WORK" >&2; else rm -rf "$WORK"; fi
  rm -rf /var/run/dpdk/fvt*
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# port NAME PAYLOAD [ns]: the vdev of one of the four ports of run $N (sender, fwd_rx, fwd_tx,
# receiver); ns: spiral opens it in the forwarder's namespace (afp)
port() {
  local big=0
  (($2 > 1900)) && big=1
  if [[ $WIRE == afp ]]; then
    local fs="blocksz=4096,framesz=2048,framecnt=2048"
    ((big)) && fs="blocksz=20480,framesz=10240,framecnt=1024"
    case $1 in
      sender) echo "net_af_packet0,iface=fvt-s0,$fs,qdisc_bypass=1,netns=$NS_S" ;;
      fwd_rx) echo "net_af_packet1,iface=fvt-f0,$fs,qdisc_bypass=1${3:+,netns=$NS_F}" ;;
      fwd_tx) echo "net_af_packet2,iface=fvt-f1,$fs,qdisc_bypass=1${3:+,netns=$NS_F}" ;;
      receiver) echo "net_af_packet3,iface=fvt-r0,$fs,qdisc_bypass=1,netns=$NS_R" ;;
    esac
    return
  fi
  local b=bsize=2048 a="socket=$WORK/a$N.sock" z="socket=$WORK/b$N.sock"
  ((big)) && b=bsize=10240
  # testpmd serves both of its ports (its memif client would not retry a socket not there yet);
  # in spiral's one process the receiver serves pair b (its port starts before the forwarder's)
  local tx_role=server rx_role=client
  [[ $ROLES == spiral ]] && tx_role=client rx_role=server
  case $1 in
    sender) echo "net_memif0,role=client,$a,$b,mac=02:00:00:00:f0:0a" ;;
    fwd_rx) echo "net_memif1,role=server,$a,$b,mac=02:00:00:00:f0:1a" ;;
    fwd_tx) echo "net_memif2,role=$tx_role,$z,$b,mac=02:00:00:00:f0:1b" ;;
    receiver) echo "net_memif3,role=$rx_role,$z,$b,mac=02:00:00:00:f0:0b" ;;
  esac
}
perf_on() {  # perf_on TAG: records the forwarding core in the background when PERF_DIR is set
  [[ -n ${PERF_DIR:-} && $LAST == 1 ]] || return 0
  mkdir -p "$PERF_DIR"
  perf_cores_start "$WORK/$1.perf" "$FWD" $((T > 2 ? T - 1 : 1))
}
perf_off() {  # who had the forwarding core, then what the forwarder's process spent it on
  [[ -n ${PERF_DIR:-} && $LAST == 1 ]] || return 0
  perf_cores_report "$WORK/$1.perf" 20 >"$PERF_DIR/$1.txt" || true
}
# rate REC: "pps lost state" of the receiver in a record (or a failure)
rate() { jq -r '"\(.pps // 0) \(.lost // 0) \(.state)"' <<<"$1"; }
record() {  # the result record of a run's stdout, or a failed one with the error's last line
  local rec
  rec=$(grep '^{"event":"result"' "$1" | tail -n 1 || true)
  [[ -n $rec ]] || rec=$(jq -cn --arg e "$(tail -n 1 "$2" | tr ' ' '_')" '{state: ("Failed:" + $e)}')
  echo "$rec"
}
spiral_common() {
  echo --transport raw --seconds "$T" --warmup-seconds 1 --grace-ms 1000 --batch 32 --connect-timeout-ms 20000 \
    --master-core "$MAINC" --tx-cores "$TXC" --rx-cores "$RXC"
}
# spiral_run PAYLOAD WORK: spiral's own forwarder
spiral_run() {
  N=$((N + 1)) ROLES=spiral
  hugepages_on 1024
  perf_on "spiral-$1-$2"
  # shellcheck disable=SC2046
  SPIRAL_EAL_ARGS="${SPIRAL_EAL_ARGS:-} --huge-dir $HUGE_DIR" "$BIN" loopback $(spiral_common) --payload-bytes "$1" \
    --forward-work "$2" --forward-rx-cores "$FWD" --forward-tx-cores "$FWD" \
    --tx-port "$(port sender "$1")" --forward-rx-port "$(port fwd_rx "$1" ns)" \
    --forward-tx-port "$(port fwd_tx "$1" ns)" --rx-port "$(port receiver "$1")" >"$WORK/sp.out" 2>"$WORK/sp.err" || true
  perf_off "spiral-$1-$2"
  hugepages_off
  rate "$(record "$WORK/sp.out" "$WORK/sp.err")"
}
# testpmd_run PAYLOAD MODE: testpmd forwards, spiral's loopback sends and receives
testpmd_run() {
  N=$((N + 1)) ROLES=testpmd
  hugepages_on 1024
  local mbuf=2176 extra=() ns=()
  (($1 > 1900)) && mbuf=10368
  read -ra extra <<<"${TESTPMD_EAL_ARGS:-}"
  [[ $WIRE == afp ]] && ns=(ip netns exec "$NS_F")
  "${ns[@]}" "$TESTPMD" --lcores "0@$MAINC,1@$FWD" --file-prefix "fvt$$" --huge-dir "$HUGE_DIR" --socket-mem 256 \
    --no-pci --no-telemetry "${extra[@]}" --vdev "$(port fwd_rx "$1")" --vdev "$(port fwd_tx "$1")" -- \
    --forward-mode="$2" --burst=32 --rxd=1024 --txd=1024 --nb-cores=1 --auto-start --stats-period=1 \
    --total-num-mbufs=16384 --mbuf-size=$mbuf >"$WORK/tp.out" 2>&1 </dev/null &
  local pid=$!
  sleep 2
  perf_on "testpmd-$1-$2"
  # shellcheck disable=SC2046
  SPIRAL_EAL_ARGS="${SPIRAL_EAL_ARGS:-} --huge-dir $HUGE_DIR" "$BIN" loopback $(spiral_common) --payload-bytes "$1" \
    --tx-port "$(port sender "$1")" --rx-port "$(port receiver "$1")" >"$WORK/sp.out" 2>"$WORK/sp.err" || true
  perf_off "testpmd-$1-$2"
  kill -INT "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  rm -rf /var/run/dpdk/fvt$$
  hugepages_off
  rate "$(record "$WORK/sp.out" "$WORK/sp.err")"
}
median() { sort -k1,1g | awk '{ l[NR] = $0 } END { print l[int((NR + 1) / 2)] }'; }
every() { awk '{ printf "%s%.3f", (NR > 1 ? " " : ""), $1 / 1e6 }'; }

[[ $WIRE == afp ]] && wires
echo "## forward mode vs dpdk-testpmd over $WIRE: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs))," \
  "$(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg), ${T} s cells, median of $REPEATS alternating runs, $(date -u +%FT%TZ)"
echo
echo "cores: sender $TXC, receiver $RXC, forwarder $FWD, main threads $MAINC; testpmd: $(command -v "$TESTPMD")"
echo
echo "| payload B | forwarder | RX Mpps (median) | lost (median run) | spiral / testpmd | RX Mpps of every run |"
echo "|---|---|---|---|---|---|"
for payload in $SIZES; do
  for pair in "none io" "cpu macswap"; do
    read -r work mode <<<"$pair"
    : >"$WORK/ours" && : >"$WORK/theirs"
    for ((i = 1; i <= REPEATS; i++)); do
      LAST=$((i == REPEATS))
      spiral_run "$payload" "$work" >>"$WORK/ours"
      testpmd_run "$payload" "$mode" >>"$WORK/theirs"
    done
    read -r o o_lost o_state <<<"$(median <"$WORK/ours")"
    read -r t t_lost t_state <<<"$(median <"$WORK/theirs")"
    ratio=$(awk -v o="$o" -v t="$t" 'BEGIN { if (t > 0) printf "%.2f", o / t; else print "-" }')
    printf '| %s | spiral %s (%s) | %.3f | %s | %s | %s |\n' "$payload" "$work" "$o_state" "$(awk -v p="$o" 'BEGIN { print p / 1e6 }')" \
      "$o_lost" "$ratio" "$(every <"$WORK/ours")"
    printf '| %s | testpmd %s (%s) | %.3f | %s | | %s |\n' "$payload" "$mode" "$t_state" "$(awk -v p="$t" 'BEGIN { print p / 1e6 }')" \
      "$t_lost" "$(every <"$WORK/theirs")"
  done
done
echo
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
