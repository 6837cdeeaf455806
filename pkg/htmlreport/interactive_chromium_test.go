package htmlreport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/plots"
	"github.com/spiralbench/spiralbench/pkg/testing/fixture"
)

// chartProbe, put first into a copy of the page's <head>, records every script error and
// console.error, then after load hovers each chart at its left edge (the cursor snaps to the
// first X), reads the legend, clicks the first series' legend entry, and writes what it found
// into the DOM that --dump-dom returns.
const chartProbe = `<script>
window.probeErrors = [];
addEventListener('error', e => probeErrors.push(String(e.message)));
const consoleError = console.error;
console.error = (...a) => { probeErrors.push(a.join(' ')); consoleError(...a); };
addEventListener('load', () => setTimeout(() => {
  const charts = {};
  for (const box of document.querySelectorAll('div.chart')) {
    const over = box.querySelector('.u-over');
    const c = {canvas: box.querySelectorAll('canvas').length, img: box.querySelectorAll('img').length,
      legend: (box.querySelector('.legend-title') || {}).textContent,
      labels: [...box.querySelectorAll('.u-legend .u-series th')].map(e => e.textContent.trim())};
    if (over) {
      const r = over.getBoundingClientRect();
      const at = {bubbles: true, clientX: r.left + 1, clientY: r.top + r.height / 2};
      over.dispatchEvent(new MouseEvent('mouseenter', at));
      over.dispatchEvent(new MouseEvent('mousemove', at));
      c.hover = [...box.querySelectorAll('.u-legend .u-series .u-value')].map(e => e.textContent);
      const first = box.querySelectorAll('.u-legend .u-series')[1];
      first.querySelector('th').click();
      c.toggledOff = first.classList.contains('u-off');
    }
    charts[box.id.replace(/^chart-/, '')] = c;
  }
  const pre = document.createElement('pre');
  pre.id = 'chart-probe';
  pre.textContent = JSON.stringify({errors: probeErrors, charts});
  document.body.appendChild(pre);
}, 200));
</script>`

type probed struct {
	Errors []string
	Charts map[string]struct {
		Canvas, Img int
		Legend      string
		Labels      []string
		Hover       []string
		ToggledOff  bool
	}
}

// A headless chromium opens each report from its file, runs the inlined uPlot and charts.js
// without an error, and draws every figure as a chart: canvas in place of the static image, the
// legend titled and naming every series, a hover giving each value in its unit and cell, a
// click on a series' legend entry hiding it.
func TestChartsDrawInChromium(t *testing.T) {
	ceiling := fixture.TCPSweep("tcp-sweep", 1, true)
	ceiling.Status.Environment.NICs = []sbv1.NICEnvironment{{Interface: "eth1", Driver: "mlx5_core", SpeedMbps: 100000, MTU: 9000, PCIeGeneration: 5, PCIeWidth: 16}}
	for _, sb := range []*sbv1.SpiralBench{ceiling, fixture.UDPDropCurve("drop"), fixture.UDPWorkloads("wl"), fixture.RoCELatency("lat")} {
		t.Run(sb.Name, func(t *testing.T) {
			page := writeReport(t, sb)
			data, err := os.ReadFile(page)
			if err != nil {
				t.Fatal(err)
			}
			data = bytes.Replace(data, []byte("<head>"), []byte("<head>"+chartProbe), 1)
			if err := os.WriteFile(page, data, 0o644); err != nil {
				t.Fatal(err)
			}
			doc, err := html.Parse(bytes.NewReader(chromium(t, "--window-size=1280,2600", "--virtual-time-budget=5000", "--dump-dom", "file://"+page)))
			if err != nil {
				t.Fatal(err)
			}
			var got probed
			if err := json.Unmarshal([]byte(text(byID(t, doc, "chart-probe"))), &got); err != nil {
				t.Fatal(err)
			}
			if len(got.Errors) > 0 {
				t.Errorf("script errors: %q", got.Errors)
			}
			charts := plots.Charts(sb)
			if len(got.Charts) != len(charts) {
				t.Errorf("%d charts in the page, %d figures", len(got.Charts), len(charts))
			}
			for _, c := range charts {
				g, ok := got.Charts[c.Name]
				if !ok || g.Canvas == 0 || g.Img != 0 {
					t.Errorf("%s: %d canvas, %d static images left: not drawn", c.Name, g.Canvas, g.Img)
					continue
				}
				want := []string{c.XAxis.Title()}
				for _, s := range c.Series {
					want = append(want, s.Label)
				}
				if len(c.Ceiling) > 0 {
					want = append(want, "ceiling")
				}
				if g.Legend != c.Legend || strings.Join(g.Labels, "|") != strings.Join(want, "|") {
					t.Errorf("%s: legend %q %q, want %q %q", c.Name, g.Legend, g.Labels, c.Legend, want)
				}
				if wantHover := hoverAtFirstX(c); len(g.Hover) < 2 || g.Hover[1] != wantHover {
					t.Errorf("%s: hovering the first X reads %q, want the first series' %q", c.Name, g.Hover, wantHover)
				}
				if !g.ToggledOff {
					t.Errorf("%s: clicking the first series in the legend did not hide it", c.Name)
				}
			}
		})
	}
}

// hoverAtFirstX is what the legend shows for the first series at the chart's lowest X: its
// value ± spread in the Y unit and its cell, or a dash where it has no point there.
func hoverAtFirstX(c plots.Chart) string {
	first := c.Series[0].Points[0]
	for _, s := range c.Series {
		for _, p := range s.Points {
			if p.X < first.X {
				first = p
			}
		}
	}
	for _, p := range c.Series[0].Points {
		if p.X != first.X {
			continue
		}
		v := strconv.FormatFloat(p.Y, 'g', 4, 64)
		if p.Err != 0 {
			v += " ± " + strconv.FormatFloat(p.Err, 'g', 4, 64)
		}
		return fmt.Sprintf("%s %s · cell %d", v, c.YAxis.Unit, p.Cell)
	}
	return "–"
}
