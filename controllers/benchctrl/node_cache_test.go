package benchctrl

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/spiralbench/spiralbench/pkg/fleet"
)

// A cached Node keeps what the manager reads (labels, taints, readiness, addresses, GPUs, the
// kernel) and loses its image list, capacity, other conditions and the rest of its status.
func TestNodesAreCachedWithoutTheirImagesAndSystemInfo(t *testing.T) {
	gpus := corev1.ResourceList{fleet.ResourceGPU: resource.MustParse("8")}
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "gpu-7", Labels: map[string]string{"pool": "a"}, Annotations: map[string]string{"a": "b"},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubelet"}}},
		Spec: corev1.NodeSpec{Taints: []corev1.Taint{{Key: "t", Effect: corev1.TaintEffectNoSchedule}}},
		Status: corev1.NodeStatus{Capacity: gpus, Allocatable: gpus,
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse},
				{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Message: "kubelet is posting ready status"}},
			Addresses:       []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.0.0.7"}},
			NodeInfo:        corev1.NodeSystemInfo{KernelVersion: "6.8.0", OSImage: "Ubuntu", ContainerRuntimeVersion: "containerd://2.1"},
			Images:          []corev1.ContainerImage{{Names: []string{"nvcr.io/nvidia/pytorch:25.01-py3"}, SizeBytes: 1 << 34}},
			DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: 10250}}},
	}
	out, err := SlimNodes(n.DeepCopy())
	if err != nil {
		t.Fatal(err)
	}
	s := out.(*corev1.Node)
	if s.ManagedFields != nil || s.Status.Images != nil || s.Status.NodeInfo.OSImage != "" || s.Status.DaemonEndpoints.KubeletEndpoint.Port != 0 ||
		s.Status.Capacity != nil || len(s.Status.Conditions) != 1 || s.Status.Conditions[0].Message != "" {
		t.Fatalf("kept what nothing reads: %+v", s.Status)
	}
	if s.Labels["pool"] != "a" || s.Annotations["a"] != "b" || len(s.Spec.Taints) != 1 || !nodeReady(s) ||
		s.Status.Addresses[0].Address != "10.0.0.7" || s.Status.NodeInfo.KernelVersion != "6.8.0" ||
		!s.Status.Allocatable[fleet.ResourceGPU].Equal(resource.MustParse("8")) {
		t.Fatalf("lost what the manager reads: %+v", s)
	}
	pod := &corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodRunning}}
	if o, _ := SlimNodes(pod); o != pod || pod.Status.Phase != corev1.PodRunning {
		t.Fatal("another kind is changed")
	}
}
