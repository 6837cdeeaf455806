package integration

import (
	"context"
	"strings"
	"testing"
	"time"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// A node sliding 1 % a round is Degrading while it still passes its floor (900 Mb/s) and its
// own history's k x std; a steady node is not. The history is in a real S3 server, signed
// with the manager's key as the manager writes it.
func TestFleetFlagsADegradingNodeBeforeItFails(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	endpoint, target := historyBucket(t, ns, "fleet-trend")
	seed := func(node string, values ...int64) {
		seedHistory(t, target, ns, "trend", node, historyEnvironment, 0, values...)
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
