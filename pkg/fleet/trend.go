package fleet

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// TrendConfidence is the confidence of Trend's slope interval.
const TrendConfidence = 0.95

// TrendResult is a robust straight-line fit of a node's figure over its rounds.
type TrendResult struct {
	// N is the number of values (rounds) fitted, at x = 0..N-1.
	N int
	// Slope is the Theil–Sen slope, the median of all pairwise slopes, in figure units
	// per round; Intercept the median of y - Slope*x, the line's value at round 0.
	Slope, Intercept float64
	// SlopeLow and SlopeHigh bound the slope with the given Confidence (Sen 1968).
	SlopeLow, SlopeHigh float64
	Confidence          float64
	// Reason is non-empty when there is no trend to speak of (fewer than 2 values or
	// non-finite ones); the numbers are then zero.
	Reason string
}

// Level is the trend line's value at the latest round, x = N-1.
func (t TrendResult) Level() float64 { return t.Intercept + t.Slope*float64(t.N-1) }

// Trend is TrendAt with TrendConfidence.
func Trend(values []float64) TrendResult { return TrendAt(values, TrendConfidence) }

// TrendAt fits the Theil–Sen line to values over x = 0..n-1. Theil–Sen is used because a
// single bad round moves it little (breakdown point 29%), unlike least squares.
//
// The slope interval is Sen's (1968, eq. 2.6), from the normal approximation of Kendall's
// S: with N pairwise slopes sorted ascending and σ² = [n(n-1)(2n+5) - Σ t(t-1)(2t+5)]/18
// (t over groups of tied values), the bounds are the slopes at 1-based ranks
// round((N - zσ)/2) and round((N + zσ)/2) + 1, z the 1-(1-confidence)/2 normal quantile,
// clipped to the sorted slopes. Rounding is half to even, which makes the numbers match
// scipy.stats.theilslopes.
func TrendAt(values []float64, confidence float64) TrendResult {
	n := len(values)
	r := TrendResult{N: n, Confidence: confidence}
	switch {
	case n < 2:
		r.Reason = fmt.Sprintf("%d values: a trend needs at least 2", n)
		return r
	case !allFinite(values):
		r.Reason = "values hold NaN or Inf"
		return r
	case !(confidence > 0 && confidence < 1):
		r.Reason = "confidence must lie in (0, 1)"
		return r
	}

	slopes := make([]float64, 0, n*(n-1)/2)
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			slopes = append(slopes, (values[j]-values[i])/float64(j-i))
		}
	}
	slices.Sort(slopes)
	r.Slope = sortedMedian(slopes)
	residuals := make([]float64, n)
	for i, y := range values {
		residuals[i] = y - r.Slope*float64(i)
	}
	slices.Sort(residuals)
	r.Intercept = sortedMedian(residuals)

	nf := float64(n)
	varS := nf*(nf-1)*(2*nf+5) - tieCorrection(values)
	z := distuv.UnitNormal.Quantile(1 - (1-confidence)/2)
	spread := z * math.Sqrt(varS/18)
	count := float64(len(slopes))
	// 0-based indices into the sorted slopes.
	low := max(int(math.RoundToEven((count-spread)/2))-1, 0)
	high := min(int(math.RoundToEven((count+spread)/2)), len(slopes)-1)
	r.SlopeLow, r.SlopeHigh = slopes[low], slopes[high]
	return r
}

// tieCorrection is Σ t(t-1)(2t+5) over groups of t equal values, what ties take off the
// variance of Kendall's S. The x values (round indices) never tie.
func tieCorrection(values []float64) float64 {
	sorted := slices.Sorted(slices.Values(values))
	var sum float64
	for i := 0; i < len(sorted); {
		j := i + 1
		for j < len(sorted) && sorted[j] == sorted[i] {
			j++
		}
		if t := float64(j - i); t > 1 {
			sum += t * (t - 1) * (2*t + 5)
		}
		i = j
	}
	return sum
}

func sortedMedian(sorted []float64) float64 {
	m := len(sorted) / 2
	if len(sorted)%2 == 1 {
		return sorted[m]
	}
	return (sorted[m-1] + sorted[m]) / 2
}

// CrossesWithin says whether the trend takes the figure past threshold (below it when
// higher is better, above it otherwise) within the next rounds rounds, and after how many
// rounds from the latest (0 when the trend line is already past it).
//
// It projects from the line's latest level (Level) with the slope bound on the better side
// (SlopeHigh when higher is better, SlopeLow otherwise), not the point estimate: a node is
// flagged only when even the mildest decline the data allow at the trend's confidence
// reaches the threshold, so noise alone flags few nodes. A bound on the improving side of
// zero therefore never crosses. Reaching the threshold exactly is not crossing, as in
// Reference.Holds.
func CrossesWithin(tr TrendResult, threshold float64, higherIsBetter bool, rounds int) (bool, int) {
	if tr.Reason != "" || tr.N < 2 || math.IsNaN(threshold) {
		return false, 0
	}
	level, slope := tr.Level(), tr.SlopeHigh
	if !higherIsBetter { // mirror so that "down is worse" below
		level, slope, threshold = -level, -tr.SlopeLow, -threshold
	}
	if level < threshold {
		return true, 0
	}
	if slope >= 0 || rounds < 1 {
		return false, 0
	}
	// First whole k with level + slope*k < threshold.
	k := math.Floor((level-threshold)/-slope) + 1
	if k > float64(rounds) {
		return false, 0
	}
	return true, int(k)
}
