#!/usr/bin/env bash
# Chart test: helm lint, then helm template with default and overridden values, checking that
# the rendered objects say what the values and config/ say (RBAC rules identical to
# config/rbac, CRD identical to config/crd/bases, flags, env, optional objects).
# Needs $HELM (make helm) and python3 with PyYAML (Debian python3-yaml).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
HELM=${HELM:-$(ls "$ROOT"/bin/helm-v* 2>/dev/null | tail -n1)}
[[ -x $HELM ]] || { echo "no helm: run make helm" >&2; exit 1; }
CHART="$ROOT/charts/spiralbench"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export HELM_CACHE_HOME="$tmp/cache" HELM_CONFIG_HOME="$tmp/config" HELM_DATA_HOME="$tmp/data"

"$HELM" lint --strict "$CHART"
"$HELM" lint --strict "$CHART" --set rbac.extraRules[0].apiGroups[0]=x,rbac.extraRules[0].resources[0]=y,rbac.extraRules[0].verbs[0]=get >/dev/null
# Offline, helm assumes Kubernetes v1.20, older than the chart's kubeVersion range.
render() {
  local out=$1; shift
  "$HELM" template sb "$CHART" --namespace spiralbench-system --include-crds --kube-version "${K8S_VERSION:-1.35.4}" "$@" >"$tmp/$out.yaml"
}
render defaults
render custom --set image.repository=spiralbench/manager,image.tag=dev,image.pullPolicy=Never \
  --set leaderElection.enabled=false,metrics.port=9090,hostNetwork=true \
  --set bucket.endpoint=http://127.0.0.1:7070,bucket.bucket=results,bucket.credentialsSecret=s3-creds \
  --set dataplane.image=spiralbench/dataplane:dev \
  --set 'rbac.extraRules[0].apiGroups[0]=,rbac.extraRules[0].resources[0]=pods,rbac.extraRules[0].verbs[0]=list' \
  --set 'credentials.namespaces={team-a,team-b}' --set 'results.allowedEndpoints={https://s3.example.com,http://10.0.0.5:7070}' \
  --set 'dataplane.allowedImages={registry.example.com/bench/,ghcr.io/x/y}' --set 'dataplane.privilegedNamespaces={lab}' \
  --set 'dataplane.allowedPriorityClasses={bench-low,bench-high}' \
  --set rbac.userRoles.aggregate=false
render nometrics --set metrics.port=0
render monitoring --set grafana.dashboard.enabled=true,grafana.dashboard.namespace=monitoring \
  --set metrics.serviceMonitor.enabled=true,metrics.serviceMonitor.labels.release=kps,metrics.prometheusRule.enabled=true
render nodewrites --set fleet.nodeWrites=true

python3 - "$ROOT" "$tmp" <<'PY'
import sys, yaml
root, tmp = sys.argv[1:]
failed = []
passed = 0
def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    global passed
    if ok: passed += 1
    else: failed.append(what)
def objs(name):
    return {(o["kind"], o["metadata"]["name"]): o for o in yaml.safe_load_all(open(f"{tmp}/{name}.yaml")) if o}
def load(path):
    return next(o for o in yaml.safe_load_all(open(f"{root}/{path}")) if o)
def container(o):
    return o[("Deployment", "sb-manager")]["spec"]["template"]["spec"]["containers"][0]
def env(c):
    return {e["name"]: e.get("value") for e in c["env"]}

d, c, n = objs("defaults"), objs("custom"), objs("nometrics")
m = objs("monitoring")
role_rules = load("config/rbac/role.yaml")["rules"]
check(d[("ClusterRole", "sb-manager")]["rules"] == role_rules, "ClusterRole rules == config/rbac/role.yaml")
check(c[("ClusterRole", "sb-manager")]["rules"] == role_rules + [{"apiGroups": [""], "resources": ["pods"], "verbs": ["list"]}],
      "rbac.extraRules appended after the generated rules")
check(d[("Role", "sb-manager-leader-election")]["rules"] == load("config/rbac/leader_election_role.yaml")["rules"],
      "leader-election Role rules == config/rbac/leader_election_role.yaml")
crd = load("config/crd/bases/spiralbench.io_spiralbenches.yaml")
check(d[("CustomResourceDefinition", crd["metadata"]["name"])] == crd, "CRD == config/crd/bases")
for kind in ("ServiceAccount", "ClusterRoleBinding", "RoleBinding", "Deployment"):
    check(any(k == kind for k, _ in d), f"{kind} rendered")
