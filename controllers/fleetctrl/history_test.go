package fleetctrl

import (
	"context"
	"maps"
	"path"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/bucket/buckettest"
	"github.com/spiralbench/spiralbench/pkg/fleet"
	"github.com/spiralbench/spiralbench/pkg/provenance"
	"github.com/spiralbench/spiralbench/pkg/testing/fixture"
)

func TestHistoryRecordsAreSignedEachInItsFolder(t *testing.T) {
	store, key := buckettest.MemStore{}, provenance.RandomKey()
	r := &Reconciler{Store: store, Provenance: key}
	f := &sbv1.SpiralBenchFleet{ObjectMeta: metav1.ObjectMeta{Namespace: "lab", Name: "f"}}
	v := &fleetView{f: f, metric: "RxMbps", bucketResolved: true, bucket: &fleetBucket{prefix: "p"}}
	nodeFolder := fleet.HistoryPrefix("p", "lab", "f", "n1")
	// A record written before records were signed, in the node's folder itself: never read.
	old, _ := fleet.Record{Node: "n1", Fleet: "f", RunID: "20261101T000000Z-old", Metric: "RxMbps", Values: []int64{1000}}.Encode()
	store[nodeFolder+"20261101T000000Z-old.json"] = old

	now := metav1.NewTime(time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC))
	for i, uid := range []string{"aaaaaaaa", "bbbbbbbb"} {
		sb := fixture.TCPSweep("run", 1, false)
		sb.UID, sb.Status.StartTime = types.UID(uid+"-0000"), &metav1.Time{Time: now.Add(time.Duration(i) * time.Hour)}
		row := &sbv1.FleetNode{Name: "n1", LastBenchTime: sb.Status.StartTime}
		r.appendHistory(context.Background(), v, row, sb, []int64{990, 1010})
	}
	var signed int
	for k := range store {
		if path.Base(k) == provenance.SignatureFile {
			signed++
			if _, err := provenance.VerifyFiles(store.Folder(path.Dir(k)+"/"), key.Public()); err != nil {
				t.Errorf("%s: %v", path.Dir(k), err)
			}
		}
	}
	if signed != 2 {
		t.Fatalf("want a SIGNATURE.json beside each of the 2 records, got %d: %v", signed, slices.Collect(maps.Keys(store)))
	}
	records, err := r.readHistory(context.Background(), v.bucket, nodeFolder)
	if err != nil || len(records) != 2 {
		t.Fatalf("read back %d records, %v; want the 2 signed ones, not the unsigned old one", len(records), err)
	}
	// A record changed in the bucket no longer verifies: a baseline never reads it.
	for k := range store {
		if path.Base(k) == historyRecordFile {
			store[k] = []byte(strings.Replace(string(store[k]), "990", "9990", 1))
			break
		}
	}
	if records, _ = r.readHistory(context.Background(), v.bucket, nodeFolder); len(records) != 1 {
		t.Fatalf("read back %d records after one was edited in the bucket, want 1", len(records))
	}

	// Without a key nothing is uploaded, and the fleet says why.
	r.Provenance = nil
	before := len(store)
	sb := fixture.TCPSweep("run", 1, false)
	r.appendHistory(context.Background(), v, &sbv1.FleetNode{Name: "n1", LastBenchTime: &now}, sb, []int64{1})
	c := meta.FindStatusCondition(f.Status.Conditions, sbv1.ConditionResultsUploaded)
	if len(store) != before || c == nil || c.Status != metav1.ConditionFalse || !strings.Contains(c.Message, "unsigned") {
		t.Fatalf("without a key: %d new objects, condition %+v", len(store)-before, c)
	}
}
