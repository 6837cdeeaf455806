package acceptance

import (
	"fmt"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/figure"
)

// Count derives status's counters from the cell results, the same way live and for a run read
// back from the bucket: cells by outcome, progress ("finished/total"), the summary kubectl get
// shows ("11/20 ok, 9 failed") and the best mean RX throughput of a Valid cell.
func Count(st *sbv1.SpiralBenchStatus) {
	c := &st.Cells
	c.Succeeded, c.Failed, c.Invalid = 0, 0, 0
	st.BestRxMbps = 0
	for _, res := range st.CellResults {
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
	st.Progress = fmt.Sprintf("%d/%d", c.Succeeded+c.Failed+c.Invalid, c.Total)
	st.CellsSummary = CellsSummary(*c)
}

// CellsSummary is "ok/total ok", then the invalid and failed cells when there are any.
func CellsSummary(c sbv1.CellCounts) string {
	s := fmt.Sprintf("%d/%d ok", c.Succeeded, c.Total)
	if c.Invalid > 0 {
		s += fmt.Sprintf(", %d invalid", c.Invalid)
	}
	if c.Failed > 0 {
		s += fmt.Sprintf(", %d failed", c.Failed)
	}
	return s
}