check(d[("Service", "sb-manager-metrics")]["spec"]["ports"][0]["port"] == 8080, "metrics Service on 8080")
check(("Service", "sb-manager-metrics") not in n, "metrics.port=0: no metrics Service")
w = objs("nodewrites")
check(("ClusterRole", "sb-manager-fleet-node-writes") not in d and all(
      "patch" not in r["verbs"] for r in d[("ClusterRole", "sb-manager")]["rules"] if "nodes" in r["resources"]),
      "default: no node patch rights")
check(w[("ClusterRole", "sb-manager-fleet-node-writes")]["rules"] == load("config/rbac/fleet_node_writes_role.yaml")["rules"]
      and ("ClusterRoleBinding", "sb-manager-fleet-node-writes") in w, "fleet.nodeWrites=true: node patch ClusterRole == config/rbac/fleet_node_writes_role.yaml, bound")
check(env(container(w))["SPIRALBENCH_FLEET_NODE_WRITES"] == "true" and env(container(d))["SPIRALBENCH_FLEET_NODE_WRITES"] == "false",
      "fleet.nodeWrites reaches the manager as SPIRALBENCH_FLEET_NODE_WRITES")
check("--metrics-bind-address=0" in container(n)["args"], "metrics.port=0: --metrics-bind-address=0")

dc, cc = container(d), container(c)
check(dc["image"] == "ghcr.io/spiralbench/manager:v0.1.0", "default image tag is the appVersion")
check("--leader-elect=true" in dc["args"] and "--metrics-bind-address=:8080" in dc["args"], "default flags")
check(cc["image"] == "spiralbench/manager:dev" and cc["imagePullPolicy"] == "Never", "image override")
check("--leader-elect=false" in cc["args"] and "--metrics-bind-address=:9090" in cc["args"], "leaderElection and metrics.port flags")
check(c[("Deployment", "sb-manager")]["spec"]["template"]["spec"].get("hostNetwork") is True, "hostNetwork")
e = env(cc)
check(e["SPIRALBENCH_BUCKET_ENDPOINT"] == "http://127.0.0.1:7070" and e["SPIRALBENCH_BUCKET"] == "results"
      and e["SPIRALBENCH_BUCKET_CREDENTIALS_SECRET"] == "s3-creds" and e["SPIRALBENCH_BUCKET_REGION"] == "us-east-1",
      "bucket defaults reach the manager's environment")
check(e["SPIRALBENCH_DATAPLANE_IMAGE"] == "spiralbench/dataplane:dev", "dataplane image reaches the manager's environment")
check(not any("SECRET_ACCESS_KEY" in str(v) for v in e), "no credentials in the Deployment")
# Secrets: never in the ClusterRole; a Role (the rules controller-gen generated for the
# manager's namespace) in the release namespace and in each of credentials.namespaces.
def all_objs(name):
    return [o for o in yaml.safe_load_all(open(f"{tmp}/{name}.yaml")) if o]
secret_rules = [o for o in yaml.safe_load_all(open(f"{root}/config/rbac/role.yaml")) if o and o["kind"] == "Role"][0]["rules"]
for name, want in (("defaults", {"spiralbench-system"}), ("custom", {"spiralbench-system", "team-a", "team-b"})):
    cluster = [r for o in all_objs(name) if o["kind"] == "ClusterRole" for r in o["rules"]]
    check(not any("secrets" in r.get("resources", []) for r in cluster), f"{name}: no cluster-wide grant on Secrets")
    roles = {o["metadata"]["namespace"]: o for o in all_objs(name) if o["kind"] == "Role" and o["metadata"]["name"] == "sb-manager-credentials"}
    bindings = {o["metadata"]["namespace"] for o in all_objs(name) if o["kind"] == "RoleBinding" and o["metadata"]["name"] == "sb-manager-credentials"}
    check(set(roles) == want and bindings == want, f"{name}: Secrets Role and RoleBinding in {sorted(want)}, got {sorted(roles)}")
    check(all(r["rules"] == secret_rules for r in roles.values()), f"{name}: Secrets Role rules == config/rbac/role.yaml's Role")
check(env(cc)["SPIRALBENCH_ALLOWED_IMAGES"] == "registry.example.com/bench/,ghcr.io/x/y" and env(dc)["SPIRALBENCH_ALLOWED_IMAGES"] == "",
      "dataplane.allowedImages reaches the manager's environment (empty: dataplane.image's repository only)")
