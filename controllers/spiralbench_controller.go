// Package controllers reconciles SpiralBench objects.
package controllers

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/attempts"
	"github.com/spiralbench/spiralbench/pkg/benchkind"
	"github.com/spiralbench/spiralbench/pkg/bucket"
	"github.com/spiralbench/spiralbench/pkg/metrics"
	"github.com/spiralbench/spiralbench/pkg/plan"
	"github.com/spiralbench/spiralbench/pkg/policy"
	"github.com/spiralbench/spiralbench/pkg/provenance"
)

// finalizer releases the bench's node leases and pods before it goes away.
const finalizer = "spiralbench.io/release"

// queuedRetry is how often a queued bench looks at its node again.
const queuedRetry = 3 * time.Second

// SpiralBenchReconciler runs each SpiralBench cell by cell. All progress lives in the API:
// status (the cells' aggregates, the active attempt, the leased nodes) and the bench's attempt
// results (the repeats each attempt measured), so the reconciler holds no state and a
// restarted manager resumes without losing or repeating a cell.
type SpiralBenchReconciler struct {
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
	DefaultBucket BucketDefaults
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

// Reconcile moves a bench one step and persists the step in status.
func (r *SpiralBenchReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
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
	if controllerutil.AddFinalizer(&sb, finalizer) {
		if err := r.Patch(ctx, &sb, client.MergeFromWithOptions(unfinalized, client.MergeFromWithOptimisticLock{})); err != nil {
			return ctrl.Result{}, client.IgnoreNotFound(err)
		}
	}
	if err := r.attachAttempts(ctx, &sb); err != nil {
		return ctrl.Result{}, err
	}
	before := sb.DeepCopy()
	fx := &stepEffects{EventRecorder: r.Recorder}
	step := *r
	step.Recorder = fx
	step.takenNow = map[string]bool{}
	wait, stepErr := step.step(ctx, &sb)
	sb.Status.ObservedGeneration = sb.Generation
	if !equality.Semantic.DeepEqual(before.Status, sb.Status) {
		if err := r.Status().Patch(ctx, &sb, client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{})); err != nil {
			// Not persisted, not reported: on a conflict, this step was taken on a stale read
			// and reported when it was first persisted.
			return ctrl.Result{}, client.IgnoreNotFound(err)
		}
		r.staleReads.wrote(req.NamespacedName, before.ResourceVersion)
		fx.flush()
		ctrl.LoggerFrom(ctx).V(1).Info("status", "phase", sb.Status.Phase, "progress", sb.Status.Progress)
		if stepErr == nil && wait == 0 && (sb.Status.Phase == sbv1.PhaseRunning || finished(&sb)) {
			// Progress was made: take the next step at once (our own status writes do not wake us);
			// a bench that has just finished goes on to its upload without waiting for an event.
			return ctrl.Result{RequeueAfter: time.Millisecond}, nil
		}
	}
	fx.flush()
	if stepErr != nil {
		return ctrl.Result{}, stepErr
	}
	return ctrl.Result{RequeueAfter: wait}, nil
}

// step is one move of the bench's state machine. It changes sb.Status in memory only.
func (r *SpiralBenchReconciler) step(ctx context.Context, sb *sbv1.SpiralBench) (time.Duration, error) {
	cells, err := plan.Expand(&sb.Spec)
	if err != nil {
		// Admission refuses what it can see; this catches anything it cannot.
		if setCondition(sb, sbv1.ConditionAccepted, metav1.ConditionFalse, sbv1.ReasonInvalidSpec, err.Error()) {
			r.Recorder.Eventf(sb, nil, corev1.EventTypeWarning, sbv1.ReasonInvalidSpec, "Plan", "%s", err.Error())
		}
		sb.Status.Phase = sbv1.PhaseFailed
		setCondition(sb, sbv1.ConditionFailed, metav1.ConditionTrue, sbv1.ReasonInvalidSpec, err.Error())
		return 0, nil
	}
	r.recordPlan(sb, cells)

	switch sb.Status.Phase {
	case sbv1.PhaseCompleted, sbv1.PhaseFailed:
		if wait := r.uploadResults(ctx, sb); wait > 0 {
			return wait, nil
		}
		return r.expireIfDue(ctx, sb)
	}
	leaving, err := r.cleanupPods(ctx, sb)
	if err != nil {
		return 0, err
	}
	if sb.Status.ActiveAttempt != nil {
		if stopsNow(sb) {
			return 0, r.stopAttempt(ctx, sb, cells)
		}
		// A running attempt finishes even when suspended: its numbers are worth keeping.
		wait, err := r.observeAttempt(ctx, sb, cells)
		if err != nil || sb.Status.ActiveAttempt != nil {
			return wait, err
		}
		// The attempt ended and its record is written (should this step's status write fail,
		// the retaken step finds the pods gone and recordAttempt returns that first record), so
		// its pods may go now, and the last cell's end and the bench's completion are one status
		// write: at fleet scale a write per bench saved is a request per step of every node
		// (docs/benchmarks/fleet.md).
		if leaving, err = r.cleanupPods(ctx, sb); err != nil {
			return 0, err
		}
		if _, more := nextCell(sb, cells); more {
			return 0, nil
		}
	}
	next, ok := nextCell(sb, cells)
	if !ok {
		if leaving > 0 { // the nodes are given back once the last attempt's pods have left them
			return leaving, nil
		}
		r.complete(ctx, sb)
		return 0, nil
	}
	if ptr.Deref(sb.Spec.Suspend, false) {
		return r.suspend(ctx, sb, leaving), nil
	}
	if refusal, err := r.admit(ctx, sb, next); err != nil || refusal != nil {
		if err != nil {
			return 0, err
		}
		return 0, r.refuse(ctx, sb, refusal)
	}
	if sb.Status.StartTime == nil {
		if wait, ok := r.resultsReady(ctx, sb); !ok {
			return wait, nil
		}
	}
	if wait, ok, err := r.schedulable(ctx, sb, leaving); err != nil || !ok {
		return wait, err
	}
	if err := r.acquireNodes(ctx, sb); err != nil {
		var q *queuedError
		if !errors.As(err, &q) {
			return 0, err
		}
		r.queue(sb, q.msg)
		return queuedRetry, nil
	}
	r.captureEnvironment(ctx, sb)
	return r.startAttempt(ctx, sb, next)
}

