package controllers

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/fleet"
)

// The isolation pass of a suite's Pair step (docs/fleet.md, "Pairs and the bad node"): a pair
// that does not pass says one of two nodes is bad, so each runs the step again (kind isolate)
// with a reference, a node that passed this round; that bench's outcome is the node's step
// outcome. The same mechanism as a template fleet's (pickReference, kind isolate), one step
// of the suite at a time.

// annotationNoReference marks a failed Pair step's bench when no node passed to isolate its
// nodes against: its nodes keep the pair's outcome, read back from the bench after a restart.
const annotationNoReference = "spiralbench.io/fleet-no-reference"

// launchIsolation benches a node of a failed pair with a reference for the step; it returns
// the slots used (none while no reference is free).
func (r *FleetReconciler) launchIsolation(ctx context.Context, v *fleetView, row *sbv1.FleetNode, step fleet.Step, round string, slots int) (int, error) {
	ref := r.pickReference(ctx, v, row.Name)
	if ref == "" {
		v.waitingForReference++
		return 0, nil
	}
	if slots < 2 {
		return 0, nil
	}
	if err := r.createBench(ctx, v, fleet.KindIsolate, round, row.Name, []string{row.Name, ref}, step); err != nil {
		return 0, err
	}
	row.Reason = shorten("step "+step.Name+": pair with "+row.Partner+" failed; benched again with "+ref, 160)
	return 2, nil
}

// noReferenceSuite ends the wait when nothing runs and no node passed, so none ever will: the
// pair benches of the waiting nodes are marked, and their nodes keep the pairs' outcomes.
func (r *FleetReconciler) noReferenceSuite(ctx context.Context, v *fleetView) {
	for node, pair := range v.isolate {
		if row := v.rows[node]; row == nil || row.Verdict != sbv1.NodePending {
			continue
		}
		sb := &sbv1.SpiralBench{}
		if err := r.Get(ctx, client.ObjectKey{Namespace: v.f.Namespace, Name: pair}, sb); err != nil {
			continue
		}
		if sb.Annotations[annotationNoReference] != "" {
			continue
		}
		patch := client.MergeFrom(sb.DeepCopy())
		if sb.Annotations == nil {
			sb.Annotations = map[string]string{}
		}
		sb.Annotations[annotationNoReference] = "no node passed this round"
		if err := r.Patch(ctx, sb, patch); err != nil {
			r.event(v.f, true, "IsolationFailed", "mark pair bench %s: %v", pair, err)
			continue
		}
		v.soon = true
	}
}
