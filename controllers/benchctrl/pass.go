package benchctrl

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/benchkind"
	"github.com/spiralbench/spiralbench/pkg/plan"
)

// pass is one reconcile pass: one move of the bench's state machine. It changes sb.Status in
// memory only; Reconcile persists it.
func (r *Reconciler) pass(ctx context.Context, sb *sbv1.SpiralBench) (time.Duration, error) {
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
func (r *Reconciler) queue(sb *sbv1.SpiralBench, msg string) {
	sb.Status.Phase = sbv1.PhaseQueued
	if setCondition(sb, sbv1.ConditionRunning, metav1.ConditionFalse, sbv1.ReasonNodeBusy, msg) {
		r.Recorder.Eventf(sb, nil, corev1.EventTypeNormal, sbv1.ReasonNodeBusy, "Queue", "%s", msg)
	}
}

func (r *Reconciler) recordPlan(sb *sbv1.SpiralBench, cells []plan.Cell) {
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
func (r *Reconciler) suspend(ctx context.Context, sb *sbv1.SpiralBench, leaving time.Duration) time.Duration {
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

// describe names a cell the way the seed's tables do, with its transport.
func describe(t sbv1.Transport, p sbv1.CellParameters) string {
	return string(t) + " " + benchkind.Parameters(t, p)
}
