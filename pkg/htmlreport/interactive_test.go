package htmlreport

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"

	"golang.org/x/net/html"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/testing/fixture"
)

// pageChart is one figure of the page's #figure-data as charts.js reads it, decoded here
// independently of the Go types that wrote it.
type pageChart struct {
	Name, Title, Kind, Legend string
	X, Y                      struct {
		Title, Unit string
		Log         bool
		Min, Max    float64
		Ticks       []struct {
			Value float64
			Label string
		}
	}
	Categories []string
	Series     []struct {
		Label, Color string
		Points       []pagePoint
	}
	Ceiling []pagePoint
}

type pagePoint struct {
	Cell      int32
	X, Y, Err float64
}

// parsed renders a bench's page and parses it.
func parsed(t *testing.T, sb *sbv1.SpiralBench) (string, *html.Node) {
	t.Helper()
	page, err := Render(sb)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	return string(page), doc
}

func figureData(t *testing.T, doc *html.Node) map[string]pageChart {
	t.Helper()
	var charts []pageChart
	if err := json.Unmarshal([]byte(text(byID(t, doc, "figure-data"))), &charts); err != nil {
		t.Fatalf("#figure-data: %v", err)
	}
	out := map[string]pageChart{}
	for _, c := range charts {
		out[c.Name] = c
	}
	return out
}

// The pinned uPlot release is what the page inlines, once, unmodified.
func TestVendoredUPlotIsThePinnedRelease(t *testing.T) {
	for name, want := range map[string]string{
		uplotJS:  "19c8d4c6ad88929a79f4ae49d6f7161566dfd0ba3d15cc495e974f787eb78f1f",
		uplotCSS: "df630c6a8d6f8eeaff264b50f73ce5b114f646ffd9a0bb74f049b0a00135fa04",
	} {
		if sum := sha256.Sum256([]byte(name)); hex.EncodeToString(sum[:]) != want {
			t.Errorf("a vendored uPlot file has sha256 %x, uplot/README.md records %s", sum, want)
		}
	}
	page, _ := parsed(t, fixture.TCPSweep("tcp-sweep", 1, true))
	if n := strings.Count(page, uplotJS); n != 1 {
		t.Errorf("uPlot's script is in the page %d times, want once", n)
	}
	if n := strings.Count(page, uplotCSS); n != 1 {
		t.Errorf("uPlot's stylesheet is in the page %d times, want once", n)
	}
	if n := strings.Count(page, "leeoniya/uPlot (v1.6.32)"); n != 1 {
		t.Errorf("uPlot 1.6.32's banner %d times", n)
	}
}

// A report with no chart (a GPUCopy bench draws only heatmaps) inlines no library.
func TestAReportWithoutChartsHasNoScript(t *testing.T) {
	page, doc := parsed(t, fixture.GPUCopyPeers("peers"))
	if scripts := findAll(doc, func(n *html.Node) bool { return n.Data == "script" }); len(scripts) != 0 || strings.Contains(page, "uPlot") {
		t.Errorf("%d scripts in a page without charts", len(scripts))
	}
}

