package fleetctrl

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/controllers/benchstate"
	"github.com/spiralbench/spiralbench/pkg/fleet"
)

// observe brings every undecided row of the round up to date with its benches.
func (r *Reconciler) observe(ctx context.Context, v *fleetView) {
	for _, row := range v.sortedRows() {
		if row.Verdict != sbv1.NodePending && row.Verdict != sbv1.NodeRunning {
			continue
		}
		if _, in := v.pool[row.Name]; !in {
			continue
		}
		if v.f.Spec.Pairing != sbv1.PairingRing {
			r.followKey(ctx, v, row, benchKey(fleet.KindRound, row.Name), "")
			continue
		}
		if row.Partner != "" {
			pairKey := benchKey(fleet.KindRound, pairSubject(row.Name, row.Partner))
			pair := v.benches[pairKey]
			if pair == nil || !benchstate.Finished(pair) {
				r.followKey(ctx, v, row, pairKey, "")
				continue
			}
			if outcomeOf(pair).State == fleet.StepPassedState {
				r.record(ctx, v, row, pair, "")
				continue
			}
		}
		// The pair failed (or the node has no partner): its verdict comes from a bench with a
		// partner that passed this round, so it names the node at fault.
		iso := v.benches[benchKey(fleet.KindIsolate, row.Name)]
		why := "no partner this round"
		if row.Partner != "" {
			why = "pair with " + row.Partner + " failed"
		}
		if iso == nil && v.foreign[benchKey(fleet.KindIsolate, row.Name)] != "" {
			r.followKey(ctx, v, row, benchKey(fleet.KindIsolate, row.Name), why+": ")
			continue
		}
		if iso == nil {
			if row.Verdict == sbv1.NodeRunning && row.Bench != "" && r.benchExists(ctx, v.f.Namespace, row.Bench, pairName(v, row)) {
				continue
			}
			row.Verdict, row.Bench = sbv1.NodePending, ""
			row.Reason = why + "; waits for a partner that passed"
			continue
		}
		r.follow(ctx, v, row, iso, why+"; with "+isolatePartner(iso, row.Name)+": ")
	}
}

func pairName(v *fleetView, row *sbv1.FleetNode) string {
	if pair := v.benches[benchKey(fleet.KindRound, pairSubject(row.Name, row.Partner))]; pair != nil {
		return pair.Name
	}
	return ""
}

func isolatePartner(sb *sbv1.SpiralBench, node string) string {
	for _, n := range benchNodes(sb) {
		if n != node {
			return n
		}
	}
	return ""
}

// followKey follows the view's bench under key; an object in that bench's way that the
// manager did not create makes the node Invalid (ReasonForeignObject), never judged by it.
func (r *Reconciler) followKey(ctx context.Context, v *fleetView, row *sbv1.FleetNode, key, why string) {
	sb := v.benches[key]
	if sb == nil && v.foreign[key] != "" {
		r.decide(ctx, v, row, []fleet.StepOutcome{{State: fleet.StepInvalidState, Reason: v.foreign[key]}}, nil, nil, why)
		return
	}
	r.follow(ctx, v, row, sb, why)
}

// follow sets a row from the bench deciding it: none yet (Pending), running, or finished.
func (r *Reconciler) follow(ctx context.Context, v *fleetView, row *sbv1.FleetNode, sb *sbv1.SpiralBench, why string) {
	switch {
	case sb == nil:
		if row.Verdict == sbv1.NodeRunning && row.Bench != "" && r.benchExists(ctx, v.f.Namespace, row.Bench, "") {
			return // created, not in the cache yet
		}
		if row.Verdict == sbv1.NodeRunning {
			row.Reason = "its bench " + row.Bench + " is gone; benching again"
		}
		row.Verdict, row.Bench = sbv1.NodePending, ""
	case !benchstate.Finished(sb):
		row.Verdict, row.Bench = sbv1.NodeRunning, sb.Name
		row.Reason = ""
		if sb.Status.Phase == sbv1.PhaseQueued {
			row.Reason = "queued: " + shorten(condMessage(sb, sbv1.ConditionRunning), 150)
		}
	default:
		r.record(ctx, v, row, sb, why)
	}
}

// benchExists reads past the cache: a bench created by the last step may not be cached yet.
// A bench there that the manager did not create is no bench of the fleet's: the step creates
// its own again, and that create, finding the name taken, notes the object as foreign.
func (r *Reconciler) benchExists(ctx context.Context, ns, name, not string) bool {
	if name == not {
		return false
	}
	sb := &sbv1.SpiralBench{}
	err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, sb)
	return !apierrors.IsNotFound(err) && (err != nil || benchstate.Trusted(r.Provenance, sb))
}

func condMessage(sb *sbv1.SpiralBench, t string) string {
	if c := meta.FindStatusCondition(sb.Status.Conditions, t); c != nil {
		return c.Message
	}
	return ""
}

// headline is the fleet's headline figure of the bench's headline cell (the first cell when
// none is marked), from the figure table: the mean over repeats, and each valid repeat's value
// for the history.
func headline(sb *sbv1.SpiralBench, metric string) (*int64, []int64) {
	v, ok := fleet.ReadFigure(sb, metric)
	if !ok {
		return nil, nil
	}
	return ptr.To(int64(v)), fleet.RepeatValues(sb, metric)
}
