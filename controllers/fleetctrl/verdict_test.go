package fleetctrl

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/fleet"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// The node's verdict is the bench's: a node passes exactly when the bench's Passed is True.
func TestBenchVerdictNamesWhatDecidedIt(t *testing.T) {
	valid := sbv1.CellResult{Index: 0, State: sbv1.CellValid, Repeats: 1}
	cases := []struct {
		sb     *sbv1.SpiralBench
		want   sbv1.NodeVerdict
		reason string
	}{
		{sbtesting.DecidedBench(nil, valid), sbv1.NodePassed, ""},
		{sbtesting.FinishedBench(sbv1.PhaseCompleted, metav1.ConditionFalse, valid), sbv1.NodeFailed, "line-rate"},
		{sbtesting.DecidedBench(nil, valid, sbv1.CellResult{Index: 1, State: sbv1.CellFailed, Message: "no pod", Parameters: sbv1.CellParameters{PayloadBytes: 8000, Pairs: 4}}),
			sbv1.NodeFailed, "1 of 2 cells failed: cell 1 (8000 B x 4 pairs): no pod"},
		{sbtesting.DecidedBench(nil, sbv1.CellResult{Index: 0, State: sbv1.CellInvalid, Message: "counters disagree"}), sbv1.NodeInvalid, "counters disagree"},
		{sbtesting.DecidedBench(&sbv1.AcceptanceSpec{AllowFailedCells: true}, valid, sbv1.CellResult{Index: 1, State: sbv1.CellFailed, Message: "no pod"}),
			sbv1.NodePassed, "allowFailedCells: 1 of 2 cells failed"},
		{sbtesting.FinishedBench(sbv1.PhaseFailed, metav1.ConditionFalse), sbv1.NodeInvalid, "could not run: invalid spec"},
	}
	for i, c := range cases {
		j := fleet.Judge(fleet.Input{Steps: []fleet.StepOutcome{outcomeOf(c.sb)}})
		got, reason := j.Verdict, j.Message()
		passed := meta.IsStatusConditionTrue(c.sb.Status.Conditions, sbv1.ConditionPassed)
		if got != c.want || !strings.Contains(reason, c.reason) || c.sb.Status.Phase == sbv1.PhaseCompleted && passed != (got == sbv1.NodePassed) {
			t.Errorf("case %d: %s %q, want %s containing %q", i, got, reason, c.want, c.reason)
		}
	}
}

func TestHeadlineReadsTheMarkedCellAndItsValidRepeats(t *testing.T) {
	sb := sbtesting.FinishedBench(sbv1.PhaseCompleted, metav1.ConditionTrue,
		sbv1.CellResult{Index: 0, State: sbv1.CellValid, RXMbps: &sbv1.Statistic{Mean: 10}},
		sbv1.CellResult{Index: 1, Headline: true, State: sbv1.CellValid, RXMbps: &sbv1.Statistic{Mean: 990},
			Latency:       &sbv1.Latency{P50Nanoseconds: 2000, P99Nanoseconds: 5000},
			RepeatResults: []sbv1.RepeatResult{{RXMbps: 980, State: sbv1.CellValid}, {RXMbps: 1, State: sbv1.CellInvalid}, {RXMbps: 1000, State: sbv1.CellValid}}})
	v, repeats := headline(sb, "RxMbps")
	if v == nil || *v != 990 || len(repeats) != 2 || repeats[0] != 980 || repeats[1] != 1000 {
		t.Fatalf("value %v repeats %v", v, repeats)
	}
	if v, _ := headline(sb, "LatencyP99Nanoseconds"); v == nil || *v != 5000 {
		t.Fatalf("latency p99 %v", v)
	}
	sb.Status.CellResults[1].State = sbv1.CellInvalid
	if v, _ := headline(sb, "RxMbps"); v != nil {
		t.Fatalf("an invalid headline cell has no value, got %d", *v)
	}
}
