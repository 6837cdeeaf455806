package testing

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/acceptance"
)

// FinishedBench is a bench in phase with the given cells, its Passed condition set to passed
// ("broken: line-rate") and a Failed condition ("invalid spec") for phase Failed to report.
func FinishedBench(phase sbv1.Phase, passed metav1.ConditionStatus, cells ...sbv1.CellResult) *sbv1.SpiralBench {
	sb := &sbv1.SpiralBench{Status: sbv1.SpiralBenchStatus{Phase: phase, CellResults: cells}}
	sb.Status.Conditions = []metav1.Condition{
		{Type: sbv1.ConditionPassed, Status: passed, Message: "broken: line-rate"},
		{Type: sbv1.ConditionFailed, Status: metav1.ConditionTrue, Message: "invalid spec"},
	}
	return sb
}

// DecidedBench is a completed TCP bench whose Passed condition acceptance.Decide wrote.
func DecidedBench(acc *sbv1.AcceptanceSpec, cells ...sbv1.CellResult) *sbv1.SpiralBench {
	sb := &sbv1.SpiralBench{Status: sbv1.SpiralBenchStatus{Phase: sbv1.PhaseCompleted, CellResults: cells,
		Cells: sbv1.CellCounts{Total: int32(len(cells))}}}
	sb.Spec.Transport, sb.Spec.Acceptance = sbv1.TransportTCP, acc
	v := acceptance.Decide(sb)
	status := map[bool]metav1.ConditionStatus{true: metav1.ConditionTrue, false: metav1.ConditionFalse}[v.Passed]
	sb.Status.Conditions = []metav1.Condition{{Type: sbv1.ConditionPassed, Status: status, Reason: v.Reason, Message: v.Message}}
	return sb
}
