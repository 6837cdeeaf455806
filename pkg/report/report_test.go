package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

func finishedBench() *sbv1.SpiralBench {
	sb := sbtesting.MakeSpiralBench("tcp", "lab").Transport(sbv1.TransportTCP).Obj()
	sb.UID = "0123456789abcdef"
	start := metav1.NewTime(time.Date(2026, 11, 22, 1, 2, 3, 0, time.UTC))
	sb.Status.StartTime = &start
	sb.Spec.Results = &sbv1.ResultsSpec{Prefix: "/spark-lab/"}
	p := sbv1.CellParameters{PayloadBytes: 8000, Batch: 1, Pairs: 4, Queues: sbv1.QueueCell{TX: 1, RX: 1}, Workload: sbv1.WorkloadNone}
	sb.Status.CellResults = []sbv1.CellResult{
		{Index: 0, Headline: true, Parameters: p, State: sbv1.CellValid, RepeatResults: []sbv1.RepeatResult{
			{Repeat: 0, State: sbv1.CellValid, MeasuredMilliseconds: 30000, TXMbps: 97200, RXMbps: 97100, RXPackets: 45515625,
				RXBytes: 364125000000, TXPackets: 45562500, TXBytes: 364500000000, PacketsPerSecond: 1517187, Drops: 3,
				DropsKind: "tcp-nstat-retrans+inerrs", SocketRetrans: 2,
				CPU: &sbv1.CPUBusy{MasterMilliPercent: 3700, TXMilliPercent: 92000, RXMilliPercent: 91500}},
			{Repeat: 1, Attempt: 2, State: sbv1.CellValid, TXMbps: 95000, RXMbps: 95000},
		}},
		{Index: 1, Parameters: p, State: sbv1.CellFailed, Attempts: 2, Message: "failed after 2 attempt(s): client exited with code 1"},
	}
	return sb
}

func TestObjectsLandUnderPrefixNamespaceNameRun(t *testing.T) {
	if got := Prefix(finishedBench(), "/spark-lab/"); got != "spark-lab/lab/tcp/20261122T010203Z-01234567/" {
		t.Errorf("Prefix = %q", got)
	}
}

func TestCSVHasDAQIRIColumnsAndARowPerRepeat(t *testing.T) {
	data, err := CSV(finishedBench())
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rows[0][:23], ",") != "lang,backend,post_process,payload,batch,pairs,target_gbps,rep,seconds,packets,bytes,pps,gbps,rx_gbps,drops,drops_kind,cpu_master_pct,cpu_tx_pct,cpu_rx_pct,gpu_sm_pct,gpu_mem_pct,post_process_gemm_dim,post_process_sync" {
		t.Errorf("header %v", rows[0])
	}
	if len(rows) != 3 {
		t.Fatalf("want header + 2 repeats, and no row for the failed cell, got %d rows", len(rows))
	}
	col := map[string]int{}
	for i, c := range rows[0] {
		col[c] = i
	}
	r := rows[1]
	// DAQIRI's socket-tcp: sender totals in packets/bytes/gbps, rep from 1, integer target, 0
	// for the GPU it did not measure (named in unknown), GEMM dimension and "default" sync.
	for name, want := range map[string]string{"lang": "cpp", "backend": "socket-tcp", "post_process": "none", "payload": "8000", "pairs": "4",
		"target_gbps": "0", "rep": "1", "seconds": "30.000", "packets": "45562500", "bytes": "364500000000", "pps": "1518750",
		"gbps": "97.200", "rx_gbps": "97.100", "drops": "3", "drops_kind": "tcp-nstat-retrans+inerrs",
		"cpu_tx_pct": "92.0", "cpu_master_pct": "3.7", "gpu_sm_pct": "0", "post_process_gemm_dim": "1024", "post_process_sync": "default",
		"headline": "true", "state": "Valid", "rx_packets": "45515625", "seq_gaps": "", "socket_retrans": "2", "unknown": "gpu_sm_pct;gpu_mem_pct"} {
		if got := r[col[name]]; got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	for _, r := range rows[1:] {
		if r[col["cell"]] != "0" || r[col["state"]] != "Valid" {
			t.Errorf("only measured repeats are rows: %v", r)
		}
	}
}

