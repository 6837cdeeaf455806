#!/usr/bin/env bash
# On a machine with two GPUs: spiral-dataplane's nccl kind at two ranks in one pod (--gpus 2),
# every operation with the check on, 8 B .. 16 MiB. Each run is Valid, every checked row has 0
# wrong elements, the in-place rows of sendrecv and alltoall are timed but not checked (NCCL
# defines no in-place form: wrong -1), each row has its per-iteration figures, and the two ranks'
# P2P connections name their wire (P2P/NVLink or P2P/PCIe). Fewer than two GPUs: exit 77
# (ctest: Skipped). $1: the spiral-dataplane binary.
set -uo pipefail
BIN=$1
n=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | wc -l)
((n >= 2)) || { echo "SKIP: $n GPU(s), two needed"; exit 77; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
failures=0
for op in sendrecv all_gather all_reduce broadcast reduce reduce_scatter alltoall; do
  CUDA_VISIBLE_DEVICES=0,1 timeout 120 "$BIN" rank --transport nccl --op "$op" --gpus 2 --nranks 2 \
    --max-bytes 16777216 --iterations 5 --warmup-iterations 1 --check-iterations 1 \
    --summary-file "$WORK/$op.json" >"$WORK/$op.out" 2>"$WORK/$op.err"
  rc=$?
  verdict=$(python3 - "$WORK/$op.json" "$op" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
op, n = sys.argv[2], s.get("nccl", {})
rows, it, peers = n.get("rows", []), n.get("iter", []), n.get("peers", [])
problems = []
if s.get("state") != "Valid":
    problems.append(f"state {s.get('state')}: {s.get('reason')}")
undefined = op in ("sendrecv", "alltoall")
for r in rows:
    want_unchecked = undefined and r[1] == 1
    if want_unchecked and r[5] != -1:
        problems.append(f"{r[0]} B in place checked ({r[5]}), NCCL defines no in-place {op}")
    if not want_unchecked and r[5] != 0:
        problems.append(f"{r[0]} B {'in' if r[1] else 'out of'} place: wrong {r[5]}")
if len(rows) != 2 * 22 or len(it) != len(rows) or any(i[0] == -1000 for i in it):
    problems.append(f"{len(rows)} rows, {len(it)} per-iteration entries")
wires = sorted({p[2] for p in peers})
if not peers or any(w == "P2P" for w in wires):
    problems.append(f"transports {wires}: a P2P connection without its wire")
print("ok " + "+".join(wires) if not problems else "FAIL " + "; ".join(problems[:4]))
PY
)
  [[ $rc == 0 && $verdict == ok* ]] || { failures=$((failures + 1)); tail -3 "$WORK/$op.err"; }
  echo "$( [[ $rc == 0 && $verdict == ok* ]] && echo "ok  " || echo "FAIL") $op at 2 ranks: exit $rc, $verdict"
done
echo "$( ((failures)) && echo FAILED || echo PASSED): $failures failure(s)"
((failures == 0))
