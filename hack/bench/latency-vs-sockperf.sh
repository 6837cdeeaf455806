#!/usr/bin/env bash
# Benchmark (not a test): spiral-dataplane's latency mode (ping-pong) against sockperf ping-pong
# and qperf tcp_lat / udp_lat on one veth wire between two network namespaces, TCP and UDP, the
# same message sizes, the client and the server each pinned to its own core. Runs alternate
# between the tools (the first tool rotates every repeat); each figure is the median over REPEATS.
#   blocking: spiral --wait blocking, sockperf's default (epoll), qperf (blocking recv)
#   spin:     spiral --wait spin, sockperf --nonblocked (both poll recv, never sleep); qperf has none
# Latency is one way: half the round trip, as all three report it. spiral and sockperf give the
# median (p50) and p99; qperf gives only the mean. Ratio = spiral p50 / reference (target <= 1.1).
#
# Usage: hack/bench/latency-vs-sockperf.sh [spiral-dataplane binary]
# Environment: SIZES="64 1024 8000" TRANSPORTS="tcp udp" WAITS="blocking spin" CELL_SECONDS=3
#   WARMUP_SECONDS=0.5 REPEATS=3 TOOLS="spiral sockperf qperf" CLIENT_CORE/SERVER_CORE (default 2/3 with 4+ cores, else 0/1)
#   SBW_NS_A/SBW_NS_B (default sblat-a/sblat-b: the bench's own wire, removed at exit), MTU=9000
# Needs root (namespaces), ip, jq, taskset, sockperf and qperf (installed with apt when missing and
# possible; hack/bench/latency-carry.sh carries them to a machine that installs nothing).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BIN=${1:-$ROOT/build/dataplane/spiral-dataplane}
T=${CELL_SECONDS:-3}
W=${WARMUP_SECONDS:-0.5}
REPEATS=${REPEATS:-3}
SIZES=${SIZES:-64 1024 8000}
TRANSPORTS=${TRANSPORTS:-tcp udp}
WAITS=${WAITS:-blocking spin}
MTU=${MTU:-9000}
export SBW_NS_A=${SBW_NS_A:-sblat-a} SBW_NS_B=${SBW_NS_B:-sblat-b}
export SBW_IF_A=${SBW_IF_A:-sblat-a0} SBW_IF_B=${SBW_IF_B:-sblat-b0}
IP_B=${SBW_IP_B:-10.77.0.2}
NS_A=$SBW_NS_A NS_B=$SBW_NS_B
WORK=$(mktemp -d)

[[ $(id -u) == 0 ]] || { echo "needs root (network namespaces)" >&2; exit 1; }
if ! command -v sockperf >/dev/null || ! command -v qperf >/dev/null; then
  # shellcheck source=../lib/apt.sh
  source "$ROOT/hack/lib/apt.sh"
  apt_ensure latency-vs-sockperf sockperf qperf
fi
for tool in sockperf qperf jq ip taskset; do command -v $tool >/dev/null || { echo "missing $tool" >&2; exit 1; }; done
[[ -x $BIN ]] || { echo "no spiral-dataplane at $BIN (make dataplane)" >&2; exit 1; }

