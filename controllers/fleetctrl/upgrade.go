package fleetctrl

import (
	"context"
	"sort"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/controllers/benchstate"
	"github.com/spiralbench/spiralbench/pkg/fleet"
)

// The upgrade gate (docs/fleet.md, "Driver upgrades"): a taint, not a validator pod. When a
// pool node's upgrade-state label leaves the idle states, the node gets the NoSchedule taint
// spiralbench.io/upgrade-gate=Pending; once the label says upgrade-done, the node is benched;
// a pass removes the taint, a failure sets it to Failed and keeps it. The taint is the gate's
// memory, on the node itself, so a restarted manager resumes where it stopped.

// upgradeState is the node's state across the followed drivers: any upgrade under way wins,
// then a failed one, then done.
func upgradeState(n *corev1.Node, drivers []sbv1.UpgradeDriver) string {
	var states []string
	for _, d := range drivers {
		key := fleet.LabelGPUUpgradeState
		if d == sbv1.UpgradeDriverOFED {
			key = fleet.LabelOFEDUpgradeState
		}
		states = append(states, n.Labels[key])
	}
	for _, want := range []func(string) bool{fleet.InProgress,
		func(s string) bool { return s == fleet.UpgradeStateFailed },
		func(s string) bool { return s == fleet.UpgradeStateDone }} {
		for _, s := range states {
			if want(s) {
				return s
			}
		}
	}
	return ""
}

// gate moves every pool node through the gate and returns the nodes whose upgrade bench is
// still to be created.
func (r *Reconciler) gate(ctx context.Context, v *fleetView) ([]gateLaunch, error) {
	names := make([]string, 0, len(v.pool))
	for n := range v.pool {
		names = append(names, n)
	}
	sort.Strings(names)
	var launches []gateLaunch
	for _, name := range names {
		node, row := v.pool[name], v.rows[name]
		state := upgradeState(node, v.f.Spec.UpgradeGate.Drivers)
		taint, _ := gated(node)
		switch fleet.Gate(state, taint) {
		case fleet.GateTaint:
			id := strconv.FormatInt(r.now().UnixNano(), 10)
			if err := r.patchNode(ctx, name, func(n *corev1.Node) {
				if v, _ := gated(n); v == fleet.GatePending {
					return // a stale cache asked twice: keep the first gate id
				}
				setTaint(n, taintUpgradeGate, fleet.GatePending)
				if n.Annotations == nil {
					n.Annotations = map[string]string{}
				}
				n.Annotations[annotationGateID] = id
			}); err != nil {
				return nil, err
			}
			row.Upgrade, row.Reason = sbv1.GateUpgrading, "driver upgrade under way ("+state+")"
			r.event(v.f, false, "UpgradeGated", "node %s: driver upgrade started (%s); tainted %s=%s until its bench passes", name, state, taintUpgradeGate, fleet.GatePending)
		case fleet.GateBench:
			id := node.Annotations[annotationGateID]
			if v.f.Spec.Suite != nil {
				launch, err := r.gateSuite(ctx, v, row, id)
				if err != nil {
					return nil, err
				}
				if launch != nil {
					launches = append(launches, *launch)
				}
				continue
			}
			key := benchKey(fleet.KindUpgrade, name) + "/" + id
			sb := v.benches[key]
			switch {
			case sb == nil && v.foreign[key] != "":
				// Never released on an object someone else made: held, and the bench is created
				// again each step, which succeeds once that object is gone.
				row.Upgrade, row.Reason = sbv1.GateHeld, v.foreign[key]
				launches = append(launches, gateLaunch{node: name, gateID: id})
			case sb == nil:
				row.Upgrade = sbv1.GateBenching
				launches = append(launches, gateLaunch{node: name, gateID: id})
			case !benchstate.Finished(sb):
				row.Upgrade = sbv1.GateBenching
			default:
				if row.Bench != sb.Name {
					r.record(ctx, v, row, sb, "after the driver upgrade: ")
				}
				if err := r.release(ctx, v, row); err != nil {
					return nil, err
				}
			}
		case fleet.GateHoldFailed:
			if err := r.patchNode(ctx, name, func(n *corev1.Node) { setTaint(n, taintUpgradeGate, fleet.GateFailed) }); err != nil {
				return nil, err
			}
			row.Upgrade, row.Reason = sbv1.GateHeld, "the driver upgrade failed (upgrade-failed): held"
			r.event(v.f, true, "UpgradeHeld", "node %s: driver upgrade failed; kept tainted %s=%s", name, taintUpgradeGate, fleet.GateFailed)
		default:
			switch {
			case taint == fleet.GatePending && fleet.InProgress(state):
				row.Upgrade = sbv1.GateUpgrading
			case taint == fleet.GateFailed:
				row.Upgrade = sbv1.GateHeld
			}
		}
	}
	return launches, nil
}

