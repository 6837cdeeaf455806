package fleet

import (
	"strings"
	"testing"
	"time"
)

func classNodes(oldValues []float64, newValues []float64) []CohortNode {
	var nodes []CohortNode
	for i, v := range oldValues {
		nodes = append(nodes, CohortNode{Name: "old-" + string(rune('a'+i)), Driver: "570.1", Value: v})
	}
	t0 := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	for i, v := range newValues {
		nodes = append(nodes, CohortNode{Name: "new-" + string(rune('a'+i)), Driver: "580.2", Value: v, Upgraded: true, When: t0.Add(time.Duration(i) * time.Minute)})
	}
	return nodes
}

var oldDriver = []float64{1000, 1010, 990, 1005, 995, 1002, 998, 1008, 992, 1001, 999, 1004}

func TestACohortOnAnUnchangedDriverIsEquivalent(t *testing.T) {
	c := DecideCohort("h200", "580.2", "RxMbps", true, classNodes(oldDriver, []float64{1003, 996, 1001, 999, 1006}), 4, 3)
	if c.Result.Decision != Equivalent || len(c.Canaries) != 4 || c.Canaries[0] != "new-a" || c.IsCanary("new-e") {
		t.Fatalf("%+v", c)
	}
	if m := c.Message(); !strings.HasPrefix(m, "driver 580.2 on class h200: RxMbps equivalent within 3%") || !strings.Contains(m, "n=4 vs 12") {
		t.Fatalf("message %q", m)
	}
}

func TestAClassWideRegressionIsWorseAndNamesTheFigure(t *testing.T) {
	c := DecideCohort("h200", "580.2", "RxMbps", true, classNodes(oldDriver, []float64{952, 948, 955, 945}), 4, 3)
	if c.Result.Decision != Worse || c.Result.RelativeDiffPercent > -4 {
		t.Fatalf("%+v", c.Result)
	}
	if m := c.Message(); !strings.Contains(m, "RxMbps worse by 5.") {
		t.Fatalf("message %q", m)
	}
	// For a figure where lower is better, the same numbers are an improvement: not Worse.
	if c := DecideCohort("h200", "580.2", "LatencyP99Nanoseconds", false, classNodes(oldDriver, []float64{952, 948, 955, 945}), 4, 3); c.Result.Decision == Worse {
		t.Fatalf("a lower latency is not worse: %+v", c.Result)
	}
}

// An undecided cohort takes in the next upgraded nodes, as many as its test asks for, when
// they have passed already; it never takes a node on the old driver.
func TestAnUndecidedCohortGrowsByWhatItsTestNeeds(t *testing.T) {
	noisy := []float64{1040, 960, 1030, 975, 1020, 985, 1015, 990, 1010, 1000, 1005, 995, 1025, 970}
	two := DecideCohort("", "580.2", "RxMbps", true, classNodes(oldDriver, noisy[:2]), 2, 3)
	if two.Result.Decision != Undecided || two.Result.MoreNeeded <= 0 {
		t.Fatalf("two noisy canaries decide nothing: %+v", two.Result)
	}
	grown := DecideCohort("", "580.2", "RxMbps", true, classNodes(oldDriver, noisy), 2, 3)
	if len(grown.Canaries) <= 2 {
		t.Fatalf("the cohort did not grow: %v %+v", grown.Canaries, grown.Result)
	}
	for _, n := range grown.Canaries {
		if !strings.HasPrefix(n, "new-") {
			t.Fatalf("a node on the old driver in the cohort: %v", grown.Canaries)
		}
	}
	if !strings.HasPrefix(two.Message(), "driver 580.2: RxMbps undecided") {
		t.Fatalf("message %q", two.Message())
	}
}
