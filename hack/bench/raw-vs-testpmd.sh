#!/usr/bin/env bash
# Benchmark (not a test): dpdk-testpmd txonly -> rxonly and spiral-dataplane's raw loopback side
# by side, over the same DPDK virtual devices:
#   memif   a net_memif pair (shared memory): the in-memory ceiling
#   afp     net_af_packet on a veth wire between two namespaces (MTU 9000)
#   afxdp   net_af_xdp on a veth wire at MTU 1500 (veth refuses XDP above ~3.5 KB: no 8000 B)
# at UDP payloads of 64, 1024 and 8000 B (frames of payload + 42 B for both tools), then
# spiral's (TX,RX) queue matrix. testpmd runs as two processes (TX on one core, RX on the
# other); spiral as one process with its TX and RX poll-mode threads on the same two cores.
# Burst 32, 1024 descriptors. Both tools run with --no-huge, except over memif, where two testpmd
# processes move nothing without hugepages (seen with DPDK 22.11): for memif cells the script
# mounts its own hugetlbfs and adds HUGEPAGES pages to vm.nr_hugepages for each run of either
# tool, and takes them away right after (the setting is host-wide). Each cell runs REPEATS times, the tools
# alternating; the run with the median RX rate is shown (the dev VM is shared and noisy).
# Prints a Markdown table: Mpps TX/RX, Gb/s (L2 frames at RX), drops, CPU busy % of the TX and RX
# cores, and spiral's RX pps over testpmd's.
#
# Usage: hack/bench/raw-vs-testpmd.sh [spiral-dataplane binary]
# Environment: CELL_SECONDS=5 SIZES="64 1024 8000" DEVICES="memif afp afxdp" MATRIX=1
#   MATRIX_SIZES="64 1024" MATRIX_DEVICES="memif afp"
#   REPEATS=3 TX_CORE=0 RX_CORE=1 TESTPMD=dpdk-testpmd HUGEPAGES=512
#   TX_CORES_MQ/RX_CORES_MQ: the cores of 2-queue cells (default: the two cores, shared)
#   SBW_NS_A/SBW_NS_B (default sbrb-a/sbrb-b: the bench's own wire, removed at exit)
# Needs root, dpdk-testpmd (Debian package dpdk), jq, iproute2 and a spiral-dataplane built with DPDK.
# TESTPMD_EAL_ARGS / SPIRAL_EAL_ARGS: extra EAL arguments for each tool (e.g. "-d DIR" when DPDK's
# plugins are not in Debian's place).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BIN=${1:-$ROOT/build/dataplane/spiral-dataplane}
T=${CELL_SECONDS:-5}
SIZES=${SIZES:-64 1024 8000}
DEVICES=${DEVICES:-memif afp afxdp}
MATRIX=${MATRIX:-1}
REPEATS=${REPEATS:-3}
TXC=${TX_CORE:-0} RXC=${RX_CORE:-1}
TESTPMD=${TESTPMD:-dpdk-testpmd}
export SBW_NS_A=${SBW_NS_A:-sbrb-a} SBW_NS_B=${SBW_NS_B:-sbrb-b} SBW_IF_A=${SBW_IF_A:-sbrb-a0} SBW_IF_B=${SBW_IF_B:-sbrb-b0}
NS_A=$SBW_NS_A NS_B=$SBW_NS_B IF_A=$SBW_IF_A IF_B=$SBW_IF_B
WORK=$(mktemp -d)
WIRE_MTU=
HUGE_DIR=$WORK/huge HUGE_ADDED=0

[[ $(id -u) == 0 ]] || { echo "needs root (network namespaces, DPDK)" >&2; exit 1; }
for tool in "$TESTPMD" jq ip awk; do command -v "$tool" >/dev/null || { echo "missing $tool (hack/deps-dataplane.sh)" >&2; exit 1; }; done
[[ -x $BIN ]] || { echo "no spiral-dataplane at $BIN (make dataplane)" >&2; exit 1; }