// gateSuite takes a node whose driver upgrade is done through the fleet's whole suite, one
// step at a time as a round does (kind upgrade, named by the gate id), and ends the gate on
// the verdict the judge gives all its steps. It returns the step to create next, if any.
func (r *Reconciler) gateSuite(ctx context.Context, v *fleetView, row *sbv1.FleetNode, id string) (*gateLaunch, error) {
	w := r.walk(ctx, v, row, suiteRun{kind: fleet.KindUpgrade, gateID: id})
	switch {
	case w.running != "":
		row.Upgrade = sbv1.GateBenching
		return nil, nil
	case w.next >= 0:
		row.Upgrade = sbv1.GateBenching
		return &gateLaunch{node: row.Name, gateID: id, step: w.next}, nil
	}
	// The cache may not show yet the taint an earlier step wrote when it ended this gate: the
	// node itself says whether the gate is still open, so the verdict is judged only once.
	var n corev1.Node
	if err := r.APIReader.Get(ctx, client.ObjectKey{Name: row.Name}, &n); err != nil {
		return nil, client.IgnoreNotFound(err)
	}
	if taint, _ := gated(&n); taint != fleet.GatePending || n.Annotations[annotationGateID] != id {
		return nil, nil
	}
	r.decide(ctx, v, row, w.outcomes, w.headline, w.last, "after the driver upgrade: ")
	return nil, r.release(ctx, v, row)
}

// release ends the gate after the node's upgrade bench: a pass lifts the taint, anything
// else sets it to Failed and keeps the node out of service.
func (r *Reconciler) release(ctx context.Context, v *fleetView, row *sbv1.FleetNode) error {
	if err := r.pruneUpgrades(ctx, v, row.Name); err != nil {
		return err
	}
	if row.Verdict == sbv1.NodePassed {
		if hold, why := cohortHolds(v, row); hold {
			why = shorten(why, 160)
			if row.Upgrade != sbv1.GateHeld || row.Reason != why {
				r.event(v.f, true, "UpgradeHeldByCohort", "node %s passed after the driver upgrade but stays gated: %s", row.Name, why)
			}
			row.Upgrade, row.Reason = sbv1.GateHeld, why
			return nil
		}
		if err := r.patchNode(ctx, row.Name, func(n *corev1.Node) { removeTaint(n, taintUpgradeGate) }); err != nil {
			return err
		}
		row.Upgrade = sbv1.GateReleased
		r.event(v.f, false, "UpgradeReleased", "node %s passed its bench after the driver upgrade (%s); taint %s removed", row.Name, row.Bench, taintUpgradeGate)
		return nil
	}
	if err := r.patchNode(ctx, row.Name, func(n *corev1.Node) { setTaint(n, taintUpgradeGate, fleet.GateFailed) }); err != nil {
		return err
	}
	row.Upgrade = sbv1.GateHeld
	r.event(v.f, true, "UpgradeHeld", "node %s: %s after the driver upgrade (%s); kept tainted %s=%s", row.Name, row.Verdict, row.Bench, taintUpgradeGate, fleet.GateFailed)
	return nil
}
