#!/usr/bin/env bash
# One device call (docs/nccl.md): build spiral-dataplane (CUDA + NCCL, against the machine's own NCCL), run the
# registered nccl kind (every operation, one rank, check on) and the gpucopy kind, then the GPU correctness test.
# Usage: hack/gpu/carry.sh .carry/gpu here; on the GPU machine: OUT=DIR bash .carry/gpu/hack/gpu/kinds-run.sh
set -uo pipefail
cd "$(dirname "$0")/../.."  # the carry folder (or a checkout)
OUT=${OUT:-$PWD/kinds-results}; mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CMAKE_POLICY_VERSION_MINIMUM=3.5
# shellcheck source=hack/gpu/nccl-home.sh
source hack/gpu/nccl-home.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; hostname
GEN=(-G Ninja); command -v ninja >/dev/null || GEN=(-G "Unix Makefiles")
t0=$(date +%s)
cmake -S dataplane -B /tmp/b "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release -DSPIRAL_WITH_CUDA=ON -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DSPIRAL_WERROR=OFF -DSPIRAL_WITH_NCCL=ON -DNCCL_ROOT=$N -DSPIRAL_WITH_RDMA=OFF \
  -DCMAKE_PREFIX_PATH=$PWD/.deps/root/usr > $OUT/build.log 2>&1 &&
cmake --build /tmp/b -j "$(nproc)" --target spiral-dataplane gpu_correctness >> $OUT/build.log 2>&1 || { echo BUILD FAILED; tail -40 $OUT/build.log; exit 1; }
echo "build ok $(( $(date +%s) - t0 )) s"
D=/tmp/b/spiral-dataplane
for op in sendrecv all_gather all_reduce broadcast reduce reduce_scatter alltoall; do
  timeout 120 $D rank --transport nccl --op $op --gpus 1 --nranks 1 --summary-file $OUT/nccl-$op.summary.json > $OUT/nccl-$op.out 2> $OUT/nccl-$op.err
  echo "nccl $op rc=$? $(head -c 400 $OUT/nccl-$op.summary.json 2>/dev/null)"
done
timeout 120 $D loopback --transport gpucopy --max-bytes 67108864 --summary-file $OUT/gpucopy.summary.json > $OUT/gpucopy.out 2> $OUT/gpucopy.err
echo "gpucopy rc=$? $(head -c 600 $OUT/gpucopy.summary.json 2>/dev/null)"; tail -3 $OUT/gpucopy.err
timeout 200 /tmp/b/tests/gpu/gpu_correctness > $OUT/gpu_correctness.txt 2>&1; echo "gpu_correctness rc=$?"; tail -5 $OUT/gpu_correctness.txt
