package report

import (
	"strings"
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/benchkind"
)

func TestForwardCSVHasOfferedAndForwardedPerRepeat(t *testing.T) {
	sb := &sbv1.SpiralBench{}
	sb.Spec.Transport = sbv1.TransportRawEthernet
	if data, err := benchkind.ForwardCSV(sb); data != nil || err != nil {
		t.Fatalf("a plain raw bench has no forward.csv: %q, %v", data, err)
	}
	sb.Spec.RawEthernet = &sbv1.RawEthernetSpec{Forward: &sbv1.RawForwardSpec{}}
	sb.Status.CellResults = []sbv1.CellResult{
		{Index: 0, State: sbv1.CellValid, Parameters: sbv1.CellParameters{PayloadBytes: 1024, Batch: 32,
			Queues: sbv1.QueueCell{TX: 1, RX: 1}, ForwardWork: sbv1.ForwardWorkGPUGraphs, Memory: sbv1.MemoryHostPinned},
			RepeatResults: []sbv1.RepeatResult{{Repeat: 0, State: sbv1.CellValid, MeasuredMilliseconds: 2000,
				TXPackets: 2_000_000, RXPackets: 1_000_000, TXBytes: 2_000_000 * 1066, RXBytes: 1_000_000 * 1066,
				GPU: &sbv1.GPUBusy{SMMilliPercent: 12500}}}},
		{Index: 1, State: sbv1.CellFailed, Parameters: sbv1.CellParameters{PayloadBytes: 64, Batch: 32,
			Queues: sbv1.QueueCell{TX: 1, RX: 1}, ForwardWork: sbv1.ForwardWorkCPU, Memory: sbv1.MemoryHost}},
	}
	data, err := benchkind.ForwardCSV(sb)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	want := []string{
		strings.Join(benchkind.ForwardColumns, ","),
		"0,GPUGraphs,HostPinned,1024,1066,32,1,1,8.528,4.264,1.000,0.500,1000000,50.000,12.5,Valid",
		// cell 1 failed before it measured a repeat: no row of zeros (failures.csv names it)
	}
	if len(lines) != len(want) {
		t.Fatalf("got %d lines:\n%s", len(lines), data)
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("line %d:\n got %s\nwant %s", i, lines[i], want[i])
		}
	}
}
