#!/usr/bin/env bash
# Packs what hack/bench/raw-vs-testpmd.sh needs on a machine that has no DPDK and installs
# nothing (the 16-core GPU machine of the device tool): this host's Debian binaries
# (spiral-dataplane, dpdk-testpmd, ip, ping, jq), the shared libraries they use except glibc and
# libstdc++ (the target's are newer), six DPDK plugins, libxdp's BPF objects, small wrappers that
# point each binary at those libraries only, the two scripts, and run.sh, which runs the bench.
# Usage: hack/bench/raw-carry.sh DEST [spiral-dataplane]   (DEST: e.g. .carry/raw, git-ignored)
# On the target: bash DEST/run.sh   (OUT=dir for the results; TX_CORE, RX_CORE, CELL_SECONDS, ...)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
DEST=${1:?destination folder}
BIN=${2:-$ROOT/build/dataplane/spiral-dataplane}
source "$ROOT/hack/lib/carry.sh"
PMDS=$CARRY_DPDK_PMD_DIR
rm -rf "$DEST"
mkdir -p "$DEST"/{bin,real,lib,pmds,pmds-testpmd,bpf,hack/bench}
cp "$BIN" "$(command -v dpdk-testpmd)" "$(command -v ip)" "$(command -v ping)" "$(command -v jq)" "$DEST/real/"
for p in "${CARRY_DPDK_PMDS[@]}"; do
  cp "$(readlink -f "$PMDS/$p.so")" "$DEST/pmds/$p.so"
  # testpmd links the vdev bus itself: loading it twice would register it twice
  [[ $p == librte_bus_vdev ]] || cp "$DEST/pmds/$p.so" "$DEST/pmds-testpmd/"
done
carry_libs "$DEST/lib" "$DEST"/real/* "$DEST"/pmds/*
cp /usr/lib/x86_64-linux-gnu/bpf/xsk_def_xdp_prog*.o /usr/lib/x86_64-linux-gnu/bpf/xdp-dispatcher.o "$DEST/bpf/"
for tool in "$DEST"/real/*; do
  cat >"$DEST/bin/$(basename "$tool")" <<'WRAP'
#!/bin/sh
# carried Debian binary: its libraries from this folder, nothing installed
C=$(cd "$(dirname "$0")/.." && pwd)
LD_LIBRARY_PATH="$C/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" LIBXDP_OBJECT_PATH="$C/bpf" exec "$C/real/$(basename "$0")" "$@"
WRAP
  chmod +x "$DEST/bin/$(basename "$tool")"
done
cp "$ROOT/hack/netns-wire.sh" "$DEST/hack/"
cp "$HERE/raw-vs-testpmd.sh" "$DEST/hack/bench/"
cat >"$DEST/run.sh" <<'RUN'
#!/bin/bash
# hack/bench/raw-vs-testpmd.sh with the carried binaries; results and the machine's facts in $OUT
C=$(cd "$(dirname "$0")" && pwd)
export PATH="$C/bin:$PATH" TESTPMD="$C/bin/dpdk-testpmd"
export SPIRAL_EAL_ARGS="-d $C/pmds" TESTPMD_EAL_ARGS="-d $C/pmds-testpmd"
OUT=${OUT:-/tmp/raw-bench}; mkdir -p "$OUT"
{ uname -a; nproc; cat /proc/loadavg; grep -m1 "model name" /proc/cpuinfo; head -2 /etc/os-release
  LD_LIBRARY_PATH=$C/lib ldd "$C"/real/* | grep "not found"; } >"$OUT/env.txt" 2>&1
TX_CORE=${TX_CORE:-2} RX_CORE=${RX_CORE:-3} TX_CORES_MQ=${TX_CORES_MQ:-2,4} RX_CORES_MQ=${RX_CORES_MQ:-3,5} \
  CELL_SECONDS=${CELL_SECONDS:-5} REPEATS=${REPEATS:-1} MATRIX_SIZES=${MATRIX_SIZES:-64 8000} \
  MATRIX_DEVICES=${MATRIX_DEVICES:-memif} timeout -s INT "${BENCH_LIMIT:-300}" \
  bash "$C/hack/bench/raw-vs-testpmd.sh" "$C/bin/spiral-dataplane" 2>"$OUT/bench.err" | tee "$OUT/bench.md"
echo "bench exit ${PIPESTATUS[0]}" >>"$OUT/env.txt"
RUN
chmod +x "$DEST/run.sh"
du -sh "$DEST"
