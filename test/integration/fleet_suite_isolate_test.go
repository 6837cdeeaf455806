package integration

import (
	"context"
	"strings"
	"testing"
	"time"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// pairSuite is a Ring fleet's suite: a Pair step with an RxMbps floor (Stop), then a step on
// each node alone.
func pairSuite(name, ns, pool string) *sbv1.SpiralBenchFleet {
	pair := tcpStep("pair", 900, sbv1.StepStop)
	pair.Placement = sbv1.StepOnPair
	f := suiteFleet(name, ns, pool, &sbv1.SuiteSpec{Steps: []sbv1.SuiteStep{pair, tcpStep("after", 0, sbv1.StepContinue)}})
	f.Spec.Pairing = sbv1.PairingRing
	return f
}

// A suite's failed Pair step finds the bad node as a template fleet does: each node of the
// failed pair runs the step again with a node that passed the whole suite (kind isolate),
// and that bench's outcome is its step outcome, so only the slow node fails; its partner
// goes on to its next step and passes.
func TestFleetSuitePairStepIsolatesTheBadNode(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	nodes := []string{"si-a", "si-b", "si-c", "si-d"}
	for _, n := range nodes {
		poolNode(t, n, "isolate")
	}
	if err := k8sClient.Create(context.Background(), pairSuite("isolate", ns, "isolate")); err != nil {
		t.Fatal(err)
	}
	k := &fleetKubelet{t: t, ns: ns, mbps: map[string]int64{"si-d": 400}}
	done := k.runUntil(120*time.Second, "isolate", "round 1 finished", roundFinished(1))
	if done.Status.Counts.Passed != 3 || done.Status.Counts.Failed != 1 {
		t.Fatalf("counts %+v rows %+v", done.Status.Counts, rowsOf(done))
	}
	bad := rowOf(done, "si-d")
	if bad.Verdict != sbv1.NodeFailed || strings.Join(bad.Reasons, ",") != "StepFailed:pair,StepSkipped:after" || !strings.Contains(bad.Reason, " failed; with ") {
		t.Errorf("si-d row %+v", bad)
	}
	var pairPartner string
	isolated := map[string]string{}
	for _, sb := range fleetBenches(t, ns, "isolate") {
		on := benchNodesOf(&sb)
		step := sb.Labels[sbv1.LabelFleetStep]
		switch {
		case sb.Labels[sbv1.LabelFleetKind] == "isolate":
			if step != "pair" || len(on) != 2 {
				t.Errorf("isolate bench %s: step %q nodes %v", sb.Name, step, on)
				continue
			}
			isolated[on[0]] = on[1]
		case step == "pair" && (on[0] == "si-d" || on[1] == "si-d"):
			pairPartner = on[0] + on[1]
		}
	}
	pairPartner = strings.Replace(pairPartner, "si-d", "", 1)
	if len(isolated) != 2 || isolated["si-d"] == "" || isolated[pairPartner] == "" {
		t.Fatalf("isolate benches %v, want one for si-d and one for its partner %s", isolated, pairPartner)
	}
	for n, ref := range isolated {
		if ref == "si-d" || ref == pairPartner || rowOf(done, ref).Verdict != sbv1.NodePassed {
			t.Errorf("%s isolated against %s, which is not a node that passed", n, ref)
		}
	}
	p := rowOf(done, pairPartner)
	if p.Verdict != sbv1.NodePassed || len(p.Reasons) != 0 || !strings.Contains(p.Reason, "pair with si-d failed; with ") {
		t.Errorf("partner %s row %+v", pairPartner, p)
	}
	if got := stepsOf(t, ns, "isolate"); got[pairPartner+"/after"] != 1 || got["si-d/after"] != 0 {
		t.Errorf("steps after the pair %v: the partner goes on, the bad node stops", got)
	}
	if len(k.overlaps) > 0 {
		t.Errorf("two benches on one node at once: %v", k.overlaps)
	}
}

// With no node that passed, the pair's nodes cannot be told apart: the pair's bench is marked
// and both keep its outcome, with a reason saying so.
func TestFleetSuitePairStepWithoutReference(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	for _, n := range []string{"sn-a", "sn-b"} {
		poolNode(t, n, "noref")
	}
	if err := k8sClient.Create(context.Background(), pairSuite("noref", ns, "noref")); err != nil {
		t.Fatal(err)
	}
	k := &fleetKubelet{t: t, ns: ns, mbps: map[string]int64{"sn-b": 400}}
	done := k.runUntil(60*time.Second, "noref", "round 1 finished", roundFinished(1))
	for _, n := range []string{"sn-a", "sn-b"} {
		row := rowOf(done, n)
		if row.Verdict != sbv1.NodeFailed || strings.Join(row.Reasons, ",") != "StepFailed:pair,StepSkipped:after" ||
			!strings.Contains(row.Reason, "no node passed to tell which is at fault") {
			t.Errorf("%s row %+v", n, row)
		}
	}
	for _, sb := range fleetBenches(t, ns, "noref") {
		if sb.Labels[sbv1.LabelFleetKind] == "isolate" {
			t.Errorf("isolate bench %s without a reference", sb.Name)
		}
		if sb.Labels[sbv1.LabelFleetStep] == "pair" && sb.Annotations["spiralbench.io/fleet-no-reference"] == "" {
			t.Errorf("pair bench %s not marked: %v", sb.Name, sb.Annotations)
		}
	}
}
