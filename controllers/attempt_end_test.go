package controllers

import (
	"context"
	"testing"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/cellpod"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// The last attempt's end and the bench's completion are one step: its record is written, its
// ended pods deleted, its node given back and the verdict set in a single status write.
func TestTheLastAttemptsEndCompletesTheBenchInTheSameStep(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("one", "lab").Transport(sbv1.TransportRawEthernet).UID("ae1").Obj()
	h := newHarness(t, sb, readyNode("spark-a"))
	h.reconcile()
	lo := h.pods()[cellpod.RoleLoopback]
	h.setStatus(sbtesting.WrapPod(lo).Succeeded(sbtesting.MakeSummary("loopback").RXMbps(7000).TXMbps(7000).JSON()).Obj())
	got := h.reconcile()
	if got.Status.Phase != sbv1.PhaseCompleted || len(h.pods()) != 0 || len(h.leases()) != 0 {
		t.Fatalf("one step ends the attempt and the bench: phase %s, pods %v, leases %d", got.Status.Phase, keys(h.pods()), len(h.leases()))
	}
	if res := cell0(got); len(res.RepeatResults) != 1 || res.RepeatResults[0].RXMbps != 7000 {
		t.Errorf("the attempt's repeat is kept: %+v", res)
	}
}

// A start retaken after its status write was lost finds its pod already there, maybe ended,
// with the pod's events spent on a reconcile that did not know of the attempt: the bench looks
// again at once instead of sleeping until the attempt's deadline.
func TestARetakenStartLooksAtItsExistingPodAtOnce(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("retaken", "lab").Transport(sbv1.TransportRawEthernet).UID("ae2").Obj()
	h := newHarness(t, sb, readyNode("spark-a"))
	h.reconcile() // finalizer, then the start
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
