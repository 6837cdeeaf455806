package fleetctrl

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/fleet"
)

// pass is one reconcile pass of a fleet: the pool, the upgrade gate, rounds, verdicts, new benches.
func (r *Reconciler) pass(ctx context.Context, f *sbv1.SpiralBenchFleet) (*fleetView, time.Duration, error) {
	v, err := r.view(ctx, f)
	var unusable *unusableSpecError
	if errors.As(err, &unusable) {
		if setFleetCondition(f, sbv1.FleetConditionSpecUsable, metav1.ConditionFalse, sbv1.ReasonUnusableSpec, unusable.msg) {
			r.event(f, true, sbv1.ReasonUnusableSpec, "%s", unusable.msg)
		}
		return nil, 0, nil // a spec change wakes the fleet
	}
	if err != nil {
		return nil, 0, err
	}
	if c := meta.FindStatusCondition(f.Status.Conditions, sbv1.FleetConditionSpecUsable); c != nil && c.Status == metav1.ConditionFalse {
		setFleetCondition(f, sbv1.FleetConditionSpecUsable, metav1.ConditionTrue, sbv1.ReasonSpecUsable, "the spec is usable")
	}
	wait, err := r.passView(ctx, v)
	return v, wait, err
}

func (r *Reconciler) passView(ctx context.Context, v *fleetView) (time.Duration, error) {
	f := v.f
	r.nodeWritesCondition(f)
	active := meta.IsStatusConditionTrue(f.Status.Conditions, sbv1.FleetConditionRoundRunning)
	v.syncPool(active)
	var gateLaunches []gateLaunch
	var err error
	if f.Spec.UpgradeGate != nil && r.NodeWrites {
		if gateLaunches, err = r.gate(ctx, v); err != nil {
			return 0, err
		}
	}
	var facts factPods
	if f.Spec.FactChecks != nil {
		facts = r.readFacts(ctx, v)
		if !active {
			r.judgeFacts(ctx, v, facts)
		}
	}
	wait, err := r.rounds(ctx, v)
	if err != nil {
		return 0, err
	}
	active = meta.IsStatusConditionTrue(f.Status.Conditions, sbv1.FleetConditionRoundRunning)
	if f.Spec.FactChecks != nil {
		if due := r.launchFacts(ctx, v, facts, active); due > 0 && (wait == 0 || due < wait) {
			wait = due
		}
	}
	if active {
		if f.Spec.Suite != nil {
			r.observeSuite(ctx, v)
		} else {
			r.observe(ctx, v)
		}
	}
	if err := r.launch(ctx, v, gateLaunches, active); err != nil {
		return 0, err
	}
	if active && r.roundDone(v) {
		r.finishRound(ctx, v)
	}
	if retry := r.uploadSummaryIfDue(ctx, v); retry > 0 && (wait == 0 || retry < wait) {
		wait = retry
	}
	if !active {
		if retry := r.expire(ctx, v); retry > 0 && (wait == 0 || retry < wait) {
			wait = retry
		}
	}
	f.Status.UpgradeCohorts = cohortStatus(v)
	r.summarize(v)
	if v.soon && (wait == 0 || wait > soonRetry) {
		wait = soonRetry
	}
	if f.Status.Counts.Pending > 0 || f.Status.Counts.Running > 0 || len(gateLaunches) > 0 || f.Status.Counts.Held > 0 {
		if wait == 0 || wait > fleetRetry {
			wait = fleetRetry
		}
	}
	return wait, nil
}

// soonRetry is how soon a step that changed an object no watch wakes the fleet for runs again.
const soonRetry = 500 * time.Millisecond

// roundDone: every node in the pool has its verdict (or was skipped, or left).
func (r *Reconciler) roundDone(v *fleetView) bool {
	for _, row := range v.rows {
		if row.Verdict == sbv1.NodePending || row.Verdict == sbv1.NodeRunning {
			return false
		}
	}
	return true
}

// maxListed bounds status.failing and status.stragglers.
const maxListed = 20

