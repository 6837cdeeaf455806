#!/usr/bin/env bash
# End-to-end tests: bring the stack up (hack/stack.sh), run test/e2e against it, tear it down
# whatever happened. KEEP_STACK=1 leaves it up to look around; E2E_RUN=REGEX runs only the
# tests it matches (go test -run).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$ROOT/hack/lib/phase.sh"
# 4 phases: hack/stack.sh up's 3 (their details in build/logs/e2e.log), then the tests, whose
# output stays here.
phase_init e2e 4
cleanup() {
  local rc=$?
  [[ ${KEEP_STACK:-0} == 1 ]] || "$ROOT/hack/stack.sh" down >/dev/null 2>&1 || echo "stack down failed" >&2
  phase_exit "$rc"
}
trap cleanup EXIT
env_file=$("$ROOT/hack/stack.sh" up | tail -n1)
# shellcheck disable=SC1090
source "$env_file"
cd "$ROOT"
phase_begin "the end-to-end tests (test/e2e) against the stack" every
go test -count=1 -timeout 30m -v -run "${E2E_RUN:-.}" ./test/e2e/ 2>&1 | grep -v '^=== \(RUN\|PAUSE\|CONT\)'
phase_end 0
