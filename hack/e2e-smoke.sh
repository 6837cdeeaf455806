#!/usr/bin/env bash
# End-to-end smoke test on this machine, the way a user installs SpiralBench:
#   cluster up -> images (build + import) -> helm install charts/spiralbench -> manager Available
#   -> kubectl apply config/samples/tcp-sweep.yaml -> SpiralBench Accepted -> helm uninstall
#   -> cluster down
# and prints how long each step took. Needs root and $HELM (make helm).
# KEEP_CLUSTER=1 leaves the cluster running (and the release installed on failure) to look around.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
HELM=${HELM:-$(ls "$ROOT"/bin/helm-v* 2>/dev/null | tail -n1)}
[[ -x $HELM ]] || { echo "no helm: run make helm" >&2; exit 1; }
NS=spiralbench-system
RELEASE=spiralbench
SAMPLE="$ROOT/config/samples/tcp-sweep.yaml"
TIMINGS=${E2E_TIMINGS:-$ROOT/build/e2e-smoke-timings.txt}
tmp=$(mktemp -d)
export HELM_CACHE_HOME="$tmp/helm/cache" HELM_CONFIG_HOME="$tmp/helm/config" HELM_DATA_HOME="$tmp/helm/data"

declare -a report=()
# step NAME CMD...: runs CMD, records its wall time.
step() {
  local name=$1 t0=${EPOCHREALTIME/./} dt; shift
  echo "=== $name" >&2
  "$@"
  dt=$(((${EPOCHREALTIME/./} - t0) / 1000))
  report+=("$(printf '%-28s %7.1f s' "$name" "$((dt))e-3")")
  echo "=== $name: $(printf '%.1f' "$((dt))e-3") s" >&2
}

diagnose() {
  echo "--- diagnostics" >&2
  kubectl get nodes,pods -A -o wide >&2 || true
  kubectl -n "$NS" describe deployment "$RELEASE-manager" >&2 || true
  kubectl -n "$NS" logs "deployment/$RELEASE-manager" --tail=50 >&2 || true
  kubectl get spiralbench -A -o yaml >&2 || true
  # The component logs go with the state dir on down; show their ends first.
  tail -n 15 "${SPIRALBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/spiralbench}"/cluster/logs/*.log >&2 || true
}

finish() {
  local rc=$?
  if ((rc != 0)); then diagnose; fi
  if [[ ${KEEP_CLUSTER:-0} != 1 ]]; then
    ((rc == 0)) || "$ROOT/hack/local-cluster.sh" down >&2 || true
  fi
  rm -rf "$tmp"
  ((rc == 0)) && echo "E2E SMOKE PASSED" || echo "E2E SMOKE FAILED (exit $rc)"
  exit "$rc"
}
trap finish EXIT

cluster_up() { export KUBECONFIG; KUBECONFIG=$("$ROOT/hack/local-cluster.sh" up | tail -n1); }
images() {
  "$ROOT/hack/build-images.sh" all
  "$ROOT/hack/local-cluster.sh" load "$ROOT"/build/images/{pause,manager,dataplane}.tar
}
helm_install() {
  "$HELM" upgrade --install "$RELEASE" "$ROOT/charts/spiralbench" --namespace "$NS" --create-namespace \
    --set image.repository=spiralbench/manager,image.tag=dev,image.pullPolicy=Never \
    --set dataplane.image=spiralbench/dataplane:dev,dataplane.pullPolicy=Never
}
manager_available() {
  kubectl -n "$NS" wait --for=condition=Available "deployment/$RELEASE-manager" --timeout=180s
}
apply_sample() { kubectl apply -f "$SAMPLE"; }
sample_accepted() {
  kubectl wait --for=condition=Accepted spiralbench/tcp-sweep --timeout=60s
  kubectl get spiralbench tcp-sweep
  kubectl get spiralbench tcp-sweep -o jsonpath='{.status.conditions[?(@.type=="Accepted")].message}{"\n"}'
}
helm_uninstall() {
  kubectl delete -f "$SAMPLE" --wait=true --timeout=60s
  "$HELM" uninstall "$RELEASE" --namespace "$NS" --wait --timeout 120s
  # The CRD is not the release's (crds/ is installed once, never deleted by Helm).
  kubectl delete -f "$ROOT/charts/spiralbench/crds/" --wait=true --timeout=60s
}
cluster_down() { "$ROOT/hack/local-cluster.sh" down; }

t_all=${EPOCHREALTIME/./}
step "cluster up" cluster_up
step "images (build + import)" images
step "helm install" helm_install
step "manager Available" manager_available
step "apply tcp-sweep" apply_sample
step "tcp-sweep Accepted" sample_accepted
step "helm uninstall" helm_uninstall
[[ ${KEEP_CLUSTER:-0} == 1 ]] || step "cluster down" cluster_down
total=$(((${EPOCHREALTIME/./} - t_all) / 1000))
report+=("$(printf '%-28s %7.1f s' total "$((total))e-3")")
mkdir -p "${TIMINGS%/*}"
printf '%s\n' "${report[@]}" | tee "$TIMINGS"
