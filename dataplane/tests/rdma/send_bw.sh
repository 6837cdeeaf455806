#!/usr/bin/env bash
# RC SEND bandwidth on real verbs: two queue pairs of 64 KiB messages with windows sized to the
# message, then 4 KiB messages (op-rate bound, deep window); every byte checked on arrival.
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
need_rdma_pair
common=(--verb send --seconds 1 --warmup-seconds 0.3 --grace-ms 10000 --verify-payload)
roce_pair send64k "${common[@]}" --queue-pairs 2 --payload-bytes 65536 --base-port 18401
expect_intact send64k
roce_pair send4k "${common[@]}" --payload-bytes 4096 --base-port 18411
expect_intact send4k
echo "PASS: $(describe send64k); $(describe send4k)"
