// Package controllers reconciles SpiralBench objects.
package controllers

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/plan"
)

// SpiralBenchReconciler plans each SpiralBench and keeps its status. All progress lives in
// status, so the reconciler holds no state and a restart loses nothing.
type SpiralBenchReconciler struct {
	client.Client
	Recorder events.EventRecorder
}

// +kubebuilder:rbac:groups=spiralbench.io,resources=spiralbenches,verbs=get;list;watch;update;patch;delete
// +kubebuilder:rbac:groups=spiralbench.io,resources=spiralbenches/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=spiralbench.io,resources=spiralbenches/finalizers,verbs=update
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile plans the bench and records the plan in status. Running cells comes with the
// execution engine; until then an accepted bench waits in phase Pending.
func (r *SpiralBenchReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	log := ctrl.LoggerFrom(ctx)
	var sb sbv1.SpiralBench
	if err := r.Get(ctx, req.NamespacedName, &sb); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	before := sb.DeepCopy()

	cells, err := plan.Expand(&sb.Spec)
	if err != nil {
		// Admission refuses what it can see; this catches anything it cannot.
		if setCondition(&sb, sbv1.ConditionAccepted, metav1.ConditionFalse, sbv1.ReasonInvalidSpec, err.Error()) {
			r.Recorder.Eventf(&sb, nil, corev1.EventTypeWarning, sbv1.ReasonInvalidSpec, "Plan", "%s", err.Error())
		}
		sb.Status.Phase = sbv1.PhaseFailed
		setCondition(&sb, sbv1.ConditionFailed, metav1.ConditionTrue, sbv1.ReasonInvalidSpec, err.Error())
	} else {
		r.recordPlan(&sb, cells)
	}
	sb.Status.ObservedGeneration = sb.Generation

	if equality.Semantic.DeepEqual(before.Status, sb.Status) {
		return ctrl.Result{}, nil
	}
	if err := r.Status().Patch(ctx, &sb, client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{})); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	log.V(1).Info("status updated", "phase", sb.Status.Phase, "cells", sb.Status.Cells.Total)
	return ctrl.Result{}, nil
}

func (r *SpiralBenchReconciler) recordPlan(sb *sbv1.SpiralBench, cells []plan.Cell) {
	total := int32(len(cells))
	headline := cells[0]
	for _, c := range cells {
		if c.Headline {
			headline = c
		}
	}
	msg := fmt.Sprintf("planned %d cells x %d repeats; headline cell %d: %s", total, repeats(sb), headline.Index, describe(sb.Spec.Transport, headline.CellParameters))
	if setCondition(sb, sbv1.ConditionAccepted, metav1.ConditionTrue, sbv1.ReasonPlanned, msg) {
		r.Recorder.Eventf(sb, nil, corev1.EventTypeNormal, sbv1.ReasonPlanned, "Plan", "%s", msg)
	}
	sb.Status.Cells.Total = total
	done := sb.Status.Cells.Succeeded + sb.Status.Cells.Failed + sb.Status.Cells.Invalid
	sb.Status.Progress = fmt.Sprintf("%d/%d", done, total)
	if sb.Status.Phase == "" {
		sb.Status.Phase = sbv1.PhasePending
		setCondition(sb, sbv1.ConditionRunning, metav1.ConditionFalse, sbv1.ReasonAwaitingRunner, "waiting for the cell runner to start the first cell")
	}
}

func repeats(sb *sbv1.SpiralBench) int32 {
	if sb.Spec.Run.Repeats > 0 {
		return sb.Spec.Run.Repeats
	}
	return 1
}

// describe renders a cell's parameters the way the seed's tables name them.
func describe(t sbv1.Transport, p sbv1.CellParameters) string {
	s := fmt.Sprintf("%s %d B", t, p.PayloadBytes)
	switch t {
	case sbv1.TransportRawEthernet:
		s += fmt.Sprintf(" batch %d queues (%d,%d)", p.Batch, p.Queues.TX, p.Queues.RX)
	case sbv1.TransportTCP, sbv1.TransportUDP:
		s += fmt.Sprintf(" x %d pairs", p.Pairs)
	}
	if p.TargetRateMbps > 0 {
		s += fmt.Sprintf(" at %d Mb/s", p.TargetRateMbps)
	}
	return s
}

// SetupWithManager registers the reconciler; status-only updates do not wake it.
func (r *SpiralBenchReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&sbv1.SpiralBench{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Named("spiralbench").
		Complete(r)
}