// A failed cell is no measured row; failures.csv names it with its state and reason, and a
// cell that failed after measuring repeats keeps their rows.
func TestFailedCellsGoToFailuresNotToTheMeasuredCSVs(t *testing.T) {
	sb := finishedBench()
	sb.Status.CellResults = append(sb.Status.CellResults, sbv1.CellResult{Index: 2, Parameters: sb.Status.CellResults[0].Parameters,
		State: sbv1.CellFailed, Attempts: 3, Message: "failed after 3 attempt(s): server: OOMKilled",
		RepeatResults: []sbv1.RepeatResult{{Repeat: 0, State: sbv1.CellValid, MeasuredMilliseconds: 1000, RXBytes: 1}}})
	files := mustFiles(t, sb)
	rows, err := csv.NewReader(bytes.NewReader(files["runs.csv"])).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var cellsInRuns []string
	for _, r := range rows[1:] {
		cellsInRuns = append(cellsInRuns, r[23])
	}
	if strings.Join(cellsInRuns, ",") != "0,0,2" {
		t.Errorf("runs.csv rows are cells %v, want the two repeats of cell 0 and the one cell 2 measured", cellsInRuns)
	}
	failures, err := csv.NewReader(bytes.NewReader(files[FailuresFile])).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{FailuresColumns,
		{"1", "false", "8000 B x 4 pairs", "8000", "1", "4", "1", "1", "0", "none", "Failed", "2", "0", "failed after 2 attempt(s): client exited with code 1"},
		{"2", "false", "8000 B x 4 pairs", "8000", "1", "4", "1", "1", "0", "none", "Failed", "3", "1", "failed after 3 attempt(s): server: OOMKilled"}}
	if len(failures) != len(want) {
		t.Fatalf("failures.csv:\n%s", files[FailuresFile])
	}
	for i := range want {
		if strings.Join(failures[i], ",") != strings.Join(want[i], ",") {
			t.Errorf("failures.csv row %d:\n got %v\nwant %v", i, failures[i], want[i])
		}
	}
	sb.Status.CellResults = sb.Status.CellResults[:1]
	if f := mustFiles(t, sb)[FailuresFile]; strings.TrimSpace(string(f)) != strings.Join(FailuresColumns, ",") {
		t.Errorf("every cell Valid: failures.csv is its header alone, got %q", f)
	}
}

func TestJSONLinesOneRecordPerRepeatAndFailedCell(t *testing.T) {
	data, err := JSONLines(finishedBench())
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 3 {
		t.Fatalf("want 3 records, got %d", len(lines))
	}
	var rec struct {
		Cell      int32              `json:"cell"`
		CellState string             `json:"cellState"`
		Message   string             `json:"message"`
		Result    *sbv1.RepeatResult `json:"result"`
	}
	if err := json.Unmarshal([]byte(lines[1]), &rec); err != nil || rec.Result.Attempt != 2 || rec.Result.RXMbps != 95000 {
		t.Errorf("record 1: %+v %v", rec, err)
	}
	rec.Result = nil
	if err := json.Unmarshal([]byte(lines[2]), &rec); err != nil || rec.CellState != "Failed" || rec.Result != nil || !strings.Contains(rec.Message, "code 1") {
		t.Errorf("failed cell record: %+v %v", rec, err)
	}
	files, err := Files(finishedBench())
	if err != nil || len(files) != 6 || files["spec.json"] == nil || files["environment.json"] == nil || files[FailuresFile] == nil || files[VerdictFile] == nil {
		t.Errorf("files %v %v", len(files), err)
	}
}

func TestTableShowsMeanStdLossAndFailures(t *testing.T) {
	sb := finishedBench()
	sb.Status.CellResults[0].RXMbps = &sbv1.Statistic{Mean: 97200, StdDev: 2800}
	sb.Status.CellResults[0].Repeats, sb.Status.CellResults[0].Attempts = 2, 3
	sb.Status.CellResults[0].LossPPM = 510000
	var buf bytes.Buffer
	if err := WriteTable(&buf, sb); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"0*", "8000 B x 4 pairs", "97.20 ± 2.80", "51.00", "2/3", "Failed", "cell 1: failed after 2 attempt(s)"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

// The wire proof reaches the CSV (data plane words) and the table (WIRE column, the note).
func TestWireProofInCSVAndTable(t *testing.T) {
	sb := finishedBench()
	sb.Spec.Topology.Links = 2
	c := &sb.Status.CellResults[0]
	c.Wire = sbv1.WireUnverified
	c.RepeatResults[0].Wire = &sbv1.WireProof{Verdict: sbv1.WireUnverified, Note: "wire unverified: sbw2-a0: no PHY counters",
		Links: []sbv1.LinkResult{{Link: 0, TXInterface: "sbw2-a0"}, {Link: 1, TXInterface: "sbw2-a1"}}}
	data, err := CSV(sb)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := func(name string) string {
		for i, c := range rows[0] {
			if c == name {
				return rows[1][i]
			}
		}
		t.Fatalf("no column %s", name)
		return ""
	}
	if col("wire") != "unverified" || col("links") != "2" || col("tx_bytes_phy") != "0" {
		t.Errorf("wire %q links %q phy %q", col("wire"), col("links"), col("tx_bytes_phy"))
	}
	var out strings.Builder
	if err := WriteTable(&out, sb); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "WIRE") || !strings.Contains(out.String(), "unverified") ||
		!strings.Contains(out.String(), "cell 0: wire unverified: sbw2-a0: no PHY counters") {
		t.Errorf("table:\n%s", out.String())
	}
}