// summarize derives the counts (by verdict and reason code), the progress, the bounded lists
// of failing and straggling nodes, the phase and the Healthy condition: a pass over the rows in
// memory, and a status of the same size for any pool.
func (r *Reconciler) summarize(v *fleetView) {
	f := v.f
	c := &f.Status.Counts
	joined, left := c.Joined, c.Left
	*c = sbv1.FleetCounts{Joined: joined, Left: left}
	f.Status.Reasons, f.Status.Failing, f.Status.FailingOmitted = nil, nil, 0
	f.Status.Stragglers, f.Status.StragglersOmitted = nil, 0
	var unhealthy []string
	for _, row := range v.sortedRows() {
		if row.Verdict != sbv1.NodeLeft {
			c.Nodes++
		}
		switch row.Verdict {
		case sbv1.NodePending:
			c.Pending++
			if len(row.Reason) > 5 && row.Reason[:5] == "busy:" {
				c.Busy++
			}
		case sbv1.NodeRunning:
			c.Running++
		case sbv1.NodePassed:
			c.Passed++
		case sbv1.NodeFailed:
			c.Failed++
		case sbv1.NodeInvalid:
			c.Invalid++
		case sbv1.NodeSkipped:
			c.Skipped++
		}
		if row.Verdict == sbv1.NodeFailed || row.Verdict == sbv1.NodeInvalid {
			if len(unhealthy) < 10 {
				unhealthy = append(unhealthy, row.Name)
			}
			f.Status.Failing, f.Status.FailingOmitted = appendBrief(f.Status.Failing, f.Status.FailingOmitted, row)
		}
		for _, code := range row.Reasons {
			if f.Status.Reasons == nil {
				f.Status.Reasons = map[string]int32{}
			}
			f.Status.Reasons[string(fleet.ParseReason(code).Code)]++
		}
		if row.Straggler {
			c.Stragglers++
			f.Status.Stragglers, f.Status.StragglersOmitted = appendBrief(f.Status.Stragglers, f.Status.StragglersOmitted, row)
		}
		if row.Regressed {
			c.Regressed++
		}
		if row.Upgrade == sbv1.GateHeld {
			c.Held++
		}
	}
	if f.Status.Round > 0 {
		f.Status.Results = resultsSelector(f)
	}
	decided := c.Passed + c.Failed + c.Invalid + c.Skipped
	f.Status.Progress = fmt.Sprintf("%d/%d", decided, c.Nodes)
	switch {
	case ptr.Deref(f.Spec.Suspend, false):
		f.Status.Phase = sbv1.FleetSuspended
	case meta.IsStatusConditionTrue(f.Status.Conditions, sbv1.FleetConditionRoundRunning):
		f.Status.Phase = sbv1.FleetRunning
	case f.Status.Round == 0:
		f.Status.Phase = sbv1.FleetPending
	default:
		f.Status.Phase = sbv1.FleetIdle
	}
	if len(unhealthy) > 0 {
		setFleetCondition(f, sbv1.FleetConditionHealthy, metav1.ConditionFalse, sbv1.ReasonNodesFailed,
			fmt.Sprintf("%d failed, %d invalid: %v", c.Failed, c.Invalid, unhealthy))
	} else if c.Passed > 0 {
		setFleetCondition(f, sbv1.FleetConditionHealthy, metav1.ConditionTrue, sbv1.ReasonAllNodesPassed,
			fmt.Sprintf("%d nodes passed, %d skipped", c.Passed, c.Skipped))
	}
}

// appendBrief adds the row to a bounded list, or counts it as omitted.
func appendBrief(list []sbv1.FleetNodeBrief, omitted int32, row *sbv1.FleetNode) ([]sbv1.FleetNodeBrief, int32) {
	if len(list) >= maxListed {
		return list, omitted + 1
	}
	reasons := row.Reasons
	if len(reasons) > 3 {
		reasons = reasons[:3]
	}
	return append(list, sbv1.FleetNodeBrief{Name: row.Name, Verdict: row.Verdict, Reasons: append([]string(nil), reasons...)}), omitted
}
