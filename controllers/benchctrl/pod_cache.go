package benchctrl

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/controllers/benchstate"
)

// The manager caches every pod of the cluster: the fleet asks whether a node is idle (no other
// pod holds its GPUs or devices) from the cache. On a cluster of 10,000 nodes that is hundreds
// of thousands of pods that are not SpiralBench's, so those are cached slim: what the idle
// check and the owner handlers read, nothing else. SpiralBench's own pods are cached whole.

// wholePodLabels mark the pods cached whole: SpiralBench's own (benchstate.OwnPodLabels) and
// every pod a fleet makes, its facts pods too, whose mark and termination message the fleet
// reads (slimmed, a fact check between rounds found neither and never judged a node).
var wholePodLabels = append(slices.Clone(benchstate.OwnPodLabels), sbv1.LabelFleet)

// SlimForeignPods is the pod cache's transform: managedFields go from every pod; a pod without
// one of wholePodLabels keeps its identity, labels, owners, deletion mark, node, phase and its
// containers' names and resources.
func SlimForeignPods(obj any) (any, error) {
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return obj, nil
	}
	if p.ManagedFields != nil {
		p.ManagedFields = nil
	}
	for _, l := range wholePodLabels {
		if _, ours := p.Labels[l]; ours {
			return p, nil
		}
	}
	slim := &corev1.Pod{
		TypeMeta: p.TypeMeta,
		ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace, UID: p.UID, ResourceVersion: p.ResourceVersion,
			Labels: p.Labels, OwnerReferences: p.OwnerReferences, DeletionTimestamp: p.DeletionTimestamp},
		Spec:   corev1.PodSpec{NodeName: p.Spec.NodeName, InitContainers: slimContainers(p.Spec.InitContainers), Containers: slimContainers(p.Spec.Containers)},
		Status: corev1.PodStatus{Phase: p.Status.Phase},
	}
	return slim, nil
}

func slimContainers(cs []corev1.Container) []corev1.Container {
	if len(cs) == 0 {
		return nil
	}
	out := make([]corev1.Container, len(cs))
	for i := range cs {
		out[i] = corev1.Container{Name: cs[i].Name, Resources: cs[i].Resources}
	}
	return out
}