PIDS=()
cleanup() {
  local p
  for p in "${PIDS[@]}"; do kill -INT "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  [[ -z $WIRE_MTU ]] || "$ROOT/hack/netns-wire.sh" down
  hugepages_off
  rmdir /var/run/dpdk/tp{rx,tx}$$ 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# shellcheck source=hack/lib/hugepages.sh
source "$ROOT/hack/lib/hugepages.sh"

wire() {  # the veth wire at MTU $1 (made anew when the MTU changes)
  [[ $WIRE_MTU == "$1" ]] && return
  "$ROOT/hack/netns-wire.sh" down
  "$ROOT/hack/netns-wire.sh" up "$1" >/dev/null
  WIRE_MTU=$1
}

# busy % of one core between two /proc/stat snapshots
cpu_busy() {
  awk -v want="cpu$3" 'FNR == 1 { f++ }
    $1 == want { busy = $2 + $3 + $4 + $7 + $8 + $9; total = busy + $5 + $6; b[f] = busy; t[f] = total }
    END { if (t[2] > t[1]) printf "%.0f", 100 * (b[2] - b[1]) / (t[2] - t[1]); else printf "-" }' "$1" "$2"
}

# vdev strings: vdev DEVICE SIDE(tx|rx) PAYLOAD [QUEUES]
vdev() {
  local dev=$1 side=$2 payload=$3 q=${4:-1} n=0 ifc=$IF_A ns=$NS_A
  [[ $side == rx ]] && { n=1 ifc=$IF_B ns=$NS_B; }
  case $dev in
    memif)
      local role=client bsize=2048
      [[ $side == rx ]] && role=server
      ((payload > 1900)) && bsize=10240
      echo "net_memif$n,role=$role,socket=$WORK/memif-$payload-$q.sock,bsize=$bsize,rsize=11" ;;
    afp)
      local fs="blocksz=4096,framesz=2048,framecnt=2048"
      ((payload > 1900)) && fs="blocksz=20480,framesz=10240,framecnt=1024"
      echo "net_af_packet$n,iface=$ifc,qpairs=$q,$fs,qdisc_bypass=1" ;;
    afxdp) echo "net_af_xdp$n,iface=$ifc,start_queue=0,queue_count=$q" ;;
  esac
}
netns_of() { [[ $1 == memif ]] && return; [[ $2 == tx ]] && echo "$NS_A" || echo "$NS_B"; }
in_ns() { local ns=$1; shift; if [[ -n $ns ]]; then ip netns exec "$ns" "$@"; else "$@"; fi; }

# median of testpmd's non-zero 1 s samples of "Tx-pps:"/"Rx-pps:", without the first and last
# (ramp-up, partial second) when there are more than three
median_sample() {
  grep -o "$2-pps: *[0-9]*" "$1" | awk '$2 > 0 { v[++n] = $2 }
    END { if (!n) { print 0; exit } lo = 1; hi = n; if (n > 3) { lo = 2; hi = n - 1 }
          m = 0; for (i = lo; i <= hi; i++) w[++m] = v[i]
          for (i = 2; i <= m; i++) { x = w[i]; for (j = i - 1; j >= 1 && w[j] > x; j--) w[j + 1] = w[j]; w[j + 1] = x }
          print w[int((m + 1) / 2)] }'
}
# the packets of testpmd's "Accumulated forward statistics" at exit
accumulated() {
  awk -v key="$2-packets:" '/Accumulated forward statistics/ { f = 1 } f && $1 == key { v = $2 } END { print v + 0 }' "$1"
}

# testpmd DEVICE PAYLOAD: writes "tx_pps rx_pps tx_total rx_total cpu_tx% cpu_rx%" to $WORK/tp-DEVICE-PAYLOAD.res
testpmd_cell() {
  local dev=$1 payload=$2 frame=$(($2 + 42)) mbuf=2176 tag="$WORK/tp-$1-$2"
  ((frame > 1900)) && mbuf=10368
  local extra=()
  read -ra extra <<<"${TESTPMD_EAL_ARGS:-}"
  local common=(--no-pci --no-telemetry --no-huge -m 512 "${extra[@]}")
  [[ $dev != memif ]] || { hugepages_on; common=(--no-pci --no-telemetry --socket-mem 256 --huge-dir "$HUGE_DIR" "${extra[@]}"); }
  local opts=(--stats-period=1 --total-num-mbufs=16384 --mbuf-size=$mbuf --burst=32 --rxd=1024 --txd=1024)
  local peer=()
  [[ $dev == memif ]] || peer=(--eth-peer="0,$(ip netns exec "$NS_B" cat /sys/class/net/"$IF_B"/address)")
  in_ns "$(netns_of "$dev" rx)" timeout -s INT $((T + 6)) "$TESTPMD" --lcores "0@$RXC,1@$RXC" "${common[@]}" \
    --file-prefix "tprx$$" --vdev="$(vdev "$dev" rx "$payload")" -- --forward-mode=rxonly "${opts[@]}" \
    >"$tag-rx.log" 2>&1 &
  local rx=$!
  PIDS+=("$rx")
  sleep 2.5
  cat /proc/stat >"$tag-cpu0"
  in_ns "$(netns_of "$dev" tx)" timeout -s INT "$T" "$TESTPMD" --lcores "0@$TXC,1@$TXC" "${common[@]}" \
    --file-prefix "tptx$$" --vdev="$(vdev "$dev" tx "$payload")" -- --forward-mode=txonly "${opts[@]}" "${peer[@]}" \
    --tx-ip=198.18.0.1,198.18.0.2 --txpkts="$frame" >"$tag-tx.log" 2>&1 || true
  cat /proc/stat >"$tag-cpu1"
  sleep 1
  kill -INT "$rx" 2>/dev/null || true
  wait "$rx" 2>/dev/null || true
  rm -rf /var/run/dpdk/tprx$$ /var/run/dpdk/tptx$$
  [[ $dev != memif ]] || hugepages_off
  echo -n "$(median_sample "$tag-tx.log" Tx) $(median_sample "$tag-rx.log" Rx) "
  echo -n "$(accumulated "$tag-tx.log" TX) $(accumulated "$tag-rx.log" RX) "
  echo "$(cpu_busy "$tag-cpu0" "$tag-cpu1" "$TXC") $(cpu_busy "$tag-cpu0" "$tag-cpu1" "$RXC")"
} >"$WORK/tp-$1-$2.res"

