package benchctrl

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/benchkind"
)

// Exclusivity: one coordination.k8s.io Lease per node, named after it, in the operator's
// namespace. A bench holds the leases of its nodes from its first cell to its last, so two
// benches never share a node (and its NICs) at the same time; each hold lasts one attempt and
// is renewed with the next (lease_hold.go).

const leasePrefix = "spiralbench-node-"

// labelHolderUID marks a lease with its holder's UID, so a deleted bench's finalizer finds
// every lease it holds even when status never recorded them.
const labelHolderUID = "spiralbench.io/holder-uid"

// holderID names a bench in a lease; the UID tells a re-created bench of the same name apart.
func holderID(sb *sbv1.SpiralBench) string {
	return sb.Namespace + "/" + sb.Name + "/" + string(sb.UID)
}

func nodeBusy(node, holder string) error {
	parts := strings.Split(holder, "/")
	who := "another SpiralBench"
	if len(parts) == 3 {
		who = "SpiralBench " + parts[0] + "/" + parts[1]
	}
	return &queuedError{fmt.Sprintf("node %s is in use by %s", node, who)}
}

// acquireNodes picks the bench's nodes (once; they are kept in status) and takes their leases.
// It returns a *queuedError when a node is held by another running bench or none fits.
func (r *Reconciler) acquireNodes(ctx context.Context, sb *sbv1.SpiralBench) error {
	nodes := sb.Status.Nodes
	if len(nodes) == 0 {
		var err error
		if nodes, err = r.chooseNodes(ctx, sb); err != nil {
			return err
		}
	}
	for i, n := range nodes {
		if slices.Contains(nodes[:i], n) {
			continue // one lease per node, however many ranks it runs
		}
		if err := r.takeLease(ctx, sb, n); err != nil {
			// All or nothing: never sit on one node while waiting for another.
			r.releaseNodes(ctx, sb, nodes[:i])
			return err
		}
	}
	sb.Status.Nodes = nodes
	return nil
}

// chooseNodes picks a node for each of the bench's node slots (benchkind.NodeSlots: one for
// Loopback, the server's and the client's for CrossNode): its nodeName, else the first matching
// Ready node (by name) that offers what the slot's pods ask (node_resources.go), whose lease is
// free and that no earlier slot took; either only when no older bench waits for it
// (queue_order.go).
func (r *Reconciler) chooseNodes(ctx context.Context, sb *sbv1.SpiralBench) ([]string, error) {
	var nodes []string
	need := needs(sb)
	for i, p := range benchkind.NodeSlots(&sb.Spec) {
		var slot slotNeed
		if i < len(need) {
			slot = need[i]
		}
		n, err := r.chooseNode(ctx, sb, p, slot, nodes)
		if err != nil {
			return nil, err
		}
		nodes = append(nodes, n)
	}
	return nodes, nil
}

func (r *Reconciler) chooseNode(ctx context.Context, sb *sbv1.SpiralBench, p *sbv1.Placement, need slotNeed, avoid []string) (string, error) {
	if p != nil && p.NodeName != "" {
		node, err := r.nodeByName(ctx, p.NodeName)
		if err != nil {
			return "", err
		}
		if err := r.olderWaiting(ctx, sb, p.NodeName, node); err != nil {
			return "", err
		}
		return p.NodeName, nil
	}
	var list corev1.NodeList // read-only: no copy of every node a reconcile
	if err := r.List(ctx, &list, client.UnsafeDisableDeepCopy); err != nil {
		return "", err
	}
	var candidates []*corev1.Node
	for i := range list.Items {
		n := &list.Items[i]
		if fits(ctx, p, n) && offers(n, need) && !slices.Contains(avoid, n.Name) {
			candidates = append(candidates, n)
		}
	}
	if len(candidates) == 0 {
		sel := "any node"
		if p != nil && len(p.NodeSelector) > 0 {
			sel = "nodeSelector " + labels.SelectorFromSet(p.NodeSelector).String()
		}
		offering := ""
		if need.total != nil {
			offering = " offering what the bench's pods ask"
		}
		return "", &queuedError{"no Ready, schedulable node with tolerated taints" + offering + " matches " + sel}
	}
	sort.Slice(candidates, func(i, j int) bool { return candidates[i].Name < candidates[j].Name })
	var firstBusy error
	for _, c := range candidates {
		err := r.leaseBusy(ctx, sb, c.Name)
		if err == nil {
			err = r.olderWaiting(ctx, sb, c.Name, c)
		}
		var q *queuedError
		switch {
		case err == nil:
			return c.Name, nil
		case !errors.As(err, &q):
			return "", err
		case firstBusy == nil:
			firstBusy = err
		}
	}
	return "", firstBusy
}

