package report

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

const dataplane = "../../dataplane"

// defColumns reads dataplane/src/output/runs_csv_columns.def: names and whether each is DAQIRI's.
func defColumns(t *testing.T) (names []string, daqiri []bool) {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(dataplane, "src/output/runs_csv_columns.def"))
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`(?m)^SPIRAL_CSV_COLUMN\((\w+), ([01]), "`)
	for _, m := range re.FindAllStringSubmatch(string(text), -1) {
		names = append(names, m[1])
		daqiri = append(daqiri, m[2] == "1")
	}
	return names, daqiri
}

// One column definition for both writers: the data plane's X-macro file is the source.
func TestCSVColumnsAreTheDataPlanesDefinition(t *testing.T) {
	names, daqiri := defColumns(t)
	if strings.Join(names, ",") != strings.Join(CSVColumns, ",") {
		t.Fatalf("CSVColumns differ from runs_csv_columns.def:\n got %v\nwant %v", CSVColumns, names)
	}
	for i, d := range daqiri {
		if d != (i < DAQIRIColumns) {
			t.Errorf("column %s: DAQIRI's = %v, but DAQIRIColumns = %d", names[i], d, DAQIRIColumns)
		}
	}
}

// goldenBench is the operator's side of the golden run (dataplane/tests/unit/runs_csv_test.cpp):
// 2 s, 3,000,000 x 8000 B sent, 2,999,000 received, RX core and GPU unknown.
func goldenBench(backend string) *sbv1.SpiralBench {
	p := sbv1.CellParameters{PayloadBytes: 8000, Batch: 1, Pairs: 4, Queues: sbv1.QueueCell{TX: 1, RX: 1}, Workload: sbv1.WorkloadNone}
	r := sbv1.RepeatResult{State: sbv1.CellValid, MeasuredMilliseconds: 2000, TXPackets: 3_000_000, TXBytes: 24_000_000_000,
		RXPackets: 2_999_000, RXBytes: 23_992_000_000, LossPPM: 333,
		CPU: &sbv1.CPUBusy{MasterMilliPercent: 3700, TXMilliPercent: 92500, RXMilliPercent: -1}}
	w := sbtesting.MakeSpiralBench("golden", "ns")
	switch backend {
	case "socket-udp":
		w.Transport(sbv1.TransportUDP).Workload(sbv1.WorkloadFFT)
		w.Spec.Workload.SyncInterval, w.Spec.Workload.GEMMN = 2, 1024
		p.Batch, p.TargetRateMbps, p.Workload = 64, 10000, sbv1.WorkloadFFT
		r.Drops, r.DropsKind, r.SequenceGaps = 7, "udp-proc-net-udp-drops", 1000
	case "socket-tcp":
		w.Transport(sbv1.TransportTCP)
		r.RXPackets, r.RXBytes, r.LossPPM = r.TXPackets, r.TXBytes, 0
		r.Drops, r.DropsKind, r.SocketRetrans = 5, "tcp-nstat-retrans+inerrs", 3
	case "rdma":
		w.Transport(sbv1.TransportRoCE)
		p.PayloadBytes, p.Pairs = 8_000_000, 1
		r.TXPackets, r.RXPackets, r.RXBytes, r.LossPPM = 3000, 3000, r.TXBytes, 0
		r.DropsKind = "rdma-cqe-error"
	case "dpdk":
		w.Transport(sbv1.TransportRawEthernet)
		p.Batch, p.Pairs = 10240, 1
		r.Drops, r.DropsKind, r.SequenceGaps = 600, "dpdk-imissed+ierrors+nombuf", 1000
	}
	sb := w.Obj()
	sb.Status.CellResults = []sbv1.CellResult{{Index: 0, Headline: true, Parameters: p, State: sbv1.CellValid, RepeatResults: []sbv1.RepeatResult{r}}}
	return sb
}

// The operator's rows equal the data plane's golden rows column by column: one CSV, two writers.
func TestGoldenCSVPerBackendColumnByColumn(t *testing.T) {
	for _, backend := range []string{"dpdk", "rdma", "socket-udp", "socket-tcp"} {
		golden, err := os.ReadFile(filepath.Join(dataplane, "tests/data/runs_csv", backend+".csv"))
		if err != nil {
			t.Fatal(err)
		}
		want, err := csv.NewReader(bytes.NewReader(golden)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		data, err := CSV(goldenBench(backend))
		if err != nil {
			t.Fatal(err)
		}
		got, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || len(want) != 2 {
			t.Fatalf("%s: want a header and one row, got %d and golden %d rows", backend, len(got), len(want))
		}
		if strings.Join(got[0], ",") != strings.Join(want[0], ",") {
			t.Fatalf("%s: header %v, golden %v", backend, got[0], want[0])
		}
		for i, name := range want[0] {
			if got[1][i] != want[1][i] {
				t.Errorf("%s column %s = %q, golden %q", backend, name, got[1][i], want[1][i])
			}
		}
	}
}

// docs/api.md lists every column with its meaning and source.
func TestDocsListEveryColumn(t *testing.T) {
	doc, err := os.ReadFile("../../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range CSVColumns {
		if !strings.Contains(string(doc), "\n| `"+c+"` |") {
			t.Errorf("docs/api.md has no row for column %s", c)
		}
	}
}

// target_gbps is each pair's target (DAQIRI's meaning) whatever the bench's scope.
func TestTargetGbpsIsPerPairWhateverTheScope(t *testing.T) {
	sb := goldenBench("socket-udp") // 4 pairs at 10 Gb/s each
	sb.Spec.Matrix.TargetRateScope = sbv1.TargetRateTotal
	sb.Status.CellResults[0].Parameters.TargetRateMbps = 40000
	data, err := CSV(sb)
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if got := rows[1][6]; rows[0][6] != "target_gbps" || got != "10" {
		t.Errorf("Total 40 Gb/s over 4 pairs: target_gbps %q, want 10", got)
	}
}

func TestTargetGbpsIsDAQIRIsInteger(t *testing.T) {
	for mbps, want := range map[float64]string{0: "0", 10000: "10", 100000: "100", 2500: "2.5", 10000.0 / 3: "3.333"} {
		if got := TargetGbps(mbps); got != want {
			t.Errorf("TargetGbps(%g) = %q, want %q", mbps, got, want)
		}
	}
}
