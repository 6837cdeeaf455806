package fleetctrl

import (
	"context"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/controllers/benchstate"
	"github.com/spiralbench/spiralbench/pkg/fleet"
)

// gateLaunch is a node whose driver upgrade is done and whose bench (or suite step, by its
// index) is still to be created.
type gateLaunch struct {
	node, gateID string
	step         int
}

// launch creates benches while fewer than maxParallel nodes are benched: upgrade benches
// first (a node out of service waits on them), then the round's, in node-name order.
func (r *Reconciler) launch(ctx context.Context, v *fleetView, gates []gateLaunch, active bool) error {
	f := v.f
	if ptr.Deref(f.Spec.Suspend, false) {
		return nil
	}
	ring := f.Spec.Pairing == sbv1.PairingRing
	slots := int(f.Spec.MaxParallel) - len(v.busyNodes)
	for _, g := range gates {
		step := v.steps[g.step]
		nodes := []string{g.node}
		if step.Pair {
			// After an upgrade a pair is benched with a node that passed, so its verdict is the
			// upgraded node's.
			ref := r.pickReference(ctx, v, g.node)
			if ref == "" {
				v.rows[g.node].Reason = "upgrade done; waits for a partner that passed"
				continue
			}
			nodes = append(nodes, ref)
		}
		if slots < len(nodes) {
			return nil
		}
		var err error
		if step.Check != nil {
			err = r.createCheck(v, fleet.KindUpgrade, g.gateID, g.node, step)
		} else {
			err = r.createBench(ctx, v, fleet.KindUpgrade, g.gateID, g.node, nodes, step)
		}
		if err != nil {
			return err
		}
		slots -= len(nodes)
	}
	if !active {
		return nil
	}
	waitingForReference := 0
	for _, row := range v.sortedRows() {
		if slots <= 0 {
			break
		}
		if row.Verdict != sbv1.NodePending || v.busyNodes[row.Name] || !r.benchable(ctx, v, row) {
			continue
		}
		round := strconv.Itoa(int(f.Status.Round))
		if f.Spec.Suite != nil {
			used, err := r.launchStep(ctx, v, row, slots)
			if err != nil {
				return err
			}
			slots -= used
			continue
		}
		if !ring {
			if err := r.createBench(ctx, v, fleet.KindRound, round, row.Name, []string{row.Name}, v.steps[0]); err != nil {
				return err
			}
			slots--
			continue
		}
		partner := v.rows[row.Partner]
		pair := v.benches[benchKey(fleet.KindRound, pairSubject(row.Name, row.Partner))]
		if partner != nil && pair == nil {
			if partner.Verdict != sbv1.NodePending || v.busyNodes[partner.Name] || slots < 2 || !r.benchable(ctx, v, partner) {
				continue
			}
			server, client := row.Name, partner.Name // row.Name sorts first: rows are in name order
			if err := r.createBench(ctx, v, fleet.KindRound, round, pairSubject(server, client), []string{server, client}, v.steps[0]); err != nil {
				return err
			}
			slots -= 2
			continue
		}
		// Isolate: the pair failed, the partner left, or there was none.
		ref := r.pickReference(ctx, v, row.Name)
		if ref == "" {
			waitingForReference++
			continue
		}
		if slots < 2 {
			continue
		}
		if err := r.createBench(ctx, v, fleet.KindIsolate, round, row.Name, []string{row.Name, ref}, v.steps[0]); err != nil {
			return err
		}
		slots -= 2
	}
	if ring && len(v.busyNodes) == 0 && !anyPassed(v) {
		if f.Spec.Suite != nil && v.waitingForReference > 0 {
			r.noReferenceSuite(ctx, v)
		} else if waitingForReference > 0 {
			r.noReference(ctx, v)
		}
	}
	return nil
}

// benchable: in the pool, not held by the upgrade gate, and idle (when the fleet asks).
func (r *Reconciler) benchable(ctx context.Context, v *fleetView, row *sbv1.FleetNode) bool {
	node := v.pool[row.Name]
	if node == nil {
		return false
	}
	if _, held := gated(node); held {
		row.Reason = "held by the upgrade gate"
		return false
	}
	if !onlyIdle(v.f) {
		return true
	}
	if why := r.busyReason(ctx, v, row.Name); why != "" {
		row.Reason = shorten("busy: "+why, 160)
		return false
	}
	if len(row.Reason) > 5 && row.Reason[:5] == "busy:" {
		row.Reason = ""
	}
	return true
}

