package benchctrl

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/ptr"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/cellpod"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// The repeats of a socket cell run in one server/client pod pair (spiral-dataplane --repeats);
// each pod's termination message holds a summary line per finished repeat.

func rx(mbps int64) *sbtesting.SummaryWrapper { return sbtesting.MakeSummary("server").RXMbps(mbps) }
func tx(mbps int64) *sbtesting.SummaryWrapper { return sbtesting.MakeSummary("client").TXMbps(mbps) }

// startPair runs the reconciler until the attempt's server is Ready and its client exists.
func startPair(t *testing.T, h *harness) (server, client *corev1.Pod) {
	t.Helper()
	h.reconcile()
	h.setStatus(sbtesting.WrapPod(h.pods()[cellpod.RoleServer]).Ready("10.0.0.5").Obj())
	h.reconcile()
	pods := h.pods()
	if pods[cellpod.RoleServer] == nil || pods[cellpod.RoleClient] == nil {
		t.Fatalf("want the server and its client, got %v", keys(pods))
	}
	return pods[cellpod.RoleServer], pods[cellpod.RoleClient]
}

// restartController replaces the reconciler with a new one on the same API objects: nothing
// but status and pods carries over, as after a crash of the operator.
func restartController(h *harness) {
	h.r = &Reconciler{Client: h.c, APIReader: h.c, Recorder: events.NewFakeRecorder(100),
		DefaultImage: h.r.DefaultImage, LeaseNamespace: leaseNS, Provenance: h.r.Provenance}
}

func TestRepeatsOfASocketCellRunInOnePodPair(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("grouped", "lab").Repeats(3).UID("g1").Obj()
	sb.Spec.Run.WarmupSeconds = ptr.To[int32](2)
	h := newHarness(t, sb, sbtesting.ReadyNode("spark-a"))
	srv, cli := startPair(t, h)
	for _, p := range []*corev1.Pod{srv, cli} {
		args := p.Spec.Containers[0].Args
		if argValue(args, "--repeats") != "3" || argValue(args, "--label") != "bench=lab/grouped" {
			t.Errorf("%s runs the 3 repeats: %v", p.Name, args)
		}
		// 3 x (2 s warm-up + 5 s) + the one start-up allowance
		if d := ptr.Deref(p.Spec.ActiveDeadlineSeconds, 0); d != 3*7+cellpod.StartupAllowanceSeconds {
			t.Errorf("%s deadline covers the 3 repeats: %d", p.Name, d)
		}
	}
	if a := h.bench().Status.ActiveAttempt; a == nil || a.Repeat != 0 || a.Repeats != 3 || a.Attempt != 0 {
		t.Fatalf("one attempt of repeats 0-2: %+v", a)
	}

	restartController(h) // mid-attempt: the new controller finds the pods by name and the repeats in status
	srv.CreationTimestamp = metav1.NewTime(time.Now().Add(-time.Minute).Truncate(time.Second))
	if err := h.c.Update(t.Context(), srv); err != nil {
		t.Fatal(err)
	}
	h.setStatus(sbtesting.WrapPod(cli).Succeeded(sbtesting.Lines(tx(1010), tx(1110), tx(1210))).Obj())
	h.setStatus(sbtesting.WrapPod(srv).Succeeded(sbtesting.Lines(rx(1000), rx(1100), rx(1200))).Obj())
	got := h.reconcile()
	res := cell0(got)
	if res.State != sbv1.CellValid || res.Attempts != 1 || res.FailedAttempts != 0 || res.Repeats != 3 || len(res.RepeatResults) != 3 {
		t.Fatalf("one attempt measured the 3 repeats: %+v", res)
	}
	for i, r := range res.RepeatResults {
		if r.Repeat != int32(i) || r.Attempt != 0 || r.RXMbps != int64(1000+100*i) || r.TXMbps != int64(1010+100*i) || r.State != sbv1.CellValid {
			t.Errorf("repeat %d from line %d of each pod: %+v", i, i, r)
		}
	}
	if first := res.RepeatResults[0]; first.WallMilliseconds == 0 || res.RepeatResults[1].WallMilliseconds != 0 {
		t.Errorf("the attempt's wall time is on its first repeat only: %d, %d", first.WallMilliseconds, res.RepeatResults[1].WallMilliseconds)
	}
	if res.RXMbps == nil || res.RXMbps.Mean != 1100 {
		t.Errorf("the cell aggregates the three repeats: %+v", res.RXMbps)
	}
	if h.reconcile(); h.bench().Status.Phase != sbv1.PhaseCompleted {
		t.Errorf("no further attempt: phase %s, pods %v", h.bench().Status.Phase, keys(h.pods()))
	}
}

