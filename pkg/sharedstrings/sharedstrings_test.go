package sharedstrings

import (
	"encoding/json"
	"strings"
	"testing"
	"unsafe"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/testing/fixture"
)

// decoded is a bench as the informer has it: decoded from JSON, every string its own copy.
func decoded(t *testing.T, name, node, message string) *sbv1.SpiralBench {
	t.Helper()
	sb := fixture.TCPSweep(name, 1, true)
	sb.UID = types.UID("uid-" + name)
	sb.Labels = map[string]string{sbv1.LabelFleet: "pool", sbv1.LabelFleetKind: "round"}
	sb.Annotations = map[string]string{"spiralbench.io/mark": "mark-of-" + name, "spiralbench.io/fleet-subject": node}
	sb.OwnerReferences = []metav1.OwnerReference{{APIVersion: sbv1.GroupVersion.String(), Kind: "SpiralBenchFleet", Name: "pool", UID: "fleet-uid", Controller: ptr.To(true)}}
	sb.Finalizers = []string{"spiralbench.io/cleanup"}
	sb.Status.Conditions = []metav1.Condition{{Type: "Passed", Status: "True", Reason: "RulesHeld", Message: message}}
	raw, err := json.Marshal(sb)
	if err != nil {
		t.Fatal(err)
	}
	out := &sbv1.SpiralBench{}
	if err := json.Unmarshal(raw, out); err != nil {
		t.Fatal(err)
	}
	return out
}

func same(a, b string) bool { return unsafe.StringData(a) == unsafe.StringData(b) }

func TestTransformSharesWhatBenchesRepeatAndChangesNothing(t *testing.T) {
	long := strings.Repeat("a message longer than the bound ", 8)
	a, b := decoded(t, "a", "node-1", long), decoded(t, "b", "node-2", long)
	wantA, wantB := a.DeepCopy(), b.DeepCopy()
	if same(a.Labels[sbv1.LabelFleet], b.Labels[sbv1.LabelFleet]) {
		t.Fatal("the decoded benches already share their strings: the test proves nothing")
	}
	for _, sb := range []*sbv1.SpiralBench{a, b} {
		if _, err := Transform(sb); err != nil {
			t.Fatal(err)
		}
	}
	if !equality.Semantic.DeepEqual(a, wantA) || !equality.Semantic.DeepEqual(b, wantB) {
		t.Fatal("the transform changed a bench's content")
	}
	for what, pair := range map[string][2]string{
		"a label value":              {a.Labels[sbv1.LabelFleet], b.Labels[sbv1.LabelFleet]},
		"the owner's uid":            {string(a.OwnerReferences[0].UID), string(b.OwnerReferences[0].UID)},
		"a finalizer":                {a.Finalizers[0], b.Finalizers[0]},
		"a condition's reason":       {a.Status.Conditions[0].Reason, b.Status.Conditions[0].Reason},
		"the namespace":              {a.Namespace, b.Namespace},
		"a spec value (transport)":   {string(a.Spec.Transport), string(b.Spec.Transport)},
		"a cell's parameters' state": {string(a.Status.CellResults[0].State), string(b.Status.CellResults[0].State)},
	} {
		if !same(pair[0], pair[1]) {
			t.Errorf("%s is not shared", what)
		}
	}
	for key := range a.Annotations {
		var other string
		for k := range b.Annotations {
			if k == key {
				other = k
			}
		}
		if !same(key, other) {
			t.Errorf("annotation key %q is not shared", key)
		}
	}
	if same(a.Status.Conditions[0].Message, b.Status.Conditions[0].Message) {
		t.Error("a string longer than the bound was shared")
	}
}
