package integration

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/fleet"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// factsKubelet ends the fleet's facts pods as their container would: the capture env[node] in
// a data plane summary on the termination message. It counts the pods it ended per node and the
// most it saw alive on one node at once.
type factsKubelet struct {
	t       *testing.T
	ns      string
	env     map[string]string
	ended   map[string]int
	maxLive int
}

func (k *factsKubelet) step() {
	var pods corev1.PodList
	if err := k8sClient.List(context.Background(), &pods, client.InNamespace(k.ns), client.MatchingLabels{sbv1.LabelFleetKind: fleet.KindFacts}); err != nil {
		k.t.Fatal(err)
	}
	live := map[string]int{}
	for i := range pods.Items {
		p := &pods.Items[i]
		if p.DeletionTimestamp != nil || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		if live[p.Spec.NodeName]++; live[p.Spec.NodeName] > k.maxLive {
			k.maxLive = live[p.Spec.NodeName]
		}
		p.Status.Phase = corev1.PodSucceeded
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: fleet.FactsContainer, State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
			Message: `{"v":1,"state":"Valid","env":` + k.env[p.Spec.NodeName] + `}`, StartedAt: metav1.Now(), FinishedAt: metav1.Now()}}}}
		if err := k8sClient.Status().Update(context.Background(), p); err == nil {
			k.ended[p.Spec.NodeName]++
		}
	}
}

// factsFleet is a fleet of one round (no schedule) with fact checks every interval seconds.
func factsFleet(t *testing.T, ns, name, pool string, nodes ...string) *sbv1.SpiralBenchFleet {
	t.Helper()
	for _, n := range nodes {
		node := poolNode(t, n, pool)
		node.Status.Allocatable = corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("8")}
		node.Status.Capacity = node.Status.Allocatable
		if err := k8sClient.Status().Update(context.Background(), node); err != nil {
			t.Fatal(err)
		}
	}
	f := sbtesting.MakeFleet(name, ns, pool).MinRxMbps(500).Verdicts(false).Obj()
	f.Spec.FactChecks = &sbv1.FactChecksSpec{IntervalSeconds: 2}
	return f
}

// A GPU link trains down after a round that passed: the next facts pod on its node (a 2 s
// interval) fails the node with PCIeDowntrained and a "between rounds" note, without a round;
// a node whose facts did not change stays Passed; each node has at most one facts pod alive.
func TestFactChecksFailANodeBetweenRounds(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	healthy := hostEnv(8, 5, 16, 18, 100000)
	f := factsFleet(t, ns, "fc", "facts", "fc-good", "fc-down")
	if err := k8sClient.Create(context.Background(), f); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"fc-good": healthy, "fc-down": healthy}
	k := &fleetKubelet{t: t, ns: ns, mbps: map[string]int64{}, env: env}
	done := k.runUntil(60*time.Second, "fc", "round finished", roundFinished(1))
	if rowOf(done, "fc-down").Verdict != sbv1.NodePassed || rowOf(done, "fc-good").Verdict != sbv1.NodePassed {
		t.Fatalf("round 1: %+v", rowsOf(done))
	}
	facts := &factsKubelet{t: t, ns: ns, env: map[string]string{"fc-good": healthy, "fc-down": hostEnv(8, 3, 8, 18, 100000)}, ended: map[string]int{}}
	changed := time.Now()
	now := k.runUntil(30*time.Second, "fc", "fc-down failed between rounds", func(f *sbv1.SpiralBenchFleet) bool {
		facts.step()
		return rowOf(f, "fc-down").Verdict == sbv1.NodeFailed && facts.ended["fc-good"] >= 2
	})
	if took := time.Since(changed); took > 15*time.Second {
		t.Errorf("failed %s after the change; the interval is 2 s", took)
	}
	down := rowOf(now, "fc-down")
	if !strings.Contains(strings.Join(down.Reasons, ","), "PCIeDowntrained") ||
		!strings.Contains(down.Reason, "between rounds, seen ") || !strings.Contains(down.Reason, "GPU 0000:1b:00.0 Gen3 x8 (max Gen5 x16)") {
		t.Errorf("fc-down: %v %q", down.Reasons, down.Reason)
	}
	if now.Status.Round != 1 || now.Status.Counts.Failed != 1 || now.Status.Reasons["PCIeDowntrained"] != 1 {
		t.Errorf("round %d counts %+v reasons %v: want round 1 with fc-down failed", now.Status.Round, now.Status.Counts, now.Status.Reasons)
	}
	if g := rowOf(now, "fc-good"); g.Verdict != sbv1.NodePassed || len(g.Reasons) != 0 {
		t.Errorf("fc-good: %s %v %q", g.Verdict, g.Reasons, g.Reason)
	}
	if facts.maxLive > 1 {
		t.Errorf("%d facts pods alive on one node at once", facts.maxLive)
	}
	// Ended pods a newer one replaced are deleted: a node keeps at most its last two.
	var pods corev1.PodList
	if err := k8sClient.List(context.Background(), &pods, client.InNamespace(ns), client.MatchingLabels{sbv1.LabelFleetKind: fleet.KindFacts}); err != nil {
		t.Fatal(err)
	}
	perNode := map[string]int{}
	for _, p := range pods.Items {
		if p.DeletionTimestamp == nil {
			perNode[p.Spec.NodeName]++
		}
	}
	if perNode["fc-good"] > 2 || facts.ended["fc-good"] < 2 {
		t.Errorf("fc-good: %d facts pods kept after %d checks", perNode["fc-good"], facts.ended["fc-good"])
	}
}