# shellcheck source=lib.sh
source "$HERE/lib.sh"
cleanup() {
  kill_descendants
  "$ROOT/hack/netns-wire.sh" down
  [[ -n ${KEEP_WORK:-} ]] || rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM  # run the EXIT trap when interrupted
"$ROOT/hack/netns-wire.sh" up "$MTU" >/dev/null

if [[ -z ${CLIENT_CORE:-} ]]; then
  if (($(nproc) >= 4)); then CLIENT_CORE=2 SERVER_CORE=3; else CLIENT_CORE=0 SERVER_CORE=1; fi
fi
port=18700  # each run its own ports (spiral: base and base - 1): no TIME_WAIT or slow exit in the way
in_a() { ip netns exec "$NS_A" taskset -c "$CLIENT_CORE" "$@"; }
in_b() { ip netns exec "$NS_B" taskset -c "$SERVER_CORE" "$@"; }
wait_port() {  # wait_port tcp|udp PORT: until the server listens in NS_B (at most 5 s)
  local flag=-tln i
  [[ $1 == udp ]] && flag=-uln
  for ((i = 0; i < 100; i++)); do
    ip netns exec "$NS_B" ss -H "$flag" "sport = :$2" | grep -q . && return 0
    sleep 0.05
  done
  return 1
}
stop_server() { kill "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; }

# Each run prints "P50_US P99_US" (qperf: "MEAN_US -"), or "- -" when it failed.
run_spiral() {  # TRANSPORT WAIT SIZE
  local args=(--transport "$1" --mode latency --wait "$2" --payload-bytes "$3" --base-port "$port"
              --seconds "$T" --warmup-seconds "$W")
  in_b "$BIN" server "${args[@]}" --bind-address "$IP_B" --rx-cores "$SERVER_CORE" --grace-ms 1000 \
    >"$WORK/spiral-server.out" 2>&1 &
  local server=$!
  in_a "$BIN" client "${args[@]}" --server-address "$IP_B" --tx-cores "$CLIENT_CORE" >"$WORK/spiral.out" 2>&1 || true
  stop_server "$server"
  grep '^{"event":"result"' "$WORK/spiral.out" | tail -1 |
    jq -r 'if .state == "Valid" then "\(.latency.p50_ns / 1000) \(.latency.p99_ns / 1000)" else "- -" end' 2>/dev/null ||
    echo "- -"
}

run_sockperf() {  # TRANSPORT WAIT SIZE
  local proto=() mode=()
  [[ $1 == tcp ]] && proto=(--tcp)
  [[ $2 == spin ]] && mode=(--nonblocked)
  in_b sockperf server "${proto[@]}" "${mode[@]}" -i "$IP_B" -p "$port" >"$WORK/sockperf-server.out" 2>&1 &
  local server=$!
  wait_port "$1" "$port" || true
  in_a sockperf ping-pong "${proto[@]}" "${mode[@]}" -i "$IP_B" -p "$port" -m "$3" -t "$T" >"$WORK/sockperf.out" 2>&1 || true
  stop_server "$server"
  awk '/percentile 50.000/ { p50 = $NF } /percentile 99.000/ { p99 = $NF }
       END { if (p50 == "") print "- -"; else print p50, p99 }' "$WORK/sockperf.out"
}

run_qperf() {  # TRANSPORT WAIT SIZE
  [[ $2 == blocking ]] || { echo "- -"; return; }
  in_b qperf --listen_port "$port" >"$WORK/qperf-server.out" 2>&1 &
  local server=$!
  wait_port tcp "$port" || true
  in_a qperf -lp "$port" -t "$T" -m "$3" "$IP_B" "$1_lat" >"$WORK/qperf.out" 2>&1 || true
  stop_server "$server"
  # "latency  =  14.2 us" (ns, us, ms or sec)
  awk '/latency/ { v = $3; u = $4 } END {
         if (v == "") { print "- -"; exit }
         m = (u == "ns") ? 0.001 : (u == "ms") ? 1000 : (u == "sec") ? 1e6 : 1
         print v * m, "-" }' "$WORK/qperf.out"
}

median() { tr ' ' '\n' | awk '$1 != "" && $1 != "-"' | sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else print v[int((NR + 1) / 2)] }'; }
ratio() { [[ $1 == - || $2 == - ]] && { echo "-"; return; }; awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
fmt() { [[ $1 == - ]] && { echo "-"; return; }; awk -v a="$1" 'BEGIN { printf "%.2f", a }'; }

read -ra tools <<<"${TOOLS:-spiral sockperf qperf}"  # TOOLS: a subset, to try the script
echo "# spiral latency mode vs sockperf ping-pong and qperf (one-way µs, median of $REPEATS alternating runs)"
echo
echo "$(nproc) cores, $(uname -r), veth wire MTU $MTU, client core $CLIENT_CORE, server core $SERVER_CORE, $T s per run"
echo
echo "| transport | wait | size B | spiral p50 | spiral p99 | sockperf p50 | sockperf p99 | qperf mean | spiral/sockperf p50 | spiral/qperf |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for transport in $TRANSPORTS; do
  for wait in $WAITS; do
    for size in $SIZES; do
      declare -A p50=() p99=()
      for ((rep = 0; rep < REPEATS; rep++)); do
        for ((k = 0; k < ${#tools[@]}; k++)); do
          tool=${tools[$(((k + rep) % ${#tools[@]}))]}
          port=$((port + 3))  # here, not in run_*: those run in a subshell
          read -r a b < <("run_$tool" "$transport" "$wait" "$size")
          p50[$tool]+="$a " p99[$tool]+="$b "
          echo "$transport $wait $size rep $rep $tool: p50 $a p99 $b" >&2
        done
      done
      s50=$(median <<<"${p50[spiral]:-}") s99=$(median <<<"${p99[spiral]:-}")
      k50=$(median <<<"${p50[sockperf]:-}") k99=$(median <<<"${p99[sockperf]:-}")
      q=$(median <<<"${p50[qperf]:-}")
      echo "| $transport | $wait | $size | $(fmt "$s50") | $(fmt "$s99") | $(fmt "$k50") | $(fmt "$k99") | $(fmt "$q") | $(ratio "$s50" "$k50") | $(ratio "$s50" "$q") |"
      unset p50 p99
    done
  done
done
echo
echo "Target: spiral's median latency <= 1.1x the reference's, p99 reported beside."
