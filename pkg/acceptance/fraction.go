package acceptance

import (
	"fmt"
	"strconv"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/explain"
)

// judgeFraction checks a minFractionOfCeiling rule: each selected cell's metric against the
// ceiling pkg/explain computes from the bench's own environment. An unknown ceiling breaks
// the rule with its reason: a relative threshold must not pass on a missing fact.
func judgeFraction(sb *sbv1.SpiralBench, rule sbv1.AcceptanceRule, cells []sbv1.CellResult) (string, bool) {
	want, err := strconv.ParseFloat(rule.MinFractionOfCeiling, 64)
	if err != nil || want <= 0 || want > 1 {
		return fmt.Sprintf("%s: minFractionOfCeiling %q is not a fraction in (0, 1]", rule.Name, rule.MinFractionOfCeiling), false
	}
	if sb == nil {
		return rule.Name + ": no bench to read the node's ceiling from", false
	}
	lowest := -1.0
	var lowestText string
	selected, broken := judgeSelected(rule, cells, func(c *sbv1.CellResult) string {
		e := explain.CellFigure(sb, c, string(rule.Metric))
		switch {
		case e.Measured == nil:
			return fmt.Sprintf("cell %d has no %s", c.Index, rule.Metric)
		case e.Fraction == nil:
			return fmt.Sprintf("cell %d %s ceiling unknown: %s", c.Index, rule.Metric, e.Unknown)
		}
		text := fmt.Sprintf("cell %d %s %.3f of %s (%s)", c.Index, rule.Metric, *e.Fraction, explain.FormatValue(e.Unit, *e.Ceiling), e.Name)
		if *e.Fraction < want {
			return fmt.Sprintf("%s, want >= %s", text, rule.MinFractionOfCeiling)
		}
		if lowest < 0 || *e.Fraction < lowest {
			lowest, lowestText = *e.Fraction, text
		}
		return ""
	})
	if broken != "" {
		return broken, false
	}
	if len(selected) == 1 {
		return fmt.Sprintf("%s: %s >= %s", rule.Name, lowestText, rule.MinFractionOfCeiling), true
	}
	return fmt.Sprintf("%s: %d cells %s >= %s of their ceilings (lowest %s)", rule.Name, len(selected), rule.Metric, rule.MinFractionOfCeiling, lowestText), true
}
