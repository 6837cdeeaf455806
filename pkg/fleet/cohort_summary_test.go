package fleet

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
)

func TestACohortSummaryListsBothSidesAndTheDecision(t *testing.T) {
	nodes := classNodes(oldDriver, []float64{1003, 996, 1001, 999, 1006})
	c := DecideCohort("h200", "580.2", "RxMbps", true, nodes, 4, 3)
	s := SummarizeCohort(c, nodes, true)
	if s.Decision != "Equivalent" || s.NBefore != 12 || s.NAfter != 4 || s.MarginPercent != 3 || s.MoreNeeded != 0 {
		t.Fatalf("%+v", s)
	}
	// the lists are exactly what the test compared: the fifth upgraded node is no canary
	if s.Before.N != s.NBefore || len(s.Before.Values) != 12 || s.After.N != s.NAfter || len(s.After.Values) != 4 || s.After.Driver != "580.2" {
		t.Fatalf("before %+v after %+v", s.Before, s.After)
	}
	if s.After.Values[0] != (CohortValue{Node: "new-a", Value: 1003}) || s.After.Values[3].Node != "new-d" || s.Before.Values[0].Node != "old-a" {
		t.Fatalf("values not by node name: %+v %+v", s.Before.Values, s.After.Values)
	}
	if s.DifferencePercent == nil || math.Abs(*s.DifferencePercent-c.Result.RelativeDiffPercent) > 1e-9 || s.P == nil ||
		*s.IntervalLowPercent > *s.DifferencePercent || *s.IntervalHighPercent < *s.DifferencePercent {
		t.Fatalf("difference %v in [%v, %v], p %v", s.DifferencePercent, s.IntervalLowPercent, s.IntervalHighPercent, s.P)
	}
	// for a figure where lower is better the same numbers differ the other way
	lower := SummarizeCohort(DecideCohort("h200", "580.2", "LatencyP99Nanoseconds", false, nodes, 4, 3), nodes, false)
	if math.Abs(*lower.DifferencePercent+*s.DifferencePercent) > 1e-9 || lower.HigherIsBetter {
		t.Fatalf("lower is better: %v, higher: %v", *lower.DifferencePercent, *s.DifferencePercent)
	}
	if math.Abs(*s.MeanBefore-c.Result.MeanBefore) > 1e-9 || math.Abs(*s.MeanAfter-c.Result.MeanAfter) > 1e-9 {
		t.Fatalf("means %v %v, test's %v %v", *s.MeanBefore, *s.MeanAfter, c.Result.MeanBefore, c.Result.MeanAfter)
	}
}

// A cohort the test could not compute has NaN figures; the summary omits them, since JSON
// cannot carry NaN and a summary that fails to encode is never uploaded.
func TestAnUncomputableCohortStillEncodes(t *testing.T) {
	nodes := classNodes(oldDriver, []float64{1003})
	s := SummarizeCohort(DecideCohort("", "580.2", "RxMbps", true, nodes, 4, 3), nodes, true)
	if s.Decision != "Undecided" || s.MoreNeeded != 1 || s.P != nil || s.IntervalLowPercent != nil ||
		s.MeanAfter == nil || *s.MeanAfter != 1003 || s.DifferencePercent == nil || math.Abs(*s.DifferencePercent - (1003-*s.MeanBefore) / *s.MeanBefore * 100) > 1e-9 {
		t.Fatalf("%+v", s)
	}
	files, err := SummaryFiles(Summary{Fleet: "f", Metric: "RxMbps", Cohorts: []CohortSummary{s}})
	if err != nil {
		t.Fatal(err)
	}
	var back Summary
	if err := json.Unmarshal(files["summary.json"], &back); err != nil || len(back.Cohorts) != 1 || back.Cohorts[0].After.N != 1 ||
		back.Cohorts[0].Before.N != 12 || back.Cohorts[0].Decision != "Undecided" {
		t.Fatalf("json %s: %v", files["summary.json"], err)
	}
	if strings.Contains(string(files["summary.json"]), `"p"`) {
		t.Fatalf("a p-value the test did not compute in %s", files["summary.json"])
	}
}

func TestACohortSideListsAtMostItsLimit(t *testing.T) {
	old := make([]float64, CohortSideLimit+234)
	for i := range old {
		old[i] = 1000 + float64(i%7)
	}
	var nodes []CohortNode
	for i, v := range old {
		nodes = append(nodes, CohortNode{Name: fmt.Sprintf("old-%05d", len(old)-i), Driver: "570.1", Value: v})
	}
	nodes = append(nodes, classNodes(nil, []float64{1003, 996, 1001, 999})...)
	s := SummarizeCohort(DecideCohort("h200", "580.2", "RxMbps", true, nodes, 4, 3), nodes, true)
	if s.Before.N != len(old) || len(s.Before.Values) != CohortSideLimit || s.Before.LeftOut != 234 || s.NBefore != len(old) {
		t.Fatalf("before n=%d listed %d left out %d", s.Before.N, len(s.Before.Values), s.Before.LeftOut)
	}
	if s.Before.Values[0].Node != "old-00001" || s.Before.Values[CohortSideLimit-1].Node != fmt.Sprintf("old-%05d", CohortSideLimit) {
		t.Fatalf("not the first by name: %v .. %v", s.Before.Values[0], s.Before.Values[CohortSideLimit-1])
	}
	if s.After.LeftOut != 0 || len(s.After.Values) != 4 {
		t.Fatalf("after %+v", s.After)
	}
}

func TestCohortPlotNamesAreSafeAndDistinct(t *testing.T) {
	if got := CohortPlotName("h200", "580.159.03"); got != "cohort-h200-580.159.03" {
		t.Fatalf("plain names kept: %q", got)
	}
	if got := CohortPlotName("", "580.2"); got != "cohort-all-580.2" {
		t.Fatalf("no class: %q", got)
	}
	a, b := CohortPlotName("a/b", "1 2"), CohortPlotName("a_b", "1_2")
	if a == b || !strings.HasPrefix(a, "cohort-a_b-1_2-") || strings.ContainsAny(a, "/ ") {
		t.Fatalf("sanitised %q vs plain %q", a, b)
	}
	long := CohortPlotName(strings.Repeat("c", 90), strings.Repeat("9", 90))
	if len(long) > 100 || long == CohortPlotName(strings.Repeat("c", 90), strings.Repeat("9", 91)) {
		t.Fatalf("long names %q", long)
	}
}
