#!/usr/bin/env bash
# Benchmark (not a test): iperf3 and spiral-dataplane side by side on the same veth wire.
#   TCP 1/2/4 pairs x 8000 B and 1 MiB messages;
#   UDP 1/2/4 pairs x 8000 B and 1000 B datagrams: unpaced, both tools paced at 90 % of iperf3's
#   unpaced goodput, spiral paced at 90 % of its own unpaced goodput, and spiral with GSO/GRO.
# iperf3 3.12 is single-threaded, so N pairs are N iperf3 client/server processes on N ports.
# Prints a Markdown table (Gb/s at the receiver, loss, CPU busy % of the TX and RX cores, ratio)
# and the targets. Needs root (namespaces), iperf3, jq and a built spiral-dataplane.
#
# Usage: hack/bench/sockets-vs-iperf3.sh [spiral-dataplane binary]
# Environment: CELL_SECONDS=4 WARMUP_SECONDS=1 PAIRS="1 2 4" MTU=9000
#   REPEATS=1 (each cell this many times per tool; the run with the median Gb/s is shown)
#   TCP_SIZES="8000 1048576" UDP_SIZES="8000 1000" UDP_PACED=1: the cells (an empty list skips the
#   protocol; UDP_PACED=0 leaves out the paced rows)
#   TX_CORES/RX_CORES (comma lists; default: one core per pair when there are enough, else 0 and 1)
#   SBW_NS_A/SBW_NS_B (default sbwb-a/sbwb-b: the bench's own wire, removed at exit)
#   UDP_GSO=1 (0 leaves out spiral's GSO/GRO rows), SPIRAL_ARGS (extra arguments for both spiral
#   sides, e.g. "--batch 32" or "--socket-buffer-bytes 1048576", to try a setting)
#   PERF_DIR=DIR: during the last run of each tool in each unpaced UDP cell, perf record -C of the
#   TX and RX cores from the end of the warm-up for CELL_SECONDS-1 s (perf_cores_start in lib.sh),
#   and one snapshot mid-run of both sides' UDP sockets (ss -uamn: skmem, so send/receive buffer
#   sizes and drops) and of the tools' threads and their cores; DIR/<tool>-udp-<bytes>-x<pairs>.txt
#   gets that run's result, the top symbols of the TX cores and of the RX cores, and the snapshot.
#   Both tools are pinned alike: pair i's sender on TX_CORES[i], its receiver on RX_CORES[i]
#   (iperf3 -A, spiral --tx-cores/--rx-cores); the snapshot shows where their threads ran.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BIN=${1:-$ROOT/build/dataplane/spiral-dataplane}
T=${CELL_SECONDS:-4}
W=${WARMUP_SECONDS:-1}
PAIRS=${PAIRS:-1 2 4}
REPEATS=${REPEATS:-1}
MTU=${MTU:-9000}
export SBW_NS_A=${SBW_NS_A:-sbwb-a} SBW_NS_B=${SBW_NS_B:-sbwb-b}
IP_B=${SBW_IP_B:-10.77.0.2}
NS_A=$SBW_NS_A NS_B=$SBW_NS_B
WORK=$(mktemp -d)

[[ $(id -u) == 0 ]] || { echo "needs root (network namespaces)" >&2; exit 1; }
for tool in iperf3 jq ip; do command -v $tool >/dev/null || { echo "missing $tool (hack/deps-dataplane.sh)" >&2; exit 1; }; done
[[ -x $BIN ]] || { echo "no spiral-dataplane at $BIN (make dataplane)" >&2; exit 1; }

# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
cleanup() {
  kill_descendants
  "$ROOT/hack/netns-wire.sh" down
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM  # run the EXIT trap when interrupted
"$ROOT/hack/netns-wire.sh" up "$MTU" >/dev/null

max_pairs=$(tr ' ' '\n' <<<"$PAIRS" | sort -n | tail -1)
ncpu=$(nproc)
if [[ -z ${TX_CORES:-} ]]; then
  if ((ncpu >= 2 * max_pairs + 2)); then  # leave core 0 and 1 to the system and the masters
    TX_CORES=$(seq -s, 2 $((1 + max_pairs)))
    RX_CORES=$(seq -s, $((2 + max_pairs)) $((1 + 2 * max_pairs)))
  else
    TX_CORES=0 RX_CORES=1
  fi
fi
IFS=, read -ra TXC <<<"$TX_CORES"
IFS=, read -ra RXC <<<"$RX_CORES"
core_of() { local -n list=$1; echo "${list[$(($2 % ${#list[@]}))]}"; }
cores_used() { local -n list=$1; local i; for ((i = 0; i < $2; i++)); do echo "${list[$((i % ${#list[@]}))]}"; done | sort -un | tr '\n' ' '; }
read -ra SPIRAL_EXTRA <<<"${SPIRAL_ARGS:-}"

# profile_on PAIRS / profile_off PAIRS: PERF_DIR's recording of the run median_of marks with
# PROFILE_TAG (see Environment); the recording starts half a second after the warm-up.
profile_on() {
  [[ -n ${PERF_DIR:-} && -n ${PROFILE_TAG:-} ]] || return 0
  mkdir -p "$PERF_DIR"
  local cores
  cores=$(echo $(cores_used TXC "$1") $(cores_used RXC "$1") | tr ' ' ,)
  perf_cores_start "$WORK/run.perf" "$cores" $((T > 2 ? T - 1 : 1)) "$(awk -v w="$W" 'BEGIN { print w + 0.5 }')"
  {
    sleep "$(awk -v w="$W" -v t="$T" 'BEGIN { print w + t / 2 }')"
    echo "## $NS_A (senders): ss -uamn"; ip netns exec "$NS_A" ss -uamn
    echo "## $NS_B (receivers): ss -uamn"; ip netns exec "$NS_B" ss -uamn
    echo "## threads: tid, core last run on, %cpu, name"
    ps -eLo pid,tid,psr,pcpu,comm,args | awk 'NR == 1 || /iperf3|spiral-dataplane/' | grep -v awk | cut -c1-150
  } >"$WORK/snap" 2>&1 &
  SNAP_PID=$!
}
profile_off() {
  [[ -n ${PERF_DIR:-} && -n ${PROFILE_TAG:-} ]] || return 0
  local tx rx
  tx=$(echo $(cores_used TXC "$1") | tr ' ' ,) rx=$(echo $(cores_used RXC "$1") | tr ' ' ,)
  wait "$SNAP_PID" 2>/dev/null || true
  {
    echo "## TX cores $tx: perf record -e ${PERF_EVENT:-cpu-clock} -C $tx,$rx, $((T > 2 ? T - 1 : 1)) s after the warm-up"
    perf_cores_report "$WORK/run.perf" 25 "$tx"
    echo; echo "## RX cores $rx"
    perf_cores_report "$WORK/run.perf" 25 "$rx"
    echo; cat "$WORK/snap"
  } >"$PERF_DIR/$PROFILE_TAG.txt" || true
}

# busy % of the given cores between two /proc/stat snapshots (mean over the cores)
cpu_busy() {
  awk -v cores="$3" 'BEGIN { n = split(cores, c, " "); for (i = 1; i <= n; i++) want["cpu" c[i]] = 1 }
    FNR == 1 { f++ }
    ($1 in want) { busy = $2 + $3 + $4 + $7 + $8 + $9; total = busy + $5 + $6
                   if (f == 1) { b0[$1] = busy; t0[$1] = total } else { b1[$1] = busy; t1[$1] = total } }
    END { s = 0; k = 0; for (x in want) if ((x in t1) && t1[x] > t0[x]) { s += 100 * (b1[x] - b0[x]) / (t1[x] - t0[x]); k++ }
          if (k) printf "%.0f", s / k; else printf "-" }' "$1" "$2"
}

wait_listening() {  # ns port
  local _
  for _ in $(seq 200); do
    ip netns exec "$1" ss -Hltn "sport = :$2" | grep -q . && return 0
    sleep 0.025
  done
  echo "iperf3 server on port $2 never listened" >&2
  return 1
}

# iperf3 cell: N client/server process pairs. Prints "gbps loss_pct cpu_tx cpu_rx".
run_iperf3() {  # proto bytes pairs rate_mbps(0 = unpaced; udp only)
  local proto=$1 bytes=$2 n=$3 rate=$4 i port clients=()
  local opts=(-t "$T" -O "$W" -l "$bytes" -J)  # -t counts after the omitted warm-up
  if [[ $proto == udp ]]; then
    opts+=(-u -b "$([[ $rate == 0 ]] && echo 0 || echo "$((rate / n))M")")  # -b is per process
  fi
  for ((i = 0; i < n; i++)); do
    port=$((5301 + i))
    ip netns exec "$NS_B" iperf3 -s -1 -p $port -A "$(core_of RXC $i)" >/dev/null 2>&1 &
  done
  for ((i = 0; i < n; i++)); do wait_listening "$NS_B" $((5301 + i)); done
  profile_on "$n"
  cat /proc/stat >"$WORK/cpu0"
  for ((i = 0; i < n; i++)); do
    ip netns exec "$NS_A" iperf3 -c "$IP_B" -p $((5301 + i)) -A "$(core_of TXC $i)" "${opts[@]}" >"$WORK/iperf3.$i.json" &
    clients+=($!)
  done
  wait "${clients[@]}" || true
  cat /proc/stat >"$WORK/cpu1"
  wait  # the servers
  profile_off "$n"
  local cpu_tx cpu_rx
  cpu_tx=$(cpu_busy "$WORK/cpu0" "$WORK/cpu1" "$(cores_used TXC "$n")")
  cpu_rx=$(cpu_busy "$WORK/cpu0" "$WORK/cpu1" "$(cores_used RXC "$n")")
  if [[ $proto == tcp ]]; then
    jq -s '[ (map(.end.sum_received.bits_per_second) | add / 1e9), 0 ] | @tsv' -r "$WORK"/iperf3.*.json
  else
    jq -s '[ (map(.end.sum_received.bits_per_second) | add / 1e9),
             ((map(.end.sum_received.lost_packets) | add) * 100 / ((map(.end.sum_received.packets) | add) + 0.0001)) ] | @tsv' \
      -r "$WORK"/iperf3.*.json
  fi | { read -r g l; printf "%.2f %.3f %s %s\n" "$g" "$l" "$cpu_tx" "$cpu_rx"; }
  rm -f "$WORK"/iperf3.*.json
}