func TestPodPairLostAfterTwoRepeatsKeepsThemAndRerunsOnlyTheThird(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("lost", "lab").Repeats(3).UID("g2").Obj()
	sb.Spec.Run.RetriesPerCell = ptr.To[int32](1)
	h := newHarness(t, sb, sbtesting.ReadyNode("spark-a"))
	srv, cli := startPair(t, h)

	// The client is killed (OOM) in its third repeat; the server's control connection breaks
	// and it writes the third repeat's Failed line after the two it finished.
	h.setStatus(sbtesting.WrapPod(cli).Exited(137, sbtesting.Lines(tx(1010), tx(1110))).Obj())
	if got := h.reconcile(); got.Status.ActiveAttempt == nil {
		t.Fatal("the attempt waits for the server's summary once the client failed")
	}
	failedLine := sbtesting.MakeSummary("server")
	failedLine.State, failedLine.Reason = "Failed", "control connection closed by the peer"
	h.setStatus(sbtesting.WrapPod(srv).Exited(1, sbtesting.Lines(rx(1000), rx(1100), failedLine)).Obj())
	got := h.reconcile()
	res := cell0(got)
	if got.Status.ActiveAttempt != nil || res.State != sbv1.CellRunning || res.Attempts != 1 || res.FailedAttempts != 1 ||
		len(res.RepeatResults) != 2 || !strings.Contains(res.Message, "retrying: server failed: control connection closed") {
		t.Fatalf("the two finished repeats are kept and the attempt counts as failed: %+v", res)
	}

	restartController(h) // between the attempts: status alone says what is left
	got = h.reconcile()
	a := got.Status.ActiveAttempt
	srv2 := h.pods()[cellpod.RoleServer]
	if a == nil || a.Repeat != 2 || a.Repeats != 1 || a.Attempt != 1 || srv2 == nil || srv2.Name == srv.Name {
		t.Fatalf("attempt 1 runs only repeat 2 in new pods: %+v, %v", a, keys(h.pods()))
	}
	if args := srv2.Spec.Containers[0].Args; argValue(args, "--repeats") != "" || !strings.Contains(strings.Join(args, " "), "repeat=2") {
		t.Errorf("one repeat, labelled repeat 2: %v", args)
	}
	srv2, cli2 := startPair(t, h)
	h.setStatus(sbtesting.WrapPod(cli2).Succeeded(tx(1210).JSON()).Obj())
	h.setStatus(sbtesting.WrapPod(srv2).Succeeded(rx(1200).JSON()).Obj())
	res = cell0(h.reconcile())
	if res.State != sbv1.CellValid || res.Attempts != 2 || res.FailedAttempts != 1 || len(res.RepeatResults) != 3 {
		t.Fatalf("three repeats over two attempts, one failed: %+v", res)
	}
	for i, want := range []struct{ repeat, attempt int32 }{{0, 0}, {1, 0}, {2, 1}} {
		if r := res.RepeatResults[i]; r.Repeat != want.repeat || r.Attempt != want.attempt || r.RXMbps != int64(1000+100*i) {
			t.Errorf("result %d: want repeat %d of attempt %d, got %+v", i, want.repeat, want.attempt, r)
		}
	}
}

func TestGroupedAttemptFailuresAreBoundedByRetries(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("bounded", "lab").Repeats(3).UID("g3").Obj()
	sb.Spec.Run.RetriesPerCell = ptr.To[int32](0)
	h := newHarness(t, sb, sbtesting.ReadyNode("spark-a"))
	srv, cli := startPair(t, h)
	h.setStatus(sbtesting.WrapPod(cli).Exited(1, sbtesting.Lines(tx(1010))).Obj())
	h.setStatus(sbtesting.WrapPod(srv).Exited(137, sbtesting.Lines(rx(1000))).Obj())
	res := cell0(h.reconcile())
	if res.State != sbv1.CellFailed || res.Attempts != 1 || res.FailedAttempts != 1 || len(res.RepeatResults) != 1 ||
		!strings.Contains(res.Message, "failed after 1 attempt(s): server ended after 1 of 3 repeats: exit code 137 (Completed)") {
		t.Fatalf("no retries left: the cell fails, keeping the repeat it measured: %+v", res)
	}
	if res.RXMbps == nil || res.RXMbps.Mean != 1000 {
		t.Errorf("the kept repeat is aggregated beside the failure: %+v", res.RXMbps)
	}
}

func TestRawRepeatsStayOnePerAttempt(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("raw3", "lab").Transport(sbv1.TransportRawEthernet).Repeats(3).UID("g4").Obj()
	h := newHarness(t, sb, sbtesting.ReadyNode("spark-a"))
	got := h.reconcile()
	lo := h.pods()[cellpod.RoleLoopback]
	if a := got.Status.ActiveAttempt; a == nil || a.Repeats != 1 || lo == nil || argValue(lo.Spec.Containers[0].Args, "--repeats") != "" {
		t.Fatalf("DPDK starts once per process: one repeat per attempt, got %+v", a)
	}
}

func TestGroupedAttemptDoesNotWaitForAPeerThatNeverRan(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("pending", "lab").Repeats(3).UID("g5").Obj()
	sb.Spec.Run.RetriesPerCell = ptr.To[int32](1)
	h := newHarness(t, sb, sbtesting.ReadyNode("spark-a"))
	srv, _ := startPair(t, h) // the client pod exists but never started (Pending)
	h.setStatus(sbtesting.WrapPod(srv).Exited(1, sbtesting.Lines(rx(1000))).Obj())
	got := h.reconcile()
	if res := cell0(got); got.Status.ActiveAttempt != nil || res.FailedAttempts != 1 || len(res.RepeatResults) != 0 {
		t.Fatalf("no summary can come from a pod that never ran: judged at once, %+v", res)
	}
}
