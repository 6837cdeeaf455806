package fleetctrl

import (
	"context"
	"errors"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/controllers/benchstate"
)

// Reconcile moves a fleet one step and persists it: the fleet's status (small, with an
// optimistic lock), then the node results the step changed, then the benches it decided. The
// step that finishes a round writes its results before the status instead: whoever sees the
// round finished then reads every node's final row, and a manager killed between the two
// writes finds the round's rows decided and finishes it again.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	began := time.Now()
	pool := 0
	defer func() { r.stepTime.Store(req.NamespacedName, stepCost{took: time.Since(began), pool: pool}) }()
	var f sbv1.SpiralBenchFleet
	if err := r.Get(ctx, req.NamespacedName, &f); err != nil {
		if apierrors.IsNotFound(err) {
			r.foreign.forget(req.NamespacedName)
			r.reads.forget(req.NamespacedName)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if f.DeletionTimestamp != nil {
		r.reads.forget(req.NamespacedName)
		return ctrl.Result{}, nil // the garbage collector removes the owned benches and results
	}
	before := f.DeepCopy()
	v, wait, passErr := r.pass(ctx, &f)
	f.Status.ObservedGeneration = f.Generation
	var changed []*sbv1.FleetNode
	var creates []client.Object
	if v != nil {
		changed, creates, pool = v.changedRows(), v.toCreate, len(v.pool)
	}
	finishesRound := before.Status.RoundCompletionTime == nil && f.Status.RoundCompletionTime != nil
	if finishesRound {
		if res, stop, err := r.persistResults(ctx, &f, v, changed); stop {
			return res, err
		}
	}
	if !equality.Semantic.DeepEqual(before.Status, f.Status) || len(creates) > 0 || len(changed) > 0 {
		// The optimistic lock keeps two steps from deciding on the same stale status (for
		// example launching past maxParallel): the loser retries on fresh data.
		if err := r.Status().Patch(ctx, &f, client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{})); err != nil {
			if apierrors.IsConflict(err) {
				return ctrl.Result{RequeueAfter: conflictRetry}, nil // a newer status exists: step again on it
			}
			return ctrl.Result{}, client.IgnoreNotFound(err)
		}
	}
	if !finishesRound {
		// A bench is created only after the result saying its node runs it is written, so a
		// restarted manager finds the node Running and the bench (or its absence) in the cache.
		if res, stop, err := r.persistResults(ctx, &f, v, changed); stop {
			return res, err
		}
	}
	if passErr == nil {
		passErr = r.createBenches(ctx, &f, creates)
	}
	if passErr != nil {
		return ctrl.Result{}, passErr
	}
	return ctrl.Result{RequeueAfter: wait}, nil
}

// persistResults writes the step's changed rows. It stops the step on an error, or when a
// result changed since the step read it: the next step then decides on fresh rows.
func (r *Reconciler) persistResults(ctx context.Context, f *sbv1.SpiralBenchFleet, v *fleetView, changed []*sbv1.FleetNode) (ctrl.Result, bool, error) {
	if len(changed) == 0 {
		return ctrl.Result{}, false, nil
	}
	err := r.writeResults(ctx, f, v, changed)
	if errors.Is(err, errStaleResult) {
		return ctrl.Result{RequeueAfter: conflictRetry}, true, nil
	}
	return ctrl.Result{}, err != nil, err
}

// batchDelay spaces a fleet's steps when its benches change: an event waits ten times the
// fleet's last step before waking it, and the events arriving meanwhile join the same step. A
// step reads the whole pool from the cache, so its cost grows with the pool; spaced by ten
// times itself, the fleet controller stays under about a tenth of a core. That alone would let
// its work per node grow with the pool (at 10,000 nodes a step took about a second: a tenth of
// a core was 25 ms a node, ten times the 1,000-node figure), so the wait is bounded by the
// pool's size instead of a fixed time: maxBatchDelayPerNode a pool node, at least
// minBatchDelayCap. A large round then takes about as many steps as a small one, each step's
// cost is shared by as many more nodes, and a finished bench waits for its fleet's next step at
// most 2 s up to 2,000 nodes, 10 s at 10,000.
func (r *Reconciler) batchDelay(key types.NamespacedName) time.Duration {
	c, ok := r.stepTime.Load(key)
	if !ok {
		return 0
	}
	last := c.(stepCost)
	return min(10*last.took, max(minBatchDelayCap, time.Duration(last.pool)*maxBatchDelayPerNode))
}

// stepCost is a fleet's last step: how long it took and how many pool nodes it read.
type stepCost struct {
	took time.Duration
	pool int
}

const (
	// minBatchDelayCap bounds a small fleet's wait for its next step.
	minBatchDelayCap = 2 * time.Second
	// maxBatchDelayPerNode bounds a large fleet's: 10 s at 10,000 nodes.
	maxBatchDelayPerNode = time.Millisecond
)

// ownerFleet enqueues the fleet controlling a bench or check pod, batched by batchDelay.
func (r *Reconciler) ownerFleet() handler.EventHandler {
	return benchstate.OwnerEvents(sbv1.GroupVersion.WithKind("SpiralBenchFleet").GroupKind(),
		func(key types.NamespacedName, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			q.AddAfter(reconcile.Request{NamespacedName: key}, r.batchDelay(key))
		})
}

// SetupWithManager registers the fleet controller: fleets, the benches they own (only when
// a bench's phase changes), and pool nodes (only when labels or taints change: a kubelet's
// heartbeat does not wake it).
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
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
	r.cache = mgr.GetCache()
	return ctrl.NewControllerManagedBy(mgr).
		For(&sbv1.SpiralBenchFleet{}, builder.WithPredicates(predicate.Or[client.Object](predicate.GenerationChangedPredicate{}, predicate.AnnotationChangedPredicate{}))).
		Watches(&sbv1.SpiralBench{}, r.ownerFleet(), builder.WithPredicates(benchPhase)).
		Watches(&corev1.Pod{}, r.ownerFleet(), builder.WithPredicates(checkPhase)).
		Watches(&corev1.Node{}, r.poolNodes(), builder.WithPredicates(nodeChange)).
		Watches(&sbv1.SpiralBenchNodeResult{}, &handler.Funcs{}). // cached for the steps; a result wakes nothing
		Named("spiralbenchfleet").
		Complete(r)
}

// poolNodes wakes every fleet whose pool the node is or was in: the labels before and after a
// change are both matched, so a node that stopped matching wakes its old fleet. Fleets are
// few, so matching them all is cheap.
func (r *Reconciler) poolNodes() handler.EventHandler {
	enqueue := func(ctx context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request], objs ...client.Object) {
		var fleets sbv1.SpiralBenchFleetList
		if err := r.List(ctx, &fleets); err != nil {
			return
		}
		for i := range fleets.Items {
			f := &fleets.Items[i]
			sel, err := poolSelector(f)
			if err != nil {
				continue
			}
			for _, o := range objs {
				if sel.Matches(labels.Set(o.GetLabels())) {
					q.Add(reconcile.Request{NamespacedName: types.NamespacedName{Namespace: f.Namespace, Name: f.Name}})
					break
				}
			}
		}
	}
	return handler.Funcs{
		CreateFunc: func(ctx context.Context, e event.CreateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(ctx, q, e.Object)
		},
		UpdateFunc: func(ctx context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(ctx, q, e.ObjectOld, e.ObjectNew)
		},
		DeleteFunc: func(ctx context.Context, e event.DeleteEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(ctx, q, e.Object)
		},
	}
}
