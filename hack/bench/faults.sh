#!/usr/bin/env bash
# The fault matrix of docs/reliability.md on the local cluster (not a test): each scenario runs
# a short TCP bench (3 cells x 1 repeat of 3 s, one retry) in namespace faults-trust, injects one
# fault, waits for the bench to finish, and prints a row: cells, results, cells lost, repeats
# run twice, failed cells with their reason, results uploaded, and samples in which pods of two
# benches ran at once (overlaps; a sampler polls every 0.5 s for the whole run).
#
#   flock /tmp/spiral-cluster.lock hack/bench/faults.sh            (all scenarios)
#   flock /tmp/spiral-cluster.lock hack/bench/faults.sh race2 race3 (some of them)
#   KEEP_STACK=1 leaves the stack up; it is brought up when it is not running.
#
# Scenarios: before-ready mid-measure drain manager-cell manager-upload bucket-down
#            bench-deleted race2 race3 port-in-use never-ready
set -Eeuo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=hack/bench/lib.sh
source "$ROOT/hack/bench/lib.sh"
NS=faults-trust
TMP=$(mktemp -d)
started_stack=0
env_file="$ROOT/build/stack.env"
if [[ -f $env_file ]] && "$ROOT/hack/local-cluster.sh" running >/dev/null 2>&1; then :; else
  env_file=$("$ROOT/hack/stack.sh" up | tail -n1); started_stack=1
fi
# shellcheck disable=SC1090
source "$env_file"
cleanup() {
  kill_descendants
  kubectl delete namespace "$NS" --ignore-not-found --wait=false >/dev/null 2>&1 || true
  "$ROOT/hack/s3-server.sh" up >/dev/null 2>&1 || true # a scenario may have stopped it
  ((started_stack)) && [[ ${KEEP_STACK:-0} != 1 ]] && "$ROOT/hack/stack.sh" down >/dev/null 2>&1
  rm -rf "$TMP"
}
trap cleanup EXIT
trap 'echo "faults.sh: line $LINENO: $BASH_COMMAND failed" >&2' ERR
kubectl create namespace "$NS" --dry-run=client -o yaml | kubectl apply -f - >/dev/null
# The "pu" scenario's bench uses the host network: allowed only in a namespace so labelled.
kubectl label namespace "$NS" spiralbench.io/privileged=true --overwrite >/dev/null
# One row of the table from a bench's JSON (stdin); args: scenario bench seconds overlaps.
cat >"$TMP/row.py" <<'PY'
import json, sys
scenario, bench, secs, overlaps = sys.argv[1:]
raw = sys.stdin.read()
if not raw.strip():
    print(f"{scenario:15} {bench:5} gone (deleted)  overlaps {overlaps}  {secs}s")
    sys.exit()
sb = json.loads(raw)
st = sb.get("status", {})
total = st.get("cells", {}).get("total", 0)
results = st.get("cellResults", [])
repeats = sb["spec"]["run"]["repeats"]
lost = total - len(results) if st.get("phase") in ("Completed", "Failed") else "-"
twice = 0
for c in results:
    rr = c.get("repeatResults", [])
    twice += max(0, len(rr) - repeats) + len(rr) - len({r["repeat"] for r in rr})
attempts = sum(c.get("attempts", 0) for c in results)
up = [c["status"] for c in st.get("conditions", []) if c["type"] == "ResultsUploaded"]
print(f"{scenario:15} {bench:5} {st.get('phase', ''):9} cells {total} results {len(results)} lost {lost} "
      f"twice {twice} attempts {attempts} uploaded {up[0] if up else '-'} overlaps {overlaps} {secs}s")
for c in results:
    if c["state"] != "Valid":
        print(f"{'':22} cell {c['index']} {c['state']}: {c.get('message', '')[:90]}")
PY

# bench NAME [SERVER_SIDE_YAML] [IMAGE]: a 3-cell TCP bench, results to the default bucket.
bench() {
  kubectl -n "$NS" apply -f - >/dev/null <<YAML
apiVersion: spiralbench.io/v1alpha1
kind: SpiralBench
metadata: {name: $1}
spec:
  transport: TCP
  ${3:+image: $3}
  matrix: {payloadBytes: [1000, 4000, 8000], pairs: [1]}
  run: {seconds: 3, warmupSeconds: 0, repeats: 1, retriesPerCell: 1, cellDeadlineSeconds: 20}
  topology: {server: {${2:-}}}
YAML
}
sb() { bench_json "$NS" "$1"; } # with its attempts' repeats; empty once it is gone
# until SECONDS CMD...: polls CMD every 0.2 s; fails after SECONDS.
until_true() {
  local end=$((SECONDS + $1)); shift
  until "$@"; do ((SECONDS < end)) || return 1; sleep 0.2; done
}
finished_or_gone() { local j; j=$(sb "$1"); [[ -z $j || $(jq -r '.status.phase // ""' <<<"$j") =~ ^(Completed|Failed)$ ]]; }
phase_is() { [[ $(sb "$1" | jq -r '.status.phase // ""') =~ ^($2)$ ]]; }
active_cell_is() { [[ $(sb "$1" | jq -r '.status.activeAttempt.cellIndex // -1') == "$2" ]]; }
# pod_ready BENCH CELL ROLE: the attempt's pod of ROLE exists (ready=any) or is Ready (ready=1).
pod_of() {
  kubectl -n "$NS" get pods -l "spiralbench.io/bench=$1,spiralbench.io/cell=$2,spiralbench.io/role=$3" -o json |
    jq -r '[.items[] | select(.metadata.deletionTimestamp == null)] | .[0] // empty'
}
pod_exists() { [[ -n $(pod_of "$1" "$2" "$3") ]]; }
pod_ready() { [[ $(pod_of "$1" "$2" "$3" | jq -r '[.status.conditions[]? | select(.type=="Ready") | .status][0] // ""') == True ]]; }
kill_pod() { kubectl -n "$NS" delete pods -l "spiralbench.io/bench=$1,spiralbench.io/cell=$2,spiralbench.io/role=$3" --wait=false >/dev/null; }
kill_manager() { kubectl -n spiralbench-system delete pods -l app.kubernetes.io/component=manager --wait=false >/dev/null; }

