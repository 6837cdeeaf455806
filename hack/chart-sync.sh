#!/usr/bin/env bash
# Copies into charts/spiralbench what must stay identical to config/: the generated CRDs
# (crds/), the RBAC rules the chart templates its Roles from (files/), and the reference
# catalog compiled into the manager (files/reference-catalog.yaml, the ConfigMap fleets read).
#
#   hack/chart-sync.sh            write the copies
#   hack/chart-sync.sh --check    write nothing; fail and name each stale copy
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CHART="$ROOT/charts/spiralbench"
check=false
[[ ${1:-} == --check ]] && check=true

pairs=() # SOURCE DESTINATION ...
for crd in "$ROOT"/config/crd/bases/*.yaml; do pairs+=("$crd" "$CHART/crds/${crd##*/}"); done
pairs+=("$ROOT/config/rbac/role.yaml" "$CHART/files/manager-role.yaml")
pairs+=("$ROOT/config/rbac/leader_election_role.yaml" "$CHART/files/leader-election-role.yaml")
pairs+=("$ROOT/config/rbac/fleet_node_writes_role.yaml" "$CHART/files/fleet-node-writes-role.yaml")
pairs+=("$ROOT/config/rbac/user_roles.yaml" "$CHART/files/user-roles.yaml")
pairs+=("$ROOT/pkg/fleet/data/catalog.yaml" "$CHART/files/reference-catalog.yaml")

stale=0
for ((i = 0; i < ${#pairs[@]}; i += 2)); do
  src=${pairs[i]} dst=${pairs[i + 1]}
  cmp -s "$src" "$dst" && continue
  if $check; then echo "stale: ${dst#"$ROOT"/} differs from ${src#"$ROOT"/}" >&2; stale=1
  else mkdir -p "${dst%/*}" && cp "$src" "$dst" && echo "copied ${src#"$ROOT"/} -> ${dst#"$ROOT"/}"; fi
done
# A CRD removed from config/ must leave the chart too.
for dst in "$CHART"/crds/*.yaml; do
  [[ -e $dst && ! -e "$ROOT/config/crd/bases/${dst##*/}" ]] || continue
  if $check; then echo "stale: ${dst#"$ROOT"/} has no source in config/crd/bases" >&2; stale=1
  else rm "$dst" && echo "removed ${dst#"$ROOT"/}"; fi
done
if ((stale)); then echo "run: make chart-sync" >&2; exit 1; fi
$check && echo "chart copies of config/ are current"
true
