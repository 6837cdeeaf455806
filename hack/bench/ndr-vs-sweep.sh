#!/usr/bin/env bash
# Benchmark (not a test): the rate search's no-drop rate (NDR) against a brute-force sweep of the
# target rate in 1 % steps on the same wire. The sweep starts at the search's upper bound and
# steps down 1 % of it at a time until a trial loses nothing; each sweep trial is a run of the
# same window as a search trial. The table says whether
# the two rates are within one resolution step (1 % of the upper bound) and how many trials each
# took (the search's own, then its verification trial, counted apart).
#   udp  server and client in two network namespaces joined by a veth pair (hack/netns-wire.sh)
#   raw  one process, net_af_packet ports on the same veth wire (only when the binary has DPDK)
# Usage: hack/bench/ndr-vs-sweep.sh [spiral-dataplane]
# Environment: LINK_MBPS=2000 (tc tbf on the wire; 0 = the bare veth) LINK_BURST=256kb
#   UPPER_MBPS (default 2 x LINK_MBPS; 0 = the rate of an unpaced first trial)
#   TRANSPORTS="udp raw" PAYLOAD=8000 RAW_PAYLOAD=1000 PAIRS=1 TRIAL_SECONDS=1
#   VERIFY_SECONDS=2 WARMUP_SECONDS=0.2 SETTLE_MS=200 REPEATS=1 (N > 1: alternating, plus a median row)
#   METHOD=receive_rate
#   TX_CORE=-1 RX_CORE=-1 (pin the sender / receiver; -1 unpinned) SOCKET_BUFFER_BYTES=16777216
# Needs root, jq and iproute2. hack/bench/raw-carry.sh packs it with a carried binary (run-ndr.sh).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
# shellcheck source=hack/bench/lib.sh
source "$HERE/lib.sh"
BIN=${1:-$ROOT/build/dataplane/spiral-dataplane}
TRANSPORTS=${TRANSPORTS:-udp raw}
PAYLOAD=${PAYLOAD:-8000} RAW_PAYLOAD=${RAW_PAYLOAD:-1000} PAIRS=${PAIRS:-1}
TRIAL=${TRIAL_SECONDS:-1} VERIFY=${VERIFY_SECONDS:-2} WARMUP=${WARMUP_SECONDS:-0.2} SETTLE_MS=${SETTLE_MS:-200}
REPEATS=${REPEATS:-1} METHOD=${METHOD:-receive_rate}
SOCKBUF=${SOCKET_BUFFER_BYTES:-16777216}
export SBW_NS_A=ndrb$$-a SBW_NS_B=ndrb$$-b SBW_IF_A=ndrb$$a0 SBW_IF_B=ndrb$$b0
NS_A=$SBW_NS_A NS_B=$SBW_NS_B IP_A=10.77.0.1 IP_B=10.77.0.2
PORT=17801
TXPIN=() RXPIN=()
[[ -z ${TX_CORE:-} || $TX_CORE == -1 ]] || TXPIN=(--tx-cores "$TX_CORE")
[[ -z ${RX_CORE:-} || $RX_CORE == -1 ]] || RXPIN=(--rx-cores "$RX_CORE")
WORK=$(mktemp -d)

