package benchctrl

import (
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/controllers/benchstate"
)

// A (re)started manager's informer delivers every bench once, as created. A finished bench
// that needs no further step is left out of that first list: at 10,000 nodes a restarted
// manager otherwise queued some 15,000 finished benches beside the few hundred running ones
// (docs/benchmarks/fleet.md), and the bench queue is first-in first-out. Any later change of
// such a bench (its deletion, an annotation, a spec edit) still wakes it, as do its pods.

// settled says the bench is finished and no step of this manager would change it: no attempt
// open, its results uploaded (or none to upload), no TTL to keep, not being deleted, and the
// finalizer it always carries once reconciled.
func (r *Reconciler) settled(sb *sbv1.SpiralBench) bool {
	if sb.Status.Phase != sbv1.PhaseCompleted && sb.Status.Phase != sbv1.PhaseFailed {
		return false
	}
	if sb.DeletionTimestamp != nil || !controllerutil.ContainsFinalizer(sb, benchstate.Finalizer) || sb.Status.ActiveAttempt != nil ||
		sb.Spec.TTLSecondsAfterFinished != nil || sb.Status.ObservedGeneration != sb.Generation {
		return false
	}
	return !r.uploadOwed(sb)
}

// unsettledAtStart passes every event but the initial list's settled benches.
func (r *Reconciler) unsettledAtStart() predicate.Predicate {
	return predicate.Funcs{CreateFunc: func(e event.CreateEvent) bool {
		sb, ok := e.Object.(*sbv1.SpiralBench)
		return !ok || !e.IsInInitialList || !r.settled(sb)
	}}
}
