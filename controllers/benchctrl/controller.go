package benchctrl

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/controllers/benchstate"
	"github.com/spiralbench/spiralbench/pkg/attempts"
	"github.com/spiralbench/spiralbench/pkg/metrics"
)

// Reconcile moves a bench one step and persists the step in status.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var sb sbv1.SpiralBench
	if err := r.Get(ctx, req.NamespacedName, &sb); err != nil {
		if apierrors.IsNotFound(err) {
			metrics.Forget(req.Namespace, req.Name)
			r.staleReads.stale(req.NamespacedName, "")
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if r.staleReads.stale(req.NamespacedName, sb.ResourceVersion) {
		return ctrl.Result{RequeueAfter: staleReadRetry}, nil
	}
	if sb.DeletionTimestamp != nil {
		return ctrl.Result{}, r.finalize(ctx, &sb)
	}
	// Patches, not updates, for the finalizer: an update would send the spec back as Go reads it,
	// without the explicit zero values a user wrote, and the immutability rule would see a change.
	unfinalized := sb.DeepCopy()
	if controllerutil.AddFinalizer(&sb, benchstate.Finalizer) {
		if err := r.Patch(ctx, &sb, client.MergeFromWithOptions(unfinalized, client.MergeFromWithOptimisticLock{})); err != nil {
			return ctrl.Result{}, client.IgnoreNotFound(err)
		}
	}
	if err := r.attachAttempts(ctx, &sb); err != nil {
		return ctrl.Result{}, err
	}
	before := sb.DeepCopy()
	fx := &passEffects{EventRecorder: r.Recorder}
	pass := *r
	pass.Recorder = fx
	pass.takenNow = map[string]bool{}
	wait, passErr := pass.pass(ctx, &sb)
	sb.Status.ObservedGeneration = sb.Generation
	sb.Status.NodesText = nodesText(sb.Status.Nodes) // here, so that every path that sets nodes sets it
	if !equality.Semantic.DeepEqual(before.Status, sb.Status) {
		if err := r.Status().Patch(ctx, &sb, client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{})); err != nil {
			// Not persisted, not reported: on a conflict, this step was taken on a stale read
			// and reported when it was first persisted.
			return ctrl.Result{}, client.IgnoreNotFound(err)
		}
		r.staleReads.wrote(req.NamespacedName, before.ResourceVersion)
		fx.flush()
		ctrl.LoggerFrom(ctx).V(1).Info("status", "phase", sb.Status.Phase, "progress", sb.Status.Progress)
		if passErr == nil && wait == 0 && (sb.Status.Phase == sbv1.PhaseRunning || benchstate.Finished(&sb) || attemptsOf(before) != attemptsOf(&sb)) {
			// Progress was made: take the next step at once (our own status writes do not wake us);
			// a bench that has just finished goes on to its upload without waiting for an event,
			// and one whose attempt ended before it ran (still Pending: a pod in the way) to its next.
			return ctrl.Result{RequeueAfter: time.Millisecond}, nil
		}
	}
	fx.flush()
	if passErr != nil {
		return ctrl.Result{}, passErr
	}
	return ctrl.Result{RequeueAfter: wait}, nil
}

// finalize stops a deleted bench: what it measured goes to its bucket, its pods go, its
// leases are released.
func (r *Reconciler) finalize(ctx context.Context, sb *sbv1.SpiralBench) error {
	if !controllerutil.ContainsFinalizer(sb, benchstate.Finalizer) {
		return nil
	}
	if err := r.uploadDeleted(ctx, sb); err != nil {
		return err
	}
	if err := r.deleteAllPods(ctx, sb); err != nil {
		return err
	}
	if err := r.releaseAllHeld(ctx, sb); err != nil {
		return err
	}
	held := sb.DeepCopy()
	controllerutil.RemoveFinalizer(sb, benchstate.Finalizer)
	return client.IgnoreNotFound(r.Patch(ctx, sb, client.MergeFromWithOptions(held, client.MergeFromWithOptimisticLock{})))
}

// deletionStarted wakes the reconciler when a bench is being deleted, to run its finalizer.
var deletionStarted = predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
	return e.ObjectNew.GetDeletionTimestamp() != nil
}}

// SetupWithManager registers the reconciler. Spec changes and cell pod changes wake it;
// its own status writes do not.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.namespaces == nil {
		r.namespaces = newNamespaceCache()
	}
	if r.leaseVersions == nil {
		r.leaseVersions = &leaseVersions{}
	}
	if r.staleReads == nil {
		r.staleReads = &staleReads{}
	}
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &sbv1.SpiralBench{}, WaitingIndex, WaitingValue); err != nil {
		return err
	}
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &sbv1.SpiralBenchAttemptResult{}, attempts.BenchIndex, attempts.IndexBench); err != nil {
		return err
	}
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &corev1.Pod{}, podBenchIndex, indexPodBench); err != nil {
		return err
	}
	return ctrl.NewControllerManagedBy(mgr).
		For(&sbv1.SpiralBench{}, builder.WithPredicates(r.unsettledAtStart(), predicate.Or[client.Object](
			predicate.GenerationChangedPredicate{}, predicate.AnnotationChangedPredicate{}, deletionStarted))).
		Watches(&corev1.Pod{}, benchstate.OwnerEvents(sbv1.GroupVersion.WithKind("SpiralBench").GroupKind(),
			func(key types.NamespacedName, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
				q.Add(reconcile.Request{NamespacedName: key})
			})).
		Named("spiralbench").
		// A plain first-in first-out queue, not controller-runtime's priority queue: that one
		// files the initial list's benches (and their pods) at low priority, behind every
		// later event, so after a restart a bench whose pods had ended while no manager ran
		// got no new event and waited minutes behind the running benches' pod events, past
		// its fleet step's deadline (314 of 10,000 nodes, docs/benchmarks/fleet.md). The
		// initial list holds only benches with work left (unsettledAtStart), all due now.
		WithOptions(controller.Options{MaxConcurrentReconciles: max(r.Workers, 1), UsePriorityQueue: ptr.To(false)}).
		Complete(r)
}

// attemptsOf counts the attempts the bench's cells have recorded.
func attemptsOf(sb *sbv1.SpiralBench) (n int32) {
	for _, c := range sb.Status.CellResults {
		n += c.Attempts
	}
	return n
}
