package controllers

import (
	"encoding/json"
	"strings"
	"testing"

	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/attempts"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// The bench's status keeps aggregates; each attempt's repeats are a record the bench owns.
func TestAnAttemptsRepeatsAreARecordTheBenchOwnsNotStatus(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("records", "lab").Repeats(3).UID("r1").Obj()
	h := newHarness(t, sb, readyNode("spark-a"))
	srv, cli := startPair(t, h)
	h.setStatus(sbtesting.WrapPod(cli).Succeeded(sbtesting.Lines(tx(1010), tx(1110), tx(1210))).Obj())
	h.setStatus(sbtesting.WrapPod(srv).Succeeded(sbtesting.Lines(rx(1000), rx(1100), rx(1200))).Obj())
	h.reconcile()

	var stored sbv1.SpiralBench
	if err := h.c.Get(t.Context(), h.sb, &stored); err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(stored.Status)
	if strings.Contains(string(raw), "repeatResults") || len(stored.Status.CellResults[0].RepeatResults) != 0 {
		t.Errorf("status stores no repeats: %s", raw)
	}
	rec := &sbv1.SpiralBenchAttemptResult{}
	if err := h.c.Get(t.Context(), client.ObjectKey{Namespace: "lab", Name: attempts.Name("records", 0, 0)}, rec); err != nil {
		t.Fatalf("the attempt's record: %v", err)
	}
	if rec.Measured != 3 || len(rec.RepeatResults) != 3 || rec.RepeatResults[2].RXMbps != 1200 || rec.Message != "" ||
		rec.Labels[sbv1.LabelAttemptBench] != "records" || len(rec.OwnerReferences) != 1 || rec.OwnerReferences[0].UID != "r1" ||
		!ptr.Deref(rec.OwnerReferences[0].Controller, false) {
		t.Errorf("record of attempt 0: %+v", rec)
	}
	if res := cell0(h.bench()); res.RXMbps == nil || res.RXMbps.Mean != 1100 || len(res.RepeatResults) != 3 {
		t.Errorf("the cell's aggregate and its attached repeats: %+v", res)
	}
}

// A step whose status write was lost is taken again on a later look at the pods; the record
// the first step wrote stands, so the attempt counts once, with what it first measured.
func TestARetakenStepKeepsTheAttemptsFirstRecord(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("retaken", "lab").Repeats(3).UID("r2").Obj()
	h := newHarness(t, sb, readyNode("spark-a"))
	srv, cli := startPair(t, h)
	first := attempts.New(h.bench(), 0, 0, []sbv1.RepeatResult{
		{Repeat: 0, State: sbv1.CellValid, RXMbps: 900, TXMbps: 900},
		{Repeat: 1, State: sbv1.CellValid, RXMbps: 900, TXMbps: 900},
		{Repeat: 2, State: sbv1.CellValid, RXMbps: 900, TXMbps: 900},
	}, "", false)
	if err := h.c.Create(t.Context(), first); err != nil {
		t.Fatal(err)
	}
	h.setStatus(sbtesting.WrapPod(cli).Succeeded(sbtesting.Lines(tx(1010), tx(1110), tx(1210))).Obj())
	h.setStatus(sbtesting.WrapPod(srv).Succeeded(sbtesting.Lines(rx(1000), rx(1100), rx(1200))).Obj())
	res := cell0(h.reconcile())
	if res.Attempts != 1 || len(res.RepeatResults) != 3 || res.RXMbps == nil || res.RXMbps.Mean != 900 {
		t.Errorf("the first record stands, counted once: attempts %d, repeats %d, rx %+v", res.Attempts, len(res.RepeatResults), res.RXMbps)
	}
}
