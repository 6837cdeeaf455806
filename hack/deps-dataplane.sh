#!/usr/bin/env bash
# Installs the Debian packages the data plane needs to build and test (compiler, CMake,
# GoogleTest, nlohmann-json, CLI11, rdma-core's verbs for transport roce) and those its tests and
# benchmark drive (iproute2 for the veth wire, iperf3, jq). The Soft-RoCE VM's own packages
# (QEMU, busybox, perftest) come with hack/rxe-vm.sh. Idempotent: a no-op in well under a second
# when all are present.
set -euo pipefail
PACKAGES=(cmake ninja-build g++ make pkg-config libgtest-dev googletest nlohmann-json3-dev
          libcli11-dev iproute2 iputils-ping iperf3 jq)
# roce transport (issue 7): rdma-core's verbs
PACKAGES+=(libibverbs-dev librdmacm-dev ibverbs-providers)
# raw transport (issue 5): DPDK 22.11 headers and PMD plugins, dpdk-testpmd for hack/bench/raw-vs-testpmd.sh
PACKAGES+=(dpdk dpdk-dev libdpdk-dev)

missing=()
for p in "${PACKAGES[@]}"; do
  # ${Status} is "install ok installed" for an installed package
  [[ $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null) == "install ok installed" ]] || missing+=("$p")
done
((${#missing[@]} == 0)) && exit 0

if [[ $(id -u) != 0 ]]; then
  echo "deps-dataplane: missing ${missing[*]}; run as root (or install them) first" >&2
  exit 1
fi
echo "deps-dataplane: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp); trap 'rm -f "$log"' EXIT
install() { apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >>"$log" 2>&1; }
# a concurrent apt run can clean the archive cache under us: one retry fixes that
if ! { apt-get update -qq >>"$log" 2>&1 && { install || install; }; }; then
  tail -n 20 "$log" >&2
  echo "deps-dataplane: apt-get failed" >&2
  exit 1
fi
