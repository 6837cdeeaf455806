// Package compare tells whether one run of a bench got worse than another: cells are matched by
// their parameters, each metric's repeats are compared with Welch's t-test, and a cell is worse
// when the change is significant, in the bad direction, and beyond a tolerance. Pure: sbctl
// compare fetches the runs (from the cluster or the bucket) and turns the result into an exit code.
package compare

import (
	"fmt"
	"math"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/benchkind"
	"github.com/spiralbench/spiralbench/pkg/figure"
	"github.com/spiralbench/spiralbench/pkg/report"
)

// Options set what counts as worse.
type Options struct {
	// TolerancePct: changes up to this many percent are accepted even when significant.
	TolerancePct float64 `json:"tolerancePct"`
	// Alpha is the significance level of the two-sided test.
	Alpha float64 `json:"alpha"`
}

// DefaultOptions: 5 % tolerance at the 5 % level.
var DefaultOptions = Options{TolerancePct: 5, Alpha: 0.05}

// Verdicts of one row.
const (
	Worse         = "worse"
	Better        = "better"
	WithinTol     = "within tolerance"
	NoChange      = "no significant change"
	TooFew        = "not judged (fewer than 2 repeats)"
	FailedInB     = "failed in B"
	FailedInA     = "failed in A only"
	FailedInBoth  = "failed in both"
	NoMeasurement = "no measurement"
)

// Sample is a metric over a cell's valid repeats.
type Sample struct {
	Mean float64 `json:"mean"`
	Std  float64 `json:"std"`
	N    int     `json:"n"`
}

// Row is one metric of one cell present in both runs.
type Row struct {
	CellA      int32   `json:"cellA"`
	CellB      int32   `json:"cellB"`
	Parameters string  `json:"parameters"`
	Metric     string  `json:"metric"`
	A          Sample  `json:"a"`
	B          Sample  `json:"b"`
	DeltaPct   float64 `json:"deltaPct"`
	T          float64 `json:"t"`
	DF         float64 `json:"df"`
	P          float64 `json:"p"`
	Verdict    string  `json:"verdict"`
}

// EnvDiff is one environment field that differs between the runs.
type EnvDiff struct {
	Field string `json:"field"`
	A     string `json:"a"`
	B     string `json:"b"`
}

// Result is the whole comparison.
type Result struct {
	A       string   `json:"a"`
	B       string   `json:"b"`
	Options Options  `json:"options"`
	Rows    []Row    `json:"rows"`
	OnlyInA []string `json:"onlyInA,omitempty"`
	OnlyInB []string `json:"onlyInB,omitempty"`
	// Spec lists the fields of the two specs that change what was measured, first in the text.
	Spec        []SpecDiff `json:"specDifferences,omitempty"`
	Environment []EnvDiff  `json:"environmentDifferences,omitempty"`
	// NotCaptured names environment keys only one run captured: unknown, not different.
	NotCaptured []string `json:"environmentNotCaptured,omitempty"`
	// Worse counts rows whose verdict is worse or failed in B: what a CI gate fails on.
	Worse int `json:"worse"`
}

// metric is a figure of pkg/figure's table read per repeat, shown under its label in its scale
// (RX in Gb/s, latency in µs); the figure says which direction is worse.
type metric struct {
	name           string
	higherIsBetter bool
	get            func(r sbv1.RepeatResult) (float64, bool)
}

// scaled labels a figure "<what> <shown unit>" and reads it in the shown unit.
func scaled(what, name string) metric {
	f, _ := figure.Lookup(name)
	return metric{what + " " + f.Unit.Shown, f.HigherIsBetter, func(r sbv1.RepeatResult) (float64, bool) {
		v, ok := f.Repeat(&r)
		return f.Unit.Scaled(v), ok
	}}
}

var metrics = []metric{
	scaled("RX", string(sbv1.MetricRxMbps)),
	scaled("p50 latency", string(sbv1.MetricLatencyP50Nanoseconds)),
	scaled("p99 latency", string(sbv1.MetricLatencyP99Nanoseconds)),
}

