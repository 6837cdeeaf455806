package benchctrl

import (
	"context"
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/cellpod"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// A bench whose last attempt ended with a pod still running (its peer failed) completes, and
// gives its node back, only once that pod has left the node: the next bench on the node (a
// fleet's next step) must not start beside a server that is still stopping.
func TestTheNodeIsGivenBackOnlyOnceTheBenchsPodsHaveLeftIt(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("gone", "lab").UID("pg1").Obj()
	h := newHarness(t, sb, sbtesting.ReadyNode("spark-a"))
	srv, cli := startPair(t, h)
	// The kubelet has not confirmed the server's end yet: a finalizer stands in for it (the fake
	// client keeps an object with a finalizer, marked for deletion, as the apiserver does).
	srv.Finalizers = []string{"test.spiralbench.io/kubelet"}
	if err := h.c.Update(context.Background(), srv); err != nil {
		t.Fatal(err)
	}
	h.setStatus(sbtesting.WrapPod(cli).Exited(1, "").Obj())
	h.reconcile() // judges the attempt: the client failed, the server runs
	for range 2 {
		got := h.reconcile() // deletes the server, which stays while it stops
		if got.Status.Phase == sbv1.PhaseCompleted || h.nodeFree("spark-a") {
			t.Fatalf("completed with a pod still on the node: phase %s, node free %v", got.Status.Phase, h.nodeFree("spark-a"))
		}
	}
	server := h.pods()[cellpod.RoleServer]
	if server == nil || server.DeletionTimestamp == nil {
		t.Fatalf("the server is being deleted: %+v", server)
	}
	server.Finalizers = nil // the kubelet confirms: the pod is gone
	if err := h.c.Update(context.Background(), server); err != nil {
		t.Fatal(err)
	}
	if got := h.reconcile(); got.Status.Phase != sbv1.PhaseCompleted || !h.nodeFree("spark-a") {
		t.Errorf("completes and gives the node back once the pod is gone: phase %s, node free %v", got.Status.Phase, h.nodeFree("spark-a"))
	}
}
