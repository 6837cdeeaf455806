package main

// Why the manager holds each grant of config/rbac, by role and resource, with the verbs the
// reason covers. A verb granted without a reason here, or a reason for a verb no longer
// granted, fails the generator: add or correct the line when the RBAC markers change.
var reasons = map[string]reason{
	"ClusterRole/spiralbench-manager core/configmaps": {"get",
		"Read the CA bundle ConfigMap a bench or fleet names in `spec.results.caBundleRef`, in its own namespace."},
	"ClusterRole/spiralbench-manager core/namespaces": {"get",
		"Read the bench's namespace labels before its pods exist: `spiralbench.io/privileged` and `pod-security.kubernetes.io/enforce` (controllers/benchctrl/policy.go); a read is reused for 30 s, so a label changed on the namespace reaches the next attempt within 30 s (controllers/benchctrl/namespace_cache.go)."},
	"ClusterRole/spiralbench-manager core/nodes": {"get, list, watch",
		"Pick the nodes a bench's placement matches (Ready, schedulable, tolerated taints), record their kernel and GPU in `status.environment`, list a fleet's node pool."},
	"ClusterRole/spiralbench-manager core/pods": {"create, delete, deletecollection, get, list, watch",
		"Create each attempt's cell pods in the bench's namespace, watch them to judge the attempt, delete them when it ends or the bench goes (deletecollection: all of a bench's pods at once). A fleet lists the pods on each node to see whether it is idle, so the manager's cache holds every pod of the cluster."},
	"ClusterRole/spiralbench-manager events.k8s.io/events": {"create, patch",
		"Record what happened to benches and fleets (`kubectl describe`, `kubectl events`)."},
	"ClusterRole/spiralbench-manager spiralbench.io/spiralbenches": {"create, delete, get, list, patch, update, watch",
		"Reconcile benches: add and remove the finalizer, delete a bench after `ttlSecondsAfterFinished`. A fleet creates its benches and deletes those of an earlier round."},
	"ClusterRole/spiralbench-manager spiralbench.io/spiralbenches/finalizers": {"update",
		"Own the pods it creates with `blockOwnerDeletion`, which the OwnerReferencesPermissionEnforcement admission plugin checks against the owner's finalizers."},
	"ClusterRole/spiralbench-manager spiralbench.io/spiralbenchfleets/finalizers": {"update",
		"Own the benches a fleet creates with `blockOwnerDeletion` (as above)."},
	"ClusterRole/spiralbench-manager spiralbench.io/spiralbenches/status": {"get, patch, update",
		"Write a bench's progress, results and conditions."},
	"ClusterRole/spiralbench-manager spiralbench.io/spiralbenchfleets/status": {"get, patch, update",
		"Write a fleet's rounds, counts, failing and straggling nodes, and conditions."},
	"ClusterRole/spiralbench-manager spiralbench.io/spiralbenchnoderesults": {"create, deletecollection, get, list, update, watch",
		"Write each node's row of a fleet round (one small object per node and round, owned by the fleet), and delete a fleet's rounds older than the last five."},
	"ClusterRole/spiralbench-manager spiralbench.io/spiralbenchattemptresults": {"create, get, list, watch",
		"Write each finished attempt of a cell as a record the bench owns (every repeat it measured), and read them back for the verdict, the report and fleets. No update: a record is never changed once written."},
	"ClusterRole/spiralbench-manager spiralbench.io/spiralbenchfleets": {"get, list, watch",
		"Reconcile fleets; the manager never changes a fleet's spec."},
	"Role/spiralbench-manager core/secrets": {"get",
		"Read bucket credentials: the default bucket's Secret in the manager's namespace, and a bench's own Secret in each namespace of `credentials.namespaces`, used only when labelled `spiralbench.io/credentials=true`. Never list or watch, never cluster-wide."},
	"Role/spiralbench-leader-election coordination.k8s.io/leases": {"create, delete, get, list, patch, update, watch",
		"Leader election among manager replicas, and one Lease per node that keeps benches apart: taken for a bench's nodes, renewed with each attempt, released when it ends."},
	"Role/spiralbench-leader-election events.k8s.io/events": {"create, patch",
		"Leader election records an event when a replica takes over."},
	"Role/spiralbench-leader-election core/secrets": {"create, get",
		"The provenance key: create the Secret `spiralbench-provenance` with a random seed on the first start, read it on every start; it marks the objects the manager creates and signs what it uploads (`SIGNATURE.json`)."},
	"Role/spiralbench-leader-election core/configmaps": {"create, get, update",
		"Publish the results' public key in the ConfigMap `spiralbench-results-key`, for `sbctl verify` and gates that check a download offline; updated when the key changes."},
	"ClusterRole/spiralbench-fleet-node-writes core/nodes": {"patch",
		"Write a fleet's verdict labels and `spiralbench.io/verdict` taint, and the driver-upgrade gate's taint. Only granted with `fleet.nodeWrites=true`."},
}

// whoFor says whom each of config/rbac/user_roles.yaml's roles is for.
var whoFor = map[string]string{
	"spiralbench-view":         "Anyone who may read a namespace: benches, their results (status and attempt results), fleets.",
	"spiralbench-edit":         "Whoever runs benches in a namespace; no fleets, no Secrets, no pods.",
	"spiralbench-fleet-editor": "Node operators only: a fleet makes the manager bench, label and taint nodes across the cluster.",
}

type reason struct {
	verbs string // sorted, comma-separated
	why   string
}