// busyReason says which running pod other than SpiralBench's holds a GPU or device of the node.
func (r *Reconciler) busyReason(ctx context.Context, v *fleetView, node string) string {
	var pods corev1.PodList
	if err := r.List(ctx, &pods, client.MatchingFields{podNodeIndex: node}, client.UnsafeDisableDeepCopy); err != nil {
		return "cannot list its pods: " + err.Error()
	}
	var devices []corev1.ResourceName
	for _, step := range v.steps {
		if step.Template == nil {
			continue
		}
		for _, side := range []sbv1.SideSpec{step.Template.Spec.Topology.Server, step.Template.Spec.Topology.Client} {
			for _, d := range side.Devices {
				devices = append(devices, corev1.ResourceName(d.ResourceName))
			}
		}
	}
	return fleet.BusyReason(pods.Items, devices, benchstate.OwnPodLabels...)
}

// pickReference is a node that passed this round, is free and idle: the partner against
// which a failed pair's node (or a node without a partner) is benched.
func (r *Reconciler) pickReference(ctx context.Context, v *fleetView, not string) string {
	for _, row := range v.sortedRows() {
		if row.Name == not || row.Verdict != sbv1.NodePassed || row.Upgrade == sbv1.GateUpgrading || row.Upgrade == sbv1.GateBenching ||
			v.busyNodes[row.Name] || v.pool[row.Name] == nil {
			continue
		}
		if _, held := gated(v.pool[row.Name]); held {
			continue
		}
		if onlyIdle(v.f) && r.busyReason(ctx, v, row.Name) != "" {
			continue
		}
		return row.Name
	}
	return ""
}

func anyPassed(v *fleetView) bool {
	for _, row := range v.rows {
		if row.Verdict == sbv1.NodePassed {
			return true
		}
	}
	return false
}

// noReference ends the wait when nothing runs and no node passed, so none ever will: a
// failed pair's nodes keep the pair's verdict, a node without a partner is Invalid.
func (r *Reconciler) noReference(ctx context.Context, v *fleetView) {
	for _, row := range v.rows {
		if row.Verdict != sbv1.NodePending || !isWaitingForReference(row) {
			continue
		}
		pair := v.benches[benchKey(fleet.KindRound, pairSubject(row.Name, row.Partner))]
		if row.Partner != "" && pair != nil && benchstate.Finished(pair) {
			// The pair's figures do not name the node at fault: no headline, no history.
			r.decide(ctx, v, row, []fleet.StepOutcome{outcomeOf(pair)}, nil, pair,
				"pair with "+row.Partner+" failed and no node passed to tell which is at fault: ")
			continue
		}
		r.decide(ctx, v, row, []fleet.StepOutcome{{State: fleet.StepMissingState, Reason: "no partner: no node passed this round"}}, nil, nil, "")
	}
}

func isWaitingForReference(row *sbv1.FleetNode) bool {
	const suffix = "waits for a partner that passed"
	return len(row.Reason) >= len(suffix) && row.Reason[len(row.Reason)-len(suffix):] == suffix
}

