package benchctrl

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/event"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/controllers/benchstate"
)

// A restarted manager leaves out of its first list only the finished benches no step would
// change; anything it still owes a bench (an open attempt, an upload, a TTL, a deletion, a
// spec it has not seen) keeps the bench in, and no later event is filtered.
func TestARestartedManagerSkipsOnlyBenchesThatNeedNothing(t *testing.T) {
	uploaded := []metav1.Condition{{Type: sbv1.ConditionResultsUploaded, Status: metav1.ConditionTrue}}
	settled := func() *sbv1.SpiralBench {
		return &sbv1.SpiralBench{
			ObjectMeta: metav1.ObjectMeta{Name: "b", Namespace: "lab", Generation: 1, Finalizers: []string{benchstate.Finalizer}},
			Spec:       sbv1.SpiralBenchSpec{Results: &sbv1.ResultsSpec{Bucket: "r"}},
			Status:     sbv1.SpiralBenchStatus{Phase: sbv1.PhaseCompleted, ObservedGeneration: 1, Conditions: uploaded},
		}
	}
	now := metav1.Now()
	owes := map[string]func(*sbv1.SpiralBench){
		"running":                     func(sb *sbv1.SpiralBench) { sb.Status.Phase = sbv1.PhaseRunning },
		"an open attempt":             func(sb *sbv1.SpiralBench) { sb.Status.ActiveAttempt = &sbv1.ActiveAttempt{} },
		"an upload":                   func(sb *sbv1.SpiralBench) { sb.Status.Conditions = nil },
		"a TTL":                       func(sb *sbv1.SpiralBench) { sb.Spec.TTLSecondsAfterFinished = ptr.To[int32](60) },
		"a deletion":                  func(sb *sbv1.SpiralBench) { sb.DeletionTimestamp = &now },
		"no benchstate.Finalizer yet": func(sb *sbv1.SpiralBench) { sb.Finalizers = nil },
		"an unseen spec":              func(sb *sbv1.SpiralBench) { sb.Generation = 2 },
	}
	r := &Reconciler{}
	p := r.unsettledAtStart()
	if p.Create(event.CreateEvent{Object: settled(), IsInInitialList: true}) {
		t.Fatal("a finished, uploaded bench is reconciled again at a restart")
	}
	if !p.Create(event.CreateEvent{Object: settled()}) {
		t.Fatal("a create after the first list is filtered")
	}
	failed := settled()
	failed.Status.Phase, failed.Spec.Results, failed.Status.Conditions = sbv1.PhaseFailed, nil, nil
	if p.Create(event.CreateEvent{Object: failed, IsInInitialList: true}) {
		t.Fatal("a failed bench with nothing to upload is reconciled again at a restart")
	}
	for what, change := range owes {
		sb := settled()
		change(sb)
		if !p.Create(event.CreateEvent{Object: sb, IsInInitialList: true}) {
			t.Errorf("a bench owed %s is left out at a restart", what)
		}
	}
	withDefault := &Reconciler{DefaultBucket: benchstate.BucketDefaults{Bucket: "d"}}
	noSpec := settled()
	noSpec.Spec.Results, noSpec.Status.Conditions = nil, nil
	if !withDefault.unsettledAtStart().Create(event.CreateEvent{Object: noSpec, IsInInitialList: true}) {
		t.Error("a bench owed an upload to the manager's default bucket is left out at a restart")
	}
}
