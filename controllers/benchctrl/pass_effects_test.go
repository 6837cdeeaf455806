package benchctrl

import (
	"context"
	"strings"
	"testing"

	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/controllers/benchstate"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// staleCache answers Gets of the bench with an old copy, as the manager's cache does for a
// moment after our own status write.
type staleCache struct {
	client.Client
	bench *sbv1.SpiralBench
}

func (s staleCache) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if sb, ok := obj.(*sbv1.SpiralBench); ok && s.bench != nil && key.Name == s.bench.Name {
		s.bench.DeepCopyInto(sb)
		return nil
	}
	return s.Client.Get(ctx, key, obj, opts...)
}

func drain(r *events.FakeRecorder) []string {
	var out []string
	for {
		select {
		case e := <-r.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

// A step retaken on a stale read (the pod exists, the status patch conflicts) reports nothing:
// each cell start is one CellStarted event.
func TestAStepOnAStaleReadIsNotReportedTwice(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("stale", "lab").NodeName("spark-a").UID("s1").Obj()
	h := newHarness(t, sb, sbtesting.ReadyNode("spark-a"))
	before := h.bench() // as the cache may still show it after the first step
	before.Finalizers = []string{benchstate.Finalizer}
	rec := h.r.Recorder.(*events.FakeRecorder)
	if got := h.reconcile(); got.Status.ActiveAttempt == nil {
		t.Fatal("cell 0 started")
	}
	h.r.Client = staleCache{Client: h.c, bench: before}
	if _, err := h.r.Reconcile(t.Context(), ctrl.Request{NamespacedName: h.sb}); err == nil {
		t.Fatal("a step on a stale read must fail its optimistic lock")
	}
	var started []string
	for _, e := range drain(rec) {
		if strings.Contains(e, "CellStarted") {
			started = append(started, e)
		}
	}
	if len(started) != 1 {
		t.Errorf("cell 0 started once, reported %d times: %q", len(started), started)
	}
}

// With the manager's memory of its own writes, a reconcile that reads the version its last
// status write replaced does nothing and looks again soon: no request, no event, no error.
func TestAReadOurLastWriteSupersededIsNotActedOn(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("stale2", "lab").NodeName("spark-a").UID("s2").Obj()
	sb.Finalizers = []string{benchstate.Finalizer} // so that the first step's one write is its status
	h := newHarness(t, sb, sbtesting.ReadyNode("spark-a"))
	h.r.staleReads = &staleReads{}
	before := h.bench()
	rec := h.r.Recorder.(*events.FakeRecorder)
	if got := h.reconcile(); got.Status.ActiveAttempt == nil {
		t.Fatal("cell 0 started")
	}
	drain(rec)
	h.r.Client = staleCache{Client: h.c, bench: before}
	res, err := h.r.Reconcile(t.Context(), ctrl.Request{NamespacedName: h.sb})
	if err != nil || res.RequeueAfter != staleReadRetry || len(drain(rec)) != 0 {
		t.Fatalf("a superseded read waits for the cache: %+v, %v", res, err)
	}
	h.r.Client = h.c // the cache caught up
	if _, err := h.r.Reconcile(t.Context(), ctrl.Request{NamespacedName: h.sb}); err != nil {
		t.Fatalf("the current read is acted on: %v", err)
	}
}
