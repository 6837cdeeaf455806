// Package fleetctrl reconciles SpiralBenchFleets: a node pool benched in rounds, node verdicts,
// stragglers and the driver-upgrade gate. It creates SpiralBenches and reads them back through
// benchstate; it never imports the bench reconciler (benchctrl).
package fleetctrl

import (
	"sync"
	"time"

	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/spiralbench/spiralbench/controllers/benchstate"
	"github.com/spiralbench/spiralbench/pkg/bucket"
	"github.com/spiralbench/spiralbench/pkg/fleet"
	"github.com/spiralbench/spiralbench/pkg/policy"
	"github.com/spiralbench/spiralbench/pkg/provenance"
)

// podNodeIndex indexes pods by spec.nodeName, for idle detection from the cache.
const podNodeIndex = "spec.nodeName"

// conflictRetry is how soon a step whose status write lost a race runs again.
const conflictRetry = 20 * time.Millisecond

// fleetRetry is how often a fleet with pending (busy, waiting) nodes looks again.
const fleetRetry = 5 * time.Second

// Reconciler runs SpiralBenchFleets. Like the bench reconciler it keeps nothing in
// memory: what each node's bench is follows from the owned SpiralBenches (deterministic
// names, labels, placement), what was decided is in status, and the upgrade gate's state is
// the node's own taint. A restarted manager rebuilds everything from those.
type Reconciler struct {
	client.Client
	// APIReader reads past the cache to tell a deleted bench from one the cache has not seen yet.
	APIReader client.Reader
	Recorder  events.EventRecorder
	// Store uploads the fleet summary and reads and writes node history.
	Store bucket.Store
	// Provenance is the manager's key: marks the objects it creates and signs what it uploads.
	Provenance *provenance.Key
	// DefaultBucket is used by fleets without spec.results.
	DefaultBucket benchstate.BucketDefaults
	// AllowedEndpoints are the only spec.results endpoints it reads from (see benchctrl.Reconciler).
	AllowedEndpoints []string
	// NodeWrites allows patching nodes (verdict labels and taints, the upgrade gate). The
	// chart grants the rights and sets it only when fleet.nodeWrites is true.
	NodeWrites bool
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// Catalog is the reference catalog of fleets without their own ConfigMap; nil is the
	// compiled-in one (pkg/fleet/data/catalog.yaml).
	Catalog *fleet.Catalog
	// DefaultImage and AllowedImages are the image policy external check pods must meet, as
	// cell pods do (see benchctrl.Reconciler).
	DefaultImage  string
	AllowedImages policy.Images

	// overlay reads this manager's own result writes back until the cache shows them.
	overlay resultOverlay
	// stepTime is each fleet's last stepCost, which spaces its steps (see batchDelay).
	stepTime sync.Map
	// foreign remembers the objects found in the way of a fleet's creates (fleetctrl/foreign.go).
	foreign foreignObjects
	// reads are what each fleet's steps derived from the cache's objects (read_memo.go).
	reads readMemos
	// specs are the stored specs of the fleet's bench shapes (stored_spec.go).
	specs storedSpecs
	// cache is the manager's informer cache, read in place by a step (pkg/incache); nil
	// (a Reconciler built without a manager) lists through Client.
	cache cache.Cache
}

// +kubebuilder:rbac:groups=spiralbench.io,resources=spiralbenchfleets,verbs=get;list;watch
// +kubebuilder:rbac:groups=spiralbench.io,resources=spiralbenchfleets/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=spiralbench.io,resources=spiralbenchfleets/finalizers,verbs=update
// +kubebuilder:rbac:groups=spiralbench.io,resources=spiralbenches,verbs=create;patch
// +kubebuilder:rbac:groups=spiralbench.io,resources=spiralbenchnoderesults,verbs=get;list;watch;create;update;deletecollection
// +kubebuilder:rbac:groups="",resources=pods,verbs=create;get;list;watch
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get

func (r *Reconciler) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}
