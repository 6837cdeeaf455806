package benchstate

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/attempts"
	"github.com/spiralbench/spiralbench/pkg/cellpod"
	"github.com/spiralbench/spiralbench/pkg/provenance"
)

// Finalizer releases the bench's node leases and pods before it goes away.
const Finalizer = "spiralbench.io/release"

// OwnPodLabels mark SpiralBench's own pods (cell pods, a fleet's check pods): the pod cache keeps
// them whole and the fleet's idle check does not count them as another workload.
var OwnPodLabels = []string{cellpod.LabelBench, sbv1.LabelFleetStep}

// Finished: the bench ended, or the fleet ended it at its step's deadline.
func Finished(sb *sbv1.SpiralBench) bool {
	return sb.Status.Phase == sbv1.PhaseCompleted || sb.Status.Phase == sbv1.PhaseFailed || sb.Annotations[sbv1.AnnotationFleetDeadlineExceeded] != ""
}

// Terminated is the state of the pod's container once it has exited; the environment relay
// (cellpod.EnvironmentContainer) is not the pod's outcome and is never it.
func Terminated(p *corev1.Pod) *corev1.ContainerStateTerminated {
	for _, cs := range p.Status.ContainerStatuses {
		if cs.State.Terminated != nil && !cellpod.IsRelay(cs) {
			return cs.State.Terminated
		}
	}
	return nil
}

// PodEnded: the pod's container has exited (its termination message is final; restartPolicy is
// Never), or the pod is in a terminal phase. The kubelet reports the exit at its next relist,
// but the pod's terminal phase only once it has also stopped the pod's sandbox: judging on the
// exit keeps that teardown off the end of every cell.
func PodEnded(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed || Terminated(p) != nil
}

// PodFailed: the pod's phase is Failed, or its container exited with a non-zero code (the phase
// the kubelet will give it).
func PodFailed(p *corev1.Pod) bool {
	if p.Status.Phase == corev1.PodFailed {
		return true
	}
	t := Terminated(p)
	return t != nil && t.ExitCode != 0
}

// AttachCached attaches the bench's attempt results as the manager's cache has them and says
// how many of the attempts its status counts the cache lacks.
func AttachCached(ctx context.Context, c client.Reader, key *provenance.Key, sb *sbv1.SpiralBench) (int, error) {
	return attachCached(ctx, c, key, sb)
}

func attachCached(ctx context.Context, c client.Reader, key *provenance.Key, sb *sbv1.SpiralBench, opts ...client.ListOption) (int, error) {
	var list sbv1.SpiralBenchAttemptResultList
	opts = append(opts, client.InNamespace(sb.Namespace), client.MatchingFields{attempts.BenchIndex: sb.Namespace + "/" + sb.Name})
	if err := c.List(ctx, &list, opts...); err != nil {
		return 0, err
	}
	return attempts.Attach(sb, list.Items, OwnAttempt(key, sb)), nil
}

// CachedAttacher attaches a bench's attempt results from the cache for a reader that only
// shows them (the metrics): a cell whose records the cache lacks shows the stored figures.
// It reads the cache's own records, not copies: a scrape attaches every bench's, and nothing
// it feeds writes them (the repeats are copied into the cells; what they point to is read).
func CachedAttacher(c client.Reader, key *provenance.Key) func(context.Context, *sbv1.SpiralBench) {
	return func(ctx context.Context, sb *sbv1.SpiralBench) {
		_, _ = attachCached(ctx, c, key, sb, client.UnsafeDisableDeepCopy)
	}
}

// OwnAttempt trusts the records this manager wrote for sb.
func OwnAttempt(key *provenance.Key, sb *sbv1.SpiralBench) func(*sbv1.SpiralBenchAttemptResult) bool {
	return func(a *sbv1.SpiralBenchAttemptResult) bool { return metav1.IsControlledBy(a, sb) && Trusted(key, a) }
}
