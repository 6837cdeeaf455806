#!/usr/bin/env bash
# Packs what hack/bench/latency-vs-sockperf.sh needs on a machine that installs nothing (the
# 16-core GPU machine of the device tool, which has no ip either): this host's Debian binaries
# (spiral-dataplane, sockperf, qperf, ip, ping, ss, taskset, jq) with the shared libraries they use and
# wrappers (hack/lib/carry.sh), the bench and its helpers, and run.sh, which runs the bench.
# Usage: hack/bench/latency-carry.sh DEST [spiral-dataplane]   (DEST: e.g. .carry/latency, git-ignored)
# On the target: bash DEST/run.sh   (OUT=dir for the results; SIZES, REPEATS, CELL_SECONDS, ... as the bench)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
DEST=${1:?destination folder}
BIN=${2:-$ROOT/build/dataplane/spiral-dataplane}
if ! command -v sockperf >/dev/null || ! command -v qperf >/dev/null; then
  # shellcheck source=../lib/apt.sh
  source "$ROOT/hack/lib/apt.sh"
  apt_ensure latency-carry sockperf qperf
fi
# shellcheck source=../lib/carry.sh
source "$ROOT/hack/lib/carry.sh"
rm -rf "$DEST"
carry_binaries "$DEST" "$BIN" sockperf qperf ip ping ss taskset jq  # ping: netns-wire.sh checks the wire with it
mkdir -p "$DEST/hack/bench" "$DEST/hack/lib"
cp "$ROOT/hack/netns-wire.sh" "$DEST/hack/"
cp "$ROOT/hack/lib/apt.sh" "$DEST/hack/lib/"
cp "$HERE/latency-vs-sockperf.sh" "$HERE/lib.sh" "$DEST/hack/bench/"
cat >"$DEST/run.sh" <<'RUN'
#!/bin/bash
# hack/bench/latency-vs-sockperf.sh with the carried binaries; the table and the machine's facts in $OUT
C=$(cd "$(dirname "$0")" && pwd)
export PATH="$C/bin:$PATH"
OUT=${OUT:-/tmp/latency-bench}; mkdir -p "$OUT"
{ uname -a; nproc; cat /proc/loadavg; grep -m1 "model name" /proc/cpuinfo; head -2 /etc/os-release
  LD_LIBRARY_PATH=$C/lib ldd "$C"/real/* | grep "not found"; } >"$OUT/env.txt" 2>&1
timeout -s INT "${BENCH_LIMIT:-540}" bash "$C/hack/bench/latency-vs-sockperf.sh" "$C/bin/spiral-dataplane" \
  2>"$OUT/bench.err" | tee "$OUT/bench.md"
echo "bench exit ${PIPESTATUS[0]}" >>"$OUT/env.txt"
RUN
chmod +x "$DEST/run.sh"
du -sh "$DEST"
