#!/usr/bin/env bash
# Raw forward mode (l2fwd-nv) over two in-memory net_memif pairs in one process:
# sender (tx_port) -> forwarder RX port, forwarder TX port -> receiver (rx_port). The receiver
# counts every frame by sequence number, so sent = forwarded + lost exactly, and checks each
# frame's MACs: as sent for work none, swapped for cpu. Paced well below what this (shared, 2-core)
# machine holds, so none may be lost. Refusals of forward cells: exit 2 with one line.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/raw_lib.sh"
require_raw
# distinct MACs, so a swap is visible on what comes back
ports() {  # ports SUFFIX: the four ports of one run, memif sockets of their own
  local a="$WORK/fwd-a$1.sock" b="$WORK/fwd-b$1.sock"
  echo --tx-port "net_memif0,role=client,socket=$a,mac=02:00:00:00:f0:0a" \
    --forward-rx-port "net_memif1,role=server,socket=$a,mac=02:00:00:00:f0:1a" \
    --forward-tx-port "net_memif2,role=client,socket=$b,mac=02:00:00:00:f0:1b" \
    --rx-port "net_memif3,role=server,socket=$b,mac=02:00:00:00:f0:0b"
}
SENDER_MAC=02:00:00:00:f0:0a
RECEIVER_MAC=02:00:00:00:f0:0b

# forwarded NAME WHAT: completed, nothing lost, the forwarder's counts add up, offered = forwarded.
# Valid, or Invalid only because the paced sender fell short of its target: on a loaded shared
# host the forwarder's threads lose their CPU, memif's lossless rings fill and hold the sender
# back (back-pressure, not loss); every other check still applies, and the note says so.
forwarded() {
  expect_rc "$1" 0
  expect "$1" '(.state == "Valid" or (.state == "Invalid" and (.reason | startswith("sender reached")))) and .rx_packets > 0' \
    "$2: completed (Valid, or short of the pace only), frames both ways"
  if [[ $(record "$1" | jq -r .state) != Valid ]]; then
    echo "note: $2: $(record "$1" | jq -r .reason) (host load $(cut -d' ' -f1 /proc/loadavg))"
  fi
  expect "$1" '.tx_packets == .rx_packets + .lost and .malformed == 0 and .duplicated == 0' "$2: sent = received + lost"
  expect "$1" '[.pair_results[] | .tx_packets == .rx_packets + .lost] | all' "$2: per stream, sent = received + lost"
  expect "$1" '.lost == 0 and .raw.forward.mac_other == 0' "$2: nothing lost, no foreign MACs"
  expect "$1" '([.raw.forward.per_pipeline[].sent] | add) >= .rx_packets' "$2: the forwarder sent what arrived"
  expect "$1" '.raw.forward.forwarded_mpps > 0 and .raw.forward.offered_mpps == .raw.forward.forwarded_mpps' \
    "$2: offered = forwarded"
  expect "$1" ".raw.forward.sender_mac == \"$SENDER_MAC\" and .raw.forward.receiver_mac == \"$RECEIVER_MAC\"" \
    "$2: the ports' MACs as given"
}
brief_fwd() {
  record "$1" | jq -r '"\(.tx_packets) offered, \(.rx_packets) forwarded, \(.lost) lost, \(.raw.forward.forwarded_mpps * 1000 | floor) kpps, swapped \(.raw.forward.mac_swapped), as sent \(.raw.forward.mac_as_sent)"'
}

# work none: I/O forwarding, the MACs come back as the sender wrote them
RAW_SECONDS=1 raw none $(ports 1) --payload-bytes 1000 --batch 32 --target-mbps 100 --forward-work none
forwarded none "forward none"
expect none '.raw.forward.mac_as_sent >= .rx_packets and .raw.forward.mac_swapped == 0 and .raw.forward.work == "none"' \
  "forward none: MACs untouched"
echo "forward none: $(brief_fwd none)"

# work cpu: the RX core swaps source and destination MAC of every frame
RAW_SECONDS=1 raw cpu $(ports 2) --payload-bytes 1000 --batch 32 --target-mbps 100 --forward-work cpu --csv
forwarded cpu "forward cpu"
expect cpu '.raw.forward.mac_swapped >= .rx_packets and .raw.forward.mac_as_sent == 0' "forward cpu: every MAC swapped"
echo "forward cpu: $(brief_fwd cpu)"

