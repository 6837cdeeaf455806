package report

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/benchkind"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// seed 004's sendrecv over two Sparks: 4 GiB at 20.38 GB/s busbw, NCCL on RoCE
func ncclBench() *sbv1.SpiralBench {
	sb := sbtesting.MakeSpiralBench("sendrecv", "lab").Transport(sbv1.TransportNCCL).Obj()
	sb.Status.CellResults = []sbv1.CellResult{{Index: 0, Headline: true, State: sbv1.CellValid, RepeatResults: []sbv1.RepeatResult{{
		Repeat: 0, State: sbv1.CellValid,
		Collective: &sbv1.CollectiveResult{Operation: sbv1.NCCLSendRecv, Ranks: 2, NCCLVersion: "2.28.9+cuda13.0", Network: "IB",
			Sizes: []sbv1.CollectiveSize{
				{Bytes: 4294967296, TimeNanoseconds: 210744847, AlgbwMBps: 20380, BusbwMBps: 20380, Check: sbv1.NCCLCheckPassed,
					P50Nanoseconds: 210534102, P99Nanoseconds: 212641550, SlowestRank: 1, SlowestNanoseconds: 210955592},
				{Bytes: 4294967296, InPlace: true, TimeNanoseconds: 210700000, AlgbwMBps: 20384, BusbwMBps: 20384, Check: sbv1.NCCLCheckNotDefined},
			},
			Peers: []sbv1.PeerTransport{{FromRank: 0, ToRank: 1, Transport: "NET/IB", Via: "NET/IB/0/GDRDMA"}}},
	}}}}
	return sb
}

func TestCollectivesCSVHasARowPerSizeAndPlacement(t *testing.T) {
	data, err := benchkind.CollectivesCSV(ncclBench())
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil || len(rows) != 3 {
		t.Fatalf("rows = %v, %v", rows, err)
	}
	want := []string{"0", "0", "sendrecv", "4294967296", "out_of_place", "210744.85", "20.38", "20.38", "Passed", "0", "2",
		"2.28.9+cuda13.0", "Valid", "NET/IB", "210534.10", "212641.55", "1", "210955.59"}
	if strings.Join(rows[1], ",") != strings.Join(want, ",") {
		t.Errorf("row = %v, want %v", rows[1], want)
	}
	if rows[2][4] != "in_place" || rows[2][8] != "NotDefined" || rows[2][9] != "0" || strings.Join(rows[2][14:], ",") != ",,," {
		t.Errorf("in-place row = %v", rows[2])
	}
	if d, _ := benchkind.CollectivesCSV(finishedBench()); d != nil {
		t.Errorf("a TCP bench has no collectives.csv: %q", d)
	}
}

// Two GPUs of one node: the transports column says NVLink or PCIe under NCCL's P2P.
func TestCollectivesCSVNamesTheP2PWire(t *testing.T) {
	sb := ncclBench()
	sb.Status.CellResults[0].RepeatResults[0].Collective.Peers = []sbv1.PeerTransport{
		{FromRank: 0, ToRank: 1, Transport: "P2P/NVLink", Via: "P2P/CUMEM/read"},
		{FromRank: 1, ToRank: 0, Transport: "P2P/NVLink", Via: "P2P/CUMEM/read"}}
	data, _ := benchkind.CollectivesCSV(sb)
	rows, _ := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if got := rows[1][13]; rows[0][13] != "transports" || got != "P2P/NVLink" {
		t.Errorf("transports = %q, want P2P/NVLink", got)
	}
	sb.Status.CellResults[0].RepeatResults[0].Collective.Peers[1].Transport = "SHM"
	data, _ = benchkind.CollectivesCSV(sb)
	rows, _ = csv.NewReader(bytes.NewReader(data)).ReadAll()
	if got := rows[1][13]; got != "P2P/NVLink+SHM" {
		t.Errorf("transports = %q, want P2P/NVLink+SHM", got)
	}
}

func TestFilesAddTheSweepFiles(t *testing.T) {
	files, err := Files(ncclBench())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := files["collectives.csv"]; !ok {
		t.Errorf("no collectives.csv in %v", keys(files))
	}
	if _, ok := files["copies.csv"]; ok {
		t.Errorf("copies.csv without copies")
	}
}

func TestCopiesCSVCarriesTheGPUsPlace(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("copies", "lab").Transport(sbv1.TransportGPUCopy).Obj()
	sb.Status.CellResults = []sbv1.CellResult{{Index: 0, State: sbv1.CellValid, RepeatResults: []sbv1.RepeatResult{{State: sbv1.CellValid,
		Copies: &sbv1.CopyResult{GPUs: []sbv1.GPUPlacement{{Device: 0, NUMANode: 1, PCIeGeneration: 5, PCIeWidth: 16}},
			Sizes: []sbv1.CopySize{{Device: 0, Direction: "H2D", HostMemory: "Pinned", Bytes: 8 << 20, TimeNanoseconds: 151000, MegabytesPerSecond: 55553},
				{Device: 0, Direction: "D2D", Bytes: 8 << 20, TimeNanoseconds: 5000, MegabytesPerSecond: 1677721}}}}}}}
	data, err := benchkind.CopiesCSV(sb)
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if len(rows) != 3 || strings.Join(rows[1], ",") != "0,0,0,H2D,Pinned,8388608,151.00,55.55,1,5,16,Valid" || rows[2][4] != "Device" {
		t.Errorf("rows = %v", rows)
	}
	var table bytes.Buffer
	if err := WriteTable(&table, sb); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table.String(), "GPU 0: NUMA node 1, PCIe gen 5 x16") {
		t.Errorf("table:\n%s", table.String())
	}
}

func TestTableShowsTheSweepAndTransports(t *testing.T) {
	var out bytes.Buffer
	if err := WriteTable(&out, ncclBench()); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{"sendrecv, 2 ranks, NCCL 2.28.9+cuda13.0, network IB", "20.38", "Passed", "not checked (NCCL defines no in-place sendrecv)",
		"210534.10", "212641.55", "1 (210955.59)", "rank 0 -> rank 1: NET/IB (NET/IB/0/GDRDMA)"} {
		if !strings.Contains(s, want) {
			t.Errorf("%q missing from:\n%s", want, s)
		}
	}
}

func keys(m map[string][]byte) []string {
	var k []string
	for name := range m {
		k = append(k, name)
	}
	return k
}
