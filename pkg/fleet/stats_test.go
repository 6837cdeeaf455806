package fleet

import (
	"fmt"
	"math"
	"testing"
)

func TestMedianAndMAD(t *testing.T) {
	if m := Median([]int64{5, 1, 3}); m != 3 {
		t.Fatalf("median %v", m)
	}
	if m := Median([]int64{4, 1, 3, 2}); m != 2.5 {
		t.Fatalf("median %v", m)
	}
	// deviations from 3: 2,1,0,1,97 -> median 1 -> MAD 1.4826
	if d := MAD([]int64{1, 2, 3, 4, 100}); math.Abs(d-1.4826) > 1e-9 {
		t.Fatalf("MAD %v", d)
	}
}

func TestStragglersFlagsOnlyTheSlowTail(t *testing.T) {
	values := map[string]int64{}
	for i := 0; i < 20; i++ {
		values[fmt.Sprintf("n%02d", i)] = 98000 + int64(i%5)*200 // 98000..98800
	}
	values["slow"] = 60000
	values["fast"] = 140000 // faster than the pool is not a straggler
	out := Stragglers(values, 3, 5, true)
	if len(out.Stragglers) != 1 || !out.Stragglers["slow"] {
		t.Fatalf("stragglers %v (median %v MAD %v threshold %v)", out.Stragglers, out.Median, out.MAD, out.Threshold)
	}
	// Latency: higher is worse.
	lat := map[string]int64{"a": 2000, "b": 2100, "c": 1900, "d": 2050, "e": 9000}
	if out := Stragglers(lat, 3, 5, false); !out.Stragglers["e"] || len(out.Stragglers) != 1 {
		t.Fatalf("latency stragglers %v", out.Stragglers)
	}
	if out := Stragglers(lat, 3, 6, false); len(out.Stragglers) != 0 {
		t.Fatalf("below minNodes nothing is flagged, got %v", out.Stragglers)
	}
}

func TestStragglersIdenticalPeersNeedARealGap(t *testing.T) {
	values := map[string]int64{"a": 1000, "b": 1000, "c": 1000, "d": 1000, "e": 999, "f": 900}
	out := Stragglers(values, 3, 5, true)
	if out.Stragglers["e"] || !out.Stragglers["f"] {
		t.Fatalf("MAD 0 is floored at 1%% of the median: %v threshold %v", out.Stragglers, out.Threshold)
	}
}

func TestRegressedAgainstHistory(t *testing.T) {
	history := []int64{1000, 1010, 990, 1005, 995}
	if r := Regressed(history, []int64{1001, 999}, 3, 2, true); r.Regressed {
		t.Fatalf("same level flagged: %+v", r)
	}
	if r := Regressed(history, []int64{900, 905}, 3, 2, true); !r.Regressed || r.Samples != 5 {
		t.Fatalf("10%% drop not flagged: %+v", r)
	}
	// The floor: a tiny, very stable history does not flag 1% of noise.
	if r := Regressed([]int64{1000, 1000, 1000}, []int64{990}, 3, 2, true); r.Regressed {
		t.Fatalf("1%% below a zero-std history flagged: %+v", r)
	}
	// Lower is better (latency): a rise regresses.
	if r := Regressed([]int64{2000, 2020, 1980}, []int64{2600}, 3, 2, false); !r.Regressed {
		t.Fatalf("latency rise not flagged: %+v", r)
	}
	if r := Regressed([]int64{1000}, []int64{10}, 3, 2, true); r.Regressed || r.Samples != 1 {
		t.Fatalf("one sample is no baseline: %+v", r)
	}
}

func TestDeltaMilliPercent(t *testing.T) {
	if d := DeltaMilliPercent(95, 100); d != -5000 {
		t.Fatalf("delta %d", d)
	}
	if d := DeltaMilliPercent(5, 0); d != 0 {
		t.Fatalf("delta vs 0: %d", d)
	}
}
