package fleetctrl

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/robfig/cron/v3"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/controllers/benchstate"
	"github.com/spiralbench/spiralbench/pkg/figure"
	"github.com/spiralbench/spiralbench/pkg/fleet"
)

// emptyPoolRetry is how soon a fleet whose pool is empty looks again (node events also wake it).
const emptyPoolRetry = 5 * time.Second

// rounds starts a round when one is due: at once for a fleet without a schedule that never
// ran, at each schedule time otherwise (a round never overlaps the previous one: a time that
// passes while a round runs starts the next round as soon as it ends). It returns how long
// until the next scheduled round.
func (r *Reconciler) rounds(ctx context.Context, v *fleetView) (time.Duration, error) {
	f := v.f
	if meta.IsStatusConditionTrue(f.Status.Conditions, sbv1.FleetConditionRoundRunning) || ptr.Deref(f.Spec.Suspend, false) {
		return 0, nil
	}
	now := r.now()
	var wait time.Duration
	due := f.Status.Round == 0 && f.Spec.Schedule == ""
	if req := f.Annotations[sbv1.AnnotationRoundRequest]; req != "" && req != f.Status.RoundRequest {
		f.Status.RoundRequest = shorten(req, 63)
		due = true
	}
	due = due || len(v.forward) > 0 // a fact changed between rounds (factChecks BringRoundForward)
	if f.Spec.Schedule != "" {
		sched, err := cron.ParseStandard(f.Spec.Schedule)
		if err != nil {
			setFleetCondition(f, sbv1.FleetConditionRoundRunning, metav1.ConditionFalse, sbv1.ReasonInvalidSchedule,
				fmt.Sprintf("spec.schedule %q: %v; use five cron fields, for example \"0 3 * * 0\"", f.Spec.Schedule, err))
			return 0, nil
		}
		from := f.CreationTimestamp.Time
		if f.Status.RoundStartTime != nil {
			from = f.Status.RoundStartTime.Time
		}
		next := sched.Next(from)
		f.Status.NextRoundTime = &metav1.Time{Time: next}
		switch {
		case due: // requested: the schedule goes on from this round
		case !now.Before(next):
			due = true
			f.Status.NextRoundTime = &metav1.Time{Time: sched.Next(now)}
		default:
			wait = next.Sub(now)
			setFleetCondition(f, sbv1.FleetConditionRoundRunning, metav1.ConditionFalse, sbv1.ReasonAwaitingSchedule,
				"next round at "+next.UTC().Format(time.RFC3339))
		}
	}
	if !due {
		return wait, nil
	}
	if f.Status.Round == 0 && len(v.pool) == 0 {
		// A first round over no node would end at once and say nothing; the nodes a fleet is
		// created for may reach the cache a moment after it.
		setFleetCondition(f, sbv1.FleetConditionRoundRunning, metav1.ConditionFalse, sbv1.ReasonAwaitingNodes,
			"no node matches spec.nodeSelector yet: the first round starts when one does")
		return emptyPoolRetry, nil
	}
	return wait, r.startRound(ctx, v, now)
}

// startRound opens round n+1: nodes benched less than minIntervalSeconds ago are skipped,
// the others wait for a bench; with pairing Ring they get this round's partners.
func (r *Reconciler) startRound(ctx context.Context, v *fleetView, now time.Time) error {
	f := v.f
	f.Status.Round++
	f.Status.RoundStartTime = &metav1.Time{Time: now}
	f.Status.RoundCompletionTime = nil
	f.Status.Summary = nil
	// The view holds the last round's benches; none decides anything in this one.
	for key, sb := range v.benches {
		if sb.Labels[sbv1.LabelFleetKind] != fleet.KindUpgrade {
			delete(v.benches, key)
		}
	}
	f.Status.Median = nil
	f.Status.Counts.Joined, f.Status.Counts.Left = 0, 0
	// Every row is written anew as a result of this round; the last round's stay as they were.
	v.loaded = map[string]loadedRow{}
	minInterval := time.Duration(f.Spec.MinIntervalSeconds) * time.Second
	var pending []string
	for name, row := range v.rows {
		if row.Verdict == sbv1.NodeLeft {
			v.dropRow(name)
			continue
		}
		upgrade, last := row.Upgrade, row.LastBenchTime
		*row = sbv1.FleetNode{Name: name, Verdict: sbv1.NodePending, LastBenchTime: last, Upgrade: upgrade}
		if minInterval > 0 && last != nil && now.Sub(last.Time) < minInterval && !v.forward[name] {
			row.Verdict = sbv1.NodeSkipped
			row.Reason = fmt.Sprintf("benched %ds ago, minIntervalSeconds is %d", int(now.Sub(last.Time).Seconds()), f.Spec.MinIntervalSeconds)
			continue
		}
		pending = append(pending, name)
	}
	if f.Spec.Pairing == sbv1.PairingRing {
		var pairs []fleet.Pair
		var alone []string
		if d := f.Spec.PairingDomain; d != nil {
			domainOf := map[string]string{}
			for _, name := range pending {
				if n := v.pool[name]; n != nil {
					domainOf[name] = n.Labels[d.Label]
				}
			}
			pairs, alone = fleet.DomainPairs(pending, domainOf, f.Status.Round, d.Mode == sbv1.DomainAcross)
		} else {
			var one string
			if pairs, one = fleet.RingPairs(pending, f.Status.Round); one != "" {
				alone = []string{one}
			}
		}
		for _, p := range pairs {
			v.rows[p.Server].Partner, v.rows[p.Client].Partner = p.Client, p.Server
		}
		for _, a := range alone {
			v.rows[a].Reason = "odd one out: waits for a partner that passed"
		}
	}
	// Earlier rounds' finished benches and check pods go; their results are in the bucket and in history.
	if err := r.deleteOldResults(ctx, f); err != nil {
		return err
	}
	for _, sb := range r.staleBenches(ctx, v) {
		if err := r.Delete(ctx, sb, client.PropagationPolicy(metav1.DeletePropagationBackground)); client.IgnoreNotFound(err) != nil {
			return err
		}
	}
	if err := r.deleteStaleChecks(ctx, v); err != nil {
		return err
	}
	msg := fmt.Sprintf("round %d: %d nodes to bench, %d skipped (minIntervalSeconds)", f.Status.Round, len(pending), len(v.rows)-len(pending))
	setFleetCondition(f, sbv1.FleetConditionRoundRunning, metav1.ConditionTrue, sbv1.ReasonRoundStarted, msg)
	r.event(f, false, sbv1.ReasonRoundStarted, "%s", msg)
	return nil
}