check(env(cc)["SPIRALBENCH_PRIVILEGED_NAMESPACES"] == "lab" and env(dc)["SPIRALBENCH_PRIVILEGED_NAMESPACES"] == "",
      "dataplane.privilegedNamespaces reaches the manager's environment")
check(env(cc)["SPIRALBENCH_ALLOWED_PRIORITY_CLASSES"] == "bench-low,bench-high" and env(dc)["SPIRALBENCH_ALLOWED_PRIORITY_CLASSES"] == "",
      "dataplane.allowedPriorityClasses reaches the manager's environment (empty: any class not named system-*)")
# People's roles: config/rbac/user_roles.yaml's rules; aggregation labels unless turned off.
user_roles = {o["metadata"]["name"]: o for o in yaml.safe_load_all(open(f"{root}/config/rbac/user_roles.yaml")) if o}
for name, src in user_roles.items():
    dr, cr = d[("ClusterRole", name)], c[("ClusterRole", name)]
    agg = {k: v for k, v in src["metadata"].get("labels", {}).items() if k.startswith("rbac.authorization.k8s.io/aggregate-to-")}
    check(dr["rules"] == src["rules"] and all(dr["metadata"]["labels"].get(k) == v for k, v in agg.items()),
          f"{name}: rules and aggregation labels == config/rbac/user_roles.yaml")
    check(cr["rules"] == src["rules"] and not any(k.startswith("rbac.authorization.k8s.io/aggregate-to-") for k in cr["metadata"]["labels"]),
          f"{name}: rbac.userRoles.aggregate=false drops the aggregation labels")
check(not any(k.startswith("rbac.authorization.k8s.io/aggregate-to-") for k in user_roles["spiralbench-fleet-editor"]["metadata"].get("labels", {})),
      "spiralbench-fleet-editor aggregates nowhere")
check(env(cc)["SPIRALBENCH_ALLOWED_RESULTS_ENDPOINTS"] == "https://s3.example.com,http://10.0.0.5:7070", "results.allowedEndpoints reaches the manager's environment")
check(env(dc)["SPIRALBENCH_ALLOWED_RESULTS_ENDPOINTS"] == "", "no allow-list by default")
import json
check(not any(k in ("ServiceMonitor", "PrometheusRule") or (k == "ConfigMap" and nm.endswith("-dashboard")) for k, nm in d),
      "monitoring objects are off by default")
dash = m[("ConfigMap", "sb-manager-dashboard")]
check(dash["metadata"]["labels"].get("grafana_dashboard") == "1" and dash["metadata"]["namespace"] == "monitoring",
      "dashboard ConfigMap carries the sidecar label, in grafana.dashboard.namespace")
check(json.loads(dash["data"]["spiralbench.json"]) == json.load(open(f"{root}/charts/spiralbench/files/grafana-dashboard.json")),
      "dashboard ConfigMap holds files/grafana-dashboard.json")
sm = m[("ServiceMonitor", "sb-manager")]
check(sm["metadata"]["labels"].get("release") == "kps" and sm["spec"]["endpoints"][0]["port"] == "metrics"
      and all(d[("Service", "sb-manager-metrics")]["metadata"]["labels"].get(k) == v for k, v in sm["spec"]["selector"]["matchLabels"].items()),
      "ServiceMonitor selects the metrics Service's port, with its extra labels")
check(m[("PrometheusRule", "sb-manager")]["spec"] == yaml.safe_load(open(f"{root}/charts/spiralbench/files/prometheus-rules.yaml")),
      "PrometheusRule holds files/prometheus-rules.yaml")
cat = d[("ConfigMap", "sb-manager-reference-catalog")]
check(yaml.safe_load(cat["data"]["catalog.yaml"]) == yaml.safe_load(open(f"{root}/pkg/fleet/data/catalog.yaml"))
      and env(container(d))["SPIRALBENCH_REFERENCE_CATALOG"] == "/etc/spiralbench/catalog/catalog.yaml"
      and d[("Deployment", "sb-manager")]["spec"]["template"]["spec"]["volumes"][0]["configMap"]["name"] == "sb-manager-reference-catalog",
      "reference catalog ConfigMap == pkg/fleet/data/catalog.yaml, mounted where the manager reads it")
print(f"chart test: {passed} passed, {len(failed)} failed")
sys.exit(1 if failed else 0)
PY
