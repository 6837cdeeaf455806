// Package figure is the one table of what a bench measures: each figure's name, unit, which way
// is better, and how it is read from a cell and from one repeat. Acceptance rules, the fleet's
// references, history and stragglers, sbctl compare, and every view of a result (tables, the
// HTML report, plots, metrics, the baseline and the tally) read figures and their units
// through it.
package figure

import (
	"sort"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// A Figure is one number of a cell. The names of the stream figures are sbv1.Metric's.
type Figure struct {
	Name string
	Unit Unit
	// HigherIsBetter: throughput up; latency, loss and busy shares down.
	HigherIsBetter bool
	// Cell reads the figure of a cell; false when the cell did not measure it.
	Cell func(c *sbv1.CellResult) (float64, bool)
	// Repeat reads it from one repeat; nil for figures a repeat does not carry.
	Repeat func(rr *sbv1.RepeatResult) (float64, bool)
	// Stat reads the statistic over the repeats (mean and spread) behind a figure that has one;
	// nil for the others, and a nil statistic where the cell lacks it.
	Stat func(c *sbv1.CellResult) *sbv1.Statistic
}

// Mean is a statistic figure's exact integer mean (what a baseline keeps and compares without
// a float's rounding); false where the cell lacks it or the figure has no statistic.
func (f Figure) Mean(c *sbv1.CellResult) (int64, bool) {
	if f.Stat == nil {
		return 0, false
	}
	if s := f.Stat(c); s != nil {
		return s.Mean, true
	}
	return 0, false
}

// StatText prints a statistic figure of the cell as mean, sep, spread in its shown unit; none
// where the cell lacks it.
func (f Figure) StatText(c *sbv1.CellResult, sep, none string) string {
	if f.Stat == nil {
		return none
	}
	return f.Unit.FormatStat(f.Stat(c), sep, none)
}

var table = map[string]Figure{}

func add(f Figure) { table[f.Name] = f }

// Lookup returns the figure of that name.
func Lookup(name string) (Figure, bool) {
	f, ok := table[name]
	return f, ok
}

// HigherIsBetter says which way a figure improves; true for a name the table lacks.
func HigherIsBetter(name string) bool {
	if f, ok := table[name]; ok {
		return f.HigherIsBetter
	}
	return true
}

// UnitOf names a figure's unit, for messages and tables; "" for a name the table lacks.
func UnitOf(name string) string { return table[name].Unit.Name }

// Names lists every figure, sorted.
func Names() []string {
	out := make([]string, 0, len(table))
	for n := range table {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Median of values; 0 for none.
func Median(values []int64) float64 {
	if len(values) == 0 {
		return 0
	}
	s := append([]int64(nil), values...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	m := len(s) / 2
	if len(s)%2 == 1 {
		return float64(s[m])
	}
	return (float64(s[m-1]) + float64(s[m])) / 2
}
