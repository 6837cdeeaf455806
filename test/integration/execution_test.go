package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/cellpod"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

func shortRun(w *sbtesting.SpiralBenchWrapper, repeats, retries int32) *sbtesting.SpiralBenchWrapper {
	w.Spec.Run = sbv1.RunSpec{Seconds: 1, WarmupSeconds: ptr.To[int32](0), Repeats: repeats, RetriesPerCell: ptr.To(retries)}
	return w
}

func podsOf(t *testing.T, ns, bench string) []corev1.Pod {
	t.Helper()
	var pods corev1.PodList
	if err := k8sClient.List(context.Background(), &pods, client.InNamespace(ns), client.MatchingLabels{cellpod.LabelBench: bench}); err != nil {
		t.Fatal(err)
	}
	var live []corev1.Pod
	for _, p := range pods.Items {
		if p.DeletionTimestamp == nil {
			live = append(live, p)
		}
	}
	return live
}

func leaseHolder(node string) (string, bool) {
	var lease coordinationv1.Lease
	if err := k8sClient.Get(context.Background(), client.ObjectKey{Namespace: "default", Name: "spiralbench-node-" + node}, &lease); err != nil {
		return "", false
	}
	return ptr.Deref(lease.Spec.HolderIdentity, ""), true
}

func TestSweepRunsCellByCellToCompletion(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	testNode(t, "exec-node-1")
	w := shortRun(sbtesting.MakeSpiralBench("sweep", ns).Transport(sbv1.TransportTCP).Payloads(8000).Pairs(1, 2), 2, 1).
		Rule(sbv1.AcceptanceRule{Name: "line-rate", Metric: sbv1.MetricRxMbps, Operator: sbv1.OperatorGreaterThanOrEqual, Value: 900,
			Cells: sbv1.CellSelector{Scope: sbv1.CellScopeEach}})
	sb := onTestNode(w.Obj(), "exec-node-1")
	if err := k8sClient.Create(context.Background(), sb); err != nil {
		t.Fatal(err)
	}
	k := &kubeletStandIn{t: t, ns: ns, bench: "sweep", rxMbps: func(cell, repeat int) int64 {
		return int64(1000*(cell+1) - 10 + 20*repeat) // repeats 990/1010 and 1990/2010
	}}
	sb = k.runUntil(60*time.Second, sbv1.PhaseCompleted)

	if k.clientBeforeAddress != 0 {
		t.Errorf("%d client pods were created before their server's container ran, without the rendezvous", k.clientBeforeAddress)
	}
	if sb.Status.Cells.Total != 2 || sb.Status.Cells.Succeeded != 2 || sb.Status.Progress != "2/2" || sb.Status.BestRxMbps != 2000 {
		t.Errorf("counts %+v progress %s best %d", sb.Status.Cells, sb.Status.Progress, sb.Status.BestRxMbps)
	}
	for i, want := range []int64{1000, 2000} {
		c := sb.Status.CellResults[i]
		// both repeats in one pod pair: one attempt
		if c.Index != int32(i) || c.State != sbv1.CellValid || c.Repeats != 2 || c.Attempts != 1 || len(c.RepeatResults) != 2 {
			t.Errorf("cell %d: %+v", i, c)
			continue
		}
		if c.RXMbps.Mean != want || c.RXMbps.StdDev != 14 || c.TXMbps.Mean != want || c.Drops != 4 || c.DropsKind != "tcp-nstat-retrans+inerrs" {
			t.Errorf("cell %d: rx %+v tx %+v drops %d %s", i, c.RXMbps, c.TXMbps, c.Drops, c.DropsKind)
		}
		if c.CPU == nil || c.CPU.TXMilliPercent != 90000 || c.CPU.RXMilliPercent != 80000 || c.StartTime == nil || c.CompletionTime == nil {
			t.Errorf("cell %d: cpu %+v times %v %v", i, c.CPU, c.StartTime, c.CompletionTime)
		}
	}
	if c := meta.FindStatusCondition(sb.Status.Conditions, sbv1.ConditionPassed); c == nil || c.Status != metav1.ConditionTrue || !strings.Contains(c.Message, "line-rate: 2 cells RxMbps >= 900") {
		t.Errorf("Passed: %+v", c)
	}
	if meta.FindStatusCondition(sb.Status.Conditions, sbv1.ConditionCompleted).Status != metav1.ConditionTrue || sb.Status.CompletionTime == nil {
		t.Error("Completed condition and completionTime must be set")
	}
	if sb.Status.NodesText != "exec-node-1" { // the NODES column; Loopback's two ranks share the node
		t.Errorf("status.nodesText %q, nodes %v", sb.Status.NodesText, sb.Status.Nodes)
	}
	if sb.Status.Environment == nil || sb.Status.Environment.Node != "exec-node-1" || sb.Status.Environment.Kernel != "6.11.0-test" {
		t.Errorf("environment %+v", sb.Status.Environment)
	}
	// A completed bench leaves its lease to the next bench on the node: free, its holder ended.
	if holder, held := leaseHolder("exec-node-1"); held && holder != ns+"/sweep/"+string(sb.UID) {
		t.Errorf("the node's lease is left by the completed bench, held by %q", holder)
	}
	eventually(t, 10*time.Second, "cell pods cleaned up", func() (bool, string) {
		n := len(podsOf(t, ns, "sweep"))
		return n == 0, strings.Repeat("pod ", n)
	})
}

