package benchctrl

import (
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// reconcileBench runs one Reconcile of the named bench and returns it as stored.
func (h *harness) reconcileBench(name string) *sbv1.SpiralBench {
	h.t.Helper()
	h.sb.Name = name
	return h.reconcile()
}

// finish marks a bench Completed, as its last cell would: its lease counts as free.
func (h *harness) finish(name string) {
	h.t.Helper()
	sb := h.reconcileBench(name)
	sb.Status.Phase = sbv1.PhaseCompleted
	if err := h.c.Status().Update(h.t.Context(), sb); err != nil {
		h.t.Fatal(err)
	}
}

// Benches waiting for one node start in creation order, whatever order they look in: each
// newer one stays Queued and names the older one the node is next for.
func TestWaitingBenchesTakeTheNodeInCreationOrder(t *testing.T) {
	for _, tc := range []struct {
		name  string
		place func(*sbtesting.SpiralBenchWrapper) *sbtesting.SpiralBenchWrapper
	}{
		{"nodeName", func(w *sbtesting.SpiralBenchWrapper) *sbtesting.SpiralBenchWrapper { return w.NodeName("spark-a") }},
		{"any node", func(w *sbtesting.SpiralBenchWrapper) *sbtesting.SpiralBenchWrapper { return w }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t0 := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
			bench := func(name string, created time.Duration) *sbv1.SpiralBench {
				sb := tc.place(sbtesting.MakeSpiralBench(name, "lab")).UID(name).Obj()
				sb.CreationTimestamp = metav1.NewTime(t0.Add(created))
				return sb
			}
			h := newHarness(t, bench("holder", 0), sbtesting.ReadyNode("spark-a"))
			if got := h.reconcile(); got.Status.Phase != sbv1.PhaseRunning {
				t.Fatalf("the holder runs: %s", got.Status.Phase)
			}
			// Created oldest first; names sort the other way, so only creation order can decide.
			for i, name := range []string{"zulu", "mike", "alpha"} {
				if err := h.c.Create(t.Context(), bench(name, time.Duration(i+1)*time.Second)); err != nil {
					t.Fatal(err)
				}
			}
			var started []string
			for round, next := range []string{"holder", "zulu", "mike"} {
				h.finish(next)
				for _, name := range []string{"alpha", "mike", "zulu"} { // newest looks first
					sb := h.reconcileBench(name)
					if sb.Status.Phase == sbv1.PhaseRunning && !slices.Contains(started, name) {
						started = append(started, name)
					}
					if c := meta.FindStatusCondition(sb.Status.Conditions, sbv1.ConditionRunning); round == 0 && name == "alpha" &&
						(sb.Status.Phase != sbv1.PhaseQueued || c.Reason != sbv1.ReasonNodeBusy || c.Message != "node spark-a is next for SpiralBench lab/zulu, created earlier and waiting for it") {
						t.Errorf("alpha looks first at the free node and leaves it to zulu: %s %+v", sb.Status.Phase, c)
					}
				}
			}
			if strings.Join(started, ",") != "zulu,mike,alpha" {
				t.Errorf("started %v, want creation order zulu, mike, alpha", started)
			}
		})
	}
}

