package plots

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// Size of every figure: wide enough for a legend of eight series beside the data. PNGs are
// drawn at twice the screen's 96 dpi (1536x864) so that they stay sharp when zoomed or printed.
const (
	width  = 8 * vg.Inch
	height = 4.5 * vg.Inch
	pngDPI = 192
)

// gonum draws in Liberation Serif unless told otherwise; the report and the interactive charts
// read in a sans-serif face, so the static figures do too. plotter keeps its own copy.
func init() {
	plot.DefaultFont.Variant = "Sans"
	plotter.DefaultFont = plot.DefaultFont
}

// Formats are the file types each figure is written in.
var Formats = []string{"png", "svg"}

// Files draws every figure and heatmap of a bench as plots/<name>.png and plots/<name>.svg.
func Files(sb *sbv1.SpiralBench) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, f := range Charts(sb) {
		for _, format := range Formats {
			data, err := f.Render(format)
			if err != nil {
				return nil, fmt.Errorf("figure %s: %w", f.Name, err)
			}
			out["plots/"+f.Name+"."+format] = data
		}
	}
	for _, h := range Heatmaps(sb) {
		for _, format := range Formats {
			data, err := h.Render(format)
			if err != nil {
				return nil, fmt.Errorf("heatmap %s: %w", h.Name, err)
			}
			out["plots/"+h.Name+"."+format] = data
		}
	}
	return out, nil
}

// Render draws the figure as png or svg.
func (f Chart) Render(format string) ([]byte, error) {
	p, err := f.Plot()
	if err != nil {
		return nil, err
	}
	return encode(p, width, height, format)
}

// encode writes a plot of the given size as png (at pngDPI) or svg.
func encode(p *plot.Plot, w, h vg.Length, format string) ([]byte, error) {
	var wt io.WriterTo
	if format == "png" {
		c := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(pngDPI))
		p.Draw(draw.New(c))
		wt = vgimg.PngCanvas{Canvas: c}
	} else {
		var err error
		if wt, err = p.WriterTo(w, h, format); err != nil {
			return nil, err
		}
	}
	var buf bytes.Buffer
	if _, err := wt.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Plot builds the gonum plot: one styled line (or bar colour) per series, each point with its
// ± one standard deviation error bar, axes fitted to the data.
func (f Chart) Plot() (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = f.Title
	p.X.Label.Text = f.XAxis.Title()
	p.Y.Label.Text = f.YAxis.Title()
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.XOffs = vg.Points(8)
	p.Legend.Add(f.Legend + ":") // an entry without a thumbnail: the legend's title
	p.Add(plotter.NewGrid())
	var err error
	if f.Kind == Bars {
		err = f.addBars(p)
	} else {
		err = f.addLines(p)
		if err == nil {
			err = f.addCeiling(p)
		}
	}
	if err != nil {
		return nil, err
	}
	f.fitAxes(p)
	return p, nil
}

func (f Chart) addLines(p *plot.Plot) error {
	for i, s := range f.Series {
		pts := errPoints(s.Points)
		line, points, err := plotter.NewLinePoints(pts)
		if err != nil {
			return fmt.Errorf("series %q: %w", s.Label, err)
		}
		c := SeriesColor(i)
		line.Color, line.Width = c, vg.Points(1.5)
		line.Dashes = plotutil.Dashes(i / len(plotutil.SoftColors))
		points.Color, points.Shape = c, outlines[i%len(outlines)]
		bars, err := plotter.NewYErrorBars(pts)
		if err != nil {
			return err
		}
		bars.Color = c
		p.Add(line, points, bars)
		p.Legend.Add(s.Label, line, points)
	}
	return nil
}

