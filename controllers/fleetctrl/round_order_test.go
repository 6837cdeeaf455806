package fleetctrl

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/attempts"
	"github.com/spiralbench/spiralbench/pkg/provenance"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// Whoever sees a round finished reads every node's final result: the step that decides the
// last node and finishes the round writes the node's result before the fleet's status.
func TestARoundIsFinishedOnlyAfterItsLastResultIsWritten(t *testing.T) {
	ctx := context.Background()
	node := sbtesting.ReadyNode("a")
	node.Labels = map[string]string{"pool": "pool"}
	f := sbtesting.MakeFleet("f", "lab", "pool").Obj()
	base := fake.NewClientBuilder().WithScheme(sbtesting.Scheme(t)).
		WithStatusSubresource(&sbv1.SpiralBenchFleet{}, &sbv1.SpiralBench{}).
		WithIndex(&sbv1.SpiralBenchAttemptResult{}, attempts.BenchIndex, attempts.IndexBench).
		WithIndex(&corev1.Pod{}, podNodeIndex, func(o client.Object) []string { return []string{o.(*corev1.Pod).Spec.NodeName} }).
		WithObjects(node, f).Build()
	var finishes int
	var undecided []sbv1.FleetNode
	c := interceptor.NewClient(base, interceptor.Funcs{
		SubResourcePatch: func(ctx context.Context, cl client.Client, sub string, o client.Object, p client.Patch, opts ...client.SubResourcePatchOption) error {
			if fl, ok := o.(*sbv1.SpiralBenchFleet); ok && fl.Status.RoundCompletionTime != nil {
				finishes++
				var list sbv1.SpiralBenchNodeResultList
				if err := cl.List(ctx, &list, client.InNamespace("lab")); err != nil {
					return err
				}
				for _, res := range list.Items {
					if res.Result.Verdict == sbv1.NodePending || res.Result.Verdict == sbv1.NodeRunning {
						undecided = append(undecided, res.Result)
					}
				}
			}
			return cl.SubResource(sub).Patch(ctx, o, p, opts...)
		},
	})
	r := &Reconciler{Client: c, APIReader: c, Recorder: events.NewFakeRecorder(100), Provenance: provenance.RandomKey()}
	key := client.ObjectKeyFromObject(f)
	step := func() {
		t.Helper()
		if _, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: key}); err != nil {
			t.Fatal(err)
		}
	}

	var benches sbv1.SpiralBenchList
	for i := 0; i < 5 && len(benches.Items) == 0; i++ {
		step()
		if err := base.List(ctx, &benches, client.InNamespace("lab")); err != nil {
			t.Fatal(err)
		}
	}
	if len(benches.Items) != 1 {
		t.Fatalf("the round launched %d benches, want 1", len(benches.Items))
	}
	sb := &benches.Items[0]
	sb.Status = sbtesting.DecidedBench(nil, sbv1.CellResult{Index: 0, State: sbv1.CellValid, Repeats: 1}).Status
	if err := base.Status().Update(ctx, sb); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5 && finishes == 0; i++ {
		step()
	}
	if finishes == 0 {
		t.Fatal("the round never finished")
	}
	if len(undecided) > 0 {
		t.Fatalf("the round was finished while results still said %+v", undecided)
	}
}