# sampler: one line per 0.5 s with the benches whose cell pods are Running at that moment.
sampler() {
  while :; do
    kubectl get pods -A -l spiralbench.io/bench -o json 2>/dev/null |
      jq -r '[.items[] | select(.status.phase=="Running") | .metadata.namespace + "/" + .metadata.labels["spiralbench.io/bench"]] | unique | join(" ")'
    sleep 0.5
  done
}

# row SCENARIO START BENCH...: waits for each bench to finish (or be gone) and prints its row.
row() {
  local scenario=$1 start=$2; shift 2
  local b
  for b in "$@"; do until_true 300 finished_or_gone "$b" || true; done
  # Results are uploaded after completion: give the upload (and a restarted manager) a moment.
  for b in "$@"; do
    [[ -n $(sb "$b") ]] || continue
    until_true 120 bash -c "kubectl -n $NS get sb $b -o json 2>/dev/null | jq -e '[.status.conditions[]? | select(.type==\"ResultsUploaded\" and .status==\"True\")] | length == 1' >/dev/null" || true
  done
  local overlaps
  overlaps=$(awk 'NF > 1' "$TMP/samples" | wc -l)
  for b in "$@"; do
    sb "$b" | python3 "$TMP/row.py" "$scenario" "$b" "$((SECONDS - start))" "$overlaps"
  done
}

run_scenario() {
  local s=$1 start=$SECONDS
  sampler >"$TMP/samples" & local sampler_pid=$!
  case $s in
    before-ready) # the server pod goes before it is Ready
      bench br; until_true 120 pod_exists br 0 server; kill_pod br 0 server; row "$s" "$start" br ;;
    mid-measure) # the server pod goes while the client measures
      bench mm; until_true 120 pod_exists mm 0 client; sleep 1.5; kill_pod mm 0 server; row "$s" "$start" mm ;;
    drain) # the server pod goes just after the 3 s window, while the summary is written
      bench dr; until_true 120 pod_exists dr 0 client; sleep 3.3; kill_pod dr 0 server; row "$s" "$start" dr ;;
    manager-cell) # the manager dies while a cell runs
      bench mc; until_true 120 active_cell_is mc 1; kill_manager; row "$s" "$start" mc ;;
    manager-upload) # the manager dies as the bench completes, before or during its upload
      bench mu; until_true 300 phase_is mu Completed; kill_manager; row "$s" "$start" mu ;;
    bucket-down) # the bucket stops during the run and comes back after it
      bench bd; until_true 120 active_cell_is bd 1; "$ROOT/hack/s3-server.sh" stop >/dev/null 2>&1
      until_true 300 phase_is bd Completed || true; sleep 10; "$ROOT/hack/s3-server.sh" up >/dev/null 2>&1
      row "$s" "$start" bd ;;
    bench-deleted) # the bench is deleted mid-run: its pods and lease must go
      bench del; until_true 120 active_cell_is del 1; kubectl -n "$NS" delete spiralbench del --wait=true --timeout=60s >/dev/null
      local deleted=$((SECONDS - start))
      # Pods go through termination: time until none is left at all.
      until_true 120 bash -c "[[ -z \$(kubectl -n $NS get pods -l spiralbench.io/bench=del -o name) ]]" || true
      local leases; leases=$(kubectl -n spiralbench-system get leases -o json | jq "[.items[] | select((.spec.holderIdentity // \"\") | startswith(\"$NS/del\"))] | length")
      echo "$s   del   deleted after ${deleted}s; pods left $(kubectl -n "$NS" get pods -l spiralbench.io/bench=del -o name | wc -l) at $((SECONDS - start))s, leases held $leases"
      row "$s" "$start" del ;;
    race2) bench r2a; bench r2b; row "$s" "$start" r2a r2b ;;
    race3) bench r3a; bench r3b; bench r3c; row "$s" "$start" r3a r3b r3c ;;
    port-in-use) # a host-network server whose data port is taken on the node
      python3 -c 'import socket,time; s=[socket.socket() for _ in range(2)]; [x.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1) or x.bind(("0.0.0.0", p)) or x.listen() for x, p in zip(s, (5200, 5201))]; time.sleep(600)' &
      bench pu "hostNetwork: true"; row "$s" "$start" pu ;;
    never-ready) # the server never becomes ready (its image is not on the node, pull policy Never)
      bench nr "" "spiralbench/dataplane:missing-trust"; row "$s" "$start" nr ;;
    *) echo "unknown scenario $s" >&2; return 2 ;;
  esac
  kill "$sampler_pid" 2>/dev/null || true
  kill_descendants
}

scenarios=("$@")
((${#scenarios[@]})) || scenarios=(before-ready mid-measure drain manager-cell manager-upload bucket-down bench-deleted race2 race3 port-in-use never-ready)
echo "fault matrix on $(hostname), $(date -u +%FT%TZ), branch $(git -C "$ROOT" rev-parse --abbrev-ref HEAD)@$(git -C "$ROOT" rev-parse --short HEAD)"
for s in "${scenarios[@]}"; do run_scenario "$s"; done
