package fleetctrl

import (
	"context"
	"maps"
	"reflect"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/controllers/benchstate"
	"github.com/spiralbench/spiralbench/pkg/attempts"
	"github.com/spiralbench/spiralbench/pkg/fleet"
	"github.com/spiralbench/spiralbench/pkg/provenance"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

func memoFleet() *sbv1.SpiralBenchFleet {
	f := sbtesting.MakeFleet("f", "lab", "pool").Obj()
	f.UID, f.Status.Round = "f1", 2
	return f
}

// memoBench is a round bench of f on node, marked by key when key is not nil.
func memoBench(t *testing.T, key *provenance.Key, f *sbv1.SpiralBenchFleet, node string, round string, phase sbv1.Phase) *sbv1.SpiralBench {
	t.Helper()
	sb := &sbv1.SpiralBench{
		ObjectMeta: metav1.ObjectMeta{Name: "f-" + node + "-" + round, Namespace: f.Namespace, UID: types.UID("b-" + node + "-" + string(phase)), ResourceVersion: "1",
			Labels:          map[string]string{sbv1.LabelFleet: f.Name, sbv1.LabelFleetKind: fleet.KindRound, sbv1.LabelFleetRound: round},
			Annotations:     map[string]string{annotationSubject: node},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: sbv1.GroupVersion.String(), Kind: "SpiralBenchFleet", Name: f.Name, UID: f.UID, Controller: ptr.To(true)}}},
		Spec:   sbv1.SpiralBenchSpec{Topology: sbv1.TopologySpec{Placement: &sbv1.Placement{NodeName: node}}},
		Status: sbv1.SpiralBenchStatus{Phase: phase},
	}
	if key != nil {
		if err := benchstate.Mark(key, sb); err != nil {
			t.Fatal(err)
		}
	}
	return sb
}

// What a step derived from a cached bench is kept for the same pointer only: an editor's bench
// with the fleet's name, labels and owner reference is never the fleet's, a forged copy of a
// marked bench (a new pointer, as the informer gives every write) is checked again and refused,
// and what the last step did not meet is forgotten.
func TestTheStepMemoTrustsOnlyTheManagersBenchesAndRereadsEveryNewVersion(t *testing.T) {
	key := provenance.RandomKey()
	r := &Reconciler{Provenance: key}
	f := memoFleet()
	m := r.reads.of(f)
	m.sweep()

	own := memoBench(t, key, f, "a", "2", sbv1.PhaseRunning)
	editors := memoBench(t, nil, f, "b", "2", sbv1.PhaseRunning)
	forged := own.DeepCopy()
	forged.Spec.Topology.Placement.NodeName = "c" // the mark no longer covers what it says
	forged.ResourceVersion = "2"                  // as the apiserver gives every write

	if b := m.bench(r, f, own); !b.own || b.key != stepKey(fleet.KindRound, "a", "") || b.round != 2 || b.finished || len(b.nodes) != 1 || b.nodes[0] != "a" {
		t.Fatalf("the manager's own bench: %+v", b)
	}
	if m.bench(r, f, editors).own {
		t.Error("an editor's bench with the fleet's name, labels and owner reference is the fleet's")
	}
	if m.bench(r, f, forged).own {
		t.Error("a changed copy of a marked bench is the fleet's")
	}
	other := f.DeepCopy()
	other.UID = "f2"
	if r.reads.of(other).bench(r, other, own).own {
		t.Error("a fleet made again under the name trusts the old fleet's bench (its owner reference names the old uid)")
	}

	// The next step meets the marked bench again and, in its place, the finished version.
	m = r.reads.of(f)
	m.sweep()
	finished := memoBench(t, key, f, "a", "2", sbv1.PhaseCompleted)
	if b := m.bench(r, f, finished); !b.own || !b.finished {
		t.Fatalf("the bench's new version is read afresh: %+v", b)
	}
	if len(m.benches) != 1 {
		t.Errorf("the memo of a fleet made again under the name is afresh: %d entries, want 1", len(m.benches))
	}

	// Once a step meets only the finished version, the rest is forgotten.
	m.sweep()
	m.bench(r, f, finished)
	m.sweep()
	if _, kept := m.benches[finished]; !kept || len(m.benches) != 1 {
		t.Errorf("after two steps the memo holds %d benches, want the finished one alone", len(m.benches))
	}
	r.reads.forget(types.NamespacedName{Namespace: f.Namespace, Name: f.Name})
	if len(r.reads.of(f).benches) != 0 {
		t.Error("a deleted fleet's memo is kept")
	}
}

// A finished bench's repeats and observation are kept while steps read them (a node's next
// steps run) and dropped by the first step that does not (its verdict was given).
func TestTheStepMemoKeepsAFinishedBenchsRepeatsUntilItsNodeIsDecided(t *testing.T) {
	key := provenance.RandomKey()
	c := fake.NewClientBuilder().WithScheme(sbtesting.Scheme(t)).WithIndex(&sbv1.SpiralBenchAttemptResult{}, attempts.BenchIndex, attempts.IndexBench).Build()
	r := &Reconciler{Client: c, APIReader: c, Provenance: key}
	f := memoFleet()
	sb := memoBench(t, key, f, "a", "2", sbv1.PhaseCompleted)
	step := func() *fleetView {
		v := &fleetView{f: f, memo: r.reads.of(f)}
		v.memo.sweep()
		v.memo.bench(r, f, sb)
		return v
	}

	v := step()
	r.observed(context.Background(), v, sb)
	b := v.memo.benchOf(sb)
	if b.full == nil || b.observed == nil {
		t.Fatal("a finished bench whose records were all read is kept with them")
	}
	full, observed := b.full, b.observed
	v = step()
	if r.observed(context.Background(), v, sb); r.repeatsOf(context.Background(), v, sb) != full || v.memo.benchOf(sb).observed != observed {
		t.Error("the next step reads the bench's repeats again instead of the kept ones")
	}
	step() // the node was decided: this step did not read the bench's repeats
	step()
	if b := r.reads.of(f).benchOf(sb); b == nil || b.full != nil || b.observed != nil {
		t.Errorf("a decided node's bench keeps its repeats: %+v", b)
	}

	running := memoBench(t, key, f, "b", "2", sbv1.PhaseRunning)
	v = step()
	v.memo.bench(r, f, running)
	r.repeatsOf(context.Background(), v, running)
	if v.memo.benchOf(running).full != nil {
		t.Error("a running bench's repeats are kept: its next records are not written yet")
	}
}

