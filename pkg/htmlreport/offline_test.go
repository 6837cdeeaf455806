package htmlreport

import (
	"bytes"
	"strings"
	"testing"

	"golang.org/x/net/html"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/plots"
	"github.com/spiralbench/spiralbench/pkg/testing/fixture"
)

func benches() []*sbv1.SpiralBench {
	return []*sbv1.SpiralBench{fixture.TCPSweep("tcp-sweep", 1, true), fixture.UDPDropCurve("drop"), fixture.UDPWorkloads("wl"),
		fixture.RoCELatency("lat"), fixture.RawQueueScaling("queues"), fixture.GPUCopyPeers("peers")}
}

// references are the page's src and href values.
func references(doc *html.Node) []string {
	var out []string
	for _, n := range findAll(doc, func(*html.Node) bool { return true }) {
		for _, a := range n.Attr {
			if a.Key == "src" || a.Key == "href" {
				out = append(out, a.Val)
			}
		}
	}
	return out
}

// The page fetches nothing from a network: no script, stylesheet, image or CSS url() with a
// scheme or a host.
func TestReportIsOffline(t *testing.T) {
	for _, sb := range benches() {
		page, doc := parsed(t, sb)
		for _, ref := range references(doc) {
			if strings.Contains(ref, "://") || strings.HasPrefix(ref, "//") {
				t.Errorf("%s: the page refers to %q", sb.Name, ref)
			}
		}
		for _, s := range findAll(doc, func(n *html.Node) bool { return n.Data == "style" }) {
			if css := text(s); strings.Contains(css, "url(") || strings.Contains(css, "@import") {
				t.Errorf("%s: a stylesheet loads a resource", sb.Name)
			}
		}
		if strings.Contains(page, `src="http`) || strings.Contains(page, `href="http`) {
			t.Errorf("%s: an http(s) reference in the page", sb.Name)
		}
	}
}

// Each interactive chart sits over its static figure, which shows until the chart is drawn
// (and without JavaScript); the static files are still written beside the page.
func TestStaticFiguresStayAsFallback(t *testing.T) {
	for _, sb := range benches() {
		files, err := Files(sb)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := html.Parse(bytes.NewReader(files[FileName]))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range plots.Charts(sb) {
			imgs := findAll(byID(t, doc, "chart-"+c.Name), func(n *html.Node) bool { return n.Data == "img" })
			if len(imgs) != 1 || attr(imgs[0], "src") != "plots/"+c.Name+".svg" {
				t.Errorf("%s/%s: the chart holds %d images, want its static SVG", sb.Name, c.Name, len(imgs))
			}
			for _, ext := range plots.Formats {
				if len(files["plots/"+c.Name+"."+ext]) == 0 {
					t.Errorf("%s: plots/%s.%s not written", sb.Name, c.Name, ext)
				}
			}
		}
	}
}
