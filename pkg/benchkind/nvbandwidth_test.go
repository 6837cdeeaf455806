package benchkind

import (
	"os"
	"strings"
	"testing"
)

// testdata/nvbandwidth-0.8-h200.json is `nvbandwidth -j -b 512 -t host_to_device_memcpy_ce
// device_to_host_memcpy_ce device_local_copy host_device_latency_sm device_to_device_latency_sm`
// as nvbandwidth 0.8 printed it on one NVIDIA H200 (hack/bench/nvbandwidth-side-run.sh, the
// first repeat; docs/benchmarks/gpucopy.md, "Beside nvbandwidth").
func TestParseNVBandwidthRecordedH200(t *testing.T) {
	data, err := os.ReadFile("testdata/nvbandwidth-0.8-h200.json")
	if err != nil {
		t.Fatal(err)
	}
	run, err := ParseNVBandwidth(data)
	if err != nil {
		t.Fatal(err)
	}
	if run.Version != "v0.8" || run.CUDARuntime != 13000 || run.DriverVersion != "580.159.04" {
		t.Errorf("machine = %q, CUDA %d, driver %q", run.Version, run.CUDARuntime, run.DriverVersion)
	}
	if len(run.GPUs) != 1 || !strings.Contains(run.GPUs[0], "NVIDIA H200") {
		t.Errorf("GPUs = %q", run.GPUs)
	}
	status := map[string]string{}
	for _, tc := range run.Testcases {
		status[tc.Name] = tc.Status
	}
	if len(run.Testcases) != 5 || status["device_to_device_latency_sm"] != "Waived" || status["host_device_latency_sm"] != "Passed" {
		t.Errorf("testcases = %v", status)
	}
	figures := run.NVBandwidthFigures()
	got := map[string]NVBandwidthFigure{}
	for _, f := range figures {
		got[f.Ours] = f
	}
	if len(figures) != 4 {
		t.Fatalf("figures = %+v, want H2D, D2H, D2D and the host latency (the peer latency is Waived on one GPU)", figures)
	}
	// the recorded values, and the bounds the H200's links put on them
	for _, c := range []struct {
		ours, unit    string
		value, lo, hi float64
	}{
		{"H2D Pinned", "GB/s", 55.4311, 40, 64}, // PCIe gen 5 x16: 64 GB/s raw
		{"D2H Pinned", "GB/s", 55.3219, 40, 64},
		{"D2D", "GB/s", 2094.6, 1000, 4800},       // HBM3e 4.8 TB/s, each byte read and written
		{"LatencyHost", "ns", 1203.87, 200, 5000}, // a load across PCIe and back
	} {
		f, ok := got[c.ours]
		if !ok {
			t.Errorf("%s: missing", c.ours)
			continue
		}
		if f.Value != c.value || f.Unit != c.unit || f.Device != 0 || f.Peer != -1 || f.Value < c.lo || f.Value > c.hi {
			t.Errorf("%s = %+v, want %g %s on GPU 0", c.ours, f, c.value, c.unit)
		}
	}
}

// A two-GPU peer latency matrix: rows read, columns are read; the diagonal is N/A.
func TestParseNVBandwidthPeerMatrixAndRefusals(t *testing.T) {
	run, err := ParseNVBandwidth([]byte(`{"nvbandwidth": {"version": "v0.8", "testcases": [
	  {"name": "device_to_device_latency_sm", "status": "Passed", "bandwidth_matrix": [["N/A", "731.5"], ["729", "N/A"]]},
	  {"name": "all_to_host_memcpy_ce", "status": "Passed", "bandwidth_matrix": [["50", "50"]]}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	if m := run.Testcases[0].Matrix; m[0][0] != nil || *m[0][1] != 731.5 {
		t.Errorf("matrix = %v", m)
	}
	f := run.NVBandwidthFigures()
	if len(f) != 2 || f[0].Device != 0 || f[0].Peer != 1 || f[0].Value != 731.5 || f[1].Device != 1 || f[1].Peer != 0 {
		t.Errorf("figures = %+v, want 0->1 and 1->0 only (all_to_host has no twin)", f)
	}
	for _, bad := range []string{
		`not json`,
		`{"testcases": []}`, // plain-text run, or another tool's JSON
		`{"nvbandwidth": {"testcases": [{"name": "x", "status": "Passed", "bandwidth_matrix": [["fast"]]}]}}`,
		`{"nvbandwidth": {"testcases": [{"name": "x", "status": "Passed"}]}}`,
	} {
		if _, err := ParseNVBandwidth([]byte(bad)); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}
