package fleetctrl

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// nodeWritesCondition says whether the fleet's verdicts and gate can reach the nodes.
func (r *Reconciler) nodeWritesCondition(f *sbv1.SpiralBenchFleet) {
	wants := f.Spec.UpgradeGate != nil || (f.Spec.Verdicts != nil && (f.Spec.Verdicts.Labels || f.Spec.Verdicts.TaintOnFailure))
	switch {
	case !wants:
		setFleetCondition(f, sbv1.FleetConditionNodeWrites, metav1.ConditionFalse, sbv1.ReasonNodeWritesUnneeded, "spec asks for no verdict labels, taints or upgrade gate")
	case r.NodeWrites:
		setFleetCondition(f, sbv1.FleetConditionNodeWrites, metav1.ConditionTrue, sbv1.ReasonNodeWritesOn, "verdicts and the upgrade gate are written to the nodes")
	default:
		setFleetCondition(f, sbv1.FleetConditionNodeWrites, metav1.ConditionFalse, sbv1.ReasonNodeWritesOff,
			"the manager may not patch nodes: install the chart with fleet.nodeWrites=true (manager flag --fleet-node-writes); until then no labels, taints or upgrade gate")
	}
}

// setFleetCondition sets a condition and reports whether its status changed.
func setFleetCondition(f *sbv1.SpiralBenchFleet, condType string, status metav1.ConditionStatus, reason, message string) bool {
	before := meta.FindStatusCondition(f.Status.Conditions, condType)
	changed := before == nil || before.Status != status
	meta.SetStatusCondition(&f.Status.Conditions, metav1.Condition{
		Type: condType, Status: status, Reason: reason, Message: shorten(message, 1024), ObservedGeneration: f.Generation,
	})
	return changed
}

// event records a fleet event.
func (r *Reconciler) event(f *sbv1.SpiralBenchFleet, warning bool, reason, format string, args ...any) {
	kind := corev1.EventTypeNormal
	if warning {
		kind = corev1.EventTypeWarning
	}
	r.Recorder.Eventf(f, nil, kind, reason, "Fleet", format, args...)
}
