package benchctrl

import (
	"context"
	"slices"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/benchkind"
	"github.com/spiralbench/spiralbench/pkg/cellpod"
)

// How long a node's lease holds. A bench keeps its nodes from its first cell to its last, but
// each hold lasts one attempt: the lease's leaseDurationSeconds from its renewTime covers the
// bench's longest attempt (its deadline, the controller's slack and leaseMargin), and the lease
// is renewed only once the next attempt's first pod exists. A lease past that is expired and any
// bench may take the node, even from a holder still Running: one whose pods cannot be created
// or whose manager is gone never sits on a node past its deadline.

// leaseMargin covers the controller's own delay in noticing an attempt's end.
const leaseMargin = 30 * time.Second

// holdSeconds is a lease's duration for this bench.
func (r *Reconciler) holdSeconds(sb *sbv1.SpiralBench) int32 {
	attempt := time.Duration(cellpod.AttemptDeadlineSeconds(sb.Spec.Run, benchkind.RepeatsFrom(&sb.Spec, 0))) * time.Second
	return int32((attempt + r.deadlineSlack() + leaseMargin) / time.Second)
}

// hold stamps a lease as held by the bench from now.
func (r *Reconciler) hold(l *coordinationv1.Lease, sb *sbv1.SpiralBench) {
	now := metav1.NewMicroTime(time.Now())
	l.Spec.RenewTime, l.Spec.LeaseDurationSeconds = &now, ptr.To(r.holdSeconds(sb))
}

// renewLeases starts a new hold on each of the bench's nodes, after an attempt's first pod was
// created. It returns a *queuedError when another bench took a node after our hold expired.
func (r *Reconciler) renewLeases(ctx context.Context, sb *sbv1.SpiralBench) error {
	nodes := sb.Status.Nodes
	for i, n := range nodes {
		if slices.Contains(nodes[:i], n) || r.takenNow[n] {
			continue // a hold taken in this same step starts now: nothing to renew
		}
		var lease coordinationv1.Lease
		err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: r.LeaseNamespace, Name: leasePrefix + n}, &lease)
		if apierrors.IsNotFound(err) {
			if err := r.takeLease(ctx, sb, n); err != nil { // deleted by hand: hold it again
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		if holder := ptr.Deref(lease.Spec.HolderIdentity, ""); holder != holderID(sb) {
			return nodeBusy(n, holder)
		}
		r.hold(&lease, sb)
		if err := r.Update(ctx, &lease); err != nil {
			if apierrors.IsConflict(err) {
				return nodeBusy(n, "")
			}
			return err
		}
		r.leaseVersions.wrote(n, holderID(sb), &lease)
	}
	return nil
}
