package plots

import (
	"fmt"
	"image/color"
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/spiralbench/spiralbench/pkg/figure"
	"github.com/spiralbench/spiralbench/pkg/fleet"
)

// CohortChart draws a canary cohort (docs/fleet.md "Canary cohorts") so that its decision can
// be checked by eye: the class's nodes on the old drivers beside the canaries on the new one,
// each a box plot with every node as a point, over the band the canaries' mean had to fall in
// (the reference mean ± the margin), the decision in the title.
type CohortChart struct{ fleet.CohortSummary }

// Band colours say the decision before the title is read; translucent, so the grid shows.
var (
	bandEquivalent = color.NRGBA{0x4c, 0xaf, 0x50, 0x40}
	bandWorse      = color.NRGBA{0xe5, 0x39, 0x35, 0x40}
	bandUndecided  = color.NRGBA{0xff, 0xb3, 0x00, 0x40}
)

// CohortFiles draws each cohort as <fleet.CohortPlotName>.png and .svg, for the round's folder.
func CohortFiles(cohorts []fleet.CohortSummary) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, s := range cohorts {
		name := fleet.CohortPlotName(s.Class, s.Driver)
		for _, format := range Formats {
			data, err := CohortChart{s}.Render(format)
			if err != nil {
				return nil, fmt.Errorf("cohort %s: %w", name, err)
			}
			out[name+"."+format] = data
		}
	}
	return out, nil
}

// Render draws the cohort as png or svg, the size of the bench charts.
func (c CohortChart) Render(format string) ([]byte, error) {
	p, err := c.Plot()
	if err != nil {
		return nil, err
	}
	return encode(p, width, height, format)
}

// Title is the decision on the first line, the numbers behind it on the second.
func (c CohortChart) Title() string {
	class := c.Class
	if class == "" {
		class = "all nodes"
	}
	head := fmt.Sprintf("class %s, driver %s: %s %s", class, c.Driver, c.Figure, c.Decision)
	var nums string
	switch {
	case c.DifferencePercent != nil && c.IntervalLowPercent != nil && c.IntervalHighPercent != nil:
		nums = fmt.Sprintf("%+.1f%% (%.0f%% interval %.1f..%.1f%%) against ±%g%%, p=%.3g, n=%d vs %d",
			*c.DifferencePercent, 100*(1-2*c.Alpha), *c.IntervalLowPercent, *c.IntervalHighPercent, c.MarginPercent, deref(c.P), c.NAfter, c.NBefore)
	default:
		nums = fmt.Sprintf("n=%d vs %d: %s", c.NAfter, c.NBefore, c.Reason)
	}
	if c.MoreNeeded > 0 {
		nums += fmt.Sprintf("; %d more canaries needed", c.MoreNeeded)
	}
	return head + "\n" + nums
}

