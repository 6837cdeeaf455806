package aggregate

import (
	"math"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/figure"
)

// CVMilliPercent is the coefficient of variation of values, sample standard deviation / mean,
// in thousandths of a percent, rounded; false for fewer than two values or a mean of 0 or
// less, where it is unknown rather than 0.
func CVMilliPercent(values []int64) (int32, bool) {
	if len(values) < 2 {
		return 0, false
	}
	var sum float64
	for _, v := range values {
		sum += float64(v)
	}
	mean := sum / float64(len(values))
	if mean <= 0 {
		return 0, false
	}
	var sq float64
	for _, v := range values {
		d := float64(v) - mean
		sq += d * d
	}
	std := math.Sqrt(sq / float64(len(values)-1))
	return int32(min(math.Round(std/mean*100_000), math.MaxInt32)), true
}

// fillSpread sets the cell's spread from its headline figure over the Valid repeats (nil where
// it has none), unflagged: FlagNoisy judges it against the spec.
func fillSpread(cell *sbv1.CellResult) {
	cell.Spread = nil
	name, values := figure.HeadlineRepeats(cell)
	if cv, ok := CVMilliPercent(values); ok {
		cell.Spread = &sbv1.CellSpread{Figure: name, CVMilliPercent: cv}
	}
}

// FlagNoisy marks the cell noisy when its spread exceeds percent (run.noisySpreadPercent;
// 0, an undefaulted spec, is the default). It reports whether the cell is noisy.
func FlagNoisy(cell *sbv1.CellResult, percent int32) bool {
	cell.Noisy = cell.Spread != nil && int64(cell.Spread.CVMilliPercent) > int64(NoisyPercent(percent))*1000
	return cell.Noisy
}

// NoisyPercent is run.noisySpreadPercent, or its default where a spec was not defaulted.
func NoisyPercent(percent int32) int32 {
	if percent <= 0 {
		return sbv1.DefaultNoisySpreadPercent
	}
	return percent
}
