package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/attempts"
	"github.com/spiralbench/spiralbench/pkg/cellpod"
	"github.com/spiralbench/spiralbench/pkg/fleet"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// Only what the manager created decides a verdict. Each test has a namespace editor (the
// built-in edit role, impersonated through the real apiserver) or an admin pre-create what
// the manager will look for, under its name, with its labels and a controller owner reference.

// bindEditor makes user an editor of ns: what the built-in edit role holds once the
// aggregation controller (absent from envtest, where edit stays empty) has filled it: the
// bootstrap roles labelled aggregate-to-edit and aggregate-to-view, and spiralbench-edit.
func bindEditor(t *testing.T, ns, user string) {
	t.Helper()
	for _, role := range []string{"system:aggregate-to-edit", "system:aggregate-to-view"} {
		rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: user + "-" + strings.TrimPrefix(role, "system:"), Namespace: ns},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
			Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}}}
		if err := k8sClient.Create(context.Background(), rb); err != nil {
			t.Fatal(err)
		}
	}
	bind(t, ns, user, "spiralbench-edit") // waits until the authorizer has the grants
}

// ownerRef is the controller reference to obj: a user can write it as well as the manager can.
func ownerRef(kind string, obj metav1.Object) []metav1.OwnerReference {
	return []metav1.OwnerReference{{APIVersion: sbv1.GroupVersion.String(), Kind: kind, Name: obj.GetName(),
		UID: obj.GetUID(), Controller: ptr.To(true)}}
}

// mustStay fails unless the object is still there and not being deleted: foreign objects are
// never the manager's to delete.
func mustStay(t *testing.T, o client.Object) {
	t.Helper()
	if err := k8sClient.Get(context.Background(), client.ObjectKeyFromObject(o), o); err != nil {
		t.Fatalf("%s: %v", o.GetName(), err)
	}
	if o.GetDeletionTimestamp() != nil {
		t.Errorf("%s is being deleted: the manager deleted an object it did not create", o.GetName())
	}
}

func TestAnEditorsPodIsNeverARankOfABench(t *testing.T) {
	requireRBAC(t)
	ns := newNamespace(t)
	testNode(t, "prov-node-1")
	bindEditor(t, ns, "alice")
	t.Cleanup(func() { dumpEventsIfFailed(t, ns) })
	w := shortRun(sbtesting.MakeSpiralBench("fp", ns).Transport(sbv1.TransportTCP).Payloads(8000).Pairs(1), 1, 1).Suspend(true)
	sb := onTestNode(w.Obj(), "prov-node-1")
	if err := k8sClient.Create(context.Background(), sb); err != nil {
		t.Fatal(err)
	}
	forged := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "fp-c0-a0-server", Namespace: ns, OwnerReferences: ownerRef("SpiralBench", sb),
			Labels: map[string]string{"app.kubernetes.io/name": "spiralbench", "app.kubernetes.io/component": "cell", cellpod.LabelBench: "fp",
				cellpod.LabelCell: "0", cellpod.LabelRepeat: "0", cellpod.LabelAttempt: "0", cellpod.LabelRole: cellpod.RoleServer}},
		Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "dataplane",
			Image: "spiralbench/dataplane:test", Command: []string{"sh", "-c", "echo forged; sleep 300"}}}},
	}
	if err := clientAs(t, "alice").Create(context.Background(), forged); err != nil {
		t.Fatalf("alice, an editor, creates the rank pod: %v", err)
	}
	setSuspend(t, sb, false)
	k := &kubeletStandIn{t: t, ns: ns, bench: "fp"}
	done := k.runUntil(60*time.Second, sbv1.PhaseCompleted, sbv1.PhaseFailed)

	var rec sbv1.SpiralBenchAttemptResult
	if err := k8sClient.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: attempts.Name("fp", 0, 0)}, &rec); err != nil {
		t.Fatal(err)
	}
	want := "ForeignObject: Pod " + ns + "/fp-c0-a0-server was not created by SpiralBench"
	if !strings.Contains(rec.Message, want) || len(rec.RepeatResults) != 0 {
		t.Errorf("attempt 0: message %q, %d repeats; want %q and nothing measured", rec.Message, len(rec.RepeatResults), want)
	}
	err := k8sClient.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "fp-c0-a0-client"}, &corev1.Pod{})
	if !apierrors.IsNotFound(err) {
		t.Errorf("a client was started against alice's pod (get: %v)", err)
	}
	if c := done.Status.CellResults[0]; done.Status.Phase != sbv1.PhaseCompleted || c.State != sbv1.CellValid || c.FailedAttempts != 1 {
		t.Errorf("bench %s, cell %s with %d failed attempts; want the next attempt, under its own pods, measured", done.Status.Phase, c.State, c.FailedAttempts)
	}
	mustStay(t, forged)
	// Deleting the finished bench (as a fleet's next round does) runs its finalizer, which
	// reads the bench's pods from the cache: alice's pod with the bench's labels and owner
	// reference is not one of them.
	if err := k8sClient.Delete(context.Background(), done); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "the finished bench's finalizer done", func() (bool, string) {
		err := k8sClient.Get(context.Background(), client.ObjectKeyFromObject(done), &sbv1.SpiralBench{})
		return apierrors.IsNotFound(err), fmt.Sprintf("get: %v", err)
	})
	mustStay(t, forged)
}

