package fleet

import (
	"fmt"
	"strings"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// stepStateWords orders the states after "passed" in a node's steps summary, with the words
// each is counted under.
var stepStateWords = []struct {
	state sbv1.StepRecordState
	words string
}{
	{sbv1.StepRecordExcused, "excused"}, {sbv1.StepRecordFailed, "failed"}, {sbv1.StepRecordInvalid, "invalid"},
	{sbv1.StepRecordDeadlineExceeded, "past deadline"}, {sbv1.StepRecordSkipped, "skipped"},
	{sbv1.StepRecordNoGPU, "no GPU"}, {sbv1.StepRecordMissing, "missing"},
}

// StepsSummary counts a node's step records for kubectl's Steps column: "3/3 passed, 2
// excused". An excused step counts as passed (it does not count against the node) and is
// named again, so "passed" never hides that a step did not run.
func StepsSummary(steps []sbv1.FleetStepRecord) string {
	if len(steps) == 0 {
		return ""
	}
	n := map[sbv1.StepRecordState]int{}
	for _, s := range steps {
		n[s.State]++
	}
	parts := []string{fmt.Sprintf("%d/%d passed", n[sbv1.StepRecordPassed]+n[sbv1.StepRecordExcused], len(steps))}
	for _, w := range stepStateWords {
		if n[w.state] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[w.state], w.words))
		}
	}
	return strings.Join(parts, ", ")
}

// StepCount is how one step ended over a round's decided nodes.
type StepCount struct {
	Step             string `json:"step"`
	Passed           int32  `json:"passed"`
	Failed           int32  `json:"failed"`
	Excused          int32  `json:"excused"`
	Invalid          int32  `json:"invalid,omitempty"`
	DeadlineExceeded int32  `json:"deadlineExceeded,omitempty"`
	Skipped          int32  `json:"skipped,omitempty"`
	NoGPU            int32  `json:"noGPU,omitempty"`
	Missing          int32  `json:"missing,omitempty"`
}

// StepCounts counts each step's outcomes over the nodes' records, in suite order (the order
// steps first appear in).
func StepCounts(nodes []sbv1.FleetNode) []StepCount {
	var out []StepCount
	at := map[string]int{}
	for _, n := range nodes {
		for _, s := range n.Steps {
			i, ok := at[s.Name]
			if !ok {
				i = len(out)
				at[s.Name] = i
				out = append(out, StepCount{Step: s.Name})
			}
			c := &out[i]
			switch s.State {
			case sbv1.StepRecordPassed:
				c.Passed++
			case sbv1.StepRecordFailed:
				c.Failed++
			case sbv1.StepRecordExcused:
				c.Excused++
			case sbv1.StepRecordInvalid:
				c.Invalid++
			case sbv1.StepRecordDeadlineExceeded:
				c.DeadlineExceeded++
			case sbv1.StepRecordSkipped:
				c.Skipped++
			case sbv1.StepRecordNoGPU:
				c.NoGPU++
			case sbv1.StepRecordMissing:
				c.Missing++
			}
		}
	}
	return out
}
