package aggregate

import (
	"strings"
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

func TestStatIsMeanAndSampleStdDev(t *testing.T) {
	// 97200 +- 2800 style: values 94400, 97200, 100000 -> mean 97200, sample std 2800.
	if got := Stat([]int64{94400, 97200, 100000}); got.Mean != 97200 || got.StdDev != 2800 {
		t.Errorf("Stat = %+v, want 97200 +- 2800", got)
	}
	if got := Stat([]int64{5}); got.Mean != 5 || got.StdDev != 0 {
		t.Errorf("one repeat: %+v", got)
	}
	if got := Stat(nil); got != (sbv1.Statistic{}) {
		t.Errorf("no repeats: %+v", got)
	}
}

func rep(state sbv1.CellState, rx int64, msg string) sbv1.RepeatResult {
	return sbv1.RepeatResult{State: state, TXMbps: rx, RXMbps: rx, PacketsPerSecond: rx * 10, Drops: 1, DropsKind: "tcp-nstat-retrans+inerrs",
		CPU: &sbv1.CPUBusy{MasterMilliPercent: 1000, TXMilliPercent: 90000, RXMilliPercent: 80000}, Message: msg}
}

func TestFillValidCell(t *testing.T) {
	c := sbv1.CellResult{RepeatResults: []sbv1.RepeatResult{rep(sbv1.CellValid, 100, ""), rep(sbv1.CellValid, 200, ""), rep(sbv1.CellValid, 300, "")}}
	Fill(&c)
	if c.State != sbv1.CellValid || c.Repeats != 3 {
		t.Fatalf("state %s repeats %d", c.State, c.Repeats)
	}
	if c.RXMbps.Mean != 200 || c.RXMbps.StdDev != 100 || c.PacketsPerSecond.Mean != 2000 {
		t.Errorf("rx %+v pps %+v", c.RXMbps, c.PacketsPerSecond)
	}
	if c.Drops != 3 || c.DropsKind != "tcp-nstat-retrans+inerrs" || c.CPU.TXMilliPercent != 90000 {
		t.Errorf("drops %d %q cpu %+v", c.Drops, c.DropsKind, c.CPU)
	}
}

func TestFillInvalidRepeatMakesTheCellInvalidButKeepsValidNumbers(t *testing.T) {
	c := sbv1.CellResult{RepeatResults: []sbv1.RepeatResult{rep(sbv1.CellValid, 100, ""), rep(sbv1.CellInvalid, 0, "server: no bytes received")}}
	Fill(&c)
	if c.State != sbv1.CellInvalid || !strings.Contains(c.Message, "1 of 2 repeats invalid; first: server: no bytes received") {
		t.Errorf("state %s message %q", c.State, c.Message)
	}
	if c.RXMbps.Mean != 100 {
		t.Errorf("the numbers come from the valid repeats only: %+v", c.RXMbps)
	}
}

func TestFillLatencyKeepsTheWorstTailOfTheRepeats(t *testing.T) {
	lat := func(min, p50, p99, max int64) sbv1.RepeatResult {
		r := rep(sbv1.CellValid, 100, "")
		r.Latency = &sbv1.Latency{MinNanoseconds: min, P50Nanoseconds: p50, P99Nanoseconds: p99, P999Nanoseconds: (p99 + max) / 2, MaxNanoseconds: max}
		return r
	}
	c := sbv1.CellResult{RepeatResults: []sbv1.RepeatResult{lat(1100, 1500, 2100, 9000), lat(1000, 1700, 4000, 5000), lat(1200, 1400, 1900, 30000)}}
	Fill(&c)
	want := sbv1.Latency{MinNanoseconds: 1000, P50Nanoseconds: 1500, P99Nanoseconds: 4000, P999Nanoseconds: 15950, MaxNanoseconds: 30000}
	if c.Latency == nil || *c.Latency != want {
		t.Errorf("latency %+v, want %+v", c.Latency, want)
	}
	c = sbv1.CellResult{RepeatResults: []sbv1.RepeatResult{rep(sbv1.CellValid, 100, "")}}
	if Fill(&c); c.Latency != nil {
		t.Errorf("a bandwidth cell has no latency: %+v", c.Latency)
	}
}