// The view reads a round through the memo as it did without it: the fleet's benches of this
// round by their step keys, an earlier round's unfinished bench still holding its node, the
// editor's bench nowhere, and a bench's new version in the cache seen at the next step.
func TestAViewThroughTheMemoSeesEachStepsCache(t *testing.T) {
	key := provenance.RandomKey()
	r, f, step := memoSteps(t, key)
	running := memoBench(t, key, f, "a", "2", sbv1.PhaseRunning)
	earlier := memoBench(t, key, f, "b", "1", sbv1.PhaseRunning)
	editors := memoBench(t, nil, f, "c", "2", sbv1.PhaseRunning)
	view := func(benches ...*sbv1.SpiralBench) *fleetView {
		t.Helper()
		cached := []client.Object{sbtesting.ReadyNode("a"), sbtesting.ReadyNode("b"), sbtesting.ReadyNode("c")}
		for _, sb := range benches {
			cached = append(cached, sb)
		}
		return step(cached...)
	}

	for range 2 { // the second step reads every answer from the memo
		v := view(running, earlier, editors)
		if len(v.benches) != 1 || v.benches[stepKey(fleet.KindRound, "a", "")] != running {
			t.Fatalf("this round's benches: %v", v.benches)
		}
		if !v.claimed["a"] || !v.claimed["b"] || v.claimed["c"] {
			t.Errorf("claimed %v: want a (running) and b (an earlier round's, running), not c (the editor's)", v.claimed)
		}
	}
	if len(r.reads.of(f).benches) != 3 {
		t.Errorf("the memo holds %d benches, want the 3 the steps met", len(r.reads.of(f).benches))
	}

	finished := memoBench(t, key, f, "a", "2", sbv1.PhaseCompleted)
	ended := memoBench(t, key, f, "b", "1", sbv1.PhaseCompleted)
	v := view(finished, ended, editors)
	if v.benches[stepKey(fleet.KindRound, "a", "")] != finished || v.claimed["a"] || v.claimed["b"] {
		t.Errorf("the next step reads the benches' new versions: benches %v, claimed %v", v.benches, v.claimed)
	}
	view(finished, ended, editors)
	if len(r.reads.of(f).benches) != 3 {
		t.Errorf("the memo holds %d benches after the versions changed, want 3", len(r.reads.of(f).benches))
	}
}

func TestEachStepsMapsHoldOnlyWhatThatStepRead(t *testing.T) {
	key := provenance.RandomKey()
	_, f, step := memoSteps(t, key)

	first := step(sbtesting.ReadyNode("a"), sbtesting.ReadyNode("b"), memoBench(t, key, f, "b", "2", sbv1.PhaseRunning))
	if len(first.pool) != 2 || len(first.benches) != 1 || !first.claimed["b"] {
		t.Fatalf("first step: pool %v, benches %v, claimed %v", slices.Sorted(maps.Keys(first.pool)), slices.Sorted(maps.Keys(first.benches)), first.claimed)
	}
	pool, benches := reflect.ValueOf(first.pool).Pointer(), reflect.ValueOf(first.benches).Pointer()

	// Node b left the pool and its bench is gone: nothing of them may survive into this step.
	second := step(sbtesting.ReadyNode("a"))
	if len(second.pool) != 1 || second.pool["a"] == nil || len(second.benches) != 0 || len(second.claimed) != 0 || len(second.busyNodes) != 0 {
		t.Errorf("second step: pool %v, benches %v, claimed %v, busy %v: want node a alone and nothing else",
			slices.Sorted(maps.Keys(second.pool)), slices.Sorted(maps.Keys(second.benches)), second.claimed, second.busyNodes)
	}
	if reflect.ValueOf(second.pool).Pointer() != pool || reflect.ValueOf(second.benches).Pointer() != benches {
		t.Error("the second step made its maps again instead of emptying the first step's")
	}
}

// memoSteps is a reconciler and a fleet of the whole pool, and a step: the fleet's view of a
// client-go informer store holding cached.
func memoSteps(t *testing.T, key *provenance.Key) (*Reconciler, *sbv1.SpiralBenchFleet, func(cached ...client.Object) *fleetView) {
	c := fake.NewClientBuilder().WithScheme(sbtesting.Scheme(t)).Build()
	r := &Reconciler{Client: c, APIReader: c, Provenance: key}
	f := memoFleet()
	f.Spec.NodeSelector = metav1.LabelSelector{}
	return r, f, func(cached ...client.Object) *fleetView {
		t.Helper()
		var err error
		if r.cache, err = sbtesting.InformerCache(cached...); err != nil {
			t.Fatal(err)
		}
		v, err := r.view(context.Background(), f)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}