// staleBenches are the finished round and isolate benches of earlier rounds.
func (r *Reconciler) staleBenches(ctx context.Context, v *fleetView) []*sbv1.SpiralBench {
	var list sbv1.SpiralBenchList
	if err := r.List(ctx, &list, client.InNamespace(v.f.Namespace), client.MatchingLabels{sbv1.LabelFleet: v.f.Name}); err != nil {
		return nil
	}
	var out []*sbv1.SpiralBench
	for i := range list.Items {
		sb := &list.Items[i]
		round, _ := strconv.Atoi(sb.Labels[sbv1.LabelFleetRound])
		if sb.Labels[sbv1.LabelFleetKind] != fleet.KindUpgrade && int32(round) < v.f.Status.Round && benchstate.Finished(sb) && r.ownedBy(sb, v.f) {
			out = append(out, sb)
		}
	}
	return out
}

// finishRound closes the round: stragglers against the round's median, the summary, events.
func (r *Reconciler) finishRound(ctx context.Context, v *fleetView) {
	f := v.f
	r.fleetDeltas(ctx, v)
	now := metav1.NewTime(r.now())
	f.Status.RoundCompletionTime = &now
	var passed, failed, invalid, skipped int
	for _, row := range v.rows {
		switch row.Verdict {
		case sbv1.NodePassed:
			passed++
		case sbv1.NodeFailed:
			failed++
		case sbv1.NodeInvalid:
			invalid++
		case sbv1.NodeSkipped:
			skipped++
		}
	}
	msg := fmt.Sprintf("round %d finished: %d passed, %d failed, %d invalid, %d skipped", f.Status.Round, passed, failed, invalid, skipped)
	setFleetCondition(f, sbv1.FleetConditionRoundRunning, metav1.ConditionFalse, sbv1.ReasonRoundFinished, msg)
	r.event(f, failed+invalid > 0, sbv1.ReasonRoundFinished, "%s", msg)
}

// fleetDeltas flags the round's stragglers against the median of its decided values, at the
// round's end (it needs the whole round). Only a straggler's row changes: writing every row's
// delta from the median would cost a write per node, so the summary computes them instead.
func (r *Reconciler) fleetDeltas(ctx context.Context, v *fleetView) {
	f := v.f
	values := roundValues(v)
	if len(values) == 0 {
		return
	}
	k, minNodes := 3.0, 5
	if s := f.Spec.Stragglers; s != nil {
		k, minNodes = float64(s.KMilli)/1000, int(s.MinNodes)
	}
	out := fleet.Stragglers(values, k, minNodes, figure.HigherIsBetter(v.metric))
	f.Status.Median = ptr.To(int64(out.Median))
	if f.Spec.Stragglers == nil {
		return
	}
	for name := range out.Stragglers {
		row := v.rows[name]
		row.Straggler = true
		row.FleetDeltaMilliPercent = ptr.To(fleet.DeltaMilliPercent(*row.Value, out.Median))
		note := fmt.Sprintf("straggler: %d vs median %.0f - %.1f x MAD %.0f", *row.Value, out.Median, k, out.MAD)
		if f.Spec.Stragglers.FailNode && row.Verdict == sbv1.NodePassed {
			r.restraggle(ctx, v, row, note)
		} else if row.Reason == "" {
			row.Reason = shorten(note, 160)
		}
	}
}

// roundValues are the headline values of the round's decided (Passed or Failed) nodes.
func roundValues(v *fleetView) map[string]int64 {
	values := map[string]int64{}
	for name, row := range v.rows {
		if row.Value != nil && (row.Verdict == sbv1.NodePassed || row.Verdict == sbv1.NodeFailed) {
			values[name] = *row.Value
		}
	}
	return values
}
