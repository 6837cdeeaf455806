package benchctrl

import (
	"context"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/benchkind"
	"github.com/spiralbench/spiralbench/pkg/cellpod"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// heldLease is the lease of node as a bench held it, renewed at renewed for seconds.
func heldLease(node, holder string, renewed time.Time, seconds int32) *coordinationv1.Lease {
	at := metav1.NewMicroTime(renewed)
	return &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: leasePrefix + node, Namespace: leaseNS},
		Spec:       coordinationv1.LeaseSpec{HolderIdentity: &holder, AcquireTime: &at, RenewTime: &at, LeaseDurationSeconds: &seconds},
	}
}

func TestALeaseHoldsTheNodeForOneAttemptAndIsRenewedWithTheNext(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("hold", "lab").Transport(sbv1.TransportRawEthernet).UID("h1").Obj()
	sb.Spec.Run.Repeats = 2 // two attempts of one pod each
	h := newHarness(t, sb, sbtesting.ReadyNode("spark-a"))
	before := time.Now()
	got := h.reconcile()
	leases := h.leases()
	if len(leases) != 1 || got.Status.ActiveAttempt == nil {
		t.Fatalf("one lease and an attempt: %d, %+v", len(leases), got.Status.ActiveAttempt)
	}
	l := leases[0]
	want := int32(cellpod.AttemptDeadlineSeconds(got.Spec.Run, benchkind.RepeatsFrom(&got.Spec, 0))) + int32(DefaultDeadlineSlack/time.Second) + int32(leaseMargin/time.Second)
	if ptr.Deref(l.Spec.LeaseDurationSeconds, 0) != want || l.Spec.RenewTime == nil || l.Spec.RenewTime.Before(ptr.To(metav1.NewMicroTime(before.Truncate(time.Second)))) {
		t.Errorf("lease holds the attempt's deadline + slack + margin from now: duration %v (want %d), renewed %v", l.Spec.LeaseDurationSeconds, want, l.Spec.RenewTime)
	}

	// Age the hold, end the attempt: the next attempt's pod renews it.
	old := metav1.NewMicroTime(time.Now().Add(-time.Minute).Truncate(time.Second))
	l.Spec.RenewTime = &old
	if err := h.c.Update(context.Background(), &l); err != nil {
		t.Fatal(err)
	}
	lo := h.pods()[cellpod.RoleLoopback]
	h.setStatus(sbtesting.WrapPod(lo).Succeeded(sbtesting.MakeSummary("loopback").RXMbps(7000).TXMbps(7100).JSON()).Obj())
	h.reconcile() // judges the first attempt
	if a := h.reconcile().Status.ActiveAttempt; a == nil || a.Repeat != 1 {
		t.Fatalf("the second attempt runs: %+v", a)
	}
	if renewed := h.leases()[0].Spec.RenewTime; !renewed.After(old.Time) {
		t.Errorf("the second attempt renews the hold: %v", renewed)
	}
}

// A bench still Running, whose hold ran out (its pods cannot be created, or its manager is
// gone), loses the node to the next bench instead of keeping it past its deadline.
func TestAnExpiredHoldOfARunningBenchIsTakenOver(t *testing.T) {
	stuck := sbtesting.MakeSpiralBench("stuck", "lab").NodeName("spark-a").UID("s1").LeasedNodes("spark-a").Obj()
	stuck.Status.Phase = sbv1.PhaseRunning
	next := sbtesting.MakeSpiralBench("next", "lab").NodeName("spark-a").UID("n1").Obj()
	h := newHarness(t, next, sbtesting.ReadyNode("spark-a"), stuck, heldLease("spark-a", "lab/stuck/s1", time.Now().Add(-10*time.Minute), 120))
	got := h.reconcile()
	if got.Status.Phase != sbv1.PhaseRunning || len(h.pods()) != 1 {
		t.Fatalf("the next bench takes the node: phase %s, pods %v", got.Status.Phase, keys(h.pods()))
	}
	if holder := ptr.Deref(h.leases()[0].Spec.HolderIdentity, ""); holder != "lab/next/n1" {
		t.Errorf("lease holder %q", holder)
	}

	// Within its hold the same bench keeps the node.
	next2 := sbtesting.MakeSpiralBench("next2", "lab").NodeName("spark-a").UID("n2").Obj()
	h2 := newHarness(t, next2, sbtesting.ReadyNode("spark-a"), stuck, heldLease("spark-a", "lab/stuck/s1", time.Now().Add(-time.Minute), 120))
	if got := h2.reconcile(); got.Status.Phase != sbv1.PhaseQueued {
		t.Errorf("a live hold queues the next bench: %s", got.Status.Phase)
	}
}

