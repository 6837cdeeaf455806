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

func TestTheSameNoteIsPrintedOnceWithItsCells(t *testing.T) {
	sb := &sbv1.SpiralBench{Spec: sbv1.SpiralBenchSpec{Transport: sbv1.TransportTCP}}
	unverified := &sbv1.WireProof{Verdict: sbv1.WireUnverified, Note: "veth has no PHY counters"}
	for i := int32(0); i < 3; i++ {
		sb.Status.CellResults = append(sb.Status.CellResults, sbv1.CellResult{Index: i, State: sbv1.CellValid, Repeats: 1,
			Wire: sbv1.WireUnverified, RepeatResults: []sbv1.RepeatResult{{Wire: unverified}}})
	}
	sb.Status.CellResults = append(sb.Status.CellResults, sbv1.CellResult{Index: 3, State: sbv1.CellFailed, Message: "no result"})
	var out bytes.Buffer
	if err := WriteTable(&out, sb); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	if !strings.Contains(text, "cells 0, 1, 2: veth has no PHY counters\n") || strings.Count(text, "veth has no PHY counters") != 1 {
		t.Errorf("want the wire note once for cells 0, 1, 2:\n%s", text)
	}
	if !strings.Contains(text, "cell 3: no result\n") {
		t.Errorf("want the failed cell's message:\n%s", text)
	}
}
