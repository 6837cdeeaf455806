package integration

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// A suite gates driver upgrades as a template does, through the GPU Operator's label sequence
// set by the test: after upgrade-done each node runs the whole suite again (kind upgrade, one
// step at a time), and the judge's verdict over its steps ends the gate. A node whose floor
// step fails is held (its later step skipped), one whose suite passes is released, and a new
// upgrade of the held node that passes releases it.
func TestFleetSuiteGatesDriverUpgrades(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	for _, n := range []string{"sg-good", "sg-bad"} {
		poolNode(t, n, "suitegate")
	}
	f := suiteFleet("suitegate", ns, "suitegate", &sbv1.SuiteSpec{Steps: []sbv1.SuiteStep{
		tcpStep("floor", 900, sbv1.StepStop), tcpStep("after", 0, sbv1.StepContinue)}})
	f.Spec.Verdicts = nil
	f.Spec.UpgradeGate = &sbv1.UpgradeGateSpec{Drivers: []sbv1.UpgradeDriver{sbv1.UpgradeDriverGPU}}
	if err := k8sClient.Create(context.Background(), f); err != nil {
		t.Fatal(err)
	}
	k := &fleetKubelet{t: t, ns: ns, mbps: map[string]int64{}}
	k.runUntil(60*time.Second, "suitegate", "initial round finished", roundFinished(1))

	setState := func(node, state string) { setUpgradeState(t, node, state) }
	waitTaint := func(node, want string) { k.waitGateTaint(60*time.Second, node, want) }
	upgradeSteps := func() map[string]int {
		out := map[string]int{}
		for _, sb := range fleetBenches(t, ns, "suitegate") {
			if sb.Labels[sbv1.LabelFleetKind] == "upgrade" {
				out[benchNodesOf(&sb)[0]+"/"+sb.Labels[sbv1.LabelFleetStep]]++
			}
		}
		return out
	}

	k.mbps["sg-bad"] = 300 // the new driver made this node slow: its floor step fails
	for _, n := range []string{"sg-good", "sg-bad"} {
		setState(n, "upgrade-required")
		waitTaint(n, "Pending")
		setState(n, "uncordon-required")
	}
	time.Sleep(300 * time.Millisecond)
	if got := upgradeSteps(); len(got) != 0 {
		t.Fatalf("upgrade steps ran before upgrade-done: %v", got)
	}
	for _, n := range []string{"sg-good", "sg-bad"} {
		setState(n, "upgrade-done")
	}
	waitTaint("sg-good", "")
	waitTaint("sg-bad", "Failed")
	cur := k.runUntil(30*time.Second, "suitegate", "the gate's rows", func(f *sbv1.SpiralBenchFleet) bool {
		return rowOf(f, "sg-good").Upgrade == sbv1.GateReleased && rowOf(f, "sg-bad").Upgrade == sbv1.GateHeld && f.Status.Counts.Held == 1
	})
	if r := rowOf(cur, "sg-good"); r.Verdict != sbv1.NodePassed || len(r.Reasons) != 0 || !strings.HasPrefix(r.Bench, "suitegate-u0-") {
		t.Errorf("sg-good row %+v", r)
	}
	if r := rowOf(cur, "sg-bad"); r.Verdict != sbv1.NodeFailed || strings.Join(r.Reasons, ",") != "StepFailed:floor,StepSkipped:after" ||
		!strings.Contains(r.Reason, "after the driver upgrade") {
		t.Errorf("sg-bad row %+v", r)
	}
	want := map[string]int{"sg-good/floor": 1, "sg-good/after": 1, "sg-bad/floor": 1}
	if got := upgradeSteps(); len(got) != len(want) || got["sg-good/floor"] != 1 || got["sg-good/after"] != 1 || got["sg-bad/floor"] != 1 {
		t.Errorf("upgrade benches per node and step %v, want %v (every step once, none after a Stop)", got, want)
	}
	if len(k.overlaps) > 0 {
		t.Errorf("two steps' benches on one node at once: %v", k.overlaps)
	}

	// A new upgrade of the held node opens the gate again; its suite now passes: released.
	k.mbps["sg-bad"] = 1000
	setState("sg-bad", "upgrade-required")
	waitTaint("sg-bad", "Pending")
	setState("sg-bad", "upgrade-done")
	waitTaint("sg-bad", "")
	if got := upgradeSteps(); got["sg-bad/floor"] != 2 || got["sg-bad/after"] != 1 {
		t.Errorf("the second upgrade did not run the suite once more: %v", got)
	}
}

