#!/usr/bin/env bash
# Regenerates the kinds' admission rules, DeepCopy code, CRDs and RBAC in a copy of the working
# tree and fails when they differ from what the tree holds: stale generated files never land.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
: "${CONTROLLER_GEN:?set CONTROLLER_GEN to the controller-gen binary}"
CONTROLLER_GEN=$(realpath "$CONTROLLER_GEN")
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$tmp" 2>/dev/null || true
(
  cd "$tmp"
  go run ./hack/gen-admission api/v1alpha1/zz_generated_admission.go
  "$CONTROLLER_GEN" object:headerFile="hack/boilerplate.go.txt" paths="./..."
  go run ./hack/gen-limits > dataplane/generated/spiral/limits.hpp
  "$CONTROLLER_GEN" rbac:roleName=spiralbench-manager crd paths="./..." \
    output:crd:artifacts:config=config/crd/bases output:rbac:artifacts:config=config/rbac
)
status=0
for p in api config/crd/bases config/rbac/role.yaml dataplane/generated; do
  if ! diff -r "$p" "$tmp/$p" >/dev/null 2>&1; then
    echo "stale generated files under $p: run 'make generate manifests'" >&2
    diff -r "$p" "$tmp/$p" | head -20 >&2 || true
    status=1
  fi
done
exit $status
