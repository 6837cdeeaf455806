package fleetctrl

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestNodeFactsAreItsAllocatableGPUsAndProduct(t *testing.T) {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "h", Labels: map[string]string{"nvidia.com/gpu.product": "NVIDIA-H200"}},
		Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("8")}}}
	if f := nodeFacts(n); f.GPUCount != 8 || f.GPUModel != "NVIDIA-H200" {
		t.Fatalf("got %+v", f)
	}
	if f := nodeFacts(&corev1.Node{}); f.GPUCount != 0 || f.GPUModel != "" {
		t.Fatalf("a node without GPUs: %+v", f)
	}
	if f := nodeFacts(nil); f.GPUCount != 0 {
		t.Fatalf("a node not found: %+v", f)
	}
}

func TestGatedReadsTheUpgradeGateTaint(t *testing.T) {
	n := &corev1.Node{Spec: corev1.NodeSpec{Taints: []corev1.Taint{
		{Key: taintVerdict, Value: "Failed", Effect: corev1.TaintEffectNoSchedule}}}}
	if _, held := gated(n); held {
		t.Fatal("the verdict taint is not the gate")
	}
	n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: taintUpgradeGate, Value: "Pending", Effect: corev1.TaintEffectNoSchedule})
	if v, held := gated(n); !held || v != "Pending" {
		t.Fatalf("gated %q %v", v, held)
	}
}
