#!/usr/bin/env bash
# RDMA WRITE with immediate: 8 MiB messages (Soft-RoCE's largest) from locked host_pinned memory
# with a window the receiver limits (tx_depth 4, rx_depth 2); the receiver counts each write by
# its immediate and checks its slot.
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
need_rdma_pair
roce_pair write8m --verb write --payload-bytes 8388608 --memory host_pinned --tx-depth 4 --rx-depth 2 \
  --seconds 1.5 --warmup-seconds 0.3 --grace-ms 20000 --verify-payload --base-port 18421
expect_intact write8m
expect_checks write8m-client '[select(.rdma.memory != "host_pinned") | "memory \(.rdma.memory)"]'
echo "PASS: $(describe write8m)"
