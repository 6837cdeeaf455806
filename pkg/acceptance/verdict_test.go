package acceptance

import (
	"fmt"
	"strings"
	"testing"

	"k8s.io/utils/ptr"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// finished is a completed TCP bench of n planned cells, 3 repeats each, all Valid at rx Mb/s.
func finished(n int, acc *sbv1.AcceptanceSpec) *sbv1.SpiralBench {
	sb := &sbv1.SpiralBench{}
	sb.Spec.Transport, sb.Spec.Run.Repeats, sb.Spec.Acceptance = sbv1.TransportTCP, 3, acc
	sb.Status.Phase, sb.Status.Cells.Total = sbv1.PhaseCompleted, int32(n)
	for i := range n {
		sb.Status.CellResults = append(sb.Status.CellResults, cell(int32(i), i == 0, 1000*int32(i+1), 4, 90000, 0, sbv1.CellValid))
	}
	return sb
}

func fail(sb *sbv1.SpiralBench, i int, state sbv1.CellState, msg string) {
	c := &sb.Status.CellResults[i]
	c.State, c.Message = state, msg
	if state == sbv1.CellFailed {
		c.Repeats, c.RXMbps, c.TXMbps = 0, nil, nil
	}
}

var lineRate = &sbv1.AcceptanceSpec{Rules: []sbv1.AcceptanceRule{
	rule("line-rate", sbv1.MetricRxMbps, sbv1.OperatorGreaterThanOrEqual, 50000, sbv1.CellSelector{Scope: sbv1.CellScopeEach})}}

func TestEveryCellValidPasses(t *testing.T) {
	if v := Decide(finished(3, nil)); !v.Passed || v.Reason != sbv1.ReasonNoRules {
		t.Errorf("no rules, all Valid: %+v", v)
	}
	if v := Decide(finished(3, lineRate)); !v.Passed || v.Reason != sbv1.ReasonRulesHeld {
		t.Errorf("rules held, all Valid: %+v", v)
	}
}

// A failed cell fails the verdict whether or not the bench has rules, and the message names it.
func TestFailedCellsFailTheVerdictWithAndWithoutRules(t *testing.T) {
	for _, acc := range []*sbv1.AcceptanceSpec{nil, {}, lineRate} {
		sb := finished(20, acc)
		for _, i := range []int{3, 5, 6, 7, 8, 9, 10, 11, 12} {
			fail(sb, i, sbv1.CellFailed, fmt.Sprintf("failed after 2 attempt(s): client of cell %d exited with code 1", i))
		}
		v := Decide(sb)
		if v.Passed || v.Reason != sbv1.ReasonCellsFailed {
			t.Fatalf("rules %v: %+v", acc, v)
		}
		if !strings.HasPrefix(v.Message, "9 of 20 cells failed: cell 3 (4000 B x 4 pairs): failed after 2 attempt(s): client of cell 3 exited") ||
			!strings.Contains(v.Message, "; and 4 more") || strings.Contains(v.Message, "cell 9 ") {
			t.Errorf("rules %v: message %q", acc, v.Message)
		}
		if len(v.Message) > 2000 {
			t.Errorf("the message must stay bounded, got %d bytes", len(v.Message))
		}
	}
}

func TestInvalidAndMissingCellsAndShortRepeats(t *testing.T) {
	sb := finished(3, nil)
	fail(sb, 1, sbv1.CellInvalid, "1 of 3 repeats Invalid: client: counters disagree")
	if v := Decide(sb); v.Passed || v.Reason != sbv1.ReasonCellsInvalid || !strings.HasPrefix(v.Message, "1 of 3 cells invalid: cell 1 (2000 B x 4 pairs): 1 of 3 repeats") {
		t.Errorf("invalid cell: %+v", v)
	}
	sb = finished(3, nil)
	sb.Status.Cells.Total = 4 // a planned cell without a result
	sb.Status.CellResults[2].Repeats = 2
	v := Decide(sb)
	if v.Passed || v.Reason != sbv1.ReasonCellsFailed || !strings.Contains(v.Message, "cell 2 (3000 B x 4 pairs): measured 2 of 3 repeats") ||
		!strings.Contains(v.Message, "cell 3: no result") || !strings.HasPrefix(v.Message, "2 of 4 cells failed") {
		t.Errorf("unmeasured cells: %+v", v)
	}
}

// Failed cells and a broken rule: the cells decide the reason, the rule is named too; a broken
// rule with invalid cells is a broken rule.
func TestCellsAndRulesTogether(t *testing.T) {
	sb := finished(3, lineRate)
	sb.Status.CellResults[0].RXMbps.Mean = 100
	fail(sb, 2, sbv1.CellFailed, "pod deleted")
	v := Decide(sb)
	if v.Passed || v.Reason != sbv1.ReasonCellsFailed || !strings.Contains(v.Message, " | broken: line-rate:") {
		t.Errorf("%+v", v)
	}
	cells, broken, held := Split(v.Message)
	if !strings.HasPrefix(cells, "1 of 3 cells failed: cell 2") || len(broken) != 1 || held != nil {
		t.Errorf("split: %q %q %q", cells, broken, held)
	}
	sb = finished(3, lineRate)
	sb.Status.CellResults[0].RXMbps.Mean = 100
	fail(sb, 1, sbv1.CellInvalid, "counters disagree")
	if v := Decide(sb); v.Passed || v.Reason != sbv1.ReasonRulesBroken || !strings.HasSuffix(v.Message, " | 1 of 3 cells invalid: cell 1 (2000 B x 4 pairs): counters disagree") {
		t.Errorf("%+v", v)
	}
}

// allowFailedCells passes a bench with failed cells, visibly, judging the rules on the Valid
// cells; it cannot pass a bench that measured nothing, nor one whose rules break.
func TestAllowFailedCellsIsAVisibleOptIn(t *testing.T) {
	acc := lineRate.DeepCopy()
	acc.AllowFailedCells = true
	sb := finished(3, acc)
	fail(sb, 1, sbv1.CellFailed, "pod deleted")
	fail(sb, 2, sbv1.CellInvalid, "counters disagree")
	v := Decide(sb)
	if !v.Passed || v.Reason != sbv1.ReasonFailedCellsAllowed ||
		v.Message != "allowFailedCells: 1 of 3 cells failed, 1 invalid: cell 1 (2000 B x 4 pairs): pod deleted; cell 2 (3000 B x 4 pairs) invalid: counters disagree | held: line-rate: cell 0 RxMbps = 90000 >= 50000" {
		t.Errorf("%+v", v)
	}
	sb.Status.CellResults[0].RXMbps.Mean = 100
	if v := Decide(sb); v.Passed || v.Reason != sbv1.ReasonRulesBroken {
		t.Errorf("a broken rule still fails: %+v", v)
	}
	sb = finished(2, &sbv1.AcceptanceSpec{AllowFailedCells: true})
	fail(sb, 0, sbv1.CellFailed, "x")
	fail(sb, 1, sbv1.CellFailed, "y")
	if v := Decide(sb); v.Passed || v.Reason != sbv1.ReasonCellsFailed || !strings.Contains(v.Message, "needs at least one Valid cell") {
		t.Errorf("nothing measured: %+v", v)
	}
}

// The baseline is judged from the figures status (or the bucket) recorded, so a verdict
// decided again without the baseline bench says the same.
func TestBaselineFromRecordedFigures(t *testing.T) {
	spec := sbv1.BaselineSpec{SpiralBenchName: "before", MaxRegressionPercent: ptr.To[int32](5)}
	base := finished(3, nil)
	base.Status.CellResults[1].RXMbps.Mean = 100000 // 90000 now is 10% below
	sb := finished(3, &sbv1.AcceptanceSpec{Baseline: &spec})
	f := ReadBaseline(spec, sb.Status.CellResults, nil, base)
	if f.Problem != "" || len(f.Cells) != 3 || f.Cells[1] != (sbv1.BaselineCell{Index: 1, RXMbps: 100000}) {
		t.Fatalf("figures %+v", f)
	}
	if v := Decide(sb); v.Passed || !strings.Contains(v.Message, "baseline before: no figures of it were recorded") {
		t.Errorf("no recorded figures cannot vouch: %+v", v)
	}
	sb.Status.Baseline = &f
	v := Decide(sb)
	if v.Passed || v.Reason != sbv1.ReasonRulesBroken || !strings.Contains(v.Message, "cell 1 RxMbps 90000 is more than 5% below the baseline's 100000") {
		t.Errorf("%+v", v)
	}
	held, broken := CompareBaseline(spec, sb.Status.CellResults, nil, base)
	if len(held) != 0 || len(broken) != 1 || !strings.Contains(v.Message, broken[0]) {
		t.Errorf("the one-step comparison says the same: %v %v", held, broken)
	}
}

func TestCountAndCellsSummary(t *testing.T) {
	sb := finished(20, nil)
	for i := 11; i < 20; i++ {
		fail(sb, i, sbv1.CellFailed, "x")
	}
	Count(&sb.Status)
	if st := sb.Status; st.CellsSummary != "11/20 ok, 9 failed" || st.Progress != "20/20" || st.Cells.Succeeded != 11 || st.BestRxMbps != 90000 {
		t.Errorf("%+v", st)
	}
	fail(sb, 0, sbv1.CellInvalid, "x")
	Count(&sb.Status)
	if sb.Status.CellsSummary != "10/20 ok, 1 invalid, 9 failed" {
		t.Errorf("%q", sb.Status.CellsSummary)
	}
}

// The bench says once what its cells share: how many are noisy and the worst wire verdict.
// A cell read without its repeats (its records deleted) keeps what was counted before.
func TestCountSummarisesNoisyCellsAndTheWorstWire(t *testing.T) {
	sb := finished(3, nil)
	for i := range sb.Status.CellResults {
		c := &sb.Status.CellResults[i]
		c.Repeats, c.RepeatResults = 1, []sbv1.RepeatResult{{State: sbv1.CellValid}}
		c.Wire = sbv1.WireCrossed
	}
	sb.Status.CellResults[1].Wire, sb.Status.CellResults[1].Noisy = sbv1.WireUnverified, true
	sb.Status.CellResults[2].Noisy = true
	Count(&sb.Status)
	if st := sb.Status; st.Cells.Noisy != 2 || st.Wire != sbv1.WireUnverified || st.CellsSummary != "3/3 ok, 2 noisy" {
		t.Errorf("noisy %d wire %q summary %q; want 2, Unverified, \"3/3 ok, 2 noisy\"", st.Cells.Noisy, st.Wire, st.CellsSummary)
	}
	for i := range sb.Status.CellResults { // read back without the attempt results
		c := &sb.Status.CellResults[i]
		c.RepeatResults, c.Noisy, c.Wire = nil, false, ""
	}
	Count(&sb.Status)
	if st := sb.Status; st.Cells.Noisy != 2 || st.Wire != sbv1.WireUnverified {
		t.Errorf("without the repeats: noisy %d wire %q; want what was counted, 2 and Unverified", st.Cells.Noisy, st.Wire)
	}
	sb.Status.CellResults[0].RepeatResults = []sbv1.RepeatResult{{State: sbv1.CellValid}}
	sb.Status.CellResults[0].Wire = sbv1.WireDidNotCross
	Count(&sb.Status)
	if sb.Status.Wire != sbv1.WireDidNotCross {
		t.Errorf("wire %q; a cell that did not cross makes the bench's DidNotCross", sb.Status.Wire)
	}
}