// Renewal follows progress: a bench whose pods fail to be created does not renew its hold.
func TestFailingPodCreationsDoNotRenewTheHold(t *testing.T) {
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	sb := sbtesting.MakeSpiralBench("failing", "lab").NodeName("spark-a").UID("f1").LeasedNodes("spark-a").Obj()
	h := newHarness(t, sb, sbtesting.ReadyNode("spark-a"), heldLease("spark-a", "lab/failing/f1", old, 120))
	h.failPodCreates(apierrors.NewServiceUnavailable("etcd is slow"))
	for range 3 {
		if _, err := h.r.Reconcile(context.Background(), ctrl.Request{NamespacedName: h.sb}); err == nil {
			t.Fatal("the creation error is returned for a retry")
		}
	}
	if l := h.leases()[0]; !l.Spec.RenewTime.Time.Equal(old) {
		t.Errorf("renewed without progress: %v", l.Spec.RenewTime)
	}
}

// A bench whose hold expired and was taken while it created its pod gives the pod back and queues.
func TestAHoldLostWhileCreatingThePodGivesThePodBack(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("late", "lab").NodeName("spark-a").UID("l1").LeasedNodes("spark-a").Obj()
	other := sbtesting.MakeSpiralBench("other", "lab").NodeName("spark-a").UID("o1").Obj()
	other.Status.Phase = sbv1.PhaseRunning
	h := newHarness(t, sb, sbtesting.ReadyNode("spark-a"), other, heldLease("spark-a", "lab/late/l1", time.Now().Add(-time.Hour), 120))
	h.onPodCreate(func() { // the other bench takes the expired lease at that moment
		l := h.leases()[0]
		l.Spec.HolderIdentity = ptr.To("lab/other/o1")
		l.Spec.RenewTime = ptr.To(metav1.NewMicroTime(time.Now()))
		if err := h.c.Update(context.Background(), &l); err != nil {
			t.Fatal(err)
		}
	})
	got := h.reconcile()
	if got.Status.Phase != sbv1.PhaseQueued || got.Status.ActiveAttempt != nil || len(h.pods()) != 0 {
		t.Fatalf("queued without its pod: phase %s, attempt %+v, pods %v", got.Status.Phase, got.Status.ActiveAttempt, keys(h.pods()))
	}
	if holder := ptr.Deref(h.leases()[0].Spec.HolderIdentity, ""); holder != "lab/other/o1" {
		t.Errorf("the other bench keeps the node: %q", holder)
	}
}

// A release deletes the lease this manager wrote last without reading it first; a lease
// another bench took over since is read, and left to it.
func TestReleaseSkipsTheReadOfTheLeaseItWroteLast(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("rel", "lab").NodeName("spark-a").UID("r1").Obj()
	h := newHarness(t, sb, sbtesting.ReadyNode("spark-a"))
	h.r.leaseVersions = &leaseVersions{}
	got := h.reconcile()
	if len(h.leases()) != 1 || len(got.Status.Nodes) != 1 {
		t.Fatalf("the bench holds spark-a: %d leases, nodes %v", len(h.leases()), got.Status.Nodes)
	}
	reads := &countingReader{Reader: h.r.APIReader}
	h.r.APIReader = reads
	h.r.releaseNodes(context.Background(), got, got.Status.Nodes)
	if len(h.leases()) != 0 || reads.gets != 0 {
		t.Errorf("released without a read: %d leases left, %d reads", len(h.leases()), reads.gets)
	}

	sb2 := sbtesting.MakeSpiralBench("rel2", "lab").NodeName("spark-a").UID("r2").Obj()
	h2 := newHarness(t, sb2, sbtesting.ReadyNode("spark-a"))
	h2.r.leaseVersions = &leaseVersions{}
	got = h2.reconcile()
	l := h2.leases()[0]
	l.Spec.HolderIdentity = ptr.To("lab/other/o1") // its hold expired and another bench took it
	if err := h2.c.Update(context.Background(), &l); err != nil {
		t.Fatal(err)
	}
	reads = &countingReader{Reader: h2.r.APIReader}
	h2.r.APIReader = reads
	h2.r.releaseNodes(context.Background(), got, got.Status.Nodes)
	if left := h2.leases(); len(left) != 1 || ptr.Deref(left[0].Spec.HolderIdentity, "") != "lab/other/o1" || reads.gets != 1 {
		t.Errorf("the other bench keeps its lease (read once): %d leases, %d reads", len(left), reads.gets)
	}
}
