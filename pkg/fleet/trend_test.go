package fleet

import (
	"math"
	"strings"
	"testing"
)

// The reference numbers come from scipy.stats.theilslopes(y, alpha=confidence,
// method="joint"), printed by testdata/stats_reference.py:
//
//	/tmp/statsref/bin/python pkg/fleet/testdata/stats_reference.py
//
// Keep the datasets here and in the script the same.
func TestTrendMatchesScipy(t *testing.T) {
	cases := []struct {
		name                string
		values              []float64
		confidence          float64
		slope, intercept    float64
		slopeLow, slopeHigh float64
	}{
		{"declining", []float64{100, 99.5, 99.8, 98.9, 98.7, 98.0, 97.9, 97.1}, 0.95,
			-0.40000000000000047, 100.05000000000001, -0.5400000000000006, -0.29999999999999716},
		{"ties", []float64{5, 5, 6, 5, 7, 7, 8, 6, 9, 9}, 0.95,
			0.5, 4.75, 0.16666666666666666, 0.6},
		{"short90", []float64{3.0, 3.4, 3.1, 3.9, 4.2}, 0.90,
			0.30000000000000004, 3.0, 0.050000000000000044, 0.55},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := TrendAt(c.values, c.confidence)
			if r.Reason != "" || r.N != len(c.values) || r.Confidence != c.confidence {
				t.Fatalf("%+v", r)
			}
			closeRel(t, "Slope", r.Slope, c.slope)
			closeRel(t, "Intercept", r.Intercept, c.intercept)
			closeRel(t, "SlopeLow", r.SlopeLow, c.slopeLow)
			closeRel(t, "SlopeHigh", r.SlopeHigh, c.slopeHigh)
		})
	}
	if Trend([]float64{1, 2, 4}).Confidence != TrendConfidence {
		t.Error("Trend should use TrendConfidence")
	}
}

func TestTrendIgnoresOneBadRound(t *testing.T) {
	values := []float64{100, 100, 100, 100, 40, 100, 100, 100}
	if r := Trend(values); r.Slope != 0 || r.Intercept != 100 {
		t.Errorf("one bad round moved the trend: %+v", r)
	}
}

func TestTrendDegenerateInputs(t *testing.T) {
	for _, c := range []struct {
		values     []float64
		confidence float64
		reason     string
	}{
		{nil, 0.95, "at least 2"},
		{[]float64{3}, 0.95, "at least 2"},
		{[]float64{3, math.Inf(1)}, 0.95, "NaN or Inf"},
		{[]float64{3, 4}, 1, "confidence"},
	} {
		r := TrendAt(c.values, c.confidence)
		if !strings.Contains(r.Reason, c.reason) || r.Slope != 0 {
			t.Errorf("%v: %+v", c.values, r)
		}
		if crosses, _ := CrossesWithin(r, 0, true, 10); crosses {
			t.Errorf("%v: no trend, yet it crosses", c.values)
		}
	}
	// All values tied: flat, with a zero-width interval rather than a failure.
	if r := Trend([]float64{7, 7, 7, 7}); r.Reason != "" || r.Slope != 0 || r.SlopeLow != 0 || r.SlopeHigh != 0 || r.Intercept != 7 {
		t.Errorf("flat: %+v", r)
	}
}

func TestCrossesWithin(t *testing.T) {
	// The "declining" reference: level at round 7 is 100.05 - 0.4*7 = 97.25; the milder
	// bound -0.3 reaches 96 after (97.25-96)/0.3 = 4.17 rounds, so below it at round 5.
	declining := Trend([]float64{100, 99.5, 99.8, 98.9, 98.7, 98.0, 97.9, 97.1})
	closeRel(t, "Level", declining.Level(), 97.25)
	mirrored := declining
	mirrored.Slope, mirrored.Intercept = -declining.Slope, -declining.Intercept
	mirrored.SlopeLow, mirrored.SlopeHigh = -declining.SlopeHigh, -declining.SlopeLow
	for _, c := range []struct {
		name           string
		tr             TrendResult
		threshold      float64
		higherIsBetter bool
		rounds         int
		crosses        bool
		after          int
	}{
		{"reaches it in 5", declining, 96, true, 5, true, 5},
		{"not within 4", declining, 96, true, 4, false, 0},
		{"already below", declining, 98, true, 3, true, 0},
		{"at the level is not below", declining, 97.25, true, 0, false, 0},
		{"no rounds", declining, 96, true, 0, false, 0},
		{"latency rising", mirrored, -96, false, 5, true, 5},
		{"latency not within 4", mirrored, -96, false, 4, false, 0},
		// The same data read as a lower-is-better figure is improving: never crosses.
		{"improving", declining, 110, false, 1000, false, 0},
	} {
		crosses, after := CrossesWithin(c.tr, c.threshold, c.higherIsBetter, c.rounds)
		if crosses != c.crosses || after != c.after {
			t.Errorf("%s: got %v, %d; want %v, %d", c.name, crosses, after, c.crosses, c.after)
		}
	}
	// A downward point estimate whose interval includes zero is noise: not flagged.
	noisy := Trend([]float64{100, 101, 99, 100.5, 98.5, 100, 99})
	if noisy.Slope >= 0 || noisy.SlopeHigh < 0 {
		t.Fatalf("want a negative slope with an interval over zero: %+v", noisy)
	}
	if crosses, _ := CrossesWithin(noisy, 90, true, 1000); crosses {
		t.Errorf("noise flagged: %+v", noisy)
	}
}
