package htmlreport

import (
	"strings"
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/aggregate"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// The cells table shows each cell's spread: 5 %, 10 % (at the threshold, not flagged), the
// noisy 1.60 ± 1.30 Gb/s cell at 81.25 % in red, and a dash for a single repeat; a warning
// under the table names the noisy cell.
func TestCellsTableShowsTheSpreadAndFlagsTheNoisyCell(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("spread", "lab").Transport(sbv1.TransportTCP).Obj()
	sb.Spec.Run.NoisySpreadPercent = 10
	for i, rx := range [][]int64{{9500, 10000, 10500}, {900, 1000, 1100}, {3100, 800, 900}, {5000}} {
		c := sbv1.CellResult{Index: int32(i), Parameters: sbv1.CellParameters{PayloadBytes: 8000, Pairs: int32(i + 1)}, Attempts: 1}
		for r, v := range rx {
			c.RepeatResults = append(c.RepeatResults, sbv1.RepeatResult{Repeat: int32(r), State: sbv1.CellValid, RXMbps: v, TXMbps: v})
		}
		aggregate.Fill(&c)
		aggregate.FlagNoisy(&c, sb.Spec.Run.NoisySpreadPercent)
		sb.Status.CellResults = append(sb.Status.CellResults, c)
	}
	page, err := Render(sb)
	if err != nil {
		t.Fatal(err)
	}
	text := string(page)
	title := ` title="coefficient of variation of RxMbps over the Valid repeats">`
	for _, want := range []string{"<th>spread %</th>",
		`<td>3 / 1</td><td class="spread"` + title + `5.0</td>`,
		`<td>3 / 1</td><td class="spread"` + title + `10.0</td>`,
		`<td>3 / 1</td><td class="spread noisy"` + title + `81.2 noisy</td>`,
		`<td>1 / 1</td><td class="spread">–</td>`,
		`<p class="warning" id="noisy-note">Cell 2 is noisy: the headline figure spread more than spec.run.noisySpreadPercent (10 %) over the repeats`,
		"a rule on RxMbpsCVMilliPercent bounds the spread"} {
		if !strings.Contains(text, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Count(text, `class="spread noisy"`) != 1 {
		t.Errorf("only cell 2 is noisy; the page flags %d", strings.Count(text, `class="spread noisy"`))
	}

	for i := range sb.Status.CellResults {
		sb.Status.CellResults[i].Spread = nil // a bench without spreads (one repeat each)
	}
	page, _ = Render(sb)
	if strings.Contains(string(page), "noisy-note") || strings.Contains(string(page), `class="spread noisy"`) {
		t.Error("a page without noisy cells warns of one")
	}
}
