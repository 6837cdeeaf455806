package benchctrl

import (
	"context"

	"k8s.io/utils/ptr"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/plan"
)

// Stopping a running attempt at once, for a bench a fleet ended at its step's deadline.

// stopsNow says whether the running attempt must end now rather than at its own cell deadline:
// the bench is suspended and marked by its fleet as past its step's deadline. A bench suspended
// otherwise lets its running attempt finish (its numbers are worth keeping).
func stopsNow(sb *sbv1.SpiralBench) bool {
	return ptr.Deref(sb.Spec.Suspend, false) && sb.Annotations[sbv1.AnnotationFleetDeadlineExceeded] != ""
}

// stopAttempt ends the active attempt as a failed one. Its pods are deleted by the next
// reconcile's cleanup, after this is persisted, and the suspended
// bench gives its nodes back once they have left them: within their grace period.
func (r *Reconciler) stopAttempt(ctx context.Context, sb *sbv1.SpiralBench, cells []plan.Cell) error {
	a := sb.Status.ActiveAttempt
	if int(a.CellIndex) >= len(cells) {
		sb.Status.ActiveAttempt = nil
		return nil
	}
	return r.finishAttempt(ctx, sb, cells[a.CellIndex], outcome{reason: "stopped: its fleet step ran past its deadline (" +
		sbv1.AnnotationFleetDeadlineExceeded + ")"})
}
