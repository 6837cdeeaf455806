package fleetctrl

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/bucket/buckettest"
	"github.com/spiralbench/spiralbench/pkg/fleet"
	"github.com/spiralbench/spiralbench/pkg/provenance"
)

// cohortView is a finished round of class h200: eight nodes on 570.1, and five upgraded to
// 580.2 with a 5% slower figure, three of them canaries; plus a node of another class on
// 580.2 (reference-less) whose driver label holds characters an object key should not.
func cohortView() *fleetView {
	f := &sbv1.SpiralBenchFleet{ObjectMeta: metav1.ObjectMeta{Namespace: "lab", Name: "f"}}
	f.Spec.UpgradeGate = &sbv1.UpgradeGateSpec{Canaries: 3, EquivalenceMarginPercent: 3, DriverVersionLabel: "driver"}
	f.Status.Round = 4
	meta.SetStatusCondition(&f.Status.Conditions, metav1.Condition{Type: sbv1.FleetConditionRoundRunning,
		Status: metav1.ConditionFalse, Reason: sbv1.ReasonRoundFinished})
	v := &fleetView{f: f, metric: "RxMbps", pool: map[string]*corev1.Node{}, rows: map[string]*sbv1.FleetNode{},
		bucketResolved: true, bucket: &fleetBucket{prefix: "p"}}
	t0 := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	add := func(name, class, driver string, value int64, upgraded bool, at int) {
		v.pool[name] = &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"driver": driver}}}
		row := &sbv1.FleetNode{Name: name, Class: class, Verdict: sbv1.NodePassed, Value: ptr.To(value),
			LastBenchTime: &metav1.Time{Time: t0.Add(time.Duration(at) * time.Minute)}}
		if upgraded {
			row.Upgrade = sbv1.GateReleased
		}
		v.rows[name] = row
	}
	for i := range 8 {
		add(fmt.Sprintf("old-%d", i), "h200", "570.1", 94000+int64(i%4-2)*200, false, 0)
	}
	for i := range 5 {
		add(fmt.Sprintf("new-%d", i), "h200", "580.2", 89300+int64(i%3-1)*150, true, i+1)
	}
	add("odd-0", "gb200", "580.2+rc/1", 120000, true, 10)
	return v
}

func TestTheRoundSummaryShowsEachCohortAndItsFigures(t *testing.T) {
	store, key := buckettest.MemStore{}, provenance.RandomKey()
	r := &Reconciler{Store: store, Provenance: key}
	v := cohortView()
	if again := r.uploadSummaryIfDue(context.Background(), v); again != 0 {
		t.Fatalf("retry in %v: %+v", again, v.f.Status.Conditions)
	}
	folder := "p/fleets/lab/f/round-4/"
	files := store.Folder(folder)
	var s fleet.Summary
	if err := json.Unmarshal(files["summary.json"], &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Cohorts) != 2 {
		t.Fatalf("%d cohorts, want 2: %+v", len(s.Cohorts), s.Cohorts)
	}
	// the most recent first, as status lists them
	odd, h200 := s.Cohorts[0], s.Cohorts[1]
	if h200.Class != "h200" || h200.Driver != "580.2" || h200.Figure != "RxMbps" || h200.Decision != string(fleet.Worse) ||
		h200.NBefore != 8 || h200.NAfter != 3 || h200.Before.N != 8 || len(h200.After.Values) != 3 || h200.MarginPercent != 3 {
		t.Fatalf("h200 cohort %+v", h200)
	}
	for _, n := range h200.After.Values {
		if !strings.HasPrefix(n.Node, "new-") {
			t.Fatalf("canaries %+v", h200.After.Values)
		}
	}
	if odd.Class != "gb200" || odd.Decision != string(fleet.Undecided) || odd.NBefore != 0 || odd.After.N != 1 || odd.Before.Values == nil {
		t.Fatalf("gb200 cohort %+v", odd)
	}
	// status and summary agree on each cohort
	for _, st := range cohortStatus(v) {
		for _, c := range s.Cohorts {
			if c.Class == st.Class && (c.Decision != st.Decision || int32(c.NAfter) != st.Canaries || int32(c.NBefore) != st.Reference) {
				t.Errorf("summary %s/%s %s n=%d vs %d, status %+v", c.Class, c.Driver, c.Decision, c.NAfter, c.NBefore, st)
			}
		}
	}

	// the figures lie beside the summary, under its signature, named for an object key
	oddName := fleet.CohortPlotName("gb200", "580.2+rc/1")
	for _, name := range []string{"cohort-h200-580.2.svg", "cohort-h200-580.2.png", oddName + ".svg", oddName + ".png"} {
		if len(files[name]) == 0 {
			t.Errorf("no %s in %v", name, fileNames(files))
		}
	}
	if !strings.HasPrefix(oddName, "cohort-gb200-580.2_rc_1-") {
		t.Errorf("sanitised name %q", oddName)
	}
	if !strings.Contains(string(files["cohort-h200-580.2.svg"]), "class h200, driver 580.2: RxMbps Worse") {
		t.Error("the h200 figure does not state its decision")
	}
	if _, err := provenance.VerifyFiles(files, key.Public()); err != nil {
		t.Fatalf("signature: %v", err)
	}
	if len(v.f.Status.Summary.URIs) != len(files) || len(files) != 7 { // csv, json, signature, 2 x (svg, png)
		t.Errorf("%d URIs for %d files %v", len(v.f.Status.Summary.URIs), len(files), fileNames(files))
	}
}

// A fleet without canaries uploads the summary as before: no cohorts, no figures.
func TestARoundWithoutCanariesHasNoCohorts(t *testing.T) {
	store := buckettest.MemStore{}
	r := &Reconciler{Store: store, Provenance: provenance.RandomKey()}
	v := cohortView()
	v.f.Spec.UpgradeGate = nil
	r.uploadSummaryIfDue(context.Background(), v)
	files := store.Folder("p/fleets/lab/f/round-4/")
	if strings.Contains(string(files["summary.json"]), `"cohorts"`) || len(files) != 3 {
		t.Fatalf("files %v", fileNames(files))
	}
}

func fileNames(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
