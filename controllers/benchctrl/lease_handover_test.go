package benchctrl

import (
	"context"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/cellpod"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// leaseReader counts the reads of leases and benches that bypass the cache.
type leaseReader struct {
	client.Reader
	gets int
}

func (c *leaseReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	switch obj.(type) {
	case *coordinationv1.Lease, *sbv1.SpiralBench:
		c.gets++
	}
	return c.Reader.Get(ctx, key, obj, opts...)
}

// runToCompletion runs the harness's current one-cell loopback bench to its end.
func runToCompletion(h *harness) *sbv1.SpiralBench {
	h.t.Helper()
	h.reconcile()
	lo := h.pods()[cellpod.RoleLoopback]
	h.setStatus(sbtesting.WrapPod(lo).Succeeded(sbtesting.MakeSummary("loopback").RXMbps(7000).TXMbps(7000).JSON()).Obj())
	got := h.reconcile()
	if got.Status.Phase != sbv1.PhaseCompleted {
		h.t.Fatalf("%s: phase %s", got.Name, got.Status.Phase)
	}
	return got
}

// sparkBench is a raw Ethernet bench on node spark-a.
func sparkBench(name, uid string) *sbv1.SpiralBench {
	return sbtesting.MakeSpiralBench(name, "lab").Transport(sbv1.TransportRawEthernet).NodeName("spark-a").UID(uid).Obj()
}

// completedOnSparkA is a harness whose bench "first" (uid u1) has completed on spark-a, with a
// manager that remembers its lease writes.
func completedOnSparkA(t *testing.T) *harness {
	t.Helper()
	h := newHarness(t, sparkBench("first", "u1"), sbtesting.ReadyNode("spark-a"))
	h.r.leaseVersions = &leaseVersions{}
	runToCompletion(h)
	return h
}

// A completed bench leaves its lease in place, free because its holder ended; the next bench
// on the node takes it over with one write and without reading it (a fleet's next step). A
// restarted manager, which remembers nothing, reads the lease once and sees from its cache
// that the holder ended.
func TestTheNextBenchTakesOverTheLeaseACompletedBenchLeft(t *testing.T) {
	h := completedOnSparkA(t)
	if l := h.leases(); len(l) != 1 || ptr.Deref(l[0].Spec.HolderIdentity, "") != "lab/first/u1" {
		t.Fatalf("the completed bench leaves its lease: %+v", l)
	}

	takeOver := func(name, uid string, wantReads int) {
		t.Helper()
		if err := h.c.Create(context.Background(), sparkBench(name, uid)); err != nil {
			t.Fatal(err)
		}
		reads := &leaseReader{Reader: h.c}
		h.r.APIReader = reads
		got := h.reconcileBench(name)
		l := h.leases()
		if got.Status.Phase == sbv1.PhaseQueued || len(l) != 1 || ptr.Deref(l[0].Spec.HolderIdentity, "") != "lab/"+name+"/"+uid {
			t.Fatalf("%s takes the node over: phase %s, leases %+v", name, got.Status.Phase, l)
		}
		if reads.gets != wantReads {
			t.Errorf("%s: %d reads of leases and benches from the apiserver, want %d", name, reads.gets, wantReads)
		}
		if l[0].Labels[labelHolderUID] != uid || l[0].Spec.RenewTime == nil || l[0].Spec.LeaseDurationSeconds == nil {
			t.Errorf("%s: the lease names and times its new holder: %+v", name, l[0])
		}
		runToCompletion(h)
	}
	takeOver("second", "u2", 0)
	if n := ptr.Deref(h.leases()[0].Spec.LeaseTransitions, 0); n != 1 {
		t.Errorf("one transition counted, got %d", n)
	}
	h.r.leaseVersions = &leaseVersions{} // a restarted manager
	takeOver("third", "u3", 1)
}

// A lease someone changed after the bench left it is read, not overwritten: the remembered
// version no longer matches, and a holder still running keeps the node.
func TestALeftLeaseChangedSinceIsReadAndItsRunningHolderKeepsIt(t *testing.T) {
	h := newHarness(t, sbtesting.MakeSpiralBench("first", "lab").Transport(sbv1.TransportRawEthernet).NodeName("spark-a").UID("u1").Obj(), sbtesting.ReadyNode("spark-a"))
	h.r.leaseVersions = &leaseVersions{}
	runToCompletion(h)
	other := sbtesting.MakeSpiralBench("other", "lab").NodeName("spark-a").UID("o1").Obj()
	other.Status.Phase = sbv1.PhaseRunning
	if err := h.c.Create(context.Background(), other); err != nil {
		t.Fatal(err)
	}
	l := h.leases()[0]
	l.Spec.HolderIdentity = ptr.To("lab/other/o1")
	if err := h.c.Update(context.Background(), &l); err != nil {
		t.Fatal(err)
	}
	if err := h.c.Create(context.Background(), sbtesting.MakeSpiralBench("next", "lab").NodeName("spark-a").UID("n1").Obj()); err != nil {
		t.Fatal(err)
	}
	got := h.reconcileBench("next")
	if got.Status.Phase != sbv1.PhaseQueued || ptr.Deref(h.leases()[0].Spec.HolderIdentity, "") != "lab/other/o1" {
		t.Errorf("the running holder keeps the node: phase %s, holder %q", got.Status.Phase, ptr.Deref(h.leases()[0].Spec.HolderIdentity, ""))
	}
}

// apiLister counts the lists of leases and pods that bypass the cache.
type apiLister struct {
	client.Reader
	leases, pods int
}

func (c *apiLister) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	switch list.(type) {
	case *coordinationv1.LeaseList:
		c.leases++
	case *corev1.PodList:
		c.pods++
	}
	return c.Reader.List(ctx, list, opts...)
}

