package aggregate

import (
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// The CV is the sample standard deviation over the mean, in thousandths of a percent,
// checked against values worked by hand.
func TestCVIsSampleStdDevOverMeanInMilliPercent(t *testing.T) {
	cases := []struct {
		values []int64
		want   int32
	}{
		{[]int64{100, 200, 300}, 50000},   // mean 200, s = sqrt((100²+0+100²)/2) = 100: 50 %
		{[]int64{3100, 800, 900}, 81250},  // mean 1600, s = sqrt((1500²+800²+700²)/2) = 1300: 81.25 %
		{[]int64{900, 1000, 1100}, 10000}, // mean 1000, s = 100: 10 %
		{[]int64{899, 1000, 1101}, 10100}, // mean 1000, s = 101: 10.1 %
		{[]int64{940, 940}, 0},            // two equal repeats: a spread of 0, known
		{[]int64{1, 2}, 47140},            // mean 1.5, s = sqrt(0.5) = 0.70711: 47.140 %
	}
	for _, c := range cases {
		if got, ok := CVMilliPercent(c.values); !ok || got != c.want {
			t.Errorf("CV(%v) = %d, %v; want %d", c.values, got, ok, c.want)
		}
	}
	for _, none := range [][]int64{nil, {5000}, {0, 0}} {
		if got, ok := CVMilliPercent(none); ok {
			t.Errorf("CV(%v) = %d; want none (one repeat, or a mean of 0, has no CV)", none, got)
		}
	}
}

func rxCell(rx ...int64) sbv1.CellResult {
	c := sbv1.CellResult{}
	for _, v := range rx {
		c.RepeatResults = append(c.RepeatResults, rep(sbv1.CellValid, v, ""))
	}
	return c
}

// Fill gives a cell the spread of its RX over the Valid repeats only; FlagNoisy flags it above
// the threshold, not at it.
func TestFillSpreadAndTheNoisyFlagAtTheThreshold(t *testing.T) {
	for _, c := range []struct {
		rx      []int64
		percent int32
		cv      int32
		noisy   bool
	}{
		{[]int64{900, 1000, 1100}, 10, 10000, false}, // at the threshold
		{[]int64{899, 1000, 1101}, 10, 10100, true},  // just above
		{[]int64{950, 1000, 1050}, 10, 5000, false},  // below
		{[]int64{950, 1000, 1050}, 4, 5000, true},    // the spec's threshold, not the default
		{[]int64{899, 1000, 1101}, 0, 10100, true},   // an undefaulted spec: 10 %
		{[]int64{3100, 800, 900}, 10, 81250, true},   // the 1.60 ± 1.30 Gb/s cell
	} {
		cell := rxCell(c.rx...)
		Fill(&cell)
		if cell.Spread == nil || cell.Spread.Figure != "RxMbps" || cell.Spread.CVMilliPercent != c.cv || cell.Noisy {
			t.Fatalf("%v: spread %+v, want RxMbps %d unflagged", c.rx, cell.Spread, c.cv)
		}
		if got := FlagNoisy(&cell, c.percent); got != c.noisy || cell.Noisy != c.noisy {
			t.Errorf("%v at %d %%: noisy %v (%+v), want %v", c.rx, c.percent, got, cell.Spread, c.noisy)
		}
	}

	withInvalid := rxCell(1000, 1100)
	withInvalid.RepeatResults = append(withInvalid.RepeatResults, rep(sbv1.CellInvalid, 10, "no bytes"))
	Fill(&withInvalid)
	if withInvalid.Spread == nil || withInvalid.Spread.CVMilliPercent != 6734 { // mean 1050, s = 70.711: 6.734 %
		t.Errorf("spread over the Valid repeats only: %+v", withInvalid.Spread)
	}

	one := rxCell(1000)
	one.RepeatResults = append(one.RepeatResults, rep(sbv1.CellInvalid, 10, "no bytes"))
	Fill(&one)
	if one.Spread != nil || FlagNoisy(&one, 10) {
		t.Errorf("one Valid repeat has no spread, got %+v", one.Spread)
	}
}

// An NCCL cell's spread is its bus bandwidth's, a GPUCopy cell's its host-to-device rate's.
func TestFillSpreadOfKindsWithoutRx(t *testing.T) {
	nccl := func(busbw int64) sbv1.RepeatResult {
		return sbv1.RepeatResult{State: sbv1.CellValid, Collective: &sbv1.CollectiveResult{Sizes: []sbv1.CollectiveSize{
			{Bytes: 1 << 20, BusbwMBps: 10}, {Bytes: 1 << 30, BusbwMBps: busbw}, {Bytes: 1 << 30, InPlace: true, BusbwMBps: 1}}}}
	}
	c := sbv1.CellResult{RepeatResults: []sbv1.RepeatResult{nccl(40000), nccl(44000), nccl(48000)}}
	Fill(&c)
	if c.Spread == nil || c.Spread.Figure != "NCCLBusbwMBps" || c.Spread.CVMilliPercent != 9091 { // mean 44000, s = 4000
		t.Errorf("NCCL spread %+v, want NCCLBusbwMBps 9091", c.Spread)
	}
	copyRep := func(gpu0, gpu1 int64) sbv1.RepeatResult {
		return sbv1.RepeatResult{State: sbv1.CellValid, Copies: &sbv1.CopyResult{Sizes: []sbv1.CopySize{
			{Device: 0, Direction: "H2D", MegabytesPerSecond: gpu0}, {Device: 1, Direction: "H2D", MegabytesPerSecond: gpu1},
			{Device: 0, Direction: "D2H", MegabytesPerSecond: 1}}}}
	}
	c = sbv1.CellResult{RepeatResults: []sbv1.RepeatResult{copyRep(25000, 20000), copyRep(26000, 30000)}}
	Fill(&c)
	// the slowest GPU of each repeat: 20000 and 26000; mean 23000, s = 4242.64: 18.446 %
	if c.Spread == nil || c.Spread.Figure != "CopyH2DMBps" || c.Spread.CVMilliPercent != 18446 {
		t.Errorf("GPUCopy spread %+v, want CopyH2DMBps 18446", c.Spread)
	}
}
