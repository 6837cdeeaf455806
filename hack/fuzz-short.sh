#!/usr/bin/env bash
# Runs each Go fuzz target (package:Function arguments) for FUZZ_TIME. A crasher lands in the
# package's testdata/fuzz and fails the run, with the failing input replayed. A fuzzing run
# that fails without a crasher (its worker killed or timed out on a loaded 2-core machine) is
# shown and tried once more: only a second such failure fails the run.
set -uo pipefail
cd "$(dirname "$0")/.."
time=${FUZZ_TIME:-5s}
for t in "$@"; do
  pkg=${t%%:*} fn=${t##*:}
  echo "fuzz $pkg $fn for $time"
  for try in 1 2; do
    before=$(ls "$pkg/testdata/fuzz/$fn" 2>/dev/null | wc -l)
    if out=$(go test "./$pkg" -run '^$' -fuzz "^$fn\$" -fuzztime "$time" 2>&1); then
      break
    fi
    after=$(ls "$pkg/testdata/fuzz/$fn" 2>/dev/null | wc -l)
    if [ "$after" -gt "$before" ] || [ "$try" = 2 ]; then
      echo "$out" | tail -n 30
      go test "./$pkg" -run "^$fn\$"
      exit 1
    fi
    echo "  the fuzzing run failed without a crasher; trying once more:"
    echo "$out" | tail -n 5 | sed 's/^/  /'
  done
done
