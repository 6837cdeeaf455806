#!/usr/bin/env bash
# The long fuzz run (not a test; `make test` runs each target for FUZZ_TIME=5s through
# `make fuzz-short`): every Go fuzz target over untrusted pod output for FUZZ_TIME each,
# then a table of executions, corpus growth and outcome. A crasher is written by `go test`
# under the package's testdata/fuzz/<target>/; commit it with the fix, so it stays a
# regression test that every `go test` replays.
#
#   hack/bench/fuzz.sh               (FUZZ_TIME=10m per target)
#   FUZZ_TIME=2m hack/bench/fuzz.sh
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
FUZZ_TIME=${FUZZ_TIME:-10m}
cd "$ROOT"
# The targets: package and function, one per line; make fuzz-short lists the same ones.
targets=$(make -s fuzz-targets)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
status=0
printf '%-40s %-8s %14s %12s %s\n' target time execs corpus outcome
while read -r pkg fn; do
  log="$tmp/$fn.log"
  if nice -n 10 go test "./$pkg" -run '^$' -fuzz "^$fn\$" -fuzztime "$FUZZ_TIME" >"$log" 2>&1; then
    outcome=PASS
  else
    outcome="FAIL (see $pkg/testdata/fuzz/$fn/)"; status=1
  fi
  last=$(grep -E '^fuzz: elapsed' "$log" | tail -n1)
  execs=$(sed -n 's/.*execs: \([0-9]*\).*/\1/p' <<<"$last")
  corpus=$(sed -n 's/.*(total: \([0-9]*\)).*/\1/p' <<<"$last")
  printf '%-40s %-8s %14s %12s %s\n' "$pkg.$fn" "$FUZZ_TIME" "${execs:-?}" "${corpus:-?}" "$outcome"
  [[ $outcome == PASS ]] || tail -n 20 "$log" >&2
done <<<"$targets"
exit $status
