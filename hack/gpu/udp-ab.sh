#!/usr/bin/env bash
# A/B of two data plane builds against iperf3 on one machine in one call: UDP 8000 B, 4 pairs,
# unpaced (hack/bench/sockets-vs-iperf3.sh), the builds alternating A B A B ..., so a machine's
# drift between calls cannot pass for a difference between builds. Both are CPU-only Release
# builds made here the same way: B from this folder's dataplane/, A from $AB_OLD (a dataplane/
# tree of the other commit, e.g. `git archive OLD dataplane | tar -x -C DIR`).
#
# Usage (root, on the GPU machine, from a folder made by hack/gpu/carry.sh):
#   AB_OLD=DIR OUT=DIR bash hack/gpu/udp-ab.sh        (AB_ROUNDS=3 AB_REPEATS=3 AB_SECONDS=4)
# Prints each run's table rows and a summary: per build, the median ratio to iperf3 over rounds.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
OUT=${OUT:-$ROOT/ab-results}
OLD=${AB_OLD:?AB_OLD: the other build\'s dataplane/ tree}
DEPS=${SPIRAL_DEPS:-$ROOT/.deps/root}
TOOLS=/tmp/spiral-ab-tools
mkdir -p "$OUT"
# shellcheck source=hack/gpu/carried-tools.sh
source hack/gpu/carried-tools.sh
setup_tools >"$OUT/tools.log" 2>&1
GEN=(-G Ninja); command -v ninja >/dev/null || GEN=(-G "Unix Makefiles")
PREFIX=(); [[ -d $DEPS/usr ]] && PREFIX=(-DCMAKE_PREFIX_PATH="$DEPS/usr")
build() { # SRC BUILD_DIR
  cmake -S "$1" -B "$2" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release -DSPIRAL_WITH_CUDA=OFF -DSPIRAL_WERROR=OFF \
    -DSPIRAL_WITH_RDMA=OFF "${PREFIX[@]}" && cmake --build "$2" -j "$(nproc)" --target spiral-dataplane
}
{ build "$OLD" /tmp/spiral-ab-a && build dataplane /tmp/spiral-ab-b; } >"$OUT/build.log" 2>&1 ||
  { echo "build failed:"; tail -n 30 "$OUT/build.log"; exit 1; }

echo "# UDP 8000 B x4 unpaced, A = $OLD, B = dataplane/ ($(cat .carry-commit 2>/dev/null || echo unknown)); $(nproc) cores; $(uname -r)"
for round in $(seq 1 "${AB_ROUNDS:-3}"); do
  for build in a b; do
    REPEATS=${AB_REPEATS:-3} CELL_SECONDS=${AB_SECONDS:-4} WARMUP_SECONDS=1 PAIRS=4 TCP_SIZES="" UDP_SIZES=8000 UDP_PACED=0 \
      UDP_GSO=0 bash hack/bench/sockets-vs-iperf3.sh "/tmp/spiral-ab-$build/spiral-dataplane" >"$OUT/run-$round-$build.md" 2>>"$OUT/runs.err"
    row=$(grep -m1 '^| udp 8000B x4 unpaced ' "$OUT/run-$round-$build.md")
    echo "round $round build ${build^^}: $row"
  done
done | tee "$OUT/ab.md"
python3 - "$OUT/ab.md" <<'EOF' | tee -a "$OUT/ab.md"
import re, statistics, sys
rows = {"A": [], "B": []}
for line in open(sys.argv[1]):
    m = re.match(r"round \d+ build (\w): \|(.*)\|\s*$", line)
    if m:
        cols = [c.strip() for c in m.group(2).split("|")]
        rows[m.group(1)].append((float(cols[1]), float(cols[4]), float(cols[7])))  # iperf3, spiral, ratio
print("\n| build | runs | iperf3 Gb/s (median) | spiral Gb/s (median) | ratio (median) | ratios |")
print("|---|---:|---:|---:|---:|---|")
for b, r in rows.items():
    if r:
        print(f"| {b} | {len(r)} | {statistics.median(x[0] for x in r):.2f} | {statistics.median(x[1] for x in r):.2f} | "
              f"{statistics.median(x[2] for x in r):.2f} | {' '.join(f'{x[2]:.2f}' for x in r)} |")
EOF
