package integration

import (
	"context"
	"strings"
	"testing"

	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// Once a bench has started, what it measures cannot change; suspend and acceptance can.
func TestSpecIsImmutableOnceStartedExceptSuspend(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	ctx := context.Background()
	sb := sbtesting.MakeSpiralBench("started", ns).Transport(sbv1.TransportUDP).Preset(sbv1.PresetSweep).Obj()
	if err := k8sClient.Create(ctx, sb); err != nil {
		t.Fatal(err)
	}
	sb = waitAccepted(t, ns, "started", 6)

	// While Pending the spec may still change.
	sb.Spec.Matrix.Pairs = []int32{1, 2}
	if err := k8sClient.Update(ctx, sb); err != nil {
		t.Fatalf("a Pending bench must accept spec changes: %v", err)
	}
	waitAccepted(t, ns, "started", 4)

	// Mark it Running, as the cell runner will.
	if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(sb), sb); err != nil {
		t.Fatal(err)
	}
	sb.Status.Phase = sbv1.PhaseRunning
	if err := k8sClient.Status().Update(ctx, sb); err != nil {
		t.Fatal(err)
	}

	for name, mutate := range map[string]func(*sbv1.SpiralBench){
		"matrix":    func(s *sbv1.SpiralBench) { s.Spec.Matrix.PayloadBytes = []int32{1000} },
		"transport": func(s *sbv1.SpiralBench) { s.Spec.Transport = sbv1.TransportTCP },
		"run":       func(s *sbv1.SpiralBench) { s.Spec.Run.Seconds = 5 },
		"mtu":       func(s *sbv1.SpiralBench) { s.Spec.Topology.MTU = 1500 },
		"workload":  func(s *sbv1.SpiralBench) { s.Spec.Workload = &sbv1.WorkloadSpec{Kind: sbv1.WorkloadNone} },
	} {
		cur := &sbv1.SpiralBench{}
		if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(sb), cur); err != nil {
			t.Fatal(err)
		}
		mutate(cur)
		err := k8sClient.Update(ctx, cur)
		if err == nil || !strings.Contains(err.Error(), "what a started bench measures is immutable") {
			t.Errorf("changing %s of a running bench: want the immutability message, got %v", name, err)
		}
	}

	for name, mutate := range map[string]func(*sbv1.SpiralBench){
		"suspend": func(s *sbv1.SpiralBench) { s.Spec.Suspend = ptr.To(true) },
		"acceptance": func(s *sbv1.SpiralBench) {
			s.Spec.Acceptance = &sbv1.AcceptanceSpec{Rules: []sbv1.AcceptanceRule{{
				Name: "lossless", Metric: sbv1.MetricLossPPM, Operator: sbv1.OperatorEqual, Value: 0,
			}}}
		},
	} {
		// The controller writes status after each spec change: retry on its conflicts.
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			cur := &sbv1.SpiralBench{}
			if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(sb), cur); err != nil {
				return err
			}
			mutate(cur)
			return k8sClient.Update(ctx, cur)
		})
		if err != nil {
			t.Errorf("changing %s of a running bench must be allowed: %v", name, err)
		}
	}
}
