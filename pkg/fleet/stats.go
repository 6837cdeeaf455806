package fleet

import (
	"math"
	"sort"

	"github.com/spiralbench/spiralbench/pkg/figure"
)

// Median of values (the mean of the middle two for an even count); 0 for none.
func Median(values []int64) float64 { return figure.Median(values) }

// MAD is the median absolute deviation from the median, scaled by 1.4826 so that it
// estimates the standard deviation of normally distributed values, as robust statistics do.
func MAD(values []int64) float64 {
	med := Median(values)
	dev := make([]float64, len(values))
	for i, v := range values {
		dev[i] = math.Abs(float64(v) - med)
	}
	sort.Float64s(dev)
	if len(dev) == 0 {
		return 0
	}
	m := len(dev) / 2
	if len(dev)%2 == 1 {
		return 1.4826 * dev[m]
	}
	return 1.4826 * (dev[m-1] + dev[m]) / 2
}

// Outliers is the result of a straggler search over the round's values.
type Outliers struct {
	Median, MAD float64
	// Threshold is the value beyond which a node straggles (below it when higher is better).
	Threshold float64
	// Stragglers are the nodes beyond the threshold.
	Stragglers map[string]bool
}

// Stragglers flags the nodes worse than median - k x MAD (median + k x MAD for a
// lower-is-better metric). With fewer than minNodes values nothing is flagged. A MAD of 0
// (most nodes identical) is floored at 1% of the median, so a node 0.1% off is not a
// straggler just because its peers agree to the digit.
func Stragglers(values map[string]int64, k float64, minNodes int, higherBetter bool) Outliers {
	out := Outliers{Stragglers: map[string]bool{}}
	all := make([]int64, 0, len(values))
	for _, v := range values {
		all = append(all, v)
	}
	out.Median, out.MAD = Median(all), MAD(all)
	spread := max(out.MAD, math.Abs(out.Median)*0.01)
	if higherBetter {
		out.Threshold = out.Median - k*spread
	} else {
		out.Threshold = out.Median + k*spread
	}
	if len(all) < minNodes {
		return out
	}
	for node, v := range values {
		if (higherBetter && float64(v) < out.Threshold) || (!higherBetter && float64(v) > out.Threshold) {
			out.Stragglers[node] = true
		}
	}
	return out
}

// DeltaMilliPercent is (v - ref) / ref in thousandths of a percent, clamped to int32.
func DeltaMilliPercent(v int64, ref float64) int32 {
	if ref == 0 {
		return 0
	}
	d := (float64(v) - ref) / ref * 100000
	return int32(max(min(math.Round(d), math.MaxInt32), math.MinInt32))
}

// Regression is a node's comparison with its own history.
type Regression struct {
	// Samples of history used (repeats of the comparable runs).
	Samples int
	// Mean and Std of the history's repeats.
	Mean, Std float64
	// Threshold the current mean must not cross.
	Threshold float64
	// Regressed: the current mean is worse than Threshold.
	Regressed bool
}

// Regressed compares the current run's repeats with the history's: the run regressed when
// its mean is worse than history mean - k x std (sample standard deviation of the history's
// repeats) and worse by at least minPercent of the history mean. It needs at least two
// history samples; with fewer it returns Samples < 2 and no verdict.
func Regressed(history, current []int64, k, minPercent float64, higherBetter bool) Regression {
	r := Regression{Samples: len(history)}
	if len(history) < 2 || len(current) == 0 {
		return r
	}
	var sum float64
	for _, v := range history {
		sum += float64(v)
	}
	r.Mean = sum / float64(len(history))
	var ss float64
	for _, v := range history {
		ss += (float64(v) - r.Mean) * (float64(v) - r.Mean)
	}
	r.Std = math.Sqrt(ss / float64(len(history)-1))
	var cur float64
	for _, v := range current {
		cur += float64(v)
	}
	cur /= float64(len(current))
	margin := max(k*r.Std, math.Abs(r.Mean)*minPercent/100)
	if higherBetter {
		r.Threshold = r.Mean - margin
		r.Regressed = cur < r.Threshold
	} else {
		r.Threshold = r.Mean + margin
		r.Regressed = cur > r.Threshold
	}
	return r
}
