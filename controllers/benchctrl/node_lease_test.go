package benchctrl

import (
	"strings"
	"testing"

	"k8s.io/utils/ptr"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/cellpod"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

func TestCrossNodeLeasesOneNodePerSlotAndPinsEachRank(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("cross", "lab").CrossNode("spark-a", "spark-b").UID("c1").Obj()
	h := newHarness(t, sb, sbtesting.ReadyNode("spark-a"), sbtesting.ReadyNode("spark-b"))
	got := h.reconcile()
	if n := got.Status.Nodes; len(n) != 2 || n[0] != "spark-a" || n[1] != "spark-b" {
		t.Fatalf("server's node then client's: %v", n)
	}
	held := map[string]string{}
	for _, l := range h.leases() {
		held[l.Name] = ptr.Deref(l.Spec.HolderIdentity, "")
	}
	if len(held) != 2 || held["spiralbench-node-spark-a"] != "lab/cross/c1" || held["spiralbench-node-spark-b"] != "lab/cross/c1" {
		t.Errorf("a lease per node, held by the bench: %v", held)
	}
	srv := h.pods()[cellpod.RoleServer]
	h.setStatus(sbtesting.WrapPod(srv).Ready("10.0.0.5").Obj())
	h.reconcile()
	client := h.pods()[cellpod.RoleClient]
	if client == nil {
		t.Fatal("no client")
	}
	pin := client.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchFields[0].Values
	if len(pin) != 1 || pin[0] != "spark-b" {
		t.Errorf("the client runs on its own node, got %v", pin)
	}
}

func TestChosenNodesAreDistinctAndABusyNodeQueues(t *testing.T) {
	// Both sides select the same pool: the controller picks the first free Ready nodes by name.
	first := sbtesting.MakeSpiralBench("first", "lab").UID("f1").Obj()
	first.Spec.Topology.Mode = sbv1.TopologyCrossNode
	pool := &sbv1.Placement{NodeSelector: map[string]string{"pool": "spark"}}
	first.Spec.Topology.Server.Placement, first.Spec.Topology.Client.Placement = pool, pool
	n0, n1, n2 := sbtesting.ReadyNode("n0"), sbtesting.ReadyNode("n1"), sbtesting.ReadyNode("n2")
	n1.Labels, n2.Labels = pool.NodeSelector, pool.NodeSelector
	h := newHarness(t, first, n0, n1, n2)
	if n := h.reconcile().Status.Nodes; len(n) != 2 || n[0] != "n1" || n[1] != "n2" {
		t.Fatalf("two distinct nodes: %v", n)
	}

	second := sbtesting.MakeSpiralBench("second", "lab").NodeName("n2").UID("s1").Obj()
	if err := h.c.Create(t.Context(), second); err != nil {
		t.Fatal(err)
	}
	h.sb.Name = "second"
	got := h.reconcile()
	if got.Status.Phase != sbv1.PhaseQueued || len(got.Status.Nodes) != 0 || len(h.pods()) != 0 {
		t.Fatalf("a node held by a running bench queues the next one: phase %s nodes %v", got.Status.Phase, got.Status.Nodes)
	}
	for _, c := range got.Status.Conditions {
		if c.Type == sbv1.ConditionRunning && !strings.Contains(c.Message, "node n2 is in use by SpiralBench lab/first") {
			t.Errorf("Running says who holds the node: %q", c.Message)
		}
	}
}
