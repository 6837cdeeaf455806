#!/usr/bin/env bash
# Installs the Debian packages the data plane needs to build and test (compiler, CMake,
# GoogleTest, nlohmann-json, CLI11, rdma-core's verbs for transport roce) and those its tests and
# benchmark drive (iproute2 for the veth wire, iperf3, jq). The Soft-RoCE VM's own packages
# (QEMU, busybox, perftest) come with hack/rxe-vm.sh. Idempotent: a no-op in well under a second
# when all are present.
set -euo pipefail
PACKAGES=(cmake ninja-build g++ make pkg-config libgtest-dev googletest nlohmann-json3-dev
          libcli11-dev zlib1g-dev iproute2 iputils-ping iperf3 jq)
# ccache: a clean clone's rebuild hits the compiler cache kept outside it (mk/dataplane.mk)
PACKAGES+=(ccache)
# roce transport: rdma-core's verbs
PACKAGES+=(libibverbs-dev librdmacm-dev ibverbs-providers)
# ctest nccl.tests_json runs nccl-tests' analyze_perf_json.py (Python's standard library only)
PACKAGES+=(python3)
# raw transport: DPDK 22.11 headers and PMD plugins, dpdk-testpmd for hack/bench/raw-vs-testpmd.sh
PACKAGES+=(dpdk dpdk-dev libdpdk-dev)

source "$(dirname "$0")/lib/apt.sh"
apt_ensure deps-dataplane "${PACKAGES[@]}"
