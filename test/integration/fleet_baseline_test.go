package integration

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/bucket"
	"github.com/spiralbench/spiralbench/pkg/fleet"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// s3Server starts a real S3 server (versitygw, hack/s3-server.sh, built once into the cache)
// on a port of its own and returns its endpoint; it is removed when the test ends.
func s3Server(t *testing.T, port, bucketName string) string {
	t.Helper()
	script := filepath.Join(repoRoot, "hack", "s3-server.sh")
	env := append(os.Environ(), "S3_PORT="+port, "S3_BUCKET="+bucketName)
	cmd := exec.Command(script, "up")
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("hack/s3-server.sh up: %v\n%s", err, stderr.String())
	}
	t.Cleanup(func() {
		down := exec.Command(script, "down")
		down.Env = env
		_ = down.Run()
	})
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return lines[len(lines)-1]
}

// Baselines from history: each node is compared with its own earlier runs in the bucket on
// the same environment only; a drop beyond k x std fails it; the run joins the history; the
// round's summary lands in the bucket as CSV and JSON.
func TestFleetJudgesNodesAgainstTheirOwnHistory(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	endpoint, target := historyBucket(t, ns, "fleet-history")
	// What the bench controller records of these nodes (envtest nodes, the test image).
	env := historyEnvironment
	oldDriver := env
	oldDriver.GPUDriver = "550.54"
	seed := func(node string, e sbv1.Environment, values ...int64) {
		seedHistory(t, target, ns, "hist", node, e, 4, values...)
	}
	seed("fb-regressed", env, 1000, 1010, 990)
	seed("fb-steady", env, 1000, 1010, 990)
	seed("fb-newdriver", oldDriver, 2000, 2010, 1990) // not comparable: ignored
	speeds := map[string]int64{"fb-regressed": 800, "fb-steady": 1003, "fb-newdriver": 800}
	for n := range speeds {
		poolNode(t, n, "history")
	}
	f := sbtesting.MakeFleet("hist", ns, "history").Repeats(2).Baseline(3000, 5).
		Results(&sbv1.ResultsSpec{Endpoint: endpoint, Bucket: "fleet-history", Region: "us-east-1", CredentialsSecretRef: sbv1.SecretReference{Name: "s3"}}).Obj()
	if err := k8sClient.Create(context.Background(), f); err != nil {
		t.Fatal(err)
	}
	done := (&fleetKubelet{t: t, ns: ns, mbps: speeds}).runUntil(90*time.Second, "hist", "round finished, summary uploaded", func(f *sbv1.SpiralBenchFleet) bool {
		return roundFinished(1)(f) && f.Status.Summary != nil
	})
	reg := rowOf(done, "fb-regressed")
	if reg.Verdict != sbv1.NodeFailed || !reg.Regressed || !strings.Contains(reg.Reason, "regressed: 800 vs its history") ||
		reg.BaselineDeltaMilliPercent == nil || *reg.BaselineDeltaMilliPercent > -19000 {
		t.Fatalf("fb-regressed %+v delta %v", reg, reg.BaselineDeltaMilliPercent)
	}
	if s := rowOf(done, "fb-steady"); s.Verdict != sbv1.NodePassed || s.Regressed || s.BaselineDeltaMilliPercent == nil {
		t.Fatalf("fb-steady %+v", s)
	}
	if n := rowOf(done, "fb-newdriver"); n.Verdict != sbv1.NodePassed || n.BaselineDeltaMilliPercent != nil {
		t.Fatalf("fb-newdriver has no comparable history and must not be judged against another driver: %+v", n)
	}
	if done.Status.Counts.Regressed != 1 {
		t.Fatalf("counts %+v", done.Status.Counts)
	}
	keys, err := (bucket.MinIO{}).List(context.Background(), target, fleet.HistoryPrefix("", ns, "hist", "fb-regressed"))
	if err != nil || len(keys) != 8 {
		t.Fatalf("fb-regressed history %v %v, want the 3 seeded runs and this one, each a record and its SIGNATURE.json", keys, err)
	}
	var csvKey string
	for _, u := range done.Status.Summary.URIs {
		if strings.HasSuffix(u, "summary.csv") {
			csvKey = strings.TrimPrefix(u, "s3://fleet-history/")
		}
	}
	data, err := (bucket.MinIO{}).Get(context.Background(), target, csvKey)
	if err != nil {
		t.Fatalf("summary.csv (%v): %v", done.Status.Summary.URIs, err)
	}
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil || len(rows) != 4 || rows[0][0] != "node" || rows[2][0] != "fb-regressed" || rows[2][1] != "Failed" || rows[2][10] != "true" {
		t.Fatalf("summary.csv rows %v (%v)", rows, err)
	}
}

// historyEnvironment is what the bench controller records of envtest nodes with the test
// image: the environment seeded history must share to be comparable.
var historyEnvironment = sbv1.Environment{Kernel: "6.11.0-test", Image: "spiralbench/dataplane:test"}

// historyBucket starts a real S3 server with the bucket, creates the credentials Secret "s3" in
// ns, and returns the endpoint and the target to seed history into.
func historyBucket(t *testing.T, ns, bucketName string) (string, bucket.Target) {
	t.Helper()
	endpoint := s3Server(t, "7091", bucketName)
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s3", Namespace: ns, Labels: map[string]string{"spiralbench.io/credentials": "true"}},
		Data: map[string][]byte{"accessKeyID": []byte("spiralbench-test"), "secretAccessKey": []byte("spiralbench-test-secret")}}
	if err := k8sClient.Create(context.Background(), secret); err != nil {
		t.Fatal(err)
	}
	return endpoint, bucket.Target{Endpoint: endpoint, Bucket: bucketName, Region: "us-east-1",
		AccessKeyID: "spiralbench-test", SecretAccessKey: "spiralbench-test-secret"}
}

// seedHistory writes a node's earlier runs (one a day from 2026-11-01, each two repeats v and
// v+spread) as the manager writes them: a folder per record, signed with its key.
func seedHistory(t *testing.T, target bucket.Target, ns, fleetName, node string, env sbv1.Environment, spread int64, values ...int64) {
	t.Helper()
	for i, v := range values {
		rec := fleet.Record{Node: node, Fleet: fleetName, Bench: "earlier", RunID: fmt.Sprintf("2026110%dT000000Z-seed", i+1),
			Time: fmt.Sprintf("2026-11-0%dT00:00:00Z", i+1), Metric: "RxMbps", Verdict: "Passed", Values: []int64{v, v + spread}, Environment: env}
		data, _ := rec.Encode()
		files := map[string][]byte{"record.json": data}
		if err := managerKey.Sign(files); err != nil {
			t.Fatal(err)
		}
		if _, err := (bucket.MinIO{}).Upload(context.Background(), target, path.Dir(fleet.RecordKey("", ns, rec))+"/", files); err != nil {
			t.Fatal(err)
		}
	}
}
