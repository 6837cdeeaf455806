package report

import (
	"bytes"
	"strings"
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

func TestAnUnpinnedSideSaysSoAndTheTableExplainsItOnce(t *testing.T) {
	sb := &sbv1.SpiralBench{Spec: sbv1.SpiralBenchSpec{Transport: sbv1.TransportTCP}}
	for i := int32(0); i < 3; i++ {
		sb.Status.CellResults = append(sb.Status.CellResults, sbv1.CellResult{Index: i, State: sbv1.CellValid, Repeats: 1,
			CPU: &sbv1.CPUBusy{MasterMilliPercent: -1, TXMilliPercent: -1, RXMilliPercent: 42_500}})
	}
	var out bytes.Buffer
	if err := WriteTable(&out, sb); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	if strings.Contains(text, "?") {
		t.Errorf("a bare ? in the table:\n%s", text)
	}
	if !strings.Contains(text, NotPinned+"/42.5") {
		t.Errorf("want the TX side unpinned and RX 42.5 %%:\n%s", text)
	}
	if n := strings.Count(text, CPUNote); n != 1 {
		t.Errorf("the CPU note appears %d times, want once:\n%s", n, text)
	}
}

func TestPinnedSidesNeedNoNote(t *testing.T) {
	cells := []sbv1.CellResult{{CPU: &sbv1.CPUBusy{TXMilliPercent: 1000, RXMilliPercent: 2000}}, {}}
	if AnyCPUNotPinned(cells) {
		t.Error("pinned cells (and one without CPU figures) need no note")
	}
	if got := CPUShare(99_950); got != "100.0" {
		t.Errorf("CPUShare(99950) = %q", got)
	}
	if got := GPUShare(-1); got != "-" {
		t.Errorf("GPUShare(-1) = %q, want - (no GPU work)", got)
	}
}
