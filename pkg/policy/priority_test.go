package policy

import (
	"strings"
	"testing"

	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

func TestPriorityClassesDefaultRefusesOnlySystemClasses(t *testing.T) {
	listed, err := NewPriorityClasses(" bench-low", "", "system-node-critical ")
	if err != nil {
		t.Fatal(err)
	}
	anyClass, _ := NewPriorityClasses("bench-low", AnyPriorityClass)
	for _, c := range []struct {
		list  PriorityClasses
		class string
		want  bool
	}{
		{PriorityClasses{}, "", true},
		{PriorityClasses{}, "bench-low", true},
		{PriorityClasses{}, "system-node-critical", false},
		{PriorityClasses{}, "system-cluster-critical", false},
		{PriorityClasses{}, "system-anything", false},
		{PriorityClasses{}, "not-system-x", true}, // a prefix, not a substring
		{listed, "", true},                        // no class: the cluster's default priority
		{listed, "bench-low", true},
		{listed, "system-node-critical", true}, // the admin named it
		{listed, "bench-high", false},
		{listed, "system-cluster-critical", false},
		{anyClass, "system-node-critical", true},
	} {
		if got := c.list.Allows(c.class); got != c.want {
			t.Errorf("%s: Allows(%q) = %v, want %v", c.list, c.class, got, c.want)
		}
	}
}

func TestNewPriorityClassesRefusesWhatIsNoClassName(t *testing.T) {
	for _, bad := range []string{"Bench", "bench low", "system-*"} {
		if _, err := NewPriorityClasses(bad); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("%q: got %v", bad, err)
		}
	}
}

func TestCheckPriorityClassNamesTheClassAndTheSetting(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("b", "team-a").Obj()
	if r := CheckPriorityClass(PriorityClasses{}, benchPods(t, sb, "spiralbench/dataplane:dev")); r != nil {
		t.Fatalf("a bench naming no class runs: %+v", r)
	}
	sb.Spec.PriorityClassName = "system-node-critical"
	r := CheckPriorityClass(PriorityClasses{}, benchPods(t, sb, "spiralbench/dataplane:dev"))
	if r == nil || r.Reason != ReasonPriorityClassNotAllowed {
		t.Fatalf("refused, got %+v", r)
	}
	for _, want := range []string{"spec.priorityClassName system-node-critical is not one this operator allows",
		"not named system-*", "dataplane.allowedPriorityClasses", "--allowed-priority-classes", "remove it"} {
		if !strings.Contains(r.Message, want) {
			t.Errorf("message lacks %q: %s", want, r.Message)
		}
	}
	listed, _ := NewPriorityClasses("bench-low", "bench-high")
	sb.Spec.PriorityClassName = "bench-mid"
	if r := CheckPriorityClass(listed, benchPods(t, sb, "")); r == nil || !strings.Contains(r.Message, "only bench-low, bench-high") {
		t.Errorf("says what the list allows: %+v", r)
	}
	sb.Spec.PriorityClassName = "bench-high"
	if r := CheckPriorityClass(listed, benchPods(t, sb, "")); r != nil {
		t.Errorf("listed class refused: %+v", r)
	}
}