func TestFailuresAreRetriedThenRecordedAndTheSweepGoesOn(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	testNode(t, "exec-node-2")
	w := shortRun(sbtesting.MakeSpiralBench("faults", ns).Transport(sbv1.TransportTCP).Payloads(1000, 2000, 4000, 8000).Pairs(1), 1, 1).
		Rule(sbv1.AcceptanceRule{Name: "every-cell", Metric: sbv1.MetricRxMbps, Operator: sbv1.OperatorGreaterThan, Value: 0,
			Cells: sbv1.CellSelector{Scope: sbv1.CellScopeEach}})
	if err := k8sClient.Create(context.Background(), onTestNode(w.Obj(), "exec-node-2")); err != nil {
		t.Fatal(err)
	}
	k := &kubeletStandIn{t: t, ns: ns, bench: "faults", fate: func(cell, attempt int, role string) *podFate {
		switch {
		case cell == 0 && attempt == 0 && role == cellpod.RoleClient:
			return &podFate{exitCode: 1, message: "spiral-dataplane: connect 10.244.0.7:5201: connection refused"}
		case cell == 1 && role == cellpod.RoleServer:
			return &podFate{exitCode: 2, message: "spiral-dataplane: cores.master: core 8 is not available to this process"}
		case cell == 2 && role == cellpod.RoleClient:
			return &podFate{exitCode: 0, message: "Segmentation fault"}
		case cell == 3 && attempt == 0 && role == cellpod.RoleServer:
			return &podFate{delete: true}
		}
		return nil
	}}
	sb := k.runUntil(60*time.Second, sbv1.PhaseCompleted)

	want := []struct {
		state    sbv1.CellState
		attempts int32
		msg      string
	}{
		{sbv1.CellValid, 2, "retrying: client exited with code 1: spiral-dataplane: connect"},
		{sbv1.CellFailed, 1, "failed after 1 attempt(s): server refused its input: spiral-dataplane: cores.master: core 8"},
		{sbv1.CellFailed, 2, "failed after 2 attempt(s): client: no parsable summary"},
		{sbv1.CellValid, 2, "retrying: the server pod was deleted before it finished"},
	}
	for i, w := range want {
		c := sb.Status.CellResults[i]
		if c.State != w.state || c.Attempts != w.attempts || !strings.Contains(c.Message, w.msg) {
			t.Errorf("cell %d: state %s attempts %d message %q; want %s %d %q", i, c.State, c.Attempts, c.Message, w.state, w.attempts, w.msg)
		}
	}
	if c := sb.Status.Cells; c.Succeeded != 2 || c.Failed != 2 || sb.Status.Progress != "4/4" || sb.Status.CellsSummary != "2/4 ok, 2 failed" {
		t.Errorf("counts %+v summary %q", c, sb.Status.CellsSummary)
	}
	passed := meta.FindStatusCondition(sb.Status.Conditions, sbv1.ConditionPassed)
	if passed == nil || passed.Status != metav1.ConditionFalse || passed.Reason != sbv1.ReasonCellsFailed ||
		!strings.HasPrefix(passed.Message, "2 of 4 cells failed: cell 1 (2000 B x 1 pair): failed after 1 attempt(s): server refused its input") ||
		!strings.Contains(passed.Message, "broken: every-cell: cell 1 failed") {
		t.Errorf("Passed must be False naming the failed cells: %+v", passed)
	}
}

