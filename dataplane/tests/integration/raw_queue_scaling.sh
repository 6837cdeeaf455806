#!/usr/bin/env bash
# The QueueScaling preset on a virtual device without huge pages, with the flags the operator
# gives its cells (batch 10240, so a 16384-descriptor ring and 65535-mbuf pools: benchkind's
# RawBuffers). Without huge pages DPDK's memory is 4 KiB pages, where rte_pktmbuf_pool_create keeps
# each mbuf inside one page and so needs up to 1.8 times the memory the run is planned with: the
# (2,1) cell at 1024 B failed with "mbuf pool rx0 (81919 x 2176 B): Cannot allocate memory". The
# pools now pack their mbufs densely there (mbuf_pool.cpp). A pool that does not fit says which
# budget it ran out of, not "raise the memory limit".
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/raw_lib.sh"
require_raw
preset=(--tx-port net_ring0 --rx-port net_ring0 --batch 10240 --ring-descriptors 16384 --pool-buffers 65535)

# the cell that failed, the preset's largest pools (2,2) at the payload whose mbufs a page fits
# worst (4458 B: two pages each), and its largest cell
for cell in "2 1 1024" "2 2 4096" "2 2 8000"; do
  read -r t r p <<<"$cell"
  name="qs$t$r-$p"
  RAW_SECONDS=2 raw "$name" "${preset[@]}" --tx-queues "$t" --rx-queues "$r" --payload-bytes "$p"
  accounted "$name" "QueueScaling ($t,$r) $p B"
  expect "$name" '.lost == 0' "QueueScaling ($t,$r) $p B: net_ring loses nothing"
  echo "QueueScaling ($t,$r) $p B without huge pages: $(brief "$name")"
done

# an EAL given too little memory: the refusal names the budget, and no container limit
SPIRAL_EAL_ARGS="-m 160" run small - loopback --transport raw --no-huge --seconds 0.3 "${preset[@]}" \
  --tx-queues 2 --rx-queues 1 --payload-bytes 1024
expect_rc small 2
grep -q 'mbuf pool .*Cannot allocate memory (no huge pages: the EAL was given -m .* MiB for about .* MiB of pools; lower ring_descriptors or pool_buffers (rawEthernet.ringDescriptors, poolBuffers), or give the pod huge pages)' "$WORK/small.err" ||
  fail "the refusal should name the no-huge budget: $(cat "$WORK/small.err")"
! grep -q "raise the memory limit" "$WORK/small.err" || fail "the old, misleading hint is back: $(cat "$WORK/small.err")"
echo "PASS: QueueScaling cells on net_ring without huge pages"
