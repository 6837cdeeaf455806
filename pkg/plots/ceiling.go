package plots

import (
	"image/color"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/explain"
	"github.com/spiralbench/spiralbench/pkg/figure"
)

// ceilingLine is the RX throughput's physical ceiling at each X of a chart (pkg/explain), in
// Gb/s. An X is left out where a cell's ceiling is unknown or its cells' ceilings differ (pairs
// spread over several links), so the line never claims a ceiling that some point does not have.
func ceilingLine(sb *sbv1.SpiralBench, cells []sbv1.CellResult, x dim) []Point {
	at := map[float64]float64{}
	bad := map[float64]bool{}
	for i := range cells {
		xv := dims[x].value(cells[i].Parameters)
		e := explain.Cell(sb, &cells[i])
		if e.Ceiling == nil || e.Figure != figure.Rx.Name {
			bad[xv] = true
			continue
		}
		v := figure.Rx.Unit.Scaled(*e.Ceiling)
		if prev, ok := at[xv]; ok && prev != v {
			bad[xv] = true
		}
		at[xv] = v
	}
	var out []Point
	for xv, v := range at {
		if !bad[xv] {
			out = append(out, Point{X: xv, Y: v})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].X < out[j].X })
	return out
}

// CeilingLine is the line the ceiling is drawn as: its points, or for a single X a flat stub
// either side of it (one payload), so that it shows as a line.
func (f Chart) CeilingLine() []Point {
	if len(f.Ceiling) == 1 {
		pt := f.Ceiling[0]
		return []Point{{X: pt.X * 0.8, Y: pt.Y}, {X: pt.X * 1.25, Y: pt.Y}}
	}
	return f.Ceiling
}

// CeilingColor is a dark grey: the ceiling is a reference, not a series.
var CeilingColor = color.Gray{Y: 90}

// addCeiling draws the ceiling as a dashed line (a short one for a single X) labelled "ceiling".
func (f Chart) addCeiling(p *plot.Plot) error {
	if len(f.Ceiling) == 0 {
		return nil
	}
	line, err := plotter.NewLine(errPoints(f.CeilingLine()))
	if err != nil {
		return err
	}
	line.Color, line.Width, line.Dashes = CeilingColor, vg.Points(1.2), []vg.Length{vg.Points(6), vg.Points(3)}
	p.Add(line)
	p.Legend.Add("ceiling", line)
	return nil
}
