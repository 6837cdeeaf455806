#!/usr/bin/env bash
# Per-cell overhead of the operator on the local cluster (not a test): runs a TCP bench of
# CELLS cells x REPEATS repeats of SECONDS measured seconds and prints, per attempt (one pod
# pair; a TCP attempt runs up to 4 repeats), the time from the server pod's creation to the
# client container's start (startup), the attempt's wall time, and the share of the wall time
# spent outside the measured windows, with and without the warm-up the spec asks for; then the
# same per cell from its startTime/completionTime. Kubernetes timestamps have 1 s resolution.
#
#   hack/bench/operator-overhead.sh          (brings the stack up if it is not; leaves it up)
#   SECONDS_PER_CELL=30 WARMUP=2 REPEATS=3 CELLS=2
#   HOST_NETWORK=1   both pods in the node's network namespace (labels the default namespace
#                    spiralbench.io/privileged=true, which host-network benches need)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SECONDS_PER_CELL=${SECONDS_PER_CELL:-30} WARMUP=${WARMUP:-2} REPEATS=${REPEATS:-3} CELLS=${CELLS:-2}
env_file="$ROOT/build/stack.env"
[[ -f $env_file ]] && "$ROOT/hack/local-cluster.sh" running || env_file=$("$ROOT/hack/stack.sh" up | tail -n1)
# shellcheck disable=SC1090
source "$env_file"
payloads=$(seq -s, 8000 8 $((8000 + 8 * (CELLS - 1))))
topology=""
if [[ ${HOST_NETWORK:-0} == 1 ]]; then
  kubectl label namespace default spiralbench.io/privileged=true --overwrite >/dev/null
  topology="topology: {server: {hostNetwork: true}, client: {hostNetwork: true}}"
fi
kubectl delete spiralbench overhead --ignore-not-found --wait=true >/dev/null
kubectl apply -f - <<YAML
apiVersion: spiralbench.io/v1alpha1
kind: SpiralBench
metadata: {name: overhead}
spec:
  transport: TCP
  matrix: {payloadBytes: [$payloads], pairs: [1]}
  run: {seconds: $SECONDS_PER_CELL, warmupSeconds: $WARMUP, repeats: $REPEATS}
  $topology
YAML
kubectl wait --for=condition=Completed spiralbenches.spiralbench.io/overhead --timeout=$((CELLS * REPEATS * (SECONDS_PER_CELL + WARMUP + 60)))s >/dev/null
# shellcheck source=hack/bench/lib.sh
source "$ROOT/hack/bench/lib.sh"
bench_json "" overhead | python3 -c '
import json, sys
sb = json.load(sys.stdin)
warmup = sb["spec"]["run"]["warmupSeconds"] * 1000
rows = []
print("cell attempt repeats  startup_ms  wall_ms  measured_ms  outside_measurement_%  operator_only_%")
for c in sb["status"]["cellResults"]:
    # An attempt may run several repeats in one pod pair: its startup and wall time sit on its
    # first repeat, and its measured time is the sum over its repeats.
    attempts = {}
    for r in c.get("repeatResults", []):
        attempts.setdefault(r["attempt"], []).append(r)
    for a, reps in sorted(attempts.items()):
        s, w = reps[0].get("startupMilliseconds", 0), reps[0].get("wallMilliseconds", 0)
        m = sum(r.get("measuredMilliseconds", 0) for r in reps)
        outside = 100.0 * (w - m) / w
        operator = 100.0 * (w - m - warmup * len(reps)) / w
        rows.append((s, w, m, outside, operator))
        print("%4d %7d %7d  %10d  %7d  %11d  %21.1f  %15.1f" % (c["index"], a, len(reps), s, w, m, outside, operator))
n = len(rows)
mean = [sum(r[i] for r in rows) / n for i in range(5)]
print("mean                  %10.0f  %7.0f  %11.0f  %21.1f  %15.1f" % tuple(mean))
from datetime import datetime
ts = lambda v: datetime.strptime(v, "%Y-%m-%dT%H:%M:%SZ").timestamp()
print()
print("cell  cell_wall_s  measured_s  warmup_s  outside_measurement_%  operator_only_%")
for c in sb["status"]["cellResults"]:
    wall = ts(c["completionTime"]) - ts(c["startTime"])
    measured = sum(r.get("measuredMilliseconds", 0) for r in c.get("repeatResults", [])) / 1000
    warm = warmup / 1000 * len(c.get("repeatResults", []))
    print("%4d  %11.0f  %10.1f  %8.0f  %21.1f  %15.1f" % (c["index"], wall, measured, warm, 100 * (wall - measured) / wall, 100 * (wall - measured - warm) / wall))
print("cells:", sb["status"]["progress"], "state:", [c["state"] for c in sb["status"]["cellResults"]],
      "attempts:", [c["attempts"] for c in sb["status"]["cellResults"]])
print("load average:", open("/proc/loadavg").read().split()[:3])
'
# The same per cell from the events' eventTime (microseconds, where status has whole seconds):
# CellStarted -> PeersStarted -> Cell<State>, this bench's uid only.
uid=$(kubectl get spiralbenches.spiralbench.io overhead -o jsonpath='{.metadata.uid}')
kubectl get events.events.k8s.io -o json | python3 -c '
import json, sys
from datetime import datetime
uid, warmup, seconds, repeats = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
ts = lambda v: datetime.strptime(v.rstrip("Z")[:26], "%Y-%m-%dT%H:%M:%S.%f").timestamp()
cells = {}
for e in json.load(sys.stdin)["items"]:
    if e.get("regarding", {}).get("uid") != uid or not e.get("eventTime"):
        continue
    cell = e.get("note", "").split()[1] if e.get("note", "").startswith("cell ") else "?"
    if e["reason"] == "PeersStarted":
        cell = "peers"
    cells.setdefault(cell, []).append((e["reason"], ts(e["eventTime"])))
print()
print("cell  started->peers_s  cell_wall_s (events)  operator_only_s  operator_only_%")
peers = sorted(t for _, t in cells.get("peers", []))
for cell, evs in sorted(cells.items()):
    start = [t for r, t in evs if r == "CellStarted"]
    end = [t for r, t in evs if r in ("CellValid", "CellInvalid", "CellFailed")]
    if not start or not end:
        continue
    s, w = min(start), max(end) - min(start)
    p = next((t - s for t in peers if t >= s), float("nan"))
    op = w - repeats * (warmup + seconds)
    print("%4s  %16.3f  %20.3f  %15.3f  %15.2f" % (cell, p, w, op, 100 * op / w))
' "$uid" "$WARMUP" "$SECONDS_PER_CELL" "$REPEATS"
