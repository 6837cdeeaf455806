package benchctrl

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/cellpod"
)

// An attempt's pod that the scheduler cannot place for want of resources ("0/3 nodes are
// available: 1 Insufficient nvidia.com/gpu, ...") ends its attempt early with the scheduler's
// words, instead of at the attempt's deadline (deadlineReason) with the same words a minute or
// more later.

// unschedulableGrace is how long a pod may wait for resources its node does offer before its
// attempt ends. The scheduler counts the previous attempt's pods against the node until their
// phase is terminal, and the next attempt starts as soon as their containers exit: a GPU or
// device bench's next pods are often Unschedulable for a moment between cells. Those pods go
// within their grace period and the slack (cell_pods.go), and the scheduler retries within its
// 10 s backoff of their going.
const unschedulableGrace = 30 * time.Second

// starved returns a pod's PodScheduled condition when the scheduler found no node with room
// for its requests; nil otherwise.
func starved(p *corev1.Pod) *corev1.PodCondition {
	if p.Spec.NodeName != "" {
		return nil // bound since
	}
	for i := range p.Status.Conditions {
		c := &p.Status.Conditions[i]
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse &&
			c.Reason == corev1.PodReasonUnschedulable && strings.Contains(c.Message, "Insufficient ") {
			return c
		}
	}
	return nil
}

// unschedulableEnd says whether the attempt ends because one of its pods cannot be scheduled
// for want of resources: at once when the pod's leased node does not offer what the bench's pods
// on it ask (no wait can help; the next step gives the node back, unschedulable.go), else once
// the pod has waited unschedulableGrace. Otherwise retry is when to look again (0: no pod waits
// for resources).
func (r *Reconciler) unschedulableEnd(ctx context.Context, sb *sbv1.SpiralBench, in cellpod.Input, pods []*corev1.Pod) (reason string, retry time.Duration, err error) {
	var need []slotNeed
	for i, p := range pods {
		if p == nil || i >= len(in.Ranks) {
			continue
		}
		c := starved(p)
		if c == nil {
			continue
		}
		rank := in.Ranks[i]
		if rank.Node < len(in.Nodes) {
			if need == nil {
				need = needs(sb)
			}
			node, err := r.nodeByName(ctx, in.Nodes[rank.Node])
			if err != nil {
				return "", 0, err
			}
			if node != nil && rank.Node < len(need) && !offers(node, need[rank.Node]) {
				return fmt.Sprintf("the %s pod cannot be scheduled: node %s does not offer %s; the scheduler: %s",
					rank.Name, node.Name, unoffered(need[rank.Node], []*corev1.Node{node}), c.Message), 0, nil
			}
		}
		left := unschedulableGrace - time.Since(c.LastTransitionTime.Time)
		if left <= 0 {
			return fmt.Sprintf("the %s pod cannot be scheduled (for %s): %s", rank.Name, unschedulableGrace, c.Message), 0, nil
		}
		if retry == 0 || left < retry {
			retry = left
		}
	}
	return "", retry, nil
}