func TestTwoBenchesNeverShareANode(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	testNode(t, "exec-node-3")
	for _, name := range []string{"first", "second"} {
		sb := onTestNode(shortRun(sbtesting.MakeSpiralBench(name, ns).Transport(sbv1.TransportUDP).Payloads(1000).Pairs(1), 1, 0).Obj(), "exec-node-3")
		if err := k8sClient.Create(context.Background(), sb); err != nil {
			t.Fatal(err)
		}
		if name == "first" {
			eventually(t, 10*time.Second, "first holds the node", func() (bool, string) {
				h, _ := leaseHolder("exec-node-3")
				return strings.HasPrefix(h, ns+"/first/"), h
			})
		}
	}
	second := &sbv1.SpiralBench{}
	eventually(t, 10*time.Second, "second queued behind first", func() (bool, string) {
		_ = k8sClient.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "second"}, second)
		c := meta.FindStatusCondition(second.Status.Conditions, sbv1.ConditionRunning)
		return second.Status.Phase == sbv1.PhaseQueued && c != nil && c.Reason == sbv1.ReasonNodeBusy &&
			strings.Contains(c.Message, "node exec-node-3 is in use by SpiralBench "+ns+"/first"), string(second.Status.Phase)
	})
	first := &kubeletStandIn{t: t, ns: ns, bench: "first"}
	eventually(t, 30*time.Second, "first to complete while second waits", func() (bool, string) {
		if n := len(podsOf(t, ns, "second")); n > 0 {
			t.Fatalf("second created %d pods while first held the node", n)
		}
		first.step()
		sb := &sbv1.SpiralBench{}
		_ = k8sClient.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "first"}, sb)
		return sb.Status.Phase == sbv1.PhaseCompleted, string(sb.Status.Phase)
	})
	done := (&kubeletStandIn{t: t, ns: ns, bench: "second"}).runUntil(30*time.Second, sbv1.PhaseCompleted)
	if done.Status.Cells.Succeeded != 1 {
		t.Errorf("second: %+v", done.Status.Cells)
	}
}

func TestDeadlineFailsACellWhosePodsNeverStart(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	testNode(t, "exec-node-4")
	w := shortRun(sbtesting.MakeSpiralBench("stuck", ns).Transport(sbv1.TransportTCP).Payloads(8000).Pairs(1), 1, 0)
	w.Spec.Run.CellDeadlineSeconds = ptr.To[int32](2)
	if err := k8sClient.Create(context.Background(), onTestNode(w.Obj(), "exec-node-4")); err != nil {
		t.Fatal(err)
	}
	k := &kubeletStandIn{t: t, ns: ns, bench: "stuck", fate: func(int, int, string) *podFate { return &podFate{hang: true} }}
	sb := k.runUntil(30*time.Second, sbv1.PhaseCompleted)
	c := sb.Status.CellResults[0]
	if c.State != sbv1.CellFailed || !strings.Contains(c.Message, "exceeded the cell deadline of 2s; server") {
		t.Errorf("cell: %s %q", c.State, c.Message)
	}
}

func TestSuspendStopsBetweenAttemptsAndResumes(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	testNode(t, "exec-node-5")
	sb := onTestNode(shortRun(sbtesting.MakeSpiralBench("pausable", ns).Transport(sbv1.TransportTCP).Payloads(1000, 2000, 4000).Pairs(1), 1, 0).Obj(), "exec-node-5")
	if err := k8sClient.Create(context.Background(), sb); err != nil {
		t.Fatal(err)
	}
	// Let cell 0 finish and cell 1 start, then suspend while cell 1's client has not run.
	k := &kubeletStandIn{t: t, ns: ns, bench: "pausable", fate: func(cell, _ int, role string) *podFate {
		if cell >= 1 && role == cellpod.RoleClient {
			return &podFate{hang: true}
		}
		return nil
	}}
	eventually(t, 30*time.Second, "cell 1 running", func() (bool, string) {
		k.step()
		cur := &sbv1.SpiralBench{}
		_ = k8sClient.Get(context.Background(), client.ObjectKeyFromObject(sb), cur)
		return cur.Status.ActiveAttempt != nil && cur.Status.ActiveAttempt.CellIndex == 1, cur.Status.Progress
	})
	setSuspend(t, sb, true)
	k.fate = nil // cell 1's attempt now finishes; no new one may start
	suspended := k.runUntil(30*time.Second, sbv1.PhaseSuspended)
	if suspended.Status.Progress != "2/3" {
		t.Errorf("the running attempt finishes before suspending: progress %s", suspended.Status.Progress)
	}
	time.Sleep(2 * time.Second)
	for _, p := range podsOf(t, ns, "pausable") {
		if p.Labels[cellpod.LabelCell] == "2" {
			t.Fatalf("suspended bench created pod %s", p.Name)
		}
	}
	if _, held := leaseHolder("exec-node-5"); held {
		t.Error("a suspended bench releases its node")
	}
	setSuspend(t, sb, false)
	done := k.runUntil(30*time.Second, sbv1.PhaseCompleted)
	if done.Status.Cells.Succeeded != 3 {
		t.Errorf("after resuming: %+v", done.Status.Cells)
	}
}