// leaseBusy is nil when sb may take node's lease (none, sb's, or its holder ended), and a
// *queuedError naming the holder otherwise.
func (r *Reconciler) leaseBusy(ctx context.Context, sb *sbv1.SpiralBench, node string) error {
	var lease coordinationv1.Lease
	err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: r.LeaseNamespace, Name: leasePrefix + node}, &lease)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	holder := ptr.Deref(lease.Spec.HolderIdentity, "")
	if holder == holderID(sb) || leaseExpired(&lease, time.Now()) || !r.holderRunning(ctx, holder) {
		return nil
	}
	return nodeBusy(node, holder)
}

// takeLease creates or takes over a node's lease. Reads bypass the cache: two benches racing
// for a node must see each other's writes, and the apiserver's resourceVersion check decides.
func (r *Reconciler) takeLease(ctx context.Context, sb *sbv1.SpiralBench, node string) error {
	me := holderID(sb)
	now := metav1.NewMicroTime(time.Now())
	var lease coordinationv1.Lease
	key := client.ObjectKey{Namespace: r.LeaseNamespace, Name: leasePrefix + node}
	if taken, err := r.takeLeft(ctx, sb, key, node, now); taken || err != nil {
		return err
	}
	create := func() error {
		lease = r.newLease(sb, key, now)
		if err := r.Create(ctx, &lease); err != nil {
			return err
		}
		r.markTaken(node)
		r.leaseVersions.wrote(node, me, &lease)
		return nil
	}
	if len(sb.Status.Nodes) == 0 {
		// A first hold: a lease nobody held yet, or one given back by deletion, is created, which
		// saves the read (a request per bench, at fleet scale per node and step).
		if err := create(); !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	err := r.APIReader.Get(ctx, key, &lease)
	if apierrors.IsNotFound(err) {
		if err := create(); err != nil {
			if apierrors.IsAlreadyExists(err) {
				return nodeBusy(node, "")
			}
			return err
		}
		return nil
	}
	if err != nil {
		return err
	}
	holder := ptr.Deref(lease.Spec.HolderIdentity, "")
	if holder == me {
		return nil
	}
	if !leaseExpired(&lease, now.Time) && r.holderRunning(ctx, holder) {
		return nodeBusy(node, holder)
	}
	if err := r.takeOver(ctx, sb, node, &lease, now); err != nil {
		if apierrors.IsConflict(err) {
			return nodeBusy(node, "")
		}
		return err
	}
	return nil
}

// markTaken notes a hold taken in this reconcile (none outside one).
func (r *Reconciler) markTaken(node string) {
	if r.takenNow != nil {
		r.takenNow[node] = true
	}
}

// holderRunning is false when the lease's holder was deleted, re-created or has finished:
// such a lease is stale and may be taken over (as is an expired one, lease_hold.go).
func (r *Reconciler) holderRunning(ctx context.Context, holder string) bool {
	parts := strings.Split(holder, "/")
	if len(parts) != 3 {
		return false
	}
	if r.cachedHolderEnded(ctx, parts[0], parts[1], parts[2]) {
		return false
	}
	var other sbv1.SpiralBench
	if err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: parts[0], Name: parts[1]}, &other); err != nil {
		return !apierrors.IsNotFound(err) // on other errors, assume it runs: never double-book
	}
	return string(other.UID) == parts[2] && !holderEnded(&other)
}

