package report

import (
	"bytes"
	"encoding/csv"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/benchkind"
)

// FailuresFile lists the cells that measured nothing trustworthy, beside runs.csv: the measured
// CSVs (runs.csv, queue-scaling.csv, forward.csv) hold measured repeats only, as DAQIRI's do, so
// a failed cell is never read as a row of zeros.
const FailuresFile = "failures.csv"

// FailuresColumns name the cell (index, description and coordinates), its state (Failed: no
// result within its retries; Invalid: measured but untrustworthy), its attempts, the repeats it
// did measure, and why.
var FailuresColumns = []string{
	"cell", "headline", "parameters", "payload", "batch", "pairs", "tx_queues", "rx_queues", "target_mbps",
	"post_process", "state", "attempts", "repeats", "reason",
}

// FailuresCSV has a row per Failed or Invalid cell, in plan order; only the header when every
// cell was Valid.
func FailuresCSV(sb *sbv1.SpiralBench) ([]byte, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	if err := w.Write(FailuresColumns); err != nil {
		return nil, err
	}
	for _, c := range sb.Status.CellResults {
		if c.State == sbv1.CellValid {
			continue
		}
		p := c.Parameters
		row := []string{
			itoa(int64(c.Index)), boolString(c.Headline), benchkind.Parameters(sb.Spec.Transport, p), itoa(int64(p.PayloadBytes)),
			itoa(int64(p.Batch)), itoa(int64(p.Pairs)), itoa(int64(p.Queues.TX)), itoa(int64(p.Queues.RX)),
			itoa(int64(p.TargetRateMbps)), p.Workload.DataplaneName(), string(c.State), itoa(int64(c.Attempts)),
			itoa(int64(len(c.RepeatResults))), c.Message,
		}
		if err := w.Write(row); err != nil {
			return nil, err
		}
	}
	w.Flush()
	return buf.Bytes(), w.Error()
}

func boolString(b bool) string {
	if b {
		return "true"
	}
	return "false"
}
