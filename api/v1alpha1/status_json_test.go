package v1alpha1

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// Usual parameters are absent from a cell's JSON, and so are the figures a bench does not
// store (derived from the repeats on read); unknown busy shares are absent from a repeat's
// JSON. Each reads back as it was: -1 stays unknown, 0 stays a measured 0.
func TestCellJSONLeavesOutPlaceholders(t *testing.T) {
	cell := CellResult{Index: 2, State: CellValid,
		Parameters: CellParameters{PayloadBytes: 8000, Batch: 1, Pairs: 4, Queues: QueueCell{TX: 1, RX: 1}, Workload: WorkloadNone}}
	derived := cell
	derived.TXMbps, derived.LossPPM = &Statistic{Mean: 9000}, 12
	derived.CPU = &CPUBusy{MasterMilliPercent: -1, TXMilliPercent: 0, RXMilliPercent: 93000}
	b, err := json.Marshal(derived)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"index":2,"parameters":{"payloadBytes":8000,"pairs":4},"state":"Valid","repeats":0,"attempts":0}`; string(b) != want {
		t.Errorf("cell JSON\n got %s\nwant %s", b, want)
	}
	var back CellResult
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, cell) {
		t.Errorf("read back %+v, want %+v", back, cell)
	}

	rr := RepeatResult{State: CellValid, RXMbps: 9000,
		CPU: &CPUBusy{MasterMilliPercent: -1, TXMilliPercent: 0, RXMilliPercent: 93000},
		GPU: &GPUBusy{SMMilliPercent: 41000, MemoryMilliPercent: -1}}
	b, err = json.Marshal(rr)
	if err != nil {
		t.Fatal(err)
	}
	if want := `"cpu":{"txMilliPercent":0,"rxMilliPercent":93000},"gpu":{"smMilliPercent":41000}`; !strings.Contains(string(b), want) {
		t.Errorf("repeat JSON\n got %s\nwant it to hold %s", b, want)
	}
	var backRR RepeatResult
	if err := json.Unmarshal(b, &backRR); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(backRR, rr) {
		t.Errorf("read back %+v, want %+v", backRR, rr)
	}
}

// Parameters other than the usual are written, and read back.
func TestCellParametersJSONKeepsTheUnusual(t *testing.T) {
	p := CellParameters{PayloadBytes: 64, Batch: 10240, Pairs: 1, Queues: QueueCell{TX: 2, RX: 1}, TargetRateMbps: 5000,
		Workload: WorkloadGEMM, WorkloadBatchBytes: 4096, ForwardWork: ForwardWorkGPUPersistent, Memory: MemoryHostPinned}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var back CellParameters
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back != p {
		t.Errorf("%s read back as %+v, want %+v", b, back, p)
	}
	one := CellParameters{PayloadBytes: 64, Batch: 1, Pairs: 1, Queues: QueueCell{TX: 1, RX: 1}, Workload: WorkloadNone}
	if b, _ := json.Marshal(one); string(b) != `{"payloadBytes":64}` {
		t.Errorf("usual parameters: %s, want the payload alone", b)
	}
	// What the CRD's old shape wrote, every field present, reads the same.
	old := `{"payloadBytes":1000,"batch":1,"pairs":2,"queues":{"tx":1,"rx":1},"targetRateMbps":0,"workload":"None"}`
	if err := json.Unmarshal([]byte(old), &back); err != nil {
		t.Fatal(err)
	}
	if want := (CellParameters{PayloadBytes: 1000, Batch: 1, Pairs: 2, Queues: QueueCell{TX: 1, RX: 1}, Workload: WorkloadNone}); back != want {
		t.Errorf("old shape read as %+v", back)
	}
	var cpu CPUBusy
	if err := json.Unmarshal([]byte(`{"masterMilliPercent":-1,"txMilliPercent":5}`), &cpu); err != nil || cpu != (CPUBusy{-1, 5, -1}) {
		t.Errorf("old -1 and an absent share: %+v %v", cpu, err)
	}
}
