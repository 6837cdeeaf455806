package htmlreport

import (
	_ "embed"
	"fmt"
	"html/template"
	"image/color"
	"math"
	"sort"

	"github.com/spiralbench/spiralbench/pkg/plots"
)

// The charting library (uPlot, uplot/README.md says which release and its checksums) and the
// glue that draws pkg/plots' charts with it are inlined into the page: it opens from a file or
// the bucket with no network.
var (
	//go:embed uplot/uPlot.iife.min.js
	uplotJS string
	//go:embed uplot/uPlot.min.css
	uplotCSS string
	//go:embed charts.js
	chartsJS string
)

// assets is what the page inlines to draw its interactive charts.
type assets struct {
	LibJS   template.JS
	LibCSS  template.CSS
	DrawJS  template.JS
	Figures []chartData
}

// interactive converts pkg/plots' charts, the ones the static files are drawn from, into the
// page's chart data; nil when there is no chart (the page then inlines no library).
func interactive(charts []plots.Chart) (*assets, error) {
	if len(charts) == 0 {
		return nil, nil
	}
	a := &assets{LibJS: template.JS(uplotJS), LibCSS: template.CSS(uplotCSS), DrawJS: template.JS(chartsJS)}
	for _, c := range charts {
		d, err := chartOf(c)
		if err != nil {
			return nil, fmt.Errorf("figure %s: %w", c.Name, err)
		}
		a.Figures = append(a.Figures, d)
	}
	return a, nil
}

// chartData is one chart as charts.js reads it: the series, values in the axes' units, and
// the axes' extents as the static figure draws them.
type chartData struct {
	Name       string       `json:"name"`
	Title      string       `json:"title"`
	Kind       string       `json:"kind"` // lines or bars
	Legend     string       `json:"legend"`
	X          axisData     `json:"x"`
	Y          axisData     `json:"y"`
	Categories []string     `json:"categories,omitempty"`
	Series     []seriesData `json:"series"`
	// Ceiling is the dashed ceiling line pkg/plots draws, as drawn; empty where unknown.
	Ceiling      []pointData `json:"ceiling,omitempty"`
	CeilingColor string      `json:"ceilingColor,omitempty"`
}

type axisData struct {
	Title string `json:"title"`
	Unit  string `json:"unit"`
	Log   bool   `json:"log"`
	// Min and Max are the static figure's axis extent.
	Min float64 `json:"min"`
	Max float64 `json:"max"`
	// Ticks label X at the data's values ("8 MiB"), as the static figure does.
	Ticks []tickData `json:"ticks,omitempty"`
}

type tickData struct {
	Value float64 `json:"value"`
	Label string  `json:"label"`
}

type seriesData struct {
	Label  string      `json:"label"`
	Color  string      `json:"color"`
	Dashed bool        `json:"dashed,omitempty"`
	Points []pointData `json:"points"`
}

type pointData struct {
	// Cell is the cell the point is the mean of; none on the ceiling's line.
	Cell *int32  `json:"cell,omitempty"`
	X    float64 `json:"x"`
	Y    float64 `json:"y"`
	// Err is ± one standard deviation over the cell's repeats.
	Err float64 `json:"err,omitempty"`
}

func chartOf(c plots.Chart) (chartData, error) {
	p, err := c.Plot() // the static figure's axes: both views span the same extent
	if err != nil {
		return chartData{}, err
	}
	d := chartData{Name: c.Name, Title: c.Title, Kind: "lines", Legend: c.Legend, Categories: c.Categories,
		X: axisData{Title: c.XAxis.Title(), Unit: c.XAxis.Unit, Log: c.LogX, Min: p.X.Min, Max: p.X.Max},
		Y: axisData{Title: c.YAxis.Title(), Unit: c.YAxis.Unit, Log: c.LogY, Min: p.Y.Min, Max: p.Y.Max}}
	if c.Kind == plots.Bars {
		d.Kind = "bars"
	}
	for v, l := range c.XTicks {
		d.X.Ticks = append(d.X.Ticks, tickData{Value: v, Label: l})
	}
	sort.Slice(d.X.Ticks, func(i, j int) bool { return d.X.Ticks[i].Value < d.X.Ticks[j].Value })
	for i, s := range c.Series {
		sd := seriesData{Label: s.Label, Color: cssColor(plots.SeriesColor(i)), Dashed: plots.SeriesDashed(i), Points: points(s.Points, true)}
		d.Series = append(d.Series, sd)
	}
	if line := c.CeilingLine(); len(line) > 0 {
		d.Ceiling, d.CeilingColor = points(line, false), cssColor(plots.CeilingColor)
	}
	return d, nil
}

func points(ps []plots.Point, cells bool) []pointData {
	out := make([]pointData, 0, len(ps))
	for _, p := range ps {
		if math.IsNaN(p.Y) || math.IsInf(p.Y, 0) {
			continue // JSON has no NaN; a point without a value is not drawn
		}
		d := pointData{X: p.X, Y: p.Y, Err: p.Err}
		if cells {
			d.Cell = &p.Cell
		}
		out = append(out, d)
	}
	return out
}

// cssColor is a colour as CSS writes it, so that both views draw a series in the same colour.
func cssColor(c color.Color) string {
	r, g, b, _ := c.RGBA()
	return fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, b>>8)
}
