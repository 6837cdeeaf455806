package integration

import (
	"context"
	"strings"
	"testing"
	"time"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// A Quick suite on a node without GPUs: its result records every step, not only the last.
// copy and nccl never ran and are excused (NoGPU, and the node's class, cpu-only, excuses
// them); tcp passed with its figure, judged against no reference because the class expects
// nothing of it, and names its bench.
func TestFleetResultRecordsEveryStep(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	poolNode(t, "st-a", "steps")
	// The built-in tcp step is replaced by a short one, so the test runs in seconds.
	f := suiteFleet("steps", ns, "steps", &sbv1.SuiteSpec{Builtin: sbv1.SuiteQuick, Steps: []sbv1.SuiteStep{tcpStep("tcp", 0, sbv1.StepContinue)}})
	f.Spec.References = &sbv1.ReferenceSpec{}
	if err := k8sClient.Create(context.Background(), f); err != nil {
		t.Fatal(err)
	}
	k := &fleetKubelet{t: t, ns: ns, mbps: map[string]int64{"st-a": 2955}}
	done := k.runUntil(60*time.Second, "steps", "round 1 finished", roundFinished(1))
	row := rowOf(done, "st-a")
	if row.Verdict != sbv1.NodePassed || row.Class != "cpu-only" || row.StepsSummary != "3/3 passed, 2 excused" || len(row.Steps) != 3 {
		t.Fatalf("row %+v", row)
	}
	for i, step := range []string{"copy", "nccl"} {
		s := row.Steps[i]
		if s.Name != step || s.State != sbv1.StepRecordExcused || !strings.Contains(s.Reason, "NoGPU") ||
			!strings.Contains(s.Reason, "class cpu-only excuses "+step) || s.Bench != "" || s.Value != nil {
			t.Errorf("%s: %+v", step, s)
		}
	}
	var tcpBench string
	for _, sb := range fleetBenches(t, ns, "steps") {
		if sb.Labels[sbv1.LabelFleetStep] == "tcp" {
			tcpBench = sb.Name
		}
	}
	tcp := row.Steps[2]
	if tcp.Name != "tcp" || tcp.State != sbv1.StepRecordPassed || tcp.Figure != "RxMbps" || tcp.Value == nil || *tcp.Value != 2955 ||
		tcp.Unit != "Mb/s" || tcp.JudgedAgainst != "no reference: class cpu-only expects nothing for this step" ||
		tcpBench == "" || tcp.Bench != tcpBench {
		t.Errorf("tcp: %+v (bench %q)", tcp, tcpBench)
	}
}