// A bench that already holds its node is never held back by older waiting ones, and a
// waiting bench that cannot use the node (pinned elsewhere) holds back nobody.
func TestOrderOnlyAmongBenchesThatCouldUseTheNode(t *testing.T) {
	old := sbtesting.MakeSpiralBench("old", "lab").NodeName("spark-b").UID("o").Obj()
	old.CreationTimestamp = metav1.NewTime(time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC))
	blocker := sbtesting.MakeSpiralBench("blocker", "lab").NodeName("spark-b").UID("b").Obj()
	blocker.CreationTimestamp = metav1.NewTime(old.CreationTimestamp.Add(-time.Hour))
	h := newHarness(t, blocker, sbtesting.ReadyNode("spark-a"), sbtesting.ReadyNode("spark-b"))
	h.reconcile() // the blocker holds spark-b, so old waits for it
	if err := h.c.Create(t.Context(), old); err != nil {
		t.Fatal(err)
	}
	if got := h.reconcileBench("old"); got.Status.Phase != sbv1.PhaseQueued {
		t.Fatalf("old waits for spark-b: %s", got.Status.Phase)
	}
	newer := sbtesting.MakeSpiralBench("newer", "lab").NodeName("spark-a").UID("n").Obj()
	newer.CreationTimestamp = metav1.NewTime(old.CreationTimestamp.Add(time.Minute))
	if err := h.c.Create(t.Context(), newer); err != nil {
		t.Fatal(err)
	}
	if got := h.reconcileBench("newer"); got.Status.Phase != sbv1.PhaseRunning {
		t.Errorf("an older bench pinned to spark-b does not hold spark-a back: %s %+v", got.Status.Phase, got.Status.Conditions)
	}
	if !waiting(old) || waiting(h.reconcileBench("blocker")) {
		t.Error("a Queued bench without nodes waits; one that holds its nodes does not")
	}
}

// A bench that no set of nodes could place (CrossNode on a one-node pool) waits for ever; it
// must not hold the pool's node back from newer benches.
func TestAnUnplaceableBenchHoldsNothingBack(t *testing.T) {
	pool := &sbv1.Placement{NodeSelector: map[string]string{"pool": "one"}}
	node := sbtesting.ReadyNode("spark-a")
	node.Labels = pool.NodeSelector
	cross := sbtesting.MakeSpiralBench("cross", "lab").UID("x").Obj()
	cross.Spec.Topology.Mode = sbv1.TopologyCrossNode
	cross.Spec.Topology.Server.Placement, cross.Spec.Topology.Client.Placement = pool, pool
	cross.CreationTimestamp = metav1.NewTime(time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC))
	h := newHarness(t, cross, node)
	if got := h.reconcile(); got.Status.Phase != sbv1.PhaseQueued {
		t.Fatalf("two distinct nodes on a one-node pool: %s", got.Status.Phase)
	}
	newer := sbtesting.MakeSpiralBench("newer", "lab").NodeName("spark-a").UID("n").Obj()
	newer.CreationTimestamp = metav1.NewTime(cross.CreationTimestamp.Add(time.Minute))
	if err := h.c.Create(t.Context(), newer); err != nil {
		t.Fatal(err)
	}
	if got := h.reconcileBench("newer"); got.Status.Phase != sbv1.PhaseRunning {
		t.Errorf("the newer bench runs: %s %+v", got.Status.Phase, got.Status.Conditions)
	}
}

// A bench the results preflight holds (its Secret missing) waits for the Secret, not for a
// node: it must not hold a free node back from newer benches, however long the Secret is missing.
func TestABenchWithoutItsResultsSecretHoldsNothingBack(t *testing.T) {
	old := sbtesting.MakeSpiralBench("old", "lab").NodeName("spark-a").UID("o").Obj()
	old.Spec.Results = &sbv1.ResultsSpec{Endpoint: "http://s3.lab:9000", Bucket: "bench", CredentialsSecretRef: sbv1.SecretReference{Name: "missing"}}
	old.CreationTimestamp = metav1.NewTime(time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC))
	h := newHarness(t, old, sbtesting.ReadyNode("spark-a"))
	if got := h.reconcile(); got.Status.Phase != sbv1.PhasePending || waiting(got) ||
		!meta.IsStatusConditionFalse(got.Status.Conditions, sbv1.ConditionResultsReady) {
		t.Fatalf("old waits for its Secret, not for a node: %s %+v", got.Status.Phase, got.Status.Conditions)
	}
	newer := sbtesting.MakeSpiralBench("newer", "lab").NodeName("spark-a").UID("n").Obj()
	newer.CreationTimestamp = metav1.NewTime(old.CreationTimestamp.Add(time.Minute))
	if err := h.c.Create(t.Context(), newer); err != nil {
		t.Fatal(err)
	}
	if got := h.reconcileBench("newer"); got.Status.Phase != sbv1.PhaseRunning {
		t.Errorf("the newer bench runs: %s %+v", got.Status.Phase, got.Status.Conditions)
	}
}
