#!/usr/bin/env bash
# Benchmark and check (not a unit test), on a GPU machine, in one go (docs/benchmarks/gpucopy.md,
# "Beside nvbandwidth"):
#   1. build   the data plane's CUDA flavour (no NCCL): the copy bench and the gpucopy device
#              checks; nvbandwidth 0.8 from its tarball (Boost program_options from the machine,
#              else the carried Debian packages), both at once
#   2. check   ctest -L device -R gpucopy: gpucopy.local_check (and gpucopy.peer_check, which
#              skips on one GPU)
#   3. repeats REPEATS (3) times, alternating: nvbandwidth -j on the testcases both tools measure,
#              then spiral-gpucopy-bench on the same (pinned H2D and D2H and D2D copies of
#              BYTES, SM read and write passes, latency over device, host and peer memory)
#   4. compare hack/bench/nvbandwidth_compare.py: each figure side by side, medians over the
#              repeats and each tool's run-to-run spread
# $OUT gets summary.md (printed last), build.log, check.txt, nvbandwidth-1.json (kept as the
# parser's test data) and raw.tar.gz (every output).
# Usage (root, on the GPU machine, from the carried folder, hack/bench/nvbandwidth-carry.sh):
#   OUT=$OUT bash hack/bench/nvbandwidth-side-run.sh
# Environment: REPEATS (3), BYTES (512M, nvbandwidth's default), BUDGET (240 s after the build).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
OUT=${OUT:-$ROOT/nvbandwidth-results}
BUILD=/tmp/spiral-nvbw-build NVB=/tmp/nvbandwidth-0.8 RAW=/tmp/spiral-nvbw-raw
REPEATS=${REPEATS:-3} BYTES=${BYTES:-512M} BUDGET=${BUDGET:-240}
DEPS=$ROOT/.deps/root NVCC=/usr/local/cuda/bin/nvcc
# the machine's shared-use rule (KINDS.md): no NVLink multicast, in every child too
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export CMAKE_POLICY_VERSION_MINIMUM=3.5
mkdir -p "$OUT" && rm -rf "$RAW" && mkdir -p "$RAW"
SUMMARY=$OUT/summary.md
: >"$SUMMARY"
say() { echo "$*" | tee -a "$SUMMARY"; }
say "# nvbandwidth 0.8 and spiral-gpucopy-bench on $(hostname): $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1); $(nvidia-smi -L | grep -c '^GPU') GPU(s); $(nproc) cores"
say "commit: $(cat "$ROOT/.carry-commit" 2>/dev/null || git -C "$ROOT" rev-parse --short HEAD 2>/dev/null); $("$NVCC" --version | tail -1)"

