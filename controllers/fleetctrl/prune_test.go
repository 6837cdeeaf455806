package fleetctrl

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/controllers/benchstate"
	"github.com/spiralbench/spiralbench/pkg/fleet"
	"github.com/spiralbench/spiralbench/pkg/provenance"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// Only the fleet's own ended check pods of earlier rounds go: not the current round's, not a
// running one, not an upgrade's (pruned per gate), and not one the manager did not make.
func TestDeleteStaleChecksDeletesOnlyItsOwnEndedEarlierChecks(t *testing.T) {
	key := provenance.RandomKey()
	f := &sbv1.SpiralBenchFleet{ObjectMeta: metav1.ObjectMeta{Namespace: "lab", Name: "f", UID: "fleet-uid"}}
	f.Status.Round = 2
	check := func(name, kind, round string, phase corev1.PodPhase, marked bool) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "lab", Name: name,
			Labels:          map[string]string{sbv1.LabelFleet: "f", sbv1.LabelFleetKind: kind, sbv1.LabelFleetRound: round, sbv1.LabelFleetStep: "nic"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: sbv1.GroupVersion.String(), Kind: "SpiralBenchFleet", Name: "f", UID: f.UID, Controller: ptr.To(true)}}},
			Status: corev1.PodStatus{Phase: phase}}
		if marked {
			if err := benchstate.Mark(key, p); err != nil {
				t.Fatal(err)
			}
		}
		return p
	}
	objs := []client.Object{
		check("old-done", fleet.KindRound, "1", corev1.PodSucceeded, true),
		check("old-running", fleet.KindRound, "1", corev1.PodRunning, true),
		check("this-round", fleet.KindRound, "2", corev1.PodFailed, true),
		check("upgrade", fleet.KindUpgrade, "1", corev1.PodSucceeded, true),
		check("not-ours", fleet.KindRound, "1", corev1.PodSucceeded, false),
	}
	c := fake.NewClientBuilder().WithScheme(sbtesting.Scheme(t)).WithObjects(objs...).Build()
	r := &Reconciler{Client: c, APIReader: c, Provenance: key}
	if err := r.deleteStaleChecks(context.Background(), &fleetView{f: f}); err != nil {
		t.Fatal(err)
	}
	var left corev1.PodList
	if err := c.List(context.Background(), &left); err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, p := range left.Items {
		got[p.Name] = true
	}
	if got["old-done"] || len(got) != 4 {
		t.Fatalf("left %v, want all but old-done", got)
	}
}
