#!/usr/bin/env bash
# Raw forward mode with GPU work, over two net_memif pairs in one process, the
# forwarder's pool in host_pinned memory mapped into the GPU: each GPU mode (gpu_kernel,
# gpu_persistent, gpu_graphs) forwards every frame with its MACs swapped (checked by the
# receiver on every frame that came back), the GPU work stops cleanly at the end, graphs replay
# (more bursts than one pass over the slots), and a run cut short by SIGINT still stops the
# persistent kernel. Skips (77) with the reason without DPDK, without CUDA, or without a GPU.
# $1: the spiral-dataplane binary (CUDA + DPDK build). On the GPU machine: hack/gpu/forward-run.sh.
set -uo pipefail
BIN=$1
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
SLOTS=64  # kForwardSlots (transports/raw/forward_options.hpp)

ports() {
  local a="$WORK/fwd-a$1.sock" b="$WORK/fwd-b$1.sock"
  echo --tx-port "net_memif0,role=client,socket=$a,mac=02:00:00:00:f0:0a" \
    --forward-rx-port "net_memif1,role=server,socket=$a,mac=02:00:00:00:f0:1a" \
    --forward-tx-port "net_memif2,role=client,socket=$b,mac=02:00:00:00:f0:1b" \
    --rx-port "net_memif3,role=server,socket=$b,mac=02:00:00:00:f0:0b"
}
fwd() {  # fwd NAME ARGS...: a forward run; its record in $WORK/NAME.rec, exit code in $WORK/NAME.rc
  local name=$1
  shift
  "$BIN" loopback --transport raw --no-huge --memory host_pinned --warmup-seconds 0.2 --grace-ms 1000 \
    $(ports "$name") "$@" >"$WORK/$name.out" 2>"$WORK/$name.err"
  echo $? >"$WORK/$name.rc"
  grep '^{"event":"result"' "$WORK/$name.out" | tail -n 1 >"$WORK/$name.rec"
}
check() {  # check NAME JQ WHAT
  jq -e "$2" "$WORK/$1.rec" >/dev/null || { cat "$WORK/$1.err" "$WORK/$1.rec"; fail "$1: $3"; }
}

probe=$("$BIN" loopback --transport raw --no-huge --seconds 0.1 $(ports probe) --forward-work gpu_kernel \
  --memory host_pinned 2>&1 >/dev/null)
rc=$?
[[ $probe == *"transport raw needs DPDK"* ]] && skip "spiral-dataplane was built without DPDK"
[[ $probe == *"built without CUDA"* ]] && skip "spiral-dataplane was built without CUDA"
if ((rc == 2)) && [[ $probe == *"needs a GPU"* ]]; then
  [[ $(printf '%s\n' "$probe" | wc -l) == 1 ]] || fail "refusal is more than one line: $probe"
  skip "$probe"
fi

for work in gpu_kernel gpu_persistent gpu_graphs; do
  for burst in 16 128; do
    name=$work-$burst
    fwd "$name" --seconds 1 --payload-bytes 1000 --batch $burst --target-mbps 400 --forward-work $work
    [[ $(cat "$WORK/$name.rc") == 0 ]] || { cat "$WORK/$name.err"; fail "$name exited $(cat "$WORK/$name.rc")"; }
    check "$name" '.state == "Valid" and .lost == 0 and .tx_packets == .rx_packets and .rx_packets > 0' \
      "Valid, nothing lost"
    check "$name" '.raw.forward.mac_swapped >= .rx_packets and .raw.forward.mac_as_sent == 0 and .raw.forward.mac_other == 0' \
      "every frame came back with its MACs swapped by the GPU"
    check "$name" '.raw.forward.gpu_stopped_cleanly and ([.raw.forward.per_pipeline[].gpu_bursts] | add) > 0' \
      "GPU work processed bursts and stopped cleanly"
    check "$name" '([.raw.forward.per_pipeline[] | .gpu_bursts == .bursts] | all)' "the GPU did every burst the RX core took"
    if [[ $work == gpu_graphs ]]; then
      check "$name" "([.raw.forward.per_pipeline[].gpu_bursts] | add) > 2 * $SLOTS" \
        "graphs replayed (more bursts than two passes over the $SLOTS slots)"
    fi
    echo "$name: $(jq -r '"\(.rx_packets) forwarded, \(.raw.forward.per_pipeline[0].gpu_bursts) GPU bursts, SM \(.raw.forward.gpu_sm_mpct) m%"' "$WORK/$name.rec")"
  done
done

# forced work per frame, two pipelines
fwd work_ns --seconds 1 --payload-bytes 1000 --batch 64 --target-mbps 200 --forward-work gpu_kernel \
  --forward-work-ns 2000 --forward-pipelines 2 --tx-queues 2 --rx-queues 2
check work_ns '.state == "Valid" and .lost == 0 and (.raw.forward.per_pipeline | length) == 2 and .raw.forward.mac_swapped >= .rx_packets' \
  "2 pipelines with 2 us of forced work per frame: Valid, swapped"

# cut short: SIGINT in the middle of the window; the persistent kernel and the graphs still stop
for work in gpu_persistent gpu_graphs; do
  name=cut-$work
  ("$BIN" loopback --transport raw --no-huge --memory host_pinned --warmup-seconds 0.2 --seconds 30 \
    $(ports "$name") --payload-bytes 1000 --batch 32 --target-mbps 200 --forward-work $work \
    >"$WORK/$name.out" 2>"$WORK/$name.err") &
  pid=$!
  sleep 2
  kill -INT $pid
  for _ in $(seq 100); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
  kill -0 $pid 2>/dev/null && { kill -KILL $pid; fail "$name: still running 10 s after SIGINT"; }
  wait $pid
  grep '^{"event":"result"' "$WORK/$name.out" | tail -n 1 >"$WORK/$name.rec"
  check "$name" '.state == "Failed" and .raw.forward.gpu_stopped_cleanly' "cut short: Failed, GPU work stopped cleanly"
  echo "$name: stopped cleanly after SIGINT"
done
echo "PASS: forward mode on the GPU"
