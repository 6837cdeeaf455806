package benchctrl

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/cellpod"
	"github.com/spiralbench/spiralbench/pkg/fleet"
)

func podWithEverything(labels map[string]string) *corev1.Pod {
	gpu := corev1.ResourceList{fleet.ResourceGPU: resource.MustParse("1")}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "trainer", Namespace: "ml", Labels: labels,
			Annotations:   map[string]string{"kubectl.kubernetes.io/last-applied-configuration": string(make([]byte, 4096))},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}},
		Spec: corev1.PodSpec{NodeName: "gpu-7", Containers: []corev1.Container{{Name: "main", Image: "trainer:1",
			Env: []corev1.EnvVar{{Name: "A", Value: "b"}}, Resources: corev1.ResourceRequirements{Limits: gpu}}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady}}},
	}
}

// A pod not SpiralBench's is cached with what the fleet's idle check reads, and nothing else;
// the idle check still sees it hold the node's GPU.
func TestForeignPodsAreCachedSlimAndStillMakeTheirNodeBusy(t *testing.T) {
	out, err := SlimForeignPods(podWithEverything(map[string]string{"app": "trainer"}))
	if err != nil {
		t.Fatal(err)
	}
	p := out.(*corev1.Pod)
	if len(p.Annotations) != 0 || len(p.ManagedFields) != 0 || p.Spec.Containers[0].Image != "" || len(p.Spec.Containers[0].Env) != 0 || len(p.Status.Conditions) != 0 {
		t.Errorf("a foreign pod keeps only what the idle check reads: %+v", p)
	}
	if p.Name != "trainer" || p.Spec.NodeName != "gpu-7" || p.Status.Phase != corev1.PodRunning || p.Labels["app"] != "trainer" {
		t.Errorf("identity, node, phase and labels are kept: %+v", p)
	}
	if why := fleet.BusyReason([]corev1.Pod{*p}, nil, cellpod.LabelBench, sbv1.LabelFleetStep); why == "" {
		t.Error("the slim pod still holds the node's GPU")
	}
}

// SpiralBench's own pods are cached whole: the bench controller judges their termination
// messages and reads their addresses.
func TestOwnPodsAreCachedWhole(t *testing.T) {
	out, _ := SlimForeignPods(podWithEverything(map[string]string{cellpod.LabelBench: "b"}))
	p := out.(*corev1.Pod)
	if len(p.ManagedFields) != 0 || len(p.Annotations) != 1 || p.Spec.Containers[0].Image != "trainer:1" || len(p.Status.Conditions) != 1 {
		t.Errorf("an own pod loses only its managedFields: %+v", p)
	}
}

// A fleet's facts pod is cached whole: the fleet reads its mark and its termination message.
func TestAFleetsFactsPodIsCachedWhole(t *testing.T) {
	out, _ := SlimForeignPods(podWithEverything(map[string]string{sbv1.LabelFleet: "pool", sbv1.LabelFleetKind: fleet.KindFacts}))
	p := out.(*corev1.Pod)
	if len(p.Annotations) != 1 || p.Spec.Containers[0].Image != "trainer:1" || len(p.Status.Conditions) != 1 {
		t.Errorf("a facts pod loses only its managedFields: %+v", p)
	}
}
