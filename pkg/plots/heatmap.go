package plots

import (
	"fmt"
	"image/color"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// Heatmap is one GPU-to-GPU matrix of a GPUCopy bench before it is drawn: GB/s from each
// source GPU (row) to each destination GPU (column), the mean over the cell's valid repeats.
type Heatmap struct {
	// Name is the file stem: plots/<Name>.png and .svg.
	Name, Title string
	// Devices label the rows and columns (CUDA indices, in status' gpus order).
	Devices []int32
	// GBps[src][dst]; NaN where no repeat measured it (the diagonal, SM without peer access).
	GBps [][]float64
	// Paths name what connects each pair ("0-1 NV18"), for the caption.
	Paths []string
	// Repeats averaged.
	Repeats int
}

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

// Heatmaps returns each GPUCopy cell's matrices (one per method, mode and size), in the order
// the data plane measured them.
func Heatmaps(sb *sbv1.SpiralBench) []Heatmap {
	var out []Heatmap
	cells := 0
	for _, c := range sb.Status.CellResults {
		for _, r := range c.RepeatResults {
			if r.Copies != nil && len(r.Copies.PeerMatrices) > 0 {
				cells++
				break
			}
		}
	}
	for _, c := range sb.Status.CellResults {
		out = append(out, cellHeatmaps(c, cells > 1)...)
	}
	return out
}

type matrixKey struct {
	method sbv1.CopyPeerMethod
	mode   sbv1.CopyPeerMode
	bytes  int64
}

func cellHeatmaps(c sbv1.CellResult, nameCell bool) []Heatmap {
	sums, counts := map[matrixKey][][]float64{}, map[matrixKey][][]int{}
	repeats := map[matrixKey]int{}
	var order []matrixKey
	var devices []int32
	var paths []string
	for _, r := range c.RepeatResults {
		if r.State != sbv1.CellValid || r.Copies == nil {
			continue
		}
		if devices == nil {
			for _, g := range r.Copies.GPUs {
				devices = append(devices, g.Device)
			}
			for _, l := range r.Copies.PeerLinks {
				paths = append(paths, fmt.Sprintf("%d-%d %s", l.DeviceA, l.DeviceB, l.Path))
			}
		}
		for _, m := range r.Copies.PeerMatrices {
			k := matrixKey{m.Method, m.Mode, m.Bytes}
			n := len(m.MegabytesPerSecond)
			if sums[k] == nil {
				order = append(order, k)
				sums[k], counts[k] = square[float64](n), square[int](n)
			}
			repeats[k]++
			for s, row := range m.MegabytesPerSecond {
				for d, mbps := range row {
					if mbps >= 0 && s < len(sums[k]) && d < len(sums[k][s]) {
						sums[k][s][d] += float64(mbps) / 1000
						counts[k][s][d]++
					}
				}
			}
		}
	}
	var out []Heatmap
	for _, k := range order {
		h := Heatmap{Name: heatmapName(k, c.Index, nameCell), Repeats: repeats[k], Paths: paths,
			Title: fmt.Sprintf("GPU to GPU, %s, %s, %s per copy: GB/s", methodWords[k.method], strings.ToLower(string(k.mode)), Size64(k.bytes))}
		for s := range sums[k] {
			row := make([]float64, len(sums[k][s]))
			for d := range row {
				row[d] = math.NaN()
				if counts[k][s][d] > 0 {
					row[d] = sums[k][s][d] / float64(counts[k][s][d])
				}
			}
			h.GBps = append(h.GBps, row)
		}
		for i := range h.GBps {
			if i < len(devices) {
				h.Devices = append(h.Devices, devices[i])
			} else {
				h.Devices = append(h.Devices, int32(i))
			}
		}
		out = append(out, h)
	}
	return out
}

var methodWords = map[sbv1.CopyPeerMethod]string{sbv1.CopyPeerCE: "copy engines", sbv1.CopyPeerSM: "SM copy kernel"}

func heatmapName(k matrixKey, cell int32, nameCell bool) string {
	mode := map[sbv1.CopyPeerMode]string{sbv1.CopyPeerUnidirectional: "uni", sbv1.CopyPeerBidirectional: "bi"}[k.mode]
	name := fmt.Sprintf("peer-%s-%s-%s", strings.ToLower(string(k.method)), mode, strings.ReplaceAll(Size64(k.bytes), " ", ""))
	if nameCell {
		name += fmt.Sprintf("-cell%d", cell)
	}
	return name
}

func square[T any](n int) [][]T {
	out := make([][]T, n)
	for i := range out {
		out[i] = make([]T, n)
	}
	return out
}

// Size64 writes a byte count as Size does, for sizes past 2 GiB too.
func Size64(b int64) string {
	switch {
	case b >= 1<<30 && b%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", b>>30)
	case b >= 1<<20 && b%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", b>>20)
	case b >= 1<<10 && b%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", b>>10)
	}
	return fmt.Sprintf("%d B", b)
}

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