# spiral cell. Prints "gbps loss_pct cpu_tx cpu_rx state" (loss: udp lost %, tcp 0).
run_spiral() {  # proto bytes pairs rate_mbps extra-args...
  local proto=$1 bytes=$2 n=$3 rate=$4
  shift 4
  local args=(--transport "$proto" --payload-bytes "$bytes" --pairs "$n" --seconds "$T" --warmup-seconds "$W"
              --base-port 6201 --tx-cores "$TX_CORES" --rx-cores "$RX_CORES" --grace-ms 1000)
  [[ $proto == udp ]] && args+=(--target-mbps "$rate")
  args+=("${SPIRAL_EXTRA[@]}")
  ip netns exec "$NS_B" "$BIN" server "${args[@]}" --bind-address "$IP_B" "$@" >"$WORK/server.out" 2>&1 &
  local server=$!
  profile_on "$n"
  cat /proc/stat >"$WORK/cpu0"
  ip netns exec "$NS_A" "$BIN" client "${args[@]}" --server-address "$IP_B" "$@" >"$WORK/client.out" 2>"$WORK/client.err" || true
  cat /proc/stat >"$WORK/cpu1"
  wait $server || true
  profile_off "$n"
  local cpu_tx cpu_rx
  cpu_tx=$(cpu_busy "$WORK/cpu0" "$WORK/cpu1" "$(cores_used TXC "$n")")
  cpu_rx=$(cpu_busy "$WORK/cpu0" "$WORK/cpu1" "$(cores_used RXC "$n")")
  grep '^{"event":"result"' "$WORK/client.out" | tail -1 |
    jq -r --arg tx "$cpu_tx" --arg rx "$cpu_rx" \
      '"\(.rx_gbps * 100 | round / 100) \(if .transport == "udp" then .loss_ppm / 10000 else 0 end) \($tx) \($rx) \(.state)"'
}

# median_of FUNCTION ARGS...: runs it REPEATS times, prints the output line with the median Gb/s.
# With PERF_TAG set (and PERF_DIR) the last run is profiled into $PERF_DIR/$PERF_TAG.txt.
median_of() {
  local i line
  for ((i = 0; i < REPEATS; i++)); do
    if ((i == REPEATS - 1)) && [[ -n ${PERF_DIR:-} && -n ${PERF_TAG:-} ]]; then
      line=$(PROFILE_TAG=$PERF_TAG "$@")
      echo "$line"
      sed -i "1i # $PERF_TAG, the profiled run: $line (Gb/s, loss %, busy % TX, RX cores)" "$PERF_DIR/$PERF_TAG.txt" 2>/dev/null || true
    else
      "$@"
    fi
  done | sort -g -k1,1 | sed -n "$(((REPEATS + 1) / 2))p"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "-" }'; }
row() { printf "| %-40s | %7s | %7s | %7s | %7s | %7s | %7s | %5s |\n" "$@"; }

