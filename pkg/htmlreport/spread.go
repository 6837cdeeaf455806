package htmlreport

import (
	"fmt"
	"strings"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/aggregate"
	"github.com/spiralbench/spiralbench/pkg/figure"
	"github.com/spiralbench/spiralbench/pkg/report"
)

// spread is a cell's spread cell of the table: the CV in percent, what figure it is of (the
// tooltip), and whether it is flagged noisy; the page's dash under two Valid repeats.
func spread(c *sbv1.CellResult) (text, title string, noisy bool) {
	if c.Spread == nil {
		return missing, "", false
	}
	return report.Spread(c, missing), "coefficient of variation of " + c.Spread.Figure + " over the Valid repeats", c.Noisy
}

// noisyNote names the noisy cells and says what the flag means and how a rule bounds it.
func noisyNote(sb *sbv1.SpiralBench) string {
	var cells []string
	rx := false // a rule can bound only an RX spread
	for _, c := range sb.Status.CellResults {
		if c.Spread != nil && c.Noisy {
			cells = append(cells, fmt.Sprint(c.Index))
			rx = rx || c.Spread.Figure == figure.Rx.Name
		}
	}
	if len(cells) == 0 {
		return ""
	}
	word := "Cell %s is"
	if len(cells) > 1 {
		word = "Cells %s are"
	}
	note := fmt.Sprintf(word+" noisy: the headline figure spread more than spec.run.noisySpreadPercent (%d %%) over the repeats, so the mean is uncertain. A flag, not a failure",
		strings.Join(cells, ", "), aggregate.NoisyPercent(sb.Spec.Run.NoisySpreadPercent))
	if rx {
		note += ": a rule on " + figure.RxCV.Name + " bounds the spread where the verdict should depend on it"
	}
	return note + "."
}
