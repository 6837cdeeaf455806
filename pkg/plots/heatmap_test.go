package plots

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"

	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
	"github.com/spiralbench/spiralbench/pkg/testing/fixture"
)

func TestHeatmapsAverageTheValidRepeats(t *testing.T) {
	hs := Heatmaps(fixture.GPUCopyPeers("peers"))
	if len(hs) != 2 || hs[0].Name != "peer-ce-uni-256MiB" || hs[1].Name != "peer-sm-bi-256MiB" {
		t.Fatalf("heatmaps = %+v", hs)
	}
	ce := hs[0]
	if ce.Repeats != 2 || len(ce.Devices) != 3 || ce.Devices[2] != 6 {
		t.Errorf("repeats %d, devices %v", ce.Repeats, ce.Devices)
	}
	if got := ce.GBps[0][1]; math.Abs(got-150) > 1e-9 { // (100 + 200) / 2
		t.Errorf("ce[4][5] = %v, want 150", got)
	}
	if got := ce.GBps[1][0]; math.Abs(got-135) > 1e-9 {
		t.Errorf("ce[5][4] = %v, want 135", got)
	}
	for i := range 3 {
		if !math.IsNaN(ce.GBps[i][i]) {
			t.Errorf("diagonal %d = %v, want unmeasured", i, ce.GBps[i][i])
		}
	}
	if !math.IsNaN(hs[1].GBps[2][0]) || hs[1].GBps[2][1] != 15 {
		t.Errorf("sm row 6 = %v", hs[1].GBps[2])
	}
	if ce.Title != "GPU to GPU, copy engines, unidirectional, 256 MiB per copy: GB/s" || len(ce.Paths) != 2 || ce.Paths[0] != "4-5 NV12" {
		t.Errorf("title %q, paths %v", ce.Title, ce.Paths)
	}
	if len(Heatmaps(sbtesting.MakeSpiralBench("none", "lab").Obj())) != 0 {
		t.Error("a bench without matrices has heatmaps")
	}
	// its one cell sweeps sizes itself (payload 0): no figure against payload
	if figs := Charts(fixture.GPUCopyPeers("peers")); len(figs) != 0 {
		t.Errorf("figures %v for a GPUCopy bench", names(figs))
	}
}

// TestHeatmapRendersTheMatrix checks the pixels: the highest cell in the palette's last colour,
// the three diagonal cells grey, and in the SVG every value written in its cell and every GPU
// named on both axes.
func TestHeatmapRendersTheMatrix(t *testing.T) {
	sb := fixture.GPUCopyPeers("peers")
	files, err := Files(sb)
	if err != nil {
		t.Fatal(err)
	}
	ce := Heatmaps(sb)[0]
	img, err := png.Decode(bytes.NewReader(files["plots/"+ce.Name+".png"]))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 1152 || b.Dy() != 960 {
		t.Errorf("png is %v, want 1152x960 (6x5 in at 192 dpi)", b)
	}
	// a cell is a ninth of the ~1060 x 820 px plot area, ~96000 px less its label
	hot, grey := count(img, HeatColor()), count(img, HeatUnmeasured)
	if hot < 60000 || hot > 120000 {
		t.Errorf("%d px in the highest value's colour, want one cell's worth", hot)
	}
	if grey < 3*60000 || grey > 3*120000 {
		t.Errorf("%d px of unmeasured grey, want three cells' worth", grey)
	}
	texts := svgTexts(t, files["plots/"+ce.Name+".svg"])
	for _, want := range []string{"150.0", "135.0", "30.0", "–", "4", "5", "6", "destination GPU", "source GPU", ce.Title} {
		if !texts[want] {
			t.Errorf("svg lacks %q", want)
		}
	}
	if out := os.Getenv("PLOTS_OUT"); out != "" {
		for _, ext := range Formats {
			if err := os.WriteFile(filepath.Join(out, "peers-"+ce.Name+"."+ext), files["plots/"+ce.Name+"."+ext], 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func count(img image.Image, c color.Color) int {
	r0, g0, b0, _ := c.RGBA()
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r>>8 == r0>>8 && g>>8 == g0>>8 && bl>>8 == b0>>8 {
				n++
			}
		}
	}
	return n
}
