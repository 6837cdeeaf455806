package fleetctrl

// The one door of a node's verdict. Every Passed, Failed or Invalid a row gets is fleet.Judge's,
// set by setVerdict, which also writes it onto the node: decide judges a node's steps (with its
// history, its class's references and its facts); restraggle adds a straggler found at the
// round's end to a decided row's reasons. Pending, Running, Skipped, Left and Expired are where
// a row stands, not verdicts.

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/fleet"
	"github.com/spiralbench/spiralbench/pkg/report"
)

// record turns a finished bench into the row's verdict: its outcome, judged (with history
// and, when the fleet asks, the node's class references) by fleet.Judge.
func (r *Reconciler) record(ctx context.Context, v *fleetView, row *sbv1.FleetNode, sb *sbv1.SpiralBench, why string) {
	outcome := outcomeOf(sb)
	outcome.Observation = r.observed(ctx, v, sb)
	r.decide(ctx, v, row, []fleet.StepOutcome{outcome}, sb, sb, why)
}

// decide sets a row from its steps' outcomes: the judge's verdict and reasons, the headline
// value (from headlineBench, which may be nil), the history comparison, and writes the
// verdict onto the node. last is the bench that ended the node's steps.
func (r *Reconciler) decide(ctx context.Context, v *fleetView, row *sbv1.FleetNode, outcomes []fleet.StepOutcome,
	headlineBench, last *sbv1.SpiralBench, why string) {
	row.Value, row.BaselineDeltaMilliPercent, row.Regressed = nil, nil, false
	var repeats []int64
	if headlineBench != nil {
		row.Value, repeats = headline(r.repeatsOf(ctx, v, headlineBench), v.metric)
	}
	finishedAt := metav1.NewTime(r.now())
	if last != nil {
		row.Bench, row.RunID = last.Name, report.RunID(last)
		if nodes := benchNodes(last); len(nodes) == 2 {
			row.Partner = isolatePartner(last, row.Name)
		}
		if last.Status.CompletionTime != nil {
			finishedAt = *last.Status.CompletionTime
		}
	}
	row.LastBenchTime = &finishedAt
	in := fleet.Input{Steps: outcomes, HistoryFigure: v.metric}
	var note string
	if headlineBench != nil {
		h := r.compareHistory(ctx, v, row, headlineBench, repeats)
		in.History, in.HistoryDetail, note = h.regression, h.detail, h.note
		if in.Degrading, in.DegradingDetail = h.degrading != "", h.degrading; in.Degrading {
			r.event(v.f, true, "Degrading", "node %s: %s", row.Name, h.degrading)
		}
	}
	// The node object's facts (its allocatable GPUs) reach every judgement: a bench that saw
	// fewer GPUs than the node offers is GPUMissing with or without a catalog.
	in.NodeFacts = nodeFacts(v.pool[row.Name])
	if v.f.Spec.References != nil {
		in.Catalog, in.Class = r.catalogOf(ctx, v), v.f.Spec.References.Class
	}
	j := fleet.Judge(in)
	row.Class = j.Class
	row.Steps, row.StepsSummary = j.Steps, fleet.StepsSummary(j.Steps)
	row.Regressed = in.History != nil && in.History.Regressed
	reason := shorten(joinReason(why+j.Message(), note), 160)
	if j.Verdict == sbv1.NodePassed && why == "" && j.Message() == "" && note == "" {
		reason = ""
	}
	row.ValidUntil = nil
	if vs := v.f.Spec.Verdicts; vs != nil && vs.ValidSeconds > 0 {
		row.ValidUntil = &metav1.Time{Time: finishedAt.Add(time.Duration(vs.ValidSeconds) * time.Second)}
	}
	if headlineBench != nil {
		r.appendHistory(ctx, v, row, headlineBench, repeats)
	}
	r.setVerdict(ctx, v, row, j, reason)
}

// restraggle adds the round's straggler finding to a row the round decided Passed
// (stragglers.failNode): the judge sees the row's reasons with the straggler added, so the
// verdict follows the same rule as every other.
func (r *Reconciler) restraggle(ctx context.Context, v *fleetView, row *sbv1.FleetNode, note string) {
	prior := make([]fleet.Reason, 0, len(row.Reasons))
	for _, l := range row.Reasons {
		prior = append(prior, fleet.ParseReason(l))
	}
	r.setVerdict(ctx, v, row, fleet.Judge(fleet.Input{Prior: prior, Straggler: true, StragglerDetail: note}), shorten(note, 160))
}

// setVerdict sets a row's verdict, its reason codes and words, and writes them onto the node.
// The row's step records are decide's: a judgement of prior reasons alone leaves them.
func (r *Reconciler) setVerdict(ctx context.Context, v *fleetView, row *sbv1.FleetNode, j fleet.Judgement, reason string) {
	row.Verdict, row.Reasons, row.Reason = j.Verdict, fleet.Labels(j.Reasons, 8), reason
	r.writeVerdict(ctx, v, row)
}

// outcomeOf is how a finished bench ends its step, for its nodes.
func outcomeOf(sb *sbv1.SpiralBench) fleet.StepOutcome {
	state, reason := fleet.BenchOutcome(sb)
	return fleet.StepOutcome{State: state, Reason: reason, Bench: sb.Name}
}
