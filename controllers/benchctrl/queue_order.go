package benchctrl

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/benchkind"
)

// Queue order: benches waiting for the same node start in creation order. Every waiting bench
// retries its lease on its own clock (queuedRetry), so without an order the first to look
// after a release wins, and an old bench can wait behind any number of newer ones. A bench
// takes a node only when no older bench waits that could run on it.

// WaitingIndex indexes the SpiralBenches that wait for nodes (not started, or suspended and
// resumed, holding none, not deleted) by the nodes they could take: the nodeName of each of
// their node slots, anyNode for a slot placed by selector. A bench looking at a node reads
// only the benches that name it or could take any node, not every waiting bench: a fleet's
// hundreds of benches in flight each name their own node.
const WaitingIndex = "spiralbench.io/waiting-for"

// anyNode is WaitingIndex's value for a node slot without a nodeName.
const anyNode = "*"

// WaitingValue is WaitingIndex's values for a waiting bench, nothing for the others.
func WaitingValue(o client.Object) []string {
	sb, ok := o.(*sbv1.SpiralBench)
	if !ok || !waiting(sb) {
		return nil
	}
	var out []string
	for _, p := range benchkind.NodeSlots(&sb.Spec) {
		v := anyNode
		if p != nil && p.NodeName != "" {
			v = p.NodeName
		}
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

func waiting(sb *sbv1.SpiralBench) bool {
	switch sb.Status.Phase {
	case "", sbv1.PhasePending, sbv1.PhaseQueued:
	default:
		return false
	}
	// A bench the results preflight holds (results_preflight.go) waits for its Secret, not for
	// a node: it would hold the queue for as long as the Secret is missing.
	return len(sb.Status.Nodes) == 0 && sb.DeletionTimestamp == nil && !ptr.Deref(sb.Spec.Suspend, false) &&
		!meta.IsStatusConditionFalse(sb.Status.Conditions, sbv1.ConditionResultsReady)
}

// before orders benches by creation time, then namespace and name (creation times have
// seconds only).
func before(a, b *sbv1.SpiralBench) bool {
	if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		return a.CreationTimestamp.Before(&b.CreationTimestamp)
	}
	if a.Namespace != b.Namespace {
		return a.Namespace < b.Namespace
	}
	return a.Name < b.Name
}

// olderWaiting returns a *queuedError naming the oldest bench created before sb that waits
// and could run on node (its nodeName, or its selector, affinity and tolerations fit the
// node); nil when there is none. node may be nil (not found): only nodeName then matches. A
// bench that no set of Ready nodes could place (a CrossNode bench on a one-node pool) holds
// nothing back: it would hold the queue for ever.
func (r *Reconciler) olderWaiting(ctx context.Context, sb *sbv1.SpiralBench, name string, node *corev1.Node) error {
	var older []*sbv1.SpiralBench
	for _, key := range []string{name, anyNode} {
		// Read-only: the cache's own objects, not copies of every waiting bench.
		var list sbv1.SpiralBenchList
		if err := r.List(ctx, &list, client.MatchingFields{WaitingIndex: key}, client.UnsafeDisableDeepCopy); err != nil {
			return err
		}
		for i := range list.Items {
			o := &list.Items[i]
			if o.UID != sb.UID && waiting(o) && before(o, sb) && wants(ctx, o, name, node) &&
				!slices.ContainsFunc(older, func(b *sbv1.SpiralBench) bool { return b.UID == o.UID }) {
				older = append(older, o)
			}
		}
	}
	if len(older) == 0 {
		return nil
	}
	// The nodes only for a bench not pinned to its nodes, and read in place: a fleet's benches
	// are pinned, and a copy of a 10,000-node list per reconcile was the manager's garbage.
	var nodes corev1.NodeList
	if slices.ContainsFunc(older, unpinned) {
		if err := r.List(ctx, &nodes, client.UnsafeDisableDeepCopy); err != nil {
			return err
		}
	}
	var first *sbv1.SpiralBench
	for _, o := range older {
		if (first == nil || before(o, first)) && placeable(ctx, o, nodes.Items) {
			first = o
		}
	}
	if first == nil {
		return nil
	}
	return &queuedError{fmt.Sprintf("node %s is next for SpiralBench %s/%s, created earlier and waiting for it", name, first.Namespace, first.Name)}
}

// wants says whether one of the bench's node slots could run on the node. A node that lacks a
// device or huge pages the slot's pods ask for is not wanted (node_resources.go): a bench no
// node can run (Unschedulable) holds nothing back.
func wants(ctx context.Context, sb *sbv1.SpiralBench, name string, node *corev1.Node) bool {
	need := needs(sb)
	for i, p := range benchkind.NodeSlots(&sb.Spec) {
		if node != nil && i < len(need) && !offers(node, need[i]) {
			continue
		}
		if p != nil && p.NodeName != "" && p.NodeName == name || (p == nil || p.NodeName == "") && node != nil && fits(ctx, p, node) {
			return true
		}
	}
	return false
}

// unpinned says whether a node slot of sb is placed by selector, not by name.
func unpinned(sb *sbv1.SpiralBench) bool {
	for _, p := range benchkind.NodeSlots(&sb.Spec) {
		if p == nil || p.NodeName == "" {
			return true
		}
	}
	return false
}

// placeable says whether the bench's slots could all get distinct nodes, leases aside, as
// chooseNodes picks them: a named node, else the first fitting node that offers what the slot
// asks and no earlier slot took.
func placeable(ctx context.Context, sb *sbv1.SpiralBench, nodes []corev1.Node) bool {
	var taken []string
	need := needs(sb)
	for s, p := range benchkind.NodeSlots(&sb.Spec) {
		if p != nil && p.NodeName != "" {
			taken = append(taken, p.NodeName)
			continue
		}
		found := ""
		for i := range nodes {
			n := &nodes[i]
			if (found == "" || n.Name < found) && !slices.Contains(taken, n.Name) && fits(ctx, p, n) && (s >= len(need) || offers(n, need[s])) {
				found = n.Name
			}
		}
		if found == "" {
			return false
		}
		taken = append(taken, found)
	}
	return true
}

// nodeByName reads a node from the cache; nil when it does not exist.
func (r *Reconciler) nodeByName(ctx context.Context, name string) (*corev1.Node, error) {
	var n corev1.Node
	if err := r.Get(ctx, client.ObjectKey{Name: name}, &n); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, err
	}
	return &n, nil
}

// queuedError says why a bench cannot start yet: its node is busy, or no node fits.
type queuedError struct{ msg string }

func (e *queuedError) Error() string { return e.msg }