func (f Chart) addBars(p *plot.Plot) error {
	for i, s := range f.Series {
		c := SeriesColor(i)
		for j, pt := range s.Points {
			b, err := plotter.NewBarChart(plotter.Values{pt.Y}, vg.Points(18))
			if err != nil {
				return fmt.Errorf("series %q: %w", s.Label, err)
			}
			b.XMin, b.Color, b.LineStyle.Width = pt.X, c, 0
			p.Add(b)
			if j == 0 {
				p.Legend.Add(s.Label, b)
			}
		}
		bars, err := plotter.NewYErrorBars(errPoints(s.Points))
		if err != nil {
			return err
		}
		p.Add(bars)
	}
	p.NominalX(f.Categories...)
	p.X.Tick.Label.Rotation = math.Pi / 8
	p.X.Tick.Label.XAlign = draw.XRight
	return nil
}

// fitAxes starts Y at 0 (throughput and shares read against zero) and ends it above the highest
// error bar; X spans the data, on a log scale with the data's own values as ticks for sizes.
func (f Chart) fitAxes(p *plot.Plot) {
	xMin, xMax, yMin, yMax := f.Range()
	p.Y.Min, p.Y.Max = 0, yMax*1.15
	if len(f.Ceiling) > 0 { // the ceiling runs along the top: room for the legend above it
		p.Y.Max = yMax * (1.15 + 0.06*float64(len(f.Series)+1))
	}
	if yMax == 0 {
		p.Y.Max = 1
	}
	if f.LogY && yMin > 0 {
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
		p.Y.Min, p.Y.Max = yMin/1.5, yMax*1.5
	}
	if f.Kind == Bars {
		p.X.Min, p.X.Max = xMin-0.6, xMax+0.6
		return
	}
	if f.LogX && xMin > 0 {
		p.X.Scale = plot.LogScale{}
		p.X.Min, p.X.Max = xMin/1.3, xMax*1.3
	} else {
		pad := (xMax - xMin) * 0.04
		if pad == 0 {
			pad = math.Max(1, xMax*0.1)
		}
		p.X.Min, p.X.Max = math.Max(0, xMin-pad), xMax+pad
	}
	if len(f.XTicks) > 0 {
		var ticks []plot.Tick
		for v, l := range f.XTicks {
			ticks = append(ticks, plot.Tick{Value: v, Label: l})
		}
		sort.Slice(ticks, func(i, j int) bool { return ticks[i].Value < ticks[j].Value })
		p.X.Tick.Marker = plot.ConstantTicks(ticks)
	}
}

// Range is the extent of the data: X over every point, Y up to the highest mean + std or the
// ceiling.
func (f Chart) Range() (xMin, xMax, yMin, yMax float64) {
	xMin, yMin = math.Inf(1), math.Inf(1)
	xMax, yMax = math.Inf(-1), math.Inf(-1)
	for _, s := range f.Series {
		for _, pt := range s.Points {
			xMin, xMax = math.Min(xMin, pt.X), math.Max(xMax, pt.X)
			yMin, yMax = math.Min(yMin, pt.Y-pt.Err), math.Max(yMax, pt.Y+pt.Err)
		}
	}
	for _, pt := range f.Ceiling { // the ceiling's line stays on the chart
		yMax = math.Max(yMax, pt.Y)
	}
	return
}

// SeriesColor is series i's colour: plotutil's soft palette, then again with dashes.
func SeriesColor(i int) color.Color { return plotutil.SoftColors[i%len(plotutil.SoftColors)] }

// SeriesDashed says series i is drawn dashed: the palette has come round again.
func SeriesDashed(i int) bool { return i >= len(plotutil.SoftColors) }

// outlines are the markers, each one stroked path (filled or crossed glyphs read poorly
// under error bars).
var outlines = []draw.GlyphDrawer{draw.RingGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}}

// errPoints adapts points to gonum's XYer and YErrorer.
type errPoints []Point

func (e errPoints) Len() int                        { return len(e) }
func (e errPoints) XY(i int) (float64, float64)     { return e[i].X, e[i].Y }
func (e errPoints) YError(i int) (float64, float64) { return e[i].Err, e[i].Err }