// createBench stamps out one bench from the template: Loopback on one node, CrossNode
// (server first) on two. Its name is derived from the round and the nodes, so creating it
// again after a restart finds the existing one.
func (r *Reconciler) createBench(ctx context.Context, v *fleetView, kind, round, subject string, nodes []string, step fleet.Step) error {
	f := v.f
	sb := &sbv1.SpiralBench{
		ObjectMeta: metav1.ObjectMeta{
			Name: objectName(f, kind, round, nodes, step), Namespace: f.Namespace,
			Labels:      map[string]string{},
			Annotations: map[string]string{annotationSubject: subject},
			// The bench controller's own finalizer, set at creation: it would otherwise patch
			// it in at its first reconcile, one request per bench of a fleet.
			Finalizers: []string{benchstate.Finalizer},
		},
		Spec: *step.Template.Spec.DeepCopy(),
	}
	for k, val := range step.Template.Labels {
		sb.Labels[k] = val
	}
	sb.Labels[sbv1.LabelFleet], sb.Labels[sbv1.LabelFleetKind], sb.Labels[sbv1.LabelFleetRound] = f.Name, kind, round
	if step.Name != "" {
		sb.Labels[sbv1.LabelFleetStep] = step.Name
	}
	if step.AllGPUs {
		sb.Spec.Topology.Server.GPUs = nodeGPUs(v.pool[nodes[0]])
	}
	tolerations := fleetTolerations(f)
	if len(nodes) == 1 {
		sb.Spec.Topology.Mode = sbv1.TopologyLoopback
		sb.Spec.Topology.Placement = &sbv1.Placement{NodeName: nodes[0], Tolerations: tolerations}
	} else {
		sb.Spec.Topology.Mode = sbv1.TopologyCrossNode
		sb.Spec.Topology.Server.Placement = &sbv1.Placement{NodeName: nodes[0], Tolerations: tolerations}
		sb.Spec.Topology.Client.Placement = &sbv1.Placement{NodeName: nodes[1], Tolerations: tolerations}
	}
	if sb.Spec.Results == nil && f.Spec.Results != nil {
		sb.Spec.Results = f.Spec.Results.DeepCopy()
	}
	if err := controllerutil.SetControllerReference(f, sb, r.Scheme()); err != nil {
		return err
	}
	// Created only after the status saying so is written (see Reconcile): a step that acted
	// on a stale status loses the write and creates nothing, so maxParallel holds.
	v.toCreate = append(v.toCreate, sb)
	markStarted(v, kind, nodes, sb.Name, step.Name)
	return nil
}

// objectName is the deterministic name of a fleet's bench or check pod: the same round,
// kind, nodes and step always give the same name, so creating it again finds the first one.
// The step "" (spec.template) keeps the names fleets had before suites.
func objectName(f *sbv1.SpiralBenchFleet, kind, round string, nodes []string, step fleet.Step) string {
	roundNum, _ := strconv.Atoi(round)
	nameParts := nodes
	if kind == fleet.KindUpgrade {
		nameParts, roundNum = append(append([]string(nil), nodes[0]), round), 0
	}
	if step.Name != "" {
		nameParts = append([]string{"step:" + step.Name}, nameParts...)
	}
	return fleet.BenchName(f.Name, int32(roundNum), kind, nameParts...)
}

// fleetTolerations are the fleet's tolerations and its own taints (verdict, upgrade gate).
func fleetTolerations(f *sbv1.SpiralBenchFleet) []corev1.Toleration {
	return append(append([]corev1.Toleration(nil), f.Spec.Tolerations...),
		corev1.Toleration{Key: taintVerdict, Operator: corev1.TolerationOpExists},
		corev1.Toleration{Key: taintUpgradeGate, Operator: corev1.TolerationOpExists})
}

// markStarted books the nodes of a new bench or check and sets their rows Running.
func markStarted(v *fleetView, kind string, nodes []string, name, step string) {
	for _, n := range nodes {
		v.busyNodes[n] = true
	}
	switch kind {
	case fleet.KindUpgrade:
		v.rows[nodes[0]].Upgrade = sbv1.GateBenching
	case fleet.KindIsolate:
		row := v.rows[nodes[0]]
		row.Verdict, row.Bench = sbv1.NodeRunning, name
	default:
		for _, n := range nodes {
			v.rows[n].Verdict, v.rows[n].Bench, v.rows[n].Reason, v.rows[n].Step = sbv1.NodeRunning, name, "", step
		}
	}
}

// createBenches creates what the last step decided (benches, check pods), once its status
// and results are written; a round's start creates up to maxParallel of them, so they are
// created by a few workers at once.
func (r *Reconciler) createBenches(ctx context.Context, f *sbv1.SpiralBenchFleet, objects []client.Object) error {
	return inParallel(objects, func(o client.Object) error {
		err := r.createMarked(ctx, f, o)
		if err != nil {
			r.event(f, true, "CreateFailed", "create %T %s: %v", o, o.GetName(), err)
		}
		return err
	})
}
