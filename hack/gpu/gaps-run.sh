#!/usr/bin/env bash
# The two CPU-side comparisons of the GPU machine in one call, from a folder made by
# hack/gpu/carry.sh (the machine installs nothing):
#   1. build    hack/gpu/device-run.sh with no benchmark step: the CUDA flavour with the carried
#               DPDK (/tmp/spiral-gpu-build); GAPS_STEPS="correctness" (the default) also runs
#               tests/gpu/gpu_correctness, "none" only builds
#   2. forward  hack/bench/forward-vs-testpmd.sh: forward mode none/cpu vs the carried
#               dpdk-testpmd io/macswap over memif, 64/1024/8000 B (docs/benchmarks/forward.md)
#   3. udp      hack/bench/sockets-vs-iperf3.sh: UDP 8000 B, 4 pairs, unpaced, spiral (without and
#               with GSO/GRO) vs 4 iperf3 processes (docs/benchmarks/sockets.md)
# Prints the tables; writes $OUT/gaps.md (everything printed), $OUT/build/{summary.md,build.log},
# $OUT/forward.err, $OUT/udp.err. Each part has a time limit, so a slow one cannot take the rest.
#
# Usage (root, on the GPU machine, from the carry folder): OUT=DIR bash hack/gpu/gaps-run.sh
# Environment: GAPS_PARTS="forward udp" (either or both), FWD_REPEATS=3 FWD_SECONDS=3 FWD_SIZES="64 1024 8000" FWD_CORES="2 3 4 5"
#   (sender, receiver, forwarder, main threads) FWD_LIMIT=300 PERF_DIR (needs CARRY_PERF=1 at carry time);
#   UDP_REPEATS=5 UDP_SECONDS=4 UDP_LIMIT=140
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
OUT=${OUT:-$ROOT/gaps-results}
BUILD=/tmp/spiral-gpu-build
mkdir -p "$OUT/build"
MD=$OUT/gaps.md
: >"$MD"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
say() { echo "$*" | tee -a "$MD"; }

say "# forward vs testpmd, UDP vs iperf3: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1);" \
  "$(nproc) cores ($(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)); $(uname -r); commit $(cat "$ROOT/.carry-commit" 2>/dev/null || echo unknown)"
OUT=$OUT/build BUILD=$BUILD DEVICE_RUN_STEPS=${GAPS_STEPS:-correctness} bash hack/gpu/device-run.sh >/dev/null 2>&1
grep -E "^- " "$OUT/build/summary.md" | tee -a "$MD"
[[ -x $BUILD/spiral-dataplane ]] || { say "no spiral-dataplane built: see build/build.log"; exit 1; }

# the carried tools (iperf3, jq, ip) and DPDK (its libraries for spiral, dpdk-testpmd) for both parts
TOOLS=/tmp/spiral-gpu-tools DEPS=$ROOT/.deps/root
# shellcheck source=hack/gpu/carried-tools.sh
source hack/gpu/carried-tools.sh
setup_tools >>"$OUT/build/build.log" 2>&1
# setup_tools put perf on PATH when hack/gpu/carry.sh packed it (CARRY_PERF=1), for PERF_DIR
for t in sysctl pgrep ss mountpoint iperf3 jq perf; do echo "$t: $(command -v $t || echo missing)"; done >>"$OUT/build/build.log"
# shellcheck source=hack/gpu/dpdk-env.sh
source hack/gpu/dpdk-env.sh
pkg-config --exists libdpdk 2>/dev/null || dpdk_env "$ROOT/.deps/dpdk" "$TOOLS/dpdk-lib"

PARTS=" ${GAPS_PARTS:-forward udp} "
if [[ $PARTS == *" forward "* ]]; then
  say ""
  timeout -s INT --kill-after=20 "${FWD_LIMIT:-300}" env REPEATS="${FWD_REPEATS:-3}" CELL_SECONDS="${FWD_SECONDS:-3}" \
    SIZES="${FWD_SIZES:-64 1024 8000}" CORES="${FWD_CORES:-2 3 4 5}" \
    bash hack/bench/forward-vs-testpmd.sh "$BUILD/spiral-dataplane" 2>"$OUT/forward.err" | tee -a "$MD"
  say "forward-vs-testpmd exit ${PIPESTATUS[0]}"
fi

[[ $PARTS == *" udp "* ]] || exit 0
say ""
timeout -s INT --kill-after=20 "${UDP_LIMIT:-140}" env REPEATS="${UDP_REPEATS:-5}" CELL_SECONDS="${UDP_SECONDS:-4}" \
  WARMUP_SECONDS=1 PAIRS=4 TCP_SIZES="" UDP_SIZES=8000 UDP_PACED=0 \
  bash hack/bench/sockets-vs-iperf3.sh "$BUILD/spiral-dataplane" 2>"$OUT/udp.err" | tee -a "$MD"
say "sockets-vs-iperf3 exit ${PIPESTATUS[0]}"
