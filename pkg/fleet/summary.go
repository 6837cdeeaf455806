package fleet

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strconv"
	"strings"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// Summary is the fleet summary of one round, uploaded as summary.json beside summary.csv.
type Summary struct {
	V          int              `json:"v"`
	Namespace  string           `json:"namespace"`
	Fleet      string           `json:"fleet"`
	Round      int32            `json:"round"`
	RoundStart string           `json:"roundStart,omitempty"`
	RoundEnd   string           `json:"roundEnd,omitempty"`
	Metric     string           `json:"metric"`
	Median     *int64           `json:"median,omitempty"`
	Counts     sbv1.FleetCounts `json:"counts"`
	Nodes      []sbv1.FleetNode `json:"nodes"`
	// Cohorts are the round's canary cohorts (spec.upgradeGate.canaries), each with the two
	// distributions it compared; their figures are uploaded beside the summary (CohortPlotName).
	Cohorts []CohortSummary `json:"cohorts,omitempty"`
	// Steps count how each suite step ended over the round's nodes (SummaryFiles fills them
	// from the nodes' step records).
	Steps []StepCount `json:"steps,omitempty"`
}

var csvHeader = []string{"node", "verdict", "reason", "partner", "bench", "run_id", "value",
	"baseline_delta_mpct", "fleet_delta_mpct", "straggler", "regressed", "last_bench_time", "upgrade",
	"class", "reasons", "valid_until", "step", "steps"}

// SummaryFiles renders the round's summary as CSV (one row per node) and JSON.
func SummaryFiles(s Summary) (map[string][]byte, error) {
	s.V = 1
	s.Steps = StepCounts(s.Nodes)
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	_ = w.Write(csvHeader)
	opt64 := func(p *int64) string {
		if p == nil {
			return ""
		}
		return strconv.FormatInt(*p, 10)
	}
	opt32 := func(p *int32) string {
		if p == nil {
			return ""
		}
		return strconv.Itoa(int(*p))
	}
	for _, n := range s.Nodes {
		last, validUntil := "", ""
		if n.LastBenchTime != nil {
			last = TimeString(n.LastBenchTime.Time)
		}
		if n.ValidUntil != nil {
			validUntil = TimeString(n.ValidUntil.Time)
		}
		_ = w.Write([]string{n.Name, string(n.Verdict), n.Reason, n.Partner, n.Bench, n.RunID, opt64(n.Value),
			opt32(n.BaselineDeltaMilliPercent), opt32(n.FleetDeltaMilliPercent), strconv.FormatBool(n.Straggler),
			strconv.FormatBool(n.Regressed), last, string(n.Upgrade), n.Class, strings.Join(n.Reasons, " "), validUntil, n.Step, n.StepsSummary})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return nil, err
	}
	js, err := json.MarshalIndent(s, "", " ")
	if err != nil {
		return nil, err
	}
	return map[string][]byte{"summary.csv": buf.Bytes(), "summary.json": js}, nil
}
