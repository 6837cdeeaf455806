package fleetctrl

import (
	"context"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/controllers/benchstate"
	"github.com/spiralbench/spiralbench/pkg/fleet"
)

// What a fleet deletes of its own objects so that they do not pile up: a round's check pods
// when the next round starts (as its benches, staleBenches), and a node's upgrade benches and
// check pods beyond its last fleet.UpgradeRunsKept upgrades when a gate ends. Only finished
// objects go; their results are in the bucket, in status and in the history.

// deleteStaleChecks deletes the ended check pods of earlier rounds.
func (r *Reconciler) deleteStaleChecks(ctx context.Context, v *fleetView) error {
	var pods corev1.PodList
	if err := r.List(ctx, &pods, client.InNamespace(v.f.Namespace), client.MatchingLabels{sbv1.LabelFleet: v.f.Name}); err != nil {
		return err
	}
	for i := range pods.Items {
		p := &pods.Items[i]
		round, _ := strconv.Atoi(p.Labels[sbv1.LabelFleetRound])
		if p.Labels[sbv1.LabelFleetKind] == fleet.KindUpgrade || int32(round) >= v.f.Status.Round || !fleet.CheckDone(p) || !r.ownedBy(p, v.f) {
			continue
		}
		if err := r.Delete(ctx, p, client.PropagationPolicy(metav1.DeletePropagationBackground)); client.IgnoreNotFound(err) != nil {
			return err
		}
	}
	return nil
}

// pruneUpgrades deletes the node's finished upgrade benches and check pods of all but its last
// fleet.UpgradeRunsKept gates.
func (r *Reconciler) pruneUpgrades(ctx context.Context, v *fleetView, node string) error {
	upgradeOf := client.MatchingLabels{sbv1.LabelFleet: v.f.Name, sbv1.LabelFleetKind: fleet.KindUpgrade}
	var benches sbv1.SpiralBenchList
	if err := r.List(ctx, &benches, client.InNamespace(v.f.Namespace), upgradeOf); err != nil {
		return err
	}
	var pods corev1.PodList
	if err := r.List(ctx, &pods, client.InNamespace(v.f.Namespace), upgradeOf); err != nil {
		return err
	}
	var objs []client.Object
	ended := map[client.Object]bool{}
	for i := range benches.Items {
		objs = append(objs, &benches.Items[i])
		ended[&benches.Items[i]] = benchstate.Finished(&benches.Items[i])
	}
	for i := range pods.Items {
		objs = append(objs, &pods.Items[i])
		ended[&pods.Items[i]] = fleet.CheckDone(&pods.Items[i])
	}
	seen := map[string]bool{}
	var gates []string
	var mine []client.Object
	for _, o := range objs {
		if o.GetAnnotations()[annotationSubject] != node || !r.ownedBy(o, v.f) {
			continue
		}
		mine = append(mine, o)
		if id := o.GetLabels()[sbv1.LabelFleetRound]; !seen[id] { // an upgrade's round label is its gate id
			seen[id] = true
			gates = append(gates, id)
		}
	}
	old := map[string]bool{}
	for _, id := range fleet.OldGates(gates, fleet.UpgradeRunsKept) {
		old[id] = true
	}
	for _, o := range mine {
		if !old[o.GetLabels()[sbv1.LabelFleetRound]] || !ended[o] {
			continue
		}
		if err := r.Delete(ctx, o, client.PropagationPolicy(metav1.DeletePropagationBackground)); client.IgnoreNotFound(err) != nil {
			return err
		}
	}
	return nil
}