[[ $(id -u) == 0 ]] || { echo "needs root (network namespaces)" >&2; exit 1; }
for tool in jq ip awk tc; do command -v "$tool" >/dev/null || { echo "missing $tool" >&2; exit 1; }; done
[[ -x $BIN ]] || { echo "no spiral-dataplane at $BIN (make dataplane)" >&2; exit 1; }
cleanup() {
  kill_descendants
  "$ROOT/hack/netns-wire.sh" down >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
"$ROOT/hack/netns-wire.sh" up 9000 >/dev/null
# A veth pair has no capacity of its own: the UDP sender is the bottleneck and nothing is lost,
# so the search ends at the upper bound in one trial. LINK_MBPS > 0 gives the sending end a
# token-bucket qdisc that drops the excess silently, as a link of that capacity does.
LINK_MBPS=${LINK_MBPS:-2000}
# Both searches span [1, UPPER_MBPS] (default twice the shaped link; 0 = an unpaced first trial)
UPPER=${UPPER_MBPS:-$((LINK_MBPS * 2))}
if ((LINK_MBPS > 0)) &&
  ! ip netns exec "$NS_A" tc qdisc add dev "$SBW_IF_A" root tbf rate "${LINK_MBPS}mbit" burst "${LINK_BURST:-256kb}" latency 50ms; then
  echo "tc tbf unavailable here: the bare veth instead" >&2
  LINK_MBPS=0 UPPER=${UPPER_MBPS:-0}
fi

has_raw() {
  ! "$BIN" loopback --transport raw --tx-port net_ring0 --rx-port net_ring0 --seconds 0.01 2>&1 | grep -q "built without"
}

# One run of a transport, its JSON record on stdout. udp: server in NS_B, client in NS_A.
run_udp() {
  local args=(--transport udp --pairs "$PAIRS" --payload-bytes "$PAYLOAD" --base-port "$PORT" --warmup-seconds "$WARMUP"
              --socket-buffer-bytes "$SOCKBUF" --connect-timeout-ms 5000 "$@")
  ip netns exec "$NS_B" "$BIN" server "${args[@]}" --bind-address "$IP_B" --grace-ms 300 "${RXPIN[@]}" \
    >"$WORK/server.out" 2>"$WORK/server.err" &
  local server=$!
  ip netns exec "$NS_A" "$BIN" client "${args[@]}" --server-address "$IP_B" "${TXPIN[@]}" 2>"$WORK/client.err" |
    grep '^{"event":"result"' || true
  wait "$server" || true
}
run_raw() {
  "$BIN" loopback --transport raw --no-huge --payload-bytes "$RAW_PAYLOAD" --warmup-seconds "$WARMUP" --grace-ms 300 \
    --tx-port "net_af_packet0,iface=$SBW_IF_A,netns=$NS_A,qpairs=1" \
    --rx-port "net_af_packet1,iface=$SBW_IF_B,netns=$NS_B,qpairs=1" "${TXPIN[@]}" "${RXPIN[@]}" "$@" \
    2>"$WORK/raw.err" | grep '^{"event":"result"' || true
}

# search TRANSPORT: the search's record.
search() {
  "run_$1" --seconds "$VERIFY" --search-trial-seconds "$TRIAL" --search-resolution-percent 1 \
    --search-settle-ms "$SETTLE_MS" --search-method "$METHOD" --search-upper-mbps "$UPPER"
}

# sweep TRANSPORT UPPER: "NDR TRIALS" stepping down 1 % of UPPER from UPPER.
sweep() {
  local t=$1 upper=$2 k rate rec trials=0
  for ((k = 100; k >= 1; k--)); do
    rate=$((upper * k / 100))
    ((rate > 0)) || break
    trials=$((trials + 1))
    rec=$("run_$t" --seconds "$TRIAL" --target-mbps "$rate")
    if jq -e '.state == "Valid" and .lost == 0 and .tx_packets > 0' >/dev/null 2>&1 <<<"$rec"; then
      echo "$rate $trials"
      return
    fi
    sleep "$(awk -v ms="$SETTLE_MS" 'BEGIN { print ms / 1000 }')"
  done
  echo "none $trials"
}

median() { printf '%s\n' "$@" | grep -v none | sort -g | awk '{ v[NR] = $1 } END { print NR ? (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) : "none" }'; }

printf '| transport | payload B | repeat | upper Mb/s | search NDR Mb/s | search trials + verify | verified | sweep NDR Mb/s | sweep trials | apart Mb/s | within 1 step | trials ratio |\n'
printf '|---|---|---|---|---|---|---|---|---|---|---|---|\n'
for t in $TRANSPORTS; do
  if [[ $t == raw ]] && ! has_raw; then
    echo "| raw | - | - | skipped: this spiral-dataplane has no DPDK | | | | | | | | |"
    continue
  fi
  payload=$PAYLOAD
  [[ $t == udp ]] || payload=$RAW_PAYLOAD
  ndrs=() sndrs=() ratios=()
  for ((rep = 1; rep <= REPEATS; rep++)); do
    # in the background and waited for, so that Ctrl-C ends the bench at once (wait is interruptible)
    search "$t" >"$WORK/search.json" &
    wait $!
    rec=$(cat "$WORK/search.json")
    if ! jq -e '.search.upper_mbps > 0' >/dev/null 2>&1 <<<"$rec"; then
      echo "| $t | $payload | $rep | search failed: $(jq -r '.reason // "no record"' <<<"$rec" 2>/dev/null || echo "no record") | | | | | | | | |"
      continue
    fi
    read -r upper ndr trials verified step < <(jq -r '.search | "\(.upper_mbps) \(.ndr_mbps // "none") \(.search_trials) \(.verified) \(.resolution_mbps)"' <<<"$rec")
    sweep "$t" "$upper" >"$WORK/sweep.txt" &
    wait $!
    read -r sndr strials <"$WORK/sweep.txt"
    apart=- within=no
    if [[ $ndr != none && $sndr != none ]]; then
      apart=$((ndr > sndr ? ndr - sndr : sndr - ndr))
      ((apart <= step)) && within=yes
    fi
    ratio=$(awk -v a="$trials" -v b="$strials" 'BEGIN { printf "%.2f", b ? a / b : 0 }')
    printf '| %s | %s | %s | %s | %s | %s + 1 | %s | %s | %s | %s | %s | %s |\n' "$t" "$payload" "$rep" "$upper" "$ndr" \
      "$trials" "$verified" "$sndr" "$strials" "$apart" "$within" "$ratio"
    ndrs+=("$ndr") sndrs+=("$sndr") ratios+=("$ratio")
  done
  # the median of the alternating repeats (search, then sweep, each repeat)
  if ((REPEATS > 1)); then
    printf '| %s | %s | median | | %s | | | %s | | | | %s |\n' "$t" "$payload" "$(median "${ndrs[@]}")" \
      "$(median "${sndrs[@]}")" "$(median "${ratios[@]}")"
  fi
done
echo
echo "trials ratio = search trials / sweep trials (target: below 0.33); one step = 1 % of the upper bound."
echo "wire: veth between two namespaces$( ((LINK_MBPS > 0)) && echo ", shaped by tc tbf to $LINK_MBPS Mbit/s (burst ${LINK_BURST:-256kb})"); trial ${TRIAL} s, verification ${VERIFY} s, method $METHOD"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
