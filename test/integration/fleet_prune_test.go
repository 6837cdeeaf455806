package integration

import (
	"context"
	"sort"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/fleet"
)

// checkSuite is a suite of one TCP step and one external check.
func checkSuite(name, ns, pool string) *sbv1.SpiralBenchFleet {
	return suiteFleet(name, ns, pool, &sbv1.SuiteSpec{Steps: []sbv1.SuiteStep{
		tcpStep("tcp", 0, sbv1.StepContinue),
		{Name: "diag", Check: &sbv1.ExternalCheck{Image: "spiralbench/dataplane:test", Command: []string{"/bin/diag"}}, OnFailure: sbv1.StepContinue},
	}})
}

// passChecks ends every running check pod of the namespace with a Passed verdict, as the
// check's container would.
func passChecks(t *testing.T, ns string) {
	t.Helper()
	var pods corev1.PodList
	if err := k8sClient.List(context.Background(), &pods, client.InNamespace(ns), client.HasLabels{sbv1.LabelFleetStep}); err != nil {
		t.Fatal(err)
	}
	for i := range pods.Items {
		p := &pods.Items[i]
		if p.Labels[sbv1.LabelFleetStep] != "diag" || p.Status.Phase == corev1.PodSucceeded || p.DeletionTimestamp != nil {
			continue
		}
		p.Status.Phase = corev1.PodSucceeded
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "check", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
			ExitCode: 0, Message: `{"verdict":"Passed"}`, StartedAt: metav1.Now(), FinishedAt: metav1.Now()}}}}
		if err := k8sClient.Status().Update(context.Background(), p); err != nil {
			t.Logf("end check pod %s: %v", p.Name, err)
		}
	}
}

// checkPodsBy lists the fleet's check pods by their round label (an upgrade's: its gate id).
func checkPodsBy(t *testing.T, ns, kind string) map[string]int {
	t.Helper()
	var pods corev1.PodList
	if err := k8sClient.List(context.Background(), &pods, client.InNamespace(ns), client.MatchingLabels{sbv1.LabelFleetKind: kind}); err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, p := range pods.Items {
		if p.Labels[sbv1.LabelFleetStep] == "diag" {
			out[p.Labels[sbv1.LabelFleetRound]]++
		}
	}
	return out
}

// A round's check pods go when the next round starts, as its benches do.
func TestFleetDeletesARoundsCheckPodsAtTheNextRound(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	poolNode(t, "pc-a", "prunechecks")
	if err := k8sClient.Create(context.Background(), checkSuite("prunechecks", ns, "prunechecks")); err != nil {
		t.Fatal(err)
	}
	k := &fleetKubelet{t: t, ns: ns}
	run := func(round int32) {
		eventually(t, 60*time.Second, "round finished", func() (bool, string) {
			k.step()
			passChecks(t, ns)
			f := &sbv1.SpiralBenchFleet{}
			if err := k8sClient.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "prunechecks"}, f); err != nil {
				return false, err.Error()
			}
			return roundFinished(round)(f), f.Status.Progress
		})
	}
	run(1)
	if got := checkPodsBy(t, ns, "round"); got["1"] != 1 {
		t.Fatalf("round 1's check pod: %v", got)
	}
	requestRound(t, ns, "prunechecks", "again")
	run(2)
	if got := checkPodsBy(t, ns, "round"); got["1"] != 0 || got["2"] != 1 {
		t.Errorf("check pods by round %v: round 1's must be gone, round 2's kept", got)
	}
}

// A node keeps the benches and check pods of its last fleet.UpgradeRunsKept driver upgrades;
// an older upgrade's go when a later gate ends.
func TestFleetKeepsTheLastUpgradesOfANode(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	poolNode(t, "pu-a", "pruneup")
	f := checkSuite("pruneup", ns, "pruneup")
	f.Spec.Verdicts = nil
	f.Spec.UpgradeGate = &sbv1.UpgradeGateSpec{Drivers: []sbv1.UpgradeDriver{sbv1.UpgradeDriverGPU}}
	if err := k8sClient.Create(context.Background(), f); err != nil {
		t.Fatal(err)
	}
	k := &fleetKubelet{t: t, ns: ns}
	eventually(t, 60*time.Second, "round 1 finished", func() (bool, string) {
		k.step()
		passChecks(t, ns)
		cur := &sbv1.SpiralBenchFleet{}
		_ = k8sClient.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "pruneup"}, cur)
		return roundFinished(1)(cur), cur.Status.Progress
	})
	setState := func(state string) { setUpgradeState(t, "pu-a", state) }
	waitTaint := func(want string) { k.waitGateTaint(60*time.Second, "pu-a", want, func() { passChecks(t, ns) }) }
	upgradeBenches := func() map[string]int {
		out := map[string]int{}
		for _, sb := range fleetBenches(t, ns, "pruneup") {
			if sb.Labels[sbv1.LabelFleetKind] == fleet.KindUpgrade {
				out[sb.Labels[sbv1.LabelFleetRound]]++
			}
		}
		return out
	}
	var gates []string
	for i := 0; i <= fleet.UpgradeRunsKept; i++ {
		setState("upgrade-required")
		waitTaint("Pending")
		gates = append(gates, getNode(t, "pu-a").Annotations["spiralbench.io/upgrade-gate-id"])
		setState("upgrade-done")
		waitTaint("")
	}
	sort.Strings(gates)
	if len(gates) != fleet.UpgradeRunsKept+1 || gates[0] == "" {
		t.Fatalf("gate ids %v", gates)
	}
	eventually(t, 30*time.Second, "the oldest upgrade's objects deleted", func() (bool, string) {
		benches, checks := upgradeBenches(), checkPodsBy(t, ns, fleet.KindUpgrade)
		return benches[gates[0]] == 0 && checks[gates[0]] == 0, ""
	})
	benches, checks := upgradeBenches(), checkPodsBy(t, ns, fleet.KindUpgrade)
	for _, id := range gates[1:] {
		if benches[id] != 1 || checks[id] != 1 {
			t.Errorf("upgrade %s: %d benches and %d check pods, want 1 and 1 (benches %v, checks %v)", id, benches[id], checks[id], benches, checks)
		}
	}
}