# RX and TX of the pipeline on one core: it runs to completion on one thread (as testpmd), and
# forwards as the two-thread pipeline does
RAW_SECONDS=1 raw inline $(ports 11) --payload-bytes 1000 --batch 32 --target-mbps 100 --forward-work cpu \
  --forward-rx-cores 1 --forward-tx-cores 1
forwarded inline "forward cpu, one core"
expect inline '.raw.forward.mac_swapped >= .rx_packets and .raw.forward.mac_as_sent == 0' "one core: every MAC swapped"
echo "forward cpu (one core): $(brief_fwd inline)"

# two pipelines, 64 B frames, the forwarder's pool in host_pinned memory from the memory provider,
# a forced 200 ns of work per frame, the pipelines' cores measured
RAW_SECONDS=1 raw pinned $(ports 3) --payload-bytes 64 --batch 16 --target-mbps 20 --forward-work cpu \
  --forward-pipelines 2 --tx-queues 2 --rx-queues 2 --memory host_pinned --forward-work-ns 200 \
  --forward-rx-cores 0 --forward-tx-cores 1
forwarded pinned "forward cpu, 2 pipelines, host_pinned"
expect pinned '(.raw.forward.per_pipeline | length) == 2 and ([.raw.forward.per_pipeline[] | .sent > 0] | all)' \
  "2 pipelines: both forwarded"
expect pinned '([.cpu_cores[].role] | index("forward_rx") != null and index("forward_tx") != null)' \
  "2 pipelines: the forwarder's cores measured"
grep -q "forwarder mbuf data in .* KiB of host_pinned external memory" "$WORK/pinned.err" ||
  fail "host_pinned: no forwarder memory line on stderr: $(cat "$WORK/pinned.err")"
echo "forward cpu (2 pipelines, host_pinned): $(brief_fwd pinned)"

# refusals: exit 2, the last line of stderr says what to change
bad() {  # bad NAME TEXT ARGS...
  local name=$1 text=$2
  shift 2
  run "$name" - loopback --transport raw --no-huge --seconds 0.2 "$@"
  expect_rc "$name" 2
  tail -n 1 "$WORK/$name.err" | grep -qF -- "$text" || { show "$name"; fail "$name: stderr lacks \"$text\""; }
}
bad split 'forward_buffer_split" needs a NIC whose driver splits a frame into two mbufs' $(ports 4) \
  --forward-buffer-split
bad no_ports 'applies to the forward mode only: set forward_rx_port and forward_tx_port' \
  --tx-port net_ring0 --rx-port net_ring0 --forward-work cpu
bad one_port 'forward_tx_port" is required with forward_rx_port' --tx-port net_memif0,socket=$WORK/x.sock \
  --rx-port net_memif3,role=server,socket=$WORK/y.sock --forward-rx-port net_memif1,role=server,socket=$WORK/x.sock
bad pipelines 'must equal tx_queues (1) and rx_queues (1)' $(ports 5) --forward-pipelines 2
bad burst 'is above 1024 for the forward mode' $(ports 6) --batch 2048 --ring-descriptors 4096 --pool-buffers 16383
built_without_cuda=$("$BIN" loopback --transport raw --workload fft --seconds 0.1 --tx-port net_ring0 \
  --rx-port net_ring0 --no-huge 2>&1 | grep -c "built without CUDA" || true)
if [[ $built_without_cuda == 0 ]]; then
  # CUDA build: GPU work needs GPU-mapped memory (and, at run time, a GPU: tests/gpu/forward_gpu.sh)
  bad gpu_memory 'must be host_pinned for forward_work gpu_kernel' $(ports 7) --forward-work gpu_kernel
else
  bad gpu_build 'is gpu_kernel, which needs a GPU: this spiral-dataplane was built without CUDA' $(ports 7) \
    --forward-work gpu_kernel
  bad gpu_persistent 'is gpu_persistent, which needs a GPU' $(ports 8) --forward-work gpu_persistent
  bad gpu_graphs 'is gpu_graphs, which needs a GPU' $(ports 9) --forward-work gpu_graphs
fi
bad device 'device needs a GPUDirect-capable NIC (a PCI port)' $(ports 10) --memory device
bad same 'needs four distinct ports' --tx-port net_memif0,socket=$WORK/x.sock --rx-port net_memif3,role=server,socket=$WORK/y.sock \
  --forward-rx-port net_memif3,role=server,socket=$WORK/y.sock --forward-tx-port net_memif2,socket=$WORK/z.sock
echo "PASS: raw forward over net_memif"
