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
	"github.com/spiralbench/spiralbench/pkg/attempts"
	"github.com/spiralbench/spiralbench/pkg/fleet"
	"github.com/spiralbench/spiralbench/pkg/provenance"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// A node whose suite step just ended takes its next step in the same fleet step: its slot is
// free once the step's bench has ended, so its row goes from Running to Running (one result
// write), not to Pending now and Running a step later, and it goes before a node that has not
// started (maxParallel 1 here).
func TestASuiteNodeTakesItsNextStepInTheStepItsLastEnded(t *testing.T) {
	c := fake.NewClientBuilder().WithScheme(sbtesting.Scheme(t)).WithIndex(&sbv1.SpiralBenchAttemptResult{}, attempts.BenchIndex, attempts.IndexBench).
		WithIndex(&corev1.Pod{}, podNodeIndex, func(o client.Object) []string { return []string{o.(*corev1.Pod).Spec.NodeName} }).Build()
	r := &Reconciler{Client: c, APIReader: c, Provenance: provenance.RandomKey()}

	f := sbtesting.MakeFleet("f", "lab", "pool").MaxParallel(1).Obj()
	template := f.Spec.Template
	f.Spec.Template = nil
	f.Spec.Suite = &sbv1.SuiteSpec{Steps: []sbv1.SuiteStep{
		{Name: "one", Template: template, OnFailure: sbv1.StepContinue},
		{Name: "two", Template: template, OnFailure: sbv1.StepContinue},
	}}
	f.UID, f.Status.Round = "f1", 1
	ended := &sbv1.SpiralBench{
		ObjectMeta: metav1.ObjectMeta{Name: "f-a-one", Namespace: "lab", CreationTimestamp: metav1.Now(),
			OwnerReferences: []metav1.OwnerReference{{APIVersion: sbv1.GroupVersion.String(), Kind: "SpiralBenchFleet", Name: "f", UID: "f1", Controller: ptr.To(true)}}},
		Status: sbv1.SpiralBenchStatus{Phase: sbv1.PhaseCompleted},
	}
	v := &fleetView{f: f,
		pool: map[string]*corev1.Node{"a": sbtesting.ReadyNode("a"), "b": sbtesting.ReadyNode("b")},
		rows: map[string]*sbv1.FleetNode{
			"a": {Name: "a", Verdict: sbv1.NodeRunning, Step: "one", Bench: ended.Name},
			"b": {Name: "b", Verdict: sbv1.NodePending},
		},
		benches:   map[string]*sbv1.SpiralBench{stepKey(fleet.KindRound, "a", "one"): ended},
		busyNodes: map[string]bool{"a": true}, // as view() marks a Running row
		claimed:   map[string]bool{},
		steps:     fleet.Steps(&f.Spec), checks: map[string]*corev1.Pod{}, next: map[string]int{}, isolate: map[string]string{},
	}

	r.observeSuite(context.Background(), v)
	if err := r.launch(context.Background(), v, nil, true); err != nil {
		t.Fatal(err)
	}
	if len(v.toCreate) != 1 || v.toCreate[0].GetLabels()[sbv1.LabelFleetStep] != "two" || v.toCreate[0].GetAnnotations()[annotationSubject] != "a" {
		t.Fatalf("a's step two is created in this step, got %d objects %v", len(v.toCreate), v.toCreate)
	}
	if a, b := v.rows["a"], v.rows["b"]; a.Verdict != sbv1.NodeRunning || a.Step != "two" || b.Verdict != sbv1.NodePending {
		t.Errorf("rows a %+v b %+v", a, b)
	}
}