func TestARecordSomeoneElseWroteIsNeverAnAttemptsResult(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	testNode(t, "prov-node-2")
	w := shortRun(sbtesting.MakeSpiralBench("fr", ns).Transport(sbv1.TransportTCP).Payloads(8000).Pairs(1), 1, 1).Suspend(true)
	sb := onTestNode(w.Obj(), "prov-node-2")
	if err := k8sClient.Create(context.Background(), sb); err != nil {
		t.Fatal(err)
	}
	forged := attempts.New(sb, 0, 0, []sbv1.RepeatResult{{Repeat: 0, State: sbv1.CellValid, RXMbps: 400000, TXMbps: 400000}}, "", true)
	forged.OwnerReferences = ownerRef("SpiralBench", sb)
	if err := k8sClient.Create(context.Background(), forged); err != nil {
		t.Fatal(err)
	}
	setSuspend(t, sb, false)
	k := &kubeletStandIn{t: t, ns: ns, bench: "fr"}
	done := k.runUntil(60*time.Second, sbv1.PhaseCompleted, sbv1.PhaseFailed)
	c := done.Status.CellResults[0]
	if c.RXMbps == nil || c.RXMbps.Mean >= 400000 {
		t.Fatalf("cell rx %+v: the forged 400 Gb/s record was read", c.RXMbps)
	}
	if c.FailedAttempts != 1 || !strings.Contains(c.Message, "ForeignObject: SpiralBenchAttemptResult "+ns+"/fr-c0-a0") {
		t.Errorf("cell: %d failed attempts, message %q; want attempt 0 failed for the foreign record", c.FailedAttempts, c.Message)
	}
	mustStay(t, forged)
}

// suspendedFleet is a one-node fleet created suspended by carol, a fleet editor.
func suspendedFleet(t *testing.T, ns, name, pool string, suite *sbv1.SuiteSpec) *sbv1.SpiralBenchFleet {
	t.Helper()
	var f *sbv1.SpiralBenchFleet
	if suite != nil {
		f = suiteFleet(name, ns, pool, suite)
	} else {
		f = sbtesting.MakeFleet(name, ns, pool).MinRxMbps(900).Verdicts(false).Obj()
	}
	f.Spec.Suspend = ptr.To(true)
	if err := clientAs(t, "carol").Create(context.Background(), f); err != nil {
		t.Fatalf("carol creates the fleet: %v", err)
	}
	return f
}

func resumeFleet(t *testing.T, f *sbv1.SpiralBenchFleet) {
	t.Helper()
	patch := client.MergeFrom(f.DeepCopy())
	f.Spec.Suspend = ptr.To(false)
	if err := clientAs(t, "carol").Patch(context.Background(), f, patch); err != nil {
		t.Fatal(err)
	}
}

