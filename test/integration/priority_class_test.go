package integration

import (
	"context"
	"strings"
	"testing"

	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/spiralbench/spiralbench/pkg/policy"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// The suite's manager has no priority class list, the chart's default: a bench naming a
// system class (which the apiserver itself would admit in any namespace) is refused before
// any pod exists; one naming another class runs.
func TestABenchNamingASystemPriorityClassIsRefusedBeforeAnyPod(t *testing.T) {
	requireEnv(t)
	ctx := context.Background()
	ns := newNamespace(t)
	testNode(t, "prio-node")
	critical := onTestNode(shortRun(sbtesting.MakeSpiralBench("critical", ns).Payloads(8000).Pairs(1), 1, 0).Obj(), "prio-node")
	critical.Spec.PriorityClassName = "system-node-critical"
	if err := k8sClient.Create(ctx, critical); err != nil {
		t.Fatal(err)
	}
	msg := waitRefused(t, ns, "critical", policy.ReasonPriorityClassNotAllowed)
	for _, want := range []string{"spec.priorityClassName system-node-critical is not one this operator allows",
		"dataplane.allowedPriorityClasses", "--allowed-priority-classes", "remove it"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q: %s", want, msg)
		}
	}
	if holder, held := leaseHolder("prio-node"); held {
		t.Errorf("a refused bench holds no node, lease held by %s", holder)
	}

	pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "batch-" + ns}, Value: 1000}
	if err := k8sClient.Create(ctx, pc); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8sClient.Delete(ctx, pc) })
	batch := onTestNode(shortRun(sbtesting.MakeSpiralBench("batch", ns).Payloads(8000).Pairs(1), 1, 0).Obj(), "prio-node")
	batch.Spec.PriorityClassName = pc.Name
	if err := k8sClient.Create(ctx, batch); err != nil {
		t.Fatal(err)
	}
	waitPods(t, ns, "batch")
	for _, p := range podsOf(t, ns, "batch") {
		if p.Spec.PriorityClassName != pc.Name || p.Spec.Priority == nil || *p.Spec.Priority != 1000 {
			t.Errorf("pod %s: priority class %q, priority %v", p.Name, p.Spec.PriorityClassName, p.Spec.Priority)
		}
	}
}
