package integration

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/attempts"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// A cell whose repeats read 3100, 800 and 900 Mb/s (1.60 ± 1.30 Gb/s, a CV of 81.25 %) is
// counted noisy in status with a NoisyCell Warning event, against the default threshold the
// API server fills in (10 %); its steady neighbour (5 %) is not. The flag fails nothing: with
// no rule on the spread the bench passes.
func TestANoisyCellIsFlaggedButPasses(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	testNode(t, "noisy-node-1")
	w := shortRun(sbtesting.MakeSpiralBench("noisy", ns).Transport(sbv1.TransportTCP).Payloads(8000).Pairs(1, 2), 3, 0).
		Rule(sbv1.AcceptanceRule{Name: "some-rate", Metric: sbv1.MetricRxMbps, Operator: sbv1.OperatorGreaterThanOrEqual, Value: 500,
			Cells: sbv1.CellSelector{Scope: sbv1.CellScopeEach}})
	sb := onTestNode(w.Obj(), "noisy-node-1")
	if err := k8sClient.Create(context.Background(), sb); err != nil {
		t.Fatal(err)
	}
	if sb.Spec.Run.NoisySpreadPercent != 10 {
		t.Errorf("run.noisySpreadPercent defaulted to %d, want 10", sb.Spec.Run.NoisySpreadPercent)
	}
	rx := [][]int64{{9500, 10000, 10500}, {3100, 800, 900}}
	k := &kubeletStandIn{t: t, ns: ns, bench: "noisy", rxMbps: func(cell, repeat int) int64 { return rx[cell][repeat] }}
	sb = k.runUntil(60*time.Second, sbv1.PhaseCompleted)

	// Read status back from the API server: the bench stores the count; each cell's flag and
	// spread are derived from the attempt results wherever they are attached, as sbctl
	// attaches them.
	stored := &sbv1.SpiralBench{}
	if err := k8sClient.Get(context.Background(), client.ObjectKeyFromObject(sb), stored); err != nil {
		t.Fatal(err)
	}
	if st := stored.Status; st.Cells.Noisy != 1 || st.CellsSummary != "2/2 ok, 1 noisy" {
		t.Errorf("bench as stored: %d noisy, summary %q; want 1 and \"2/2 ok, 1 noisy\"", st.Cells.Noisy, st.CellsSummary)
	}
	for i, c := range stored.Status.CellResults {
		if c.State != sbv1.CellValid || c.Spread != nil || c.Noisy {
			t.Errorf("cell %d as stored: %s, spread %+v, noisy %v; want Valid, neither spread nor flag", i, c.State, c.Spread, c.Noisy)
		}
	}
	if err := attempts.Load(context.Background(), k8sClient, stored, attempts.Owned(stored)); err != nil {
		t.Fatal(err)
	}
	want := []sbv1.CellSpread{{Figure: "RxMbps", CVMilliPercent: 5000}, {Figure: "RxMbps", CVMilliPercent: 81250}}
	for i, c := range stored.Status.CellResults {
		if c.Spread == nil || *c.Spread != want[i] || c.Noisy != (i == 1) {
			t.Errorf("cell %d with its attempts: spread %+v noisy %v, want %+v and noisy %v", i, c.Spread, c.Noisy, want[i], i == 1)
		}
	}
	if p := meta.FindStatusCondition(stored.Status.Conditions, sbv1.ConditionPassed); p == nil || p.Status != metav1.ConditionTrue {
		t.Errorf("a noisy cell fails nothing without a rule on its spread: Passed %+v", p)
	}

	var noisy []string
	eventually(t, 20*time.Second, "a NoisyCell Warning event", func() (bool, string) {
		var list eventsv1.EventList
		if err := k8sClient.List(context.Background(), &list, client.InNamespace(ns)); err != nil {
			return false, err.Error()
		}
		noisy = nil
		for _, e := range list.Items {
			if e.Reason == "NoisyCell" && e.Regarding.Name == "noisy" {
				noisy = append(noisy, e.Type+": "+e.Note)
			}
		}
		return len(noisy) > 0, strings.Join(noisy, "; ")
	})
	note := corev1.EventTypeWarning + ": cell 1: RxMbps spreads 81.2 % over its repeats (coefficient of variation), above run.noisySpreadPercent 10 %"
	if len(noisy) != 1 || noisy[0] != note {
		t.Errorf("NoisyCell events %q, want only %q", noisy, note)
	}
}