func setSuspend(t *testing.T, sb *sbv1.SpiralBench, v bool) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur := &sbv1.SpiralBench{}
		if err := k8sClient.Get(context.Background(), client.ObjectKeyFromObject(sb), cur); err != nil {
			return err
		}
		cur.Spec.Suspend = ptr.To(v)
		return k8sClient.Update(context.Background(), cur)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestDeletingARunningBenchRemovesItsPodsAndLease(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	testNode(t, "exec-node-6")
	sb := onTestNode(shortRun(sbtesting.MakeSpiralBench("doomed", ns).Transport(sbv1.TransportTCP).Payloads(8000).Pairs(1), 1, 0).Obj(), "exec-node-6")
	if err := k8sClient.Create(context.Background(), sb); err != nil {
		t.Fatal(err)
	}
	// the server pod, and on the pod network its client beside it (the rendezvous)
	eventually(t, 10*time.Second, "server pod", func() (bool, string) { return len(podsOf(t, ns, "doomed")) >= 1, "" })
	if err := k8sClient.Delete(context.Background(), sb); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "bench, pods and lease gone", func() (bool, string) {
		err := k8sClient.Get(context.Background(), client.ObjectKeyFromObject(sb), &sbv1.SpiralBench{})
		_, held := leaseHolder("exec-node-6")
		pods := len(podsOf(t, ns, "doomed"))
		return apierrors.IsNotFound(err) && pods == 0 && !held, fmt.Sprintf("bench get: %v, pods %d, lease held %v", err, pods, held)
	})
}

func TestUnreachableBucketKeepsResultsAndSaysWhy(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	testNode(t, "exec-node-7")
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s3", Namespace: ns, Labels: map[string]string{sbv1.LabelCredentials: "true"}},
		Data: map[string][]byte{"accessKeyID": []byte("AKIDEXAMPLE"), "secretAccessKey": []byte("wJalrXUtnFEMI-very-secret")}}
	if err := k8sClient.Create(context.Background(), secret); err != nil {
		t.Fatal(err)
	}
	sb := onTestNode(shortRun(sbtesting.MakeSpiralBench("nobucket", ns).Transport(sbv1.TransportTCP).Payloads(8000).Pairs(1), 1, 0).Obj(), "exec-node-7")
	sb.Spec.Results = &sbv1.ResultsSpec{Endpoint: "http://127.0.0.1:1", Bucket: "bench", Region: "us-east-1",
		CredentialsSecretRef: sbv1.SecretReference{Name: "s3"}}
	if err := k8sClient.Create(context.Background(), sb); err != nil {
		t.Fatal(err)
	}
	k := &kubeletStandIn{t: t, ns: ns, bench: "nobucket"}
	k.runUntil(30*time.Second, sbv1.PhaseCompleted)
	eventually(t, 15*time.Second, "ResultsUploaded=False", func() (bool, string) {
		cur := &sbv1.SpiralBench{}
		_ = k8sClient.Get(context.Background(), client.ObjectKeyFromObject(sb), cur)
		c := meta.FindStatusCondition(cur.Status.Conditions, sbv1.ConditionResultsUploaded)
		if c == nil {
			return false, "no condition"
		}
		if strings.Contains(c.Message, "very-secret") || strings.Contains(c.Message, "AKIDEXAMPLE") {
			t.Fatalf("credentials leaked into status: %q", c.Message)
		}
		return c.Status == metav1.ConditionFalse && c.Reason == sbv1.ReasonUploadFailed && strings.Contains(c.Message, "127.0.0.1:1") &&
			cur.Status.CellResults[0].State == sbv1.CellValid, c.Message
	})
}

func TestFinishedBenchIsDeletedAfterItsTTL(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	testNode(t, "exec-node-8")
	sb := onTestNode(shortRun(sbtesting.MakeSpiralBench("ephemeral", ns).Transport(sbv1.TransportTCP).Payloads(8000).Pairs(1), 1, 0).Obj(), "exec-node-8")
	sb.Spec.TTLSecondsAfterFinished = ptr.To[int32](5)
	if err := k8sClient.Create(context.Background(), sb); err != nil {
		t.Fatal(err)
	}
	(&kubeletStandIn{t: t, ns: ns, bench: "ephemeral"}).runUntil(30*time.Second, sbv1.PhaseCompleted)
	if err := k8sClient.Get(context.Background(), client.ObjectKeyFromObject(sb), &sbv1.SpiralBench{}); err != nil {
		t.Fatalf("a completed bench must live until its TTL: %v", err)
	}
	eventually(t, 15*time.Second, "deleted after ttlSecondsAfterFinished", func() (bool, string) {
		err := k8sClient.Get(context.Background(), client.ObjectKeyFromObject(sb), &sbv1.SpiralBench{})
		return apierrors.IsNotFound(err), fmt.Sprint(err)
	})
}
