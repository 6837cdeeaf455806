package controllers

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/fleet"
	"github.com/spiralbench/spiralbench/pkg/report"
)

// observe brings every undecided row of the round up to date with its benches.
func (r *FleetReconciler) observe(ctx context.Context, v *fleetView) {
	for _, row := range v.sortedRows() {
		if row.Verdict != sbv1.NodePending && row.Verdict != sbv1.NodeRunning {
			continue
		}
		if _, in := v.pool[row.Name]; !in {
			continue
		}
		if v.f.Spec.Pairing != sbv1.PairingRing {
			r.follow(ctx, v, row, v.benches[benchKey(fleet.KindRound, row.Name)], "")
			continue
		}
		if row.Partner != "" {
			pair := v.benches[benchKey(fleet.KindRound, pairSubject(row.Name, row.Partner))]
			if pair == nil || !finished(pair) {
				r.follow(ctx, v, row, pair, "")
				continue
			}
			if verdict, _ := benchVerdict(pair); verdict == sbv1.NodePassed {
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

// follow sets a row from the bench deciding it: none yet (Pending), running, or finished.
func (r *FleetReconciler) follow(ctx context.Context, v *fleetView, row *sbv1.FleetNode, sb *sbv1.SpiralBench, why string) {
	switch {
	case sb == nil:
		if row.Verdict == sbv1.NodeRunning && row.Bench != "" && r.benchExists(ctx, v.f.Namespace, row.Bench, "") {
			return // created, not in the cache yet
		}
		if row.Verdict == sbv1.NodeRunning {
			row.Reason = "its bench " + row.Bench + " is gone; benching again"
		}
		row.Verdict, row.Bench = sbv1.NodePending, ""
	case !finished(sb):
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
func (r *FleetReconciler) benchExists(ctx context.Context, ns, name, not string) bool {
	if name == not {
		return false
	}
	err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &sbv1.SpiralBench{})
	return !apierrors.IsNotFound(err)
}

func condMessage(sb *sbv1.SpiralBench, t string) string {
	if c := meta.FindStatusCondition(sb.Status.Conditions, t); c != nil {
		return c.Message
	}
	return ""
}

// record turns a finished bench into the row's verdict, compares it with the node's history,
// keeps it in the history, and writes it onto the node.
func (r *FleetReconciler) record(ctx context.Context, v *fleetView, row *sbv1.FleetNode, sb *sbv1.SpiralBench, why string) {
	verdict, reason := benchVerdict(sb)
	value, repeats := headline(sb, v.metric)
	row.Verdict, row.Reason = verdict, shorten(why+reason, 160)
	row.Bench, row.RunID, row.Value = sb.Name, report.RunID(sb), value
	row.BaselineDeltaMilliPercent, row.Regressed = nil, false
	if nodes := benchNodes(sb); len(nodes) == 2 {
		row.Partner = isolatePartner(sb, row.Name)
	}
	finishedAt := metav1.NewTime(r.now())
	if sb.Status.CompletionTime != nil {
		finishedAt = *sb.Status.CompletionTime
	}
	row.LastBenchTime = &finishedAt
	r.history(ctx, v, row, sb, repeats)
	r.writeVerdict(ctx, v, row)
}

// benchVerdict reads a finished bench's verdict for its nodes from its Passed condition, which
// acceptance.Decide wrote, so the node and the bench agree: Passed True passes the node (with
// allowFailedCells too: the reason says so); cells that failed (no result within their
// retries) or a broken rule fail it; cells that measured but cannot be trusted make it
// Invalid, as does a bench that could not run at all.
func benchVerdict(sb *sbv1.SpiralBench) (sbv1.NodeVerdict, string) {
	if sb.Status.Phase == sbv1.PhaseFailed {
		return sbv1.NodeInvalid, "bench could not run: " + condMessage(sb, sbv1.ConditionFailed)
	}
	p := meta.FindStatusCondition(sb.Status.Conditions, sbv1.ConditionPassed)
	switch {
	case p == nil:
		return sbv1.NodeInvalid, "bench has no verdict"
	case p.Status == metav1.ConditionTrue:
		if p.Reason == sbv1.ReasonFailedCellsAllowed {
			return sbv1.NodePassed, p.Message
		}
		return sbv1.NodePassed, ""
	case p.Reason == sbv1.ReasonCellsInvalid:
		return sbv1.NodeInvalid, p.Message
	}
	return sbv1.NodeFailed, p.Message
}

// headline is the metric of the bench's headline cell (the first cell when none is marked):
// the mean over repeats, and each valid repeat's value for the history.
func headline(sb *sbv1.SpiralBench, metric string) (*int64, []int64) {
	var cell *sbv1.CellResult
	for i := range sb.Status.CellResults {
		c := &sb.Status.CellResults[i]
		if c.Headline || cell == nil {
			cell = c
		}
		if c.Headline {
			break
		}
	}
	if cell == nil || cell.State != sbv1.CellValid {
		return nil, nil
	}
	var mean *int64
	pick := func(s *sbv1.Statistic) {
		if s != nil {
			mean = ptr.To(s.Mean)
		}
	}
	switch sbv1.Metric(metric) {
	case sbv1.MetricTxMbps:
		pick(cell.TXMbps)
	case sbv1.MetricPacketsPerSecond:
		pick(cell.PacketsPerSecond)
	case sbv1.MetricLatencyP50Nanoseconds:
		if cell.Latency != nil {
			mean = ptr.To(cell.Latency.P50Nanoseconds)
		}
	case sbv1.MetricLatencyP99Nanoseconds:
		if cell.Latency != nil {
			mean = ptr.To(cell.Latency.P99Nanoseconds)
		}
	default:
		pick(cell.RXMbps)
	}
	var repeats []int64
	for _, rr := range cell.RepeatResults {
		if rr.State != sbv1.CellValid {
			continue
		}
		switch sbv1.Metric(metric) {
		case sbv1.MetricTxMbps:
			repeats = append(repeats, rr.TXMbps)
		case sbv1.MetricPacketsPerSecond:
			repeats = append(repeats, rr.PacketsPerSecond)
		case sbv1.MetricLatencyP50Nanoseconds, sbv1.MetricLatencyP99Nanoseconds:
			if rr.Latency != nil {
				l := rr.Latency.P50Nanoseconds
				if sbv1.Metric(metric) == sbv1.MetricLatencyP99Nanoseconds {
					l = rr.Latency.P99Nanoseconds
				}
				repeats = append(repeats, l)
			}
		default:
			repeats = append(repeats, rr.RXMbps)
		}
	}
	return mean, repeats
}
