#!/usr/bin/env bash
# RDMA READ: the client keeps reads of 1 MiB in flight on two queue pairs from the server's
# memory, which holds a known pattern; the client poisons each destination first and checks
# every byte that arrived. The server's CPU takes no part, so its figures come from the client.
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
need_rdma_pair
roce_pair read1m --verb read --queue-pairs 2 --payload-bytes 1048576 --seconds 1 --warmup-seconds 0.3 \
  --grace-ms 10000 --verify-payload --base-port 18441
expect_intact read1m
echo "PASS: $(describe read1m)"
