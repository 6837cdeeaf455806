#!/usr/bin/env bash
# The whole stack a user would have, on this machine: the local cluster, an S3 server the
# pods can reach, the images, and the operator installed with Helm.
#
#   hack/stack.sh up      -> writes build/stack.env (hack/stack-env.sh: KUBECONFIG, the bucket, PATH),
#                            prints its path last
#   hack/stack.sh down    -> uninstalls, stops S3 and the cluster, restores the host
#
# Needs root, build/dataplane/spiral-dataplane (make dataplane) and $HELM (make helm).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
HELM=${HELM:-$(ls "$ROOT"/bin/helm-v* 2>/dev/null | tail -n1)}
NS=spiralbench-system
RELEASE=spiralbench
ENV_FILE="$ROOT/build/stack.env"
# The S3 server listens on the cluster bridge's gateway: the host and every pod reach it there,
# and nothing outside this machine does.
export S3_HOST=${S3_HOST:-10.244.0.1} S3_PORT=${S3_PORT:-7070}
# up's three phases print a line each (hack/lib/phase.sh); their output goes to the run's log
# (build/logs/stack.log, or the log of the run that started this script).
source "$ROOT/hack/lib/phase.sh"
UP_DIR="$ROOT/build/stack.up" # what the phases' subshells hand back: the kubeconfig, the endpoint

# last_line FILE CMD...: CMD's output to the log, its last line to FILE
last_line() { local out; out=$("${@:2}"); echo "$out"; echo "${out##*$'\n'}" >"$1"; }
start_cluster() {
  last_line "$UP_DIR/kubeconfig" "$ROOT/hack/local-cluster.sh" up
  last_line "$UP_DIR/endpoint" "$ROOT/hack/s3-server.sh" up
}
load_images() {
  "$ROOT/hack/build-images.sh" all
  "$ROOT/hack/local-cluster.sh" load "$ROOT"/build/images/{pause,manager,dataplane}.tar
}

up() {
  [[ -x $HELM ]] || { echo "no helm: run make helm" >&2; exit 1; }
  [[ -x $ROOT/build/dataplane/spiral-dataplane ]] || { echo "no data plane binary: run make dataplane" >&2; exit 1; }
  phase_init stack 3
  rm -rf "$UP_DIR" && mkdir -p "$UP_DIR"
  phase_run "the local cluster (containerd, etcd, apiserver, kubelet) and the S3 server" every start_cluster
  export KUBECONFIG
  KUBECONFIG=$(<"$UP_DIR/kubeconfig")
  endpoint=$(<"$UP_DIR/endpoint")
  phase_run "the images (pause, manager, data plane), loaded into the cluster" every load_images
  phase_run "the operator, installed with Helm" every install_operator
  mkdir -p "${ENV_FILE%/*}"
  local k8s_bin
  k8s_bin=$("$ROOT/hack/k8s-assets.sh" cluster | tail -n1)
  SPIRALBENCH_NAMESPACE=$NS SPIRALBENCH_RELEASE=$RELEASE \
    "$ROOT/hack/stack-env.sh" "$KUBECONFIG" "$endpoint" "$k8s_bin" "$ROOT" >"$ENV_FILE"
  echo "$ENV_FILE"
}

install_operator() {
  # Helm installs crds/ once and never upgrades them: apply the current CRD first, or the
  # apiserver would prune every status field added since.
  kubectl apply --server-side --force-conflicts -f "$ROOT/charts/spiralbench/crds/" >&2
  # The default bucket: benches without spec.results upload there (chart values bucket.*).
  kubectl create namespace "$NS" --dry-run=client -o yaml | kubectl apply -f - >&2
  kubectl -n "$NS" create secret generic spiralbench-bucket --dry-run=client -o yaml \
    --from-literal=accessKeyID="${S3_ACCESS_KEY:-spiralbench-test}" \
    --from-literal=secretAccessKey="${S3_SECRET_KEY:-spiralbench-test-secret}" | kubectl apply -f - >&2
  "$HELM" upgrade --install "$RELEASE" "$ROOT/charts/spiralbench" --namespace "$NS" \
    --set image.repository=spiralbench/manager,image.tag=dev,image.pullPolicy=Never \
    --set dataplane.image=spiralbench/dataplane:dev,dataplane.pullPolicy=Never \
    --set bucket.endpoint="$endpoint",bucket.bucket="${S3_BUCKET:-spiralbench-results}",bucket.credentialsSecret=spiralbench-bucket \
    --set "results.allowedEndpoints={$endpoint}" \
    --set fleet.nodeWrites=true \
    --wait --timeout 180s >&2
  # Same tag, new image: a Deployment whose spec did not change would keep the old pod.
  kubectl -n "$NS" rollout restart "deployment/$RELEASE-manager" >&2
  kubectl -n "$NS" rollout status "deployment/$RELEASE-manager" --timeout=180s >&2
}

down() {
  if [[ -f $ENV_FILE ]]; then
    # shellcheck disable=SC1090
    source "$ENV_FILE"
    if "$ROOT/hack/local-cluster.sh" running 2>/dev/null && [[ -x $HELM ]]; then
      "$HELM" uninstall "$RELEASE" --namespace "$NS" --timeout 60s >&2 || true
    fi
  fi
  "$ROOT/hack/s3-server.sh" down >&2 || true
  "$ROOT/hack/local-cluster.sh" down >&2
  rm -f "$ENV_FILE"
}

case ${1:-} in
  up) up ;;
  down) down ;;
  *) echo "usage: $0 up|down" >&2; exit 2 ;;
esac
