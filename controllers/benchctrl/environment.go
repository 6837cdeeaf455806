package benchctrl

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/cellpod"
)

// GPU Feature Discovery's node labels (NVIDIA GPU Operator): what results are comparable on.
const (
	labelGPUProduct = "nvidia.com/gpu.product"
	labelGPUDriver  = "nvidia.com/cuda.driver-version.full"
)

// captureEnvironment records the server node's kernel, GPU and image from the Node object; the
// rest (NIC driver and firmware, links, PCIe, NUMA, kernel command line, huge pages, CUDA,
// image digest) comes from the data plane once (recordCapturedEnvironment).
func (r *Reconciler) captureEnvironment(ctx context.Context, sb *sbv1.SpiralBench) {
	if sb.Status.Environment != nil || len(sb.Status.Nodes) == 0 {
		return
	}
	image := sb.Spec.Image
	if image == "" {
		image = r.DefaultImage
	}
	env := &sbv1.Environment{Node: sb.Status.Nodes[0], Image: image}
	var node corev1.Node
	if err := r.Get(ctx, client.ObjectKey{Name: env.Node}, &node); err == nil {
		env.Kernel = node.Status.NodeInfo.KernelVersion
		env.GPUModel = node.Labels[labelGPUProduct]
		env.GPUDriver = node.Labels[labelGPUDriver]
	}
	sb.Status.Environment = env
}

// recordCapturedEnvironment writes the first capture an attempt brought into
// status.environment; later ones are ignored (once per run: the nodes are fixed).
func recordCapturedEnvironment(sb *sbv1.SpiralBench, o outcome) {
	if o.env == nil || !cellpod.NeedsEnvironment(sb) {
		return
	}
	if sb.Status.Environment == nil {
		sb.Status.Environment = &sbv1.Environment{}
	}
	o.env.Fill(sb.Status.Environment)
	if o.env.DataplaneRevision == "" {
		sb.Status.Environment.DataplaneRevision = "unknown" // recorded: do not ask again
	}
	sb.Status.Environment.ImageDigest = o.imageDigest
}
