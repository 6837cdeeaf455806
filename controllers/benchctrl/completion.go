package benchctrl

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/acceptance"
)

// complete ends the sweep: the verdict, the conditions, the leases.
func (r *Reconciler) complete(ctx context.Context, sb *sbv1.SpiralBench) {
	now := metav1.Now()
	sb.Status.CompletionTime = &now
	sb.Status.Phase = sbv1.PhaseCompleted
	updateCounts(sb)
	c := sb.Status.Cells
	msg := fmt.Sprintf("%d cells: %d valid, %d invalid, %d failed", c.Total, c.Succeeded, c.Invalid, c.Failed)
	setCondition(sb, sbv1.ConditionRunning, metav1.ConditionFalse, sbv1.ReasonAllCellsDone, msg)
	setCondition(sb, sbv1.ConditionCompleted, metav1.ConditionTrue, sbv1.ReasonAllCellsDone, msg)
	setCondition(sb, sbv1.ConditionFailed, metav1.ConditionFalse, sbv1.ReasonAllCellsDone, msg)
	if a := sb.Spec.Acceptance; a != nil && a.Baseline != nil {
		sb.Status.Baseline = r.readBaseline(ctx, sb, *a.Baseline)
	}
	v := acceptance.Decide(sb)
	status, kind := metav1.ConditionTrue, corev1.EventTypeNormal
	if !v.Passed {
		status, kind = metav1.ConditionFalse, corev1.EventTypeWarning
	}
	setCondition(sb, sbv1.ConditionPassed, status, v.Reason, clip(v.Message, 32000))
	// One event for the end and its verdict: at fleet scale every event per bench is an API
	// request per node (docs/benchmarks/fleet.md).
	r.Recorder.Eventf(sb, nil, kind, v.Reason, "Complete", "%s; %s", msg, clip(v.Message, 1000))
	r.leaveNodes(sb, sb.Status.Nodes)
}

// readBaseline reads the baseline bench's figures once, at completion: status (and the bucket)
// keep them, so the verdict can be judged again after the baseline bench is gone.
func (r *Reconciler) readBaseline(ctx context.Context, sb *sbv1.SpiralBench, spec sbv1.BaselineSpec) *sbv1.BaselineFigures {
	var base sbv1.SpiralBench
	if err := r.Get(ctx, client.ObjectKey{Namespace: sb.Namespace, Name: spec.SpiralBenchName}, &base); err != nil {
		return &sbv1.BaselineFigures{SpiralBenchName: spec.SpiralBenchName, Problem: clip(fmt.Sprintf("baseline %s: %v", spec.SpiralBenchName, err), 1000)}
	}
	f := acceptance.ReadBaseline(spec, sb.Status.CellResults, sb.Status.Environment, &base)
	f.Problem = clip(f.Problem, 1000)
	return &f
}
