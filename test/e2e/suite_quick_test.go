package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// The Quick suite on the cluster's one real node (real kubelet, real data plane, no GPU), with
// a raw step over an in-memory ring and an external check (a shell in the project's data plane
// image writing the check's JSON) added: the copy and NCCL steps end "no GPU on this node",
// which the cpu-only class excuses; the socket and raw steps and the check run. A round whose
// TCP step cannot hold its rule and whose check reports Failed fails the node with both steps'
// reason codes, labels and taints it; the next round, rule and check passing, passes it, names
// its class and lifts the taint.
func TestQuickSuiteQualifiesTheRealNode(t *testing.T) {
	requireStack(t)
	ns := namespace(t)
	ctx := context.Background()
	pool := "spiralbench.io/e2e-suite-pool"
	node := poolNode(t, pool, ns)

	short := sbv1.RunSpec{Seconds: 2, WarmupSeconds: ptr.To[int32](1), Repeats: 1, RetriesPerCell: ptr.To[int32](0)}
	tcp := sbv1.SpiralBenchSpec{Transport: sbv1.TransportTCP, Matrix: sbv1.MatrixSpec{PayloadBytes: []int32{8000}, Pairs: []int32{1}},
		Run: short, Results: results(), Acceptance: &sbv1.AcceptanceSpec{Rules: []sbv1.AcceptanceRule{{Name: "rx-floor",
			Metric: sbv1.MetricRxMbps, Operator: sbv1.OperatorGreaterThanOrEqual, Value: 100_000_000}}}}
	raw := sbv1.SpiralBenchSpec{Transport: sbv1.TransportRawEthernet, Matrix: sbv1.MatrixSpec{PayloadBytes: []int32{1000}, Batches: []int32{32}},
		Run: short, Results: results(), RawEthernet: &sbv1.RawEthernetSpec{TXPort: &sbv1.PortSource{VirtualDevice: "net_ring0"},
			RXPort: &sbv1.PortSource{VirtualDevice: "net_ring0"}}}
	check := func(verdict string) *sbv1.ExternalCheck {
		return &sbv1.ExternalCheck{Image: "spiralbench/dataplane:dev", Command: []string{"/bin/sh", "-c",
			`echo '{"verdict":"` + verdict + `","reason":"FanBelowSpec","figures":{"fanRPM":5200}}' >/dev/termination-log`}}
	}
	w := sbtesting.MakeFleet("quick", ns, "").Verdicts(true).Results(results())
	f := w.Obj()
	f.Spec.NodeSelector.MatchLabels = map[string]string{pool: ns}
	f.Spec.Template = nil
	f.Spec.References = &sbv1.ReferenceSpec{}
	f.Spec.Suite = &sbv1.SuiteSpec{Builtin: sbv1.SuiteQuick, Steps: []sbv1.SuiteStep{
		// Continue, as the built-in tcp step it replaces: a step of the fleet's own stops the
		// rest on failure unless it says otherwise.
		{Name: "tcp", Template: &sbv1.FleetBenchTemplate{Spec: tcp}, OnFailure: sbv1.StepContinue},
		{Name: "raw", Template: &sbv1.FleetBenchTemplate{Spec: raw}},
		{Name: "site", Check: check("Failed")},
	}}
	if err := k8s.Create(ctx, f); err != nil {
		t.Fatal(err)
	}
	cur := waitForFleet(t, ns, "quick", 6*time.Minute, "round 1 finished", func(f *sbv1.SpiralBenchFleet) bool {
		return f.Status.Round == 1 && f.Status.RoundCompletionTime != nil
	})
	rows := fleetRows(t, cur)
	if len(rows) != 1 {
		t.Fatalf("round 1 rows %+v", rows)
	}
	row := rows[0]
	reasons := strings.Join(row.Reasons, " ")
	if row.Verdict != sbv1.NodeFailed || !strings.Contains(reasons, "StepFailed:tcp") || !strings.Contains(reasons, "StepFailed:site") ||
		strings.Contains(reasons, ":raw") {
		t.Fatalf("round 1: the tcp step's rule and the check fail the node, the raw step passes: %+v", row)
	}
	n := getNode(t, node)
	if n.Labels[labelVerdict] != "Failed" || !tainted(n) || !strings.Contains(n.Annotations["spiralbench.io/verdict-reasons"], "StepFailed") {
		t.Fatalf("after a failed round: labels %v annotations %v taints %v", n.Labels, n.Annotations, n.Spec.Taints)
	}

	// The same suite with a TCP rule that holds: every step passes or is excused, the taint goes.
	if err := k8s.Get(ctx, client.ObjectKeyFromObject(f), f); err != nil {
		t.Fatal(err)
	}
	f.Spec.Suite.Steps[0].Template.Spec.Acceptance.Rules[0].Value = 100
	f.Spec.Suite.Steps[2].Check = check("Passed")
	if f.Annotations == nil {
		f.Annotations = map[string]string{}
	}
	f.Annotations[sbv1.AnnotationRoundRequest] = "2"
	if err := k8s.Update(ctx, f); err != nil {
		t.Fatal(err)
	}
	cur = waitForFleet(t, ns, "quick", 6*time.Minute, "round 2 finished", func(f *sbv1.SpiralBenchFleet) bool {
		return f.Status.Round == 2 && f.Status.RoundCompletionTime != nil
	})
	row = fleetRows(t, cur)[0]
	if row.Verdict != sbv1.NodePassed || row.Class != "cpu-only" || len(row.Reasons) != 0 || row.ValidUntil == nil {
		t.Fatalf("round 2: the node passes as cpu-only with its GPU steps excused: %+v", row)
	}
	n = getNode(t, node)
	if n.Labels[labelVerdict] != "Passed" || tainted(n) || n.Labels["spiralbench.io/verdict-class"] != "cpu-only" {
		t.Fatalf("after a passing round: labels %v taints %v", n.Labels, n.Spec.Taints)
	}
}
