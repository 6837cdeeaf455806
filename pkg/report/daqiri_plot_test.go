package report_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/spiralbench/spiralbench/pkg/htmlreport"
	"github.com/spiralbench/spiralbench/pkg/report"
)

// plotScript is DAQIRI's scripts/plot_mq_payload_sweep.py as published (NVIDIA/daqiri at
// 1134167e4b1d3c6869778f28599d31e8a7e84151, Apache-2.0: LICENSE beside it), unchanged.
var plotScript = filepath.Join("testdata", "daqiri", "plot_mq_payload_sweep.py")

// pythonWithMatplotlib is the first python3 that imports matplotlib: the one on PATH, else
// Debian's, where `make deps-views` installs python3-matplotlib.
func pythonWithMatplotlib(t *testing.T) string {
	t.Helper()
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		if path, err := exec.LookPath(py); err == nil && exec.Command(path, "-c", "import matplotlib").Run() == nil {
			return path
		}
	}
	t.Skip("no python3 with matplotlib, which DAQIRI's plot_mq_payload_sweep.py needs: `make deps-views` installs " +
		"Debian's python3-matplotlib; then go test ./pkg/report -run TestDAQIRIsPlotScript")
	return ""
}

// plot runs DAQIRI's script on csvPath and returns the SVG it wrote.
func plot(t *testing.T, py, csvPath string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "sweep.svg")
	cmd := exec.Command(py, plotScript, csvPath, out)
	cmd.Env = append(os.Environ(), "MPLCONFIGDIR="+t.TempDir())
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", plotScript, csvPath, err, msg)
	}
	svg, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(svg)
}

var (
	// a plotted series: matplotlib's SVG path of a Line2D clipped to the axes, at the script's
	// linewidth 1.8 (grid lines are 0.4, legend swatches are not clipped)
	seriesPath = regexp.MustCompile(`<path d="M ([^"]+)"\s+clip-path="[^"]+"\s+style="fill: none; stroke: #[0-9a-f]{6}; stroke-width: 1\.8;`)
	// the separator of a path's points: matplotlib writes "x y \nL x y"
	pathStep = regexp.MustCompile(`\s*L\s+`)
	// a horizontal grid line: M x0 y L x1 y
	gridPath = regexp.MustCompile(`<path d="M [\d.]+ ([\d.]+)\s+L [\d.]+ ([\d.]+)\s*"\s+clip-path="[^"]+"\s+style="fill: none; stroke: #b0b0b0;`)
)

// series are the plotted lines' points in SVG coordinates, in the order drawn.
func series(svg string) [][][2]float64 {
	var out [][][2]float64
	for _, m := range seriesPath.FindAllStringSubmatch(svg, -1) {
		var pts [][2]float64
		for _, xy := range pathStep.Split(m[1], -1) {
			f := strings.Fields(xy)
			x, _ := strconv.ParseFloat(f[0], 64)
			y, _ := strconv.ParseFloat(f[1], 64)
			pts = append(pts, [2]float64{x, y})
		}
		out = append(out, pts)
	}
	return out
}

// DAQIRI's own script, run on the DAQIRI layout of a queue run, draws its four cells over five
// payloads at DAQIRI's figures; on our runs.csv it draws nothing, which is why the layout exists.
func TestDAQIRIsPlotScriptDrawsTheDAQIRILayout(t *testing.T) {
	py := pythonWithMatplotlib(t)
	sb := recordedQueueRun(t)
	files, err := report.DAQIRILayout(sb)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "bench-results")
	if err := htmlreport.WriteDir(dir, files); err != nil {
		t.Fatal(err)
	}
	svg := plot(t, py, filepath.Join(dir, "20261124T030000Z-dpdk-mq", "runs.csv"))
	lines := series(svg)
	if len(lines) != 4 {
		t.Fatalf("%d series drawn, want the 4 cells 1t1r 1t2r 2t1r 2t2r", len(lines))
	}
	for _, label := range []string{"1 TX / 1 RX core", "1 TX / 2 RX cores", "2 TX / 1 RX core", "2 TX / 2 RX cores", "64", "8000"} {
		if !strings.Contains(svg, "<!-- "+label+" -->") {
			t.Errorf("the chart has no %q (legend entry or payload tick)", label)
		}
	}
	// Gb/s from the y axis: its first grid line is 0, the next 20 (the ticks' labels say so).
	grid := gridPath.FindAllStringSubmatch(svg, -1)
	var ys []float64
	for _, g := range grid {
		if g[1] == g[2] {
			y, _ := strconv.ParseFloat(g[1], 64)
			ys = append(ys, y)
		}
	}
	if len(ys) < 2 || !strings.Contains(svg, "<!-- 0 -->") || !strings.Contains(svg, "<!-- 20 -->") {
		t.Fatalf("y grid %v: want lines at 0 and 20 Gb/s", ys)
	}
	gbps := func(y float64) float64 { return (ys[0] - y) / (ys[0] - ys[1]) * 20 }
	for i, want := range []float64{20.4, 40.8, 20.4, 40.8} { // CELL_ORDER at 64 B, DAQIRI's accounting
		if pts := lines[i]; len(pts) != 5 || gbps(pts[0][1]) < want-0.05 || gbps(pts[0][1]) > want+0.05 {
			t.Errorf("series %d: %d points, 64 B at %.2f Gb/s; want 5 points, %.1f Gb/s", i, len(pts), gbps(pts[0][1]), want)
		}
	}
	// The bucket's runs.csv has a cell column of plan indices: the script draws an empty chart.
	ours := filepath.Join(t.TempDir(), "runs.csv")
	if err := os.WriteFile(ours, mustFiles(t, sb)["runs.csv"], 0o644); err != nil {
		t.Fatal(err)
	}
	if n := len(series(plot(t, py, ours))); n != 0 {
		t.Errorf("on runs.csv the script drew %d series; the layout's reason to exist is that it draws none", n)
	}
}
