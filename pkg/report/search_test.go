package report

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

func TestSearchedBenchShowsNDRInTheTableAndTheCSV(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("ndr", "lab").Transport(sbv1.TransportUDP).Obj()
	sb.Spec.Run.Search = &sbv1.RateSearchSpec{LowerMbps: 1}
	pdr := int64(9700)
	sb.Status.CellResults = []sbv1.CellResult{{Index: 0, State: sbv1.CellValid, Repeats: 2, Attempts: 2,
		Parameters: sbv1.CellParameters{PayloadBytes: 8000, Pairs: 1},
		Search:     &sbv1.SearchStatistics{NDRMbps: sbv1.Statistic{Mean: 9400, StdDev: 100}, PDRMbps: &sbv1.Statistic{Mean: 9700}, AtUpper: 1},
		RepeatResults: []sbv1.RepeatResult{{Repeat: 0, State: sbv1.CellValid, MeasuredMilliseconds: 1000,
			Search: &sbv1.SearchResult{NDRMbps: 9400, PDRMbps: &pdr, Verified: true}}}}}
	var table bytes.Buffer
	if err := WriteTable(&table, sb); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"NDR Gb/s", "PDR Gb/s", "9.40 ± 0.10 (1 at upper bound)", "9.70 ± 0.00"} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, table.String())
		}
	}
	out, err := CSV(sb)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(out)).ReadAll()
	if err != nil || len(rows) != 2 {
		t.Fatalf("csv: %v, %d rows", err, len(rows))
	}
	got := map[string]string{}
	for i, c := range rows[0] {
		got[c] = rows[1][i]
	}
	if got["ndr_mbps"] != "9400" || got["pdr_mbps"] != "9700" {
		t.Errorf("ndr_mbps %q pdr_mbps %q", got["ndr_mbps"], got["pdr_mbps"])
	}
	sb.Spec.Run.Search = nil
	table.Reset()
	_ = WriteTable(&table, sb)
	if strings.Contains(table.String(), "NDR") {
		t.Errorf("a bench without a search keeps its columns:\n%s", table.String())
	}
}