# spiral DEVICE PAYLOAD TXQ RXQ -> its JSON record in $WORK/sp-...json
spiral_cell() {
  local dev=$1 payload=$2 tq=${3:-1} rq=${4:-1} q out="$WORK/sp-$1-$2-$3$4.json"
  q=$((tq > rq ? tq : rq))
  local tx rx ns_tx ns_rx
  ns_tx=$(netns_of "$dev" tx) ns_rx=$(netns_of "$dev" rx)
  tx=$(vdev "$dev" tx "$payload" "$q")${ns_tx:+,netns=$ns_tx}
  rx=$(vdev "$dev" rx "$payload" "$q")${ns_rx:+,netns=$ns_rx}
  local txc=$TXC rxc=$RXC
  ((tq > 1)) && txc=${TX_CORES_MQ:-$TXC,$RXC}
  ((rq > 1)) && rxc=${RX_CORES_MQ:-$RXC,$TXC}
  local memory=(--no-huge)
  [[ $dev != memif ]] || { hugepages_on; memory=(); }  # like testpmd there: hugepages
  "$BIN" loopback --transport raw "${memory[@]}" --tx-port "$tx" --rx-port "$rx" --tx-queues "$tq" --rx-queues "$rq" \
    --payload-bytes "$payload" --batch 32 --seconds "$T" --warmup-seconds 1 --tx-cores "$txc" --rx-cores "$rxc" \
    --master-core "$TXC" >"$out" 2>"$out.err" || true
  [[ $dev != memif ]] || hugepages_off
  grep '^{"event":"result"' "$out" | tail -1 >"$out.rec" || true
  echo "$out.rec"
}

row() { printf '| %s |\n' "$(IFS='|'; echo "$*" | sed 's/|/ | /g')"; }
mpps() { awk -v p="$1" 'BEGIN { printf "%.3f", p / 1e6 }'; }
gbps() { awk -v p="$1" -v f="$2" 'BEGIN { printf "%.2f", p * f * 8 / 1e9 }'; }

# spiral_line REC: "tx_pps rx_pps drops(kind) cpu_tx cpu_rx state" from a record, or a failure
spiral_line() {
  if [[ -s $1 ]]; then
    jq -r '"\((.tx_packets * 1000 / (.seconds_milli | if . > 0 then . else 1 end)) | floor) \(.pps) \(.drops)(\(.drops_kind)) \(.cpu_tx_mpct / 1000 | round) \(.cpu_rx_mpct / 1000 | round) \(.state)"' "$1"
  else
    echo "0 0 failed - - Failed:$(tail -n 1 "${1%.rec}.err" | tr ' ' '_')"
  fi
}

# median_row FILE DEVICE PAYLOAD TOOL: the run with the median RX pps of FILE's lines
median_row() {
  sort -k2,2n "$1" | awk -v dev="$2" -v payload="$3" -v tool="$4" '
    { line[NR] = $0; rx[NR] = $2 }
    END { split(line[int((NR + 1) / 2)], r, " "); frame = payload + 42; state = r[6]; gsub("_", " ", state)
          all = ""; for (i = 1; i <= NR; i++) all = all sprintf("%s%.3f", i > 1 ? " " : "", rx[i] / 1e6)
          printf "| %s | %s | %s (%s) | %.3f | %.3f | %.2f | %s | %s | %s | %s |\n", dev, payload, tool, state,
                 r[1] / 1e6, r[2] / 1e6, r[2] * frame * 8 / 1e9, r[3], r[4], r[5], all }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "-" }'; }
