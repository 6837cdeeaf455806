package summary

import (
	"strings"
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// Rank 0 of a two-node all_gather (seed 003's run): its summary carries the merged sweep and the
// transports NCCL chose; rank 1's carries none.
const ncclRank0 = `{"v":1,"transport":"nccl","role":"rank","state":"Invalid","reason":"asked for RDMA, but NCCL connected rank 1 -> rank 0 over NET/Socket/0 (TCP sockets)",
"seconds_milli":0,"payload_bytes":0,"pairs":1,"target_mbps":0,"tx_packets":0,"tx_bytes":0,"rx_packets":0,"rx_bytes":0,"pps":0,
"tx_mbps":0,"rx_mbps":0,"drops":0,"drops_kind":"","loss_ppm":0,"cpu_master_mpct":-1,"cpu_tx_mpct":-1,"cpu_rx_mpct":-1,
"gpu_sm_mpct":-1,"gpu_mem_mpct":-1,
"nccl":{"op":"all_gather","ranks":2,"version":"2.28.9+cuda13.0","network":"Socket",
"rows":[[134217728,0,11163000,12023,6011,0],[134217728,1,11020000,12179,6089,-1],[8,0,20100,0,0,3]],
"peers":[[0,1,"NET/Socket","NET/Socket/0"],[1,0,"NET/Socket","NET/Socket/0"]]}}`

const ncclRank1 = `{"v":1,"transport":"nccl","role":"rank","state":"Valid","reason":"","seconds_milli":0,"payload_bytes":0,
"pairs":1,"target_mbps":0,"tx_packets":0,"tx_bytes":0,"rx_packets":0,"rx_bytes":0,"pps":0,"tx_mbps":0,"rx_mbps":0,"drops":0,
"drops_kind":"","loss_ppm":0,"cpu_master_mpct":-1,"cpu_tx_mpct":-1,"cpu_rx_mpct":-1,"gpu_sm_mpct":-1,"gpu_mem_mpct":-1}`

func TestMergeTakesTheNCCLSweepFromRankZero(t *testing.T) {
	r0, err := Parse(ncclRank0)
	if err != nil {
		t.Fatal(err)
	}
	r1, err := Parse(ncclRank1)
	if err != nil {
		t.Fatal(err)
	}
	r := Merge([]Part{{Summary: &r1}, {Summary: &r0}}, 0, 0) // whichever order, the sweep is found
	c := r.Collective
	if c == nil || c.Operation != sbv1.NCCLAllGather || c.Ranks != 2 || c.NCCLVersion != "2.28.9+cuda13.0" {
		t.Fatalf("collective = %+v", c)
	}
	if len(c.Sizes) != 3 || c.Sizes[0].BusbwMBps != 6011 || c.Sizes[0].TimeNanoseconds != 11163000 || c.Sizes[0].InPlace {
		t.Fatalf("sizes = %+v", c.Sizes)
	}
	if c.Sizes[0].Check != sbv1.NCCLCheckPassed || c.Sizes[1].Check != sbv1.NCCLCheckNotChecked ||
		c.Sizes[2].Check != sbv1.NCCLCheckFailed || c.Sizes[2].WrongElements != 3 {
		t.Fatalf("checks = %+v", c.Sizes)
	}
	if len(c.Peers) != 2 || c.Peers[1].FromRank != 1 || c.Peers[1].Transport != "NET/Socket" {
		t.Fatalf("peers = %+v", c.Peers)
	}
	if r.State != sbv1.CellInvalid || !strings.Contains(r.Message, "NET/Socket") {
		t.Fatalf("state %s, message %q: the RDMA violation must make the repeat Invalid", r.State, r.Message)
	}
}

func TestCopySweepBecomesRows(t *testing.T) {
	msg := strings.Replace(ncclRank1, `"transport":"nccl","role":"rank"`, `"transport":"gpucopy","role":"loopback"`, 1)
	msg = strings.TrimSuffix(msg, "}") + `,"gpucopy":{"gpus":[[0,1,5,16]],"rows":[[0,"h2d","pinned",8388608,151000,55553],[0,"d2d","device",8388608,5000,1677721]]}}`
	s, err := Parse(msg)
	if err != nil {
		t.Fatal(err)
	}
	r := Merge([]Part{{Summary: &s, Receives: true, Sends: true}}, 0, 0)
	if r.Copies == nil || len(r.Copies.GPUs) != 1 || r.Copies.GPUs[0].PCIeWidth != 16 || r.Copies.GPUs[0].NUMANode != 1 {
		t.Fatalf("copies = %+v", r.Copies)
	}
	if got := r.Copies.Sizes; len(got) != 2 || got[0].Direction != "H2D" || got[0].HostMemory != "Pinned" ||
		got[1].Direction != "D2D" || got[1].HostMemory != "" || got[1].MegabytesPerSecond != 1677721 {
		t.Fatalf("rows = %+v", got)
	}
}

func TestMalformedSweepsAreRefused(t *testing.T) {
	bad := strings.Replace(ncclRank0, `[0,1,"NET/Socket","NET/Socket/0"]`, `[0,"NET/Socket"]`, 1)
	if _, err := Parse(bad); err == nil {
		t.Fatal("a peer with two elements parsed")
	}
}

// Two GPUs of one node: rank 0's summary names the wire under NCCL's P2P, and status keeps it.
func TestP2PWireReachesStatus(t *testing.T) {
	msg := strings.Replace(ncclRank0, `"peers":[[0,1,"NET/Socket","NET/Socket/0"],[1,0,"NET/Socket","NET/Socket/0"]]`,
		`"peers":[[0,1,"P2P/NVLink","P2P/CUMEM/read"],[1,0,"P2P/PCIe","P2P/CUMEM/read"]]`, 1)
	s, err := Parse(msg)
	if err != nil {
		t.Fatal(err)
	}
	c := Merge([]Part{{Summary: &s}}, 0, 0).Collective
	if c == nil || len(c.Peers) != 2 || c.Peers[0].Transport != "P2P/NVLink" || c.Peers[1].Transport != "P2P/PCIe" ||
		c.Peers[0].Via != "P2P/CUMEM/read" {
		t.Fatalf("peers = %+v", c)
	}
}

// "iter" pairs with "rows": p50, p99 and the slowest rank's time per mille off the row's time;
// a summary without it (cut to fit 4 KiB, or an older data plane) leaves them unset.
func TestPerIterationFiguresComeFromPerMilleOffsets(t *testing.T) {
	msg := strings.Replace(ncclRank0, `[8,0,20100,0,0,3]],`, `[8,0,20100,0,0,3]],"iter":[[-2,41,1,3],[0,0,0,0],[-1000,-1000,0,0]],`, 1)
	s, err := Parse(msg)
	if err != nil {
		t.Fatal(err)
	}
	c := Merge([]Part{{Summary: &s}}, 0, 0).Collective
	got := c.Sizes[0]
	if got.P50Nanoseconds != 11140674 || got.P99Nanoseconds != 11620683 || got.SlowestRank != 1 || got.SlowestNanoseconds != 11196489 {
		t.Errorf("row 0 per iteration = %+v", got)
	}
	if c.Sizes[2].P50Nanoseconds != 0 || c.Sizes[2].SlowestNanoseconds != 20100 {
		t.Errorf("row 2: not measured is 0, one rank is its own slowest: %+v", c.Sizes[2])
	}
	s, _ = Parse(ncclRank0)
	if c := Merge([]Part{{Summary: &s}}, 0, 0).Collective; c.Sizes[0].P50Nanoseconds != 0 || c.Sizes[0].SlowestNanoseconds != 0 {
		t.Errorf("no iter, no per-iteration figures: %+v", c.Sizes[0])
	}
}
