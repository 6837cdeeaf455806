package benchctrl

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/cellpod"
	"github.com/spiralbench/spiralbench/pkg/summary"
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
	if !cellpod.NeedsEnvironment(sb) {
		return
	}
	if o.env == nil {
		if o.envNote != "" && sb.Status.Environment != nil {
			sb.Status.Environment.CaptureNote = o.envNote // said, and the next attempt asks again
		}
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
	sb.Status.Environment.CaptureNote = o.envNote
}

// relayedEnvironment prefers the capture rank 0's relay container carried (cellpod's
// EnvironmentContainer, in its own termination message) over the one in the summary, which
// grouped repeats squeeze out. The pod is the operator's marked pod (getPod) and only a
// container of its spec counts, so nothing else in the namespace can supply an environment.
// With no relay message yet (the relay ends just after the data plane) the summary's stands.
func relayedEnvironment(rank0 *corev1.Pod, fromSummary *summary.Env) (*summary.Env, string) {
	msg := cellpod.RelayMessage(rank0)
	if msg == "" {
		return fromSummary, ""
	}
	m, err := summary.ParseEnvMessage(msg)
	switch {
	case err != nil:
		return fromSummary, clip("the environment relay's message was not read: "+err.Error(), 250)
	case m.Env == nil:
		return fromSummary, clip(m.Note, 250)
	}
	return m.Env, clip(m.Truncated, 250)
}