// A namespace editor's pod with a facts pod's labels, owner reference and name pattern, ended
// with a downtrained capture (as its kubelet would report it), is never read as the node's
// facts: it lacks the manager's mark. It is the node's newest facts pod for the seconds before
// the fleet's first check (its create and end wake the fleet); the node stays Passed throughout
// and after the fleet's own checks, and the pod is left alone.
func TestAnEditorsPodIsNeverAFleetsFacts(t *testing.T) {
	requireRBAC(t)
	ns := newNamespace(t)
	bindEditor(t, ns, "alice")
	bind(t, ns, "carol", "spiralbench-fleet-editor")
	f := factsFleet(t, ns, "pff", "prov-facts", "pv-f")
	f.Spec.FactChecks.IntervalSeconds = 3
	f.Spec.Suspend = ptr.To(true)
	if err := clientAs(t, "carol").Create(context.Background(), f); err != nil {
		t.Fatalf("carol creates the fleet: %v", err)
	}
	resumeFleet(t, f)
	healthy := hostEnv(8, 5, 16, 18, 100000)
	k := &fleetKubelet{t: t, ns: ns, mbps: map[string]int64{}, env: map[string]string{"pv-f": healthy}}
	k.runUntil(60*time.Second, "pff", "round finished", roundFinished(1))
	forged := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: fleet.BenchName("pff", 1, fleet.KindFacts, "pv-f", "1"), Namespace: ns,
			OwnerReferences: ownerRef("SpiralBenchFleet", f),
			Labels:          map[string]string{sbv1.LabelFleet: "pff", sbv1.LabelFleetKind: fleet.KindFacts, sbv1.LabelFleetRound: "1"},
			Annotations:     map[string]string{"spiralbench.io/fleet-subject": "pv-f"}},
		Spec: corev1.PodSpec{NodeName: "pv-f", RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: fleet.FactsContainer,
			Image: "spiralbench/dataplane:test", Command: []string{"spiral-dataplane"}}}},
	}
	if err := clientAs(t, "alice").Create(context.Background(), forged); err != nil {
		t.Fatalf("alice, an editor, creates a facts pod: %v", err)
	}
	forged.Status.Phase = corev1.PodSucceeded
	forged.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: fleet.FactsContainer, State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
		Message: `{"v":1,"state":"Valid","env":` + hostEnv(8, 3, 8, 18, 100000) + `}`, StartedAt: metav1.Now(), FinishedAt: metav1.Now()}}}}
	if err := k8sClient.Status().Update(context.Background(), forged); err != nil {
		t.Fatal(err)
	}
	facts := &factsKubelet{t: t, ns: ns, env: map[string]string{"pv-f": healthy}, ended: map[string]int{}}
	var decided []string
	k.runUntil(30*time.Second, "pff", "two checks of pv-f", func(f *sbv1.SpiralBenchFleet) bool {
		facts.step()
		if r := rowOf(f, "pv-f"); r.Verdict != sbv1.NodePassed || len(r.Reasons) != 0 {
			decided = append(decided, string(r.Verdict)+" "+r.Reason)
		}
		return facts.ended["pv-f"] >= 2
	})
	if len(decided) > 0 {
		t.Errorf("pv-f: %v: alice's pod decided it", decided)
	}
	mustStay(t, forged)
}

