// Package plots draws the charts a bench's tables imply, with gonum/plot: throughput (Gb/s and
// Mpps) against payload with one line per pair count or queue cell, drop curves (delivered and
// loss against offered load), workload bars with the GPU's SM share, workload-batch sweeps and
// latency percentiles. Every point is a cell's mean over its repeats with ± one sample standard
// deviation as its error bar. Charts builds the data (pure, tested); Render draws it. The
// figures, their units and scales are pkg/figure's; a Chart is only how one is drawn.
package plots

import (
	"fmt"
	"slices"
	"sort"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/figure"
)

// Point is one cell on a chart.
type Point struct {
	Cell int32
	X, Y float64
	// Err is one standard deviation over the cell's repeats (0 for one repeat).
	Err float64
}

// Series is one line (or one colour of bars) of a chart.
type Series struct {
	Label  string
	Points []Point
}

// Kind says how a chart is drawn.
type Kind int

const (
	// Lines joins each series' points in X order; X is numeric.
	Lines Kind = iota
	// Bars draws one bar per point; X indexes Categories.
	Bars
)

// Axis is what an axis measures and the unit its values are in (pkg/figure's shown units).
type Axis struct {
	Label, Unit string
}

// Title is the axis title: "payload (bytes)"; the label alone when it has no unit.
func (a Axis) Title() string {
	if a.Unit == "" {
		return a.Label
	}
	return a.Label + " (" + a.Unit + ")"
}

// Chart is one chart's data before it is drawn: the static figures (Render) and the report's
// interactive ones (pkg/htmlreport) both draw from it.
type Chart struct {
	// Name is the file stem: plots/<Name>.png and .svg.
	Name         string
	Title        string
	XAxis, YAxis Axis
	// Legend titles the legend: what splits the series ("pairs", "percentile").
	Legend string
	Kind   Kind
	// LogX draws X on a log scale (payload sizes span 64 B to 8 MiB).
	LogX bool
	// LogY draws Y on a log scale (latencies span microseconds to milliseconds).
	LogY bool
	// XTicks label X at each value the data has (payload sizes read as "8 MiB", not 8.389e6).
	XTicks map[float64]string
	// Categories name the bars of a Bars figure, by X index.
	Categories []string
	Series     []Series
	// Ceiling is the Y figure's physical ceiling at each X (the RX throughput chart, where the
	// bench records the facts: pkg/explain), drawn as a dashed line; empty where unknown.
	Ceiling []Point
}

// Charts returns the charts a bench's results imply, in a fixed order. Cells without a
// measurement (Failed) are in no chart; every measured cell is in each chart that applies.
func Charts(sb *sbv1.SpiralBench) []Chart {
	cells := measured(sb.Status.CellResults)
	if len(cells) == 0 {
		return nil
	}
	vary := varying(cells)
	var figs []Chart
	paced := vary[dimTarget] || anyCell(cells, func(c sbv1.CellResult) bool { return c.Parameters.TargetRateMbps > 0 })
	workloads := anyCell(cells, func(c sbv1.CellResult) bool { return hasWorkload(c.Parameters) })
	switch {
	case paced:
		figs = append(figs, dropCharts(cells, vary)...)
	case vary[dimWBatch]:
		figs = append(figs, lineChart("workload-batch-gbps", "Receive throughput by workload batch",
			Axis{"workload batch", "bytes"}, rxAxis, cells, vary, dimWBatch, rxGbps))
	case vary[dimPayload] || !workloads:
		throughput := lineChart("throughput-gbps", "Receive throughput by payload", payloadAxis, rxAxis, cells, vary, dimPayload, rxGbps)
		throughput.Ceiling = ceilingLine(sb, cells, dimPayload)
		figs = append(figs, throughput,
			lineChart("rate-mpps", "Packet rate by payload", payloadAxis, Axis{"RX packet rate", figure.PacketRate.Unit.Shown},
				cells, vary, dimPayload, rxMpps))
	}
	if workloads {
		figs = append(figs, barChart("workload-gbps", "Receive throughput with each workload", rxAxis, cells, vary, rxGbps),
			barChart("workload-gpu-sm", "GPU SM busy with each workload", Axis{"GPU SM busy", figure.GPUSM.Unit.Shown}, cells, vary, gpuSM))
	}
	if anyCell(cells, func(c sbv1.CellResult) bool { return c.Latency != nil }) {
		figs = append(figs, latencyChart(cells, vary))
	}
	// a chart without a point has no axes to draw: leave it out
	return slices.DeleteFunc(figs, func(f Chart) bool {
		return !slices.ContainsFunc(f.Series, func(s Series) bool { return len(s.Points) > 0 })
	})
}

