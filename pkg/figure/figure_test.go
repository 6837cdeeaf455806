package figure

import (
	"os"
	"regexp"
	"strings"
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// Every metric an acceptance rule or a fleet may name (the API's enums, read from their
// markers so a new enum value cannot miss the table) has a figure, with a unit.
func TestEveryMetricTheAPINamesIsInTheTable(t *testing.T) {
	enum := regexp.MustCompile(`\+kubebuilder:validation:Enum=((?:[A-Za-z0-9]+;?)+)\ntype (Metric|FleetMetric) string`)
	for _, file := range []string{"../../api/v1alpha1/acceptance_types.go", "../../api/v1alpha1/fleet_types.go"} {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		m := enum.FindSubmatch(src)
		if m == nil {
			t.Fatalf("%s: no Metric enum marker", file)
		}
		for _, name := range strings.Split(string(m[1]), ";") {
			if f, ok := Lookup(name); !ok || f.Unit.Name == "" || f.Cell == nil {
				t.Errorf("%s names %q, which the figure table lacks", file, name)
			}
		}
	}
}

// A cell's figures read what the cell measured, and say when it did not.
func TestCellFiguresReadTheCell(t *testing.T) {
	c := &sbv1.CellResult{Repeats: 1, RXMbps: &sbv1.Statistic{Mean: 940, StdDev: 3}, LossPPM: 0,
		CPU: &sbv1.CPUBusy{TXMilliPercent: -1, RXMilliPercent: 42500}}
	cases := map[string]struct {
		want float64
		ok   bool
	}{
		"RxMbps": {940, true}, "RxMbpsStdDev": {3, true}, "TxMbps": {0, false}, "LossPPM": {0, true},
		"CPUTXMilliPercent": {0, false}, "CPURXMilliPercent": {42500, true}, "LatencyP99Nanoseconds": {0, false},
		"NDRMbps": {0, false}, "NCCLBusbwMBps": {0, false},
	}
	for name, want := range cases {
		f, _ := Lookup(name)
		if got, ok := f.Cell(c); got != want.want || ok != want.ok {
			t.Errorf("%s = %v, %v; want %v, %v", name, got, ok, want.want, want.ok)
		}
	}
	if HigherIsBetter("LatencyP99Nanoseconds") || !HigherIsBetter("NCCLBusbwMBps") || HigherIsBetter("LossPPM") {
		t.Error("latency and loss improve downwards, bandwidth upwards")
	}
}

// Two GPUs whose rows were trimmed to fit the summary: each GPU's rate alone at the largest size
// (the host aggregate) stands for the rows it lost, so the slowest GPU is not a 1 KiB row.
func TestCopyFigureReadsTrimmedRowsFromTheHostAggregate(t *testing.T) {
	rr := sbv1.RepeatResult{State: sbv1.CellValid, Copies: &sbv1.CopyResult{
		GPUs: []sbv1.GPUPlacement{{Device: 0}, {Device: 1}},
		Sizes: []sbv1.CopySize{{Device: 0, Direction: "D2H", HostMemory: "Pinned", Bytes: 256 << 20, MegabytesPerSecond: 55305},
			{Device: 1, Direction: "D2H", HostMemory: "Pinned", Bytes: 1024, MegabytesPerSecond: 426}},
		HostAggregate: []sbv1.CopyHostAggregate{{Direction: "D2H", Bytes: 256 << 20, AloneMBps: []int64{54935, 55262}}}}}
	c := &sbv1.CellResult{Repeats: 1, RepeatResults: []sbv1.RepeatResult{rr}}
	if v, ok := Lookup("CopyD2HMBps"); !ok {
		t.Fatal("no CopyD2HMBps")
	} else if got, _ := v.Cell(c); got != 55262 {
		t.Errorf("D2H of the slower GPU: %v, want 55262", got)
	}
}

// A device-local copy reads at its largest size: 16 MiB fits the L2 cache and runs faster than
// the memory.
func TestD2DCopyFigureIsTheLargestSize(t *testing.T) {
	rr := sbv1.RepeatResult{State: sbv1.CellValid, Copies: &sbv1.CopyResult{Sizes: []sbv1.CopySize{
		{Device: 0, Direction: "D2D", HostMemory: "Device", Bytes: 16 << 20, MegabytesPerSecond: 2468980},
		{Device: 0, Direction: "D2D", HostMemory: "Device", Bytes: 256 << 20, MegabytesPerSecond: 2080456}}}}
	c := &sbv1.CellResult{Repeats: 1, RepeatResults: []sbv1.RepeatResult{rr}}
	f, _ := Lookup("CopyD2DMBps")
	if got, ok := f.Cell(c); !ok || got != 2080456 {
		t.Errorf("D2D %v %v, want 2080456 (256 MiB)", got, ok)
	}
}
