// Package benchctrl reconciles SpiralBench objects: a bench's cells, attempts, node leases,
// pods, results and upload. It shares with the fleet reconciler (fleetctrl) only benchstate.
package benchctrl

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/spiralbench/spiralbench/controllers/benchstate"
	"github.com/spiralbench/spiralbench/pkg/bucket"
	"github.com/spiralbench/spiralbench/pkg/policy"
	"github.com/spiralbench/spiralbench/pkg/provenance"
	"github.com/spiralbench/spiralbench/pkg/rendezvous"
)

// queuedRetry is how often a queued bench looks at its node again.
const queuedRetry = 3 * time.Second

// Reconciler runs each SpiralBench cell by cell. All progress lives in the API:
// status (the cells' aggregates, the active attempt, the leased nodes) and the bench's attempt
// results (the repeats each attempt measured), so the reconciler holds no state and a
// restarted manager resumes without losing or repeating a cell.
type Reconciler struct {
	client.Client
	// APIReader reads past the cache where a stale answer would be wrong: leases, and
	// whether a pod is really gone.
	APIReader client.Reader
	Recorder  events.EventRecorder
	// DefaultImage runs cells of benches that name no image.
	DefaultImage string
	// LeaseNamespace holds the per-node Leases.
	LeaseNamespace string
	// Uploader puts results into buckets.
	Uploader bucket.Uploader
	// Provenance is the manager's key: marks the objects it creates and signs what it uploads.
	Provenance *provenance.Key
	// PullPolicy of cell pods; empty means IfNotPresent.
	PullPolicy corev1.PullPolicy
	// DefaultBucket receives the results of benches without spec.results, when set.
	DefaultBucket benchstate.BucketDefaults
	// AllowedEndpoints are the only spec.results endpoints uploaded to (scheme://host[:port]);
	// empty allows any. The default bucket's endpoint is the operator's own and always allowed.
	AllowedEndpoints []string
	// AllowedImages are the images cell pods may run besides DefaultImage's repository (the
	// operator's own, always allowed); a bench naming another image is refused before any pod.
	AllowedImages policy.Images
	// AllowedPriorityClasses are the classes spec.priorityClassName may name; the zero value
	// allows any but system-*, so bench pods cannot preempt system pods.
	AllowedPriorityClasses policy.PriorityClasses
	// PrivilegedNamespaces may run privileged and host-network benches, besides namespaces
	// labelled spiralbench.io/privileged=true; elsewhere such benches are refused.
	PrivilegedNamespaces []string
	// DeadlineSlack is added to a cell's deadline before the controller gives up on its pods;
	// zero means DefaultDeadlineSlack.
	DeadlineSlack time.Duration
	// Workers reconcile different benches at once (never one bench twice at once); zero is
	// one. Node exclusivity does not rest on it: the per-node Leases are taken through the
	// apiserver's resourceVersion check.
	Workers int
	// Rendezvous, when set, lets rank 0 on the pod network announce its address to the manager
	// and the other ranks start beside it (pkg/rendezvous); nil starts them once the kubelet
	// reports rank 0's IP.
	Rendezvous *rendezvous.Server
	// takenNow are the nodes whose lease this reconcile created or took over (set on the
	// reconcile's own copy): their hold starts now, so the attempt need not renew it.
	takenNow map[string]bool
	// namespaces reuses namespace reads of the bench policy for a while (SetupWithManager
	// makes it; nil reads every time).
	namespaces *namespaceCache
	// leaseVersions lets a release skip reading the lease it wrote last (SetupWithManager makes
	// it; nil reads every time).
	leaseVersions *leaseVersions
	// staleReads keeps a reconcile from acting on a read its own last status write superseded
	// (SetupWithManager makes it; nil trusts every read).
	staleReads *staleReads
}

// staleReadRetry is how soon a reconcile that read a superseded bench looks again: the cache
// usually has the write within milliseconds.
const staleReadRetry = 50 * time.Millisecond

// +kubebuilder:rbac:groups=spiralbench.io,resources=spiralbenches,verbs=get;list;watch;update;patch;delete
// +kubebuilder:rbac:groups=spiralbench.io,resources=spiralbenches/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=spiralbench.io,resources=spiralbenches/finalizers,verbs=update
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch;create;delete;deletecollection
// +kubebuilder:rbac:groups="",resources=nodes,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get
// Secrets are read per namespace, through Roles the chart creates (credentials.namespaces);
// this marker is the one for the manager's own namespace (the default bucket's Secret).
// +kubebuilder:rbac:groups="",namespace=spiralbench-system,resources=secrets,verbs=get
// The per-node Leases live in the manager's own namespace: the Role of
// config/rbac/leader_election_role.yaml grants them there, never cluster-wide.
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
