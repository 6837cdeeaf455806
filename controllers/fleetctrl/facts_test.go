package fleetctrl

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/fleet"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// Between rounds each Passed node gets one facts pod per interval: none before the interval
// since the round (or its last pod) passed, none beside a running one, the same name when a
// step repeats (so a lagging cache cannot make two), none while a round runs; an ended pod a
// newer one replaced is deleted.
func TestLaunchFactsKeepsToTheIntervalAndOnePodANode(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	ended := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "lab", Name: "old", CreationTimestamp: metav1.NewTime(now.Add(-70 * time.Second))},
		Status: corev1.PodStatus{Phase: corev1.PodSucceeded}}
	c := fake.NewClientBuilder().WithScheme(sbtesting.Scheme(t)).WithObjects(ended).Build()
	r := &Reconciler{Client: c, APIReader: c, Recorder: events.NewFakeRecorder(10), DefaultImage: "spiralbench/dataplane:test",
		Now: func() time.Time { return now }}
	f := &sbv1.SpiralBenchFleet{ObjectMeta: metav1.ObjectMeta{Namespace: "lab", Name: "f", UID: "u"},
		Spec:   sbv1.SpiralBenchFleetSpec{FactChecks: &sbv1.FactChecksSpec{IntervalSeconds: 60}},
		Status: sbv1.SpiralBenchFleetStatus{Round: 3, RoundCompletionTime: &metav1.Time{Time: now.Add(-90 * time.Second)}}}
	pod := func(name string, ago time.Duration, phase corev1.PodPhase) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(now.Add(-ago))}, Status: corev1.PodStatus{Phase: phase}}
	}
	view := func() *fleetView {
		v := &fleetView{f: f, rows: map[string]*sbv1.FleetNode{}, pool: map[string]*corev1.Node{}, busyNodes: map[string]bool{}, claimed: map[string]bool{}}
		for _, n := range []string{"due", "recent", "running", "failed", "fresh"} {
			v.addRow(&sbv1.FleetNode{Name: n, Verdict: sbv1.NodePassed})
			v.pool[n] = sbtesting.ReadyNode(n)
		}
		v.rows["failed"].Verdict = sbv1.NodeFailed
		return v
	}
	pods := factPods{
		"due":     {pod("due-2", 61*time.Second, corev1.PodSucceeded), ended},
		"recent":  {pod("recent-1", 30*time.Second, corev1.PodSucceeded)},
		"running": {pod("running-1", 5*time.Minute, corev1.PodRunning)},
	}
	v := view()
	v.claim("running")
	wait := r.launchFacts(context.Background(), v, pods, false)
	names := map[string]string{}
	for _, o := range v.toCreate {
		names[o.(*corev1.Pod).Spec.NodeName] = o.GetName()
	}
	if len(names) != 2 || names["due"] == "" || names["fresh"] == "" {
		t.Fatalf("created %v, want due (61 s since its last pod) and fresh (90 s since the round)", names)
	}
	if wait != 30*time.Second {
		t.Errorf("wait %s, want 30s (recent's next check)", wait)
	}
	if err := c.Get(context.Background(), client.ObjectKeyFromObject(ended), &corev1.Pod{}); err == nil {
		t.Error("the ended pod a newer one replaced is still there")
	}
	p := v.toCreate[0].(*corev1.Pod)
	if p.Labels[sbv1.LabelFleetKind] != fleet.KindFacts || p.Labels[sbv1.LabelFleetRound] != "3" || len(p.Spec.Containers[0].Resources.Limits) != 1 {
		t.Errorf("pod %+v", p.ObjectMeta)
	}
	again := view()
	again.claim("running")
	r.launchFacts(context.Background(), again, pods, false)
	for _, o := range again.toCreate {
		if names[o.(*corev1.Pod).Spec.NodeName] != o.GetName() {
			t.Errorf("a repeated step names %s's pod %s, first %s", o.(*corev1.Pod).Spec.NodeName, o.GetName(), names[o.(*corev1.Pod).Spec.NodeName])
		}
	}
	if during := view(); r.launchFacts(context.Background(), during, pods, true) != 0 || len(during.toCreate) != 0 {
		t.Error("a facts pod created while a round runs")
	}
}

// A fact that changed fails a Passed row with its codes (each once, after those it had) and
// the between-rounds note.
func TestFailBetweenRoundsKeepsCodesOnce(t *testing.T) {
	row := &sbv1.FleetNode{Name: "n", Verdict: sbv1.NodePassed, Reasons: []string{"Degrading"}}
	failBetweenRounds(row, []fleet.Reason{{Code: fleet.GPUMissing, Detail: "7/8"}, {Code: fleet.GPUMissing, Detail: "GPU a gone"}},
		"between rounds, seen 2026-11-29T12:00:00Z: 7/8; GPU a gone")
	if row.Verdict != sbv1.NodeFailed || len(row.Reasons) != 2 || row.Reasons[1] != "GPUMissing" || row.Reason == "" {
		t.Errorf("%+v", row)
	}
}