// The page's chart data is each figure's series in its units, the values the fixture's cells
// hold: RX Gb/s and Mpps against payload bytes, one series per pair count, the failed cell left
// out, the ceiling where the NIC is recorded.
func TestFigureDataIsEachChartInItsUnits(t *testing.T) {
	sb := fixture.TCPSweep("tcp-sweep", 1, true)
	sb.Status.Environment.NICs = []sbv1.NICEnvironment{{Interface: "eth1", Driver: "mlx5_core", SpeedMbps: 100000, MTU: 9000, PCIeGeneration: 5, PCIeWidth: 16}}
	_, doc := parsed(t, sb)
	charts := figureData(t, doc)
	if len(charts) != 2 {
		t.Fatalf("figures %v, want throughput-gbps and rate-mpps", charts)
	}
	for name, want := range map[string]struct {
		title, unit string
		value       func(c sbv1.CellResult) (float64, float64)
	}{
		"throughput-gbps": {"RX throughput (Gb/s)", "Gb/s", func(c sbv1.CellResult) (float64, float64) {
			return float64(c.RXMbps.Mean) / 1000, float64(c.RXMbps.StdDev) / 1000
		}},
		"rate-mpps": {"RX packet rate (Mpps)", "Mpps", func(c sbv1.CellResult) (float64, float64) {
			return float64(c.PacketsPerSecond.Mean) / 1e6, float64(c.PacketsPerSecond.StdDev) / 1e6
		}},
	} {
		c := charts[name]
		if c.Kind != "lines" || c.Legend != "pairs" || c.X.Title != "payload (bytes)" || c.X.Unit != "bytes" || !c.X.Log ||
			c.Y.Title != want.title || c.Y.Unit != want.unit || c.Y.Min != 0 {
			t.Errorf("%s: kind %q legend %q x %q/%q log %v y %q/%q from %v", name, c.Kind, c.Legend, c.X.Title, c.X.Unit, c.X.Log, c.Y.Title, c.Y.Unit, c.Y.Min)
		}
		var ticks []string
		for _, tk := range c.X.Ticks {
			ticks = append(ticks, fmt.Sprintf("%g=%s", tk.Value, tk.Label))
		}
		if got := strings.Join(ticks, ","); got != "1000=1000 B,8000=8000 B,1.048576e+06=1 MiB" {
			t.Errorf("%s: x ticks %s", name, got)
		}
		expect := map[string][]pagePoint{}
		for _, cell := range sb.Status.CellResults {
			if cell.State == sbv1.CellFailed {
				continue
			}
			label := fmt.Sprintf("%d pairs", cell.Parameters.Pairs)
			if cell.Parameters.Pairs == 1 {
				label = "1 pair"
			}
			y, err := want.value(cell)
			expect[label] = append(expect[label], pagePoint{Cell: cell.Index, X: float64(cell.Parameters.PayloadBytes), Y: y, Err: err})
		}
		got := map[string][]pagePoint{}
		for _, s := range c.Series {
			got[s.Label] = s.Points
			if !strings.HasPrefix(s.Color, "#") || len(s.Color) != 7 {
				t.Errorf("%s/%s: colour %q", name, s.Label, s.Color)
			}
		}
		for label, ps := range expect {
			sort.Slice(ps, func(i, j int) bool { return ps[i].X < ps[j].X })
			if !samePoints(got[label], ps) {
				t.Errorf("%s/%s: points %+v, want %+v", name, label, got[label], ps)
			}
		}
		if len(got) != len(expect) {
			t.Errorf("%s: series %v, want %d", name, c.Series, len(expect))
		}
	}
	ceiling := charts["throughput-gbps"].Ceiling
	if len(ceiling) != 3 || math.Abs(ceiling[0].Y-99.004) > 0.001 || charts["rate-mpps"].Ceiling != nil {
		t.Errorf("ceiling %+v, want 99.004 Gb/s at each of the 3 payloads on the throughput chart only", ceiling)
	}
}

// Latency reads in µs on log axes, a series per percentile; workloads are bars named by cell.
func TestFigureDataOfLatencyAndWorkloads(t *testing.T) {
	_, doc := parsed(t, fixture.RoCELatency("lat"))
	lat := figureData(t, doc)["latency-us"]
	if lat.Y.Unit != "µs" || lat.Y.Title != "one-way latency (µs)" || !lat.Y.Log || lat.Y.Min <= 0 || !strings.HasPrefix(lat.Legend, "percentile") {
		t.Errorf("latency: y %q %q log %v from %v, legend %q", lat.Y.Title, lat.Y.Unit, lat.Y.Log, lat.Y.Min, lat.Legend)
	}
	sb := fixture.RoCELatency("lat")
	for _, s := range lat.Series {
		if !strings.HasPrefix(s.Label, "p50") {
			continue
		}
		for _, p := range s.Points {
			if c := sb.Status.CellResults[p.Cell]; math.Abs(p.Y-float64(c.Latency.P50Nanoseconds)/1000) > 1e-9 {
				t.Errorf("p50 of cell %d: %v µs, status %d ns", p.Cell, p.Y, c.Latency.P50Nanoseconds)
			}
		}
	}

	wl := fixture.UDPWorkloads("wl")
	_, doc = parsed(t, wl)
	bars := figureData(t, doc)["workload-gpu-sm"]
	n := 0
	for _, s := range bars.Series {
		n += len(s.Points)
	}
	if bars.Kind != "bars" || bars.Legend != "workload" || bars.Y.Unit != "%" || len(bars.Categories) != n || n == 0 {
		t.Errorf("workload-gpu-sm: kind %q legend %q unit %q, %d categories for %d bars", bars.Kind, bars.Legend, bars.Y.Unit, len(bars.Categories), n)
	}
}

func samePoints(a, b []pagePoint) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Cell != b[i].Cell || math.Abs(a[i].X-b[i].X) > 1e-9 || math.Abs(a[i].Y-b[i].Y) > 1e-9 || math.Abs(a[i].Err-b[i].Err) > 1e-9 {
			return false
		}
	}
	return true
}
