package integration

import (
	"context"
	"fmt"
	"path"
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

// A node sliding 1 % a round is Degrading while it still passes its floor (900 Mb/s) and its
// own history's k x std; a steady node is not. The history is in a real S3 server, signed
// with the manager's key as the manager writes it.
func TestFleetFlagsADegradingNodeBeforeItFails(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	endpoint := s3Server(t, "7091", "fleet-trend")
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s3", Namespace: ns, Labels: map[string]string{"spiralbench.io/credentials": "true"}},
		Data: map[string][]byte{"accessKeyID": []byte("spiralbench-test"), "secretAccessKey": []byte("spiralbench-test-secret")}}
	if err := k8sClient.Create(context.Background(), secret); err != nil {
		t.Fatal(err)
	}
	target := bucket.Target{Endpoint: endpoint, Bucket: "fleet-trend", Region: "us-east-1",
		AccessKeyID: "spiralbench-test", SecretAccessKey: "spiralbench-test-secret"}
	env := sbv1.Environment{Kernel: "6.11.0-test", Image: "spiralbench/dataplane:test"}
	seed := func(node string, values ...int64) {
		for i, v := range values {
			rec := fleet.Record{Node: node, Fleet: "trend", Bench: "earlier", RunID: fmt.Sprintf("2026110%dT000000Z-seed", i+1),
				Time: fmt.Sprintf("2026-11-0%dT00:00:00Z", i+1), Metric: "RxMbps", Verdict: "Passed", Values: []int64{v, v}, Environment: env}
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
	seed("ft-drift", 1000, 990, 980, 970, 960, 950)
	seed("ft-steady", 1000, 1004, 996, 1002, 998, 1001)
	speeds := map[string]int64{"ft-drift": 940, "ft-steady": 1000}
	for n := range speeds {
		poolNode(t, n, "trend")
	}
	f := sbtesting.MakeFleet("trend", ns, "trend").MinRxMbps(900).Repeats(2).Baseline(3000, 5).
		Results(&sbv1.ResultsSpec{Endpoint: endpoint, Bucket: "fleet-trend", Region: "us-east-1", CredentialsSecretRef: sbv1.SecretReference{Name: "s3"}}).Obj()
	f.Spec.Baseline.TrendRounds = 6
	if err := k8sClient.Create(context.Background(), f); err != nil {
		t.Fatal(err)
	}
	done := (&fleetKubelet{t: t, ns: ns, mbps: speeds}).runUntil(90*time.Second, "trend", "round finished", roundFinished(1))
	drift := rowOf(done, "ft-drift")
	if drift.Verdict != sbv1.NodePassed || drift.Regressed || !strings.Contains(strings.Join(drift.Reasons, ","), "Degrading") ||
		!strings.Contains(drift.Reason, "degrading: RxMbps -10.0 a round over 7 runs") || !strings.Contains(drift.Reason, "past its floor 900") {
		t.Fatalf("ft-drift %+v", drift)
	}
	if s := rowOf(done, "ft-steady"); s.Verdict != sbv1.NodePassed || len(s.Reasons) != 0 {
		t.Fatalf("ft-steady %+v", s)
	}
	if done.Status.Reasons["Degrading"] != 1 {
		t.Fatalf("status.reasons %v", done.Status.Reasons)
	}
}
