package integration

import (
	"context"
	"strings"
	"testing"
	"time"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// The odd node of a Ring suite has no partner for the Pair step: it runs the step with a node
// that passed (kind isolate, as a template fleet's odd node does), that bench's outcome is its
// step outcome, and it goes on to its next step. No node is left StepMissing.
func TestFleetSuitePairStepOfTheOddNode(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	for _, n := range []string{"so-a", "so-b", "so-c"} {
		poolNode(t, n, "odd")
	}
	if err := k8sClient.Create(context.Background(), pairSuite("odd", ns, "odd")); err != nil {
		t.Fatal(err)
	}
	k := &fleetKubelet{t: t, ns: ns}
	done := k.runUntil(120*time.Second, "odd", "round 1 finished", roundFinished(1))
	if done.Status.Counts.Passed != 3 {
		t.Fatalf("counts %+v rows %+v", done.Status.Counts, rowsOf(done))
	}
	var odd, ref string
	for _, sb := range fleetBenches(t, ns, "odd") {
		if sb.Labels[sbv1.LabelFleetKind] != "isolate" {
			continue
		}
		on := benchNodesOf(&sb)
		if odd != "" || sb.Labels[sbv1.LabelFleetStep] != "pair" || len(on) != 2 {
			t.Fatalf("isolate bench %s: step %q nodes %v (odd node so far %q)", sb.Name, sb.Labels[sbv1.LabelFleetStep], on, odd)
		}
		odd, ref = on[0], on[1]
	}
	if odd == "" {
		t.Fatal("the odd node's Pair step ran with no other node")
	}
	row := rowOf(done, odd)
	if row.Verdict != sbv1.NodePassed || len(row.Reasons) != 0 || !strings.Contains(row.Reason, "no partner this round; with "+ref+" passed") {
		t.Errorf("odd node %s row %+v", odd, row)
	}
	if rowOf(done, ref).Verdict != sbv1.NodePassed || ref == odd {
		t.Errorf("%s ran its Pair step with %s, which is not a node that passed", odd, ref)
	}
	got := stepsOf(t, ns, "odd")
	for _, n := range []string{"so-a", "so-b", "so-c"} {
		if got[n+"/after"] != 1 {
			t.Errorf("%s ran its step after the pair %d times: %v", n, got[n+"/after"], got)
		}
	}
	if len(k.overlaps) > 0 {
		t.Errorf("two benches on one node at once: %v", k.overlaps)
	}
}

// With no node that passed, the odd node's Pair step cannot run: it is StepMissing with a
// reason saying so, the steps after it do not run, and the round still ends.
func TestFleetSuitePairStepOfTheOddNodeWithoutReference(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	slow := map[string]int64{}
	for _, n := range []string{"sm-a", "sm-b", "sm-c"} {
		poolNode(t, n, "oddnoref")
		slow[n] = 400 // every pair fails its floor: no node passes
	}
	if err := k8sClient.Create(context.Background(), pairSuite("oddnoref", ns, "oddnoref")); err != nil {
		t.Fatal(err)
	}
	k := &fleetKubelet{t: t, ns: ns, mbps: slow}
	done := k.runUntil(90*time.Second, "oddnoref", "round 1 finished", roundFinished(1))
	missing := 0
	for _, row := range rowsOf(done) {
		switch {
		case row.Partner == "" || strings.Contains(row.Reason, "no partner"):
			missing++
			if row.Verdict != sbv1.NodeInvalid || strings.Join(row.Reasons, ",") != "StepMissing:pair,StepSkipped:after" ||
				!strings.Contains(row.Reason, "no partner this round, and no node passed to run it with") {
				t.Errorf("odd node row %+v", row)
			}
		case row.Verdict != sbv1.NodeFailed || !strings.Contains(row.Reason, "no node passed to tell which is at fault"):
			t.Errorf("paired node row %+v", row)
		}
	}
	if missing != 1 {
		t.Errorf("%d odd nodes, want 1: %+v", missing, rowsOf(done))
	}
	for _, sb := range fleetBenches(t, ns, "oddnoref") {
		if sb.Labels[sbv1.LabelFleetKind] == "isolate" || sb.Labels[sbv1.LabelFleetStep] == "after" {
			t.Errorf("bench %s (%s, step %s) ran without a node that passed", sb.Name, sb.Labels[sbv1.LabelFleetKind], sb.Labels[sbv1.LabelFleetStep])
		}
	}
}

// A node whose partner ended its suite before the Pair step (the partner failed an earlier
// Stop step) runs the step with a node that passed instead of going without a result.
func TestFleetSuitePairStepAfterThePartnerStopped(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	nodes := []string{"sp-a", "sp-b", "sp-c", "sp-d"}
	for _, n := range nodes {
		poolNode(t, n, "stopped")
	}
	pair := tcpStep("pair", 0, sbv1.StepStop)
	pair.Placement = sbv1.StepOnPair
	f := suiteFleet("stopped", ns, "stopped", &sbv1.SuiteSpec{Steps: []sbv1.SuiteStep{
		tcpStep("alone", 900, sbv1.StepStop), pair, tcpStep("after", 0, sbv1.StepContinue)}})
	f.Spec.Pairing = sbv1.PairingRing
	if err := k8sClient.Create(context.Background(), f); err != nil {
		t.Fatal(err)
	}
	k := &fleetKubelet{t: t, ns: ns, mbps: map[string]int64{"sp-d": 400}} // sp-d fails its first step and stops
	done := k.runUntil(120*time.Second, "stopped", "round 1 finished", roundFinished(1))
	if done.Status.Counts.Passed != 3 || done.Status.Counts.Failed != 1 {
		t.Fatalf("counts %+v rows %+v", done.Status.Counts, rowsOf(done))
	}
	var left string
	for _, row := range rowsOf(done) {
		if strings.Contains(row.Reason, "partner sp-d ended its suite before this step; with ") {
			left = row.Name
		}
	}
	if left == "" {
		t.Fatalf("no row says its partner sp-d ended its suite: %+v", rowsOf(done))
	}
	if got := stepsOf(t, ns, "stopped"); got[left+"/pair"] != 1 || got[left+"/after"] != 1 || got["sp-d/pair"] != 0 {
		t.Errorf("steps %v: %s runs its Pair step once (with a node that passed) and goes on; sp-d runs none", got, left)
	}
}