// The axes several charts share.
var (
	payloadAxis = Axis{"payload", "bytes"}
	rxAxis      = Axis{"RX throughput", figure.Rx.Unit.Shown}
)

// value reads one figure of a cell as mean and standard deviation; ok false when the cell lacks it.
type value func(c sbv1.CellResult) (mean, std float64, ok bool)

var (
	rxGbps = statistic(figure.Rx)
	txGbps = statistic(figure.Tx)
	rxMpps = statistic(figure.PacketRate)
	// status keeps no spread of these: it is taken over the valid repeats
	lossPct = spreadOver(figure.Loss, figure.Loss.Repeat)
	gpuSM   = spreadOver(figure.GPUSM, func(r *sbv1.RepeatResult) (float64, bool) {
		if r.GPU == nil || r.GPU.SMMilliPercent < 0 {
			return 0, false
		}
		return float64(r.GPU.SMMilliPercent), true
	})
)

// statistic reads a figure that status keeps as mean and spread, in its shown unit.
func statistic(f figure.Figure) value {
	return func(c sbv1.CellResult) (float64, float64, bool) {
		s := f.Stat(&c)
		if s == nil {
			return 0, 0, false
		}
		return f.Unit.Scaled(float64(s.Mean)), f.Unit.Scaled(float64(s.StdDev)), true
	}
}

// spreadOver reads a figure and its spread over the cell's valid repeats, in its shown unit.
func spreadOver(f figure.Figure, repeat func(r *sbv1.RepeatResult) (float64, bool)) value {
	return func(c sbv1.CellResult) (float64, float64, bool) {
		v, ok := f.Cell(&c)
		if !ok {
			return 0, 0, false
		}
		return f.Unit.Scaled(v), stdOver(c, func(r sbv1.RepeatResult) (float64, bool) {
			x, ok := repeat(&r)
			return f.Unit.Scaled(x), ok
		}), true
	}
}

// lineChart puts each cell at (x dimension, metric), one series per combination of the other
// dimensions that vary.
func lineChart(name, title string, xAxis, yAxis Axis, cells []sbv1.CellResult, vary map[dim]bool, x dim, y value) Chart {
	f := Chart{Name: name, Title: title, XAxis: xAxis, YAxis: yAxis, Legend: legendTitle(vary, x), Kind: Lines, XTicks: map[float64]string{}}
	f.LogX = x == dimPayload || x == dimWBatch
	groups := map[string]*Series{}
	var order []string
	for _, c := range cells {
		m, s, ok := y(c)
		if !ok {
			continue
		}
		xv := dims[x].value(c.Parameters)
		f.XTicks[xv] = dims[x].label(c.Parameters)
		key := seriesLabel(c.Parameters, vary, x)
		if groups[key] == nil {
			groups[key] = &Series{Label: key}
			order = append(order, key)
		}
		groups[key].Points = append(groups[key].Points, Point{Cell: c.Index, X: xv, Y: m, Err: s})
	}
	for _, k := range order {
		s := groups[k]
		sort.SliceStable(s.Points, func(i, j int) bool { return s.Points[i].X < s.Points[j].X })
		f.Series = append(f.Series, *s)
	}
	return f
}

// dropCharts are DAQIRI's drop curves: what arrived and what was lost against the load the
// sender offered (its measured TX rate, so unpaced cells sit where they actually ran).
func dropCharts(cells []sbv1.CellResult, vary map[dim]bool) []Chart {
	build := func(name, title string, yAxis Axis, y value) Chart {
		f := Chart{Name: name, Title: title, XAxis: Axis{"offered load at the sender", figure.Tx.Unit.Shown}, YAxis: yAxis,
			Legend: legendTitle(vary, dimTarget), Kind: Lines}
		groups := map[string]*Series{}
		var order []string
		for _, c := range cells {
			xm, _, okX := txGbps(c)
			m, s, okY := y(c)
			if !okX || !okY {
				continue
			}
			key := seriesLabel(c.Parameters, vary, dimTarget)
			if groups[key] == nil {
				groups[key] = &Series{Label: key}
				order = append(order, key)
			}
			groups[key].Points = append(groups[key].Points, Point{Cell: c.Index, X: xm, Y: m, Err: s})
		}
		for _, k := range order {
			s := groups[k]
			sort.SliceStable(s.Points, func(i, j int) bool { return s.Points[i].X < s.Points[j].X })
			f.Series = append(f.Series, *s)
		}
		return f
	}
	return []Chart{
		build("drop-delivered-gbps", "Delivered against offered load", Axis{"delivered to the receiver", figure.Rx.Unit.Shown}, rxGbps),
		build("drop-loss-pct", "Loss against offered load", Axis{"loss", figure.Loss.Unit.Shown}, lossPct),
	}
}

