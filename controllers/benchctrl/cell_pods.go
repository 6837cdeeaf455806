package benchctrl

import (
	"context"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/controllers/benchstate"
	"github.com/spiralbench/spiralbench/pkg/cellpod"
)

// Removing cell pods that belong to no current attempt.

// podBenchIndex indexes cell pods by their bench's name (namespaced by the cache): a label
// selector would test every pod of the namespace on each step of each bench.
const podBenchIndex = "spiralbench.io/bench"

func indexPodBench(o client.Object) []string {
	if b := o.GetLabels()[cellpod.LabelBench]; b != "" {
		return []string{b}
	}
	return nil
}

// cleanupPods deletes cell pods that belong to no current attempt (finished attempts, or
// cells already done). The next attempt's pods are kept: they may exist before status says so.
// It returns how long to wait for the deleted pods to be gone (0: none is left): the bench
// completes, and gives its nodes back, only once its pods have left them.
func (r *Reconciler) cleanupPods(ctx context.Context, sb *sbv1.SpiralBench) (time.Duration, error) {
	var pods corev1.PodList // read in place: every reconcile of a bench reads its pods
	if err := r.List(ctx, &pods, client.InNamespace(sb.Namespace), client.MatchingFields{podBenchIndex: sb.Name}, client.UnsafeDisableDeepCopy); err != nil {
		return 0, err
	}
	var wait time.Duration
	for i := range pods.Items {
		p := &pods.Items[i]
		if !metav1.IsControlledBy(p, sb) || !benchstate.Trusted(r.Provenance, p) {
			continue // not ours to delete
		}
		cell, _ := strconv.Atoi(p.Labels[cellpod.LabelCell])
		attempt, _ := strconv.Atoi(p.Labels[cellpod.LabelAttempt])
		if keepPod(sb, int32(cell), int32(attempt)) {
			continue
		}
		wait = max(wait, leaving(p))
		if p.DeletionTimestamp != nil {
			continue
		}
		if err := r.Delete(ctx, p, client.PropagationPolicy(metav1.DeletePropagationBackground)); err != nil && !apierrors.IsNotFound(err) {
			return 0, err
		}
	}
	return wait, nil
}

// podGoneSlack bounds the wait for a deleted pod beyond its grace period: a pod on a node that
// stopped answering never goes, and the bench must not wait for it forever.
const podGoneSlack = 10 * time.Second

// leaving is how long to wait for a pod that is being removed: none once its containers have
// ended (its phase is terminal), else until its deletion's deadline (the grace period's end)
// plus the slack.
func leaving(p *corev1.Pod) time.Duration {
	switch {
	case p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed:
		return 0
	case p.DeletionTimestamp == nil: // deleted now
		return time.Duration(ptr.Deref(p.Spec.TerminationGracePeriodSeconds, 30))*time.Second + podGoneSlack
	}
	return max(time.Until(p.DeletionTimestamp.Add(podGoneSlack)), 0)
}

func keepPod(sb *sbv1.SpiralBench, cell, attempt int32) bool {
	if a := sb.Status.ActiveAttempt; a != nil {
		return a.CellIndex == cell && a.Attempt == attempt
	}
	for _, res := range sb.Status.CellResults {
		if res.Index == cell {
			return !finishedState(res.State) && attempt == res.Attempts
		}
	}
	return attempt == 0 // a first attempt whose start was not recorded yet
}

// deleteAllPods removes every cell pod of the bench (deletion, suspension of a dead attempt):
// the pods the manager created for it, not whatever else carries its label. The apiserver's
// list, not the cache's: a pod created a moment ago goes too. A finished bench creates no more
// pods and its last ones were seen ending, so its pods are read from the cache's index, in
// place: a fleet deletes its last round's benches as the next round starts, a list from the
// apiserver per bench.
func (r *Reconciler) deleteAllPods(ctx context.Context, sb *sbv1.SpiralBench) error {
	var pods corev1.PodList
	var err error
	if benchstate.Finished(sb) {
		err = r.List(ctx, &pods, client.InNamespace(sb.Namespace), client.MatchingFields{podBenchIndex: sb.Name}, client.UnsafeDisableDeepCopy)
	} else {
		err = r.APIReader.List(ctx, &pods, client.InNamespace(sb.Namespace), client.MatchingLabels{cellpod.LabelBench: sb.Name})
	}
	if err != nil {
		return err
	}
	for i := range pods.Items {
		p := &pods.Items[i]
		if p.DeletionTimestamp != nil || !metav1.IsControlledBy(p, sb) || !benchstate.Trusted(r.Provenance, p) {
			continue
		}
		if err := r.Delete(ctx, p, client.PropagationPolicy(metav1.DeletePropagationBackground)); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	return nil
}
