package benchctrl

import (
	"context"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// A bench that completes leaves its nodes' leases in place rather than deleting them: a lease
// whose holder has finished is free (holderRunning), so the next bench on the node (a fleet's
// next step) takes it over with one write where a delete and a create took two. This manager
// remembers the version it left (leaseVersions), so that takeover needs no read; after a
// restart, or when someone wrote the lease since, the takeover reads it as before. Leases
// given back for any other reason (suspension, failure, deletion) are still deleted.

// leaveNodes hands the bench's leases on at completion: nothing is written.
func (r *Reconciler) leaveNodes(sb *sbv1.SpiralBench, nodes []string) {
	for _, n := range nodes {
		r.leaseVersions.leave(n, holderID(sb))
	}
}

// newLease is node's lease held by sb from now.
func (r *Reconciler) newLease(sb *sbv1.SpiralBench, key client.ObjectKey, now metav1.MicroTime) coordinationv1.Lease {
	me := holderID(sb)
	lease := coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: key.Name, Namespace: key.Namespace, Labels: map[string]string{
			"app.kubernetes.io/name": "spiralbench", labelHolderUID: string(sb.UID),
		}},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &me, AcquireTime: &now},
	}
	r.hold(&lease, sb)
	return lease
}

// takeLeft takes over the lease a finished bench left on node, as this manager last wrote it,
// without reading it. False (and no error) when there is none to take this way: the caller
// reads the lease instead.
func (r *Reconciler) takeLeft(ctx context.Context, sb *sbv1.SpiralBench, key client.ObjectKey, node string, now metav1.MicroTime) (bool, error) {
	left, ok := r.leaseVersions.leftOn(node)
	if !ok {
		return false, nil
	}
	lease := r.newLease(sb, key, now)
	lease.ResourceVersion = left.version
	lease.Spec.LeaseTransitions = ptr.To(left.transitions)
	if err := r.takeOver(ctx, sb, node, &lease, now); err != nil {
		r.leaseVersions.forget(node)
		if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
			return false, nil // changed or deleted since: read it
		}
		return false, err
	}
	return true, nil
}

// takeOver writes lease, as read or as last written, held by sb from now: one update whose
// resourceVersion precondition fails if anyone wrote the lease since.
func (r *Reconciler) takeOver(ctx context.Context, sb *sbv1.SpiralBench, node string, lease *coordinationv1.Lease, now metav1.MicroTime) error {
	me := holderID(sb)
	lease.Spec.HolderIdentity, lease.Spec.AcquireTime = &me, &now
	r.hold(lease, sb)
	if lease.Labels == nil {
		lease.Labels = map[string]string{}
	}
	lease.Labels[labelHolderUID] = string(sb.UID)
	lease.Spec.LeaseTransitions = ptr.To(ptr.Deref(lease.Spec.LeaseTransitions, 0) + 1)
	if err := r.Update(ctx, lease); err != nil {
		return err
	}
	r.markTaken(node)
	r.leaseVersions.wrote(node, me, lease)
	return nil
}

// cachedHolderEnded says, from the cache alone, that a lease's holder has finished or is being
// deleted: a finished bench never runs again, so a cache that shows it is not stale in a way
// that matters. Anything else (running, not cached yet) is for the apiserver to answer.
func (r *Reconciler) cachedHolderEnded(ctx context.Context, ns, name, uid string) bool {
	var other sbv1.SpiralBench
	if err := r.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &other); err != nil || string(other.UID) != uid {
		return false
	}
	return holderEnded(&other)
}

// holderEnded: a lease held by this bench is stale and may be taken over.
func holderEnded(sb *sbv1.SpiralBench) bool {
	switch sb.Status.Phase {
	case sbv1.PhaseCompleted, sbv1.PhaseFailed, sbv1.PhaseSuspended:
		return true
	}
	return sb.DeletionTimestamp != nil
}
