package controllers

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// GPU Feature Discovery's node labels (NVIDIA GPU Operator): what results are comparable on.
const (
	labelGPUProduct = "nvidia.com/gpu.product"
	labelGPUDriver  = "nvidia.com/cuda.driver-version.full"
)

// captureEnvironment records the server node's kernel, GPU and image. NIC driver and firmware
// need ethtool inside a cell pod; they stay empty until the data plane reports them.
func (r *SpiralBenchReconciler) captureEnvironment(ctx context.Context, sb *sbv1.SpiralBench) {
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
