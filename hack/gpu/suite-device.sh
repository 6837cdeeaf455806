#!/usr/bin/env bash
# One device call for the built-in suites' durations (docs/qualification.md): builds
# spiral-dataplane (CUDA + NCCL against the machine's own NCCL, as hack/gpu/kinds-run.sh does),
# then runs hack/gpu/suite-run.sh on every suite/*.tsv the carry folder holds.
# Here:  hack/gpu/carry.sh .carry/gpu; for n in 1 2; do go run ./hack/suitecmd -suite Quick -gpus $n \
#          > .carry/gpu/suite/quick-${n}gpu.tsv; done      (and Standard, Extended likewise)
# There: OUT=DIR bash .carry/gpu/hack/gpu/suite-device.sh
set -uo pipefail
cd "$(dirname "$0")/../.."  # the carry folder (or a checkout)
OUT=${OUT:-$PWD/suite-results}; mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CMAKE_POLICY_VERSION_MINIMUM=3.5
# shellcheck source=hack/gpu/nccl-home.sh
source hack/gpu/nccl-home.sh
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "$(nproc) cores; commit $(cat .carry-commit 2>/dev/null || echo unknown)"; } | tee "$OUT/machine.txt"
GEN=(-G Ninja); command -v ninja >/dev/null || GEN=(-G "Unix Makefiles")
t0=$(date +%s)
timeout 400 cmake -S dataplane -B /tmp/suite-build "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release -DSPIRAL_WITH_CUDA=ON \
  -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc -DCMAKE_CUDA_ARCHITECTURES=90 -DSPIRAL_WERROR=OFF -DSPIRAL_WITH_NCCL=ON \
  -DNCCL_ROOT=$N -DSPIRAL_WITH_RDMA=OFF -DSPIRAL_WITH_DPDK=OFF -DCMAKE_PREFIX_PATH=$PWD/.deps/root/usr >"$OUT/build.log" 2>&1 &&
  timeout 400 cmake --build /tmp/suite-build -j "$(nproc)" --target spiral-dataplane >>"$OUT/build.log" 2>&1 ||
  { echo "BUILD FAILED"; tail -30 "$OUT/build.log"; exit 1; }
echo "build $(($(date +%s) - t0)) s"
OUT=$OUT bash hack/gpu/suite-run.sh /tmp/suite-build suite/*.tsv
