package acceptance

import (
	"fmt"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/figure"
	"github.com/spiralbench/spiralbench/pkg/summary"
)

// Count derives status's counters from the cell results, the same way live and for a run read
// back from the bucket: cells by outcome, progress ("finished/total"), the summary kubectl get
// shows ("11/20 ok, 9 failed"), the best mean RX throughput of a Valid cell, and from the
// repeats the noisy cells and the worst wire verdict (summarised in the bench rather than
// repeated in each cell's lines).
func Count(st *sbv1.SpiralBenchStatus) {
	c := &st.Cells
	c.Succeeded, c.Failed, c.Invalid = 0, 0, 0
	st.BestRxMbps = 0
	noisy, wire, unattached := int32(0), sbv1.WireVerdict(""), false
	for _, res := range st.CellResults {
		if res.Repeats > 0 && len(res.RepeatResults) == 0 {
			unattached = true // its flags are unknown here, not cleared
		}
		if res.Noisy {
			noisy++
		}
		wire = summary.WorseWire(wire, res.Wire)
		switch res.State {
		case sbv1.CellValid:
			c.Succeeded++
			if rx, ok := figure.Rx.Mean(&res); ok && rx > st.BestRxMbps {
				st.BestRxMbps = rx
			}
		case sbv1.CellFailed:
			c.Failed++
		case sbv1.CellInvalid:
			c.Invalid++
		}
	}
	if unattached {
		// A cell read without its attempt results (deleted by hand) keeps what was counted
		// when it finished: deleting records never clears a flag.
		noisy, wire = max(noisy, c.Noisy), summary.WorseWire(wire, st.Wire)
	}
	c.Noisy, st.Wire = noisy, wire
	st.Progress = fmt.Sprintf("%d/%d", c.Succeeded+c.Failed+c.Invalid, c.Total)
	st.CellsSummary = CellsSummary(*c)
}

// CellsSummary is "ok/total ok", then the invalid, failed and noisy cells when there are any.
func CellsSummary(c sbv1.CellCounts) string {
	s := fmt.Sprintf("%d/%d ok", c.Succeeded, c.Total)
	if c.Invalid > 0 {
		s += fmt.Sprintf(", %d invalid", c.Invalid)
	}
	if c.Failed > 0 {
		s += fmt.Sprintf(", %d failed", c.Failed)
	}
	if c.Noisy > 0 {
		s += fmt.Sprintf(", %d noisy", c.Noisy)
	}
	return s
}
