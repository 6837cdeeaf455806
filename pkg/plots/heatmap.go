package plots

import (
	"fmt"
	"image/color"
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/benchkind"
)

// Heatmap is one matrix figure a bench's kind declares (benchkind.Results.Heatmaps: a GPUCopy
// bench's GPU-to-GPU GB/s), drawn here.
type Heatmap struct{ benchkind.Heatmap }

// Heatmap colours: blue (0 GB/s) to red (the matrix's highest); unmeasured cells light grey.
var (
	heatPalette = func() palette.Palette {
		cm := moreland.SmoothBlueRed()
		cm.SetMin(0)
		cm.SetMax(1)
		return cm.Palette(255)
	}()
	// HeatUnmeasured fills the cells no repeat measured.
	HeatUnmeasured = color.RGBA{0xe0, 0xe0, 0xe0, 0xff}
)

// HeatColor is the colour of the matrix's highest value (the palette's last).
func HeatColor() color.Color { return heatPalette.Colors()[len(heatPalette.Colors())-1] }

// Heatmaps returns the matrix figures the bench's kind declares (a GPUCopy cell's matrices, one
// per method, mode and size, in the order the data plane measured them).
func Heatmaps(sb *sbv1.SpiralBench) []Heatmap {
	hook := benchkind.ResultsOf(sb.Spec.Transport).Heatmaps
	if hook == nil {
		return nil
	}
	var out []Heatmap
	for _, h := range hook(sb) {
		out = append(out, Heatmap{h})
	}
	return out
}

// Size64 writes a byte count as Size does, for sizes past 2 GiB too.
func Size64(b int64) string { return benchkind.Size64(b) }

// grid adapts a matrix to gonum's GridXYZ: column c is destination c, row r the source drawn
// r-th from the bottom, so source 0 is the top row as in a table.
type grid [][]float64

func (g grid) Dims() (c, r int)   { return len(g), len(g) }
func (g grid) Z(c, r int) float64 { return g[len(g)-1-r][c] }
func (g grid) X(c int) float64    { return float64(c) }
func (g grid) Y(r int) float64    { return float64(r) }
func (g grid) Min() float64       { return 0 }

// Max is the highest measured value: the colour scale runs from 0 to it.
func (g grid) Max() (m float64) {
	for _, row := range g {
		for _, v := range row {
			if !math.IsNaN(v) && v > m {
				m = v
			}
		}
	}
	if m == 0 {
		m = 1 // an all-zero matrix keeps a unit scale
	}
	return m
}

// Plot builds the gonum plot: the coloured grid, each cell's GB/s written in it, devices as ticks.
func (h Heatmap) Plot() (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = h.Title
	p.X.Label.Text = "destination GPU"
	p.Y.Label.Text = "source GPU"
	g := grid(h.GBps)
	hm := plotter.NewHeatMap(g, heatPalette)
	hm.NaN = HeatUnmeasured
	p.Add(hm)
	n := len(h.GBps)
	var labels plotter.XYLabels
	for s := range n {
		for d := range n {
			v := h.GBps[s][d]
			label := "–"
			if !math.IsNaN(v) {
				label = fmt.Sprintf("%.1f", v)
			}
			labels.XYs = append(labels.XYs, plotter.XY{X: float64(d), Y: float64(n - 1 - s)})
			labels.Labels = append(labels.Labels, label)
		}
	}
	if n > 0 {
		l, err := plotter.NewLabels(labels)
		if err != nil {
			return nil, err
		}
		for i := range l.TextStyle {
			l.TextStyle[i].XAlign, l.TextStyle[i].YAlign = text.XCenter, text.YCenter
		}
		p.Add(l)
	}
	var xt, yt []plot.Tick
	for i, d := range h.Devices {
		xt = append(xt, plot.Tick{Value: float64(i), Label: fmt.Sprint(d)})
		yt = append(yt, plot.Tick{Value: float64(n - 1 - i), Label: fmt.Sprint(d)})
	}
	sort.Slice(yt, func(i, j int) bool { return yt[i].Value < yt[j].Value })
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.ConstantTicks(xt), plot.ConstantTicks(yt)
	p.X.Min, p.X.Max = -0.5, float64(n)-0.5
	p.Y.Min, p.Y.Max = -0.5, float64(n)-0.5
	return p, nil
}

// Heatmap files are square-ish: 6 x 5 inches.
const heatWidth, heatHeight = 6 * vg.Inch, 5 * vg.Inch

// Render draws the heatmap as png or svg.
func (h Heatmap) Render(format string) ([]byte, error) {
	p, err := h.Plot()
	if err != nil {
		return nil, err
	}
	return encode(p, heatWidth, heatHeight, format)
}
