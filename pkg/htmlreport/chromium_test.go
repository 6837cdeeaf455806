package htmlreport

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/plots"
	"github.com/spiralbench/spiralbench/pkg/testing/fixture"
)

// chromium runs Debian's chromium headless with args and returns its stdout.
func chromium(t *testing.T, args ...string) []byte {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is missing: run hack/deps-views.sh (make test-go does) to install Debian's chromium")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
		"--allow-file-access-from-files", "--user-data-dir=" + t.TempDir()}
	cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, stderr.String())
	}
	return out
}

// writeReport puts a bench's report and figures into a directory as `sbctl report -o` does.
func writeReport(t *testing.T, sb *sbv1.SpiralBench) string {
	t.Helper()
	dir := t.TempDir()
	files, err := Files(sb)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteDir(dir, files); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, FileName)
}

func TestReportInChromium(t *testing.T) {
	for _, tc := range []struct {
		bench        *sbv1.SpiralBench
		word, reason string
		unmeasured   string // the cells the banner names as failed or invalid
		broken       []string
		screenshot   string
	}{
		{bench: fixture.TCPSweep("tcp-sweep", 1, true), word: "FAILED", reason: sbv1.ReasonCellsFailed,
			unmeasured: "1 of 9 cells failed: cell 2 (1 MiB x 4 pairs): client pod: OOMKilled",
			broken:     []string{"no-retransmit-storm: cell 2 failed (client pod: OOMKilled)"}, screenshot: "report-tcp-sweep.png"},
		{bench: fixture.UDPWorkloads("udp-gpu-workloads"), word: "PASSED", reason: sbv1.ReasonNoRules},
	} {
		t.Run(tc.bench.Name, func(t *testing.T) {
			page := writeReport(t, tc.bench)
			doc, err := html.Parse(bytes.NewReader(chromium(t, "--dump-dom", "file://"+page)))
			if err != nil {
				t.Fatal(err)
			}
			figs := plots.Charts(tc.bench)
			// each figure drawn as a chart in its figure (TestChartsDrawInChromium tries them)
			if plotted := findAll(doc, func(n *html.Node) bool { return hasClass(n, "plot") }); len(plotted) != len(figs) || len(figs) == 0 {
				t.Errorf("%d figures in the page, %d charts", len(plotted), len(figs))
			}
			for _, f := range figs {
				if canvas := findAll(byID(t, doc, "chart-"+f.Name), func(n *html.Node) bool { return n.Data == "canvas" }); len(canvas) != 1 {
					t.Errorf("%s: %d canvas, want the chart drawn", f.Name, len(canvas))
				}
			}
			rows := findAll(byID(t, doc, "cells"), func(n *html.Node) bool { return n.Data == "tr" && n.Parent.Data == "tbody" })
			if len(rows) != len(tc.bench.Status.CellResults) {
				t.Errorf("%d table rows, %d cells", len(rows), len(tc.bench.Status.CellResults))
			}
			if got := text(byID(t, doc, "verdict-word")); got != tc.word {
				t.Errorf("verdict %q, want %q", got, tc.word)
			}
			if got := text(byID(t, doc, "verdict-reason")); !strings.HasPrefix(got, tc.reason+":") {
				t.Errorf("verdict reason %q, want %s", got, tc.reason)
			}
			if tc.unmeasured != "" {
				if got := text(byID(t, doc, "cells-unmeasured")); got != tc.unmeasured {
					t.Errorf("failed cells %q, want %q", got, tc.unmeasured)
				}
			}
			if tc.broken != nil {
				items := findAll(byID(t, doc, "rules-broken"), func(n *html.Node) bool { return n.Data == "li" })
				var got []string
				for _, li := range items {
					got = append(got, text(li))
				}
				if strings.Join(got, "|") != strings.Join(tc.broken, "|") {
					t.Errorf("rules broken %q, want %q", got, tc.broken)
				}
			}

			ruleRows := findAll(doc, func(n *html.Node) bool { return strings.HasPrefix(attr(n, "class"), "rule-") })
			if spec := tc.bench.Spec.Acceptance; spec != nil && len(ruleRows) != len(spec.Rules) {
				t.Errorf("%d rule rows, spec has %d rules", len(ruleRows), len(spec.Rules))
			}
			for _, r := range ruleRows {
				name := text(r.FirstChild)
				broken := slices.ContainsFunc(tc.broken, func(b string) bool { return strings.HasPrefix(b, name+":") })
				if want := map[bool]string{true: "rule-broken", false: "rule-held"}[broken]; attr(r, "class") != want {
					t.Errorf("rule %s is %s, want %s", name, attr(r, "class"), want)
				}
			}

			shot := filepath.Join(t.TempDir(), "shot.png")
			chromium(t, "--screenshot="+shot, "--window-size=1280,2600", "--hide-scrollbars", "file://"+page)
			data, err := os.ReadFile(shot)
			if err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(bytes.NewReader(data))
			if err != nil {
				t.Fatalf("screenshot: %v", err)
			}
			// The figures were loaded and painted: the first series' colour is on screen, and so
			// is the verdict's background.
			if n := count(img, plots.SeriesColor(0)); n < 50 {
				t.Errorf("screenshot has %d pixels of the first series' colour: figures not painted", n)
			}
			bg := map[string]color.Color{"FAILED": color.RGBA{0xfb, 0xe4, 0xe4, 0xff}, "PASSED": color.RGBA{0xe3, 0xf4, 0xe1, 0xff}}[tc.word]
			if n := count(img, bg); n < 1000 {
				t.Errorf("screenshot has %d pixels of the %s verdict's background", n, tc.word)
			}
			if dir := os.Getenv("REPORT_SCREENSHOTS"); dir != "" && tc.screenshot != "" {
				if err := os.WriteFile(filepath.Join(dir, tc.screenshot), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

func count(img image.Image, c color.Color) int {
	r0, g0, b0, _ := c.RGBA()
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			if r>>8 == r0>>8 && g>>8 == g0>>8 && b>>8 == b0>>8 {
				n++
			}
		}
	}
	return n
}

func findAll(n *html.Node, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && match(n) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

func byID(t *testing.T, doc *html.Node, id string) *html.Node {
	t.Helper()
	found := findAll(doc, func(n *html.Node) bool { return attr(n, "id") == id })
	if len(found) != 1 {
		t.Fatalf("%d elements with id %q", len(found), id)
	}
	return found[0]
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasClass(n *html.Node, class string) bool {
	return n != nil && strings.Contains(" "+attr(n, "class")+" ", " "+class+" ")
}

func text(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return strings.Join(strings.Fields(b.String()), " ")
}