// A fleet deletes its last round's benches as the next starts. A finished bench's deletion
// reads its pods from the cache (it makes no more); the last holder of the node's lease
// deletes it as it last wrote it, and a bench whose lease the next one took over, or whose
// lease is gone, releases nothing, all without a list; a restarted manager, which remembers
// nothing, lists the bench's leases.
func TestADeletedFinishedBenchReleasesItsLeaseWithoutAList(t *testing.T) {
	h := completedOnSparkA(t)
	for _, b := range []*sbv1.SpiralBench{sparkBench("second", "u2"), sparkBench("third", "u3"), sparkBench("fourth", "u4")} {
		if err := h.c.Create(context.Background(), b); err != nil {
			t.Fatal(err)
		}
		h.sb.Name = b.Name
		runToCompletion(h)
	}
	remove := func(name string, wantLeaseLists int) {
		t.Helper()
		reads := &apiLister{Reader: h.c}
		h.r.APIReader = reads
		sb := &sbv1.SpiralBench{}
		if err := h.c.Get(context.Background(), client.ObjectKey{Namespace: "lab", Name: name}, sb); err != nil {
			t.Fatal(err)
		}
		if err := h.c.Delete(context.Background(), sb); err != nil {
			t.Fatal(err)
		}
		h.sb.Name = name
		if _, err := h.r.Reconcile(context.Background(), ctrl.Request{NamespacedName: h.sb}); err != nil {
			t.Fatal(err)
		}
		if err := h.c.Get(context.Background(), h.sb, sb); !apierrors.IsNotFound(err) {
			t.Fatalf("%s is still there after its finalizer: %v", name, err)
		}
		if reads.leases != wantLeaseLists || reads.pods != 0 {
			t.Errorf("deleting %s listed leases %d times (want %d) and pods %d times (want 0) from the apiserver", name, reads.leases, wantLeaseLists, reads.pods)
		}
	}
	remove("first", 0)
	if l := h.leases(); len(l) != 1 || ptr.Deref(l[0].Spec.HolderIdentity, "") != "lab/fourth/u4" {
		t.Fatalf("a bench that handed its lease on releases nothing: %+v", l)
	}
	remove("fourth", 0)
	if l := h.leases(); len(l) != 0 {
		t.Fatalf("the last holder's lease goes with it: %+v", l)
	}
	remove("second", 0)
	h.r.leaseVersions = &leaseVersions{} // a restarted manager
	remove("third", 1)
}
