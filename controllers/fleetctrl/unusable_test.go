package fleetctrl

import (
	"context"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/provenance"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// A node selector the apiserver stored but no selector can be made of (an operator it does not
// know) says so on the fleet, in a condition and an event, rather than only in the manager's log.
func TestAFleetItCannotUseSaysWhyInAConditionAndAnEvent(t *testing.T) {
	ctx := context.Background()
	f := sbtesting.MakeFleet("f", "lab", "pool").Obj()
	f.Spec.NodeSelector = metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "pool", Operator: "Equals", Values: []string{"gpu"}}}}
	c := fake.NewClientBuilder().WithScheme(sbtesting.Scheme(t)).WithStatusSubresource(&sbv1.SpiralBenchFleet{}).WithObjects(f).Build()
	rec := events.NewFakeRecorder(10)
	r := &Reconciler{Client: c, APIReader: c, Recorder: rec, Provenance: provenance.RandomKey()}
	if _, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(f)}); err != nil {
		t.Fatalf("reconcile: %v (an unusable spec is the user's to change, not an error to retry)", err)
	}
	var got sbv1.SpiralBenchFleet
	if err := c.Get(ctx, client.ObjectKeyFromObject(f), &got); err != nil {
		t.Fatal(err)
	}
	cond := meta.FindStatusCondition(got.Status.Conditions, sbv1.FleetConditionSpecUsable)
	if cond == nil || cond.Status != metav1.ConditionFalse || !strings.Contains(cond.Message, "spec.nodeSelector") || !strings.Contains(cond.Message, "NotIn") {
		t.Fatalf("condition %+v: want SpecUsable=False naming spec.nodeSelector and the operators to use", cond)
	}
	select {
	case e := <-rec.Events:
		if !strings.Contains(e, sbv1.ReasonUnusableSpec) {
			t.Errorf("event %q", e)
		}
	default:
		t.Error("no event")
	}
}
