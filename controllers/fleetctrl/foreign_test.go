package fleetctrl

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/fleet"
)

// What a create met in its way is remembered for the fleet's current round only: a new round,
// or a fleet deleted and made again under its name, starts afresh.
func TestForeignObjectsAreRememberedPerFleetAndRound(t *testing.T) {
	f := &sbv1.SpiralBenchFleet{ObjectMeta: metav1.ObjectMeta{Namespace: "lab", Name: "f", UID: "u1"}}
	f.Status.Round = 3
	var o foreignObjects
	o.note(f, "round/n1", "not created by the manager")
	o.note(f, "round/n2", "changed since")
	got := map[string]string{}
	o.of(f, got)
	if len(got) != 2 || got["round/n1"] != "not created by the manager" {
		t.Fatalf("this round: %v", got)
	}
	o.clear(f, "round/n2")
	got = map[string]string{}
	if o.of(f, got); len(got) != 1 {
		t.Fatalf("after clearing n2: %v", got)
	}

	next := f.DeepCopy()
	next.Status.Round = 4
	got = map[string]string{}
	if o.of(next, got); len(got) != 0 {
		t.Fatalf("the next round knows nothing of the last round's objects: %v", got)
	}
	o.note(f, "round/n1", "x")
	again := f.DeepCopy()
	again.UID = "u2"
	if o.of(again, got); len(got) != 0 {
		t.Fatalf("a fleet made again under the name knows nothing: %v", got)
	}
	o.note(f, "round/n1", "x")
	o.forget(types.NamespacedName{Namespace: "lab", Name: "f"})
	if o.of(f, got); len(got) != 0 {
		t.Fatalf("a deleted fleet's entries are gone: %v", got)
	}
}

// An upgrade's objects are told apart by their gate id (the round label); a suite step's by
// its step; a template fleet's by kind and subject alone.
func TestFleetObjectKeyNamesTheStepItStandsFor(t *testing.T) {
	obj := func(kind, subject, step, round string) *sbv1.SpiralBench {
		l := map[string]string{sbv1.LabelFleetKind: kind, sbv1.LabelFleetRound: round}
		if step != "" {
			l[sbv1.LabelFleetStep] = step
		}
		return &sbv1.SpiralBench{ObjectMeta: metav1.ObjectMeta{Labels: l, Annotations: map[string]string{annotationSubject: subject}}}
	}
	for _, c := range []struct {
		o    *sbv1.SpiralBench
		want string
	}{
		{obj(fleet.KindRound, "n1", "", "2"), stepKey(fleet.KindRound, "n1", "")},
		{obj(fleet.KindRound, "n1", "copy", "2"), stepKey(fleet.KindRound, "n1", "copy")},
		{obj(fleet.KindUpgrade, "n1", "", "1732870000"), stepKey(fleet.KindUpgrade, "n1", "") + "/1732870000"},
	} {
		if got := fleetObjectKey(c.o); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
	if fleetObjectKey(obj(fleet.KindUpgrade, "n1", "", "1")) == fleetObjectKey(obj(fleet.KindUpgrade, "n1", "", "2")) {
		t.Error("two upgrades of one node share a key")
	}
}
