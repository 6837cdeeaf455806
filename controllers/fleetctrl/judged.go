package fleetctrl

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/controllers/benchstate"
	"github.com/spiralbench/spiralbench/pkg/fleet"
)

// A passed node's benches of the round go once its verdict is written (its node result holds
// it): nothing reads them again (the round's median, stragglers, cohorts, summary and history
// come from the rows and the bucket), and a large pool's round would otherwise keep every
// bench in the manager's cache until the next round starts, for its collector to mark at every
// collection (docs/benchmarks/fleet.md). What stays until the next round: a failed or invalid
// node's benches (to be read), a pair's bench until both its nodes passed, and every bench of
// a fleet that checks facts between rounds (they compare with the last round's capture). A
// bench with a bucket goes only once its results are there: its finalizer would upload them
// too, but gives up after a while, and a bucket down must not cost a run.

// maxJudgedDeletes bounds the benches one step deletes.
const maxJudgedDeletes = 500

// deleteJudgedBenches deletes the round's finished benches whose every node passed, once the
// step's node results are written.
func (r *Reconciler) deleteJudgedBenches(ctx context.Context, v *fleetView) error {
	if v == nil || v.f.Spec.FactChecks != nil {
		return nil // an unusable spec has no view
	}
	var judged []*sbv1.SpiralBench
	for _, sb := range v.benches {
		kind := sb.Labels[sbv1.LabelFleetKind]
		if sb.DeletionTimestamp != nil || (kind != fleet.KindRound && kind != fleet.KindIsolate) || !benchstate.Finished(sb) {
			continue
		}
		if passedAsWritten(v, benchNodes(sb)) && r.uploaded(sb) {
			judged = append(judged, sb)
		}
		if len(judged) == maxJudgedDeletes {
			break
		}
	}
	return inParallel(judged, func(sb *sbv1.SpiralBench) error {
		// The view's bench is the manager's own (its mark was checked as it was read): the
		// preconditions delete that object as read, and no other made since under its name.
		uid, rv := sb.UID, sb.ResourceVersion
		gone := &sbv1.SpiralBench{ObjectMeta: metav1.ObjectMeta{Namespace: sb.Namespace, Name: sb.Name}}
		err := r.Delete(ctx, gone, client.Preconditions{UID: &uid, ResourceVersion: &rv}, client.PropagationPolicy(metav1.DeletePropagationBackground))
		if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
			return nil
		}
		return err
	})
}

// passedAsWritten: every node's row says Passed. It is called once the step has written every
// row it changed (Reconcile stops before it on a failed write), so the rows are as stored.
func passedAsWritten(v *fleetView, nodes []string) bool {
	for _, n := range nodes {
		if row := v.rows[n]; row == nil || row.Verdict != sbv1.NodePassed {
			return false
		}
	}
	return len(nodes) > 0
}

// uploaded: the bench's results are in its bucket, or it has no bucket to keep them in (the
// bench controller's target: its spec.results, else the operator's default bucket).
func (r *Reconciler) uploaded(sb *sbv1.SpiralBench) bool {
	if sb.Spec.Results == nil && r.DefaultBucket.Results() == nil {
		return true
	}
	return meta.IsStatusConditionTrue(sb.Status.Conditions, sbv1.ConditionResultsUploaded)
}
