package benchctrl

import (
	"encoding/json"
	"strings"
	"testing"

	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/controllers/benchstate"
	"github.com/spiralbench/spiralbench/pkg/attempts"
	"github.com/spiralbench/spiralbench/pkg/provenance"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// The bench's status keeps aggregates; each attempt's repeats are a record the bench owns.
func TestAnAttemptsRepeatsAreARecordTheBenchOwnsNotStatus(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("records", "lab").Repeats(3).UID("r1").Obj()
	h := newHarness(t, sb, sbtesting.ReadyNode("spark-a"))
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
	h := newHarness(t, sb, sbtesting.ReadyNode("spark-a"))
	srv, cli := startPair(t, h)
	preRecord(t, h, 900, h.r.Provenance) // written by the manager: its owner reference and mark
	h.setStatus(sbtesting.WrapPod(cli).Succeeded(sbtesting.Lines(tx(1010), tx(1110), tx(1210))).Obj())
	h.setStatus(sbtesting.WrapPod(srv).Succeeded(sbtesting.Lines(rx(1000), rx(1100), rx(1200))).Obj())
	res := cell0(h.reconcile())
	if res.Attempts != 1 || len(res.RepeatResults) != 3 || res.RXMbps == nil || res.RXMbps.Mean != 900 {
		t.Errorf("the first record stands, counted once: attempts %d, repeats %d, rx %+v", res.Attempts, len(res.RepeatResults), res.RXMbps)
	}
}

// A record someone else wrote under the attempt's name, with the bench's owner reference and
// made-up repeats, is never read: the attempt fails with ForeignObject and nothing measured.
func TestARecordTheManagerDidNotWriteIsNotAdopted(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("forged", "lab").Repeats(3).UID("r3").Obj()
	h := newHarness(t, sb, sbtesting.ReadyNode("spark-a"))
	srv, cli := startPair(t, h)
	preRecord(t, h, 400000, provenance.RandomKey()) // another key's mark
	h.setStatus(sbtesting.WrapPod(cli).Succeeded(sbtesting.Lines(tx(1010), tx(1110), tx(1210))).Obj())
	h.setStatus(sbtesting.WrapPod(srv).Succeeded(sbtesting.Lines(rx(1000), rx(1100), rx(1200))).Obj())
	if _, err := h.r.Reconcile(t.Context(), ctrl.Request{NamespacedName: h.sb}); err != nil {
		t.Fatal(err)
	}
	var got sbv1.SpiralBench
	if err := h.c.Get(t.Context(), h.sb, &got); err != nil {
		t.Fatal(err)
	}
	// as every reader with the manager's key sees it: the forged record is missing, not read
	if err := attempts.Load(t.Context(), h.c, &got, benchstate.OwnAttempt(h.r.Provenance, &got)); err == nil || !strings.Contains(err.Error(), "1 attempt result(s)") {
		t.Errorf("load: %v; want the forged record reported missing", err)
	}
	res := cell0(&got)
	if res.Attempts != 1 || res.FailedAttempts != 1 || len(res.RepeatResults) != 0 {
		t.Errorf("attempts %d, failed %d, repeats %d: want one failed attempt with nothing measured", res.Attempts, res.FailedAttempts, len(res.RepeatResults))
	}
	for _, r := range res.RepeatResults {
		if r.RXMbps == 400000 {
			t.Errorf("the forged repeats were read: %+v", r)
		}
	}
	if !strings.Contains(res.Message, "ForeignObject: SpiralBenchAttemptResult lab/forged-c0-a0 was not created by SpiralBench") {
		t.Errorf("cell message %q: want the ForeignObject reason naming the record", res.Message)
	}
}

// preRecord writes the record of cell 0's attempt 0 before the step does, three repeats at
// mbps, with the bench as its controller and key's mark: the manager's key for a record an
// earlier step wrote, another for one written by someone else.
func preRecord(t *testing.T, h *harness, mbps int64, key *provenance.Key) *sbv1.SpiralBenchAttemptResult {
	t.Helper()
	var repeats []sbv1.RepeatResult
	for r := int32(0); r < 3; r++ {
		repeats = append(repeats, sbv1.RepeatResult{Repeat: r, State: sbv1.CellValid, RXMbps: mbps, TXMbps: mbps})
	}
	rec := attempts.New(h.bench(), 0, 0, repeats, "", false)
	if err := controllerutil.SetControllerReference(h.bench(), rec, h.c.Scheme()); err != nil {
		t.Fatal(err)
	}
	if err := benchstate.Mark(key, rec); err != nil {
		t.Fatal(err)
	}
	if err := h.c.Create(t.Context(), rec); err != nil {
		t.Fatal(err)
	}
	return rec
}
