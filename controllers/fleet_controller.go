package controllers

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/bucket"
	"github.com/spiralbench/spiralbench/pkg/fleet"
	"github.com/spiralbench/spiralbench/pkg/policy"
)

// Labels on the SpiralBenches a fleet owns. The nodes a bench measures are in its placement
// (nodeName), so the fleet reads them from the bench's spec, never from its pods.
const (
	LabelFleet      = "spiralbench.io/fleet"
	LabelFleetKind  = "spiralbench.io/fleet-kind"
	LabelFleetRound = "spiralbench.io/fleet-round"
	// LabelFleetStep names the suite step of a fleet's bench or check pod (absent for the one
	// step of spec.template).
	LabelFleetStep = "spiralbench.io/fleet-step"
)

// annotationDeadlineExceeded marks a bench the fleet suspended at its step's deadline; the
// step's outcome is StepDeadlineExceeded, read back from the bench after a restart.
const annotationDeadlineExceeded = "spiralbench.io/fleet-deadline-exceeded"

// podNodeIndex indexes pods by spec.nodeName, for idle detection from the cache.
const podNodeIndex = "spec.nodeName"

// conflictRetry is how soon a step whose status write lost a race runs again.
const conflictRetry = 20 * time.Millisecond

// fleetRetry is how often a fleet with pending (busy, waiting) nodes looks again.
const fleetRetry = 5 * time.Second

// FleetReconciler runs SpiralBenchFleets. Like the bench reconciler it keeps nothing in
// memory: what each node's bench is follows from the owned SpiralBenches (deterministic
// names, labels, placement), what was decided is in status, and the upgrade gate's state is
// the node's own taint. A restarted manager rebuilds everything from those.
type FleetReconciler struct {
	client.Client
	// APIReader reads past the cache to tell a deleted bench from one the cache has not seen yet.
	APIReader client.Reader
	Recorder  events.EventRecorder
	// Store uploads the fleet summary and reads and writes node history.
	Store bucket.Store
	// DefaultBucket is used by fleets without spec.results.
	DefaultBucket BucketDefaults
	// AllowedEndpoints are the only spec.results endpoints it reads from (see SpiralBenchReconciler).
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
	// cell pods do (see SpiralBenchReconciler).
	DefaultImage  string
	AllowedImages policy.Images
}

// +kubebuilder:rbac:groups=spiralbench.io,resources=spiralbenchfleets,verbs=get;list;watch
// +kubebuilder:rbac:groups=spiralbench.io,resources=spiralbenchfleets/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=spiralbench.io,resources=spiralbenchfleets/finalizers,verbs=update
// +kubebuilder:rbac:groups=spiralbench.io,resources=spiralbenches,verbs=create;patch
// +kubebuilder:rbac:groups="",resources=pods,verbs=create;get;list;watch
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get

func (r *FleetReconciler) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

// Reconcile moves a fleet one step and persists it in status.
func (r *FleetReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var f sbv1.SpiralBenchFleet
	if err := r.Get(ctx, req.NamespacedName, &f); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if f.DeletionTimestamp != nil {
		return ctrl.Result{}, nil // the garbage collector removes the owned benches
	}
	before := f.DeepCopy()
	wait, creates, stepErr := r.step(ctx, &f)
	f.Status.ObservedGeneration = f.Generation
	if !equality.Semantic.DeepEqual(before.Status, f.Status) || len(creates) > 0 {
		// The optimistic lock keeps two steps from deciding on the same stale status (for
		// example launching past maxParallel): the loser retries on fresh data.
		if err := r.Status().Patch(ctx, &f, client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{})); err != nil {
			if apierrors.IsConflict(err) {
				return ctrl.Result{RequeueAfter: conflictRetry}, nil // a newer status exists: step again on it
			}
			return ctrl.Result{}, client.IgnoreNotFound(err)
		}
	}
	if stepErr == nil {
		stepErr = r.createBenches(ctx, &f, creates)
	}
	if stepErr != nil {
		return ctrl.Result{}, stepErr
	}
	return ctrl.Result{RequeueAfter: wait}, nil
}

// SetupWithManager registers the fleet controller: fleets, the benches they own (only when
// a bench's phase changes), and pool nodes (only when labels or taints change: a kubelet's
// heartbeat does not wake it).
func (r *FleetReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &corev1.Pod{}, podNodeIndex, func(o client.Object) []string {
		if n := o.(*corev1.Pod).Spec.NodeName; n != "" {
			return []string{n}
		}
		return nil
	}); err != nil {
		return err
	}
	benchPhase := predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
		o, n := e.ObjectOld.(*sbv1.SpiralBench), e.ObjectNew.(*sbv1.SpiralBench)
		return o.Status.Phase != n.Status.Phase
	}}
	nodeChange := predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
		o, n := e.ObjectOld.(*corev1.Node), e.ObjectNew.(*corev1.Node)
		return !equality.Semantic.DeepEqual(o.Labels, n.Labels) || !equality.Semantic.DeepEqual(o.Spec.Taints, n.Spec.Taints)
	}}
	checkPhase := predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
		return e.ObjectOld.(*corev1.Pod).Status.Phase != e.ObjectNew.(*corev1.Pod).Status.Phase
	}}
	return ctrl.NewControllerManagedBy(mgr).
		For(&sbv1.SpiralBenchFleet{}, builder.WithPredicates(predicate.Or[client.Object](predicate.GenerationChangedPredicate{}, predicate.AnnotationChangedPredicate{}))).
		Owns(&sbv1.SpiralBench{}, builder.WithPredicates(benchPhase)).
		Owns(&corev1.Pod{}, builder.WithPredicates(checkPhase)).
		Watches(&corev1.Node{}, handler.EnqueueRequestsFromMapFunc(r.fleetsOfNode), builder.WithPredicates(nodeChange)).
		Named("spiralbenchfleet").
		Complete(r)
}

// fleetsOfNode wakes every fleet whose pool the node is (or may have been) in. Fleets are
// few, so matching them all is cheap; a node that stopped matching must wake its old fleet
// too, so fleets whose status lists the node are woken as well.
func (r *FleetReconciler) fleetsOfNode(ctx context.Context, o client.Object) []reconcile.Request {
	var fleets sbv1.SpiralBenchFleetList
	if err := r.List(ctx, &fleets); err != nil {
		return nil
	}
	var out []reconcile.Request
	for i := range fleets.Items {
		f := &fleets.Items[i]
		sel, err := poolSelector(f)
		if err == nil && sel.Matches(labels.Set(o.GetLabels())) || hasRow(f, o.GetName()) {
			out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: f.Namespace, Name: f.Name}})
		}
	}
	return out
}