// releaseNodes deletes the leases this bench holds: as last written by this manager when it
// still is (leaseVersions), else after reading that the bench still holds it.
func (r *Reconciler) releaseNodes(ctx context.Context, sb *sbv1.SpiralBench, nodes []string) {
	for _, n := range nodes {
		key := client.ObjectKey{Namespace: r.LeaseNamespace, Name: leasePrefix + n}
		if version, ok := r.leaseVersions.take(n, holderID(sb)); ok {
			mine := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: key.Name, Namespace: key.Namespace}}
			if err := r.Delete(ctx, mine, client.Preconditions{ResourceVersion: &version}); err == nil || apierrors.IsNotFound(err) {
				continue
			}
		}
		var lease coordinationv1.Lease
		if err := r.APIReader.Get(ctx, key, &lease); err != nil {
			continue
		}
		if ptr.Deref(lease.Spec.HolderIdentity, "") != holderID(sb) {
			continue
		}
		_ = r.Delete(ctx, &lease, client.Preconditions{ResourceVersion: &lease.ResourceVersion})
	}
}

// releaseAllHeld deletes every lease labelled with this bench's UID.
func (r *Reconciler) releaseAllHeld(ctx context.Context, sb *sbv1.SpiralBench) error {
	if r.releaseRemembered(ctx, sb) {
		return nil
	}
	var leases coordinationv1.LeaseList
	if err := r.APIReader.List(ctx, &leases, client.InNamespace(r.LeaseNamespace), client.MatchingLabels{labelHolderUID: string(sb.UID)}); err != nil {
		return err
	}
	for i := range leases.Items {
		l := &leases.Items[i]
		if ptr.Deref(l.Spec.HolderIdentity, "") != holderID(sb) {
			continue
		}
		if err := r.Delete(ctx, l, client.Preconditions{ResourceVersion: &l.ResourceVersion}); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		r.leaseVersions.forget(strings.TrimPrefix(l.Name, leasePrefix))
	}
	return nil
}

// leaseExpired reports whether the hold has run out. A lease without renewTime or duration
// (written by an older manager) does not expire.
func leaseExpired(l *coordinationv1.Lease, now time.Time) bool {
	if l.Spec.RenewTime == nil || l.Spec.LeaseDurationSeconds == nil {
		return false
	}
	return now.After(l.Spec.RenewTime.Add(time.Duration(*l.Spec.LeaseDurationSeconds) * time.Second))
}

// releaseRemembered releases the leases of the bench's nodes from what this manager last wrote
// of them, without a read: a lease last written for another holder (the fleet's next step on
// the node took it over) is not the bench's, one written for it is deleted as written. False
// when a node's lease is not remembered or was written since by someone else: the caller
// lists the leases labelled with the bench instead. A fleet deletes its last round's benches
// as the next round starts: a list per bench.
func (r *Reconciler) releaseRemembered(ctx context.Context, sb *sbv1.SpiralBench) bool {
	nodes := sb.Status.Nodes
	written := make([]leaseVersion, len(nodes))
	for i, n := range nodes {
		v, ok := r.leaseVersions.last(n)
		if !ok {
			return false
		}
		written[i] = v
	}
	for i, n := range nodes {
		v := written[i]
		if v.holder != holderID(sb) {
			continue
		}
		mine := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: leasePrefix + n, Namespace: r.LeaseNamespace}}
		err := r.Delete(ctx, mine, client.Preconditions{ResourceVersion: &v.version})
		if err != nil && !apierrors.IsNotFound(err) {
			return false // written since (a conflict): what is remembered now is that write's
		}
		r.leaseVersions.deleted(n, v) // the node's other benches, deleted beside it, read nothing either
	}
	return len(nodes) > 0
}
