package benchctrl

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/benchkind"
)

// Unschedulable benches: a bench whose pods ask for a device, GPUs or huge pages that no node
// its placement allows offers does not start. Before an attempt's pods exist the ranks' requests
// are compared with the cached nodes' allocatable (node_resources.go); when they cannot be met
// the bench waits in Queued with Running=False, reason Unschedulable, holding no node lease, and
// looks again every unschedulableRetry. Nothing in the spec says to fail instead: a device
// plugin deployed or a node added later lets it run, as a missing results Secret created later
// does (results_preflight.go). A fleet's bench is the exception (fleetsBench): it fails at once.

// ReasonUnschedulable: no node the bench may use offers what its pods ask for.
const ReasonUnschedulable = "Unschedulable"

// unschedulableRetry is how often an Unschedulable bench looks at the nodes again. Nodes gain
// devices rarely and no Node event wakes a bench; an edit of the bench (its annotations) does.
const unschedulableRetry = time.Minute

// schedulable checks that the nodes can run the next attempt's pods. ok is false while the bench
// must wait; wait is when to look again. A bench holding nodes that no longer offer what it asks
// (a device plugin gone) gives them back once the last attempt's pods have left them (leaving),
// then looks at every node its placement allows, as a bench holding none does.
func (r *Reconciler) schedulable(ctx context.Context, sb *sbv1.SpiralBench, leaving time.Duration) (wait time.Duration, ok bool, err error) {
	need := needs(sb)
	if need == nil {
		return 0, true, nil
	}
	why, err := r.cannotRun(ctx, sb, need)
	if err != nil || why == "" {
		return 0, err == nil, err
	}
	if len(sb.Status.Nodes) > 0 {
		if leaving > 0 {
			return leaving, false, nil // the last attempt's pods are still on them
		}
		r.releaseNodes(ctx, sb, sb.Status.Nodes)
		sb.Status.Nodes = nil
		if why, err = r.cannotRun(ctx, sb, need); err != nil || why == "" {
			return 0, err == nil, err // another node offers it: take that one
		}
	}
	r.unschedulable(sb, why)
	return unschedulableRetry, false, nil
}

// unschedulable puts the bench in Queued with Running=False, reason Unschedulable, and says so
// in a Warning event when the reason or the message is new; a fleet's bench fails instead.
func (r *Reconciler) unschedulable(sb *sbv1.SpiralBench, why string) {
	if fleetsBench(sb) {
		msg := clip("Unschedulable: "+why+"; a fleet's bench fails rather than waits, so the node gets its verdict", 1000)
		now := metav1.Now()
		sb.Status.Phase, sb.Status.CompletionTime = sbv1.PhaseFailed, &now
		setCondition(sb, sbv1.ConditionRunning, metav1.ConditionFalse, ReasonUnschedulable, msg)
		if setCondition(sb, sbv1.ConditionFailed, metav1.ConditionTrue, ReasonUnschedulable, msg) {
			r.Recorder.Eventf(sb, nil, corev1.EventTypeWarning, ReasonUnschedulable, "Queue", "%s", msg)
		}
		return
	}
	msg := clip("Unschedulable: "+why+"; the bench waits without a node and looks again every minute", 1000)
	before := meta.FindStatusCondition(sb.Status.Conditions, sbv1.ConditionRunning)
	if before == nil || before.Reason != ReasonUnschedulable || before.Message != msg {
		r.Recorder.Eventf(sb, nil, corev1.EventTypeWarning, ReasonUnschedulable, "Queue", "%s", msg)
	}
	setCondition(sb, sbv1.ConditionRunning, metav1.ConditionFalse, ReasonUnschedulable, msg)
	sb.Status.Phase = sbv1.PhaseQueued
}

// cannotRun says why the bench's pods cannot run, "" when they can: for each node slot, the
// node it holds, else its placement's nodeName, else every node its placement matches (Ready or
// not: a node that is down now offers its devices again when it is back). A slot no node matches
// at all is left to chooseNodes, which says so.
func (r *Reconciler) cannotRun(ctx context.Context, sb *sbv1.SpiralBench, need []slotNeed) (string, error) {
	var listed []corev1.Node
	var whys []string
	for i, p := range benchkind.NodeSlots(&sb.Spec) {
		if i >= len(need) || need[i].total == nil {
			continue
		}
		named := ""
		switch {
		case i < len(sb.Status.Nodes):
			named = sb.Status.Nodes[i]
		case p != nil && p.NodeName != "":
			named = p.NodeName
		}
		var nodes []*corev1.Node
		if named != "" {
			n, err := r.nodeByName(ctx, named)
			if err != nil {
				return "", err
			}
			if n != nil {
				nodes = append(nodes, n)
			}
		} else {
			if listed == nil {
				var list corev1.NodeList
				if err := r.List(ctx, &list); err != nil {
					return "", err
				}
				listed = list.Items
			}
			for j := range listed {
				if placedOn(ctx, p, &listed[j], true) {
					nodes = append(nodes, &listed[j])
				}
			}
		}
		if len(nodes) == 0 {
			continue
		}
		if why := unoffered(need[i], nodes); why != "" {
			if named != "" {
				whys = append(whys, fmt.Sprintf("node %s does not offer %s", named, why))
			} else {
				whys = append(whys, "no node offers "+why)
			}
		}
	}
	return strings.Join(whys, "; "), nil
}

// fleetsBench: the bench was made by a SpiralBenchFleet for a named node. A node without the
// devices its template asks for is what a fleet is there to find, and waiting would hold the
// fleet's round for good (a template step has no deadline) with no verdict for the node.
func fleetsBench(sb *sbv1.SpiralBench) bool {
	owner := metav1.GetControllerOf(sb)
	return owner != nil && owner.Kind == "SpiralBenchFleet" && owner.APIVersion == sbv1.GroupVersion.String()
}
