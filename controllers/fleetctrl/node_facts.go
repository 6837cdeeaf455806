package fleetctrl

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/spiralbench/spiralbench/pkg/fleet"
)

// nodeGPUs is the node's allocatable nvidia.com/gpu.
func nodeGPUs(n *corev1.Node) int32 {
	if n == nil {
		return 0
	}
	q, ok := n.Status.Allocatable["nvidia.com/gpu"]
	if !ok {
		return 0
	}
	return int32(q.Value())
}

// nodeFacts are the facts the node object tells (its allocatable GPUs and the GPU feature
// discovery's product label), filling in what no step reported.
func nodeFacts(n *corev1.Node) fleet.Facts {
	if n == nil {
		return fleet.Facts{}
	}
	return fleet.Facts{GPUCount: nodeGPUs(n), GPUModel: n.Labels["nvidia.com/gpu.product"]}
}

// The taints and the gate annotation a fleet writes onto nodes, only when the manager runs with
// --fleet-node-writes (its labels and annotations are the API's: sbv1.LabelVerdict and the rest).
const (
	// taintVerdict (NoSchedule, value Failed) keeps work off a node whose bench failed.
	taintVerdict = "spiralbench.io/verdict"
	// taintUpgradeGate (NoSchedule, Pending or Failed) holds a node from the start of a
	// driver upgrade until its bench after the upgrade passes.
	taintUpgradeGate = "spiralbench.io/upgrade-gate"
	// annotationGateID tells one upgrade of a node from the next; it names the upgrade bench.
	annotationGateID = "spiralbench.io/upgrade-gate-id"
)

// gated says whether the node is held by the upgrade gate (it is not benched in rounds then).
func gated(node *corev1.Node) (string, bool) {
	for _, t := range node.Spec.Taints {
		if t.Key == taintUpgradeGate {
			return t.Value, true
		}
	}
	return "", false
}
