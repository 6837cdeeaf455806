package benchctrl

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/cellpod"
	"github.com/spiralbench/spiralbench/pkg/explain"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// The last attempt's end and the bench's completion are one step: its record is written, its
// ended pods deleted, its node given back and the verdict set in a single status write.
func TestTheLastAttemptsEndCompletesTheBenchInTheSameStep(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("one", "lab").Transport(sbv1.TransportRawEthernet).UID("ae1").Obj()
	h := newHarness(t, sb, sbtesting.ReadyNode("spark-a"))
	h.reconcile()
	lo := h.pods()[cellpod.RoleLoopback]
	h.setStatus(sbtesting.WrapPod(lo).Succeeded(sbtesting.MakeSummary("loopback").RXMbps(7000).TXMbps(7000).JSON()).Obj())
	got := h.reconcile()
	if got.Status.Phase != sbv1.PhaseCompleted || len(h.pods()) != 0 || !h.nodeFree("spark-a") {
		t.Fatalf("one step ends the attempt and the bench: phase %s, pods %v, node free %v", got.Status.Phase, keys(h.pods()), h.nodeFree("spark-a"))
	}
	if res := cell0(got); len(res.RepeatResults) != 1 || res.RepeatResults[0].RXMbps != 7000 {
		t.Errorf("the attempt's repeat is kept: %+v", res)
	}
	// The finished cell says what bounded it, as sbctl explain does (no environment here).
	if res := cell0(got); res.BoundBy == "" || res.BoundBy != explain.Cell(got, &res).Short() {
		t.Errorf("boundBy %q, explain says %q", res.BoundBy, explain.Cell(got, &res).Short())
	}
}

// A start retaken after its status write was lost finds its pod already there, maybe ended,
// with the pod's events spent on a reconcile that did not know of the attempt: the bench looks
// again at once instead of sleeping until the attempt's deadline.
func TestARetakenStartLooksAtItsExistingPodAtOnce(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("retaken", "lab").Transport(sbv1.TransportRawEthernet).UID("ae2").Obj()
	h := newHarness(t, sb, sbtesting.ReadyNode("spark-a"))
	h.reconcile() // benchstate.Finalizer, then the start
	first := h.bench()
	if first.Status.ActiveAttempt == nil {
		t.Fatalf("the first step starts an attempt: %+v", first.Status)
	}
	lost := first.DeepCopy() // the start's status write, as if it had timed out
	lost.Status = sbv1.SpiralBenchStatus{}
	if err := h.c.Status().Update(context.Background(), lost); err != nil {
		t.Fatal(err)
	}
	lo := h.pods()[cellpod.RoleLoopback]
	h.setStatus(sbtesting.WrapPod(lo).Succeeded(sbtesting.MakeSummary("loopback").RXMbps(7000).TXMbps(7000).JSON()).Obj())

	res, err := h.r.Reconcile(context.Background(), ctrl.Request{NamespacedName: h.sb})
	if err != nil {
		t.Fatal(err)
	}
	if h.bench().Status.ActiveAttempt == nil || res.RequeueAfter > time.Second {
		t.Fatalf("the retaken start is recorded and looked at again at once, not at the deadline: requeue after %s", res.RequeueAfter)
	}
	if got := h.reconcile(); got.Status.Phase != sbv1.PhaseCompleted || len(cell0(got).RepeatResults) != 1 {
		t.Errorf("the pod that ended meanwhile completes the bench: phase %s, %+v", got.Status.Phase, cell0(got))
	}
}

// podReads counts the pod reads that go past the cache to the apiserver.
type podReads struct {
	client.Reader
	n int
}

func (p *podReads) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if _, ok := obj.(*corev1.Pod); ok {
		p.n++
	}
	return p.Reader.Get(ctx, key, obj, opts...)
}

// hidePod is a cache that has not seen one pod yet.
type hidePod struct {
	client.Client
	name string
}

func (h hidePod) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if _, ok := obj.(*corev1.Pod); ok && key.Name == h.name {
		return apierrors.NewNotFound(corev1.Resource("pods"), key.Name)
	}
	return h.Client.Get(ctx, key, obj, opts...)
}

// While rank 0 starts, a peer not created yet is the cache's word (it is only ever created,
// which is harmless if it exists); failing the attempt for a peer that never ran takes the
// apiserver's.
func TestAPeersAbsenceIsReadFromTheApiserverOnlyToFailTheAttempt(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("peers", "lab").UID("ae3").Obj()
	h := newHarness(t, sb, sbtesting.ReadyNode("spark-a"))
	reads := &podReads{Reader: h.c}
	h.r.APIReader = reads
	h.reconcile() // the server
	h.reconcile() // the server is not running yet: its client waits
	if reads.n != 0 {
		t.Errorf("a peer not started yet is not read from the apiserver: %d reads", reads.n)
	}
	srv, cli := startPair(t, h)
	h.setStatus(sbtesting.WrapPod(cli).Succeeded(sbtesting.MakeSummary("client").TXMbps(900).JSON()).Obj())
	h.setStatus(sbtesting.WrapPod(srv).Succeeded(sbtesting.MakeSummary("server").RXMbps(900).JSON()).Obj())
	h.r.Client = hidePod{Client: h.c, name: cli.Name}
	got := h.reconcile()
	if c := cell0(got); len(c.RepeatResults) != 1 || c.RepeatResults[0].RXMbps != 900 {
		t.Errorf("a client the cache lacks but the apiserver has is judged, not failed as never started: %+v", c)
	}
}