// BringRoundForward starts the next scheduled round early: a fleet without a schedule has
// none, and the apiserver says so.
func TestFactChecksBringRoundForwardNeedsASchedule(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	f := sbtesting.MakeFleet("fcs", ns, "none").MinRxMbps(500).Obj()
	f.Spec.FactChecks = &sbv1.FactChecksSpec{IntervalSeconds: 60, OnChange: sbv1.FactChangeBringRoundForward}
	err := k8sClient.Create(context.Background(), f)
	if err == nil || !strings.Contains(err.Error(), "set spec.schedule, or onChange FailNode") {
		t.Fatalf("created without a schedule: %v", err)
	}
	f.Spec.Schedule = "0 3 * * 0"
	if err := k8sClient.Create(context.Background(), f); err != nil {
		t.Fatal(err)
	}
}

// BringRoundForward: a link trains down between weekly rounds; the next round starts at once
// and benches that node though minIntervalSeconds would skip it (its bench then finds the
// fault), while the unchanged node is skipped as usual.
func TestFactChecksBringTheRoundForward(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	healthy, down := hostEnv(8, 5, 16, 18, 100000), hostEnv(8, 3, 8, 18, 100000)
	f := factsFleet(t, ns, "fb", "facts-fwd", "fb-good", "fb-down")
	f.Spec.Schedule, f.Spec.MinIntervalSeconds = "0 3 * * 0", 86400
	f.Spec.FactChecks.OnChange = sbv1.FactChangeBringRoundForward
	if err := k8sClient.Create(context.Background(), f); err != nil {
		t.Fatal(err)
	}
	requestRound(t, ns, "fb", "first")
	env := map[string]string{"fb-good": healthy, "fb-down": healthy}
	k := &fleetKubelet{t: t, ns: ns, mbps: map[string]int64{}, env: env}
	k.runUntil(60*time.Second, "fb", "round 1 finished", roundFinished(1))
	env["fb-down"] = down // the host, for its facts pod and its next bench alike
	facts := &factsKubelet{t: t, ns: ns, env: env, ended: map[string]int{}}
	done := k.runUntil(60*time.Second, "fb", "round 2 finished", func(f *sbv1.SpiralBenchFleet) bool {
		facts.step()
		return roundFinished(2)(f)
	})
	if r := rowOf(done, "fb-down"); r.Verdict != sbv1.NodeFailed || !strings.Contains(strings.Join(r.Reasons, ","), "PCIeDowntrained") {
		t.Errorf("fb-down in round 2: %s %v %q, want benched and Failed with PCIeDowntrained", r.Verdict, r.Reasons, r.Reason)
	}
	if r := rowOf(done, "fb-good"); r.Verdict != sbv1.NodeSkipped {
		t.Errorf("fb-good in round 2: %s %q, want Skipped (minIntervalSeconds)", r.Verdict, r.Reason)
	}
}
