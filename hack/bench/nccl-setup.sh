# Sourced by hack/bench/nccl-device-run.sh and nccl-ngpu-run.sh (benchmarks, on a GPU machine):
# the machine's own NCCL behind a folder with the unversioned name the linker wants, the
# machine's shared-use environment, and the builds of the data plane's CUDA flavour with NCCL and
# of nccl-tests 2.19.6 against the same library. The caller sets ROOT and OUT and defines say().
# Environment: NCCL_HOME (found), NCCL_TESTS_TARBALL (nccl-tests-2.19.6.tar.gz in ROOT),
#   BUILD (/tmp/spiral-nccl-build)
# the machine's shared-use rule (KINDS.md): no NVLink multicast, in every child too
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export CMAKE_POLICY_VERSION_MINIMUM=3.5
BUILD=${BUILD:-/tmp/spiral-nccl-build}
TARBALL=${NCCL_TESTS_TARBALL:-$ROOT/nccl-tests-2.19.6.tar.gz}
DEPS=$ROOT/.deps/root
NVCC=/usr/local/cuda/bin/nvcc
NT=/tmp/nccl-tests-2.19.6/build

if [[ -z ${NCCL_HOME:-} ]]; then
  NCCL_HOME=$(python3 -c 'import nvidia.nccl as n, os; print(list(n.__path__)[0])' 2>/dev/null) ||
    NCCL_HOME=$(dirname "$(dirname "$(find / -name libnccl.so.2 -path '*nvidia/nccl/lib/*' 2>/dev/null | head -1)")")
fi
NCCL=/tmp/spiral-nccl-home
mkdir -p "$NCCL/lib"
ln -sfn "$NCCL_HOME/include" "$NCCL/include"
ln -sf "$NCCL_HOME/lib/libnccl.so.2" "$NCCL/lib/libnccl.so.2"
ln -sf libnccl.so.2 "$NCCL/lib/libnccl.so"
export LD_LIBRARY_PATH=$NCCL/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

nccl_version() { grep -E 'define NCCL_(MAJOR|MINOR|PATCH) ' "$NCCL/include/nccl.h" | awk '{printf "%s%s", sep, $3; sep="."}'; }

# The machine, the compiler and the NCCL headers, into build.log.
log_machine() {
  {
    date -u; uname -a; nproc
    nvidia-smi --query-gpu=name,driver_version,pci.bus_id,memory.total,clocks.sm,clocks.max.sm,pcie.link.gen.current,pcie.link.width.current --format=csv
    "$NVCC" --version | tail -2
    echo "NCCL_HOME=$NCCL_HOME"; grep -E "define NCCL_(MAJOR|MINOR|PATCH) " "$NCCL/include/nccl.h"
  } >"$OUT/build.log" 2>&1
}

# build_spiral TARGET...: the CUDA flavour with NCCL (sm_90); says how it went, exits on failure.
build_spiral() {
  local gen=(-G Ninja) prefix=() t0
  command -v ninja >/dev/null || gen=(-G "Unix Makefiles")
  [[ -d $DEPS/usr ]] && prefix=(-DCMAKE_PREFIX_PATH="$DEPS/usr")
  t0=$(date +%s)
  if cmake -S dataplane -B "$BUILD" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DSPIRAL_WITH_CUDA=ON \
      -DCMAKE_CUDA_COMPILER="$NVCC" -DCMAKE_CUDA_ARCHITECTURES=90 -DSPIRAL_WERROR=OFF -DSPIRAL_WITH_NCCL=ON \
      -DNCCL_ROOT="$NCCL" -DSPIRAL_WITH_RDMA=OFF "${prefix[@]}" >>"$OUT/build.log" 2>&1 &&
    cmake --build "$BUILD" -j "$(nproc)" --target "$@" >>"$OUT/build.log" 2>&1; then
    say "- build: ok ($(($(date +%s) - t0)) s, $(grep -c ' warning' "$OUT/build.log") warnings)"
  else
    say "- build: FAILED"; tail -n 40 "$OUT/build.log" | tee -a "$SUMMARY"; exit 1
  fi
}

# nccl-tests 2.19.6 from its tarball against the same NCCL (sm_90), into $NT; exits on failure.
build_nccl_tests() {
  local t0
  t0=$(date +%s)
  rm -rf /tmp/nccl-tests-2.19.6 && tar -xzf "$TARBALL" -C /tmp &&
    make -C /tmp/nccl-tests-2.19.6 -j "$(nproc)" CUDA_HOME=/usr/local/cuda NCCL_HOME="$NCCL" \
      NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90" >>"$OUT/build.log" 2>&1 ||
    { say "- nccl-tests build: FAILED"; tail -n 30 "$OUT/build.log" | tee -a "$SUMMARY"; exit 1; }
  say "- nccl-tests 2.19.6 build: ok ($(($(date +%s) - t0)) s)"
}
