package fleetctrl

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// The node carries its verdict (labels, reasons, run) and the Failed taint: added on Failed,
// removed on Passed, left as it was on Invalid (an Invalid run says nothing about the node).
func TestWriteVerdictLabelsAndTaintsTheNode(t *testing.T) {
	node := sbtesting.ReadyNode("n1")
	node.Spec.Taints = []corev1.Taint{{Key: "other", Value: "x", Effect: corev1.TaintEffectNoExecute}}
	c := fake.NewClientBuilder().WithScheme(sbtesting.Scheme(t)).WithObjects(node).Build()
	r := &Reconciler{Client: c, APIReader: c, NodeWrites: true, Recorder: events.NewFakeRecorder(10)}
	f := &sbv1.SpiralBenchFleet{ObjectMeta: metav1.ObjectMeta{Namespace: "lab", Name: "f"},
		Spec: sbv1.SpiralBenchFleetSpec{Verdicts: &sbv1.FleetVerdictSpec{Labels: true, TaintOnFailure: true}}}
	v := &fleetView{f: f}
	read := func() *corev1.Node {
		var n corev1.Node
		if err := c.Get(context.Background(), client.ObjectKey{Name: "n1"}, &n); err != nil {
			t.Fatal(err)
		}
		return &n
	}
	taint := func(n *corev1.Node) string {
		for _, tt := range n.Spec.Taints {
			if tt.Key == taintVerdict {
				return tt.Value
			}
		}
		return ""
	}

	row := &sbv1.FleetNode{Name: "n1", Verdict: sbv1.NodeFailed, Bench: "b1", RunID: "r1", Reasons: []string{"StepFailed", "BelowHistory"}, Class: "spark"}
	r.writeVerdict(context.Background(), v, row)
	n := read()
	if n.Labels[sbv1.LabelVerdict] != "Failed" || n.Annotations[sbv1.AnnotationVerdictReasons] != "StepFailed,BelowHistory" ||
		n.Annotations[sbv1.AnnotationVerdictRun] != "lab/b1/r1" || n.Labels[sbv1.LabelVerdictClass] != "spark" || taint(n) != "Failed" {
		t.Fatalf("after Failed: labels %v annotations %v taints %v", n.Labels, n.Annotations, n.Spec.Taints)
	}
	row.Verdict, row.Reasons, row.Class = sbv1.NodeInvalid, []string{"StepInvalid"}, ""
	r.writeVerdict(context.Background(), v, row)
	if n = read(); n.Labels[sbv1.LabelVerdict] != "Invalid" || taint(n) != "Failed" || n.Labels[sbv1.LabelVerdictClass] != "" {
		t.Fatalf("after Invalid the taint stays: labels %v taints %v", n.Labels, n.Spec.Taints)
	}
	row.Verdict, row.Reasons = sbv1.NodePassed, nil
	r.writeVerdict(context.Background(), v, row)
	if n = read(); n.Labels[sbv1.LabelVerdict] != "Passed" || taint(n) != "" || len(n.Spec.Taints) != 1 || n.Annotations[sbv1.AnnotationVerdictReasons] != "" {
		t.Fatalf("after Passed: taints %v annotations %v", n.Spec.Taints, n.Annotations)
	}

	// Without --fleet-node-writes nothing is written.
	r.NodeWrites = false
	row.Verdict = sbv1.NodeFailed
	r.writeVerdict(context.Background(), v, row)
	if n = read(); n.Labels[sbv1.LabelVerdict] != "Passed" || taint(n) != "" {
		t.Fatalf("without node writes the node changed: %v %v", n.Labels, n.Spec.Taints)
	}
}

// A node left without a partner when no node passed goes through the one verdict door: Invalid
// with its reason code, written onto the node like every other verdict.
func TestNoPartnerIsAVerdictWithItsCodeOnTheNode(t *testing.T) {
	c := fake.NewClientBuilder().WithScheme(sbtesting.Scheme(t)).WithObjects(sbtesting.ReadyNode("odd")).Build()
	r := &Reconciler{Client: c, APIReader: c, NodeWrites: true, Recorder: events.NewFakeRecorder(10)}
	f := &sbv1.SpiralBenchFleet{ObjectMeta: metav1.ObjectMeta{Namespace: "lab", Name: "f"},
		Spec: sbv1.SpiralBenchFleetSpec{Verdicts: &sbv1.FleetVerdictSpec{Labels: true}}}
	row := &sbv1.FleetNode{Name: "odd", Verdict: sbv1.NodePending, Reason: "odd one out: waits for a partner that passed"}
	v := &fleetView{f: f, rows: map[string]*sbv1.FleetNode{"odd": row}, benches: map[string]*sbv1.SpiralBench{}}
	r.noReference(context.Background(), v)
	if row.Verdict != sbv1.NodeInvalid || row.Reason != "no partner: no node passed this round" || len(row.Reasons) != 1 || row.Reasons[0] != "StepMissing" {
		t.Fatalf("row %+v", row)
	}
	var n corev1.Node
	if err := c.Get(context.Background(), client.ObjectKey{Name: "odd"}, &n); err != nil || n.Labels[sbv1.LabelVerdict] != "Invalid" ||
		n.Annotations[sbv1.AnnotationVerdictReasons] != "StepMissing" {
		t.Fatalf("node labels %v annotations %v (%v)", n.Labels, n.Annotations, err)
	}
}
