#!/usr/bin/env bash
# A GPU workload on what a roce server receives: SEND into gemm, WRITE into fft, every byte
# checked on arrival and then copied into the in-order GPU window. Needs both an RDMA pair and a
# GPU with a CUDA build of spiral-dataplane, which neither the Soft-RoCE VM (no GPU) nor the GPU
# machines lent to this project (no RDMA device) have: elsewhere it skips (77) with the reason.
# On a DGX Spark, with its two cabled ports (names from `rdma link`; addresses on both netdevs):
#   RXE_A=rocep1s0f0 NETDEV_A=enp1s0f0np0 IP_A=192.168.100.1 \
#   RXE_B=rocep1s0f1 NETDEV_B=enp1s0f1np1 IP_B=192.168.100.2 \
#   bash dataplane/tests/rdma/gpu_workload.sh build/dataplane-cuda/spiral-dataplane
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
need_rdma_pair
probe_rc=0
"$BIN" loopback --transport tcp --workload fft --seconds 0.2 --warmup-seconds 0 >"$WORK/probe.out" 2>"$WORK/probe.err" ||
  probe_rc=$?
((probe_rc == 0)) || skip "no usable GPU here: $(head -n 1 "$WORK/probe.err")"

# GPU_CHECK: the server handed every byte it received, warm-up and drain included, to the GPU,
# in windows of workload_batch_bytes.
# shellcheck disable=SC2016 # jq's own \( ) interpolation
GPU_CHECK='[
  (select(.gpu == null) | "no GPU report"),
  (select(.gpu != null and .gpu.bytes != .rx_bytes_all) | "GPU got \(.gpu.bytes) B of \(.rx_bytes_all) received"),
  (select(.gpu != null and .gpu.windows != ((.rx_bytes_all + .gpu.window_bytes - 1) / .gpu.window_bytes | floor))
    | "\(.gpu.windows) windows for \(.rx_bytes_all) B")
]'
common=(--seconds 1 --warmup-seconds 0.3 --grace-ms 10000 --verify-payload --workload-batch-bytes 1048576)
roce_pair gpusend "${common[@]}" --verb send --workload gemm --gemm-n 512 --payload-bytes 65536 --base-port 18501
expect_intact gpusend
expect_checks gpusend-server "$GPU_CHECK"
roce_pair gpuwrite "${common[@]}" --verb write --workload fft --payload-bytes 1048576 --base-port 18511
expect_intact gpuwrite
expect_checks gpuwrite-server "$GPU_CHECK"
echo "PASS: $(describe gpusend); $(describe gpuwrite)"