func TestAnEditorsBenchNeverDecidesAFleetsNode(t *testing.T) {
	requireRBAC(t)
	ns := newNamespace(t)
	poolNode(t, "pv-a", "prov-bench")
	poolNode(t, "pv-b", "prov-bench")
	bindEditor(t, ns, "alice")
	bind(t, ns, "carol", "spiralbench-fleet-editor")
	f := suspendedFleet(t, ns, "pf", "prov-bench", nil)
	forged := &sbv1.SpiralBench{
		ObjectMeta: metav1.ObjectMeta{Name: fleet.BenchName("pf", 1, fleet.KindRound, "pv-a"), Namespace: ns, OwnerReferences: ownerRef("SpiralBenchFleet", f),
			Labels:      map[string]string{sbv1.LabelFleet: "pf", sbv1.LabelFleetKind: fleet.KindRound, sbv1.LabelFleetRound: "1"},
			Annotations: map[string]string{"spiralbench.io/fleet-subject": "pv-a"}},
		Spec: *f.Spec.Template.Spec.DeepCopy(),
	}
	forged.Spec.Topology.Mode = sbv1.TopologyLoopback
	forged.Spec.Topology.Placement = &sbv1.Placement{NodeName: "pv-a"}
	forged.Spec.Acceptance = &sbv1.AcceptanceSpec{Rules: []sbv1.AcceptanceRule{{Name: "impossible", Metric: sbv1.MetricRxMbps,
		Operator: sbv1.OperatorGreaterThanOrEqual, Value: 1e9, Cells: sbv1.CellSelector{Scope: sbv1.CellScopeEach}}}}
	if err := clientAs(t, "alice").Create(context.Background(), forged); err != nil {
		t.Fatalf("alice, an editor, creates the fleet's bench: %v", err)
	}
	// A bench with the fleet's labels and owner reference claiming pv-b, under a name of her
	// own: in no step's way, it must not make pv-b anything.
	claim := forged.DeepCopy()
	claim.Name, claim.ResourceVersion, claim.UID = "pf-claims-pv-b", "", ""
	claim.Annotations = map[string]string{"spiralbench.io/fleet-subject": "pv-b"}
	claim.Spec.Topology.Placement = &sbv1.Placement{NodeName: "pv-b"}
	if err := clientAs(t, "alice").Create(context.Background(), claim); err != nil {
		t.Fatal(err)
	}
	resumeFleet(t, f)
	k := &fleetKubelet{t: t, ns: ns}
	done := k.runUntil(60*time.Second, "pf", "round 1 finished", roundFinished(1))
	row := rowOf(done, "pv-a")
	if row.Verdict != sbv1.NodeInvalid || !strings.Contains(row.Reason, "ForeignObject: SpiralBench "+ns+"/"+forged.Name+" was not created by SpiralBench") {
		t.Errorf("row %+v: want Invalid for the foreign bench, never judged by it", row)
	}
	if done.Status.Counts.Failed != 0 || done.Status.Counts.Passed != 1 || rowOf(done, "pv-b").Verdict != sbv1.NodePassed {
		t.Errorf("counts %+v, pv-b %+v: alice's benches decided a node", done.Status.Counts, rowOf(done, "pv-b"))
	}
	mustStay(t, forged)
	mustStay(t, claim)
}

