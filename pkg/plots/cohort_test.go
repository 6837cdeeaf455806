package plots

import (
	"bytes"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spiralbench/spiralbench/pkg/fleet"
)

// cohortOf decides a cohort of four canaries on 580.2 against twelve nodes on 570.1.
func cohortOf(class string, after []float64) fleet.CohortSummary {
	var nodes []fleet.CohortNode
	for i := range 12 {
		nodes = append(nodes, fleet.CohortNode{Name: fmt.Sprintf("old-%02d", i), Driver: "570.1", Value: 94000 + float64(i%5-2)*300})
	}
	t0 := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	for i, v := range after {
		nodes = append(nodes, fleet.CohortNode{Name: fmt.Sprintf("new-%02d", i), Driver: "580.2", Value: v, Upgraded: true, When: t0.Add(time.Duration(i) * time.Minute)})
	}
	c := fleet.DecideCohort(class, "580.2", "RxMbps", true, nodes, 4, 3)
	return fleet.SummarizeCohort(c, nodes, true)
}

func TestACohortFigureShowsBothSidesAndTheDecision(t *testing.T) {
	cases := []struct {
		s        fleet.CohortSummary
		decision string
	}{
		{cohortOf("h200", []float64{94100, 93900, 94200, 93800}), "Equivalent"},
		{cohortOf("h200", []float64{89200, 89500, 88900, 89300}), "Worse"},
		{cohortOf("", []float64{94100}), "Undecided"}, // one canary: no test, nothing to draw a box from but a point
	}
	for _, c := range cases {
		if c.s.Decision != c.decision {
			t.Fatalf("fixture decided %s, want %s", c.s.Decision, c.decision)
		}
		files, err := CohortFiles([]fleet.CohortSummary{c.s})
		if err != nil {
			t.Fatal(err)
		}
		name := fleet.CohortPlotName(c.s.Class, c.s.Driver)
		if got := slices.Sorted(func(yield func(string) bool) {
			for k := range files {
				if !yield(k) {
					return
				}
			}
		}); !slices.Equal(got, []string{name + ".png", name + ".svg"}) {
			t.Fatalf("files %v", got)
		}
		img, err := png.Decode(bytes.NewReader(files[name+".png"]))
		if err != nil {
			t.Fatal(err)
		}
		if b := img.Bounds(); b.Dx() != 1536 || b.Dy() != 864 {
			t.Errorf("png is %v, want 1536x864", b)
		}
		svg := files[name+".svg"]
		texts := svgTexts(t, svg)
		class := c.s.Class
		if class == "" {
			class = "all nodes"
		}
		head := fmt.Sprintf("class %s, driver 580.2: RxMbps %s", class, c.decision)
		for _, want := range []string{head, "RxMbps (Gb/s)", "reference: other drivers (n=12)", "reference mean ± 3%", "mean",
			fmt.Sprintf("canaries: driver 580.2 (n=%d)", c.s.NAfter)} {
			if !texts[want] {
				t.Errorf("%s: svg lacks %q; has %v", c.decision, want, texts)
			}
		}
		if c.decision == "Undecided" && !strings.Contains(string(svg), "1 more canaries needed") {
			t.Errorf("undecided figure does not say what it needs")
		}
		if out := os.Getenv("PLOTS_OUT"); out != "" {
			for k, data := range files {
				if err := os.WriteFile(filepath.Join(out, c.decision+"-"+k), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

// A side cut to its limit says how many it draws of how many.
func TestACohortFigureSaysWhenASideIsCut(t *testing.T) {
	s := cohortOf("h200", []float64{94100, 93900, 94200, 93800})
	s.Before.N, s.Before.LeftOut = len(s.Before.Values)+5, 5
	p, err := CohortChart{s}.Render("svg")
	if err != nil {
		t.Fatal(err)
	}
	if want := "reference: other drivers (n=17, first 12 drawn)"; !svgTexts(t, p)[want] {
		t.Fatalf("svg lacks %q", want)
	}
}
