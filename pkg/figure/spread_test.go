package figure

import (
	"slices"
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// RxMbpsCVMilliPercent reads the cell's RX spread, so a rule can bound it; a cell without an
// RX spread has none, and a noisy cell reads better downwards.
func TestRxCVReadsTheCellsRxSpread(t *testing.T) {
	f, ok := Lookup("RxMbpsCVMilliPercent")
	if !ok || f.Unit != MilliPercent || f.HigherIsBetter || HigherIsBetter("RxMbpsCVMilliPercent") {
		t.Fatalf("RxMbpsCVMilliPercent: %v %+v, want a milli-percent figure that improves downwards", ok, f.Unit)
	}
	cases := []struct {
		spread *sbv1.CellSpread
		want   float64
		ok     bool
	}{
		{&sbv1.CellSpread{Figure: "RxMbps", CVMilliPercent: 81250}, 81250, true},
		{&sbv1.CellSpread{Figure: "RxMbps", CVMilliPercent: 0}, 0, true},
		{&sbv1.CellSpread{Figure: "NCCLBusbwMBps", CVMilliPercent: 9091}, 0, false},
		{nil, 0, false},
	}
	for _, c := range cases {
		cell := &sbv1.CellResult{Repeats: 3, RXMbps: &sbv1.Statistic{Mean: 1600, StdDev: 1300}, Spread: c.spread}
		if got, ok := f.Cell(cell); got != c.want || ok != c.ok {
			t.Errorf("spread %+v: %v, %v; want %v, %v", c.spread, got, ok, c.want, c.ok)
		}
	}
	if got := f.Unit.Format(81250); got != "81.2" {
		t.Errorf("81250 m%% prints %q, want 81.2", got)
	}
}

// The spread is over the headline figure each kind's repeats carry, Valid repeats only.
func TestHeadlineRepeatsPickTheKindsFigure(t *testing.T) {
	valid := func(rr sbv1.RepeatResult) sbv1.RepeatResult { rr.State = sbv1.CellValid; return rr }
	cases := []struct {
		repeats []sbv1.RepeatResult
		name    string
		values  []int64
	}{
		{[]sbv1.RepeatResult{valid(sbv1.RepeatResult{RXMbps: 900}), {State: sbv1.CellInvalid, RXMbps: 5}, valid(sbv1.RepeatResult{RXMbps: 1100})},
			"RxMbps", []int64{900, 1100}},
		{[]sbv1.RepeatResult{valid(sbv1.RepeatResult{RXMbps: 9, Search: &sbv1.SearchResult{NDRMbps: 5000}})}, "NDRMbps", []int64{5000}},
		{[]sbv1.RepeatResult{valid(sbv1.RepeatResult{RXMbps: 9, Latency: &sbv1.Latency{P50Nanoseconds: 1500}})}, "LatencyP50Nanoseconds", []int64{1500}},
		{[]sbv1.RepeatResult{valid(sbv1.RepeatResult{Copies: &sbv1.CopyResult{Sizes: []sbv1.CopySize{{Direction: "D2H", MegabytesPerSecond: 24000}}}})},
			"CopyD2HMBps", []int64{24000}},
		{nil, "RxMbps", nil},
	}
	for _, c := range cases {
		name, values := HeadlineRepeats(&sbv1.CellResult{RepeatResults: c.repeats})
		if name != c.name || !slices.Equal(values, c.values) {
			t.Errorf("%s: got %s %v, want %v", c.name, name, values, c.values)
		}
	}
}