func TestAnEditorsPodIsNeverAFleetsCheck(t *testing.T) {
	requireRBAC(t)
	ns := newNamespace(t)
	poolNode(t, "pv-c", "prov-check")
	bindEditor(t, ns, "alice")
	bind(t, ns, "carol", "spiralbench-fleet-editor")
	f := suspendedFleet(t, ns, "pc", "prov-check", &sbv1.SuiteSpec{Steps: []sbv1.SuiteStep{
		{Name: "diag", Check: &sbv1.ExternalCheck{Image: "spiralbench/dataplane:test", Command: []string{"/bin/diag"}}},
	}})
	forged := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: fleet.BenchName("pc", 1, fleet.KindRound, "step:diag", "pv-c"), Namespace: ns,
			OwnerReferences: ownerRef("SpiralBenchFleet", f),
			Labels: map[string]string{sbv1.LabelFleet: "pc", sbv1.LabelFleetKind: fleet.KindRound, sbv1.LabelFleetRound: "1",
				sbv1.LabelFleetStep: "diag"},
			Annotations: map[string]string{"spiralbench.io/fleet-subject": "pv-c"}},
		Spec: corev1.PodSpec{NodeName: "pv-c", RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "check",
			Image: "spiralbench/dataplane:test", Command: []string{"sh", "-c", `echo '{"verdict":"Passed"}' > /dev/termination-log`}}}},
	}
	if err := clientAs(t, "alice").Create(context.Background(), forged); err != nil {
		t.Fatalf("alice, an editor, creates the fleet's check pod: %v", err)
	}
	// what its kubelet would report: it ended and says Passed
	forged.Status.Phase = corev1.PodSucceeded
	forged.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "check", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
		ExitCode: 0, Message: `{"verdict":"Passed"}`, StartedAt: metav1.Now(), FinishedAt: metav1.Now()}}}}
	if err := k8sClient.Status().Update(context.Background(), forged); err != nil {
		t.Fatal(err)
	}
	resumeFleet(t, f)
	k := &fleetKubelet{t: t, ns: ns}
	done := k.runUntil(60*time.Second, "pc", "round 1 finished", roundFinished(1))
	row := rowOf(done, "pv-c")
	if row.Verdict != sbv1.NodeInvalid || !strings.Contains(row.Reason, "ForeignObject: Pod "+ns+"/"+forged.Name) {
		t.Errorf("row %+v: want Invalid for the foreign check pod", row)
	}
	mustStay(t, forged)
}

func TestANodeResultSomeoneElseWroteIsNeverAFleetsRow(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	poolNode(t, "pv-n", "prov-result")
	f := sbtesting.MakeFleet("pn", ns, "prov-result").MinRxMbps(900).Verdicts(false).Obj()
	f.Spec.Suspend = ptr.To(true)
	if err := k8sClient.Create(context.Background(), f); err != nil {
		t.Fatal(err)
	}
	forged := &sbv1.SpiralBenchNodeResult{
		ObjectMeta: metav1.ObjectMeta{Name: "pn-1-pv-n-forged", Namespace: ns, OwnerReferences: ownerRef("SpiralBenchFleet", f),
			Labels: map[string]string{sbv1.LabelResultFleet: "pn", sbv1.LabelResultRound: "1", sbv1.LabelResultNode: "pv-n", sbv1.LabelResultVerdict: "Passed"}},
		Fleet: "pn", Round: 1, Result: sbv1.FleetNode{Name: "pv-n", Verdict: sbv1.NodePassed},
	}
	if err := k8sClient.Create(context.Background(), forged); err != nil {
		t.Fatal(err)
	}
	patch := client.MergeFrom(f.DeepCopy())
	f.Spec.Suspend = ptr.To(false)
	if err := k8sClient.Patch(context.Background(), f, patch); err != nil {
		t.Fatal(err)
	}
	k := &fleetKubelet{t: t, ns: ns, mbps: map[string]int64{"pv-n": 400}} // below the floor: the node fails
	done := k.runUntil(60*time.Second, "pn", "round 1 finished", roundFinished(1))
	var own []sbv1.SpiralBenchNodeResult
	for _, res := range listResults(t, ns, client.MatchingLabels{sbv1.LabelResultFleet: "pn"}) {
		if res.Name != forged.Name {
			own = append(own, res)
		}
	}
	if len(own) != 1 || own[0].Result.Verdict != sbv1.NodeFailed {
		t.Errorf("the fleet's own rows %+v: want one, Failed", own)
	}
	if done.Status.Counts.Passed != 0 || done.Status.Counts.Failed != 1 {
		t.Errorf("counts %+v: the forged Passed row was read", done.Status.Counts)
	}
	mustStay(t, forged)
}

// dumpEventsIfFailed logs the namespace's events when the test failed: what the manager said.
func dumpEventsIfFailed(t *testing.T, ns string) {
	if !t.Failed() {
		return
	}
	var list corev1.EventList
	_ = k8sClient.List(context.Background(), &list, client.InNamespace(ns))
	for _, e := range list.Items {
		t.Logf("event %s %s %s: %s", e.InvolvedObject.Name, e.Type, e.Reason, e.Message)
	}
}
