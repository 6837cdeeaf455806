package fleet

import (
	corev1 "k8s.io/api/core/v1"
)

// ResourceGPU is the NVIDIA device plugin's GPU resource.
const ResourceGPU corev1.ResourceName = "nvidia.com/gpu"

// BusyReason says why a node is not idle: the first running pod on it, other than
// SpiralBench's own (marked by any of ownLabels: cell pods, a fleet's check pods), that requests a GPU or one of the devices. Pods
// that ended (Succeeded, Failed) or are being deleted hold nothing. Empty means idle.
func BusyReason(pods []corev1.Pod, devices []corev1.ResourceName, ownLabels ...string) string {
	watched := append([]corev1.ResourceName{ResourceGPU}, devices...)
	for i := range pods {
		p := &pods[i]
		ours := false
		for _, l := range ownLabels {
			_, has := p.Labels[l]
			ours = ours || has
		}
		if ours || p.DeletionTimestamp != nil ||
			p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		for _, r := range watched {
			if requests(p, r) {
				return "pod " + p.Namespace + "/" + p.Name + " uses " + string(r)
			}
		}
	}
	return ""
}

func requests(p *corev1.Pod, r corev1.ResourceName) bool {
	containers := append(append([]corev1.Container(nil), p.Spec.InitContainers...), p.Spec.Containers...)
	for _, c := range containers {
		if q, ok := c.Resources.Limits[r]; ok && !q.IsZero() {
			return true
		}
		if q, ok := c.Resources.Requests[r]; ok && !q.IsZero() {
			return true
		}
	}
	return false
}
