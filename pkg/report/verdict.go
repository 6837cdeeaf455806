package report

import (
	"encoding/json"

	"k8s.io/apimachinery/pkg/api/meta"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// VerdictFile keeps the live verdict and what it was decided from beyond the other files: the
// plan's cell count and the baseline's figures. pkg/runstore decides a run read back from the
// bucket with them, by the same acceptance.Decide, so it says what the live bench said.
const VerdictFile = "verdict.json"

// RecordedVerdict is verdict.json.
type RecordedVerdict struct {
	// Passed, Reason and Message are the live Passed condition's.
	Passed  bool   `json:"passed"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
	// PlannedCells is status.cells.total.
	PlannedCells int32 `json:"plannedCells"`
	// Baseline is status.baseline: the figures the baseline comparison used.
	Baseline *sbv1.BaselineFigures `json:"baseline,omitempty"`
}

// VerdictJSON renders verdict.json.
func VerdictJSON(sb *sbv1.SpiralBench) ([]byte, error) {
	v := RecordedVerdict{PlannedCells: sb.Status.Cells.Total, Baseline: sb.Status.Baseline}
	if c := meta.FindStatusCondition(sb.Status.Conditions, sbv1.ConditionPassed); c != nil {
		v.Passed, v.Reason, v.Message = c.Status == "True", c.Reason, c.Message
	}
	return json.MarshalIndent(v, "", "  ")
}