// Compare judges run b against run a.
func Compare(a, b *sbv1.SpiralBench, opts Options) (Result, error) {
	res := Result{A: Name(a), B: Name(b), Options: opts, Spec: specDiff(a.Spec, b.Spec)}
	res.Environment, res.NotCaptured = envCompare(a, b)
	if a.Spec.Transport != b.Spec.Transport {
		return res, fmt.Errorf("%s is %s and %s is %s: compare runs of one transport", res.A, a.Spec.Transport, res.B, b.Spec.Transport)
	}
	byParams := map[sbv1.CellParameters]sbv1.CellResult{}
	for _, c := range b.Status.CellResults {
		byParams[c.Parameters] = c
	}
	matched := map[sbv1.CellParameters]bool{}
	for _, ca := range a.Status.CellResults {
		label := benchkind.Parameters(a.Spec.Transport, ca.Parameters)
		cb, ok := byParams[ca.Parameters]
		if !ok {
			res.OnlyInA = append(res.OnlyInA, label)
			continue
		}
		matched[ca.Parameters] = true
		for _, m := range metrics {
			if row, ok := judge(ca, cb, m, opts); ok {
				row.Parameters = label
				res.Rows = append(res.Rows, row)
				if row.Verdict == Worse || row.Verdict == FailedInB {
					res.Worse++
				}
			}
		}
	}
	for _, cb := range b.Status.CellResults {
		if !matched[cb.Parameters] {
			res.OnlyInB = append(res.OnlyInB, benchkind.Parameters(b.Spec.Transport, cb.Parameters))
		}
	}
	if len(matched) == 0 {
		return res, fmt.Errorf("%s and %s have no cell with the same parameters: nothing to compare", res.A, res.B)
	}
	return res, nil
}

// judge compares one metric of a matched cell; ok is false when neither run has the metric.
func judge(ca, cb sbv1.CellResult, m metric, opts Options) (Row, bool) {
	row := Row{CellA: ca.Index, CellB: cb.Index, Metric: m.name}
	xa, xb := values(ca, m), values(cb, m)
	failedA, failedB := ca.State == sbv1.CellFailed, cb.State == sbv1.CellFailed
	switch {
	case failedA && failedB:
		row.Verdict = FailedInBoth
		return row, m.name == metrics[0].name
	case failedB:
		row.Verdict, row.A = FailedInB, sample(xa)
		return row, len(xa) > 0 || m.name == metrics[0].name
	case failedA:
		row.Verdict, row.B = FailedInA, sample(xb)
		return row, len(xb) > 0 || m.name == metrics[0].name
	case len(xa) == 0 && len(xb) == 0:
		return row, false
	case len(xa) == 0 || len(xb) == 0:
		row.Verdict = NoMeasurement
		row.A, row.B = sample(xa), sample(xb)
		return row, true
	}
	row.A, row.B = sample(xa), sample(xb)
	if row.A.Mean != 0 {
		row.DeltaPct = (row.B.Mean - row.A.Mean) / math.Abs(row.A.Mean) * 100
	}
	w := WelchTest(xa, xb)
	row.T, row.DF, row.P = w.T, w.DF, w.P
	bad := row.DeltaPct < 0
	if !m.higherIsBetter {
		bad = row.DeltaPct > 0
	}
	switch {
	case !w.OK:
		row.Verdict = TooFew
	case w.P >= opts.Alpha:
		row.Verdict = NoChange
	case math.Abs(row.DeltaPct) <= opts.TolerancePct:
		row.Verdict = WithinTol
	case bad:
		row.Verdict = Worse
	default:
		row.Verdict = Better
	}
	return row, true
}

// values are the metric over the cell's valid repeats.
func values(c sbv1.CellResult, m metric) []float64 {
	var xs []float64
	for _, r := range c.RepeatResults {
		if r.State != sbv1.CellValid {
			continue
		}
		if v, ok := m.get(r); ok {
			xs = append(xs, v)
		}
	}
	return xs
}

func sample(xs []float64) Sample {
	s := Sample{N: len(xs)}
	if len(xs) == 0 {
		return s
	}
	for _, x := range xs {
		s.Mean += x
	}
	s.Mean /= float64(len(xs))
	if len(xs) > 1 {
		for _, x := range xs {
			s.Std += (x - s.Mean) * (x - s.Mean)
		}
		s.Std = math.Sqrt(s.Std / float64(len(xs)-1))
	}
	return s
}

// Name is how a run is named in the output: namespace/name@run-id.
func Name(sb *sbv1.SpiralBench) string {
	return fmt.Sprintf("%s/%s@%s", sb.Namespace, sb.Name, report.RunID(sb))
}