// After an upgrade, a suite's Pair step runs with a node that passed this round (not the
// round partner) and its external check runs as a pod of the upgrade, read back by its gate
// id: both pass, so the node is released.
func TestFleetSuiteGateRunsPairAndCheckSteps(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	for _, n := range []string{"sp-a", "sp-b", "sp-c"} {
		poolNode(t, n, "suitegatepair")
	}
	pair := tcpStep("pair", 900, sbv1.StepStop)
	pair.Placement = sbv1.StepOnPair
	f := suiteFleet("sgpair", ns, "suitegatepair", &sbv1.SuiteSpec{Steps: []sbv1.SuiteStep{pair,
		{Name: "diag", Check: &sbv1.ExternalCheck{Image: "spiralbench/dataplane:test", Command: []string{"/bin/diag"}}}}})
	f.Spec.Verdicts, f.Spec.Pairing = nil, sbv1.PairingRing
	f.Spec.UpgradeGate = &sbv1.UpgradeGateSpec{Drivers: []sbv1.UpgradeDriver{sbv1.UpgradeDriverGPU}}
	if err := k8sClient.Create(context.Background(), f); err != nil {
		t.Fatal(err)
	}
	k := &fleetKubelet{t: t, ns: ns}
	passChecks := func(kind string) {
		var pods corev1.PodList
		_ = k8sClient.List(context.Background(), &pods, client.InNamespace(ns), client.MatchingLabels{sbv1.LabelFleetStep: "diag", sbv1.LabelFleetKind: kind})
		for i := range pods.Items {
			p := &pods.Items[i]
			if p.Status.Phase == corev1.PodSucceeded {
				continue
			}
			p.Status.Phase = corev1.PodSucceeded
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "check", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
				ExitCode: 0, StartedAt: metav1.Now(), FinishedAt: metav1.Now()}}}}
			_ = k8sClient.Status().Update(context.Background(), p)
		}
	}
	k.runUntil(90*time.Second, "sgpair", "initial round finished", func(f *sbv1.SpiralBenchFleet) bool {
		passChecks("round")
		return roundFinished(1)(f)
	})
	n := getNode(t, "sp-a")
	n.Labels["nvidia.com/gpu-driver-upgrade-state"] = "upgrade-required"
	if err := k8sClient.Update(context.Background(), n); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "sp-a gated", func() (bool, string) {
		v, ok := taintValue(getNode(t, "sp-a"), "spiralbench.io/upgrade-gate")
		return ok && v == "Pending", v
	})
	n = getNode(t, "sp-a")
	n.Labels["nvidia.com/gpu-driver-upgrade-state"] = "upgrade-done"
	if err := k8sClient.Update(context.Background(), n); err != nil {
		t.Fatal(err)
	}
	eventually(t, 60*time.Second, "sp-a released", func() (bool, string) {
		k.step()
		passChecks("upgrade")
		v, ok := taintValue(getNode(t, "sp-a"), "spiralbench.io/upgrade-gate")
		return !ok, v
	})
	var upgradePair []string
	for _, sb := range fleetBenches(t, ns, "sgpair") {
		if sb.Labels[sbv1.LabelFleetKind] == "upgrade" {
			if upgradePair != nil || sb.Labels[sbv1.LabelFleetStep] != "pair" {
				t.Fatalf("upgrade bench %s of step %q: want one, of step pair", sb.Name, sb.Labels[sbv1.LabelFleetStep])
			}
			upgradePair = benchNodesOf(&sb)
		}
	}
	cur := &sbv1.SpiralBenchFleet{}
	if err := k8sClient.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "sgpair"}, cur); err != nil {
		t.Fatal(err)
	}
	if len(upgradePair) != 2 || upgradePair[0] != "sp-a" || rowOf(cur, upgradePair[1]).Verdict != sbv1.NodePassed {
		t.Fatalf("the upgrade's Pair step ran on %v, want sp-a with a node that passed (rows %+v)", upgradePair, rowsOf(cur))
	}
	var pods corev1.PodList
	_ = k8sClient.List(context.Background(), &pods, client.InNamespace(ns), client.MatchingLabels{sbv1.LabelFleetStep: "diag", sbv1.LabelFleetKind: "upgrade"})
	if len(pods.Items) != 1 || pods.Items[0].Spec.NodeName != "sp-a" {
		t.Fatalf("upgrade check pods %d, want one on sp-a", len(pods.Items))
	}
}
