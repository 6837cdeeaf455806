package fleetctrl

import (
	"reflect"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// sameRow must see every field: a field it missed would be a change never written.
func TestSameRowSeesEveryField(t *testing.T) {
	now := metav1.NewTime(time.Unix(1800000000, 0))
	base := sbv1.FleetNode{Name: "n", Verdict: sbv1.NodePassed, Step: "tcp", Reasons: []string{"StepFailed:tcp"}, Class: "c",
		ValidUntil: &now, Reason: "r", Partner: "p", Bench: "b", RunID: "id", Value: ptr.To[int64](1),
		BaselineDeltaMilliPercent: ptr.To[int32](1), FleetDeltaMilliPercent: ptr.To[int32](1), Straggler: true, Regressed: true,
		LastBenchTime: &now, Upgrade: sbv1.GateHeld, StepsSummary: "1/1 passed",
		Steps: []sbv1.FleetStepRecord{{Name: "tcp", State: sbv1.StepRecordPassed, Reason: "r", Figure: "RxMbps", Value: ptr.To[int64](1),
			Unit: "Mb/s", JudgedAgainst: "no reference", Bench: "b"}}}
	typ := reflect.TypeOf(base)
	for i := 0; i < typ.NumField(); i++ {
		changed := *base.DeepCopy()
		f := reflect.ValueOf(&changed).Elem().Field(i)
		f.Set(reflect.Zero(f.Type())) // every field of base is set, so zeroing changes it
		if sameRow(&base, &changed) || equality.Semantic.DeepEqual(base, changed) {
			t.Errorf("a change of %s is not seen", typ.Field(i).Name)
		}
	}
	step := reflect.TypeOf(base.Steps[0])
	for i := 0; i < step.NumField(); i++ {
		changed := *base.DeepCopy()
		f := reflect.ValueOf(&changed.Steps[0]).Elem().Field(i)
		f.Set(reflect.Zero(f.Type()))
		if sameRow(&base, &changed) {
			t.Errorf("a change of a step's %s is not seen", step.Field(i).Name)
		}
	}
	copyOf := *base.DeepCopy()
	if !sameRow(&base, &copyOf) {
		t.Error("a copy differs")
	}
}

// The overlay answers with this manager's own write until the cache has caught up with it,
// and gives way to a newer write by someone else.
func TestResultOverlayReadsOwnWritesUntilTheCacheCatchesUp(t *testing.T) {
	var o resultOverlay
	mine := &sbv1.SpiralBenchNodeResult{ObjectMeta: metav1.ObjectMeta{Name: "pool-1-a", Namespace: "ns", ResourceVersion: "20"},
		Fleet: "pool", Round: 1, Result: sbv1.FleetNode{Name: "a", Verdict: sbv1.NodeRunning}}
	o.put(mine)
	key := resultIndexKey("ns", "pool", 1)
	cached := []*sbv1.SpiralBenchNodeResult{mine.DeepCopy()}
	cached[0].ResourceVersion, cached[0].Result.Verdict = "10", sbv1.NodePending
	if got := o.merge(key, cached); len(got) != 1 || got[0].Result.Verdict != sbv1.NodeRunning {
		t.Fatalf("an older cache hid this manager's write: %+v", got)
	}
	if got := o.merge(key, nil); len(got) != 1 || got[0].Name != "pool-1-a" {
		t.Fatalf("a write the cache has not listed yet is missing: %+v", got)
	}
	cached[0].ResourceVersion, cached[0].Result.Verdict = "30", sbv1.NodePending // written since by someone else
	if got := o.merge(key, cached); len(got) != 1 || got[0].Result.Verdict != sbv1.NodePending {
		t.Fatalf("a newer write lost to the overlay: %+v", got)
	}
	if got := o.merge(key, nil); len(got) != 0 {
		t.Fatalf("the overlay kept an entry the cache caught up with: %+v", got)
	}
}
