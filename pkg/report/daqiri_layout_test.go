package report_test

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/benchkind"
	"github.com/spiralbench/spiralbench/pkg/report"
	"github.com/spiralbench/spiralbench/pkg/runstore"
	"github.com/spiralbench/spiralbench/pkg/testing/fixture"
)

// daqiri64BPPS is the packet rate behind DAQIRI's published 64 B single-queue figure.
const daqiri64BPPS = fixture.DAQIRI64BPacketRate

// recordedQueueRun is fixture.RawQueueCounted as the bucket records it: report.Files read back
// by runstore.FromFiles, the path `sbctl get s3://... --layout daqiri` takes.
func recordedQueueRun(t *testing.T) *sbv1.SpiralBench {
	t.Helper()
	files, err := report.Files(fixture.RawQueueCounted("mq"))
	if err != nil {
		t.Fatal(err)
	}
	back, err := runstore.FromFiles(files)
	if err != nil {
		t.Fatal(err)
	}
	return back
}

// byName reads a CSV into rows keyed by column name, as csv.DictReader does.
func byName(t *testing.T, data []byte) (header []string, rows []map[string]string) {
	t.Helper()
	all, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil || len(all) < 2 {
		t.Fatalf("csv: %v, %d lines:\n%s", err, len(all), data)
	}
	for _, r := range all[1:] {
		m := map[string]string{}
		for i, name := range all[0] {
			m[name] = r[i]
		}
		rows = append(rows, m)
	}
	return all[0], rows
}

func TestDAQIRILayoutOfAQueueRunIsDAQIRIsMultiQueueFolder(t *testing.T) {
	sb := recordedQueueRun(t)
	files, err := report.DAQIRILayout(sb)
	if err != nil {
		t.Fatal(err)
	}
	// run_spark_mq_bench.sh's folder: $(date -u +%Y%m%dT%H%M%SZ)-dpdk-mq/runs.csv
	const dir = "20261124T030000Z-dpdk-mq/"
	if len(files) != 2 || files[dir+"runs.csv"] == nil || files[dir+report.DAQIRIProvenanceFile] == nil {
		t.Fatalf("files %v, want %sruns.csv and its provenance note", keys(files), dir)
	}
	header, rows := byName(t, files[dir+"runs.csv"])
	if got := strings.Join(header[:8], ","); got != "cell,tx_cores,rx_cores,payload,rep,gbps,pps,drops" {
		t.Errorf("header %q: DAQIRI's first eight columns are cell,tx_cores,rx_cores,payload,rep,gbps,pps,drops", got)
	}
	_, ours := byName(t, mustFiles(t, sb)[benchkind.QueueScalingFile])
	if len(rows) != 20 || len(ours) != 20 {
		t.Fatalf("%d rows in the DAQIRI layout, %d in queue-scaling.csv: want 4 cells x 5 payloads", len(rows), len(ours))
	}
	// The same packet rate, two accountings: at 64 B on one RX queue DAQIRI's published 20.4
	// Gb/s, and ours 19,921,875 x 106 x 8 / 1e9 = 16.894 Gb/s.
	for i, want := range map[string][2]string{"1t1r": {"20.400", "16.894"}, "2t1r": {"20.400", "16.894"}, "1t2r": {"40.800", "33.788"}} {
		r := find(t, rows, i, "64")
		o := find(t, ours, i, "64")
		if r["gbps"] != want[0] || o["gbps"] != want[1] || r["pps"] != o["pps"] {
			t.Errorf("%s at 64 B: DAQIRI layout %s Gb/s, queue-scaling.csv %s Gb/s (pps %s, %s); want %s and %s at one packet rate",
				i, r["gbps"], o["gbps"], r["pps"], o["pps"], want[0], want[1])
		}
	}
	// 8000 B: 1,549,714 packets/s x 8064 B x 8 = 99.975 Gb/s, ours x 8042 B = 99.702 Gb/s.
	if r, o := find(t, rows, "2t2r", "8000"), find(t, ours, "2t2r", "8000"); r["gbps"] != "99.975" || o["gbps"] != "99.702" {
		t.Errorf("2t2r at 8000 B: %s and %s Gb/s, want 99.975 and 99.702", r["gbps"], o["gbps"])
	}
	// An RX share nothing measured is nan in both files, a measured one its figure.
	for name, file := range map[string][]map[string]string{"DAQIRI layout": rows, "queue-scaling.csv": ours} {
		if r := find(t, file, "1t2r", "256"); r["cpu_rx_pct"] != "nan" || r["cpu_tx_pct"] != "92.0" {
			t.Errorf("%s 1t2r: cpu_rx_pct %q, cpu_tx_pct %q; want nan (unknown) and 92.0", name, r["cpu_rx_pct"], r["cpu_tx_pct"])
		}
		if r := find(t, file, "2t1r", "256"); r["cpu_rx_pct"] != "91.0" {
			t.Errorf("%s 2t1r: cpu_rx_pct %q, want the measured 91.0", name, r["cpu_rx_pct"])
		}
	}
	if note := string(files[dir+report.DAQIRIProvenanceFile]); !strings.Contains(note, "bench bench/mq, run 20261124T030000Z-") ||
		!strings.Contains(note, "packets x (payload + 64) x 8 / seconds / 1e9") {
		t.Errorf("provenance note:\n%s", note)
	}
}

func find(t *testing.T, rows []map[string]string, cell, payload string) map[string]string {
	t.Helper()
	for _, r := range rows {
		if r["cell"] == cell && r["payload"] == payload {
			return r
		}
	}
	t.Fatalf("no row for %s at %s B", cell, payload)
	return nil
}

func keys(m map[string][]byte) (out []string) {
	for k := range m {
		out = append(out, k)
	}
	return out
}

func mustFiles(t *testing.T, sb *sbv1.SpiralBench) map[string][]byte {
	t.Helper()
	f, err := report.Files(sb)
	if err != nil {
		t.Fatal(err)
	}
	return f
}
