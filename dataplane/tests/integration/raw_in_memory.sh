#!/usr/bin/env bash
# Raw loopback over in-memory virtual devices: net_ring (one port, TX queue i is RX queue i) and a
# net_memif pair (server and client in this one process). Queue cells (1,1) (1,2) (2,1) (2,2),
# worker cores, pacing, receive mbufs in host_pinned external memory. Nothing here can lose a frame, so none may be lost.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/raw_lib.sh"
require_raw
MEMIF_TX="net_memif0,role=client,socket=$WORK/memif.sock"
MEMIF_RX="net_memif1,role=server,socket=$WORK/memif.sock"

for cell in "1 1" "1 2" "2 1" "2 2"; do
  read -r t r <<<"$cell"
  raw "ring$t$r" --tx-port net_ring0 --rx-port net_ring0 --tx-queues "$t" --rx-queues "$r" --payload-bytes 64
  accounted "ring$t$r" "net_ring ($t,$r)"
  expect "ring$t$r" ".lost == 0 and (.pair_results | length) == $t and (.raw.rx_queue_packets | length) == $r" \
    "net_ring ($t,$r): no loss, one stream per TX queue, counts per RX queue"
  echo "net_ring ($t,$r): $(brief "ring$t$r")"
done

for cell in "1 1" "2 2"; do
  read -r t r <<<"$cell"
  raw "memif$t$r" --tx-port "$MEMIF_TX" --rx-port "$MEMIF_RX" --tx-queues "$t" --rx-queues "$r" --payload-bytes 1000
  accounted "memif$t$r" "net_memif ($t,$r)"
  expect "memif$t$r" '.lost == 0 and .raw.tx_driver == "net_memif"' "net_memif ($t,$r): no loss"
  echo "net_memif ($t,$r): $(brief "memif$t$r")"
done

# the live view's input (sbctl watch): one process, both sides, a client (TX) and a server (RX)
# progress line a second while it measures, one stream per queue
RAW_SECONDS=2.2 raw progress --tx-port net_ring0 --rx-port net_ring0 --tx-queues 2 --rx-queues 2 --payload-bytes 256
accounted progress "net_ring progress lines"
for role in client server; do
  n=$(grep -c "^{\"event\":\"progress\",\"role\":\"$role\"" "$WORK/progress.out" || true)
  ((n >= 2)) || fail "raw in-process run: $n $role progress lines in 2.2 s, want 2 (one a second): $(head -c 600 "$WORK/progress.out")"
done
grep '"role":"server"' "$WORK/progress.out" | tail -n 1 | grep -q '"id":1,' ||
  fail "raw progress lines lack one stream per RX queue: $(grep progress "$WORK/progress.out" | tail -n 1)"
echo "net_ring progress: $(grep -c '"event":"progress"' "$WORK/progress.out") lines"

# memory host_pinned: the receive pools' mbuf data in locked memory from the memory provider,
# registered with DPDK as external memory (rte_extmem_register); memif writes every frame there
raw pinned --tx-port "$MEMIF_TX" --rx-port "$MEMIF_RX" --tx-queues 2 --rx-queues 2 --payload-bytes 1000 \
  --memory host_pinned
accounted pinned "net_memif host_pinned"
expect pinned '.lost == 0 and .cell.memory == "host_pinned"' "net_memif host_pinned: no loss"
grep -q "receive mbuf data in .* KiB of host_pinned external memory" "$WORK/pinned.err" ||
  fail "host_pinned: no external memory line on stderr: $(cat "$WORK/pinned.err")"
echo "net_memif host_pinned (2,2): $(brief pinned)"

# a poll-mode core and a worker core per queue: bursts cross a ring between them both ways
raw workers --tx-port "$MEMIF_TX" --rx-port "$MEMIF_RX" --tx-queues 2 --rx-queues 2 --tx-cores 0 --rx-cores 0 \
  --tx-workers 0 --rx-workers 0 --master-core 0 --payload-bytes 256
accounted workers "workers"
expect workers '.lost == 0 and ([.cpu_cores[].role] | sort | unique) == ["master","rx","rx_worker","tx","tx_worker"]' \
  "every core role measured"
echo "workers (2,2): $(brief workers)"

# pacing: the token bucket holds the target (L2 frame bits) within 5 %, or the run is Invalid
raw paced --tx-port net_ring0 --rx-port net_ring0 --payload-bytes 1000 --target-mbps 100 --csv \
  --ready-file "$WORK/paced.ready" --label repeat=2
accounted paced "paced"
expect paced '.tx_mbps >= 95 and .tx_mbps <= 105' "paced at 100 Mb/s"
grep -q '^cpp,dpdk,none,1000,64,1,0.1,2,' "$WORK/paced.out" || fail "csv row: $(grep '^cpp,' "$WORK/paced.out")"
jq -e '.event == "ready" and .transport == "raw" and .tx_port == "net_ring0"' "$WORK/paced.ready" >/dev/null ||
  fail "ready file: $(cat "$WORK/paced.ready")"
echo "paced: $(brief paced)"
echo "PASS: raw over net_ring and net_memif"
