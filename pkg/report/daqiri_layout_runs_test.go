package report_test

import (
	"strings"
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/report"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
	"github.com/spiralbench/spiralbench/pkg/testing/fixture"
)

// daqiriHeader is the header examples/run_spark_bench.sh writes into each runs.csv.
const daqiriHeader = "lang,backend,post_process,payload,batch,pairs,target_gbps,rep,seconds,packets,bytes,pps,gbps,rx_gbps," +
	"drops,drops_kind,cpu_master_pct,cpu_tx_pct,cpu_rx_pct,gpu_sm_pct,gpu_mem_pct,post_process_gemm_dim,post_process_sync"

// A raw sweep in DAQIRI's layout: its folder and header, the raw figures in DAQIRI's
// accounting, and nan where our runs.csv writes 0 and names the column unknown.
func TestDAQIRILayoutOfARawSweep(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("raw", "bench").Transport(sbv1.TransportRawEthernet).Preset(sbv1.PresetSweep).Obj()
	sb, err := fixture.Finish(sb, func(p sbv1.CellParameters, _ int32) sbv1.RepeatResult {
		pkts := int64(daqiri64BPPS) * 2 // 2 s at DAQIRI's 64 B packet rate, whatever the payload
		return sbv1.RepeatResult{State: sbv1.CellValid, MeasuredMilliseconds: 2000, TXPackets: pkts, RXPackets: pkts,
			TXBytes: pkts * int64(p.PayloadBytes+42), RXBytes: pkts * int64(p.PayloadBytes+42),
			CPU: &sbv1.CPUBusy{MasterMilliPercent: 3700, TXMilliPercent: 92000, RXMilliPercent: 92000}} // no GPU figures
	})
	if err != nil {
		t.Fatal(err)
	}
	files, err := report.DAQIRILayout(sb)
	if err != nil {
		t.Fatal(err)
	}
	data := files["20261124T030000Z-dpdk-sweep/runs.csv"]
	if data == nil {
		t.Fatalf("files %v, want DAQIRI's 20261124T030000Z-dpdk-sweep/runs.csv", keys(files))
	}
	if header := strings.SplitN(string(data), "\n", 2)[0]; header != daqiriHeader {
		t.Errorf("header\n %s\nwant DAQIRI's\n %s", header, daqiriHeader)
	}
	_, rows := byName(t, data)
	_, ours := byName(t, mustFiles(t, sb)["runs.csv"])
	if len(rows) != 20 || len(rows) != len(ours) {
		t.Fatalf("%d rows, runs.csv %d: want a row per repeat of DAQIRI's 5 payloads x 4 batches", len(rows), len(ours))
	}
	for i, r := range rows {
		o := ours[i]
		if r["payload"] != "64" {
			continue
		}
		// 39,843,750 packets x 128 B = 5,100,000,000 B: 20.400 Gb/s; ours x 106 B: 16.894 Gb/s.
		if r["bytes"] != "5100000000" || r["gbps"] != "20.400" || r["rx_gbps"] != "20.400" || o["gbps"] != "16.894" || r["pps"] != o["pps"] {
			t.Errorf("64 B batch %s: bytes %s gbps %s rx_gbps %s (runs.csv %s, pps %s vs %s); want 5100000000, 20.400, 20.400 (16.894)",
				r["batch"], r["bytes"], r["gbps"], r["rx_gbps"], o["gbps"], r["pps"], o["pps"])
		}
		if r["gpu_sm_pct"] != "nan" || r["gpu_mem_pct"] != "nan" || o["gpu_sm_pct"] != "0" || r["cpu_tx_pct"] != "92.0" {
			t.Errorf("gpu_sm_pct %q gpu_mem_pct %q (runs.csv %q), cpu_tx_pct %q: want nan, nan (0 and named unknown), 92.0",
				r["gpu_sm_pct"], r["gpu_mem_pct"], o["gpu_sm_pct"], r["cpu_tx_pct"])
		}
	}
}

// Sockets and RoCE count bytes as DAQIRI does: their figures are runs.csv's, the folder named
// after the backend and the matrix's shape.
func TestDAQIRILayoutOfSocketsKeepsTheirFigures(t *testing.T) {
	sb := fixture.TCPSweep("tcp", 1, true)
	files, err := report.DAQIRILayout(sb)
	if err != nil {
		t.Fatal(err)
	}
	data := files["20261124T030000Z-socket-tcp-sweep/runs.csv"]
	if data == nil {
		t.Fatalf("files %v, want 20261124T030000Z-socket-tcp-sweep/runs.csv", keys(files))
	}
	_, rows := byName(t, data)
	_, ours := byName(t, mustFiles(t, sb)["runs.csv"])
	if len(rows) == 0 || len(rows) != len(ours) {
		t.Fatalf("%d rows, runs.csv %d", len(rows), len(ours))
	}
	for i, r := range rows {
		for _, c := range []string{"payload", "pairs", "bytes", "gbps", "rx_gbps", "drops"} {
			if r[c] != ours[i][c] {
				t.Errorf("row %d %s = %q, runs.csv %q", i, c, r[c], ours[i][c])
			}
		}
	}
	udp := fixture.UDPDropCurve("udp")
	if files, err := report.DAQIRILayout(udp); err != nil || files["20261124T030000Z-socket-udp-drop-curve/runs.csv"] == nil {
		t.Errorf("a UDP drop curve: %v, %v", keys(files), err)
	}
}

// What DAQIRI's workflows never write is refused, naming where the figures are.
func TestDAQIRILayoutRefusesWhatDAQIRIHasNoWorkflowFor(t *testing.T) {
	nccl := fixture.TCPSweep("nccl", 1, false)
	nccl.Spec.Transport = sbv1.TransportNCCL
	fwd := fixture.TCPSweep("fwd", 1, false)
	fwd.Spec.Transport, fwd.Spec.RawEthernet = sbv1.TransportRawEthernet, &sbv1.RawEthernetSpec{Forward: &sbv1.RawForwardSpec{}}
	lat := fixture.RoCELatency("lat")
	unstarted := fixture.TCPSweep("new", 1, false)
	unstarted.Status.StartTime = nil
	for name, c := range map[string]struct {
		sb   *sbv1.SpiralBench
		want string
	}{
		"nccl": {nccl, "DAQIRI has no NCCL workflow"}, "forward": {fwd, "no forward mode"},
		"latency": {lat, "no latency columns"}, "unstarted": {unstarted, "has not started"},
	} {
		if files, err := report.DAQIRILayout(c.sb); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, %v; want an error saying %q", name, keys(files), err, c.want)
		}
	}
}
