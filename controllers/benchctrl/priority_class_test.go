package benchctrl

import (
	"strings"
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/policy"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

func TestPriorityClassesFollowTheAdminsList(t *testing.T) {
	bench := func(class string) *sbv1.SpiralBench {
		sb := sbtesting.MakeSpiralBench("prio", "lab").UID("c1").Obj()
		sb.Spec.PriorityClassName = class
		return sb
	}
	// No list: any class but system-*.
	h := newHarness(t, bench("system-node-critical"), sbtesting.ReadyNode("spark-a"))
	msg := h.refusedBefore(h.reconcile(), policy.ReasonPriorityClassNotAllowed)
	if !strings.Contains(msg, "spec.priorityClassName system-node-critical") || !strings.Contains(msg, "dataplane.allowedPriorityClasses") {
		t.Errorf("says which class and which list: %s", msg)
	}
	h = newHarness(t, bench("bench-high"), sbtesting.ReadyNode("spark-a"))
	if h.reconcile(); len(h.pods()) != 1 {
		t.Errorf("another class runs by default: pods %v", keys(h.pods()))
	}

	// A list: only its classes, system ones included when named.
	listed, err := policy.NewPriorityClasses("bench-low", "system-node-critical")
	if err != nil {
		t.Fatal(err)
	}
	h = newHarness(t, bench("bench-high"), sbtesting.ReadyNode("spark-a"))
	h.r.AllowedPriorityClasses = listed
	h.refusedBefore(h.reconcile(), policy.ReasonPriorityClassNotAllowed)
	h = newHarness(t, bench("system-node-critical"), sbtesting.ReadyNode("spark-a"))
	h.r.AllowedPriorityClasses = listed
	if h.reconcile(); len(h.pods()) != 1 {
		t.Errorf("a listed class runs: pods %v", keys(h.pods()))
	}
}
