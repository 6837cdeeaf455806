package htmlreport

import (
	"bytes"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/spiralbench/spiralbench/pkg/plots"
	"github.com/spiralbench/spiralbench/pkg/testing/fixture"
)

// A GPUCopy bench's page shows each GPU-to-GPU heatmap (whose files Files writes) and the
// all-GPU host copies, and no empty "nothing to draw" line.
func TestGPUCopyPageShowsHeatmapsAndHostAggregate(t *testing.T) {
	sb := fixture.GPUCopyPeers("gpucopy-peers")
	files, err := Files(sb)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(bytes.NewReader(files[FileName]))
	if err != nil {
		t.Fatal(err)
	}
	heatmaps := plots.Heatmaps(sb)
	imgs := findAll(doc, func(n *html.Node) bool { return n.Data == "img" && hasClass(n.Parent, "heatmap") })
	if len(imgs) != len(heatmaps) || len(heatmaps) != 2 {
		t.Fatalf("%d heatmap images, %d heatmaps", len(imgs), len(heatmaps))
	}
	for i, img := range imgs {
		src := attr(img, "src")
		if src != "plots/"+heatmaps[i].Name+".svg" || files[src] == nil || files["plots/"+heatmaps[i].Name+".png"] == nil {
			t.Errorf("image %d: %s, files %v", i, src, files[src] != nil)
		}
	}
	caption := text(byID(t, doc, "fig-peer-ce-uni-256MiB"))
	if !strings.Contains(caption, "mean of 2 repeat(s); paths 4-5 NV12, 4-6 SYS") {
		t.Errorf("caption %q", caption)
	}
	rows := findAll(byID(t, doc, "host-aggregate"), func(n *html.Node) bool { return n.Data == "tr" && n.Parent.Data == "tbody" })
	if len(rows) != 1 {
		t.Fatalf("%d host aggregate rows", len(rows))
	}
	for _, want := range []string{"H2D", "256 MiB", "GPU 4: 55.30; GPU 5: 55.20; GPU 6: 54.10", "GPU 6: 52.00", "164.60", "111.50"} {
		if got := text(rows[0]); !strings.Contains(got, want) {
			t.Errorf("host aggregate row %q lacks %q", got, want)
		}
	}
	if strings.Contains(string(files[FileName]), "No cell has a measurement to draw") {
		t.Error("the page says there is nothing to draw")
	}
}