best_pps() { sort -k2,2n "$1" | tail -n 1 | cut -d' ' -f2; }
median_pps() { sort -k2,2n "$1" | awk '{ a[NR] = $2 } END { print a[int((NR + 1) / 2)] }'; }

echo "## raw vs testpmd: $(nproc) cores, $(uname -r), load $(cut -d' ' -f1 /proc/loadavg), ${T} s cells, ${REPEATS} runs each, $(date -u +%FT%TZ)"
echo
row "device" "payload B" "tool (state)" "TX Mpps" "RX Mpps" "RX Gb/s" "drops" "CPU TX %" "CPU RX %" "RX Mpps of every run"
row "---" "---" "---" "---" "---" "---" "---" "---" "---" "---"
ratios=()
for dev in $DEVICES; do
  case $dev in afp) wire 9000 ;; afxdp) wire 1500 ;; esac
  for payload in $SIZES; do
    if [[ $dev == afxdp ]] && ((payload > 1458)); then
      row "$dev" "$payload" "both" "n/a: veth refuses XDP at the MTU a $((payload + 42))-byte frame needs" "" "" "" "" "" ""
      continue
    fi
    : >"$WORK/tp.runs"
    : >"$WORK/sp.runs"
    for ((rep = 0; rep < REPEATS; rep++)); do
      [[ $dev != afxdp ]] || { ip -n "$NS_A" link set "$IF_A" xdp off; ip -n "$NS_B" link set "$IF_B" xdp off; }
      testpmd_cell "$dev" "$payload"
      read -r tx rx txt rxt ctx crx <"$WORK/tp-$dev-$payload.res"
      echo "$tx $rx $((txt - rxt))(TX-RX) $ctx $crx -" >>"$WORK/tp.runs"
      [[ $dev != afxdp ]] || { ip -n "$NS_A" link set "$IF_A" xdp off; ip -n "$NS_B" link set "$IF_B" xdp off; }
      spiral_line "$(spiral_cell "$dev" "$payload" 1 1)" >>"$WORK/sp.runs"
    done
    median_row "$WORK/tp.runs" "$dev" "$payload" testpmd
    median_row "$WORK/sp.runs" "$dev" "$payload" spiral
    ratios+=("$dev $payload $(ratio "$(median_pps "$WORK/sp.runs")" "$(median_pps "$WORK/tp.runs")") $(ratio \
      "$(best_pps "$WORK/sp.runs")" "$(best_pps "$WORK/tp.runs")")")
  done
done
echo
echo "spiral's RX packets/s over testpmd's, median run and best run (target >= 0.95):"
echo
row "device" "payload B" "median / median" "best / best"
row "---" "---" "---" "---"
for r in "${ratios[@]}"; do row $r; done

if [[ $MATRIX == 1 ]]; then
  echo
  echo "### spiral (TX,RX) queue matrix ($T s, one run each; 2 TX queues on ${TX_CORES_MQ:-$TXC,$RXC}, 2 RX queues on ${RX_CORES_MQ:-$RXC,$TXC})"
  echo
  row "device" "payload B" "(TX,RX)" "RX Mpps" "RX Gb/s" "drops" "per RX queue" "state"
  row "---" "---" "---" "---" "---" "---" "---" "---"
  for dev in ${MATRIX_DEVICES:-memif afp}; do
    [[ $dev == afp ]] && wire 9000
    for payload in ${MATRIX_SIZES:-64 1024}; do
      for cell in "1 1" "1 2" "2 1" "2 2"; do
        read -r tq rq <<<"$cell"
        rec=$(spiral_cell "$dev" "$payload" "$tq" "$rq")
        [[ -s $rec ]] || { row "$dev" "$payload" "($tq,$rq)" "failed" "" "" "" "$(tail -1 "${rec%.rec}.err")"; continue; }
        row "$dev" "$payload" "($tq,$rq)" "$(mpps "$(jq .pps "$rec")")" "$(gbps "$(jq .pps "$rec")" $((payload + 42)))" \
          "$(jq -r '"\(.drops) (\(.drops_kind))"' "$rec")" "$(jq -c .raw.rx_queue_packets "$rec")" "$(jq -r .state "$rec")"
      done
    done
  done
fi
