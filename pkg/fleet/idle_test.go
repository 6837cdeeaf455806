package fleet

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func podUsing(name string, r corev1.ResourceName, phase corev1.PodPhase, labels map[string]string) corev1.Pod {
	return corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "work", Labels: labels},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{
			Limits: corev1.ResourceList{r: resource.MustParse("1")}}}}},
		Status: corev1.PodStatus{Phase: phase},
	}
}

func TestBusyReason(t *testing.T) {
	own := "spiralbench.io/bench"
	cpuOnly := podUsing("web", corev1.ResourceCPU, corev1.PodRunning, nil)
	done := podUsing("old-training", ResourceGPU, corev1.PodSucceeded, nil)
	ours := podUsing("ours", ResourceGPU, corev1.PodRunning, map[string]string{own: "x"})
	if r := BusyReason([]corev1.Pod{cpuOnly, done, ours}, nil, own); r != "" {
		t.Fatalf("idle node reported busy: %s", r)
	}
	training := podUsing("training", ResourceGPU, corev1.PodRunning, nil)
	if r := BusyReason([]corev1.Pod{cpuOnly, training}, nil, own); !strings.Contains(r, "work/training uses nvidia.com/gpu") {
		t.Fatalf("reason %q", r)
	}
	vf := podUsing("dpdk-app", "nvidia.com/cx7_vf", corev1.PodPending, nil)
	if r := BusyReason([]corev1.Pod{vf}, nil, own); r != "" {
		t.Fatalf("a device the bench does not use made the node busy: %q", r)
	}
	if r := BusyReason([]corev1.Pod{vf}, []corev1.ResourceName{"nvidia.com/cx7_vf"}, own); !strings.Contains(r, "cx7_vf") {
		t.Fatalf("a pending pod holding the bench's device should make the node busy: %q", r)
	}
}
