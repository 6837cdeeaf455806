// Package acceptance judges a finished bench's cell results against its rules. Pure: the
// controller turns the verdict into the Passed condition.
package acceptance

import (
	"fmt"
	"strings"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/figure"
)

// Verdict is the outcome of all rules.
type Verdict struct {
	Passed  bool
	Reason  string
	Message string
}

// Judge checks every rule against the cells of sb it selects (cells: the ones judged, all of
// sb's or its Valid ones). A rule that selects no measured cell fails: a gate must never pass
// because nothing was measured. sb's spec and environment give the ceilings of fraction rules.
func Judge(sb *sbv1.SpiralBench, rules []sbv1.AcceptanceRule, cells []sbv1.CellResult) Verdict {
	return JudgeWith(sb, rules, cells, nil, nil)
}

// JudgeWith is Judge plus what a baseline comparison held and broke.
func JudgeWith(sb *sbv1.SpiralBench, rules []sbv1.AcceptanceRule, cells []sbv1.CellResult, baselineHeld, baselineBroken []string) Verdict {
	if len(rules) == 0 && len(baselineHeld) == 0 && len(baselineBroken) == 0 {
		return Verdict{Passed: true, Reason: sbv1.ReasonNoRules, Message: "no acceptance rules"}
	}
	held, broken := append([]string{}, baselineHeld...), append([]string{}, baselineBroken...)
	for _, rule := range rules {
		judge := judgeRule
		if rule.MinFractionOfCeiling != "" {
			judge = func(rule sbv1.AcceptanceRule, cells []sbv1.CellResult) (string, bool) {
				return judgeFraction(sb, rule, cells)
			}
		}
		if msg, ok := judge(rule, cells); ok {
			held = append(held, msg)
		} else {
			broken = append(broken, msg)
		}
	}
	if len(broken) > 0 {
		return Verdict{Reason: sbv1.ReasonRulesBroken, Message: "broken: " + strings.Join(broken, "; ")}
	}
	return Verdict{Passed: true, Reason: sbv1.ReasonRulesHeld, Message: "held: " + strings.Join(held, "; ")}
}

func judgeRule(rule sbv1.AcceptanceRule, cells []sbv1.CellResult) (string, bool) {
	selected, broken := judgeSelected(rule, cells, func(c *sbv1.CellResult) string {
		got, ok := Value(rule.Metric, *c)
		switch {
		case !ok:
			return fmt.Sprintf("cell %d has no %s", c.Index, rule.Metric)
		case !compare(got, rule.Operator, rule.Value):
			return fmt.Sprintf("cell %d %s = %d, want %s %d", c.Index, rule.Metric, got, symbol(rule.Operator), rule.Value)
		}
		return ""
	})
	if broken != "" {
		return broken, false
	}
	if len(selected) == 1 {
		got, _ := Value(rule.Metric, selected[0])
		return fmt.Sprintf("%s: cell %d %s = %d %s %d", rule.Name, selected[0].Index, rule.Metric, got, symbol(rule.Operator), rule.Value), true
	}
	return fmt.Sprintf("%s: %d cells %s %s %d", rule.Name, len(selected), rule.Metric, symbol(rule.Operator), rule.Value), true
}

// judgeSelected is what every rule checks first, and in order: a selector matching no cell and
// a Failed cell break it; then check says why each other cell breaks it ("" when it holds).
// It returns the selected cells and the broken rule's message, "" when every cell held.
func judgeSelected(rule sbv1.AcceptanceRule, cells []sbv1.CellResult, check func(c *sbv1.CellResult) string) ([]sbv1.CellResult, string) {
	selected := Select(rule.Cells, cells)
	if len(selected) == 0 {
		return nil, fmt.Sprintf("%s: no cell matches its selector", rule.Name)
	}
	for i := range selected {
		c := &selected[i]
		if c.State == sbv1.CellFailed {
			return selected, fmt.Sprintf("%s: cell %d failed (%s)", rule.Name, c.Index, c.Message)
		}
		if why := check(c); why != "" {
			return selected, rule.Name + ": " + why
		}
	}
	return selected, ""
}

// Select returns the cells a selector picks.
func Select(sel sbv1.CellSelector, cells []sbv1.CellResult) []sbv1.CellResult {
	var out []sbv1.CellResult
	for _, c := range cells {
		if sel.Scope != sbv1.CellScopeEach {
			if c.Headline {
				out = append(out, c)
			}
			continue
		}
		p := c.Parameters
		if (sel.PayloadBytes == nil || *sel.PayloadBytes == p.PayloadBytes) &&
			(sel.Batch == nil || *sel.Batch == p.Batch) &&
			(sel.Pairs == nil || *sel.Pairs == p.Pairs) &&
			(sel.Queues == nil || *sel.Queues == p.Queues) &&
			(sel.TargetRateMbps == nil || *sel.TargetRateMbps == p.TargetRateMbps) {
			out = append(out, c)
		}
	}
	return out
}

// Value reads a metric of a cell from the figure table; false when the cell did not measure it.
func Value(m sbv1.Metric, c sbv1.CellResult) (int64, bool) {
	f, ok := figure.Lookup(string(m))
	if !ok {
		return 0, false
	}
	v, ok := f.Cell(&c)
	return int64(v), ok
}

func compare(got int64, op sbv1.Operator, want int64) bool {
	switch op {
	case sbv1.OperatorGreaterThanOrEqual:
		return got >= want
	case sbv1.OperatorGreaterThan:
		return got > want
	case sbv1.OperatorLessThanOrEqual:
		return got <= want
	case sbv1.OperatorLessThan:
		return got < want
	case sbv1.OperatorEqual:
		return got == want
	}
	return false
}

func symbol(op sbv1.Operator) string {
	return map[sbv1.Operator]string{
		sbv1.OperatorGreaterThanOrEqual: ">=", sbv1.OperatorGreaterThan: ">",
		sbv1.OperatorLessThanOrEqual: "<=", sbv1.OperatorLessThan: "<", sbv1.OperatorEqual: "==",
	}[op]
}
