package main

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spiralbench/spiralbench/pkg/testing/fixture"
)

// get --layout daqiri writes the folder DAQIRI's multi-queue workflow writes, under DAQIRI's
// bench-results/ by default, so its plot script's documented command line reads it as is.
func TestGetLayoutDAQIRIWritesDAQIRIsFolder(t *testing.T) {
	requireEnv(t)
	ns := namespace(t)
	create(t, ns, fixture.RawQueueCounted("mq"))
	t.Chdir(t.TempDir())
	out, err := sbctl(t, ns, "get", "mq", "--layout", "daqiri")
	const csvPath = "bench-results/20261124T030000Z-dpdk-mq/runs.csv"
	if err != nil || !strings.Contains(out, "wrote 2 files into bench-results:\n  20261124T030000Z-dpdk-mq/SPIRALBENCH.txt\n  20261124T030000Z-dpdk-mq/runs.csv\n") {
		t.Fatalf("get --layout daqiri: %v\n%s", err, out)
	}
	data, err := os.ReadFile(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil || len(rows) != 21 {
		t.Fatalf("%s: %v, %d lines; want a header and 4 cells x 5 payloads", csvPath, err, len(rows))
	}
	if got := strings.Join(rows[0][:8], ","); got != "cell,tx_cores,rx_cores,payload,rep,gbps,pps,drops" {
		t.Errorf("header %q is not DAQIRI's multi-queue shape", got)
	}
	// 1t1r at 64 B: DAQIRI's packet rate reads as DAQIRI's 20.4 Gb/s (payload + 64 B per packet)
	if got := strings.Join(rows[1][:7], ","); got != "1t1r,1,1,64,1,20.400,19921875" {
		t.Errorf("first row %q, want 1t1r,1,1,64,1,20.400,19921875", got)
	}

	// a run DAQIRI has no workflow for is refused, naming where its figures are
	create(t, ns, fixture.RoCELatency("lat"))
	dir := filepath.Join(t.TempDir(), "out")
	if out, err := sbctl(t, ns, "get", "lat", "--layout", "daqiri", "-o", dir); err == nil || !strings.Contains(err.Error(), "no latency columns") {
		t.Errorf("a latency bench: %v\n%s", err, out)
	}
}

// An unknown layout is refused before anything is read.
func TestGetLayoutMustBeKnown(t *testing.T) {
	_, err := runSbctl("get", "mq", "--layout", "csv", "-o", t.TempDir())
	if err == nil || !strings.Contains(err.Error(), `--layout "csv": want spiralbench or daqiri`) {
		t.Errorf("--layout csv: %v", err)
	}
}
