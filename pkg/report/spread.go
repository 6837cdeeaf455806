package report

import (
	"fmt"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/aggregate"
	"github.com/spiralbench/spiralbench/pkg/figure"
)

// Spread is a cell's coefficient of variation in percent, "noisy" after it when flagged; none
// where the cell has no spread (fewer than two Valid repeats): unknown, never 0.
func Spread(c *sbv1.CellResult, none string) string {
	if c.Spread == nil {
		return none
	}
	out := figure.MilliPercent.Format(float64(c.Spread.CVMilliPercent))
	if c.Noisy {
		out += " noisy"
	}
	return out
}

// NoisyNote says under a table what a noisy cell's flag means; "" for a cell not flagged.
func NoisyNote(sb *sbv1.SpiralBench, c *sbv1.CellResult) string {
	if c.Spread == nil || !c.Noisy {
		return ""
	}
	note := fmt.Sprintf("noisy: %s spreads more than run.noisySpreadPercent (%d %%) over the Valid repeats, so its mean is uncertain; a flag, not a failure",
		c.Spread.Figure, aggregate.NoisyPercent(sb.Spec.Run.NoisySpreadPercent))
	if c.Spread.Figure == figure.Rx.Name { // the only spread a rule can name
		note += ", unless a rule bounds " + figure.RxCV.Name
	}
	return note
}