echo "# sockets-vs-iperf3 on $(hostname): $(nproc) cores ($(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)), kernel $(uname -r)"
echo "# $(iperf3 --version | head -1 | cut -d' ' -f1-2), spiral-dataplane $("$BIN" --version), veth MTU $MTU, ${T} s cells after ${W} s warm-up"
echo "# TX cores $TX_CORES, RX cores $RX_CORES; median of $REPEATS run(s) per cell; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
[[ -n ${SPIRAL_ARGS:-} ]] && echo "# spiral's extra arguments (SPIRAL_ARGS): $SPIRAL_ARGS"
[[ -n ${PERF_DIR:-} ]] && echo "# PERF_DIR: the last run of each tool in each unpaced UDP cell was profiled (perf record), in $PERF_DIR"
echo "# Gb/s at the receiver; loss: UDP datagrams lost %, CPU: busy % of the TX / RX cores over the run"
echo
row "cell" "iperf3" "loss %" "cpu t/r" "spiral" "loss %" "cpu t/r" "ratio"
row "---" "---:" "---:" "---:" "---:" "---:" "---:" "---:"
declare -A TCP_RATIO UDP_RATIO UDP_LOSS_OK PACED_OK
for bytes in ${TCP_SIZES-8000 1048576}; do
  for n in $PAIRS; do
    read -r ig il itx irx <<<"$(median_of run_iperf3 tcp $bytes $n 0)"
    read -r sg sl stx srx state <<<"$(median_of run_spiral tcp $bytes $n 0)"
    label="tcp $([[ $bytes == 1048576 ]] && echo 1MiB || echo ${bytes}B) x$n"
    row "$label" "$ig" "-" "$itx/$irx" "$sg" "-" "$stx/$srx" "$(ratio "$sg" "$ig")"
    TCP_RATIO["$label"]=$(ratio "$sg" "$ig")
    [[ $state == Valid ]] || echo "  ($label: spiral state $state)"
  done
done
for bytes in ${UDP_SIZES-8000 1000}; do
  for n in $PAIRS; do
    label="udp ${bytes}B x$n"
    read -r ig il itx irx <<<"$(PERF_TAG=iperf3-udp-$bytes-x$n median_of run_iperf3 udp $bytes $n 0)"
    read -r sg sl stx srx state <<<"$(PERF_TAG=spiral-udp-$bytes-x$n median_of run_spiral udp $bytes $n 0)"
    row "$label unpaced" "$ig" "$il" "$itx/$irx" "$sg" "$sl" "$stx/$srx" "$(ratio "$sg" "$ig")"
    UDP_RATIO["$label"]=$(ratio "$sg" "$ig")
    UDP_LOSS_OK["$label"]=$(awk -v s="$sl" -v i="$il" 'BEGIN { print (s != "" && s <= i) ? "yes" : "no" }')
    [[ $state == Valid ]] || echo "  ($label: spiral state ${state:-missing: the run left no result record})"
    if [[ ${UDP_GSO:-1} == 1 ]]; then
      read -r gg gl gtx grx gstate <<<"$(median_of run_spiral udp $bytes $n 0 --udp-gso --udp-gro)"
      row "$label unpaced, spiral GSO/GRO" "" "" "" "$gg" "$gl" "$gtx/$grx" "$(ratio "$gg" "$ig")"
    fi
    [[ ${UDP_PACED:-1} == 1 ]] || continue
    rate=$(awk -v g="$ig" 'BEGIN { printf "%d", g * 900 }')  # 90 % of iperf3's goodput, Mb/s
    if ((rate > 0)); then
      read -r pg pl ptx prx <<<"$(median_of run_iperf3 udp $bytes $n "$rate")"
      read -r qg ql qtx qrx qstate <<<"$(median_of run_spiral udp $bytes $n "$rate")"
      row "$label @ ${rate} Mb/s (90% iperf3)" "$pg" "$pl" "$ptx/$prx" "$qg" "$ql" "$qtx/$qrx" "$(ratio "$qg" "$pg")"
    fi
    own=$(awk -v g="$sg" 'BEGIN { printf "%d", g * 900 }')  # 90 % of spiral's own goodput
    read -r og ol otx orx ostate <<<"$(median_of run_spiral udp $bytes $n "$own")"
    row "$label @ ${own} Mb/s (90% spiral)" "" "" "" "$og" "$ol" "$otx/$orx" ""
    PACED_OK["$label"]="$ol% loss, $ostate"
  done
done
echo
echo "Targets:"
for k in "${!TCP_RATIO[@]}"; do echo "  TCP $k: spiral/iperf3 = ${TCP_RATIO[$k]} (target >= 1.0)"; done | sort
for k in "${!UDP_RATIO[@]}"; do
  [[ $k == *8000B* ]] && echo "  UDP $k unpaced: goodput ratio ${UDP_RATIO[$k]} (target >= 1.5), loss no higher than iperf3: ${UDP_LOSS_OK[$k]}"
done | sort
for k in "${!PACED_OK[@]}"; do echo "  UDP $k paced at 90% of spiral's unpaced goodput: ${PACED_OK[$k]} (target 0 loss)"; done | sort
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
