package acceptance

import (
	"strings"
	"testing"

	"k8s.io/utils/ptr"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

func cell(i int32, headline bool, payload, pairs int32, rx, lossPPM int64, state sbv1.CellState) sbv1.CellResult {
	return sbv1.CellResult{Index: i, Headline: headline, State: state, Repeats: 3,
		Parameters: sbv1.CellParameters{PayloadBytes: payload, Pairs: pairs, Batch: 1, Queues: sbv1.QueueCell{TX: 1, RX: 1}},
		RXMbps:     &sbv1.Statistic{Mean: rx}, TXMbps: &sbv1.Statistic{Mean: rx}, LossPPM: lossPPM}
}

var cells = []sbv1.CellResult{
	cell(0, false, 1000, 4, 54800, 0, sbv1.CellValid),
	cell(1, true, 8000, 4, 97200, 0, sbv1.CellValid),
	cell(2, false, 8000, 1, 30800, 20, sbv1.CellValid),
}

func rule(name string, m sbv1.Metric, op sbv1.Operator, v int64, sel sbv1.CellSelector) sbv1.AcceptanceRule {
	return sbv1.AcceptanceRule{Name: name, Metric: m, Operator: op, Value: v, Cells: sel}
}

func TestHeadlineRuleHoldsAndBreaks(t *testing.T) {
	v := Judge(nil, []sbv1.AcceptanceRule{rule("line-rate", sbv1.MetricRxMbps, sbv1.OperatorGreaterThanOrEqual, 95000, sbv1.CellSelector{})}, cells)
	if !v.Passed || v.Reason != sbv1.ReasonRulesHeld || !strings.Contains(v.Message, "line-rate: cell 1 RxMbps = 97200 >= 95000") {
		t.Errorf("want held with the observed value: %+v", v)
	}
	v = Judge(nil, []sbv1.AcceptanceRule{rule("line-rate", sbv1.MetricRxMbps, sbv1.OperatorGreaterThanOrEqual, 98000, sbv1.CellSelector{})}, cells)
	if v.Passed || v.Reason != sbv1.ReasonRulesBroken || !strings.Contains(v.Message, "line-rate: cell 1 RxMbps = 97200, want >= 98000") {
		t.Errorf("want broken naming the rule and the observed value: %+v", v)
	}
}

func TestEachScopeWithFiltersNamesTheFirstOffender(t *testing.T) {
	lossless := rule("lossless", sbv1.MetricLossPPM, sbv1.OperatorEqual, 0, sbv1.CellSelector{Scope: sbv1.CellScopeEach})
	v := Judge(nil, []sbv1.AcceptanceRule{lossless}, cells)
	if v.Passed || !strings.Contains(v.Message, "cell 2 LossPPM = 20, want == 0") {
		t.Errorf("%+v", v)
	}
	lossless.Cells.Pairs = ptr.To[int32](4)
	if v := Judge(nil, []sbv1.AcceptanceRule{lossless}, cells); !v.Passed || !strings.Contains(v.Message, "2 cells LossPPM == 0") {
		t.Errorf("the 4-pair cells are lossless: %+v", v)
	}
}

func TestAGateNeverPassesOnNothing(t *testing.T) {
	sel := sbv1.CellSelector{Scope: sbv1.CellScopeEach, PayloadBytes: ptr.To[int32](64)}
	if v := Judge(nil, []sbv1.AcceptanceRule{rule("tiny", sbv1.MetricRxMbps, sbv1.OperatorGreaterThan, 0, sel)}, cells); v.Passed {
		t.Errorf("a rule selecting no cell must fail: %+v", v)
	}
	failed := []sbv1.CellResult{{Index: 0, Headline: true, State: sbv1.CellFailed, Message: "pod deleted"}}
	if v := Judge(nil, []sbv1.AcceptanceRule{rule("r", sbv1.MetricDrops, sbv1.OperatorEqual, 0, sbv1.CellSelector{})}, failed); v.Passed || !strings.Contains(v.Message, "failed (pod deleted)") {
		t.Errorf("a failed cell must fail its rules: %+v", v)
	}
	if v := Judge(nil, []sbv1.AcceptanceRule{rule("gpu", sbv1.MetricGPUSMMilliPercent, sbv1.OperatorLessThan, 50000, sbv1.CellSelector{})}, cells); v.Passed {
		t.Errorf("an unmeasured metric must fail: %+v", v)
	}
	if v := Judge(nil, nil, cells); !v.Passed || v.Reason != sbv1.ReasonNoRules {
		t.Errorf("no rules: %+v", v)
	}
}

func TestBaselineRegressionAndEnvironment(t *testing.T) {
	base := &sbv1.SpiralBench{Status: sbv1.SpiralBenchStatus{Phase: sbv1.PhaseCompleted,
		Environment: &sbv1.Environment{GPUDriver: "580.95", Kernel: "6.11"},
		CellResults: []sbv1.CellResult{cell(0, true, 8000, 4, 100000, 0, sbv1.CellValid), cell(1, false, 1000, 4, 50000, 0, sbv1.CellValid)}}}
	now := []sbv1.CellResult{cell(0, true, 8000, 4, 96000, 0, sbv1.CellValid), cell(1, false, 1000, 4, 49000, 0, sbv1.CellValid)}
	env := &sbv1.Environment{GPUDriver: "590.10", Kernel: "6.11"}
	spec := sbv1.BaselineSpec{SpiralBenchName: "driver-580", MaxRegressionPercent: ptr.To[int32](5)}

	held, broken := CompareBaseline(spec, now, env, base)
	if len(broken) != 0 || len(held) != 1 || !strings.Contains(held[0], "2 cells within 5%") {
		t.Errorf("4%% and 2%% below are within 5%%: held %v broken %v", held, broken)
	}
	spec.MaxRegressionPercent = ptr.To[int32](3)
	_, broken = CompareBaseline(spec, now, env, base)
	if len(broken) != 1 || !strings.Contains(broken[0], "cell 0 RxMbps 96000 is more than 3% below the baseline's 100000") {
		t.Errorf("4%% below breaks a 3%% limit: %v", broken)
	}
	spec.RequireSameEnvironment = true
	_, broken = CompareBaseline(spec, now, env, base)
	if len(broken) != 1 || !strings.Contains(broken[0], `gpuDriver "590.10" vs "580.95"`) {
		t.Errorf("a different driver must be named: %v", broken)
	}
	base.Status.Phase = sbv1.PhaseRunning
	if _, broken = CompareBaseline(spec, now, env, base); len(broken) != 1 {
		t.Errorf("an unfinished baseline cannot vouch: %v", broken)
	}
	v := JudgeWith(nil, nil, now, nil, []string{"baseline x: broken"})
	if v.Passed || !strings.Contains(v.Message, "baseline x") {
		t.Errorf("a broken baseline fails the verdict: %+v", v)
	}
}
