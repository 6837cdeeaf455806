package controllers

import (
	"context"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/cellpod"
)

// Removing cell pods that belong to no current attempt.

// cleanupPods deletes cell pods that belong to no current attempt (finished attempts, or
// cells already done). The next attempt's pods are kept: they may exist before status says so.
func (r *SpiralBenchReconciler) cleanupPods(ctx context.Context, sb *sbv1.SpiralBench) error {
	var pods corev1.PodList
	if err := r.List(ctx, &pods, client.InNamespace(sb.Namespace), client.MatchingLabels{cellpod.LabelBench: sb.Name}); err != nil {
		return err
	}
	for i := range pods.Items {
		p := &pods.Items[i]
		if !metav1.IsControlledBy(p, sb) || p.DeletionTimestamp != nil {
			continue
		}
		cell, _ := strconv.Atoi(p.Labels[cellpod.LabelCell])
		attempt, _ := strconv.Atoi(p.Labels[cellpod.LabelAttempt])
		if keepPod(sb, int32(cell), int32(attempt)) {
			continue
		}
		if err := r.Delete(ctx, p, client.PropagationPolicy(metav1.DeletePropagationBackground)); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	return nil
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

// deleteAllPods removes every cell pod of the bench (deletion, suspension of a dead attempt).
func (r *SpiralBenchReconciler) deleteAllPods(ctx context.Context, sb *sbv1.SpiralBench) error {
	return r.DeleteAllOf(ctx, &corev1.Pod{}, client.InNamespace(sb.Namespace),
		client.MatchingLabels{cellpod.LabelBench: sb.Name}, client.PropagationPolicy(metav1.DeletePropagationBackground))
}
