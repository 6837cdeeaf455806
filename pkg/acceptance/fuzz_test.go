package acceptance

import (
	"math/big"
	"strings"
	"testing"

	"k8s.io/utils/ptr"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// Cell figures come from what pods reported, so the rules must judge any int64 the way the
// arithmetic says, never by wrapped products. Short run: make fuzz-short; long: hack/bench/fuzz.sh.

var (
	fuzzMetrics = []sbv1.Metric{sbv1.MetricRxMbps, sbv1.MetricTxMbps, sbv1.MetricRxMbpsStdDev, sbv1.MetricPacketsPerSecond,
		sbv1.MetricDrops, sbv1.MetricLossPPM, sbv1.MetricCPUTXMilliPercent, sbv1.MetricCPURXMilliPercent,
		sbv1.MetricGPUSMMilliPercent, sbv1.MetricLatencyP50Nanoseconds, sbv1.MetricLatencyP99Nanoseconds,
		sbv1.MetricLatencyP999Nanoseconds}
	fuzzOperators = []sbv1.Operator{sbv1.OperatorGreaterThanOrEqual, sbv1.OperatorGreaterThan,
		sbv1.OperatorLessThanOrEqual, sbv1.OperatorLessThan, sbv1.OperatorEqual}
	fuzzStates = []sbv1.CellState{sbv1.CellValid, sbv1.CellInvalid, sbv1.CellFailed}
)

// fuzzCell builds a cell whose every metric is v (or absent when measured is false).
func fuzzCell(index int32, v int64, state uint8, headline, measured bool, payload int32) sbv1.CellResult {
	c := sbv1.CellResult{Index: index, Headline: headline, State: fuzzStates[int(state)%len(fuzzStates)],
		Parameters: sbv1.CellParameters{PayloadBytes: payload, Batch: 1, Pairs: 1, Queues: sbv1.QueueCell{TX: 1, RX: 1}}}
	if !measured {
		return c
	}
	c.Repeats, c.Drops, c.LossPPM = 1, v, v
	c.RXMbps, c.TXMbps, c.PacketsPerSecond = &sbv1.Statistic{Mean: v, StdDev: v}, &sbv1.Statistic{Mean: v}, &sbv1.Statistic{Mean: v}
	c.CPU = &sbv1.CPUBusy{TXMilliPercent: int32(v), RXMilliPercent: int32(v)}
	c.GPU = &sbv1.GPUBusy{SMMilliPercent: int32(v)}
	c.Latency = &sbv1.Latency{P50Nanoseconds: v, P99Nanoseconds: v, P999Nanoseconds: v}
	return c
}

// oracle is the rule read literally: every selected cell measured, not failed, and holding.
func oracle(rule sbv1.AcceptanceRule, cells []sbv1.CellResult) bool {
	selected := Select(rule.Cells, cells)
	if len(selected) == 0 {
		return false
	}
	for _, c := range selected {
		got, ok := Value(rule.Metric, c)
		if c.State == sbv1.CellFailed || !ok {
			return false
		}
		holds := map[sbv1.Operator]bool{
			sbv1.OperatorGreaterThanOrEqual: got >= rule.Value, sbv1.OperatorGreaterThan: got > rule.Value,
			sbv1.OperatorLessThanOrEqual: got <= rule.Value, sbv1.OperatorLessThan: got < rule.Value, sbv1.OperatorEqual: got == rule.Value,
		}[rule.Operator]
		if !holds {
			return false
		}
	}
	return true
}

func FuzzJudge(f *testing.F) {
	f.Add(uint8(0), uint8(0), int64(90000), false, int64(97000), int64(50000), uint8(0), uint8(1), true, int32(8000), true)
	f.Add(uint8(4), uint8(4), int64(0), true, int64(0), int64(3), uint8(2), uint8(0), false, int32(64), false)
	f.Add(uint8(6), uint8(3), int64(-1), true, int64(1<<40), int64(-1<<40), uint8(1), uint8(2), true, int32(1000), true)
	f.Fuzz(func(t *testing.T, metric, op uint8, value int64, each bool, v1, v2 int64, s1, s2 uint8, measured bool, payload int32, filter bool) {
		rule := sbv1.AcceptanceRule{Name: "r", Metric: fuzzMetrics[int(metric)%len(fuzzMetrics)],
			Operator: fuzzOperators[int(op)%len(fuzzOperators)], Value: value}
		if each {
			rule.Cells.Scope = sbv1.CellScopeEach
			if filter {
				rule.Cells.PayloadBytes = ptr.To(payload)
			}
		}
		cells := []sbv1.CellResult{fuzzCell(0, v1, s1, true, true, payload), fuzzCell(1, v2, s2, false, measured, 8000)}
		v := Judge(nil, []sbv1.AcceptanceRule{rule}, cells)
		if want := oracle(rule, cells); v.Passed != want {
			t.Fatalf("rule %+v on cells %d, %d: Passed=%v, the rule read literally says %v (%s)", rule, v1, v2, v.Passed, want, v.Message)
		}
		if v.Passed != (v.Reason == sbv1.ReasonRulesHeld) || !strings.Contains(v.Message, "r: ") {
			t.Fatalf("verdict %+v does not name the rule and its reason", v)
		}
		if Judge(nil, nil, cells).Passed != true || Judge(nil, []sbv1.AcceptanceRule{rule}, nil).Passed {
			t.Fatal("no rules must pass, and a rule over no cells must not")
		}
	})
}

// The baseline rule in exact arithmetic: now >= base * (100 - limit) / 100.
func FuzzCompareBaseline(f *testing.F) {
	f.Add(int64(97000), int64(100000), uint8(5))
	f.Add(int64(94000), int64(100000), uint8(5))
	f.Add(int64(1)<<62, int64(1)<<61, uint8(0))
	f.Fuzz(func(t *testing.T, now, base int64, limit uint8) {
		pct := int32(limit % 101) // the API bounds maxRegressionPercent to 0..100
		cur := fuzzCell(0, now, 0, true, true, 8000)
		old := fuzzCell(0, base, 0, true, true, 8000)
		baseBench := &sbv1.SpiralBench{Status: sbv1.SpiralBenchStatus{Phase: sbv1.PhaseCompleted, CellResults: []sbv1.CellResult{old}}}
		held, broken := CompareBaseline(sbv1.BaselineSpec{SpiralBenchName: "b", MaxRegressionPercent: ptr.To(pct)},
			[]sbv1.CellResult{cur}, nil, baseBench)
		lhs := new(big.Int).Mul(big.NewInt(now), big.NewInt(100))
		rhs := new(big.Int).Mul(big.NewInt(base), big.NewInt(int64(100-pct)))
		want := lhs.Cmp(rhs) >= 0
		if got := len(broken) == 0 && len(held) == 1; got != want {
			t.Fatalf("now %d, baseline %d, limit %d%%: held=%v broken=%v, exact arithmetic says within=%v", now, base, pct, held, broken, want)
		}
	})
}
