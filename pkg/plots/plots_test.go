package plots

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/testing/fixture"
)

// expectLines groups a bench's measured cells independently of the package: key(cell) names
// the series, x(cell) its abscissa; the figure must hold exactly these series and points.
func expectLines(sb *sbv1.SpiralBench, key func(sbv1.CellResult) string, x func(sbv1.CellResult) float64,
	y func(sbv1.CellResult) (float64, float64)) map[string][]Point {
	want := map[string][]Point{}
	for _, c := range sb.Status.CellResults {
		if c.State == sbv1.CellFailed {
			continue
		}
		m, s := y(c)
		want[key(c)] = append(want[key(c)], Point{Cell: c.Index, X: x(c), Y: m, Err: s})
	}
	for _, ps := range want {
		sort.Slice(ps, func(i, j int) bool { return ps[i].X < ps[j].X })
	}
	return want
}

func chart(t *testing.T, figs []Chart, name string) Chart {
	t.Helper()
	for _, f := range figs {
		if f.Name == name {
			return f
		}
	}
	t.Fatalf("no figure %q among %v", name, names(figs))
	return Chart{}
}

func names(figs []Chart) []string {
	var out []string
	for _, f := range figs {
		out = append(out, f.Name)
	}
	return out
}

func assertSeries(t *testing.T, f Chart, want map[string][]Point) {
	t.Helper()
	got := map[string][]Point{}
	for _, s := range f.Series {
		got[s.Label] = s.Points
	}
	if len(got) != len(want) {
		t.Fatalf("%s: series %v, want %d series %v", f.Name, keys(got), len(want), keys(want))
	}
	for label, ps := range want {
		g, ok := got[label]
		if !ok {
			t.Fatalf("%s: series %q missing; have %v", f.Name, label, keys(got))
		}
		if len(g) != len(ps) {
			t.Fatalf("%s/%s: %d points, want %d", f.Name, label, len(g), len(ps))
		}
		for i := range ps {
			if g[i].Cell != ps[i].Cell || !near(g[i].X, ps[i].X) || !near(g[i].Y, ps[i].Y) || !near(g[i].Err, ps[i].Err) {
				t.Errorf("%s/%s point %d = %+v, want %+v", f.Name, label, i, g[i], ps[i])
			}
		}
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func gbps(s *sbv1.Statistic) (float64, float64) {
	return float64(s.Mean) / 1000, float64(s.StdDev) / 1000
}

func TestTCPSweepThroughputHasOneLinePerPairCount(t *testing.T) {
	sb := fixture.TCPSweep("tcp", 1, true)
	figs := Charts(sb)
	if got := names(figs); strings.Join(got, ",") != "throughput-gbps,rate-mpps" {
		t.Fatalf("figures %v", got)
	}
	pairs := func(c sbv1.CellResult) string {
		if c.Parameters.Pairs == 1 {
			return "1 pair"
		}
		return fmt.Sprintf("%d pairs", c.Parameters.Pairs)
	}
	payload := func(c sbv1.CellResult) float64 { return float64(c.Parameters.PayloadBytes) }
	assertSeries(t, chart(t, figs, "throughput-gbps"), expectLines(sb, pairs, payload,
		func(c sbv1.CellResult) (float64, float64) { return gbps(c.RXMbps) }))
	assertSeries(t, chart(t, figs, "rate-mpps"), expectLines(sb, pairs, payload, func(c sbv1.CellResult) (float64, float64) {
		return float64(c.PacketsPerSecond.Mean) / 1e6, float64(c.PacketsPerSecond.StdDev) / 1e6
	}))
	// the failed cell (1 MiB x 4 pairs, index 2 in DAQIRI's order) is in no series
	for _, s := range chart(t, figs, "throughput-gbps").Series {
		for _, p := range s.Points {
			if p.Cell == 2 {
				t.Errorf("failed cell 2 drawn in %q", s.Label)
			}
		}
	}
}

func TestDropCurvePutsDeliveredAndLossAgainstOfferedPerPayload(t *testing.T) {
	sb := fixture.UDPDropCurve("drop")
	figs := Charts(sb)
	byPayload := func(c sbv1.CellResult) string { return Size(c.Parameters.PayloadBytes) }
	offered := func(c sbv1.CellResult) float64 { return float64(c.TXMbps.Mean) / 1000 }
	assertSeries(t, chart(t, figs, "drop-delivered-gbps"), expectLines(sb, byPayload, offered,
		func(c sbv1.CellResult) (float64, float64) { return gbps(c.RXMbps) }))
	assertSeries(t, chart(t, figs, "drop-loss-pct"), expectLines(sb, byPayload, offered, func(c sbv1.CellResult) (float64, float64) {
		var xs []float64
		for _, r := range c.RepeatResults {
			xs = append(xs, float64(r.LossPPM)/1e4)
		}
		return float64(c.LossPPM) / 1e4, sampleStd(xs)
	}))
}

func TestWorkloadBarsCarryThroughputAndSMShare(t *testing.T) {
	sb := fixture.UDPWorkloads("wl")
	figs := Charts(sb)
	if got := names(figs); strings.Join(got, ",") != "workload-gbps,workload-gpu-sm" {
		t.Fatalf("figures %v", got)
	}
	sm := chart(t, figs, "workload-gpu-sm")
	if len(sm.Categories) != len(sb.Status.CellResults) {
		t.Fatalf("categories %v, want one per cell", sm.Categories)
	}
	for _, s := range sm.Series {
		for _, p := range s.Points {
			c := sb.Status.CellResults[p.Cell]
			if s.Label != fmt.Sprint(map[bool]string{true: c.Parameters.Workload.DataplaneName(), false: "no workload"}[c.Parameters.Workload != sbv1.WorkloadNone]) {
				t.Errorf("cell %d (%s) in series %q", p.Cell, c.Parameters.Workload, s.Label)
			}
			var xs []float64
			for _, r := range c.RepeatResults {
				xs = append(xs, float64(r.GPU.SMMilliPercent)/1000)
			}
			if !near(p.Y, float64(c.GPU.SMMilliPercent)/1000) || !near(p.Err, sampleStd(xs)) {
				t.Errorf("cell %d SM %v ± %v, want %v ± %v", p.Cell, p.Y, p.Err, float64(c.GPU.SMMilliPercent)/1000, sampleStd(xs))
			}
		}
	}
}

func TestLatencyFigureHasEveryPercentile(t *testing.T) {
	sb := fixture.RoCELatency("lat")
	f := chart(t, Charts(sb), "latency-us")
	payload := func(c sbv1.CellResult) float64 { return float64(c.Parameters.PayloadBytes) }
	want := map[string][]Point{}
	for _, pc := range []struct {
		name string
		get  func(l *sbv1.Latency) int64
	}{{"min", func(l *sbv1.Latency) int64 { return l.MinNanoseconds }}, {"p50", func(l *sbv1.Latency) int64 { return l.P50Nanoseconds }},
		{"p99", func(l *sbv1.Latency) int64 { return l.P99Nanoseconds }}, {"max", func(l *sbv1.Latency) int64 { return l.MaxNanoseconds }}} {
		for k, v := range expectLines(sb, func(sbv1.CellResult) string { return pc.name }, payload,
			func(c sbv1.CellResult) (float64, float64) { return float64(pc.get(c.Latency)) / 1000, 0 }) {
			want[k] = v
		}
	}
	assertSeries(t, f, want)
}

// TestRenderedFilesAreValidAndShowTheData decodes every PNG, parses every SVG, and checks the
// drawn plot's axes span the data and every series is in its legend.
func TestRenderedFilesAreValidAndShowTheData(t *testing.T) {
	out := os.Getenv("PLOTS_OUT") // set to keep the files (docs/reports.md)
	for _, sb := range []*sbv1.SpiralBench{fixture.TCPSweep("tcp", 1, true), fixture.UDPDropCurve("drop"),
		fixture.RawQueueScaling("queues"), fixture.RoCEGemmBatchSweep("batch"),
		fixture.UDPWorkloads("wl"), fixture.RoCELatency("lat")} {
		files, err := Files(sb)
		if err != nil {
			t.Fatal(err)
		}
		figs := Charts(sb)
		if len(files) != 2*len(figs) {
			t.Fatalf("%s: %d files for %d figures", sb.Name, len(files), len(figs))
		}
		for _, f := range figs {
			img, err := png.Decode(bytes.NewReader(files["plots/"+f.Name+".png"]))
			if err != nil {
				t.Fatalf("%s/%s.png: %v", sb.Name, f.Name, err)
			}
			if b := img.Bounds(); b.Dx() != 1536 || b.Dy() != 864 {
				t.Errorf("%s/%s.png is %v, want 1536x864", sb.Name, f.Name, b)
			}
			texts := svgTexts(t, files["plots/"+f.Name+".svg"])
			for _, s := range f.Series {
				if !texts[s.Label] {
					t.Errorf("%s/%s.svg: legend lacks series %q", sb.Name, f.Name, s.Label)
				}
			}
			if f.Kind == Lines && len(f.Series) <= 7 {
				assertDrawn(t, sb.Name, f, files["plots/"+f.Name+".svg"])
			}
			for _, want := range []string{f.Legend + ":", f.XAxis.Title(), f.YAxis.Title()} {
				if !texts[want] {
					t.Errorf("%s/%s.svg lacks the legend or axis title %q", sb.Name, f.Name, want)
				}
			}
			for _, l := range f.XTicks {
				if !texts[l] {
					t.Errorf("%s/%s.svg: x axis lacks tick %q", sb.Name, f.Name, l)
				}
			}
			p, err := f.Plot()
			if err != nil {
				t.Fatal(err)
			}
			xMin, xMax, _, yMax := f.Range()
			if yMax == 0 {
				yMax = 1 / 1.15 // an all-zero figure keeps a unit axis
			}
			_, _, yMin, _ := f.Range()
			if f.LogY {
				if p.Y.Min > yMin || p.Y.Max < yMax || p.Y.Min <= 0 {
					t.Errorf("%s/%s: log y axis %v..%v for data %v..%v", sb.Name, f.Name, p.Y.Min, p.Y.Max, yMin, yMax)
				}
			} else if p.Y.Min != 0 || p.Y.Max < yMax || p.Y.Max > yMax*1.2 {
				t.Errorf("%s/%s: y axis %v..%v for data up to %v", sb.Name, f.Name, p.Y.Min, p.Y.Max, yMax)
			}
			if p.X.Min > xMin || p.X.Max < xMax {
				t.Errorf("%s/%s: x axis %v..%v misses data %v..%v", sb.Name, f.Name, p.X.Min, p.X.Max, xMin, xMax)
			}
			if out != "" {
				for _, ext := range Formats {
					name := filepath.Join(out, sb.Name+"-"+f.Name+"."+ext)
					if err := os.WriteFile(name, files["plots/"+f.Name+"."+ext], 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
	}
}

// assertDrawn counts the SVG strokes in each series' colour: its line, a marker and an error
// bar (a stem and two caps) per point, and the legend's line and marker.
func assertDrawn(t *testing.T, bench string, f Chart, svg []byte) {
	t.Helper()
	for i, s := range f.Series {
		r, g, b, _ := SeriesColor(i).RGBA()
		stroke := fmt.Sprintf("stroke:#%02X%02X%02X", r>>8, g>>8, b>>8)
		if got, want := bytes.Count(svg, []byte(stroke)), 1+4*len(s.Points)+2; got != want {
			t.Errorf("%s/%s.svg: series %q (%s) has %d strokes, want %d for %d points", bench, f.Name, s.Label, stroke, got, want, len(s.Points))
		}
	}
}

// svgTexts parses an SVG and returns the content of its <text> elements.
func svgTexts(t *testing.T, data []byte) map[string]bool {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(data))
	texts := map[string]bool{}
	inText, root := false, ""
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch e := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = e.Name.Local
			}
			inText = e.Name.Local == "text"
		case xml.CharData:
			if inText {
				texts[strings.TrimSpace(string(e))] = true
			}
		case xml.EndElement:
			inText = false
		}
	}
	if root != "svg" {
		t.Fatalf("not an SVG document (root %q)", root)
	}
	return texts
}

// sampleStd is the n-1 standard deviation, written out here rather than taken from the package.
func sampleStd(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	var sum, sq float64
	for _, x := range xs {
		sum += x
	}
	m := sum / float64(len(xs))
	for _, x := range xs {
		sq += (x - m) * (x - m)
	}
	return math.Sqrt(sq / float64(len(xs)-1))
}

func TestQueueScalingHasOneLinePerQueueCell(t *testing.T) {
	sb := fixture.RawQueueScaling("queues")
	queues := func(c sbv1.CellResult) string {
		return fmt.Sprintf("queues (%d,%d)", c.Parameters.Queues.TX, c.Parameters.Queues.RX)
	}
	payload := func(c sbv1.CellResult) float64 { return float64(c.Parameters.PayloadBytes) }
	f := chart(t, Charts(sb), "rate-mpps")
	assertSeries(t, f, expectLines(sb, queues, payload, func(c sbv1.CellResult) (float64, float64) {
		return float64(c.PacketsPerSecond.Mean) / 1e6, float64(c.PacketsPerSecond.StdDev) / 1e6
	}))
	if len(f.Series) != 4 {
		t.Errorf("%d series, want the preset's 4 queue cells", len(f.Series))
	}
}

func TestWorkloadBatchSweepPutsThroughputAgainstBatch(t *testing.T) {
	sb := fixture.RoCEGemmBatchSweep("batch")
	figs := Charts(sb)
	if got := strings.Join(names(figs), ","); got != "workload-batch-gbps,workload-gbps,workload-gpu-sm" {
		t.Fatalf("figures %s", got)
	}
	assertSeries(t, chart(t, figs, "workload-batch-gbps"), expectLines(sb, func(sbv1.CellResult) string { return allCells },
		func(c sbv1.CellResult) float64 { return float64(c.Parameters.WorkloadBatchBytes) },
		func(c sbv1.CellResult) (float64, float64) { return gbps(c.RXMbps) }))
}