// barChart draws one bar per cell, named by its varying coordinates, coloured by workload.
func barChart(name, title string, yAxis Axis, cells []sbv1.CellResult, vary map[dim]bool, y value) Chart {
	f := Chart{Name: name, Title: title, XAxis: Axis{Label: "cell"}, YAxis: yAxis, Legend: dims[dimWorkload].name, Kind: Bars}
	groups := map[string]*Series{}
	var order []string
	for _, c := range cells {
		m, s, ok := y(c)
		if !ok {
			continue
		}
		wl := dims[dimWorkload].label(c.Parameters)
		label := fmt.Sprintf("%d: %s", c.Index, wl)
		if other := seriesLabel(c.Parameters, vary, dimWorkload); other != allCells {
			label += ", " + other
		}
		if groups[wl] == nil {
			groups[wl] = &Series{Label: wl}
			order = append(order, wl)
		}
		groups[wl].Points = append(groups[wl].Points, Point{Cell: c.Index, X: float64(len(f.Categories)), Y: m, Err: s})
		f.Categories = append(f.Categories, label)
	}
	for _, k := range order {
		f.Series = append(f.Series, *groups[k])
	}
	return f
}

// latencyChart draws the min, p50, p99 and max one-way latency against payload, one series per
// percentile and combination of the other varying dimensions. Its error bars are 0: status
// combines the repeats' percentiles (lowest min, median p50, highest p99 and max) rather than
// averaging them.
func latencyChart(cells []sbv1.CellResult, vary map[dim]bool) Chart {
	f := Chart{Name: "latency-us", Title: "One-way latency percentiles by payload", XAxis: payloadAxis,
		YAxis: Axis{"one-way latency", figure.Nanoseconds.Shown}, Kind: Lines, LogX: true, LogY: true, XTicks: map[float64]string{}}
	f.Legend = legendTitle(vary, dimPayload, "percentile")
	pcts := []struct {
		name string
		get  func(l *sbv1.Latency) int64
	}{
		{"min", func(l *sbv1.Latency) int64 { return l.MinNanoseconds }},
		{"p50", func(l *sbv1.Latency) int64 { return l.P50Nanoseconds }},
		{"p99", func(l *sbv1.Latency) int64 { return l.P99Nanoseconds }},
		{"max", func(l *sbv1.Latency) int64 { return l.MaxNanoseconds }},
	}
	groups := map[string]*Series{}
	var order []string
	for _, pc := range pcts {
		for _, c := range cells {
			if c.Latency == nil {
				continue
			}
			xv := float64(c.Parameters.PayloadBytes)
			f.XTicks[xv] = dims[dimPayload].label(c.Parameters)
			key := pc.name
			if other := seriesLabel(c.Parameters, vary, dimPayload); other != allCells {
				key += " " + other
			}
			if groups[key] == nil {
				groups[key] = &Series{Label: key}
				order = append(order, key)
			}
			groups[key].Points = append(groups[key].Points, Point{Cell: c.Index, X: xv, Y: figure.Nanoseconds.Scaled(float64(pc.get(c.Latency)))})
		}
	}
	for _, k := range order {
		s := groups[k]
		sort.SliceStable(s.Points, func(i, j int) bool { return s.Points[i].X < s.Points[j].X })
		f.Series = append(f.Series, *s)
	}
	return f
}

// measured are the cells with a measurement to draw against payload; the kinds that sweep sizes
// inside one cell (NCCL, GPUCopy: payload 0) have none (GPUCopy's matrices are its kind's Heatmaps).
func measured(cs []sbv1.CellResult) []sbv1.CellResult {
	var out []sbv1.CellResult
	for _, c := range cs {
		if c.Repeats > 0 && c.State != sbv1.CellFailed && c.Parameters.PayloadBytes > 0 {
			out = append(out, c)
		}
	}
	return out
}

func anyCell(cs []sbv1.CellResult, f func(sbv1.CellResult) bool) bool {
	for _, c := range cs {
		if f(c) {
			return true
		}
	}
	return false
}

func hasWorkload(p sbv1.CellParameters) bool {
	return p.Workload != "" && p.Workload != sbv1.WorkloadNone
}

// stdOver is the sample standard deviation of a per-repeat value over a cell's valid repeats.
func stdOver(c sbv1.CellResult, get func(sbv1.RepeatResult) (float64, bool)) float64 {
	var xs []float64
	for _, r := range c.RepeatResults {
		if v, ok := get(r); ok && r.State == sbv1.CellValid {
			xs = append(xs, v)
		}
	}
	_, std := MeanStd(xs)
	return std
}