// Plot builds the gonum plot. Values are in the figure's shown unit where pkg/figure knows it.
func (c CohortChart) Plot() (*plot.Plot, error) {
	unit, yLabel := figure.Unit{Scale: 1}, c.Figure
	if f, ok := figure.Lookup(c.Figure); ok {
		unit, yLabel = f.Unit, c.Figure+" ("+f.Unit.Shown+")"
	}
	p := plot.New()
	p.Title.Text = c.Title()
	p.Y.Label.Text = yLabel
	p.Legend.Top = true
	p.Add(plotter.NewGrid())

	lo, hi := math.Inf(1), math.Inf(-1)
	if c.MeanBefore != nil {
		mean := unit.Scaled(*c.MeanBefore)
		half := math.Abs(mean) * c.MarginPercent / 100
		lo, hi = mean-half, mean+half
		band, err := plotter.NewPolygon(plotter.XYs{{X: -0.5, Y: lo}, {X: 1.5, Y: lo}, {X: 1.5, Y: hi}, {X: -0.5, Y: hi}})
		if err != nil {
			return nil, err
		}
		band.Color, band.LineStyle.Width = c.bandColor(), 0
		line, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: mean}, {X: 1.5, Y: mean}})
		if err != nil {
			return nil, err
		}
		line.Color, line.Dashes = color.Gray{0x60}, []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(band, line)
		p.Legend.Add(fmt.Sprintf("reference mean ± %g%%", c.MarginPercent), band)
	}

	sides := []fleet.CohortSide{c.Before, c.After}
	var labels []string
	for i, s := range sides {
		ys := make([]float64, len(s.Values))
		for j, v := range s.Values {
			ys[j] = unit.Scaled(v.Value)
			lo, hi = math.Min(lo, ys[j]), math.Max(hi, ys[j])
		}
		labels = append(labels, sideLabel(s, i == 1))
		if len(ys) == 0 {
			continue
		}
		col := SeriesColor(i)
		box, err := plotter.NewBoxPlot(vg.Points(60), float64(i), plotter.Values(ys))
		if err != nil {
			return nil, err
		}
		box.GlyphStyle.Radius = 0 // every point is drawn below, outliers included
		box.BoxStyle.Color, box.MedianStyle.Color = col, col
		points, err := plotter.NewScatter(strip(float64(i), ys))
		if err != nil {
			return nil, err
		}
		points.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(2.5), Shape: outlines[i%len(outlines)]}
		p.Add(box, points)
	}
	// The test compares means, the boxes show medians: mark the means the decision is about.
	if err := c.addMeans(p, unit); err != nil {
		return nil, err
	}
	p.NominalX(labels...)
	p.X.Min, p.X.Max = -0.5, 1.5
	if !math.IsInf(lo, 0) {
		pad := math.Max((hi-lo)*0.1, math.Abs(hi)*0.01)
		if pad == 0 {
			pad = 1
		}
		p.Y.Min, p.Y.Max = lo-pad, hi+pad
	}
	return p, nil
}

func (c CohortChart) addMeans(p *plot.Plot, unit figure.Unit) error {
	var xys plotter.XYs
	for i, m := range []*float64{c.MeanBefore, c.MeanAfter} {
		if m != nil {
			xys = append(xys, plotter.XY{X: float64(i), Y: unit.Scaled(*m)})
		}
	}
	if len(xys) == 0 {
		return nil
	}
	means, err := plotter.NewScatter(xys)
	if err != nil {
		return err
	}
	means.GlyphStyle = draw.GlyphStyle{Color: color.Black, Radius: vg.Points(5), Shape: draw.CrossGlyph{}}
	p.Add(means)
	p.Legend.Add("mean", means)
	return nil
}

func (c CohortChart) bandColor() color.Color {
	switch fleet.EquivalenceDecision(c.Decision) {
	case fleet.Equivalent:
		return bandEquivalent
	case fleet.Worse:
		return bandWorse
	}
	return bandUndecided
}

// sideLabel names a side under its column, with how many of its values are drawn.
func sideLabel(s fleet.CohortSide, canaries bool) string {
	name := "reference: other drivers"
	if canaries {
		name = "canaries: driver " + s.Driver
	}
	if s.LeftOut > 0 {
		return fmt.Sprintf("%s (n=%d, first %d drawn)", name, s.N, len(s.Values))
	}
	return fmt.Sprintf("%s (n=%d)", name, s.N)
}

// strip spreads a column's points sideways so that equal values stay visible: by rank, on a
// fixed pattern rather than random jitter, so the same cohort always draws the same file.
func strip(x float64, ys []float64) plotter.XYs {
	order := make([]int, len(ys))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return ys[order[a]] < ys[order[b]] })
	out := make(plotter.XYs, len(ys))
	for rank, i := range order {
		frac := math.Mod(float64(rank)*0.618034, 1) // golden-ratio steps fill [0,1) evenly
		out[i] = plotter.XY{X: x + (frac-0.5)*0.3, Y: ys[i]}
	}
	return out
}

func deref(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}