// queue puts the bench back in line behind a node that is busy.
func (r *SpiralBenchReconciler) queue(sb *sbv1.SpiralBench, msg string) {
	sb.Status.Phase = sbv1.PhaseQueued
	if setCondition(sb, sbv1.ConditionRunning, metav1.ConditionFalse, sbv1.ReasonNodeBusy, msg) {
		r.Recorder.Eventf(sb, nil, corev1.EventTypeNormal, sbv1.ReasonNodeBusy, "Queue", "%s", msg)
	}
}

func (r *SpiralBenchReconciler) recordPlan(sb *sbv1.SpiralBench, cells []plan.Cell) {
	total := int32(len(cells))
	headline := cells[0]
	for _, c := range cells {
		if c.Headline {
			headline = c
		}
	}
	msg := fmt.Sprintf("planned %d cells x %d repeats; headline cell %d: %s", total, max(sb.Spec.Run.Repeats, 1), headline.Index, describe(sb.Spec.Transport, headline.CellParameters))
	if setCondition(sb, sbv1.ConditionAccepted, metav1.ConditionTrue, sbv1.ReasonPlanned, msg) {
		r.Recorder.Eventf(sb, nil, corev1.EventTypeNormal, sbv1.ReasonPlanned, "Plan", "%s", msg)
		if shared := sharedCores(&sb.Spec); shared != "" {
			r.Recorder.Eventf(sb, nil, corev1.EventTypeWarning, ReasonCoresShared, "Plan", "%s", shared)
		}
	}
	sb.Status.Cells.Total = total
	updateCounts(sb)
	if sb.Status.Phase == "" {
		sb.Status.Phase = sbv1.PhasePending
		setCondition(sb, sbv1.ConditionRunning, metav1.ConditionFalse, sbv1.ReasonAwaitingRunner, "waiting for the first cell to start")
	}
}

// suspend stops the bench between cells. Its nodes are given back once the pods of its last
// attempt have left them (leaving: how long that may still take); until then it waits.
func (r *SpiralBenchReconciler) suspend(ctx context.Context, sb *sbv1.SpiralBench, leaving time.Duration) time.Duration {
	if sb.Status.Phase != sbv1.PhaseSuspended {
		r.Recorder.Eventf(sb, nil, corev1.EventTypeNormal, sbv1.ReasonSuspended, "Suspend", "suspended at %s cells", sb.Status.Progress)
	}
	sb.Status.Phase = sbv1.PhaseSuspended
	setCondition(sb, sbv1.ConditionRunning, metav1.ConditionFalse, sbv1.ReasonSuspended, "spec.suspend is true; set it to false to resume at cell "+sb.Status.Progress)
	if leaving > 0 {
		return leaving
	}
	r.releaseNodes(ctx, sb, sb.Status.Nodes)
	sb.Status.Nodes = nil
	return 0
}

// finalize stops a deleted bench: what it measured goes to its bucket, its pods go, its
// leases are released.
func (r *SpiralBenchReconciler) finalize(ctx context.Context, sb *sbv1.SpiralBench) error {
	if !controllerutil.ContainsFinalizer(sb, finalizer) {
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
	controllerutil.RemoveFinalizer(sb, finalizer)
	return client.IgnoreNotFound(r.Patch(ctx, sb, client.MergeFromWithOptions(held, client.MergeFromWithOptimisticLock{})))
}

// deletionStarted wakes the reconciler when a bench is being deleted, to run its finalizer.
var deletionStarted = predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
	return e.ObjectNew.GetDeletionTimestamp() != nil
}}

// describe names a cell the way the seed's tables do, with its transport.
func describe(t sbv1.Transport, p sbv1.CellParameters) string {
	return string(t) + " " + benchkind.Parameters(t, p)
}

// SetupWithManager registers the reconciler. Spec changes and cell pod changes wake it;
// its own status writes do not.
func (r *SpiralBenchReconciler) SetupWithManager(mgr ctrl.Manager) error {
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
		Owns(&corev1.Pod{}).
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
