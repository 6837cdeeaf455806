// Package explain says, per cell of a finished bench, what its headline figure could be at most
// and what held it back: it fills pkg/ceiling's Inputs from what the bench records (the spec,
// the cell's parameters and busy shares, status.environment) and reads the cell's figure
// against the ceiling. A fact the bench does not record leaves the ceiling unknown with the
// reason, never a guess. sbctl explain, sbctl results' table and the HTML report print it.
package explain

import (
	"fmt"
	"strings"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/benchkind"
	"github.com/spiralbench/spiralbench/pkg/ceiling"
	"github.com/spiralbench/spiralbench/pkg/figure"
)

// Explanation is one cell's headline figure read against its ceiling.
type Explanation struct {
	Cell       int32          `json:"cell"`
	Headline   bool           `json:"headline,omitempty"`
	Parameters string         `json:"parameters"`
	State      sbv1.CellState `json:"state"`
	// Figure and Unit name the headline figure as pkg/figure does ("RxMbps", "Mb/s").
	Figure string `json:"figure"`
	Unit   string `json:"unit"`
	// Measured is the figure's value in Unit; absent when the cell did not measure it.
	Measured *float64 `json:"measured,omitempty"`
	// Ceiling is the lowest limit along the path in Unit; absent when unknown (Unknown says why).
	Ceiling *float64 `json:"ceiling,omitempty"`
	// Component, Name and Model describe the ceiling: "Ethernet", "100 Gb/s Ethernet of eth1",
	// "8000 B UDP payloads, 8066 B on the wire".
	Component string `json:"component,omitempty"`
	Name      string `json:"name,omitempty"`
	Model     string `json:"model,omitempty"`
	Unknown   string `json:"unknown,omitempty"`
	// Missing are the path's components whose facts are not recorded: the ceiling is then the
	// lowest of the others, an upper bound but maybe not the tightest.
	Missing []string `json:"missing,omitempty"`
	// Fraction is Measured / Ceiling, when both are known.
	Fraction *float64 `json:"fraction,omitempty"`
	// BoundBy says in words what held the figure back; BoundComponent names it ("" unknown).
	BoundBy        string `json:"boundBy"`
	BoundComponent string `json:"boundComponent,omitempty"`
	// Evidence is the load of the cell's cores and GPU SMs the bound was judged with.
	Evidence []string `json:"evidence,omitempty"`
}

// Bench explains every cell of the bench, in plan order.
func Bench(sb *sbv1.SpiralBench) []Explanation {
	out := make([]Explanation, 0, len(sb.Status.CellResults))
	for i := range sb.Status.CellResults {
		out = append(out, Cell(sb, &sb.Status.CellResults[i]))
	}
	return out
}

// Cell explains one cell of the bench: its headline figure.
func Cell(sb *sbv1.SpiralBench, c *sbv1.CellResult) Explanation { return CellFigure(sb, c, "") }

// CellFigure explains one figure of a cell (pkg/figure's name; "" for the headline): a GPU
// copy's D2H as well as its H2D. A figure the kind has no model for is explained as unknown.
func CellFigure(sb *sbv1.SpiralBench, c *sbv1.CellResult, fig string) Explanation {
	e := Explanation{Cell: c.Index, Headline: c.Headline, Parameters: benchkind.Parameters(sb.Spec.Transport, c.Parameters), State: c.State}
	ceil := ceilingOf(sb, c, fig)
	e.Figure, e.Unit = ceil.Figure, ceil.Unit
	if f, ok := figure.Lookup(ceil.Figure); ok && f.Cell != nil {
		if v, ok := f.Cell(c); ok {
			e.Measured = &v
		}
	}
	if ceil.Known() {
		v := ceil.Value
		e.Ceiling, e.Component, e.Name, e.Model = &v, string(ceil.Component), ceil.Name, ceil.Model
	} else {
		e.Unknown = ceil.Unknown
	}
	e.Missing = ceil.Missing
	evidence := evidenceOf(sb, c)
	for _, ev := range evidence {
		e.Evidence = append(e.Evidence, ev.Text)
	}
	switch {
	case e.Measured != nil:
	case ceil.Figure == "":
		e.BoundBy = "ceiling unknown: " + ceil.Unknown
		return e
	case c.State == sbv1.CellValid:
		e.BoundBy = "no " + ceil.Figure + " measured"
		return e
	default:
		e.BoundBy = "not measured"
		return e
	}
	b := ceiling.Bound(*e.Measured, ceil, evidence...)
	if b.FractionKnown {
		f := b.Fraction
		e.Fraction = &f
	}
	e.BoundBy, e.BoundComponent = b.BoundBy, string(b.Component)
	if target := float64(c.Parameters.TargetRateMbps); target > 0 && e.Figure == figure.Rx.Name && *e.Measured >= PacedShare*target {
		// A paced sender offered no more: the pace, not the path, set the figure.
		e.BoundBy, e.BoundComponent = "paced: the sender's target "+FormatValue(e.Unit, target), Paced
	}
	return e
}

// Paced is the BoundComponent of a cell whose sender was paced and delivered its target.
const Paced = "Pace"

// PacedShare is the share of its target rate a paced cell must reach for the pace, rather than
// the path, to count as what bounded it.
const PacedShare = 0.95

// Short is the explanation in one line for a table: "0.87 of 99.18 Gb/s (Ethernet)",
// "CPU: RX core 3 busy 99 %", "unknown: no link speed".
func (e Explanation) Short() string {
	switch {
	case e.Measured == nil && e.Figure != "":
		return "-"
	case e.Fraction != nil && e.BoundComponent == e.Component:
		return fmt.Sprintf("%.2f of %s (%s)", *e.Fraction, FormatValue(e.Unit, *e.Ceiling), e.Component)
	case e.BoundComponent == Paced:
		return e.BoundBy
	case e.BoundComponent != "" && len(e.Evidence) > 0 && !strings.HasPrefix(e.BoundBy, "CPU ("):
		return e.BoundComponent + ": " + e.BoundBy
	case e.BoundComponent == string(ceiling.CPU):
		return "CPU: no wire, no core saturated"
	}
	why, _, _ := strings.Cut(e.Unknown, "; ")
	return "unknown: " + why
}

// FormatValue prints a figure value the way pkg/ceiling's messages do: Mb/s as Gb/s, MB/s as
// GB/s.
func FormatValue(unit string, v float64) string {
	switch unit {
	case ceiling.UnitMbps:
		return fmt.Sprintf("%.2f Gb/s", v/1000)
	case ceiling.UnitMBps:
		return fmt.Sprintf("%.1f GB/s", v/1000)
	}
	return fmt.Sprintf("%g %s", v, unit)
}
