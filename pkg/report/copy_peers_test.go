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

// two GPUs over NVLink: CE unidirectional, and SM bidirectional with one direction unmeasured
func peerBench() *sbv1.SpiralBench {
	sb := sbtesting.MakeSpiralBench("peers", "lab").Transport(sbv1.TransportGPUCopy).Obj()
	sb.Status.CellResults = []sbv1.CellResult{{Index: 0, State: sbv1.CellValid, RepeatResults: []sbv1.RepeatResult{{Repeat: 1, State: sbv1.CellValid,
		Copies: &sbv1.CopyResult{GPUs: []sbv1.GPUPlacement{{Device: 2}, {Device: 5}},
			PeerLinks: []sbv1.GPUPeerLink{{DeviceA: 2, DeviceB: 5, Path: "NV18", PeerAccess: true}},
			PeerMatrices: []sbv1.CopyPeerMatrix{
				{Method: sbv1.CopyPeerCE, Mode: sbv1.CopyPeerUnidirectional, Bytes: 256 << 20, MegabytesPerSecond: [][]int64{{-1, 371250}, {370500, -1}}},
				{Method: sbv1.CopyPeerSM, Mode: sbv1.CopyPeerBidirectional, Bytes: 256 << 20, MegabytesPerSecond: [][]int64{{-1, 300100}, {-1, -1}}}},
			HostAggregate: []sbv1.CopyHostAggregate{{Direction: "D2H", Bytes: 256 << 20, AloneMBps: []int64{55300, 55200},
				TogetherMBps: []int64{30100, 29900}, AggregateMBps: 59800}},
			PeerNote: "sm: some pairs have no peer access (-1)"}}}}}
	return sb
}

func TestPeerCSVHasARowPerMatrixAndOrderedPair(t *testing.T) {
	data, err := benchkind.PeerCSV(peerBench())
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil || len(rows) != 5 {
		t.Fatalf("rows = %v, %v", rows, err)
	}
	if got := strings.Join(rows[0], ","); got != strings.Join(benchkind.PeerColumns, ",") {
		t.Errorf("header = %s", got)
	}
	want := []string{
		"0,1,CE,Unidirectional,268435456,2,5,371.25,NV18,true,Valid",
		"0,1,CE,Unidirectional,268435456,5,2,370.50,NV18,true,Valid",
		"0,1,SM,Bidirectional,268435456,2,5,300.10,NV18,true,Valid",
		"0,1,SM,Bidirectional,268435456,5,2,,NV18,true,Valid", // not measured: empty, not 0
	}
	for i, w := range want {
		if got := strings.Join(rows[i+1], ","); got != w {
			t.Errorf("row %d = %s, want %s", i+1, got, w)
		}
	}
	if d, _ := benchkind.PeerCSV(ncclBench()); d != nil {
		t.Errorf("an NCCL bench has no %s", benchkind.CopyPeersFile)
	}
}

func TestHostAggregateCSVEndsWithTheSumAndTheAggregate(t *testing.T) {
	data, err := benchkind.HostAggregateCSV(peerBench())
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := csv.NewReader(bytes.NewReader(data)).ReadAll()
	want := []string{"cell,rep,direction,size,device,alone_gbps,together_gbps,state",
		"0,1,D2H,268435456,2,55.30,30.10,Valid", "0,1,D2H,268435456,5,55.20,29.90,Valid", "0,1,D2H,268435456,all,110.50,59.80,Valid"}
	if len(rows) != len(want) {
		t.Fatalf("rows = %v", rows)
	}
	for i, w := range want {
		if got := strings.Join(rows[i], ","); got != w {
			t.Errorf("row %d = %s, want %s", i, got, w)
		}
	}
}

func TestFilesAndTableCarryThePeerMatrices(t *testing.T) {
	files, err := Files(peerBench())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{benchkind.CopyPeersFile, benchkind.HostAggregateFile} {
		if _, ok := files[name]; !ok {
			t.Errorf("no %s in %v", name, keys(files))
		}
	}
	var out bytes.Buffer
	if err := WriteTable(&out, peerBench()); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{"GPU 2 <-> GPU 5: NV18, peer access true", "CE Unidirectional, 268435456 B per copy",
		"371.25", "all GPUs D2H at once, 268435456 B per copy: aggregate 59.80 GB/s; GPU 2 30.10 (alone 55.30)",
		"note: sm: some pairs have no peer access"} {
		if !strings.Contains(s, want) {
			t.Errorf("%q missing from:\n%s", want, s)
		}
	}
}
