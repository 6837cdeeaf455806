package benchctrl

import (
	corev1 "k8s.io/api/core/v1"
)

// The manager caches every Node of the cluster (a fleet's pool is a label selector over
// them). A real node's status carries its image list (often tens of images with every tag
// and digest), its system info, volumes, daemon endpoints, capacity and every condition the
// node's agents set, which nothing here reads: at 10,000 nodes those were most of the Nodes'
// share of the manager's memory (the two resource lists alone about 2 KiB a node). So the
// cache keeps what is read (labels, annotations, spec and taints, the Ready condition's status,
// addresses, allocatable, the kernel version) and drops the rest. Node writes are merge
// patches of labels, annotations and taints computed against the cached object, so they
// never send the dropped fields back.

// SlimNodes is the Node cache's transform.
func SlimNodes(obj any) (any, error) {
	n, ok := obj.(*corev1.Node)
	if !ok {
		return obj, nil
	}
	n.ManagedFields = nil
	var ready []corev1.NodeCondition
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			ready = []corev1.NodeCondition{{Type: c.Type, Status: c.Status}}
		}
	}
	n.Status = corev1.NodeStatus{
		Allocatable: n.Status.Allocatable, Conditions: ready,
		Addresses: n.Status.Addresses, NodeInfo: corev1.NodeSystemInfo{KernelVersion: n.Status.NodeInfo.KernelVersion},
	}
	return n, nil
}