# --- 1. build, both at once ---------------------------------------------------------------------
build_spiral() {
  local gen=(-G Ninja) prefix=()
  command -v ninja >/dev/null || gen=(-G "Unix Makefiles")
  [[ -d $DEPS/usr ]] && prefix=(-DCMAKE_PREFIX_PATH="$DEPS/usr")
  cmake -S dataplane -B "$BUILD" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DSPIRAL_WITH_CUDA=ON \
    -DCMAKE_CUDA_COMPILER="$NVCC" -DCMAKE_CUDA_ARCHITECTURES=90 -DSPIRAL_WERROR=OFF -DSPIRAL_WITH_NCCL=OFF \
    -DSPIRAL_WITH_RDMA=OFF "${prefix[@]}" && cmake --build "$BUILD" -j "$(nproc)" \
    --target spiral-gpucopy-bench gpucopy_local_check gpucopy_peer_check
}
build_nvbandwidth() {
  rm -rf "$NVB" && mkdir -p "$NVB" && tar -xzf nvbandwidth-0.8.tar.gz -C "$NVB" --strip-components=1 || return 1
  # it links libcuda and libnvidia-ml by name: the toolkit's stubs stand in at link time
  export LIBRARY_PATH=/usr/local/cuda/lib64/stubs:/usr/local/cuda/lib64${LIBRARY_PATH:+:$LIBRARY_PATH}
  nvb_cmake() {
    rm -rf "$NVB/build"
    cmake -S "$NVB" -B "$NVB/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$NVCC" \
      -DCMAKE_CUDA_ARCHITECTURES=90 "$@"
  }
  # the machine's Boost first; an H200 machine had Boost 1.83's headers and CMake configs but
  # not program_options: then the carried Debian 1.74 packages, unpacked under /tmp
  if ! nvb_cmake; then
    echo "the machine's Boost does not do: the carried Debian packages"
    local root=/tmp/nvbw-boost
    rm -rf "$root" && mkdir -p "$root"
    for deb in .deps/boost-debs/*.deb; do
      if command -v dpkg >/dev/null; then dpkg -x "$deb" "$root"; else
        (cd /tmp && ar x "$OLDPWD/$deb" data.tar.xz && tar -xJf data.tar.xz -C "$root" && rm -f data.tar.xz); fi || return 1
    done
    nvb_cmake -DCMAKE_PREFIX_PATH="$root/usr" -DBoost_NO_SYSTEM_PATHS=ON \
      -DBoost_DIR="$(ls -d "$root"/usr/lib/x86_64-linux-gnu/cmake/Boost-*)" || return 1
  fi
  cmake --build "$NVB/build" -j "$(nproc)"
}
t0=$(date +%s)
build_spiral >"$OUT/build.log" 2>&1 &
spiral_pid=$!
build_nvbandwidth >"$OUT/build-nvbandwidth.log" 2>&1
nvb_rc=$?
wait "$spiral_pid"
spiral_rc=$?
cat "$OUT/build-nvbandwidth.log" >>"$OUT/build.log" && rm -f "$OUT/build-nvbandwidth.log"
say "- build ($(($(date +%s) - t0)) s): spiral $( ((spiral_rc == 0)) && echo ok || echo FAILED), nvbandwidth 0.8 $( ((nvb_rc == 0)) && echo ok || echo FAILED)"
((spiral_rc == 0)) || { tail -n 40 "$OUT/build.log" | tee -a "$SUMMARY"; }
((nvb_rc == 0)) || { grep -iE 'error|boost' "$OUT/build.log" | tail -n 15 | tee -a "$SUMMARY"; }
START=$(date +%s)
left() { echo $((START + BUDGET - $(date +%s))); }

# --- 2. check -----------------------------------------------------------------------------------
if ((spiral_rc == 0)); then
  if timeout 120 ctest --test-dir "$BUILD" -L device -R gpucopy -V >"$OUT/check.txt" 2>&1; then
    say "- gpucopy device tests: ok ($(grep -cE '^[0-9]+: ok ' "$OUT/check.txt") checks passed)"
  else
    say "- gpucopy device tests: FAILED, see check.txt"
  fi
  grep -E '^[0-9]+: (FAIL|SKIP|PASSED|FAILED| +(device|latency|sm_))|tests passed|Skipped|Passed|Failed' "$OUT/check.txt" |
    head -24 | sed 's/^/    /' >>"$SUMMARY"
fi

# --- 3. repeats ---------------------------------------------------------------------------------
CASES=(host_to_device_memcpy_ce device_to_host_memcpy_ce device_local_copy host_device_latency_sm
  device_to_device_latency_sm)
MIB=$(($(numfmt --from=iec "$BYTES") >> 20))
DONE=0
for rep in $(seq 1 "$REPEATS"); do
  (($(left) < 40)) && { say "- repeat $rep skipped: $(left) s of the budget left"; break; }
  if ((nvb_rc == 0)); then
    timeout 120 "$NVB/build/nvbandwidth" -j -b "$MIB" -t "${CASES[@]}" >"$RAW/nvbandwidth-$rep.json" 2>"$RAW/nvbandwidth-$rep.err" ||
      echo "# exit $?" >>"$RAW/nvbandwidth-$rep.err"
  fi
  if ((spiral_rc == 0)); then
    # nvbandwidth's loop: 16 copies per sample, 3 samples (its median); ours 16 per figure, 3 repeats
    timeout 120 "$BUILD/spiral-gpucopy-bench" --parts copies,local --directions h2d,d2h,d2d --memory pinned \
      -b "$BYTES" -e "$BYTES" -n 16 -w 2 --local-tests sm_read,sm_write --local-bytes "$BYTES" \
      --latency device,host,peer --local-repeats 3 --json "$RAW/spiral-$rep.jsonl" >"$RAW/spiral-$rep.txt" 2>&1 ||
      echo "# exit $?" >>"$RAW/spiral-$rep.txt"
  fi
  DONE=$rep
  say "- repeat $rep: nvbandwidth, spiral-gpucopy-bench ($(($(date +%s) - START)) s so far)"
done
cp "$RAW/nvbandwidth-1.json" "$OUT/" 2>/dev/null

# --- 4. compare ---------------------------------------------------------------------------------
python3 hack/bench/nvbandwidth_compare.py "$RAW" "$DONE" >>"$SUMMARY" 2>&1 || say "compare: FAILED"
tar -czf "$OUT/raw.tar.gz" -C "$RAW" .
say "total after the build: $(($(date +%s) - START)) s"
cat "$SUMMARY"
