package fleetctrl

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

// launchIsolation benches a node of a failed pair with a reference for the step; it returns
// the slots used (none while no reference is free).
func (r *Reconciler) launchIsolation(ctx context.Context, v *fleetView, row *sbv1.FleetNode, step fleet.Step, round string, slots int) (int, error) {
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
	why := "pair with " + row.Partner + " failed; benched again with " + ref
	if v.isolate[row.Name] == "" {
		why = "no partner to run it with; benched with " + ref
	}
	row.Reason = shorten("step "+step.Name+": "+why, 160)
	return 2, nil
}

// noReferenceSuite ends the wait when nothing runs and no node passed, so none ever will: the
// pair benches of the waiting nodes are marked, and their nodes keep the pairs' outcomes; a
// node without a partner is decided with its Pair step StepMissing (decideAlone).
func (r *Reconciler) noReferenceSuite(ctx context.Context, v *fleetView) {
	for node, pair := range v.isolate {
		row := v.rows[node]
		if row == nil || row.Verdict != sbv1.NodePending {
			continue
		}
		if pair == "" {
			r.decideAlone(ctx, v, row)
			continue
		}
		sb := &sbv1.SpiralBench{}
		if err := r.Get(ctx, client.ObjectKey{Namespace: v.f.Namespace, Name: pair}, sb); err != nil {
			continue
		}
		if sb.Annotations[sbv1.AnnotationFleetNoReference] != "" {
			continue
		}
		patch := client.MergeFrom(sb.DeepCopy())
		if sb.Annotations == nil {
			sb.Annotations = map[string]string{}
		}
		sb.Annotations[sbv1.AnnotationFleetNoReference] = "no node passed this round"
		if err := r.Patch(ctx, sb, patch); err != nil {
			r.event(v.f, true, "IsolationFailed", "mark pair bench %s: %v", pair, err)
			continue
		}
		v.soon = true
	}
}

// partnerGone says why a node cannot run a Pair step with its round partner ("" when it can):
// it has none this round (an odd pool), or the partner ended its suite before the step.
func partnerGone(v *fleetView, row *sbv1.FleetNode) string {
	if row.Partner == "" {
		return "no partner this round"
	}
	if p := v.rows[row.Partner]; p == nil || (p.Verdict != sbv1.NodePending && p.Verdict != sbv1.NodeRunning) || v.pool[row.Partner] == nil {
		return "partner " + row.Partner + " ended its suite before this step"
	}
	return ""
}

// walkAlone reads a Pair step of a node without a partner: like a failed pair's node, it runs
// the step with a node that passed (kind isolate), and that bench's outcome is its own; false
// while that bench is to be created or runs.
func (r *Reconciler) walkAlone(ctx context.Context, v *fleetView, row *sbv1.FleetNode, step fleet.Step, alone string,
	out *fleet.StepOutcome, w *suiteWalk) bool {
	iso := v.benches[stepKey(fleet.KindIsolate, row.Name, step.Name)]
	if iso == nil {
		w.isolate, w.pairBench, w.alone = true, "", alone
		return false
	}
	if !r.benchEnded(ctx, v, iso, step, out, w) {
		return false
	}
	why := alone + "; with " + isolatePartner(iso, row.Name)
	if out.Reason == "" {
		out.Reason = why + " passed"
	} else {
		out.Reason = why + ": " + out.Reason
	}
	if _, has := out.Figures[v.metric]; has && w.headline == nil {
		w.headline = iso
	}
	w.last = iso
	return true
}

// decideAlone ends the wait of a node without a partner when no node passed, so none ever
// will: its Pair step is StepMissing, saying so, and the steps after it do not run.
func (r *Reconciler) decideAlone(ctx context.Context, v *fleetView, row *sbv1.FleetNode) {
	w := r.walk(ctx, v, row, roundRun)
	if w.next < 0 || !w.isolate || w.pairBench != "" {
		return
	}
	step := v.steps[w.next]
	outcomes := append(w.outcomes, fleet.StepOutcome{Step: step.Name, State: fleet.StepMissingState,
		Reason: w.alone + ", and no node passed to run it with"})
	for _, s := range v.steps[w.next+1:] {
		outcomes = append(outcomes, fleet.StepOutcome{Step: s.Name, State: fleet.StepSkippedState, Reason: "after " + step.Name + " could not run"})
	}
	r.decide(ctx, v, row, outcomes, w.headline, w.last, "")
}
