package controllers

import (
	"context"
	"path"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/bucket"
	"github.com/spiralbench/spiralbench/pkg/fleet"
	"github.com/spiralbench/spiralbench/pkg/provenance"
	"github.com/spiralbench/spiralbench/pkg/report"
	"github.com/spiralbench/spiralbench/pkg/testing/fixture"
)

// memStore is a bucket in memory: key -> content.
type memStore map[string][]byte

func (m memStore) Upload(_ context.Context, t bucket.Target, prefix string, files map[string][]byte) ([]string, error) {
	var uris []string
	for name, data := range files {
		m[path.Join(prefix, name)] = data
		uris = append(uris, "s3://"+t.Bucket+"/"+path.Join(prefix, name))
	}
	sort.Strings(uris)
	return uris, nil
}

func (m memStore) List(_ context.Context, _ bucket.Target, prefix string) ([]string, error) {
	var keys []string
	for k := range m {
		if strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys, nil
}

func (m memStore) Get(_ context.Context, _ bucket.Target, key string) ([]byte, error) {
	return m[key], nil
}

// folder is what the store holds under prefix, by name relative to it.
func (m memStore) folder(prefix string) map[string][]byte {
	out := map[string][]byte{}
	for k, v := range m {
		if rel, ok := strings.CutPrefix(k, prefix); ok {
			out[rel] = v
		}
	}
	return out
}

func TestABenchUploadIsSigned(t *testing.T) {
	sb := fixture.TCPSweep("tcp-sweep", 1, false)
	sb.Spec.Results = &sbv1.ResultsSpec{Endpoint: "http://s3.test:7070", Bucket: "results", CredentialsSecretRef: sbv1.SecretReference{Name: "s3"}}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: sb.Namespace, Name: "s3", Labels: map[string]string{LabelCredentials: "true"}},
		Data: map[string][]byte{"accessKeyID": []byte("k"), "secretAccessKey": []byte("s")}}
	c := fake.NewClientBuilder().WithScheme(testScheme(t)).WithObjects(secret).Build()
	store, key := memStore{}, provenance.RandomKey()
	r := &SpiralBenchReconciler{Client: c, APIReader: c, Uploader: store, Provenance: key}
	if _, err := r.upload(context.Background(), sb, sb.Spec.Results, sb.Namespace); err != nil {
		t.Fatal(err)
	}
	files := store.folder(report.Prefix(sb, ""))
	if _, err := provenance.VerifyFiles(files, key.Public()); err != nil || files["runs.csv"] == nil || files[provenance.SignatureFile] == nil {
		t.Fatalf("the uploaded folder (%d files) does not verify: %v", len(files), err)
	}

	unsigned := memStore{}
	r.Uploader, r.Provenance = unsigned, nil
	if _, err := r.upload(context.Background(), sb, sb.Spec.Results, sb.Namespace); err == nil || !strings.Contains(err.Error(), "unsigned") || len(unsigned) != 0 {
		t.Fatalf("without a key: %v, %d objects uploaded", err, len(unsigned))
	}
}

func TestHistoryRecordsAreSignedEachInItsFolder(t *testing.T) {
	store, key := memStore{}, provenance.RandomKey()
	r := &FleetReconciler{Store: store, Provenance: key}
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
			if _, err := provenance.VerifyFiles(store.folder(path.Dir(k)+"/"), key.Public()); err != nil {
				t.Errorf("%s: %v", path.Dir(k), err)
			}
		}
	}
	if signed != 2 {
		t.Fatalf("want a SIGNATURE.json beside each of the 2 records, got %d: %v", signed, keys(store))
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
