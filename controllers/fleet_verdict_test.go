package controllers

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

func finishedBench(phase sbv1.Phase, passed metav1.ConditionStatus, cells ...sbv1.CellResult) *sbv1.SpiralBench {
	sb := &sbv1.SpiralBench{Status: sbv1.SpiralBenchStatus{Phase: phase, CellResults: cells}}
	sb.Status.Conditions = []metav1.Condition{
		{Type: sbv1.ConditionPassed, Status: passed, Message: "broken: line-rate"},
		{Type: sbv1.ConditionFailed, Status: metav1.ConditionTrue, Message: "invalid spec"},
	}
	return sb
}

func TestBenchVerdictNamesWhatDecidedIt(t *testing.T) {
	valid := sbv1.CellResult{Index: 0, State: sbv1.CellValid}
	cases := []struct {
		sb     *sbv1.SpiralBench
		want   sbv1.NodeVerdict
		reason string
	}{
		{finishedBench(sbv1.PhaseCompleted, metav1.ConditionTrue, valid), sbv1.NodePassed, ""},
		{finishedBench(sbv1.PhaseCompleted, metav1.ConditionFalse, valid), sbv1.NodeFailed, "line-rate"},
		{finishedBench(sbv1.PhaseCompleted, metav1.ConditionTrue, valid, sbv1.CellResult{Index: 1, State: sbv1.CellFailed, Message: "no pod"}), sbv1.NodeFailed, "cell 1 failed: no pod"},
		{finishedBench(sbv1.PhaseCompleted, metav1.ConditionTrue, sbv1.CellResult{Index: 0, State: sbv1.CellInvalid, Message: "counters disagree"}), sbv1.NodeInvalid, "counters disagree"},
		{finishedBench(sbv1.PhaseFailed, metav1.ConditionFalse), sbv1.NodeInvalid, "could not run: invalid spec"},
	}
	for i, c := range cases {
		got, reason := benchVerdict(c.sb)
		if got != c.want || !strings.Contains(reason, c.reason) {
			t.Errorf("case %d: %s %q, want %s containing %q", i, got, reason, c.want, c.reason)
		}
	}
}

func TestHeadlineReadsTheMarkedCellAndItsValidRepeats(t *testing.T) {
	sb := finishedBench(sbv1.PhaseCompleted, metav1.ConditionTrue,
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
